/* The wedge product omega(dz1, dz2) along numerical solutions of the pendulum ([Leimkuhler & Reich]
 * Sec. 3.2):
 *   - CHSWedge_TangentProject gives tangents: g and psi = G M^{-1} p have zero derivative along
 *     them (central differences, double pendulum with unequal masses), and tangents stay put;
 *   - conserved over 300 steps (h = 0.01) to 1e-13 (measured 3e-15 - 6e-14 with the methods'
 *     tangent maps) by rattle, sprk with constraints (leapfrog 2_2, McLachlan 4_4, Yoshida 6_8),
 *     lobatto:3, alpha-prk:3 with alpha fixed, and by Gauss-Legendre (gauss:2, midpoint:fixed) on
 *     the extended formulation (a canonical Hamiltonian system); not by erk:rk4 (finite
 *     differences of ARKODE's step map), whose error (2e-8) is more than 1e4 times larger, nor by
 *     alpha-prk with alpha chosen per step (1e-9 at h = 0.01, 1.7e-10 at h = 0.005);
 *   - the tangent maps agree with central differences of the step maps. */
#include "symplectic_mass.h"
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
      {"standard", "lobatto:3"},        {"standard", "alpha-prk:3:alpha=0.02"},
      {"extended", "gauss:2"},          {"extended", "midpoint:fixed"}};
  double worst = 0, worst_rel = 0;
  for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++) {
    CHSWedgeSummary s = wedge("pendulum", methods[k][0], methods[k][1], 0.01, 3);
    assert_int_equal(s.steps, 300);
    assert_int_equal(s.exact_tangents, 1);
    CHECK_NEAR(s.omega0, 1, 1e-14);
    CHECK_LE(s.err_max, 1e-13);
    worst = fmax(worst, s.err_max);
    worst_rel = fmax(worst_rel, s.rel_err_max);
  }
  print_message("wedge, pendulum, symplectic methods: max |omega - omega0| %.2e, relative to "
                "|dz1||dz2| %.2e\n",
                worst, worst_rel);
  CHSWedgeSummary r = wedge("pendulum", "extended", "erk:rk4", 0.01, 3);
  assert_int_equal(r.exact_tangents, 0); /* ARKODE: finite differences of the step map */
  CHECK_GT(r.err_max, 1e4 * worst);
  CHECK_GT(r.rel_err_max, 1e4 * worst_rel);
  CHSWedgeSummary r2 = wedge("pendulum", "standard", "erk:rk4", 0.01, 3);
  CHECK_GT(r2.err_max, 1e4 * worst);
  CHECK_GT(r2.rel_err_max, 1e4 * worst_rel);
  CHSWedgeSummary d = wedge("double-pendulum:m1=1,m2=3", "standard", "rattle", 0.01, 2);
  CHSWedgeSummary e = wedge("double-pendulum:m1=1,m2=3", "standard", "sprk:yoshida_6_8", 0.01, 2);
  CHSWedgeSummary l = wedge("double-pendulum:m1=1,m2=3", "standard", "lobatto:4", 0.01, 2);
  CHSWedgeSummary k = wedge("double-pendulum:m1=1,m2=3", "dirac", "erk:rk4", 0.01, 2);
  CHECK_LE(d.err_max, 1e-13);
  CHECK_LE(e.err_max, 1e-13);
  CHECK_LE(l.err_max, 1e-13);
  CHECK_GT(k.err_max, 1e4 * fmax(fmax(d.err_max, e.err_max), l.err_max));
  /* alpha chosen per step for the energy: not symplectic, omega moves, less with smaller h (steps
   * whose energy error is already at its rounding level keep alpha: fixed-alpha, symplectic) */
  CHSWedgeSummary a1 = wedge("pendulum", "standard", "alpha-prk:3", 0.01, 3);
  CHSWedgeSummary a2 = wedge("pendulum", "standard", "alpha-prk:3", 0.005, 3);
  CHECK_GT(a1.err_max, 1e3 * worst);
  CHECK_GT(a1.err_max / a2.err_max, 4);
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

/* Phi(z): one step of h from a fresh integrator at z (what the tangent map differentiates). */
static void step_map(CHSFormulation f, const char *method, double h, const double *z, double *z1,
                     int N) {
  N_Vector y = N_VNew_Serial(N, test_context());
  memcpy(N_VGetArrayPointer(y), z, (size_t)N * sizeof *z);
  CHSRunOptions o = run_options(method, h, h);
  CHSIntegrator it = NULL;
  CHSError err;
  CHSError_Clear(&err);
  double t = 0;
  int rc = CHSIntegrator_Create(method, f, y, 0, &o.ctl, &it, &err);
  if (rc == 0) {
    rc = CHSIntegrator_Evolve(it, h, y, &t, &err);
  }
  if (rc != 0) {
    print_error("%s: %s\n", method, err.msg);
  }
  assert_int_equal(rc, 0);
  memcpy(z1, N_VGetArrayPointer(y), (size_t)N * sizeof *z1);
  CHSIntegrator_Destroy(&it);
  N_VDestroy(y);
}

/* The methods' tangent maps (CHSIntegrator_TangentStep) against central differences of the step
 * map (steps 1e-4 and 5e-5, extrapolated: agreement 3e-12 - 6e-11, 6e-10 for alpha-prk, whose
 * alpha(z) has large higher derivatives: with steps 1e-2 the differences are off by 5e-2 there and
 * 3e-7 elsewhere), at a moving state of three problems (dense, band and tridiagonal Gram matrices;
 * the chain's Lennard-Jones Hessian), two tangents each. The state after the tangent step is the
 * step map's to round-off. */
static void test_tangent_vs_differences(void **state) {
  (void)state;
  static const char *const constrained[] = {"rattle",
                                            "sprk:mclachlan_4_4",
                                            "sprk:yoshida_6_8",
                                            "lobatto:3",
                                            "lobatto:4",
                                            "alpha-prk:3",
                                            "alpha-prk:4",
                                            "alpha-prk:3:alpha=0.02",
                                            "sprk:leapfrog_2_2:free:builtin",
                                            "lobatto:3:newton=structured",
                                            "alpha-prk:3:newton=structured",
                                            NULL};
  static const char *const canonical[] = {"gauss:2", "gauss:3", "midpoint:fixed", NULL};
  const struct {
    const char *problem, *form;
    const char *const *methods;
  } cases[] = {{"double-pendulum:m1=1,m2=3", "standard", constrained},
               {"pendulum-chain:N=4", "standard", constrained},
               {"chain:N=7", "standard", constrained},
               {"double-pendulum:m1=1,m2=3", "extended", canonical}};
  const double h = 0.05;
  double worst = 0;
  for (size_t ip = 0; ip < sizeof cases / sizeof cases[0]; ip++) {
    const char *const *methods = cases[ip].methods;
    CHSProblem prob = new_problem(cases[ip].problem);
    CHSFormulation f = new_formulation(cases[ip].form, prob, test_context());
    int n = (int)CHSProblem_GetDims(prob)->n, N = 2 * n;
    double *z = malloc((size_t)N * 10 * sizeof *z), *z1 = z + N, *zp = z1 + N, *zm = zp + N;
    double *dz = zm + N, *ex = dz + 2 * N, *fd = ex + 2 * N;
    N_Vector y0 = NULL;
    CHSError err;
    CHSError_Clear(&err);
    assert_int_equal(CHSFormulation_NewInitialState(f, &y0, &err), 0);
    memcpy(z, N_VGetArrayPointer(y0), (size_t)N * sizeof *z);
    for (int k = 0; k < 10; k++) { /* a moving state: ten RATTLE steps */
      step_map(f, "rattle", h, z, z, N);
    }
    rng_seed(11 + ip);
    for (int j = 0; j < 2 * N; j++) {
      dz[j] = rng_uniform(-1, 1);
    }
    for (int j = 0; j < 2; j++) {
      assert_int_equal(CHSWedge_TangentProject(f, z, z + n, dz + j * N, dz + j * N + n, &err), 0);
    }
    for (size_t im = 0; methods[im]; im++) {
      memcpy(N_VGetArrayPointer(y0), z, (size_t)N * sizeof *z);
      memcpy(ex, dz, 2 * (size_t)N * sizeof *ex);
      CHSRunOptions o = run_options(methods[im], h, h);
      CHSIntegrator it = NULL;
      int rc = CHSIntegrator_Create(methods[im], f, y0, 0, &o.ctl, &it, &err);
      if (rc == 0) {
        rc = CHSIntegrator_TangentStep(it, h, 2, ex, y0, &err);
      }
      if (rc != 0) {
        print_error("%s / %s: %s\n", cases[ip].problem, methods[im], err.msg);
      }
      assert_int_equal(rc, 0);
      CHSIntegrator_Destroy(&it);
      step_map(f, methods[im], h, z, z1, N);
      CHECK_LE(diff_inf(N_VGetArrayPointer(y0), z1, N), 1e-14 * (1 + norm_inf(z1, N)));
      double err_j = 0;
      for (int j = 0; j < 2; j++) {
        const double *d = dz + j * N;
        double D[2][64];
        assert_true(N <= 64);
        for (int l = 0; l < 2; l++) {
          double eps = l == 0 ? 1e-4 : 5e-5;
          for (int i = 0; i < N; i++) {
            zp[i] = z[i] + eps * d[i];
            zm[i] = z[i] - eps * d[i];
          }
          step_map(f, methods[im], h, zp, zp, N);
          step_map(f, methods[im], h, zm, zm, N);
          for (int i = 0; i < N; i++) {
            D[l][i] = (zp[i] - zm[i]) / (2 * eps);
          }
        }
        for (int i = 0; i < N; i++) {
          fd[j * N + i] = (4 * D[1][i] - D[0][i]) / 3;
        }
        err_j = fmax(err_j, diff_inf(ex + j * N, fd + j * N, N) / norm_inf(fd + j * N, N));
      }
      print_message("%-26s %-32s tangent map vs differences: %.2e (relative)\n", cases[ip].problem,
                    methods[im], err_j);
      CHECK_LE(err_j, 5e-9);
      worst = fmax(worst, err_j);
    }
    N_VDestroy(y0);
    free(z);
    CHSFormulation_Destroy(&f);
    CHSProblem_Destroy(&prob);
  }
  print_message("tangent maps vs central differences: worst %.2e\n", worst);
}

/* M(q) (offset polar pendulum, M = diag(1, r^2) with r in [1.06, 3.06]): the projected tangents
 * are tangent to {g = 0, psi = G M(q)^{-1} p = 0} (central differences of g and psi along them),
 * and rattle and lobatto:3 keep omega (their step maps linearised by extrapolated differences: the
 * exact tangent maps would need second derivatives of M) while erk:rk4 does not. */
static CHSWedgeSummary wedge_ops(const CHSProblemOps *ops, const char *method, double h,
                                 double tf) {
  CHSProblem prob = new_problem_from_ops(ops, "");
  CHSFormulation f = new_formulation("standard", prob, test_context());
  CHSRunOptions o = run_options(method, h, tf);
  CHSWedgeSummary s;
  CHSError err;
  CHSError_Clear(&err);
  int rc = CHSWedge_Run(f, &o, NULL, NULL, &s, &err);
  if (rc != 0) {
    print_error("CHSWedge_Run(%s): %s\n", method, err.msg);
  }
  assert_int_equal(rc, 0);
  print_message("%s %-10s h = %g, %ld steps: omega0 %.3f, max |omega - omega0| %.3e (exact "
                "tangents %d)\n",
                ops->name, method, h, s.steps, (double)s.omega0, (double)s.err_max,
                s.exact_tangents);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
  return s;
}

static void test_mass_matrix(void **state) {
  (void)state;
  CHSProblem prob = new_problem_from_ops(&offset_polar_pendulum_ops, "");
  CHSFormulation f = new_formulation("standard", prob, test_context());
  const CHSProblemOps *ops = &offset_polar_pendulum_ops;
  void *data = CHSProblem_GetData(prob);
  double z[4], dq[2] = {0.3, -0.7}, dp[2] = {0.4, 1.1};
  CHSError err;
  CHSError_Clear(&err);
  /* a consistent state with p_r != 0: (r, th) on the pivot's circle, G M^{-1} p = 0 */
  double G[2];
  z[1] = 2.9;
  double s = 0.5 * sin(z[1]) - 2 * cos(z[1]);
  z[0] = s + sqrt(s * s - (0.25 + 4 - 1)); /* g = 0: r^2 - 2 r s + a^2 + b^2 - 1 = 0 */
  assert_int_equal(ops->jacobian(data, z, G), 0);
  z[2] = -1.3 * G[1] / (z[0] * z[0]); /* G_r p_r + G_th p_th / r^2 = 0 */
  z[3] = 1.3 * G[0];
  double g0;
  assert_int_equal(ops->constraint(data, z, &g0), 0);
  CHECK_LE(fabs(g0), 1e-14);
  assert_int_equal(CHSWedge_TangentProject(f, z, z + 2, dq, dp, &err), 0);
  /* g and psi along z + e (dq, dp) by central differences */
  double dg = 0, dpsi = 0, e = 1e-5;
  for (int sg = -1; sg <= 1; sg += 2) {
    double y[4], g, Gy[2];
    for (int i = 0; i < 2; i++) {
      y[i] = z[i] + sg * e * dq[i];
      y[2 + i] = z[2 + i] + sg * e * dp[i];
    }
    assert_int_equal(ops->constraint(data, y, &g), 0);
    assert_int_equal(ops->jacobian(data, y, Gy), 0);
    double psi = Gy[0] * y[2] + Gy[1] * y[3] / (y[0] * y[0]);
    dg += sg * g / (2 * e);
    dpsi += sg * psi / (2 * e);
  }
  print_message("M(q) tangent projection: dg %.2e, dpsi %.2e (|dq| %.2f, |dp| %.2f)\n", dg, dpsi,
                norm2(dq, 2), norm2(dp, 2));
  CHECK_LE(fabs(dg), 1e-9);
  CHECK_LE(fabs(dpsi), 1e-9);
  CHECK_GT(norm2(dp, 2), 0.1);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);

  CHSWedgeSummary r = wedge_ops(&offset_polar_pendulum_ops, "rattle", 0.01, 3);
  CHSWedgeSummary l = wedge_ops(&offset_polar_pendulum_ops, "lobatto:3", 0.01, 3);
  CHSWedgeSummary k = wedge_ops(&offset_polar_pendulum_ops, "erk:rk4", 0.01, 3);
  assert_int_equal(l.exact_tangents, 0);
  CHECK_LE(l.err_max, 1e-11);
  assert_int_equal(r.steps, 300);
  assert_int_equal(r.exact_tangents, 0);
  CHECK_NEAR(r.omega0, 1, 1e-14);
  CHECK_LE(r.err_max, 1e-11);
  CHECK_GT(k.err_max, 1e2 * fmax(fmax(r.err_max, l.err_max), 1e-12));
}

/* g(q, t) (moving circle): the step maps of rattle and lobatto:3 between the constraint manifolds
 * at t and t + h keep omega (differences of the step maps; the initial tangents projected at t0
 * with psi = G v + g_t linearised), erk:rk4 does not. */
static void test_moving_constraint(void **state) {
  (void)state;
  CHSWedgeSummary r = wedge_ops(&moving_circle_ops, "rattle", 0.01, 3);
  CHSWedgeSummary l = wedge_ops(&moving_circle_ops, "lobatto:3", 0.01, 3);
  CHSWedgeSummary k = wedge_ops(&moving_circle_ops, "erk:rk4", 0.01, 3);
  assert_int_equal(r.steps, 300);
  CHECK_NEAR(r.omega0, 1, 1e-14);
  CHECK_LE(r.err_max, 1e-11);
  CHECK_LE(l.err_max, 1e-11);
  CHECK_GT(k.err_max, 1e2 * fmax(fmax(r.err_max, l.err_max), 1e-12));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tangent_project),        cmocka_unit_test(test_conserved),
      cmocka_unit_test(test_tangent_vs_differences), cmocka_unit_test(test_mass_matrix),
      cmocka_unit_test(test_moving_constraint),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
