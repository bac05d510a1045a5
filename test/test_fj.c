/* The Faddeev-Jackiw extended system against [Seiler, Faddeev-Jackiw]: the pendulum closed form
 * (43)-(44) at random points off the manifold, and the general equations (27) (with lambda' as in
 * (43)) for the double pendulum with unequal masses: every residual of (27), assembled here from
 * the problem callbacks, vanishes at random states; lambda' = 0 on the manifold. */
#include <nvector/nvector_serial.h>
#include "test_util.h"

static void test_pendulum_43_44(void **state) {
  (void)state;
  CHSProblem prob = new_problem("pendulum");
  CHSFormulation f = new_formulation("fj", prob, test_context());
  assert_int_equal(CHSFormulation_GetStateSize(f), 6);
  double worst = 0;
  for (int k = 0; k < 20; k++) {
    double z[6], d[6];
    for (int i = 0; i < 6; i++) {
      z[i] = rng_uniform(-1.5, 1.5);
    }
    double x = z[0], y = z[1], px = z[2], py = z[3], r2 = x * x + y * y;
    double mud = (y - px * px - py * py) / r2, lamd = (x * px + y * py) / r2; /* (44) */
    const double want[6] = {px - x * lamd,           py - y * lamd, x * mud + px * lamd,
                            y * mud + py * lamd - 1, mud,           lamd}; /* (43) */
    formulation_rhs(f, z, d, 6);
    for (int i = 0; i < 6; i++) {
      worst = fmax(worst, fabs(d[i] - want[i]) / (1 + fabs(want[i])));
    }
  }
  print_message("fj vs [Seiler, Faddeev-Jackiw] (43)-(44): %.3e\n", worst);
  CHECK_LE(worst, 1e-14);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

static void test_general_27(void **state) {
  (void)state;
  CHSProblem prob = new_problem("double-pendulum:m1=1,m2=3,sparse=0");
  CHSFormulation f = new_formulation("fj", prob, test_context());
  const CHSProblemOps *ops = CHSProblem_GetOps(prob);
  void *data = CHSProblem_GetData(prob);
  const double *mass = CHSProblem_GetDims(prob)->mass;
  double worst = 0;
  for (int k = 0; k < 20; k++) {
    double z[12], d[12], G[8], Gv[8], F[4], v[4], vd[4];
    for (int i = 0; i < 12; i++) {
      z[i] = rng_uniform(-1.5, 1.5);
    }
    formulation_rhs(f, z, d, 12);
    const double *qd = d, *pd = d + 4, *mud = d + 8, *lamd = d + 10;
    for (int i = 0; i < 4; i++) {
      v[i] = z[4 + i] / mass[i];
      vd[i] = pd[i] / mass[i];
    }
    ops->force(data, z, F);
    ops->jacobian(data, z, G);
    ops->jacobian_dot(data, z, v, Gv); /* row a: hess g_a v */
    for (int i = 0; i < 4; i++) {
      /* M v' - F - G^T mu' - (sum_a lambda'_a hess g_a) v = 0 */
      double r1 = mass[i] * vd[i] - F[i], r2 = mass[i] * (qd[i] - v[i]), sc = fabs(F[i]) + 1;
      for (int a = 0; a < 2; a++) {
        r1 -= G[a * 4 + i] * mud[a] + Gv[a * 4 + i] * lamd[a];
        r2 += G[a * 4 + i] * lamd[a]; /* M (q' - v) + G^T lambda' = 0 */
        sc += fabs(G[a * 4 + i] * mud[a]) + fabs(Gv[a * 4 + i] * lamd[a]);
      }
      worst = fmax(worst, fmax(fabs(r1), fabs(r2)) / sc);
    }
    for (int a = 0; a < 2; a++) {
      double r3 = 0, r4 = 0, sc = 1; /* G q' = 0;  (hess g_a v) . q' + G v' = 0 */
      for (int i = 0; i < 4; i++) {
        r3 += G[a * 4 + i] * qd[i];
        r4 += Gv[a * 4 + i] * qd[i] + G[a * 4 + i] * vd[i];
        sc += fabs(Gv[a * 4 + i] * qd[i]) + fabs(G[a * 4 + i] * vd[i]);
      }
      worst = fmax(worst, fmax(fabs(r3), fabs(r4)) / sc);
    }
  }
  print_message("fj: max residual of [Seiler, Faddeev-Jackiw] (27) = %.3e\n", worst);
  CHECK_LE(worst, 1e-13);
  /* On the manifold the multiplier lambda stays constant. */
  CHSProblem pk = new_problem("double-pendulum:m1=1,m2=3,theta1=0.3,theta2=-1,omega1=2,omega2=1");
  double z[12] = {0}, d[12];
  CHSProblem_GetOps(pk)->initial_state(CHSProblem_GetData(pk), z, z + 4);
  CHSProblem_Destroy(&pk);
  formulation_rhs(f, z, d, 12);
  print_message("fj on the manifold: |lambda'| = %.3e\n", fmax(fabs(d[10]), fabs(d[11])));
  CHECK_LE(fmax(fabs(d[10]), fabs(d[11])), 1e-14);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

int main(void) {
  rng_seed(577215);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pendulum_43_44),
      cmocka_unit_test(test_general_27),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
