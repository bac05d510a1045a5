/* Internals of the distributed bond chains (src/mpi*.c, docs/mpi.md): the per-rank layout and
 * the kernels shared by the fields, the methods and the projections. */
#ifndef CHS_MPI_IMPL_H
#define CHS_MPI_IMPL_H

#include <mpi.h>
#include "chs/mpi.h"
#include "impl.h"

typedef struct chs_mpi {
  MPI_Comm comm;
  int rank, size, left, right;
  const CHSProblemOps *ops;
  void *data;
  int dirac, off;
  sunindextype N, n, m, nb;
  sunindextype r0, r1, a0, a1, na, nr;
  int *counts, *displs;         /* Allgatherv of q: doubles per rank */
  sunrealtype *qf, *Ff;         /* replicated q and F (n each) */
  sunrealtype *minv;            /* atoms a0-1 .. a1 (ghosts included; the pivot 0) */
  sunrealtype *v, *a, *mb, *b;  /* atoms a0-1 .. a1: 2 (na + 2) each */
  sunrealtype *d, *e;           /* bonds a0 .. a1: 2 (na + 1) each */
  sunrealtype *lam, *w, *z, *x; /* rows r0-1 .. r1: nr + 2 each */
  int ctxt, blacs;
  int desca[7], descb[7], laf, lwork;
  double *D, *E, *B, *af, *work;
  double comm_s;
  char arkode_msg[CHS_ARKODE_MSG_LEN];
} chs_mpi;

/* atom h (a0-1 <= h <= a1) of a ghosted atom array; row i (r0-1 <= i <= r1) of a row array */
#define ATOM(X, h) ((X) + 2 * ((h)-M->a0 + 1))
#define ROW(X, i) ((X)[(i)-M->r0 + 1])
#define BOND(X, h) ((X) + 2 * ((h)-M->a0))

/* 1 when bond h (row h - off) exists */
static inline int chs_mpi_bond_exists(const chs_mpi *M, sunindextype h) {
  return h >= M->off && h < M->N;
}

/* component c of the replicated position of atom h (0 for the pivot h = -1) */
static inline sunrealtype chs_mpi_q(const chs_mpi *M, sunindextype h, int c) {
  return h < 0 ? 0 : M->qf[2 * h + c];
}

/* One atom (unit 2) or one row (unit 1) from each neighbour into the ghosts of X. */
void chs_mpi_halo(chs_mpi *M, sunrealtype *X, sunindextype nloc, int unit);
/* (J^T x)_h for atom h, J stored as bond vectors (d: G, e: Gdot), x a ghosted row array. */
void chs_mpi_tmv(const chs_mpi *M, const sunrealtype *J, const sunrealtype *x, sunindextype h,
                 sunrealtype out[2]);
/* Row i of J u, J stored as bond vectors, u a ghosted atom array. */
sunrealtype chs_mpi_mv(const chs_mpi *M, const sunrealtype *J, const sunrealtype *u,
                       sunindextype i);
/* Factor Q from the bond vectors d (factor = 1) and solve for the nrhs columns of M->B: 0,
 * CHS_RECOVERABLE (Q not positive definite, agreed by all ranks) or CHS_ERR_SOLVER. */
int chs_mpi_gram_solve(chs_mpi *M, int nrhs, int factor);
/* The layout of rank M->rank for prob (created identically on every rank), checked against the
 * problem's G at q0; ScaLAPACK's grid. Collective. */
int chs_mpi_setup(chs_mpi *M, MPI_Comm comm, CHSProblem prob, const char *formulation,
                  sunrealtype *q0, CHSError *err);
void chs_mpi_free(chs_mpi *M);

#endif
