/* seiler-dirac-chain: [Seiler, Dirac] Sec. 7 (Seiler, Dirac brackets), Figs. 3-5: the planar chain
 * molecule of N = 7 atoms with rigid bonds and the Lennard-Jones potential (39), from the
 * hexagonal minimum with the end atoms moving at v0 = 0.25 in opposite directions. Classical RK4
 * with h = 0.1 on [0, 200] for the naive (standard), Hamilton-Dirac and extended formulations;
 * the implicit midpoint rule with functional iteration to 1e-5 (gauss:1 --rtol 1e-5) with h and
 * h/2. The integration error is measured against a reference computed here: the Hamilton-Dirac
 * equations with ARKODE's Verner 8(5,6) pair at rtol = atol = 1e-12, stopped at every integer
 * time (the paper does not say how its reference was obtained). */
#include <stdlib.h>
#include <string.h>
#include <nvector/nvector_serial.h>
#include "../../src/compat.h"
#include "../reproduce.h"

#define NT 201 /* t = 0, 1, ..., 200 */
#define NS 28  /* (q, p) of 7 atoms in the plane */

typedef struct {
  double z[NT][NS];
  double energy[NT], g[NT], psi[NT];
  int k;
  double lin, ang; /* the diagnostics' invariant drifts: max over px, py; angular momentum */
} chain_track;

static int track(const CHSRecord *rec, void *ctx) {
  chain_track *c = ctx;
  if (c->k < NT) {
    memcpy(c->z[c->k], rec->q, 14 * sizeof(double));
    memcpy(c->z[c->k] + 14, rec->p, 14 * sizeof(double));
    c->energy[c->k] = rec->energy_err;
    c->g[c->k] = rec->pos_res;
    c->psi[c->k] = rec->mom_res;
    c->k++;
  }
  return 0;
}

static int run(CHSProblem prob, const char *form, const char *method, double h, double tol,
               chain_track *c, CHSError *err) {
  CHSRunOptions o = {.method = method,
                     .ctl = {.h = h, .rtol = tol, .atol = tol},
                     .tf = 200,
                     .every = (long)(1 / h + 0.5)};
  memset(c, 0, sizeof *c);
  CHSRunSummary sum;
  int rc = rep_run(prob, form, o, track, c, &sum, err);
  if (rc == 0 && sum.diag.n_invariants == 3) { /* chain: momentum_x, momentum_y, angular */
    c->lin = fmax(sum.diag.invariant_err_max[0], sum.diag.invariant_err_max[1]);
    c->ang = sum.diag.invariant_err_max[2];
  }
  return rc;
}

/* A reference: dirac with `method` at rtol = atol = 1e-12, at t = 0, 1, ..., 200. */
static int reference_with(CHSProblem prob, const char *method, double ref[NT][NS], CHSError *err) {
  rep_stepper st;
  CHSStepControl ctl = {0, 1e-12, 1e-12, 0};
  int rc = rep_stepper_open(&st, prob, "dirac", method, ctl, NULL, NULL, NULL, 0, err);
  for (int k = 0; rc == 0 && k < NT; k++) {
    double t;
    if (k > 0) {
      rc = CHSIntegrator_Evolve(st.it, k, st.y, &t, err);
    }
    if (rc == 0) {
      rc = CHSFormulation_ToPhysical(st.f, st.y, ref[k], ref[k] + 14);
    }
  }
  rep_stepper_close(&st);
  return rc;
}

/* The reference of the integration errors: Verner 8(5,6). */
static int reference(CHSProblem prob, double ref[NT][NS], CHSError *err) {
  return reference_with(prob, "erk:ARKODE_VERNER_8_5_6", ref, err);
}

static double dist(const double *a, const double *b) {
  double s = 0;
  for (int i = 0; i < NS; i++) {
    s += (a[i] - b[i]) * (a[i] - b[i]);
  }
  return sqrt(s);
}

/* log-log least-squares slope of e over t in [lo, hi] (t = index). */
static double slope_in(const double *e, int lo, int hi) {
  rep_fit f = {0};
  for (int t = lo; t <= hi && t < NT; t++) {
    if (e[t] > 0) {
      rep_fit_add(&f, log((double)t), log(e[t]));
    }
  }
  return rep_fit_slope(&f);
}

/* ... over [lo, 200]. */
static double slope(const double *e, int lo) {
  return slope_in(e, lo, NT - 1);
}

/* The unwrapped angle of atom 1 about the centre of mass at t = 0, 1, ..., 200 of the states
 * z[t] into phi[t]. */
static void end_angle(const double (*z)[NS], double *phi) {
  double turn = 0, prev_a = 0;
  for (int t = 0; t < NT; t++) {
    double cx = 0, cy = 0;
    for (int a = 0; a < 7; a++) {
      cx += z[t][2 * a] / 7;
      cy += z[t][2 * a + 1] / 7;
    }
    double a1 = atan2(z[t][1] - cy, z[t][0] - cx);
    if (t > 0) {
      double d = a1 - prev_a;
      d -= 2 * M_PI * round(d / (2 * M_PI));
      turn += d;
    }
    prev_a = a1;
    phi[t] = turn;
  }
}

/* Revolutions of the rigid-body rotation over [0, 200]: the unwrapped angle of atom 1 about the
 * centre of mass. */
static double revolutions(const chain_track *c) {
  double phi[NT];
  end_angle((const double(*)[NS])c->z, phi);
  return fabs(phi[NT - 1]) / (2 * M_PI);
}

/* Sec. 7, after Leimkuhler and Skeel: BDF codes "after a short time ... completely eliminate the
 * vibrational degrees of freedom of the system and yield a pure rigid body rotation". The
 * vibrational energy: H minus the energy of the rigid motion (L^2 / (2 I) about the centre of
 * mass, |P|^2 / (2 N) of the translation) minus the potential's minimum, the start's V (the
 * hexagonal minimum); its fraction of the initial value at every output time. */
typedef struct {
  int n;
  double vmin, e0, last, lo, hi; /* lo, hi: extremes of the fraction on [1, 200] */
} vib_track;

static int vib_monitor(const CHSRecord *rec, void *ctx) {
  vib_track *v = ctx;
  double cx = 0, cy = 0, px = 0, py = 0, L = 0, I = 0, ke = 0;
  for (int a = 0; a < 7; a++) {
    cx += rec->q[2 * a] / 7, cy += rec->q[2 * a + 1] / 7;
    px += rec->p[2 * a], py += rec->p[2 * a + 1];
    ke += 0.5 * (rec->p[2 * a] * rec->p[2 * a] + rec->p[2 * a + 1] * rec->p[2 * a + 1]);
  }
  for (int a = 0; a < 7; a++) {
    double dx = rec->q[2 * a] - cx, dy = rec->q[2 * a + 1] - cy;
    L += dx * (rec->p[2 * a + 1] - py / 7) - dy * (rec->p[2 * a] - px / 7);
    I += dx * dx + dy * dy;
  }
  double rigid = L * L / (2 * I) + (px * px + py * py) / 14;
  if (v->n++ == 0) {
    v->vmin = rec->energy - ke;
    v->e0 = ke - rigid;
    v->lo = INFINITY, v->hi = 0;
  }
  v->last = (rec->energy - rigid - v->vmin) / v->e0;
  if (rec->t >= 1) {
    v->lo = fmin(v->lo, v->last), v->hi = fmax(v->hi, v->last);
  }
  return 0;
}

static int bdf_vibrations(CHSProblem prob, rep_report *r, CHSError *err) {
  static const double tols[2] = {1e-3, 1e-4};
  vib_track v[2];
  int rc = 0;
  for (int k = 0; k < 2 && rc == 0; k++) {
    memset(&v[k], 0, sizeof v[k]);
    CHSRunOptions o = {.method = "ida", .ctl = {.rtol = tols[k], .atol = tols[k]}, .tf = 200};
    CHSRunSummary sum;
    rc = rep_run(prob, "dae-ggl", o, vib_monitor, &v[k], &sum, err);
    if (rc == 0) {
      rep_row_add(r, 0, v[k].last,
                  "IDA (BDF) on the GGL DAE, rtol = atol = %g: vibrational energy at t = 200 / "
                  "initial (%ld steps)",
                  tols[k], sum.stats.steps);
      rep_row_add(r, NAN, v[k].lo,
                  "IDA, rtol = atol = %g: smallest vibrational energy / initial "
                  "on [1, 200]",
                  tols[k]);
      rep_row_add(r, NAN, v[k].hi,
                  "IDA, rtol = atol = %g: largest vibrational energy / initial "
                  "on [1, 200]",
                  tols[k]);
    }
  }
  if (rc == 0) {
    rep_claim_add(r, v[0].last < 0.1 || v[1].last < 0.1,
                  "BDF methods (Leimkuhler and Skeel) eliminate the vibrations after a short time "
                  "and leave a pure rigid body rotation",
                  "IDA on the GGL index-2 DAE: vibrational energy at t = 200 is %.3g (rtol 1e-3) "
                  "and %.3g (1e-4) times its initial value, within [%.3g, %.3g] and [%.3g, %.3g] "
                  "on [1, 200] (eliminated: below 0.1 at t = 200 at either tolerance)",
                  v[0].last, v[1].last, v[0].lo, v[0].hi, v[1].lo, v[1].hi);
  }
  return rc;
}

static int seiler_dirac_chain(rep_report *r, CHSError *err) {
  CHSProblem prob = NULL;
  if (CHSProblem_Create("chain", &prob, err) != 0) {
    return err->code;
  }
  double(*ref)[NS] = malloc(sizeof(double[NT][NS]));
  chain_track *tr = malloc(10 * sizeof *tr);
  const char *names[6] = {"standard",       "dirac",           "extended",
                          "midpoint h=0.1", "midpoint h=0.05", "RATTLE h=0.1"};
  /* tr[k]: RK4 (standard, dirac, extended); midpoint iterated to 1e-5 with h and h/2; RATTLE;
   * midpoint solved to round-off with h and h/2; iterated to 1e-5 on the state (the stage
   * derivative to 1e-5 / (h/2)) with h and h/2 */
  static const struct {
    const char *form, *method;
    double h, tol;
  } runs[10] = {{"standard", "erk:rk4", 0.1, 0},  {"dirac", "erk:rk4", 0.1, 0},
                {"extended", "erk:rk4", 0.1, 0},  {"dirac", "gauss:1", 0.1, 1e-5},
                {"dirac", "gauss:1", 0.05, 1e-5}, {"standard", "rattle", 0.1, 0},
                {"dirac", "gauss:1", 0.1, 0},     {"dirac", "gauss:1", 0.05, 0},
                {"dirac", "gauss:1", 0.1, 2e-4},  {"dirac", "gauss:1", 0.05, 4e-4}};
  int rc = ref && tr ? reference(prob, ref, err) : CHS_ERR_MEM;
  for (int k = 0; rc == 0 && k < 10; k++) {
    rc = run(prob, runs[k].form, runs[k].method, runs[k].h, runs[k].tol, &tr[k], err);
  }
  if (rc == 0) {
    double ie[6][NT], emax[6], ge[6][4], lin[6], ang[6], ge_early[3];
    for (int s = 0; s < 6; s++) {
      /* momenta: the drifts the run's diagnostics report (the problem's extra invariants) */
      lin[s] = tr[s].lin;
      ang[s] = tr[s].ang;
      emax[s] = 0;
      for (int t = 0; t < NT; t++) {
        ie[s][t] = dist(tr[s].z[t], ref[t]);
        emax[s] = fmax(emax[s], tr[s].energy[t]);
      }
      ge[s][0] = slope(ie[s], 5);
      if (s < 3) {
        ge_early[s] = slope_in(ie[s], 5, 50);
      }
      ge[s][1] = slope(tr[s].energy, 5);
      ge[s][2] = slope(tr[s].g, 5);
      ge[s][3] = slope(tr[s].psi, 5);
      rep_row_add(r, NAN, ie[s][200], "integration error at t = 200, %s", names[s]);
      rep_row_add(r, NAN, emax[s], "max relative energy error, %s", names[s]);
      /* the paper's exponents are those of its Figs. 4-5: the Hamilton-Dirac run only */
      rep_row_add(r, s == 1 ? 2 : NAN, ge[s][0],
                  "growth exponent of the integration error on [5, 200], %s", names[s]);
      if (s < 3) {
        rep_row_add(r, NAN, ge_early[s], "growth exponent of the integration error on [5, 50], %s",
                    names[s]);
      }
      rep_row_add(r, s == 1 ? 1 : NAN, ge[s][1],
                  "growth exponent of the energy error on [5, 200], %s", names[s]);
      rep_row_add(r, s == 1 ? 1 : NAN, ge[s][2], "growth exponent of |g| on [5, 200], %s",
                  names[s]);
      rep_row_add(r, s == 1 ? 1 : NAN, ge[s][3], "growth exponent of |psi| on [5, 200], %s",
                  names[s]);
      rep_row_add(r, 1e-15, lin[s], "max error of the total linear momentum (per component), %s",
                  names[s]);
      rep_row_add(r, s < 3 || s == 3 ? 1e-5 : NAN, ang[s],
                  "max error of the total angular momentum, %s", names[s]);
    }
    double turn = revolutions(&tr[1]);
    rep_row_add(r, 1.25, turn,
                "revolutions of the rigid-body rotation on [0, 200] (end atom about the centre "
                "of mass)");
    /* Why 0.67 revolutions and not 5/4: the rotation of a molecule with angular momentum L and
     * moment of inertia I turns at L / I, so the initial data fix it; and why the integration
     * error saturates: the phase of the rotation against the reference's, and a second,
     * independent reference. */
    double L = 0, I = 0, cx = 0, cy = 0;
    const double *z0 = tr[1].z[0];
    for (int a = 0; a < 7; a++) {
      cx += z0[2 * a] / 7;
      cy += z0[2 * a + 1] / 7;
    }
    for (int a = 0; a < 7; a++) {
      double dx = z0[2 * a] - cx, dy = z0[2 * a + 1] - cy;
      L += dx * z0[15 + 2 * a] - dy * z0[14 + 2 * a];
      I += dx * dx + dy * dy;
    }
    double est = 200 * fabs(L) / (2 * M_PI * I);
    rep_row_add(r, NAN, L, "total angular momentum L about the centre of mass (initial data)");
    rep_row_add(r, NAN, I, "moment of inertia I about the centre of mass (initial, unit masses)");
    rep_row_add(r, 1.25, est,
                "rigid-body estimate of the revolutions on [0, 200], 200 |L| / (2 pi I)");
    rep_row_add(r, NAN, 1.25 * 2 * M_PI * I / 200, "|L| that 5/4 revolutions need with this I");
    rep_claim_add(r, fabs(turn / est - 1) <= 0.2,
                  "(ours) the number of revolutions is fixed by the initial data: the run turns "
                  "within 20 % of the rigid-body estimate 200 |L| / (2 pi I)",
                  "%.3f revolutions against the estimate %.3f (L = %.4g, I = %.4g); 5/4 would need "
                  "|L| = %.4g",
                  turn, est, L, I, 1.25 * 2 * M_PI * I / 200);
    double *phr = malloc(2 * NT * sizeof *phr), (*ref2)[NS] = malloc(sizeof(double[NT][NS]));
    if (!phr || !ref2) {
      rc = err->code = CHS_ERR_MEM;
    }
    if (rc == 0) {
      double *phd = phr + NT, pe[NT];
      end_angle(ref, phr);
      end_angle((const double(*)[NS])tr[1].z, phd);
      for (int t = 0; t < NT; t++) {
        pe[t] = fabs(phd[t] - phr[t]);
      }
      double pslope = slope(pe, 5);
      rep_row_add(r, NAN, pe[200], "phase error of the rotation at t = 200 (rad), dirac");
      rep_row_add(r, 2, pslope, "growth exponent of the rotation's phase error on [5, 200], dirac");
      rep_claim_add(r, rep_about(pslope, 2, 1),
                    "(ours) the rotation's phase error of the Hamilton-Dirac RK4 run grows "
                    "quadratically over the whole interval [5, 200]",
                    "exponent %.2f (rounds to 2 when in [1.5, 2.5]); phase error %.3g rad at t = "
                    "200, while the state error saturates at %.2f",
                    pslope, pe[200], ie[1][200]);
      rc = reference_with(prob, "erk:ARKODE_FEHLBERG_13_7_8", ref2, err);
    }
    if (rc == 0) {
      /* how two references of the same accuracy separate: the first times their distance passes
       * 1e-8, 1e-5 and 1e-2, and the exponential rate over that range */
      double ts[3] = {NAN, NAN, NAN}, lv[3] = {1e-8, 1e-5, 1e-2};
      for (int t = 0; t < NT; t++) {
        double d = dist(ref[t], ref2[t]);
        for (int k = 0; k < 3; k++) {
          if (isnan(ts[k]) && d > lv[k]) {
            ts[k] = t;
          }
        }
      }
      for (int k = 0; k < 3; k++) {
        rep_row_add(r, NAN, ts[k], "first t at which the two references differ by more than %g",
                    lv[k]);
      }
      double rate = log(1e6) / (ts[2] - ts[0]);
      rep_row_add(r, NAN, rate,
                  "exponential separation rate of the references, ln(1e6) / (t(1e-2) - t(1e-8))");
      rep_claim_add(
          r, isfinite(rate) && rate > 0 && fabs((ts[1] - ts[0]) / (ts[2] - ts[1]) - 1) <= 0.5,
          "(ours) the chain's motion is chaotic: two references solved to 1e-12 separate "
          "exponentially (equal times per factor 1000), so every error reaches the size "
          "of the vibrations within [0, 200] and saturates there",
          "distance passes 1e-8, 1e-5, 1e-2 at t = %g, %g, %g (rate %.3g per unit time)", ts[0],
          ts[1], ts[2], rate);
    }
    if (rc == 0) {
      double dref = dist(ref[200], ref2[200]);
      rep_row_add(r, NAN, dref,
                  "difference of two references at t = 200 (Verner 8(5,6), Fehlberg 13(7)8, "
                  "1e-12)");
      rep_claim_add(r, dref <= 1e-2 * ie[1][200],
                    "(ours) the saturation of the integration error is not the reference's: two "
                    "references differ by less than 1 % of the error at t = 200",
                    "|ref_Verner - ref_Fehlberg| = %.2g at t = 200, the dirac run's error %.2f",
                    dref, ie[1][200]);
    }
    free(phr);
    free(ref2);
    /* Sec. 7: "the integration error grows quadratically, all others errors about linearly" -
     * the other error measures of the same Hamilton-Dirac run (Figs. 4-5), over the figures'
     * interval [0, 200] (fitted from t = 5); an exponent "grows like t^k" when it rounds to k. */
    rep_claim_add(r,
                  rep_about(ge[1][0], 2, 1) && rep_about(ge[1][1], 1, 1) &&
                      rep_about(ge[1][2], 1, 1) && rep_about(ge[1][3], 1, 1),
                  "Hamilton-Dirac, RK4 (Figs. 4-5): the integration error grows quadratically, "
                  "all other errors (energy, |g|, |psi|) about linearly",
                  "exponents on [5, 200] (each must round to 2, 1, 1, 1): integration %.2f, "
                  "energy %.2f, |g| %.2f, |psi| %.2f",
                  ge[1][0], ge[1][1], ge[1][2], ge[1][3]);
    rep_claim_add(r, lin[0] < 1e-12 && lin[1] < 1e-12 && lin[2] < 1e-12,
                  "the total linear momentum is preserved to round-off (a linear invariant)",
                  "max errors %.1e, %.1e, %.1e", lin[0], lin[1], lin[2]);
    int ang_in = 1;
    for (int s = 0; s < 4; s++) { /* the paper's runs: RK4 (three formulations), midpoint */
      ang_in = ang_in && ang[s] >= 1e-6 && ang[s] <= 1e-5;
    }
    rep_claim_add(r, ang_in,
                  "independent of the integration method the angular momentum error lies "
                  "between 1e-6 and 1e-5",
                  "max error: RK4 %.2g (standard), %.2g (dirac), %.2g (extended); midpoint %.2g",
                  ang[0], ang[1], ang[2], ang[3]);
    rep_claim_add(r, emax[3] < 0.2 * emax[1],
                  "the implicit midpoint rule (iteration to 1e-5) conserves the energy almost an "
                  "order of magnitude better than RK4 at the same h",
                  "max energy error midpoint %.2g vs RK4 %.2g (ratio %.2g)", emax[3], emax[1],
                  emax[1] / emax[3]);
    double e_first = 0, e_last = 0;
    for (int t = 1; t <= 100; t++) {
      e_first = fmax(e_first, tr[4].energy[t]);
    }
    for (int t = 101; t < NT; t++) {
      e_last = fmax(e_last, tr[4].energy[t]);
    }
    double r_first = 0, r_last = 0;
    for (int t = 1; t < NT; t++) {
      *(t <= 100 ? &r_first : &r_last) = fmax(t <= 100 ? r_first : r_last, tr[5].energy[t]);
    }
    rep_claim_add(r, r_last <= 1.5 * r_first && emax[5] < emax[1],
                  "RATTLE keeps the energy error bounded over [0, 200] (Leimkuhler & Skeel)",
                  "max energy error on [0, 100] %.2g, on [100, 200] %.2g (RK4 dirac: %.2g)",
                  r_first, r_last, emax[1]);
    double ex[4] = {0, 0, 0, 0}; /* midpoint solved to round-off, h, h/2; to 1e-5 on the state */
    for (int k = 0; k < 4; k++) {
      for (int t = 0; t < NT; t++) {
        ex[k] = fmax(ex[k], tr[6 + k].energy[t]);
      }
      rep_row_add(r, NAN, ex[k], "max relative energy error, midpoint h=%s %s",
                  k % 2 == 0 ? "0.1" : "0.05",
                  k < 2 ? "solved to round-off" : "iterated to 1e-5 on the state");
    }
    rep_claim_add(r, emax[4] < 0.1 * emax[3] && e_last < 2 * e_first && rep_about(emax[4], 1e-4, 1),
                  "with h/2 the energy error is more than ten times smaller and nearly constant "
                  "(about 1e-4)",
                  "max %.2g (h/2) vs %.2g (h); on [0, 100] %.2g, on [100, 200] %.2g", emax[4],
                  emax[3], e_first, e_last);
    /* Sec. 7 on the midpoint run at the same h (iterated to 1e-5): "the error growth is less
     * than linear" - the energy error's exponent on [5, 200] (the growth rows above) rounds to
     * less than 1, i.e. lies below 0.5; "the constraint residuals improve by more than an order
     * of magnitude" - max |g| and max |psi| over [0, 200] at most a tenth of RK4's (dirac). */
    double res_max[2][2] = {{0, 0}, {0, 0}}; /* [RK4 dirac, midpoint][g, psi] */
    for (int t = 0; t < NT; t++) {
      res_max[0][0] = fmax(res_max[0][0], tr[1].g[t]);
      res_max[0][1] = fmax(res_max[0][1], tr[1].psi[t]);
      res_max[1][0] = fmax(res_max[1][0], tr[3].g[t]);
      res_max[1][1] = fmax(res_max[1][1], tr[3].psi[t]);
    }
    if (r->plot_dir) {
      double *t = malloc(NT * sizeof *t), *x = malloc(NT * sizeof *x), *y = malloc(NT * sizeof *y);
      if (t && x && y) {
        for (int k = 0; k < NT; k++) {
          t[k] = k;
          x[k] = tr[1].z[k][0];
          y[k] = tr[1].z[k][1];
        }
        const double *cols[3] = {t, x, y};
        if (rep_plot(
                r->plot_dir, "seiler-dirac-chain-end-atom", "t x1 y1", cols, 3, NT,
                "set size ratio -1\nset title '[Seiler, Dirac] Fig. 3 (right): motion of an end "
                "atom (dirac, RK4 h = 0.1)'\nset xlabel 'x'\nset ylabel 'y'\n"
                "plot DATA u 2:3 w l t 'atom 1, t in [0, 200]'") != 0) {
          rc = cli_error(err, CHS_ERR_IO, "plotting failed");
        }
      }
      if (rc == 0 && t) {
        /* Fig. 3 (left): the initial configuration (the hexagonal energy minimum), bonds as
         * lines, the end atoms' initial velocities as arrows (length 4 v for visibility) */
        double ia[7], ix[7], iy[7], iu[7], iv[7];
        for (int a = 0; a < 7; a++) {
          ia[a] = a + 1;
          ix[a] = tr[1].z[0][2 * a];
          iy[a] = tr[1].z[0][2 * a + 1];
          iu[a] = 4 * tr[1].z[0][14 + 2 * a];
          iv[a] = 4 * tr[1].z[0][14 + 2 * a + 1];
        }
        const double *c3[5] = {ia, ix, iy, iu, iv};
        if (rep_plot(r->plot_dir, "seiler-dirac-chain-fig3-left", "atom x y 4px 4py", c3, 5, 7,
                     "set size ratio -1\nset title '[Seiler, Dirac] Fig. 3 (left): initial "
                     "configuration, "
                     "the energy minimum (7 atoms, bonds of length 1)'\nset xlabel 'x'\n"
                     "set ylabel 'y'\nset offsets 0.5, 0.5, 0.5, 0.5\n"
                     "plot DATA u 2:3 w lp pt 7 ps 2 t 'atoms and bonds', "
                     "DATA u 2:3:4:5 w vectors lw 2 t 'initial velocities (x4)', "
                     "DATA u 2:3:(sprintf('%d', $1)) w labels offset 1.2, 1.2 notitle") != 0) {
          rc = cli_error(err, CHS_ERR_IO, "plotting failed");
        }
      }
      if (rc == 0 && t) {
        /* Figs. 4-5: the Hamilton-Dirac run's errors and residuals (log scale, t in [0, 200]) */
        const double *f4[2] = {ie[1], tr[1].energy}, *f5[2] = {tr[1].g, tr[1].psi};
        const char *l4[2] = {"integration error |(q,p) - reference|_2",
                             "relative energy error |H - H(0)| / |H(0)|"},
                   *l5[2] = {"|g(q)|_2 (position)", "|G M^-1 p|_2 (momentum)"};
        if (rep_plot_curves(
                r->plot_dir, "seiler-dirac-chain-fig4",
                "[Seiler, Dirac] Fig. 4: integration and energy error (chain, dirac, RK4 h "
                "= 0.1)",
                "t", "error", 1, t, f4, l4, 2, NT) != 0 ||
            rep_plot_curves(
                r->plot_dir, "seiler-dirac-chain-fig5",
                "[Seiler, Dirac] Fig. 5: constraint residuals (chain, dirac, RK4 h = 0.1)", "t",
                "constraint residual", 1, t, f5, l5, 2, NT) != 0) {
          rc = cli_error(err, CHS_ERR_IO, "plotting failed");
        }
      }
      free(t);
      free(x);
      free(y);
    }
    /* Another reading of the initial velocities (chain:centre=4: the hexagon centred on the
     * middle atom, both end atoms turning the same way about it): do the growth exponents
     * separate there? */
    double vexp[3][2] = {{NAN, NAN}, {NAN, NAN}, {NAN, NAN}}, alt_turn = NAN;
    CHSProblem alt = NULL;
    if (CHSProblem_Create("chain:centre=4", &alt, err) == 0) {
      const char *vf[3] = {"standard", "dirac", "extended"};
      int vrc = reference(alt, ref, err);
      for (int k = 0; k < 3 && vrc == 0; k++) {
        vrc = run(alt, vf[k], "erk:rk4", 0.1, 0, &tr[0], err);
        double ve[NT];
        for (int t = 0; vrc == 0 && t < NT; t++) {
          ve[t] = dist(tr[0].z[t], ref[t]);
        }
        if (vrc == 0) {
          vexp[k][0] = slope_in(ve, 5, 50);
          vexp[k][1] = slope(ve, 5);
          rep_row_add(r, NAN, vexp[k][0],
                      "growth exponent of the integration error on [5, 50], %s, chain:centre=4",
                      vf[k]);
        }
        if (vrc == 0 && k == 1) {
          alt_turn = revolutions(&tr[0]);
          rep_row_add(r, 1.25, alt_turn, "revolutions on [0, 200], chain:centre=4");
        }
      }
      CHSProblem_Destroy(&alt);
      if (vrc != 0) {
        rc = vrc;
      }
    }
    rep_claim_add(r, fabs(alt_turn / 1.25 - 1) <= 0.1 && rep_about(vexp[1][1], 2, 1),
                  "(ours) the reading chain:centre=4 (the hexagon centred on the middle atom, both "
                  "end atoms turning the same way) shows the paper's behaviour: about 5/4 "
                  "revolutions and a quadratically growing integration error over [5, 200]",
                  "%.2f revolutions (within 10 %% of 5/4); dirac's exponent on [5, 200] %.2f "
                  "(rounds to 2 when in [1.5, 2.5])",
                  alt_turn, vexp[1][1]);
    rep_row_add(r, NAN, res_max[0][0] / res_max[1][0],
                "max |g| on [0, 200]: RK4 dirac / midpoint h=0.1 (%.2g / %.2g)", res_max[0][0],
                res_max[1][0]);
    rep_row_add(r, NAN, res_max[0][1] / res_max[1][1],
                "max |psi| on [0, 200]: RK4 dirac / midpoint h=0.1 (%.2g / %.2g)", res_max[0][1],
                res_max[1][1]);
    rep_claim_add(r, ge[3][1] < 0.5,
                  "midpoint rule (h = 0.1, iterated to 1e-5): the energy error grows less than "
                  "linearly",
                  "growth exponent of the energy error on [5, 200] %.2f (less than linear: rounds "
                  "below 1, i.e. < 0.5; RK4 dirac %.2f)",
                  ge[3][1], ge[1][1]);
    rep_claim_add(r, res_max[0][0] > 10 * res_max[1][0] && res_max[0][1] > 10 * res_max[1][1],
                  "midpoint rule (h = 0.1): the constraint residuals improve by more than an order "
                  "of magnitude over RK4",
                  "max |g| RK4 %.2g vs midpoint %.2g (ratio %.3g), max |psi| %.2g vs %.2g (ratio "
                  "%.3g); both ratios must exceed 10",
                  res_max[0][0], res_max[1][0], res_max[0][0] / res_max[1][0], res_max[0][1],
                  res_max[1][1], res_max[0][1] / res_max[1][1]);
    rep_note(r,
             "Initial state: the end atoms move with v0 = 0.25 perpendicular to their bonds, in "
             "opposite directions (p7 = -p1: total linear momentum 0; chain:sign=1 gives "
             "p7 = p1, a drifting molecule). The paper says [0, 200] is about "
             "5/4 periods of the rigid rotation; ours turns %.2f times; the hexagon centred on "
             "the middle atom with both end atoms turning the same way (chain:centre=4, end "
             "velocities not opposite) turns %.2f times. Fig. 3 is not legible in our copy. "
             "Energy errors are relative to |H(0)|. Integration errors against a Verner 8(5,6) "
             "reference at 1e-12: at t = 200 %.2f (standard), %.2f (dirac), %.2f (extended); "
             "they grow about quadratically on [5, 50] (exponents %.2f, %.2f, %.2f) and then "
             "saturate at the size of the vibrations, so the exponents on [5, 200] are %.2f, "
             "%.2f, %.2f: all three formulations behave alike. Halving h reduces the midpoint "
             "rule's energy error by a factor %.2g (iterated to 1e-5) and %.2g (solved to "
             "round-off: %.2g and %.2g), as its second order leads one to expect (4), not by "
             "the paper's 'more than an order of magnitude'. A tolerance of 1e-5 on the iterated "
             "state instead of the stage derivative (tol 2e-4 and 4e-4 on the derivative) gives "
             "%.2g and %.2g, so no reading of the tolerance yields the factor either. "
             "chain:centre=4 does not separate the formulations either: exponents %.2f, %.2f, "
             "%.2f on [5, 50] and %.2f, %.2f, %.2f on [5, 200] (standard, dirac, extended).\n",
             turn, alt_turn, ie[0][200], ie[1][200], ie[2][200], ge_early[0], ge_early[1],
             ge_early[2], ge[0][0], ge[1][0], ge[2][0], emax[3] / emax[4], ex[0] / ex[1], ex[0],
             ex[1], ex[2], ex[3], vexp[0][0], vexp[1][0], vexp[2][0], vexp[0][1], vexp[1][1],
             vexp[2][1]);
  }
  free(ref);
  free(tr);
  if (rc == 0) {
    rc = bdf_vibrations(prob, r, err);
  }
  CHSProblem_Destroy(&prob);
  return rc;
}

const rep_experiment chs_experiment_seiler_dirac_chain = {
    .name = "seiler-dirac-chain",
    .source = "[Seiler, Dirac] Sec. 7, Figs. 3-5",
    .summary = "chain molecule N = 7, RK4 h = 0.1 on [0, 200]: standard / dirac / extended, "
               "momenta, implicit midpoint",
    .run = seiler_dirac_chain,
};
