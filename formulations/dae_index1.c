/* The index-1 (acceleration level) DAE: y = (q, p, lambda),
 *
 *   0 = q' - M^{-1} p,   0 = p' - F + G^T lambda,   0 = Q lambda - (Gdot(q,v) v + G M^{-1} F).
 *
 * Only the second derivative of g is imposed: g and psi drift as for the standard ODE, and the
 * run reports that drift (|g|, |psi|) instead of hiding it. lambda is algebraic (index 1). */
#include "dae_common.h"

static sunindextype dae1_size(sunindextype n, sunindextype m) {
  return 2 * n + m;
}

static int dae1_residual(CHSFormulation f, sunrealtype t, const sunrealtype *y,
                         const sunrealtype *yp, sunrealtype *res) {
  (void)t;
  CHSSystem *s = &f->sys;
  sunindextype n = s->n, m = s->m;
  CHS_CALL(chs_dae_dynamics(f, y, yp, NULL, res));
  CHSKinematics k;
  CHS_CALL(chs_system_kinematics(s, y, y + n, &k)); /* r, and Q factored (Q lambda below) */
  sunrealtype *Ql = s->wm[CHS_WM_A], *tmp = s->wn[CHS_WN_B], *t2 = s->wn[CHS_WN_C];
  chs_jac_tmv(s, s->G, y + 2 * n, tmp);
  chs_mass_inv(s, tmp, t2);
  chs_jac_mv(s, s->G, t2, Ql);
  for (sunindextype i = 0; i < m; i++) {
    res[2 * n + i] = Ql[i] - k.r[i];
  }
  return 0;
}

static void dae1_ids(CHSFormulation f, sunrealtype *id) {
  chs_dae_ids(f, 1, id);
}

static int dae1_jacobian(CHSFormulation f, sunrealtype t, const sunrealtype *y,
                         const sunrealtype *yp, sunrealtype cj, sunrealtype *J) {
  (void)t;
  (void)yp;
  return chs_dae_jacobian(f, 1, y, cj, J);
}

const CHSFormulationOps chs_formulation_dae_index1 = {
    .name = "dae-index1",
    .summary = "index-1 DAE (acceleration constraint) for IDA; g and psi drift (reported)",
    .source = "index reduction to the acceleration level",
    .flags = CHS_FORM_DAE | CHS_FORM_MASS_CONFIG | CHS_FORM_TIME | CHS_FORM_DAE_INDEX(1) |
             CHS_FORM_JAC_HESSIAN | CHS_FORM_JAC_THIRD,
    .state_size = dae1_size,
    .residual = dae1_residual,
    .initial_derivative = chs_dae_initial_derivative,
    .component_ids = dae1_ids,
    .from_physical = chs_dae_from_physical,
    .jacobian = dae1_jacobian,
};
