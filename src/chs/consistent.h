/** @file
 * Consistent initial states that hold chosen components (chs run --fix).
 *
 * Start from the state the model states (CHSProblem_InitialGuess), overwrite the components the
 * user wants, then CHSProblem_ConsistentState moves only the free components onto
 *   g(q, t0) = 0   and   G(q) v + g_t(q, t0) = 0,
 * holding the fixed ones bitwise:
 *  - positions: Gauss-Newton over the free coordinates, each step the minimum-norm solution
 *    dq_F = G_F^+ g (LAPACK dgelss), iterated to round-off;
 *  - velocities: the Euclidean projection over the free components, v_F <- v_F - G_F^+ (G v +
 *    g_t), i.e. the smallest change |dv_F|_2 (not the M-orthogonal one: with held components the
 *    kinetic metric of the free block alone has no physical meaning, and the Euclidean one keeps
 *    each free velocity as close as possible to what was asked). Velocities whose residual is at
 *    round-off already are not touched at all.
 * Finally p = M(q) v. The fixed sets are arrays of n flags; CHSProblem_Fix names them in a spec
 * (`chs run --fix`). */
#ifndef CHS_CONSISTENT_H
#define CHS_CONSISTENT_H

#include "chs/export.h"

#include <sundials/sundials_types.h>
#include "chs/error.h"
#include "chs/problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The state the problem states before it is made consistent: its initial_guess (q0, v0) when it
 * has one (ABI 8), else initial_state's q and v = M(q)^{-1} p. q and v: n entries each. */
CHS_EXPORT int CHSProblem_InitialGuess(CHSProblem prob, sunrealtype *q, sunrealtype *v,
                                       CHSError *err);

/** Make (q, v) consistent at time t0 holding the components i with fix_q[i] != 0 (positions) and
 * fix_v[i] != 0 (velocities) exactly; fix_q / fix_v may be NULL (nothing held). On success q and
 * v hold the consistent state and, when p is not NULL, p = M(q) v. CHS_ERR_ARG, naming the held
 * components, when they admit no consistent state: the constraint Jacobian restricted to the free
 * components has rank below m, or the Gauss-Newton iteration does not converge. q and v are left
 * unchanged on failure. A callback failure is CHS_ERR_CALLBACK. */
CHS_EXPORT int CHSProblem_ConsistentState(CHSProblem prob, sunrealtype t0, const int *fix_q,
                                          const int *fix_v, sunrealtype *q, sunrealtype *v,
                                          sunrealtype *p, CHSError *err);

/** Let every formulation created from prob afterwards start from (q, p) instead of the problem's
 * initial_state (copied; checked like an initial state: g and G M^{-1} p at
 * CHS_CONSISTENCY_TOL). The problem's reference solution no longer applies to such a run:
 * CHSProblem_Reference returns CHS_ERR_UNSUPPORTED and diagnostics report no error against it. */
CHS_EXPORT int CHSProblem_SetInitialState(CHSProblem prob, const sunrealtype *q,
                                          const sunrealtype *p, CHSError *err);

/** The initial state of every run of prob afterwards: consistent, holding the components SPEC
 * names. SPEC is a comma-separated list of ITEM[=VALUE]; ITEM is q:C or v:C (C a coordinate name
 * of the problem, its default name qK, or a 1-based index K) or the short qK / vK. VALUE (a finite
 * real) replaces the component of the initial guess (CHSProblem_InitialGuess) before it is held.
 * Then CHSProblem_ConsistentState at t = 0 and CHSProblem_SetInitialState. 0, or CHS_ERR_ARG for a
 * malformed item or components that admit no consistent state, CHS_ERR_NOTFOUND for an unknown
 * name (the message lists the valid ones), with err naming the item. */
CHS_EXPORT int CHSProblem_Fix(CHSProblem prob, const char *spec, CHSError *err);

#ifdef __cplusplus
}
#endif
#endif
