/* chs bench rhs: cost of one right-hand-side evaluation of every registered formulation,
 * relative to the standard formulation, on each built-in problem at its initial state. Ratios
 * are measured in one run (best of several rounds, the formulations interleaved in each). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <nvector/nvector_serial.h>
#include "../src/compat.h"
#include "reproduce.h"

#define BENCH_REPEATS 7
#define BENCH_MAX_EVALS 10000000L /* --evals: at most 10^7 (default 200000) */

static double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int cli_rhs_costs(CHSProblem prob, const char *const *names, int k, long evals, double *cost) {
  SUNContext ctx = NULL;
  if (k < 1 || k > CLI_MAX_COSTS || chs_context_create(&ctx) != 0) {
    return -1;
  }
  chs_context_silence(ctx);
  CHSFormulation f[CLI_MAX_COSTS] = {NULL};
  N_Vector y[CLI_MAX_COSTS] = {NULL}, yd[CLI_MAX_COSTS] = {NULL};
  for (int i = 0; i < k; i++) {
    cost[i] = -1;
    int crc = CHSFormulation_Create(names[i], prob, ctx, &f[i], NULL);
    if (crc == 0 && CHSFormulation_NewInitialState(f[i], &y[i], NULL) == 0 &&
        (yd[i] = N_VClone(y[i]))) {
      cost[i] = 1e300;
    } else if (crc == CHS_ERR_UNSUPPORTED) {
      cost[i] = -2; /* the formulation refuses the problem (M(q), time dependence, damping) */
    }
  }
  /* Rounds interleave the formulations, so a change of the machine's speed during the run
   * (frequency, other load) affects all of them alike; each keeps its best round. */
  for (int r = 0; r < BENCH_REPEATS; r++) {
    for (int i = 0; i < k; i++) {
      if (!(cost[i] > 0)) {
        continue;
      }
      double t0 = bench_now();
      for (long e = 0; e < evals; e++) {
        if (CHSFormulation_Rhs(0, y[i], yd[i], f[i]) != 0) {
          cost[i] = -1;
          break;
        }
      }
      double per = (bench_now() - t0) / (double)evals;
      cost[i] = cost[i] > 0 && per < cost[i] ? per : cost[i];
    }
  }
  for (int i = 0; i < k; i++) {
    if (y[i]) {
      N_VDestroy(y[i]);
    }
    if (yd[i]) {
      N_VDestroy(yd[i]);
    }
    CHSFormulation_Destroy(&f[i]);
  }
  SUNContext_Free(&ctx);
  return 0;
}

static int bench_problem(const char *problem, long evals, int json, int first) {
  CHSError err;
  CHSError_Clear(&err);
  CHSProblem prob = NULL;
  if (CHSProblem_Create(problem, &prob, &err) != 0) {
    return cli_fail(&err);
  }
  int status = CHS_EXIT_OK;
  double base = 0, cost[CLI_MAX_COSTS];
  const char *names[CLI_MAX_COSTS];
  int nf = 0;
  for (int i = 0; i < CHSFormulationRegistry_Count() && nf < CLI_MAX_COSTS; i++) {
    names[nf++] = CHSFormulationRegistry_Get(i)->name;
  }
  cli_rhs_costs(prob, names, nf, evals, cost); /* refusing and DAE formulations: cost < 0 */
  for (int i = 0; i < nf; i++) {
    const char *name = names[i];
    if (CHSFormulationRegistry_Get(i)->flags & CHS_FORM_DAE) {
      continue; /* residual formulations: no right-hand side to time */
    }
    if (((CHSFormulationRegistry_Get(i)->flags & CHS_FORM_NEEDS_HAMILTONIAN) &&
         !CHSProblem_IsConservative(prob)) ||
        cost[i] == -2) {
      /* the formulation refuses a damped problem: a row without numbers */
      if (json) {
        printf("%s\n    {\"problem\": ", first && i == 0 ? "" : ",");
        json_string(stdout, problem);
        printf(", \"formulation\": ");
        json_string(stdout, name);
        printf(", \"ns_per_eval\": null, \"ratio_to_standard\": null}");
      } else {
        printf("%-16s %-12s %10s %10s\n", i == 0 ? problem : "", name, "n/a", "n/a");
      }
      continue;
    }
    double per = cost[i];
    if (per <= 0) {
      fprintf(stderr, "chs: %s failed at the initial state of %s\n", name, problem);
      status = CHS_EXIT_NUMERIC;
      break;
    }
    base = i == 0 ? per : base;
    if (json) {
      printf("%s\n    {\"problem\": ", first && i == 0 ? "" : ",");
      json_string(stdout, problem);
      printf(", \"formulation\": ");
      json_string(stdout, name);
      printf(", \"ns_per_eval\": %.4g, \"ratio_to_standard\": %.4g}", per * 1e9, per / base);
    } else {
      printf("%-16s %-12s %10.1f %10.3f\n", i == 0 ? problem : "", name, per * 1e9, per / base);
    }
  }
  CHSProblem_Destroy(&prob);
  return status;
}

int cmd_bench(int argc, char **argv) {
  int json = 0;
  long evals = 200000;
  const char *what = NULL;
  if (argc > 1 && strcmp(argv[1], "scale") == 0) {
    return cmd_bench_scale(argc - 1, argv + 1); /* drivers/cmd_bench_scale.c, its own options */
  }
  int have_evals = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) {
      if (json) {
        return cli_usage_error("option --json given twice");
      }
      json = 1;
    } else if (strcmp(argv[i], "--evals") == 0) {
      if (i + 1 >= argc) {
        return cli_usage_error("option --evals needs a value");
      }
      if (have_evals) {
        return cli_usage_error("option --evals given twice");
      }
      have_evals = 1;
      /* at most BENCH_MAX_EVALS: every problem x formulation x repetition evaluates N times */
      if (cli_parse_long_range("--evals", argv[++i], 1, BENCH_MAX_EVALS, &evals) != 0) {
        return CHS_EXIT_USAGE;
      }
    } else if (strcmp(argv[i], "--help") == 0) {
      printf("usage: chs bench rhs|dae [--evals N] [--json]   (rhs: N in 1 .. 10^7, default "
             "200000)\n"
             "       chs bench scale [--max-n N] [--json]   (chain molecule to 10^5 atoms)\n"
             "  dae: cheapest stabilised ODE vs cheapest IDA run per final error (pendulum,\n"
             "       chain molecule)\n"
             "  time per right-hand-side evaluation of every formulation, relative to standard,\n"
             "  on every built-in problem (best of %d repetitions of N evaluations)\n",
             BENCH_REPEATS);
      return CHS_EXIT_OK;
    } else if (!what && argv[i][0] != '-') {
      what = argv[i];
    } else {
      return cli_usage_error("unknown bench option '%.200s'", argv[i]);
    }
  }
  if (what && strcmp(what, "dae") == 0) {
    if (have_evals) {
      return cli_usage_error("--evals applies to `chs bench rhs` only");
    }
    return cmd_bench_dae(json); /* drivers/cmd_bench_dae.c */
  }
  if (!what || strcmp(what, "rhs") != 0) {
    return cli_usage_error("unknown benchmark '%.200s' (available: rhs, dae, scale)",
                           what ? what : "");
  }
  if (json) {
    printf("{\n  \"benchmark\": \"rhs\",\n  \"evals\": %ld,\n  \"results\": [", evals);
  } else {
    printf("%-16s %-12s %10s %10s\n", "problem", "formulation", "ns/eval", "ratio");
  }
  int status = CHS_EXIT_OK;
  for (int p = 0; status == 0 && p < CHSProblemRegistry_Count(); p++) {
    status = bench_problem(CHSProblemRegistry_Get(p)->name, evals, json, p == 0);
  }
  if (json) {
    printf("\n  ]\n}\n");
  }
  return status;
}
