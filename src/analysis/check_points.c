/* The derivative checker's comparisons at one point: each callback against the differences of
 * the callback it derives from, the declared facts and the initial state. */
#include "check_impl.h"

extern void dposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda,
                   double *b, const int *ldb, int *info);

/* ------------------------------------------------------------------ the checks at one point */

void chk_force(chk *c, int row) {
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

void chk_jacobian(chk *c, int row, int prow) {
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
    if (c->d->coordinate_names) {
      snprintf(what, sizeof what, "G(:,%ld) vs dg/d%s", (long)j, c->d->coordinate_names[j]);
    } else {
      snprintf(what, sizeof what, "G(:,%ld) vs dg/dq_%ld", (long)j, (long)j);
    }
    chk_compare(c, row, c->an, c->D, m, est, gscale, what);
    if (d->jac_kind == CHS_JAC_CSR) {
      snprintf(what, sizeof what, "dg/dq_%ld outside the CSR pattern of G, row", (long)j);
      chk_compare(c, prow, c->fm, c->fp, m, est, gscale, what);
    }
  }
}

void chk_gdot(chk *c, int row) {
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
void chk_hessian(chk *c, int row, int declared_row) {
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

void chk_third(chk *c, int row, int declared_row) {
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

void chk_kinetic_scale(chk *c, int row) {
  sunrealtype sigma, *grad = c->an + c->kmax;
  chk_time(c, c->t);
  if (chk_call(c, row, "kinetic_scale", c->ops->kinetic_scale(c->data, c->q, &sigma, grad), grad,
               c->n) != 0 ||
      chk_call(c, row, "kinetic_scale", 0, &sigma, 1) != 0) {
    return;
  }
  chk_gradient(c, row, "kinetic_scale", fn_sigma, 1, grad, "grad_sigma vs grad sigma");
}

void chk_mass(chk *c, int drow, int grow) {
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
void chk_mass_grad_dir(chk *c, int row) {
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

void chk_time_derivs(chk *c, int crow, int vrow) {
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
void chk_counted(chk *c, int row) {
  CHSCheckRow *r = &c->rep->rows[row];
  r->comparisons++;
  if (c->last_point[row] != c->point) {
    c->last_point[row] = c->point;
    r->points++;
  }
}

void chk_values(chk *c, int frow, int irow, int erow) {
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
 * src/model/problem.c). */
void chk_initial(chk *c, int row) {
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
