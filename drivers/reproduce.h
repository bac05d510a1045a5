/* `chs reproduce`: experiments of the papers, each one file in drivers/experiments/ listed once in
 * drivers/experiments/list.h. An experiment fills a report: rows (a quantity, the paper's value
 * when it prints one, ours) and claims whose `holds` is computed from the run. */
#ifndef CHS_REPRODUCE_H
#define CHS_REPRODUCE_H

#include <math.h>
#include "cli.h"
#include "bench.h"
#include "runlib.h"

typedef struct {
  char quantity[160];
  double paper; /* NAN: the paper gives no number */
  double ours;
} rep_row;

/* A claim the data cannot decide (a timing ratio whose confidence interval holds the claim's
 * bound): printed "undecided", JSON "holds": null. */
#define REP_UNDECIDED (-1)

typedef struct {
  char claim[240];
  int holds; /* 1, 0 or REP_UNDECIDED */
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

int rep_experiment_count(void);
const rep_experiment *rep_experiment_get(int i);

/* Time series of one run (every output time). */
typedef struct {
  long n, cap;
  double *t, *q2, *int_err, *energy_err, *pos_res, *mom_res;
} rep_series;
int rep_series_monitor(const CHSRecord *rec, void *ctx); /* CHSMonitorFn collecting records */
/* Room for row n of the k columns *cols[i] (a series a monitor collects), each width[i] doubles
 * a row (width NULL: 1) and *cap rows long: when n == *cap every column grows to twice the rows
 * (1024 at first). 0, or CHS_ERR_MEM (each column still valid, *cap unchanged). */
int rep_columns_room(double **const *cols, const int *width, int k, long n, long *cap);
void rep_series_free(rep_series *s);
/* A least-squares line y = a + b x through the points added one at a time (an exponent: add
 * (log x, log y)); rep_fit_slope: b, NAN with fewer than 3 points. */
typedef struct {
  double sx, sy, sxx, sxy;
  long n;
} rep_fit;
void rep_fit_add(rep_fit *f, double x, double y);
double rep_fit_slope(const rep_fit *f);
/* Least-squares slope of log e against log t over lo <= t <= hi (e > 0); NAN if < 3 points. */
double rep_growth_exponent(const rep_series *s, const double *e, double lo, double hi);
/* The largest e[i], at least 0, over the i < n with lo <= t[i] <= hi. */
double rep_max_over(const double *t, const double *e, long n, double lo, double hi);
/* The Cartesian pendulum's residual dynamics: A (row-major 2 x 2) of d/dt (g, psi) = A (g, psi)
 * to first order at the state z = (x, y, px, py) (unit mass) on the manifold, for
 * g = c (|q|^2 - 1) and psi = 2 c q^T p (A does not depend on c; c makes the residuals the
 * caller's). g, psi and their rates along f's field at z +- eps d for the normal directions
 * d1 = (q, 0) (moves g) and d2 = (0, q) (moves psi); A = N M^-1 from their central differences.
 * y, fy: vectors of f's state of length 4. 0, f's failure, or CHS_ERR_SINGULAR. */
int rep_pendulum_residual_matrix(CHSFormulation f, N_Vector y, N_Vector fy, const double *z,
                                 double c, double A[4]);
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
/* The verdict on "ratio <= bound" (below = 1) or "ratio > bound" (below = 0) from per-round
 * ratios (bench_ratios): 1 or 0 when the median's confidence interval lies on one side of bound,
 * REP_UNDECIDED when it holds it. */
int rep_ratio_verdict(const bench_range *g, double bound, int below);

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
