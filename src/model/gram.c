/* The Gram matrix Q = G M^{-1} G^T of the constraints, assembled from G at each evaluation
 * point, factored once there and solved many times, with a storage chosen from the structure:
 *
 *   dense  SUNDIALS dense matrix; Q is symmetric positive definite, so Cholesky and solves by
 *          the operations of SUNDIALS' dense kernels (SUNDlsMat_densePOTRF/POTRS) on the columns
 *          (SUNLinSol_Dense is LU only, and its two N_Vector copies per solve were the larger
 *          part of the Hamilton-Dirac equations' extra cost for small m); m = 1 is a division;
 *   band   SUNDIALS band matrix, when the sparsity of Q has a small bandwidth (chains:
 *          tridiagonal, O(m) per factorisation), factored and solved by SUNDIALS' band kernels
 *          (SUNDlsMat_bandGBTRF/GBTRS, the code SUNLinSol_Band runs) called directly on the
 *          columns, for the same reason as dense: three copies of length m per solve were a
 *          third of the cost of a solve at m = 10^5; a tridiagonal Q (half-bandwidth 1, every
 *          chain) is SPD and skips the band storage: its diagonal and subdiagonal are assembled
 *          straight into LAPACK's d and e arrays and factored as L D L^T in the same pass (the
 *          recurrence of dpttrf; solves by dpttrs' operations), with no product lists (a fifth of
 * the memory traffic of the general assembly at m = 10^5); `auto` picks band for every tridiagonal
 * Q; klu    SUNDIALS sparse (CSC) matrix + SUNLinSol_KLU: the symbolic analysis is done at the
 *          first factorisation and reused, later ones are numeric refactorisations.
 *
 * Band and KLU need a CSR G and a diagonal (or identity) mass matrix. For CSR G the pattern of Q
 * and, for every entry, the list of products G_ik G_jk it sums are computed once: assembling Q
 * then costs O(sum over columns of (entries per column)^2). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_band.h>
#include <sundials/sundials_dense.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_band.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunmatrix/sunmatrix_sparse.h>
#include "impl.h"

#if !defined(SUNDIALS_DOUBLE_PRECISION)
#error "the tridiagonal Gram path calls LAPACK in double precision"
#endif

const char *const chs_gram_kind_names[] = {"auto", "dense", "band", "klu", NULL};

void chs_gram_destroy(CHSGram **gram) {
  if (!gram || !*gram) {
    return;
  }
  CHSGram *g = *gram;
  if (g->ls) {
    SUNLinSolFree(g->ls);
  }
  if (g->Q) {
    SUNMatDestroy(g->Q);
  }
  if (g->b) {
    N_VDestroy(g->b);
  }
  if (g->x) {
    N_VDestroy(g->x);
  }
  free(g->tri_dd);
  free(g->tri_ps);
  free(g->pivots);
  free(g->qcol);
  free(g->off);
  free(g->tstart);
  free(g->ti);
  free(g);
  *gram = NULL;
}

/* Pattern of Q for a CSR G: (i, j) with rows i and j sharing a column; the product lists. */
typedef struct {
  sunindextype *colptr, *colrow, *colk; /* G by columns: rows and value indices */
} chs_csc;

static int chs_gram_pattern(CHSGram *g, const CHSSystem *s, sunindextype *bandwidth) {
  sunindextype m = s->m, n = s->n, nnz = s->gsize;
  chs_csc c = {calloc((size_t)n + 1, sizeof(sunindextype)),
               malloc((size_t)nnz * sizeof(sunindextype)),
               malloc((size_t)nnz * sizeof(sunindextype))};
  sunindextype *fill = calloc((size_t)n, sizeof(sunindextype));
  sunindextype *mark = malloc((size_t)m * sizeof(sunindextype));
  int rc = c.colptr && c.colrow && c.colk && fill && mark ? 0 : CHS_ERR_MEM;
  if (rc == 0) {
    for (sunindextype k = 0; k < nnz; k++) {
      c.colptr[s->colind[k] + 1]++;
    }
    for (sunindextype j = 0; j < n; j++) {
      c.colptr[j + 1] += c.colptr[j];
    }
    for (sunindextype i = 0; i < m; i++) {
      for (sunindextype k = s->rowptr[i]; k < s->rowptr[i + 1]; k++) {
        sunindextype j = s->colind[k], pos = c.colptr[j] + fill[j]++;
        c.colrow[pos] = i;
        c.colk[pos] = k;
      }
    }
    /* Count entries and products per column of Q (j), in column-major order of (i, j). */
    sunindextype nq = 0, nt = 0;
    for (sunindextype i = 0; i < m; i++) {
      mark[i] = -1;
    }
    for (int pass = 0; pass < 2 && rc == 0; pass++) {
      nq = nt = 0;
      *bandwidth = 0;
      for (sunindextype j = 0; j < m; j++) {
        /* rows i sharing a column with row j, in increasing i */
        sunindextype first = nq;
        if (pass == 1) {
          g->qcol[j] = nq;
        }
        for (sunindextype kj = s->rowptr[j]; kj < s->rowptr[j + 1]; kj++) {
          sunindextype col = s->colind[kj];
          for (sunindextype p = c.colptr[col]; p < c.colptr[col + 1]; p++) {
            sunindextype i = c.colrow[p];
            if (mark[i] != j) {
              mark[i] = j;
              if (pass == 1) {
                g->off[nq] = i; /* row for now; sorted below */
              }
              nq++;
            }
            nt++;
          }
        }
        if (pass == 1) {
          /* sort the rows of column j (insertion sort: few entries per column) */
          for (sunindextype a = first + 1; a < nq; a++) {
            sunindextype v = g->off[a], b = a;
            while (b > first && g->off[b - 1] > v) {
              g->off[b] = g->off[b - 1];
              b--;
            }
            g->off[b] = v;
          }
          for (sunindextype e = first; e < nq; e++) {
            sunindextype d = g->off[e] > j ? g->off[e] - j : j - g->off[e];
            *bandwidth = d > *bandwidth ? d : *bandwidth;
          }
        }
      }
      for (sunindextype i = 0; i < m; i++) {
        mark[i] = -1;
      }
      if (pass == 1) {
        g->qcol[m] = nq;
      }
      if (pass == 0) {
        g->nq = nq;
        g->qcol = malloc(((size_t)m + 1) * sizeof(sunindextype));
        g->off = malloc(((size_t)nq + 1) * sizeof(sunindextype));
        g->tstart = malloc(((size_t)nq + 1) * sizeof(sunindextype));
        g->ti =
            nnz <= INT32_MAX && n <= INT32_MAX ? malloc(3 * (size_t)nt * sizeof(int32_t)) : NULL;
        rc = g->qcol && g->off && g->tstart && g->ti ? 0 : CHS_ERR_MEM;
      }
    }
    /* Products for entry (i, j): columns shared by rows i and j. Row j's entries are visited
     * column by column; for each, the rows of that column. */
    if (rc == 0) {
      g->tj = g->ti + nt;
      g->tc = g->tj + nt;
      sunindextype *rowpos = malloc((size_t)m * sizeof(sunindextype));
      rc = rowpos ? 0 : CHS_ERR_MEM;
      sunindextype t = 0;
      for (sunindextype j = 0; rc == 0 && j < m; j++) {
        sunindextype first = g->qcol[j], last = g->qcol[j + 1];
        for (sunindextype a = first; a < last; a++) {
          rowpos[g->off[a]] = a;
          g->tstart[a] = 0;
        }
        /* count products per entry */
        for (sunindextype kj = s->rowptr[j]; kj < s->rowptr[j + 1]; kj++) {
          sunindextype col = s->colind[kj];
          for (sunindextype p = c.colptr[col]; p < c.colptr[col + 1]; p++) {
            g->tstart[rowpos[c.colrow[p]]]++;
          }
        }
        sunindextype acc = t;
        for (sunindextype a = first; a < last; a++) {
          sunindextype cnt = g->tstart[a];
          g->tstart[a] = acc;
          acc += cnt;
        }
        sunindextype *cursor = mark; /* reuse as per-entry cursor */
        for (sunindextype a = first; a < last; a++) {
          cursor[a - first] = g->tstart[a];
        }
        for (sunindextype kj = s->rowptr[j]; kj < s->rowptr[j + 1]; kj++) {
          sunindextype col = s->colind[kj];
          for (sunindextype p = c.colptr[col]; p < c.colptr[col + 1]; p++) {
            sunindextype a = rowpos[c.colrow[p]], pos = cursor[a - first]++;
            g->ti[pos] = (int32_t)c.colk[p];
            g->tj[pos] = (int32_t)kj;
            g->tc[pos] = (int32_t)col;
          }
        }
        t = acc;
      }
      g->tstart[nq] = t;
      free(rowpos);
    }
  }
  free(c.colptr);
  free(c.colrow);
  free(c.colk);
  free(fill);
  free(mark);
  return rc;
}

/* Tridiagonal Q (half-bandwidth 1) from a CSR G without repeated columns in a row: Q(j,j) is the
 * sum over row j of G_jk^2 minv_k (no index lists), Q(j+1,j) the sum over the columns rows j and
 * j+1 share, listed once here as pairs of value indices (32-bit). Nothing else is stored: the
 * assembly writes LAPACK's d and e arrays directly and factors them in the same pass. 0 when set
 * up; otherwise the general band path is used. */
static int chs_gram_tri_init(CHSGram *g, const CHSSystem *s) {
  sunindextype m = s->m;
  const int32_t *rp = s->rp32, *ci = s->ci32;
  size_t np = 0;
  for (sunindextype j = 0; j < m; j++) {
    for (int32_t a = rp[j]; a < rp[j + 1]; a++) {
      for (int32_t b = a + 1; b < rp[j + 1]; b++) {
        if (ci[a] == ci[b]) {
          return 1; /* a column twice in a row: the product lists handle it */
        }
      }
      for (int32_t b = j + 1 < m ? rp[j + 1] : 0; j + 1 < m && b < rp[j + 2]; b++) {
        np += ci[a] == ci[b];
      }
    }
  }
  if (np > INT32_MAX / 2) {
    return 1;
  }
  g->tri_dd = malloc((size_t)(3 * m) * sizeof *g->tri_dd);
  g->tri_ps = malloc(((size_t)m + 1 + 2 * np) * sizeof *g->tri_ps);
  if (!g->tri_dd || !g->tri_ps) {
    free(g->tri_dd);
    free(g->tri_ps);
    g->tri_dd = NULL;
    g->tri_ps = NULL;
    return 1;
  }
  g->tri_e = g->tri_dd + m;
  g->tri_s = g->tri_dd + 2 * m;
  g->tri_pk = g->tri_ps + m + 1;
  int32_t t = 0;
  for (sunindextype j = 0; j < m; j++) {
    g->tri_ps[j] = t;
    for (int32_t a = rp[j]; j + 1 < m && a < rp[j + 1]; a++) { /* row j's order, as the lists */
      for (int32_t b = rp[j + 1]; b < rp[j + 2]; b++) {
        if (ci[a] == ci[b]) {
          g->tri_pk[2 * t] = b;
          g->tri_pk[2 * t + 1] = a;
          t++;
        }
      }
    }
  }
  g->tri_ps[m] = t;
  g->tri = 1;
  /* The same pairs relative to the rows' starts in every row pair (chains): one template, no
   * lists to stream through at each assembly. */
  int regular = m >= 2 && g->tri_ps[1] <= 8;
  for (sunindextype j = 0; regular && j + 1 < m; j++) {
    regular = g->tri_ps[j + 1] - g->tri_ps[j] == g->tri_ps[1];
    for (int32_t u = g->tri_ps[j]; regular && u < g->tri_ps[j + 1]; u++) {
      int32_t v = u - g->tri_ps[j];
      regular = g->tri_pk[2 * u] - rp[j + 1] == g->tri_pk[2 * v] - rp[1] &&
                g->tri_pk[2 * u + 1] - rp[j] == g->tri_pk[2 * v + 1] - rp[0];
    }
  }
  if (regular) {
    g->tri_np = g->tri_ps[1];
    for (int u = 0; u < g->tri_np; u++) {
      g->tri_tpl[2 * u] = g->tri_pk[2 * u] - rp[1];
      g->tri_tpl[2 * u + 1] = g->tri_pk[2 * u + 1] - rp[0];
    }
    free(g->tri_ps);
    g->tri_ps = g->tri_pk = NULL;
  }
  return 0;
}

int chs_gram_create(const CHSSystem *s, int kind, SUNContext ctx, CHSGram **out, CHSError *err) {
  sunindextype m = s->m;
  CHSGram *g = calloc(1, sizeof *g);
  if (!g) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  g->m = m;
  int sparse_ok = s->jac_kind == CHS_JAC_CSR && s->mass_kind != CHS_MASS_DENSE &&
                  s->mass_kind != CHS_MASS_CONFIG;
  sunindextype bw = m;
  int rc = 0;
  if (sparse_ok) {
    rc = chs_gram_pattern(g, s, &bw);
  }
  if (kind == CHS_GRAM_AUTO) {
    /* tridiagonal (chains): band at any size, its LDL^T beats dense LU even for m = 2 */
    kind = !sparse_ok
               ? CHS_GRAM_DENSE
               : (bw <= 1 ? CHS_GRAM_BAND
                          : (m <= 64 ? CHS_GRAM_DENSE : (bw <= 8 ? CHS_GRAM_BAND : CHS_GRAM_KLU)));
  }
  if (rc == 0 && kind != CHS_GRAM_DENSE && !sparse_ok) {
    chs_gram_destroy(&g);
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "gram=%s needs a CSR constraint Jacobian and a diagonal mass matrix",
                         chs_gram_kind_names[kind]);
  }
  g->kind = kind;
  N_Vector tmpl = NULL;
  if (rc == 0 && kind == CHS_GRAM_KLU) {
    g->b = N_VNew_Serial(m, ctx);
    g->x = N_VNew_Serial(m, ctx);
    tmpl = g->b;
  }
  if (rc == 0 && kind == CHS_GRAM_DENSE) {
    g->Q = SUNDenseMatrix(m, m, ctx);
    if (g->Q) {
      g->data = SUNDenseMatrix_Data(g->Q);
      g->cols = SUNDenseMatrix_Cols(g->Q);
    }
  } else if (rc == 0 && kind == CHS_GRAM_BAND && bw == 1 && chs_gram_tri_init(g, s) == 0) {
    /* tridiagonal: no band matrix, no product lists (the assembly writes d and e) */
    free(g->ti);
    free(g->tstart);
    free(g->off);
    free(g->qcol);
    g->ti = NULL;
    g->tstart = g->off = g->qcol = NULL;
    g->mu = g->ml = 1;
  } else if (rc == 0 && kind == CHS_GRAM_BAND) {
    g->Q = SUNBandMatrix(m, bw, bw, ctx);
    g->pivots = calloc((size_t)m, sizeof *g->pivots);
    if (g->Q) {
      g->cols = SUNBandMatrix_Cols(g->Q);
      g->mu = g->ml = bw;
      g->smu = SUNBandMatrix_StoredUpperBandwidth(g->Q);
      sunindextype inband = 0;
      for (sunindextype j = 0; j < m; j++) {
        inband += (j + bw < m - 1 ? j + bw : m - 1) - (j - bw > 0 ? j - bw : 0) + 1;
      }
      g->band_full = inband == g->nq;
    }
  } else if (rc == 0 && kind == CHS_GRAM_KLU && g->b) {
    g->Q = SUNSparseMatrix(m, m, g->nq, CSC_MAT, ctx);
    g->ls = g->Q ? SUNLinSol_KLU(tmpl, g->Q, ctx) : NULL;
  }
  if (rc != 0 || (!g->Q && !g->tri) || (kind == CHS_GRAM_KLU && (!g->ls || !g->x)) ||
      (kind == CHS_GRAM_BAND && !g->tri && !g->pivots)) {
    chs_gram_destroy(&g);
    return chs_error_set(err, rc ? rc : CHS_ERR_MEM, "cannot create the %s Gram solver (m=%ld)",
                         chs_gram_kind_names[kind], (long)m);
  }
  if (sparse_ok && !g->tri) {
    /* Map entries (column-major (i, j)) to storage offsets. */
    sunindextype *rows = malloc((size_t)g->nq * sizeof *rows);
    if (!rows) {
      chs_gram_destroy(&g);
      return chs_error_set(err, CHS_ERR_MEM, "out of memory");
    }
    memcpy(rows, g->off, (size_t)g->nq * sizeof *rows);
    sunindextype *colptr = kind == CHS_GRAM_KLU ? SUNSparseMatrix_IndexPointers(g->Q) : NULL;
    sunindextype *rowval = kind == CHS_GRAM_KLU ? SUNSparseMatrix_IndexValues(g->Q) : NULL;
    sunindextype ldim = kind == CHS_GRAM_BAND ? SUNBandMatrix_LDim(g->Q) : 0;
    sunindextype smu = kind == CHS_GRAM_BAND ? SUNBandMatrix_StoredUpperBandwidth(g->Q) : 0;
    for (sunindextype j = 0; j < m; j++) {
      if (colptr) {
        colptr[j] = g->qcol[j];
      }
      for (sunindextype e = g->qcol[j]; e < g->qcol[j + 1]; e++) {
        sunindextype i = rows[e];
        if (kind == CHS_GRAM_DENSE) {
          g->off[e] = j * m + i;
        } else if (kind == CHS_GRAM_BAND) {
          g->off[e] = j * ldim + (i - j) + smu;
        } else {
          rowval[e] = i;
          g->off[e] = e;
        }
      }
    }
    if (colptr) {
      colptr[m] = g->nq;
    }
    free(rows);
  }
  if (kind == CHS_GRAM_KLU && SUNLinSolInitialize(g->ls) != 0) {
    chs_gram_destroy(&g);
    return chs_error_set(err, CHS_ERR_SOLVER, "cannot initialise the %s Gram solver",
                         chs_gram_kind_names[kind]);
  }
  *out = g;
  return CHS_SUCCESS;
}

int chs_gram_kind(const CHSGram *g) {
  return g->kind;
}

static sunrealtype *chs_gram_storage(CHSGram *g) {
  switch (g->kind) {
  case CHS_GRAM_BAND:
    return SUNBandMatrix_Data(g->Q);
  case CHS_GRAM_KLU:
    return SUNSparseMatrix_Data(g->Q);
  default:
    return g->data;
  }
}

/* Tridiagonal Q assembled and factored in one pass over G: Q = L D L^T without pivoting (stable
 * for SPD Q), the recurrence of LAPACK's dpttrf (e_j = Q(j+1,j) / d_j, d_{j+1} = Q(j+1,j+1) -
 * e_j Q(j+1,j)), D into tri_dd and L's subdiagonal into tri_e, the arrays dpttrs solves with.
 * The loads of G overlap the division chain of the recurrence. A pivot d_j <= 64 u Q(j,j) (u the
 * unit round-off; 0 < d_j <= Q(j,j) for SPD Q) or a non-finite entry means Q is numerically
 * singular (e.g. a bond of length zero): recoverable. With v != NULL the same pass computes
 * r = Gdot v + G mf and psi = G v (the kinematics' products, Gdot in s->Gd; stored when psi is
 * not NULL) and the forward substitutions of their solves, L^{-1} r into rf and (pf != NULL)
 * L^{-1} psi into pf, dpttrs' first half (chs_gram_tri_backward completes them). */
static inline int chs_gram_tri_pass(CHSGram *g, const CHSSystem *s, const sunrealtype *minv,
                                    const sunrealtype *v, const sunrealtype *mf, sunrealtype *psi,
                                    sunrealtype *r, sunrealtype *rf, sunrealtype *pf,
                                    sunrealtype *sd) {
  sunindextype m = s->m;
  const sunrealtype *G = s->G, *Gd = s->Gd;
  const int32_t *rp = s->rp32, *ci = s->ci32, *ps = g->tri_ps, *pk = g->tri_pk;
  const int32_t *tpl = ps ? NULL : g->tri_tpl;
  int np = g->tri_np;
  double *d = g->tri_dd, *e = g->tri_e;
  sunrealtype dprev = 1, sub = 0; /* d_{j-1} and Q(j,j-1) */
  /* forward substitutions: (L^{-1} r)_{j-1} and (L^{-1} psi)_{j-1} */
  sunrealtype rfprev = 0, pfprev = 0;
  int ok = 1;
  for (sunindextype j = 0; j < m; j++) {
    sunrealtype qjj = 0, qsub = 0, pj = 0, rj = 0;
    for (int32_t k = rp[j]; k < rp[j + 1]; k++) {
      int32_t c = ci[k];
      qjj += G[k] * G[k] * (minv ? minv[c] : 1);
      if (v) {
        pj += G[k] * v[c];
        rj += Gd[k] * v[c] + G[k] * mf[c];
      }
    }
    if (!sd) {
      if (tpl && j + 1 < m) {
        for (int t = 0; t < np; t++) {
          int32_t a = rp[j + 1] + tpl[2 * t], b = rp[j] + tpl[2 * t + 1];
          qsub += G[a] * G[b] * (minv ? minv[ci[a]] : 1);
        }
      }
      for (int32_t t = tpl ? 0 : ps[j]; !tpl && t < ps[j + 1]; t++) {
        qsub += G[pk[2 * t]] * G[pk[2 * t + 1]] * (minv ? minv[ci[pk[2 * t]]] : 1);
      }
    } else if (j + 1 < m) { /* the same pairs (rows j+1, j), and S(j,j+1) from them */
      sunrealtype sj = 0;
      if (tpl) {
        for (int t = 0; t < np; t++) {
          int32_t a = rp[j + 1] + tpl[2 * t], b = rp[j] + tpl[2 * t + 1];
          sunrealtype mc = minv ? minv[ci[a]] : 1;
          qsub += G[a] * G[b] * mc;
          sj += (Gd[b] * G[a] - Gd[a] * G[b]) * mc;
        }
      }
      for (int32_t t = tpl ? 0 : ps[j]; !tpl && t < ps[j + 1]; t++) {
        int32_t a = pk[2 * t], b = pk[2 * t + 1];
        sunrealtype mc = minv ? minv[ci[a]] : 1;
        qsub += G[a] * G[b] * mc;
        sj += (Gd[b] * G[a] - Gd[a] * G[b]) * mc;
      }
      sd[j] = sj;
    }
    if (psi) {
      psi[j] = pj;
      r[j] = rj;
    }
    sunrealtype dj = qjj;
    if (j > 0) {
      sunrealtype l = sub / dprev;
      e[j - 1] = l;
      dj -= l * sub;
      ok &= isfinite(l);
      if (v) { /* dpttrs' forward substitution: b_j - b_{j-1} e_{j-1} */
        rj = rj - rfprev * l;
        pj = pj - pfprev * l;
      }
    }
    if (v) {
      rfprev = rf[j] = rj;
      pfprev = pj;
      if (pf) {
        pf[j] = pj;
      }
    }
    ok &= dj > 64 * SUN_UNIT_ROUNDOFF * qjj && qjj <= SUN_BIG_REAL; /* false for NaN */
    d[j] = dj;
    dprev = dj;
    sub = qsub;
  }
  g->factored = ok;
  g->tri_status = ok ? CHS_SUCCESS : CHS_RECOVERABLE;
  if (!ok) { /* rare: whether a diagonal entry overflowed (|Q_ij| <= sqrt(Q_ii Q_jj)) */
    for (sunindextype j = 0; j < m && !g->nonfinite; j++) {
      sunrealtype qjj = 0;
      for (int32_t k = rp[j]; k < rp[j + 1]; k++) {
        qjj += G[k] * G[k] * (minv ? minv[ci[k]] : 1);
      }
      g->nonfinite = !(qjj <= SUN_BIG_REAL);
    }
  }
  return g->tri_status;
}

/* The two specialisations the chains need most (M = I), the rest generic. */
static int chs_gram_tri_assemble_factor(CHSGram *g, const CHSSystem *s) {
  return s->minv ? chs_gram_tri_pass(g, s, s->minv, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
                 : chs_gram_tri_pass(g, s, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
}

int chs_gram_tri_kinematics(CHSGram *g, const CHSSystem *s, const sunrealtype *v,
                            const sunrealtype *mf, sunrealtype *psi, sunrealtype *r,
                            sunrealtype *rf, sunrealtype *pf) {
  sunrealtype *sd = pf ? g->tri_s : NULL; /* the Dirac field's: S's entries too */
  return s->minv ? chs_gram_tri_pass(g, s, s->minv, v, mf, psi, r, rf, pf, sd)
                 : chs_gram_tri_pass(g, s, NULL, v, mf, psi, r, rf, pf, sd);
}

void chs_gram_tri_backward(const CHSGram *g, sunrealtype *x, sunrealtype *x2) {
  const double *d = g->tri_dd, *e = g->tri_e;
  sunindextype m = g->m;
  x[m - 1] = x[m - 1] / d[m - 1];
  if (x2) { /* two right-hand sides in one pass over d and e */
    x2[m - 1] = x2[m - 1] / d[m - 1];
    for (sunindextype j = m - 1; j-- > 0;) {
      x[j] = x[j] / d[j] - x[j + 1] * e[j];
      x2[j] = x2[j] / d[j] - x2[j + 1] * e[j];
    }
    return;
  }
  for (sunindextype j = m - 1; j-- > 0;) {
    x[j] = x[j] / d[j] - x[j + 1] * e[j];
  }
}

void chs_gram_tri_sw_forward(const CHSGram *g, const sunrealtype *w, sunrealtype *x) {
  const double *e = g->tri_e, *sd = g->tri_s;
  sunindextype m = g->m;
  x[0] = sd[0] * w[1];
  for (sunindextype j = 1; j + 1 < m; j++) {
    x[j] = (sd[j] * w[j + 1] - sd[j - 1] * w[j - 1]) - x[j - 1] * e[j - 1];
  }
  x[m - 1] = -sd[m - 2] * w[m - 2] - x[m - 2] * e[m - 2];
}

int chs_gram_assemble(CHSGram *g, const CHSSystem *s) {
  sunindextype m = s->m, n = s->n;
  if (g->tri) {
    chs_gram_tri_assemble_factor(g, s); /* the status is chs_gram_factor's */
    return 0;
  }
  sunrealtype *Q = chs_gram_storage(g);
  g->factored = 0;
  g->diag_scale = 0;
  if (g->nq > 0) {
    if (g->kind == CHS_GRAM_BAND && !g->band_full) { /* (GBTRF zeroes its fill-in rows) */
      memset(Q, 0, (size_t)(SUNBandMatrix_LDim(g->Q) * m) * sizeof *Q);
    } else if (g->kind == CHS_GRAM_DENSE) {
      /* the Cholesky factor overwrote Q in place: clear what the pattern does not rewrite */
      memset(Q, 0, (size_t)(m * m) * sizeof *Q);
    }
    const sunrealtype *G = s->G, *minv = s->minv;
    for (sunindextype e = 0; e < g->nq; e++) {
      sunrealtype acc = 0;
      for (sunindextype t = g->tstart[e]; t < g->tstart[e + 1]; t++) {
        acc += G[g->ti[t]] * G[g->tj[t]] * (minv ? minv[g->tc[t]] : 1);
      }
      Q[g->off[e]] = acc;
    }
    return 0;
  }
  if (s->jac_kind == CHS_JAC_DENSE && s->mass_kind != CHS_MASS_DENSE &&
      s->mass_kind != CHS_MASS_CONFIG) {
    /* Q(i,j) = sum_k G(i,k) minv_k G(j,k), symmetric, column-major. */
    for (sunindextype j = 0; j < m; j++) {
      const sunrealtype *gj = s->G + j * n;
      for (sunindextype i = j; i < m; i++) {
        const sunrealtype *gi = s->G + i * n;
        sunrealtype acc = 0;
        if (s->mass_kind == CHS_MASS_IDENTITY) {
          for (sunindextype k = 0; k < n; k++) {
            acc += gi[k] * gj[k];
          }
        } else {
          for (sunindextype k = 0; k < n; k++) {
            acc += gi[k] * s->minv[k] * gj[k];
          }
        }
        Q[j * m + i] = Q[i * m + j] = acc;
      }
    }
    return 0;
  }
  /* Dense mass matrix (also M(q), factored at the point by chs_system_mass_at): column j of MinvGt
   * = M^{-1} (row j of G); Q(:,j) = G MinvGt(:,j). */
  sunrealtype *row = s->wn[CHS_WN_FORCE];
  for (sunindextype j = 0; j < m; j++) {
    if (s->jac_kind == CHS_JAC_DENSE) {
      memcpy(row, s->G + j * n, (size_t)n * sizeof *row);
    } else {
      memset(row, 0, (size_t)n * sizeof *row);
      for (sunindextype k = s->rowptr[j]; k < s->rowptr[j + 1]; k++) {
        row[s->colind[k]] = s->G[k];
      }
    }
    chs_mass_inv(s, row, s->MinvGt + j * n);
  }
  for (sunindextype j = 0; j < m; j++) {
    chs_jac_mv(s, s->G, s->MinvGt + j * n, Q + j * m);
  }
  return 0;
}

/* Solves with the L D L^T factors of a symmetric positive definite tridiagonal matrix (computed
 * by chs_gram_tri_assemble_factor): the forward substitution x_j <- x_j - x_{j-1} e_{j-1}, then
 * chs_gram_tri_backward; LAPACK dpttrs' operations in its order (m >= 2: a tridiagonal Q has a
 * subdiagonal), without the call into Fortran (a sixth of the double pendulum's Dirac field). */
static void chs_gram_tri_solve(const CHSGram *g, const sunrealtype *b, sunrealtype *x) {
  const double *e = g->tri_e;
  sunrealtype prev = x[0] = b[0];
  for (sunindextype j = 1; j < g->m; j++) {
    prev = x[j] = b[j] - prev * e[j - 1];
  }
  chs_gram_tri_backward(g, x, NULL);
}

/* Cholesky factor Q = L L^T in place (column j of L in a[j], rows j .. m-1) and the solves with
 * it: SUNDIALS' SUNDlsMat_densePOTRF/POTRS, operation for operation in the same order (results
 * bitwise the same), compiled here with the library's optimisation: the distribution's SUNDIALS
 * is built without (-O0), and its solve was a third of a Dirac right-hand side with m = 8. */
static int chs_gram_dense_potrf(sunrealtype **a, sunindextype m) {
  for (sunindextype j = 0; j < m; j++) {
    sunrealtype *aj = a[j];
    for (sunindextype i = j; j > 0 && i < m; i++) {
      sunrealtype acc = aj[i];
      for (sunindextype k = 0; k < j; k++) {
        acc -= a[k][i] * a[k][j];
      }
      aj[i] = acc;
    }
    sunrealtype diag = aj[j];
    if (diag <= 0) {
      return (int)j + 1;
    }
    diag = sqrt(diag);
    for (sunindextype i = j; i < m; i++) {
      aj[i] /= diag;
    }
  }
  return 0;
}

/* x <- L^{-T} L^{-1} x: forward substitution (L(m-1,m-1) divides x_{m-1} once here and once more
 * at the start of the backward one, as in POTRS), backward substitution. */
static void chs_gram_dense_potrs(sunrealtype *const *a, sunindextype m, sunrealtype *x) {
  for (sunindextype i = 0; i < m; i++) {
    sunrealtype acc = x[i];
    for (sunindextype j = 0; j < i; j++) {
      acc -= x[j] * a[j][i];
    }
    x[i] = acc / a[i][i];
  }
  x[m - 1] /= a[m - 1][m - 1];
  for (sunindextype i = m - 1; i-- > 0;) {
    const sunrealtype *ai = a[i];
    sunrealtype acc = x[i];
    for (sunindextype j = i + 1; j < m; j++) {
      acc -= ai[j] * x[j];
    }
    x[i] = acc / ai[i];
  }
}

int chs_gram_factor(CHSGram *g) {
  sunindextype m = g->m;
  if (g->kind == CHS_GRAM_DENSE) {
    /* Q = G M^{-1} G^T is symmetric positive definite when G has full rank: Cholesky. */
    sunrealtype *a = g->data, diag_max = 0;
    for (sunindextype i = 0; i < m; i++) {
      if (!isfinite(a[i * m + i])) { /* |Q_ij| <= sqrt(Q_ii Q_jj): the diagonal tells */
        g->nonfinite = 1;
        return CHS_RECOVERABLE;
      }
      diag_max = fmax(diag_max, fabs(a[i * m + i]));
    }
    if (!(diag_max > 0)) {
      return CHS_RECOVERABLE;
    }
    if (m == 1) { /* a single constraint: Q is a positive number */
      g->inv11 = 1 / a[0];
      g->factored = a[0] > 64 * SUN_UNIT_ROUNDOFF * diag_max;
      return g->factored ? CHS_SUCCESS : CHS_RECOVERABLE;
    }
    if (chs_gram_dense_potrf(g->cols, m) != 0) {
      return CHS_RECOVERABLE;
    }
    /* Reject pivots at round-off level relative to Q's scale: numerically singular (e.g. a
     * pendulum at its pivot point, or two atoms on top of each other). L_ii^2 is the pivot. */
    for (sunindextype i = 0; i < m; i++) {
      if (!(a[i * m + i] * a[i * m + i] > 64 * SUN_UNIT_ROUNDOFF * diag_max)) {
        return CHS_RECOVERABLE;
      }
    }
  } else if (g->tri) {
    return g->tri_status; /* factored by the assembly */
  } else {
    const sunrealtype *a = chs_gram_storage(g);
    for (sunindextype e = 0; e < g->nq; e++) {
      if (!isfinite(a[g->off[e]])) {
        g->nonfinite = 1;
        return CHS_RECOVERABLE;
      }
    }
    if (g->kind == CHS_GRAM_BAND
            ? SUNDlsMat_bandGBTRF(g->cols, m, g->mu, g->ml, g->smu, g->pivots) != 0
            : SUNLinSolSetup(g->ls, g->Q) != 0) {
      return CHS_RECOVERABLE;
    }
  }
  g->factored = 1;
  return CHS_SUCCESS;
}

int chs_gram_solve_general(CHSGram *g, const sunrealtype *b, sunrealtype *x) {
  if (!g->factored) {
    return CHS_ERR_SOLVER;
  }
  if (g->kind == CHS_GRAM_DENSE) {
    if (g->m == 1) {
      x[0] = b[0] * g->inv11;
      return CHS_SUCCESS;
    }
    if (x != b) {
      memcpy(x, b, (size_t)g->m * sizeof *x);
    }
    chs_gram_dense_potrs(g->cols, g->m, x);
    return CHS_SUCCESS; /* a non-finite solution shows in the right-hand side, which is checked */
  }
  if (g->tri) {
    chs_gram_tri_solve(g, b, x);
    return CHS_SUCCESS;
  }
  if (g->kind == CHS_GRAM_BAND) {
    if (x != b) {
      memcpy(x, b, (size_t)g->m * sizeof *x);
    }
    SUNDlsMat_bandGBTRS(g->cols, g->m, g->smu, g->ml, g->pivots, x);
    return CHS_SUCCESS;
  }
  memcpy(N_VGetArrayPointer(g->b), b, (size_t)g->m * sizeof *b);
  if (SUNLinSolSolve(g->ls, g->Q, g->x, g->b, 0) != 0) {
    return CHS_RECOVERABLE;
  }
  memcpy(x, N_VGetArrayPointer(g->x), (size_t)g->m * sizeof *x);
  return CHS_SUCCESS;
}
