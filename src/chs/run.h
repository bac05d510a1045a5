/* One integration from t0 to tf with diagnostics at output times: what `chs run` does, as a
 * library call. Output times: with a fixed step h, every `every` steps (t0 + k*every*h) and tf,
 * reached exactly by setting ARKODE's stop time (no interpolation); adaptive, after every `every`
 * internal steps and at tf (stop time tf). */
#ifndef CHS_RUN_H
#define CHS_RUN_H

#include "chs/diagnostics.h"
#include "chs/integrator.h"
#include "chs/projection.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Steps of a whole run when ctl.max_steps is 0, and the largest ctl.max_steps accepted. A run with
 * a fixed step h whose ceil((tf - t0) / h) exceeds the bound is refused up front (CHS_ERR_ARG);
 * an adaptive run stops with CHS_ERR_SOLVER ("too much work") when it reaches the bound. */
#define CHS_RUN_MAX_STEPS_DEFAULT 5000000L
#define CHS_RUN_MAX_STEPS_LIMIT 1000000000000L

typedef struct CHSRunOptions {
  const char *method; /* "erk:rk4" */
  CHSStepControl ctl;
  sunrealtype t0, tf;
  long every;              /* >= 1 */
  int project;             /* CHS_PROJECT_NONE (default), _MOMENTUM, _POSITION, _BOTH */
  sunrealtype project_tol; /* project a kind when its residual exceeds this (0: every step) */
  long project_every;      /* project only every k-th step (0 or 1: every step) */
  sunrealtype project_newton_tol; /* position Newton stops at |g| <= this (0: round-off) */
} CHSRunOptions;

/* Called at t0 and at every output time; a nonzero return stops the run: a negative return is
 * passed on as the run's code, a positive one becomes CHS_ERR_IO (output failed). */
typedef int (*CHSMonitorFn)(const CHSRecord *rec, void *ctx);

typedef struct CHSRunSummary {
  CHSDiagnosticsSummary diag;
  CHSIntegratorStats stats;
  long rhs_evals;     /* counted by the formulation (includes any extra evaluations) */
  long proj_position; /* -1: no projector */
  long proj_momentum; /* -1: no projector */
  double wall_s;      /* time inside the integrator only (diagnostics and output excluded) */
  int completed;      /* 1 when tf was reached */
} CHSRunSummary;

void CHSRunOptions_Default(CHSRunOptions *opt);
/* Runs; the summary is filled as far as the run got, also when it fails. Before any step the
 * initial state, its energy and the first right-hand side (DAE: residual) must be finite, else
 * CHS_ERR_ARG naming the problem (parameters so large that the forces overflow). */
int CHSRun(CHSFormulation f, const CHSRunOptions *opt, CHSMonitorFn monitor, void *ctx,
           CHSRunSummary *summary, CHSError *err);

#ifdef __cplusplus
}
#endif
#endif
