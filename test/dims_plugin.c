/* Plugins whose callbacks disagree with the sizes they declare, for the check of callback sizes
 * at creation (src/model/problem.c, chs_check_callback_dims): a planar double pendulum of unit
 * masses and rods in 4 Cartesian coordinates q = (x1, y1, x2, y2), identity mass, V = y1 + y2,   g1
 * = 1/2 (x1^2 + y1^2 - 1),   g2 = 1/2 ((x2 - x1)^2 + (y2 - y1)^2 - 1), started at q = (1, 0, 2, 0),
 * p = (0, 0, 0, 1) (consistent). Built once per variant: DIMS_plus    declares n = 5; the callbacks
 * use 4 (write 4 entries of n-vectors) DIMS_minus   declares n = 3; the callbacks use 4 (write past
 * n-vectors) DIMS_unused  declares n = 5 and lays out every output for 5 (the fifth coordinate's
 *                entries zero): consistent sizes, but coordinate 5 enters neither g nor V
 *   (none)       a sound plugin, n = 4 */
#include <string.h>
#include <chs/problem.h>

#define NP 4 /* the coordinates of the physics */
#if defined(DIMS_plus) || defined(DIMS_unused)
#define ND 5 /* declared */
#elif defined(DIMS_minus)
#define ND 3
#else
#define ND 4
#endif
#if defined(DIMS_unused)
#define NS ND /* the stride and length of the callbacks' outputs */
#else
#define NS NP
#endif

static int dp_create(CHSParams params, void **data, CHSProblemDims *d, CHSError *err) {
  (void)params;
  (void)err;
  static int dummy;
  *data = &dummy;
  memset(d, 0, sizeof *d);
  d->n = ND;
  d->m = 2;
  d->mass_kind = CHS_MASS_IDENTITY;
  d->jac_kind = CHS_JAC_DENSE;
  d->declares = CHS_DECLARE_LINEAR_POTENTIAL | CHS_DECLARE_QUADRATIC_CONSTRAINTS;
  return 0;
}
static void dp_destroy(void *data) {
  (void)data;
}
static int dp_potential(void *data, const sunrealtype *q, sunrealtype *V) {
  (void)data;
  *V = q[1] + q[3];
  return 0;
}
static int dp_force(void *data, const sunrealtype *q, sunrealtype *F) {
  (void)data;
  (void)q;
  memset(F, 0, NS * sizeof *F);
  F[1] = F[3] = -1;
  return 0;
}
static int dp_constraint(void *data, const sunrealtype *q, sunrealtype *g) {
  (void)data;
  g[0] = 0.5 * (q[0] * q[0] + q[1] * q[1] - 1);
  g[1] = 0.5 * ((q[2] - q[0]) * (q[2] - q[0]) + (q[3] - q[1]) * (q[3] - q[1]) - 1);
  return 0;
}
/* rows (x1, y1, 0, 0) and (x1 - x2, y1 - y2, x2 - x1, y2 - y1) of u's entries, stride NS */
static void dp_rows(const sunrealtype *u, sunrealtype *G) {
  memset(G, 0, 2 * NS * sizeof *G);
  G[0] = u[0];
  G[1] = u[1];
  G[NS + 0] = u[0] - u[2];
  G[NS + 1] = u[1] - u[3];
  G[NS + 2] = u[2] - u[0];
  G[NS + 3] = u[3] - u[1];
}
static int dp_jacobian(void *data, const sunrealtype *q, sunrealtype *G) {
  (void)data;
  dp_rows(q, G);
  return 0;
}
static int dp_jacobian_dot(void *data, const sunrealtype *q, const sunrealtype *u,
                           sunrealtype *Gd) {
  (void)data;
  (void)q;
  dp_rows(u, Gd);
  return 0;
}
static int dp_initial(void *data, sunrealtype *q, sunrealtype *p) {
  (void)data;
  memset(q, 0, NS * sizeof *q);
  memset(p, 0, NS * sizeof *p);
  q[0] = 1;
  q[2] = 2;
  p[3] = 1;
  return 0;
}

static const CHSProblemOps dp_ops = {
    .abi_version = CHS_PROBLEM_ABI_VERSION,
    .name = "dims-double-pendulum",
    .summary = "double pendulum whose callbacks and declared sizes may disagree (tests)",
    .params_doc = "",
    .create = dp_create,
    .destroy = dp_destroy,
    .potential = dp_potential,
    .force = dp_force,
    .constraint = dp_constraint,
    .jacobian = dp_jacobian,
    .jacobian_dot = dp_jacobian_dot,
    .initial_state = dp_initial,
};

const CHSProblemOps *chs_problem_entry(int abi_version);
const CHSProblemOps *chs_problem_entry(int abi_version) {
  return abi_version == CHS_PROBLEM_ABI_VERSION ? &dp_ops : NULL;
}
