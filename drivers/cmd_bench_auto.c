/* chs bench auto: how close is the configuration chs chooses (docs/auto.md) to the cheapest one?
 *
 * On every built-in problem with a reference at its final time and at every tolerance of the
 * sweep (rtol = atol = tol), the run `chs run` makes without --formulation and --method (the
 * configuration CHSRunProblem_Choose picks for those options), its final error and right-hand side
 * evaluations; against it, the cheapest point of the exhaustive sweep of `chs bench calibrate`
 * (every formulation x adaptive method that applies, at every tolerance of the sweep) whose final
 * error is at most auto's. The ratio auto evaluations / cheapest evaluations is what auto costs
 * over a choice made knowing every configuration's outcome. When --formulations and --methods
 * include auto's configuration, its own point at the same tolerance is a candidate, so the ratio
 * is at least 1. Every run is a forked child killed at --time-limit. */
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "plot.h"
#include "sweep.h"

/* One problem and tolerance: auto's run and the cheapest swept point at its error. */
typedef struct {
  int problem; /* index into sweep_problems */
  double tol;
  char config[260]; /* auto's formulation/method */
  sweep_point pt;   /* auto's run */
  int best;         /* index of the cheapest configuration at auto's error, -1: none */
  int best_t;       /* its tolerance's index */
  double ratio;     /* auto's evaluations / the cheapest's (best >= 0) */
} auto_row;

/* The cheapest point (fewest evaluations; the first in sweep order among equals) of problem's
 * configurations, at any tolerance, whose run succeeded with a final error <= err. */
static void auto_best(const sweep_config *cfg, int nc, int nt, auto_row *r) {
  r->best = -1;
  long evals = 0;
  for (int c = 0; c < nc; c++) {
    if (cfg[c].skipped || cfg[c].problem != r->problem) {
      continue;
    }
    for (int t = 0; t < nt; t++) {
      const sweep_point *p = &cfg[c].pt[t];
      if (p->rc == 0 && p->err <= r->pt.err && (r->best < 0 || p->evals < evals)) {
        r->best = c;
        r->best_t = t;
        evals = p->evals;
      }
    }
  }
  if (r->best >= 0) {
    r->ratio = (double)r->pt.evals / (double)evals;
  }
}

static void print_text(const auto_row *rows, int nr, const sweep_config *cfg, int nc,
                       const double *tols, int jitter) {
  printf("auto against the cheapest swept configuration with a final error at most auto's "
         "(rtol = atol = tol; error |(q,p)(tf) - reference|_2; cost: right-hand side "
         "evaluations)\n");
  if (jitter > 1) {
    printf("every point: the medians of %d runs at tol x 10^(j/40), j = %d .. %d\n", jitter,
           -(jitter - 1) / 2, (jitter - 1) / 2);
  }
  printf("\n%-10s %6s  %-24s %9s %7s  %-40s %6s %9s %7s %6s\n", "problem", "tol", "auto", "error",
         "evals", "cheapest at that error", "tol", "error", "evals", "ratio");
  double worst = -1;
  for (int i = 0; i < nr; i++) {
    const auto_row *r = &rows[i];
    printf("%-10s %6.0e  %-24.24s", sweep_problems[r->problem].name, r->tol, r->config);
    if (r->pt.rc != 0) {
      printf(" %9s %7s\n", "FAILED", "");
      continue;
    }
    printf(" %9.2e %7ld", r->pt.err, r->pt.evals);
    if (r->best < 0) {
      printf("  %-40s\n", "(none: no swept point reaches this error)");
      continue;
    }
    const sweep_config *b = &cfg[r->best];
    const sweep_point *p = &b->pt[r->best_t];
    char name[200];
    snprintf(name, sizeof name, "%s/%s", b->form, b->method);
    printf("  %-40.40s %6.0e %9.2e %7ld %6.2f\n", name, tols[r->best_t], p->err, p->evals,
           r->ratio);
    worst = r->ratio > worst ? r->ratio : worst;
  }
  int nrun = 0, nskip = 0;
  for (int c = 0; c < nc; c++) {
    nskip += cfg[c].skipped;
    nrun += !cfg[c].skipped;
  }
  if (worst >= 0) {
    printf("\nworst ratio: %.2f", worst);
  } else {
    printf("\nworst ratio: none");
  }
  printf(" (%d configurations swept; %d do not apply)\n", nrun, nskip);
  for (int i = 0; i < nr; i++) {
    if (rows[i].pt.rc != 0) {
      printf("FAILED %s auto %s tol %.0e: ", sweep_problems[rows[i].problem].name, rows[i].config,
             rows[i].tol);
      cli_fputs_safe(stdout, rows[i].pt.msg);
      printf("\n");
    }
  }
}

static void print_json(const auto_row *rows, int nr, const sweep_config *cfg, int nc,
                       const double *tols, int nt, double limit, int jitter) {
  printf("{\n  \"benchmark\": \"auto\",\n  \"time_limit_s\": ");
  json_real(stdout, limit, 1);
  printf(",\n  \"jitter\": %d", jitter);
  printf(",\n  \"tols\": [");
  for (int t = 0; t < nt; t++) {
    printf("%s%.17g", t ? ", " : "", tols[t]);
  }
  int nrun = 0;
  for (int c = 0; c < nc; c++) {
    nrun += !cfg[c].skipped;
  }
  printf("],\n  \"configurations_swept\": %d,\n  \"results\": [", nrun);
  double worst = -1;
  for (int i = 0; i < nr; i++) {
    const auto_row *r = &rows[i];
    int ok = r->pt.rc == 0, has = ok && r->best >= 0;
    const sweep_point *p = has ? &cfg[r->best].pt[r->best_t] : NULL;
    printf("%s\n    {\"problem\": ", i ? "," : "");
    json_string(stdout, sweep_problems[r->problem].spec);
    printf(", \"t_final\": %.17g, \"tol\": %.17g, \"auto_config\": ", sweep_problems[r->problem].tf,
           r->tol);
    json_string(stdout, r->config);
    bench_json_string("auto_status", ok ? "ok" : r->pt.msg);
    bench_json_real("auto_err", r->pt.err, ok);
    bench_json_long("auto_evals", r->pt.evals, ok);
    printf(", \"best_config\": ");
    if (has) {
      char name[200];
      snprintf(name, sizeof name, "%s/%s", cfg[r->best].form, cfg[r->best].method);
      json_string(stdout, name);
    } else {
      printf("null");
    }
    bench_json_real("best_tol", has ? tols[r->best_t] : 0, has);
    bench_json_real("best_err", has ? p->err : 0, has);
    bench_json_long("best_evals", has ? p->evals : 0, has);
    bench_json_real("ratio", r->ratio, has);
    printf("}");
    worst = has && r->ratio > worst ? r->ratio : worst;
  }
  printf("\n  ],\n  \"worst_ratio\": ");
  json_real(stdout, worst, worst >= 0);
  printf("\n}\n");
}

typedef struct {
  const auto_row *rows;
  const sweep_config *cfg;
  const double *tols;
} auto_csv;

static int csv_row(FILE *fp, int i, const void *ctx) {
  const auto_csv *x = ctx;
  const auto_row *r = &x->rows[i];
  int ok = r->pt.rc == 0, has = ok && r->best >= 0;
  int bad = fprintf(fp, "%s,%.17g,%.17g,%s,", sweep_problems[r->problem].spec,
                    sweep_problems[r->problem].tf, r->tol, r->config) < 0 ||
            sweep_csv_field(fp, ok ? "ok" : r->pt.msg) != 0;
  if (ok) {
    bad = bad || fprintf(fp, ",%.17g,%ld", r->pt.err, r->pt.evals) < 0;
  } else {
    bad = bad || fprintf(fp, ",,") < 0;
  }
  if (has) {
    const sweep_config *b = &x->cfg[r->best];
    bad =
        bad || fprintf(fp, ",%s/%s,%.17g,%.17g,%ld,%.17g\n", b->form, b->method, x->tols[r->best_t],
                       b->pt[r->best_t].err, b->pt[r->best_t].evals, r->ratio) < 0;
  } else {
    bad = bad || fprintf(fp, ",,,,,\n") < 0;
  }
  return -bad;
}

int cmd_bench_auto(int argc, char **argv) {
  cli_options o;
  sweep_spec *s = NULL;
  int rc = 0;
  if (!sweep_start(CLI_BENCH_AUTO, argc, argv, NULL, "the auto comparison", &o, &s, &rc)) {
    return rc;
  }
  int nc = s->np * s->nf * s->nm, nt = s->nt, nr = s->np * nt;
  auto_row *rows = calloc((size_t)nr, sizeof *rows);
  if (!rows) {
    free(s);
    return cli_out_of_memory();
  }
  progress prog;
  double done = 0;
  progress_start(&prog, o.quiet, 1, "chs bench auto", 0, (double)(nc + s->np) * nt);
  /* auto's runs: the options `chs run --problem P --rtol tol --atol tol --tf T` gives */
  for (int pi = 0, i = 0; pi < s->np; pi++) {
    const sweep_problem *pb = &sweep_problems[s->pidx[pi]];
    CHSError e;
    CHSError_Clear(&e);
    CHSProblem prob = NULL;
    if (CHSProblem_Create(pb->spec, &prob, &e) != 0) { /* cannot happen for sweep_problems */
      progress_end(&prog);
      free(rows);
      free(s);
      return cli_fail(&e);
    }
    for (int t = 0; t < nt; t++, i++) {
      auto_row *r = &rows[i];
      r->problem = s->pidx[pi];
      r->tol = s->tols[t];
      cli_options a;
      memset(&a, 0, sizeof a);
      a.problem = pb->spec;
      a.rtol = a.atol = r->tol;
      a.tf = pb->tf;
      CHSRunChoice ch;
      CHSError cerr;
      if (cli_auto_choose(&a, prob, &ch, &cerr) != 0) {
        snprintf(ch.formulation, sizeof ch.formulation, "?");
        snprintf(ch.method, sizeof ch.method, "?");
      }
      snprintf(r->config, sizeof r->config, "%s/%s", ch.formulation, ch.method);
      char item[300];
      snprintf(item, sizeof item, "%s auto %s %.0e", pb->name, r->config, r->tol);
      progress_detail(&prog, item);
      sweep_job j = {pb->spec, ch.formulation, ch.method, pb->tf, r->tol};
      sweep_run_jittered(&j, s->limit, s->jitter, &r->pt);
      if (r->pt.rc == 0 && !r->pt.has_ref) { /* cannot happen for sweep_problems */
        r->pt.rc = -1;
        snprintf(r->pt.msg, sizeof r->pt.msg, "no reference at t = %g", pb->tf);
      }
      done += 1;
      progress_update(&prog, done);
    }
    CHSProblem_Destroy(&prob);
  }
  sweep_config *cfg = sweep_all(s, &prog, &done);
  progress_end(&prog);
  if (!cfg) {
    free(rows);
    free(s);
    return cli_out_of_memory();
  }
  for (int i = 0; i < nr; i++) {
    rows[i].best = -1;
    if (rows[i].pt.rc == 0) {
      auto_best(cfg, nc, nt, &rows[i]);
    }
  }
  if (o.json) {
    print_json(rows, nr, cfg, nc, s->tols, nt, s->limit, s->jitter);
  } else {
    print_text(rows, nr, cfg, nc, s->tols, s->jitter);
  }
  int status = 0;
  if (o.csv) {
    auto_csv x = {rows, cfg, s->tols};
    status = bench_csv(o.csv,
                       "problem,t_final,tol,auto_config,auto_status,auto_err,auto_evals,"
                       "best_config,best_tol,best_err,best_evals,ratio",
                       nr, csv_row, &x);
  }
  free(cfg);
  free(rows);
  free(s);
  return status;
}
