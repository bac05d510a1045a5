/* The derivative checker (chs/check.h, docs/check.md): each callback of a problem against
 * extrapolated central finite differences of the callback it derives from.
 *
 *   force               -grad V            (coordinate by coordinate, or along random directions)
 *   jacobian            dg/dq, and the CSR pattern: no finite-difference entry outside it
 *   jacobian_dot        d/de G(q + e u)
 *   hessian_potential   -d/de F(q + e u)
 *   constraint_third    grad_q (w^T Gdot(q, u) u)
 *   kinetic_scale       grad_sigma = grad sigma
 *   mass_dir, mass_grad d/de M(q + e u) b,  grad_q (a^T M(q) b)
 *   mass_grad_dir       d/de mass_grad(q + e u, a, b)
 *   constraint_dt       d/dt of g, G and g_t (set_time)
 *   potential_dt        d/dt V
 *   declared facts      LINEAR_POTENTIAL: d/de F(q + e u) = 0; QUADRATIC_CONSTRAINTS:
 *                       d/de Gdot(q + e z, u) = 0
 * and the initial state's residuals. Random numbers come from a splitmix64 generator whose state
 * lives in the check (no global state): the same seed gives the same points and directions. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "impl.h"
#include "chs/check.h"

#define CHK_UR SUN_UNIT_ROUNDOFF
#define CHK_MAX_LEVELS 8
#define CHK_NCAND 3
/* noise estimate: 2 CHK_NOISE_HALF + 1 values at spacing CHK_NOISE_STEP (relative), differences
 * of orders 3 .. 2 CHK_NOISE_HALF */
#define CHK_NOISE_HALF 3
#define CHK_NOISE_PTS (2 * CHK_NOISE_HALF + 1)
#define CHK_NOISE_STEP 1e-6
/* a rounding error bound from the RMS noise estimate */
#define CHK_NOISE_BOUND 4

extern void dposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda,
                   double *b, const int *ldb, int *info);

void CHSCheckOptions_Default(CHSCheckOptions *opt) {
  opt->points = 3;
  opt->seed = 1;
  opt->perturb = 1e-3;
  opt->directions = 4;
  opt->levels = 4;
  opt->safety = 10;
  opt->dense_max = 512;
}

const char *CHSCheckVerdict_Name(CHSCheckVerdict v) {
  switch (v) {
  case CHS_CHECK_PASS:
    return "pass";
  case CHS_CHECK_FAIL:
    return "FAIL";
  default:
    return "skip";
  }
}

typedef struct chk chk;
/* A vector function of (q, t) with k outputs (0, > 0 outside the domain, < 0 failure). */
typedef int (*chk_fn)(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out);

struct chk {
  const CHSProblemOps *ops;
  void *data;
  const CHSProblemDims *d;
  const CHSCheckOptions *o;
  CHSCheckReport *rep;
  sunindextype n, m, gsize, msize, kmax;
  int timed;
  sunrealtype qscale, pscale;
  uint64_t rng;
  /* the current point */
  int point;
  sunrealtype t, *q, *p, *q0, *p0;
  /* directions and coefficient vectors of the current comparison */
  sunrealtype *u, *z, *a, *b, *w;
  /* scratch */
  sunrealtype *xs, *R, *R2, *NZ, *fp, *fm, *D, *an, *G, *Gd, *Gd2, *M, *vn, *vm;
  sunindextype *colptr, *rowidx, *pos; /* CSC index of G's pattern (dense checks) */
  sunindextype *mark;
  int last_point[CHS_CHECK_MAX_ROWS];
  int skipped[CHS_CHECK_MAX_ROWS];
  sunrealtype worst[CHS_CHECK_MAX_ROWS]; /* largest error / tolerance so far */
};

/* ------------------------------------------------------------------ random numbers */

static uint64_t chk_next(chk *c) {
  uint64_t z = (c->rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* uniform in [-1, 1) */
static sunrealtype chk_uniform(chk *c) {
  return (sunrealtype)((double)(chk_next(c) >> 11) * 0x1.0p-52 - 1.0);
}

static void chk_random(chk *c, sunrealtype *x, sunindextype k) {
  for (sunindextype i = 0; i < k; i++) {
    x[i] = chk_uniform(c);
  }
}

static sunrealtype chk_maxabs(const sunrealtype *x, sunindextype k) {
  sunrealtype s = 0;
  for (sunindextype i = 0; i < k; i++) {
    s = fmax(s, fabs(x[i]));
  }
  return s;
}

/* ------------------------------------------------------------------ rows */

static int chk_row(chk *c, const char *name) {
  CHSCheckReport *r = c->rep;
  if (r->nrows >= CHS_CHECK_MAX_ROWS) {
    return CHS_CHECK_MAX_ROWS - 1; /* cannot happen: fewer checks than rows */
  }
  int i = r->nrows++;
  CHSCheckRow *row = &r->rows[i];
  memset(row, 0, sizeof *row);
  snprintf(row->name, sizeof row->name, "%s", name);
  row->verdict = CHS_CHECK_PASS;
  c->last_point[i] = -1;
  c->skipped[i] = 0;
  return i;
}

static void chk_skip(chk *c, int row, const char *fmt, const char *arg) {
  CHSCheckRow *r = &c->rep->rows[row];
  r->verdict = CHS_CHECK_SKIP;
  snprintf(r->detail, sizeof r->detail, fmt, arg ? arg : "");
}

static void chk_where(const chk *c, char *buf, size_t len) {
  if (c->point == 0) {
    snprintf(buf, len, "the initial state");
  } else if (c->timed) {
    snprintf(buf, len, "perturbed point %d (t = %.3g)", c->point, (double)c->t);
  } else {
    snprintf(buf, len, "perturbed point %d", c->point);
  }
}

static void chk_fail(chk *c, int row, const char *what) {
  CHSCheckRow *r = &c->rep->rows[row];
  if (r->verdict == CHS_CHECK_FAIL) {
    return; /* the first failure is the one reported */
  }
  char where[64];
  chk_where(c, where, sizeof where);
  r->verdict = CHS_CHECK_FAIL;
  snprintf(r->detail, sizeof r->detail, "%s at %s", what, where);
}

/* A callback's result: 0; > 0 outside its domain (the point is skipped); < 0 or non-finite
 * output: the row fails. */
static int chk_call(chk *c, int row, const char *name, int rc, const sunrealtype *out,
                    sunindextype k) {
  char what[128];
  if (rc < 0) {
    snprintf(what, sizeof what, "%s returned %d", name, rc);
    chk_fail(c, row, what);
    return rc;
  }
  if (rc > 0) {
    c->skipped[row]++;
    return rc;
  }
  if (out && !chs_all_finite(out, k)) {
    snprintf(what, sizeof what, "%s returned a non-finite value", name);
    chk_fail(c, row, what);
    return CHS_ERR_NONFINITE;
  }
  return 0;
}

/* Compare an analytic vector with finite differences (both length k): error, scale and the
 * tolerance from the FD error estimate est; extra: the size of the terms the analytic value
 * sums (its rounding) or the scale a declared-zero quantity is measured against. */
static void chk_compare(chk *c, int row, const sunrealtype *an, const sunrealtype *fd,
                        sunindextype k, sunrealtype est, sunrealtype extra, const char *what) {
  CHSCheckRow *r = &c->rep->rows[row];
  sunrealtype err = 0, ref = extra;
  sunindextype at = 0;
  for (sunindextype i = 0; i < k; i++) {
    sunrealtype e = fabs(an[i] - fd[i]);
    if (e > err || !(e == e)) {
      err = e;
      at = i;
    }
    ref = fmax(ref, fmax(fabs(an[i]), fabs(fd[i])));
  }
  sunrealtype tol = c->o->safety * est + 16 * CHK_UR * ref + DBL_MIN;
  sunrealtype scale = ref > 0 ? ref : 1;
  if (c->last_point[row] != c->point) {
    c->last_point[row] = c->point;
    r->points++;
  }
  sunrealtype rel = err / scale, ratio = err / tol;
  if (r->comparisons == 0 || rel > r->max_rel_err) {
    r->max_rel_err = rel;
  }
  /* the FD estimate and tolerance (relative) of the comparison nearest to failing */
  if (r->comparisons == 0 || ratio > c->worst[row]) {
    c->worst[row] = ratio;
    r->fd_err = est / scale;
    r->tol = tol / scale;
  }
  r->comparisons++;
  if (!(err <= tol)) {
    char buf[CHS_CHECK_DETAIL_LEN];
    char idx[32] = "";
    if (k > 1) {
      snprintf(idx, sizeof idx, "[%ld]", (long)at);
    }
    snprintf(buf, sizeof buf,
             "%s%s: callback %.10g, finite differences %.10g (error %.2e > tolerance %.2e)", what,
             idx, (double)an[at], (double)fd[at], (double)err, (double)tol);
    chk_fail(c, row, buf);
  }
}

/* ------------------------------------------------------------------ evaluations */

static void chk_time(chk *c, sunrealtype t) {
  if (c->timed) {
    c->ops->set_time(c->data, t);
  }
}

static int fn_V(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out) {
  chk_time(c, t);
  return c->ops->potential(c->data, q, out);
}
static int fn_F(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out) {
  chk_time(c, t);
  return c->ops->force(c->data, q, out);
}
static int fn_g(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out) {
  chk_time(c, t);
  return c->ops->constraint(c->data, q, out);
}
static int fn_G(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out) {
  chk_time(c, t);
  return c->ops->jacobian(c->data, q, out);
}
static int fn_Gd(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out) {
  chk_time(c, t);
  return c->ops->jacobian_dot(c->data, q, c->u, out);
}
static int fn_gt(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out) {
  chk_time(c, t);
  return c->ops->constraint_dt(c->data, q, out, NULL, NULL);
}

/* out = J x for J stored like G */
static void chk_jac_mv(const chk *c, const sunrealtype *J, const sunrealtype *x, sunrealtype *out) {
  const CHSProblemDims *d = c->d;
  for (sunindextype i = 0; i < c->m; i++) {
    sunrealtype s = 0;
    if (d->jac_kind == CHS_JAC_DENSE) {
      for (sunindextype j = 0; j < c->n; j++) {
        s += J[i * c->n + j] * x[j];
      }
    } else {
      for (sunindextype k = d->rowptr[i]; k < d->rowptr[i + 1]; k++) {
        s += J[k] * x[d->colind[k]];
      }
    }
    out[i] = s;
  }
}

/* out[0] = w^T Gdot(q, u) u */
static int fn_third(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out) {
  chk_time(c, t);
  int rc = c->ops->jacobian_dot(c->data, q, c->u, c->Gd2);
  if (rc == 0) {
    chk_jac_mv(c, c->Gd2, c->u, c->vm);
    sunrealtype s = 0;
    for (sunindextype i = 0; i < c->m; i++) {
      s += c->w[i] * c->vm[i];
    }
    out[0] = s;
  }
  return rc;
}

/* out = M x with M in the layout of CHSMassKind (CHS_MASS_CONFIG: dense or CSR) */
static void chk_mass_mv(const chk *c, const sunrealtype *M, const sunrealtype *x,
                        sunrealtype *out) {
  const CHSProblemDims *d = c->d;
  for (sunindextype i = 0; i < c->n; i++) {
    sunrealtype s = 0;
    if (d->mass_nnz > 0) {
      for (sunindextype k = d->mass_rowptr[i]; k < d->mass_rowptr[i + 1]; k++) {
        s += M[k] * x[d->mass_colind[k]];
      }
    } else {
      for (sunindextype j = 0; j < c->n; j++) {
        s += M[i * c->n + j] * x[j];
      }
    }
    out[i] = s;
  }
}

static int fn_Mb(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out) {
  chk_time(c, t);
  int rc = c->ops->mass_matrix(c->data, q, c->M);
  if (rc == 0) {
    chk_mass_mv(c, c->M, c->b, out);
  }
  return rc;
}
static int fn_aMb(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out) {
  int rc = fn_Mb(c, q, t, c->vn);
  if (rc == 0) {
    sunrealtype s = 0;
    for (sunindextype i = 0; i < c->n; i++) {
      s += c->a[i] * c->vn[i];
    }
    out[0] = s;
  }
  return rc;
}
static int fn_mg(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out) {
  chk_time(c, t);
  return c->ops->mass_grad(c->data, q, c->a, c->b, out);
}
static int fn_sigma(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out) {
  chk_time(c, t);
  return c->ops->kinetic_scale(c->data, q, out, c->vn);
}

/* ------------------------------------------------------------------ finite differences */

/* f(q + s dir, t) (dir != NULL) or f(q, t + s) (dir == NULL) into out (k values): 0, > 0
 * outside the domain or not finite (a singularity nearby), < 0 on a callback failure. */
static int chk_eval_at(chk *c, chk_fn fn, sunindextype k, const sunrealtype *dir, sunrealtype s,
                       sunrealtype *out) {
  int rc;
  if (dir) {
    for (sunindextype i = 0; i < c->n; i++) {
      c->xs[i] = c->q[i] + s * dir[i];
    }
    rc = fn(c, c->xs, c->t, out);
  } else {
    rc = fn(c, c->q, c->t + s, out);
  }
  if (rc == 0 && !chs_all_finite(out, k)) {
    rc = 1;
  }
  return rc;
}

/* The rounding noise of f along the line (max over the k outputs), after Moré and Wild,
 * "Estimating computational noise" (SIAM J. Sci. Comput. 33, 2011): at CHK_NOISE_PTS values
 * f(s_j), s_j = j eta, the differences of order r >= 3 of the smooth part are O(eta^r f^(r)),
 * far below the rounding at eta = 1e-6 of the step scale, while independent errors of RMS sigma
 * give E[(Delta^r f)^2] = C(2r, r) sigma^2. The largest of these estimates over r = 3 .. 6.
 * The rounding of f is that of the terms f sums, which can be far larger than |f| (the pendulum's
 * g = (x^2 + y^2 - L^2)/2 near the circle, a^T M b with random signs): |f| alone cannot bound
 * it. 0, > 0 when a value is outside the domain, < 0 on a callback failure. */
static int chk_noise(chk *c, chk_fn fn, sunindextype k, const sunrealtype *dir, sunrealtype eta,
                     sunrealtype *noise) {
  sunrealtype *V = c->NZ;
  for (int j = 0; j < CHK_NOISE_PTS; j++) {
    int rc = chk_eval_at(c, fn, k, dir, (j - CHK_NOISE_HALF) * eta, V + (size_t)j * (size_t)k);
    if (rc != 0) {
      return rc;
    }
  }
  sunrealtype worst = 0;
  for (sunindextype i = 0; i < k; i++) {
    sunrealtype d[CHK_NOISE_PTS];
    for (int j = 0; j < CHK_NOISE_PTS; j++) {
      d[j] = V[(size_t)j * (size_t)k + (size_t)i];
    }
    sunrealtype binom = 2; /* C(2r, r) for r = 1 */
    for (int r = 1; r < CHK_NOISE_PTS; r++) {
      sunrealtype ss = 0;
      for (int j = 0; j < CHK_NOISE_PTS - r; j++) {
        d[j] = d[j + 1] - d[j];
        ss += d[j] * d[j];
      }
      if (r > 1) {
        binom *= (sunrealtype)(2 * r) * (2 * r - 1) / ((sunrealtype)r * r);
      }
      if (r >= 3) {
        worst = fmax(worst, ss / ((CHK_NOISE_PTS - r) * binom));
      }
    }
  }
  *noise = sqrt(worst);
  return 0;
}

/* sum_l |c_l| h_min / h_l for the Richardson weights c_l of D_L = sum_l c_l D(h_l): an error of
 * at most e in each value of f gives at most this times e / h_min in D_L. */
static sunrealtype chk_amplification(int L) {
  sunrealtype W[CHK_MAX_LEVELS * CHK_MAX_LEVELS] = {0};
  for (int l = 0; l < L; l++) {
    W[l * L + l] = 1;
  }
  chs_richardson_central(W, L, L);
  sunrealtype a = 0;
  for (int l = 0; l < L; l++) {
    a += fabs(W[(L - 1) * L + l]) * ldexp(1, l - (L - 1));
  }
  return a;
}

/* D = d/ds f(q + s dir, t) (dir != NULL) or d/ds f(q, t + s) (dir == NULL) at s = 0 into c->D
 * (k values), by central differences at h, h/2, ..., extrapolated; the best of CHK_NCAND
 * starting steps. *est: the error estimate (max-norm): the difference of the last two
 * extrapolation levels (truncation) plus a bound of the rounding error of the differences, from
 * the measured noise of f and from |f| and the rounding of the perturbed point. 0, > 0 when no
 * step could be evaluated (outside the domain), < 0 on a callback failure. */
static int chk_fd(chk *c, chk_fn fn, sunindextype k, const sunrealtype *dir, sunrealtype *est) {
  int L = c->o->levels;
  sunrealtype dmax = dir ? chk_maxabs(dir, c->n) : 1;
  sunrealtype xabs = dir ? chk_maxabs(c->q, c->n) : fabs(c->t);
  sunrealtype base = dir ? c->qscale / (dmax > 0 ? dmax : 1) : fmax(1, fabs(c->t));
  static const sunrealtype cand[CHK_NCAND] = {1e-2, 1e-3, 1e-4};
  sunrealtype noise = 0, amp = chk_amplification(L);
  int nrc = chk_noise(c, fn, k, dir, base * CHK_NOISE_STEP, &noise);
  if (nrc != 0) {
    return nrc;
  }
  sunrealtype best = INFINITY;
  int last_rc = 1;
  for (int ci = 0; ci < CHK_NCAND; ci++) {
    sunrealtype h = base * cand[ci], fscale = 0;
    int rc = 0;
    for (int l = 0; l < L && rc == 0; l++, h /= 2) {
      for (int sgn = 0; sgn < 2 && rc == 0; sgn++) {
        sunrealtype *out = sgn ? c->fm : c->fp;
        rc = chk_eval_at(c, fn, k, dir, sgn ? -h : h, out);
        if (rc == 0) {
          fscale = fmax(fscale, chk_maxabs(out, k));
        }
      }
      if (rc == 0) {
        for (sunindextype i = 0; i < k; i++) {
          c->R[l * k + i] = (c->fp[i] - c->fm[i]) / (2 * h);
        }
      }
    }
    h *= 2; /* the last step used */
    if (rc < 0) {
      return rc;
    }
    if (rc > 0) {
      last_rc = rc;
      continue;
    }
    memcpy(c->R2, c->R, (size_t)((L - 1) * k) * sizeof *c->R);
    chs_richardson_central(c->R, L, k);
    chs_richardson_central(c->R2, L - 1, k);
    const sunrealtype *DL = c->R + (L - 1) * k, *DL1 = c->R2 + (L - 2) * k;
    sunrealtype trunc = 0, dn = chk_maxabs(DL, k);
    for (sunindextype i = 0; i < k; i++) {
      trunc = fmax(trunc, fabs(DL[i] - DL1[i]));
    }
    sunrealtype round = (8 * CHK_UR * (fscale + xabs * dn) + amp * CHK_NOISE_BOUND * noise) / h;
    sunrealtype e = trunc + round;
    if (e == e && e < best) {
      best = e;
      memcpy(c->D, DL, (size_t)k * sizeof *c->D);
    }
  }
  if (!(best < INFINITY)) {
    return last_rc > 0 ? last_rc : 1;
  }
  *est = best;
  return 0;
}

/* FD of fn, k outputs, along dir (NULL: time) into c->D; a row's bookkeeping for the result:
 * 0 compared next, > 0 skipped, < 0 failed (recorded). */
static int chk_fd_row(chk *c, int row, const char *name, chk_fn fn, sunindextype k,
                      const sunrealtype *dir, sunrealtype *est) {
  int rc = chk_fd(c, fn, k, dir, est);
  if (rc > 0) {
    c->skipped[row]++;
  } else if (rc < 0) {
    char what[128];
    snprintf(what, sizeof what, "%s failed (%d) near the point", name, rc);
    chk_fail(c, row, what);
  }
  return rc;
}

/* grad (n, analytic) against the gradient of the scalar fn (times sign): coordinate by
 * coordinate when n <= dense_max, else along random directions. */
static void chk_gradient(chk *c, int row, const char *name, chk_fn fn, sunrealtype sign,
                         const sunrealtype *grad, const char *what) {
  sunindextype n = c->n;
  int dense = n <= c->o->dense_max;
  sunindextype ndir = dense ? n : c->o->directions;
  sunrealtype gscale = chk_maxabs(grad, n); /* an entry is measured against the gradient */
  char buf[96];
  for (sunindextype j = 0; j < ndir; j++) {
    sunrealtype an, extra = 0, est;
    if (dense) {
      memset(c->z, 0, (size_t)n * sizeof *c->z);
      c->z[j] = 1;
      an = grad[j];
      extra = gscale;
      snprintf(buf, sizeof buf, "%s, entry %ld: ", what, (long)j);
    } else {
      chk_random(c, c->z, n);
      an = 0;
      for (sunindextype i = 0; i < n; i++) {
        an += grad[i] * c->z[i];
        extra += fabs(grad[i] * c->z[i]);
      }
      snprintf(buf, sizeof buf, "%s along random direction %ld: ", what, (long)j);
    }
    if (chk_fd_row(c, row, name, fn, 1, c->z, &est) != 0) {
      if (c->rep->rows[row].verdict == CHS_CHECK_FAIL) {
        return;
      }
      continue;
    }
    sunrealtype fd = sign * c->D[0];
    size_t len = strlen(buf);
    if (len > 2) {
      buf[len - 2] = '\0';
    }
    chk_compare(c, row, &an, &fd, 1, est, extra, buf);
  }
}

/* ------------------------------------------------------------------ the checks at one point */

static void chk_force(chk *c, int row) {
  sunrealtype *F = c->an + c->kmax; /* second half of an: see allocation */
  if (chk_call(c, row, "force", fn_F(c, c->q, c->t, F), F, c->n) != 0) {
    return;
  }
  sunrealtype V;
  if (chk_call(c, row, "potential", fn_V(c, c->q, c->t, &V), &V, 1) != 0) {
    return;
  }
  chk_gradient(c, row, "potential", fn_V, -1, F, "F vs -grad V");
}

static void chk_jacobian(chk *c, int row, int prow) {
  sunindextype n = c->n, m = c->m;
  const CHSProblemDims *d = c->d;
  if (chk_call(c, row, "constraint", fn_g(c, c->q, c->t, c->vm), c->vm, m) != 0 ||
      chk_call(c, row, "jacobian", fn_G(c, c->q, c->t, c->G), c->G, c->gsize) != 0) {
    return;
  }
  sunrealtype est;
  char what[64];
  if (n > c->o->dense_max) {
    for (int r = 0; r < c->o->directions; r++) {
      chk_random(c, c->u, n);
      chk_jac_mv(c, c->G, c->u, c->an);
      if (chk_fd_row(c, row, "constraint", fn_g, m, c->u, &est) != 0) {
        if (c->rep->rows[row].verdict == CHS_CHECK_FAIL) {
          return;
        }
        continue;
      }
      snprintf(what, sizeof what, "G u along random direction %d", r);
      chk_compare(c, row, c->an, c->D, m, est, 0, what);
    }
    return;
  }
  for (sunindextype j = 0; j < n; j++) {
    memset(c->u, 0, (size_t)n * sizeof *c->u);
    c->u[j] = 1;
    /* column j of G and its pattern */
    if (d->jac_kind == CHS_JAC_DENSE) {
      for (sunindextype i = 0; i < m; i++) {
        c->an[i] = c->G[i * n + j];
        c->mark[i] = j + 1;
      }
    } else {
      memset(c->an, 0, (size_t)m * sizeof *c->an);
      for (sunindextype k = c->colptr[j]; k < c->colptr[j + 1]; k++) {
        c->an[c->rowidx[k]] += c->G[c->pos[k]];
        c->mark[c->rowidx[k]] = j + 1;
      }
    }
    if (chk_fd_row(c, row, "constraint", fn_g, m, c->u, &est) != 0) {
      if (c->rep->rows[row].verdict == CHS_CHECK_FAIL) {
        return;
      }
      continue;
    }
    /* in the pattern: G against the differences; outside: the differences against 0 */
    for (sunindextype i = 0; i < m; i++) {
      int in = c->mark[i] == j + 1;
      c->fp[i] = in ? 0 : c->D[i];
      c->fm[i] = 0;
      if (!in) {
        c->D[i] = c->an[i];
      }
    }
    sunrealtype gscale = chk_maxabs(c->G, c->gsize); /* an entry against the matrix */
    snprintf(what, sizeof what, "G(:,%ld) vs dg/dq_%ld", (long)j, (long)j);
    chk_compare(c, row, c->an, c->D, m, est, gscale, what);
    if (d->jac_kind == CHS_JAC_CSR) {
      snprintf(what, sizeof what, "dg/dq_%ld outside the CSR pattern of G, row", (long)j);
      chk_compare(c, prow, c->fm, c->fp, m, est, gscale, what);
    }
  }
}

static void chk_gdot(chk *c, int row) {
  sunrealtype est;
  char what[64];
  for (int r = 0; r < c->o->directions; r++) {
    chk_random(c, c->u, c->n);
    if (chk_call(c, row, "jacobian_dot", fn_Gd(c, c->q, c->t, c->an), c->an, c->gsize) != 0) {
      return;
    }
    if (chk_fd_row(c, row, "jacobian", fn_G, c->gsize, c->u, &est) != 0) {
      if (c->rep->rows[row].verdict == CHS_CHECK_FAIL) {
        return;
      }
      continue;
    }
    snprintf(what, sizeof what, "Gdot(q,u) vs dG/de(q+e u), u random %d, value", r);
    chk_compare(c, row, c->an, c->D, c->gsize, est, 0, what);
  }
}

/* hessian_potential against -dF; declared: dF = 0; hint (row < 0): max |dF| / scale */
static void chk_hessian(chk *c, int row, int declared_row) {
  sunrealtype est;
  char what[64];
  sunrealtype *F = c->an + c->kmax;
  for (int r = 0; r < c->o->directions; r++) {
    chk_random(c, c->u, c->n);
    if (row >= 0) {
      if (chk_call(c, row, "hessian_potential",
                   c->ops->hessian_potential(c->data, c->q, c->u, c->an), c->an, c->n) != 0) {
        return;
      }
      if (chk_fd_row(c, row, "force", fn_F, c->n, c->u, &est) != 0) {
        if (c->rep->rows[row].verdict == CHS_CHECK_FAIL) {
          return;
        }
        continue;
      }
      for (sunindextype i = 0; i < c->n; i++) {
        c->D[i] = -c->D[i];
      }
      snprintf(what, sizeof what, "H u vs -dF/de(q+e u), u random %d, entry", r);
      chk_compare(c, row, c->an, c->D, c->n, est, 0, what);
    }
    if (declared_row >= 0) {
      chk_time(c, c->t);
      if (chk_call(c, declared_row, "force", fn_F(c, c->q, c->t, F), F, c->n) != 0) {
        return;
      }
      if (chk_fd_row(c, declared_row, "force", fn_F, c->n, c->u, &est) != 0) {
        if (c->rep->rows[declared_row].verdict == CHS_CHECK_FAIL) {
          return;
        }
        continue;
      }
      memset(c->fm, 0, (size_t)c->n * sizeof *c->fm);
      snprintf(what, sizeof what, "dF/de(q+e u) (must vanish), u random %d, entry", r);
      chk_compare(c, declared_row, c->fm, c->D, c->n, est, chk_maxabs(F, c->n) / c->qscale, what);
    }
  }
}

static void chk_third(chk *c, int row, int declared_row) {
  sunrealtype est;
  char what[80];
  if (row >= 0) {
    int npairs = c->n <= c->o->dense_max ? 1 : c->o->directions;
    for (int r = 0; r < npairs; r++) {
      chk_random(c, c->u, c->n);
      chk_random(c, c->w, c->m);
      sunrealtype *T = c->an + c->kmax;
      chk_time(c, c->t);
      if (chk_call(c, row, "constraint_third",
                   c->ops->constraint_third(c->data, c->q, c->u, c->w, T), T, c->n) != 0) {
        return;
      }
      snprintf(what, sizeof what, "third(q,u,w) vs grad (w^T Gdot(q,u) u), u, w random %d", r);
      chk_gradient(c, row, "jacobian_dot", fn_third, 1, T, what);
    }
  }
  if (declared_row >= 0) {
    for (int r = 0; r < c->o->directions; r++) {
      chk_random(c, c->u, c->n);
      chk_random(c, c->z, c->n);
      if (chk_call(c, declared_row, "jacobian_dot", fn_Gd(c, c->q, c->t, c->an), c->an, c->gsize) !=
          0) {
        return;
      }
      sunrealtype scale = chk_maxabs(c->an, c->gsize) / c->qscale;
      if (chk_fd_row(c, declared_row, "jacobian_dot", fn_Gd, c->gsize, c->z, &est) != 0) {
        if (c->rep->rows[declared_row].verdict == CHS_CHECK_FAIL) {
          return;
        }
        continue;
      }
      memset(c->fm, 0, (size_t)c->gsize * sizeof *c->fm);
      snprintf(what, sizeof what, "dGdot(q+e z,u)/de (must vanish), u, z random %d, value", r);
      chk_compare(c, declared_row, c->fm, c->D, c->gsize, est, scale, what);
    }
  }
}

static void chk_kinetic_scale(chk *c, int row) {
  sunrealtype sigma, *grad = c->an + c->kmax;
  chk_time(c, c->t);
  if (chk_call(c, row, "kinetic_scale", c->ops->kinetic_scale(c->data, c->q, &sigma, grad), grad,
               c->n) != 0 ||
      chk_call(c, row, "kinetic_scale", 0, &sigma, 1) != 0) {
    return;
  }
  chk_gradient(c, row, "kinetic_scale", fn_sigma, 1, grad, "grad_sigma vs grad sigma");
}

static void chk_mass(chk *c, int drow, int grow) {
  sunrealtype est;
  char what[80];
  sunindextype n = c->n;
  for (int r = 0; r < c->o->directions; r++) {
    chk_random(c, c->u, n);
    chk_random(c, c->b, n);
    chk_time(c, c->t);
    if (chk_call(c, drow, "mass_dir", c->ops->mass_dir(c->data, c->q, c->u, c->b, c->an), c->an,
                 n) != 0) {
      return;
    }
    if (chk_fd_row(c, drow, "mass_matrix", fn_Mb, n, c->u, &est) != 0) {
      if (c->rep->rows[drow].verdict == CHS_CHECK_FAIL) {
        return;
      }
      continue;
    }
    snprintf(what, sizeof what, "M'(q;u) b vs d(M(q+e u) b)/de, u, b random %d, entry", r);
    chk_compare(c, drow, c->an, c->D, n, est, 0, what);
  }
  int npairs = n <= c->o->dense_max ? 1 : c->o->directions;
  for (int r = 0; r < npairs; r++) {
    chk_random(c, c->a, n);
    chk_random(c, c->b, n);
    sunrealtype *Gr = c->an + c->kmax;
    chk_time(c, c->t);
    if (chk_call(c, grow, "mass_grad", c->ops->mass_grad(c->data, c->q, c->a, c->b, Gr), Gr, n) !=
        0) {
      return;
    }
    snprintf(what, sizeof what, "mass_grad(q,a,b) vs grad (a^T M(q) b), a, b random %d", r);
    chk_gradient(c, grow, "mass_matrix", fn_aMb, 1, Gr, what);
  }
}

/* mass_grad_dir(q, u, a, b) against d/de mass_grad(q + e u, a, b), u, a, b random */
static void chk_mass_grad_dir(chk *c, int row) {
  sunrealtype est;
  char what[80];
  sunindextype n = c->n;
  for (int r = 0; r < c->o->directions; r++) {
    chk_random(c, c->u, n);
    chk_random(c, c->a, n);
    chk_random(c, c->b, n);
    chk_time(c, c->t);
    if (chk_call(c, row, "mass_grad_dir",
                 c->ops->mass_grad_dir(c->data, c->q, c->u, c->a, c->b, c->an), c->an, n) != 0) {
      return;
    }
    if (chk_fd_row(c, row, "mass_grad", fn_mg, n, c->u, &est) != 0) {
      if (c->rep->rows[row].verdict == CHS_CHECK_FAIL) {
        return;
      }
      continue;
    }
    snprintf(what, sizeof what,
             "mass_grad_dir vs d mass_grad(q+e u,a,b)/de, u, a, b random %d, "
             "entry",
             r);
    chk_compare(c, row, c->an, c->D, n, est, 0, what);
  }
}

static void chk_time_derivs(chk *c, int crow, int vrow) {
  sunrealtype est;
  sunindextype m = c->m;
  if (crow >= 0) {
    sunrealtype *gt = c->an, *gtt = c->an + m, *Gt = c->an + c->kmax;
    chk_time(c, c->t);
    int rc = c->ops->constraint_dt(c->data, c->q, gt, Gt, gtt);
    if (chk_call(c, crow, "constraint_dt", rc, gt, 2 * m) == 0 &&
        chk_call(c, crow, "constraint_dt (Gt)", rc, Gt, c->gsize) == 0) {
      if (chk_fd_row(c, crow, "constraint", fn_g, m, NULL, &est) == 0) {
        chk_compare(c, crow, gt, c->D, m, est, 0, "gt vs dg/dt, entry");
      }
      if (chk_fd_row(c, crow, "jacobian", fn_G, c->gsize, NULL, &est) == 0) {
        chk_compare(c, crow, Gt, c->D, c->gsize, est, 0, "Gt vs dG/dt, value");
      }
      if (chk_fd_row(c, crow, "constraint_dt", fn_gt, m, NULL, &est) == 0) {
        chk_compare(c, crow, gtt, c->D, m, est, 0, "gtt vs d(gt)/dt, entry");
      }
    }
  }
  if (vrow >= 0) {
    sunrealtype Vt;
    chk_time(c, c->t);
    if (chk_call(c, vrow, "potential_dt", c->ops->potential_dt(c->data, c->q, &Vt), &Vt, 1) == 0 &&
        chk_fd_row(c, vrow, "potential", fn_V, 1, NULL, &est) == 0) {
      chk_compare(c, vrow, &Vt, c->D, 1, est, 0, "Vt vs dV/dt");
    }
  }
}

/* Values only (no derivative to compare): finite at every point. */
static void chk_counted(chk *c, int row) {
  CHSCheckRow *r = &c->rep->rows[row];
  r->comparisons++;
  if (c->last_point[row] != c->point) {
    c->last_point[row] = c->point;
    r->points++;
  }
}

static void chk_values(chk *c, int frow, int irow, int erow) {
  sunrealtype *out = c->an;
  chk_time(c, c->t);
  if (frow >= 0) {
    chk_call(c, frow, "nonconservative_force",
             c->ops->nonconservative_force(c->data, c->q, c->p, out), out, c->n);
    chk_counted(c, frow);
  }
  if (irow >= 0) {
    int k = 0;
    while (c->ops->invariant_names[k]) {
      k++;
    }
    chk_call(c, irow, "invariants", c->ops->invariants(c->data, c->q, c->p, out), out, k);
    chk_counted(c, irow);
  }
  if (erow >= 0) {
    int k = 0;
    while (c->ops->event_names[k]) {
      k++;
    }
    chk_call(c, erow, "events", c->ops->events(c->data, c->t, c->q, c->p, out), out, k);
    chk_counted(c, erow);
  }
}

/* The initial state's residuals |g| and |G M^{-1} p| against CHS_CONSISTENCY_TOL (the scales of
 * src/problem.c). */
static void chk_initial(chk *c, int row) {
  sunindextype n = c->n, m = c->m;
  const CHSProblemDims *d = c->d;
  CHSCheckReport *rep = c->rep;
  sunrealtype *v = c->vn;
  chk_time(c, 0);
  if (chk_call(c, row, "constraint", c->ops->constraint(c->data, c->q, c->vm), c->vm, m) != 0 ||
      chk_call(c, row, "jacobian", c->ops->jacobian(c->data, c->q, c->G), c->G, c->gsize) != 0) {
    return;
  }
  rep->init_pos_res = chs_norm2(c->vm, m);
  /* v = M^{-1} p */
  int solved = 1;
  if (d->mass_kind == CHS_MASS_IDENTITY || !d->mass) {
    memcpy(v, c->p, (size_t)n * sizeof *v);
    solved = d->mass_kind != CHS_MASS_CONFIG;
  } else if (d->mass_kind == CHS_MASS_DIAGONAL) {
    for (sunindextype i = 0; i < n; i++) {
      v[i] = c->p[i] / d->mass[i];
    }
  } else {
    solved = 0;
  }
  if (!solved && n <= c->o->dense_max) { /* dense or configuration-dependent M: Cholesky */
    sunrealtype *A = malloc((size_t)(n * n) * sizeof *A);
    if (A) {
      int rc = 0;
      if (d->mass_kind == CHS_MASS_CONFIG) {
        rc = c->ops->mass_matrix(c->data, c->q, c->M);
        if (rc == 0 && d->mass_nnz > 0) {
          memset(A, 0, (size_t)(n * n) * sizeof *A);
          for (sunindextype i = 0; i < n; i++) {
            for (sunindextype k = d->mass_rowptr[i]; k < d->mass_rowptr[i + 1]; k++) {
              A[i * n + d->mass_colind[k]] = c->M[k];
            }
          }
        } else if (rc == 0) {
          memcpy(A, c->M, (size_t)(n * n) * sizeof *A);
        }
      } else {
        memcpy(A, d->mass, (size_t)(n * n) * sizeof *A);
      }
      memcpy(v, c->p, (size_t)n * sizeof *v);
      int nn = (int)n, one = 1, info = 0;
      if (rc == 0) {
        dposv_("L", &nn, &one, A, &nn, v, &nn, &info);
        solved = info == 0;
      }
      free(A);
    }
  }
  sunrealtype qn = chs_norm2(c->q, n), vn = chs_norm2(v, n);
  sunrealtype gtol = CHS_CONSISTENCY_TOL * fmax(1, qn * qn);
  sunrealtype ptol = CHS_CONSISTENCY_TOL * fmax(1, qn * vn);
  CHSCheckRow *r = &rep->rows[row];
  r->points = 1;
  r->comparisons = 1;
  r->max_rel_err = rep->init_pos_res / fmax(1, qn * qn);
  r->tol = CHS_CONSISTENCY_TOL;
  char what[CHS_CHECK_DETAIL_LEN];
  if (solved) {
    chk_jac_mv(c, c->G, v, c->an); /* psi = G M^{-1} p + g_t at t = 0 */
    if ((d->time_dependent & CHS_TIME_CONSTRAINTS) && c->ops->set_time && c->ops->constraint_dt) {
      sunrealtype *gt = calloc((size_t)m, sizeof *gt);
      if (gt && c->ops->set_time(c->data, 0) == 0 &&
          c->ops->constraint_dt(c->data, c->q, gt, NULL, NULL) == 0) {
        for (sunindextype i = 0; i < m; i++) {
          c->an[i] += gt[i];
        }
      }
      free(gt);
    }
    rep->init_mom_res = chs_norm2(c->an, m);
    r->max_rel_err = fmax(r->max_rel_err, rep->init_mom_res / fmax(1, qn * vn));
  } else {
    rep->init_mom_res = NAN;
  }
  if (rep->init_pos_res > gtol || (solved && rep->init_mom_res > ptol)) {
    snprintf(what, sizeof what,
             "off the constraint manifold: |g| = %.3e (tolerance %.1e), |psi| = %.3e "
             "(tolerance %.1e)",
             (double)rep->init_pos_res, (double)gtol, (double)rep->init_mom_res, (double)ptol);
    r->verdict = CHS_CHECK_FAIL;
    snprintf(r->detail, sizeof r->detail, "%s", what);
  } else {
    snprintf(r->detail, sizeof r->detail, "|g| = %.2e, |psi| = |G M^-1 p + g_t| = %.2e%s",
             (double)rep->init_pos_res, (double)rep->init_mom_res,
             solved ? "" : " (not computed: M too large)");
  }
}

/* ------------------------------------------------------------------ needed derivatives */

const char *chs_missing_derivative(CHSProblem prob, unsigned need) {
  const CHSProblemOps *ops = CHSProblem_GetOps(prob);
  unsigned declares = CHSProblem_GetDims(prob)->declares;
  if ((need & CHS_NEED_HESSIAN) && !ops->hessian_potential &&
      !(declares & CHS_DECLARE_LINEAR_POTENTIAL)) {
    return "hessian_potential";
  }
  if ((need & CHS_NEED_THIRD) && !ops->constraint_third &&
      !(declares & CHS_DECLARE_QUADRATIC_CONSTRAINTS)) {
    return "constraint_third";
  }
  return NULL;
}

int chs_require_derivatives(CHSProblem prob, unsigned need, const char *who, CHSError *err) {
  const char *miss = chs_missing_derivative(prob, need);
  if (!miss) {
    return CHS_SUCCESS;
  }
  int hess = strcmp(miss, "hessian_potential") == 0;
  return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                       "%s needs %s: problem '%s' does not supply it and does not declare %s "
                       "(dims.declares |= %s; `chs check` verifies it)",
                       who, miss, CHSProblem_GetName(prob),
                       hess ? "V at most linear" : "g at most quadratic",
                       hess ? "CHS_DECLARE_LINEAR_POTENTIAL" : "CHS_DECLARE_QUADRATIC_CONSTRAINTS");
}

int chs_hessian_v(const CHSSystem *s, const sunrealtype *q, const sunrealtype *u, sunrealtype *Hu) {
  sunindextype n = s->n;
  int rc = 0;
  if (s->ops->hessian_potential) {
    rc = s->ops->hessian_potential(s->data, q, u, Hu);
  } else if (s->prob->dims.declares & CHS_DECLARE_LINEAR_POTENTIAL) {
    memset(Hu, 0, (size_t)n * sizeof *Hu);
  } else { /* Hu = -(F(q + h u) - F(q - h u)) / (2 h), h ~ u^(1/3) |q| / |u| */
    sunrealtype *x = malloc(2 * (size_t)n * sizeof *x);
    if (!x) {
      return CHS_ERR_MEM;
    }
    sunrealtype *Fm = x + n, un = chk_maxabs(u, n);
    if (un == 0) {
      memset(Hu, 0, (size_t)n * sizeof *Hu);
      free(x);
      return 0;
    }
    sunrealtype h = cbrt(CHK_UR) * fmax(1, chk_maxabs(q, n)) / un;
    for (sunindextype i = 0; i < n && rc == 0; i++) {
      x[i] = q[i] + h * u[i];
    }
    rc = s->ops->force(s->data, x, Hu);
    for (sunindextype i = 0; i < n && rc == 0; i++) {
      x[i] = q[i] - h * u[i];
    }
    if (rc == 0) {
      rc = s->ops->force(s->data, x, Fm);
    }
    for (sunindextype i = 0; i < n && rc == 0; i++) {
      Hu[i] = (Fm[i] - Hu[i]) / (2 * h);
    }
    free(x);
  }
  return rc == 0 ? 0 : (rc > 0 ? CHS_RECOVERABLE : CHS_ERR_CALLBACK);
}

/* ------------------------------------------------------------------ driver */

static void chk_free(chk *c) {
  sunrealtype *bufs[] = {c->q,  c->u, c->xs, c->R,   c->R2, c->NZ, c->fp, c->fm, c->D,
                         c->an, c->G, c->Gd, c->Gd2, c->M,  c->vn, c->vm, c->w};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) {
    free(bufs[i]);
  }
  free(c->colptr);
  free(c->mark);
}

static int chk_alloc(chk *c) {
  sunindextype n = c->n, m = c->m, K = c->kmax;
  int L = c->o->levels;
  size_t sz = sizeof(sunrealtype);
  c->q = calloc(4 * (size_t)n, sz);
  c->u = calloc(4 * (size_t)n, sz);
  c->xs = calloc((size_t)n, sz);
  c->R = calloc((size_t)L * (size_t)K, sz);
  c->R2 = calloc((size_t)L * (size_t)K, sz);
  c->NZ = calloc(CHK_NOISE_PTS * (size_t)K, sz);
  c->fp = calloc((size_t)K, sz);
  c->fm = calloc((size_t)K, sz);
  c->D = calloc((size_t)K, sz);
  c->an = calloc(2 * (size_t)K, sz);
  c->G = calloc((size_t)c->gsize, sz);
  c->Gd = calloc((size_t)c->gsize, sz);
  c->Gd2 = calloc((size_t)c->gsize, sz);
  c->M = calloc(c->msize > 0 ? (size_t)c->msize : 1, sz);
  c->vn = calloc((size_t)n, sz);
  c->vm = calloc((size_t)m, sz);
  c->w = calloc((size_t)m, sz);
  c->mark = calloc((size_t)m, sizeof *c->mark);
  if (!c->q || !c->u || !c->xs || !c->R || !c->R2 || !c->NZ || !c->fp || !c->fm || !c->D ||
      !c->an || !c->G || !c->Gd || !c->Gd2 || !c->M || !c->vn || !c->vm || !c->w || !c->mark) {
    return CHS_ERR_MEM;
  }
  c->p = c->q + n;
  c->q0 = c->p + n;
  c->p0 = c->q0 + n;
  c->z = c->u + n;
  c->a = c->z + n;
  c->b = c->a + n;
  if (c->d->jac_kind == CHS_JAC_CSR && n <= c->o->dense_max) { /* CSC index of the pattern */
    sunindextype nnz = c->d->nnz;
    c->colptr = calloc((size_t)(n + 1) + 2 * (size_t)nnz, sizeof *c->colptr);
    if (!c->colptr) {
      return CHS_ERR_MEM;
    }
    c->rowidx = c->colptr + n + 1;
    c->pos = c->rowidx + nnz;
    for (sunindextype k = 0; k < nnz; k++) {
      c->colptr[c->d->colind[k] + 1]++;
    }
    for (sunindextype j = 0; j < n; j++) {
      c->colptr[j + 1] += c->colptr[j];
    }
    for (sunindextype i = 0; i < c->m; i++) {
      for (sunindextype k = c->d->rowptr[i]; k < c->d->rowptr[i + 1]; k++) {
        sunindextype j = c->d->colind[k];
        sunindextype slot = c->colptr[j]++;
        c->rowidx[slot] = i;
        c->pos[slot] = k;
      }
    }
    for (sunindextype j = n; j > 0; j--) { /* colptr[j] was advanced to colptr[j+1] */
      c->colptr[j] = c->colptr[j - 1];
    }
    c->colptr[0] = 0;
  }
  return 0;
}

static void chk_finish_rows(chk *c) {
  CHSCheckReport *rep = c->rep;
  rep->n_fail = rep->n_pass = rep->n_skip = 0;
  for (int i = 0; i < rep->nrows; i++) {
    CHSCheckRow *r = &rep->rows[i];
    if (r->verdict == CHS_CHECK_PASS && r->comparisons == 0) {
      r->verdict = CHS_CHECK_SKIP;
      if (!r->detail[0]) {
        snprintf(r->detail, sizeof r->detail,
                 "no point could be evaluated (every step left the callback's domain)");
      }
    } else if (r->verdict == CHS_CHECK_PASS && !r->detail[0]) {
      snprintf(r->detail, sizeof r->detail, "%ld comparisons at %d points%s", r->comparisons,
               r->points, c->skipped[i] ? " (some points outside the domain)" : "");
    }
    rep->n_fail += r->verdict == CHS_CHECK_FAIL;
    rep->n_pass += r->verdict == CHS_CHECK_PASS;
    rep->n_skip += r->verdict == CHS_CHECK_SKIP;
  }
}

int CHSProblem_Check(CHSProblem prob, const CHSCheckOptions *opt, CHSCheckReport *rep,
                     CHSError *err) {
  CHSCheckOptions defaults;
  CHSCheckOptions_Default(&defaults);
  if (!opt) {
    opt = &defaults;
  }
  if (!prob || !rep) {
    return chs_error_set(err, CHS_ERR_ARG, "CHSProblem_Check: NULL argument");
  }
  memset(rep, 0, sizeof *rep);
  if (opt->points < 0 || opt->points > 10000) {
    return chs_error_set(err, CHS_ERR_ARG, "CHSProblem_Check: points = %d not in [0, 10000]",
                         opt->points);
  }
  if (opt->directions < 1 || opt->directions > 1000) {
    return chs_error_set(err, CHS_ERR_ARG, "CHSProblem_Check: directions = %d not in [1, 1000]",
                         opt->directions);
  }
  if (opt->levels < 2 || opt->levels > CHK_MAX_LEVELS) {
    return chs_error_set(err, CHS_ERR_ARG, "CHSProblem_Check: levels = %d not in [2, %d]",
                         opt->levels, CHK_MAX_LEVELS);
  }
  if (!(opt->safety >= 1) || !isfinite(opt->safety)) {
    return chs_error_set(err, CHS_ERR_ARG, "CHSProblem_Check: safety = %g must be >= 1",
                         (double)opt->safety);
  }
  if (!(opt->perturb >= 0) || !isfinite(opt->perturb)) {
    return chs_error_set(err, CHS_ERR_ARG, "CHSProblem_Check: perturb = %g must be >= 0",
                         (double)opt->perturb);
  }
  if (opt->dense_max < 0) {
    return chs_error_set(err, CHS_ERR_ARG, "CHSProblem_Check: dense_max = %ld must be >= 0",
                         (long)opt->dense_max);
  }
  chk C, *c = &C;
  memset(c, 0, sizeof *c);
  c->ops = CHSProblem_GetOps(prob);
  c->data = CHSProblem_GetData(prob);
  c->d = CHSProblem_GetDims(prob);
  c->o = opt;
  c->rep = rep;
  const CHSProblemOps *ops = c->ops;
  const CHSProblemDims *d = c->d;
  c->n = d->n;
  c->m = d->m;
  c->gsize = d->jac_kind == CHS_JAC_CSR ? d->nnz : d->n * d->m;
  int config = d->mass_kind == CHS_MASS_CONFIG && ops->mass_matrix;
  c->msize = config ? (d->mass_nnz > 0 ? d->mass_nnz : d->n * d->n) : 0;
  c->kmax = c->n;
  c->kmax = c->gsize > c->kmax ? c->gsize : c->kmax;
  c->kmax = 2 * c->m > c->kmax ? 2 * c->m : c->kmax;
  c->kmax =
      c->kmax < CHS_MAX_INVARIANTS + CHS_MAX_EVENTS ? CHS_MAX_INVARIANTS + CHS_MAX_EVENTS : c->kmax;
  c->timed = d->time_dependent != 0 && ops->set_time != NULL;
  c->rng = (uint64_t)opt->seed;
  if (chk_alloc(c) != 0) {
    chk_free(c);
    return chs_error_set(err, CHS_ERR_MEM, "CHSProblem_Check: out of memory (n = %ld)", (long)c->n);
  }
  sunindextype n = c->n;

  /* rows, in the order of the report */
  int r_init = chk_row(c, "initial state");
  int r_force = chk_row(c, "force");
  int r_G = chk_row(c, "jacobian");
  int r_pat = chk_row(c, "jacobian pattern");
  int r_Gd = chk_row(c, "jacobian_dot");
  int r_H = chk_row(c, "hessian_potential");
  int r_T = chk_row(c, "constraint_third");
  int lin = (d->declares & CHS_DECLARE_LINEAR_POTENTIAL) != 0;
  int quad = (d->declares & CHS_DECLARE_QUADRATIC_CONSTRAINTS) != 0;
  int r_lin = lin ? chk_row(c, "declared linear potential") : -1;
  int r_quad = quad ? chk_row(c, "declared quadratic constraints") : -1;
  int r_ks = chk_row(c, "kinetic_scale");
  int r_md = chk_row(c, "mass_dir");
  int r_mg = chk_row(c, "mass_grad");
  int r_mgd = chk_row(c, "mass_grad_dir");
  int r_ct = chk_row(c, "constraint_dt");
  int r_vt = chk_row(c, "potential_dt");
  int r_fnc = ops->nonconservative_force ? chk_row(c, "nonconservative_force") : -1;
  int r_inv = CHSProblem_GetNumInvariants(prob) > 0 ? chk_row(c, "invariants") : -1;
  int r_ev = ops->event_names && ops->event_names[0] && ops->events ? chk_row(c, "events") : -1;

  if (d->jac_kind != CHS_JAC_CSR) {
    chk_skip(c, r_pat, "G is dense: no pattern%s", NULL);
  } else if (n > opt->dense_max) {
    chk_skip(c, r_pat,
             "n > dense_max: the entries are not checked one by one (jacobian's directional "
             "check also catches values outside the pattern)%s",
             NULL);
  }
  int do_H = ops->hessian_potential != NULL, do_T = ops->constraint_third != NULL;
  if (!do_H) {
    chk_skip(c, r_H,
             lin ? "not supplied: V declared linear (CHS_DECLARE_LINEAR_POTENTIAL)%s"
                 : "not supplied and V not declared linear: extended, total, the analytic "
                   "Jacobians and the exact tangent maps refuse this problem%s",
             NULL);
  }
  if (!do_T) {
    chk_skip(c, r_T,
             quad ? "not supplied: g declared quadratic (CHS_DECLARE_QUADRATIC_CONSTRAINTS)%s"
                  : "not supplied and g not declared quadratic: extended, total and the "
                    "analytic Jacobians refuse this problem%s",
             NULL);
  }
  int do_ks = d->kinetic_scaled && ops->kinetic_scale;
  if (!do_ks) {
    chk_skip(c, r_ks, "no kinetic scale%s", NULL);
  }
  int do_mass = config && ops->mass_dir && ops->mass_grad;
  if (!do_mass) {
    if (d->mass_kind == CHS_MASS_CONFIG) {
      c->rep->rows[r_md].verdict = CHS_CHECK_FAIL;
      snprintf(c->rep->rows[r_md].detail, CHS_CHECK_DETAIL_LEN,
               "CHS_MASS_CONFIG needs mass_matrix, mass_dir and mass_grad");
      c->rep->rows[r_mg] = c->rep->rows[r_md];
      snprintf(c->rep->rows[r_mg].name, CHS_CHECK_NAME_LEN, "mass_grad");
    } else {
      chk_skip(c, r_md, "constant mass matrix%s", NULL);
      chk_skip(c, r_mg, "constant mass matrix%s", NULL);
    }
  }
  int do_mgd = do_mass && ops->mass_grad_dir;
  if (!do_mgd) {
    chk_skip(c, r_mgd,
             d->mass_kind != CHS_MASS_CONFIG ? "constant mass matrix%s"
             : do_mass ? "not supplied: the analytic Jacobians refuse this M(q) problem%s"
                       : "no check without mass_matrix, mass_dir and mass_grad%s",
             NULL);
  }
  int do_ct = 0, do_vt = 0;
  if (d->time_dependent && !ops->set_time) {
    chk_fail(c, r_ct, "dims.time_dependent is set but set_time is NULL");
  }
  if (!(d->time_dependent & CHS_TIME_CONSTRAINTS)) {
    chk_skip(c, r_ct, "autonomous constraints%s", NULL);
  } else if (!ops->constraint_dt) {
    c->point = 0;
    chk_fail(c, r_ct, "CHS_TIME_CONSTRAINTS is set but constraint_dt is NULL");
  } else {
    do_ct = c->timed;
  }
  if (!(d->time_dependent & CHS_TIME_POTENTIAL)) {
    chk_skip(c, r_vt, "autonomous potential%s", NULL);
  } else if (!ops->potential_dt) {
    chk_fail(c, r_vt, "CHS_TIME_POTENTIAL is set but potential_dt is NULL");
  } else {
    do_vt = c->timed;
  }

  int rc = ops->initial_state(c->data, c->q0, c->p0);
  if (rc != 0 || !chs_all_finite(c->q0, n) || !chs_all_finite(c->p0, n)) {
    c->rep->rows[r_init].verdict = CHS_CHECK_FAIL;
    snprintf(c->rep->rows[r_init].detail, CHS_CHECK_DETAIL_LEN,
             "initial_state failed or is not finite");
    chk_finish_rows(c);
    chk_free(c);
    return CHS_SUCCESS;
  }
  c->qscale = fmax(1, chs_norm2(c->q0, n) / sqrt((double)n));
  c->pscale = fmax(1, chs_norm2(c->p0, n) / sqrt((double)n));
  memcpy(c->q, c->q0, (size_t)n * sizeof *c->q);
  memcpy(c->p, c->p0, (size_t)n * sizeof *c->p);
  chk_initial(c, r_init);

  rep->points = 1 + opt->points;
  for (int pt = 0; pt <= opt->points; pt++) {
    c->point = pt;
    c->t = 0;
    if (pt > 0) {
      for (sunindextype i = 0; i < n; i++) {
        c->q[i] = c->q0[i] + opt->perturb * c->qscale * chk_uniform(c);
        c->p[i] = c->p0[i] + opt->perturb * c->pscale * chk_uniform(c);
      }
      if (c->timed) {
        c->t = (chk_uniform(c) + 1) / 2;
      }
    }
    chk_force(c, r_force);
    chk_jacobian(c, r_G, r_pat);
    chk_gdot(c, r_Gd);
    if (do_H || lin) {
      chk_hessian(c, do_H ? r_H : -1, r_lin);
    }
    if (do_T || quad) {
      chk_third(c, do_T ? r_T : -1, r_quad);
    }
    if (do_ks) {
      chk_kinetic_scale(c, r_ks);
    }
    if (do_mass) {
      chk_mass(c, r_md, r_mg);
    }
    if (do_mgd) {
      chk_mass_grad_dir(c, r_mgd);
    }
    if (do_ct || do_vt) {
      chk_time_derivs(c, do_ct ? r_ct : -1, do_vt ? r_vt : -1);
    }
    chk_values(c, r_fnc, r_inv, r_ev);
  }
  if (r_inv >= 0 && rep->rows[r_inv].verdict == CHS_CHECK_PASS) {
    snprintf(rep->rows[r_inv].detail, CHS_CHECK_DETAIL_LEN,
             "values finite; conservation by the exact flow is not checked");
  }
  if (r_fnc >= 0 && rep->rows[r_fnc].verdict == CHS_CHECK_PASS) {
    snprintf(rep->rows[r_fnc].detail, CHS_CHECK_DETAIL_LEN,
             "values finite (no derivative to compare)");
  }
  if (r_ev >= 0 && rep->rows[r_ev].verdict == CHS_CHECK_PASS) {
    snprintf(rep->rows[r_ev].detail, CHS_CHECK_DETAIL_LEN,
             "values finite (no derivative to compare)");
  }
  chk_time(c, 0);
  chk_finish_rows(c);
  chk_free(c);
  return CHS_SUCCESS;
}
