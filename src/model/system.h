/* The constrained system every formulation is built from: sizes, G and Gdot, M(q), the named
 * scratch, kinematics, forces and the common field. Private (not installed). */
#ifndef CHS_MODEL_SYSTEM_H
#define CHS_MODEL_SYSTEM_H

#include "base/base.h"
#include "model/gram.h"
#include "model/problem_impl.h"

/* ------------------------------------------------------------------ system
 * A problem bound to its sizes, inverse mass matrix, Jacobian storage, Gram solver, scratch
 * vectors and counters. One per formulation (no sharing, so formulations are reentrant). */
/* The system's scratch vectors, s->wn[k] of length n and s->wm[k] of length m, named by the
 * kernels that write them. A kernel writes only the slots listed for it (and those of the kernels
 * it calls); any slot is the caller's own scratch between two kernel calls that do not write it.
 * Every formulation, projector and diagnostics object has a system of its own, so only the
 * kernels and one caller ever share a slot.
 *   CHS_WN_V, CHS_WN_F, CHS_WN_MINV_F  chs_system_kinematics: v = M^{-1} p, F (unless the caller
 *                                      passes its own), M^{-1} F; chs_system_energy: the first two
 *   CHS_WN_A, CHS_WN_B                 no kernel
 *   CHS_WN_C                           chs_block_mass_terms (a - b)
 *   CHS_WN_FIELD                       chs_system_field; the block helpers (a column)
 *   CHS_WN_FORCE                       chs_system_force (Fnc; so also the kinematics), the Gram
 *                                      assembly (a row), the block helpers (a unit vector)
 *   CHS_WM_PSI, CHS_WM_R, CHS_WM_LAMBDA, CHS_WM_TMP
 *                                      chs_system_kinematics: psi, r, lambda and its own
 *   CHS_WM_A, CHS_WM_B                 no kernel
 *   CHS_WM_BLOCK, CHS_WM_BLOCK2        chs_gram_solve_columns, chs_block_third
 * The M(q) and time-dependent paths have more: xn[], xm[]. */
enum {
  CHS_WN_V,
  CHS_WN_F,
  CHS_WN_MINV_F,
  CHS_WN_A,
  CHS_WN_B,
  CHS_WN_C,
  CHS_WN_FIELD,
  CHS_WN_FORCE,
  CHS_SCRATCH_N
};
enum {
  CHS_WM_PSI,
  CHS_WM_R,
  CHS_WM_LAMBDA,
  CHS_WM_TMP,
  CHS_WM_A,
  CHS_WM_B,
  CHS_WM_BLOCK,
  CHS_WM_BLOCK2,
  CHS_SCRATCH_M
};
#define CHS_CSR_BLOCK 256
typedef struct CHSSystem {
  CHSProblem prob;
  const CHSProblemOps *ops;
  void *data;
  sunindextype n, m;
  CHSMassKind mass_kind;
  sunrealtype *minv; /* n (diagonal) or n*n row-major (dense); NULL for identity */
  CHSJacKind jac_kind;
  sunindextype gsize; /* m*n (dense) or nnz (CSR) */
  const sunindextype *rowptr, *colind;
  int32_t *rp32, *ci32; /* CSR: the same pattern in 32 bits (the kernels' index traffic) */
  int32_t *blk_end;     /* CSR: 1 + the largest column of rows b B .. (b+1) B - 1 (B =
                           CHS_CSR_BLOCK; 0 if none), for passes that set their output's
                           columns block by block, just before the rows that touch them */
  sunrealtype *G, *Gd;  /* G(q) and Gdot(q, v) at the current point */
  sunrealtype *block;   /* G, Gd, wn and wm: one allocation (chs_calloc_big) */
  sunrealtype *MinvGt;  /* dense mass only: n x m Gram scratch (column j = M^{-1} g_j) */
  CHSGram *gram;
  sunrealtype *wn[CHS_SCRATCH_N]; /* scratch of length n, by name (CHS_WN_*, above) */
  sunrealtype *wm[CHS_SCRATCH_M]; /* scratch of length m, by name (CHS_WM_*, above) */
  long n_gram_factor;
  /* M(q) and explicit time dependence (docs/mechanics.md); all NULL / 0 for constant-mass
   * autonomous problems, whose paths never look further than `general`. */
  int general;                 /* mass_kind == CHS_MASS_CONFIG or time_dependent != 0 */
  unsigned time_bits;          /* dims.time_dependent */
  sunrealtype *mfac;           /* CONFIG: Cholesky factor of M(q) at mq (n x n, LAPACK's lower) */
  sunrealtype *mq;             /* CONFIG: the point of the factorisation */
  int mq_valid;                /* CONFIG: mfac holds M(mq) factored */
  sunrealtype *mvals;          /* CONFIG with a CSR pattern: the mass_nnz values */
  struct chs_mass_sparse *msp; /* CONFIG with a CSR pattern: its sparse Cholesky factor (CHOLMOD:
                                  symbolic analysis once, numeric per point; mfac is unused) */
  sunrealtype *Gt;             /* TIME_CONSTRAINTS: G_t (stored like G) */
  sunrealtype *gt, *gtt;       /* TIME_CONSTRAINTS: g_t, g_tt (length m) */
  sunrealtype *xn[4];          /* general: extra scratch of length n */
  sunrealtype *xm[2];          /* general: extra scratch of length m */
  long n_mass_factor;
  /* The problem callback that failed last (its name in CHSProblemOps, NULL: none since the
   * formulation's evaluation began) and its return code, for the failure message: a callback's
   * error is not a singular Gram matrix or a non-finite state. */
  const char *cb_failed;
  int cb_rc;
} CHSSystem;

/* A problem callback's return code rc (callback `name`): 0; else recorded in s (cb_failed, cb_rc)
 * and returned as CHS_RECOVERABLE (rc > 0: outside its domain) or CHS_ERR_CALLBACK (rc < 0). */
int chs_system_cb(CHSSystem *s, const char *name, int rc);
/* CHS_SYS_CB(s, force, s->data, q, F): s->ops->force(s->data, q, F) through chs_system_cb. */
#define CHS_SYS_CB(s, fn, ...) chs_system_cb((s), #fn, (s)->ops->fn(__VA_ARGS__))

/* Zeroed memory for a large work array (calloc), released by free(); in blocks of 4 MiB or more
 * the whole 2 MiB pages are advised to transparent huge pages where Linux offers them (at
 * N = 10^5 the right-hand side's working set spans thousands of 4 KiB pages: TLB misses). */
void *chs_calloc_big(size_t bytes);
/* CHSRunOptions.subnormals for the duration of a run, in this thread (src/base/fpenv.c; elsewhere
 * than x86-64 and AArch64 a no-op): chs_fp_begin flushes subnormals to zero for
 * CHS_SUBNORMALS_FLUSH and returns the caller's floating-point control state, which chs_fp_end
 * gives back (after KEEP: nothing to undo). */
unsigned long chs_fp_begin(int subnormals);
void chs_fp_end(unsigned long saved);
/* SUNMatZero for the sparse matrices of the assembled DAE Jacobians (src/linalg/jacobian.c):
 * nothing is cleared; the pattern is kept (the Jacobian rewrites it only when it changes) and every
 * evaluation writes all values. */
int chs_sparse_zero_kept(SUNMatrix A);

/* ctx NULL: no Gram solver (residual evaluations only); gram_kind: CHS_GRAM_*. */
int chs_system_init(CHSSystem *s, CHSProblem prob, SUNContext ctx, int gram_kind, CHSError *err);
void chs_system_free(CHSSystem *s);

/* v = M^{-1} p (v may alias nothing). For M(q) (CHS_MASS_CONFIG): with the factor of the last
 * chs_system_mass_at. */
void chs_mass_inv(const CHSSystem *s, const sunrealtype *p, sunrealtype *v);
/* CHS_MASS_CONFIG: evaluate and factor M(q) unless it is factored at this q already (every path
 * that applies M^{-1} at a new q calls it first; chs_system_gram_at and the kinematics do). 0,
 * CHS_RECOVERABLE (callback out of domain or M(q) not positive definite) or < 0. No-op for
 * constant mass matrices. */
int chs_system_mass_at(CHSSystem *s, const sunrealtype *q);
/* How M(q) is factored (chs_mass_factor_kind): not at all (constant M), densely (LAPACK dpotrf,
 * n x n) or sparsely (CHOLMOD on the CSR pattern of dims.mass_nnz > 0; no n x n storage). */
#define CHS_MASS_FACTOR_NONE 0
#define CHS_MASS_FACTOR_DENSE 1
#define CHS_MASS_FACTOR_SPARSE 2
int chs_mass_factor_kind(const CHSSystem *s);
/* CHS_MASS_CONFIG: out = d/de mass_grad(q + e u, x, y) at e = 0, i.e. grad_q of
 * x^T M'(q; u) y at fixed u, x, y (second derivatives of M): the problem's mass_grad_dir when it
 * has one (ABI 7), else central differences extrapolated over CHS_MASS_GRAD_DIR_LEVELS halvings
 * of the step (chs_richardson_central); exactly zero for u = 0. work: (CHS_MASS_GRAD_DIR_LEVELS +
 * 1) n. 0, CHS_RECOVERABLE (callback out of domain) or < 0. */
#define CHS_MASS_GRAD_DIR_LEVELS 4
int chs_mass_grad_dir(CHSSystem *s, const sunrealtype *q, const sunrealtype *u,
                      const sunrealtype *x, const sunrealtype *y, sunrealtype *out,
                      sunrealtype *work);
/* Time-dependent problems: ops->set_time(t) (and prob->time = t); no-op otherwise. */
int chs_system_set_time(CHSSystem *s, sunrealtype t);
/* TIME_CONSTRAINTS: g_t, G_t, g_tt at (q, prob->time) into s->gt, s->Gt, s->gtt; otherwise they
 * stay NULL. */
int chs_system_time_terms(CHSSystem *s, const sunrealtype *q);
/* psi = G v + g_t (s->G at q; g_t from chs_system_time_terms when the constraints depend on t). */
void chs_system_psi(const CHSSystem *s, const sunrealtype *v, sunrealtype *psi);
/* out = J u (length m) and out = J^T w (length n) for J stored like G. */
void chs_jac_mv(const CHSSystem *s, const sunrealtype *J, const sunrealtype *u, sunrealtype *out);
void chs_jac_tmv(const CHSSystem *s, const sunrealtype *J, const sunrealtype *w, sunrealtype *out);
const sunrealtype *chs_mass_inv_view(const CHSSystem *s, const sunrealtype *u, sunrealtype *out);
/* Sw = S w for the Dirac field's antisymmetric S = K - K^T, K = J M^{-1} G^T, J = Gdot + G_t
 * (s->Gt, or Gdot alone without one), from S's entries
 *   S(i,l) = -S(l,i) = sum_c (J_ic G_lc - J_lc G_ic) minv_c      (i < l; zero diagonal)
 * for a dense G and M = I or diagonal: m (m - 1) n products, fewer than the passes of
 * S w = J a - G M^{-1} b (a = M^{-1} G^T w, b = J^T w) and G^T z for m <= 4. */
void chs_dirac_sw_entries(const CHSSystem *s, const sunrealtype *w, sunrealtype *Sw);
/* a = M^{-1} G^T w given Gtw = G^T w: with a dense mass matrix (also M(q)) as the combination of
 * the columns M^{-1} g_j that the Gram assembly at this point left in MinvGt (no solve with M;
 * equal to M^{-1} Gtw up to rounding), otherwise M^{-1} Gtw. */
void chs_mass_inv_Gt(const CHSSystem *s, const sunrealtype *w, const sunrealtype *Gtw,
                     sunrealtype *a);
/* Fused pass (J1, J2 stored like G): out1 = J1 u1 and out2 = J2 u2, or, when out2 is NULL,
 * out1 = J1 u1 + c2 J2 u2. */
void chs_jac_mv2(const CHSSystem *s, const sunrealtype *J1, const sunrealtype *u1,
                 const sunrealtype *J2, const sunrealtype *u2, sunrealtype c2, sunrealtype *out1,
                 sunrealtype *out2);
/* Evaluate G(q) into s->G, assemble Q = G M^{-1} G^T and factor it (counted).
 * 0, CHS_RECOVERABLE (singular Q or callback out of domain), or < 0. */
int chs_system_gram_at(CHSSystem *s, const sunrealtype *q);
/* The error of a failed chs_system_gram_at (or of what it evaluates) in a step of who at t: the
 * problem callback that failed, when one did; an overflowing Gram matrix; else a singular one. */
int chs_system_gram_fail(const CHSSystem *s, CHSError *err, const char *who, sunrealtype t);

/* H = sigma(q) 1/2 p^T M(q)^{-1} p + V(q) (M(q) factored at q): 0, CHS_ERR_CALLBACK or
 * CHS_ERR_NONFINITE. Uses scratch s->wn[CHS_WN_V], s->wn[CHS_WN_F]. */
int chs_system_energy(CHSSystem *s, const sunrealtype *q, const sunrealtype *p, sunrealtype *H);

/* F = -grad V(q) + Fnc(q, v) (the non-conservative part only when the problem has one).
 * 0, CHS_RECOVERABLE (callback out of domain) or CHS_ERR_CALLBACK. Uses scratch
 * s->wn[CHS_WN_FORCE]. */
int chs_system_force(CHSSystem *s, const sunrealtype *q, const sunrealtype *v, sunrealtype *F);

/* The quantities both the standard and the Hamilton-Dirac equations are built from, at (q, p):
 *   v = M^{-1} p, F = -grad V + Fnc(q, v) (chs_system_force), G, Gdot(q, v) (s->G, s->Gd), Q
 * factored, psi = G v, r = Gdot(q,v) v + G M^{-1} F, lambda = Q^{-1} r. Pointers refer to the
 * system's scratch space (valid until the next call); for an identity mass matrix v is p itself
 * and Minv_F is F: read-only. */
typedef struct CHSKinematics {
  sunrealtype *v, *F, *Minv_F;   /* length n */
  sunrealtype *psi, *r, *lambda; /* length m */
  int w_done;                    /* chs_system_kinematics_f: w = Q^{-1} psi is in its w too */
} CHSKinematics;
int chs_system_kinematics(CHSSystem *s, const sunrealtype *q, const sunrealtype *p,
                          CHSKinematics *k);
/* The same with F written to F (length n, e.g. the momentum half of the field being formed, so
 * that the field is completed in place: one array of length n less in the working set) and,
 * when w != NULL and m > 1, w = Q^{-1} psi (k->w_done; tridiagonal Q: in the kinematics' pass).
 * flags: CHS_KIN_LEAN: the caller needs neither psi nor r; with a tridiagonal Q they are then not
 * stored (k->psi = k->r = NULL). CHS_KIN_NO_LAMBDA: with w and a Q that is not tridiagonal, lambda
 * is not solved for (k->lambda = NULL): the caller folds r into a solve of its own. */
enum { CHS_KIN_LEAN = 1, CHS_KIN_NO_LAMBDA = 2 };
int chs_system_kinematics_f(CHSSystem *s, const sunrealtype *q, const sunrealtype *p,
                            sunrealtype *F, sunrealtype *w, int flags, CHSKinematics *k);

/* The common shape of the natural formulations' fields:
 *   ydot = (v + cq dq, F - G^T mult + dp)     (dq, dp may be NULL: zero).
 * Uses scratch s->wn[CHS_WN_FIELD]. */
void chs_system_field(CHSSystem *s, const CHSKinematics *k, const sunrealtype *mult, sunrealtype cq,
                      const sunrealtype *dq, const sunrealtype *dp, sunrealtype *ydot);

#endif
