/* The derivative checker (chs/check.h) and the refusal of problems that lack a derivative a
 * formulation or method needs (no silent zero defaults).
 *
 * Truth: the built-in problems' and the test problem's derivatives are verified independently
 * elsewhere (test_formulations, test_nonquadratic, test_jacobian), so the checker must pass them;
 * the example plugin's variants (CHS_PERTURB_*) and the ops tables below are wrong by
 * construction, in one named callback each, so it must fail exactly that row. */
#include "test_util.h"
#include "../src/impl.h"
#include "nonquadratic_problem.h"

static const CHSCheckRow *row_named(const CHSCheckReport *rep, const char *name) {
  for (int i = 0; i < rep->nrows; i++) {
    if (strcmp(rep->rows[i].name, name) == 0) {
      return &rep->rows[i];
    }
  }
  print_error("no row '%s' in the report\n", name);
  fail();
  return NULL;
}

static void print_failures(const char *spec, const CHSCheckReport *rep) {
  for (int i = 0; i < rep->nrows; i++) {
    if (rep->rows[i].verdict == CHS_CHECK_FAIL) {
      print_error("%s: %s: %s\n", spec, rep->rows[i].name, rep->rows[i].detail);
    }
  }
}

static void check_prob(CHSProblem prob, const char *spec, CHSCheckReport *rep) {
  CHSError err;
  CHSError_Clear(&err);
  int rc = CHSProblem_Check(prob, NULL, rep, &err);
  if (rc != 0) {
    print_error("CHSProblem_Check(%s): %s\n", spec, err.msg);
  }
  assert_int_equal(rc, 0);
}

static void check_spec(const char *spec, CHSCheckReport *rep) {
  CHSProblem prob = new_problem(spec);
  check_prob(prob, spec, rep);
  CHSProblem_Destroy(&prob);
}

static void expect_all_pass(const char *spec) {
  CHSCheckReport rep;
  check_spec(spec, &rep);
  print_failures(spec, &rep);
  assert_int_equal(rep.n_fail, 0);
  /* the mandatory callbacks were compared at every point */
  const char *must[] = {"initial state", "force", "jacobian", "jacobian_dot"};
  for (size_t i = 0; i < sizeof must / sizeof must[0]; i++) {
    const CHSCheckRow *r = row_named(&rep, must[i]);
    assert_int_equal(r->verdict, CHS_CHECK_PASS);
    assert_true(r->comparisons > 0);
  }
  assert_int_equal(row_named(&rep, "force")->points, rep.points);
}

static void test_builtin_problems_pass(void **state) {
  (void)state;
  for (int i = 0; i < CHSProblemRegistry_Count(); i++) {
    expect_all_pass(CHSProblemRegistry_Get(i)->name);
  }
  expect_all_pass("chain:N=100");
  expect_all_pass("pendulum-chain:N=50");
  expect_all_pass("pendulum:hamiltonian=modified"); /* kinetic_scale's gradient too */
  expect_all_pass(CHS_EXAMPLE_PLUGIN);
  /* the declared facts of the built-in problems are checked and true */
  CHSCheckReport rep;
  check_spec("pendulum", &rep);
  assert_int_equal(row_named(&rep, "declared linear potential")->verdict, CHS_CHECK_PASS);
  assert_int_equal(row_named(&rep, "declared quadratic constraints")->verdict, CHS_CHECK_PASS);
  check_spec("chain", &rep);
  assert_int_equal(row_named(&rep, "hessian_potential")->verdict, CHS_CHECK_PASS);
  assert_int_equal(row_named(&rep, "declared quadratic constraints")->verdict, CHS_CHECK_PASS);
  assert_int_equal(row_named(&rep, "jacobian pattern")->verdict, CHS_CHECK_PASS);
}

/* Exactly one row fails, the one named. */
static void expect_only_failure(const char *spec, const char *name) {
  CHSCheckReport rep;
  check_spec(spec, &rep);
  const CHSCheckRow *r = row_named(&rep, name);
  if (r->verdict != CHS_CHECK_FAIL || rep.n_fail != 1) {
    print_failures(spec, &rep);
  }
  assert_int_equal(r->verdict, CHS_CHECK_FAIL);
  assert_int_equal(rep.n_fail, 1);
  /* the tolerance (of the worst comparison, from the FD estimate) is far below the error */
  CHECK_GT(r->max_rel_err, 1e-6);
  CHECK_GT(r->max_rel_err, 1e3 * r->tol);
}

static void test_wrong_derivatives_fail(void **state) {
  (void)state;
  expect_only_failure(CHS_CHECK_PLUGIN_GDOT, "jacobian_dot");
  expect_only_failure(CHS_CHECK_PLUGIN_HESSIAN, "hessian_potential");
  expect_only_failure(CHS_CHECK_PLUGIN_THIRD, "constraint_third");
}

/* Every built-in problem passes at 1000 points: the tolerance bounds the rounding of the
 * differences wherever they are taken (the terms of g and a^T M b cancel near the manifold and for
 * random a, b: |f| alone underestimated it at a few points in a thousand). */
static void test_builtin_problems_pass_many_points(void **state) {
  (void)state;
  CHSCheckOptions opt;
  CHSCheckOptions_Default(&opt);
  opt.points = 1000;
  for (int i = 0; i < CHSProblemRegistry_Count(); i++) {
    const char *spec = CHSProblemRegistry_Get(i)->name;
    CHSProblem prob = new_problem(spec);
    CHSCheckReport rep;
    CHSError err;
    CHSError_Clear(&err);
    assert_int_equal(CHSProblem_Check(prob, &opt, &rep, &err), 0);
    print_failures(spec, &rep);
    assert_int_equal(rep.n_fail, 0);
    assert_int_equal(rep.points, 1001);
    CHSProblem_Destroy(&prob);
  }
}

/* ---------------------------------------------------------------- 1 % errors */

/* A built-in problem's table with the output of one callback multiplied by 1.01. */
enum {
  MUT_FORCE,
  MUT_JACOBIAN,
  MUT_GDOT,
  MUT_HESSIAN,
  MUT_THIRD,
  MUT_KSCALE,
  MUT_MASS_DIR,
  MUT_MASS_GRAD,
  MUT_GT,
  MUT_GTIME,
  MUT_GTT,
  MUT_VT,
  MUT_MASS_GRAD_DIR,
  MUT_COUNT
};
static const char *const mut_row[MUT_COUNT] = {
    "force",         "jacobian",     "jacobian_dot", "hessian_potential", "constraint_third",
    "kinetic_scale", "mass_dir",     "mass_grad",    "constraint_dt",     "constraint_dt",
    "constraint_dt", "potential_dt", "mass_grad_dir"};
static const CHSProblemOps *mut_base;
static CHSProblemDims mut_dims;
static int mut_which;

static void mut_scale(int which, sunrealtype *x, sunindextype k) {
  for (sunindextype i = 0; x && which == mut_which && i < k; i++) {
    x[i] *= 1.01;
  }
}
static sunindextype mut_gsize(void) {
  return mut_dims.jac_kind == CHS_JAC_CSR ? mut_dims.nnz : mut_dims.n * mut_dims.m;
}
static int mut_create(CHSParams kv, void **data, CHSProblemDims *d, CHSError *err) {
  int rc = mut_base->create(kv, data, d, err);
  mut_dims = *d;
  return rc;
}
static int mut_force(void *data, const sunrealtype *q, sunrealtype *F) {
  int rc = mut_base->force(data, q, F);
  mut_scale(MUT_FORCE, F, mut_dims.n);
  return rc;
}
static int mut_jacobian(void *data, const sunrealtype *q, sunrealtype *G) {
  int rc = mut_base->jacobian(data, q, G);
  mut_scale(MUT_JACOBIAN, G, mut_gsize());
  return rc;
}
static int mut_gdot(void *data, const sunrealtype *q, const sunrealtype *u, sunrealtype *Gd) {
  int rc = mut_base->jacobian_dot(data, q, u, Gd);
  mut_scale(MUT_GDOT, Gd, mut_gsize());
  return rc;
}
static int mut_hessian(void *data, const sunrealtype *q, const sunrealtype *u, sunrealtype *Hu) {
  int rc = mut_base->hessian_potential(data, q, u, Hu);
  mut_scale(MUT_HESSIAN, Hu, mut_dims.n);
  return rc;
}
static int mut_third(void *data, const sunrealtype *q, const sunrealtype *u, const sunrealtype *w,
                     sunrealtype *out) {
  int rc = mut_base->constraint_third(data, q, u, w, out);
  mut_scale(MUT_THIRD, out, mut_dims.n);
  return rc;
}
static int mut_kscale(void *data, const sunrealtype *q, sunrealtype *sigma, sunrealtype *grad) {
  int rc = mut_base->kinetic_scale(data, q, sigma, grad);
  mut_scale(MUT_KSCALE, grad, mut_dims.n);
  return rc;
}
static int mut_mass_dir(void *data, const sunrealtype *q, const sunrealtype *u,
                        const sunrealtype *b, sunrealtype *out) {
  int rc = mut_base->mass_dir(data, q, u, b, out);
  mut_scale(MUT_MASS_DIR, out, mut_dims.n);
  return rc;
}
static int mut_mass_grad(void *data, const sunrealtype *q, const sunrealtype *a,
                         const sunrealtype *b, sunrealtype *out) {
  int rc = mut_base->mass_grad(data, q, a, b, out);
  mut_scale(MUT_MASS_GRAD, out, mut_dims.n);
  return rc;
}
static int mut_mass_grad_dir(void *data, const sunrealtype *q, const sunrealtype *u,
                             const sunrealtype *a, const sunrealtype *b, sunrealtype *out) {
  int rc = mut_base->mass_grad_dir(data, q, u, a, b, out);
  mut_scale(MUT_MASS_GRAD_DIR, out, mut_dims.n);
  return rc;
}
static int mut_constraint_dt(void *data, const sunrealtype *q, sunrealtype *gt, sunrealtype *Gt,
                             sunrealtype *gtt) {
  int rc = mut_base->constraint_dt(data, q, gt, Gt, gtt);
  mut_scale(MUT_GT, gt, mut_dims.m);
  mut_scale(MUT_GTIME, Gt, mut_gsize());
  mut_scale(MUT_GTT, gtt, mut_dims.m);
  return rc;
}
static int mut_potential_dt(void *data, const sunrealtype *q, sunrealtype *Vt) {
  int rc = mut_base->potential_dt(data, q, Vt);
  mut_scale(MUT_VT, Vt, 1);
  return rc;
}

/* The callback a mutation changes is supplied (and compared) by the table. */
static int mut_applies(const CHSProblemOps *o, const CHSProblemDims *d, int which) {
  switch (which) {
  case MUT_HESSIAN:
    return o->hessian_potential != NULL;
  case MUT_THIRD:
    return o->constraint_third != NULL;
  case MUT_KSCALE:
    return o->kinetic_scale != NULL && d->kinetic_scaled;
  case MUT_MASS_DIR:
  case MUT_MASS_GRAD:
    return d->mass_kind == CHS_MASS_CONFIG && o->mass_dir && o->mass_grad;
  case MUT_MASS_GRAD_DIR:
    return d->mass_kind == CHS_MASS_CONFIG && o->mass_dir && o->mass_grad && o->mass_grad_dir;
  case MUT_GT:
  case MUT_GTIME:
  case MUT_GTT:
    return o->constraint_dt != NULL && (d->time_dependent & CHS_TIME_CONSTRAINTS);
  case MUT_VT:
    return o->potential_dt != NULL && (d->time_dependent & CHS_TIME_POTENTIAL);
  default:
    return 1;
  }
}

/* Each checked callback of every built-in problem, 1 % wrong, fails its row at every seed. */
static void test_one_percent_errors_fail(void **state) {
  (void)state;
  const char *specs[] = {"pendulum", "double-pendulum", "pendulum-chain",
                         "chain",    "slider-crank",    "andrews",
                         "car-axis", "heavy-top",       "pendulum:hamiltonian=modified"};
  assert_int_equal(CHSProblemRegistry_Count(), 8); /* a new built-in joins the list above */
  int tried[MUT_COUNT] = {0};
  for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
    char name[64];
    snprintf(name, sizeof name, "%s", specs[s]);
    char *colon = strchr(name, ':');
    if (colon) {
      *colon = '\0';
    }
    mut_base = CHSProblemRegistry_Find(name);
    assert_non_null(mut_base);
    CHSProblemOps ops = *mut_base;
    ops.create = mut_create;
    ops.force = mut_force;
    ops.jacobian = mut_jacobian;
    ops.jacobian_dot = mut_gdot;
    ops.hessian_potential = mut_base->hessian_potential ? mut_hessian : NULL;
    ops.constraint_third = mut_base->constraint_third ? mut_third : NULL;
    ops.kinetic_scale = mut_base->kinetic_scale ? mut_kscale : NULL;
    ops.mass_dir = mut_base->mass_dir ? mut_mass_dir : NULL;
    ops.mass_grad = mut_base->mass_grad ? mut_mass_grad : NULL;
    ops.mass_grad_dir = mut_base->mass_grad_dir ? mut_mass_grad_dir : NULL;
    ops.constraint_dt = mut_base->constraint_dt ? mut_constraint_dt : NULL;
    ops.potential_dt = mut_base->potential_dt ? mut_potential_dt : NULL;
    mut_which = -1;
    CHSProblem prob = new_problem_from_ops(&ops, colon ? colon + 1 : NULL);
    CHSCheckReport rep;
    check_prob(prob, specs[s], &rep); /* unchanged: the wrappers themselves are right */
    print_failures(specs[s], &rep);
    assert_int_equal(rep.n_fail, 0);
    for (int w = 0; w < MUT_COUNT; w++) {
      if (!mut_applies(mut_base, &mut_dims, w)) {
        continue;
      }
      mut_which = w;
      for (int seed = 1; seed <= 3; seed++) {
        CHSCheckOptions opt;
        CHSCheckOptions_Default(&opt);
        opt.seed = (unsigned long long)seed;
        CHSError err;
        CHSError_Clear(&err);
        assert_int_equal(CHSProblem_Check(prob, &opt, &rep, &err), 0);
        const CHSCheckRow *r = row_named(&rep, mut_row[w]);
        if (r->verdict != CHS_CHECK_FAIL) {
          print_error("%s: %s 1 %% wrong, seed %d: row %s %s (%s)\n", specs[s], mut_row[w], seed,
                      r->name, CHSCheckVerdict_Name(r->verdict), r->detail);
          fail();
        }
      }
      tried[w]++;
      mut_which = -1;
    }
    CHSProblem_Destroy(&prob);
  }
  for (int w = 0; w < MUT_COUNT; w++) { /* each mutation met a problem that supplies it */
    if (tried[w] == 0) {
      print_error("no built-in problem supplies %s (mutation %d)\n", mut_row[w], w);
      fail();
    }
  }
}

/* ---------------------------------------------------------------- test ops tables */

static unsigned nq_declares; /* set before creating the variants below */
static int nq_create_declaring(CHSParams params, void **data, CHSProblemDims *d, CHSError *err) {
  int rc = nq_create(params, data, d, err);
  d->declares = nq_declares;
  return rc;
}

/* nq's G with the entry dg1/dq3 = q2 (0-based: row 0, column 2, value q[1]) left out of a CSR
 * pattern: it vanishes at the initial state (q[1] = 0), not at the perturbed points. */
static const sunindextype nqs_rowptr[3] = {0, 2, 4}, nqs_colind[4] = {0, 1, 0, 2};
static int nqs_create(CHSParams params, void **data, CHSProblemDims *d, CHSError *err) {
  int rc = nq_create(params, data, d, err);
  d->jac_kind = CHS_JAC_CSR;
  d->nnz = 4;
  d->rowptr = nqs_rowptr;
  d->colind = nqs_colind;
  return rc;
}
static int nqs_jacobian(void *data, const double *q, double *G) {
  (void)data;
  G[0] = 3 * q[0] * q[0];
  G[1] = q[2];
  G[2] = cos(q[0]);
  G[3] = 2 * q[2];
  return 0;
}
static int nqs_jacobian_dot(void *data, const double *q, const double *u, double *Gd) {
  (void)data;
  Gd[0] = 6 * q[0] * u[0];
  Gd[1] = u[2];
  Gd[2] = -sin(q[0]) * u[0];
  Gd[3] = 2 * u[2];
  return 0;
}

static void test_user_ops(void **state) {
  (void)state;
  CHSCheckReport rep;
  /* the correct non-quadratic problem passes, with both optional derivatives compared */
  CHSProblem prob = new_problem_from_ops(&nq_ops, NULL);
  check_prob(prob, "nonquadratic", &rep);
  print_failures("nonquadratic", &rep);
  assert_int_equal(rep.n_fail, 0);
  assert_int_equal(row_named(&rep, "hessian_potential")->verdict, CHS_CHECK_PASS);
  assert_int_equal(row_named(&rep, "constraint_third")->verdict, CHS_CHECK_PASS);
  CHSProblem_Destroy(&prob);

  /* false declarations: V is not linear, g not quadratic */
  CHSProblemOps ops = nq_ops;
  ops.create = nq_create_declaring;
  ops.hessian_potential = NULL;
  ops.constraint_third = NULL;
  nq_declares = CHS_DECLARE_LINEAR_POTENTIAL | CHS_DECLARE_QUADRATIC_CONSTRAINTS;
  prob = new_problem_from_ops(&ops, NULL);
  check_prob(prob, "nonquadratic, false declarations", &rep);
  assert_int_equal(row_named(&rep, "declared linear potential")->verdict, CHS_CHECK_FAIL);
  assert_int_equal(row_named(&rep, "declared quadratic constraints")->verdict, CHS_CHECK_FAIL);
  assert_int_equal(rep.n_fail, 2);
  CHSProblem_Destroy(&prob);

  /* without the optional derivatives and without declarations */
  ops = nq_ops;
  ops.hessian_potential = NULL;
  ops.constraint_third = NULL;
  ops.create = nq_create_declaring;
  nq_declares = 0;
  prob = new_problem_from_ops(&ops, NULL);
  check_prob(prob, "nonquadratic without optional derivatives", &rep);
  assert_int_equal(rep.n_fail, 0); /* missing is not wrong: skipped, and the reason given */
  assert_int_equal(row_named(&rep, "hessian_potential")->verdict, CHS_CHECK_SKIP);
  assert_non_null(strstr(row_named(&rep, "hessian_potential")->detail, "refuse"));
  CHSProblem_Destroy(&prob);

  /* a CSR pattern that leaves out a nonzero entry */
  ops = nq_ops;
  ops.create = nqs_create;
  ops.jacobian = nqs_jacobian;
  ops.jacobian_dot = nqs_jacobian_dot;
  ops.constraint_third = NULL;
  prob = new_problem_from_ops(&ops, NULL);
  check_prob(prob, "nonquadratic, incomplete pattern", &rep);
  const CHSCheckRow *pat = row_named(&rep, "jacobian pattern");
  assert_int_equal(pat->verdict, CHS_CHECK_FAIL);
  assert_non_null(strstr(pat->detail, "dg/dq_2 outside the CSR pattern"));
  assert_int_equal(row_named(&rep, "jacobian")->verdict, CHS_CHECK_PASS); /* the entries given */
  CHSProblem_Destroy(&prob);
}

static void test_options(void **state) {
  (void)state;
  CHSProblem prob = new_problem("pendulum");
  CHSCheckOptions opt;
  CHSCheckReport rep, rep2;
  CHSError err;
  CHSCheckOptions_Default(&opt);
  opt.levels = 1;
  assert_int_equal(CHSProblem_Check(prob, &opt, &rep, &err), CHS_ERR_ARG);
  assert_non_null(strstr(err.msg, "levels"));
  CHSCheckOptions_Default(&opt);
  opt.points = 5;
  opt.seed = 42;
  assert_int_equal(CHSProblem_Check(prob, &opt, &rep, &err), 0);
  assert_int_equal(rep.points, 6);
  assert_int_equal(CHSProblem_Check(prob, &opt, &rep2, &err), 0); /* reproducible */
  assert_memory_equal(&rep.rows[1], &rep2.rows[1], sizeof rep.rows[1]);
  CHSProblem_Destroy(&prob);
}

/* ---------------------------------------------------------------- no silent zero defaults */

static const CHSProblemOps *pendulum_ops;
static unsigned pend_declares;
static int pend_create(CHSParams params, void **data, CHSProblemDims *d, CHSError *err) {
  int rc = pendulum_ops->create(params, data, d, err);
  d->declares = pend_declares; /* what the test says, not what the pendulum declares */
  return rc;
}

static CHSProblem pendulum_declaring(unsigned declares, CHSProblemOps *ops) {
  pendulum_ops = CHSProblemRegistry_Find("pendulum");
  *ops = *pendulum_ops;
  ops->create = pend_create;
  pend_declares = declares;
  return new_problem_from_ops(ops, NULL);
}

static void expect_refused(const char *form, CHSProblem prob, const char *callback) {
  CHSFormulation f = NULL;
  CHSError err;
  CHSError_Clear(&err);
  int rc = CHSFormulation_Create(form, prob, test_context(), &f, &err);
  assert_int_equal(rc, CHS_ERR_UNSUPPORTED);
  assert_null(f);
  if (!strstr(err.msg, callback) || !strstr(err.msg, form)) {
    print_error("%s: message '%s' does not name %s\n", form, err.msg, callback);
    fail();
  }
}

static void test_refusal_without_declaration(void **state) {
  (void)state;
  CHSProblemOps ops;
  const char *forms[] = {"extended", "total"};
  /* the pendulum supplies neither optional derivative: without declarations both are missing */
  CHSProblem prob = pendulum_declaring(0, &ops);
  for (int i = 0; i < 2; i++) {
    expect_refused(forms[i], prob, "hessian_potential");
  }
  CHSProblem_Destroy(&prob);
  prob = pendulum_declaring(CHS_DECLARE_LINEAR_POTENTIAL, &ops);
  for (int i = 0; i < 2; i++) {
    expect_refused(forms[i], prob, "constraint_third");
  }
  CHSProblem_Destroy(&prob);
  /* accepted when declared, and then the field is the declared problem's: on the manifold it is
   * the standard one */
  prob = pendulum_declaring(CHS_DECLARE_LINEAR_POTENTIAL | CHS_DECLARE_QUADRATIC_CONSTRAINTS, &ops);
  CHSFormulation fs = new_formulation("standard", prob, test_context());
  double z[4] = {1, 0, 0, -2}, a[4], b[4];
  formulation_rhs(fs, z, a, 4);
  for (int i = 0; i < 2; i++) {
    CHSFormulation f = new_formulation(forms[i], prob, test_context());
    formulation_rhs(f, z, b, 4);
    CHECK_LE(diff_inf(a, b, 4), 1e-14);
    CHSFormulation_Destroy(&f);
  }
  CHSFormulation_Destroy(&fs);
  CHSProblem_Destroy(&prob);
  /* nq supplies both; without either, extended and total refuse it */
  CHSProblemOps nops = nq_ops;
  nops.hessian_potential = NULL;
  prob = new_problem_from_ops(&nops, NULL);
  expect_refused("total", prob, "hessian_potential");
  CHSProblem_Destroy(&prob);
  nops = nq_ops;
  nops.constraint_third = NULL;
  prob = new_problem_from_ops(&nops, NULL);
  expect_refused("extended", prob, "constraint_third");
  CHSProblem_Destroy(&prob);
}

/* Analytic Jacobians: none without the derivatives they are built from (difference quotients are
 * used then, jac=analytic is refused naming the callback). */
static void test_analytic_jacobians(void **state) {
  (void)state;
  CHSProblemOps hops = nq_ops, tops = nq_ops; /* a problem keeps a pointer to its table */
  CHSProblem full = new_problem_from_ops(&nq_ops, NULL);
  hops.hessian_potential = NULL;
  CHSProblem noH = new_problem_from_ops(&hops, NULL);
  tops.constraint_third = NULL;
  CHSProblem noT = new_problem_from_ops(&tops, NULL);
  const struct {
    const char *form;
    int full, noH, noT;
  } want[] = {{"standard", 1, 0, 0},
              {"dae-index1", 1, 0, 0},
              {"dae-index3", 1, 0, 1},
              {"dae-ggl", 1, 0, 1}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    CHSProblem probs[3] = {full, noH, noT};
    int has[3] = {want[i].full, want[i].noH, want[i].noT};
    for (int k = 0; k < 3; k++) {
      CHSFormulation f = new_formulation(want[i].form, probs[k], test_context());
      assert_int_equal(CHSFormulation_HasJacobian(f), has[k]);
      CHSFormulation_Destroy(&f);
    }
  }
  /* cvode with jac=analytic: refused, naming the callback; without jac=: difference quotients */
  CHSFormulation f = new_formulation("standard", noH, test_context());
  CHSRunOptions o = run_options("cvode:bdf:jac=analytic", 0, 0.5);
  o.ctl.rtol = 1e-8;
  o.ctl.atol = 1e-10;
  CHSRunSummary sum;
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSRun(f, &o, NULL, NULL, &sum, &err), CHS_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.msg, "hessian_potential"));
  o.method = "cvode:bdf:ls=klu";
  sum = run_ok(f, &o);
  assert_true(sum.diag.t_final == 0.5);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&full);
  CHSProblem_Destroy(&noH);
  CHSProblem_Destroy(&noT);
}

/* Exact tangent maps need the Hessian; Lobatto's Newton matrix takes differences of the force
 * instead, which changes the iteration, not the solution. */
static void test_methods(void **state) {
  (void)state;
  CHSProblemOps nops = nq_ops;
  nops.hessian_potential = NULL;
  CHSProblem noH = new_problem_from_ops(&nops, NULL), full = new_problem_from_ops(&nq_ops, NULL);
  CHSFormulation f = new_formulation("standard", noH, test_context());
  N_Vector y = NULL;
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSFormulation_NewInitialState(f, &y, &err), 0);
  CHSRunOptions o = run_options("rattle", 0.01, 0.1);
  CHSIntegrator it = NULL;
  assert_int_equal(CHSIntegrator_Create("rattle", f, y, 0, &o.ctl, &it, &err), 0);
  double dz[12] = {0};
  assert_int_equal(CHSIntegrator_TangentStep(it, 0.01, 2, dz, y, &err), CHS_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.msg, "hessian_potential"));
  CHSIntegrator_Destroy(&it);
  N_VDestroy(y);

  double qp[2][6];
  CHSProblem probs[2] = {noH, full};
  for (int k = 0; k < 2; k++) {
    CHSFormulation fk = new_formulation("standard", probs[k], test_context());
    CHSRunOptions lo = run_options("lobatto:3", 0.05, 1);
    N_Vector yk = NULL;
    assert_int_equal(CHSFormulation_NewInitialState(fk, &yk, &err), 0);
    CHSIntegrator ik = NULL;
    assert_int_equal(CHSIntegrator_Create("lobatto:3", fk, yk, 0, &lo.ctl, &ik, &err), 0);
    double t = 0;
    assert_int_equal(CHSIntegrator_Evolve(ik, 1, yk, &t, &err), 0);
    assert_int_equal(CHSFormulation_ToPhysical(fk, yk, qp[k], qp[k] + 3), 0);
    CHSIntegrator_Destroy(&ik);
    N_VDestroy(yk);
    CHSFormulation_Destroy(&fk);
  }
  CHECK_LE(diff_inf(qp[0], qp[1], 6), 1e-9);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&noH);
  CHSProblem_Destroy(&full);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_builtin_problems_pass),
      cmocka_unit_test(test_wrong_derivatives_fail),
      cmocka_unit_test(test_builtin_problems_pass_many_points),
      cmocka_unit_test(test_one_percent_errors_fail),
      cmocka_unit_test(test_user_ops),
      cmocka_unit_test(test_options),
      cmocka_unit_test(test_refusal_without_declaration),
      cmocka_unit_test(test_analytic_jacobians),
      cmocka_unit_test(test_methods),
  };
  return cmocka_run_group_tests_name("check", tests, group_setup, group_teardown);
}
