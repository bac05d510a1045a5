/* Consistent initialisation holding chosen components (chs/consistent.h): held components keep
 * their bits, g(q, 0) and G v + g_t are at round-off afterwards (computed here from the problem's
 * own callbacks, not from the library's kernels), p = M(q) v, a consistent state is left alone,
 * impossible holds are refused naming the components, and a set initial state is what
 * formulations start from. */
#include "test_util.h"

#define MAXN 16

typedef struct {
  double g, psi; /* |g(q, t0)|_2 and |G v + g_t|_2 */
} residuals;

/* The residuals at t = 0 from the problem's callbacks (dense or CSR G, time-dependent or not). */
static residuals residuals_at(CHSProblem prob, const double *q, const double *v) {
  const CHSProblemOps *ops = CHSProblem_GetOps(prob);
  void *data = CHSProblem_GetData(prob);
  const CHSProblemDims *d = CHSProblem_GetDims(prob);
  int n = (int)d->n, m = (int)d->m;
  double g[MAXN], G[MAXN * MAXN], psi[MAXN], gt[MAXN] = {0};
  if (d->time_dependent) {
    assert_int_equal(ops->set_time(data, 0), 0);
  }
  assert_int_equal(ops->constraint(data, q, g), 0);
  assert_int_equal(ops->jacobian(data, q, G), 0);
  if (d->time_dependent & CHS_TIME_CONSTRAINTS) {
    assert_int_equal(ops->constraint_dt(data, q, gt, NULL, NULL), 0);
  }
  for (int i = 0; i < m; i++) {
    psi[i] = gt[i];
    if (d->jac_kind == CHS_JAC_DENSE) {
      for (int j = 0; j < n; j++) {
        psi[i] += G[i * n + j] * v[j];
      }
    } else {
      for (sunindextype k = d->rowptr[i]; k < d->rowptr[i + 1]; k++) {
        psi[i] += G[k] * v[d->colind[k]];
      }
    }
  }
  return (residuals){norm2(g, m), norm2(psi, m)};
}

/* p = M(q) v from the problem's own mass data. */
static void mass_times(CHSProblem prob, const double *q, const double *v, double *p) {
  const CHSProblemDims *d = CHSProblem_GetDims(prob);
  int n = (int)d->n;
  double M[MAXN * MAXN] = {0};
  if (d->mass_kind == CHS_MASS_CONFIG) {
    assert_int_equal(d->mass_nnz, 0);
    assert_int_equal(CHSProblem_GetOps(prob)->mass_matrix(CHSProblem_GetData(prob), q, M), 0);
  } else {
    for (int i = 0; i < n; i++) {
      M[i * n + i] = d->mass_kind == CHS_MASS_IDENTITY   ? 1
                     : d->mass_kind == CHS_MASS_DIAGONAL ? d->mass[i]
                                                         : 0;
      for (int j = 0; d->mass_kind == CHS_MASS_DENSE && j < n; j++) {
        M[i * n + j] = d->mass[i * n + j];
      }
    }
  }
  for (int i = 0; i < n; i++) {
    p[i] = 0;
    for (int j = 0; j < n; j++) {
      p[i] += M[i * n + j] * v[j];
    }
  }
}

/* Guess, override, hold, make consistent; then the held bits, the residuals and p = M v. */
static void hold_and_check(const char *spec, const int *fix_q, const int *fix_v,
                           const double *set_q, const double *set_v) {
  CHSProblem prob = new_problem(spec);
  int n = (int)CHSProblem_GetDims(prob)->n;
  double q[MAXN], v[MAXN], p[MAXN], q0[MAXN], v0[MAXN], Mv[MAXN];
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSProblem_InitialGuess(prob, q, v, &err), 0);
  for (int i = 0; i < n; i++) {
    q[i] = isnan(set_q[i]) ? q[i] : set_q[i];
    v[i] = isnan(set_v[i]) ? v[i] : set_v[i];
  }
  memcpy(q0, q, sizeof q0);
  memcpy(v0, v, sizeof v0);
  int rc = CHSProblem_ConsistentState(prob, 0, fix_q, fix_v, q, v, p, &err);
  if (rc != 0) {
    print_error("%s: %s\n", spec, err.msg);
  }
  assert_int_equal(rc, 0);
  int moved = 0;
  for (int i = 0; i < n; i++) {
    if (fix_q[i]) {
      assert_memory_equal(&q[i], &q0[i], sizeof q[i]); /* bitwise */
    }
    if (fix_v[i]) {
      assert_memory_equal(&v[i], &v0[i], sizeof v[i]);
    }
    moved += q[i] != q0[i] || v[i] != v0[i];
  }
  CHECK_GT(moved, 0); /* the guesses of these cases are inconsistent: something had to move */
  residuals r = residuals_at(prob, q, v);
  double qn = norm2(q, n), vn = norm2(v, n);
  CHECK_LE(r.g, 1e-14 * fmax(1, qn * qn));
  CHECK_LE(r.psi, 1e-14 * fmax(1, qn * vn));
  mass_times(prob, q, v, Mv);
  CHECK_LE(diff_inf(p, Mv, n), 1e-14 * (1 + norm_inf(Mv, n)));
  CHSProblem_Destroy(&prob);
}

#define U NAN /* not set: the guess's value */

/* double pendulum (constant diagonal M): x2 set to 2.1 and held, v(y2) set to 0.3 and held. */
static void test_double_pendulum_holds(void **state) {
  (void)state;
  int fq[4] = {0, 0, 1, 0}, fv[4] = {0, 0, 0, 1};
  double sq[4] = {U, U, 2.1, U}, sv[4] = {U, U, U, 0.3};
  hold_and_check("double-pendulum", fq, fv, sq, sv);
}

/* andrews (M(q), 7 angles, 6 constraints): beta' set to 1 and held, every position free. */
static void test_andrews_velocity_held(void **state) {
  (void)state;
  int fq[7] = {0}, fv[7] = {1, 0, 0, 0, 0, 0, 0};
  double sq[7] = {U, U, U, U, U, U, U}, sv[7] = {1, U, U, U, U, U, U};
  hold_and_check("andrews", fq, fv, sq, sv);
}

/* car axis (g depends on t; g_t = (yb'(0) yl, 0) enters the velocity constraint): the right
 * wheel's y moved off the manifold and held, its velocity changed and held. */
static void test_car_axis_time_dependent(void **state) {
  (void)state;
  CHSProblem prob = new_problem("car-axis");
  double q[4], v[4];
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSProblem_InitialGuess(prob, q, v, &err), 0);
  CHSProblem_Destroy(&prob);
  int fq[4] = {0, 0, 0, 1}, fv[4] = {0, 0, 0, 1};
  double sq[4] = {U, U, U, q[3] + 1e-3}, sv[4] = {U, U, U, v[3] + 0.01};
  hold_and_check("car-axis", fq, fv, sq, sv);
}

/* A state consistent already, nothing held, is returned bit for bit: heavy-top's (M(q)) and
 * double-pendulum's, whose v = M^-1 p leaves G v at round-off but not zero while v1 = v2 = 0
 * (a projection step of round-off size would change their bits). */
static void left_alone(const char *spec) {
  CHSProblem prob = new_problem(spec);
  double q[4], v[4], p[4], q0[4], v0[4];
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSProblem_InitialGuess(prob, q, v, &err), 0);
  memcpy(q0, q, sizeof q);
  memcpy(v0, v, sizeof v);
  assert_int_equal(CHSProblem_ConsistentState(prob, 0, NULL, NULL, q, v, p, &err), 0);
  assert_memory_equal(q, q0, sizeof q);
  assert_memory_equal(v, v0, sizeof v);
  CHSProblem_Destroy(&prob);
}

static void test_consistent_left_alone(void **state) {
  (void)state;
  left_alone("heavy-top");
  left_alone("double-pendulum");
}

/* Holding x' = 0.5 of the pendulum at (1, 0) leaves y' alone against g' = x x' + y y' = 0 with
 * y = 0: refused, naming v1, q and v untouched. */
static void test_impossible_refused(void **state) {
  (void)state;
  CHSProblem prob = new_problem("pendulum");
  double q[2], v[2], p[2], q0[2], v0[2];
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSProblem_InitialGuess(prob, q, v, &err), 0);
  v[0] = 0.5;
  memcpy(q0, q, sizeof q);
  memcpy(v0, v, sizeof v);
  int fq[2] = {0, 0}, fv[2] = {1, 0};
  assert_int_equal(CHSProblem_ConsistentState(prob, 0, fq, fv, q, v, p, &err), CHS_ERR_ARG);
  assert_non_null(strstr(err.msg, "held components v:x admit no consistent state"));
  assert_memory_equal(q, q0, sizeof q);
  assert_memory_equal(v, v0, sizeof v);
  /* both positions held off the circle: no free coordinate can reach g = 0 */
  int fq2[2] = {1, 1};
  q[0] = 1.1;
  assert_int_equal(CHSProblem_ConsistentState(prob, 0, fq2, NULL, q, v, p, &err), CHS_ERR_ARG);
  assert_non_null(strstr(err.msg, "q:x, q:y"));
  CHSProblem_Destroy(&prob);
}

/* SetInitialState: formulations start from it, the reference no longer applies, and an
 * inconsistent state is refused. */
static void test_set_initial_state(void **state) {
  (void)state;
  CHSProblem prob = new_problem("double-pendulum");
  double q[4], v[4], p[4];
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSProblem_InitialGuess(prob, q, v, &err), 0);
  v[3] = 0.3;
  int fv[4] = {0, 0, 0, 1};
  assert_int_equal(CHSProblem_ConsistentState(prob, 0, NULL, fv, q, v, p, &err), 0);
  double bad[4] = {q[0] + 0.1, q[1], q[2], q[3]};
  assert_int_equal(CHSProblem_SetInitialState(prob, bad, p, &err), CHS_ERR_INCONSISTENT);
  assert_int_equal(CHSProblem_SetInitialState(prob, q, p, &err), 0);
  double qr[4], pr[4];
  assert_int_equal(CHSProblem_Reference(prob, 1, qr, pr), CHS_ERR_UNSUPPORTED);
  CHSFormulation f = new_formulation("standard", prob, test_context());
  N_Vector y = new_initial_state(f);
  assert_memory_equal(N_VGetArrayPointer(y), q, sizeof q);
  assert_memory_equal(N_VGetArrayPointer(y) + 4, p, sizeof p);
  N_VDestroy(y);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_double_pendulum_holds),   cmocka_unit_test(test_andrews_velocity_held),
      cmocka_unit_test(test_car_axis_time_dependent), cmocka_unit_test(test_consistent_left_alone),
      cmocka_unit_test(test_impossible_refused),      cmocka_unit_test(test_set_initial_state),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
