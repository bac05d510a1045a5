/* KLU on SUNDIALS' CSC matrices, with KLU's 32-bit indices (a SUNLinearSolver); and UMFPACK
 * behind the same solver (chs_umfpack_create, ls=umfpack), for matrices that fill.
 *
 * SUNDIALS built with 64-bit indices (Debian's) drives KLU through its SuiteSparse_long
 * interface (klu_l_*): every row index of L, U and A is 8 bytes. Beyond the last-level cache the
 * solves and the refactorisations are bounded by memory traffic, and L + U is read at every
 * Newton iteration: KLU's int interface stores 12 bytes per entry instead of 16. On the pendulum
 * chain at N = 10^5 (dae-ggl, L + U 7.3e6 entries) a solve took 10 ms instead of 13 and a
 * refactorisation 31 ms instead of 33, on the same pivots and bitwise the same solution
 * (docs/scale.md). The matrix's pattern is copied to 32-bit arrays when KLU
 * analyses it (the first set-up, after chs_klu_reinit, or when the number of entries changed);
 * the values are read in place. Where sunindextype is int, A's own arrays are used.
 *
 * Pivots are kept while they are stable. SUNDIALS' KLU set-up refactors with the previous pivot
 * order, then factors anew, with pivoting and fresh allocations, whenever klu_condest exceeds
 * 1/eps^(2/3). The Newton matrices of the index-3 and index-2 DAEs have condition numbers of
 * order h^-3 .. h^-2 whatever the pivots (the scaling of their rows by cj), so that test failed
 * at most set-ups and every set-up became a full factorisation (docs/scale.md: half of IDA's
 * time on pendulum-chain:N=1e5). A new factorisation cannot improve the conditioning of the
 * matrix, only the stability of the pivots; that is what is tested here: the refactorisation is
 * kept unless it meets a zero pivot or its reciprocal pivot growth (klu_rgrowth) fell below
 * CHS_KLU_RGROWTH_DROP times the one of the last factorisation with pivoting, which is then
 * redone. klu_rgrowth is a pass over A and U (7 % of a run at N = 10^5: as much as half the
 * refactorisation), so it runs only when a screen in O(n) fails: the spread of the pivots
 * (klu_rcond, min |u_jj| / max |u_jj| of the row-scaled matrix) fell below CHS_KLU_RGROWTH_DROP
 * times the last pivoted factorisation's. Pivot growth comes from small pivots and shows in U's
 * later diagonal (u_jj = a_jj - sum l_jk u_kj), so a refactorisation that passes the screen has
 * pivots as well spread as a pivoted one, up to that factor.
 *
 * UMFPACK (umfpack_di_*, 32-bit): KLU is a left-looking LU without dense kernels, made for
 * matrices that fill little (circuits, the pendulum chain: L + U 1.5 nnz(A)). The coiled chain's
 * Newton matrices fill like a 2-D mesh; on dae-index3 at N = 10^4 (n = 5 10^4, nnz 6.8 10^5) KLU
 * held 15-22 10^6 entries in L + U and factored in 3.1-7.0 s whatever its ordering, UMFPACK (its
 * multifrontal method, BLAS inside the fronts; CHOLMOD's ordering choice, which took METIS there)
 * 6.0 10^6 entries in 0.27 s on OpenBLAS (0.87 s on the reference BLAS), with solves of 11 ms
 * against 29-35 (docs/scale.md). Each set-up is a numerical factorisation with
 * UMFPACK's threshold pivoting (UMFPACK has no refactorisation with kept pivots); the symbolic
 * analysis is redone when KLU's would be, from the last column order (chs_umf_analyse).
 * No iterative refinement (as KLU): IDA's and CVODE's Newton iterations correct the solve. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <klu.h>
#include <suitesparse/cs.h>
#include <cholmod.h>
#include <umfpack.h>
#include <sunmatrix/sunmatrix_sparse.h>
#include "compat.h"
#include "impl.h"

#define CHS_KLU_RGROWTH_DROP 1e-3

typedef struct {
  klu_common common; /* common.rgrowth, common.rcond: the last pivoted factorisation's */
  klu_symbolic *symbolic;
  klu_numeric *numeric;
  int *Ap, *Ai; /* the pattern KLU analysed, in 32 bits (NULL: A's own arrays are int) */
  size_t cap;   /* Ai's room */
  int n, nnz;
  int analyse; /* analyse (and factor with pivoting) at the next set-up */
  int last_flag;
  int umf;                          /* UMFPACK instead of KLU */
  void *usym, *unum;                /* UMFPACK's symbolic and numeric objects */
  double ucontrol[UMFPACK_CONTROL]; /* its parameters */
  int *uq, uqn;                     /* the last analysis's column order (uqn entries) */
  double ulu_full; /* L + U estimated by the last full analysis (with its own ordering) */
  int *uwi;        /* umfpack_di_wsolve's work: n ints, */
  double *uw;      /* n doubles, */
  double *ub;      /* and a copy of b when x is b (n doubles) */
} ChsKlu;

#define CHS_KLU(S) ((ChsKlu *)(S)->content)

/* ------------------------------------------------------------------ order=nd
 * KLU's user ordering (klu_common.ordering = 3), called on each block of KLU's BTF form: nested
 * dissection of the block's A + A^T by CHOLMOD (cholmod_nested_dissection: METIS node bisectors,
 * then CAMD inside the parts). The coiled chain's Jacobian couples atoms across the turns of the
 * coil (a 2-D graph), where COLAMD's and AMD's local greedy orderings fill more (docs/scale.md).
 * Returns KLU's EMPTY (nnz(L) unknown) on success, 0 on failure. */
static int chs_klu_order_nd(int n, int *Ap, int *Ai, int *Perm, klu_common *kc) {
  (void)kc;
  cholmod_common cc;
  if (!cholmod_start(&cc)) {
    return 0;
  }
  cc.print = 0;
  cc.error_handler = NULL;
  cholmod_sparse *A =
      cholmod_allocate_sparse((size_t)n, (size_t)n, (size_t)Ap[n], 0, 1, 0, CHOLMOD_PATTERN, &cc);
  cholmod_sparse *At = NULL, *S = NULL;
  int *cp = malloc(((size_t)n + 1) * sizeof *cp), *cm = malloc(((size_t)n + 1) * sizeof *cm);
  int ok = A && cp && cm;
  if (ok) {
    memcpy(A->p, Ap, ((size_t)n + 1) * sizeof *Ap);
    memcpy(A->i, Ai, (size_t)Ap[n] * sizeof *Ai);
    At = cholmod_transpose(A, 0, &cc);
    S = At ? cholmod_add(A, At, NULL, NULL, 0, 1, &cc) : NULL;
    ok = S != NULL;
  }
  if (ok) {
    S->stype = 1; /* symmetric: the upper triangle of A + A^T */
    ok = cholmod_nested_dissection(S, NULL, 0, Perm, cp, cm, &cc) >= 0;
  }
  cholmod_free_sparse(&A, &cc);
  cholmod_free_sparse(&At, &cc);
  cholmod_free_sparse(&S, &cc);
  cholmod_finish(&cc);
  free(cp);
  free(cm);
  return ok ? -1 : 0;
}

/* A's pattern in 32 bits (into c->Ap, c->Ai unless sunindextype is int). Returns 0, or -1 when
 * A is too large for int indices or memory runs out. */
static int chs_klu_pattern(ChsKlu *c, SUNMatrix A) {
  sunindextype n = SUNSparseMatrix_Columns(A), *Ap = SUNSparseMatrix_IndexPointers(A),
               *Ai = SUNSparseMatrix_IndexValues(A);
  if (n > INT_MAX || Ap[n] > INT_MAX) {
    return CHS_ERR_UNSUPPORTED;
  }
  c->n = (int)n;
  c->nnz = (int)Ap[n];
  if (sizeof(sunindextype) == sizeof(int)) {
    return 0;
  }
  if (!c->Ap) {
    c->Ap = malloc(((size_t)n + 1) * sizeof *c->Ap);
  }
  if (c->cap < (size_t)c->nnz + 1) {
    free(c->Ai);
    c->cap = (size_t)c->nnz + 1;
    c->Ai = malloc(c->cap * sizeof *c->Ai);
  }
  if (!c->Ap || !c->Ai) {
    c->cap = 0;
    return CHS_ERR_MEM;
  }
  for (sunindextype j = 0; j <= n; j++) {
    c->Ap[j] = (int)Ap[j];
  }
  for (int t = 0; t < c->nnz; t++) {
    c->Ai[t] = (int)Ai[t];
  }
  return 0;
}

static int *chs_klu_ap(const ChsKlu *c, SUNMatrix A) {
  return c->Ap ? c->Ap : (int *)(void *)SUNSparseMatrix_IndexPointers(A);
}
static int *chs_klu_ai(const ChsKlu *c, SUNMatrix A) {
  return c->Ai ? c->Ai : (int *)(void *)SUNSparseMatrix_IndexValues(A);
}

static int chs_klu_fail(ChsKlu *c, int singular) {
  c->last_flag = singular ? SUNLS_PACKAGE_FAIL_REC : CHS_LS_FAIL_UNREC;
  return c->last_flag;
}

/* A factorisation with pivoting; its pivot growth and spread become the references of the later
 * refactorisations (0 when unknown: the next set-up's screen then fails, and the growth test
 * compares with 0). */
static int chs_klu_factor(ChsKlu *c, SUNMatrix A) {
  int *Ap = chs_klu_ap(c, A), *Ai = chs_klu_ai(c, A);
  double *Ax = SUNSparseMatrix_Data(A);
  klu_free_numeric(&c->numeric, &c->common);
  c->numeric = klu_factor(Ap, Ai, Ax, c->symbolic, &c->common);
  if (!c->numeric) {
    return chs_klu_fail(c, c->common.status == KLU_SINGULAR);
  }
  if (!klu_rgrowth(Ap, Ai, Ax, c->symbolic, c->numeric, &c->common)) {
    c->common.rgrowth = 0;
  }
  if (!klu_rcond(c->symbolic, c->numeric, &c->common)) {
    c->common.rcond = 0;
  }
  c->last_flag = CHS_LS_SUCCESS;
  return c->last_flag;
}

/* UMFPACK's analysis of a new pattern of the same size starts from the last one's column order
 * (umfpack_di_qsymbolic, no ordering: 0.011-0.016 s against 0.50-0.72 s with METIS on the coil's
 * Newton matrices at N = 10^4, the same fill), unless its estimate of L + U exceeds the last full
 * analysis's by CHS_UMF_REORDER_GROWTH; then, and for a new size, a full analysis. */
#define CHS_UMF_REORDER_GROWTH 1.25

static int chs_umf_analyse(ChsKlu *c, SUNMatrix A) {
  int n = c->n, *Ap = chs_klu_ap(c, A), *Ai = chs_klu_ai(c, A);
  double *Ax = SUNSparseMatrix_Data(A), info[UMFPACK_INFO];
  if (c->usym && c->uq && c->uqn == n) { /* the last analysis's column order */
    int m, nz, n1, nfr, nch;
    int ok = umfpack_di_get_symbolic(&m, &m, &n1, &nz, &nfr, &nch, NULL, c->uq, NULL, NULL, NULL,
                                     NULL, NULL, NULL, NULL, c->usym) == UMFPACK_OK;
    umfpack_di_free_symbolic(&c->usym);
    double ctl[UMFPACK_CONTROL];
    memcpy(ctl, c->ucontrol, sizeof ctl);
    ctl[UMFPACK_ORDERING] = UMFPACK_ORDERING_GIVEN;
    if (ok && umfpack_di_qsymbolic(n, n, Ap, Ai, Ax, c->uq, &c->usym, ctl, info) == UMFPACK_OK &&
        info[UMFPACK_LNZ_ESTIMATE] + info[UMFPACK_UNZ_ESTIMATE] <=
            CHS_UMF_REORDER_GROWTH * c->ulu_full) {
      return 0;
    }
  }
  umfpack_di_free_symbolic(&c->usym);
  if (!c->uq || c->uqn != n) {
    free(c->uq);
    c->uq = malloc(((size_t)n + 1) * sizeof *c->uq);
    c->uqn = c->uq ? n : 0;
  }
  if (!c->uq || umfpack_di_symbolic(n, n, Ap, Ai, Ax, &c->usym, c->ucontrol, info) != UMFPACK_OK) {
    return CHS_ERR_SOLVER;
  }
  c->ulu_full = info[UMFPACK_LNZ_ESTIMATE] + info[UMFPACK_UNZ_ESTIMATE];
  return 0;
}

/* UMFPACK's set-up: the analysis when KLU would redo it, then a factorisation. A singular
 * matrix is a recoverable failure (the integrator retries with a smaller step). */
static int chs_umf_setup(ChsKlu *c, SUNMatrix A) {
  sunindextype n = SUNSparseMatrix_Columns(A);
  double *Ax = SUNSparseMatrix_Data(A);
  umfpack_di_free_numeric(&c->unum);
  if (c->analyse || !c->usym || n != c->n || SUNSparseMatrix_IndexPointers(A)[n] != c->nnz) {
    int n0 = c->n;
    if (chs_klu_pattern(c, A) != 0) {
      return chs_klu_fail(c, 0);
    }
    if (!c->uw || c->n != n0) {
      free(c->uwi);
      free(c->uw);
      c->uwi = malloc(((size_t)c->n + 1) * sizeof *c->uwi);
      c->uw = malloc((2 * (size_t)c->n + 1) * sizeof *c->uw);
      c->ub = c->uw ? c->uw + c->n : NULL;
    }
    if (!c->uwi || !c->uw || chs_umf_analyse(c, A) != 0) {
      return chs_klu_fail(c, 0);
    }
    c->analyse = 0;
  }
  int st = umfpack_di_numeric(chs_klu_ap(c, A), chs_klu_ai(c, A), Ax, c->usym, &c->unum,
                              c->ucontrol, NULL);
  if (st != UMFPACK_OK) {
    umfpack_di_free_numeric(&c->unum);
    return chs_klu_fail(c, st == UMFPACK_WARNING_singular_matrix);
  }
  c->last_flag = CHS_LS_SUCCESS;
  return c->last_flag;
}

static int chs_umf_solve(ChsKlu *c, SUNMatrix A, N_Vector x, N_Vector b) {
  double *xd = N_VGetArrayPointer(x), *bd = N_VGetArrayPointer(b);
  if (!xd || !bd || !c->unum) {
    return chs_klu_fail(c, 0);
  }
  if (xd == bd) {
    memcpy(c->ub, bd, (size_t)c->n * sizeof *bd);
    bd = c->ub;
  }
  int st = umfpack_di_wsolve(UMFPACK_A, chs_klu_ap(c, A), chs_klu_ai(c, A), SUNSparseMatrix_Data(A),
                             xd, bd, c->unum, c->ucontrol, NULL, c->uwi, c->uw);
  if (st != UMFPACK_OK) {
    return chs_klu_fail(c, st == UMFPACK_WARNING_singular_matrix);
  }
  c->last_flag = CHS_LS_SUCCESS;
  return c->last_flag;
}

/* Probes go through a copy of common. */
static int chs_klu_setup(SUNLinearSolver S, SUNMatrix A) {
  ChsKlu *c = CHS_KLU(S);
  if (SUNSparseMatrix_SparseType(A) != CSC_MAT) {
    return chs_klu_fail(c, 0);
  }
  if (c->umf) {
    return chs_umf_setup(c, A);
  }
  sunindextype n = SUNSparseMatrix_Columns(A);
  if (c->analyse || !c->symbolic || n != c->n || SUNSparseMatrix_IndexPointers(A)[n] != c->nnz) {
    klu_free_numeric(&c->numeric, &c->common);
    klu_free_symbolic(&c->symbolic, &c->common);
    if (chs_klu_pattern(c, A) != 0) {
      return chs_klu_fail(c, 0);
    }
    c->symbolic = klu_analyze(c->n, chs_klu_ap(c, A), chs_klu_ai(c, A), &c->common);
    if (!c->symbolic) {
      return chs_klu_fail(c, 0);
    }
    c->analyse = 0;
    return chs_klu_factor(c, A);
  }
  int *Ap = chs_klu_ap(c, A), *Ai = chs_klu_ai(c, A);
  double *Ax = SUNSparseMatrix_Data(A);
  klu_common probe = c->common;
  int ok = c->numeric && klu_refactor(Ap, Ai, Ax, c->symbolic, c->numeric, &probe);
  ok = ok && klu_rcond(c->symbolic, c->numeric, &probe);
  if (ok && !(c->common.rcond > 0 && probe.rcond >= CHS_KLU_RGROWTH_DROP * c->common.rcond)) {
    ok = klu_rgrowth(Ap, Ai, Ax, c->symbolic, c->numeric, &probe) &&
         probe.rgrowth >= CHS_KLU_RGROWTH_DROP * c->common.rgrowth;
  }
  if (ok) {
    c->last_flag = CHS_LS_SUCCESS;
    return c->last_flag;
  }
  return chs_klu_factor(c, A);
}

static int chs_klu_solve(SUNLinearSolver S, SUNMatrix A, N_Vector x, N_Vector b, sunrealtype tol) {
  (void)tol;
  ChsKlu *c = CHS_KLU(S);
  if (c->umf) {
    return chs_umf_solve(c, A, x, b);
  }
  N_VScale(1.0, b, x);
  double *xd = N_VGetArrayPointer(x);
  if (!xd || !c->numeric) {
    return chs_klu_fail(c, 0);
  }
  if (!klu_solve(c->symbolic, c->numeric, c->n, 1, xd, &c->common)) {
    return chs_klu_fail(c, 1);
  }
  c->last_flag = CHS_LS_SUCCESS;
  return c->last_flag;
}

static SUNLinearSolver_Type chs_klu_gettype(SUNLinearSolver S) {
  (void)S;
  return SUNLINEARSOLVER_DIRECT;
}

static SUNLinearSolver_ID chs_klu_getid(SUNLinearSolver S) {
  (void)S;
  return SUNLINEARSOLVER_CUSTOM;
}

static int chs_klu_initialize(SUNLinearSolver S) {
  CHS_KLU(S)->analyse = 1;
  CHS_KLU(S)->last_flag = CHS_LS_SUCCESS;
  return CHS_LS_SUCCESS;
}

static sunindextype chs_klu_lastflag(SUNLinearSolver S) {
  return CHS_KLU(S)->last_flag;
}

static int chs_klu_free(SUNLinearSolver S) {
  if (!S) {
    return CHS_LS_SUCCESS;
  }
  ChsKlu *c = CHS_KLU(S);
  if (c) {
    klu_free_numeric(&c->numeric, &c->common);
    klu_free_symbolic(&c->symbolic, &c->common);
    umfpack_di_free_numeric(&c->unum);
    umfpack_di_free_symbolic(&c->usym);
    free(c->uwi);
    free(c->uw);
    free(c->uq);
    free(c->Ap);
    free(c->Ai);
    free(c);
    S->content = NULL;
  }
  SUNLinSolFreeEmpty(S);
  return CHS_LS_SUCCESS;
}

static SUNLinearSolver chs_sparse_lu_new(N_Vector y, SUNMatrix A, SUNContext ctx) {
  if (!A || SUNMatGetID(A) != SUNMATRIX_SPARSE || SUNSparseMatrix_SparseType(A) != CSC_MAT ||
      SUNSparseMatrix_Rows(A) != SUNSparseMatrix_Columns(A) ||
      N_VGetLength(y) != SUNSparseMatrix_Rows(A) || !N_VGetArrayPointer(y) ||
      SUNSparseMatrix_Rows(A) > INT_MAX) {
    return NULL;
  }
  SUNLinearSolver S = SUNLinSolNewEmpty(ctx);
  ChsKlu *c = S ? calloc(1, sizeof *c) : NULL;
  if (!c) {
    SUNLinSolFreeEmpty(S);
    return NULL;
  }
  S->content = c;
  S->ops->gettype = chs_klu_gettype;
  S->ops->getid = chs_klu_getid;
  S->ops->initialize = chs_klu_initialize;
  S->ops->setup = chs_klu_setup;
  S->ops->solve = chs_klu_solve;
  S->ops->lastflag = chs_klu_lastflag;
  S->ops->free = chs_klu_free;
  klu_defaults(&c->common);
  c->analyse = 1;
  return S;
}

SUNLinearSolver chs_klu_create(N_Vector y, SUNMatrix A, int order, SUNContext ctx) {
  SUNLinearSolver S = chs_sparse_lu_new(y, A, ctx);
  if (!S) {
    return NULL;
  }
  ChsKlu *c = CHS_KLU(S);
  c->common.ordering = 1; /* COLAMD, SUNDIALS' default for KLU */
  if (order == CHS_KLU_ORDER_ND) {
    c->common.ordering = 3;
    c->common.user_order = chs_klu_order_nd;
  } else if (order >= 0) {
    c->common.ordering = order;
  }
  return S;
}

SUNLinearSolver chs_umfpack_create(N_Vector y, SUNMatrix A, SUNContext ctx) {
  SUNLinearSolver S = chs_sparse_lu_new(y, A, ctx);
  if (!S) {
    return NULL;
  }
  ChsKlu *c = CHS_KLU(S);
  c->umf = 1;
  umfpack_di_defaults(c->ucontrol);
  c->ucontrol[UMFPACK_ORDERING] = UMFPACK_ORDERING_CHOLMOD; /* AMD or COLAMD, METIS if it fills */
  c->ucontrol[UMFPACK_IRSTEP] = 0;
  return S;
}

int chs_klu_reinit(SUNLinearSolver S) {
  if (!S || S->ops->setup != chs_klu_setup) {
    return CHS_ERR_ARG;
  }
  CHS_KLU(S)->analyse = 1;
  return 0;
}

/* ------------------------------------------------------------------ fill estimate (ls=auto)
 * KLU's symbolic analysis with AMD (BTF blocks, AMD on each block's A + A^T): lnz and unz are
 * AMD's nnz(L) of that symmetric pattern with the diagonal, nzoff the entries off the diagonal
 * blocks. It is the fill of a factorisation without pivoting on AMD's order, not of KLU's own
 * (pivots, colamd or nested dissection), and costs one AMD pass (no METIS, no numbers): enough to
 * tell a matrix that fills like a 1-D graph (the pendulum chain: about 2 nnz(J)) from one that
 * fills like a 2-D mesh (the coil: 3 nnz(J) at 32 atoms, 16 at 10^3, 44 at 10^4). */
double chs_klu_fill(const struct cs_dl_sparse *J) {
  if (!J || J->n <= 0 || J->n > INT_MAX || J->p[J->n] <= 0 || J->p[J->n] > INT_MAX) {
    return -1;
  }
  int n = (int)J->n, nnz = (int)J->p[n];
  int *Ap = malloc(((size_t)n + 1) * sizeof *Ap), *Ai = malloc((size_t)nnz * sizeof *Ai);
  double fill = -1;
  if (Ap && Ai) {
    for (int j = 0; j <= n; j++) {
      Ap[j] = (int)J->p[j];
    }
    for (int t = 0; t < nnz; t++) {
      Ai[t] = (int)J->i[t];
    }
    klu_common kc;
    klu_defaults(&kc);
    kc.ordering = 0; /* AMD: the only ordering whose fill KLU's analysis reports */
    klu_symbolic *sym = klu_analyze(n, Ap, Ai, &kc);
    if (sym && sym->lnz >= 0 && sym->unz >= 0) {
      fill = (sym->lnz + sym->unz + (double)sym->nzoff) / (double)nnz;
    }
    klu_free_symbolic(&sym, &kc);
  }
  free(Ap);
  free(Ai);
  return fill;
}
