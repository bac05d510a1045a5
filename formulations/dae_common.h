/* Shared by the DAE formulations (dae_index3.c, dae_ggl.c, dae_index1.c): the state is
 * (q, p, lambda[, mu]); the consistent multiplier is DESIGN's lambda = Q^{-1} r. */
#ifndef CHS_DAE_COMMON_H
#define CHS_DAE_COMMON_H

#include <stdlib.h>
#include <string.h>
#include "../src/impl.h"

/* y = (q, p, lambda, 0...): lambda consistent with (q, p); the rest (mu) zero. */
static inline int chs_dae_from_physical(CHSFormulation f, const sunrealtype *q,
                                        const sunrealtype *p, sunrealtype *y) {
  CHSSystem *s = &f->sys;
  sunindextype n = s->n, m = s->m;
  CHSKinematics k;
  memset(y, 0, (size_t)f->size * sizeof *y);
  memcpy(y, q, (size_t)n * sizeof *q);
  memcpy(y + n, p, (size_t)n * sizeof *p);
  CHS_CALL(chs_system_kinematics(s, q, p, &k));
  memcpy(y + 2 * n, k.lambda, (size_t)m * sizeof *y);
  return 0;
}

/* yp = (v, F - G^T lambda, 0...) at a consistent y (lambda = Q^{-1} r, mu = 0). */
static inline int chs_dae_initial_derivative(CHSFormulation f, const sunrealtype *y,
                                             sunrealtype *yp) {
  CHSSystem *s = &f->sys;
  sunindextype n = s->n;
  CHSKinematics k;
  memset(yp, 0, (size_t)f->size * sizeof *yp);
  CHS_CALL(chs_system_kinematics(s, y, y + n, &k));
  chs_system_field(s, &k, k.lambda, 0, NULL, NULL, yp);
  return 0;
}

/* id = 1 for q, `pid` for p, 0 for the multipliers. */
static inline void chs_dae_ids(CHSFormulation f, sunrealtype pid, sunrealtype *id) {
  sunindextype n = f->sys.n;
  for (sunindextype i = 0; i < f->size; i++) {
    id[i] = i < n ? 1 : (i < 2 * n ? pid : 0);
  }
}

/* res_q = q' - M^{-1} p (+ M^{-1} G^T mu when mu), res_p = p' - F + G^T lambda, with G at q
 * (s->G) and F = -grad V + Fnc(q, M^{-1} p) (+ F_M for M(q)) evaluated, v = M^{-1} p in
 * s->wn[CHS_WN_V]; returns through CHS_CALL on callback failure. At the problem's current time. */
static inline int chs_dae_dynamics(CHSFormulation f, const sunrealtype *y, const sunrealtype *yp,
                                   const sunrealtype *mu, sunrealtype *res) {
  CHSSystem *s = &f->sys;
  sunindextype n = s->n, m = s->m;
  const sunrealtype *q = y, *p = y + n, *lam = y + 2 * n;
  sunrealtype *v = s->wn[CHS_WN_V], *F = s->wn[CHS_WN_F], *Gt = s->wn[CHS_WN_MINV_F],
              *Mi = s->wn[CHS_WN_A];
  if (s->mass_kind == CHS_MASS_CONFIG) {
    CHS_CALL(chs_system_mass_at(s, q)); /* M(q) factored at this q (docs/mechanics.md "DAEs") */
  }
  chs_mass_inv(s, p, v);
  if (CHS_SYS_CB(s, jacobian, s->data, q, s->G) != 0 || chs_system_force(s, q, v, F) != 0) {
    return CHS_RECOVERABLE;
  }
  if (s->mass_kind == CHS_MASS_CONFIG) { /* F + F_M, F_M = 1/2 grad_q (v^T M(q) v) */
    if (CHS_SYS_CB(s, mass_grad, s->data, q, v, v, Mi) != 0) {
      return CHS_RECOVERABLE;
    }
    for (sunindextype i = 0; i < n; i++) {
      F[i] += Mi[i] / 2;
    }
  }
  chs_jac_tmv(s, s->G, lam, Gt);
  for (sunindextype i = 0; i < n; i++) {
    res[i] = yp[i] - v[i];
    res[n + i] = yp[n + i] - F[i] + Gt[i];
  }
  if (mu) {
    chs_jac_tmv(s, s->G, mu, Gt);
    chs_mass_inv(s, Gt, Mi);
    for (sunindextype i = 0; i < n; i++) {
      res[i] += Mi[i];
    }
  }
  (void)m;
  return 0;
}

/* The residual Jacobian dF/dy + cj dF/dy' (dense column-major, N = f->size) of the DAE forms,
 * kind 3 (index 3: rows q, p, g), 2 (GGL: rows q, p, g, psi; columns q, p, lambda, mu) or 1
 * (index 1: rows q, p, Q lambda - r). With v = M^{-1} p, H = hess V, K_w = sum_i w_i hess g_i:
 *   rows q:   cj I on q, -M^{-1} on p (GGL: + M^{-1} K_mu on q, M^{-1} G^T on mu)
 *   rows p:   H + K_lambda on q, cj I on p, G^T on lambda
 *   g:        G on q
 *   psi:      Gdot(q, v) on q, G M^{-1} on p                                   (GGL)
 *   Q lam - r: Gdot(q, M^{-1} G^T lambda) + G M^{-1} (K_lambda + H) - d/dq(Gdot(q,v) v)
 *              - Gdot(q, M^{-1} F) on q, -2 Gdot(q, v) M^{-1} on p, Q on lambda (index 1).
 * M(q) (chs_block_mass_terms: Y = M^{-1} P, Z = d F_M/dq, W = d F_M/dp, X, Xp) adds
 *   rows q:   Y on q (GGL: - M^{-1} [M'(q; e_j) c]_j, c = M^{-1} G^T mu)
 *   rows p:   -Z on q, -W on p
 *   psi:      -G Y on q
 *   Q lam - r: M^{-1} F becomes the free acceleration a = M^{-1} (F + F_M - M'(q; v) v), and
 *              2 Gdot(q, v) Y + G M^{-1} X on q, -G M^{-1} Xp on p.
 * Time-dependent constraints add G_t to psi on q (GGL); dae-index1 has no Jacobian then
 * (chs_jacobian_general_gap). At the problem's current time. */
static inline int chs_dae_jacobian(CHSFormulation f, int kind, const sunrealtype *y, sunrealtype cj,
                                   sunrealtype *J) {
  CHSSystem *s = &f->sys;
  sunindextype n = s->n, m = s->m, N = f->size;
  const sunrealtype *q = y, *p = y + n, *lam = y + 2 * n, *mu = kind == 2 ? y + 2 * n + m : NULL;
  size_t nn = (size_t)(n * n), mn = (size_t)(m * n);
  int config = s->mass_kind == CHS_MASS_CONFIG;
  size_t extra = config ? 5 * nn + 2 * (size_t)n : 0;
  sunrealtype *buf = malloc((4 * nn + 6 * mn + 4 * (size_t)n + extra) * sizeof *buf);
  if (!buf) {
    return CHS_ERR_MEM;
  }
  sunrealtype *Minv = buf, *HK = Minv + nn, *W = HK + nn, *X = W + nn, *G = X + nn, *GM = G + mn,
              *A = GM + mn, *B = A + mn, *C = B + mn, *D = C + mn, *v = D + mn, *F = v + n,
              *MiF = F + n, *b = MiF + n;
  /* M(q): Y, Z, Wm (= d F_M/dp), Xq, Xp (index 1) or M^{-1} [M'(q; e_j) c]_j (GGL, in Xq) */
  sunrealtype *Y = config ? b + n : NULL, *Z = Y ? Y + nn : NULL, *Wm = Z ? Z + nn : NULL,
              *Xq = Wm ? Wm + nn : NULL, *Xp = Xq ? Xq + nn : NULL, *t1 = Xp ? Xp + nn : NULL,
              *t2 = t1 ? t1 + n : NULL;
  int rc = chs_system_mass_at(s, q);
  if (rc == 0) {
    rc = CHS_SYS_CB(s, jacobian, s->data, q, s->G) == 0 && CHS_SYS_CB(s, force, s->data, q, F) == 0
             ? 0
             : CHS_RECOVERABLE;
  }
  if (rc == 0) {
    chs_block_G(s, s->G, G);
    chs_block_minv(s, Minv);
    chs_dense_mm(m, n, n, G, Minv, GM);
    chs_mass_inv(s, p, v);
    rc = chs_block_hessV(s, q, HK);
  }
  if (rc == 0 && config && kind == 1) { /* F <- F + F_M - M'(q; v) v: MiF is the free accel. */
    rc = CHS_SYS_CB(s, mass_grad, s->data, q, v, v, t1) == 0 &&
                 CHS_SYS_CB(s, mass_dir, s->data, q, v, v, t2) == 0
             ? 0
             : CHS_RECOVERABLE;
    for (sunindextype i = 0; rc == 0 && i < n; i++) {
      F[i] += t1[i] / 2 - t2[i];
    }
  }
  if (rc == 0) {
    chs_mass_inv(s, F, MiF);
    rc = chs_block_hessgw(s, q, lam, W);
  }
  if (rc == 0 && kind == 2) {
    rc = chs_block_hessgw(s, q, mu, X);
  }
  if (rc == 0 && kind != 3) {
    rc = chs_block_gdot(s, q, v, A); /* A = Gdot(q, v) */
  }
  if (rc == 0 && kind == 1) { /* B = Gdot(q, M^{-1} G^T lambda) - Gdot(q, M^{-1} F) - T */
    chs_jac_tmv(s, s->G, lam, F);
    chs_mass_inv(s, F, b);
    rc = chs_block_gdot(s, q, b, B);
    if (rc == 0) {
      rc = chs_block_gdot(s, q, MiF, C);
    }
    if (rc == 0) {
      rc = chs_block_third(s, q, v, D);
    }
    for (size_t i = 0; rc == 0 && i < mn; i++) {
      B[i] -= C[i] + D[i];
    }
  }
  if (rc == 0 && config) {
    rc = chs_block_mass_terms(s, q, v, MiF, b, Minv, Y, Z, Wm, kind == 1 ? Xq : NULL, Xp);
  }
  if (rc == 0 && config && kind == 2) { /* Xq = M^{-1} [M'(q; e_j) c]_j, c = M^{-1} G^T mu */
    chs_jac_tmv(s, s->G, mu, t1);
    chs_mass_inv(s, t1, t2);
    rc = chs_block_mass_dir(s, q, t2, Xp);
    if (rc == 0) {
      chs_dense_mm(n, n, n, Minv, Xp, Xq);
    }
  }
  if (rc == 0 && kind == 2 && (s->time_bits & CHS_TIME_CONSTRAINTS)) {
    rc = chs_system_time_terms(s, q); /* G_t into s->Gt */
  }
  if (rc != 0) {
    free(buf);
    return rc;
  }
  for (size_t i = 0; i < nn; i++) {
    HK[i] += W[i]; /* H + K_lambda */
  }
  memset(J, 0, (size_t)(N * N) * sizeof *J);
#define JE(i, j) J[(i) + (j)*N]
  for (sunindextype i = 0; i < n; i++) {
    JE(i, i) = cj;
    JE(n + i, n + i) = cj;
    for (sunindextype j = 0; j < n; j++) {
      JE(i, n + j) = -Minv[i * n + j];
      JE(n + i, j) = HK[i * n + j];
      if (config) {
        JE(i, j) += Y[i * n + j];
        JE(n + i, j) -= Z[i * n + j];
        JE(n + i, n + j) -= Wm[i * n + j];
      }
    }
    for (sunindextype l = 0; l < m; l++) {
      JE(n + i, 2 * n + l) = G[l * n + i];
    }
  }
  if (kind == 2) {
    chs_dense_mm(n, n, n, Minv, X, W); /* M^{-1} K_mu */
    for (sunindextype i = 0; i < n; i++) {
      for (sunindextype j = 0; j < n; j++) {
        JE(i, j) += W[i * n + j] - (config ? Xq[i * n + j] : 0);
      }
      for (sunindextype l = 0; l < m; l++) {
        JE(i, 2 * n + m + l) = GM[l * n + i]; /* (M^{-1} G^T)_il = (G M^{-1})_li, M symmetric */
      }
    }
    if (s->Gt) {
      chs_block_G(s, s->Gt, B);
      for (size_t i = 0; i < mn; i++) {
        A[i] += B[i]; /* d psi/dq = Gdot(q, v) + G_t (- G Y) */
      }
    }
    if (config) {
      chs_dense_mm(m, n, n, G, Y, B);
      for (size_t i = 0; i < mn; i++) {
        A[i] -= B[i];
      }
    }
  }
  if (kind != 1) {
    for (sunindextype l = 0; l < m; l++) {
      for (sunindextype j = 0; j < n; j++) {
        JE(2 * n + l, j) = G[l * n + j];
        if (kind == 2) {
          JE(2 * n + m + l, j) = A[l * n + j];
          JE(2 * n + m + l, n + j) = GM[l * n + j];
        }
      }
    }
  } else {
    chs_dense_mm(m, n, n, GM, HK, C);  /* G M^{-1} (H + K_lambda) */
    chs_dense_mm(m, n, n, A, Minv, D); /* Gdot(q, v) M^{-1} */
    for (size_t i = 0; i < mn; i++) {
      B[i] += C[i];
    }
    if (config) {
      chs_dense_mm(m, n, n, A, Y, C); /* + 2 Gdot(q, v) Y + G M^{-1} X on q */
      for (size_t i = 0; i < mn; i++) {
        B[i] += 2 * C[i];
      }
      chs_dense_mm(m, n, n, GM, Xq, C);
      for (size_t i = 0; i < mn; i++) {
        B[i] += C[i];
      }
      chs_dense_mm(m, n, n, GM, Xp, C); /* + G M^{-1} Xp / 2 in D: -2 D on p */
      for (size_t i = 0; i < mn; i++) {
        D[i] += C[i] / 2;
      }
    }
    for (sunindextype l = 0; l < m; l++) {
      for (sunindextype j = 0; j < n; j++) {
        JE(2 * n + l, j) = B[l * n + j];
        JE(2 * n + l, n + j) = -2 * D[l * n + j];
      }
      for (sunindextype k = 0; k < m; k++) { /* Q_lk = (G M^{-1} G^T)_lk */
        sunrealtype acc = 0;
        for (sunindextype j = 0; j < n; j++) {
          acc += GM[l * n + j] * G[k * n + j];
        }
        JE(2 * n + l, 2 * n + k) = acc;
      }
    }
  }
#undef JE
  free(buf);
  return 0;
}

#endif
