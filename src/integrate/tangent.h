/* Private: the exact linearisation of the constraint steps of chs' own steppers (rattle, sprk,
 * lobatto / alpha-prk), for their tangent maps (CHSIntegratorOps.tangent_step; the wedge
 * diagnostic, chs/wedge.h). Header only, included after ../impl.h.
 *
 * A step of these methods is a sequence of three kinds of maps, each differentiated exactly:
 *   kick     p <- p + c F(q):                  dp += -c H(q) dq           (H = hess V)
 *   position q1 = qb - c M^{-1} G(q0)^T nu,  g(q1) = 0:
 *            dq1 = dqb - c M^{-1} dr,  dr = Gdot(q0, dq0)^T nu + G(q0)^T dnu,  G(q1) dq1 = 0
 *   momentum p1 = pt - G(q)^T mu,  G(q) M^{-1} p1 = 0:
 *            dp1 = dpt - Gdot(q, dq)^T mu - G^T dmu,
 *            Q dmu = G M^{-1} (dpt - Gdot(q, dq)^T mu) + Gdot(q, dq) M^{-1} p1
 * where Gdot(q, u) = dG(q)[u] is the problem's jacobian_dot, so Gdot(q, dq)^T nu is the
 * constraint Hessian sum_i nu_i hess g_i applied to dq. The position equation's matrix
 * c G(q1) M^{-1} G(q0)^T is not symmetric; dnu is found by the iteration dnu += Q(q1)^{-1} r / c
 * on the residual r = G(q1) dq1, which contracts like the methods' own simplified Newton
 * iterations (factor O(|q1 - q0|)) and is run to round-off. Only the Gram solver (dense, band or
 * KLU, factored at q1) is needed, so large sparse problems work too. */
#ifndef CHS_INTEGRATE_TANGENT_H
#define CHS_INTEGRATE_TANGENT_H

#include <math.h>
#include <stdlib.h>
#include "../impl.h"

#define CHS_TANGENT_ITER_MAX 60

typedef struct {
  sunrealtype *Gd;        /* gsize: Gdot(q, dq) */
  sunrealtype *a, *b, *v; /* n */
  sunrealtype *x, *y;     /* m */
} chs_tangent_work;

static inline int chs_tangent_work_alloc(chs_tangent_work *w, const CHSSystem *s) {
  size_t n = (size_t)s->n, m = (size_t)s->m, gs = (size_t)s->gsize;
  w->Gd = malloc((gs + 3 * n + 2 * m + 1) * sizeof *w->Gd);
  if (!w->Gd) {
    return CHS_ERR_MEM;
  }
  w->a = w->Gd + gs;
  w->b = w->a + n;
  w->v = w->b + n;
  w->x = w->v + n;
  w->y = w->x + m;
  return 0;
}

/* CHS_ERR_UNSUPPORTED when the step's equations are solved to a user tolerance above the
 * stepper's round-off level floor: the step is then not the solved map its tangent map is of. */
static inline int chs_tangent_need_solved(sunrealtype tol, sunrealtype floor, const char *who,
                                          CHSError *err) {
  return tol > floor
             ? chs_error_set(err, CHS_ERR_UNSUPPORTED, "%s: no tangent map with --rtol", who)
             : 0;
}

static inline void chs_tangent_work_free(chs_tangent_work *w) {
  free(w->Gd);
  w->Gd = NULL;
}

/* dp += -c H(q) dq (nothing without hessian_potential: CHSIntegrator_TangentStep has checked that
 * the problem then declares V at most linear). */
static inline int chs_tangent_kick(CHSSystem *s, const sunrealtype *q, const sunrealtype *dq,
                                   sunrealtype c, sunrealtype *dp, chs_tangent_work *w) {
  if (!s->ops->hessian_potential) {
    return 0;
  }
  if (s->ops->hessian_potential(s->data, q, dq, w->a) != 0) {
    return CHS_ERR_SOLVER;
  }
  for (sunindextype i = 0; i < s->n; i++) {
    dp[i] -= c * w->a[i];
  }
  return 0;
}

/* The momentum projection's tangent: dp (in: dpt, out: dp1) at q with tangent dq; p1 and mu
 * as above; s->G = G(q) and the Gram matrix factored at q. */
static inline int chs_tangent_momentum(CHSSystem *s, const sunrealtype *q, const sunrealtype *p1,
                                       const sunrealtype *mu, const sunrealtype *dq,
                                       sunrealtype *dp, chs_tangent_work *w) {
  sunindextype n = s->n, m = s->m;
  if (s->ops->jacobian_dot(s->data, q, dq, w->Gd) != 0) {
    return CHS_ERR_SOLVER;
  }
  chs_jac_tmv(s, w->Gd, mu, w->a);
  for (sunindextype i = 0; i < n; i++) {
    dp[i] -= w->a[i];
  }
  chs_mass_inv(s, dp, w->b);
  chs_jac_mv(s, s->G, w->b, w->x);
  chs_mass_inv(s, p1, w->v);
  chs_jac_mv(s, w->Gd, w->v, w->y);
  for (sunindextype j = 0; j < m; j++) {
    w->x[j] += w->y[j];
  }
  if (chs_gram_solve(s->gram, w->x, w->y) != 0) {
    return CHS_ERR_SOLVER;
  }
  chs_jac_tmv(s, s->G, w->y, w->a);
  for (sunindextype i = 0; i < n; i++) {
    dp[i] -= w->a[i];
  }
  return 0;
}

/* The position constraint step's tangent: dq (in: dqb, out: dq1) and dr (out, n) from the
 * tangent dq0 at q0; G0 = G(q0) (Jacobian-shaped), nu and c as above; s->G = G(q1) and the Gram
 * matrix factored at q1. CHS_ERR_SOLVER when the iteration does not reach round-off. */
static inline int chs_tangent_position(CHSSystem *s, const sunrealtype *q0, const sunrealtype *G0,
                                       const sunrealtype *nu, sunrealtype c, const sunrealtype *dq0,
                                       sunrealtype *dq, sunrealtype *dr, chs_tangent_work *w) {
  sunindextype n = s->n, m = s->m;
  if (s->ops->jacobian_dot(s->data, q0, dq0, w->Gd) != 0) {
    return CHS_ERR_SOLVER;
  }
  chs_jac_tmv(s, w->Gd, nu, dr);
  chs_mass_inv(s, dr, w->a);
  for (sunindextype i = 0; i < n; i++) {
    dq[i] -= c * w->a[i];
  }
  sunrealtype prev = INFINITY;
  for (int it = 0; it < CHS_TANGENT_ITER_MAX; it++) {
    chs_jac_mv(s, s->G, dq, w->x);
    if (chs_gram_solve(s->gram, w->x, w->y) != 0) {
      return CHS_ERR_SOLVER;
    }
    for (sunindextype j = 0; j < m; j++) {
      w->y[j] /= c;
    }
    chs_jac_tmv(s, G0, w->y, w->a);
    chs_mass_inv(s, w->a, w->b);
    sunrealtype step = 0, size = 0;
    for (sunindextype i = 0; i < n; i++) {
      dr[i] += w->a[i];
      dq[i] -= c * w->b[i];
      step += w->b[i] * w->b[i];
      size += dq[i] * dq[i];
    }
    step = fabs(c) * sqrt(step);
    size = sqrt(size);
    if (!isfinite(step) || !isfinite(size)) {
      return CHS_ERR_SOLVER;
    }
    /* done when dq1 has converged to round-off: the change is at its last bits, or stops
     * shrinking there */
    if (step <= 4 * SUN_UNIT_ROUNDOFF * size ||
        (it > 0 && step >= 0.5 * prev && step <= 1e3 * SUN_UNIT_ROUNDOFF * size)) {
      return 0;
    }
    prev = step;
  }
  return CHS_ERR_SOLVER;
}

#endif
