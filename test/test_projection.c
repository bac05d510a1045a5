/* Projections: constraints restored to round-off; the momentum correction lies in range(G^T)
 * (mass-orthogonal: the normal equations of min (dp)^T M^{-1} dp) and the position correction in
 * M^{-1} range(G(q0)^T); the energy change of a momentum projection is exactly
 * -1/2 psi^T Q^{-1} psi (second order in psi, [Seiler, stable] Sec. 7); counts with
 * --project-every; formulations whose state is not (q, p) refuse. Double pendulum with unequal
 * masses (M != I). */
#include <cvode/cvode_proj.h>
#include <nvector/nvector_serial.h>
#include "test_util.h"

#define SPEC "double-pendulum:m1=1,m2=3,sparse=0"

typedef struct {
  CHSProblem prob;
  CHSFormulation f;
  CHSProjector pr;
  const CHSProblemOps *ops;
  void *data;
  const double *mass;
} fx;

static void fx_open(fx *x, int kind) {
  x->prob = new_problem(SPEC);
  x->f = new_formulation("standard", x->prob, test_context());
  CHSError err;
  assert_int_equal(CHSProjector_Create(x->f, kind, 0, &x->pr, &err), 0);
  x->ops = CHSProblem_GetOps(x->prob);
  x->data = CHSProblem_GetData(x->prob);
  x->mass = CHSProblem_GetDims(x->prob)->mass;
}

static void fx_close(fx *x) {
  CHSProjector_Destroy(&x->pr);
  CHSFormulation_Destroy(&x->f);
  CHSProblem_Destroy(&x->prob);
}

/* A consistent state from random angles, then perturbed by eps along random directions. */
static void state(double eps_q, double eps_p, double *z) {
  char spec[256];
  snprintf(spec, sizeof spec, SPEC ",theta1=%.17g,theta2=%.17g,omega1=%.17g,omega2=%.17g",
           rng_uniform(-3, 3), rng_uniform(-3, 3), rng_uniform(-2, 2), rng_uniform(-2, 2));
  CHSProblem p = new_problem(spec);
  CHSProblem_GetOps(p)->initial_state(CHSProblem_GetData(p), z, z + 4);
  CHSProblem_Destroy(&p);
  for (int i = 0; i < 4; i++) {
    z[i] += eps_q * rng_uniform(-1, 1);
    z[4 + i] += eps_p * rng_uniform(-1, 1);
  }
}

static void apply(fx *x, double *z) {
  N_Vector y = N_VNew_Serial(8, test_context());
  memcpy(N_VGetArrayPointer(y), z, 8 * sizeof *z);
  assert_int_equal(CHSProjector_Apply(x->pr, 0, y), 0);
  memcpy(z, N_VGetArrayPointer(y), 8 * sizeof *z);
  N_VDestroy(y);
}

/* Component of u (length 4) outside range(G^T), G dense 2 x 4: |u - G^T (G G^T)^{-1} G u|. */
static double outside_range(const double *G, const double *u) {
  double A[2][2] = {{0}}, b[2] = {0};
  for (int i = 0; i < 2; i++) {
    for (int c = 0; c < 4; c++) {
      b[i] += G[i * 4 + c] * u[c];
      for (int j = 0; j < 2; j++) {
        A[i][j] += G[i * 4 + c] * G[j * 4 + c];
      }
    }
  }
  double det = A[0][0] * A[1][1] - A[0][1] * A[1][0];
  double c0 = (b[0] * A[1][1] - A[0][1] * b[1]) / det, c1 = (A[0][0] * b[1] - A[1][0] * b[0]) / det;
  double r = 0;
  for (int c = 0; c < 4; c++) {
    r = fmax(r, fabs(u[c] - G[c] * c0 - G[4 + c] * c1));
  }
  return r;
}

static void test_momentum(void **state_) {
  (void)state_;
  fx x;
  fx_open(&x, CHS_PROJECT_MOMENTUM);
  double worst_psi = 0, worst_range = 0;
  for (int k = 0; k < 20; k++) {
    double z[8], z0[8], G[8], dp[4], psi[2] = {0, 0};
    state(0, 0.3, z);
    memcpy(z0, z, sizeof z);
    apply(&x, z);
    x.ops->jacobian(x.data, z, G);
    for (int i = 0; i < 2; i++) {
      for (int c = 0; c < 4; c++) {
        psi[i] += G[i * 4 + c] * z[4 + c] / x.mass[c];
      }
    }
    for (int c = 0; c < 4; c++) {
      dp[c] = z[4 + c] - z0[4 + c];
      assert_true(z[c] == z0[c]); /* positions untouched */
    }
    worst_psi = fmax(worst_psi, fmax(fabs(psi[0]), fabs(psi[1])));
    worst_range = fmax(worst_range, outside_range(G, dp) / (1e-300 + norm_inf(dp, 4)));
  }
  print_message("momentum projection: max |psi| after %.2e; correction outside range(G^T) "
                "%.2e (relative)\n",
                worst_psi, worst_range);
  CHECK_LE(worst_psi, 1e-14);
  CHECK_LE(worst_range, 1e-13);
  fx_close(&x);
}

static void test_position(void **state_) {
  (void)state_;
  fx x;
  fx_open(&x, CHS_PROJECT_POSITION);
  double worst_g = 0, worst_range = 0;
  for (int k = 0; k < 20; k++) {
    double z[8], z0[8], G0[8], g[2], Mdq[4];
    state(0.05, 0, z);
    memcpy(z0, z, sizeof z);
    x.ops->jacobian(x.data, z0, G0);
    apply(&x, z);
    x.ops->constraint(x.data, z, g);
    for (int c = 0; c < 4; c++) {
      Mdq[c] = x.mass[c] * (z[c] - z0[c]);
      assert_true(z[4 + c] == z0[4 + c]); /* momenta untouched */
    }
    worst_g = fmax(worst_g, fmax(fabs(g[0]), fabs(g[1])));
    worst_range = fmax(worst_range, outside_range(G0, Mdq) / norm_inf(Mdq, 4));
  }
  print_message("position projection: max |g| after %.2e; M dq outside range(G(q0)^T) %.2e\n",
                worst_g, worst_range);
  CHECK_LE(worst_g, 1e-14);
  CHECK_LE(worst_range, 1e-12);
  CHSProjector pr = x.pr;
  print_message("  %ld projections, %ld Newton iterations\n", CHSProjector_GetNumPosition(pr),
                CHSProjector_GetNumNewtonIters(pr));
  assert_int_equal(CHSProjector_GetNumPosition(pr), 20);
  fx_close(&x);
}

/* H(P z) - H(z) = -1/2 psi^T Q^{-1} psi exactly (Q = G M^{-1} G^T), second order in psi. */
static void test_energy_second_order(void **state_) {
  (void)state_;
  fx x;
  fx_open(&x, CHS_PROJECT_MOMENTUM);
  double base[8], d[4];
  state(0, 0, base);
  for (int c = 0; c < 4; c++) {
    d[c] = rng_uniform(-1, 1);
  }
  double prev = 0;
  for (int k = 0; k < 6; k++) {
    double eps = 0.1 / (1 << (2 * k)), z[8], G[8], H0, H1, psi[2] = {0, 0};
    memcpy(z, base, sizeof z);
    for (int c = 0; c < 4; c++) {
      z[4 + c] += eps * d[c];
    }
    x.ops->jacobian(x.data, z, G);
    double Q[2][2] = {{0}};
    for (int i = 0; i < 2; i++) {
      for (int c = 0; c < 4; c++) {
        psi[i] += G[i * 4 + c] * z[4 + c] / x.mass[c];
        for (int j = 0; j < 2; j++) {
          Q[i][j] += G[i * 4 + c] * G[j * 4 + c] / x.mass[c];
        }
      }
    }
    double det = Q[0][0] * Q[1][1] - Q[0][1] * Q[1][0];
    double w0 = (psi[0] * Q[1][1] - Q[0][1] * psi[1]) / det;
    double w1 = (Q[0][0] * psi[1] - Q[1][0] * psi[0]) / det;
    double want = -0.5 * (psi[0] * w0 + psi[1] * w1);
    CHSProblem_Energy(x.prob, z, z + 4, &H0);
    apply(&x, z);
    CHSProblem_Energy(x.prob, z, z + 4, &H1);
    double dH = H1 - H0, psin = hypot(psi[0], psi[1]);
    print_message("eps %.1e: |psi| %.3e, dH %.6e, -1/2 psi^T Q^-1 psi %.6e, dH/|psi|^2 %.4f\n", eps,
                  psin, dH, want, dH / (psin * psin));
    CHECK_LE(fabs(dH - want), 1e-12 + 1e-8 * fabs(want));
    if (k > 0) {
      CHECK_NEAR(dH / prev, 1.0 / 16, 0.01 / 16); /* eps / 4 -> dH / 16 */
    }
    prev = dH;
  }
  fx_close(&x);
}

static void test_counts_and_refusal(void **state_) {
  (void)state_;
  CHSProblem prob = new_problem("pendulum");
  CHSFormulation f = new_formulation("standard", prob, test_context());
  CHSRunOptions o;
  CHSRunOptions_Default(&o);
  o.method = "erk:rk4";
  o.ctl.h = 0.1;
  o.tf = 1;
  o.project = CHS_PROJECT_BOTH;
  o.project_tol = 0;
  o.project_every = 3;
  CHSRunSummary s;
  CHSError err;
  assert_int_equal(CHSRun(f, &o, NULL, NULL, &s, &err), 0);
  /* 10 steps, tolerance 0 (always), every 3rd step: steps 3, 6, 9 */
  assert_int_equal(s.proj_position, 3);
  assert_int_equal(s.proj_momentum, 3);
  CHSFormulation_Destroy(&f);
  CHSFormulation g = new_formulation("impetus", prob, test_context());
  CHSProjector pr = NULL;
  assert_int_equal(CHSProjector_Create(g, CHS_PROJECT_MOMENTUM, 0, &pr, &err), CHS_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.msg, "impetus"));
  CHSFormulation_Destroy(&g);
  CHSProblem_Destroy(&prob);
}

/* CVODE BDF with CHSProjector_CVodeProjFn: |g| and |psi| at round-off at every output; the
 * projector ran exactly as often as CVODE called its projection (tolerance 0: every call). */
static void test_cvode_projection(void **state_) {
  (void)state_;
  CHSProblem prob = new_problem("pendulum");
  CHSFormulation f = new_formulation("standard", prob, test_context());
  CHSProjector pr;
  CHSError err;
  assert_int_equal(CHSProjector_Create(f, CHS_PROJECT_BOTH, 0, &pr, &err), 0);
  N_Vector y;
  assert_int_equal(CHSFormulation_NewInitialState(f, &y, &err), 0);
  CHSStepControl ctl = {0, 1e-8, 1e-8, 0};
  CHSIntegrator it;
  assert_int_equal(CHSIntegrator_Create("cvode:bdf", f, y, 0, &ctl, &it, &err), 0);
  double worst = 0, t;
  for (int k = 1; k <= 50; k++) {
    assert_int_equal(CHSIntegrator_Evolve(it, 0.2 * k, y, &t, &err), 0);
    const double *z = N_VGetArrayPointer(y);
    double g = (z[0] * z[0] + z[1] * z[1] - 1) / 2, psi = z[0] * z[2] + z[1] * z[3];
    worst = fmax(worst, fmax(fabs(g), fabs(psi)));
  }
  long nproj = 0;
  assert_int_equal(CVodeGetNumProjEvals(CHSIntegrator_GetSundialsMem(it), &nproj), 0);
  print_message("CVODE BDF + projection to t = 10: max |g|, |psi| %.2e; CVODE projection calls "
                "%ld, projector: %ld position, %ld momentum\n",
                worst, nproj, CHSProjector_GetNumPosition(pr), CHSProjector_GetNumMomentum(pr));
  CHECK_LE(worst, 1e-14);
  assert_true(nproj > 100);
  assert_int_equal(CHSProjector_GetNumPosition(pr), nproj);
  assert_int_equal(CHSProjector_GetNumMomentum(pr), nproj);
  CHSIntegrator_Destroy(&it);
  N_VDestroy(y);
  CHSProjector_Destroy(&pr);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

/* One constraint (the pendulum, mass 3, length 1.5: the Gram workspace with Q a number) against
 * the closed forms, at random states off the
 * manifold (|q| != L, q.v != 0): the standard field p' = F - q (m |v|^2 + q.F) / |q|^2; the
 * position projection L q / |q| (radial: the mass is a multiple of I); the momentum projection
 * p - q (q.p) / |q|^2 at the projected q; CVODE's error estimate with its normal components
 * q (q.e) / |q|^2 at the projected q removed, for e_q and e_p alike. */
static void test_one_constraint(void **state_) {
  (void)state_;
  const double L = 1.5, m = 3, grav = 2;
  CHSProblem prob = new_problem("pendulum:length=1.5,mass=3,gravity=2");
  CHSFormulation f = new_formulation("standard", prob, test_context());
  CHSProjector pr;
  CHSError err;
  assert_int_equal(CHSProjector_Create(f, CHS_PROJECT_BOTH, 0, &pr, &err), 0);
  N_Vector y = N_VNew_Serial(4, test_context()), yd = N_VClone(y), corr = N_VClone(y),
           e = N_VClone(y);
  double *z = N_VGetArrayPointer(y), *d = N_VGetArrayPointer(yd), *c = N_VGetArrayPointer(corr),
         *ea = N_VGetArrayPointer(e);
  double worst_f = 0, worst_p = 0, worst_e = 0;
  for (int trial = 0; trial < 20; trial++) {
    double th = rng_uniform(-3, 3), r = L * (1 + rng_uniform(-1e-3, 1e-3));
    double q[2] = {r * sin(th), -r * cos(th)}, p[2] = {rng_uniform(-3, 3), rng_uniform(-3, 3)};
    double e0[4];
    for (int i = 0; i < 4; i++) {
      e0[i] = rng_uniform(-1, 1);
    }
    memcpy(z, q, sizeof q);
    memcpy(z + 2, p, sizeof p);
    assert_int_equal(CHSFormulation_Rhs(0, y, yd, f), 0);
    double q2 = q[0] * q[0] + q[1] * q[1], v[2] = {p[0] / m, p[1] / m}, F[2] = {0, -m * grav};
    double lam = (m * (v[0] * v[0] + v[1] * v[1]) + q[0] * F[0] + q[1] * F[1]) / q2;
    for (int i = 0; i < 2; i++) {
      worst_f = fmax(worst_f, fabs(d[i] - v[i]) + fabs(d[2 + i] - (F[i] - q[i] * lam)));
    }
    memcpy(ea, e0, sizeof e0);
    assert_int_equal(CHSProjector_CVodeProject(pr, 0, y, corr, e), 0);
    double rn = sqrt(q2), qp[2] = {L * q[0] / rn, L * q[1] / rn}, u[2] = {qp[0] / L, qp[1] / L};
    double un = u[0] * p[0] + u[1] * p[1], eq = u[0] * e0[0] + u[1] * e0[1];
    double ep = u[0] * e0[2] + u[1] * e0[3];
    for (int i = 0; i < 2; i++) {
      worst_p =
          fmax(worst_p, fabs(z[i] + c[i] - qp[i]) + fabs(z[2 + i] + c[2 + i] - (p[i] - u[i] * un)));
      worst_e = fmax(worst_e,
                     fabs(ea[i] - (e0[i] - u[i] * eq)) + fabs(ea[2 + i] - (e0[2 + i] - u[i] * ep)));
    }
  }
  print_message("one constraint: field %.2e, projection %.2e, error projection %.2e from the "
                "closed forms\n",
                worst_f, worst_p, worst_e);
  CHECK_LE(worst_f, 1e-13);
  CHECK_LE(worst_p, 1e-14);
  CHECK_LE(worst_e, 1e-14);
  N_VDestroy(y);
  N_VDestroy(yd);
  N_VDestroy(corr);
  N_VDestroy(e);
  CHSProjector_Destroy(&pr);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

int main(void) {
  rng_seed(4242);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_momentum),
      cmocka_unit_test(test_position),
      cmocka_unit_test(test_energy_second_order),
      cmocka_unit_test(test_counts_and_refusal),
      cmocka_unit_test(test_cvode_projection),
      cmocka_unit_test(test_one_constraint),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
