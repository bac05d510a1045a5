/* The one place where SUNDIALS 6.x and 7.x differ for chs (private header).
 *
 * 7.0: SUNContext_Create takes a SUNComm (SUN_COMM_NULL); 6.x a void* (NULL).
 * 7.1: the stepper-specific ERKStep setters/getters are deprecated in favour of the shared
 *      ARKode* functions; with -Werror the deprecated names must not be used. */
#ifndef CHS_COMPAT_H
#define CHS_COMPAT_H

#include <sundials/sundials_config.h>
#include <sundials/sundials_context.h>
#include <arkode/arkode_erkstep.h>

#define CHS_SUNDIALS_AT_LEAST(maj, min)                                                         \
  (SUNDIALS_VERSION_MAJOR > (maj) ||                                                            \
   (SUNDIALS_VERSION_MAJOR == (maj) && SUNDIALS_VERSION_MINOR >= (min)))

#if CHS_SUNDIALS_AT_LEAST(7, 0)
#define CHS_COMM_NULL SUN_COMM_NULL
#else
#define CHS_COMM_NULL NULL
#endif

static inline int chs_context_create(SUNContext *ctx) {
  return SUNContext_Create(CHS_COMM_NULL, ctx);
}

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

#endif
