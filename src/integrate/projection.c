/* Position and momentum projections (see chs/projection.h for the equations and sources). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "impl.h"

#define CHS_PROJ_NEWTON_MAX 50

struct CHSProjector_ {
  CHSFormulation f;
  CHSSystem sys; /* own workspace and Gram solver: never disturbs the formulation's */
  int kind;
  sunrealtype tol, newton_tol;
  long every, calls;
  int suspended; /* chs_projector_suspend: projections are skipped */
  long n_position, n_momentum, n_newton;
  N_Vector work; /* CVODE adapter: the projected state */
};

int CHSProjector_KindFromName(const char *name) {
  if (!name) {
    return CHS_ERR_NOTFOUND;
  }
  if (strcmp(name, "momentum") == 0) {
    return CHS_PROJECT_MOMENTUM;
  }
  if (strcmp(name, "position") == 0) {
    return CHS_PROJECT_POSITION;
  }
  if (strcmp(name, "both") == 0) {
    return CHS_PROJECT_BOTH;
  }
  return CHS_ERR_NOTFOUND;
}

int CHSProjector_Create(CHSFormulation f, int kind, sunrealtype tol, CHSProjector *out,
                        CHSError *err) {
  *out = NULL;
  if (kind < CHS_PROJECT_MOMENTUM || kind > CHS_PROJECT_BOTH || !(tol >= 0) || !isfinite(tol)) {
    return chs_error_set(err, CHS_ERR_ARG, "projection: bad kind %d or tolerance %g", kind,
                         (double)tol);
  }
  if (f->ops->to_physical || f->size != 2 * f->sys.n) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "formulation '%s' does not support projection (its state is not (q, p))",
                         f->ops->name);
  }
  if (f->projector) {
    return chs_error_set(err, CHS_ERR_ARG, "formulation '%s' already has a projector",
                         f->ops->name);
  }
  CHSProjector pr = calloc(1, sizeof *pr);
  if (!pr) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  int rc = chs_system_init(&pr->sys, f->prob, f->sunctx, chs_gram_kind(f->sys.gram), err);
  if (rc != 0) {
    free(pr);
    return rc;
  }
  pr->f = f;
  pr->kind = kind;
  pr->tol = tol;
  pr->every = 1;
  f->projector = pr;
  *out = pr;
  return CHS_SUCCESS;
}

void CHSProjector_Destroy(CHSProjector *proj) {
  if (!proj || !*proj) {
    return;
  }
  if ((*proj)->f && (*proj)->f->projector == *proj) {
    (*proj)->f->projector = NULL;
  }
  chs_system_free(&(*proj)->sys);
  if ((*proj)->work) {
    N_VDestroy((*proj)->work);
  }
  free(*proj);
  *proj = NULL;
}

int CHSProjector_SetNewtonTol(CHSProjector proj, sunrealtype tol) {
  if (!(tol >= 0)) {
    return CHS_ERR_ARG;
  }
  proj->newton_tol = tol;
  return CHS_SUCCESS;
}

int CHSProjector_SetEvery(CHSProjector proj, long k) {
  if (k < 1) {
    return CHS_ERR_ARG;
  }
  proj->every = k;
  return CHS_SUCCESS;
}

/* Position: simplified Newton with G, M(q) and Q frozen at the unprojected q (the factor of M
 * stays the one chs_system_gram_at made at the start: the loop evaluates g(q, t) only). */
static int chs_project_position(CHSProjector pr, sunrealtype *q) {
  CHSSystem *s = &pr->sys;
  sunindextype n = s->n, m = s->m;
  sunrealtype *g = s->wm[CHS_WM_PSI], *mu = s->wm[CHS_WM_R], *Gtmu = s->wn[CHS_WN_V],
              *dq = s->wn[CHS_WN_F];
  CHS_CALL(chs_system_gram_at(s, q));
  sunrealtype qn = chs_norm2(q, n);
  for (int it = 0; it < CHS_PROJ_NEWTON_MAX; it++) {
    if (s->ops->constraint(s->data, q, g) != 0 || !chs_all_finite(g, m)) {
      return CHS_RECOVERABLE;
    }
    if (chs_norm2(g, m) <= fmax(pr->newton_tol, 8 * SUN_UNIT_ROUNDOFF * fmax(1, qn * qn))) {
      return 0;
    }
    CHS_CALL(chs_gram_solve(s->gram, g, mu));
    chs_jac_tmv(s, s->G, mu, Gtmu);
    chs_mass_inv(s, Gtmu, dq);
    sunrealtype step = 0;
    for (sunindextype i = 0; i < n; i++) {
      q[i] -= dq[i];
      step = fmax(step, fabs(dq[i]));
    }
    pr->n_newton++;
    if (!isfinite(step)) {
      return CHS_RECOVERABLE;
    }
    if (step <= 4 * SUN_UNIT_ROUNDOFF * fmax(1, qn)) {
      return 0;
    }
  }
  return CHS_RECOVERABLE;
}

/* Momentum: p <- p - G^T Q^{-1} (G M^{-1} p + g_t) at (q, t) (M(q), Q and g_t evaluated at q by
 * the caller): the M(q)^{-1}-orthogonal projection onto psi = 0. */
static int chs_project_momentum(CHSProjector pr, const sunrealtype *q, sunrealtype *p) {
  CHSSystem *s = &pr->sys;
  sunrealtype *v = s->wn[CHS_WN_V], *Gtl = s->wn[CHS_WN_F], *psi = s->wm[CHS_WM_PSI],
              *lam = s->wm[CHS_WM_R];
  (void)q;
  chs_mass_inv(s, p, v);
  chs_system_psi(s, v, psi);
  CHS_CALL(chs_gram_solve(s->gram, psi, lam));
  chs_jac_tmv(s, s->G, lam, Gtl);
  for (sunindextype i = 0; i < s->n; i++) {
    p[i] -= Gtl[i];
  }
  return 0;
}

int CHSProjector_Apply(CHSProjector pr, sunrealtype t, N_Vector y) {
  if (!pr->f) {
    return CHS_ERR_ARG; /* its formulation was destroyed */
  }
  if (pr->sys.time_bits) { /* the constraints at t (chs_projector_now: the problem's time) */
    CHS_CALL(chs_system_set_time(&pr->sys, t));
  }
  if (++pr->calls % pr->every != 0) {
    return 0;
  }
  return chs_projector_now(pr, y);
}

long chs_projector_every(CHSProjector pr) {
  return pr->every;
}

void chs_projector_suspend(CHSProjector pr, int on) {
  pr->suspended = on;
}

int chs_projector_now(CHSProjector pr, N_Vector y) {
  if (!pr->f) {
    return CHS_ERR_ARG; /* its formulation was destroyed */
  }
  if (pr->suspended) {
    return 0;
  }
  CHSSystem *s = &pr->sys;
  sunindextype n = s->n, m = s->m;
  sunrealtype *z = N_VGetArrayPointer(y), *q = z, *p = z + n;
  sunrealtype *g = s->wm[CHS_WM_LAMBDA], *psi = s->wm[CHS_WM_TMP], *v = s->wn[CHS_WN_MINV_F],
              *q0 = s->wn[CHS_WN_A];
  if (pr->kind & CHS_PROJECT_POSITION) {
    if (s->ops->constraint(s->data, q, g) != 0) {
      return CHS_RECOVERABLE;
    }
    if (pr->tol == 0 || chs_norm2(g, m) > pr->tol) { /* tolerance 0: every step */
      memcpy(q0, q, (size_t)n * sizeof *q);
      int rc = chs_project_position(pr, q);
      if (rc != 0) {
        memcpy(q, q0, (size_t)n * sizeof *q);
        return rc;
      }
      pr->n_position++;
    }
  }
  if (pr->kind & CHS_PROJECT_MOMENTUM) {
    CHS_CALL(chs_system_gram_at(s, q));
    CHS_CALL(chs_system_time_terms(s, q));
    chs_mass_inv(s, p, v);
    chs_system_psi(s, v, psi);
    if (pr->tol == 0 || chs_norm2(psi, m) > pr->tol) {
      CHS_CALL(chs_project_momentum(pr, q, p));
      pr->n_momentum++;
    }
  }
  return 0;
}

int CHSProjector_ARKPostprocess(sunrealtype t, N_Vector y, void *user_data) {
  CHSFormulation f = user_data;
  if (!f) {
    return CHS_ERR_ARG;
  }
  if (!f->projector) { /* set as a hook but nothing to project with: never a silent no-op */
    return CHSFormulation_SetFailure(f, CHS_ERR_ARG,
                                     "CHSProjector_ARKPostprocess: no projector is attached to "
                                     "formulation '%s' (CHSProjector_Create)",
                                     f->ops->name);
  }
  return CHSProjector_Apply(f->projector, t, y);
}

/* Linearised projection of an error vector (dq, dp) at y: the normal components removed,
 * dq -= M^{-1} G^T Q^{-1} G dq,  dp -= G^T Q^{-1} G M^{-1} dp (first order, G frozen). */
static int chs_project_error(CHSProjector pr, const sunrealtype *y, sunrealtype *e) {
  CHSSystem *s = &pr->sys;
  sunindextype n = s->n;
  sunrealtype *a = s->wm[CHS_WM_PSI], *b = s->wm[CHS_WM_R], *t1 = s->wn[CHS_WN_V],
              *t2 = s->wn[CHS_WN_F];
  CHS_CALL(chs_system_gram_at(s, y));
  chs_jac_mv(s, s->G, e, a);
  CHS_CALL(chs_gram_solve(s->gram, a, b));
  chs_jac_tmv(s, s->G, b, t1);
  chs_mass_inv(s, t1, t2);
  for (sunindextype i = 0; i < n; i++) {
    e[i] -= t2[i];
  }
  chs_mass_inv(s, e + n, t1);
  chs_jac_mv(s, s->G, t1, a);
  CHS_CALL(chs_gram_solve(s->gram, a, b));
  chs_jac_tmv(s, s->G, b, t1);
  for (sunindextype i = 0; i < n; i++) {
    e[n + i] -= t1[i];
  }
  return 0;
}

int CHSProjector_CVodeProject(CHSProjector pr, sunrealtype t, N_Vector ycur, N_Vector corr,
                              N_Vector err) {
  if (!pr || !ycur || !corr) {
    return CHS_ERR_ARG;
  }
  if (!pr->work && !(pr->work = N_VClone(ycur))) {
    return CHS_ERR_MEM;
  }
  N_VScale(1, ycur, pr->work);
  int rc = CHSProjector_Apply(pr, t, pr->work);
  if (rc != 0) {
    return rc > 0 ? CHS_RECOVERABLE : rc;
  }
  N_VLinearSum(1, pr->work, -1, ycur, corr);
  if (err) {
    CHS_CALL(chs_project_error(pr, N_VGetArrayPointer(pr->work), N_VGetArrayPointer(err)));
  }
  return 0;
}

int CHSProjector_CVodeProjFn(sunrealtype t, N_Vector ycur, N_Vector corr, sunrealtype eps_proj,
                             N_Vector err, void *user_data) {
  (void)eps_proj;
  CHSFormulation f = user_data;
  if (!f) {
    return CHS_ERR_ARG;
  }
  if (!f->projector) { /* CVODE would count projections that do nothing */
    return CHSFormulation_SetFailure(f, CHS_ERR_ARG,
                                     "CHSProjector_CVodeProjFn: no projector is attached to "
                                     "formulation '%s' (CHSProjector_Create)",
                                     f->ops->name);
  }
  return CHSProjector_CVodeProject(f->projector, t, ycur, corr, err);
}

CHSProjector CHSFormulation_GetProjector(CHSFormulation f) {
  return f->projector;
}

long CHSProjector_GetNumPosition(CHSProjector proj) {
  return proj->n_position;
}
long CHSProjector_GetNumMomentum(CHSProjector proj) {
  return proj->n_momentum;
}
long CHSProjector_GetNumNewtonIters(CHSProjector proj) {
  return proj->n_newton;
}

void chs_projector_detach(CHSProjector proj) {
  if (proj) {
    proj->f = NULL;
  }
}
