/* Convergence orders of the ERK adapters through the library's run loop:
 *   - classical RK4 (erk:rk4) has order 4 and Dormand-Prince (erk:dp5) order 5 with fixed steps
 *     on the pendulum, against the problem's reference solution, for the standard and the
 *     Hamilton-Dirac formulations;
 *   - adaptive erk:dp5: tightening rtol = atol from 1e-6 to 1e-9 reduces the error >= 100x;
 *   - on the double pendulum (no reference) RK4 has order 4 by Richardson's ratio
 *     |y_h - y_{h/2}| / |y_{h/2} - y_{h/4}| ~ 2^4. */
#include <nvector/nvector_serial.h>
#include "test_util.h"

/* One CHSRun to tf; returns the summary (asserting success). Output only at tf (every huge). */
static CHSRunSummary run(const char *problem, const char *form, const char *method, double h,
                         double rtol, double tf) {
  CHSProblem prob = new_problem(problem);
  CHSFormulation f = new_formulation(form, prob, test_context());
  CHSError err;
  CHSError_Clear(&err);
  CHSRunOptions opt;
  CHSRunOptions_Default(&opt);
  opt.method = method;
  opt.ctl.h = h;
  opt.ctl.rtol = rtol;
  opt.ctl.atol = rtol;
  opt.t0 = 0;
  opt.tf = tf;
  opt.every = h > 0 ? 1000000 : 1000000000;
  CHSRunSummary sum;
  int rc = CHSRun(f, &opt, NULL, NULL, &sum, &err);
  if (rc != 0) {
    print_error("CHSRun(%s, %s, %s): %s\n", problem, form, method, err.msg);
  }
  assert_int_equal(rc, 0);
  assert_int_equal(sum.completed, 1);
  assert_true(sum.diag.has_reference);
  CHECK_NEAR(sum.diag.t_final, tf, 1e-12 * tf);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
  return sum;
}

static void check_fixed_order(const char *problem, const char *method, double h, double tf,
                              double order, int stages) {
  const char *forms[] = {"standard", "dirac"};
  for (int fi = 0; fi < 2; fi++) {
    double e[3];
    for (int k = 0; k < 3; k++) {
      double hk = h / (double)(1 << k);
      CHSRunSummary s = run(problem, forms[fi], method, hk, 0, tf);
      e[k] = s.diag.int_err_final;
      long nsteps = lround(tf / hk);
      /* Fixed steps: tf/h steps, and `stages` RHS evaluations per step (the FSAL stage of DP5
       * is reused; RK4 is not FSAL and must evaluate all four stages). */
      assert_int_equal(s.stats.steps, nsteps);
      CHECK_LE(labs(s.rhs_evals - stages * nsteps), 2);
    }
    double p1 = log2(e[0] / e[1]), p2 = log2(e[1] / e[2]);
    print_message("%s %s %-8s h=%g,%g,%g: errors %.3e %.3e %.3e, orders %.3f %.3f\n", problem,
                  method, forms[fi], h, h / 2, h / 4, e[0], e[1], e[2], p1, p2);
    /* Errors far above round-off, so the observed order is meaningful. */
    CHECK_LE(1e-11, e[2]);
    CHECK_NEAR(p1, order, 0.3);
    CHECK_NEAR(p2, order, 0.3);
  }
}

static void test_rk4_order(void **state) {
  (void)state;
  /* The papers' rotating pendulum (1, 0, 0, -2). At h = 0.1 the Dirac errors are still
   * pre-asymptotic (observed order 4.47 from h = 0.1 to 0.05), hence h = 0.025. */
  check_fixed_order("pendulum", "erk:rk4", 0.025, 2.0, 4.0, 4);
}

static void test_dp5_order(void **state) {
  (void)state;
  /* Dormand-Prince has small fifth-order error constants: on the fast rotating pendulum the
   * sixth-order terms dominate down to h ~ 0.01 for the standard ODE (observed orders 5.8, 5.6,
   * 5.4 from h = 0.1), where errors approach round-off. A libration (start at rest from
   * (0.6, -0.8)) is in the asymptotic regime, with errors 2e-8 .. 2e-11 at t = 5. */
  check_fixed_order("pendulum:x=0.6,y=-0.8,px=0,py=0", "erk:dp5", 0.1, 5.0, 5.0, 6);
}

/* ARKStep with the implicit midpoint rule (Newton to 1e-10): order 2 for both formulations. */
static void test_implicit_midpoint_order(void **state) {
  (void)state;
  const char *forms[] = {"standard", "dirac"};
  for (int fi = 0; fi < 2; fi++) {
    double e[3];
    for (int k = 0; k < 3; k++) {
      CHSRunSummary s = run("pendulum", forms[fi], "dirk:midpoint", 0.05 / (1 << k), 0, 5.0);
      assert_int_equal(s.stats.steps, 100 << k);
      assert_true(s.stats.jac_evals > 0);
      e[k] = s.diag.int_err_final;
    }
    double p1 = log2(e[0] / e[1]), p2 = log2(e[1] / e[2]);
    print_message("implicit midpoint %s: errors %.3e %.3e %.3e, orders %.3f %.3f\n", forms[fi],
                  e[0], e[1], e[2], p1, p2);
    CHECK_NEAR(p1, 2.0, 0.2);
    CHECK_NEAR(p2, 2.0, 0.2);
  }
}

static void test_dp5_adaptive(void **state) {
  (void)state;
  const char *forms[] = {"standard", "dirac"};
  for (int fi = 0; fi < 2; fi++) {
    CHSRunSummary a = run("pendulum", forms[fi], "erk:dp5", 0, 1e-6, 10.0);
    CHSRunSummary b = run("pendulum", forms[fi], "erk:dp5", 0, 1e-9, 10.0);
    print_message("erk:dp5 %-8s adaptive: rtol 1e-6 err %.3e (%ld steps), rtol 1e-9 err %.3e "
                  "(%ld steps), ratio %.1f\n",
                  forms[fi], a.diag.int_err_final, a.stats.steps, b.diag.int_err_final,
                  b.stats.steps, a.diag.int_err_final / b.diag.int_err_final);
    CHECK_LE(100 * b.diag.int_err_final, a.diag.int_err_final);
    /* The tolerance is not grossly violated either (global error over ~3 periods). */
    CHECK_LE(a.diag.int_err_final, 1e-3);
    CHECK_LE(b.stats.steps, 20 * a.stats.steps);
    assert_true(b.stats.steps > a.stats.steps);
  }
}

/* Final state of a fixed-step integration through CHSIntegrator (physical (q, p)). */
static void integrate_to(CHSFormulation f, const char *method, double h, double tf, double *out) {
  CHSError err;
  CHSError_Clear(&err);
  N_Vector y = NULL;
  assert_int_equal(CHSFormulation_NewInitialState(f, &y, &err), 0);
  CHSStepControl ctl = {h, 0, 0, 0};
  CHSIntegrator it = NULL;
  assert_int_equal(CHSIntegrator_Create(method, f, y, 0.0, &ctl, &it, &err), 0);
  sunrealtype t = 0;
  int rc = CHSIntegrator_Evolve(it, tf, y, &t, &err);
  if (rc != 0) {
    print_error("evolve: %s\n", err.msg);
  }
  assert_int_equal(rc, 0);
  CHECK_NEAR(t, tf, 1e-12);
  CHSIntegratorStats st;
  assert_int_equal(CHSIntegrator_GetStats(it, &st), 0);
  assert_int_equal(st.steps, lround(tf / h));
  sunindextype n = CHSProblem_GetDims(CHSFormulation_GetProblem(f))->n;
  assert_int_equal(CHSFormulation_ToPhysical(f, y, out, out + n), 0);
  CHSIntegrator_Destroy(&it);
  N_VDestroy(y);
}

static void test_rk4_richardson_double_pendulum(void **state) {
  (void)state;
  const char *forms[] = {"standard", "dirac"};
  const char *specs[] = {"double-pendulum", "double-pendulum:m1=1,m2=3,sparse=0"};
  for (int si = 0; si < 2; si++) {
    CHSProblem prob = new_problem(specs[si]);
    assert_null(CHSProblem_GetOps(prob)->reference);
    for (int fi = 0; fi < 2; fi++) {
      CHSFormulation f = new_formulation(forms[fi], prob, test_context());
      double y[3][8];
      const double h = 0.04, tf = 2.0;
      for (int k = 0; k < 3; k++) {
        integrate_to(f, "erk:rk4", h / (double)(1 << k), tf, y[k]);
      }
      double d1 = diff2(y[0], y[1], 8), d2 = diff2(y[1], y[2], 8);
      print_message("double pendulum %s %-8s rk4: |y_h - y_h/2| = %.3e, |y_h/2 - y_h/4| = "
                    "%.3e, ratio %.2f, order %.3f\n",
                    specs[si], forms[fi], d1, d2, d1 / d2, log2(d1 / d2));
      CHECK_LE(1e-10, d2);
      CHECK_NEAR(log2(d1 / d2), 4.0, 0.3);
      CHSFormulation_Destroy(&f);
    }
    CHSProblem_Destroy(&prob);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rk4_order),
      cmocka_unit_test(test_dp5_order),
      cmocka_unit_test(test_dp5_adaptive),
      cmocka_unit_test(test_implicit_midpoint_order),
      cmocka_unit_test(test_rk4_richardson_double_pendulum),
  };
  return cmocka_run_group_tests_name("convergence", tests, group_setup, group_teardown);
}
