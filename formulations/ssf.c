/* Canonical state space form by coordinate partitioning ([Leimkuhler & Reich] Sec. 2: Prop. 2.1,
 * (2.1)-(2.5), following [14, 18]).
 *
 * A picks n - m independent coordinates q_I (A q = q_I = delta); the dependent ones q_D follow
 * from g(q) = 0 by Newton (2.1)-(2.2). With phi(delta) that parametrisation, the momenta
 * theta = phi'^T p make (delta, theta) canonical (Prop. 2.1); inversely p = Pi^T A^T theta with
 * Pi^T = I - G^T Q^{-1} G M^{-1}, which is (2.3) for M = I and gives G M^{-1} p = 0. Along the
 * constrained flow (q' = v = M^{-1} p, p' = F - G^T lambda), using G phi' = 0 and
 * d/dt phi' = -R^{-1} [0; Gdot(q,v)] phi' (R = [A; G]):
 *
 *   delta' = A v = v_I,
 *   theta' = phi'^T (F - Gdot(q,v)^T z),   G_D^T z = p_D,
 *   phi'^T w = w_I - G_I^T G_D^{-T} w_D,
 *
 * the same flow as (2.4)-(2.5) written through the partition (G_D, G_I: the dependent and
 * independent columns of G). No multiplier appears and the constraints hold exactly (to the
 * Newton tolerance) at every evaluation. The partition is chosen by Gaussian elimination with
 * complete pivoting on G at the initial state and re-chosen between steps when the dependent
 * block becomes ill-conditioned (smallest pivot of G_D < 0.5 x the largest entry of G, while a
 * choice at least 1.5 times as good exists: early enough that the stages of an implicit step
 * stay inside the chart);
 * the state is then rewritten in the new chart and the integrator restarted (counted:
 * CHSFormulation_GetNumRecharts). Dense G only is needed: CSR G is expanded.
 *
 * M(q) and g(q, t) (docs/mechanics.md "Canonical state space form"): q = phi(delta, t) solves
 * g(q, t) = 0 at the problem's current time, theta = phi'^T p is still the momentum of delta
 * (p = M q' with q' = phi' delta' + phi_t), and inversely p = A^T theta - G^T lambda with
 * lambda = Q^{-1} (G M^{-1} A^T theta + g_t) (psi = 0). Along the motion
 * d/dt phi' = -R^{-1} [0; Gdot(q,v) + G_t] phi', so
 *
 *   delta' = v_I,   theta' = phi'^T (F + F_M - (Gdot(q,v) + G_t)^T z),   G_D^T z = p_D,
 *
 * F_M = 1/2 grad_q (v^T M(q) v) at fixed v. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_dense.h>
#include "../src/impl.h"

#define SSF_NEWTON_MAX 50
/* Largest number of constraints accepted. The partition and the factorizations of G_D are dense:
 * the set-up is O(m^2 n) and every right-hand side O(m^3) (two LU factorizations per Newton
 * iteration). Measured (RelWithDebInfo, one core, chain of N = m + 1 atoms, n = 2 N, set-up and
 * one erk:rk4 step): m = 200 0.2 s, m = 400 0.7 s, m = 800 4.0 s, m = 1000 7.0 s (m = 1599 took 7 s
 * and m = 3199 50 s for the set-up alone). Larger systems are refused (exit 2) rather than left to
 * run for hours; a sparse partition (KLU on G_D) would lift this for CSR G. */
#define SSF_M_MAX 800
#define SSF_RECHART_RATIO 0.5

typedef struct {
  sunindextype n, m, k;    /* k = n - m */
  sunindextype *ind, *dep; /* independent (k) and dependent (m) coordinates */
  sunrealtype *q;          /* the last q = phi(delta): Newton's starting point */
  sunrealtype *Gd;         /* dense m x n copy of G (row-major) */
  sunrealtype **GD, **GDt; /* m x m: G_D and G_D^T, LU-factored (SUNDIALS dense kernels) */
  sunindextype *piv, *pivt;
  sunrealtype *w, *z, *tm; /* scratch n, m, m */
  sunrealtype pivot_ratio; /* of the last G_D factorization */
} ssf_ws;

static sunindextype ssf_size(sunindextype n, sunindextype m) {
  return 2 * (n - m);
}

/* Dense row-major copy of G (or of a Jacobian-shaped array) into out. */
static void ssf_dense(const CHSSystem *s, const sunrealtype *J, sunrealtype *out) {
  if (s->jac_kind == CHS_JAC_DENSE) {
    memcpy(out, J, (size_t)(s->m * s->n) * sizeof *out);
    return;
  }
  memset(out, 0, (size_t)(s->m * s->n) * sizeof *out);
  for (sunindextype i = 0; i < s->m; i++) {
    for (sunindextype k = s->rowptr[i]; k < s->rowptr[i + 1]; k++) {
      out[i * s->n + s->colind[k]] = J[k];
    }
  }
}

/* Partition by Gaussian elimination with complete pivoting on the dense G: the pivot columns
 * are dependent. Returns the smallest pivot relative to the largest entry of G (the same measure
 * of quality ssf_factor computes for the current partition). */
static sunrealtype ssf_choose(ssf_ws *w, const sunrealtype *G, sunindextype *dep,
                              sunindextype *ind) {
  sunindextype n = w->n, m = w->m;
  sunrealtype *a = malloc((size_t)(m * n) * sizeof *a);
  int *used = calloc((size_t)n, sizeof *used);
  sunrealtype pmax = 0, pmin = INFINITY;
  for (sunindextype l = 0; l < m * n; l++) {
    pmax = fmax(pmax, fabs(G[l]));
  }
  if (!a || !used) {
    free(a);
    free(used);
    return 0;
  }
  memcpy(a, G, (size_t)(m * n) * sizeof *a);
  int *rowdone = calloc((size_t)m, sizeof *rowdone);
  for (sunindextype step = 0; step < m && rowdone; step++) {
    sunindextype bi = -1, bj = -1;
    sunrealtype best = -1;
    for (sunindextype i = 0; i < m; i++) {
      for (sunindextype j = 0; !rowdone[i] && j < n; j++) {
        if (!used[j] && fabs(a[i * n + j]) > best) {
          best = fabs(a[i * n + j]);
          bi = i;
          bj = j;
        }
      }
    }
    dep[step] = bj;
    used[bj] = 1;
    rowdone[bi] = 1;
    pmin = fmin(pmin, best);
    for (sunindextype i = 0; i < m; i++) {
      if (!rowdone[i] && best > 0) {
        sunrealtype f = a[i * n + bj] / a[bi * n + bj];
        for (sunindextype j = 0; j < n; j++) {
          a[i * n + j] -= f * a[bi * n + j];
        }
      }
    }
  }
  for (sunindextype j = 0, c = 0; j < n; j++) {
    if (!used[j]) {
      ind[c++] = j;
    }
  }
  free(a);
  free(used);
  free(rowdone);
  return pmax > 0 ? pmin / pmax : 0;
}

/* G at q into w->Gd; factor G_D and G_D^T. 0, or CHS_RECOVERABLE when singular. */
static int ssf_factor(CHSSystem *s, ssf_ws *w, const sunrealtype *q) {
  if (CHS_SYS_CB(s, jacobian, s->data, q, s->G) != 0) {
    return CHS_RECOVERABLE;
  }
  ssf_dense(s, s->G, w->Gd);
  sunindextype m = w->m, n = w->n;
  for (sunindextype i = 0; i < m; i++) {
    for (sunindextype j = 0; j < m; j++) {
      w->GD[j][i] = w->Gd[i * n + w->dep[j]]; /* column-major: GD[col][row] */
      w->GDt[i][j] = w->Gd[i * n + w->dep[j]];
    }
  }
  if (SUNDlsMat_denseGETRF(w->GD, m, m, w->piv) != 0 ||
      SUNDlsMat_denseGETRF(w->GDt, m, m, w->pivt) != 0) {
    return CHS_RECOVERABLE;
  }
  /* Quality of the partition: smallest pivot of G_D relative to the largest entry of G. */
  sunrealtype gmax = 0, pmin = INFINITY;
  for (sunindextype l = 0; l < m * n; l++) {
    gmax = fmax(gmax, fabs(w->Gd[l]));
  }
  for (sunindextype i = 0; i < m; i++) {
    pmin = fmin(pmin, fabs(w->GD[i][i]));
  }
  w->pivot_ratio = gmax > 0 ? pmin / gmax : 0;
  return w->pivot_ratio > 64 * SUN_UNIT_ROUNDOFF ? 0 : CHS_RECOVERABLE;
}

/* q = phi(delta): q_I = delta, Newton on g(q) = 0 for q_D from w->q. Leaves G_D factored at q. */
static int ssf_position(CHSSystem *s, ssf_ws *w, const sunrealtype *delta, sunrealtype *q) {
  sunindextype m = w->m;
  memcpy(q, w->q, (size_t)w->n * sizeof *q);
  for (sunindextype c = 0; c < w->k; c++) {
    q[w->ind[c]] = delta[c];
  }
  for (int it = 0; it < SSF_NEWTON_MAX; it++) {
    CHS_CALL(ssf_factor(s, w, q));
    if (CHS_SYS_CB(s, constraint, s->data, q, w->z) != 0) {
      return CHS_RECOVERABLE;
    }
    SUNDlsMat_denseGETRS(w->GD, m, w->piv, w->z);
    sunrealtype step = 0, scale = 0;
    for (sunindextype j = 0; j < m; j++) {
      q[w->dep[j]] -= w->z[j];
      step = fmax(step, fabs(w->z[j]));
      scale = fmax(scale, fabs(q[w->dep[j]]));
    }
    if (!isfinite(step)) {
      return CHS_RECOVERABLE;
    }
    if (step <= 4 * SUN_UNIT_ROUNDOFF * (1 + scale)) {
      CHS_CALL(ssf_factor(s, w, q));
      memcpy(w->q, q, (size_t)w->n * sizeof *q);
      return 0;
    }
  }
  return CHS_RECOVERABLE;
}

/* out = phi'^T u = u_I - G_I^T G_D^{-T} u_D (G_D factored). */
static void ssf_phi_t(const ssf_ws *w, const sunrealtype *u, sunrealtype *out) {
  sunindextype m = w->m, n = w->n;
  for (sunindextype j = 0; j < m; j++) {
    w->tm[j] = u[w->dep[j]];
  }
  SUNDlsMat_denseGETRS(w->GDt, m, w->pivt, w->tm); /* tm = G_D^{-T} u_D */
  for (sunindextype c = 0; c < w->k; c++) {
    sunrealtype acc = u[w->ind[c]];
    for (sunindextype i = 0; i < m; i++) {
      acc -= w->Gd[i * n + w->ind[c]] * w->tm[i];
    }
    out[c] = acc;
  }
}

/* q = phi(delta), p = Pi^T A^T theta (G M^{-1} p = 0). */
static int ssf_physical(CHSFormulation f, const sunrealtype *y, sunrealtype *q, sunrealtype *p) {
  CHSSystem *s = &f->sys;
  ssf_ws *w = CHSFormulation_GetPrivate(f);
  sunindextype n = s->n, k = w->k;
  CHS_CALL(ssf_position(s, w, y, q));
  CHS_CALL(chs_system_gram_at(s, q));
  sunrealtype *At = s->wn[CHS_WN_A], *v = s->wn[CHS_WN_B], *lam = s->wm[CHS_WM_A],
              *psi = s->wm[CHS_WM_B];
  memset(At, 0, (size_t)n * sizeof *At);
  for (sunindextype c = 0; c < k; c++) {
    At[w->ind[c]] = y[k + c];
  }
  CHS_CALL(chs_system_time_terms(s, q)); /* g(q, t): g_t at the problem's time */
  chs_mass_inv(s, At, v);
  chs_system_psi(s, v, psi); /* G M^{-1} A^T theta + g_t */
  CHS_CALL(chs_gram_solve(s->gram, psi, lam));
  chs_jac_tmv(s, s->G, lam, p);
  for (sunindextype i = 0; i < n; i++) {
    p[i] = At[i] - p[i];
  }
  return 0;
}

/* M(q) and g(q, t) (docs/mechanics.md "Canonical state space form"): acc += G_t^T z - F_M,
 * F_M = 1/2 grad_q (v^T M(q) v) at fixed v (subtracted from F by the caller). */
static int ssf_general_terms(CHSSystem *s, const sunrealtype *q, const sunrealtype *v,
                             const sunrealtype *z, sunrealtype *acc) {
  if (s->mass_kind == CHS_MASS_CONFIG) {
    sunrealtype *fm = s->xn[0];
    if (CHS_SYS_CB(s, mass_grad, s->data, q, v, v, fm) != 0) {
      return CHS_RECOVERABLE;
    }
    for (sunindextype i = 0; i < s->n; i++) {
      acc[i] -= fm[i] / 2;
    }
  }
  if (s->Gt) {
    chs_jac_tmv_acc(s, s->Gt, z, 1, acc);
  }
  return 0;
}

static int ssf_rhs(CHSFormulation f, sunrealtype t, const sunrealtype *y, sunrealtype *ydot) {
  (void)t;
  CHSSystem *s = &f->sys;
  ssf_ws *w = CHSFormulation_GetPrivate(f);
  sunindextype n = s->n, m = s->m, k = w->k;
  sunrealtype *q = s->wn[CHS_WN_V], *p = s->wn[CHS_WN_F], *v = s->wn[CHS_WN_MINV_F],
              *F = s->wn[CHS_WN_C];
  CHS_CALL(ssf_physical(f, y, q, p));
  chs_mass_inv(s, p, v);
  if (chs_system_force(s, q, v, F) != 0 || CHS_SYS_CB(s, jacobian_dot, s->data, q, v, s->Gd) != 0) {
    return CHS_RECOVERABLE;
  }
  /* z = G_D^{-T} p_D; w = F - Gdot(q,v)^T z; theta' = phi'^T w. */
  for (sunindextype j = 0; j < m; j++) {
    w->z[j] = p[w->dep[j]];
  }
  SUNDlsMat_denseGETRS(w->GDt, m, w->pivt, w->z);
  chs_jac_tmv(s, s->Gd, w->z, w->w);
  if (s->general) { /* w <- w + G_t^T z - F_M (time terms from ssf_physical) */
    CHS_CALL(ssf_general_terms(s, q, v, w->z, w->w));
  }
  for (sunindextype i = 0; i < n; i++) {
    w->w[i] = F[i] - w->w[i];
  }
  for (sunindextype c = 0; c < k; c++) {
    ydot[c] = v[w->ind[c]];
  }
  ssf_phi_t(w, w->w, ydot + k);
  return 0;
}

static int ssf_from_physical(CHSFormulation f, const sunrealtype *q, const sunrealtype *p,
                             sunrealtype *y) {
  CHSSystem *s = &f->sys;
  ssf_ws *w = CHSFormulation_GetPrivate(f);
  memcpy(w->q, q, (size_t)w->n * sizeof *q);
  CHS_CALL(ssf_factor(s, w, q));
  for (sunindextype c = 0; c < w->k; c++) {
    y[c] = q[w->ind[c]];
  }
  ssf_phi_t(w, p, y + w->k);
  return 0;
}

/* A new partition when the current dependent block is ill-conditioned and a better one exists. */
static int ssf_rechart(CHSFormulation f, sunrealtype t, sunrealtype *y) {
  ssf_ws *w = CHSFormulation_GetPrivate(f);
  CHS_CALL(chs_system_set_time(&f->sys, t)); /* the chart: g(q, t) = 0 at the step's time */
  sunrealtype *q = malloc(2 * (size_t)w->n * sizeof *q);
  sunindextype *dep = malloc((size_t)w->n * sizeof *dep);
  if (!q || !dep) {
    free(q);
    free(dep);
    return CHS_ERR_MEM;
  }
  sunrealtype *p = q + w->n;
  /* The quality of the current partition at y itself (not at the last stage evaluated). */
  int rc = ssf_physical(f, y, q, p);
  if (rc == 0 && w->pivot_ratio < SSF_RECHART_RATIO) {
    sunrealtype ratio = ssf_choose(w, w->Gd, dep, dep + w->m);
    if (ratio > 1.5 * w->pivot_ratio) {
      memcpy(w->dep, dep, (size_t)w->m * sizeof *dep);
      memcpy(w->ind, dep + w->m, (size_t)w->k * sizeof *dep);
      rc = ssf_from_physical(f, q, p, y);
      rc = rc == 0 ? 1 : rc;
    }
  }
  free(q);
  free(dep);
  return rc;
}

static void ssf_free(CHSFormulation f) {
  ssf_ws *w = CHSFormulation_GetPrivate(f);
  if (!w) {
    return;
  }
  free(w->ind);
  free(w->q);
  if (w->GD) {
    SUNDlsMat_destroyMat(w->GD);
  }
  if (w->GDt) {
    SUNDlsMat_destroyMat(w->GDt);
  }
  free(w->piv);
  free(w);
}

static int ssf_init(CHSFormulation f, CHSParams params, CHSError *err) {
  (void)params;
  CHSSystem *s = &f->sys;
  sunindextype n = s->n, m = s->m;
  if (m > SSF_M_MAX) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "ssf: problem '%s' has m = %ld constraints (n = %ld), more than the %d "
                         "that ssf's dense coordinate partitioning handles (its cost grows as "
                         "m^3 per right-hand side); use another formulation (dirac, standard, "
                         "...) for this size",
                         s->ops->name, (long)m, (long)n, SSF_M_MAX);
  }
  ssf_ws *w = calloc(1, sizeof *w);
  if (!w) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  CHSFormulation_SetPrivate(f, w);
  w->n = n;
  w->m = m;
  w->k = n - m;
  w->ind = malloc((size_t)n * sizeof *w->ind);
  w->q = calloc(3 * (size_t)n + (size_t)(m * n) + 3 * (size_t)m, sizeof *w->q);
  w->GD = SUNDlsMat_newDenseMat(m, m);
  w->GDt = SUNDlsMat_newDenseMat(m, m);
  w->piv = malloc(2 * (size_t)m * sizeof *w->piv);
  if (!w->ind || !w->q || !w->GD || !w->GDt || !w->piv) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  w->dep = w->ind + w->k;
  w->pivt = w->piv + m;
  w->w = w->q + n;
  w->Gd = w->w + n;
  w->z = w->Gd + m * n;
  w->tm = w->z + m;
  /* Partition at the initial configuration. */
  sunrealtype *q = s->wn[CHS_WN_V], *p = s->wn[CHS_WN_F];
  if (CHS_SYS_CB(s, initial_state, s->data, q, p) != 0 ||
      CHS_SYS_CB(s, jacobian, s->data, q, s->G) != 0) {
    return chs_error_set(err, CHS_ERR_CALLBACK, "ssf: cannot evaluate the initial state");
  }
  ssf_dense(s, s->G, w->Gd);
  sunindextype *dep = malloc((size_t)n * sizeof *dep);
  if (!dep) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  sunrealtype ratio = ssf_choose(w, w->Gd, dep, dep + m);
  memcpy(w->dep, dep, (size_t)m * sizeof *dep);
  memcpy(w->ind, dep + m, (size_t)w->k * sizeof *dep);
  free(dep);
  memcpy(w->q, q, (size_t)n * sizeof *q);
  if (!(ratio > 64 * SUN_UNIT_ROUNDOFF)) {
    return chs_error_set(err, CHS_ERR_SINGULAR,
                         "ssf: the constraint Jacobian is rank deficient at the initial state");
  }
  return CHS_SUCCESS;
}

const CHSFormulationOps chs_formulation_ssf = {
    .name = "ssf",
    .summary = "canonical state space form by coordinate partitioning (constraints exact)",
    .source = "[Leimkuhler & Reich] Sec. 2, Prop. 2.1, (2.1)-(2.5)",
    .flags =
        CHS_FORM_ODE | CHS_FORM_KEEPS_G | CHS_FORM_KEEPS_PSI | CHS_FORM_MASS_CONFIG | CHS_FORM_TIME,
    .state_size = ssf_size,
    .init = ssf_init,
    .free = ssf_free,
    .rhs = ssf_rhs,
    .to_physical = ssf_physical,
    .from_physical = ssf_from_physical,
    .rechart = ssf_rechart,
};
