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
} slider;

static int sc_create(CHSParams kv, void **data, CHSProblemDims *dims, CHSError *err) {
  slider *S = calloc(1, sizeof *S);
  if (!S) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  *data = S;
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

static int sc_potential(void *data, const sunrealtype *q, sunrealtype *V) {
  const slider *S = data;
  sunrealtype d = hypot(q[3] - q[0], q[4] - q[1]);
  *V = S->k / 2 * (d - S->s0) * (d - S->s0) - S->f * q[3] +
       S->gravity * (S->m1 * q[1] + S->m2 * q[4] + S->m3 * q[7]);
  return 0;
}

static int sc_force(void *data, const sunrealtype *q, sunrealtype *F) {
  const slider *S = data;
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
                  "angular velocity",
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
