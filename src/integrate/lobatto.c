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
 * The stepper (shared with alpha_prk.c) is in cprk.c and cprk_tangent.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_dense.h>
#include "cprk.h"
#include "fixed_step.h"
#include "tangent.h"

/* ------------------------------------------------------------------ coefficients */

/* Solve the k x k system M x = r (row-major M, overwritten) by Gaussian elimination with partial
 * pivoting; k <= CHS_CPRK_SMAX. */
void chs_cprk_small_solve(int k, sunrealtype M[CHS_CPRK_SMAX][CHS_CPRK_SMAX], sunrealtype *x) {
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
    return CHS_ERR_ARG;
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
    chs_cprk_small_solve(s, V, x);
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
