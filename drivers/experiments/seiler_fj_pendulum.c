/* seiler-fj-pendulum: seed 003 Sec. 6 (Seiler, Faddeev-Jackiw), Table 1: errors at t = 10 of
 * classical RK4 with h = 0.1, 0.05, 0.01 for the standard formulation ("Involution", (42)) and
 * the Faddeev-Jackiw system (43)-(44), pendulum from (x, y, px, py) = (0, -1, 2, 0).
 *
 * Conventions, found by matching the printed numbers (they agree to 2-3 digits this way):
 *   Delta_I  max-norm of (q, p)(h) - (q, p)(h/2) at t = 10 ("estimated by comparing with the
 *            results for half the step size"); we also give the max-norm error against the
 *            exact reference;
 *   Delta_E  |H - H0| (H0 = 1, so relative = absolute);
 *   Delta_p  |x^2 + y^2 - 1| = 2 |g| with chs' g = (x^2 + y^2 - 1)/2;
 *   Delta_v  |x px + y py| = |psi|. */
#include <string.h>
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

/* Table 1 of seed 003: [formulation][quantity I, E, p, v][h = 0.1, 0.05, 0.01]. */
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
  CHSProblem_Destroy(&prob);
  return rc;
}

const rep_experiment chs_experiment_seiler_fj_pendulum = {
    .name = "seiler-fj-pendulum",
    .source = "seed 003 Sec. 6, Table 1",
    .summary = "RK4 from (0, -1, 2, 0) to t = 10, h = 0.1, 0.05, 0.01: standard vs Faddeev-Jackiw",
    .run = seiler_fj_pendulum,
};
