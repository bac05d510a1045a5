/* Planar slider-crank mechanism in body coordinates, with a spring-damper: a multibody test case
 * (not from the papers) with a constant mass matrix, non-quadratic constraints and a
 * non-conservative (velocity-dependent) force.
 *
 * Bodies: crank (1), connecting rod (2), slider (3), each with q_i = (x_i, y_i, theta_i) (centre
 * of mass and angle), mass m_i and inertia J_i about the centre of mass; n = 9,
 *   M = diag(m1, m1, J1, m2, m2, J2, m3, m3, J3).
 * The crank (length r) and the rod (length l) are bars with the centre of mass at mid-length
 * (a = r/2, b = l/2). Constraints (m = 8, one degree of freedom):
 *   crank-ground revolute at the origin:  x1 - a cos th1 = 0,                y1 - a sin th1 = 0,
 *   crank-rod revolute at the crank tip:  x1 + a cos th1 - x2 + b cos th2 = 0,
 *                                         y1 + a sin th1 - y2 + b sin th2 = 0,
 *   rod-slider revolute:                  x2 + b cos th2 - x3 = 0,          y2 + b sin th2 - y3 =
 * 0, slider on the line y = e (offset):    y3 - e = 0,      slider rotation fixed: th3 = 0. G (8 x
 * 9, dense) and Gdot(q, u) are analytic; g is not quadratic (trigonometric).
 *
 * Forces. A linear spring-damper between the centres of mass of crank and rod, d = |(x2-x1,
 * y2-y1)|: V_s = k/2 (d - s0)^2 and the damper force -c d' along the line (d' = grad d . v),
 *   Fnc = -c (grad d . v) grad d,   so   dH/dt = Fnc . v = -c d'^2 <= 0
 * (constraint forces do no work since G v = 0). A constant horizontal force f on the rod's centre
 * of mass is conservative (V_f = -f x2) and belongs to V, as does optional gravity (along -y):
 *   V = k/2 (d - s0)^2 - f x2 + gravity (m1 y1 + m2 y2 + m3 y3).
 * l > r + |e| keeps the mechanism assemblable at every crank angle and d >= (l - r)/2 > 0.
 * The Hessian-vector product of V is analytic; the third derivatives of g are not provided (only
 * the Hamiltonian formulations need them, and they refuse this problem, see below).
 *
 * Initial state from the crank angle phi and angular velocity omega (slider to the right of the
 * crank pivot): th1 = phi, sin th2 = (e - r sin phi)/l, x3 = r cos phi + sqrt(l^2 - (r sin phi -
 * e)^2), the velocities by differentiating these positions; g = 0 and G M^{-1} p = 0 hold to
 * round-off.
 *
 * Which formulations and methods accept a non-conservative force (CHSProblemOps.
 * nonconservative_force; decided by CHS_FORM_NEEDS_HAMILTONIAN / needs_hamiltonian, and the force
 * enters every accepting formulation through chs_system_force):
 *   standard, baumgarte, dae-index3, dae-ggl, dae-index1: equations of motion p' = F - G^T lambda
 *     with lambda from the acceleration constraint; any force F works. Accepted.
 *   dirac, fj: Hamilton-Dirac field with F = -grad V + Fnc; the proof that g and psi are first
 *     integrals (formulations/dirac.c) uses only lambda = Q^{-1} r, not F = -grad V, so it still
 *     holds. On the manifold the field is the standard one. Accepted (the Dirac-bracket structure,
 *     i.e. symplecticity of the flow, is lost, as for any damped system).
 *   impetus: p*' = F + Gdot^T lambda*, with the physical velocity v in Fnc(q, v); the normal
 *     component of p*' is gauge, so any force works. Accepted.
 *   ssf: theta' = phi'^T (F - Gdot^T z) is the constrained flow in chart coordinates for any F
 *     (Fnc at the physical velocity); (delta, theta) stay coordinates but the flow is no longer
 *     Hamiltonian. Accepted.
 *   extended, total: their fields are gradients of a Hamiltonian (H_E, H_T), and their multiplier
 *     gradients assume F = -grad V. Refused (CHS_ERR_UNSUPPORTED, exit status 2 in the CLI).
 *   erk, dirk, gauss, cvode, ida: general ODE/DAE integrators. Accepted (gauss is then an implicit
 *     collocation method; its symplecticity has nothing to preserve).
 *   rattle: explicit half-kicks with F(q) only (a velocity-dependent force would make them
 *     implicit). Refused.
 *
 * Energy diagnostic: energy_err stays |H(t) - H(0)| / |H(0)| with H = T + V. For this problem
 * (damping c > 0) H is NOT an invariant: it decays, at the rate -c d'^2, and energy_err measures
 * that physical dissipation, not an integration error. With c = 0 the problem is conservative
 * (the callback returns zero) and energy_err is an error again, but the problem still declares a
 * non-conservative force, so extended, total and rattle still refuse it. No reference solution;
 * test/test_slider_crank.c checks the slider position against the closed form above. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../src/impl.h"

#define SC_N 9
#define SC_M 8

typedef struct {
  sunrealtype r, l, e, a, b;
  sunrealtype m1, m2, m3, J1, J2, J3;
  sunrealtype k, s0, c, f, gravity;
  sunrealtype phi, omega;
  sunrealtype mass[SC_N];
  int set; /* 0: body coordinates (n = 9); 1: SUNDIALS' idaSlCrank_dns model (n = 3) */
} slider;

static int scs_create(CHSParams kv, slider *S, CHSProblemDims *dims, CHSError *err);

static int sc_create(CHSParams kv, void **data, CHSProblemDims *dims, CHSError *err) {
  slider *S = calloc(1, sizeof *S);
  if (!S) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  *data = S;
  static const char *const sets[] = {"body", "sundials", NULL};
  CHS_CALL(CHSParams_GetChoice(kv, "set", sets, 0, &S->set, err));
  if (S->set == 1) {
    return scs_create(kv, S, dims, err);
  }
  CHS_CALL(CHSParams_GetRealMin(kv, "r", 1, 0, 1, &S->r, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "l", 3, 0, 1, &S->l, err));
  CHS_CALL(CHSParams_GetReal(kv, "e", 0, &S->e, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "m1", 1, 0, 1, &S->m1, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "m2", 2, 0, 1, &S->m2, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "m3", 1, 0, 1, &S->m3, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "J1", S->m1 * S->r * S->r / 12, 0, 1, &S->J1, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "J2", S->m2 * S->l * S->l / 12, 0, 1, &S->J2, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "J3", S->m3 / 6, 0, 1, &S->J3, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "k", 10, 0, 0, &S->k, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "s0", 1.5, 0, 0, &S->s0, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "c", 0.5, 0, 0, &S->c, err));
  CHS_CALL(CHSParams_GetReal(kv, "f", 1, &S->f, err));
  CHS_CALL(CHSParams_GetReal(kv, "gravity", 0, &S->gravity, err));
  CHS_CALL(CHSParams_GetReal(kv, "phi", M_PI / 4, &S->phi, err));
  CHS_CALL(CHSParams_GetReal(kv, "omega", 3, &S->omega, err));
  if (!(S->l > S->r + fabs(S->e))) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "slider-crank: l = %g must exceed r + |e| = %g (the rod could not reach "
                         "the slider line at every crank angle)",
                         (double)S->l, (double)(S->r + fabs(S->e)));
  }
  S->a = S->r / 2;
  S->b = S->l / 2;
  const sunrealtype mass[SC_N] = {S->m1, S->m1, S->J1, S->m2, S->m2, S->J2, S->m3, S->m3, S->J3};
  memcpy(S->mass, mass, sizeof mass);
  dims->n = SC_N;
  dims->m = SC_M;
  dims->mass_kind = CHS_MASS_DIAGONAL;
  dims->mass = S->mass;
  dims->jac_kind = CHS_JAC_DENSE;
  dims->declares = 0; /* V (spring) has its Hessian; g (trigonometric) has no constraint_third */
  /* bodies 1 crank, 2 rod, 3 slider; the constraints in the order of the file's description */
  static const char *const coords[SC_N] = {"x1", "y1", "th1", "x2", "y2", "th2", "x3", "y3", "th3"};
  static const char *const cons[SC_M] = {"ground_x",    "ground_y",     "crank_rod_x",
                                         "crank_rod_y", "rod_slider_x", "rod_slider_y",
                                         "slider_line", "slider_angle"};
  dims->coordinate_names = coords;
  dims->constraint_names = cons;
  return CHS_SUCCESS;
}

static void sc_destroy(void *data) {
  free(data);
}

/* Spring geometry: d = |P2 - P1| and the unit vector e from the crank's to the rod's centre. */
static int sc_spring(const sunrealtype *q, sunrealtype *d, sunrealtype *ex, sunrealtype *ey) {
  sunrealtype dx = q[3] - q[0], dy = q[4] - q[1];
  *d = hypot(dx, dy);
  if (!(*d > 0)) {
    return 1; /* coincident centres: outside the domain */
  }
  *ex = dx / *d;
  *ey = dy / *d;
  return 0;
}

/* ------------------------------------------------------------------ set=sundials
 * The model of SUNDIALS' example idaSlCrank_dns (examples/ida/serial; Radu Serban), written here
 * for chs from its equations: n = 3 generalised coordinates q = (phi, x, beta) (crank angle,
 * slider position, rod angle), M = diag(J1, m2, J2), m = 2 constraints (crank tip a (cos phi,
 * sin phi) on the rod of length 1 from the slider (x, 0) to (x - cos beta, -sin beta)):
 *   g1 = x - cos beta - a cos phi,   g2 = -sin beta - a sin phi.
 * A spring-damper (stiffness k, rest length l0, damping c) between the crank's midpoint
 * a/2 (cos phi, sin phi) and the rod's midpoint (x - cos beta / 2, -sin beta / 2), of length l,
 *   l^2 = x^2 - x (cos beta + a cos phi) + (1 + a^2)/4 + a/2 cos(beta - phi),
 * and a constant force f whose generalised force is (0, f, -f sin beta), i.e. V_f = -f (x + cos
 * beta) (the example's Q; conservative):
 *   V = k/2 (l - l0)^2 - f (x + cos beta),   Fnc = -c l' grad l,   l' = grad l . v.
 * Initial state (the example's setIC): phi = pi/2, beta = asin(-a), x = cos beta, v = 0. The
 * example's multipliers enter as chs's (M v' = Q - G^T lambda). Its GGL residual on (q, v) and
 * chs's dae-ggl on (q, p = M v) are the same DAE. */
#define SCS_N 3

static int scs_create(CHSParams kv, slider *S, CHSProblemDims *dims, CHSError *err) {
  CHS_CALL(CHSParams_GetRealMin(kv, "a", 0.5, 0, 1, &S->a, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "J1", 1, 0, 1, &S->J1, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "m2", 1, 0, 1, &S->m2, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "J2", 2, 0, 1, &S->J2, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "k", 1, 0, 0, &S->k, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "c", 1, 0, 0, &S->c, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "l0", 1, 0, 0, &S->s0, err));
  CHS_CALL(CHSParams_GetReal(kv, "f", 1, &S->f, err));
  if (!(S->a < 1)) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "slider-crank:set=sundials: the crank a = %g must be shorter than the "
                         "rod (length 1)",
                         (double)S->a);
  }
  const sunrealtype mass[SCS_N] = {S->J1, S->m2, S->J2};
  memcpy(S->mass, mass, sizeof mass);
  dims->n = SCS_N;
  dims->m = 2;
  dims->mass_kind = CHS_MASS_DIAGONAL;
  dims->mass = S->mass;
  dims->jac_kind = CHS_JAC_DENSE;
  dims->declares = 0;
  /* crank angle, slider position, rod angle; the crank tip on the rod, x and y */
  static const char *const coords[SCS_N] = {"phi", "x", "beta"}, *const cons[2] = {"tip_x",
                                                                                   "tip_y"};
  dims->coordinate_names = coords;
  dims->constraint_names = cons;
  return CHS_SUCCESS;
}

/* l, grad l and (optionally) the Hessian of l^2 at q. */
static int scs_spring(const slider *S, const sunrealtype *q, sunrealtype *l, sunrealtype dl[3],
                      sunrealtype h2[9]) {
  sunrealtype a = S->a, x = q[1], c1 = cos(q[0]), s1 = sin(q[0]), c2 = cos(q[2]), s2 = sin(q[2]);
  sunrealtype s21 = sin(q[2] - q[0]), c21 = cos(q[2] - q[0]);
  sunrealtype l2 = x * x - x * (c2 + a * c1) + (1 + a * a) / 4 + a / 2 * c21;
  if (!(l2 > 0)) {
    return 1; /* coincident midpoints */
  }
  *l = sqrt(l2);
  dl[0] = a * (x * s1 + s21 / 2) / (2 * *l);
  dl[1] = (2 * x - c2 - a * c1) / (2 * *l);
  dl[2] = (x * s2 - a / 2 * s21) / (2 * *l);
  if (h2) {
    const sunrealtype h[9] = {
        a * x * c1 - a / 2 * c21, a * s1, a / 2 * c21, a * s1, 2, s2, a / 2 * c21, s2,
        x * c2 - a / 2 * c21};
    memcpy(h2, h, sizeof h);
  }
  return 0;
}

static int scs_potential(const slider *S, const sunrealtype *q, sunrealtype *V) {
  sunrealtype l, dl[3];
  if (scs_spring(S, q, &l, dl, NULL) != 0) {
    return 1;
  }
  *V = S->k / 2 * (l - S->s0) * (l - S->s0) - S->f * (q[1] + cos(q[2]));
  return 0;
}

static int scs_force(const slider *S, const sunrealtype *q, sunrealtype *F) {
  sunrealtype l, dl[3];
  if (scs_spring(S, q, &l, dl, NULL) != 0) {
    return 1;
  }
  sunrealtype T = S->k * (l - S->s0);
  F[0] = -T * dl[0];
  F[1] = -T * dl[1] + S->f;
  F[2] = -T * dl[2] - S->f * sin(q[2]);
  return 0;
}

/* hess V = k (grad l grad l^T + (l - l0) hess l) + f cos beta e3 e3^T, with
 * hess l = (hess l^2 / 2 - grad l grad l^T) / l. */
static int scs_hessian(const slider *S, const sunrealtype *q, const sunrealtype *u,
                       sunrealtype *Hu) {
  sunrealtype l, dl[3], h2[9];
  if (scs_spring(S, q, &l, dl, h2) != 0) {
    return 1;
  }
  sunrealtype du = dl[0] * u[0] + dl[1] * u[1] + dl[2] * u[2], s = (l - S->s0) / l;
  for (int i = 0; i < SCS_N; i++) {
    sunrealtype hu = h2[3 * i] * u[0] + h2[3 * i + 1] * u[1] + h2[3 * i + 2] * u[2];
    Hu[i] = S->k * (dl[i] * du + s * (hu / 2 - dl[i] * du));
  }
  Hu[2] += S->f * cos(q[2]) * u[2];
  return 0;
}

static int scs_damper(const slider *S, const sunrealtype *q, const sunrealtype *v,
                      sunrealtype *Fnc) {
  sunrealtype l, dl[3];
  if (scs_spring(S, q, &l, dl, NULL) != 0) {
    return 1;
  }
  sunrealtype rate = dl[0] * v[0] + dl[1] * v[1] + dl[2] * v[2];
  for (int i = 0; i < SCS_N; i++) {
    Fnc[i] = -S->c * rate * dl[i];
  }
  return 0;
}

static void scs_constraint(const slider *S, const sunrealtype *q, sunrealtype *g) {
  g[0] = q[1] - cos(q[2]) - S->a * cos(q[0]);
  g[1] = -sin(q[2]) - S->a * sin(q[0]);
}

static void scs_jacobian(const slider *S, const sunrealtype *q, sunrealtype *G) {
  sunrealtype a = S->a;
  const sunrealtype g[6] = {a * sin(q[0]), 1, sin(q[2]), -a * cos(q[0]), 0, -cos(q[2])};
  memcpy(G, g, sizeof g);
}

static void scs_jacobian_dot(const slider *S, const sunrealtype *q, const sunrealtype *u,
                             sunrealtype *G) {
  sunrealtype a = S->a;
  const sunrealtype g[6] = {a * cos(q[0]) * u[0], 0, cos(q[2]) * u[2],
                            a * sin(q[0]) * u[0], 0, sin(q[2]) * u[2]};
  memcpy(G, g, sizeof g);
}

static void scs_initial(const slider *S, sunrealtype *q, sunrealtype *p) {
  q[0] = M_PI / 2;
  q[2] = asin(-S->a);
  q[1] = cos(q[2]);
  p[0] = p[1] = p[2] = 0;
}

static int sc_potential(void *data, const sunrealtype *q, sunrealtype *V) {
  const slider *S = data;
  if (S->set) {
    return scs_potential(S, q, V);
  }
  sunrealtype d = hypot(q[3] - q[0], q[4] - q[1]);
  *V = S->k / 2 * (d - S->s0) * (d - S->s0) - S->f * q[3] +
       S->gravity * (S->m1 * q[1] + S->m2 * q[4] + S->m3 * q[7]);
  return 0;
}

static int sc_force(void *data, const sunrealtype *q, sunrealtype *F) {
  const slider *S = data;
  if (S->set) {
    return scs_force(S, q, F);
  }
  sunrealtype d, ex, ey;
  if (sc_spring(q, &d, &ex, &ey) != 0) {
    return 1;
  }
  sunrealtype T = S->k * (d - S->s0); /* tension */
  memset(F, 0, SC_N * sizeof *F);
  F[0] = T * ex;
  F[1] = T * ey - S->gravity * S->m1;
  F[3] = -T * ex + S->f;
  F[4] = -T * ey - S->gravity * S->m2;
  F[7] = -S->gravity * S->m3;
  return 0;
}

/* Hu = k (grad d grad d^T + (d - s0) hess d) u; hess d acts on the relative displacement du as
 * (I - e e^T) du / d. Gravity and f are linear in q. */
static int sc_hessian(void *data, const sunrealtype *q, const sunrealtype *u, sunrealtype *Hu) {
  const slider *S = data;
  if (S->set) {
    return scs_hessian(S, q, u, Hu);
  }
  sunrealtype d, ex, ey;
  if (sc_spring(q, &d, &ex, &ey) != 0) {
    return 1;
  }
  sunrealtype dux = u[3] - u[0], duy = u[4] - u[1], ed = ex * dux + ey * duy;
  sunrealtype s = (d - S->s0) / d;
  sunrealtype hx = S->k * (ex * ed + s * (dux - ex * ed));
  sunrealtype hy = S->k * (ey * ed + s * (duy - ey * ed));
  memset(Hu, 0, SC_N * sizeof *Hu);
  Hu[0] = -hx;
  Hu[1] = -hy;
  Hu[3] = hx;
  Hu[4] = hy;
  return 0;
}

/* Damper: Fnc = -c d' grad d, d' = e . (v2 - v1). */
static int sc_damper(void *data, const sunrealtype *q, const sunrealtype *v, sunrealtype *Fnc) {
  const slider *S = data;
  if (S->set) {
    return scs_damper(S, q, v, Fnc);
  }
  sunrealtype d, ex, ey;
  if (sc_spring(q, &d, &ex, &ey) != 0) {
    return 1;
  }
  sunrealtype rate = ex * (v[3] - v[0]) + ey * (v[4] - v[1]);
  memset(Fnc, 0, SC_N * sizeof *Fnc);
  Fnc[0] = S->c * rate * ex;
  Fnc[1] = S->c * rate * ey;
  Fnc[3] = -S->c * rate * ex;
  Fnc[4] = -S->c * rate * ey;
  return 0;
}

static int sc_constraint(void *data, const sunrealtype *q, sunrealtype *g) {
  const slider *S = data;
  if (S->set) {
    scs_constraint(S, q, g);
    return 0;
  }
  sunrealtype c1 = cos(q[2]), s1 = sin(q[2]), c2 = cos(q[5]), s2 = sin(q[5]);
  g[0] = q[0] - S->a * c1;
  g[1] = q[1] - S->a * s1;
  g[2] = q[0] + S->a * c1 - q[3] + S->b * c2;
  g[3] = q[1] + S->a * s1 - q[4] + S->b * s2;
  g[4] = q[3] + S->b * c2 - q[6];
  g[5] = q[4] + S->b * s2 - q[7];
  g[6] = q[7] - S->e;
  g[7] = q[8];
  return 0;
}

#define SC_G(i, j) G[(i)*SC_N + (j)]

static int sc_jacobian(void *data, const sunrealtype *q, sunrealtype *G) {
  const slider *S = data;
  if (S->set) {
    scs_jacobian(S, q, G);
    return 0;
  }
  sunrealtype a = S->a, b = S->b;
  sunrealtype c1 = cos(q[2]), s1 = sin(q[2]), c2 = cos(q[5]), s2 = sin(q[5]);
  memset(G, 0, SC_M * SC_N * sizeof *G);
  SC_G(0, 0) = 1;
  SC_G(0, 2) = a * s1;
  SC_G(1, 1) = 1;
  SC_G(1, 2) = -a * c1;
  SC_G(2, 0) = 1;
  SC_G(2, 2) = -a * s1;
  SC_G(2, 3) = -1;
  SC_G(2, 5) = -b * s2;
  SC_G(3, 1) = 1;
  SC_G(3, 2) = a * c1;
  SC_G(3, 4) = -1;
  SC_G(3, 5) = b * c2;
  SC_G(4, 3) = 1;
  SC_G(4, 5) = -b * s2;
  SC_G(4, 6) = -1;
  SC_G(5, 4) = 1;
  SC_G(5, 5) = b * c2;
  SC_G(5, 7) = -1;
  SC_G(6, 7) = 1;
  SC_G(7, 8) = 1;
  return 0;
}

static int sc_jacobian_dot(void *data, const sunrealtype *q, const sunrealtype *u, sunrealtype *G) {
  const slider *S = data;
  if (S->set) {
    scs_jacobian_dot(S, q, u, G);
    return 0;
  }
  sunrealtype aw = S->a * u[2], bw = S->b * u[5];
  sunrealtype c1 = cos(q[2]), s1 = sin(q[2]), c2 = cos(q[5]), s2 = sin(q[5]);
  memset(G, 0, SC_M * SC_N * sizeof *G);
  SC_G(0, 2) = aw * c1;
  SC_G(1, 2) = aw * s1;
  SC_G(2, 2) = -aw * c1;
  SC_G(2, 5) = -bw * c2;
  SC_G(3, 2) = -aw * s1;
  SC_G(3, 5) = -bw * s2;
  SC_G(4, 5) = -bw * c2;
  SC_G(5, 5) = -bw * s2;
  return 0;
}

#undef SC_G

static int sc_initial(void *data, sunrealtype *q, sunrealtype *p) {
  const slider *S = data;
  if (S->set) {
    scs_initial(S, q, p);
    return 0;
  }
  sunrealtype r = S->r, l = S->l, a = S->a, b = S->b, w = S->omega;
  sunrealtype cp = cos(S->phi), sp = sin(S->phi);
  sunrealtype s2 = (S->e - r * sp) / l, c2 = sqrt(1 - s2 * s2), th2 = asin(s2);
  sunrealtype w2 = -r * cp * w / (l * c2); /* from l sin th2 = e - r sin phi */
  sunrealtype v[SC_N];
  q[0] = a * cp;
  q[1] = a * sp;
  q[2] = S->phi;
  q[3] = r * cp + b * c2;
  q[4] = r * sp + b * s2;
  q[5] = th2;
  q[6] = r * cp + l * c2;
  q[7] = S->e;
  q[8] = 0;
  v[0] = -a * sp * w;
  v[1] = a * cp * w;
  v[2] = w;
  v[3] = -r * sp * w - b * s2 * w2;
  v[4] = r * cp * w + b * c2 * w2;
  v[5] = w2;
  v[6] = -r * sp * w - l * s2 * w2;
  v[7] = 0;
  v[8] = 0;
  for (int i = 0; i < SC_N; i++) {
    p[i] = S->mass[i] * v[i];
  }
  return 0;
}

const CHSProblemOps chs_problem_slider_crank = {
    .abi_version = CHS_PROBLEM_ABI_VERSION,
    .name = "slider-crank",
    .summary = "planar slider-crank (crank, rod, slider; body coordinates, n=9, m=8), "
               "spring-damper: not Hamiltonian",
    .params_doc = "r=1 crank length; l=3 rod length (> r + |e|); e=0 slider line offset; m1=1 "
                  "m2=2 m3=1 masses; J1=m1*r^2/12 J2=m2*l^2/12 J3=m3/6 inertias about the "
                  "centres of mass; k=10 spring stiffness; s0=1.5 spring rest length; c=0.5 "
                  "damping (spring-damper between the centres of crank and rod); f=1 horizontal "
                  "force on the rod; gravity=0 (along -y); phi=pi/4 crank angle; omega=3 crank "
                  "angular velocity | set=sundials: the 3-coordinate model of SUNDIALS' "
                  "idaSlCrank_dns (a=0.5 crank; J1=1 m2=1 J2=2; k=1 c=1 l0=1 spring-damper; f=1 "
                  "force)",
    .create = sc_create,
    .destroy = sc_destroy,
    .potential = sc_potential,
    .force = sc_force,
    .constraint = sc_constraint,
    .jacobian = sc_jacobian,
    .jacobian_dot = sc_jacobian_dot,
    .hessian_potential = sc_hessian,
    .initial_state = sc_initial,
    .nonconservative_force = sc_damper,
};
