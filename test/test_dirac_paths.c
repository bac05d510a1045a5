/* The Hamilton-Dirac field's faster paths (chs_dirac_field: a tridiagonal Q with S from its
 * entries and all products in one pass, a dense Q with one solve fewer, S from its entries for a
 * few constraints of a dense G, M^{-1} G^T from the Gram assembly with M(q), no S-term for a
 * single constraint) against the field as its equations read (chs_dirac_field_plain), off the
 * constraint manifold, where w = Q^{-1} psi and S w are not zero, on every built-in with
 * constraints: equal up to rounding (64 units of it relative to the field's largest entry; the
 * paths measured within 2). That the states are far enough off the manifold for the terms in w
 * to count is checked against the standard field, which has none. */
#include <float.h>
#include <nvector/nvector_serial.h>
#include "test_util.h"
#include "../src/impl.h"

static void test_dirac_paths_agree(void **state) {
  (void)state;
  const char *specs[] = {
      "pendulum",
      "double-pendulum",          /* CSR G, tridiagonal Q, diagonal M */
      "double-pendulum:sparse=0", /* dense G, m = 2 */
      "pendulum-chain",           /* CSR G, tridiagonal Q, pair lists */
      "pendulum-chain:N=300",     /* more rows than one block of the CSR passes */
      "chain",                    /* tridiagonal Q, one pair template */
      "slider-crank",             /* dense G and Q, m = 8, damping */
      "andrews",                  /* M(q), m = 6 */
      "car-axis",                 /* time-dependent constraint, m = 2 */
      "heavy-top",                /* M(q), m = 1 */
  };
  for (size_t c = 0; c < sizeof specs / sizeof *specs; c++) {
    CHSProblem prob = new_problem(specs[c]);
    CHSFormulation fd = new_formulation("dirac", prob, test_context());
    CHSFormulation fs = new_formulation("standard", prob, test_context());
    N_Vector y = new_initial_state(fd);
    sunindextype N = N_VGetLength(y);
    N_Vector yd = N_VClone(y), ys = N_VClone(y);
    double *yv = N_VGetArrayPointer(y), *plain = malloc((size_t)N * sizeof *plain);
    assert_non_null(plain);
    for (int rep = 0; rep < 3; rep++) {
      for (sunindextype i = 0; i < N; i++) { /* off the manifold: g, psi != 0 */
        yv[i] += 0.01 * (1 + fabs(yv[i])) * sin(1.0 + (double)i + 7.0 * rep);
      }
      assert_int_equal(CHSFormulation_Rhs(0, y, yd, fd), 0);
      assert_int_equal(CHSFormulation_Rhs(0, y, ys, fs), 0);
      assert_int_equal(chs_dirac_field_plain(fd, yv, plain), 0);
      const double *fast = N_VGetArrayPointer(yd), *std = N_VGetArrayPointer(ys);
      double scale = 0, diff = 0, dstd = 0;
      for (sunindextype i = 0; i < N; i++) {
        scale = fmax(scale, fabs(plain[i]));
        diff = fmax(diff, fabs(fast[i] - plain[i]));
        dstd = fmax(dstd, fabs(std[i] - plain[i]));
      }
      if (!(diff <= 64 * DBL_EPSILON * scale) || !(dstd > 1e-6 * scale)) {
        fail_msg("%s: |fast - plain| = %g, |standard - plain| = %g, |plain| = %g", specs[c], diff,
                 dstd, scale);
      }
    }
    free(plain);
    N_VDestroy(ys);
    N_VDestroy(yd);
    N_VDestroy(y);
    CHSFormulation_Destroy(&fs);
    CHSFormulation_Destroy(&fd);
    CHSProblem_Destroy(&prob);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dirac_paths_agree),
  };
  return cmocka_run_group_tests_name("dirac_paths", tests, group_setup, group_teardown);
}
