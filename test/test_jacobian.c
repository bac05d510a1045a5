/* Analytic Jacobians of the formulations (standard: df/dy; dae-index3, dae-ggl, dae-index1: the
 * residual's dF/dy + cj dF/dy') against central differences of the right-hand side / residual
 * computed here, at consistent points (the problems' initial states, also with random angles and
 * velocities) and at random inconsistent ones (random y, y', cj), for the pendulum, the double
 * pendulum (dense and CSR G), the pendulum chain (CSR G), the chain (non-linear potential: hess V)
 * and a user problem with a non-linear potential and non-quadratic constraints (constraint_third).
 * The analytic Jacobian is taken through the public SUNMatrix family (CHSFormulation_Jac,
 * CHSFormulation_ResidualJac into a dense matrix) and checked bitwise against the raw-array
 * functions it replaced, which stay for one release.
 */
#define CHS_NO_DEPRECATED_WARNINGS /* the replaced functions are compared with their successors */
#include <string.h>
#include <nvector/nvector_serial.h>
#include <sunmatrix/sunmatrix_dense.h>
#include "test_util.h"
#include "nonquadratic_problem.h"

static const char *const forms[4] = {"standard", "dae-index3", "dae-ggl", "dae-index1"};

/* Central differences: column j of d res / dy + cj d res / dy' (residual) or d rhs / dy. */
static void fd_jacobian(CHSFormulation f, int residual, double t, double cj, N_Vector y,
                        N_Vector yp, double *J) {
  long N = N_VGetLength(y);
  N_Vector y1 = N_VClone(y), yp1 = N_VClone(y), rp = N_VClone(y), rm = N_VClone(y);
  for (long j = 0; j < N; j++) {
    double *a = N_VGetArrayPointer(y), *ap = N_VGetArrayPointer(yp);
    double h = 1e-6 * (1 + fabs(a[j]));
    for (int s = 0; s < 2; s++) {
      double sg = s ? -1 : 1;
      N_VScale(1, y, y1);
      N_VScale(1, yp, yp1);
      N_VGetArrayPointer(y1)[j] = a[j] + sg * h;
      N_VGetArrayPointer(yp1)[j] = ap[j] + sg * cj * h;
      int rc = residual ? CHSFormulation_Residual(t, y1, yp1, s ? rm : rp, f)
                        : CHSFormulation_Rhs(t, y1, s ? rm : rp, f);
      assert_int_equal(rc, 0);
    }
    for (long i = 0; i < N; i++) {
      J[i + j * N] = (N_VGetArrayPointer(rp)[i] - N_VGetArrayPointer(rm)[i]) / (2 * h);
    }
  }
  N_VDestroy(y1);
  N_VDestroy(yp1);
  N_VDestroy(rp);
  N_VDestroy(rm);
}

/* max |J_analytic - J_fd| / max(1, max |J_fd|) over points: the initial state, then random; at
 * time t (the initial derivative is taken at t = 0). */
static double jacobian_mismatch(CHSProblem prob, const char *form, int residual, double t) {
  CHSFormulation f = new_formulation(form, prob, test_context());
  N_Vector y = new_initial_state(f), yp = N_VClone(y);
  long N = N_VGetLength(y);
  double *Ja = malloc((size_t)(N * N) * sizeof *Ja), *Jf = malloc((size_t)(N * N) * sizeof *Jf);
  double worst = 0;
  N_Vector y0 = N_VClone(y);
  N_VScale(1, y, y0);
  assert_int_equal(CHSFormulation_HasJacobian(f),
                   1); /* else the family falls back to differences */
  SUNMatrix A = SUNDenseMatrix(N, N, test_context());
  for (int pt = 0; pt < 4; pt++) {
    double cj = 1;
    N_VScale(1, y0, y);
    if (residual) {
      assert_int_equal(CHSFormulation_InitialDerivative(f, y, yp), 0);
    } else {
      N_VConst(0, yp);
    }
    if (pt > 0) { /* inconsistent: random y (near y0, inside the domain), y', cj */
      cj = random_inconsistent_point(y, yp, 0.2, 100);
    }
    int rc = residual ? CHSFormulation_ResidualJac(f, t, cj, y, yp, NULL, A, NULL, NULL, NULL)
                      : CHSFormulation_Jac(f, t, y, NULL, A, NULL, NULL, NULL);
    assert_int_equal(rc, 0);
    memcpy(Ja, SUNDenseMatrix_Data(A), (size_t)(N * N) * sizeof *Ja);
    rc = residual ? CHSFormulation_ResidualJacobian(f, t, cj, y, yp, Jf)
                  : CHSFormulation_RhsJacobian(f, t, y, Jf);
    assert_int_equal(rc, 0);
    assert_memory_equal(Ja, Jf, (size_t)(N * N) * sizeof *Ja);
    fd_jacobian(f, residual, t, cj, y, yp, Jf);
    double scale = fmax(1, norm_inf(Jf, (int)(N * N)));
    worst = fmax(worst, diff_inf(Ja, Jf, (int)(N * N)) / scale);
  }
  free(Ja);
  free(Jf);
  SUNMatDestroy(A);
  N_VDestroy(y);
  N_VDestroy(y0);
  N_VDestroy(yp);
  CHSFormulation_Destroy(&f);
  return worst;
}

static void check_problem(CHSProblem prob, const char *name) {
  for (int k = 0; k < 4; k++) {
    for (int residual = 0; residual < 2; residual++) {
      if (k > 0 && !residual) {
        continue; /* DAE formulations have no right-hand side */
      }
      double e = jacobian_mismatch(prob, forms[k], residual, 0);
      print_message("%-40s %-10s %-8s |J - J_fd| / |J| = %.2e\n", name, forms[k],
                    residual ? "residual" : "rhs", e);
      CHECK_LE(e, 1e-7);
    }
  }
}

static void test_builtin_problems(void **state) {
  (void)state;
  const char *specs[] = {
      "pendulum",
      "pendulum:length=1.5,mass=2,x=0.9,y=-1.2,px=1.2,py=0.9",
      "double-pendulum:m1=1,m2=3,theta1=0.4,theta2=2,omega1=1,omega2=-2",
      "double-pendulum:sparse=0",
      "pendulum-chain:N=5,bend=0.3,omega=0.4",
      "chain:N=5",
  };
  rng_seed(7);
  for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
    CHSProblem prob = new_problem(specs[i]);
    check_problem(prob, specs[i]);
    CHSProblem_Destroy(&prob);
  }
}

/* Random consistent points: problems built with random initial angles and velocities. */
static void test_random_consistent(void **state) {
  (void)state;
  rng_seed(2024);
  for (int k = 0; k < 3; k++) {
    char spec[3][256];
    double a = rng_uniform(-3, 3), b = rng_uniform(-3, 3), w1 = rng_uniform(-2, 2),
           w2 = rng_uniform(-2, 2);
    snprintf(spec[0], sizeof spec[0], "pendulum:x=%.17g,y=%.17g,px=%.17g,py=%.17g", sin(a), -cos(a),
             w1 * cos(a), w1 * sin(a));
    snprintf(spec[1], sizeof spec[1],
             "double-pendulum:theta1=%.17g,theta2=%.17g,omega1=%.17g,omega2=%.17g", a, b, w1, w2);
    snprintf(spec[2], sizeof spec[2], "pendulum-chain:N=4,theta=%.17g,bend=%.17g,omega=%.17g", a,
             rng_uniform(-1, 1), w2);
    for (int i = 0; i < 3; i++) {
      CHSProblem prob = new_problem(spec[i]);
      check_problem(prob, spec[i]);
      CHSProblem_Destroy(&prob);
    }
  }
}

static void test_nonquadratic(void **state) {
  (void)state;
  CHSProblem prob = NULL;
  CHSError err;
  assert_int_equal(CHSProblem_CreateFromOps(&nq_ops, NULL, &prob, &err), 0);
  rng_seed(11);
  check_problem(prob, "non-quadratic user problem");
  CHSProblem_Destroy(&prob);
}

/* M(q) problems (mass_grad_dir, ABI 7): andrews (seven angles, M on three 2 x 2 blocks) and the
 * heavy top (M quadratic in the Euler parameters, full 4 x 4), at their initial states and random
 * inconsistent points (p != 0, so the terms in M'(q; v) and the second derivatives of M count). */
static void test_mass_config(void **state) {
  (void)state;
  const char *specs[] = {"andrews", "heavy-top", "heavy-top:theta0=1.1,spin=3,prec=-2,c=1.5"};
  rng_seed(31);
  for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
    CHSProblem prob = new_problem(specs[i]);
    check_problem(prob, specs[i]);
    CHSProblem_Destroy(&prob);
  }
}

/* andrews' table as a plugin built against the ABI-6 header would give it (cut before
 * mass_grad_dir, labelled 6): it loads, without mass_grad_dir, and the formulations then have no
 * analytic Jacobian for it (difference quotients; jac=analytic refused); the full table has. */
static void test_abi6_mass_table(void **state) {
  (void)state;
  const CHSProblemOps *full = CHSProblemRegistry_Find("andrews");
  assert_non_null(full);
  assert_non_null(full->mass_grad_dir);
  size_t size = offsetof(CHSProblemOps, mass_grad_dir);
  unsigned char *buf = malloc(size);
  assert_non_null(buf);
  memcpy(buf, full, size);
  int version = 6;
  memcpy(buf + offsetof(CHSProblemOps, abi_version), &version, sizeof version);
  CHSProblem old = NULL, cur = new_problem("andrews");
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSProblem_CreateFromOps((const CHSProblemOps *)(void *)buf, NULL, &old, &err),
                   0);
  free(buf);
  assert_null(CHSProblem_GetOps(old)->mass_grad_dir);
  assert_non_null(CHSProblem_GetOps(old)->mass_grad);
  for (int k = 0; k < 4; k++) {
    CHSFormulation fo = new_formulation(forms[k], old, test_context());
    CHSFormulation fc = new_formulation(forms[k], cur, test_context());
    assert_int_equal(CHSFormulation_HasJacobian(fo), 0);
    assert_int_equal(CHSFormulation_HasJacobian(fc), 1);
    CHSFormulation_Destroy(&fo);
    CHSFormulation_Destroy(&fc);
  }
  CHSProblem_Destroy(&old);
  CHSProblem_Destroy(&cur);
}

/* Time-dependent constraints and potential (car-axis: a diagonal mass, g(q, t), V(q, t)) at a
 * time where g_t, G_t and V_t are nonzero: dae-index3 and dae-ggl (psi = G M^{-1} p + g_t: G_t
 * on q) have analytic Jacobians; standard and dae-index1 (2 G_t v + g_tt in r, whose
 * q-derivatives no callback gives) have none. */
static void test_time_dependent(void **state) {
  (void)state;
  CHSProblem prob = new_problem("car-axis");
  rng_seed(5);
  for (int k = 0; k < 4; k++) {
    CHSFormulation f = new_formulation(forms[k], prob, test_context());
    int has = CHSFormulation_HasJacobian(f);
    CHSFormulation_Destroy(&f);
    assert_int_equal(has, k == 1 || k == 2);
    if (has) {
      double e = jacobian_mismatch(prob, forms[k], 1, 0.37);
      print_message("%-40s %-10s residual |J - J_fd| / |J| = %.2e\n", "car-axis (t = 0.37)",
                    forms[k], e);
      CHECK_LE(e, 1e-7);
    }
  }
  CHSProblem_Destroy(&prob);
}

static void test_no_jacobian(void **state) {
  (void)state;
  CHSProblem prob = new_problem("pendulum");
  CHSFormulation f = new_formulation("dirac", prob, test_context());
  assert_int_equal(CHSFormulation_HasJacobian(f), 0);
  N_Vector y;
  CHSError err;
  assert_int_equal(CHSFormulation_NewInitialState(f, &y, &err), 0);
  double J[16];
  assert_int_equal(CHSFormulation_RhsJacobian(f, 0, y, J), CHS_ERR_UNSUPPORTED);
  N_VDestroy(y);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_builtin_problems), cmocka_unit_test(test_random_consistent),
      cmocka_unit_test(test_nonquadratic),     cmocka_unit_test(test_no_jacobian),
      cmocka_unit_test(test_mass_config),      cmocka_unit_test(test_time_dependent),
      cmocka_unit_test(test_abi6_mass_table),
  };
  return cmocka_run_group_tests_name("jacobian", tests, group_setup, group_teardown);
}
