/* Shared by the DAE formulations (dae_index3.c, dae_ggl.c, dae_index1.c): the state is
 * (q, p, lambda[, mu]); the consistent multiplier is DESIGN's lambda = Q^{-1} r. */
#ifndef CHS_DAE_COMMON_H
#define CHS_DAE_COMMON_H

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
 * (s->G) and F = -grad V + Fnc(q, M^{-1} p) evaluated; returns through CHS_CALL on callback
 * failure. */
static inline int chs_dae_dynamics(CHSFormulation f, const sunrealtype *y, const sunrealtype *yp,
                                   const sunrealtype *mu, sunrealtype *res) {
  CHSSystem *s = &f->sys;
  sunindextype n = s->n, m = s->m;
  const sunrealtype *q = y, *p = y + n, *lam = y + 2 * n;
  sunrealtype *v = s->wn[0], *F = s->wn[1], *Gt = s->wn[2], *Mi = s->wn[3];
  chs_mass_inv(s, p, v);
  if (s->ops->jacobian(s->data, q, s->G) != 0 || chs_system_force(s, q, v, F) != 0) {
    return CHS_RECOVERABLE;
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

#endif
