/* The wedge product along a numerical solution (see chs/wedge.h; [Leimkuhler & Reich] Sec. 3.2). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "chs/wedge.h"
#include "impl.h"

/* Central differences at eps0 2^-l, l = 0..5, eps0 = 0.4 (absolute, along a unit tangent: the
 * length scale of the built-in problems is 1), extrapolated to O(eps^12). Chosen on the pendulum
 * and the double pendulum (h = 0.01): the error of omega over 200-300 steps of a symplectic
 * method is then 4e-13 - 5e-12, set by round-off; 3 or 4 levels, or eps0 = 0.0625, leave
 * truncation errors of 1e-12 - 1e-9; eps0 = 1.5 (0.25 |z| on the double pendulum) leaves the
 * region where the step maps are smooth enough (errors 1e-6). */
#define WEDGE_LEVELS 6
#define WEDGE_EPS0 0.4

/* CHSWedge_TangentProject at time t (time-dependent problems: G(q, t), and psi's linearisation
 * gains G_t dq). */
static int wedge_project_at(CHSFormulation f, sunrealtype t, const sunrealtype *q,
                            const sunrealtype *p, sunrealtype *dq, sunrealtype *dp, CHSError *err) {
  CHSSystem s;
  CHS_CALL(chs_system_init(&s, f->prob, f->sunctx, chs_gram_kind(f->sys.gram), err));
  sunindextype n = s.n;
  sunrealtype *a = s.wm[CHS_WM_PSI], *b = s.wm[CHS_WM_R], *t1 = s.wn[CHS_WN_V],
              *t2 = s.wn[CHS_WN_F], *v = s.wn[CHS_WN_MINV_F];
  int rc = chs_system_set_time(&s, t);
  if (rc == 0) {
    rc = chs_system_time_terms(&s, q);
  }
  if (rc == 0) {
    rc = chs_system_gram_at(&s, q);
  }
  if (rc == 0) {
    chs_jac_mv(&s, s.G, dq, a); /* dq -= M^{-1} G^T Q^{-1} G dq */
    rc = chs_gram_solve(s.gram, a, b);
  }
  if (rc == 0) {
    chs_jac_tmv(&s, s.G, b, t1);
    chs_mass_inv(&s, t1, t2);
    for (sunindextype i = 0; i < n; i++) {
      dq[i] -= t2[i];
    }
    rc = s.ops->jacobian_dot(s.data, q, dq, s.Gd);
  }
  if (rc == 0) {
    /* dp -= G^T Q^{-1} (G M^{-1} dp + J_psi dq), J_psi dq = Gdot(q, dq) v - G M^{-1} M'(q; dq) v
     * (docs/mechanics.md; the last term only for M(q)) */
    chs_mass_inv(&s, p, v);
    chs_jac_mv(&s, s.Gd, v, a);
    chs_mass_inv(&s, dp, t1);
    if (s.mass_kind == CHS_MASS_CONFIG) {
      rc = s.ops->mass_dir(s.data, q, dq, v, t2);
      chs_mass_inv(&s, t2, s.wn[CHS_WN_A]);
      for (sunindextype i = 0; i < n; i++) {
        t1[i] -= s.wn[CHS_WN_A][i];
      }
    }
    chs_jac_mv(&s, s.G, t1, b);
    for (sunindextype j = 0; j < s.m; j++) {
      a[j] += b[j];
    }
    if (s.Gt) { /* + G_t dq */
      chs_jac_mv(&s, s.Gt, dq, b);
      for (sunindextype j = 0; j < s.m; j++) {
        a[j] += b[j];
      }
    }
  }
  if (rc == 0) {
    rc = chs_gram_solve(s.gram, a, b);
  }
  if (rc == 0) {
    chs_jac_tmv(&s, s.G, b, t1);
    for (sunindextype i = 0; i < n; i++) {
      dp[i] -= t1[i];
    }
  }
  chs_system_free(&s);
  return rc == 0 ? 0
                 : chs_error_set(err, CHS_ERR_SOLVER,
                                 "wedge: tangent projection failed (singular Gram matrix)");
}

int CHSWedge_TangentProject(CHSFormulation f, const sunrealtype *q, const sunrealtype *p,
                            sunrealtype *dq, sunrealtype *dp, CHSError *err) {
  if (f->sys.time_bits) { /* the tangent space of psi = G v + g_t = 0 moves with t */
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "wedge product: problem '%s' has explicit time dependence: its tangent "
                         "space depends on t (CHSWedge_Run projects at its t0)",
                         CHSProblem_GetName(f->prob));
  }
  return wedge_project_at(f, 0, q, p, dq, dp, err);
}

typedef struct {
  CHSFormulation f;
  const CHSRunOptions *o;
  sunindextype n;
  N_Vector y;
} wedge_ctx;

/* z1 = Phi(z) over [t, t + h] (z, z1: physical (q, p)), by a new integrator. */
static int wedge_map(wedge_ctx *w, sunrealtype t, sunrealtype h, const sunrealtype *z,
                     sunrealtype *z1, CHSError *err) {
  sunindextype n = w->n;
  if (CHSFormulation_FromPhysical(w->f, z, z + n, w->y) != 0) {
    return chs_error_set(err, CHS_ERR_SOLVER, "wedge: cannot map the state at t = %g", (double)t);
  }
  CHSIntegrator it = NULL;
  CHS_CALL(CHSIntegrator_Create(w->o->method, w->f, w->y, t, &w->o->ctl, &it, err));
  sunrealtype tret = t;
  int rc = CHSIntegrator_Evolve(it, t + h, w->y, &tret, err);
  CHSIntegrator_Destroy(&it);
  if (rc == 0 && CHSFormulation_ToPhysical(w->f, w->y, z1, z1 + n) != 0) {
    rc = chs_error_set(err, CHS_ERR_SOLVER, "wedge: cannot map the state at t = %g",
                       (double)(t + h));
  }
  if (rc == 0 && !chs_all_finite(z1, 2 * n)) {
    rc =
        chs_error_set(err, CHS_ERR_NONFINITE, "wedge: non-finite state at t = %g", (double)(t + h));
  }
  return rc;
}

/* dz <- DPhi(z) dz by central differences extrapolated in eps (Richardson). work: 2n (LEVELS + 1).
 */
static int wedge_linearise(wedge_ctx *w, sunrealtype t, sunrealtype h, const sunrealtype *z,
                           sunrealtype *dz, sunrealtype *work, CHSError *err) {
  sunindextype N = 2 * w->n;
  sunrealtype *zm = work, *R = work + N; /* R: LEVELS rows of N */
  sunrealtype sc = chs_norm2(dz, N);
  if (!(sc > 0)) {
    return 0;
  }
  sunrealtype eps = WEDGE_EPS0;
  for (int l = 0; l < WEDGE_LEVELS; l++, eps /= 2) {
    sunrealtype *row = R + l * N;
    for (sunindextype i = 0; i < N; i++) {
      row[i] = z[i] + eps * dz[i] / sc;
      zm[i] = z[i] - eps * dz[i] / sc;
    }
    CHS_CALL(wedge_map(w, t, h, row, row, err));
    CHS_CALL(wedge_map(w, t, h, zm, zm, err));
    for (sunindextype i = 0; i < N; i++) {
      row[i] = (row[i] - zm[i]) / (2 * eps);
    }
  }
  chs_richardson_central(R, WEDGE_LEVELS, N);
  for (sunindextype i = 0; i < N; i++) {
    dz[i] = sc * R[(WEDGE_LEVELS - 1) * N + i];
  }
  return 0;
}

static sunrealtype wedge_omega(sunindextype n, const sunrealtype *d1, const sunrealtype *d2) {
  sunrealtype w = 0;
  for (sunindextype i = 0; i < n; i++) {
    w += d1[i] * d2[n + i] - d2[i] * d1[n + i];
  }
  return w;
}

/* out = M(q) a for a configuration-dependent mass matrix (dense, or a CSR pattern). */
static int wedge_mass_apply(const CHSSystem *s, const sunrealtype *q, const sunrealtype *a,
                            sunrealtype *out, CHSError *err) {
  const CHSProblemDims *d = CHSProblem_GetDims(s->prob);
  sunindextype n = s->n;
  size_t len = d->mass_nnz > 0 ? (size_t)d->mass_nnz : (size_t)n * (size_t)n;
  sunrealtype *M = malloc(len * sizeof *M);
  if (!M) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  int rc = s->ops->mass_matrix(s->data, q, M);
  for (sunindextype i = 0; rc == 0 && i < n; i++) {
    out[i] = 0;
    if (d->mass_nnz > 0) {
      for (sunindextype k = d->mass_rowptr[i]; k < d->mass_rowptr[i + 1]; k++) {
        out[i] += M[k] * a[d->mass_colind[k]];
      }
    } else {
      for (sunindextype j = 0; j < n; j++) {
        out[i] += M[i * n + j] * a[j];
      }
    }
  }
  free(M);
  return rc == 0 ? 0 : chs_error_set(err, CHS_ERR_SOLVER, "wedge: mass matrix failed");
}

/* Two tangents with omega(dz1, dz2) = 1 at z: dz1 = (a, b) with a an M-unit direction in ker G
 * and b completing it to a tangent; dz2 = (0, M a), tangent since G M^{-1} M a = G a = 0, and
 * omega(dz1, dz2) = a^T M a = 1. */
static int wedge_initial_tangents(CHSFormulation f, sunrealtype t0, const sunrealtype *z,
                                  sunindextype n, sunrealtype *d1, sunrealtype *d2, CHSError *err) {
  CHSSystem *s = &f->sys;
  for (int trial = 0; trial < 8; trial++) {
    for (sunindextype i = 0; i < 2 * n; i++) {
      d1[i] = i < n ? sin(1.3 + 0.7 * (double)i + trial) : 0;
    }
    CHS_CALL(wedge_project_at(f, t0, z, z + n, d1, d1 + n, err));
    /* d2 = (0, M a): M a from M^{-1} by solving would need M; use the mass callback's data */
    sunrealtype *Ma = d2 + n;
    memset(d2, 0, (size_t)n * sizeof *d2);
    const CHSProblemDims *dims = CHSProblem_GetDims(f->prob);
    const sunrealtype *mass = dims->mass;
    if (s->mass_kind == CHS_MASS_CONFIG) { /* M(q) a: through the mass factorisation's storage */
      CHS_CALL(wedge_mass_apply(s, z, d1, Ma, err));
    }
    for (sunindextype i = 0; i < n && s->mass_kind != CHS_MASS_CONFIG; i++) {
      if (s->mass_kind == CHS_MASS_IDENTITY || !mass) {
        Ma[i] = d1[i];
      } else if (s->mass_kind == CHS_MASS_DIAGONAL) {
        Ma[i] = mass[i] * d1[i];
      } else {
        Ma[i] = 0;
        for (sunindextype j = 0; j < n; j++) {
          Ma[i] += mass[i * n + j] * d1[j];
        }
      }
    }
    sunrealtype w = wedge_omega(n, d1, d2); /* a^T M a */
    if (w > 1e-6 * chs_norm2(d1, n) * chs_norm2(d1, n)) {
      sunrealtype sc = 1 / sqrt(w);
      for (sunindextype i = 0; i < 2 * n; i++) {
        d1[i] *= sc;
        d2[i] *= sc;
      }
      return 0;
    }
  }
  return chs_error_set(err, CHS_ERR_SOLVER, "wedge: no pair of tangents with omega != 0");
}

int CHSWedge_Run(CHSFormulation f, const CHSRunOptions *opt, CHSWedgeMonitorFn monitor, void *ctx,
                 CHSWedgeSummary *sum, CHSError *err) {
  memset(sum, 0, sizeof *sum);
  if (!(opt->ctl.h > 0) || !isfinite(opt->ctl.h)) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "the wedge product needs a fixed step --h (the step map's linearisation)");
  }
  if (!isfinite(opt->t0) || !isfinite(opt->tf) || opt->tf < opt->t0) {
    return chs_error_set(err, CHS_ERR_ARG, "final time tf = %g must be finite and >= t0 = %g",
                         (double)opt->tf, (double)opt->t0);
  }
  if (CHSFormulation_GetOps(f)->flags & CHS_FORM_DAE) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "the wedge product needs an ODE formulation and a fixed-step method");
  }
  sunindextype n = f->sys.n, N = 2 * n;
  wedge_ctx w = {f, opt, n, NULL};
  sunrealtype *buf = malloc((size_t)N * (6 + WEDGE_LEVELS) * sizeof *buf);
  CHSProjector proj = NULL;
  int rc = buf ? CHSFormulation_NewInitialState(f, &w.y, err)
               : chs_error_set(err, CHS_ERR_MEM, "out of memory");
  sunrealtype *z = buf, *z1 = buf + N, *d1 = buf + 2 * N, *d2 = buf + 3 * N, *work = buf + 4 * N;
  if (rc == 0 && opt->project != CHS_PROJECT_NONE) {
    /* attached to f, so every integrator applies it after its steps (part of the step map) */
    rc = CHSProjector_Create(f, opt->project, opt->project_tol, &proj, err);
    if (rc == 0 && opt->project_newton_tol > 0) {
      CHSProjector_SetNewtonTol(proj, opt->project_newton_tol);
    }
  }
  /* projection every k-th step: chosen here per step (the projector's own counter would count
   * the 25 maps of each step), by suspending it in the other steps */
  long every = opt->project_every > 1 ? opt->project_every : 1;
  if (rc == 0 && CHSFormulation_ToPhysical(f, w.y, z, z + n) != 0) {
    rc = chs_error_set(err, CHS_ERR_SOLVER, "wedge: cannot map the initial state");
  }
  if (rc == 0) {
    rc = wedge_initial_tangents(f, opt->t0, z, n, d1, d2, err);
  }
  sunrealtype t = opt->t0, h = opt->ctl.h;
  sum->omega0 = rc == 0 ? wedge_omega(n, d1, d2) : 0;
  if (rc == 0 && monitor && monitor(t, sum->omega0, ctx) != 0) {
    rc = chs_error_set(err, CHS_ERR_IO, "output stopped at t = %g", (double)t);
  }
  /* The method's own tangent map where it has one (d1, d2 are contiguous), else differences. */
  CHSIntegrator it = NULL;
  N_Vector yt = rc == 0 ? N_VClone(w.y) : NULL;
  int exact = proj ? 0 : -1; /* unknown until the first step; a projection has no tangent map */
  if (rc == 0 && !yt) {
    rc = chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  if (rc == 0 && exact != 0) {
    N_VScale(1, w.y, yt);
    rc = CHSIntegrator_Create(opt->method, f, yt, t, &opt->ctl, &it, err);
  }
  while (rc == 0 && t < opt->tf) {
    sunrealtype step = t + h >= opt->tf - 1e-9 * h ? opt->tf - t : h;
    if (exact != 0) {
      rc = CHSIntegrator_TangentStep(it, step, 2, d1, yt, err);
      if (exact < 0 && rc == CHS_ERR_UNSUPPORTED) {
        CHSError_Clear(err);
        rc = 0;
        exact = 0;
      } else {
        exact = 1;
        if (rc == 0 && CHSFormulation_ToPhysical(f, yt, z1, z1 + n) != 0) {
          rc = chs_error_set(err, CHS_ERR_SOLVER, "wedge: cannot map the state at t = %g",
                             (double)(t + step));
        }
      }
    }
    if (rc == 0 && exact == 0) {
      if (proj) {
        chs_projector_suspend(proj, (sum->steps + 1) % every != 0);
      }
      rc = wedge_linearise(&w, t, step, z, d1, work, err);
      if (rc == 0) {
        rc = wedge_linearise(&w, t, step, z, d2, work, err);
      }
      if (rc == 0) {
        rc = wedge_map(&w, t, step, z, z1, err);
      }
      if (proj) {
        chs_projector_suspend(proj, 0);
      }
    }
    if (rc != 0) {
      break;
    }
    memcpy(z, z1, (size_t)N * sizeof *z);
    t = step == h ? t + h : opt->tf;
    sum->steps++;
    sunrealtype om = wedge_omega(n, d1, d2);
    if (!isfinite(om)) {
      rc = chs_error_set(err, CHS_ERR_NONFINITE, "wedge: non-finite tangents at t = %g", (double)t);
      break;
    }
    sum->err_final = fabs(om - sum->omega0);
    sum->err_max = fmax(sum->err_max, sum->err_final);
    sum->rel_err_max =
        fmax(sum->rel_err_max, sum->err_final / (chs_norm2(d1, N) * chs_norm2(d2, N)));
    if (monitor && monitor(t, om, ctx) != 0) {
      rc = chs_error_set(err, CHS_ERR_IO, "output stopped at t = %g", (double)t);
    }
  }
  sum->exact_tangents = exact == 1;
  CHSIntegrator_Destroy(&it);
  if (yt) {
    N_VDestroy(yt);
  }
  CHSProjector_Destroy(&proj);
  if (w.y) {
    N_VDestroy(w.y);
  }
  free(buf);
  return rc;
}
