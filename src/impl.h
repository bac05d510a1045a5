/* Private definitions shared by the library's files: object layouts, the error helper and the
 * constrained-system kernels every formulation is built from. Not installed. */
#ifndef CHS_IMPL_H
#define CHS_IMPL_H

#include <stdarg.h>
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
};

/* Bytes of a version-1 CHSProblemOps: the fields before the first one version 2 appended. */
#define CHS_PROBLEM_OPS_V1_SIZE offsetof(CHSProblemOps, invariant_names)

/* Plugins (problems/plugin.c). */
int chs_is_plugin_spec(const char *name);
int chs_plugin_load(const char *path, const CHSProblemOps **ops, void **handle, CHSError *err);
void chs_plugin_close(void *handle);

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
int chs_gram_solve(CHSGram *gram, const sunrealtype *b, sunrealtype *x);

/* ------------------------------------------------------------------ system
 * A problem bound to its sizes, inverse mass matrix, Jacobian storage, Gram solver, scratch
 * vectors and counters. One per formulation (no sharing, so formulations are reentrant). */
#define CHS_SCRATCH_N 8
#define CHS_SCRATCH_M 8
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
  sunrealtype *G, *Gd;  /* G(q) and Gdot(q, v) at the current point */
  sunrealtype *MinvGt;  /* dense mass only: n x m Gram scratch (column j = M^{-1} g_j) */
  CHSGram *gram;
  sunrealtype *wn[CHS_SCRATCH_N]; /* scratch of length n */
  sunrealtype *wm[CHS_SCRATCH_M]; /* scratch of length m */
  long n_gram_factor;
} CHSSystem;

/* ctx NULL: no Gram solver (residual evaluations only); gram_kind: CHS_GRAM_*. */
int chs_system_init(CHSSystem *s, CHSProblem prob, SUNContext ctx, int gram_kind, CHSError *err);
void chs_system_free(CHSSystem *s);

/* v = M^{-1} p (v may alias nothing). */
void chs_mass_inv(const CHSSystem *s, const sunrealtype *p, sunrealtype *v);
/* out = J u (length m) and out = J^T w (length n) for J stored like G. */
void chs_jac_mv(const CHSSystem *s, const sunrealtype *J, const sunrealtype *u, sunrealtype *out);
void chs_jac_tmv(const CHSSystem *s, const sunrealtype *J, const sunrealtype *w, sunrealtype *out);
/* Fused passes (J1, J2 stored like G): out1 = J1 u1 and out2 = J2 u2, or, when out2 is NULL,
 * out1 = J1 u1 + c2 J2 u2; and out1 = J1^T w, out2 = J2^T w. */
void chs_jac_mv2(const CHSSystem *s, const sunrealtype *J1, const sunrealtype *u1,
                 const sunrealtype *J2, const sunrealtype *u2, sunrealtype c2, sunrealtype *out1,
                 sunrealtype *out2);
void chs_jac_tmv2(const CHSSystem *s, const sunrealtype *J1, const sunrealtype *J2,
                  const sunrealtype *w, sunrealtype *out1, sunrealtype *out2);
/* Evaluate G(q) into s->G, assemble Q = G M^{-1} G^T and factor it (counted).
 * 0, CHS_RECOVERABLE (singular Q or callback out of domain), or < 0. */
int chs_system_gram_at(CHSSystem *s, const sunrealtype *q);

/* The quantities both the standard and the Hamilton-Dirac equations are built from, at (q, p):
 *   v = M^{-1} p, F = -grad V, G, Gdot(q, v) (s->G, s->Gd), Q factored,
 *   psi = G v, r = Gdot(q,v) v + G M^{-1} F, lambda = Q^{-1} r.
 * Pointers refer to the system's scratch space (valid until the next call); for an identity mass
 * matrix v is p itself and Minv_F is F: read-only. */
typedef struct CHSKinematics {
  sunrealtype *v, *F, *Minv_F;   /* length n */
  sunrealtype *psi, *r, *lambda; /* length m */
} CHSKinematics;
int chs_system_kinematics(CHSSystem *s, const sunrealtype *q, const sunrealtype *p,
                          CHSKinematics *k);

/* The common shape of the natural formulations' fields:
 *   ydot = (v + cq dq, F - G^T mult + dp)     (dq, dp may be NULL: zero).
 * Uses scratch s->wn[6]. */
void chs_system_field(CHSSystem *s, const CHSKinematics *k, const sunrealtype *mult, sunrealtype cq,
                      const sunrealtype *dq, const sunrealtype *dp, sunrealtype *ydot);

/* The total Hamiltonian's field (formulations/total.c), shared with the extended Hamiltonian,
 * which adds the gradient of -psi^T Q^{-1} psi. Workspace installed by chs_total_init as the
 * formulation's private data; kin (may be NULL) receives the kinematics at y. */
typedef struct {
  sunrealtype *Gd2;             /* scratch Gdot evaluations (gsize) */
  sunrealtype *a, *b, *c, *acc; /* length n */
} chs_total_ws;
int chs_total_init(CHSFormulation f, CHSParams params, CHSError *err);
void chs_total_free(CHSFormulation f);
int chs_total_field(CHSFormulation f, const sunrealtype *y, sunrealtype *ydot, CHSKinematics *kin);

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

/* Called by CHSFormulation_Destroy: the projector outlives nothing it points to. */
void chs_projector_detach(CHSProjector proj);

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
};

#endif
