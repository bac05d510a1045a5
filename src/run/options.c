/* CHSRunOptions and CHSRunSummary as objects with Set and Get functions, and CHSRunProblem
 * (chs/run.h): what a C program or a binding needs to run without filling the structs itself. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "compat.h"
#include "impl.h"
#include "run_impl.h"

/* The options a Set function changes, with the strings they own. `pub` comes first, so the
 * CHSRunOptions * handed out is the address of the whole. */
typedef struct chs_owned_options {
  CHSRunOptions pub;
  char *method;
  char *stop_at;
} chs_owned_options;

static char *chs_strdup(const char *s) {
  size_t len = strlen(s) + 1;
  char *c = malloc(len);
  if (c) {
    memcpy(c, s, len);
  }
  return c;
}

CHSRunOptions *CHSRunOptions_Create(void) {
  chs_owned_options *o = calloc(1, sizeof *o);
  if (!o) {
    return NULL;
  }
  CHSRunOptions_Default(&o->pub);
  return &o->pub;
}

void CHSRunOptions_Destroy(CHSRunOptions **opt) {
  if (opt && *opt) {
    chs_owned_options *o = (chs_owned_options *)*opt;
    free(o->method);
    free(o->stop_at);
    free(o);
    *opt = NULL;
  }
}

#define CHS_OPT_CHECK(opt, fn)                                                                     \
  do {                                                                                             \
    if (!(opt)) {                                                                                  \
      return chs_error_set(err, CHS_ERR_ARG, "%s: the options are NULL", fn);                      \
    }                                                                                              \
  } while (0)

int CHSRunOptions_SetMethod(CHSRunOptions *opt, const char *method, CHSError *err) {
  CHS_OPT_CHECK(opt, "CHSRunOptions_SetMethod");
  if (!method || !*method) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "CHSRunOptions_SetMethod: empty method (see `chs "
                         "list methods`)");
  }
  char family[64];
  const char *params = NULL;
  CHSError local;
  if (!CHSRunAuto_Wanted(method) &&
      (CHSSpec_Split(method, family, sizeof family, &params, &local) != 0 ||
       !CHSIntegratorRegistry_Find(family))) {
    return chs_error_set(err, CHS_ERR_NOTFOUND, "unknown method '%s' (see `chs list methods`)",
                         method);
  }
  char *copy = chs_strdup(method);
  if (!copy) {
    return chs_error_set(err, CHS_ERR_MEM, "CHSRunOptions_SetMethod: out of memory");
  }
  chs_owned_options *o = (chs_owned_options *)opt;
  free(o->method);
  o->method = copy;
  opt->method = copy;
  return CHS_SUCCESS;
}

int CHSRunOptions_SetTolerances(CHSRunOptions *opt, sunrealtype rtol, sunrealtype atol,
                                CHSError *err) {
  CHS_OPT_CHECK(opt, "CHSRunOptions_SetTolerances");
  if (!(rtol > 0 && isfinite(rtol))) {
    return chs_error_set(err, CHS_ERR_ARG, "bad value for rtol: %g (must be > 0 and finite)",
                         (double)rtol);
  }
  if (!(atol > 0 && isfinite(atol))) {
    return chs_error_set(err, CHS_ERR_ARG, "bad value for atol: %g (must be > 0 and finite)",
                         (double)atol);
  }
  opt->ctl.rtol = rtol;
  opt->ctl.atol = atol;
  opt->ctl.h = 0;
  return CHS_SUCCESS;
}

int CHSRunOptions_SetFixedStep(CHSRunOptions *opt, sunrealtype h, CHSError *err) {
  CHS_OPT_CHECK(opt, "CHSRunOptions_SetFixedStep");
  if (!(h > 0 && isfinite(h))) {
    return chs_error_set(err, CHS_ERR_ARG, "bad value for h: %g (must be > 0 and finite)",
                         (double)h);
  }
  opt->ctl.h = h;
  return CHS_SUCCESS;
}

int CHSRunOptions_SetTimes(CHSRunOptions *opt, sunrealtype t0, sunrealtype tf, CHSError *err) {
  CHS_OPT_CHECK(opt, "CHSRunOptions_SetTimes");
  if (!isfinite(t0)) {
    return chs_error_set(err, CHS_ERR_ARG, "bad value for t0: %g (must be finite)", (double)t0);
  }
  if (!(isfinite(tf) && tf >= t0)) {
    return chs_error_set(err, CHS_ERR_ARG, "bad value for tf: %g (must be finite and >= t0 = %g)",
                         (double)tf, (double)t0);
  }
  opt->t0 = t0;
  opt->tf = tf;
  return CHS_SUCCESS;
}

int CHSRunOptions_SetEvery(CHSRunOptions *opt, long every, CHSError *err) {
  CHS_OPT_CHECK(opt, "CHSRunOptions_SetEvery");
  if (every < 1) {
    return chs_error_set(err, CHS_ERR_ARG, "bad value for every: %ld (must be >= 1)", every);
  }
  opt->every = every;
  return CHS_SUCCESS;
}

int CHSRunOptions_SetProjection(CHSRunOptions *opt, int kind, sunrealtype tol, CHSError *err) {
  CHS_OPT_CHECK(opt, "CHSRunOptions_SetProjection");
  if (kind != CHS_PROJECT_NONE && kind != CHS_PROJECT_MOMENTUM && kind != CHS_PROJECT_POSITION &&
      kind != CHS_PROJECT_BOTH) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "bad projection kind %d (CHS_PROJECT_NONE, _MOMENTUM, _POSITION or _BOTH)",
                         kind);
  }
  if (!(tol >= 0 && isfinite(tol))) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "bad value for the projection tolerance: %g (must be >= 0 and finite)",
                         (double)tol);
  }
  opt->project = kind;
  opt->project_tol = tol;
  return CHS_SUCCESS;
}

int CHSRunOptions_SetProjectionEvery(CHSRunOptions *opt, long k, CHSError *err) {
  CHS_OPT_CHECK(opt, "CHSRunOptions_SetProjectionEvery");
  if (k < 0) {
    return chs_error_set(err, CHS_ERR_ARG, "bad value for project_every: %ld (must be >= 0)", k);
  }
  opt->project_every = k;
  return CHS_SUCCESS;
}

int CHSRunOptions_SetProjectionNewtonTol(CHSRunOptions *opt, sunrealtype tol, CHSError *err) {
  CHS_OPT_CHECK(opt, "CHSRunOptions_SetProjectionNewtonTol");
  if (!(tol >= 0 && isfinite(tol))) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "bad value for project_newton_tol: %g (must be >= 0 and finite)",
                         (double)tol);
  }
  opt->project_newton_tol = tol;
  return CHS_SUCCESS;
}

int CHSRunOptions_SetMaxSteps(CHSRunOptions *opt, long max_steps, CHSError *err) {
  CHS_OPT_CHECK(opt, "CHSRunOptions_SetMaxSteps");
  if (max_steps < 0 || max_steps > CHS_RUN_MAX_STEPS_LIMIT) {
    return chs_error_set(err, CHS_ERR_ARG, "bad value for max_steps: %ld (must be in [0, %ld])",
                         max_steps, CHS_RUN_MAX_STEPS_LIMIT);
  }
  opt->ctl.max_steps = max_steps;
  return CHS_SUCCESS;
}

int CHSRunOptions_SetStopAt(CHSRunOptions *opt, const char *stop_at, CHSError *err) {
  CHS_OPT_CHECK(opt, "CHSRunOptions_SetStopAt");
  if (stop_at && !*stop_at) {
    return chs_error_set(err, CHS_ERR_ARG, "bad value for stop_at: empty (NULL: no stop event)");
  }
  char *copy = NULL;
  if (stop_at && !(copy = chs_strdup(stop_at))) {
    return chs_error_set(err, CHS_ERR_MEM, "CHSRunOptions_SetStopAt: out of memory");
  }
  chs_owned_options *o = (chs_owned_options *)opt;
  free(o->stop_at);
  o->stop_at = copy;
  opt->stop_at = copy;
  return CHS_SUCCESS;
}

static int chs_opt_flag(int *field, int value, const char *name, CHSError *err) {
  if (value != 0 && value != 1) {
    return chs_error_set(err, CHS_ERR_ARG, "bad value for %s: %d (must be 0 or 1)", name, value);
  }
  *field = value;
  return CHS_SUCCESS;
}

int CHSRunOptions_SetLocateEvents(CHSRunOptions *opt, int on, CHSError *err) {
  CHS_OPT_CHECK(opt, "CHSRunOptions_SetLocateEvents");
  return chs_opt_flag(&opt->locate_events, on, "locate_events", err);
}

int CHSRunOptions_SetMultipliers(CHSRunOptions *opt, int on, CHSError *err) {
  CHS_OPT_CHECK(opt, "CHSRunOptions_SetMultipliers");
  return chs_opt_flag(&opt->multipliers, on, "multipliers", err);
}

int CHSRunOptions_SetStrict(CHSRunOptions *opt, int strict, CHSError *err) {
  CHS_OPT_CHECK(opt, "CHSRunOptions_SetStrict");
  return chs_opt_flag(&opt->strict, strict, "strict", err);
}

int CHSRunOptions_SetCheck(CHSRunOptions *opt, int check, CHSError *err) {
  CHS_OPT_CHECK(opt, "CHSRunOptions_SetCheck");
  if (check != CHS_RUN_CHECK_AUTO && check != CHS_RUN_CHECK_OFF && check != CHS_RUN_CHECK_ON) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "bad value for check: %d (CHS_RUN_CHECK_AUTO, _OFF or _ON)", check);
  }
  opt->check = check;
  return CHS_SUCCESS;
}

int CHSRunOptions_SetEstimateError(CHSRunOptions *opt, int on, CHSError *err) {
  CHS_OPT_CHECK(opt, "CHSRunOptions_SetEstimateError");
  if (on != 0 && on != 1) {
    return chs_error_set(err, CHS_ERR_ARG, "bad value for estimate_error: %d (0 or 1)", on);
  }
  opt->estimate_error = on;
  return CHS_SUCCESS;
}

int CHSRunOptions_SetSubnormals(CHSRunOptions *opt, int subnormals, CHSError *err) {
  CHS_OPT_CHECK(opt, "CHSRunOptions_SetSubnormals");
  if (subnormals != CHS_SUBNORMALS_FLUSH && subnormals != CHS_SUBNORMALS_KEEP) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "bad value for subnormals: %d (CHS_SUBNORMALS_FLUSH or _KEEP)",
                         subnormals);
  }
  opt->subnormals = subnormals;
  return CHS_SUCCESS;
}

/* ------------------------------------------------------------------ summary */
CHSRunSummary *CHSRunSummary_Create(void) {
  return calloc(1, sizeof(CHSRunSummary));
}

void CHSRunSummary_Destroy(CHSRunSummary **sum) {
  if (sum) {
    free(*sum);
    *sum = NULL;
  }
}

long CHSRunSummary_GetNumSteps(const CHSRunSummary *sum) {
  return sum ? sum->stats.steps : 0;
}

long CHSRunSummary_GetNumRhsEvals(const CHSRunSummary *sum) {
  return sum ? sum->rhs_evals : 0;
}

long CHSRunSummary_GetNumJacEvals(const CHSRunSummary *sum) {
  return sum ? sum->stats.jac_evals : 0;
}

long CHSRunSummary_GetNumErrTestFails(const CHSRunSummary *sum) {
  return sum ? sum->stats.err_test_fails : 0;
}

long CHSRunSummary_GetNumPositionProjections(const CHSRunSummary *sum) {
  return sum ? sum->proj_position : 0;
}

long CHSRunSummary_GetNumMomentumProjections(const CHSRunSummary *sum) {
  return sum ? sum->proj_momentum : 0;
}

long CHSRunSummary_GetNumRecords(const CHSRunSummary *sum) {
  return sum ? sum->diag.records : 0;
}

sunrealtype CHSRunSummary_GetFinalTime(const CHSRunSummary *sum) {
  return sum ? sum->diag.t_final : 0;
}

double CHSRunSummary_GetWallTime(const CHSRunSummary *sum) {
  return sum ? sum->wall_s : 0;
}

int CHSRunSummary_GetCompleted(const CHSRunSummary *sum) {
  return sum ? sum->completed : 0;
}

int CHSRunSummary_GetNumWarnings(const CHSRunSummary *sum) {
  return sum ? sum->n_warnings : 0;
}

const char *CHSRunSummary_GetWarning(const CHSRunSummary *sum, int i) {
  if (!sum || i < 0 || i >= sum->n_warnings || i >= CHS_RUN_MAX_WARNINGS) {
    return NULL;
  }
  return sum->warnings[i];
}

const char *CHSRunSummary_GetFormulation(const CHSRunSummary *sum) {
  return sum ? sum->formulation : NULL;
}

const char *CHSRunSummary_GetMethod(const CHSRunSummary *sum) {
  return sum ? sum->method : NULL;
}

const char *CHSRunSummary_GetChoice(const CHSRunSummary *sum) {
  return sum ? sum->choice : NULL;
}

double CHSRunSummary_GetErrorEstimate(const CHSRunSummary *sum) {
  return sum ? sum->error_estimate : NAN;
}

/* ------------------------------------------------------------------ a run in its own context */
int CHSRunProblem(CHSProblem prob, const char *formulation, const CHSRunOptions *opt,
                  CHSMonitorFn monitor, void *ctx, CHSRunSummary *sum, CHSError *err) {
  if (!prob || !opt || !sum) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "CHSRunProblem: the problem, options and summary are required (one is "
                         "NULL)");
  }
  if (CHSRunAuto_Wanted(formulation) || CHSRunAuto_Wanted(opt->method)) {
    CHSRunChoice c;
    CHS_CALL(CHSRunProblem_Choose(prob, formulation, opt, &c, err));
    CHSRunOptions chosen = *opt;
    chosen.method = c.method;
    int rc = CHSRunProblem(prob, c.formulation, &chosen, monitor, ctx, sum, err);
    snprintf(sum->choice, sizeof sum->choice, "%s", c.why);
    return rc;
  }
  if (opt->estimate_error && opt->ctl.h > 0) { /* refused before any work */
    return chs_error_set(err, CHS_ERR_ARG,
                         "estimate_error needs an adaptive run (tolerances, not the fixed step h "
                         "= %g)",
                         (double)opt->ctl.h);
  }
  SUNContext sunctx = NULL;
  if (chs_context_create(&sunctx) != 0) {
    return chs_error_set(err, CHS_ERR_MEM, "CHSRunProblem: cannot create a SUNContext");
  }
  chs_context_silence(sunctx); /* failures are reported through err */
  CHSFormulation f = NULL;
  /* with an error estimate: the run without it, its final state kept for the companion's */
  CHSRunOptions run = *opt;
  run.estimate_error = 0;
  chs_final_capture cap = {monitor, ctx, CHSProblem_GetDims(prob)->n, NULL};
  if (opt->estimate_error && !(cap.z = calloc(2 * (size_t)cap.n, sizeof *cap.z))) {
    SUNContext_Free(&sunctx);
    return chs_error_set(err, CHS_ERR_MEM, "out of memory for the error estimate");
  }
  int rc = CHSFormulation_Create(formulation, prob, sunctx, &f, err);
  if (rc == 0) {
    rc = cap.z ? CHSRun(f, &run, chs_final_capture_monitor, &cap, sum, err)
               : CHSRun(f, opt, monitor, ctx, sum, err);
    snprintf(sum->formulation, sizeof sum->formulation, "%s", formulation);
  }
  CHSFormulation_Destroy(&f);
  SUNContext_Free(&sunctx);
  if (rc == 0 && cap.z) {
    rc = CHSRunProblem_EstimateError(prob, formulation, opt, cap.z, cap.z + cap.n, sum, err);
  }
  free(cap.z);
  return rc;
}
