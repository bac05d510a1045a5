/* The wedge product omega(dz1, dz2) along numerical solutions of the pendulum (seed 002 Sec. 3.2):
 *   - CHSWedge_TangentProject gives tangents: g and psi = G M^{-1} p have zero derivative along
 *     them (central differences, double pendulum with unequal masses), and tangents stay put;
 *   - conserved over 300 steps (h = 0.01) to 5e-12 (measured 4e-13 - 3e-12: the round-off floor of
 *     the differences, see chs/wedge.h) by rattle, sprk with constraints (leapfrog 2_2,
 *     McLachlan 4_4, Yoshida 6_8), and by Gauss-Legendre (gauss:2, midpoint:fixed) on the extended
 *     formulation (a canonical Hamiltonian system); not by erk:rk4, whose error (2.4e-8) is more
 *     than 1000 times larger. */
#include "test_util.h"
#include "../src/impl.h"

static CHSWedgeSummary wedge(const char *problem, const char *form, const char *method, double h,
                             double tf) {
  CHSProblem prob = new_problem(problem);
  CHSFormulation f = new_formulation(form, prob, test_context());
  CHSRunOptions o = run_options(method, h, tf);
  CHSWedgeSummary s;
  CHSError err;
  CHSError_Clear(&err);
  int rc = CHSWedge_Run(f, &o, NULL, NULL, &s, &err);
  if (rc != 0) {
    print_error("CHSWedge_Run(%s/%s): %s\n", form, method, err.msg);
  }
  assert_int_equal(rc, 0);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
  print_message("%-10s %-28s h = %g, %ld steps: omega0 %.3f, max |omega - omega0| %.3e\n", form,
                method, h, s.steps, (double)s.omega0, (double)s.err_max);
  return s;
}

static void test_conserved(void **state) {
  (void)state;
  const char *methods[][2] = {
      {"standard", "rattle"},           {"standard", "sprk:ARKODE_SPRK_MCLACHLAN_4_4"},
      {"standard", "sprk:yoshida_6_8"}, {"standard", "sprk:leapfrog_2_2"},
      {"extended", "gauss:2"},          {"extended", "midpoint:fixed"}};
  double worst = 0, worst_rel = 0;
  for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++) {
    CHSWedgeSummary s = wedge("pendulum", methods[k][0], methods[k][1], 0.01, 3);
    assert_int_equal(s.steps, 300);
    CHECK_NEAR(s.omega0, 1, 1e-14);
    CHECK_LE(s.err_max, 5e-12);
    worst = fmax(worst, s.err_max);
    worst_rel = fmax(worst_rel, s.rel_err_max);
  }
  print_message("wedge, pendulum, symplectic methods: max |omega - omega0| %.2e, relative to "
                "|dz1||dz2| %.2e\n",
                worst, worst_rel);
  CHSWedgeSummary r = wedge("pendulum", "extended", "erk:rk4", 0.01, 3);
  CHECK_GT(r.err_max, 1e3 * worst);
  CHECK_GT(r.rel_err_max, 1e3 * worst_rel);
  CHSWedgeSummary r2 = wedge("pendulum", "standard", "erk:rk4", 0.01, 3);
  CHECK_GT(r2.err_max, 1e3 * worst);
  CHECK_GT(r2.rel_err_max, 1e3 * worst_rel);
  CHSWedgeSummary d = wedge("double-pendulum:m1=1,m2=3", "standard", "rattle", 0.01, 2);
  CHSWedgeSummary e = wedge("double-pendulum:m1=1,m2=3", "standard", "sprk:yoshida_6_8", 0.01, 2);
  CHSWedgeSummary k = wedge("double-pendulum:m1=1,m2=3", "dirac", "erk:rk4", 0.01, 2);
  CHECK_LE(d.err_max, 2e-11);
  CHECK_LE(e.err_max, 2e-11);
  CHECK_GT(k.err_max, 1e3 * fmax(d.err_max, e.err_max));
}

/* psi = G(q) M^{-1} p for the double pendulum (dense G, diagonal M). */
static void psi_of(const CHSProblemOps *ops, void *data, const double *mass, const double *q,
                   const double *p, double *psi) {
  double G[8], v[4];
  ops->jacobian(data, q, G);
  for (int i = 0; i < 4; i++) {
    v[i] = p[i] / mass[i];
  }
  for (int j = 0; j < 2; j++) {
    psi[j] = 0;
    for (int i = 0; i < 4; i++) {
      psi[j] += G[j * 4 + i] * v[i];
    }
  }
}

static void test_tangent_project(void **state) {
  (void)state;
  CHSProblem prob = new_problem("double-pendulum:m1=1,m2=3,sparse=0");
  const CHSProblemDims *dims = CHSProblem_GetDims(prob);
  assert_int_equal(dims->n, 4);
  assert_int_equal(dims->m, 2);
  assert_int_equal(dims->mass_kind, CHS_MASS_DIAGONAL);
  assert_int_equal(dims->jac_kind, CHS_JAC_DENSE);
  const CHSProblemOps *ops = CHSProblem_GetOps(prob);
  void *data = CHSProblem_GetData(prob);
  CHSFormulation f = new_formulation("standard", prob, test_context());
  double q[4], p[4], dq[4], dp[4], dq2[4], dp2[4];
  assert_int_equal(ops->initial_state(data, q, p), 0);
  rng_seed(7);
  for (int i = 0; i < 4; i++) {
    dq[i] = rng_uniform(-1, 1);
    dp[i] = rng_uniform(-1, 1);
  }
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSWedge_TangentProject(f, q, p, dq, dp, &err), 0);
  CHECK_GT(norm2(dq, 4), 0.1);
  const double d = 1e-5;
  double qa[4], qb[4], pa[4], pb[4], ga[2], gb[2], sa[2], sb[2];
  for (int i = 0; i < 4; i++) {
    qa[i] = q[i] + d * dq[i];
    qb[i] = q[i] - d * dq[i];
    pa[i] = p[i] + d * dp[i];
    pb[i] = p[i] - d * dp[i];
  }
  ops->constraint(data, qa, ga);
  ops->constraint(data, qb, gb);
  psi_of(ops, data, dims->mass, qa, pa, sa);
  psi_of(ops, data, dims->mass, qb, pb, sb);
  for (int j = 0; j < 2; j++) {
    print_message("constraint %d: dg/ds %.2e, dpsi/ds %.2e\n", j, (ga[j] - gb[j]) / (2 * d),
                  (sa[j] - sb[j]) / (2 * d));
    CHECK_LE(fabs(ga[j] - gb[j]) / (2 * d), 1e-9);
    CHECK_LE(fabs(sa[j] - sb[j]) / (2 * d), 1e-9);
  }
  memcpy(dq2, dq, sizeof dq);
  memcpy(dp2, dp, sizeof dp);
  assert_int_equal(CHSWedge_TangentProject(f, q, p, dq2, dp2, &err), 0);
  CHECK_LE(diff_inf(dq, dq2, 4) + diff_inf(dp, dp2, 4), 1e-14);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tangent_project),
      cmocka_unit_test(test_conserved),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
