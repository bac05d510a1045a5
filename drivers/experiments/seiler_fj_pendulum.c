/* seiler-fj-pendulum: [Seiler, Faddeev-Jackiw] Sec. 6 (Seiler, Faddeev-Jackiw), Table 1 and Figs.
 * 1-4 (the error curves, fj_trajectories below). Table 1: errors at t = 10 of classical RK4 with h
 * = 0.1, 0.05, 0.01 for the standard formulation ("Involution", (42)) and the Faddeev-Jackiw system
 * (43)-(44), pendulum from (x, y, px, py) = (0, -1, 2, 0).
 *
 * Conventions, found by matching the printed numbers (they agree to 2-3 digits this way):
 *   Delta_I  max-norm of (q, p)(h) - (q, p)(h/2) at t = 10 ("estimated by comparing with the
 *            results for half the step size"); we also give the max-norm error against the
 *            exact reference;
 *   Delta_E  |H - H0| (H0 = 1, so relative = absolute);
 *   Delta_p  |x^2 + y^2 - 1| = 2 |g| with chs' g = (x^2 + y^2 - 1)/2;
 *   Delta_v  |x px + y py| = |psi|. */
#include <stdlib.h>
#include <string.h>
#include <nvector/nvector_serial.h>
#include "../../src/compat.h"
#include "../reproduce.h"

typedef struct {
  double q[2], p[2], energy_err, pos_res, mom_res;
} final_state;

static int capture_final(const CHSRecord *rec, void *ctx) {
  final_state *s = ctx;
  memcpy(s->q, rec->q, sizeof s->q);
  memcpy(s->p, rec->p, sizeof s->p);
  s->energy_err = rec->energy_err;
  s->pos_res = rec->pos_res;
  s->mom_res = rec->mom_res;
  return 0;
}

static int rk4_to_10(CHSProblem prob, const char *f, double h, final_state *out, CHSError *err) {
  CHSRunOptions o = {.method = "erk:rk4", .ctl = {.h = h}, .tf = 10, .every = 1000000000L};
  return rep_run(prob, f, o, capture_final, out, NULL, err); /* outputs: t = 0 and 10 */
}

static double maxdiff(const final_state *a, const double *q, const double *p) {
  return fmax(fmax(fabs(a->q[0] - q[0]), fabs(a->q[1] - q[1])),
              fmax(fabs(a->p[0] - p[0]), fabs(a->p[1] - p[1])));
}

/* Table 1 of [Seiler, Faddeev-Jackiw]: [formulation][quantity I, E, p, v][h = 0.1, 0.05, 0.01]. */
static const double table1[2][4][3] = {{{0.21, 1.7e-2, 3.2e-5},
                                        {2.5e-4, 1.8e-5, 2.9e-8},
                                        {7.3e-4, 4.9e-5, 8.2e-8},
                                        {3.9e-5, 2.6e-6, 4.4e-9}},
                                       {{5.5e-2, 1.4e-3, 4.1e-7},
                                        {2.4e-5, 6.2e-7, 1.3e-7},
                                        {6.7e-6, 2.1e-7, 6.8e-11},
                                        {4.6e-6, 4.3e-7, 8.5e-10}}};

/* An independent check of the standard formulation: classical RK4 written out for the pendulum
 * H = |p|^2/2 + y, g = (x^2 + y^2 - 1)/2, q' = p, p' = (0, -1) - lambda q with
 * lambda = (|p|^2 - y) / (x^2 + y^2); |H(10) - H(0)| from (0, -1, 2, 0) with n steps of h. */
static void plain_rhs(const double *z, double *d) {
  double lam = (z[2] * z[2] + z[3] * z[3] - z[1]) / (z[0] * z[0] + z[1] * z[1]);
  d[0] = z[2];
  d[1] = z[3];
  d[2] = -lam * z[0];
  d[3] = -1 - lam * z[1];
}

static double plain_rk4_energy_err(double h, long n) {
  double z[4] = {0, -1, 2, 0}, k[4][4], y[4];
  const double H0 = 0.5 * (z[2] * z[2] + z[3] * z[3]) + z[1];
  for (long s = 0; s < n; s++) {
    plain_rhs(z, k[0]);
    for (int j = 1; j < 4; j++) {
      for (int i = 0; i < 4; i++) {
        y[i] = z[i] + (j == 3 ? h : h / 2) * k[j - 1][i];
      }
      plain_rhs(y, k[j]);
    }
    for (int i = 0; i < 4; i++) {
      z[i] += h / 6 * (k[0][i] + 2 * k[1][i] + 2 * k[2][i] + k[3][i]);
    }
  }
  return fabs(0.5 * (z[2] * z[2] + z[3] * z[3]) + z[1] - H0);
}

/* ---- Figs. 1-4 and the claims of Sec. 6 on the trajectories (RK4, h and h/2, on [0, FJ_TF]).
 * "Periods": the solution from (0, -1, 2, 0) has H = 1, the energy of the upright position: it is
 * the separatrix, which creeps up to the top and has no period; the only period the problem has
 * is that of the small oscillations, T = 2 pi (g = l = 1), and we read "periods" so (the paper's
 * breakdown times then agree with its Table 1, see the note). */
#define FJ_TF 30.0
#define FJ_T (2 * 3.14159265358979323846)
#define FJ_NF 2

typedef struct {
  long n, cap;
  double *t, *z, *e; /* time, (x, y, px, py), |H - H0| per record */
} fj_traj;

static int fj_traj_monitor(const CHSRecord *rec, void *ctx) {
  fj_traj *a = ctx;
  double **c[3] = {&a->t, &a->z, &a->e};
  if (rep_columns_room(c, (const int[3]){1, 4, 1}, 3, a->n, &a->cap) != 0) {
    return CHS_ERR_MEM;
  }
  a->t[a->n] = rec->t;
  a->z[4 * a->n] = rec->q[0];
  a->z[4 * a->n + 1] = rec->q[1];
  a->z[4 * a->n + 2] = rec->p[0];
  a->z[4 * a->n + 3] = rec->p[1];
  a->e[a->n] = rec->energy_err;
  a->n++;
  return 0;
}

static void fj_traj_free(fj_traj *a) {
  free(a->t);
  free(a->z);
  free(a->e);
  memset(a, 0, sizeof *a);
}

/* The error measures of one formulation at one h on the grid t = k * 0.1 (every out-th step of h,
 * every 2 out-th of h/2): Delta_I (max-norm against the h/2 run, the paper's estimate), Delta_E,
 * the signed residuals x^2 + y^2 - 1 and x px + y py, and the size of the values |z|_max. */
typedef struct {
  long n;
  double *t, *dI, *dE, *gp, *gv, *zmax, *abs_gp, *abs_gv;
  double t_break;  /* first t with Delta_I >= |z|_max: the error as large as the values */
  double t_break1; /* first t with Delta_I >= |z|_max / sqrt(10): a looser reading */
  double t_end;    /* where the h run stopped (FJ_TF when it completed) */
} fj_meas;

static void fj_meas_free(fj_meas *m) {
  free(m->t); /* one block */
  memset(m, 0, sizeof *m);
}

static int fj_measure(CHSProblem prob, const char *form, double h, long out, fj_meas *m,
                      CHSError *err) {
  fj_traj a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  memset(m, 0, sizeof *m);
  CHSRunOptions o = {.method = "erk:rk4", .ctl = {.h = h}, .tf = FJ_TF, .every = out};
  CHSError run_err; /* a run that fails keeps its records up to the failure: reported */
  rep_run(prob, form, o, fj_traj_monitor, &a, NULL, &run_err);
  o.ctl.h = h / 2;
  o.every = 2 * out;
  rep_run(prob, form, o, fj_traj_monitor, &b, NULL, &run_err);
  long n = a.n < b.n ? a.n : b.n;
  m->t = malloc(8 * (size_t)(n > 0 ? n : 1) * sizeof *m->t);
  if (!m->t) {
    fj_traj_free(&a);
    fj_traj_free(&b);
    return cli_error(err, CHS_ERR_MEM, "seiler-fj-pendulum: out of memory");
  }
  double **cols[7] = {&m->dI, &m->dE, &m->gp, &m->gv, &m->zmax, &m->abs_gp, &m->abs_gv};
  for (int c = 0; c < 7; c++) {
    *cols[c] = m->t + (size_t)(c + 1) * (size_t)(n > 0 ? n : 1);
  }
  m->t_break = m->t_break1 = NAN;
  m->t_end = a.n ? a.t[a.n - 1] : 0;
  for (long i = 0; i < n && fabs(a.t[i] - b.t[i]) < 1e-9; i++) {
    const double *za = a.z + 4 * i, *zb = b.z + 4 * i;
    double d = 0, zm = 0;
    for (int c = 0; c < 4; c++) {
      d = fmax(d, fabs(za[c] - zb[c]));
      zm = fmax(zm, fabs(za[c]));
    }
    m->t[i] = a.t[i];
    m->dI[i] = d;
    m->dE[i] = a.e[i];
    m->gp[i] = za[0] * za[0] + za[1] * za[1] - 1;
    m->gv[i] = za[0] * za[2] + za[1] * za[3];
    m->abs_gp[i] = fabs(m->gp[i]);
    m->abs_gv[i] = fabs(m->gv[i]);
    m->zmax[i] = zm;
    if (isnan(m->t_break) && d >= zm) {
      m->t_break = a.t[i];
    }
    if (isnan(m->t_break1) && d >= zm / sqrt(10.0)) {
      m->t_break1 = a.t[i];
    }
    m->n = i + 1;
  }
  if (isnan(m->t_break) && m->t_end < FJ_TF - 1e-9) {
    m->t_break = m->t_end; /* the run itself failed first */
  }
  fj_traj_free(&a);
  fj_traj_free(&b);
  return 0;
}

/* Least-squares slope of log|e| against log t over lo <= t <= hi. */
static double fj_slope(const fj_meas *m, const double *e, double lo, double hi) {
  rep_series s = {.n = m->n, .t = m->t};
  return rep_growth_exponent(&s, e, lo, hi);
}

/* Sign changes of v over lo <= t <= hi (zeros skipped), and the last time one happened (or
 * NAN); *last_sign the sign at the end of the window. */
static long fj_sign_changes(const fj_meas *m, const double *v, double lo, double hi, double *t_last,
                            int *last_sign) {
  long k = 0;
  int sg = 0;
  *t_last = NAN;
  for (long i = 0; i < m->n; i++) {
    if (m->t[i] < lo - 1e-9 || m->t[i] > hi + 1e-9 || v[i] == 0) {
      continue;
    }
    int s = v[i] > 0 ? 1 : -1;
    if (sg && s != sg) {
      k++;
      *t_last = m->t[i];
    }
    sg = s;
  }
  *last_sign = sg;
  return k;
}

static double fj_max_between(const fj_meas *m, const double *e, double lo, double hi) {
  return rep_max_over(m->t, e, m->n, lo - 1e-9, hi + 1e-9);
}

static int fj_trajectories(CHSProblem prob, rep_report *r, CHSError *err) {
  const char *forms[FJ_NF] = {"standard", "fj"}, *tag[FJ_NF] = {"inv (standard)", "fj"};
  fj_meas m1[FJ_NF], m01[FJ_NF]; /* h = 0.1 and h = 0.01, grid 0.1 */
  memset(m1, 0, sizeof m1);
  memset(m01, 0, sizeof m01);
  int rc = 0;
  for (int f = 0; f < FJ_NF && rc == 0; f++) {
    rc = fj_measure(prob, forms[f], 0.1, 1, &m1[f], err);
    if (rc == 0) {
      rc = fj_measure(prob, forms[f], 0.01, 10, &m01[f], err);
    }
  }
  if (rc == 0) {
    double p1[FJ_NF], p01[FJ_NF];
    for (int f = 0; f < FJ_NF; f++) {
      p1[f] = m1[f].t_break / FJ_T;
      p01[f] = m01[f].t_break / FJ_T;
      rep_row_add(r, NAN, m1[f].t_break, "h = 0.1: break-down time (Delta_I >= |z|_max), %s",
                  tag[f]);
      rep_row_add(r, 2, p1[f], "h = 0.1: break-down after periods (T = 2 pi), %s", tag[f]);
      rep_row_add(r, NAN, m01[f].t_break, "h = 0.01: break-down time, %s", tag[f]);
      rep_row_add(r, f ? 4 : 3, p01[f], "h = 0.01: break-down after periods (T = 2 pi), %s",
                  tag[f]);
      rep_row_add(r, NAN, m1[f].t_break1 / FJ_T,
                  "h = 0.1: periods until Delta_I >= |z|_max / sqrt(10) (looser reading), %s",
                  tag[f]);
      rep_row_add(r, NAN, m01[f].t_break1 / FJ_T,
                  "h = 0.01: periods until Delta_I >= |z|_max / sqrt(10) (looser reading), %s",
                  tag[f]);
    }
    rep_claim_add(r, rep_about(p1[0], 2, 1) && rep_about(p1[1], 2, 1),
                  "h = 0.1: after about two periods the integration breaks down (the error "
                  "estimated against h/2 of the same magnitude as the values)",
                  "Delta_I first >= |z|_max at t = %.3g (standard), %.3g (fj): %.2f and %.2f "
                  "periods of 2 pi (about two: [1.5, 2.5]); Delta_I >= |z|_max / sqrt(10): %.2f, "
                  "%.2f",
                  m1[0].t_break, m1[1].t_break, p1[0], p1[1], m1[0].t_break1 / FJ_T,
                  m1[1].t_break1 / FJ_T);
    /* "possible to integrate both formulations over three periods; (43) even over four" */
    int three = p01[0] >= 3 && p01[0] < 4 && p01[1] >= 4;
    rep_claim_add(r, three,
                  "h = 0.01: both formulations can be integrated over three periods, the "
                  "Faddeev-Jackiw system (43) even over four",
                  "Delta_I >= |z|_max at t = %.3g (standard, %.2f periods), %.3g (fj, %.2f "
                  "periods); holds when standard in [3, 4) and fj >= 4; with Delta_I >= |z|_max / "
                  "sqrt(10): %.2f, %.2f",
                  m01[0].t_break, p01[0], m01[1].t_break, p01[1], m01[0].t_break1 / FJ_T,
                  m01[1].t_break1 / FJ_T);
    /* Delta_p ~ t^1.4 for the standard formulation, on the paper's window: Fig. 3, h = 0.1, up
     * to the break-down, from t = 1 (the residual starts at 0) */
    double tb = fmin(m1[0].t_break, m1[1].t_break);
    /* the paper's window: its figure, RK4 h = 0.1 over "approximately three periods", every
     * record with t > 0 (the residual is 0 at t = 0); narrower windows as rows */
    double ex_s = fj_slope(&m1[0], m1[0].abs_gp, 0.05, 3 * FJ_T),
           ex_s1 = fj_slope(&m1[0], m1[0].abs_gp, 1, 3 * FJ_T),
           ex_sb = fj_slope(&m1[0], m1[0].abs_gp, 1, tb),
           ex_f = fj_slope(&m1[1], m1[1].abs_gp, 1, tb);
    double ex_s01 = fj_slope(&m01[0], m01[0].abs_gp, 1, m01[0].t_break);
    rep_row_add(r, 1.4, ex_s,
                "h = 0.1: growth exponent of Delta_p on (0, 6 pi] (the figure), standard");
    rep_row_add(r, NAN, ex_s1, "h = 0.1: growth exponent of Delta_p on [1, 6 pi], standard");
    rep_row_add(r, NAN, ex_sb, "h = 0.1: growth exponent of Delta_p on [1, %.3g], standard", tb);
    rep_row_add(r, NAN, ex_f, "h = 0.1: growth exponent of Delta_p on [1, %.3g], fj", tb);
    rep_row_add(r, NAN, ex_s01, "h = 0.01: growth exponent of Delta_p on [1, %.3g], standard",
                m01[0].t_break);
    rep_claim_add(r, rep_about(ex_s, 1.4, 2),
                  "the standard formulation's position residual grows approximately like t^1.4 "
                  "(Fig. 3)",
                  "least-squares exponent of |x^2 + y^2 - 1| against t over the figure (h = 0.1, "
                  "t in (0, 6 pi]): %.3f (rounds to 1.4: [1.35, 1.45]); on [1, 6 pi] %.3f, on [1, "
                  "%.3g] (to the break-down) %.3f; h = 0.01 on [1, %.3g]: %.3f",
                  ex_s, ex_s1, tb, ex_sb, m01[0].t_break, ex_s01);
    double f_lo = fj_max_between(&m1[1], m1[1].abs_gp, 1, 2),
           f_hi = fj_max_between(&m1[1], m1[1].abs_gp, tb - 1, tb),
           s_lo = fj_max_between(&m1[0], m1[0].abs_gp, 1, 2),
           s_hi = fj_max_between(&m1[0], m1[0].abs_gp, tb - 1, tb);
    rep_row_add(r, NAN, f_hi / f_lo,
                "h = 0.1: max Delta_p on the last unit before break-down / on [1, 2], fj");
    rep_row_add(r, NAN, s_hi / s_lo,
                "h = 0.1: max Delta_p on the last unit before break-down / on [1, 2], standard");
    rep_claim_add(r, f_hi / f_lo < sqrt(10.0) && fabs(ex_f) < 0.5,
                  "the stabilised formulation's position residual remains almost constant until "
                  "the break-down (Fig. 3)",
                  "fj, h = 0.1: growth exponent %.2f on [1, %.3g] (rounds to 0); max |x^2 + y^2 - "
                  "1| on [%.3g, %.3g] / on [1, 2] = %.2f (under half an order of magnitude); "
                  "standard: %.3g",
                  ex_f, tb, tb - 1, tb, f_hi / f_lo, s_hi / s_lo);
    /* signs: standard keeps one sign after initial oscillations (within the first period),
     * drifting inwards (x^2 + y^2 < 1); fj oscillates around the manifold */
    double tl_gp, tl_gv, tl_fp, tl_fv, tl_dummy;
    int sg_gp, sg_gv, sg_fp, sg_fv, sg_dummy;
    long n_gp = fj_sign_changes(&m1[0], m1[0].gp, 0, tb, &tl_gp, &sg_gp);
    long n_gv = fj_sign_changes(&m1[0], m1[0].gv, 0, tb, &tl_gv, &sg_gv);
    long n_fp = fj_sign_changes(&m1[1], m1[1].gp, 0, tb, &tl_fp, &sg_fp);
    long n_fv = fj_sign_changes(&m1[1], m1[1].gv, 0, tb, &tl_fv, &sg_fv);
    long late_fp = fj_sign_changes(&m1[1], m1[1].gp, FJ_T, tb, &tl_dummy, &sg_dummy);
    long late_fv = fj_sign_changes(&m1[1], m1[1].gv, FJ_T, tb, &tl_dummy, &sg_dummy);
    long all_fp = fj_sign_changes(&m1[1], m1[1].gp, 0, FJ_TF, &tl_dummy, &sg_dummy);
    rep_row_add(r, NAN, (double)all_fp,
                "h = 0.1: sign changes of x^2 + y^2 - 1 on [0, 30] (past the break-down), fj");
    rep_row_add(r, NAN, (double)n_gp,
                "h = 0.1: sign changes of x^2 + y^2 - 1 on [0, %.3g], standard", tb);
    rep_row_add(r, NAN, isnan(tl_gp) ? 0 : tl_gp,
                "h = 0.1: last sign change of x^2 + y^2 - 1 (t), standard");
    rep_row_add(r, NAN, (double)n_gv, "h = 0.1: sign changes of x px + y py on [0, %.3g], standard",
                tb);
    rep_row_add(r, NAN, isnan(tl_gv) ? 0 : tl_gv,
                "h = 0.1: last sign change of x px + y py (t), standard");
    rep_row_add(r, NAN, (double)n_fp, "h = 0.1: sign changes of x^2 + y^2 - 1 on [0, %.3g], fj",
                tb);
    rep_row_add(r, NAN, (double)n_fv, "h = 0.1: sign changes of x px + y py on [0, %.3g], fj", tb);
    int same = (isnan(tl_gp) || tl_gp < FJ_T) && (isnan(tl_gv) || tl_gv < FJ_T);
    rep_claim_add(r, same,
                  "in the standard formulation the constraint residuals always have the same sign "
                  "after perhaps some initial oscillations",
                  "h = 0.1 on [0, %.3g]: x^2 + y^2 - 1 changes sign %ld times, the last at t = "
                  "%.3g; x px + y py %ld times, the last at t = %.3g (initial: within the first "
                  "period, 2 pi)",
                  tb, n_gp, isnan(tl_gp) ? 0 : tl_gp, n_gv, isnan(tl_gv) ? 0 : tl_gv);
    rep_claim_add(r, sg_gp < 0,
                  "usually one finds a drift to smaller and smaller values for the distance from "
                  "the origin (standard)",
                  "sign of x^2 + y^2 - 1 at the break-down (t = %.3g): %s", tb,
                  sg_gp < 0 ? "negative (inwards)" : "positive (outwards)");
    rep_claim_add(r, late_fp >= 2 && late_fv >= 2,
                  "in the stabilised formulation the trajectories oscillate around the constraint "
                  "manifold",
                  "fj, h = 0.1, after the first period [2 pi, %.3g]: x^2 + y^2 - 1 changes sign "
                  "%ld times, x px + y py %ld times (oscillating: at least twice each)",
                  tb, late_fp, late_fv);
    /* "although the difference in the integration error is not that large (about half a power
     * of ten), the physically relevant errors are one to two orders of magnitude smaller": the
     * vertical distance of the curves in Figs. 1-4, the mean of log10(inv / fj) over [1, tb]
     * (before either breaks down). Rounded to the nearest half power, the integration error's
     * must give 1/2 ([0.25, 0.75)) and each physical error's 1, 3/2 or 2 ([0.75, 2.25)). */
    double dist[4], at10[4];
    for (int c = 0; c < 4; c++) {
      const double *e0[4] = {m1[0].dI, m1[0].dE, m1[0].abs_gp, m1[0].abs_gv};
      const double *e1[4] = {m1[1].dI, m1[1].dE, m1[1].abs_gp, m1[1].abs_gv};
      double sum = 0;
      long k = 0;
      for (long i = 0; i < m1[0].n && i < m1[1].n; i++) {
        if (m1[0].t[i] >= 1 - 1e-9 && m1[0].t[i] <= tb + 1e-9 && e0[c][i] > 0 && e1[c][i] > 0) {
          sum += log10(e0[c][i] / e1[c][i]);
          k++;
        }
      }
      dist[c] = k ? sum / (double)k : NAN;
      at10[c] = NAN;
      for (long i = 0; i < m1[0].n && i < m1[1].n; i++) {
        if (fabs(m1[0].t[i] - 10) < 1e-9) {
          at10[c] = log10(e0[c][i] / e1[c][i]);
        }
      }
    }
    const char *dname[4] = {"Delta_I", "Delta_E", "Delta_p", "Delta_v"};
    for (int c = 0; c < 4; c++) {
      /* the paper's Table 1 at t = 10, h = 0.1 gives its own reading of the figures */
      rep_row_add(r, log10(table1[0][c][0] / table1[1][c][0]), dist[c],
                  "h = 0.1: mean log10(inv / fj) of %s on [1, %.3g] (paper: its Table 1 at t = 10)",
                  dname[c], tb);
    }
    int phys = 1;
    for (int c = 1; c < 4; c++) {
      phys = phys && dist[c] >= 0.75 && dist[c] < 2.25;
    }
    rep_claim_add(r, dist[0] >= 0.25 && dist[0] < 0.75,
                  "the integration errors differ by about half a power of ten (Fig. 1)",
                  "mean log10(inv / fj) of Delta_I on [1, %.3g]: %.2f (rounds to 1/2: [0.25, "
                  "0.75); the paper's Table 1 at t = 10: %.2f)",
                  tb, dist[0], log10(table1[0][0][0] / table1[1][0][0]));
    rep_claim_add(r, phys,
                  "the physically relevant errors (energy, position and velocity residual) are "
                  "one to two orders of magnitude smaller with fj (Figs. 2-4)",
                  "mean log10(inv / fj) on [1, %.3g]: Delta_E %.2f, Delta_p %.2f, Delta_v %.2f "
                  "(each in [0.75, 2.25): rounds to 1, 3/2 or 2); at t = 10 alone: ours %.2f, "
                  "%.2f, %.2f, the paper's Table 1 %.2f, %.2f, %.2f",
                  tb, dist[1], dist[2], dist[3], at10[1], at10[2], at10[3],
                  log10(table1[0][1][0] / table1[1][1][0]),
                  log10(table1[0][2][0] / table1[1][2][0]),
                  log10(table1[0][3][0] / table1[1][3][0]));
    if (r->plot_dir) {
      const char *file[4] = {"seiler-fj-pendulum-fig1", "seiler-fj-pendulum-fig2",
                             "seiler-fj-pendulum-fig3", "seiler-fj-pendulum-fig4"};
      const char *title[4] = {
          "[Seiler, Faddeev-Jackiw] Fig. 1: estimation of integration error (RK4, h = 0.1, vs h/2)",
          "[Seiler, Faddeev-Jackiw] Fig. 2: energy conservation (RK4, h = 0.1)",
          "[Seiler, Faddeev-Jackiw] Fig. 3: position constraint residual (RK4, h = 0.1)",
          "[Seiler, Faddeev-Jackiw] Fig. 4: velocity constraint residual (RK4, h = 0.1)"};
      const char *ylab[4] = {"Delta I: max-norm of z(h) - z(h/2)", "Delta E = |H - H0|",
                             "Delta p = |x^2 + y^2 - 1|", "Delta v = |x px + y py|"};
      const char *lab[2] = {"inv (standard)", "fj"};
      long n = m1[0].n < m1[1].n ? m1[0].n : m1[1].n;
      while (n > 0 && m1[0].t[n - 1] > 3 * FJ_T + 1e-9) {
        n--; /* the paper's three periods */
      }
      for (int k = 0; k < 4 && rc == 0; k++) {
        const double *ys[2];
        for (int f = 0; f < 2; f++) {
          const double *c[4] = {m1[f].dI, m1[f].dE, m1[f].abs_gp, m1[f].abs_gv};
          ys[f] = c[k];
        }
        if (rep_plot_curves(r->plot_dir, file[k], title[k], "t", ylab[k], 1, m1[0].t, ys, lab, 2,
                            n) != 0) {
          rc = cli_error(err, CHS_ERR_IO, "plotting into %.300s failed", r->plot_dir);
        }
      }
    }
  }
  for (int f = 0; f < FJ_NF; f++) {
    fj_meas_free(&m1[f]);
    fj_meas_free(&m01[f]);
  }
  return rc;
}

/* The footnote to Fig. 1: "Alishenas uses x = 1, y = 0, px = py = 0 and reports a cubic growth
 * [of the integration error]. But figure 1 shows an exponential growth for our initial values".
 * The same measurement as Fig. 1 (standard formulation, RK4 h = 0.1, Delta_I against h/2) from
 * Alishenas' start; the exponent is fitted on [1, 6 pi], the figure's window from t = 1 (the
 * error starts at 0). Against it, the paper's start: the least-squares slope of log Delta_I
 * against t (exponential) and against log t, on the same window. */
static int fj_alishenas(rep_report *r, CHSError *err) {
  CHSProblem pa = NULL, pb = NULL;
  if (CHSProblem_Create("pendulum:x=1,y=0,px=0,py=0", &pa, err) != 0 ||
      CHSProblem_Create("pendulum:x=0,y=-1,px=2,py=0", &pb, err) != 0) {
    CHSProblem_Destroy(&pa);
    return err->code;
  }
  fj_meas a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  int rc = fj_measure(pa, "standard", 0.1, 1, &a, err);
  if (rc == 0) {
    rc = fj_measure(pb, "standard", 0.1, 1, &b, err);
  }
  if (rc == 0) {
    double ea = fj_slope(&a, a.dI, 1, 3 * FJ_T), ea0 = fj_slope(&a, a.dI, 0.05, 3 * FJ_T),
           eb = fj_slope(&b, b.dI, 1, fmin(3 * FJ_T, b.t_break));
    /* slope of ln Delta_I against t (the exponential rate) over [1, min(6 pi, break-down)] */
    double sx = 0, sy = 0, sxx = 0, sxy = 0, hi = fmin(3 * FJ_T, b.t_break);
    long k = 0;
    for (long i = 0; i < b.n; i++) {
      if (b.t[i] >= 1 - 1e-9 && b.t[i] <= hi + 1e-9 && b.dI[i] > 0) {
        double x = b.t[i], y = log(b.dI[i]);
        sx += x, sy += y, sxx += x * x, sxy += x * y;
        k++;
      }
    }
    double rate = k > 2 ? (k * sxy - sx * sy) / (k * sxx - sx * sx) : NAN;
    rep_row_add(r, 3, ea,
                "Alishenas' start (1, 0, 0, 0), standard, RK4 h = 0.1: growth exponent of "
                "Delta_I on [1, 6 pi]");
    rep_row_add(r, NAN, ea0,
                "Alishenas' start (1, 0, 0, 0): growth exponent of Delta_I on (0, 6 pi]");
    rep_row_add(r, NAN, fj_slope(&a, a.dI, 1, FJ_TF),
                "Alishenas' start (1, 0, 0, 0): growth exponent of Delta_I on [1, %g]", FJ_TF);
    rep_row_add(r, NAN, a.dI[a.n - 1], "Alishenas' start (1, 0, 0, 0): Delta_I at t = %.3g",
                a.t[a.n - 1]);
    rep_row_add(r, NAN, eb, "paper's start (0, -1, 2, 0): growth exponent of Delta_I on [1, %.3g]",
                hi);
    rep_row_add(r, NAN, rate,
                "paper's start (0, -1, 2, 0): exponential rate of Delta_I on [1, %.3g] (slope of "
                "ln Delta_I against t)",
                hi);
    rep_claim_add(r, rep_about(ea, 3, 1),
                  "from Alishenas' start x = 1, y = 0, px = py = 0 the integration error grows "
                  "cubically (footnote to Fig. 1)",
                  "standard, RK4 h = 0.1, Delta_I against h/2: exponent %.2f on [1, 6 pi] (rounds "
                  "to 3: [2.5, 3.5)); on (0, 6 pi] %.2f. From the paper's start the exponent is "
                  "%.2f and ln Delta_I rises at %.2f per unit time",
                  ea, ea0, eb, rate);
  }
  fj_meas_free(&a);
  fj_meas_free(&b);
  CHSProblem_Destroy(&pa);
  CHSProblem_Destroy(&pb);
  return rc;
}

/* Sec. 5, (45): "the upper left 4 x 4 sub-matrix [of the structure matrix A^-1, rows and columns
 * px, py, x, y] does indeed contain the Dirac brackets of x, y, px, py". The Dirac brackets from
 * their definition, {F, G}* = {F, G} - {F, chi_a} (C^-1)_ab {chi_b, G} with chi = (phi, psi),
 * phi = (x^2 + y^2 - 1) / 2, psi = x px + y py, C_ab = {chi_a, chi_b}, at four points off and on
 * the manifold, against (45)'s block (entry (i, j) read as {z_j, z_i}*, the structure matrix's
 * convention); and the Dirac matrix applied to grad H against chs's Hamilton-Dirac field. */
static void dirac_matrix(const double *z, double B[16]) { /* z = (px, py, x, y) */
  static const double J[16] = {0, 0, -1, 0, 0, 0, 0, -1, 1, 0, 0, 0, 0, 1, 0, 0};
  double g[2][4] = {{0, 0, z[2], z[3]}, {z[2], z[3], z[0], z[1]}}, Jg[2][4], gJ[2][4], C[4];
  for (int a = 0; a < 2; a++) {
    for (int i = 0; i < 4; i++) {
      Jg[a][i] = gJ[a][i] = 0;
      for (int k = 0; k < 4; k++) {
        Jg[a][i] += J[4 * i + k] * g[a][k];
        gJ[a][i] += g[a][k] * J[4 * k + i];
      }
    }
  }
  for (int a = 0; a < 2; a++) {
    for (int b = 0; b < 2; b++) {
      C[2 * a + b] = 0;
      for (int i = 0; i < 4; i++) {
        C[2 * a + b] += g[a][i] * Jg[b][i];
      }
    }
  }
  double det = C[0] * C[3] - C[1] * C[2];
  double Ci[4] = {C[3] / det, -C[1] / det, -C[2] / det, C[0] / det};
  for (int i = 0; i < 4; i++) {
    for (int j = 0; j < 4; j++) {
      double s = J[4 * i + j];
      for (int a = 0; a < 2; a++) {
        for (int b = 0; b < 2; b++) {
          s -= Jg[a][i] * Ci[2 * a + b] * gJ[b][j];
        }
      }
      B[4 * i + j] = s;
    }
  }
}

static int fj_structure_matrix(CHSProblem prob, rep_report *r, CHSError *err) {
  static const double pts[4][4] = {
      {2, 0, 0, -1}, {0.3, -1.2, 0.8, 0.5}, {1, 2, 0.6, -0.9}, {-0.5, 0.4, 1.1, 0.2}};
  SUNContext ctx = NULL;
  CHSFormulation f = NULL;
  N_Vector y = NULL, fy = NULL;
  if (chs_context_create(&ctx) != 0) {
    err->code = CHS_ERR_MEM;
    snprintf(err->msg, sizeof err->msg, "cannot create a SUNContext");
    return err->code;
  }
  chs_context_silence(ctx);
  int rc = CHSFormulation_Create("dirac", prob, ctx, &f, err);
  if (rc == 0) {
    rc = CHSFormulation_NewInitialState(f, &y, err);
  }
  if (rc == 0 && (N_VGetLength(y) != 4 || !(fy = N_VClone(y)))) {
    rc = err->code = CHS_ERR_UNSUPPORTED;
    snprintf(err->msg, sizeof err->msg, "dirac: expected a state (x, y, px, py)");
  }
  double dev45 = 0, devf = 0;
  for (int k = 0; k < 4 && rc == 0; k++) {
    const double *z = pts[k];
    double B[16], x = z[2], yy = z[3], px = z[0], py = z[1], r2 = x * x + yy * yy;
    dirac_matrix(z, B);
    const double E[16] = {
        0,        x * py - yy * px, yy * yy, -x * yy, yy * px - x * py, 0,      -x * yy, x * x,
        -yy * yy, x * yy,           0,       0,       x * yy,           -x * x, 0,       0};
    for (int i = 0; i < 4; i++) {
      for (int j = 0; j < 4; j++) {
        dev45 = fmax(dev45, fabs(E[4 * i + j] / r2 - B[4 * j + i]));
      }
    }
    /* z' = B grad H, H = |p|^2 / 2 + y: grad H = (px, py, 0, 1) */
    double *a = N_VGetArrayPointer(y), *d;
    a[0] = x, a[1] = yy, a[2] = px, a[3] = py;
    rc = CHSFormulation_Rhs(0, y, fy, f);
    d = N_VGetArrayPointer(fy);
    const double gh[4] = {px, py, 0, 1};
    double zd[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; i++) {
      for (int j = 0; j < 4; j++) {
        zd[i] += B[4 * i + j] * gh[j];
      }
    }
    devf = fmax(devf, fmax(fmax(fabs(zd[0] - d[2]), fabs(zd[1] - d[3])),
                           fmax(fabs(zd[2] - d[0]), fabs(zd[3] - d[1]))));
  }
  if (fy) {
    N_VDestroy(fy);
  }
  if (y) {
    N_VDestroy(y);
  }
  CHSFormulation_Destroy(&f);
  SUNContext_Free(&ctx);
  if (rc != 0) {
    return rc;
  }
  rep_row_add(r, NAN, dev45,
              "(45): largest |(45)_ij - {z_j, z_i}*| over the 4 x 4 block (z = px, py, x, y) at 4 "
              "points");
  rep_row_add(r, NAN, devf,
              "(45): largest |{z, H}* - chs's dirac field| at the same points (H = |p|^2/2 + y)");
  rep_claim_add(
      r, dev45 <= 1e-12 && devf <= 1e-12,
      "(45): the upper left 4 x 4 block of the structure matrix contains the Dirac "
      "brackets of x, y, px, py",
      "largest difference from the Dirac brackets computed from their definition %.2g, "
      "and those brackets applied to grad H against chs's Hamilton-Dirac field %.2g (both "
      "at most 1e-12; 4 points, 3 off the constraint manifold)",
      dev45, devf);
  return 0;
}

static int seiler_fj_pendulum(rep_report *r, CHSError *err) {
  CHSProblem prob = NULL;
  if (CHSProblem_Create("pendulum:x=0,y=-1,px=2,py=0", &prob, err) != 0) {
    return err->code;
  }
  const char *forms[2] = {"standard", "fj"}, *labels[2] = {"Involution (standard)", "FJ (fj)"};
  const char *qn[4] = {"Delta_I (vs h/2)", "Delta_E", "Delta_p", "Delta_v"};
  const double hs[3] = {0.1, 0.05, 0.01};
  double ours[2][4][3], exact_err[2][3], qr[2], pr[2];
  int rc = CHSProblem_Reference(prob, 10, qr, pr) == 0 ? 0 : CHS_ERR_CALLBACK;
  for (int f = 0; f < 2 && rc == 0; f++) {
    for (int k = 0; k < 3 && rc == 0; k++) {
      final_state a, b;
      rc = rk4_to_10(prob, forms[f], hs[k], &a, err);
      if (rc == 0) {
        rc = rk4_to_10(prob, forms[f], hs[k] / 2, &b, err);
      }
      if (rc == 0) {
        ours[f][0][k] = maxdiff(&a, b.q, b.p);
        ours[f][1][k] = a.energy_err;
        ours[f][2][k] = 2 * a.pos_res;
        ours[f][3][k] = a.mom_res;
        exact_err[f][k] = maxdiff(&a, qr, pr);
      }
    }
  }
  if (rc == 0) {
    double worst = 0;
    int close = 0, compared = 0;
    char worst_what[96] = "";
    for (int f = 0; f < 2; f++) {
      for (int c = 0; c < 4; c++) {
        for (int k = 0; k < 3; k++) {
          rep_row_add(r, table1[f][c][k], ours[f][c][k], "%s, h = %g: %s", labels[f], hs[k], qn[c]);
          if (!(f == 1 && c == 1 && k == 2)) {
            double dev = fabs(ours[f][c][k] - table1[f][c][k]) / table1[f][c][k];
            compared++;
            close += dev <= 0.02;
            if (dev > worst) {
              worst = dev;
              snprintf(worst_what, sizeof worst_what, "%s %s at h = %g", labels[f], qn[c], hs[k]);
            }
          }
        }
      }
      for (int k = 0; k < 3; k++) {
        rep_row_add(r, NAN, exact_err[f][k], "%s, h = %g: max-norm error vs exact reference",
                    labels[f], hs[k]);
      }
    }
    double mis = ours[1][1][2] / table1[1][1][2];
    rep_claim_add(r, worst <= 0.05,
                  "Table 1 is reproduced within 5 % (the one misprint below excluded)",
                  "%d of %d entries within 2 %%; largest deviation %.1f %% (%s); FJ Delta_E at "
                  "h = 0.01: paper 1.3e-7, ours %.2g (ratio %.2g)",
                  close, compared, 100 * worst, worst_what, ours[1][1][2], mis);
    int stab = 1;
    for (int c = 1; c < 4; c++) {
      for (int k = 0; k < 3; k++) {
        stab = stab && ours[1][c][k] < ours[0][c][k];
      }
    }
    rep_claim_add(r, stab,
                  "the stabilising effect occurs at any step size (FJ's energy and constraint "
                  "errors below the standard formulation's)",
                  "Delta_p ratios standard/FJ at h = 0.1, 0.05, 0.01: %.3g, %.3g, %.3g",
                  ours[0][2][0] / ours[1][2][0], ours[0][2][1] / ours[1][2][1],
                  ours[0][2][2] / ours[1][2][2]);
    double gain = 0;
    for (int c = 0; c < 4; c++) {
      gain = fmax(gain, log10(ours[1][c][0] / ours[1][c][2]));
    }
    rep_claim_add(r, gain >= 4.5,
                  "FJ errors improve by up to five orders of magnitude from h = 0.1 to h = 0.01",
                  "largest improvement 10^%.2f", gain);
    rep_claim_add(r, fabs(ours[0][0][2] - exact_err[0][2]) <= 0.5 * exact_err[0][2],
                  "the h/2 comparison is a fair estimate of the integration error",
                  "standard h = 0.01: vs h/2 %.3g, vs exact %.3g; FJ: %.3g vs %.3g", ours[0][0][2],
                  exact_err[0][2], ours[1][0][2], exact_err[1][2]);
    double plain = plain_rk4_energy_err(0.1, 100);
    rep_row_add(r, 2.5e-4, plain,
                "standard, h = 0.1: Delta_E of an independent RK4 written out in this driver");
    rep_note(r,
             "FJ Delta_E at h = 0.01 is printed as 1.3e-7 in the paper, ours is %.2g: the same "
             "mantissa, and the paper's own trend (%.2g, %.2g, then RK4's factor 5^4 = 625 "
             "less) predicts %.2g, far below 1.3e-7 and above ours, so we read it as a misprint "
             "of 1.3e-10. The standard "
             "formulation's Delta_E at h = 0.1 (ours %.3g, paper 2.5e-4) is the largest other "
             "deviation; an independent RK4 of the same equations written out in this driver "
             "gives %.5g. The paper's own h = 0.1 / h = 0.05 ratios are %.3g for Delta_p and "
             "%.3g for Delta_v but %.3g for Delta_E (ours %.3g; RK4's 2^4 = 16): we suspect a "
             "misprint (2.8 -> 2.5) but cannot prove it. The (q, p) part of the FJ system is "
             "exactly the Hamilton-Dirac equations (formulations/fj.c).\n",
             ours[1][1][2], table1[1][1][0], table1[1][1][1], table1[1][1][1] / 625, ours[0][1][0],
             plain, table1[0][2][0] / table1[0][2][1], table1[0][3][0] / table1[0][3][1],
             table1[0][1][0] / table1[0][1][1], ours[0][1][0] / ours[0][1][1]);
  }
  if (rc == 0) {
    rc = fj_trajectories(prob, r, err);
  }
  if (rc == 0) {
    rc = fj_alishenas(r, err);
  }
  if (rc == 0) {
    rc = fj_structure_matrix(prob, r, err);
  }
  CHSProblem_Destroy(&prob);
  return rc;
}

const rep_experiment chs_experiment_seiler_fj_pendulum = {
    .name = "seiler-fj-pendulum",
    .source = "[Seiler, Faddeev-Jackiw] Sec. 5 (45), Sec. 6, Table 1, Figs. 1-4",
    .summary = "RK4 from (0, -1, 2, 0), h = 0.1, 0.05, 0.01: standard vs Faddeev-Jackiw, Table 1 "
               "at t = 10 and the error curves to t = 30 (break-down, t^1.4, signs)",
    .run = seiler_fj_pendulum,
};
