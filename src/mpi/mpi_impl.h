/* Internals of the distributed bond chains (src/mpi*.c, docs/mpi.md): the per-rank layout and
 * the kernels shared by the fields, the methods and the projections. */
#ifndef CHS_MPI_IMPL_H
#define CHS_MPI_IMPL_H

#include <mpi.h>
#include "chs/mpi.h"
#include "impl.h"

typedef struct chs_mpi_ghost chs_mpi_ghost;

typedef struct chs_mpi {
  MPI_Comm comm;
  int rank, size, left, right;
  const CHSProblemOps *ops;
  void *data;
  int dirac, off;
  sunindextype N, n, m, nb;
  sunindextype r0, r1, a0, a1, na, nr;
  int *counts, *displs;         /* Allgatherv of q: doubles per rank */
  sunrealtype *qf, *Ff;         /* replicated q and F (n each): forces without force_local */
  sunindextype reach;           /* force_local's force_reach (at most 2: one atom), -1: none */
  chs_mpi_ghost *gh;            /* ghost atoms (force_atoms within a cutoff), NULL: none */
  sunrealtype *qg, *mf, *Fl;    /* ghosted q and M^{-1} F (2 (na + 2) each), local F (2 na) */
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

/* One atom (unit 2) or one row (unit 1) from each neighbour into the ghosts of X. */
/* chs's optimised element-wise operations in a parallel vector's ops table (mpi_nvector.c); its
 * clones inherit them. */
void chs_mpi_nvector_fast_ops(N_Vector v);
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
/* The distributed field of the registered formulation of that name (its CHS_FORM_MPI_* flag):
 * 1 standard, 2 Hamilton-Dirac, 0 none (not registered, or no distributed field). */
int chs_mpi_field_kind(const char *formulation);
/* The layout of rank M->rank for prob (created identically on every rank), checked against the
 * problem's G at q0; ScaLAPACK's grid. Collective. */
int chs_mpi_setup(chs_mpi *M, MPI_Comm comm, CHSProblem prob, const char *formulation,
                  sunrealtype *q0, CHSError *err);
void chs_mpi_free(chs_mpi *M);
/* The force on the local atoms F (2 na) at the local positions q: the problem's force_local
 * (ABI 5) on the local coordinates, reading the ghosted positions X (chs_mpi_ghost_q; NULL:
 * exchanged here when force_reach > 0); without it, q gathered on every rank (Allgatherv) and
 * the problem's force. Returns the callback's status on this rank (not agreed: the caller agrees
 * before its next collective call that depends on it). Collective. */
int chs_mpi_force(chs_mpi *M, const sunrealtype *q, const sunrealtype *X, sunrealtype *F);

/* ---- ghost atoms (src/mpi/mpi_ghost.c): problems with force_atoms and a force_cutoff rc > 0 */
int chs_mpi_ghost_create(chs_mpi *M, sunrealtype rc);
void chs_mpi_ghost_free(chs_mpi *M);
/* The force on the local atoms F (2 na) at the local positions q: the ghosts' positions
 * exchanged, the lists rebuilt when an atom moved more than half the skin. Returns
 * CHS_RECOVERABLE on every rank when a position is not finite, the callback's status on this
 * rank otherwise. Collective. */
int chs_mpi_ghost_force(chs_mpi *M, const sunrealtype *q, sunrealtype *F);
/* The ghost statistics into sum (-1 without ghosts). Collective. */
void chs_mpi_ghost_summary(chs_mpi *M, CHSMPISummary *sum);

/* ---- rattle and the projections (src/mpi/mpi_rattle.c, src/mpi/mpi_project.c; docs/mpi.md) */

/* The constraint rows' constants c_i = g_i(0) (g_i = 1/2 |d_h|^2 + c_i, the bond chain's form)
 * from the problem's own callback, for the local rows (gc: nr), checked against the callback at
 * the problem's initial state. Collective: CHS_ERR_UNSUPPORTED on every rank when a rank finds
 * the problem's constraint of another form. */
int chs_mpi_cons_setup(chs_mpi *M, sunrealtype *gc, CHSError *err);
/* The ghosted positions X (atoms a0-1 .. a1: 2 (na + 2)) of the local q: the neighbours' atoms
 * by chs_mpi_halo, the pivot and the atom beyond the last one 0. Collective. */
void chs_mpi_ghost_q(chs_mpi *M, const sunrealtype *q, sunrealtype *X);
/* The bond vectors of the ghosted positions X into M->d (G at X, as the fields keep it). */
void chs_mpi_bonds(chs_mpi *M, const sunrealtype *X);
/* g at the local rows of the ghosted positions X (gc from chs_mpi_cons_setup), bitwise the
 * problem's 1/2 (|d|^2 - L^2). */
void chs_mpi_cons(const chs_mpi *M, const sunrealtype *X, const sunrealtype *gc, sunrealtype *g);
/* Sum (op MPI_SUM) or maximum (MPI_MAX) of k doubles over the ranks, in place. Collective. */
void chs_mpi_reduce(chs_mpi *M, double *x, int k, MPI_Op op);

/* The serial CHSProjector's algorithm (src/integrate/projection.c) on the layout of M: opt->project
 * kind, project_tol, project_every, project_newton_tol. */
typedef struct chs_mpi_proj chs_mpi_proj;
int chs_mpi_proj_create(chs_mpi *M, const CHSRunOptions *opt, chs_mpi_proj **out, CHSError *err);
/* Project the local state y = (q_loc, p_loc) after a step: 0, or CHS_RECOVERABLE (the position
 * Newton iteration failed: q restored) / a Gram failure, the same on every rank. Collective. */
int chs_mpi_proj_apply(chs_mpi_proj *P, sunrealtype *y);
/* The projector's counters into sum (proj_position, proj_momentum, proj_newton). */
void chs_mpi_proj_counts(const chs_mpi_proj *P, CHSMPISummary *sum);
void chs_mpi_proj_free(chs_mpi_proj **P);

/* SHAKE/RATTLE (src/integrate/rattle.c's constant-mass path) from opt->t0 to opt->tf with the
 * fixed step opt->ctl.h on the local state y = (q_loc, p_loc); fills the steps, force
 * evaluations (rhs_evals), SHAKE iterations, times and ranks of sum. Collective, the same code on
 * every rank. */
int chs_mpi_rattle(chs_mpi *M, const CHSRunOptions *opt, sunrealtype *y, CHSMPISummary *sum,
                   CHSError *err);

#endif
