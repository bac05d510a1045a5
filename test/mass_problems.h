/* Two test problems for M(q) and explicit time dependence (test_mass.c; docs/mechanics.md).
 *
 * polar-pendulum: the planar pendulum (length, gravity, mass 1) in polar coordinates q = (r, th),
 *   x = r sin th, y = -r cos th:  M(q) = diag(1, r^2),  V = y = -r cos th,  g = (r^2 - 1) / 2,
 *   G = (r, 0),  Gdot(q, u) = (u_r, 0),  M'(q; u) b = (0, 2 r u_r b_th),
 *   grad_q (a^T M b) = (2 r a_th b_th, 0).
 *   Start: the built-in pendulum's (x, y, px, py) = (1, 0, 0, -2), i.e. r = 1, th = pi/2,
 *   p = J^T p_cart = (0, -2) with J = d(x, y)/d(r, th).
 *
 * moving-circle: a unit point mass in the plane on a unit circle whose centre moves,
 *   c(t) = (a sin(w t), 0):  g = (|q - c|^2 - 1) / 2,  no forces (V = 0),  M = I.
 *   g_t = -(q - c) . c',  G_t = -c'^T,  g_tt = |c'|^2 - (q - c) . c''.
 *   Start at t = 0 (c = 0): q = (sin f0, -cos f0), v = c'(0) + fd0 (cos f0, sin f0).
 *   In the frame of the centre, rho = q - c = (sin f, -cos f) obeys f'' = -c''(t) . (cos f, sin f)
 *   (the pseudo-force of the accelerated frame): the independent model test_mass.c integrates.
 *
 * Then runs of them observed against that truth (mass_observer), and three more problems for the
 * symplectic methods and the formulations: offset-polar-pendulum, tilted-mass and mass-chain. */
#ifndef CHS_TEST_MASS_PROBLEMS_H
#define CHS_TEST_MASS_PROBLEMS_H

#include <math.h>
#include <stdlib.h>
#include <arkode/arkode_erkstep.h>
#include <nvector/nvector_serial.h>
#include "../src/compat.h"
#include "chs/chs.h"
#include "test_util.h"

/* ------------------------------------------------------------------ polar pendulum */

static int pp_create(CHSParams params, void **data, CHSProblemDims *d, CHSError *err) {
  (void)params;
  (void)err;
  *data = NULL;
  d->n = 2;
  d->m = 1;
  d->mass_kind = CHS_MASS_CONFIG;
  d->jac_kind = CHS_JAC_DENSE;
  d->declares = CHS_DECLARE_QUADRATIC_CONSTRAINTS;
  return 0;
}
static void pp_destroy(void *data) {
  (void)data;
}
static int pp_potential(void *data, const sunrealtype *q, sunrealtype *V) {
  (void)data;
  *V = -q[0] * cos(q[1]);
  return 0;
}
static int pp_force(void *data, const sunrealtype *q, sunrealtype *F) {
  (void)data;
  F[0] = cos(q[1]);
  F[1] = -q[0] * sin(q[1]);
  return 0;
}
static int pp_hess(void *data, const sunrealtype *q, const sunrealtype *u, sunrealtype *Hu) {
  (void)data;
  Hu[0] = sin(q[1]) * u[1];
  Hu[1] = sin(q[1]) * u[0] + q[0] * cos(q[1]) * u[1];
  return 0;
}
static int pp_constraint(void *data, const sunrealtype *q, sunrealtype *g) {
  (void)data;
  g[0] = (q[0] * q[0] - 1) / 2;
  return 0;
}
static int pp_jacobian(void *data, const sunrealtype *q, sunrealtype *G) {
  (void)data;
  G[0] = q[0];
  G[1] = 0;
  return 0;
}
static int pp_jacobian_dot(void *data, const sunrealtype *q, const sunrealtype *u,
                           sunrealtype *Gd) {
  (void)data;
  (void)q;
  Gd[0] = u[0];
  Gd[1] = 0;
  return 0;
}
static int pp_initial(void *data, sunrealtype *q, sunrealtype *p) {
  (void)data;
  q[0] = 1;
  q[1] = acos(-1.0) / 2;
  p[0] = 0;
  p[1] = -2;
  return 0;
}
static int pp_mass(void *data, const sunrealtype *q, sunrealtype *M) {
  (void)data;
  M[0] = 1;
  M[1] = M[2] = 0;
  M[3] = q[0] * q[0];
  return 0;
}
static int pp_mass_dir(void *data, const sunrealtype *q, const sunrealtype *u, const sunrealtype *b,
                       sunrealtype *out) {
  (void)data;
  out[0] = 0;
  out[1] = 2 * q[0] * u[0] * b[1];
  return 0;
}
static int pp_mass_grad(void *data, const sunrealtype *q, const sunrealtype *a,
                        const sunrealtype *b, sunrealtype *out) {
  (void)data;
  out[0] = 2 * q[0] * a[1] * b[1];
  out[1] = 0;
  return 0;
}

static const CHSProblemOps polar_pendulum_ops = {
    .abi_version = CHS_PROBLEM_ABI_VERSION,
    .name = "polar-pendulum",
    .summary = "pendulum in polar coordinates, M(q) = diag(1, r^2)",
    .params_doc = "",
    .create = pp_create,
    .destroy = pp_destroy,
    .potential = pp_potential,
    .force = pp_force,
    .constraint = pp_constraint,
    .jacobian = pp_jacobian,
    .jacobian_dot = pp_jacobian_dot,
    .hessian_potential = pp_hess,
    .initial_state = pp_initial,
    .mass_matrix = pp_mass,
    .mass_dir = pp_mass_dir,
    .mass_grad = pp_mass_grad,
};

/* (x, y, px, py) of the Cartesian pendulum from the polar state (mass 1). */
static inline void pp_to_cartesian(const sunrealtype *q, const sunrealtype *p, sunrealtype *xc) {
  sunrealtype r = q[0], s = sin(q[1]), c = cos(q[1]), rd = p[0], thd = p[1] / (r * r);
  xc[0] = r * s;
  xc[1] = -r * c;
  xc[2] = s * rd + r * c * thd; /* v = J (r', th') */
  xc[3] = -c * rd + r * s * thd;
}

/* ------------------------------------------------------------------ moving circle */

typedef struct {
  sunrealtype a, w, f0, fd0, t;
} mc_data;

static int mc_create(CHSParams params, void **data, CHSProblemDims *d, CHSError *err) {
  mc_data *P = calloc(1, sizeof *P);
  if (!P) {
    return CHS_ERR_MEM;
  }
  *data = P;
  int rc = CHSParams_GetReal(params, "a", 0.3, &P->a, err);
  rc = rc ? rc : CHSParams_GetReal(params, "w", 2, &P->w, err);
  rc = rc ? rc : CHSParams_GetReal(params, "f0", 0.4, &P->f0, err);
  rc = rc ? rc : CHSParams_GetReal(params, "fd0", 0.7, &P->fd0, err);
  if (rc != 0) {
    return rc;
  }
  d->n = 2;
  d->m = 1;
  d->mass_kind = CHS_MASS_IDENTITY;
  d->jac_kind = CHS_JAC_DENSE;
  d->declares = CHS_DECLARE_LINEAR_POTENTIAL | CHS_DECLARE_QUADRATIC_CONSTRAINTS;
  d->time_dependent = CHS_TIME_CONSTRAINTS;
  return 0;
}
static void mc_destroy(void *data) {
  free(data);
}
static void mc_centre(const mc_data *P, sunrealtype *c, sunrealtype *cd, sunrealtype *cdd) {
  sunrealtype s = sin(P->w * P->t), co = cos(P->w * P->t);
  *c = P->a * s;
  *cd = P->a * P->w * co;
  *cdd = -P->a * P->w * P->w * s;
}
static int mc_set_time(void *data, sunrealtype t) {
  ((mc_data *)data)->t = t;
  return 0;
}
static int mc_potential(void *data, const sunrealtype *q, sunrealtype *V) {
  (void)data;
  (void)q;
  *V = 0;
  return 0;
}
static int mc_force(void *data, const sunrealtype *q, sunrealtype *F) {
  (void)data;
  (void)q;
  F[0] = F[1] = 0;
  return 0;
}
static int mc_constraint(void *data, const sunrealtype *q, sunrealtype *g) {
  sunrealtype c, cd, cdd;
  mc_centre(data, &c, &cd, &cdd);
  g[0] = ((q[0] - c) * (q[0] - c) + q[1] * q[1] - 1) / 2;
  return 0;
}
static int mc_jacobian(void *data, const sunrealtype *q, sunrealtype *G) {
  sunrealtype c, cd, cdd;
  mc_centre(data, &c, &cd, &cdd);
  G[0] = q[0] - c;
  G[1] = q[1];
  return 0;
}
static int mc_jacobian_dot(void *data, const sunrealtype *q, const sunrealtype *u,
                           sunrealtype *Gd) {
  (void)data;
  (void)q;
  Gd[0] = u[0];
  Gd[1] = u[1];
  return 0;
}
static int mc_constraint_dt(void *data, const sunrealtype *q, sunrealtype *gt, sunrealtype *Gt,
                            sunrealtype *gtt) {
  sunrealtype c, cd, cdd;
  mc_centre(data, &c, &cd, &cdd);
  if (gt) {
    gt[0] = -(q[0] - c) * cd;
  }
  if (Gt) {
    Gt[0] = -cd;
    Gt[1] = 0;
  }
  if (gtt) {
    gtt[0] = cd * cd - (q[0] - c) * cdd;
  }
  return 0;
}
static int mc_initial(void *data, sunrealtype *q, sunrealtype *p) {
  const mc_data *P = data;
  q[0] = sin(P->f0);
  q[1] = -cos(P->f0);
  p[0] = P->a * P->w + P->fd0 * cos(P->f0);
  p[1] = P->fd0 * sin(P->f0);
  return 0;
}

static const CHSProblemOps moving_circle_ops = {
    .abi_version = CHS_PROBLEM_ABI_VERSION,
    .name = "moving-circle",
    .summary = "point mass on a unit circle whose centre moves as (a sin wt, 0)",
    .params_doc = "a=0.3 amplitude; w=2 frequency; f0=0.4 angle; fd0=0.7 relative angular rate",
    .create = mc_create,
    .destroy = mc_destroy,
    .potential = mc_potential,
    .force = mc_force,
    .constraint = mc_constraint,
    .jacobian = mc_jacobian,
    .jacobian_dot = mc_jacobian_dot,
    .initial_state = mc_initial,
    .set_time = mc_set_time,
    .constraint_dt = mc_constraint_dt,
};

/* The moving circle's independent model (test_mass.c, test_mass_forms.c, symplectic_mass.h): in
 * the frame of the centre, f'' = -c''(t) . (cos f, sin f), integrated by an ERKStep `model` on
 * a = (f, f') (mc_model_start below); mc_model_advance brings it to t, mc_model_physical maps it
 * to the physical state x = (q, p) of the moving circle (unit mass). */
static inline int mc_model_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user_data) {
  const mc_data *P = user_data;
  const sunrealtype *a = N_VGetArrayPointer(y);
  sunrealtype *d = N_VGetArrayPointer(ydot);
  sunrealtype cdd = -P->a * P->w * P->w * sin(P->w * t);
  d[0] = a[1];
  d[1] = -cdd * cos(a[0]); /* c'' = (cdd, 0) */
  return 0;
}
static inline int mc_model_advance(void *model, N_Vector a, sunrealtype *t_model, sunrealtype t) {
  if (t > *t_model) {
    sunrealtype tr;
    chs_erk_set_stop_time(model, t);
    if (chs_erk_evolve(model, t, a, &tr, ARK_NORMAL) < 0) {
      return -1;
    }
    *t_model = t;
  }
  return 0;
}
static inline void mc_model_physical(const mc_data *P, sunrealtype t, N_Vector model_state,
                                     sunrealtype *x) {
  const sunrealtype *a = N_VGetArrayPointer(model_state);
  sunrealtype c = P->a * sin(P->w * t), cd = P->a * P->w * cos(P->w * t);
  x[0] = c + sin(a[0]);
  x[1] = -cos(a[0]);
  x[2] = cd + a[1] * cos(a[0]);
  x[3] = a[1] * sin(a[0]);
}

/* ------------------------------------------------------------------ observed runs
 * Runs of the polar pendulums and the moving circle measured against independent truth
 * (test_mass.c, test_mass_forms.c, symplectic_mass.h): a mass_observer is the ctx of
 *   - observe_polar: polar-pendulum (pivot (0, 0)) or offset-polar-pendulum (its pivot), mapped
 *     to Cartesian coordinates relative to the pivot, against the built-in pendulum's reference;
 *   - observe_circle: the moving circle against its moving-frame model (mc_model_start);
 * both keep the largest distance (max norm) in err, the range of the energy over the records in
 * H_range and count the records. */
typedef struct {
  CHSProblem cart;      /* polar pendulums: the built-in pendulum (its reference) */
  sunrealtype pivot[2]; /* polar pendulums: the pivot */
  const mc_data *P;     /* moving circle: its parameters */
  void *model;          /* moving circle: ERKStep on (f, f') */
  N_Vector my;          /* (f, f') */
  sunrealtype t_model;  /* time of my */
  double err, H_range[2];
  long records;
} mass_observer;

static inline int mass_observed(mass_observer *o, const CHSRecord *rec, double dist) {
  o->err = fmax(o->err, dist);
  o->H_range[0] = o->records ? fmin(o->H_range[0], rec->energy) : rec->energy;
  o->H_range[1] = o->records ? fmax(o->H_range[1], rec->energy) : rec->energy;
  o->records++;
  return 0;
}

static inline int observe_polar(const CHSRecord *rec, void *ctx) {
  mass_observer *o = ctx;
  sunrealtype xc[4], qr[2], pr[2];
  pp_to_cartesian(rec->q, rec->p, xc);
  xc[0] -= o->pivot[0];
  xc[1] -= o->pivot[1];
  if (CHSProblem_Reference(o->cart, rec->t, qr, pr) != 0) {
    return -1;
  }
  const sunrealtype ref[4] = {qr[0], qr[1], pr[0], pr[1]};
  return mass_observed(o, rec, diff_inf(xc, ref, 4));
}

static inline int observe_circle(const CHSRecord *rec, void *ctx) {
  mass_observer *o = ctx;
  sunrealtype x[4];
  if (mc_model_advance(o->model, o->my, &o->t_model, rec->t) != 0) {
    return -1;
  }
  mc_model_physical(o->P, rec->t, o->my, x);
  return mass_observed(o, rec, fmax(diff_inf(x, rec->q, 2), diff_inf(x + 2, rec->p, 2)));
}

/* The moving-frame model of the moving circle o->P from its start (f, f') = (f0, fd0) at t = 0:
 * ERKStep at tolerance 1e-13; mc_model_free frees it. */
static inline void mc_model_start(mass_observer *o) {
  o->my = N_VNew_Serial(2, test_context());
  sunrealtype *a = N_VGetArrayPointer(o->my);
  a[0] = o->P->f0;
  a[1] = o->P->fd0;
  o->model = ERKStepCreate(mc_model_rhs, 0, o->my, test_context());
  assert_non_null(o->model);
  chs_erk_sstolerances(o->model, 1e-13, 1e-13);
  chs_erk_set_user_data(o->model, (void *)o->P);
  chs_erk_set_max_num_steps(o->model, 1000000);
  o->t_model = 0;
}
static inline void mc_model_free(mass_observer *o) {
  chs_erk_free(&o->model);
  N_VDestroy(o->my);
  o->my = NULL;
}

/* A run of form on prob with the options opt, observed by observe_circle when o->P is set (from
 * a fresh moving-frame model), else by observe_polar; o's err and records are cleared first. */
static inline CHSRunSummary mass_run(CHSProblem prob, const char *form, const CHSRunOptions *opt,
                                     mass_observer *o) {
  int circle = o->P != NULL;
  if (circle) {
    mc_model_start(o);
  }
  o->err = 0;
  o->records = 0;
  CHSFormulation f = new_formulation(form, prob, test_context());
  CHSRunSummary s = run_monitored_ok(f, opt, circle ? observe_circle : observe_polar, o);
  CHSFormulation_Destroy(&f);
  if (circle) {
    mc_model_free(o);
  }
  return s;
}

/* mass_run of form with method (adaptive, rtol = atol = tol) to tf: the largest distance from
 * the truth within agree. */
static inline CHSRunSummary mass_run_within(CHSProblem prob, const char *form, const char *method,
                                            double tol, double tf, double agree, mass_observer *o) {
  CHSRunOptions opt = run_options(method, 0, tf);
  opt.ctl.rtol = opt.ctl.atol = tol;
  CHSRunSummary s = mass_run(prob, form, &opt, o);
  if (o->err > agree) {
    print_error("%s %s: |%s| = %.3e\n", form, method,
                o->P ? "state - moving-frame model" : "polar - Cartesian reference", o->err);
  }
  CHECK_LE(o->err, agree);
  return s;
}

/* ------------------------------------------------------------------ offset polar pendulum
 * (appended for the symplectic methods' tests, test/symplectic_mass.h) The same pendulum in polar
 * coordinates q = (r, th) about the origin while its pivot is at (a, b) (default (0.5, 2), outside
 * the circle the mass describes, so that r stays in [|(a, b)| - 1, |(a, b)| + 1] and M(q) =
 * diag(1, r^2) really varies along the motion; in polar-pendulum r = 1 and M is constant on the
 * manifold): x = r sin th, y = -r cos th, V = y,
 *   g = ((x - a)^2 + (y - b)^2 - 1) / 2 = (r^2 - 2 r s + a^2 + b^2 - 1) / 2,
 *   s = a sin th - b cos th, c = ds/dth = a cos th + b sin th,  G = (r - s, -r c),
 *   Gdot(q, u) = (u_r - c u_th, -c u_r + r s u_th),
 *   grad_q (w^T Gdot(q, u) u) = w (s u_th^2, 2 s u_r u_th + r c u_th^2).
 * Start: the built-in pendulum's (1, 0, 0, -2) relative to the pivot (it rotates), mapped. */

typedef struct {
  sunrealtype a, b;
} op_data;

static int op_create(CHSParams params, void **data, CHSProblemDims *d, CHSError *err) {
  op_data *P = calloc(1, sizeof *P);
  if (!P) {
    return CHS_ERR_MEM;
  }
  *data = P;
  int rc = CHSParams_GetReal(params, "a", 0.5, &P->a, err);
  rc = rc ? rc : CHSParams_GetReal(params, "b", 2, &P->b, err);
  if (rc != 0) {
    return rc;
  }
  d->n = 2;
  d->m = 1;
  d->mass_kind = CHS_MASS_CONFIG;
  d->jac_kind = CHS_JAC_DENSE;
  return 0;
}
static void op_sc(const op_data *P, sunrealtype th, sunrealtype *s, sunrealtype *c) {
  *s = P->a * sin(th) - P->b * cos(th);
  *c = P->a * cos(th) + P->b * sin(th);
}
static int op_constraint(void *data, const sunrealtype *q, sunrealtype *g) {
  const op_data *P = data;
  sunrealtype s, c;
  op_sc(P, q[1], &s, &c);
  g[0] = (q[0] * q[0] - 2 * q[0] * s + P->a * P->a + P->b * P->b - 1) / 2;
  return 0;
}
static int op_jacobian(void *data, const sunrealtype *q, sunrealtype *G) {
  sunrealtype s, c;
  op_sc(data, q[1], &s, &c);
  G[0] = q[0] - s;
  G[1] = -q[0] * c;
  return 0;
}
static int op_jacobian_dot(void *data, const sunrealtype *q, const sunrealtype *u,
                           sunrealtype *Gd) {
  sunrealtype s, c;
  op_sc(data, q[1], &s, &c);
  Gd[0] = u[0] - c * u[1];
  Gd[1] = -c * u[0] + q[0] * s * u[1];
  return 0;
}
static int op_constraint_third(void *data, const sunrealtype *q, const sunrealtype *u,
                               const sunrealtype *w, sunrealtype *out) {
  sunrealtype s, c;
  op_sc(data, q[1], &s, &c);
  out[0] = w[0] * s * u[1] * u[1];
  out[1] = w[0] * (2 * s * u[0] * u[1] + q[0] * c * u[1] * u[1]);
  return 0;
}
static int op_initial(void *data, sunrealtype *q, sunrealtype *p) {
  const op_data *P = data;
  sunrealtype X = P->a + 1, Y = P->b, px = 0, py = -2;
  sunrealtype r = sqrt(X * X + Y * Y), th = atan2(X, -Y);
  q[0] = r;
  q[1] = th;
  p[0] = sin(th) * px - cos(th) * py; /* J^T p_cart, J = d(x, y)/d(r, th) */
  p[1] = r * cos(th) * px + r * sin(th) * py;
  return 0;
}

static const CHSProblemOps offset_polar_pendulum_ops = {
    .abi_version = CHS_PROBLEM_ABI_VERSION,
    .name = "offset-polar-pendulum",
    .summary = "pendulum with pivot (a, b) in polar coordinates about the origin, M(q) = "
               "diag(1, r^2)",
    .params_doc = "a=0.5 pivot x; b=2 pivot y",
    .create = op_create,
    .destroy = mc_destroy,
    .potential = pp_potential,
    .force = pp_force,
    .constraint = op_constraint,
    .jacobian = op_jacobian,
    .jacobian_dot = op_jacobian_dot,
    .hessian_potential = pp_hess,
    .constraint_third = op_constraint_third,
    .initial_state = op_initial,
    .mass_matrix = pp_mass,
    .mass_dir = pp_mass_dir,
    .mass_grad = pp_mass_grad,
};

/* ------------------------------------------------------------------ tilted mass
 * A unit circle g = (q0^2 + q1^2 - 1) / 2 under V = q1 with a full, non-diagonal M(q) whose
 * second derivatives do not vanish (test_mass_forms.c):
 *   M(q) = [[2 + cos q1, s], [s, 2 + q0^2]],  s = sin(q0 + q1) / 2  (SPD: diagonal >= 1, |s| <=
 * 1/2), dM/dq0 = [[0, c], [c, 2 q0]],  dM/dq1 = [[-sin q1, c], [c, 0]],  c = cos(q0 + q1) / 2.
 *   Start q = (1, 0), v = (0, 1) (tangent), p = M v. */
static void tm_M(const sunrealtype *q, sunrealtype *M) {
  sunrealtype s = sin(q[0] + q[1]) / 2;
  M[0] = 2 + cos(q[1]);
  M[1] = M[2] = s;
  M[3] = 2 + q[0] * q[0];
}
/* dM/dq_j, row-major */
static void tm_dM(const sunrealtype *q, int j, sunrealtype *D) {
  sunrealtype c = cos(q[0] + q[1]) / 2;
  D[0] = j == 0 ? 0 : -sin(q[1]);
  D[1] = D[2] = c;
  D[3] = j == 0 ? 2 * q[0] : 0;
}
static int tm_create(CHSParams params, void **data, CHSProblemDims *d, CHSError *err) {
  (void)params;
  (void)err;
  *data = NULL;
  d->n = 2;
  d->m = 1;
  d->mass_kind = CHS_MASS_CONFIG;
  d->jac_kind = CHS_JAC_DENSE;
  d->declares = CHS_DECLARE_LINEAR_POTENTIAL | CHS_DECLARE_QUADRATIC_CONSTRAINTS;
  return 0;
}
static int tm_potential(void *data, const sunrealtype *q, sunrealtype *V) {
  (void)data;
  *V = q[1];
  return 0;
}
static int tm_force(void *data, const sunrealtype *q, sunrealtype *F) {
  (void)data;
  (void)q;
  F[0] = 0;
  F[1] = -1;
  return 0;
}
static int tm_constraint(void *data, const sunrealtype *q, sunrealtype *g) {
  (void)data;
  g[0] = (q[0] * q[0] + q[1] * q[1] - 1) / 2;
  return 0;
}
static int tm_jacobian(void *data, const sunrealtype *q, sunrealtype *G) {
  (void)data;
  G[0] = q[0];
  G[1] = q[1];
  return 0;
}
static int tm_jacobian_dot(void *data, const sunrealtype *q, const sunrealtype *u,
                           sunrealtype *Gd) {
  (void)data;
  (void)q;
  Gd[0] = u[0];
  Gd[1] = u[1];
  return 0;
}
static int tm_initial(void *data, sunrealtype *q, sunrealtype *p) {
  (void)data;
  sunrealtype M[4];
  q[0] = 1;
  q[1] = 0;
  tm_M(q, M);
  p[0] = M[1];
  p[1] = M[3];
  return 0;
}
static int tm_mass(void *data, const sunrealtype *q, sunrealtype *M) {
  (void)data;
  tm_M(q, M);
  return 0;
}
static int tm_mass_dir(void *data, const sunrealtype *q, const sunrealtype *u, const sunrealtype *b,
                       sunrealtype *out) {
  (void)data;
  sunrealtype D0[4], D1[4];
  tm_dM(q, 0, D0);
  tm_dM(q, 1, D1);
  for (int i = 0; i < 2; i++) {
    out[i] = u[0] * (D0[2 * i] * b[0] + D0[2 * i + 1] * b[1]) +
             u[1] * (D1[2 * i] * b[0] + D1[2 * i + 1] * b[1]);
  }
  return 0;
}
static int tm_mass_grad(void *data, const sunrealtype *q, const sunrealtype *a,
                        const sunrealtype *b, sunrealtype *out) {
  (void)data;
  for (int j = 0; j < 2; j++) {
    sunrealtype D[4];
    tm_dM(q, j, D);
    out[j] = a[0] * (D[0] * b[0] + D[1] * b[1]) + a[1] * (D[2] * b[0] + D[3] * b[1]);
  }
  return 0;
}

static const CHSProblemOps tilted_mass_ops = {
    .abi_version = CHS_PROBLEM_ABI_VERSION,
    .name = "tilted-mass",
    .summary = "unit circle under gravity with a full M(q)",
    .params_doc = "",
    .create = tm_create,
    .destroy = pp_destroy,
    .potential = tm_potential,
    .force = tm_force,
    .constraint = tm_constraint,
    .jacobian = tm_jacobian,
    .jacobian_dot = tm_jacobian_dot,
    .initial_state = tm_initial,
    .mass_matrix = tm_mass,
    .mass_dir = tm_mass_dir,
    .mass_grad = tm_mass_grad,
};

/* ------------------------------------------------------------------ mass chain
 * N tilted-mass blocks q_k = (x_k, y_k), each on its unit circle g_k = (|q_k|^2 - 1) / 2 under
 * V = sum y_k, with M(q) block tridiagonal: diagonal blocks tm_M(q_k), neighbours coupled by
 * eps I (constant; SPD by diagonal dominance for eps < 1/4). Parameters N (default 1000), eps
 * (0.2) and sparse (1: CSR pattern, mass_nnz > 0; 0: the same M(q) as dense n x n values).
 * Start: q_k = (cos f_k, sin f_k), f_k = -0.3 + 0.6 k / N, v_k = (-sin f_k, cos f_k), p = M v. */
typedef struct {
  long N;
  int sparse;
  sunrealtype eps;
  sunindextype *rp, *ci, *mrp, *mci; /* G's CSR pattern; M's (sparse) */
} mch_data;

static int mch_create(CHSParams params, void **data, CHSProblemDims *d, CHSError *err) {
  mch_data *P = calloc(1, sizeof *P);
  if (!P) {
    return CHS_ERR_MEM;
  }
  *data = P;
  sunrealtype N = 0, sp = 0;
  int rc = CHSParams_GetReal(params, "N", 1000, &N, err);
  rc = rc ? rc : CHSParams_GetReal(params, "sparse", 1, &sp, err);
  rc = rc ? rc : CHSParams_GetReal(params, "eps", 0.2, &P->eps, err);
  if (rc != 0) {
    return rc;
  }
  P->N = (long)N;
  P->sparse = sp != 0;
  long n = 2 * P->N, mnnz = 2 * n + 2 * (n - 2);
  P->rp = malloc((size_t)(P->N + 1 + n + n + 1 + mnnz) * sizeof *P->rp);
  if (!P->rp) {
    return CHS_ERR_MEM;
  }
  P->ci = P->rp + P->N + 1;
  P->mrp = P->ci + n;
  P->mci = P->mrp + n + 1;
  for (long k = 0; k <= P->N; k++) {
    P->rp[k] = 2 * k;
  }
  for (long i = 0; i < n; i++) {
    P->ci[i] = i;
  }
  long nz = 0;
  for (long i = 0; i < n; i++) { /* row 2k + a: 2k - 2 + a, 2k, 2k + 1, 2k + 2 + a */
    long k = i / 2, a = i % 2;
    P->mrp[i] = nz;
    if (k > 0) {
      P->mci[nz++] = 2 * k - 2 + a;
    }
    P->mci[nz++] = 2 * k;
    P->mci[nz++] = 2 * k + 1;
    if (k < P->N - 1) {
      P->mci[nz++] = 2 * k + 2 + a;
    }
  }
  P->mrp[n] = nz;
  d->n = n;
  d->m = P->N;
  d->mass_kind = CHS_MASS_CONFIG;
  d->jac_kind = CHS_JAC_CSR;
  d->nnz = n;
  d->rowptr = P->rp;
  d->colind = P->ci;
  if (P->sparse) {
    d->mass_nnz = nz;
    d->mass_rowptr = P->mrp;
    d->mass_colind = P->mci;
  }
  d->declares = CHS_DECLARE_LINEAR_POTENTIAL | CHS_DECLARE_QUADRATIC_CONSTRAINTS;
  return 0;
}
static void mch_destroy(void *data) {
  mch_data *P = data;
  if (P) {
    free(P->rp);
  }
  free(P);
}
static int mch_potential(void *data, const sunrealtype *q, sunrealtype *V) {
  const mch_data *P = data;
  *V = 0;
  for (long k = 0; k < P->N; k++) {
    *V += q[2 * k + 1];
  }
  return 0;
}
static int mch_force(void *data, const sunrealtype *q, sunrealtype *F) {
  const mch_data *P = data;
  (void)q;
  for (long k = 0; k < P->N; k++) {
    F[2 * k] = 0;
    F[2 * k + 1] = -1;
  }
  return 0;
}
static int mch_constraint(void *data, const sunrealtype *q, sunrealtype *g) {
  const mch_data *P = data;
  for (long k = 0; k < P->N; k++) {
    g[k] = (q[2 * k] * q[2 * k] + q[2 * k + 1] * q[2 * k + 1] - 1) / 2;
  }
  return 0;
}
static int mch_jacobian(void *data, const sunrealtype *q, sunrealtype *G) {
  const mch_data *P = data;
  memcpy(G, q, (size_t)(2 * P->N) * sizeof *G);
  return 0;
}
static int mch_jacobian_dot(void *data, const sunrealtype *q, const sunrealtype *u,
                            sunrealtype *Gd) {
  const mch_data *P = data;
  (void)q;
  memcpy(Gd, u, (size_t)(2 * P->N) * sizeof *Gd);
  return 0;
}
/* M(q) as CSR values (sparse) or n x n row-major (dense) */
static int mch_mass(void *data, const sunrealtype *q, sunrealtype *M) {
  const mch_data *P = data;
  long n = 2 * P->N;
  if (!P->sparse) {
    memset(M, 0, (size_t)(n * n) * sizeof *M);
  }
  for (long i = 0; i < n; i++) {
    long k = i / 2, a = i % 2;
    sunrealtype B[4];
    tm_M(q + 2 * k, B);
    for (long t = P->mrp[i]; t < P->mrp[i + 1]; t++) {
      long j = P->mci[t];
      sunrealtype val = j / 2 == k ? B[2 * a + j % 2] : P->eps;
      if (P->sparse) {
        M[t] = val;
      } else {
        M[i * n + j] = val;
      }
    }
  }
  return 0;
}
static int mch_mass_dir(void *data, const sunrealtype *q, const sunrealtype *u,
                        const sunrealtype *b, sunrealtype *out) {
  const mch_data *P = data;
  for (long k = 0; k < P->N; k++) {
    tm_mass_dir(NULL, q + 2 * k, u + 2 * k, b + 2 * k, out + 2 * k);
  }
  return 0;
}
static int mch_mass_grad(void *data, const sunrealtype *q, const sunrealtype *a,
                         const sunrealtype *b, sunrealtype *out) {
  const mch_data *P = data;
  for (long k = 0; k < P->N; k++) {
    tm_mass_grad(NULL, q + 2 * k, a + 2 * k, b + 2 * k, out + 2 * k);
  }
  return 0;
}
static int mch_initial(void *data, sunrealtype *q, sunrealtype *p) {
  const mch_data *P = data;
  long N = P->N;
  for (long k = 0; k < N; k++) {
    sunrealtype f = -0.3 + 0.6 * (sunrealtype)k / (sunrealtype)N;
    q[2 * k] = cos(f);
    q[2 * k + 1] = sin(f);
  }
  for (long k = 0; k < N; k++) { /* p = M v, v_k = (-sin f_k, cos f_k) = (-y_k, x_k) */
    sunrealtype B[4], vk[2] = {-q[2 * k + 1], q[2 * k]};
    tm_M(q + 2 * k, B);
    for (int a = 0; a < 2; a++) {
      sunrealtype acc = B[2 * a] * vk[0] + B[2 * a + 1] * vk[1];
      if (k > 0) {
        acc += P->eps * (a == 0 ? -q[2 * k - 1] : q[2 * k - 2]);
      }
      if (k < N - 1) {
        acc += P->eps * (a == 0 ? -q[2 * k + 3] : q[2 * k + 2]);
      }
      p[2 * k + a] = acc;
    }
  }
  return 0;
}

static const CHSProblemOps mass_chain_ops = {
    .abi_version = CHS_PROBLEM_ABI_VERSION,
    .name = "mass-chain",
    .summary = "N tilted-mass blocks with a block-tridiagonal M(q) (sparse or dense)",
    .params_doc = "N=1000 blocks; eps=0.2 coupling; sparse=1 CSR pattern (0: dense values)",
    .create = mch_create,
    .destroy = mch_destroy,
    .potential = mch_potential,
    .force = mch_force,
    .constraint = mch_constraint,
    .jacobian = mch_jacobian,
    .jacobian_dot = mch_jacobian_dot,
    .initial_state = mch_initial,
    .mass_matrix = mch_mass,
    .mass_dir = mch_mass_dir,
    .mass_grad = mch_mass_grad,
};

#endif
