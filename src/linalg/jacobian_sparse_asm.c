/* The structure-reusing assembly of the sparse DAE Jacobians (src/linalg/jacobian_sparse.c has the
 * blocks and the reference assembly). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sunmatrix/sunmatrix_sparse.h>
#include "jacobian_sparse.h"

/* ------------------------------------------------------------------ structure-reusing assembly
 * The same Jacobian as chs_dae_jacobian_csc, without CXSparse's triplets, compression, products
 * and transposes at each evaluation (docs/scale.md: they and the page faults of their fresh O(nnz)
 * arrays were most of IDA's time at N = 10^5). Every entry of dF/dy + cj dF/dy' is a sum of
 * contributions, emitted in an order that depends only on the patterns of G and of hess V (the
 * products with the diagonal M^{-1} and the sums over a column of G of the index-1 form are
 * expanded into contributions): the symbolic pass records the (row, column) of each and sorts
 * them into the CSC pattern once (inv: the contributions by entry, each entry's in emission
 * order; ep: where each entry's start in inv); later evaluations write the values in emission
 * order into cv, a sequential stream, then each entry sums its contributions, in CSC order, into
 * the destination (SUNDIALS' matrix: no copy). Adding each value through a contribution ->
 * entry map instead swept the values once per block of contributions (8-10 passes over nnz
 * entries, each missing the cache at N = 10^5): this reads cv in a few sequential streams and
 * writes each entry once, and sums in the same order (bitwise the same values). The symbolic
 * pass is redone when hess V's pattern (hessian_sparse) differs from the last one. Dense mass
 * matrices (small problems) keep chs_dae_jacobian_csc. */
struct CHSSparseAsm {
  CHSFormulation f;
  int kind, fallback, valid, fail;
  int no_hessv; /* hess V left out (the Krylov preconditioner of IDA, chs_ida_prec_create) */
  int sym;      /* the pass: 0 numeric, 1 symbolic (record), 2 count the contributions */
  sunindextype n, m, N, gs;
  const sunindextype *rp, *ci; /* G's CSR pattern */
  sunindextype *own, *colour, ncolour, *rcolour, nrcolour;
  sunindextype *gcp, *gri, *gk; /* G by columns: column pointers, rows, indices into G's values */
  sunindextype *hrp, *hci, hcap, *hrp0, *hci0, hnnz0; /* hess V (hessian_sparse), last pattern */
  sunrealtype *hval, *Dh, *buf;
  sunrealtype *gdc; /* Gdot(q, e_c) for gdc_cols colours at a time (sa_hessgw) */
  sunindextype gdc_cols;
  size_t len, cap, k, map_len; /* contributions */
  int32_t *si, *sj;  /* symbolic: rows, columns (cap each; 32-bit: N < 2^31, checked at creation) */
  int32_t *inv, *ep; /* contributions by entry; entry e's are inv[ep[e] .. ep[e+1]) (32-bit: half
                       the index traffic of every evaluation; at most INT32_MAX contributions) */
  sunrealtype *cv;   /* the values of the contributions, in emission order (cap) */
  cs_dl J;           /* the result (p, i, x owned here; x only when asked for) */
  cs_dl *old;        /* fallback: chs_dae_jacobian_csc's */
  long n_symbolic, n_pattern; /* symbolic passes; patterns that differed from the last one */
  sunindextype nnz_fresh;     /* nnz of the last pattern built without the union */
};

/* The symbolic pass: record (i, j, v), into arrays sized by the counting pass. */
static void sa_record(CHSSparseAsm *a, sunindextype i, sunindextype j, sunrealtype v) {
  if (a->len == a->cap) {
    a->fail = 1; /* more than counted: cannot happen (the order depends on the patterns) */
    return;
  }
  a->si[a->len] = (int32_t)i;
  a->sj[a->len] = (int32_t)j;
  a->cv[a->len++] = v;
}

/* Room for cap records: si, sj and cv (which the numeric passes reuse) allocated once, at their
 * size; growing them by doubling copied and touched up to twice the memory at N = 10^5. */
static int sa_records_alloc(CHSSparseAsm *a, size_t cap) {
  free(a->si);
  free(a->sj);
  free(a->cv);
  a->si = malloc((cap + 1) * sizeof *a->si);
  a->sj = malloc((cap + 1) * sizeof *a->sj);
  a->cv = chs_calloc_big((cap + 1) * sizeof *a->cv); /* read at every evaluation */
  a->cap = cap;
  a->len = 0;
  return a->si && a->sj && a->cv ? 0 : CHS_ERR_MEM;
}

/* One contribution v to entry (i, j): recorded (symbolic pass) or its value stored in order. */
static inline void sa_emit(CHSSparseAsm *a, sunindextype i, sunindextype j, sunrealtype v) {
  if (a->sym == 1) {
    sa_record(a, i, j, v);
  } else if (a->sym == 2) {
    a->len++;
  } else if (a->k < a->map_len) {
    a->cv[a->k++] = v;
  } else {
    a->k++; /* more contributions than mapped: reported after the pass */
  }
}

/* The entries' values into x (nnz): each the sum of its contributions in emission order, from
 * 0 as the scatter added them. Returns 0 when a value is not finite. */
static int sa_gather(const CHSSparseAsm *a, sunrealtype *x) {
  const int32_t *ep = a->ep, *inv = a->inv;
  const sunrealtype *cv = a->cv;
  sunindextype nnz = a->J.p[a->N];
  sunrealtype probe = 0; /* 0 * x: NaN for an infinite or NaN x */
  for (sunindextype e = 0; e < nnz; e++) {
    sunrealtype sum = 0;
    for (int32_t t = ep[e]; t < ep[e + 1]; t++) {
      sum += cv[inv[t]];
    }
    x[e] = sum;
    probe += 0 * sum;
  }
  return probe == 0;
}

static sunrealtype sa_mi(const CHSSystem *s, sunindextype k) {
  return s->mass_kind == CHS_MASS_IDENTITY ? 1 : s->minv[k];
}

/* An entry h of H + K_lambda at (k, j): rows p on q, and for the index-1 form the entries of
 * G M^{-1} (H + K) it feeds, (2n + i, j) += G(i, k) M^{-1}_k h for the rows i of column k. */
static void sa_hk(CHSSparseAsm *a, sunindextype k, sunindextype j, sunrealtype h) {
  const CHSSystem *s = &a->f->sys;
  sa_emit(a, a->n + k, j, h);
  if (a->kind == 1) {
    sunrealtype mk = sa_mi(s, k) * h;
    for (sunindextype p = a->gcp[k]; p < a->gcp[k + 1]; p++) {
      sa_emit(a, 2 * a->n + a->gri[p], j, s->G[a->gk[p]] * mk);
    }
  }
}

/* sum_i w_i hess g_i by the column colouring of G (as sp_hessgw): into H + K (mu = 0) or, for
 * mu (dae-ggl), M^{-1} K_mu on rows q. Gdot(q, e_c) for a block of colours first, then the
 * contributions row by row of G: the entries they add to lie near each other in J (a sweep per
 * block, not per colour). In a column colouring, a row of G has at most one column per colour. */
static int sa_hessgw(CHSSparseAsm *a, const sunrealtype *q, const sunrealtype *w, int mu) {
  const CHSSystem *s = &a->f->sys;
  sunindextype n = a->n, m = a->m, gs = a->gs, nb = a->gdc_cols;
  sunrealtype *e = a->buf, *Gd = a->gdc;
  for (sunindextype c0 = 0; c0 < a->ncolour; c0 += nb) {
    sunindextype c1 = c0 + nb < a->ncolour ? c0 + nb : a->ncolour;
    for (sunindextype c = c0; c < c1; c++) {
      for (sunindextype j = 0; j < n; j++) {
        e[j] = a->colour[j] == c;
      }
      CHS_CALL(sp_cb(s->ops->jacobian_dot(s->data, q, e, Gd + (c - c0) * gs)));
    }
    for (sunindextype i = 0; i < m; i++) {
      for (sunindextype kc = a->rp[i]; kc < a->rp[i + 1]; kc++) {
        sunindextype jc = a->ci[kc], c = a->colour[jc];
        const sunrealtype *Gdc = Gd + (c - c0) * gs;
        for (sunindextype k = a->rp[i]; c >= c0 && c < c1 && k < a->rp[i + 1]; k++) {
          if (mu) {
            sa_emit(a, a->ci[k], jc, sa_mi(s, a->ci[k]) * w[i] * Gdc[k]);
          } else {
            sa_hk(a, a->ci[k], jc, w[i] * Gdc[k]);
          }
        }
      }
    }
  }
  return 0;
}

/* hess V(q): from hessian_sparse into hrp/hci/hval (pattern compared with the last symbolic
 * pass: *changed), or dense into Dh. */
static int sa_hessv_eval(CHSSparseAsm *a, const sunrealtype *q, int *changed) {
  const CHSSystem *s = &a->f->sys;
  sunindextype n = a->n;
  *changed = 0;
  if (s->ops->hessian_sparse) {
    int rc = sp_cb(s->ops->hessian_sparse(s->data, q, a->hcap, a->hrp, a->hci, a->hval));
    if (rc == 0 && a->hrp[n] > a->hcap) {
      sunindextype cap = a->hrp[n] + a->hrp[n] / 4 + 16;
      sunindextype *ci = realloc(a->hci, (size_t)cap * sizeof *ci);
      a->hci = ci ? ci : a->hci;
      sunrealtype *val = ci ? realloc(a->hval, (size_t)cap * sizeof *val) : NULL;
      a->hval = val ? val : a->hval;
      if (!val) {
        return CHS_ERR_MEM;
      }
      a->hcap = cap;
      rc = sp_cb(s->ops->hessian_sparse(s->data, q, a->hcap, a->hrp, a->hci, a->hval));
      rc = rc == 0 && a->hrp[n] > a->hcap ? CHS_ERR_CALLBACK : rc;
    }
    sunindextype nnz = rc == 0 ? a->hrp[n] : 0;
    for (sunindextype k = 0; rc == 0 && k < nnz; k++) {
      rc = a->hci[k] < 0 || a->hci[k] >= n ? CHS_ERR_CALLBACK : 0;
    }
    if (rc == 0) {
      *changed = nnz != a->hnnz0 ||
                 memcmp(a->hrp, a->hrp0, (size_t)(n + 1) * sizeof *a->hrp) != 0 ||
                 memcmp(a->hci, a->hci0, (size_t)nnz * sizeof *a->hci) != 0;
    }
    return rc;
  }
  if (!s->ops->hessian_potential) {
    return chs_missing_derivative(s->prob, CHS_NEED_HESSIAN) ? CHS_ERR_UNSUPPORTED : 0;
  }
  if (n > CHS_SPARSE_DENSE_HESS_MAX) {
    return CHS_ERR_UNSUPPORTED;
  }
  if (!a->Dh) {
    a->Dh = malloc((size_t)(n * n) * sizeof *a->Dh);
    if (!a->Dh) {
      return CHS_ERR_MEM;
    }
  }
  return chs_block_hessV(s, q, a->Dh);
}

/* Every contribution at (cj, y), in the fixed order. */
static int sa_emit_all(CHSSparseAsm *a, sunrealtype cj, const sunrealtype *y) {
  CHSSystem *s = &a->f->sys;
  sunindextype n = a->n, m = a->m, gs = a->gs;
  int kind = a->kind;
  const sunindextype *rp = a->rp, *ci = a->ci;
  /* the layout of CHS_FORM_DAE_INDEX(kind) (chs/formulation.h), as the rows and columns below */
  const sunrealtype *q = y, *p = y + n, *lam = y + chs_dae_lambda_at(n),
                    *mu = kind == 2 ? y + chs_dae_mu_at(kind, n, m) : NULL;
  sunrealtype *e = a->buf, *Gd = e + n, *Gd2 = Gd + gs, *Gd3 = Gd2 + gs, *v = Gd3 + gs, *F = v + n,
              *MiF = F + n, *b = MiF + n;
  chs_mass_inv(s, p, v);
  if (a->no_hessv) {
    /* hess V left out: P = the Jacobian of the same DAE with V's curvature removed */
  } else if (s->ops->hessian_sparse) {
    for (sunindextype i = 0; i < n; i++) {
      for (sunindextype k = a->hrp[i]; k < a->hrp[i + 1]; k++) {
        sa_hk(a, i, a->hci[k], a->hval[k]);
      }
    }
  } else if (a->Dh) {
    for (sunindextype i = 0; i < n; i++) {
      for (sunindextype j = 0; j < n; j++) {
        sa_hk(a, i, j, a->Dh[i * n + j]);
      }
    }
  }
  CHS_CALL(sa_hessgw(a, q, lam, 0));
  if (kind == 2) {
    CHS_CALL(sa_hessgw(a, q, mu, 1));
  }
  for (sunindextype i = 0; i < 2 * n; i++) {
    sa_emit(a, i, i, cj);
  }
  for (sunindextype i = 0; i < n; i++) {
    sa_emit(a, i, n + i, -sa_mi(s, i)); /* rows q: -M^{-1} on p */
  }
  for (sunindextype i = 0; i < m; i++) {
    for (sunindextype k = rp[i]; k < rp[i + 1]; k++) {
      sa_emit(a, n + ci[k], 2 * n + i, s->G[k]); /* rows p: G^T on lambda */
      if (kind != 1) {
        sa_emit(a, 2 * n + i, ci[k], s->G[k]); /* g: G on q */
      }
    }
  }
  if (kind == 2) {
    CHS_CALL(sp_cb(s->ops->jacobian_dot(s->data, q, v, Gd))); /* A = Gdot(q, v) */
    for (sunindextype i = 0; i < m; i++) {
      for (sunindextype k = rp[i]; k < rp[i + 1]; k++) {
        sunrealtype gm = s->G[k] * sa_mi(s, ci[k]);
        sa_emit(a, ci[k], 2 * n + m + i, gm);     /* rows q: M^{-1} G^T on mu */
        sa_emit(a, 2 * n + m + i, ci[k], Gd[k]);  /* psi: Gdot(q, v) on q */
        sa_emit(a, 2 * n + m + i, n + ci[k], gm); /* psi: G M^{-1} on p */
      }
    }
  }
  if (kind == 1) { /* B = Gdot(q, M^{-1} G^T lambda) - Gdot(q, M^{-1} F) - d/dq (Gdot(q, u) u) */
    CHS_CALL(sp_cb(s->ops->force(s->data, q, F)));
    chs_mass_inv(s, F, MiF);
    CHS_CALL(sp_cb(s->ops->jacobian_dot(s->data, q, v, Gd)));
    chs_jac_tmv(s, s->G, lam, e);
    chs_mass_inv(s, e, b);
    CHS_CALL(sp_cb(s->ops->jacobian_dot(s->data, q, b, Gd2)));
    CHS_CALL(sp_cb(s->ops->jacobian_dot(s->data, q, MiF, Gd3)));
    for (sunindextype k = 0; k < gs; k++) {
      Gd2[k] -= Gd3[k];
    }
    if (!s->ops->constraint_third) {
      if (chs_missing_derivative(s->prob, CHS_NEED_THIRD)) {
        return CHS_ERR_UNSUPPORTED;
      }
    } else {
      sunrealtype *w = b + n, *out = e; /* e (n) is free again */
      for (sunindextype c = 0; c < a->nrcolour; c++) {
        for (sunindextype i = 0; i < m; i++) {
          w[i] = a->rcolour[i] == c;
        }
        CHS_CALL(sp_cb(s->ops->constraint_third(s->data, q, v, w, out)));
        for (sunindextype i = 0; i < m; i++) {
          for (sunindextype k = rp[i]; a->rcolour[i] == c && k < rp[i + 1]; k++) {
            Gd2[k] -= out[ci[k]];
          }
        }
      }
    }
    for (sunindextype i = 0; i < m; i++) {
      for (sunindextype k = rp[i]; k < rp[i + 1]; k++) {
        sa_emit(a, 2 * n + i, ci[k], Gd2[k]);                           /* B on q */
        sa_emit(a, 2 * n + i, n + ci[k], -2 * Gd[k] * sa_mi(s, ci[k])); /* -2 A M^{-1} on p */
      }
    }
    for (sunindextype k = 0; k < n; k++) { /* Q = G M^{-1} G^T on lambda, by columns of G */
      sunrealtype mk = sa_mi(s, k);
      for (sunindextype p1 = a->gcp[k]; p1 < a->gcp[k + 1]; p1++) {
        for (sunindextype p2 = a->gcp[k]; p2 < a->gcp[k + 1]; p2++) {
          sa_emit(a, 2 * n + a->gri[p1], 2 * n + a->gri[p2],
                  s->G[a->gk[p1]] * mk * s->G[a->gk[p2]]);
        }
      }
    }
  }
  return a->fail ? CHS_ERR_MEM : 0;
}

/* The contributions k of one column (idx[0 .. c)), in increasing k, into increasing rows si[k]
 * with ties in increasing k: insertion sort (a column's contributions come in a few sorted runs,
 * one per block of sa_emit_all), qsort of (row, k) pairs for long columns. */
typedef struct {
  sunindextype row, k;
} sa_pair;
static int sa_pair_cmp(const void *x, const void *y) {
  const sa_pair *p = x, *q = y;
  return p->row != q->row ? (p->row > q->row) - (p->row < q->row) : (p->k > q->k) - (p->k < q->k);
}
#define SA_INSERTION_MAX 64
static void sa_sort_column(int32_t *idx, sunindextype c, const int32_t *si, sa_pair *tmp) {
  if (c <= SA_INSERTION_MAX) {
    for (sunindextype t = 1; t < c; t++) {
      int32_t k = idx[t];
      sunindextype r = si[k], u = t;
      for (; u > 0 && si[idx[u - 1]] > r; u--) {
        idx[u] = idx[u - 1];
      }
      idx[u] = k;
    }
    return;
  }
  for (sunindextype t = 0; t < c; t++) {
    tmp[t] = (sa_pair){si[idx[t]], idx[t]};
  }
  qsort(tmp, (size_t)c, sizeof *tmp, sa_pair_cmp);
  for (sunindextype t = 0; t < c; t++) {
    idx[t] = (int32_t)tmp[t].k;
  }
}

/* The CSC pattern of the recorded contributions [0, len) (rows sorted, duplicates merged), inv
 * and ep: the contributions by column (a stable counting sort), then by row within each
 * column. n_pattern counts the patterns that differ from the last one. */
static int sa_symbolic(CHSSparseAsm *a) {
  sunindextype N = a->N;
  size_t L = a->len;
  if (L >= INT32_MAX) {
    return CHS_ERR_MEM; /* beyond inv's and ep's index range */
  }
  /* inv and J.i are read at every evaluation: large ones on huge pages (TLB misses dominated
   * the assembly at N = 10^5) */
  free(a->inv);
  int32_t *inv = a->inv = chs_calloc_big((L + 1) * sizeof *inv);
  sunindextype *cnt = calloc((size_t)N + 1, sizeof *cnt),
               *pos = malloc(((size_t)N + 1) * sizeof *pos);
  sa_pair *tmp = NULL;
  int rc = cnt && inv && pos ? 0 : CHS_ERR_MEM;
  if (rc == 0) {
    for (size_t k = 0; k < L; k++) {
      cnt[a->sj[k] + 1]++;
    }
    sunindextype cmax = 0;
    for (sunindextype j = 0; j < N; j++) {
      cmax = cnt[j + 1] > cmax ? cnt[j + 1] : cmax;
      cnt[j + 1] += cnt[j];
    }
    memcpy(pos, cnt, (size_t)N * sizeof *pos);
    for (size_t k = 0; k < L; k++) {
      inv[pos[a->sj[k]]++] = (int32_t)k;
    }
    tmp = cmax > SA_INSERTION_MAX ? malloc((size_t)cmax * sizeof *tmp) : NULL;
    rc = cmax > SA_INSERTION_MAX && !tmp ? CHS_ERR_MEM : 0;
    for (sunindextype j = 0; rc == 0 && j < N; j++) {
      sa_sort_column(inv + cnt[j], cnt[j + 1] - cnt[j], a->si, tmp);
    }
  }
  sunindextype nnz = 0; /* the distinct entries */
  for (sunindextype j = 0; rc == 0 && j < N; j++) {
    for (sunindextype t = cnt[j]; t < cnt[j + 1]; t++) {
      nnz += t == cnt[j] || a->si[inv[t]] != a->si[inv[t - 1]];
    }
  }
  if (rc == 0) {
    free(a->J.x);
    free(a->ep);
    a->J.x = NULL; /* allocated when a caller asks for it (chs_dae_jacobian_csc_reuse) */
    sunindextype *Jp = malloc(((size_t)N + 1) * sizeof *Jp);
    sunindextype *Ji = Jp ? chs_calloc_big(((size_t)nnz + 1) * sizeof *Ji) : NULL;
    int32_t *ep = a->ep = Ji ? chs_calloc_big(((size_t)nnz + 1) * sizeof *ep) : NULL;
    rc = ep ? 0 : CHS_ERR_MEM;
    sunindextype e = -1;
    for (sunindextype j = 0; rc == 0 && j < N; j++) {
      Jp[j] = e + 1;
      for (sunindextype t = cnt[j]; t < cnt[j + 1]; t++) {
        if (t == cnt[j] || a->si[inv[t]] != a->si[inv[t - 1]]) {
          e++;
          Ji[e] = a->si[inv[t]];
          ep[e] = (int32_t)t;
        }
      }
    }
    if (rc == 0) {
      ep[nnz] = (int32_t)L;
      Jp[N] = nnz;
      int same = a->J.p && a->J.p[N] == nnz &&
                 memcmp(a->J.p, Jp, ((size_t)N + 1) * sizeof *Jp) == 0 &&
                 memcmp(a->J.i, Ji, (size_t)nnz * sizeof *Ji) == 0;
      a->n_pattern += !same;
      a->J.m = a->J.n = N;
      a->J.nzmax = nnz;
      a->J.nz = -1;
    }
    sunindextype *op = a->J.p, *oi = a->J.i;
    a->J.p = rc == 0 ? Jp : op;
    a->J.i = rc == 0 ? Ji : oi;
    free(rc == 0 ? op : Jp);
    free(rc == 0 ? oi : Ji);
  }
  free(cnt);
  free(pos);
  free(tmp);
  return rc;
}

static int sa_setup(CHSSparseAsm *a) {
  CHSSystem *s = &a->f->sys;
  sunindextype n = a->n, m = a->m;
  CHS_CALL(chs_sp_gpattern(s, &a->rp, &a->ci, &a->own));
  a->colour = malloc(((size_t)n + 1) * sizeof *a->colour);
  a->rcolour = malloc(((size_t)m + 1) * sizeof *a->rcolour);
  a->gcp = calloc((size_t)n + 1, sizeof *a->gcp);
  a->gri = malloc(((size_t)a->gs + 1) * sizeof *a->gri);
  a->gk = malloc(((size_t)a->gs + 1) * sizeof *a->gk);
  a->hrp = calloc((size_t)n + 1, sizeof *a->hrp);
  a->hrp0 = calloc((size_t)n + 1, sizeof *a->hrp0);
  a->buf = malloc((5 * (size_t)n + 3 * (size_t)a->gs + (size_t)m + 1) * sizeof *a->buf);
  if (!a->colour || !a->rcolour || !a->gcp || !a->gri || !a->gk || !a->hrp || !a->hrp0 || !a->buf) {
    return CHS_ERR_MEM;
  }
  a->ncolour = chs_sp_colour(m, n, a->rp, a->ci, 0, a->colour);
  a->nrcolour = a->kind == 1 ? chs_sp_colour(m, n, a->rp, a->ci, 1, a->rcolour) : 0;
  if (a->ncolour < 0 || a->nrcolour < 0) {
    return CHS_ERR_MEM;
  }
  /* all colours at once when that takes at most 4 times G's storage and n (sparse G: a few
   * colours), otherwise blocks of that size */
  sunindextype budget = 4 * (a->gs + n) + 1;
  a->gdc_cols = a->gs > 0 && budget / a->gs > 0 ? budget / a->gs : 1;
  a->gdc_cols = a->gdc_cols < a->ncolour ? a->gdc_cols : (a->ncolour > 0 ? a->ncolour : 1);
  a->gdc = malloc(((size_t)a->gdc_cols * (size_t)a->gs + 1) * sizeof *a->gdc);
  if (!a->gdc) {
    return CHS_ERR_MEM;
  }
  sunindextype gs = a->rp[m];
  for (sunindextype k = 0; k < gs; k++) {
    a->gcp[a->ci[k] + 1]++;
  }
  for (sunindextype j = 0; j < n; j++) {
    a->gcp[j + 1] += a->gcp[j];
  }
  for (sunindextype i = 0; i < m; i++) { /* rows increase within each column */
    for (sunindextype k = a->rp[i]; k < a->rp[i + 1]; k++) {
      sunindextype t = a->gcp[a->ci[k]]++;
      a->gri[t] = i;
      a->gk[t] = k;
    }
  }
  for (sunindextype j = n; j > 0; j--) {
    a->gcp[j] = a->gcp[j - 1];
  }
  a->gcp[0] = 0;
  return 0;
}

void chs_sparse_asm_free(CHSSparseAsm **pa) {
  if (!pa || !*pa) {
    return;
  }
  CHSSparseAsm *a = *pa;
  void *all[] = {a->own,  a->colour, a->rcolour, a->gcp, a->gri, a->gk, a->hrp, a->hci,
                 a->hrp0, a->hci0,   a->hval,    a->Dh,  a->buf, a->si, a->sj,  a->inv,
                 a->ep,   a->cv,     a->J.p,     a->J.i, a->J.x, a->gdc};
  for (size_t k = 0; k < sizeof all / sizeof *all; k++) {
    free(all[k]);
  }
  cs_dl_spfree(a->old);
  free(a);
  *pa = NULL;
}

long chs_sparse_asm_symbolic(const CHSSparseAsm *a) {
  return a ? a->n_symbolic : 0;
}

long chs_sparse_asm_pattern(const CHSSparseAsm *a) {
  return a && !a->fallback ? a->n_pattern : -1;
}

int chs_sparse_asm_create(CHSFormulation f, int without_hessv, CHSSparseAsm **pa) {
  chs_sparse_asm_free(pa);
  int kind = chs_dae_kind(f->ops);
  if (!kind || !CHSFormulation_HasJacobian(f) || f->sys.general) { /* constant M, autonomous */
    return CHS_ERR_UNSUPPORTED;
  }
  CHSSparseAsm *a = calloc(1, sizeof *a);
  if (!a) {
    return CHS_ERR_MEM;
  }
  *pa = a;
  a->f = f;
  a->kind = kind;
  a->no_hessv = without_hessv != 0;
  a->n = f->sys.n;
  a->m = f->sys.m;
  a->N = f->size;
  a->gs = f->sys.gsize;
  a->fallback = f->sys.mass_kind != CHS_MASS_IDENTITY && f->sys.mass_kind != CHS_MASS_DIAGONAL;
  if (!a->fallback && a->N >= INT32_MAX) {
    chs_sparse_asm_free(pa);
    return CHS_ERR_MEM; /* beyond the 32-bit indices of the records */
  }
  if (a->fallback && a->no_hessv) {
    chs_sparse_asm_free(pa);
    return CHS_ERR_UNSUPPORTED; /* the dense-mass fallback assembles everything */
  }
  int rc = a->fallback ? 0 : sa_setup(a);
  if (rc != 0) {
    chs_sparse_asm_free(pa);
  }
  return rc;
}

int chs_dae_jacobian_csc_reuse(CHSFormulation f, CHSSparseAsm **pa, sunrealtype cj,
                               const sunrealtype *y, sunrealtype *x, sunindextype xcap,
                               const struct cs_dl_sparse **out) {
  *out = NULL;
  if (!*pa || (*pa)->f != f) {
    CHS_CALL(chs_sparse_asm_create(f, *pa ? (*pa)->no_hessv : 0, pa));
  }
  CHSSparseAsm *a = *pa;
  if (a->fallback) {
    cs_dl_spfree(a->old);
    a->old = NULL;
    CHS_CALL(chs_dae_jacobian_csc(f, cj, y, &a->old));
    if (x && a->old->p[a->N] <= xcap) {
      memcpy(x, a->old->x, (size_t)a->old->p[a->N] * sizeof *x);
    }
    *out = a->old;
    return 0;
  }
  CHSSystem *s = &f->sys;
  int changed = 0;
  int rc = s->ops->jacobian(s->data, y, s->G) == 0 ? 0 : CHS_RECOVERABLE;
  if (rc == 0 && !a->no_hessv) {
    rc = sa_hessv_eval(a, y, &changed);
  }
  if (rc != 0) {
    return rc;
  }
  a->sym = !a->valid || changed ? 2 : 0;
  a->k = 0;
  a->len = 0;
  a->fail = 0;
  a->valid = a->sym ? 0 : a->valid;
  rc = sa_emit_all(a, cj, y);
  /* Keep the union with the last pattern (its entries as zero contributions after the
   * evaluation's own, outside the numeric part): a pair leaving the cutoff's margin then
   * changes nothing, and KLU re-analyses only when new entries appear; from scratch when the
   * union has doubled. */
  size_t L = a->len;
  sunindextype nold = a->J.p && a->nnz_fresh > 0 ? a->J.p[a->N] : 0;
  if (rc == 0 && a->sym) { /* counted: now record */
    rc = sa_records_alloc(a, L + (size_t)nold);
    a->sym = 1;
    a->k = 0;
    rc = rc == 0 ? sa_emit_all(a, cj, y) : rc;
    rc = rc == 0 && a->len != L ? CHS_ERR_CALLBACK : rc;
  }
  if (rc == 0 && a->sym) {
    for (sunindextype j = 0; j < a->N && nold > 0; j++) {
      for (sunindextype t = a->J.p[j]; t < a->J.p[j + 1]; t++) {
        sa_record(a, a->J.i[t], j, 0);
      }
    }
    rc = a->fail ? CHS_ERR_MEM : sa_symbolic(a);
    if (rc == 0 && nold > 0 && a->J.p[a->N] > 2 * a->nnz_fresh) {
      a->len = L;
      rc = sa_symbolic(a);
      nold = 0;
    }
    if (rc == 0 && nold == 0) {
      a->nnz_fresh = a->J.p[a->N];
    }
    a->len = L;
    a->nnz_fresh = rc == 0 ? a->nnz_fresh : 0;
    if (rc == 0 && s->ops->hessian_sparse && !a->no_hessv) {
      sunindextype nnz = a->hrp[a->n];
      sunindextype *h = realloc(a->hci0, ((size_t)nnz + 1) * sizeof *h);
      a->hci0 = h ? h : a->hci0;
      rc = h ? 0 : CHS_ERR_MEM;
      if (rc == 0) {
        memcpy(a->hrp0, a->hrp, ((size_t)a->n + 1) * sizeof *a->hrp);
        memcpy(a->hci0, a->hci, (size_t)nnz * sizeof *a->hci);
        a->hnnz0 = nnz;
      }
    }
    if (rc == 0) {
      a->valid = 1;
      a->n_symbolic++;
      a->map_len = a->len;
    }
    /* the symbolic pass's rows and columns are needed only until inv exists */
    free(a->si);
    free(a->sj);
    a->si = a->sj = NULL;
    a->len = 0;
  } else if (rc == 0 && a->k != a->map_len) {
    rc = CHS_ERR_CALLBACK; /* cannot happen: the order depends on the patterns only */
    a->valid = 0;
  }
  if (rc != 0) {
    return rc;
  }
  if (!x || a->J.p[a->N] > xcap) {
    x = a->J.x = a->J.x ? a->J.x : chs_calloc_big(((size_t)a->J.p[a->N] + 1) * sizeof *x);
    if (!x) {
      return CHS_ERR_MEM;
    }
  } else if (a->J.x) { /* the caller's array takes the values: the own one (the evaluation at
                        * set-up, without a destination) goes, nnz doubles at N = 10^5 */
    free(a->J.x);
    a->J.x = NULL;
  }
  if (!sa_gather(a, x)) {
    return CHS_RECOVERABLE;
  }
  *out = &a->J;
  return 0;
}
