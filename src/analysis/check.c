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
#include "check_impl.h"

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

void chk_random(chk *c, sunrealtype *x, sunindextype k) {
  for (sunindextype i = 0; i < k; i++) {
    x[i] = chk_uniform(c);
  }
}

sunrealtype chk_maxabs(const sunrealtype *x, sunindextype k) {
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

void chk_fail(chk *c, int row, const char *what) {
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
int chk_call(chk *c, int row, const char *name, int rc, const sunrealtype *out, sunindextype k) {
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
void chk_compare(chk *c, int row, const sunrealtype *an, const sunrealtype *fd, sunindextype k,
                 sunrealtype est, sunrealtype extra, const char *what) {
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
    char idx[48] = "";
    /* an entry of a vector over the coordinates (over the constraints) by its declared name; an
     * entry of G's layout keeps its index unless dense with m = 1 (its entries are then the
     * coordinates'), since a CSR pattern with nnz = n is no vector over the coordinates */
    const char *const *names = NULL;
    int dense1 = c->d->jac_kind == CHS_JAC_DENSE && c->m == 1;
    if (k == c->n && (k != c->gsize || dense1)) {
      names = c->d->coordinate_names;
    } else if (k == c->m && k != c->gsize) {
      names = c->d->constraint_names;
    }
    if (names) {
      snprintf(idx, sizeof idx, "[%ld %s]", (long)at, names[at]);
    } else if (k > 1) {
      snprintf(idx, sizeof idx, "[%ld]", (long)at);
    }
    snprintf(buf, sizeof buf,
             "%s%s: callback %.10g, finite differences %.10g (error %.2e > tolerance %.2e)", what,
             idx, (double)an[at], (double)fd[at], (double)err, (double)tol);
    chk_fail(c, row, buf);
  }
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
  int r_chain = (d->declares & CHS_DECLARE_BOND_CHAIN) ? chk_row(c, "declared bond chain") : -1;
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
    char detail[CHS_CHECK_DETAIL_LEN];
    if (r_chain >= 0 && chs_check_bond_chain(prob, c->q, detail, sizeof detail)) {
      chk_counted(c, r_chain);
    } else if (r_chain >= 0) {
      chk_fail(c, r_chain, detail);
    }
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
