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
  int gram_final; /* the workspace's G and Q factor are at the state chs_projector_now left */
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

/* The position Newton iteration's stop after its correction `it` of max-norm step (last: the
 * previous correction's): converged when the correction is at round-off (qtol) or, without a
 * newton_tol (which stops at |g|, so it needs the g of the new q), when the contraction of the
 * last two, rho = step / last, bounds what is left, rho / (1 - rho) step, below it; failed for a
 * non-finite correction. */
enum { CHS_NEWTON_GO_ON, CHS_NEWTON_CONVERGED, CHS_NEWTON_FAILED };
static int chs_newton_stop(const struct CHSProjector_ *pr, int it, sunrealtype step,
                           sunrealtype last, sunrealtype qtol) {
  if (!isfinite(step)) {
    return CHS_NEWTON_FAILED;
  }
  if (step <= qtol) {
    return CHS_NEWTON_CONVERGED;
  }
  if (it > 0 && pr->newton_tol == 0 && step < last) {
    sunrealtype rho = step / last;
    if (rho / (1 - rho) * step <= qtol) {
      return CHS_NEWTON_CONVERGED;
    }
  }
  return CHS_NEWTON_GO_ON;
}

/* Position: simplified Newton with G, M(q) and Q frozen at the unprojected q (the factor of M
 * stays the one chs_system_gram_at made at the start: the loop evaluates g(q, t) only). g holds
 * g(q) on entry. The iteration stops when |g| is at round-off, when the correction is, or when the
 * contraction of the last two corrections (rho = |dq_k| / |dq_{k-1}|) bounds what is left,
 * rho / (1 - rho) |dq_k|, below round-off: after the full Newton step the frozen iteration
 * contracts like |g|, so the second correction usually ends it without a third g. */
static int chs_project_position(CHSProjector pr, sunrealtype *q, sunrealtype *g) {
  CHSSystem *s = &pr->sys;
  sunindextype n = s->n, m = s->m;
  sunrealtype *mu = s->wm[CHS_WM_R], *Gtmu = s->wn[CHS_WN_V], *dq = s->wn[CHS_WN_F];
  CHS_CALL(chs_system_gram_at(s, q));
  sunrealtype qn = chs_norm2(q, n), last = 0;
  sunrealtype gtol = fmax(pr->newton_tol, 8 * SUN_UNIT_ROUNDOFF * fmax(1, qn * qn));
  sunrealtype qtol = 4 * SUN_UNIT_ROUNDOFF * fmax(1, qn);
  for (int it = 0; it < CHS_PROJ_NEWTON_MAX; it++) {
    if ((it > 0 && s->ops->constraint(s->data, q, g) != 0) || !chs_all_finite(g, m)) {
      return CHS_RECOVERABLE;
    }
    if (chs_norm2(g, m) <= gtol) {
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
    int stop = chs_newton_stop(pr, it, step, last, qtol);
    if (stop != CHS_NEWTON_GO_ON) {
      return stop == CHS_NEWTON_CONVERGED ? 0 : CHS_RECOVERABLE;
    }
    last = step;
  }
  return CHS_RECOVERABLE;
}

/* Momentum: p <- p - G^T Q^{-1} (G M^{-1} p + g_t) at (q, t) (M(q), Q and g_t evaluated at q by
 * the caller, and psi = G M^{-1} p + g_t): the M(q)^{-1}-orthogonal projection onto psi = 0. */
static int chs_project_momentum(CHSProjector pr, const sunrealtype *psi, sunrealtype *p) {
  CHSSystem *s = &pr->sys;
  sunrealtype *Gtl = s->wn[CHS_WN_F], *lam = s->wm[CHS_WM_R];
  CHS_CALL(chs_gram_solve(s->gram, psi, lam));
  chs_jac_tmv(s, s->G, lam, Gtl);
  for (sunindextype i = 0; i < s->n; i++) {
    p[i] -= Gtl[i];
  }
  return 0;
}

static int chs_projector_now_z(CHSProjector pr, sunrealtype *z);

/* CHSProjector_Apply on the state's values z = (q, p). */
static int chs_projector_apply_z(CHSProjector pr, sunrealtype t, sunrealtype *z) {
  if (!pr->f) {
    return CHS_ERR_ARG; /* its formulation was destroyed */
  }
  if (pr->sys.time_bits) { /* the constraints at t (chs_projector_now: the problem's time) */
    CHS_CALL(chs_system_set_time(&pr->sys, t));
  }
  if (++pr->calls % pr->every != 0) {
    return 0;
  }
  return chs_projector_now_z(pr, z);
}

int CHSProjector_Apply(CHSProjector pr, sunrealtype t, N_Vector y) {
  return chs_projector_apply_z(pr, t, N_VGetArrayPointer(y));
}

long chs_projector_every(CHSProjector pr) {
  return pr->every;
}

void chs_projector_suspend(CHSProjector pr, int on) {
  pr->suspended = on;
}

int chs_projector_now(CHSProjector pr, N_Vector y) {
  return chs_projector_now_z(pr, N_VGetArrayPointer(y));
}

static int chs_projector_now_z(CHSProjector pr, sunrealtype *z) {
  if (!pr->f) {
    return CHS_ERR_ARG; /* its formulation was destroyed */
  }
  pr->gram_final = 0;
  if (pr->suspended) {
    return 0;
  }
  CHSSystem *s = &pr->sys;
  sunindextype n = s->n, m = s->m;
  sunrealtype *q = z, *p = z + n;
  sunrealtype *g = s->wm[CHS_WM_LAMBDA], *psi = s->wm[CHS_WM_TMP], *v = s->wn[CHS_WN_MINV_F],
              *q0 = s->wn[CHS_WN_A];
  if (pr->kind & CHS_PROJECT_POSITION) {
    if (s->ops->constraint(s->data, q, g) != 0) {
      return CHS_RECOVERABLE;
    }
    if (pr->tol == 0 || chs_norm2(g, m) > pr->tol) { /* tolerance 0: every step */
      memcpy(q0, q, (size_t)n * sizeof *q);
      int rc = chs_project_position(pr, q, g);
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
    pr->gram_final = 1; /* G, M(q) and Q's factor are those of the projected q */
    chs_mass_inv(s, p, v);
    chs_system_psi(s, v, psi);
    if (pr->tol == 0 || chs_norm2(psi, m) > pr->tol) {
      CHS_CALL(chs_project_momentum(pr, psi, p));
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
  if (!pr->gram_final) { /* the momentum projection factored Q at this y already */
    CHS_CALL(chs_system_gram_at(s, y));
  }
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
  /* projected in corr, then corr = P(ycur) - ycur: the state is (q, p), 2 n local values, as
   * chs_projector_now reads it */
  sunindextype N = 2 * pr->sys.n;
  const sunrealtype *y = N_VGetArrayPointer(ycur);
  sunrealtype *c = N_VGetArrayPointer(corr);
  memcpy(c, y, (size_t)N * sizeof *c);
  pr->gram_final = 0;
  int rc = chs_projector_apply_z(pr, t, c);
  if (rc != 0) {
    return rc > 0 ? CHS_RECOVERABLE : rc;
  }
  if (err) {
    CHS_CALL(chs_project_error(pr, c, N_VGetArrayPointer(err)));
  }
  for (sunindextype i = 0; i < N; i++) {
    c[i] -= y[i];
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
