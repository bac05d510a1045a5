/* The tangent map of a constrained partitioned Runge-Kutta step (cprk.h): the derivative of the
 * stage solution, solved with the exact stage Jacobian without forming it (refinement with J v
 * products, preconditioned by the structured Newton matrix, to round-off). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_dense.h>
#include "cprk.h"
#include "tangent.h"

static int cprk_stage_force_jv(chs_cprk *c, int j, const sunrealtype *u, sunrealtype *out) {
  CHSSystem *sys = c->sys;
  const CHSProblemOps *ops = sys->ops;
  sunindextype n = c->n;
  const sunrealtype *Q = c->Qs + j * n;
  memset(out, 0, (size_t)n * sizeof *out);
  if (chs_hessian_v(sys, Q, u, out) != 0) {
    return 1;
  }
  if (ops->jacobian_dot(sys->data, Q, u, c->Gd) != 0) {
    return 1;
  }
  chs_jac_tmv(sys, c->Gd, c->X + c->s * n + j * c->m, c->wn1);
  for (sunindextype k = 0; k < n; k++) {
    out[k] = -out[k] - c->wn1[k];
  }
  return 0;
}

/* out = J v, the exact stage Jacobian dR/dX at the solution applied to v (matrix-free):
 * dQ_j = h sum_k a_jk M^{-1} v_P_k, out_P_i = v_P_i - h sum_{j<s} ah_ij (dFc_j/dQ dQ_j -
 * G(Q_j)^T v_Lambda_j), out_g_i = G(Q_i) dQ_i / h. jq: s n of scratch. */
static int cprk_jv(chs_cprk *c, const chs_cprk_tableau *tb, sunrealtype h, const sunrealtype *v,
                   sunrealtype *out, sunrealtype *jq) {
  CHSSystem *sys = c->sys;
  sunindextype n = c->n, m = c->m, gs = c->gs;
  int s = c->s;
  sunrealtype *a = c->wn2;
  for (int k = 0; k < s; k++) {
    chs_mass_inv(sys, v + k * n, out + k * n); /* out_P as scratch: M^{-1} v_P_k */
  }
  for (int j = 0; j < s; j++) {
    sunrealtype *d = jq + j * n;
    memset(d, 0, (size_t)n * sizeof *d);
    for (int k = 0; k < s; k++) {
      sunrealtype w = h * tb->A[j][k];
      for (sunindextype l = 0; l < n && w != 0; l++) {
        d[l] += w * out[k * n + l];
      }
    }
  }
  memcpy(out, v, (size_t)(s * n) * sizeof *out);
  for (int j = 0; j < s - 1; j++) {
    if (cprk_stage_force_jv(c, j, jq + j * n, a) != 0) {
      return 1;
    }
    chs_jac_tmv(sys, c->Gs + j * gs, v + s * n + j * m, c->wn1);
    for (int i = 0; i < s; i++) {
      sunrealtype w = h * tb->Ah[i][j];
      for (sunindextype l = 0; l < n && w != 0; l++) {
        out[i * n + l] -= w * (a[l] - c->wn1[l]);
      }
    }
  }
  for (int i = 1; i < s; i++) {
    sunrealtype *r = out + s * n + (i - 1) * m;
    chs_jac_mv(sys, c->Gs + i * gs, jq + i * n, r);
    for (sunindextype l = 0; l < m; l++) {
      r[l] /= h;
    }
  }
  return 0;
}

/* dX <- J^{-1} dX with the exact stage Jacobian, without forming it: refinement x += S^{-1} (b - J
 * x) with the structured matrix S (Q factored at q_n for it, at q_{n+1} again afterwards for the
 * momentum projection's tangent), to round-off. work: 2 N + s n. */
static int cprk_structured_exact(chs_cprk *c, const chs_cprk_tableau *tb, sunrealtype h,
                                 sunrealtype *work) {
  sunindextype N = c->N;
  sunrealtype *b = work, *x = b + N, *jq = x + N, *dX = c->dX;
  if (chs_system_gram_at(c->sys, c->q) != 0) {
    return 1;
  }
  memcpy(b, dX, (size_t)N * sizeof *b);
  memset(x, 0, (size_t)N * sizeof *x);
  sunrealtype prev = INFINITY;
  int rc = 1;
  for (int it = 0; it < CPRK_NEWTON_MAX; it++) {
    if (it > 0) { /* dX = b - J x */
      if (cprk_jv(c, tb, h, x, dX, jq) != 0) {
        break;
      }
      for (sunindextype l = 0; l < N; l++) {
        dX[l] = b[l] - dX[l];
      }
    }
    if (chs_cprk_structured_solve(c, tb, h) != 0) {
      break;
    }
    sunrealtype step = 0, size = 0;
    for (sunindextype l = 0; l < N; l++) {
      x[l] += dX[l];
      step = fmax(step, fabs(dX[l]));
      size = fmax(size, fabs(x[l]));
    }
    if (!isfinite(step)) {
      break;
    }
    if (step <= 4 * SUN_UNIT_ROUNDOFF * size ||
        (it > 1 && step >= 0.5 * prev && step <= 1e3 * SUN_UNIT_ROUNDOFF * size)) {
      rc = 0;
      break;
    }
    prev = step;
  }
  memcpy(dX, x, (size_t)N * sizeof *dX);
  if (chs_system_gram_at(c->sys, c->q1) != 0) {
    rc = 1;
  }
  return rc;
}

int chs_cprk_tangent_need_constant(const chs_cprk *c, CHSError *err) {
  return c->sys->general ? chs_error_set(err, CHS_ERR_UNSUPPORTED,
                                         "%s: no exact tangent map for M(q) or explicit time "
                                         "dependence (it needs second derivatives of M(q))",
                                         c->who)
                         : 0;
}

int chs_cprk_tangent_setup(chs_cprk *c, const chs_cprk_tableau *tb, sunrealtype h, CHSError *err) {
  CHSSystem *sys = c->sys;
  sunindextype n = c->n, m = c->m;
  int s = c->s;
  if (!c->tbuf) { /* dQ, E, vd (s n each), a, dpt (n), mu (m); structured: rhs, x (N), jq (s n) */
    size_t extra = c->structured ? 2 * (size_t)c->N + (size_t)s * (size_t)n : 0;
    c->tbuf =
        malloc((3 * (size_t)s * (size_t)n + 2 * (size_t)n + (size_t)m + extra) * sizeof *c->tbuf);
    c->tw = calloc(1, sizeof(chs_tangent_work));
    if (!c->tbuf || !c->tw || chs_tangent_work_alloc(c->tw, sys) != 0) {
      return chs_error_set(err, CHS_ERR_MEM, "out of memory");
    }
  }
  /* the exact Newton matrix at the solution (the iteration may have used an older one); the
   * structured Newton solves with it by refinement (cprk_structured_exact) instead */
  if (chs_cprk_residual(c, tb, h) != 0 || (!c->structured && chs_cprk_jacobian(c, tb, h) != 0)) {
    return chs_error_set(err, CHS_ERR_SOLVER, "%s: tangent map: stage Jacobian failed at t = %g",
                         c->who, (double)c->t);
  }
  sunrealtype *mu = c->tbuf + 3 * (size_t)s * (size_t)n + 2 * (size_t)n;
  for (sunindextype l = 0; l < m; l++) {
    mu[l] = h * tb->b[s - 1] * c->lam1[l];
  }
  return 0;
}

/* The stage equations R(X; q, p, alpha) = 0 linearised at the solution X. With e_j the explicit
 * variation of Q_j, dq + dalpha h sum_k D_jk M^{-1} P_j (dtb = (D, Dh), the tableau's derivative;
 * all Q_j move with q):
 *   J dX = dp + h sum_{j<s} ah_ij (dFc_j/dQ) e_j + dalpha h sum_{j<s} Dh_ij Fc_j   (P rows),
 *          -G(Q_i) e_i / h                                                        (g rows);
 * dQ_j = e_j + h sum_k a_jk M^{-1} dP_k, dq1 = dQ_s,
 * dpt = dp + h sum_{j<s} b_j (dFc_j/dQ dQ_j - G(Q_j)^T dLambda_j) - h b_s H(q1) dq1 (b does not
 * depend on alpha), and the projection psi(q1, p1) = 0 with mu = h b_s Lambda_s (tangent.h). */
int chs_cprk_tangent_apply(chs_cprk *c, const chs_cprk_tableau *tb, const chs_cprk_tableau *dtb,
                           sunrealtype dalpha, sunrealtype h, sunrealtype *dq, sunrealtype *dp,
                           CHSError *err) {
  CHSSystem *sys = c->sys;
  sunindextype n = c->n, m = c->m, gs = c->gs;
  int s = c->s;
  sunrealtype *dQ = c->tbuf, *E = dQ + s * n, *vd = E + s * n, *a = vd + s * n, *dpt = a + n;
  sunrealtype *mu = dpt + n, *dX = c->dX;
  int rc = 0;
  for (int j = 0; j < s; j++) {
    sunrealtype *e = E + j * n;
    memcpy(e, dq, (size_t)n * sizeof *e);
    for (int k = 0; k < s && dtb && dalpha != 0; k++) {
      sunrealtype w = h * dalpha * dtb->A[j][k];
      for (sunindextype l = 0; l < n && w != 0; l++) {
        e[l] += w * c->Vs[k * n + l];
      }
    }
  }
  for (int i = 0; i < s; i++) {
    memcpy(dX + i * n, dp, (size_t)n * sizeof *dX);
  }
  for (int j = 0; j < s - 1 && rc == 0; j++) {
    rc = cprk_stage_force_jv(c, j, E + j * n, a);
    for (int i = 0; i < s; i++) {
      sunrealtype w = h * tb->Ah[i][j], wa = dtb ? h * dalpha * dtb->Ah[i][j] : 0;
      for (sunindextype l = 0; l < n && (w != 0 || wa != 0); l++) {
        dX[i * n + l] += w * a[l] + wa * c->Fc[j * n + l];
      }
    }
  }
  for (int i = 1; i < s; i++) {
    sunrealtype *r = dX + s * n + (i - 1) * m;
    chs_jac_mv(sys, c->Gs + i * gs, E + i * n, r);
    for (sunindextype l = 0; l < m; l++) {
      r[l] = -r[l] / h;
    }
  }
  if (rc == 0 && !c->structured) {
    SUNDlsMat_denseGETRS(c->J, c->N, c->piv, dX);
  } else if (rc == 0) {
    rc = cprk_structured_exact(c, tb, h, mu + m);
  }
  for (int j = 0; j < s; j++) {
    chs_mass_inv(sys, dX + j * n, vd + j * n);
  }
  for (int i = 0; i < s; i++) {
    sunrealtype *d = dQ + i * n;
    memcpy(d, E + i * n, (size_t)n * sizeof *d);
    for (int j = 0; j < s; j++) {
      sunrealtype w = h * tb->A[i][j];
      for (sunindextype l = 0; l < n && w != 0; l++) {
        d[l] += w * vd[j * n + l];
      }
    }
  }
  memcpy(dpt, dp, (size_t)n * sizeof *dpt);
  for (int j = 0; j < s - 1 && rc == 0; j++) {
    rc = cprk_stage_force_jv(c, j, dQ + j * n, a);
    chs_jac_tmv(sys, c->Gs + j * gs, dX + s * n + j * m, c->wn2);
    for (sunindextype l = 0; l < n; l++) {
      dpt[l] += h * tb->b[j] * (a[l] - c->wn2[l]);
    }
  }
  sunrealtype *dq1 = dQ + (s - 1) * n;
  if (rc == 0) {
    rc = chs_tangent_kick(sys, c->q1, dq1, h * tb->b[s - 1], dpt, c->tw);
  }
  if (rc == 0) {
    rc = chs_tangent_momentum(sys, c->q1, c->p1, mu, dq1, dpt, c->tw);
  }
  if (rc != 0) {
    return chs_error_set(err, CHS_ERR_SOLVER, "%s: tangent map failed at t = %g", c->who,
                         (double)c->t);
  }
  memcpy(dq, dq1, (size_t)n * sizeof *dq);
  memcpy(dp, dpt, (size_t)n * sizeof *dp);
  return 0;
}
