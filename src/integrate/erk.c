/* Explicit Runge-Kutta methods through ARKODE ERKStep.
 *
 *   erk:rk4    classical 4th-order Runge-Kutta, as a custom Butcher table ([Seiler, Dirac] Sec. 6
 * uses it with h = 0.1); no embedding, so fixed step only erk:rkf45  Fehlberg 4(5),
 * ARKODE_FEHLBERG_6_4_5 ([Seiler, Dirac] Sec. 6: "fifth order Runge-Kutta-Fehlberg") erk:dp5
 * Dormand-Prince 5(4), ARKODE_DORMAND_PRINCE_7_4_5 erk:NAME   any ARKODE ERK table, e.g.
 * erk:ARKODE_VERNER_8_5_6 or erk:VERNER_8_5_6
 *
 * Output times are reached exactly by setting the stop time (no dense-output interpolation). */
#include <stdlib.h>
#include <string.h>
#include <arkode/arkode_erkstep.h>
#include "../compat.h"
#include "../impl.h"
#include "setup.h"
#include "fixed_step.h"

/* The ARKODE ERK tables of the SUNDIALS chs runs on: enumerated by ARKODE itself from 7.1 on,
 * the 6.4 list before. Names are checked against this list before ARKODE loads them (ARKODE
 * prints to stderr on unknown names). */
static const char *erk_table_name(int i) {
#if CHS_SUNDIALS_AT_LEAST(7, 1)
  if (i < 0 || i > ARKODE_MAX_ERK_NUM - ARKODE_MIN_ERK_NUM) {
    return NULL;
  }
  return ARKodeButcherTable_ERKIDToName((ARKODE_ERKTableID)(ARKODE_MIN_ERK_NUM + i));
#else
  static const char *const tables[] = {
      "ARKODE_HEUN_EULER_2_1_2",      "ARKODE_BOGACKI_SHAMPINE_4_2_3",
      "ARKODE_ARK324L2SA_ERK_4_2_3",  "ARKODE_ZONNEVELD_5_3_4",
      "ARKODE_ARK436L2SA_ERK_6_3_4",  "ARKODE_SAYFY_ABURUB_6_3_4",
      "ARKODE_CASH_KARP_6_4_5",       "ARKODE_FEHLBERG_6_4_5",
      "ARKODE_DORMAND_PRINCE_7_4_5",  "ARKODE_ARK548L2SA_ERK_8_4_5",
      "ARKODE_VERNER_8_5_6",          "ARKODE_FEHLBERG_13_7_8",
      "ARKODE_KNOTH_WOLKE_3_3",       "ARKODE_ARK437L2SA_ERK_7_3_4",
      "ARKODE_ARK548L2SAb_ERK_8_4_5",
  };
  return i >= 0 && i < (int)(sizeof tables / sizeof tables[0]) ? tables[i] : NULL;
#endif
}
static const struct {
  const char *alias, *table;
} erk_aliases[] = {
    {"rk4", NULL}, /* custom table */
    {"rkf45", "ARKODE_FEHLBERG_6_4_5"},
    {"dp5", "ARKODE_DORMAND_PRINCE_7_4_5"},
};
#define ERK_NALIAS ((int)(sizeof erk_aliases / sizeof erk_aliases[0]))

typedef struct {
  void *arkode;
  CHSFormulation f;
  int fixed;
  sunrealtype h, t;          /* fixed step: its size, and the time reached (on the grid t0 + k h) */
  long base_steps, base_rhs; /* counts before the last restart (ARKODE resets its own) */
  char arkode_msg[CHS_ARKODE_MSG_LEN]; /* last ARKODE error message (SUNDIALS 6) */
} erk_mem;

static const char *erk_method_name(int i) {
  if (i < ERK_NALIAS) {
    return erk_aliases[i].alias;
  }
  return erk_table_name(i - ERK_NALIAS);
}

static ARKodeButcherTable erk_rk4(void) {
  const sunrealtype c[4] = {0, 0.5, 0.5, 1};
  const sunrealtype A[16] = {0, 0, 0, 0, 0.5, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 1, 0};
  const sunrealtype b[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
  return ARKodeButcherTable_Create(4, 4, 0, (sunrealtype *)c, (sunrealtype *)A, (sunrealtype *)b,
                                   NULL);
}

/* Table for a method option; *embedded tells whether it can run adaptively (impl.h). */
ARKodeButcherTable chs_erk_table(const char *opt, int *embedded, CHSError *err) {
  *embedded = 0;
  if (!opt || !*opt) {
    chs_error_set(err, CHS_ERR_ARG, "method erk needs a table: erk:rk4, erk:dp5, ...");
    return NULL;
  }
  if (strcmp(opt, "rk4") == 0) {
    return erk_rk4();
  }
  const char *name = NULL;
  for (int i = 1; i < ERK_NALIAS; i++) {
    if (strcmp(opt, erk_aliases[i].alias) == 0) {
      name = erk_aliases[i].table;
    }
  }
  char full[128];
  if (!name) {
    snprintf(full, sizeof full, "%s%s", strncmp(opt, "ARKODE_", 7) == 0 ? "" : "ARKODE_", opt);
    name = full;
    int known = 0;
    for (int i = 0; !known && erk_table_name(i); i++) {
      known = strcmp(erk_table_name(i), full) == 0;
    }
    if (!known) {
      chs_error_set(err, CHS_ERR_NOTFOUND, "unknown method 'erk:%s' (see `chs list methods`)", opt);
      return NULL;
    }
  }
  ARKodeButcherTable B = ARKodeButcherTable_LoadERKByName(name);
  if (!B) {
    chs_error_set(err, CHS_ERR_NOTFOUND, "unknown method 'erk:%s' (see `chs list methods`)", opt);
    return NULL;
  }
  *embedded = B->d != NULL;
  return B;
}

static void erk_destroy(void *mem) {
  erk_mem *e = mem;
  if (e) {
    if (e->arkode) {
      chs_erk_free(&e->arkode);
    }
    free(e);
  }
}

static int erk_create(const char *options, CHSFormulation f, N_Vector y0, sunrealtype t0,
                      const CHSStepControl *ctl, void **out, CHSError *err) {
  int embedded = 0;
  ARKodeButcherTable B = chs_erk_table(options, &embedded, err);
  if (!B) {
    return err ? err->code : CHS_ERR_NOTFOUND;
  }
  int fixed = ctl->h > 0;
  if (!fixed && !embedded) {
    ARKodeButcherTable_Free(B);
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "method erk:%s has no embedded error estimate: use a fixed step --h",
                         options);
  }
  erk_mem *e = calloc(1, sizeof *e);
  if (!e) {
    ARKodeButcherTable_Free(B);
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  e->f = f;
  e->fixed = fixed;
  e->h = ctl->h;
  e->t = t0;
  e->arkode = ERKStepCreate(CHSFormulation_Rhs, t0, y0, CHSFormulation_GetContext(f));
  chs_setup su = {0};
  CHS_SETUP_CREATED(&su, e->arkode, ERKStepCreate);
#if !CHS_SUNDIALS_AT_LEAST(7, 0)
  CHS_SETUP(&su, ERKStepSetErrHandlerFn, e->arkode, chs_arkode_capture_error, e->arkode_msg);
#endif
  CHS_SETUP(&su, ERKStepSetTable, e->arkode, B);
  CHS_SETUP(&su, chs_erk_set_user_data, e->arkode, f);
  if (fixed) {
    CHS_SETUP(&su, chs_erk_set_fixed_step, e->arkode, ctl->h);
  } else {
    CHS_SETUP(&su, chs_erk_sstolerances, e->arkode, ctl->rtol, ctl->atol);
  }
  CHS_SETUP(&su, chs_erk_fix_last_stage_reuse, e->arkode, B);
  if (CHSFormulation_GetProjector(f)) { /* projection after every step */
    CHS_SETUP(&su, chs_erk_set_postprocess, e->arkode, CHSProjector_ARKPostprocess);
  }
  CHS_SETUP(&su, chs_erk_set_max_num_steps, e->arkode,
            ctl->max_steps > 0 ? ctl->max_steps : 500000);
  ARKodeButcherTable_Free(B);
  if (su.flag != 0) {
    erk_destroy(e);
    char method[80];
    snprintf(method, sizeof method, "erk:%s", options);
    return chs_setup_error(&su, "ERKStep", method, err);
  }
  *out = e;
  return CHS_SUCCESS;
}

static int erk_evolve(void *mem, sunrealtype tout, N_Vector y, sunrealtype *tret, int one_step,
                      CHSError *err) {
  erk_mem *e = mem;
  int rc = 0;
  if (e->fixed) { /* counted steps, each stopped at its grid point (fixed_step.h) */
    long long total = 0;
    int partial = 0;
    *tret = e->t;
    CHS_CALL(chs_fixed_step_count(e->t, e->h, tout, one_step, &total, &partial, err));
    const sunrealtype t0 = e->t;
    /* the stop time only at tout: a stop at every step would cost FSAL methods the reuse of
     * their last stage. ARKODE's own time may then differ from the grid by its rounding drift
     * (it is snapped to tout when its last step would overshoot); the count is ours. */
    rc = total > 0 ? chs_erk_set_stop_time(e->arkode, tout) : 0;
    for (long long k = 1; k <= total && rc >= 0; k++) {
      sunrealtype t1 = chs_fixed_step_end(t0, e->h, tout, k, total);
      rc = chs_erk_evolve(e->arkode, t1, y, tret, ARK_ONE_STEP);
      if (rc >= 0) {
        e->t = *tret = t1;
      }
      if (one_step) {
        break;
      }
    }
    if (rc >= 0 && !one_step) {
      e->t = *tret = tout;
    }
  } else {
    rc = chs_erk_set_stop_time(e->arkode, tout);
    if (rc == 0) {
      rc = chs_erk_evolve(e->arkode, tout, y, tret, one_step ? ARK_ONE_STEP : ARK_NORMAL);
    }
  }
  if (rc < 0) {
    return chs_arkode_failure(err, "ERKStep", chs_erk_get_return_flag_name(rc), *tret, e->f,
                              e->arkode_msg);
  }
  return rc == ARK_ROOT_RETURN ? CHS_INTEGRATOR_ROOT : CHS_SUCCESS;
}

/* Events: ARKODE's root finding on the problem's event functions (chs/integrator.h). */
static int erk_root_init(void *mem, int nev, CHSError *err) {
  erk_mem *e = mem;
#if CHS_SUNDIALS_AT_LEAST(7, 1)
  int rc = ARKodeRootInit(e->arkode, nev, CHSIntegrator_EventRootFn);
  if (rc == 0) {
    rc = ARKodeSetNoInactiveRootWarn(e->arkode);
  }
#else
  int rc = ERKStepRootInit(e->arkode, nev, CHSIntegrator_EventRootFn);
  if (rc == 0) {
    rc = ERKStepSetNoInactiveRootWarn(e->arkode);
  }
#endif
  return rc == 0 ? 0
                 : chs_error_set(err, CHS_ERR_SOLVER,
                                 "ERKStep root finding set-up failed (flag %d)", rc);
}

static int erk_root_info(void *mem, int *dirs) {
#if CHS_SUNDIALS_AT_LEAST(7, 1)
  return ARKodeGetRootInfo(((erk_mem *)mem)->arkode, dirs) == 0 ? 0 : CHS_ERR_SOLVER;
#else
  return ERKStepGetRootInfo(((erk_mem *)mem)->arkode, dirs) == 0 ? 0 : CHS_ERR_SOLVER;
#endif
}

static int erk_stats(void *mem, CHSIntegratorStats *st) {
  erk_mem *e = mem;
  long v = 0;
  memset(st, 0, sizeof *st);
  st->jac_evals = -1;
  if (chs_erk_get_num_steps(e->arkode, &v) == 0) {
    st->steps = v + e->base_steps;
  }
  if (chs_erk_get_num_rhs_evals(e->arkode, &v) == 0) {
    st->rhs_evals = v + e->base_rhs;
  }
  st->err_test_fails = -1;
  st->lin_setups = -1;
  if (!e->fixed && chs_erk_get_num_err_test_fails(e->arkode, &v) == 0) {
    st->err_test_fails = v;
  }
  return 0;
}

static int erk_reinit(void *mem, sunrealtype t, N_Vector y) {
  erk_mem *e = mem;
  long v = 0;
  if (chs_erk_get_num_steps(e->arkode, &v) == 0) {
    e->base_steps += v;
  }
  if (chs_erk_get_num_rhs_evals(e->arkode, &v) == 0) {
    e->base_rhs += v;
  }
  e->t = t;
  return ERKStepReInit(e->arkode, CHSFormulation_Rhs, t, y) == 0 ? 0 : CHS_ERR_SOLVER;
}

static void *erk_sundials_mem(void *mem) {
  return ((erk_mem *)mem)->arkode;
}

const CHSIntegratorOps chs_integrator_erk = {
    .family = "erk",
    .summary = "explicit Runge-Kutta through ARKODE ERKStep (rk4, rkf45, dp5, any ARKODE table)",
    .method_name = erk_method_name,
    .create = erk_create,
    .evolve = erk_evolve,
    .get_stats = erk_stats,
    .sundials_mem = erk_sundials_mem,
    .reinit = erk_reinit,
    .destroy = erk_destroy,
    .root_init = erk_root_init,
    .root_info = erk_root_info,
};
