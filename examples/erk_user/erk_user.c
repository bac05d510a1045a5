/* Your own ARKODE ERKStep integrating chs' Hamilton-Dirac pendulum ([Seiler, Dirac] eq. (35)). */
#include <math.h>
#include <stdio.h>
#include <arkode/arkode_erkstep.h>
#include <chs/chs.h>
#if SUNDIALS_VERSION_MAJOR < 7 || (SUNDIALS_VERSION_MAJOR == 7 && SUNDIALS_VERSION_MINOR < 1)
#define ARKodeSetUserData ERKStepSetUserData /* names before SUNDIALS 7.1 */
#define ARKodeSStolerances ERKStepSStolerances
#define ARKodeEvolve ERKStepEvolve
#define ARKodeFree ERKStepFree
#endif

int main(void) {
  SUNContext ctx;
  CHSProblem prob;
  CHSFormulation form;
  N_Vector y;
  sunrealtype t, q[2], p[2], qr[2], pr[2];
  SUNContext_Create(0, &ctx); /* 0: no MPI communicator (SUNDIALS 6 and 7) */
  if (CHSProblem_Create("pendulum", &prob, NULL) != 0 || /* H = |p|^2/2 + y */
      CHSFormulation_Create("dirac", prob, ctx, &form, NULL) != 0 ||
      CHSFormulation_NewInitialState(form, &y, NULL) != 0) { /* (1, 0, 0, -2) */
    return 1;
  }
  void *arkode = ERKStepCreate(CHSFormulation_Rhs, 0.0, y, ctx); /* the chs RHS */
  ARKodeSetUserData(arkode, form);                               /* user_data = formulation */
  ERKStepSetTableNum(arkode, ARKODE_DORMAND_PRINCE_7_4_5);
  ARKodeSStolerances(arkode, 1e-10, 1e-10);
  int flag = ARKodeEvolve(arkode, 5.0, y, &t, ARK_NORMAL);
  CHSFormulation_ToPhysical(form, y, q, p);
  CHSProblem_Reference(prob, t, qr, pr);
  double err = hypot(hypot(q[0] - qr[0], q[1] - qr[1]), hypot(p[0] - pr[0], p[1] - pr[1]));
  printf("t = %g  q = (%.10f, %.10f)  |(q,p) - reference| = %.2e\n", t, q[0], q[1], err);
  ARKodeFree(&arkode);
  N_VDestroy(y);
  CHSFormulation_Destroy(&form);
  CHSProblem_Destroy(&prob);
  SUNContext_Free(&ctx);
  return flag < 0 || !(err < 1e-6);
}
