/* chs run: one problem, one formulation, one method. */
#include <string.h>
#include "cli.h"

static void print_summary(const cli_result *r) {
  const CHSRunSummary *s = &r->sum;
  const CHSDiagnosticsSummary *d = &s->diag;
  printf("problem %s, formulation %s, method %s\n", r->problem, r->formulation, r->method);
  printf("  t_final        %.6g\n", (double)d->t_final);
  printf("  steps          %ld\n", s->stats.steps);
  printf("  rhs evals      %ld\n", s->rhs_evals);
  printf("  energy error   max %.3e  final %.3e  (relative)\n", (double)d->energy_err_max,
         (double)d->energy_err_final);
  printf("  |g|            max %.3e  final %.3e\n", (double)d->pos_res_max,
         (double)d->pos_res_final);
  printf("  |psi|          max %.3e  final %.3e\n", (double)d->mom_res_max,
         (double)d->mom_res_final);
  if (d->has_reference) {
    printf("  |(q,p)-ref|    max %.3e  final %.3e\n", (double)d->int_err_max,
           (double)d->int_err_final);
  } else {
    printf("  |(q,p)-ref|    n/a (problem has no reference solution)\n");
  }
  for (int i = 0; i < d->n_invariants; i++) {
    printf("  %-14s max %.3e  final %.3e  (absolute drift)\n", d->invariant_names[i],
           (double)d->invariant_err_max[i], (double)d->invariant_err_final[i]);
  }
  printf("  wall           %.3g s\n", s->wall_s);
}

int cmd_run(int argc, char **argv) {
  cli_options o;
  int rc = cli_parse(argc, argv, "--formulation", &o);
  if (rc != 0) {
    return rc;
  }
  if (o.help) {
    cli_print_run_usage(stdout, "run", "--formulation");
    return CHS_EXIT_OK;
  }
  if ((rc = cli_check_run_options(&o)) != 0) {
    return rc;
  }
  if (!o.formulation) {
    fprintf(stderr, "chs: missing --formulation\n");
    return CHS_EXIT_USAGE;
  }
  CHSError err;
  CHSError_Clear(&err);
  CHSProblem prob = NULL;
  if (CHSProblem_Create(o.problem, &prob, &err) != 0) {
    return cli_fail(&err);
  }
  if (cli_check_formulation(o.formulation) != 0) {
    CHSProblem_Destroy(&prob);
    return CHS_EXIT_USAGE;
  }
  csv_writer csv;
  memset(&csv, 0, sizeof csv);
  if (o.out && csv_open(&csv, o.out, CHSProblem_GetDims(prob)->n, &err) != 0) {
    CHSProblem_Destroy(&prob);
    return cli_fail(&err);
  }
  cli_result res;
  cli_integrate(&o, o.formulation, o.out ? csv_monitor : NULL, &csv, prob, &res);
  CHSError cerr;
  CHSError_Clear(&cerr);
  int crc = csv_close(&csv, &cerr);
  CHSProblem_Destroy(&prob);
  if (res.rc != 0) {
    if (o.out && crc == 0) {
      fprintf(stderr, "chs: %s holds the output up to t = %g\n", o.out,
              (double)res.sum.diag.t_final);
    }
    return cli_fail(&res.err);
  }
  if (crc != 0) {
    return cli_fail(&cerr);
  }
  if (o.json) {
    json_run_object(stdout, &res, "");
    printf("\n");
  } else {
    print_summary(&res);
  }
  return CHS_EXIT_OK;
}
