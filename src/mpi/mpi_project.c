/* Projections of the distributed bond chains (docs/mpi.md), the serial CHSProjector's algorithm
 * (src/integrate/projection.c) on the layout of src/mpi/mpi_impl.h, and the constraint kernels that
 * rattle shares (src/mpi/mpi_rattle.c):
 *
 *   position: if tol = 0 or |g(q)|_2 > tol: simplified Newton with G and Q frozen at the
 *             unprojected q, q <- q - M^{-1} G^T Q^{-1} g(q), until |g|_2 <= max(newton_tol,
 *             8 u max(1, |q|_2^2)) or the step max|dq| <= 4 u max(1, |q|_2) (at most 50 steps;
 *             otherwise q is restored and the projection fails);
 *   momentum: at the (projected) q, if tol = 0 or |psi|_2 > tol with psi = G M^{-1} p:
 *             p <- p - G^T Q^{-1} psi.
 *
 * g comes from the bond vectors of the local rows (the left neighbour's last atom by the halo),
 * bitwise the problem's 1/2 (|d|^2 - L^2); the norms are sums over the ranks (MPI_Allreduce), so
 * they differ from the serial ones in the last bits only. Every decision is taken on reduced
 * values: all ranks take the same branch. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_impl.h"

#define CHS_MPI_PROJ_NEWTON_MAX 50 /* the serial CHS_PROJ_NEWTON_MAX */

void chs_mpi_reduce(chs_mpi *M, double *x, int k, MPI_Op op) {
  double t = MPI_Wtime();
  MPI_Allreduce(MPI_IN_PLACE, x, k, MPI_DOUBLE, op, M->comm);
  M->comm_s += MPI_Wtime() - t;
}

void chs_mpi_ghost_q(chs_mpi *M, const sunrealtype *q, sunrealtype *X) {
  X[0] = X[1] = 0; /* the pivot of pendulum-chain (rank 0 has no left neighbour) */
  memcpy(ATOM(X, M->a0), q, 2 * (size_t)M->na * sizeof *X);
  ATOM(X, M->a1)[0] = ATOM(X, M->a1)[1] = 0;
  chs_mpi_halo(M, X, M->na, 2);
}

void chs_mpi_bonds(chs_mpi *M, const sunrealtype *X) {
  for (sunindextype h = M->a0; h <= M->a1; h++) {
    if (chs_mpi_bond_exists(M, h)) {
      for (int c = 0; c < 2; c++) {
        BOND(M->d, h)[c] = ATOM(X, h)[c] - ATOM(X, h - 1)[c];
      }
    }
  }
}

void chs_mpi_cons(const chs_mpi *M, const sunrealtype *X, const sunrealtype *gc, sunrealtype *g) {
  for (sunindextype i = M->r0; i < M->r1; i++) {
    sunindextype h = i + M->off;
    sunrealtype dx = ATOM(X, h)[0] - ATOM(X, h - 1)[0], dy = ATOM(X, h)[1] - ATOM(X, h - 1)[1];
    g[i - M->r0] = (dx * dx + dy * dy + 2 * gc[i - M->r0]) / 2; /* 2 c_i = -L^2 exactly */
  }
}

int chs_mpi_cons_setup(chs_mpi *M, sunrealtype *gc, CHSError *err) {
  sunindextype n = M->n, m = M->m;
  sunrealtype *q =
      calloc(2 * (size_t)n + (size_t)m + 2 * ((size_t)M->na + 2) + (size_t)M->nr, sizeof *q);
  if (!q) {
    return chs_error_set(err, CHS_ERR_MEM, "MPI: out of memory");
  }
  sunrealtype *p = q + n, *g = p + n, *X = g + m, *gl = X + 2 * (M->na + 2);
  int bad = M->ops->constraint(M->data, q, g) != 0; /* at q = 0: c_i = -L_i^2 / 2 */
  for (sunindextype i = M->r0; i < M->r1; i++) {
    gc[i - M->r0] = g[i];
  }
  bad = bad || M->ops->initial_state(M->data, q, p) != 0 || M->ops->constraint(M->data, q, g) != 0;
  chs_mpi_ghost_q(M, q + 2 * M->a0, X);
  chs_mpi_cons(M, X, gc, gl);
  for (sunindextype i = M->r0; !bad && i < M->r1; i++) {
    sunindextype h = i + M->off;
    sunrealtype dx = ATOM(X, h)[0] - ATOM(X, h - 1)[0], dy = ATOM(X, h)[1] - ATOM(X, h - 1)[1];
    bad = !(fabs(gl[i - M->r0] - g[i]) <= 16 * SUN_UNIT_ROUNDOFF * fmax(1, dx * dx + dy * dy));
  }
  free(q);
  double all = bad;
  chs_mpi_reduce(M, &all, 1, MPI_MAX);
  return all != 0 ? chs_error_set(err, CHS_ERR_UNSUPPORTED,
                                  "MPI: the constraints of this problem are not the bond chain's "
                                  "1/2 (|r_h - r_(h-1)|^2 - L^2)")
                  : 0;
}

struct chs_mpi_proj {
  chs_mpi *M;
  int kind;
  sunrealtype tol, newton_tol;
  long every, calls, n_position, n_momentum, n_newton;
  sunrealtype *X, *v, *q0;  /* ghosted atoms (2 (na + 2)); q0: 2 na */
  sunrealtype *gc, *g, *mu; /* gc, g: nr; mu: ghosted rows (nr + 2) */
};

int chs_mpi_proj_create(chs_mpi *M, const CHSRunOptions *opt, chs_mpi_proj **out, CHSError *err) {
  *out = NULL;
  if (opt->project < CHS_PROJECT_MOMENTUM || opt->project > CHS_PROJECT_BOTH ||
      !(opt->project_tol >= 0) || !isfinite(opt->project_tol)) {
    return chs_error_set(err, CHS_ERR_ARG, "projection: bad kind %d or tolerance %g", opt->project,
                         (double)opt->project_tol);
  }
  chs_mpi_proj *P = calloc(1, sizeof *P);
  sunindextype na = M->na, nr = M->nr;
  sunrealtype *buf =
      P ? calloc(4 * ((size_t)na + 2) + 2 * (size_t)na + 3 * (size_t)nr + 2, sizeof *buf) : NULL;
  if (!buf) {
    free(P);
    return chs_error_set(err, CHS_ERR_MEM, "MPI: out of memory");
  }
  P->M = M;
  P->kind = opt->project;
  P->tol = opt->project_tol;
  P->newton_tol = opt->project_newton_tol > 0 ? opt->project_newton_tol : 0;
  P->every = opt->project_every > 1 ? opt->project_every : 1;
  P->X = buf;
  P->v = P->X + 2 * (na + 2);
  P->q0 = P->v + 2 * (na + 2);
  P->gc = P->q0 + 2 * na;
  P->g = P->gc + nr;
  P->mu = P->g + nr;
  int rc = chs_mpi_cons_setup(M, P->gc, err);
  if (rc != 0) {
    chs_mpi_proj_free(&P);
    return rc;
  }
  *out = P;
  return 0;
}

void chs_mpi_proj_free(chs_mpi_proj **P) {
  if (P && *P) {
    free((*P)->X);
    free(*P);
    *P = NULL;
  }
}

void chs_mpi_proj_counts(const chs_mpi_proj *P, CHSMPISummary *sum) {
  sum->proj_position = P->n_position;
  sum->proj_momentum = P->n_momentum;
  sum->proj_newton = P->n_newton;
}

/* |x|_2 over the ranks (x: nloc local values), and in *nonfinite whether any is NaN or Inf. */
static sunrealtype mpi_norm2(chs_mpi *M, const sunrealtype *x, sunindextype nloc, int *nonfinite) {
  double s[2] = {0, 0};
  for (sunindextype i = 0; i < nloc; i++) {
    s[0] += x[i] * x[i];
    s[1] += !isfinite(x[i]);
  }
  chs_mpi_reduce(M, s, 2, MPI_SUM);
  if (nonfinite) {
    *nonfinite = s[1] != 0;
  }
  return sqrt(s[0]);
}

/* (G^T x)_h for the local atoms, x a row array (its ghosts exchanged here), into out (2 na). */
static void mpi_gt(chs_mpi *M, sunrealtype *x, sunrealtype *out) {
  chs_mpi_halo(M, x, M->nr, 1);
  for (sunindextype h = M->a0; h < M->a1; h++) {
    chs_mpi_tmv(M, M->d, x, h, out + 2 * (h - M->a0));
  }
}

/* Position: the serial chs_project_position (G, Q frozen at the unprojected q). */
static int mpi_project_position(chs_mpi_proj *P, sunrealtype *q) {
  chs_mpi *M = P->M;
  sunindextype na = M->na, nr = M->nr;
  sunrealtype *X = P->X, *g = P->g, *dq = P->v;
  chs_mpi_ghost_q(M, q, X);
  chs_mpi_bonds(M, X); /* G(q); Q(q) factored at the first solve */
  int factored = 0;
  sunrealtype qn = mpi_norm2(M, q, 2 * na, NULL);
  for (int it = 0; it < CHS_MPI_PROJ_NEWTON_MAX; it++) {
    int nonfinite = 0;
    chs_mpi_cons(M, X, P->gc, g);
    sunrealtype gn = mpi_norm2(M, g, nr, &nonfinite);
    if (nonfinite) {
      return CHS_RECOVERABLE;
    }
    if (gn <= fmax(P->newton_tol, 8 * SUN_UNIT_ROUNDOFF * fmax(1, qn * qn))) {
      return 0;
    }
    memcpy(M->B, g, (size_t)nr * sizeof *g);
    CHS_CALL(chs_mpi_gram_solve(M, 1, !factored));
    factored = 1;
    memcpy(&ROW(P->mu, M->r0), M->B, (size_t)nr * sizeof *g);
    mpi_gt(M, P->mu, dq);
    double step = 0;
    for (sunindextype k = 0; k < 2 * na; k++) {
      dq[k] *= ATOM(M->minv, M->a0)[k]; /* M^{-1} G^T mu */
      q[k] -= dq[k];
      step = isnan(dq[k]) ? INFINITY : fmax(step, fabs(dq[k]));
    }
    chs_mpi_reduce(M, &step, 1, MPI_MAX);
    P->n_newton++;
    if (!isfinite(step)) {
      return CHS_RECOVERABLE;
    }
    if (step <= 4 * SUN_UNIT_ROUNDOFF * fmax(1, qn)) {
      return 0;
    }
    chs_mpi_ghost_q(M, q, X);
  }
  return CHS_RECOVERABLE;
}

int chs_mpi_proj_apply(chs_mpi_proj *P, sunrealtype *y) {
  if (++P->calls % P->every != 0) {
    return 0;
  }
  chs_mpi *M = P->M;
  sunindextype na = M->na, nr = M->nr;
  sunrealtype *q = y, *p = y + 2 * na, *X = P->X, *g = P->g;
  if (P->kind & CHS_PROJECT_POSITION) {
    int project = P->tol == 0;
    if (!project) { /* tolerance 0: every step */
      chs_mpi_ghost_q(M, q, X);
      chs_mpi_cons(M, X, P->gc, g);
      project = mpi_norm2(M, g, nr, NULL) > P->tol;
    }
    if (project) {
      memcpy(P->q0, q, 2 * (size_t)na * sizeof *q);
      int rc = mpi_project_position(P, q);
      if (rc != 0) {
        memcpy(q, P->q0, 2 * (size_t)na * sizeof *q);
        return rc;
      }
      P->n_position++;
    }
  }
  if (P->kind & CHS_PROJECT_MOMENTUM) {
    chs_mpi_ghost_q(M, q, X);
    chs_mpi_bonds(M, X); /* G(q) */
    sunrealtype *v = P->v;
    for (sunindextype k = 0; k < 2 * na; k++) {
      ATOM(v, M->a0)[k] = ATOM(M->minv, M->a0)[k] * p[k];
    }
    v[0] = v[1] = ATOM(v, M->a1)[0] = ATOM(v, M->a1)[1] = 0; /* the pivot: at rest */
    chs_mpi_halo(M, v, na, 2);
    for (sunindextype i = M->r0; i < M->r1; i++) { /* psi = G M^{-1} p */
      g[i - M->r0] = chs_mpi_mv(M, M->d, v, i);
    }
    if (P->tol == 0 || mpi_norm2(M, g, nr, NULL) > P->tol) {
      memcpy(M->B, g, (size_t)nr * sizeof *g);
      CHS_CALL(chs_mpi_gram_solve(M, 1, 1));
      memcpy(&ROW(P->mu, M->r0), M->B, (size_t)nr * sizeof *g);
      mpi_gt(M, P->mu, v);
      for (sunindextype k = 0; k < 2 * na; k++) {
        p[k] -= v[k];
      }
      P->n_momentum++;
    }
  }
  return 0;
}
