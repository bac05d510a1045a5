/* chs bench rhs: cost of one right-hand-side evaluation of every registered formulation,
 * relative to the standard formulation, on each built-in problem (or each --problem) at its
 * initial state, and relative to a --baseline problem. Ratios are measured in one run (best
 * chunk of 1000 evaluations over several rounds, the problems and formulations interleaved in
 * each round). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

/* The problem column: the spec as given (terminal controls escaped), padded to 16 columns; a
 * longer spec (a plugin path) gets a line of its own, so the columns stay aligned. */
static void bench_print_spec(const char *spec) {
  size_t l = strlen(spec);
  cli_fputs_safe(stdout, spec);
  if (l > 16) {
    printf("\n");
    l = 0;
  }
  for (; l < 16; l++) {
    putchar(' ');
  }
}

/* Rows of one problem: cost of each formulation, relative to standard and (base != NULL) to the
 * same formulation on the baseline problem. Returns the exit status. */
static int bench_rows(const char *problem, CHSProblem prob, const char *const *names, int nf,
                      const double *cost, const double *base, int json, int *first) {
  double std = 0;
  for (int i = 0; i < nf; i++) {
    const CHSFormulationOps *fo = CHSFormulationRegistry_Get(i);
    if (fo->flags & CHS_FORM_DAE) {
      continue; /* residual formulations: no right-hand side to time */
    }
    int refused = ((fo->flags & CHS_FORM_NEEDS_HAMILTONIAN) && !CHSProblem_IsConservative(prob)) ||
                  cost[i] == -2;
    double per = cost[i];
    if (!refused && per <= 0) {
      fprintf(stderr, "chs: %s failed at the initial state of ", names[i]);
      cli_fputs_safe(stderr, problem);
      fprintf(stderr, "\n");
      return CHS_EXIT_NUMERIC;
    }
    std = i == 0 ? per : std;
    /* the ratio to the baseline: only where both were measured */
    double vs = !refused && base && base[i] > 0 ? per / base[i] : -1;
    if (json) {
      printf("%s\n    {\"problem\": ", *first ? "" : ",");
      json_string(stdout, problem);
      bench_json_string("formulation", names[i]);
      if (refused) {
        printf(", \"ns_per_eval\": null, \"ratio_to_standard\": null");
      } else {
        printf(", \"ns_per_eval\": %.4g, \"ratio_to_standard\": %.4g", per * 1e9,
               std > 0 ? per / std : 1.0);
      }
      if (base) {
        if (vs > 0) {
          printf(", \"ratio_to_baseline\": %.4g", vs);
        } else {
          printf(", \"ratio_to_baseline\": null");
        }
      }
      printf("}");
    } else {
      if (i == 0) {
        bench_print_spec(problem);
      } else {
        printf("%-16s", "");
      }
      if (refused) {
        printf(" %-12s %10s %10s", names[i], "n/a", "n/a");
      } else {
        printf(" %-12s %10.1f %10.3f", names[i], per * 1e9, std > 0 ? per / std : 1.0);
      }
      if (base) {
        if (vs > 0) {
          printf(" %11.3f", vs);
        } else {
          printf(" %11s", "n/a");
        }
      }
      printf("\n");
    }
    *first = 0;
  }
  return CHS_EXIT_OK;
}

/* Times every formulation on the problems `specs` (all created before any timing, so a bad spec
 * is reported with nothing printed); baseline (or NULL) is timed in the same rounds. */
static int bench_specs(const char *const *specs, int ns, const char *baseline, long evals, int json,
                       int *first) {
  CHSProblem probs[BENCH_MAX_PROBLEMS + 1] = {NULL};
  const char *all[BENCH_MAX_PROBLEMS + 1];
  int np = 0, status = CHS_EXIT_OK;
  if (baseline) {
    all[np++] = baseline;
  }
  for (int i = 0; i < ns; i++) {
    all[np++] = specs[i];
  }
  for (int i = 0; i < np; i++) {
    CHSError err;
    CHSError_Clear(&err);
    if (CHSProblem_Create(all[i], &probs[i], &err) != 0) {
      status = cli_fail(&err);
      break;
    }
  }
  const char *names[CLI_MAX_COSTS];
  int nf = 0;
  for (int i = 0; i < CHSFormulationRegistry_Count() && nf < CLI_MAX_COSTS; i++) {
    names[nf++] = CHSFormulationRegistry_Get(i)->name;
  }
  double *cost = status == 0 ? malloc(sizeof(double) * (size_t)(np * nf)) : NULL;
  if (status == 0 && (!cost || bench_rhs_costs(probs, np, names, nf, evals, cost) != 0)) {
    fprintf(stderr, "chs: bench rhs: out of memory\n");
    status = CHS_EXIT_NUMERIC;
  }
  for (int p = 0; status == 0 && p < np; p++) {
    status =
        bench_rows(all[p], probs[p], names, nf, cost + p * nf, baseline ? cost : NULL, json, first);
  }
  free(cost);
  for (int i = 0; i < np; i++) {
    CHSProblem_Destroy(&probs[i]);
  }
  return status;
}

int cmd_bench(int argc, char **argv) {
  /* run: the subcommands with a file of their own, which parse their options themselves (NULL:
   * rhs and dae, below) */
  static const struct {
    const char *name;
    cli_command_id id;
    int (*run)(int argc, char **argv);
  } benches[] = {{"rhs", CLI_BENCH_RHS, NULL},
                 {"dae", CLI_BENCH_DAE, NULL},
                 {"scale", CLI_BENCH_SCALE, cmd_bench_scale},
                 {"mpi", CLI_BENCH_MPI, cmd_bench_mpi},
                 {"calibrate", CLI_BENCH_CALIBRATE, cmd_bench_calibrate},
                 {"auto", CLI_BENCH_AUTO, cmd_bench_auto}};
  const int nbench = (int)(sizeof benches / sizeof benches[0]);
  const char *what = argc > 1 ? argv[1] : NULL;
  int which = -1;
  for (int k = 0; what && k < nbench; k++) {
    which = strcmp(what, benches[k].name) == 0 ? k : which;
  }
  if (which < 0 && what && (strcmp(what, "--help") == 0 || strcmp(what, "-h") == 0)) {
    for (int k = 0; k < nbench; k++) {
      cli_print_help(stdout, benches[k].id);
      printf("\n");
    }
    return CHS_EXIT_OK;
  }
  if (which < 0) {
    return cli_usage_error(
        "unknown benchmark '%.200s' (available: rhs, dae, scale, mpi, calibrate, auto: chs bench "
        "rhs [options])",
        what ? what : "");
  }
  if (benches[which].run) {
    return benches[which].run(argc - 1, argv + 1);
  }
  cli_options o;
  int rc = cli_parse(benches[which].id, argc - 1, argv + 1, &o);
  if (rc != 0) {
    return rc == CLI_HELP_DONE ? CHS_EXIT_OK : rc;
  }
  int json = o.json;
  long evals = o.evals;
  if (benches[which].id == CLI_BENCH_DAE) {
    if (o.scale) {
      if (o.problem) {
        return cli_usage_error("bench dae --scale chooses its problems with --problems, not "
                               "--problem");
      }
      return cmd_bench_dae_scale(&o); /* drivers/cmd_bench_dae_scale.c */
    }
    if (o.sizes || o.scale_problems || o.targets || o.have_time_limit || o.csv || o.cache_dir ||
        o.no_cache) {
      return cli_usage_error("--sizes, --problems, --targets, --time-limit, --csv, --cache-dir "
                             "and --no-cache belong to chs bench dae --scale");
    }
    if ((o.problem != NULL) != o.have_tf) {
      return cli_usage_error("chs bench dae takes one --problem P together with --tf T, or "
                             "neither (the built-in set)");
    }
    if (o.problem) {
      CHSProblem prob = NULL;
      CHSError err;
      CHSError_Clear(&err);
      if (CHSProblem_Create(o.problem, &prob, &err) != 0) {
        return cli_fail(&err);
      }
      CHSProblem_Destroy(&prob);
    }
    if (o.dry_run) {
      return cli_dry_run_done(o.problem ? o.problem : "the built-in set");
    }
    return cmd_bench_dae(json, o.quiet, o.problem, o.tf); /* drivers/cmd_bench_dae.c */
  }
  int nspecs = o.nproblems;
  const char *const *specs = o.problems, *baseline = o.baseline;
  if (baseline && !nspecs) {
    return cli_usage_error("--baseline needs at least one --problem to compare with it");
  }
  if (nspecs) {
    /* every problem is created (validated) before anything is printed or timed */
    for (int i = 0; i <= nspecs; i++) { /* the --problem specs, then the baseline */
      CHSProblem prob = NULL;
      CHSError err;
      CHSError_Clear(&err);
      const char *spec = i < nspecs ? specs[i] : baseline;
      if (spec && CHSProblem_Create(spec, &prob, &err) != 0) {
        return cli_fail(&err);
      }
      CHSProblem_Destroy(&prob);
    }
  }
  if (o.dry_run) {
    return cli_dry_run_done(nspecs ? specs[0] : "every built-in problem");
  }
  if (json) {
    printf("{\n  \"benchmark\": \"rhs\",\n  \"evals\": %ld,\n", evals);
    if (baseline) {
      printf("  \"baseline\": ");
      json_string(stdout, baseline);
      printf(",\n");
    }
    printf("  \"results\": [");
  } else {
    printf("%-16s %-12s %10s %10s%s\n", "problem", "formulation", "ns/eval", "ratio",
           baseline ? " vs-baseline" : "");
  }
  int status = CHS_EXIT_OK, first = 1;
  if (nspecs) {
    status = bench_specs(specs, nspecs, baseline, evals, json, &first);
  }
  for (int p = 0; !nspecs && status == 0 && p < CHSProblemRegistry_Count(); p++) {
    const char *name = CHSProblemRegistry_Get(p)->name;
    status = bench_specs(&name, 1, NULL, evals, json, &first);
  }
  if (json) {
    printf("\n  ]\n}\n");
  }
  return status;
}
