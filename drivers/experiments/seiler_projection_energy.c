/* seiler-projection-energy: [Seiler, stable] Sec. 7 (Seiler, stable underlying equations): "For an
 * integration method of order r, the (local) constraint residuals are of order O(h^{r+1}).
 * Thus we must expect in general that a projection changes the energy in this order. However,
 * a mass-orthogonal momentum projection changes the energy only in O(h^{2r+2})", because
 * Delta E ~ psi^T R^{-1} psi with R = G M^{-1} G^T and psi = O(h^{r+1}).
 *
 * What r is: the order of the integrator, so that one step from a point of the constraint
 * manifold leaves residuals of the local error's order h^{r+1}. For classical RK4, r = 4: psi
 * and g after one step are O(h^5), a position projection changes the energy in O(h^5) and a
 * momentum projection in O(h^10).
 *
 * Measurement: the pendulum's classical equations (42) (formulation standard), one RK4 step of
 * h from each of 8 points of the exact orbit of Sec. 8 (E = 2: q = (cos a, sin a),
 * p = sqrt(2 (2 - sin a)) (sin a, -cos a), a = 2 pi (j + 1/2)/8, consistent by construction),
 * then chs's momentum projector and, separately, its position projector (tolerance 0: always
 * project; Newton to round-off) on the step's result. The energy change of each projection is
 * measured on its output: momentum 1/2 (p' - p).(p' + p) (M = I), position y' - y (V = y), the
 * largest over the 8 points for every h = 0.2 * 2^(-k/2), k = 0..8 (16 to 265 steps per period).
 * The slope of log |Delta E| against log h is fitted by least squares over the h where that
 * energy change lies at least 1000 times above the energy's round-off |H| eps (~4e-16): below,
 * the computed projection's energy change is round-off, not O(h^10) (this leaves the momentum
 * projection the 4 largest h, the position projection all 9). The claims hold when a
 * slope rounds to the paper's integer (|slope - 10| <= 0.5, |slope - 5| <= 0.5), as every
 * growth exponent here. */
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <nvector/nvector_serial.h>
#include "../../src/compat.h"
#include "../reproduce.h"

#define NH 9
#define NPT 8

typedef struct {
  double h, psi, g, de_mom, de_pos, ratio; /* maxima over the points; ratio at the largest */
} one_h;

/* Least-squares slope of log y against log x over the entries with use[i]; NAN if < 3. */
static double slope(const double *x, const double *y, const int *use, int n) {
  rep_fit f = {0};
  for (int i = 0; i < n; i++) {
    if (use[i] && x[i] > 0 && y[i] > 0) {
      rep_fit_add(&f, log(x[i]), log(y[i]));
    }
  }
  return rep_fit_slope(&f);
}

static int measure(CHSProblem prob, one_h *res, CHSError *err) {
  SUNContext ctx = NULL;
  CHSFormulation f = NULL, fm = NULL, fp = NULL;
  CHSProjector pm = NULL, pp = NULL;
  N_Vector y = NULL, ym = NULL, yp = NULL;
  int rc = chs_context_create(&ctx) == 0 ? 0 : (err->code = CHS_ERR_MEM);
  if (rc == 0) {
    chs_context_silence(ctx);
    rc = CHSFormulation_Create("standard", prob, ctx, &f, err);
  }
  if (rc == 0) {
    rc = CHSFormulation_Create("standard", prob, ctx, &fm, err);
  }
  if (rc == 0) {
    rc = CHSFormulation_Create("standard", prob, ctx, &fp, err);
  }
  if (rc == 0) {
    rc = CHSProjector_Create(fm, CHS_PROJECT_MOMENTUM, 0, &pm, err);
  }
  if (rc == 0) {
    rc = CHSProjector_Create(fp, CHS_PROJECT_POSITION, 0, &pp, err);
  }
  if (rc == 0) {
    rc = CHSFormulation_NewInitialState(f, &y, err);
  }
  if (rc == 0) {
    ym = N_VClone(y);
    yp = N_VClone(y);
    rc = ym && yp ? 0 : (err->code = CHS_ERR_MEM);
  }
  for (int k = 0; k < NH && rc == 0; k++) {
    one_h *o = &res[k];
    memset(o, 0, sizeof *o);
    o->h = 0.2 * pow(2, -0.5 * k);
    for (int j = 0; j < NPT && rc == 0; j++) {
      double a = 2 * M_PI * (j + 0.5) / NPT, w = sqrt(2 * (2 - sin(a)));
      double q0[2] = {cos(a), sin(a)}, p0[2] = {w * sin(a), -w * cos(a)};
      CHSIntegrator it = NULL;
      CHSStepControl ctl = {o->h, 0, 0, 0};
      double tret = 0;
      rc = CHSFormulation_FromPhysical(f, q0, p0, y);
      if (rc == 0) {
        rc = CHSIntegrator_Create("erk:rk4", f, y, 0, &ctl, &it, err);
      }
      if (rc == 0) {
        rc = CHSIntegrator_OneStep(it, o->h, y, &tret, err);
      }
      CHSIntegrator_Destroy(&it);
      if (rc == 0 && fabs(tret - o->h) > 1e-14) {
        rc = cli_error(err, CHS_ERR_SOLVER, "one RK4 step of %g reached t = %g", o->h, tret);
      }
      if (rc != 0) {
        break;
      }
      N_VScale(1, y, ym);
      N_VScale(1, y, yp);
      rc = CHSProjector_Apply(pm, tret, ym);
      if (rc == 0) {
        rc = CHSProjector_Apply(pp, tret, yp);
      }
      if (rc != 0) {
        cli_error(err, rc, "projection after one RK4 step of %g failed", o->h);
        break;
      }
      double q[2], p[2], qm[2], pmv[2], qp[2], ppv[2];
      CHSFormulation_ToPhysical(f, y, q, p);
      CHSFormulation_ToPhysical(fm, ym, qm, pmv);
      CHSFormulation_ToPhysical(fp, yp, qp, ppv);
      double psi = q[0] * p[0] + q[1] * p[1], g = 0.5 * (q[0] * q[0] + q[1] * q[1] - 1);
      double R = q[0] * q[0] + q[1] * q[1];
      double de_mom = 0.5 * ((pmv[0] - p[0]) * (pmv[0] + p[0]) + (pmv[1] - p[1]) * (pmv[1] + p[1]));
      double de_pos = qp[1] - q[1];
      o->psi = fmax(o->psi, fabs(psi));
      o->g = fmax(o->g, fabs(g));
      if (fabs(de_mom) > fabs(o->de_mom)) {
        o->de_mom = de_mom;
        o->ratio = de_mom / (psi * psi / R);
      }
      o->de_pos = fmax(o->de_pos, fabs(de_pos));
    }
  }
  N_VDestroy(ym);
  N_VDestroy(yp);
  N_VDestroy(y);
  CHSProjector_Destroy(&pm);
  CHSProjector_Destroy(&pp);
  CHSFormulation_Destroy(&f);
  CHSFormulation_Destroy(&fm);
  CHSFormulation_Destroy(&fp);
  SUNContext_Free(&ctx);
  return rc;
}

static int seiler_projection_energy(rep_report *r, CHSError *err) {
  CHSProblem prob = NULL;
  if (CHSProblem_Create("pendulum", &prob, err) != 0) {
    return err->code;
  }
  one_h res[NH];
  int rc = measure(prob, res, err);
  CHSProblem_Destroy(&prob);
  if (rc != 0) {
    return rc;
  }
  const double floor_ = 1000 * 2 * DBL_EPSILON; /* 1000 |H| eps, H = 2 */
  double h[NH], dm[NH], dp[NH], ps[NH], gg[NH];
  int use[NH], usep[NH], all[NH], nuse = 0, nusep = 0;
  double hmin = 1, ratio_lo = 1e300, ratio_hi = -1e300;
  for (int k = 0; k < NH; k++) {
    h[k] = res[k].h;
    dm[k] = fabs(res[k].de_mom);
    dp[k] = res[k].de_pos;
    ps[k] = res[k].psi;
    gg[k] = res[k].g;
    use[k] = dm[k] >= floor_;
    usep[k] = dp[k] >= floor_;
    nusep += usep[k];
    all[k] = 1;
    if (use[k]) {
      nuse++;
      hmin = fmin(hmin, h[k]);
      ratio_lo = fmin(ratio_lo, res[k].ratio);
      ratio_hi = fmax(ratio_hi, res[k].ratio);
    }
    rep_row_add(r, NAN, ps[k], "h = %.4g: max |psi| after one RK4 step", h[k]);
    rep_row_add(r, NAN, dm[k], "h = %.4g: max |Delta E| of a momentum projection", h[k]);
    rep_row_add(r, NAN, dp[k], "h = %.4g: max |Delta E| of a position projection", h[k]);
    rep_row_add(r, NAN, res[k].ratio, "h = %.4g: Delta E (momentum) / (psi^T R^{-1} psi)", h[k]);
  }
  double s_mom = slope(h, dm, use, NH), s_pos = slope(h, dp, usep, NH),
         s_psi = slope(h, ps, all, NH), s_g = slope(h, gg, all, NH);
  rep_row_add(r, 5, s_psi, "slope of log max |psi| against log h (r + 1 = 5)");
  rep_row_add(r, 5, s_g, "slope of log max |g| against log h (r + 1 = 5)");
  rep_row_add(r, 10, s_mom,
              "slope of log |Delta E| of a momentum projection against log h "
              "(2r + 2 = 10), h in [%.3g, 0.2]",
              hmin);
  rep_row_add(r, 5, s_pos,
              "slope of log |Delta E| of a position projection against log h "
              "(r + 1 = 5), %d step sizes",
              nusep);
  rep_row_add(r, NAN, (double)nuse, "step sizes above the round-off floor (of %d)", NH);
  rep_claim_add(r, fabs(s_psi - 5) <= 0.5 && fabs(s_g - 5) <= 0.5,
                "RK4 (r = 4): the local constraint residuals are O(h^{r+1}) = O(h^5)",
                "slopes |psi| %.2f, |g| %.2f over h in [%.3g, 0.2]", s_psi, s_g, h[NH - 1]);
  rep_claim_add(r, nuse >= 3 && fabs(s_mom - 10) <= 0.5,
                "a mass-orthogonal momentum projection changes the energy only in O(h^{2r+2}) "
                "= O(h^10) for RK4",
                "slope %.2f over %d step sizes h in [%.3g, 0.2] (|Delta E| >= %.2g)", s_mom, nuse,
                hmin, floor_);
  rep_claim_add(r, nusep >= 3 && fabs(s_pos - 5) <= 0.5,
                "a position projection changes the energy in the residuals' order O(h^{r+1}) = "
                "O(h^5)",
                "slope %.2f over %d step sizes h in [%.3g, 0.2]", s_pos, nusep, h[NH - 1]);
  rep_note(r,
           "The paper's first-order estimate Delta E ~ psi^T R^{-1} psi has the right order but "
           "not the factor: for H = |p|^2/2 + V the projected p' = p - G^T R^{-1} psi gives "
           "exactly Delta E = -1/2 psi^T R^{-1} psi (the flow of H_lambda changes H by "
           "-lambda^T psi to first order and by +1/2 lambda^T R lambda to second, the same order "
           "in psi). Measured ratio %.4f .. %.4f over the fitted step sizes.\n",
           ratio_lo, ratio_hi);
  if (r->plot_dir) {
    const double *ys[3] = {ps, dp, dm};
    const char *lab[3] = {"max |psi| after one step", "|Delta E|, position projection",
                          "|Delta E|, momentum projection"};
    char script[2048], tics[512] = "";
    for (int i = 0; i < NH; i += 2) { /* ticks at every other step size: few decades */
      size_t l = strlen(tics);
      snprintf(tics + l, sizeof tics - l, "%s'%.3g' %.17g", i ? ", " : "", h[i], h[i]);
    }
    snprintf(script, sizeof script,
             "set title '[Seiler, stable] Sec. 7 (no figure in the paper):'.\"\\n\".'energy "
             "change of one projection after one RK4 step'\nset xlabel 'h'\nset ylabel 'max "
             "|psi|, |Delta E|'\nset logscale xy\nset xtics (%s) \nset offsets graph 0.02, graph "
             "0.02\nset format y "
             "'10^{%%T}'\nset key below\nplot DATA u 1:2 w lp t '%s', DATA u 1:3 w lp t "
             "'%s', DATA u 1:4 w lp t '%s'",
             tics, lab[0], lab[1], lab[2]);
    const double *cols[4] = {h, ys[0], ys[1], ys[2]};
    if (rep_plot(r->plot_dir, "seiler-projection-energy", "h psi dE_position dE_momentum", cols, 4,
                 NH, script) != 0) {
      return cli_error(err, CHS_ERR_IO, "plotting into %.300s failed", r->plot_dir);
    }
  }
  return 0;
}

const rep_experiment chs_experiment_seiler_projection_energy = {
    .name = "seiler-projection-energy",
    .source = "[Seiler, stable] Sec. 7",
    .summary = "energy change of one momentum / position projection after one RK4 step: "
               "O(h^{2r+2}) = O(h^10) vs O(h^{r+1}) = O(h^5)",
    .run = seiler_projection_energy,
};
