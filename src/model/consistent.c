/* Consistent initial states holding chosen components (chs/consistent.h): Gauss-Newton with
 * minimum-norm steps over the free coordinates, then the Euclidean projection of the free
 * velocities, both through LAPACK's SVD least-squares solver dgelss (which also gives the rank
 * of the restricted Jacobian, the test for held components that admit no consistent state). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "impl.h"

#if !defined(SUNDIALS_DOUBLE_PRECISION)
#error "the consistent initialisation calls LAPACK in double precision"
#endif

extern void dgelss_(const int *m, const int *n, const int *nrhs, double *a, const int *lda,
                    double *b, const int *ldb, double *s, const double *rcond, int *rank,
                    double *work, const int *lwork, int *info);

/* Gauss-Newton iterations at most; from any guess the model states, convergence is quadratic and
 * takes a handful: more means the held components leave no consistent state near the guess. */
#define CS_MAX_NEWTON 50
/* A singular value of the restricted Jacobian below this fraction of the largest counts as zero:
 * the free components cannot move every constraint independently. */
#define CS_RANK_TOL 1e-12

typedef struct {
  CHSSystem s;
  int n, m, nfq, nfv;
  int *freeq, *freev; /* indices of the free positions / velocities */
  sunrealtype *Gd;    /* G dense, m x n row-major */
  double *A, *b, *sv; /* m x nf column-major, max(m, n), min(m, n) */
  double *work;       /* dgelss workspace */
  int lwork;
  sunrealtype *g, *psi; /* m */
  sunrealtype *qt, *vt; /* n: trial / working copies */
} cs_work;

/* "q:th1" or "q3" style names of component i (the problem's coordinate names when it has them). */
static void cs_name(const CHSProblem prob, char kind, int i, char *buf, size_t len) {
  const char *const *names = prob->dims.coordinate_names;
  if (names && names[i]) {
    snprintf(buf, len, "%c:%s", kind, names[i]);
  } else {
    snprintf(buf, len, "%c%d", kind, i + 1);
  }
}

/* The held components as "q:th1, v:th4" for messages (at most the first 12). */
static void cs_held_list(const CHSProblem prob, const int *fix_q, const int *fix_v, char *buf,
                         size_t len) {
  size_t used = 0;
  int count = 0, n = (int)prob->dims.n;
  buf[0] = '\0';
  for (int pass = 0; pass < 2; pass++) {
    const int *fix = pass == 0 ? fix_q : fix_v;
    for (int i = 0; fix && i < n; i++) {
      if (!fix[i]) {
        continue;
      }
      char nm[48];
      cs_name(prob, pass == 0 ? 'q' : 'v', i, nm, sizeof nm);
      if (count == 12) {
        snprintf(buf + used, len - used, ", ...");
        return;
      }
      int w = snprintf(buf + used, len - used, "%s%s", count ? ", " : "", nm);
      if (w < 0 || (size_t)w >= len - used) {
        return;
      }
      used += (size_t)w;
      count++;
    }
  }
  if (count == 0) {
    snprintf(buf, len, "(none)");
  }
}

static void cs_free(cs_work *w) {
  free(w->freeq);
  free(w->freev);
  free(w->Gd);
  free(w->A);
  free(w->b);
  free(w->sv);
  free(w->work);
  free(w->g);
  free(w->psi);
  free(w->qt);
  free(w->vt);
  chs_system_free(&w->s);
}

static int cs_alloc(cs_work *w, CHSProblem prob, CHSError *err) {
  memset(w, 0, sizeof *w);
  CHS_CALL(chs_system_init(&w->s, prob, NULL, 0, err));
  int n = w->n = (int)prob->dims.n, m = w->m = (int)prob->dims.m;
  int big = m > n ? m : n;
  w->freeq = malloc((size_t)n * sizeof *w->freeq);
  w->freev = malloc((size_t)n * sizeof *w->freev);
  w->Gd = calloc((size_t)m * (size_t)n, sizeof *w->Gd);
  w->A = malloc((size_t)m * (size_t)n * sizeof *w->A);
  w->b = malloc((size_t)big * sizeof *w->b);
  w->sv = malloc((size_t)big * sizeof *w->sv);
  w->g = malloc((size_t)m * sizeof *w->g);
  w->psi = malloc((size_t)m * sizeof *w->psi);
  w->qt = malloc((size_t)n * sizeof *w->qt);
  w->vt = malloc((size_t)n * sizeof *w->vt);
  if (!w->freeq || !w->freev || !w->Gd || !w->A || !w->b || !w->sv || !w->g || !w->psi || !w->qt ||
      !w->vt) {
    cs_free(w);
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  /* workspace for the largest system (all n columns free) */
  double q = 0, rcond = -1;
  int one = 1, lw = -1, rank = 0, info = 0;
  dgelss_(&m, &n, &one, w->A, &m, w->b, &big, w->sv, &rcond, &rank, &q, &lw, &info);
  w->lwork = info == 0 && q >= 1 ? (int)q : 5 * big + 64;
  w->work = malloc((size_t)w->lwork * sizeof *w->work);
  if (!w->work) {
    cs_free(w);
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  return CHS_SUCCESS;
}

/* s.G into the dense m x n row-major Gd (CSR patterns scattered). */
static void cs_dense_G(cs_work *w) {
  const CHSSystem *s = &w->s;
  if (s->jac_kind == CHS_JAC_DENSE) {
    memcpy(w->Gd, s->G, (size_t)w->m * (size_t)w->n * sizeof *w->Gd);
    return;
  }
  memset(w->Gd, 0, (size_t)w->m * (size_t)w->n * sizeof *w->Gd);
  for (sunindextype i = 0; i < s->m; i++) {
    for (sunindextype k = s->rowptr[i]; k < s->rowptr[i + 1]; k++) {
      w->Gd[i * w->n + s->colind[k]] = s->G[k];
    }
  }
}

/* Minimum-norm x (nf entries into b[0 .. nf)) of G_F x = r over the free columns free[0 .. nf).
 * 0; 1 when G_F has rank below m (no solution for every r). */
static int cs_lstsq(cs_work *w, const int *free_idx, int nf, const sunrealtype *r) {
  int m = w->m, n = w->n, one = 1, rank = 0, info = 0;
  int ldb = m > n ? m : n;
  if (nf < m) {
    return 1;
  }
  for (int k = 0; k < nf; k++) {
    for (int i = 0; i < m; i++) {
      w->A[i + (size_t)m * k] = w->Gd[(size_t)i * n + free_idx[k]];
    }
  }
  for (int i = 0; i < ldb; i++) {
    w->b[i] = i < m ? r[i] : 0;
  }
  double rcond = -1; /* machine precision: the rank is judged below */
  dgelss_(&m, &nf, &one, w->A, &m, w->b, &ldb, w->sv, &rcond, &rank, w->work, &w->lwork, &info);
  if (info != 0 || !(w->sv[0] > 0) || !(w->sv[m - 1] > CS_RANK_TOL * w->sv[0])) {
    return 1;
  }
  return 0;
}

/* p = M(q) v (M(q) from the problem; constant mass matrices from dims.mass). */
static int cs_mass_mul(cs_work *w, const sunrealtype *q, const sunrealtype *v, sunrealtype *p) {
  const CHSProblemDims *d = &w->s.prob->dims;
  int n = w->n;
  switch (d->mass_kind) {
  case CHS_MASS_IDENTITY:
    memcpy(p, v, (size_t)n * sizeof *p);
    return 0;
  case CHS_MASS_DIAGONAL:
    for (int i = 0; i < n; i++) {
      p[i] = d->mass[i] * v[i];
    }
    return 0;
  case CHS_MASS_DENSE:
  case CHS_MASS_CONFIG:
    break;
  }
  const sunrealtype *M = d->mass;
  sunrealtype *Mq = NULL;
  sunindextype nnz = d->mass_kind == CHS_MASS_CONFIG ? d->mass_nnz : 0;
  if (d->mass_kind == CHS_MASS_CONFIG) {
    size_t sz = nnz > 0 ? (size_t)nnz : (size_t)n * (size_t)n;
    Mq = malloc(sz * sizeof *Mq);
    if (!Mq) {
      return CHS_ERR_MEM;
    }
    int rc = w->s.ops->mass_matrix(w->s.data, q, Mq);
    if (rc != 0 || !chs_all_finite(Mq, (sunindextype)sz)) {
      free(Mq);
      return CHS_ERR_CALLBACK;
    }
    M = Mq;
  }
  for (int i = 0; i < n; i++) {
    sunrealtype acc = 0;
    if (nnz > 0) {
      for (sunindextype k = d->mass_rowptr[i]; k < d->mass_rowptr[i + 1]; k++) {
        acc += M[k] * v[d->mass_colind[k]];
      }
    } else {
      for (int j = 0; j < n; j++) {
        acc += M[(size_t)i * n + j] * v[j];
      }
    }
    p[i] = acc;
  }
  free(Mq);
  return 0;
}

int CHSProblem_InitialGuess(CHSProblem prob, sunrealtype *q, sunrealtype *v, CHSError *err) {
  if (!prob || !q || !v) {
    return chs_error_set(err, CHS_ERR_ARG, "CHSProblem_InitialGuess: NULL argument");
  }
  const char *name = prob->ops->name;
  sunindextype n = prob->dims.n;
  if (prob->ops->initial_guess) {
    int rc = prob->ops->initial_guess(prob->data, q, v);
    if (rc != 0 || !chs_all_finite(q, n) || !chs_all_finite(v, n)) {
      return chs_error_set(err, CHS_ERR_CALLBACK,
                           "problem '%s': initial_guess failed (returned %d) or is not finite",
                           name, rc);
    }
    return CHS_SUCCESS;
  }
  CHSSystem s;
  CHS_CALL(chs_system_init(&s, prob, NULL, 0, err));
  sunrealtype *p = s.wn[CHS_WN_V];
  int rc = prob->ops->initial_state(prob->data, q, p);
  if (rc == 0) {
    rc = chs_system_mass_at(&s, q);
  }
  if (rc == 0) {
    chs_mass_inv(&s, p, v);
  }
  chs_system_free(&s);
  if (rc != 0) {
    return chs_error_set(err, CHS_ERR_CALLBACK,
                         "problem '%s': initial_state or M(q) failed at the initial state", name);
  }
  return CHS_SUCCESS;
}

/* g(q) into w->g; its 2-norm, or -1 when a callback failed or g is not finite. */
static sunrealtype cs_residual(cs_work *w, const sunrealtype *q) {
  if (w->s.ops->constraint(w->s.data, q, w->g) != 0 || !chs_all_finite(w->g, w->m)) {
    return -1;
  }
  return chs_norm2(w->g, w->m);
}

/* Gauss-Newton on g(q, t0) = 0 over the free coordinates, in place. 0, 1 (no convergence or rank
 * loss), or < 0 (a callback failed). */
static int cs_positions(cs_work *w, sunrealtype *q) {
  int n = w->n;
  sunrealtype qn = chs_norm2(q, n);
  sunrealtype gscale = fmax(1, qn * qn);
  sunrealtype gn = cs_residual(w, q);
  if (gn < 0) {
    return CHS_ERR_CALLBACK;
  }
  /* already on the manifold to round-off: the positions stay exactly as given */
  if (gn <= 8 * DBL_EPSILON * gscale) {
    return 0;
  }
  memcpy(w->qt, q, (size_t)n * sizeof *q);
  sunrealtype best = gn;
  int since_best = 0;
  for (int it = 0; it < CS_MAX_NEWTON && gn > 0 && since_best < 3; it++) {
    if (w->s.ops->jacobian(w->s.data, w->qt, w->s.G) != 0 || !chs_all_finite(w->s.G, w->s.gsize)) {
      return CHS_ERR_CALLBACK;
    }
    cs_dense_G(w);
    if (cs_lstsq(w, w->freeq, w->nfq, w->g) != 0) {
      return 1;
    }
    sunrealtype step = 0, scale = 0;
    for (int k = 0; k < w->nfq; k++) {
      int j = w->freeq[k];
      w->qt[j] -= w->b[k];
      step = fmax(step, fabs(w->b[k]));
      scale = fmax(scale, fabs(w->qt[j]));
    }
    gn = cs_residual(w, w->qt);
    if (gn < 0) {
      return CHS_ERR_CALLBACK;
    }
    if (gn < best) {
      best = gn;
      since_best = 0;
      memcpy(q, w->qt, (size_t)n * sizeof *q);
    } else {
      since_best++;
    }
    if (step <= 4 * DBL_EPSILON * fmax(1, scale)) {
      break; /* the step is at round-off: so is g */
    }
  }
  return best <= CHS_CONSISTENCY_TOL * gscale ? 0 : 1;
}

/* The projection of the free velocities onto G v + g_t = 0 at q (in place). 0, 1 (rank loss), or
 * < 0 (a callback failed). */
static int cs_velocities(cs_work *w, const sunrealtype *q, sunrealtype *v) {
  CHSSystem *s = &w->s;
  int n = w->n, m = w->m;
  if (s->ops->jacobian(s->data, q, s->G) != 0 || !chs_all_finite(s->G, s->gsize) ||
      chs_system_time_terms(s, q) != 0) {
    return CHS_ERR_CALLBACK;
  }
  cs_dense_G(w);
  for (int pass = 0; pass < 3; pass++) {
    chs_system_psi(s, v, w->psi);
    /* the round-off of G v + g_t: eps times the sum of the magnitudes of its terms */
    sunrealtype sc2 = 0;
    for (int i = 0; i < m; i++) {
      sunrealtype a = s->gt ? fabs(s->gt[i]) : 0;
      for (int j = 0; j < n; j++) {
        a += fabs(w->Gd[(size_t)i * n + j] * v[j]);
      }
      sc2 += a * a;
    }
    if (!chs_all_finite(w->psi, m)) {
      return CHS_ERR_CALLBACK;
    }
    if (chs_norm2(w->psi, m) <= 8 * DBL_EPSILON * sqrt(sc2)) {
      return 0; /* consistent to round-off: left exactly as it is */
    }
    if (cs_lstsq(w, w->freev, w->nfv, w->psi) != 0) {
      return 1;
    }
    for (int k = 0; k < w->nfv; k++) {
      v[w->freev[k]] -= w->b[k];
    }
  }
  return 0;
}

int CHSProblem_ConsistentState(CHSProblem prob, sunrealtype t0, const int *fix_q, const int *fix_v,
                               sunrealtype *q, sunrealtype *v, sunrealtype *p, CHSError *err) {
  if (!prob || !q || !v) {
    return chs_error_set(err, CHS_ERR_ARG, "CHSProblem_ConsistentState: NULL argument");
  }
  const char *name = prob->ops->name;
  sunindextype n = prob->dims.n;
  if (!chs_all_finite(q, n) || !chs_all_finite(v, n) || !isfinite(t0)) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "problem '%s': the initial state to make consistent is not finite", name);
  }
  cs_work w;
  CHS_CALL(cs_alloc(&w, prob, err));
  for (int i = 0; i < w.n; i++) {
    if (!(fix_q && fix_q[i])) {
      w.freeq[w.nfq++] = i;
    }
    if (!(fix_v && fix_v[i])) {
      w.freev[w.nfv++] = i;
    }
  }
  sunrealtype *q1 = malloc(2 * (size_t)n * sizeof *q1);
  if (!q1) {
    cs_free(&w);
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  sunrealtype *v1 = q1 + n;
  memcpy(q1, q, (size_t)n * sizeof *q1);
  memcpy(v1, v, (size_t)n * sizeof *v1);
  int rc = chs_system_set_time(&w.s, t0) != 0 ? CHS_ERR_CALLBACK : 0;
  const char *stage = "positions";
  if (rc == 0) {
    rc = cs_positions(&w, q1);
  }
  if (rc == 0) {
    stage = "velocities";
    rc = cs_velocities(&w, q1, v1);
  }
  if (rc == 0 && p) {
    stage = "momenta";
    rc = cs_mass_mul(&w, q1, v1, p);
  }
  if (rc == 0) {
    memcpy(q, q1, (size_t)n * sizeof *q);
    memcpy(v, v1, (size_t)n * sizeof *v);
  } else if (rc > 0) {
    char held[600];
    cs_held_list(prob, fix_q, fix_v, held, sizeof held);
    rc = chs_error_set(err, CHS_ERR_ARG,
                       "problem '%s': the held components %s admit no consistent state: the "
                       "%s cannot satisfy the %ld constraints (%s)",
                       name, held, stage, (long)w.m,
                       stage[0] == 'p' ? "the constraint Jacobian over the free coordinates has "
                                         "rank below m, or Gauss-Newton does not converge"
                                       : "the constraint Jacobian over the free velocities has "
                                         "rank below m");
  } else if (rc == CHS_ERR_MEM) {
    rc = chs_error_set(err, CHS_ERR_MEM, "out of memory");
  } else {
    rc = chs_error_set(err, CHS_ERR_CALLBACK,
                       "problem '%s': a callback failed or returned a non-finite value while "
                       "making the %s consistent",
                       name, stage);
  }
  free(q1);
  cs_free(&w);
  return rc;
}
