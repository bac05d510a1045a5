/* Planar double pendulum in Cartesian coordinates: two point masses, two coupled constraints.
 *
 *   q = (x1, y1, x2, y2),  M = diag(m1, m1, m2, m2),  V = gravity (m1 y1 + m2 y2),
 *   g1 = 1/2 (x1^2 + y1^2 - L1^2),  g2 = 1/2 ((x2-x1)^2 + (y2-y1)^2 - L2^2).
 *
 * Unequal masses by default, so M is not a multiple of the identity and Q = G M^{-1} G^T is a
 * full 2 x 2 matrix; S = K - K^T of the Hamilton-Dirac equations is non-zero off the manifold,
 * which the invariance tests need. G is stored as CSR (sparse=1, default: 6 non-zeros) or dense
 * (sparse=0); both layouts must give identical right-hand sides. Initial state from the angles
 * theta1, theta2 (from the downward vertical) and angular velocities omega1, omega2.
 * No closed-form reference solution. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../src/impl.h"

typedef struct {
  sunrealtype m1, m2, L1, L2, gravity;
  sunrealtype q0[4], p0[4], mass[4];
  long sparse;
  sunindextype rowptr[3], colind[6];
} dpend;

static int dpend_create(CHSParams kv, void **data, CHSProblemDims *dims, CHSError *err) {
  dpend *D = calloc(1, sizeof *D);
  if (!D) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  *data = D;
  sunrealtype th1, th2, w1, w2;
  CHS_CALL(CHSParams_GetRealMin(kv, "m1", 1, 0, 1, &D->m1, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "m2", 2, 0, 1, &D->m2, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "L1", 1, 0, 1, &D->L1, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "L2", 1.5, 0, 1, &D->L2, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "gravity", 1, 0, 0, &D->gravity, err));
  CHS_CALL(CHSParams_GetReal(kv, "theta1", M_PI / 2, &th1, err));
  CHS_CALL(CHSParams_GetReal(kv, "theta2", 3 * M_PI / 4, &th2, err));
  CHS_CALL(CHSParams_GetReal(kv, "omega1", 0, &w1, err));
  CHS_CALL(CHSParams_GetReal(kv, "omega2", -1, &w2, err));
  CHS_CALL(CHSParams_GetInt(kv, "sparse", 1, 0, 1, &D->sparse, err));
  sunrealtype x1 = D->L1 * sin(th1), y1 = -D->L1 * cos(th1);
  sunrealtype vx1 = D->L1 * cos(th1) * w1, vy1 = D->L1 * sin(th1) * w1;
  D->q0[0] = x1;
  D->q0[1] = y1;
  D->q0[2] = x1 + D->L2 * sin(th2);
  D->q0[3] = y1 - D->L2 * cos(th2);
  D->mass[0] = D->mass[1] = D->m1;
  D->mass[2] = D->mass[3] = D->m2;
  sunrealtype v[4] = {vx1, vy1, vx1 + D->L2 * cos(th2) * w2, vy1 + D->L2 * sin(th2) * w2};
  for (int i = 0; i < 4; i++) {
    D->p0[i] = D->mass[i] * v[i];
  }
  const sunindextype rowptr[3] = {0, 2, 6}, colind[6] = {0, 1, 0, 1, 2, 3};
  memcpy(D->rowptr, rowptr, sizeof rowptr);
  memcpy(D->colind, colind, sizeof colind);
  dims->n = 4;
  dims->m = 2;
  dims->mass_kind = CHS_MASS_DIAGONAL;
  dims->mass = D->mass;
  dims->jac_kind = D->sparse ? CHS_JAC_CSR : CHS_JAC_DENSE;
  dims->declares = CHS_DECLARE_LINEAR_POTENTIAL | CHS_DECLARE_QUADRATIC_CONSTRAINTS;
  dims->nnz = 6;
  dims->rowptr = D->rowptr;
  dims->colind = D->colind;
  static const char *const coords[4] = {"x1", "y1", "x2", "y2"}, *const cons[2] = {"rod1", "rod2"};
  dims->coordinate_names = coords;
  dims->constraint_names = cons;
  return CHS_SUCCESS;
}

static void dpend_destroy(void *data) {
  free(data);
}

static int dpend_potential(void *data, const sunrealtype *q, sunrealtype *V) {
  const dpend *D = data;
  *V = D->gravity * (D->m1 * q[1] + D->m2 * q[3]);
  return 0;
}

static int dpend_force(void *data, const sunrealtype *q, sunrealtype *F) {
  const dpend *D = data;
  (void)q;
  F[0] = 0;
  F[1] = -D->gravity * D->m1;
  F[2] = 0;
  F[3] = -D->gravity * D->m2;
  return 0;
}

static int dpend_constraint(void *data, const sunrealtype *q, sunrealtype *g) {
  const dpend *D = data;
  sunrealtype dx = q[2] - q[0], dy = q[3] - q[1];
  g[0] = (q[0] * q[0] + q[1] * q[1] - D->L1 * D->L1) / 2;
  g[1] = (dx * dx + dy * dy - D->L2 * D->L2) / 2;
  return 0;
}

/* Rows (a, b, 0, 0) and (-c, -d, c, d), in the CSR order of colind or dense row-major. */
static void dpend_fill(const dpend *D, sunrealtype a, sunrealtype b, sunrealtype c, sunrealtype d,
                       sunrealtype *G) {
  if (D->sparse) {
    const sunrealtype vals[6] = {a, b, -c, -d, c, d};
    memcpy(G, vals, sizeof vals);
  } else {
    const sunrealtype vals[8] = {a, b, 0, 0, -c, -d, c, d};
    memcpy(G, vals, sizeof vals);
  }
}

static int dpend_jacobian(void *data, const sunrealtype *q, sunrealtype *G) {
  dpend_fill(data, q[0], q[1], q[2] - q[0], q[3] - q[1], G);
  return 0;
}

static int dpend_jacobian_dot(void *data, const sunrealtype *q, const sunrealtype *u,
                              sunrealtype *Gd) {
  (void)q;
  dpend_fill(data, u[0], u[1], u[2] - u[0], u[3] - u[1], Gd);
  return 0;
}

static int dpend_initial(void *data, sunrealtype *q, sunrealtype *p) {
  const dpend *D = data;
  memcpy(q, D->q0, sizeof D->q0);
  memcpy(p, D->p0, sizeof D->p0);
  return 0;
}

const CHSProblemOps chs_problem_double_pendulum = {
    .abi_version = CHS_PROBLEM_ABI_VERSION,
    .name = "double-pendulum",
    .summary = "planar double pendulum, unequal masses, two coupled constraints",
    .params_doc = "m1=1 m2=2 L1=1 L2=1.5 gravity=1 theta1=pi/2 theta2=3pi/4 omega1=0 "
                  "omega2=-1 sparse=1",
    .create = dpend_create,
    .destroy = dpend_destroy,
    .potential = dpend_potential,
    .force = dpend_force,
    .constraint = dpend_constraint,
    .jacobian = dpend_jacobian,
    .jacobian_dot = dpend_jacobian_dot,
    .initial_state = dpend_initial,
};
