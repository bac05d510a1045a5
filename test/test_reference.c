/* The pendulum's reference solution against independent truth.
 *
 * Periods are computed here by quadrature, independently of the library (which uses the
 * arithmetic-geometric mean for the complete elliptic integral):
 *   rotation (e > w^2):  T = int_0^{2 pi} dtheta / sqrt(2 (e + w^2 cos theta)),
 *   libration (|e| < w^2, amplitude theta_m, k = sin(theta_m / 2)), with the substitution
 *   sin(theta/2) = k sin(phi):  T = (4/w) int_0^{pi/2} dphi / sqrt(1 - k^2 sin^2 phi)
 *                                 = (1/w) int_0^{2 pi} dphi / sqrt(1 - k^2 sin^2 phi),
 * where e = omega^2/2 - w^2 cos theta, w^2 = gravity / length. Both integrands are smooth and
 * 2 pi-periodic, so the trapezoidal rule converges geometrically (4096 points: round-off). */
#include "test_util.h"

#define NQUAD 4096

/* Compensated (Neumaier) sum: 4096 terms summed naively lose ~10 ulps, which a comparison over
 * 30 periods would see. */
typedef struct {
  double s, c;
} ksum;
static void ksum_add(ksum *k, double x) {
  double t = k->s + x;
  k->c += fabs(k->s) >= fabs(x) ? (k->s - t) + x : (x - t) + k->s;
  k->s = t;
}

/* Rotation integrand 1 / |omega(theta)|. */
static double rot_f(double th, double e, double w2) {
  return 1 / sqrt(2 * (e + w2 * cos(th)));
}

/* Rotation period by the trapezoidal rule in theta with nq points. */
static double period_rotation_n(double e, double w2, int nq) {
  ksum k = {0, 0};
  for (int i = 0; i < nq; i++) {
    ksum_add(&k, rot_f(2 * M_PI * i / nq, e, w2));
  }
  return (k.s + k.c) * 2 * M_PI / nq;
}

static double period_rotation(double e, double w2) {
  return period_rotation_n(e, w2, NQUAD);
}

/* Time from theta = 0 to theta = b: int_0^b f, f = a_0/2 + sum_j a_j cos(j theta) (f is even);
 * the Fourier coefficients by the trapezoidal rule over the full period, where they converge
 * geometrically (f is analytic), so int_0^b f = a_0 b / 2 + sum_j a_j sin(j b) / j. */
static double rotation_time_to(double b, double e, double w2) {
  double fj[NQUAD];
  for (int i = 0; i < NQUAD; i++) {
    fj[i] = rot_f(2 * M_PI * i / NQUAD, e, w2);
  }
  ksum total = {0, 0};
  for (int j = 0; j <= 80; j++) {
    ksum a = {0, 0};
    for (int i = 0; i < NQUAD; i++) {
      ksum_add(&a, fj[i] * cos(2 * M_PI * (double)((long)i * j % NQUAD) / NQUAD));
    }
    double aj = 2 * (a.s + a.c) / NQUAD;
    ksum_add(&total, j == 0 ? aj * b / 2 : aj * sin(j * b) / j);
  }
  return total.s + total.c;
}

/* Libration period by the trapezoidal rule in phi (sin(theta/2) = k sin(phi)). */
static double period_libration(double k, double w) {
  ksum s = {0, 0};
  for (int i = 0; i < NQUAD; i++) {
    double ph = 2 * M_PI * i / NQUAD, sp = sin(ph);
    ksum_add(&s, 1 / sqrt(1 - k * k * sp * sp));
  }
  return (s.s + s.c) * 2 * M_PI / NQUAD / w;
}

typedef struct {
  CHSProblem prob;
  const CHSProblemOps *ops;
  void *data;
} pend;

static pend open_problem(const char *spec) {
  pend P;
  P.prob = new_problem(spec);
  P.ops = CHSProblem_GetOps(P.prob);
  P.data = CHSProblem_GetData(P.prob);
  assert_non_null(P.ops->reference);
  return P;
}

/* Through the public accessor (which calls the ops table's reference callback). */
static void ref(pend *P, double t, double *y) {
  assert_int_equal(CHSProblem_Reference(P->prob, t, y, y + 2), 0);
}

/* The papers' pendulum (1, 0, 0, -2): rotating, e = 2, T ~ 3.31 ([Seiler, Dirac] Sec. 6). */
static void test_rotation_period(void **state) {
  (void)state;
  double T = period_rotation(2.0, 1.0);
  /* Quadrature converged: half the points give the same value. */
  CHECK_LE(fabs(period_rotation_n(2.0, 1.0, NQUAD / 2) - T), 2e-15 * T);
  print_message("rotation period of (1,0,0,-2): T = %.15f ([Seiler, Dirac]: T ~ 3.31)\n", T);
  CHECK_LE(fabs(T - 3.31), 0.05);

  pend P = open_problem("pendulum");
  const double y0[4] = {1, 0, 0, -2};
  double y[4], q0[2], p0[2];
  assert_int_equal(P.ops->initial_state(P.data, q0, p0), 0);
  const double yi[4] = {q0[0], q0[1], p0[0], p0[1]};
  assert_true(diff_inf(yi, y0, 4) == 0);
  const int periods[] = {1, 2, 10, 30};
  for (int i = 0; i < 4; i++) {
    ref(&P, periods[i] * T, y);
    double d = diff_inf(y, y0, 4);
    print_message("  |ref(%2d T) - y0| = %.3e\n", periods[i], d);
    CHECK_LE(d, 2e-13);
  }
  /* Intermediate states: starting at theta = pi/2 the pendulum turns clockwise and reaches the
   * bottom (0, -1) at t_b = int_0^{pi/2} dtheta / |omega| with speed sqrt(2 (e + 1)) = sqrt 6
   * moving to the left, p = (-sqrt 6, 0); by symmetry it is at the top (0, 1) with
   * p = (sqrt 2, 0) half a period later. */
  double tb = rotation_time_to(M_PI / 2, 2.0, 1.0);
  CHECK_LE(fabs(2 * rotation_time_to(M_PI, 2.0, 1.0) - T), 1e-14 * T);
  const double ybot[4] = {0, -1, -sqrt(6.0), 0}, ytop[4] = {0, 1, sqrt(2.0), 0};
  print_message("  t_bottom = %.15f\n", tb);
  for (int i = 0; i < 4; i++) {
    ref(&P, periods[i] * T + tb, y);
    print_message("  |ref(%2d T + t_b) - bottom| = %.3e", periods[i], diff_inf(y, ybot, 4));
    CHECK_LE(diff_inf(y, ybot, 4), 2e-13);
    ref(&P, periods[i] * T + tb + T / 2, y);
    print_message(", |ref(%2d T + t_b + T/2) - top| = %.3e\n", periods[i], diff_inf(y, ytop, 4));
    CHECK_LE(diff_inf(y, ytop, 4), 2e-13);
  }
  CHSProblem_Destroy(&P.prob);
}

/* Energy of the reference relative to H0: |p|^2/(2 mass) + mass gravity y. */
static double energy(double mass, double grav, const double *y) {
  return (y[2] * y[2] + y[3] * y[3]) / (2 * mass) + mass * grav * y[1];
}

static void test_libration(void **state) {
  (void)state;
  /* Length 1.5, gravity 2, mass 0.7; theta0 = pi/6 from the bottom, omega0 = 0.4 (p tangent). */
  const double L = 1.5, grav = 2.0, mass = 0.7, th0 = M_PI / 6, om0 = 0.4;
  double y0[4] = {L * sin(th0), -L * cos(th0), mass * L * om0 * cos(th0),
                  mass * L * om0 * sin(th0)};
  char spec[512];
  snprintf(spec, sizeof spec,
           "pendulum:length=%.17g,gravity=%.17g,mass=%.17g,x=%.17g,y=%.17g,px=%.17g,py=%.17g", L,
           grav, mass, y0[0], y0[1], y0[2], y0[3]);
  pend P = open_problem(spec);
  double w2 = grav / L, w = sqrt(w2);
  double e = om0 * om0 / 2 - w2 * cos(th0);
  assert_true(fabs(e) < w2); /* libration */
  double k = sqrt((e + w2) / (2 * w2));
  double T = period_libration(k, w);
  /* Small-amplitude sanity: T a bit above 2 pi / w. */
  print_message("libration: k = %.6f, T = %.15f (2 pi / w = %.6f)\n", k, T, 2 * M_PI / w);
  assert_true(T > 2 * M_PI / w && T < 1.1 * 2 * M_PI / w);

  double H0 = energy(mass, grav, y0), y[4], z[4];
  ref(&P, 0, y);
  CHECK_LE(diff_inf(y, y0, 4), 1e-15);
  rng_seed(7001);
  double emax = 0, dmax = 0, far = 0;
  for (int i = 0; i < 50; i++) {
    double t = rng_uniform(0, 100);
    ref(&P, t, y);
    emax = fmax(emax, fabs(energy(mass, grav, y) - H0) / fabs(H0));
    ref(&P, t + T, z);
    dmax = fmax(dmax, diff_inf(y, z, 4));
    ref(&P, t + T / 2, z);
    far = fmax(far, diff_inf(y, z, 4));
  }
  print_message("libration: max rel. energy error %.3e, max |ref(t+T) - ref(t)| = %.3e\n", emax,
                dmax);
  CHECK_LE(emax, 1e-13);
  CHECK_LE(dmax, 1e-13);
  CHECK_LE(0.1, far); /* half a period later the state differs: the check above is real */
  CHSProblem_Destroy(&P.prob);
}

static void test_reference_constraints(void **state) {
  (void)state;
  const char *specs[] = {"pendulum", "pendulum:length=2.5,mass=3,gravity=9.81,x=2.5,py=-7"};
  const double mass[] = {1, 3};
  for (int s = 0; s < 2; s++) {
    pend P = open_problem(specs[s]);
    rng_seed(8001 + (uint64_t)s);
    double gmax = 0, pmax = 0, y[4], g, G[2];
    for (int i = 0; i < 50; i++) {
      double t = rng_uniform(0, 200);
      ref(&P, t, y);
      /* Independent: g = (x^2 + y^2 - L^2)/2 and psi = (x px + y py)/mass, through the
       * problem's callbacks and typed here. */
      assert_int_equal(P.ops->constraint(P.data, y, &g), 0);
      assert_int_equal(P.ops->jacobian(P.data, y, G), 0);
      gmax = fmax(gmax, fabs(g));
      pmax = fmax(pmax, fabs(G[0] * y[2] + G[1] * y[3]) / mass[s]);
    }
    print_message("%s: max |g| = %.3e, max |psi| = %.3e\n", specs[s], gmax, pmax);
    CHECK_LE(gmax, 1e-14);
    CHECK_LE(pmax, 1e-13);
    CHSProblem_Destroy(&P.prob);
  }
}

/* The reference caches its last state: going back in time must restart from t = 0. */
static void test_reference_decreasing_times(void **state) {
  (void)state;
  pend P = open_problem("pendulum");
  pend F = open_problem("pendulum"); /* fresh instances for each time */
  pend F2 = open_problem("pendulum");
  double a50[4], a10[4], b50[4], f10[4], f50[4];
  ref(&P, 50, a50);
  ref(&P, 10, a10);
  ref(&P, 50, b50);
  ref(&F, 10, f10);
  ref(&F2, 50, f50);
  print_message("t=50 first/again: %.3e; t=10 cached/fresh: %.3e\n", diff_inf(a50, b50, 4),
                diff_inf(a10, f10, 4));
  /* Integrating 0 -> 10 after a reset is the same computation as on a fresh instance. */
  assert_true(diff_inf(a10, f10, 4) == 0);
  assert_true(diff_inf(a50, f50, 4) == 0);
  /* 50 after 10 continues from the cached state: equal to round-off. */
  CHECK_LE(diff_inf(a50, b50, 4), 1e-13);
  /* Many decreasing and increasing times against fresh evaluation. */
  rng_seed(9001);
  for (int i = 0; i < 20; i++) {
    double t = rng_uniform(0, 60), y[4], z[4];
    pend Q = open_problem("pendulum");
    ref(&P, t, y);
    ref(&Q, t, z);
    CHECK_LE(diff_inf(y, z, 4), 1e-13);
    CHSProblem_Destroy(&Q.prob);
  }
  CHSProblem_Destroy(&P.prob);
  CHSProblem_Destroy(&F.prob);
  CHSProblem_Destroy(&F2.prob);
}

/* A problem without a reference says so; negative times are rejected. */
static void test_reference_unsupported(void **state) {
  (void)state;
  CHSProblem prob = NULL;
  double q[4], p[4];
  assert_int_equal(CHSProblem_Create("double-pendulum", &prob, NULL), 0);
  assert_null(CHSProblem_GetOps(prob)->reference);
  assert_int_equal(CHSProblem_Reference(prob, 1.0, q, p), CHS_ERR_UNSUPPORTED);
  CHSProblem_Destroy(&prob);
  pend P = open_problem("pendulum");
  assert_true(CHSProblem_Reference(P.prob, -1.0, q, p) < 0);
  assert_true(CHSProblem_Reference(P.prob, NAN, q, p) < 0);
  CHSProblem_Destroy(&P.prob);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rotation_period),
      cmocka_unit_test(test_libration),
      cmocka_unit_test(test_reference_constraints),
      cmocka_unit_test(test_reference_decreasing_times),
      cmocka_unit_test(test_reference_unsupported),
  };
  return cmocka_run_group_tests_name("reference", tests, NULL, NULL);
}
