/** @file
 * One integration from t0 to tf with diagnostics at output times: what `chs run` does, as a
 * library call. Output times: with a fixed step h, every `every` steps (t0 + k*every*h) and tf,
 * reached exactly by setting ARKODE's stop time (no interpolation); adaptive, after every `every`
 * internal steps and at tf (stop time tf). */
#ifndef CHS_RUN_H
#define CHS_RUN_H

#include "chs/export.h"

#include "chs/diagnostics.h"
#include "chs/integrator.h"
#include "chs/projection.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @name Bounds on the number of steps
 * Steps of a whole run when ctl.max_steps is 0, and the largest ctl.max_steps accepted. A run with
 * a fixed step h whose ceil((tf - t0) / h) exceeds the bound is refused up front (CHS_ERR_ARG);
 * an adaptive run stops with CHS_ERR_SOLVER ("too much work") when it reaches the bound.
 * @{ */
#define CHS_RUN_MAX_STEPS_DEFAULT 5000000L     /**< steps of a whole run when ctl.max_steps is 0 */
#define CHS_RUN_MAX_STEPS_LIMIT 1000000000000L /**< the largest ctl.max_steps accepted */
/** @} */

/** Options of CHSRun (CHSRunOptions_Default sets the defaults). */
typedef struct CHSRunOptions {
  const char *method; /**< "erk:rk4"; "auto" or NULL: chosen by CHSRunProblem */
  CHSStepControl ctl; /**< fixed step or tolerances, and the bound on the steps */
  /** @{ */
  /** Initial and final time. */
  sunrealtype t0, tf;
  /** @} */
  long every;              /**< >= 1 */
  int project;             /**< CHS_PROJECT_NONE (default), _MOMENTUM, _POSITION, _BOTH */
  sunrealtype project_tol; /**< project a kind when its residual exceeds this (0: every step) */
  long project_every;      /**< project only every k-th step (0 or 1: every step) */
  sunrealtype project_newton_tol; /**< position Newton stops at |g| <= this (0: round-off) */
  /** Events (the problem's event_names and events, chs/problem.h): NULL (default) or a
   * comma-separated list of event names, or "all": the run stops at the first occurrence of one
   * of them, and its final time and state are the event's. An unknown name is refused before any
   * work (CHS_ERR_ARG, naming it and the problem's events). */
  const char *stop_at;
  /** 1: locate and report the problem's events also when stop_at is NULL (then none stops). */
  int locate_events;
  /** CHS_SUBNORMALS_FLUSH (0, the default) or CHS_SUBNORMALS_KEEP: see below. */
  int subnormals;
  /** The derivative probe before the run (see "Warnings" below): CHS_RUN_CHECK_AUTO (0, the
   * default: problems loaded from a plugin), CHS_RUN_CHECK_OFF or CHS_RUN_CHECK_ON. */
  int check;
  /** 1: a failed probe is an input error (CHS_ERR_ARG) before any step, instead of a warning. */
  int strict;
  /** 1: each record (the monitor's CHSRecord) carries the multipliers lambda, the reaction
   * forces -G^T lambda (CHSFormulation_GetMultipliers) and the velocities M^{-1} p: one Gram
   * factorisation per record, none per step. 0 (default): CHSRecord.lambda, .reaction and .v are
   * NULL. */
  int multipliers;
  /** 1: CHSRunProblem estimates the final global error from a companion run of the same
   * configuration at tolerances / CHS_RUN_ESTIMATE_FACTOR (CHSRunSummary.error_estimate), for
   * problems without a reference solution; adaptive runs only (CHSRun refuses it). */
  int estimate_error;
} CHSRunOptions;

/** @name The error estimate's companion run (CHSRunOptions.estimate_error)
 * @{ */
#define CHS_RUN_ESTIMATE_FACTOR 100.0    /**< the companion's tolerances divide the run's by this */
#define CHS_RUN_ESTIMATE_TOL_FLOOR 1e-14 /**< ... but go no lower (round-off below it) */
/** @} */

/** @name Derivative probe (CHSRunOptions.check)
 * @{ */
#define CHS_RUN_CHECK_AUTO 0 /**< probe problems loaded from a plugin (chs-gen's too) */
#define CHS_RUN_CHECK_OFF 1  /**< no probe */
#define CHS_RUN_CHECK_ON 2   /**< probe every problem */
/** @} */

/** @name Warnings (CHSRunSummary.warnings)
 * A run that completes may still be wrong; the run says so in warnings (the library never prints:
 * the caller shows them). Four sources:
 *  - the derivative probe before the run (CHSRunOptions.check): CHSProblem_Check (chs/check.h) at
 *    the initial state only, along one random direction per derivative (a few hundred callback
 *    evaluations, with its round-off-aware tolerance); each failed row (a callback disagreeing
 *    with finite differences of the one it derives from) is a warning naming the callback;
 *  - the watch during the run: at each record, the energy error (energy_invariant problems) or
 *    the energy-balance error (balance_tracked ones), relative to |H(0)| (not watched when
 *    H(0) = 0), and the relative constraint residuals |g| / (|G|_F |q|_inf) and
 *    |psi| / (|G|_F |v|_inf + |g_t|) are compared with the bound
 *    max(CHS_RUN_WATCH_FACTOR * rtol, CHS_RUN_WATCH_FLOOR) (adaptive runs) or CHS_RUN_WATCH_FLOOR
 *    (fixed step); the first record beyond it gives one warning per quantity, naming its value
 *    and time. Every formulation is watched: a residual or an energy that far off is a wrong
 *    answer also for formulations that drift (standard, dae-index1);
 *  - the reference check after the run: an adaptive run that reaches its final time on a problem
 *    with a reference solution there (CHSProblem_Reference) and ends farther from it than
 *    CHS_RUN_REFERENCE_FACTOR * max(rtol, atol) in |(q,p) - (q,p)_ref|_2 gives a warning naming
 *    the error and the factor. The tolerances bound each step's local error; the global error is
 *    their sum carried through the flow, so on problems that amplify errors (or over many steps)
 *    it can exceed the tolerance by orders of magnitude while still falling with it;
 *  - the configuration, on any problem and at any final time of an adaptive run: a formulation and
 *    method `chs bench calibrate` measured failing calibration on the built-in problems
 *    (dae-index3 with ida, total with any method; docs/calibration.md), or a tolerance below
 *    1e-13, where the final error is round-off accumulated over the steps.
 * At most CHS_RUN_MAX_WARNINGS are kept (n_warnings counts them all).
 * @{ */
#define CHS_RUN_MAX_WARNINGS 8   /**< warnings kept in CHSRunSummary.warnings */
#define CHS_RUN_WARNING_LEN 320  /**< size of one warning, terminating NUL included */
#define CHS_RUN_WATCH_FACTOR 1e4 /**< the watch's bound: this times rtol ... */
#define CHS_RUN_WATCH_FLOOR 5e-2 /**< ... and at least this (relative) */
/** The reference check's bound: this times max(rtol, atol). */
#define CHS_RUN_REFERENCE_FACTOR 1e3
/** @} */

/** @name Subnormal numbers during CHSRun (CHSRunOptions.subnormals)
 * FLUSH: for the duration of the call, the calling thread's arithmetic flushes subnormal results
 * and operands (|x| < DBL_MIN = 2.2e-308) to zero (x86-64 SSE: MXCSR's FTZ and DAZ; AArch64:
 * FPCR.FZ; elsewhere nothing changes); the thread's previous mode is restored before CHSRun
 * returns, and the problem's and the monitor's callbacks run in that mode. Solutions that decay
 * geometrically through a large system reach subnormals (the tensions of
 * pendulum-chain:N=1e5: IDA ran 3.4 times slower on them, docs/scale.md); values below DBL_MIN
 * are below any tolerance chs accepts. KEEP: IEEE gradual underflow, as the caller has it.
 * @{ */
#define CHS_SUBNORMALS_FLUSH 0 /**< flush to zero during the run (default) */
#define CHS_SUBNORMALS_KEEP 1  /**< the caller's floating-point mode unchanged */
/** @} */

/** Event location (stop_at or locate_events). Adaptive runs use the integrator's root finding
 * (ARKODE, CVODE, IDA: CHSIntegratorOps.root_init; other families refuse before any work,
 * CHS_ERR_UNSUPPORTED). Fixed-step runs watch the sign of every event function after each step;
 * when one changes sign, the event is located within the step by bracketing (Illinois' regula
 * falsi, bisection when it stalls) on the step map: from the state at the step's start, one step
 * of the method of the trial length, to round-off in t. The run then continues from the regular
 * step (the grid of steps is unchanged) or stops there. An event function exactly 0 at a step's
 * start counts from its next sign. Events of more than one sign change within one step (or one
 * step of the adaptive integrator) are seen as none or one. */
typedef struct CHSEventRecord {
  int index;     /**< into the problem's event_names */
  sunrealtype t; /**< located time */
  int direction; /**< +1: the event function rose through 0; -1: it fell */
} CHSEventRecord;
/** The summary keeps the first this many events (CHSRunSummary.n_events counts them all). */
#define CHS_RUN_MAX_EVENT_RECORDS 64

/** Called at t0 and at every output time; a nonzero return stops the run: a negative return is
 * passed on as the run's code, a positive one becomes CHS_ERR_IO (output failed). */
typedef int (*CHSMonitorFn)(const CHSRecord *rec, void *ctx);

/** What a run did: diagnostics, integrator counters, projections and events (CHSRun). */
typedef struct CHSRunSummary {
  CHSDiagnosticsSummary diag; /**< the diagnostics over the output times */
  CHSIntegratorStats stats;   /**< the integrator's counters */
  long rhs_evals;             /**< counted by the formulation (includes any extra evaluations) */
  long proj_position;         /**< -1: no projector */
  long proj_momentum;         /**< -1: no projector */
  double wall_s; /**< time inside the integrator only (diagnostics and output excluded) */
  int completed; /**< 1 when tf was reached, or the stop event (stop_at) */
  /* Events (when located: stop_at or locate_events): every occurrence up to the end of the run,
   * in time order; the first CHS_RUN_MAX_EVENT_RECORDS are kept. */
  int events_located;                               /**< 1 when events were located */
  long n_events;                                    /**< occurrences */
  int n_event_records;                              /**< entries of events in use */
  CHSEventRecord events[CHS_RUN_MAX_EVENT_RECORDS]; /**< the first occurrences, in time order */
  int stopped;    /**< 1 when the run stopped at an event of stop_at (t_final is its time) */
  int stop_event; /**< then its index into the problem's event_names */
  int n_warnings; /**< warnings given (see "Warnings"); the first CHS_RUN_MAX_WARNINGS kept */
  char warnings[CHS_RUN_MAX_WARNINGS][CHS_RUN_WARNING_LEN]; /**< one line each, no newline */
  /** The formulation that ran: its registered name (CHSRun), its spec (CHSRunProblem). */
  char formulation[128];
  char method[128]; /**< the method spec that ran */
  /** Why CHSRunProblem chose the configuration (CHSRunChoice.why); "" when it was given. */
  char choice[600];
  /** With CHSRunOptions.estimate_error: |(q,p)(tf) - (q,p)_c(tf)|_2 against the companion run's
   * final state; NAN otherwise. */
  double error_estimate;
  double error_estimate_rtol; /**< the companion's relative tolerance */
  double error_estimate_atol; /**< the companion's absolute tolerance */
} CHSRunSummary;

/** Fill opt with the defaults: method "erk:rk4", every 1, every other field 0 or NULL. */
CHS_EXPORT void CHSRunOptions_Default(CHSRunOptions *opt);

/** Runs; the summary is filled as far as the run got, also when it fails. Before any step the
 * initial state, its energy and the first right-hand side (DAE: residual) must be finite, else
 * CHS_ERR_ARG naming the problem (parameters so large that the forces overflow). */
CHS_EXPORT int CHSRun(CHSFormulation f, const CHSRunOptions *opt, CHSMonitorFn monitor, void *ctx,
                      CHSRunSummary *summary, CHSError *err);
/** The number of events the problem declares (0: none); names in its ops' event_names. */
CHS_EXPORT int CHSProblem_GetNumEvents(CHSProblem prob);
/** The check CHSRun makes of CHSRunOptions.stop_at, on its own (e.g. before opening outputs):
 * CHS_ERR_ARG naming an unknown or empty name and the problem's events. */
CHS_EXPORT int CHSProblem_CheckStopAt(CHSProblem prob, const char *stop_at, CHSError *err);

/** @name Options as an object, set by functions
 * The options of CHSRun without filling the struct or building a spec string: a C program or a
 * binding (the Python package, python/chs) that never depends on the struct's layout. Every Set
 * function checks its value and returns 0, or CHS_ERR_ARG (CHS_ERR_NOTFOUND for an unknown
 * method family) with err naming the value, leaving the options unchanged. They take options
 * from CHSRunOptions_Create only (which keeps copies of the strings they are given); a
 * CHSRunOptions filled by CHSRunOptions_Default is set through its fields instead.
 * @{ */
/** New options with the defaults of CHSRunOptions_Default; NULL when out of memory. */
CHS_EXPORT CHSRunOptions *CHSRunOptions_Create(void);
/** Free options from CHSRunOptions_Create and set *opt to NULL; NULL and *opt NULL allowed. */
CHS_EXPORT void CHSRunOptions_Destroy(CHSRunOptions **opt);
/** The method "family:options" (`chs list methods`), copied; its family must exist, or "auto"
 * (CHSRunProblem_Choose). */
CHS_EXPORT int CHSRunOptions_SetMethod(CHSRunOptions *opt, const char *method, CHSError *err);
/** Adaptive steps with these tolerances, both > 0 and finite (clears a fixed step). */
CHS_EXPORT int CHSRunOptions_SetTolerances(CHSRunOptions *opt, sunrealtype rtol, sunrealtype atol,
                                           CHSError *err);
/** A fixed step h > 0, finite (the tolerances stay: implicit methods' nonlinear solver uses them).
 */
CHS_EXPORT int CHSRunOptions_SetFixedStep(CHSRunOptions *opt, sunrealtype h, CHSError *err);
/** Initial and final time: finite, tf >= t0. */
CHS_EXPORT int CHSRunOptions_SetTimes(CHSRunOptions *opt, sunrealtype t0, sunrealtype tf,
                                      CHSError *err);
/** A record every `every` >= 1 steps. */
CHS_EXPORT int CHSRunOptions_SetEvery(CHSRunOptions *opt, long every, CHSError *err);
/** kind: CHS_PROJECT_NONE, _MOMENTUM, _POSITION or _BOTH; tol >= 0, finite (0: every step). */
CHS_EXPORT int CHSRunOptions_SetProjection(CHSRunOptions *opt, int kind, sunrealtype tol,
                                           CHSError *err);
/** Project only every k-th step, k >= 0 (0 or 1: every step). */
CHS_EXPORT int CHSRunOptions_SetProjectionEvery(CHSRunOptions *opt, long k, CHSError *err);
/** The position projection's Newton stops at |g| <= tol, tol >= 0 and finite (0: round-off). */
CHS_EXPORT int CHSRunOptions_SetProjectionNewtonTol(CHSRunOptions *opt, sunrealtype tol,
                                                    CHSError *err);
/** The bound on the steps of the whole run, in [0, CHS_RUN_MAX_STEPS_LIMIT] (0: the default). */
CHS_EXPORT int CHSRunOptions_SetMaxSteps(CHSRunOptions *opt, long max_steps, CHSError *err);
/** Stop at the first of these events (CHSRunOptions.stop_at), copied; NULL: none. A name the
 * problem does not declare is refused by CHSRun (or CHSProblem_CheckStopAt), which knows it. */
CHS_EXPORT int CHSRunOptions_SetStopAt(CHSRunOptions *opt, const char *stop_at, CHSError *err);
/** 1: locate and report the problem's events (also without stop_at); 0: not. */
CHS_EXPORT int CHSRunOptions_SetLocateEvents(CHSRunOptions *opt, int on, CHSError *err);
/** CHS_RUN_CHECK_AUTO, _OFF or _ON (the derivative probe before the run). */
CHS_EXPORT int CHSRunOptions_SetCheck(CHSRunOptions *opt, int check, CHSError *err);
/** CHSRunOptions.multipliers: 1 makes each record carry lambda, the reaction forces and v
 * (0 or 1, else CHS_ERR_ARG). */
CHS_EXPORT int CHSRunOptions_SetMultipliers(CHSRunOptions *opt, int on, CHSError *err);
/** 1: estimate the final error from a companion run (CHSRunOptions.estimate_error); 0: not. */
CHS_EXPORT int CHSRunOptions_SetEstimateError(CHSRunOptions *opt, int on, CHSError *err);
/** 1: a failed probe is an input error; 0: a warning. */
CHS_EXPORT int CHSRunOptions_SetStrict(CHSRunOptions *opt, int strict, CHSError *err);
/** CHS_SUBNORMALS_FLUSH or CHS_SUBNORMALS_KEEP. */
CHS_EXPORT int CHSRunOptions_SetSubnormals(CHSRunOptions *opt, int subnormals, CHSError *err);
/** @} */

/** @name The summary as an object, read by functions
 * For bindings that do not mirror CHSRunSummary: a zeroed summary to give CHSRun, and its
 * counters. The getters take a summary CHSRun filled (or NULL: they return 0 / NULL).
 * @{ */
/** A new zeroed summary; NULL when out of memory. */
CHS_EXPORT CHSRunSummary *CHSRunSummary_Create(void);
/** Free a summary from CHSRunSummary_Create and set *sum to NULL; NULL allowed. */
CHS_EXPORT void CHSRunSummary_Destroy(CHSRunSummary **sum);
/** Steps the integrator took (CHSIntegratorStats.steps). */
CHS_EXPORT long CHSRunSummary_GetNumSteps(const CHSRunSummary *sum);
/** Right-hand side (DAE: residual) evaluations counted by the formulation. */
CHS_EXPORT long CHSRunSummary_GetNumRhsEvals(const CHSRunSummary *sum);
/** Jacobian evaluations (-1: not applicable). */
CHS_EXPORT long CHSRunSummary_GetNumJacEvals(const CHSRunSummary *sum);
/** Error test failures (-1: not applicable). */
CHS_EXPORT long CHSRunSummary_GetNumErrTestFails(const CHSRunSummary *sum);
/** Position projections (-1: no projector). */
CHS_EXPORT long CHSRunSummary_GetNumPositionProjections(const CHSRunSummary *sum);
/** Momentum projections (-1: no projector). */
CHS_EXPORT long CHSRunSummary_GetNumMomentumProjections(const CHSRunSummary *sum);
/** Records made (output times, t0 included). */
CHS_EXPORT long CHSRunSummary_GetNumRecords(const CHSRunSummary *sum);
/** The time of the last record. */
CHS_EXPORT sunrealtype CHSRunSummary_GetFinalTime(const CHSRunSummary *sum);
/** Seconds inside the integrator. */
CHS_EXPORT double CHSRunSummary_GetWallTime(const CHSRunSummary *sum);
/** 1 when the run reached tf or its stop event. */
CHS_EXPORT int CHSRunSummary_GetCompleted(const CHSRunSummary *sum);
/** Warnings given (only the first CHS_RUN_MAX_WARNINGS are kept). */
CHS_EXPORT int CHSRunSummary_GetNumWarnings(const CHSRunSummary *sum);
/** The i-th kept warning, one line; NULL when i is out of range or not kept. */
CHS_EXPORT const char *CHSRunSummary_GetWarning(const CHSRunSummary *sum, int i);
/** The formulation and method that ran, and why they were chosen ("" when they were given):
 * CHSRunSummary.formulation, .method, .choice (NULL for a NULL summary). */
CHS_EXPORT const char *CHSRunSummary_GetFormulation(const CHSRunSummary *sum);
CHS_EXPORT const char *CHSRunSummary_GetMethod(const CHSRunSummary *sum);
CHS_EXPORT const char *CHSRunSummary_GetChoice(const CHSRunSummary *sum);
/** CHSRunSummary.error_estimate (NAN without an estimate or for a NULL summary). */
CHS_EXPORT double CHSRunSummary_GetErrorEstimate(const CHSRunSummary *sum);
/** @} */

/** CHSRun of the formulation `formulation` (a spec, `chs list formulations`) of prob, created for
 * this run in a SUNContext of its own (whose SUNDIALS 7 error handlers are cleared: failures are
 * reported through err), and destroyed before it returns: the run of `chs run` without a
 * SUNContext in the caller's hands. prob stays the caller's. A formulation NULL or "auto", or a
 * method (opt->method) NULL or "auto", runs the configuration of CHSRunProblem_Choose. */
CHS_EXPORT int CHSRunProblem(CHSProblem prob, const char *formulation, const CHSRunOptions *opt,
                             CHSMonitorFn monitor, void *ctx, CHSRunSummary *sum, CHSError *err);

/** The final global error of a run of `formulation` (a spec) on prob with opt (adaptive) that
 * ended at the physical state (q, p) (its last record's), from a companion run of the same
 * configuration at tolerances / CHS_RUN_ESTIMATE_FACTOR (at least CHS_RUN_ESTIMATE_TOL_FLOOR):
 * sum->error_estimate = |(q,p) - (q,p)_c|_2 and the companion's tolerances. What CHSRunProblem
 * does with CHSRunOptions.estimate_error; for a caller that ran the configuration itself (prob in
 * the state it started from). 0, or the companion's code with err saying so. */
CHS_EXPORT int CHSRunProblem_EstimateError(CHSProblem prob, const char *formulation,
                                           const CHSRunOptions *opt, const sunrealtype *q,
                                           const sunrealtype *p, CHSRunSummary *sum, CHSError *err);

/** @name The configuration chs chooses (docs/auto.md)
 * For a formulation or method given as "auto" (or NULL): the Hamilton-Dirac formulation (its
 * constraints are first integrals); for an adaptive run CVODE Adams, the cheapest at equal final
 * error on the built-in problems with references (within 1.5 x of the cheapest configuration at
 * every point `chs bench auto` measures); for a fixed step RATTLE, or RK4 where RATTLE does not
 * apply (a run of no step finds out); for a DAE formulation IDA.
 * @{ */
/** A configuration: what was given, or chosen, and why. */
typedef struct {
  char formulation[128];  /**< the formulation spec to run */
  char method[128];       /**< the method spec to run */
  int formulation_chosen; /**< 1: the formulation was chosen here */
  int method_chosen;      /**< 1: the method was chosen here */
  char why[600];          /**< one clause per choice ("" when nothing was chosen) */
} CHSRunChoice;
/** 1 when a formulation or method spec asks for the choice: NULL or "auto". */
CHS_EXPORT int CHSRunAuto_Wanted(const char *spec);
/** The configuration CHSRunProblem runs for prob with formulation and opt (its method, its fixed
 * step or tolerances): the given formulation and method where they are not "auto", chosen ones
 * where they are. CHS_ERR_NOTFOUND for an unknown formulation whose method is to be chosen. */
CHS_EXPORT int CHSRunProblem_Choose(CHSProblem prob, const char *formulation,
                                    const CHSRunOptions *opt, CHSRunChoice *choice, CHSError *err);
/** @} */

/** @name Collecting the records into arrays
 * A CHSCollector is a CHSMonitorFn (CHSCollector_Monitor, with the collector as ctx) that copies
 * each record's fields into arrays it grows, one row per record: a run's trajectory and
 * diagnostics for a caller that wants arrays (the Python package reads them without knowing
 * CHSRecord's layout). Fields by name (CHSCollector_FieldName lists them):
 *   t, energy, energy_err, pos_res, mom_res   one column;
 *   int_err      one column, for problems with a reference solution (CHSProblem_Reference);
 *   q, p         n columns: the physical state;
 *   v            n columns: v = M(q)^{-1} p;
 *   invariants   one column per extra invariant, for problems that declare some;
 *   lambda       m columns: the multipliers, and reaction, n columns: the constraint forces
 *                -G^T lambda, both from records of a run with CHSRunOptions.multipliers = 1
 *                (CHSRunOptions_SetMultipliers), for problems whose kinetic energy is not scaled.
 * Columns are named (CHSCollector_GetColumnName): q by the problem's coordinate names
 * (CHSProblemDims.coordinate_names; else q1 .. qn), p and v as p_NAME / v_NAME (else p1 .., v1 ..),
 * invariants by theirs, lambda by the constraint names (lambda_NAME, else lambda1 ..), reaction as
 * R_NAME (else R1 ..), one-column fields by the field's name.
 * @{ */
/** Records collected into growable arrays (see above). */
typedef struct CHSCollector_ *CHSCollector;
/** A collector of prob's records; fields: a comma-separated list of field names, NULL for every
 * field prob has except lambda and reaction, or "all" for every field prob has. An unknown name, or
 * one prob does not have (int_err without a reference, invariants without any), is CHS_ERR_ARG
 * naming it. */
CHS_EXPORT int CHSCollector_Create(CHSProblem prob, const char *fields, CHSCollector *out,
                                   CHSError *err);
/** Free a collector and set *col to NULL; NULL allowed. */
CHS_EXPORT void CHSCollector_Destroy(CHSCollector *col);
/** The CHSMonitorFn to give CHSRun with the collector as ctx: appends rec (CHS_ERR_MEM when the
 * arrays cannot grow; CHS_ERR_CALLBACK when M(q) cannot be factored for v;
 * CHS_ERR_UNSUPPORTED when the record does not carry a collected array). */
CHS_EXPORT int CHSCollector_Monitor(const CHSRecord *rec, void *col);
/** The name of the i-th field, for i = 0, 1, ...; NULL past the last. */
CHS_EXPORT const char *CHSCollector_FieldName(int i);
/** Records collected so far (the rows of every field). */
CHS_EXPORT long CHSCollector_GetNumRecords(CHSCollector col);
/** A collected field: *data (row-major, GetNumRecords rows of *cols columns; valid until the next
 * record or Destroy) and *cols. CHS_ERR_NOTFOUND when the field is not collected. */
CHS_EXPORT int CHSCollector_GetField(CHSCollector col, const char *field, const sunrealtype **data,
                                     long *cols, CHSError *err);
/** The name of column j of a collected field; NULL when the field is not collected or j is out
 * of range. */
CHS_EXPORT const char *CHSCollector_GetColumnName(CHSCollector col, const char *field, long j);
/** @} */

#ifdef __cplusplus
}
#endif
#endif
