/* Private: what chs's own fixed-step steppers (rattle, sprk, gauss/midpoint, lobatto, alpha-prk)
 * share. Header only (static inline), included by those files after ../impl.h. */
#ifndef CHS_INTEGRATE_FIXED_STEP_H
#define CHS_INTEGRATE_FIXED_STEP_H

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

#endif
