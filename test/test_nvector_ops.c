/* chs's serial vector operations (src/base/nvector.c) claim to compute bitwise what SUNDIALS'
 * serial vector computes. Here every installed operation runs on the same random vectors
 * (lengths 1 .. 40; entries of mixed magnitude, exact zeros, ties, negative zeros) through a
 * SUNDIALS vector and a chs vector, with the scalars at every special case of SUNDIALS' code
 * (0, +-1, a = b, a = -b, and generic) and with the output aliasing an input; results and return
 * values must be the same bits. The fused and array operations are compared with what SUNDIALS'
 * generic fallbacks compute on a serial vector without fused operations (its default). A vector
 * whose ops were not replaced would pass trivially, so the test also checks that the chs vector's
 * table holds chs's functions and that its clones inherit them. */
#include <math.h>
#include <nvector/nvector_serial.h>
#include <string.h>
#include "test_util.h"
#include "impl.h"

static unsigned long long lcg_state = 2024;

static double lcg_uniform(void) { /* in [-1, 1) */
  lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(lcg_state >> 11) / 4503599627370496.0 - 1.0;
}

/* entries spanning magnitudes 1e-8 .. 1e8, with exact zeros, -0, repeats and small integers */
static void fill(N_Vector a, N_Vector b) {
  sunrealtype *x = NV_DATA_S(a), *y = NV_DATA_S(b);
  sunindextype n = NV_LENGTH_S(a);
  for (sunindextype i = 0; i < n; i++) {
    double u = lcg_uniform(), v = u * pow(10, 8 * lcg_uniform());
    if (u < -0.8) {
      v = 0;
    } else if (u < -0.7) {
      v = -0.0;
    } else if (u < -0.6 && i > 0) {
      v = x[i - 1];
    } else if (u < -0.5) {
      v = (double)(int)(4 * u);
    }
    x[i] = v;
    y[i] = v;
  }
}

static int same(N_Vector a, N_Vector b) {
  return memcmp(NV_DATA_S(a), NV_DATA_S(b), (size_t)NV_LENGTH_S(a) * sizeof(sunrealtype)) == 0;
}

static int same_real(sunrealtype a, sunrealtype b) {
  return memcmp(&a, &b, sizeof a) == 0;
}

static void test_ops_bitwise(void **state) {
  (void)state;
  SUNContext ctx = NULL;
  assert_int_equal(chs_context_create(&ctx), 0);
  const sunrealtype scal[] = {0, 1, -1, 2.5, -0.3, 1e-7, 3.0};
  const int ns = (int)(sizeof scal / sizeof scal[0]);
  int checks = 0;
  for (sunindextype n = 1; n <= 40; n += (n < 8 ? 1 : 7)) {
    /* s*: SUNDIALS' vectors, c*: chs's, each pair filled with the same entries */
    N_Vector sx = N_VNew_Serial(n, ctx), sy = N_VClone(sx), sz = N_VClone(sx), sw = N_VClone(sx);
    N_Vector cx = N_VNew_Serial(n, ctx);
    chs_nvector_fast_ops(cx);
    N_Vector cy = N_VClone(cx), cz = N_VClone(cx), cw = N_VClone(cx);
    assert_non_null(sw);
    assert_non_null(cw);
    assert_ptr_not_equal(cx->ops->nvlinearsum, sx->ops->nvlinearsum);
    assert_ptr_equal(cw->ops->nvlinearsum, cx->ops->nvlinearsum); /* inherited by clones */
    assert_ptr_equal(cw->ops->nvwrmsnormmask, cx->ops->nvwrmsnormmask);
    assert_null(sx->ops->nvlinearcombination); /* SUNDIALS' side: the generic fallbacks */
    assert_non_null(cw->ops->nvlinearcombination);
    for (int rep = 0; rep < 4; rep++) {
      fill(sx, cx);
      fill(sy, cy);
      fill(sw, cw);
      for (sunindextype i = 0; i < n; i++) { /* weights > 0, a mask with both signs */
        NV_Ith_S(sw, i) = NV_Ith_S(cw, i) = fabs(NV_Ith_S(sw, i)) + 0.5;
      }
      for (int i = 0; i < ns; i++) {
        for (int j = 0; j < ns; j++) {
          sunrealtype a = scal[i], b = i == j ? scal[i] : (j == 0 ? -scal[i] : scal[j]);
          N_VLinearSum(a, sx, b, sy, sz);
          N_VLinearSum(a, cx, b, cy, cz);
          assert_true(same(sz, cz));
          /* z aliasing y, then x: SUNDIALS' axpy paths */
          N_VScale(1, sy, sz);
          N_VScale(1, cy, cz);
          N_VLinearSum(a, sx, b, sz, sz);
          N_VLinearSum(a, cx, b, cz, cz);
          assert_true(same(sz, cz));
          N_VScale(1, sx, sz);
          N_VScale(1, cx, cz);
          N_VLinearSum(a, sz, b, sy, sz);
          N_VLinearSum(a, cz, b, cy, cz);
          assert_true(same(sz, cz));
          checks += 3;
        }
        sunrealtype c = scal[i];
        N_VScale(c, sx, sz);
        N_VScale(c, cx, cz);
        assert_true(same(sz, cz));
        N_VScale(c, sz, sz); /* in place */
        N_VScale(c, cz, cz);
        assert_true(same(sz, cz));
        N_VConst(c, sz);
        N_VConst(c, cz);
        assert_true(same(sz, cz));
        N_VAddConst(sx, c, sz);
        N_VAddConst(cx, c, cz);
        assert_true(same(sz, cz));
        N_VCompare(fabs(c), sx, sz);
        N_VCompare(fabs(c), cx, cz);
        assert_true(same(sz, cz));
        checks += 5;
      }
      N_VProd(sx, sy, sz);
      N_VProd(cx, cy, cz);
      assert_true(same(sz, cz));
      N_VDiv(sx, sw, sz);
      N_VDiv(cx, cw, cz);
      assert_true(same(sz, cz));
      N_VAbs(sx, sz);
      N_VAbs(cx, cz);
      assert_true(same(sz, cz));
      N_VInv(sw, sz);
      N_VInv(cw, cz);
      assert_true(same(sz, cz));
      N_VConst(7, sz);
      N_VConst(7, cz);
      assert_int_equal(N_VInvTest(sx, sz), N_VInvTest(cx, cz)); /* x has exact zeros */
      assert_true(same(sz, cz));
      assert_true(same_real(N_VDotProd(sx, sy), N_VDotProd(cx, cy)));
      assert_true(same_real(N_VMaxNorm(sx), N_VMaxNorm(cx)));
      assert_true(same_real(N_VMin(sx), N_VMin(cx)));
      assert_true(same_real(N_VL1Norm(sx), N_VL1Norm(cx)));
      assert_true(same_real(N_VWrmsNorm(sx, sw), N_VWrmsNorm(cx, cw)));
      assert_true(same_real(N_VWL2Norm(sx, sw), N_VWL2Norm(cx, cw)));
      assert_true(same_real(N_VWrmsNormMask(sx, sw, sy), N_VWrmsNormMask(cx, cw, cy)));
      assert_true(same_real(N_VDotProdLocal(sx, sy), N_VDotProdLocal(cx, cy)));
      assert_true(same_real(N_VMaxNormLocal(sx), N_VMaxNormLocal(cx)));
      assert_true(same_real(N_VMinLocal(sx), N_VMinLocal(cx)));
      assert_true(same_real(N_VL1NormLocal(sx), N_VL1NormLocal(cx)));
      assert_true(same_real(N_VWSqrSumLocal(sx, sw), N_VWSqrSumLocal(cx, cw)));
      assert_true(same_real(N_VWSqrSumMaskLocal(sx, sw, sy), N_VWSqrSumMaskLocal(cx, cw, cy)));
      N_VConst(7, sz);
      N_VConst(7, cz);
      assert_int_equal(N_VInvTestLocal(sx, sz), N_VInvTestLocal(cx, cz));
      assert_true(same(sz, cz));
      checks += 21;
      /* the fused and array operations: chs's against SUNDIALS' generic fallbacks, with z
       * aliasing X[0], then X[1] (the fallback's sequential meaning) */
      sunrealtype cc[4] = {scal[rep + 1], -1, 1, scal[(rep + 4) % ns]};
      N_Vector SX[4] = {sx, sy, sw, sx}, CX[4] = {cx, cy, cw, cx};
      for (int nv = 1; nv <= 4; nv++) {
        N_VScale(1, sy, sz);
        N_VScale(1, cy, cz);
        N_Vector SA[4] = {sz, sx, sw, sy}, CA[4] = {cz, cx, cw, cy}; /* z = X[0] */
        N_Vector SB[4] = {sx, sz, sw, sz}, CB[4] = {cx, cz, cw, cz}; /* z = X[1], X[3] */
        assert_int_equal(N_VLinearCombination(nv, cc, SX, sz), 0);
        assert_int_equal(N_VLinearCombination(nv, cc, CX, cz), 0);
        assert_true(same(sz, cz));
        N_VLinearCombination(nv, cc, SA, sz);
        N_VLinearCombination(nv, cc, CA, cz);
        assert_true(same(sz, cz));
        N_VLinearCombination(nv, cc, SB, sz);
        N_VLinearCombination(nv, cc, CB, cz);
        assert_true(same(sz, cz));
        checks += 3;
      }
      N_Vector su = N_VClone(sx), cu = N_VClone(cx);
      assert_non_null(su);
      assert_non_null(cu);
      N_VScale(1, sy, su);
      N_VScale(1, cy, cu);
      N_VScale(1, sw, sz);
      N_VScale(1, cw, cz);
      {
        N_Vector SY[3] = {su, sz, sw}, SZ[3] = {su, sx, sz}, CY[3] = {cu, cz, cw},
                 CZ[3] = {cu, cx, cz}; /* Z[0] = Y[0], Z[1] = x */
        sunrealtype sd[3], cd[3];
        N_VScale(1, sw, sx); /* x now w's copy on both sides: the vectors above alias it */
        N_VScale(1, cw, cx);
        N_VScaleAddMulti(3, cc, sx, SY, SZ);
        N_VScaleAddMulti(3, cc, cx, CY, CZ);
        for (int k = 0; k < 3; k++) {
          assert_true(same(SZ[k], CZ[k]));
        }
        N_VDotProdMulti(3, sy, SY, sd);
        N_VDotProdMulti(3, cy, CY, cd);
        assert_memory_equal(sd, cd, sizeof sd);
        N_VLinearSumVectorArray(3, cc[0], SY, cc[3], SZ, SZ);
        N_VLinearSumVectorArray(3, cc[0], CY, cc[3], CZ, CZ);
        for (int k = 0; k < 3; k++) {
          assert_true(same(SZ[k], CZ[k]));
        }
        N_VScaleVectorArray(3, cc, SY, SZ);
        N_VScaleVectorArray(3, cc, CY, CZ);
        for (int k = 0; k < 3; k++) {
          assert_true(same(SZ[k], CZ[k]));
        }
        N_Vector SW[3] = {sw, sw, sw}, CW[3] = {cw, cw, cw};
        N_VWrmsNormVectorArray(3, SY, SW, sd);
        N_VWrmsNormVectorArray(3, CY, CW, cd);
        assert_memory_equal(sd, cd, sizeof sd);
        N_VWrmsNormMaskVectorArray(3, SY, SW, sy, sd);
        N_VWrmsNormMaskVectorArray(3, CY, CW, cy, cd);
        assert_memory_equal(sd, cd, sizeof sd);
        N_VConstVectorArray(3, cc[0], SZ);
        N_VConstVectorArray(3, cc[0], CZ);
        for (int k = 0; k < 3; k++) {
          assert_true(same(SZ[k], CZ[k]));
        }
        checks += 8;
      }
      N_VDestroy(su);
      N_VDestroy(cu);
    }
    N_Vector v[] = {sx, sy, sz, sw, cx, cy, cz, cw};
    for (int k = 0; k < 8; k++) {
      N_VDestroy(v[k]);
    }
  }
  assert_true(checks > 5000);
  SUNContext_Free(&ctx);
}

/* A vector that is not serial keeps its own operations. */
static void test_not_serial_untouched(void **state) {
  (void)state;
  chs_nvector_fast_ops(NULL);
  SUNContext ctx = NULL;
  assert_int_equal(chs_context_create(&ctx), 0);
  N_Vector v = N_VNewEmpty(ctx);
  assert_non_null(v);
  v->ops->nvgetvectorid = NULL; /* N_VGetVectorID of an empty vector: custom */
  chs_nvector_fast_ops(v);
  assert_null(v->ops->nvlinearsum);
  N_VFreeEmpty(v);
  SUNContext_Free(&ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ops_bitwise),
      cmocka_unit_test(test_not_serial_untouched),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
