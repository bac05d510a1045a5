/* Helpers shared by the cmocka unit tests (header only: macros and static inline functions, so
 * each test program gets its own copy and unused helpers cost nothing).
 *
 *   - cmocka and its prerequisites, the C headers the tests use, chs and the private compat.h;
 *   - CHECK_LE / CHECK_GT / CHECK_NEAR: comparisons that print both values on failure;
 *   - rng_seed / rng_uniform: reproducible random numbers (splitmix64);
 *   - norm_inf, norm2, diff_inf, diff2: norms of vectors and of their differences;
 *   - group_setup / group_teardown / test_context: one SUNDIALS context per test group;
 *   - new_problem / new_problem_from_ops / new_formulation / new_initial_state: creation that
 *     reports the library's message on failure; formulation_refused: a creation that must fail;
 *   - cb / callbacks: a problem's callback table and data, to call the callbacks directly;
 *   - random_inconsistent_point: a random (y, y', cj) for residual Jacobians;
 *   - run_options: default run options with a method, a step and a final time;
 *   - run_ok / run_monitored_ok: CHSRun (without / with a monitor) that must succeed, reporting
 *     the library's message otherwise;
 *   - check_constraints_at_roundoff: g and psi over 10^4 steps of a method that keeps them;
 *   - own_ida: a DAE formulation in the caller's own IDA (vectors, start, free);
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
#include <ida/ida.h>
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

/* CHSProblem_CreateFromOps(ops, params): a problem defined by a test's own callback table. */
static inline CHSProblem new_problem_from_ops(const CHSProblemOps *ops, const char *params) {
  CHSProblem prob = NULL;
  CHSError err;
  CHSError_Clear(&err);
  int rc = CHSProblem_CreateFromOps(ops, params, &prob, &err);
  if (rc != 0) {
    print_error("CHSProblem_CreateFromOps(%s): %s\n", ops->name, err.msg);
  }
  assert_int_equal(rc, 0);
  return prob;
}

/* A problem's callback table and the data its callbacks take, to call them directly. */
typedef struct {
  const CHSProblemOps *ops;
  void *data;
} cb;

static inline cb callbacks(CHSProblem prob) {
  cb c = {CHSProblem_GetOps(prob), CHSProblem_GetData(prob)};
  return c;
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

/* CHSFormulation_Create(name) on prob is refused (CHS_ERR_UNSUPPORTED, no formulation) with a
 * message that names the formulation and says why (a fragment of it); returns the error. */
static inline CHSError formulation_refused(const char *name, CHSProblem prob, const char *why) {
  CHSFormulation f = NULL;
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSFormulation_Create(name, prob, test_context(), &f, &err),
                   CHS_ERR_UNSUPPORTED);
  assert_null(f);
  assert_non_null(strstr(err.msg, name));
  assert_non_null(strstr(err.msg, why));
  return err;
}

/* f's initial state (CHSFormulation_NewInitialState); must succeed. */
static inline N_Vector new_initial_state(CHSFormulation f) {
  N_Vector y = NULL;
  CHSError err;
  CHSError_Clear(&err);
  int rc = CHSFormulation_NewInitialState(f, &y, &err);
  if (rc != 0) {
    print_error("CHSFormulation_NewInitialState: %s\n", err.msg);
  }
  assert_int_equal(rc, 0);
  return y;
}

/* A random point near (y, y') where a residual is not consistent: y_i += U(-dy, dy) and
 * y'_i = U(-1, 1), component by component; returns a random cj, U(0.5, cj_max). */
static inline double random_inconsistent_point(N_Vector y, N_Vector yp, double dy, double cj_max) {
  double *a = N_VGetArrayPointer(y), *ap = N_VGetArrayPointer(yp);
  for (long i = 0; i < (long)N_VGetLength(y); i++) {
    a[i] += rng_uniform(-dy, dy);
    ap[i] = rng_uniform(-1, 1);
  }
  return rng_uniform(0.5, cj_max);
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

/* The constraints over a long run of a method that keeps them (test_rattle.c, test_lobatto.c,
 * test_sprk.c): method (standard formulation, fixed step 0.01, to t = 100) on the double pendulum
 * with unequal masses takes 10^4 steps, and g and psi stay at round-off (1e-13). */
static inline void check_constraints_at_roundoff(const char *method) {
  CHSProblem prob = new_problem("double-pendulum:m1=1,m2=3");
  CHSFormulation f = new_formulation("standard", prob, test_context());
  CHSRunOptions o = run_options(method, 0.01, 100);
  CHSRunSummary s = run_ok(f, &o);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
  print_message("%s, double pendulum, 10^4 steps: max |g| %.2e, max |psi| %.2e, energy %.2e, %.2f "
                "force evaluations per step\n",
                method, s.diag.pos_res_max, s.diag.mom_res_max, s.diag.energy_err_max,
                (double)s.rhs_evals / (double)s.stats.steps);
  assert_int_equal(s.stats.steps, 10000);
  CHECK_LE(s.diag.pos_res_max, 1e-13);
  CHECK_LE(s.diag.mom_res_max, 1e-13);
}

/* ------------------------------------------------------------------ a caller's own IDA */

/* A DAE formulation in the caller's own IDA, as a program with its own solver sets it up
 * (test_glue.c, test_jac_adapters.c): own_ida_new gives the problem, its formulation, the
 * formulation's initial state y and three vectors like it (y', the absolute tolerances, the
 * component ids: the caller fills them); the caller makes A and LS, own_ida_start creates IDA on
 * them all, own_ida_free frees it all. */
typedef struct {
  CHSProblem prob;
  CHSFormulation f;
  N_Vector y, yp, atol, id;
  SUNMatrix A;
  SUNLinearSolver LS;
  void *mem;
} own_ida;

static inline own_ida own_ida_new(const char *problem, const char *form) {
  own_ida u = {.prob = new_problem(problem)};
  u.f = new_formulation(form, u.prob, test_context());
  u.y = new_initial_state(u.f);
  u.yp = N_VClone(u.y);
  u.atol = N_VClone(u.y);
  u.id = N_VClone(u.y);
  return u;
}

/* IDA on CHSFormulation_Residual (user_data f) from (y, y') at t = 0 with the tolerances rtol and
 * atol, the component ids, the linear solver LS on A and at most 100000 steps. */
static inline void own_ida_start(own_ida *u, double rtol) {
  u->mem = IDACreate(test_context());
  assert_int_equal(IDAInit(u->mem, CHSFormulation_Residual, 0, u->y, u->yp), 0);
  assert_int_equal(IDASetUserData(u->mem, u->f), 0);
  assert_int_equal(IDASVtolerances(u->mem, rtol, u->atol), 0);
  assert_int_equal(IDASetId(u->mem, u->id), 0);
  assert_int_equal(IDASetLinearSolver(u->mem, u->LS, u->A), 0);
  assert_int_equal(IDASetMaxNumSteps(u->mem, 100000), 0);
}

static inline void own_ida_free(own_ida *u) {
  IDAFree(&u->mem);
  SUNLinSolFree(u->LS);
  SUNMatDestroy(u->A);
  N_VDestroy(u->y);
  N_VDestroy(u->yp);
  N_VDestroy(u->atol);
  N_VDestroy(u->id);
  CHSFormulation_Destroy(&u->f);
  CHSProblem_Destroy(&u->prob);
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
