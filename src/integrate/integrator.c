/* Integrator objects: "family:options" dispatched to one ops table per family. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "impl.h"
#include "setup.h"

#define CHS_INTEGRATOR(sym) extern const CHSIntegratorOps sym;
#include "list.h"
#undef CHS_INTEGRATOR

static const CHSIntegratorOps *const chs_integrators[] = {
#define CHS_INTEGRATOR(sym) &sym,
#include "list.h"
#undef CHS_INTEGRATOR
};

CHS_DEFINE_REGISTRY(CHSIntegratorOps, CHSIntegratorRegistry, chs_integrators, family)

struct CHSIntegrator_ {
  const CHSIntegratorOps *ops;
  void *mem;
  CHSProblem prob; /* of the formulation integrated */
};

int CHSIntegrator_Create(const char *method, CHSFormulation f, N_Vector y0, sunrealtype t0,
                         const CHSStepControl *ctl, CHSIntegrator *out, CHSError *err) {
  char family[64];
  const char *options = NULL;
  *out = NULL;
  CHS_CALL(CHSSpec_Split(method, family, sizeof family, &options, err));
  const CHSIntegratorOps *ops = CHSIntegratorRegistry_Find(family);
  if (!ops) {
    return chs_error_set(err, CHS_ERR_NOTFOUND, "unknown method '%s' (see `chs list methods`)",
                         method);
  }
  if (!(ctl->h > 0) && !(ctl->rtol > 0 && ctl->atol > 0)) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "method %s: need a step size h > 0 or tolerances rtol, atol > 0", method);
  }
  if ((CHSFormulation_GetOps(f)->flags & CHS_FORM_DAE) && !ops->accepts_dae) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "formulation '%s' is a DAE: integrate it with method ida, not %s",
                         CHSFormulation_GetOps(f)->name, method);
  }
  CHSProblem prob = CHSFormulation_GetProblem(f);
  if (ops->needs_hamiltonian && !CHSProblem_IsConservative(prob)) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "method '%s' is built on the Hamiltonian and problem '%s' has a "
                         "non-conservative (velocity-dependent) force: use erk, dirk, gauss, cvode "
                         "or ida",
                         method, CHSProblem_GetName(prob));
  }
  const CHSProblemDims *dims = CHSProblem_GetDims(prob);
  if (ops->needs_constant_mass && (dims->mass_kind == CHS_MASS_CONFIG || dims->time_dependent)) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "method '%s' needs a separable H (constant mass matrix) and an "
                         "autonomous problem; "
                         "problem '%s' has %s (docs/mechanics.md): use rattle, lobatto, erk, dirk, "
                         "gauss, cvode or ida",
                         method, CHSProblem_GetName(prob),
                         dims->mass_kind == CHS_MASS_CONFIG
                             ? "a configuration-dependent mass matrix M(q)"
                             : "explicit time dependence");
  }
  CHSIntegrator it = calloc(1, sizeof *it);
  if (!it) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  it->ops = ops;
  it->prob = prob;
  int rc = ops->create(options, f, y0, t0, ctl, &it->mem, err);
  if (rc != 0) {
    free(it);
    return rc;
  }
  *out = it;
  return CHS_SUCCESS;
}

int CHSIntegrator_Evolve(CHSIntegrator it, sunrealtype tout, N_Vector y, sunrealtype *tret,
                         CHSError *err) {
  return it->ops->evolve(it->mem, tout, y, tret, 0, err);
}

int CHSIntegrator_OneStep(CHSIntegrator it, sunrealtype tstop, N_Vector y, sunrealtype *tret,
                          CHSError *err) {
  return it->ops->evolve(it->mem, tstop, y, tret, 1, err);
}

int CHSIntegrator_GetStats(CHSIntegrator it, CHSIntegratorStats *stats) {
  return it->ops->get_stats(it->mem, stats);
}

int CHSIntegrator_Reinit(CHSIntegrator it, sunrealtype t, N_Vector y) {
  return it->ops->reinit ? it->ops->reinit(it->mem, t, y) : CHS_ERR_UNSUPPORTED;
}

void *CHSIntegrator_GetSundialsMem(CHSIntegrator it) {
  return it->ops->sundials_mem ? it->ops->sundials_mem(it->mem) : NULL;
}

int CHSIntegrator_TangentStep(CHSIntegrator it, sunrealtype h, int k, sunrealtype *dz, N_Vector y,
                              CHSError *err) {
  if (!it->ops->tangent_step) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED, "method family %s has no tangent map",
                         it->ops->family);
  }
  /* every tangent map differentiates the force: exact only with hess V (or V declared linear) */
  CHS_CALL(chs_require_derivatives(it->prob, CHS_NEED_HESSIAN, "the exact tangent map", err));
  return it->ops->tangent_step(it->mem, h, k, dz, y, err);
}

void CHSIntegrator_Destroy(CHSIntegrator *it) {
  if (it && *it) {
    (*it)->ops->destroy((*it)->mem);
    free(*it);
    *it = NULL;
  }
}

int CHSIntegrator_EventRootFn(sunrealtype t, N_Vector y, sunrealtype *e, void *user_data) {
  CHSFormulation f = user_data;
  const CHSProblemOps *ops = f->prob->ops;
  size_t n = (size_t)f->sys.n;
  if (!ops->events) {
    return CHS_ERR_UNSUPPORTED;
  }
  /* the physical state of any formulation: scratch of its own (root functions run between the
   * integrator's steps and may not disturb the formulation's) */
  sunrealtype *q = malloc(2 * n * sizeof *q);
  if (!q) {
    return CHS_ERR_MEM;
  }
  int rc = CHSFormulation_ToPhysical(f, y, q, q + n);
  if (rc == 0) {
    rc = ops->events(f->prob->data, t, q, q + n, e);
  }
  free(q);
  return rc == 0 ? 0 : -1;
}

int CHSIntegrator_EventResRootFn(sunrealtype t, N_Vector y, N_Vector yp, sunrealtype *e,
                                 void *user_data) {
  (void)yp;
  return CHSIntegrator_EventRootFn(t, y, e, user_data);
}

int CHSIntegrator_RootInit(CHSIntegrator it, int nev, CHSError *err) {
  if (!it->ops->root_init) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "method family %s has no root finding: it cannot locate events with "
                         "adaptive steps (give a fixed step --h)",
                         it->ops->family);
  }
  return it->ops->root_init(it->mem, nev, err);
}

int CHSIntegrator_RootInfo(CHSIntegrator it, int *dirs) {
  return it->ops->root_info ? it->ops->root_info(it->mem, dirs) : CHS_ERR_UNSUPPORTED;
}

int CHSIntegrator_HasRootFinding(CHSIntegrator it) {
  return it->ops->root_init != NULL && it->ops->root_info != NULL;
}

/* A stop time of IDA (or CVODE) clips the step that would pass it: a step h chosen by the error
 * test, then a cut step tout - t - h. BDF's Newton matrix holds the step (IDA's cj = alpha / h),
 * and a cut to less than `window` times h (IDA: cj outside [0.6, 1.67] times the cj of the last
 * set-up) costs a new Jacobian and factorisation for the last step alone. When the remainder holds
 * more than h but less than (1 + window) h, it is split into two equal steps instead: as many
 * steps, each no larger than h (no larger than the error test allows), and the set-up saved
 * whenever the halves stay within the window. Used by IDA (src/integrate/ida.c); CVODE keeps its
 * Jacobian through such a cut and only refactors. Returns the stop time for the next step: tout
 * or the midpoint. */
sunrealtype chs_split_stop(sunrealtype t, sunrealtype h, sunrealtype tout, sunrealtype window) {
  sunrealtype r = fabs(tout - t), a = fabs(h);
  /* a step already cut to reach tout (h = r (1 - 4 u), SUNDIALS' cut) is one step */
  return a > 0 && r > a * (1 + 64 * DBL_EPSILON) && r < (1 + window) * a ? t + (tout - t) / 2
                                                                         : tout;
}

void chs_arkode_capture_error(int code, const char *module, const char *function, char *msg,
                              void *data) {
  (void)code;
  (void)module;
  (void)function;
  snprintf((char *)data, CHS_ARKODE_MSG_LEN, "%s", msg);
}

int chs_arkode_failure(CHSError *err, const char *who, char *flag_name, sunrealtype t,
                       CHSFormulation f, const char *arkode_msg) {
  const CHSError *why = CHSFormulation_GetLastFailure(f);
  const char *detail = why->msg[0] ? why->msg : arkode_msg;
  if (!isfinite(t) || strstr(detail, "= nan") || strstr(detail, "= -nan") ||
      strstr(detail, "= inf") || strstr(detail, "= -inf")) {
    /* never a non-finite time in a message: the step size broke down (a non-finite right-hand
     * side or step size estimate); the last good time is the caller's last output */
    chs_error_set(err, CHS_ERR_SOLVER,
                  "%s failed with %s: the step size or the state became non-finite (a "
                  "right-hand side overflowing?)",
                  who, flag_name ? flag_name : "an error");
  } else {
    chs_error_set(err, CHS_ERR_SOLVER, "%s failed at t = %.17g with %s%s%.400s", who, (double)t,
                  flag_name ? flag_name : "an error", detail[0] ? ": " : "", detail);
  }
  free(flag_name);
  return CHS_ERR_SOLVER;
}

int chs_setup_error(const chs_setup *s, const char *solver, const char *method, CHSError *err) {
  if (s->flag == 0) {
    return CHS_SUCCESS;
  }
  if (s->null) {
    return chs_error_set(err, CHS_ERR_MEM,
                         "%s set-up failed for %s: %s returned NULL (out of memory)", solver,
                         method, s->call);
  }
  return chs_error_set(err, CHS_ERR_SOLVER, "%s set-up failed for %s: %s returned %d", solver,
                       method, s->call ? s->call : "a call", s->flag);
}
