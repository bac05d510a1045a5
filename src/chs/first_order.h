/** @file
 * First-order Lagrangians ([Seiler, Faddeev-Jackiw] Sec. 2-5): systems whose Lagrangian is linear
 * in the velocities,
 *
 *   L(z, z') = a_i(z) z'^i - V(z),   z in R^d,
 *
 * with Euler-Lagrange equations ([Seiler, Faddeev-Jackiw] (2))
 *
 *   A(z) z' = grad V(z),   A_ij = da_j/dz_i - da_i/dz_j   (antisymmetric, [Seiler, Faddeev-Jackiw]
 * (3)).
 *
 * When A is invertible this is an ODE, and V is a first integral (dV/dt = grad V . z' =
 * z'^T A^T z' = 0). A singular A is a degenerate Lagrangian (an antisymmetric matrix of odd order
 * is always singular): its equations contain constraints, which the Faddeev-Jackiw / Barcelos-Neto
 * -Wotzasek construction ([Seiler, Faddeev-Jackiw] (9)-(11)) turns into an invertible A on an
 * extended space by adding multipliers lambda with the terms lambda phi'(z) z' to L.
 *
 * A first-order problem is a const table of callbacks on plain arrays (like CHSProblemOps), and
 * CHSFirstOrder is an instance of one. CHSFirstOrder_Rhs has the signature of ARKRhsFn and
 * CVRhsFn with user_data = the instance, so any ARKODE or CVODE program integrates it:
 *
 *   ERKStepCreate(CHSFirstOrder_Rhs, t0, z0, sunctx);  ... SetUserData(mem, fo);
 *
 * It assembles A(z), factors it by SUNDIALS' dense LU (SUNLinSol_Dense, every call) and solves
 * A z' = grad V. A numerically singular A makes it return CHS_RECOVERABLE (never NaN), with the
 * reason (code CHS_ERR_SINGULAR) in CHSFirstOrder_GetLastFailure. The state is an N_Vector that
 * supports N_VGetArrayPointer (serial, OpenMP, pthreads). An instance owns the matrix, solver
 * and scratch its right-hand side uses: one instance per concurrent integration. */
#ifndef CHS_FIRST_ORDER_H
#define CHS_FIRST_ORDER_H

#include "chs/export.h"

#include <sundials/sundials_context.h>
#include <sundials/sundials_nvector.h>
#include "chs/error.h"
#include "chs/params.h"
#include "chs/run.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A first-order problem: its name and callbacks (one const table per problem).
 * Callbacks return 0 on success, > 0 when z is outside their domain (recoverable), < 0 on a fatal
 * error. d is the dimension the create callback reported. */
typedef struct CHSFirstOrderOps {
  const char *name;       /**< registry name, e.g. "fj-example" */
  const char *summary;    /**< one line for `chs list problems` */
  const char *params_doc; /**< "key=default meaning; ..." */

  /** Create an instance from parameters; must call CHSParams_Get* for every key it accepts
   * (unknown keys are reported by the caller). Sets *dim = d >= 1. Required. */
  int (*create)(CHSParams params, void **data, sunindextype *dim, CHSError *err);
  void (*destroy)(void *data); /**< required */

  /** The one-form a(z) (length d). Required. */
  int (*one_form)(void *data, const sunrealtype *z, sunrealtype *a);
  /** Its Jacobian, d x d row-major: Da[i*d + j] = da_j / dz_i. Required. */
  int (*one_form_jacobian)(void *data, const sunrealtype *z, sunrealtype *Da);
  int (*potential)(void *data, const sunrealtype *z, sunrealtype *V); /**< required */
  int (*gradient)(void *data, const sunrealtype *z, sunrealtype *dV); /**< grad V, required */
  int (*initial_state)(void *data, sunrealtype *z);                   /**< required */
  int (*reference)(void *data, sunrealtype t, sunrealtype *z);        /**< optional exact z(t) */
} CHSFirstOrderOps;

/** An instance of a first-order problem with the workspace of its right-hand side. */
typedef struct CHSFirstOrder_ *CHSFirstOrder;

/** "name[:k=v,...]" from the built-in registry (problems/first_order/list.h). The SUNContext owns
 * the dense matrix and linear solver and must outlive the instance. */
CHS_EXPORT int CHSFirstOrder_Create(const char *spec, SUNContext sunctx, CHSFirstOrder *out,
                                    CHSError *err);
/** From any ops table (e.g. one a user program defines) and a parameter string. */
CHS_EXPORT int CHSFirstOrder_CreateFromOps(const CHSFirstOrderOps *ops, const char *params,
                                           SUNContext sunctx, CHSFirstOrder *out, CHSError *err);
/** Free the instance and set *fo to NULL; NULL allowed. */
CHS_EXPORT void CHSFirstOrder_Destroy(CHSFirstOrder *fo);

/** ARKRhsFn / CVRhsFn; user_data must be the CHSFirstOrder. zdot solves A(z) zdot = grad V(z).
 * 0; CHS_RECOVERABLE for a singular A or a callback outside its domain (reason in
 * CHSFirstOrder_GetLastFailure); < 0 for a fatal callback failure. */
CHS_EXPORT int CHSFirstOrder_Rhs(sunrealtype t, N_Vector z, N_Vector zdot, void *user_data);

/** A(z), d x d row-major: A[i*d + j] = da_j/dz_i - da_i/dz_j. */
CHS_EXPORT int CHSFirstOrder_Matrix(CHSFirstOrder fo, const sunrealtype *z, sunrealtype *A,
                                    CHSError *err);
/** The energy V(z) (a first integral of the equations when A is invertible). */
CHS_EXPORT int CHSFirstOrder_Energy(CHSFirstOrder fo, N_Vector z, sunrealtype *V, CHSError *err);
/** New serial N_Vector (in the instance's context) holding the initial state. */
CHS_EXPORT int CHSFirstOrder_NewInitialState(CHSFirstOrder fo, N_Vector *z0, CHSError *err);
/** The exact solution z(t) from t = 0 (CHS_ERR_UNSUPPORTED when the problem has none). */
CHS_EXPORT int CHSFirstOrder_Reference(CHSFirstOrder fo, sunrealtype t, N_Vector z, CHSError *err);
/** 1 when the problem has an exact solution (CHSFirstOrder_Reference), 0 otherwise. */
CHS_EXPORT int CHSFirstOrder_HasReference(CHSFirstOrder fo);

/** The dimension d of the state z. */
CHS_EXPORT sunindextype CHSFirstOrder_GetDim(CHSFirstOrder fo);
/** The ops table of the instance's problem. */
CHS_EXPORT const CHSFirstOrderOps *CHSFirstOrder_GetOps(CHSFirstOrder fo);
/** The problem's data (what its create callback allocated). */
CHS_EXPORT void *CHSFirstOrder_GetData(CHSFirstOrder fo);
/** The problem's registry name (ops->name). */
CHS_EXPORT const char *CHSFirstOrder_GetName(CHSFirstOrder fo);
/** The SUNContext the instance was created with. */
CHS_EXPORT SUNContext CHSFirstOrder_GetContext(CHSFirstOrder fo);
/** Right-hand side evaluations since creation or the last CHSFirstOrder_ResetCounters. */
CHS_EXPORT long CHSFirstOrder_GetNumRhsEvals(CHSFirstOrder fo);
/** The reason of the last failed RHS evaluation (code CHS_SUCCESS, empty message when none). */
CHS_EXPORT const CHSError *CHSFirstOrder_GetLastFailure(CHSFirstOrder fo);
/** Zero the RHS counter and clear the last failure. */
CHS_EXPORT void CHSFirstOrder_ResetCounters(CHSFirstOrder fo);

/** What CHSFirstOrder_Run reports. The run: one integration from the initial state at t = opt->t0
 * to opt->tf with an explicit Runge-Kutta method of ERKStep (opt->method "erk:<table>" as for
 * CHSRun; other families are CHS_ERR_UNSUPPORTED), fixed step opt->ctl.h or adaptive (rtol, atol).
 * Diagnostics after every step: the energy error |V - V0| / |V0| (absolute when V0 = 0) and, when
 * the problem has a reference, |z(t) - z_ref(t - t0)|_2. Projection options are CHS_ERR_UNSUPPORTED
 * (no constraints).
 */
typedef struct CHSFirstOrderSummary {
  int completed;       /**< 1 when opt->tf was reached */
  sunrealtype t_final; /**< time the run reached */
  /** @{ */
  /** Steps taken and right-hand side evaluations. */
  long steps, rhs_evals;
  /** @} */
  long err_test_fails; /**< -1 for a fixed step */
  sunrealtype V0;      /**< the energy V at the initial state */
  /** @{ */
  /** Largest and final energy error |V - V0| / |V0| (absolute when V0 = 0). */
  sunrealtype energy_err_max, energy_err_final;
  /** @} */
  int has_reference; /**< 1 when the problem has a reference (int_err_* are valid) */
  /** @{ */
  /** Largest and final |z(t) - z_ref(t - t0)|_2. */
  sunrealtype int_err_max, int_err_final;
  /** @} */
  double wall_s; /**< seconds inside ERKStep */
} CHSFirstOrderSummary;
/** Integrate as described at CHSFirstOrderSummary; sum is filled as far as the run got. */
CHS_EXPORT int CHSFirstOrder_Run(CHSFirstOrder fo, const CHSRunOptions *opt,
                                 CHSFirstOrderSummary *sum, CHSError *err);

/* Registry of built-in first-order problems. */
/** Number of built-in first-order problems. */
CHS_EXPORT int CHSFirstOrderRegistry_Count(void);
/** The i-th built-in first-order problem, NULL when i is out of range. */
CHS_EXPORT const CHSFirstOrderOps *CHSFirstOrderRegistry_Get(int i);
/** The built-in first-order problem of that name, NULL when there is none. */
CHS_EXPORT const CHSFirstOrderOps *CHSFirstOrderRegistry_Find(const char *name);

#ifdef __cplusplus
}
#endif
#endif
