/* CHSFormulation_Rhs is a CVRhsFn: a user's own CVODE (BDF, dense Newton, difference-quotient
 * Jacobian) integrates the Hamilton-Dirac pendulum and matches the reference solution; the
 * standard formulation on the double pendulum integrated by CVODE and by ERKStep agree. */
#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include "test_util.h"

/* Integrate formulation `name` of problem `spec` with CVODE BDF to t = tf; return the physical
 * state (q, p) in out and, unless ref is NULL, the reference solution at tf in ref. */
static void cvode_run(const char *spec, const char *name, sunrealtype tf, sunrealtype tol,
                      sunrealtype *out, sunrealtype *ref) {
  SUNContext ctx;
  N_Vector y;
  assert_int_equal(chs_context_create(&ctx), 0);
  CHSProblem prob = new_problem(spec);
  CHSFormulation form = new_formulation(name, prob, ctx);
  sunindextype nq = CHSProblem_GetDims(prob)->n;
  assert_int_equal(CHSFormulation_NewInitialState(form, &y, NULL), 0);
  sunindextype n = N_VGetLength(y);
  void *cvode = CVodeCreate(CV_BDF, ctx);
  SUNMatrix A = SUNDenseMatrix(n, n, ctx);
  SUNLinearSolver LS = SUNLinSol_Dense(y, A, ctx);
  assert_int_equal(CVodeInit(cvode, CHSFormulation_Rhs, 0, y), 0);
  assert_int_equal(CVodeSetUserData(cvode, form), 0);
  assert_int_equal(CVodeSStolerances(cvode, tol, tol), 0);
  assert_int_equal(CVodeSetLinearSolver(cvode, LS, A), 0);
  assert_int_equal(CVodeSetMaxNumSteps(cvode, 100000), 0);
  sunrealtype t;
  assert_true(CVode(cvode, tf, y, &t, CV_NORMAL) >= 0);
  assert_true(fabs(t - tf) < 1e-12);
  assert_int_equal(CHSFormulation_ToPhysical(form, y, out, out + nq), 0);
  if (ref) {
    assert_int_equal(CHSProblem_Reference(prob, tf, ref, ref + nq), 0);
  }
  CVodeFree(&cvode);
  SUNLinSolFree(LS);
  SUNMatDestroy(A);
  N_VDestroy(y);
  CHSFormulation_Destroy(&form);
  CHSProblem_Destroy(&prob);
  SUNContext_Free(&ctx);
}

static void test_cvode_dirac_pendulum(void **state) {
  (void)state;
  sunrealtype y[4], yr[4];
  sunrealtype err[2];
  const sunrealtype tols[2] = {1e-6, 1e-10};
  for (int k = 0; k < 2; k++) {
    cvode_run("pendulum", "dirac", 5, tols[k], y, yr);
    err[k] = diff2(y, yr, 4);
    print_message("CVODE BDF tol %.0e: |(q,p) - ref| at t = 5: %.3e\n", tols[k], err[k]);
  }
  /* Converges to the reference: tighter tolerance, error down by at least 100x and small. */
  assert_true(err[1] < 1e-6);
  assert_true(err[1] * 100 < err[0]);
}

static void test_cvode_matches_erk_double_pendulum(void **state) {
  (void)state;
  sunrealtype yc[8];
  cvode_run("double-pendulum", "standard", 2, 1e-11, yc, NULL);
  /* The same problem through chs' ERKStep adapter at a tight tolerance. */
  SUNContext ctx;
  assert_int_equal(chs_context_create(&ctx), 0);
  CHSProblem prob = new_problem("double-pendulum");
  CHSFormulation form = new_formulation("standard", prob, ctx);
  N_Vector y;
  assert_int_equal(CHSFormulation_NewInitialState(form, &y, NULL), 0);
  CHSStepControl ctl = {0, 1e-12, 1e-12, 0};
  CHSIntegrator it;
  assert_int_equal(CHSIntegrator_Create("erk:VERNER_8_5_6", form, y, 0, &ctl, &it, NULL), 0);
  sunrealtype t;
  assert_int_equal(CHSIntegrator_Evolve(it, 2, y, &t, NULL), 0);
  sunrealtype ye[8];
  CHSFormulation_ToPhysical(form, y, ye, ye + 4);
  sunrealtype d = diff_inf(yc, ye, 8);
  print_message("double pendulum, CVODE vs ERKStep at t = 2: max diff %.3e\n", d);
  assert_true(d < 1e-7);
  CHSIntegrator_Destroy(&it);
  N_VDestroy(y);
  CHSFormulation_Destroy(&form);
  CHSProblem_Destroy(&prob);
  SUNContext_Free(&ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cvode_dirac_pendulum),
      cmocka_unit_test(test_cvode_matches_erk_double_pendulum),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
