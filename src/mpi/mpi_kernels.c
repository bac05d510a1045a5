/* Kernels of the distributed bond chains: layout, halo exchange, products with G and Gdot stored
 * as bond vectors, and the ScaLAPACK Gram solve (docs/mpi.md; the fields are in src/mpi/mpi.c). */
#include <stdlib.h>
#include <string.h>
#include "mpi_impl.h"

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

/* One atom (2 values) or one row (1 value) from each neighbour into the ghosts of X (the first
 * and last local unit go to the left and right neighbour). */
void chs_mpi_halo(chs_mpi *M, sunrealtype *X, sunindextype nloc, int unit) {
  double t = MPI_Wtime();
  MPI_Sendrecv(X + unit, unit, MPI_DOUBLE, M->left, 1, X + unit * (nloc + 1), unit, MPI_DOUBLE,
               M->right, 1, M->comm, MPI_STATUS_IGNORE);
  MPI_Sendrecv(X + unit * nloc, unit, MPI_DOUBLE, M->right, 2, X, unit, MPI_DOUBLE, M->left, 2,
               M->comm, MPI_STATUS_IGNORE);
  M->comm_s += MPI_Wtime() - t;
}

/* (G^T x)_h for atom h, or (Gdot^T x)_h with the bond vectors e: the rows of bonds h and h+1. */
void chs_mpi_tmv(const chs_mpi *M, const sunrealtype *J, const sunrealtype *x, sunindextype h,
                 sunrealtype out[2]) {
  out[0] = out[1] = 0;
  if (chs_mpi_bond_exists(M, h)) {
    sunrealtype xi = ROW(x, h - M->off);
    out[0] += BOND(J, h)[0] * xi;
    out[1] += BOND(J, h)[1] * xi;
  }
  if (chs_mpi_bond_exists(M, h + 1)) {
    sunrealtype xi = ROW(x, h + 1 - M->off);
    out[0] -= BOND(J, h + 1)[0] * xi;
    out[1] -= BOND(J, h + 1)[1] * xi;
  }
}

/* Row i of J u for J stored as bond vectors (J = d: G, e: Gdot), u a ghosted atom array. */
sunrealtype chs_mpi_mv(const chs_mpi *M, const sunrealtype *J, const sunrealtype *u,
                       sunindextype i) {
  sunindextype h = i + M->off;
  const sunrealtype *j = BOND(J, h), *uh = ATOM(u, h), *ul = ATOM(u, h - 1);
  return -j[0] * ul[0] - j[1] * ul[1] + j[0] * uh[0] + j[1] * uh[1];
}

/* Factor Q (from the bond vectors d) and solve for the nrhs columns of M->B; the same code on
 * every rank (0 or CHS_RECOVERABLE: Q not positive definite). factor = 0: Q factored already. */
int chs_mpi_gram_solve(chs_mpi *M, int nrhs, int factor) {
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

void chs_mpi_free(chs_mpi *M) {
  if (M->ctxt >= 0) {
    Cblacs_gridexit(M->ctxt);
  }
  if (M->blacs >= 0) {
    Cfree_blacs_system_handle(M->blacs);
  }
  chs_mpi_ghost_free(M);
  free(M->counts);
  free(M->qf);
  free(M->qg);
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

int chs_mpi_setup(chs_mpi *M, MPI_Comm comm, CHSProblem prob, const char *formulation,
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
  M->dirac = chs_mpi_field_kind(formulation) == 2;
  M->off = (dims->declares & CHS_DECLARE_ANCHORED) ? 0 : 1;
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
  const CHSProblemOps *ops = M->ops;
  M->reach = ops->force_local && dims->force_reach <= 2 ? dims->force_reach : -1;
  M->qf = M->reach < 0 ? malloc(2 * (size_t)M->n * sizeof *M->qf) : NULL;
  M->qg = calloc(4 * ((size_t)na + 2) + 2 * (size_t)na, sizeof *M->qg);
  M->minv = calloc(5 * 2 * ((size_t)na + 2) + 2 * 2 * ((size_t)na + 1) + 4 * ((size_t)nr + 2),
                   sizeof *M->minv);
  M->laf = (int)(12 * M->size + 3 * nb + 16); /* pdpttrf: at least 12 K + 3 nb */
  M->lwork = (int)(4 * nb) + 64 * M->size + 256;
  M->D = malloc((5 * (size_t)nb + (size_t)M->laf + (size_t)M->lwork) * sizeof *M->D);
  if (!M->counts || (M->reach < 0 && !M->qf) || !M->qg || !M->minv || !M->D) {
    return chs_error_set(err, CHS_ERR_MEM, "MPI: out of memory for N = %ld", (long)N);
  }
  if (M->reach < 0 && ops->force_atoms && dims->force_cutoff > 0 &&
      chs_mpi_ghost_create(M, dims->force_cutoff) != 0) {
    return chs_error_set(err, CHS_ERR_MEM, "MPI: out of memory for the ghost lists");
  }
  M->displs = M->counts + M->size;
  M->Ff = M->qf ? M->qf + M->n : NULL;
  M->mf = M->qg + 2 * (na + 2);
  M->Fl = M->mf + 2 * (na + 2);
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

int chs_mpi_force(chs_mpi *M, const sunrealtype *q, const sunrealtype *X, sunrealtype *F) {
  sunindextype i0 = 2 * M->a0, i1 = 2 * M->a1;
  if (M->reach == 0) { /* no coupling: the local coordinates only, no message */
    return M->ops->force_local(M->data, q, i0, i1 - i0, i0, i1, F);
  }
  if (M->reach > 0) { /* the one-atom halo holds the reach */
    if (!X) {
      chs_mpi_ghost_q(M, q, M->qg);
      X = M->qg;
    }
    sunindextype w0 = M->a0 > 0 ? i0 - 2 : 0, w1 = M->a1 < M->N ? i1 + 2 : i1;
    return M->ops->force_local(M->data, ATOM(X, w0 / 2), w0, w1 - w0, i0, i1, F);
  }
  if (M->gh) { /* pair forces within a cutoff: the rank's atoms and its ghosts */
    return chs_mpi_ghost_force(M, q, F);
  }
  double t = MPI_Wtime();
  MPI_Allgatherv(q, (int)(2 * M->na), MPI_DOUBLE, M->qf, M->counts, M->displs, MPI_DOUBLE, M->comm);
  M->comm_s += MPI_Wtime() - t;
  int rc = M->ops->force(M->data, M->qf, M->Ff); /* the same q on every rank */
  memcpy(F, M->Ff + i0, (size_t)(i1 - i0) * sizeof *F);
  return rc;
}
