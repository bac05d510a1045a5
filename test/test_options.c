/* Options, summaries and records through functions (chs/run.h, src/run/options.c,
 * src/run/collect.c):
 *  - each CHSRunOptions_Set* function writes the struct field its documentation names, copies
 *    the strings it is given, and refuses bad values (CHS_ERR_ARG, CHS_ERR_NOTFOUND for an
 *    unknown method) with a message naming the value, leaving the options unchanged;
 *  - CHSRunProblem with options set by functions gives the same run as CHSRun with the struct
 *    filled by hand, and the summary getters read that run's counters;
 *  - "auto": CHSRunProblem runs the configuration CHSRunProblem_Choose names;
 *  - estimate_error: the companion run's estimate against the reference's distance;
 *  - CHSCollector: one row per record, t ascending to tf, the last q and p against the problem's
 *    reference solution (andrews at 0.03), v solving M(q) v = p with M(q) from the problem's own
 *    callback, field selection, refusals of unknown and unavailable fields, column names. */
#include "test_util.h"

#define ERR_ARG_NAMING(call, want, fragment)                                                       \
  do {                                                                                             \
    CHSError e_;                                                                                   \
    CHSError_Clear(&e_);                                                                           \
    assert_int_equal((call), (want));                                                              \
    assert_int_equal(e_.code, (want));                                                             \
    if (!strstr(e_.msg, (fragment))) {                                                             \
      fail_msg("message '%s' does not name '%s'", e_.msg, (fragment));                             \
    }                                                                                              \
  } while (0)

static void test_set_functions_set_fields(void **state) {
  (void)state;
  CHSRunOptions *o = CHSRunOptions_Create();
  assert_non_null(o);
  CHSRunOptions d;
  CHSRunOptions_Default(&d);
  assert_string_equal(o->method, d.method);
  assert_int_equal(o->every, d.every);
  assert_true(o->ctl.h == 0 && o->ctl.rtol == 0 && o->t0 == 0 && o->tf == 0);
  CHSError err;
  char method[32] = "cvode:bdf";
  assert_int_equal(CHSRunOptions_SetMethod(o, method, &err), 0);
  method[0] = 'X'; /* the options keep their own copy */
  assert_string_equal(o->method, "cvode:bdf");
  assert_int_equal(CHSRunOptions_SetFixedStep(o, 0.25, &err), 0);
  assert_true(o->ctl.h == 0.25);
  assert_int_equal(CHSRunOptions_SetTolerances(o, 1e-7, 1e-9, &err), 0);
  assert_true(o->ctl.rtol == 1e-7 && o->ctl.atol == 1e-9 && o->ctl.h == 0);
  assert_int_equal(CHSRunOptions_SetTimes(o, 1.5, 4, &err), 0);
  assert_true(o->t0 == 1.5 && o->tf == 4);
  assert_int_equal(CHSRunOptions_SetTimes(o, 2, 2, &err), 0); /* tf = t0 is a run of no length */
  assert_int_equal(CHSRunOptions_SetEvery(o, 7, &err), 0);
  assert_int_equal(o->every, 7);
  assert_int_equal(CHSRunOptions_SetProjection(o, CHS_PROJECT_BOTH, 1e-6, &err), 0);
  assert_true(o->project == CHS_PROJECT_BOTH && o->project_tol == 1e-6);
  assert_int_equal(CHSRunOptions_SetProjectionEvery(o, 3, &err), 0);
  assert_int_equal(o->project_every, 3);
  assert_int_equal(CHSRunOptions_SetProjectionNewtonTol(o, 1e-12, &err), 0);
  assert_true(o->project_newton_tol == 1e-12);
  assert_int_equal(CHSRunOptions_SetMaxSteps(o, 123, &err), 0);
  assert_int_equal(o->ctl.max_steps, 123);
  assert_int_equal(CHSRunOptions_SetMaxSteps(o, CHS_RUN_MAX_STEPS_LIMIT, &err), 0);
  char stop[16] = "vertical";
  assert_int_equal(CHSRunOptions_SetStopAt(o, stop, &err), 0);
  stop[0] = 'X';
  assert_string_equal(o->stop_at, "vertical");
  assert_int_equal(CHSRunOptions_SetStopAt(o, NULL, &err), 0);
  assert_null(o->stop_at);
  assert_int_equal(CHSRunOptions_SetLocateEvents(o, 1, &err), 0);
  assert_int_equal(o->locate_events, 1);
  assert_int_equal(CHSRunOptions_SetCheck(o, CHS_RUN_CHECK_ON, &err), 0);
  assert_int_equal(o->check, CHS_RUN_CHECK_ON);
  assert_int_equal(CHSRunOptions_SetStrict(o, 1, &err), 0);
  assert_int_equal(o->strict, 1);
  assert_int_equal(CHSRunOptions_SetSubnormals(o, CHS_SUBNORMALS_KEEP, &err), 0);
  assert_int_equal(o->subnormals, CHS_SUBNORMALS_KEEP);
  CHSRunOptions_Destroy(&o);
  assert_null(o);
  CHSRunOptions_Destroy(&o); /* NULL allowed */
}

static void test_set_functions_refuse(void **state) {
  (void)state;
  CHSRunOptions *o = CHSRunOptions_Create();
  assert_non_null(o);
  CHSError err;
  assert_int_equal(CHSRunOptions_SetTolerances(o, 1e-6, 1e-8, &err), 0);
  assert_int_equal(CHSRunOptions_SetTimes(o, 0, 10, &err), 0);
  CHSRunOptions before = *o;
  ERR_ARG_NAMING(CHSRunOptions_SetMethod(o, "nosuch:x", &e_), CHS_ERR_NOTFOUND, "nosuch:x");
  ERR_ARG_NAMING(CHSRunOptions_SetMethod(o, "", &e_), CHS_ERR_ARG, "empty method");
  ERR_ARG_NAMING(CHSRunOptions_SetMethod(o, NULL, &e_), CHS_ERR_ARG, "empty method");
  ERR_ARG_NAMING(CHSRunOptions_SetTolerances(o, 0, 1e-8, &e_), CHS_ERR_ARG, "rtol: 0");
  ERR_ARG_NAMING(CHSRunOptions_SetTolerances(o, -1e-6, 1e-8, &e_), CHS_ERR_ARG, "rtol: -1e-06");
  ERR_ARG_NAMING(CHSRunOptions_SetTolerances(o, NAN, 1e-8, &e_), CHS_ERR_ARG, "rtol");
  ERR_ARG_NAMING(CHSRunOptions_SetTolerances(o, 1e-6, INFINITY, &e_), CHS_ERR_ARG, "atol: inf");
  ERR_ARG_NAMING(CHSRunOptions_SetFixedStep(o, 0, &e_), CHS_ERR_ARG, "h: 0");
  ERR_ARG_NAMING(CHSRunOptions_SetFixedStep(o, -0.1, &e_), CHS_ERR_ARG, "h: -0.1");
  ERR_ARG_NAMING(CHSRunOptions_SetTimes(o, 0, -1, &e_), CHS_ERR_ARG, "tf: -1");
  ERR_ARG_NAMING(CHSRunOptions_SetTimes(o, 5, 4, &e_), CHS_ERR_ARG, "t0 = 5");
  ERR_ARG_NAMING(CHSRunOptions_SetTimes(o, NAN, 4, &e_), CHS_ERR_ARG, "t0");
  ERR_ARG_NAMING(CHSRunOptions_SetTimes(o, 0, INFINITY, &e_), CHS_ERR_ARG, "tf: inf");
  ERR_ARG_NAMING(CHSRunOptions_SetEvery(o, 0, &e_), CHS_ERR_ARG, "every: 0");
  ERR_ARG_NAMING(CHSRunOptions_SetProjection(o, 4, 0, &e_), CHS_ERR_ARG, "kind 4");
  ERR_ARG_NAMING(CHSRunOptions_SetProjection(o, CHS_PROJECT_MOMENTUM, -1, &e_), CHS_ERR_ARG, "-1");
  ERR_ARG_NAMING(CHSRunOptions_SetProjectionEvery(o, -2, &e_), CHS_ERR_ARG, "-2");
  ERR_ARG_NAMING(CHSRunOptions_SetProjectionNewtonTol(o, NAN, &e_), CHS_ERR_ARG, "newton");
  ERR_ARG_NAMING(CHSRunOptions_SetMaxSteps(o, -1, &e_), CHS_ERR_ARG, "max_steps: -1");
  ERR_ARG_NAMING(CHSRunOptions_SetMaxSteps(o, CHS_RUN_MAX_STEPS_LIMIT + 1, &e_), CHS_ERR_ARG,
                 "max_steps");
  ERR_ARG_NAMING(CHSRunOptions_SetStopAt(o, "", &e_), CHS_ERR_ARG, "stop_at");
  ERR_ARG_NAMING(CHSRunOptions_SetLocateEvents(o, 2, &e_), CHS_ERR_ARG, "locate_events: 2");
  ERR_ARG_NAMING(CHSRunOptions_SetCheck(o, 9, &e_), CHS_ERR_ARG, "check: 9");
  ERR_ARG_NAMING(CHSRunOptions_SetStrict(o, -1, &e_), CHS_ERR_ARG, "strict: -1");
  ERR_ARG_NAMING(CHSRunOptions_SetSubnormals(o, 5, &e_), CHS_ERR_ARG, "subnormals: 5");
  ERR_ARG_NAMING(CHSRunOptions_SetEvery(NULL, 1, &e_), CHS_ERR_ARG, "NULL");
  /* nothing changed */
  assert_ptr_equal(o->method, before.method);
  assert_true(o->ctl.rtol == before.ctl.rtol && o->ctl.atol == before.ctl.atol &&
              o->ctl.h == before.ctl.h && o->ctl.max_steps == before.ctl.max_steps);
  assert_true(o->t0 == before.t0 && o->tf == before.tf && o->every == before.every);
  assert_true(o->project == before.project && o->project_tol == before.project_tol &&
              o->project_every == before.project_every &&
              o->project_newton_tol == before.project_newton_tol);
  assert_true(o->stop_at == before.stop_at && o->locate_events == before.locate_events &&
              o->check == before.check && o->strict == before.strict &&
              o->subnormals == before.subnormals);
  CHSRunOptions_Destroy(&o);
}

/* The same run twice: CHSRun on a struct filled by hand, CHSRunProblem on options set by
 * functions. Same counters, same final state (bitwise: the same computation). */
static void test_run_problem_matches_run(void **state) {
  (void)state;
  CHSProblem prob = new_problem("pendulum");
  CHSRunOptions by_hand = run_options("erk:dp5", 0, 3);
  by_hand.ctl.rtol = 1e-8;
  by_hand.ctl.atol = 1e-8;
  by_hand.every = 4;
  by_hand.project = CHS_PROJECT_MOMENTUM;
  SUNContext ctx;
  assert_int_equal(chs_context_create(&ctx), 0);
  CHSFormulation f = new_formulation("dirac", prob, ctx);
  sunrealtype q1[2], p1[2], q2[2], p2[2];
  final_record z1 = {2, q1, p1}, z2 = {2, q2, p2};
  CHSRunSummary s1;
  CHSError err;
  assert_int_equal(CHSRun(f, &by_hand, final_record_monitor, &z1, &s1, &err), 0);
  CHSFormulation_Destroy(&f);
  SUNContext_Free(&ctx);

  CHSRunOptions *o = CHSRunOptions_Create();
  CHSRunSummary *s2 = CHSRunSummary_Create();
  assert_non_null(o);
  assert_non_null(s2);
  assert_int_equal(CHSRunOptions_SetMethod(o, "erk:dp5", &err), 0);
  assert_int_equal(CHSRunOptions_SetTolerances(o, 1e-8, 1e-8, &err), 0);
  assert_int_equal(CHSRunOptions_SetTimes(o, 0, 3, &err), 0);
  assert_int_equal(CHSRunOptions_SetEvery(o, 4, &err), 0);
  assert_int_equal(CHSRunOptions_SetProjection(o, CHS_PROJECT_MOMENTUM, 0, &err), 0);
  int rc = CHSRunProblem(prob, "dirac", o, final_record_monitor, &z2, s2, &err);
  if (rc != 0) {
    fail_msg("CHSRunProblem: %s", err.msg);
  }
  assert_true(q1[0] == q2[0] && q1[1] == q2[1] && p1[0] == p2[0] && p1[1] == p2[1]);
  assert_int_equal(CHSRunSummary_GetNumSteps(s2), s1.stats.steps);
  assert_true(s1.stats.steps > 10);
  assert_int_equal(CHSRunSummary_GetNumRhsEvals(s2), s1.rhs_evals);
  assert_int_equal(CHSRunSummary_GetNumErrTestFails(s2), s1.stats.err_test_fails);
  assert_int_equal(CHSRunSummary_GetNumJacEvals(s2), s1.stats.jac_evals);
  assert_int_equal(CHSRunSummary_GetNumMomentumProjections(s2), s1.proj_momentum);
  assert_true(s1.proj_momentum > 0);
  assert_int_equal(CHSRunSummary_GetNumPositionProjections(s2), s1.proj_position);
  assert_int_equal(CHSRunSummary_GetNumRecords(s2), s1.diag.records);
  assert_true(CHSRunSummary_GetFinalTime(s2) == 3);
  assert_int_equal(CHSRunSummary_GetCompleted(s2), 1);
  assert_int_equal(CHSRunSummary_GetNumWarnings(s2), s1.n_warnings);
  assert_null(CHSRunSummary_GetWarning(s2, s1.n_warnings));
  assert_null(CHSRunSummary_GetWarning(s2, -1));

  /* failures come back through err: an unknown formulation, a fixed step over the step bound */
  ERR_ARG_NAMING(CHSRunProblem(prob, "nosuch", o, NULL, NULL, s2, &e_), CHS_ERR_NOTFOUND, "nosuch");
  assert_int_equal(CHSRunOptions_SetFixedStep(o, 1e-3, &err), 0);
  assert_int_equal(CHSRunOptions_SetMaxSteps(o, 10, &err), 0);
  ERR_ARG_NAMING(CHSRunProblem(prob, "dirac", o, NULL, NULL, s2, &e_), CHS_ERR_ARG, "max_steps");
  CHSRunSummary_Destroy(&s2);
  assert_null(s2);
  CHSRunOptions_Destroy(&o);
  CHSProblem_Destroy(&prob);
}

/* "auto": CHSRunProblem runs CHSRunProblem_Choose's configuration (docs/auto.md's table: dirac,
 * cvode:adams adaptive, rattle at a fixed step, ida for a DAE formulation), the same run bit for
 * bit as that configuration given, and the summary names it; CHSRun, which has no formulation to
 * choose, refuses "auto". */
static void test_run_problem_auto(void **state) {
  (void)state;
  CHSProblem prob = new_problem("pendulum");
  CHSRunOptions *o = CHSRunOptions_Create();
  CHSRunSummary *s1 = CHSRunSummary_Create(), *s2 = CHSRunSummary_Create();
  CHSError err;
  assert_int_equal(CHSRunOptions_SetMethod(o, "auto", &err), 0);
  assert_int_equal(CHSRunOptions_SetTolerances(o, 1e-8, 1e-8, &err), 0);
  assert_int_equal(CHSRunOptions_SetTimes(o, 0, 3, &err), 0);
  CHSRunChoice c;
  assert_int_equal(CHSRunProblem_Choose(prob, NULL, o, &c, &err), 0);
  assert_string_equal(c.formulation, "dirac");
  assert_string_equal(c.method, "cvode:adams");
  assert_true(c.formulation_chosen && c.method_chosen);
  sunrealtype q1[2], p1[2], q2[2], p2[2];
  final_record z1 = {2, q1, p1}, z2 = {2, q2, p2};
  assert_int_equal(CHSRunProblem(prob, "auto", o, final_record_monitor, &z1, s1, &err), 0);
  assert_string_equal(CHSRunSummary_GetFormulation(s1), "dirac");
  assert_string_equal(CHSRunSummary_GetMethod(s1), "cvode:adams");
  assert_string_equal(CHSRunSummary_GetChoice(s1), c.why);
  assert_int_equal(CHSRunOptions_SetMethod(o, "cvode:adams", &err), 0);
  assert_int_equal(CHSRunProblem(prob, "dirac", o, final_record_monitor, &z2, s2, &err), 0);
  assert_string_equal(CHSRunSummary_GetChoice(s2), "");
  assert_true(q1[0] == q2[0] && q1[1] == q2[1] && p1[0] == p2[0] && p1[1] == p2[1]);
  assert_int_equal(CHSRunSummary_GetNumRhsEvals(s1), CHSRunSummary_GetNumRhsEvals(s2));

  /* a fixed step: rattle; a DAE formulation: ida; an unknown formulation to choose for */
  assert_int_equal(CHSRunOptions_SetMethod(o, "auto", &err), 0);
  assert_int_equal(CHSRunOptions_SetFixedStep(o, 0.01, &err), 0);
  assert_int_equal(CHSRunProblem_Choose(prob, "auto", o, &c, &err), 0);
  assert_string_equal(c.method, "rattle");
  assert_int_equal(CHSRunProblem_Choose(prob, "dae-ggl", o, &c, &err), 0);
  assert_string_equal(c.formulation, "dae-ggl");
  assert_string_equal(c.method, "ida");
  assert_false(c.formulation_chosen);
  ERR_ARG_NAMING(CHSRunProblem_Choose(prob, "nosuch", o, &c, &e_), CHS_ERR_NOTFOUND, "nosuch");

  SUNContext ctx;
  assert_int_equal(chs_context_create(&ctx), 0);
  CHSFormulation f = new_formulation("dirac", prob, ctx);
  ERR_ARG_NAMING(CHSRun(f, o, NULL, NULL, s2, &e_), CHS_ERR_ARG, "CHSRunProblem");
  CHSFormulation_Destroy(&f);
  SUNContext_Free(&ctx);
  CHSRunSummary_Destroy(&s1);
  CHSRunSummary_Destroy(&s2);
  CHSRunOptions_Destroy(&o);
  CHSProblem_Destroy(&prob);
}

/* estimate_error: CHSRunProblem's estimate is CHSRunProblem_EstimateError's on the run's final
 * state, within 10 % of the distance to the pendulum's reference at t = 10 (dp5, 1e-7); CHSRun and
 * fixed steps refuse it. */
static void test_error_estimate(void **state) {
  (void)state;
  CHSProblem prob = new_problem("pendulum");
  CHSRunOptions *o = CHSRunOptions_Create();
  CHSRunSummary *s1 = CHSRunSummary_Create(), *s2 = CHSRunSummary_Create();
  CHSError err;
  assert_int_equal(CHSRunOptions_SetMethod(o, "erk:dp5", &err), 0);
  assert_int_equal(CHSRunOptions_SetTolerances(o, 1e-7, 1e-7, &err), 0);
  assert_int_equal(CHSRunOptions_SetTimes(o, 0, 10, &err), 0);
  assert_int_equal(CHSRunOptions_SetEstimateError(o, 1, &err), 0);
  sunrealtype q[2], p[2], qr[2], pr[2];
  final_record z = {2, q, p};
  assert_int_equal(CHSRunProblem(prob, "dirac", o, final_record_monitor, &z, s1, &err), 0);
  assert_int_equal(CHSProblem_Reference(prob, 10, qr, pr), 0);
  double e = sqrt((q[0] - qr[0]) * (q[0] - qr[0]) + (q[1] - qr[1]) * (q[1] - qr[1]) +
                  (p[0] - pr[0]) * (p[0] - pr[0]) + (p[1] - pr[1]) * (p[1] - pr[1]));
  double est = CHSRunSummary_GetErrorEstimate(s1);
  assert_true(e > 0 && fabs(est - e) < 0.1 * e);
  assert_int_equal(CHSRunProblem_EstimateError(prob, "dirac", o, q, p, s2, &err), 0);
  assert_true(s2->error_estimate == est);
  assert_true(s2->error_estimate_rtol == 1e-7 / 100 && s2->error_estimate_atol == 1e-7 / 100);

  SUNContext ctx;
  assert_int_equal(chs_context_create(&ctx), 0);
  CHSFormulation f = new_formulation("dirac", prob, ctx);
  ERR_ARG_NAMING(CHSRun(f, o, NULL, NULL, s2, &e_), CHS_ERR_ARG, "estimate_error");
  CHSFormulation_Destroy(&f);
  SUNContext_Free(&ctx);
  assert_int_equal(CHSRunOptions_SetFixedStep(o, 0.01, &err), 0);
  ERR_ARG_NAMING(CHSRunProblem(prob, "dirac", o, NULL, NULL, s2, &e_), CHS_ERR_ARG, "adaptive");
  ERR_ARG_NAMING(CHSRunOptions_SetEstimateError(o, 2, &e_), CHS_ERR_ARG, "estimate_error");
  CHSRunSummary_Destroy(&s1);
  CHSRunSummary_Destroy(&s2);
  CHSRunOptions_Destroy(&o);
  CHSProblem_Destroy(&prob);
}

/* Andrews' squeezer (M(q), n = 7): the collected trajectory against the test set's reference at
 * 0.03, and v against M(q) v = p with M(q) from the problem's callback. */
static void test_collector_andrews(void **state) {
  (void)state;
  CHSProblem prob = new_problem("andrews");
  const CHSProblemDims *d = CHSProblem_GetDims(prob);
  const long n = (long)d->n;
  CHSCollector col = NULL;
  CHSError err;
  assert_int_equal(CHSCollector_Create(prob, NULL, &col, &err), 0);
  CHSRunOptions *o = CHSRunOptions_Create();
  CHSRunSummary *sum = CHSRunSummary_Create();
  assert_int_equal(CHSRunOptions_SetMethod(o, "cvode:bdf", &err), 0);
  assert_int_equal(CHSRunOptions_SetTolerances(o, 1e-10, 1e-10, &err), 0);
  assert_int_equal(CHSRunOptions_SetTimes(o, 0, 0.03, &err), 0);
  int rc = CHSRunProblem(prob, "dirac", o, CHSCollector_Monitor, col, sum, &err);
  if (rc != 0) {
    fail_msg("CHSRunProblem: %s", err.msg);
  }
  long rows = CHSCollector_GetNumRecords(col);
  assert_int_equal(rows, CHSRunSummary_GetNumRecords(sum));
  assert_true(rows > 100); /* cvode's steps, one record each */
  const sunrealtype *t, *q, *p, *v, *ee, *ie;
  long ct, cq, cp, cv, ce, ci;
  assert_int_equal(CHSCollector_GetField(col, "t", &t, &ct, &err), 0);
  assert_int_equal(CHSCollector_GetField(col, "q", &q, &cq, &err), 0);
  assert_int_equal(CHSCollector_GetField(col, "p", &p, &cp, &err), 0);
  assert_int_equal(CHSCollector_GetField(col, "v", &v, &cv, &err), 0);
  assert_int_equal(CHSCollector_GetField(col, "energy_err", &ee, &ce, &err), 0);
  assert_int_equal(CHSCollector_GetField(col, "int_err", &ie, &ci, &err), 0);
  assert_true(ct == 1 && cq == n && cp == n && cv == n && ce == 1 && ci == 1);
  assert_true(t[0] == 0 && t[rows - 1] == 0.03);
  for (long r = 1; r < rows; r++) {
    assert_true(t[r] > t[r - 1]);
  }
  sunrealtype qr[7], pr[7];
  assert_int_equal(n, 7);
  assert_int_equal(CHSProblem_Reference(prob, 0.03, qr, pr), 0);
  /* what rtol = atol = 1e-10 gives over this stiff start: |q - q_ref|_inf = 5.8e-6 (the global
   * error; `chs run` warns of it too); a wrong row or column is off by O(1) */
  CHECK_LE(diff_inf(q + (rows - 1) * n, qr, 7), 2e-5);
  /* int_err is |(q,p) - ref|_2 at each record: at the last one, from the collected q and p */
  double e2 = 0;
  for (long j = 0; j < n; j++) {
    e2 += pow(q[(rows - 1) * n + j] - qr[j], 2) + pow(p[(rows - 1) * n + j] - pr[j], 2);
  }
  CHECK_NEAR(ie[rows - 1], sqrt(e2), 1e-12 * (1 + sqrt(e2)));
  /* M(q) v = p at the first, a middle and the last record */
  const CHSProblemOps *ops = CHSProblem_GetOps(prob);
  assert_int_equal(d->mass_kind, CHS_MASS_CONFIG);
  assert_int_equal(d->mass_nnz, 0);
  sunrealtype M[49];
  long picks[3] = {0, rows / 2, rows - 1};
  for (int k = 0; k < 3; k++) {
    long r = picks[k];
    assert_int_equal(ops->mass_matrix(CHSProblem_GetData(prob), q + r * n, M), 0);
    double worst = 0, scale = norm_inf(p + r * n, 7);
    for (long i = 0; i < n; i++) {
      double mv = 0;
      for (long j = 0; j < n; j++) {
        mv += M[i * n + j] * v[r * n + j];
      }
      worst = fmax(worst, fabs(mv - p[r * n + i]));
    }
    CHECK_LE(worst, 1e-12 * (1 + scale));
  }
  /* columns named by the problem's coordinate names, else q1 .. */
  for (long j = 0; j < n; j++) {
    char want[64];
    if (d->coordinate_names) {
      snprintf(want, sizeof want, "%s", d->coordinate_names[j]);
    } else {
      snprintf(want, sizeof want, "q%ld", j + 1);
    }
    assert_string_equal(CHSCollector_GetColumnName(col, "q", j), want);
    char wantv[70];
    if (d->coordinate_names) {
      snprintf(wantv, sizeof wantv, "v_%s", d->coordinate_names[j]);
    } else {
      snprintf(wantv, sizeof wantv, "v%ld", j + 1);
    }
    assert_string_equal(CHSCollector_GetColumnName(col, "v", j), wantv);
  }
  assert_string_equal(CHSCollector_GetColumnName(col, "t", 0), "t");
  assert_null(CHSCollector_GetColumnName(col, "q", n));
  assert_null(CHSCollector_GetColumnName(col, "bogus", 0));
  CHSCollector_Destroy(&col);
  assert_null(col);
  CHSRunSummary_Destroy(&sum);
  CHSRunOptions_Destroy(&o);
  CHSProblem_Destroy(&prob);
}

/* Selection: only what was asked for; unknown and unavailable fields refused, naming them. */
static void test_collector_select(void **state) {
  (void)state;
  CHSProblem chain = new_problem("chain");
  CHSCollector col = NULL;
  CHSError err;
  assert_null(CHSProblem_GetOps(chain)->reference); /* the premise of the int_err refusal */
  ERR_ARG_NAMING(CHSCollector_Create(chain, "t,int_err", &col, &e_), CHS_ERR_ARG,
                 "reference solution");
  assert_null(col);
  ERR_ARG_NAMING(CHSCollector_Create(chain, "t,lambada", &col, &e_), CHS_ERR_ARG, "'lambada'");
  ERR_ARG_NAMING(CHSCollector_Create(chain, "t,", &col, &e_), CHS_ERR_ARG, "''");
  assert_int_equal(CHSCollector_Create(chain, "t,invariants", &col, &err), 0);
  CHSRunOptions *o = CHSRunOptions_Create();
  CHSRunSummary *sum = CHSRunSummary_Create();
  assert_int_equal(CHSRunOptions_SetFixedStep(o, 0.01, &err), 0);
  assert_int_equal(CHSRunOptions_SetTimes(o, 0, 0.1, &err), 0);
  assert_int_equal(CHSRunOptions_SetEvery(o, 5, &err), 0);
  int rc = CHSRunProblem(chain, "dirac", o, CHSCollector_Monitor, col, sum, &err);
  if (rc != 0) {
    fail_msg("CHSRunProblem: %s", err.msg);
  }
  assert_int_equal(CHSCollector_GetNumRecords(col), 3); /* t = 0, 0.05, 0.1 */
  const sunrealtype *t, *inv;
  long ct, ci;
  assert_int_equal(CHSCollector_GetField(col, "t", &t, &ct, &err), 0);
  CHECK_NEAR(t[1], 0.05, 1e-15);
  ERR_ARG_NAMING(CHSCollector_GetField(col, "q", &t, &ct, &e_), CHS_ERR_NOTFOUND, "'q'");
  assert_null(CHSCollector_GetColumnName(col, "q", 0));
  int k = CHSProblem_GetNumInvariants(chain);
  assert_true(k > 0);
  assert_int_equal(CHSCollector_GetField(col, "invariants", &inv, &ci, &err), 0);
  assert_int_equal(ci, k);
  for (int j = 0; j < k; j++) {
    assert_string_equal(CHSCollector_GetColumnName(col, "invariants", j),
                        CHSProblem_GetOps(chain)->invariant_names[j]);
  }
  CHSCollector_Destroy(&col);
  /* every field has a name; the list ends with NULL */
  int nf = 0;
  while (CHSCollector_FieldName(nf)) {
    nf++;
  }
  assert_true(nf >= 9);
  assert_null(CHSCollector_FieldName(-1));
  CHSRunSummary_Destroy(&sum);
  CHSRunOptions_Destroy(&o);
  CHSProblem_Destroy(&chain);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_set_functions_set_fields), cmocka_unit_test(test_set_functions_refuse),
      cmocka_unit_test(test_run_problem_matches_run),  cmocka_unit_test(test_collector_andrews),
      cmocka_unit_test(test_collector_select),         cmocka_unit_test(test_run_problem_auto),
      cmocka_unit_test(test_error_estimate),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
