/* chs check: a problem's derivative callbacks against finite differences (chs/check.h).
 * Exit status: 0 every check passes (or is skipped), 1 a derivative (or the initial state) is
 * wrong, 2 bad input (option, problem name, parameters, a problem that cannot be created). */
#include <stdlib.h>
#include <string.h>
#include "cli.h"

#define CHS_EXIT_CHECK_FAILED 1
/* The table's header lists the declared names of at most this many coordinates (constraints). */
#define CHECK_NAMES_SHOWN 12

/* "x1 y1 x2 ..." of a declared name table (count entries, at most CHECK_NAMES_SHOWN shown). */
static void print_names(const char *what, const char *const *names, sunindextype count) {
  if (!names) {
    return;
  }
  printf("%s:", what);
  for (sunindextype i = 0; i < count && i < CHECK_NAMES_SHOWN; i++) {
    printf(" %s", names[i]);
  }
  printf("%s\n", count > CHECK_NAMES_SHOWN ? " ..." : "");
}

static void json_names(const char *key, const char *const *names, sunindextype count) {
  if (!names) {
    return;
  }
  printf("  \"%s\": [", key);
  for (sunindextype i = 0; i < count; i++) {
    printf("%s", i ? ", " : "");
    json_string(stdout, names[i]);
  }
  printf("],\n");
}

static void print_table(const char *spec, const CHSProblemDims *d, const CHSCheckOptions *o,
                        const CHSCheckReport *rep) {
  char sp[1024];
  printf("problem %s (n = %ld, m = %ld): %d points (the initial state and %d perturbed, seed "
         "%llu)\n\n",
         cli_safe(sp, sizeof sp, spec), (long)d->n, (long)d->m, rep->points, o->points, o->seed);
  print_names("coordinates", d->coordinate_names, d->n);
  print_names("constraints", d->constraint_names, d->m);
  if (d->coordinate_names || d->constraint_names) {
    printf("\n");
  }
  printf("%-31s %6s %12s %12s %12s  %-7s %s\n", "callback", "points", "max rel err", "FD err est",
         "tolerance", "verdict", "detail");
  for (int i = 0; i < rep->nrows; i++) {
    const CHSCheckRow *r = &rep->rows[i];
    char e[32] = "-", f[32] = "-", t[32] = "-";
    if (r->comparisons > 0 && r->verdict != CHS_CHECK_SKIP) {
      snprintf(e, sizeof e, "%.2e", (double)r->max_rel_err);
      snprintf(f, sizeof f, "%.2e", (double)r->fd_err);
      snprintf(t, sizeof t, "%.2e", (double)r->tol);
    }
    printf("%-31s %6d %12s %12s %12s  %-7s %s\n", r->name, r->points, e, f, t,
           CHSCheckVerdict_Name(r->verdict), r->detail);
  }
  printf("\n%d passed, %d failed, %d skipped: %s\n", rep->n_pass, rep->n_fail, rep->n_skip,
         rep->n_fail ? "some derivatives are WRONG" : "every supplied derivative agrees");
}

static void print_json(const char *spec, const CHSProblemDims *d, const CHSCheckOptions *o,
                       const CHSCheckReport *rep) {
  printf("{\n  \"problem\": ");
  json_string(stdout, spec);
  printf(",\n  \"n\": %ld,\n  \"m\": %ld,\n  \"points\": %d,\n  \"seed\": %llu,\n", (long)d->n,
         (long)d->m, rep->points, o->seed);
  json_names("coordinate_names", d->coordinate_names, d->n);
  json_names("constraint_names", d->constraint_names, d->m);
  printf("  \"pass\": %s,\n  \"n_fail\": %d,\n  \"init_pos_res\": ", rep->n_fail ? "false" : "true",
         rep->n_fail);
  json_real(stdout, rep->init_pos_res, 1);
  printf(",\n  \"init_mom_res\": ");
  json_real(stdout, rep->init_mom_res, 1);
  printf(",\n  \"checks\": [");
  for (int i = 0; i < rep->nrows; i++) {
    const CHSCheckRow *r = &rep->rows[i];
    int valid = r->comparisons > 0 && r->verdict != CHS_CHECK_SKIP;
    printf("%s\n    {\"name\": ", i ? "," : "");
    json_string(stdout, r->name);
    printf(", \"points\": %d, \"comparisons\": %ld, \"max_rel_err\": ", r->points, r->comparisons);
    json_real(stdout, r->max_rel_err, valid);
    printf(", \"fd_err\": ");
    json_real(stdout, r->fd_err, valid);
    printf(", \"tolerance\": ");
    json_real(stdout, r->tol, valid);
    printf(", \"verdict\": ");
    json_string(stdout, CHSCheckVerdict_Name(r->verdict));
    printf(", \"detail\": ");
    json_string(stdout, r->detail);
    printf("}");
  }
  printf("\n  ]\n}\n");
}

int cmd_check(int argc, char **argv) {
  cli_options o;
  int prc = cli_parse(CLI_CHECK, argc, argv, &o);
  if (prc != 0) {
    return prc == CLI_HELP_DONE ? CHS_EXIT_OK : prc;
  }
  const char *spec = o.problem;
  int json = o.json;
  CHSCheckOptions opt;
  CHSCheckOptions_Default(&opt);
  opt.seed = (unsigned long long)o.seed;
  opt.points = (int)o.points;
  if (cli_is_first_order(spec)) {
    fprintf(stderr,
            "chs: check: '%s' is a first-order Lagrangian problem: chs check is for "
            "natural mechanical systems (chs/problem.h)\n",
            spec);
    return CHS_EXIT_USAGE;
  }
  CHSError err = {0, ""};
  CHSProblem prob = NULL;
  if (CHSProblem_Create(spec, &prob, &err) != 0) {
    return cli_fail(&err);
  }
  CHSCheckReport *rep = malloc(sizeof *rep);
  if (!rep) {
    CHSProblem_Destroy(&prob);
    return cli_out_of_memory();
  }
  int rc = CHSProblem_Check(prob, &opt, rep, &err);
  if (rc != 0) {
    free(rep);
    CHSProblem_Destroy(&prob);
    return cli_fail(&err);
  }
  if (json) {
    print_json(spec, CHSProblem_GetDims(prob), &opt, rep);
  } else {
    print_table(spec, CHSProblem_GetDims(prob), &opt, rep);
  }
  int status = rep->n_fail > 0 ? CHS_EXIT_CHECK_FAILED : CHS_EXIT_OK;
  free(rep);
  CHSProblem_Destroy(&prob);
  return status;
}
