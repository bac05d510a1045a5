/* Linear solvers of the Newton iterations of CVODE and IDA, chosen by the method's parameters
 * "ls=auto|dense|band|klu|umfpack|spgmr,jac=analytic|fd" (src/integrate/cvode.c, ida.c; also
 * hmax=H > 0, the step-size bound: CVodeSetMaxStep, IDASetMaxStep):
 *
 *   auto   the default: one of the below, chosen from the system (chs_ls_auto)
 *   dense  SUNDIALS dense matrix + LU
 *   band   SUNDIALS band matrix + band LU, with the band widths mu, ml of the Jacobian's sparsity
 *          pattern (found at set-up, src/linalg/jacobian.c): honest, so for the formulations whose
 *          Jacobian couples everything (through Q^{-1}) the band is the full matrix
 *   klu    SUNDIALS CSC sparse matrix + KLU with 32-bit indices (src/linalg/klu.c;
 * order=amd|colamd|nd: its fill-reducing ordering, nd = nested dissection of A + A^T (CHOLMOD:
 * METIS bisections + constrained AMD), the default for the sparse DAE assembly with hessian_sparse,
 * else colamd as SUNDIALS' KLU; set-ups keep the pivot order while the pivot growth allows): for
 * the DAE formulations with an analytic Jacobian assembled sparse (src/linalg/jacobian_sparse.c,
 * O(nnz), any size; KLU's symbolic analysis reused while the pattern holds), otherwise with the
 * pattern found at set-up umfpack as klu, factored by UMFPACK (src/linalg/klu.c: multifrontal, a
 * factorisation at each set-up; its own ordering, METIS where AMD/COLAMD fill much): for Newton
 * matrices that fill, the coil's (2-D) at N >= 10^4, where IDA runs 3-10 times faster than with klu
 *   spgmr  matrix-free GMRES, SUNDIALS' difference-quotient J v, preconditioned from the left
 *          (prec=sparse) or not (prec=none). CVODE (default none): ODE formulations on (q, p)
 *          with constant mass and hess V, P = [I, -gamma M^{-1}; gamma (H + K_lambda), I] factored
 *          by KLU (src/linalg/jacobian_sparse.c). IDA (default sparse where it exists): DAE
 * formulations with the sparse assembly, P = their Jacobian without hess V, a pattern that never
 *          changes, factored by KLU (src/linalg/jacobian.c, chs_ida_prec_create)
 *
 * Jacobian: jac=analytic is the formulation's (CHSFormulationOps.jacobian), jac=fd difference
 * quotients: SUNDIALS' own for dense and band, forward differences by columns
 * (src/linalg/jacobian.c) for klu and umfpack. Without jac=: CVODE keeps SUNDIALS' difference
 * quotients for dense and band (its behaviour before these options existed); IDA takes the analytic
 * Jacobian when the formulation has one; klu and umfpack take the analytic one when there is one,
 * else forward differences. */
#include <stdlib.h>
#include <string.h>
#include <sunlinsol/sunlinsol_band.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunlinsol/sunlinsol_spgmr.h>
#include <sunmatrix/sunmatrix_band.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunmatrix/sunmatrix_sparse.h>
#include "compat.h"
#include "impl.h"

/* The dense solver's N x N matrix: up to this N (8000^2 doubles = 512 MB). */
#define CHS_LS_DENSE_MAX 8000

const char *const chs_ls_names[] = {"dense", "band", "klu", "spgmr", "umfpack", "auto", NULL};
static const char *const chs_prec_names[] = {"none", "sparse", NULL};
/* KLU fill-reducing orderings, amd and colamd numbered as KLU numbers them; nd
 * (CHS_KLU_ORDER_ND) is KLU's user ordering chs_klu_order_nd (src/linalg/klu.c) */
static const char *const chs_order_names[] = {"amd", "colamd", "nd", NULL};

int chs_ls_parse(const char *method, const char *params, chs_ls_options *o, CHSError *err) {
  CHSParams kv = NULL;
  o->ls = CHS_LS_AUTO;
  o->chosen_by_auto = 0;
  o->jac = -1;
  o->prec = -1;
  o->order = -1;
  o->hmax = 0;
  int rc = CHSParams_Parse(params, &kv, err);
  if (rc == 0 && CHSParams_GetChoice(kv, "ls", chs_ls_names, CHS_LS_AUTO, &o->ls, err) != 0) {
    rc = chs_error_set(err, CHS_ERR_ARG,
                       "method %s: bad linear solver (ls=auto, dense, band, klu, umfpack, spgmr)",
                       method);
  }
  if (rc == 0 && CHSParams_GetChoice(kv, "jac", chs_jac_mode_names, -1, &o->jac, err) != 0) {
    rc = chs_error_set(err, CHS_ERR_ARG, "method %s: bad Jacobian (jac=analytic, fd)", method);
  }
  if (rc == 0 && CHSParams_GetChoice(kv, "prec", chs_prec_names, -1, &o->prec, err) != 0) {
    rc = chs_error_set(err, CHS_ERR_ARG, "method %s: bad preconditioner (prec=none, sparse)",
                       method);
  }
  if (rc == 0 && CHSParams_GetChoice(kv, "order", chs_order_names, -1, &o->order, err) != 0) {
    rc = chs_error_set(err, CHS_ERR_ARG, "method %s: bad ordering (order=amd, colamd, nd)", method);
  }
  if (rc == 0 && CHSParams_Has(kv, "hmax") &&
      CHSParams_GetRealMin(kv, "hmax", 0, 0, 1, &o->hmax, err) != 0) {
    rc = chs_error_set(err, CHS_ERR_ARG, "method %s: bad hmax (a step-size bound > 0)", method);
  }
  if (rc == 0 && o->order >= 0 && o->ls != CHS_LS_KLU) {
    rc = chs_error_set(err, CHS_ERR_ARG, "method %s: order= is for ls=klu only", method);
  }
  if (rc == 0 && o->prec >= 0 && o->ls != CHS_LS_SPGMR) {
    rc = chs_error_set(err, CHS_ERR_ARG, "method %s: prec= is for ls=spgmr only", method);
  }
  if (rc == 0 && o->ls == CHS_LS_SPGMR && o->jac >= 0) {
    rc = chs_error_set(
        err, CHS_ERR_ARG,
        "method %s: ls=spgmr is matrix-free (difference-quotient J v): no jac=", method);
  }
  if (rc == 0) {
    rc = CHSParams_CheckAllUsed(kv, method, err);
  }
  CHSParams_Destroy(&kv);
  return rc;
}

/* the Krylov space of IDA's unpreconditioned GMRES on a DAE formulation (see chs_ls_create) */
#define CHS_IDA_SPGMR_MAXL 30

/* ls=auto: dense up to this state size. Every small built-in problem (the largest, the pendulum
 * chain of 10 links in dae-ggl, has N = 60) keeps the dense LU it always had; above, dense costs
 * several times the sparse and Krylov solvers (IDA on the pendulum chain, N = 120: 16 ms dense,
 * 2 ms klu; docs/cli.md, "Linear solvers of ida and cvode"). */
#define CHS_LS_AUTO_DENSE_N 100
/* ls=auto: KLU while the fill of its AMD analysis, nnz(L + U) / nnz(J), stays at most this: the
 * pendulum chain's Newton matrices fill 1.95-2.08 times at every size (KLU as fast as GMRES or
 * faster), the coil's 3.2 and more (44 at 10^4 atoms), where GMRES with the sparse preconditioner
 * is 3-50 times faster (docs/cli.md) */
#define CHS_LS_AUTO_FILL_MAX 2.5

/* The DAE formulations' preconditioner of IDA's GMRES (chs_ida_prec_create) exists: the sparse
 * assembly with a constant diagonal mass */
static int chs_ida_prec_avail(CHSFormulation f) {
  return chs_dae_kind(f->ops) != 0 && CHSFormulation_HasJacobian(f) &&
         (f->sys.mass_kind == CHS_MASS_IDENTITY || f->sys.mass_kind == CHS_MASS_DIAGONAL);
}

/* ls=auto: the linear solver for f, written to o->ls.
 *   N <= CHS_LS_AUTO_DENSE_N                        dense
 *   IDA, DAE formulation, analytic sparse Jacobian  klu when the AMD fill of J(y0) (cj = 1) is
 *                                                   at most CHS_LS_AUTO_FILL_MAX, else spgmr
 *                                                   with the sparse preconditioner where it
 *                                                   exists, else umfpack (made for fill)
 *   jac= given (a direct solver asked for)          klu where J is assembled sparse, else dense
 *   otherwise (CVODE; IDA on an ODE formulation)    spgmr: these Jacobians are built as N x N
 *                                                   arrays whatever the solver
 * The fill needs the pattern at y0: one sparse assembly, freed here (the chosen solver makes its
 * own), and one AMD pass. */
static int chs_ls_auto(CHSFormulation f, chs_ls_options *o, int residual, N_Vector y0,
                       CHSError *err) {
  sunindextype N = N_VGetLength(y0);
  int sparse = residual && CHSFormulation_HasJacobian(f) && chs_dae_kind(f->ops) != 0 &&
               !f->sys.general && o->jac != CHS_JACOBIAN_FD;
  o->chosen_by_auto = 1;
  if (N <= CHS_LS_AUTO_DENSE_N) {
    o->ls = CHS_LS_DENSE;
  } else if (o->jac >= 0) {
    o->ls = sparse ? CHS_LS_KLU : CHS_LS_DENSE;
  } else if (!sparse) {
    o->ls = CHS_LS_SPGMR;
  } else {
    CHSSparseAsm *a = NULL;
    const struct cs_dl_sparse *J = NULL;
    int rc = chs_sparse_asm_create(f, 0, &a);
    if (rc == 0) {
      rc = chs_dae_jacobian_csc_reuse(f, &a, 1, N_VGetArrayPointer(y0), NULL, 0, &J);
    }
    double fill = rc == 0 ? chs_klu_fill(J) : -1;
    chs_sparse_asm_free(&a);
    if (rc == CHS_ERR_MEM) {
      return chs_error_set(err, rc, "out of memory for the sparse Jacobian");
    }
    if (rc == 0 && fill >= 0 && fill <= CHS_LS_AUTO_FILL_MAX) {
      o->ls = CHS_LS_KLU;
    } else if (chs_ida_prec_avail(f)) { /* fills, or no full pattern (its hess V missing) */
      o->ls = CHS_LS_SPGMR;
    } else { /* umfpack for the fill; without a pattern, klu's set-up says what is missing */
      o->ls = rc == 0 ? CHS_LS_UMFPACK : CHS_LS_KLU;
    }
  }
  return 0;
}

int chs_ls_create(CHSFormulation f, const char *method, chs_ls_options *o, int residual,
                  N_Vector y0, N_Vector yp0, SUNMatrix *A, SUNLinearSolver *LS, int *user_jac,
                  CHSError *err) {
  SUNContext ctx = f->sunctx;
  sunindextype N = N_VGetLength(y0);
  int has = CHSFormulation_HasJacobian(f);
  *A = NULL;
  *LS = NULL;
  *user_jac = 0;
  if (o->ls == CHS_LS_AUTO) {
    CHS_CALL(chs_ls_auto(f, o, residual, y0, err));
  }
  /* the DAE Jacobian assembled sparse with hess V's pattern from hessian_sparse (pairs: a graph
   * that can be 2-D, the coil): order=nd by default; without (V linear, the pendulum chain: a
   * 1-D coupling, where dissection fills more and costs its METIS calls) colamd */
  int sparse_asm = 0, assembled = 0;
  if (o->jac == CHS_JACOBIAN_ANALYTIC && !has) {
    const char *miss = chs_missing_derivative(f->prob, chs_jacobian_needs(f->ops));
    const char *gap = CHSProblem_IsConservative(f->prob) ? chs_jacobian_general_gap(f) : NULL;
    return chs_error_set(
        err, CHS_ERR_UNSUPPORTED,
        "method %s: formulation '%s' has no analytic Jacobian for problem '%s'%s%s%s%s%s "
        "(use jac=fd)",
        method, f->ops->name, CHSProblem_GetName(f->prob),
        !CHSProblem_IsConservative(f->prob) ? " (non-conservative force)"
        : gap                               ? " ("
                                            : "",
        gap ? gap : "", gap ? ")" : "", miss ? ": it needs " : "", miss ? miss : "");
  }
  if (o->ls == CHS_LS_SPGMR && residual) {
    /* IDA: prec=sparse (the default where it exists) is the DAE Jacobian without hess V, factored
     * by KLU (chs_ida_prec_create, src/linalg/jacobian.c); without a preconditioner GMRES meets the
     * index-2/3 Newton matrices' conditioning (powers of cj) unaided */
    int avail = chs_ida_prec_avail(f);
    int prec = o->prec >= 0 ? o->prec : avail;
    chs_jac_work_free(&f->jac);
    if (prec && !avail) {
      return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                           "method %s: prec=sparse needs a DAE formulation (dae-index3, dae-ggl, "
                           "dae-index1) with an analytic Jacobian and a constant diagonal mass "
                           "matrix (formulation '%s', problem '%s'): use prec=none",
                           method, f->ops->name, CHSProblem_GetName(f->prob));
    }
    if (prec) {
      CHS_CALL(chs_ida_prec_create(f, y0, err));
    }
    /* Without it, a formulation with algebraic components is still preconditioned on the left,
     * by a diagonal that weights the constraint rows as the error-controlled ones (ida.c,
     * ida_prec_solve, says why), and GMRES gets a Krylov space of up to CHS_IDA_SPGMR_MAXL
     * vectors (all N of a small system): the index-2/3 Newton matrix, its constraint rows now
     * solved, spreads its eigenvalues over powers of cj, and SUNDIALS' default of 5 vectors
     * failed to converge at any step size (the pendulum plugin, N = 6, and heavy-top, N = 9: IDA
     * stopped with h = 7e-15 at t < 0.01); with N vectors both run as accurately as dense. */
    int diag = !prec && f->ops->component_ids;
    int maxl = diag ? (int)(N < CHS_IDA_SPGMR_MAXL ? N : CHS_IDA_SPGMR_MAXL) : 0;
    *LS = SUNLinSol_SPGMR(y0, prec || diag ? SUN_PREC_LEFT : SUN_PREC_NONE, maxl, ctx);
    return *LS ? 0 : chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  if (o->ls == CHS_LS_SPGMR) {
    /* prec=sparse: left preconditioning by the sparse part; not the default: on the coiled chain
     * its KLU factorisation (a 2-D coupling) costs more than the Krylov iterations it saves
     * (docs/scale.md) */
    int prec = o->prec >= 0 ? o->prec : 0;
    chs_precond_free(&f->prec);
    if (prec && !chs_precond_available(f)) {
      return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                           "method %s: prec=sparse needs an ODE formulation on (q, p) with a "
                           "constant mass matrix, a conservative force and hess V (formulation "
                           "'%s', problem '%s'): use prec=none",
                           method, f->ops->name, CHSProblem_GetName(f->prob));
    }
    if (prec) {
      CHS_CALL(chs_precond_create(f, y0, &f->prec, err));
    }
    *LS = SUNLinSol_SPGMR(y0, prec ? SUN_PREC_LEFT : SUN_PREC_NONE, 0, ctx);
    return *LS ? 0 : chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  int sparse_ls = o->ls == CHS_LS_KLU || o->ls == CHS_LS_UMFPACK; /* CSC, our solvers */
  if (o->jac == CHS_JACOBIAN_ANALYTIC) {
    *user_jac = 1;
  } else if (o->jac < 0) {
    *user_jac = (has && residual) || sparse_ls;
  } else {
    *user_jac = sparse_ls; /* jac=fd: SUNDIALS' difference quotients, except for KLU, UMFPACK */
  }
  if (sparse_ls && residual && has && o->jac != CHS_JACOBIAN_FD && chs_dae_kind(f->ops) != 0 &&
      !f->sys
           .general) { /* assembled sparse (src/linalg/jacobian_sparse.c: constant M, autonomous) */
    CHSJacWork *w = NULL;
    CHS_CALL(chs_jac_work_create_sparse(f, y0, 0, &w, err));
    chs_jac_work_free(&f->jac);
    f->jac = w;
    assembled = 1;
    sparse_asm = f->sys.ops->hessian_sparse != NULL;
  } else if (o->ls == CHS_LS_DENSE && N > CHS_LS_DENSE_MAX) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "method %s: state size %ld too large for the dense linear solver (N x N "
                         "matrix, limit %d): use ls=klu with a DAE formulation (ida), or "
                         "cvode:bdf:ls=spgmr",
                         method, (long)N, CHS_LS_DENSE_MAX);
  } else if (*user_jac || o->ls != CHS_LS_DENSE) {
    CHSJacWork *w = NULL;
    int mode = has && o->jac != CHS_JACOBIAN_FD ? CHS_JACOBIAN_ANALYTIC : CHS_JACOBIAN_FD;
    CHS_CALL(chs_jac_work_create(f, mode, residual, y0, yp0, &w, err));
    chs_jac_work_free(&f->jac);
    f->jac = w;
  }
  sunindextype nnz = 0, mu = 0, ml = 0;
  int order = -1;
  if (f->jac) {
    chs_jac_work_shape(f->jac, &nnz, &mu, &ml);
  }
  switch (o->ls) {
  case CHS_LS_BAND:
    *A = SUNBandMatrix(N, mu, ml, ctx);
    *LS = *A ? SUNLinSol_Band(y0, *A, ctx) : NULL;
    break;
  case CHS_LS_KLU:
  case CHS_LS_UMFPACK:
    *A = SUNSparseMatrix(N, N, nnz, CSC_MAT, ctx);
    /* 4 KiB pages: advised to 2 MiB pages, the kernel compacted memory at the first touch
     * (defrag=madvise), which doubled its time at N = 10^5 for no gain (docs/scale.md) */
    if (*A && assembled) { /* IDA's zeroing before each evaluation keeps the pattern */
      (*A)->ops->zero = chs_sparse_zero_kept;
    }
    order = o->order >= 0 ? o->order : sparse_asm ? CHS_KLU_ORDER_ND : -1;
    if (o->ls == CHS_LS_UMFPACK) {
      *LS = *A ? chs_umfpack_create(y0, *A, ctx) : NULL; /* UMFPACK, 32-bit (src/linalg/klu.c) */
    } else {
      *LS = *A ? chs_klu_create(y0, *A, order, ctx) : NULL; /* KLU, 32-bit (src/linalg/klu.c) */
    }
    break;
  default:
    *A = SUNDenseMatrix(N, N, ctx);
    *LS = *A ? SUNLinSol_Dense(y0, *A, ctx) : NULL;
    break;
  }
  if (*LS && f->jac) {
    chs_jac_work_set_solver(f->jac, *LS);
  }
  if (!*LS) {
    if (*A) {
      SUNMatDestroy(*A);
      *A = NULL;
    }
    return chs_error_set(err, CHS_ERR_MEM, "method %s: cannot create the linear solver", method);
  }
  return 0;
}
