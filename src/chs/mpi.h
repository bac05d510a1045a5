/** @file
 * Chains distributed over MPI ranks (docs/mpi.md): the state of a bond chain (`pendulum-chain`,
 * `chain`) on SUNDIALS' parallel N_Vector, split into contiguous segments of atoms, integrated by
 * ARKODE's ERKStep with the standard or the Hamilton-Dirac field; the tridiagonal Gram matrix is
 * factored and solved distributed by ScaLAPACK (pdpttrf, pdpttrs). Installed only when chs is
 * built with CHS_MPI. Every function is collective over the communicator it takes. */
#ifndef CHS_MPI_H
#define CHS_MPI_H

#include <mpi.h>
#include "chs/export.h"
#include "chs/problem.h"
#include "chs/run.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What CHSMPI_Run did (the same values on every rank). */
typedef struct CHSMPISummary {
  sunrealtype t_final; /**< the time reached */
  long steps;          /**< ERKStep steps */
  long rhs_evals;      /**< right-hand side evaluations (each one collective) */
  long err_test_fails; /**< ERKStep error-test failures (adaptive runs) */
  int ranks;           /**< size of the communicator */
  double wall_s;       /**< time in the integrator, the largest over the ranks */
  double comm_s;       /**< of which in MPI and ScaLAPACK calls, the largest over the ranks */
  long shake_iters;    /**< rattle: SHAKE (simplified Newton) iterations of the position step */
  long proj_position;  /**< position projections (-1: no projector; see CHSRunSummary) */
  long proj_momentum;  /**< momentum projections (-1: no projector) */
  long proj_newton;    /**< Newton iterations of the position projections (-1: no projector) */
  long ghost_rebuilds; /**< rebuilds of the ghost-atom lists (-1: no ghost exchange: forces
                            local, or positions gathered on every rank) */
  long ghost_atoms;    /**< ghost atoms of the last rebuild, the largest over the ranks (-1) */
  double ghost_bytes;  /**< bytes one rank sends per force evaluation, the largest (-1) */
} CHSMPISummary;

/** 0 when CHSMPI_Run can run `prob` with `formulation` and `method` on `ranks` ranks; otherwise
 * CHS_ERR_UNSUPPORTED (a problem that does not declare CHS_DECLARE_BOND_CHAIN or whose
 * dimensions or mass do not fit it, a formulation name that is not a registered formulation with
 * a distributed field (CHS_FORM_MPI_STANDARD: standard, CHS_FORM_MPI_DIRAC: dirac), a method other
 * than erk:TABLE or rattle) or CHS_ERR_ARG (fewer than two constraints per
 * rank), with a message naming what is refused. Not collective. */
CHS_EXPORT int CHSMPI_Check(CHSProblem prob, const char *formulation, const char *method, int ranks,
                            CHSError *err);

/** Integrate prob (created identically on every rank of comm) from its initial state with the
 * field `formulation` ("standard" or "dirac") and opt->method (erk:TABLE), opt->ctl (fixed step
 * h or rtol/atol), from opt->t0 to opt->tf, or with opt->method "rattle" (SHAKE/RATTLE on the
 * problem's callbacks, fixed step h; opt->ctl.rtol > 0 its SHAKE tolerance); opt->project (with
 * project_tol, project_every, project_newton_tol) projects after each erk step as CHSRun does
 * (with rattle, as CHSRun does, the projector does nothing); events are not supported (refused).
 * Collective over comm. On rank 0, q_final and p_final (length n each, may be NULL) receive the
 * final state; other ranks may pass NULL. sum (may be NULL) is filled on every rank. Returns the
 * same code on every rank: 0, CHS_ERR_ARG / CHS_ERR_UNSUPPORTED before any integration work
 * (CHSMPI_Check), CHS_ERR_SOLVER (ARKODE failed, or the Gram matrix is not positive definite),
 * CHS_ERR_MEM. */
CHS_EXPORT int CHSMPI_Run(MPI_Comm comm, CHSProblem prob, const char *formulation,
                          const CHSRunOptions *opt, sunrealtype *q_final, sunrealtype *p_final,
                          CHSMPISummary *sum, CHSError *err);

#ifdef __cplusplus
}
#endif
#endif
