/* chs bench rhs: cost of one right-hand-side evaluation of every registered formulation,
 * relative to the standard formulation, on each built-in problem at its initial state. Ratios
 * are measured in one run (best of several repetitions, the formulations interleaved). */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <nvector/nvector_serial.h>
#include "../src/compat.h"
#include "cli.h"

#define BENCH_REPEATS 7

static double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
  CHSFormulation f;
  N_Vector y, yd;
  double best; /* seconds per evaluation */
} bench_item;

static int bench_problem(const char *problem, long evals, int json, int first) {
  CHSError err;
  CHSError_Clear(&err);
  CHSProblem prob = NULL;
  SUNContext ctx = NULL;
  if (CHSProblem_Create(problem, &prob, &err) != 0) {
    return cli_fail(&err);
  }
  if (chs_context_create(&ctx) != 0) {
    CHSProblem_Destroy(&prob);
    fprintf(stderr, "chs: cannot create a SUNContext\n");
    return CHS_EXIT_NUMERIC;
  }
  chs_context_silence(ctx);
  int nf = CHSFormulationRegistry_Count(), status = CHS_EXIT_OK;
  bench_item *items = calloc((size_t)nf, sizeof *items);
  for (int i = 0; items && i < nf; i++) {
    items[i].best = 1e300;
    if (CHSFormulation_Create(CHSFormulationRegistry_Get(i)->name, prob, ctx, &items[i].f, &err) !=
            0 ||
        CHSFormulation_NewInitialState(items[i].f, &items[i].y, &err) != 0) {
      status = cli_fail(&err);
      break;
    }
    items[i].yd = N_VClone(items[i].y);
  }
  for (int r = 0; status == 0 && r < BENCH_REPEATS; r++) {
    for (int i = 0; i < nf; i++) {
      double t0 = bench_now();
      for (long k = 0; k < evals; k++) {
        if (CHSFormulation_Rhs(0, items[i].y, items[i].yd, items[i].f) != 0) {
          fprintf(stderr, "chs: %s failed at the initial state of %s\n",
                  CHSFormulationRegistry_Get(i)->name, problem);
          status = CHS_EXIT_NUMERIC;
          break;
        }
      }
      double per = (bench_now() - t0) / (double)evals;
      items[i].best = per < items[i].best ? per : items[i].best;
    }
  }
  double base = status == 0 ? items[0].best : 0;
  for (int i = 0; status == 0 && i < nf; i++) {
    const char *name = CHSFormulationRegistry_Get(i)->name;
    if (json) {
      printf("%s\n    {\"problem\": ", first && i == 0 ? "" : ",");
      json_string(stdout, problem);
      printf(", \"formulation\": ");
      json_string(stdout, name);
      printf(", \"ns_per_eval\": %.4g, \"ratio_to_standard\": %.4g}", items[i].best * 1e9,
             items[i].best / base);
    } else {
      printf("%-16s %-12s %10.1f %10.3f\n", i == 0 ? problem : "", name, items[i].best * 1e9,
             items[i].best / base);
    }
  }
  for (int i = 0; items && i < nf; i++) {
    if (items[i].y) {
      N_VDestroy(items[i].y);
    }
    if (items[i].yd) {
      N_VDestroy(items[i].yd);
    }
    CHSFormulation_Destroy(&items[i].f);
  }
  free(items);
  CHSProblem_Destroy(&prob);
  SUNContext_Free(&ctx);
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
