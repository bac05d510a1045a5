/* chs bench dae --scale: DAE versus stabilised-ODE cost as a function of size (docs/scale.md).
 *
 * For the chain molecule (coil init=2, thermal momenta kT = 0.1 seed 1, LJ cut off at 2.5 sigma)
 * and the pendulum chain at each N of --sizes, to t = --tf:
 *
 *   - the reference final state: rep_reference_cached (drivers/refcache.c), the Hamilton-Dirac
 *     formulation with Verner's 8(5,6) pair at rtol = atol = 1e-13, its error estimated against
 *     1e-12, cached on disk;
 *   - every candidate: the stabilised ODEs (every ERK table of `chs list methods` on dirac; CVODE
 *     BDF, dense and Newton-Krylov, on standard with --project momentum and both; CVODE Adams on
 *     dirac; the fixed-step symplectic methods rattle, lobatto:3, lobatto:4 on standard and
 *     gauss:2, gauss:3 on dirac with --project both) and the DAEs (dae-index3, dae-ggl,
 *     dae-index1 with ida:ls=spgmr, GMRES preconditioned by their Jacobian without hess V, and
 *     with ida:ls=klu on the full Jacobian). Adaptive ones sweep rtol = atol = 1e-3, 1e-4, ...
 * 1e-13 until the final error is at most the smallest target; fixed-step ones choose the number of
 * steps k (h = tf / k) by doubling and then bisection on k for each target, so that their error
 *     matches it;
 *   - each run in a forked child, which creates the problem, integrates and computes the error
 *     against the reference (this process creates no problem and integrates nothing itself: the
 *     checks of the sizes and the reference run in children too, so that every run starts as a
 *     `chs run` does; a run forked after a reference computed here inherited its freed heap, and
 *     at N = 10^5 rattle reported 147 MB of peak memory instead of 100 and 0.14 s of CPU instead
 *     of 0.19, with a third of the page faults); the child's peak resident set size (and its
 *     whole CPU time) come from wait4's rusage, so neither depends on the runs before it; the CPU
 *     time of the integration itself (CLOCK_PROCESS_CPUTIME_ID around CHSRun, the formulation's
 *     and the integrator's set-up included, the problem's creation not) is the cost; a run
 *     exceeding --time-limit seconds is killed (and the sweep of that candidate stops);
 *   - for each target error, the cheapest run (CPU time) at or below the target among the
 *     ODE candidates and among the DAE candidates (no interpolation: the chosen run's error is
 *     at most the target), with evaluations, Newton and Krylov iterations, CPU and wall time,
 *     peak memory, and the ratio ODE/DAE of the CPU times.
 *
 * A candidate that cannot run at a size (the dense linear solvers refuse more than 8000 states, an
 * ERK table without an embedding cannot adapt) is listed with the library's reason. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "child.h"
#include "mpi_cli.h"
#include "progress.h"
#include "bench.h"
#include "runlib.h"

#define DS_MAX_SIZES 8
#define DS_MAX_TARGETS 8
#define DS_MAX_CANDS 48
#define DS_MAX_POINTS 40 /* runs per candidate */
#define DS_REF_TOL 1e-13
#define DS_CHAIN_SPEC "chain:N=%ld,init=2,vel=thermal,kT=0.1,seed=1,cutoff=2.5"
#define DS_PCHAIN_SPEC "pendulum-chain:N=%ld"
#define DS_DOMINATED 20.0  /* a sweep stops when a run costs this many times a better point */
#define DS_STALL_WORK 1.25 /* a run doing this many times the evaluations of the one before */

typedef struct {
  char form[32], method[64];
  int project; /* CHS_PROJECT_* */
  int dae, fixed;
  char name[128]; /* form/method[/both|/momentum]: how reports name it */
} ds_cand;

/* What the child reports through its pipe. */
typedef struct {
  int rc;
  char msg[200];
  int input_error;
  double err, wall;
  double cpu; /* CPU time of the run (CLOCK_PROCESS_CPUTIME_ID around it): the cost compared */
  long steps, evals, newton, krylov;
  double rss0; /* resident bytes when the child started (inherited from the parent) */
} ds_child;

typedef struct {
  double tol; /* adaptive; 0 for fixed */
  long k;     /* fixed: steps (h = tf / k) */
  int ok;
  ds_child c;
  double cpu;  /* the run's CPU time (c.cpu): what "cheapest" means */
  double pcpu; /* the child process's CPU time (user + system, wait4): with problem set-up */
  double peak; /* the child's peak resident set size (bytes) */
} ds_point;

typedef struct {
  ds_cand cand;
  int npts;
  ds_point pts[DS_MAX_POINTS];
  char skipped[200]; /* "" or why the candidate has no point */
} ds_result;

typedef struct {
  long sizes[DS_MAX_SIZES];
  int nsizes;
  double targets[DS_MAX_TARGETS];
  int ntargets;
  int problems; /* bit 1: chain, bit 2: pendulum chain */
  double tf, time_limit;
  int json;
  const char *csv, *cache_dir;
  int no_cache, explicit_cache;
  int quiet; /* --quiet: no progress line */
} ds_opts;

static int cmp_desc(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x < y) - (x > y);
}

/* The options of `chs bench dae --scale` (parsed and range-checked by the option table,
 * drivers/cli_options.c): the lists, the defaults. */
static int ds_parse(const cli_options *c, ds_opts *o) {
  memset(o, 0, sizeof *o);
  o->json = c->json;
  o->quiet = c->quiet;
  o->no_cache = c->no_cache;
  o->cache_dir = c->cache_dir;
  o->explicit_cache = c->cache_dir != NULL;
  o->tf = c->have_tf ? c->tf : -1;
  int rc = bench_limit_csv(c, 20, &o->time_limit);
  if (rc != 0) {
    return rc;
  }
  o->csv = c->csv;
  if (c->sizes) {
    double s[DS_MAX_SIZES];
    if (cli_parse_list("--sizes", c->sizes, DS_MAX_SIZES, 0, 2, 1000000, s, &o->nsizes) != 0) {
      return CHS_EXIT_USAGE;
    }
    for (int k = 0; k < o->nsizes; k++) {
      o->sizes[k] = (long)s[k];
    }
  }
  if (c->targets && cli_parse_list("--targets", c->targets, DS_MAX_TARGETS, 1, 0, 1, o->targets,
                                   &o->ntargets) != 0) {
    return CHS_EXIT_USAGE;
  }
  if (!(o->problems = cli_scale_problems(c->scale_problems))) {
    return CHS_EXIT_USAGE;
  }
  if (!o->nsizes) {
    o->sizes[0] = 100;
    o->sizes[1] = 1000;
    o->sizes[2] = 10000;
    o->nsizes = 3;
  }
  if (!o->ntargets) {
    for (int k = 0; k < 5; k++) {
      o->targets[k] = pow(10, -4 - k);
    }
    o->ntargets = 5;
  }
  qsort(o->targets, (size_t)o->ntargets, sizeof *o->targets, cmp_desc);
  o->tf = o->tf > 0 ? o->tf : 0.1;
  return 0;
}

/* ------------------------------------------------------------------ candidates */

static void ds_add(ds_cand *c, int *n, const char *form, const char *method, int project, int dae,
                   int fixed) {
  if (*n >= DS_MAX_CANDS) {
    return;
  }
  ds_cand *k = &c[(*n)++];
  snprintf(k->form, sizeof k->form, "%s", form);
  snprintf(k->method, sizeof k->method, "%s", method);
  k->project = project;
  k->dae = dae;
  k->fixed = fixed;
  snprintf(k->name, sizeof k->name, "%s/%s%s", form, method,
           project == CHS_PROJECT_BOTH       ? "/both"
           : project == CHS_PROJECT_MOMENTUM ? "/momentum"
                                             : "");
}

static int ds_candidates(ds_cand *c) {
  int n = 0;
  const CHSIntegratorOps *erk = CHSIntegratorRegistry_Find("erk");
  for (int i = 0; erk && erk->method_name && erk->method_name(i); i++) {
    const char *name = erk->method_name(i);
    if (strncmp(name, "ARKODE_", 7) == 0) {
      char m[64];
      snprintf(m, sizeof m, "erk:%s", name);
      ds_add(c, &n, "dirac", m, 0, 0, 0);
    }
  }
  const int proj[2] = {CHS_PROJECT_MOMENTUM, CHS_PROJECT_BOTH};
  for (int k = 0; k < 2; k++) {
    ds_add(c, &n, "standard", "cvode:bdf", proj[k], 0, 0);
    ds_add(c, &n, "standard", "cvode:bdf:ls=spgmr", proj[k], 0, 0);
  }
  ds_add(c, &n, "dirac", "cvode:adams", 0, 0, 0);
  ds_add(c, &n, "standard", "rattle", 0, 0, 1);
  ds_add(c, &n, "standard", "lobatto:3", 0, 0, 1);
  ds_add(c, &n, "standard", "lobatto:4", 0, 0, 1);
  ds_add(c, &n, "dirac", "gauss:2", CHS_PROJECT_BOTH, 0, 1);
  ds_add(c, &n, "dirac", "gauss:3", CHS_PROJECT_BOTH, 0, 1);
  /* IDA: GMRES preconditioned by the DAE Jacobian without hess V (linear in N on the coil),
   * then KLU on the full Jacobian; the former first, so that the dominance rule can stop the
   * latter's sweeps early where its factorisations cost most */
  const char *const dae[3] = {"dae-index3", "dae-ggl", "dae-index1"};
  for (int k = 0; k < 2; k++) {
    for (int j = 0; j < 3; j++) {
      ds_add(c, &n, dae[j], k ? "ida:ls=klu" : "ida:ls=spgmr", 0, 1, 0);
    }
  }
  return n;
}

/* ------------------------------------------------------------------ one run, forked */

/* The sweeps of one problem at one size. */
typedef struct {
  const char *spec, *label;
  double tf, limit;
  const double *ref, *targets;
  int ntargets;
  ds_result *res;
  int nres;
  progress *prog; /* the sweep's progress line (drivers/progress.h): candidates done */
} ds_ctx;

/* A run of candidate k: steps > 0 fixed steps, else tolerance tol. */
typedef struct {
  const ds_ctx *x;
  const ds_cand *k;
  double tol;
  long steps;
} ds_job;

static void ds_child_run(void *arg, void *buf) {
  const ds_job *j = arg;
  const ds_cand *k = j->k;
  double tf = j->x->tf;
  const double *ref = j->x->ref;
  ds_child *out = buf;
  memset(out, 0, sizeof *out);
  out->rss0 = cli_rss_now();
  CHSError err;
  CHSError_Clear(&err);
  CHSProblem prob = NULL;
  out->rc = CHSProblem_Create(j->x->spec, &prob, &err);
  long n = (long)ref[0];
  double *z = out->rc == 0 ? calloc(1 + 2 * (size_t)n, sizeof *z) : NULL;
  if (out->rc == 0 && !z) {
    out->rc = CHS_ERR_MEM;
    snprintf(err.msg, sizeof err.msg, "out of memory");
  }
  if (out->rc == 0) {
    z[0] = (double)n;
    CHSRunOptions o = {
        .method = k->method,
        .ctl = {.h = j->steps ? tf / (double)j->steps : 0, .rtol = j->tol, .atol = j->tol},
        .tf = tf,
        .every = 1000000000L,
        .project = k->project};
    CHSRunSummary sum;
    memset(&sum, 0, sizeof sum);
    double t0 = bench_now(CLOCK_PROCESS_CPUTIME_ID);
    out->rc = rep_run(prob, k->form, o, rep_final_monitor, z, &sum, &err);
    out->cpu = bench_now(CLOCK_PROCESS_CPUTIME_ID) - t0;
    out->steps = sum.stats.steps;
    out->evals = sum.rhs_evals;
    out->newton = sum.stats.nonlin_iters;
    out->krylov = sum.stats.lin_iters;
    out->wall = sum.wall_s;
    double d = rep_final_distance(z, ref);
    out->err = out->rc == 0 && isfinite(d) ? d : INFINITY;
  }
  if (out->rc != 0) {
    out->input_error = CHSError_IsInput(out->rc);
    snprintf(out->msg, sizeof out->msg, "%.190s", err.msg);
  }
  free(z);
  CHSProblem_Destroy(&prob);
}

/* One run in a child process, shown on the progress line: 0 and the point filled (ok or not), or
 * -1 (fork/pipe failed). */
static int ds_run(const ds_ctx *x, const ds_cand *k, double tol, long steps, ds_point *pt) {
  char detail[160];
  if (steps) {
    snprintf(detail, sizeof detail, "%s, %ld steps", k->name, steps);
  } else {
    snprintf(detail, sizeof detail, "%s, tol %.0e", k->name, tol);
  }
  progress_detail(x->prog, detail);
  progress_update(x->prog, x->nres - 1);
  memset(pt, 0, sizeof *pt);
  pt->tol = tol;
  pt->k = steps;
  ds_job job = {x, k, tol, steps};
  char why[sizeof pt->c.msg];
  struct rusage ru;
  int crc = bench_child(ds_child_run, &job, &pt->c, sizeof pt->c, x->limit, &ru, why, sizeof why);
  if (crc < 0) {
    return -1;
  }
  pt->pcpu = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
             (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
  pt->peak = (double)ru.ru_maxrss * 1024;
  if (crc > 0) {
    memset(&pt->c, 0, sizeof pt->c);
    pt->c.rc = CHS_ERR_SOLVER;
    memcpy(pt->c.msg, why, sizeof why);
    pt->c.err = INFINITY;
  }
  pt->cpu = pt->c.cpu;
  pt->ok = pt->c.rc == 0 && isfinite(pt->c.err);
  return 0;
}

/* ------------------------------------------------------------------ sweeps */

/* Record a point; 1 when the run failed. */
static int ds_record(ds_result *r, const ds_point *pt) {
  if (r->npts < DS_MAX_POINTS) {
    r->pts[r->npts++] = *pt;
  }
  if (!pt->ok) {
    snprintf(r->skipped, sizeof r->skipped, "%s%.180s",
             pt->c.input_error ? "" : "failed: ", pt->c.msg);
    return 1;
  }
  return 0;
}

/* A failure that a smaller tolerance or step does not cure: refused input, the time limit. */
static int ds_final_failure(const ds_point *pt) {
  return pt->c.input_error || strstr(pt->c.msg, "time limit") != NULL;
}

/* After a sweep: the reason stays only when no run of the candidate succeeded. */
static void ds_done(ds_result *r) {
  for (int j = 0; j < r->npts; j++) {
    if (r->pts[j].ok) {
      r->skipped[0] = '\0';
      return;
    }
  }
  if (!r->skipped[0]) {
    snprintf(r->skipped, sizeof r->skipped, "no run");
  }
}

/* 1 when another candidate of the same side has a point at least as accurate as pt and
 * DS_DOMINATED times cheaper: tightening pt's candidate further will not win. */
static int ds_dominated(const ds_ctx *x, const ds_result *self, const ds_point *pt) {
  for (int i = 0; i < x->nres; i++) {
    const ds_result *o = &x->res[i];
    if (o == self || o->cand.dae != self->cand.dae) {
      continue;
    }
    for (int j = 0; j < o->npts; j++) {
      if (o->pts[j].ok && o->pts[j].c.err <= pt->c.err && DS_DOMINATED * o->pts[j].cpu < pt->cpu) {
        return 1;
      }
    }
  }
  return 0;
}

static int ds_sweep_adaptive(ds_ctx *x, ds_result *r) {
  double last = x->targets[x->ntargets - 1], prev = INFINITY;
  long prev_evals = 0;
  int stalled = 0;
  for (int e = 3; e <= 13; e++) {
    double tol = pow(10, -e);
    ds_point pt;
    if (ds_run(x, &r->cand, tol, 0, &pt) != 0) {
      return -1;
    }
    if (ds_record(r, &pt)) {
      if (ds_final_failure(&pt)) {
        break;
      }
      continue; /* e.g. a Newton failure at a loose tolerance: the next one may run */
    }
    /* the error no longer falls with the tolerance although the run works harder (three times by
     * less than 2x, each with DS_STALL_WORK times the evaluations of the run before): its floor.
     * A run with about the same evaluations as the one before is the same run, its steps not yet
     * limited by the tolerance (IDA on the coil at 10^4 for tf = 0.01: errors 2.3e-5 and 11
     * steps for rtol 1e-3 .. 1e-5); it neither counts nor resets. */
    if (!(pt.c.err > 0.5 * prev)) {
      stalled = 0;
    } else if ((double)pt.c.evals >= DS_STALL_WORK * (double)prev_evals) {
      stalled++;
    }
    prev = pt.c.err;
    prev_evals = pt.c.evals;
    if (pt.c.err <= last || stalled >= 3 || ds_dominated(x, r, &pt)) {
      break;
    }
  }
  ds_done(r);
  return 0;
}

/* Fixed steps: for each target (descending), double k (h = tf / k) from the last passing k until
 * the error meets the target, then bisect k geometrically between the last failing and the
 * passing k (3 times). A run that fails (the stage iteration diverges at a large h) is followed
 * by one with 4 k. */
static int ds_sweep_fixed(ds_ctx *x, ds_result *r) {
  long k = 4, kfail = 0;
  for (int t = 0; t < x->ntargets; t++) {
    double target = x->targets[t];
    long kpass = 0;
    while (r->npts < DS_MAX_POINTS && k <= 100000000L) {
      ds_point pt;
      const ds_point *seen = NULL;
      for (int j = 0; j < r->npts && !seen; j++) {
        seen = r->pts[j].ok && r->pts[j].k == k ? &r->pts[j] : NULL;
      }
      if (seen) { /* the passing run of the previous target */
        pt = *seen;
      } else {
        if (ds_run(x, &r->cand, 0, k, &pt) != 0) {
          return -1;
        }
      }
      if (!seen && ds_record(r, &pt)) {
        if (ds_final_failure(&pt)) {
          ds_done(r);
          return 0;
        }
        kfail = k;
        k *= 4;
        continue;
      }
      if (pt.c.err <= target) {
        kpass = k;
        break;
      }
      if (ds_dominated(x, r, &pt)) {
        ds_done(r);
        return 0;
      }
      kfail = k;
      k *= 2;
    }
    if (!kpass) {
      break;
    }
    for (int b = 0; b < 3 && kfail && kpass - kfail > 1 && r->npts < DS_MAX_POINTS; b++) {
      long km = (long)floor(sqrt((double)kfail * (double)kpass));
      km = km <= kfail ? kfail + 1 : km >= kpass ? kpass - 1 : km;
      ds_point pt;
      if (ds_run(x, &r->cand, 0, km, &pt) != 0) {
        return -1;
      }
      if (ds_record(r, &pt) && ds_final_failure(&pt)) {
        break;
      }
      if (pt.ok && pt.c.err <= target) {
        kpass = km;
      } else {
        kfail = km;
      }
    }
    k = kpass;
  }
  ds_done(r);
  return 0;
}

/* The cheapest point (CPU time) of side dae with error <= target: its result index and point. */
static const ds_point *ds_best(const ds_ctx *x, int dae, double target, int *who) {
  const ds_point *best = NULL;
  *who = -1;
  for (int i = 0; i < x->nres; i++) {
    if (x->res[i].cand.dae != dae) {
      continue;
    }
    for (int j = 0; j < x->res[i].npts; j++) {
      const ds_point *p = &x->res[i].pts[j];
      if (p->ok && p->c.err <= target && (!best || p->cpu < best->cpu)) {
        best = p;
        *who = i;
      }
    }
  }
  return best;
}

/* ------------------------------------------------------------------ output */

typedef struct {
  int first_json;
  out_file csv;
  int csv_open, csv_bad;
} ds_out;

static void ds_json_point(const char *key, const ds_ctx *x, const ds_point *p, int who, double tf) {
  printf("\"%s\": ", key);
  if (!p) {
    printf("null");
    return;
  }
  printf("{\"config\": ");
  json_string(stdout, x->res[who].cand.name);
  bench_json_real("tol", p->tol, p->tol > 0);
  bench_json_long("steps_fixed", p->k, p->k > 0);
  bench_json_real("h", p->k > 0 ? tf / (double)p->k : 0, p->k > 0);
  bench_json_real("error", p->c.err, 1);
  printf(", \"steps\": %ld, \"evals\": %ld, \"newton_iters\": %ld, \"krylov_iters\": %ld, "
         "\"cpu_s\": ",
         p->c.steps, p->c.evals, p->c.newton, p->c.krylov);
  json_real(stdout, p->cpu, 1);
  bench_json_real("process_cpu_s", p->pcpu, 1);
  bench_json_real("wall_s", p->c.wall, 1);
  bench_json_real("peak_rss_bytes", p->peak, 1);
  bench_json_real("rss_growth_bytes", p->peak - p->c.rss0, isfinite(p->c.rss0));
  printf("}");
}

static void ds_csv_point(ds_out *out, const char *problem, long N, double target, const char *side,
                         const ds_ctx *x, const ds_point *p, int who, double ratio, double tf,
                         int checkable) {
  if (!out->csv_open || out->csv_bad) {
    return;
  }
  FILE *f = out->csv.fp;
  int bad = fprintf(f, "%s,%ld,%.17g,%s,%s", problem, N, target, side,
                    p           ? x->res[who].cand.name
                    : checkable ? "none"
                                : "below-reference-error") < 0;
  if (p) {
    bad = bad || fprintf(f, ",%.17g,%ld,%.17g,%.17g,%ld,%ld,%ld,%ld,%.17g,%.17g,%.17g", p->tol,
                         p->k, p->k > 0 ? tf / (double)p->k : 0.0, p->c.err, p->c.steps, p->c.evals,
                         p->c.newton, p->c.krylov, p->cpu, p->c.wall, p->peak) < 0;
  } else {
    bad = bad || fprintf(f, ",,,,,,,,,,,") < 0;
  }
  if (isfinite(ratio)) {
    bad = bad || fprintf(f, ",%.17g\n", ratio) < 0;
  } else {
    bad = bad || fprintf(f, ",\n") < 0;
  }
  out->csv_bad = bad ? (errno ? errno : EIO) : 0;
}

static void ds_report(const ds_ctx *x, const char *problem, long N, long nstates,
                      const rep_reference_info *ri, const ds_opts *o, ds_out *out) {
  if (o->json) {
    printf("%s\n    {\"problem\": ", out->first_json ? "" : ",");
    out->first_json = 0;
    json_string(stdout, x->spec);
    printf(", \"N\": %ld, \"states\": %ld, \"reference\": {\"command\": ", N, nstates);
    json_string(stdout, ri->command);
    bench_json_string("source", ri->source);
    bench_json_real("est_error", ri->est_error, ri->est_error >= 0);
    printf("},\n     \"skipped\": [");
    int first = 1;
    for (int i = 0; i < x->nres; i++) {
      if (x->res[i].skipped[0]) {
        printf("%s{\"config\": ", first ? "" : ", ");
        json_string(stdout, x->res[i].cand.name);
        bench_json_string("reason", x->res[i].skipped);
        printf("}");
        first = 0;
      }
    }
    printf("],\n     \"runs\": [");
    first = 1;
    for (int i = 0; i < x->nres; i++) {
      for (int j = 0; j < x->res[i].npts; j++) {
        const ds_point *p = &x->res[i].pts[j];
        printf("%s\n       {\"config\": ", first ? "" : ",");
        json_string(stdout, x->res[i].cand.name);
        bench_json_real("tol", p->tol, p->tol > 0);
        bench_json_long("steps_fixed", p->k, p->k > 0);
        printf(", \"ok\": %s, \"error\": ", p->ok ? "true" : "false");
        json_real(stdout, p->c.err, p->ok);
        bench_json_real("cpu_s", p->cpu, 1);
        printf("}");
        first = 0;
      }
    }
    printf("],\n     \"targets\": [");
  } else {
    printf("\n%s (N = %ld, %ld states), t = %g; reference: %s (%s, est. error %.1e)\n", x->spec, N,
           nstates, o->tf, ri->command, ri->source, ri->est_error);
    for (int i = 0; i < x->nres; i++) {
      if (x->res[i].skipped[0]) {
        printf("  skipped %-44s %s\n", x->res[i].cand.name, x->res[i].skipped);
      }
    }
    printf("%8s %-4s %-44s %10s %9s %9s %8s %8s %9s %9s %9s %8s\n", "target", "side", "cheapest",
           "tol | h", "error", "evals", "Newton", "Krylov", "CPU s", "wall s", "peak MB",
           "ODE/DAE");
  }
  for (int t = 0; t < x->ntargets; t++) {
    double target = x->targets[t];
    /* a target below the reference's estimated error cannot be checked against it: no run is
     * chosen there (its measured error is uncertain by more than the target) */
    int checkable = !(ri->est_error > target);
    int who[2] = {0, 0};
    const ds_point *p[2] = {checkable ? ds_best(x, 0, target, &who[0]) : NULL,
                            checkable ? ds_best(x, 1, target, &who[1]) : NULL};
    double ratio = p[0] && p[1] && p[1]->cpu > 0 ? p[0]->cpu / p[1]->cpu : NAN;
    double wratio = p[0] && p[1] && p[1]->c.wall > 0 ? p[0]->c.wall / p[1]->c.wall : NAN;
    if (o->json) {
      printf("%s\n       {\"target_error\": ", t ? "," : "");
      json_real(stdout, target, 1);
      printf(", \"checkable\": %s, ", checkable ? "true" : "false");
      ds_json_point("ode", x, p[0], who[0], o->tf);
      printf(",\n        ");
      ds_json_point("dae", x, p[1], who[1], o->tf);
      printf(",\n        \"cpu_ratio_ode_over_dae\": ");
      json_real(stdout, ratio, isfinite(ratio));
      bench_json_real("wall_ratio_ode_over_dae", wratio, isfinite(wratio));
      printf("}");
    } else {
      for (int s = 0; s < 2; s++) {
        char name[128] = "none reaches it", th[32] = "", rs[32] = "";
        if (!checkable) {
          snprintf(name, sizeof name, "below the reference's est. error %.1e", ri->est_error);
        }
        if (p[s]) {
          snprintf(name, sizeof name, "%s", x->res[who[s]].cand.name);
          if (p[s]->k > 0) {
            snprintf(th, sizeof th, "h %.3g", o->tf / (double)p[s]->k);
          } else {
            snprintf(th, sizeof th, "%.0e", p[s]->tol);
          }
        }
        if (s == 1 && isfinite(ratio)) {
          snprintf(rs, sizeof rs, "%.3g", ratio);
        }
        if (p[s]) {
          printf("%8.0e %-4s %-44s %10s %9.2e %9ld %8ld %8ld %9.3g %9.3g %9.1f %8s\n", target,
                 s ? "DAE" : "ODE", name, th, p[s]->c.err, p[s]->c.evals, p[s]->c.newton,
                 p[s]->c.krylov, p[s]->cpu, p[s]->c.wall, p[s]->peak / 1048576.0, rs);
        } else {
          printf("%8.0e %-4s %-44s\n", target, s ? "DAE" : "ODE", name);
        }
      }
    }
    ds_csv_point(out, problem, N, target, "ode", x, p[0], who[0], ratio, o->tf, checkable);
    ds_csv_point(out, problem, N, target, "dae", x, p[1], who[1], ratio, o->tf, checkable);
  }
  if (o->json) {
    printf("]}");
  }
  fflush(stdout);
}

/* ------------------------------------------------------------------ the reference, forked */

typedef struct {
  const char *spec, *cache_dir;
  double tf;
  int quiet;
} ds_ref_job;

/* What the reference's child sends back: its status and message, rep_reference_cached's info and
 * the final state (1 + 2 n: n, q, p). */
typedef struct {
  int rc;
  char msg[CHS_ERROR_MSG_LEN];
  rep_reference_info info;
  double z[];
} ds_ref_out;

static void ds_ref_child(void *arg, void *buf) {
  const ds_ref_job *j = arg;
  ds_ref_out *out = buf;
  long n = (long)out->z[0];
  CHSError err;
  CHSError_Clear(&err);
  CHSProblem prob = NULL;
  out->rc = CHSProblem_Create(j->spec, &prob, &err);
  if (out->rc == 0 && CHSProblem_GetDims(prob)->n != n) {
    out->rc = CHS_ERR_SOLVER;
    snprintf(err.msg, sizeof err.msg, "%s: %ld coordinates, not %ld", j->spec,
             (long)CHSProblem_GetDims(prob)->n, n);
  }
  if (out->rc == 0) {
    out->rc = rep_reference_cached(prob, j->spec, j->tf, DS_REF_TOL, j->cache_dir, j->quiet, out->z,
                                   &out->info, &err);
  }
  snprintf(out->msg, sizeof out->msg, "%s", err.msg);
  CHSProblem_Destroy(&prob);
}

/* rep_reference_cached for spec (n coordinates) in a child: ref (1 + 2 n) and ri filled, or the
 * child's failure in err. */
static int ds_reference(const char *spec, long n, const ds_opts *o, const char *cache_dir,
                        double *ref, rep_reference_info *ri, CHSError *err) {
  size_t len = offsetof(ds_ref_out, z) + (1 + 2 * (size_t)n) * sizeof(double);
  ds_ref_out *out = calloc(1, len);
  if (!out) {
    return cli_error(err, CHS_ERR_MEM, "out of memory");
  }
  out->z[0] = (double)n;
  ds_ref_job job = {spec, cache_dir, o->tf, o->quiet};
  if (cli_child_run(ds_ref_child, &job, out, len, out->msg, sizeof out->msg) != 0) {
    out->rc = CHS_ERR_SOLVER;
  }
  int rc = out->rc;
  if (rc == 0) {
    memcpy(ref, out->z, (1 + 2 * (size_t)n) * sizeof *ref);
    *ri = out->info;
  } else {
    cli_error(err, rc, "%s", out->msg);
  }
  free(out);
  return rc;
}

/* ------------------------------------------------------------------ one problem at one size */

static int ds_problem(const char *problem, const char *fmt, long N, long n, const ds_opts *o,
                      const char *cache_dir, ds_out *out) {
  char spec[160], label[200];
  snprintf(spec, sizeof spec, fmt, N);
  snprintf(label, sizeof label, "%s N=%ld", problem, N);
  CHSError err;
  CHSError_Clear(&err);
  double *ref = calloc(1 + 2 * (size_t)n, sizeof *ref);
  ds_result *res = calloc(DS_MAX_CANDS, sizeof *res);
  ds_cand cand[DS_MAX_CANDS];
  if (!ref || !res) {
    free(ref);
    free(res);
    return cli_out_of_memory();
  }
  ref[0] = (double)n;
  int nc = ds_candidates(cand);
  rep_reference_info ri;
  memset(&ri, 0, sizeof ri);
  /* under mpirun (docs/mpi.md): the reference by rank 0 (its cache, its own progress line),
   * broadcast; the candidates spread over the ranks (candidate c on rank c mod K, its runs forked
   * there), results shared */
  int rc = cli_mpi_agree(0);
  if (rc == 0 && cli_mpi_rank() == 0 && ds_reference(spec, n, o, cache_dir, ref, &ri, &err) != 0) {
    fprintf(stderr, "chs: %s: reference run failed: %s\n", spec, err.msg);
    rc = CHS_EXIT_NUMERIC;
  }
  if ((rc = cli_mpi_agree(rc)) != 0) {
    free(ref);
    free(res);
    return rc;
  }
  progress prog;
  progress_start(&prog, o->quiet, 1, label, 0, nc);
  cli_mpi_bcast(ref, (1 + 2 * (size_t)n) * sizeof *ref, 0);
  cli_mpi_bcast(&ri, sizeof ri, 0);
  if (ri.write_error[0]) {
    progress_interrupt();
    fprintf(stderr, "chs: reference not cached: %s\n", ri.write_error);
  }
  ds_ctx x = {.spec = spec,
              .label = label,
              .tf = o->tf,
              .limit = o->time_limit,
              .ref = ref,
              .targets = o->targets,
              .ntargets = o->ntargets,
              .res = res,
              .nres = 0,
              .prog = &prog};
  for (int c = 0; c < nc && rc == 0; c++) {
    res[c].cand = cand[c];
    x.nres = c + 1;
    if (cli_sweep_mine(c)) {
      rc = cand[c].fixed ? ds_sweep_fixed(&x, &res[c]) : ds_sweep_adaptive(&x, &res[c]);
    }
  }
  progress_end(&prog);
  if (rc != 0) {
    fprintf(stderr, "chs: cannot start a process for a run: %s\n", strerror(errno));
    rc = CHS_EXIT_NUMERIC;
  }
  if ((rc = cli_mpi_agree(rc)) == 0) {
    cli_sweep_share(res, sizeof *res, nc, 0);
    ds_report(&x, problem, N, 2 * n, &ri, o, out);
  }
  free(ref);
  free(res);
  return rc;
}

int cmd_bench_dae_scale(const cli_options *c) {
  ds_opts o;
  int rc = ds_parse(c, &o);
  if (rc != 0) {
    return rc;
  }
  /* every problem spec valid before any work, checked in a child (this process stays small);
   * n[p - 1][s]: the coordinates of problem p (1 chain, 2 pendulum chain) at size s */
  char specs[2 * DS_MAX_SIZES][160];
  const char *list[2 * DS_MAX_SIZES];
  long n[2][DS_MAX_SIZES] = {{0}}, dims[2 * DS_MAX_SIZES], *slot[2 * DS_MAX_SIZES];
  int count = 0;
  for (int p = 1; p <= 2; p++) {
    for (int s = 0; (o.problems & p) && s < o.nsizes; s++, count++) {
      snprintf(specs[count], sizeof specs[0], p == 1 ? DS_CHAIN_SPEC : DS_PCHAIN_SPEC, o.sizes[s]);
      list[count] = specs[count];
      slot[count] = &n[p - 1][s];
    }
  }
  rc = cli_check_problems(list, count, dims);
  if (rc != 0) {
    return rc;
  }
  for (int k = 0; k < count; k++) {
    *slot[k] = dims[k];
  }
  char cache_buf[4096];
  const char *cache_dir = o.no_cache ? NULL : o.cache_dir;
  if (!o.no_cache && !cache_dir) {
    cache_dir = rep_default_cache_dir(cache_buf, sizeof cache_buf);
  }
  if (o.explicit_cache && cli_check_output_dir("--cache-dir", cache_dir, !c->dry_run) != 0) {
    return CHS_EXIT_USAGE;
  }
  if (c->dry_run) {
    return cli_dry_run_done("bench dae --scale");
  }
  ds_out out = {.first_json = 1};
  CHSError err;
  CHSError_Clear(&err);
  if (o.csv && cli_mpi_rank() == 0) { /* under mpirun: rank 0 writes */
    if (out_file_open(&out.csv, o.csv, &err) != 0) {
      return cli_fail(&err);
    }
    out.csv_open = 1;
    if (fprintf(out.csv.fp, "problem,N,target_error,side,config,tol,steps_fixed,h,error,steps,"
                            "evals,newton_iters,krylov_iters,cpu_s,wall_s,peak_rss_bytes,"
                            "cpu_ratio_ode_over_dae\n") < 0) {
      out.csv_bad = errno ? errno : EIO;
    }
  }
  if (o.json) {
    printf("{\n  \"benchmark\": \"dae-scale\",\n  \"tf\": ");
    json_real(stdout, o.tf, 1);
    printf(
        ",\n  \"selection\": \"cheapest run (CPU time of the integration) with error <= target\",\n"
        "  \"error\": \"|(q,p)(tf) - reference|_2\",\n  \"results\": [");
  } else {
    printf("DAE (IDA + KLU) versus stabilised ODE: for each final error, the cheapest run (CPU "
           "time of the integration)\nwith |(q,p)(tf) - reference|_2 <= target; ODE/DAE: ratio of "
           "their CPU times\n");
  }
  for (int s = 0; s < o.nsizes && rc == 0; s++) {
    if (o.problems & 1) {
      rc = ds_problem("chain", DS_CHAIN_SPEC, o.sizes[s], n[0][s], &o, cache_dir, &out);
    }
    if (rc == 0 && (o.problems & 2)) {
      rc = ds_problem("pendulum-chain", DS_PCHAIN_SPEC, o.sizes[s], n[1][s], &o, cache_dir, &out);
    }
  }
  if (o.json) {
    printf("\n  ]\n}\n");
  }
  if (out.csv_open) {
    if (rc != 0 || out.csv_bad) {
      out_file_abort(&out.csv);
      if (out.csv_bad) {
        fprintf(stderr, "chs: could not write %s: %s\n", o.csv, strerror(out.csv_bad));
        rc = rc ? rc : CHS_EXIT_NUMERIC;
      }
    } else if (out_file_commit(&out.csv, &err) != 0) {
      fprintf(stderr, "chs: %s\n", err.msg);
      rc = CHS_EXIT_NUMERIC;
    }
  }
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "chs: could not write the standard output: %s\n", strerror(errno));
    rc = rc ? rc : CHS_EXIT_NUMERIC;
  }
  return rc;
}
