/* SUNDIALS glue for programs that keep their own user_data (src/chs/sundials.h). */
#include <arkode/arkode_erkstep.h>
#include "chs/sundials.h"
#include "compat.h"
#include "impl.h"

int CHSFormulation_Eval(CHSFormulation f, sunrealtype t, N_Vector y, N_Vector ydot) {
  return f ? CHSFormulation_Rhs(t, y, ydot, f) : CHS_ERR_ARG;
}

int CHSFormulation_EvalResidual(CHSFormulation f, sunrealtype t, N_Vector y, N_Vector yp,
                                N_Vector res) {
  return f ? CHSFormulation_Residual(t, y, yp, res, f) : CHS_ERR_ARG;
}

/* The components excluded from the error test (id = 0: multipliers, and the index-2 momenta of the
 * index-3 form) get an absolute tolerance so large that they do not dominate the Newton
 * convergence test either: otherwise the O(h^-2) and O(h^-1) amplification of their Newton
 * corrections forces IDA into ever smaller steps at tight tolerances (seen: dae-index3 stuck at
 * t ~ 1e-8 with 1e-10). Not so large that they drop out of it: with 1e6, andrews' momenta
 * (|p| ~ 1e-2) were never checked, IDA accepted Newton iterates with wrong p and crept
 * (dae-index3 at rtol 1e-6 .. 1e-10: 50000 steps reached t < 0.009 of 0.03). So the algebraic
 * momenta (components n .. 2n-1 of the state (q, p, multipliers)) get CHS_IDA_MOMENTUM_ATOL, the
 * multipliers CHS_IDA_ALGEBRAIC_ATOL (with 1 for them too, the spherical-pendulum plugin's
 * dae-index3 failed at t ~ 7e-9 at 1e-10); measured on pendulum, double-pendulum, car-axis,
 * andrews at 1e-6 .. 1e-10 and the install test's plugin. */
int CHSFormulation_IDATolerances(CHSFormulation f, sunrealtype atol, N_Vector atol_vec) {
  if (!f || !atol_vec || !(atol > 0) || N_VGetLength(atol_vec) != CHSFormulation_GetStateSize(f)) {
    return CHS_ERR_ARG;
  }
  CHSFormulation_ComponentIds(f, atol_vec);
  sunrealtype *a = N_VGetArrayPointer(atol_vec);
  sunindextype np = 2 * CHSProblem_GetDims(CHSFormulation_GetProblem(f))->n;
  for (sunindextype i = 0; i < N_VGetLength(atol_vec); i++) {
    a[i] = a[i] > 0 ? atol : i < np ? CHS_IDA_MOMENTUM_ATOL : CHS_IDA_ALGEBRAIC_ATOL;
  }
  return 0;
}

int CHSERKStep_FixLastStageReuse(void *arkode_mem, ARKodeButcherTable table) {
  if (!arkode_mem || !table) {
    return CHS_ERR_ARG;
  }
  return chs_erk_fix_last_stage_reuse(arkode_mem, table);
}
