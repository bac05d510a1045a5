/* sprk: the SPRK tables on constrained problems (projected kicks, RATTLE drifts) and free.
 *   - coefficients: consistency (sum a = sum ahat = 1) on every version, and equal to
 *     ARKodeSPRKTable_Load's on SUNDIALS >= 6.6;
 *   - observed order of every table on the pendulum (against its reference solution) and on the
 *     double pendulum (Richardson: differences of the h, h/2, h/4 end states); the order reduction
 *     of `:simple` (one RATTLE drift per stage) for a non-composition table of order 4;
 *   - g and psi at round-off over 10^4 double-pendulum steps;
 *   - the energy error bounded: 4 x 10^4 pendulum steps, the maximum over the last quarter within
 *     10 % of the maximum over the first quarter (no drift);
 *   - unconstrained (:free, Lennard-Jones chain without its bonds): SPRKStep and the built-in
 *     stepper agree to round-off on SUNDIALS >= 6.6; the built-in stepper's observed order. */
#include "test_util.h"
#include "../src/impl.h"
#if CHS_HAVE_SPRKSTEP
#include <arkode/arkode_sprk.h>
#endif

/* Integrate to tf with fixed step h; final physical state into z (2n). Returns force evals. */
static long integrate(const char *problem, const char *method, double h, double tf, double *z) {
  CHSProblem prob = new_problem(problem);
  CHSFormulation f = new_formulation("standard", prob, test_context());
  N_Vector y = NULL;
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSFormulation_NewInitialState(f, &y, &err), 0);
  CHSStepControl ctl = {h, 0, 0, 0};
  CHSIntegrator it = NULL;
  int rc = CHSIntegrator_Create(method, f, y, 0, &ctl, &it, &err);
  if (rc != 0) {
    print_error("%s: %s\n", method, err.msg);
  }
  assert_int_equal(rc, 0);
  sunrealtype t = 0;
  rc = CHSIntegrator_Evolve(it, tf, y, &t, &err);
  if (rc != 0) {
    print_error("%s: %s\n", method, err.msg);
  }
  assert_int_equal(rc, 0);
  sunindextype N = N_VGetLength(y);
  memcpy(z, N_VGetArrayPointer(y), (size_t)N * sizeof *z);
  CHSIntegratorStats st;
  CHSIntegrator_GetStats(it, &st);
  CHSIntegrator_Destroy(&it);
  N_VDestroy(y);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
  return st.rhs_evals;
}

static void test_coefficients(void **state) {
  (void)state;
  assert_int_equal(chs_sprk_table_count(), 12);
  for (int i = 0; i < chs_sprk_table_count(); i++) {
    const char *name;
    int q, s;
    const sunrealtype *a, *ahat;
    assert_int_equal(chs_sprk_table_get(i, &name, &q, &s, &a, &ahat), 0);
    double sa = 0, sah = 0;
    for (int k = 0; k < s; k++) {
      sa += a[k];
      sah += ahat[k];
    }
    CHECK_NEAR(sa, 1, 1e-14);
    CHECK_NEAR(sah, 1, 1e-14);
#if CHS_HAVE_SPRKSTEP
    ARKodeSPRKTable T = ARKodeSPRKTable_LoadByName(name);
    assert_non_null(T);
    assert_int_equal(T->stages, s);
    assert_int_equal(T->q, q);
    for (int k = 0; k < s; k++) {
      CHECK_NEAR(a[k], T->a[k], 2e-16 * fmax(1, fabs(a[k])));
      CHECK_NEAR(ahat[k], T->ahat[k], 2e-16 * fmax(1, fabs(ahat[k])));
    }
    ARKodeSPRKTable_Free(T);
#endif
  }
}

/* Table i: its name, its method "sprk:<name><suffix>" into method (METHOD_LEN chars) and its
 * order (returned). */
#define METHOD_LEN 96
static int table_method(int i, const char *suffix, char *method, const char **name) {
  int q, s;
  const sunrealtype *a, *ahat;
  assert_int_equal(chs_sprk_table_get(i, name, &q, &s, &a, &ahat), 0);
  snprintf(method, METHOD_LEN, "sprk:%s%s", *name, suffix);
  return q;
}

/* The step sizes where each table's error is well above round-off and in the asymptotic range. */
static double order_h(int q) {
  return q >= 10 ? 0.4 : q >= 8 ? 0.2 : 0.1;
}

static void test_order_pendulum(void **state) {
  (void)state;
  for (int i = 0; i < chs_sprk_table_count(); i++) {
    const char *name;
    char method[METHOD_LEN];
    int q = table_method(i, "", method, &name);
    double e[2], z[4], ref[4];
    CHSProblem prob = new_problem("pendulum");
    assert_int_equal(CHSProblem_Reference(prob, 5, ref, ref + 2), 0);
    CHSProblem_Destroy(&prob);
    double h = order_h(q);
    for (int k = 0; k < 2; k++) {
      integrate("pendulum", method, h / (1 << k), 5, z);
      e[k] = diff2(z, ref, 4);
    }
    double p = log2(e[0] / e[1]);
    print_message("%-30s order %2d: errors %.3e %.3e, observed %.2f\n", name, q, e[0], e[1], p);
    CHECK_GT(p, q - 0.3);
    CHECK_LE(p, q + 2.5);
  }
}

/* Richardson: order from |y_h - y_{h/2}| / |y_{h/2} - y_{h/4}|. */
static double richardson_order(const char *problem, const char *method, double h, double tf,
                               int dim) {
  double z[3][64];
  for (int k = 0; k < 3; k++) {
    integrate(problem, method, h / (1 << k), tf, z[k]);
  }
  double d0 = diff2(z[0], z[1], dim), d1 = diff2(z[1], z[2], dim);
  print_message("%-40s h = %g: differences %.3e %.3e, observed order %.2f\n", method, h, d0, d1,
                log2(d0 / d1));
  return log2(d0 / d1);
}

static void test_order_double_pendulum(void **state) {
  (void)state;
  for (int i = 0; i < chs_sprk_table_count(); i++) {
    const char *name;
    char method[METHOD_LEN];
    int q = table_method(i, "", method, &name);
    double p = richardson_order("double-pendulum:m1=1,m2=3", method,
                                q >= 8 ? order_h(q) / 2 : order_h(q), 2, 8);
    CHECK_GT(p, q - 0.3);
    CHECK_LE(p, q + 2.5);
  }
  /* one RATTLE drift per stage: a non-composition table of order 4 falls back to order 2 */
  double p = richardson_order("double-pendulum:m1=1,m2=3", "sprk:mclachlan_4_4:simple", 0.1, 2, 8);
  CHECK_NEAR(p, 2, 0.3);
}

static void test_constraints(void **state) {
  (void)state;
  const char *methods[] = {"sprk:ARKODE_SPRK_MCLACHLAN_4_4", "sprk:yoshida_6_8"};
  for (int k = 0; k < 2; k++) {
    check_constraints_at_roundoff(methods[k]);
  }
}

static void test_energy_bounded(void **state) {
  (void)state;
  CHSProblem prob = new_problem("pendulum");
  assert_int_equal(CHSProblem_GetDims(prob)->mass_kind, CHS_MASS_IDENTITY); /* M = I */
  const CHSProblemOps *ops = CHSProblem_GetOps(prob);
  void *data = CHSProblem_GetData(prob);
  CHSFormulation f = new_formulation("standard", prob, test_context());
  N_Vector y = NULL;
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSFormulation_NewInitialState(f, &y, &err), 0);
  CHSStepControl ctl = {0.1, 0, 0, 0};
  CHSIntegrator it = NULL;
  assert_int_equal(CHSIntegrator_Create("sprk:mclachlan_4_4", f, y, 0, &ctl, &it, &err), 0);
  const double *z = N_VGetArrayPointer(y);
  double V0;
  ops->potential(data, z, &V0);
  double H0 = 0.5 * (z[2] * z[2] + z[3] * z[3]) + V0;
  const long N = 40000;
  double emax[4] = {0, 0, 0, 0};
  sunrealtype t = 0;
  for (long k = 1; k <= N; k++) {
    assert_int_equal(CHSIntegrator_OneStep(it, 1e9, y, &t, &err), 0);
    double V;
    ops->potential(data, z, &V);
    double e = fabs(0.5 * (z[2] * z[2] + z[3] * z[3]) + V - H0) / fabs(H0);
    emax[(k - 1) * 4 / N] = fmax(emax[(k - 1) * 4 / N], e);
  }
  print_message("mclachlan_4_4, pendulum h = 0.1, 4e4 steps: max energy error per quarter %.3e "
                "%.3e %.3e %.3e\n",
                emax[0], emax[1], emax[2], emax[3]);
  CHECK_GT(emax[0], 1e-8); /* visible, not round-off */
  CHECK_LE(emax[3], 1.1 * emax[0]);
  CHSIntegrator_Destroy(&it);
  N_VDestroy(y);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

/* The chain without its bonds (Lennard-Jones, 7 atoms): an unconstrained separable system. */
static void test_unconstrained(void **state) {
  (void)state;
  const char *chain = "chain";
  for (int i = 0; i < chs_sprk_table_count(); i++) {
    const char *name;
    char m1[METHOD_LEN], m2[METHOD_LEN];
    table_method(i, ":free", m1, &name);
    table_method(i, ":free:builtin", m2, &name);
    double z1[28], z2[28];
    long n1 = integrate(chain, m1, 0.02, 2, z1), n2 = integrate(chain, m2, 0.02, 2, z2);
    double d = diff2(z1, z2, 28);
#if CHS_HAVE_SPRKSTEP
    print_message("%-30s SPRKStep vs built-in: |difference| %.2e, force evaluations %ld %ld\n",
                  name, d, n1, n2);
    CHECK_LE(d, 1e-12 * norm2(z1, 28));
#else
    (void)n1;
    (void)n2;
    CHECK_LE(d, 0); /* the same built-in stepper */
#endif
  }
  /* the built-in stepper's order, unconstrained */
  CHECK_GT(richardson_order(chain, "sprk:mclachlan_4_4:free:builtin", 0.04, 1, 28), 3.7);
  double p3 = richardson_order(chain, "sprk:ruth_3_3:free:builtin", 0.04, 1, 28);
  CHECK_NEAR(p3, 3, 0.3);
}

static void test_bad_input(void **state) {
  (void)state;
  CHSProblem prob = new_problem("pendulum");
  CHSFormulation f = new_formulation("standard", prob, test_context());
  N_Vector y = NULL;
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSFormulation_NewInitialState(f, &y, &err), 0);
  CHSIntegrator it = NULL;
  CHSStepControl fixed = {0.1, 0, 0, 0}, adaptive = {0, 1e-6, 1e-6, 0};
  assert_int_equal(CHSIntegrator_Create("sprk:nosuch_2_2", f, y, 0, &fixed, &it, &err),
                   CHS_ERR_NOTFOUND);
  assert_non_null(strstr(err.msg, "nosuch_2_2"));
  assert_int_equal(CHSIntegrator_Create("sprk:leapfrog_2_2:bogus", f, y, 0, &fixed, &it, &err),
                   CHS_ERR_NOTFOUND);
  assert_int_equal(CHSIntegrator_Create("sprk:leapfrog_2_2", f, y, 0, &adaptive, &it, &err),
                   CHS_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.msg, "--h"));
  N_VDestroy(y);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_coefficients),
      cmocka_unit_test(test_order_pendulum),
      cmocka_unit_test(test_order_double_pendulum),
      cmocka_unit_test(test_constraints),
      cmocka_unit_test(test_energy_bounded),
      cmocka_unit_test(test_unconstrained),
      cmocka_unit_test(test_bad_input),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
