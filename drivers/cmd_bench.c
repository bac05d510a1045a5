/* chs bench rhs: cost of one right-hand-side evaluation of every registered formulation,
 * relative to the standard formulation, on each built-in problem at its initial state. Ratios
 * are measured in one run (best of several repetitions, the formulations interleaved). */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <nvector/nvector_serial.h>
#include "../src/compat.h"
#include "reproduce.h"

#define BENCH_REPEATS 7

static double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double cli_rhs_cost(CHSProblem prob, const char *name, long evals) {
  SUNContext ctx = NULL;
  CHSFormulation f = NULL;
  N_Vector y = NULL, yd = NULL;
  double best = -1;
  if (chs_context_create(&ctx) != 0) {
    return -1;
  }
  chs_context_silence(ctx);
  if (CHSFormulation_Create(name, prob, ctx, &f, NULL) == 0 &&
      CHSFormulation_NewInitialState(f, &y, NULL) == 0 && (yd = N_VClone(y)) != NULL) {
    best = 1e300;
    for (int r = 0; r < BENCH_REPEATS && best > 0; r++) {
      double t0 = bench_now();
      for (long k = 0; k < evals; k++) {
        if (CHSFormulation_Rhs(0, y, yd, f) != 0) {
          best = -1;
          break;
        }
      }
      double per = (bench_now() - t0) / (double)evals;
      best = best > 0 && per < best ? per : best;
    }
  }
  if (y) {
    N_VDestroy(y);
  }
  if (yd) {
    N_VDestroy(yd);
  }
  CHSFormulation_Destroy(&f);
  SUNContext_Free(&ctx);
  return best;
}

static int bench_problem(const char *problem, long evals, int json, int first) {
  CHSError err;
  CHSError_Clear(&err);
  CHSProblem prob = NULL;
  if (CHSProblem_Create(problem, &prob, &err) != 0) {
    return cli_fail(&err);
  }
  int status = CHS_EXIT_OK;
  double base = 0;
  for (int i = 0; i < CHSFormulationRegistry_Count(); i++) {
    const char *name = CHSFormulationRegistry_Get(i)->name;
    if (CHSFormulationRegistry_Get(i)->flags & CHS_FORM_DAE) {
      continue; /* residual formulations: no right-hand side to time */
    }
    double per = cli_rhs_cost(prob, name, evals);
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
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) {
      json = 1;
    } else if (strcmp(argv[i], "--evals") == 0 && i + 1 < argc) {
      char *end = NULL;
      evals = strtol(argv[++i], &end, 10);
      if (*end != '\0' || evals < 1) {
        fprintf(stderr, "chs: bad value for --evals: '%s'\n", argv[i]);
        return CHS_EXIT_USAGE;
      }
    } else if (strcmp(argv[i], "--help") == 0) {
      printf("usage: chs bench rhs [--evals N] [--json]\n"
             "  time per right-hand-side evaluation of every formulation, relative to standard,\n"
             "  on every built-in problem (best of %d repetitions of N evaluations)\n",
             BENCH_REPEATS);
      return CHS_EXIT_OK;
    } else if (!what && argv[i][0] != '-') {
      what = argv[i];
    } else {
      fprintf(stderr, "chs: unknown bench option '%s'\n", argv[i]);
      return CHS_EXIT_USAGE;
    }
  }
  if (!what || strcmp(what, "rhs") != 0) {
    fprintf(stderr, "chs: unknown benchmark '%s' (available: rhs)\n", what ? what : "");
    return CHS_EXIT_USAGE;
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
