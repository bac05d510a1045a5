/* First-order Lagrangians L = a_i(z) z'^i - V(z) ([Seiler, Faddeev-Jackiw] Sec. 2, eqs. (1)-(3)):
 * instances, the Euler-Lagrange right-hand side A(z) z' = grad V(z) through SUNDIALS' dense LU, and
 * one ERKStep integration with the energy and reference diagnostics (chs/first_order.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include "compat.h"
#include "impl.h"
#include "integrate/setup.h"

struct CHSFirstOrder_ {
  const CHSFirstOrderOps *ops;
  void *data;
  sunindextype d;
  SUNContext ctx;
  SUNMatrix A;        /* A(z), overwritten by its LU factors */
  SUNLinearSolver ls; /* dense LU, set up (factored) at every evaluation */
  N_Vector b, x;      /* serial right-hand side grad V and solution z' */
  sunrealtype *Da;    /* d x d: Da[i*d + j] = da_j/dz_i */
  long n_rhs;
  CHSError failure;
};

static int chs_fo_check_ops(const CHSFirstOrderOps *ops, CHSError *err) {
  if (!ops) {
    return chs_error_set(err, CHS_ERR_ARG, "first-order ops table is NULL");
  }
  const chs_required req[] = {{(const void *)ops->name, "name"},
                              {(const void *)ops->create, "create"},
                              {(const void *)ops->destroy, "destroy"},
                              {(const void *)ops->one_form, "one_form"},
                              {(const void *)ops->one_form_jacobian, "one_form_jacobian"},
                              {(const void *)ops->potential, "potential"},
                              {(const void *)ops->gradient, "gradient"},
                              {(const void *)ops->initial_state, "initial_state"}};
  return chs_check_required(req, sizeof req / sizeof req[0], CHS_ERR_ARG, "first-order problem",
                            ops->name, err);
}

void CHSFirstOrder_Destroy(CHSFirstOrder *fo) {
  if (!fo || !*fo) {
    return;
  }
  CHSFirstOrder p = *fo;
  if (p->data) {
    p->ops->destroy(p->data);
  }
  if (p->ls) {
    SUNLinSolFree(p->ls);
  }
  if (p->A) {
    SUNMatDestroy(p->A);
  }
  if (p->b) {
    N_VDestroy(p->b);
  }
  if (p->x) {
    N_VDestroy(p->x);
  }
  free(p->Da);
  free(p);
  *fo = NULL;
}

int CHSFirstOrder_CreateFromOps(const CHSFirstOrderOps *ops, const char *params, SUNContext sunctx,
                                CHSFirstOrder *out, CHSError *err) {
  *out = NULL;
  CHS_CALL(chs_fo_check_ops(ops, err));
  if (!sunctx) {
    return chs_error_set(err, CHS_ERR_ARG, "first-order problem '%s': SUNContext is NULL",
                         ops->name);
  }
  CHSParams kv = NULL;
  CHS_CALL(CHSParams_Parse(params, &kv, err));
  CHSFirstOrder fo = calloc(1, sizeof *fo);
  if (!fo) {
    CHSParams_Destroy(&kv);
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  fo->ops = ops;
  fo->ctx = sunctx;
  int rc = ops->create(kv, &fo->data, &fo->d, err);
  if (rc == 0) {
    rc = CHSParams_CheckAllUsed(kv, ops->name, err);
  }
  CHSParams_Destroy(&kv);
  if (rc == 0 && fo->d < 1) {
    rc = chs_error_set(err, CHS_ERR_ARG, "first-order problem '%s': dimension %ld < 1", ops->name,
                       (long)fo->d);
  }
  if (rc == 0) {
    sunindextype d = fo->d;
    fo->Da = malloc((size_t)(d * d) * sizeof *fo->Da);
    fo->b = N_VNew_Serial(d, sunctx);
    fo->x = N_VNew_Serial(d, sunctx);
    fo->A = fo->b ? SUNDenseMatrix(d, d, sunctx) : NULL;
    fo->ls = fo->A ? SUNLinSol_Dense(fo->b, fo->A, sunctx) : NULL;
    if (!fo->Da || !fo->x || !fo->ls) {
      rc = chs_error_set(err, CHS_ERR_MEM, "out of memory");
    }
  }
  if (rc == 0) {
    sunrealtype *z0 = N_VGetArrayPointer(fo->x);
    if (ops->initial_state(fo->data, z0) != 0 || !chs_all_finite(z0, fo->d)) {
      rc = chs_error_set(err, CHS_ERR_ARG, "first-order problem '%s': initial state is not finite",
                         ops->name);
    }
  }
  if (rc != 0) {
    if (err && err->code == CHS_SUCCESS) {
      chs_error_set(err, rc < 0 ? rc : CHS_ERR_ARG, "first-order problem '%s' could not be created",
                    ops->name);
    }
    CHSFirstOrder_Destroy(&fo);
    return rc < 0 ? rc : CHS_ERR_ARG;
  }
  CHSError_Clear(&fo->failure);
  *out = fo;
  return CHS_SUCCESS;
}

int CHSFirstOrder_Create(const char *spec, SUNContext sunctx, CHSFirstOrder *out, CHSError *err) {
  char name[256];
  const char *params = NULL;
  *out = NULL;
  CHS_CALL(CHSSpec_Split(spec, name, sizeof name, &params, err));
  const CHSFirstOrderOps *ops = CHSFirstOrderRegistry_Find(name);
  if (!ops) {
    return chs_error_set(err, CHS_ERR_NOTFOUND,
                         "unknown first-order problem '%s' (see `chs list problems`)", name);
  }
  return CHSFirstOrder_CreateFromOps(ops, params, sunctx, out, err);
}

/* A callback's code as an RHS return: > 0 recoverable, < 0 fatal (reason recorded). */
static int chs_fo_callback_failed(CHSFirstOrder fo, int rc, const char *what, sunrealtype t) {
  chs_error_set(&fo->failure, CHS_ERR_CALLBACK, "%s: %s failed at t = %.17g (%s)", fo->ops->name,
                what, (double)t, rc > 0 ? "outside its domain" : "fatal");
  return rc > 0 ? CHS_RECOVERABLE : CHS_ERR_CALLBACK;
}

/* A(z) into the dense SUNMatrix (column-major storage); returns max |A_ij| or -1 if not finite. */
static sunrealtype chs_fo_assemble(CHSFirstOrder fo) {
  sunindextype d = fo->d;
  const sunrealtype *Da = fo->Da;
  sunrealtype amax = 0;
  for (sunindextype j = 0; j < d; j++) {
    sunrealtype *col = SUNDenseMatrix_Column(fo->A, j);
    for (sunindextype i = 0; i < d; i++) {
      sunrealtype v = Da[i * d + j] - Da[j * d + i];
      if (!isfinite(v)) {
        return -1;
      }
      col[i] = v;
      amax = fmax(amax, fabs(v));
    }
  }
  return amax;
}

int CHSFirstOrder_Rhs(sunrealtype t, N_Vector z, N_Vector zdot, void *user_data) {
  CHSFirstOrder fo = user_data;
  const CHSFirstOrderOps *ops = fo->ops;
  sunindextype d = fo->d;
  const sunrealtype *zp = N_VGetArrayPointer(z);
  sunrealtype *b = N_VGetArrayPointer(fo->b);
  fo->n_rhs++;
  if (N_VGetLength(z) != d || N_VGetLength(zdot) != d || !zp || !N_VGetArrayPointer(zdot)) {
    chs_error_set(&fo->failure, CHS_ERR_ARG,
                  "%s: CHSFirstOrder_Rhs needs vectors of length %ld with array access", ops->name,
                  (long)d);
    return CHS_ERR_ARG;
  }
  int rc = ops->one_form_jacobian(fo->data, zp, fo->Da);
  if (rc != 0) {
    return chs_fo_callback_failed(fo, rc, "one_form_jacobian", t);
  }
  rc = ops->gradient(fo->data, zp, b);
  if (rc != 0) {
    return chs_fo_callback_failed(fo, rc, "gradient", t);
  }
  sunrealtype amax = chs_fo_assemble(fo);
  if (amax < 0 || !chs_all_finite(b, d)) {
    chs_error_set(&fo->failure, CHS_ERR_NONFINITE, "%s: A(z) or grad V is not finite at t = %.17g",
                  ops->name, (double)t);
    return CHS_RECOVERABLE;
  }
  /* LU with partial pivoting; a pivot below 16 d eps max|A| counts as zero (numerical rank). */
  int lrc = SUNLinSolSetup(fo->ls, fo->A);
  sunrealtype pmin = amax;
  for (sunindextype k = 0; lrc == 0 && k < d; k++) {
    pmin = fmin(pmin, fabs(SUNDenseMatrix_Column(fo->A, k)[k]));
  }
  if (lrc != 0 || amax == 0 || pmin <= 16 * (sunrealtype)d * SUN_UNIT_ROUNDOFF * amax) {
    chs_error_set(&fo->failure, CHS_ERR_SINGULAR,
                  "%s: the matrix A(z) = da/dz - (da/dz)^T (d = %ld) is singular at t = %.17g "
                  "(%s%s): the Lagrangian is degenerate, its Euler-Lagrange equations contain "
                  "constraints and are not an ODE; add Faddeev-Jackiw multipliers ([Seiler, "
                  "Faddeev-Jackiw] (9))",
                  ops->name, (long)d, (double)t,
                  lrc != 0 || amax == 0 ? "zero pivot" : "tiny pivot",
                  d % 2 ? "; an antisymmetric matrix of odd order is always singular" : "");
    return CHS_RECOVERABLE;
  }
  if (SUNLinSolSolve(fo->ls, fo->A, fo->x, fo->b, 0) != 0) {
    chs_error_set(&fo->failure, CHS_ERR_SINGULAR, "%s: dense solve with A(z) failed at t = %.17g",
                  ops->name, (double)t);
    return CHS_RECOVERABLE;
  }
  const sunrealtype *x = N_VGetArrayPointer(fo->x);
  if (!chs_all_finite(x, d)) {
    chs_error_set(&fo->failure, CHS_ERR_NONFINITE, "%s: z' is not finite at t = %.17g", ops->name,
                  (double)t);
    return CHS_RECOVERABLE;
  }
  memcpy(N_VGetArrayPointer(zdot), x, (size_t)d * sizeof *x);
  return 0;
}

int CHSFirstOrder_Matrix(CHSFirstOrder fo, const sunrealtype *z, sunrealtype *A, CHSError *err) {
  sunindextype d = fo->d;
  if (fo->ops->one_form_jacobian(fo->data, z, fo->Da) != 0) {
    return chs_error_set(err, CHS_ERR_CALLBACK, "%s: one_form_jacobian failed", fo->ops->name);
  }
  for (sunindextype i = 0; i < d; i++) {
    for (sunindextype j = 0; j < d; j++) {
      A[i * d + j] = fo->Da[i * d + j] - fo->Da[j * d + i];
    }
  }
  return CHS_SUCCESS;
}

int CHSFirstOrder_Energy(CHSFirstOrder fo, N_Vector z, sunrealtype *V, CHSError *err) {
  if (fo->ops->potential(fo->data, N_VGetArrayPointer(z), V) != 0 || !isfinite(*V)) {
    return chs_error_set(err, CHS_ERR_CALLBACK, "%s: potential failed or is not finite",
                         fo->ops->name);
  }
  return CHS_SUCCESS;
}

int CHSFirstOrder_NewInitialState(CHSFirstOrder fo, N_Vector *z0, CHSError *err) {
  *z0 = N_VNew_Serial(fo->d, fo->ctx);
  chs_nvector_fast_ops(*z0);
  if (!*z0) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  sunrealtype *z = N_VGetArrayPointer(*z0);
  if (fo->ops->initial_state(fo->data, z) != 0 || !chs_all_finite(z, fo->d)) {
    N_VDestroy(*z0);
    *z0 = NULL;
    return chs_error_set(err, CHS_ERR_CALLBACK, "%s: initial state failed or is not finite",
                         fo->ops->name);
  }
  return CHS_SUCCESS;
}

int CHSFirstOrder_HasReference(CHSFirstOrder fo) {
  return fo->ops->reference != NULL;
}

int CHSFirstOrder_Reference(CHSFirstOrder fo, sunrealtype t, N_Vector z, CHSError *err) {
  if (!fo->ops->reference) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED, "%s has no reference solution", fo->ops->name);
  }
  sunrealtype *zp = N_VGetArrayPointer(z);
  if (fo->ops->reference(fo->data, t, zp) != 0 || !chs_all_finite(zp, fo->d)) {
    return chs_error_set(err, CHS_ERR_CALLBACK, "%s: reference failed at t = %g", fo->ops->name,
                         (double)t);
  }
  return CHS_SUCCESS;
}

sunindextype CHSFirstOrder_GetDim(CHSFirstOrder fo) {
  return fo->d;
}
const CHSFirstOrderOps *CHSFirstOrder_GetOps(CHSFirstOrder fo) {
  return fo->ops;
}
void *CHSFirstOrder_GetData(CHSFirstOrder fo) {
  return fo->data;
}
const char *CHSFirstOrder_GetName(CHSFirstOrder fo) {
  return fo->ops->name;
}
SUNContext CHSFirstOrder_GetContext(CHSFirstOrder fo) {
  return fo->ctx;
}
long CHSFirstOrder_GetNumRhsEvals(CHSFirstOrder fo) {
  return fo->n_rhs;
}
const CHSError *CHSFirstOrder_GetLastFailure(CHSFirstOrder fo) {
  return &fo->failure;
}
void CHSFirstOrder_ResetCounters(CHSFirstOrder fo) {
  fo->n_rhs = 0;
  CHSError_Clear(&fo->failure);
}

/* ------------------------------------------------------------------ one ERKStep integration */

typedef struct {
  CHSFirstOrder fo;
  CHSFirstOrderSummary *sum;
  N_Vector zref;
  sunrealtype t0;
} chs_fo_observer;

static int chs_fo_observe(chs_fo_observer *ob, sunrealtype t, N_Vector z, CHSError *err) {
  CHSFirstOrderSummary *s = ob->sum;
  sunrealtype V = 0;
  CHS_CALL(CHSFirstOrder_Energy(ob->fo, z, &V, err));
  sunrealtype de = fabs(V - s->V0) / (s->V0 != 0 ? fabs(s->V0) : 1);
  s->t_final = t;
  s->energy_err_final = de;
  s->energy_err_max = fmax(s->energy_err_max, de);
  if (s->has_reference) {
    CHS_CALL(CHSFirstOrder_Reference(ob->fo, t - ob->t0, ob->zref, err));
    N_VLinearSum(1, z, -1, ob->zref, ob->zref);
    sunrealtype e = chs_norm2(N_VGetArrayPointer(ob->zref), ob->fo->d);
    if (!isfinite(e)) {
      return chs_error_set(err, CHS_ERR_NONFINITE, "%s: state is not finite at t = %g",
                           ob->fo->ops->name, (double)t);
    }
    s->int_err_final = e;
    s->int_err_max = fmax(s->int_err_max, e);
  }
  return CHS_SUCCESS;
}

static int chs_fo_check_options(CHSFirstOrder fo, const CHSRunOptions *o, const char **table,
                                CHSError *err) {
  const char *m = o->method ? o->method : "";
  if (strncmp(m, "erk:", 4) != 0) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "first-order problem '%s' runs with explicit Runge-Kutta methods only "
                         "(erk:<table>), not '%s'",
                         fo->ops->name, m);
  }
  *table = m + 4;
  if (o->project != CHS_PROJECT_NONE) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "first-order problem '%s' has no constraints to project on",
                         fo->ops->name);
  }
  return chs_check_time_step(o, err);
}

/* ERKStep on CHSFirstOrder_Rhs with the table of an erk method option. */
static int chs_fo_erk_create(CHSFirstOrder fo, const char *table, const CHSStepControl *ctl,
                             sunrealtype t0, N_Vector z, char *msg, void **out, CHSError *err) {
  int embedded = 0;
  ARKodeButcherTable B = chs_erk_table(table, &embedded, err);
  if (!B) {
    return err ? err->code : CHS_ERR_NOTFOUND;
  }
  if (ctl->h == 0 && !embedded) {
    ARKodeButcherTable_Free(B);
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "method erk:%s has no embedded error estimate: use a fixed step --h",
                         table);
  }
  void *mem = ERKStepCreate(CHSFirstOrder_Rhs, t0, z, fo->ctx);
  chs_setup su = {0};
  CHS_SETUP_CREATED(&su, mem, ERKStepCreate);
#if !CHS_SUNDIALS_AT_LEAST(7, 0)
  CHS_SETUP(&su, ERKStepSetErrHandlerFn, mem, chs_arkode_capture_error, msg);
#else
  (void)msg;
#endif
  CHS_SETUP(&su, ERKStepSetTable, mem, B);
  CHS_SETUP(&su, chs_erk_fix_last_stage_reuse, mem, B);
  CHS_SETUP(&su, chs_erk_set_user_data, mem, fo);
  if (ctl->h > 0) {
    CHS_SETUP(&su, chs_erk_set_fixed_step, mem, ctl->h);
  } else {
    CHS_SETUP(&su, chs_erk_sstolerances, mem, ctl->rtol, ctl->atol);
  }
  ARKodeButcherTable_Free(B);
  if (su.flag != 0) {
    if (mem) {
      chs_erk_free(&mem);
    }
    char method[80];
    snprintf(method, sizeof method, "erk:%s", table);
    return chs_setup_error(&su, "ERKStep", method, err);
  }
  *out = mem;
  return CHS_SUCCESS;
}

static int chs_fo_integrate(CHSFirstOrder fo, void *mem, const CHSRunOptions *o, N_Vector z,
                            chs_fo_observer *ob, const char *msg, CHSError *err) {
  sunrealtype t = o->t0;
  long steps = 0, max_steps = o->ctl.max_steps > 0 ? o->ctl.max_steps : 5000000;
  int rc = chs_erk_set_stop_time(mem, o->tf);
  if (rc != 0) {
    return chs_error_set(err, CHS_ERR_SOLVER, "ERKStep: cannot set the stop time (flag %d)", rc);
  }
  while (t < o->tf) {
    if (steps >= max_steps) {
      return chs_too_much_work(err, steps, t, o->tf);
    }
    double w0 = chs_wall_time();
    rc = chs_erk_evolve(mem, o->tf, z, &t, ARK_ONE_STEP);
    ob->sum->wall_s += chs_wall_time() - w0;
    if (rc < 0) {
      char *flag = chs_erk_get_return_flag_name(rc);
      const char *why = fo->failure.msg[0] ? fo->failure.msg : msg;
      chs_error_set(err, fo->failure.code != CHS_SUCCESS ? fo->failure.code : CHS_ERR_SOLVER,
                    "ERKStep failed at t = %.17g with %s%s%.400s", (double)t,
                    flag ? flag : "an error", why[0] ? ": " : "", why);
      free(flag);
      return err ? err->code : CHS_ERR_SOLVER;
    }
    steps++;
    CHS_CALL(chs_fo_observe(ob, t, z, err));
  }
  return CHS_SUCCESS;
}

int CHSFirstOrder_Run(CHSFirstOrder fo, const CHSRunOptions *opt, CHSFirstOrderSummary *sum,
                      CHSError *err) {
  memset(sum, 0, sizeof *sum);
  sum->err_test_fails = -1;
  const char *table = NULL;
  CHS_CALL(chs_fo_check_options(fo, opt, &table, err));
  N_Vector z = NULL;
  void *mem = NULL;
  char msg[CHS_ARKODE_MSG_LEN] = "";
  chs_fo_observer ob = {fo, sum, NULL, opt->t0};
  sum->has_reference = CHSFirstOrder_HasReference(fo);
  sum->t_final = opt->t0;
  int rc = CHSFirstOrder_NewInitialState(fo, &z, err);
  if (rc == 0 && sum->has_reference) {
    ob.zref = N_VClone(z);
    rc = ob.zref ? 0 : chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  if (rc == 0) {
    rc = CHSFirstOrder_Energy(fo, z, &sum->V0, err);
  }
  if (rc == 0) {
    rc = chs_fo_observe(&ob, opt->t0, z, err);
  }
  if (rc == 0) {
    rc = chs_fo_erk_create(fo, table, &opt->ctl, opt->t0, z, msg, &mem, err);
  }
  CHSFirstOrder_ResetCounters(fo);
  if (rc == 0) {
    rc = chs_fo_integrate(fo, mem, opt, z, &ob, msg, err);
    sum->completed = rc == 0;
  }
  long v = 0;
  if (mem && chs_erk_get_num_steps(mem, &v) == 0) {
    sum->steps = v;
  }
  if (mem && opt->ctl.h == 0 && chs_erk_get_num_err_test_fails(mem, &v) == 0) {
    sum->err_test_fails = v;
  }
  sum->rhs_evals = fo->n_rhs;
  if (mem) {
    chs_erk_free(&mem);
  }
  if (ob.zref) {
    N_VDestroy(ob.zref);
  }
  if (z) {
    N_VDestroy(z);
  }
  return rc;
}
