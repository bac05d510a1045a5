/* The car axis of the IVP test set (Mazzia, Magherini: "Test Set for Initial Value Problem
 * Solvers", problem "caraxis"; Rentrop et al.): an index-3 problem with a time-dependent
 * constraint and a time-dependent potential. Problem data, initial values and the reference
 * solution at t = 3 are the test set's; the Hamiltonian formulation is written for chs.
 *
 * q = (xl, yl, xr, yr): the left and right wheel; constant diagonal mass k = M eps^2 / 2 = 5e-4
 * (M = 10, eps = 1e-2). The excitation moves the right spring's anchor along
 *   yb(t) = r sin(w t),   xb(t) = sqrt(L^2 - yb^2)    (L = 1, r = 0.1, w = 10).
 * Potential (springs of rest length L0 = 0.5 to the origin and to (xb, yb), gravity grav = 1):
 *   V(q, t) = 1/2 (Ll - L0)^2 + 1/2 (Lr - L0)^2 + k grav (yl + yr),
 *   Ll = |(xl, yl)|,  Lr = |(xr - xb, yr - yb)|.
 * Constraints (m = 2):
 *   g1 = xb(t) xl + yb(t) yl                      (time-dependent, linear in q),
 *   g2 = 1/2 ((xl - xr)^2 + (yl - yr)^2 - L^2)     (the test set's g2 halved: chs convention).
 * Both are at most quadratic in q (CHS_DECLARE_QUADRATIC_CONSTRAINTS). The multipliers relate to
 * the test set's (which enter its equations with a + sign and an unhalved g2) by
 * lambda1 = -lambda1_ts, lambda2 = -2 lambda2_ts.
 * Time derivatives (exact): yb' = r w cos(w t), yb'' = -w^2 yb, xb' = -yb yb'/xb,
 * xb'' = -(yb'^2 + yb yb'' + xb'^2)/xb; g_t = (xb' xl + yb' yl, 0), G_t = [[xb', yb', 0, 0], 0],
 * g_tt = (xb'' xl + yb'' yl, 0), V_t = -(Lr - L0)/Lr ((xr - xb) xb' + (yr - yb) yb').
 *
 * Initial state (t = 0): q = (0, 0.5, 1, 0.5), v = (-0.5, 0, -0.5, 0), p = k v (consistent:
 * G v + g_t = -0.5 + 0.5 = 0). Reference: the test set's positions and velocities at t = 3
 * (p = k v); `reference` returns the initial state at t = 0, the published values at t = 3 and
 * 1 (not available) at any other time. Parameters: none (the test set's data). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../src/impl.h"

#define CA_N 4
#define CA_M 2
#define CA_TREF 3.0

static const sunrealtype ca_L = 1, ca_L0 = 0.5, ca_r = 0.1, ca_w = 10, ca_grav = 1;
static const sunrealtype ca_k = 10 * 1e-2 * 1e-2 / 2;

static const sunrealtype ca_qref[CA_N] = {0.4934557842755629e-1, 0.4969894602303324e+0,
                                          0.1041742524885400e+1, 0.3739110272652214e+0};
static const sunrealtype ca_vref[CA_N] = {-0.7705836840321485e-1, 0.7446866596327776e-2,
                                          0.1755681574942899e-1, 0.7703410437794031e+0};

typedef struct {
  sunrealtype t;
  sunrealtype xb, yb, xb1, yb1, xb2, yb2; /* anchor and its first two time derivatives at t */
  sunrealtype mass[CA_N];
} caraxis;

static void ca_anchor(caraxis *C) {
  sunrealtype wt = ca_w * C->t;
  C->yb = ca_r * sin(wt);
  C->yb1 = ca_r * ca_w * cos(wt);
  C->yb2 = -ca_w * ca_w * C->yb;
  C->xb = sqrt(ca_L * ca_L - C->yb * C->yb);
  C->xb1 = -C->yb * C->yb1 / C->xb;
  C->xb2 = -(C->yb1 * C->yb1 + C->yb * C->yb2 + C->xb1 * C->xb1) / C->xb;
}

static int ca_create(CHSParams kv, void **data, CHSProblemDims *dims, CHSError *err) {
  (void)kv;
  caraxis *C = calloc(1, sizeof *C);
  if (!C) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  *data = C;
  for (int i = 0; i < CA_N; i++) {
    C->mass[i] = ca_k;
  }
  C->t = 0;
  ca_anchor(C);
  dims->n = CA_N;
  dims->m = CA_M;
  dims->mass_kind = CHS_MASS_DIAGONAL;
  dims->mass = C->mass;
  dims->jac_kind = CHS_JAC_DENSE;
  dims->declares = CHS_DECLARE_QUADRATIC_CONSTRAINTS;
  dims->time_dependent = CHS_TIME_CONSTRAINTS | CHS_TIME_POTENTIAL;
  /* the wheels' positions; the constraints keep the test set's g1, g2 */
  static const char *const names[CA_N] = {"xl", "yl", "xr", "yr"};
  dims->coordinate_names = names;
  return CHS_SUCCESS;
}

static void ca_destroy(void *data) {
  free(data);
}

static int ca_set_time(void *data, sunrealtype t) {
  caraxis *C = data;
  if (!isfinite(t)) {
    return -1;
  }
  C->t = t;
  ca_anchor(C);
  return 0;
}

/* Right spring vector d = (xr - xb, yr - yb) and its length. */
static int ca_right(const caraxis *C, const sunrealtype *q, sunrealtype d[2], sunrealtype *Lr) {
  d[0] = q[2] - C->xb;
  d[1] = q[3] - C->yb;
  *Lr = hypot(d[0], d[1]);
  return *Lr > 0 ? 0 : 1;
}

static int ca_potential(void *data, const sunrealtype *q, sunrealtype *V) {
  const caraxis *C = data;
  sunrealtype d[2], Lr, Ll = hypot(q[0], q[1]);
  if (ca_right(C, q, d, &Lr) != 0) {
    return 1;
  }
  *V = 0.5 * (Ll - ca_L0) * (Ll - ca_L0) + 0.5 * (Lr - ca_L0) * (Lr - ca_L0) +
       ca_k * ca_grav * (q[1] + q[3]);
  return 0;
}

static int ca_force(void *data, const sunrealtype *q, sunrealtype *F) {
  const caraxis *C = data;
  sunrealtype d[2], Lr, Ll = hypot(q[0], q[1]);
  if (!(Ll > 0) || ca_right(C, q, d, &Lr) != 0) {
    return 1;
  }
  sunrealtype sl = (ca_L0 - Ll) / Ll, sr = (ca_L0 - Lr) / Lr;
  F[0] = sl * q[0];
  F[1] = sl * q[1] - ca_k * ca_grav;
  F[2] = sr * d[0];
  F[3] = sr * d[1] - ca_k * ca_grav;
  return 0;
}

/* Hessian of 1/2 (|d| - L0)^2 in d: (1 - L0/|d|) I + L0 d d^T / |d|^3. */
static void ca_spring_hess(const sunrealtype d[2], sunrealtype Ld, const sunrealtype *u,
                           sunrealtype *out) {
  sunrealtype a = 1 - ca_L0 / Ld, b = ca_L0 / (Ld * Ld * Ld) * (d[0] * u[0] + d[1] * u[1]);
  out[0] = a * u[0] + b * d[0];
  out[1] = a * u[1] + b * d[1];
}

static int ca_hessian(void *data, const sunrealtype *q, const sunrealtype *u, sunrealtype *Hu) {
  const caraxis *C = data;
  sunrealtype d[2], Lr, Ll = hypot(q[0], q[1]);
  if (!(Ll > 0) || ca_right(C, q, d, &Lr) != 0) {
    return 1;
  }
  ca_spring_hess(q, Ll, u, Hu);
  ca_spring_hess(d, Lr, u + 2, Hu + 2);
  return 0;
}

static int ca_potential_dt(void *data, const sunrealtype *q, sunrealtype *Vt) {
  const caraxis *C = data;
  sunrealtype d[2], Lr;
  if (ca_right(C, q, d, &Lr) != 0) {
    return 1;
  }
  *Vt = -(Lr - ca_L0) / Lr * (d[0] * C->xb1 + d[1] * C->yb1);
  return 0;
}

static int ca_constraint(void *data, const sunrealtype *q, sunrealtype *g) {
  const caraxis *C = data;
  sunrealtype dx = q[0] - q[2], dy = q[1] - q[3];
  g[0] = C->xb * q[0] + C->yb * q[1];
  g[1] = 0.5 * (dx * dx + dy * dy - ca_L * ca_L);
  return 0;
}

static int ca_jacobian(void *data, const sunrealtype *q, sunrealtype *G) {
  const caraxis *C = data;
  sunrealtype dx = q[0] - q[2], dy = q[1] - q[3];
  const sunrealtype Gv[CA_M * CA_N] = {C->xb, C->yb, 0, 0, dx, dy, -dx, -dy};
  memcpy(G, Gv, sizeof Gv);
  return 0;
}

static int ca_jacobian_dot(void *data, const sunrealtype *q, const sunrealtype *u,
                           sunrealtype *Gd) {
  (void)data;
  (void)q;
  sunrealtype dx = u[0] - u[2], dy = u[1] - u[3];
  const sunrealtype Gv[CA_M * CA_N] = {0, 0, 0, 0, dx, dy, -dx, -dy};
  memcpy(Gd, Gv, sizeof Gv);
  return 0;
}

static int ca_constraint_dt(void *data, const sunrealtype *q, sunrealtype *gt, sunrealtype *Gt,
                            sunrealtype *gtt) {
  const caraxis *C = data;
  if (gt) {
    gt[0] = C->xb1 * q[0] + C->yb1 * q[1];
    gt[1] = 0;
  }
  if (Gt) {
    memset(Gt, 0, CA_M * CA_N * sizeof *Gt);
    Gt[0] = C->xb1;
    Gt[1] = C->yb1;
  }
  if (gtt) {
    gtt[0] = C->xb2 * q[0] + C->yb2 * q[1];
    gtt[1] = 0;
  }
  return 0;
}

static int ca_initial(void *data, sunrealtype *q, sunrealtype *p) {
  (void)data;
  const sunrealtype q0[CA_N] = {0, ca_L0, ca_L, ca_L0};
  const sunrealtype v0[CA_N] = {-ca_L0 / ca_L, 0, -ca_L0 / ca_L, 0};
  for (int i = 0; i < CA_N; i++) {
    q[i] = q0[i];
    p[i] = ca_k * v0[i];
  }
  return 0;
}

static int ca_reference(void *data, sunrealtype t, sunrealtype *q, sunrealtype *p) {
  if (t == 0) {
    return ca_initial(data, q, p);
  }
  if (!(fabs(t - CA_TREF) <= 1e-12)) {
    return 1; /* not available at this time */
  }
  for (int i = 0; i < CA_N; i++) {
    q[i] = ca_qref[i];
    p[i] = ca_k * ca_vref[i];
  }
  return 0;
}

const CHSProblemOps chs_problem_car_axis = {
    .abi_version = CHS_PROBLEM_ABI_VERSION,
    .name = "car-axis",
    .summary = "car axis (IVP test set; n=4, m=2, time-dependent constraint and potential), "
               "reference at t=3",
    .params_doc = "(no parameters: the test set's data)",
    .create = ca_create,
    .destroy = ca_destroy,
    .potential = ca_potential,
    .force = ca_force,
    .constraint = ca_constraint,
    .jacobian = ca_jacobian,
    .jacobian_dot = ca_jacobian_dot,
    .hessian_potential = ca_hessian,
    .initial_state = ca_initial,
    .reference = ca_reference,
    .set_time = ca_set_time,
    .constraint_dt = ca_constraint_dt,
    .potential_dt = ca_potential_dt,
};
