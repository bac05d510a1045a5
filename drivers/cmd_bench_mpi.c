/* chs bench mpi: strong and weak scaling of the distributed chains (docs/mpi.md).
 *
 * For every K of --ranks, this chs binary is launched as `MPIRUN [--oversubscribe] -np K CHS run
 * --problem SPEC --formulation dirac --method erk:rk4 --h 0.001 --tf S*0.001 --json` with an argv
 * array (posix_spawnp, no shell) in a process group of its own, its standard input /dev/null, its
 * standard output read through a pipe and its standard error kept in a temporary file (the first
 * line of it names a failed launch); a launch running longer than --time-limit is ended with its
 * whole process group (SIGTERM, a grace period, then SIGKILL: children that outlive the launcher
 * too) and its row marked; so is the running launch when chs itself gets SIGINT, SIGTERM or SIGHUP
 * (then chs ends by that signal). From the run's JSON
 * ("mpi": ranks, wall_s, comm_s, rhs_evals, written by cmd_run_mpi): wall and communication time
 * per right-hand side, the communication share, and against the smallest K of the list (base
 * K0, time per RHS T0):
 *
 *   strong (N atoms for every K):       speed-up S = K0 T0 / T,   efficiency E = S / K;
 *   weak   (K x N-per-rank atoms):      speed-up S = K  T0 / T,   efficiency E = S / K = T0 / T
 *
 * (weak: the work per RHS grows with K, S is the scaled speed-up). Problems: pendulum-chain:N and
 * chain:N,cutoff=2.5 (its forces local in space, but gathered on every rank: docs/mpi.md). K
 * greater than the cores online is oversubscribed: --oversubscribe (Open MPI's flag) is added and
 * the row says so. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bench.h"
#include "cli.h"
#include "mpi_cli.h"
#include "progress.h"

extern char **environ;

#define BM_MAX_RANKS 8
#define BM_H 0.001
#define BM_OUT_MAX ((size_t)1 << 31) /* a run's JSON holds q_final and p_final: ~70 B per atom */
#define BM_GRACE_S 5.0               /* from SIGTERM to SIGKILL of a launch's process group */

#ifndef CHS_MPIEXEC
#define CHS_MPIEXEC "mpirun"
#endif
#ifdef CHS_HAVE_MPI
static const int bm_have_mpi = 1;
#else
static const int bm_have_mpi = 0;
#endif

typedef struct {
  const char *problem; /* "pendulum-chain" or "chain" */
  int weak;
  int ranks;
  long n;
  int oversubscribed;
  int ok;
  char msg[200]; /* why not ok */
  double wall_s, comm_s;
  long rhs_evals;
  double wall_rhs, comm_rhs, share, speedup, efficiency; /* NAN: not measured */
} bm_row;

/* --ranks: increasing integers in 1 .. 256, at most BM_MAX_RANKS. */
static int bm_parse_ranks(const char *text, int *ranks, int *count) {
  char buf[128];
  snprintf(buf, sizeof buf, "%s", text);
  *count = 0;
  char *save = NULL;
  for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    long k;
    if (*count == BM_MAX_RANKS) {
      return cli_usage_error("bad value for --ranks: '%.100s' (at most %d entries)", text,
                             BM_MAX_RANKS);
    }
    if (cli_parse_long_range("--ranks", t, 1, 256, &k) != 0) {
      return CHS_EXIT_USAGE;
    }
    if (*count > 0 && k <= ranks[*count - 1]) {
      return cli_usage_error("bad value for --ranks: '%.100s' (increasing numbers)", text);
    }
    ranks[(*count)++] = (int)k;
  }
  return *count ? 0 : cli_usage_error("bad value for --ranks: '%.100s' (empty)", text);
}

/* The number after "key": in the object text (the run's JSON); 0 when found. */
static int bm_json_number(const char *text, const char *key, double *x) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  const char *p = strstr(text, pat);
  if (!p) {
    return -1;
  }
  char *end = NULL;
  *x = strtod(p + strlen(pat), &end);
  return end != p + strlen(pat) && isfinite(*x) ? 0 : -1;
}

/* The signal that interrupted chs during the launches (0: none). A handler may only set a flag:
 * bm_launch ends the running launch's process group when it sees it, cmd_bench_mpi then launches
 * no more and raises the signal again with its default action. */
static volatile sig_atomic_t bm_signal_ = 0;
static const int bm_signals[3] = {SIGINT, SIGTERM, SIGHUP};

static void bm_on_signal(int sig) {
  bm_signal_ = sig;
}

/* The handlers, for the signals not ignored when chs started (nohup, or a script's background job
 * with SIGINT ignored, keep them ignored); old: the dispositions to restore. */
static void bm_catch_signals(struct sigaction old[3]) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = bm_on_signal;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < 3; i++) {
    sigaction(bm_signals[i], NULL, &old[i]);
    if (old[i].sa_handler != SIG_IGN) {
      sigaction(bm_signals[i], &sa, NULL);
    }
  }
}

static void bm_restore_signals(const struct sigaction old[3]) {
  for (int i = 0; i < 3; i++) {
    sigaction(bm_signals[i], &old[i], NULL);
  }
}

static void bm_sleep(double s) {
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&ts, NULL);
}

/* Whether a process of group pgid other than a zombie exists (from /proc/PID/stat: the state and
 * the group follow the command's closing parenthesis). The launcher, the group's leader, stays an
 * unreaped zombie while this is asked, so that the group's id is not reused. Without /proc: 1. */
static int bm_group_alive(pid_t pgid) {
  DIR *d = opendir("/proc");
  if (!d) {
    return 1;
  }
  int alive = 0;
  for (struct dirent *e; !alive && (e = readdir(d));) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') {
      continue;
    }
    char path[300], buf[512];
    snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
    FILE *f = fopen(path, "r");
    if (!f) {
      continue; /* gone meanwhile */
    }
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *rp = strrchr(buf, ')');
    char state = 0;
    long ppid = 0, pgrp = 0;
    if (rp && sscanf(rp + 1, " %c %ld %ld", &state, &ppid, &pgrp) == 3) {
      alive = pgrp == (long)pgid && state != 'Z' && state != 'X';
    }
  }
  closedir(d);
  return alive;
}

/* Ends the process group of the launcher pid (its leader): SIGTERM to the group (mpirun passes it
 * to the ranks), up to BM_GRACE_S for every process of it to end, then SIGKILL to what is left (a
 * child that ignores SIGTERM, or outlived its launcher); then the launcher is reaped (its status
 * into *status). */
static void bm_end_group(pid_t pid, int *status) {
  kill(-pid, SIGTERM);
  double t0 = bench_now(CLOCK_MONOTONIC);
  while (bm_group_alive(pid) && bench_now(CLOCK_MONOTONIC) - t0 < BM_GRACE_S) {
    bm_sleep(0.05);
  }
  if (bm_group_alive(pid)) {
    kill(-pid, SIGKILL);
    for (int i = 0; i < 100 && bm_group_alive(pid); i++) {
      bm_sleep(0.01); /* until the kernel has ended them: none is left when chs returns */
    }
  }
  while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
  }
}

/* The launcher (--mpirun or the built-in one) is an executable regular file: a name with '/' as it
 * is, else the first one on PATH, as posix_spawnp looks. Exit status 2 and a message if not. */
static int bm_check_launcher(const char *name) {
  struct stat st;
  if (name[0] == '\0') {
    return cli_usage_error("bad value for --mpirun: '' (empty)");
  }
  if (strchr(name, '/')) {
    if (stat(name, &st) != 0) {
      return cli_usage_error("bad value for --mpirun: '%.300s' (%s)", name, strerror(errno));
    }
    if (!S_ISREG(st.st_mode) || access(name, X_OK) != 0) {
      return cli_usage_error("bad value for --mpirun: '%.300s' (not an executable file)", name);
    }
    return 0;
  }
  const char *path = getenv("PATH");
  path = path && path[0] ? path : "/usr/local/bin:/usr/bin:/bin";
  for (const char *p = path; *p;) {
    size_t len = strcspn(p, ":");
    char full[4096];
    int w = snprintf(full, sizeof full, "%.*s%s%s", (int)len, p, len ? "/" : "", name);
    if (w > 0 && (size_t)w < sizeof full && stat(full, &st) == 0 && S_ISREG(st.st_mode) &&
        access(full, X_OK) == 0) {
      return 0;
    }
    p += len + (p[len] == ':');
  }
  return cli_usage_error("bad value for --mpirun: '%.300s' (no executable of that name on PATH)",
                         name);
}

/* One launch: argv through posix_spawnp in a new process group, stdin from /dev/null (a launcher
 * outside the terminal's foreground group must not read it), stdout into out (NUL-terminated),
 * stderr into a temporary file whose first line goes to row->msg on failure. */
static void bm_launch(char *const *argv, double limit, bm_row *row) {
  int fd[2];
  FILE *errf = tmpfile();
  size_t cap = (size_t)1 << 20;
  char *out = malloc(cap);
  if (!errf || !out || pipe(fd) != 0) {
    snprintf(row->msg, sizeof row->msg, "cannot start %s: %s", argv[0], strerror(errno));
    if (errf) {
      fclose(errf);
    }
    free(out);
    return;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addclose(&fa, fd[0]);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
  posix_spawn_file_actions_adddup2(&fa, fileno(errf), 2);
  posix_spawn_file_actions_addclose(&fa, fd[1]);
  posix_spawnattr_t at;
  posix_spawnattr_init(&at);
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP); /* setpgid(0, 0) before exec */
  posix_spawnattr_setpgroup(&at, 0);
  pid_t pid;
  int src = posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
  posix_spawnattr_destroy(&at);
  posix_spawn_file_actions_destroy(&fa);
  close(fd[1]);
  if (src != 0) {
    snprintf(row->msg, sizeof row->msg, "cannot start %s: %s", argv[0], strerror(src));
    close(fd[0]);
    fclose(errf);
    free(out);
    return;
  }
  size_t got = 0;
  double t0 = bench_now(CLOCK_MONOTONIC);
  int killed = 0;
  for (;;) {
    double left = limit - (bench_now(CLOCK_MONOTONIC) - t0);
    if (bm_signal_) {
      break;
    }
    if (left <= 0) {
      killed = 1;
      break;
    }
    struct pollfd p = {.fd = fd[0], .events = POLLIN};
    int pr = poll(&p, 1, (int)fmin(left * 1000 + 1, 1000));
    if (pr < 0 && errno != EINTR) {
      break;
    }
    if (pr <= 0) {
      continue;
    }
    if (got + 1 == cap && cap < BM_OUT_MAX) { /* the final state makes the JSON O(N) */
      char *more = realloc(out, 2 * cap);
      if (more) {
        out = more;
        cap *= 2;
      }
    }
    if (got + 1 == cap) {
      break; /* more than BM_OUT_MAX - 1 bytes (or no memory): not a run's JSON */
    }
    ssize_t r = read(fd[0], out + got, cap - 1 - got);
    if (r < 0 && errno == EINTR) {
      continue;
    }
    if (r <= 0) {
      break; /* end of the output */
    }
    got += (size_t)r;
  }
  out[got] = '\0';
  close(fd[0]);
  int status = 0, reaped = 0;
  while (!killed && !reaped && !bm_signal_) { /* the output ended: the launcher's exit */
    reaped = waitpid(pid, &status, 0) == pid;
    if (!reaped && errno != EINTR) {
      break;
    }
  }
  if (!reaped) { /* the time limit, or chs stopped by a signal */
    bm_end_group(pid, &status);
    killed = 1;
    if (bm_signal_) {
      snprintf(row->msg, sizeof row->msg, "ended: chs got signal %d", (int)bm_signal_);
    } else {
      snprintf(row->msg, sizeof row->msg, "killed at the time limit (%g s)", limit);
    }
  }
  double evals = 0;
  const char *mpi = strstr(out, "\"mpi\": {");
  if (!killed && WIFEXITED(status) && WEXITSTATUS(status) == 0 && mpi &&
      bm_json_number(mpi, "wall_s", &row->wall_s) == 0 &&
      bm_json_number(mpi, "comm_s", &row->comm_s) == 0 &&
      bm_json_number(mpi, "rhs_evals", &evals) == 0 && evals > 0) {
    row->ok = 1;
    row->rhs_evals = (long)evals;
  } else if (!killed) {
    char line[160] = "";
    rewind(errf);
    while (fgets(line, sizeof line, errf) && strncmp(line, "chs: ", 5) != 0) {
      line[0] = '\0'; /* the first message of chs, not the launcher's banner */
    }
    line[strcspn(line, "\n")] = '\0';
    snprintf(row->msg, sizeof row->msg, "failed (%s %d)%s%.150s",
             WIFEXITED(status) ? "exit status" : "signal",
             WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), line[0] ? ": " : "",
             line[0] ? line + 5 : "");
  }
  fclose(errf);
  free(out);
}

static void bm_print_table(const bm_row *rows, int nrows, long cores) {
  printf("%-15s %-6s %4s %9s %7s %12s %12s %7s %8s %10s %s\n", "problem", "scale", "K", "N", "RHS",
         "wall/RHS s", "comm/RHS s", "comm %", "speed-up", "efficiency", "");
  for (int i = 0; i < nrows; i++) {
    const bm_row *r = &rows[i];
    const char *over = r->oversubscribed ? " (oversubscribed)" : "";
    if (!r->ok) {
      printf("%-15s %-6s %4d %9ld   %s%s\n", r->problem, r->weak ? "weak" : "strong", r->ranks,
             r->n, r->msg, over);
      continue;
    }
    printf("%-15s %-6s %4d %9ld %7ld %12.4g %12.4g %7.1f %8.3f %10.3f%s\n", r->problem,
           r->weak ? "weak" : "strong", r->ranks, r->n, r->rhs_evals, r->wall_rhs, r->comm_rhs,
           100 * r->share, r->speedup, r->efficiency, over);
  }
  printf("\nspeed-up: against the smallest K (strong: K0 T0 / T; weak: K T0 / T, the work per RHS "
         "growing with K); efficiency = speed-up / K; %ld cores online\n",
         cores);
}

static void bm_print_json(const bm_row *rows, int nrows, long cores, const char *mpirun,
                          long steps) {
  printf("{\n  \"benchmark\": \"mpi\",\n  \"cores\": %ld,\n  \"mpirun\": ", cores);
  json_string(stdout, mpirun);
  printf(",\n  \"formulation\": \"dirac\",\n  \"method\": \"erk:rk4\",\n  \"h\": %g,\n  "
         "\"steps\": %ld,\n  \"rows\": [",
         BM_H, steps);
  for (int i = 0; i < nrows; i++) {
    const bm_row *r = &rows[i];
    printf("%s\n    {\"problem\": \"%s\", \"scaling\": \"%s\", \"ranks\": %d, \"N\": %ld, "
           "\"oversubscribed\": %s, \"status\": ",
           i ? "," : "", r->problem, r->weak ? "weak" : "strong", r->ranks, r->n,
           r->oversubscribed ? "true" : "false");
    json_string(stdout, r->ok ? "ok" : r->msg);
    bench_json_real("wall_s", r->wall_s, r->ok);
    bench_json_real("comm_s", r->comm_s, r->ok);
    bench_json_long("rhs_evals", r->rhs_evals, r->ok);
    bench_json_real("wall_per_rhs_s", r->wall_rhs, r->ok);
    bench_json_real("comm_per_rhs_s", r->comm_rhs, r->ok);
    bench_json_real("comm_share", r->share, r->ok);
    bench_json_real("speedup", r->speedup, isfinite(r->speedup));
    bench_json_real("efficiency", r->efficiency, isfinite(r->efficiency));
    printf("}");
  }
  printf("\n  ]\n}\n");
}

/* A row of --csv FILE (round-trip precision). */
static int bm_csv_row(FILE *fp, int i, const void *ctx) {
  const bm_row *r = (const bm_row *)ctx + i;
  int bad = fprintf(fp, "%s,%s,%d,%ld,%d,%s", r->problem, r->weak ? "weak" : "strong", r->ranks,
                    r->n, r->oversubscribed, r->ok ? "ok" : "failed") < 0;
  if (r->ok) {
    bad = bad || fprintf(fp, ",%.17g,%.17g,%ld,%.17g,%.17g,%.17g", r->wall_s, r->comm_s,
                         r->rhs_evals, r->wall_rhs, r->comm_rhs, r->share) < 0;
  } else {
    bad = bad || fprintf(fp, ",,,,,,") < 0;
  }
  if (isfinite(r->speedup)) {
    bad = bad || fprintf(fp, ",%.17g,%.17g\n", r->speedup, r->efficiency) < 0;
  } else {
    bad = bad || fprintf(fp, ",,\n") < 0;
  }
  return -bad;
}

int cmd_bench_mpi(int argc, char **argv) {
  cli_options o;
  int rc = cli_parse(CLI_BENCH_MPI, argc, argv, &o);
  if (rc != 0) {
    return rc == CLI_HELP_DONE ? CHS_EXIT_OK : rc;
  }
  if (cli_mpi_size() > 0) {
    return cli_usage_error("chs bench mpi launches mpirun itself: run it without mpirun");
  }
  int ranks[BM_MAX_RANKS], nranks = 0;
  if (bm_parse_ranks(o.ranks, ranks, &nranks) != 0) {
    return CHS_EXIT_USAGE;
  }
  int kmax = ranks[nranks - 1];
  if (o.n_strong < 4L * kmax) {
    return cli_usage_error("bad value for --n: '%ld' (at least 4 atoms per rank: %ld for %d ranks)",
                           o.n_strong, 4L * kmax, kmax);
  }
  if (o.n_per_rank * kmax > 10000000L) {
    return cli_usage_error("bad value for --n-per-rank: '%ld' (%d ranks: more than 10^7 atoms)",
                           o.n_per_rank, kmax);
  }
  double limit;
  int lrc = bench_limit_csv(&o, 120, &limit);
  if (lrc != 0) {
    return lrc;
  }
  if (o.mpirun && bm_check_launcher(o.mpirun) != 0) {
    return CHS_EXIT_USAGE;
  }
  if (!bm_have_mpi) {
    return cli_usage_error("this chs was built without MPI (CHS_MPI): chs bench mpi needs it");
  }
  const char *mpirun = o.mpirun ? o.mpirun : CHS_MPIEXEC;
  if (!o.mpirun && bm_check_launcher(mpirun) != 0) {
    return CHS_EXIT_USAGE;
  }
  char self[4096];
  ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
  if (sl <= 0 || (size_t)sl >= sizeof self - 1) {
    fprintf(stderr, "chs: bench mpi: cannot find this chs binary (/proc/self/exe)\n");
    return CHS_EXIT_NUMERIC;
  }
  self[sl] = '\0';
  if (o.dry_run) {
    return cli_dry_run_done("bench mpi");
  }
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  cores = cores > 0 ? cores : 1;
  static const char *const problems[2] = {"pendulum-chain", "chain"};
  int nrows = 4 * nranks;
  bm_row *rows = calloc((size_t)nrows, sizeof *rows);
  if (!rows) {
    return cli_out_of_memory();
  }
  struct sigaction old_sig[3];
  bm_catch_signals(old_sig);
  progress prog;
  progress_start(&prog, o.quiet, 1, "chs bench mpi", 0, nrows);
  char tf[32], h[32];
  snprintf(tf, sizeof tf, "%.17g", BM_H * (double)o.steps);
  snprintf(h, sizeof h, "%.17g", BM_H);
  for (int i = 0; i < nrows && !bm_signal_; i++) {
    bm_row *r = &rows[i];
    int p = i / (2 * nranks), k = i % nranks;
    r->problem = problems[p];
    r->weak = (i / nranks) % 2;
    r->ranks = ranks[k];
    r->n = r->weak ? o.n_per_rank * ranks[k] : o.n_strong;
    r->oversubscribed = ranks[k] > cores;
    r->wall_rhs = r->comm_rhs = r->share = r->speedup = r->efficiency = NAN;
    char spec[96], np[16], detail[128];
    snprintf(spec, sizeof spec, p == 0 ? "pendulum-chain:N=%ld" : "chain:N=%ld,cutoff=2.5", r->n);
    snprintf(np, sizeof np, "%d", r->ranks);
    snprintf(detail, sizeof detail, "%s %s K=%d N=%ld", r->problem, r->weak ? "weak" : "strong",
             r->ranks, r->n);
    progress_detail(&prog, detail);
    progress_update(&prog, i);
    const char *argv_run[32];
    int a = 0;
    argv_run[a++] = mpirun;
    if (r->oversubscribed) {
      argv_run[a++] = "--oversubscribe";
    }
    const char *rest[] = {"-np",           np,      self,       "run",     "--problem", spec,
                          "--formulation", "dirac", "--method", "erk:rk4", "--h",       h,
                          "--tf",          tf,      "--json",   NULL};
    for (int j = 0; rest[j]; j++) {
      argv_run[a++] = rest[j];
    }
    argv_run[a] = NULL;
    bm_launch((char *const *)argv_run, limit, r);
    if (r->ok) {
      r->wall_rhs = r->wall_s / (double)r->rhs_evals;
      r->comm_rhs = r->comm_s / (double)r->rhs_evals;
      r->share = r->wall_s > 0 ? r->comm_s / r->wall_s : 0;
    }
  }
  progress_end(&prog);
  bm_restore_signals(old_sig);
  if (bm_signal_) { /* the running launch's group is ended: chs ends by the signal, no report */
    free(rows);
    fprintf(stderr, "chs: bench mpi: stopped by signal %d, the running launch ended\n",
            (int)bm_signal_);
    raise(bm_signal_);
    return CHS_EXIT_NUMERIC; /* only if its restored disposition does not end the process */
  }
  int failed = 0;
  for (int i = 0; i < nrows; i++) { /* speed-up against the first K of the same series */
    bm_row *r = &rows[i], *b = &rows[i - i % nranks];
    failed += !r->ok;
    if (r->ok && b->ok && r->wall_rhs > 0) {
      r->speedup = (r->weak ? r->ranks : b->ranks) * b->wall_rhs / r->wall_rhs;
      r->efficiency = r->speedup / r->ranks;
    }
  }
  if (o.json) {
    bm_print_json(rows, nrows, cores, mpirun, o.steps);
  } else {
    printf("chs bench mpi: dirac/erk:rk4, h = %g, %ld steps per run, launched by %s; ", BM_H,
           o.steps, mpirun);
    printf("%s\n\n", kmax > cores
                         ? "K > cores: oversubscribed (ranks share cores; times are not scaling)"
                         : "every K within the cores");
    bm_print_table(rows, nrows, cores);
  }
  int status = failed ? CHS_EXIT_NUMERIC : CHS_EXIT_OK;
  if (o.csv) {
    int st = bench_csv(o.csv,
                       "problem,scaling,ranks,N,oversubscribed,status,wall_s,comm_s,rhs_evals,"
                       "wall_per_rhs_s,comm_per_rhs_s,comm_share,speedup,efficiency",
                       nrows, bm_csv_row, rows);
    status = st ? st : status;
  }
  for (int i = 0; i < nrows; i++) {
    if (!rows[i].ok) { /* the first failure named; every one is marked in its row */
      fprintf(stderr,
              "chs: bench mpi: %d of %d launches failed, the first (%s %s K=%d N=%ld): %s\n",
              failed, nrows, rows[i].problem, rows[i].weak ? "weak" : "strong", rows[i].ranks,
              rows[i].n, rows[i].msg);
      break;
    }
  }
  free(rows);
  return status;
}
