/* seiler-impetus: [Seiler, stable] Sec. 8, the impetus-striction equations (50) of the pendulum,
 * classical RK4 with h = 0.025 on [0, 1023] (the run of the paper's Sec. 8), from the exact
 * start (1, 0, 0, -2) and from the perturbed, inconsistent (x*, y*, p*x, p*y) =
 * (1.1, 0.1, 0.1, -1.9):
 *   - the (x*, y*) orbit stays on its circle x*^2 + y*^2 = const (g is a first integral),
 *   - the normal impetus component n = x* p*x + y* p*y grows linearly on average (51),
 *   - the maximal impetus amplitude (paper: about 30000 with (50); about 1000 with the modified
 *     Hamiltonian (52)-(53), pendulum:hamiltonian=modified),
 *   - the observables (physical p = p* - lambda q*) do not see the drift;
 *   - Fig. 2: the x*-y* (left) and p*x-p*y (right) phase portraits of both runs;
 *   - the paper's comparison with momentum projections (Sec. 8: "the results are similar to
 *     those obtained above with momentum projections", but (50) projects at every evaluation of
 *     the right-hand side while (42) needed few projections, "hence from a computational point
 *     of view the latter approach seems preferable"): the impetus run against the standard
 *     formulation with momentum projections at eps = 1e-6, errors and costs side by side.
 * The state (q*, p*) is integrated through chs' library API (CHSIntegrator on the impetus
 * formulation) so that the perturbed start can be set directly. */
#include <stdlib.h>
#include <string.h>
#include <nvector/nvector_serial.h>
#include "../../src/compat.h"
#include "../reproduce.h"

typedef struct {
  double radius_dev; /* max | |q*| - |q*(0)| | */
  double n_slope, n_final, pstar_max, energy_err_max;
  double qf[2], pf[2]; /* physical state at t = 1023 */
  long resets;
  double *orbit; /* NULL, or room for 4 * ORBIT_N values: (x*, y*, p*x, p*y) every ORBIT_EVERY
                    steps from t = 0 */
  long norbit;
} impetus_run;

#define ORBIT_EVERY 4 /* steps of 0.025: a point every 0.1, ~33 per revolution */
#define ORBIT_N (1023 * 40 / ORBIT_EVERY + 1)

static int run_impetus(CHSProblem prob, const char *form, const double *start, impetus_run *out,
                       double *orbit, CHSError *err) {
  rep_stepper st;
  CHSStepControl ctl = {0.025, 0, 0, 0};
  int rc = rep_stepper_open(&st, prob, form, "erk:rk4", ctl, NULL, NULL, start, 4, err);
  CHSFormulation f = st.f;
  CHSIntegrator it = st.it;
  N_Vector y = st.y;
  memset(out, 0, sizeof *out);
  out->orbit = orbit;
  if (orbit) {
    memcpy(orbit, start, 4 * sizeof *start);
    out->norbit = 1;
  }
  long nstep = 0;
  const double *z = y ? N_VGetArrayPointer(y) : NULL;
  double r0 = hypot(start[0], start[1]), H0 = 0, tret = 0;
  rep_fit fit = {0}; /* the normal impetus n against t */
  for (int t = 1; rc == 0 && t <= 1023; t++) {
    while (rc == 0 && tret < t - 1e-9) { /* step by step, with the gauge reset between */
      rc = CHSIntegrator_OneStep(it, t, y, &tret, err);
      if (rc == 0 && CHSFormulation_Rechart(f, tret, y) > 0) {
        rc = CHSIntegrator_Reinit(it, tret, y);
      }
      if (rc == 0 && orbit && ++nstep % ORBIT_EVERY == 0 && out->norbit < ORBIT_N) {
        memcpy(orbit + 4 * out->norbit++, z, 4 * sizeof *z);
      }
    }
    if (rc != 0) {
      break;
    }
    double q[2], p[2], H;
    out->radius_dev = fmax(out->radius_dev, fabs(hypot(z[0], z[1]) - r0));
    out->pstar_max = fmax(out->pstar_max, hypot(z[2], z[3]));
    double n = z[0] * z[2] + z[1] * z[3];
    rep_fit_add(&fit, t, n);
    out->n_final = n;
    CHSFormulation_ToPhysical(f, y, q, p);
    memcpy(out->qf, q, sizeof q);
    memcpy(out->pf, p, sizeof p);
    CHSProblem_Energy(prob, q, p, &H);
    if (t == 1) {
      double q0[2] = {start[0], start[1]}, lam = (start[0] * start[2] + start[1] * start[3]) /
                                                 (start[0] * start[0] + start[1] * start[1]);
      double p0[2] = {start[2] - lam * start[0], start[3] - lam * start[1]};
      CHSProblem_Energy(prob, q0, p0, &H0);
    }
    out->energy_err_max = fmax(out->energy_err_max, fabs(H - H0) / fabs(H0));
  }
  out->n_slope = rep_fit_slope(&fit);
  out->resets = f ? CHSFormulation_GetNumRecharts(f) : 0;
  rep_stepper_close(&st);
  return rc;
}

/* Period average of the right-hand side of (51), (x p*y - y p*x)^2/(x^2 + y^2) - y, along the
 * exact rotation from (1, 0, 0, -2) (theta' ^2 = 2 (2 + cos theta), y = -cos theta):
 * <theta'^2> - <y> with <f> = (1/T) int_0^{2 pi} f / |theta'| dtheta, by the trapezoidal rule. */
static double mean_growth_rate(void) {
  const int n = 4096;
  double T = 0, a = 0, y = 0;
  for (int i = 0; i < n; i++) {
    double th = 2 * M_PI * i / n, w = sqrt(2 * (2 + cos(th)));
    T += 1 / w;
    a += w;
    y += -cos(th) / w;
  }
  return (a - y) / T;
}

/* "About the same" / "similar" (one definition, as "about X" in drivers/reproduce.h with X = 1):
 * the ratio of the two numbers rounds to 1 at one significant digit, i.e. lies in [0.5, 1.5]. */
static int similar(double a, double b) {
  return b > 0 && rep_about(a / b, 1, 1);
}

/* [Seiler, stable] Sec. 8: the impetus-striction equations (50) against the classical equations
 * (42) with momentum projections at eps = 1e-6 (the run of Fig. 1), both RK4 h = 0.025 on [0,
 * 1023], errors from the physical state against the problem's reference solution. */
static int versus_projection(rep_report *r, CHSProblem prob, CHSError *err) {
  CHSRunOptions oi = {.method = "erk:rk4", .ctl = {.h = 0.025}, .tf = 1023, .every = 40};
  CHSRunOptions om = oi;
  om.project = CHS_PROJECT_MOMENTUM;
  om.project_tol = 1e-6;
  CHSRunSummary si, sm;
  CHS_CALL_DRV(rep_run(prob, "impetus", oi, NULL, NULL, &si, err));
  CHS_CALL_DRV(rep_run(prob, "standard", om, NULL, NULL, &sm, err));
  const char *who[2] = {"impetus-striction (50)", "standard (42) + momentum projections"};
  const CHSRunSummary *s[2] = {&si, &sm};
  for (int k = 0; k < 2; k++) {
    rep_row_add(r, NAN, s[k]->diag.int_err_max, "max integration error, %s", who[k]);
    rep_row_add(r, NAN, s[k]->diag.energy_err_max, "max relative energy error, %s", who[k]);
    rep_row_add(r, NAN, s[k]->diag.pos_res_max, "max |g|, %s", who[k]);
    rep_row_add(r, NAN, s[k]->diag.mom_res_max, "max |psi|, %s", who[k]);
    rep_row_add(r, NAN, (double)s[k]->rhs_evals, "right-hand side evaluations, %s", who[k]);
  }
  /* (50) projects p = p* - lambda q* inside every evaluation of its right-hand side */
  rep_row_add(r, 155, (double)sm.proj_momentum, "momentum projections, %s", who[1]);
  rep_row_add(r, NAN, (double)si.rhs_evals, "projections inside the right-hand side, %s", who[0]);
  const char *names[2] = {"impetus", "standard"};
  /* per-round costs of interleaved rounds: the verdict is the median ratio's 95 % interval */
  enum { COST_ROUNDS = 11 };
  double per[2 * COST_ROUNDS], ci_[COST_ROUNDS], cs_[COST_ROUNDS];
  bench_range g = {NAN, NAN, NAN, NAN, NAN, 0};
  if (bench_rhs_rounds(&prob, 1, names, 2, 100000, COST_ROUNDS, per) == 0 && per[0] > 0 &&
      per[1] > 0) {
    for (int k = 0; k < COST_ROUNDS; k++) {
      ci_[k] = per[2 * k];
      cs_[k] = per[2 * k + 1];
    }
    g = bench_ratios(cs_, ci_, COST_ROUNDS);
  }
  rep_row_add(r, NAN, g.med,
              "cost per right-hand side evaluation, impetus / standard (median of %d rounds)",
              COST_ROUNDS);
  rep_row_add(r, NAN, si.wall_s, "integrator wall time (s), %s", who[0]);
  rep_row_add(r, NAN, sm.wall_s, "integrator wall time (s), %s", who[1]);
  rep_claim_add(r,
                similar(si.diag.int_err_max, sm.diag.int_err_max) &&
                    similar(si.diag.energy_err_max, sm.diag.energy_err_max),
                "the impetus-striction results are similar to those with momentum projections "
                "(max integration and energy errors: ratios round to 1, i.e. in [0.5, 1.5])",
                "integration error %.3g vs %.3g (ratio %.3g); energy error %.3g vs %.3g (ratio "
                "%.3g)",
                si.diag.int_err_max, sm.diag.int_err_max, si.diag.int_err_max / sm.diag.int_err_max,
                si.diag.energy_err_max, sm.diag.energy_err_max,
                si.diag.energy_err_max / sm.diag.energy_err_max);
  /* the cost of the two runs: the same number of steps and evaluations, so the per-evaluation
   * cost decides, plus the classical run's few projections (each about one evaluation): (42) is
   * cheaper when impetus / standard per evaluation exceeds the ratio of the evaluations */
  double bound = (double)(sm.rhs_evals + sm.proj_momentum) / (double)si.rhs_evals;
  rep_claim_add(r, rep_ratio_verdict(&g, bound, 0),
                "computationally the classical equations with momentum projections are "
                "preferable: (50) projects at every evaluation, (42) needed few projections",
                "%ld projections inside (50)'s evaluations vs %ld momentum projections; (42) is "
                "cheaper when impetus / standard per evaluation exceeds %.4f (evaluations and "
                "projections of (42) over (50)'s): median %.3f, 95 %% interval [%.3f, %.3f] of "
                "%d interleaved rounds",
                si.rhs_evals, sm.proj_momentum, bound, g.med, g.lo, g.hi, COST_ROUNDS);
  return 0;
}

/* The paper's Fig. 2: left the x*-y* phase portrait of the exact and the perturbed start, right
 * the p*x-p*y one (an outward spiral: the normal impetus component grows linearly), drawn for
 * t <= 60 (18 revolutions; the 310 of the whole run fill the disc). RK4, h = 0.025. */
static int draw_fig2(const char *dir, const impetus_run *run, CHSError *err) {
  long n = run[0].norbit < run[1].norbit ? run[0].norbit : run[1].norbit;
  double *c = malloc(8 * (size_t)n * sizeof *c);
  if (!c) {
    return err->code = CHS_ERR_MEM;
  }
  const double *cols[8];
  for (int k = 0; k < 8; k++) {
    for (long i = 0; i < n; i++) {
      c[k * n + i] = run[k / 4].orbit[4 * i + k % 4];
    }
    cols[k] = c + k * n;
  }
  const char *header = "exact: x* y* p*x p*y; perturbed: x* y* p*x p*y (every 0.1 on [0, 1023])";
  const char *script[2] = {
      "set title '[Seiler, stable] Fig. 2 (left): x*-y* phase portrait, t <= 1023'\nset xlabel "
      "'x*'\nset ylabel 'y*'\nset size ratio -1\nset key below\nset offsets graph 0.05, graph "
      "0.05, graph 0.05, graph 0.05\nplot DATA u 1:2 w l t "
      "'exact start', DATA u 5:6 w l t 'perturbed start'",
      "set title '[Seiler, stable] Fig. 2 (right): p*x-p*y phase portrait, t <= 60'\nset xlabel "
      "'p*x'\nset ylabel 'p*y'\nset size ratio -1\nset key below\nset offsets graph 0.05, graph "
      "0.05, graph 0.05, graph 0.05\nplot DATA u 3:4 "
      "every ::0::600 w l t 'exact start', DATA u 7:8 every ::0::600 w l t 'perturbed start'"};
  const char *names[2] = {"seiler-impetus-fig2-left-xy", "seiler-impetus-fig2-right-impetus"};
  int rc = 0;
  for (int k = 0; k < 2 && rc == 0; k++) {
    if (rep_plot(dir, names[k], header, cols, 8, n, script[k]) != 0) {
      rc = cli_error(err, CHS_ERR_IO, "plotting into %.300s failed", dir);
    }
  }
  free(c);
  return rc;
}

static int seiler_impetus(rep_report *r, CHSError *err) {
  CHSProblem prob = NULL;
  if (CHSProblem_Create("pendulum", &prob, err) != 0) {
    return err->code;
  }
  const double starts[2][4] = {{1, 0, 0, -2}, {1.1, 0.1, 0.1, -1.9}};
  const char *names[2] = {"exact start (1, 0, 0, -2)", "perturbed start (1.1, 0.1, 0.1, -1.9)"};
  impetus_run run[2], reset;
  double *orbit[2] = {malloc(4 * ORBIT_N * sizeof(double)), malloc(4 * ORBIT_N * sizeof(double))};
  int rc = orbit[0] && orbit[1] ? 0 : (err->code = CHS_ERR_MEM);
  for (int s = 0; s < 2 && rc == 0; s++) {
    rc = run_impetus(prob, "impetus", starts[s], &run[s], orbit[s], err);
    if (rc == 0) {
      rep_row_add(r, NAN, run[s].radius_dev, "max deviation of |q*| from its start, %s", names[s]);
      rep_row_add(r, NAN, run[s].n_slope, "slope of n = q*.p* against t (least squares), %s",
                  names[s]);
      rep_row_add(r, NAN, run[s].n_final, "n = q*.p* at t = 1023, %s", names[s]);
      rep_row_add(r, s == 0 ? 30000 : NAN, run[s].pstar_max, "max impetus amplitude |p*|, %s",
                  names[s]);
      rep_row_add(r, NAN, run[s].energy_err_max, "max relative energy error (observables), %s",
                  names[s]);
    }
  }
  if (rc == 0) {
    rc = run_impetus(prob, "impetus:reset=10", starts[0], &reset, NULL, err);
  }
  if (rc == 0) {
    rep_row_add(r, NAN, reset.pstar_max,
                "max impetus amplitude |p*| with the gauge reset at "
                "|lambda*| > 10, exact start");
    rep_row_add(r, NAN, (double)reset.resets, "gauge resets on [0, 1023]");
    double dq = fmax(fmax(fabs(reset.qf[0] - run[0].qf[0]), fabs(reset.qf[1] - run[0].qf[1])),
                     fmax(fabs(reset.pf[0] - run[0].pf[0]), fabs(reset.pf[1] - run[0].pf[1])));
    rep_row_add(r, NAN, dq, "max |(q, p)(1023) with reset - without|");
    rep_claim_add(r, reset.pstar_max < 20 && reset.resets > 0 && dq < 1e-3,
                  "resetting the impetuses (p* <- p* - lambda* q*) removes the growth and changes "
                  "no observable",
                  "max |p*| %.3g with %ld resets (vs %.3g without); physical states at t = 1023 "
                  "differ by %.2g (RK4 error level)",
                  reset.pstar_max, reset.resets, run[0].pstar_max, dq);
    CHSProblem mprob = NULL;
    impetus_run mod;
    rc = CHSProblem_Create("pendulum:hamiltonian=modified", &mprob, err);
    if (rc == 0) {
      rc = run_impetus(mprob, "impetus", starts[0], &mod, NULL, err);
    }
    CHSProblem_Destroy(&mprob);
    if (rc != 0) {
      CHSProblem_Destroy(&prob);
      free(orbit[0]);
      free(orbit[1]);
      return rc;
    }
    rep_row_add(r, 1000, mod.pstar_max,
                "max impetus amplitude |p*| with the modified Hamiltonian (52)-(53), exact start");
    rep_row_add(r, NAN, mod.energy_err_max,
                "max relative energy error (observables) with (52)-(53), exact start");
    double mdq = fmax(fmax(fabs(mod.qf[0] - run[0].qf[0]), fabs(mod.qf[1] - run[0].qf[1])),
                      fmax(fabs(mod.pf[0] - run[0].pf[0]), fabs(mod.pf[1] - run[0].pf[1])));
    rep_claim_add(r, mod.pstar_max < run[0].pstar_max / 10,
                  "the modified Hamiltonian (52) gives a much smaller maximal impetus amplitude "
                  "than (50) (paper: about 1000 vs about 30000)",
                  "max |p*| %.3g with (53) vs %.3g with (50) (ratio %.3g; paper's ratio 30); "
                  "physical states at t = 1023 differ by %.2g",
                  mod.pstar_max, run[0].pstar_max, run[0].pstar_max / mod.pstar_max, mdq);
    double rate = mean_growth_rate();
    rep_row_add(r, NAN, rate, "period average of (51)'s right-hand side (quadrature)");
    rep_claim_add(r, run[0].radius_dev < 1e-4 && run[1].radius_dev < 1.1e-4,
                  "the (x*, y*) orbit stays on its circle, also for the perturbed start (to well "
                  "below plotting resolution, 1e-4 of the radius, over ~310 revolutions)",
                  "max radius deviation %.2g (exact start), %.2g (perturbed)", run[0].radius_dev,
                  run[1].radius_dev);
    rep_claim_add(r, fabs(run[0].n_slope - rate) <= 0.02 * rate,
                  "n grows on average at the rate (51) predicts: <L^2/r^2> - <y*>",
                  "fitted slope %.5g vs period average %.5g", run[0].n_slope, rate);
    rep_claim_add(r, run[0].n_slope > 0 && fabs(run[0].n_final) > 0.5 * run[0].n_slope * 1023,
                  "the normal impetus component grows linearly (on average)",
                  "n(t) fits slope %.4g; n(1023) = %.4g = %.2f x slope x 1023", run[0].n_slope,
                  run[0].n_final, run[0].n_final / (run[0].n_slope * 1023));
    rep_claim_add(r, run[0].energy_err_max < 1e-3,
                  "no observable (energy, physical momenta) shows the instability",
                  "max relative energy error %.2g on [0, 1023] (RK4, h = 0.025)",
                  run[0].energy_err_max);
    rep_note(
        r,
        "The paper reports a maximal impetus amplitude of about 30000 for (50) 'with the same "
        "parameters as before' (we take RK4, h = 0.025, t in [0, 1023] from its Sec. 8); "
        "ours is %.3g. Since n grows at exactly the rate (51) predicts, |p*| ~ %.3g t, and "
        "30000 corresponds to t ~ %.0f: the paper's run must have been longer than it states "
        "(or used other data). With (52)-(53) (pendulum:hamiltonian=modified, the kinetic energy "
        "scaled by x^2 + y^2) the same run reaches %.3g.\n",
        run[0].pstar_max, rate, 30000 / rate, mod.pstar_max);
  }
  if (rc == 0) {
    rc = versus_projection(r, prob, err);
  }
  if (rc == 0 && r->plot_dir) {
    rc = draw_fig2(r->plot_dir, run, err);
  }
  free(orbit[0]);
  free(orbit[1]);
  CHSProblem_Destroy(&prob);
  return rc;
}

const rep_experiment chs_experiment_seiler_impetus = {
    .name = "seiler-impetus",
    .source = "[Seiler, stable] Sec. 8, (50)-(51), Fig. 2",
    .summary = "impetus-striction pendulum, RK4 h = 0.025 to t = 1023: orbit on its circle, "
               "linear growth of the normal impetus, impetus amplitude",
    .run = seiler_impetus,
};
