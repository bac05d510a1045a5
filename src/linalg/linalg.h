/* Jacobians (dense blocks, banded, sparse assembly), the preconditioner and the choice of
 * SUNLinearSolver. Private (not installed). */
#ifndef CHS_LINALG_H
#define CHS_LINALG_H

#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>
#include "model/blocks.h"
#include "model/derivatives.h"
#include "model/system.h"

/* ------------------------------------------------------------------ Jacobians */
/* The derivatives the formulation's analytic Jacobian is built from: its CHS_FORM_JAC_* flags as
 * CHS_NEED_* bits (src/linalg/jacobian.c). */
unsigned chs_jacobian_needs(const CHSFormulationOps *ops);
/* Why f's analytic Jacobian does not cover its problem's M(q) or time dependence (a phrase for a
 * message), or NULL when it does or the problem has neither (src/linalg/jacobian.c). */
const char *chs_jacobian_general_gap(CHSFormulation f);

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
/* IDA's Krylov preconditioner (ida:ls=spgmr,prec=sparse, src/linalg/jacobian.c): P = the DAE
 * Jacobian without hess V, factored by KLU, kept in f->jac; setup and solve are IDALsPrecSetupFn
 * and IDALsPrecSolveFn with the formulation as user data. */
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
/* src/linalg/jacobian_sparse.c: the residual Jacobian dF/dy + cj dF/dy' of a formulation with a DAE
 * index (chs_dae_kind) in CSC (CXSparse's cs_dl, sorted row indices, freed with chs_csc_free):
 * 0, CHS_RECOVERABLE (callback out of domain, non-finite), CHS_ERR_UNSUPPORTED (no analytic
 * Jacobian, or hess V without hessian_sparse above 3000 coordinates) or < 0. */
struct cs_dl_sparse;
int chs_dae_jacobian_csc(CHSFormulation f, sunrealtype cj, const sunrealtype *y,
                         struct cs_dl_sparse **out);
void chs_csc_free(struct cs_dl_sparse *A);
/* The same Jacobian by a structure-reusing assembly (src/linalg/jacobian_sparse.c): *a (NULL at
 * first, freed with chs_sparse_asm_free) keeps the CSC pattern, where every contribution goes and
 * the arrays, redone only when hess V's pattern changes; *out points into *a (valid until the next
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
 * sum lambda_i hess g_i), I] in CSC, factored by KLU (src/linalg/jacobian_sparse.c).
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
/* CHSFormulation_IDAErrorWeights from the component ids id (src/integrate/glue.c), unchecked */
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

/* Linear solvers of CVODE and IDA from "ls=...,jac=..." (src/linalg/linsol.c). chs_ls_parse reads
 * the parameters (jac = -1 when not given); chs_ls_create makes the matrix (NULL for spgmr) and the
 * solver, installs the Jacobian workspace in f when needed and says whether the integrator must
 * set chs_cvode_jac / chs_ida_jac as its Jacobian function (*user_jac). residual: IDA. */
#define CHS_LS_DENSE 0
#define CHS_LS_BAND 1
#define CHS_LS_KLU 2
#define CHS_LS_SPGMR 3
#define CHS_LS_UMFPACK 4
/* ls=auto (the default): chs_ls_create picks one of the above from the system (src/linalg/linsol.c,
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
/* src/linalg/klu.c: KLU with 32-bit indices on a square CSC SUNSparseMatrix (order: as
 * chs_ls_options.order, -1 colamd); its set-ups keep the pivot order while the pivot growth
 * allows (instead of SUNDIALS' condition-number test, which re-pivots most index-2/3 Newton
 * matrices). NULL for another matrix or out of memory. chs_klu_reinit: the matrix's pattern
 * changed, analyse it at the next set-up (0, or CHS_ERR_ARG for another solver). */
SUNLinearSolver chs_klu_create(N_Vector y, SUNMatrix A, int order, SUNContext ctx);
/* The same solver on UMFPACK (ls=umfpack: a factorisation at each set-up, for matrices that
 * fill); chs_klu_reinit applies to it too. */
SUNLinearSolver chs_umfpack_create(N_Vector y, SUNMatrix A, SUNContext ctx);
int chs_klu_reinit(SUNLinearSolver S);
/* (lnz + unz + nzoff) / nnz(J) of KLU's symbolic analysis of J's pattern with AMD (the fill of
 * an LU without pivoting on AMD's order); -1 when it cannot be computed (src/linalg/klu.c) */
double chs_klu_fill(const struct cs_dl_sparse *J);
int chs_ls_parse(const char *method, const char *params, chs_ls_options *o, CHSError *err);
int chs_ls_create(CHSFormulation f, const char *method, chs_ls_options *o, int residual,
                  N_Vector y0, N_Vector yp0, SUNMatrix *A, SUNLinearSolver *LS, int *user_jac,
                  CHSError *err);

#endif
