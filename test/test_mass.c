/* Configuration-dependent mass matrix M(q) and explicit time dependence (docs/mechanics.md):
 * the pendulum in polar coordinates against the Cartesian pendulum's reference, a point on a
 * circle whose centre moves against an independent model in the moving frame, the Hamilton-Dirac
 * first integrals from off-manifold starts, the derivative identities along the fields, the
 * projections' minimality, the energy balance and the refusals. */
#include "test_util.h"
#include "mass_problems.h"

/* ------------------------------------------------------------------ a skew M(q) for projections
 * M(q) = [[2, s], [s, 1 + q0^2]], s = sin(q1) / 2;  g = q0 + q1^2 / 2 - 1,  G = (1, q1); the
 * dimensions, V = q1 and F = -grad V of tilted-mass (mass_problems.h). */
static void sk_M(const sunrealtype *q, sunrealtype *M) {
  sunrealtype s = sin(q[1]) / 2;
  M[0] = 2;
  M[1] = M[2] = s;
  M[3] = 1 + q[0] * q[0];
}
static int sk_constraint(void *data, const sunrealtype *q, sunrealtype *g) {
  (void)data;
  g[0] = q[0] + q[1] * q[1] / 2 - 1;
  return 0;
}
static int sk_jacobian(void *data, const sunrealtype *q, sunrealtype *G) {
  (void)data;
  G[0] = 1;
  G[1] = q[1];
  return 0;
}
static int sk_jacobian_dot(void *data, const sunrealtype *q, const sunrealtype *u,
                           sunrealtype *Gd) {
  (void)data;
  (void)q;
  Gd[0] = 0;
  Gd[1] = u[1];
  return 0;
}
static int sk_initial(void *data, sunrealtype *q, sunrealtype *p) {
  (void)data;
  q[0] = 1; /* g = 0; p = M(q) (0, 1) so that G M^{-1} p = G (0, 1) = 0 */
  q[1] = 0;
  p[0] = 0;
  p[1] = 2;
  return 0;
}
static int sk_mass(void *data, const sunrealtype *q, sunrealtype *M) {
  (void)data;
  sk_M(q, M);
  return 0;
}
static int sk_mass_dir(void *data, const sunrealtype *q, const sunrealtype *u, const sunrealtype *b,
                       sunrealtype *out) {
  (void)data;
  sunrealtype ds = cos(q[1]) / 2 * u[1], dm = 2 * q[0] * u[0];
  out[0] = ds * b[1];
  out[1] = ds * b[0] + dm * b[1];
  return 0;
}
static int sk_mass_grad(void *data, const sunrealtype *q, const sunrealtype *a,
                        const sunrealtype *b, sunrealtype *out) {
  (void)data;
  out[0] = 2 * q[0] * a[1] * b[1];
  out[1] = cos(q[1]) / 2 * (a[0] * b[1] + a[1] * b[0]);
  return 0;
}
static const CHSProblemOps skew_ops = {
    .abi_version = CHS_PROBLEM_ABI_VERSION,
    .name = "skew-mass",
    .summary = "a non-diagonal M(q)",
    .params_doc = "",
    .create = tm_create,
    .destroy = pp_destroy,
    .potential = tm_potential,
    .force = tm_force,
    .constraint = sk_constraint,
    .jacobian = sk_jacobian,
    .jacobian_dot = sk_jacobian_dot,
    .initial_state = sk_initial,
    .mass_matrix = sk_mass,
    .mass_dir = sk_mass_dir,
    .mass_grad = sk_mass_grad,
};

/* ------------------------------------------------------------------ independent residuals */

/* g and psi = d/dt g(q(t), t) = G M^{-1} p + g_t, written out for each problem here (not the
 * library's). */
static void residuals(const CHSProblemOps *ops, const mc_data *P, sunrealtype t,
                      const sunrealtype *q, const sunrealtype *p, sunrealtype *g,
                      sunrealtype *psi) {
  if (ops == &polar_pendulum_ops) {
    *g = (q[0] * q[0] - 1) / 2;
    *psi = q[0] * p[0]; /* G M^{-1} p = (r, 0) (p_r, p_th / r^2) */
  } else if (ops == &skew_ops) {
    sunrealtype M[4], det, v0, v1;
    sk_M(q, M);
    det = M[0] * M[3] - M[1] * M[2];
    v0 = (M[3] * p[0] - M[1] * p[1]) / det;
    v1 = (-M[2] * p[0] + M[0] * p[1]) / det;
    *g = q[0] + q[1] * q[1] / 2 - 1;
    *psi = v0 + q[1] * v1;
  } else {
    sunrealtype c = P->a * sin(P->w * t), cd = P->a * P->w * cos(P->w * t);
    *g = ((q[0] - c) * (q[0] - c) + q[1] * q[1] - 1) / 2;
    *psi = (q[0] - c) * (p[0] - cd) + q[1] * p[1];
  }
}

/* ------------------------------------------------------------------ (a) callbacks by differences
 */

static void test_callbacks_by_differences(void **state) {
  (void)state;
  rng_seed(13);
  const CHSProblemOps *ops[] = {&polar_pendulum_ops, &skew_ops};
  for (int k = 0; k < 2; k++) {
    for (int trial = 0; trial < 5; trial++) {
      sunrealtype q[2] = {rng_uniform(0.5, 1.5), rng_uniform(-3, 3)}, u[2], a[2], b[2];
      for (int i = 0; i < 2; i++) {
        u[i] = rng_uniform(-1, 1);
        a[i] = rng_uniform(-1, 1);
        b[i] = rng_uniform(-1, 1);
      }
      sunrealtype Mp[4], Mm[4], qp[2], qm[2], e = 1e-5, out[2], fd[2];
      for (int i = 0; i < 2; i++) {
        qp[i] = q[i] + e * u[i];
        qm[i] = q[i] - e * u[i];
      }
      ops[k]->mass_matrix(NULL, qp, Mp);
      ops[k]->mass_matrix(NULL, qm, Mm);
      ops[k]->mass_dir(NULL, q, u, b, out);
      for (int i = 0; i < 2; i++) {
        fd[i] = ((Mp[2 * i] - Mm[2 * i]) * b[0] + (Mp[2 * i + 1] - Mm[2 * i + 1]) * b[1]) / (2 * e);
      }
      CHECK_LE(diff_inf(out, fd, 2), 1e-8);
      ops[k]->mass_grad(NULL, q, a, b, out);
      for (int j = 0; j < 2; j++) {
        sunrealtype ap = 0, am = 0;
        memcpy(qp, q, sizeof qp);
        memcpy(qm, q, sizeof qm);
        qp[j] += e;
        qm[j] -= e;
        ops[k]->mass_matrix(NULL, qp, Mp);
        ops[k]->mass_matrix(NULL, qm, Mm);
        for (int r = 0; r < 2; r++) {
          for (int c = 0; c < 2; c++) {
            ap += a[r] * Mp[2 * r + c] * b[c];
            am += a[r] * Mm[2 * r + c] * b[c];
          }
        }
        fd[j] = (ap - am) / (2 * e);
      }
      CHECK_LE(diff_inf(out, fd, 2), 1e-8);
    }
  }
  /* the moving circle's time derivatives by differences in t */
  mc_data P = {.a = 0.3, .w = 2};
  sunrealtype q[2] = {0.4, -0.8}, e = 1e-4, gp, gm, g0, gt, Gt[2], gtt, Gp[2], Gm[2], gtp, gtm;
  P.t = 0.7;
  mc_constraint_dt(&P, q, &gt, Gt, &gtt);
  mc_constraint(&P, q, &g0);
  P.t = 0.7 + e;
  mc_constraint(&P, q, &gp);
  mc_jacobian(&P, q, Gp);
  mc_constraint_dt(&P, q, &gtp, NULL, NULL);
  P.t = 0.7 - e;
  mc_constraint(&P, q, &gm);
  mc_jacobian(&P, q, Gm);
  mc_constraint_dt(&P, q, &gtm, NULL, NULL);
  CHECK_NEAR(gt, (gp - gm) / (2 * e), 1e-7);
  CHECK_NEAR(gtt, (gp - 2 * g0 + gm) / (e * e), 1e-5);
  CHECK_NEAR(gtt, (gtp - gtm) / (2 * e), 1e-7);
  CHECK_NEAR(Gt[0], (Gp[0] - Gm[0]) / (2 * e), 1e-7);
  CHECK_NEAR(Gt[1], (Gp[1] - Gm[1]) / (2 * e), 1e-7);
}

/* ------------------------------------------------------------------ (a) kinematics along fields
 * d/dt of g and psi along the field by central differences in (t, y): standard: g' = psi,
 * psi' = 0 (lambda = Q^{-1} r is exactly what makes psi' vanish: a wrong r, F_M or time term
 * shows); dirac: g' = psi' = 0; baumgarte (alpha = 1, beta = 1): psi' = -2 psi - g. At states off
 * the manifold. */
static void field_derivatives(const CHSProblemOps *ops, const char *params, const char *form,
                              sunrealtype *worst) {
  CHSProblem prob = new_problem_from_ops(ops, params);
  CHSFormulation f = new_formulation(form, prob, test_context());
  mc_data *P = ops == &moving_circle_ops ? CHSProblem_GetData(prob) : NULL;
  rng_seed(7);
  N_Vector y = N_VNew_Serial(4, test_context()), yd = N_VNew_Serial(4, test_context());
  sunrealtype *z = N_VGetArrayPointer(y), *zd = N_VGetArrayPointer(yd);
  for (int trial = 0; trial < 6; trial++) {
    sunrealtype t = rng_uniform(0, 3);
    z[0] = rng_uniform(0.8, 1.2);
    z[1] = rng_uniform(-2, 2);
    z[2] = rng_uniform(-1, 1);
    z[3] = rng_uniform(-1, 1);
    assert_int_equal(CHSFormulation_Rhs(t, y, yd, f), 0);
    sunrealtype g0, psi0, e = 1e-4, gp, pp, gm, pm, zp[4], zm[4];
    residuals(ops, P, t, z, z + 2, &g0, &psi0);
    for (int i = 0; i < 4; i++) {
      zp[i] = z[i] + e * zd[i];
      zm[i] = z[i] - e * zd[i];
    }
    residuals(ops, P, t + e, zp, zp + 2, &gp, &pp);
    residuals(ops, P, t - e, zm, zm + 2, &gm, &pm);
    sunrealtype dg = (gp - gm) / (2 * e), dpsi = (pp - pm) / (2 * e), eg, ep;
    if (strcmp(form, "standard") == 0) {
      eg = dg - psi0;
      ep = dpsi;
    } else if (strcmp(form, "dirac") == 0) {
      eg = dg;
      ep = dpsi;
    } else { /* baumgarte */
      eg = dg - psi0;
      ep = dpsi + 2 * psi0 + g0;
    }
    *worst = fmax(*worst, fmax(fabs(eg), fabs(ep)));
    CHECK_GT(fabs(psi0) + fabs(g0), 1e-3); /* really off the manifold */
  }
  N_VDestroy(y);
  N_VDestroy(yd);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

static void test_kinematics_along_the_flow(void **state) {
  (void)state;
  const char *forms[] = {"standard", "dirac", "baumgarte"};
  const CHSProblemOps *ops[] = {&polar_pendulum_ops, &moving_circle_ops, &skew_ops};
  for (int k = 0; k < 3; k++) {
    for (int i = 0; i < 3; i++) {
      sunrealtype worst = 0;
      field_derivatives(ops[k], "", forms[i], &worst);
      if (worst > 1e-7) {
        print_error("%s with %s: d/dt g, psi off by %.3e\n", ops[k]->name, forms[i], worst);
      }
      CHECK_LE(worst, 1e-7);
    }
  }
}

/* ------------------------------------------------------------------ (a) polar vs Cartesian */

static void test_polar_pendulum_against_reference(void **state) {
  (void)state;
  CHSProblem prob = new_problem_from_ops(&polar_pendulum_ops, "");
  mass_observer o = {.cart = new_problem("pendulum")};
  const struct {
    const char *form, *method;
    double tol, agree;
  } cfg[] = {{"standard", "erk:dp5", 1e-12, 2e-8},  {"dirac", "erk:dp5", 1e-12, 2e-8},
             {"baumgarte", "erk:dp5", 1e-12, 2e-8}, {"dirac", "cvode:bdf", 1e-10, 2e-5},
             {"dae-ggl", "ida", 1e-10, 2e-5},       {"dae-index1", "ida", 1e-10, 2e-5},
             {"dae-index3", "ida", 1e-10, 2e-4}};
  for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
    CHSRunSummary s =
        mass_run_within(prob, cfg[c].form, cfg[c].method, cfg[c].tol, 10, cfg[c].agree, &o);
    assert_true(o.records > 20);
    CHECK_LE(s.diag.energy_err_max, 100 * cfg[c].agree); /* H is conserved: M(q) is in it */
    assert_int_equal(s.diag.energy_invariant, 1);
    assert_int_equal(s.diag.balance_tracked, 0);
  }
  CHSProblem_Destroy(&o.cart);
  CHSProblem_Destroy(&prob);
}

/* ------------------------------------------------------------------ (b) Dirac first integrals */

static void dirac_invariants_from(const CHSProblemOps *ops, const sunrealtype *z0, double tol) {
  CHSProblem prob = new_problem_from_ops(ops, "");
  mc_data *P = ops == &moving_circle_ops ? CHSProblem_GetData(prob) : NULL;
  const char *forms[] = {"dirac", "standard"};
  for (int k = 0; k < 2; k++) {
    CHSFormulation f = new_formulation(forms[k], prob, test_context());
    N_Vector y = N_VNew_Serial(4, test_context());
    memcpy(N_VGetArrayPointer(y), z0, 4 * sizeof *z0);
    CHSStepControl ctl = {.rtol = 1e-12, .atol = 1e-12};
    CHSIntegrator it = NULL;
    CHSError err;
    CHSError_Clear(&err);
    assert_int_equal(CHSIntegrator_Create("erk:dp5", f, y, 0, &ctl, &it, &err), 0);
    sunrealtype g0, psi0, g, psi, tret = 0, dg = 0, dpsi = 0;
    residuals(ops, P, 0, z0, z0 + 2, &g0, &psi0);
    for (int j = 1; j <= (k == 0 ? 10 : 1); j++) { /* standard: g drifts, r may run away */
      int rc = CHSIntegrator_Evolve(it, 0.5 * j, y, &tret, &err);
      if (rc != 0) {
        print_error("%s: %s\n", forms[k], err.msg);
      }
      assert_int_equal(rc, 0);
      const sunrealtype *z = N_VGetArrayPointer(y);
      residuals(ops, P, tret, z, z + 2, &g, &psi);
      dg = fmax(dg, fabs(g - g0));
      dpsi = fmax(dpsi, fabs(psi - psi0));
    }
    if (k == 0) {
      CHECK_LE(dg, tol);
      CHECK_LE(dpsi, tol);
    } else { /* the standard ODE: g' = psi != 0, g drifts (the test can fail) */
      CHECK_GT(dg, 1e-3);
    }
    CHSIntegrator_Destroy(&it);
    N_VDestroy(y);
    CHSFormulation_Destroy(&f);
  }
  CHSProblem_Destroy(&prob);
}

static void test_dirac_keeps_g_and_psi(void **state) {
  (void)state;
  const sunrealtype zp[4] = {1.1, 0.9, 0.3, -1.5}; /* r = 1.1, p_r = 0.3: g, psi != 0 */
  dirac_invariants_from(&polar_pendulum_ops, zp, 1e-9);
  const sunrealtype zs[4] = {0.8, 0.5, 0.4, -0.2};
  dirac_invariants_from(&skew_ops, zs, 1e-9);
  const sunrealtype zm[4] = {0.3, -1.1, 0.9, 0.2}; /* off the moving circle */
  dirac_invariants_from(&moving_circle_ops, zm, 1e-9);
}

/* ------------------------------------------------------------------ (c) moving circle */

static void test_moving_circle_against_moving_frame(void **state) {
  (void)state;
  CHSProblem prob = new_problem_from_ops(&moving_circle_ops, "a=0.3,w=2,f0=0.4,fd0=0.7");
  mass_observer o = {.P = CHSProblem_GetData(prob)};
  const struct {
    const char *form, *method;
    double tol, agree, balance;
  } cfg[] = {{"standard", "erk:dp5", 1e-12, 1e-8, 5e-4},
             {"dirac", "erk:dp5", 1e-12, 1e-8, 5e-4},
             {"baumgarte", "erk:dp5", 1e-12, 1e-8, 5e-4},
             {"standard", "cvode:bdf", 1e-10, 1e-5, 2e-3},
             {"dae-ggl", "ida", 1e-10, 1e-5, 2e-3},
             {"dae-index1", "ida", 1e-10, 1e-5, 2e-3},
             /* the index-3 form leaves p out of the error test (algebraic, momentum floor atol 1):
              * the same bound as on the polar pendulum */
             {"dae-index3", "ida", 1e-10, 2e-4, 2e-3}};
  for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
    CHSRunSummary s =
        mass_run_within(prob, cfg[c].form, cfg[c].method, cfg[c].tol, 8, cfg[c].agree, &o);
    CHECK_GT(o.H_range[1] - o.H_range[0], 0.05); /* the moving constraint does work */
    assert_int_equal(s.diag.energy_invariant, 0);
    assert_int_equal(s.diag.energy_is_balance, 1);
    assert_int_equal(s.diag.balance_tracked, 1);
    CHECK_NEAR(s.diag.energy_err_max, s.diag.balance_err_max, 0);
    if (s.diag.balance_err_max > cfg[c].balance) {
      print_error("%s %s: energy balance error %.3e (records %ld)\n", cfg[c].form, cfg[c].method,
                  s.diag.balance_err_max, o.records);
    }
    CHECK_LE(s.diag.balance_err_max, cfg[c].balance);
  }
  CHSProblem_Destroy(&prob);
}

/* The energy balance closes at the order of RK4 and of the work's quadrature over the steps
 * (piecewise cubic, O(h^4)): halving h divides the balance error by 16 (measured 15.9; a wrong
 * power lambda^T g_t would leave an O(1) remainder). */
static void test_energy_balance_converges(void **state) {
  (void)state;
  CHSProblem prob = new_problem_from_ops(&moving_circle_ops, "");
  const char *forms[] = {"standard", "dirac"};
  for (int k = 0; k < 2; k++) {
    double bal[2];
    for (int j = 0; j < 2; j++) {
      CHSFormulation f = new_formulation(forms[k], prob, test_context());
      CHSRunOptions opt = run_options("erk:rk4", 0.02 / (1 << j), 8);
      CHSRunSummary s = run_monitored_ok(f, &opt, NULL, NULL);
      bal[j] = s.diag.balance_err_max;
      CHECK_GT(fabs(s.diag.work_final), 0.5); /* W = 0.8372 */
      CHSFormulation_Destroy(&f);
    }
    CHECK_LE(bal[1], 2e-4);
    CHECK_GT(bal[0] / bal[1], 12);
    CHECK_LE(bal[0] / bal[1], 20);
  }
  CHSProblem_Destroy(&prob);
}

/* ------------------------------------------------------------------ (d) refusals */

static void test_refusals(void **state) {
  (void)state;
  const CHSProblemOps *ops[] = {&polar_pendulum_ops, &moving_circle_ops};
  const char *needle[] = {"M(q)", "time"};
  for (int k = 0; k < 2; k++) {
    CHSProblem prob = new_problem_from_ops(ops[k], "");
    /* M(q): all formulations; g(q, t): extended and total refuse (test_mass_forms.c) */
    const char *forms[] = {"extended", "total"};
    for (size_t i = 0; k == 1 && i < sizeof forms / sizeof forms[0]; i++) {
      formulation_refused(forms[i], prob, needle[k]);
    }
    CHSFormulation f = new_formulation("standard", prob, test_context());
    N_Vector y0 = NULL;
    CHSError err;
    CHSError_Clear(&err);
    assert_int_equal(CHSFormulation_NewInitialState(f, &y0, &err), 0);
    /* rattle, lobatto, alpha-prk (M(q)): test_rattle, test_lobatto, test_alpha_prk */
    const char *methods[] = {"sprk", k == 1 ? "alpha-prk:3" : "sprk"};
    CHSStepControl ctl = {.h = 0.01};
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++) {
      CHSIntegrator it = NULL;
      CHSError_Clear(&err);
      assert_int_equal(CHSIntegrator_Create(methods[i], f, y0, 0, &ctl, &it, &err),
                       CHS_ERR_UNSUPPORTED);
      assert_null(it);
      assert_non_null(strstr(err.msg, methods[i]));
      assert_non_null(strstr(err.msg, needle[k]));
    }
    /* analytic Jacobians: none (jac=fd, the default, is used instead) */
    CHSIntegrator it = NULL;
    CHSStepControl actl = {.rtol = 1e-8, .atol = 1e-8};
    CHSError_Clear(&err);
    assert_int_equal(CHSIntegrator_Create("cvode:bdf:jac=analytic", f, y0, 0, &actl, &it, &err),
                     CHS_ERR_UNSUPPORTED);
    assert_int_equal(CHSFormulation_HasJacobian(f), 0);
    N_VDestroy(y0);
    CHSFormulation_Destroy(&f);
    CHSProblem_Destroy(&prob);
  }
  /* problem validation: the callbacks M(q) and time dependence need */
  CHSProblemOps bad = polar_pendulum_ops;
  bad.mass_grad = NULL;
  CHSProblem prob = NULL;
  CHSError err;
  CHSError_Clear(&err);
  assert_true(CHSProblem_CreateFromOps(&bad, "", &prob, &err) < 0);
  assert_non_null(strstr(err.msg, "mass_grad"));
  bad = moving_circle_ops;
  bad.constraint_dt = NULL;
  CHSError_Clear(&err);
  assert_true(CHSProblem_CreateFromOps(&bad, "", &prob, &err) < 0);
  assert_non_null(strstr(err.msg, "constraint_dt"));
  bad.constraint_dt = mc_constraint_dt;
  bad.set_time = NULL;
  CHSError_Clear(&err);
  assert_true(CHSProblem_CreateFromOps(&bad, "", &prob, &err) < 0);
  assert_non_null(strstr(err.msg, "set_time"));
  assert_null(prob);
}

/* ------------------------------------------------------------------ (e) projections */

static void test_projections_with_mass(void **state) {
  (void)state;
  CHSProblem prob = new_problem_from_ops(&skew_ops, "");
  CHSFormulation f = new_formulation("standard", prob, test_context());
  CHSProjector pr = NULL;
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSProjector_Create(f, CHS_PROJECT_BOTH, 0, &pr, &err), 0);
  N_Vector y = N_VNew_Serial(4, test_context());
  sunrealtype *z = N_VGetArrayPointer(y), z0[4] = {0.7, 0.9, 0.4, -0.3}, g, psi, M0[4];
  memcpy(z, z0, sizeof z0);
  residuals(&skew_ops, NULL, 0, z, z + 2, &g, &psi);
  CHECK_GT(fabs(g), 0.05);
  CHECK_GT(fabs(psi), 5e-3);
  assert_int_equal(CHSProjector_Apply(pr, 0, y), 0);
  residuals(&skew_ops, NULL, 0, z, z + 2, &g, &psi);
  CHECK_LE(fabs(g), 1e-13);
  CHECK_LE(fabs(psi), 1e-13);
  /* position: M(q0) dq is along G(q0)^T = (1, q1) (the M-minimal correction, Newton frozen at q0)
   */
  sk_M(z0, M0);
  sunrealtype dq[2] = {z[0] - z0[0], z[1] - z0[1]};
  sunrealtype Mdq[2] = {M0[0] * dq[0] + M0[1] * dq[1], M0[2] * dq[0] + M0[3] * dq[1]};
  CHECK_GT(norm2(dq, 2), 0.05);
  CHECK_LE(fabs(Mdq[1] - z0[1] * Mdq[0]), 1e-13);
  /* momentum: dp along G(q)^T at the corrected q (M(q)^{-1}-orthogonal to the tangent space) */
  sunrealtype dp[2] = {z[2] - z0[2], z[3] - z0[3]};
  CHECK_GT(norm2(dp, 2), 0.01);
  CHECK_LE(fabs(dp[1] - z[1] * dp[0]), 1e-13);
  CHSProjector_Destroy(&pr);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);

  /* a moving constraint: psi = G M^{-1} p + g_t = 0 at the projection's time */
  prob = new_problem_from_ops(&moving_circle_ops, "");
  f = new_formulation("dirac", prob, test_context());
  assert_int_equal(CHSProjector_Create(f, CHS_PROJECT_BOTH, 0, &pr, &err), 0);
  const mc_data *P = CHSProblem_GetData(prob);
  z[0] = 0.9;
  z[1] = -0.8;
  z[2] = 0.1;
  z[3] = 0.5;
  assert_int_equal(CHSProjector_Apply(pr, 1.3, y), 0);
  residuals(&moving_circle_ops, P, 1.3, z, z + 2, &g, &psi);
  CHECK_LE(fabs(g), 1e-13);
  CHECK_LE(fabs(psi), 1e-13);
  CHSProjector_Destroy(&pr);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
  N_VDestroy(y);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_callbacks_by_differences),
      cmocka_unit_test(test_kinematics_along_the_flow),
      cmocka_unit_test(test_polar_pendulum_against_reference),
      cmocka_unit_test(test_dirac_keeps_g_and_psi),
      cmocka_unit_test(test_moving_circle_against_moving_frame),
      cmocka_unit_test(test_energy_balance_converges),
      cmocka_unit_test(test_refusals),
      cmocka_unit_test(test_projections_with_mass),
  };
  return cmocka_run_group_tests_name("mass", tests, group_setup, group_teardown);
}
