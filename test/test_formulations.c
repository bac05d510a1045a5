/* Right-hand sides of the formulations against independent truth:
 *   - standard and Hamilton-Dirac agree on the constraint manifold (pendulum, double pendulum);
 *   - off the manifold, g and psi are first integrals of the Dirac flow (d/dt g = d/dt psi = 0),
 *     while the standard flow has d/dt g = psi != 0;
 *   - the generic kernels equal the closed forms printed in the papers for the pendulum:
 *     [Seiler, Dirac] eq. (35)-(36) (Dirac), [Seiler, stable] eq. (44) (Dirac), [Seiler, Dirac] eq.
 * (38) (standard);
 *   - dense and CSR storage of G give the same right-hand sides;
 *   - the problem callbacks are mutually consistent (finite differences);
 *   - a singular Gram matrix is a recoverable failure with a message. */
#include <nvector/nvector_serial.h>
#include "test_util.h"

#define NSAMPLES 20

/* ------------------------------------------------------------------ helpers */

/* A formulation of prob on the group's context; the formulations tested here have y = (q, p). */
static CHSFormulation new_qp_formulation(const char *name, CHSProblem prob) {
  CHSFormulation f = new_formulation(name, prob, test_context());
  assert_int_equal(CHSFormulation_GetStateSize(f), 2 * CHSProblem_GetDims(prob)->n);
  return f;
}

/* ydot = f(y) through the public ARKRhsFn; returns its code. */
static int eval_rhs(CHSFormulation f, const double *y, double *ydot) {
  sunindextype N = CHSFormulation_GetStateSize(f);
  N_Vector vy = N_VNew_Serial(N, test_context()), vd = N_VNew_Serial(N, test_context());
  assert_non_null(vy);
  assert_non_null(vd);
  memcpy(N_VGetArrayPointer(vy), y, (size_t)N * sizeof *y);
  for (sunindextype i = 0; i < N; i++) {
    N_VGetArrayPointer(vd)[i] = NAN;
  }
  int rc = CHSFormulation_Rhs(0.0, vy, vd, f);
  memcpy(ydot, N_VGetArrayPointer(vd), (size_t)N * sizeof *ydot);
  N_VDestroy(vy);
  N_VDestroy(vd);
  return rc;
}

/* A Jacobian-shaped array (G or Gdot, in the problem's layout) expanded to dense m x n
 * row-major. */
static void to_dense(const CHSProblemDims *d, const double *J, double *D) {
  int n = (int)d->n, m = (int)d->m;
  if (d->jac_kind == CHS_JAC_DENSE) {
    memcpy(D, J, (size_t)(m * n) * sizeof *D);
    return;
  }
  memset(D, 0, (size_t)(m * n) * sizeof *D);
  for (int i = 0; i < m; i++) {
    for (sunindextype k = d->rowptr[i]; k < d->rowptr[i + 1]; k++) {
      D[i * n + d->colind[k]] = J[k];
    }
  }
}

static int jac_size(const CHSProblemDims *d) {
  return d->jac_kind == CHS_JAC_CSR ? (int)d->nnz : (int)(d->m * d->n);
}

/* Inverse mass (the problems here have identity or diagonal mass). */
static double minv_entry(const CHSProblemDims *d, int i) {
  assert_true(d->mass_kind == CHS_MASS_IDENTITY || d->mass_kind == CHS_MASS_DIAGONAL);
  return d->mass_kind == CHS_MASS_IDENTITY ? 1.0 : 1.0 / d->mass[i];
}

static void matvec(const double *A, int m, int n, const double *x, double *y) {
  for (int i = 0; i < m; i++) {
    y[i] = 0;
    for (int j = 0; j < n; j++) {
      y[i] += A[i * n + j] * x[j];
    }
  }
}

/* ------------------------------------------------------------------ consistent states */

/* Pendulum of length L, mass mass: angle th from the downward vertical, angular velocity om. */
static void pendulum_state(double L, double mass, double th, double om, double *y) {
  y[0] = L * sin(th);
  y[1] = -L * cos(th);
  y[2] = mass * L * om * cos(th);
  y[3] = mass * L * om * sin(th);
}

/* Double pendulum: angles from the downward vertical, angular velocities. */
static void dpend_state(double m1, double m2, double L1, double L2, double th1, double th2,
                        double om1, double om2, double *y) {
  double v[4];
  y[0] = L1 * sin(th1);
  y[1] = -L1 * cos(th1);
  y[2] = y[0] + L2 * sin(th2);
  y[3] = y[1] - L2 * cos(th2);
  v[0] = L1 * om1 * cos(th1);
  v[1] = L1 * om1 * sin(th1);
  v[2] = v[0] + L2 * om2 * cos(th2);
  v[3] = v[1] + L2 * om2 * sin(th2);
  y[4] = m1 * v[0];
  y[5] = m1 * v[1];
  y[6] = m2 * v[2];
  y[7] = m2 * v[3];
}

static void check_state_consistent(CHSProblem prob, const double *y) {
  const CHSProblemOps *ops = CHSProblem_GetOps(prob);
  const CHSProblemDims *d = CHSProblem_GetDims(prob);
  int n = (int)d->n, m = (int)d->m;
  double g[4] = {0}, G[16] = {0}, Gd[16] = {0}, v[8] = {0}, psi[4] = {0};
  assert_int_equal(ops->constraint(CHSProblem_GetData(prob), y, g), 0);
  assert_int_equal(ops->jacobian(CHSProblem_GetData(prob), y, G), 0);
  to_dense(d, G, Gd);
  for (int i = 0; i < n; i++) {
    v[i] = minv_entry(d, i) * y[n + i];
  }
  matvec(Gd, m, n, v, psi);
  CHECK_LE(norm_inf(g, m), 1e-14 * (1 + norm2(y, n) * norm2(y, n)));
  CHECK_LE(norm_inf(psi, m), 1e-14 * (1 + norm2(y, n) * norm2(v, n)));
}

static void compare_std_dirac(const char *spec, const double *y) {
  CHSProblem prob = new_problem(spec);
  CHSFormulation fs = new_qp_formulation("standard", prob);
  CHSFormulation fd = new_qp_formulation("dirac", prob);
  int N = (int)CHSFormulation_GetStateSize(fs);
  double ds[8], dd[8];
  check_state_consistent(prob, y);
  assert_int_equal(eval_rhs(fs, y, ds), 0);
  assert_int_equal(eval_rhs(fd, y, dd), 0);
  double scale = fmax(norm_inf(ds, N), norm_inf(dd, N));
  CHECK_GT(scale, 0.1);
  CHECK_LE(diff_inf(ds, dd, N), 1e-13 * scale);
  CHSFormulation_Destroy(&fs);
  CHSFormulation_Destroy(&fd);
  CHSProblem_Destroy(&prob);
}

static void test_std_dirac_agree_pendulum(void **state) {
  (void)state;
  rng_seed(1001);
  const struct {
    const char *spec;
    double L, mass, gravity;
  } cases[] = {
      {"pendulum", 1, 1, 1},
      {"pendulum:length=1.7,mass=0.6,gravity=2.3", 1.7, 0.6, 2.3},
      {"pendulum:length=0.4,mass=3.5,gravity=9.81", 0.4, 3.5, 9.81},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    CHSProblem prob = new_problem(cases[c].spec);
    CHSFormulation fs = new_qp_formulation("standard", prob);
    CHSFormulation fd = new_qp_formulation("dirac", prob);
    for (int k = 0; k < NSAMPLES; k++) {
      double y[4], ds[4], dd[4], ref[4];
      double th = rng_uniform(-M_PI, M_PI), om = rng_uniform(-3, 3);
      double L = cases[c].L, mass = cases[c].mass, grav = cases[c].gravity;
      pendulum_state(L, mass, th, om, y);
      check_state_consistent(prob, y);
      assert_int_equal(eval_rhs(fs, y, ds), 0);
      assert_int_equal(eval_rhs(fd, y, dd), 0);
      /* Independent truth on the manifold: q' = p/m, p' = -m g e_y - lam q with the tension
       * lam = m (|v|^2 - g y) / L^2 (centripetal + gravity), i.e. the state space form. */
      double lam = mass * (L * L * om * om - grav * y[1]) / (L * L);
      ref[0] = y[2] / mass;
      ref[1] = y[3] / mass;
      ref[2] = -lam * y[0];
      ref[3] = -mass * grav - lam * y[1];
      double scale = norm_inf(ref, 4) + mass * grav;
      CHECK_LE(diff_inf(ds, dd, 4), 1e-13 * scale);
      CHECK_LE(diff_inf(ds, ref, 4), 1e-13 * scale);
      CHECK_LE(diff_inf(dd, ref, 4), 1e-13 * scale);
    }
    CHSFormulation_Destroy(&fs);
    CHSFormulation_Destroy(&fd);
    CHSProblem_Destroy(&prob);
  }
}

static void test_std_dirac_agree_double_pendulum(void **state) {
  (void)state;
  rng_seed(1002);
  const struct {
    const char *spec;
    double m1, m2, L1, L2;
  } cases[] = {
      {"double-pendulum:sparse=0", 1, 2, 1, 1.5},
      {"double-pendulum:sparse=1", 1, 2, 1, 1.5},
      {"double-pendulum:m1=1,m2=3,L1=0.7,L2=1.3,gravity=9.81,sparse=1", 1, 3, 0.7, 1.3},
      {"double-pendulum:m1=1,m2=3,L1=0.7,L2=1.3,gravity=9.81,sparse=0", 1, 3, 0.7, 1.3},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    for (int k = 0; k < NSAMPLES; k++) {
      double y[8];
      double th1 = rng_uniform(-M_PI, M_PI), th2 = rng_uniform(-M_PI, M_PI);
      double om1 = rng_uniform(-2, 2), om2 = rng_uniform(-2, 2);
      dpend_state(cases[c].m1, cases[c].m2, cases[c].L1, cases[c].L2, th1, th2, om1, om2, y);
      compare_std_dirac(cases[c].spec, y);
    }
  }
}

/* ------------------------------------------------------------------ off the manifold */

/* Random double-pendulum state with |q1| and |q2 - q1| in [0.5, 2] (so G has full rank and Q
 * is well conditioned) and p in [-2, 2]^4: generically far from g = 0 and psi = 0. */
static void dpend_random_off(double *y) {
  double r1 = rng_uniform(0.5, 2), a1 = rng_uniform(-M_PI, M_PI);
  double r2 = rng_uniform(0.5, 2), a2 = rng_uniform(-M_PI, M_PI);
  y[0] = r1 * cos(a1);
  y[1] = r1 * sin(a1);
  y[2] = y[0] + r2 * cos(a2);
  y[3] = y[1] + r2 * sin(a2);
  for (int i = 4; i < 8; i++) {
    y[i] = rng_uniform(-2, 2);
  }
}

static void test_dirac_invariants_off_manifold(void **state) {
  (void)state;
  const char *specs[] = {"double-pendulum:m1=1,m2=3,sparse=1",
                         "double-pendulum:m1=1,m2=3,sparse=0"};
  for (size_t c = 0; c < 2; c++) {
    rng_seed(2001);
    CHSProblem prob = new_problem(specs[c]);
    CHSFormulation fd = new_qp_formulation("dirac", prob);
    CHSFormulation fs = new_qp_formulation("standard", prob);
    const CHSProblemOps *ops = CHSProblem_GetOps(prob);
    const CHSProblemDims *d = CHSProblem_GetDims(prob);
    void *data = CHSProblem_GetData(prob);
    assert_int_equal(d->n, 4);
    assert_int_equal(d->m, 2);
    assert_int_equal(d->jac_kind, c == 0 ? CHS_JAC_CSR : CHS_JAC_DENSE);
    const int n = 4, m = 2;
    double min_std_dg = INFINITY, min_Sw = INFINITY, max_g = 0, rel_dg = 0, rel_dpsi = 0;
    for (int k = 0; k < NSAMPLES; k++) {
      double y[8], yd[8], ys[8];
      dpend_random_off(y);
      const double *q = y, *p = y + n;
      assert_int_equal(eval_rhs(fd, y, yd), 0);
      assert_int_equal(eval_rhs(fs, y, ys), 0);
      const double *qdot = yd, *pdot = yd + n;

      double g[2], Gs[8], Gds[8], G[8], Gdq[8], Gdv[8];
      assert_int_equal(ops->constraint(data, q, g), 0);
      max_g = fmax(max_g, norm_inf(g, m));
      assert_int_equal(ops->jacobian(data, q, Gs), 0);
      to_dense(d, Gs, G);
      assert_int_equal(ops->jacobian_dot(data, q, qdot, Gds), 0);
      to_dense(d, Gds, Gdq);

      double Minvp[4], Minvpdot[4], v[4];
      for (int i = 0; i < n; i++) {
        Minvp[i] = minv_entry(d, i) * p[i];
        Minvpdot[i] = minv_entry(d, i) * pdot[i];
        v[i] = Minvp[i];
      }
      /* d/dt g = G qdot. */
      double dg[2];
      matvec(G, m, n, qdot, dg);
      double nG = norm2(G, m * n);
      CHECK_LE(norm2(dg, m), 1e-12 * nG * norm2(qdot, n));
      rel_dg = fmax(rel_dg, norm2(dg, m) / (nG * norm2(qdot, n)));
      /* d/dt psi = Gdot(q, qdot) M^{-1} p + G M^{-1} pdot. */
      double t1[2], t2[2], dpsi[2];
      matvec(Gdq, m, n, Minvp, t1);
      matvec(G, m, n, Minvpdot, t2);
      for (int i = 0; i < m; i++) {
        dpsi[i] = t1[i] + t2[i];
      }
      double scale = norm2(Gdq, m * n) * norm2(Minvp, n) + nG * norm2(Minvpdot, n);
      CHECK_GT(scale, 0.1);
      CHECK_LE(norm2(dpsi, m), 1e-12 * scale);
      rel_dpsi = fmax(rel_dpsi, norm2(dpsi, m) / scale);

      /* It is a real test: the standard ODE has d/dt g = G v = psi != 0 here ... */
      double dgs[2];
      matvec(G, m, n, ys, dgs);
      min_std_dg = fmin(min_std_dg, norm2(dgs, m));
      /* ... and the skew term S w of the Dirac equations (S = K - K^T, K = Gdot(q,v) M^{-1}
       * G^T, w = Q^{-1} psi) is far from zero with unequal masses, so an implementation that
       * dropped it would fail the d/dt psi check. */
      double MinvGt[8], Q[4], K[4], psi[2], w[2], Sw[2];
      assert_int_equal(ops->jacobian_dot(data, q, v, Gds), 0);
      to_dense(d, Gds, Gdv);
      for (int j = 0; j < m; j++) {
        for (int i = 0; i < n; i++) {
          MinvGt[i * m + j] = minv_entry(d, i) * G[j * n + i];
        }
      }
      for (int i = 0; i < m; i++) {
        for (int j = 0; j < m; j++) {
          Q[i * m + j] = K[i * m + j] = 0;
          for (int l = 0; l < n; l++) {
            Q[i * m + j] += G[i * n + l] * MinvGt[l * m + j];
            K[i * m + j] += Gdv[i * n + l] * MinvGt[l * m + j];
          }
        }
      }
      matvec(G, m, n, v, psi);
      double det = Q[0] * Q[3] - Q[1] * Q[2];
      w[0] = (Q[3] * psi[0] - Q[1] * psi[1]) / det;
      w[1] = (-Q[2] * psi[0] + Q[0] * psi[1]) / det;
      Sw[0] = (K[1] - K[2]) * w[1];
      Sw[1] = (K[2] - K[1]) * w[0];
      min_Sw = fmin(min_Sw, norm2(Sw, m));
    }
    print_message("%s: dirac max rel. |dg/dt| = %.2e, |dpsi/dt| = %.2e; standard min |dg/dt| = "
                  "%.3e; min |S w| = %.3e; max |g| = %.3e\n",
                  specs[c], rel_dg, rel_dpsi, min_std_dg, min_Sw, max_g);
    CHECK_GT(min_std_dg, 1e-3);
    CHECK_GT(min_Sw, 1e-3);
    CHECK_GT(max_g, 0.1);
    CHSFormulation_Destroy(&fd);
    CHSFormulation_Destroy(&fs);
    CHSProblem_Destroy(&prob);
  }
}

/* ------------------------------------------------------------------ closed forms (pendulum) */

static void test_pendulum_closed_forms(void **state) {
  (void)state;
  rng_seed(3001);
  CHSProblem prob = new_problem("pendulum:length=1,gravity=1,mass=1");
  CHSFormulation fs = new_qp_formulation("standard", prob);
  CHSFormulation fd = new_qp_formulation("dirac", prob);
  double max_off = 0, r35 = 0, r44 = 0, r38 = 0;
  for (int k = 0; k < NSAMPLES; k++) {
    double rad = rng_uniform(0.3, 2), ang = rng_uniform(-M_PI, M_PI);
    double x = rad * cos(ang), y = rad * sin(ang);
    double px = rng_uniform(-3, 3), py = rng_uniform(-3, 3);
    double st[4] = {x, y, px, py}, ds[4], dd[4];
    double r2 = x * x + y * y;
    max_off = fmax(max_off, fabs(r2 - 1));
    assert_int_equal(eval_rhs(fs, st, ds), 0);
    assert_int_equal(eval_rhs(fd, st, dd), 0);

    /* [Seiler, Dirac] (35)-(36). */
    double lam = -(px * px + py * py - y) / r2;
    double mu = -(x * px + y * py) / r2;
    double e35[4] = {px + mu * x, py + mu * y, lam * x - mu * px, lam * y - mu * py - 1};
    /* [Seiler, stable] (44): its mu is (px^2 + py^2 - y)/(x^2 + y^2), psi = x px + y py. */
    double mu1 = (px * px + py * py - y) / (x * x + y * y), psi = x * px + y * py;
    double e44[4] = {px - x / (x * x + y * y) * psi, py - y / (x * x + y * y) * psi,
                     -mu1 * x + px / (x * x + y * y) * psi,
                     -mu1 * y - 1 + py / (x * x + y * y) * psi};
    /* [Seiler, Dirac] (38) with lambda from (36). */
    double e38[4] = {px, py, lam * x, lam * y - 1};

    double s35 = norm_inf(e35, 4) + 1, s38 = norm_inf(e38, 4) + 1;
    CHECK_LE(diff_inf(dd, e35, 4), 1e-13 * s35);
    CHECK_LE(diff_inf(dd, e44, 4), 1e-13 * s35);
    CHECK_LE(diff_inf(ds, e38, 4), 1e-13 * s38);
    r35 = fmax(r35, diff_inf(dd, e35, 4) / s35);
    r44 = fmax(r44, diff_inf(dd, e44, 4) / s35);
    r38 = fmax(r38, diff_inf(ds, e38, 4) / s38);
    /* Off the manifold the two formulations really differ (by terms proportional to psi). */
    CHECK_LE(fabs(psi) * 1e-6, diff_inf(dd, ds, 4));
  }
  print_message("pendulum off the manifold (max |x^2+y^2-1| = %.2f): max rel. deviation from "
                "(35) %.2e, (44) %.2e, (38) %.2e\n",
                max_off, r35, r44, r38);
  CHECK_GT(max_off, 0.5);
  CHSFormulation_Destroy(&fs);
  CHSFormulation_Destroy(&fd);
  CHSProblem_Destroy(&prob);
}

/* ------------------------------------------------------------------ dense vs CSR */

static void test_dense_vs_csr(void **state) {
  (void)state;
  const char *forms[] = {"standard", "dirac"};
  const char *params[] = {"", "m1=1,m2=3,L1=0.8,L2=1.1,gravity=2,"};
  for (size_t pi = 0; pi < 2; pi++) {
    char sd[128], sc[128];
    snprintf(sd, sizeof sd, "double-pendulum:%ssparse=0", params[pi]);
    snprintf(sc, sizeof sc, "double-pendulum:%ssparse=1", params[pi]);
    CHSProblem pd = new_problem(sd), pc = new_problem(sc);
    assert_int_equal(CHSProblem_GetDims(pd)->jac_kind, CHS_JAC_DENSE);
    assert_int_equal(CHSProblem_GetDims(pc)->jac_kind, CHS_JAC_CSR);
    for (size_t fi = 0; fi < 2; fi++) {
      rng_seed(4001);
      CHSFormulation fd = new_qp_formulation(forms[fi], pd), fc = new_qp_formulation(forms[fi], pc);
      for (int k = 0; k < 2 * NSAMPLES; k++) {
        double y[8], a[8], b[8];
        if (k < NSAMPLES) {
          dpend_random_off(y);
        } else {
          dpend_state(1, 2, 1, 1.5, rng_uniform(-M_PI, M_PI), rng_uniform(-M_PI, M_PI),
                      rng_uniform(-2, 2), rng_uniform(-2, 2), y);
        }
        assert_int_equal(eval_rhs(fd, y, a), 0);
        assert_int_equal(eval_rhs(fc, y, b), 0);
        CHECK_GT(norm_inf(a, 8), 0.1);
        CHECK_LE(diff_inf(a, b, 8), 1e-14 * norm_inf(a, 8));
      }
      CHSFormulation_Destroy(&fd);
      CHSFormulation_Destroy(&fc);
    }
    CHSProblem_Destroy(&pd);
    CHSProblem_Destroy(&pc);
  }
}

/* ------------------------------------------------------------------ finite differences */

static void fd_check_problem(const char *spec, uint64_t seed) {
  rng_seed(seed);
  CHSProblem prob = new_problem(spec);
  const CHSProblemOps *ops = CHSProblem_GetOps(prob);
  const CHSProblemDims *d = CHSProblem_GetDims(prob);
  void *data = CHSProblem_GetData(prob);
  const int n = (int)d->n, m = (int)d->m, js = jac_size(d);
  assert_true(n <= 8 && m <= 4);
  if (d->jac_kind == CHS_JAC_CSR) {
    assert_int_equal(d->rowptr[0], 0);
    assert_int_equal(d->rowptr[m], d->nnz);
  }
  for (int k = 0; k < NSAMPLES; k++) {
    double q[8], u[8], qa[8], qb[8];
    for (int i = 0; i < n; i++) {
      q[i] = rng_uniform(-2, 2);
      u[i] = rng_uniform(-2, 2);
    }
    const double e = 1e-5;
    /* F = -grad V. */
    double F[8], Ffd[8], Va, Vb;
    assert_int_equal(ops->force(data, q, F), 0);
    for (int i = 0; i < n; i++) {
      memcpy(qa, q, sizeof q);
      memcpy(qb, q, sizeof q);
      qa[i] += e;
      qb[i] -= e;
      assert_int_equal(ops->potential(data, qa, &Va), 0);
      assert_int_equal(ops->potential(data, qb, &Vb), 0);
      Ffd[i] = -(Va - Vb) / (2 * e);
    }
    CHECK_GT(norm_inf(F, n), 0.1);
    CHECK_LE(diff_inf(F, Ffd, n), 1e-7 * norm_inf(F, n));
    /* Hessian of V times u: the given product, or zero when NULL (V at most linear). */
    double Fa[8], Fb[8], Hfd[8], Hu[8] = {0};
    for (int i = 0; i < n; i++) {
      qa[i] = q[i] + e * u[i];
      qb[i] = q[i] - e * u[i];
    }
    assert_int_equal(ops->force(data, qa, Fa), 0);
    assert_int_equal(ops->force(data, qb, Fb), 0);
    for (int i = 0; i < n; i++) {
      Hfd[i] = -(Fa[i] - Fb[i]) / (2 * e);
    }
    if (ops->hessian_potential) {
      assert_int_equal(ops->hessian_potential(data, q, u, Hu), 0);
    }
    CHECK_LE(diff_inf(Hu, Hfd, n), 1e-7 * (1 + norm_inf(F, n)));

    /* G = dg/dq, column by column, against the dense expansion of the stored G (entries
     * outside a CSR pattern must be zero). */
    double Gs[32], G[32], Gfd[32], ga[4], gb[4];
    assert_int_equal(ops->jacobian(data, q, Gs), 0);
    to_dense(d, Gs, G);
    for (int i = 0; i < n; i++) {
      memcpy(qa, q, sizeof q);
      memcpy(qb, q, sizeof q);
      qa[i] += e;
      qb[i] -= e;
      assert_int_equal(ops->constraint(data, qa, ga), 0);
      assert_int_equal(ops->constraint(data, qb, gb), 0);
      for (int r = 0; r < m; r++) {
        Gfd[r * n + i] = (ga[r] - gb[r]) / (2 * e);
      }
    }
    CHECK_GT(norm_inf(G, m * n), 0.1);
    CHECK_LE(diff_inf(G, Gfd, m * n), 1e-7 * norm_inf(G, m * n));

    /* Gdot(q, u) = d/de G(q + e u), in the storage layout. */
    double Gds[32], Ga[32], Gb[32], Gdfd[32];
    assert_int_equal(ops->jacobian_dot(data, q, u, Gds), 0);
    for (int i = 0; i < n; i++) {
      qa[i] = q[i] + e * u[i];
      qb[i] = q[i] - e * u[i];
    }
    assert_int_equal(ops->jacobian(data, qa, Ga), 0);
    assert_int_equal(ops->jacobian(data, qb, Gb), 0);
    for (int i = 0; i < js; i++) {
      Gdfd[i] = (Ga[i] - Gb[i]) / (2 * e);
    }
    CHECK_GT(norm_inf(Gds, js), 0.1);
    CHECK_LE(diff_inf(Gds, Gdfd, js), 1e-7 * norm_inf(Gds, js));

    /* Third derivative of g: constraint_third = grad_q (w^T Gdot(q,u) u), or zero when NULL
     * (quadratic constraints). */
    double w[4], third[8] = {0}, thfd[8], Gda[32], Gdb[32], ta[4], tb[4];
    for (int r = 0; r < m; r++) {
      w[r] = rng_uniform(-1, 1);
    }
    if (ops->constraint_third) {
      assert_int_equal(ops->constraint_third(data, q, u, w, third), 0);
    }
    for (int i = 0; i < n; i++) {
      double sa = 0, sb = 0, Dense_a[32], Dense_b[32];
      memcpy(qa, q, sizeof q);
      memcpy(qb, q, sizeof q);
      qa[i] += e;
      qb[i] -= e;
      assert_int_equal(ops->jacobian_dot(data, qa, u, Gda), 0);
      assert_int_equal(ops->jacobian_dot(data, qb, u, Gdb), 0);
      to_dense(d, Gda, Dense_a);
      to_dense(d, Gdb, Dense_b);
      matvec(Dense_a, m, n, u, ta);
      matvec(Dense_b, m, n, u, tb);
      for (int r = 0; r < m; r++) {
        sa += w[r] * ta[r];
        sb += w[r] * tb[r];
      }
      thfd[i] = (sa - sb) / (2 * e);
    }
    CHECK_LE(diff_inf(third, thfd, n), 1e-7 * (1 + norm_inf(Gds, js) * norm_inf(u, n)));
  }
  CHSProblem_Destroy(&prob);
}

static void test_finite_differences(void **state) {
  (void)state;
  fd_check_problem("pendulum", 5001);
  fd_check_problem("pendulum:length=1.7,mass=0.6,gravity=2.3", 5002);
  fd_check_problem("double-pendulum:sparse=1", 5003);
  fd_check_problem("double-pendulum:sparse=0", 5004);
  fd_check_problem("double-pendulum:m1=1,m2=3,L1=0.7,L2=1.3,gravity=9.81,sparse=1", 5005);
}

/* ------------------------------------------------------------------ singular Gram matrix */

static void check_singular(const char *spec, const char *form, const double *y) {
  CHSProblem prob = new_problem(spec);
  CHSFormulation f = new_qp_formulation(form, prob);
  int N = (int)CHSFormulation_GetStateSize(f);
  double yd[8];
  assert_int_equal(CHSFormulation_GetLastFailure(f)->msg[0], '\0');
  int rc = eval_rhs(f, y, yd);
  print_message("%s/%s at a singular point: rc = %d, \"%s\"\n", spec, form, rc,
                CHSFormulation_GetLastFailure(f)->msg);
  assert_true(rc > 0);
  const CHSError *why = CHSFormulation_GetLastFailure(f);
  assert_non_null(why);
  assert_true(why->code != CHS_SUCCESS);
  assert_true(strlen(why->msg) > 0);
  /* Recoverable means the object is still usable: a regular point evaluates fine. */
  double good[8];
  memcpy(good, y, (size_t)N * sizeof *good);
  good[0] += 0.5;
  good[1] -= 0.25;
  if (N == 8) {
    good[2] += 1.0;
  }
  assert_int_equal(eval_rhs(f, good, yd), 0);
  CHSFormulation_ResetCounters(f);
  assert_int_equal(CHSFormulation_GetLastFailure(f)->msg[0], '\0');
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

static void test_singular_gram(void **state) {
  (void)state;
  const double pend[4] = {0, 0, 0.3, -0.4};
  /* Double pendulum with both masses at the same point: the second row of G vanishes. */
  const double dp[8] = {0.6, -0.8, 0.6, -0.8, 0.1, 0.2, -0.3, 0.4};
  const char *forms[] = {"standard", "dirac"};
  for (int i = 0; i < 2; i++) {
    check_singular("pendulum", forms[i], pend);
    check_singular("double-pendulum:sparse=1", forms[i], dp);
    check_singular("double-pendulum:sparse=0", forms[i], dp);
  }
}

/* Non-finite input is a recoverable failure too, never a silent NaN. */
static void test_nonfinite_state(void **state) {
  (void)state;
  CHSProblem prob = new_problem("pendulum");
  const char *forms[] = {"standard", "dirac"};
  for (int i = 0; i < 2; i++) {
    CHSFormulation f = new_qp_formulation(forms[i], prob);
    double y[4] = {1, 0, NAN, -2}, yd[4];
    assert_true(eval_rhs(f, y, yd) > 0);
    assert_non_null(strstr(CHSFormulation_GetLastFailure(f)->msg, "non-finite"));
    CHSFormulation_Destroy(&f);
  }
  CHSProblem_Destroy(&prob);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_std_dirac_agree_pendulum),
      cmocka_unit_test(test_std_dirac_agree_double_pendulum),
      cmocka_unit_test(test_dirac_invariants_off_manifold),
      cmocka_unit_test(test_pendulum_closed_forms),
      cmocka_unit_test(test_dense_vs_csr),
      cmocka_unit_test(test_finite_differences),
      cmocka_unit_test(test_singular_gram),
      cmocka_unit_test(test_nonfinite_state),
  };
  return cmocka_run_group_tests_name("formulations", tests, group_setup, group_teardown);
}
