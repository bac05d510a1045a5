/* CVODE's Krylov preconditioner for the ODE formulations, assembled in CSC from the sparse
 * blocks of src/linalg/jacobian_sparse.c. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sunmatrix/sunmatrix_sparse.h>
#include "jacobian_sparse.h"

/* ------------------------------------------------------------------ Krylov preconditioner
 * CVODE's Newton matrix for an ODE formulation on y = (q, p) is I - gamma J with
 * J = [0, M^{-1}; -(H + K_lambda), 0] + (the dense coupling through Q^{-1}, lambda(q, p)). The
 * preconditioner keeps the sparse part: P = [I, -gamma M^{-1}; gamma (H + K_lambda), I], lambda
 * the consistent multiplier at y (chs_system_kinematics), assembled in CSC like the DAE
 * Jacobians and factored by KLU (symbolic analysis redone only when hess V's pattern changes). */
struct CHSPrecond {
  CHSFormulation f;
  SUNMatrix P;
  SUNLinearSolver ls;
  sunindextype *pat_p, *pat_i, nnz;
  long n_setups, n_symbolic;
};

int chs_precond_available(CHSFormulation f) {
  return f->size == 2 * f->sys.n && !f->sys.general && CHSProblem_IsConservative(f->prob) &&
         (f->sys.ops->hessian_sparse || f->sys.ops->hessian_potential ||
          !chs_missing_derivative(f->prob, CHS_NEED_HESSIAN));
}

static int sp_precond_matrix(CHSFormulation f, const sunrealtype *y, sunrealtype gamma,
                             cs_dl **out) {
  CHSSystem *s = &f->sys;
  sunindextype n = s->n, m = s->m, gs = s->gsize;
  const sunindextype *rp = NULL, *ci = NULL;
  sunindextype *own = NULL, *colour = malloc((size_t)(n + 1) * sizeof *colour);
  sunrealtype *buf = malloc(((size_t)n + (size_t)gs + (size_t)m) * sizeof *buf);
  cs_dl *Th = cs_dl_spalloc(n, n, 16 * n, 1, 1), *HK = NULL, *Mi = NULL, *TP = NULL;
  *out = NULL;
  int rc = colour && buf && Th ? chs_sp_gpattern(s, &rp, &ci, &own) : CHS_ERR_MEM;
  CHSKinematics k;
  if (rc == 0) {
    rc = chs_system_kinematics(s, y, y + n, &k);
  }
  sunrealtype *e = buf, *Gd = e + n, *lam = Gd + gs;
  if (rc == 0) {
    memcpy(lam, k.lambda, (size_t)m * sizeof *lam);
  }
  sunindextype nc = rc == 0 ? chs_sp_colour(m, n, rp, ci, 0, colour) : 0;
  rc = nc < 0 ? (int)nc : rc;
  if (rc == 0) {
    rc = chs_sp_hessv(s, y, Th);
  }
  if (rc == 0) {
    rc = chs_sp_hessgw(s, y, lam, rp, ci, colour, nc, e, Gd, Th);
  }
  if (rc == 0) {
    HK = chs_sp_compress(Th);
    Th = NULL;
    Mi = chs_sp_minv(s);
    TP = HK && Mi ? cs_dl_spalloc(2 * n, 2 * n, 2 * n + HK->p[n] + Mi->p[n], 1, 1) : NULL;
    rc = TP ? 0 : CHS_ERR_MEM;
  }
  for (sunindextype i = 0; rc == 0 && i < 2 * n; i++) {
    rc = cs_dl_entry(TP, i, i, 1) ? 0 : CHS_ERR_MEM;
  }
  if (rc == 0) {
    rc = chs_sp_put(TP, Mi, 0, n, -gamma, 0);
  }
  if (rc == 0) {
    rc = chs_sp_put(TP, HK, n, 0, gamma, 0);
  }
  if (rc == 0) {
    cs_dl *A = chs_sp_compress(TP), *At = A ? cs_dl_transpose(A, 1) : NULL;
    TP = NULL;
    *out = At ? cs_dl_transpose(At, 1) : NULL;
    cs_dl_spfree(A);
    cs_dl_spfree(At);
    rc = *out ? 0 : CHS_ERR_MEM;
  }
  free(colour);
  free(buf);
  free(own);
  cs_dl_spfree(Th);
  cs_dl_spfree(HK);
  cs_dl_spfree(Mi);
  cs_dl_spfree(TP);
  if (rc == 0 && !chs_all_finite((*out)->x, (*out)->p[2 * n])) {
    cs_dl_spfree(*out);
    *out = NULL;
    rc = CHS_RECOVERABLE;
  }
  return rc;
}

void chs_precond_free(CHSPrecond **pp) {
  if (!pp || !*pp) {
    return;
  }
  CHSPrecond *p = *pp;
  if (p->ls) {
    SUNLinSolFree(p->ls);
  }
  if (p->P) {
    SUNMatDestroy(p->P);
  }
  free(p->pat_p);
  free(p->pat_i);
  free(p);
  *pp = NULL;
}

int chs_precond_create(CHSFormulation f, N_Vector y0, CHSPrecond **out, CHSError *err) {
  *out = NULL;
  cs_dl *A = NULL;
  int rc = sp_precond_matrix(f, N_VGetArrayPointer(y0), 0.01, &A);
  if (rc != 0) {
    return rc == CHS_ERR_MEM
               ? chs_error_set(err, rc, "out of memory for the preconditioner")
               : chs_error_set(err, rc < 0 ? rc : CHS_ERR_SOLVER,
                               "%s: the sparse preconditioner cannot be built for problem '%s' "
                               "(n = %ld; hess V needs hessian_sparse above n = %d): use prec=none",
                               f->ops->name, CHSProblem_GetName(f->prob), (long)f->sys.n,
                               CHS_SPARSE_DENSE_HESS_MAX);
  }
  sunindextype N = f->size, nnz = A->p[N];
  CHSPrecond *p = calloc(1, sizeof *p);
  if (p) {
    p->f = f;
    p->nnz = nnz;
    p->pat_p = malloc((size_t)(N + 1) * sizeof *p->pat_p);
    p->pat_i = malloc((size_t)(nnz + 1) * sizeof *p->pat_i);
    p->P = SUNSparseMatrix(N, N, nnz, CSC_MAT, f->sunctx);
    p->ls = p->P ? chs_klu_create(y0, p->P, -1, f->sunctx) : NULL;
  }
  if (!p || !p->pat_p || !p->pat_i || !p->ls) {
    cs_dl_spfree(A);
    chs_precond_free(&p);
    return chs_error_set(err, CHS_ERR_MEM, "out of memory for the preconditioner");
  }
  memcpy(p->pat_p, A->p, (size_t)(N + 1) * sizeof *A->p);
  memcpy(p->pat_i, A->i, (size_t)nnz * sizeof *A->i);
  cs_dl_spfree(A);
  *out = p;
  return 0;
}

int chs_precond_setup(sunrealtype t, N_Vector y, N_Vector fy, sunbooleantype jok,
                      sunbooleantype *jcur, sunrealtype gamma, void *user_data) {
  (void)t;
  (void)fy;
  (void)jok;
  CHSFormulation f = user_data;
  CHSPrecond *p = f->prec;
  sunindextype N = f->size;
  cs_dl *A = NULL;
  *jcur = SUNTRUE;
  int rc = sp_precond_matrix(f, N_VGetArrayPointer(y), gamma, &A);
  if (rc != 0) {
    return rc > 0 ? 1 : -1;
  }
  sunindextype nnz = A->p[N];
  int same = nnz == p->nnz && memcmp(A->p, p->pat_p, (size_t)(N + 1) * sizeof *A->p) == 0 &&
             memcmp(A->i, p->pat_i, (size_t)nnz * sizeof *A->i) == 0;
  if (!same) {
    sunindextype *pi = realloc(p->pat_i, (size_t)(nnz + 1) * sizeof *pi);
    if (!pi || (nnz > SUNSparseMatrix_NNZ(p->P) && SUNSparseMatrix_Reallocate(p->P, nnz) != 0)) {
      p->pat_i = pi ? pi : p->pat_i;
      cs_dl_spfree(A);
      return CHS_ERR_MEM;
    }
    p->pat_i = pi;
    p->nnz = nnz;
    memcpy(p->pat_p, A->p, (size_t)(N + 1) * sizeof *A->p);
    memcpy(p->pat_i, A->i, (size_t)nnz * sizeof *A->i);
  }
  memcpy(SUNSparseMatrix_IndexPointers(p->P), A->p, (size_t)(N + 1) * sizeof *A->p);
  memcpy(SUNSparseMatrix_IndexValues(p->P), A->i, (size_t)nnz * sizeof *A->i);
  memcpy(SUNSparseMatrix_Data(p->P), A->x, (size_t)nnz * sizeof *A->x);
  cs_dl_spfree(A);
  if (!same) {
    p->n_symbolic++;
    if (chs_klu_reinit(p->ls) != 0) {
      return CHS_ERR_SOLVER;
    }
  }
  p->n_setups++;
  rc = SUNLinSolSetup(p->ls, p->P);
  return rc == 0 ? 0 : (rc > 0 ? 1 : -1);
}

int chs_precond_solve(sunrealtype t, N_Vector y, N_Vector fy, N_Vector r, N_Vector z,
                      sunrealtype gamma, sunrealtype delta, int lr, void *user_data) {
  (void)t;
  (void)y;
  (void)fy;
  (void)gamma;
  (void)delta;
  (void)lr;
  CHSPrecond *p = ((CHSFormulation)user_data)->prec;
  int rc = SUNLinSolSolve(p->ls, p->P, z, r, 0);
  return rc == 0 ? 0 : (rc > 0 ? 1 : -1);
}
