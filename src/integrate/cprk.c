/* The stepper of the constrained partitioned Runge-Kutta methods (cprk.h), shared by the Lobatto
 * IIIA-IIIB (lobatto.c) and alpha-PRK (alpha_prk.c) families: the stage system, its Newton
 * iteration (dense with the exact Jacobian, or structured through the Gram solver above
 * CPRK_DENSE_MAX unknowns; lobatto.c explains both), the trial step and its acceptance. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_dense.h>
#include "cprk.h"
#include "fixed_step.h"
#include "tangent.h"

#define CPRK_NOISE_MAX 1e-9 /* largest relative increment taken for rounding noise */
/* the dense Newton matrix: N^2 doubles, O(N^3) per factorisation */
#define CPRK_DENSE_MAX 3000

/* ------------------------------------------------------------------ the stepper */

void chs_cprk_destroy(chs_cprk *c) {
  if (c) {
    free(c->q);
    free(c->gen);
    if (c->J) {
      SUNDlsMat_destroyMat(c->J);
    }
    free(c->piv);
    free(c->tbuf);
    if (c->tw) {
      chs_tangent_work_free(c->tw);
      free(c->tw);
    }
    free(c);
  }
}

int chs_cprk_newton_option(const char *options, char *buf, size_t len, int *mode) {
  const char *o = options ? options : "";
  const char *k = strstr(o, ":newton=");
  size_t keep = k ? (size_t)(k - o) : strlen(o);
  *mode = CHS_CPRK_NEWTON_AUTO;
  /* buf is always set, also on failure (the callers name it in their messages) */
  if (keep >= len) {
    keep = len - 1;
  }
  memcpy(buf, o, keep);
  buf[keep] = '\0';
  if ((k ? (size_t)(k - o) : strlen(o)) >= len) {
    return CHS_ERR_ARG; /* too long to be one of ours: not truncated into a valid one */
  }
  if (k) {
    const char *v = k + strlen(":newton=");
    if (strcmp(v, "dense") == 0) {
      *mode = CHS_CPRK_NEWTON_DENSE;
    } else if (strcmp(v, "structured") == 0) {
      *mode = CHS_CPRK_NEWTON_STRUCTURED;
    } else {
      return CHS_ERR_ARG;
    }
  }
  return 0;
}

int chs_cprk_create(const char *who, CHSFormulation f, N_Vector y0, sunrealtype t0,
                    const CHSStepControl *ctl, int s, int newton, chs_cprk **out, CHSError *err) {
  *out = NULL;
  if (!(ctl->h > 0)) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "method %s needs a fixed step --h (--rtol with --h sets the Newton "
                         "tolerance)",
                         who);
  }
  CHS_CALL(chs_fixed_step_need_physical(f, who, err));
  CHS_CALL(chs_fixed_step_no_projector(f, who, err));
  chs_cprk *c = calloc(1, sizeof *c);
  if (!c) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  size_t n = (size_t)f->sys.n, m = (size_t)f->sys.m, gs = (size_t)f->sys.gsize, S = (size_t)s;
  c->f = f;
  c->sys = &f->sys;
  c->who = who;
  c->s = s;
  c->h = ctl->h;
  c->tol = fmax(ctl->rtol > 0 ? ctl->rtol : 0, 8 * SUN_UNIT_ROUNDOFF);
  c->t = t0;
  c->n = (sunindextype)n;
  c->m = (sunindextype)m;
  c->gs = (sunindextype)gs;
  c->N = (sunindextype)(S * n + (S - 1) * m);
  size_t N = (size_t)c->N;
  if (newton == CHS_CPRK_NEWTON_DENSE && N > CPRK_DENSE_MAX) {
    free(c);
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "%s: the stage system has %zu unknowns; its dense Newton matrix (%.3g "
                         "GB, O(N^3) per factorisation) is limited to %d: use newton=structured",
                         who, N, (double)N * (double)N * 8e-9, CPRK_DENSE_MAX);
  }
  if (f->sys.general && newton == CHS_CPRK_NEWTON_DENSE) {
    free(c);
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "%s: newton=dense needs a constant mass matrix and an autonomous problem "
                         "(its exact Jacobian needs second derivatives of M(q)): use "
                         "newton=structured, the default for M(q) and time dependence",
                         who);
  }
  c->structured = newton == CHS_CPRK_NEWTON_STRUCTURED || f->sys.general ||
                  (newton == CHS_CPRK_NEWTON_AUTO && N > CPRK_DENSE_MAX);
  size_t dense = c->structured ? 0 : S * n * n, work = 2 * (S - 1) * m + n;
  size_t total = 8 * n + 2 * N + 3 * S * n + S * gs + dense + gs + 3 * m + work;
  c->q = malloc(total * sizeof *c->q);
  if (!c->structured) {
    c->J = SUNDlsMat_newDenseMat(c->N, c->N);
    c->piv = malloc(N * sizeof *c->piv);
  }
  if (f->sys.general) {
    c->gen = malloc(2 * n * sizeof *c->gen);
  }
  if (!c->q || (!c->structured && (!c->J || !c->piv)) || (f->sys.general && !c->gen)) {
    chs_cprk_destroy(c);
    return chs_error_set(err, CHS_ERR_MEM, "out of memory (%s: %zu unknowns)", who, N);
  }
  c->p = c->q + n;
  c->F0 = c->p + n;
  c->q1 = c->F0 + n;
  c->p1 = c->q1 + n;
  c->F1 = c->p1 + n;
  c->wn1 = c->F1 + n;
  c->wn2 = c->wn1 + n;
  c->X = c->wn2 + n;
  c->dX = c->X + N;
  c->Qs = c->dX + N;
  c->Vs = c->Qs + S * n;
  c->Fc = c->Vs + S * n;
  c->Gs = c->Fc + S * n;
  c->T = c->Gs + S * gs; /* (unused by the structured Newton: no room) */
  c->Gd = c->T + dense;
  c->lam = c->Gd + gs;
  c->lam1 = c->lam + m;
  c->wm1 = c->lam1 + m;
  c->ws = c->wm1 + m;
  memset(c->lam, 0, m * sizeof *c->lam);
  chs_fixed_step_load(y0, (sunindextype)n, c->q, c->p);
  *out = c;
  return CHS_SUCCESS;
}

/* M(q): V_j = M(Q_j)^{-1} P_j at the current stage positions, then the positions from their
 * equations (one sweep of the fixed-point iteration, contracting by O(h), run along with the
 * Newton iteration of the unknowns); c->dq_last: the sweep's largest change. 0 or 1. */
static int cprk_positions_general(chs_cprk *c, const chs_cprk_tableau *tb, sunrealtype h) {
  sunindextype n = c->n;
  int s = c->s;
  for (int j = 0; j < s; j++) {
    if (chs_system_mass_at(c->sys, c->Qs + j * n) != 0) {
      return 1;
    }
    chs_mass_inv(c->sys, c->X + j * n, c->Vs + j * n);
  }
  sunrealtype dq = 0;
  for (int i = 1; i < s; i++) {
    sunrealtype *Q = c->Qs + i * n;
    for (sunindextype k = 0; k < n; k++) {
      sunrealtype v = c->q[k];
      for (int j = 0; j < s; j++) {
        v += h * tb->A[i][j] * c->Vs[j * n + k];
      }
      dq = fmax(dq, fabs(v - Q[k]));
      Q[k] = v;
    }
  }
  memcpy(c->Qs, c->q, (size_t)n * sizeof *c->Qs); /* a_1j = 0 */
  c->dq_last = dq;
  return 0;
}

/* The stage forces Fc_j = Fh(Q_j, P_j) - G(Q_j)^T Lambda_j (j < s) and G(Q_j) (j > 0) at the
 * stage times t_n + c_j h, for sys->general. 0 or 1. */
static int cprk_stage_forces_general(chs_cprk *c, const chs_cprk_tableau *tb, sunrealtype h) {
  CHSSystem *sys = c->sys;
  sunindextype n = c->n, m = c->m, gs = c->gs;
  int s = c->s;
  const sunrealtype *Lam = c->X + s * n;
  for (int j = 0; j < s; j++) {
    const sunrealtype *Q = c->Qs + j * n;
    if (chs_system_set_time(sys, c->t + tb->c[j] * h) != 0 ||
        (j > 0 && sys->ops->jacobian(sys->data, Q, c->Gs + j * gs) != 0)) {
      return 1;
    }
    if (j == s - 1) {
      break;
    }
    sunrealtype *Fc = c->Fc + j * n;
    if (chs_fixed_step_hforce(sys, Q, c->X + j * n, Fc, c->gen, c->gen + n) != 0) {
      return 1;
    }
    c->force_evals++;
    chs_jac_tmv(sys, c->Gs + j * gs, Lam + j * m, c->wn1);
    for (sunindextype k = 0; k < n; k++) {
      Fc[k] -= c->wn1[k];
    }
  }
  return 0;
}

/* Stage positions Q_i and velocities V_j = M^{-1} P_j from the unknowns X. */
static void cprk_positions(chs_cprk *c, const chs_cprk_tableau *tb, sunrealtype h) {
  sunindextype n = c->n;
  int s = c->s;
  for (int j = 0; j < s; j++) {
    chs_mass_inv(c->sys, c->X + j * n, c->Vs + j * n);
  }
  for (int i = 0; i < s; i++) {
    sunrealtype *Q = c->Qs + i * n;
    memcpy(Q, c->q, (size_t)n * sizeof *Q);
    for (int j = 0; j < s; j++) {
      sunrealtype a = h * tb->A[i][j];
      if (a != 0) {
        for (sunindextype k = 0; k < n; k++) {
          Q[k] += a * c->Vs[j * n + k];
        }
      }
    }
  }
}

/* Residual at X into dX (negated below by the caller's solve): stage forces, G(Q_j) and
 * Fc_j = F(Q_j) - G(Q_j)^T Lambda_j for j < s; G(Q_s). Returns 0 or > 0 on a callback failure. */
int chs_cprk_residual(chs_cprk *c, const chs_cprk_tableau *tb, sunrealtype h) {
  CHSSystem *sys = c->sys;
  const CHSProblemOps *ops = sys->ops;
  sunindextype n = c->n, m = c->m, gs = c->gs;
  int s = c->s;
  const sunrealtype *Lam = c->X + s * n;
  if (sys->general) {
    if (cprk_positions_general(c, tb, h) != 0 || cprk_stage_forces_general(c, tb, h) != 0) {
      return 1;
    }
  } else {
    cprk_positions(c, tb, h);
  }
  for (int j = 0; j < s && !sys->general; j++) {
    const sunrealtype *Q = c->Qs + j * n;
    if (j > 0 && ops->jacobian(sys->data, Q, c->Gs + j * gs) != 0) {
      return 1;
    }
    if (j == s - 1) {
      break;
    }
    sunrealtype *Fc = c->Fc + j * n;
    if (j == 0) {
      memcpy(Fc, c->F0, (size_t)n * sizeof *Fc);
    } else {
      if (ops->force(sys->data, Q, Fc) != 0) {
        return 1;
      }
      c->force_evals++;
    }
    chs_jac_tmv(sys, c->Gs + j * gs, Lam + j * m, c->wn1);
    for (sunindextype k = 0; k < n; k++) {
      Fc[k] -= c->wn1[k];
    }
  }
  sunrealtype *R = c->dX;
  for (int i = 0; i < s; i++) {
    for (sunindextype k = 0; k < n; k++) {
      sunrealtype r = c->X[i * n + k] - c->p[k];
      for (int j = 0; j < s - 1; j++) {
        r -= h * tb->Ah[i][j] * c->Fc[j * n + k];
      }
      R[i * n + k] = r;
    }
  }
  for (int i = 1; i < s; i++) {
    sunrealtype *Ri = R + s * n + (i - 1) * m;
    if (chs_system_set_time(sys, c->t + tb->c[i] * h) != 0 ||
        ops->constraint(sys->data, c->Qs + i * n, Ri) != 0) {
      return 1;
    }
    for (sunindextype k = 0; k < m; k++) {
      Ri[k] /= h;
    }
  }
  return chs_all_finite(R, c->N) ? 0 : 1;
}

/* The Newton matrix dR/dX at X (after chs_cprk_residual). Rows/columns: P_i blocks (i n), then
 * Lambda_j / g(Q_{i+1}) blocks (s n + j m). */
int chs_cprk_jacobian(chs_cprk *c, const chs_cprk_tableau *tb, sunrealtype h) {
  CHSSystem *sys = c->sys;
  const CHSProblemOps *ops = sys->ops;
  sunindextype n = c->n, m = c->m, gs = c->gs, N = c->N;
  int s = c->s;
  sunrealtype **J = c->J;
  const sunrealtype *Lam = c->X + s * n;
  for (sunindextype col = 0; col < N; col++) {
    memset(J[col], 0, (size_t)N * sizeof **J);
  }
  /* T_j = (dF/dQ - d(G^T Lambda_j)/dQ)(Q_j) M^{-1}, j = 1 .. s-2 (Q_0 = q_n is fixed). */
  for (int j = 1; j < s - 1; j++) {
    const sunrealtype *Q = c->Qs + j * n;
    sunrealtype *Tj = c->T + (size_t)j * n * n;
    for (sunindextype col = 0; col < n; col++) {
      memset(c->wn2, 0, (size_t)n * sizeof *c->wn2);
      c->wn2[col] = 1;
      chs_mass_inv(sys, c->wn2, c->wn1); /* u = M^{-1} e_col */
      sunrealtype *Tc = Tj + col * n;
      memset(Tc, 0, (size_t)n * sizeof *Tc);
      if (chs_hessian_v(sys, Q, c->wn1, Tc) != 0) { /* differences if neither given nor zero */
        return 1;
      }
      if (ops->jacobian_dot(sys->data, Q, c->wn1, c->Gd) != 0) {
        return 1;
      }
      chs_jac_tmv(sys, c->Gd, Lam + j * m, c->wn2);
      for (sunindextype k = 0; k < n; k++) {
        Tc[k] = -Tc[k] - c->wn2[k];
      }
    }
  }
  /* dR_P_i / dP_k = delta_ik I - h^2 sum_j ah_ij a_jk T_j */
  for (int i = 0; i < s; i++) {
    for (int k = 0; k < s; k++) {
      for (sunindextype col = 0; col < n; col++) {
        sunrealtype *Jc = J[k * n + col] + i * n;
        if (i == k) {
          Jc[col] += 1;
        }
        for (int j = 1; j < s - 1; j++) {
          sunrealtype w = h * h * tb->Ah[i][j] * tb->A[j][k];
          if (w != 0) {
            const sunrealtype *Tc = c->T + (size_t)j * n * n + col * n;
            for (sunindextype r = 0; r < n; r++) {
              Jc[r] -= w * Tc[r];
            }
          }
        }
      }
    }
  }
  /* dR_P_i / dLambda_k = h ah_ik G(Q_k)^T; dR_g_i / dP_k = a_ik G(Q_i) M^{-1} (R_g = g / h). */
  for (int k = 0; k < s - 1; k++) {
    for (sunindextype r = 0; r < m; r++) {
      memset(c->wm1, 0, (size_t)m * sizeof *c->wm1);
      c->wm1[r] = 1;
      chs_jac_tmv(sys, c->Gs + k * gs, c->wm1, c->wn1); /* column r of G(Q_k)^T */
      for (int i = 0; i < s; i++) {
        sunrealtype w = h * tb->Ah[i][k];
        if (w != 0) {
          sunrealtype *Jc = J[s * n + k * m + r] + i * n;
          for (sunindextype l = 0; l < n; l++) {
            Jc[l] += w * c->wn1[l];
          }
        }
      }
    }
  }
  for (int i = 1; i < s; i++) {
    for (sunindextype r = 0; r < m; r++) {
      memset(c->wm1, 0, (size_t)m * sizeof *c->wm1);
      c->wm1[r] = 1;
      chs_jac_tmv(sys, c->Gs + i * gs, c->wm1, c->wn2);
      chs_mass_inv(sys, c->wn2, c->wn1); /* row r of G(Q_i) M^{-1} (M symmetric) */
      for (int k = 0; k < s; k++) {
        sunrealtype w = tb->A[i][k];
        if (w != 0) {
          for (sunindextype l = 0; l < n; l++) {
            J[k * n + l][s * n + (i - 1) * m + r] += w * c->wn1[l];
          }
        }
      }
    }
  }
  if (SUNDlsMat_denseGETRF(J, N, N, c->piv) != 0) {
    return 1;
  }
  c->jac_setups++;
  return 0;
}

/* C_ij = sum_k a_ik ah_kj (i = 2 .. s, j = 1 .. s-1) inverted into c->Cinv; 1 if singular. */
static int cprk_structured_setup(chs_cprk *c, const chs_cprk_tableau *tb) {
  int k = c->s - 1;
  for (int col = 0; col < k; col++) {
    sunrealtype M[CHS_CPRK_SMAX][CHS_CPRK_SMAX], x[CHS_CPRK_SMAX];
    for (int i = 0; i < k; i++) {
      for (int j = 0; j < k; j++) {
        sunrealtype v = 0;
        for (int l = 0; l < c->s; l++) {
          v += tb->A[i + 1][l] * tb->Ah[l][j];
        }
        M[i][j] = v;
      }
      x[i] = i == col;
    }
    chs_cprk_small_solve(k, M, x);
    for (int i = 0; i < k; i++) {
      if (!isfinite(x[i])) {
        return 1;
      }
      c->Cinv[i][col] = x[i];
    }
  }
  return 0;
}

/* dX <- S^{-1} dX for the structured simplified Newton matrix S (see cprk.h):
 *   dP_i + h sum_j ah_ij G0^T dLambda_j = R_P_i,   sum_k a_ik G0 M^{-1} dP_k = R_g_i  (i >= 2),
 * G0 = G(q_n) (c->Gs), Q(q_n) factored in the system's Gram solver: with
 * b_i = G0 M^{-1} sum_k a_ik R_P_k - R_g_i, h (C (x) Q0) dLambda = b, then dP from the first. */
int chs_cprk_structured_solve(chs_cprk *c, const chs_cprk_tableau *tb, sunrealtype h) {
  CHSSystem *sys = c->sys;
  sunindextype n = c->n, m = c->m;
  int s = c->s;
  sunrealtype *R = c->dX, *b = c->ws, *z = b + (s - 1) * m, *u = z + (s - 1) * m;
  if (chs_system_mass_at(sys, c->q) != 0) { /* M(q_n) (no-op for a constant M) */
    return 1;
  }
  for (int i = 1; i < s; i++) {
    memset(u, 0, (size_t)n * sizeof *u);
    for (int k = 0; k < s; k++) {
      sunrealtype w = tb->A[i][k];
      for (sunindextype l = 0; l < n && w != 0; l++) {
        u[l] += w * R[k * n + l];
      }
    }
    chs_mass_inv(sys, u, c->wn1);
    sunrealtype *bi = b + (i - 1) * m;
    chs_jac_mv(sys, c->Gs, c->wn1, bi);
    for (sunindextype l = 0; l < m; l++) {
      bi[l] -= R[s * n + (i - 1) * m + l];
    }
  }
  for (int j = 0; j < s - 1; j++) { /* dLambda_j = Q0^{-1} (1/h) sum_i Cinv_ji b_i */
    sunrealtype *dl = R + s * n + j * m;
    for (sunindextype l = 0; l < m; l++) {
      sunrealtype v = 0;
      for (int i = 0; i < s - 1; i++) {
        v += c->Cinv[j][i] * b[i * m + l];
      }
      dl[l] = v / h;
    }
    if (chs_gram_solve(sys->gram, dl, dl) != 0) {
      return 1;
    }
  }
  for (int k = 0; k < s; k++) { /* dP_k = R_P_k - h G0^T sum_j ah_kj dLambda_j */
    memset(z, 0, (size_t)m * sizeof *z);
    int any = 0;
    for (int j = 0; j < s - 1; j++) {
      sunrealtype w = tb->Ah[k][j];
      for (sunindextype l = 0; l < m && w != 0; l++) {
        z[l] += w * R[s * n + j * m + l];
      }
      any |= w != 0;
    }
    if (any) {
      chs_jac_tmv(sys, c->Gs, z, c->wn1);
      for (sunindextype l = 0; l < n; l++) {
        R[k * n + l] -= h * c->wn1[l];
      }
    }
  }
  return 0;
}

int chs_cprk_trial(chs_cprk *c, const chs_cprk_tableau *tb, sunrealtype h, int warm,
                   CHSError *err) {
  CHSSystem *sys = c->sys;
  const CHSProblemOps *ops = sys->ops;
  sunindextype n = c->n, m = c->m, gs = c->gs;
  int s = c->s;
  if (sys->general) { /* F0 = Fh(q_n, p_n) at t_n for the predictor (it depends on p) */
    if (chs_system_set_time(sys, c->t) != 0 ||
        chs_fixed_step_hforce(sys, c->q, c->p, c->F0, c->gen, c->gen + n) != 0) {
      return chs_error_set(err, CHS_ERR_SOLVER, "%s: force failed at t = %g", c->who, (double)c->t);
    }
    c->force_evals++;
    c->have_force = 1;
  }
  if (!c->have_force) {
    if (ops->force(sys->data, c->q, c->F0) != 0) {
      return chs_error_set(err, CHS_ERR_SOLVER, "%s: force failed at t = %g", c->who, (double)c->t);
    }
    c->force_evals++;
    c->have_force = 1;
  }
  if (!warm || !c->have_x) {
    if (ops->jacobian(sys->data, c->q, c->Gs) != 0) {
      return chs_error_set(err, CHS_ERR_SOLVER, "%s: Jacobian failed at t = %g", c->who,
                           (double)c->t);
    }
    /* Predictor: Lambda_j = the last step's Lambda_s, P_i from the forces at q_n. */
    chs_jac_tmv(sys, c->Gs, c->lam, c->wn1);
    for (int i = 0; i < s; i++) {
      sunrealtype ci = 0;
      for (int j = 0; j < s; j++) {
        ci += tb->Ah[i][j];
      }
      for (sunindextype k = 0; k < n; k++) {
        c->X[i * n + k] = c->p[k] + h * ci * (c->F0[k] - c->wn1[k]);
      }
    }
    for (int j = 0; j < s - 1; j++) {
      memcpy(c->X + s * n + j * m, c->lam, (size_t)m * sizeof *c->lam);
    }
    for (int j = 0; j < s && sys->general; j++) { /* the stage positions' first iterate */
      memcpy(c->Qs + j * n, c->q, (size_t)n * sizeof *c->Qs);
    }
  }
  if (c->structured && (chs_system_gram_at(sys, c->q) != 0 || cprk_structured_setup(c, tb) != 0)) {
    return chs_system_gram_fail(sys, err, c->who, c->t);
  }
  sunrealtype pscale = 1 + chs_norm2(c->p, n) + h * chs_norm2(c->F0, n);
  /* positions' scale: the constraints pin the stage positions Q_i = q_n + h sum_j a_ij M^{-1} P_j
   * only to their rounding level u |q|, so the momenta only to u |M| |q| / h (they exceed
   * u |p| for small h: lobatto:3 stalled at 2e-12 relative with h = 5e-4 on the pendulum) */
  sunrealtype qscale = sqrt(chs_fixed_step_gscale(c->q, n)) * sqrt((sunrealtype)n);
  /* a warm trial (same step, other coefficients) keeps the last factored Newton matrix */
  int have_jac = warm && c->have_x && c->have_jac, converged = 0, stalls = 0, failed = 0;
  sunrealtype prev = INFINITY, best = INFINITY, e = INFINITY, floor = 0, gbest = INFINITY;
  for (int it = 0; it < CPRK_NEWTON_MAX; it++) {
    if (chs_cprk_residual(c, tb, h) != 0) {
      failed = 1;
      break;
    }
    /* the constraint residual of this iterate: at the rounding level, take one near its best */
    sunrealtype gres = chs_norm2(c->dX + s * n, c->N - s * n);
    gbest = fmin(gbest, gres);
    if (c->structured) {
      if (chs_cprk_structured_solve(c, tb, h) != 0) {
        failed = 2;
        break;
      }
    } else {
      if (!have_jac) {
        /* Factor at this iterate (the Jacobian overwrites only J, T and scratch). */
        if (chs_cprk_jacobian(c, tb, h) != 0) {
          failed = 2;
          break;
        }
        have_jac = 1;
      }
      SUNDlsMat_denseGETRS(c->J, c->N, c->piv, c->dX);
    }
    /* size of the increment as its effect on the momenta: |dP|, h |dLambda| */
    sunrealtype dp = 0, dl = 0;
    for (sunindextype k = 0; k < s * n; k++) {
      dp += c->dX[k] * c->dX[k];
    }
    for (sunindextype k = s * n; k < c->N; k++) {
      dl += c->dX[k] * c->dX[k];
    }
    e = (sqrt(dp) + h * sqrt(dl)) / pscale;
    if (sys->general) { /* and the stage positions' sweep, relative to their scale */
      e = fmax(e, c->dq_last / sqrt(chs_fixed_step_gscale(c->q, n)));
    }
    c->newton_iters++;
    if (!isfinite(e)) {
      failed = 1;
      break;
    }
    if (e > c->tol && e <= 1e3 * CPRK_NOISE_MAX && m > 0) {
      /* the rounding floor of the momenta, relative: 16 u (|p| + mu |q| / h) with the mass mu
       * along the increment, |dP| / |M^{-1} dP| */
      sunrealtype dv = 0;
      for (int j = 0; j < s; j++) {
        chs_mass_inv(sys, c->dX + j * n, c->wn1);
        sunrealtype v = chs_norm2(c->wn1, n);
        dv += v * v;
      }
      sunrealtype mu = dv > 0 ? sqrt(dp / dv) : 0;
      floor = 16 * SUN_UNIT_ROUNDOFF * (pscale + mu * qscale / h) / pscale;
    }
    /* at the rounding level: the increment stops shrinking there (a few ulps of the stage
     * values; more with many unknowns). Stalls count the iterations since the last smallest
     * increment (the iteration may cycle through several noise levels; a slow linear contraction,
     * as of the structured Newton, is no stall). */
    stalls = e < best ? 0 : stalls + 1;
    best = fmin(best, e);
    int gok = gres <= 2 * gbest || stalls >= 6;
    /* (M(q): the stage positions' sweep contracts slowly near its rounding level, where a
     * halving rate does not yet mean noise: not taken as convergence) */
    if (e <= c->tol || (!sys->general && it > 0 && e >= 0.5 * prev && e <= 1e3 * c->tol) ||
        (gok && stalls >= 2 && e <= 4 * floor) ||
        (gok && stalls >= 3 && best <= fmax(CPRK_NOISE_MAX, 1e3 * floor))) {
      converged = 1; /* X (with its stage forces) is the solution; the last increment is noise */
      break;
    }
    for (sunindextype k = 0; k < c->N; k++) {
      c->X[k] -= c->dX[k];
    }
    if (it > 0 && e > 0.25 * prev) {
      have_jac = 0; /* slow contraction: new Jacobian at the next iterate */
    }
    prev = e;
  }
  c->have_x = converged;
  c->have_jac = converged && have_jac;
  if (!converged) {
    if (failed == 1) {
      return chs_error_set(err, CHS_ERR_SOLVER,
                           "%s: the stage equations are not finite at t = %g (a force, "
                           "constraint or Jacobian callback failed or overflowed)",
                           c->who, (double)c->t);
    }
    if (failed == 2) {
      return chs_error_set(err, CHS_ERR_SOLVER,
                           "%s: singular Newton matrix for the stages at t = %g (reduce --h)",
                           c->who, (double)c->t);
    }
    if (best <= CPRK_NOISE_MAX) {
      return chs_error_set(err, CHS_ERR_SOLVER,
                           "%s: Newton iteration for the stages stalled at t = %g at a relative "
                           "increment of %.2g, above its rounding level %.2g (a smaller --h "
                           "raises that level; a larger --rtol accepts it)",
                           c->who, (double)c->t, (double)best, (double)floor);
    }
    return chs_error_set(err, CHS_ERR_SOLVER,
                         "%s: Newton iteration for the stages did not converge at t = %g "
                         "(relative increment %.2g; reduce --h)",
                         c->who, (double)c->t, (double)best);
  }
  /* q_{n+1} = Q_s; p~ = p_n + h sum_{j<s} b_j Fc_j + h b_s F(q_{n+1}); psi = 0 by Lambda_s. */
  memcpy(c->q1, c->Qs + (s - 1) * n, (size_t)n * sizeof *c->q1);
  if (sys->general ? chs_system_set_time(sys, c->t + h) != 0 ||
                         chs_fixed_step_hforce(sys, c->q1, c->X + (s - 1) * n, c->F1, c->gen,
                                               c->gen + n) != 0
                   : ops->force(sys->data, c->q1, c->F1) != 0) {
    return chs_error_set(err, CHS_ERR_SOLVER, "%s: force failed at t = %g", c->who,
                         (double)(c->t + h));
  }
  c->force_evals++;
  for (sunindextype k = 0; k < n; k++) {
    sunrealtype v = c->p[k] + h * tb->b[s - 1] * c->F1[k];
    for (int j = 0; j < s - 1; j++) {
      v += h * tb->b[j] * c->Fc[j * n + k];
    }
    c->p1[k] = v;
  }
  if (chs_system_gram_at(sys, c->q1) != 0 || chs_system_time_terms(sys, c->q1) != 0) {
    return chs_system_gram_fail(sys, err, c->who, c->t + h);
  }
  chs_mass_inv(sys, c->p1, c->wn1);
  chs_system_psi(sys, c->wn1, c->wm1); /* G M^{-1} p + g_t */
  CHS_CALL(chs_gram_solve(sys->gram, c->wm1, c->wm1));
  chs_jac_tmv(sys, sys->G, c->wm1, c->wn1);
  for (sunindextype k = 0; k < n; k++) {
    c->p1[k] -= c->wn1[k];
  }
  for (sunindextype k = 0; k < m; k++) {
    c->lam1[k] = c->wm1[k] / (h * tb->b[s - 1]); /* Lambda_s */
  }
  (void)gs;
  return 0;
}

/* out = dFc_j/dQ u = -H(Q_j) u - Gdot(Q_j, u)^T Lambda_j (the stage force's derivative). */

void chs_cprk_accept(chs_cprk *c, sunrealtype h) {
  sunindextype n = c->n, m = c->m;
  memcpy(c->q, c->q1, (size_t)n * sizeof *c->q);
  memcpy(c->p, c->p1, (size_t)n * sizeof *c->p);
  memcpy(c->F0, c->F1, (size_t)n * sizeof *c->F0);
  /* Lambda_s approximates lambda(t_{n+1}): the next step's predictor. */
  memcpy(c->lam, c->lam1, (size_t)m * sizeof *c->lam);
  c->have_x = 0;
  c->have_jac = 0;
  c->t += h;
  c->steps++;
}

void chs_cprk_get_state(const chs_cprk *c, N_Vector y) {
  chs_fixed_step_store(c->q, c->p, c->n, y);
}
