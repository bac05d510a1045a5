/** @file
 * The wedge product dq ^ dp along a numerical solution ([Leimkuhler & Reich] Sec. 3.2): two tangent
 * vectors dz1, dz2 of the constraint manifold T*M = {g = 0, G M^{-1} p = 0} at the initial state
 * are carried along by the linearisation of each step of a fixed-step method, and
 *
 *   omega_n = omega(dz1_n, dz2_n) = dq1_n . dp2_n - dq2_n . dp1_n
 *
 * is recorded. A method that is symplectic on T*M (RATTLE, the sprk family with constraints) or on
 * the whole phase space for a canonical Hamiltonian formulation (Gauss-Legendre on `extended`)
 * keeps omega_n = omega_0; a non-symplectic one (RK4) does not.
 *
 * The linearisation. Where the method has a tangent map (CHSIntegrator_TangentStep: rattle,
 * sprk with the built-in stepper, lobatto, alpha-prk, gauss and midpoint on a formulation whose
 * state is (q, p)), each step carries the tangents by the derivative of its own equations,
 * solved to round-off: on the pendulum (h = 0.01, 300 steps) omega stays within 2e-15 - 6e-14 of
 * omega_0 = 1 for the symplectic methods. Otherwise (ARKODE, CVODE, any run with --rtol or a
 * projection) it is generic: the step map Phi is applied to z +- eps d for six eps (eps0 2^-l)
 * and the central differences are extrapolated (Richardson) to DPhi(z) d; each perturbed step
 * runs in a new integrator created at the perturbed state, and so does the step from z itself, so
 * that all are the same map. Cost per step: 25 steps of the method. Accuracy: the round-off of
 * the map divided by the perturbations, a few 1e-15 |dz| per step (about 1e-12 over a few hundred
 * steps); RK4 departs by 2e-8. A projection (opt->project, every opt->project_every steps) is
 * part of the step map. */
#ifndef CHS_WEDGE_H
#define CHS_WEDGE_H

#include "chs/export.h"

#include "chs/run.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The wedge product's conservation along a run (CHSWedge_Run). */
typedef struct CHSWedgeSummary {
  long steps; /**< steps taken */

  sunrealtype omega0;    /**< omega(dz1, dz2) at t0: 1 (dz2 is scaled so) */
  sunrealtype err_max;   /**< max_n |omega_n - omega_0| */
  sunrealtype err_final; /**< |omega_N - omega_0| at tf */
  /** max_n |omega_n - omega_0| / (|dz1_n| |dz2_n|): the error relative to the size of the
   * tangents (Euclidean norms of (dq, dp)), which grow along the flow (shear) while the
   * linearisation's round-off stays relative to them */
  sunrealtype rel_err_max;
  /** 1: the method's tangent map (CHSIntegrator_TangentStep), 0: finite differences */
  int exact_tangents;
} CHSWedgeSummary;

/** Called at t0 and after every step with the current wedge product; nonzero stops the run. */
typedef int (*CHSWedgeMonitorFn)(sunrealtype t, sunrealtype omega, void *ctx);

/** Project (dq, dp) (length n each, in place) onto the tangent space of T*M at (q, p):
 *   dq <- dq - M^{-1} G^T Q^{-1} G dq                       (G dq = 0),
 *   dp <- dp - G^T Q^{-1} (G M^{-1} dp + Gdot(q, dq) M^{-1} p)  (the linearised G M^{-1} p = 0). */
CHS_EXPORT int CHSWedge_TangentProject(CHSFormulation f, const sunrealtype *q, const sunrealtype *p,
                                       sunrealtype *dq, sunrealtype *dp, CHSError *err);

/** From the formulation's initial state at opt->t0 to opt->tf with the method opt->method and the
 * fixed step opt->ctl.h (required: CHS_ERR_ARG otherwise); opt->project as in CHSRun. */
CHS_EXPORT int CHSWedge_Run(CHSFormulation f, const CHSRunOptions *opt, CHSWedgeMonitorFn monitor,
                            void *ctx, CHSWedgeSummary *sum, CHSError *err);

#ifdef __cplusplus
}
#endif
#endif
