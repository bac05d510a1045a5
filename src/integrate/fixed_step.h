/* Private: what chs's own fixed-step steppers (rattle, sprk, gauss/midpoint, lobatto, alpha-prk)
 * share. Header only (static inline), included by those files after ../impl.h. */
#ifndef CHS_INTEGRATE_FIXED_STEP_H
#define CHS_INTEGRATE_FIXED_STEP_H

#include <math.h>
#include <string.h>
#include "../impl.h"

/* One step of size h from the stepper's state; on success it advances the stepper's time by h. */
typedef int (*chs_fixed_step_fn)(void *mem, sunrealtype h, CHSError *err);

/* The steps of h from t to tout (t < tout), counted, not found by accumulating t += h (whose
 * drift, ~ k u t after k steps, made a spurious tiny last step: 100032 steps for 100 / 0.001 with
 * an output every 1000 steps): when (tout - t) / h is an integer N up to its rounding error (or
 * 1e-9), N steps of h; otherwise floor((tout - t) / h) steps of h and one shorter step to tout.
 * Step k (1-based) ends at t + k h (one rounding), the last at tout exactly. *total: the number
 * of steps (0 when tout - t is below the rounding level of t), *partial: 1 when the last one is
 * shorter than h (its size is then tout - t - (total - 1) h); returns 0, or
 * CHS_ERR_UNSUPPORTED for more than 1e15 steps (unless one_step: then *total is 1 or 2, the step
 * being the last one or not). */
static inline int chs_fixed_step_count(sunrealtype t, sunrealtype h, sunrealtype tout, int one_step,
                                       long long *total, int *partial, CHSError *err) {
  const sunrealtype r = (tout - t) / h;
  const sunrealtype tol = fmax(1e-9, 16 * SUN_UNIT_ROUNDOFF * (r + (fabs(t) + fabs(tout)) / h));
  const sunrealtype nr = nearbyint(r);
  *partial = !(fabs(r - nr) <= tol);
  if (!(r > tol)) {
    *total = 0;
  } else if (one_step) {
    *total = r <= 1 + tol ? 1 : 2;
  } else if (!(r <= 1e15)) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "%g steps of h = %g from t = %g to %g: too many for a fixed-step method",
                         (double)r, (double)h, (double)t, (double)tout);
  } else {
    *total = *partial ? (long long)floor(r) + 1 : (long long)nr;
  }
  return 0;
}

/* The end of step k of chs_fixed_step_count's total from t. */
static inline sunrealtype chs_fixed_step_end(sunrealtype t, sunrealtype h, sunrealtype tout,
                                             long long k, long long total) {
  return k >= total ? tout : t + (sunrealtype)k * h;
}

/* Steps of h from *t towards tout through step (only one with one_step), counted by
 * chs_fixed_step_count: step k ends at *t + k h, the last one at tout (shortened when tout - *t is
 * no multiple of h). t points into mem: step advances it; it is overridden here with the end of
 * the step. Returns 0, or the first non-zero code of step or of chs_fixed_step_count. */
static inline int chs_fixed_step_evolve(void *mem, chs_fixed_step_fn step, sunrealtype *t,
                                        sunrealtype h, sunrealtype tout, int one_step,
                                        CHSError *err) {
  if (!(*t < tout)) {
    return 0;
  }
  const sunrealtype t0 = *t;
  long long total = 0;
  int partial = 0;
  CHS_CALL(chs_fixed_step_count(t0, h, tout, one_step, &total, &partial, err));
  for (long long k = 1; k <= total; k++) {
    sunrealtype t1 = chs_fixed_step_end(t0, h, tout, k, total);
    int rc = step(mem, k == total && partial ? t1 - (t0 + (sunrealtype)(k - 1) * h) : h, err);
    if (rc != 0) {
      return rc;
    }
    *t = t1;
    if (one_step) {
      return 0;
    }
  }
  *t = tout; /* also when tout - t0 is below the rounding level of t0: no step */
  return 0;
}

/* CHS_ERR_UNSUPPORTED unless the state of f is the physical (q, p) (the steppers work on the
 * problem's callbacks, not on the formulation's right-hand side); method names the method. */
static inline int chs_fixed_step_need_physical(CHSFormulation f, const char *method,
                                               CHSError *err) {
  if (f->ops->to_physical || f->size != 2 * f->sys.n) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "method %s works on the physical (q, p): use it with a formulation "
                         "whose state is (q, p), e.g. standard",
                         method);
  }
  return 0;
}

/* The constrained steppers (rattle, sprk, lobatto) keep g and psi at their own tolerance at every
 * step: a projector (--project) would never act, so it is refused rather than ignored. */
static inline int chs_fixed_step_no_projector(CHSFormulation f, const char *method, CHSError *err) {
  if (CHSFormulation_GetProjector(f)) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "method %s keeps the constraints g and psi itself at every step: it takes "
                         "no --project",
                         method);
  }
  return 0;
}

/* The physical state y = (q, p) (length 2n) into q and p, and back. */
static inline void chs_fixed_step_load(N_Vector y, sunindextype n, sunrealtype *q, sunrealtype *p) {
  const sunrealtype *z = N_VGetArrayPointer(y);
  memcpy(q, z, (size_t)n * sizeof *z);
  memcpy(p, z + n, (size_t)n * sizeof *z);
}
static inline void chs_fixed_step_store(const sunrealtype *q, const sunrealtype *p, sunindextype n,
                                        N_Vector y) {
  sunrealtype *z = N_VGetArrayPointer(y);
  memcpy(z, q, (size_t)n * sizeof *z);
  memcpy(z + n, p, (size_t)n * sizeof *z);
}

/* Scale of the round-off of constraints at q: max(1, max_k |q_k|)^2 (a constraint quadratic in
 * coordinates of that size is computed to a few ulps of it). Per constraint, so that the test
 * below does not loosen with the number of constraints (a 2-norm over a chain of 10^4 bonds
 * would). */
static inline sunrealtype chs_fixed_step_gscale(const sunrealtype *q, sunindextype n) {
  sunrealtype x = 1;
  for (sunindextype k = 0; k < n; k++) {
    x = fmax(x, fabs(q[k]));
  }
  return x * x;
}

/* Position constraints satisfied: max_i |g_i| <= tol gscale (tol: the user's, or 16 u). */
static inline int chs_fixed_step_g_done(const sunrealtype *g, sunindextype m, sunrealtype tol,
                                        sunrealtype gscale) {
  sunrealtype gi = 0;
  for (sunindextype i = 0; i < m; i++) {
    gi = fmax(gi, fabs(g[i]));
  }
  return gi <= fmax(tol, 16 * SUN_UNIT_ROUNDOFF) * gscale;
}

/* The statistics of a fixed-step stepper: no Jacobian evaluations and no error test (-1);
 * lin_setups -1 when it factors no Newton matrix. */
static inline void chs_fixed_step_stats(CHSIntegratorStats *st, long steps, long rhs_evals,
                                        long lin_setups) {
  memset(st, 0, sizeof *st);
  st->steps = steps;
  st->rhs_evals = rhs_evals;
  st->jac_evals = -1;
  st->err_test_fails = -1;
  st->lin_setups = lin_setups;
}

/* The generalised force of H = 1/2 p^T M(q)^{-1} p + V(q, t) at (q, p) and the system's current
 * time (chs_system_set_time first): Fh = -H_q = F(q, t) + F_M, F_M = 1/2 grad_q (v^T M(q) v) at
 * fixed v = M(q)^{-1} p (docs/mechanics.md), and v. M(q) is factored at q on return
 * (chs_system_mass_at); for a constant mass matrix F_M = 0. work: n. 0, or the first nonzero code
 * of a callback or of the factorisation. */
static inline int chs_fixed_step_hforce(CHSSystem *s, const sunrealtype *q, const sunrealtype *p,
                                        sunrealtype *Fh, sunrealtype *v, sunrealtype *work) {
  int rc = chs_system_mass_at(s, q);
  if (rc != 0) {
    return rc;
  }
  chs_mass_inv(s, p, v);
  rc = s->ops->force(s->data, q, Fh);
  if (rc == 0 && s->mass_kind == CHS_MASS_CONFIG) {
    rc = s->ops->mass_grad(s->data, q, v, v, work);
    for (sunindextype i = 0; rc == 0 && i < s->n; i++) {
      Fh[i] += work[i] / 2;
    }
  }
  return rc != 0 ? rc : (chs_all_finite(Fh, s->n) ? 0 : CHS_RECOVERABLE);
}

#endif
