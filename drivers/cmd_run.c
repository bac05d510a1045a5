/* chs run: one problem, one formulation, one method. */
#include <stdlib.h>
#include <string.h>
#include "../src/compat.h"
#include "cli.h"
#include "mpi_cli.h"

static void print_summary(const cli_result *r) {
  const CHSRunSummary *s = &r->sum;
  const CHSDiagnosticsSummary *d = &s->diag;
  printf("problem %s, formulation %s, method %s\n", r->problem, r->formulation, r->method);
  printf("  t_final        %.6g\n", (double)d->t_final);
  printf("  steps          %ld\n", s->stats.steps);
  printf("  rhs evals      %ld\n", s->rhs_evals);
  printf("  energy error   max %.3e  final %.3e  (%s%s)\n", (double)d->energy_err_max,
         (double)d->energy_err_final, d->energy0 != 0 ? "relative to |H(0)|" : "absolute: H(0) = 0",
         d->energy_invariant ? ""
         : d->energy_is_balance
             ? "; H depends on t explicitly: this is the error of the energy balance below"
             : "; not an invariant: the problem has a non-conservative force");
  printf("  |g|            max %.3e  final %.3e\n", (double)d->pos_res_max,
         (double)d->pos_res_final);
  printf("  |psi|          max %.3e  final %.3e\n", (double)d->mom_res_max,
         (double)d->mom_res_final);
  if (d->has_reference) {
    printf("  |(q,p)-ref|    max %.3e  final %.3e\n", (double)d->int_err_max,
           (double)d->int_err_final);
  } else {
    printf("  |(q,p)-ref|    n/a (no reference solution at t_final)\n");
  }
  if (s->stats.nonlin_iters > 0) {
    printf("  nonlinear      %ld iterations, %ld convergence failures", s->stats.nonlin_iters,
           s->stats.nonlin_conv_fails);
    if (s->stats.err_test_fails >= 0) {
      printf("; %ld error-test failures", s->stats.err_test_fails);
    }
    if (s->stats.jac_evals >= 0) {
      printf("; %ld Jacobian evaluations", s->stats.jac_evals);
    }
    printf("\n");
  }
  if (s->stats.lin_iters > 0 && s->stats.nonlin_iters > 0) { /* cvode ls=spgmr */
    printf("  krylov         %ld iterations, %.2f per Newton iteration\n", s->stats.lin_iters,
           (double)s->stats.lin_iters / (double)s->stats.nonlin_iters);
  }
  if (cli_is_alpha_prk(r->method)) {
    printf("  alpha          max |alpha| %.3e; %ld steps along the second direction\n",
           (double)s->stats.alpha_max, s->stats.alpha_dir2_steps);
  }
  if (r->has_wedge) {
    printf("  wedge product  max |omega - omega(0)| %.3e  (omega(0) = 1); relative to "
           "|dz1| |dz2| %.3e; %s\n",
           r->wedge_err_max, r->wedge_rel_err_max,
           r->wedge_exact ? "the method's tangent map" : "finite differences of the step map");
  }
  for (int i = 0; i < d->n_invariants; i++) {
    printf("  %-14s max %.3e  final %.3e  (absolute drift)\n", d->invariant_names[i],
           (double)d->invariant_err_max[i], (double)d->invariant_err_final[i]);
  }
  if (d->balance_tracked) {
    printf("  energy balance max %.3e  final %.3e  (|H - H0 - W| / |H0|; work W = %.6g)\n",
           (double)d->balance_err_max, (double)d->balance_err_final, (double)d->work_final);
  }
  if (s->events_located) {
    printf("  events         %ld%s\n", s->n_events,
           s->n_events > s->n_event_records ? " (the first listed)" : "");
    for (int i = 0; i < s->n_event_records; i++) {
      const CHSEventRecord *e = &s->events[i];
      printf("    %-12s t = %.17g  %s\n", r->event_names[e->index], (double)e->t,
             e->direction > 0 ? "rising" : "falling");
    }
    if (s->stopped) {
      printf("  stopped at     %s, t = %.17g\n", r->event_names[s->stop_event], (double)d->t_final);
    }
  }
  printf("  wall           %.3g s\n", s->wall_s);
}

/* The final physical state (the last record's), then the CSV row when --out is given. */
typedef struct {
  csv_writer *csv;
  int use_csv;
  sunindextype n;
  sunrealtype *q, *p;
} run_monitor_ctx;

static int run_monitor(const CHSRecord *rec, void *ctx) {
  run_monitor_ctx *m = ctx;
  memcpy(m->q, rec->q, (size_t)m->n * sizeof *m->q);
  memcpy(m->p, rec->p, (size_t)m->n * sizeof *m->p);
  return m->use_csv ? csv_monitor(rec, m->csv) : 0;
}

/* --stop-at NAME[,NAME...] (repeatable) taken out of argv before the shared parser (which
 * refuses an option given twice): the names joined with commas into buf; the other arguments in
 * rest (rest[0] = argv[0]). Walks argv as cli_parse does: every "--x" except --json, --wedge and
 * --help takes the next argument as its value. */
static int take_stop_at(int argc, char **argv, char **rest, int *nrest, char *buf, size_t len) {
  size_t used = 0;
  *nrest = 0;
  buf[0] = '\0';
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (i > 0 && strcmp(a, "--stop-at") == 0) {
      if (i + 1 >= argc || argv[i + 1][0] == '\0') {
        return cli_usage_error("option --stop-at needs an event name (or a comma-separated list, "
                               "or all)");
      }
      const char *v = argv[++i];
      size_t vl = strlen(v);
      if (used + vl + 2 > len) {
        return cli_usage_error("value of --stop-at is too long (at most %zu bytes in all)",
                               len - 2);
      }
      if (used > 0) {
        buf[used++] = ',';
      }
      memcpy(buf + used, v, vl + 1);
      used += vl;
      continue;
    }
    rest[(*nrest)++] = argv[i];
    if (i > 0 && strncmp(a, "--", 2) == 0 && strcmp(a, "--json") != 0 &&
        strcmp(a, "--wedge") != 0 && strcmp(a, "--help") != 0 && i + 1 < argc) {
      rest[(*nrest)++] = argv[++i];
    }
  }
  rest[*nrest] = NULL;
  return 0;
}

/* --wedge: the wedge product along the same method and step (a second integration, with the
 * method's tangent map, or 25 steps of the method per step for finite differences: chs/wedge.h).
 */
static int run_wedge(const cli_options *o, CHSProblem prob, cli_result *res) {
  SUNContext sun = NULL;
  if (chs_context_create(&sun) != 0) {
    res->err.code = CHS_ERR_MEM;
    snprintf(res->err.msg, sizeof res->err.msg, "cannot create a SUNContext");
    return CHS_ERR_MEM;
  }
  chs_context_silence(sun);
  CHSFormulation f = NULL;
  CHSWedgeSummary w;
  int rc = CHSFormulation_Create(o->formulation, prob, sun, &f, &res->err);
  if (rc == 0) {
    CHSRunOptions ro;
    cli_run_options(o, &ro);
    rc = CHSWedge_Run(f, &ro, NULL, NULL, &w, &res->err);
  }
  if (rc == 0) {
    res->has_wedge = 1;
    res->wedge_err_max = (double)w.err_max;
    res->wedge_rel_err_max = (double)w.rel_err_max;
    res->wedge_exact = w.exact_tangents;
  }
  CHSFormulation_Destroy(&f);
  SUNContext_Free(&sun);
  return rc;
}

int cmd_run(int argc, char **argv) {
  cli_options o;
  char stop_at[CLI_MAX_VALUE_LEN];
  char **rest = calloc((size_t)argc + 1, sizeof *rest);
  int nrest = 0;
  if (!rest) {
    fprintf(stderr, "chs: out of memory\n");
    return CHS_EXIT_NUMERIC;
  }
  int rc = take_stop_at(argc, argv, rest, &nrest, stop_at, sizeof stop_at);
  if (rc == 0) {
    rc = cli_parse(nrest, rest, "--formulation", &o);
  }
  free(rest);
  if (rc != 0) {
    return rc == CLI_HELP_DONE ? CHS_EXIT_OK : rc;
  }
  o.stop_at = stop_at[0] ? stop_at : NULL;
  if (o.help) {
    cli_print_run_usage(stdout, "run", "--formulation");
    printf("  --stop-at EVENT  stop at the first occurrence of the problem's event EVENT (a\n"
           "                   comma-separated list, repeatable, or all); every event up to\n"
           "                   there is reported; t_final, q_final, p_final are the event's\n");
    return CHS_EXIT_OK;
  }
  if ((rc = cli_check_run_options(&o)) != 0) {
    return rc;
  }
  if (cli_is_first_order(o.problem) && o.stop_at) {
    return cli_usage_error("--stop-at: first-order problem %s declares no events", o.problem);
  }
  if (cli_is_first_order(o.problem)) {
    return cmd_run_first_order(&o);
  }
  if (o.stop_at && o.wedge) {
    return cli_usage_error("--stop-at and --wedge cannot be combined (the wedge product runs to "
                           "--tf)");
  }
  if (!o.formulation) {
    fprintf(stderr, "chs: missing --formulation\n");
    return CHS_EXIT_USAGE;
  }
  if (o.wedge && !o.have_h) {
    fprintf(stderr, "chs: --wedge needs a fixed step --h (the step map is linearised)\n");
    return CHS_EXIT_USAGE;
  }
  if (o.out && (rc = cli_check_output_file("--out", o.out)) != 0) {
    return rc;
  }
  if (cli_mpi_size() > 0) { /* started by mpirun: the state distributed over the ranks */
    return cmd_run_mpi(&o);
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
  if (CHSProblem_CheckStopAt(prob, o.stop_at, &err) != 0) {
    CHSProblem_Destroy(&prob);
    return cli_fail(&err);
  }
  /* the final state and the event names outlive the problem (a plugin's memory) */
  sunindextype n = CHSProblem_GetDims(prob)->n;
  sunrealtype *final = calloc(2 * (size_t)n, sizeof *final);
  if (!final) {
    CHSProblem_Destroy(&prob);
    fprintf(stderr, "chs: out of memory\n");
    return CHS_EXIT_NUMERIC;
  }
  char ev_names[CHS_MAX_EVENTS][128];
  int nev = CHSProblem_GetNumEvents(prob);
  for (int k = 0; k < nev && k < CHS_MAX_EVENTS; k++) {
    snprintf(ev_names[k], sizeof ev_names[k], "%s", CHSProblem_GetOps(prob)->event_names[k]);
  }
  csv_writer csv;
  memset(&csv, 0, sizeof csv);
  if (o.out && csv_open(&csv, o.out, CHSProblem_GetDims(prob)->n, &err) != 0) {
    CHSProblem_Destroy(&prob);
    free(final);
    return cli_fail(&err);
  }
  cli_result res;
  run_monitor_ctx mon = {&csv, o.out != NULL, n, final, final + n};
  cli_integrate(&o, o.formulation, run_monitor, &mon, prob, &res);
  if (res.sum.diag.records > 0) {
    res.q_final = final;
    res.p_final = final + n;
    res.n_final = n;
  }
  for (int k = 0; k < nev && k < CHS_MAX_EVENTS; k++) {
    res.event_names[k] = ev_names[k];
  }
  CHSError cerr;
  CHSError_Clear(&cerr);
  int crc = csv_close(&csv, &cerr);
  /* the summary's invariant names point into the problem (a plugin's memory): keep copies */
  char inv_names[CHS_MAX_INVARIANTS][128];
  for (int i = 0; i < res.sum.diag.n_invariants; i++) {
    snprintf(inv_names[i], sizeof inv_names[i], "%s", res.sum.diag.invariant_names[i]);
    res.sum.diag.invariant_names[i] = inv_names[i];
  }
  CHSProblem_Destroy(&prob);
  rc = CHS_EXIT_OK;
  if (crc != 0) { /* the output failed (the run stopped there): that is the error to name */
    rc = cli_fail(&cerr);
  } else if (res.rc != 0) {
    if (o.out) {
      fprintf(stderr, "chs: %s holds the output up to t = %g\n", o.out,
              (double)res.sum.diag.t_final);
    }
    rc = cli_fail(&res.err);
  } else if (o.wedge) {
    CHSProblem wprob = NULL;
    if (CHSProblem_Create(o.problem, &wprob, &err) != 0) {
      rc = cli_fail(&err);
    } else {
      int wrc = run_wedge(&o, wprob, &res);
      CHSProblem_Destroy(&wprob);
      if (wrc != 0) {
        rc = cli_fail(&res.err);
      }
    }
  }
  if (rc == CHS_EXIT_OK && o.json) {
    json_run_object(stdout, &res, "");
    printf("\n");
  } else if (rc == CHS_EXIT_OK) {
    print_summary(&res);
  }
  free(final);
  return rc;
}
