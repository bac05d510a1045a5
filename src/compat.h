/* The one place where SUNDIALS 6.x and 7.x differ for chs (private header).
 *
 * 7.0: SUNContext_Create takes a SUNComm (SUN_COMM_NULL); 6.x a void* (NULL).
 * 7.1: the stepper-specific ERKStep setters/getters are deprecated in favour of the shared
 *      ARKode* functions; with -Werror the deprecated names must not be used. */
#ifndef CHS_COMPAT_H
#define CHS_COMPAT_H

#include <sundials/sundials_config.h>
#include <sundials/sundials_context.h>
#include <arkode/arkode_arkstep.h>
#include <arkode/arkode_erkstep.h>

#define CHS_SUNDIALS_AT_LEAST(maj, min)                                                            \
  (SUNDIALS_VERSION_MAJOR > (maj) ||                                                               \
   (SUNDIALS_VERSION_MAJOR == (maj) && SUNDIALS_VERSION_MINOR >= (min)))

#if CHS_SUNDIALS_AT_LEAST(7, 0)
#define CHS_COMM_NULL SUN_COMM_NULL
/* linear solver return codes: SUNDIALS 7 folded SUNLS_* into SUNErrCode */
#define CHS_LS_SUCCESS SUN_SUCCESS
#define CHS_LS_FAIL_UNREC SUN_ERR_EXT_FAIL
#define CHS_NLS_SUCCESS SUN_SUCCESS /* nonlinear solvers too (SUN_NLS_SUCCESS is gone) */
#else
#define CHS_COMM_NULL NULL
#define CHS_LS_SUCCESS SUNLS_SUCCESS
#define CHS_LS_FAIL_UNREC SUNLS_PACKAGE_FAIL_UNREC
#define CHS_NLS_SUCCESS SUN_NLS_SUCCESS
#endif

static inline int chs_context_create(SUNContext *ctx) {
  return SUNContext_Create(CHS_COMM_NULL, ctx);
}

/* Error messages. SUNDIALS 7 reports through the context's error-handler stack (the default
 * handler prints to stderr): contexts that chs creates itself are silenced, and the failure is
 * reported through CHSError instead. SUNDIALS 6 prints through a per-integrator handler:
 * chs_erk_capture_errors installs one that stores the message in a buffer. */
#if CHS_SUNDIALS_AT_LEAST(7, 0)
static inline void chs_context_silence(SUNContext ctx) {
  SUNContext_ClearErrHandlers(ctx);
}
#else
static inline void chs_context_silence(SUNContext ctx) {
  (void)ctx;
}
#endif

#if CHS_SUNDIALS_AT_LEAST(7, 1)
#define chs_erk_free ARKodeFree
#define chs_erk_sstolerances ARKodeSStolerances
#define chs_erk_set_fixed_step ARKodeSetFixedStep
#define chs_erk_set_stop_time ARKodeSetStopTime
#define chs_erk_set_user_data ARKodeSetUserData
#define chs_erk_set_max_num_steps ARKodeSetMaxNumSteps
#define chs_erk_evolve ARKodeEvolve
#define chs_erk_get_num_steps ARKodeGetNumSteps
#define chs_erk_get_num_err_test_fails ARKodeGetNumErrTestFails
#define chs_erk_get_return_flag_name ARKodeGetReturnFlagName
#define chs_erk_set_postprocess ARKodeSetPostprocessStepFn
#else
#define chs_erk_free ERKStepFree
#define chs_erk_sstolerances ERKStepSStolerances
#define chs_erk_set_fixed_step ERKStepSetFixedStep
#define chs_erk_set_stop_time ERKStepSetStopTime
#define chs_erk_set_user_data ERKStepSetUserData
#define chs_erk_set_max_num_steps ERKStepSetMaxNumSteps
#define chs_erk_evolve ERKStepEvolve
#define chs_erk_get_num_steps ERKStepGetNumSteps
#define chs_erk_get_num_err_test_fails ERKStepGetNumErrTestFails
#define chs_erk_get_return_flag_name ERKStepGetReturnFlagName
#define chs_erk_set_postprocess ERKStepSetPostprocessStepFn
#endif

/* The same for ARKStep (implicit methods). */
#if CHS_SUNDIALS_AT_LEAST(7, 1)
#define chs_ark_free ARKodeFree
#define chs_ark_sstolerances ARKodeSStolerances
#define chs_ark_set_fixed_step ARKodeSetFixedStep
#define chs_ark_set_stop_time ARKodeSetStopTime
#define chs_ark_set_user_data ARKodeSetUserData
#define chs_ark_set_max_num_steps ARKodeSetMaxNumSteps
#define chs_ark_set_linear_solver ARKodeSetLinearSolver
#define chs_ark_set_nonlin_conv_coef ARKodeSetNonlinConvCoef
#define chs_ark_set_max_nonlin_iters ARKodeSetMaxNonlinIters
#define chs_ark_evolve ARKodeEvolve
#define chs_ark_get_num_steps ARKodeGetNumSteps
#define chs_ark_get_num_jac_evals ARKodeGetNumJacEvals
#define chs_ark_get_num_nonlin_iters ARKodeGetNumNonlinSolvIters
#define chs_ark_get_return_flag_name ARKodeGetReturnFlagName
#define chs_ark_set_postprocess ARKodeSetPostprocessStepFn
#else
#define chs_ark_free ARKStepFree
#define chs_ark_sstolerances ARKStepSStolerances
#define chs_ark_set_fixed_step ARKStepSetFixedStep
#define chs_ark_set_stop_time ARKStepSetStopTime
#define chs_ark_set_user_data ARKStepSetUserData
#define chs_ark_set_max_num_steps ARKStepSetMaxNumSteps
#define chs_ark_set_linear_solver ARKStepSetLinearSolver
#define chs_ark_set_nonlin_conv_coef ARKStepSetNonlinConvCoef
#define chs_ark_set_max_nonlin_iters ARKStepSetMaxNonlinIters
#define chs_ark_evolve ARKStepEvolve
#define chs_ark_get_num_steps ARKStepGetNumSteps
#define chs_ark_get_num_jac_evals ARKStepGetNumJacEvals
#define chs_ark_get_num_nonlin_iters ARKStepGetNumNonlinSolvIters
#define chs_ark_get_return_flag_name ARKStepGetReturnFlagName
#define chs_ark_set_postprocess ARKStepSetPostprocessStepFn
#endif
#if CHS_SUNDIALS_AT_LEAST(7, 2)
static inline int chs_ark_get_num_rhs_evals(void *mem, long *nfi) {
  return ARKodeGetNumRhsEvals(mem, 1, nfi);
}
#else
static inline int chs_ark_get_num_rhs_evals(void *mem, long *nfi) {
  long nfe = 0;
  return ARKStepGetNumRhsEvals(mem, &nfe, nfi);
}
#endif

/* ERKStepGetNumRhsEvals is deprecated in 7.2 for ARKodeGetNumRhsEvals. */
#if CHS_SUNDIALS_AT_LEAST(7, 2)
static inline int chs_erk_get_num_rhs_evals(void *mem, long *nfe) {
  return ARKodeGetNumRhsEvals(mem, 0, nfe);
}
#else
static inline int chs_erk_get_num_rhs_evals(void *mem, long *nfe) {
  return ERKStepGetNumRhsEvals(mem, nfe);
}
#endif

/* SUNDIALS 6.4.1 ERKStep reuses the last stage's RHS as f(t_{n+1}, y_{n+1}) whenever
 * c[s-1] == 1, also for methods that are not first-same-as-last (erkStep_FullRHS, mode
 * ARK_FULLRHS_END): classical RK4 then degrades to order 3 with 3 evaluations per step, Verner
 * 8(5,6) loses its order too. With a post-process-step function set, ARKODE calls the full RHS in
 * ARK_FULLRHS_START mode, which always evaluates f. SUNDIALS 7 checks the coefficients. Call
 * after setting table B on an ERKStep memory; returns the ARKODE flag. */
#if CHS_SUNDIALS_AT_LEAST(7, 0)
static inline int chs_erk_fix_last_stage_reuse(void *arkode, ARKodeButcherTable B) {
  (void)arkode;
  (void)B;
  return 0;
}
#else
static inline int chs_erk_noop_postprocess(sunrealtype t, N_Vector y, void *data) {
  (void)t;
  (void)y;
  (void)data;
  return 0;
}

static inline int chs_erk_fix_last_stage_reuse(void *arkode, ARKodeButcherTable B) {
  int s = B->stages;
  if (B->c[s - 1] != 1) {
    return 0;
  }
  for (int j = 0; j < s; j++) {
    if (B->A[s - 1][j] != B->b[j]) {
      return ERKStepSetPostprocessStepFn(arkode, chs_erk_noop_postprocess);
    }
  }
  return 0;
}
#endif

/* SPRKStep (symplectic partitioned RK) exists from SUNDIALS 6.6; its stepper-specific setters are
 * deprecated in 7.1 for the shared ARKode* functions. */
#define CHS_HAVE_SPRKSTEP CHS_SUNDIALS_AT_LEAST(6, 6)
#if CHS_HAVE_SPRKSTEP
#include <arkode/arkode_sprkstep.h>
#endif
#if CHS_SUNDIALS_AT_LEAST(7, 1)
#define chs_sprk_free ARKodeFree
#define chs_sprk_set_fixed_step ARKodeSetFixedStep
#define chs_sprk_set_stop_time ARKodeSetStopTime
#define chs_sprk_set_user_data ARKodeSetUserData
#define chs_sprk_set_max_num_steps ARKodeSetMaxNumSteps
#define chs_sprk_evolve ARKodeEvolve
#define chs_sprk_get_num_steps ARKodeGetNumSteps
#define chs_sprk_get_return_flag_name ARKodeGetReturnFlagName
#elif CHS_HAVE_SPRKSTEP
#define chs_sprk_free SPRKStepFree
#define chs_sprk_set_fixed_step SPRKStepSetFixedStep
#define chs_sprk_set_stop_time SPRKStepSetStopTime
#define chs_sprk_set_user_data SPRKStepSetUserData
#define chs_sprk_set_max_num_steps SPRKStepSetMaxNumSteps
#define chs_sprk_evolve SPRKStepEvolve
#define chs_sprk_get_num_steps SPRKStepGetNumSteps
#define chs_sprk_get_return_flag_name SPRKStepGetReturnFlagName
#endif

#endif
