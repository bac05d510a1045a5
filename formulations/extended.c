/* Dirac's extended Hamiltonian (seed 000 eq. (19)-(23), (32)-(33), pendulum (37); seed 002
 * (3.2)-(3.3)):
 *
 *   H_e = H + lambda(q,p)^T g - psi^T Q^{-1} psi = H_T - psi^T w,   w = Q^{-1} psi,
 *
 * (seed 000 writes H_0 - lambda phi + mu psi with its lambda = -ours and mu = -w). The full
 * Hamiltonian vector field: H_T's (formulations/total.c, with the adjoint gradient of lambda^T g)
 * plus the gradient of -psi^T Q^{-1} psi, which by d(Q^{-1}) = -Q^{-1} dQ Q^{-1} is
 *
 *   d/dp: -2 a,                              a = M^{-1} G^T w,
 *   d/dq: -2 Gdot(q,v)^T w + 2 Gdot(q,a)^T w,
 *
 * so q' = q'_T - 2 a and p' = p'_T + 2 Gdot(q,v)^T w - 2 Gdot(q,a)^T w: one more solve and one
 * more Gdot evaluation than H_T. The constraint manifold is invariant and, linearised, a centre
 * (seed 002 Sec. 3.5-3.6; seed 000 Sec. 10). */
#include "../src/impl.h"

static int extended_rhs(CHSFormulation f, sunrealtype t, const sunrealtype *y, sunrealtype *ydot) {
  (void)t;
  CHSSystem *s = &f->sys;
  chs_total_ws *ws = CHSFormulation_GetPrivate(f);
  sunindextype n = s->n;
  CHSKinematics k;
  CHS_CALL(chs_total_field(f, y, ydot, &k));
  /* s->Gd still holds Gdot(q, v); k.psi is psi at y. */
  sunrealtype *w = s->wm[4], *Gtw = s->wn[3], *gv = s->wn[5];
  CHS_CALL(chs_gram_solve(s->gram, k.psi, w));
  chs_jac_tmv_fused(s, w, NULL, Gtw, gv, NULL);
  const sunrealtype *a = chs_mass_inv_view(s, Gtw, s->wn[4]);
  if (s->ops->jacobian_dot(s->data, y, a, ws->Gd2) != 0) {
    return CHS_RECOVERABLE;
  }
  for (sunindextype i = 0; i < n; i++) {
    ydot[i] -= 2 * a[i];
    ydot[n + i] += 2 * gv[i];
  }
  chs_jac_tmv_acc(s, ws->Gd2, w, -2, ydot + n);
  return 0;
}

const CHSFormulationOps chs_formulation_extended = {
    .name = "extended",
    .summary = "Dirac's extended Hamiltonian H + lambda^T g - psi^T Q^-1 psi (manifold a centre)",
    .source = "seed 000 (19)-(23), (32)-(33), (37); seed 002 (3.2)-(3.3)",
    .flags = CHS_FORM_ODE | CHS_FORM_NEEDS_HAMILTONIAN,
    .init = chs_total_init,
    .free = chs_total_free,
    .rhs = extended_rhs,
};
