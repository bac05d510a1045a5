/* The Gram matrix Q = G M^{-1} G^T of the constraints, factored through a SUNDIALS dense linear
 * solver (LU with partial pivoting) once per evaluation point and solved many times.
 * Band and KLU solvers for chains and sparse constraints plug in here (issue: structured Gram). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include "impl.h"

struct CHSGram {
  sunindextype m;
  SUNMatrix Q;
  SUNLinearSolver ls;
  N_Vector b, x;
  sunrealtype diag_max; /* max |Q_ii| before factoring, for the singularity test */
  int factored;
};

int chs_gram_create(sunindextype m, SUNContext ctx, CHSGram **out, CHSError *err) {
  CHSGram *g = calloc(1, sizeof *g);
  if (!g) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  g->m = m;
  g->Q = SUNDenseMatrix(m, m, ctx);
  g->b = N_VNew_Serial(m, ctx);
  g->x = N_VNew_Serial(m, ctx);
  g->ls = g->Q && g->b ? SUNLinSol_Dense(g->b, g->Q, ctx) : NULL;
  if (!g->Q || !g->b || !g->x || !g->ls || SUNLinSolInitialize(g->ls) != 0) {
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
  CHSGram *g = *gram;
  if (g->ls) {
    SUNLinSolFree(g->ls);
  }
  if (g->Q) {
    SUNMatDestroy(g->Q);
  }
  if (g->b) {
    N_VDestroy(g->b);
  }
  if (g->x) {
    N_VDestroy(g->x);
  }
  free(g);
  *gram = NULL;
}

sunrealtype *chs_gram_matrix_data(CHSGram *gram) {
  gram->factored = 0;
  return SUNDenseMatrix_Data(gram->Q);
}

int chs_gram_factor(CHSGram *g) {
  sunrealtype *a = SUNDenseMatrix_Data(g->Q);
  sunindextype m = g->m;
  g->diag_max = 0;
  for (sunindextype i = 0; i < m; i++) {
    if (!isfinite(a[i * m + i])) {
      return CHS_RECOVERABLE;
    }
    g->diag_max = fmax(g->diag_max, fabs(a[i * m + i]));
  }
  if (!(g->diag_max > 0) || SUNLinSolSetup(g->ls, g->Q) != 0) {
    return CHS_RECOVERABLE;
  }
  /* LU succeeded; reject pivots at round-off level relative to Q's scale (numerically singular,
   * e.g. a pendulum at the pivot point). */
  for (sunindextype i = 0; i < m; i++) {
    if (!(fabs(a[i * m + i]) > 64 * SUN_UNIT_ROUNDOFF * g->diag_max)) {
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
  memcpy(N_VGetArrayPointer(g->b), b, (size_t)g->m * sizeof *b);
  if (SUNLinSolSolve(g->ls, g->Q, g->x, g->b, 0) != 0) {
    return CHS_RECOVERABLE;
  }
  memcpy(x, N_VGetArrayPointer(g->x), (size_t)g->m * sizeof *x);
  return chs_all_finite(x, g->m) ? CHS_SUCCESS : CHS_RECOVERABLE;
}
