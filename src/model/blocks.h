/* Dense blocks of the system at q (src/model/jacobian_blocks.c), the pieces of the formulations'
 * analytic Jacobians. Private (not installed). */
#ifndef CHS_MODEL_BLOCKS_H
#define CHS_MODEL_BLOCKS_H

#include "model/system.h"

/* Dense blocks at q for the formulations' analytic Jacobians, row-major:
 *   chs_block_G      D (m x n) = J stored like G (G or Gdot)
 *   chs_block_minv   D (n x n) = M^{-1}
 *   chs_block_hessV  D (n x n) = hess V(q) (zero when V is declared linear; CHS_ERR_UNSUPPORTED
 *                    when hessian_potential is missing and V is not declared linear)
 *   chs_block_hessgw D (n x n) = sum_i w_i hess g_i(q)
 *   chs_block_gdot   D (m x n) = Gdot(q, u)
 *   chs_block_third  D (m x n) = d/dq (Gdot(q, u) u) at fixed u (zero when g is declared
 *                    quadratic; CHS_ERR_UNSUPPORTED when constraint_third is missing otherwise)
 * chs_dense_mm: C (a x c) = A (a x b) B (b x c); chs_gram_solve_columns: A (m x ncols) <- Q^{-1} A
 * with the Gram matrix factored last. The block helpers use scratch s->wn[CHS_WN_FIELD],
 * s->wn[CHS_WN_FORCE], s->wm[CHS_WM_BLOCK], s->wm[CHS_WM_BLOCK2]. */
void chs_block_G(const CHSSystem *s, const sunrealtype *J, sunrealtype *D);
void chs_block_minv(const CHSSystem *s, sunrealtype *D);
int chs_block_hessV(const CHSSystem *s, const sunrealtype *q, sunrealtype *D);
int chs_block_hessgw(const CHSSystem *s, const sunrealtype *q, const sunrealtype *w,
                     sunrealtype *D);
int chs_block_gdot(const CHSSystem *s, const sunrealtype *q, const sunrealtype *u, sunrealtype *D);
int chs_block_third(const CHSSystem *s, const sunrealtype *q, const sunrealtype *u, sunrealtype *D);
void chs_dense_mm(sunindextype a, sunindextype b, sunindextype c, const sunrealtype *A,
                  const sunrealtype *B, sunrealtype *C);
int chs_gram_solve_columns(CHSSystem *s, sunindextype ncols, sunrealtype *A);
/* M(q) blocks (CHS_MASS_CONFIG with mass_grad_dir; M(q) factored at q, Minv = M^{-1} from
 * chs_block_minv, v = M^{-1} p), n x n row-major, with P = [M'(q; e_j) v]_j (so dv/dq = -M^{-1} P,
 * and grad_q (x^T M(q) v) = P^T x) and S = [mass_grad_dir(q, e_j, v, v)]_j = hess_q (v^T M(q) v):
 *   Y = M^{-1} P,  Z = 1/2 S - P^T Y (d F_M / dq, F_M = 1/2 grad_q (v^T M v)),  W = P^T M^{-1}
 *   (d F_M / dp); and when X != NULL, for the acceleration constraint r = Gdot(q, v) v + G a with
 *   a = M^{-1} (F + F_M - M'(q; v) v) and b = M^{-1} G^T lambda, with D = P^T - P - M'(q; v):
 *   X = [M'(q; e_j) (a - b)]_j - 1/2 S + R + D Y,  Xp = D M^{-1},
 *   R = d/dq (M'(q; v) v) at fixed v (row i: mass_grad_dir(q, v, e_i, v)). Then
 *   d(Q lambda - r)/dq = Gdot(q, b) - Gdot(q, a) - d/dq (Gdot(q, v) v) + G M^{-1} (H + K_lambda)
 *   + 2 Gdot(q, v) Y + G M^{-1} X and d(Q lambda - r)/dp = -2 Gdot(q, v) M^{-1} - G M^{-1} Xp
 *   (docs/mechanics.md, "Jacobians"). Uses the scratch slots CHS_WN_C, CHS_WN_FIELD and
 *   CHS_WN_FORCE. */
int chs_block_mass_terms(const CHSSystem *s, const sunrealtype *q, const sunrealtype *v,
                         const sunrealtype *a, const sunrealtype *b, const sunrealtype *Minv,
                         sunrealtype *Y, sunrealtype *Z, sunrealtype *W, sunrealtype *X,
                         sunrealtype *Xp);
/* D (n x n) = [M'(q; e_j) x]_j (CHS_MASS_CONFIG). Uses scratch s->wn[CHS_WN_FIELD],
 * s->wn[CHS_WN_FORCE]. */
int chs_block_mass_dir(const CHSSystem *s, const sunrealtype *q, const sunrealtype *x,
                       sunrealtype *D);

#endif
