/* Heavy symmetric top: a rigid body with a fixed point in gravity, in Euler parameters (unit
 * quaternion) q = (q0, q1, q2, q3), n = 4, with the one constraint g = (|q|^2 - 1)/2 (m = 1).
 * Derivation, and why the regularised mass matrix leaves the constrained motion unchanged:
 * docs/mechanisms-problems.md ("heavy-top").
 *
 * Rotation body -> space R(q) (q0 the scalar part); body angular velocity w = 2 E(q) q' with
 *   E(q) = [[-q1,  q0,  q3, -q2],
 *           [-q2, -q3,  q0,  q1],
 *           [-q3,  q2, -q1,  q0]]     (E q = 0, E E^T = |q|^2 I; q' = 1/2 E^T w on |q| = 1).
 * Kinetic energy T = 1/2 w^T J w = 2 q'^T E^T J E q' with J = diag(J1, J1, J3) (symmetric top):
 * 4 E^T J E is singular along q, so chs uses the SPD
 *   M(q) = 4 E(q)^T J E(q) + c q q^T     (c > 0, parameter; eigenvalues 4 J1, 4 J1, 4 J3, c on
 * |q| = 1), which adds 1/2 c (q . q')^2 to T: zero, with zero derivative, along motions on the
 * manifold (psi = q . q' = 0 there). E is linear in q, so M is quadratic in q:
 *   M'(q; u) b = 4 (E(u)^T J E(q) + E(q)^T J E(u)) b + c (u (q . b) + q (u . b)),
 * and mass_grad follows from u . mass_grad(q, a, b) = a^T M'(q; u) b with u = the unit vectors;
 * M'(q; u) is linear in q, so mass_grad_dir(q, u, a, b) = mass_grad(u, a, b).
 * Potential: mgl times the vertical component of the body's symmetry axis, R(q) e3 . ez
 *   V = mgl (q0^2 - q1^2 - q2^2 + q3^2)   (= mgl cos(nutation) on |q| = 1; homogeneous quadratic,
 * so its Hessian is the constant 2 mgl diag(1, -1, -1, 1)).
 * Constraint: g = (|q|^2 - 1)/2, G = q^T, Gdot(q, u) = u^T (quadratic).
 *
 * Invariants (besides H): the body angular momentum is pi = J w = E(q) p / (2 |q|^2) (because
 * E M(q) = 4 |q|^2 J E for the M above), and
 *   vertical_momentum = ez . R(q) pi   (gravity exerts no torque about the vertical),
 *   body_spin = pi_3 = J3 w3           (symmetric top: w3 is constant).
 *
 * Initial state from Euler angles (z-x-z: precession phi, nutation theta, spin psi) at
 * phi = psi = 0: q = (cos(theta0/2), sin(theta0/2), 0, 0), w = (0, prec sin theta0, prec cos
 * theta0 + spin) (theta' = 0), p = 2 E^T J w. steady=1 chooses the spin of steady precession at
 * rate prec, from J1 prec^2 cos theta0 - J3 w3 prec + mgl = 0, i.e. w3 = (mgl + J1 prec^2 cos
 * theta0) / (J3 prec); then phi = prec t, theta = theta0, psi = spin t exactly and `reference`
 * returns that solution at every t, with q = (cos(th/2) cos((phi+psi)/2), sin(th/2) cos((phi-
 * psi)/2), sin(th/2) sin((phi-psi)/2), cos(th/2) sin((phi+psi)/2)) and w = (prec sin th sin psi,
 * prec sin th cos psi, w3). Without steady=1 there is no closed-form solution: `reference`
 * answers 1 (not available) and the checks are the invariants and an independent integration
 * (test/test_heavy_top.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../src/impl.h"

#define HT_N 4

typedef struct {
  sunrealtype J1, J3, mgl, theta0, spin, prec, c;
  int steady;
  sunrealtype w3; /* body spin rate w3 (constant) */
} heavy_top;

static int ht_create(CHSParams kv, void **data, CHSProblemDims *dims, CHSError *err) {
  heavy_top *T = calloc(1, sizeof *T);
  if (!T) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  *data = T;
  long steady = 0;
  CHS_CALL(CHSParams_GetRealMin(kv, "J1", 1, 0, 1, &T->J1, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "J3", 0.5, 0, 1, &T->J3, err));
  CHS_CALL(CHSParams_GetReal(kv, "mgl", 1, &T->mgl, err));
  CHS_CALL(CHSParams_GetReal(kv, "theta0", 0.5, &T->theta0, err));
  CHS_CALL(CHSParams_GetReal(kv, "prec", 1, &T->prec, err));
  CHS_CALL(CHSParams_GetInt(kv, "steady", 0, 0, 1, &steady, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "c", 4 * T->J1, 0, 1, &T->c, err));
  T->steady = (int)steady;
  if (T->steady) {
    if (CHSParams_Has(kv, "spin")) {
      return chs_error_set(err, CHS_ERR_ARG,
                           "heavy-top: steady=1 determines the spin from prec (give prec, not "
                           "spin)");
    }
    if (!(fabs(T->prec) > 0)) {
      return chs_error_set(err, CHS_ERR_ARG,
                           "heavy-top: steady precession needs prec != 0 (got prec = %g)",
                           (double)T->prec);
    }
    T->w3 = (T->mgl + T->J1 * T->prec * T->prec * cos(T->theta0)) / (T->J3 * T->prec);
    T->spin = T->w3 - T->prec * cos(T->theta0);
    if (!isfinite(T->w3)) {
      return chs_error_set(err, CHS_ERR_ARG,
                           "heavy-top: the steady-precession spin is not finite (prec = %g)",
                           (double)T->prec);
    }
  } else {
    CHS_CALL(CHSParams_GetReal(kv, "spin", 10, &T->spin, err));
    T->w3 = T->prec * cos(T->theta0) + T->spin;
  }
  dims->n = HT_N;
  dims->m = 1;
  dims->mass_kind = CHS_MASS_CONFIG;
  dims->mass = NULL;
  dims->jac_kind = CHS_JAC_DENSE;
  dims->declares = CHS_DECLARE_QUADRATIC_CONSTRAINTS;
  /* the Euler parameters as e0 (scalar part) .. e3, the usual multibody letters: "q1" would name
   * q[1] where the fallback q1 is q[0]; the constraint keeps |e| = 1 */
  static const char *const coords[HT_N] = {"e0", "e1", "e2", "e3"}, *const cons[1] = {"unit"};
  dims->coordinate_names = coords;
  dims->constraint_names = cons;
  return CHS_SUCCESS;
}

static void ht_destroy(void *data) {
  free(data);
}

/* E(q), 3 x 4 row-major. */
static void ht_E(const sunrealtype *q, sunrealtype E[12]) {
  const sunrealtype e[12] = {-q[1], q[0], q[3],  -q[2], -q[2], -q[3],
                             q[0],  q[1], -q[3], q[2],  -q[1], q[0]};
  memcpy(E, e, sizeof e);
}

/* y = E x (x in R^4), x = E^T y (y in R^3). */
static void ht_Ex(const sunrealtype E[12], const sunrealtype *x, sunrealtype *y) {
  for (int i = 0; i < 3; i++) {
    y[i] = E[4 * i] * x[0] + E[4 * i + 1] * x[1] + E[4 * i + 2] * x[2] + E[4 * i + 3] * x[3];
  }
}

static void ht_ETy(const sunrealtype E[12], const sunrealtype *y, sunrealtype *x) {
  for (int j = 0; j < 4; j++) {
    x[j] = E[j] * y[0] + E[4 + j] * y[1] + E[8 + j] * y[2];
  }
}

static void ht_J(const heavy_top *T, sunrealtype *y) {
  y[0] *= T->J1;
  y[1] *= T->J1;
  y[2] *= T->J3;
}

static sunrealtype ht_dot4(const sunrealtype *a, const sunrealtype *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}

static int ht_mass(void *data, const sunrealtype *q, sunrealtype *M) {
  const heavy_top *T = data;
  sunrealtype E[12];
  ht_E(q, E);
  const sunrealtype J[3] = {T->J1, T->J1, T->J3};
  for (int i = 0; i < HT_N; i++) {
    for (int j = 0; j < HT_N; j++) {
      sunrealtype s = 0;
      for (int k = 0; k < 3; k++) {
        s += E[4 * k + i] * J[k] * E[4 * k + j];
      }
      M[i * HT_N + j] = 4 * s + T->c * q[i] * q[j];
    }
  }
  return 0;
}

static int ht_mass_dir(void *data, const sunrealtype *q, const sunrealtype *u, const sunrealtype *b,
                       sunrealtype *out) {
  const heavy_top *T = data;
  sunrealtype Eq[12], Eu[12], y[3], x[4];
  ht_E(q, Eq);
  ht_E(u, Eu);
  /* 4 Eu^T J Eq b + 4 Eq^T J Eu b */
  ht_Ex(Eq, b, y);
  ht_J(T, y);
  ht_ETy(Eu, y, out);
  ht_Ex(Eu, b, y);
  ht_J(T, y);
  ht_ETy(Eq, y, x);
  sunrealtype qb = ht_dot4(q, b), ub = ht_dot4(u, b);
  for (int i = 0; i < HT_N; i++) {
    out[i] = 4 * (out[i] + x[i]) + T->c * (u[i] * qb + q[i] * ub);
  }
  return 0;
}

static int ht_mass_grad(void *data, const sunrealtype *q, const sunrealtype *a,
                        const sunrealtype *b, sunrealtype *out) {
  for (int k = 0; k < HT_N; k++) {
    sunrealtype ek[HT_N] = {0, 0, 0, 0}, Mb[HT_N];
    ek[k] = 1;
    ht_mass_dir(data, q, ek, b, Mb);
    out[k] = ht_dot4(a, Mb);
  }
  return 0;
}

/* M'(q; u) is linear in q (M is quadratic), so grad_q (a^T M'(q; u) b) = mass_grad(u, a, b):
 * component k is a^T M'(u; e_k) b = a^T M''(u, e_k) b, whatever q. */
static int ht_mass_grad_dir(void *data, const sunrealtype *q, const sunrealtype *u,
                            const sunrealtype *a, const sunrealtype *b, sunrealtype *out) {
  (void)q;
  return ht_mass_grad(data, u, a, b, out);
}

static int ht_potential(void *data, const sunrealtype *q, sunrealtype *V) {
  const heavy_top *T = data;
  *V = T->mgl * (q[0] * q[0] - q[1] * q[1] - q[2] * q[2] + q[3] * q[3]);
  return 0;
}

static int ht_force(void *data, const sunrealtype *q, sunrealtype *F) {
  const heavy_top *T = data;
  F[0] = -2 * T->mgl * q[0];
  F[1] = 2 * T->mgl * q[1];
  F[2] = 2 * T->mgl * q[2];
  F[3] = -2 * T->mgl * q[3];
  return 0;
}

static int ht_hessian(void *data, const sunrealtype *q, const sunrealtype *u, sunrealtype *Hu) {
  const heavy_top *T = data;
  (void)q;
  Hu[0] = 2 * T->mgl * u[0];
  Hu[1] = -2 * T->mgl * u[1];
  Hu[2] = -2 * T->mgl * u[2];
  Hu[3] = 2 * T->mgl * u[3];
  return 0;
}

static int ht_constraint(void *data, const sunrealtype *q, sunrealtype *g) {
  (void)data;
  g[0] = (ht_dot4(q, q) - 1) / 2;
  return 0;
}

static int ht_jacobian(void *data, const sunrealtype *q, sunrealtype *G) {
  (void)data;
  memcpy(G, q, HT_N * sizeof *G);
  return 0;
}

static int ht_jacobian_dot(void *data, const sunrealtype *q, const sunrealtype *u,
                           sunrealtype *Gd) {
  (void)data;
  (void)q;
  memcpy(Gd, u, HT_N * sizeof *Gd);
  return 0;
}

/* q and p of the Euler angles (precession phi, nutation th, spin psi) with theta' = 0. */
static void ht_state(const heavy_top *T, sunrealtype phi, sunrealtype th, sunrealtype psi,
                     sunrealtype *q, sunrealtype *p) {
  sunrealtype ch = cos(th / 2), sh = sin(th / 2), sp = (phi + psi) / 2, dm = (phi - psi) / 2;
  q[0] = ch * cos(sp);
  q[1] = sh * cos(dm);
  q[2] = sh * sin(dm);
  q[3] = ch * sin(sp);
  sunrealtype w[3] = {T->prec * sin(th) * sin(psi), T->prec * sin(th) * cos(psi), T->w3}, E[12];
  ht_J(T, w);
  ht_E(q, E);
  ht_ETy(E, w, p);
  for (int i = 0; i < HT_N; i++) {
    p[i] *= 2;
  }
}

static int ht_initial(void *data, sunrealtype *q, sunrealtype *p) {
  const heavy_top *T = data;
  ht_state(T, 0, T->theta0, 0, q, p);
  return 0;
}

static int ht_reference(void *data, sunrealtype t, sunrealtype *q, sunrealtype *p) {
  const heavy_top *T = data;
  if (!T->steady) {
    return 1; /* no closed form */
  }
  ht_state(T, T->prec * t, T->theta0, T->spin * t, q, p);
  return 0;
}

static const char *const ht_invariant_names[] = {"vertical_momentum", "body_spin", NULL};

static int ht_invariants(void *data, const sunrealtype *q, const sunrealtype *p, sunrealtype *out) {
  (void)data;
  sunrealtype E[12], pi[3], qq = ht_dot4(q, q);
  if (!(qq > 0)) {
    return 1;
  }
  ht_E(q, E);
  ht_Ex(E, p, pi);
  for (int i = 0; i < 3; i++) {
    pi[i] /= 2 * qq;
  }
  /* third row of R(q) (unit q): ez in body coordinates */
  sunrealtype r0 = 2 * (q[1] * q[3] - q[0] * q[2]), r1 = 2 * (q[2] * q[3] + q[0] * q[1]);
  sunrealtype r2 = q[0] * q[0] - q[1] * q[1] - q[2] * q[2] + q[3] * q[3];
  out[0] = (r0 * pi[0] + r1 * pi[1] + r2 * pi[2]) / qq;
  out[1] = pi[2];
  return 0;
}

const CHSProblemOps chs_problem_heavy_top = {
    .abi_version = CHS_PROBLEM_ABI_VERSION,
    .name = "heavy-top",
    .summary = "heavy symmetric top in Euler parameters (n=4, m=1, M(q)); invariants: vertical "
               "and body-axis angular momentum; steady=1: exact steady precession",
    .params_doc = "J1=1 (= J2) J3=0.5 principal moments of inertia; mgl=1 weight times distance "
                  "of the centre of mass from the fixed point; theta0=0.5 initial nutation angle "
                  "(from the upward vertical); prec=1 initial precession rate; spin=10 initial "
                  "spin rate (psi'); steady=0 | 1 (spin chosen for steady precession at rate "
                  "prec: exact reference); c=4*J1 regularisation c q q^T of M(q)",
    .create = ht_create,
    .destroy = ht_destroy,
    .potential = ht_potential,
    .force = ht_force,
    .constraint = ht_constraint,
    .jacobian = ht_jacobian,
    .jacobian_dot = ht_jacobian_dot,
    .hessian_potential = ht_hessian,
    .initial_state = ht_initial,
    .reference = ht_reference,
    .invariant_names = ht_invariant_names,
    .invariants = ht_invariants,
    .mass_matrix = ht_mass,
    .mass_dir = ht_mass_dir,
    .mass_grad = ht_mass_grad,
    .mass_grad_dir = ht_mass_grad_dir,
};
