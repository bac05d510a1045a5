/* Sparse residual Jacobians of the DAE formulations (src/linalg/jacobian_sparse.c) against the
 * dense analytic ones (formulations/dae_common.h, themselves checked against differences by
 * test_jacobian): equal to round-off on every problem with an analytic Jacobian, at the initial
 * state and at random inconsistent points with random cj (pendulum, double pendulum with dense
 * and CSR G, pendulum chain, the chain with all pairs (hess V from Hessian-vector products) and
 * with a cutoff (the problem's hessian_sparse), a user problem with constraint_third); the
 * problems without one (slider-crank: non-conservative; andrews: M(q)) are refused by the sparse
 * assembly and run with KLU on difference quotients. IDA with ls=klu (sparse) and ls=dense agree
 * to the tolerance; chain N = 2000 runs the sparse path (KLU re-analysed when the Hessian's
 * pattern changes) in seconds. */
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_sparse.h>
#include <suitesparse/cs.h>
#include "test_util.h"
#include "nonquadratic_problem.h"
#include "../src/impl.h"

static const char *const dae_forms[3] = {"dae-index3", "dae-ggl", "dae-index1"};

/* max |J_sparse - J_dense| / max(1, max |J_dense|) over the initial state and 3 random points. */
static double sparse_mismatch(CHSProblem prob, const char *form) {
  CHSFormulation f = new_formulation(form, prob, test_context());
  N_Vector y = new_initial_state(f), yp = N_VClone(y);
  long N = N_VGetLength(y);
  double *Jd = malloc((size_t)(N * N) * sizeof *Jd), *Js = malloc((size_t)(N * N) * sizeof *Js);
  double worst = 0;
  for (int pt = 0; pt < 4; pt++) {
    double cj = 1;
    assert_int_equal(CHSFormulation_InitialDerivative(f, y, yp), 0);
    if (pt > 0) {
      cj = random_inconsistent_point(y, yp, 0.05, 1000);
    }
    assert_int_equal(chs_jacobian_residual_dense(f, 0, cj, y, yp, Jd), 0);
    cs_dl *S = NULL;
    assert_int_equal(chs_dae_jacobian_csc(f, cj, N_VGetArrayPointer(y), &S), 0);
    assert_int_equal(S->m, N);
    assert_int_equal(S->n, N);
    memset(Js, 0, (size_t)(N * N) * sizeof *Js);
    for (long j = 0; j < N; j++) {
      for (long k = S->p[j]; k < S->p[j + 1]; k++) {
        if (k > S->p[j]) {
          assert_true(S->i[k] > S->i[k - 1]); /* sorted, no duplicates */
        }
        Js[S->i[k] + j * N] = S->x[k];
      }
    }
    chs_csc_free(S);
    double scale = fmax(1, norm_inf(Jd, (int)(N * N)));
    worst = fmax(worst, diff_inf(Js, Jd, (int)(N * N)) / scale);
  }
  free(Jd);
  free(Js);
  N_VDestroy(y);
  N_VDestroy(yp);
  CHSFormulation_Destroy(&f);
  return worst;
}

static void test_sparse_equals_dense(void **state) {
  (void)state;
  rng_seed(15);
  const char *probs[] = {"pendulum",
                         "double-pendulum",
                         "double-pendulum:sparse=0",
                         "pendulum-chain:N=6",
                         "chain",
                         "chain:N=12,init=1,vel=thermal",
                         "chain:N=30,init=2,vel=thermal,cutoff=2.5"};
  for (size_t i = 0; i < sizeof probs / sizeof *probs; i++) {
    CHSProblem prob = new_problem(probs[i]);
    for (int k = 0; k < 3; k++) {
      double e = sparse_mismatch(prob, dae_forms[k]);
      if (e > 1e-13) {
        print_error("%s %s: sparse - dense = %g\n", probs[i], dae_forms[k], e);
      }
      assert_true(e <= 1e-13);
    }
    CHSProblem_Destroy(&prob);
  }
  CHSProblem prob = NULL;
  CHSError err;
  assert_int_equal(CHSProblem_CreateFromOps(&nq_ops, NULL, &prob, &err), 0);
  for (int k = 0; k < 3; k++) {
    assert_true(sparse_mismatch(prob, dae_forms[k]) <= 1e-13);
  }
  CHSProblem_Destroy(&prob);
}

/* The chain's hessian_sparse against its Hessian-vector products (independent code paths), with
 * a cutoff (energy- and force-shifted), at a coil: H e_j column by column. */
static void chain_hessian_sparse(const char *spec) {
  CHSProblem prob = new_problem(spec);
  const CHSProblemOps *ops = CHSProblem_GetOps(prob);
  void *data = CHSProblem_GetData(prob);
  long n = CHSProblem_GetDims(prob)->n;
  double *q = malloc((size_t)n * sizeof *q), *p = malloc((size_t)n * sizeof *p);
  double *e = calloc((size_t)n, sizeof *e), *col = malloc((size_t)n * sizeof *col);
  sunindextype *rp = malloc((size_t)(n + 1) * sizeof *rp);
  assert_int_equal(ops->initial_state(data, q, p), 0);
  assert_int_equal(ops->hessian_sparse(data, q, 0, rp, NULL, NULL), 0);
  sunindextype nnz = rp[n];
  assert_true(nnz > 4 * n && nnz < n * n / 2); /* sparse, and more than the diagonal blocks */
  sunindextype *ci = malloc((size_t)nnz * sizeof *ci);
  double *val = malloc((size_t)nnz * sizeof *val), *H = calloc((size_t)(n * n), sizeof *H);
  assert_int_equal(ops->hessian_sparse(data, q, nnz, rp, ci, val), 0);
  for (long i = 0; i < n; i++) {
    for (sunindextype k = rp[i]; k < rp[i + 1]; k++) {
      H[i * n + ci[k]] = val[k];
    }
  }
  double worst = 0, scale = 0;
  for (long j = 0; j < n; j++) {
    e[j] = 1;
    assert_int_equal(ops->hessian_potential(data, q, e, col), 0);
    e[j] = 0;
    for (long i = 0; i < n; i++) {
      worst = fmax(worst, fabs(col[i] - H[i * n + j]));
      scale = fmax(scale, fabs(col[i]));
    }
  }
  assert_true(scale > 0);
  assert_true(worst <= 1e-13 * scale);
  free(q);
  free(p);
  free(e);
  free(col);
  free(rp);
  free(ci);
  free(val);
  free(H);
  CHSProblem_Destroy(&prob);
}

static void test_chain_hessian_sparse(void **state) {
  (void)state;
  chain_hessian_sparse("chain:N=40,init=2,cutoff=2.5");
  chain_hessian_sparse("chain:N=40,init=2,cutoff=2.5,shift=force");
}

static void test_no_sparse_jacobian(void **state) {
  (void)state;
  const char *probs[] = {"slider-crank", "andrews"};
  for (int i = 0; i < 2; i++) {
    CHSProblem prob = new_problem(probs[i]);
    CHSFormulation f = new_formulation("dae-ggl", prob, test_context());
    N_Vector y;
    CHSError err;
    assert_int_equal(CHSFormulation_NewInitialState(f, &y, &err), 0);
    cs_dl *S = NULL;
    assert_int_equal(chs_dae_jacobian_csc(f, 1, N_VGetArrayPointer(y), &S), CHS_ERR_UNSUPPORTED);
    assert_null(S);
    N_VDestroy(y);
    CHSFormulation_Destroy(&f);
    CHSProblem_Destroy(&prob);
  }
}

/* IDA with ls=klu and with ls=dense reach the same state to the tolerance. */
static void test_klu_agrees_with_dense(void **state) {
  (void)state;
  const char *probs[] = {"chain", "double-pendulum", "pendulum-chain:N=5", "slider-crank",
                         "andrews"};
  for (int i = 0; i < 5; i++) {
    CHSProblem prob = new_problem(probs[i]);
    for (int k = i == 4 ? 1 : 0; k < 3; k++) { /* andrews: index 3 is too stiff at 1e-10 */
      double qa[64], qb[64];
      final_record a = {CHSProblem_GetDims(prob)->n, qa, NULL}, b = {a.n, qb, NULL};
      assert_true(a.n <= 64);
      CHSFormulation f = new_formulation(dae_forms[k], prob, test_context());
      double tf = i == 4 ? 0.003 : 1;
      CHSRunOptions o = run_options("ida", 0, tf);
      o.ctl.rtol = o.ctl.atol = 1e-10;
      run_monitored_ok(f, &o, final_record_monitor, &b);
      for (int m = 0; m < 2; m++) { /* KLU, UMFPACK against the dense LU */
        o.method = m ? "ida:ls=umfpack" : "ida:ls=klu";
        run_monitored_ok(f, &o, final_record_monitor, &a);
        double d = diff_inf(a.q, b.q, (int)a.n), s = fmax(1, norm_inf(b.q, (int)a.n));
        if (d > 1e-6 * s) {
          print_error("%s %s %s: |q - q_dense| = %g\n", probs[i], dae_forms[k], o.method, d);
        }
        assert_true(d <= 1e-6 * s);
      }
      CHSFormulation_Destroy(&f);
    }
    CHSProblem_Destroy(&prob);
  }
}

/* N = 2000 (states 8000 + 2 m and more): beyond the dense Jacobian's reach, in seconds on the
 * sparse path; the constraints hold and the energy is conserved to the tolerance's order. The
 * pendulum chain with all three DAEs; the coiled chain (hess V's pattern from hessian_sparse,
 * a 2-D coupling: KLU's fill grows faster than N) with dae-ggl over a shorter time, by KLU and
 * by UMFPACK (ls=umfpack, made for matrices that fill). */
static void test_n2000(void **state) {
  (void)state;
  const char *probs[] = {"pendulum-chain:N=2000", "chain:N=2000,init=2,vel=thermal",
                         "chain:N=2000,init=2,vel=thermal"};
  for (int i = 0; i < 3; i++) {
    CHSProblem prob = new_problem(probs[i]);
    for (int k = i ? 1 : 0; k < (i ? 2 : 3); k++) {
      CHSFormulation f = new_formulation(dae_forms[k], prob, test_context());
      CHSRunOptions o = run_options(i == 2 ? "ida:ls=umfpack" : "ida:ls=klu", 0, i ? 0.01 : 0.05);
      o.ctl.rtol = o.ctl.atol = 1e-6;
      CHSRunSummary sum = run_ok(f, &o);
      assert_true(sum.completed);
      assert_true(sum.stats.jac_evals > 0);
      assert_true(sum.diag.pos_res_max < 1e-4);
      assert_true(sum.diag.energy_err_max < 1e-3);
      assert_true(chs_jac_work_symbolic(f->jac) >= 1);
      CHSFormulation_Destroy(&f);
    }
    CHSProblem_Destroy(&prob);
  }
}

/* A version-3 table (no hessian_sparse) still loads (the loader widens it: the field reads
 * NULL); the sparse Jacobian then builds hess V from Hessian-vector products and agrees. */
static void test_abi3_table(void **state) {
  (void)state;
  CHSProblem orig = new_problem("chain");
  const CHSProblemOps *chain = CHSProblem_GetOps(orig);
  unsigned char *v3 = malloc(CHS_PROBLEM_OPS_V3_SIZE);
  memcpy(v3, chain, CHS_PROBLEM_OPS_V3_SIZE);
  int three = 3;
  memcpy(v3 + offsetof(CHSProblemOps, abi_version), &three, sizeof three);
  CHSProblem prob = NULL;
  CHSError err;
  assert_int_equal(
      CHSProblem_CreateFromOps((const CHSProblemOps *)(void *)v3, "N=9,init=1", &prob, &err), 0);
  assert_null(CHSProblem_GetOps(prob)->hessian_sparse);
  for (int k = 0; k < 3; k++) {
    assert_true(sparse_mismatch(prob, dae_forms[k]) <= 1e-13);
  }
  CHSProblem_Destroy(&prob);
  CHSProblem_Destroy(&orig);
  free(v3);
}

/* The structure-reusing assembly (chs_dae_jacobian_csc_reuse: pattern and contributions' places
 * kept between evaluations) against CXSparse's (chs_dae_jacobian_csc, itself checked against the
 * dense Jacobians above): the same pattern and the same values to round-off, evaluation after
 * evaluation with one workspace, at the initial state and at random points with random cj. */
static double reuse_mismatch(CHSFormulation f, CHSSparseAsm **a, N_Vector y, double cj) {
  const cs_dl *R = NULL;
  cs_dl *S = NULL;
  assert_int_equal(chs_dae_jacobian_csc_reuse(f, a, cj, N_VGetArrayPointer(y), NULL, 0, &R), 0);
  assert_int_equal(chs_dae_jacobian_csc(f, cj, N_VGetArrayPointer(y), &S), 0);
  long N = N_VGetLength(y);
  assert_int_equal(R->n, N);
  /* the values written to a caller's array (SUNDIALS' matrix): bitwise the same; the
   * assembly's own array is then freed */
  sunindextype nnz = R->p[N];
  double *x = calloc((size_t)nnz + 1, sizeof *x), *own = malloc(((size_t)nnz + 1) * sizeof *own);
  const cs_dl *R2 = NULL;
  assert_non_null(x);
  assert_non_null(own);
  memcpy(own, R->x, (size_t)nnz * sizeof *own);
  assert_int_equal(chs_dae_jacobian_csc_reuse(f, a, cj, N_VGetArrayPointer(y), x, nnz, &R2), 0);
  assert_ptr_equal(R2, R);
  assert_int_equal(R2->p[N], nnz);
  assert_null(R2->x);
  assert_memory_equal(x, own, (size_t)nnz * sizeof *x);
  free(x);
  assert_int_equal(chs_dae_jacobian_csc_reuse(f, a, cj, N_VGetArrayPointer(y), NULL, 0, &R), 0);
  assert_memory_equal(R->x, own, (size_t)nnz * sizeof *own);
  free(own);
  double scale = fmax(1, norm_inf(S->x, (int)S->p[N])), d = 0;
  /* R's pattern holds S's (equal unless it kept the union with an earlier one: there, zeros) */
  for (long j = 0; j < N; j++) {
    sunindextype t = S->p[j];
    for (sunindextype r = R->p[j]; r < R->p[j + 1]; r++) {
      if (r > R->p[j]) {
        assert_true(R->i[r] > R->i[r - 1]);
      }
      if (t < S->p[j + 1] && S->i[t] == R->i[r]) {
        d = fmax(d, fabs(R->x[r] - S->x[t]) / scale);
        t++;
      } else {
        assert_true(R->x[r] == 0);
      }
    }
    assert_int_equal(t, S->p[j + 1]);
  }
  chs_csc_free(S);
  return d;
}

/* nnz of the reusing assembly's pattern, and whether it equals CXSparse's at y. */
static long reuse_nnz(CHSFormulation f, CHSSparseAsm **a, N_Vector y, int *same) {
  const cs_dl *R = NULL;
  cs_dl *S = NULL;
  assert_int_equal(chs_dae_jacobian_csc_reuse(f, a, 1, N_VGetArrayPointer(y), NULL, 0, &R), 0);
  assert_int_equal(chs_dae_jacobian_csc(f, 1, N_VGetArrayPointer(y), &S), 0);
  long N = N_VGetLength(y), nnz = R->p[N];
  *same = nnz == S->p[N] && memcmp(R->i, S->i, (size_t)nnz * sizeof *R->i) == 0;
  chs_csc_free(S);
  return nnz;
}

static void test_reuse_equals_cxsparse(void **state) {
  (void)state;
  rng_seed(16);
  const char *probs[] = {"pendulum",
                         "double-pendulum",
                         "double-pendulum:sparse=0",
                         "pendulum-chain:N=6",
                         "pendulum-chain:N=300",
                         "chain",
                         "chain:N=12,init=1,vel=thermal",
                         "chain:N=30,init=2,vel=thermal,cutoff=2.5",
                         NULL};
  for (int i = 0; i < (int)(sizeof probs / sizeof *probs); i++) {
    CHSProblem prob = NULL;
    CHSError err;
    if (probs[i]) {
      prob = new_problem(probs[i]);
    } else {
      assert_int_equal(CHSProblem_CreateFromOps(&nq_ops, NULL, &prob, &err), 0);
    }
    for (int k = 0; k < 3; k++) {
      CHSFormulation f = new_formulation(dae_forms[k], prob, test_context());
      N_Vector y, yp;
      assert_int_equal(CHSFormulation_NewInitialState(f, &y, &err), 0);
      yp = N_VClone(y);
      CHSSparseAsm *a = NULL;
      long N = N_VGetLength(y);
      double worst = 0;
      for (int pt = 0; pt < 4; pt++) {
        double cj = pt == 0 ? 1 : rng_uniform(0.5, 1000);
        if (pt > 0) {
          double *v = N_VGetArrayPointer(y);
          for (long j = 0; j < N; j++) {
            v[j] += rng_uniform(-0.05, 0.05);
          }
        }
        worst = fmax(worst, reuse_mismatch(f, &a, y, cj));
      }
      if (worst > 1e-14) {
        print_error("%s %s: reuse - cxsparse = %g\n", probs[i] ? probs[i] : "nq", dae_forms[k],
                    worst);
      }
      assert_true(worst <= 1e-14);
      assert_true(chs_sparse_asm_symbolic(a) <= 1 || (probs[i] && strstr(probs[i], "cutoff")));
      chs_sparse_asm_free(&a);
      assert_null(a);
      N_VDestroy(y);
      N_VDestroy(yp);
      CHSFormulation_Destroy(&f);
    }
    CHSProblem_Destroy(&prob);
  }
}

/* When hess V's pattern changes (the chain with a cutoff, compressed so that more pairs come
 * within it), the reusing assembly redoes its symbolic pass and still equals CXSparse's; it keeps
 * the union with the earlier pattern, so that going back changes the Jacobian's pattern no more
 * (no new KLU analysis), with zeros at the entries of the other configuration. */
static void test_reuse_pattern_change(void **state) {
  (void)state;
  CHSProblem prob = new_problem("chain:N=30,init=2,vel=thermal,cutoff=2.5");
  for (int k = 0; k < 3; k++) {
    CHSFormulation f = new_formulation(dae_forms[k], prob, test_context());
    N_Vector y, y2;
    CHSError err;
    assert_int_equal(CHSFormulation_NewInitialState(f, &y, &err), 0);
    y2 = N_VClone(y);
    long n = CHSProblem_GetDims(prob)->n;
    N_VScale(1, y, y2);
    for (long j = 0; j < n; j++) {
      N_VGetArrayPointer(y2)[j] *= 0.8;
    }
    CHSSparseAsm *a = NULL;
    int same = 0;
    long nnz1 = reuse_nnz(f, &a, y, &same);
    assert_true(same);
    assert_int_equal(chs_sparse_asm_symbolic(a), 1);
    assert_true(reuse_mismatch(f, &a, y, 3) <= 1e-14);
    assert_int_equal(chs_sparse_asm_symbolic(a), 1);
    long nnz2 = reuse_nnz(f, &a, y2, &same);
    assert_true(same); /* y's pattern lies within y2's */
    assert_true(nnz2 > nnz1);
    assert_int_equal(chs_sparse_asm_symbolic(a), 2);
    assert_true(reuse_mismatch(f, &a, y2, 7) <= 1e-14);
    assert_int_equal(chs_sparse_asm_symbolic(a), 2);
    assert_int_equal(reuse_nnz(f, &a, y, &same), nnz2); /* the union kept */
    assert_false(same);
    assert_int_equal(chs_sparse_asm_symbolic(a), 3);
    assert_true(reuse_mismatch(f, &a, y, 5) <= 1e-14);
    assert_int_equal(chs_sparse_asm_symbolic(a), 3);
    chs_sparse_asm_free(&a);
    N_VDestroy(y);
    N_VDestroy(y2);
    CHSFormulation_Destroy(&f);
  }
  CHSProblem_Destroy(&prob);
}

/* y = J v for a CSC matrix (accumulated into y, zeroed first) */
static void csc_mv(const cs_dl *J, const double *v, double *y) {
  memset(y, 0, (size_t)J->m * sizeof *y);
  for (long j = 0; j < J->n; j++) {
    for (sunindextype k = J->p[j]; k < J->p[j + 1]; k++) {
      y[J->i[k]] += J->x[k] * v[j];
    }
  }
}

/* IDA's Krylov preconditioner (chs_ida_prec_create, src/linalg/jacobian.c) is the assembly without
 * hess V (chs_sparse_asm_create(f, 1, .)). Its difference to the full Jacobian, applied to
 * v = (v_q, 0, ...), must be hess V v_q on the rows p, G M^{-1} hess V v_q on the rows lambda of
 * dae-index1, and 0 on every other row: hess V v_q from central differences of the force (an
 * independent truth), on the coil with a cutoff (hessian_sparse) and on the chain of 7 with all
 * pairs (Hessian-vector products). P's pattern does not follow the configuration: after a
 * compression that makes the full assembly redo its symbolic pass, P's is still the first. */
static void test_prec_without_hessv(void **state) {
  (void)state;
  rng_seed(23);
  const char *probs[] = {"chain:N=40,init=2,vel=thermal,cutoff=2.5", "chain"};
  for (int i = 0; i < 2; i++) {
    CHSProblem prob = new_problem(probs[i]);
    for (int k = 0; k < 3; k++) {
      CHSFormulation f = new_formulation(dae_forms[k], prob, test_context());
      CHSSystem *s = &f->sys;
      N_Vector y;
      CHSError err;
      assert_int_equal(CHSFormulation_NewInitialState(f, &y, &err), 0);
      long N = N_VGetLength(y), n = s->n;
      double *v = calloc((size_t)N, sizeof *v), *d1 = malloc((size_t)N * sizeof *d1),
             *d2 = malloc((size_t)N * sizeof *d2), *q = malloc((size_t)n * sizeof *q),
             *Fp = malloc((size_t)n * sizeof *Fp), *Fm = malloc((size_t)n * sizeof *Fm),
             *Hv = malloc((size_t)n * sizeof *Hv), *MHv = malloc((size_t)n * sizeof *MHv),
             *GMHv = malloc((size_t)s->m * sizeof *GMHv);
      assert_non_null(GMHv);
      const double *y0 = N_VGetArrayPointer(y);
      for (long j = 0; j < n; j++) {
        v[j] = rng_uniform(-1, 1);
      }
      const double eps = 1e-5;
      for (long j = 0; j < n; j++) {
        q[j] = y0[j] + eps * v[j];
      }
      assert_int_equal(s->ops->force(s->data, q, Fp), 0);
      for (long j = 0; j < n; j++) {
        q[j] = y0[j] - eps * v[j];
      }
      assert_int_equal(s->ops->force(s->data, q, Fm), 0);
      for (long j = 0; j < n; j++) {
        Hv[j] = -(Fp[j] - Fm[j]) / (2 * eps);
      }
      CHSSparseAsm *full = NULL, *pre = NULL;
      assert_int_equal(chs_sparse_asm_create(f, 1, &pre), 0);
      const cs_dl *J = NULL, *P = NULL;
      double cj = 37;
      assert_int_equal(chs_dae_jacobian_csc_reuse(f, &full, cj, y0, NULL, 0, &J), 0);
      csc_mv(J, v, d1);
      assert_int_equal(chs_dae_jacobian_csc_reuse(f, &pre, cj, y0, NULL, 0, &P), 0);
      csc_mv(P, v, d2); /* s->G is G(y0) again */
      chs_mass_inv(s, Hv, MHv);
      chs_jac_mv(s, s->G, MHv, GMHv);
      double scale = fmax(1, norm_inf(Hv, (int)n)), worst = 0;
      for (long r = 0; r < N; r++) {
        double want = r >= n && r < 2 * n                        ? Hv[r - n]
                      : k == 2 && r >= 2 * n && r < 2 * n + s->m ? GMHv[r - 2 * n]
                                                                 : 0;
        worst = fmax(worst, fabs(d1[r] - d2[r] - want) / scale);
      }
      print_message("%s %s: |(J - P) v - (0, hess V v_q, ..)| / |hess V v_q| = %.2e\n", probs[i],
                    dae_forms[k], worst);
      assert_true(worst <= 1e-6);
      assert_true(norm_inf(Hv, (int)n) > 1); /* the check can fail: hess V is not small here */
      if (i == 0) {                          /* compressed: new pairs within the cutoff */
        double *yc = malloc((size_t)N * sizeof *yc);
        assert_non_null(yc);
        memcpy(yc, y0, (size_t)N * sizeof *yc);
        for (long j = 0; j < n; j++) {
          yc[j] *= 0.8;
        }
        assert_int_equal(chs_dae_jacobian_csc_reuse(f, &full, cj, yc, NULL, 0, &J), 0);
        assert_int_equal(chs_dae_jacobian_csc_reuse(f, &pre, cj, yc, NULL, 0, &P), 0);
        assert_true(chs_sparse_asm_symbolic(full) >= 2);
        assert_int_equal(chs_sparse_asm_symbolic(pre), 1);
        free(yc);
      }
      chs_sparse_asm_free(&full);
      chs_sparse_asm_free(&pre);
      void *all[] = {v, d1, d2, q, Fp, Fm, Hv, MHv, GMHv};
      for (size_t t = 0; t < sizeof all / sizeof *all; t++) {
        free(all[t]);
      }
      N_VDestroy(y);
      CHSFormulation_Destroy(&f);
    }
    CHSProblem_Destroy(&prob);
  }
}

/* IDA with GMRES preconditioned by P (ida:ls=spgmr, prec=sparse by default) reaches the state of
 * IDA with KLU on the full Jacobian to the tolerance, on the coil (Lennard-Jones pairs with a
 * cutoff: P leaves out the 2-D coupling) and on the chain of 7, all three DAEs; it is
 * matrix-free (no Jacobian evaluations), counts its Krylov iterations, and KLU analyses P once. */
static void test_ida_krylov_agrees_with_klu(void **state) {
  (void)state;
  const char *probs[] = {"chain:N=300,init=2,vel=thermal,cutoff=2.5", "chain"};
  for (int i = 0; i < 2; i++) {
    CHSProblem prob = new_problem(probs[i]);
    long n = CHSProblem_GetDims(prob)->n;
    double *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    assert_non_null(b);
    for (int k = 0; k < 3; k++) {
      CHSFormulation f = new_formulation(dae_forms[k], prob, test_context());
      double tf = i == 0 ? 0.02 : 0.5;
      CHSRunOptions o = run_options("ida:ls=klu", 0, tf);
      o.ctl.rtol = o.ctl.atol = i == 0 ? 1e-9 : 1e-10;
      final_record fa = {n, a, NULL}, fb = {n, b, NULL};
      CHSRunSummary sk = run_monitored_ok(f, &o, final_record_monitor, &fa);
      assert_true(sk.completed);
      o.method = "ida:ls=spgmr";
      CHSRunSummary sg = run_monitored_ok(f, &o, final_record_monitor, &fb);
      assert_true(sg.completed);
      double d = diff_inf(a, b, (int)n) / fmax(1, norm_inf(a, (int)n));
      print_message("%s %s: steps %ld / %ld, Newton %ld / %ld, Krylov %ld, |q_gmres - q_klu| = "
                    "%.2e\n",
                    probs[i], dae_forms[k], sk.stats.steps, sg.stats.steps, sk.stats.nonlin_iters,
                    sg.stats.nonlin_iters, sg.stats.lin_iters, d);
      assert_true(d <= 1e-6);
      assert_int_equal(sg.stats.jac_evals, 0);
      assert_true(sg.stats.lin_iters > 0);
      assert_int_equal(chs_jac_work_symbolic(f->jac), 1);
      CHSFormulation_Destroy(&f);
    }
    free(a);
    free(b);
    CHSProblem_Destroy(&prob);
  }
}

/* KLU set-ups that keep the pivot order (src/linalg/klu.c) re-pivot when the kept order would
 * be unstable: A1 = [2 1; 1 1] is factored with its diagonal pivots; A2 = [1e-12 1; 1 1] (same
 * pattern) refactored with them would grow the entries by 1e12 and lose the solution of
 * A2 x = b, x = (1, 1), to about 1e-4; with the growth test it is exact to round-off. A zero
 * pivot (A3 = [0 1; 1 1]) is re-pivoted too. */
static void test_klu_keeps_pivots_safely(void **state) {
  (void)state;
  SUNContext ctx = test_context();
  SUNMatrix A = SUNSparseMatrix(2, 2, 4, CSC_MAT, ctx);
  N_Vector x = N_VNew_Serial(2, ctx), b = N_VNew_Serial(2, ctx);
  SUNLinearSolver ls = chs_klu_create(x, A, -1, ctx);
  assert_non_null(ls);
  sunindextype *Ap = SUNSparseMatrix_IndexPointers(A), *Ai = SUNSparseMatrix_IndexValues(A);
  double *Ax = SUNSparseMatrix_Data(A);
  const sunindextype p[] = {0, 2, 4}, ri[] = {0, 1, 0, 1};
  memcpy(Ap, p, sizeof p);
  memcpy(Ai, ri, sizeof ri);
  const double a1[] = {2, 1, 1, 1}, a11[] = {1e-12, 0};
  memcpy(Ax, a1, sizeof a1);
  assert_int_equal(SUNLinSolInitialize(ls), 0);
  assert_int_equal(SUNLinSolSetup(ls, A), 0);
  for (int t = 0; t < 2; t++) {
    Ax[0] = a11[t];
    assert_int_equal(SUNLinSolSetup(ls, A), 0);
    N_VGetArrayPointer(b)[0] = Ax[0] + 1;
    N_VGetArrayPointer(b)[1] = 2;
    assert_int_equal(SUNLinSolSolve(ls, A, x, b, 0), 0);
    assert_true(fabs(N_VGetArrayPointer(x)[0] - 1) < 1e-14);
    assert_true(fabs(N_VGetArrayPointer(x)[1] - 1) < 1e-14);
  }
  SUNLinSolFree(ls);
  SUNMatDestroy(A);
  N_VDestroy(x);
  N_VDestroy(b);
}

/* A CSC matrix of order n: a_jj = 4 + j/n, a_{j+-1, j} = -1, and a coupling c_j of row
 * (7 j + 3) mod n in column j of value 0.5 (kept only where it is not already an entry). */
static SUNMatrix klu_test_matrix(sunindextype n, int coupled, SUNContext ctx) {
  SUNMatrix A = SUNSparseMatrix(n, n, 4 * n, CSC_MAT, ctx);
  sunindextype *p = SUNSparseMatrix_IndexPointers(A), *ri = SUNSparseMatrix_IndexValues(A), t = 0;
  double *x = SUNSparseMatrix_Data(A);
  for (sunindextype j = 0; j < n; j++) {
    p[j] = t;
    sunindextype c = (7 * j + 3) % n;
    for (sunindextype i = 0; i < n; i++) {
      double v = i == j ? 4 + (double)j / (double)n : (i == j - 1 || i == j + 1) ? -1 : 0;
      if (coupled && i == c && v == 0) {
        v = 0.5;
      }
      if (v != 0) {
        ri[t] = i;
        x[t++] = v;
      }
    }
  }
  p[n] = t;
  return A;
}

/* B (klu_test_matrix uncoupled) with its first column zero: S's set-up fails recoverably;
 * restored, S solves B x = b (checked by the residual r). */
static void singular_then_solved(SUNLinearSolver S, SUNMatrix B, N_Vector x, N_Vector b,
                                 N_Vector r) {
  double b00 = SUNSparseMatrix_Data(B)[0], b10 = SUNSparseMatrix_Data(B)[1];
  SUNSparseMatrix_Data(B)[0] = SUNSparseMatrix_Data(B)[1] = 0;
  assert_true(SUNLinSolSetup(S, B) > 0);
  SUNSparseMatrix_Data(B)[0] = b00;
  SUNSparseMatrix_Data(B)[1] = b10;
  assert_int_equal(SUNLinSolSetup(S, B), 0);
  assert_int_equal(SUNLinSolSolve(S, B, x, b, 0), 0);
  assert_int_equal(SUNMatMatvec(B, x, r), 0);
  N_VLinearSum(1, r, -1, b, r);
  assert_true(N_VMaxNorm(r) < 1e-13);
}

/* chs_klu_create (KLU's int interface, src/linalg/klu.c) against SUNDIALS' own KLU
 * (SuiteSparse_long where sunindextype is 64-bit): the same ordering and pivots, hence bitwise the
 * same solution; and after a change of the pattern (chs_klu_reinit, or a different number of
 * entries), the solution of the new matrix, checked by its residual. */
static void test_klu32_equals_sundials_klu(void **state) {
  (void)state;
  SUNContext ctx = test_context();
  const sunindextype n = 300;
  SUNMatrix A = klu_test_matrix(n, 1, ctx), B = klu_test_matrix(n, 0, ctx);
  N_Vector b = N_VNew_Serial(n, ctx), x1 = N_VClone(b), x2 = N_VClone(b), r = N_VClone(b);
  for (sunindextype i = 0; i < n; i++) {
    N_VGetArrayPointer(b)[i] = sin((double)i);
  }
  SUNLinearSolver ours = chs_klu_create(b, A, -1, ctx), theirs = SUNLinSol_KLU(b, A, ctx);
  assert_non_null(ours);
  assert_non_null(theirs);
  assert_int_equal(SUNLinSolInitialize(ours), 0);
  assert_int_equal(SUNLinSolInitialize(theirs), 0);
  for (int t = 0; t < 2; t++) { /* a factorisation, then a refactorisation */
    SUNSparseMatrix_Data(A)[0] += t;
    assert_int_equal(SUNLinSolSetup(ours, A), 0);
    assert_int_equal(SUNLinSolSetup(theirs, A), 0);
    assert_int_equal(SUNLinSolSolve(ours, A, x1, b, 0), 0);
    assert_int_equal(SUNLinSolSolve(theirs, A, x2, b, 0), 0);
    for (sunindextype i = 0; i < n; i++) {
      assert_true(N_VGetArrayPointer(x1)[i] == N_VGetArrayPointer(x2)[i]);
    }
  }
  /* B: fewer entries (the couplings gone), then A again after chs_klu_reinit */
  SUNMatrix M[2] = {B, A};
  for (int t = 0; t < 2; t++) {
    if (t == 1) {
      assert_int_equal(chs_klu_reinit(ours), 0);
    }
    assert_int_equal(SUNLinSolSetup(ours, M[t]), 0);
    assert_int_equal(SUNLinSolSolve(ours, M[t], x1, b, 0), 0);
    assert_int_equal(SUNMatMatvec(M[t], x1, r), 0);
    N_VLinearSum(1, r, -1, b, r);
    assert_true(N_VMaxNorm(r) < 1e-13);
  }
  assert_int_equal(chs_klu_reinit(ours), 0);
  singular_then_solved(ours, B, x1, b, r);
  assert_int_equal(chs_klu_reinit(theirs), -1); /* not ours */
  SUNMatrix C = SUNSparseMatrix(n, n, 4 * n, CSR_MAT, ctx),
            R = SUNSparseMatrix(n, n + 1, 4, CSC_MAT, ctx);
  assert_null(chs_klu_create(b, C, -1, ctx)); /* CSR, not square: refused */
  assert_null(chs_klu_create(b, R, -1, ctx));
  SUNMatDestroy(C);
  SUNMatDestroy(R);
  SUNLinSolFree(ours);
  SUNLinSolFree(theirs);
  SUNMatDestroy(A);
  SUNMatDestroy(B);
  N_VDestroy(b);
  N_VDestroy(x1);
  N_VDestroy(x2);
  N_VDestroy(r);
}

/* chs_umfpack_create (UMFPACK behind chs's sparse solver, src/linalg/klu.c): the solution of each
 * matrix by its residual, with x and b apart or the same vector; a change of the pattern
 * (chs_klu_reinit, or a different number of entries) analysed anew; a singular matrix a
 * recoverable failure; CSR and non-square matrices refused. */
static void test_umfpack_solver(void **state) {
  (void)state;
  SUNContext ctx = test_context();
  const sunindextype n = 300;
  SUNMatrix A = klu_test_matrix(n, 1, ctx), B = klu_test_matrix(n, 0, ctx);
  N_Vector b = N_VNew_Serial(n, ctx), x = N_VClone(b), r = N_VClone(b);
  for (sunindextype i = 0; i < n; i++) {
    N_VGetArrayPointer(b)[i] = sin((double)i);
  }
  SUNLinearSolver S = chs_umfpack_create(b, A, ctx);
  assert_non_null(S);
  assert_int_equal(SUNLinSolInitialize(S), 0);
  SUNMatrix M[4] = {A, A, B, A};
  for (int t = 0; t < 4; t++) {
    if (t == 1) {
      SUNSparseMatrix_Data(A)[0] += 1; /* new values, the same pattern */
    }
    if (t == 3) {
      assert_int_equal(chs_klu_reinit(S), 0);
    }
    assert_int_equal(SUNLinSolSetup(S, M[t]), 0);
    N_VScale(1, b, x);
    assert_int_equal(SUNLinSolSolve(S, M[t], x, t == 2 ? x : b, 0), 0); /* in place at t = 2 */
    assert_int_equal(SUNMatMatvec(M[t], x, r), 0);
    N_VLinearSum(1, r, -1, b, r);
    assert_true(N_VMaxNorm(r) < 1e-13);
  }
  singular_then_solved(S, B, x, b, r);
  SUNMatrix C = SUNSparseMatrix(n, n, 4 * n, CSR_MAT, ctx),
            R = SUNSparseMatrix(n, n + 1, 4, CSC_MAT, ctx);
  assert_null(chs_umfpack_create(b, C, ctx));
  assert_null(chs_umfpack_create(b, R, ctx));
  SUNMatDestroy(C);
  SUNMatDestroy(R);
  SUNLinSolFree(S);
  SUNMatDestroy(A);
  SUNMatDestroy(B);
  N_VDestroy(b);
  N_VDestroy(x);
  N_VDestroy(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sparse_equals_dense),
      cmocka_unit_test(test_chain_hessian_sparse),
      cmocka_unit_test(test_no_sparse_jacobian),
      cmocka_unit_test(test_abi3_table),
      cmocka_unit_test(test_klu_agrees_with_dense),
      cmocka_unit_test(test_n2000),
      cmocka_unit_test(test_reuse_equals_cxsparse),
      cmocka_unit_test(test_reuse_pattern_change),
      cmocka_unit_test(test_klu_keeps_pivots_safely),
      cmocka_unit_test(test_klu32_equals_sundials_klu),
      cmocka_unit_test(test_umfpack_solver),
      cmocka_unit_test(test_prec_without_hessv),
      cmocka_unit_test(test_ida_krylov_agrees_with_klu),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
