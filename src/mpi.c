/* Bond chains distributed over MPI ranks (chs/mpi.h, docs/mpi.md).
 *
 * A bond chain has constraints g_i = 1/2 (|r_h - r_{h-1}|^2 - L^2) on consecutive atoms, h = i +
 * off: pendulum-chain (off = 0, atom -1 the fixed pivot at 0) and chain (off = 1). With the bond
 * vector d_h = r_h - r_{h-1} and e_h = v_h - v_{h-1}, row i of G is (-d_h at atom h-1, d_h at
 * atom h) and of Gdot(q, v) (-e_h, e_h); Q = G M^{-1} G^T is tridiagonal,
 *   Q(i,i) = (m_{h-1}^{-1} + m_h^{-1}) |d_h|^2,   Q(i,i+1) = -m_h^{-1} d_h . d_{h+1}.
 * The layout is checked against the problem's own G at the initial state (CHSMPI_Run refuses a
 * problem whose G differs).
 *
 * Distribution: rank k owns the rows [r0, r1) = ScaLAPACK's block k of nb = ceil(m / K) rows, the
 * atoms [a0, a1) = [r0 + off, r1 + off) (rank 0 from atom 0), and that part of q and p in its
 * N_Vector_Parallel (local layout q_loc, p_loc). Halo: one atom on each side (v, M^{-1} b, a) and
 * one row on each side (the multipliers), exchanged with the neighbours (MPI_Sendrecv).
 * Positions are replicated (MPI_Allgatherv) once per right-hand side: the problem's force
 * callback (Lennard-Jones pairs of a coiled chain are near in space, not in the chain's order)
 * runs unchanged on the whole q, and every rank takes its atoms' forces.
 *
 * The two fields, in the notation of formulations/standard.c and dirac.c:
 *   standard: lambda = Q^{-1} (Gdot v + G M^{-1} F),  q' = v,  p' = F - G^T lambda;
 *   dirac:    w = Q^{-1} psi, a = M^{-1} G^T w, b = Gdot^T w, z = lambda - Q^{-1} (Gdot a -
 *             G M^{-1} b),  q' = v - a,  p' = F - G^T z + b. */
#include <stdlib.h>
#include <string.h>
#include <arkode/arkode_erkstep.h>
#include <nvector/nvector_parallel.h>
#include "chs/mpi.h"
#include "compat.h"
#include "impl.h"

/* ScaLAPACK (BLACS C interface and the tridiagonal SPD solver). */
extern int Csys2blacs_handle(MPI_Comm comm);
extern void Cfree_blacs_system_handle(int handle);
extern void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
extern void Cblacs_gridexit(int ctxt);
extern void pdpttrf_(const int *n, double *d, double *e, const int *ja, const int *desca,
                     double *af, const int *laf, double *work, const int *lwork, int *info);
extern void pdpttrs_(const int *n, const int *nrhs, double *d, double *e, const int *ja,
                     const int *desca, double *b, const int *ib, const int *descb, double *af,
                     const int *laf, double *work, const int *lwork, int *info);

typedef struct {
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

static int mpi_bond_exists(const chs_mpi *M, sunindextype h) {
  return h >= M->off && h < M->N;
}

static sunrealtype mpi_q(const chs_mpi *M, sunindextype h, int c) {
  return h < 0 ? 0 : M->qf[2 * h + c];
}

/* One atom (2 values) or one row (1 value) from each neighbour into the ghosts of X (the first
 * and last local unit go to the left and right neighbour). */
static void mpi_halo(chs_mpi *M, sunrealtype *X, sunindextype nloc, int unit) {
  double t = MPI_Wtime();
  MPI_Sendrecv(X + unit, unit, MPI_DOUBLE, M->left, 1, X + unit * (nloc + 1), unit, MPI_DOUBLE,
               M->right, 1, M->comm, MPI_STATUS_IGNORE);
  MPI_Sendrecv(X + unit * nloc, unit, MPI_DOUBLE, M->right, 2, X, unit, MPI_DOUBLE, M->left, 2,
               M->comm, MPI_STATUS_IGNORE);
  M->comm_s += MPI_Wtime() - t;
}

/* (G^T x)_h for atom h, or (Gdot^T x)_h with the bond vectors e: the rows of bonds h and h+1. */
static void mpi_tmv(const chs_mpi *M, const sunrealtype *J, const sunrealtype *x, sunindextype h,
                    sunrealtype out[2]) {
  out[0] = out[1] = 0;
  if (mpi_bond_exists(M, h)) {
    sunrealtype xi = ROW(x, h - M->off);
    out[0] += BOND(J, h)[0] * xi;
    out[1] += BOND(J, h)[1] * xi;
  }
  if (mpi_bond_exists(M, h + 1)) {
    sunrealtype xi = ROW(x, h + 1 - M->off);
    out[0] -= BOND(J, h + 1)[0] * xi;
    out[1] -= BOND(J, h + 1)[1] * xi;
  }
}

/* Row i of J u for J stored as bond vectors (J = d: G, e: Gdot), u a ghosted atom array. */
static sunrealtype mpi_mv(const chs_mpi *M, const sunrealtype *J, const sunrealtype *u,
                          sunindextype i) {
  sunindextype h = i + M->off;
  const sunrealtype *j = BOND(J, h), *uh = ATOM(u, h), *ul = ATOM(u, h - 1);
  return -j[0] * ul[0] - j[1] * ul[1] + j[0] * uh[0] + j[1] * uh[1];
}

/* Factor Q (from the bond vectors d) and solve for the nrhs columns of M->B; the same code on
 * every rank (0 or CHS_RECOVERABLE: Q not positive definite). factor = 0: Q factored already. */
static int mpi_gram_solve(chs_mpi *M, int nrhs, int factor) {
  double t = MPI_Wtime();
  int n = (int)M->m, one = 1, info = 0;
  if (factor) {
    for (sunindextype i = M->r0; i < M->r1; i++) {
      sunindextype h = i + M->off;
      const sunrealtype *dh = BOND(M->d, h);
      sunrealtype dd = dh[0] * dh[0] + dh[1] * dh[1];
      M->D[i - M->r0] = (ATOM(M->minv, h - 1)[0] + ATOM(M->minv, h)[0]) * dd;
      M->E[i - M->r0] = 0;
      if (i + 1 < M->m) {
        const sunrealtype *dn = BOND(M->d, h + 1);
        M->E[i - M->r0] = -ATOM(M->minv, h)[0] * (dh[0] * dn[0] + dh[1] * dn[1]);
      }
    }
    pdpttrf_(&n, M->D, M->E, &one, M->desca, M->af, &M->laf, M->work, &M->lwork, &info);
    int all = 0;
    info = info != 0;
    MPI_Allreduce(&info, &all, 1, MPI_INT, MPI_MAX, M->comm);
    if (all) {
      M->comm_s += MPI_Wtime() - t;
      return CHS_RECOVERABLE;
    }
  }
  pdpttrs_(&n, &nrhs, M->D, M->E, &one, M->desca, M->B, &one, M->descb, M->af, &M->laf, M->work,
           &M->lwork, &info);
  M->comm_s += MPI_Wtime() - t;
  return info == 0 ? 0 : CHS_ERR_SOLVER;
}

static int mpi_field(chs_mpi *M, const sunrealtype *y, sunrealtype *ydot) {
  sunindextype na = M->na, nr = M->nr, a0 = M->a0, a1 = M->a1;
  const sunrealtype *q = y, *p = y + 2 * na;
  sunrealtype *qd = ydot, *pd = ydot + 2 * na;
  double t = MPI_Wtime();
  MPI_Allgatherv(q, (int)(2 * na), MPI_DOUBLE, M->qf, M->counts, M->displs, MPI_DOUBLE, M->comm);
  M->comm_s += MPI_Wtime() - t;
  if (M->ops->force(M->data, M->qf, M->Ff) != 0) { /* the same q on every rank: the same result */
    return CHS_RECOVERABLE;
  }
  for (sunindextype k = 0; k < 2 * na; k++) {
    ATOM(M->v, a0)[k] = ATOM(M->minv, a0)[k] * p[k];
  }
  mpi_halo(M, M->v, na, 2);
  for (sunindextype h = a0; h <= a1; h++) {
    if (mpi_bond_exists(M, h)) {
      for (int c = 0; c < 2; c++) {
        BOND(M->d, h)[c] = mpi_q(M, h, c) - mpi_q(M, h - 1, c);
        BOND(M->e, h)[c] = ATOM(M->v, h)[c] - ATOM(M->v, h - 1)[c];
      }
    }
  }
  /* r = Gdot v + G M^{-1} F (column 0), psi = G v (column 1) */
  for (sunindextype i = M->r0; i < M->r1; i++) {
    sunindextype h = i + M->off;
    const sunrealtype *dh = BOND(M->d, h), *eh = BOND(M->e, h);
    sunrealtype f[2];
    for (int c = 0; c < 2; c++) {
      f[c] = ATOM(M->minv, h)[c] * M->Ff[2 * h + c] -
             (h > 0 ? ATOM(M->minv, h - 1)[c] * M->Ff[2 * h - 2 + c] : 0);
    }
    M->B[i - M->r0] = eh[0] * eh[0] + eh[1] * eh[1] + dh[0] * f[0] + dh[1] * f[1];
    if (M->dirac) {
      M->B[M->nb + i - M->r0] = dh[0] * eh[0] + dh[1] * eh[1];
    }
  }
  CHS_CALL(mpi_gram_solve(M, M->dirac ? 2 : 1, 1));
  memcpy(&ROW(M->lam, M->r0), M->B, (size_t)nr * sizeof *M->lam);
  mpi_halo(M, M->lam, nr, 1);
  const sunrealtype *F = M->Ff + 2 * a0;
  if (!M->dirac) {
    for (sunindextype h = a0; h < a1; h++) {
      sunrealtype gt[2];
      mpi_tmv(M, M->d, M->lam, h, gt);
      for (int c = 0; c < 2; c++) {
        qd[2 * (h - a0) + c] = ATOM(M->v, h)[c];
        pd[2 * (h - a0) + c] = F[2 * (h - a0) + c] - gt[c];
      }
    }
    return 0;
  }
  memcpy(&ROW(M->w, M->r0), M->B + M->nb, (size_t)nr * sizeof *M->w);
  mpi_halo(M, M->w, nr, 1);
  for (sunindextype h = a0; h < a1; h++) { /* a = M^{-1} G^T w, b = Gdot^T w */
    sunrealtype gt[2];
    mpi_tmv(M, M->d, M->w, h, gt);
    mpi_tmv(M, M->e, M->w, h, ATOM(M->b, h));
    for (int c = 0; c < 2; c++) {
      ATOM(M->a, h)[c] = ATOM(M->minv, h)[c] * gt[c];
      ATOM(M->mb, h)[c] = ATOM(M->minv, h)[c] * ATOM(M->b, h)[c];
    }
  }
  mpi_halo(M, M->a, na, 2);
  mpi_halo(M, M->mb, na, 2);
  for (sunindextype i = M->r0; i < M->r1; i++) { /* S w = Gdot a - G M^{-1} b */
    M->B[i - M->r0] = mpi_mv(M, M->e, M->a, i) - mpi_mv(M, M->d, M->mb, i);
  }
  CHS_CALL(mpi_gram_solve(M, 1, 0));
  for (sunindextype i = M->r0; i < M->r1; i++) {
    ROW(M->z, i) = ROW(M->lam, i) - M->B[i - M->r0];
  }
  mpi_halo(M, M->z, nr, 1);
  for (sunindextype h = a0; h < a1; h++) {
    sunrealtype gt[2];
    mpi_tmv(M, M->d, M->z, h, gt);
    for (int c = 0; c < 2; c++) {
      qd[2 * (h - a0) + c] = ATOM(M->v, h)[c] - ATOM(M->a, h)[c];
      pd[2 * (h - a0) + c] = F[2 * (h - a0) + c] - gt[c] + ATOM(M->b, h)[c];
    }
  }
  return 0;
}

/* ERKStep's right-hand side: the field, with its status agreed by all ranks (a failure on one
 * rank is a failure on all, so that none waits in a collective call the others left). */
static int mpi_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user_data) {
  (void)t;
  chs_mpi *M = user_data;
  int rc = mpi_field(M, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot));
  int flags[2] = {rc < 0 ? -rc : 0, rc > 0 ? rc : 0}, all[2];
  double t0 = MPI_Wtime();
  MPI_Allreduce(flags, all, 2, MPI_INT, MPI_MAX, M->comm);
  M->comm_s += MPI_Wtime() - t0;
  return all[0] ? -all[0] : all[1];
}

/* ------------------------------------------------------------------ set-up */

int CHSMPI_Check(CHSProblem prob, const char *formulation, const char *method, int ranks,
                 CHSError *err) {
  const char *name = CHSProblem_GetName(prob);
  const CHSProblemDims *dims = CHSProblem_GetDims(prob);
  const CHSProblemOps *ops = CHSProblem_GetOps(prob);
  if (strcmp(name, "pendulum-chain") != 0 && strcmp(name, "chain") != 0) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "MPI: problem '%s' does not run distributed (pendulum-chain and chain do)",
                         name);
  }
  if (!formulation || (strcmp(formulation, "standard") != 0 && strcmp(formulation, "dirac") != 0)) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "MPI: formulation '%s' does not run distributed (standard and dirac do)",
                         formulation ? formulation : "(none)");
  }
  if (!method || strncmp(method, "erk:", 4) != 0) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "MPI: method '%s' does not run distributed (erk:TABLE does)",
                         method ? method : "(none)");
  }
  if (dims->jac_kind != CHS_JAC_CSR ||
      (dims->mass_kind != CHS_MASS_IDENTITY && dims->mass_kind != CHS_MASS_DIAGONAL) ||
      dims->time_dependent || ops->nonconservative_force || dims->kinetic_scaled) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "MPI: this instance of '%s' is not a bond chain with a constant diagonal "
                         "mass",
                         name);
  }
  sunindextype nb = (dims->m + ranks - 1) / ranks;
  if (ranks < 1 || nb < 2 || (sunindextype)(ranks - 1) * nb >= dims->m) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "MPI: %ld constraints cannot be split over %d ranks (ScaLAPACK's blocks "
                         "of ceil(m / K) rows: at least 2, and none empty)",
                         (long)dims->m, ranks);
  }
  return 0;
}

static void mpi_free(chs_mpi *M) {
  if (M->ctxt >= 0) {
    Cblacs_gridexit(M->ctxt);
  }
  if (M->blacs >= 0) {
    Cfree_blacs_system_handle(M->blacs);
  }
  free(M->counts);
  free(M->qf);
  free(M->minv);
  free(M->D);
}

/* The layout of the problem's G at the initial state against the bond rows (local rows). */
static int mpi_check_layout(chs_mpi *M, CHSProblem prob, const sunrealtype *q0, CHSError *err) {
  const CHSProblemDims *dims = CHSProblem_GetDims(prob);
  sunrealtype *G = malloc((size_t)dims->nnz * sizeof *G);
  if (!G) {
    return chs_error_set(err, CHS_ERR_MEM, "MPI: out of memory");
  }
  int bad = M->ops->jacobian(M->data, q0, G) != 0;
  for (sunindextype i = M->r0; !bad && i < M->r1; i++) {
    sunindextype h = i + M->off;
    bad = dims->rowptr[i + 1] - dims->rowptr[i] != (h > 0 ? 4 : 2);
    for (sunindextype k = dims->rowptr[i]; !bad && k < dims->rowptr[i + 1]; k++) {
      sunindextype at = dims->colind[k] / 2;
      int c = (int)(dims->colind[k] % 2);
      sunrealtype dc = q0[2 * h + c] - (h > 0 ? q0[2 * h - 2 + c] : 0);
      bad = !((at == h && G[k] == dc) || (at == h - 1 && G[k] == -dc));
    }
  }
  free(G);
  int all = 0;
  MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_MAX, M->comm);
  return all ? chs_error_set(err, CHS_ERR_UNSUPPORTED,
                             "MPI: the constraint Jacobian of '%s' is not the bond chain's",
                             CHSProblem_GetName(prob))
             : 0;
}

static int mpi_setup(chs_mpi *M, MPI_Comm comm, CHSProblem prob, const char *formulation,
                     sunrealtype *q0, CHSError *err) {
  const CHSProblemDims *dims = CHSProblem_GetDims(prob);
  M->comm = comm;
  M->ctxt = M->blacs = -1;
  MPI_Comm_rank(comm, &M->rank);
  MPI_Comm_size(comm, &M->size);
  M->left = M->rank > 0 ? M->rank - 1 : MPI_PROC_NULL;
  M->right = M->rank + 1 < M->size ? M->rank + 1 : MPI_PROC_NULL;
  M->ops = CHSProblem_GetOps(prob);
  M->data = CHSProblem_GetData(prob);
  M->dirac = strcmp(formulation, "dirac") == 0;
  M->off = strcmp(CHSProblem_GetName(prob), "chain") == 0;
  M->n = dims->n;
  M->N = dims->n / 2;
  M->m = dims->m;
  M->nb = (M->m + M->size - 1) / M->size;
  M->r0 = M->rank * M->nb;
  M->r1 = M->r0 + M->nb < M->m ? M->r0 + M->nb : M->m;
  M->a0 = M->rank == 0 ? 0 : M->r0 + M->off;
  M->a1 = M->rank + 1 == M->size ? M->N : M->r1 + M->off;
  M->na = M->a1 - M->a0;
  M->nr = M->r1 - M->r0;
  sunindextype na = M->na, nr = M->nr, nb = M->nb, N = M->N;
  M->counts = malloc(2 * (size_t)M->size * sizeof *M->counts);
  M->qf = malloc(2 * (size_t)M->n * sizeof *M->qf);
  M->minv = calloc(5 * 2 * ((size_t)na + 2) + 2 * 2 * ((size_t)na + 1) + 4 * ((size_t)nr + 2),
                   sizeof *M->minv);
  M->laf = (int)(12 * M->size + 3 * nb + 16); /* pdpttrf: at least 12 K + 3 nb */
  M->lwork = (int)(4 * nb) + 64 * M->size + 256;
  M->D = malloc((5 * (size_t)nb + (size_t)M->laf + (size_t)M->lwork) * sizeof *M->D);
  if (!M->counts || !M->qf || !M->minv || !M->D) {
    return chs_error_set(err, CHS_ERR_MEM, "MPI: out of memory for N = %ld", (long)N);
  }
  M->displs = M->counts + M->size;
  M->Ff = M->qf + M->n;
  M->v = M->minv + 2 * (na + 2);
  M->a = M->v + 2 * (na + 2);
  M->mb = M->a + 2 * (na + 2);
  M->b = M->mb + 2 * (na + 2);
  M->d = M->b + 2 * (na + 2);
  M->e = M->d + 2 * (na + 1);
  M->lam = M->e + 2 * (na + 1);
  M->w = M->lam + nr + 2;
  M->z = M->w + nr + 2;
  M->x = M->z + nr + 2;
  M->E = M->D + nb;
  M->B = M->E + nb;
  M->af = M->B + 3 * nb;
  M->work = M->af + M->laf;
  int mine[2] = {(int)(2 * M->a0), (int)(2 * na)}, *all = malloc(2 * (size_t)M->size * sizeof *all);
  if (!all) {
    return chs_error_set(err, CHS_ERR_MEM, "MPI: out of memory");
  }
  MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, comm);
  for (int k = 0; k < M->size; k++) {
    M->displs[k] = all[2 * k];
    M->counts[k] = all[2 * k + 1];
  }
  free(all);
  for (sunindextype h = M->a0 - 1; h <= M->a1; h++) { /* the pivot and beyond the ends: 0 */
    for (int c = 0; c < 2; c++) {
      sunrealtype mass =
          dims->mass_kind == CHS_MASS_DIAGONAL && h >= 0 && h < N ? dims->mass[2 * h + c] : 1;
      ATOM(M->minv, h)[c] = h >= 0 && h < N ? 1 / mass : 0;
    }
  }
  CHS_CALL(mpi_check_layout(M, prob, q0, err));
  M->blacs = Csys2blacs_handle(comm);
  M->ctxt = M->blacs;
  Cblacs_gridinit(&M->ctxt, "Row", 1, M->size);
  int desca[7] = {501, M->ctxt, (int)M->m, (int)nb, 0, 0, 0};
  int descb[7] = {502, M->ctxt, (int)M->m, (int)nb, 0, (int)nb, 0};
  memcpy(M->desca, desca, sizeof desca);
  memcpy(M->descb, descb, sizeof descb);
  return 0;
}

static int mpi_integrate(chs_mpi *M, const CHSRunOptions *opt, N_Vector y, SUNContext ctx,
                         CHSMPISummary *sum, CHSError *err) {
  int embedded = 0;
  ARKodeButcherTable B = chs_erk_table(opt->method + 4, &embedded, err);
  if (!B) {
    return err->code ? err->code : CHS_ERR_ARG;
  }
  int fixed = opt->ctl.h > 0;
  if (!fixed && !embedded) {
    ARKodeButcherTable_Free(B);
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "method %s has no embedding: give a fixed step --h", opt->method);
  }
  void *ark = ERKStepCreate(mpi_rhs, opt->t0, y, ctx);
  int rc = ark ? 0 : -1;
#if !CHS_SUNDIALS_AT_LEAST(7, 0)
  if (rc == 0) {
    rc = ERKStepSetErrHandlerFn(ark, chs_arkode_capture_error, M->arkode_msg);
  }
#endif
  if (rc == 0) {
    rc = ERKStepSetTable(ark, B);
  }
  if (rc == 0) {
    rc = chs_erk_set_user_data(ark, M);
  }
  if (rc == 0) {
    rc = fixed ? chs_erk_set_fixed_step(ark, opt->ctl.h)
               : chs_erk_sstolerances(ark, opt->ctl.rtol, opt->ctl.atol);
  }
  if (rc == 0) {
    rc = chs_erk_fix_last_stage_reuse(ark, B);
  }
  if (rc == 0) {
    rc = chs_erk_set_max_num_steps(ark, opt->ctl.max_steps > 0 ? opt->ctl.max_steps
                                                               : CHS_RUN_MAX_STEPS_DEFAULT);
  }
  if (rc == 0) {
    rc = chs_erk_set_stop_time(ark, opt->tf);
  }
  ARKodeButcherTable_Free(B);
  if (rc != 0) {
    chs_erk_free(&ark);
    return chs_error_set(err, CHS_ERR_SOLVER, "MPI: ERKStep set-up failed for %s (flag %d)",
                         opt->method, rc);
  }
  sunrealtype t = opt->t0;
  double t0 = MPI_Wtime();
  M->comm_s = 0;
  int erc = chs_erk_evolve(ark, opt->tf, y, &t, ARK_NORMAL);
  double wall = MPI_Wtime() - t0;
  long v = 0;
  sum->t_final = t;
  sum->steps = chs_erk_get_num_steps(ark, &v) == 0 ? v : 0;
  sum->rhs_evals = chs_erk_get_num_rhs_evals(ark, &v) == 0 ? v : 0;
  sum->err_test_fails = !fixed && chs_erk_get_num_err_test_fails(ark, &v) == 0 ? v : 0;
  double mine[2] = {wall, M->comm_s}, mx[2];
  MPI_Allreduce(mine, mx, 2, MPI_DOUBLE, MPI_MAX, M->comm);
  sum->wall_s = mx[0];
  sum->comm_s = mx[1];
  sum->ranks = M->size;
  if (erc < 0) {
    rc = chs_error_set(err, CHS_ERR_SOLVER, "MPI: ERKStep failed at t = %.17g with %s%s%s",
                       (double)t, chs_erk_get_return_flag_name(erc), M->arkode_msg[0] ? ": " : "",
                       M->arkode_msg);
  }
  chs_erk_free(&ark);
  return rc;
}

int CHSMPI_Run(MPI_Comm comm, CHSProblem prob, const char *formulation, const CHSRunOptions *opt,
               sunrealtype *q_final, sunrealtype *p_final, CHSMPISummary *sum, CHSError *err) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  CHSMPISummary sdummy;
  sum = sum ? sum : &sdummy;
  memset(sum, 0, sizeof *sum);
  CHS_CALL(CHSMPI_Check(prob, formulation, opt->method, size, err));
  CHS_CALL(chs_check_time_step(opt, err));
  if (opt->project || opt->stop_at || opt->locate_events) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "MPI: projections and events do not run distributed");
  }
  chs_mpi M;
  memset(&M, 0, sizeof M);
  sunindextype n = CHSProblem_GetDims(prob)->n;
  sunrealtype *z0 = malloc(2 * (size_t)n * sizeof *z0);
  if (!z0) {
    return chs_error_set(err, CHS_ERR_MEM, "MPI: out of memory");
  }
  int rc = CHSProblem_GetOps(prob)->initial_state(CHSProblem_GetData(prob), z0, z0 + n);
  if (rc != 0) {
    free(z0);
    return chs_error_set(err, CHS_ERR_CALLBACK, "MPI: initial_state of '%s' failed (%d)",
                         CHSProblem_GetName(prob), rc);
  }
  SUNContext ctx = NULL;
  N_Vector y = NULL;
  rc = mpi_setup(&M, comm, prob, formulation, z0, err);
#if CHS_SUNDIALS_AT_LEAST(7, 0)
  if (rc == 0 && SUNContext_Create(comm, &ctx) != 0) {
#else
  if (rc == 0 && SUNContext_Create((void *)&comm, &ctx) != 0) {
#endif
    rc = chs_error_set(err, CHS_ERR_MEM, "MPI: cannot create a SUNContext");
  }
  if (rc == 0) {
    chs_context_silence(ctx);
    y = N_VNew_Parallel(comm, 4 * M.na, 2 * n, ctx);
    if (!y) {
      rc = chs_error_set(err, CHS_ERR_MEM, "MPI: cannot create the parallel N_Vector");
    }
  }
  if (rc == 0) {
    sunrealtype *yl = N_VGetArrayPointer(y);
    memcpy(yl, z0 + 2 * M.a0, 2 * (size_t)M.na * sizeof *yl);
    memcpy(yl + 2 * M.na, z0 + n + 2 * M.a0, 2 * (size_t)M.na * sizeof *yl);
    rc = mpi_integrate(&M, opt, y, ctx, sum, err);
  }
  if (y) { /* the final state (as far as the run got) to rank 0 */
    sunrealtype *yl = N_VGetArrayPointer(y);
    MPI_Gatherv(yl, (int)(2 * M.na), MPI_DOUBLE, z0, M.counts, M.displs, MPI_DOUBLE, 0, comm);
    MPI_Gatherv(yl + 2 * M.na, (int)(2 * M.na), MPI_DOUBLE, z0 + n, M.counts, M.displs, MPI_DOUBLE,
                0, comm);
    if (M.rank == 0 && q_final) {
      memcpy(q_final, z0, (size_t)n * sizeof *q_final);
    }
    if (M.rank == 0 && p_final) {
      memcpy(p_final, z0 + n, (size_t)n * sizeof *p_final);
    }
    N_VDestroy(y);
  }
  SUNContext_Free(&ctx);
  mpi_free(&M);
  free(z0);
  return rc;
}
