/* The canonical state space form (ssf): accuracy against the pendulum's reference through many
 * chart changes, constraints exact by construction, agreement with the standard formulation on
 * the double pendulum (physical states), and bounded energy error of gauss:2 (symplectic on the
 * canonical SSF) on a libration that stays in one chart. */
#include <nvector/nvector_serial.h>
#include "test_util.h"

static CHSRunSummary run(const char *problem, const char *form, const char *method, double h,
                         double tol, double tf, long *recharts) {
  CHSProblem prob = new_problem(problem);
  CHSFormulation f = new_formulation(form, prob, test_context());
  CHSRunOptions o = run_options(method, h, tf);
  o.ctl.rtol = o.ctl.atol = tol;
  CHSRunSummary sum = run_ok(f, &o);
  if (recharts) {
    *recharts = CHSFormulation_GetNumRecharts(f);
  }
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
  return sum;
}

static void test_rotating_pendulum(void **state) {
  (void)state;
  long recharts = 0;
  CHSRunSummary s = run("pendulum", "ssf", "erk:dp5", 0, 1e-10, 10, &recharts);
  print_message("ssf, rotating pendulum, dp5 tol 1e-10, t = 10: error %.3e, max |g| %.1e, "
                "|psi| %.1e, %ld chart changes\n",
                s.diag.int_err_final, s.diag.pos_res_max, s.diag.mom_res_max, recharts);
  CHECK_LE(s.diag.int_err_final, 1e-7);
  CHECK_LE(s.diag.pos_res_max, 1e-14);
  CHECK_LE(s.diag.mom_res_max, 1e-13);
  /* three revolutions, two chart changes per half revolution at least */
  assert_true(recharts >= 8);
}

static int capture(const CHSRecord *rec, void *ctx) {
  memcpy(ctx, rec->q, 4 * sizeof(double));
  memcpy((double *)ctx + 4, rec->p, 4 * sizeof(double));
  return 0;
}

static void final_state(const char *form, double *z) {
  CHSProblem prob = new_problem("double-pendulum:m1=1,m2=3");
  CHSFormulation f = new_formulation(form, prob, test_context());
  CHSRunOptions o = run_options("erk:dp5", 0, 3);
  o.ctl.rtol = o.ctl.atol = 1e-12;
  o.every = 1000000;
  run_monitored_ok(f, &o, capture, z);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

static void test_double_pendulum_agrees(void **state) {
  (void)state;
  double a[8], b[8];
  final_state("standard", a);
  final_state("ssf", b);
  print_message("double pendulum t = 3: |standard - ssf| = %.3e\n", diff_inf(a, b, 8));
  CHECK_LE(diff_inf(a, b, 8), 1e-8);
}

static void test_libration_energy_bounded(void **state) {
  (void)state;
  const char *p = "pendulum:x=0.6,y=-0.8,px=0,py=0";
  long r1 = 0, r2 = 0;
  CHSRunSummary a = run(p, "ssf", "gauss:2", 0.1, 0, 100, &r1);
  CHSRunSummary b = run(p, "ssf", "gauss:2", 0.1, 0, 1000, &r2);
  print_message("ssf + gauss:2, libration, h = 0.1: max energy error on [0,100] %.3e, on [0,1000] "
                "%.3e; max |g| %.1e; chart changes %ld\n",
                a.diag.energy_err_max, b.diag.energy_err_max, b.diag.pos_res_max, r2);
  assert_int_equal(r2, 0);
  CHECK_LE(b.diag.energy_err_max, 1.5 * a.diag.energy_err_max);
  CHECK_LE(b.diag.pos_res_max, 1e-14);
}

/* Sizes beyond the dense partitioning's limit (m = 800) are refused at creation, quickly and as
 * an input error naming m, n and the limit (chain:N=3200 used to spend 50 s in the set-up). */
static void test_size_limit(void **state) {
  (void)state;
  const char *specs[] = {"chain:N=802", "chain:N=3200"};
  const char *needles[] = {"m = 801 constraints (n = 1604), more than the 800",
                           "m = 3199 constraints (n = 6400), more than the 800"};
  for (int i = 0; i < 2; i++) {
    CHSProblem prob = new_problem(specs[i]);
    CHSFormulation f = NULL;
    CHSError err;
    CHSError_Clear(&err);
    int rc = CHSFormulation_Create("ssf", prob, test_context(), &f, &err);
    print_message("%s: %s\n", specs[i], err.msg);
    assert_int_equal(rc, CHS_ERR_UNSUPPORTED);
    assert_true(CHSError_IsInput(err.code));
    assert_non_null(strstr(err.msg, needles[i]));
    assert_null(f);
    CHSProblem_Destroy(&prob);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rotating_pendulum),
      cmocka_unit_test(test_double_pendulum_agrees),
      cmocka_unit_test(test_libration_energy_bounded),
      cmocka_unit_test(test_size_limit),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
