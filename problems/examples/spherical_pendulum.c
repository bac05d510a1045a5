/* Example plugin problem for chs: the spherical pendulum in 3-D.
 *
 *   H = |p|^2 / (2 mass) + mass * gravity * z,   g = 1/2 (|q|^2 - length^2).
 *
 * The initial state is a conical orbit at height z0 = -depth (0 < depth < length): the mass
 * circles the vertical at radius r = sqrt(length^2 - depth^2) with angular velocity
 * Omega = sqrt(gravity / depth), which is an exact solution:
 *
 *   q(t) = (r cos(Omega t), r sin(Omega t), -depth),  p = mass q'(t).
 *
 * It is the plugin's reference solution. Build it against an installed chs (see README, "Write
 * your own problem") and run it with `chs run --problem ./libspherical_pendulum.so:depth=0.5 ...`;
 * `chs check --problem ./libspherical_pendulum.so` compares its derivatives with finite
 * differences.
 *
 * V is linear and g quadratic, so the problem supplies neither hessian_potential nor
 * constraint_third and declares why (dims.declares, below): formulations that need those
 * derivatives (extended, total, analytic Jacobians) then know they vanish. Without the
 * declaration they would refuse the problem rather than assume zero.
 *
 * Test hooks (off by default; test/CMakeLists.txt builds variants that `chs check` must reject):
 * CHS_PERTURB_GDOT perturbs jacobian_dot, CHS_PERTURB_HESSIAN supplies a wrong (nonzero)
 * hessian_potential, CHS_PERTURB_THIRD a wrong (nonzero) constraint_third. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <chs/problem.h>

typedef struct {
  double length, gravity, mass, depth, r, omega;
  double massdiag[3];
} sph;

static int sph_create(CHSParams kv, void **data, CHSProblemDims *d, CHSError *err) {
  sph *P = calloc(1, sizeof *P);
  if (!P) {
    return CHS_ERR_MEM;
  }
  *data = P;
  int rc = CHSParams_GetRealMin(kv, "length", 1, 0, 1, &P->length, err);
  if (rc == 0) {
    rc = CHSParams_GetRealMin(kv, "gravity", 1, 0, 1, &P->gravity, err);
  }
  if (rc == 0) {
    rc = CHSParams_GetRealMin(kv, "mass", 1, 0, 1, &P->mass, err);
  }
  if (rc == 0) {
    rc = CHSParams_GetRealMin(kv, "depth", 0.5, 0, 1, &P->depth, err);
  }
  if (rc == 0 && !(P->depth < P->length)) {
    err->code = rc = CHS_ERR_ARG;
    snprintf(err->msg, sizeof err->msg, "spherical pendulum: depth=%g must be < length=%g",
             P->depth, P->length);
  }
  P->r = sqrt(P->length * P->length - P->depth * P->depth);
  P->omega = sqrt(P->gravity / P->depth);
  P->massdiag[0] = P->massdiag[1] = P->massdiag[2] = P->mass;
  d->n = 3;
  d->m = 1;
  d->mass_kind = CHS_MASS_DIAGONAL;
  d->mass = P->massdiag;
  d->jac_kind = CHS_JAC_DENSE;
  /* V = mass gravity z is linear, g = (|q|^2 - length^2) / 2 quadratic */
  d->declares = CHS_DECLARE_LINEAR_POTENTIAL | CHS_DECLARE_QUADRATIC_CONSTRAINTS;
  return rc;
}

static void sph_destroy(void *data) {
  free(data);
}

static int sph_potential(void *data, const double *q, double *V) {
  const sph *P = data;
  *V = P->mass * P->gravity * q[2];
  return 0;
}

static int sph_force(void *data, const double *q, double *F) {
  const sph *P = data;
  (void)q;
  F[0] = F[1] = 0;
  F[2] = -P->mass * P->gravity;
  return 0;
}

static int sph_constraint(void *data, const double *q, double *g) {
  const sph *P = data;
  g[0] = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] - P->length * P->length) / 2;
  return 0;
}

static int sph_jacobian(void *data, const double *q, double *G) {
  (void)data;
  G[0] = q[0];
  G[1] = q[1];
  G[2] = q[2];
  return 0;
}

static int sph_jacobian_dot(void *data, const double *q, const double *u, double *Gd) {
  (void)data;
  (void)q;
  Gd[0] = u[0];
  Gd[1] = u[1];
  Gd[2] = u[2];
#ifdef CHS_PERTURB_GDOT
  Gd[2] += 1e-4 * u[0]; /* a small error that chs check must find */
#endif
  return 0;
}

#ifdef CHS_PERTURB_HESSIAN
/* Wrong on purpose: the Hessian of the linear V is zero. */
static int sph_hessian(void *data, const double *q, const double *u, double *Hu) {
  (void)data;
  (void)q;
  Hu[0] = 1e-3 * u[0];
  Hu[1] = 0;
  Hu[2] = 0;
  return 0;
}
#endif

#ifdef CHS_PERTURB_THIRD
/* Wrong on purpose: the third derivatives of the quadratic g are zero. */
static int sph_third(void *data, const double *q, const double *u, const double *w, double *out) {
  (void)data;
  (void)q;
  out[0] = 0;
  out[1] = 1e-3 * w[0] * u[1] * u[1];
  out[2] = 0;
  return 0;
}
#endif

static int sph_reference(void *data, double t, double *q, double *p) {
  const sph *P = data;
  double c = cos(P->omega * t), s = sin(P->omega * t);
  q[0] = P->r * c;
  q[1] = P->r * s;
  q[2] = -P->depth;
  p[0] = -P->mass * P->r * P->omega * s;
  p[1] = P->mass * P->r * P->omega * c;
  p[2] = 0;
  return 0;
}

static int sph_initial(void *data, double *q, double *p) {
  return sph_reference(data, 0, q, p);
}

static const CHSProblemOps sph_ops = {
    .abi_version = CHS_PROBLEM_ABI_VERSION,
    .name = "spherical-pendulum",
    .summary = "spherical pendulum in 3-D on a conical orbit (example plugin)",
    .params_doc = "length=1 gravity=1 mass=1 depth=0.5",
    .create = sph_create,
    .destroy = sph_destroy,
    .potential = sph_potential,
    .force = sph_force,
    .constraint = sph_constraint,
    .jacobian = sph_jacobian,
    .jacobian_dot = sph_jacobian_dot,
#ifdef CHS_PERTURB_HESSIAN
    .hessian_potential = sph_hessian,
#endif
#ifdef CHS_PERTURB_THIRD
    .constraint_third = sph_third,
#endif
    .initial_state = sph_initial,
    .reference = sph_reference,
};

/* The one entry point chs looks for. */
const CHSProblemOps *chs_problem_entry(int abi_version) {
  return abi_version == CHS_PROBLEM_ABI_VERSION ? &sph_ops : NULL;
}
