/* The impetus-striction formulation against independent truth: [Seiler, stable] eq. (50) for the
 * pendulum, g as a first integral for any state, the gauge symmetry (31) (p* -> p* + G^T c
 * changes no observable), and the physical field on the manifold equal to the standard one (the
 * physical momentum's rate by a central difference along the flow). */
#include <nvector/nvector_serial.h>
#include "test_util.h"

static void physical(CHSFormulation f, const double *z, double *q, double *p, int n) {
  N_Vector y = N_VNew_Serial(2 * n, test_context());
  memcpy(N_VGetArrayPointer(y), z, 2 * (size_t)n * sizeof *z);
  assert_int_equal(CHSFormulation_ToPhysical(f, y, q, p), 0);
  N_VDestroy(y);
}

static void test_closed_form_50(void **state) {
  (void)state;
  CHSProblem prob = new_problem("pendulum");
  CHSFormulation f = new_formulation("impetus", prob, test_context());
  double worst = 0;
  for (int k = 0; k < 20; k++) {
    double z[4] = {rng_uniform(-1.5, 1.5), rng_uniform(-1.5, 1.5), rng_uniform(-2, 2),
                   rng_uniform(-2, 2)};
    double x = z[0], y = z[1];
    double lam = (x * z[2] + y * z[3]) / (x * x + y * y);
    double px = z[2] - lam * x, py = z[3] - lam * y;
    const double want[4] = {px, py, lam * px, lam * py - 1};
    double got[4];
    formulation_rhs(f, z, got, 4);
    for (int i = 0; i < 4; i++) {
      worst = fmax(worst, fabs(got[i] - want[i]) / (1 + fabs(want[i])));
    }
  }
  print_message("impetus vs [Seiler, stable] (50): %.3e\n", worst);
  CHECK_LE(worst, 1e-14);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

/* The modified Hamiltonian (52) H = (x^2 + y^2) |p|^2 / 2 + y: the generic kinetic-scale code
 * against the closed form (53), x*' = -nu y*, y*' = nu x*, p*x' = -nu p*y, p*y' = nu p*x - 1
 * with nu = x* p*y - y* p*x, at random points off the manifold; the energy the diagnostics use is
 * (52); and every formulation but impetus refuses the problem. */
static void test_closed_form_53(void **state) {
  (void)state;
  CHSProblem prob = new_problem("pendulum:hamiltonian=modified");
  CHSFormulation f = new_formulation("impetus", prob, test_context());
  double worst = 0, worst_h = 0;
  for (int k = 0; k < 20; k++) {
    double z[4] = {rng_uniform(-1.5, 1.5), rng_uniform(-1.5, 1.5), rng_uniform(-2, 2),
                   rng_uniform(-2, 2)};
    double nu = z[0] * z[3] - z[1] * z[2];
    const double want[4] = {-nu * z[1], nu * z[0], -nu * z[3], nu * z[2] - 1};
    double got[4], H;
    formulation_rhs(f, z, got, 4);
    for (int i = 0; i < 4; i++) {
      worst = fmax(worst, fabs(got[i] - want[i]) / (1 + fabs(want[i])));
    }
    assert_int_equal(CHSProblem_Energy(prob, z, z + 2, &H), 0);
    double r2 = z[0] * z[0] + z[1] * z[1];
    worst_h = fmax(worst_h, fabs(H - (r2 * (z[2] * z[2] + z[3] * z[3]) / 2 + z[1])));
  }
  print_message("impetus with (52) vs [Seiler, stable] (53): %.3e, energy (52): %.3e\n", worst,
                worst_h);
  CHECK_LE(worst, 1e-14);
  CHECK_LE(worst_h, 1e-14);
  CHSFormulation f2 = NULL;
  CHSError err;
  for (int i = 0; i < CHSFormulationRegistry_Count(); i++) {
    const CHSFormulationOps *ops = CHSFormulationRegistry_Get(i);
    int rc = CHSFormulation_Create(ops->name, prob, test_context(), &f2, &err);
    assert_int_equal(rc, strcmp(ops->name, "impetus") == 0 ? 0 : CHS_ERR_UNSUPPORTED);
    CHSFormulation_Destroy(&f2);
  }
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

static void test_g_first_integral_and_gauge(void **state) {
  (void)state;
  CHSProblem prob = new_problem("double-pendulum:m1=1,m2=3,sparse=0");
  CHSFormulation f = new_formulation("impetus", prob, test_context());
  const CHSProblemOps *ops = CHSProblem_GetOps(prob);
  void *data = CHSProblem_GetData(prob);
  double worst_g = 0, worst_gauge = 0;
  for (int k = 0; k < 20; k++) {
    double z[8], yd[8], G[8], z2[8], yd2[8], q[4], p[4], q2[4], p2[4];
    for (int i = 0; i < 8; i++) {
      z[i] = rng_uniform(-1.5, 1.5);
    }
    formulation_rhs(f, z, yd, 8);
    ops->jacobian(data, z, G);
    for (int i = 0; i < 2; i++) {
      double gd = 0, sc = 0;
      for (int c = 0; c < 4; c++) {
        gd += G[i * 4 + c] * yd[c];
        sc += fabs(G[i * 4 + c] * yd[c]);
      }
      worst_g = fmax(worst_g, fabs(gd) / (1 + sc));
    }
    /* gauge: p* + G^T c */
    double c0 = rng_uniform(-1, 1), c1 = rng_uniform(-1, 1);
    memcpy(z2, z, sizeof z);
    for (int j = 0; j < 4; j++) {
      z2[4 + j] += G[j] * c0 + G[4 + j] * c1;
    }
    formulation_rhs(f, z2, yd2, 8);
    physical(f, z, q, p, 4);
    physical(f, z2, q2, p2, 4);
    worst_gauge = fmax(worst_gauge, fmax(diff_inf(yd, yd2, 4), diff_inf(p, p2, 4)));
  }
  print_message("impetus: max |dg/dt| %.3e; gauge p* + G^T c changes q', p by %.3e\n", worst_g,
                worst_gauge);
  CHECK_LE(worst_g, 1e-14);
  CHECK_LE(worst_gauge, 1e-13);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

static void test_physical_field_on_manifold(void **state) {
  (void)state;
  CHSProblem prob = new_problem("double-pendulum:m1=1,m2=3");
  CHSFormulation imp = new_formulation("impetus", prob, test_context());
  CHSFormulation std = new_formulation("standard", prob, test_context());
  double worst = 0;
  for (int k = 0; k < 10; k++) {
    char spec[256];
    snprintf(spec, sizeof spec,
             "double-pendulum:m1=1,m2=3,theta1=%.17g,theta2=%.17g,omega1=%.17g,omega2=%.17g",
             rng_uniform(-3, 3), rng_uniform(-3, 3), rng_uniform(-2, 2), rng_uniform(-2, 2));
    CHSProblem pk = new_problem(spec);
    double z[8], fs[8], fi[8];
    CHSProblem_GetOps(pk)->initial_state(CHSProblem_GetData(pk), z, z + 4);
    CHSProblem_Destroy(&pk);
    formulation_rhs(std, z, fs, 8);
    formulation_rhs(imp, z, fi, 8); /* p* = p on the manifold */
    /* d/dt of the physical momentum along the impetus flow, by a central difference */
    const double tau = 1e-5;
    double zp[8], zm[8], q[4], pp[4], pm[4], pdot[4];
    for (int i = 0; i < 8; i++) {
      zp[i] = z[i] + tau * fi[i];
      zm[i] = z[i] - tau * fi[i];
    }
    physical(imp, zp, q, pp, 4);
    physical(imp, zm, q, pm, 4);
    for (int i = 0; i < 4; i++) {
      pdot[i] = (pp[i] - pm[i]) / (2 * tau);
    }
    worst = fmax(worst,
                 fmax(diff_inf(fi, fs, 4), diff_inf(pdot, fs + 4, 4) / (1 + norm_inf(fs + 4, 4))));
  }
  print_message("impetus physical field vs standard on the manifold: %.3e\n", worst);
  CHECK_LE(worst, 1e-8);
  CHSFormulation_Destroy(&imp);
  CHSFormulation_Destroy(&std);
  CHSProblem_Destroy(&prob);
}

int main(void) {
  rng_seed(1618);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_closed_form_50),
      cmocka_unit_test(test_closed_form_53),
      cmocka_unit_test(test_g_first_integral_and_gauge),
      cmocka_unit_test(test_physical_field_on_manifold),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
