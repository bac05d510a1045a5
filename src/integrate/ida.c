/* IDA: variable-order BDF for the residual F(t, y, y') = 0 of a formulation (the DAE
 * formulations dae-index3, dae-ggl, dae-index1, or y' - f(t, y) for an ODE formulation), Newton
 * with a direct linear solver or GMRES, adaptive only:
 *
 *   ida:ls=auto|dense|band|klu[,jac=analytic|fd]   (src/linalg/linsol.c; default ls=auto, chosen
 * from the system: dense up to N = 100) ida:ls=spgmr[,prec=sparse|none]          matrix-free GMRES
 * (IDA's difference-quotient J v), preconditioned by the DAE Jacobian without hess V factored by
 * KLU (default where it exists), else by a diagonal row scaling (ida_prec_solve)
 *
 * The Jacobian dF/dy + cj dF/dy' is the formulation's analytic one when it has one (all DAE
 * formulations, and standard), else (or with jac=fd) IDA's difference quotients (dense, band) or
 * forward differences by columns (klu).
 * The components the formulation marks algebraic (id = 0) are excluded from the error test
 * (IDASetId + IDASetSuppressAlg): lambda (and mu), and for the index-3 form also p; they keep
 * their tolerances, scaled by the step size, in the Newton convergence test
 * (CHSFormulation_IDASetTolerances), and that test measures the convergence rate in each step
 * (ida_conv_test). The initial
 * y' comes from the formulation (consistent by construction; no IDACalcIC needed). */
#include <stdlib.h>
#include <stdio.h>
#include <float.h>
#include <math.h>
#include <string.h>
#include <ida/ida.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_newton.h>
#include "../compat.h"
#include "../impl.h"
#include "setup.h"
#include "progress.h"

typedef struct {
  void *ida;
  CHSFormulation f;
  SUNMatrix A;
  SUNLinearSolver LS;
  SUNNonlinearSolver NLS;
  sunrealtype oldnrm; /* the first Newton correction's norm in the current solve (ida_conv_test) */
  N_Vector yp, id;
  N_Vector ewt; /* IDA's error weights, for the row scaling of GMRES (ida_prec_solve) */
  chs_watch watch;
  int ls, ls_auto; /* the linear solver (CHS_LS_*) and whether ls=auto chose it */
  long base_steps, base_res, base_jac;
  long mxstep; /* steps of one evolve to tout (SUNDIALS' mxstep, counted here: see ida_evolve) */
  char msg[CHS_ARKODE_MSG_LEN];
} ida_mem;

static const char *ida_method_name(int i) {
  static const char *const names[] = {"", "ls=band", "ls=klu", "ls=spgmr", "jac=fd"};
  return i >= 0 && i < 5 ? names[i] : NULL;
}

static void ida_destroy(void *mem) {
  ida_mem *d = mem;
  if (!d) {
    return;
  }
  if (d->ida) {
    if (d->f && d->f->idaw.ida == d->ida) {
      d->f->idaw.ida = NULL; /* its error weights function is not called after this */
    }
    IDAFree(&d->ida);
  }
  if (d->NLS) {
    SUNNonlinSolFree(d->NLS);
  }
  if (d->LS) {
    SUNLinSolFree(d->LS);
  }
  if (d->A) {
    SUNMatDestroy(d->A);
  }
  if (d->yp) {
    N_VDestroy(d->yp);
  }
  if (d->id) {
    N_VDestroy(d->id);
  }
  if (d->ewt) {
    N_VDestroy(d->ewt);
  }
  free(d);
}

/* IDA's callbacks, with the integrator as user data: each evaluation seen by the progress watch
 * (progress.h), the formulation's functions doing the work. */
static int ida_res(sunrealtype t, N_Vector y, N_Vector yp, N_Vector r, void *user_data) {
  ida_mem *d = user_data;
  return chs_watch_note(&d->watch, CHSFormulation_Residual(t, y, yp, r, d->f));
}

static int ida_jac(sunrealtype t, sunrealtype cj, N_Vector y, N_Vector yp, N_Vector r, SUNMatrix A,
                   void *user_data, N_Vector tmp1, N_Vector tmp2, N_Vector tmp3) {
  ida_mem *d = user_data;
  return chs_watch_note(&d->watch, chs_ida_jac(t, cj, y, yp, r, A, d->f, tmp1, tmp2, tmp3));
}

static int ida_root(sunrealtype t, N_Vector y, N_Vector yp, sunrealtype *e, void *user_data) {
  return CHSIntegrator_EventResRootFn(t, y, yp, e, ((ida_mem *)user_data)->f);
}

static int ida_prec_setup(sunrealtype t, N_Vector yy, N_Vector yp, N_Vector rr, sunrealtype cj,
                          void *user_data) {
  ida_mem *d = user_data;
  return d->f->jac ? chs_watch_note(&d->watch, chs_ida_prec_setup(t, yy, yp, rr, cj, d->f)) : 0;
}

/* GMRES on IDA's Newton system measures its residual in IDA's error weights, row i weighted as
 * component i of y (idaLsSolve: scaling vectors s1 = s2 = 1/ewt, test |s1 P^-1 (b - A x)|_2 <
 * sqrt(N) 0.05 epsNewt). For a DAE formulation the rows of the constraints, g(q) = 0 and
 * G M^-1 p = 0, belong to the multipliers, whose weights are scaled by the step size (h or h^2,
 * CHSFormulation_IDAErrorWeights) and so are orders of magnitude below q's; an
 * unpreconditioned GMRES stopped with the constraint rows unsolved (often after no iteration at
 * all), Newton saw a small correction and converged, and the error test, on q and p alone, passed:
 * the positions drifted off g = 0 (the pendulum plugin with ida:ls=spgmr: |g| = 0.5 by t = 2,
 * energy error 2.7e9, exit 0). Without the sparse preconditioner (whose P^-1 r is a correction in
 * y's own units, so the weights fit), a diagonal left preconditioner scales the rows of the
 * components excluded from the error test to the weight of the error-controlled ones (the RMS of
 * their weights): GMRES then solves the constraint rows to the accuracy asked of q. */
static int ida_prec_solve(sunrealtype t, N_Vector yy, N_Vector yp, N_Vector rr, N_Vector rvec,
                          N_Vector zvec, sunrealtype cj, sunrealtype delta, void *user_data) {
  ida_mem *d = user_data;
  if (d->f->jac) {
    return chs_watch_note(&d->watch,
                          chs_ida_prec_solve(t, yy, yp, rr, rvec, zvec, cj, delta, d->f));
  }
  if (IDAGetErrWeights(d->ida, d->ewt) != 0) {
    return CHS_ERR_SOLVER;
  }
  const sunrealtype *w = N_VGetArrayPointer(d->ewt), *id = N_VGetArrayPointer(d->id);
  const sunrealtype *r = N_VGetArrayPointer(rvec);
  sunrealtype *z = N_VGetArrayPointer(zvec);
  sunindextype n = N_VGetLength(rvec), nd = 0;
  sunrealtype ss = 0;
  for (sunindextype i = 0; i < n; i++) {
    if (id[i] > 0) {
      ss += w[i] * w[i];
      nd++;
    }
  }
  sunrealtype wref = nd > 0 ? sqrt(ss / (sunrealtype)nd) : 1;
  for (sunindextype i = 0; i < n; i++) {
    z[i] = id[i] > 0 || !(w[i] > 0) ? r[i] : r[i] * (wref / w[i]);
  }
  return 0;
}

/* IDA's and CVODE's dense Newton solves (ls=dense, ls=auto's choice up to N = 100): SUNDIALS' LU
 * factorisation and solve (SUNDlsMat_denseGETRF/GETRS: partial pivoting by the first largest
 * |a_ik|, multipliers scaled by 1 / pivot, column-oriented updates skipping zero a_kj; the
 * permuted forward and backward substitutions by columns), operation for operation in the same
 * order, so the results are bitwise the same, compiled here with the library's optimisation.
 * The distribution's SUNDIALS is built without: its solve alone was a fifth of the instructions
 * of an andrews run (dae-ggl, N = 26: 18,600 per solve). They replace the setup and solve
 * operations of SUNDIALS' own dense solver object (its operations table is its own copy), whose
 * pivots, flags, space and freeing stay SUNDIALS'. */
sunindextype chs_ida_dense_getrf(sunrealtype **a, sunindextype m, sunindextype n, sunindextype *p) {
  for (sunindextype k = 0; k < n; k++) {
    sunrealtype *ak = a[k];
    sunindextype l = k;
    for (sunindextype i = k + 1; i < m; i++) {
      if (fabs(ak[i]) > fabs(ak[l])) {
        l = i;
      }
    }
    p[k] = l;
    if (ak[l] == 0) {
      return k + 1;
    }
    if (l != k) {
      for (sunindextype j = 0; j < n; j++) {
        sunrealtype t = a[j][l];
        a[j][l] = a[j][k];
        a[j][k] = t;
      }
    }
    sunrealtype mult = 1 / ak[k];
    for (sunindextype i = k + 1; i < m; i++) {
      ak[i] *= mult;
    }
    for (sunindextype j = k + 1; j < n; j++) {
      sunrealtype *aj = a[j], akj = aj[k];
      if (akj != 0) {
        for (sunindextype i = k + 1; i < m; i++) {
          aj[i] -= akj * ak[i];
        }
      }
    }
  }
  return 0;
}

void chs_ida_dense_getrs(sunrealtype *const *a, sunindextype n, const sunindextype *p,
                         sunrealtype *b) {
  for (sunindextype k = 0; k < n; k++) {
    sunindextype pk = p[k];
    if (pk != k) {
      sunrealtype t = b[k];
      b[k] = b[pk];
      b[pk] = t;
    }
  }
  for (sunindextype k = 0; k + 1 < n; k++) {
    const sunrealtype *ak = a[k];
    sunrealtype bk = b[k];
    for (sunindextype i = k + 1; i < n; i++) {
      b[i] -= ak[i] * bk;
    }
  }
  for (sunindextype k = n - 1; k > 0; k--) {
    const sunrealtype *ak = a[k];
    sunrealtype bk = b[k] /= ak[k];
    for (sunindextype i = 0; i < k; i++) {
      b[i] -= ak[i] * bk;
    }
  }
  b[0] /= a[0][0];
}

int chs_dense_ls_setup(SUNLinearSolver S, SUNMatrix A) {
  SUNLinearSolverContent_Dense c = S->content;
  c->last_flag = chs_ida_dense_getrf(SUNDenseMatrix_Cols(A), SUNDenseMatrix_Rows(A),
                                     SUNDenseMatrix_Columns(A), c->pivots);
  return c->last_flag > 0 ? SUNLS_LUFACT_FAIL : CHS_LS_SUCCESS;
}

int chs_dense_ls_solve(SUNLinearSolver S, SUNMatrix A, N_Vector x, N_Vector b, sunrealtype tol) {
  (void)tol;
  SUNLinearSolverContent_Dense c = S->content;
  N_VScale(1, b, x);
  chs_ida_dense_getrs(SUNDenseMatrix_Cols(A), SUNDenseMatrix_Rows(A), c->pivots,
                      N_VGetArrayPointer(x));
  c->last_flag = CHS_LS_SUCCESS;
  return CHS_LS_SUCCESS;
}

/* The error weights of CHSFormulation_IDAErrorWeights (src/integrate/glue.c: why) at IDA's next
 * step size, from the component ids kept in d->id; IDA's user data is this integrator. */
static int ida_ewt(N_Vector y, N_Vector ewt, void *user_data) {
  ida_mem *d = user_data;
  sunrealtype h = 0;
  if (IDAGetCurrentStep(d->ida, &h) != IDA_SUCCESS || !isfinite(h)) {
    return CHS_ERR_SOLVER;
  }
  return chs_ida_error_weights(d->f, N_VGetArrayPointer(d->id), d->f->idaw.rtol, d->f->idaw.atol, h,
                               y, ewt) == 0
             ? 0
             : -1;
}

/* IDA's Newton convergence test with the rate measured in each solve (SUNNonlinSolConvTestFn):
 * accept the iterate when rate / (1 - rate) |del| <= tol, rate from this solve's corrections, or
 * after the first correction when 100 |del| <= tol. IDA's own test accepts the first correction
 * with the rate of the step before, and a step whose Newton iteration converged fast lets the
 * next one stop after one iteration with a correction up to 1 / rate times the tolerance: with the
 * index-3 form that unconverged iterate moved the momenta by far more than the tolerance (pendulum
 * to t = 3 at 1e-9: error 2.4e-5 with IDA's test, 2.8e-6 with this one; docs/sundials.md). The
 * factor 100 is IDA's own for a solve whose cj changed. */
static int ida_conv_test(SUNNonlinearSolver NLS, N_Vector ycor, N_Vector del, sunrealtype tol,
                         N_Vector ewt, void *mem) {
  (void)ycor;
  ida_mem *d = mem;
  int m = 0;
  if (SUNNonlinSolGetCurIter(NLS, &m) != CHS_NLS_SUCCESS) {
    return CHS_ERR_SOLVER;
  }
  sunrealtype delnrm = N_VWrmsNorm(del, ewt), ss = 100;
  if (!isfinite(delnrm)) { /* a failed evaluation's correction: a recoverable convergence failure,
                            * never another iteration from a non-finite state */
    return SUN_NLS_CONV_RECVR;
  }
  if (m == 0) {
    d->oldnrm = delnrm;
  } else {
    sunrealtype rate = delnrm / d->oldnrm; /* pow(x, 1) is x */
    if (m > 1) {
      rate = pow(rate, 1.0 / m);
    }
    if (!(rate <= 0.9)) {
      return SUN_NLS_CONV_RECVR;
    }
    ss = rate / (1 - rate);
  }
  return ss * delnrm <= tol ? CHS_NLS_SUCCESS : SUN_NLS_CONTINUE;
}

static int ida_create(const char *options, CHSFormulation f, N_Vector y0, sunrealtype t0,
                      const CHSStepControl *ctl, void **out, CHSError *err) {
  char method[160];
  snprintf(method, sizeof method, "ida%s%s", options && *options ? ":" : "",
           options ? options : "");
  chs_ls_options lso;
  CHS_CALL(chs_ls_parse(method, options, &lso, err));
  if (ctl->h > 0) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "method ida is adaptive: give --rtol and --atol, not --h");
  }
  if (CHSFormulation_GetProjector(f)) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED, "method ida does not take projections");
  }
  ida_mem *d = calloc(1, sizeof *d);
  if (!d) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  SUNContext ctx = CHSFormulation_GetContext(f);
  sunindextype n = N_VGetLength(y0);
  d->f = f;
  d->ida = IDACreate(ctx);
  d->yp = N_VClone(y0);
  d->id = N_VClone(y0);
  d->ewt = N_VClone(y0);
  chs_watch_init(&d->watch, f, ctl->max_steps);
  chs_setup su = {0};
  CHS_SETUP_CREATED(&su, d->ida, IDACreate);
  CHS_SETUP_CREATED(&su, d->yp && d->id && d->ewt, N_VClone);
  CHS_SETUP(&su, CHSFormulation_InitialDerivative, f, y0, d->yp);
  /* a non-finite start (e.g. an overflowing force) would only show as IDA's confused first step
   * ("tstop is behind current t"): say what is not finite */
  if (su.flag == 0) {
    const char *what = NULL;
    if (!chs_all_finite(N_VGetArrayPointer(y0), n)) {
      what = "the initial state y(t0)";
    } else if (!chs_all_finite(N_VGetArrayPointer(d->yp), n)) {
      what = "the initial derivative y'(t0) (the force or the multipliers overflow?)";
    } else if (CHSFormulation_Residual(t0, y0, d->yp, d->id, f) != 0 ||
               !chs_all_finite(N_VGetArrayPointer(d->id), n)) {
      what = "the DAE residual F(t0, y, y') at the initial state";
    }
    if (what) {
      ida_destroy(d);
      return chs_error_set(err, CHS_ERR_SOLVER, "IDA cannot start at t = %g: %s is not finite",
                           (double)t0, what);
    }
  }
  int user_jac = 0;
  if (su.flag == 0) {
    int rc = chs_ls_create(f, method, &lso, 1, y0, d->yp, &d->A, &d->LS, &user_jac, err);
    if (rc != 0) {
      ida_destroy(d);
      return rc;
    }
    d->ls = lso.ls;
    d->ls_auto = lso.chosen_by_auto;
    if (d->LS && d->A && SUNLinSolGetID(d->LS) == SUNLINEARSOLVER_DENSE &&
        SUNMatGetID(d->A) == SUNMATRIX_DENSE) {
      d->LS->ops->setup = chs_dense_ls_setup;
      d->LS->ops->solve = chs_dense_ls_solve;
    }
  }
#if !CHS_SUNDIALS_AT_LEAST(7, 0)
  CHS_SETUP(&su, IDASetErrHandlerFn, d->ida, chs_arkode_capture_error, d->msg);
#endif
  CHS_SETUP(&su, IDAInit, d->ida, ida_res, t0, y0, d->yp);
  CHS_SETUP(&su, IDASetUserData, d->ida, d);
  /* Tolerances: rtol, atol on every component, the algebraic ones weighted by the step size
   * (CHSFormulation_IDAErrorWeights, src/integrate/glue.c: why) in the Newton test and out of the
   * error test (IDASetId, IDASetSuppressAlg below). CHSFormulation_IDASetTolerances, then the same
   * weights through ida_ewt: IDA's user data is this integrator, not f. */
  if (su.flag == 0) {
    CHSFormulation_ComponentIds(f, d->id);
  }
  CHS_SETUP(&su, CHSFormulation_IDASetTolerances, f, d->ida, ctl->rtol, ctl->atol);
  CHS_SETUP(&su, IDAWFtolerances, d->ida, ida_ewt);
  CHS_SETUP(&su, IDASetLinearSolver, d->ida, d->LS, d->A);
  if (su.flag == 0) {
    d->NLS = SUNNonlinSol_Newton(y0, ctx);
  }
  CHS_SETUP_CREATED(&su, d->NLS, SUNNonlinSol_Newton);
  CHS_SETUP(&su, IDASetNonlinearSolver, d->ida, d->NLS);
  /* after IDASetNonlinearSolver, which sets IDA's own test; with direct linear solvers only: the
   * rate of GMRES' inexact corrections is not the Newton iteration's (the Krylov fault matrix in
   * test/fault_plugin_test.sh stalled at t < 1e-6 with it) */
  if (lso.ls != CHS_LS_SPGMR) {
    CHS_SETUP(&su, SUNNonlinSolSetConvTestFn, d->NLS, ida_conv_test, d);
  }
  if (user_jac) {
    CHS_SETUP(&su, IDASetJacFn, d->ida, ida_jac);
  }
  if (lso.ls == CHS_LS_SPGMR && (f->jac || f->ops->component_ids)) {
    CHS_SETUP(&su, IDASetPreconditioner, d->ida, ida_prec_setup, ida_prec_solve);
  }
  CHS_SETUP(&su, IDASetId, d->ida, d->id);
  CHS_SETUP(&su, IDASetSuppressAlg, d->ida, SUNTRUE);
  if (lso.hmax > 0) {
    CHS_SETUP(&su, IDASetMaxStep, d->ida, lso.hmax);
  }
  d->mxstep = ctl->max_steps > 0 ? ctl->max_steps : 500000;
  CHS_SETUP(&su, IDASetMaxNumSteps, d->ida, d->mxstep);
  if (su.flag != 0) {
    ida_destroy(d);
    return chs_setup_error(&su, "IDA", method, err);
  }
  *out = d;
  return CHS_SUCCESS;
}

/* The least cut of cj that makes IDA set up its Newton matrix anew: (1 - dcj) / (1 + dcj) with
 * its default dcj = 0.25 (chs does not change it: a larger dcj costs accuracy on the small
 * problems, docs/scale.md) */
#define IDA_CJ_WINDOW 0.6

/* IDA's stop time for its next step towards tout: tout, or the midpoint of [t, tout] when the
 * step it chose would leave a shorter remainder (chs_split_stop: the Jacobian of a cut last
 * step saved) */
static sunrealtype ida_stop(ida_mem *d, sunrealtype tout) {
  long nst = 0;
  sunrealtype t = 0, h = 0;
  if (IDAGetNumSteps(d->ida, &nst) != 0 || nst == 0 || IDAGetCurrentTime(d->ida, &t) != 0 ||
      IDAGetCurrentStep(d->ida, &h) != 0) {
    return tout; /* the first step: IDA chooses its size inside IDASolve */
  }
  return chs_split_stop(t, h, tout, IDA_CJ_WINDOW);
}

/* Steps to tout, one IDASolve (IDA_ONE_STEP) at a time, each towards ida_stop's time; the step
 * bound of one evolve counted here as IDA counts it in IDA_NORMAL. */
static int ida_evolve(void *mem, sunrealtype tout, N_Vector y, sunrealtype *tret, int one_step,
                      CHSError *err) {
  ida_mem *d = mem;
  sunrealtype tcur = 0;
  int rc = IDAGetCurrentTime(d->ida, &tcur);
  if (rc == 0) {
    /* IDA has no lower bound on its step size: a residual that fails (recoverably) beyond some
     * state lets it creep towards that state with steps that no longer change t (5e6 steps at one
     * t). A step below 16 ulps of t is stopped, and the callback's own message says why. */
    rc = IDASetMinStep(d->ida, 16 * DBL_EPSILON * fmax(fabs(tcur), fabs(tout)));
  }
  int at_tout = 0;
  for (long k = 0; rc == 0 && !at_tout; k++) {
    if (k == d->mxstep) {
      snprintf(d->msg, sizeof d->msg, "mxstep = %ld steps taken before reaching tout = %g",
               d->mxstep, (double)tout);
      rc = IDA_TOO_MUCH_WORK;
      break;
    }
    sunrealtype stop = ida_stop(d, tout);
    rc = IDASetStopTime(d->ida, stop);
    if (rc == 0) {
      rc = IDASolve(d->ida, stop, tret, y, d->yp, IDA_ONE_STEP);
    }
    at_tout = rc == IDA_TSTOP_RETURN && stop == tout;
    rc = rc == IDA_TSTOP_RETURN ? IDA_SUCCESS : rc;
    sunrealtype hlast = 0;
    if (rc == IDA_SUCCESS && IDAGetLastStep(d->ida, &hlast) == 0 &&
        chs_watch_step(&d->watch, "IDA", *tret, hlast, tout, err) != 0) {
      return CHS_ERR_SOLVER;
    }
    if (one_step) {
      break;
    }
  }
  long nst = 0;
  if (rc == IDA_ILL_INPUT && IDAGetNumSteps(d->ida, &nst) == 0 && nst == 0) {
    /* IDA's first step size is 0 (its weighted norm of y' overflowed), which it reports as
     * "tstop is behind t": name the cause instead */
    sunrealtype ypmax = N_VMaxNorm(d->yp);
    return chs_error_set(err, CHS_ERR_SOLVER,
                         "IDA cannot take its first step at t = %g: the initial derivative y' is "
                         "too large for its initial step size (max |y'| = %g; an overflowing "
                         "force?)",
                         (double)*tret, (double)ypmax);
  }
  if (rc < 0) {
    chs_watch_explain(&d->watch, d->msg, sizeof d->msg);
    return chs_arkode_failure(err, "IDA", IDAGetReturnFlagName(rc), *tret, d->f, d->msg);
  }
  return rc == IDA_ROOT_RETURN ? CHS_INTEGRATOR_ROOT : CHS_SUCCESS;
}

/* Events: IDA's root finding on the problem's event functions (chs/integrator.h). */
static int ida_root_init(void *mem, int nev, CHSError *err) {
  ida_mem *d = mem;
  int rc = IDARootInit(d->ida, nev, ida_root);
  if (rc == 0) {
    rc = IDASetNoInactiveRootWarn(d->ida);
  }
  return rc == 0
             ? 0
             : chs_error_set(err, CHS_ERR_SOLVER, "IDA root finding set-up failed (flag %d)", rc);
}

static int ida_root_info(void *mem, int *dirs) {
  return IDAGetRootInfo(((ida_mem *)mem)->ida, dirs) == 0 ? 0 : CHS_ERR_SOLVER;
}

static int ida_stats(void *mem, CHSIntegratorStats *st) {
  ida_mem *d = mem;
  long v = 0;
  memset(st, 0, sizeof *st);
  if (IDAGetNumSteps(d->ida, &v) == 0) {
    st->steps = v + d->base_steps;
  }
  if (IDAGetNumResEvals(d->ida, &v) == 0) {
    st->rhs_evals = v + d->base_res;
  }
  st->jac_evals = IDAGetNumJacEvals(d->ida, &v) == 0 ? v + d->base_jac : -1;
  st->err_test_fails = IDAGetNumErrTestFails(d->ida, &v) == 0 ? v : -1;
  st->lin_setups = IDAGetNumLinSolvSetups(d->ida, &v) == 0 ? v : -1;
  st->nonlin_iters = IDAGetNumNonlinSolvIters(d->ida, &v) == 0 ? v : 0;
  st->nonlin_conv_fails = IDAGetNumNonlinSolvConvFails(d->ida, &v) == 0 ? v : 0;
  st->lin_iters = d->LS && SUNLinSolGetType(d->LS) == SUNLINEARSOLVER_ITERATIVE &&
                          IDAGetNumLinIters(d->ida, &v) == 0
                      ? v
                      : 0;
  st->linear_solver = chs_ls_names[d->ls];
  st->linear_solver_auto = d->ls_auto;
  return 0;
}

static int ida_reinit(void *mem, sunrealtype t, N_Vector y) {
  ida_mem *d = mem;
  CHSIntegratorStats st;
  ida_stats(d, &st);
  d->base_steps = st.steps;
  d->base_res = st.rhs_evals;
  d->base_jac = st.jac_evals > 0 ? st.jac_evals : 0;
  if (CHSFormulation_InitialDerivative(d->f, y, d->yp) != 0) {
    return CHS_ERR_SOLVER;
  }
  return IDAReInit(d->ida, t, y, d->yp) == 0 ? 0 : CHS_ERR_SOLVER;
}

static void *ida_sundials_mem(void *mem) {
  return ((ida_mem *)mem)->ida;
}

const CHSIntegratorOps chs_integrator_ida = {
    .family = "ida",
    .summary = "IDA (BDF) on the residual (DAE formulations, or y' - f); "
               "ls=auto|dense|band|klu|umfpack|spgmr, "
               "analytic Jacobians, hmax=H",
    .accepts_dae = 1,
    .method_name = ida_method_name,
    .create = ida_create,
    .evolve = ida_evolve,
    .get_stats = ida_stats,
    .sundials_mem = ida_sundials_mem,
    .reinit = ida_reinit,
    .destroy = ida_destroy,
    .root_init = ida_root_init,
    .root_info = ida_root_info,
};
