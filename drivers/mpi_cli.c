/* The chs command on MPI (mpi_cli.h, docs/mpi.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_cli.h"
#ifdef CHS_HAVE_MPI
#include <mpi.h>
#include "chs/mpi.h"

static int mpi_size_ = 0, mpi_rank_ = 0;

static void cli_mpi_finalize(void) {
  int done = 0;
  MPI_Finalized(&done);
  if (!done) {
    MPI_Finalize();
  }
}

void cli_mpi_init(int *argc, char ***argv) {
  if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE") && !getenv("PMIX_RANK")) {
    return; /* not started by an MPI launcher: serial, MPI never initialised */
  }
  if (MPI_Init(argc, argv) != MPI_SUCCESS) {
    return;
  }
  atexit(cli_mpi_finalize);
  MPI_Comm_size(MPI_COMM_WORLD, &mpi_size_);
  MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank_);
  if (mpi_rank_ > 0) { /* rank 0 reports for all */
    if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) {
      MPI_Abort(MPI_COMM_WORLD, CHS_EXIT_NUMERIC);
    }
  }
}

int cli_mpi_size(void) {
  return mpi_size_;
}

int cli_mpi_rank(void) {
  return mpi_rank_;
}

int cli_mpi_owner(long k) {
  return mpi_size_ > 1 ? (int)(k % mpi_size_) : 0;
}

void cli_mpi_bcast(void *buf, size_t bytes, int root) {
  if (mpi_size_ > 1) {
    MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, MPI_COMM_WORLD);
  }
}

void cli_mpi_max(int *x) {
  if (mpi_size_ > 1) {
    MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  }
}

/* H, |g|_2 and |G M^{-1} p|_2 at (q, p) from the problem's callbacks (rank 0, serial). */
static int mpi_diag(CHSProblem prob, const sunrealtype *q, const sunrealtype *p, double *H,
                    double *g2, double *psi2) {
  const CHSProblemOps *ops = CHSProblem_GetOps(prob);
  const CHSProblemDims *d = CHSProblem_GetDims(prob);
  void *data = CHSProblem_GetData(prob);
  sunindextype n = d->n, m = d->m;
  sunrealtype *v = malloc(((size_t)n + (size_t)m + (size_t)d->nnz) * sizeof *v), V = 0;
  if (!v) {
    return CHS_ERR_MEM;
  }
  sunrealtype *g = v + n, *G = g + m;
  double T = 0;
  for (sunindextype i = 0; i < n; i++) {
    v[i] = d->mass_kind == CHS_MASS_DIAGONAL ? p[i] / d->mass[i] : p[i];
    T += 0.5 * (double)(p[i] * v[i]);
  }
  int rc = ops->potential(data, q, &V) || ops->constraint(data, q, g) || ops->jacobian(data, q, G);
  double sg = 0, sp = 0;
  for (sunindextype i = 0; rc == 0 && i < m; i++) {
    sunrealtype psi = 0;
    for (sunindextype k = d->rowptr[i]; k < d->rowptr[i + 1]; k++) {
      psi += G[k] * v[d->colind[k]];
    }
    sg += (double)(g[i] * g[i]);
    sp += (double)(psi * psi);
  }
  free(v);
  *H = T + (double)V;
  *g2 = sqrt(sg);
  *psi2 = sqrt(sp);
  return rc ? CHS_ERR_CALLBACK : 0;
}

int cmd_run_mpi(const cli_options *o) {
  if (o->out || o->wedge || o->stop_at) {
    return cli_usage_error("--out, --wedge and --stop-at do not run distributed (MPI "
                           "with %d ranks; docs/mpi.md)",
                           mpi_size_);
  }
  CHSError err;
  CHSError_Clear(&err);
  CHSProblem prob = NULL;
  if (CHSProblem_Create(o->problem, &prob, &err) != 0) {
    return cli_fail(&err);
  }
  if (cli_check_formulation(o->formulation) != 0) {
    CHSProblem_Destroy(&prob);
    return CHS_EXIT_USAGE;
  }
  CHSRunOptions ro;
  cli_run_options(o, &ro);
  sunindextype n = CHSProblem_GetDims(prob)->n;
  sunrealtype *z = calloc(4 * (size_t)n, sizeof *z);
  if (!z) {
    CHSProblem_Destroy(&prob);
    fprintf(stderr, "chs: out of memory\n");
    return CHS_EXIT_NUMERIC;
  }
  CHSMPISummary ms;
  int rc = CHSMPI_Run(MPI_COMM_WORLD, prob, o->formulation, &ro, z, z + n, &ms, &err);
  cli_result res;
  memset(&res, 0, sizeof res);
  snprintf(res.problem, sizeof res.problem, "%s", o->problem);
  snprintf(res.formulation, sizeof res.formulation, "%s", o->formulation);
  snprintf(res.method, sizeof res.method, "%s", o->method);
  CHSRunSummary *s = &res.sum;
  CHSDiagnosticsSummary *d = &s->diag;
  s->stats.steps = ms.steps;
  s->stats.jac_evals = -1;
  s->stats.err_test_fails = ms.err_test_fails;
  s->rhs_evals = ms.rhs_evals;
  s->proj_position = ms.proj_position;
  s->proj_momentum = ms.proj_momentum;
  s->wall_s = ms.wall_s;
  s->completed = rc == 0;
  d->t_final = ms.t_final;
  d->records = 2; /* the initial and the final state */
  double H0 = 0, H = 0, g = 0, psi = 0;
  if (rc == 0 && mpi_rank_ == 0) {
    const CHSProblemOps *ops = CHSProblem_GetOps(prob);
    rc = ops->initial_state(CHSProblem_GetData(prob), z + 2 * n, z + 3 * n) != 0 ? CHS_ERR_CALLBACK
                                                                                 : 0;
    if (rc == 0) {
      rc = mpi_diag(prob, z + 2 * n, z + 3 * n, &H0, &g, &psi);
    }
    if (rc == 0) {
      rc = mpi_diag(prob, z, z + n, &H, &g, &psi);
    }
    if (rc != 0) {
      err.code = rc;
      snprintf(err.msg, sizeof err.msg, "MPI: diagnostics of the final state failed");
    }
  }
  CHSProblem_Destroy(&prob);
  d->energy0 = H0;
  d->energy_err_max = d->energy_err_final = fabs(H - H0) / (H0 != 0 ? fabs(H0) : 1);
  d->pos_res_max = d->pos_res_final = g;
  d->mom_res_max = d->mom_res_final = psi;
  d->energy_invariant = 1;
  res.q_final = z;
  res.p_final = z + n;
  res.n_final = n;
  int status = CHS_EXIT_OK;
  if (rc != 0) {
    status = cli_fail(&err);
  } else if (o->json) {
    json_run_object(stdout, &res, "");
    printf("\n");
  } else {
    printf("problem %s, formulation %s, method %s (MPI, %d ranks)\n", res.problem, res.formulation,
           res.method, ms.ranks);
    printf("  t_final        %.6g\n", (double)d->t_final);
    printf("  steps          %ld\n", s->stats.steps);
    printf("  rhs evals      %ld\n", s->rhs_evals);
    printf("  energy error   final %.3e\n", (double)d->energy_err_final);
    printf("  |g|            final %.3e\n", (double)d->pos_res_final);
    printf("  |psi|          final %.3e\n", (double)d->mom_res_final);
    printf("  wall           %.3g s (communication %.3g s)\n", ms.wall_s, ms.comm_s);
  }
  free(z);
  return status;
}

#else /* without CHS_MPI */

void cli_mpi_init(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
}

int cli_mpi_size(void) {
  return 0;
}

int cli_mpi_rank(void) {
  return 0;
}

int cli_mpi_owner(long k) {
  (void)k;
  return 0;
}

void cli_mpi_bcast(void *buf, size_t bytes, int root) {
  (void)buf;
  (void)bytes;
  (void)root;
}

void cli_mpi_max(int *x) {
  (void)x;
}

int cmd_run_mpi(const cli_options *o) {
  (void)o;
  return cli_usage_error("this chs was built without MPI (CHS_MPI)");
}
#endif
