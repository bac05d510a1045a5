/* Private definitions shared by the library's files: object layouts, the error helper and the
 * constrained-system kernels every formulation is built from. Not installed. */
#ifndef CHS_IMPL_H
#define CHS_IMPL_H

#include <stdarg.h>
#include <stdio.h>
#include <arkode/arkode_butcher.h>
#include <stddef.h>
#include <stdint.h>
#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>
#include "chs/chs.h"
#include "chs/projection.h"

/* ------------------------------------------------------------------ errors */
int chs_error_set(CHSError *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
int chs_error_vset(CHSError *err, int code, const char *fmt, va_list ap);

/* Return early with the code when a call fails. */
#define CHS_CALL(expr)                                                                             \
  do {                                                                                             \
    int chs_call_rc_ = (expr);                                                                     \
    if (chs_call_rc_ != 0) {                                                                       \
      return chs_call_rc_;                                                                         \
    }                                                                                              \
  } while (0)

int chs_all_finite(const sunrealtype *x, sunindextype n);
sunrealtype chs_norm2(const sunrealtype *x, sunindextype n);
/* Richardson extrapolation of central differences in place: rows l = 0 .. levels-1 of R (length
 * N each) hold D(eps0 2^-l); afterwards the last row holds the value with the eps^2 .. eps^(2
 * (levels-1)) terms eliminated. */
static inline void chs_richardson_central(sunrealtype *R, int levels, sunindextype N) {
  sunrealtype f = 1;
  for (int k = 1; k < levels; k++) { /* after pass k, rows l >= k have eps^2 .. eps^(2k) gone */
    f *= 4;
    for (int l = levels - 1; l >= k; l--) {
      for (sunindextype i = 0; i < N; i++) {
        R[l * N + i] += (R[l * N + i] - R[(l - 1) * N + i]) / (f - 1);
      }
    }
  }
}

/* ------------------------------------------------------------------ registries
 * Defines Prefix_Count/_Get/_Find over a static table of `const Type *` whose items have a
 * `key` member naming them. */
#define CHS_DEFINE_REGISTRY(Type, Prefix, table, key)                                              \
  int Prefix##_Count(void) {                                                                       \
    return (int)(sizeof table / sizeof table[0]);                                                  \
  }                                                                                                \
  const Type *Prefix##_Get(int i) {                                                                \
    return i >= 0 && i < Prefix##_Count() ? table[i] : NULL;                                       \
  }                                                                                                \
  const Type *Prefix##_Find(const char *name) {                                                    \
    for (int i = 0; name && i < Prefix##_Count(); i++) {                                           \
      if (strcmp(table[i]->key, name) == 0) {                                                      \
        return table[i];                                                                           \
      }                                                                                            \
    }                                                                                              \
    return NULL;                                                                                   \
  }

/* ------------------------------------------------------------------ problem */
struct CHSProblem_ {
  const CHSProblemOps *ops;
  void *data;
  CHSProblemDims dims;
  void *plugin;            /* dlopen handle of a plugin problem, or NULL */
  CHSProblemOps ops_store; /* a version-1 table widened to the current layout (ops points here) */
  int n_invariants;        /* number of ops->invariant_names */
  sunrealtype time;        /* the time last passed to ops->set_time (time-dependent problems) */
  sunrealtype *init_qp;    /* CHSProblem_SetInitialState's (q, p), 2n; NULL: ops->initial_state */
};
/* The initial state formulations start from: CHSProblem_SetInitialState's, else the problem's
 * initial_state (its return code). */
int chs_problem_initial_state(CHSProblem prob, sunrealtype *q, sunrealtype *p);

/* Bytes of a version-k CHSProblemOps: the fields before the first one version k + 1
 * appended. */
#define CHS_PROBLEM_OPS_V1_SIZE offsetof(CHSProblemOps, nonconservative_force)
#define CHS_PROBLEM_OPS_V2_SIZE offsetof(CHSProblemOps, mass_matrix)
#define CHS_PROBLEM_OPS_V3_SIZE offsetof(CHSProblemOps, hessian_sparse)
#define CHS_PROBLEM_OPS_V4_SIZE offsetof(CHSProblemOps, force_local)
#define CHS_PROBLEM_OPS_V5_SIZE offsetof(CHSProblemOps, force_atoms)
#define CHS_PROBLEM_OPS_V6_SIZE offsetof(CHSProblemOps, mass_grad_dir)
#define CHS_PROBLEM_OPS_V7_SIZE offsetof(CHSProblemOps, initial_guess)

/* Plugins (problems/plugin.c). */
int chs_is_plugin_spec(const char *name);
int chs_plugin_load(const char *path, const CHSProblemOps **ops, void **handle, CHSError *err);
void chs_plugin_close(void *handle);
/* Size check of a problem with N units (atoms, links) needing about bytes_per_unit each for the
 * instance and a formulation's state (src/problem.c): CHS_ERR_ARG naming N when that exceeds the
 * machine's physical memory. */
int chs_problem_check_size(const char *name, long N, double bytes_per_unit, const char *unit,
                           CHSError *err);

/* Names of a problem's coordinates and constraints (chs/problem.h, ABI 8). chs_name_label
 * writes the declared name of entry i of names (NULL: none declared) into buf, or the fallback
 * `fallback` followed by i + 1 (q3, g2), and returns buf. chs_names_indexed allocates count names
 * cycling through the nprefix prefixes, the index advancing once per cycle from first (prefixes
 * {"x", "y"}, first 1: x1, y1, x2, y2, ...): one block, freed with free(), NULL when out of
 * memory; the chains name their per-instance coordinates and bonds with it. */
#define CHS_NAME_MAX 31
const char *chs_name_label(const char *const *names, sunindextype i, const char *fallback,
                           char *buf, size_t len);
const char **chs_names_indexed(sunindextype count, const char *const *prefixes, int nprefix,
                               long first);

/* ------------------------------------------------------------------ Gram solver
 * Q = G M^{-1} G^T as a SUNMatrix, factored once per evaluation point, solved many times. */
typedef struct CHSGram CHSGram;
struct CHSSystem;
#define CHS_GRAM_AUTO 0
#define CHS_GRAM_DENSE 1
#define CHS_GRAM_BAND 2
#define CHS_GRAM_KLU 3
extern const char *const chs_gram_kind_names[]; /* "auto", "dense", "band", "klu", NULL */
int chs_gram_create(const struct CHSSystem *s, int kind, SUNContext ctx, CHSGram **out,
                    CHSError *err);
void chs_gram_destroy(CHSGram **gram);
int chs_gram_kind(const CHSGram *gram);
/* Q = G M^{-1} G^T from s->G (and s->minv) into the Gram storage. */
int chs_gram_assemble(CHSGram *gram, const struct CHSSystem *s);
/* Factor the assembled Q: 0, or CHS_RECOVERABLE when Q is numerically singular. */
int chs_gram_factor(CHSGram *gram);
int chs_gram_solve_general(CHSGram *gram, const sunrealtype *b, sunrealtype *x);
/* Tridiagonal Q (gram->tri, CSR G): assemble and factor Q = L D L^T from s->G and, in the same
 * pass, psi = G v and r = Gdot v + G mf (Gdot in s->Gd), and the forward substitutions
 * rf = L^{-1} r and (pf != NULL) pf = L^{-1} psi; the factorisation's status. The solves are then
 * completed by chs_gram_tri_backward: x <- D^{-1} x - L^T x from the last row up (dpttrs'
 * operations in dpttrs' order), for x and x2 at once. */
int chs_gram_tri_kinematics(CHSGram *gram, const struct CHSSystem *s, const sunrealtype *v,
                            const sunrealtype *mf, sunrealtype *psi, sunrealtype *r,
                            sunrealtype *rf, sunrealtype *pf);
void chs_gram_tri_backward(const CHSGram *gram, sunrealtype *x, sunrealtype *x2 /* or NULL */);
/* The layout of the Gram solver (src/gram.c), visible here so that the solve with a single
 * constraint (a division) inlines into the formulations' fields. */
struct CHSGram {
  int kind;
  sunindextype m;
  SUNMatrix Q;
  sunrealtype *data, **cols; /* dense: Q's storage and columns (Cholesky factor in place) */
  sunindextype *pivots;      /* band */
  sunindextype mu, ml, smu;  /* band */
  int band_full;             /* band: Q's pattern fills the band (no zeroing before assembly) */
  int tri;                   /* band of half-bandwidth 1: SPD tridiagonal, L D L^T, dpttrs */
  int tri_status;            /* tri: the factorisation's result (assembled and factored at once) */
  int32_t *tri_ps, *tri_pk;  /* tri: Q(j+1,j) = sum over t = tri_ps[j] .. tri_ps[j+1]-1 of
                                G[tri_pk[2t]] G[tri_pk[2t+1]] minv[ci32[tri_pk[2t]]] */
  int tri_np;                /* tri_ps NULL: every row pair shares tri_np columns, the same ones */
  int32_t tri_tpl[16];       /* relative to rows j+1 and j: tri_pk[2t] = rp32[j+1] + tri_tpl[2t],
                                tri_pk[2t+1] = rp32[j] + tri_tpl[2t+1] (chains: no lists) */
  double *tri_dd, *tri_e;    /* tri: D and the subdiagonal of L (LAPACK's d, e), contiguous */
  SUNLinearSolver ls;        /* klu */
  N_Vector b, x;             /* klu */
  /* CSR G: Q's entries e = 0 .. nq-1 at data offset off[e], each the sum over
   * t = tstart[e] .. tstart[e+1]-1 of G[ti[t]] minv[tc[t]] G[tj[t]] */
  sunindextype nq, *qcol, *off, *tstart; /* qcol: entries of column j */
  int32_t *ti, *tj, *tc; /* 32-bit: half the memory traffic of the assembly for large m */
  sunrealtype diag_scale;
  sunrealtype inv11; /* m = 1: 1 / Q (solves multiply: no division on their critical path) */
  int factored;
  int nonfinite; /* the last failed factorisation met an entry of Q that is not finite (an
                    overflow of G M^{-1} G^T, or a non-finite G): not a rank deficiency */
};
static inline int chs_gram_solve(CHSGram *g, const sunrealtype *b, sunrealtype *x) {
  if (g->m == 1 && g->kind == CHS_GRAM_DENSE && g->factored) {
    x[0] = b[0] * g->inv11;
    return 0;
  }
  return chs_gram_solve_general(g, b, x);
}

/* ------------------------------------------------------------------ system
 * A problem bound to its sizes, inverse mass matrix, Jacobian storage, Gram solver, scratch
 * vectors and counters. One per formulation (no sharing, so formulations are reentrant). */
#define CHS_SCRATCH_N 8
#define CHS_SCRATCH_M 8
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
  sunrealtype *wn[CHS_SCRATCH_N]; /* scratch of length n */
  sunrealtype *wm[CHS_SCRATCH_M]; /* scratch of length m */
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
/* CHSRunOptions.subnormals for the duration of a run, in this thread (src/fpenv.c; elsewhere
 * than x86-64 and AArch64 a no-op): chs_fp_begin flushes subnormals to zero for
 * CHS_SUBNORMALS_FLUSH and returns the caller's floating-point control state, which chs_fp_end
 * gives back (after KEEP: nothing to undo). */
unsigned long chs_fp_begin(int subnormals);
void chs_fp_end(unsigned long saved);
/* SUNMatZero for the sparse matrices of the assembled DAE Jacobians (src/jacobian.c): nothing is
 * cleared; the pattern is kept (the Jacobian rewrites it only when it changes) and every
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

/* F = -grad V(q) + Fnc(q, v) (the non-conservative part only when the problem has one).
 * 0, CHS_RECOVERABLE (callback out of domain) or CHS_ERR_CALLBACK. Uses scratch s->wn[7]. */
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
 * when w != NULL and it comes at no extra pass (tridiagonal Q), w = Q^{-1} psi (k->w_done).
 * lean: the caller needs neither psi nor r; with a tridiagonal Q they are then not stored
 * (k->psi = k->r = NULL). */
int chs_system_kinematics_f(CHSSystem *s, const sunrealtype *q, const sunrealtype *p,
                            sunrealtype *F, sunrealtype *w, int lean, CHSKinematics *k);

/* The standard field q' = v, p' = F - G^T lambda for one constraint (dense G, constant unit or
 * diagonal mass, no time dependence: chs_system_field1_applies), Q a number. Uses scratch
 * s->wn[0..1]; ydot may be the state itself. */
int chs_system_field1_applies(const CHSSystem *s);
int chs_system_standard_field1(CHSSystem *s, const sunrealtype *q, const sunrealtype *p,
                               sunrealtype *ydot);

/* The common shape of the natural formulations' fields:
 *   ydot = (v + cq dq, F - G^T mult + dp)     (dq, dp may be NULL: zero).
 * Uses scratch s->wn[6]. */
void chs_system_field(CHSSystem *s, const CHSKinematics *k, const sunrealtype *mult, sunrealtype cq,
                      const sunrealtype *dq, const sunrealtype *dp, sunrealtype *ydot);

/* The total Hamiltonian's field (formulations/total.c); with extended = 1 the extended
 * Hamiltonian's, which adds the gradient of -psi^T Q^{-1} psi (its Gdot products share the
 * total field's evaluations). Workspace installed by chs_total_init as the formulation's private
 * data. */
typedef struct {
  sunrealtype *Gd2;                             /* scratch Gdot evaluations (gsize) */
  sunrealtype *a, *b, *c, *acc, *Gtw, *gvw, *e; /* length n */
  sunrealtype *x;                               /* M(q): CHS_TOTAL_GENERAL_N more of length n */
} chs_total_ws;
#define CHS_TOTAL_GENERAL_N (6 + CHS_MASS_GRAD_DIR_LEVELS)
int chs_total_init(CHSFormulation f, CHSParams params, CHSError *err);
void chs_total_free(CHSFormulation f);
int chs_total_field(CHSFormulation f, const sunrealtype *y, sunrealtype *ydot, int extended);

/* The Hamilton-Dirac field (formulations/dirac.c), shared with the Faddeev-Jackiw system; w and z
 * (may be NULL) receive w = Q^{-1} psi and z = lambda - Q^{-1} S w (scratch of the system). */
int chs_dirac_field(CHSFormulation f, const sunrealtype *y, sunrealtype *ydot, sunrealtype **w,
                    sunrealtype **z);

/* ------------------------------------------------------------------ integrator adapters
 * Shared by src/integrate/ files: the SUNDIALS 6 error handler that stores ARKODE's message in a
 * char[CHS_ARKODE_MSG_LEN] buffer (data), and the message of a failed evolve (returns
 * CHS_ERR_SOLVER): "<who> failed at t = ... with <flag name>: <formulation's or ARKODE's why>". */
#define CHS_ARKODE_MSG_LEN 256
void chs_arkode_capture_error(int code, const char *module, const char *function, char *msg,
                              void *data);
int chs_arkode_failure(CHSError *err, const char *who, char *flag_name, sunrealtype t,
                       CHSFormulation f, const char *arkode_msg);
/* The stop time of the next step h (chosen by the error test) at t towards tout: tout, or the
 * midpoint of [t, tout] when h < |tout - t| < (1 + window) |h| (src/integrator.c: why). */
sunrealtype chs_split_stop(sunrealtype t, sunrealtype h, sunrealtype tout, sunrealtype window);

/* The Butcher table of an erk method option ("rk4", "dp5", "VERNER_8_5_6", ...) of
 * src/integrate/erk.c (caller frees it); *embedded = 1 when it has an embedding (adaptive steps).
 * NULL with err set (CHS_ERR_ARG, CHS_ERR_NOTFOUND) for an unknown name. */
ARKodeButcherTable chs_erk_table(const char *opt, int *embedded, CHSError *err);

/* The SPRK tables of src/integrate/sprk.c (the coefficients live there only): the i-th table's
 * ARKODE name, order, stages and coefficients a, ahat (s each); CHS_ERR_NOTFOUND past the end. */
int chs_sprk_table_count(void);
int chs_sprk_table_get(int i, const char **name, int *order, int *stages, const sunrealtype **a,
                       const sunrealtype **ahat);

/* Called by CHSFormulation_Destroy: the projector outlives nothing it points to. */
void chs_projector_detach(CHSProjector proj);
/* Project y now, whatever the every-k counter of CHSProjector_Apply says (stage projection
 * decides per step itself); its every-k; suspend (1) or resume (0) all projections. */
int chs_projector_now(CHSProjector proj, N_Vector y);
long chs_projector_every(CHSProjector proj);
void chs_projector_suspend(CHSProjector proj, int on);

/* ------------------------------------------------------------------ derivatives a user needs
 * No silent zero defaults (src/check.c): a formulation or method that needs hessian_potential
 * (CHS_NEED_HESSIAN) or constraint_third (CHS_NEED_THIRD) uses it, or zero when the problem
 * declares V at most linear / g at most quadratic (CHSProblemDims.declares), and otherwise
 * refuses the problem. chs_missing_derivative: NULL when nothing in need is missing, else the
 * missing callback's name; chs_require_derivatives: CHS_ERR_UNSUPPORTED naming it and who needs
 * it. chs_hessian_v: Hu = hess V(q) u from hessian_potential, zero when declared linear, else
 * central differences of the force (for Newton matrices only: never where exactness is claimed);
 * 0, CHS_RECOVERABLE (callback out of its domain) or CHS_ERR_CALLBACK / CHS_ERR_MEM. */
#define CHS_NEED_HESSIAN 0x1u
#define CHS_NEED_THIRD 0x2u
const char *chs_missing_derivative(CHSProblem prob, unsigned need);
int chs_require_derivatives(CHSProblem prob, unsigned need, const char *who, CHSError *err);
int chs_hessian_v(const CHSSystem *s, const sunrealtype *q, const sunrealtype *u, sunrealtype *Hu);
/* The derivatives the formulation's analytic Jacobian is built from: its CHS_FORM_JAC_* flags as
 * CHS_NEED_* bits (src/jacobian.c). */
unsigned chs_jacobian_needs(const CHSFormulationOps *ops);
/* Why f's analytic Jacobian does not cover its problem's M(q) or time dependence (a phrase for a
 * message), or NULL when it does or the problem has neither (src/jacobian.c). */
const char *chs_jacobian_general_gap(CHSFormulation f);

/* The declared bond-chain structure (CHS_DECLARE_BOND_CHAIN, chs/problem.h) against the problem's
 * callbacks at q and at a second point (src/check_chain.c, for `chs check`): its dimensions and
 * mass, G's pattern and values (-d_h, d_h), g = 1/2 |d_h|^2 + const. 1 when it holds (or is not
 * declared), 0 when not, CHS_ERR_MEM; detail says what (or what was checked). */
int chs_check_bond_chain(CHSProblem prob, const sunrealtype *q, char *detail, size_t len);

/* ------------------------------------------------------------------ Jacobians (src/jacobian.c)
 * Dense blocks at q for the formulations' analytic Jacobians, row-major:
 *   chs_block_G      D (m x n) = J stored like G (G or Gdot)
 *   chs_block_minv   D (n x n) = M^{-1}
 *   chs_block_hessV  D (n x n) = hess V(q) (zero when V is declared linear; CHS_ERR_UNSUPPORTED
 *                    when hessian_potential is missing and V is not declared linear)
 *   chs_block_hessgw D (n x n) = sum_i w_i hess g_i(q)
 *   chs_block_gdot   D (m x n) = Gdot(q, u)
 *   chs_block_third  D (m x n) = d/dq (Gdot(q, u) u) at fixed u (zero when g is declared
 *                    quadratic; CHS_ERR_UNSUPPORTED when constraint_third is missing otherwise)
 * chs_dense_mm: C (a x c) = A (a x b) B (b x c); chs_gram_solve_columns: A (m x ncols) <- Q^{-1} A
 * with the Gram matrix factored last. The block helpers use scratch s->wn[6..7], s->wm[6..7]. */
void chs_block_G(const CHSSystem *s, const sunrealtype *J, sunrealtype *D);
void chs_block_minv(const CHSSystem *s, sunrealtype *D);
int chs_block_hessV(const CHSSystem *s, const sunrealtype *q, sunrealtype *D);
int chs_block_hessgw(const CHSSystem *s, const sunrealtype *q, const sunrealtype *w,
                     sunrealtype *D);
int chs_block_gdot(const CHSSystem *s, const sunrealtype *q, const sunrealtype *u, sunrealtype *D);
int chs_block_third(const CHSSystem *s, const sunrealtype *q, const sunrealtype *u, sunrealtype *D);
void chs_dense_mm(sunindextype a, sunindextype b, sunindextype c, const sunrealtype *A,
                  const sunrealtype *B, sunrealtype *C);
int chs_gram_solve_columns(CHSSystem *s, sunindextype ncols, sunrealtype *A);
/* M(q) blocks (CHS_MASS_CONFIG with mass_grad_dir; M(q) factored at q, Minv = M^{-1} from
 * chs_block_minv, v = M^{-1} p), n x n row-major, with P = [M'(q; e_j) v]_j (so dv/dq = -M^{-1} P,
 * and grad_q (x^T M(q) v) = P^T x) and S = [mass_grad_dir(q, e_j, v, v)]_j = hess_q (v^T M(q) v):
 *   Y = M^{-1} P,  Z = 1/2 S - P^T Y (d F_M / dq, F_M = 1/2 grad_q (v^T M v)),  W = P^T M^{-1}
 *   (d F_M / dp); and when X != NULL, for the acceleration constraint r = Gdot(q, v) v + G a with
 *   a = M^{-1} (F + F_M - M'(q; v) v) and b = M^{-1} G^T lambda, with D = P^T - P - M'(q; v):
 *   X = [M'(q; e_j) (a - b)]_j - 1/2 S + R + D Y,  Xp = D M^{-1},
 *   R = d/dq (M'(q; v) v) at fixed v (row i: mass_grad_dir(q, v, e_i, v)). Then
 *   d(Q lambda - r)/dq = Gdot(q, b) - Gdot(q, a) - d/dq (Gdot(q, v) v) + G M^{-1} (H + K_lambda)
 *   + 2 Gdot(q, v) Y + G M^{-1} X and d(Q lambda - r)/dp = -2 Gdot(q, v) M^{-1} - G M^{-1} Xp
 *   (docs/mechanics.md, "Jacobians"). Uses scratch s->wn[6..7]. */
int chs_block_mass_terms(const CHSSystem *s, const sunrealtype *q, const sunrealtype *v,
                         const sunrealtype *a, const sunrealtype *b, const sunrealtype *Minv,
                         sunrealtype *Y, sunrealtype *Z, sunrealtype *W, sunrealtype *X,
                         sunrealtype *Xp);
/* D (n x n) = [M'(q; e_j) x]_j (CHS_MASS_CONFIG). Uses scratch s->wn[6..7]. */
int chs_block_mass_dir(const CHSSystem *s, const sunrealtype *q, const sunrealtype *x,
                       sunrealtype *D);

/* The formulation's analytic Jacobian into a dense column-major array (N x N): df/dy of an ODE
 * formulation, dF/dy + cj dF/dy' of the residual (cj I - df/dy for an ODE formulation);
 * CHS_ERR_UNSUPPORTED without one (CHSFormulation_HasJacobian). What the public SUNMatrix family
 * (chs/sundials.h) copies into the caller's matrix. */
int chs_jacobian_rhs_dense(CHSFormulation f, sunrealtype t, N_Vector y, sunrealtype *J);
int chs_jacobian_residual_dense(CHSFormulation f, sunrealtype t, sunrealtype cj, N_Vector y,
                                N_Vector yp, sunrealtype *J);

/* The Jacobian an integrator hands SUNDIALS: analytic (the formulation's) or forward differences,
 * with the sparsity pattern found at set-up (nnz, band widths mu, ml). Owned by the formulation
 * (f->jac; a new set-up replaces it), evaluated by chs_cvode_jac (CVLsJacFn, df/dy) and
 * chs_ida_jac (IDALsJacFn, dF/dy + cj dF/dy') into dense, band or CSC sparse matrices. */
#define CHS_JACOBIAN_ANALYTIC 0
#define CHS_JACOBIAN_FD 1
extern const char *const chs_jac_mode_names[]; /* "analytic", "fd", NULL */
typedef struct CHSJacWork CHSJacWork;
int chs_jac_work_create(CHSFormulation f, int mode, int residual, N_Vector y0, N_Vector yp0,
                        CHSJacWork **out, CHSError *err);
void chs_jac_work_free(CHSJacWork **w);
void chs_jac_work_shape(const CHSJacWork *w, sunindextype *nnz, sunindextype *mu, sunindextype *ml);
/* The sparse path (IDA, ls=klu, DAE formulation with an analytic Jacobian): no dense buffer, the
 * CSC pattern of the Jacobian at y0; chs_jac_work_set_solver gives it the KLU solver to
 * re-analyse when the pattern changes; chs_jac_work_symbolic: KLU symbolic analyses so far (0
 * off the sparse path). */
int chs_jac_work_create_sparse(CHSFormulation f, N_Vector y0, int without_hessv, CHSJacWork **out,
                               CHSError *err);
/* IDA's Krylov preconditioner (ida:ls=spgmr,prec=sparse, src/jacobian.c): P = the DAE Jacobian
 * without hess V, factored by KLU, kept in f->jac; setup and solve are IDALsPrecSetupFn and
 * IDALsPrecSolveFn with the formulation as user data. */
int chs_ida_prec_create(CHSFormulation f, N_Vector y0, CHSError *err);
int chs_ida_prec_setup(sunrealtype t, N_Vector yy, N_Vector yp, N_Vector rr, sunrealtype cj,
                       void *user_data);
int chs_ida_prec_solve(sunrealtype t, N_Vector yy, N_Vector yp, N_Vector rr, N_Vector rvec,
                       N_Vector zvec, sunrealtype cj, sunrealtype delta, void *user_data);
void chs_jac_work_set_solver(CHSJacWork *w, SUNLinearSolver ls);
long chs_jac_work_symbolic(const CHSJacWork *w);
/* The DAE index k of a formulation declaring CHS_FORM_DAE_INDEX(k) (dae-index3: 3, dae-ggl: 2,
 * dae-index1: 1), else 0; and where its multipliers sit in y (chs/formulation.h): lambda at 2n,
 * mu (k = 2 only; -1: none) at 2n + m. */
static inline int chs_dae_kind(const CHSFormulationOps *ops) {
  return (ops->flags & CHS_FORM_DAE) ? (int)CHS_FORM_DAE_INDEX_OF(ops->flags) : 0;
}
static inline sunindextype chs_dae_lambda_at(sunindextype n) {
  return 2 * n;
}
static inline sunindextype chs_dae_mu_at(int kind, sunindextype n, sunindextype m) {
  return kind == 2 ? 2 * n + m : -1;
}
/* src/jacobian_sparse.c: the residual Jacobian dF/dy + cj dF/dy' of a formulation with a DAE
 * index (chs_dae_kind) in CSC (CXSparse's cs_dl, sorted row indices, freed with chs_csc_free):
 * 0, CHS_RECOVERABLE (callback out of domain, non-finite), CHS_ERR_UNSUPPORTED (no analytic
 * Jacobian, or hess V without hessian_sparse above 3000 coordinates) or < 0. */
struct cs_dl_sparse;
int chs_dae_jacobian_csc(CHSFormulation f, sunrealtype cj, const sunrealtype *y,
                         struct cs_dl_sparse **out);
void chs_csc_free(struct cs_dl_sparse *A);
/* The same Jacobian by a structure-reusing assembly (src/jacobian_sparse.c): *a (NULL at first,
 * freed with chs_sparse_asm_free) keeps the CSC pattern, where every contribution goes and the
 * arrays, redone only when hess V's pattern changes; *out points into *a (valid until the next
 * call). The values go to x (room for xcap values) when x is not NULL and (*out)'s pattern has at
 * most xcap entries ((*out)->x is then NULL: the array of an earlier call without x is freed),
 * else to (*out)->x. chs_sparse_asm_symbolic:
 * symbolic passes so far. Same return codes. */
typedef struct CHSSparseAsm CHSSparseAsm;
/* A new assembly for f into *a (freeing the old one); without_hessv: hess V's blocks left out
 * (the constant-pattern preconditioner of IDA's Krylov solver). CHS_ERR_UNSUPPORTED when f has
 * no sparse assembly (not a DAE formulation, no analytic Jacobian; without_hessv: a dense M). */
int chs_sparse_asm_create(CHSFormulation f, int without_hessv, CHSSparseAsm **a);
int chs_dae_jacobian_csc_reuse(CHSFormulation f, CHSSparseAsm **a, sunrealtype cj,
                               const sunrealtype *y, sunrealtype *x, sunindextype xcap,
                               const struct cs_dl_sparse **out);
void chs_sparse_asm_free(CHSSparseAsm **a);
long chs_sparse_asm_symbolic(const CHSSparseAsm *a);
/* The version of a's CSC pattern: it changes whenever the pattern may have (a symbolic pass);
 * -1 when a rebuilds its matrix at every evaluation (dense mass fallback) or is NULL. */
long chs_sparse_asm_pattern(const CHSSparseAsm *a);
/* Preconditioner of CVODE's matrix-free Newton-Krylov iteration (ls=spgmr, prec=sparse) for the
 * ODE formulations on (q, p) with constant mass: P = [I, -gamma M^{-1}; gamma (hess V +
 * sum lambda_i hess g_i), I] in CSC, factored by KLU (src/jacobian_sparse.c).
 * chs_precond_available: 1 when it can be built for f. Setup and solve are CVODE's
 * CVLsPrecSetupFn / CVLsPrecSolveFn with the formulation as user data, using f->prec (owned by
 * the integrator that set it, src/integrate/cvode.c). */
typedef struct CHSPrecond CHSPrecond;
int chs_precond_available(CHSFormulation f);
int chs_precond_create(CHSFormulation f, N_Vector y0, CHSPrecond **out, CHSError *err);
void chs_precond_free(CHSPrecond **p);
int chs_precond_setup(sunrealtype t, N_Vector y, N_Vector fy, sunbooleantype jok,
                      sunbooleantype *jcur, sunrealtype gamma, void *user_data);
int chs_precond_solve(sunrealtype t, N_Vector y, N_Vector fy, N_Vector r, N_Vector z,
                      sunrealtype gamma, sunrealtype delta, int lr, void *user_data);
long chs_jac_work_evals(const CHSJacWork *w);
int chs_cvode_jac(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix A, void *user_data,
                  N_Vector tmp1, N_Vector tmp2, N_Vector tmp3);
int chs_ida_jac(sunrealtype t, sunrealtype cj, N_Vector y, N_Vector yp, N_Vector r, SUNMatrix A,
                void *user_data, N_Vector tmp1, N_Vector tmp2, N_Vector tmp3);
/* CHSFormulation_IDAErrorWeights from the component ids id (src/glue.c), unchecked */
int chs_ida_error_weights(CHSFormulation f, const sunrealtype *id, sunrealtype rtol,
                          sunrealtype atol, sunrealtype h, N_Vector y, N_Vector ewt);
/* IDA's dense LU factorisation and solve (src/integrate/ida.c): SUNDIALS'
 * SUNDlsMat_denseGETRF/GETRS, bitwise the same results */
sunindextype chs_ida_dense_getrf(sunrealtype **a, sunindextype m, sunindextype n, sunindextype *p);
void chs_ida_dense_getrs(sunrealtype *const *a, sunindextype n, const sunindextype *p,
                         sunrealtype *b);
/* The setup and solve operations of SUNDIALS' dense solver object with the two above (IDA and
 * CVODE install them in the object's own operations table) */
int chs_dense_ls_setup(SUNLinearSolver S, SUNMatrix A);
int chs_dense_ls_solve(SUNLinearSolver S, SUNMatrix A, N_Vector x, N_Vector b, sunrealtype tol);

/* Linear solvers of CVODE and IDA from "ls=...,jac=..." (src/linsol.c). chs_ls_parse reads the
 * parameters (jac = -1 when not given); chs_ls_create makes the matrix (NULL for spgmr) and the
 * solver, installs the Jacobian workspace in f when needed and says whether the integrator must
 * set chs_cvode_jac / chs_ida_jac as its Jacobian function (*user_jac). residual: IDA. */
#define CHS_LS_DENSE 0
#define CHS_LS_BAND 1
#define CHS_LS_KLU 2
#define CHS_LS_SPGMR 3
#define CHS_LS_UMFPACK 4
/* ls=auto (the default): chs_ls_create picks one of the above from the system (src/linsol.c,
 * chs_ls_auto) and writes it to chs_ls_options.ls, setting chosen_by_auto */
#define CHS_LS_AUTO 5
/* "dense", "band", "klu", "spgmr", "umfpack", "auto", NULL */
extern const char *const chs_ls_names[];
typedef struct {
  int ls, jac;
  int chosen_by_auto; /* 1: ls was auto, chs_ls_create chose ls */
  int prec;  /* spgmr: 0 none, 1 sparse (P = [I, -gamma M^{-1}; gamma (H + K), I]); -1 not given */
  int order; /* klu: 0 amd, 1 colamd, CHS_KLU_ORDER_ND nested dissection; -1 not given */
  sunrealtype hmax; /* hmax=H > 0: the step-size bound (CVodeSetMaxStep, IDASetMaxStep); 0 none */
} chs_ls_options;
#define CHS_KLU_ORDER_ND 2
/* src/klu.c: KLU with 32-bit indices on a square CSC SUNSparseMatrix (order: as
 * chs_ls_options.order, -1 colamd); its set-ups keep the pivot order while the pivot growth
 * allows (instead of SUNDIALS' condition-number test, which re-pivots most index-2/3 Newton
 * matrices). NULL for another matrix or out of memory. chs_klu_reinit: the matrix's pattern
 * changed, analyse it at the next set-up (0, or -1 for another solver). */
SUNLinearSolver chs_klu_create(N_Vector y, SUNMatrix A, int order, SUNContext ctx);
/* The same solver on UMFPACK (ls=umfpack: a factorisation at each set-up, for matrices that
 * fill); chs_klu_reinit applies to it too. */
SUNLinearSolver chs_umfpack_create(N_Vector y, SUNMatrix A, SUNContext ctx);
int chs_klu_reinit(SUNLinearSolver S);
/* (lnz + unz + nzoff) / nnz(J) of KLU's symbolic analysis of J's pattern with AMD (the fill of
 * an LU without pivoting on AMD's order); -1 when it cannot be computed (src/klu.c) */
double chs_klu_fill(const struct cs_dl_sparse *J);
int chs_ls_parse(const char *method, const char *params, chs_ls_options *o, CHSError *err);
int chs_ls_create(CHSFormulation f, const char *method, chs_ls_options *o, int residual,
                  N_Vector y0, N_Vector yp0, SUNMatrix *A, SUNLinearSolver *LS, int *user_jac,
                  CHSError *err);

/* ------------------------------------------------------------------ formulation */
struct CHSFormulation_ {
  const CHSFormulationOps *ops;
  CHSProblem prob;
  SUNContext sunctx;
  CHSSystem sys;
  sunindextype size;
  void *priv;
  long n_rhs;
  long n_recharts;
  CHSProjector projector; /* attached by CHSProjector_Create, or NULL */
  CHSError failure;
  CHSJacWork *jac;         /* Jacobian workspace of the integrator using it, or NULL */
  struct CHSPrecond *prec; /* Krylov preconditioner of the CVODE using it (owned there), or NULL */
  struct { /* the IDA whose error weights it gives (CHSFormulation_IDASetTolerances) */
    void *ida;
    sunrealtype rtol, atol;
  } idaw;
  struct chs_mult_ws *mult; /* CHSFormulation_GetMultipliers' own system, made at its first call */
};
/* Frees the workspace of CHSFormulation_GetMultipliers (src/multipliers.c); NULL allowed. */
void chs_mult_free(struct chs_mult_ws **w);
/* CHSFormulation_GetMultipliers, and (v != NULL) the velocities v = M(q)^{-1} p of the state. */
int chs_mult_eval(CHSFormulation f, sunrealtype t, N_Vector y, sunrealtype *lambda,
                  sunrealtype *reaction, sunrealtype *v, CHSError *err);

/* ------------------------------------------------------------------ shared checks and clocks */

/* A required callback of an ops table (src/problem.c): code with "<kind> '<name>': required
 * callback '<what>' is NULL" at the first NULL fn of req[0 .. n-1], else CHS_SUCCESS. */
typedef struct {
  const void *fn;
  const char *what;
} chs_required;
int chs_check_required(const chs_required *req, size_t n, int code, const char *kind,
                       const char *name, CHSError *err);
/* t0, tf, h, rtol, atol of run options (src/run.c): CHS_ERR_ARG naming the bad value. */
int chs_check_time_step(const CHSRunOptions *o, CHSError *err);
/* CHS_ERR_ARG unless o->subnormals is CHS_SUBNORMALS_FLUSH or _KEEP (CHSRun, CHSMPI_Run). */
int chs_check_subnormals(const CHSRunOptions *o, CHSError *err);
/* CHS_ERR_SOLVER: steps (the --max-steps limit) reached only t of tf (src/run.c). */
int chs_too_much_work(CHSError *err, long steps, sunrealtype t, sunrealtype tf);
/* Monotonic wall-clock time in seconds (src/run.c). */
double chs_wall_time(void);

/* out += alpha J^T w (J in the layout of G). */
static inline void chs_jac_tmv_acc(const CHSSystem *s, const sunrealtype *J, const sunrealtype *w,
                                   sunrealtype alpha, sunrealtype *out) {
  sunindextype n = s->n, m = s->m;
  for (sunindextype i = 0; i < m; i++) {
    sunrealtype awi = alpha * w[i];
    if (s->jac_kind == CHS_JAC_DENSE) {
      const sunrealtype *row = J + i * n;
      for (sunindextype j = 0; j < n; j++) {
        out[j] += row[j] * awi;
      }
    } else {
      for (int32_t k = s->rp32[i]; k < s->rp32[i + 1]; k++) {
        out[s->ci32[k]] += J[k] * awi;
      }
    }
  }
}

/* Inlined even into large callers (GCC and Clang otherwise keep a call in the Dirac field, about
 * 5 % of a pendulum right-hand side). */
#if defined(__GNUC__)
#define CHS_ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define CHS_ALWAYS_INLINE static inline
#endif

/* Gtw = G^T w, Gdtw = Gdot^T w and, when z != NULL, Gtz = G^T z, in one pass over the common
 * pattern of G and Gdot (the Dirac field's products; one pass instead of three). */
CHS_ALWAYS_INLINE void chs_jac_tmv_fused(const CHSSystem *s, const sunrealtype *w,
                                         const sunrealtype *z, sunrealtype *Gtw, sunrealtype *Gdtw,
                                         sunrealtype *Gtz) {
  sunindextype n = s->n, m = s->m;
  const sunrealtype *G = s->G, *Gd = s->Gd;
  if (s->jac_kind == CHS_JAC_DENSE) { /* row i at G + i n: columns in order, no index array */
    for (sunindextype j = 0; j < n; j++) {
      Gtw[j] = G[j] * w[0];
      Gdtw[j] = Gd[j] * w[0];
    }
    if (z) {
      for (sunindextype j = 0; j < n; j++) {
        Gtz[j] = G[j] * z[0];
      }
    }
    for (sunindextype i = 1; i < m; i++) {
      const sunrealtype *row = G + i * n, *rowd = Gd + i * n;
      for (sunindextype j = 0; j < n; j++) {
        Gtw[j] += row[j] * w[i];
        Gdtw[j] += rowd[j] * w[i];
      }
      if (z) {
        for (sunindextype j = 0; j < n; j++) {
          Gtz[j] += row[j] * z[i];
        }
      }
    }
    return;
  }
  for (sunindextype j = 0; j < n; j++) {
    Gtw[j] = 0;
    Gdtw[j] = 0;
    if (z) {
      Gtz[j] = 0;
    }
  }
  for (sunindextype i = 0; i < m; i++) {
    sunrealtype wi = w[i], zi = z ? z[i] : 0;
    for (int32_t k = s->rp32[i]; k < s->rp32[i + 1]; k++) {
      int32_t j = s->ci32[k];
      Gtw[j] += G[k] * wi;
      Gdtw[j] += Gd[k] * wi;
      if (z) {
        Gtz[j] += G[k] * zi;
      }
    }
  }
}

#endif
