/* RATTLE: second order against the pendulum's reference; g and psi at round-off over 10^4 steps
 * (double pendulum, unequal masses); the energy error bounded without drift over 10^5 steps
 * (pendulum: the maximum over 10^5 steps is within 20 % of the maximum over the first 10^4). */
#include "test_util.h"

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
  CHSRunSummary s = run("double-pendulum:m1=1,m2=3", 0.01, 100, 1);
  print_message("rattle, double pendulum, 10^4 steps: max |g| %.2e, max |psi| %.2e\n",
                s.diag.pos_res_max, s.diag.mom_res_max);
  assert_int_equal(s.stats.steps, 10000);
  CHECK_LE(s.diag.pos_res_max, 1e-13);
  CHECK_LE(s.diag.mom_res_max, 1e-13);
}

static void test_energy_bounded(void **state) {
  (void)state;
  CHSRunSummary a = run("pendulum", 0.1, 1000, 1), b = run("pendulum", 0.1, 10000, 1);
  print_message("rattle, pendulum h = 0.1: max energy error %.3e over 10^4 steps, %.3e over 10^5\n",
                a.diag.energy_err_max, b.diag.energy_err_max);
  assert_int_equal(b.stats.steps, 100000);
  CHECK_LE(b.diag.energy_err_max, 1.2 * a.diag.energy_err_max);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_order),
      cmocka_unit_test(test_constraints),
      cmocka_unit_test(test_energy_bounded),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
