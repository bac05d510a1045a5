/* The Gram solver: Q = G M^{-1} G^T factored once per point (dense, band, tridiagonal, KLU).
 * Private (not installed). */
#ifndef CHS_MODEL_GRAM_H
#define CHS_MODEL_GRAM_H

#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>
#include "base/base.h"

/* ------------------------------------------------------------------ Gram solver
 * Q = G M^{-1} G^T as a SUNMatrix, factored once per evaluation point, solved many times. */
typedef struct CHSGram CHSGram;
struct CHSSystem;
#define CHS_GRAM_AUTO 0
#define CHS_GRAM_DENSE 1
#define CHS_GRAM_BAND 2
#define CHS_GRAM_KLU 3
extern const char *const chs_gram_kind_names[]; /* "auto", "dense", "band", "klu", NULL */
int chs_gram_create(const struct CHSSystem *s, int kind, SUNContext ctx, CHSGram **out,
                    CHSError *err);
void chs_gram_destroy(CHSGram **gram);
int chs_gram_kind(const CHSGram *gram);
/* Q = G M^{-1} G^T from s->G (and s->minv) into the Gram storage. */
int chs_gram_assemble(CHSGram *gram, const struct CHSSystem *s);
/* Factor the assembled Q: 0, or CHS_RECOVERABLE when Q is numerically singular. */
int chs_gram_factor(CHSGram *gram);
int chs_gram_solve_general(CHSGram *gram, const sunrealtype *b, sunrealtype *x);
/* Tridiagonal Q (gram->tri, CSR G): assemble and factor Q = L D L^T from s->G and, in the same
 * pass, psi = G v and r = Gdot v + G mf (Gdot in s->Gd), and the forward substitutions
 * rf = L^{-1} r and (pf != NULL) pf = L^{-1} psi and S's entries (chs_gram_tri_sw_forward);
 * the factorisation's status. The solves are then
 * completed by chs_gram_tri_backward: x <- D^{-1} x - L^T x from the last row up (dpttrs'
 * operations in dpttrs' order), for x and x2 at once. */
int chs_gram_tri_kinematics(CHSGram *gram, const struct CHSSystem *s, const sunrealtype *v,
                            const sunrealtype *mf, sunrealtype *psi, sunrealtype *r,
                            sunrealtype *rf, sunrealtype *pf);
void chs_gram_tri_backward(const CHSGram *gram, sunrealtype *x, sunrealtype *x2 /* or NULL */);
/* Tridiagonal Q, after chs_gram_tri_kinematics with pf at the same point (m >= 2):
 * x = L^{-1} S w, the forward substitution of Q^{-1} S w (completed by chs_gram_tri_backward),
 * where S = K - K^T, K = Gdot M^{-1} G^T, is the Dirac field's antisymmetric matrix: tridiagonal
 * like Q, with the entries (tri_s)
 *   S(j,j+1) = -S(j+1,j) = sum over the columns c rows j and j+1 share of
 *              (Gdot_jc G_j+1,c - Gdot_j+1,c G_jc) minv_c
 * formed by the kinematics' pass over Q's column pairs: no pass over n (S w = Gdot a - G M^{-1} b
 * up to rounding, with its zero diagonal exact). */
void chs_gram_tri_sw_forward(const CHSGram *gram, const sunrealtype *w, sunrealtype *x);
/* The layout of the Gram solver (src/model/gram.c), visible here so that the solve with a single
 * constraint (a division) inlines into the formulations' fields. */
struct CHSGram {
  int kind;
  sunindextype m;
  SUNMatrix Q;
  sunrealtype *data, **cols; /* dense: Q's storage and columns (Cholesky factor in place) */
  sunindextype *pivots;      /* band */
  sunindextype mu, ml, smu;  /* band */
  int band_full;             /* band: Q's pattern fills the band (no zeroing before assembly) */
  int tri;                   /* band of half-bandwidth 1: SPD tridiagonal, L D L^T, dpttrs */
  int tri_status;            /* tri: the factorisation's result (assembled and factored at once) */
  int32_t *tri_ps, *tri_pk;  /* tri: Q(j+1,j) = sum over t = tri_ps[j] .. tri_ps[j+1]-1 of
                                G[tri_pk[2t]] G[tri_pk[2t+1]] minv[ci32[tri_pk[2t]]] */
  int tri_np;                /* tri_ps NULL: every row pair shares tri_np columns, the same ones */
  int32_t tri_tpl[16];       /* relative to rows j+1 and j: tri_pk[2t] = rp32[j+1] + tri_tpl[2t],
                                tri_pk[2t+1] = rp32[j] + tri_tpl[2t+1] (chains: no lists) */
  double *tri_dd, *tri_e;    /* tri: D and the subdiagonal of L (LAPACK's d, e), contiguous */
  double *tri_s;             /* tri: S(j,j+1) (chs_gram_tri_sw_forward), after d and e */
  SUNLinearSolver ls;        /* klu */
  N_Vector b, x;             /* klu */
  /* CSR G: Q's entries e = 0 .. nq-1 at data offset off[e], each the sum over
   * t = tstart[e] .. tstart[e+1]-1 of G[ti[t]] minv[tc[t]] G[tj[t]] */
  sunindextype nq, *qcol, *off, *tstart; /* qcol: entries of column j */
  int32_t *ti, *tj, *tc; /* 32-bit: half the memory traffic of the assembly for large m */
  sunrealtype diag_scale;
  sunrealtype inv11; /* m = 1: 1 / Q (solves multiply: no division on their critical path) */
  int factored;
  int nonfinite; /* the last failed factorisation met an entry of Q that is not finite (an
                    overflow of G M^{-1} G^T, or a non-finite G): not a rank deficiency */
};
static inline int chs_gram_solve(CHSGram *g, const sunrealtype *b, sunrealtype *x) {
  if (g->m == 1 && g->kind == CHS_GRAM_DENSE && g->factored) {
    x[0] = b[0] * g->inv11;
    return 0;
  }
  return chs_gram_solve_general(g, b, x);
}

#endif
