/* chs bench scale --implicit: the implicit solvers at two sizes, N/10 and N (--max-n), measured
 * per step and per atom. Each configuration is `chs run --problem P --formulation F --method M
 * --rtol 1e-6 --atol 1e-6 --tf 0.1` (the same options, parsed the same way):
 *
 *   pendulum-chain:N=..              dae-index3, dae-ggl, dae-index1   ida:ls=klu
 *   chain:N=..,init=2,vel=thermal    dae-index3, dae-ggl, dae-index1   ida:ls=spgmr
 *   chain:N=..,init=2,vel=thermal    standard, dirac                   cvode:bdf:ls=spgmr
 *
 * (the coil with IDA + KLU on its full Jacobian fills like N^1.5 and is not linear: docs/scale.md).
 * Every run is a forked child, so that each has its own peak memory and none inherits another's
 * heap. The rounds are interleaved: in each, every configuration runs at N/10 and then at N, so
 * that a slow spell of a shared machine falls on both sizes. Measured per run, as `chs run`
 * reports them: the CPU time of the integration (formulation and integrator set-up included, the
 * problem's creation not) per step, and the peak resident size above the child's start per atom.
 * Per configuration: the medians over the rounds at each size (the lower middle value for an even
 * number of rounds), the ratios t(N)/t(N/10) per step
 * of the rounds (their median, least and largest), the counts (steps, Newton iterations,
 * Jacobians or Krylov iterations, the same in every round), and the verdict: linear when the
 * median ratio is at most 1.2 times the ratio of the sizes (12 for N/10 and N), decided only when
 * a confidence interval of at least 95 % for that median (bench_ci_rank) lies on the same side of
 * the bound (the rounds of a shared machine scatter by 10-20 %: docs/scale.md). Also the median
 * ratio of whole runs (the same interval at the same tolerance): where IDA takes fewer, larger
 * steps at N than at N/10 (the weighted norm of a longer chain), a step at N does more of the work
 * (Jacobians per step) and the per-step ratio exceeds the ratio of the runs' costs (docs/scale.md).
 *
 * With --sizes LIST (2 .. 8 sizes) the same runs at every size of the list, interleaved the same
 * way, and instead of the ratio and verdict: per size the CPU time per step and per atom and step,
 * and the growth of the cost per atom and step from the size before, (t_s / N_s) / (t_{s-1} /
 * N_{s-1}) per round (1: linear), its median and the median's interval. Where the two sizes of
 * the ratio lie on the two sides of the last-level cache, this shows whether the growth is at one
 * size or spread (docs/scale.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "child.h"
#include "cli.h"
#include "progress.h"

#define SI_MAX_ROUNDS 99
#define SI_MAX_SIZES 8
#define SI_RTOL "1e-6"
#define SI_TF "0.1"

typedef struct {
  int problem; /* 1 chain, 2 pendulum-chain (the bits of --problems) */
  const char *spec, *name, *formulation, *method; /* name: the spec with N=.. */
} si_config;

static const si_config si_configs[] = {
    {2, "pendulum-chain:N=%ld", "pendulum-chain:N=..", "dae-index3", "ida:ls=klu"},
    {2, "pendulum-chain:N=%ld", "pendulum-chain:N=..", "dae-ggl", "ida:ls=klu"},
    {2, "pendulum-chain:N=%ld", "pendulum-chain:N=..", "dae-index1", "ida:ls=klu"},
    {1, "chain:N=%ld,init=2,vel=thermal", "chain:N=..,init=2,vel=thermal", "dae-index3",
     "ida:ls=spgmr"},
    {1, "chain:N=%ld,init=2,vel=thermal", "chain:N=..,init=2,vel=thermal", "dae-ggl",
     "ida:ls=spgmr"},
    {1, "chain:N=%ld,init=2,vel=thermal", "chain:N=..,init=2,vel=thermal", "dae-index1",
     "ida:ls=spgmr"},
    {1, "chain:N=%ld,init=2,vel=thermal", "chain:N=..,init=2,vel=thermal", "standard",
     "cvode:bdf:ls=spgmr"},
    {1, "chain:N=%ld,init=2,vel=thermal", "chain:N=..,init=2,vel=thermal", "dirac",
     "cvode:bdf:ls=spgmr"},
};
#define SI_NCONFIGS ((int)(sizeof si_configs / sizeof si_configs[0]))

/* What a child sends back. */
typedef struct {
  int rc;
  long steps, newton, jac, krylov; /* jac 0: matrix-free (Krylov) */
  double cpu, peak; /* CPU s of the integration; peak resident bytes above the start */
  char msg[200];
} si_child;

typedef struct {
  const cli_options *run; /* the parsed `chs run` options */
} si_job;

static void si_child_job(void *arg, void *buf) {
  const si_job *j = arg;
  si_child *out = buf;
  memset(out, 0, sizeof *out);
  double rss0 = cli_rss_now();
  CHSError err;
  CHSError_Clear(&err);
  CHSProblem prob = NULL;
  out->rc = CHSProblem_Create(j->run->problem, &prob, &err);
  if (out->rc == 0) {
    cli_result res;
    cli_integrate_costed(j->run, j->run->formulation, NULL, NULL, prob, &res);
    out->rc = res.rc ? res.rc : res.has_cost ? 0 : CHS_ERR_SOLVER;
    err = res.err;
    if (res.rc == 0 && !res.has_cost) {
      snprintf(err.msg, sizeof err.msg, "the CPU time could not be measured");
    }
    out->steps = res.sum.stats.steps;
    out->newton = res.sum.stats.nonlin_iters;
    out->jac = res.sum.stats.jac_evals;
    out->krylov = res.sum.stats.lin_iters;
    out->cpu = res.cpu_s;
    out->peak = fmax(0, (double)res.peak_rss_kb * 1024 - (isfinite(rss0) ? rss0 : 0));
  }
  if (out->rc != 0) {
    snprintf(out->msg, sizeof out->msg, "%.190s", err.msg[0] ? err.msg : CHSError_Name(out->rc));
  }
  CHSProblem_Destroy(&prob);
}

/* The `chs run` options of configuration c at size N, parsed as `chs run` parses them. */
static int si_options(const si_config *c, long N, char *spec, size_t len, cli_options *o) {
  snprintf(spec, len, c->spec, N);
  char *argv[] = {"run",
                  "--problem",
                  spec,
                  "--formulation",
                  (char *)c->formulation,
                  "--method",
                  (char *)c->method,
                  "--rtol",
                  SI_RTOL,
                  "--atol",
                  SI_RTOL,
                  "--tf",
                  SI_TF,
                  "--quiet"};
  return cli_parse(CLI_RUN, (int)(sizeof argv / sizeof argv[0]), argv, o);
}

typedef struct {
  const si_config *c;
  double ps[SI_MAX_SIZES][SI_MAX_ROUNDS];   /* CPU s per step, at each size (N/10 and N) */
  double cpu[SI_MAX_SIZES][SI_MAX_ROUNDS];  /* CPU s of the whole run */
  double peak[SI_MAX_SIZES][SI_MAX_ROUNDS]; /* peak bytes above the start */
  si_child last[SI_MAX_SIZES];              /* the last run at each size (the counts) */
  int done;                                 /* rounds completed */
  int failed;
  char why[240];
} si_row;

/* One run in a child: 0, or -1 when the row failed (why set). */
static int si_run(si_row *r, int s, long N, double limit) {
  char spec[160];
  cli_options o;
  if (si_options(r->c, N, spec, sizeof spec, &o) != 0) {
    snprintf(r->why, sizeof r->why, "N = %ld: options refused", N);
    return -1;
  }
  si_job job = {&o};
  si_child out;
  char why[sizeof out.msg];
  int crc = bench_child(si_child_job, &job, &out, sizeof out, limit, NULL, why, sizeof why);
  if (crc < 0) {
    snprintf(r->why, sizeof r->why, "N = %ld: could not start a process", N);
    return -1;
  }
  if (crc > 0) {
    memset(&out, 0, sizeof out);
    out.rc = CHS_ERR_SOLVER;
    memcpy(out.msg, why, sizeof why);
  }
  if (out.rc != 0 || out.steps <= 0 || !(out.cpu > 0)) {
    snprintf(r->why, sizeof r->why, "N = %ld: %s", N,
             out.rc ? out.msg : "no step or no measurable CPU time");
    return -1;
  }
  r->ps[s][r->done] = out.cpu / (double)out.steps;
  r->cpu[s][r->done] = out.cpu;
  r->peak[s][r->done] = out.peak;
  r->last[s] = out;
  return 0;
}

typedef struct {
  double ps[2], bpa[2];  /* medians: s per step, peak bytes per atom */
  bench_range step, run; /* ratios t(N)/t(N/10) per step and of whole runs */
  int linear;            /* the median ratio per step is at most the bound */
  int decided; /* the median's interval (at least 95 %) lies on the same side of the bound */
} si_stats;

static void si_summarise(const si_row *r, const long N[2], double bound, si_stats *st) {
  int n = r->done;
  for (int s = 0; s < 2; s++) {
    st->ps[s] = bench_median(r->ps[s], n);
    st->bpa[s] = bench_median(r->peak[s], n) / (double)N[s];
  }
  st->step = bench_ratios(r->ps[0], r->ps[1], n);
  st->run = bench_ratios(r->cpu[0], r->cpu[1], n);
  st->linear = st->step.med <= bound;
  st->decided =
      st->step.coverage >= 0.95 && (st->linear ? st->step.hi <= bound : st->step.lo > bound);
}

static const char *si_verdict(const si_stats *st) {
  return !st->decided ? "undecided" : st->linear ? "linear" : "NOT linear";
}

static void si_counts(char *buf, size_t len, long a, long b) {
  if (a == b) {
    snprintf(buf, len, "%ld", a);
  } else {
    snprintf(buf, len, "%ld/%ld", a, b);
  }
}

static const char *si_problem_label(const si_row *r) {
  return r->c->problem == 2 ? "pendulum-chain" : "chain (coil)";
}

static void si_print_row(const si_row *r, const si_stats *st) {
  const si_child *a = &r->last[0], *b = &r->last[1];
  char steps[32], newton[32], lin[40];
  si_counts(steps, sizeof steps, a->steps, b->steps);
  si_counts(newton, sizeof newton, a->newton, b->newton);
  if (a->jac > 0) {
    si_counts(lin, sizeof lin - 4, a->jac, b->jac);
    strcat(lin, " Jac");
  } else {
    si_counts(lin, sizeof lin - 4, a->krylov, b->krylov);
    strcat(lin, " Kry");
  }
  printf("%-15s %-11s %-19s %7s %7s %10s %10.3g %10.3g %6.2f  %5.2f-%-5.2f %6.2f %8.0f %8.0f  %s\n",
         si_problem_label(r), r->c->formulation, r->c->method, steps, newton, lin, 1e3 * st->ps[0],
         1e3 * st->ps[1], st->step.med, st->step.lo, st->step.hi, st->run.med, st->bpa[0],
         st->bpa[1], si_verdict(st));
}

static void si_json_range(const bench_range *g) {
  printf("{\"median\": %.4g, \"min\": %.4g, \"max\": %.4g, \"median_ci\": [%.4g, %.4g], "
         "\"ci_coverage\": %.4f}",
         g->med, g->min, g->max, g->lo, g->hi, g->coverage);
}

/* A row's name in JSON; with its error when it failed (returns 1: nothing more to print). */
static int si_json_head(const si_row *r, int first) {
  printf("%s\n    {\"problem\": ", first ? "" : ",");
  json_string(stdout, r->c->name);
  bench_json_string("formulation", r->c->formulation);
  bench_json_string("method", r->c->method);
  if (r->failed) {
    bench_json_string("error", r->why);
    printf("}");
  }
  return r->failed;
}

static void si_json_rounds(const double *v, int n) {
  printf("[");
  for (int k = 0; k < n; k++) {
    printf("%s%.6g", k ? ", " : "", v[k]);
  }
  printf("]");
}

static void si_json_row(const si_row *r, const si_stats *st, int first) {
  if (si_json_head(r, first)) {
    return;
  }
  const si_child *a = &r->last[0], *b = &r->last[1];
  printf(",\n     \"steps\": [%ld, %ld], \"newton_iters\": [%ld, %ld], \"jac_evals\": [%ld, %ld], "
         "\"krylov_iters\": [%ld, %ld],\n     \"cpu_per_step_s\": [",
         a->steps, b->steps, a->newton, b->newton, a->jac, b->jac, a->krylov, b->krylov);
  for (int s = 0; s < 2; s++) {
    printf("%s", s ? ", " : "");
    si_json_rounds(r->ps[s], r->done);
  }
  printf("],\n     \"cpu_s\": [");
  for (int s = 0; s < 2; s++) {
    printf("%s", s ? ", " : "");
    si_json_rounds(r->cpu[s], r->done);
  }
  printf("],\n     \"cpu_per_step_median_s\": [%.6g, %.6g], \"ratio_per_step\": ", st->ps[0],
         st->ps[1]);
  si_json_range(&st->step);
  printf(",\n     \"ratio_per_run\": ");
  si_json_range(&st->run);
  printf(",\n     \"peak_rss_bytes_per_atom\": [%.6g, %.6g], \"linear\": %s, \"verdict\": ",
         st->bpa[0], st->bpa[1], st->linear ? "true" : "false");
  json_string(stdout, si_verdict(st));
  printf("}");
}

/* A failed row: its message on stderr and, in the text report, its FAILED line. */
static void si_report_failure(const si_row *r, int json) {
  progress_interrupt();
  fprintf(stderr, "chs: bench scale --implicit: %s, %s, %s: ", r->c->name, r->c->formulation,
          r->c->method);
  cli_fputs_safe(stderr, r->why);
  fprintf(stderr, "\n");
  if (!json) {
    printf("%-15s %-11s %-19s FAILED: %s\n", si_problem_label(r), r->c->formulation, r->c->method,
           r->why);
  }
}

/* The report of N/10 and N (--max-n): per configuration the ratios and the verdict. Returns the
 * number of failed rows. */
static int si_report_pair(int json, const si_row *rows, int nrows, const long *N, int rounds) {
  double bound = 1.2 * (double)N[1] / (double)N[0];
  int failed = 0, all_linear = 1, undecided = 0;
  if (json) {
    printf(
        "{\n  \"benchmark\": \"scale-implicit\",\n  \"sizes\": [%ld, %ld],\n  \"rounds\": %d,\n"
        "  \"run\": \"chs run --rtol %s --atol %s --tf %s\",\n  \"bound\": %g,\n  \"results\": [",
        N[0], N[1], rounds, SI_RTOL, SI_RTOL, SI_TF, bound);
  } else {
    double coverage = 0;
    bench_ci_rank(rounds, &coverage);
    printf(
        "implicit solvers at N = %ld and %ld: chs run --problem P --formulation F --method M "
        "--rtol %s --atol %s --tf %s\n%d interleaved rounds; ms/step: CPU time of the "
        "integration (set-up included) per step, median; ratio: t(%ld)/t(%ld) per step, median "
        "and the median's %.0f %% confidence interval (order statistics);\nrun: t(%ld)/t(%ld) of "
        "the whole runs, median; B/atom: peak resident bytes above the process's start per "
        "atom, median;\nverdict: linear when the median ratio per step is <= %g, NOT linear "
        "when above, undecided when the interval holds %g (or covers less than 95 %%)\n\n",
        N[0], N[1], SI_RTOL, SI_RTOL, SI_TF, rounds, N[1], N[0], 100 * coverage, N[1], N[0], bound,
        bound);
    printf("%-15s %-11s %-19s %7s %7s %10s %10s %10s %6s  %-11s %6s %8s %8s  %s\n", "problem",
           "formulation", "method", "steps", "Newton", "Jac/Krylov", "ms/step", "ms/step", "ratio",
           "interval", "run", "B/atom", "B/atom", "verdict");
    printf("%-15s %-11s %-19s %7s %7s %10s %10ld %10ld %6s  %-11s %6s %8ld %8ld\n", "", "", "", "",
           "", "", N[0], N[1], "", "", "", N[0], N[1]);
  }
  for (int i = 0; i < nrows; i++) {
    const si_row *r = &rows[i];
    si_stats st;
    memset(&st, 0, sizeof st); /* a failed row prints none of it */
    if (!r->failed) {
      si_summarise(r, N, bound, &st);
      all_linear = all_linear && st.linear;
      undecided += !st.decided;
    } else {
      si_report_failure(r, json);
    }
    failed += r->failed;
    if (json) {
      si_json_row(r, &st, i == 0);
    } else if (!r->failed) {
      si_print_row(r, &st);
    }
  }
  if (json) {
    printf("\n  ],\n  \"all_linear\": %s,\n  \"undecided\": %d\n}\n",
           !failed && all_linear ? "true" : "false", undecided);
  } else {
    printf("\n%s", failed       ? "some runs failed"
                   : all_linear ? "every configuration linear by its median"
                                : "NOT every configuration linear by its median");
    printf(undecided ? "; %d undecided (the median's interval holds the bound)\n" : "\n",
           undecided);
  }
  return failed;
}

/* --sizes: each round's cost per atom and step at size s (pa: r->done values). */
static void si_per_atom(const si_row *r, const long *N, int s, double *pa) {
  for (int k = 0; k < r->done; k++) {
    pa[k] = r->ps[s][k] / (double)N[s];
  }
}

/* The growth of the cost per atom and step from size s - 1 to s: the per-round ratios (1:
 * linear), their median and its confidence interval. */
static bench_range si_growth(const si_row *r, const long *N, int s) {
  double a[SI_MAX_ROUNDS], b[SI_MAX_ROUNDS];
  si_per_atom(r, N, s - 1, a);
  si_per_atom(r, N, s, b);
  return bench_ratios(a, b, r->done);
}

/* The report of --sizes: per configuration and size the counts, the CPU time per step and per
 * atom and step, its growth from the size before, memory per atom. Returns the number of failed
 * rows. */
static int si_report_sizes(int json, const si_row *rows, int nrows, const long *N, int nsizes,
                           int rounds) {
  int failed = 0;
  if (json) {
    printf("{\n  \"benchmark\": \"scale-implicit-sizes\",\n  \"sizes\": [");
    for (int s = 0; s < nsizes; s++) {
      printf("%s%ld", s ? ", " : "", N[s]);
    }
    printf("],\n  \"rounds\": %d,\n  \"run\": \"chs run --rtol %s --atol %s --tf %s\",\n"
           "  \"results\": [",
           rounds, SI_RTOL, SI_RTOL, SI_TF);
  } else {
    double coverage = 0;
    bench_ci_rank(rounds, &coverage);
    printf("implicit solvers by size: chs run --problem P --formulation F --method M --rtol %s "
           "--atol %s --tf %s\n%d interleaved rounds; ms/step: CPU time of the integration "
           "(set-up included) per step, median; us/atom: the same per atom;\nvs before: the cost "
           "per atom and step over that at the size before, median of the rounds (1: linear) and "
           "the median's %.0f %% confidence interval;\nB/atom: peak resident bytes above the "
           "process's start per atom, median\n\n",
           SI_RTOL, SI_RTOL, SI_TF, rounds, 100 * coverage);
    printf("%-15s %-11s %-19s %8s %6s %7s %10s %9s %8s  %-18s %8s\n", "problem", "formulation",
           "method", "N", "steps", "Newton", "Jac/Krylov", "ms/step", "us/atom", "vs before",
           "B/atom");
  }
  for (int i = 0; i < nrows; i++) {
    const si_row *r = &rows[i];
    failed += r->failed;
    if (r->failed) {
      si_report_failure(r, json);
    }
    if (json) {
      if (si_json_head(r, i == 0)) {
        continue;
      }
      printf(",\n     \"per_size\": [");
    } else if (r->failed) {
      continue;
    }
    for (int s = 0; s < nsizes; s++) {
      const si_child *c = &r->last[s];
      double ps = bench_median(r->ps[s], r->done),
             bpa = bench_median(r->peak[s], r->done) / (double)N[s];
      bench_range g = s > 0 ? si_growth(r, N, s) : (bench_range){0, 0, 0, 0, 0, 0};
      if (json) {
        printf("%s\n      {\"n\": %ld, \"steps\": %ld, \"newton_iters\": %ld, \"jac_evals\": %ld, "
               "\"krylov_iters\": %ld,\n       \"cpu_per_step_s\": ",
               s ? "," : "", N[s], c->steps, c->newton, c->jac, c->krylov);
        si_json_rounds(r->ps[s], r->done);
        printf(", \"cpu_per_step_median_s\": %.6g, \"cpu_per_atom_step_median_s\": %.6g,\n"
               "       \"peak_rss_bytes_per_atom\": %.6g, \"per_atom_vs_before\": ",
               ps, ps / (double)N[s], bpa);
        if (s > 0) {
          si_json_range(&g);
        } else {
          printf("null");
        }
        printf("}");
        continue;
      }
      char lin[40], vs[40] = "-";
      snprintf(lin, sizeof lin, "%ld %s", c->jac > 0 ? c->jac : c->krylov,
               c->jac > 0 ? "Jac" : "Kry");
      if (s > 0) {
        snprintf(vs, sizeof vs, "%.2f (%.2f-%.2f)", g.med, g.lo, g.hi);
      }
      printf("%-15s %-11s %-19s %8ld %6ld %7ld %10s %9.3g %8.3g  %-18s %8.0f\n",
             s ? "" : si_problem_label(r), s ? "" : r->c->formulation, s ? "" : r->c->method, N[s],
             c->steps, c->newton, lin, 1e3 * ps, 1e6 * ps / (double)N[s], vs, bpa);
    }
    if (json) {
      printf("]}");
    }
  }
  if (json) {
    printf("\n  ]\n}\n");
  } else if (failed) {
    printf("\nsome runs failed\n");
  }
  return failed;
}

/* --sizes: the list, ascending (2 .. SI_MAX_SIZES sizes, each 10 .. 10^6). Returns 0 or the exit
 * status of a usage error. */
static int si_sizes(const cli_options *o, long *N, int *nsizes) {
  if (o->have_max_n) {
    return cli_usage_error("--sizes and --max-n: give one of them (--max-n N runs N/10 and N)");
  }
  double v[SI_MAX_SIZES];
  if (cli_parse_list("--sizes", o->sizes, SI_MAX_SIZES, 0, 10, 1000000, v, nsizes) != 0) {
    return CHS_EXIT_USAGE;
  }
  if (*nsizes < 2) {
    return cli_usage_error("bad value for --sizes: '%.200s' (at least two sizes)", o->sizes);
  }
  for (int s = 0; s < *nsizes; s++) { /* insertion sort: at most 8 */
    long x = (long)v[s];
    int t = s;
    for (; t > 0 && N[t - 1] > x; t--) {
      N[t] = N[t - 1];
    }
    N[t] = x;
  }
  return 0;
}

int cmd_bench_scale_implicit(const cli_options *o) {
  long N[SI_MAX_SIZES] = {o->max_n / 10, o->max_n};
  int nsizes = 2;
  if (o->sizes) {
    int rc = si_sizes(o, N, &nsizes);
    if (rc != 0) {
      return rc;
    }
  } else if (N[0] < 10) {
    return cli_usage_error("bad value for --max-n: '%ld' (with --implicit at least 100: the "
                           "sizes are N/10 and N)",
                           o->max_n);
  }
  int bits = cli_scale_problems(o->scale_problems);
  if (!bits) {
    return CHS_EXIT_USAGE;
  }
  double limit;
  int lrc = bench_limit_csv(o, 600, &limit);
  if (lrc != 0) {
    return lrc;
  }
  int rounds = (int)o->rounds;
  si_row *rows = calloc(SI_NCONFIGS, sizeof *rows);
  if (!rows) {
    return cli_out_of_memory();
  }
  int nrows = 0;
  for (int i = 0; i < SI_NCONFIGS; i++) {
    if (si_configs[i].problem & bits) {
      rows[nrows++].c = &si_configs[i];
    }
  }
  /* every run's options and problem valid before any work; the problems created in a child, so
   * that this process stays small and its children start as `chs run` does, without its heap */
  char specs[SI_MAX_SIZES * SI_NCONFIGS][160];
  const char *list[SI_MAX_SIZES * SI_NCONFIGS];
  for (int i = 0; i < nrows; i++) {
    for (int s = 0; s < nsizes; s++) {
      cli_options ro;
      int at = nsizes * i + s;
      list[at] = specs[at];
      if (si_options(rows[i].c, N[s], specs[at], sizeof specs[0], &ro) != 0) {
        free(rows);
        return CHS_EXIT_USAGE;
      }
    }
  }
  int rc = cli_check_problems(list, nsizes * nrows, NULL);
  if (rc != 0) {
    free(rows);
    return rc;
  }
  if (o->dry_run) {
    free(rows);
    return cli_dry_run_done("bench scale --implicit");
  }
  progress prog;
  progress_start(&prog, o->quiet, 1, "bench scale --implicit", 0,
                 (double)(nsizes * rounds * nrows));
  int runs = 0;
  for (int k = 0; k < rounds; k++) {
    for (int i = 0; i < nrows; i++) {
      si_row *r = &rows[i];
      for (int s = 0; s < nsizes && !r->failed; s++) {
        char detail[64];
        snprintf(detail, sizeof detail, "%s N=%ld, round %d", r->c->formulation, N[s], k + 1);
        progress_detail(&prog, detail);
        progress_update(&prog, runs);
        r->failed = si_run(r, s, N[s], limit) != 0;
        runs++;
      }
      r->done += !r->failed;
    }
  }
  progress_end(&prog);
  int failed = o->sizes ? si_report_sizes(o->json, rows, nrows, N, nsizes, rounds)
                        : si_report_pair(o->json, rows, nrows, N, rounds);
  free(rows);
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "chs: could not write the standard output\n");
    return CHS_EXIT_NUMERIC;
  }
  return failed ? CHS_EXIT_NUMERIC : CHS_EXIT_OK;
}
