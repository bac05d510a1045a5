/* Helpers shared by the cmocka unit tests (header only: macros and static inline functions, so
 * each test program gets its own copy and unused helpers cost nothing).
 *
 *   - cmocka and its prerequisites, the C headers the tests use, chs and the private compat.h;
 *   - CHECK_LE / CHECK_GT / CHECK_NEAR: comparisons that print both values on failure;
 *   - rng_seed / rng_uniform: reproducible random numbers (splitmix64);
 *   - norm_inf, norm2, diff_inf, diff2: norms of vectors and of their differences;
 *   - group_setup / group_teardown / test_context: one SUNDIALS context per test group;
 *   - new_problem / new_formulation: creation that reports the library's message on failure;
 *   - run_options: default run options with a method, a step and a final time;
 *   - run_ok / run_monitored_ok: CHSRun (without / with a monitor) that must succeed, reporting
 *     the library's message otherwise;
 *   - final_record / final_record_monitor: the last record's positions and momenta. */
#ifndef CHS_TEST_UTIL_H
#define CHS_TEST_UTIL_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <nvector/nvector_serial.h>

#include "../src/compat.h"
#include "chs/chs.h"

/* ------------------------------------------------------------------ checks */

#define CHECK_LE(a, b)                                                                             \
  do {                                                                                             \
    double chk_a_ = (double)(a), chk_b_ = (double)(b);                                             \
    if (!(chk_a_ <= chk_b_)) {                                                                     \
      print_error("%s:%d: %s = %.6e  >  %s = %.6e\n", __FILE__, __LINE__, #a, chk_a_, #b, chk_b_); \
      fail();                                                                                      \
    }                                                                                              \
  } while (0)

#define CHECK_GT(a, b)                                                                             \
  do {                                                                                             \
    double chk_a_ = (double)(a), chk_b_ = (double)(b);                                             \
    if (!(chk_a_ > chk_b_)) {                                                                      \
      print_error("%s:%d: %s = %.6e  <=  %s = %.6e\n", __FILE__, __LINE__, #a, chk_a_, #b,         \
                  chk_b_);                                                                         \
      fail();                                                                                      \
    }                                                                                              \
  } while (0)

#define CHECK_NEAR(a, b, tol)                                                                      \
  do {                                                                                             \
    double chk_a_ = (double)(a), chk_b_ = (double)(b), chk_t_ = (double)(tol);                     \
    if (!(fabs(chk_a_ - chk_b_) <= chk_t_)) {                                                      \
      print_error("%s:%d: %s = %.6f is not within %.3g of %.6f\n", __FILE__, __LINE__, #a, chk_a_, \
                  chk_t_, chk_b_);                                                                 \
      fail();                                                                                      \
    }                                                                                              \
  } while (0)

/* ------------------------------------------------------------------ random numbers */

/* Reproducible random numbers (splitmix64), independent of the C library. One state per test
 * program (per translation unit including this header), set by rng_seed. */
static inline uint64_t *rng_state_(void) {
  static uint64_t state;
  return &state;
}

static inline void rng_seed(uint64_t s) {
  *rng_state_() = s;
}

static inline double rng_uniform(double lo, double hi) {
  uint64_t z = (*rng_state_() += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return lo + (hi - lo) * ((double)(z >> 11) * 0x1.0p-53);
}

/* ------------------------------------------------------------------ norms */

static inline double norm_inf(const double *x, int n) {
  double r = 0;
  for (int i = 0; i < n; i++) {
    r = fmax(r, fabs(x[i]));
  }
  return r;
}

static inline double norm2(const double *x, int n) {
  double r = 0;
  for (int i = 0; i < n; i++) {
    r += x[i] * x[i];
  }
  return sqrt(r);
}

/* max_i |x_i - y_i| */
static inline double diff_inf(const double *x, const double *y, int n) {
  double r = 0;
  for (int i = 0; i < n; i++) {
    r = fmax(r, fabs(x[i] - y[i]));
  }
  return r;
}

/* |x - y|_2 */
static inline double diff2(const double *x, const double *y, int n) {
  double r = 0;
  for (int i = 0; i < n; i++) {
    r += (x[i] - y[i]) * (x[i] - y[i]);
  }
  return sqrt(r);
}

/* ------------------------------------------------------------------ context, problems */

/* The context of a test group: pass group_setup and group_teardown to
 * cmocka_run_group_tests_name; the tests use test_context(). */
static inline SUNContext *test_context_slot_(void) {
  static SUNContext ctx;
  return &ctx;
}

static inline SUNContext test_context(void) {
  return *test_context_slot_();
}

static inline int group_setup(void **state) {
  (void)state;
  return chs_context_create(test_context_slot_());
}

static inline int group_teardown(void **state) {
  (void)state;
  return SUNContext_Free(test_context_slot_());
}

static inline CHSProblem new_problem(const char *spec) {
  CHSProblem prob = NULL;
  CHSError err;
  CHSError_Clear(&err);
  int rc = CHSProblem_Create(spec, &prob, &err);
  if (rc != 0) {
    print_error("CHSProblem_Create(%s): %s\n", spec, err.msg);
  }
  assert_int_equal(rc, 0);
  assert_non_null(prob);
  return prob;
}

static inline CHSFormulation new_formulation(const char *name, CHSProblem prob, SUNContext sunctx) {
  CHSFormulation f = NULL;
  CHSError err;
  CHSError_Clear(&err);
  int rc = CHSFormulation_Create(name, prob, sunctx, &f, &err);
  if (rc != 0) {
    print_error("CHSFormulation_Create(%s): %s\n", name, err.msg);
  }
  assert_int_equal(rc, 0);
  assert_non_null(f);
  return f;
}

/* out = f(z), the formulation's right-hand side at the state z (length len); must succeed. */
static inline void formulation_rhs(CHSFormulation f, const double *z, double *out, int len) {
  N_Vector y = N_VNew_Serial(len, test_context()), yd = N_VNew_Serial(len, test_context());
  memcpy(N_VGetArrayPointer(y), z, (size_t)len * sizeof *z);
  assert_int_equal(CHSFormulation_Rhs(0, y, yd, f), 0);
  memcpy(out, N_VGetArrayPointer(yd), (size_t)len * sizeof *out);
  N_VDestroy(y);
  N_VDestroy(yd);
}

/* The default run options with method, fixed step h (0: adaptive, set ctl.rtol/atol) and final
 * time tf. */
static inline CHSRunOptions run_options(const char *method, double h, double tf) {
  CHSRunOptions o;
  CHSRunOptions_Default(&o);
  o.method = method;
  o.ctl.h = h;
  o.tf = tf;
  return o;
}

/* CHSRun(f, o) with a monitor (or NULL) and its ctx; fails the test with the library's message
 * unless it succeeds. */
static inline CHSRunSummary run_monitored_ok(CHSFormulation f, const CHSRunOptions *o,
                                             CHSMonitorFn monitor, void *ctx) {
  CHSRunSummary sum;
  CHSError err;
  CHSError_Clear(&err);
  int rc = CHSRun(f, o, monitor, ctx, &sum, &err);
  if (rc != 0) {
    print_error("CHSRun(%s): %s\n", o->method ? o->method : "default", err.msg);
  }
  assert_int_equal(rc, 0);
  return sum;
}

/* CHSRun(f, o) without monitor; fails the test with the library's message unless it succeeds. */
static inline CHSRunSummary run_ok(CHSFormulation f, const CHSRunOptions *o) {
  return run_monitored_ok(f, o, NULL, NULL);
}

/* The state of the last record: n positions into q and n momenta into p (the caller's arrays; p
 * may be NULL). */
typedef struct {
  long n;
  double *q, *p;
} final_record;

/* A CHSMonitorFn whose ctx is a final_record. */
static inline int final_record_monitor(const CHSRecord *rec, void *ctx) {
  final_record *z = ctx;
  memcpy(z->q, rec->q, (size_t)z->n * sizeof *z->q);
  if (z->p) {
    memcpy(z->p, rec->p, (size_t)z->n * sizeof *z->p);
  }
  return 0;
}

#endif
