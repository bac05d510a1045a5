/* Standard underlying ODE (naive index reduction).
 *
 *   q' = M^{-1} p,   p' = F - G^T lambda,   lambda = Q^{-1} (Gdot(q,v) v + G M^{-1} F).
 *
 * [Seiler, Dirac] eq. (38) for the pendulum ("inv"), [Seiler, stable] eq. (15)/(42). The constraint
 * manifold is invariant but not stable: g drifts quadratically, psi linearly ([Seiler, Dirac] Sec.
 * 6). M(q) and explicit time dependence (docs/mechanics.md): F + F_M in p', the free acceleration
 * and the time terms in r (chs_system_kinematics); the analytic Jacobian below takes M(q) with the
 * problem's mass_grad_dir and a time-dependent potential, not time-dependent constraints (others:
 * finite differences, CHSFormulation_HasJacobian). */
#include <stdlib.h>
#include <string.h>
#include "../src/impl.h"

static int standard_rhs(CHSFormulation f, sunrealtype t, const sunrealtype *y, sunrealtype *ydot) {
  (void)t;
  CHSSystem *s = &f->sys;
  sunindextype n = s->n;
  if (chs_system_field1_applies(s)) { /* one constraint: Q a number (src/system.c) */
    return chs_system_standard_field1(s, y, y + n, ydot);
  }
  CHSKinematics k;
  /* F straight into p' (completed in place by the field) unless ydot is y itself */
  CHS_CALL(chs_system_kinematics_f(s, y, y + n, ydot != y ? ydot + n : s->wn[1], NULL, 1, &k));
  chs_system_field(s, &k, k.lambda, 0, NULL, NULL, ydot);
  return 0;
}

/* df/dy, with v = M^{-1} p, b = M^{-1} G^T lambda, H = hess V, K = sum_i lambda_i hess g_i,
 * T = d/dq (Gdot(q,v) v):
 *   d lambda/dq = Q^{-1} (T + Gdot(q, M^{-1} F) - G M^{-1} H - Gdot(q, b) - G M^{-1} K),
 *   d lambda/dp = 2 Q^{-1} Gdot(q, v) M^{-1},
 *   J = [0, M^{-1}; -H - K - G^T dlambda/dq, -G^T dlambda/dp].
 * M(q) (chs_block_mass_terms; M^{-1} F is then the free acceleration a of the kinematics):
 * d lambda/dq gains -Q^{-1} (2 Gdot(q, v) Y + G M^{-1} X), d lambda/dp gains Q^{-1} G M^{-1} Xp,
 * and J gains -Y (dv/dq) on rows q, Z and W (dF_M/dq, dF_M/dp) on rows p. */
static int standard_jacobian(CHSFormulation f, sunrealtype t, const sunrealtype *y,
                             const sunrealtype *yp, sunrealtype cj, sunrealtype *J) {
  (void)t;
  (void)yp;
  (void)cj;
  CHSSystem *s = &f->sys;
  sunindextype n = s->n, m = s->m, N = 2 * n;
  CHSKinematics k;
  CHS_CALL(chs_system_kinematics(s, y, y + n, &k));
  size_t nn = (size_t)(n * n), mn = (size_t)(m * n);
  int config = s->mass_kind == CHS_MASS_CONFIG;
  sunrealtype *buf =
      malloc(((config ? 8 : 3) * nn + 6 * mn + 4 * (size_t)n + (size_t)m) * sizeof *buf);
  if (!buf) {
    return CHS_ERR_MEM;
  }
  sunrealtype *Minv = buf, *H = Minv + nn, *K = H + nn, *G = K + nn, *Gdv = G + mn, *GM = Gdv + mn,
              *A = GM + mn, *B = A + mn, *C = B + mn, *v = C + mn, *MiF = v + n, *b = MiF + n,
              *tmp = b + n, *lam = tmp + n;
  sunrealtype *Y = config ? lam + m : NULL, *Z = Y ? Y + nn : NULL, *W = Z ? Z + nn : NULL,
              *X = W ? W + nn : NULL, *Xp = X ? X + nn : NULL;
  memcpy(v, k.v, (size_t)n * sizeof *v);
  memcpy(MiF, k.Minv_F, (size_t)n * sizeof *v);
  memcpy(lam, k.lambda, (size_t)m * sizeof *v);
  chs_block_G(s, s->G, G);
  chs_block_G(s, s->Gd, Gdv);
  chs_block_minv(s, Minv);
  chs_jac_tmv(s, s->G, lam, tmp);
  chs_mass_inv(s, tmp, b);
  int rc = chs_block_hessV(s, y, H);
  if (rc == 0) {
    rc = chs_block_hessgw(s, y, lam, K);
  }
  if (rc == 0 && config) {
    rc = chs_block_mass_terms(s, y, v, MiF, b, Minv, Y, Z, W, X, Xp);
  }
  if (rc == 0) { /* A = T + Gdot(q, M^{-1} F) - Gdot(q, b) - G M^{-1} (H + K) */
    rc = chs_block_third(s, y, v, A);
  }
  if (rc == 0) {
    rc = chs_block_gdot(s, y, MiF, B);
  }
  if (rc == 0) {
    rc = chs_block_gdot(s, y, b, C);
  }
  if (rc == 0) {
    for (size_t i = 0; i < mn; i++) {
      A[i] += B[i] - C[i];
    }
    for (size_t i = 0; i < nn; i++) {
      K[i] += H[i]; /* K <- H + K */
    }
    chs_dense_mm(m, n, n, G, Minv, GM);
    chs_dense_mm(m, n, n, GM, K, B);
    for (size_t i = 0; i < mn; i++) {
      A[i] -= B[i];
    }
    chs_dense_mm(m, n, n, Gdv, Minv, C); /* C = 2 Gdot(q, v) M^{-1} */
    for (size_t i = 0; i < mn; i++) {
      C[i] *= 2;
    }
    if (config) { /* A -= 2 Gdot(q, v) Y + G M^{-1} X, C += G M^{-1} Xp */
      chs_dense_mm(m, n, n, Gdv, Y, B);
      for (size_t i = 0; i < mn; i++) {
        A[i] -= 2 * B[i];
      }
      chs_dense_mm(m, n, n, GM, X, B);
      for (size_t i = 0; i < mn; i++) {
        A[i] -= B[i];
      }
      chs_dense_mm(m, n, n, GM, Xp, B);
      for (size_t i = 0; i < mn; i++) {
        C[i] += B[i];
      }
    }
    rc = chs_gram_solve_columns(s, n, A);
  }
  if (rc == 0) {
    rc = chs_gram_solve_columns(s, n, C);
  }
  if (rc == 0) {
    memset(J, 0, (size_t)(N * N) * sizeof *J);
    for (sunindextype j = 0; j < n; j++) {
      for (sunindextype i = 0; i < n; i++) {
        sunrealtype dq = -K[i * n + j], dp = 0;
        for (sunindextype l = 0; l < m; l++) {
          dq -= G[l * n + i] * A[l * n + j];
          dp -= G[l * n + i] * C[l * n + j];
        }
        if (config) { /* dv/dq = -Y; dF_M/dq = Z, dF_M/dp = W */
          J[i + j * N] = -Y[i * n + j];
          dq += Z[i * n + j];
          dp += W[i * n + j];
        }
        J[i + (n + j) * N] = Minv[i * n + j];
        J[n + i + j * N] = dq;
        J[n + i + (n + j) * N] = dp;
      }
    }
  }
  free(buf);
  return rc;
}

const CHSFormulationOps chs_formulation_standard = {
    .name = "standard",
    .summary = "underlying ODE by index reduction (naive; manifold unstable)",
    .source = "[Seiler, Dirac] (27), (38); [Seiler, stable] (15), (42)",
    .flags = CHS_FORM_ODE | CHS_FORM_MASS_CONFIG | CHS_FORM_TIME | CHS_FORM_JAC_HESSIAN |
             CHS_FORM_JAC_THIRD | CHS_FORM_MPI_STANDARD,
    .rhs = standard_rhs,
    .jacobian = standard_jacobian,
};
