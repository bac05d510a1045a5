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

int CHSFormulation_IDATolerances(CHSFormulation f, sunrealtype atol, N_Vector atol_vec) {
  if (!f || !atol_vec || !(atol > 0) || N_VGetLength(atol_vec) != CHSFormulation_GetStateSize(f)) {
    return CHS_ERR_ARG;
  }
  CHSFormulation_ComponentIds(f, atol_vec);
  sunrealtype *a = N_VGetArrayPointer(atol_vec);
  for (sunindextype i = 0; i < N_VGetLength(atol_vec); i++) {
    a[i] = a[i] > 0 ? atol : CHS_IDA_ALGEBRAIC_ATOL;
  }
  return 0;
}

int CHSERKStep_FixLastStageReuse(void *arkode_mem, ARKodeButcherTable table) {
  if (!arkode_mem || !table) {
    return CHS_ERR_ARG;
  }
  return chs_erk_fix_last_stage_reuse(arkode_mem, table);
}
