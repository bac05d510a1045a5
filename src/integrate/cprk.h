/* Private: the constrained partitioned Runge-Kutta stepper of Jay (1996) shared by lobatto.c (which
 * implements it) and alpha_prk.c. See the banner of lobatto.c for the equations. */
#ifndef CHS_INTEGRATE_CPRK_H
#define CHS_INTEGRATE_CPRK_H

#include "../impl.h"

#define CHS_CPRK_SMAX 4

/* s stages; A (for q, Lobatto IIIA-like: row 1 zero, row s = b), Ah (for p, column s zero). */
typedef struct {
  int s;
  sunrealtype c[CHS_CPRK_SMAX], b[CHS_CPRK_SMAX];
  sunrealtype A[CHS_CPRK_SMAX][CHS_CPRK_SMAX], Ah[CHS_CPRK_SMAX][CHS_CPRK_SMAX];
} chs_cprk_tableau;

/* Lobatto IIIA-IIIB with s = 2 .. CHS_CPRK_SMAX stages; -1 for other s. */
int chs_lobatto_tableau(int s, chs_cprk_tableau *t);
/* The alpha-PRK member (alpha_prk.c): Lobatto s (3 .. CHS_CPRK_SMAX) perturbed by alpha along
 * direction k (0: D_1, 1: D_2); -1 for other s or k. */
int chs_alpha_prk_tableau(int s, int k, sunrealtype alpha, chs_cprk_tableau *t);
/* max_ij |b_i ah_ij + b_j a_ji - b_i b_j| (0 for a symplectic pair). */
sunrealtype chs_cprk_symplectic_defect(const chs_cprk_tableau *t);

typedef struct {
  CHSFormulation f;
  CHSSystem *sys;
  const char *who; /* method name for messages */
  int s;
  sunrealtype h, tol, t;
  sunindextype n, m, N, gs;  /* N = s n + (s - 1) m unknowns */
  sunrealtype *q, *p, *F0;   /* state and F(q) */
  sunrealtype *q1, *p1, *F1; /* result of the last trial step and F(q1) */
  sunrealtype *X, *dX;       /* unknowns (P_1 .. P_s, Lambda_1 .. Lambda_{s-1}), increment */
  sunrealtype *Qs, *Vs, *Fc; /* s x n: stage positions, M^{-1} P_j, F(Q_j) - G(Q_j)^T Lambda_j */
  sunrealtype *Gs;           /* s x gs: G(Q_j) */
  sunrealtype *T;            /* s x n x n: (d f_j / dQ) M^{-1}, column-major per stage */
  sunrealtype *Gd, *lam, *lam1, *wn1, *wn2, *wm1; /* lam: predictor, lam1: Lambda_s */
  sunrealtype **J;                                /* N x N Newton matrix, SUNDlsMat column-major */
  sunindextype *piv;
  long steps, force_evals, jac_setups, newton_iters;
  int have_force, have_x, have_jac; /* have_jac: J factored near X (valid in the step) */
  int structured;                   /* the structured simplified Newton (no J, no T) */
  sunrealtype Cinv[CHS_CPRK_SMAX][CHS_CPRK_SMAX]; /* its (s-1) x (s-1) C^{-1} */
  sunrealtype *ws;                                /* its work: 2 (s-1) m + n */
  sunrealtype *tbuf; /* tangent map: 3 s n + 2 n + m, allocated on first use */
  /* M(q) or explicit time dependence (sys->general; docs/mechanics.md "Symplectic methods for
   * M(q) and g(q,t)"): the stage positions Q_j are iterated with the unknowns (Q_i = q_n +
   * h sum_j a_ij M(Q_j)^{-1} P_j), the stage forces are Fh(Q_j, P_j) = -H_q at t_n + c_j h */
  sunrealtype *gen;    /* 2 n: a velocity and the work of chs_fixed_step_hforce */
  sunrealtype dq_last; /* the last sweep's largest change of a stage position */
  void *tw;            /* its chs_tangent_work */
} chs_cprk;

/* The stage Newton iteration: exact dense Jacobian (N <= 3000 unknowns), or structured (any
 * size): the simplified Newton matrix with the force Jacobians dropped and G frozen at q_n, whose
 * Schur complement is C (x) Q(q_n) with the (s-1) x (s-1) matrix C = (A Ah) restricted: s - 1
 * Gram solves per iteration, O(N) with a band or KLU Gram solver. auto: dense when it fits. */
enum { CHS_CPRK_NEWTON_AUTO, CHS_CPRK_NEWTON_DENSE, CHS_CPRK_NEWTON_STRUCTURED };
/* options without a trailing ":newton=dense|structured" into buf (size len), the mode into *mode;
 * -1 for another newton= value. */
int chs_cprk_newton_option(const char *options, char *buf, size_t len, int *mode);
int chs_cprk_create(const char *who, CHSFormulation f, N_Vector y0, sunrealtype t0,
                    const CHSStepControl *ctl, int s, int newton, chs_cprk **out, CHSError *err);
void chs_cprk_destroy(chs_cprk *c);
/* One trial step of size h from (q, p) with tableau tb into (q1, p1); warm: start the Newton
 * iteration from the last solution X (same step, other coefficients) instead of a predictor.
 * 0, or CHS_ERR_SOLVER with a message. */
int chs_cprk_trial(chs_cprk *c, const chs_cprk_tableau *tb, sunrealtype h, int warm, CHSError *err);
/* The trial step's derivative (for tangent maps), after a successful trial with tableau tb:
 * setup refactors the Newton matrix at the solution; apply maps one tangent (dq, dp) at (q, p),
 * plus dalpha times the derivative along the tableau direction dtb (A, Ah: dA/dalpha,
 * dAh/dalpha; b fixed; NULL: none), into (dq1, dp1) in place. 0 or CHS_ERR_SOLVER. */
int chs_cprk_tangent_setup(chs_cprk *c, const chs_cprk_tableau *tb, sunrealtype h, CHSError *err);
/* CHS_ERR_UNSUPPORTED (before any step) for M(q) or time dependence: no exact tangent map. */
int chs_cprk_tangent_need_constant(const chs_cprk *c, CHSError *err);
int chs_cprk_tangent_apply(chs_cprk *c, const chs_cprk_tableau *tb, const chs_cprk_tableau *dtb,
                           sunrealtype dalpha, sunrealtype h, sunrealtype *dq, sunrealtype *dp,
                           CHSError *err);
/* Between the stepper's files (cprk.c, cprk_tangent.c, lobatto.c): the stage system's residual,
 * its dense Jacobian and the structured Newton solve at step h with tableau tb (0 or a code), and
 * the k x k solve of the tableau coefficients (Gaussian elimination with partial pivoting, M
 * overwritten). */
#define CPRK_NEWTON_MAX 60
int chs_cprk_residual(chs_cprk *c, const chs_cprk_tableau *tb, sunrealtype h);
int chs_cprk_jacobian(chs_cprk *c, const chs_cprk_tableau *tb, sunrealtype h);
int chs_cprk_structured_solve(chs_cprk *c, const chs_cprk_tableau *tb, sunrealtype h);
void chs_cprk_small_solve(int k, sunrealtype M[CHS_CPRK_SMAX][CHS_CPRK_SMAX], sunrealtype *x);
/* Make (q1, p1) the new state at t + h. */
void chs_cprk_accept(chs_cprk *c, sunrealtype h);
/* Copy the state into y (physical (q, p)). */
void chs_cprk_get_state(const chs_cprk *c, N_Vector y);

#endif
