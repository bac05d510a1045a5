/* A planar chain molecule with rigid bonds (seed 000 Sec. 7, after Leimkuhler & Skeel):
 *
 *   V = eps * sum_{i<j} ((sigma/r_ij)^12 - 2 (sigma/r_ij)^6)      (seed 000 (39): eps = 0.1),
 *   g_a = 1/2 (|r_a - r_{a+1}|^2 - L^2), a = 1 .. N-1,  M = I      ((40)-(41)),
 *
 * all pairs (O(N^2) per evaluation), G in CSR (4 entries per row), so Q is tridiagonal ((42)).
 * The Hessian-vector product of V is supplied (the extended and total formulations need it).
 *
 * Initial configurations: init=0 (default for N = 7) the hexagonal global minimum of Fig. 3 -
 * six atoms on a regular hexagon of side L and atom `centre` (7 by default; 1 or 4 also keep
 * the chain connected) at its centre; init=1 a zigzag (bond angle 120 degrees). Velocities as
 * in Sec. 7: the end atoms move with speed v0 perpendicular to their bonds (the only directions
 * consistent with psi = 0), the last one with the orientation `sign` (-1: opposite to the
 * first when the end bonds are parallel, as they are for centre=7). No reference solution. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../src/impl.h"

typedef struct {
  long N, init, centre;
  sunrealtype L, eps, sigma, v0;
  sunrealtype *q0, *p0;
  sunindextype *rowptr, *colind;
} chain;

static void chain_destroy(void *data) {
  chain *C = data;
  if (C) {
    free(C->q0);
    free(C->rowptr);
    free(C);
  }
}

/* phi(r) = eps ((sigma/r)^12 - 2 (sigma/r)^6) and its first two derivatives. */
static void lj(const chain *C, sunrealtype r, sunrealtype *phi, sunrealtype *d1, sunrealtype *d2) {
  sunrealtype s6 = pow(C->sigma / r, 6), s12 = s6 * s6;
  if (phi) {
    *phi = C->eps * (s12 - 2 * s6);
  }
  if (d1) {
    *d1 = C->eps * (-12 * s12 + 12 * s6) / r;
  }
  if (d2) {
    *d2 = C->eps * (156 * s12 - 84 * s6) / (r * r);
  }
}

static int chain_create(CHSParams kv, void **data, CHSProblemDims *d, CHSError *err) {
  chain *C = calloc(1, sizeof *C);
  if (!C) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  *data = C;
  CHS_CALL(CHSParams_GetInt(kv, "N", 7, 2, 100000000, &C->N, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "L", 1, 0, 1, &C->L, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "eps", 0.1, 0, 0, &C->eps, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "sigma", 1, 0, 1, &C->sigma, err));
  CHS_CALL(CHSParams_GetReal(kv, "v0", 0.25, &C->v0, err));
  CHS_CALL(CHSParams_GetInt(kv, "init", C->N == 7 ? 0 : 1, 0, 1, &C->init, err));
  CHS_CALL(CHSParams_GetInt(kv, "centre", 7, 1, 7, &C->centre, err));
  sunrealtype sign;
  CHS_CALL(CHSParams_GetReal(kv, "sign", -1, &sign, err));
  if (C->init == 0 && C->N != 7) {
    return chs_error_set(err, CHS_ERR_ARG, "chain: init=0 (hexagon) needs N=7, got N=%ld", C->N);
  }
  sunindextype N = C->N, n = 2 * N, m = N - 1;
  C->q0 = calloc(2 * (size_t)n, sizeof *C->q0);
  C->rowptr = malloc(((size_t)m + 1 + 4 * (size_t)m) * sizeof *C->rowptr);
  if (!C->q0 || !C->rowptr) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory for N = %ld", (long)N);
  }
  C->p0 = C->q0 + n;
  C->colind = C->rowptr + m + 1;
  sunrealtype *q = C->q0;
  if (C->init == 0) {
    /* the hexagon's corners in order around it; the centre is atom `centre` of the chain
     * (the chain stays connected with bonds of length L for centre = 1, 4 or 7) */
    if (C->centre != 1 && C->centre != 4 && C->centre != 7) {
      return chs_error_set(err, CHS_ERR_ARG, "chain: centre=%ld must be 1, 4 or 7", C->centre);
    }
    for (int a = 0, k = 0; a < 7; a++) {
      if (a + 1 == C->centre) {
        q[2 * a] = q[2 * a + 1] = 0;
      } else {
        q[2 * a] = C->L * cos(M_PI / 3 * k);
        q[2 * a + 1] = C->L * sin(M_PI / 3 * k);
        k++;
      }
    }
  } else {
    for (sunindextype k = 0; k < N; k++) {
      q[2 * k] = C->L * cos(M_PI / 6) * (sunrealtype)k;
      q[2 * k + 1] = (k % 2) ? C->L * sin(M_PI / 6) : 0;
    }
  }
  /* end atoms: speed v0 perpendicular to their bonds, opposite directions */
  sunrealtype ax = q[2] - q[0], ay = q[3] - q[1], bx = q[2 * N - 2] - q[2 * N - 4],
              by = q[2 * N - 1] - q[2 * N - 3];
  sunrealtype la = hypot(ax, ay), lb = hypot(bx, by);
  C->p0[0] = C->v0 * ay / la;
  C->p0[1] = -C->v0 * ax / la;
  C->p0[2 * N - 2] = -sign * C->v0 * by / lb;
  C->p0[2 * N - 1] = sign * C->v0 * bx / lb;
  sunindextype k = 0;
  for (sunindextype a = 0; a < m; a++) {
    C->rowptr[a] = k;
    C->colind[k++] = 2 * a;
    C->colind[k++] = 2 * a + 1;
    C->colind[k++] = 2 * a + 2;
    C->colind[k++] = 2 * a + 3;
  }
  C->rowptr[m] = k;
  d->n = n;
  d->m = m;
  d->mass_kind = CHS_MASS_IDENTITY;
  d->jac_kind = CHS_JAC_CSR;
  d->nnz = k;
  d->rowptr = C->rowptr;
  d->colind = C->colind;
  return CHS_SUCCESS;
}

static int chain_potential(void *data, const sunrealtype *q, sunrealtype *V) {
  const chain *C = data;
  sunrealtype acc = 0, phi;
  for (long i = 0; i < C->N; i++) {
    for (long j = i + 1; j < C->N; j++) {
      lj(C, hypot(q[2 * i] - q[2 * j], q[2 * i + 1] - q[2 * j + 1]), &phi, NULL, NULL);
      acc += phi;
    }
  }
  *V = acc;
  return 0;
}

static int chain_force(void *data, const sunrealtype *q, sunrealtype *F) {
  const chain *C = data;
  memset(F, 0, 2 * (size_t)C->N * sizeof *F);
  for (long i = 0; i < C->N; i++) {
    for (long j = i + 1; j < C->N; j++) {
      sunrealtype dx = q[2 * i] - q[2 * j], dy = q[2 * i + 1] - q[2 * j + 1], r = hypot(dx, dy), d1;
      if (!(r > 0)) {
        return 1; /* atoms on top of each other: outside the domain */
      }
      lj(C, r, NULL, &d1, NULL);
      sunrealtype fx = -d1 * dx / r, fy = -d1 * dy / r;
      F[2 * i] += fx;
      F[2 * i + 1] += fy;
      F[2 * j] -= fx;
      F[2 * j + 1] -= fy;
    }
  }
  return 0;
}

/* Hu = (hess V) u: per pair, phi'' d^ d^T + phi'/r (I - d^ d^T) applied to u_i - u_j. */
static int chain_hessian(void *data, const sunrealtype *q, const sunrealtype *u, sunrealtype *Hu) {
  const chain *C = data;
  memset(Hu, 0, 2 * (size_t)C->N * sizeof *Hu);
  for (long i = 0; i < C->N; i++) {
    for (long j = i + 1; j < C->N; j++) {
      sunrealtype dx = q[2 * i] - q[2 * j], dy = q[2 * i + 1] - q[2 * j + 1], r = hypot(dx, dy);
      sunrealtype d1, d2;
      if (!(r > 0)) {
        return 1;
      }
      lj(C, r, NULL, &d1, &d2);
      sunrealtype ex = dx / r, ey = dy / r, ux = u[2 * i] - u[2 * j],
                  uy = u[2 * i + 1] - u[2 * j + 1];
      sunrealtype eu = ex * ux + ey * uy;
      sunrealtype hx = d2 * eu * ex + d1 / r * (ux - eu * ex);
      sunrealtype hy = d2 * eu * ey + d1 / r * (uy - eu * ey);
      Hu[2 * i] += hx;
      Hu[2 * i + 1] += hy;
      Hu[2 * j] -= hx;
      Hu[2 * j + 1] -= hy;
    }
  }
  return 0;
}

static int chain_constraint(void *data, const sunrealtype *q, sunrealtype *g) {
  const chain *C = data;
  for (long a = 0; a + 1 < C->N; a++) {
    sunrealtype dx = q[2 * a] - q[2 * a + 2], dy = q[2 * a + 1] - q[2 * a + 3];
    g[a] = (dx * dx + dy * dy - C->L * C->L) / 2;
  }
  return 0;
}

/* Row a: (d, -d) with d = z_a - z_{a+1}. */
static void chain_rows(const chain *C, const sunrealtype *z, sunrealtype *J) {
  for (long a = 0; a + 1 < C->N; a++) {
    sunrealtype dx = z[2 * a] - z[2 * a + 2], dy = z[2 * a + 1] - z[2 * a + 3];
    J[4 * a] = dx;
    J[4 * a + 1] = dy;
    J[4 * a + 2] = -dx;
    J[4 * a + 3] = -dy;
  }
}

static int chain_jacobian(void *data, const sunrealtype *q, sunrealtype *G) {
  chain_rows(data, q, G);
  return 0;
}

static int chain_jacobian_dot(void *data, const sunrealtype *q, const sunrealtype *u,
                              sunrealtype *Gd) {
  (void)q;
  chain_rows(data, u, Gd);
  return 0;
}

static int chain_initial(void *data, sunrealtype *q, sunrealtype *p) {
  const chain *C = data;
  memcpy(q, C->q0, 2 * (size_t)C->N * sizeof *q);
  memcpy(p, C->p0, 2 * (size_t)C->N * sizeof *p);
  return 0;
}

const CHSProblemOps chs_problem_chain = {
    .abi_version = CHS_PROBLEM_ABI_VERSION,
    .name = "chain",
    .summary = "planar chain molecule, rigid bonds, Lennard-Jones (seed 000 Sec. 7), all pairs",
    .params_doc = "N=7 L=1 eps=0.1 sigma=1 v0=0.25 init=0 (hexagon, N=7) | 1 (zigzag) centre=7 "
                  "sign=-1",
    .create = chain_create,
    .destroy = chain_destroy,
    .potential = chain_potential,
    .force = chain_force,
    .constraint = chain_constraint,
    .jacobian = chain_jacobian,
    .jacobian_dot = chain_jacobian_dot,
    .hessian_potential = chain_hessian,
    .initial_state = chain_initial,
};
