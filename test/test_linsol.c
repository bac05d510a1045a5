/* Linear solvers of CVODE and IDA (method parameters ls=dense|band|klu|umfpack|spgmr,
 * jac=analytic|fd): every solver gives the same trajectory to the tolerance (CVODE on the standard
 * formulation of the pendulum and of the pendulum chain; IDA on the three DAE formulations of the
 * pendulum chain, analytic and finite-difference Jacobians); the analytic Jacobian saves the
 * residual evaluations of the difference quotients; KLU's orderings (amd, colamd, nd) agree on a
 * small coil; KLU runs of a time-dependent problem (car-axis) complete and agree; bad parameters
 * are refused with input errors. */
#include <nvector/nvector_serial.h>
#include "test_util.h"

/* Final state at tf of formulation `form` of problem `spec` with `method`; returns the
 * integrator's stats with rhs_evals = the formulation's count (all evaluations). */
static CHSIntegratorStats final_state(const char *spec, const char *form, const char *method,
                                      double tol, double tf, double *out, long *len) {
  CHSProblem prob = new_problem(spec);
  CHSFormulation f = new_formulation(form, prob, test_context());
  N_Vector y;
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSFormulation_NewInitialState(f, &y, &err), 0);
  CHSStepControl ctl = {0, tol, tol, 0};
  CHSIntegrator it = NULL;
  int rc = CHSIntegrator_Create(method, f, y, 0, &ctl, &it, &err);
  if (rc != 0) {
    print_error("%s: %s\n", method, err.msg);
  }
  assert_int_equal(rc, 0);
  double t = 0;
  rc = CHSIntegrator_Evolve(it, tf, y, &t, &err);
  if (rc != 0) {
    print_error("%s: %s\n", method, err.msg);
  }
  assert_int_equal(rc, 0);
  CHSIntegratorStats st;
  CHSIntegrator_GetStats(it, &st);
  st.rhs_evals = CHSFormulation_GetNumRhsEvals(f); /* all, difference quotients included */
  *len = N_VGetLength(y);
  memcpy(out, N_VGetArrayPointer(y), (size_t)*len * sizeof *out);
  CHSIntegrator_Destroy(&it);
  N_VDestroy(y);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
  return st;
}

static void test_cvode_solvers_agree(void **state) {
  (void)state;
  const char *specs[2] = {"pendulum", "pendulum-chain:N=6,bend=0.3"};
  const char *methods[6] = {"cvode:bdf",
                            "cvode:bdf:ls=band",
                            "cvode:bdf:ls=klu",
                            "cvode:bdf:ls=spgmr",
                            "cvode:bdf:ls=dense,jac=analytic",
                            "cvode:bdf:ls=umfpack"};
  for (int p = 0; p < 2; p++) {
    double ref[64], y[64];
    long n = 0;
    final_state(specs[p], "standard", methods[0], 1e-10, 2, ref, &n);
    for (int k = 1; k < 6; k++) {
      CHSIntegratorStats st = final_state(specs[p], "standard", methods[k], 1e-10, 2, y, &n);
      double d = diff_inf(ref, y, (int)n) / fmax(1, norm_inf(ref, (int)n));
      print_message("%-28s %-34s steps %5ld jac %3ld  |y - y_dense| = %.2e\n", specs[p], methods[k],
                    st.steps, st.jac_evals, d);
      CHECK_LE(d, 1e-6);
      CHECK_GT(st.steps, 10);
      if (k == 3) {
        assert_int_equal(st.jac_evals, 0); /* matrix-free */
      } else {
        CHECK_GT(st.jac_evals, 0);
      }
    }
  }
}

static void test_ida_solvers_agree(void **state) {
  (void)state;
  const char *forms[3] = {"dae-index3", "dae-ggl", "dae-index1"};
  const char *methods[8] = {
      "ida",          "ida:ls=klu",     "ida:ls=band",          "ida:jac=fd", "ida:ls=klu,jac=fd",
      "ida:ls=spgmr", "ida:ls=umfpack", "ida:ls=umfpack,jac=fd"};
  for (int k = 0; k < 3; k++) {
    double ref[128], y[128];
    long n = 0;
    CHSIntegratorStats st0 =
        final_state("pendulum-chain:N=8,bend=0.3", forms[k], methods[0], 1e-9, 2, ref, &n);
    for (int j = 1; j < 8; j++) {
      CHSIntegratorStats st =
          final_state("pendulum-chain:N=8,bend=0.3", forms[k], methods[j], 1e-9, 2, y, &n);
      /* positions (the error-controlled components) */
      double d = diff_inf(ref, y, 16) / fmax(1, norm_inf(ref, 16));
      print_message("%-10s %-18s steps %5ld res %6ld jac %3ld  |q - q_dense| = %.2e\n", forms[k],
                    methods[j], st.steps, st.rhs_evals, st.jac_evals, d);
      CHECK_LE(d, 1e-5);
      if (j == 5) { /* GMRES, preconditioned by the Jacobian without the bending's hess V */
        assert_int_equal(st.jac_evals, 0);
        CHECK_GT(st.lin_iters, 0);
      } else {
        CHECK_GT(st.jac_evals, 0);
      }
      if (j == 3) { /* difference quotients cost N = state size residuals per Jacobian */
        CHECK_GT(st.rhs_evals, st0.rhs_evals);
      }
    }
  }
}

/* A time-dependent problem: car-axis' constraint G holds the anchor's xb(t), which is 0 at t0 = 0,
 * so a sparsity pattern read off the Jacobian at t0 alone missed G's entries, and KLU runs
 * stopped at the first step ("outside the sparsity pattern"). With the pattern also taken a
 * little after t0, every sparse configuration gives the dense solver's positions at t = 3. */
static void test_klu_time_dependent(void **state) {
  (void)state;
  const char *forms[4] = {"dae-index3", "dae-ggl", "dae-index1", "standard"};
  for (int k = 0; k < 4; k++) {
    int ode = k == 3;
    const char *dense = ode ? "cvode:bdf" : "ida";
    const char *sparse[2] = {ode ? "cvode:bdf:ls=klu" : "ida:ls=klu",
                             ode ? "cvode:bdf:ls=klu,jac=fd" : "ida:ls=klu,jac=fd"};
    double ref[64], y[64];
    long n = 0;
    final_state("car-axis", forms[k], dense, 1e-8, 3, ref, &n);
    for (int j = 0; j < 2; j++) {
      CHSIntegratorStats st = final_state("car-axis", forms[k], sparse[j], 1e-8, 3, y, &n);
      double d = diff_inf(ref, y, 4) / fmax(1, norm_inf(ref, 4));
      print_message("car-axis %-10s %-24s steps %5ld jac %3ld  |q - q_dense| = %.2e\n", forms[k],
                    sparse[j], st.steps, st.jac_evals, d);
      CHECK_LE(d, 1e-4); /* dae-index3's own error at tol 1e-8 is 7.6e-5 (chs workprec) */
      CHECK_GT(st.jac_evals, 0);
    }
  }
}

/* KLU's orderings on a small coil (the Lennard-Jones pairs across the turns: a 2-D graph):
 * order=nd (nested dissection, the default on the sparse DAE path), colamd and amd give the same
 * IDA solution to the tolerance; without order= the run is order=nd's, to the last bit. */
static void test_ida_klu_orderings_agree(void **state) {
  (void)state;
  const char *spec = "chain:N=300,init=2,vel=thermal";
  const char *forms[3] = {"dae-index3", "dae-ggl", "dae-index1"};
  const char *methods[4] = {"ida:ls=klu,order=colamd", "ida:ls=klu,order=nd", "ida:ls=klu",
                            "ida:ls=klu,order=amd"};
  double *ref = malloc(4000 * sizeof *ref), *nd = malloc(4000 * sizeof *nd),
         *y = malloc(4000 * sizeof *y);
  assert_non_null(ref);
  assert_non_null(nd);
  assert_non_null(y);
  for (int k = 0; k < 3; k++) {
    long n = 0;
    final_state(spec, forms[k], methods[0], 1e-8, 0.02, ref, &n);
    CHECK_LE(n, 4000);
    for (int j = 1; j < 4; j++) {
      CHSIntegratorStats st = final_state(spec, forms[k], methods[j], 1e-8, 0.02, y, &n);
      if (j == 1) {
        memcpy(nd, y, (size_t)n * sizeof *y);
      }
      /* positions (600 coordinates) */
      double d = diff_inf(ref, y, 600) / fmax(1, norm_inf(ref, 600));
      print_message("%-10s %-24s steps %4ld jac %3ld  |q - q_colamd| = %.2e\n", forms[k],
                    methods[j], st.steps, st.jac_evals, d);
      CHECK_LE(d, 1e-6);
      CHECK_GT(st.jac_evals, 0);
      if (j == 2) {
        assert_int_equal(memcmp(nd, y, (size_t)n * sizeof *y), 0);
      }
    }
  }
  free(ref);
  free(nd);
  free(y);
}

static void expect_error(const char *form, const char *method, int code) {
  CHSProblem prob = new_problem("pendulum");
  CHSFormulation f = new_formulation(form, prob, test_context());
  N_Vector y;
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSFormulation_NewInitialState(f, &y, &err), 0);
  CHSStepControl ctl = {0, 1e-6, 1e-6, 0};
  CHSIntegrator it = NULL;
  int rc = CHSIntegrator_Create(method, f, y, 0, &ctl, &it, &err);
  print_message("%s with %s: %s\n", method, form, err.msg);
  assert_int_equal(rc, code);
  assert_true(CHSError_IsInput(rc));
  N_VDestroy(y);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

static void test_bad_options(void **state) {
  (void)state;
  expect_error("standard", "cvode:bdf:ls=lapack", CHS_ERR_ARG);
  expect_error("standard", "cvode:bdf:ls=spgmr,jac=fd", CHS_ERR_ARG);
  expect_error("standard", "cvode:bdf:solver=klu", CHS_ERR_ARG);
  expect_error("standard", "cvode:bdf:jac=exact", CHS_ERR_ARG);
  expect_error("dae-index3", "ida:ls=spgmr,order=nd", CHS_ERR_ARG);
  expect_error("dae-index3", "ida:ls=spgmr,jac=fd", CHS_ERR_ARG);
  expect_error("dirac", "ida:ls=spgmr,prec=sparse", CHS_ERR_UNSUPPORTED);
  expect_error("dae-index3", "ida:ls=", CHS_ERR_ARG);
  expect_error("dae-index3", "ida:ls=klu,order=metis", CHS_ERR_ARG);
  expect_error("dae-index3", "ida:ls=dense,order=nd", CHS_ERR_ARG);
  expect_error("dirac", "ida:jac=analytic", CHS_ERR_UNSUPPORTED);
  expect_error("dirac", "cvode:bdf:ls=dense,jac=analytic", CHS_ERR_UNSUPPORTED);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cvode_solvers_agree), cmocka_unit_test(test_ida_solvers_agree),
      cmocka_unit_test(test_bad_options),         cmocka_unit_test(test_ida_klu_orderings_agree),
      cmocka_unit_test(test_klu_time_dependent),
  };
  return cmocka_run_group_tests_name("linsol", tests, group_setup, group_teardown);
}
