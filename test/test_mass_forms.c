/* extended, total, impetus, fj and ssf with a configuration-dependent mass matrix M(q) and with
 * time-dependent constraints g(q, t) (docs/mechanics.md): (a) the polar pendulum against the
 * Cartesian pendulum's reference and the moving circle against its moving-frame model; (b) the
 * formulations' defining properties with M(q) (first integrals g, psi, H_T, H_e; the extended
 * Hamiltonian's centre, the total Hamiltonian's saddle); (c) the total and extended fields against
 * central differences of H_T and H_e written out here independently of the library; (d) the
 * refusals that say why. */
#include "test_util.h"
#include "mass_problems.h"
#include "impl.h" /* chs_mass_factor_kind */

/* ------------------------------------------------------------------ independent Hamiltonians
 * A natural system with n = 2, m = 1 written out from its closed forms: M(q), dM/dq_j, V, grad V,
 * g, G and the (constant) Hessian of g. */
typedef struct {
  void (*M)(const double *q, double *M);
  void (*dM)(const double *q, int j, double *D);
  double (*V)(const double *q);
  void (*gradV)(const double *q, double *out);
  double (*g)(const double *q);
  void (*G)(const double *q, double *G);
  double Hg[4];
} model2;

static void polar_M(const double *q, double *M) {
  M[0] = 1;
  M[1] = M[2] = 0;
  M[3] = q[0] * q[0];
}
static void polar_dM(const double *q, int j, double *D) {
  D[0] = D[1] = D[2] = 0;
  D[3] = j == 0 ? 2 * q[0] : 0;
}
static double polar_V(const double *q) {
  return -q[0] * cos(q[1]);
}
static void polar_gradV(const double *q, double *out) {
  out[0] = -cos(q[1]);
  out[1] = q[0] * sin(q[1]);
}
static double polar_g(const double *q) {
  return (q[0] * q[0] - 1) / 2;
}
static void polar_G(const double *q, double *G) {
  G[0] = q[0];
  G[1] = 0;
}
static double tilted_V(const double *q) {
  return q[1];
}
static void tilted_gradV(const double *q, double *out) {
  (void)q;
  out[0] = 0;
  out[1] = 1;
}
static double tilted_g(const double *q) {
  return (q[0] * q[0] + q[1] * q[1] - 1) / 2;
}
static void tilted_G(const double *q, double *G) {
  G[0] = q[0];
  G[1] = q[1];
}
static const model2 polar_model = {polar_M, polar_dM, polar_V,     polar_gradV,
                                   polar_g, polar_G,  {1, 0, 0, 0}};
static const model2 tilted_model = {tm_M,     tm_dM,    tilted_V,    tilted_gradV,
                                    tilted_g, tilted_G, {1, 0, 0, 1}};

/* H, H_T = H + lambda g and H_e = H_T - psi^2 / Q at (q, p); psi and g returned too. */
static void hamiltonians(const model2 *mo, const double *q, const double *p, double *out) {
  double M[4], Mi[4], v[2], G[2], F[2], FM[2], Mvv[2] = {0, 0}, b[2], a[2];
  mo->M(q, M);
  double det = M[0] * M[3] - M[1] * M[2];
  Mi[0] = M[3] / det;
  Mi[1] = -M[1] / det;
  Mi[2] = -M[2] / det;
  Mi[3] = M[0] / det;
  v[0] = Mi[0] * p[0] + Mi[1] * p[1];
  v[1] = Mi[2] * p[0] + Mi[3] * p[1];
  mo->G(q, G);
  double Q = G[0] * (Mi[0] * G[0] + Mi[1] * G[1]) + G[1] * (Mi[2] * G[0] + Mi[3] * G[1]);
  double psi = G[0] * v[0] + G[1] * v[1], g = mo->g(q);
  mo->gradV(q, F);
  for (int j = 0; j < 2; j++) {
    double D[4];
    mo->dM(q, j, D);
    double Dv0 = D[0] * v[0] + D[1] * v[1], Dv1 = D[2] * v[0] + D[3] * v[1];
    FM[j] = (v[0] * Dv0 + v[1] * Dv1) / 2; /* 1/2 v^T dM_j v */
    Mvv[0] += v[j] * Dv0;                  /* M'(q; v) v */
    Mvv[1] += v[j] * Dv1;
  }
  for (int i = 0; i < 2; i++) {
    b[i] = -F[i] + FM[i] - Mvv[i];
  }
  a[0] = Mi[0] * b[0] + Mi[1] * b[1];
  a[1] = Mi[2] * b[0] + Mi[3] * b[1];
  const double *Hg = mo->Hg;
  double vHv = v[0] * (Hg[0] * v[0] + Hg[1] * v[1]) + v[1] * (Hg[2] * v[0] + Hg[3] * v[1]);
  double lambda = (vHv + G[0] * a[0] + G[1] * a[1]) / Q;
  double H = (p[0] * v[0] + p[1] * v[1]) / 2 + mo->V(q);
  out[0] = H;
  out[1] = H + lambda * g;
  out[2] = out[1] - psi * psi / Q;
  out[3] = g;
  out[4] = psi;
}

/* grad of H_T (which = 1) or H_e (which = 2) in z = (q, p) by the fourth-order central formula */
static void hamiltonian_gradient(const model2 *mo, int which, const double *z, double *grad) {
  const double h = 1e-3;
  for (int i = 0; i < 4; i++) {
    double f[4], zz[4], out[5];
    const double steps[4] = {2 * h, h, -h, -2 * h};
    for (int s = 0; s < 4; s++) {
      memcpy(zz, z, sizeof zz);
      zz[i] += steps[s];
      hamiltonians(mo, zz, zz + 2, out);
      f[s] = out[which];
    }
    grad[i] = (-f[0] + 8 * f[1] - 8 * f[2] + f[3]) / (12 * h);
  }
}

/* ------------------------------------------------------------------ (c) fields by differences */

static void test_total_extended_are_hamiltonian_fields(void **state) {
  (void)state;
  const CHSProblemOps *ops[] = {&polar_pendulum_ops, &tilted_mass_ops};
  const model2 *models[] = {&polar_model, &tilted_model};
  const double z[2][4] = {{1.1, 0.9, 0.3, -1.5}, {0.9, 0.3, 0.4, -0.7}}; /* g, psi != 0 */
  const char *forms[] = {"total", "extended"};
  for (int k = 0; k < 2; k++) {
    CHSProblem prob = new_problem_from_ops(ops[k], "");
    for (int w = 0; w < 2; w++) {
      CHSFormulation f = new_formulation(forms[w], prob, test_context());
      double ydot[4], grad[4];
      formulation_rhs(f, z[k], ydot, 4);
      hamiltonian_gradient(models[k], 1 + w, z[k], grad);
      const double want[4] = {grad[2], grad[3], -grad[0], -grad[1]}; /* (dH/dp, -dH/dq) */
      double d = diff_inf(ydot, want, 4);
      if (d > 1e-8) {
        print_error("%s on %s: field (%.12f %.12f %.12f %.12f) vs differences of the "
                    "Hamiltonian (%.12f %.12f %.12f %.12f)\n",
                    forms[w], ops[k]->name, ydot[0], ydot[1], ydot[2], ydot[3], want[0], want[1],
                    want[2], want[3]);
      }
      CHECK_LE(d, 1e-8);
      CHECK_GT(norm_inf(ydot, 4), 0.1);
      CHSFormulation_Destroy(&f);
    }
    CHSProblem_Destroy(&prob);
  }
}

/* ------------------------------------------------------------------ (a) polar vs Cartesian */

static void test_polar_pendulum_against_reference(void **state) {
  (void)state;
  CHSProblem prob = new_problem_from_ops(&polar_pendulum_ops, "");
  mass_observer o = {.cart = new_problem("pendulum")};
  const struct {
    const char *form;
    double agree;
  } cfg[] = {{"extended", 2e-8}, {"total", 2e-7}, {"impetus", 2e-8}, {"fj", 2e-8}, {"ssf", 2e-8}};
  for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
    CHSRunSummary s = mass_run_within(prob, cfg[c].form, "erk:dp5", 1e-12, 10, cfg[c].agree, &o);
    assert_true(o.records > 20);
    CHECK_LE(s.diag.energy_err_max, 100 * cfg[c].agree);
  }
  CHSProblem_Destroy(&o.cart);
  CHSProblem_Destroy(&prob);
}

/* ------------------------------------------------------------------ (b) defining properties */

/* Integrate form on ops from the physical z0 to tf (erk:dp5, tolerance 1e-12) and return the
 * largest changes of g, psi, H_T, H_e (the model's closed forms) over samples every 0.5, and the
 * largest |g|. */
static void drift(const CHSProblemOps *ops, const model2 *mo, const char *form, const double *z0,
                  double tf, double *dmax) {
  CHSProblem prob = new_problem_from_ops(ops, "");
  CHSFormulation f = new_formulation(form, prob, test_context());
  sunindextype N = CHSFormulation_GetStateSize(f);
  N_Vector y = N_VNew_Serial(N, test_context());
  assert_int_equal(CHSFormulation_FromPhysical(f, z0, z0 + 2, y), 0);
  CHSStepControl ctl = {.rtol = 1e-12, .atol = 1e-12};
  CHSIntegrator it = NULL;
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSIntegrator_Create("erk:dp5", f, y, 0, &ctl, &it, &err), 0);
  double h0[5], h[5], tret = 0, q[2], p[2];
  assert_int_equal(CHSFormulation_ToPhysical(f, y, q, p), 0);
  hamiltonians(mo, q, p, h0);
  for (int i = 0; i < 5; i++) {
    dmax[i] = 0;
  }
  dmax[5] = fabs(h0[3]);
  for (int j = 1; j <= (int)(2 * tf); j++) {
    int rc = CHSIntegrator_Evolve(it, 0.5 * j, y, &tret, &err);
    if (rc != 0) {
      print_error("%s: %s\n", form, err.msg);
    }
    assert_int_equal(rc, 0);
    assert_int_equal(CHSFormulation_ToPhysical(f, y, q, p), 0);
    hamiltonians(mo, q, p, h);
    for (int i = 0; i < 5; i++) {
      dmax[i] = fmax(dmax[i], fabs(h[i] - h0[i]));
    }
    dmax[5] = fmax(dmax[5], fabs(h[3]));
  }
  CHSIntegrator_Destroy(&it);
  N_VDestroy(y);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

enum { D_H, D_HT, D_HE, D_G, D_PSI, G_MAX };

static void test_first_integrals_with_mass(void **state) {
  (void)state;
  const CHSProblemOps *ops[] = {&polar_pendulum_ops, &tilted_mass_ops};
  const model2 *models[] = {&polar_model, &tilted_model};
  const double off[2][4] = {{1.02, 0.9, 0.05, -1.5}, {0.98, 0.3, 0.04, -0.7}}; /* g, psi != 0 */
  for (int k = 0; k < 2; k++) {
    double d[6];
    /* dirac's first integrals in the Faddeev-Jackiw system; ssf: g and psi exactly */
    const char *keep_both[] = {"fj", "ssf"};
    for (int i = 0; i < 2; i++) {
      const double *z = i == 1 ? NULL : off[k];
      double z0[4];
      if (!z) { /* ssf starts on the manifold (its chart): the problem's initial state */
        CHSProblem prob = new_problem_from_ops(ops[k], "");
        assert_int_equal(ops[k]->initial_state(CHSProblem_GetData(prob), z0, z0 + 2), 0);
        CHSProblem_Destroy(&prob);
        z = z0;
      }
      drift(ops[k], models[k], keep_both[i], z, i == 1 ? 1 : 5, d); /* ssf: within its chart */
      CHECK_LE(d[D_G], 1e-9);
      CHECK_LE(d[D_PSI], 1e-9);
      CHECK_LE(d[D_H], 1e-8);
    }
    /* impetus: g is a first integral for any state; the energy of the physical state too */
    drift(ops[k], models[k], "impetus", off[k], 5, d);
    CHECK_LE(d[D_G], 1e-9);
    CHECK_GT(fabs(off[k][2]), 0); /* off the manifold in psi as well: the strictions remove it */
    /* extended: H_e is a first integral and the manifold a centre (|g| stays of its size) */
    drift(ops[k], models[k], "extended", off[k], 10, d);
    CHECK_LE(d[D_HE], 1e-8);
    CHECK_LE(d[G_MAX], 0.1);
    CHECK_GT(d[D_G], 1e-4); /* not a first integral: g oscillates (the test can fail) */
    /* total: H_T is a first integral and the manifold a saddle (g runs away from off[k]) */
    drift(ops[k], models[k], "total", off[k], 2, d);
    CHECK_LE(d[D_HT], 1e-8 * (1 + d[G_MAX]));
    /* on the manifold the total field is the standard one: g stays zero to the tolerance */
  }
}

/* ------------------------------------------------------------------ (a) moving circle */

static void test_moving_circle_against_moving_frame(void **state) {
  (void)state;
  CHSProblem prob = new_problem_from_ops(&moving_circle_ops, "a=0.3,w=2,f0=0.4,fd0=0.7");
  mass_observer o = {.P = CHSProblem_GetData(prob)};
  const char *forms[] = {"impetus", "fj", "ssf"};
  for (size_t c = 0; c < sizeof forms / sizeof forms[0]; c++) {
    CHSRunSummary s = mass_run_within(prob, forms[c], "erk:dp5", 1e-12, 8, 1e-8, &o);
    assert_true(o.records > 20);
    CHECK_LE(s.diag.pos_res_max, 1e-9);
    CHECK_LE(s.diag.balance_err_max, 5e-4);
  }
  CHSProblem_Destroy(&prob);
}

/* ------------------------------------------------------------------ (d) refusals */

static void test_time_refusals_say_why(void **state) {
  (void)state;
  CHSProblem prob = new_problem_from_ops(&moving_circle_ops, "");
  const char *forms[] = {"extended", "total"};
  for (int i = 0; i < 2; i++) {
    CHSError err = formulation_refused(forms[i], prob, "time dependence");
    assert_non_null(strstr(err.msg, "g_tt")); /* the reason */
  }
  CHSProblem_Destroy(&prob);
}

/* ------------------------------------------------------------------ sparse M(q) */

/* The block-tridiagonal M(q) of mass-chain through CHOLMOD (CSR pattern) and through the dense
 * LAPACK factor (the same values as n x n): the fields agree to round-off, and the sparse one is
 * what a CSR pattern gets. */
static void test_sparse_mass_matches_dense(void **state) {
  (void)state;
  CHSProblem ps = new_problem_from_ops(&mass_chain_ops, "N=300"),
             pd = new_problem_from_ops(&mass_chain_ops, "N=300,sparse=0");
  const int n = 600, N = 2 * n;
  double *z = malloc(3 * (size_t)N * sizeof *z), *fs = z + N, *fd = fs + N;
  assert_non_null(z);
  assert_int_equal(mass_chain_ops.initial_state(CHSProblem_GetData(ps), z, z + n), 0);
  for (int i = 0; i < n; i++) { /* off the manifold in g and psi */
    z[i] *= 1.01;
    z[n + i] += 0.01 * sin(i);
  }
  const char *forms[] = {"dirac", "standard", "extended"};
  for (int k = 0; k < 3; k++) {
    CHSFormulation s = new_formulation(forms[k], ps, test_context());
    CHSFormulation d = new_formulation(forms[k], pd, test_context());
    assert_int_equal(chs_mass_factor_kind(&s->sys), CHS_MASS_FACTOR_SPARSE);
    assert_int_equal(chs_mass_factor_kind(&d->sys), CHS_MASS_FACTOR_DENSE);
    formulation_rhs(s, z, fs, N);
    formulation_rhs(d, z, fd, N);
    double diff = diff_inf(fs, fd, N), scale = norm_inf(fd, N);
    if (diff > 1e-12 * scale) {
      print_error("%s: sparse vs dense M(q): %.3e (scale %.3e)\n", forms[k], diff, scale);
    }
    CHECK_LE(diff, 1e-12 * scale);
    CHECK_GT(scale, 0.5);
    CHSFormulation_Destroy(&s);
    CHSFormulation_Destroy(&d);
  }
  free(z);
  CHSProblem_Destroy(&ps);
  CHSProblem_Destroy(&pd);
  /* n = 2000 through the sparse factor: dirac keeps the constraints along a run */
  CHSProblem pl = new_problem_from_ops(&mass_chain_ops, "N=1000");
  CHSFormulation f = new_formulation("dirac", pl, test_context());
  assert_int_equal(chs_mass_factor_kind(&f->sys), CHS_MASS_FACTOR_SPARSE);
  /* (Q = G M^{-1} G^T is dense for a coupled M: its m = 1000 Cholesky dominates each step) */
  CHSRunOptions opt = run_options("erk:rk4", 0.01, 0.01);
  CHSRunSummary sum = run_ok(f, &opt);
  CHECK_LE(sum.diag.pos_res_max, 1e-10);
  CHECK_LE(sum.diag.mom_res_max, 1e-10); /* |psi|_2 over m = 1000 */
  CHECK_LE(sum.diag.energy_err_max, 1e-6);
  /* one RK4 step: four stage evaluations, each factoring M(q) (SUNDIALS 6.4 adds one) */
  CHECK_GT(f->sys.n_mass_factor, 3);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&pl);
}

/* An indefinite M(q) (coupling eps = 3 > the blocks' diagonal dominance) is refused at the
 * problem's creation by both factorisations, naming M(q). (CHOLMOD's default simplicial LDL^T
 * factored it without complaint: the sparse path then failed later, blaming a "rank deficient"
 * constraint Jacobian; it now factors LL^T and reports the non-positive pivot.) */
static void test_indefinite_mass_is_refused(void **state) {
  (void)state;
  const char *params[] = {"N=10,eps=3", "N=10,eps=3,sparse=0"};
  for (int k = 0; k < 2; k++) {
    CHSProblem prob = NULL;
    CHSError err;
    CHSError_Clear(&err);
    assert_int_equal(CHSProblem_CreateFromOps(&mass_chain_ops, params[k], &prob, &err),
                     CHS_ERR_ARG);
    assert_null(prob);
    if (!strstr(err.msg, "not positive definite")) {
      print_error("%s: %s\n", params[k], err.msg);
    }
    assert_non_null(strstr(err.msg, "not positive definite"));
  }
  /* the sparse factor of an SPD M(q) at the same size: accepted */
  CHSProblem prob = new_problem_from_ops(&mass_chain_ops, "N=10,eps=0.2");
  CHSProblem_Destroy(&prob);
}

/* impetus's kinetic-scale variant (H = sigma(q) T + V) with M(q) or g(q, t): refused, saying
 * which combination and why (the polar pendulum and the moving circle with a scale). */
static int ks_scale(void *data, const sunrealtype *q, sunrealtype *sigma, sunrealtype *grad) {
  (void)data;
  *sigma = 1 + q[0] * q[0]; /* any positive scale: the refusal comes before its use */
  grad[0] = 2 * q[0];
  grad[1] = 0;
  return 0;
}
static int ks_pp_create(CHSParams params, void **data, CHSProblemDims *d, CHSError *err) {
  int rc = pp_create(params, data, d, err);
  d->kinetic_scaled = 1;
  return rc;
}
static int ks_mc_create(CHSParams params, void **data, CHSProblemDims *d, CHSError *err) {
  int rc = mc_create(params, data, d, err);
  d->kinetic_scaled = 1;
  return rc;
}

static void test_impetus_kinetic_scale_refusals(void **state) {
  (void)state;
  CHSProblemOps ops[2] = {polar_pendulum_ops, moving_circle_ops};
  ops[0].create = ks_pp_create;
  ops[1].create = ks_mc_create;
  const char *needle[] = {"M(q)", "time"};
  for (int k = 0; k < 2; k++) {
    ops[k].kinetic_scale = ks_scale;
    CHSProblem prob = new_problem_from_ops(&ops[k], "");
    CHSFormulation f = NULL;
    CHSError err;
    CHSError_Clear(&err);
    assert_int_equal(CHSFormulation_Create("impetus", prob, test_context(), &f, &err),
                     CHS_ERR_UNSUPPORTED);
    assert_null(f);
    assert_non_null(strstr(err.msg, "sigma(q)"));
    assert_non_null(strstr(err.msg, needle[k]));
    CHSProblem_Destroy(&prob);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_total_extended_are_hamiltonian_fields),
      cmocka_unit_test(test_polar_pendulum_against_reference),
      cmocka_unit_test(test_first_integrals_with_mass),
      cmocka_unit_test(test_moving_circle_against_moving_frame),
      cmocka_unit_test(test_time_refusals_say_why),
      cmocka_unit_test(test_sparse_mass_matches_dense),
      cmocka_unit_test(test_indefinite_mass_is_refused),
      cmocka_unit_test(test_impetus_kinetic_scale_refusals),
  };
  return cmocka_run_group_tests_name("mass_forms", tests, group_setup, group_teardown);
}
