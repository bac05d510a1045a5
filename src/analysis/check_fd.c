/* The derivative checker's evaluations (each callback as a vector function of (q, t)) and its
 * extrapolated central differences with a rounding-noise estimate. */
#include "check_impl.h"

/* ------------------------------------------------------------------ evaluations */

void chk_time(chk *c, sunrealtype t) {
  if (c->timed) {
    c->ops->set_time(c->data, t);
  }
}

int fn_V(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out) {
  chk_time(c, t);
  return c->ops->potential(c->data, q, out);
}
int fn_F(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out) {
  chk_time(c, t);
  return c->ops->force(c->data, q, out);
}
int fn_g(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out) {
  chk_time(c, t);
  return c->ops->constraint(c->data, q, out);
}
int fn_G(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out) {
  chk_time(c, t);
  return c->ops->jacobian(c->data, q, out);
}
int fn_Gd(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out) {
  chk_time(c, t);
  return c->ops->jacobian_dot(c->data, q, c->u, out);
}
int fn_gt(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out) {
  chk_time(c, t);
  return c->ops->constraint_dt(c->data, q, out, NULL, NULL);
}

/* out = J x for J stored like G */
void chk_jac_mv(const chk *c, const sunrealtype *J, const sunrealtype *x, sunrealtype *out) {
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
int fn_third(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out) {
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

int fn_Mb(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out) {
  chk_time(c, t);
  int rc = c->ops->mass_matrix(c->data, q, c->M);
  if (rc == 0) {
    chk_mass_mv(c, c->M, c->b, out);
  }
  return rc;
}
int fn_aMb(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out) {
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
int fn_mg(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out) {
  chk_time(c, t);
  return c->ops->mass_grad(c->data, q, c->a, c->b, out);
}
int fn_sigma(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out) {
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
int chk_fd_row(chk *c, int row, const char *name, chk_fn fn, sunindextype k, const sunrealtype *dir,
               sunrealtype *est) {
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
void chk_gradient(chk *c, int row, const char *name, chk_fn fn, sunrealtype sign,
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
      if (c->d->coordinate_names) { /* a gradient over q: its entry j is coordinate j's */
        snprintf(buf, sizeof buf, "%s, entry %ld (%s): ", what, (long)j, c->d->coordinate_names[j]);
      } else {
        snprintf(buf, sizeof buf, "%s, entry %ld: ", what, (long)j);
      }
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
