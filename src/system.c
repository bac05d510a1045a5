/* A problem bound to its sizes, inverse mass matrix, Jacobian storage, Gram solver and scratch:
 * the kernels every formulation is built from (DESIGN "Notation"). */
#define _DEFAULT_SOURCE /* madvise (Linux: MADV_HUGEPAGE) */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#include <sundials/sundials_dense.h>
#include <cholmod.h>
#include "impl.h"

static void chs_advise_huge(void *p, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const uintptr_t huge = (uintptr_t)1 << 21;
  if (p && bytes >= 2 * huge) { /* the whole 2 MiB pages inside the block */
    uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1), b = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (b > a) {
      (void)madvise((void *)a, b - a, MADV_HUGEPAGE); /* advice: without it, 4 KiB pages */
    }
  }
#else
  (void)p;
  (void)bytes;
#endif
}

void *chs_calloc_big(size_t bytes) {
  void *p = calloc(1, bytes ? bytes : 1); /* fresh pages stay untouched (not resident) */
  chs_advise_huge(p, bytes);              /* before the first touch */
  return p;
}

/* LAPACK (Fortran): Cholesky factorisation and solves of M(q) (CHS_MASS_CONFIG). */
extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
extern void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a,
                    const int *lda, double *b, const int *ldb, int *info);

/* A dense M(q) is factored densely: at most this n (a CSR pattern: no limit but memory). */
#define CHS_MASS_CONFIG_MAX_N 8000

/* M(q) with a fixed CSR pattern (both triangles; as CSC it is the same symmetric matrix):
 * CHOLMOD's symbolic analysis of the pattern once, a numeric factorisation per evaluation point,
 * solves with reused workspace. */
struct chs_mass_sparse {
  cholmod_common c;
  cholmod_sparse *A; /* the pattern, values pointing at s->mvals */
  cholmod_factor *L;
  cholmod_dense *B, *X, *Y, *E; /* right-hand side (n x 1) and cholmod_solve2's workspace */
  int started;
};

static void chs_mass_sparse_free(struct chs_mass_sparse *ms) {
  if (!ms) {
    return;
  }
  if (ms->started) {
    if (ms->A) {
      ms->A->x = NULL; /* s->mvals: not CHOLMOD's */
      ms->A->xtype = CHOLMOD_PATTERN;
      cholmod_free_sparse(&ms->A, &ms->c);
    }
    cholmod_free_factor(&ms->L, &ms->c);
    cholmod_free_dense(&ms->B, &ms->c);
    cholmod_free_dense(&ms->X, &ms->c);
    cholmod_free_dense(&ms->Y, &ms->c);
    cholmod_free_dense(&ms->E, &ms->c);
    cholmod_finish(&ms->c);
  }
  free(ms);
}

static int chs_mass_sparse_create(CHSSystem *s, const CHSProblemDims *d, CHSError *err) {
  size_t n = (size_t)s->n, nnz = (size_t)d->mass_nnz;
  if (s->n > INT32_MAX || d->mass_nnz > INT32_MAX) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "sparse mass matrix with n = %ld, %ld nonzeros: at most 2^31 - 1",
                         (long)s->n, (long)d->mass_nnz);
  }
  struct chs_mass_sparse *ms = calloc(1, sizeof *ms);
  if (!ms) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  s->msp = ms;
  cholmod_start(&ms->c);
  ms->started = 1;
  ms->c.print = 0; /* the library never prints: failures are return codes */
  ms->c.error_handler = NULL;
  ms->c.final_ll =
      1; /* LL': a non-positive pivot is reported (LDL' would factor an indefinite M) */
  ms->A = cholmod_allocate_sparse(n, n, nnz, 1, 1, 1, CHOLMOD_PATTERN, &ms->c);
  ms->B = cholmod_zeros(n, 1, CHOLMOD_REAL, &ms->c);
  if (!ms->A || !ms->B) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory for the sparse mass matrix (n = %ld)",
                         (long)s->n);
  }
  int *ap = ms->A->p, *ai = ms->A->i;
  for (size_t i = 0; i <= n; i++) {
    ap[i] = (int)d->mass_rowptr[i];
  }
  for (size_t k = 0; k < nnz; k++) {
    ai[k] = (int)d->mass_colind[k];
  }
  ms->A->sorted = 0; /* CHOLMOD sorts what it needs; the pattern's order is the problem's */
  if (!cholmod_check_sparse(ms->A, &ms->c)) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "problem '%s': the CSR pattern of its mass matrix (mass_rowptr, "
                         "mass_colind) is invalid",
                         s->ops->name);
  }
  ms->L = cholmod_analyze(ms->A, &ms->c); /* the pattern is fixed: once */
  if (!ms->L) {
    return chs_error_set(err, CHS_ERR_MEM, "sparse mass matrix: symbolic analysis failed (n = %ld)",
                         (long)s->n);
  }
  ms->A->xtype = CHOLMOD_REAL; /* from now on with values: s->mvals */
  ms->A->x = s->mvals;
  return CHS_SUCCESS;
}

int chs_mass_factor_kind(const CHSSystem *s) {
  if (s->mass_kind != CHS_MASS_CONFIG) {
    return CHS_MASS_FACTOR_NONE;
  }
  return s->msp ? CHS_MASS_FACTOR_SPARSE : CHS_MASS_FACTOR_DENSE;
}

static int chs_mass_inverse(CHSSystem *s, const CHSProblemDims *d, CHSError *err) {
  sunindextype n = d->n;
  if (d->mass_kind == CHS_MASS_CONFIG) { /* factored per evaluation point: chs_system_mass_at */
    s->minv = NULL;
    return CHS_SUCCESS;
  }
  if (d->mass_kind == CHS_MASS_IDENTITY) {
    s->minv = NULL;
    return CHS_SUCCESS;
  }
  if (!d->mass) {
    return chs_error_set(err, CHS_ERR_ARG, "mass matrix values missing");
  }
  if (d->mass_kind == CHS_MASS_DIAGONAL) {
    s->minv = malloc((size_t)n * sizeof *s->minv);
    if (!s->minv) {
      return chs_error_set(err, CHS_ERR_MEM, "out of memory");
    }
    for (sunindextype i = 0; i < n; i++) {
      if (!(d->mass[i] > 0) || !isfinite(d->mass[i])) {
        return chs_error_set(err, CHS_ERR_ARG, "mass[%ld] = %g is not positive", (long)i,
                             (double)d->mass[i]);
      }
      s->minv[i] = 1 / d->mass[i];
    }
    return CHS_SUCCESS;
  }
  /* Dense SPD: M^{-1} column by column from a Cholesky factorization (SUNDIALS dense kernels). */
  sunrealtype **a = SUNDlsMat_newDenseMat(n, n);
  s->minv = malloc((size_t)n * (size_t)n * sizeof *s->minv);
  sunrealtype *col = malloc((size_t)n * sizeof *col);
  int rc = CHS_SUCCESS;
  if (!a || !s->minv || !col) {
    rc = chs_error_set(err, CHS_ERR_MEM, "out of memory");
    goto done;
  }
  for (sunindextype i = 0; i < n; i++) {
    for (sunindextype j = 0; j < n; j++) {
      a[j][i] = d->mass[i * n + j];
      if (fabs(d->mass[i * n + j] - d->mass[j * n + i]) >
          1e-14 * (fabs(d->mass[i * n + j]) + fabs(d->mass[j * n + i]))) {
        rc = chs_error_set(err, CHS_ERR_ARG, "mass matrix is not symmetric at (%ld,%ld)", (long)i,
                           (long)j);
        goto done;
      }
    }
  }
  if (SUNDlsMat_densePOTRF(a, n) != 0) {
    rc = chs_error_set(err, CHS_ERR_ARG, "mass matrix is not positive definite");
    goto done;
  }
  for (sunindextype j = 0; j < n; j++) {
    memset(col, 0, (size_t)n * sizeof *col);
    col[j] = 1;
    SUNDlsMat_densePOTRS(a, n, col);
    for (sunindextype i = 0; i < n; i++) {
      s->minv[i * n + j] = col[i];
    }
  }
done:
  if (a) {
    SUNDlsMat_destroyMat(a);
  }
  free(col);
  return rc;
}

/* The storage of M(q)'s factor and of the time derivatives of the constraints (one block). */
static int chs_system_init_general(CHSSystem *s, const CHSProblemDims *d, CHSError *err) {
  size_t n = (size_t)s->n, m = (size_t)s->m, nn = 0, nv = 0;
  if (s->mass_kind == CHS_MASS_CONFIG && d->mass_nnz > 0) { /* sparse: the point and the values */
    nn = n;
    nv = (size_t)d->mass_nnz;
  } else if (s->mass_kind == CHS_MASS_CONFIG) {
    if (s->n > CHS_MASS_CONFIG_MAX_N) {
      return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                           "configuration-dependent mass matrix with n = %ld: M(q) is factored "
                           "densely, at most n = %d",
                           (long)s->n, CHS_MASS_CONFIG_MAX_N);
    }
    nn = n * n + n;
  }
  size_t gt = (s->time_bits & CHS_TIME_CONSTRAINTS) ? (size_t)s->gsize + 2 * m : 0;
  sunrealtype *blk = calloc(nn + nv + gt + 4 * n + 2 * m + 1, sizeof *blk);
  if (!blk) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  s->mfac = blk; /* owns the block (freed through mfac) */
  sunrealtype *x = blk;
  if (nn) {
    s->mq = x + nn - n; /* after the dense factor's n x n, if any */
    x += nn;
  }
  if (nv) {
    s->mvals = x;
    x += nv;
  }
  if (gt) {
    s->Gt = x;
    s->gt = x + s->gsize;
    s->gtt = s->gt + m;
    x += gt;
  }
  for (int i = 0; i < 4; i++) {
    s->xn[i] = x + (size_t)i * n;
  }
  s->xm[0] = x + 4 * n;
  s->xm[1] = s->xm[0] + m;
  if (s->mass_kind == CHS_MASS_CONFIG && d->mass_nnz > 0) {
    return chs_mass_sparse_create(s, d, err);
  }
  return CHS_SUCCESS;
}

int chs_system_init(CHSSystem *s, CHSProblem prob, SUNContext ctx, int gram_kind, CHSError *err) {
  memset(s, 0, sizeof *s);
  const CHSProblemDims *d = &prob->dims;
  s->prob = prob;
  s->ops = prob->ops;
  s->data = prob->data;
  s->n = d->n;
  s->m = d->m;
  s->mass_kind = d->mass_kind;
  s->jac_kind = d->jac_kind;
  s->rowptr = d->rowptr;
  s->colind = d->colind;
  s->gsize = d->jac_kind == CHS_JAC_CSR ? d->nnz : d->m * d->n;
  s->time_bits = d->time_dependent;
  s->general = d->mass_kind == CHS_MASS_CONFIG || d->time_dependent != 0;
  int rc = chs_mass_inverse(s, d, err);
  if (rc != 0) {
    chs_system_free(s);
    return rc;
  }
  size_t n = (size_t)s->n, m = (size_t)s->m;
  if (s->general) {
    rc = chs_system_init_general(s, d, err);
    if (rc != 0) {
      chs_system_free(s);
      return rc;
    }
  }
  /* G, Gdot and the scratch vectors in one block (chs_calloc_big), each a multiple of 64 bytes
   * from its start */
  size_t gs = ((size_t)s->gsize + 7) / 8 * 8, ns = (n + 7) / 8 * 8, ms = (m + 7) / 8 * 8;
  s->block = chs_calloc_big((2 * gs + CHS_SCRATCH_N * ns + CHS_SCRATCH_M * ms) * sizeof *s->block);
  if (s->block) {
    s->G = s->block;
    s->Gd = s->G + gs;
    for (int i = 0; i < CHS_SCRATCH_N; i++) {
      s->wn[i] = s->Gd + gs + (size_t)i * ns;
    }
    for (int i = 0; i < CHS_SCRATCH_M; i++) {
      s->wm[i] = s->wn[0] + CHS_SCRATCH_N * ns + (size_t)i * ms;
    }
  }
  /* The n x m scratch is only for the dense mass matrix's Gram assembly: never allocated for
   * identity or diagonal masses (a chain of 10^5 atoms would need 160 GB). */
  int dense_mass = s->mass_kind == CHS_MASS_DENSE || s->mass_kind == CHS_MASS_CONFIG;
  if (dense_mass) {
    s->MinvGt = calloc(n * m, sizeof(sunrealtype));
  }
  int ok = s->G && s->Gd && (s->MinvGt || !dense_mass);
  if (s->jac_kind == CHS_JAC_CSR) {
    if (s->gsize > INT32_MAX || s->n > INT32_MAX) {
      chs_system_free(s);
      return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                           "CSR constraint Jacobian with %ld nonzeros, n = %ld: at most 2^31 - 1",
                           (long)d->nnz, (long)d->n);
    }
    size_t nblk = (m + CHS_CSR_BLOCK - 1) / CHS_CSR_BLOCK;
    s->rp32 = chs_calloc_big(((size_t)m + 1 + (size_t)s->gsize + nblk) * sizeof *s->rp32);
    ok = ok && s->rp32;
    if (s->rp32) {
      s->ci32 = s->rp32 + m + 1;
      s->blk_end = s->ci32 + s->gsize;
      for (size_t i = 0; i <= m; i++) {
        s->rp32[i] = (int32_t)s->rowptr[i];
      }
      for (sunindextype k = 0; k < s->gsize; k++) {
        s->ci32[k] = (int32_t)s->colind[k];
      }
      for (size_t i = 0; i < m; i++) { /* blk_end: zero from chs_calloc_big */
        int32_t *end = &s->blk_end[i / CHS_CSR_BLOCK];
        for (int32_t k = s->rp32[i]; k < s->rp32[i + 1]; k++) {
          *end = s->ci32[k] + 1 > *end ? s->ci32[k] + 1 : *end;
        }
      }
    }
  }
  if (!ok) {
    chs_system_free(s);
    return chs_error_set(err, CHS_ERR_MEM, "out of memory for a system of size n=%ld, m=%ld",
                         (long)d->n, (long)d->m); /* s was cleared by chs_system_free */
  }
  if (ctx) {
    rc = chs_gram_create(s, gram_kind, ctx, &s->gram, err);
    if (rc != 0) {
      chs_system_free(s);
      return rc;
    }
  }
  return CHS_SUCCESS;
}

void chs_system_free(CHSSystem *s) {
  chs_mass_sparse_free(s->msp);
  free(s->minv);
  free(s->mfac);
  free(s->block);
  free(s->MinvGt);
  free(s->rp32);
  chs_gram_destroy(&s->gram);
  memset(s, 0, sizeof *s);
}

/* v <- M^{-1} v with the sparse factor (CHOLMOD's solve through its reused workspace; NaN if
 * CHOLMOD fails, which the callers' finiteness checks report). */
static void chs_mass_sparse_solve(struct chs_mass_sparse *ms, sunrealtype *v) {
  size_t n = ms->A->nrow;
  memcpy(ms->B->x, v, n * sizeof *v);
  if (!cholmod_solve2(CHOLMOD_A, ms->L, ms->B, NULL, &ms->X, NULL, &ms->Y, &ms->E, &ms->c)) {
    for (size_t i = 0; i < n; i++) {
      v[i] = NAN;
    }
    return;
  }
  memcpy(v, ms->X->x, n * sizeof *v);
}

void chs_mass_inv(const CHSSystem *s, const sunrealtype *p, sunrealtype *v) {
  sunindextype n = s->n;
  switch (s->mass_kind) {
  case CHS_MASS_IDENTITY:
    for (sunindextype i = 0; i < n; i++) {
      v[i] = p[i];
    }
    break;
  case CHS_MASS_DIAGONAL:
    for (sunindextype i = 0; i < n; i++) {
      v[i] = s->minv[i] * p[i];
    }
    break;
  case CHS_MASS_CONFIG: {
    /* with the factor of chs_system_mass_at (NaN without one: the callers' finiteness checks
     * report it rather than a silently wrong value) */
    int ni = (int)n, one = 1, info = 0;
    if (v != p) {
      memcpy(v, p, (size_t)n * sizeof *v);
    }
    if (!s->mq_valid) {
      for (sunindextype i = 0; i < n; i++) {
        v[i] = NAN;
      }
      break;
    }
    if (s->msp) {
      chs_mass_sparse_solve(s->msp, v);
      break;
    }
    dpotrs_("L", &ni, &one, s->mfac, &ni, v, &ni, &info);
    break;
  }
  case CHS_MASS_DENSE:
    for (sunindextype i = 0; i < n; i++) {
      sunrealtype acc = 0;
      for (sunindextype j = 0; j < n; j++) {
        acc += s->minv[i * n + j] * p[j];
      }
      v[i] = acc;
    }
    break;
  }
}

void chs_jac_mv(const CHSSystem *s, const sunrealtype *J, const sunrealtype *u, sunrealtype *out) {
  sunindextype n = s->n, m = s->m;
  if (s->jac_kind == CHS_JAC_DENSE) {
    for (sunindextype i = 0; i < m; i++) {
      const sunrealtype *row = J + i * n;
      sunrealtype acc = 0;
      for (sunindextype j = 0; j < n; j++) {
        acc += row[j] * u[j];
      }
      out[i] = acc;
    }
  } else {
    for (sunindextype i = 0; i < m; i++) {
      sunrealtype acc = 0;
      for (int32_t k = s->rp32[i]; k < s->rp32[i + 1]; k++) {
        acc += J[k] * u[s->ci32[k]];
      }
      out[i] = acc;
    }
  }
}

void chs_jac_tmv(const CHSSystem *s, const sunrealtype *J, const sunrealtype *w, sunrealtype *out) {
  sunindextype n = s->n, m = s->m;
  if (s->jac_kind == CHS_JAC_DENSE) {
    for (sunindextype j = 0; j < n; j++) {
      out[j] = J[j] * w[0];
    }
    for (sunindextype i = 1; i < m; i++) {
      const sunrealtype *row = J + i * n;
      for (sunindextype j = 0; j < n; j++) {
        out[j] += row[j] * w[i];
      }
    }
  } else {
    for (sunindextype j = 0; j < n; j++) {
      out[j] = 0;
    }
    for (sunindextype i = 0; i < m; i++) {
      for (int32_t k = s->rp32[i]; k < s->rp32[i + 1]; k++) {
        out[s->ci32[k]] += J[k] * w[i];
      }
    }
  }
}

/* M^{-1} u, without a copy when M = I (then u itself is returned; otherwise out). */
const sunrealtype *chs_mass_inv_view(const CHSSystem *s, const sunrealtype *u, sunrealtype *out) {
  if (s->mass_kind == CHS_MASS_IDENTITY) {
    return u;
  }
  chs_mass_inv(s, u, out);
  return out;
}

void chs_jac_mv2(const CHSSystem *s, const sunrealtype *J1, const sunrealtype *u1,
                 const sunrealtype *J2, const sunrealtype *u2, sunrealtype c2, sunrealtype *out1,
                 sunrealtype *out2) {
  sunindextype n = s->n, m = s->m;
  for (sunindextype i = 0; i < m; i++) {
    sunrealtype acc1 = 0, acc2 = 0;
    if (s->jac_kind == CHS_JAC_DENSE) {
      const sunrealtype *r1 = J1 + i * n, *r2 = J2 + i * n;
      for (sunindextype j = 0; j < n; j++) {
        acc1 += r1[j] * u1[j];
        acc2 += r2[j] * u2[j];
      }
    } else {
      for (int32_t k = s->rp32[i]; k < s->rp32[i + 1]; k++) {
        int32_t c = s->ci32[k];
        acc1 += J1[k] * u1[c];
        acc2 += J2[k] * u2[c];
      }
    }
    if (out2) {
      out1[i] = acc1;
      out2[i] = acc2;
    } else {
      out1[i] = acc1 + c2 * acc2;
    }
  }
}

/* Callback results: 0 ok, > 0 out of domain (recoverable), < 0 fatal. Non-finite values are not
 * scanned for here: they reach Q (whose factorization rejects them) or the right-hand side
 * (CHSFormulation_Rhs rejects a non-finite ydot as a recoverable failure). */
int chs_system_cb(CHSSystem *s, const char *name, int rc) {
  if (rc == 0) {
    return 0;
  }
  s->cb_failed = name;
  s->cb_rc = rc;
  return rc > 0 ? CHS_RECOVERABLE : CHS_ERR_CALLBACK;
}

int chs_system_gram_fail(const CHSSystem *s, CHSError *err, const char *who, sunrealtype t) {
  if (s->cb_failed) {
    return chs_error_set(
        err, s->cb_rc < 0 ? CHS_ERR_CALLBACK : CHS_ERR_SOLVER,
        "%s: problem '%s' callback %s returned %d (%s) at t = %g", who, s->ops->name, s->cb_failed,
        s->cb_rc, s->cb_rc < 0 ? "a fatal error" : "the state is outside its domain", (double)t);
  }
  if (s->gram && s->gram->nonfinite) {
    return chs_error_set(err, CHS_ERR_SOLVER,
                         "%s: the Gram matrix G M^-1 G^T is not finite at t = %g (its entries "
                         "overflow, or G is not finite)",
                         who, (double)t);
  }
  return chs_error_set(err, CHS_ERR_SOLVER, "%s: singular Gram matrix at t = %g", who, (double)t);
}

int chs_system_mass_at(CHSSystem *s, const sunrealtype *q) {
  if (s->mass_kind != CHS_MASS_CONFIG) {
    return 0;
  }
  sunindextype n = s->n;
  size_t bytes = (size_t)n * sizeof *q;
  if (s->mq_valid && memcmp(s->mq, q, bytes) == 0) {
    return 0; /* factored at this point already */
  }
  s->mq_valid = 0;
  if (s->msp) { /* CSR pattern: CHOLMOD's numeric factorisation on the analysed pattern */
    struct chs_mass_sparse *ms = s->msp;
    CHS_CALL(CHS_SYS_CB(s, mass_matrix, s->data, q, s->mvals));
    if (!chs_all_finite(s->mvals, (sunindextype)ms->A->nzmax)) {
      return CHS_RECOVERABLE;
    }
    int ok = cholmod_factorize(ms->A, ms->L, &ms->c);
    s->n_mass_factor++;
    if (ms->c.status == CHOLMOD_NOT_POSDEF || (ok && (ms->L->minor < ms->L->n || !ms->L->is_ll))) {
      return CHS_RECOVERABLE; /* not positive definite at q */
    }
    if (!ok || ms->c.status < CHOLMOD_OK) {
      return CHS_ERR_MEM; /* CHOLMOD's failures other than the matrix: out of memory */
    }
    memcpy(s->mq, q, bytes);
    s->mq_valid = 1;
    return 0;
  }
  CHS_CALL(CHS_SYS_CB(s, mass_matrix, s->data, q, s->mfac));
  if (!chs_all_finite(s->mfac, n * n)) {
    return CHS_RECOVERABLE;
  }
  /* row-major symmetric = column-major symmetric: LAPACK's lower triangle */
  int ni = (int)n, info = 0;
  dpotrf_("L", &ni, s->mfac, &ni, &info);
  s->n_mass_factor++;
  if (info != 0) {
    return CHS_RECOVERABLE; /* not positive definite at q */
  }
  memcpy(s->mq, q, bytes);
  s->mq_valid = 1;
  return 0;
}

int chs_mass_grad_dir(CHSSystem *s, const sunrealtype *q, const sunrealtype *u,
                      const sunrealtype *x, const sunrealtype *y, sunrealtype *out,
                      sunrealtype *work) {
  sunindextype n = s->n;
  sunrealtype unorm = 0, qnorm = 0;
  for (sunindextype i = 0; i < n; i++) {
    unorm = fmax(unorm, fabs(u[i]));
    qnorm = fmax(qnorm, fabs(q[i]));
  }
  if (unorm == 0) {
    memset(out, 0, (size_t)n * sizeof *out);
    return 0;
  }
  if (s->ops->mass_grad_dir) { /* exact, from the problem (ABI 7) */
    return CHS_SYS_CB(s, mass_grad_dir, s->data, q, u, x, y, out);
  }
  sunrealtype *R = work, *qe = work + CHS_MASS_GRAD_DIR_LEVELS * n;
  sunrealtype eps = 1e-2 * (1 + qnorm) / unorm; /* |eps u| = 1e-2 (1 + |q|) at the first level */
  for (int l = 0; l < CHS_MASS_GRAD_DIR_LEVELS; l++, eps /= 2) {
    sunrealtype *row = R + l * n;
    for (sunindextype i = 0; i < n; i++) {
      qe[i] = q[i] + eps * u[i];
    }
    CHS_CALL(CHS_SYS_CB(s, mass_grad, s->data, qe, x, y, row));
    for (sunindextype i = 0; i < n; i++) {
      qe[i] = q[i] - eps * u[i];
    }
    CHS_CALL(CHS_SYS_CB(s, mass_grad, s->data, qe, x, y, out));
    for (sunindextype i = 0; i < n; i++) {
      row[i] = (row[i] - out[i]) / (2 * eps);
    }
  }
  chs_richardson_central(R, CHS_MASS_GRAD_DIR_LEVELS, n);
  memcpy(out, R + (CHS_MASS_GRAD_DIR_LEVELS - 1) * n, (size_t)n * sizeof *out);
  return 0;
}

int chs_system_set_time(CHSSystem *s, sunrealtype t) {
  if (!s->time_bits) {
    return 0;
  }
  s->prob->time = t;
  return CHS_SYS_CB(s, set_time, s->data, t);
}

int chs_system_time_terms(CHSSystem *s, const sunrealtype *q) {
  if (!(s->time_bits & CHS_TIME_CONSTRAINTS)) {
    return 0;
  }
  return CHS_SYS_CB(s, constraint_dt, s->data, q, s->gt, s->Gt, s->gtt);
}

void chs_system_psi(const CHSSystem *s, const sunrealtype *v, sunrealtype *psi) {
  chs_jac_mv(s, s->G, v, psi);
  if (s->gt) {
    for (sunindextype i = 0; i < s->m; i++) {
      psi[i] += s->gt[i];
    }
  }
}

int chs_system_gram_at(CHSSystem *s, const sunrealtype *q) {
  if (s->mass_kind == CHS_MASS_CONFIG) {
    CHS_CALL(chs_system_mass_at(s, q));
  }
  CHS_CALL(CHS_SYS_CB(s, jacobian, s->data, q, s->G));
  CHS_CALL(chs_gram_assemble(s->gram, s));
  s->n_gram_factor++;
  return chs_gram_factor(s->gram);
}

int chs_system_force(CHSSystem *s, const sunrealtype *q, const sunrealtype *v, sunrealtype *F) {
  CHS_CALL(CHS_SYS_CB(s, force, s->data, q, F));
  if (s->ops->nonconservative_force) {
    sunrealtype *Fnc = s->wn[7];
    CHS_CALL(CHS_SYS_CB(s, nonconservative_force, s->data, q, v, Fnc));
    for (sunindextype i = 0; i < s->n; i++) {
      F[i] += Fnc[i];
    }
  }
  return 0;
}

int chs_system_kinematics(CHSSystem *s, const sunrealtype *q, const sunrealtype *p,
                          CHSKinematics *k) {
  return chs_system_kinematics_f(s, q, p, s->wn[1], NULL, 0, k);
}

/* M(q) and time dependence (docs/mechanics.md "Kinematics"): F <- F + F_M, Minv_F <- the free
 * acceleration a = M^{-1} (F + F_M - M'(q; v) v), psi = G v + g_t,
 * r = Gdot(q, v) v + G a + 2 G_t v + g_tt. */
static int chs_kinematics_general(CHSSystem *s, const sunrealtype *q, const sunrealtype *p,
                                  sunrealtype *F, CHSKinematics *k) {
  sunindextype n = s->n, m = s->m;
  k->w_done = 0;
  k->v = s->wn[0];
  k->F = F;
  k->Minv_F = s->wn[2];
  k->psi = s->wm[0];
  k->r = s->wm[1];
  k->lambda = s->wm[2];
  CHS_CALL(chs_system_mass_at(s, q));
  chs_mass_inv(s, p, k->v);
  CHS_CALL(chs_system_force(s, q, k->v, F));
  sunrealtype *b = F;
  if (s->mass_kind == CHS_MASS_CONFIG) {
    sunrealtype *fm = s->xn[0], *mdv = s->xn[1];
    CHS_CALL(CHS_SYS_CB(s, mass_grad, s->data, q, k->v, k->v, fm));
    CHS_CALL(CHS_SYS_CB(s, mass_dir, s->data, q, k->v, k->v, mdv));
    for (sunindextype i = 0; i < n; i++) {
      F[i] += fm[i] / 2;
      mdv[i] = F[i] - mdv[i];
    }
    b = mdv;
  }
  chs_mass_inv(s, b, k->Minv_F);
  CHS_CALL(chs_system_time_terms(s, q));
  CHS_CALL(chs_system_gram_at(s, q));
  CHS_CALL(CHS_SYS_CB(s, jacobian_dot, s->data, q, k->v, s->Gd));
  chs_system_psi(s, k->v, k->psi);
  chs_jac_mv2(s, s->Gd, k->v, s->G, k->Minv_F, 1, k->r, NULL);
  if (s->Gt) {
    sunrealtype *gtv = s->xm[0];
    chs_jac_mv(s, s->Gt, k->v, gtv);
    for (sunindextype i = 0; i < m; i++) {
      k->r[i] += 2 * gtv[i] + s->gtt[i];
    }
  }
  return chs_gram_solve(s->gram, k->r, k->lambda);
}

int chs_system_kinematics_f(CHSSystem *s, const sunrealtype *q, const sunrealtype *p,
                            sunrealtype *F, sunrealtype *w, int lean, CHSKinematics *k) {
  if (s->general) {
    return chs_kinematics_general(s, q, p, F, k);
  }
  k->w_done = 0;
  k->v = s->wn[0];
  k->F = F;
  k->Minv_F = s->wn[2];
  k->psi = s->wm[0];
  k->r = s->wm[1];
  k->lambda = s->wm[2];
  sunrealtype *tmp = s->wm[3];

  if (s->mass_kind == CHS_MASS_IDENTITY) {
    /* M = I: v is p and M^{-1} F is F (read-only aliases, no copies) */
    memcpy(&k->v, &p, sizeof p);
    CHS_CALL(chs_system_force(s, q, k->v, k->F));
    k->Minv_F = k->F;
  } else {
    chs_mass_inv(s, p, k->v);
    CHS_CALL(chs_system_force(s, q, k->v, k->F));
    chs_mass_inv(s, k->F, k->Minv_F);
  }
  if (s->jac_kind == CHS_JAC_CSR && s->gram && s->gram->tri) {
    /* tridiagonal Q: its assembly and factorisation, psi and r in one pass over G and Gdot */
    CHS_CALL(CHS_SYS_CB(s, jacobian, s->data, q, s->G));
    CHS_CALL(CHS_SYS_CB(s, jacobian_dot, s->data, q, k->v, s->Gd));
    s->n_gram_factor++;
    if (lean) { /* psi and r are not stored: two arrays of length m less */
      k->psi = k->r = NULL;
    }
    CHS_CALL(chs_gram_tri_kinematics(s->gram, s, k->v, k->Minv_F, k->psi, k->r, k->lambda, w));
    chs_gram_tri_backward(s->gram, k->lambda, w); /* the forward halves came with the pass */
    k->w_done = w != NULL;
    return 0;
  }
  CHS_CALL(chs_system_gram_at(s, q));
  CHS_CALL(CHS_SYS_CB(s, jacobian_dot, s->data, q, k->v, s->Gd));
  if (s->jac_kind == CHS_JAC_CSR) {
    /* psi = G v and r = Gdot v + G M^{-1} F in one pass over the rows */
    const sunrealtype *G = s->G, *Gd = s->Gd, *v = k->v, *mf = k->Minv_F;
    for (sunindextype i = 0; i < s->m; i++) {
      sunrealtype ps = 0, rr = 0;
      for (int32_t j = s->rp32[i]; j < s->rp32[i + 1]; j++) {
        int32_t c = s->ci32[j];
        ps += G[j] * v[c];
        rr += Gd[j] * v[c] + G[j] * mf[c];
      }
      k->psi[i] = ps;
      k->r[i] = rr;
    }
  } else {
    chs_jac_mv2(s, s->G, k->v, s->Gd, k->v, 0, k->psi, k->r);
    chs_jac_mv(s, s->G, k->Minv_F, tmp);
    for (sunindextype i = 0; i < s->m; i++) {
      k->r[i] += tmp[i];
    }
  }
  return chs_gram_solve(s->gram, k->r, k->lambda);
}

void chs_system_field(CHSSystem *s, const CHSKinematics *k, const sunrealtype *mult, sunrealtype cq,
                      const sunrealtype *dq, const sunrealtype *dp, sunrealtype *ydot) {
  sunindextype n = s->n;
  if (s->jac_kind == CHS_JAC_DENSE) {
    sunrealtype *Gtm = s->wn[6];
    chs_jac_tmv(s, s->G, mult, Gtm);
    for (sunindextype i = 0; i < n; i++) {
      ydot[i] = k->v[i] + (dq ? cq * dq[i] : 0);
      ydot[n + i] = k->F[i] - Gtm[i] + (dp ? dp[i] : 0);
    }
    return;
  }
  /* CSR: G^T mult subtracted in place (no temporary: one pass less over n); F may be in place
   * already (chs_system_kinematics_f) */
  sunrealtype *yp = ydot + n;
  if (k->F == yp && !dp) {
    for (sunindextype i = 0; i < n; i++) {
      ydot[i] = k->v[i] + (dq ? cq * dq[i] : 0);
    }
  } else {
    for (sunindextype i = 0; i < n; i++) {
      ydot[i] = k->v[i] + (dq ? cq * dq[i] : 0);
      yp[i] = k->F[i] + (dp ? dp[i] : 0);
    }
  }
  for (sunindextype i = 0; i < s->m; i++) {
    sunrealtype mi = mult[i];
    for (int32_t j = s->rp32[i]; j < s->rp32[i + 1]; j++) {
      yp[s->ci32[j]] -= s->G[j] * mi;
    }
  }
}

/* One constraint with a dense row G, a constant unit or diagonal mass and no time dependence: the
 * kinematics and the field of chs_system_kinematics_f and chs_system_field with Q a number (one
 * pass for Q, psi's and r's products), without the Gram workspace's assembly, factorisation and
 * solve, whose dispatch costs a system this small several times its arithmetic
 * (docs/benchmarks.md, "chs against SUNDIALS' cvPendulum_dns"). The Gram workspace is left as it
 * was: the field reads G from s->G and Q here only. */
int chs_system_field1_applies(const CHSSystem *s) {
  return !s->general && s->m == 1 && s->jac_kind == CHS_JAC_DENSE &&
         (s->mass_kind == CHS_MASS_IDENTITY || s->mass_kind == CHS_MASS_DIAGONAL);
}

int chs_system_standard_field1(CHSSystem *s, const sunrealtype *q, const sunrealtype *p,
                               sunrealtype *ydot) {
  sunindextype n = s->n;
  const sunrealtype *minv = s->minv, *G = s->G, *Gd = s->Gd;
  sunrealtype *v = s->wn[0], *F = s->wn[1];
  for (sunindextype i = 0; i < n; i++) {
    v[i] = minv ? minv[i] * p[i] : p[i];
  }
  CHS_CALL(chs_system_force(s, q, v, F));
  CHS_CALL(CHS_SYS_CB(s, jacobian, s->data, q, s->G));
  CHS_CALL(CHS_SYS_CB(s, jacobian_dot, s->data, q, v, s->Gd));
  s->n_gram_factor++;
  sunrealtype Q = 0, r = 0;
  for (sunindextype i = 0; i < n; i++) {
    sunrealtype mi = minv ? minv[i] : 1;
    Q += G[i] * mi * G[i];
    r += Gd[i] * v[i] + G[i] * mi * F[i];
  }
  if (!isfinite(Q) || !(Q > 0)) { /* as the Gram factorisation refuses it */
    return CHS_RECOVERABLE;
  }
  sunrealtype lambda = r / Q;
  for (sunindextype i = 0; i < n; i++) {
    ydot[i] = v[i];
    ydot[n + i] = F[i] - G[i] * lambda;
  }
  return 0;
}
