/** @file
 * SUNDIALS glue for programs that keep their own user_data (docs/sundials.md).
 *
 * The adapters CHSFormulation_Rhs, CHSFormulation_Residual, CHSProjector_ARKPostprocess and
 * CHSProjector_CVodeProjFn take the formulation as SUNDIALS' user_data. A program whose
 * user_data is its own structure calls the functions below from its own callbacks instead, with
 * the formulation (or projector) it keeps in that structure:
 *
 *   static int my_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user_data) {
 *     struct my_data *d = user_data;
 *     return CHSFormulation_Eval(d->form, t, y, ydot);   (plus the program's own terms)
 *   }
 *
 * Return codes follow SUNDIALS' callback convention: 0, > 0 recoverable, < 0 fatal; the reason of a
 * failure is CHSFormulation_GetLastFailure(f). */
#ifndef CHS_SUNDIALS_H
#define CHS_SUNDIALS_H

#include <arkode/arkode_butcher.h>
#include <sundials/sundials_matrix.h>
#include <sundials/sundials_nvector.h>
#include "chs/export.h"
#include "chs/formulation.h"
#include "chs/projection.h"

#ifdef __cplusplus
extern "C" {
#endif

/** ydot = f(t, y) of an ODE formulation (what CHSFormulation_Rhs computes). */
CHS_EXPORT int CHSFormulation_Eval(CHSFormulation f, sunrealtype t, N_Vector y, N_Vector ydot);
/** res = F(t, y, y') of a DAE formulation, or y' - f(t, y) of an ODE one (CHSFormulation_Residual).
 */
CHS_EXPORT int CHSFormulation_EvalResidual(CHSFormulation f, sunrealtype t, N_Vector y, N_Vector yp,
                                           N_Vector res);

/** CVODE's projection (CVProjFn) with an explicit projector, for a caller's own CVProjFn:
 * corr = P(ycur) - ycur and, when err is not NULL, err replaced by its projection onto the tangent
 * space of the manifold. CHSProjector_CVodeProjFn (user_data = the formulation) fails with a
 * negative code and a failure message when no projector is attached to the formulation: it never
 * silently does nothing. */
CHS_EXPORT int CHSProjector_CVodeProject(CHSProjector proj, sunrealtype t, N_Vector ycur,
                                         N_Vector corr, N_Vector err);

/** @name IDA's error weights on a DAE formulation (docs/sundials.md "IDA: error weights")
 * IDA weighs each component of the state (q, p, multipliers) in its local error test and in its
 * Newton convergence test by w_i. CHSFormulation_IDAErrorWeights gives the weights for step size
 * h: w_i = h^(k_i - 1) / (rtol |y_i| + atol), k_i the component's index (1: positions and the
 * differential momenta, and the index-1 form's multipliers; 2: the index-3 form's momenta, GGL's
 * multipliers; 3: the index-3 form's multipliers), the scaling of Hairer & Wanner's index-3 codes.
 * The algebraic components (CHSFormulation_ComponentIds = 0) then enter IDA's Newton test at the
 * positions' scale; exclude them from its error test with IDASetId and IDASetSuppressAlg.
 * @{ */
/** ewt for IDA's next step of size h (IDAGetCurrentStep; h = 0 before the first step: estimated
 * as IDA does, from y'). For a program whose IDA user_data is its own structure: call it from
 * its own IDAEwtFn (IDAWFtolerances). y and ewt have the formulation's state size. */
CHS_EXPORT int CHSFormulation_IDAErrorWeights(CHSFormulation f, sunrealtype rtol, sunrealtype atol,
                                              sunrealtype h, N_Vector y, N_Vector ewt);
/** IDAWFtolerances on ida_mem with these weights; IDA's user_data must be the formulation. The
 * formulation remembers ida_mem (one IDA at a time). */
CHS_EXPORT int CHSFormulation_IDASetTolerances(CHSFormulation f, void *ida_mem, sunrealtype rtol,
                                               sunrealtype atol);
/** atol on every component of atol_vec (IDASVtolerances): the real tolerances, without the step
 * size scaling. With them IDA's Newton test holds the index-3 form's multipliers to atol, below
 * their round-off at tight tolerances: prefer CHSFormulation_IDASetTolerances. atol_vec must have
 * the formulation's state size. */
CHS_EXPORT int CHSFormulation_IDATolerances(CHSFormulation f, sunrealtype atol, N_Vector atol_vec);
/** Not used by chs any more: floors of absolute tolerance once put on the multipliers and the
 * index-3 form's momenta, which took them out of IDA's Newton test. Kept for source
 * compatibility. */
#define CHS_IDA_ALGEBRAIC_ATOL 1e6
#define CHS_IDA_MOMENTUM_ATOL 1.0 /**< see CHS_IDA_ALGEBRAIC_ATOL */
/** @} */

/** @name Jacobians for SUNDIALS' matrix-based linear solvers
 * The formulation's Jacobian into a dense, band or CSC sparse SUNMatrix, for CVODE and ARKODE
 * (CVLsJacFn, ARKLsJacFn: J = df/dy) and IDA (IDALsJacFn: J = dF/dy + cj dF/dy'). Analytic when
 * the formulation has one for its problem (CHSFormulation_HasJacobian), otherwise forward
 * differences (one evaluation per column). The sparsity pattern (and the band widths) is found
 * once, by CHSFormulation_JacobianSetup, from the Jacobian at the initial state and two random
 * perturbations of it; an entry outside it later is a recoverable failure naming the entry. The
 * Jacobian is assembled densely first: state sizes up to 8000 (chs's own `ida:ls=klu` assembles the
 * DAE formulations' Jacobians sparse, for any size).
 *
 * A program with its own user_data calls CHSFormulation_Jac / CHSFormulation_ResidualJac from its
 * own Jacobian function; CHSFormulation_JacFn / CHSFormulation_ResidualJacFn are the same
 * functions with the formulation as user_data, for CVodeSetJacFn / ARKStepSetJacFn / IDASetJacFn
 * directly. Return codes: 0, > 0 recoverable, < 0 fatal (bad matrix: wrong type, size, band
 * widths or too few nonzeros), with the reason in CHSFormulation_GetLastFailure(f).
 * @{ */
/** Set up the formulation's Jacobian at (y0, yp0) for CVODE/ARKODE (residual = 0, yp0 may be NULL)
 * or IDA (residual = 1) and report its shape: *nnz, the nonzeros for SUNSparseMatrix(N, N, nnz,
 * CSC_MAT, ctx), and *mu, *ml, the band widths for SUNBandMatrix(N, mu, ml, ctx) (each may be
 * NULL). Needed before creating a band or sparse matrix; for a dense one the first Jacobian call
 * does it at its own point. Replaces a Jacobian set up before (e.g. by a chs integrator on f). */
CHS_EXPORT int CHSFormulation_JacobianSetup(CHSFormulation f, int residual, N_Vector y0,
                                            N_Vector yp0, sunindextype *nnz, sunindextype *mu,
                                            sunindextype *ml, CHSError *err);
/** J = df/dy at (t, y) into J (dense, band or CSC sparse), for a caller's own CVLsJacFn /
 * ARKLsJacFn; fy and the tmp vectors are unused (may be NULL). */
CHS_EXPORT int CHSFormulation_Jac(CHSFormulation f, sunrealtype t, N_Vector y, N_Vector fy,
                                  SUNMatrix J, N_Vector tmp1, N_Vector tmp2, N_Vector tmp3);
/** J = dF/dy + cj dF/dy' of the residual at (t, y, yp) into J (dense, band or CSC sparse), for a
 * caller's own IDALsJacFn; r and the tmp vectors are unused (may be NULL). For an ODE formulation
 * the residual is y' - f(t, y). */
CHS_EXPORT int CHSFormulation_ResidualJac(CHSFormulation f, sunrealtype t, sunrealtype cj,
                                          N_Vector y, N_Vector yp, N_Vector r, SUNMatrix J,
                                          N_Vector tmp1, N_Vector tmp2, N_Vector tmp3);
/** CVLsJacFn / ARKLsJacFn with the formulation as user_data (CHSFormulation_Jac). */
CHS_EXPORT int CHSFormulation_JacFn(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J,
                                    void *user_data, N_Vector tmp1, N_Vector tmp2, N_Vector tmp3);
/** IDALsJacFn with the formulation as user_data (CHSFormulation_ResidualJac). */
CHS_EXPORT int CHSFormulation_ResidualJacFn(sunrealtype t, sunrealtype cj, N_Vector y, N_Vector yp,
                                            N_Vector r, SUNMatrix J, void *user_data, N_Vector tmp1,
                                            N_Vector tmp2, N_Vector tmp3);
/** @} */

/** SUNDIALS 6.4's ERKStep reuses the last stage as f(t_{n+1}, y_{n+1}) whenever c_s = 1, also for
 * tables that are not first-same-as-last (classical RK4, Verner 8(5,6)): they lose an order. Call
 * after ERKStepSetTable / ERKStepSetTableNum with the table in use; it sets a no-op post-process
 * function on 6.x for such tables (which makes ARKODE evaluate f at the new point) and does
 * nothing on SUNDIALS 7, which checks the coefficients. Returns ARKODE's flag. A program that sets
 * its own post-process function (CHSProjector_ARKPostprocess) needs no workaround. */
CHS_EXPORT int CHSERKStep_FixLastStageReuse(void *arkode_mem, ARKodeButcherTable table);

#ifdef __cplusplus
}
#endif
#endif
