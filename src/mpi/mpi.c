/* Bond chains distributed over MPI ranks (chs/mpi.h, docs/mpi.md).
 *
 * A bond chain (a problem declaring CHS_DECLARE_BOND_CHAIN, chs/problem.h) has constraints
 * g_i = 1/2 (|r_h - r_{h-1}|^2 - L^2) on consecutive atoms, h = i + off: anchored
 * (CHS_DECLARE_ANCHORED, e.g. pendulum-chain: off = 0, atom -1 the fixed pivot at 0) or free (e.g.
 * chain: off = 1). The formulation's CHS_FORM_MPI_* flag picks the field. With the bond
 * vector d_h = r_h - r_{h-1} and e_h = v_h - v_{h-1}, row i of G is (-d_h at atom h-1, d_h at
 * atom h) and of Gdot(q, v) (-e_h, e_h); Q = G M^{-1} G^T is tridiagonal,
 *   Q(i,i) = (m_{h-1}^{-1} + m_h^{-1}) |d_h|^2,   Q(i,i+1) = -m_h^{-1} d_h . d_{h+1}.
 * The layout is checked against the problem's own G at the initial state (CHSMPI_Run refuses a
 * problem whose G differs).
 *
 * Distribution: rank k owns the rows [r0, r1) = ScaLAPACK's block k of nb = ceil(m / K) rows, the
 * atoms [a0, a1) = [r0 + off, r1 + off) (rank 0 from atom 0), and that part of q and p in its
 * N_Vector_Parallel (local layout q_loc, p_loc). Halo: one atom on each side (v, M^{-1} b, a) and
 * one row on each side (the multipliers), exchanged with the neighbours (MPI_Sendrecv).
 * Forces (chs_mpi_force): a problem with force_local (ABI 5) and a reach within one atom gives its
 * rank's components from the local and ghosted positions (pendulum-chain: gravity, no message);
 * otherwise positions are replicated (MPI_Allgatherv) once per right-hand side and the problem's
 * force runs on the whole q (Lennard-Jones pairs of a coiled chain are near in space, not in the
 * chain's order). The bond vectors come from the one-atom halo of q, M^{-1} F of the left
 * neighbour's last atom from the halo of M^{-1} F.
 *
 * The two fields, in the notation of formulations/standard.c and dirac.c:
 *   standard: lambda = Q^{-1} (Gdot v + G M^{-1} F),  q' = v,  p' = F - G^T lambda;
 *   dirac:    w = Q^{-1} psi, a = M^{-1} G^T w, b = Gdot^T w, z = lambda - Q^{-1} (Gdot a -
 *             G M^{-1} b),  q' = v - a,  p' = F - G^T z + b.
 * Rattle (src/mpi/mpi_rattle.c) and the projections after erk steps (src/mpi/mpi_project.c) are
 * dispatched from CHSMPI_Run. */
#include <stdlib.h>
#include <string.h>
#include <arkode/arkode_erkstep.h>
#include <nvector/nvector_parallel.h>
#include "compat.h"
#include "mpi_impl.h"

static int mpi_field(chs_mpi *M, const sunrealtype *y, sunrealtype *ydot) {
  sunindextype na = M->na, nr = M->nr, a0 = M->a0, a1 = M->a1;
  const sunrealtype *q = y, *p = y + 2 * na;
  sunrealtype *qd = ydot, *pd = ydot + 2 * na;
  chs_mpi_ghost_q(M, q, M->qg);
  /* a failed force on this rank is reported after the collective calls below (mpi_rhs agrees) */
  int frc = chs_mpi_force(M, q, M->qg, M->Fl);
  if (frc != 0) {
    memset(M->Fl, 0, 2 * (size_t)na * sizeof *M->Fl);
  }
  for (sunindextype k = 0; k < 2 * na; k++) {
    ATOM(M->v, a0)[k] = ATOM(M->minv, a0)[k] * p[k];
    ATOM(M->mf, a0)[k] = ATOM(M->minv, a0)[k] * M->Fl[k];
  }
  chs_mpi_halo(M, M->v, na, 2);
  chs_mpi_halo(M, M->mf, na, 2); /* the ghosts of rank 0 and the last rank stay 0 */
  chs_mpi_bonds(M, M->qg);
  for (sunindextype h = a0; h <= a1; h++) {
    if (chs_mpi_bond_exists(M, h)) {
      for (int c = 0; c < 2; c++) {
        BOND(M->e, h)[c] = ATOM(M->v, h)[c] - ATOM(M->v, h - 1)[c];
      }
    }
  }
  /* r = Gdot v + G M^{-1} F (column 0), psi = G v (column 1) */
  for (sunindextype i = M->r0; i < M->r1; i++) {
    sunindextype h = i + M->off;
    const sunrealtype *dh = BOND(M->d, h), *eh = BOND(M->e, h);
    sunrealtype f[2];
    for (int c = 0; c < 2; c++) {
      f[c] = ATOM(M->mf, h)[c] - (h > 0 ? ATOM(M->mf, h - 1)[c] : 0);
    }
    M->B[i - M->r0] = eh[0] * eh[0] + eh[1] * eh[1] + dh[0] * f[0] + dh[1] * f[1];
    if (M->dirac) {
      M->B[M->nb + i - M->r0] = dh[0] * eh[0] + dh[1] * eh[1];
    }
  }
  CHS_CALL(chs_mpi_gram_solve(M, M->dirac ? 2 : 1, 1));
  memcpy(&ROW(M->lam, M->r0), M->B, (size_t)nr * sizeof *M->lam);
  chs_mpi_halo(M, M->lam, nr, 1);
  const sunrealtype *F = M->Fl;
  if (!M->dirac) {
    for (sunindextype h = a0; h < a1; h++) {
      sunrealtype gt[2];
      chs_mpi_tmv(M, M->d, M->lam, h, gt);
      for (int c = 0; c < 2; c++) {
        qd[2 * (h - a0) + c] = ATOM(M->v, h)[c];
        pd[2 * (h - a0) + c] = F[2 * (h - a0) + c] - gt[c];
      }
    }
    return frc != 0 ? CHS_RECOVERABLE : 0;
  }
  memcpy(&ROW(M->w, M->r0), M->B + M->nb, (size_t)nr * sizeof *M->w);
  chs_mpi_halo(M, M->w, nr, 1);
  for (sunindextype h = a0; h < a1; h++) { /* a = M^{-1} G^T w, b = Gdot^T w */
    sunrealtype gt[2];
    chs_mpi_tmv(M, M->d, M->w, h, gt);
    chs_mpi_tmv(M, M->e, M->w, h, ATOM(M->b, h));
    for (int c = 0; c < 2; c++) {
      ATOM(M->a, h)[c] = ATOM(M->minv, h)[c] * gt[c];
      ATOM(M->mb, h)[c] = ATOM(M->minv, h)[c] * ATOM(M->b, h)[c];
    }
  }
  chs_mpi_halo(M, M->a, na, 2);
  chs_mpi_halo(M, M->mb, na, 2);
  for (sunindextype i = M->r0; i < M->r1; i++) { /* S w = Gdot a - G M^{-1} b */
    M->B[i - M->r0] = chs_mpi_mv(M, M->e, M->a, i) - chs_mpi_mv(M, M->d, M->mb, i);
  }
  CHS_CALL(chs_mpi_gram_solve(M, 1, 0));
  for (sunindextype i = M->r0; i < M->r1; i++) {
    ROW(M->z, i) = ROW(M->lam, i) - M->B[i - M->r0];
  }
  chs_mpi_halo(M, M->z, nr, 1);
  for (sunindextype h = a0; h < a1; h++) {
    sunrealtype gt[2];
    chs_mpi_tmv(M, M->d, M->z, h, gt);
    for (int c = 0; c < 2; c++) {
      qd[2 * (h - a0) + c] = ATOM(M->v, h)[c] - ATOM(M->a, h)[c];
      pd[2 * (h - a0) + c] = F[2 * (h - a0) + c] - gt[c] + ATOM(M->b, h)[c];
    }
  }
  return frc != 0 ? CHS_RECOVERABLE : 0;
}

/* ERKStep's user data: the layout, and the projector of the post-step hook (NULL: none). */
typedef struct {
  chs_mpi *M;
  chs_mpi_proj *proj;
} mpi_erk;

/* ERKStep's right-hand side: the field, with its status agreed by all ranks (a failure on one
 * rank is a failure on all, so that none waits in a collective call the others left). */
static int mpi_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user_data) {
  (void)t;
  chs_mpi *M = ((mpi_erk *)user_data)->M;
  int rc = mpi_field(M, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot));
  int flags[2] = {rc < 0 ? -rc : 0, rc > 0 ? rc : 0}, all[2];
  double t0 = MPI_Wtime();
  MPI_Allreduce(flags, all, 2, MPI_INT, MPI_MAX, M->comm);
  M->comm_s += MPI_Wtime() - t0;
  return all[0] ? -all[0] : all[1];
}

/* ERKStep's post-step hook: the projection (src/mpi/mpi_project.c), as CHSProjector_ARKPostprocess
 * does in the serial run. */
static int mpi_postprocess(sunrealtype t, N_Vector y, void *user_data) {
  (void)t;
  return chs_mpi_proj_apply(((mpi_erk *)user_data)->proj, N_VGetArrayPointer(y));
}

/* ------------------------------------------------------------------ set-up */

int chs_mpi_field_kind(const char *formulation) {
  const CHSFormulationOps *ops = CHSFormulationRegistry_Find(formulation);
  unsigned f = ops ? ops->flags & (CHS_FORM_MPI_STANDARD | CHS_FORM_MPI_DIRAC) : 0u;
  return f == CHS_FORM_MPI_STANDARD ? 1 : f == CHS_FORM_MPI_DIRAC ? 2 : 0;
}

int CHSMPI_Check(CHSProblem prob, const char *formulation, const char *method, int ranks,
                 CHSError *err) {
  const char *name = CHSProblem_GetName(prob);
  const CHSProblemDims *dims = CHSProblem_GetDims(prob);
  const CHSProblemOps *ops = CHSProblem_GetOps(prob);
  if (!(dims->declares & CHS_DECLARE_BOND_CHAIN)) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "MPI: problem '%s' does not run distributed (it is not a bond chain: "
                         "pendulum-chain and chain are)",
                         name);
  }
  if (chs_mpi_field_kind(formulation) == 0) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "MPI: formulation '%s' does not run distributed (standard and dirac do)",
                         formulation ? formulation : "(none)");
  }
  int rattle = method && (strcmp(method, "rattle") == 0 || strncmp(method, "rattle:", 7) == 0);
  if (!method || (strncmp(method, "erk:", 4) != 0 && !rattle)) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "MPI: method '%s' does not run distributed (erk:TABLE and rattle do)",
                         method ? method : "(none)");
  }
  if (rattle && strcmp(method, "rattle") != 0) { /* as the serial rattle_create */
    return chs_error_set(err, CHS_ERR_NOTFOUND, "unknown method '%s' (use rattle)", method);
  }
  int isotropic = 1; /* the Gram matrix takes an atom's mass from its x coordinate */
  for (sunindextype k = 0; dims->mass_kind == CHS_MASS_DIAGONAL && k + 1 < dims->n; k += 2) {
    isotropic = isotropic && dims->mass[k] == dims->mass[k + 1];
  }
  sunindextype atoms = dims->n / 2, off = (dims->declares & CHS_DECLARE_ANCHORED) ? 0 : 1;
  if (dims->jac_kind != CHS_JAC_CSR || dims->n % 2 != 0 || dims->m != atoms - off ||
      (dims->mass_kind != CHS_MASS_IDENTITY && dims->mass_kind != CHS_MASS_DIAGONAL) ||
      !isotropic || dims->time_dependent || ops->nonconservative_force || dims->kinetic_scaled) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "MPI: this instance of '%s' is not a bond chain with a constant diagonal "
                         "mass",
                         name);
  }
  sunindextype nb = (dims->m + ranks - 1) / ranks;
  if (ranks < 1 || nb < 2 || (sunindextype)(ranks - 1) * nb >= dims->m) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "MPI: %ld constraints cannot be split over %d ranks (ScaLAPACK's blocks "
                         "of ceil(m / K) rows: at least 2, and none empty)",
                         (long)dims->m, ranks);
  }
  return 0;
}

static int mpi_integrate(chs_mpi *M, const CHSRunOptions *opt, N_Vector y, SUNContext ctx,
                         CHSMPISummary *sum, CHSError *err) {
  int embedded = 0;
  ARKodeButcherTable B = chs_erk_table(opt->method + 4, &embedded, err);
  if (!B) {
    return err->code ? err->code : CHS_ERR_ARG;
  }
  int fixed = opt->ctl.h > 0;
  if (!fixed && !embedded) {
    ARKodeButcherTable_Free(B);
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "method %s has no embedding: give a fixed step --h", opt->method);
  }
  mpi_erk ud = {M, NULL};
  if (opt->project != CHS_PROJECT_NONE) {
    int prc = chs_mpi_proj_create(M, opt, &ud.proj, err);
    if (prc != 0) {
      ARKodeButcherTable_Free(B);
      return prc;
    }
  }
  void *ark = ERKStepCreate(mpi_rhs, opt->t0, y, ctx);
  int rc = ark ? 0 : -1;
#if !CHS_SUNDIALS_AT_LEAST(7, 0)
  if (rc == 0) {
    rc = ERKStepSetErrHandlerFn(ark, chs_arkode_capture_error, M->arkode_msg);
  }
#endif
  if (rc == 0) {
    rc = ERKStepSetTable(ark, B);
  }
  if (rc == 0) {
    rc = chs_erk_set_user_data(ark, &ud);
  }
  if (rc == 0) {
    rc = fixed ? chs_erk_set_fixed_step(ark, opt->ctl.h)
               : chs_erk_sstolerances(ark, opt->ctl.rtol, opt->ctl.atol);
  }
  if (rc == 0) {
    rc = chs_erk_fix_last_stage_reuse(ark, B);
  }
  if (rc == 0 && ud.proj) { /* projection after every step */
    rc = chs_erk_set_postprocess(ark, mpi_postprocess);
  }
  if (rc == 0) {
    rc = chs_erk_set_max_num_steps(ark, opt->ctl.max_steps > 0 ? opt->ctl.max_steps
                                                               : CHS_RUN_MAX_STEPS_DEFAULT);
  }
  if (rc == 0) {
    rc = chs_erk_set_stop_time(ark, opt->tf);
  }
  ARKodeButcherTable_Free(B);
  if (rc != 0) {
    chs_erk_free(&ark);
    chs_mpi_proj_free(&ud.proj);
    return chs_error_set(err, CHS_ERR_SOLVER, "MPI: ERKStep set-up failed for %s (flag %d)",
                         opt->method, rc);
  }
  sunrealtype t = opt->t0;
  double t0 = MPI_Wtime();
  M->comm_s = 0;
  int erc = chs_erk_evolve(ark, opt->tf, y, &t, ARK_NORMAL);
  double wall = MPI_Wtime() - t0;
  long v = 0;
  sum->t_final = t;
  sum->steps = chs_erk_get_num_steps(ark, &v) == 0 ? v : 0;
  sum->rhs_evals = chs_erk_get_num_rhs_evals(ark, &v) == 0 ? v : 0;
  sum->err_test_fails = !fixed && chs_erk_get_num_err_test_fails(ark, &v) == 0 ? v : 0;
  double mine[2] = {wall, M->comm_s}, mx[2];
  MPI_Allreduce(mine, mx, 2, MPI_DOUBLE, MPI_MAX, M->comm);
  sum->wall_s = mx[0];
  sum->comm_s = mx[1];
  sum->ranks = M->size;
  chs_mpi_ghost_summary(M, sum);
  if (erc < 0) {
    rc = chs_error_set(err, CHS_ERR_SOLVER, "MPI: ERKStep failed at t = %.17g with %s%s%s",
                       (double)t, chs_erk_get_return_flag_name(erc), M->arkode_msg[0] ? ": " : "",
                       M->arkode_msg);
  }
  chs_erk_free(&ark);
  if (ud.proj) {
    chs_mpi_proj_counts(ud.proj, sum);
    chs_mpi_proj_free(&ud.proj);
  }
  return rc;
}

static int chs_mpi_run(MPI_Comm comm, CHSProblem prob, const char *formulation,
                       const CHSRunOptions *opt, sunrealtype *q_final, sunrealtype *p_final,
                       CHSMPISummary *sum, CHSError *err) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  CHSMPISummary sdummy;
  sum = sum ? sum : &sdummy;
  memset(sum, 0, sizeof *sum);
  CHS_CALL(CHSMPI_Check(prob, formulation, opt->method, size, err));
  CHS_CALL(chs_check_time_step(opt, err));
  CHS_CALL(chs_check_subnormals(opt, err));
  if (opt->stop_at || opt->locate_events) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED, "MPI: events do not run distributed");
  }
  int rattle = strcmp(opt->method, "rattle") == 0;
  if (rattle && !(opt->ctl.h > 0)) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED, "method rattle needs a fixed step --h");
  }
  if (rattle && opt->project != CHS_PROJECT_NONE) { /* as the serial rattle (fixed_step.h) */
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "method rattle keeps the constraints g and psi itself at every step: it "
                         "takes no --project");
  }
  sum->proj_position = sum->proj_momentum = sum->proj_newton = -1; /* no projector (yet) */
  chs_mpi M;
  memset(&M, 0, sizeof M);
  sunindextype n = CHSProblem_GetDims(prob)->n;
  sunrealtype *z0 = malloc(2 * (size_t)n * sizeof *z0);
  if (!z0) {
    return chs_error_set(err, CHS_ERR_MEM, "MPI: out of memory");
  }
  int rc = CHSProblem_GetOps(prob)->initial_state(CHSProblem_GetData(prob), z0, z0 + n);
  if (rc != 0) {
    free(z0);
    return chs_error_set(err, CHS_ERR_CALLBACK, "MPI: initial_state of '%s' failed (%d)",
                         CHSProblem_GetName(prob), rc);
  }
  SUNContext ctx = NULL;
  N_Vector y = NULL;
  rc = chs_mpi_setup(&M, comm, prob, formulation, z0, err);
#if CHS_SUNDIALS_AT_LEAST(7, 0)
  if (rc == 0 && SUNContext_Create(comm, &ctx) != 0) {
#else
  if (rc == 0 && SUNContext_Create((void *)&comm, &ctx) != 0) {
#endif
    rc = chs_error_set(err, CHS_ERR_MEM, "MPI: cannot create a SUNContext");
  }
  if (rc == 0) {
    chs_context_silence(ctx);
    y = N_VNew_Parallel(comm, 4 * M.na, 2 * n, ctx);
    chs_mpi_nvector_fast_ops(y);
    if (!y) {
      rc = chs_error_set(err, CHS_ERR_MEM, "MPI: cannot create the parallel N_Vector");
    }
  }
  if (rc == 0) {
    sunrealtype *yl = N_VGetArrayPointer(y);
    memcpy(yl, z0 + 2 * M.a0, 2 * (size_t)M.na * sizeof *yl);
    memcpy(yl + 2 * M.na, z0 + n + 2 * M.a0, 2 * (size_t)M.na * sizeof *yl);
    rc = rattle ? chs_mpi_rattle(&M, opt, yl, sum, err) : mpi_integrate(&M, opt, y, ctx, sum, err);
  }
  if (y) { /* the final state (as far as the run got) to rank 0 */
    sunrealtype *yl = N_VGetArrayPointer(y);
    MPI_Gatherv(yl, (int)(2 * M.na), MPI_DOUBLE, z0, M.counts, M.displs, MPI_DOUBLE, 0, comm);
    MPI_Gatherv(yl + 2 * M.na, (int)(2 * M.na), MPI_DOUBLE, z0 + n, M.counts, M.displs, MPI_DOUBLE,
                0, comm);
    if (M.rank == 0 && q_final) {
      memcpy(q_final, z0, (size_t)n * sizeof *q_final);
    }
    if (M.rank == 0 && p_final) {
      memcpy(p_final, z0 + n, (size_t)n * sizeof *p_final);
    }
    N_VDestroy(y);
  }
  SUNContext_Free(&ctx);
  chs_mpi_free(&M);
  free(z0);
  return rc;
}

/* Subnormals as in CHSRun (CHSRunOptions.subnormals) */
int CHSMPI_Run(MPI_Comm comm, CHSProblem prob, const char *formulation, const CHSRunOptions *opt,
               sunrealtype *q_final, sunrealtype *p_final, CHSMPISummary *sum, CHSError *err) {
  unsigned long fp = chs_fp_begin(opt ? opt->subnormals : CHS_SUBNORMALS_KEEP);
  int rc = chs_mpi_run(comm, prob, formulation, opt, q_final, p_final, sum, err);
  chs_fp_end(fp);
  return rc;
}
