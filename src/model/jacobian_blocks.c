/* The dense blocks the analytic Jacobians of the formulations are assembled from (dae_common.h,
 * standard.c): G, M^{-1}, hess V, sum_i w_i hess g_i, Gdot(q, u), the third derivatives of g, the
 * M(q) terms from mass_dir and mass_grad_dir, and the products and Gram solves that combine them.
 * Row-major n x n (or m x n) blocks; declarations in impl.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "impl.h"

void chs_block_G(const CHSSystem *s, const sunrealtype *J, sunrealtype *D) {
  sunindextype n = s->n, m = s->m;
  if (s->jac_kind == CHS_JAC_DENSE) {
    memcpy(D, J, (size_t)(m * n) * sizeof *D);
    return;
  }
  memset(D, 0, (size_t)(m * n) * sizeof *D);
  for (sunindextype i = 0; i < m; i++) {
    for (sunindextype k = s->rowptr[i]; k < s->rowptr[i + 1]; k++) {
      D[i * n + s->colind[k]] = J[k];
    }
  }
}

static int chs_block_cb(int rc) {
  return rc == 0 ? 0 : (rc > 0 ? CHS_RECOVERABLE : CHS_ERR_CALLBACK);
}

/* A column of a block: col = the block applied to e (a unit vector); ctx holds what the block is
 * of (the point, the vectors it is contracted with). The callback's return code. */
typedef int (*chs_block_col_fn)(const CHSSystem *s, const void *ctx, const sunrealtype *e,
                                sunrealtype *col);

/* D (n x n, row-major) column by column: column j = fn(e_j). */
static int chs_block_columns(const CHSSystem *s, chs_block_col_fn fn, const void *ctx,
                             sunrealtype *D) {
  sunindextype n = s->n;
  sunrealtype *e = s->wn[CHS_WN_FORCE], *col = s->wn[CHS_WN_FIELD];
  memset(e, 0, (size_t)n * sizeof *e);
  for (sunindextype j = 0; j < n; j++) {
    e[j] = 1;
    int rc = fn(s, ctx, e, col);
    e[j] = 0;
    CHS_CALL(chs_block_cb(rc));
    for (sunindextype i = 0; i < n; i++) {
      D[i * n + j] = col[i];
    }
  }
  return 0;
}

/* What the column callbacks below read: the point q and up to two vectors. */
typedef struct {
  const sunrealtype *q, *x, *y;
} chs_block_at;

static int col_minv(const CHSSystem *s, const void *ctx, const sunrealtype *e, sunrealtype *col) {
  (void)ctx;
  chs_mass_inv(s, e, col);
  return 0;
}

void chs_block_minv(const CHSSystem *s, sunrealtype *D) {
  (void)chs_block_columns(s, col_minv, NULL, D); /* cannot fail */
}

static int col_hessV(const CHSSystem *s, const void *ctx, const sunrealtype *e, sunrealtype *col) {
  return s->ops->hessian_potential(s->data, ((const chs_block_at *)ctx)->q, e, col);
}

/* M'(q; e) x */
static int col_mass_dir(const CHSSystem *s, const void *ctx, const sunrealtype *e,
                        sunrealtype *col) {
  const chs_block_at *at = ctx;
  return s->ops->mass_dir(s->data, at->q, e, at->x, col);
}

/* M'(q; x) e */
static int col_mass_dir_of(const CHSSystem *s, const void *ctx, const sunrealtype *e,
                           sunrealtype *col) {
  const chs_block_at *at = ctx;
  return s->ops->mass_dir(s->data, at->q, at->x, e, col);
}

/* mass_grad_dir(q, e, x, y) */
static int col_mgd(const CHSSystem *s, const void *ctx, const sunrealtype *e, sunrealtype *col) {
  const chs_block_at *at = ctx;
  return s->ops->mass_grad_dir(s->data, at->q, e, at->x, at->y, col);
}

int chs_block_hessV(const CHSSystem *s, const sunrealtype *q, sunrealtype *D) {
  sunindextype n = s->n;
  memset(D, 0, (size_t)(n * n) * sizeof *D);
  if (!s->ops->hessian_potential) { /* zero only when declared (never a silent default) */
    return chs_missing_derivative(s->prob, CHS_NEED_HESSIAN) ? CHS_ERR_UNSUPPORTED : 0;
  }
  chs_block_at at = {q, NULL, NULL};
  return chs_block_columns(s, col_hessV, &at, D);
}

int chs_block_hessgw(const CHSSystem *s, const sunrealtype *q, const sunrealtype *w,
                     sunrealtype *D) {
  sunindextype n = s->n;
  sunrealtype *e = s->wn[CHS_WN_FORCE], *col = s->wn[CHS_WN_FIELD];
  sunrealtype *Gd = malloc((size_t)s->gsize * sizeof *Gd);
  if (!Gd) {
    return CHS_ERR_MEM;
  }
  memset(e, 0, (size_t)n * sizeof *e);
  int rc = 0;
  /* column j: Gdot(q, e_j)^T w, since Gdot(q, e_j)_ik = d2 g_i / dq_k dq_j */
  for (sunindextype j = 0; j < n && rc == 0; j++) {
    e[j] = 1;
    rc = chs_block_cb(s->ops->jacobian_dot(s->data, q, e, Gd));
    e[j] = 0;
    if (rc == 0) {
      chs_jac_tmv(s, Gd, w, col);
      for (sunindextype i = 0; i < n; i++) {
        D[i * n + j] = col[i];
      }
    }
  }
  free(Gd);
  return rc;
}

int chs_block_gdot(const CHSSystem *s, const sunrealtype *q, const sunrealtype *u, sunrealtype *D) {
  sunrealtype *Gd = malloc((size_t)s->gsize * sizeof *Gd);
  if (!Gd) {
    return CHS_ERR_MEM;
  }
  int rc = chs_block_cb(s->ops->jacobian_dot(s->data, q, u, Gd));
  if (rc == 0) {
    chs_block_G(s, Gd, D);
  }
  free(Gd);
  return rc;
}

int chs_block_third(const CHSSystem *s, const sunrealtype *q, const sunrealtype *u,
                    sunrealtype *D) {
  sunindextype n = s->n, m = s->m;
  memset(D, 0, (size_t)(m * n) * sizeof *D);
  if (!s->ops->constraint_third) { /* zero only when declared (never a silent default) */
    return chs_missing_derivative(s->prob, CHS_NEED_THIRD) ? CHS_ERR_UNSUPPORTED : 0;
  }
  sunrealtype *e = s->wm[CHS_WM_BLOCK2];
  memset(e, 0, (size_t)m * sizeof *e);
  for (sunindextype i = 0; i < m; i++) {
    e[i] = 1;
    int rc = s->ops->constraint_third(s->data, q, u, e, D + i * n);
    e[i] = 0;
    CHS_CALL(chs_block_cb(rc));
  }
  return 0;
}

void chs_dense_mm(sunindextype a, sunindextype b, sunindextype c, const sunrealtype *A,
                  const sunrealtype *B, sunrealtype *C) {
  for (sunindextype i = 0; i < a; i++) {
    for (sunindextype k = 0; k < c; k++) {
      C[i * c + k] = 0;
    }
    for (sunindextype j = 0; j < b; j++) {
      sunrealtype aij = A[i * b + j];
      if (aij != 0) {
        for (sunindextype k = 0; k < c; k++) {
          C[i * c + k] += aij * B[j * c + k];
        }
      }
    }
  }
}

int chs_gram_solve_columns(CHSSystem *s, sunindextype ncols, sunrealtype *A) {
  sunindextype m = s->m;
  sunrealtype *b = s->wm[CHS_WM_BLOCK], *x = s->wm[CHS_WM_BLOCK2];
  for (sunindextype j = 0; j < ncols; j++) {
    for (sunindextype i = 0; i < m; i++) {
      b[i] = A[i * ncols + j];
    }
    CHS_CALL(chs_gram_solve(s->gram, b, x));
    for (sunindextype i = 0; i < m; i++) {
      A[i * ncols + j] = x[i];
    }
  }
  return 0;
}

int chs_block_mass_dir(const CHSSystem *s, const sunrealtype *q, const sunrealtype *x,
                       sunrealtype *D) {
  chs_block_at at = {q, x, NULL};
  return chs_block_columns(s, col_mass_dir, &at, D);
}

/* D (n x n) with rows i = mass_grad_dir(q, u, e_i, y). */
static int chs_block_mgd_rows(const CHSSystem *s, const sunrealtype *q, const sunrealtype *u,
                              const sunrealtype *y, sunrealtype *D) {
  sunindextype n = s->n;
  sunrealtype *e = s->wn[CHS_WN_FORCE];
  memset(e, 0, (size_t)n * sizeof *e);
  for (sunindextype i = 0; i < n; i++) {
    e[i] = 1;
    int rc = s->ops->mass_grad_dir(s->data, q, u, e, y, D + i * n);
    e[i] = 0;
    CHS_CALL(chs_block_cb(rc));
  }
  return 0;
}

int chs_block_mass_terms(const CHSSystem *s, const sunrealtype *q, const sunrealtype *v,
                         const sunrealtype *a, const sunrealtype *b, const sunrealtype *Minv,
                         sunrealtype *Y, sunrealtype *Z, sunrealtype *W, sunrealtype *X,
                         sunrealtype *Xp) {
  sunindextype n = s->n;
  size_t nn = (size_t)(n * n);
  if (!s->ops->mass_dir || !s->ops->mass_grad_dir) {
    return CHS_ERR_UNSUPPORTED;
  }
  sunrealtype *buf = malloc((X ? 5 : 3) * nn * sizeof *buf);
  if (!buf) {
    return CHS_ERR_MEM;
  }
  sunrealtype *P = buf, *S = P + nn, *T = S + nn, *U = X ? T + nn : NULL, *R = X ? U + nn : NULL;
  int rc = chs_block_mass_dir(s, q, v, P);
  chs_block_at at_v = {q, v, v};
  if (rc == 0) {
    rc = chs_block_columns(s, col_mgd, &at_v, S);
  }
  if (rc == 0 && X) {
    rc = chs_block_mgd_rows(s, q, v, v, R);
  }
  if (rc == 0 && X) { /* U = [M'(q; e_j) (a - b)]_j, T = M'(q; v) (column j: M'(q; v) e_j) */
    sunrealtype *amb = s->wn[CHS_WN_C];
    for (sunindextype i = 0; i < n; i++) {
      amb[i] = a[i] - b[i];
    }
    rc = chs_block_mass_dir(s, q, amb, U);
    if (rc == 0) {
      rc = chs_block_columns(s, col_mass_dir_of, &at_v, T);
    }
  }
  if (rc != 0) {
    free(buf);
    return rc;
  }
  chs_dense_mm(n, n, n, Minv, P, Y);
  if (X) { /* T <- D = P^T - P - M'(q; v) */
    for (sunindextype i = 0; i < n; i++) {
      for (sunindextype j = 0; j < n; j++) {
        T[i * n + j] = P[j * n + i] - P[i * n + j] - T[i * n + j];
      }
    }
    chs_dense_mm(n, n, n, T, Y, X);
    chs_dense_mm(n, n, n, T, Minv, Xp);
    for (size_t k = 0; k < nn; k++) {
      X[k] += U[k] - S[k] / 2 + R[k];
    }
  }
  for (sunindextype i = 0; i < n; i++) { /* T <- P^T */
    for (sunindextype j = 0; j < n; j++) {
      T[i * n + j] = P[j * n + i];
    }
  }
  chs_dense_mm(n, n, n, T, Y, Z);
  chs_dense_mm(n, n, n, T, Minv, W);
  for (size_t k = 0; k < nn; k++) {
    Z[k] = S[k] / 2 - Z[k];
  }
  free(buf);
  return 0;
}
