/* Diagonally implicit Runge-Kutta methods through ARKODE ARKStep (implicit part only), Newton
 * iteration with SUNDIALS' dense linear solver and ARKODE's difference-quotient Jacobian.
 *
 *   dirk:midpoint  the implicit midpoint rule (c = 1/2, a = 1/2, b = 1), as a custom table:
 *                  symplectic for canonical Hamiltonian systems when the stage equation is
 *                  solved exactly ([Seiler, Dirac] Sec. 7, [Leimkuhler & Reich] Sec. 3-4); fixed
 * step only dirk:NAME      any ARKODE DIRK table, e.g. dirk:ARKODE_SDIRK_2_1_2
 *
 * With a fixed step --h, the Newton iteration is stopped by ARKODE's test against the tolerances
 * rtol/atol (default 1e-10 both when not given; up to 50 modified-Newton iterations) times the
 * nonlinear convergence coefficient (ARKODE default 0.1). */
#include <stdlib.h>
#include <string.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include "../compat.h"
#include "../impl.h"
#include "setup.h"
#include "fixed_step.h"

typedef struct {
  void *arkode;
  CHSFormulation f;
  SUNMatrix A;
  SUNLinearSolver LS;
  int fixed;
  sunrealtype h, t;          /* fixed step: its size, and the time reached (grid t0 + k h) */
  long base_steps, base_rhs; /* counts before the last restart (ARKODE resets its own) */
  char arkode_msg[CHS_ARKODE_MSG_LEN];
} dirk_mem;

/* ARKODE's DIRK tables (enumerated by ARKODE from 7.1 on, the 6.4 list before), after the
 * custom "midpoint". Names are checked here before ARKODE loads them (it prints on unknown
 * names). */
static const char *dirk_method_name(int i) {
  if (i == 0) {
    return "midpoint";
  }
  i--;
#if CHS_SUNDIALS_AT_LEAST(7, 1)
  if (i < 0 || i > ARKODE_MAX_DIRK_NUM - ARKODE_MIN_DIRK_NUM) {
    return NULL;
  }
  return ARKodeButcherTable_DIRKIDToName((ARKODE_DIRKTableID)(ARKODE_MIN_DIRK_NUM + i));
#else
  static const char *const tables[] = {
      "ARKODE_SDIRK_2_1_2",
      "ARKODE_BILLINGTON_3_3_2",
      "ARKODE_TRBDF2_3_3_2",
      "ARKODE_KVAERNO_4_2_3",
      "ARKODE_ARK324L2SA_DIRK_4_2_3",
      "ARKODE_CASH_5_2_4",
      "ARKODE_CASH_5_3_4",
      "ARKODE_SDIRK_5_3_4",
      "ARKODE_KVAERNO_5_3_4",
      "ARKODE_ARK436L2SA_DIRK_6_3_4",
      "ARKODE_KVAERNO_7_4_5",
      "ARKODE_ARK548L2SA_DIRK_8_4_5",
      "ARKODE_ARK437L2SA_DIRK_7_3_4",
      "ARKODE_ARK548L2SAb_DIRK_8_4_5",
      "ARKODE_ESDIRK324L2SA_4_2_3",
      "ARKODE_ESDIRK325L2SA_5_2_3",
      "ARKODE_ESDIRK32I5L2SA_5_2_3",
      "ARKODE_ESDIRK436L2SA_6_3_4",
      "ARKODE_ESDIRK43I6L2SA_6_3_4",
      "ARKODE_QESDIRK436L2SA_6_3_4",
  };
  return i >= 0 && i < (int)(sizeof tables / sizeof tables[0]) ? tables[i] : NULL;
#endif
}

static ARKodeButcherTable dirk_table(const char *opt, CHSError *err) {
  if (!opt || !*opt) {
    chs_error_set(err, CHS_ERR_ARG, "method dirk needs a table: dirk:midpoint, ...");
    return NULL;
  }
  if (strcmp(opt, "midpoint") == 0) {
    sunrealtype c = 0.5, A = 0.5, b = 1;
    return ARKodeButcherTable_Create(1, 2, 0, &c, &A, &b, NULL);
  }
  char full[128];
  snprintf(full, sizeof full, "%s%s", strncmp(opt, "ARKODE_", 7) == 0 ? "" : "ARKODE_", opt);
  int known = 0;
  for (int i = 1; !known && dirk_method_name(i); i++) {
    known = strcmp(dirk_method_name(i), full) == 0;
  }
  ARKodeButcherTable B = known ? ARKodeButcherTable_LoadDIRKByName(full) : NULL;
  if (!B) {
    chs_error_set(err, CHS_ERR_NOTFOUND, "unknown method 'dirk:%s' (see `chs list methods`)", opt);
  }
  return B;
}

static void dirk_destroy(void *mem) {
  dirk_mem *d = mem;
  if (!d) {
    return;
  }
  if (d->arkode) {
    chs_ark_free(&d->arkode);
  }
  if (d->LS) {
    SUNLinSolFree(d->LS);
  }
  if (d->A) {
    SUNMatDestroy(d->A);
  }
  free(d);
}

static int dirk_create(const char *options, CHSFormulation f, N_Vector y0, sunrealtype t0,
                       const CHSStepControl *ctl, void **out, CHSError *err) {
  ARKodeButcherTable B = dirk_table(options, err);
  if (!B) {
    return err ? err->code : CHS_ERR_NOTFOUND;
  }
  int fixed = ctl->h > 0;
  if (!fixed && !B->d) {
    ARKodeButcherTable_Free(B);
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "method dirk:%s has no embedded error estimate: use a fixed step --h",
                         options);
  }
  dirk_mem *d = calloc(1, sizeof *d);
  if (!d) {
    ARKodeButcherTable_Free(B);
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  SUNContext ctx = CHSFormulation_GetContext(f);
  sunindextype n = N_VGetLength(y0);
  d->f = f;
  d->fixed = fixed;
  d->h = ctl->h;
  d->t = t0;
  d->arkode = ARKStepCreate(NULL, CHSFormulation_Rhs, t0, y0, ctx);
  d->A = SUNDenseMatrix(n, n, ctx);
  d->LS = d->A ? SUNLinSol_Dense(y0, d->A, ctx) : NULL;
  chs_setup su = {0};
  CHS_SETUP_CREATED(&su, d->arkode, ARKStepCreate);
  CHS_SETUP_CREATED(&su, d->LS, SUNLinSol_Dense);
#if !CHS_SUNDIALS_AT_LEAST(7, 0)
  CHS_SETUP(&su, ARKStepSetErrHandlerFn, d->arkode, chs_arkode_capture_error, d->arkode_msg);
#endif
  CHS_SETUP(&su, ARKStepSetTables, d->arkode, B->q, 0, B, NULL);
  CHS_SETUP(&su, chs_ark_set_user_data, d->arkode, f);
  CHS_SETUP(&su, chs_ark_sstolerances, d->arkode, ctl->rtol > 0 ? ctl->rtol : 1e-10,
            ctl->atol > 0 ? ctl->atol : 1e-10);
  /* modified Newton converges linearly: allow it to reach tight tolerances */
  CHS_SETUP(&su, chs_ark_set_max_nonlin_iters, d->arkode, 50);
  if (fixed) {
    CHS_SETUP(&su, chs_ark_set_fixed_step, d->arkode, ctl->h);
  }
  CHS_SETUP(&su, chs_ark_set_linear_solver, d->arkode, d->LS, d->A);
  if (CHSFormulation_GetProjector(f)) { /* endpoint projection after every step */
    CHS_SETUP(&su, chs_ark_set_postprocess, d->arkode, CHSProjector_ARKPostprocess);
  }
  CHS_SETUP(&su, chs_ark_set_max_num_steps, d->arkode,
            ctl->max_steps > 0 ? ctl->max_steps : 500000);
  ARKodeButcherTable_Free(B);
  if (su.flag != 0) {
    dirk_destroy(d);
    char method[80];
    snprintf(method, sizeof method, "dirk:%s", options);
    return chs_setup_error(&su, "ARKStep", method, err);
  }
  *out = d;
  return CHS_SUCCESS;
}

static int dirk_evolve(void *mem, sunrealtype tout, N_Vector y, sunrealtype *tret, int one_step,
                       CHSError *err) {
  dirk_mem *d = mem;
  int rc = 0;
  if (d->fixed) { /* counted steps, each stopped at its grid point (fixed_step.h) */
    long long total = 0;
    int partial = 0;
    *tret = d->t;
    CHS_CALL(chs_fixed_step_count(d->t, d->h, tout, one_step, &total, &partial, err));
    const sunrealtype t0 = d->t;
    /* the stop time only at tout: a stop at every step would cost FSAL methods the reuse of
     * their last stage. ARKODE's own time may then differ from the grid by its rounding drift
     * (it is snapped to tout when its last step would overshoot); the count is ours. */
    rc = total > 0 ? chs_ark_set_stop_time(d->arkode, tout) : 0;
    for (long long k = 1; k <= total && rc >= 0; k++) {
      sunrealtype t1 = chs_fixed_step_end(t0, d->h, tout, k, total);
      rc = chs_ark_evolve(d->arkode, t1, y, tret, ARK_ONE_STEP);
      if (rc >= 0) {
        d->t = *tret = t1;
      }
      if (one_step) {
        break;
      }
    }
    if (rc >= 0 && !one_step) {
      d->t = *tret = tout;
    }
  } else {
    rc = chs_ark_set_stop_time(d->arkode, tout);
    if (rc == 0) {
      rc = chs_ark_evolve(d->arkode, tout, y, tret, one_step ? ARK_ONE_STEP : ARK_NORMAL);
    }
  }
  if (rc < 0) {
    return chs_arkode_failure(err, "ARKStep", chs_ark_get_return_flag_name(rc), *tret, d->f,
                              d->arkode_msg);
  }
  return rc == ARK_ROOT_RETURN ? CHS_INTEGRATOR_ROOT : CHS_SUCCESS;
}

/* Events: ARKODE's root finding on the problem's event functions (chs/integrator.h). */
static int dirk_root_init(void *mem, int nev, CHSError *err) {
  dirk_mem *d = mem;
#if CHS_SUNDIALS_AT_LEAST(7, 1)
  int rc = ARKodeRootInit(d->arkode, nev, CHSIntegrator_EventRootFn);
  if (rc == 0) {
    rc = ARKodeSetNoInactiveRootWarn(d->arkode);
  }
#else
  int rc = ARKStepRootInit(d->arkode, nev, CHSIntegrator_EventRootFn);
  if (rc == 0) {
    rc = ARKStepSetNoInactiveRootWarn(d->arkode);
  }
#endif
  return rc == 0 ? 0
                 : chs_error_set(err, CHS_ERR_SOLVER,
                                 "ARKStep root finding set-up failed (flag %d)", rc);
}

static int dirk_root_info(void *mem, int *dirs) {
#if CHS_SUNDIALS_AT_LEAST(7, 1)
  return ARKodeGetRootInfo(((dirk_mem *)mem)->arkode, dirs) == 0 ? 0 : CHS_ERR_SOLVER;
#else
  return ARKStepGetRootInfo(((dirk_mem *)mem)->arkode, dirs) == 0 ? 0 : CHS_ERR_SOLVER;
#endif
}

static int dirk_stats(void *mem, CHSIntegratorStats *st) {
  dirk_mem *d = mem;
  long v = 0;
  memset(st, 0, sizeof *st);
  st->err_test_fails = -1;
  st->lin_setups = -1;
  if (chs_ark_get_num_steps(d->arkode, &v) == 0) {
    st->steps = v + d->base_steps;
  }
  if (chs_ark_get_num_rhs_evals(d->arkode, &v) == 0) {
    st->rhs_evals = v + d->base_rhs;
  }
  st->jac_evals = chs_ark_get_num_jac_evals(d->arkode, &v) == 0 ? v : -1;
  st->nonlin_iters = chs_ark_get_num_nonlin_iters(d->arkode, &v) == 0 ? v : 0;
  return 0;
}

static int dirk_reinit(void *mem, sunrealtype t, N_Vector y) {
  dirk_mem *d = mem;
  long v = 0;
  if (chs_ark_get_num_steps(d->arkode, &v) == 0) {
    d->base_steps += v;
  }
  if (chs_ark_get_num_rhs_evals(d->arkode, &v) == 0) {
    d->base_rhs += v;
  }
  d->t = t;
  return ARKStepReInit(d->arkode, NULL, CHSFormulation_Rhs, t, y) == 0 ? 0 : CHS_ERR_SOLVER;
}

static void *dirk_sundials_mem(void *mem) {
  return ((dirk_mem *)mem)->arkode;
}

const CHSIntegratorOps chs_integrator_dirk = {
    .family = "dirk",
    .summary = "diagonally implicit RK through ARKODE ARKStep, Newton + dense LU (midpoint, "
               "any ARKODE DIRK table)",
    .method_name = dirk_method_name,
    .create = dirk_create,
    .evolve = dirk_evolve,
    .get_stats = dirk_stats,
    .sundials_mem = dirk_sundials_mem,
    .reinit = dirk_reinit,
    .destroy = dirk_destroy,
    .root_init = dirk_root_init,
    .root_info = dirk_root_info,
};
