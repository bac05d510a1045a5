/* Your own IDA program on chs' dae-ggl residual of the pendulum (positions, momenta and two
 * multipliers), with chs' error weights for the algebraic components and KLU on chs' sparse
 * Jacobian; the formulation is IDA's user_data, so chs' adapters go to IDA directly
 * (docs/sundials.md). Exit status 0 when the state matches the reference at t = 5. */
#include <math.h>
#include <stdio.h>
#include <ida/ida.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_sparse.h>
#include <chs/chs.h>

int main(void) {
  SUNContext ctx;
  CHSProblem prob;
  CHSFormulation form;
  CHSDiagnostics diag;
  CHSRecord rec;
  N_Vector y, yp, id;
  CHSError err;
  sunindextype nnz;
  SUNContext_Create(0, &ctx); /* 0: no MPI communicator (SUNDIALS 6 and 7) */
  if (CHSProblem_Create("pendulum", &prob, &err) != 0 ||
      CHSFormulation_Create("dae-ggl", prob, ctx, &form, &err) != 0 ||
      CHSFormulation_NewInitialState(form, &y, &err) != 0 ||
      CHSDiagnostics_Create(form, &diag, &err) != 0) {
    fprintf(stderr, "ida_user: %s\n", err.msg);
    return 1;
  }
  yp = N_VClone(y);
  id = N_VClone(y);
  CHSFormulation_InitialDerivative(form, y, yp); /* consistent y'(0) */
  CHSFormulation_ComponentIds(form, id);         /* differential 1, algebraic 0 */
  /* the Jacobian's pattern at the initial state: the size of the sparse matrix */
  if (CHSFormulation_JacobianSetup(form, 1, y, yp, &nnz, NULL, NULL, &err) != 0) {
    fprintf(stderr, "ida_user: %s\n", err.msg);
    return 1;
  }
  sunindextype N = N_VGetLength(y);
  SUNMatrix A = SUNSparseMatrix(N, N, nnz, CSC_MAT, ctx);
  SUNLinearSolver LS = SUNLinSol_KLU(y, A, ctx);
  void *ida = IDACreate(ctx);
  IDAInit(ida, CHSFormulation_Residual, 0.0, y, yp); /* chs' residual ... */
  IDASetUserData(ida, form);                         /* ... with the formulation as user_data */
  /* rtol, atol on every component, the multipliers' weights scaled by the step size */
  CHSFormulation_IDASetTolerances(form, ida, 1e-10, 1e-10);
  IDASetId(ida, id);
  IDASetSuppressAlg(ida, SUNTRUE); /* multipliers out of the error test */
  IDASetLinearSolver(ida, LS, A);
  IDASetJacFn(ida, CHSFormulation_ResidualJacFn); /* dF/dy + cj dF/dy' into the CSC matrix */
  IDASetMaxNumSteps(ida, 100000);
  sunrealtype t;
  int flag = IDASolve(ida, 5.0, &t, y, yp, IDA_NORMAL);
  CHSDiagnostics_Record(diag, t, y, &rec, NULL);
  long nje = 0, nst = 0;
  IDAGetNumJacEvals(ida, &nje);
  IDAGetNumSteps(ida, &nst);
  printf("t = %g  |g| = %.1e  |(q,p) - reference| = %.1e  (%ld steps, %ld Jacobians, nnz %ld of "
         "%ld)\n",
         t, rec.pos_res, rec.int_err, nst, nje, (long)nnz, (long)(N * N));
  int bad = flag < 0 || nje == 0 || !(rec.int_err < 1e-6) || !(rec.pos_res < 1e-8);
  IDAFree(&ida);
  SUNLinSolFree(LS);
  SUNMatDestroy(A);
  N_VDestroy(y);
  N_VDestroy(yp);
  N_VDestroy(id);
  CHSDiagnostics_Destroy(&diag);
  CHSFormulation_Destroy(&form);
  CHSProblem_Destroy(&prob);
  SUNContext_Free(&ctx);
  return bad;
}
