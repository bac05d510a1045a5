/* The index-3 DAE of a constrained mechanical system (the baseline of the papers, [Leimkuhler &
 * Reich] (1.3)- (1.5)): y = (q, p, lambda),
 *
 *   0 = q' - M^{-1} p,   0 = p' - F + G^T lambda,   0 = g(q).
 *
 * For IDA (method ida) the momenta (index 2) and lambda (index 3) are excluded from the error
 * test (id = 0 with IDASetSuppressAlg): only q is error-controlled, the standard treatment of
 * index-3 systems by BDF codes (Brenan, Campbell & Petzold). */
#include "dae_common.h"

static sunindextype dae3_size(sunindextype n, sunindextype m) {
  return 2 * n + m;
}

static int dae3_residual(CHSFormulation f, sunrealtype t, const sunrealtype *y,
                         const sunrealtype *yp, sunrealtype *res) {
  (void)t;
  CHSSystem *s = &f->sys;
  CHS_CALL(chs_dae_dynamics(f, y, yp, NULL, res));
  return CHS_SYS_CB(s, constraint, s->data, y, res + 2 * s->n) == 0 ? 0 : CHS_RECOVERABLE;
}

static void dae3_ids(CHSFormulation f, sunrealtype *id) {
  chs_dae_ids(f, 0, id);
}

static int dae3_jacobian(CHSFormulation f, sunrealtype t, const sunrealtype *y,
                         const sunrealtype *yp, sunrealtype cj, sunrealtype *J) {
  (void)t;
  (void)yp;
  return chs_dae_jacobian(f, 3, y, cj, J);
}

const CHSFormulationOps chs_formulation_dae_index3 = {
    .name = "dae-index3",
    .summary = "index-3 DAE (q, p, lambda) for IDA; p and lambda out of the error test",
    .source = "[Leimkuhler & Reich] (1.3)-(1.5)",
    .flags = CHS_FORM_DAE | CHS_FORM_MASS_CONFIG | CHS_FORM_TIME | CHS_FORM_DAE_INDEX(3) |
             CHS_FORM_JAC_HESSIAN,
    .state_size = dae3_size,
    .residual = dae3_residual,
    .initial_derivative = chs_dae_initial_derivative,
    .component_ids = dae3_ids,
    .from_physical = chs_dae_from_physical,
    .jacobian = dae3_jacobian,
    .uncalibrated = "fails calibration on the built-in problems (`chs bench calibrate`: final "
                    "error up to 7e4 x tol on andrews and 5e4 x tol on the pendulum): IDA leaves "
                    "the index-2 momenta and the multipliers out of its error test; dae-ggl/ida "
                    "comes closer to the tolerance",
};
