/* Ghost atoms of the distributed chains (docs/mpi.md, "Forces"): for a problem whose forces are
 * pair interactions within a cutoff rc (ABI 6: force_atoms, CHSProblemDims.force_cutoff; the
 * Lennard-Jones chain with cutoff=rc), each rank computes the force on its own atoms from its
 * atoms and the ghost atoms of other ranks closer than rc + skin to one of them, a Verlet list
 * of ghosts:
 *
 *   rebuild (the first force evaluation, then whenever an atom of any rank has moved more than
 *   skin/2 since the last rebuild: one MPI_Allreduce per evaluation decides, the same on every
 *   rank): the positions gathered once (MPI_Allgatherv), sorted into cells of side rc + skin;
 *   each rank lists the other ranks' atoms within rc + skin of its own (3 x 3 cells around each),
 *   and the ranks exchange these requests (MPI_Alltoall of counts, MPI_Alltoallv of indices);
 *
 *   every evaluation: each rank sends the requested positions of its atoms (MPI_Alltoallv, the
 *   counts of the last rebuild: O(interface) data, with ranks that share no pair exchanging
 *   nothing) and calls force_atoms on its atoms followed by the ghosts.
 *
 * A pair closer than rc now was closer than rc + skin at the rebuild (each atom moved at most
 * skin/2), so every interacting pair is in the lists. The rebuild is O(N) per rank (the gathered
 * positions) but rare: the skin is CHS_MPI_SKIN rc. Between rebuilds nothing is O(N). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_impl.h"

/* The skin as a fraction of the cutoff: 0.2 rc (0.5 sigma for the chain's 2.5 sigma). A thermal
 * chain at kT = 0.1 moves its atoms about 0.3 sigma per unit time, so a rebuild every ~3 time
 * units; the lists hold ((rc + skin) / rc)^2 = 1.44 times the interacting pairs' ghosts. */
#define CHS_MPI_SKIN 0.2

struct chs_mpi_ghost {
  sunrealtype rc, skin;
  int valid;
  sunrealtype *qref;                      /* own positions at the last rebuild (2 na) */
  int *scount, *sdispl, *rcount, *rdispl; /* doubles sent to / received from each rank */
  sunindextype *sidx;                     /* local atoms to send, grouped by destination */
  sunindextype nsend, ng;
  sunindextype *atoms; /* global indices: own atoms, then the ghosts (na + ng) */
  sunrealtype *qa;     /* their positions (2 (na + ng)) */
  sunrealtype *sbuf;   /* 2 nsend */
  long rebuilds;
};

int chs_mpi_ghost_create(chs_mpi *M, sunrealtype rc) {
  chs_mpi_ghost *g = calloc(1, sizeof *g);
  if (!g) {
    return CHS_ERR_MEM;
  }
  M->gh = g;
  g->rc = rc;
  g->skin = CHS_MPI_SKIN * rc;
  g->qref = malloc(2 * ((size_t)M->na + 1) * sizeof *g->qref);
  g->scount = malloc(4 * (size_t)M->size * sizeof *g->scount);
  return g->qref && g->scount ? 0 : CHS_ERR_MEM;
}

void chs_mpi_ghost_free(chs_mpi *M) {
  chs_mpi_ghost *g = M->gh;
  if (g) {
    free(g->qref);
    free(g->scount);
    free(g->sidx);
    free(g->atoms);
    free(g->qa);
    free(g->sbuf);
    free(g);
    M->gh = NULL;
  }
}

/* (cell key, atom) pairs sorted by key, then atom */
typedef struct {
  long long key;
  sunindextype atom;
} gh_cell;
static int gh_cmp(const void *x, const void *y) {
  const gh_cell *a = x, *b = y;
  return a->key != b->key ? (a->key > b->key) - (a->key < b->key)
                          : (a->atom > b->atom) - (a->atom < b->atom);
}

/* first index of key in the sorted cells (n if none) */
static sunindextype gh_find(const gh_cell *c, sunindextype n, long long key) {
  sunindextype lo = 0, hi = n;
  while (lo < hi) {
    sunindextype mid = lo + (hi - lo) / 2;
    if (c[mid].key < key) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/* 1 on every rank when any rank's flag is set. Collective. */
static int gh_any(chs_mpi *M, int flag) {
  double f = flag != 0;
  MPI_Allreduce(MPI_IN_PLACE, &f, 1, MPI_DOUBLE, MPI_MAX, M->comm);
  return f != 0;
}

/* The lists from the positions q of the local atoms (finite on every rank: checked by the
 * caller). Collective; failures are agreed. */
static int gh_rebuild(chs_mpi *M, const sunrealtype *q) {
  chs_mpi_ghost *g = M->gh;
  sunindextype N = M->N, na = M->na, a0 = M->a0;
  int K = M->size;
  double t = MPI_Wtime();
  MPI_Allgatherv(q, (int)(2 * na), MPI_DOUBLE, M->qf, M->counts, M->displs, MPI_DOUBLE, M->comm);
  M->comm_s += MPI_Wtime() - t;
  const sunrealtype *X = M->qf, h = g->rc + g->skin, h2 = h * h;
  sunrealtype xmin = X[0], xmax = X[0], ymin = X[1], ymax = X[1];
  for (sunindextype j = 0; j < N; j++) {
    xmin = X[2 * j] < xmin ? X[2 * j] : xmin;
    xmax = X[2 * j] > xmax ? X[2 * j] : xmax;
    ymin = X[2 * j + 1] < ymin ? X[2 * j + 1] : ymin;
    ymax = X[2 * j + 1] > ymax ? X[2 * j + 1] : ymax;
  }
  if ((xmax - xmin) / h > 1e9 || (ymax - ymin) / h > 1e9) {
    return CHS_RECOVERABLE; /* spread too far for the cell keys (the same X on every rank) */
  }
  long long ny = (long long)((ymax - ymin) / h) + 3; /* column stride, with a margin */
  gh_cell *cells = malloc((size_t)N * sizeof *cells);
  unsigned char *need = calloc((size_t)N, 1);
  long long *req = malloc(((size_t)N + 1) * sizeof *req), *got = NULL;
  if (gh_any(M, !cells || !need || !req)) {
    free(cells);
    free(need);
    free(req);
    return CHS_ERR_MEM;
  }
  for (sunindextype j = 0; j < N; j++) {
    long long cx = (long long)((X[2 * j] - xmin) / h), cy = (long long)((X[2 * j + 1] - ymin) / h);
    cells[j] = (gh_cell){cx * ny + cy + 1, j};
  }
  qsort(cells, (size_t)N, sizeof *cells, gh_cmp);
  for (sunindextype i = a0; i < M->a1; i++) {
    long long cx = (long long)((X[2 * i] - xmin) / h), cy = (long long)((X[2 * i + 1] - ymin) / h);
    for (long long dx = -1; dx <= 1; dx++) {
      for (long long dy = -1; dy <= 1; dy++) {
        long long key = (cx + dx) * ny + cy + dy + 1;
        for (sunindextype s = gh_find(cells, N, key); s < N && cells[s].key == key; s++) {
          sunindextype j = cells[s].atom;
          sunrealtype ex = X[2 * i] - X[2 * j], ey = X[2 * i + 1] - X[2 * j + 1];
          need[j] |= (j < a0 || j >= M->a1) && ex * ex + ey * ey < h2;
        }
      }
    }
  }
  /* requests by owner: the ranks' atoms are contiguous and increasing (displs, counts: doubles) */
  int *scnt = g->scount, *sdsp = scnt + K, *rcnt = sdsp + K, *rdsp = rcnt + K;
  sunindextype ng = 0;
  for (int r = 0; r < K; r++) {
    rcnt[r] = 0;
    rdsp[r] = (int)ng;
    for (sunindextype j = M->displs[r] / 2; j < (M->displs[r] + M->counts[r]) / 2; j++) {
      if (need[j]) {
        req[ng++] = (long long)j;
        rcnt[r]++;
      }
    }
  }
  t = MPI_Wtime();
  MPI_Alltoall(rcnt, 1, MPI_INT, scnt, 1, MPI_INT, M->comm);
  M->comm_s += MPI_Wtime() - t;
  sunindextype nsend = 0;
  for (int r = 0; r < K; r++) {
    sdsp[r] = (int)nsend;
    nsend += scnt[r];
  }
  got = malloc(((size_t)nsend + 1) * sizeof *got);
  sunindextype *sidx = realloc(g->sidx, ((size_t)nsend + 1) * sizeof *sidx);
  g->sidx = sidx ? sidx : g->sidx;
  sunindextype *atoms = realloc(g->atoms, ((size_t)(na + ng) + 1) * sizeof *atoms);
  g->atoms = atoms ? atoms : g->atoms;
  sunrealtype *qa = realloc(g->qa, 2 * ((size_t)(na + ng) + 1) * sizeof *qa);
  g->qa = qa ? qa : g->qa;
  sunrealtype *sbuf = realloc(g->sbuf, 2 * ((size_t)nsend + 1) * sizeof *sbuf);
  g->sbuf = sbuf ? sbuf : g->sbuf;
  int rc = 0;
  g->valid = 0;
  if (gh_any(M, !got || !sidx || !atoms || !qa || !sbuf)) {
    rc = CHS_ERR_MEM;
  } else {
    t = MPI_Wtime();
    MPI_Alltoallv(req, rcnt, rdsp, MPI_LONG_LONG, got, scnt, sdsp, MPI_LONG_LONG, M->comm);
    M->comm_s += MPI_Wtime() - t;
    for (sunindextype k = 0; k < nsend; k++) {
      g->sidx[k] = (sunindextype)got[k] - a0;
      rc = g->sidx[k] < 0 || g->sidx[k] >= na ? CHS_ERR_SOLVER : rc; /* cannot happen */
    }
    for (sunindextype k = 0; k < na; k++) {
      g->atoms[k] = a0 + k;
    }
    for (sunindextype k = 0; k < ng; k++) {
      g->atoms[na + k] = (sunindextype)req[k];
    }
    for (int r = 0; r < K; r++) { /* the exchanges of positions: 2 doubles per atom */
      scnt[r] *= 2;
      sdsp[r] *= 2;
      rcnt[r] *= 2;
      rdsp[r] *= 2;
    }
    g->nsend = nsend;
    g->ng = ng;
    memcpy(g->qref, q, 2 * (size_t)na * sizeof *q);
    rc = gh_any(M, rc != 0) ? CHS_ERR_SOLVER : 0;
    g->valid = rc == 0;
    g->rebuilds++;
  }
  free(cells);
  free(need);
  free(req);
  free(got);
  return rc;
}

int chs_mpi_ghost_force(chs_mpi *M, const sunrealtype *q, sunrealtype *F) {
  chs_mpi_ghost *g = M->gh;
  sunindextype na = M->na;
  double mine[2] = {0, 0}; /* the largest displacement since the rebuild; a position not finite */
  for (sunindextype k = 0; k < 2 * na; k += 2) {
    sunrealtype dx = q[k] - g->qref[k], dy = q[k + 1] - g->qref[k + 1], d2 = dx * dx + dy * dy;
    mine[1] = isfinite(q[k]) && isfinite(q[k + 1]) ? mine[1] : 1;
    mine[0] = d2 > mine[0] ? d2 : mine[0];
  }
  mine[0] = g->valid ? mine[0] : INFINITY;
  double t = MPI_Wtime();
  MPI_Allreduce(MPI_IN_PLACE, mine, 2, MPI_DOUBLE, MPI_MAX, M->comm);
  M->comm_s += MPI_Wtime() - t;
  if (mine[1] != 0) {
    return CHS_RECOVERABLE; /* on every rank: positions not finite somewhere */
  }
  if (!(mine[0] <= 0.25 * g->skin * g->skin)) { /* an atom moved more than skin / 2 */
    CHS_CALL(gh_rebuild(M, q));
  }
  for (sunindextype k = 0; k < g->nsend; k++) {
    g->sbuf[2 * k] = q[2 * g->sidx[k]];
    g->sbuf[2 * k + 1] = q[2 * g->sidx[k] + 1];
  }
  int K = M->size, *scnt = g->scount, *sdsp = scnt + K, *rcnt = sdsp + K, *rdsp = rcnt + K;
  t = MPI_Wtime();
  MPI_Alltoallv(g->sbuf, scnt, sdsp, MPI_DOUBLE, g->qa + 2 * na, rcnt, rdsp, MPI_DOUBLE, M->comm);
  M->comm_s += MPI_Wtime() - t;
  memcpy(g->qa, q, 2 * (size_t)na * sizeof *q);
  return M->ops->force_atoms(M->data, na + g->ng, g->atoms, g->qa, na, F);
}

void chs_mpi_ghost_summary(chs_mpi *M, CHSMPISummary *sum) {
  chs_mpi_ghost *g = M->gh;
  double v[2] = {g ? (double)g->ng : 0, g ? 16.0 * (double)g->nsend : 0};
  MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_MAX, M->comm);
  sum->ghost_rebuilds = g ? g->rebuilds : -1;
  sum->ghost_atoms = g ? (long)v[0] : -1;
  sum->ghost_bytes = g ? v[1] : -1;
}
