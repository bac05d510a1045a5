/* Your own CVODE BDF program on chs' pendulum, with your own user_data: chs' right-hand side,
 * dense Jacobian and projector called from your callbacks, output on the manifold at t = 1 .. 10
 * (docs/sundials.md). Exit status 0 when |g| is at round-off at every output and the state
 * matches the reference. */
#include <math.h>
#include <stdio.h>
#include <cvode/cvode.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <chs/chs.h>

typedef struct { /* your own data: chs' objects and whatever else you need */
  CHSFormulation form;
  CHSProjector proj;
  long rhs_calls, jac_calls, proj_calls;
} my_data;

static int my_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user_data) {
  my_data *d = user_data;
  d->rhs_calls++;
  return CHSFormulation_Eval(d->form, t, y, ydot); /* + your own terms */
}

static int my_jac(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *user_data,
                  N_Vector tmp1, N_Vector tmp2, N_Vector tmp3) {
  my_data *d = user_data;
  d->jac_calls++;
  return CHSFormulation_Jac(d->form, t, y, fy, J, tmp1, tmp2, tmp3);
}

static int my_proj(sunrealtype t, N_Vector y, N_Vector corr, sunrealtype eps, N_Vector err,
                   void *user_data) {
  (void)eps;
  my_data *d = user_data;
  d->proj_calls++;
  return CHSProjector_CVodeProject(d->proj, t, y, corr, err);
}

int main(void) {
  SUNContext ctx;
  CHSProblem prob;
  CHSDiagnostics diag;
  CHSRecord rec;
  my_data d = {0};
  N_Vector y;
  CHSError err;
  SUNContext_Create(0, &ctx); /* 0: no MPI communicator (SUNDIALS 6 and 7) */
  if (CHSProblem_Create("pendulum", &prob, &err) != 0 ||
      CHSFormulation_Create("standard", prob, ctx, &d.form, &err) != 0 ||
      CHSProjector_Create(d.form, CHS_PROJECT_BOTH, 0, &d.proj, &err) != 0 || /* q, then p */
      CHSFormulation_NewInitialState(d.form, &y, &err) != 0 ||
      CHSDiagnostics_Create(d.form, &diag, &err) != 0) {
    fprintf(stderr, "cvode_user: %s\n", err.msg);
    return 1;
  }
  sunindextype N = N_VGetLength(y);
  SUNMatrix A = SUNDenseMatrix(N, N, ctx);
  SUNLinearSolver LS = SUNLinSol_Dense(y, A, ctx);
  void *cvode = CVodeCreate(CV_BDF, ctx);
  CVodeInit(cvode, my_rhs, 0.0, y);
  CVodeSetUserData(cvode, &d); /* yours, not the formulation */
  CVodeSStolerances(cvode, 1e-10, 1e-10);
  CVodeSetLinearSolver(cvode, LS, A);
  CVodeSetJacFn(cvode, my_jac);
  CVodeSetProjFn(cvode, my_proj); /* projection needs BDF */
  CVodeSetMaxNumSteps(cvode, 100000);
  int flag = 0, bad = 0;
  sunrealtype t = 0;
  for (int k = 1; k <= 10 && flag >= 0; k++) {
    sunrealtype tout = k;
    CVodeSetStopTime(cvode, tout); /* the output is a (projected) step, not an interpolant */
    flag = CVode(cvode, tout, y, &t, CV_NORMAL);
    CHSDiagnostics_Record(diag, t, y, &rec, NULL); /* |g|, |G M^-1 p|, error to the reference */
    printf("t = %4.1f  |g| = %.1e  |G v| = %.1e  |(q,p) - reference| = %.1e\n", t, rec.pos_res,
           rec.mom_res, rec.int_err);
    bad |= !(rec.pos_res < 1e-13 && rec.mom_res < 1e-12 && rec.int_err < 1e-6);
  }
  long nje = 0;
  CVodeGetNumJacEvals(cvode, &nje);
  printf("calls: %ld right-hand sides, %ld Jacobians (CVODE counted %ld), %ld projections\n",
         d.rhs_calls, d.jac_calls, nje, d.proj_calls);
  bad |= flag < 0 || d.jac_calls == 0 || d.jac_calls != nje || d.proj_calls == 0;
  CVodeFree(&cvode);
  SUNLinSolFree(LS);
  SUNMatDestroy(A);
  N_VDestroy(y);
  CHSDiagnostics_Destroy(&diag);
  CHSProjector_Destroy(&d.proj);
  CHSFormulation_Destroy(&d.form);
  CHSProblem_Destroy(&prob);
  SUNContext_Free(&ctx);
  return bad;
}
