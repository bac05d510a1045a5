/* Linearised dynamics of the constraint residuals r = (g, psi) near the pendulum's constraint
 * manifold ([Leimkuhler & Reich] Sec. 3.5-3.6, [Seiler, Dirac] Sec. 10): with A defined by r' = A r
 * + O(|r|^2), computed by finite differences of the right-hand side at perturbed points, dirac: A =
 * 0 (g and psi are first integrals), extended: a centre (trace A = 0, det A > 0: eigenvalues on the
 * imaginary axis), total:    a saddle (det A < 0: one eigenvalue > 0, the residuals grow
 * exponentially), standard: g' = psi, psi' = 0 (a double zero eigenvalue, linear/quadratic drift).
 */
#include <nvector/nvector_serial.h>
#include "test_util.h"

/* r = (g, psi) of the unit pendulum at z = (x, y, px, py). */
static void residual(const double *z, double *r) {
  r[0] = (z[0] * z[0] + z[1] * z[1] - 1) / 2;
  r[1] = z[0] * z[2] + z[1] * z[3];
}

/* r' = grad r . f(z), with f the formulation's field. */
static void residual_rate(CHSFormulation f, const double *z, double *rd) {
  N_Vector y = N_VNew_Serial(4, test_context()), yd = N_VNew_Serial(4, test_context());
  memcpy(N_VGetArrayPointer(y), z, 4 * sizeof *z);
  assert_int_equal(CHSFormulation_Rhs(0, y, yd, f), 0);
  const double *d = N_VGetArrayPointer(yd);
  rd[0] = z[0] * d[0] + z[1] * d[1];
  rd[1] = d[0] * z[2] + d[1] * z[3] + z[0] * d[2] + z[1] * d[3];
  N_VDestroy(y);
  N_VDestroy(yd);
}

/* A from perturbations along (x, y) (changes g) and along (px, py) (changes psi). */
static void residual_matrix(CHSFormulation f, double theta, double omega, double A[2][2]) {
  const double z0[4] = {sin(theta), -cos(theta), omega * cos(theta), omega * sin(theta)};
  const double eps = 1e-6;
  double dirs[2][4] = {{z0[0], z0[1], 0, 0}, {0, 0, z0[0], z0[1]}};
  double R[2][2], Rd[2][2], r0[2], rd0[2];
  residual_rate(f, z0, rd0);
  residual(z0, r0);
  for (int k = 0; k < 2; k++) {
    double zp[4], zm[4], rp[2], rm[2], rdp[2], rdm[2];
    for (int i = 0; i < 4; i++) {
      zp[i] = z0[i] + eps * dirs[k][i];
      zm[i] = z0[i] - eps * dirs[k][i];
    }
    residual(zp, rp);
    residual(zm, rm);
    residual_rate(f, zp, rdp);
    residual_rate(f, zm, rdm);
    for (int i = 0; i < 2; i++) {
      R[i][k] = (rp[i] - rm[i]) / 2;
      Rd[i][k] = (rdp[i] - rdm[i]) / 2;
    }
  }
  double det = R[0][0] * R[1][1] - R[0][1] * R[1][0];
  const double Ri[2][2] = {{R[1][1] / det, -R[0][1] / det}, {-R[1][0] / det, R[0][0] / det}};
  for (int i = 0; i < 2; i++) {
    for (int j = 0; j < 2; j++) {
      A[i][j] = Rd[i][0] * Ri[0][j] + Rd[i][1] * Ri[1][j];
    }
  }
  assert_true(fabs(r0[0]) < 1e-15 && fabs(r0[1]) < 1e-15 && fabs(rd0[0]) < 1e-13);
}

static void check(const char *name, int kind) {
  CHSProblem prob = new_problem("pendulum");
  CHSFormulation f = new_formulation(name, prob, test_context());
  for (int k = 0; k < 8; k++) {
    double theta = rng_uniform(-3, 3), omega = rng_uniform(-2.5, 2.5), A[2][2];
    residual_matrix(f, theta, omega, A);
    double tr = A[0][0] + A[1][1], det = A[0][0] * A[1][1] - A[0][1] * A[1][0];
    double size = fabs(A[0][0]) + fabs(A[0][1]) + fabs(A[1][0]) + fabs(A[1][1]);
    print_message("%-9s theta %+.2f omega %+.2f: A = [%+.4f %+.4f; %+.4f %+.4f], trace %+.1e, "
                  "det %+.4f\n",
                  name, theta, omega, A[0][0], A[0][1], A[1][0], A[1][1], tr, det);
    switch (kind) {
    case 0: /* dirac: zero */
      CHECK_LE(size, 1e-6);
      break;
    case 1: /* extended: centre, g' = -psi */
      CHECK_LE(fabs(A[0][1] + 1) + fabs(A[0][0]), 1e-6);
      CHECK_LE(fabs(tr), 1e-6 * size);
      CHECK_GT(det, 0.5);
      break;
    case 2: /* total: saddle, g' = psi */
      CHECK_LE(fabs(A[0][1] - 1) + fabs(A[0][0]), 1e-6);
      CHECK_GT(-det, 0.5);
      break;
    case 3: /* standard: g' = psi, psi' = 0 */
      CHECK_LE(fabs(A[0][0]) + fabs(A[0][1] - 1) + fabs(A[1][0]) + fabs(A[1][1]), 1e-6);
      break;
    }
  }
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

static void test_dirac_zero(void **state) {
  (void)state;
  check("dirac", 0);
}
static void test_extended_centre(void **state) {
  (void)state;
  check("extended", 1);
}
static void test_total_saddle(void **state) {
  (void)state;
  check("total", 2);
}
static void test_standard_drift(void **state) {
  (void)state;
  check("standard", 3);
}

int main(void) {
  rng_seed(271828);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dirac_zero),
      cmocka_unit_test(test_extended_centre),
      cmocka_unit_test(test_total_saddle),
      cmocka_unit_test(test_standard_drift),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
