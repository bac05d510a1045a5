/* Impetus-striction formulation ([Seiler, stable] eq. (22)-(30); pendulum (50)).
 *
 * State y = (q, p*) with the impetuses p* = p + G^T lambda* (22): the strictions lambda* make
 * the physical momentum p = p* - G^T lambda* tangent, G M^{-1} p = 0, so
 *
 *   lambda* = Q^{-1} G M^{-1} p*,   p = p* - G^T lambda*,   v = M^{-1} p,
 *   q' = v,   p*' = F + Gdot(q, v)^T lambda*                      (30)
 *
 * (Gdot(q,v)^T lambda* = sum_i lambda*_i hess g_i v: the constraint forces use second
 * derivatives of g). g is a first integral for ANY state: d/dt g = G v = 0. The impetuses
 * themselves drift along the gauge directions G^T ([Seiler, stable] Sec. 8, eq. (51)); the
 * observables (q, p) do not. ToPhysical returns (q, p*- G^T lambda*); FromPhysical sets p* = p.
 *
 * A kinetic energy scaled by sigma(q) (CHSProblemOps.kinetic_scale; the pendulum's modified
 * Hamiltonian (52), sigma = x^2 + y^2): H = sigma T(p) + V with T = 1/2 p^T M^{-1} p. The
 * strictions do not change (sigma cancels in lambda* = (G sigma M^{-1} G^T)^{-1} G sigma M^{-1}
 * p*), and with u = dH/dp = sigma M^{-1} p the equations of H*(q, p*) = H(q, p* - G^T lambda*) are
 *
 *   q' = u,   p*' = F - T(p) grad sigma + Gdot(q, u)^T lambda*,
 *
 * the terms with the derivatives of lambda* vanishing because G u = 0; for the pendulum this is
 * (53).
 *
 * M(q) and g(q, t) (docs/mechanics.md "Impetus-striction"): the strictions make the physical
 * momentum satisfy psi = G M^{-1} p + g_t = 0,
 *
 *   lambda* = Q^{-1} (G M^{-1} p* + g_t),   q' = v,   p*' = F + F_M + (Gdot(q, v) + G_t)^T lambda*,
 *
 * F_M = 1/2 grad_q (v^T M(q) v): the variations of lambda* drop out because psi = 0 for every
 * state, so the physical (q, p) follow the constrained motion and d/dt g = psi = 0 (g a first
 * integral). ToPhysical uses the problem's current time (set_time).
 *
 * Gauge reset ([Seiler, stable] Sec. 8): with impetus:reset=R > 0, whenever |lambda*|_inf > R
 * between steps, p* <- p* - G^T lambda* (the gauge transformation (31): no observable changes) and
 * the integrator restarts; counted by CHSFormulation_GetNumRecharts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../src/impl.h"

/* lambda* into s->wm[CHS_WM_A], v into s->wn[CHS_WN_B] (physical velocity), physical p into
 * s->wn[CHS_WN_A]. */
static int impetus_physical(CHSSystem *s, const sunrealtype *q, const sunrealtype *pstar,
                            sunrealtype **lam, sunrealtype **p, sunrealtype **v) {
  sunindextype n = s->n;
  *lam = s->wm[CHS_WM_A];
  *p = s->wn[CHS_WN_A];
  *v = s->wn[CHS_WN_B];
  sunrealtype *psi = s->wm[CHS_WM_B], *Gtl = s->wn[CHS_WN_C];
  CHS_CALL(chs_system_gram_at(s, q));
  CHS_CALL(chs_system_time_terms(s, q)); /* g(q, t): g_t at the problem's time */
  chs_mass_inv(s, pstar, *v);
  chs_system_psi(s, *v, psi); /* G M^{-1} p* + g_t */
  CHS_CALL(chs_gram_solve(s->gram, psi, *lam));
  chs_jac_tmv(s, s->G, *lam, Gtl);
  for (sunindextype i = 0; i < n; i++) {
    (*p)[i] = pstar[i] - Gtl[i];
  }
  chs_mass_inv(s, *p, *v);
  return 0;
}

/* With a kinetic scale: v <- sigma v and F -= T(p) grad sigma (T = 1/2 p.v before scaling). */
static int impetus_kinetic_scale(CHSSystem *s, const sunrealtype *q, const sunrealtype *p,
                                 sunrealtype *v, sunrealtype *F) {
  sunindextype n = s->n;
  sunrealtype sigma = 1, T = 0, *grad = s->wn[CHS_WN_FIELD];
  if (CHS_SYS_CB(s, kinetic_scale, s->data, q, &sigma, grad) != 0 || !(sigma > 0)) {
    return CHS_RECOVERABLE;
  }
  for (sunindextype i = 0; i < n; i++) {
    T += p[i] * v[i];
  }
  T /= 2;
  for (sunindextype i = 0; i < n; i++) {
    v[i] *= sigma;
    F[i] -= T * grad[i];
  }
  return 0;
}

/* M(q) and g(q, t) (docs/mechanics.md "Impetus-striction"): gl += F_M + G_t^T lambda*, with
 * F_M = 1/2 grad_q (v^T M(q) v) at fixed v. */
static int impetus_general_terms(CHSSystem *s, const sunrealtype *q, const sunrealtype *v,
                                 const sunrealtype *lam, sunrealtype *gl) {
  if (s->mass_kind == CHS_MASS_CONFIG) {
    sunrealtype *fm = s->xn[0];
    if (CHS_SYS_CB(s, mass_grad, s->data, q, v, v, fm) != 0) {
      return CHS_RECOVERABLE;
    }
    for (sunindextype i = 0; i < s->n; i++) {
      gl[i] += fm[i] / 2;
    }
  }
  if (s->Gt) {
    chs_jac_tmv_acc(s, s->Gt, lam, 1, gl);
  }
  return 0;
}

typedef struct {
  sunrealtype reset; /* 0: never */
} impetus_params;

static int impetus_init(CHSFormulation f, CHSParams params, CHSError *err) {
  const CHSSystem *s = &f->sys;
  if (CHSProblem_HasKineticScale(f->prob) && s->general) {
    /* sigma(q) T(p) with M(q) is the kinetic energy of the metric M(q) / sigma(q): declare that
     * mass matrix instead; with g(q, t) the strictions would depend on sigma (G u + g_t = 0 with
     * u = sigma v), a combination no formulation here derives. */
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "impetus: problem '%s' scales the kinetic energy by sigma(q) %s; "
                         "the kinetic-scale variant is derived for a constant mass matrix and "
                         "autonomous constraints only (docs/mechanics.md)",
                         CHSProblem_GetName(f->prob),
                         s->mass_kind == CHS_MASS_CONFIG
                             ? "and has a configuration-dependent mass matrix M(q) (declare the "
                               "mass matrix M(q) / sigma(q) instead)"
                             : "and depends explicitly on time");
  }
  impetus_params *ip = calloc(1, sizeof *ip);
  if (!ip) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  CHSFormulation_SetPrivate(f, ip);
  return CHSParams_GetRealMin(params, "reset", 0, 0, 0, &ip->reset, err);
}

static void impetus_free(CHSFormulation f) {
  free(CHSFormulation_GetPrivate(f));
}

static int impetus_rhs(CHSFormulation f, sunrealtype t, const sunrealtype *y, sunrealtype *ydot) {
  (void)t;
  CHSSystem *s = &f->sys;
  sunindextype n = s->n;
  sunrealtype *lam, *p, *v, *F = s->wn[CHS_WN_F], *gl = s->wn[CHS_WN_MINV_F];
  CHS_CALL(impetus_physical(s, y, y + n, &lam, &p, &v));
  if (chs_system_force(s, y, v, F) != 0) {
    return CHS_RECOVERABLE;
  }
  if (CHSProblem_HasKineticScale(s->prob)) {
    CHS_CALL(impetus_kinetic_scale(s, y, p, v, F));
  }
  if (CHS_SYS_CB(s, jacobian_dot, s->data, y, v, s->Gd) != 0) {
    return CHS_RECOVERABLE;
  }
  chs_jac_tmv(s, s->Gd, lam, gl);
  if (s->general) {
    CHS_CALL(impetus_general_terms(s, y, v, lam, gl));
  }
  for (sunindextype i = 0; i < n; i++) {
    ydot[i] = v[i];
    ydot[n + i] = F[i] + gl[i];
  }
  return 0;
}

static int impetus_to_physical(CHSFormulation f, const sunrealtype *y, sunrealtype *q,
                               sunrealtype *p) {
  CHSSystem *s = &f->sys;
  sunrealtype *lam, *pp, *v;
  CHS_CALL(impetus_physical(s, y, y + s->n, &lam, &pp, &v));
  for (sunindextype i = 0; i < s->n; i++) {
    q[i] = y[i];
    p[i] = pp[i];
  }
  return 0;
}

static int impetus_rechart(CHSFormulation f, sunrealtype t, sunrealtype *y) {
  CHSSystem *s = &f->sys;
  const impetus_params *ip = CHSFormulation_GetPrivate(f);
  if (!(ip->reset > 0)) {
    return 0;
  }
  CHS_CALL(chs_system_set_time(s, t)); /* lambda* contains g_t(q, t) */
  sunrealtype *lam, *p, *v;
  CHS_CALL(impetus_physical(s, y, y + s->n, &lam, &p, &v));
  sunrealtype big = 0;
  for (sunindextype i = 0; i < s->m; i++) {
    big = fmax(big, fabs(lam[i]));
  }
  if (big <= ip->reset) {
    return 0;
  }
  memcpy(y + s->n, p, (size_t)s->n * sizeof *p);
  return 1;
}

const CHSFormulationOps chs_formulation_impetus = {
    .name = "impetus",
    .summary = "impetus-striction formalism, state (q, p*), g a first integral",
    .source = "[Seiler, stable] (22)-(30), (50)",
    .flags = CHS_FORM_ODE | CHS_FORM_KEEPS_G | CHS_FORM_KINETIC_SCALE | CHS_FORM_MASS_CONFIG |
             CHS_FORM_TIME,
    .init = impetus_init,
    .free = impetus_free,
    .rhs = impetus_rhs,
    .to_physical = impetus_to_physical,
    .rechart = impetus_rechart,
};
