/* Private: what chs's own fixed-step steppers (rattle, sprk, gauss/midpoint, lobatto, alpha-prk)
 * share. Header only (static inline), included by those files after ../impl.h. */
#ifndef CHS_INTEGRATE_FIXED_STEP_H
#define CHS_INTEGRATE_FIXED_STEP_H

#include <math.h>
#include <string.h>
#include "../impl.h"

/* One step of size h from the stepper's state; on success it advances the stepper's time by h. */
typedef int (*chs_fixed_step_fn)(void *mem, sunrealtype h, CHSError *err);

/* Steps of h from *t towards tout through step (only one with one_step); the last step before
 * tout is shortened to reach it, and *t is then set to tout exactly (no round-off drift). t points
 * into mem: step advances it. Returns 0, or the first non-zero code of step. */
static inline int chs_fixed_step_evolve(void *mem, chs_fixed_step_fn step, sunrealtype *t,
                                        sunrealtype h, sunrealtype tout, int one_step,
                                        CHSError *err) {
  int rc = 0;
  while (rc == 0 && *t < tout) {
    sunrealtype hs = h;
    int last = *t + hs >= tout - 1e-9 * h;
    if (last) {
      hs = tout - *t;
    }
    rc = step(mem, hs, err);
    if (rc == 0 && last) {
      *t = tout;
    }
    if (one_step) {
      break;
    }
  }
  return rc;
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

#endif
