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
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "calibration.h"
#include "child.h"
#include "progress.h"
#include "reproduce.h"

#define CAL_MAX_TOLS 16 /* --tols: N at most */
#define CAL_MAX_PROBLEMS 8
#define CAL_MAX_FORMS 32
#define CAL_MAX_METHODS 128

/* The built-in problems with a reference at a final time, and that time: the pendulum's closed
 * form (any t; 10 time units, about 1.5 periods), the test set's published values (andrews at
 * 0.03, car-axis at 3) and the steady precession of the heavy top (any t). */
static const struct {
  const char *name, *spec;
  double tf;
} cal_problems[] = {
    {"pendulum", "pendulum", 10},
    {"andrews", "andrews", 0.03},
    {"car-axis", "car-axis", 3},
    {"heavy-top", "heavy-top:steady=1", 10},
};
#define CAL_NPROBLEMS ((int)(sizeof cal_problems / sizeof cal_problems[0]))

/* The default methods: one or more of each adaptive family. ERK: Dormand-Prince 5(4), the
 * Bogacki-Shampine 3(2), Verner 8(5)6 and Fehlberg 13(7)8 tables; DIRK: Kvaerno 4(2)3 and
 * 7(4)5; CVODE Adams and BDF; IDA. --methods all: every ERK and DIRK table besides. */
static const char *const cal_default_methods[] = {
    "erk:dp5",
    "erk:ARKODE_BOGACKI_SHAMPINE_4_2_3",
    "erk:ARKODE_VERNER_8_5_6",
    "erk:ARKODE_FEHLBERG_13_7_8",
    "dirk:ARKODE_KVAERNO_4_2_3",
    "dirk:ARKODE_KVAERNO_7_4_5",
    "cvode:adams",
    "cvode:bdf",
    "ida",
};
#define CAL_NDEFAULT ((int)(sizeof cal_default_methods / sizeof cal_default_methods[0]))

/* One run's result, sent back by the child. */
typedef struct {
  int done; /* 1: the child finished the run (rc below is its code) */
  int rc, input;
  int has_ref;
  int warnings; /* the run's warnings (stderr and JSON of `chs run`) */
  long steps, evals;
  double err, wall;
  char msg[240];
} cal_point;

typedef struct {
  const char *spec, *form, *method;
  double tf, tol;
} cal_job;

static void cal_child(void *arg, void *buf) {
  const cal_job *j = arg;
  cal_point *r = buf;
  memset(r, 0, sizeof *r);
  CHSError e;
  CHSError_Clear(&e);
  CHSProblem prob = NULL;
  r->rc = CHSProblem_Create(j->spec, &prob, &e);
  if (r->rc == 0) {
    cli_options o;
    memset(&o, 0, sizeof o);
    o.problem = j->spec;
    o.method = j->method;
    o.rtol = o.atol = j->tol;
    o.tf = j->tf;
    o.every = 1000000000L; /* the final error does not depend on the records made */
    cli_result res;
    r->rc = cli_integrate(&o, j->form, NULL, NULL, prob, &res);
    e = res.err;
    r->has_ref = res.sum.diag.has_reference;
    r->err = (double)res.sum.diag.int_err_final;
    r->steps = res.sum.stats.steps;
    r->evals = res.sum.rhs_evals;
    r->wall = res.sum.wall_s;
    r->warnings = res.sum.n_warnings;
  }
  CHSProblem_Destroy(&prob);
  r->input = r->rc != 0 && CHSError_IsInput(e.code);
  snprintf(r->msg, sizeof r->msg, "%.*s", (int)sizeof r->msg - 1, r->rc != 0 ? e.msg : "");
  r->done = 1;
}

static void cal_run(const cal_job *j, double limit, cal_point *r) {
  cli_child c;
  memset(r, 0, sizeof *r);
  if (cli_child_start(&c, cal_child, (void *)j, r, sizeof *r, (unsigned)ceil(limit)) != 0) {
    r->rc = -1;
    snprintf(r->msg, sizeof r->msg, "cannot fork the run's process");
    return;
  }
  int status = 0;
  if (cli_child_finish(&c, r, sizeof *r, &status, NULL) != sizeof *r || !r->done) {
    memset(r, 0, sizeof *r);
    r->rc = -1;
    cli_child_why(status, limit, r->msg, sizeof r->msg);
  }
}

/* A point that misses calibration with exit 0 and no warning: a silent wrong answer. */
static int cal_silent(const cal_point *p, double tol) {
  return p->rc == 0 && !cal_point_calibrated(1, p->err, tol) && p->warnings == 0;
}

typedef struct {
  int problem; /* index into cal_problems */
  char form[64], method[96];
  int skipped;   /* the configuration does not apply */
  char why[240]; /* skipped: the refusal */
  cal_point pt[CAL_MAX_TOLS];
  int falls, calibrated;
} cal_config;

static int split_list(const char *opt, const char *text, char *buf, size_t len, const char **item,
                      int max, int *count) {
  if (strlen(text) >= len) {
    return cli_usage_error("bad value for %s: too long", opt);
  }
  snprintf(buf, len, "%s", text);
  size_t l = strlen(buf);
  if (l == 0 || buf[0] == ',' || buf[l - 1] == ',' || strstr(buf, ",,")) {
    return cli_usage_error("bad value for %s: '%.200s' (an empty entry; a comma-separated list)",
                           opt, text);
  }
  *count = 0;
  char *save = NULL;
  for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    if (*count == max) {
      return cli_usage_error("bad value for %s: more than %d entries", opt, max);
    }
    for (int i = 0; i < *count; i++) {
      if (strcmp(item[i], t) == 0) {
        return cli_usage_error("bad value for %s: '%.200s' given twice", opt, t);
      }
    }
    item[(*count)++] = t;
  }
  return 0;
}

/* 1 when method names a family that can adapt its step: erk, dirk, cvode, ida. */
static int cal_adaptive_family(const char *m) {
  static const char *const fam[] = {"erk", "dirk", "cvode", "ida"};
  for (int i = 0; i < 4; i++) {
    size_t l = strlen(fam[i]);
    if (strncmp(m, fam[i], l) == 0 && (m[l] == '\0' || m[l] == ':')) {
      return 1;
    }
  }
  return 0;
}

/* --methods all: every ERK and DIRK table of the registry, CVODE Adams and BDF, IDA. */
static int cal_all_methods(char (*store)[96], const char **item, int max) {
  int k = 0;
  for (int i = 0; i < CHSIntegratorRegistry_Count(); i++) {
    const CHSIntegratorOps *it = CHSIntegratorRegistry_Get(i);
    if (strcmp(it->family, "erk") != 0 && strcmp(it->family, "dirk") != 0) {
      continue;
    }
    for (int j = 0; it->method_name && it->method_name(j) && k < max; j++) {
      snprintf(store[k], sizeof store[k], "%s:%s", it->family, it->method_name(j));
      item[k] = store[k];
      k++;
    }
  }
  static const char *const rest[] = {"cvode:adams", "cvode:bdf", "ida"};
  for (int i = 0; i < 3 && k < max; i++) {
    item[k++] = rest[i];
  }
  return k;
}

static void print_text(const cal_config *cfg, int nc, const double *tols, int nt) {
  printf("final error / tol (rtol = atol = tol; error |(q,p)(tf) - reference|_2); a point fails "
         "above %g tol\n\n%-10s %-36s",
         CAL_OVER_FACTOR, "problem", "configuration");
  for (int t = 0; t < nt; t++) {
    printf(" %8.0e", tols[t]);
  }
  printf("  %5s  %s\n", "falls", "calibration");
  for (int c = 0; c < nc; c++) {
    const cal_config *k = &cfg[c];
    if (k->skipped) {
      continue;
    }
    char name[200];
    snprintf(name, sizeof name, "%s/%s", k->form, k->method);
    printf("%-10s %-36.36s", cal_problems[k->problem].name, name);
    for (int t = 0; t < nt; t++) {
      const cal_point *p = &k->pt[t];
      if (p->rc != 0) {
        printf(" %8s", "FAILED");
      } else {
        printf(" %7.2g%s", p->err / tols[t],
               cal_point_calibrated(1, p->err, tols[t]) ? " "
               : cal_silent(p, tols[t])                 ? "?"
                                                        : "!");
      }
    }
    printf("  %5s  %s\n", k->falls ? "yes" : "NO", k->calibrated ? "ok" : "FAILS");
  }
  int nfail = 0, nskip = 0, nrun = 0, nsilent = 0;
  for (int c = 0; c < nc; c++) {
    for (int t = 0; t < nt && !cfg[c].skipped; t++) {
      nsilent += cal_silent(&cfg[c].pt[t], tols[t]);
    }
    nskip += cfg[c].skipped;
    nrun += !cfg[c].skipped;
    nfail += !cfg[c].skipped && !cfg[c].calibrated;
  }
  printf("\n!: error > %g tol, the run warned; ?: error > %g tol and no warning (a silent wrong "
         "answer). %d configurations, %d fail calibration; %d do not apply (--json lists them "
         "with the reason); %d silent points\n",
         CAL_OVER_FACTOR, CAL_OVER_FACTOR, nrun, nfail, nskip, nsilent);
  for (int c = 0; c < nc; c++) {
    for (int t = 0; t < nt && !cfg[c].skipped; t++) {
      if (cfg[c].pt[t].rc != 0) {
        printf("FAILED %s %s/%s tol %.0e: ", cal_problems[cfg[c].problem].name, cfg[c].form,
               cfg[c].method, tols[t]);
        cli_fputs_safe(stdout, cfg[c].pt[t].msg);
        printf("\n");
      }
    }
  }
}

static void print_json(const cal_config *cfg, int nc, const double *tols, int nt, double limit) {
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
    const cal_config *k = &cfg[c];
    if (k->skipped) {
      continue;
    }
    printf("%s\n    {\"problem\": ", first ? "" : ",");
    first = 0;
    json_string(stdout, cal_problems[k->problem].spec);
    printf(", \"t_final\": %.17g, \"formulation\": ", cal_problems[k->problem].tf);
    json_string(stdout, k->form);
    printf(", \"method\": ");
    json_string(stdout, k->method);
    printf(", \"falls\": %s, \"calibrated\": %s, \"points\": [", k->falls ? "true" : "false",
           k->calibrated ? "true" : "false");
    for (int t = 0; t < nt; t++) {
      const cal_point *p = &k->pt[t];
      int ok = p->rc == 0;
      printf("%s\n      {\"tol\": %.17g, \"status\": ", t ? "," : "", tols[t]);
      json_string(stdout, ok ? "ok" : p->msg);
      printf(", \"int_err_final\": ");
      json_real(stdout, p->err, ok);
      printf(", \"err_over_tol\": ");
      json_real(stdout, p->err / tols[t], ok);
      printf(", \"steps\": ");
      json_long(stdout, p->steps, ok);
      printf(", \"rhs_evals\": ");
      json_long(stdout, p->evals, ok);
      printf(", \"wall_s\": ");
      json_real(stdout, p->wall, ok);
      printf(", \"warnings\": ");
      json_long(stdout, p->warnings, ok);
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
    json_string(stdout, cal_problems[cfg[c].problem].spec);
    printf(", \"formulation\": ");
    json_string(stdout, cfg[c].form);
    printf(", \"method\": ");
    json_string(stdout, cfg[c].method);
    printf(", \"why\": ");
    json_string(stdout, cfg[c].why);
    printf("}");
  }
  printf("\n  ]\n}\n");
}

/* A CSV field: quoted, inner quotes doubled (failure messages may hold commas). */
static int csv_field(FILE *fp, const char *s) {
  if (fputc('"', fp) == EOF) {
    return -1;
  }
  for (; *s; s++) {
    if ((*s == '"' && fputc('"', fp) == EOF) || fputc(*s, fp) == EOF) {
      return -1;
    }
  }
  return fputc('"', fp) == EOF ? -1 : 0;
}

static int write_csv(const char *path, const cal_config *cfg, int nc, const double *tols, int nt) {
  CHSError err;
  CHSError_Clear(&err);
  out_file f;
  if (out_file_open(&f, path, &err) != 0) {
    return cli_fail(&err);
  }
  int bad =
      fprintf(f.fp, "problem,t_final,formulation,method,tol,status,steps,rhs_evals,"
                    "int_err_final,err_over_tol,warnings,point_calibrated,falls,calibrated\n") < 0;
  for (int c = 0; c < nc && !bad; c++) {
    const cal_config *k = &cfg[c];
    for (int t = 0; t < nt && !bad && !k->skipped; t++) {
      const cal_point *p = &k->pt[t];
      int ok = p->rc == 0;
      bad = fprintf(f.fp, "%s,%.17g,%s,%s,%.17g,", cal_problems[k->problem].spec,
                    cal_problems[k->problem].tf, k->form, k->method, tols[t]) < 0 ||
            csv_field(f.fp, ok ? "ok" : p->msg) != 0;
      if (ok) {
        bad = bad || fprintf(f.fp, ",%ld,%ld,%.17g,%.17g,%d", p->steps, p->evals, p->err,
                             p->err / tols[t], p->warnings) < 0;
      } else {
        bad = bad || fprintf(f.fp, ",,,,,") < 0;
      }
      bad = bad || fprintf(f.fp, ",%d,%d,%d\n", cal_point_calibrated(ok, p->err, tols[t]), k->falls,
                           k->calibrated) < 0;
    }
  }
  if (out_file_finish(&f, bad, &err) != 0) {
    return cli_fail(&err);
  }
  return 0;
}

int cmd_bench_calibrate(int argc, char **argv) {
  cli_options o;
  int rc = cli_parse(CLI_BENCH_CALIBRATE, argc, argv, &o);
  if (rc != 0) {
    return rc == CLI_HELP_DONE ? CHS_EXIT_OK : rc;
  }
  /* problems */
  char pbuf[512], fbuf[1024], mbuf[CLI_MAX_VALUE_LEN];
  const char *pitem[CAL_MAX_PROBLEMS], *fitem[CAL_MAX_FORMS], *mitem[CAL_MAX_METHODS];
  int np = 0, nf = 0, nm = 0, pidx[CAL_MAX_PROBLEMS];
  if (o.scale_problems) {
    if ((rc = split_list("--problems", o.scale_problems, pbuf, sizeof pbuf, pitem, CAL_MAX_PROBLEMS,
                         &np)) != 0) {
      return rc;
    }
    for (int i = 0; i < np; i++) {
      pidx[i] = -1;
      for (int k = 0; k < CAL_NPROBLEMS; k++) {
        pidx[i] = strcmp(pitem[i], cal_problems[k].name) == 0 ? k : pidx[i];
      }
      if (pidx[i] < 0) {
        return cli_usage_error("bad value for --problems: '%.200s' (the problems with a reference "
                               "at their final time: pendulum, andrews, car-axis, heavy-top)",
                               pitem[i]);
      }
    }
  } else {
    for (np = 0; np < CAL_NPROBLEMS; np++) {
      pidx[np] = np;
    }
  }
  /* formulations */
  if (o.formulation) {
    if ((rc = split_list("--formulations", o.formulation, fbuf, sizeof fbuf, fitem, CAL_MAX_FORMS,
                         &nf)) != 0) {
      return rc;
    }
    for (int i = 0; i < nf; i++) {
      if (cli_check_formulation(fitem[i]) != 0) {
        return CHS_EXIT_USAGE;
      }
    }
  } else {
    for (nf = 0; nf < CHSFormulationRegistry_Count() && nf < CAL_MAX_FORMS; nf++) {
      fitem[nf] = CHSFormulationRegistry_Get(nf)->name;
    }
  }
  /* methods */
  char all_store[CAL_MAX_METHODS][96];
  if (o.method && strcmp(o.method, "all") == 0) {
    nm = cal_all_methods(all_store, mitem, CAL_MAX_METHODS);
  } else if (o.method) {
    if ((rc = split_list("--methods", o.method, mbuf, sizeof mbuf, mitem, CAL_MAX_METHODS, &nm)) !=
        0) {
      return rc;
    }
    for (int i = 0; i < nm; i++) {
      if (!cal_adaptive_family(mitem[i])) {
        return cli_usage_error("bad value for --methods: '%.200s' (an adaptive method: erk:..., "
                               "dirk:..., cvode:..., ida[:...]; or all)",
                               mitem[i]);
      }
      if (strlen(mitem[i]) >= sizeof all_store[0]) {
        return cli_usage_error("bad value for --methods: '%.200s' (too long)", mitem[i]);
      }
    }
  } else {
    for (nm = 0; nm < CAL_NDEFAULT; nm++) {
      mitem[nm] = cal_default_methods[nm];
    }
  }
  /* tolerances: HI:LO:N, at least two (the fall is measured over the sweep) */
  double tols[CAL_MAX_TOLS], hi, lo;
  int nt;
  if ((rc = cli_parse_tol_sweep("--tols", o.tols ? o.tols : "1e-4:1e-10:7", CAL_MAX_TOLS, &hi, &lo,
                                &nt)) != 0) {
    return rc;
  }
  if (nt < 2 || !(hi > lo)) {
    return cli_usage_error("bad value for --tols: '%.200s' (at least two different tolerances: "
                           "calibration asks whether the error falls with them)",
                           o.tols);
  }
  if (hi >= 1) {
    return cli_usage_error("bad value for --tols: '%.200s' (tolerances below 1)", o.tols);
  }
  for (int i = 0; i < nt; i++) {
    tols[i] = hi * pow(lo / hi, (double)i / (double)(nt - 1));
  }
  double limit = o.have_time_limit ? o.time_limit : 60;
  if (limit > 86400) {
    return cli_usage_error("bad value for --time-limit: %g (at most 86400 s)", limit);
  }
  if (o.csv && (rc = cli_check_output_file("--csv", o.csv)) != 0) {
    return rc;
  }
  /* A method that no formulation accepts (an unknown name or option) is bad input, not a
   * configuration that does not apply: each named method is set up at t = 0 on the pendulum with
   * dirac or dae-ggl, in a child (this process, whose heap the runs inherit, stays small). */
  for (int i = 0; i < nm && !(o.method && strcmp(o.method, "all") == 0); i++) {
    const char *forms[] = {"dirac", "dae-ggl"};
    int known = 0;
    char why[240] = "";
    for (int k = 0; k < 2 && !known; k++) {
      cal_job j = {"pendulum", forms[k], mitem[i], 0, 1e-6};
      cal_point r;
      cal_run(&j, 60, &r);
      known = r.rc == 0;
      if (!known && k == 0) {
        snprintf(why, sizeof why, "%s", r.msg);
      }
    }
    if (!known) {
      return cli_usage_error("bad value for --methods: '%.200s': %s", mitem[i], why);
    }
  }
  if (o.dry_run) {
    return cli_dry_run_done("the calibration sweep");
  }
  int nc = np * nf * nm;
  cal_config *cfg = calloc((size_t)nc, sizeof *cfg);
  if (!cfg) {
    fprintf(stderr, "chs: out of memory\n");
    return CHS_EXIT_NUMERIC;
  }
  progress prog;
  double done = 0;
  progress_start(&prog, o.quiet, 1, "chs bench calibrate", 0, (double)nc * nt);
  for (int pi = 0, c = 0; pi < np; pi++) {
    for (int fi = 0; fi < nf; fi++) {
      for (int mi = 0; mi < nm; mi++, c++) {
        cal_config *k = &cfg[c];
        k->problem = pidx[pi];
        snprintf(k->form, sizeof k->form, "%s", fitem[fi]);
        snprintf(k->method, sizeof k->method, "%s", mitem[mi]);
        int ok[CAL_MAX_TOLS];
        double err[CAL_MAX_TOLS];
        k->calibrated = 1;
        for (int t = 0; t < nt; t++) {
          char item[200];
          snprintf(item, sizeof item, "%s %s/%s %.0e", cal_problems[k->problem].name, k->form,
                   k->method, tols[t]);
          progress_detail(&prog, item);
          cal_job j = {cal_problems[k->problem].spec, k->form, k->method,
                       cal_problems[k->problem].tf, tols[t]};
          cal_run(&j, limit, &k->pt[t]);
          done += 1;
          progress_update(&prog, done);
          if (k->pt[t].rc != 0 && k->pt[t].input && t == 0) {
            k->skipped = 1;
            snprintf(k->why, sizeof k->why, "%s", k->pt[t].msg);
            done += nt - 1;
            break;
          }
          ok[t] = k->pt[t].rc == 0 && k->pt[t].has_ref;
          if (k->pt[t].rc == 0 && !k->pt[t].has_ref) { /* cannot happen for cal_problems */
            k->pt[t].rc = -1;
            snprintf(k->pt[t].msg, sizeof k->pt[t].msg, "no reference at t = %g",
                     cal_problems[k->problem].tf);
          }
          err[t] = k->pt[t].err;
          k->calibrated = k->calibrated && cal_point_calibrated(ok[t], err[t], tols[t]);
        }
        if (!k->skipped) {
          k->falls = cal_falls(nt, ok, err, tols);
          k->calibrated = k->calibrated && k->falls;
        }
      }
    }
  }
  progress_end(&prog);
  if (o.json) {
    print_json(cfg, nc, tols, nt, limit);
  } else {
    print_text(cfg, nc, tols, nt);
  }
  int status = 0;
  if (o.csv) {
    status = write_csv(o.csv, cfg, nc, tols, nt);
  }
  free(cfg);
  return status;
}
