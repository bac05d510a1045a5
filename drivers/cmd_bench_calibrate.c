/* chs bench calibrate: does every adaptive configuration deliver what its tolerance asks?
 *
 * Every formulation x adaptive method that applies, on every built-in problem with a reference
 * solution at its final time, at a tolerance sweep (rtol = atol = tol, default 1e-4 .. 1e-10):
 * the final error |(q,p)(tf) - reference|_2 (the int_err_final of `chs run`) divided by tol.
 * A point fails calibration when the run fails or its error exceeds 1000 tol
 * (CAL_OVER_FACTOR); a configuration also fails when its error does not fall over the sweep (at
 * the tightest tolerance still above both that tolerance and a tenth of the error at the
 * loosest: cal_falls). Each run is a forked child killed at --time-limit, so a hanging or
 * crashing configuration is a FAILED point, not a hung bench. A configuration that refuses the
 * problem or the method (an input error at the first tolerance) does not apply: it is listed as
 * skipped, not run further. */
#include <stdlib.h>
#include <string.h>
#include "calibration.h"
#include "bench.h"
#include "sweep.h"

/* A point that misses calibration with exit 0 and no warning: a silent wrong answer. */
static int cal_silent(const sweep_point *p, double tol) {
  return p->rc == 0 && !cal_point_calibrated(1, p->err, tol) && p->warnings == 0;
}

/* A configuration's verdict over the sweep. */
typedef struct {
  int falls, calibrated;
} cal_verdict;

static void print_text(const sweep_config *cfg, const cal_verdict *v, int nc, const double *tols,
                       int nt) {
  printf("final error / tol (rtol = atol = tol; error |(q,p)(tf) - reference|_2); a point fails "
         "above %g tol\n\n%-10s %-36s",
         CAL_OVER_FACTOR, "problem", "configuration");
  for (int t = 0; t < nt; t++) {
    printf(" %8.0e", tols[t]);
  }
  printf("  %5s  %s\n", "falls", "calibration");
  for (int c = 0; c < nc; c++) {
    const sweep_config *k = &cfg[c];
    const cal_verdict *kv = &v[c];
    if (k->skipped) {
      continue;
    }
    char name[200];
    snprintf(name, sizeof name, "%s/%s", k->form, k->method);
    printf("%-10s %-36.36s", sweep_problems[k->problem].name, name);
    for (int t = 0; t < nt; t++) {
      const sweep_point *p = &k->pt[t];
      if (p->rc != 0) {
        printf(" %8s", "FAILED");
      } else {
        printf(" %7.2g%s", p->err / tols[t],
               cal_point_calibrated(1, p->err, tols[t]) ? " "
               : cal_silent(p, tols[t])                 ? "?"
                                                        : "!");
      }
    }
    printf("  %5s  %s\n", kv->falls ? "yes" : "NO", kv->calibrated ? "ok" : "FAILS");
  }
  int nfail = 0, nskip = 0, nrun = 0, nsilent = 0;
  for (int c = 0; c < nc; c++) {
    for (int t = 0; t < nt && !cfg[c].skipped; t++) {
      nsilent += cal_silent(&cfg[c].pt[t], tols[t]);
    }
    nskip += cfg[c].skipped;
    nrun += !cfg[c].skipped;
    nfail += !cfg[c].skipped && !v[c].calibrated;
  }
  printf("\n!: error > %g tol, the run warned; ?: error > %g tol and no warning (a silent wrong "
         "answer). %d configurations, %d fail calibration; %d do not apply (--json lists them "
         "with the reason); %d silent points\n",
         CAL_OVER_FACTOR, CAL_OVER_FACTOR, nrun, nfail, nskip, nsilent);
  for (int c = 0; c < nc; c++) {
    for (int t = 0; t < nt && !cfg[c].skipped; t++) {
      if (cfg[c].pt[t].rc != 0) {
        printf("FAILED %s %s/%s tol %.0e: ", sweep_problems[cfg[c].problem].name, cfg[c].form,
               cfg[c].method, tols[t]);
        cli_fputs_safe(stdout, cfg[c].pt[t].msg);
        printf("\n");
      }
    }
  }
}

static void print_json(const sweep_config *cfg, const cal_verdict *v, int nc, const double *tols,
                       int nt, double limit) {
  printf("{\n  \"benchmark\": \"calibrate\",\n  \"over_factor\": %g,\n  \"time_limit_s\": ",
         CAL_OVER_FACTOR);
  json_real(stdout, limit, 1);
  printf(",\n  \"tols\": [");
  for (int t = 0; t < nt; t++) {
    printf("%s%.17g", t ? ", " : "", tols[t]);
  }
  int nsilent = 0;
  for (int c = 0; c < nc; c++) {
    for (int t = 0; t < nt && !cfg[c].skipped; t++) {
      nsilent += cal_silent(&cfg[c].pt[t], tols[t]);
    }
  }
  printf("],\n  \"silent_points\": %d,\n  \"configurations\": [", nsilent);
  int first = 1;
  for (int c = 0; c < nc; c++) {
    const sweep_config *k = &cfg[c];
    const cal_verdict *kv = &v[c];
    if (k->skipped) {
      continue;
    }
    printf("%s\n    {\"problem\": ", first ? "" : ",");
    first = 0;
    json_string(stdout, sweep_problems[k->problem].spec);
    printf(", \"t_final\": %.17g, \"formulation\": ", sweep_problems[k->problem].tf);
    json_string(stdout, k->form);
    bench_json_string("method", k->method);
    printf(", \"falls\": %s, \"calibrated\": %s, \"points\": [", kv->falls ? "true" : "false",
           kv->calibrated ? "true" : "false");
    for (int t = 0; t < nt; t++) {
      const sweep_point *p = &k->pt[t];
      int ok = p->rc == 0;
      printf("%s\n      {\"tol\": %.17g, \"status\": ", t ? "," : "", tols[t]);
      json_string(stdout, ok ? "ok" : p->msg);
      bench_json_real("int_err_final", p->err, ok);
      bench_json_real("err_over_tol", p->err / tols[t], ok);
      bench_json_long("steps", p->steps, ok);
      bench_json_long("rhs_evals", p->evals, ok);
      bench_json_real("wall_s", p->wall, ok);
      bench_json_long("warnings", p->warnings, ok);
      printf(", \"silent\": %s", cal_silent(p, tols[t]) ? "true" : "false");
      printf(", \"calibrated\": %s}", cal_point_calibrated(ok, p->err, tols[t]) ? "true" : "false");
    }
    printf("]}");
  }
  printf("\n  ],\n  \"skipped\": [");
  first = 1;
  for (int c = 0; c < nc; c++) {
    if (!cfg[c].skipped) {
      continue;
    }
    printf("%s\n    {\"problem\": ", first ? "" : ",");
    first = 0;
    json_string(stdout, sweep_problems[cfg[c].problem].spec);
    bench_json_string("formulation", cfg[c].form);
    bench_json_string("method", cfg[c].method);
    bench_json_string("why", cfg[c].why);
    printf("}");
  }
  printf("\n  ]\n}\n");
}

typedef struct {
  const sweep_config *cfg;
  const cal_verdict *v;
  const double *tols;
  int nt;
} cal_csv;

/* Row i: configuration i / nt at tolerance i % nt (none for a skipped configuration). */
static int csv_row(FILE *fp, int i, const void *ctx) {
  const cal_csv *x = ctx;
  int c = i / x->nt, t = i % x->nt;
  const sweep_config *k = &x->cfg[c];
  const sweep_point *p = &k->pt[t];
  const double *tols = x->tols;
  int ok = p->rc == 0;
  if (k->skipped) {
    return 0;
  }
  int bad = fprintf(fp, "%s,%.17g,%s,%s,%.17g,", sweep_problems[k->problem].spec,
                    sweep_problems[k->problem].tf, k->form, k->method, tols[t]) < 0 ||
            sweep_csv_field(fp, ok ? "ok" : p->msg) != 0;
  if (ok) {
    bad = bad || fprintf(fp, ",%ld,%ld,%.17g,%.17g,%d", p->steps, p->evals, p->err,
                         p->err / tols[t], p->warnings) < 0;
  } else {
    bad = bad || fprintf(fp, ",,,,,") < 0;
  }
  bad = bad || fprintf(fp, ",%d,%d,%d\n", cal_point_calibrated(ok, p->err, tols[t]), x->v[c].falls,
                       x->v[c].calibrated) < 0;
  return -bad;
}

int cmd_bench_calibrate(int argc, char **argv) {
  cli_options o;
  sweep_spec *s = NULL;
  int rc = 0;
  if (!sweep_start(CLI_BENCH_CALIBRATE, argc, argv,
                   "calibration asks whether the error falls with them", "the calibration sweep",
                   &o, &s, &rc)) {
    return rc;
  }
  int nc = s->np * s->nf * s->nm, nt = s->nt;
  progress prog;
  double done = 0;
  progress_start(&prog, o.quiet, 1, "chs bench calibrate", 0, (double)nc * nt);
  sweep_config *cfg = sweep_all(s, &prog, &done);
  cal_verdict *v = calloc((size_t)nc, sizeof *v);
  progress_end(&prog);
  if (!cfg || !v) {
    free(cfg);
    free(v);
    free(s);
    return cli_out_of_memory();
  }
  const double *tols = s->tols;
  for (int c = 0; c < nc; c++) {
    if (cfg[c].skipped) {
      continue;
    }
    int ok[SWEEP_MAX_TOLS];
    double err[SWEEP_MAX_TOLS];
    v[c].calibrated = 1;
    for (int t = 0; t < nt; t++) {
      ok[t] = cfg[c].pt[t].rc == 0;
      err[t] = cfg[c].pt[t].err;
      v[c].calibrated = v[c].calibrated && cal_point_calibrated(ok[t], err[t], tols[t]);
    }
    v[c].falls = cal_falls(nt, ok, err, tols);
    v[c].calibrated = v[c].calibrated && v[c].falls;
  }
  if (o.json) {
    print_json(cfg, v, nc, tols, nt, s->limit);
  } else {
    print_text(cfg, v, nc, tols, nt);
  }
  int status = 0;
  if (o.csv) {
    cal_csv x = {cfg, v, tols, nt};
    status = bench_csv(o.csv,
                       "problem,t_final,formulation,method,tol,status,steps,rhs_evals,"
                       "int_err_final,err_over_tol,warnings,point_calibrated,falls,calibrated",
                       nc * nt, csv_row, &x);
  }
  free(cfg);
  free(v);
  free(s);
  return status;
}
