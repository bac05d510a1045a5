/* Public Jacobian adapters (src/chs/sundials.h) against central differences of the formulation's
 * own right-hand side / residual, independently of chs' Jacobian code:
 *  - CHSFormulation_Jac (df/dy) of the standard formulation (analytic Jacobian) and the Dirac one
 *    (forward differences inside chs) on the double pendulum, into dense, band and CSC matrices
 *    shaped by CHSFormulation_JacobianSetup;
 *  - CHSFormulation_ResidualJac (dF/dy + cj dF/dy') of dae-ggl and dae-index3;
 *  - the user_data = formulation adapters give the same matrices, a caller's own CVLsJacFn with
 *    its own user_data drives CVODE BDF to the pendulum's reference, and IDA with KLU and
 *    CHSFormulation_ResidualJacFn reaches it too (dae-ggl);
 *  - a matrix that cannot hold the Jacobian is refused with a message, never overrun. */
#include <cvode/cvode.h>
#include <ida/ida.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_band.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunmatrix/sunmatrix_sparse.h>
#include "test_util.h"

/* A state off the initial one (so no entry vanishes by symmetry), consistent or not: the
 * Jacobian does not care. */
static N_Vector perturbed_state(CHSFormulation f) {
  N_Vector y;
  assert_int_equal(CHSFormulation_NewInitialState(f, &y, NULL), 0);
  sunrealtype *a = N_VGetArrayPointer(y);
  for (sunindextype i = 0; i < N_VGetLength(y); i++) {
    a[i] += 0.01 * (double)((i * 7) % 5 + 1);
  }
  return y;
}

/* Central differences: J(i, j) column-major (N x N) of the right-hand side (yp == NULL) or of the
 * residual along (e_j, cj e_j). */
static void central_jacobian(CHSFormulation f, sunrealtype t, N_Vector y, N_Vector yp,
                             sunrealtype cj, double *J) {
  sunindextype N = N_VGetLength(y);
  N_Vector y1 = N_VClone(y), yp1 = N_VClone(y), r1 = N_VClone(y), r2 = N_VClone(y);
  for (sunindextype j = 0; j < N; j++) {
    double h = 1e-6 * (1 + fabs(N_VGetArrayPointer(y)[j]));
    for (int s = -1; s <= 1; s += 2) {
      N_VScale(1, y, y1);
      N_VGetArrayPointer(y1)[j] += s * h;
      if (yp) {
        N_VScale(1, yp, yp1);
        N_VGetArrayPointer(yp1)[j] += s * cj * h;
        assert_int_equal(CHSFormulation_EvalResidual(f, t, y1, yp1, s < 0 ? r1 : r2), 0);
      } else {
        assert_int_equal(CHSFormulation_Eval(f, t, y1, s < 0 ? r1 : r2), 0);
      }
    }
    for (sunindextype i = 0; i < N; i++) {
      J[i + j * N] = (N_VGetArrayPointer(r2)[i] - N_VGetArrayPointer(r1)[i]) / (2 * h);
    }
  }
  N_VDestroy(y1);
  N_VDestroy(yp1);
  N_VDestroy(r1);
  N_VDestroy(r2);
}

static void dense_of(SUNMatrix A, sunindextype N, double *D) {
  for (sunindextype k = 0; k < N * N; k++) {
    D[k] = 0;
  }
  if (SUNMatGetID(A) == SUNMATRIX_DENSE) {
    for (sunindextype j = 0; j < N; j++) {
      for (sunindextype i = 0; i < N; i++) {
        D[i + j * N] = SUNDenseMatrix_Column(A, j)[i];
      }
    }
  } else if (SUNMatGetID(A) == SUNMATRIX_BAND) {
    sunindextype mu = SUNBandMatrix_UpperBandwidth(A), ml = SUNBandMatrix_LowerBandwidth(A);
    for (sunindextype j = 0; j < N; j++) {
      for (sunindextype i = j - mu < 0 ? 0 : j - mu; i < N && i <= j + ml; i++) {
        D[i + j * N] = SUNBandMatrix_Column(A, j)[i - j];
      }
    }
  } else {
    sunindextype *cp = SUNSparseMatrix_IndexPointers(A), *ri = SUNSparseMatrix_IndexValues(A);
    sunrealtype *v = SUNSparseMatrix_Data(A);
    for (sunindextype j = 0; j < N; j++) {
      for (sunindextype k = cp[j]; k < cp[j + 1]; k++) {
        D[ri[k] + j * N] = v[k];
      }
    }
  }
}

/* The adapter's Jacobian in all three matrix types against central differences (relative to the
 * largest entry), and the three equal to each other. */
static void check_adapter(const char *problem, const char *form, int residual, double tol) {
  SUNContext ctx = test_context();
  CHSProblem prob = new_problem(problem);
  CHSFormulation f = new_formulation(form, prob, ctx);
  N_Vector y = perturbed_state(f), yp = N_VClone(y);
  sunindextype N = N_VGetLength(y), nnz = 0, mu = -1, ml = -1;
  N_VConst(0.3, yp);
  const sunrealtype cj = 7.25, t = 0.4;
  CHSError err;
  assert_int_equal(
      CHSFormulation_JacobianSetup(f, residual, y, residual ? yp : NULL, &nnz, &mu, &ml, &err), 0);
  assert_true(nnz >= N && nnz <= N * N && mu >= 0 && mu < N && ml >= 0 && ml < N);
  double *ref = malloc((size_t)(N * N) * sizeof *ref), *D = malloc((size_t)(N * N) * sizeof *D);
  double *D0 = malloc((size_t)(N * N) * sizeof *D0);
  central_jacobian(f, t, y, residual ? yp : NULL, cj, ref);
  double scale = 1 + norm_inf(ref, (int)(N * N));
  SUNMatrix mats[3] = {SUNDenseMatrix(N, N, ctx), SUNBandMatrix(N, mu, ml, ctx),
                       SUNSparseMatrix(N, N, nnz, CSC_MAT, ctx)};
  for (int k = 0; k < 3; k++) {
    SUNMatZero(mats[k]);
    int rc = residual ? CHSFormulation_ResidualJac(f, t, cj, y, yp, NULL, mats[k], NULL, NULL, NULL)
                      : CHSFormulation_Jac(f, t, y, NULL, mats[k], NULL, NULL, NULL);
    if (rc != 0) {
      fail_msg("%s/%s matrix %d: rc %d: %s", problem, form, k, rc,
               CHSFormulation_GetLastFailure(f)->msg);
    }
    dense_of(mats[k], N, D);
    double e = diff_inf(D, ref, (int)(N * N));
    if (!(e <= tol * scale)) {
      fail_msg("%s/%s matrix %d: |J - central differences| = %.3e > %.1e", problem, form, k, e,
               tol * scale);
    }
    if (k == 0) {
      memcpy(D0, D, (size_t)(N * N) * sizeof *D);
    } else {
      assert_true(diff_inf(D, D0, (int)(N * N)) == 0); /* the same numbers in every storage */
    }
  }
  /* the user_data = formulation adapters: the same matrix */
  SUNMatZero(mats[0]);
  int rc = residual ? CHSFormulation_ResidualJacFn(t, cj, y, yp, NULL, mats[0], f, NULL, NULL, NULL)
                    : CHSFormulation_JacFn(t, y, NULL, mats[0], f, NULL, NULL, NULL);
  assert_int_equal(rc, 0);
  dense_of(mats[0], N, D);
  assert_true(diff_inf(D, D0, (int)(N * N)) == 0);
  for (int k = 0; k < 3; k++) {
    SUNMatDestroy(mats[k]);
  }
  free(ref);
  free(D);
  free(D0);
  N_VDestroy(y);
  N_VDestroy(yp);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

static void test_ode_analytic(void **state) {
  (void)state;
  check_adapter("double-pendulum", "standard", 0, 1e-7);
  check_adapter("pendulum", "standard", 0, 1e-7);
}

static void test_ode_difference_quotients(void **state) {
  (void)state; /* Dirac: no analytic Jacobian, forward differences inside chs (O(sqrt eps)) */
  check_adapter("double-pendulum", "dirac", 0, 1e-5);
}

static void test_residual(void **state) {
  (void)state;
  check_adapter("pendulum", "dae-ggl", 1, 1e-7);
  check_adapter("double-pendulum", "dae-index3", 1, 1e-7);
  check_adapter("pendulum", "standard", 1, 1e-7); /* ODE: y' - f(t, y) */
}

/* Matrices that cannot hold the Jacobian: refused (negative code, message), nothing written. */
static void test_bad_matrices(void **state) {
  (void)state;
  SUNContext ctx = test_context();
  CHSProblem prob = new_problem("double-pendulum");
  CHSFormulation f = new_formulation("dae-ggl", prob, ctx);
  N_Vector y = perturbed_state(f), yp = N_VClone(y);
  N_VConst(0, yp);
  sunindextype N = N_VGetLength(y), nnz, mu, ml;
  assert_int_equal(CHSFormulation_JacobianSetup(f, 1, y, yp, &nnz, &mu, &ml, NULL), 0);
  assert_int_equal(CHSFormulation_JacobianSetup(NULL, 1, y, yp, &nnz, &mu, &ml, NULL), CHS_ERR_ARG);
  assert_int_equal(CHSFormulation_JacobianSetup(f, 1, y, NULL, &nnz, &mu, &ml, NULL), CHS_ERR_ARG);
  assert_int_equal(CHSFormulation_Jac(NULL, 0, y, NULL, NULL, NULL, NULL, NULL), CHS_ERR_ARG);
  SUNMatrix small = SUNDenseMatrix(N - 1, N - 1, ctx);
  assert_true(CHSFormulation_ResidualJac(f, 0, 1, y, yp, NULL, small, NULL, NULL, NULL) < 0);
  assert_non_null(strstr(CHSFormulation_GetLastFailure(f)->msg, "dense matrix"));
  SUNMatrix sp = SUNSparseMatrix(N, N, nnz - 1, CSC_MAT, ctx);
  assert_true(CHSFormulation_ResidualJac(f, 0, 1, y, yp, NULL, sp, NULL, NULL, NULL) < 0);
  assert_non_null(strstr(CHSFormulation_GetLastFailure(f)->msg, "nonzeros"));
  SUNMatrix csr = SUNSparseMatrix(N, N, nnz, CSR_MAT, ctx);
  assert_true(CHSFormulation_ResidualJac(f, 0, 1, y, yp, NULL, csr, NULL, NULL, NULL) < 0);
  assert_non_null(strstr(CHSFormulation_GetLastFailure(f)->msg, "CSC"));
  if (mu > 0) {
    SUNMatrix band = SUNBandMatrix(N, mu - 1, ml, ctx);
    assert_true(CHSFormulation_ResidualJac(f, 0, 1, y, yp, NULL, band, NULL, NULL, NULL) < 0);
    assert_non_null(strstr(CHSFormulation_GetLastFailure(f)->msg, "band"));
    SUNMatDestroy(band);
  }
  SUNMatDestroy(small);
  SUNMatDestroy(sp);
  SUNMatDestroy(csr);
  N_VDestroy(y);
  N_VDestroy(yp);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

typedef struct {
  CHSFormulation form;
  long rhs_calls, jac_calls;
} my_data;

static int my_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user_data) {
  my_data *d = user_data;
  d->rhs_calls++;
  return CHSFormulation_Eval(d->form, t, y, ydot);
}

static int my_jac(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *user_data,
                  N_Vector tmp1, N_Vector tmp2, N_Vector tmp3) {
  my_data *d = user_data;
  d->jac_calls++;
  return CHSFormulation_Jac(d->form, t, y, fy, J, tmp1, tmp2, tmp3);
}

/* A caller's own CVLsJacFn (its own user_data) in CVODE BDF: every Jacobian is chs', and the
 * pendulum reaches the reference. */
static void test_cvode_own_jacobian(void **state) {
  (void)state;
  SUNContext ctx = test_context();
  CHSProblem prob = new_problem("pendulum");
  my_data d = {new_formulation("standard", prob, ctx), 0, 0};
  N_Vector y;
  assert_int_equal(CHSFormulation_NewInitialState(d.form, &y, NULL), 0);
  void *cv = CVodeCreate(CV_BDF, ctx);
  SUNMatrix A = SUNDenseMatrix(4, 4, ctx);
  SUNLinearSolver LS = SUNLinSol_Dense(y, A, ctx);
  assert_int_equal(CVodeInit(cv, my_rhs, 0, y), 0);
  assert_int_equal(CVodeSetUserData(cv, &d), 0);
  assert_int_equal(CVodeSStolerances(cv, 1e-10, 1e-10), 0);
  assert_int_equal(CVodeSetLinearSolver(cv, LS, A), 0);
  assert_int_equal(CVodeSetJacFn(cv, my_jac), 0);
  assert_int_equal(CVodeSetMaxNumSteps(cv, 100000), 0);
  sunrealtype t, q[2], p[2], qr[2], pr[2];
  assert_true(CVode(cv, 3, y, &t, CV_NORMAL) >= 0);
  long nje = 0, nfeLS = 0;
  CVodeGetNumJacEvals(cv, &nje);
  CVodeGetNumLinRhsEvals(cv, &nfeLS);
  CHSFormulation_ToPhysical(d.form, y, q, p);
  assert_int_equal(CHSProblem_Reference(prob, t, qr, pr), 0);
  double e = hypot(hypot(q[0] - qr[0], q[1] - qr[1]), hypot(p[0] - pr[0], p[1] - pr[1]));
  CHECK_LE(e, 1e-6);
  assert_true(nje > 0 && d.jac_calls == nje); /* every Jacobian went through the caller */
  assert_int_equal(nfeLS, 0);                 /* none by SUNDIALS' difference quotients */
  CVodeFree(&cv);
  SUNLinSolFree(LS);
  SUNMatDestroy(A);
  N_VDestroy(y);
  CHSFormulation_Destroy(&d.form);
  CHSProblem_Destroy(&prob);
}

/* IDA with KLU and the ready-made IDALsJacFn (user_data = the formulation) on dae-ggl. */
static void test_ida_klu(void **state) {
  (void)state;
  SUNContext ctx = test_context();
  own_ida u = own_ida_new("pendulum", "dae-ggl");
  assert_int_equal(CHSFormulation_InitialDerivative(u.f, u.y, u.yp), 0);
  assert_int_equal(CHSFormulation_IDATolerances(u.f, 1e-10, u.atol), 0);
  CHSFormulation_ComponentIds(u.f, u.id);
  sunindextype N = N_VGetLength(u.y), nnz;
  assert_int_equal(CHSFormulation_JacobianSetup(u.f, 1, u.y, u.yp, &nnz, NULL, NULL, NULL), 0);
  assert_true(nnz < N * N); /* a sparse pattern */
  u.A = SUNSparseMatrix(N, N, nnz, CSC_MAT, ctx);
  u.LS = SUNLinSol_KLU(u.y, u.A, ctx);
  own_ida_start(&u, 1e-10);
  assert_int_equal(CHSFormulation_IDASetTolerances(u.f, u.mem, 1e-10, 1e-10), 0);
  assert_int_equal(IDASetJacFn(u.mem, CHSFormulation_ResidualJacFn), 0);
  sunrealtype t, q[2], p[2], qr[2], pr[2];
  assert_true(IDASolve(u.mem, 1, &t, u.y, u.yp, IDA_NORMAL) >= 0);
  long nje = 0, nreLS = 0;
  IDAGetNumJacEvals(u.mem, &nje);
  IDAGetNumLinResEvals(u.mem, &nreLS);
  assert_true(nje > 0);
  assert_int_equal(nreLS, 0);
  CHSFormulation_ToPhysical(u.f, u.y, q, p);
  assert_int_equal(CHSProblem_Reference(u.prob, t, qr, pr), 0);
  double e = hypot(hypot(q[0] - qr[0], q[1] - qr[1]), hypot(p[0] - pr[0], p[1] - pr[1]));
  CHECK_LE(e, 1e-6);
  own_ida_free(&u);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ode_analytic),       cmocka_unit_test(test_ode_difference_quotients),
      cmocka_unit_test(test_residual),           cmocka_unit_test(test_bad_matrices),
      cmocka_unit_test(test_cvode_own_jacobian), cmocka_unit_test(test_ida_klu),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
