/** @file
 * Integrators: a method name "family:options" (e.g. "erk:rk4", "erk:ARKODE_VERNER_8_5_6") bound to
 * a formulation. Each family is one file in src/integrate/ with one const ops table, registered
 * once in src/integrate/integrator.c. The adapters drive SUNDIALS integrators (ERKStep here)
 * through the formulation's ARKRhsFn; the underlying SUNDIALS memory stays reachable
 * (GetSundialsMem). */
#ifndef CHS_INTEGRATOR_H
#define CHS_INTEGRATOR_H

#include "chs/export.h"

#include <sundials/sundials_nvector.h>
#include "chs/error.h"
#include "chs/formulation.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Step size control of an integrator: a fixed step or tolerances, and the step bound. */
typedef struct CHSStepControl {
  sunrealtype h;    /**< > 0: fixed step size; 0: adaptive with rtol/atol */
  sunrealtype rtol; /**< adaptive only */
  sunrealtype atol; /**< adaptive only */
  /** Bound on the number of steps: in CHSRun (and CHSFirstOrder_Run) for the WHOLE run, 0 = the
   * default CHS_RUN_MAX_STEPS_DEFAULT; an integrator created directly applies it to each
   * Evolve call (SUNDIALS' mxstep), 0 = 500000 there. */
  long max_steps;
} CHSStepControl;

/** Counters of an integrator (CHSIntegrator_GetStats). */
typedef struct CHSIntegratorStats {
  long steps;          /**< steps taken */
  long rhs_evals;      /**< evaluations of the formulation's right-hand side */
  long jac_evals;      /**< -1 when not applicable */
  long err_test_fails; /**< -1 when not applicable */
  long lin_setups;     /**< linear-solver setups (Jacobian factorisations); -1 when none */
  /** alpha-prk: max |alpha| over the steps taken and the number of steps whose alpha runs along
   * the second direction (src/integrate/alpha_prk.c); 0 for other methods */
  sunrealtype alpha_max;
  long alpha_dir2_steps; /**< alpha-prk: steps along the second direction (see alpha_max) */
  /** SUNDIALS implicit methods (ida, cvode, dirk): nonlinear solver iterations and convergence
   * failures; 0 for methods without a SUNDIALS nonlinear solver */
  long nonlin_iters;
  long nonlin_conv_fails; /**< nonlinear solver convergence failures (see nonlin_iters) */
  /** Krylov iterations of the Newton iterations (cvode ls=spgmr); 0 otherwise */
  long lin_iters;
  /** The Newton iterations' linear solver (cvode, ida): "dense", "band", "klu", "umfpack",
   * "spgmr" (static storage); NULL for methods without one */
  const char *linear_solver;
  /** 1: ls=auto (the default) chose linear_solver; 0: it was given */
  int linear_solver_auto;
} CHSIntegratorStats;

/** An integrator family: its name and callbacks (one const table per family). */
typedef struct CHSIntegratorOps {
  const char *family;  /**< "erk" */
  const char *summary; /**< one line for `chs list methods` */
  int accepts_dae;     /**< 1: also integrates DAE formulations (residual form) */
  /** Name of the i-th predefined method of the family ("rk4"), NULL past the end. */
  const char *(*method_name)(int i);
  /** Create the family's integrator memory for method options (the text after "family:") on
   * formulation f from (t0, y0). */
  int (*create)(const char *options, CHSFormulation f, N_Vector y0, sunrealtype t0,
                const CHSStepControl *ctl, void **mem, CHSError *err);
  /** Advance to exactly tout (one_step = 0) or take one internal step not past tout. */
  int (*evolve)(void *mem, sunrealtype tout, N_Vector y, sunrealtype *tret, int one_step,
                CHSError *err);
  int (*get_stats)(void *mem, CHSIntegratorStats *stats); /**< fill stats */
  void *(*sundials_mem)(void *mem); /**< optional: the SUNDIALS memory (NULL: none) */
  /** Optional: restart at (t, y) after the state changed discontinuously (a new chart). */
  int (*reinit)(void *mem, sunrealtype t, N_Vector y);
  void (*destroy)(void *mem); /**< free mem */
  /** 1: the method is built on H = T + V with F = -grad V (e.g. RATTLE's explicit half-kicks);
   * it refuses problems with a non-conservative force (CHS_ERR_UNSUPPORTED). */
  int needs_hamiltonian;
  /** Optional: one step of exactly h from the current state that also maps the k tangent vectors
   * dz[0 .. 2n k) (each (dq, dp) of the physical state) by the derivative of the step map, the
   * linearised step equations solved to round-off; y receives the new state. Returns
   * CHS_ERR_UNSUPPORTED, before any change, where the configuration has no tangent map. */
  int (*tangent_step)(void *mem, sunrealtype h, int k, sunrealtype *dz, N_Vector y, CHSError *err);
  /** 1: the method needs a separable H (constant mass matrix) and an autonomous problem, like the
   * explicit sprk tables; it refuses a configuration-dependent M(q) and explicit time dependence
   * (CHS_ERR_UNSUPPORTED; docs/mechanics.md). rattle, lobatto and alpha-prk do not set it (their
   * stage equations become implicit in p instead). */
  int needs_constant_mass;
  /** Optional (adaptive SUNDIALS families): root finding on the problem's nev event functions
   * (CHSIntegrator_EventRootFn, called with the formulation as user data). After root_init,
   * evolve stops at a root: it returns CHS_INTEGRATOR_ROOT with *tret the root and y the
   * (interpolated) state there; a later evolve continues. root_info sets dirs[k] = +1 (event k
   * rose through 0), -1 (fell), 0 (not at this root). Fixed-step runs locate events without it
   * (src/run/run.c: bisection on the step map). */
  int (*root_init)(void *mem, int nev, CHSError *err);
  int (*root_info)(void *mem, int *dirs); /**< optional, with root_init: see there */
} CHSIntegratorOps;

/** Positive return of evolve (CHSIntegrator_Evolve, _OneStep) that stopped at an event root. */
#define CHS_INTEGRATOR_ROOT 2

/** A method of an integrator family bound to a formulation. */
typedef struct CHSIntegrator_ *CHSIntegrator;

/** Create the integrator of method ("family:options") for formulation f from (t0, y0). */
CHS_EXPORT int CHSIntegrator_Create(const char *method, CHSFormulation f, N_Vector y0,
                                    sunrealtype t0, const CHSStepControl *ctl, CHSIntegrator *out,
                                    CHSError *err);
/** Advance to exactly tout; y and *tret receive the state and time reached. */
CHS_EXPORT int CHSIntegrator_Evolve(CHSIntegrator it, sunrealtype tout, N_Vector y,
                                    sunrealtype *tret, CHSError *err);
/** Take one internal step not past tstop; y and *tret receive the state and time reached. */
CHS_EXPORT int CHSIntegrator_OneStep(CHSIntegrator it, sunrealtype tstop, N_Vector y,
                                     sunrealtype *tret, CHSError *err);
/** The integrator's counters so far. */
CHS_EXPORT int CHSIntegrator_GetStats(CHSIntegrator it, CHSIntegratorStats *stats);
/** Restart at (t, y); CHS_ERR_UNSUPPORTED for families that cannot. */
CHS_EXPORT int CHSIntegrator_Reinit(CHSIntegrator it, sunrealtype t, N_Vector y);
/** The underlying SUNDIALS memory (e.g. ERKStep's), NULL when the method runs without one. */
CHS_EXPORT void *CHSIntegrator_GetSundialsMem(CHSIntegrator it);
/** One step of h with the tangent map (CHSIntegratorOps.tangent_step); CHS_ERR_UNSUPPORTED for
 * families without one (chs' own steppers rattle, sprk, lobatto have it). */
CHS_EXPORT int CHSIntegrator_TangentStep(CHSIntegrator it, sunrealtype h, int k, sunrealtype *dz,
                                         N_Vector y, CHSError *err);
/** Free the integrator and set *it to NULL; NULL allowed. */
CHS_EXPORT void CHSIntegrator_Destroy(CHSIntegrator *it);

/** Events (problem.h: event_names, events). The values e_k(t, q, p) of the problem's events at the
 * formulation's state y (mapped to the physical (q, p) as the diagnostics do), one per event:
 * 0, or -1 when the problem cannot evaluate them there. Its signature is SUNDIALS' ARKRootFn and
 * CVRootFn, with the formulation f as user data; the IDA variant takes y' as well. */
CHS_EXPORT int CHSIntegrator_EventRootFn(sunrealtype t, N_Vector y, sunrealtype *e, void *f);
/** IDARootFn variant of CHSIntegrator_EventRootFn (y' is not used by the events). */
CHS_EXPORT int CHSIntegrator_EventResRootFn(sunrealtype t, N_Vector y, N_Vector yp, sunrealtype *e,
                                            void *f);
/** Root finding on the nev events of the formulation's problem (ops.root_init); CHS_ERR_UNSUPPORTED
 * for families without it. CHSIntegrator_RootInfo: the directions after a CHS_INTEGRATOR_ROOT. */
CHS_EXPORT int CHSIntegrator_RootInit(CHSIntegrator it, int nev, CHSError *err);
/** After a CHS_INTEGRATOR_ROOT: dirs[k] = +1 (event k rose through 0), -1 (fell), 0 (not at this
 * root); CHS_ERR_UNSUPPORTED for families without root finding. */
CHS_EXPORT int CHSIntegrator_RootInfo(CHSIntegrator it, int *dirs);
/** 1 when the family can locate events with adaptive steps (it has root finding). */
CHS_EXPORT int CHSIntegrator_HasRootFinding(CHSIntegrator it);

/** Number of integrator families. */
CHS_EXPORT int CHSIntegratorRegistry_Count(void);
/** The i-th integrator family, NULL when i is out of range. */
CHS_EXPORT const CHSIntegratorOps *CHSIntegratorRegistry_Get(int i);
/** The integrator family of that name ("erk"), NULL when there is none. */
CHS_EXPORT const CHSIntegratorOps *CHSIntegratorRegistry_Find(const char *family);

#ifdef __cplusplus
}
#endif
#endif
