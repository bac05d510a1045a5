/* The user-defined test problem shared by test_jacobian and test_nonquadratic, defined through
 * CHSProblem_CreateFromOps (nq_ops) with a non-linear potential and non-quadratic constraints, so
 * that every optional derivative callback matters:
 *
 *   q in R^3, M = diag(1, 2, 3), V = cos q1 + cos q2 + cos q3 + q1^2 q2,
 *   g1 = q1^3 + q2 q3 - 1,   g2 = sin q1 + q3^2 - sin 1 - 1/4.
 *
 * Header only (static functions): include it after test_util.h. */
#ifndef CHS_TEST_NONQUADRATIC_PROBLEM_H
#define CHS_TEST_NONQUADRATIC_PROBLEM_H

#include "test_util.h"

static const double nq_mass[3] = {1, 2, 3};

static int nq_create(CHSParams params, void **data, CHSProblemDims *d, CHSError *err) {
  (void)params;
  (void)err;
  *data = NULL;
  d->n = 3;
  d->m = 2;
  d->mass_kind = CHS_MASS_DIAGONAL;
  d->mass = nq_mass;
  d->jac_kind = CHS_JAC_DENSE;
  return 0;
}
static void nq_destroy(void *data) {
  (void)data;
}
static int nq_potential(void *data, const double *q, double *V) {
  (void)data;
  *V = cos(q[0]) + cos(q[1]) + cos(q[2]) + q[0] * q[0] * q[1];
  return 0;
}
static int nq_force(void *data, const double *q, double *F) {
  (void)data;
  F[0] = sin(q[0]) - 2 * q[0] * q[1];
  F[1] = sin(q[1]) - q[0] * q[0];
  F[2] = sin(q[2]);
  return 0;
}
static int nq_constraint(void *data, const double *q, double *g) {
  (void)data;
  g[0] = q[0] * q[0] * q[0] + q[1] * q[2] - 1;
  g[1] = sin(q[0]) + q[2] * q[2] - sin(1.0) - 0.25;
  return 0;
}
static int nq_jacobian(void *data, const double *q, double *G) {
  (void)data;
  const double v[6] = {3 * q[0] * q[0], q[2], q[1], cos(q[0]), 0, 2 * q[2]};
  memcpy(G, v, sizeof v);
  return 0;
}
static int nq_jacobian_dot(void *data, const double *q, const double *u, double *Gd) {
  (void)data;
  const double v[6] = {6 * q[0] * u[0], u[2], u[1], -sin(q[0]) * u[0], 0, 2 * u[2]};
  memcpy(Gd, v, sizeof v);
  return 0;
}
static int nq_hessian(void *data, const double *q, const double *u, double *Hu) {
  (void)data;
  Hu[0] = (-cos(q[0]) + 2 * q[1]) * u[0] + 2 * q[0] * u[1];
  Hu[1] = 2 * q[0] * u[0] - cos(q[1]) * u[1];
  Hu[2] = -cos(q[2]) * u[2];
  return 0;
}
static int nq_third(void *data, const double *q, const double *u, const double *w, double *out) {
  (void)data;
  out[0] = w[0] * 6 * u[0] * u[0] - w[1] * cos(q[0]) * u[0] * u[0];
  out[1] = 0;
  out[2] = 0;
  return 0;
}
static int nq_initial(void *data, double *q, double *p) {
  (void)data;
  q[0] = 1;
  q[1] = 0;
  q[2] = 0.5;
  /* p = M n with n orthogonal to both rows of G(q): n = (3, 0.5, 0) x (cos 1, 0, 1) / 10 */
  const double n[3] = {0.05, -0.3, -0.05 * cos(1.0)};
  for (int i = 0; i < 3; i++) {
    p[i] = nq_mass[i] * n[i];
  }
  return 0;
}

static const CHSProblemOps nq_ops = {
    .abi_version = CHS_PROBLEM_ABI_VERSION,
    .name = "nonquadratic",
    .summary = "test problem with non-linear V and cubic/trigonometric constraints",
    .params_doc = "",
    .create = nq_create,
    .destroy = nq_destroy,
    .potential = nq_potential,
    .force = nq_force,
    .constraint = nq_constraint,
    .jacobian = nq_jacobian,
    .jacobian_dot = nq_jacobian_dot,
    .hessian_potential = nq_hessian,
    .constraint_third = nq_third,
    .initial_state = nq_initial,
};

#endif
