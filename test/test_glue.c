/* SUNDIALS glue for programs that keep their own user_data (src/chs/sundials.h):
 *  - a CVODE BDF program whose user_data is its own structure calls CHSFormulation_Eval and
 *    CHSProjector_CVodeProject from its own callbacks: the pendulum matches the reference and |g|
 *    stays at round-off, and the program's own counters see every call;
 *  - CHSProjector_CVodeProjFn and CHSProjector_ARKPostprocess without a projector fail loudly
 *    (CVODE once counted 952 projections that did nothing);
 *  - CHSFormulation_IDATolerances: atol on every component; CHSFormulation_IDAErrorWeights: the
 *    weights h^(k-1) / (rtol |y| + atol) by the components' index k; IDA with
 *    CHSFormulation_IDASetTolerances integrates dae-ggl to the reference;
 *  - CHSERKStep_FixLastStageReuse: classical RK4 in the user's own ERKStep converges with order 4
 *    (on SUNDIALS 6.4 without the fix it is order 3). */
#include <arkode/arkode_erkstep.h>
#include <cvode/cvode.h>
#include <cvode/cvode_proj.h>
#include <ida/ida.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include "test_util.h"

typedef struct {
  CHSFormulation form;
  CHSProjector proj;
  long rhs_calls, proj_calls;
} my_data;

static int my_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user_data) {
  my_data *d = user_data;
  d->rhs_calls++;
  return CHSFormulation_Eval(d->form, t, y, ydot);
}

static int my_proj(sunrealtype t, N_Vector y, N_Vector corr, sunrealtype eps, N_Vector err,
                   void *user_data) {
  (void)eps;
  my_data *d = user_data;
  d->proj_calls++;
  return CHSProjector_CVodeProject(d->proj, t, y, corr, err);
}

/* CVODE BDF on the standard formulation of the pendulum to t = 10; project: the caller's own
 * projection function (1) or chs' CHSProjector_CVodeProjFn with the formulation as user_data and
 * no projector attached (2). Returns CVode's flag; q, p the final physical state. */
static int cvode_pendulum(int project, my_data *d, sunrealtype *q, sunrealtype *p,
                          sunrealtype *tret) {
  SUNContext ctx = test_context();
  CHSProblem prob = new_problem("pendulum");
  d->form = new_formulation("standard", prob, ctx);
  d->proj = NULL;
  if (project == 1) {
    CHSError err;
    assert_int_equal(CHSProjector_Create(d->form, CHS_PROJECT_BOTH, 0, &d->proj, &err), 0);
  }
  N_Vector y;
  assert_int_equal(CHSFormulation_NewInitialState(d->form, &y, NULL), 0);
  void *cv = CVodeCreate(CV_BDF, ctx);
  SUNMatrix A = SUNDenseMatrix(4, 4, ctx);
  SUNLinearSolver LS = SUNLinSol_Dense(y, A, ctx);
  /* project == 2: the formulation as user_data with chs' own RHS and projection adapters */
  assert_int_equal(CVodeInit(cv, project == 2 ? CHSFormulation_Rhs : my_rhs, 0, y), 0);
  assert_int_equal(CVodeSetUserData(cv, project == 2 ? (void *)d->form : (void *)d), 0);
  assert_int_equal(CVodeSStolerances(cv, 1e-8, 1e-8), 0);
  assert_int_equal(CVodeSetLinearSolver(cv, LS, A), 0);
  assert_int_equal(CVodeSetProjFn(cv, project == 2 ? CHSProjector_CVodeProjFn : my_proj), 0);
  assert_int_equal(CVodeSetMaxNumSteps(cv, 100000), 0);
  /* a stop time: the output is a projected step, not an interpolant (docs/sundials.md) */
  assert_int_equal(CVodeSetStopTime(cv, 10), 0);
  chs_context_silence(ctx);
  int flag = CVode(cv, 10, y, tret, CV_NORMAL);
  CHSFormulation_ToPhysical(d->form, y, q, p);
  CVodeFree(&cv);
  SUNLinSolFree(LS);
  SUNMatDestroy(A);
  N_VDestroy(y);
  if (project != 2) {
    CHSProjector_Destroy(&d->proj);
    CHSFormulation_Destroy(&d->form);
  }
  CHSProblem_Destroy(&prob);
  return flag;
}

static void test_caller_user_data(void **state) {
  (void)state;
  my_data d = {0};
  sunrealtype q[2], p[2], qr[2], pr[2], t;
  assert_true(cvode_pendulum(1, &d, q, p, &t) >= 0);
  CHECK_NEAR(t, 10, 1e-12);
  CHSProblem prob = new_problem("pendulum");
  assert_int_equal(CHSProblem_Reference(prob, 10, qr, pr), 0);
  CHSProblem_Destroy(&prob);
  CHECK_LE(fabs(q[0] - qr[0]) + fabs(q[1] - qr[1]) + fabs(p[0] - pr[0]) + fabs(p[1] - pr[1]), 1e-4);
  /* g = (x^2 + y^2 - 1) / 2 at round-off after the projected steps */
  CHECK_LE(fabs(0.5 * (q[0] * q[0] + q[1] * q[1] - 1)), 1e-14);
  CHECK_LE(fabs(q[0] * p[0] + q[1] * p[1]), 1e-13);
  CHECK_GT(d.rhs_calls, 100);
  CHECK_GT(d.proj_calls, 10);
}

static void test_projfn_without_projector_fails(void **state) {
  (void)state;
  my_data d = {0};
  sunrealtype q[2], p[2], t;
  assert_true(cvode_pendulum(2, &d, q, p, &t) < 0);
  const CHSError *e = CHSFormulation_GetLastFailure(d.form);
  assert_non_null(strstr(e->msg, "no projector is attached"));
  CHSFormulation_Destroy(&d.form);
  /* the ARKODE post-process hook likewise */
  CHSProblem prob = new_problem("pendulum");
  CHSFormulation f = new_formulation("standard", prob, test_context());
  N_Vector y;
  assert_int_equal(CHSFormulation_NewInitialState(f, &y, NULL), 0);
  assert_true(CHSProjector_ARKPostprocess(0, y, f) < 0);
  assert_non_null(strstr(CHSFormulation_GetLastFailure(f)->msg, "no projector is attached"));
  N_VDestroy(y);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

static void test_ida_tolerances(void **state) {
  (void)state;
  SUNContext ctx = test_context();
  own_ida u = own_ida_new("pendulum", "dae-ggl");
  assert_int_equal(CHSFormulation_IDATolerances(u.f, 1e-9, u.atol), 0);
  sunindextype N = N_VGetLength(u.y);
  for (sunindextype i = 0; i < N; i++) {
    assert_true(N_VGetArrayPointer(u.atol)[i] == 1e-9);
  }
  /* the error weights at step size h: h^(k-1) / (rtol |y| + atol), k the component's index */
  const struct {
    const char *form;
    int k[7]; /* pendulum: q (2), p (2), multipliers */
  } idx[] = {{"dae-index3", {1, 1, 2, 2, 3}},
             {"dae-ggl", {1, 1, 1, 1, 2, 2}},
             {"dae-index1", {1, 1, 1, 1, 1}}};
  const double h = 1e-3, rtol = 1e-6, atol = 1e-8;
  for (int c = 0; c < 3; c++) {
    CHSFormulation f = new_formulation(idx[c].form, u.prob, ctx);
    N_Vector y = new_initial_state(f), w = N_VClone(y);
    assert_int_equal(CHSFormulation_IDAErrorWeights(f, rtol, atol, h, y, w), 0);
    for (sunindextype i = 0; i < N_VGetLength(y); i++) {
      double yi = N_VGetArrayPointer(y)[i];
      CHECK_NEAR(N_VGetArrayPointer(w)[i], pow(h, idx[c].k[i] - 1) / (rtol * fabs(yi) + atol),
                 1e-12 / (rtol * fabs(yi) + atol));
    }
    /* h = 0 (before IDA's first step): a positive step size stands for it */
    assert_int_equal(CHSFormulation_IDAErrorWeights(f, rtol, atol, 0, y, w), 0);
    assert_true(N_VMin(w) > 0);
    assert_int_equal(CHSFormulation_IDAErrorWeights(f, rtol, 0, h, y, w), CHS_ERR_ARG);
    N_VDestroy(y);
    N_VDestroy(w);
    CHSFormulation_Destroy(&f);
  }
  N_Vector shortv = N_VNew_Serial(N - 1, ctx);
  assert_int_equal(CHSFormulation_IDATolerances(u.f, 1e-9, shortv), CHS_ERR_ARG);
  assert_int_equal(CHSFormulation_IDATolerances(u.f, 0, u.atol), CHS_ERR_ARG);
  assert_int_equal(CHSFormulation_IDAErrorWeights(u.f, 1e-9, 1e-9, h, u.y, shortv), CHS_ERR_ARG);
  assert_int_equal(CHSFormulation_IDASetTolerances(u.f, NULL, 1e-9, 1e-9), CHS_ERR_ARG);
  N_VDestroy(shortv);
  CHSFormulation_ComponentIds(u.f, u.id);
  /* the caller's own IDA with these tolerances reaches the reference */
  assert_int_equal(CHSFormulation_InitialDerivative(u.f, u.y, u.yp), 0);
  u.A = SUNDenseMatrix(N, N, ctx);
  u.LS = SUNLinSol_Dense(u.y, u.A, ctx);
  own_ida_start(&u, 1e-9);
  assert_int_equal(CHSFormulation_IDASetTolerances(u.f, u.mem, 1e-9, 1e-9), 0);
  assert_int_equal(IDASetSuppressAlg(u.mem, SUNTRUE), 0);
  sunrealtype t, q[2], p[2], qr[2], pr[2];
  assert_true(IDASolve(u.mem, 5, &t, u.y, u.yp, IDA_NORMAL) >= 0);
  CHSFormulation_ToPhysical(u.f, u.y, q, p);
  assert_int_equal(CHSProblem_Reference(u.prob, 5, qr, pr), 0);
  CHECK_LE(fabs(q[0] - qr[0]) + fabs(q[1] - qr[1]), 1e-6);
  own_ida_free(&u);
}

/* The user's own ERKStep with classical RK4 at fixed h on the Hamilton-Dirac pendulum: final
 * error against the reference at t = 2. */
static double rk4_error(sunrealtype h) {
  SUNContext ctx = test_context();
  CHSProblem prob = new_problem("pendulum");
  CHSFormulation f = new_formulation("dirac", prob, ctx);
  N_Vector y;
  assert_int_equal(CHSFormulation_NewInitialState(f, &y, NULL), 0);
  const sunrealtype c[4] = {0, 0.5, 0.5, 1}, b[4] = {1. / 6, 1. / 3, 1. / 3, 1. / 6};
  const sunrealtype A[16] = {0, 0, 0, 0, 0.5, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 1, 0};
  ARKodeButcherTable B = ARKodeButcherTable_Create(4, 4, 0, (sunrealtype *)c, (sunrealtype *)A,
                                                   (sunrealtype *)b, NULL);
  void *ark = ERKStepCreate(CHSFormulation_Rhs, 0, y, ctx);
  assert_int_equal(chs_erk_set_user_data(ark, f), 0);
  assert_int_equal(ERKStepSetTable(ark, B), 0);
  assert_int_equal(CHSERKStep_FixLastStageReuse(ark, B), 0);
  assert_int_equal(chs_erk_set_fixed_step(ark, h), 0);
  assert_int_equal(chs_erk_set_max_num_steps(ark, 1000000), 0);
  assert_int_equal(chs_erk_set_stop_time(ark, 2), 0);
  sunrealtype t, q[2], p[2], qr[2], pr[2];
  assert_true(chs_erk_evolve(ark, 2, y, &t, ARK_NORMAL) >= 0);
  CHSFormulation_ToPhysical(f, y, q, p);
  assert_int_equal(CHSProblem_Reference(prob, 2, qr, pr), 0);
  double e = hypot(hypot(q[0] - qr[0], q[1] - qr[1]), hypot(p[0] - pr[0], p[1] - pr[1]));
  chs_erk_free(&ark);
  ARKodeButcherTable_Free(B);
  N_VDestroy(y);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
  return e;
}

static void test_rk4_order(void **state) {
  (void)state;
  double e1 = rk4_error(0.02), e2 = rk4_error(0.01);
  double order = log2(e1 / e2);
  CHECK_NEAR(order, 4, 0.3);
  assert_int_equal(CHSERKStep_FixLastStageReuse(NULL, NULL), CHS_ERR_ARG);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_caller_user_data),
      cmocka_unit_test(test_projfn_without_projector_fails),
      cmocka_unit_test(test_ida_tolerances),
      cmocka_unit_test(test_rk4_order),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
