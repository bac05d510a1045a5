/* A formulation that is not in the registry gets every path of a built-in one from its flags
 * (chs/formulation.h: CHS_FORM_DAE_INDEX, CHS_FORM_JAC_*), not from the table's address or name.
 * The "thin" formulations are copies of the built-in tables of standard, dae-index3, dae-ggl and
 * dae-index1 under other names, created by CHSFormulation_CreateFromOps:
 *  - the checks: CHSFormulation_HasJacobian answers as for the built-in on problems that lack
 *    hess V or the third derivatives of g (the user problem of nonquadratic_problem.h with
 *    hessian_potential, constraint_third or both removed) and on the built-ins;
 *  - the runs: CHSRun of the thin and the built-in formulation on the pendulum chain (CSR G)
 *    agree bitwise (final q and p, steps, evaluations, Jacobian evaluations, linear set-ups)
 *    with IDA on the dense analytic Jacobian, on the sparse assembly (ls=klu), with GMRES and
 *    the sparse preconditioner (prec=sparse: refused without a DAE index), and with the default
 *    solver; IDA's error weights depend on the index (dae-index1's multipliers are index 1);
 *    standard with CVODE BDF on its analytic Jacobian.
 * And the check of a declared bond-chain structure (chs_check_bond_chain, below). */
#include <nvector/nvector_serial.h>
#include "test_util.h"
#include "nonquadratic_problem.h"
#include "../src/impl.h"

/* The built-in table of `name` under the name "thin-<name>" (a table of the caller's). */
static CHSFormulationOps thin_ops(const char *name, char *buf, size_t len) {
  const CHSFormulationOps *ops = CHSFormulationRegistry_Find(name);
  assert_non_null(ops);
  CHSFormulationOps t = *ops;
  snprintf(buf, len, "thin-%s", name);
  t.name = buf;
  return t;
}

static CHSFormulation new_thin(const CHSFormulationOps *ops, CHSProblem prob) {
  CHSFormulation f = NULL;
  CHSError err;
  CHSError_Clear(&err);
  int rc = CHSFormulation_CreateFromOps(ops, "", prob, test_context(), &f, &err);
  if (rc != 0) {
    print_error("CHSFormulation_CreateFromOps(%s): %s\n", ops->name, err.msg);
  }
  assert_int_equal(rc, 0);
  return f;
}

static const char *const forms[4] = {"standard", "dae-index3", "dae-ggl", "dae-index1"};

static void test_thin_has_jacobian(void **state) {
  (void)state;
  CHSProblemOps variants[4] = {nq_ops, nq_ops, nq_ops, nq_ops};
  variants[1].hessian_potential = NULL;
  variants[2].constraint_third = NULL;
  variants[3].hessian_potential = NULL;
  variants[3].constraint_third = NULL;
  int seen[2] = {0, 0};
  for (int v = 0; v < 7; v++) {
    CHSProblem prob = v < 4 ? new_problem_from_ops(&variants[v], "")
                            : new_problem(v == 4   ? "pendulum"
                                          : v == 5 ? "chain:N=5"
                                                   : "andrews");
    for (int i = 0; i < 4; i++) {
      char buf[32];
      CHSFormulationOps t = thin_ops(forms[i], buf, sizeof buf);
      CHSFormulation fb = new_formulation(forms[i], prob, test_context()), ft = new_thin(&t, prob);
      int hb = CHSFormulation_HasJacobian(fb), ht = CHSFormulation_HasJacobian(ft);
      if (hb != ht) {
        print_error("problem variant %d, %s: HasJacobian %d, thin %d\n", v, forms[i], hb, ht);
      }
      assert_int_equal(hb, ht);
      seen[hb]++;
      CHSFormulation_Destroy(&fb);
      CHSFormulation_Destroy(&ft);
    }
    CHSProblem_Destroy(&prob);
  }
  assert_true(seen[0] > 0 && seen[1] > 0); /* both answers occur */
}

typedef struct {
  CHSRunSummary sum;
  double q[64], p[64];
} thin_run;

static void run_one(CHSFormulation f, const char *method, thin_run *r) {
  CHSRunOptions o = run_options(method, 0, 0.5);
  o.ctl.rtol = 1e-6;
  o.ctl.atol = 1e-8;
  final_record z = {CHSProblem_GetDims(CHSFormulation_GetProblem(f))->n, r->q, r->p};
  assert_true(z.n <= 64);
  r->sum = run_monitored_ok(f, &o, final_record_monitor, &z);
}

static void check_same(const char *form, const char *method) {
  CHSProblem prob = new_problem("pendulum-chain:N=8");
  char buf[32];
  CHSFormulationOps t = thin_ops(form, buf, sizeof buf);
  CHSFormulation fb = new_formulation(form, prob, test_context()), ft = new_thin(&t, prob);
  thin_run *rb = calloc(2, sizeof *rb), *rt = rb + 1;
  assert_non_null(rb);
  run_one(fb, method, rb);
  run_one(ft, method, rt);
  const CHSIntegratorStats *b = &rb->sum.stats, *s = &rt->sum.stats;
  long n = CHSProblem_GetDims(prob)->n;
  int same = b->steps == s->steps && rb->sum.rhs_evals == rt->sum.rhs_evals &&
             b->jac_evals == s->jac_evals && b->lin_setups == s->lin_setups &&
             b->lin_iters == s->lin_iters && memcmp(rb->q, rt->q, (size_t)n * sizeof *rb->q) == 0 &&
             memcmp(rb->p, rt->p, (size_t)n * sizeof *rb->p) == 0;
  if (!same) {
    print_error("%s %s: steps %ld/%ld, evaluations %ld/%ld, Jacobians %ld/%ld, set-ups %ld/%ld, "
                "|dq| %.3e\n",
                form, method, b->steps, s->steps, rb->sum.rhs_evals, rt->sum.rhs_evals,
                b->jac_evals, s->jac_evals, b->lin_setups, s->lin_setups,
                diff_inf(rb->q, rt->q, (int)n));
  }
  assert_true(same);
  print_message("%s %s: %ld steps, %ld Jacobians, %ld set-ups, %ld linear iterations\n", form,
                method, b->steps, b->jac_evals, b->lin_setups, b->lin_iters);
  /* a Newton matrix was used: assembled (Jacobians) or the preconditioner's (GMRES) */
  assert_true(b->jac_evals > 0 || (b->lin_setups > 0 && b->lin_iters > 0));
  free(rb);
  CHSFormulation_Destroy(&fb);
  CHSFormulation_Destroy(&ft);
  CHSProblem_Destroy(&prob);
}

static void test_thin_dae_runs(void **state) {
  (void)state;
  static const char *const methods[4] = {"ida:ls=dense", "ida:ls=klu", "ida:ls=spgmr,prec=sparse",
                                         "ida"};
  for (int i = 1; i < 4; i++) {
    for (int k = 0; k < 4; k++) {
      check_same(forms[i], methods[k]);
    }
  }
}

static void test_thin_standard_runs(void **state) {
  (void)state;
  check_same("standard", "cvode:bdf:ls=dense");
}

/* ------------------------------------------------------------------ declared bond chains
 * chs_check_bond_chain (src/analysis/check_chain.c): the built-in chains hold what they declare; a
 * chain declared anchored, a pendulum chain declared free and the pendulum (dense G, one atom)
 * declared a bond chain do not. */
static const CHSProblemOps *wrapped;
static unsigned wrapped_declares;
static int wrapped_create(CHSParams params, void **data, CHSProblemDims *dims, CHSError *err) {
  int rc = wrapped->create(params, data, dims, err);
  dims->declares = wrapped_declares;
  return rc;
}

static int declared_chain_holds(const char *name, const char *params, int redeclare,
                                unsigned declares) {
  CHSProblemOps ops = *CHSProblemRegistry_Find(name);
  if (redeclare) {
    wrapped = CHSProblemRegistry_Find(name);
    wrapped_declares = declares;
    ops.create = wrapped_create;
  }
  CHSProblem prob = new_problem_from_ops(&ops, params);
  long n = CHSProblem_GetDims(prob)->n;
  double *q = malloc((size_t)n * sizeof *q), *p = malloc((size_t)n * sizeof *p);
  assert_non_null(q);
  assert_non_null(p);
  assert_int_equal(ops.initial_state(CHSProblem_GetData(prob), q, p), 0);
  char detail[256];
  int ok = chs_check_bond_chain(prob, q, detail, sizeof detail);
  print_message("%s %s declares 0x%x: %d (%s)\n", name, params, CHSProblem_GetDims(prob)->declares,
                ok, detail);
  /* chs check reports the same verdict in its row, at the initial state and perturbed points */
  CHSCheckReport rep;
  CHSError err;
  CHSError_Clear(&err);
  int crc = CHSProblem_Check(prob, NULL, &rep, &err);
  if (crc != 0) {
    print_error("CHSProblem_Check: %s\n", err.msg);
  }
  assert_int_equal(crc, 0);
  int row = -1;
  for (int i = 0; i < rep.nrows; i++) {
    if (strcmp(rep.rows[i].name, "declared bond chain") == 0) {
      row = i;
    }
  }
  assert_true(row >= 0);
  assert_int_equal(rep.rows[row].verdict, ok ? CHS_CHECK_PASS : CHS_CHECK_FAIL);
  free(q);
  free(p);
  CHSProblem_Destroy(&prob);
  return ok;
}

static void test_declared_bond_chain(void **state) {
  (void)state;
  unsigned quad = CHS_DECLARE_QUADRATIC_CONSTRAINTS, chain = CHS_DECLARE_BOND_CHAIN;
  assert_int_equal(declared_chain_holds("chain", "N=6", 0, 0), 1);
  assert_int_equal(declared_chain_holds("chain", "N=30,init=2", 0, 0), 1);
  assert_int_equal(declared_chain_holds("pendulum-chain", "N=5,mass=2", 0, 0), 1);
  assert_int_equal(declared_chain_holds("chain", "N=6", 1, quad | chain | CHS_DECLARE_ANCHORED), 0);
  assert_int_equal(declared_chain_holds("pendulum-chain", "N=5", 1, quad | chain), 0);
  assert_int_equal(declared_chain_holds("pendulum", "", 1, quad | chain | CHS_DECLARE_ANCHORED), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_thin_has_jacobian),
      cmocka_unit_test(test_thin_dae_runs),
      cmocka_unit_test(test_thin_standard_runs),
      cmocka_unit_test(test_declared_bond_chain),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
