/* The harness of the `chs bench` subcommands (drivers/bench.c): clocks, the interleaved timed
 * rounds of right-hand sides, order statistics of rounds (medians, their confidence intervals),
 * a forked run with a time limit, and the whole-or-nothing CSV file. */
#ifndef CHS_BENCH_H
#define CHS_BENCH_H

#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
#include "cli.h"

/* Seconds on clock id (CLOCK_MONOTONIC: wall; CLOCK_THREAD_CPUTIME_ID, CLOCK_PROCESS_CPUTIME_ID:
 * CPU time, which a shared machine's descheduling does not add to). */
double bench_now(clockid_t id);

/* Seconds per right-hand-side evaluation of the nf (<= CLI_MAX_COSTS) formulations `names` on
 * each of the np (<= BENCH_MAX_PROBLEMS) problems at their initial states, into
 * cost[p * nf + i]: the best chunk over several rounds of evals calls, every (problem,
 * formulation) pair interleaved in every round; cost < 0 when the formulation cannot be created
 * (-2: it refuses the problem) or fails. 0, or -1 (bad counts, no SUNDIALS context). */
#define CLI_MAX_COSTS 32
#define BENCH_MAX_PROBLEMS 16
int bench_rhs_costs(const CHSProblem *probs, int np, const char *const *names, int nf, long evals,
                    double *cost);
/* The same with every round's best chunk kept: per_round[r * np * nf + i] for round r < rounds
 * (pair i as in cost), for ratios with confidence intervals (bench_ratios). */
int bench_rhs_rounds(const CHSProblem *probs, int np, const char *const *names, int nf, long evals,
                     int rounds, double *per_round);
/* The same on one problem (chs compare's cost column). */
int cli_rhs_costs(CHSProblem prob, const char *const *names, int k, long evals, double *cost);

/* The median of v[0 .. n) (the lower middle value for an even n), v left as it is; n <= 256. */
double bench_median(const double *v, int n);

/* A distribution-free confidence interval for the median of n rounds (independent draws of a
 * shared machine's noise; no distribution assumed): the order statistics x(j) <= median <=
 * x(n + 1 - j) with the largest j whose coverage 1 - 2 P(Binomial(n, 1/2) <= j - 1) is at least
 * 95 %. Returns j (1 when none reaches 95 %, fewer than 6 rounds: the least and largest) and its
 * coverage. */
int bench_ci_rank(int n, double *coverage);

/* The per-round ratios b[k] / a[k] (n <= 256): their median, least and largest, and the median's
 * confidence interval (bench_ci_rank). */
typedef struct {
  double med, min, max, lo, hi, coverage;
} bench_range;
bench_range bench_ratios(const double *a, const double *b, int n);

/* fn(arg, buf) in a forked child killed after limit seconds, buf its len-byte result: 0 when the
 * child sent it whole, 1 when not (why: killed at the limit, crashed, said nothing), -1 when no
 * child could start. ru (may be NULL): the child's resource usage. */
int bench_child(void (*fn)(void *arg, void *buf), void *arg, void *buf, size_t len, double limit,
                struct rusage *ru, char *why, size_t why_len);

/* --time-limit (dflt when not given) into *limit, and --csv checked as an output file: 0, or
 * the usage error's exit status (the message printed). */
int bench_limit_csv(const cli_options *o, double dflt, double *limit);

/* A JSON object's next field on stdout: `, "key": ` and the value (json_real, json_long: null
 * when not valid; json_string). */
void bench_json_real(const char *key, double x, int valid);
void bench_json_long(const char *key, long x, int valid);
void bench_json_string(const char *key, const char *s);

/* The CSV file path: the header line, then row(fp, i, ctx) for i < nrows (0, or < 0 when a write
 * failed), written whole or not at all (drivers/plot.h's out_file). 0, or the exit status with
 * the message printed. */
int bench_csv(const char *path, const char *header, int nrows,
              int (*row)(FILE *fp, int i, const void *ctx), const void *ctx);

#endif
