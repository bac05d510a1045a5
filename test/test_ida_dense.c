/* IDA's dense Newton solves (src/integrate/ida.c) run chs's own LU kernels in place of SUNDIALS'
 * SUNDlsMat_denseGETRF/GETRS, on the claim that they do the same operations in the same order:
 * here, on random matrices of sizes 1 .. 40 (general, with exact zeros that the elimination skips,
 * with ties in the pivot search, and singular ones), factors, pivots, the return value and the
 * solution of the solve must equal SUNDIALS' bitwise. */
#include <string.h>
#include <sundials/sundials_dense.h>
#include "test_util.h"
#include "impl.h"

static unsigned long long lcg_state = 12345;

static double lcg_uniform(void) { /* in [-1, 1) */
  lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(lcg_state >> 11) / 4503599627370496.0 - 1.0;
}

/* kind 0: dense random; 1: a third of the entries zero; 2: entries from {-1, 0, 1, 2} (pivot
 * ties, exact zeros); 3: column n/2 zero below the diagonal after the first steps (singular) */
static void fill(double **a, sunindextype n, int kind) {
  for (sunindextype j = 0; j < n; j++) {
    for (sunindextype i = 0; i < n; i++) {
      double v = lcg_uniform();
      if (kind == 1 && lcg_uniform() < -1.0 / 3) {
        v = 0;
      } else if (kind == 2) {
        v = (double)((int)((v + 1) * 2) - 1);
      }
      a[j][i] = v;
    }
  }
  if (kind == 3) {
    memset(a[n / 2], 0, (size_t)n * sizeof **a);
  }
}

static int same_bits(const double *x, const double *y, sunindextype n) {
  return memcmp(x, y, (size_t)n * sizeof *x) == 0;
}

static void test_dense_lu_matches_sundials(void **state) {
  (void)state;
  int checked = 0, singular = 0;
  for (sunindextype n = 1; n <= 40; n++) {
    for (int kind = 0; kind < 4; kind++) {
      double **a = SUNDlsMat_newDenseMat(n, n), **b = SUNDlsMat_newDenseMat(n, n);
      sunindextype *pa = calloc((size_t)n, sizeof *pa), *pb = calloc((size_t)n, sizeof *pb);
      double *xa = malloc((size_t)n * sizeof *xa), *xb = malloc((size_t)n * sizeof *xb);
      assert_non_null(a);
      assert_non_null(b);
      assert_non_null(pa);
      assert_non_null(pb);
      assert_non_null(xa);
      assert_non_null(xb);
      fill(a, n, kind);
      SUNDlsMat_denseCopy(a, b, n, n);
      sunindextype ra = SUNDlsMat_denseGETRF(a, n, n, pa);
      sunindextype rb = chs_ida_dense_getrf(b, n, n, pb);
      assert_int_equal(ra, rb);
      for (sunindextype j = 0; j < n; j++) {
        assert_true(same_bits(a[j], b[j], n));
      }
      assert_memory_equal(pa, pb, (size_t)n * sizeof *pa);
      if (ra == 0) {
        for (sunindextype i = 0; i < n; i++) {
          xa[i] = xb[i] = lcg_uniform();
        }
        SUNDlsMat_denseGETRS(a, n, pa, xa);
        chs_ida_dense_getrs(b, n, pb, xb);
        assert_true(same_bits(xa, xb, n));
        checked++;
      } else {
        singular++;
      }
      SUNDlsMat_destroyMat(a);
      SUNDlsMat_destroyMat(b);
      free(pa);
      free(pb);
      free(xa);
      free(xb);
    }
  }
  print_message("%d solves compared, %d singular matrices\n", checked, singular);
  assert_true(checked >= 110); /* the solve compared on the regular matrices */
  assert_true(singular >= 40); /* and the zero-pivot return on the singular ones (kind 3) */
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_dense_lu_matches_sundials)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
