/* The Gram matrix Q = G M^{-1} G^T of the constraints: stored in a SUNDIALS dense SUNMatrix,
 * factored once per evaluation point (LU with partial pivoting) and solved many times.
 *
 * The factorization and the solves call SUNDIALS' dense kernels (SUNDlsMat_denseGETRF/GETRS, the
 * code SUNLinSol_Dense runs) directly on the matrix columns: going through SUNLinSolSolve costs
 * two N_Vector copies and a dispatch per solve, which for the small m of a pendulum was the
 * larger part of the Hamilton-Dirac equations' extra cost (two extra solves per evaluation).
 * Band and KLU solvers for chains and general sparse constraints plug in here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include "impl.h"

struct CHSGram {
  sunindextype m;
  SUNMatrix Q;
  sunrealtype *data, **cols; /* Q's storage, cached (constant for the matrix' lifetime) */
  sunindextype *pivots;
  int factored;
};

int chs_gram_create(sunindextype m, SUNContext ctx, CHSGram **out, CHSError *err) {
  CHSGram *g = calloc(1, sizeof *g);
  if (g) {
    g->m = m;
    g->Q = SUNDenseMatrix(m, m, ctx);
    if (g->Q) {
      g->data = SUNDenseMatrix_Data(g->Q);
      g->cols = SUNDenseMatrix_Cols(g->Q);
    }
    g->pivots = calloc((size_t)m, sizeof *g->pivots);
  }
  if (!g || !g->Q || !g->pivots) {
    chs_gram_destroy(&g);
    return chs_error_set(err, CHS_ERR_MEM, "cannot create the dense Gram solver (m=%ld)", (long)m);
  }
  *out = g;
  return CHS_SUCCESS;
}

void chs_gram_destroy(CHSGram **gram) {
  if (!gram || !*gram) {
    return;
  }
  if ((*gram)->Q) {
    SUNMatDestroy((*gram)->Q);
  }
  free((*gram)->pivots);
  free(*gram);
  *gram = NULL;
}

sunrealtype *chs_gram_matrix_data(CHSGram *gram) {
  gram->factored = 0;
  return gram->data;
}

int chs_gram_factor(CHSGram *g) {
  sunrealtype *a = g->data;
  sunindextype m = g->m;
  sunrealtype diag_max = 0;
  for (sunindextype i = 0; i < m; i++) {
    if (!isfinite(a[i * m + i])) {
      return CHS_RECOVERABLE;
    }
    diag_max = fmax(diag_max, fabs(a[i * m + i]));
  }
  if (!(diag_max > 0) || SUNDlsMat_denseGETRF(g->cols, m, m, g->pivots) != 0) {
    return CHS_RECOVERABLE;
  }
  /* Reject pivots at round-off level relative to Q's scale: numerically singular (e.g. a
   * pendulum at its pivot point, or two atoms on top of each other). */
  for (sunindextype i = 0; i < m; i++) {
    if (!(fabs(a[i * m + i]) > 64 * SUN_UNIT_ROUNDOFF * diag_max)) {
      return CHS_RECOVERABLE;
    }
  }
  g->factored = 1;
  return CHS_SUCCESS;
}

int chs_gram_solve(CHSGram *g, const sunrealtype *b, sunrealtype *x) {
  if (!g->factored) {
    return CHS_ERR_SOLVER;
  }
  if (x != b) {
    memcpy(x, b, (size_t)g->m * sizeof *x);
  }
  SUNDlsMat_denseGETRS(g->cols, g->m, g->pivots, x);
  return CHS_SUCCESS; /* a non-finite solution shows in the right-hand side, which is checked */
}
