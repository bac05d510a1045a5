/* The chs command on MPI (mpi_cli.h, docs/mpi.md). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_cli.h"
#include "progress.h"
#ifdef CHS_HAVE_MPI
#include <mpi.h>
#include <unistd.h>
#include "chs/mpi.h"

static int mpi_size_ = 0, mpi_rank_ = 0;
/* Agreements on a status (cli_mpi_agree) run on a communicator of their own, so that they never
 * match a data collective of a rank that has not failed; after a failed one, none follows. */
static MPI_Comm agree_comm_ = MPI_COMM_NULL;
static int agree_failed_ = 0, agree_status_ = 0;
/* Ranks other than 0: their standard error goes to an unlinked temporary file (descriptor 2);
 * err_sent_: the bytes of it already handed to an agreement. */
static FILE *err_file_ = NULL;
static long err_sent_ = 0;

static void cli_mpi_finalize(void) {
  int done = 0;
  MPI_Finalized(&done);
  if (!done) {
    MPI_Finalize();
  }
}

/* 64-bit FNV-1a of the arguments after the program's name, each with its terminating NUL (so
 * that "ab" "c" and "a" "bc" differ). */
static uint64_t mpi_args_hash(int argc, char **argv) {
  uint64_t h = 14695981039346656037ULL;
  for (int i = 1; i < argc; i++) {
    const unsigned char *c = (const unsigned char *)argv[i];
    do {
      h = (h ^ *c) * 1099511628211ULL;
    } while (*c++);
  }
  return h;
}

/* Every rank parses its own arguments and computes its share from them, so they must be the same
 * on every rank (an MPMD launch, `mpirun -np 1 chs A : -np 1 chs B`, would otherwise run different
 * problems, or sizes that make the ranks' messages disagree, MPI_ERR_TRUNCATE). Rank 0's hash of
 * its arguments is broadcast and compared; on a mismatch rank 0 names the lowest rank that differs
 * and shows its arguments, and every rank exits 2 before any work. */
static void mpi_check_args(int argc, char **argv) {
  uint64_t mine = mpi_args_hash(argc, argv), root = mine;
  MPI_Bcast(&root, 1, MPI_UINT64_T, 0, agree_comm_);
  int differ[2] = {root != mine ? mpi_rank_ : mpi_size_, root != mine}, low[2];
  MPI_Allreduce(&differ[0], &low[0], 1, MPI_INT, MPI_MIN, agree_comm_);
  MPI_Allreduce(&differ[1], &low[1], 1, MPI_INT, MPI_SUM, agree_comm_);
  if (low[0] == mpi_size_) {
    return;
  }
  char text[512] = "";
  if (mpi_rank_ == low[0]) { /* its arguments, shortened, for rank 0's message */
    size_t at = 0;
    for (int i = 1; i < argc && at + 1 < sizeof text; i++) {
      int w = snprintf(text + at, sizeof text - at, "%s%s", i > 1 ? " " : "", argv[i]);
      at = w < 0 ? at : at + (size_t)w < sizeof text ? at + (size_t)w : sizeof text - 1;
    }
  }
  MPI_Bcast(text, (int)sizeof text, MPI_CHAR, low[0], agree_comm_);
  text[sizeof text - 1] = '\0';
  if (mpi_rank_ == 0) {
    char others[64] = "";
    if (low[1] > 1) {
      snprintf(others, sizeof others, " (and of %d other rank%s)", low[1] - 1,
               low[1] > 2 ? "s" : "");
    }
    cli_usage_error("the arguments of rank %d of %d%s differ from rank 0's: every rank must run "
                    "the same chs command line (an MPMD launch with ':' is refused); rank %d's: "
                    "'%s'",
                    low[0], mpi_size_, others, low[0], text);
  }
  exit(CHS_EXIT_USAGE); /* on every rank: MPI_Finalize at exit */
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
  MPI_Comm_dup(MPI_COMM_WORLD, &agree_comm_);
  if (mpi_rank_ > 0) { /* rank 0 reports for all, and the first failure of another rank */
    fflush(stderr);
    err_file_ = tmpfile();
    if (!freopen("/dev/null", "w", stdout) ||
        (err_file_ ? dup2(fileno(err_file_), 2) < 0 : !freopen("/dev/null", "w", stderr))) {
      MPI_Abort(MPI_COMM_WORLD, CHS_EXIT_NUMERIC);
    }
  }
  mpi_check_args(*argc, *argv);
}

/* This rank's standard error since the last agreement (at most len - 1 bytes, the first ones). */
static void mpi_take_stderr(char *buf, size_t len) {
  buf[0] = '\0';
  if (!err_file_) {
    return;
  }
  fflush(stderr);
  size_t got = 0;
  while (got + 1 < len) {
    ssize_t r = pread(2, buf + got, len - 1 - got, (off_t)(err_sent_ + (long)got));
    if (r <= 0) {
      break;
    }
    got += (size_t)r;
  }
  buf[got] = '\0';
  off_t end = lseek(2, 0, SEEK_END);
  err_sent_ = end >= 0 ? (long)end : err_sent_ + (long)got;
}

int cli_mpi_agree(int status) {
  if (mpi_size_ < 1) {
    return status;
  }
  if (agree_failed_) {
    return agree_status_;
  }
  int mine = status != 0 ? mpi_rank_ : mpi_size_, low = mpi_size_;
  MPI_Allreduce(&mine, &low, 1, MPI_INT, MPI_MIN, agree_comm_);
  if (low == mpi_size_) {
    if (err_file_) { /* what a passing rank wrote is not a failure's message */
      char skip[64];
      mpi_take_stderr(skip, 1);
    }
    return 0;
  }
  int st = status;
  MPI_Bcast(&st, 1, MPI_INT, low, agree_comm_);
  if (low > 0) { /* rank 0 printed its own messages; those of rank `low` come to it */
    char msg[4096];
    msg[0] = '\0';
    if (mpi_rank_ == low) {
      mpi_take_stderr(msg, sizeof msg);
    }
    MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, low, agree_comm_);
    msg[sizeof msg - 1] = '\0';
    if (mpi_rank_ == 0) {
      progress_interrupt(); /* a progress line of rank 0 erased first */
      fprintf(stderr, "chs: rank %d of %d failed (exit status %d)%s\n", low, mpi_size_, st,
              msg[0] ? ":" : " without a message");
      char *save = NULL;
      for (char *line = strtok_r(msg, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        cli_fputs_safe(stderr, line); /* the rank's lines as they are, controls escaped */
        fputc('\n', stderr);
      }
    }
  }
  agree_failed_ = 1;
  agree_status_ = st;
  return st;
}

int cli_mpi_finish(int status) {
  return cli_mpi_agree(status);
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

int cli_sweep_mine(long k) {
  return cli_mpi_owner(k) == mpi_rank_;
}

void cli_sweep_share(void *items, size_t size, long count, long first) {
  if (mpi_size_ > 1) {
    for (long k = 0; k < count; k++) {
      MPI_Bcast((char *)items + (size_t)k * size, (int)size, MPI_BYTE, cli_mpi_owner(first + k),
                MPI_COMM_WORLD);
    }
  }
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

/* The run's JSON object (json_run_object) with the distributed run's own figures appended,
 * "mpi": {"ranks", "wall_s", "comm_s", "rhs_evals"} (chs bench mpi reads them), and with ghost
 * atoms "ghost_rebuilds", "ghost_atoms", "ghost_bytes" (CHSMPISummary). */
static int mpi_json(const cli_result *res, const CHSMPISummary *ms) {
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  if (!m) {
    return cli_out_of_memory();
  }
  json_run_object(m, res, "");
  if (fclose(m) != 0 || !buf) {
    free(buf);
    return cli_out_of_memory();
  }
  char *end = strrchr(buf, '}');
  while (end && end > buf && (end[-1] == '\n' || end[-1] == ' ')) {
    end--;
  }
  if (!end) {
    free(buf);
    fprintf(stderr, "chs: internal error: no JSON object\n");
    return CHS_EXIT_NUMERIC;
  }
  fwrite(buf, 1, (size_t)(end - buf), stdout);
  printf(",\n  \"mpi\": {\"ranks\": %d, \"wall_s\": ", ms->ranks);
  json_real(stdout, ms->wall_s, 1);
  printf(", \"comm_s\": ");
  json_real(stdout, ms->comm_s, 1);
  printf(", \"rhs_evals\": %ld", ms->rhs_evals);
  if (ms->ghost_rebuilds >= 0) { /* ghost atoms (pair forces within a cutoff) */
    printf(", \"ghost_rebuilds\": %ld, \"ghost_atoms\": %ld, \"ghost_bytes\": ", ms->ghost_rebuilds,
           ms->ghost_atoms);
    json_real(stdout, ms->ghost_bytes, 1);
  }
  printf("}\n}\n");
  free(buf);
  return CHS_EXIT_OK;
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
  int arc = cli_mpi_agree(0); /* every rank's checks passed (a failing one returned) */
  if (arc != 0) {
    CHSProblem_Destroy(&prob);
    return arc;
  }
  CHSRunOptions ro;
  cli_run_options(o, &ro);
  sunindextype n = CHSProblem_GetDims(prob)->n;
  sunrealtype *z = calloc(4 * (size_t)n, sizeof *z);
  if (!z) {
    CHSProblem_Destroy(&prob);
    return cli_out_of_memory();
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
      cli_error(&err, rc, "MPI: diagnostics of the final state failed");
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
    status = mpi_json(&res, &ms);
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
    if (ms.ghost_rebuilds >= 0) {
      printf("  ghost atoms    %ld (largest rank), %.3g kB sent per force evaluation, %ld list "
             "rebuilds\n",
             ms.ghost_atoms, ms.ghost_bytes / 1e3, ms.ghost_rebuilds);
    }
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

int cli_sweep_mine(long k) {
  (void)k;
  return 1;
}

void cli_sweep_share(void *items, size_t size, long count, long first) {
  (void)items;
  (void)size;
  (void)count;
  (void)first;
}

int cli_mpi_agree(int status) {
  return status;
}

int cli_mpi_finish(int status) {
  return status;
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
