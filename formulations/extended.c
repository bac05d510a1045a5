/* Dirac's extended Hamiltonian ([Seiler, Dirac] eq. (19)-(23), (32)-(33), pendulum (37);
 * [Leimkuhler & Reich] (3.2)-(3.3)):
 *
 *   H_e = H + lambda(q,p)^T g - psi^T Q^{-1} psi = H_T - psi^T w,   w = Q^{-1} psi,
 *
 * ([Seiler, Dirac] writes H_0 - lambda phi + mu psi with its lambda = -ours and mu = -w). The full
 * Hamiltonian vector field: H_T's (formulations/total.c, with the adjoint gradient of lambda^T g)
 * plus the gradient of -psi^T Q^{-1} psi, which by d(Q^{-1}) = -Q^{-1} dQ Q^{-1} is
 *
 *   d/dp: -2 a,                              a = M^{-1} G^T w,
 *   d/dq: -2 Gdot(q,v)^T w + 2 Gdot(q,a)^T w,
 *
 * so q' = q'_T - 2 a and p' = p'_T + 2 Gdot(q,v)^T w - 2 Gdot(q,a)^T w: one more solve and one
 * more Gdot evaluation than H_T (none with one constraint: chs_total_field shares them). The
 * constraint manifold is invariant and, linearised, a centre ([Leimkuhler & Reich] Sec. 3.5-3.6;
 * [Seiler, Dirac] Sec. 10).
 *
 * M(q) (docs/mechanics.md "Total and extended Hamiltonians"): psi = G M(q)^{-1} p and
 * Q = G M(q)^{-1} G^T vary with q through M as well, which adds mg(e, e - 2 v) to p'
 * (mg(x, y) = grad_q (x^T M(q) y)); the time-dependent case is refused by chs_total_init
 * (CHS_FORM_TIME is declared so that the refusal can say why). */
#include "../src/impl.h"

static int extended_rhs(CHSFormulation f, sunrealtype t, const sunrealtype *y, sunrealtype *ydot) {
  (void)t;
  return chs_total_field(f, y, ydot, 1);
}

const CHSFormulationOps chs_formulation_extended = {
    .name = "extended",
    .summary = "Dirac's extended Hamiltonian H + lambda^T g - psi^T Q^-1 psi (manifold a centre)",
    .source = "[Seiler, Dirac] (19)-(23), (32)-(33), (37); [Leimkuhler & Reich] (3.2)-(3.3)",
    .flags = CHS_FORM_ODE | CHS_FORM_NEEDS_HAMILTONIAN | CHS_FORM_MASS_CONFIG | CHS_FORM_TIME,
    .init = chs_total_init,
    .free = chs_total_free,
    .rhs = extended_rhs,
};
