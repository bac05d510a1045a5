/* The Gear-Gupta-Leimkuhler stabilised index-2 DAE: y = (q, p, lambda, mu),
 *
 *   0 = q' - M^{-1} p + M^{-1} G^T mu,   0 = p' - F + G^T lambda,   0 = g(q),   0 = G M^{-1} p.
 *
 * With M(q) and time dependence (docs/mechanics.md "DAEs"): F + F_M, g(q, t) and
 * psi = G M(q)^{-1} p + g_t.
 *
 * Both constraints are imposed (mu = 0 along exact solutions). For IDA lambda and mu are
 * algebraic and excluded from the error test. */
#include "dae_common.h"

static sunindextype ggl_size(sunindextype n, sunindextype m) {
  return 2 * n + 2 * m;
}

static int ggl_residual(CHSFormulation f, sunrealtype t, const sunrealtype *y,
                        const sunrealtype *yp, sunrealtype *res) {
  (void)t;
  CHSSystem *s = &f->sys;
  sunindextype n = s->n, m = s->m;
  CHS_CALL(chs_dae_dynamics(f, y, yp, y + 2 * n + m, res));
  if (CHS_SYS_CB(s, constraint, s->data, y, res + 2 * n) != 0) {
    return CHS_RECOVERABLE;
  }
  sunrealtype *v = s->wn[CHS_WN_V]; /* M^{-1} p, from chs_dae_dynamics */
  CHS_CALL(chs_system_time_terms(s, y));
  chs_system_psi(s, v, res + 2 * n + m); /* G M^{-1} p + g_t */
  return 0;
}

static void ggl_ids(CHSFormulation f, sunrealtype *id) {
  chs_dae_ids(f, 1, id);
}

static int ggl_jacobian(CHSFormulation f, sunrealtype t, const sunrealtype *y,
                        const sunrealtype *yp, sunrealtype cj, sunrealtype *J) {
  (void)t;
  (void)yp;
  return chs_dae_jacobian(f, 2, y, cj, J);
}

const CHSFormulationOps chs_formulation_dae_ggl = {
    .name = "dae-ggl",
    .summary = "Gear-Gupta-Leimkuhler index-2 DAE (q, p, lambda, mu) for IDA",
    .source = "Gear, Gupta & Leimkuhler (1985); [Leimkuhler & Reich] Sec. 1",
    .flags = CHS_FORM_DAE | CHS_FORM_MASS_CONFIG | CHS_FORM_TIME | CHS_FORM_DAE_INDEX(2) |
             CHS_FORM_JAC_HESSIAN,
    .state_size = ggl_size,
    .residual = ggl_residual,
    .initial_derivative = chs_dae_initial_derivative,
    .component_ids = ggl_ids,
    .from_physical = chs_dae_from_physical,
    .jacobian = ggl_jacobian,
};
