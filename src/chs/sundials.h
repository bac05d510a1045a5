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
#include <sundials/sundials_nvector.h>
#include "chs/formulation.h"
#include "chs/projection.h"

#ifdef __cplusplus
extern "C" {
#endif

/** ydot = f(t, y) of an ODE formulation (what CHSFormulation_Rhs computes). */
int CHSFormulation_Eval(CHSFormulation f, sunrealtype t, N_Vector y, N_Vector ydot);
/** res = F(t, y, y') of a DAE formulation, or y' - f(t, y) of an ODE one (CHSFormulation_Residual).
 */
int CHSFormulation_EvalResidual(CHSFormulation f, sunrealtype t, N_Vector y, N_Vector yp,
                                N_Vector res);

/** CVODE's projection (CVProjFn) with an explicit projector, for a caller's own CVProjFn:
 * corr = P(ycur) - ycur and, when err is not NULL, err replaced by its projection onto the tangent
 * space of the manifold. CHSProjector_CVodeProjFn (user_data = the formulation) fails with a
 * negative code and a failure message when no projector is attached to the formulation: it never
 * silently does nothing. */
int CHSProjector_CVodeProject(CHSProjector proj, sunrealtype t, N_Vector ycur, N_Vector corr,
                              N_Vector err);

/** Absolute tolerances for IDA (IDASVtolerances) on the formulation's state (q, p, multipliers):
 * atol on the differential components; on the algebraic ones (CHSFormulation_ComponentIds = 0)
 * CHS_IDA_MOMENTUM_ATOL for momenta (the index-3 form's) and CHS_IDA_ALGEBRAIC_ATOL for the
 * multipliers, which takes them out of the error test in effect. The index-3 and GGL residuals
 * determine the multipliers only through the Newton iteration: testing their error makes IDA
 * reject its first steps and fail at t = 0 at tight tolerances (as SUNDIALS' own idaSlCrank_dns,
 * which tests them, does below tolerance 1e-9), while their error is controlled through the
 * positions and momenta they enforce; src/glue.c says how the two floors were measured.
 * atol_vec must have the formulation's state size. Call IDASetId with the component ids too. */
#define CHS_IDA_ALGEBRAIC_ATOL 1e6
#define CHS_IDA_MOMENTUM_ATOL 1.0 /**< absolute tolerance on algebraic momenta (see above) */
/** Fill atol_vec with the absolute tolerances described at CHS_IDA_ALGEBRAIC_ATOL. */
int CHSFormulation_IDATolerances(CHSFormulation f, sunrealtype atol, N_Vector atol_vec);

/** SUNDIALS 6.4's ERKStep reuses the last stage as f(t_{n+1}, y_{n+1}) whenever c_s = 1, also for
 * tables that are not first-same-as-last (classical RK4, Verner 8(5,6)): they lose an order. Call
 * after ERKStepSetTable / ERKStepSetTableNum with the table in use; it sets a no-op post-process
 * function on 6.x for such tables (which makes ARKODE evaluate f at the new point) and does
 * nothing on SUNDIALS 7, which checks the coefficients. Returns ARKODE's flag. A program that sets
 * its own post-process function (CHSProjector_ARKPostprocess) needs no workaround. */
int CHSERKStep_FixLastStageReuse(void *arkode_mem, ARKodeButcherTable table);

#ifdef __cplusplus
}
#endif
#endif
