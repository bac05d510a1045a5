/* A planar chain molecule with rigid bonds ([Seiler, Dirac] Sec. 7, after Leimkuhler & Skeel):
 *
 *   V = eps * sum_{i<j} ((sigma/r_ij)^12 - 2 (sigma/r_ij)^6)      ([Seiler, Dirac] (39): eps =
 * 0.1), g_a = 1/2 (|r_a - r_{a+1}|^2 - L^2), a = 1 .. N-1,  M = I      ((40)-(41)),
 *
 * G in CSR (4 entries per row), so Q is tridiagonal ((42)) and the Gram solver is the band one
 * (L D L^T, O(N)). Every pair of atoms interacts, bonded neighbours included (as in (39)).
 *
 * Potential range: cutoff=0 sums all pairs (O(N^2) per evaluation; the default for N <= 64,
 * so [Seiler, Dirac]'s N = 7 is exact); cutoff=rc > 0 (default 2.5 sigma for N > 64) keeps the
 * pairs with r < rc and shifts their potential, phi(r) - phi(rc), so that V is continuous and the
 * energy H is an exact invariant of the continuous dynamics (the force jumps by phi'(rc) at r =
 * rc); shift=force also subtracts (r - rc) phi'(rc), so that the force is continuous too: with the
 * jump, every fixed-step method is of first order on a chain whose pairs cross rc (docs/scale.md).
 * The pairs are found by cell lists (cells of side rc, hashed, so a stretched-out chain costs
 * no more than a coiled one): potential, force and Hessian-vector product are O(N).
 *
 * Initial configurations: init=0 (default for N = 7) the hexagonal global minimum of Fig. 3 -
 * six atoms on a regular hexagon of side L and atom `centre` (7 by default; 1 or 4 also keep
 * the chain connected) at its centre; init=1 a zigzag (bond angle 120 degrees, default for other
 * N); init=2 a coil: that zigzag wound onto an Archimedean spiral (turns 1.1 max(sigma, L) + L/2
 * apart), compact in two dimensions with bond angles near 120 degrees. Every configuration is
 * checked: no two atoms that are not bonded closer than 0.8 sigma. Velocities: vel=ends (Sec. 7):
 * the end atoms move with speed v0 perpendicular to their bonds (the only directions consistent
 * with psi = 0), the last one with the orientation `sign` (-1: opposite to the first when the end
 * bonds are parallel, as they are for centre=7: total momentum 0; sign=1: the same direction,
 * a molecule that drifts); vel=thermal: Gaussian momenta of variance kT
 * from the deterministic generator seeded by `seed` (splitmix64 + Box-Muller, state local to the
 * creation), total momentum removed, projected mass-orthogonally onto psi = 0 (p - G^T Q^{-1} G p,
 * a tridiagonal solve) and scaled to the kinetic energy (N - 1) kT / 2 of the N - 1 degrees of
 * freedom left.
 *
 * Extra invariants (the potential is a sum of central pair forces, the constraints are
 * rotation- and translation-invariant): the total linear momentum (px, py) and the angular
 * momentum sum_i x_i p_yi - y_i p_xi. No reference solution. Not thread-safe: the cell lists are
 * workspace of the instance. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../src/impl.h"

#define CHAIN_ALL_PAIRS_MAX 64 /* default: all pairs up to this N, cutoff 2.5 sigma beyond */
/* The cell sweep's branchy inner loop ran 20-40 % slower or faster with where the library's
 * layout happened to put it: its start is aligned to 64 bytes. */
#if defined(__GNUC__)
#define CHAIN_ALIGN_HOT __attribute__((aligned(64)))
#else
#define CHAIN_ALIGN_HOT
#endif
/* Size: N <= 10^8 (the cell lists' 32-bit indices), and refused when N x CHAIN_BYTES_PER_ATOM
 * exceeds the physical memory. Per atom the instance keeps ~210 bytes (q0, p0, CSR pattern,
 * cell lists) and ~55 bytes of coordinate and bond names; a run needs more: 690-710 bytes per
 * atom measured (maximum resident size) for N = 10^6 with dirac or standard and erk:rk4 without
 * the names, 1.1 kB with extended: 760 is the lower bound with the names. */
#define CHAIN_N_MAX 100000000L
#define CHAIN_BYTES_PER_ATOM 760.0
#define CHAIN_MIN_DIST 0.8 /* initial configurations: non-bonded pairs >= 0.8 sigma apart */

/* Cell lists, two layouts. Dense (when the bounding box has at most 4 N + 1024 cells, the usual
 * case): cell (cx, cy) is slot cx * stride + cy + 1 of a padded grid, so that neighbours are at
 * fixed offsets and the sweep runs through memory in order. Hashed (a stretched-out chain):
 * cell id cx * stride + cy hashed by open addressing into nslot slots. Either way the atoms are
 * sorted by slot (counting sort) and their coordinates packed in that order. */
typedef struct {
  sunindextype nslot; /* hash slots: power of two >= 2 N */
  sunindextype cap;   /* capacity of start: max(nslot, 4 N + 1024) */
  int dense;          /* layout of the last build */
  sunindextype nused; /* slots of the last build */
  int64_t *key;       /* hashed: cell id of each slot, -1 empty */
  /* 32-bit (N <= 10^8, so 4 N + 1024 < 2^31): half the index traffic of each build */
  int32_t *start; /* nused + 1: atoms of slot s are perm[start[s] .. start[s+1]) */
  int32_t *slot;  /* slot of each atom */
  int32_t *perm;  /* atoms sorted by slot */
  int32_t *occ;   /* occupied slots in increasing order (at most N) */
  sunindextype nocc;
  int64_t stride;
  sunrealtype *x, *y, *ux, *uy, *fx, *fy; /* packed (sorted) coordinates, input, output */
} chain_cells;

typedef struct {
  long N, init, centre, seed;
  int vel;
  sunrealtype L, eps, sigma, v0, kT, cutoff, shift;
  sunrealtype fshift; /* shift=force: phi'(rc), the force's jump removed; 0: energy shift only */
  sunrealtype *q0, *p0;
  sunindextype *rowptr, *colind;
  chain_cells cl;
  const char **coord_names, **bond_names; /* x1, y1, .. xN, yN; bond1 .. bond(N-1) */
} chain;

static void chain_destroy(void *data) {
  chain *C = data;
  if (C) {
    free(C->q0);
    free(C->rowptr);
    free(C->cl.key);
    free(C->cl.start);
    free(C->cl.x);
    free(C->coord_names);
    free(C->bond_names);
    free(C);
  }
}

/* ------------------------------------------------------------------ pair kernel
 * For d = r_i - r_j, r2 = |d|^2: phi(r) = eps (s12 - 2 s6) (s6 = (sigma^2/r2)^3), dphi = phi'/r,
 * d2phi = phi''. Forces and Hessian need no square root. */
typedef enum { CHAIN_V, CHAIN_F, CHAIN_HU, CHAIN_MIN } chain_mode;

typedef struct {
  sunrealtype V, rmin2;
  sunindextype imin, jmin;
  int bad;
} chain_acc;

/* phi'(r)/r; with shift=force (fshift = phi'(rc)) phi'(r)/r - phi'(rc)/r */
static inline sunrealtype chain_d1(const chain *C, sunrealtype s6, sunrealtype s12,
                                   sunrealtype r2) {
  sunrealtype d1 = C->eps * 12 * (s6 - s12) / r2;
  if (C->fshift != 0) {
    d1 -= C->fshift / sqrt(r2);
  }
  return d1;
}

static inline void chain_pair(const chain *C, chain_mode mode, sunrealtype dx, sunrealtype dy,
                              sunrealtype r2, sunrealtype uxd, sunrealtype uyd, sunrealtype *ax,
                              sunrealtype *ay, chain_acc *acc) {
  sunrealtype s2 = C->sigma * C->sigma / r2, s6 = s2 * s2 * s2, s12 = s6 * s6;
  if (mode == CHAIN_V) {
    acc->V += C->eps * (s12 - 2 * s6) - C->shift;
    if (C->fshift != 0) { /* shift=force: - (r - rc) phi'(rc) */
      acc->V -= (sqrt(r2) - C->cutoff) * C->fshift;
    }
  } else if (mode == CHAIN_F) {
    sunrealtype c = -chain_d1(C, s6, s12, r2); /* -phi'/r */
    *ax = c * dx;
    *ay = c * dy;
  } else {
    sunrealtype d1 = chain_d1(C, s6, s12, r2);            /* phi'/r */
    sunrealtype d2 = C->eps * (156 * s12 - 84 * s6) / r2; /* phi'' */
    sunrealtype du = (dx * uxd + dy * uyd) / r2;
    *ax = (d2 - d1) * du * dx + d1 * uxd;
    *ay = (d2 - d1) * du * dy + d1 * uyd;
  }
}

/* All pairs (cutoff = 0). */
static void chain_sweep_all(const chain *C, chain_mode mode, const sunrealtype *q,
                            const sunrealtype *u, sunrealtype *out, chain_acc *acc) {
  sunindextype N = C->N;
  for (sunindextype i = 0; i < N; i++) {
    sunrealtype xi = q[2 * i], yi = q[2 * i + 1], oxi = 0, oyi = 0;
    for (sunindextype j = i + 1; j < N; j++) {
      sunrealtype dx = xi - q[2 * j], dy = yi - q[2 * j + 1], r2 = dx * dx + dy * dy;
      if (mode == CHAIN_MIN) {
        if (j > i + 1 && r2 < acc->rmin2) {
          acc->rmin2 = r2;
          acc->imin = i;
          acc->jmin = j;
        }
        continue;
      }
      if (!(r2 > 0)) {
        acc->bad = 1;
        return;
      }
      sunrealtype ax = 0, ay = 0;
      chain_pair(C, mode, dx, dy, r2, u ? u[2 * i] - u[2 * j] : 0,
                 u ? u[2 * i + 1] - u[2 * j + 1] : 0, &ax, &ay, acc);
      if (mode != CHAIN_V) {
        oxi += ax;
        oyi += ay;
        out[2 * j] -= ax;
        out[2 * j + 1] -= ay;
      }
    }
    if (mode != CHAIN_V && mode != CHAIN_MIN) {
      out[2 * i] += oxi;
      out[2 * i + 1] += oyi;
    }
  }
}

static int chain_cells_alloc(chain *C) {
  chain_cells *c = &C->cl;
  size_t N = (size_t)C->N, ns = 1;
  while (ns < 2 * N) {
    ns *= 2;
  }
  c->nslot = (sunindextype)ns;
  c->cap = (sunindextype)(4 * N + 1024 > ns ? 4 * N + 1024 : ns);
  c->key = malloc(ns * sizeof *c->key);
  c->start = chs_calloc_big(((size_t)c->cap + 1 + 3 * N) * sizeof *c->start);
  c->x = chs_calloc_big(6 * N * sizeof *c->x); /* huge pages at N = 10^5 (src/model/system.c) */
  if (!c->key || !c->start || !c->x) {
    return CHS_ERR_MEM;
  }
  c->occ = c->start + c->cap + 1;
  c->slot = c->occ + N;
  c->perm = c->slot + N;
  c->y = c->x + N;
  c->ux = c->y + N;
  c->uy = c->ux + N;
  c->fx = c->uy + N;
  c->fy = c->fx + N;
  return 0;
}

static inline sunindextype chain_hash(const chain_cells *c, int64_t id) {
  uint64_t h = (uint64_t)id * 0x9E3779B97F4A7C15ull;
  return (sunindextype)(h >> 32) & (c->nslot - 1);
}

/* Slot holding cell id, or -1. */
static inline sunindextype chain_find(const chain_cells *c, int64_t id) {
  for (sunindextype s = chain_hash(c, id);; s = (s + 1) & (c->nslot - 1)) {
    if (c->key[s] == id) {
      return s;
    }
    if (c->key[s] < 0) {
      return -1;
    }
  }
}

/* Bin the N <= C->N atoms at q (2 N coordinates) into cells of side h; u (may be NULL) is packed
 * alongside. Returns 1 when q is not finite or too spread out for 63-bit cell ids. */
static int chain_cells_build(chain *C, sunindextype N, const sunrealtype *q, const sunrealtype *u,
                             sunrealtype h) {
  chain_cells *c = &C->cl;
  sunrealtype xmin = q[0], xmax = q[0], ymin = q[1], ymax = q[1];
  int finite = 1;
  for (sunindextype i = 0; i < N; i++) { /* comparisons, not fmin/fmax calls: vectorises */
    sunrealtype x = q[2 * i], y = q[2 * i + 1];
    finite &= fabs(x) <= SUN_BIG_REAL && fabs(y) <= SUN_BIG_REAL;
    xmin = x < xmin ? x : xmin;
    xmax = x > xmax ? x : xmax;
    ymin = y < ymin ? y : ymin;
    ymax = y > ymax ? y : ymax;
  }
  sunrealtype nx = floor((xmax - xmin) / h) + 1, ny = floor((ymax - ymin) / h) + 1, hinv = 1 / h;
  if (!finite || !isfinite(nx) || !isfinite(ny) || (nx + 1) * (ny + 2) > 0x1p62) {
    return 1;
  }
  c->dense = (nx + 1) * (ny + 2) <= (sunrealtype)c->cap;
  if (c->dense) {
    c->stride = (int64_t)ny + 2; /* padding: cy = -1 and cy = ny are empty cells */
    c->nused = (sunindextype)(((int64_t)nx + 1) * c->stride);
  } else {
    c->stride = (int64_t)ny + 1; /* cy = -1 and cy = ny fall in unoccupied ids */
    c->nused = c->nslot;
    for (sunindextype s = 0; s < c->nslot; s++) {
      c->key[s] = -1;
    }
  }
  sunindextype ns = c->nused;
  memset(c->start, 0, ((size_t)ns + 1) * sizeof *c->start);
  for (sunindextype i = 0; i < N; i++) {
    int64_t cx = (int64_t)((q[2 * i] - xmin) * hinv), cy = (int64_t)((q[2 * i + 1] - ymin) * hinv);
    cx = cx < (int64_t)nx ? cx : (int64_t)nx - 1; /* (x - xmin) / h rounded up to nx */
    cy = cy < (int64_t)ny ? cy : (int64_t)ny - 1;
    sunindextype s;
    if (c->dense) {
      s = (sunindextype)(cx * c->stride + cy + 1);
    } else {
      int64_t id = cx * c->stride + cy;
      s = chain_hash(c, id);
      while (c->key[s] >= 0 && c->key[s] != id) {
        s = (s + 1) & (ns - 1);
      }
      c->key[s] = id;
    }
    c->slot[i] = (int32_t)s;
    c->start[s]++;
  }
  int32_t acc = 0;
  c->nocc = 0;
  for (sunindextype s = 0; s < ns; s++) {
    int32_t k = c->start[s];
    if (k > 0) {
      c->occ[c->nocc++] = (int32_t)s;
    }
    c->start[s] = acc;
    acc += k;
  }
  c->start[ns] = acc;
  for (sunindextype i = 0; i < N; i++) { /* stable: atoms of a cell in increasing order */
    int32_t k = c->start[c->slot[i]]++;
    c->perm[k] = (int32_t)i;
  }
  for (sunindextype s = ns; s > 0; s--) { /* undo the shift of the start pointers */
    c->start[s] = c->start[s - 1];
  }
  c->start[0] = 0;
  for (sunindextype k = 0; k < N; k++) {
    sunindextype i = c->perm[k];
    c->x[k] = q[2 * i];
    c->y[k] = q[2 * i + 1];
    if (u) { /* only the Hessian-vector product reads u */
      c->ux[k] = u[2 * i];
      c->uy[k] = u[2 * i + 1];
    }
    c->fx[k] = c->fy[k] = 0;
  }
  return 0;
}

/* Pairs closer than rc through the cell lists (cells of side >= rc): half stencil. */
CHAIN_ALIGN_HOT static void chain_sweep_cells(const chain *C, chain_mode mode, sunrealtype rc,
                                              chain_acc *acc) {
  const chain_cells *c = &C->cl;
  sunrealtype *x = c->x, *y = c->y, *ux = c->ux, *uy = c->uy, *fx = c->fx, *fy = c->fy;
  sunrealtype rc2 = rc * rc;
  const int64_t off[4] = {1, c->stride - 1, c->stride, c->stride + 1};
  for (sunindextype o = 0; o < c->nocc; o++) {
    sunindextype s = c->occ[o], a0 = c->start[s], a1 = c->start[s + 1];
    for (int nb = -1; nb < 4; nb++) {
      sunindextype b0, b1;
      if (nb < 0) {
        b0 = a0;
        b1 = a1;
      } else {
        sunindextype t = c->dense ? s + (sunindextype)off[nb] : chain_find(c, c->key[s] + off[nb]);
        if (t < 0) {
          continue;
        }
        b0 = c->start[t];
        b1 = c->start[t + 1];
      }
      for (sunindextype a = a0; a < a1; a++) {
        sunrealtype xa = x[a], ya = y[a], oxa = 0, oya = 0;
        for (sunindextype b = nb < 0 ? a + 1 : b0; b < b1; b++) {
          sunrealtype dx = xa - x[b], dy = ya - y[b], r2 = dx * dx + dy * dy;
          if (r2 >= rc2) {
            continue;
          }
          if (mode == CHAIN_MIN) {
            sunindextype i = c->perm[a], j = c->perm[b];
            if ((i > j ? i - j : j - i) > 1 && r2 < acc->rmin2) {
              acc->rmin2 = r2;
              acc->imin = i < j ? i : j;
              acc->jmin = i < j ? j : i;
            }
            continue;
          }
          if (!(r2 > 0)) {
            acc->bad = 1;
            return;
          }
          sunrealtype ax = 0, ay = 0;
          sunrealtype uxd = 0, uyd = 0;
          if (mode == CHAIN_HU) {
            uxd = ux[a] - ux[b];
            uyd = uy[a] - uy[b];
          }
          chain_pair(C, mode, dx, dy, r2, uxd, uyd, &ax, &ay, acc);
          if (mode != CHAIN_V) {
            oxa += ax;
            oya += ay;
            fx[b] -= ax;
            fy[b] -= ay;
          }
        }
        if (mode != CHAIN_V && mode != CHAIN_MIN) {
          fx[a] += oxa;
          fy[a] += oya;
        }
      }
    }
  }
}

/* One evaluation: V (mode CHAIN_V), F = -grad V, or (hess V) u into out. 1 when two atoms
 * coincide or the configuration is not finite. */
static int chain_eval(chain *C, chain_mode mode, const sunrealtype *q, const sunrealtype *u,
                      sunrealtype *out, sunrealtype *V) {
  chain_acc acc = {0, INFINITY, -1, -1, 0};
  if (C->cutoff == 0) {
    if (out) {
      memset(out, 0, 2 * (size_t)C->N * sizeof *out);
    }
    chain_sweep_all(C, mode, q, u, out, &acc);
  } else {
    if (chain_cells_build(C, C->N, q, u, C->cutoff) != 0) {
      return 1;
    }
    chain_sweep_cells(C, mode, C->cutoff, &acc);
    if (out) {
      for (sunindextype k = 0; k < C->N; k++) {
        sunindextype i = C->cl.perm[k];
        out[2 * i] = C->cl.fx[k];
        out[2 * i + 1] = C->cl.fy[k];
      }
    }
  }
  if (V) {
    *V = acc.V;
  }
  return acc.bad;
}

/* ------------------------------------------------------------------ initial state */

/* The coil: the zigzag (bond angle 120 degrees: each bond advances L cos 30 along the track and
 * crosses it by L sin 30) wound onto the Archimedean spiral r = r0 + b theta / (2 pi), atoms
 * alternately L/4 outside and inside the track. Each atom is placed exactly L from the previous
 * one, in the direction of its target on the track. Bond angles stay near 120 degrees: a coil of
 * nearly straight bonds would make Q = G G^T close to a discrete Laplacian, with a condition
 * number growing like N^2 and constraint forces (tensions) growing with N. */
static void chain_coil(const chain *C, sunrealtype *q) {
  sunrealtype L = C->L, span = fmax(C->sigma, L);
  sunrealtype r0 = 2 * span, b = 1.1 * span + L / 2, rp = b / (2 * M_PI), th = 0;
  sunrealtype ds = L * cos(M_PI / 6), off = L / 4;
  q[0] = r0 + off;
  q[1] = 0;
  for (sunindextype k = 0; k + 1 < C->N; k++) {
    /* advance the track by arc length ds (midpoint rule for d theta = ds / |P'(theta)|) */
    sunrealtype rm = r0 + rp * (th + ds / (2 * (r0 + rp * th)));
    th += ds / sqrt(rm * rm + rp * rp);
    sunrealtype r = r0 + rp * th + ((k + 1) % 2 ? -off : off);
    sunrealtype tx = r * cos(th) - q[2 * k], ty = r * sin(th) - q[2 * k + 1];
    sunrealtype len = hypot(tx, ty);
    q[2 * k + 2] = q[2 * k] + L * tx / len;
    q[2 * k + 3] = q[2 * k + 1] + L * ty / len;
  }
}

static uint64_t chain_splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Standard normal deviates, two at a time (Box-Muller). */
static void chain_gauss_pair(uint64_t *s, sunrealtype *a, sunrealtype *b) {
  sunrealtype u1 = ((sunrealtype)(chain_splitmix(s) >> 11) + 1) * 0x1.0p-53; /* (0, 1] */
  sunrealtype u2 = (sunrealtype)(chain_splitmix(s) >> 11) * 0x1.0p-53;
  sunrealtype r = sqrt(-2 * log(u1));
  *a = r * cos(2 * M_PI * u2);
  *b = r * sin(2 * M_PI * u2);
}

/* Thermal momenta at q (see the header comment). Workspace w: 4 (N-1) reals. */
static void chain_thermal(const chain *C, const sunrealtype *q, sunrealtype *p, sunrealtype *w) {
  sunindextype N = C->N, m = N - 1;
  uint64_t s = (uint64_t)C->seed;
  sunrealtype sd = sqrt(C->kT), px = 0, py = 0;
  for (sunindextype i = 0; i < N; i++) {
    chain_gauss_pair(&s, &p[2 * i], &p[2 * i + 1]);
    p[2 * i] *= sd;
    p[2 * i + 1] *= sd;
    px += p[2 * i];
    py += p[2 * i + 1];
  }
  for (sunindextype i = 0; i < N; i++) {
    p[2 * i] -= px / (sunrealtype)N;
    p[2 * i + 1] -= py / (sunrealtype)N;
  }
  /* Q z = G p, Q tridiagonal: Q_aa = 2 |d_a|^2, Q_a,a+1 = -d_a . d_a+1 (Thomas algorithm: Q is
   * SPD, no pivoting needed); then p -= G^T z. */
  sunrealtype *diag = w, *off = w + m, *rhs = w + 2 * m, *cp = w + 3 * m;
  for (sunindextype a = 0; a < m; a++) {
    sunrealtype dx = q[2 * a] - q[2 * a + 2], dy = q[2 * a + 1] - q[2 * a + 3];
    diag[a] = 2 * (dx * dx + dy * dy);
    rhs[a] = dx * (p[2 * a] - p[2 * a + 2]) + dy * (p[2 * a + 1] - p[2 * a + 3]);
    if (a + 1 < m) {
      sunrealtype ex = q[2 * a + 2] - q[2 * a + 4], ey = q[2 * a + 3] - q[2 * a + 5];
      off[a] = -(dx * ex + dy * ey);
    }
  }
  for (sunindextype a = 0; a < m; a++) {
    sunrealtype den = diag[a] - (a > 0 ? off[a - 1] * cp[a - 1] : 0);
    cp[a] = a + 1 < m ? off[a] / den : 0;
    rhs[a] = (rhs[a] - (a > 0 ? off[a - 1] * rhs[a - 1] : 0)) / den;
  }
  for (sunindextype a = m - 1; a-- > 0;) {
    rhs[a] -= cp[a] * rhs[a + 1];
  }
  for (sunindextype a = 0; a < m; a++) {
    sunrealtype dx = q[2 * a] - q[2 * a + 2], dy = q[2 * a + 1] - q[2 * a + 3];
    p[2 * a] -= rhs[a] * dx;
    p[2 * a + 1] -= rhs[a] * dy;
    p[2 * a + 2] += rhs[a] * dx;
    p[2 * a + 3] += rhs[a] * dy;
  }
  sunrealtype T = 0;
  for (sunindextype i = 0; i < 2 * N; i++) {
    T += p[i] * p[i] / 2;
  }
  sunrealtype target = (sunrealtype)(N - 1) * C->kT / 2;
  if (T > 0) {
    sunrealtype scale = sqrt(target / T);
    for (sunindextype i = 0; i < 2 * N; i++) {
      p[i] *= scale;
    }
  }
}

static const char *const chain_vel_names[] = {"ends", "thermal", NULL};
static const char *const chain_shift_names[] = {"energy", "force", NULL};

static int chain_create(CHSParams kv, void **data, CHSProblemDims *d, CHSError *err) {
  chain *C = calloc(1, sizeof *C);
  if (!C) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  *data = C;
  CHS_CALL(CHSParams_GetInt(kv, "N", 7, 2, CHAIN_N_MAX, &C->N, err));
  CHS_CALL(chs_problem_check_size("chain", C->N, CHAIN_BYTES_PER_ATOM, "atom", err));
  CHS_CALL(CHSParams_GetRealMin(kv, "L", 1, 0, 1, &C->L, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "eps", 0.1, 0, 0, &C->eps, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "sigma", 1, 0, 1, &C->sigma, err));
  CHS_CALL(CHSParams_GetReal(kv, "v0", 0.25, &C->v0, err));
  CHS_CALL(CHSParams_GetInt(kv, "init", C->N == 7 ? 0 : 1, 0, 2, &C->init, err));
  CHS_CALL(CHSParams_GetInt(kv, "centre", 7, 1, 7, &C->centre, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "cutoff", C->N <= CHAIN_ALL_PAIRS_MAX ? 0 : 2.5 * C->sigma, 0,
                                0, &C->cutoff, err));
  CHS_CALL(CHSParams_GetChoice(kv, "vel", chain_vel_names, 0, &C->vel, err));
  int shift_force = 0;
  CHS_CALL(CHSParams_GetChoice(kv, "shift", chain_shift_names, 0, &shift_force, err));
  CHS_CALL(CHSParams_GetRealMin(kv, "kT", 0.1, 0, 1, &C->kT, err));
  CHS_CALL(CHSParams_GetInt(kv, "seed", 1, 0, 0x7fffffffL, &C->seed, err));
  sunrealtype sign;
  CHS_CALL(CHSParams_GetReal(kv, "sign", -1, &sign, err));
  if (C->init == 0 && C->N != 7) {
    return chs_error_set(err, CHS_ERR_ARG, "chain: init=0 (hexagon) needs N=7, got N=%ld", C->N);
  }
  if (shift_force && !(C->cutoff > 0)) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "chain: shift=force needs a cutoff (cutoff=0: every pair, nothing cut)");
  }
  if (C->cutoff > 0) {
    sunrealtype s6 = pow(C->sigma / C->cutoff, 6);
    C->shift = C->eps * (s6 * s6 - 2 * s6);
    C->fshift = shift_force ? C->eps * 12 * (s6 - s6 * s6) / C->cutoff : 0; /* phi'(rc) */
  }
  sunindextype N = C->N, n = 2 * N, m = N - 1;
  C->q0 = calloc(2 * (size_t)n + 4 * (size_t)m, sizeof *C->q0);
  C->rowptr = malloc(((size_t)m + 1 + 4 * (size_t)m) * sizeof *C->rowptr);
  if (!C->q0 || !C->rowptr || chain_cells_alloc(C) != 0) {
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
  } else if (C->init == 1) {
    for (sunindextype k = 0; k < N; k++) {
      q[2 * k] = C->L * cos(M_PI / 6) * (sunrealtype)k;
      q[2 * k + 1] = (k % 2) ? C->L * sin(M_PI / 6) : 0;
    }
  } else {
    chain_coil(C, q);
  }
  /* no two non-bonded atoms closer than CHAIN_MIN_DIST sigma (cells of that side: O(N)) */
  chain_acc acc = {0, INFINITY, -1, -1, 0};
  sunrealtype dmin = CHAIN_MIN_DIST * C->sigma;
  if (chain_cells_build(C, C->N, q, NULL, dmin) != 0) {
    return chs_error_set(err, CHS_ERR_ARG, "chain: initial configuration is not finite");
  }
  chain_sweep_cells(C, CHAIN_MIN, dmin, &acc);
  if (acc.imin >= 0) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "chain: init=%ld puts atoms %ld and %ld at distance %.3g < %.1f sigma "
                         "(L=%g, sigma=%g)",
                         C->init, (long)acc.imin + 1, (long)acc.jmin + 1, sqrt((double)acc.rmin2),
                         CHAIN_MIN_DIST, (double)C->L, (double)C->sigma);
  }
  if (C->vel == 0) {
    /* end atoms: speed v0 perpendicular to their bonds, opposite directions */
    sunrealtype ax = q[2] - q[0], ay = q[3] - q[1], bx = q[2 * N - 2] - q[2 * N - 4],
                by = q[2 * N - 1] - q[2 * N - 3];
    sunrealtype la = hypot(ax, ay), lb = hypot(bx, by);
    C->p0[0] = C->v0 * ay / la;
    C->p0[1] = -C->v0 * ax / la;
    C->p0[2 * N - 2] = sign * C->v0 * by / lb; /* sign * p1 when the end bonds are parallel */
    C->p0[2 * N - 1] = -sign * C->v0 * bx / lb;
  } else {
    chain_thermal(C, q, C->p0, C->p0 + n);
  }
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
  /* bonds (a free bond chain: runs distributed); V (Lennard-Jones) has its Hessian */
  d->declares = CHS_DECLARE_QUADRATIC_CONSTRAINTS | CHS_DECLARE_BOND_CHAIN;
  d->nnz = k;
  d->rowptr = C->rowptr;
  d->colind = C->colind;
  d->force_cutoff = C->cutoff; /* pairs closer than the cutoff (0: all pairs, none declared) */
  /* atoms r_a = (x_a, y_a), a = 1 .. N as in the description; bond a joins atoms a and a + 1 */
  static const char *const xy[2] = {"x", "y"}, *const bond[1] = {"bond"};
  C->coord_names = chs_names_indexed(n, xy, 2, 1);
  C->bond_names = chs_names_indexed(m, bond, 1, 1);
  if (!C->coord_names || !C->bond_names) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory for the names of N = %ld", (long)C->N);
  }
  d->coordinate_names = C->coord_names;
  d->constraint_names = C->bond_names;
  return CHS_SUCCESS;
}

/* ------------------------------------------------------------------ callbacks */

static int chain_potential(void *data, const sunrealtype *q, sunrealtype *V) {
  return chain_eval(data, CHAIN_V, q, NULL, NULL, V);
}

static int chain_force(void *data, const sunrealtype *q, sunrealtype *F) {
  return chain_eval(data, CHAIN_F, q, NULL, F, NULL);
}

/* ABI 6: the force on the first nown of na atoms from the pairs among them (cutoff > 0: the
 * same cell lists and pair kernel as chain_force, over these atoms only; the atoms' indices are
 * not needed, every pair interacts). 1 when two of them coincide or a position is not finite. */
static int chain_force_atoms(void *data, sunindextype na, const sunindextype *atoms,
                             const sunrealtype *qa, sunindextype nown, sunrealtype *F) {
  (void)atoms;
  chain *C = data;
  if (C->cutoff == 0 || na > C->N || nown > na) {
    return CHS_ERR_ARG; /* all pairs: no cutoff to select ghosts by */
  }
  chain_acc acc = {0, INFINITY, -1, -1, 0};
  if (chain_cells_build(C, na, qa, NULL, C->cutoff) != 0) {
    return 1;
  }
  chain_sweep_cells(C, CHAIN_F, C->cutoff, &acc);
  for (sunindextype k = 0; k < na; k++) {
    sunindextype i = C->cl.perm[k];
    if (i < nown) {
      F[2 * i] = C->cl.fx[k];
      F[2 * i + 1] = C->cl.fy[k];
    }
  }
  return acc.bad;
}

/* Hu = (hess V) u: per pair, phi'' e e^T + phi'/r (I - e e^T) applied to u_i - u_j. */
static int chain_hessian(void *data, const sunrealtype *q, const sunrealtype *u, sunrealtype *Hu) {
  return chain_eval(data, CHAIN_HU, q, u, Hu, NULL);
}

/* The pairs (i, j), i != j, both orders, that the sparse Hessian holds: all pairs without cutoff,
 * else those closer than CHAIN_HESS_MARGIN rc (cell lists of that side). The margin was 1.2 so
 * that the pattern, and with it KLU's symbolic analysis, would change less often; measured on the
 * coil (chain:N=3000,init=2,vel=thermal, dae-ggl, IDA + KLU, docs/scale.md) it cost 3.3x the
 * CPU time of no margin (19.4 s vs 5.8 s; 1.4 rc: 24 s), same steps and Jacobians: the extra
 * pairs' fill in the 2-D factorisations outweighs the analyses saved (the sparse assembly keeps
 * the union of the patterns anyway). Into a growing array *pairs (2 int32 per pair). */
#define CHAIN_HESS_MARGIN 1.0
static int chain_pairs(chain *C, const sunrealtype *q, int32_t **pairs, size_t *np) {
  size_t cap = 16 * (size_t)C->N, k = 0;
  int32_t *P = malloc(2 * cap * sizeof *P);
  if (!P) {
    return -1;
  }
  int rc = 0;
#define CHAIN_ADD_PAIR(I, J)                                                                       \
  do {                                                                                             \
    if (k + 2 > cap) {                                                                             \
      int32_t *P2 = realloc(P, 4 * cap * sizeof *P);                                               \
      if (!P2) {                                                                                   \
        free(P);                                                                                   \
        return -1;                                                                                 \
      }                                                                                            \
      P = P2;                                                                                      \
      cap *= 2;                                                                                    \
    }                                                                                              \
    P[2 * k] = (int32_t)(I);                                                                       \
    P[2 * k + 1] = (int32_t)(J);                                                                   \
    P[2 * k + 2] = (int32_t)(J);                                                                   \
    P[2 * k + 3] = (int32_t)(I);                                                                   \
    k += 2;                                                                                        \
  } while (0)
  if (C->cutoff == 0) {
    for (sunindextype i = 0; i < C->N; i++) {
      for (sunindextype j = i + 1; j < C->N; j++) {
        CHAIN_ADD_PAIR(i, j);
      }
    }
  } else {
    sunrealtype R = CHAIN_HESS_MARGIN * C->cutoff, R2 = R * R;
    if (chain_cells_build(C, C->N, q, NULL, R) != 0) {
      free(P);
      return 1;
    }
    const chain_cells *c = &C->cl;
    const int64_t off[4] = {1, c->stride - 1, c->stride, c->stride + 1};
    for (sunindextype o = 0; o < c->nocc; o++) {
      sunindextype s = c->occ[o], a0 = c->start[s], a1 = c->start[s + 1];
      for (int nb = -1; nb < 4; nb++) {
        sunindextype b0 = a0, b1 = a1;
        if (nb >= 0) {
          sunindextype t =
              c->dense ? s + (sunindextype)off[nb] : chain_find(c, c->key[s] + off[nb]);
          if (t < 0) {
            continue;
          }
          b0 = c->start[t];
          b1 = c->start[t + 1];
        }
        for (sunindextype a = a0; a < a1; a++) {
          for (sunindextype b = nb < 0 ? a + 1 : b0; b < b1; b++) {
            sunrealtype dx = c->x[a] - c->x[b], dy = c->y[a] - c->y[b];
            if (dx * dx + dy * dy < R2) {
              CHAIN_ADD_PAIR(c->perm[a], c->perm[b]);
            }
          }
        }
      }
    }
  }
#undef CHAIN_ADD_PAIR
  *pairs = P;
  *np = k;
  return rc;
}

static int chain_cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* hess V in CSR (ABI 4): 2 x 2 blocks, atom i's rows hold atom i and the atoms paired with it
 * (chain_pairs), in increasing order. Pair block h = (phi'' - phi'/r) e e^T + phi'/r I (zero
 * beyond the cutoff): +h on the diagonal blocks (i, i), (j, j), -h on (i, j) and (j, i). */
static int chain_hessian_sparse(void *data, const sunrealtype *q, sunindextype cap,
                                sunindextype *rowptr, sunindextype *colind, sunrealtype *val) {
  chain *C = data;
  sunindextype N = C->N;
  int32_t *P = NULL;
  size_t np = 0;
  int rc = chain_pairs(C, q, &P, &np);
  if (rc != 0) {
    return rc;
  }
  /* neighbour lists: atom i's partners (and i itself) at nb[start[i] .. start[i+1]) */
  sunindextype *start = calloc((size_t)N + 1, sizeof *start);
  int32_t *nb = malloc((np + (size_t)N) * sizeof *nb);
  if (!start || !nb) {
    free(P);
    free(start);
    free(nb);
    return -1;
  }
  for (size_t k = 0; k < np; k++) {
    start[P[2 * k] + 1]++;
  }
  for (sunindextype i = 0; i < N; i++) {
    start[i + 1] += start[i] + 1;
  }
  for (sunindextype i = 0; i < N; i++) { /* self first, then the pairs */
    nb[start[i]] = (int32_t)i;
    start[i]++;
  }
  for (size_t k = 0; k < np; k++) {
    nb[start[P[2 * k]]++] = P[2 * k + 1];
  }
  for (sunindextype i = N; i > 0; i--) {
    start[i] = start[i - 1];
  }
  start[0] = 0;
  free(P);
  rowptr[0] = 0;
  for (sunindextype i = 0; i < N; i++) {
    qsort(nb + start[i], (size_t)(start[i + 1] - start[i]), sizeof *nb, chain_cmp_i32);
    sunindextype len = 2 * (start[i + 1] - start[i]);
    rowptr[2 * i + 1] = rowptr[2 * i] + len;
    rowptr[2 * i + 2] = rowptr[2 * i + 1] + len;
  }
  if (rowptr[2 * N] <= cap) {
    sunrealtype rc2 = C->cutoff * C->cutoff;
    for (sunindextype i = 0; i < N; i++) {
      sunindextype r0 = rowptr[2 * i], r1 = rowptr[2 * i + 1], kd = -1;
      sunrealtype dxx = 0, dxy = 0, dyy = 0;
      for (sunindextype k = start[i]; k < start[i + 1]; k++) {
        sunindextype j = nb[k], o = 2 * (k - start[i]);
        colind[r0 + o] = colind[r1 + o] = 2 * j;
        colind[r0 + o + 1] = colind[r1 + o + 1] = 2 * j + 1;
        if (!val) {
          continue;
        }
        val[r0 + o] = val[r0 + o + 1] = val[r1 + o] = val[r1 + o + 1] = 0;
        if (j == i) {
          kd = o;
          continue;
        }
        sunrealtype dx = q[2 * i] - q[2 * j], dy = q[2 * i + 1] - q[2 * j + 1];
        sunrealtype r2 = dx * dx + dy * dy;
        if (!(r2 > 0)) {
          rc = 1;
          continue;
        }
        if (C->cutoff > 0 && r2 >= rc2) {
          continue;
        }
        sunrealtype s2 = C->sigma * C->sigma / r2, s6 = s2 * s2 * s2, s12 = s6 * s6;
        sunrealtype d1 = chain_d1(C, s6, s12, r2);            /* phi'/r */
        sunrealtype d2 = C->eps * (156 * s12 - 84 * s6) / r2; /* phi'' */
        sunrealtype c = (d2 - d1) / r2;
        sunrealtype hxx = c * dx * dx + d1, hxy = c * dx * dy, hyy = c * dy * dy + d1;
        val[r0 + o] = -hxx;
        val[r0 + o + 1] = -hxy;
        val[r1 + o] = -hxy;
        val[r1 + o + 1] = -hyy;
        dxx += hxx;
        dxy += hxy;
        dyy += hyy;
      }
      if (val && kd >= 0) {
        val[r0 + kd] = dxx;
        val[r0 + kd + 1] = dxy;
        val[r1 + kd] = dxy;
        val[r1 + kd + 1] = dyy;
      }
    }
  }
  free(start);
  free(nb);
  return rc;
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

static const char *const chain_invariant_names[] = {"momentum_x", "momentum_y", "angular_momentum",
                                                    NULL};

static int chain_invariants(void *data, const sunrealtype *q, const sunrealtype *p,
                            sunrealtype *out) {
  const chain *C = data;
  sunrealtype px = 0, py = 0, l = 0;
  for (long i = 0; i < C->N; i++) {
    px += p[2 * i];
    py += p[2 * i + 1];
    l += q[2 * i] * p[2 * i + 1] - q[2 * i + 1] * p[2 * i];
  }
  out[0] = px;
  out[1] = py;
  out[2] = l;
  return 0;
}

const CHSProblemOps chs_problem_chain = {
    .abi_version = CHS_PROBLEM_ABI_VERSION,
    .name = "chain",
    .summary =
        "planar chain molecule, rigid bonds, Lennard-Jones ([Seiler, Dirac] Sec. 7): all pairs "
        "for N <= 64, else cut off at 2.5 sigma and shifted (cell lists, O(N))",
    .params_doc = "N=7 L=1 eps=0.1 sigma=1 cutoff=0 (all pairs) for N <= 64, 2.5*sigma above "
                  "(shifted LJ, cell lists) shift=energy (phi - phi(rc): the force jumps at rc) | "
                  "force (also - (r - rc) phi'(rc): continuous) init=0 (hexagon, N=7) | 1 (zigzag) "
                  "| 2 (coil) "
                  "centre=7 vel=ends (v0=0.25 sign=-1) | thermal (kT=0.1 seed=1)",
    .create = chain_create,
    .destroy = chain_destroy,
    .potential = chain_potential,
    .force = chain_force,
    .constraint = chain_constraint,
    .jacobian = chain_jacobian,
    .jacobian_dot = chain_jacobian_dot,
    .hessian_potential = chain_hessian,
    .initial_state = chain_initial,
    .hessian_sparse = chain_hessian_sparse,
    .force_atoms = chain_force_atoms,
    .invariant_names = chain_invariant_names,
    .invariants = chain_invariants,
};
