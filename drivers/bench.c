/* The harness of the `chs bench` subcommands (bench.h). */
#include "bench.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <nvector/nvector_serial.h>
#include "../src/compat.h"
#include "child.h"

#define BENCH_REPEATS 7
#define BENCH_CHUNK 1000L    /* evaluations timed together */
#define BENCH_MAX_ROUNDS 256 /* bench_median, bench_ratios */

double bench_now(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Rounds interleave every (problem, formulation) pair, so a change of the machine's speed during
 * the run (frequency, other load) affects all of them alike and ratios between problems
 * (generated vs hand-written) are measured in one run; each pair keeps its best round. */
int bench_rhs_rounds(const CHSProblem *probs, int np, const char *const *names, int nf, long evals,
                     int rounds, double *per_round) {
  SUNContext ctx = NULL;
  int k = np * nf;
  if (np < 1 || nf < 1 || nf > CLI_MAX_COSTS || np > BENCH_MAX_PROBLEMS || rounds < 1 ||
      chs_context_create(&ctx) != 0) {
    return -1;
  }
  chs_context_silence(ctx);
  CHSFormulation f[BENCH_MAX_PROBLEMS * CLI_MAX_COSTS] = {NULL};
  N_Vector y[BENCH_MAX_PROBLEMS * CLI_MAX_COSTS] = {NULL},
                                  yd[BENCH_MAX_PROBLEMS * CLI_MAX_COSTS] = {NULL};
  double state[BENCH_MAX_PROBLEMS * CLI_MAX_COSTS]; /* 1: usable, -1: failed, -2: refused */
  for (int i = 0; i < k; i++) {
    state[i] = -1;
    int crc = CHSFormulation_Create(names[i % nf], probs[i / nf], ctx, &f[i], NULL);
    if (crc == 0 && CHSFormulation_NewInitialState(f[i], &y[i], NULL) == 0 &&
        (yd[i] = N_VClone(y[i]))) {
      state[i] = 1;
    } else if (crc == CHS_ERR_UNSUPPORTED) {
      state[i] = -2; /* the formulation refuses the problem (M(q), time dependence, damping) */
    }
  }
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < k; i++) {
      double best = 1e300;
      /* chunks of at most BENCH_CHUNK evaluations, each timed: the best chunk is the cost
       * without the preemptions of a loaded machine (a chunk takes ~0.1 ms, a time slice more) */
      for (long done = 0; done < evals && state[i] > 0;) {
        long c = evals - done < BENCH_CHUNK ? evals - done : BENCH_CHUNK;
        double t0 = bench_now(CLOCK_MONOTONIC);
        for (long e = 0; e < c; e++) {
          if (CHSFormulation_Rhs(0, y[i], yd[i], f[i]) != 0) {
            state[i] = -1;
            break;
          }
        }
        double per = (bench_now(CLOCK_MONOTONIC) - t0) / (double)c;
        best = per < best ? per : best;
        done += c;
      }
      per_round[r * k + i] = best;
    }
  }
  for (int i = 0; i < k; i++) {
    for (int r = 0; r < rounds; r++) {
      per_round[r * k + i] = state[i] > 0 ? per_round[r * k + i] : state[i];
    }
    N_VDestroy(y[i]);
    N_VDestroy(yd[i]);
    CHSFormulation_Destroy(&f[i]);
  }
  SUNContext_Free(&ctx);
  return 0;
}

int bench_rhs_costs(const CHSProblem *probs, int np, const char *const *names, int nf, long evals,
                    double *cost) {
  int k = np * nf;
  double *per = k > 0 ? malloc((size_t)(k * BENCH_REPEATS) * sizeof *per) : NULL;
  if (!per || bench_rhs_rounds(probs, np, names, nf, evals, BENCH_REPEATS, per) != 0) {
    free(per);
    return -1;
  }
  for (int i = 0; i < k; i++) {
    cost[i] = per[i];
    for (int r = 1; r < BENCH_REPEATS && cost[i] > 0; r++) {
      cost[i] = fmin(cost[i], per[r * k + i]);
    }
  }
  free(per);
  return 0;
}

int cli_rhs_costs(CHSProblem prob, const char *const *names, int k, long evals, double *cost) {
  return bench_rhs_costs(&prob, 1, names, k, evals, cost);
}

double bench_median(const double *v, int n) {
  double w[BENCH_MAX_ROUNDS];
  n = n < BENCH_MAX_ROUNDS ? n : BENCH_MAX_ROUNDS;
  memcpy(w, v, (size_t)n * sizeof *w);
  return cli_median(w, n);
}

int bench_ci_rank(int n, double *coverage) {
  double pk = pow(0.5, n), cdf = pk; /* P(B = i) and P(B <= i), from i = 0 */
  int j = 1;
  *coverage = 1 - 2 * cdf;
  for (int i = 1; 2 * i < n && 1 - 2 * (cdf + pk * (n - i + 1) / i) >= 0.95; i++) {
    pk = pk * (n - i + 1) / i;
    cdf += pk;
    j = i + 1;
    *coverage = 1 - 2 * cdf;
  }
  return j;
}

bench_range bench_ratios(const double *a, const double *b, int n) {
  double w[BENCH_MAX_ROUNDS];
  n = n < BENCH_MAX_ROUNDS ? n : BENCH_MAX_ROUNDS;
  for (int k = 0; k < n; k++) {
    w[k] = b[k] / a[k];
  }
  bench_range r = {cli_median(w, n), 0, 0, 0, 0, 0}; /* which sorts w */
  int j = bench_ci_rank(n, &r.coverage);
  r.min = w[0];
  r.max = w[n - 1];
  r.lo = w[j - 1];
  r.hi = w[n - j];
  return r;
}

int bench_child(void (*fn)(void *arg, void *buf), void *arg, void *buf, size_t len, double limit,
                struct rusage *ru, char *why, size_t why_len) {
  cli_child c;
  if (cli_child_start(&c, fn, arg, buf, len, (unsigned)ceil(limit)) != 0) {
    return -1;
  }
  int status = 0;
  if (cli_child_finish(&c, buf, len, &status, ru) != len) {
    cli_child_why(status, limit, why, why_len);
    return 1;
  }
  return 0;
}

void bench_json_real(const char *key, double x, int valid) {
  printf(", \"%s\": ", key);
  json_real(stdout, x, valid);
}

void bench_json_long(const char *key, long x, int valid) {
  printf(", \"%s\": ", key);
  json_long(stdout, x, valid);
}

void bench_json_string(const char *key, const char *s) {
  printf(", \"%s\": ", key);
  json_string(stdout, s);
}

int bench_limit_csv(const cli_options *o, double dflt, double *limit) {
  *limit = o->have_time_limit ? o->time_limit : dflt;
  if (*limit > 86400) {
    return cli_usage_error("bad value for --time-limit: '%g' (0.1 .. 86400 s)", *limit);
  }
  return o->csv && cli_check_output_file("--csv", o->csv) != 0 ? CHS_EXIT_USAGE : 0;
}

int bench_csv(const char *path, const char *header, int nrows,
              int (*row)(FILE *fp, int i, const void *ctx), const void *ctx) {
  CHSError err;
  CHSError_Clear(&err);
  out_file f;
  if (out_file_open(&f, path, &err) != 0) {
    return cli_fail(&err);
  }
  int bad = fprintf(f.fp, "%s\n", header) < 0;
  for (int i = 0; i < nrows && !bad; i++) {
    bad = row(f.fp, i, ctx) != 0;
  }
  if (out_file_finish(&f, bad, &err) != 0) {
    return cli_fail(&err);
  }
  return 0;
}
