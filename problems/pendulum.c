/* The planar pendulum in Cartesian coordinates ([Seiler, Dirac] Sec. 6, [Seiler, stable] Sec. 8).
 *
 *   H = |p|^2 / (2 mass) + mass * gravity * y,   g = gscale (x^2 + y^2 - length^2),
 *   G = 2 gscale (x, y),   Gdot(q, u) = 2 gscale (u_x, u_y).
 *
 * gscale = 1/2 (default) is [Seiler, Dirac]/001's phi; gscale = 1 is [Leimkuhler & Reich]'s g =
 * q1^2 + q2^2 - 1. [Seiler, Faddeev-Jackiw]'s start is x=0,y=-1,px=2,py=0.
 *
 * hamiltonian=modified: [Seiler, stable]'s (52), H = (x^2 + y^2)/length^2 |p|^2/(2 mass) + V, equal
 * to H on the constraint manifold (the same constrained motion, the same reference); its
 * impetus-striction equations are (53). Only the impetus formulation accepts it
 * (CHS_FORM_KINETIC_SCALE).
 *
 * With length = gravity = mass = 1 and the default state (1, 0, 0, -2) this is the papers'
 * example: H = |p|^2/2 + y, the pendulum rotates clockwise with period T ~ 3.31 ([Seiler, Dirac]).
 *
 * Reference solution: the state space form theta'' = -(gravity/length) sin theta with
 * x = length sin theta, y = -length cos theta, integrated by ARKODE's 8th-order Fehlberg method
 * (ARKODE_FEHLBERG_13_7_8) with 256 fixed steps per period (more steps only add round-off;
 * 1024 steps give 2.6e-13 after one period, 256 give 1e-14). test_reference measures
 * |(q,p) - exact| <= 9e-14 (4e-14 relative to |(q,p)|) up to 30 periods against periods and
 * states computed independently by quadrature. The solution is periodic in (q, p) with the period T
 * from the complete elliptic integral K (computed by the arithmetic-geometric mean): libration T =
 * 4 K(k) / w, rotation T = 2 K(1/k) / (k w), w^2 = gravity/length, k^2 = (e + w^2) / (2 w^2), e =
 * theta'^2/2 - w^2 cos theta. The reference at t integrates only from 0 to t mod T, so its error
 * does not grow with t beyond the (round-off) error of T times the number of periods. Near the
 * separatrix (|k - 1| < 1e-6) the full interval is integrated.
 *
 * Events (`chs run --stop-at`): x_zero, e = x (the bob passes the vertical through the
 * pivot, under or over it), and vy_zero, e = p_y (the bob's height is extremal:
 * the turning points of a swing, the lowest and highest points). Started at the bottom with
 * speed v < 2 sqrt(gravity length) (x = 0, y = -length, px = mass v), the swing is a libration
 * with k = v / (2 sqrt(gravity length)): vy_zero first at the turning point T/4 = K(k) / w, x_zero
 * back at the bottom at T/2 = 2 K(k) / w. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <nvector/nvector_serial.h>
#include <arkode/arkode_erkstep.h>
#include "../src/compat.h"
#include "../src/impl.h"

typedef struct {
  sunrealtype length, gravity, mass, gscale;
  int modified; /* hamiltonian=modified: [Seiler, stable] (52) */
  sunrealtype q0[2], p0[2];
  sunrealtype mass_diag[2];
  /* reference */
  sunrealtype theta0, omega0, w2, period; /* period 0: not periodic */
  SUNContext ctx;
  void *arkode;
  N_Vector yref;
  sunrealtype tref; /* time of yref */
} pendulum;

static int pendulum_ref_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user_data) {
  (void)t;
  const pendulum *P = user_data;
  const sunrealtype *a = N_VGetArrayPointer(y);
  sunrealtype *d = N_VGetArrayPointer(ydot);
  d[0] = a[1];
  d[1] = -P->w2 * sin(a[0]);
  return 0;
}

#if !CHS_SUNDIALS_AT_LEAST(7, 0)
static void pendulum_silent(int code, const char *module, const char *fn, char *msg, void *d) {
  (void)code;
  (void)module;
  (void)fn;
  (void)msg;
  (void)d;
}
#endif

/* K(k) = pi / (2 AGM(1, sqrt(1 - k^2))), 0 <= k < 1. */
static sunrealtype pendulum_ellk(sunrealtype k) {
  sunrealtype a = 1, b = sqrt((1 - k) * (1 + k));
  for (int i = 0; i < 64 && fabs(a - b) > 4 * SUN_UNIT_ROUNDOFF * a; i++) {
    sunrealtype an = (a + b) / 2;
    b = sqrt(a * b);
    a = an;
  }
  return M_PI / (a + b);
}

static void pendulum_free(void *data) {
  pendulum *P = data;
  if (!P) {
    return;
  }
  if (P->arkode) {
    chs_erk_free(&P->arkode);
  }
  if (P->yref) {
    N_VDestroy(P->yref);
  }
  if (P->ctx) {
    SUNContext_Free(&P->ctx);
  }
  free(P);
}

static int pendulum_setup_reference(pendulum *P, CHSError *err) {
  sunrealtype L = P->length, x = P->q0[0], y = P->q0[1];
  sunrealtype vx = P->p0[0] / P->mass, vy = P->p0[1] / P->mass;
  P->w2 = P->gravity / L;
  P->theta0 = atan2(x, -y);
  P->omega0 = (x * vy - y * vx) / (L * L);
  P->period = 0;
  if (P->w2 > 0) {
    sunrealtype w = sqrt(P->w2);
    sunrealtype e = P->omega0 * P->omega0 / 2 - P->w2 * cos(P->theta0);
    sunrealtype k = sqrt(fmax(0, (e + P->w2) / (2 * P->w2)));
    if (k > 0 && k < 1 - 1e-6) {
      P->period = 4 * pendulum_ellk(k) / w;
    } else if (k > 1 + 1e-6) {
      P->period = 2 * pendulum_ellk(1 / k) / (k * w);
    }
  }
  if (chs_context_create(&P->ctx) != 0) {
    return chs_error_set(err, CHS_ERR_MEM, "pendulum: cannot create a SUNContext");
  }
  chs_context_silence(P->ctx);
  P->yref = N_VNew_Serial(2, P->ctx);
  if (!P->yref) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  N_VGetArrayPointer(P->yref)[0] = P->theta0;
  N_VGetArrayPointer(P->yref)[1] = P->omega0;
  P->tref = 0;
  P->arkode = ERKStepCreate(pendulum_ref_rhs, 0, P->yref, P->ctx);
#if !CHS_SUNDIALS_AT_LEAST(7, 0)
  if (P->arkode) {
    ERKStepSetErrHandlerFn(P->arkode, pendulum_silent, NULL);
  }
#endif
  ARKodeButcherTable B = ARKodeButcherTable_LoadERK(ARKODE_FEHLBERG_13_7_8);
  sunrealtype omax = fabs(P->omega0) + 2 * sqrt(P->w2) + 1e-300;
  sunrealtype h = P->period > 0 ? P->period / 256 : 2 * M_PI / omax / 256;
  if (!P->arkode || !B || ERKStepSetTable(P->arkode, B) != 0 ||
      chs_erk_fix_last_stage_reuse(P->arkode, B) != 0 || chs_erk_set_user_data(P->arkode, P) != 0 ||
      chs_erk_set_fixed_step(P->arkode, h) != 0 || chs_erk_set_max_num_steps(P->arkode, -1) != 0) {
    ARKodeButcherTable_Free(B);
    return chs_error_set(err, CHS_ERR_SOLVER, "pendulum: cannot set up the reference integrator");
  }
  ARKodeButcherTable_Free(B);
  return CHS_SUCCESS;
}

static int pendulum_create(CHSParams kv, void **data, CHSProblemDims *dims, CHSError *err) {
  pendulum *P = calloc(1, sizeof *P);
  if (!P) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  *data = P;
  CHS_CALL(CHSParams_GetRealMin(kv, "length", 1, 0, 1, &P->length, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "gravity", 1, 0, 0, &P->gravity, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "mass", 1, 0, 1, &P->mass, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "gscale", 0.5, 0, 1, &P->gscale, err));
  CHS_CALL(CHSParams_GetReal(kv, "x", P->length, &P->q0[0], err));
  CHS_CALL(CHSParams_GetReal(kv, "y", 0, &P->q0[1], err));
  CHS_CALL(CHSParams_GetReal(kv, "px", 0, &P->p0[0], err));
  CHS_CALL(CHSParams_GetReal(kv, "py", -2, &P->p0[1], err));
  static const char *const hamiltonians[] = {"natural", "modified", NULL};
  CHS_CALL(CHSParams_GetChoice(kv, "hamiltonian", hamiltonians, 0, &P->modified, err));
  dims->kinetic_scaled = P->modified;
  P->mass_diag[0] = P->mass_diag[1] = P->mass;
  dims->n = 2;
  dims->m = 1;
  dims->mass_kind = P->mass == 1 ? CHS_MASS_IDENTITY : CHS_MASS_DIAGONAL;
  dims->mass = P->mass_diag;
  dims->jac_kind = CHS_JAC_DENSE;
  dims->declares = CHS_DECLARE_LINEAR_POTENTIAL | CHS_DECLARE_QUADRATIC_CONSTRAINTS; /* V = m g y */
  static const char *const coords[2] = {"x", "y"}, *const cons[1] = {"rod"};
  dims->coordinate_names = coords;
  dims->constraint_names = cons;
  /* The reference is set up lazily-free here: only cheap work, the first call integrates. */
  return pendulum_setup_reference(P, err);
}

static int pendulum_potential(void *data, const sunrealtype *q, sunrealtype *V) {
  const pendulum *P = data;
  *V = P->mass * P->gravity * q[1];
  return 0;
}

/* hamiltonian=modified: sigma = (x^2 + y^2) / length^2. */
static int pendulum_kinetic_scale(void *data, const sunrealtype *q, sunrealtype *sigma,
                                  sunrealtype *grad) {
  const pendulum *P = data;
  sunrealtype l2 = P->length * P->length;
  *sigma = (q[0] * q[0] + q[1] * q[1]) / l2;
  grad[0] = 2 * q[0] / l2;
  grad[1] = 2 * q[1] / l2;
  return 0;
}

static int pendulum_force(void *data, const sunrealtype *q, sunrealtype *F) {
  const pendulum *P = data;
  (void)q;
  F[0] = 0;
  F[1] = -P->mass * P->gravity;
  return 0;
}

static int pendulum_constraint(void *data, const sunrealtype *q, sunrealtype *g) {
  const pendulum *P = data;
  g[0] = P->gscale * (q[0] * q[0] + q[1] * q[1] - P->length * P->length);
  return 0;
}

static int pendulum_jacobian(void *data, const sunrealtype *q, sunrealtype *G) {
  const pendulum *P = data;
  G[0] = 2 * P->gscale * q[0];
  G[1] = 2 * P->gscale * q[1];
  return 0;
}

static int pendulum_jacobian_dot(void *data, const sunrealtype *q, const sunrealtype *u,
                                 sunrealtype *Gd) {
  const pendulum *P = data;
  (void)q;
  Gd[0] = 2 * P->gscale * u[0];
  Gd[1] = 2 * P->gscale * u[1];
  return 0;
}

static int pendulum_initial(void *data, sunrealtype *q, sunrealtype *p) {
  const pendulum *P = data;
  memcpy(q, P->q0, sizeof P->q0);
  memcpy(p, P->p0, sizeof P->p0);
  return 0;
}

static int pendulum_reference(void *data, sunrealtype t, sunrealtype *q, sunrealtype *p) {
  pendulum *P = data;
  if (!(t >= 0)) {
    return -1;
  }
  sunrealtype tau = t;
  if (P->period > 0) {
    tau = fmod(t, P->period);
  }
  sunrealtype *y = N_VGetArrayPointer(P->yref);
  if (tau < P->tref) {
    y[0] = P->theta0;
    y[1] = P->omega0;
    P->tref = 0;
    if (ERKStepReInit(P->arkode, pendulum_ref_rhs, 0, P->yref) != 0) {
      return -1;
    }
  }
  if (tau > P->tref) {
    sunrealtype tret = P->tref;
    if (chs_erk_set_stop_time(P->arkode, tau) != 0 ||
        chs_erk_evolve(P->arkode, tau, P->yref, &tret, ARK_NORMAL) < 0) {
      return -1;
    }
    P->tref = tau;
  }
  sunrealtype L = P->length, s = sin(y[0]), c = cos(y[0]);
  q[0] = L * s;
  q[1] = -L * c;
  p[0] = P->mass * L * c * y[1];
  p[1] = P->mass * L * s * y[1];
  return 0;
}

static int pendulum_events(void *data, sunrealtype t, const sunrealtype *q, const sunrealtype *p,
                           sunrealtype *e) {
  const pendulum *P = data;
  (void)t;
  (void)P;
  e[0] = q[0]; /* as examples/symbolic/pendulum.py's event "vertical" (test/gen_test.sh) */
  e[1] = p[1];
  return 0;
}

static const char *const pendulum_event_names[] = {"x_zero", "vy_zero", NULL};

const CHSProblemOps chs_problem_pendulum = {
    .abi_version = CHS_PROBLEM_ABI_VERSION,
    .name = "pendulum",
    .summary =
        "planar pendulum, H = |p|^2/(2m) + m g y, g = gscale (x^2+y^2-L^2) ([Seiler, Dirac]-003)",
    .params_doc = "length=1 gravity=1 mass=1 gscale=0.5 x=length y=0 px=0 py=-2 "
                  "hamiltonian=natural|modified ([Seiler, stable] (52); impetus only)",
    .create = pendulum_create,
    .destroy = pendulum_free,
    .potential = pendulum_potential,
    .force = pendulum_force,
    .constraint = pendulum_constraint,
    .jacobian = pendulum_jacobian,
    .jacobian_dot = pendulum_jacobian_dot,
    .initial_state = pendulum_initial,
    .reference = pendulum_reference,
    .kinetic_scale = pendulum_kinetic_scale,
    .event_names = pendulum_event_names,
    .events = pendulum_events,
};
