/* What the experiments of `chs reproduce` (drivers/experiments/) build their reports with: rows,
 * claims and notes, time series, growth exponents, plots (reproduce.h). A module of its own, so
 * that the experiments, and the option parser that lists them, do not depend on the command. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
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

int rep_columns_room(double **const *cols, const int *width, int k, long n, long *cap) {
  if (n < *cap) {
    return 0;
  }
  long rows = *cap ? 2 * *cap : 1024;
  int ok = 1;
  for (int i = 0; i < k; i++) {
    double *p = realloc(*cols[i], (size_t)rows * (size_t)(width ? width[i] : 1) * sizeof *p);
    ok = ok && p;
    *cols[i] = p ? p : *cols[i];
  }
  if (!ok) {
    return CHS_ERR_MEM;
  }
  *cap = rows;
  return 0;
}

int rep_series_monitor(const CHSRecord *rec, void *ctx) {
  rep_series *s = ctx;
  double **cols[6] = {&s->t, &s->q2, &s->int_err, &s->energy_err, &s->pos_res, &s->mom_res};
  if (rep_columns_room(cols, NULL, 6, s->n, &s->cap) != 0) {
    return CHS_ERR_MEM;
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

void rep_fit_add(rep_fit *f, double x, double y) {
  f->sx += x;
  f->sy += y;
  f->sxx += x * x;
  f->sxy += x * y;
  f->n++;
}

double rep_fit_slope(const rep_fit *f) {
  double n = (double)f->n;
  return f->n >= 3 ? (n * f->sxy - f->sx * f->sy) / (n * f->sxx - f->sx * f->sx) : NAN;
}

double rep_growth_exponent(const rep_series *s, const double *e, double lo, double hi) {
  rep_fit f = {0};
  for (long i = 0; i < s->n; i++) {
    if (s->t[i] >= lo && s->t[i] <= hi && e[i] > 0 && isfinite(e[i])) {
      rep_fit_add(&f, log(s->t[i]), log(e[i]));
    }
  }
  return rep_fit_slope(&f);
}

double rep_max_over(const double *t, const double *e, long n, double lo, double hi) {
  double m = 0;
  for (long i = 0; i < n; i++) {
    if (t[i] >= lo && t[i] <= hi) {
      m = fmax(m, e[i]);
    }
  }
  return m;
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

/* s as the inside of a gnuplot single-quoted string: a quote doubled, nothing else special. */
static const char *gp_single(char *dst, size_t len, const char *s) {
  size_t k = 0;
  for (; *s && k + 3 < len; s++) {
    if (*s == '\'') {
      dst[k++] = '\'';
    }
    dst[k++] = *s;
  }
  dst[k] = '\0';
  return dst;
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
  /* A title longer than the canvas holds in one line (about 75 characters at 800 px) breaks at
   * its last ": " or ", " before that width (else its last space) into two lines. */
  char full[512], head[512];
  snprintf(full, sizeof full, "%s%s", title, tf);
  const char *tail = "";
  size_t cut = strlen(full);
  for (int pass = 0; pass < 2 && cut > 75 && !*tail; pass++) {
    for (size_t i = 75; i > 20 && !*tail; i--) {
      int punct = (full[i] == ':' || full[i] == ',') && full[i + 1] == ' ';
      if (pass == 0 ? punct : full[i] == ' ') {
        cut = pass == 0 ? i + 1 : i;
        tail = full + (pass == 0 ? i + 2 : i + 1);
      }
    }
  }
  snprintf(head, sizeof head, "%.*s", (int)cut, full);
  /* On a log axis the first sample is often an exact 0 floored to a tiny constant (a residual at
   * t = 0): the axis starts at the decade of the smallest positive value after it, so that the
   * floor does not squeeze the curves into the top of the frame. */
  char yrange[64] = "";
  if (logy) {
    double lo = INFINITY;
    for (int c = 0; c < k; c++) {
      for (long i = 1; i < n; i++) {
        if (isfinite(ys[c][i]) && ys[c][i] > 0) {
          lo = fmin(lo, ys[c][i]);
        }
      }
    }
    if (isfinite(lo)) {
      snprintf(yrange, sizeof yrange, "set yrange [%.3g:*]\n", pow(10, floor(log10(lo))));
    }
  }
  /* the key below the frame: never over the data */
  int len = snprintf(script, sizeof script,
                     "set title '%s'%s%s%s\nset xlabel '%s'\nset ylabel '%s'\n%s%sset key below\n"
                     "plot ",
                     gp_single((char[512]){0}, 512, head), *tail ? ".\"\\n\".'" : "",
                     gp_single((char[512]){0}, 512, tail), *tail ? "'" : "",
                     gp_single((char[256]){0}, 256, xlabel), gp_single((char[256]){0}, 256, ylabel),
                     logy ? "set logscale y\nset format y '10^{%T}'\n" : "", yrange);
  /* drawn last to first, so that the first curve lies on top of the others (where a later one
   * crosses it all the time it would otherwise hide it); the key (keyentry) keeps the given
   * order */
  for (int c = k - 1; c >= 0; c--) {
    len += snprintf(script + len, sizeof script - (size_t)len,
                    "DATA u 1:%d w lp lt %d pi PI notitle, ", c + 2, c + 1);
  }
  for (int c = 0; c < k; c++) {
    len += snprintf(script + len, sizeof script - (size_t)len, "%skeyentry w lp lt %d t '%s'",
                    c ? ", " : "", c + 1, gp_single((char[256]){0}, 256, labels[c]));
  }
  for (int c = 0; c < k; c++) {
    cols[c + 1] = ys[c];
    size_t h = strlen(header);
    snprintf(header + h, sizeof header - h, " y%d", c + 1);
  }
  if (len >= (int)sizeof script) {
    return -1;
  }
  return rep_plot(dir, name, header, cols, k + 1, n, script);
}

int rep_ratio_verdict(const bench_range *g, double bound, int below) {
  if (!(g->lo > 0) || !isfinite(g->hi)) {
    return REP_UNDECIDED;
  }
  if (g->hi <= bound) {
    return below;
  }
  if (g->lo > bound) {
    return !below;
  }
  return REP_UNDECIDED;
}

int rep_about(double ours, double paper, int ndigits) {
  if (!isfinite(ours) || !isfinite(paper) || paper == 0 || ndigits < 1) {
    return 0;
  }
  double unit = pow(10, floor(log10(fabs(paper))) - (ndigits - 1));
  return fabs(ours - paper) <= 0.5 * unit * (1 + 1e-12);
}

int rep_pendulum_residual_matrix(CHSFormulation f, N_Vector y, N_Vector fy, const double *z,
                                 double c, double A[4]) {
  const double eps = 1e-5;
  double *a = N_VGetArrayPointer(y), *fa = N_VGetArrayPointer(fy), M[4], N[4];
  int rc = 0;
  for (int j = 0; j < 2 && rc == 0; j++) {
    double gp[2][2], rt[2][2];
    for (int side = 0; side < 2 && rc == 0; side++) {
      double e = side ? -eps : eps;
      memcpy(a, z, 4 * sizeof *a);
      a[2 * j] += e * z[0]; /* j = 0: q += e q; j = 1: p += e q */
      a[2 * j + 1] += e * z[1];
      rc = CHSFormulation_Rhs(0, y, fy, f);
      gp[side][0] = c * (a[0] * a[0] + a[1] * a[1] - 1);
      gp[side][1] = 2 * c * (a[0] * a[2] + a[1] * a[3]);
      rt[side][0] = 2 * c * (a[0] * fa[0] + a[1] * fa[1]);
      rt[side][1] = 2 * c * (a[2] * fa[0] + a[3] * fa[1] + a[0] * fa[2] + a[1] * fa[3]);
    }
    for (int i = 0; i < 2; i++) {
      M[2 * i + j] = (gp[0][i] - gp[1][i]) / (2 * eps);
      N[2 * i + j] = (rt[0][i] - rt[1][i]) / (2 * eps);
    }
  }
  double det = M[0] * M[3] - M[1] * M[2];
  if (rc != 0 || !(fabs(det) > 0)) {
    return rc ? rc : CHS_ERR_SINGULAR;
  }
  double Mi[4] = {M[3] / det, -M[1] / det, -M[2] / det, M[0] / det};
  for (int i = 0; i < 2; i++) {
    for (int k = 0; k < 2; k++) {
      A[2 * i + k] = N[2 * i] * Mi[k] + N[2 * i + 1] * Mi[2 + k];
    }
  }
  return 0;
}
