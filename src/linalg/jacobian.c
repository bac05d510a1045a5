/* Jacobians of formulations for the Newton iterations of CVODE and IDA.
 *
 * Formulations may supply an analytic Jacobian (CHSFormulationOps.jacobian) built from the dense
 * second-derivative blocks of src/model/jacobian_blocks.c (G, M^{-1}, hess V, sum_i w_i hess g_i,
 * Gdot(q, u) and the third derivatives of the problem's constraint_third). The integrators hand
 * SUNDIALS a Jacobian function (chs_cvode_jac, chs_ida_jac) that evaluates the analytic Jacobian,
 * or a forward difference one (one right-hand side / residual evaluation per column, no colouring),
 * into a dense column-major buffer and copies it into the SUNMatrix the linear solver uses (dense,
 * band or CSC sparse).
 *
 * The sparsity pattern (for KLU, and the band widths for the band solver) is found once, at
 * set-up, from the Jacobian itself at the initial state and two pseudo-random perturbations of
 * it (relative size 1e-3; of t0 too for time-dependent problems): entries nonzero at any of the
 * three points, plus the diagonal. An
 * entry that is structurally nonzero vanishes at three random points only on a set of measure
 * zero; a later evaluation with a nonzero outside the pattern is reported as a recoverable
 * failure naming the entry.
 *
 * Sparse path (IDA with ls=klu on a DAE formulation with an analytic Jacobian): the Jacobian is
 * assembled directly in CSC (src/linalg/jacobian_sparse.c, memory and work O(nnz), no size limit);
 * its pattern is the structural one of the blocks. When the pattern changes (hess V's pattern
 * follows the configuration, e.g. the chain's pairs within a cutoff) the matrix is reallocated if
 * needed and KLU's symbolic analysis redone (chs_klu_reinit); otherwise KLU refactors numerically.
 *
 * Dense path (everything else): the Jacobian is assembled densely (N x N, then copied into the
 * band or CSC matrix), so memory is O(N^2) and the analytic blocks cost up to O(n^3); KLU then
 * saves the factorisations (pendulum-chain:N=200 with dae-ggl, N = 1200: 0.14 s with KLU against
 * 3.9 s dense). State sizes above CHS_JAC_MAX_SIZE are refused there. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <nvector/nvector_serial.h>
#include <sunmatrix/sunmatrix_band.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunmatrix/sunmatrix_sparse.h>
#include <suitesparse/cs.h>
#include "impl.h"

const char *const chs_jac_mode_names[] = {"analytic", "fd", NULL};

/* The largest state size for which the dense N x N Jacobian buffer (and pattern) is allocated:
 * 8000^2 doubles = 512 MB. */
#define CHS_JAC_MAX_SIZE 8000

/* ------------------------------------------------------------------ public evaluation */

/* The analytic Jacobians are built from F = -grad V: none for a non-conservative problem (whose
 * velocity-dependent force has no derivative callback), and none when the problem lacks a
 * derivative they are built from (hess V, the third derivatives of g) without declaring it zero.
 * A configuration-dependent M(q) adds terms with the second derivatives of M: they need the
 * problem's mass_grad_dir (ABI 7). Time-dependent constraints add G_t to psi (dae-ggl), but the
 * acceleration constraint of dae-index1 and standard holds 2 G_t v + g_tt, whose q-derivatives
 * (of G_t and g_tt) no callback gives: those two have none then. Without an analytic Jacobian
 * the integrators use difference quotients unless jac=analytic asks for it (refused). */
unsigned chs_jacobian_needs(const CHSFormulationOps *ops) {
  return ((ops->flags & CHS_FORM_JAC_HESSIAN) ? CHS_NEED_HESSIAN : 0u) |
         ((ops->flags & CHS_FORM_JAC_THIRD) ? CHS_NEED_THIRD : 0u);
}

/* Why f's analytic Jacobian cannot take M(q) or the time dependence of its problem, or NULL when
 * it can (or the problem has neither). */
const char *chs_jacobian_general_gap(CHSFormulation f) {
  const CHSSystem *s = &f->sys;
  if (!s->general) {
    return NULL;
  }
  int builtin = chs_jacobian_needs(f->ops) != 0;
  if (!builtin) {
    return "M(q) or explicit time dependence";
  }
  if (s->mass_kind == CHS_MASS_CONFIG && !s->ops->mass_grad_dir) {
    return "M(q) without mass_grad_dir, problem ABI 7";
  }
  /* the Jacobians that differentiate the acceleration constraint need the third derivatives of
   * g (CHS_FORM_JAC_THIRD): standard, dae-index1 */
  if ((s->time_bits & CHS_TIME_CONSTRAINTS) && (f->ops->flags & CHS_FORM_JAC_THIRD)) {
    return "time-dependent constraints: no q-derivatives of G_t and g_tt";
  }
  return NULL;
}

int CHSFormulation_HasJacobian(CHSFormulation f) {
  return f->ops->jacobian != NULL && CHSProblem_IsConservative(f->prob) &&
         !chs_jacobian_general_gap(f) &&
         !chs_missing_derivative(f->prob, chs_jacobian_needs(f->ops));
}

static int chs_jac_finish(CHSFormulation f, int rc, sunrealtype t, const sunrealtype *J) {
  if (rc == 0 && !chs_all_finite(J, f->size * f->size)) {
    rc = CHS_RECOVERABLE;
  }
  if (rc != 0 && f->failure.code == CHS_SUCCESS) {
    CHSFormulation_SetFailure(f, rc, "%s: Jacobian failed at t = %g", f->ops->name, (double)t);
  }
  return rc > 0 ? CHS_RECOVERABLE : rc;
}

int chs_jacobian_rhs_dense(CHSFormulation f, sunrealtype t, N_Vector y, sunrealtype *J) {
  if (!CHSFormulation_HasJacobian(f) || !f->ops->rhs) {
    return CHS_ERR_UNSUPPORTED;
  }
  CHSError_Clear(&f->failure);
  int rc = chs_system_set_time(&f->sys, t);
  if (rc == 0) {
    rc = f->ops->jacobian(f, t, N_VGetArrayPointer(y), NULL, 0, J);
  }
  return chs_jac_finish(f, rc, t, J);
}

int chs_jacobian_residual_dense(CHSFormulation f, sunrealtype t, sunrealtype cj, N_Vector y,
                                N_Vector yp, sunrealtype *J) {
  if (!CHSFormulation_HasJacobian(f)) {
    return CHS_ERR_UNSUPPORTED;
  }
  CHSError_Clear(&f->failure);
  sunindextype N = f->size;
  int rc = chs_system_set_time(&f->sys, t);
  if (rc == 0) {
    rc = f->ops->jacobian(f, t, N_VGetArrayPointer(y), N_VGetArrayPointer(yp), cj, J);
  }
  if (rc == 0 && !f->ops->residual) { /* y' - f(t, y): cj I - df/dy */
    for (sunindextype k = 0; k < N * N; k++) {
      J[k] = -J[k];
    }
    for (sunindextype i = 0; i < N; i++) {
      J[i + i * N] += cj;
    }
  }
  return chs_jac_finish(f, rc, t, J);
}

/* The raw-array entry points of the previous release, kept for one release (chs/formulation.h). */
int CHSFormulation_RhsJacobian(CHSFormulation f, sunrealtype t, N_Vector y, sunrealtype *J) {
  return chs_jacobian_rhs_dense(f, t, y, J);
}

int CHSFormulation_ResidualJacobian(CHSFormulation f, sunrealtype t, sunrealtype cj, N_Vector y,
                                    N_Vector yp, sunrealtype *J) {
  return chs_jacobian_residual_dense(f, t, cj, y, yp, J);
}

/* ------------------------------------------------------------------ integrator workspace */

struct CHSJacWork {
  int mode, residual;
  sunindextype N;
  sunrealtype *J;           /* N x N column-major */
  unsigned char *mask;      /* pattern, N x N column-major */
  sunindextype nnz, mu, ml; /* of the pattern */
  N_Vector y1, yp1, r0, r1; /* difference-quotient scratch */
  long n_evals;
  /* sparse path: the pattern last handed to KLU (colptr N + 1, rowind nnz), the solver */
  int sparse;
  sunindextype *pat_p, *pat_i;
  SUNLinearSolver ls;
  long n_symbolic;
  CHSSparseAsm *sasm;  /* the structure-reusing assembly (src/linalg/jacobian_sparse.c) */
  long asm_pattern;    /* its pattern's version when pat_p/pat_i were taken (-1: compare) */
  SUNMatrix pat_A;     /* the matrix whose pattern was last written, if its zero op keeps it */
  SUNMatrix P;         /* IDA's Krylov preconditioner (chs_ida_prec_create): its matrix, */
  SUNLinearSolver Pls; /* and its KLU solver, owned here */
};

void chs_jac_work_free(CHSJacWork **w) {
  if (!w || !*w) {
    return;
  }
  CHSJacWork *j = *w;
  free(j->J);
  free(j->mask);
  free(j->pat_p);
  free(j->pat_i);
  chs_sparse_asm_free(&j->sasm);
  if (j->Pls) {
    SUNLinSolFree(j->Pls);
  }
  if (j->P) {
    SUNMatDestroy(j->P);
  }
  N_Vector v[] = {j->y1, j->yp1, j->r0, j->r1};
  for (int k = 0; k < 4; k++) {
    if (v[k]) {
      N_VDestroy(v[k]);
    }
  }
  free(j);
  *w = NULL;
}

/* J = d rhs / dy (ODE mode) or dF/dy + cj dF/dy' by forward differences. */
static int chs_jac_fd(CHSFormulation f, CHSJacWork *w, sunrealtype t, sunrealtype cj, N_Vector y,
                      N_Vector yp) {
  sunindextype N = w->N;
  int rc = w->residual ? CHSFormulation_Residual(t, y, yp, w->r0, f)
                       : CHSFormulation_Rhs(t, y, w->r0, f);
  if (rc != 0) {
    return rc;
  }
  N_VScale(1, y, w->y1);
  if (w->residual) {
    N_VScale(1, yp, w->yp1);
  }
  sunrealtype *y1 = N_VGetArrayPointer(w->y1), *yp1 = w->residual ? N_VGetArrayPointer(w->yp1) : 0;
  const sunrealtype *r0 = N_VGetArrayPointer(w->r0), *r1 = N_VGetArrayPointer(w->r1);
  const sunrealtype sq = sqrt(SUN_UNIT_ROUNDOFF);
  for (sunindextype j = 0; j < N; j++) {
    sunrealtype yj = y1[j], h = sq * fmax(fabs(yj), 1);
    volatile sunrealtype yh = yj + h; /* the step actually taken */
    h = yh - yj;
    y1[j] = yh;
    if (w->residual) {
      yp1[j] += cj * h;
    }
    rc = w->residual ? CHSFormulation_Residual(t, w->y1, w->yp1, w->r1, f)
                     : CHSFormulation_Rhs(t, w->y1, w->r1, f);
    y1[j] = yj;
    if (w->residual) {
      yp1[j] = N_VGetArrayPointer(yp)[j];
    }
    if (rc != 0) {
      return rc;
    }
    for (sunindextype i = 0; i < N; i++) {
      w->J[i + j * N] = (r1[i] - r0[i]) / h;
    }
  }
  return 0;
}

static int chs_jac_eval(CHSFormulation f, CHSJacWork *w, sunrealtype t, sunrealtype cj, N_Vector y,
                        N_Vector yp) {
  w->n_evals++;
  if (w->mode == CHS_JACOBIAN_FD) {
    return chs_jac_fd(f, w, t, cj, y, yp);
  }
  return w->residual ? chs_jacobian_residual_dense(f, t, cj, y, yp, w->J)
                     : chs_jacobian_rhs_dense(f, t, y, w->J);
}

int chs_jac_work_create(CHSFormulation f, int mode, int residual, N_Vector y0, N_Vector yp0,
                        CHSJacWork **out, CHSError *err) {
  *out = NULL;
  if (mode == CHS_JACOBIAN_ANALYTIC && !CHSFormulation_HasJacobian(f)) {
    const char *miss = chs_missing_derivative(f->prob, chs_jacobian_needs(f->ops));
    const char *gap = chs_jacobian_general_gap(f);
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "formulation '%s' has no analytic Jacobian for problem '%s'%s%s%s%s%s%s "
                         "(use jac=fd)",
                         f->ops->name, CHSProblem_GetName(f->prob), gap ? " (" : "", gap ? gap : "",
                         gap ? ")" : "", miss ? ": it needs " : "", miss ? miss : "",
                         miss ? ", which the problem does not supply" : "");
  }
  sunindextype N = f->size;
  if (N > CHS_JAC_MAX_SIZE) { /* the Jacobian is built densely (N^2 doubles) */
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "%s: state size %ld too large for a dense Jacobian (limit %d), which "
                         "this combination builds: use a DAE formulation with ida:ls=klu (sparse "
                         "Jacobian), or cvode:bdf:ls=spgmr",
                         f->ops->name, (long)N, CHS_JAC_MAX_SIZE);
  }
  CHSJacWork *w = calloc(1, sizeof *w);
  if (!w) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  w->mode = mode;
  w->residual = residual;
  w->N = N;
  w->J = malloc((size_t)(N * N) * sizeof *w->J);
  w->mask = calloc((size_t)(N * N), 1);
  w->y1 = N_VClone(y0);
  w->yp1 = N_VClone(y0);
  w->r0 = N_VClone(y0);
  w->r1 = N_VClone(y0);
  N_Vector yr = N_VClone(y0), ypr = N_VClone(y0);
  int rc = w->J && w->mask && w->y1 && w->yp1 && w->r0 && w->r1 && yr && ypr ? 0 : CHS_ERR_MEM;
  /* Pattern: the initial state and two pseudo-random perturbations (a fixed linear congruential
   * sequence: reproducible), cj = 1 so that dF/dy' shows. A time-dependent problem's are also a
   * little later than t0 (the time last set, the initial one): an entry with a factor that
   * vanishes at t0 (car-axis: the anchor's xb(t) = 0 at t = 0 in G) is nonzero there. */
  sunrealtype t0 = f->sys.time_bits ? f->prob->time : 0;
  unsigned long long lcg = 0x2545F4914F6CDD1DULL;
  for (int pt = 0; pt < 3 && rc == 0; pt++) {
    N_VScale(1, y0, yr);
    if (residual) {
      N_VScale(1, yp0, ypr);
    }
    sunrealtype t = t0;
    if (pt > 0) {
      sunrealtype *a = N_VGetArrayPointer(yr);
      for (sunindextype i = 0; i < N + (f->sys.time_bits != 0); i++) {
        lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
        sunrealtype u = (sunrealtype)((lcg >> 11) * 0x1.0p-53) - 0.5;
        if (i < N) {
          a[i] += 2e-3 * u * (1 + fabs(a[i]));
        } else {
          t = t0 + 2e-3 * (1 + u) * (1 + fabs(t0)); /* after t0, where the run goes */
        }
      }
    }
    rc = chs_jac_eval(f, w, t, 1, yr, ypr);
    for (sunindextype k = 0; rc == 0 && k < N * N; k++) {
      w->mask[k] |= w->J[k] != 0;
    }
  }
  if (f->sys.time_bits && chs_system_set_time(&f->sys, t0) != 0 && rc == 0) {
    rc = CHS_ERR_CALLBACK; /* t0 itself was accepted before */
  }
  if (yr) {
    N_VDestroy(yr);
  }
  if (ypr) {
    N_VDestroy(ypr);
  }
  if (rc != 0) {
    chs_jac_work_free(&w);
    return rc == CHS_ERR_MEM
               ? chs_error_set(err, rc, "out of memory")
               : chs_error_set(err, CHS_ERR_SOLVER,
                               "%s: Jacobian evaluation failed at the initial state", f->ops->name);
  }
  w->n_evals = 0;
  for (sunindextype j = 0; j < N; j++) {
    w->mask[j + j * N] = 1;
    for (sunindextype i = 0; i < N; i++) {
      if (w->mask[i + j * N]) {
        w->nnz++;
        w->mu = i < j && j - i > w->mu ? j - i : w->mu;
        w->ml = i > j && i - j > w->ml ? i - j : w->ml;
      }
    }
  }
  *out = w;
  return CHS_SUCCESS;
}

int chs_jac_work_create_sparse(CHSFormulation f, N_Vector y0, int without_hessv, CHSJacWork **out,
                               CHSError *err) {
  *out = NULL;
  const cs_dl *J = NULL;
  CHSSparseAsm *sasm = NULL;
  int rc = chs_sparse_asm_create(f, without_hessv, &sasm);
  if (rc == 0) {
    rc = chs_dae_jacobian_csc_reuse(f, &sasm, 1, N_VGetArrayPointer(y0), NULL, 0, &J);
  }
  if (rc != 0) {
    chs_sparse_asm_free(&sasm);
    const char *miss = chs_missing_derivative(f->prob, chs_jacobian_needs(f->ops));
    return rc == CHS_ERR_MEM ? chs_error_set(err, rc, "out of memory for the sparse Jacobian")
           : rc == CHS_ERR_UNSUPPORTED
               ? chs_error_set(err, rc,
                               "%s: no sparse Jacobian for problem '%s' (n = %ld)%s%s: it needs "
                               "hessian_sparse (problem ABI 4) above n = 3000, or jac=fd with "
                               "ls=dense for small n",
                               f->ops->name, CHSProblem_GetName(f->prob), (long)f->sys.n,
                               miss ? ", missing " : "", miss ? miss : "")
               : chs_error_set(err, CHS_ERR_SOLVER,
                               "%s: sparse Jacobian evaluation failed at the initial state",
                               f->ops->name);
  }
  CHSJacWork *w = calloc(1, sizeof *w);
  sunindextype N = f->size, nnz = J->p[N];
  long version = chs_sparse_asm_pattern(sasm);
  if (w && version < 0) { /* an assembly without pattern versions: compared with a copy */
    w->pat_p = malloc((size_t)(N + 1) * sizeof *w->pat_p);
    w->pat_i = malloc((size_t)(nnz + 1) * sizeof *w->pat_i);
  }
  if (!w || (version < 0 && (!w->pat_p || !w->pat_i))) {
    chs_sparse_asm_free(&sasm);
    chs_jac_work_free(&w);
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  w->mode = CHS_JACOBIAN_ANALYTIC;
  w->residual = 1;
  w->sparse = 1;
  w->N = N;
  w->nnz = nnz;
  w->mu = w->ml = N - 1;
  if (version < 0) {
    memcpy(w->pat_p, J->p, (size_t)(N + 1) * sizeof *w->pat_p);
    memcpy(w->pat_i, J->i, (size_t)nnz * sizeof *w->pat_i);
  }
  w->sasm = sasm;
  w->asm_pattern = version;
  *out = w;
  return CHS_SUCCESS;
}

void chs_jac_work_set_solver(CHSJacWork *w, SUNLinearSolver ls) {
  w->ls = ls;
}

long chs_jac_work_symbolic(const CHSJacWork *w) {
  return w && w->sparse ? w->n_symbolic + 1 : 0;
}

void chs_jac_work_shape(const CHSJacWork *w, sunindextype *nnz, sunindextype *mu,
                        sunindextype *ml) {
  *nnz = w->nnz;
  *mu = w->mu;
  *ml = w->ml;
}

long chs_jac_work_evals(const CHSJacWork *w) {
  return w ? w->n_evals : 0;
}

/* Copy the dense J into A (dense, band or CSC). */
static int chs_jac_store(CHSFormulation f, CHSJacWork *w, SUNMatrix A, sunrealtype t) {
  sunindextype N = w->N;
  switch (SUNMatGetID(A)) {
  case SUNMATRIX_DENSE:
    for (sunindextype j = 0; j < N; j++) {
      memcpy(SUNDenseMatrix_Column(A, j), w->J + j * N, (size_t)N * sizeof(sunrealtype));
    }
    return 0;
  case SUNMATRIX_BAND: {
    sunindextype mu = SUNBandMatrix_UpperBandwidth(A), ml = SUNBandMatrix_LowerBandwidth(A);
    for (sunindextype j = 0; j < N; j++) {
      sunrealtype *col = SUNBandMatrix_Column(A, j);
      for (sunindextype i = 0; i < N; i++) {
        if (i - j <= ml && j - i <= mu) {
          col[i - j] = w->J[i + j * N];
        } else if (w->J[i + j * N] != 0) {
          return CHSFormulation_SetFailure(f, CHS_RECOVERABLE,
                                           "%s: Jacobian entry (%ld, %ld) outside the band at "
                                           "t = %g",
                                           f->ops->name, (long)i, (long)j, (double)t);
        }
      }
    }
    return 0;
  }
  case SUNMATRIX_SPARSE: {
    sunindextype *colptr = SUNSparseMatrix_IndexPointers(A), *row = SUNSparseMatrix_IndexValues(A);
    sunrealtype *val = SUNSparseMatrix_Data(A);
    sunindextype nz = 0;
    for (sunindextype j = 0; j < N; j++) {
      colptr[j] = nz;
      for (sunindextype i = 0; i < N; i++) {
        if (w->mask[i + j * N]) {
          row[nz] = i;
          val[nz] = w->J[i + j * N];
          nz++;
        } else if (w->J[i + j * N] != 0) {
          return CHSFormulation_SetFailure(f, CHS_RECOVERABLE,
                                           "%s: Jacobian entry (%ld, %ld) outside the sparsity "
                                           "pattern at t = %g",
                                           f->ops->name, (long)i, (long)j, (double)t);
        }
      }
    }
    colptr[N] = nz;
    return 0;
  }
  default:
    return CHS_ERR_UNSUPPORTED;
  }
}

int chs_cvode_jac(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix A, void *user_data,
                  N_Vector tmp1, N_Vector tmp2, N_Vector tmp3) {
  (void)fy;
  (void)tmp1;
  (void)tmp2;
  (void)tmp3;
  CHSFormulation f = user_data;
  CHSJacWork *w = f->jac;
  int rc = chs_jac_eval(f, w, t, 0, y, NULL);
  return rc != 0 ? rc : chs_jac_store(f, w, A, t);
}

/* The sparse path: J assembled in CSC into A; a pattern other than the last one reallocates A
 * when it grew and has KLU analyse it anew. */
static int chs_jac_sparse(CHSFormulation f, CHSJacWork *w, sunrealtype t, sunrealtype cj,
                          N_Vector y, SUNMatrix A) {
  w->n_evals++;
  CHSError_Clear(&f->failure);
  const cs_dl *J = NULL;
  sunindextype cap = SUNSparseMatrix_NNZ(A);
  int rc = chs_dae_jacobian_csc_reuse(f, &w->sasm, cj, N_VGetArrayPointer(y),
                                      SUNSparseMatrix_Data(A), cap, &J);
  if (rc != 0) {
    if (f->failure.code == CHS_SUCCESS) {
      CHSFormulation_SetFailure(f, rc > 0 ? CHS_RECOVERABLE : rc, "%s: Jacobian failed at t = %g",
                                f->ops->name, (double)t);
    }
    return rc > 0 ? CHS_RECOVERABLE : rc;
  }
  sunindextype N = w->N, nnz = J->p[N];
  /* the assembly's pattern version changes exactly when its pattern does; an assembly without
   * versions (dense mass fallback) is compared with the copy of the last pattern */
  long version = chs_sparse_asm_pattern(w->sasm);
  int same = version >= 0
                 ? version == w->asm_pattern
                 : nnz == w->nnz && memcmp(J->p, w->pat_p, (size_t)(N + 1) * sizeof *J->p) == 0 &&
                       memcmp(J->i, w->pat_i, (size_t)nnz * sizeof *J->i) == 0;
  w->asm_pattern = version;
  if (!same && version < 0) {
    sunindextype *pi = realloc(w->pat_i, (size_t)(nnz + 1) * sizeof *pi);
    if (!pi) {
      return CHS_ERR_MEM;
    }
    w->pat_i = pi;
    memcpy(w->pat_p, J->p, (size_t)(N + 1) * sizeof *J->p);
    memcpy(w->pat_i, J->i, (size_t)nnz * sizeof *J->i);
    w->nnz = nnz;
  }
  if (nnz > cap && SUNSparseMatrix_Reallocate(A, nnz) != 0) {
    return CHS_ERR_MEM;
  }
  /* A's pattern is still the one written last time when A's zero op keeps patterns */
  int intact = same && nnz <= cap && A == w->pat_A;
  w->pat_A = A->ops->zero == chs_sparse_zero_kept ? A : NULL;
  if (!intact) {
    memcpy(SUNSparseMatrix_IndexPointers(A), J->p, (size_t)(N + 1) * sizeof *J->p);
    memcpy(SUNSparseMatrix_IndexValues(A), J->i, (size_t)nnz * sizeof *J->i);
  }
  if (nnz > cap) { /* A was too small for the values: they are in J */
    memcpy(SUNSparseMatrix_Data(A), J->x, (size_t)nnz * sizeof *J->x);
  }
  if (!same && w->ls) {
    w->n_symbolic++;
    if (chs_klu_reinit(w->ls) != 0) {
      return CHS_ERR_CALLBACK;
    }
  }
  return 0;
}

/* IDA zeroes its matrix before every Jacobian evaluation (SUNMatZero). SUNDIALS' sparse zero
 * also clears the row indices and column pointers, which chs_jac_sparse then copied back in full
 * (two passes over nnz indices per evaluation at N = 10^5). The matrices of the assembled path
 * (src/linalg/linsol.c, the IDA preconditioner) keep their pattern, and their values need no
 * zeroing either: every successful evaluation (chs_jac_sparse) writes all nnz values (the
 * assembly's gather, or the copy of the fallback's or the reallocated matrix's), and a failed one
 * is not used. Clearing them wrote nnz values (39 MB at N = 10^5) before each evaluation. */
int chs_sparse_zero_kept(SUNMatrix A) {
  (void)A;
  return 0;
}

int chs_ida_jac(sunrealtype t, sunrealtype cj, N_Vector y, N_Vector yp, N_Vector r, SUNMatrix A,
                void *user_data, N_Vector tmp1, N_Vector tmp2, N_Vector tmp3) {
  (void)r;
  (void)tmp1;
  (void)tmp2;
  (void)tmp3;
  CHSFormulation f = user_data;
  CHSJacWork *w = f->jac;
  if (w->sparse) {
    return chs_jac_sparse(f, w, t, cj, y, A);
  }
  int rc = chs_jac_eval(f, w, t, cj, y, yp);
  return rc != 0 ? rc : chs_jac_store(f, w, A, t);
}

/* ------------------------------------------------------------------ IDA's Krylov preconditioner
 * ida:ls=spgmr,prec=sparse: IDA's matrix-free GMRES on the Newton systems of a DAE formulation,
 * preconditioned from the left by P = dF/dy + cj dF/dy' assembled without hess V (the sparse
 * assembly above with its hess V blocks left out: M^{-1}, G, Gdot and sum_i lambda_i hess g_i
 * kept), factored by KLU. P's pattern is that of G's blocks only: it never changes, so KLU
 * analyses it once and refactors at each set-up, and for a chain P is banded in effect whatever
 * the potential couples (the coil's Lennard-Jones pairs make the full Jacobian's graph 2-D and
 * its factorisation superlinear in N, docs/scale.md). P^{-1} J = I + P^{-1} (the hess V blocks),
 * of order |hess V| / cj^2 = h^2 |hess V|: GMRES converges in a few iterations when the step
 * resolves the potential's fastest frequency, which the accuracy asks for anyway; for V linear
 * (the pendulum chain) P is the Jacobian. */
int chs_ida_prec_create(CHSFormulation f, N_Vector y0, CHSError *err) {
  CHSJacWork *w = NULL;
  CHS_CALL(chs_jac_work_create_sparse(f, y0, 1, &w, err));
  w->P = SUNSparseMatrix(w->N, w->N, w->nnz, CSC_MAT, f->sunctx);
  w->Pls = w->P ? chs_klu_create(y0, w->P, -1, f->sunctx) : NULL;
  if (!w->Pls) {
    chs_jac_work_free(&w);
    return chs_error_set(err, CHS_ERR_MEM, "out of memory for the preconditioner");
  }
  w->P->ops->zero = chs_sparse_zero_kept;
  w->ls = w->Pls;
  chs_jac_work_free(&f->jac);
  f->jac = w;
  return 0;
}

int chs_ida_prec_setup(sunrealtype t, N_Vector yy, N_Vector yp, N_Vector rr, sunrealtype cj,
                       void *user_data) {
  (void)yp;
  (void)rr;
  CHSFormulation f = user_data;
  CHSJacWork *w = f->jac;
  int rc = chs_jac_sparse(f, w, t, cj, yy, w->P);
  if (rc == 0) {
    rc = SUNLinSolSetup(w->Pls, w->P);
  }
  return rc == 0 ? 0 : rc > 0 ? 1 : -1;
}

int chs_ida_prec_solve(sunrealtype t, N_Vector yy, N_Vector yp, N_Vector rr, N_Vector rvec,
                       N_Vector zvec, sunrealtype cj, sunrealtype delta, void *user_data) {
  (void)t;
  (void)yy;
  (void)yp;
  (void)rr;
  (void)cj;
  (void)delta;
  CHSJacWork *w = ((CHSFormulation)user_data)->jac;
  int rc = SUNLinSolSolve(w->Pls, w->P, zvec, rvec, 0);
  return rc == 0 ? 0 : rc > 0 ? 1 : -1;
}

/* ------------------------------------------------------------------ public adapters
 * (chs/sundials.h) for a caller's own SUNDIALS program: the formulation's Jacobian workspace is
 * set up by CHSFormulation_JacobianSetup or, at the first call, at the point of that call. */

int CHSFormulation_JacobianSetup(CHSFormulation f, int residual, N_Vector y0, N_Vector yp0,
                                 sunindextype *nnz, sunindextype *mu, sunindextype *ml,
                                 CHSError *err) {
  if (!f || !y0 || (residual && !yp0)) {
    return chs_error_set(err, CHS_ERR_ARG, "CHSFormulation_JacobianSetup: %s is NULL",
                         !f    ? "the formulation"
                         : !y0 ? "y0"
                               : "yp0 (residual = 1)");
  }
  if (N_VGetLength(y0) != f->size || (residual && N_VGetLength(yp0) != f->size)) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "CHSFormulation_JacobianSetup: vector length %ld, the state size of "
                         "formulation '%s' is %ld",
                         (long)N_VGetLength(residual && N_VGetLength(y0) == f->size ? yp0 : y0),
                         f->ops->name, (long)f->size);
  }
  int mode = CHSFormulation_HasJacobian(f) ? CHS_JACOBIAN_ANALYTIC : CHS_JACOBIAN_FD;
  CHSJacWork *w = NULL;
  CHS_CALL(chs_jac_work_create(f, mode, residual != 0, y0, yp0, &w, err));
  chs_jac_work_free(&f->jac);
  f->jac = w;
  sunindextype a, b, c;
  chs_jac_work_shape(w, &a, &b, &c);
  if (nnz) {
    *nnz = a;
  }
  if (mu) {
    *mu = b;
  }
  if (ml) {
    *ml = c;
  }
  return CHS_SUCCESS;
}

/* The workspace for (residual) at the caller's point, set up there when missing or made for the
 * other kind of Jacobian, and the matrix checked against it: a negative code with the failure
 * message when A cannot hold the Jacobian. */
static int chs_jac_public_ready(CHSFormulation f, int residual, sunrealtype t, N_Vector y,
                                N_Vector yp, SUNMatrix A) {
  const char *who = residual ? "CHSFormulation_ResidualJac" : "CHSFormulation_Jac";
  if (!y || !A || (residual && !yp)) {
    return CHSFormulation_SetFailure(f, CHS_ERR_ARG, "%s: %s is NULL", who,
                                     !y   ? "y"
                                     : !A ? "the matrix"
                                          : "yp");
  }
  if (!f->jac || f->jac->residual != (residual != 0) ||
      (f->jac->sparse && SUNMatGetID(A) != SUNMATRIX_SPARSE)) {
    CHSError err;
    CHSError_Clear(&err);
    int rc = CHSFormulation_JacobianSetup(f, residual, y, yp, NULL, NULL, NULL, &err);
    if (rc != 0) {
      return CHSFormulation_SetFailure(f, rc, "%s at t = %g: %s", who, (double)t, err.msg);
    }
  }
  CHSJacWork *w = f->jac;
  sunindextype N = w->N;
  SUNMatrix_ID id = SUNMatGetID(A);
  if (N_VGetLength(y) != N) {
    return CHSFormulation_SetFailure(f, CHS_ERR_ARG,
                                     "%s: y has length %ld, the formulation's state size is %ld",
                                     who, (long)N_VGetLength(y), (long)N);
  }
  if (id == SUNMATRIX_DENSE) {
    if (SUNDenseMatrix_Rows(A) != N || SUNDenseMatrix_Columns(A) != N) {
      return CHSFormulation_SetFailure(f, CHS_ERR_ARG, "%s: dense matrix %ld x %ld, need %ld x %ld",
                                       who, (long)SUNDenseMatrix_Rows(A),
                                       (long)SUNDenseMatrix_Columns(A), (long)N, (long)N);
    }
  } else if (id == SUNMATRIX_BAND) {
    if (SUNBandMatrix_Columns(A) != N || SUNBandMatrix_UpperBandwidth(A) < w->mu ||
        SUNBandMatrix_LowerBandwidth(A) < w->ml) {
      return CHSFormulation_SetFailure(
          f, CHS_ERR_ARG,
          "%s: band matrix of size %ld, widths (%ld, %ld); the Jacobian needs size %ld, widths "
          "(%ld, %ld) (CHSFormulation_JacobianSetup)",
          who, (long)SUNBandMatrix_Columns(A), (long)SUNBandMatrix_UpperBandwidth(A),
          (long)SUNBandMatrix_LowerBandwidth(A), (long)N, (long)w->mu, (long)w->ml);
    }
  } else if (id == SUNMATRIX_SPARSE) {
    if (SUNSparseMatrix_SparseType(A) != CSC_MAT || SUNSparseMatrix_Columns(A) != N ||
        SUNSparseMatrix_Rows(A) != N || (!w->sparse && SUNSparseMatrix_NNZ(A) < w->nnz)) {
      return CHSFormulation_SetFailure(
          f, CHS_ERR_ARG,
          "%s: sparse matrix %s %ld x %ld with room for %ld nonzeros; the Jacobian needs CSC, "
          "%ld x %ld, %ld nonzeros (CHSFormulation_JacobianSetup)",
          who, SUNSparseMatrix_SparseType(A) == CSC_MAT ? "CSC" : "CSR",
          (long)SUNSparseMatrix_Rows(A), (long)SUNSparseMatrix_Columns(A),
          (long)SUNSparseMatrix_NNZ(A), (long)N, (long)N, (long)w->nnz);
    }
  } else {
    return CHSFormulation_SetFailure(f, CHS_ERR_UNSUPPORTED,
                                     "%s: matrix type %d (dense, band and CSC sparse only)", who,
                                     (int)id);
  }
  return 0;
}

int CHSFormulation_Jac(CHSFormulation f, sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J,
                       N_Vector tmp1, N_Vector tmp2, N_Vector tmp3) {
  if (!f) {
    return CHS_ERR_ARG;
  }
  CHS_CALL(chs_jac_public_ready(f, 0, t, y, NULL, J));
  return chs_cvode_jac(t, y, fy, J, f, tmp1, tmp2, tmp3);
}

int CHSFormulation_ResidualJac(CHSFormulation f, sunrealtype t, sunrealtype cj, N_Vector y,
                               N_Vector yp, N_Vector r, SUNMatrix J, N_Vector tmp1, N_Vector tmp2,
                               N_Vector tmp3) {
  if (!f) {
    return CHS_ERR_ARG;
  }
  CHS_CALL(chs_jac_public_ready(f, 1, t, y, yp, J));
  return chs_ida_jac(t, cj, y, yp, r, J, f, tmp1, tmp2, tmp3);
}

int CHSFormulation_JacFn(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *user_data,
                         N_Vector tmp1, N_Vector tmp2, N_Vector tmp3) {
  return CHSFormulation_Jac(user_data, t, y, fy, J, tmp1, tmp2, tmp3);
}

int CHSFormulation_ResidualJacFn(sunrealtype t, sunrealtype cj, N_Vector y, N_Vector yp, N_Vector r,
                                 SUNMatrix J, void *user_data, N_Vector tmp1, N_Vector tmp2,
                                 N_Vector tmp3) {
  return CHSFormulation_ResidualJac(user_data, t, cj, y, yp, r, J, tmp1, tmp2, tmp3);
}
