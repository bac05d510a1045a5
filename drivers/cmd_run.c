/* chs run: one problem, one formulation, one method. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "../src/compat.h"
#include "cli.h"
#include "estimate.h"
#include "mpi_cli.h"
#include "progress.h"

static void print_summary(const cli_result *r) {
  const CHSRunSummary *s = &r->sum;
  const CHSDiagnosticsSummary *d = &s->diag;
  char sp[3][1024];
  printf("problem %s, formulation %s, method %s\n", cli_safe(sp[0], sizeof sp[0], r->problem),
         cli_safe(sp[1], sizeof sp[1], r->formulation), cli_safe(sp[2], sizeof sp[2], r->method));
  printf("  t_final        %.6g\n", (double)d->t_final);
  printf("  steps          %ld\n", s->stats.steps);
  printf("  rhs evals      %ld\n", s->rhs_evals);
  printf("  energy error   max %.3e  final %.3e  (%s%s)\n", (double)d->energy_err_max,
         (double)d->energy_err_final, d->energy0 != 0 ? "relative to |H(0)|" : "absolute: H(0) = 0",
         d->energy_invariant ? ""
         : d->energy_is_balance
             ? "; H depends on t explicitly: this is the error of the energy balance below"
             : "; not an invariant: the problem has a non-conservative force");
  printf("  |g|            max %.3e  final %.3e\n", (double)d->pos_res_max,
         (double)d->pos_res_final);
  printf("  |psi|          max %.3e  final %.3e\n", (double)d->mom_res_max,
         (double)d->mom_res_final);
  if (d->has_reference) {
    printf("  |(q,p)-ref|    max %.3e  final %.3e\n", (double)d->int_err_max,
           (double)d->int_err_final);
  } else {
    printf("  |(q,p)-ref|    n/a (no reference solution at t_final)\n");
  }
  if (r->has_auto) {
    printf("  auto           ");
    cli_fputs_safe(stdout, r->auto_why);
    printf("\n");
  }
  if (r->has_estimate) {
    printf("  est. error     final %.3e  (|(q,p) - companion|_2; companion: %s)\n", r->est_error,
           r->est_companion);
  }
  if (s->stats.nonlin_iters > 0) {
    printf("  nonlinear      %ld iterations, %ld convergence failures", s->stats.nonlin_iters,
           s->stats.nonlin_conv_fails);
    if (s->stats.err_test_fails >= 0) {
      printf("; %ld error-test failures", s->stats.err_test_fails);
    }
    if (s->stats.jac_evals >= 0) {
      printf("; %ld Jacobian evaluations", s->stats.jac_evals);
    }
    printf("\n");
  }
  if (s->stats.linear_solver) { /* cvode, ida: which one, and whether ls=auto chose it */
    printf("  linear solver  %s%s\n", s->stats.linear_solver,
           s->stats.linear_solver_auto ? " (ls=auto)" : "");
  }
  if (s->stats.lin_iters > 0 && s->stats.nonlin_iters > 0) { /* cvode ls=spgmr */
    printf("  krylov         %ld iterations, %.2f per Newton iteration\n", s->stats.lin_iters,
           (double)s->stats.lin_iters / (double)s->stats.nonlin_iters);
  }
  if (cli_is_alpha_prk(r->method)) {
    printf("  alpha          max |alpha| %.3e; %ld steps along the second direction\n",
           (double)s->stats.alpha_max, s->stats.alpha_dir2_steps);
  }
  if (r->has_wedge) {
    printf("  wedge product  max |omega - omega(0)| %.3e  (omega(0) = 1); relative to "
           "|dz1| |dz2| %.3e; %s\n",
           r->wedge_err_max, r->wedge_rel_err_max,
           r->wedge_exact ? "the method's tangent map" : "finite differences of the step map");
  }
  for (int i = 0; i < d->n_invariants; i++) {
    printf("  %-14s max %.3e  final %.3e  (absolute drift)\n", d->invariant_names[i],
           (double)d->invariant_err_max[i], (double)d->invariant_err_final[i]);
  }
  if (d->balance_tracked) {
    printf("  energy balance max %.3e  final %.3e  (|H - H0 - W| / |H0|; work W = %.6g)\n",
           (double)d->balance_err_max, (double)d->balance_err_final, (double)d->work_final);
  }
  if (s->events_located) {
    printf("  events         %ld%s\n", s->n_events,
           s->n_events > s->n_event_records ? " (the first listed)" : "");
    for (int i = 0; i < s->n_event_records; i++) {
      const CHSEventRecord *e = &s->events[i];
      printf("    %-12s t = %.17g  %s\n", r->event_names[e->index], (double)e->t,
             e->direction > 0 ? "rising" : "falling");
    }
    if (s->stopped) {
      printf("  stopped at     %s, t = %.17g\n", r->event_names[s->stop_event], (double)d->t_final);
    }
  }
  printf("  wall           %.3g s\n", s->wall_s);
  if (r->has_cost) { /* the scale measures: CPU per step, memory per coordinate */
    printf("  cost           CPU %.3g s", r->cpu_s);
    if (s->stats.steps > 0) {
      printf(", %.3g ms per step", 1e3 * r->cpu_s / (double)s->stats.steps);
    }
    printf(", %.0f %% in the kernel (%ld page faults)",
           r->cpu_s > 0 ? 100.0 * r->cpu_system_s / r->cpu_s : 0.0, r->page_faults);
    printf("; peak resident %.3g MB", (double)r->peak_rss_kb / 1024.0);
    if (r->n_final > 0) {
      double per = (double)r->peak_rss_kb * 1.024 / (double)r->n_final; /* kB */
      printf(per < 1000 ? ", %.3g kB per coordinate" : ", %.0f kB per coordinate", per);
    }
    printf("\n");
  }
}

/* --plot: the diagnostics against t in at most RUN_PLOT_ROWS rows. Every record is a row until
 * the rows are full; then the time after t0 is cut into intervals of width w (RUN_PLOT_ROWS / 2 of
 * them up to the last record, doubled at each later compaction) and the records of one interval
 * make one row (the largest value of each quantity, at the interval's last record time). So a run
 * of 10^6 steps draws as fast as one of 100, and a run that stops early (a failure, --stop-at) is
 * drawn at the same resolution up to where it stopped. The t0 row stays alone. Columns of `v`:
 * integration error, |g|, |G M^-1 p|, energy error. */
#define RUN_PLOT_ROWS 2000
#define RUN_PLOT_NV 4
typedef struct {
  double t0, w; /* w: interval width, 0 while every record is a row */
  long n;       /* rows in use */
  double *t, *v[RUN_PLOT_NV];
  int has_reference;
} run_plot;

static int run_plot_alloc(run_plot *rp) {
  memset(rp, 0, sizeof *rp);
  rp->t = calloc((RUN_PLOT_NV + 1) * (size_t)RUN_PLOT_ROWS, sizeof(double));
  for (int k = 0; rp->t && k < RUN_PLOT_NV; k++) {
    rp->v[k] = rp->t + (size_t)(k + 1) * RUN_PLOT_ROWS;
  }
  return rp->t ? 0 : -1;
}

static double run_plot_bin(const run_plot *rp, double t) {
  return floor((t - rp->t0) / rp->w);
}

/* Row i takes the values x at time t: the largest of each; a non-finite value (a blow-up) is
 * kept, it is where the run failed. */
static void run_plot_merge(run_plot *rp, long i, double t, const double *x) {
  rp->t[i] = t;
  for (int k = 0; k < RUN_PLOT_NV; k++) {
    double a = rp->v[k][i];
    rp->v[k][i] = !isfinite(a) ? a : !isfinite(x[k]) ? x[k] : fmax(a, x[k]);
  }
}

/* Full: wider intervals, rows 1 .. n-1 merged by interval. */
static void run_plot_compact(run_plot *rp) {
  double span = rp->t[rp->n - 1] - rp->t0;
  rp->w = fmax(2 * rp->w, span / (RUN_PLOT_ROWS / 2));
  if (!(rp->w > 0) || !isfinite(rp->w)) { /* no time passed: the last row takes the rest */
    rp->w = INFINITY;
  }
  long j = 1;
  for (long i = 2; i < rp->n; i++) {
    double x[RUN_PLOT_NV];
    for (int k = 0; k < RUN_PLOT_NV; k++) {
      x[k] = rp->v[k][i];
    }
    if (run_plot_bin(rp, rp->t[i]) == run_plot_bin(rp, rp->t[j])) {
      run_plot_merge(rp, j, rp->t[i], x);
    } else {
      j++;
      rp->t[j] = rp->t[i];
      for (int k = 0; k < RUN_PLOT_NV; k++) {
        rp->v[k][j] = x[k];
      }
    }
  }
  rp->n = j + 1;
}

static void run_plot_add(run_plot *rp, const CHSRecord *rec) {
  double t = (double)rec->t;
  double x[RUN_PLOT_NV] = {rec->has_reference ? (double)rec->int_err : NAN, (double)rec->pos_res,
                           (double)rec->mom_res, (double)rec->energy_err};
  if (rp->n == 0) {
    rp->t0 = t;
    rp->has_reference = rec->has_reference;
  }
  if (rp->n == RUN_PLOT_ROWS) {
    run_plot_compact(rp);
  }
  if (rp->n > 1 && rp->w > 0 &&
      (isinf(rp->w) || run_plot_bin(rp, t) == run_plot_bin(rp, rp->t[rp->n - 1]))) {
    run_plot_merge(rp, rp->n - 1, t, x);
    return;
  }
  if (rp->n == RUN_PLOT_ROWS) { /* cannot happen after a compaction; kept as a guard */
    run_plot_merge(rp, rp->n - 1, t, x);
    return;
  }
  rp->t[rp->n] = t;
  for (int k = 0; k < RUN_PLOT_NV; k++) {
    rp->v[k][rp->n] = x[k];
  }
  rp->n++;
}

/* The final physical state (the last record's), then the CSV row when --out is given, the plot's
 * rows (--plot) and the progress. */
typedef struct {
  csv_writer *csv;
  int use_csv;
  sunindextype n;
  sunrealtype *q, *p;
  run_plot *plot; /* NULL: no --plot */
  progress *prog;
  out_table *records, *traj; /* --output with --json; --plot-vars (NULL: none) */
} run_monitor_ctx;

static int run_monitor(const CHSRecord *rec, void *ctx) {
  run_monitor_ctx *m = ctx;
  memcpy(m->q, rec->q, (size_t)m->n * sizeof *m->q);
  memcpy(m->p, rec->p, (size_t)m->n * sizeof *m->p);
  if (m->plot) {
    run_plot_add(m->plot, rec);
  }
  if ((m->records && out_table_add(m->records, rec) != 0) ||
      (m->traj && out_table_add(m->traj, rec) != 0)) {
    return CHS_ERR_MEM; /* the run stops here, naming the time */
  }
  progress_update(m->prog, (double)rec->t);
  return m->use_csv ? csv_monitor(rec, m->csv) : 0;
}

/* The plot's data file: "t err g psi energy", non-finite values as NaN (gnuplot's missing value).
 */
static int run_plot_data(FILE *fp, void *ctx) {
  const run_plot *rp = ctx;
  for (long i = 0; i < rp->n; i++) {
    if (fprintf(fp, "%.17g", rp->t[i]) < 0) {
      return -1;
    }
    for (int k = 0; k < RUN_PLOT_NV; k++) {
      double x = rp->v[k][i];
      if ((isfinite(x) ? fprintf(fp, " %.17g", x) : fprintf(fp, " NaN")) < 0) {
        return -1;
      }
    }
    if (fputc('\n', fp) == EOF) {
      return -1;
    }
  }
  return 0;
}

/* One panel of the run's plot: columns cols[0 .. nc) of the data (2 + index into v) against t.
 * Logarithmic y when the positive values span two decades or more (then values <= 0 are left
 * out, and a curve without a positive value is named in a label); linear otherwise. Appends the
 * gnuplot commands to script; 0 when the panel has no finite value (nothing appended). */
static int run_plot_panel(const run_plot *rp, char *script, size_t cap, const char *ylabel,
                          const int *cols, const char *const *names, const int *lts, int nc,
                          int bottom) {
  double lo = INFINITY, hi = 0, fmin_all = INFINITY, fmax_all = -INFINITY;
  int positive[RUN_PLOT_NV] = {0}, any = 0;
  for (int c = 0; c < nc; c++) {
    for (long i = 0; i < rp->n; i++) {
      double x = rp->v[cols[c]][i];
      if (isfinite(x)) {
        any = 1;
        fmin_all = fmin(fmin_all, x);
        fmax_all = fmax(fmax_all, x);
        if (x > 0) {
          positive[c] = 1;
          lo = fmin(lo, x);
          hi = fmax(hi, x);
        }
      }
    }
  }
  if (!any) {
    return 0;
  }
  int logy = hi > 0 && hi >= 100 * lo;
  long pi = rp->n / 12 > 1 ? rp->n / 12 : 1; /* about a dozen markers per curve */
  size_t len = strlen(script);
  len += (size_t)snprintf(
      script + len, cap - len, "unset label\n%s\nset ylabel '%s' noenhanced\n%s\n",
      logy ? "set logscale y\nset format y '10^{%L}'" : "unset logscale y\nset format y '%g'",
      ylabel, bottom ? "set xlabel 't'\nset format x '%g'" : "unset xlabel");
  if (!logy && fmax_all == fmin_all) { /* a constant: a range around it, not an empty one */
    len += (size_t)snprintf(script + len, cap - len, "set yrange [%.17g:%.17g]\n", fmin_all - 1,
                            fmax_all + 1);
  } else {
    len += (size_t)snprintf(script + len, cap - len, "set yrange [*:*]\n");
  }
  int nplotted = 0, nlabel = 0;
  char plot[2048] = "plot ";
  size_t pl = strlen(plot);
  for (int c = 0; c < nc; c++) {
    if (logy && !positive[c]) {
      len += (size_t)snprintf(script + len, cap - len,
                              "set label %d '%s: no positive value (0 throughout)' at graph 0.02, "
                              "graph %.2f noenhanced\n",
                              nlabel + 1, names[c], 0.9 - 0.1 * nlabel);
      nlabel++;
      continue;
    }
    char use[64]; /* on a log axis only the positive values */
    int k = cols[c] + 2;
    if (logy) {
      snprintf(use, sizeof use, "($%d > 0 ? $%d : NaN)", k, k);
    } else {
      snprintf(use, sizeof use, "%d", k);
    }
    pl += (size_t)snprintf(plot + pl, sizeof plot - pl, "%sDATA u 1:%s w lp lt %d pi %ld t '%s'",
                           nplotted ? ", " : "", use, lts[c], pi, names[c]);
    nplotted++;
  }
  len += (size_t)snprintf(script + len, cap - len, "%s%s\n",
                          nc > 1 ? "set key horizontal tmargin\n" : "unset key\n", plot);
  return 1;
}

/* The title of a run's plots (escaped for gnuplot by plot_label): the problem, formulation,
 * method, step control and t_f. */
static void run_plot_title(const cli_options *o, const cli_result *res, char *title, size_t len) {
  char head[1024], ctl[128];
  if (o->have_h) {
    snprintf(ctl, sizeof ctl, "h = %g", o->h);
  } else {
    snprintf(ctl, sizeof ctl, "rtol = %g, atol = %g", o->rtol, o->atol);
  }
  snprintf(head, sizeof head, "chs run: %s, %s, %s, %s, t_f = %g%s", res->problem, res->formulation,
           res->method, ctl, o->tf, res->rc != 0 ? " (failed: shown up to the failure)" : "");
  plot_label(title, len, head);
}

/* --plot FILE: stacked panels against t (as Assimulo's plot()): the integration error when the
 * problem has a reference solution, the constraint residuals, the energy error; the title names
 * the problem, formulation, method, step control and t_f. 0, or CHS_EXIT_NUMERIC (message). */
static int run_plot_draw(const cli_options *o, const cli_result *res, run_plot *rp) {
  const CHSDiagnosticsSummary *d = &res->sum.diag;
  char title[1024], energy[160];
  run_plot_title(o, res, title, sizeof title);
  snprintf(energy, sizeof energy, "%s%s",
           d->energy_is_balance ? "energy-balance error"
           : d->energy0 != 0    ? "|H - H(0)| / |H(0)|"
                                : "|H - H(0)| (absolute: H(0) = 0)",
           d->energy_invariant || d->energy_is_balance ? "" : " (H not conserved)");
  size_t cap = 16384;
  char *script = malloc(cap);
  if (!script) {
    fprintf(stderr, "chs: out of memory plotting %s\n", o->plot);
    return CHS_EXIT_NUMERIC;
  }
  int npanels = rp->has_reference ? 3 : 2;
  snprintf(script, cap,
           "set multiplot layout %d,1 title '%s' noenhanced\nset autoscale xfix\n"
           "set lmargin 12\nset rmargin 3\n",
           npanels, title);
  static const int c_err[] = {0}, c_res[] = {1, 2}, c_en[] = {3};
  static const int l_err[] = {1}, l_res[] = {2, 3}, l_en[] = {4};
  static const char *const n_err[] = {"|(q,p) - reference|_2"};
  static const char *const n_res[] = {"|g(q)|_2 (position)", "|G M^-1 p|_2 (momentum)"};
  const char *n_en[] = {energy};
  if (rp->has_reference) {
    run_plot_panel(rp, script, cap, "integration error |(q,p) - ref|_2", c_err, n_err, l_err, 1, 0);
  }
  run_plot_panel(rp, script, cap, "constraint residuals", c_res, n_res, l_res, 2, 0);
  run_plot_panel(rp, script, cap, energy, c_en, n_en, l_en, 1, 1);
  size_t len = strlen(script);
  snprintf(script + len, cap - len, "unset multiplot\n");
  int rc = 0;
  if (strlen(script) + 1 >= cap) {
    fprintf(stderr, "chs: plot script too long for %s\n", o->plot);
    rc = -1;
  } else {
    rc = plot_run_file(o->plot, 900, 300 * npanels + 60, run_plot_data, rp, script);
  }
  free(script);
  return rc == 0 ? 0 : CHS_EXIT_NUMERIC;
}

/* --plot-vars: the columns to draw, resolved against every output column of the problem (`all`
 * bound to it): against t (pairs 0: cols = t, y1, y2, ...) or as pairs X:Y (cols = x1, y1, x2,
 * y2, ...). 0, or CHS_EXIT_USAGE after a message naming the unknown name and the kinds of names. */
#define TRAJ_MAX_VARS 16
typedef struct {
  int pairs;
  long ncols, cols[2 * TRAJ_MAX_VARS];
} run_traj;

static int traj_name_error(const char *what, const char *name, size_t len) {
  char item[128];
  snprintf(item, sizeof item, "%.*s", (int)(len < 100 ? len : 100), name);
  fprintf(stderr, "chs: --plot-vars: %s '", what);
  cli_fputs_safe(stderr, item);
  fprintf(stderr, "'; the names are the output columns (docs/cli.md \"Output columns\"): t, the "
                  "coordinates' names (or q1 ...), p_NAME, v_NAME, R_NAME, lambda_CONSTRAINT (or "
                  "p1, v1, R1, lambda1 ...), energy, energy_err, pos_res, mom_res, int_err\n");
  return CHS_EXIT_USAGE;
}

static int traj_lookup(const out_select *all, const char *s, size_t len, long *col) {
  char name[OUT_NAME_LEN];
  if (len == 0 || len >= sizeof name) {
    return traj_name_error(len ? "unknown name" : "empty name in", s, len);
  }
  memcpy(name, s, len);
  name[len] = '\0';
  *col = out_select_find(all, name);
  return *col < 0 ? traj_name_error("unknown name", s, len) : 0;
}

static int run_traj_parse(const char *spec, const out_select *all, run_traj *tr) {
  memset(tr, 0, sizeof *tr);
  tr->pairs = strchr(spec, ':') != NULL;
  if (!tr->pairs) {
    tr->cols[tr->ncols++] = out_select_find(all, "t");
  }
  int nvars = 0;
  for (const char *s = spec;;) {
    const char *e = strchr(s, ',');
    size_t len = e ? (size_t)(e - s) : strlen(s);
    if (++nvars > TRAJ_MAX_VARS) {
      return cli_usage_error("--plot-vars: more than %d curves", TRAJ_MAX_VARS);
    }
    const char *colon = memchr(s, ':', len);
    if (tr->pairs && !colon) {
      return traj_name_error("give every curve as X:Y, or none (against t), not", s, len);
    }
    int rc = tr->pairs ? traj_lookup(all, s, (size_t)(colon - s), &tr->cols[tr->ncols])
                       : traj_lookup(all, s, len, &tr->cols[tr->ncols]);
    if (rc == 0 && tr->pairs) {
      tr->ncols++;
      const char *y = colon + 1;
      if (memchr(y, ':', len - (size_t)(y - s))) {
        return traj_name_error("one X:Y per curve, not", s, len);
      }
      rc = traj_lookup(all, y, len - (size_t)(y - s), &tr->cols[tr->ncols]);
    }
    if (rc != 0) {
      return rc;
    }
    tr->ncols++;
    if (!e) {
      return 0;
    }
    s = e + 1;
  }
}

/* The data file of --plot-vars: the table's rows (at most TRAJ_MAX_ROWS of them, evenly spaced,
 * the last always), non-finite values as NaN. */
#define TRAJ_MAX_ROWS 20000
static int run_traj_data(FILE *fp, void *ctx) {
  const out_table *tb = ctx;
  long stride = tb->nrows > TRAJ_MAX_ROWS ? (tb->nrows + TRAJ_MAX_ROWS - 1) / TRAJ_MAX_ROWS : 1;
  for (long r = 0; r < tb->nrows; r += stride) {
    if (r + stride >= tb->nrows) {
      r = tb->nrows - 1;
    }
    for (long c = 0; c < tb->ncols; c++) {
      double x = tb->x[(size_t)r * (size_t)tb->ncols + (size_t)c];
      if ((isfinite(x) ? fprintf(fp, "%s%.17g", c ? " " : "", x)
                       : fprintf(fp, "%sNaN", c ? " " : "")) < 0) {
        return -1;
      }
    }
    if (fputc('\n', fp) == EOF) {
      return -1;
    }
  }
  return 0;
}

/* --plot FILE --plot-vars ...: the chosen columns against t (or Y against X) in one panel, titled
 * with the run, the axes labelled, a legend of the column names. Every name enters the script
 * through plot_label. 0, or CHS_EXIT_NUMERIC (message). */
static int run_traj_draw(const cli_options *o, const cli_result *res, const run_traj *tr,
                         const out_table *tb) {
  char title[1024], nx[OUT_NAME_LEN], ny[OUT_NAME_LEN], lx[64], ly[64];
  run_plot_title(o, res, title, sizeof title);
  long ncurves = tr->pairs ? tr->ncols / 2 : tr->ncols - 1;
  /* the x label: t, or X when every pair shares it; the y label: the one curve's name */
  int same_x = 1;
  for (long k = 1; tr->pairs && k < ncurves; k++) {
    same_x &= tr->cols[2 * k] == tr->cols[0];
  }
  out_select_column_name(tb->sel, tr->cols[0], nx, sizeof nx);
  plot_label(lx, sizeof lx, tr->pairs && !same_x ? "X" : nx);
  out_select_column_name(tb->sel, tr->cols[1], ny, sizeof ny);
  plot_label(ly, sizeof ly, ncurves == 1 ? ny : "value");
  size_t cap = 8192;
  char *script = malloc(cap);
  if (!script) {
    fprintf(stderr, "chs: out of memory plotting %s\n", o->plot);
    return CHS_EXIT_NUMERIC;
  }
  size_t len = (size_t)snprintf(script, cap,
                                "set termoption noenhanced\nset title '%s'\nset xlabel '%s'\n"
                                "set ylabel '%s'\nset key outside right top\nset grid\nplot ",
                                title, lx, ly);
  for (long k = 0; k < ncurves && len < cap; k++) {
    long xc = tr->pairs ? 2 * k : 0, yc = tr->pairs ? 2 * k + 1 : k + 1;
    char legend[2 * OUT_NAME_LEN + 8], safe[2 * OUT_NAME_LEN + 8];
    out_select_column_name(tb->sel, tr->cols[yc], ny, sizeof ny);
    out_select_column_name(tb->sel, tr->cols[xc], nx, sizeof nx);
    if (tr->pairs && !same_x) {
      snprintf(legend, sizeof legend, "%s (x: %s)", ny, nx);
    } else {
      snprintf(legend, sizeof legend, "%s", ny);
    }
    plot_label(safe, sizeof safe, legend);
    len += (size_t)snprintf(script + len, cap - len, "%sDATA u %ld:%ld w l lw 1.5 lt %ld t '%s'",
                            k ? ", " : "", xc + 1, yc + 1, k + 1, safe);
  }
  int rc = -1;
  if (len + 2 >= cap) {
    fprintf(stderr, "chs: plot script too long for %s\n", o->plot);
  } else {
    snprintf(script + len, cap - len, "\n");
    rc = plot_run_file(o->plot, 900, 600, run_traj_data, (void *)tb, script);
  }
  free(script);
  return rc == 0 ? 0 : CHS_EXIT_NUMERIC;
}

/* --wedge: the wedge product along the same method and step (a second integration, with the
 * method's tangent map, or 25 steps of the method per step for finite differences: chs/wedge.h).
 */
static int run_wedge(const cli_options *o, CHSProblem prob, cli_result *res) {
  SUNContext sun = NULL;
  if (chs_context_create(&sun) != 0) {
    res->err.code = CHS_ERR_MEM;
    snprintf(res->err.msg, sizeof res->err.msg, "cannot create a SUNContext");
    return CHS_ERR_MEM;
  }
  chs_context_silence(sun);
  CHSFormulation f = NULL;
  CHSWedgeSummary w;
  int rc = CHSFormulation_Create(o->formulation, prob, sun, &f, &res->err);
  if (rc == 0) {
    CHSRunOptions ro;
    cli_run_options(o, &ro);
    rc = CHSWedge_Run(f, &ro, NULL, NULL, &w, &res->err);
  }
  if (rc == 0) {
    res->has_wedge = 1;
    res->wedge_err_max = (double)w.err_max;
    res->wedge_rel_err_max = (double)w.rel_err_max;
    res->wedge_exact = w.exact_tangents;
  }
  CHSFormulation_Destroy(&f);
  SUNContext_Free(&sun);
  return rc;
}

int cmd_run(int argc, char **argv) {
  cli_options o;
  int rc = cli_parse(CLI_RUN, argc, argv, &o);
  if (rc != 0) {
    return rc == CLI_HELP_DONE ? CHS_EXIT_OK : rc;
  }
  if (o.problem && !cli_is_first_order(o.problem)) { /* auto by default (CHSRunProblem_Choose) */
    o.formulation = o.formulation ? o.formulation : "auto";
    o.method = o.method ? o.method : "auto";
  }
  if ((rc = cli_check_run_options(&o)) != 0) {
    return rc;
  }
  /* --output and --plot-vars: their keys checked before anything else is done */
  out_select sel;
  if ((rc = out_select_parse("--output", o.output ? o.output : OUT_DEFAULT_KEYS, &sel)) != 0) {
    return rc;
  }
  if (o.output && !o.out && !o.json) {
    return cli_usage_error("--output selects the columns of --out FILE.csv and of --json's "
                           "\"records\": give one of them");
  }
  if (o.plot_vars && !o.plot) {
    return cli_usage_error("--plot-vars chooses what --plot FILE.png draws: give --plot");
  }
  if (cli_is_first_order(o.problem) && (o.output || o.plot_vars)) {
    return cli_usage_error("%s: not available for first-order problem %s",
                           o.output ? "--output" : "--plot-vars", o.problem);
  }
  if (cli_mpi_size() > 0 && (o.output || o.plot_vars)) {
    return cli_usage_error("%s: not available under mpirun", o.output ? "--output" : "--plot-vars");
  }
  if (cli_is_first_order(o.problem) && o.plot) {
    return cli_usage_error("--plot: not available for first-order problem %s (use --out)",
                           o.problem);
  }
  if (cli_is_first_order(o.problem) && o.stop_at) {
    return cli_usage_error("--stop-at: first-order problem %s declares no events", o.problem);
  }
  if (cli_is_first_order(o.problem) && o.estimate_error) {
    return cli_usage_error("--estimate-error: not available for first-order problem %s", o.problem);
  }
  if (cli_is_first_order(o.problem) && o.fix) {
    return cli_usage_error("--fix: first-order problem %s has no velocities to hold", o.problem);
  }
  if (cli_is_first_order(o.problem)) {
    return cmd_run_first_order(&o);
  }
  if (!o.formulation) {
    fprintf(stderr, "chs: missing --formulation\n");
    return CHS_EXIT_USAGE;
  }
  if (o.estimate_error && o.have_h) {
    return cli_usage_error("--estimate-error needs an adaptive run (--rtol and --atol, not --h): "
                           "its companion runs at tol/100");
  }
  if (o.wedge && !o.have_h) {
    fprintf(stderr, "chs: --wedge needs a fixed step --h (the step map is linearised)\n");
    return CHS_EXIT_USAGE;
  }
  if (o.out && (rc = cli_check_output_file("--out", o.out)) != 0) {
    return rc;
  }
  if (o.plot && (rc = cli_check_output_file("--plot", o.plot)) != 0) {
    return rc;
  }
  if (o.plot && o.out && strcmp(o.plot, o.out) == 0) {
    return cli_usage_error("--plot and --out name the same file '%s'", o.plot);
  }
  if (o.fix && (o.wedge || cli_mpi_size() > 0)) {
    return cli_usage_error("--fix: not with %s", o.wedge ? "--wedge" : "mpirun");
  }
  if (cli_mpi_size() > 0 && o.estimate_error) {
    return cli_usage_error("--estimate-error: not available under mpirun");
  }
  if (cli_mpi_size() > 0 && (CHSRunAuto_Wanted(o.formulation) || CHSRunAuto_Wanted(o.method))) {
    return cli_usage_error("under mpirun give --formulation and --method (auto chooses by pilot "
                           "runs, which are not distributed)");
  }
  if (cli_mpi_size() > 0) { /* started by mpirun: the state distributed over the ranks */
    return cmd_run_mpi(&o);
  }
  /* the set-up: a failure frees what is made so far at `done` (every object starts empty) */
  CHSError err;
  CHSError_Clear(&err);
  CHSProblem prob = NULL;
  sunrealtype *final = NULL;
  out_select all;
  out_table records, trajtab;
  csv_writer csv;
  run_plot rp;
  memset(&all, 0, sizeof all);
  memset(&records, 0, sizeof records);
  memset(&trajtab, 0, sizeof trajtab);
  memset(&csv, 0, sizeof csv);
  memset(&rp, 0, sizeof rp);
  if (CHSProblem_Create(o.problem, &prob, &err) != 0 ||
      (o.fix && CHSProblem_Fix(prob, o.fix, &err) != 0)) {
    rc = cli_fail(&err);
    goto done;
  }
  CHSRunChoice choice;
  int use_auto = CHSRunAuto_Wanted(o.formulation) || CHSRunAuto_Wanted(o.method);
  if (use_auto && o.wedge) {
    rc = cli_usage_error("--wedge: give --formulation and --method (not auto)");
    goto done;
  }
  if (!CHSRunAuto_Wanted(o.formulation) && cli_check_formulation(o.formulation) != 0) {
    rc = CHS_EXIT_USAGE;
    goto done;
  }
  if (use_auto && cli_auto_choose(&o, prob, &choice, &err) != 0) {
    rc = cli_fail(&err);
    goto done;
  }
  if (use_auto) {
    o.formulation = choice.formulation;
    o.method = choice.method;
  }
  if (CHSProblem_CheckStopAt(prob, o.stop_at, &err) != 0) {
    rc = cli_fail(&err);
    goto done;
  }
  /* the output columns named after the problem; --plot-vars against every column there is */
  run_traj traj;
  out_select_parse("--output", "all", &all);
  if (out_select_bind(&sel, CHSProblem_GetDims(prob)) != 0 ||
      out_select_bind(&all, CHSProblem_GetDims(prob)) != 0) {
    rc = cli_out_of_memory();
    goto done;
  }
  if (o.plot_vars && (rc = run_traj_parse(o.plot_vars, &all, &traj)) != 0) {
    goto done;
  }
  o.multipliers = ((o.out || o.json) && out_select_needs_multipliers(&sel));
  for (long k = 0; o.plot_vars && k < traj.ncols; k++) {
    int kind;
    long idx;
    out_select_column(&all, traj.cols[k], &kind, &idx);
    o.multipliers |= kind == OUT_V || kind == OUT_LAMBDA || kind == OUT_REACTION;
  }
  /* the formulation and the method set up and checked at t = 0, no step: before any output file
   * is opened; --dry-run stops here */
  if ((rc = cli_check_setup(&o, o.formulation, prob, NULL)) != 0 || o.dry_run) {
    rc = rc != 0 ? rc : cli_dry_run_done(o.problem);
    goto done;
  }
  /* the final state and the event names outlive the problem (a plugin's memory) */
  sunindextype n = CHSProblem_GetDims(prob)->n;
  final = calloc(2 * (size_t)n, sizeof *final);
  char ev_names[CHS_MAX_EVENTS][128];
  int nev = CHSProblem_GetNumEvents(prob);
  for (int k = 0; k < nev && k < CHS_MAX_EVENTS; k++) {
    snprintf(ev_names[k], sizeof ev_names[k], "%s", CHSProblem_GetOps(prob)->event_names[k]);
  }
  if (!final || (o.output && o.json && out_table_init(&records, &sel, NULL, 0) != 0) ||
      (o.plot_vars && out_table_init(&trajtab, &all, traj.cols, traj.ncols) != 0)) {
    rc = cli_out_of_memory();
    goto done;
  }
  if (o.out && csv_open(&csv, o.out, &sel, &err) != 0) {
    rc = cli_fail(&err);
    goto done;
  }
  cli_result res;
  if (o.plot && run_plot_alloc(&rp) != 0) {
    csv_close(&csv, &err);
    rc = cli_out_of_memory();
    goto done;
  }
  progress prog;
  char label[300];
  snprintf(label, sizeof label, "chs run %s", o.problem);
  progress_start(&prog, o.quiet, 0, label, 0, o.tf);
  run_monitor_ctx mon = {&csv,
                         o.out != NULL,
                         n,
                         final,
                         final + n,
                         o.plot && !o.plot_vars ? &rp : NULL,
                         &prog,
                         o.output && o.json ? &records : NULL,
                         o.plot_vars ? &trajtab : NULL};
  cli_integrate_costed(&o, o.formulation, run_monitor, &mon, prob, &res);
  progress_end(&prog);
  if (use_auto) {
    res.has_auto = 1;
    snprintf(res.auto_why, sizeof res.auto_why, "%s", choice.why);
  }
  if (res.sum.diag.records > 0) {
    res.q_final = final;
    res.p_final = final + n;
    res.n_final = n;
  }
  for (int k = 0; k < nev && k < CHS_MAX_EVENTS; k++) {
    res.event_names[k] = ev_names[k];
  }
  CHSError cerr;
  CHSError_Clear(&cerr);
  int crc = 0;
  if (res.rc != 0 && res.sum.diag.records == 0) { /* failed before t0 (--strict): nothing kept */
    if (csv.out.fp) {
      out_file_abort(&csv.out);
    }
  } else {
    crc = csv_close(&csv, &cerr);
  }
  /* the summary's invariant names point into the problem (a plugin's memory): keep copies */
  char inv_names[CHS_MAX_INVARIANTS][128];
  for (int i = 0; i < res.sum.diag.n_invariants; i++) {
    snprintf(inv_names[i], sizeof inv_names[i], "%s", res.sum.diag.invariant_names[i]);
    res.sum.diag.invariant_names[i] = inv_names[i];
  }
  CHSProblem_Destroy(&prob);
  /* the run's warnings (chs/run.h "Warnings"), also before a failure */
  int nw = res.sum.n_warnings < CHS_RUN_MAX_WARNINGS ? res.sum.n_warnings : CHS_RUN_MAX_WARNINGS;
  for (int i = 0; i < nw; i++) {
    fprintf(stderr, "chs: warning: %s\n", res.sum.warnings[i]);
  }
  if (res.sum.n_warnings > nw) {
    fprintf(stderr, "chs: warning: %d more warnings not shown\n", res.sum.n_warnings - nw);
  }
  rc = CHS_EXIT_OK;
  int prc = 0; /* --plot: drawn also after a numerical failure, up to it */
  if (o.plot_vars && crc == 0 && trajtab.nrows > 0) {
    prc = run_traj_draw(&o, &res, &traj, &trajtab);
  } else if (o.plot_vars && crc == 0 && res.rc == 0) {
    fprintf(stderr, "chs: no record to plot: %s not written\n", o.plot);
    prc = CHS_EXIT_NUMERIC;
  } else if (o.plot_vars) {
    /* a failure before t0 names itself */
  } else if (o.plot && crc == 0 && rp.n > 0) {
    prc = run_plot_draw(&o, &res, &rp);
  } else if (o.plot && crc == 0 && res.rc == 0) { /* a failure before t0 names itself */
    fprintf(stderr, "chs: no record to plot: %s not written\n", o.plot);
    prc = CHS_EXIT_NUMERIC;
  }
  if (crc != 0) { /* the output failed (the run stopped there): that is the error to name */
    rc = cli_fail(&cerr);
  } else if (res.rc != 0) {
    if (o.out && res.sum.diag.records > 0) {
      fprintf(stderr, "chs: %s holds the output up to t = %g\n", o.out,
              (double)res.sum.diag.t_final);
    }
    if (o.plot && prc == 0) {
      fprintf(stderr, "chs: %s shows the run up to t = %g\n", o.plot, (double)res.sum.diag.t_final);
    }
    rc = cli_fail(&res.err);
  } else if (prc != 0) {
    rc = prc;
  } else if (o.wedge) {
    CHSProblem wprob = NULL;
    if (CHSProblem_Create(o.problem, &wprob, &err) != 0) {
      rc = cli_fail(&err);
    } else {
      int wrc = run_wedge(&o, wprob, &res);
      CHSProblem_Destroy(&wprob);
      if (wrc != 0) {
        rc = cli_fail(&res.err);
      }
    }
  }
  if (rc == CHS_EXIT_OK && o.estimate_error) {
    CHSError eerr;
    if (cli_estimate_error(&o, final, final + n, &res.est_error, res.est_companion,
                           sizeof res.est_companion, &eerr) != 0) {
      rc = cli_fail(&eerr);
    } else {
      res.has_estimate = 1;
    }
  }
  if (rc == CHS_EXIT_OK && o.json) {
    res.records = o.output ? &records : NULL;
    json_run_object(stdout, &res, "");
    printf("\n");
  } else if (rc == CHS_EXIT_OK) {
    print_summary(&res);
  }
done:
  free(rp.t);
  out_table_free(&records);
  out_table_free(&trajtab);
  out_select_free(&sel);
  out_select_free(&all);
  CHSProblem_Destroy(&prob);
  free(final);
  return rc;
}
