/* Gauss-Legendre with functional iteration (gauss:s): observed orders 2s on the pendulum against
 * the reference, and exact preservation of quadratic first integrals (Cooper): psi = x px + y py
 * is one for the standard formulation of the pendulum (psi' = r - Q lambda = 0 for any state),
 * so gauss keeps |psi| at round-off over 1000 steps where RK4 drifts. (g is not a first integral
 * of the standard ODE off psi = 0, so it is not preserved exactly; it only drifts far less.) */
#include "test_util.h"

static CHSRunSummary run(const char *form, const char *method, double h, double tf) {
  CHSProblem prob = new_problem("pendulum");
  CHSFormulation f = new_formulation(form, prob, test_context());
  CHSRunOptions o = run_options(method, h, tf);
  o.every = 1000000;
  CHSRunSummary sum = run_ok(f, &o);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
  return sum;
}

static void test_orders(void **state) {
  (void)state;
  const char *methods[3] = {"gauss:1", "gauss:2", "gauss:3"};
  const double hs[3] = {0.05, 0.1, 0.2};
  for (int s = 0; s < 3; s++) {
    double e0 = run("dirac", methods[s], hs[s], 5).diag.int_err_final;
    double e1 = run("dirac", methods[s], hs[s] / 2, 5).diag.int_err_final;
    double p = log2(e0 / e1);
    print_message("%s: errors %.3e %.3e, order %.3f\n", methods[s], e0, e1, p);
    CHECK_NEAR(p, 2.0 * (s + 1), 0.3);
    CHECK_LE(1e-11, e1);
  }
}

static void test_quadratic_invariant(void **state) {
  (void)state;
  CHSRunSummary g = run("standard", "gauss:2", 0.1, 100);
  CHSRunSummary r = run("standard", "erk:rk4", 0.1, 100);
  print_message("standard, t in [0, 100], h = 0.1: max |psi| gauss:2 %.3e, rk4 %.3e; max |g| "
                "gauss:2 %.3e, rk4 %.3e\n",
                g.diag.mom_res_max, r.diag.mom_res_max, g.diag.pos_res_max, r.diag.pos_res_max);
  CHECK_LE(g.diag.mom_res_max, 1e-13);
  CHECK_LE(g.diag.pos_res_max, 1e-3 * r.diag.pos_res_max);
  CHECK_GT(r.diag.mom_res_max, 1e-4);
}

/* midpoint:fixed is gauss:1 (the same stepper: identical results); with tol=1e-5 the iteration
 * stops early: fewer evaluations, the same solution to about the tolerance. */
static void test_midpoint_alias(void **state) {
  (void)state;
  CHSRunSummary g = run("dirac", "gauss:1", 0.1, 10), m = run("dirac", "midpoint:fixed", 0.1, 10);
  CHSRunSummary t = run("dirac", "midpoint:fixed:tol=1e-5", 0.1, 10);
  print_message("gauss:1 error %.6e (%ld evals), midpoint:fixed %.6e (%ld), tol=1e-5 %.6e (%ld)\n",
                g.diag.int_err_final, g.rhs_evals, m.diag.int_err_final, m.rhs_evals,
                t.diag.int_err_final, t.rhs_evals);
  assert_true(g.diag.int_err_final == m.diag.int_err_final);
  assert_int_equal(g.rhs_evals, m.rhs_evals);
  CHECK_LE(t.rhs_evals, g.rhs_evals / 2);
  CHECK_NEAR(t.diag.int_err_final, g.diag.int_err_final, 1e-3);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_orders),
      cmocka_unit_test(test_quadratic_invariant),
      cmocka_unit_test(test_midpoint_alias),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
