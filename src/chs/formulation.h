/** @file
 * Formulations: the equations of motion of a problem as a first-order ODE y' = f(t, y).
 *
 * A formulation binds a problem and owns the workspace its right-hand side needs (Gram matrix
 * solver, scratch vectors, counters). CHSFormulation_Rhs has the signature of ARKRhsFn and CVRhsFn
 * with user_data = the formulation, so any ARKODE or CVODE program can integrate it:
 *
 *   ERKStepCreate(CHSFormulation_Rhs, t0, y0, sunctx);  ... SetUserData(mem, form);
 *
 * The state y is an N_Vector that supports N_VGetArrayPointer (serial, OpenMP, pthreads).
 * CHSFormulation_ToPhysical maps it back to (q, p) for diagnostics. */
#ifndef CHS_FORMULATION_H
#define CHS_FORMULATION_H

#include "chs/export.h"

#include <sundials/sundials_context.h>
#include <sundials/sundials_nvector.h>
#include "chs/error.h"
#include "chs/problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A problem bound to a formulation, with the workspace and counters of its right-hand side. */
typedef struct CHSFormulation_ *CHSFormulation;

/** @name Capability flags (CHSFormulationOps.flags)
 * @{ */
#define CHS_FORM_ODE 0x1u       /**< an ODE right-hand side */
#define CHS_FORM_KEEPS_G 0x2u   /**< g is a first integral of the exact flow */
#define CHS_FORM_KEEPS_PSI 0x4u /**< psi = G M^{-1} p is a first integral of the exact flow */
#define CHS_FORM_DAE 0x8u       /**< a residual F(t, y, y') = 0 with algebraic components (IDA) */
/** The field is built from the Hamiltonian H itself (its gradient, or derivatives of multipliers
 * that assume F = -grad V): refuses problems with a non-conservative force (CHS_ERR_UNSUPPORTED).
 */
#define CHS_FORM_NEEDS_HAMILTONIAN 0x10u
/** Accepts a kinetic energy with a configuration-dependent scale sigma(q) (CHSProblemOps
 * .kinetic_scale); every other formulation refuses such a problem (CHS_ERR_UNSUPPORTED). */
#define CHS_FORM_KINETIC_SCALE 0x20u
/** Accepts a configuration-dependent mass matrix M(q) (CHS_MASS_CONFIG), resp. explicit time
 * dependence (CHSProblemDims.time_dependent): docs/mechanics.md. Every other formulation refuses
 * such a problem (CHS_ERR_UNSUPPORTED naming the formulation and the property). */
#define CHS_FORM_MASS_CONFIG 0x40u
#define CHS_FORM_TIME 0x80u /**< accepts explicit time dependence (see CHS_FORM_MASS_CONFIG) */
/** @} */

/** @name What the library builds from the formulation's equations (CHSFormulationOps.flags)
 * A table that sets these claims that its equations are the ones named: the library then builds
 * on them instead of the table's callbacks (the sparse DAE Jacobian of IDA's ls=klu and its Krylov
 * preconditioner, IDA's error weights, the distributed field under MPI). A table without them
 * gets the generic paths (dense or difference-quotient Jacobians, serial runs).
 * @{ */
/** CHS_FORM_DAE with one of chs' residuals of the constrained equations of motion (formulations
 * /dae_common.h), index k = 1, 2 or 3 in bits 8-9: CHS_FORM_DAE_INDEX(k). The index fixes the
 * state layout: y = (q, p, lambda), lambda at 2n (k = 1: q' = v, p' = F - G^T lambda with the
 * acceleration constraint; k = 3: with g = 0), or y = (q, p, lambda, mu), lambda at 2n and mu at
 * 2n + m (k = 2: Gear-Gupta-Leimkuhler, g = 0 and psi = 0). */
#define CHS_FORM_DAE_INDEX(k) (((unsigned)(k)&3u) << 8)
/** The DAE index k of CHS_FORM_DAE_INDEX(k) in flags; 0 for none. */
#define CHS_FORM_DAE_INDEX_OF(flags) (((flags) >> 8) & 3u)
/** The analytic jacobian uses hess V (CHSProblemOps.hessian_potential): it applies only to
 * problems that supply it or declare V at most linear (CHSFormulation_HasJacobian). */
#define CHS_FORM_JAC_HESSIAN 0x400u
/** The analytic jacobian uses the third derivatives of g (CHSProblemOps.constraint_third): it
 * applies only to problems that supply them or declare g at most quadratic. */
#define CHS_FORM_JAC_THIRD 0x800u
/** An ODE on y = (q, p) whose field is the standard one, q' = v, p' = F - G^T lambda with
 * lambda = Q^{-1} (Gdot v + G M^{-1} F) (formulations/standard.c): CHSMPI_Run evaluates it
 * distributed on bond chains (chs/mpi.h). */
#define CHS_FORM_MPI_STANDARD 0x1000u
/** An ODE on y = (q, p) whose field is the Hamilton-Dirac one (formulations/dirac.c):
 * CHSMPI_Run evaluates it distributed on bond chains. */
#define CHS_FORM_MPI_DIRAC 0x2000u
/** @} */

/** A formulation: its name, flags and callbacks (one const table per formulation). */
typedef struct CHSFormulationOps {
  const char *name;    /**< registry name, e.g. "dirac" */
  const char *summary; /**< one line for `chs list formulations` */
  const char *source;  /**< paper and equations, e.g. "[Seiler, Dirac] (31), (35)" */
  unsigned flags;      /**< CHS_FORM_* capability flags */
  /** State size for a problem with n coordinates and m constraints; NULL: 2n, y = (q, p). */
  sunindextype (*state_size)(sunindextype n, sunindextype m);
  /** Optional: read parameters ("baumgarte:alpha=2" passes alpha=2; every key must be read, see
   * CHSParams) and allocate private workspace (CHSFormulation_SetPrivate). A formulation without
   * init accepts no parameters. */
  int (*init)(CHSFormulation f, CHSParams params, CHSError *err);
  void (*free)(CHSFormulation f); /**< optional: free the private workspace of init */
  /** ydot = f(t, y); 0, > 0 recoverable (message via CHSFormulation_SetFailure), < 0 fatal. */
  int (*rhs)(CHSFormulation f, sunrealtype t, const sunrealtype *y, sunrealtype *ydot);
  /** Physical (q, p) from the state and back. NULL means y = (q, p). */
  int (*to_physical)(CHSFormulation f, const sunrealtype *y, sunrealtype *q, sunrealtype *p);
  /** The state y of the physical (q, p) (the inverse of to_physical). NULL means y = (q, p). */
  int (*from_physical)(CHSFormulation f, const sunrealtype *q, const sunrealtype *p,
                       sunrealtype *y);
  /** DAE formulations (CHS_FORM_DAE): the residual F(t, y, y') (0, > 0 recoverable, < 0 fatal),
   * a consistent y' for a consistent y, and the component kinds (id[i] = 1 differential,
   * 0 algebraic). ODE formulations have none of these; IDA then solves y' - f(t, y) = 0. */
  int (*residual)(CHSFormulation f, sunrealtype t, const sunrealtype *y, const sunrealtype *yp,
                  sunrealtype *res);
  /** DAE formulations: a consistent y' for a consistent y. */
  int (*initial_derivative)(CHSFormulation f, const sunrealtype *y, sunrealtype *yp);
  /** DAE formulations: id[i] = 1 for differential, 0 for algebraic components. */
  void (*component_ids)(CHSFormulation f, sunrealtype *id);
  /** Optional, for formulations in local coordinates (charts): called between steps; returns 1
   * after rewriting y in new coordinates (the integrator is then restarted), 0 when y stays,
   * < 0 on failure. */
  int (*rechart)(CHSFormulation f, sunrealtype t, sunrealtype *y);
  /** Optional analytic Jacobian, dense column-major (J[i + j * size] = d out_i / d y_j): for ODE
   * formulations df/dy at (t, y) (yp NULL, cj unused); for DAE formulations the residual's
   * dF/dy + cj dF/dy' at (t, y, yp). 0, > 0 recoverable, < 0 fatal. */
  int (*jacobian)(CHSFormulation f, sunrealtype t, const sunrealtype *y, const sunrealtype *yp,
                  sunrealtype cj, sunrealtype *J);
  /** Optional: why adaptive runs of this formulation do not deliver their tolerance, as measured
   * (`chs bench calibrate`, docs/calibration.md). CHSRun then gives it as a warning with every
   * adaptive run (chs/run.h "Warnings"). NULL: no such measurement. */
  const char *uncalibrated;
} CHSFormulationOps;

/** Create from "name[:k=v,...]" in the registry, for a problem that outlives the formulation. */
CHS_EXPORT int CHSFormulation_Create(const char *spec, CHSProblem prob, SUNContext sunctx,
                                     CHSFormulation *out, CHSError *err);
/** From any ops table (e.g. one a user program defines) and a parameter string, for a problem
 * that outlives the formulation. */
CHS_EXPORT int CHSFormulation_CreateFromOps(const CHSFormulationOps *ops, const char *params,
                                            CHSProblem prob, SUNContext sunctx, CHSFormulation *out,
                                            CHSError *err);
/** Free the formulation (detaching its projector) and set *f to NULL; NULL allowed. */
CHS_EXPORT void CHSFormulation_Destroy(CHSFormulation *f);

/** IDAResFn; user_data must be the CHSFormulation. For ODE formulations, y' - f(t, y). */
CHS_EXPORT int CHSFormulation_Residual(sunrealtype t, N_Vector y, N_Vector yp, N_Vector res,
                                       void *user_data);
/** y' consistent with y (DAE: from the formulation; ODE: f(t, y)). */
CHS_EXPORT int CHSFormulation_InitialDerivative(CHSFormulation f, N_Vector y, N_Vector yp);
/** id[i] = 1 for differential, 0 for algebraic components (all 1 for ODE formulations). */
CHS_EXPORT void CHSFormulation_ComponentIds(CHSFormulation f, N_Vector id);

/** 1 when the formulation has an analytic Jacobian that applies to its problem (conservative,
 * supplying the derivatives it needs), 0 otherwise. The Jacobians themselves, analytic or by
 * differences, into a dense, band or sparse SUNMatrix: CHSFormulation_JacobianSetup,
 * CHSFormulation_Jac, CHSFormulation_ResidualJac and their SUNDIALS callbacks CHSFormulation_JacFn
 * and CHSFormulation_ResidualJacFn (chs/sundials.h). */
CHS_EXPORT int CHSFormulation_HasJacobian(CHSFormulation f);
/** Deprecated (kept for one release): the analytic df/dy into a dense column-major array, or
 * CHS_ERR_UNSUPPORTED without one. Use CHSFormulation_Jac with a SUNDenseMatrix (its data is the
 * same column-major array) after checking CHSFormulation_HasJacobian. */
CHS_EXPORT int CHSFormulation_RhsJacobian(CHSFormulation f, sunrealtype t, N_Vector y,
                                          sunrealtype *J)
    CHS_DEPRECATED("use CHSFormulation_Jac with a SUNDenseMatrix");
/** Deprecated (kept for one release): the analytic dF/dy + cj dF/dy' (ODE formulations:
 * cj I - df/dy) into a dense column-major array. Use CHSFormulation_ResidualJac with a
 * SUNDenseMatrix after checking CHSFormulation_HasJacobian. */
CHS_EXPORT int CHSFormulation_ResidualJacobian(CHSFormulation f, sunrealtype t, sunrealtype cj,
                                               N_Vector y, N_Vector yp, sunrealtype *J)
    CHS_DEPRECATED("use CHSFormulation_ResidualJac with a SUNDenseMatrix");

/** ARKRhsFn / CVRhsFn; user_data must be the CHSFormulation. */
CHS_EXPORT int CHSFormulation_Rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user_data);

/** The length of the state y (2n for y = (q, p)). */
CHS_EXPORT sunindextype CHSFormulation_GetStateSize(CHSFormulation f);
/** New serial N_Vector holding the problem's consistent initial state in this formulation. */
CHS_EXPORT int CHSFormulation_NewInitialState(CHSFormulation f, N_Vector *y0, CHSError *err);
/** The physical (q, p) (length n each) of the state y. */
CHS_EXPORT int CHSFormulation_ToPhysical(CHSFormulation f, N_Vector y, sunrealtype *q,
                                         sunrealtype *p);
/** The state y of the physical (q, p). */
CHS_EXPORT int CHSFormulation_FromPhysical(CHSFormulation f, const sunrealtype *q,
                                           const sunrealtype *p, N_Vector y);
/** The multipliers lambda (m values) of the constraint force -G(q)^T lambda at time t and the
 * state y, and, when reaction is not NULL, that force R = -G(q)^T lambda (n values): the term of
 * p' = F - G^T lambda (docs/mechanics.md).
 *  - ODE formulations (every formulation without a DAE index): lambda = Q^{-1} r at the state's
 *    physical (q, p) (CHSFormulation_ToPhysical), Q = G M^{-1} G^T and r = Gdot(q, v) v + G a
 *    (a = M^{-1} F, with M(q) and time dependence as in docs/mechanics.md): the lambda of the
 *    standard field, the multiplier of the constrained motion through (q, p). Formulations whose
 *    fields use other multipliers (baumgarte's stabilisation, dirac's correction, the extended
 *    and total Hamiltonians' extra ones) give this physical one, not theirs.
 *  - DAE formulations (CHS_FORM_DAE_INDEX: dae-index3, dae-ggl, dae-index1): the lambda the state
 *    carries at 2n, which is the physical multiplier itself (not an integral or a scaled one);
 *    GGL's mu is not a force (it is 0 along exact solutions) and is not returned. dae-index3 keeps
 *    lambda out of IDA's error test, so its accuracy is that of the index-3 solution: in IDA's
 *    first steps it is off by O(1) (slider-crank at tol 1e-9: lambda_1 from -127 to 61 during
 *    the first 3e-8 s, where it is 10.66), after them within the other DAEs' accuracy.
 * One Gram factorisation per call, in a workspace of its own made at the first call: the
 * formulation's right-hand side is not disturbed (and its counters do not count it). 0;
 * CHS_ERR_UNSUPPORTED for a problem with a kinetic scale sigma(q) (its constraint force is not
 * -G^T Q^{-1} r); CHS_ERR_SOLVER (singular or overflowing Q, or a callback outside its domain),
 * CHS_ERR_CALLBACK or CHS_ERR_NONFINITE, naming the formulation and t. */
CHS_EXPORT int CHSFormulation_GetMultipliers(CHSFormulation f, sunrealtype t, N_Vector y,
                                             sunrealtype *lambda, sunrealtype *reaction,
                                             CHSError *err);

/** The formulation's ops table. */
CHS_EXPORT const CHSFormulationOps *CHSFormulation_GetOps(CHSFormulation f);
/** The problem the formulation is bound to. */
CHS_EXPORT CHSProblem CHSFormulation_GetProblem(CHSFormulation f);
/** The SUNContext the formulation was created with. */
CHS_EXPORT SUNContext CHSFormulation_GetContext(CHSFormulation f);
/** Right-hand side evaluations since creation or the last CHSFormulation_ResetCounters. */
CHS_EXPORT long CHSFormulation_GetNumRhsEvals(CHSFormulation f);
/** Factorisations of the Gram matrix since creation or the last CHSFormulation_ResetCounters. */
CHS_EXPORT long CHSFormulation_GetNumGramFactorizations(CHSFormulation f);
/** Number of coordinate changes (charts) so far; 0 for formulations without charts. */
CHS_EXPORT long CHSFormulation_GetNumRecharts(CHSFormulation f);
/** Give a charted formulation the chance to change coordinates at (t, y); 1 if it did. */
CHS_EXPORT int CHSFormulation_Rechart(CHSFormulation f, sunrealtype t, N_Vector y);
/** The reason of the last failed RHS evaluation (empty when none). */
CHS_EXPORT const CHSError *CHSFormulation_GetLastFailure(CHSFormulation f);
/** Zero the RHS and Gram factorisation counters and clear the last failure. */
CHS_EXPORT void CHSFormulation_ResetCounters(CHSFormulation f);

/* For formulation implementations. */
/** The private workspace set by CHSFormulation_SetPrivate (NULL before). */
CHS_EXPORT void *CHSFormulation_GetPrivate(CHSFormulation f);
/** Store the formulation's private workspace (its ops' init allocates it, free releases it). */
CHS_EXPORT void CHSFormulation_SetPrivate(CHSFormulation f, void *priv);
/** Record why an RHS failed; returns code. */
CHS_EXPORT int CHSFormulation_SetFailure(CHSFormulation f, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Registry of built-in formulations. */
/** Number of built-in formulations. */
CHS_EXPORT int CHSFormulationRegistry_Count(void);
/** The i-th built-in formulation, NULL when i is out of range. */
CHS_EXPORT const CHSFormulationOps *CHSFormulationRegistry_Get(int i);
/** The built-in formulation of that name, NULL when there is none. */
CHS_EXPORT const CHSFormulationOps *CHSFormulationRegistry_Find(const char *name);

#ifdef __cplusplus
}
#endif
#endif
