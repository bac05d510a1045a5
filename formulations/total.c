/* Total Hamiltonian H_T = H + lambda(q,p)^T g(q), lambda = Q^{-1} (Gdot(q,v) v + G M^{-1} F).
 *
 * [Seiler, stable] eq. (17) (pendulum (43)); Leimkuhler-Reich's simplified system with eta = 0
 * ([Leimkuhler & Reich] (3.9)-(3.10)). Hamilton's equations of H_T:
 *
 *   q' = v + grad_p (g^T lambda)|_g,     p' = F - G^T lambda - grad_q (g^T lambda)|_g,
 *
 * the gradients taken with g held fixed (its own variation gives the G^T lambda term). With
 * mu = Q^{-1} g (Q symmetric), g^T lambda = mu^T r and, by the adjoint rule d(Q^{-1}) =
 * -Q^{-1} dQ Q^{-1}:
 *
 *   grad_p = 2 M^{-1} Gdot(q,v)^T mu                      (r is quadratic in v),
 *   grad_q = D3(v, mu) + Gdot(q,a)^T mu - Hess V c - Gdot(q,b)^T mu - Gdot(q,c)^T lambda,
 *
 * with a = M^{-1} F, b = M^{-1} G^T lambda, c = M^{-1} G^T mu, D3(u, w) = grad_q (w^T Gdot(q,u) u)
 * (the problem's constraint_third; zero when g is declared quadratic) and Hess V c the problem's
 * hessian_potential (zero when V is declared linear; without the callback or the declaration
 * both formulations refuse the problem at creation, chs_total_init). Gdot(q,u)^T w = sum_i w_i hess
 * g_i u (DESIGN notation). One more solve with the factored Q and two more Gdot evaluations than
 * the standard ODE (Gdot is linear in its direction, so the a and b terms share one). On the
 * manifold (g = 0) the field equals the standard one; off it the manifold is a saddle ([Leimkuhler
 * & Reich] Sec. 3.5-3.6): the constraint residuals grow exponentially. */
#include <stdlib.h>
#include <string.h>
#include "../src/impl.h"

int chs_total_init(CHSFormulation f, CHSParams params, CHSError *err) {
  (void)params;
  CHSSystem *s = &f->sys;
  /* the multiplier gradient needs hess V and the third derivatives of g (zero only if declared) */
  CHS_CALL(chs_require_derivatives(f->prob, CHS_NEED_HESSIAN | CHS_NEED_THIRD, f->ops->name, err));
  if (s->time_bits) {
    /* the gradient of lambda^T g with g(q, t) needs grad_q g_tt and d/dq (G_t v) (docs/mechanics.md
     * "Total and extended Hamiltonians") */
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "formulation '%s' does not support the explicit time dependence of "
                         "problem '%s': the gradient of its multiplier term lambda(q, p, t)^T g "
                         "needs grad_q g_tt and d/dq (G_t v), which the problem interface does not "
                         "provide (docs/mechanics.md); use dirac, fj, impetus, ssf, standard, "
                         "baumgarte or a dae-* formulation",
                         f->ops->name, CHSProblem_GetName(f->prob));
  }
  size_t extra = s->mass_kind == CHS_MASS_CONFIG ? CHS_TOTAL_GENERAL_N : 0;
  chs_total_ws *w = calloc(1, sizeof *w);
  if (w) {
    w->Gd2 = calloc((size_t)s->gsize, sizeof(sunrealtype));
    w->a = calloc((7 + extra) * (size_t)s->n, sizeof(sunrealtype));
  }
  if (!w || !w->Gd2 || !w->a) {
    if (w) {
      free(w->Gd2);
      free(w);
    }
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  w->b = w->a + s->n;
  w->c = w->b + s->n;
  w->acc = w->c + s->n;
  w->Gtw = w->acc + s->n;
  w->gvw = w->Gtw + s->n;
  w->e = w->gvw + s->n;
  w->x = extra ? w->e + s->n : NULL;
  CHSFormulation_SetPrivate(f, w);
  return CHS_SUCCESS;
}

void chs_total_free(CHSFormulation f) {
  chs_total_ws *w = CHSFormulation_GetPrivate(f);
  if (w) {
    free(w->Gd2);
    free(w->a);
    free(w);
  }
}

/* acc += sign * Gdot(q, u)^T w, evaluating Gdot at the new direction u. */
static int total_add_gdot_t(CHSSystem *s, chs_total_ws *ws, const sunrealtype *q,
                            const sunrealtype *u, const sunrealtype *w, sunrealtype sign,
                            sunrealtype *acc) {
  if (CHS_SYS_CB(s, jacobian_dot, s->data, q, u, ws->Gd2) != 0) {
    return CHS_RECOVERABLE;
  }
  chs_jac_tmv_acc(s, ws->Gd2, w, sign, acc);
  return 0;
}

/* h = M'(q; c) v - M'(q; v) c - mg(c, v) (t1, t2: scratch). */
static int total_h(CHSSystem *s, const sunrealtype *q, const sunrealtype *c, const sunrealtype *v,
                   sunrealtype *t1, sunrealtype *t2, sunrealtype *h) {
  if (CHS_SYS_CB(s, mass_dir, s->data, q, c, v, h) != 0 ||
      CHS_SYS_CB(s, mass_dir, s->data, q, v, c, t1) != 0 ||
      CHS_SYS_CB(s, mass_grad, s->data, q, c, v, t2) != 0) {
    return CHS_RECOVERABLE;
  }
  for (sunindextype i = 0; i < s->n; i++) {
    h[i] -= t1[i] + t2[i];
  }
  return 0;
}

/* M(q) (docs/mechanics.md "Total and extended Hamiltonians"). With a = M^{-1} (F + F_M - M'(q; v)
 * v) the free acceleration, b = M^{-1} G^T lambda, c = M^{-1} G^T mu, d = M^{-1} Gdot(q,v)^T mu and
 * mg(x, y) = grad_q (x^T M(q) y), D_u mg(x, y) = d/de mg at q + e u:
 *
 *   h      = M'(q; c) v - M'(q; v) c - mg(c, v),
 *   grad_p = 2 d + M^{-1} h,
 *   grad_q = D3(v, mu) - Hess V c + Gdot(q, a - b)^T mu - Gdot(q, c)^T lambda
 *            + mg(c, b - a) - mg(grad_p, v) + 1/2 D_c mg(v, v) - D_v mg(c, v),
 *   q' = v + grad_p,   p' = F + F_M - G^T lambda - grad_q;
 *
 * extended adds, with w = Q^{-1} psi and e = M^{-1} G^T w,
 *
 *   q' -= 2 e,   p' += 2 Gdot(q,v)^T w - 2 Gdot(q,e)^T w + mg(e, e - 2 v).
 *
 * The terms with second derivatives of M (D_c, D_v: differences, chs_mass_grad_dir) are linear in
 * mu = Q^{-1} g: zero on the constraint manifold. */
static int total_field_general(CHSFormulation f, const sunrealtype *y, sunrealtype *ydot,
                               int extended) {
  CHSSystem *s = &f->sys;
  chs_total_ws *ws = CHSFormulation_GetPrivate(f);
  sunindextype n = s->n;
  const sunrealtype *q = y;
  CHSKinematics k;
  CHS_CALL(chs_system_kinematics(s, q, y + n, &k));
  sunrealtype *g = s->wm[CHS_WM_A], *mu = s->wm[CHS_WM_B], *w = s->wm[CHS_WM_BLOCK];
  sunrealtype *Gtmu = s->wn[CHS_WN_A], *Gdvmu = s->wn[CHS_WN_B], *Gtlam = s->wn[CHS_WN_C],
              *t1 = s->wn[CHS_WN_FIELD], *t2 = s->wn[CHS_WN_FORCE];
  sunrealtype *b = ws->b, *c = ws->c, *d = ws->a, *acc = ws->acc, *e = ws->e;
  sunrealtype *h = ws->x, *gp = h + n, *amb = gp + n, *ex = amb + n, *work = ex + n;
  const sunrealtype *a = k.Minv_F, *v = k.v;
  if (CHS_SYS_CB(s, constraint, s->data, q, g) != 0) {
    return CHS_RECOVERABLE;
  }
  CHS_CALL(chs_gram_solve(s->gram, g, mu));
  chs_jac_tmv_fused(s, mu, k.lambda, Gtmu, Gdvmu, Gtlam);
  chs_mass_inv(s, Gtmu, c);
  chs_mass_inv(s, Gtlam, b);
  chs_mass_inv(s, Gdvmu, d);
  /* h and grad_p */
  CHS_CALL(total_h(s, q, c, v, t1, t2, h));
  chs_mass_inv(s, h, t1);
  for (sunindextype i = 0; i < n; i++) {
    gp[i] = 2 * d[i] + t1[i];
    amb[i] = a[i] - b[i];
  }
  /* grad_q: the constant-mass terms */
  if (s->ops->constraint_third) {
    if (CHS_SYS_CB(s, constraint_third, s->data, q, v, mu, acc) != 0) {
      return CHS_RECOVERABLE;
    }
  } else {
    memset(acc, 0, (size_t)n * sizeof *acc);
  }
  if (s->ops->hessian_potential) {
    if (CHS_SYS_CB(s, hessian_potential, s->data, q, c, t1) != 0) {
      return CHS_RECOVERABLE;
    }
    for (sunindextype i = 0; i < n; i++) {
      acc[i] -= t1[i];
    }
  }
  CHS_CALL(total_add_gdot_t(s, ws, q, amb, mu, 1, acc));
  CHS_CALL(total_add_gdot_t(s, ws, q, c, k.lambda, -1, acc));
  /* the mass terms: mg(c, b - a) - mg(grad_p, v) + 1/2 D_c mg(v, v) - D_v mg(c, v) */
  for (sunindextype i = 0; i < n; i++) {
    t2[i] = -amb[i];
  }
  if (CHS_SYS_CB(s, mass_grad, s->data, q, c, t2, t1) != 0) {
    return CHS_RECOVERABLE;
  }
  for (sunindextype i = 0; i < n; i++) {
    acc[i] += t1[i];
  }
  if (CHS_SYS_CB(s, mass_grad, s->data, q, gp, v, t1) != 0) {
    return CHS_RECOVERABLE;
  }
  for (sunindextype i = 0; i < n; i++) {
    acc[i] -= t1[i];
  }
  CHS_CALL(chs_mass_grad_dir(s, q, c, v, v, t1, work));
  for (sunindextype i = 0; i < n; i++) {
    acc[i] += t1[i] / 2;
  }
  CHS_CALL(chs_mass_grad_dir(s, q, v, c, v, t1, work));
  for (sunindextype i = 0; i < n; i++) {
    acc[i] -= t1[i];
  }
  for (sunindextype i = 0; i < n; i++) {
    ydot[i] = v[i] + gp[i];
    ydot[n + i] = k.F[i] - Gtlam[i] - acc[i];
  }
  if (!extended) {
    return 0;
  }
  /* extended: w = Q^{-1} psi, G^T w and Gdot(q,v)^T w in one pass, e = M^{-1} G^T w */
  CHS_CALL(chs_gram_solve(s->gram, k.psi, w));
  chs_jac_tmv_fused(s, w, NULL, ws->Gtw, ws->gvw, NULL);
  chs_mass_inv(s, ws->Gtw, e);
  memset(ex, 0, (size_t)n * sizeof *ex);
  CHS_CALL(total_add_gdot_t(s, ws, q, e, w, -2, ex));
  for (sunindextype i = 0; i < n; i++) {
    t2[i] = e[i] - 2 * v[i];
  }
  if (CHS_SYS_CB(s, mass_grad, s->data, q, e, t2, t1) != 0) {
    return CHS_RECOVERABLE;
  }
  for (sunindextype i = 0; i < n; i++) {
    ydot[i] -= 2 * e[i];
    ydot[n + i] += 2 * ws->gvw[i] + ex[i] + t1[i];
  }
  return 0;
}

int chs_total_field(CHSFormulation f, const sunrealtype *y, sunrealtype *ydot, int extended) {
  CHSSystem *s = &f->sys;
  if (s->mass_kind == CHS_MASS_CONFIG) {
    return total_field_general(f, y, ydot, extended);
  }
  chs_total_ws *ws = CHSFormulation_GetPrivate(f);
  sunindextype n = s->n;
  const sunrealtype *q = y;
  CHSKinematics k;
  CHS_CALL(chs_system_kinematics(s, q, y + n, &k));
  sunrealtype *g = s->wm[CHS_WM_A], *mu = s->wm[CHS_WM_B], *w = s->wm[CHS_WM_BLOCK];
  sunrealtype *Gtmu = s->wn[CHS_WN_A], *Gdvmu = s->wn[CHS_WN_B], *Gtlam = s->wn[CHS_WN_C],
              *acc = ws->acc;
  if (CHS_SYS_CB(s, constraint, s->data, q, g) != 0) {
    return CHS_RECOVERABLE;
  }
  CHS_CALL(chs_gram_solve(s->gram, g, mu));

  const sunrealtype *gradp, *c, *amb, *e = NULL;
  if (s->m == 1 && s->jac_kind == CHS_JAC_DENSE && s->mass_kind != CHS_MASS_DENSE) {
    /* One constraint: every product with G^T or Gdot^T below is a multiple of the single row,
     * so all of them take one pass (the same quantities as the general branch). */
    sunrealtype m0 = mu[0], l0 = k.lambda[0], w0 = 0;
    if (extended) {
      CHS_CALL(chs_gram_solve(s->gram, k.psi, w));
      w0 = w[0];
    }
    const sunrealtype *G = s->G, *Gd = s->Gd, *minv = s->minv;
    sunrealtype *ambw = s->wn[CHS_WN_FIELD];
    for (sunindextype i = 0; i < n; i++) {
      sunrealtype mi = minv ? minv[i] : 1;
      ws->a[i] = mi * m0 * Gd[i];
      ws->c[i] = mi * m0 * G[i];
      ws->b[i] = k.F[i] - l0 * G[i];
      ambw[i] = mi * ws->b[i];
      ws->e[i] = mi * w0 * G[i];
      ws->gvw[i] = w0 * Gd[i];
    }
    gradp = ws->a;
    c = ws->c;
    amb = ambw;
    e = extended ? ws->e : NULL;
  } else {
    /* One pass: G^T mu, Gdot(q,v)^T mu (s->Gd holds Gdot(q, v)) and G^T lambda. */
    chs_jac_tmv_fused(s, mu, k.lambda, Gtmu, Gdvmu, Gtlam);
    /* grad_p = 2 M^{-1} Gdot(q,v)^T mu;  c = M^{-1} G^T mu;  a - b = M^{-1} (F - G^T lambda). */
    gradp = chs_mass_inv_view(s, Gdvmu, ws->a);
    c = chs_mass_inv_view(s, Gtmu, ws->c);
    for (sunindextype i = 0; i < n; i++) {
      ws->b[i] = k.F[i] - Gtlam[i];
    }
    amb = chs_mass_inv_view(s, ws->b, s->wn[CHS_WN_FIELD]);
    /* Extended: w = Q^{-1} psi, G^T w and Gdot(q,v)^T w in one pass, e = M^{-1} G^T w. */
    if (extended) {
      CHS_CALL(chs_gram_solve(s->gram, k.psi, w));
      chs_jac_tmv_fused(s, w, NULL, ws->Gtw, ws->gvw, NULL);
      e = chs_mass_inv_view(s, ws->Gtw, ws->e);
    }
  }

  if (s->ops->constraint_third) {
    if (CHS_SYS_CB(s, constraint_third, s->data, q, k.v, mu, acc) != 0) {
      return CHS_RECOVERABLE;
    }
  } else {
    memset(acc, 0, (size_t)n * sizeof *acc);
  }
  if (s->ops->hessian_potential) {
    sunrealtype *Hc = s->wn[CHS_WN_FORCE];
    if (CHS_SYS_CB(s, hessian_potential, s->data, q, c, Hc) != 0) {
      return CHS_RECOVERABLE;
    }
    for (sunindextype i = 0; i < n; i++) {
      acc[i] -= Hc[i];
    }
  }
  /* acc += Gdot(q,a)^T mu - Gdot(q,b)^T mu - Gdot(q,c)^T lambda [+ 2 Gdot(q,e)^T w]. Gdot is linear
   * in its direction: the first two are Gdot(q,a-b)^T mu; with one constraint,
   * Gdot(q,u)^T w = w Gdot(q,u)^T 1 is bilinear in (u, w), so all of them are one evaluation. */
  if (s->m == 1) {
    sunrealtype *u = s->wn[CHS_WN_FORCE], one = 1;
    for (sunindextype i = 0; i < n; i++) {
      u[i] = mu[0] * amb[i] - k.lambda[0] * c[i] + (extended ? 2 * w[0] * e[i] : 0);
    }
    CHS_CALL(total_add_gdot_t(s, ws, q, u, &one, 1, acc));
  } else {
    CHS_CALL(total_add_gdot_t(s, ws, q, amb, mu, 1, acc));
    CHS_CALL(total_add_gdot_t(s, ws, q, c, k.lambda, -1, acc));
    if (extended) {
      CHS_CALL(total_add_gdot_t(s, ws, q, e, w, 2, acc));
    }
  }

  if (extended) { /* q' = q'_T - 2 e,  p' = p'_T + 2 Gdot(q,v)^T w - 2 Gdot(q,e)^T w */
    for (sunindextype i = 0; i < n; i++) {
      ydot[i] = k.v[i] + 2 * (gradp[i] - e[i]);
      ydot[n + i] = ws->b[i] - acc[i] + 2 * ws->gvw[i];
    }
  } else {
    for (sunindextype i = 0; i < n; i++) {
      ydot[i] = k.v[i] + 2 * gradp[i];
      ydot[n + i] = ws->b[i] - acc[i];
    }
  }
  return 0;
}

static int total_rhs(CHSFormulation f, sunrealtype t, const sunrealtype *y, sunrealtype *ydot) {
  (void)t;
  return chs_total_field(f, y, ydot, 0);
}

const CHSFormulationOps chs_formulation_total = {
    .name = "total",
    .summary = "total Hamiltonian H + lambda(q,p)^T g (manifold invariant, a saddle)",
    .source = "[Seiler, stable] (17), (43); [Leimkuhler & Reich] (3.9)-(3.10) with eta = 0",
    .flags = CHS_FORM_ODE | CHS_FORM_NEEDS_HAMILTONIAN | CHS_FORM_MASS_CONFIG | CHS_FORM_TIME,
    .init = chs_total_init,
    .free = chs_total_free,
    .rhs = total_rhs,
    .uncalibrated = "fails calibration on the built-in problems (`chs bench calibrate`: with "
                    "every default method, runs end in a non-finite right-hand side or errors "
                    "reach 1e8 .. 1e11 x tol on pendulum, andrews and heavy-top): the constraint "
                    "manifold is a saddle of the total Hamiltonian's flow",
};
