/* Private to the sparse Jacobians (src/linalg/jacobian_sparse.c: the blocks and the assembly by
 * CXSparse's products; jacobian_sparse_asm.c: the structure-reusing assembly;
 * jacobian_sparse_prec.c: CVODE's Krylov preconditioner): the sparse blocks they share. */
#ifndef CHS_JACOBIAN_SPARSE_H
#define CHS_JACOBIAN_SPARSE_H

#include <suitesparse/cs.h>
#include "impl.h"

/* Without hessian_sparse, hess V is built from n Hessian-vector products into a dense n x n
 * block: up to this n. */
#define CHS_SPARSE_DENSE_HESS_MAX 3000

static inline int sp_cb(int rc) {
  return rc == 0 ? 0 : (rc > 0 ? CHS_RECOVERABLE : CHS_ERR_CALLBACK);
}

/* G's pattern as CSR (rowptr, colind); dense problems: every entry (allocated into *own). */
int chs_sp_gpattern(const CHSSystem *s, const sunindextype **rp, const sunindextype **ci,
                    sunindextype **own);
/* Greedy colouring of the columns (rows = 0) or rows (rows = 1) of a CSR pattern (m x n): the
 * number of colours or < 0 (jacobian_sparse.c). */
sunindextype chs_sp_colour(sunindextype m, sunindextype n, const sunindextype *rp,
                           const sunindextype *ci, int rows, sunindextype *colour);
/* The blocks as CXSparse matrices (jacobian_sparse.c has what each holds): a triplet matrix
 * compressed (T freed), M^{-1}, hess V into the triplets T, sum w_i hess g_i into T, and C
 * scaled by a (transposed) added into T at (r0, c0). */
cs_dl *chs_sp_compress(cs_dl *T);
cs_dl *chs_sp_minv(const CHSSystem *s);
int chs_sp_hessv(const CHSSystem *s, const sunrealtype *q, cs_dl *T);
int chs_sp_hessgw(const CHSSystem *s, const sunrealtype *q, const sunrealtype *w,
                  const sunindextype *rp, const sunindextype *ci, const sunindextype *colour,
                  sunindextype ncolour, sunrealtype *e, sunrealtype *Gd, cs_dl *T);
int chs_sp_put(cs_dl *T, const cs_dl *C, sunindextype r0, sunindextype c0, sunrealtype a,
               int transpose);

#endif
