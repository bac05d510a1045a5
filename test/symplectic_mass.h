/* Shared by test_rattle.c, test_lobatto.c and test_alpha_prk.c: runs of chs' own symplectic
 * steppers on the M(q) and time-dependent test problems of mass_problems.h, measured against
 * independent truth:
 *   - offset polar pendulum (M(q) = diag(1, r^2), r in [1.06, 3.06] along the motion): the state
 *     mapped to Cartesian coordinates relative to the pivot against the built-in pendulum's
 *     reference solution (its own closed form), at every step;
 *   - moving circle: against the angle in the frame of the moving centre, integrated by ARKODE's
 *     ERKStep at tolerance 1e-13 (f'' = -c''(t) . (cos f, sin f)). */
#ifndef CHS_TEST_SYMPLECTIC_MASS_H
#define CHS_TEST_SYMPLECTIC_MASS_H

#include <arkode/arkode_erkstep.h>
#include <nvector/nvector_serial.h>
#include "test_util.h"
#include "mass_problems.h"
#include "../src/compat.h"

static inline CHSProblem sm_make(const CHSProblemOps *ops, const char *params) {
  CHSProblem prob = NULL;
  CHSError err;
  CHSError_Clear(&err);
  int rc = CHSProblem_CreateFromOps(ops, params, &prob, &err);
  if (rc != 0) {
    print_error("CHSProblem_CreateFromOps(%s): %s\n", ops->name, err.msg);
  }
  assert_int_equal(rc, 0);
  return prob;
}

typedef struct {
  CHSProblem cart; /* polar pendulum: the built-in pendulum (its reference) */
  sunrealtype pivot[2];
  const mc_data *P;    /* moving circle: its parameters */
  void *model;         /* moving circle: ERKStep on (f, f') */
  N_Vector my;         /* (f, f') */
  sunrealtype t_model; /* time of my */
  double err, H_range[2];
  long records;
} sm_observer;

static inline int sm_observe_polar(const CHSRecord *rec, void *ctx) {
  sm_observer *o = ctx;
  sunrealtype xc[4], qr[2], pr[2], ref[4];
  pp_to_cartesian(rec->q, rec->p, xc);
  xc[0] -= o->pivot[0];
  xc[1] -= o->pivot[1];
  if (CHSProblem_Reference(o->cart, rec->t, qr, pr) != 0) {
    return -1;
  }
  ref[0] = qr[0];
  ref[1] = qr[1];
  ref[2] = pr[0];
  ref[3] = pr[1];
  o->err = fmax(o->err, diff_inf(xc, ref, 4));
  o->H_range[0] = o->records ? fmin(o->H_range[0], rec->energy) : rec->energy;
  o->H_range[1] = o->records ? fmax(o->H_range[1], rec->energy) : rec->energy;
  o->records++;
  return 0;
}

static inline int sm_observe_circle(const CHSRecord *rec, void *ctx) {
  sm_observer *o = ctx;
  sunrealtype x[4];
  if (mc_model_advance(o->model, o->my, &o->t_model, rec->t) != 0) {
    return -1;
  }
  mc_model_physical(o->P, rec->t, o->my, x);
  o->err = fmax(o->err, fmax(diff_inf(x, rec->q, 2), diff_inf(x + 2, rec->p, 2)));
  o->records++;
  return 0;
}

/* The run of method (fixed step h, to tf, a record every step) on the offset polar pendulum with
 * its pivot at (0.5, 2); *err: the largest distance of the Cartesian image from the pendulum's
 * reference over the records. */
static inline CHSRunSummary sm_polar(const char *method, double h, double tf, double *err) {
  CHSProblem prob = sm_make(&offset_polar_pendulum_ops, "a=0.5,b=2");
  sm_observer o = {.cart = new_problem("pendulum"), .pivot = {0.5, 2}};
  CHSFormulation f = new_formulation("standard", prob, test_context());
  CHSRunOptions opt = run_options(method, h, tf);
  CHSRunSummary s = run_monitored_ok(f, &opt, sm_observe_polar, &o);
  assert_true(o.records > 10);
  *err = o.err;
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&o.cart);
  CHSProblem_Destroy(&prob);
  return s;
}

/* The same on the moving circle (a = 0.3, w = 2, f0 = 0.4, fd0 = 0.7) against the moving-frame
 * model. */
static inline CHSRunSummary sm_circle(const char *method, double h, double tf, double *err) {
  CHSProblem prob = sm_make(&moving_circle_ops, "a=0.3,w=2,f0=0.4,fd0=0.7");
  sm_observer o = {.P = CHSProblem_GetData(prob)};
  o.my = N_VNew_Serial(2, test_context());
  sunrealtype *a = N_VGetArrayPointer(o.my);
  a[0] = 0.4;
  a[1] = 0.7;
  o.model = ERKStepCreate(mc_model_rhs, 0, o.my, test_context());
  assert_non_null(o.model);
  chs_erk_sstolerances(o.model, 1e-13, 1e-13);
  chs_erk_set_user_data(o.model, (void *)o.P);
  chs_erk_set_max_num_steps(o.model, 1000000);
  CHSFormulation f = new_formulation("standard", prob, test_context());
  CHSRunOptions opt = run_options(method, h, tf);
  CHSRunSummary s = run_monitored_ok(f, &opt, sm_observe_circle, &o);
  assert_true(o.records > 10);
  *err = o.err;
  CHSFormulation_Destroy(&f);
  chs_erk_free(&o.model);
  N_VDestroy(o.my);
  CHSProblem_Destroy(&prob);
  return s;
}

/* Creating method on the offset polar pendulum's standard formulation: its return code (and
 * message). */
static inline int sm_create_on_polar(const char *method, CHSError *err) {
  CHSProblem prob = sm_make(&offset_polar_pendulum_ops, "");
  CHSFormulation f = new_formulation("standard", prob, test_context());
  N_Vector y0 = NULL;
  CHSError_Clear(err);
  assert_int_equal(CHSFormulation_NewInitialState(f, &y0, err), 0);
  CHSStepControl ctl = {.h = 0.01};
  CHSIntegrator it = NULL;
  int rc = CHSIntegrator_Create(method, f, y0, 0, &ctl, &it, err);
  CHSIntegrator_Destroy(&it);
  N_VDestroy(y0);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
  return rc;
}

#endif
