/* The multipliers lambda of the physical constraint force -G^T lambda at a formulation's state, and
 * that force (the reaction), for output: CHSFormulation_GetMultipliers (chs/formulation.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <nvector/nvector_serial.h>
#include "impl.h"

/* A system of its own (Gram solver and scratch), so that an evaluation between steps leaves the
 * formulation's workspace as its last right-hand side left it; (q, p) of the state. */
struct chs_mult_ws {
  CHSSystem sys;
  sunrealtype *q, *p;
};

void chs_mult_free(struct chs_mult_ws **w) {
  if (w && *w) {
    chs_system_free(&(*w)->sys);
    free((*w)->q);
    free(*w);
    *w = NULL;
  }
}

static int chs_mult_create(CHSFormulation f, CHSError *err) {
  struct chs_mult_ws *w = calloc(1, sizeof *w);
  if (!w) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  int rc = chs_system_init(&w->sys, f->prob, f->sunctx, chs_gram_kind(f->sys.gram), err);
  if (rc != 0) {
    free(w);
    return rc;
  }
  w->q = calloc(2 * (size_t)w->sys.n + 1, sizeof *w->q);
  if (!w->q) {
    chs_mult_free(&w);
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  w->p = w->q + w->sys.n;
  f->mult = w;
  return 0;
}

int chs_mult_eval(CHSFormulation f, sunrealtype t, N_Vector y, sunrealtype *lambda,
                  sunrealtype *reaction, sunrealtype *v, CHSError *err) {
  if (!f || !y || !lambda) {
    return chs_error_set(err, CHS_ERR_ARG, "CHSFormulation_GetMultipliers: NULL argument");
  }
  if (N_VGetLength(y) != f->size) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "CHSFormulation_GetMultipliers: the state has %ld components, formulation "
                         "'%s' has %ld",
                         (long)N_VGetLength(y), f->ops->name, (long)f->size);
  }
  if (CHSProblem_HasKineticScale(f->prob)) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "multipliers of problem '%s': its kinetic energy is scaled by sigma(q), "
                         "and the constraint force is not -G^T Q^-1 r",
                         CHSProblem_GetName(f->prob));
  }
  if (!f->mult) {
    CHS_CALL(chs_mult_create(f, err));
  }
  struct chs_mult_ws *w = f->mult;
  CHSSystem *s = &w->sys;
  sunindextype n = s->n, m = s->m;
  const char *who = f->ops->name;
  /* the time first: the map to (q, p) may depend on it, as the kinematics do */
  if (chs_system_set_time(s, t) != 0 || CHSFormulation_ToPhysical(f, y, w->q, w->p) != 0 ||
      !chs_all_finite(w->q, n) || !chs_all_finite(w->p, n)) {
    return chs_error_set(err, CHS_ERR_NONFINITE,
                         "%s: multipliers: the state is not finite at t = %g", who, (double)t);
  }
  const sunrealtype *lam = NULL;
  int rc = 0;
  s->cb_failed = NULL;
  if (chs_dae_kind(f->ops) > 0) { /* the DAE's own lambda, at 2n (the physical one) */
    lam = N_VGetArrayPointer(y) + chs_dae_lambda_at(n);
    rc = CHS_SYS_CB(s, jacobian, s->data, w->q, s->G);
  } else { /* lambda = Q^{-1} r at (q, p): the standard field's */
    CHSKinematics k;
    rc = chs_system_kinematics(s, w->q, w->p, &k);
    lam = k.lambda;
  }
  if (rc != 0) { /* the callback that failed, an overflowing or a singular Gram matrix */
    char what[160];
    snprintf(what, sizeof what, "%s: multipliers", who);
    return chs_system_gram_fail(s, err, what, t);
  }
  if (v) { /* M(q) factored at q by the kinematics, or here */
    if (chs_system_mass_at(s, w->q) != 0) {
      return chs_error_set(err, CHS_ERR_SOLVER, "%s: M(q) cannot be factored at t = %g", who,
                           (double)t);
    }
    chs_mass_inv(s, w->p, v);
  }
  if (!chs_all_finite(lam, m)) {
    return chs_error_set(err, CHS_ERR_NONFINITE, "%s: the multipliers are not finite at t = %g",
                         who, (double)t);
  }
  memmove(lambda, lam, (size_t)m * sizeof *lambda);
  if (reaction) { /* R = -G^T lambda, the constraint force in p' = F - G^T lambda */
    chs_jac_tmv(s, s->G, lambda, reaction);
    for (sunindextype i = 0; i < n; i++) {
      reaction[i] = 0 - reaction[i]; /* not -x: +0 where no constraint acts, never -0 */
    }
    if (!chs_all_finite(reaction, n)) {
      return chs_error_set(err, CHS_ERR_NONFINITE,
                           "%s: the reaction forces are not finite at t = %g", who, (double)t);
    }
  }
  return 0;
}

int CHSFormulation_GetMultipliers(CHSFormulation f, sunrealtype t, N_Vector y, sunrealtype *lambda,
                                  sunrealtype *reaction, CHSError *err) {
  return chs_mult_eval(f, t, y, lambda, reaction, NULL, err);
}
