/* Standard underlying ODE (naive index reduction).
 *
 *   q' = M^{-1} p,   p' = F - G^T lambda,   lambda = Q^{-1} (Gdot(q,v) v + G M^{-1} F).
 *
 * Seed 000 eq. (38) for the pendulum ("inv"), seed 001 eq. (15)/(42). The constraint manifold is
 * invariant but not stable: g drifts quadratically, psi linearly (seed 000 Sec. 6). */
#include "../src/impl.h"

static int standard_rhs(CHSFormulation f, sunrealtype t, const sunrealtype *y, sunrealtype *ydot) {
  (void)t;
  CHSSystem *s = &f->sys;
  sunindextype n = s->n;
  CHSKinematics k;
  CHS_CALL(chs_system_kinematics(s, y, y + n, &k));
  chs_system_field(s, &k, k.lambda, 0, NULL, NULL, ydot);
  return 0;
}

const CHSFormulationOps chs_formulation_standard = {
    .name = "standard",
    .summary = "underlying ODE by index reduction (naive; manifold unstable)",
    .source = "seed 000 (27), (38); seed 001 (15), (42)",
    .flags = CHS_FORM_ODE,
    .rhs = standard_rhs,
};
