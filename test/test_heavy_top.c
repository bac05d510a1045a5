/* The heavy symmetric top in Euler parameters (problems/heavy_top.c).
 *
 * Independent truths, typed here without the problem's E(q) matrix:
 *   - the body angular velocity from quaternion algebra, w = 2 vec(conj(q) * q'): the kinetic
 *     energy 1/2 q'^T M(q) q' equals 1/2 w^T J w for tangent q' (and c/2 (q . q')^2 off it);
 *   - the rotation matrix R(q) from rotating basis vectors with q * (0, x) * conj(q): the
 *     potential is mgl (R e3)_z;
 *   - the Euler equations J w' = (J w) x w - mgl e3 x gamma (gamma = R^T ez) with the quaternion
 *     kinematics q' = 1/2 q * (0, w), integrated here by classical RK4 with a small step: chs's
 *     runs (dirac + erk:dp5, dae-ggl + ida) agree with it at t = 1 to 1e-8;
 *   - along those runs H and the two angular momenta (vertical, body axis) stay constant to the
 *     tolerance, the RK4 solution's own angular momenta likewise;
 *   - steady precession (steady=1): the closed-form reference agrees with the RK4 solution, and
 *     chs's runs reach it;
 *   - CHSProblem_Check (finite differences of every callback) passes. */
#include "test_util.h"
#include "chs/check.h"

#define N 4

/* Quaternion product a * b, scalar first. */
static void qmul(const double *a, const double *b, double *c) {
  c[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  c[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  c[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  c[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}

/* x rotated by the unit quaternion q: vec(q * (0, x) * conj(q)). */
static void qrot(const double *q, const double *x, double *y) {
  double a[4] = {0, x[0], x[1], x[2]}, t[4], r[4], qc[4] = {q[0], -q[1], -q[2], -q[3]};
  qmul(q, a, t);
  qmul(t, qc, r);
  y[0] = r[1];
  y[1] = r[2];
  y[2] = r[3];
}

/* gamma = R^T ez = ez rotated by conj(q). */
static void gamma_of(const double *q, double *gam) {
  double qc[4] = {q[0], -q[1], -q[2], -q[3]}, ez[3] = {0, 0, 1};
  qrot(qc, ez, gam);
}

static void cross(const double *a, const double *b, double *c) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

typedef struct {
  double J1, J3, mgl;
} top;

/* y = (q[4], w[3]): y' of the Euler equations and quaternion kinematics. */
static void top_rhs(const top *T, const double *y, double *yd) {
  const double *q = y, *w = y + 4;
  double J[3] = {T->J1, T->J1, T->J3}, Jw[3] = {J[0] * w[0], J[1] * w[1], J[2] * w[2]};
  double wq[4] = {0, w[0], w[1], w[2]}, qd[4], gam[3], c1[3], c2[3], e3[3] = {0, 0, 1};
  qmul(q, wq, qd);
  for (int i = 0; i < 4; i++) {
    yd[i] = qd[i] / 2;
  }
  gamma_of(q, gam);
  cross(Jw, w, c1);
  cross(e3, gam, c2);
  for (int i = 0; i < 3; i++) {
    yd[4 + i] = (c1[i] - T->mgl * c2[i]) / J[i];
  }
}

static void rk4(const top *T, double *y, double tf, long steps) {
  double h = tf / (double)steps, k1[7], k2[7], k3[7], k4[7], z[7];
  for (long s = 0; s < steps; s++) {
    top_rhs(T, y, k1);
    for (int i = 0; i < 7; i++) {
      z[i] = y[i] + h / 2 * k1[i];
    }
    top_rhs(T, z, k2);
    for (int i = 0; i < 7; i++) {
      z[i] = y[i] + h / 2 * k2[i];
    }
    top_rhs(T, z, k3);
    for (int i = 0; i < 7; i++) {
      z[i] = y[i] + h * k3[i];
    }
    top_rhs(T, z, k4);
    for (int i = 0; i < 7; i++) {
      y[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    }
  }
}

/* Body angular velocity from (q, q'): 2 vec(conj(q) * q'). */
static void omega_of(const double *q, const double *qd, double *w) {
  double qc[4] = {q[0], -q[1], -q[2], -q[3]}, r[4];
  qmul(qc, qd, r);
  w[0] = 2 * r[1];
  w[1] = 2 * r[2];
  w[2] = 2 * r[3];
}

/* (q, w) of the problem's initial state: w from q' = M(q)^{-1} p, solved here by Gaussian
 * elimination on the problem's M. */
static void solve4(const double *M, const double *b, double *x) {
  double A[N][N + 1];
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < N; j++) {
      A[i][j] = M[i * N + j];
    }
    A[i][N] = b[i];
  }
  for (int k = 0; k < N; k++) {
    int piv = k;
    for (int i = k + 1; i < N; i++) {
      if (fabs(A[i][k]) > fabs(A[piv][k])) {
        piv = i;
      }
    }
    for (int j = 0; j <= N; j++) {
      double t = A[k][j];
      A[k][j] = A[piv][j];
      A[piv][j] = t;
    }
    for (int i = k + 1; i < N; i++) {
      double f = A[i][k] / A[k][k];
      for (int j = k; j <= N; j++) {
        A[i][j] -= f * A[k][j];
      }
    }
  }
  for (int i = N - 1; i >= 0; i--) {
    double s = A[i][N];
    for (int j = i + 1; j < N; j++) {
      s -= A[i][j] * x[j];
    }
    x[i] = s / A[i][i];
  }
}

static void qdot_of(CHSProblem prob, const double *q, const double *p, double *qd) {
  cb c = callbacks(prob);
  double M[N * N];
  assert_int_equal(c.ops->mass_matrix(c.data, q, M), 0);
  solve4(M, p, qd);
}

/* The independent state (q, w) at t from the problem's initial state. */
static void independent(CHSProblem prob, const top *T, double tf, double *y) {
  cb c = callbacks(prob);
  double p[N], qd[N];
  assert_int_equal(c.ops->initial_state(c.data, y, p), 0);
  qdot_of(prob, y, p, qd);
  omega_of(y, qd, y + 4);
  rk4(T, y, tf, 4000);
}

/* Energy, vertical and body-axis angular momentum of (q, w) (unit q), independently. */
static void top_integrals(const top *T, const double *y, double *I) {
  const double *q = y, *w = y + 4;
  double Jw[3] = {T->J1 * w[0], T->J1 * w[1], T->J3 * w[2]}, Ls[3], e3[3] = {0, 0, 1}, a[3];
  qrot(q, e3, a);
  qrot(q, Jw, Ls);
  I[0] = (Jw[0] * w[0] + Jw[1] * w[1] + Jw[2] * w[2]) / 2 + T->mgl * a[2];
  I[1] = Ls[2];
  I[2] = Jw[2];
}

static void test_kinetic_potential(void **state) {
  (void)state;
  rng_seed(7);
  CHSProblem prob = new_problem("heavy-top:J1=1.3,J3=0.7,mgl=2.1,c=3");
  cb c = callbacks(prob);
  const top T = {1.3, 0.7, 2.1};
  for (int trial = 0; trial < 10; trial++) {
    double q[N], qd[N], M[N * N], w[3], r = 0, s = 0;
    for (int i = 0; i < N; i++) {
      q[i] = rng_uniform(-1, 1);
      qd[i] = rng_uniform(-2, 2);
      r += q[i] * q[i];
    }
    for (int i = 0; i < N; i++) {
      q[i] /= sqrt(r);
      s += q[i] * qd[i];
    }
    assert_int_equal(c.ops->mass_matrix(c.data, q, M), 0);
    double Tq = 0;
    for (int i = 0; i < N; i++) {
      for (int j = 0; j < N; j++) {
        Tq += qd[i] * M[i * N + j] * qd[j] / 2;
      }
    }
    /* w of the tangent part of q'; the normal part only meets the c term */
    double qt[N];
    for (int i = 0; i < N; i++) {
      qt[i] = qd[i] - s * q[i];
    }
    omega_of(q, qt, w);
    double Tw = (T.J1 * (w[0] * w[0] + w[1] * w[1]) + T.J3 * w[2] * w[2]) / 2 + 3 * s * s / 2;
    CHECK_NEAR(Tq, Tw, 1e-12 * (1 + fabs(Tw)));
    double V, e3[3] = {0, 0, 1}, a[3];
    assert_int_equal(c.ops->potential(c.data, q, &V), 0);
    qrot(q, e3, a);
    CHECK_NEAR(V, T.mgl * a[2], 1e-13);
    /* invariants of (q, p = M q') against the independent ones of (q, w) */
    double p[N], inv[2], y[7], I[3];
    for (int i = 0; i < N; i++) {
      p[i] = 0;
      for (int j = 0; j < N; j++) {
        p[i] += M[i * N + j] * qt[j];
      }
    }
    assert_int_equal(c.ops->invariants(c.data, q, p, inv), 0);
    memcpy(y, q, sizeof q);
    memcpy(y + 4, w, sizeof w);
    top_integrals(&T, y, I);
    CHECK_NEAR(inv[0], I[1], 1e-12);
    CHECK_NEAR(inv[1], I[2], 1e-12);
  }
  CHSProblem_Destroy(&prob);
}

static void test_check(void **state) {
  (void)state;
  static const char *const specs[] = {"heavy-top", "heavy-top:steady=1,theta0=1.1,prec=2"};
  for (int k = 0; k < 2; k++) {
    CHSProblem prob = new_problem(specs[k]);
    CHSCheckOptions opt;
    CHSCheckOptions_Default(&opt);
    CHSCheckReport rep;
    CHSError err;
    CHSError_Clear(&err);
    int rc = CHSProblem_Check(prob, &opt, &rep, &err);
    if (rc != 0 || rep.n_fail != 0) {
      print_error("check %s: rc %d, %d failures: %s\n", specs[k], rc, rep.n_fail, err.msg);
    }
    assert_int_equal(rc, 0);
    assert_int_equal(rep.n_fail, 0);
    CHECK_GT(rep.n_pass, 5);
    CHSProblem_Destroy(&prob);
  }
}

typedef struct {
  double t, q[N], p[N];
} final_state;

static int keep_final(const CHSRecord *rec, void *ctx) {
  final_state *fs = ctx;
  fs->t = rec->t;
  memcpy(fs->q, rec->q, sizeof fs->q);
  memcpy(fs->p, rec->p, sizeof fs->p);
  return 0;
}

static CHSRunSummary run_top(const char *spec, const char *form, const char *method, double tol,
                             double tf, final_state *fs) {
  CHSProblem prob = new_problem(spec);
  CHSFormulation f = new_formulation(form, prob, test_context());
  CHSRunOptions o = run_options(method, 0, tf);
  o.ctl.rtol = tol;
  o.ctl.atol = tol;
  o.every = 1;
  CHSRunSummary s = run_monitored_ok(f, &o, keep_final, fs);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
  return s;
}

/* chs's runs against the independent RK4 solution at t = 1, and their invariants. */
static void test_against_euler_equations(void **state) {
  (void)state;
  const char *spec = "heavy-top";
  const top T = {1, 0.5, 1};
  CHSProblem prob = new_problem(spec);
  double y[7], I0[3], I1[3], y0[7];
  independent(prob, &T, 0, y0);
  independent(prob, &T, 1, y);
  top_integrals(&T, y0, I0);
  top_integrals(&T, y, I1);
  for (int k = 0; k < 3; k++) { /* RK4's own integrals: its step is small enough */
    CHECK_NEAR(I1[k], I0[k], 1e-11 * (1 + fabs(I0[k])));
  }
  CHECK_GT(diff_inf(y, y0, 4), 0.5); /* the top moved */
  static const struct {
    const char *form, *method;
    double tol, inv_tol;
  } cfg[] = {{"dirac", "erk:dp5", 1e-12, 1e-9}, {"dae-ggl", "ida", 1e-11, 1e-8}};
  for (int k = 0; k < 2; k++) {
    final_state fs;
    CHSRunSummary s = run_top(spec, cfg[k].form, cfg[k].method, cfg[k].tol, 1, &fs);
    double qd[N], w[3];
    qdot_of(prob, fs.q, fs.p, qd);
    omega_of(fs.q, qd, w);
    double eq = diff_inf(fs.q, y, 4), ew = diff_inf(w, y + 4, 3);
    print_message("heavy-top %-8s %-8s tol %.0e: |q - q_rk4| = %.2e |w - w_rk4| = %.2e  "
                  "energy %.2e vertical %.2e spin %.2e  |g| %.2e  evals %ld\n",
                  cfg[k].form, cfg[k].method, cfg[k].tol, eq, ew, (double)s.diag.energy_err_max,
                  (double)s.diag.invariant_err_max[0], (double)s.diag.invariant_err_max[1],
                  (double)s.diag.pos_res_max, s.rhs_evals);
    CHECK_NEAR(fs.t, 1, 1e-14);
    CHECK_LE(eq, 1e-8);
    CHECK_LE(ew, 1e-7);
    assert_int_equal(s.diag.n_invariants, 2);
    CHECK_LE(s.diag.energy_err_max, cfg[k].inv_tol);
    CHECK_LE(s.diag.invariant_err_max[0], cfg[k].inv_tol);
    CHECK_LE(s.diag.invariant_err_max[1], cfg[k].inv_tol);
    CHECK_NEAR(s.diag.invariant0[0], I0[1], 1e-13);
    CHECK_NEAR(s.diag.invariant0[1], I0[2], 1e-13);
  }
  CHSProblem_Destroy(&prob);
}

/* A long run (about 60 turns of the spin) at tolerance 1e-8: dirac + dp5 keeps H and the two
 * momenta to ~1e-9 relative; IDA's BDF (order <= 5, no conservation property) drifts like its
 * global error, ~3e-5 relative here (measured), bounded at 1e-4. */
static void test_invariants_long(void **state) {
  (void)state;
  static const struct {
    const char *form, *method;
    double tol, bound;
  } cfg[] = {{"dirac", "erk:dp5", 1e-8, 5e-9}, {"dae-ggl", "ida", 1e-8, 1e-4}};
  for (int k = 0; k < 2; k++) {
    final_state fs;
    CHSRunSummary s =
        run_top("heavy-top:spin=20,theta0=1", cfg[k].form, cfg[k].method, cfg[k].tol, 20, &fs);
    double rv = s.diag.invariant_err_max[0] / fabs(s.diag.invariant0[0]);
    double rs = s.diag.invariant_err_max[1] / fabs(s.diag.invariant0[1]);
    print_message("heavy-top t=20 %-8s %-8s: energy %.2e vertical %.2e spin %.2e |g| %.2e "
                  "|psi| %.2e\n",
                  cfg[k].form, cfg[k].method, (double)s.diag.energy_err_max,
                  (double)s.diag.invariant_err_max[0], (double)s.diag.invariant_err_max[1],
                  (double)s.diag.pos_res_max, (double)s.diag.mom_res_max);
    print_message("  relative drift: vertical %.2e spin %.2e\n", rv, rs);
    CHECK_LE(s.diag.energy_err_max, cfg[k].bound);
    CHECK_LE(rv, cfg[k].bound);
    CHECK_LE(rs, cfg[k].bound);
    CHECK_LE(s.diag.pos_res_max, 1e-7);
  }
}

/* Steady precession: the closed form is a solution of the Euler equations, and chs reaches it. */
static void test_steady_precession(void **state) {
  (void)state;
  const char *spec = "heavy-top:steady=1,theta0=0.8,prec=1.5,J3=0.8,mgl=2";
  const top T = {1, 0.8, 2};
  CHSProblem prob = new_problem(spec);
  cb c = callbacks(prob);
  double y[7], qr[N], pr[N], qd[N], w[3];
  independent(prob, &T, 1, y);
  assert_int_equal(c.ops->reference(c.data, 1, qr, pr), 0);
  qdot_of(prob, qr, pr, qd);
  omega_of(qr, qd, w);
  CHECK_LE(diff_inf(qr, y, 4), 1e-11);
  CHECK_LE(diff_inf(w, y + 4, 3), 1e-10);
  /* the nutation stays at theta0: (R e3)_z = cos theta0 */
  double e3[3] = {0, 0, 1}, a[3];
  qrot(qr, e3, a);
  CHECK_NEAR(a[2], cos(0.8), 1e-14);
  /* without steady=1 there is no reference */
  CHSProblem plain = new_problem("heavy-top");
  CHECK_GT(CHSProblem_GetOps(plain)->reference(CHSProblem_GetData(plain), 1, qr, pr), 0);
  CHSProblem_Destroy(&plain);
  static const struct {
    const char *form, *method;
    double tol, bound;
  } cfg[] = {{"dirac", "erk:dp5", 1e-10, 1e-8}, {"dae-ggl", "ida", 1e-10, 1e-6}};
  for (int k = 0; k < 2; k++) {
    final_state fs;
    CHSRunSummary s = run_top(spec, cfg[k].form, cfg[k].method, cfg[k].tol, 5, &fs);
    print_message("heavy-top steady %-8s %-8s: int_err %.2e\n", cfg[k].form, cfg[k].method,
                  (double)s.diag.int_err_max);
    assert_int_equal(s.diag.has_reference, 1);
    CHECK_LE(s.diag.int_err_max, cfg[k].bound);
  }
  CHSProblem_Destroy(&prob);
}

/* Bad parameters are refused, naming the value. */
static void test_bad_params(void **state) {
  (void)state;
  static const char *const bad[] = {"heavy-top:steady=1,prec=0", "heavy-top:steady=1,spin=3",
                                    "heavy-top:J1=0", "heavy-top:c=-1", "heavy-top:steady=2"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    CHSProblem prob = NULL;
    CHSError err;
    CHSError_Clear(&err);
    int rc = CHSProblem_Create(bad[k], &prob, &err);
    assert_int_equal(rc, CHS_ERR_ARG);
    assert_null(prob);
    CHECK_GT(strlen(err.msg), 10);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_kinetic_potential),       cmocka_unit_test(test_check),
      cmocka_unit_test(test_against_euler_equations), cmocka_unit_test(test_invariants_long),
      cmocka_unit_test(test_steady_precession),       cmocka_unit_test(test_bad_params),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
