/* CVODE: variable-order BDF (stiff) or Adams (non-stiff) with Newton iteration, adaptive only
 * (--rtol/--atol).
 *
 *   cvode:bdf    BDF orders 1-5
 *   cvode:adams  Adams-Moulton orders 1-12
 *   cvode:bdf:ls=auto|dense|band|klu|spgmr[,jac=analytic|fd]   the Newton linear solver
 *                (src/linalg/linsol.c): chosen from the system (auto, the default: dense up to N =
 * 100), dense LU or band LU with SUNDIALS' difference-quotient Jacobian, KLU with the formulation's
 * analytic sparse Jacobian (forward differences when it has none), or matrix-free SPGMR
 * (difference-quotient J v; prec=sparse|none, see src/linalg/linsol.c): Krylov iterations in the
 * statistics (lin_iters)
 *
 * A projector attached to the formulation becomes CVODE's projection (CVodeSetProjFn, with the
 * error projection CVODE asks for; BDF only, as in CVODE): a failed position projection is a
 * recoverable failure, so CVODE retries the step with a smaller h. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <cvode/cvode.h>
#include <cvode/cvode_proj.h>
#include "../compat.h"
#include "../impl.h"
#include "setup.h"
#include "progress.h"

typedef struct {
  void *cvode;
  CHSFormulation f;
  SUNMatrix A;
  SUNLinearSolver LS;
  long base_steps, base_rhs, base_jac;
  long mxstep; /* steps of one evolve to tout (counted here: see cvode_evolve) */
  chs_watch watch;
  int ls, ls_auto; /* the linear solver (CHS_LS_*) and whether ls=auto chose it */
  char arkode_msg[CHS_ARKODE_MSG_LEN];
} cvode_mem;

static const char *cvode_method_name(int i) {
  static const char *const names[] = {"bdf", "adams", "bdf:ls=band", "bdf:ls=klu", "bdf:ls=spgmr"};
  return i >= 0 && i < 5 ? names[i] : NULL;
}

static void cvode_destroy(void *mem) {
  cvode_mem *c = mem;
  if (!c) {
    return;
  }
  if (c->cvode) {
    CVodeFree(&c->cvode);
  }
  if (c->LS) {
    SUNLinSolFree(c->LS);
  }
  if (c->A) {
    SUNMatDestroy(c->A);
  }
  free(c);
}

/* CVODE's callbacks, with the integrator as user data: each evaluation seen by the progress watch
 * (progress.h), the formulation's functions doing the work. */
static int cvode_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user_data) {
  cvode_mem *c = user_data;
  return chs_watch_note(&c->watch, CHSFormulation_Rhs(t, y, ydot, c->f));
}

static int cvode_jac(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix A, void *user_data,
                     N_Vector tmp1, N_Vector tmp2, N_Vector tmp3) {
  cvode_mem *c = user_data;
  return chs_watch_note(&c->watch, chs_cvode_jac(t, y, fy, A, c->f, tmp1, tmp2, tmp3));
}

static int cvode_prec_setup(sunrealtype t, N_Vector y, N_Vector fy, sunbooleantype jok,
                            sunbooleantype *jcur, sunrealtype gamma, void *user_data) {
  cvode_mem *c = user_data;
  return chs_watch_note(&c->watch, chs_precond_setup(t, y, fy, jok, jcur, gamma, c->f));
}

static int cvode_prec_solve(sunrealtype t, N_Vector y, N_Vector fy, N_Vector r, N_Vector z,
                            sunrealtype gamma, sunrealtype delta, int lr, void *user_data) {
  cvode_mem *c = user_data;
  return chs_watch_note(&c->watch, chs_precond_solve(t, y, fy, r, z, gamma, delta, lr, c->f));
}

static int cvode_proj(sunrealtype t, N_Vector ycur, N_Vector corr, sunrealtype eps_proj,
                      N_Vector err, void *user_data) {
  return CHSProjector_CVodeProjFn(t, ycur, corr, eps_proj, err, ((cvode_mem *)user_data)->f);
}

static int cvode_root(sunrealtype t, N_Vector y, sunrealtype *e, void *user_data) {
  return CHSIntegrator_EventRootFn(t, y, e, ((cvode_mem *)user_data)->f);
}

static int cvode_create(const char *options, CHSFormulation f, N_Vector y0, sunrealtype t0,
                        const CHSStepControl *ctl, void **out, CHSError *err) {
  int lmm;
  char name[64], method[160];
  const char *params = NULL;
  if (!options || CHSSpec_Split(options, name, sizeof name, &params, err) != 0) {
    name[0] = '\0';
  }
  if (strcmp(name, "bdf") == 0) {
    lmm = CV_BDF;
  } else if (strcmp(name, "adams") == 0) {
    lmm = CV_ADAMS;
  } else {
    return chs_error_set(err, CHS_ERR_NOTFOUND,
                         "unknown method 'cvode:%s' (cvode:bdf, cvode:adams)",
                         options ? options : "");
  }
  snprintf(method, sizeof method, "cvode:%s", options);
  chs_ls_options lso;
  CHS_CALL(chs_ls_parse(method, params, &lso, err));
  if (ctl->h > 0) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "method cvode:%s is adaptive: give --rtol and --atol, not --h", options);
  }
  CHSProjector proj = CHSFormulation_GetProjector(f);
  if (proj && lmm != CV_BDF) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "CVODE projects only with BDF: use cvode:bdf with --project");
  }
  cvode_mem *c = calloc(1, sizeof *c);
  if (!c) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  SUNContext ctx = CHSFormulation_GetContext(f);
  c->f = f;
  c->cvode = CVodeCreate(lmm, ctx);
  chs_watch_init(&c->watch, f, ctl->max_steps);
  int user_jac = 0;
  int rc = chs_ls_create(f, method, &lso, 0, y0, NULL, &c->A, &c->LS, &user_jac, err);
  if (rc != 0) {
    cvode_destroy(c);
    return rc;
  }
  c->ls = lso.ls;
  c->ls_auto = lso.chosen_by_auto;
  if (c->LS && c->A && SUNLinSolGetID(c->LS) == SUNLINEARSOLVER_DENSE &&
      SUNMatGetID(c->A) == SUNMATRIX_DENSE) { /* SUNDIALS' LU, optimised (src/integrate/ida.c) */
    c->LS->ops->setup = chs_dense_ls_setup;
    c->LS->ops->solve = chs_dense_ls_solve;
  }
  chs_setup su = {0};
  CHS_SETUP_CREATED(&su, c->cvode, CVodeCreate);
#if !CHS_SUNDIALS_AT_LEAST(7, 0)
  CHS_SETUP(&su, CVodeSetErrHandlerFn, c->cvode, chs_arkode_capture_error, c->arkode_msg);
#endif
  CHS_SETUP(&su, CVodeInit, c->cvode, cvode_rhs, t0, y0);
  CHS_SETUP(&su, CVodeSetUserData, c->cvode, c);
  CHS_SETUP(&su, CVodeSStolerances, c->cvode, ctl->rtol, ctl->atol);
  CHS_SETUP(&su, CVodeSetLinearSolver, c->cvode, c->LS, c->A);
  if (user_jac) {
    CHS_SETUP(&su, CVodeSetJacFn, c->cvode, cvode_jac);
  }
  if (f->prec) {
    CHS_SETUP(&su, CVodeSetPreconditioner, c->cvode, cvode_prec_setup, cvode_prec_solve);
  }
  c->mxstep = ctl->max_steps > 0 ? ctl->max_steps : 500000;
  CHS_SETUP(&su, CVodeSetMaxNumSteps, c->cvode, c->mxstep);
  if (lso.hmax > 0) {
    CHS_SETUP(&su, CVodeSetMaxStep, c->cvode, lso.hmax);
  }
  if (proj) {
    CHS_SETUP(&su, CVodeSetProjFn, c->cvode, cvode_proj);
  }
  if (su.flag != 0) {
    cvode_destroy(c);
    return chs_setup_error(&su, "CVODE", method, err);
  }
  *out = c;
  return CHS_SUCCESS;
}

static int cvode_evolve(void *mem, sunrealtype tout, N_Vector y, sunrealtype *tret, int one_step,
                        CHSError *err) {
  cvode_mem *c = mem;
  int rc = CVodeSetStopTime(c->cvode, tout);
  /* one CV_ONE_STEP at a time, each step seen by the progress watch; the step bound of one
   * evolve counted here as CVODE counts it in CV_NORMAL */
  for (long k = 0; rc == CV_SUCCESS; k++) {
    if (k == c->mxstep) {
      snprintf(c->arkode_msg, sizeof c->arkode_msg,
               "mxstep = %ld steps taken before reaching tout = %g", c->mxstep, (double)tout);
      rc = CV_TOO_MUCH_WORK;
      break;
    }
    rc = CVode(c->cvode, tout, y, tret, CV_ONE_STEP);
    sunrealtype hlast = 0;
    if ((rc == CV_SUCCESS || rc == CV_TSTOP_RETURN) && CVodeGetLastStep(c->cvode, &hlast) == 0 &&
        chs_watch_step(&c->watch, "CVODE", *tret, hlast, tout, err) != 0) {
      return CHS_ERR_SOLVER;
    }
    if (one_step) {
      break;
    }
  }
  if (rc < 0) {
    chs_watch_explain(&c->watch, c->arkode_msg, sizeof c->arkode_msg);
    return chs_arkode_failure(err, "CVODE", CVodeGetReturnFlagName(rc), *tret, c->f, c->arkode_msg);
  }
  return rc == CV_ROOT_RETURN ? CHS_INTEGRATOR_ROOT : CHS_SUCCESS;
}

/* Events: CVODE's root finding on the problem's event functions (chs/integrator.h). */
static int cvode_root_init(void *mem, int nev, CHSError *err) {
  cvode_mem *c = mem;
  int rc = CVodeRootInit(c->cvode, nev, cvode_root);
  if (rc == 0) {
    rc = CVodeSetNoInactiveRootWarn(c->cvode);
  }
  return rc == 0
             ? 0
             : chs_error_set(err, CHS_ERR_SOLVER, "CVODE root finding set-up failed (flag %d)", rc);
}

static int cvode_root_info(void *mem, int *dirs) {
  return CVodeGetRootInfo(((cvode_mem *)mem)->cvode, dirs) == 0 ? 0 : CHS_ERR_SOLVER;
}

static int cvode_stats(void *mem, CHSIntegratorStats *st) {
  cvode_mem *c = mem;
  long v = 0;
  memset(st, 0, sizeof *st);
  if (CVodeGetNumSteps(c->cvode, &v) == 0) {
    st->steps = v + c->base_steps;
  }
  if (CVodeGetNumRhsEvals(c->cvode, &v) == 0) {
    st->rhs_evals = v + c->base_rhs;
  }
  st->jac_evals = CVodeGetNumJacEvals(c->cvode, &v) == 0 ? v + c->base_jac : -1;
  st->err_test_fails = CVodeGetNumErrTestFails(c->cvode, &v) == 0 ? v : -1;
  st->lin_setups = CVodeGetNumLinSolvSetups(c->cvode, &v) == 0 ? v : -1;
  st->nonlin_iters = CVodeGetNumNonlinSolvIters(c->cvode, &v) == 0 ? v : 0;
  st->nonlin_conv_fails = CVodeGetNumNonlinSolvConvFails(c->cvode, &v) == 0 ? v : 0;
  st->lin_iters = c->LS && SUNLinSolGetType(c->LS) == SUNLINEARSOLVER_ITERATIVE &&
                          CVodeGetNumLinIters(c->cvode, &v) == 0
                      ? v
                      : 0;
  st->linear_solver = chs_ls_names[c->ls];
  st->linear_solver_auto = c->ls_auto;
  return 0;
}

static int cvode_reinit(void *mem, sunrealtype t, N_Vector y) {
  cvode_mem *c = mem;
  CHSIntegratorStats st;
  cvode_stats(c, &st);
  c->base_steps = st.steps;
  c->base_rhs = st.rhs_evals;
  c->base_jac = st.jac_evals > 0 ? st.jac_evals : 0;
  return CVodeReInit(c->cvode, t, y) == 0 ? 0 : CHS_ERR_SOLVER;
}

static void *cvode_sundials_mem(void *mem) {
  return ((cvode_mem *)mem)->cvode;
}

const CHSIntegratorOps chs_integrator_cvode = {
    .family = "cvode",
    .summary = "CVODE BDF or Adams, Newton + ls=auto|dense|band|klu|umfpack|spgmr, hmax=H; "
               "projections via "
               "CVodeSetProjFn",
    .method_name = cvode_method_name,
    .create = cvode_create,
    .evolve = cvode_evolve,
    .get_stats = cvode_stats,
    .sundials_mem = cvode_sundials_mem,
    .reinit = cvode_reinit,
    .destroy = cvode_destroy,
    .root_init = cvode_root_init,
    .root_info = cvode_root_info,
};
