/* CHSRunOptions.subnormals (src/base/fpenv.c): FLUSH turns subnormal arithmetic into zeros for the
 * duration of CHSRun and gives the caller its mode back; KEEP leaves IEEE gradual underflow. On a
 * pendulum chain of 20 000 links the tensions and the far links' momenta fall below DBL_MIN
 * (about 10^-22 per thousand links), so the KEEP run holds subnormals; the FLUSH run must reach the
 * same state to the integrator's tolerance. The flush changes the caller's modes only during the
 * run and leaves the exception flags the run raised. */
#include <fenv.h>
#include "test_util.h"

#if defined(__x86_64__) || defined(__aarch64__)
#define FLUSH_SUPPORTED 1
#else
#define FLUSH_SUPPORTED 0
#endif

/* 1 when the arithmetic of this thread produces a subnormal now (volatile: computed at run time) */
static int makes_subnormals(void) {
  volatile double tiny = 1e-300, scale = 1e-10;
  double r = tiny * scale;
  return r != 0;
}

typedef struct {
  long records, subnormal_mode_seen, flush_mode_seen;
  final_record fin;      /* the last record's state */
  long subnormal_values; /* in it */
} watch;

static int watch_monitor(const CHSRecord *rec, void *ctx) {
  watch *w = ctx;
  w->records++;
  if (makes_subnormals()) {
    w->subnormal_mode_seen++;
  } else {
    w->flush_mode_seen++;
  }
  final_record_monitor(rec, &w->fin);
  w->subnormal_values = 0;
  for (long i = 0; i < w->fin.n; i++) {
    w->subnormal_values += fpclassify(w->fin.q[i]) == FP_SUBNORMAL;
    w->subnormal_values += fpclassify(w->fin.p[i]) == FP_SUBNORMAL;
  }
  return 0;
}

static void run_chain(int mode, watch *w) {
  CHSProblem prob = new_problem("pendulum-chain:N=20000");
  CHSFormulation f = new_formulation("dae-index1", prob, test_context());
  CHSRunOptions o = run_options("ida:ls=klu", 0, 0.02);
  o.ctl.rtol = o.ctl.atol = 1e-8;
  o.every = 1000000; /* records at t0 and tf */
  o.subnormals = mode;
  CHSRunSummary sum = run_monitored_ok(f, &o, watch_monitor, w);
  assert_true(sum.completed);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

static void test_flush_and_keep(void **state) {
  (void)state;
  static double qk[40000], pk[40000], qf[40000], pf[40000];
  watch keep = {.fin = {40000, qk, pk}}, flush = {.fin = {40000, qf, pf}};
  assert_true(makes_subnormals()); /* the test's own mode: IEEE */
  run_chain(CHS_SUBNORMALS_KEEP, &keep);
  assert_true(makes_subnormals()); /* unchanged by the KEEP run */
  assert_int_equal(keep.flush_mode_seen, 0);
  assert_true(keep.records >= 2);
  /* the KEEP run's final state holds subnormals: what FLUSH is for */
  assert_true(keep.subnormal_values > 0);
  feclearexcept(FE_ALL_EXCEPT);
  run_chain(CHS_SUBNORMALS_FLUSH, &flush);
  assert_true(makes_subnormals());       /* the caller's mode is back after the FLUSH run */
  assert_true(fetestexcept(FE_INEXACT)); /* and the flags the run raised are not cleared */
  if (FLUSH_SUPPORTED) {
    assert_int_equal(flush.subnormal_mode_seen, 0); /* the monitor ran in the flushed mode */
    assert_int_equal(flush.subnormal_values, 0);
  }
  /* the same state to well within the tolerance (1e-8): values below DBL_MIN carry no digit */
  double d = 0, s = 0;
  for (long i = 0; i < keep.fin.n; i++) {
    d = fmax(d, fmax(fabs(qk[i] - qf[i]), fabs(pk[i] - pf[i])));
    s = fmax(s, fmax(fabs(qk[i]), fabs(pk[i])));
  }
  print_message("subnormal values in the KEEP run's final state: %ld; max |KEEP - FLUSH| = %.3g "
                "(max |state| %.3g)\n",
                keep.subnormal_values, d, s);
  assert_true(d <= 1e-12 * s);
}

static void test_bad_mode(void **state) {
  (void)state;
  CHSProblem prob = new_problem("pendulum");
  CHSFormulation f = new_formulation("dirac", prob, test_context());
  CHSRunOptions o = run_options("erk:rk4", 0.1, 1);
  o.subnormals = 7;
  CHSRunSummary sum;
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSRun(f, &o, NULL, NULL, &sum, &err), CHS_ERR_ARG);
  assert_non_null(strstr(err.msg, "subnormals = 7"));
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_flush_and_keep),
      cmocka_unit_test(test_bad_mode),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
