/* Andrews' squeezing mechanism (seven bodies, one closed kinematic loop system), the index-3
 * problem of the IVP test set (Mazzia, Magherini: "Test Set for Initial Value Problem Solvers",
 * problem "andrews"; Hairer, Wanner, "Solving ODEs II", VII.7). The problem data and initial values
 * are the test set's; the formulation below (V, M(q) and its derivatives, the term table for g) is
 * written for chs.
 *
 * Coordinates (n = 7): q = (beta, theta, gamma, phi, delta, omega, epsilon), angles.
 * Mass matrix M(q) (symmetric; entries not listed are zero):
 *   M11 = m1 ra^2 + m2 (rr^2 - 2 da rr cos theta + da^2) + I1 + I2
 *   M12 = m2 (da^2 - da rr cos theta) + I2,  M22 = m2 da^2 + I2,  M33 = m3 (sa^2 + sb^2) + I3
 *   M44 = m4 (e - ea)^2 + I4,  M45 = m4 ((e - ea)^2 + zt (e - ea) sin phi) + I4
 *   M55 = m4 (zt^2 + 2 zt (e - ea) sin phi + (e - ea)^2) + m5 (ta^2 + tb^2) + I4 + I5
 *   M66 = m6 (zf - fa)^2 + I6,  M67 = m6 ((zf - fa)^2 - u (zf - fa) sin omega) + I6
 *   M77 = m6 ((zf - fa)^2 - 2 u (zf - fa) sin omega + u^2) + m7 (ua^2 + ub^2) + I6 + I7
 * M depends on theta, phi, omega only, each through one 2 x 2 block:
 *   dM/dtheta = A sin theta [[2,1],[1,0]] on (beta, theta),   A = m2 da rr,
 *   dM/dphi   = B cos phi   [[0,1],[1,2]] on (phi, delta),    B = m4 zt (e - ea),
 *   dM/domega = -C cos omega [[0,1],[1,2]] on (omega, eps),   C = m6 u (zf - fa),
 * from which mass_dir, mass_grad and mass_grad_dir (the second derivatives) are exact.
 * Potential: the drive torque mom on beta and the spring (stiffness c0, rest length l0) between
 * the point D(gamma) = (sd cos gamma + sc sin gamma + xb, sd sin gamma - sc cos gamma + yb) and C:
 *   V = -mom beta + 1/2 c0 (L - l0)^2,   L = |D(gamma) - C|.
 * The test set's right-hand side ff (with its Coriolis terms) is -grad V + 1/2 grad(v^T M v) -
 * M'(q; v) v; test/test_mechanisms.c checks that identity against the test set's formulas.
 * Constraints (m = 6, trigonometric: constraint_third is supplied):
 *   g1 = rr cos b - d cos(b+th) - ss sin ga - xb       g2 = rr sin b - d sin(b+th) + ss cos ga - yb
 *   g3 = rr cos b - d cos(b+th) - e sin(ph+de) - zt cos de - xa
 *   g4 = rr sin b - d sin(b+th) + e cos(ph+de) - zt sin de - ya
 *   g5 = rr cos b - d cos(b+th) - zf cos(om+ep) - u sin ep - xa
 *   g6 = rr sin b - d sin(b+th) - zf sin(om+ep) + u cos ep - ya
 * Every term is c f(q_i [+ q_j]) with f = sin or cos, so g, G, Gdot and the third derivatives are
 * evaluated from one table of terms. The multipliers have the test set's sign (M q'' = ff - G^T
 * lambda, as chs's p' = F - G^T lambda).
 *
 * Initial state: the test set's q0 (consistent to ~1e-16), p0 = 0. `reference` returns the
 * initial state at t = 0, the state below at t = 0.03 and 1 (not available) at any other time.
 *
 * Reference at t = 0.03: Gauss-Legendre s = 3 (order 6, symplectic, implicit) on the
 * Hamilton-Dirac form with h = 1e-5 (`chs run --problem andrews --formulation dirac --method
 * gauss:3 --h 1e-5 --tf 0.03`). Halving h changes q by at most 1.5e-13 relative per component;
 * two explicit codes with their own error control, Fehlberg 13(7)8 and Verner 8(5)6 at tol 1e-15,
 * agree with it to 4.2e-13 per component of q and 3.6e-12 of max|p| (test/test_mechanisms.c
 * asserts 1e-12 and 1e-11). The test set's published values (PSIDE at tol 1e-14),
 *   q = (15.81077119629904, -15.75637105984298, 0.04082224013073101, -0.5347301163226948,
 *        0.5244099658805304, 0.5347301163226948, 1.048080741042263),
 * differ from it by 2.7e-10 relative in q3 (9.6 correct digits) and 9.1e-11 in q2: they would
 * cap every run's measured accuracy near 1e-10, so diagnostics use the state below. No
 * parameters. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../src/impl.h"

#define AN_N 7
#define AN_M 6
#define AN_TREF 0.03

/* Problem data of the test set. */
static const sunrealtype m1 = .04325, m2 = .00365, m3 = .02373, m4 = .00706, m5 = .07050,
                         m6 = .00706, m7 = .05498;
static const sunrealtype xa = -.06934, ya = -.00227, xb = -0.03635, yb = .03273, xc = .014,
                         yc = .072, c0 = 4530;
static const sunrealtype i1 = 2.194e-6, i2 = 4.410e-7, i3 = 5.255e-6, i4 = 5.667e-7, i5 = 1.169e-5,
                         i6 = 5.667e-7, i7 = 1.912e-5;
static const sunrealtype d = 28e-3, da = 115e-4, e = 2e-2, ea = 1421e-5, rr = 7e-3, ra = 92e-5,
                         l0 = 7785e-5;
static const sunrealtype ss = 35e-3, sa = 1874e-5, sb = 1043e-5, sc = 18e-3, sd = 2e-2,
                         ta = 2308e-5, tb = 916e-5, u = 4e-2, ua = 1228e-5, ub = 449e-5;
static const sunrealtype zf = 2e-2, zt = 4e-2, fa = 1421e-5, mom = 33e-3;

static const sunrealtype an_q0[AN_N] = {
    -0.0617138900142764496358948458001, 0,
    0.455279819163070380255912382449,   0.222668390165885884674473185609,
    0.487364979543842550225598953530,   -0.222668390165885884674473185609,
    1.23054744454982119249735015568};
static const sunrealtype an_qref[AN_N] = {
    15.810771195153606, -15.756371058411728, 0.04082224011964362, -0.5347301163420816,
    0.5244099658799551, 0.5347301163420816,  1.0480807410419364};
static const sunrealtype an_pref[AN_N] = {
    2.7348918700174831e-03, 7.1786400534274483e-05,  1.7840381212137795e-04, 1.5482775870085957e-05,
    3.7045469059965723e-05, -1.5509570053833548e-05, 1.3164997257205534e-05};

/* One term c f(q_i + q_j) of constraint row (j < 0: f(q_i)); f = sin when is_sin. */
typedef struct {
  int row;
  sunrealtype c;
  int is_sin, i, j;
} an_term;

static const an_term an_terms[] = {
    {0, rr, 0, 0, -1}, {0, -d, 0, 0, 1}, {0, -ss, 1, 2, -1},                     /* g1 */
    {1, rr, 1, 0, -1}, {1, -d, 1, 0, 1}, {1, ss, 0, 2, -1},                      /* g2 */
    {2, rr, 0, 0, -1}, {2, -d, 0, 0, 1}, {2, -e, 1, 3, 4},   {2, -zt, 0, 4, -1}, /* g3 */
    {3, rr, 1, 0, -1}, {3, -d, 1, 0, 1}, {3, e, 0, 3, 4},    {3, -zt, 1, 4, -1}, /* g4 */
    {4, rr, 0, 0, -1}, {4, -d, 0, 0, 1}, {4, -zf, 0, 5, 6},  {4, -u, 1, 6, -1},  /* g5 */
    {5, rr, 1, 0, -1}, {5, -d, 1, 0, 1}, {5, -zf, 1, 5, 6},  {5, u, 0, 6, -1}};  /* g6 */
static const sunrealtype an_gconst[AN_M] = {-xb, -yb, -xa, -ya, -xa, -ya};
#define AN_NTERMS ((int)(sizeof an_terms / sizeof an_terms[0]))

/* k-th derivative of sin or cos at x. */
static sunrealtype an_f(int is_sin, int k, sunrealtype x) {
  int s = (k + (is_sin ? 3 : 0)) % 4; /* cos^(k) = cos(x + k pi/2); sin = cos^(3) */
  switch (s) {
  case 0:
    return cos(x);
  case 1:
    return -sin(x);
  case 2:
    return -cos(x);
  default:
    return sin(x);
  }
}

static sunrealtype an_arg(const an_term *T, const sunrealtype *x) {
  return x[T->i] + (T->j >= 0 ? x[T->j] : 0);
}

typedef struct {
  int unused;
} andrews;

static int an_create(CHSParams kv, void **data, CHSProblemDims *dims, CHSError *err) {
  (void)kv;
  andrews *A = calloc(1, sizeof *A);
  if (!A) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  *data = A;
  dims->n = AN_N;
  dims->m = AN_M;
  dims->mass_kind = CHS_MASS_CONFIG;
  dims->mass = NULL;
  dims->jac_kind = CHS_JAC_DENSE;
  /* the test set's beta, Theta, gamma, Phi, delta, Omega, epsilon; its constraints are g1 .. g6 */
  static const char *const names[AN_N] = {"beta",  "Theta", "gamma",  "Phi",
                                          "delta", "Omega", "epsilon"};
  dims->coordinate_names = names;
  return CHS_SUCCESS;
}

static void an_destroy(void *data) {
  free(data);
}

static int an_mass(void *data, const sunrealtype *q, sunrealtype *M) {
  (void)data;
  sunrealtype cth = cos(q[1]), sph = sin(q[3]), som = sin(q[5]), e1 = e - ea, f1 = zf - fa;
  memset(M, 0, AN_N * AN_N * sizeof *M);
#define MM(i, j) M[(i)*AN_N + (j)]
  MM(0, 0) = m1 * ra * ra + m2 * (rr * rr - 2 * da * rr * cth + da * da) + i1 + i2;
  MM(0, 1) = MM(1, 0) = m2 * (da * da - da * rr * cth) + i2;
  MM(1, 1) = m2 * da * da + i2;
  MM(2, 2) = m3 * (sa * sa + sb * sb) + i3;
  MM(3, 3) = m4 * e1 * e1 + i4;
  MM(3, 4) = MM(4, 3) = m4 * (e1 * e1 + zt * e1 * sph) + i4;
  MM(4, 4) = m4 * (zt * zt + 2 * zt * e1 * sph + e1 * e1) + m5 * (ta * ta + tb * tb) + i4 + i5;
  MM(5, 5) = m6 * f1 * f1 + i6;
  MM(5, 6) = MM(6, 5) = m6 * (f1 * f1 - u * f1 * som) + i6;
  MM(6, 6) = m6 * (f1 * f1 - 2 * u * f1 * som + u * u) + m7 * (ua * ua + ub * ub) + i6 + i7;
#undef MM
  return 0;
}

/* dM/dq_k for the three angles k it depends on: a 2 x 2 block s * [[p00, p01], [p01, p11]] on
 * rows/columns (r, r+1). */
typedef struct {
  int k, r;
  sunrealtype s, p00, p01, p11;
} an_dblock;

static void an_dblocks(const sunrealtype *q, an_dblock b[3]) {
  const an_dblock tmp[3] = {
      {1, 0, m2 * da * rr * sin(q[1]), 2, 1, 0},
      {3, 3, m4 * zt * (e - ea) * cos(q[3]), 0, 1, 2},
      {5, 5, -m6 * u * (zf - fa) * cos(q[5]), 0, 1, 2},
  };
  memcpy(b, tmp, sizeof tmp);
}

static int an_mass_dir(void *data, const sunrealtype *q, const sunrealtype *du,
                       const sunrealtype *b, sunrealtype *out) {
  (void)data;
  an_dblock B[3];
  an_dblocks(q, B);
  memset(out, 0, AN_N * sizeof *out);
  for (int i = 0; i < 3; i++) {
    sunrealtype w = du[B[i].k] * B[i].s;
    int r = B[i].r;
    out[r] += w * (B[i].p00 * b[r] + B[i].p01 * b[r + 1]);
    out[r + 1] += w * (B[i].p01 * b[r] + B[i].p11 * b[r + 1]);
  }
  return 0;
}

static int an_mass_grad(void *data, const sunrealtype *q, const sunrealtype *a,
                        const sunrealtype *b, sunrealtype *out) {
  (void)data;
  an_dblock B[3];
  an_dblocks(q, B);
  memset(out, 0, AN_N * sizeof *out);
  for (int i = 0; i < 3; i++) {
    int r = B[i].r;
    out[B[i].k] = B[i].s * (a[r] * (B[i].p00 * b[r] + B[i].p01 * b[r + 1]) +
                            a[r + 1] * (B[i].p01 * b[r] + B[i].p11 * b[r + 1]));
  }
  return 0;
}

/* grad_q (a^T M'(q; u) b): a^T M'(q; u) b = sum_k u_k s_k(q_k) [a^T P_k b] on the block of k, and
 * s_k depends on q_k alone, so the gradient has the components k = theta, phi, omega only,
 * u_k s_k'(q_k) [a^T P_k b], with s_k' = A cos theta, -B sin phi, C sin omega. */
static int an_mass_grad_dir(void *data, const sunrealtype *q, const sunrealtype *du,
                            const sunrealtype *a, const sunrealtype *b, sunrealtype *out) {
  (void)data;
  an_dblock B[3];
  an_dblocks(q, B);
  const sunrealtype ds[3] = {m2 * da * rr * cos(q[1]), -m4 * zt * (e - ea) * sin(q[3]),
                             m6 * u * (zf - fa) * sin(q[5])};
  memset(out, 0, AN_N * sizeof *out);
  for (int i = 0; i < 3; i++) {
    int r = B[i].r;
    out[B[i].k] = du[B[i].k] * ds[i] *
                  (a[r] * (B[i].p00 * b[r] + B[i].p01 * b[r + 1]) +
                   a[r + 1] * (B[i].p01 * b[r] + B[i].p11 * b[r + 1]));
  }
  return 0;
}

/* Spring geometry in gamma: r = D - C, r1 = dD/dgamma, r2 = d2D/dgamma2. */
static int an_spring(sunrealtype ga, sunrealtype r[2], sunrealtype r1[2], sunrealtype r2[2],
                     sunrealtype *L) {
  sunrealtype cg = cos(ga), sg = sin(ga);
  r[0] = sd * cg + sc * sg + xb - xc;
  r[1] = sd * sg - sc * cg + yb - yc;
  r1[0] = -sd * sg + sc * cg;
  r1[1] = sd * cg + sc * sg;
  r2[0] = -(sd * cg + sc * sg);
  r2[1] = -(sd * sg - sc * cg);
  *L = hypot(r[0], r[1]);
  return *L > 0 ? 0 : 1;
}

static int an_potential(void *data, const sunrealtype *q, sunrealtype *V) {
  (void)data;
  sunrealtype r[2], r1[2], r2[2], L;
  if (an_spring(q[2], r, r1, r2, &L) != 0) {
    return 1;
  }
  *V = -mom * q[0] + c0 / 2 * (L - l0) * (L - l0);
  return 0;
}

static int an_force(void *data, const sunrealtype *q, sunrealtype *F) {
  (void)data;
  sunrealtype r[2], r1[2], r2[2], L;
  if (an_spring(q[2], r, r1, r2, &L) != 0) {
    return 1;
  }
  memset(F, 0, AN_N * sizeof *F);
  F[0] = mom;
  F[2] = -c0 * (L - l0) * (r[0] * r1[0] + r[1] * r1[1]) / L;
  return 0;
}

/* V'' in gamma: c0 (L'^2 + (L - l0) L''), L' = r.r1/L, L'' = (r1.r1 + r.r2)/L - L'^2/L. */
static int an_hessian(void *data, const sunrealtype *q, const sunrealtype *du, sunrealtype *Hu) {
  (void)data;
  sunrealtype r[2], r1[2], r2[2], L;
  if (an_spring(q[2], r, r1, r2, &L) != 0) {
    return 1;
  }
  sunrealtype L1 = (r[0] * r1[0] + r[1] * r1[1]) / L;
  sunrealtype L2 = (r1[0] * r1[0] + r1[1] * r1[1] + r[0] * r2[0] + r[1] * r2[1]) / L - L1 * L1 / L;
  memset(Hu, 0, AN_N * sizeof *Hu);
  Hu[2] = c0 * (L1 * L1 + (L - l0) * L2) * du[2];
  return 0;
}

static int an_constraint(void *data, const sunrealtype *q, sunrealtype *g) {
  (void)data;
  memcpy(g, an_gconst, sizeof an_gconst);
  for (int t = 0; t < AN_NTERMS; t++) {
    const an_term *T = &an_terms[t];
    g[T->row] += T->c * an_f(T->is_sin, 0, an_arg(T, q));
  }
  return 0;
}

/* G = sum c f'(a.q) a; Gdot(q, u) = sum c f''(a.q) (a.u) a (a = e_i [+ e_j]). */
static void an_jac_k(const sunrealtype *q, const sunrealtype *du, int k, sunrealtype *G) {
  memset(G, 0, AN_M * AN_N * sizeof *G);
  for (int t = 0; t < AN_NTERMS; t++) {
    const an_term *T = &an_terms[t];
    sunrealtype v = T->c * an_f(T->is_sin, k, an_arg(T, q));
    if (du) {
      v *= an_arg(T, du);
    }
    G[T->row * AN_N + T->i] += v;
    if (T->j >= 0) {
      G[T->row * AN_N + T->j] += v;
    }
  }
}

static int an_jacobian(void *data, const sunrealtype *q, sunrealtype *G) {
  (void)data;
  an_jac_k(q, NULL, 1, G);
  return 0;
}

static int an_jacobian_dot(void *data, const sunrealtype *q, const sunrealtype *du,
                           sunrealtype *Gd) {
  (void)data;
  an_jac_k(q, du, 2, Gd);
  return 0;
}

/* grad_q (w^T Gdot(q, u) u) = sum w_row c f'''(a.q) (a.u)^2 a. */
static int an_third(void *data, const sunrealtype *q, const sunrealtype *du, const sunrealtype *w,
                    sunrealtype *out) {
  (void)data;
  memset(out, 0, AN_N * sizeof *out);
  for (int t = 0; t < AN_NTERMS; t++) {
    const an_term *T = &an_terms[t];
    sunrealtype au = an_arg(T, du);
    sunrealtype v = w[T->row] * T->c * an_f(T->is_sin, 3, an_arg(T, q)) * au * au;
    out[T->i] += v;
    if (T->j >= 0) {
      out[T->j] += v;
    }
  }
  return 0;
}

static int an_initial(void *data, sunrealtype *q, sunrealtype *p) {
  (void)data;
  memcpy(q, an_q0, sizeof an_q0);
  memset(p, 0, AN_N * sizeof *p);
  return 0;
}

static int an_reference(void *data, sunrealtype t, sunrealtype *q, sunrealtype *p) {
  if (t == 0) {
    return an_initial(data, q, p);
  }
  if (!(fabs(t - AN_TREF) <= 1e-12)) {
    return 1; /* not available at this time */
  }
  memcpy(q, an_qref, sizeof an_qref);
  memcpy(p, an_pref, sizeof an_pref);
  return 0;
}

const CHSProblemOps chs_problem_andrews = {
    .abi_version = CHS_PROBLEM_ABI_VERSION,
    .name = "andrews",
    .summary = "Andrews' squeezing mechanism (IVP test set; 7 angles, m=6, M(q)), reference "
               "at t=0.03",
    .params_doc = "(no parameters: the test set's data)",
    .create = an_create,
    .destroy = an_destroy,
    .potential = an_potential,
    .force = an_force,
    .constraint = an_constraint,
    .jacobian = an_jacobian,
    .jacobian_dot = an_jacobian_dot,
    .hessian_potential = an_hessian,
    .constraint_third = an_third,
    .initial_state = an_initial,
    .reference = an_reference,
    .mass_matrix = an_mass,
    .mass_dir = an_mass_dir,
    .mass_grad = an_mass_grad,
    .mass_grad_dir = an_mass_grad_dir,
};
