/* A chain of N rigidly linked pendulums under gravity (the pendulum chains of [Seiler, stable] Sec.
 * 8, after Ruhoff et al.): point masses r_1 .. r_N in the plane, r_0 = 0 the fixed pivot,
 *
 *   g_i = 1/2 (|r_i - r_{i-1}|^2 - L^2),  V = gravity * mass * sum_i y_i,  M = mass I,
 *
 * G in CSR (2 entries in the first row, 4 in the others), so Q is tridiagonal: the Gram solver
 * is chosen automatically (band: L D L^T, O(m)). Initial configuration: link i at
 * angle theta + i * bend from the downward vertical, at rest except angular velocity omega of
 * every link. No reference solution. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../src/impl.h"

/* Size: N <= 10^7 links, and refused when N x PCHAIN_BYTES_PER_LINK exceeds the physical memory
 * (690 bytes per link measured, maximum resident size, for N = 10^6 with dirac and erk:rk4,
 * before the coordinate and link names added ~58). */
#define PCHAIN_N_MAX 10000000L
#define PCHAIN_BYTES_PER_LINK 710.0

typedef struct {
  long N;
  sunrealtype L, mass, gravity;
  sunrealtype *q0, *p0;
  sunindextype *rowptr, *colind;
  const char **coord_names, **link_names; /* x1, y1, .. xN, yN; link1 .. linkN */
} pchain;

static void pchain_destroy(void *data) {
  pchain *P = data;
  if (P) {
    free(P->q0);
    free(P->rowptr);
    free(P->coord_names);
    free(P->link_names);
    free(P);
  }
}

static int pchain_create(CHSParams kv, void **data, CHSProblemDims *d, CHSError *err) {
  pchain *P = calloc(1, sizeof *P);
  if (!P) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  *data = P;
  sunrealtype theta, bend, omega;
  CHS_CALL(CHSParams_GetInt(kv, "N", 10, 2, PCHAIN_N_MAX, &P->N, err));
  CHS_CALL(chs_problem_check_size("pendulum-chain", P->N, PCHAIN_BYTES_PER_LINK, "link", err));
  CHS_CALL(CHSParams_GetRealMin(kv, "L", 1, 0, 1, &P->L, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "mass", 1, 0, 1, &P->mass, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "gravity", 1, 0, 0, &P->gravity, err));
  CHS_CALL(CHSParams_GetReal(kv, "theta", M_PI / 2, &theta, err));
  CHS_CALL(CHSParams_GetReal(kv, "bend", 0.05, &bend, err));
  CHS_CALL(CHSParams_GetReal(kv, "omega", 0, &omega, err));
  sunindextype N = P->N, n = 2 * N;
  P->q0 = malloc(3 * (size_t)n * sizeof *P->q0); /* q0, p0, diagonal mass */
  P->rowptr = malloc(((size_t)N + 1 + 4 * (size_t)N) * sizeof *P->rowptr);
  if (!P->q0 || !P->rowptr) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory for N = %ld", (long)N);
  }
  P->p0 = P->q0 + n;
  P->colind = P->rowptr + N + 1;
  sunrealtype x = 0, y = 0, vx = 0, vy = 0;
  for (sunindextype i = 0; i < N; i++) {
    sunrealtype th = theta + (sunrealtype)i * bend;
    x += P->L * sin(th);
    y -= P->L * cos(th);
    vx += P->L * cos(th) * omega;
    vy += P->L * sin(th) * omega;
    P->q0[2 * i] = x;
    P->q0[2 * i + 1] = y;
    P->p0[2 * i] = P->mass * vx;
    P->p0[2 * i + 1] = P->mass * vy;
  }
  /* CSR: row 0 -> (x1, y1); row i -> (x_{i-1}, y_{i-1}, x_i, y_i) */
  sunindextype k = 0;
  for (sunindextype i = 0; i < N; i++) {
    P->rowptr[i] = k;
    if (i > 0) {
      P->colind[k++] = 2 * (i - 1);
      P->colind[k++] = 2 * (i - 1) + 1;
    }
    P->colind[k++] = 2 * i;
    P->colind[k++] = 2 * i + 1;
  }
  P->rowptr[N] = k;
  d->n = n;
  d->m = N;
  d->mass_kind = P->mass == 1 ? CHS_MASS_IDENTITY : CHS_MASS_DIAGONAL;
  d->force_reach = 0; /* gravity: each component constant */
  d->mass = P->q0 + 2 * n;
  for (sunindextype i = 0; i < n; i++) {
    P->q0[2 * n + i] = P->mass;
  }
  d->jac_kind = CHS_JAC_CSR;
  d->declares = CHS_DECLARE_LINEAR_POTENTIAL | CHS_DECLARE_QUADRATIC_CONSTRAINTS |
                CHS_DECLARE_BOND_CHAIN | CHS_DECLARE_ANCHORED;
  d->nnz = k;
  d->rowptr = P->rowptr;
  d->colind = P->colind;
  /* r_i = (x_i, y_i), i = 1 .. N as above; link i joins r_{i-1} and r_i */
  static const char *const xy[2] = {"x", "y"}, *const link[1] = {"link"};
  P->coord_names = chs_names_indexed(n, xy, 2, 1);
  P->link_names = chs_names_indexed(N, link, 1, 1);
  if (!P->coord_names || !P->link_names) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory for the names of N = %ld", (long)N);
  }
  d->coordinate_names = P->coord_names;
  d->constraint_names = P->link_names;
  return CHS_SUCCESS;
}

static int pchain_potential(void *data, const sunrealtype *q, sunrealtype *V) {
  const pchain *P = data;
  sunrealtype acc = 0;
  for (long i = 0; i < P->N; i++) {
    acc += q[2 * i + 1];
  }
  *V = P->gravity * P->mass * acc;
  return 0;
}

static int pchain_force(void *data, const sunrealtype *q, sunrealtype *F) {
  const pchain *P = data;
  (void)q;
  for (long i = 0; i < P->N; i++) {
    F[2 * i] = 0;
    F[2 * i + 1] = -P->gravity * P->mass;
  }
  return 0;
}

/* Components [i0, i1) of the force (ABI 5): gravity on every atom, q not read (force_reach 0). */
static int pchain_force_local(void *data, const sunrealtype *qw, sunindextype w0, sunindextype nw,
                              sunindextype i0, sunindextype i1, sunrealtype *F) {
  const pchain *P = data;
  (void)qw;
  (void)w0;
  (void)nw;
  for (sunindextype i = i0; i < i1; i++) {
    F[i - i0] = i % 2 ? -P->gravity * P->mass : 0;
  }
  return 0;
}

static int pchain_constraint(void *data, const sunrealtype *q, sunrealtype *g) {
  const pchain *P = data;
  for (long i = 0; i < P->N; i++) {
    sunrealtype dx = q[2 * i] - (i ? q[2 * i - 2] : 0), dy = q[2 * i + 1] - (i ? q[2 * i - 1] : 0);
    g[i] = (dx * dx + dy * dy - P->L * P->L) / 2;
  }
  return 0;
}

/* Rows (-(d), d) with d = r_i - r_{i-1} (or of the direction u): G and Gdot share the form. */
static void pchain_rows(const pchain *P, const sunrealtype *z, sunrealtype *J) {
  sunindextype k = 0;
  for (long i = 0; i < P->N; i++) {
    sunrealtype dx = z[2 * i] - (i ? z[2 * i - 2] : 0), dy = z[2 * i + 1] - (i ? z[2 * i - 1] : 0);
    if (i > 0) {
      J[k++] = -dx;
      J[k++] = -dy;
    }
    J[k++] = dx;
    J[k++] = dy;
  }
}

static int pchain_jacobian(void *data, const sunrealtype *q, sunrealtype *G) {
  pchain_rows(data, q, G);
  return 0;
}

static int pchain_jacobian_dot(void *data, const sunrealtype *q, const sunrealtype *u,
                               sunrealtype *Gd) {
  (void)q;
  pchain_rows(data, u, Gd);
  return 0;
}

static int pchain_initial(void *data, sunrealtype *q, sunrealtype *p) {
  const pchain *P = data;
  memcpy(q, P->q0, 2 * (size_t)P->N * sizeof *q);
  memcpy(p, P->p0, 2 * (size_t)P->N * sizeof *p);
  return 0;
}

const CHSProblemOps chs_problem_pendulum_chain = {
    .abi_version = CHS_PROBLEM_ABI_VERSION,
    .name = "pendulum-chain",
    .summary =
        "N rigidly linked pendulums under gravity ([Seiler, stable] Sec. 8), CSR G, tridiagonal Q",
    .params_doc = "N=10 L=1 mass=1 gravity=1 theta=pi/2 bend=0.05 omega=0",
    .create = pchain_create,
    .destroy = pchain_destroy,
    .potential = pchain_potential,
    .force = pchain_force,
    .constraint = pchain_constraint,
    .jacobian = pchain_jacobian,
    .jacobian_dot = pchain_jacobian_dot,
    .initial_state = pchain_initial,
    .force_local = pchain_force_local,
};
