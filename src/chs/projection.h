/** @file
 * Projections onto the constraint manifold as post-step hooks ([Seiler, Dirac] (66)-(69), [Seiler,
 * stable] Sec. 7-8, [Leimkuhler & Reich] Sec. 4).
 *
 *   momentum: p <- p - G^T Q^{-1} (G M^{-1} p + g_t), the M^{-1}-orthogonal projection onto
 *             psi = 0 (M = M(q) and g_t at (q, t) for problems with M(q) or time dependence:
 *             docs/mechanics.md "Projections")
 *             (one solve with the factored Q; canonical, changes H only at second order in psi);
 *   position: q <- q + dq with dq M-minimal and g(q + dq) = 0, by simplified Newton with the
 *             Jacobian frozen at the unprojected q ([Seiler, Dirac] (67)): dq_{k+1} = dq_k -
 *             M^{-1} G^T Q^{-1} g(q + dq_k), until |g| is at round-off, or the correction is,
 *             or the contraction of the last two corrections bounds the rest below it (at most 50
 *             iterations);
 *   both:     position first, then momentum at the corrected q ([Seiler, Dirac] Sec. 11).
 * Each kind is applied only when its residual |g|_2 or |psi|_2 exceeds the tolerance (0: always)
 * and, optionally, only every k-th call ([Leimkuhler & Reich] Fig. 4.5); applications are counted.
 *
 * Formulations whose state is (q, p) (standard, dirac, extended, total, baumgarte) support
 * projection. A projector is attached to its formulation, so that ARKODE's post-process-step
 * hook, which receives ARKODE's user_data (the formulation), finds it:
 *
 *   CHSProjector_Create(form, CHS_PROJECT_MOMENTUM, 1e-6, &proj, &err);   (attaches)
 *   ERKStepSetPostprocessStepFn(arkode_mem, CHSProjector_ARKPostprocess);  (ARKodeSet... on 7.1)
 */
#ifndef CHS_PROJECTION_H
#define CHS_PROJECTION_H

#include "chs/export.h"

#include <sundials/sundials_nvector.h>
#include "chs/error.h"
#include "chs/formulation.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CHS_PROJECT_NONE 0     /**< no projection */
#define CHS_PROJECT_MOMENTUM 1 /**< project the momenta onto psi = 0 */
#define CHS_PROJECT_POSITION 2 /**< project the positions onto g = 0 */
#define CHS_PROJECT_BOTH 3     /**< positions first, then momenta */

/** A projection onto the constraint manifold, attached to a formulation. */
typedef struct CHSProjector_ *CHSProjector;

/** kind: CHS_PROJECT_*; tol >= 0. Attaches the projector to f (one per formulation). */
CHS_EXPORT int CHSProjector_Create(CHSFormulation f, int kind, sunrealtype tol, CHSProjector *out,
                                   CHSError *err);
/** Detach the projector from its formulation, free it and set *proj to NULL; NULL allowed. */
CHS_EXPORT void CHSProjector_Destroy(CHSProjector *proj);
/** Stop the position Newton iteration once |g|_2 <= tol ([Seiler, Dirac] (67) stops at the
 * projection tolerance); 0 (default): iterate to round-off. */
CHS_EXPORT int CHSProjector_SetNewtonTol(CHSProjector proj, sunrealtype tol);
/** Only every k-th call projects (k >= 1, default 1). */
CHS_EXPORT int CHSProjector_SetEvery(CHSProjector proj, long k);
/** Project the state y in place; 0, or > 0 when the position Newton iteration failed (the state is
 * then unchanged), < 0 on a fatal error. */
CHS_EXPORT int CHSProjector_Apply(CHSProjector proj, sunrealtype t, N_Vector y);
/** ARKPostProcessFn: user_data is the formulation the projector is attached to. */
CHS_EXPORT int CHSProjector_ARKPostprocess(sunrealtype t, N_Vector y, void *user_data);
/** CVProjFn for CVodeSetProjFn (user_data: the formulation): corr = P(ycur) - ycur, and the error
 * estimate err, when CVODE passes one, replaced by its projection onto the tangent space. */
CHS_EXPORT int CHSProjector_CVodeProjFn(sunrealtype t, N_Vector ycur, N_Vector corr,
                                        sunrealtype eps_proj, N_Vector err, void *user_data);
/** The projector attached to a formulation, or NULL. */
CHS_EXPORT CHSProjector CHSFormulation_GetProjector(CHSFormulation f);

/** Position projections applied so far. */
CHS_EXPORT long CHSProjector_GetNumPosition(CHSProjector proj);
/** Momentum projections applied so far. */
CHS_EXPORT long CHSProjector_GetNumMomentum(CHSProjector proj);
/** Position Newton iterations so far. */
CHS_EXPORT long CHSProjector_GetNumNewtonIters(CHSProjector proj);

/** "momentum", "position", "both" -> CHS_PROJECT_*; CHS_ERR_NOTFOUND (< 0) for anything else. */
CHS_EXPORT int CHSProjector_KindFromName(const char *name);

#ifdef __cplusplus
}
#endif
#endif
