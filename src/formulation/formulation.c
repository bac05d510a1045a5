/* Formulation objects: binding to a problem, the SUNDIALS right-hand side, state mapping. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <nvector/nvector_serial.h>
#include "impl.h"

int CHSFormulation_CreateFromOps(const CHSFormulationOps *ops, const char *params, CHSProblem prob,
                                 SUNContext sunctx, CHSFormulation *out, CHSError *err) {
  *out = NULL;
  if (!ops || !(ops->rhs || ops->residual) || !prob || !sunctx) {
    return chs_error_set(err, CHS_ERR_ARG, "CHSFormulation_Create: NULL argument");
  }
  if ((ops->flags & CHS_FORM_NEEDS_HAMILTONIAN) && !CHSProblem_IsConservative(prob)) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "formulation '%s' is built on the Hamiltonian and problem '%s' has a "
                         "non-conservative (velocity-dependent) force: use standard, dirac, fj, "
                         "baumgarte, impetus, ssf or a dae-* formulation",
                         ops->name, CHSProblem_GetName(prob));
  }
  if (!(ops->flags & CHS_FORM_KINETIC_SCALE) && CHSProblem_HasKineticScale(prob)) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "formulation '%s' assumes the kinetic energy 1/2 p^T M^-1 p and problem "
                         "'%s' scales it by a function of q (a modified Hamiltonian): use impetus",
                         ops->name, CHSProblem_GetName(prob));
  }
  const CHSProblemDims *dims = CHSProblem_GetDims(prob);
  if (!(ops->flags & CHS_FORM_MASS_CONFIG) && dims->mass_kind == CHS_MASS_CONFIG) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "formulation '%s' does not support the configuration-dependent mass "
                         "matrix M(q) of problem '%s' (docs/mechanics.md): use standard, dirac, "
                         "baumgarte or a dae-* formulation",
                         ops->name, CHSProblem_GetName(prob));
  }
  if (!(ops->flags & CHS_FORM_TIME) && dims->time_dependent) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "formulation '%s' does not support the explicit time dependence of "
                         "problem '%s' (docs/mechanics.md): use standard, dirac, baumgarte or a "
                         "dae-* formulation",
                         ops->name, CHSProblem_GetName(prob));
  }
  CHSFormulation f = calloc(1, sizeof *f);
  if (!f) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  f->ops = ops;
  f->prob = prob;
  f->sunctx = sunctx;
  /* "gram=dense|band|klu" is read here for every formulation (the Gram solver belongs to the
   * system the formulation is built on); the formulation's init reads the rest. */
  CHSParams kv = NULL;
  int gram = CHS_GRAM_AUTO;
  int rc = CHSParams_Parse(params, &kv, err);
  if (rc == 0) {
    rc = CHSParams_GetChoice(kv, "gram", chs_gram_kind_names, CHS_GRAM_AUTO, &gram, err);
  }
  if (rc == 0) {
    rc = chs_system_init(&f->sys, prob, sunctx, gram, err);
  }
  if (rc != 0) {
    CHSParams_Destroy(&kv);
    free(f);
    return rc;
  }
  f->size = ops->state_size ? ops->state_size(f->sys.n, f->sys.m) : 2 * f->sys.n;
  if (rc == 0 && ops->init) {
    rc = ops->init(f, kv, err);
  }
  if (rc == 0) {
    rc = CHSParams_CheckAllUsed(kv, ops->name, err);
  }
  CHSParams_Destroy(&kv);
  if (rc != 0) {
    CHSFormulation_Destroy(&f);
    return rc;
  }
  *out = f;
  return CHS_SUCCESS;
}

int CHSFormulation_Create(const char *spec, CHSProblem prob, SUNContext sunctx, CHSFormulation *out,
                          CHSError *err) {
  char name[64];
  const char *params = NULL;
  *out = NULL;
  CHS_CALL(CHSSpec_Split(spec, name, sizeof name, &params, err));
  const CHSFormulationOps *ops = CHSFormulationRegistry_Find(name);
  if (!ops) {
    return chs_error_set(err, CHS_ERR_NOTFOUND,
                         "unknown formulation '%s' (see `chs list formulations`)", name);
  }
  return CHSFormulation_CreateFromOps(ops, params, prob, sunctx, out, err);
}

void CHSFormulation_Destroy(CHSFormulation *f) {
  if (!f || !*f) {
    return;
  }
  chs_projector_detach((*f)->projector);
  chs_jac_work_free(&(*f)->jac);
  chs_precond_free(&(*f)->prec);
  chs_mult_free(&(*f)->mult);
  if ((*f)->ops->free) {
    (*f)->ops->free(*f);
  }
  chs_system_free(&(*f)->sys);
  free(*f);
  *f = NULL;
}

/* The failure message of an evaluation (what: "right-hand side", "residual") that returned rc
 * without a more specific one: the problem callback that failed, when one did (its error is the
 * cause, whatever the formulation made of it); an overflowing Gram matrix; else a singular Gram
 * matrix or a state outside the problem's domain (rc > 0). */
static void chs_evaluation_failed(CHSFormulation f, int rc, const char *what, sunrealtype t) {
  const CHSSystem *s = &f->sys;
  if (s->cb_failed) {
    CHSFormulation_SetFailure(f, s->cb_rc < 0 ? CHS_ERR_CALLBACK : rc,
                              "%s: %s failed at t = %g: problem '%s' callback %s returned %d (%s)",
                              f->ops->name, what, (double)t, s->ops->name, s->cb_failed, s->cb_rc,
                              s->cb_rc < 0 ? "a fatal error" : "the state is outside its domain");
  } else if (s->gram && s->gram->nonfinite) {
    CHSFormulation_SetFailure(f, rc,
                              "%s: %s failed at t = %g: the Gram matrix G M^-1 G^T is not finite "
                              "(its entries overflow, or G is not finite)",
                              f->ops->name, what, (double)t);
  } else {
    CHSFormulation_SetFailure(f, rc, "%s: %s failed at t = %g (%s)", f->ops->name, what, (double)t,
                              rc > 0 ? "singular Gram matrix G M^-1 G^T or state outside the "
                                       "problem's domain"
                                     : "error without a message");
  }
}

int CHSFormulation_Rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user_data) {
  CHSFormulation f = (CHSFormulation)user_data;
  if (!f->ops->rhs) {
    return CHSFormulation_SetFailure(f, CHS_ERR_UNSUPPORTED,
                                     "%s is a DAE: it has no right-hand side (use method ida)",
                                     f->ops->name);
  }
  const sunrealtype *ya = N_VGetArrayPointer(y);
  sunrealtype *yd = N_VGetArrayPointer(ydot);
  f->n_rhs++;
  CHSError_Clear(&f->failure); /* the failure reported is the last evaluation's */
  f->sys.cb_failed = NULL;
  if (f->sys.gram) {
    f->sys.gram->nonfinite = 0;
  }
  if (!chs_all_finite(ya, f->size)) {
    return CHSFormulation_SetFailure(f, CHS_RECOVERABLE, "%s: non-finite state at t = %g",
                                     f->ops->name, (double)t);
  }
  int rc = f->sys.time_bits ? chs_system_set_time(&f->sys, t) : 0;
  if (rc == 0) {
    rc = f->ops->rhs(f, t, ya, yd);
  }
  if (rc == 0 && !chs_all_finite(yd, f->size)) {
    rc = CHSFormulation_SetFailure(f, CHS_RECOVERABLE, "%s: non-finite right-hand side at t = %g",
                                   f->ops->name, (double)t);
  }
  if (rc != 0 && (f->failure.code == CHS_SUCCESS || f->sys.cb_failed)) {
    chs_evaluation_failed(f, rc, "right-hand side", t);
  }
  return rc > 0 ? CHS_RECOVERABLE : rc;
}

int CHSFormulation_Residual(sunrealtype t, N_Vector y, N_Vector yp, N_Vector res, void *user_data) {
  CHSFormulation f = (CHSFormulation)user_data;
  if (!f->ops->residual) {
    int rc = CHSFormulation_Rhs(t, y, res, user_data); /* res = f(t, y) */
    if (rc == 0) {
      N_VLinearSum(1, yp, -1, res, res);
    }
    return rc;
  }
  const sunrealtype *ya = N_VGetArrayPointer(y), *ypa = N_VGetArrayPointer(yp);
  sunrealtype *r = N_VGetArrayPointer(res);
  f->n_rhs++;
  CHSError_Clear(&f->failure);
  f->sys.cb_failed = NULL;
  if (f->sys.gram) {
    f->sys.gram->nonfinite = 0;
  }
  if (!chs_all_finite(ya, f->size) || !chs_all_finite(ypa, f->size)) {
    return CHSFormulation_SetFailure(f, CHS_RECOVERABLE, "%s: non-finite state at t = %g",
                                     f->ops->name, (double)t);
  }
  int rc = f->sys.time_bits ? chs_system_set_time(&f->sys, t) : 0;
  if (rc == 0) {
    rc = f->ops->residual(f, t, ya, ypa, r);
  }
  if (rc == 0 && !chs_all_finite(r, f->size)) {
    rc = CHS_RECOVERABLE;
  }
  if (rc != 0 && (f->failure.code == CHS_SUCCESS || f->sys.cb_failed)) {
    chs_evaluation_failed(f, rc, "residual", t);
  }
  return rc > 0 ? CHS_RECOVERABLE : rc;
}

int CHSFormulation_InitialDerivative(CHSFormulation f, N_Vector y, N_Vector yp) {
  if (f->ops->initial_derivative) {
    /* at the problem's current time (set at creation, by the last evaluation or the caller) */
    return f->ops->initial_derivative(f, N_VGetArrayPointer(y), N_VGetArrayPointer(yp));
  }
  return CHSFormulation_Rhs(0, y, yp, f);
}

void CHSFormulation_ComponentIds(CHSFormulation f, N_Vector id) {
  N_VConst(1, id);
  if (f->ops->component_ids) {
    f->ops->component_ids(f, N_VGetArrayPointer(id));
  }
}

int CHSFormulation_SetFailure(CHSFormulation f, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  chs_error_vset(&f->failure, code, fmt, ap);
  va_end(ap);
  return code;
}

const CHSError *CHSFormulation_GetLastFailure(CHSFormulation f) {
  return &f->failure;
}

sunindextype CHSFormulation_GetStateSize(CHSFormulation f) {
  return f->size;
}

int CHSFormulation_ToPhysical(CHSFormulation f, N_Vector y, sunrealtype *q, sunrealtype *p) {
  const sunrealtype *ya = N_VGetArrayPointer(y);
  if (f->ops->to_physical) {
    return f->ops->to_physical(f, ya, q, p);
  }
  memcpy(q, ya, (size_t)f->sys.n * sizeof *q);
  memcpy(p, ya + f->sys.n, (size_t)f->sys.n * sizeof *p);
  return CHS_SUCCESS;
}

int CHSFormulation_FromPhysical(CHSFormulation f, const sunrealtype *q, const sunrealtype *p,
                                N_Vector y) {
  sunrealtype *ya = N_VGetArrayPointer(y);
  if (f->ops->from_physical) {
    return f->ops->from_physical(f, q, p, ya);
  }
  memcpy(ya, q, (size_t)f->sys.n * sizeof *q);
  memcpy(ya + f->sys.n, p, (size_t)f->sys.n * sizeof *p);
  return CHS_SUCCESS;
}

int CHSFormulation_NewInitialState(CHSFormulation f, N_Vector *y0, CHSError *err) {
  *y0 = N_VNew_Serial(f->size, f->sunctx);
  chs_nvector_fast_ops(*y0);
  sunrealtype *q = malloc(2 * (size_t)f->sys.n * sizeof *q);
  if (!*y0 || !q) {
    free(q);
    if (*y0) {
      N_VDestroy(*y0);
      *y0 = NULL;
    }
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  sunrealtype *p = q + f->sys.n;
  int rc = chs_problem_initial_state(f->prob, q, p);
  if (rc == 0) {
    rc = CHSFormulation_FromPhysical(f, q, p, *y0);
  }
  free(q);
  if (rc != 0) {
    N_VDestroy(*y0);
    *y0 = NULL;
    return chs_error_set(err, CHS_ERR_CALLBACK, "%s: cannot set up the initial state",
                         f->ops->name);
  }
  return CHS_SUCCESS;
}

const CHSFormulationOps *CHSFormulation_GetOps(CHSFormulation f) {
  return f->ops;
}
CHSProblem CHSFormulation_GetProblem(CHSFormulation f) {
  return f->prob;
}
SUNContext CHSFormulation_GetContext(CHSFormulation f) {
  return f->sunctx;
}
long CHSFormulation_GetNumRhsEvals(CHSFormulation f) {
  return f->n_rhs;
}
long CHSFormulation_GetNumGramFactorizations(CHSFormulation f) {
  return f->sys.n_gram_factor;
}
void CHSFormulation_ResetCounters(CHSFormulation f) {
  f->n_rhs = 0;
  f->sys.n_gram_factor = 0;
  CHSError_Clear(&f->failure);
}
void *CHSFormulation_GetPrivate(CHSFormulation f) {
  return f->priv;
}
void CHSFormulation_SetPrivate(CHSFormulation f, void *priv) {
  f->priv = priv;
}

long CHSFormulation_GetNumRecharts(CHSFormulation f) {
  return f->n_recharts;
}

int CHSFormulation_Rechart(CHSFormulation f, sunrealtype t, N_Vector y) {
  if (!f->ops->rechart) {
    return 0;
  }
  int rc = f->ops->rechart(f, t, N_VGetArrayPointer(y));
  if (rc > 0) {
    f->n_recharts++;
  }
  return rc;
}
