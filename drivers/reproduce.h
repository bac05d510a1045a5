/* `chs reproduce`: experiments of the papers, each one file in drivers/experiments/ listed once in
 * drivers/experiments/list.h. An experiment fills a report: rows (a quantity, the paper's value
 * when it prints one, ours) and claims whose `holds` is computed from the run. */
#ifndef CHS_REPRODUCE_H
#define CHS_REPRODUCE_H

#include <math.h>
#include "cli.h"

typedef struct {
  char quantity[160];
  double paper; /* NAN: the paper gives no number */
  double ours;
} rep_row;

typedef struct {
  char claim[240];
  int holds;
  char evidence[400];
} rep_claim;

typedef struct {
  rep_row *rows;
  int nrows, caprows;
  rep_claim *claims;
  int nclaims, capclaims;
  const char *plot_dir; /* NULL: no plots */
  char notes[2048];     /* where and why ours differ, printed under the table */
} rep_report;

typedef struct {
  const char *name;
  const char *source;
  const char *summary;
  int (*run)(rep_report *r, CHSError *err);
} rep_experiment;

void rep_row_add(rep_report *r, double paper, double ours, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void rep_claim_add(rep_report *r, int holds, const char *claim, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void rep_note(rep_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Return the code of a failed call (drivers do not see the library's private CHS_CALL). */
#define CHS_CALL_DRV(expr)                                                                         \
  do {                                                                                             \
    int chs_drv_rc_ = (expr);                                                                      \
    if (chs_drv_rc_ != 0) {                                                                        \
      return chs_drv_rc_;                                                                          \
    }                                                                                              \
  } while (0)

int rep_experiment_count(void);
const rep_experiment *rep_experiment_get(int i);

/* Time series of one run (every output time). */
typedef struct {
  long n, cap;
  double *t, *q2, *int_err, *energy_err, *pos_res, *mom_res;
} rep_series;
int rep_series_monitor(const CHSRecord *rec, void *ctx); /* CHSMonitorFn collecting records */
void rep_series_free(rep_series *s);
/* Least-squares slope of log e against log t over lo <= t <= hi (e > 0); NAN if < 3 points. */
double rep_growth_exponent(const rep_series *s, const double *e, double lo, double hi);
/* First output time with e > level, or NAN. */
double rep_first_exceeding(const rep_series *s, const double *e, double level);

/* The paper's words as thresholds, one definition for every experiment:
 *   "almost every step"        a fraction of the steps >= REP_ALMOST_EVERY (9 in 10);
 *   "about every k-th step"    steps per projection that round to k (rep_about(steps/n, k));
 *   "about X", "approximately X", "perhaps until X" with X printed to one significant digit:
 *                              ours rounds to X at that digit (rep_about). */
#define REP_ALMOST_EVERY 0.9
/* 1 when ours, rounded to the significant digits paper is printed with (ndigits), gives paper:
 * |ours - paper| <= half a unit of paper's last digit. */
int rep_about(double ours, double paper, int ndigits);

/* One run of formulation `form` on prob with the library's run options (opt->every 0 means 1),
 * in a SUNContext of its own; the monitor may be NULL. Returns the run's code (err set). */
int rep_run(CHSProblem prob, const char *form, CHSRunOptions opt, CHSMonitorFn monitor, void *ctx,
            CHSRunSummary *sum, CHSError *err);
/* rep_run that also counts the steps after which a projection (of either kind) was applied into
 * *proj_steps: the monitor runs after every step, `monitor` sees every opt.every-th record. */
int rep_run_counted(CHSProblem prob, const char *form, CHSRunOptions opt, CHSMonitorFn monitor,
                    void *ctx, CHSRunSummary *sum, long *proj_steps, CHSError *err);
/* An integrator stepped by hand (experiments that look at every step or start elsewhere than
 * the problem's initial state): a SUNContext, formulation `form` on prob, its state y and
 * `method` with the step control ctl, from t = 0 at the physical state (q0, p0) when q0 is
 * given, else at the formulation's state y0 (its own layout, ny values: the state's length)
 * when given, else at the problem's initial state. rep_stepper_close frees what rep_stepper_open
 * made (also after a failure). */
typedef struct {
  SUNContext ctx;
  CHSFormulation f;
  CHSIntegrator it;
  N_Vector y;
} rep_stepper;
int rep_stepper_open(rep_stepper *s, CHSProblem prob, const char *form, const char *method,
                     CHSStepControl ctl, const double *q0, const double *p0, const double *y0,
                     sunindextype ny, CHSError *err);
void rep_stepper_close(rep_stepper *s);
/* The same for the wedge product (CHSWedge_Run; monitor required). */
int rep_wedge(CHSProblem prob, const char *form, CHSRunOptions opt, CHSWedgeMonitorFn monitor,
              void *ctx, CHSWedgeSummary *sum, CHSError *err);

/* Final states: z[0] = n, z[1 .. n] = q(tf), z[n+1 .. 2n] = p(tf). rep_final_monitor is a
 * CHSMonitorFn keeping the last record in z. rep_reference_final fills z with the problem's
 * reference solution at tf or, without one, a dirac run of Verner 8(5,6) at rtol = atol = tol;
 * how (may be NULL) receives which. Returns 0 or the run's code (err set). */
int rep_final_monitor(const CHSRecord *rec, void *ctx);
int rep_reference_final(CHSProblem prob, double tf, double tol, double *z, char *how,
                        size_t how_len, CHSError *err);
/* That run without the problem's reference: a record every `every` steps to monitor(ctx), which
 * must keep the last one in z as rep_final_monitor does (the records change nothing else). */
int rep_reference_run(CHSProblem prob, double tf, double tol, long every, CHSMonitorFn monitor,
                      void *ctx, CHSError *err);

/* The reference final state z (layout of rep_final_monitor) for `chs workprec`: the problem's
 * reference solution, else a dirac + Verner 8(5,6) run at rtol = atol = tol with its error
 * estimated by a second run at 10 tol, cached on disk in cache_dir (NULL or "": no cache) under
 * the problem spec, tf, tol and the chs and SUNDIALS versions (drivers/refcache.c). */
typedef struct {
  char source[16];   /* "problem", "cached" or "computed" */
  char command[160]; /* what made it */
  char path[4096];   /* the cache file ("" when none) */
  char ignored[64];  /* why a cache entry present was not used ("" when none was) */
  char write_error[CHS_ERROR_MSG_LEN]; /* the computed entry could not be stored: why ("") */
  double est_error;                    /* estimated |z - exact|_2 (0 for the problem's reference) */
} rep_reference_info;
int rep_reference_cached(CHSProblem prob, const char *spec, double tf, double tol,
                         const char *cache_dir, int quiet, double *z, rep_reference_info *info,
                         CHSError *err);
/* $XDG_CACHE_HOME/chs/references or $HOME/.cache/chs/references into buf; NULL when neither. */
const char *rep_default_cache_dir(char *buf, size_t len);

/* Seconds per right-hand-side evaluation of the k (<= CLI_MAX_COSTS) formulations `names` at
 * prob's initial state, into cost: the best of several rounds of evals calls, the formulations
 * interleaved in every round; cost[i] < 0 when formulation i cannot be created or fails. Shared
 * with `chs bench rhs`. 0, or -1 (bad k, no SUNDIALS context). */
#define CLI_MAX_COSTS 32
int cli_rhs_costs(CHSProblem prob, const char *const *names, int k, long evals, double *cost);

/* Plots: writes DIR/NAME.dat (columns given) and DIR/NAME.png through gnuplot with `script`
 * (plot commands referring to the data file as '$DATA'). Returns 0, or -1 with a message. */
int rep_plot(const char *dir, const char *name, const char *header, const double *const *cols,
             int ncols, long nrows, const char *script);

/* One figure: curves ys[0 .. k) (k <= 8) against x, n points, titles and labels chs's own text
 * (no user input), logy: logarithmic y axis. rep_plot's return. */
int rep_plot_curves(const char *dir, const char *name, const char *title, const char *xlabel,
                    const char *ylabel, int logy, const double *x, const double *const *ys,
                    const char *const *labels, int k, long n);

#endif
