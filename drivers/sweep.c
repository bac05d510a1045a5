/* The exhaustive sweep shared by `chs bench calibrate` and `chs bench auto` (sweep.h). Each run
 * is a forked child killed at the time limit, so a hanging or crashing configuration is a FAILED
 * point, not a hung bench. */
#include "sweep.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

/* The built-in problems with a reference at a final time, and that time: the pendulum's closed
 * form (any t; 10 time units, about 1.5 periods), the test set's published values (andrews at
 * 0.03, car-axis at 3) and the steady precession of the heavy top (any t). */
const sweep_problem sweep_problems[] = {
    {"pendulum", "pendulum", 10},
    {"andrews", "andrews", 0.03},
    {"car-axis", "car-axis", 3},
    {"heavy-top", "heavy-top:steady=1", 10},
};
const int sweep_nproblems = (int)(sizeof sweep_problems / sizeof sweep_problems[0]);

/* The default methods: one or more of each adaptive family. ERK: Dormand-Prince 5(4), the
 * Bogacki-Shampine 3(2), Verner 8(5)6 and Fehlberg 13(7)8 tables; DIRK: Kvaerno 4(2)3 and
 * 7(4)5; CVODE Adams and BDF; IDA. --methods all: every ERK and DIRK table besides. */
static const char *const sweep_default_methods[] = {
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
#define SWEEP_NDEFAULT ((int)(sizeof sweep_default_methods / sizeof sweep_default_methods[0]))

static void sweep_child(void *arg, void *buf) {
  const sweep_job *j = arg;
  sweep_point *r = buf;
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

void sweep_run(const sweep_job *j, double limit, sweep_point *r) {
  char why[sizeof r->msg] = "the run's process reported nothing";
  memset(r, 0, sizeof *r);
  int crc = bench_child(sweep_child, (void *)j, r, sizeof *r, limit, NULL, why, sizeof why);
  if (crc < 0) {
    r->rc = -1;
    snprintf(r->msg, sizeof r->msg, "cannot fork the run's process");
  } else if (crc > 0 || !r->done) {
    memset(r, 0, sizeof *r);
    r->rc = -1;
    memcpy(r->msg, why, sizeof why);
  }
}

void sweep_run_jittered(const sweep_job *j, double limit, int jitter, sweep_point *r) {
  if (jitter <= 1) {
    sweep_run(j, limit, r);
    return;
  }
  double err[9], evals[9], steps[9], wall[9];
  int warnings = 0;
  for (int k = 0; k < jitter; k++) {
    sweep_job jk = *j;
    int d = k - (jitter - 1) / 2;
    jk.tol = d == 0 ? j->tol : j->tol * pow(10, d / 40.0);
    sweep_run(&jk, limit, r);
    if (r->rc != 0 || !r->has_ref) {
      return;
    }
    err[k] = r->err;
    evals[k] = (double)r->evals;
    steps[k] = (double)r->steps;
    wall[k] = r->wall;
    warnings += r->warnings;
  }
  r->err = cli_median(err, jitter);
  r->evals = lround(cli_median(evals, jitter));
  r->steps = lround(cli_median(steps, jitter));
  r->wall = cli_median(wall, jitter);
  r->warnings = warnings;
}

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
static int sweep_adaptive_family(const char *m) {
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
static int sweep_all_methods(char (*store)[96], const char **item, int max) {
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

int sweep_parse(const cli_options *o, const char *two_tols, sweep_spec *s) {
  int rc;
  memset(s, 0, sizeof *s);
  /* problems */
  if (o->scale_problems) {
    const char *pitem[SWEEP_MAX_PROBLEMS];
    if ((rc = split_list("--problems", o->scale_problems, s->pbuf, sizeof s->pbuf, pitem,
                         SWEEP_MAX_PROBLEMS, &s->np)) != 0) {
      return rc;
    }
    for (int i = 0; i < s->np; i++) {
      s->pidx[i] = -1;
      for (int k = 0; k < sweep_nproblems; k++) {
        s->pidx[i] = strcmp(pitem[i], sweep_problems[k].name) == 0 ? k : s->pidx[i];
      }
      if (s->pidx[i] < 0) {
        return cli_usage_error("bad value for --problems: '%.200s' (the problems with a reference "
                               "at their final time: pendulum, andrews, car-axis, heavy-top)",
                               pitem[i]);
      }
    }
  } else {
    for (s->np = 0; s->np < sweep_nproblems; s->np++) {
      s->pidx[s->np] = s->np;
    }
  }
  /* formulations */
  if (o->formulation) {
    if ((rc = split_list("--formulations", o->formulation, s->fbuf, sizeof s->fbuf, s->fitem,
                         SWEEP_MAX_FORMS, &s->nf)) != 0) {
      return rc;
    }
    for (int i = 0; i < s->nf; i++) {
      if (cli_check_formulation(s->fitem[i]) != 0) {
        return CHS_EXIT_USAGE;
      }
    }
  } else {
    for (s->nf = 0; s->nf < CHSFormulationRegistry_Count() && s->nf < SWEEP_MAX_FORMS; s->nf++) {
      s->fitem[s->nf] = CHSFormulationRegistry_Get(s->nf)->name;
    }
  }
  /* methods */
  int all = o->method && strcmp(o->method, "all") == 0;
  if (all) {
    s->nm = sweep_all_methods(s->all_store, s->mitem, SWEEP_MAX_METHODS);
  } else if (o->method) {
    if ((rc = split_list("--methods", o->method, s->mbuf, sizeof s->mbuf, s->mitem,
                         SWEEP_MAX_METHODS, &s->nm)) != 0) {
      return rc;
    }
    for (int i = 0; i < s->nm; i++) {
      if (!sweep_adaptive_family(s->mitem[i])) {
        return cli_usage_error("bad value for --methods: '%.200s' (an adaptive method: erk:..., "
                               "dirk:..., cvode:..., ida[:...]; or all)",
                               s->mitem[i]);
      }
      if (strlen(s->mitem[i]) >= sizeof s->all_store[0]) {
        return cli_usage_error("bad value for --methods: '%.200s' (too long)", s->mitem[i]);
      }
    }
  } else {
    for (s->nm = 0; s->nm < SWEEP_NDEFAULT; s->nm++) {
      s->mitem[s->nm] = sweep_default_methods[s->nm];
    }
  }
  /* tolerances: HI:LO:N */
  double hi, lo;
  if ((rc = cli_parse_tol_sweep("--tols", o->tols ? o->tols : "1e-4:1e-10:7", SWEEP_MAX_TOLS, &hi,
                                &lo, &s->nt)) != 0) {
    return rc;
  }
  if (two_tols && (s->nt < 2 || !(hi > lo))) {
    return cli_usage_error("bad value for --tols: '%.200s' (at least two different tolerances: "
                           "%s)",
                           o->tols, two_tols);
  }
  if (!two_tols && (s->nt > 1) != (hi > lo)) {
    return cli_usage_error("bad value for --tols: '%.200s' (one tolerance: HI = LO and N = 1; "
                           "else HI > LO and N > 1)",
                           o->tols);
  }
  if (hi >= 1) {
    return cli_usage_error("bad value for --tols: '%.200s' (tolerances below 1)", o->tols);
  }
  for (int i = 0; i < s->nt; i++) {
    s->tols[i] = cli_tol_grid(hi, lo, s->nt, i);
  }
  s->limit = o->have_time_limit ? o->time_limit : 60;
  s->jitter = o->jitter > 1 ? (int)o->jitter : 1;
  if (s->jitter % 2 == 0) {
    return cli_usage_error("bad value for --jitter: %d (odd: the tolerance itself in the middle)",
                           s->jitter);
  }
  if (s->limit > 86400) {
    return cli_usage_error("bad value for --time-limit: %g (at most 86400 s)", s->limit);
  }
  if (o->csv && (rc = cli_check_output_file("--csv", o->csv)) != 0) {
    return rc;
  }
  /* A method that no formulation accepts (an unknown name or option) is bad input, not a
   * configuration that does not apply: each named method is set up at t = 0 on the pendulum with
   * dirac or dae-ggl, in a child (this process, whose heap the runs inherit, stays small). */
  for (int i = 0; i < s->nm && !all; i++) {
    const char *forms[] = {"dirac", "dae-ggl"};
    int known = 0;
    char why[240] = "";
    for (int k = 0; k < 2 && !known; k++) {
      sweep_job j = {"pendulum", forms[k], s->mitem[i], 0, 1e-6};
      sweep_point r;
      sweep_run(&j, 60, &r);
      known = r.rc == 0;
      if (!known && k == 0) {
        snprintf(why, sizeof why, "%s", r.msg);
      }
    }
    if (!known) {
      return cli_usage_error("bad value for --methods: '%.200s': %s", s->mitem[i], why);
    }
  }
  return 0;
}

sweep_config *sweep_all(const sweep_spec *s, progress *prog, double *done) {
  int nt = s->nt;
  sweep_config *cfg = calloc((size_t)s->np * (size_t)s->nf * (size_t)s->nm, sizeof *cfg);
  if (!cfg) {
    return NULL;
  }
  for (int pi = 0, c = 0; pi < s->np; pi++) {
    for (int fi = 0; fi < s->nf; fi++) {
      for (int mi = 0; mi < s->nm; mi++, c++) {
        sweep_config *k = &cfg[c];
        const sweep_problem *pb = &sweep_problems[s->pidx[pi]];
        k->problem = s->pidx[pi];
        snprintf(k->form, sizeof k->form, "%s", s->fitem[fi]);
        snprintf(k->method, sizeof k->method, "%s", s->mitem[mi]);
        for (int t = 0; t < nt; t++) {
          char item[200];
          snprintf(item, sizeof item, "%s %s/%s %.0e", pb->name, k->form, k->method, s->tols[t]);
          progress_detail(prog, item);
          sweep_job j = {pb->spec, k->form, k->method, pb->tf, s->tols[t]};
          sweep_run_jittered(&j, s->limit, s->jitter, &k->pt[t]);
          *done += 1;
          progress_update(prog, *done);
          if (k->pt[t].rc != 0 && k->pt[t].input && t == 0) {
            k->skipped = 1;
            snprintf(k->why, sizeof k->why, "%s", k->pt[t].msg);
            *done += nt - 1;
            break;
          }
          if (k->pt[t].rc == 0 && !k->pt[t].has_ref) { /* cannot happen for sweep_problems */
            k->pt[t].rc = -1;
            snprintf(k->pt[t].msg, sizeof k->pt[t].msg, "no reference at t = %g", pb->tf);
          }
        }
      }
    }
  }
  return cfg;
}

int sweep_csv_field(FILE *fp, const char *s) {
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

int sweep_start(int cmd, int argc, char **argv, const char *two_tols, const char *what,
                cli_options *o, sweep_spec **s, int *status) {
  *s = NULL;
  int rc = cli_parse(cmd, argc, argv, o);
  if (rc != 0) {
    *status = rc == CLI_HELP_DONE ? CHS_EXIT_OK : rc;
    return 0;
  }
  *s = malloc(sizeof **s);
  if (!*s) {
    fprintf(stderr, "chs: out of memory\n");
    *status = CHS_EXIT_NUMERIC;
    return 0;
  }
  if ((rc = sweep_parse(o, two_tols, *s)) != 0 || o->dry_run) {
    free(*s);
    *s = NULL;
    *status = rc != 0 ? rc : cli_dry_run_done(what);
    return 0;
  }
  return 1;
}
