/* The Lennard-Jones chain molecule at scale (problems/chain.c): sparse (CSR) and dense constraint
 * Jacobians give the same right-hand sides; cell lists against an independent all-pairs sum
 * (dense and hashed cell layouts, shifted potential); F = -grad V, Gdot and (hess V) u against
 * finite differences; linear momentum conserved to round-off by RK4 and DP5 with standard and
 * dirac; the angular momentum invariant against an independent computation; the thermal and
 * coil initial states (consistent, reproducible, non-overlapping); a version-1 problem table
 * still loads. */
#include <nvector/nvector_serial.h>
#include <unistd.h>
#include "test_util.h"
#include "../src/impl.h"

extern const CHSProblemOps chs_problem_chain; /* the built-in table (exported by libchs) */

/* ------------------------------------------------------------------ a dense-G chain
 * The same problem with G and Gdot stored densely (m x n row-major): wraps the built-in one. */
typedef struct {
  void *inner;
  CHSProblemDims id;
  double *Gs;
} dense_chain;

static int dc_create(CHSParams kv, void **data, CHSProblemDims *d, CHSError *err) {
  dense_chain *D = calloc(1, sizeof *D);
  *data = D;
  int rc = chs_problem_chain.create(kv, &D->inner, &D->id, err);
  if (rc != 0) {
    return rc;
  }
  D->Gs = malloc((size_t)D->id.nnz * sizeof *D->Gs);
  *d = D->id;
  d->jac_kind = CHS_JAC_DENSE;
  d->nnz = 0;
  d->rowptr = d->colind = NULL;
  return 0;
}
static void dc_destroy(void *data) {
  dense_chain *D = data;
  if (D->inner) {
    chs_problem_chain.destroy(D->inner);
  }
  free(D->Gs);
  free(D);
}
static int dc_potential(void *data, const double *q, double *V) {
  return chs_problem_chain.potential(((dense_chain *)data)->inner, q, V);
}
static int dc_force(void *data, const double *q, double *F) {
  return chs_problem_chain.force(((dense_chain *)data)->inner, q, F);
}
static int dc_hessian(void *data, const double *q, const double *u, double *Hu) {
  return chs_problem_chain.hessian_potential(((dense_chain *)data)->inner, q, u, Hu);
}
static int dc_constraint(void *data, const double *q, double *g) {
  return chs_problem_chain.constraint(((dense_chain *)data)->inner, q, g);
}
static void dc_spread(const dense_chain *D, double *G) {
  memset(G, 0, (size_t)(D->id.m * D->id.n) * sizeof *G);
  for (sunindextype i = 0; i < D->id.m; i++) {
    for (sunindextype k = D->id.rowptr[i]; k < D->id.rowptr[i + 1]; k++) {
      G[i * D->id.n + D->id.colind[k]] = D->Gs[k];
    }
  }
}
static int dc_jacobian(void *data, const double *q, double *G) {
  dense_chain *D = data;
  int rc = chs_problem_chain.jacobian(D->inner, q, D->Gs);
  dc_spread(D, G);
  return rc;
}
static int dc_jacobian_dot(void *data, const double *q, const double *u, double *Gd) {
  dense_chain *D = data;
  int rc = chs_problem_chain.jacobian_dot(D->inner, q, u, D->Gs);
  dc_spread(D, Gd);
  return rc;
}
static int dc_initial(void *data, double *q, double *p) {
  return chs_problem_chain.initial_state(((dense_chain *)data)->inner, q, p);
}
static const CHSProblemOps dense_chain_ops = {
    .abi_version = CHS_PROBLEM_ABI_VERSION,
    .name = "dense-chain",
    .create = dc_create,
    .destroy = dc_destroy,
    .potential = dc_potential,
    .force = dc_force,
    .constraint = dc_constraint,
    .jacobian = dc_jacobian,
    .jacobian_dot = dc_jacobian_dot,
    .hessian_potential = dc_hessian,
    .initial_state = dc_initial,
};

static void rhs_at(CHSProblem prob, const char *form, const double *z, double *out, int len) {
  CHSFormulation f = new_formulation(form, prob, test_context());
  formulation_rhs(f, z, out, len);
  CHSFormulation_Destroy(&f);
}

/* Sparse (CSR, with the dense / band / KLU Gram solvers) and dense G: the same right-hand sides
 * of standard, dirac and extended, on and off the manifold, N = 7 and N = 20. */
static void test_sparse_dense(void **state) {
  (void)state;
  const char *params[2] = {"N=7", "N=20,init=2,vel=thermal,seed=3"};
  const char *forms[3] = {"standard", "dirac", "extended"};
  const char *grams[3] = {"gram=dense", "gram=band", "gram=klu"};
  double worst = 0;
  for (int c = 0; c < 2; c++) {
    CHSProblem sp = NULL, dp = NULL;
    CHSError err;
    CHSError_Clear(&err);
    char spec[64];
    snprintf(spec, sizeof spec, "chain:%s", params[c]);
    sp = new_problem(spec);
    assert_int_equal(CHSProblem_CreateFromOps(&dense_chain_ops, params[c], &dp, &err), 0);
    assert_int_equal(CHSProblem_GetDims(dp)->jac_kind, CHS_JAC_DENSE);
    int n = (int)CHSProblem_GetDims(sp)->n, len = 2 * n;
    double *z = malloc(4 * (size_t)len * sizeof *z), *a = z + len, *b = a + len, *e = b + len;
    CHSProblem_GetOps(sp)->initial_state(CHSProblem_GetData(sp), z, z + n);
    rng_seed(11 + (uint64_t)c);
    for (int off = 0; off < 2; off++) {
      for (int i = 0; off && i < len; i++) {
        z[i] += 0.02 * rng_uniform(-1, 1);
      }
      for (int f = 0; f < 3; f++) {
        rhs_at(dp, forms[f], z, a, len);
        for (int g = 0; g < 3; g++) {
          char fs[64];
          snprintf(fs, sizeof fs, "%s:%s", forms[f], grams[g]);
          rhs_at(sp, fs, z, b, len);
          worst = fmax(worst, diff_inf(a, b, len) / (1 + norm_inf(a, len)));
        }
        (void)e;
      }
    }
    free(z);
    CHSProblem_Destroy(&sp);
    CHSProblem_Destroy(&dp);
  }
  print_message("chain: CSR vs dense G right-hand sides differ by %.2e (relative)\n", worst);
  CHECK_LE(worst, 1e-13);
}

/* ------------------------------------------------------------------ the potential */

/* Independent all-pairs truth: V with the pairs r < rc shifted (rc = 0: all pairs, no shift),
 * F = -grad V, with pow() and sqrt as in the formula. */
static void lj_truth(const double *q, int N, double rc, double *V, double *F) {
  const double eps = 0.1, sigma = 1;
  double shift = rc > 0 ? eps * (pow(sigma / rc, 12) - 2 * pow(sigma / rc, 6)) : 0;
  *V = 0;
  memset(F, 0, 2 * (size_t)N * sizeof *F);
  for (int i = 0; i < N; i++) {
    for (int j = i + 1; j < N; j++) {
      double dx = q[2 * i] - q[2 * j], dy = q[2 * i + 1] - q[2 * j + 1],
             r = sqrt(dx * dx + dy * dy);
      if (rc > 0 && r >= rc) {
        continue;
      }
      *V += eps * (pow(sigma / r, 12) - 2 * pow(sigma / r, 6)) - shift;
      double dphi = eps * (-12 * pow(sigma / r, 12) + 12 * pow(sigma / r, 6)) / r;
      F[2 * i] -= dphi * dx / r;
      F[2 * i + 1] -= dphi * dy / r;
      F[2 * j] += dphi * dx / r;
      F[2 * j + 1] += dphi * dy / r;
    }
  }
}

static void check_potential(const char *spec, const double *q, int N, double rc, double *worst_f,
                            double *worst_v) {
  CHSProblem prob = new_problem(spec);
  const CHSProblemOps *ops = CHSProblem_GetOps(prob);
  void *data = CHSProblem_GetData(prob);
  double *F = malloc(4 * (size_t)N * sizeof *F), *Ft = F + 2 * N, V, Vt;
  assert_int_equal(ops->potential(data, q, &V), 0);
  assert_int_equal(ops->force(data, q, F), 0);
  lj_truth(q, N, rc, &Vt, Ft);
  *worst_f = fmax(*worst_f, diff_inf(F, Ft, 2 * N) / (1e-300 + norm_inf(Ft, 2 * N)));
  *worst_v = fmax(*worst_v, fabs(V - Vt) / fmax(1, fabs(Vt)));
  free(F);
  CHSProblem_Destroy(&prob);
}

/* Cell lists = all pairs when the cutoff exceeds the system (V shifted by phi(rc) per pair);
 * with rc = 2.5 (several cells, dense layout) and on a configuration spread along a diagonal
 * (hashed layout) against the independent sum with the same cutoff. */
static void test_cells(void **state) {
  (void)state;
  const int N = 40;
  CHSProblem all = new_problem("chain:N=40,init=2,cutoff=0");
  CHSProblem big = new_problem("chain:N=40,init=2,cutoff=50");
  double q[80], p[80], Fa[80], Fb[80], Va, Vb;
  CHSProblem_GetOps(all)->initial_state(CHSProblem_GetData(all), q, p);
  rng_seed(5);
  for (int i = 0; i < 80; i++) {
    q[i] += 0.05 * rng_uniform(-1, 1);
  }
  const CHSProblemOps *ops = CHSProblem_GetOps(all);
  assert_int_equal(ops->force(CHSProblem_GetData(all), q, Fa), 0);
  assert_int_equal(ops->force(CHSProblem_GetData(big), q, Fb), 0);
  assert_int_equal(ops->potential(CHSProblem_GetData(all), q, &Va), 0);
  assert_int_equal(ops->potential(CHSProblem_GetData(big), q, &Vb), 0);
  double shift = 0.1 * (pow(1 / 50.0, 12) - 2 * pow(1 / 50.0, 6)), pairs = N * (N - 1) / 2.0;
  double df = diff_inf(Fa, Fb, 80) / norm_inf(Fa, 80);
  print_message("cell lists (rc = 50) vs all pairs: force %.2e (relative), V - V_all + pairs * "
                "phi(rc) = %.2e\n",
                df, Vb - Va + pairs * shift);
  CHECK_LE(df, 1e-13);
  CHECK_NEAR(Vb, Va - pairs * shift, 1e-13 * fabs(Va));
  CHSProblem_Destroy(&all);
  CHSProblem_Destroy(&big);

  double wf = 0, wv = 0;
  check_potential("chain:N=40,init=2,cutoff=2.5", q, N, 2.5, &wf, &wv);
  check_potential("chain:N=40,init=2,cutoff=1.3", q, N, 1.3, &wf, &wv);
  check_potential("chain:N=40,init=2", q, N, 0, &wf, &wv);
  /* 200 atoms in small clusters along a diagonal of length 1000: far more cells than atoms
   * (hashed layout), a few interacting pairs per cluster */
  double *z = malloc(400 * sizeof *z);
  for (int i = 0; i < 200; i++) {
    double c = 25.0 * (i / 5);
    z[2 * i] = c + 1.2 * (i % 5) + 0.1 * rng_uniform(-1, 1);
    z[2 * i + 1] = c + 0.9 * ((i % 5) % 2) + 0.1 * rng_uniform(-1, 1);
  }
  check_potential("chain:N=200,cutoff=2.5", z, 200, 2.5, &wf, &wv);
  check_potential("chain:N=200,cutoff=30", z, 200, 30, &wf, &wv);
  free(z);
  print_message("cell lists vs independent cut-off sums: force %.2e, V %.2e (relative)\n", wf, wv);
  CHECK_LE(wf, 1e-12);
  CHECK_LE(wv, 1e-12);
}

/* F = -grad V, (hess V) u = -dF/de (q + e u) and Gdot(q, u) = dG/de (q + e u) by central
 * differences, all pairs and with cell lists. */
static void test_derivatives(void **state) {
  (void)state;
  const char *specs[3] = {"chain:N=30,init=2,cutoff=0", "chain:N=30,init=2,cutoff=2.5",
                          "chain:N=30,init=2,cutoff=2.5,shift=force"};
  double wf = 0, wh = 0, wg = 0;
  for (int c = 0; c < 3; c++) {
    CHSProblem prob = new_problem(specs[c]);
    const CHSProblemOps *ops = CHSProblem_GetOps(prob);
    void *data = CHSProblem_GetData(prob);
    const int n = 60, nnz = (int)CHSProblem_GetDims(prob)->nnz;
    double q[60], p[60], u[60], F[60], Hu[60], Fp[60], Fm[60], qq[60], Vp, Vm;
    double *G = malloc(4 * (size_t)nnz * sizeof *G), *Gd = G + nnz, *Gp = Gd + nnz, *Gm = Gp + nnz;
    ops->initial_state(data, q, p);
    rng_seed(7 + (uint64_t)c);
    for (int i = 0; i < n; i++) {
      q[i] += 0.03 * rng_uniform(-1, 1);
      u[i] = rng_uniform(-1, 1);
    }
    assert_int_equal(ops->force(data, q, F), 0);
    assert_int_equal(ops->hessian_potential(data, q, u, Hu), 0);
    const double e = 1e-6;
    for (int i = 0; i < n; i++) {
      memcpy(qq, q, sizeof qq);
      qq[i] = q[i] + e;
      ops->potential(data, qq, &Vp);
      qq[i] = q[i] - e;
      ops->potential(data, qq, &Vm);
      wf = fmax(wf, fabs(F[i] + (Vp - Vm) / (2 * e)));
    }
    for (int i = 0; i < n; i++) {
      qq[i] = q[i] + e * u[i];
    }
    ops->force(data, qq, Fp);
    ops->jacobian(data, qq, Gp);
    for (int i = 0; i < n; i++) {
      qq[i] = q[i] - e * u[i];
    }
    ops->force(data, qq, Fm);
    ops->jacobian(data, qq, Gm);
    for (int i = 0; i < n; i++) {
      wh = fmax(wh, fabs(Hu[i] + (Fp[i] - Fm[i]) / (2 * e)) / (1 + norm_inf(Hu, n)));
    }
    ops->jacobian_dot(data, q, u, Gd);
    for (int k = 0; k < nnz; k++) {
      wg = fmax(wg, fabs(Gd[k] - (Gp[k] - Gm[k]) / (2 * e)));
    }
    free(G);
    CHSProblem_Destroy(&prob);
  }
  print_message("chain vs central differences: F %.2e, (hess V) u %.2e, Gdot %.2e\n", wf, wh, wg);
  CHECK_LE(wf, 1e-8);
  CHECK_LE(wh, 1e-7);
  CHECK_LE(wg, 1e-9);
}

/* |z_k - z_2k| for k = 32, 64, 128 steps of rattle (h = 0.01 / k, t = 0.01; z = (q, p) at t):
 * d[0..2] */
static void rattle_differences(const char *spec, double d[3]) {
  CHSProblem prob = new_problem(spec);
  CHSFormulation f = new_formulation("standard", prob, test_context());
  int n = (int)CHSProblem_GetDims(prob)->n;
  double *z[4];
  for (int j = 0; j < 4; j++) {
    z[j] = malloc(2 * (size_t)n * sizeof *z[j]);
    final_record fin = {n, z[j], z[j] + n};
    CHSRunOptions o = run_options("rattle", 0.01 / (32 << j), 0.01);
    o.every = 1000;
    run_monitored_ok(f, &o, final_record_monitor, &fin);
  }
  for (int j = 0; j < 3; j++) {
    d[j] = diff2(z[j], z[j + 1], 2 * n);
  }
  for (int j = 0; j < 4; j++) {
    free(z[j]);
  }
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

/* shift=force makes the force continuous at the cutoff: rattle's self-convergence on a thermal
 * coil whose pairs cross rc is of order 2 (differences fall 4x per halving of h); with the energy
 * shift alone the force jumps there and it is of order 1 (2x). */
static void test_cutoff_order(void **state) {
  (void)state;
  double de[3], df[3];
  rattle_differences("chain:N=300,init=2,vel=thermal,cutoff=2.5", de);
  rattle_differences("chain:N=300,init=2,vel=thermal,cutoff=2.5,shift=force", df);
  print_message("rattle |z_k - z_2k|, k = 32, 64, 128: energy shift %.3g %.3g %.3g; force shift "
                "%.3g %.3g %.3g\n",
                de[0], de[1], de[2], df[0], df[1], df[2]);
  /* over two halvings of h: order 2 gives 16, order 1 gives 4 */
  CHECK_GT(df[0] / df[2], 12.0);
  CHECK_LE(de[0] / de[2], 8.0);
  CHECK_LE(df[2], 0.05 * de[2]);
  /* a cutoff to shift: refused without one */
  CHSProblem prob = NULL;
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSProblem_Create("chain:N=30,cutoff=0,shift=force", &prob, &err), CHS_ERR_ARG);
  assert_non_null(strstr(err.msg, "shift=force needs a cutoff"));
}

/* ------------------------------------------------------------------ invariants */

typedef struct {
  double q[40], p[40];
  double P0[2], L0;
  double Pdrift, Ldrift;
  int k;
} mom_track;

/* Independent momenta of every record. */
static int mom_monitor(const CHSRecord *rec, void *ctx) {
  mom_track *m = ctx;
  double px = 0, py = 0, l = 0;
  for (int i = 0; i < 20; i++) {
    px += rec->p[2 * i];
    py += rec->p[2 * i + 1];
    l += rec->q[2 * i] * rec->p[2 * i + 1] - rec->q[2 * i + 1] * rec->p[2 * i];
  }
  if (m->k++ == 0) {
    m->P0[0] = px;
    m->P0[1] = py;
    m->L0 = l;
  }
  m->Pdrift = fmax(m->Pdrift, fmax(fabs(px - m->P0[0]), fabs(py - m->P0[1])));
  m->Ldrift = fmax(m->Ldrift, fabs(l - m->L0));
  memcpy(m->q, rec->q, sizeof m->q);
  memcpy(m->p, rec->p, sizeof m->p);
  return 0;
}

/* The free chain (thermal, with cell lists) keeps its linear momentum to round-off under RK4
 * and DP5, standard and dirac; the reported invariant drifts equal independent ones. */
static void test_momentum(void **state) {
  (void)state;
  CHSProblem prob = new_problem("chain:N=20,init=2,vel=thermal,kT=0.1,seed=9,cutoff=2.5");
  assert_int_equal(CHSProblem_GetNumInvariants(prob), 3);
  assert_string_equal(CHSProblem_GetOps(prob)->invariant_names[2], "angular_momentum");
  const char *forms[2] = {"standard", "dirac"}, *methods[2] = {"erk:rk4", "erk:dp5"};
  double worstP = 0;
  for (int f = 0; f < 2; f++) {
    for (int m = 0; m < 2; m++) {
      CHSFormulation fo = new_formulation(forms[f], prob, test_context());
      CHSRunOptions o;
      CHSRunOptions_Default(&o);
      o.method = methods[m];
      o.tf = 20;
      if (m == 0) {
        o.ctl.h = 0.01;
        o.every = 100;
      } else {
        o.ctl.rtol = o.ctl.atol = 1e-8;
        o.every = 20;
      }
      mom_track tr;
      memset(&tr, 0, sizeof tr);
      CHSRunSummary sum;
      CHSError err;
      CHSError_Clear(&err);
      int rc = CHSRun(fo, &o, mom_monitor, &tr, &sum, &err);
      if (rc != 0) {
        print_error("%s/%s: %s\n", forms[f], methods[m], err.msg);
      }
      assert_int_equal(rc, 0);
      const CHSDiagnosticsSummary *d = &sum.diag;
      assert_int_equal(d->n_invariants, 3);
      /* the summary's drifts against the monitor's independent ones */
      CHECK_NEAR(d->invariant0[0], tr.P0[0], 1e-15);
      CHECK_NEAR(d->invariant0[2], tr.L0, 1e-12);
      CHECK_NEAR(fmax(d->invariant_err_max[0], d->invariant_err_max[1]), tr.Pdrift, 1e-15);
      CHECK_NEAR(d->invariant_err_max[2], tr.Ldrift, 1e-12 + 1e-9 * tr.Ldrift);
      worstP = fmax(worstP, tr.Pdrift);
      print_message("%s/%s: linear momentum drift %.2e, angular %.2e, |g| %.2e\n", forms[f],
                    methods[m], tr.Pdrift, tr.Ldrift, (double)d->pos_res_max);
      CHSFormulation_Destroy(&fo);
    }
  }
  /* thermal: zero total momentum; the drift stays at round-off */
  CHECK_LE(worstP, 1e-13);
  CHSProblem_Destroy(&prob);
}

/* The angular momentum invariant at a given state against its definition, for a rotating
 * hexagon ([Seiler, Dirac]'s initial state: L = v0 * (lever arms of the end atoms)). */
static void test_angular(void **state) {
  (void)state;
  CHSProblem prob = new_problem("chain");
  double q[14], p[14], inv[3], L = 0;
  CHSProblem_GetOps(prob)->initial_state(CHSProblem_GetData(prob), q, p);
  rng_seed(3);
  for (int i = 0; i < 14; i++) {
    q[i] += rng_uniform(-1, 1);
    p[i] = rng_uniform(-1, 1);
  }
  assert_int_equal(CHSProblem_Invariants(prob, q, p, inv), 0);
  double px = 0, py = 0;
  for (int i = 0; i < 7; i++) {
    double r[3] = {q[2 * i], q[2 * i + 1], 0}, v[3] = {p[2 * i], p[2 * i + 1], 0};
    L += r[0] * v[1] - r[1] * v[0]; /* z component of r x p */
    px += v[0];
    py += v[1];
  }
  CHECK_NEAR(inv[0], px, 1e-14);
  CHECK_NEAR(inv[1], py, 1e-14);
  CHECK_NEAR(inv[2], L, 1e-13);
  CHSProblem_Destroy(&prob);
  /* problems without invariants report none */
  CHSProblem pend = new_problem("pendulum");
  assert_int_equal(CHSProblem_GetNumInvariants(pend), 0);
  assert_int_equal(CHSProblem_Invariants(pend, q, p, inv), CHS_ERR_UNSUPPORTED);
  CHSProblem_Destroy(&pend);
}

/* ------------------------------------------------------------------ initial states */

static void initial(const char *spec, double **q, double **p, int *N) {
  CHSProblem prob = new_problem(spec);
  *N = (int)CHSProblem_GetDims(prob)->n / 2;
  *q = malloc(4 * (size_t)*N * sizeof **q);
  *p = *q + 2 * *N;
  CHSProblem_GetOps(prob)->initial_state(CHSProblem_GetData(prob), *q, *p);
  CHSProblem_Destroy(&prob);
}

/* Thermal momenta: |g| and |G p| at round-off, zero total momentum, kinetic energy
 * (N - 1) kT / 2, the same for the same seed and different for another; the coil keeps
 * non-bonded atoms >= 0.8 sigma apart (checked here by all pairs). */
static void test_initial_states(void **state) {
  (void)state;
  double *q, *p, *q2, *p2, *q3, *p3;
  int N, N2, N3;
  initial("chain:N=500,init=2,vel=thermal,kT=0.3,seed=42", &q, &p, &N);
  initial("chain:N=500,init=2,vel=thermal,kT=0.3,seed=42", &q2, &p2, &N2);
  initial("chain:N=500,init=2,vel=thermal,kT=0.3,seed=43", &q3, &p3, &N3);
  assert_int_equal(N, 500);
  assert_memory_equal(q, q2, 4 * (size_t)N * sizeof *q); /* q and p: reproducible */
  CHECK_GT(diff_inf(p, p3, 2 * N), 0.01);
  double gmax = 0, psimax = 0, px = 0, py = 0, T = 0, dmin = INFINITY;
  for (int a = 0; a + 1 < N; a++) {
    double dx = q[2 * a] - q[2 * a + 2], dy = q[2 * a + 1] - q[2 * a + 3];
    gmax = fmax(gmax, fabs(dx * dx + dy * dy - 1) / 2);
    psimax =
        fmax(psimax, fabs(dx * (p[2 * a] - p[2 * a + 2]) + dy * (p[2 * a + 1] - p[2 * a + 3])));
  }
  for (int i = 0; i < N; i++) {
    px += p[2 * i];
    py += p[2 * i + 1];
    T += (p[2 * i] * p[2 * i] + p[2 * i + 1] * p[2 * i + 1]) / 2;
    for (int j = i + 2; j < N; j++) {
      dmin = fmin(dmin, hypot(q[2 * i] - q[2 * j], q[2 * i + 1] - q[2 * j + 1]));
    }
  }
  print_message("thermal coil N = 500: max |g_a| %.2e, max |psi_a| %.2e, |P| %.2e, T / ((N-1) "
                "kT/2) = %.15f, min non-bonded distance %.3f\n",
                gmax, psimax, hypot(px, py), T / (499 * 0.3 / 2), dmin);
  CHECK_LE(gmax, 1e-13);
  CHECK_LE(psimax, 1e-13);
  CHECK_LE(hypot(px, py), 1e-12);
  CHECK_NEAR(T, 499 * 0.3 / 2, 1e-12 * T);
  CHECK_GT(dmin, 0.8);
  free(q);
  free(q2);
  free(q3);
  /* the zigzag with thermal momenta is consistent too */
  initial("chain:N=64,init=1,vel=thermal,seed=1", &q, &p, &N);
  psimax = 0;
  for (int a = 0; a + 1 < N; a++) {
    double dx = q[2 * a] - q[2 * a + 2], dy = q[2 * a + 1] - q[2 * a + 3];
    psimax =
        fmax(psimax, fabs(dx * (p[2 * a] - p[2 * a + 2]) + dy * (p[2 * a + 1] - p[2 * a + 3])));
  }
  CHECK_LE(psimax, 1e-13);
  free(q);
  /* overlapping configurations are refused, naming the atoms */
  CHSProblem prob = NULL;
  CHSError err;
  CHSError_Clear(&err);
  assert_int_not_equal(CHSProblem_Create("chain:N=30,init=1,L=0.4", &prob, &err), 0);
  assert_non_null(strstr(err.msg, "distance"));
}

/* The tridiagonal Gram solver (band, LDL^T) reports a numerically singular Q - a link of
 * length zero in a pendulum chain (no Lennard-Jones term to fail first) - as recoverable, and
 * solves like the dense LU elsewhere (test_sparse_dense). */
/* N = 2000 (cell lists; the tridiagonal Gram path, assembled, factored and solved in the
 * kinematics' pass, over many row blocks): band against KLU (general assembly, SUNLinSol_KLU)
 * for standard and dirac off the manifold; the defining properties of the fields with the
 * problem's own callbacks: d/dt psi = Gdot(q, q') v + G p' = 0 (both) and d/dt g = G q' = 0
 * (dirac), to round-off relative to the sums of the terms' magnitudes; and the same right-hand
 * side when ydot is y itself (in place). */
static void test_large_fields(void **state) {
  (void)state;
  CHSProblem prob = new_problem("chain:N=2000,init=2,vel=thermal,seed=2");
  const CHSProblemOps *ops = CHSProblem_GetOps(prob);
  void *data = CHSProblem_GetData(prob);
  const CHSProblemDims *d = CHSProblem_GetDims(prob);
  int n = (int)d->n, m = (int)d->m, len = 2 * n;
  double *z = malloc((3 * (size_t)len + 2 * (size_t)d->nnz) * sizeof *z);
  double *a = z + len, *b = a + len, *G = b + len, *Gd = G + d->nnz;
  ops->initial_state(data, z, z + n);
  rng_seed(5);
  for (int i = 0; i < len; i++) {
    z[i] += 1e-3 * rng_uniform(-1, 1);
  }
  const char *forms[2][2] = {{"standard:gram=band", "standard:gram=klu"},
                             {"dirac:gram=band", "dirac:gram=klu"}};
  double solvers = 0, dpsi = 0, dg = 0, inplace = 0;
  for (int f = 0; f < 2; f++) {
    rhs_at(prob, forms[f][0], z, a, len);
    rhs_at(prob, forms[f][1], z, b, len);
    solvers = fmax(solvers, diff_inf(a, b, len) / (1 + norm_inf(a, len)));
    ops->jacobian(data, z, G);
    ops->jacobian_dot(data, z, a, Gd); /* Gdot(q, q') */
    for (int i = 0; i < m; i++) {
      double s1 = 0, a1 = 0, s2 = 0, a2 = 0;
      for (sunindextype k = d->rowptr[i]; k < d->rowptr[i + 1]; k++) {
        sunindextype c = d->colind[k];
        s1 += Gd[k] * z[n + c] + G[k] * a[n + c];
        a1 += fabs(Gd[k] * z[n + c]) + fabs(G[k] * a[n + c]);
        s2 += G[k] * a[c];
        a2 += fabs(G[k] * a[c]);
      }
      dpsi = fmax(dpsi, fabs(s1) / a1);
      if (f == 1) {
        dg = fmax(dg, fabs(s2) / a2);
      }
    }
    CHSFormulation form = new_formulation(forms[f][0], prob, test_context());
    N_Vector y = N_VNew_Serial(len, test_context());
    memcpy(N_VGetArrayPointer(y), z, (size_t)len * sizeof *z);
    assert_int_equal(CHSFormulation_Rhs(0, y, y, form), 0);
    inplace = fmax(inplace, diff_inf(a, N_VGetArrayPointer(y), len) / (1 + norm_inf(a, len)));
    N_VDestroy(y);
    CHSFormulation_Destroy(&form);
  }
  print_message("chain N = 2000: band vs KLU %.2e, d/dt psi %.2e, dirac d/dt g %.2e, in place "
                "%.2e (relative)\n",
                solvers, dpsi, dg, inplace);
  CHECK_LE(solvers, 1e-13);
  CHECK_LE(dpsi, 1e-12);
  CHECK_LE(dg, 1e-12);
  CHECK_LE(inplace, 0);
  free(z);
  CHSProblem_Destroy(&prob);
}

static void test_singular_tridiagonal(void **state) {
  (void)state;
  CHSProblem prob = new_problem("pendulum-chain:N=30,bend=0.3");
  CHSFormulation f = new_formulation("dirac:gram=band", prob, test_context());
  N_Vector y = NULL, yd = NULL;
  assert_int_equal(CHSFormulation_NewInitialState(f, &y, NULL), 0);
  yd = N_VClone(y);
  assert_int_equal(CHSFormulation_Rhs(0, y, yd, f), 0);
  double *z = N_VGetArrayPointer(y);
  z[2 * 11] = z[2 * 10]; /* atom 12 on top of atom 11 */
  z[2 * 11 + 1] = z[2 * 10 + 1];
  CHECK_GT(CHSFormulation_Rhs(0, y, yd, f), 0);
  assert_non_null(strstr(CHSFormulation_GetLastFailure(f)->msg, "singular"));
  N_VDestroy(y);
  N_VDestroy(yd);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

/* A table of ABI version 1 (built against the older header: without the fields appended in
 * version 2) still loads, and has no invariants. The table is copied into a buffer of exactly
 * the version-1 size, so a read past it is caught by the sanitizer build. */
static void test_abi_v1(void **state) {
  (void)state;
  size_t v1 = offsetof(CHSProblemOps, invariant_names);
  unsigned char *buf = malloc(v1);
  memcpy(buf, &chs_problem_chain, v1);
  int version = 1;
  memcpy(buf + offsetof(CHSProblemOps, abi_version), &version, sizeof version);
  const CHSProblemOps *old = (const CHSProblemOps *)(void *)buf;
  CHSProblem prob = NULL;
  CHSError err;
  CHSError_Clear(&err);
  int rc = CHSProblem_CreateFromOps(old, "N=7", &prob, &err);
  if (rc != 0) {
    print_error("%s\n", err.msg);
  }
  assert_int_equal(rc, 0);
  assert_int_equal(CHSProblem_GetNumInvariants(prob), 0);
  CHSFormulation f = new_formulation("dirac", prob, test_context());
  CHSRunOptions o;
  CHSRunOptions_Default(&o);
  o.ctl.h = 0.1;
  o.tf = 1;
  CHSRunSummary sum = run_ok(f, &o);
  assert_int_equal(sum.diag.n_invariants, 0);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
  version = CHS_PROBLEM_ABI_VERSION + 1;
  memcpy(buf + offsetof(CHSProblemOps, abi_version), &version, sizeof version);
  assert_int_not_equal(CHSProblem_CreateFromOps(old, "N=7", &prob, &err), 0);
  char want[32];
  snprintf(want, sizeof want, "ABI version %d", version);
  assert_non_null(strstr(err.msg, want));
  free(buf);
}

/* chain:N=7 from the chain's table cut to its first `size` bytes and labelled ABI `version` (a
 * table built against an older header); the loader widens it. */
static CHSProblem chain_old_table(int version, size_t size) {
  unsigned char *buf = malloc(size);
  assert_non_null(buf);
  memcpy(buf, &chs_problem_chain, size);
  memcpy(buf + offsetof(CHSProblemOps, abi_version), &version, sizeof version);
  CHSProblem prob = NULL;
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSProblem_CreateFromOps((const CHSProblemOps *)(void *)buf, "N=7", &prob, &err),
                   0);
  free(buf);
  return prob;
}

/* force_local (ABI 5) equals the same components of force, on windows holding exactly the
 * components it may read (the rest of the window's array is NaN), at a perturbed state; an ABI-4
 * table (no force_local) still loads, and a negative force_reach is refused. */
static void test_force_local(void **state) {
  (void)state;
  const char *specs[] = {"pendulum-chain:N=9", "pendulum-chain:N=9,mass=2,gravity=3"};
  for (size_t s = 0; s < sizeof specs / sizeof *specs; s++) {
    CHSProblem prob = NULL;
    CHSError err;
    CHSError_Clear(&err);
    assert_int_equal(CHSProblem_Create(specs[s], &prob, &err), 0);
    const CHSProblemOps *ops = CHSProblem_GetOps(prob);
    const CHSProblemDims *d = CHSProblem_GetDims(prob);
    assert_non_null(ops->force_local);
    sunindextype n = d->n, r = d->force_reach;
    double *q = malloc(2 * (size_t)n * sizeof *q), *p = q + n,
           *F = malloc(2 * (size_t)n * sizeof *F);
    double *w = malloc((size_t)n * sizeof *w), *Fl = F + n;
    assert_int_equal(ops->initial_state(CHSProblem_GetData(prob), q, p), 0);
    for (sunindextype i = 0; i < n; i++) {
      q[i] += 0.01 * sin(1.0 + 3.0 * (double)i);
    }
    assert_int_equal(ops->force(CHSProblem_GetData(prob), q, F), 0);
    for (sunindextype i0 = 0; i0 < n; i0 += 3) {
      for (sunindextype i1 = i0 + 1; i1 <= n; i1 += 4) {
        sunindextype w0 = i0 - r > 0 ? i0 - r : 0, w1 = i1 + r < n ? i1 + r : n;
        for (sunindextype k = 0; k < n; k++) {
          w[k] = NAN;
        }
        memcpy(w, q + w0, (size_t)(w1 - w0) * sizeof *w);
        assert_int_equal(ops->force_local(CHSProblem_GetData(prob), w, w0, w1 - w0, i0, i1, Fl), 0);
        for (sunindextype i = i0; i < i1; i++) {
          assert_true(fabs(Fl[i - i0] - F[i]) <= 1e-15 * (1 + fabs(F[i])));
        }
      }
    }
    free(q);
    free(F);
    free(w);
    CHSProblem_Destroy(&prob);
  }
  /* an ABI-4 table: the fields up to hessian_sparse */
  CHSProblem prob = chain_old_table(4, offsetof(CHSProblemOps, force_local));
  assert_null(CHSProblem_GetOps(prob)->force_local);
  assert_non_null(CHSProblem_GetOps(prob)->hessian_sparse);
  CHSProblem_Destroy(&prob);
}

/* force_atoms (ABI 6) on a thermal coil (N = 500, cutoff 2.5: pairs across the turns): for
 * owned ranges of contiguous atoms (as an MPI rank holds them), in a shuffled order, with the
 * ghosts every other atom closer than the cutoff to an owned one (brute force over all pairs),
 * equals the same rows of force to 1e-13; without one of the ghosts that interacts, it differs
 * (the check can fail). An ABI-5 table still loads, without force_atoms. */
static void test_force_atoms(void **state) {
  (void)state;
  CHSProblem prob = NULL;
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSProblem_Create("chain:N=500,init=2,vel=thermal,cutoff=2.5", &prob, &err), 0);
  const CHSProblemOps *ops = CHSProblem_GetOps(prob);
  const CHSProblemDims *d = CHSProblem_GetDims(prob);
  void *data = CHSProblem_GetData(prob);
  assert_non_null(ops->force_atoms);
  assert_true(d->force_cutoff == 2.5);
  sunindextype N = d->n / 2;
  double *q = malloc(4 * (size_t)d->n * sizeof *q), *p = q + d->n, *F = p + d->n, *Fa = F + d->n;
  double *qa = malloc(2 * (size_t)N * sizeof *qa);
  sunindextype *atoms = malloc((size_t)N * sizeof *atoms);
  assert_int_equal(ops->initial_state(data, q, p), 0);
  assert_int_equal(ops->force(data, q, F), 0);
  double rc2 = d->force_cutoff * d->force_cutoff, worst = 0, missing = 0;
  sunindextype ranges[][2] = {{0, 100}, {137, 263}, {250, 251}, {400, 500}, {0, 500}};
  for (size_t r = 0; r < sizeof ranges / sizeof *ranges; r++) {
    sunindextype a0 = ranges[r][0], a1 = ranges[r][1], na = 0, far = -1;
    for (sunindextype i = a0; i < a1; i++) { /* the owned atoms, last first */
      atoms[na++] = a1 - 1 - (i - a0);
    }
    for (sunindextype j = 0; j < N; j++) { /* the ghosts */
      int near = 0;
      for (sunindextype i = a0; i < a1 && !near && (j < a0 || j >= a1); i++) {
        double dx = q[2 * i] - q[2 * j], dy = q[2 * i + 1] - q[2 * j + 1];
        near = dx * dx + dy * dy < rc2;
      }
      if (near) {
        far = (j + 1 < a0 || j > a1) ? j : far; /* interacts, not a bonded neighbour */
        atoms[na++] = j;
      }
    }
    for (sunindextype k = 0; k < na; k++) {
      qa[2 * k] = q[2 * atoms[k]];
      qa[2 * k + 1] = q[2 * atoms[k] + 1];
    }
    sunindextype nown = a1 - a0;
    assert_int_equal(ops->force_atoms(data, na, atoms, qa, nown, Fa), 0);
    for (sunindextype k = 0; k < nown; k++) {
      for (int c = 0; c < 2; c++) {
        double ref = F[2 * atoms[k] + c];
        worst = fmax(worst, fabs(Fa[2 * k + c] - ref) / (1 + fabs(ref)));
      }
    }
    if (far >= 0) { /* drop that ghost: some owned force changes */
      sunindextype t = 0;
      while (atoms[t] != far) {
        t++;
      }
      atoms[t] = atoms[na - 1];
      qa[2 * t] = qa[2 * (na - 1)];
      qa[2 * t + 1] = qa[2 * (na - 1) + 1];
      assert_int_equal(ops->force_atoms(data, na - 1, atoms, qa, nown, Fa), 0);
      double dmax = 0;
      for (sunindextype k = 0; k < nown; k++) {
        for (int c = 0; c < 2; c++) {
          dmax = fmax(dmax, fabs(Fa[2 * k + c] - F[2 * atoms[k] + c]));
        }
      }
      missing = fmax(missing, dmax);
    }
  }
  print_message("force_atoms: worst relative difference %.2e, without a ghost %.2e\n", worst,
                missing);
  assert_true(worst <= 1e-13);
  assert_true(missing > 1e-6);
  free(q);
  free(qa);
  free(atoms);
  CHSProblem_Destroy(&prob);
  /* an ABI-5 table: the fields up to force_local */
  prob = chain_old_table(5, offsetof(CHSProblemOps, force_atoms));
  assert_null(CHSProblem_GetOps(prob)->force_atoms);
  assert_non_null(CHSProblem_GetOps(prob)->hessian_sparse);
  CHSProblem_Destroy(&prob);
}

/* Sizes the machine cannot hold are refused at creation (exit 2 from `chs`), naming N and the
 * memory: the helper itself, and chain:N=10^8 (76 GB) when this machine has less physical memory
 * (chain accepted N = 10^8 and began allocating before; 760 bytes per atom with the names).
 * pendulum-chain's N > 10^7 is refused. */
static void test_size_check(void **state) {
  (void)state;
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(chs_problem_check_size("x", 1000, 700, "atom", &err), CHS_SUCCESS);
  assert_int_equal(chs_problem_check_size("x", 1000000000000000L, 700, "atom", &err), CHS_ERR_ARG);
  assert_non_null(strstr(err.msg, "N=1000000000000000 needs about 700000000.0 GB"));
  double phys = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
  if (phys < 1e8 * 760) {
    CHSProblem prob = NULL;
    CHSError_Clear(&err);
    int rc = CHSProblem_Create("chain:N=100000000", &prob, &err);
    print_message("%s\n", err.msg);
    assert_int_equal(rc, CHS_ERR_ARG);
    assert_null(prob);
    assert_non_null(strstr(err.msg, "chain: N=100000000 needs about 76.0 GB"));
    assert_non_null(strstr(err.msg, "physical memory"));
  }
  CHSProblem prob = NULL;
  CHSError_Clear(&err);
  assert_int_equal(CHSProblem_Create("pendulum-chain:N=10000001", &prob, &err), CHS_ERR_ARG);
  assert_non_null(strstr(err.msg, "10000001"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sparse_dense),
      cmocka_unit_test(test_cells),
      cmocka_unit_test(test_derivatives),
      cmocka_unit_test(test_cutoff_order),
      cmocka_unit_test(test_momentum),
      cmocka_unit_test(test_angular),
      cmocka_unit_test(test_initial_states),
      cmocka_unit_test(test_abi_v1),
      cmocka_unit_test(test_singular_tridiagonal),
      cmocka_unit_test(test_large_fields),
      cmocka_unit_test(test_size_check),
      cmocka_unit_test(test_force_local),
      cmocka_unit_test(test_force_atoms),
  };
  return cmocka_run_group_tests_name("chain", tests, group_setup, group_teardown);
}
