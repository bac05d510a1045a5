/** @file
 * Problems: natural mechanical systems with holonomic constraints.
 *
 *   H(q,p,t) = 1/2 p^T M(q)^{-1} p + V(q,t),   g(q,t) = 0 (m constraints),   F = -grad V,
 *   G(q) = dg/dq (m x n),   Gdot(q,u) = d/de G(q + e u) at e = 0 (same layout as G).
 *
 * M is constant (identity, diagonal, dense) unless the problem declares CHS_MASS_CONFIG (ABI 3);
 * V, F, g, G and the non-conservative force may depend on t when dims.time_dependent is set
 * (ABI 3): chs then calls set_time(data, t) before it evaluates any callback at time t.
 * Derivations for M(q) and time-dependent constraints: docs/mechanics.md.
 *
 * A problem is a versioned const table of callbacks on plain arrays (no SUNDIALS objects), so
 * built-in problems and plugin shared objects use the same table. Callbacks return 0 on success,
 * > 0 when the point is outside their domain (recoverable), < 0 on a fatal error.
 *
 * Layout of G and Gdot: CHS_JAC_DENSE stores m x n row-major (row i = grad g_i);
 * CHS_JAC_CSR stores the nnz values of a fixed CSR pattern (rowptr[m+1], colind[nnz]) that the
 * problem declares in CHSProblemDims; Gdot uses the same pattern. */
#ifndef CHS_PROBLEM_H
#define CHS_PROBLEM_H

#include "chs/export.h"

#include <stddef.h>
#include <sundials/sundials_types.h>
#include "chs/error.h"
#include "chs/params.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Bumped whenever CHSProblemOps changes layout. Plugins export
 *   const CHSProblemOps *chs_problem_entry(int abi_version);
 * Versions 2 to 8 appended optional fields (below); tables of older versions (plugins or
 * programs built against an older header) still load: the fields they lack read as NULL / 0,
 * and their NULL hessian_potential / constraint_third keep the meaning they documented (V at
 * most linear / quadratic constraints: the loader sets the matching CHS_DECLARE_* bits). The
 * loader asks a plugin for version 8 first, then 7, 6, 5, 4, 3, 2, 1.                        */
#define CHS_PROBLEM_ABI_VERSION 8
#define CHS_PROBLEM_ABI_VERSION_MIN 1 /**< the oldest table version the loader accepts */
/* At most this many extra invariants, and events, per problem. */
#define CHS_MAX_INVARIANTS 8 /**< at most this many extra invariants per problem */
#define CHS_MAX_EVENTS 8     /**< at most this many events per problem */
/** The name of the entry function a plugin exports (see CHS_PROBLEM_ABI_VERSION). */
#define CHS_PROBLEM_ENTRY_SYMBOL "chs_problem_entry"

/** CHS_MASS_CONFIG (ABI 3): M(q) from CHSProblemOps.mass_matrix, symmetric positive definite,
 * dense n x n row-major (mass_nnz = 0) or, with a fixed CSR pattern (mass_nnz, mass_rowptr,
 * mass_colind: both triangles), its nnz values. */
typedef enum {
  CHS_MASS_IDENTITY = 0, /**< M = I */
  CHS_MASS_DIAGONAL = 1, /**< constant diagonal M (n entries in CHSProblemDims.mass) */
  CHS_MASS_DENSE = 2,    /**< constant dense SPD M (n x n row-major in CHSProblemDims.mass) */
  CHS_MASS_CONFIG = 3    /**< M(q) from CHSProblemOps.mass_matrix */
} CHSMassKind;

/** @name Declared facts (CHSProblemDims.declares, ABI 3)
 * Facts a problem declares about itself. A formulation or method
 * that needs a derivative the problem does not supply refuses the problem unless the matching
 * fact is declared (never a silent zero). `chs check` verifies declared facts numerically.
 * @{ */
#define CHS_DECLARE_LINEAR_POTENTIAL 0x1u      /**< V at most linear in q: no hessian_potential */
#define CHS_DECLARE_QUADRATIC_CONSTRAINTS 0x2u /**< g at most quadratic: no constraint_third */
/** A planar bond chain, the structure CHSMPI_Run distributes (chs/mpi.h): N atoms, two
 * coordinates each, q = (x_0, y_0, x_1, y_1, ...), n = 2N; a constant mass matrix, identity or
 * diagonal with the two entries of an atom equal; constraint i fixes bond h = i + off (off = 0
 * anchored, 1 free, see CHS_DECLARE_ANCHORED) at its length L_i, in bond order:
 * g_i = 1/2 (|r_h - r_{h-1}|^2 - L_i^2), r_h = (x_h, y_h), r_{-1} = 0 the fixed pivot, so that
 * m = N - off; G in CSR (CHS_JAC_CSR), row i holding exactly the coordinates of atoms h-1 and h
 * (4 entries; 2 for an anchored chain's row 0) with the values -d_h and d_h, d_h = r_h - r_{h-1}
 * computed as that difference (then Gdot(q, v)'s row is (-e_h, e_h), e_h = v_h - v_{h-1}). Needs
 * also: no explicit time dependence, no non-conservative force, no kinetic scale (refused
 * otherwise). CHSMPI_Run compares G with this layout exactly at the initial state, and g's form
 * before rattle or a projection. */
#define CHS_DECLARE_BOND_CHAIN 0x4u
/** With CHS_DECLARE_BOND_CHAIN: atom 0 is bonded to the fixed pivot at the origin (constraint 0
 * is |r_0| = L_0, off = 0, m = N); without it the chain is free (off = 1, m = N - 1). */
#define CHS_DECLARE_ANCHORED 0x8u

/** @} */

/** @name Time dependence (CHSProblemDims.time_dependent, ABI 3)
 * Which callbacks depend on t explicitly.
 * @{ */
#define CHS_TIME_CONSTRAINTS 0x1u /**< g(q, t): constraint_dt is required */
#define CHS_TIME_POTENTIAL 0x2u   /**< V(q, t), F(q, t): potential_dt is required */
#define CHS_TIME_FORCE 0x4u       /**< the non-conservative force depends on t */
/** @} */
/** Layout of G and Gdot (see the file's description). */
typedef enum {
  CHS_JAC_DENSE = 0, /**< m x n row-major */
  CHS_JAC_CSR = 1    /**< the nnz values of the fixed CSR pattern of CHSProblemDims */
} CHSJacKind;

/** Filled by the problem's create callback; pointers are owned by the problem's data. */
typedef struct CHSProblemDims {
  sunindextype n;             /**< coordinates */
  sunindextype m;             /**< constraints, 0 < m < n */
  CHSMassKind mass_kind;      /**< the kind of mass matrix */
  const sunrealtype *mass;    /**< NULL (identity), n diagonal entries, or n*n row-major SPD */
  CHSJacKind jac_kind;        /**< layout of G and Gdot */
  sunindextype nnz;           /**< CSR only */
  const sunindextype *rowptr; /**< CSR only, m+1 entries */
  const sunindextype *colind; /**< CSR only, nnz entries */
  /** ABI 2: 1 when this instance's kinetic energy is sigma(q) 1/2 p^T M^{-1} p with sigma from
   * CHSProblemOps.kinetic_scale (left 0 by version-1 problems). */
  int kinetic_scaled;
  /* ABI 3 (left 0 by older problems; the loader fills `declares` for them, see above). */
  unsigned declares;       /**< CHS_DECLARE_* bits */
  unsigned time_dependent; /**< CHS_TIME_* bits; 0: autonomous */
  sunindextype mass_nnz;   /**< CHS_MASS_CONFIG with a CSR pattern: its nnz (0: dense M(q)) */
  /** @{ */
  const sunindextype *mass_rowptr, *mass_colind; /**< n+1 and mass_nnz entries */
  /** @} */
  /** ABI 5, with CHSProblemOps.force_local: force component i depends on q only through the
   * components within force_reach of i, |j - i| <= force_reach (0: on q_i alone or on none). */
  sunindextype force_reach;
  /** ABI 6, with CHSProblemOps.force_atoms: the force on an atom depends only on the atoms
   * closer than force_cutoff to it (position space, 2 coordinates per atom); 0: not declared. */
  sunrealtype force_cutoff;
  /** ABI 8, optional: names of this instance's coordinates (n entries) and constraints (m
   * entries), owned by the problem's data, for output headers, plots and messages; NULL (the
   * default, and for older problems) means q1 .. qn and g1 .. gm. A name is 1 to 31 characters of
   * [A-Za-z0-9_] starting with a letter, unique among the coordinates (among the constraints),
   * and none of the output group words t, q, p, v, lambda, reaction, energy, energy_err, pos_res,
   * mom_res, int_err, all; the loader refuses a table that breaks this (CHS_ERR_PLUGIN, naming the
   * entry and its index). */
  const char *const *coordinate_names;
  const char *const *constraint_names; /**< see coordinate_names */
} CHSProblemDims;

/** A problem: its name and callbacks, versioned by abi_version (one const table per problem). */
typedef struct CHSProblemOps {
  int abi_version;        /**< CHS_PROBLEM_ABI_VERSION */
  const char *name;       /**< registry name, e.g. "pendulum" */
  const char *summary;    /**< one line for `chs list problems` */
  const char *params_doc; /**< "key=default meaning; ..." for --help */

  /** Create an instance from validated parameters; must call CHSParams_Get* for every key it
   * accepts (unknown keys are reported by the caller). Required. Any nonzero return is reported
   * as an input error (CHS_ERR_ARG unless it is an input or CHS_ERR_MEM/IO code) with the
   * message it wrote into err, or one naming the returned value. */
  int (*create)(CHSParams params, void **data, CHSProblemDims *dims, CHSError *err);
  void (*destroy)(void *data); /**< required */

  int (*potential)(void *data, const sunrealtype *q, sunrealtype *V);  /**< required */
  int (*force)(void *data, const sunrealtype *q, sunrealtype *F);      /**< required, -grad V */
  int (*constraint)(void *data, const sunrealtype *q, sunrealtype *g); /**< required */
  int (*jacobian)(void *data, const sunrealtype *q, sunrealtype *G);   /**< required */
  int (*jacobian_dot)(void *data, const sunrealtype *q, const sunrealtype *u,
                      sunrealtype *Gdot); /**< required */
  /** Optional: Hu = (hess V)(q) u. NULL means V is at most linear. */
  int (*hessian_potential)(void *data, const sunrealtype *q, const sunrealtype *u, sunrealtype *Hu);
  /** Optional: out = grad_q ( w^T Gdot(q,u) u ) at fixed u, w. NULL: quadratic constraints. */
  int (*constraint_third)(void *data, const sunrealtype *q, const sunrealtype *u,
                          const sunrealtype *w, sunrealtype *out);
  /** Consistent initial state (g = 0, G M^{-1} p = 0). Required. */
  int (*initial_state)(void *data, sunrealtype *q, sunrealtype *p);
  /** Optional reference solution at time t (from t = 0). */
  int (*reference)(void *data, sunrealtype t, sunrealtype *q, sunrealtype *p);

  /* ---- ABI version 2 */
  /** Optional velocity-dependent generalized force (dampers, friction), v = M^{-1} p: the equations
   * of motion become q' = v, p' = F(q) + Fnc(q, v) - G^T lambda. NULL: the system is Hamiltonian.
   * A problem with this callback is not Hamiltonian: formulations and methods built on H
   * (CHS_FORM_NEEDS_HAMILTONIAN, CHSIntegratorOps.needs_hamiltonian) refuse it, and the energy H
   * is not an invariant (its rate is Fnc . v). */
  int (*nonconservative_force)(void *data, const sunrealtype *q, const sunrealtype *v,
                               sunrealtype *Fnc);
  /** Optional configuration-dependent scale of the kinetic energy, used when the instance sets
   * dims.kinetic_scaled: H = sigma(q) 1/2 p^T M^{-1} p + V(q), sigma > 0 and sigma = 1 on the
   * constraint manifold (so H is unchanged there: a different Hamiltonian for the same
   * constrained motion, e.g. the pendulum's (52) of [Seiler, stable]). Only formulations flagged
   * CHS_FORM_KINETIC_SCALE (impetus) accept such an instance. */
  int (*kinetic_scale)(void *data, const sunrealtype *q, sunrealtype *sigma,
                       sunrealtype *grad_sigma);
  /** Extra first integrals of the continuous dynamics besides H (e.g. total linear and angular
   * momentum): invariant_names is NULL-terminated (at most CHS_MAX_INVARIANTS names) and
   * invariants(q, p) writes one value per name. Diagnostics report their drift. */
  const char *const *invariant_names;
  /** The values of the extra invariants at (q, p), one per name of invariant_names. */
  int (*invariants)(void *data, const sunrealtype *q, const sunrealtype *p, sunrealtype *out);

  /* ---- ABI version 3 */
  /** Configuration-dependent mass matrix (dims.mass_kind = CHS_MASS_CONFIG; all three required
   * then). M(q) into M (layout: see CHSMassKind); mass_dir: out = M'(q; u) b with
   * M'(q; u) = d/de M(q + e u) at e = 0; mass_grad: out = grad_q (a^T M(q) b) at fixed a, b
   * (so u . mass_grad(q, a, b) = a^T mass_dir(q, u, b)). */
  int (*mass_matrix)(void *data, const sunrealtype *q, sunrealtype *M);
  /** out = M'(q; u) b (see mass_matrix). */
  int (*mass_dir)(void *data, const sunrealtype *q, const sunrealtype *u, const sunrealtype *b,
                  sunrealtype *out);
  /** out = grad_q (a^T M(q) b) (see mass_matrix). */
  int (*mass_grad)(void *data, const sunrealtype *q, const sunrealtype *a, const sunrealtype *b,
                   sunrealtype *out);
  /** Explicit time dependence (dims.time_dependent != 0): set_time is required then; chs calls it
   * with the time of the evaluations that follow (the problem keeps t in its data).
   * constraint_dt (CHS_TIME_CONSTRAINTS): gt = dg/dt, Gt = d/dt G (stored like G), gtt = d2g/dt2
   * at (q, t); any output pointer may be NULL (not needed). potential_dt (CHS_TIME_POTENTIAL):
   * Vt = dV/dt at (q, t), for the energy balance. */
  int (*set_time)(void *data, sunrealtype t);
  /** gt, Gt and gtt at (q, t) (CHS_TIME_CONSTRAINTS; see set_time). */
  int (*constraint_dt)(void *data, const sunrealtype *q, sunrealtype *gt, sunrealtype *Gt,
                       sunrealtype *gtt);
  /** Vt = dV/dt at (q, t) (CHS_TIME_POTENTIAL; see set_time). */
  int (*potential_dt)(void *data, const sunrealtype *q, sunrealtype *Vt);
  /** Events: event_names is NULL-terminated (at most CHS_MAX_EVENTS) and events(t, q, p) writes
   * one value per name; an event happens where its value changes sign (`chs run --stop-at`). */
  const char *const *event_names;
  /** The event values e at (t, q, p), one per name of event_names. */
  int (*events)(void *data, sunrealtype t, const sunrealtype *q, const sunrealtype *p,
                sunrealtype *e);

  /* ---- ABI version 4 */
  /** Optional: hess V(q) as a sparse matrix, for the sparse Newton matrices of IDA and CVODE at
   * scale (docs/scale.md). Writes the CSR row pointers rowptr[0 .. n] (both triangles) and, when
   * rowptr[n] <= cap, the column indices colind[0 .. rowptr[n]-1] (increasing within a row) and,
   * when val != NULL, the values. The pattern must hold every entry that can be nonzero at q; it
   * may hold zeros and may change with q (e.g. the pairs within a cutoff plus a margin). NULL:
   * chs builds hess V from hessian_potential (n products: small problems only). */
  int (*hessian_sparse)(void *data, const sunrealtype *q, sunindextype cap, sunindextype *rowptr,
                        sunindextype *colind, sunrealtype *val);

  /* ---- ABI version 5 */
  /** Optional: the components i0 <= i < i1 of the force -grad V(q) into F[0 .. i1 - i0 - 1], for
   * a caller that holds only part of q (a rank of an MPI run, docs/mpi.md). qw[k] = q[w0 + k]
   * for w0 <= w0 + k < w0 + nw, which holds [i0 - r, i1 + r) intersected with [0, n), r =
   * CHSProblemDims.force_reach; no other component of q may be read. Must equal the same
   * components of force. NULL: a distributed caller gathers q and calls force. */
  int (*force_local)(void *data, const sunrealtype *qw, sunindextype w0, sunindextype nw,
                     sunindextype i0, sunindextype i1, sunrealtype *F);

  /* ---- ABI version 6 */
  /** Optional, for planar problems of atoms (q = (x_0, y_0, x_1, y_1, ...)) whose forces are
   * pair interactions within CHSProblemDims.force_cutoff: the force on the first nown of the na
   * atoms atoms[0 .. na) (distinct atom indices; qa[2k], qa[2k + 1] the position of atoms[k])
   * into F[0 .. 2 nown - 1], from the interactions among these na atoms only. A caller that
   * holds every atom closer than force_cutoff to each of the first nown (the ghost atoms of an MPI
   * rank, docs/mpi.md) gets the same components as force, up to the order of the sums. */
  int (*force_atoms)(void *data, sunindextype na, const sunindextype *atoms, const sunrealtype *qa,
                     sunindextype nown, sunrealtype *F);

  /* ---- ABI version 7 */
  /** Optional, for CHS_MASS_CONFIG: the second derivatives of M, out = grad_q (a^T M'(q; u) b) at
   * fixed u, a, b, i.e. d/de mass_grad(q + e u, a, b) at e = 0 (symmetric in u and the gradient's
   * direction: s . mass_grad_dir(q, u, a, b) = u . mass_grad_dir(q, s, a, b)). The analytic
   * Jacobians of the formulations for M(q) (standard, dae-index3, dae-ggl, dae-index1) are built
   * from it; NULL: cvode and ida use difference quotients for such a problem (jac=analytic is
   * refused), and the total and extended Hamiltonians take it by extrapolated differences of
   * mass_grad. */
  int (*mass_grad_dir)(void *data, const sunrealtype *q, const sunrealtype *u, const sunrealtype *a,
                       const sunrealtype *b, sunrealtype *out);

  /* ---- ABI version 8 */
  /** Optional: the initial state as the problem states it, before it is made consistent: q0 and
   * the velocity v0 (not the momentum), which need not satisfy g = 0 and G v + g_t = 0. With it,
   * a consistent initialisation that holds chosen components (chs run --fix) starts from what
   * the model said; NULL: it starts from initial_state. */
  int (*initial_guess)(void *data, sunrealtype *q, sunrealtype *v);
} CHSProblemOps;

/** A problem instance: ops + data + dims. */
typedef struct CHSProblem_ *CHSProblem;

/** "name[:k=v,...]" from the built-in registry. Checks the initial state for consistency. */
CHS_EXPORT int CHSProblem_Create(const char *spec, CHSProblem *out, CHSError *err);
/** The name, summary and parameters (key=default meaning; ...) of the built-in problem or plugin
 * (path) `name` into buf, for a user's --help; CHS_ERR_NOTFOUND for an unknown name. */
CHS_EXPORT int CHSProblem_Help(const char *name, char *buf, size_t len, CHSError *err);
/** From any ops table (e.g. one a user program defines) and a parameter string. */
CHS_EXPORT int CHSProblem_CreateFromOps(const CHSProblemOps *ops, const char *params,
                                        CHSProblem *out, CHSError *err);
/** Free the problem (its data through ops->destroy) and set *prob to NULL; NULL allowed. */
CHS_EXPORT void CHSProblem_Destroy(CHSProblem *prob);

/** The problem's ops table. */
CHS_EXPORT const CHSProblemOps *CHSProblem_GetOps(CHSProblem prob);
/** The problem's data (what its create callback allocated). */
CHS_EXPORT void *CHSProblem_GetData(CHSProblem prob);
/** The dimensions the problem's create callback filled. */
CHS_EXPORT const CHSProblemDims *CHSProblem_GetDims(CHSProblem prob);
/** The problem's registry name (ops->name). */
CHS_EXPORT const char *CHSProblem_GetName(CHSProblem prob);
/** The declared name of coordinate i (0 <= i < n), or NULL when the problem declares none (or i
 * is out of range); the command line then calls it q1 .. qn (q followed by i + 1). */
CHS_EXPORT const char *CHSProblem_GetCoordinateName(CHSProblem prob, sunindextype i);
/** The declared name of constraint i (0 <= i < m), or NULL when the problem declares none (or i
 * is out of range); the command line then calls it g1 .. gm (g followed by i + 1). */
CHS_EXPORT const char *CHSProblem_GetConstraintName(CHSProblem prob, sunindextype i);

/** 1 when the problem has no non-conservative force (its flow is Hamiltonian), 0 otherwise. */
CHS_EXPORT int CHSProblem_IsConservative(CHSProblem prob);
/** 1 when the instance's kinetic energy has a configuration-dependent scale sigma(q). */
CHS_EXPORT int CHSProblem_HasKineticScale(CHSProblem prob);
/* Number of extra invariants (0 when the problem declares none) and their values at (q, p)
 * (CHS_ERR_UNSUPPORTED when it has none); names in CHSProblem_GetOps(prob)->invariant_names. */
/** Number of extra invariants (0 when the problem declares none). */
CHS_EXPORT int CHSProblem_GetNumInvariants(CHSProblem prob);
/** The values of the extra invariants at (q, p) (CHS_ERR_UNSUPPORTED when there are none). */
CHS_EXPORT int CHSProblem_Invariants(CHSProblem prob, const sunrealtype *q, const sunrealtype *p,
                                     sunrealtype *out);

/** The problem's reference solution at t (CHS_ERR_UNSUPPORTED when it has none). */
CHS_EXPORT int CHSProblem_Reference(CHSProblem prob, sunrealtype t, sunrealtype *q, sunrealtype *p);

/* Registry of built-in problems. */
/** Number of built-in problems. */
CHS_EXPORT int CHSProblemRegistry_Count(void);
/** The i-th built-in problem, NULL when i is out of range. */
CHS_EXPORT const CHSProblemOps *CHSProblemRegistry_Get(int i);
/** The built-in problem of that name, NULL when there is none. */
CHS_EXPORT const CHSProblemOps *CHSProblemRegistry_Find(const char *name);

/** Tolerance for accepting an initial state: |g|_2 <= tol * max(1, |q|_2^2) and
 * |G M^{-1} p|_2 <= tol * max(1, |q|_2 |M^{-1} p|_2) (the scales of quadratic constraints). */
#define CHS_CONSISTENCY_TOL 1e-10

#ifdef __cplusplus
}
#endif
#endif
