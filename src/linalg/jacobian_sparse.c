/* Sparse residual Jacobians dF/dy + cj dF/dy' of the DAE formulations (dae-index3, dae-ggl,
 * dae-index1), assembled directly in compressed sparse columns from sparse blocks, memory and
 * work O(nnz) (docs/scale.md):
 *
 *   G, Gdot(q, u)   the problem's CSR pattern (dense problems: every entry)
 *   M^{-1}          identity, diagonal, or dense (small problems)
 *   hess V          the problem's hessian_sparse (ABI 4); without it, n Hessian-vector products
 *                   into a dense block (n <= CHS_SPARSE_DENSE_HESS_MAX); zero when V is declared
 *                   linear
 *   sum w_i hess g_i  column colouring of G (no two columns of a colour share a row): one
 *                   Gdot(q, e_c) per colour c gives, in row i, d2 g_i / dq_k dq_j for the one
 *                   column j of colour c in row i
 *   d/dq (Gdot(q, u) u)  row colouring of G (rows of a colour share no column): one
 *                   constraint_third(q, u, e_c) per colour (index 1 only)
 *
 * The products (M^{-1} K_mu, G M^{-1}, G M^{-1} (H + K), Gdot M^{-1}, G M^{-1} G^T) are CXSparse's
 * (SuiteSparse). Every entry of every block enters whether or not its value is zero, so the
 * pattern of the result depends only on the patterns of the blocks: fixed while hess V's pattern
 * is (KLU's symbolic analysis is then reused; src/linalg/jacobian.c redoes it when the pattern
 * changes). The dense Jacobians (dae_common.h) stay the reference: test/test_jacobian.c checks that
 * both agree to round-off on every problem. Constant mass matrices and autonomous problems only:
 * M(q) and time-dependent problems (small mechanisms) take the dense analytic Jacobians. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sunmatrix/sunmatrix_sparse.h>
#include "jacobian_sparse.h"

/* G's pattern as CSR (rowptr, colind); dense problems: every entry (allocated into *own). */
int chs_sp_gpattern(const CHSSystem *s, const sunindextype **rp, const sunindextype **ci,
                    sunindextype **own) {
  *own = NULL;
  if (s->jac_kind == CHS_JAC_CSR) {
    *rp = s->rowptr;
    *ci = s->colind;
    return 0;
  }
  sunindextype n = s->n, m = s->m;
  sunindextype *a = malloc(((size_t)m + 1 + (size_t)(m * n)) * sizeof *a);
  if (!a) {
    return CHS_ERR_MEM;
  }
  for (sunindextype i = 0; i <= m; i++) {
    a[i] = i * n;
  }
  for (sunindextype k = 0; k < m * n; k++) {
    a[m + 1 + k] = k % n;
  }
  *rp = a;
  *ci = a + m + 1;
  *own = a;
  return 0;
}

/* Greedy colouring of the columns of a CSR pattern (m x n) so that no row holds two columns of
 * the same colour (rows = 0), or of its rows so that no column lies in two rows of a colour
 * (rows = 1). colour[] of length n (m); returns the number of colours or < 0. */
sunindextype chs_sp_colour(sunindextype m, sunindextype n, const sunindextype *rp,
                           const sunindextype *ci, int rows, sunindextype *colour) {
  sunindextype nnz = rp[m];
  /* the transpose of the pattern: the rows of each column */
  sunindextype *cp = calloc((size_t)n + 1, sizeof *cp),
               *ri = malloc((size_t)(nnz + 1) * sizeof *ri);
  sunindextype cnt = rows ? m : n;
  sunindextype *forbid = malloc((size_t)(cnt + 1) * sizeof *forbid);
  if (!cp || !ri || !forbid) {
    free(cp);
    free(ri);
    free(forbid);
    return CHS_ERR_MEM;
  }
  for (sunindextype k = 0; k < nnz; k++) {
    cp[ci[k] + 1]++;
  }
  for (sunindextype j = 0; j < n; j++) {
    cp[j + 1] += cp[j];
  }
  for (sunindextype i = 0; i < m; i++) {
    for (sunindextype k = rp[i]; k < rp[i + 1]; k++) {
      ri[cp[ci[k]]++] = i;
    }
  }
  for (sunindextype j = n; j > 0; j--) {
    cp[j] = cp[j - 1];
  }
  cp[0] = 0;
  sunindextype ncol = 0;
  for (sunindextype c = 0; c <= cnt; c++) {
    forbid[c] = -1;
  }
  for (sunindextype a = 0; a < cnt; a++) {
    colour[a] = -1;
  }
  for (sunindextype a = 0; a < cnt; a++) {
    /* the neighbours of column a: the columns of its rows (of row a: the rows of its columns) */
    const sunindextype *o1 = rows ? rp : cp, *i1 = rows ? ci : ri, *o2 = rows ? cp : rp,
                       *i2 = rows ? ri : ci;
    for (sunindextype k = o1[a]; k < o1[a + 1]; k++) {
      sunindextype b = i1[k];
      for (sunindextype l = o2[b]; l < o2[b + 1]; l++) {
        sunindextype c = colour[i2[l]];
        if (c >= 0) {
          forbid[c] = a;
        }
      }
    }
    sunindextype c = 0;
    while (forbid[c] == a) {
      c++;
    }
    colour[a] = c;
    ncol = c + 1 > ncol ? c + 1 : ncol;
  }
  free(cp);
  free(ri);
  free(forbid);
  return ncol;
}

/* A CSR-stored m x n block (values in G's layout, pattern rp/ci) as a CSC matrix. */
static cs_dl *sp_from_g(sunindextype m, sunindextype n, const sunindextype *rp,
                        const sunindextype *ci, const sunrealtype *val) {
  cs_dl *T = cs_dl_spalloc(m, n, rp[m] > 0 ? rp[m] : 1, 1, 1);
  for (sunindextype i = 0; T && i < m; i++) {
    for (sunindextype k = rp[i]; k < rp[i + 1]; k++) {
      if (!cs_dl_entry(T, i, ci[k], val ? val[k] : 0)) {
        return cs_dl_spfree(T);
      }
    }
  }
  cs_dl *C = T ? cs_dl_compress(T) : NULL;
  cs_dl_spfree(T);
  return C;
}

cs_dl *chs_sp_compress(cs_dl *T) {
  cs_dl *C = T ? cs_dl_compress(T) : NULL;
  cs_dl_spfree(T);
  if (C && !cs_dl_dupl(C)) {
    return cs_dl_spfree(C);
  }
  return C;
}

cs_dl *chs_sp_minv(const CHSSystem *s) {
  sunindextype n = s->n;
  int dense = s->mass_kind == CHS_MASS_DENSE;
  cs_dl *T = cs_dl_spalloc(n, n, dense ? n * n : n, 1, 1);
  for (sunindextype i = 0; T && i < n; i++) {
    for (sunindextype j = dense ? 0 : i; j < (dense ? n : i + 1); j++) {
      sunrealtype v = s->mass_kind == CHS_MASS_IDENTITY ? 1
                      : dense                           ? s->minv[i * n + j]
                                                        : s->minv[i];
      if (!cs_dl_entry(T, i, j, v)) {
        return cs_dl_spfree(T);
      }
    }
  }
  return chs_sp_compress(T);
}

/* T += hess V(q) (triplets). */
int chs_sp_hessv(const CHSSystem *s, const sunrealtype *q, cs_dl *T) {
  sunindextype n = s->n;
  if (!s->ops->hessian_potential && !s->ops->hessian_sparse) {
    return chs_missing_derivative(s->prob, CHS_NEED_HESSIAN) ? CHS_ERR_UNSUPPORTED : 0;
  }
  if (s->ops->hessian_sparse) {
    sunindextype *rp = malloc((size_t)(n + 1) * sizeof *rp), *ci = NULL;
    sunrealtype *val = NULL;
    int rc = rp ? sp_cb(s->ops->hessian_sparse(s->data, q, 0, rp, NULL, NULL)) : CHS_ERR_MEM;
    for (int tries = 0; rc == 0 && tries < 2; tries++) {
      sunindextype cap = rp[n];
      free(ci);
      free(val);
      ci = malloc((size_t)(cap + 1) * sizeof *ci);
      val = malloc((size_t)(cap + 1) * sizeof *val);
      rc = ci && val ? sp_cb(s->ops->hessian_sparse(s->data, q, cap, rp, ci, val)) : CHS_ERR_MEM;
      if (rc == 0 && rp[n] <= cap) {
        break;
      }
      rc = rc == 0 && tries == 1 ? CHS_ERR_CALLBACK : rc;
    }
    for (sunindextype i = 0; rc == 0 && i < n; i++) {
      for (sunindextype k = rp[i]; k < rp[i + 1]; k++) {
        if (ci[k] < 0 || ci[k] >= n) {
          rc = CHS_ERR_CALLBACK;
          break;
        }
        if (!cs_dl_entry(T, i, ci[k], val[k])) {
          rc = CHS_ERR_MEM;
          break;
        }
      }
    }
    free(rp);
    free(ci);
    free(val);
    return rc;
  }
  if (n > CHS_SPARSE_DENSE_HESS_MAX) {
    return CHS_ERR_UNSUPPORTED;
  }
  sunrealtype *D = malloc((size_t)(n * n) * sizeof *D);
  if (!D) {
    return CHS_ERR_MEM;
  }
  int rc = chs_block_hessV(s, q, D);
  for (sunindextype i = 0; rc == 0 && i < n; i++) {
    for (sunindextype j = 0; j < n; j++) {
      if (!cs_dl_entry(T, i, j, D[i * n + j])) {
        rc = CHS_ERR_MEM;
        break;
      }
    }
  }
  free(D);
  return rc;
}

/* T += scale * sum_i w_i hess g_i(q) (triplets), by the column colouring of G. */
int chs_sp_hessgw(const CHSSystem *s, const sunrealtype *q, const sunrealtype *w,
                  const sunindextype *rp, const sunindextype *ci, const sunindextype *colour,
                  sunindextype ncolour, sunrealtype *e, sunrealtype *Gd, cs_dl *T) {
  sunindextype n = s->n, m = s->m;
  for (sunindextype c = 0; c < ncolour; c++) {
    for (sunindextype j = 0; j < n; j++) {
      e[j] = colour[j] == c;
    }
    CHS_CALL(sp_cb(s->ops->jacobian_dot(s->data, q, e, Gd)));
    for (sunindextype i = 0; i < m; i++) {
      sunindextype jc = -1;
      for (sunindextype k = rp[i]; k < rp[i + 1] && jc < 0; k++) {
        jc = colour[ci[k]] == c ? ci[k] : -1;
      }
      if (jc < 0) {
        continue;
      }
      for (sunindextype k = rp[i]; k < rp[i + 1]; k++) {
        if (!cs_dl_entry(T, ci[k], jc, w[i] * Gd[k])) {
          return CHS_ERR_MEM;
        }
      }
    }
  }
  return 0;
}

/* D (G's layout) -= d/dq (Gdot(q, u) u) at fixed u, by the row colouring of G. */
static int sp_third(const CHSSystem *s, const sunrealtype *q, const sunrealtype *u,
                    const sunindextype *rp, const sunindextype *ci, sunrealtype *D) {
  sunindextype n = s->n, m = s->m;
  if (!s->ops->constraint_third) {
    return chs_missing_derivative(s->prob, CHS_NEED_THIRD) ? CHS_ERR_UNSUPPORTED : 0;
  }
  sunindextype *rc_ = malloc((size_t)(m + 1) * sizeof *rc_);
  sunrealtype *w = malloc((size_t)m * sizeof *w), *out = malloc((size_t)n * sizeof *out);
  int rc = rc_ && w && out ? 0 : CHS_ERR_MEM;
  sunindextype nc = rc == 0 ? chs_sp_colour(m, n, rp, ci, 1, rc_) : 0;
  rc = nc < 0 ? (int)nc : rc;
  for (sunindextype c = 0; rc == 0 && c < nc; c++) {
    for (sunindextype i = 0; i < m; i++) {
      w[i] = rc_[i] == c;
    }
    rc = sp_cb(s->ops->constraint_third(s->data, q, u, w, out));
    for (sunindextype i = 0; rc == 0 && i < m; i++) {
      if (rc_[i] == c) {
        for (sunindextype k = rp[i]; k < rp[i + 1]; k++) {
          D[k] -= out[ci[k]];
        }
      }
    }
  }
  free(rc_);
  free(w);
  free(out);
  return rc;
}

/* T(r0 + i, c0 + j) += a * C(i, j) (or C(j, i) when transpose). */
int chs_sp_put(cs_dl *T, const cs_dl *C, sunindextype r0, sunindextype c0, sunrealtype a,
               int transpose) {
  for (sunindextype j = 0; j < C->n; j++) {
    for (sunindextype p = C->p[j]; p < C->p[j + 1]; p++) {
      sunindextype i = C->i[p];
      if (!cs_dl_entry(T, r0 + (transpose ? j : i), c0 + (transpose ? i : j), a * C->x[p])) {
        return CHS_ERR_MEM;
      }
    }
  }
  return 0;
}

int chs_dae_jacobian_csc(CHSFormulation f, sunrealtype cj, const sunrealtype *y,
                         struct cs_dl_sparse **out) {
  *out = NULL;
  int kind = chs_dae_kind(f->ops);
  if (!kind || !CHSFormulation_HasJacobian(f) || f->sys.general) { /* constant M, autonomous */
    return CHS_ERR_UNSUPPORTED;
  }
  CHSSystem *s = &f->sys;
  sunindextype n = s->n, m = s->m, N = f->size, gs = s->gsize;
  /* the layout of CHS_FORM_DAE_INDEX(kind) (chs/formulation.h), as the rows and columns below */
  const sunrealtype *q = y, *p = y + n, *lam = y + chs_dae_lambda_at(n),
                    *mu = kind == 2 ? y + chs_dae_mu_at(kind, n, m) : NULL;
  const sunindextype *rp = NULL, *ci = NULL;
  sunindextype *own = NULL, *colour = NULL;
  sunrealtype *buf = malloc((5 * (size_t)n + 3 * (size_t)gs) * sizeof *buf);
  cs_dl *Th = cs_dl_spalloc(n, n, 16 * n, 1, 1), *Tx = NULL, *TJ = NULL;
  cs_dl *Mi = NULL, *G = NULL, *HK = NULL, *X = NULL, *A = NULL, *B = NULL, *GM = NULL, *Gt = NULL,
        *P1 = NULL, *P2 = NULL, *P3 = NULL;
  int rc = buf && Th ? chs_sp_gpattern(s, &rp, &ci, &own) : CHS_ERR_MEM;
  if (rc != 0) {
    goto done;
  }
  sunrealtype *v = buf, *F = v + n, *MiF = F + n, *b = MiF + n, *e = b + n, *Gd = e + n,
              *Gd2 = Gd + gs, *Gd3 = Gd2 + gs;
  colour = malloc((size_t)(n + 1) * sizeof *colour);
  rc = colour ? 0 : CHS_ERR_MEM;
  if (rc == 0) {
    rc = s->ops->jacobian(s->data, q, s->G) == 0 && s->ops->force(s->data, q, F) == 0
             ? 0
             : CHS_RECOVERABLE;
  }
  sunindextype nc = rc == 0 ? chs_sp_colour(m, n, rp, ci, 0, colour) : 0;
  rc = nc < 0 ? (int)nc : rc;
  if (rc == 0) {
    chs_mass_inv(s, p, v);
    chs_mass_inv(s, F, MiF);
    rc = chs_sp_hessv(s, q, Th);
  }
  if (rc == 0) {
    rc = chs_sp_hessgw(s, q, lam, rp, ci, colour, nc, e, Gd, Th);
  }
  if (rc == 0 && kind == 2) {
    Tx = cs_dl_spalloc(n, n, 16 * n, 1, 1);
    rc = Tx ? chs_sp_hessgw(s, q, mu, rp, ci, colour, nc, e, Gd, Tx) : CHS_ERR_MEM;
  }
  if (rc == 0 && kind != 3) { /* A = Gdot(q, v) */
    rc = sp_cb(s->ops->jacobian_dot(s->data, q, v, Gd));
  }
  if (rc == 0 && kind == 1) { /* B = Gdot(q, M^{-1} G^T lambda) - Gdot(q, M^{-1} F) - T */
    chs_jac_tmv(s, s->G, lam, e);
    chs_mass_inv(s, e, b);
    rc = sp_cb(s->ops->jacobian_dot(s->data, q, b, Gd2));
    if (rc == 0) {
      rc = sp_cb(s->ops->jacobian_dot(s->data, q, MiF, Gd3));
    }
    for (sunindextype k = 0; rc == 0 && k < gs; k++) {
      Gd2[k] -= Gd3[k];
    }
    if (rc == 0) {
      rc = sp_third(s, q, v, rp, ci, Gd2);
    }
  }
  if (rc != 0) {
    goto done;
  }
  Mi = chs_sp_minv(s);
  G = sp_from_g(m, n, rp, ci, s->G);
  HK = chs_sp_compress(Th);
  Th = NULL;
  GM = G && Mi ? cs_dl_multiply(G, Mi) : NULL; /* G M^{-1} (m x n) */
  TJ = cs_dl_spalloc(N, N, 2 * n + (HK ? HK->p[n] : 0) + 4 * (GM ? GM->p[n] : 0) + 1, 1, 1);
  rc = Mi && G && HK && GM && TJ ? 0 : CHS_ERR_MEM;
  for (sunindextype i = 0; rc == 0 && i < 2 * n; i++) {
    rc = cs_dl_entry(TJ, i, i, cj) ? 0 : CHS_ERR_MEM;
  }
  if (rc == 0) {
    rc = chs_sp_put(TJ, Mi, 0, n, -1, 0); /* rows q: -M^{-1} on p */
  }
  if (rc == 0) {
    rc = chs_sp_put(TJ, HK, n, 0, 1, 0); /* rows p: H + K_lambda on q */
  }
  if (rc == 0) {
    rc = chs_sp_put(TJ, G, n, 2 * n, 1, 1); /* rows p: G^T on lambda */
  }
  if (rc == 0 && kind != 1) {
    rc = chs_sp_put(TJ, G, 2 * n, 0, 1, 0); /* g: G on q */
  }
  if (rc == 0 && kind == 2) {
    X = chs_sp_compress(Tx);
    Tx = NULL;
    A = sp_from_g(m, n, rp, ci, Gd);
    P1 = X ? cs_dl_multiply(Mi, X) : NULL; /* M^{-1} K_mu */
    rc = X && A && P1 ? 0 : CHS_ERR_MEM;
    if (rc == 0) {
      rc = chs_sp_put(TJ, P1, 0, 0, 1, 0);
    }
    if (rc == 0) {
      rc = chs_sp_put(TJ, GM, 0, 2 * n + m, 1, 1); /* M^{-1} G^T on mu (M symmetric) */
    }
    if (rc == 0) {
      rc = chs_sp_put(TJ, A, 2 * n + m, 0, 1, 0); /* psi: Gdot(q, v) on q */
    }
    if (rc == 0) {
      rc = chs_sp_put(TJ, GM, 2 * n + m, n, 1, 0); /* psi: G M^{-1} on p */
    }
  }
  if (rc == 0 && kind == 1) {
    A = sp_from_g(m, n, rp, ci, Gd);
    B = sp_from_g(m, n, rp, ci, Gd2);
    Gt = cs_dl_transpose(G, 1);
    P1 = cs_dl_multiply(GM, HK);             /* G M^{-1} (H + K) */
    P2 = A ? cs_dl_multiply(A, Mi) : NULL;   /* Gdot(q, v) M^{-1} */
    P3 = Gt ? cs_dl_multiply(GM, Gt) : NULL; /* Q = G M^{-1} G^T */
    rc = A && B && Gt && P1 && P2 && P3 ? 0 : CHS_ERR_MEM;
    if (rc == 0) {
      rc = chs_sp_put(TJ, B, 2 * n, 0, 1, 0);
    }
    if (rc == 0) {
      rc = chs_sp_put(TJ, P1, 2 * n, 0, 1, 0);
    }
    if (rc == 0) {
      rc = chs_sp_put(TJ, P2, 2 * n, n, -2, 0);
    }
    if (rc == 0) {
      rc = chs_sp_put(TJ, P3, 2 * n, 2 * n, 1, 0);
    }
  }
  if (rc == 0) {
    cs_dl *J = chs_sp_compress(TJ), *Jt = J ? cs_dl_transpose(J, 1) : NULL;
    TJ = NULL;
    *out = Jt ? cs_dl_transpose(Jt, 1) : NULL; /* sorted row indices */
    cs_dl_spfree(J);
    cs_dl_spfree(Jt);
    rc = *out ? 0 : CHS_ERR_MEM;
  }
done:
  free(buf);
  free(own);
  free(colour);
  cs_dl *all[] = {Th, Tx, TJ, Mi, G, HK, X, A, B, GM, Gt, P1, P2, P3};
  for (size_t k = 0; k < sizeof all / sizeof *all; k++) {
    cs_dl_spfree(all[k]);
  }
  if (rc == 0 && !chs_all_finite((*out)->x, (*out)->p[N])) {
    cs_dl_spfree(*out);
    *out = NULL;
    rc = CHS_RECOVERABLE;
  }
  return rc;
}

void chs_csc_free(struct cs_dl_sparse *A) {
  cs_dl_spfree(A);
}
