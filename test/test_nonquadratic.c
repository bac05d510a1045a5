/* A user-defined problem (through CHSProblem_CreateFromOps) with a non-linear potential and
 * non-quadratic constraints, so that every optional derivative callback matters:
 *
 *   q in R^3, M = diag(1, 2, 3), V = cos q1 + cos q2 + cos q3 + q1^2 q2,
 *   g1 = q1^3 + q2 q3 - 1,   g2 = sin q1 + q3^2 - sin 1 - 1/4.
 *
 * Checks: the callbacks against central finite differences; the total formulation (whose
 * adjoint gradient uses hessian_potential and constraint_third) against finite differences of
 * H_T = H + lambda^T g assembled here; the Hamilton-Dirac invariants dg/dt = dpsi/dt = 0 off the
 * manifold, which rely on the symmetry Gdot(q,a) v = Gdot(q,v) a of non-quadratic constraints. */
#include <nvector/nvector_serial.h>
#include "test_util.h"
#include "nonquadratic_problem.h"

/* Central difference of f: R^3 -> R^k along direction e_j (or u) at q. */
typedef void (*vecfn)(const double *q, double *out);
static void fd(vecfn f, const double *q, const double *dir, int k, double *out) {
  const double h = 1e-6;
  double qp[3], qm[3], fp[6], fm[6];
  for (int i = 0; i < 3; i++) {
    qp[i] = q[i] + h * dir[i];
    qm[i] = q[i] - h * dir[i];
  }
  f(qp, fp);
  f(qm, fm);
  for (int i = 0; i < k; i++) {
    out[i] = (fp[i] - fm[i]) / (2 * h);
  }
}
static double fd_u[3], fd_w[2];
static void f_V(const double *q, double *o) {
  nq_potential(NULL, q, o);
}
static void f_F(const double *q, double *o) {
  nq_force(NULL, q, o);
}
static void f_g(const double *q, double *o) {
  nq_constraint(NULL, q, o);
}
static void f_G(const double *q, double *o) {
  nq_jacobian(NULL, q, o);
}
static void f_wGdu(const double *q, double *o) { /* w^T Gdot(q,u) u */
  double Gd[6];
  nq_jacobian_dot(NULL, q, fd_u, Gd);
  o[0] = 0;
  for (int i = 0; i < 2; i++) {
    for (int j = 0; j < 3; j++) {
      o[0] += fd_w[i] * Gd[i * 3 + j] * fd_u[j];
    }
  }
}

static void test_callbacks_by_finite_differences(void **state) {
  (void)state;
  double worst = 0;
  for (int k = 0; k < 20; k++) {
    double q[3], u[3], w[2];
    for (int i = 0; i < 3; i++) {
      q[i] = rng_uniform(-1.5, 1.5);
      u[i] = rng_uniform(-1, 1);
    }
    w[0] = rng_uniform(-1, 1);
    w[1] = rng_uniform(-1, 1);
    memcpy(fd_u, u, sizeof u);
    memcpy(fd_w, w, sizeof w);
    double F[3], G[6], Gd[6], Hu[3], d3[3], num[6], e[3];
    nq_force(NULL, q, F);
    nq_jacobian(NULL, q, G);
    nq_jacobian_dot(NULL, q, u, Gd);
    nq_hessian(NULL, q, u, Hu);
    nq_third(NULL, q, u, w, d3);
    for (int j = 0; j < 3; j++) {
      for (int i = 0; i < 3; i++) {
        e[i] = i == j;
      }
      fd(f_V, q, e, 1, num);
      worst = fmax(worst, fabs(-num[0] - F[j])); /* F = -grad V */
      fd(f_g, q, e, 2, num);
      worst = fmax(worst, fmax(fabs(num[0] - G[j]), fabs(num[1] - G[3 + j])));
      fd(f_wGdu, q, e, 1, num);
      worst = fmax(worst, fabs(num[0] - d3[j]));
    }
    fd(f_G, q, u, 6, num); /* Gdot(q,u) = d/de G(q + e u) */
    for (int i = 0; i < 6; i++) {
      worst = fmax(worst, fabs(num[i] - Gd[i]));
    }
    fd(f_F, q, u, 3, num); /* Hess V u = -d/de F(q + e u) */
    for (int i = 0; i < 3; i++) {
      worst = fmax(worst, fabs(-num[i] - Hu[i]));
    }
  }
  print_message("non-quadratic problem: callbacks vs finite differences %.3e\n", worst);
  CHECK_LE(worst, 1e-8);
}

/* H_T(q, p) = 1/2 p^T M^{-1} p + V + lambda^T g, lambda = Q^{-1}(Gdot(q,v) v + G M^{-1} F);
 * with `extended`, H_e = H_T - psi^T Q^{-1} psi, psi = G M^{-1} p. */
static double total_hamiltonian(const double *z, int extended) {
  const double *q = z, *p = z + 3;
  double v[3], F[3], V, g[2], G[6], Gd[6], Q[2][2] = {{0}}, r[2] = {0}, T = 0;
  for (int i = 0; i < 3; i++) {
    v[i] = p[i] / nq_mass[i];
    T += p[i] * v[i];
  }
  nq_potential(NULL, q, &V);
  nq_force(NULL, q, F);
  nq_constraint(NULL, q, g);
  nq_jacobian(NULL, q, G);
  nq_jacobian_dot(NULL, q, v, Gd);
  for (int i = 0; i < 2; i++) {
    for (int c = 0; c < 3; c++) {
      r[i] += Gd[i * 3 + c] * v[c] + G[i * 3 + c] * F[c] / nq_mass[c];
      for (int j = 0; j < 2; j++) {
        Q[i][j] += G[i * 3 + c] * G[j * 3 + c] / nq_mass[c];
      }
    }
  }
  double det = Q[0][0] * Q[1][1] - Q[0][1] * Q[1][0];
  double l0 = (r[0] * Q[1][1] - Q[0][1] * r[1]) / det, l1 = (Q[0][0] * r[1] - Q[1][0] * r[0]) / det;
  double psi[2] = {0, 0};
  for (int i = 0; i < 2; i++) {
    for (int c = 0; c < 3; c++) {
      psi[i] += G[i * 3 + c] * v[c];
    }
  }
  double w0 = (psi[0] * Q[1][1] - Q[0][1] * psi[1]) / det;
  double w1 = (Q[0][0] * psi[1] - Q[1][0] * psi[0]) / det;
  double HT = T / 2 + V + l0 * g[0] + l1 * g[1];
  return extended ? HT - (psi[0] * w0 + psi[1] * w1) : HT;
}

static CHSFormulation open_formulation(const char *name, CHSProblem *prob) {
  CHSError err;
  assert_int_equal(CHSProblem_CreateFromOps(&nq_ops, "", prob, &err), 0);
  return new_formulation(name, *prob, test_context());
}

static void eval(CHSFormulation f, const double *z, double *out) {
  N_Vector y = N_VNew_Serial(6, test_context()), yd = N_VNew_Serial(6, test_context());
  memcpy(N_VGetArrayPointer(y), z, 6 * sizeof *z);
  assert_int_equal(CHSFormulation_Rhs(0, y, yd, f), 0);
  memcpy(out, N_VGetArrayPointer(yd), 6 * sizeof *out);
  N_VDestroy(y);
  N_VDestroy(yd);
}

static void test_total_and_extended_are_hamiltonian(void **state) {
  (void)state;
  const char *names[2] = {"total", "extended"};
  for (int e = 0; e < 2; e++) {
    CHSProblem prob;
    CHSFormulation f = open_formulation(names[e], &prob);
    double worst = 0;
    for (int k = 0; k < 10; k++) {
      double z[6], ydot[6];
      for (int i = 0; i < 6; i++) {
        z[i] = rng_uniform(-1.2, 1.2);
      }
      z[0] = rng_uniform(0.8, 1.3); /* keep Q well conditioned */
      eval(f, z, ydot);
      for (int i = 0; i < 6; i++) {
        double h = 1e-5, zp[6], zm[6];
        memcpy(zp, z, sizeof z);
        memcpy(zm, z, sizeof z);
        zp[i] += h;
        zm[i] -= h;
        double dH = (total_hamiltonian(zp, e) - total_hamiltonian(zm, e)) / (2 * h);
        double want = i < 3 ? -dH : dH, got = i < 3 ? ydot[3 + i] : ydot[i - 3];
        worst = fmax(worst, fabs(got - want) / (1 + fabs(want)));
      }
    }
    print_message("%s (non-quadratic g, non-linear V) vs finite differences of its H: %.3e\n",
                  names[e], worst);
    CHECK_LE(worst, 1e-6);
    CHSFormulation_Destroy(&f);
    CHSProblem_Destroy(&prob);
  }
}

static void test_dirac_invariants(void **state) {
  (void)state;
  CHSProblem prob;
  CHSFormulation f = open_formulation("dirac", &prob);
  double worst_g = 0, worst_psi = 0;
  for (int k = 0; k < 20; k++) {
    double z[6], yd[6], G[6], Gd[6], v[3], a[3];
    for (int i = 0; i < 6; i++) {
      z[i] = rng_uniform(-1.2, 1.2);
    }
    z[0] = rng_uniform(0.8, 1.3);
    eval(f, z, yd);
    nq_jacobian(NULL, z, G);
    nq_jacobian_dot(NULL, z, yd, Gd);
    for (int i = 0; i < 3; i++) {
      v[i] = z[3 + i] / nq_mass[i];
      a[i] = yd[3 + i] / nq_mass[i];
    }
    for (int i = 0; i < 2; i++) {
      double gd = 0, pd = 0, sg = 0, sp = 0;
      for (int c = 0; c < 3; c++) {
        gd += G[i * 3 + c] * yd[c];
        sg += fabs(G[i * 3 + c] * yd[c]);
        pd += Gd[i * 3 + c] * v[c] + G[i * 3 + c] * a[c];
        sp += fabs(Gd[i * 3 + c] * v[c]) + fabs(G[i * 3 + c] * a[c]);
      }
      worst_g = fmax(worst_g, fabs(gd) / (1 + sg));
      worst_psi = fmax(worst_psi, fabs(pd) / (1 + sp));
    }
  }
  print_message("dirac, non-quadratic g: max |dg/dt| %.3e, max |dpsi/dt| %.3e (relative)\n",
                worst_g, worst_psi);
  CHECK_LE(worst_g, 1e-13);
  CHECK_LE(worst_psi, 1e-13);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

int main(void) {
  rng_seed(314159);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_callbacks_by_finite_differences),
      cmocka_unit_test(test_total_and_extended_are_hamiltonian),
      cmocka_unit_test(test_dirac_invariants),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
