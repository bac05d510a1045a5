/* RATTLE: second order against the pendulum's reference; g and psi at round-off over 10^4 steps
 * (double pendulum, unequal masses); the energy error bounded without drift over 10^5 steps
 * (pendulum: the maximum over 10^5 steps is within 20 % of the maximum over the first 10^4).
 * With M(q) (the pendulum in polar coordinates, docs/mechanics.md "Symplectic methods for M(q)
 * and g(q,t)"): the Cartesian image follows the pendulum's reference to second order, g and psi
 * at round-off, the energy error bounded; with a moving constraint g(q, t): g and
 * psi = G v + g_t at round-off and second-order agreement with the moving-frame model. */
#include "symplectic_mass.h"

static CHSRunSummary run(const char *problem, double h, double tf, long every) {
  CHSProblem prob = new_problem(problem);
  CHSFormulation f = new_formulation("standard", prob, test_context());
  CHSRunOptions o;
  CHSRunOptions_Default(&o);
  o.method = "rattle";
  o.ctl.h = h;
  o.tf = tf;
  o.every = every;
  CHSRunSummary sum = run_ok(f, &o);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
  return sum;
}

static void test_order(void **state) {
  (void)state;
  double e[3];
  for (int k = 0; k < 3; k++) {
    e[k] = run("pendulum", 0.1 / (1 << k), 5, 1).diag.int_err_final;
  }
  double p1 = log2(e[0] / e[1]), p2 = log2(e[1] / e[2]);
  print_message("rattle: errors %.3e %.3e %.3e, orders %.3f %.3f\n", e[0], e[1], e[2], p1, p2);
  CHECK_NEAR(p1, 2, 0.15);
  CHECK_NEAR(p2, 2, 0.15);
}

static void test_constraints(void **state) {
  (void)state;
  check_constraints_at_roundoff("rattle");
}

static void test_energy_bounded(void **state) {
  (void)state;
  CHSRunSummary a = run("pendulum", 0.1, 1000, 1), b = run("pendulum", 0.1, 10000, 1);
  print_message("rattle, pendulum h = 0.1: max energy error %.3e over 10^4 steps, %.3e over 10^5\n",
                a.diag.energy_err_max, b.diag.energy_err_max);
  assert_int_equal(b.stats.steps, 100000);
  CHECK_LE(b.diag.energy_err_max, 1.2 * a.diag.energy_err_max);
}

/* M(q): offset polar pendulum against the Cartesian pendulum's reference, order 2 (the error
 * constants of the polar and the Cartesian RATTLE differ: they are different maps of the same
 * motion). */
static void test_mass_order(void **state) {
  (void)state;
  double e[3];
  for (int k = 0; k < 3; k++) {
    CHSRunSummary s = sm_polar("rattle", 0.05 / (1 << k), 5, &e[k]);
    print_message("rattle, offset polar pendulum h = %g: %.2f force evaluations per step\n",
                  0.05 / (1 << k), (double)s.stats.rhs_evals / (double)s.stats.steps);
    CHECK_LE(s.diag.pos_res_max, 1e-14);
    CHECK_LE(s.diag.mom_res_max, 1e-14);
  }
  double p1 = log2(e[0] / e[1]), p2 = log2(e[1] / e[2]);
  print_message(
      "rattle, offset polar pendulum vs Cartesian reference: errors %.3e %.3e %.3e, orders "
      "%.3f %.3f\n",
      e[0], e[1], e[2], p1, p2);
  CHECK_NEAR(p1, 2, 0.15);
  CHECK_NEAR(p2, 2, 0.15);
  CHECK_LE(e[2], 4e-3); /* h = 0.0125 (Cartesian RATTLE at h = 0.0125: 1.9e-3) */
}

/* M(q): the energy error stays bounded (no drift) over 10^5 steps. */
static void test_mass_energy_bounded(void **state) {
  (void)state;
  assert_int_equal(sm_polar_energy_bounded("rattle", 1000, 0.02).stats.steps, 100000);
}

/* g(q, t): the moving circle, g and psi = G v + g_t at round-off, second order against the
 * moving-frame model. */
static void test_moving_constraint(void **state) {
  (void)state;
  double e[3];
  for (int k = 0; k < 3; k++) {
    CHSRunSummary s = sm_circle("rattle", 0.02 / (1 << k), 8, &e[k]);
    print_message("rattle, moving circle h = %g: |state - model| %.3e, max |g| %.2e, |psi| %.2e, "
                  "energy balance error %.2e, %.2f force evaluations per step\n",
                  0.02 / (1 << k), e[k], s.diag.pos_res_max, s.diag.mom_res_max,
                  s.diag.balance_err_max, (double)s.stats.rhs_evals / (double)s.stats.steps);
    CHECK_LE(s.diag.pos_res_max, 1e-14);
    CHECK_LE(s.diag.mom_res_max, 1e-14);
  }
  CHECK_NEAR(log2(e[0] / e[1]), 2, 0.15);
  CHECK_NEAR(log2(e[1] / e[2]), 2, 0.15);
}

/* sprk's tables need a separable H: it refuses M(q), naming the reason. */
static void test_sprk_refuses_mass(void **state) {
  (void)state;
  CHSError err;
  assert_int_equal(sm_create_on_polar("rattle", &err), 0);
  assert_int_equal(sm_create_on_polar("sprk", &err), CHS_ERR_UNSUPPORTED);
  print_message("sprk on M(q): %s\n", err.msg);
  assert_non_null(strstr(err.msg, "sprk"));
  assert_non_null(strstr(err.msg, "separable"));
  assert_non_null(strstr(err.msg, "M(q)"));
}

/* M(q): no exact tangent map (it would need second derivatives of M): refused before any step,
 * so the integrator's next step is that of a fresh one (bit for bit). */
static void test_mass_tangent_refused(void **state) {
  (void)state;
  const char *methods[] = {"rattle", "lobatto:3", "alpha-prk:3"};
  for (int k = 0; k < 3; k++) {
    CHSProblem prob = new_problem_from_ops(&offset_polar_pendulum_ops, "");
    CHSFormulation f = new_formulation("standard", prob, test_context());
    N_Vector y = NULL, y2 = NULL;
    CHSError err;
    CHSError_Clear(&err);
    assert_int_equal(CHSFormulation_NewInitialState(f, &y, &err), 0);
    y2 = N_VClone(y);
    N_VScale(1, y, y2);
    CHSStepControl ctl = {.h = 0.05};
    CHSIntegrator a = NULL, b = NULL;
    assert_int_equal(CHSIntegrator_Create(methods[k], f, y, 0, &ctl, &a, &err), 0);
    assert_int_equal(CHSIntegrator_Create(methods[k], f, y2, 0, &ctl, &b, &err), 0);
    double dz[8] = {0.1, 0.2, 0.3, 0.4, 0, 0, 0, 0}, tr;
    assert_int_equal(CHSIntegrator_TangentStep(a, 0.05, 2, dz, y, &err), CHS_ERR_UNSUPPORTED);
    print_message("%s: %s\n", methods[k], err.msg);
    assert_non_null(strstr(err.msg, "M(q)"));
    assert_int_equal(CHSIntegrator_Evolve(a, 0.05, y, &tr, &err), 0);
    assert_int_equal(CHSIntegrator_Evolve(b, 0.05, y2, &tr, &err), 0);
    for (int i = 0; i < 4; i++) {
      assert_true(N_VGetArrayPointer(y)[i] == N_VGetArrayPointer(y2)[i]);
    }
    CHSIntegrator_Destroy(&a);
    CHSIntegrator_Destroy(&b);
    N_VDestroy(y);
    N_VDestroy(y2);
    CHSFormulation_Destroy(&f);
    CHSProblem_Destroy(&prob);
  }
}

/* The control of test_mass_order: the same problem with F_M = 1/2 grad (v^T M v) dropped (a
 * mass_grad that returns 0, i.e. the constant-mass kick) departs from the reference by O(1), so
 * the comparison sees the M(q) terms. */
static int zero_mass_grad(void *data, const sunrealtype *q, const sunrealtype *a,
                          const sunrealtype *b, sunrealtype *out) {
  (void)data;
  (void)q;
  (void)a;
  (void)b;
  out[0] = out[1] = 0;
  return 0;
}

static void test_mass_order_control(void **state) {
  (void)state;
  CHSProblemOps ops = offset_polar_pendulum_ops;
  ops.mass_grad = zero_mass_grad;
  CHSProblem prob = new_problem_from_ops(&ops, "");
  mass_observer o = {.cart = new_problem("pendulum"), .pivot = {0.5, 2}};
  CHSRunOptions opt = run_options("rattle", 0.0125, 5);
  mass_run(prob, "standard", &opt, &o);
  print_message("rattle without F_M: |Cartesian image - reference| %.3e\n", o.err);
  CHECK_GT(o.err, 0.1);
  CHSProblem_Destroy(&o.cart);
  CHSProblem_Destroy(&prob);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_order),
      cmocka_unit_test(test_constraints),
      cmocka_unit_test(test_energy_bounded),
      cmocka_unit_test(test_mass_order),
      cmocka_unit_test(test_mass_order_control),
      cmocka_unit_test(test_mass_energy_bounded),
      cmocka_unit_test(test_moving_constraint),
      cmocka_unit_test(test_sprk_refuses_mass),
      cmocka_unit_test(test_mass_tangent_refused),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
