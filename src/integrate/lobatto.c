/* Lobatto IIIA-IIIB partitioned Runge-Kutta methods for constrained Hamiltonian systems
 * (L. O. Jay, SIAM J. Numer. Anal. 33 (1996) 368-387; Hairer-Lubich-Wanner, Geometric Numerical
 * Integration, VII.1.4 and VII.2; [Li & Wang] Sec. 2, (2.1)-(2.7), (2.11)-(2.12)), for
 * H = 1/2 p^T M^{-1} p + V(q), g(q) = 0, F = -grad V, G = dg/dq, on the physical (q, p):
 *
 *   Q_i = q_n + h sum_j a_ij M^{-1} P_j,                                i = 1 .. s
 *   P_i = p_n + h sum_j ah_ij (F(Q_j) - G(Q_j)^T Lambda_j),             i = 1 .. s
 *   0 = g(Q_i),                                                         i = 2 .. s
 *   q_{n+1} = Q_s,   p_{n+1} = p_n + h sum_j b_j (F(Q_j) - G(Q_j)^T Lambda_j),
 *   0 = G(q_{n+1}) M^{-1} p_{n+1}.
 *
 * (a_ij) is Lobatto IIIA (collocation at the Lobatto nodes: row 1 zero, so Q_1 = q_n, and row s
 * equal to b, so q_{n+1} = Q_s satisfies g), (ah_ij) is Lobatto IIIB, here computed from IIIA by
 * the symplecticity condition b_i ah_ij + b_j a_ji = b_i b_j ([Li & Wang] (2.2)); it has ah_is = 0,
 * so Lambda_s appears only in p_{n+1} and is fixed by the hidden constraint psi = 0 ([Li & Wang]
 * (2.3)-(2.7)). The stage system has s n + (s - 1) m unknowns (P_1 .. P_s, Lambda_1 ..
 * Lambda_{s-1}) and as many equations; it is solved by Newton's method with the exact dense
 * Jacobian (Hessian-vector products of V and Gdot(Q, u)^T Lambda for the stage forces), LU
 * factored with SUNDlsMat_denseGETRF, kept while the iteration contracts fast (simplified
 * Newton), to round-off or to --rtol when given. Lambda_s then costs one Gram solve at q_{n+1}.
 * Above 3000 unknowns (or with :newton=structured) the dense matrix is not formed: the Newton
 * matrix drops the stage-force Jacobians (O(h^2)) and freezes G at q_n (O(h)), so that its Schur
 * complement is C (x) Q(q_n) with the small matrix C_ij = sum_k a_ik ah_kj (i >= 2, j < s): each
 * iteration costs s - 1 solves with the formulation's Gram solver (band for chains: O(N)), and
 * the iteration contracts linearly at that O(h) rate to the same solution (test_lobatto: dense
 * and structured agree to 1e-16 after a step). Its tangent map solves with the exact stage
 * Jacobian without forming it: refinement with J v products, preconditioned by the structured
 * matrix, to round-off.
 *
 * s = 2 is SHAKE/RATTLE (rattle.c), s = 3 has order 4, s = 4 order 6 (order 2s - 2). Symplectic,
 * symmetric; g and psi hold to the Newton tolerance. Force evaluations F(Q_j) are counted as
 * right-hand side evaluations (F(Q_1) = F(q_n) is the previous step's F(Q_s)). Fixed steps only.
 *
 * This file also holds the stepper shared with alpha_prk.c (cprk.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_dense.h>
#include "cprk.h"
#include "fixed_step.h"
#include "tangent.h"

#define CPRK_NEWTON_MAX 60
#define CPRK_NOISE_MAX 1e-9 /* largest relative increment taken for rounding noise */
/* the dense Newton matrix: N^2 doubles, O(N^3) per factorisation */
#define CPRK_DENSE_MAX 3000

/* ------------------------------------------------------------------ coefficients */

/* Solve the k x k system M x = r (row-major M, overwritten) by Gaussian elimination with partial
 * pivoting; k <= CHS_CPRK_SMAX. */
static void small_solve(int k, sunrealtype M[CHS_CPRK_SMAX][CHS_CPRK_SMAX], sunrealtype *x) {
  for (int c = 0; c < k; c++) {
    int piv = c;
    for (int r = c + 1; r < k; r++) {
      if (fabs(M[r][c]) > fabs(M[piv][c])) {
        piv = r;
      }
    }
    for (int j = 0; j < k; j++) {
      sunrealtype t = M[c][j];
      M[c][j] = M[piv][j];
      M[piv][j] = t;
    }
    sunrealtype t = x[c];
    x[c] = x[piv];
    x[piv] = t;
    for (int r = c + 1; r < k; r++) {
      sunrealtype l = M[r][c] / M[c][c];
      for (int j = c; j < k; j++) {
        M[r][j] -= l * M[c][j];
      }
      x[r] -= l * x[c];
    }
  }
  for (int r = k - 1; r >= 0; r--) {
    for (int j = r + 1; j < k; j++) {
      x[r] -= M[r][j] * x[j];
    }
    x[r] /= M[r][r];
  }
}

int chs_lobatto_tableau(int s, chs_cprk_tableau *t) {
  memset(t, 0, sizeof *t);
  if (s < 2 || s > CHS_CPRK_SMAX) {
    return -1;
  }
  t->s = s;
  if (s == 2) {
    t->c[1] = 1;
  } else if (s == 3) {
    t->c[1] = 0.5;
    t->c[2] = 1;
  } else {
    t->c[1] = (5 - sqrt(5.0)) / 10;
    t->c[2] = (5 + sqrt(5.0)) / 10;
    t->c[3] = 1;
  }
  /* b: sum_j b_j c_j^k = 1/(k+1); IIIA rows: sum_j a_ij c_j^k = c_i^(k+1)/(k+1), k < s. */
  for (int i = -1; i < s; i++) {
    sunrealtype V[CHS_CPRK_SMAX][CHS_CPRK_SMAX], x[CHS_CPRK_SMAX];
    sunrealtype ci = i < 0 ? 1 : t->c[i];
    for (int k = 0; k < s; k++) {
      for (int j = 0; j < s; j++) {
        V[k][j] = pow(t->c[j], k);
      }
      x[k] = pow(ci, k + 1) / (k + 1);
    }
    small_solve(s, V, x);
    for (int j = 0; j < s; j++) {
      if (i < 0) {
        t->b[j] = x[j];
      } else {
        t->A[i][j] = x[j];
      }
    }
  }
  /* Exact structure: Q_1 = q_n and Q_s = q_{n+1}. */
  for (int j = 0; j < s; j++) {
    t->A[0][j] = 0;
    t->A[s - 1][j] = t->b[j];
  }
  for (int i = 0; i < s; i++) {
    for (int j = 0; j < s; j++) {
      t->Ah[i][j] = t->b[j] * (1 - t->A[j][i] / t->b[i]);
    }
    t->Ah[i][s - 1] = 0;
  }
  return 0;
}

sunrealtype chs_cprk_symplectic_defect(const chs_cprk_tableau *t) {
  sunrealtype d = 0;
  for (int i = 0; i < t->s; i++) {
    for (int j = 0; j < t->s; j++) {
      d = fmax(d, fabs(t->b[i] * t->Ah[i][j] + t->b[j] * t->A[j][i] - t->b[i] * t->b[j]));
    }
  }
  return d;
}

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
    return -1; /* too long to be one of ours: not truncated into a valid one */
  }
  if (k) {
    const char *v = k + strlen(":newton=");
    if (strcmp(v, "dense") == 0) {
      *mode = CHS_CPRK_NEWTON_DENSE;
    } else if (strcmp(v, "structured") == 0) {
      *mode = CHS_CPRK_NEWTON_STRUCTURED;
    } else {
      return -1;
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
static int cprk_residual(chs_cprk *c, const chs_cprk_tableau *tb, sunrealtype h) {
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

/* The Newton matrix dR/dX at X (after cprk_residual). Rows/columns: P_i blocks (i n), then
 * Lambda_j / g(Q_{i+1}) blocks (s n + j m). */
static int cprk_jacobian(chs_cprk *c, const chs_cprk_tableau *tb, sunrealtype h) {
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
    small_solve(k, M, x);
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
static int cprk_structured_solve(chs_cprk *c, const chs_cprk_tableau *tb, sunrealtype h) {
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
    if (cprk_residual(c, tb, h) != 0) {
      failed = 1;
      break;
    }
    /* the constraint residual of this iterate: at the rounding level, take one near its best */
    sunrealtype gres = chs_norm2(c->dX + s * n, c->N - s * n);
    gbest = fmin(gbest, gres);
    if (c->structured) {
      if (cprk_structured_solve(c, tb, h) != 0) {
        failed = 2;
        break;
      }
    } else {
      if (!have_jac) {
        /* Factor at this iterate (the Jacobian overwrites only J, T and scratch). */
        if (cprk_jacobian(c, tb, h) != 0) {
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
static int cprk_stage_force_jv(chs_cprk *c, int j, const sunrealtype *u, sunrealtype *out) {
  CHSSystem *sys = c->sys;
  const CHSProblemOps *ops = sys->ops;
  sunindextype n = c->n;
  const sunrealtype *Q = c->Qs + j * n;
  memset(out, 0, (size_t)n * sizeof *out);
  if (chs_hessian_v(sys, Q, u, out) != 0) {
    return 1;
  }
  if (ops->jacobian_dot(sys->data, Q, u, c->Gd) != 0) {
    return 1;
  }
  chs_jac_tmv(sys, c->Gd, c->X + c->s * n + j * c->m, c->wn1);
  for (sunindextype k = 0; k < n; k++) {
    out[k] = -out[k] - c->wn1[k];
  }
  return 0;
}

/* out = J v, the exact stage Jacobian dR/dX at the solution applied to v (matrix-free):
 * dQ_j = h sum_k a_jk M^{-1} v_P_k, out_P_i = v_P_i - h sum_{j<s} ah_ij (dFc_j/dQ dQ_j -
 * G(Q_j)^T v_Lambda_j), out_g_i = G(Q_i) dQ_i / h. jq: s n of scratch. */
static int cprk_jv(chs_cprk *c, const chs_cprk_tableau *tb, sunrealtype h, const sunrealtype *v,
                   sunrealtype *out, sunrealtype *jq) {
  CHSSystem *sys = c->sys;
  sunindextype n = c->n, m = c->m, gs = c->gs;
  int s = c->s;
  sunrealtype *a = c->wn2;
  for (int k = 0; k < s; k++) {
    chs_mass_inv(sys, v + k * n, out + k * n); /* out_P as scratch: M^{-1} v_P_k */
  }
  for (int j = 0; j < s; j++) {
    sunrealtype *d = jq + j * n;
    memset(d, 0, (size_t)n * sizeof *d);
    for (int k = 0; k < s; k++) {
      sunrealtype w = h * tb->A[j][k];
      for (sunindextype l = 0; l < n && w != 0; l++) {
        d[l] += w * out[k * n + l];
      }
    }
  }
  memcpy(out, v, (size_t)(s * n) * sizeof *out);
  for (int j = 0; j < s - 1; j++) {
    if (cprk_stage_force_jv(c, j, jq + j * n, a) != 0) {
      return 1;
    }
    chs_jac_tmv(sys, c->Gs + j * gs, v + s * n + j * m, c->wn1);
    for (int i = 0; i < s; i++) {
      sunrealtype w = h * tb->Ah[i][j];
      for (sunindextype l = 0; l < n && w != 0; l++) {
        out[i * n + l] -= w * (a[l] - c->wn1[l]);
      }
    }
  }
  for (int i = 1; i < s; i++) {
    sunrealtype *r = out + s * n + (i - 1) * m;
    chs_jac_mv(sys, c->Gs + i * gs, jq + i * n, r);
    for (sunindextype l = 0; l < m; l++) {
      r[l] /= h;
    }
  }
  return 0;
}

/* dX <- J^{-1} dX with the exact stage Jacobian, without forming it: refinement x += S^{-1} (b - J
 * x) with the structured matrix S (Q factored at q_n for it, at q_{n+1} again afterwards for the
 * momentum projection's tangent), to round-off. work: 2 N + s n. */
static int cprk_structured_exact(chs_cprk *c, const chs_cprk_tableau *tb, sunrealtype h,
                                 sunrealtype *work) {
  sunindextype N = c->N;
  sunrealtype *b = work, *x = b + N, *jq = x + N, *dX = c->dX;
  if (chs_system_gram_at(c->sys, c->q) != 0) {
    return 1;
  }
  memcpy(b, dX, (size_t)N * sizeof *b);
  memset(x, 0, (size_t)N * sizeof *x);
  sunrealtype prev = INFINITY;
  int rc = 1;
  for (int it = 0; it < CPRK_NEWTON_MAX; it++) {
    if (it > 0) { /* dX = b - J x */
      if (cprk_jv(c, tb, h, x, dX, jq) != 0) {
        break;
      }
      for (sunindextype l = 0; l < N; l++) {
        dX[l] = b[l] - dX[l];
      }
    }
    if (cprk_structured_solve(c, tb, h) != 0) {
      break;
    }
    sunrealtype step = 0, size = 0;
    for (sunindextype l = 0; l < N; l++) {
      x[l] += dX[l];
      step = fmax(step, fabs(dX[l]));
      size = fmax(size, fabs(x[l]));
    }
    if (!isfinite(step)) {
      break;
    }
    if (step <= 4 * SUN_UNIT_ROUNDOFF * size ||
        (it > 1 && step >= 0.5 * prev && step <= 1e3 * SUN_UNIT_ROUNDOFF * size)) {
      rc = 0;
      break;
    }
    prev = step;
  }
  memcpy(dX, x, (size_t)N * sizeof *dX);
  if (chs_system_gram_at(c->sys, c->q1) != 0) {
    rc = 1;
  }
  return rc;
}

int chs_cprk_tangent_need_constant(const chs_cprk *c, CHSError *err) {
  return c->sys->general ? chs_error_set(err, CHS_ERR_UNSUPPORTED,
                                         "%s: no exact tangent map for M(q) or explicit time "
                                         "dependence (it needs second derivatives of M(q))",
                                         c->who)
                         : 0;
}

int chs_cprk_tangent_setup(chs_cprk *c, const chs_cprk_tableau *tb, sunrealtype h, CHSError *err) {
  CHSSystem *sys = c->sys;
  sunindextype n = c->n, m = c->m;
  int s = c->s;
  if (!c->tbuf) { /* dQ, E, vd (s n each), a, dpt (n), mu (m); structured: rhs, x (N), jq (s n) */
    size_t extra = c->structured ? 2 * (size_t)c->N + (size_t)s * (size_t)n : 0;
    c->tbuf =
        malloc((3 * (size_t)s * (size_t)n + 2 * (size_t)n + (size_t)m + extra) * sizeof *c->tbuf);
    c->tw = calloc(1, sizeof(chs_tangent_work));
    if (!c->tbuf || !c->tw || chs_tangent_work_alloc(c->tw, sys) != 0) {
      return chs_error_set(err, CHS_ERR_MEM, "out of memory");
    }
  }
  /* the exact Newton matrix at the solution (the iteration may have used an older one); the
   * structured Newton solves with it by refinement (cprk_structured_exact) instead */
  if (cprk_residual(c, tb, h) != 0 || (!c->structured && cprk_jacobian(c, tb, h) != 0)) {
    return chs_error_set(err, CHS_ERR_SOLVER, "%s: tangent map: stage Jacobian failed at t = %g",
                         c->who, (double)c->t);
  }
  sunrealtype *mu = c->tbuf + 3 * (size_t)s * (size_t)n + 2 * (size_t)n;
  for (sunindextype l = 0; l < m; l++) {
    mu[l] = h * tb->b[s - 1] * c->lam1[l];
  }
  return 0;
}

/* The stage equations R(X; q, p, alpha) = 0 linearised at the solution X. With e_j the explicit
 * variation of Q_j, dq + dalpha h sum_k D_jk M^{-1} P_j (dtb = (D, Dh), the tableau's derivative;
 * all Q_j move with q):
 *   J dX = dp + h sum_{j<s} ah_ij (dFc_j/dQ) e_j + dalpha h sum_{j<s} Dh_ij Fc_j   (P rows),
 *          -G(Q_i) e_i / h                                                        (g rows);
 * dQ_j = e_j + h sum_k a_jk M^{-1} dP_k, dq1 = dQ_s,
 * dpt = dp + h sum_{j<s} b_j (dFc_j/dQ dQ_j - G(Q_j)^T dLambda_j) - h b_s H(q1) dq1 (b does not
 * depend on alpha), and the projection psi(q1, p1) = 0 with mu = h b_s Lambda_s (tangent.h). */
int chs_cprk_tangent_apply(chs_cprk *c, const chs_cprk_tableau *tb, const chs_cprk_tableau *dtb,
                           sunrealtype dalpha, sunrealtype h, sunrealtype *dq, sunrealtype *dp,
                           CHSError *err) {
  CHSSystem *sys = c->sys;
  sunindextype n = c->n, m = c->m, gs = c->gs;
  int s = c->s;
  sunrealtype *dQ = c->tbuf, *E = dQ + s * n, *vd = E + s * n, *a = vd + s * n, *dpt = a + n;
  sunrealtype *mu = dpt + n, *dX = c->dX;
  int rc = 0;
  for (int j = 0; j < s; j++) {
    sunrealtype *e = E + j * n;
    memcpy(e, dq, (size_t)n * sizeof *e);
    for (int k = 0; k < s && dtb && dalpha != 0; k++) {
      sunrealtype w = h * dalpha * dtb->A[j][k];
      for (sunindextype l = 0; l < n && w != 0; l++) {
        e[l] += w * c->Vs[k * n + l];
      }
    }
  }
  for (int i = 0; i < s; i++) {
    memcpy(dX + i * n, dp, (size_t)n * sizeof *dX);
  }
  for (int j = 0; j < s - 1 && rc == 0; j++) {
    rc = cprk_stage_force_jv(c, j, E + j * n, a);
    for (int i = 0; i < s; i++) {
      sunrealtype w = h * tb->Ah[i][j], wa = dtb ? h * dalpha * dtb->Ah[i][j] : 0;
      for (sunindextype l = 0; l < n && (w != 0 || wa != 0); l++) {
        dX[i * n + l] += w * a[l] + wa * c->Fc[j * n + l];
      }
    }
  }
  for (int i = 1; i < s; i++) {
    sunrealtype *r = dX + s * n + (i - 1) * m;
    chs_jac_mv(sys, c->Gs + i * gs, E + i * n, r);
    for (sunindextype l = 0; l < m; l++) {
      r[l] = -r[l] / h;
    }
  }
  if (rc == 0 && !c->structured) {
    SUNDlsMat_denseGETRS(c->J, c->N, c->piv, dX);
  } else if (rc == 0) {
    rc = cprk_structured_exact(c, tb, h, mu + m);
  }
  for (int j = 0; j < s; j++) {
    chs_mass_inv(sys, dX + j * n, vd + j * n);
  }
  for (int i = 0; i < s; i++) {
    sunrealtype *d = dQ + i * n;
    memcpy(d, E + i * n, (size_t)n * sizeof *d);
    for (int j = 0; j < s; j++) {
      sunrealtype w = h * tb->A[i][j];
      for (sunindextype l = 0; l < n && w != 0; l++) {
        d[l] += w * vd[j * n + l];
      }
    }
  }
  memcpy(dpt, dp, (size_t)n * sizeof *dpt);
  for (int j = 0; j < s - 1 && rc == 0; j++) {
    rc = cprk_stage_force_jv(c, j, dQ + j * n, a);
    chs_jac_tmv(sys, c->Gs + j * gs, dX + s * n + j * m, c->wn2);
    for (sunindextype l = 0; l < n; l++) {
      dpt[l] += h * tb->b[j] * (a[l] - c->wn2[l]);
    }
  }
  sunrealtype *dq1 = dQ + (s - 1) * n;
  if (rc == 0) {
    rc = chs_tangent_kick(sys, c->q1, dq1, h * tb->b[s - 1], dpt, c->tw);
  }
  if (rc == 0) {
    rc = chs_tangent_momentum(sys, c->q1, c->p1, mu, dq1, dpt, c->tw);
  }
  if (rc != 0) {
    return chs_error_set(err, CHS_ERR_SOLVER, "%s: tangent map failed at t = %g", c->who,
                         (double)c->t);
  }
  memcpy(dq, dq1, (size_t)n * sizeof *dq);
  memcpy(dp, dpt, (size_t)n * sizeof *dp);
  return 0;
}

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

/* ------------------------------------------------------------------ lobatto:s */

typedef struct {
  chs_cprk *c;
  chs_cprk_tableau tb;
} lobatto_mem;

static const char *lobatto_method_name(int i) {
  static const char *const names[] = {"2", "3", "4"};
  return i >= 0 && i < 3 ? names[i] : NULL;
}

static void lobatto_destroy(void *mem) {
  lobatto_mem *l = mem;
  if (l) {
    chs_cprk_destroy(l->c);
    free(l);
  }
}

static int lobatto_create(const char *options, CHSFormulation f, N_Vector y0, sunrealtype t0,
                          const CHSStepControl *ctl, void **out, CHSError *err) {
  char *end = NULL, opt[32];
  int newton = 0;
  if (chs_cprk_newton_option(options, opt, sizeof opt, &newton) != 0) {
    const char *k = options ? strstr(options, ":newton=") : NULL;
    return chs_error_set(err, CHS_ERR_NOTFOUND,
                         "unknown method 'lobatto:%s': bad value '%s' of newton= (use "
                         "newton=dense or newton=structured; lobatto:2, lobatto:3 or lobatto:4)",
                         options ? options : "", k ? k + strlen(":newton=") : "");
  }
  long s = *opt ? strtol(opt, &end, 10) : 0;
  if (!*opt || *end != '\0' || s < 2 || s > CHS_CPRK_SMAX) {
    return chs_error_set(err, CHS_ERR_NOTFOUND,
                         "unknown method 'lobatto%s%s' (use lobatto:2, lobatto:3 or lobatto:4: "
                         "the number of stages; :newton=dense|structured)",
                         options && *options ? ":" : "", options ? options : "");
  }
  static const char *const who[] = {"", "", "lobatto:2", "lobatto:3", "lobatto:4"};
  lobatto_mem *l = calloc(1, sizeof *l);
  if (!l) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  chs_lobatto_tableau((int)s, &l->tb);
  int rc = chs_cprk_create(who[s], f, y0, t0, ctl, (int)s, newton, &l->c, err);
  if (rc != 0) {
    free(l);
    return rc;
  }
  *out = l;
  return CHS_SUCCESS;
}

static int lobatto_step(void *mem, sunrealtype h, CHSError *err) {
  lobatto_mem *l = mem;
  CHS_CALL(chs_cprk_trial(l->c, &l->tb, h, 0, err));
  chs_cprk_accept(l->c, h);
  return 0;
}

static int lobatto_tangent_step(void *mem, sunrealtype h, int k, sunrealtype *dz, N_Vector y,
                                CHSError *err) {
  lobatto_mem *l = mem;
  CHS_CALL(chs_tangent_need_solved(l->c->tol, 8 * SUN_UNIT_ROUNDOFF, l->c->who, err));
  CHS_CALL(chs_cprk_tangent_need_constant(l->c, err));
  CHS_CALL(chs_cprk_trial(l->c, &l->tb, h, 0, err));
  CHS_CALL(chs_cprk_tangent_setup(l->c, &l->tb, h, err));
  for (int j = 0; j < k; j++) {
    sunrealtype *dq = dz + 2 * l->c->n * j;
    CHS_CALL(chs_cprk_tangent_apply(l->c, &l->tb, NULL, 0, h, dq, dq + l->c->n, err));
  }
  chs_cprk_accept(l->c, h);
  chs_cprk_get_state(l->c, y);
  return 0;
}

static int lobatto_evolve(void *mem, sunrealtype tout, N_Vector y, sunrealtype *tret, int one_step,
                          CHSError *err) {
  lobatto_mem *l = mem;
  chs_cprk *c = l->c;
  int rc = chs_fixed_step_evolve(l, lobatto_step, &c->t, c->h, tout, one_step, err);
  chs_cprk_get_state(c, y);
  *tret = c->t;
  return rc;
}

static int lobatto_stats(void *mem, CHSIntegratorStats *st) {
  lobatto_mem *l = mem;
  chs_fixed_step_stats(st, l->c->steps, l->c->force_evals, l->c->jac_setups);
  return 0;
}

const CHSIntegratorOps chs_integrator_lobatto = {
    .family = "lobatto",
    .summary = "Lobatto IIIA-IIIB (Jay): s = 2 is RATTLE, order 2s-2, symplectic, g and psi to "
               "the Newton tolerance; :newton=dense|structured (default: dense up to 3000 "
               "unknowns)",
    .method_name = lobatto_method_name,
    .create = lobatto_create,
    .evolve = lobatto_evolve,
    .get_stats = lobatto_stats,
    .needs_hamiltonian = 1, /* kicks with -H_q only (no non-conservative force) */
    .destroy = lobatto_destroy,
    .tangent_step = lobatto_tangent_step,
};
