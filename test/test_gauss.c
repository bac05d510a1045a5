/* Gauss-Legendre with functional iteration (gauss:s): observed orders 2s on the pendulum against
 * the reference, and exact preservation of quadratic first integrals (Cooper): psi = x px + y py
 * is one for the standard formulation of the pendulum (psi' = r - Q lambda = 0 for any state),
 * so gauss keeps |psi| at round-off over 1000 steps where RK4 drifts. (g is not a first integral
 * of the standard ODE off psi = 0, so it is not preserved exactly; it only drifts far less.) */
#include "test_util.h"

static CHSRunSummary run(const char *form, const char *method, double h, double tf) {
  CHSProblem prob = new_problem("pendulum");
  CHSFormulation f = new_formulation(form, prob, test_context());
  CHSRunOptions o;
  CHSRunOptions_Default(&o);
  o.method = method;
  o.ctl.h = h;
  o.tf = tf;
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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_orders),
      cmocka_unit_test(test_quadratic_invariant),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
