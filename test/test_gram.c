/* Gram solvers: dense, band and KLU (gram=...) give the same right-hand sides to round-off on the
 * pendulum chain (CSR G, tridiagonal Q), on and off the manifold, with identity and diagonal mass;
 * the chain's callbacks against finite differences; the automatic choice. */
#include <nvector/nvector_serial.h>
#include "test_util.h"

static void rhs(const char *problem, const char *form, const double *z, double *out, int len) {
  CHSProblem prob = new_problem(problem);
  CHSFormulation f = new_formulation(form, prob, test_context());
  formulation_rhs(f, z, out, len);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

static void test_same_rhs(void **state) {
  (void)state;
  const char *problems[2] = {"pendulum-chain:N=30,bend=0.3,omega=0.7",
                             "pendulum-chain:N=30,mass=2.5,bend=-0.2,omega=0.4"};
  const char *forms[3][3] = {{"standard:gram=dense", "standard:gram=band", "standard:gram=klu"},
                             {"dirac:gram=dense", "dirac:gram=band", "dirac:gram=klu"},
                             {"extended:gram=dense", "extended:gram=band", "extended:gram=klu"}};
  double worst = 0;
  for (int p = 0; p < 2; p++) {
    CHSProblem prob = new_problem(problems[p]);
    double z[120], a[120], b[120], c[120];
    CHSProblem_GetOps(prob)->initial_state(CHSProblem_GetData(prob), z, z + 60);
    CHSProblem_Destroy(&prob);
    for (int off = 0; off < 2; off++) {
      for (int i = 0; off && i < 120; i++) {
        z[i] += 0.01 * rng_uniform(-1, 1);
      }
      for (int f = 0; f < 3; f++) {
        rhs(problems[p], forms[f][0], z, a, 120);
        rhs(problems[p], forms[f][1], z, b, 120);
        rhs(problems[p], forms[f][2], z, c, 120);
        double scale = 1 + norm_inf(a, 120);
        worst = fmax(worst, fmax(diff_inf(a, b, 120), diff_inf(a, c, 120)) / scale);
      }
    }
  }
  print_message("pendulum chain N = 30: dense vs band vs KLU right-hand sides differ by %.2e "
                "(relative)\n",
                worst);
  CHECK_LE(worst, 1e-12);
}

static void test_chain_callbacks(void **state) {
  (void)state;
  CHSProblem prob = new_problem("pendulum-chain:N=5,bend=0.4");
  const CHSProblemOps *ops = CHSProblem_GetOps(prob);
  void *data = CHSProblem_GetData(prob);
  const CHSProblemDims *d = CHSProblem_GetDims(prob);
  double q[10], u[10], G[18], Gd[18], worst = 0;
  for (int i = 0; i < 10; i++) {
    q[i] = rng_uniform(-2, 2);
    u[i] = rng_uniform(-1, 1);
  }
  ops->jacobian(data, q, G);
  ops->jacobian_dot(data, q, u, Gd);
  const double h = 1e-6;
  for (int j = 0; j < 10; j++) {
    double qp[10], qm[10], gp[5], gm[5];
    memcpy(qp, q, sizeof q);
    memcpy(qm, q, sizeof q);
    qp[j] += h;
    qm[j] -= h;
    ops->constraint(data, qp, gp);
    ops->constraint(data, qm, gm);
    for (int i = 0; i < 5; i++) {
      double dense = 0;
      for (sunindextype k = d->rowptr[i]; k < d->rowptr[i + 1]; k++) {
        dense += d->colind[k] == j ? G[k] : 0;
      }
      worst = fmax(worst, fabs((gp[i] - gm[i]) / (2 * h) - dense));
    }
  }
  /* Gdot(q, u) = d/de G(q + e u) */
  double qp[10], qm[10], Gp[18], Gm[18];
  for (int i = 0; i < 10; i++) {
    qp[i] = q[i] + h * u[i];
    qm[i] = q[i] - h * u[i];
  }
  ops->jacobian(data, qp, Gp);
  ops->jacobian(data, qm, Gm);
  for (int k = 0; k < 18; k++) {
    worst = fmax(worst, fabs((Gp[k] - Gm[k]) / (2 * h) - Gd[k]));
  }
  print_message("pendulum chain callbacks vs finite differences: %.2e\n", worst);
  CHECK_LE(worst, 1e-8);
  CHSProblem_Destroy(&prob);
}

/* The Lennard-Jones chain: F = -grad V and (hess V) u = -d/de F(q + e u) by central differences
 * on a zigzag chain of 9 atoms (all pairs interact). */
static void test_lj_chain_callbacks(void **state) {
  (void)state;
  CHSProblem prob = new_problem("chain:N=9,init=1");
  const CHSProblemOps *ops = CHSProblem_GetOps(prob);
  void *data = CHSProblem_GetData(prob);
  double q[18], p[18], u[18], F[18], Hu[18], worst_f = 0, worst_h = 0;
  ops->initial_state(data, q, p);
  for (int i = 0; i < 18; i++) {
    q[i] += 0.05 * rng_uniform(-1, 1);
    u[i] = rng_uniform(-1, 1);
  }
  assert_int_equal(ops->force(data, q, F), 0);
  assert_int_equal(ops->hessian_potential(data, q, u, Hu), 0);
  const double h = 1e-6;
  for (int j = 0; j < 18; j++) {
    double qp[18], qm[18], Vp, Vm;
    memcpy(qp, q, sizeof q);
    memcpy(qm, q, sizeof q);
    qp[j] += h;
    qm[j] -= h;
    ops->potential(data, qp, &Vp);
    ops->potential(data, qm, &Vm);
    worst_f = fmax(worst_f, fabs(-(Vp - Vm) / (2 * h) - F[j]) / (1 + fabs(F[j])));
  }
  double qp[18], qm[18], Fp[18], Fm[18];
  for (int i = 0; i < 18; i++) {
    qp[i] = q[i] + h * u[i];
    qm[i] = q[i] - h * u[i];
  }
  ops->force(data, qp, Fp);
  ops->force(data, qm, Fm);
  for (int i = 0; i < 18; i++) {
    worst_h = fmax(worst_h, fabs(-(Fp[i] - Fm[i]) / (2 * h) - Hu[i]) / (1 + fabs(Hu[i])));
  }
  print_message("LJ chain: force vs -grad V %.2e, Hessian-vector product vs d/de F %.2e\n", worst_f,
                worst_h);
  CHECK_LE(worst_f, 1e-7);
  CHECK_LE(worst_h, 1e-7);
  CHSProblem_Destroy(&prob);
}

int main(void) {
  rng_seed(99);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_rhs),
      cmocka_unit_test(test_chain_callbacks),
      cmocka_unit_test(test_lj_chain_callbacks),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
