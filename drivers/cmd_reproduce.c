/* chs reproduce EXPERIMENT [--json] [--plot-dir DIR]: the papers' experiments with their numbers
 * beside ours and every claim computed from the run. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../src/compat.h"
#include "progress.h"
#include "reproduce.h"

static void *grow(void *p, int *cap, int need, size_t size) {
  if (need <= *cap) {
    return p;
  }
  int ncap = *cap ? 2 * *cap : 16;
  void *q = realloc(p, (size_t)ncap * size);
  if (q) {
    *cap = ncap;
  }
  return q;
}

void rep_row_add(rep_report *r, double paper, double ours, const char *fmt, ...) {
  rep_row *rows = grow(r->rows, &r->caprows, r->nrows + 1, sizeof *rows);
  if (!rows) {
    return;
  }
  r->rows = rows;
  rep_row *row = &r->rows[r->nrows++];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(row->quantity, sizeof row->quantity, fmt, ap);
  va_end(ap);
  row->paper = paper;
  row->ours = ours;
}

void rep_claim_add(rep_report *r, int holds, const char *claim, const char *fmt, ...) {
  rep_claim *c = grow(r->claims, &r->capclaims, r->nclaims + 1, sizeof *c);
  if (!c) {
    return;
  }
  r->claims = c;
  rep_claim *cl = &r->claims[r->nclaims++];
  snprintf(cl->claim, sizeof cl->claim, "%s", claim);
  cl->holds = holds;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cl->evidence, sizeof cl->evidence, fmt, ap);
  va_end(ap);
}

void rep_note(rep_report *r, const char *fmt, ...) {
  size_t used = strlen(r->notes);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->notes + used, sizeof r->notes - used, fmt, ap);
  va_end(ap);
}

int rep_series_monitor(const CHSRecord *rec, void *ctx) {
  rep_series *s = ctx;
  if (s->n == s->cap) {
    long cap = s->cap ? 2 * s->cap : 1024;
    double **cols[6] = {&s->t, &s->q2, &s->int_err, &s->energy_err, &s->pos_res, &s->mom_res};
    for (int i = 0; i < 6; i++) {
      double *p = realloc(*cols[i], (size_t)cap * sizeof(double));
      if (!p) {
        return CHS_ERR_MEM;
      }
      *cols[i] = p;
    }
    s->cap = cap;
  }
  s->t[s->n] = rec->t;
  s->q2[s->n] = rec->q[1];
  s->int_err[s->n] = rec->has_reference ? rec->int_err : NAN;
  s->energy_err[s->n] = rec->energy_err;
  s->pos_res[s->n] = rec->pos_res;
  s->mom_res[s->n] = rec->mom_res;
  s->n++;
  return 0;
}

void rep_series_free(rep_series *s) {
  free(s->t);
  free(s->q2);
  free(s->int_err);
  free(s->energy_err);
  free(s->pos_res);
  free(s->mom_res);
  memset(s, 0, sizeof *s);
}

double rep_growth_exponent(const rep_series *s, const double *e, double lo, double hi) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  long k = 0;
  for (long i = 0; i < s->n; i++) {
    if (s->t[i] >= lo && s->t[i] <= hi && e[i] > 0 && isfinite(e[i])) {
      double x = log(s->t[i]), y = log(e[i]);
      sx += x;
      sy += y;
      sxx += x * x;
      sxy += x * y;
      k++;
    }
  }
  if (k < 3) {
    return NAN;
  }
  return (k * sxy - sx * sy) / (k * sxx - sx * sx);
}

double rep_first_exceeding(const rep_series *s, const double *e, double level) {
  for (long i = 0; i < s->n; i++) {
    if (e[i] > level) {
      return s->t[i];
    }
  }
  return NAN;
}

int rep_plot(const char *dir, const char *name, const char *header, const double *const *cols,
             int ncols, long nrows, const char *script) {
  char dat[256], png[256], path[4096];
  if (!plot_safe_name(name) || snprintf(dat, sizeof dat, "%s.dat", name) >= (int)sizeof dat ||
      snprintf(png, sizeof png, "%s.png", name) >= (int)sizeof png ||
      path_join(path, sizeof path, dir, dat) != 0) {
    fprintf(stderr, "chs: bad plot name '%s' in %s\n", name, dir);
    return -1;
  }
  CHSError err;
  CHSError_Clear(&err);
  out_file f;
  if (out_file_open(&f, path, &err) != 0) {
    fprintf(stderr, "chs: %s\n", err.msg);
    return -1;
  }
  int bad = fprintf(f.fp, "# %s\n", header) < 0;
  for (long i = 0; i < nrows && !bad; i++) {
    for (int c = 0; c < ncols && !bad; c++) {
      double x = cols[c][i];
      if (isfinite(x)) {
        bad = fprintf(f.fp, c ? " %.10g" : "%.10g", x) < 0;
      } else {
        bad = fputs(c ? " NaN" : "NaN", f.fp) == EOF; /* gnuplot's missing value, data file only */
      }
    }
    bad = bad || fputc('\n', f.fp) == EOF;
  }
  if (out_file_finish(&f, bad, &err) != 0) {
    fprintf(stderr, "chs: %s\n", err.msg);
    return -1;
  }
  /* gnuplot runs in dir: the data file by its own (safe) name, never through the user's path. */
  size_t cap = strlen(script) + 300;
  char *text = malloc(cap);
  if (!text) {
    return -1;
  }
  /* PI: the point interval that puts about a dozen markers on a curve (`w lp pi PI`); the x axis
   * ends at the data's ends */
  snprintf(text, cap, "DATA = '%s'\nPI = %ld\nset autoscale xfix\n%s\n", dat,
           nrows / 12 > 1 ? nrows / 12 : 1, script);
  int rc = plot_run(dir, png, 800, 500, text);
  free(text);
  return rc;
}

int rep_plot_curves(const char *dir, const char *name, const char *title, const char *xlabel,
                    const char *ylabel, int logy, const double *x, const double *const *ys,
                    const char *const *labels, int k, long n) {
  const double *cols[9];
  char script[2048], header[512] = "x";
  if (k < 1 || k > 8) {
    return -1;
  }
  cols[0] = x;
  char tf[64] = ""; /* curves against t: the title names the final time */
  if (strcmp(xlabel, "t") == 0 && n > 0 && isfinite(x[n - 1])) {
    snprintf(tf, sizeof tf, ", t_f = %g", x[n - 1]);
  }
  int len =
      snprintf(script, sizeof script,
               "set title '%s%s'\nset xlabel '%s'\nset ylabel '%s'\n%sset key bottom right\n"
               "plot ",
               title, tf, xlabel, ylabel, logy ? "set logscale y\nset format y '10^{%T}'\n" : "");
  for (int c = 0; c < k; c++) {
    cols[c + 1] = ys[c];
    len += snprintf(script + len, sizeof script - (size_t)len, "%sDATA u 1:%d w lp pi PI t '%s'",
                    c ? ", " : "", c + 2, labels[c]);
    size_t h = strlen(header);
    snprintf(header + h, sizeof header - h, " y%d", c + 1);
  }
  if (len >= (int)sizeof script) {
    return -1;
  }
  return rep_plot(dir, name, header, cols, k + 1, n, script);
}

int rep_about(double ours, double paper, int ndigits) {
  if (!isfinite(ours) || !isfinite(paper) || paper == 0 || ndigits < 1) {
    return 0;
  }
  double unit = pow(10, floor(log10(fabs(paper))) - (ndigits - 1));
  return fabs(ours - paper) <= 0.5 * unit * (1 + 1e-12);
}

static void print_json(const rep_experiment *ex, const rep_report *r) {
  printf("{\n  \"experiment\": ");
  json_string(stdout, ex->name);
  printf(",\n  \"rows\": [");
  for (int i = 0; i < r->nrows; i++) {
    printf("%s\n    {\"quantity\": ", i ? "," : "");
    json_string(stdout, r->rows[i].quantity);
    printf(", \"paper\": ");
    json_real(stdout, r->rows[i].paper, isfinite(r->rows[i].paper));
    printf(", \"ours\": ");
    json_real(stdout, r->rows[i].ours, isfinite(r->rows[i].ours));
    printf("}");
  }
  printf("\n  ],\n  \"claims\": [");
  for (int i = 0; i < r->nclaims; i++) {
    printf("%s\n    {\"claim\": ", i ? "," : "");
    json_string(stdout, r->claims[i].claim);
    printf(", \"holds\": %s, \"evidence\": ",
           r->claims[i].holds < 0 ? "null" : (r->claims[i].holds ? "true" : "false"));
    json_string(stdout, r->claims[i].evidence);
    printf("}");
  }
  printf("\n  ],\n  \"notes\": ");
  json_string(stdout, r->notes);
  printf("\n}");
}

static void print_table(const rep_experiment *ex, const rep_report *r) {
  printf("%s  (%s)\n%s\n\n%-58s %12s %12s\n", ex->name, ex->source, ex->summary, "quantity",
         "paper", "ours");
  for (int i = 0; i < r->nrows; i++) {
    char p[32] = "-", o[32] = "n/a";
    if (isfinite(r->rows[i].paper)) {
      snprintf(p, sizeof p, "%.3g", r->rows[i].paper);
    }
    if (isfinite(r->rows[i].ours)) {
      snprintf(o, sizeof o, "%.3g", r->rows[i].ours);
    }
    printf("%-58s %12s %12s\n", r->rows[i].quantity, p, o);
  }
  printf("\nclaims:\n");
  for (int i = 0; i < r->nclaims; i++) {
    printf("  [%s] %s\n         %s\n",
           r->claims[i].holds < 0 ? "n/a" : (r->claims[i].holds ? "holds" : "FAILS"),
           r->claims[i].claim, r->claims[i].evidence);
  }
  if (r->notes[0]) {
    printf("\nnotes:\n%s\n", r->notes);
  }
}

/* One experiment into r (memset by the caller, plot_dir set). */
static int run_one(const rep_experiment *ex, rep_report *r, CHSError *err) {
  CHSError_Clear(err);
  return ex->run(r, err);
}

static void count_claims(const rep_report *r, int *hold, int *fail, int *na) {
  *hold = *fail = *na = 0;
  for (int i = 0; i < r->nclaims; i++) {
    int h = r->claims[i].holds;
    *(h < 0 ? na : (h ? hold : fail)) += 1;
  }
}

/* --all: every experiment, then one summary table (JSON: {"experiments": [...], "summary":
 * [...]}). A failing claim is a finding (exit 0); an experiment that cannot run is an error
 * (reported in its row, exit status of the first such failure after the summary). */
static int reproduce_all(int json, int quiet, const char *plot_dir) {
  int first_rc = 0;
  CHSError first_err;
  CHSError_Clear(&first_err);
  typedef struct {
    int hold, fail, na, rc;
    char failing[1024];
    char error[CHS_ERROR_MSG_LEN];
  } row;
  row *rows = calloc(rep_experiment_count(), sizeof *rows);
  if (!rows) {
    fprintf(stderr, "chs: out of memory\n");
    return CHS_EXIT_NUMERIC;
  }
  if (json) {
    printf("{\n\"experiments\": [\n");
  }
  int printed = 0;
  progress prog;
  progress_start(&prog, quiet, 1, "chs reproduce --all", 0, rep_experiment_count());
  for (int k = 0; k < rep_experiment_count(); k++) {
    rep_report r;
    memset(&r, 0, sizeof r);
    r.plot_dir = plot_dir;
    CHSError err;
    progress_detail(&prog, rep_experiment_get(k)->name);
    progress_update(&prog, k);
    int rc = run_one(rep_experiment_get(k), &r, &err);
    progress_interrupt_stdout(); /* its table on lines of its own */
    rows[k].rc = rc;
    if (rc == 0) {
      count_claims(&r, &rows[k].hold, &rows[k].fail, &rows[k].na);
      for (int i = 0; i < r.nclaims; i++) {
        if (r.claims[i].holds == 0) {
          size_t used = strlen(rows[k].failing);
          snprintf(rows[k].failing + used, sizeof rows[k].failing - used, "%s%s", used ? "; " : "",
                   r.claims[i].claim);
        }
      }
      if (json) {
        printf("%s", printed++ ? ",\n" : "");
        print_json(rep_experiment_get(k), &r);
      } else {
        print_table(rep_experiment_get(k), &r);
        printf("\n");
      }
    } else {
      snprintf(rows[k].error, sizeof rows[k].error, "%s", err.msg);
      if (!first_rc) {
        first_rc = rc;
        first_err = err;
      }
    }
    free(r.rows);
    free(r.claims);
  }
  progress_end(&prog);
  if (json) {
    printf("\n],\n\"summary\": [");
    for (int k = 0; k < rep_experiment_count(); k++) {
      printf("%s\n  {\"experiment\": ", k ? "," : "");
      json_string(stdout, rep_experiment_get(k)->name);
      printf(", \"holding\": %d, \"failing\": %d, \"not_applicable\": %d, \"failing_claims\": ",
             rows[k].hold, rows[k].fail, rows[k].na);
      json_string(stdout, rows[k].failing);
      printf(", \"error\": ");
      if (rows[k].rc) {
        json_string(stdout, rows[k].error);
      } else {
        printf("null");
      }
      printf("}");
    }
    printf("\n]\n}\n");
  } else {
    int th = 0, tf = 0, tn = 0;
    printf("summary\n%-30s %7s %7s %5s  %s\n", "experiment", "holding", "failing", "n/a",
           "failing claims");
    for (int k = 0; k < rep_experiment_count(); k++) {
      if (rows[k].rc) {
        printf("%-30s %7s %7s %5s  error: %s\n", rep_experiment_get(k)->name, "-", "-", "-",
               rows[k].error);
        continue;
      }
      printf("%-30s %7d %7d %5d  %s\n", rep_experiment_get(k)->name, rows[k].hold, rows[k].fail,
             rows[k].na, rows[k].failing);
      th += rows[k].hold;
      tf += rows[k].fail;
      tn += rows[k].na;
    }
    printf("%-30s %7d %7d %5d\n", "total", th, tf, tn);
  }
  free(rows);
  int rc = first_rc;
  if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout))) {
    first_err.code = rc = CHS_ERR_IO;
    snprintf(first_err.msg, sizeof first_err.msg, "could not write the standard output: %s",
             strerror(errno));
  }
  return rc == 0 ? CHS_EXIT_OK : cli_fail(&first_err);
}

int cmd_reproduce(int argc, char **argv) {
  cli_options o;
  int prc = cli_parse(CLI_REPRODUCE, argc, argv, &o);
  if (prc != 0) {
    return prc == CLI_HELP_DONE ? CHS_EXIT_OK : prc;
  }
  const char *name = o.arg, *plot_dir = o.plot_dir;
  int json = o.json, all = o.all, quiet = o.quiet;
  if (all && name) {
    fprintf(stderr, "chs: reproduce: give an experiment or --all, not both ('%s')\n", name);
    return CHS_EXIT_USAGE;
  }
  const rep_experiment *ex = NULL;
  for (int k = 0; name && k < rep_experiment_count(); k++) {
    if (strcmp(rep_experiment_get(k)->name, name) == 0) {
      ex = rep_experiment_get(k);
    }
  }
  if (!ex && !all) {
    fprintf(stderr, "chs: unknown experiment '%s' (see `chs list experiments`)\n",
            name ? name : "");
    return CHS_EXIT_USAGE;
  }
  if (plot_dir && (!o.dry_run || access(plot_dir, F_OK) == 0) &&
      cli_check_output_dir("--plot-dir", plot_dir, !o.dry_run) != 0) {
    return CHS_EXIT_USAGE;
  }
  if (o.dry_run) {
    return cli_dry_run_done(all ? "every experiment" : ex->name);
  }
  if (all) {
    return reproduce_all(json, quiet, plot_dir);
  }
  rep_report r;
  memset(&r, 0, sizeof r);
  r.plot_dir = plot_dir;
  CHSError err;
  int rc = run_one(ex, &r, &err);
  if (rc == 0) {
    if (json) {
      print_json(ex, &r);
      printf("\n");
    } else {
      print_table(ex, &r);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
      err.code = rc = CHS_ERR_IO;
      snprintf(err.msg, sizeof err.msg, "could not write the standard output: %s", strerror(errno));
    }
  }
  free(r.rows);
  free(r.claims);
  return rc == 0 ? CHS_EXIT_OK : cli_fail(&err);
}
