/* Lobatto IIIA-IIIB (src/integrate/lobatto.c):
 *   - the coefficients against HLW Table II.1.2 (s = 3) and the symplecticity condition
 *     b_i ah_ij + b_j a_ji = b_i b_j (s = 2, 3, 4);
 *   - lobatto:2 is RATTLE: the same trajectory to round-off (pendulum, 1000 steps; the chaotic
 *     double pendulum, 100 steps);
 *   - observed orders against the pendulum's exact reference (rattle, lobatto:2 -> 2,
 *     lobatto:3 -> 4, lobatto:4 -> 6) and on the double pendulum against a Verner 8(5,6) run of
 *     the Hamilton-Dirac equations at tolerance 1e-13;
 *   - |g| and |psi| at the Newton tolerance over 10^4 steps (double pendulum, unequal masses);
 *   - variable steps refused;
 *   - M(q) (offset polar pendulum against the Cartesian pendulum's reference) and a moving
 *     constraint g(q, t) (moving circle against the moving-frame model): orders 2s - 2, g and psi
 *     at round-off, lobatto:2 = rattle, the energy error bounded. */
#include "symplectic_mass.h"
#include "integrate/cprk.h"

typedef struct {
  double q[8], p[8];
  int n;
} final_state;

static int keep_final(const CHSRecord *rec, void *ctx) {
  final_state *z = ctx;
  memcpy(z->q, rec->q, (size_t)z->n * sizeof(double));
  memcpy(z->p, rec->p, (size_t)z->n * sizeof(double));
  return 0;
}

/* Final state and summary of one run. */
static CHSRunSummary run(const char *problem, const char *form, const char *method, double h,
                         double tol, double tf, final_state *z) {
  CHSProblem prob = new_problem(problem);
  CHSFormulation f = new_formulation(form, prob, test_context());
  CHSRunOptions o = run_options(method, h, tf);
  o.ctl.rtol = o.ctl.atol = tol;
  o.every = h > 0 ? 1 : 1000000;
  z->n = (int)CHSProblem_GetDims(prob)->n;
  CHSRunSummary sum = run_monitored_ok(f, &o, keep_final, z);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
  return sum;
}

static double dist(const final_state *a, const final_state *b) {
  double d = 0;
  for (int i = 0; i < a->n; i++) {
    d += (a->q[i] - b->q[i]) * (a->q[i] - b->q[i]) + (a->p[i] - b->p[i]) * (a->p[i] - b->p[i]);
  }
  return sqrt(d);
}

static void test_coefficients(void **state) {
  (void)state;
  chs_cprk_tableau t;
  assert_int_equal(chs_lobatto_tableau(1, &t), -1);
  assert_int_equal(chs_lobatto_tableau(3, &t), 0);
  /* HLW Table II.1.2 (Lobatto IIIA) and II.1.3 (IIIB), s = 3 */
  const double A[3][3] = {{0, 0, 0}, {5. / 24, 1. / 3, -1. / 24}, {1. / 6, 2. / 3, 1. / 6}};
  const double Ah[3][3] = {{1. / 6, -1. / 6, 0}, {1. / 6, 1. / 3, 0}, {1. / 6, 5. / 6, 0}};
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      CHECK_NEAR(t.A[i][j], A[i][j], 1e-15);
      CHECK_NEAR(t.Ah[i][j], Ah[i][j], 1e-15);
    }
  }
  for (int s = 2; s <= 4; s++) {
    assert_int_equal(chs_lobatto_tableau(s, &t), 0);
    double sb = 0;
    for (int i = 0; i < s; i++) {
      sb += t.b[i];
    }
    CHECK_NEAR(sb, 1, 1e-15);
    CHECK_LE(chs_cprk_symplectic_defect(&t), 1e-15);
  }
}

static void test_rattle_equivalence(void **state) {
  (void)state;
  final_state a, b;
  run("pendulum", "standard", "rattle", 0.01, 0, 0.01, &a);
  run("pendulum", "standard", "lobatto:2", 0.01, 0, 0.01, &b);
  double d = dist(&a, &b);
  print_message("lobatto:2 vs rattle, pendulum, one step: |difference| = %.2e\n", d);
  CHECK_LE(d, 1e-15);
  /* two round-off solutions of one map drift apart along the orbit (the period depends on the
   * energy): a few ulps per step */
  run("pendulum", "standard", "rattle", 0.01, 0, 10, &a);
  run("pendulum", "standard", "lobatto:2", 0.01, 0, 10, &b);
  d = dist(&a, &b);
  print_message("lobatto:2 vs rattle, pendulum, 1000 steps: |difference| = %.2e\n", d);
  CHECK_LE(d, 1e-12);
  /* the double pendulum is chaotic: round-off differences grow, so 100 steps */
  run("double-pendulum:m1=1,m2=3", "standard", "rattle", 0.01, 0, 1, &a);
  run("double-pendulum:m1=1,m2=3", "standard", "lobatto:2", 0.01, 0, 1, &b);
  d = dist(&a, &b);
  print_message("lobatto:2 vs rattle, double pendulum, 100 steps: |difference| = %.2e\n", d);
  CHECK_LE(d, 1e-13);
}

static void orders(const char *problem, const char *method, double h0, double tf, double expect,
                   const final_state *ref) {
  double e[3];
  final_state z;
  for (int k = 0; k < 3; k++) {
    CHSRunSummary s = run(problem, "standard", method, h0 / (1 << k), 0, tf, &z);
    e[k] = ref ? dist(&z, ref) : s.diag.int_err_final;
  }
  double p1 = log2(e[0] / e[1]), p2 = log2(e[1] / e[2]);
  print_message("%s on %s: errors %.3e %.3e %.3e, orders %.3f %.3f\n", method, problem, e[0], e[1],
                e[2], p1, p2);
  CHECK_NEAR(p2, expect, 0.2);
  CHECK_NEAR(p1, expect, 0.4);
}

static void test_orders_pendulum(void **state) {
  (void)state;
  orders("pendulum", "rattle", 0.1, 5, 2, NULL);
  orders("pendulum", "lobatto:2", 0.1, 5, 2, NULL);
  orders("pendulum", "lobatto:3", 0.1, 5, 4, NULL);
  orders("pendulum", "lobatto:4", 0.2, 5, 6, NULL);
}

static void test_orders_double_pendulum(void **state) {
  (void)state;
  final_state ref;
  run("double-pendulum", "dirac", "erk:ARKODE_VERNER_8_5_6", 0, 1e-13, 2, &ref);
  orders("double-pendulum", "lobatto:2", 0.05, 2, 2, &ref);
  orders("double-pendulum", "lobatto:3", 0.05, 2, 4, &ref);
}

static void test_constraints(void **state) {
  (void)state;
  check_constraints_at_roundoff("lobatto:2");
  check_constraints_at_roundoff("lobatto:3");
}

/* A chain of 60 atoms from thermal velocities (360 unknowns): the stage Newton stalls at a
 * rounding level above 1e3 u (the increment noise grows with the number of unknowns), which is
 * recognised as convergence; g stays at round-off and the energy at the method's error. */
static void test_chain_stages(void **state) {
  (void)state;
  CHSProblem prob = new_problem("chain:N=60,init=2,vel=thermal");
  CHSFormulation f = new_formulation("standard", prob, test_context());
  CHSRunOptions o = run_options("lobatto:3", 0.005, 0.05);
  CHSRunSummary r = run_ok(f, &o);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
  print_message("lobatto:3, chain N = 60, 10 steps: max |g| %.2e, energy error %.2e\n",
                r.diag.pos_res_max, r.diag.energy_err_max);
  assert_int_equal(r.stats.steps, 10);
  CHECK_LE(r.diag.pos_res_max, 1e-13);
  CHECK_LE(r.diag.energy_err_max, 1e-10);
}

/* The structured stage Newton (any size: s - 1 Gram solves per iteration) solves the same stage
 * equations as the dense one: one step agrees to round-off, 100 steps of the chaotic double
 * pendulum and of a 20-atom chain to accumulated round-off; it keeps the order; and it runs a
 * chain whose dense Newton matrix (8000 unknowns) would not be formed, with g at round-off. */
static void test_structured_newton(void **state) {
  (void)state;
  const char *methods[] = {"lobatto:3", "lobatto:4", "alpha-prk:3"};
  for (int k = 0; k < 3; k++) {
    char dense[64], structured[64];
    snprintf(dense, sizeof dense, "%s:newton=dense", methods[k]);
    snprintf(structured, sizeof structured, "%s:newton=structured", methods[k]);
    final_state a, b;
    run("double-pendulum:m1=1,m2=3", "standard", dense, 0.01, 0, 0.01, &a);
    run("double-pendulum:m1=1,m2=3", "standard", structured, 0.01, 0, 0.01, &b);
    double d1 = dist(&a, &b);
    run("double-pendulum:m1=1,m2=3", "standard", dense, 0.01, 0, 1, &a);
    run("double-pendulum:m1=1,m2=3", "standard", structured, 0.01, 0, 1, &b);
    double d100 = dist(&a, &b);
    print_message("%s, double pendulum: dense vs structured Newton %.2e (one step), %.2e (100 "
                  "steps)\n",
                  methods[k], d1, d100);
    CHECK_LE(d1, 1e-14);
    CHECK_LE(d100, 1e-11);
  }
  orders("pendulum", "lobatto:3:newton=structured", 0.1, 5, 4, NULL);
  double e0 = 0;
  for (int k = 0; k < 2; k++) { /* the chain: CSR G, tridiagonal Gram; 40 coordinates */
    const char *spec = "chain:N=20,init=2,vel=thermal";
    CHSProblem prob = new_problem(spec);
    CHSFormulation f = new_formulation("standard", prob, test_context());
    CHSRunOptions o =
        run_options(k == 0 ? "lobatto:3:newton=dense" : "lobatto:3:newton=structured", 0.005, 0.5);
    CHSRunSummary r = run_ok(f, &o);
    print_message("%s, chain N = 20, 100 steps: energy error %.3e, max |g| %.2e\n", o.method,
                  r.diag.energy_err_max, r.diag.pos_res_max);
    if (k == 0) {
      e0 = r.diag.energy_err_max;
    } else {
      CHECK_NEAR(r.diag.energy_err_max, e0, 1e-12);
    }
    CHECK_LE(r.diag.pos_res_max, 1e-13);
    CHSFormulation_Destroy(&f);
    CHSProblem_Destroy(&prob);
  }
  CHSProblem prob = new_problem("chain:N=1000,init=2,vel=thermal");
  CHSFormulation f = new_formulation("standard", prob, test_context());
  CHSRunOptions o = run_options("lobatto:3", 0.005, 0.05); /* auto: structured (7998 unknowns) */
  CHSRunSummary r = run_ok(f, &o);
  print_message("lobatto:3, chain N = 1000, 10 steps: energy error %.3e, max |g| %.2e\n",
                r.diag.energy_err_max, r.diag.pos_res_max);
  CHECK_LE(r.diag.pos_res_max, 1e-12);
  CHECK_LE(r.diag.energy_err_max, 1e-6);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

static void test_refuses_adaptive(void **state) {
  (void)state;
  CHSProblem prob = new_problem("pendulum");
  CHSFormulation f = new_formulation("standard", prob, test_context());
  CHSRunOptions o = run_options("lobatto:3", 0, 1);
  o.ctl.rtol = o.ctl.atol = 1e-6;
  CHSRunSummary sum;
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSRun(f, &o, NULL, NULL, &sum, &err), CHS_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.msg, "--h"));
  o.method = "lobatto:5";
  o.ctl.h = 0.1;
  assert_int_equal(CHSRun(f, &o, NULL, NULL, &sum, &err), CHS_ERR_NOTFOUND);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

/* Small steps on the pendulum to t = 10. The stage Newton's increment stalls
 * at the rounding level of the momenta, u |M| |q| / h (the constraints pin the stage positions
 * only to u |q|), which exceeded the old fixed threshold 1e3 * 8u: lobatto:3 failed at t = 5.001
 * with h = 0.001 and at t = 0.0045 with h = 0.0005, lobatto:4 at t = 0.001, advising "reduce --h".
 * Now each run completes with |g| at round-off, the energy error and the error against the exact
 * solution at the (rounding-dominated) level of these steps. */
static void test_small_steps(void **state) {
  (void)state;
  const struct {
    const char *method;
    double h, energy, ref;
  } cases[] = {
      {"lobatto:3", 0.001, 1e-12, 1e-10},
      {"lobatto:3", 0.0005, 1e-12, 1e-10},
      {"lobatto:4", 0.001, 1e-12, 1e-10},
      {"alpha-prk:3", 0.001, 1e-12, 1e-10},
      {"lobatto:3:newton=structured", 0.0005, 1e-12, 1e-10},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    CHSProblem prob = new_problem("pendulum");
    CHSFormulation f = new_formulation("standard", prob, test_context());
    CHSRunOptions o = run_options(cases[k].method, cases[k].h, 10);
    o.every = 100;
    CHSRunSummary r = run_ok(f, &o);
    print_message("%s, h = %g, pendulum to t = 10: %ld steps, energy error %.2e, |g| %.2e, "
                  "|(q,p) - exact| %.2e\n",
                  cases[k].method, cases[k].h, r.stats.steps, r.diag.energy_err_max,
                  r.diag.pos_res_max, r.diag.int_err_final);
    assert_int_equal(r.stats.steps, (long)lround(10 / cases[k].h));
    CHECK_LE(r.diag.pos_res_max, 1e-14);
    CHECK_LE(r.diag.energy_err_max, cases[k].energy);
    assert_true(r.diag.has_reference);
    CHECK_LE(r.diag.int_err_final, cases[k].ref);
    CHSFormulation_Destroy(&f);
    CHSProblem_Destroy(&prob);
  }
}

/* A bad newton= value left the stage-count buffer unset (read uninitialised
 * by lobatto_create); now the buffer is always set, the value refused and named. */
static void test_newton_option(void **state) {
  (void)state;
  char buf[8];
  int mode = -7;
  memset(buf, 'X', sizeof buf);
  assert_int_equal(chs_cprk_newton_option("3:newton=foo", buf, sizeof buf, &mode), -1);
  assert_string_equal(buf, "3");
  assert_int_equal(mode, CHS_CPRK_NEWTON_AUTO);
  assert_int_equal(chs_cprk_newton_option("4:newton=structured", buf, sizeof buf, &mode), 0);
  assert_string_equal(buf, "4");
  assert_int_equal(mode, CHS_CPRK_NEWTON_STRUCTURED);
  /* too long for buf: refused rather than truncated into a valid name */
  assert_int_equal(chs_cprk_newton_option("300000000", buf, sizeof buf, &mode), -1);
  assert_int_equal(strlen(buf), sizeof buf - 1);
  CHSProblem prob = new_problem("pendulum");
  CHSFormulation f = new_formulation("standard", prob, test_context());
  CHSRunOptions o = run_options("lobatto:3:newton=foo", 0.01, 1);
  CHSRunSummary sum;
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSRun(f, &o, NULL, NULL, &sum, &err), CHS_ERR_NOTFOUND);
  assert_non_null(strstr(err.msg, "'foo'"));
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

/* M(q): observed orders 2, 4, 6 on the offset polar pendulum; lobatto:2 is rattle's trajectory. */
static void test_mass_orders(void **state) {
  (void)state;
  const struct {
    const char *method;
    double h0, order;
  } cfg[] = {{"lobatto:2", 0.05, 2}, {"lobatto:3", 0.1, 4}, {"lobatto:4", 0.1, 6}};
  for (int c = 0; c < 3; c++) {
    double e[3];
    for (int k = 0; k < 3; k++) {
      CHSRunSummary s = sm_polar(cfg[c].method, cfg[c].h0 / (1 << k), 5, &e[k]);
      CHECK_LE(s.diag.pos_res_max, 1e-13);
      CHECK_LE(s.diag.mom_res_max, 1e-13);
    }
    double p1 = log2(e[0] / e[1]), p2 = log2(e[1] / e[2]);
    print_message("%s, offset polar pendulum vs Cartesian reference: errors %.3e %.3e %.3e, "
                  "orders %.3f %.3f\n",
                  cfg[c].method, e[0], e[1], e[2], p1, p2);
    CHECK_NEAR(p2, cfg[c].order, 0.3);
    CHECK_GT(p1, cfg[c].order - 0.5);
  }
  double er, el;
  sm_polar("rattle", 0.05, 5, &er);
  sm_polar("lobatto:2", 0.05, 5, &el);
  print_message("rattle and lobatto:2 on M(q): errors %.17g %.17g\n", er, el);
  CHECK_NEAR(er, el, 1e-9 * er); /* the same map, to round-off (an O(h^2) change: 1e-2) */
}

/* M(q): energy bounded without drift (2 10^3 and 2 10^4 steps of h = 0.1). */
static void test_mass_energy(void **state) {
  (void)state;
  sm_polar_energy_bounded("lobatto:3", 200, 1e-4);
}

/* g(q, t): the moving circle against the moving-frame model, order 4 (lobatto:3); g and
 * psi = G v + g_t at round-off. */
static void test_moving_constraint(void **state) {
  (void)state;
  double e[3];
  for (int k = 0; k < 3; k++) {
    CHSRunSummary s = sm_circle("lobatto:3", 0.1 / (1 << k), 8, &e[k]);
    print_message("lobatto:3, moving circle h = %g: |state - model| %.3e, max |g| %.2e, |psi| "
                  "%.2e\n",
                  0.1 / (1 << k), e[k], s.diag.pos_res_max, s.diag.mom_res_max);
    CHECK_LE(s.diag.pos_res_max, 1e-14);
    CHECK_LE(s.diag.mom_res_max, 1e-14);
  }
  CHECK_NEAR(log2(e[1] / e[2]), 4, 0.3);
  CHECK_GT(log2(e[0] / e[1]), 3.5);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_newton_option),     cmocka_unit_test(test_small_steps),
      cmocka_unit_test(test_coefficients),      cmocka_unit_test(test_rattle_equivalence),
      cmocka_unit_test(test_orders_pendulum),   cmocka_unit_test(test_orders_double_pendulum),
      cmocka_unit_test(test_constraints),       cmocka_unit_test(test_refuses_adaptive),
      cmocka_unit_test(test_chain_stages),      cmocka_unit_test(test_structured_newton),
      cmocka_unit_test(test_mass_orders),       cmocka_unit_test(test_mass_energy),
      cmocka_unit_test(test_moving_constraint),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
