/* SUNDIALS glue for programs that keep their own user_data (src/chs/sundials.h). */
#include <float.h>
#include <math.h>
#include <arkode/arkode_erkstep.h>
#include <ida/ida.h>
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

/* IDA's error weights (docs/sundials.md "IDA: error weights"): w_i = h^(k_i - 1) / (rtol |y_i| +
 * atol), k_i the index of component i: 1 for the differential components (positions, the momenta
 * of GGL and the index-1 form) and the index-1 form's multipliers, 2 for the index-3 form's momenta
 * and GGL's multipliers, 3 for the index-3 form's multipliers. The scaling is Hairer & Wanner's
 * (RADAU5): a change d of the positions moves the index-2 components by d / h and the index-3 ones
 * by d / h^2 through the constraints, so their Newton corrections, round-off included, are
 * measured at the positions' scale. Unscaled, at tolerance 1e-10 the multipliers' round-off
 * (eps / h^2) alone exceeds the tolerance and IDA's steps shrink without end; left out of the
 * Newton test (huge atol), IDA stops iterating with wrong momenta and multipliers and the
 * positions drift far beyond the tolerance. h <= 0: the first step, whose size IDA has not
 * chosen yet; its bound 0.5 / |y'| (IDA's own, in the norm of the error-tested components)
 * stands for it. */
int CHSFormulation_IDAErrorWeights(CHSFormulation f, sunrealtype rtol, sunrealtype atol,
                                   sunrealtype h, N_Vector y, N_Vector ewt) {
  if (!f || !y || !ewt || !(rtol >= 0) || !(atol > 0) || !isfinite(h) ||
      N_VGetLength(y) != CHSFormulation_GetStateSize(f) ||
      N_VGetLength(ewt) != CHSFormulation_GetStateSize(f)) {
    return CHS_ERR_ARG;
  }
  CHSFormulation_ComponentIds(f, ewt);
  return chs_ida_error_weights(f, N_VGetArrayPointer(ewt), rtol, atol, h, y, ewt);
}

/* The weights above from the component ids (id[i] > 0: error-tested), which may be ewt's own
 * data: each w[i] is written after id[i] and the first step's norm are read. The arguments are
 * the caller's to check; IDA's integrator calls this at every step with the ids it keeps. */
int chs_ida_error_weights(CHSFormulation f, const sunrealtype *id, sunrealtype rtol,
                          sunrealtype atol, sunrealtype h, N_Vector y, N_Vector ewt) {
  sunindextype N = N_VGetLength(y), n = f->sys.n;
  const sunrealtype *yv = N_VGetArrayPointer(y);
  sunrealtype *w = N_VGetArrayPointer(ewt);
  h = fabs(h);
  if (h == 0) {
    N_Vector yp = N_VClone(y);
    if (!yp) {
      return CHS_ERR_MEM;
    }
    int rc = CHSFormulation_InitialDerivative(f, y, yp);
    const sunrealtype *ypv = N_VGetArrayPointer(yp);
    sunrealtype sum = 0;
    for (sunindextype i = 0; i < N; i++) {
      sunrealtype e = id[i] > 0 ? ypv[i] / (rtol * fabs(yv[i]) + atol) : 0;
      sum += e * e;
    }
    N_VDestroy(yp);
    if (rc != 0) {
      return rc;
    }
    sunrealtype ypnorm = sqrt(sum / (sunrealtype)N);
    h = ypnorm > 0 && isfinite(ypnorm) ? 0.5 / ypnorm : sqrt(DBL_EPSILON);
  }
  int p_algebraic = N > n && id[n] == 0;
  int lambda_index = p_algebraic ? 3 : chs_dae_kind(f->ops) == 1 ? 1 : 2;
  sunrealtype hk[4] = {0, 1, h, h * h}; /* the scale h^(k-1) of index k */
  for (sunindextype i = 0; i < N; i++) {
    int k = id[i] > 0 ? 1 : i < 2 * n ? 2 : lambda_index;
    w[i] = hk[k] / (rtol * fabs(yv[i]) + atol);
  }
  return 0;
}

/* IDAEwtFn with the formulation as user_data: the weights at IDA's next step size. */
static int chs_ida_ewt(N_Vector y, N_Vector ewt, void *user_data) {
  CHSFormulation f = user_data;
  sunrealtype h = 0;
  if (!f || !f->idaw.ida || IDAGetCurrentStep(f->idaw.ida, &h) != IDA_SUCCESS) {
    return CHS_ERR_SOLVER;
  }
  return CHSFormulation_IDAErrorWeights(f, f->idaw.rtol, f->idaw.atol, h, y, ewt) == 0 ? 0 : -1;
}

int CHSFormulation_IDASetTolerances(CHSFormulation f, void *ida_mem, sunrealtype rtol,
                                    sunrealtype atol) {
  if (!f || !ida_mem || !(rtol >= 0) || !(atol > 0) || !isfinite(rtol) || !isfinite(atol)) {
    return CHS_ERR_ARG;
  }
  f->idaw.ida = ida_mem;
  f->idaw.rtol = rtol;
  f->idaw.atol = atol;
  return IDAWFtolerances(ida_mem, chs_ida_ewt) == IDA_SUCCESS ? 0 : CHS_ERR_SOLVER;
}

int CHSFormulation_IDATolerances(CHSFormulation f, sunrealtype atol, N_Vector atol_vec) {
  if (!f || !atol_vec || !(atol > 0) || N_VGetLength(atol_vec) != CHSFormulation_GetStateSize(f)) {
    return CHS_ERR_ARG;
  }
  N_VConst(atol, atol_vec);
  return 0;
}

int CHSERKStep_FixLastStageReuse(void *arkode_mem, ARKodeButcherTable table) {
  if (!arkode_mem || !table) {
    return CHS_ERR_ARG;
  }
  return chs_erk_fix_last_stage_reuse(arkode_mem, table);
}
