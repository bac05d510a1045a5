/* Option parsing shared by `chs run` and `chs compare`, and one integration. */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <sundials/sundials_context.h>
#include "cli.h"
#include "../src/compat.h"

int cli_exit_status(int code) {
  if (code == CHS_SUCCESS) {
    return CHS_EXIT_OK;
  }
  return CHSError_IsInput(code) ? CHS_EXIT_USAGE : CHS_EXIT_NUMERIC;
}

long cli_peak_rss_kb(void) {
  long kb = 0;
  FILE *f = fopen("/proc/self/status", "r"); /* Linux: VmHWM, this address space's peak */
  if (f) {
    char line[256];
    while (fgets(line, sizeof line, f) && sscanf(line, "VmHWM: %ld kB", &kb) != 1) {
    }
    fclose(f);
  }
  struct rusage ru;
  if (kb <= 0 && getrusage(RUSAGE_SELF, &ru) == 0) {
    kb = ru.ru_maxrss; /* Linux and BSD: KiB; after exec, at least the parent's size at fork */
  }
  return kb > 0 ? kb : 0;
}

int cli_fail(const CHSError *err) {
  fprintf(stderr, "chs: ");
  cli_fputs_safe(stderr, err->msg[0] ? err->msg : CHSError_Name(err->code));
  fprintf(stderr, "\n");
  return cli_exit_status(err->code);
}

int cli_fail_code(int code, const char *msg) {
  CHSError err;
  CHSError_Clear(&err);
  err.code = code;
  snprintf(err.msg, sizeof err.msg, "%s", msg);
  return cli_fail(&err);
}

int cli_error(CHSError *err, int code, const char *fmt, ...) {
  err->code = code;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  va_end(ap);
  return code;
}

int cli_out_of_memory(void) {
  fprintf(stderr, "chs: out of memory\n");
  return CHS_EXIT_NUMERIC;
}

int cli_utf8_seq_len(const char *s) {
  const unsigned char *u = (const unsigned char *)s;
  unsigned long cp, min;
  int n;
  if (u[0] < 0x80) {
    return u[0] ? 1 : 0;
  } else if ((u[0] & 0xe0) == 0xc0) {
    n = 2, min = 0x80, cp = u[0] & 0x1f;
  } else if ((u[0] & 0xf0) == 0xe0) {
    n = 3, min = 0x800, cp = u[0] & 0x0f;
  } else if ((u[0] & 0xf8) == 0xf0) {
    n = 4, min = 0x10000, cp = u[0] & 0x07;
  } else {
    return 0;
  }
  for (int i = 1; i < n; i++) {
    if ((u[i] & 0xc0) != 0x80) {
      return 0;
    }
    cp = cp << 6 | (u[i] & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp < 0xa0)) {
    return 0; /* overlong, beyond Unicode, a surrogate, or a C1 control (CSI 0x9b) */
  }
  return n;
}

void cli_fputs_safe(FILE *out, const char *s) {
  while (*s) {
    int n = cli_utf8_seq_len(s);
    unsigned char c = (unsigned char)*s;
    if (n == 0 || (n == 1 && (c < 0x20 || c == 0x7f))) {
      fprintf(out, "\\x%02x", c); /* control byte or not UTF-8: never raw to a terminal */
      s++;
    } else {
      fwrite(s, 1, (size_t)n, out);
      s += n;
    }
  }
}

int cli_usage_error(const char *fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "chs: ");
  cli_fputs_safe(stderr, msg);
  fprintf(stderr, "\n");
  return CHS_EXIT_USAGE;
}
#define usage_error cli_usage_error

int cli_parse_real(const char *opt, const char *s, double *x) {
  char *end = NULL;
  errno = 0;
  *x = strtod(s, &end);
  if (end == s || *end != '\0' || isspace((unsigned char)s[0]) || errno == ERANGE ||
      !isfinite(*x)) {
    return usage_error("bad value for %s: '%.200s' is not a finite number (or out of range)", opt,
                       s);
  }
  return 0;
}

int cli_parse_long_range(const char *opt, const char *s, long lo, long hi, long *x) {
  char *end = NULL;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (end == s || *end != '\0' || isspace((unsigned char)s[0])) {
    return usage_error("bad value for %s: '%.200s' is not an integer", opt, s);
  }
  if (errno == ERANGE || v < lo || v > hi) {
    return usage_error("bad value for %s: '%.200s' (must be in [%ld, %ld])", opt, s, lo, hi);
  }
  *x = v;
  return 0;
}

int cli_parse_long(const char *opt, const char *s, long *x) {
  return cli_parse_long_range(opt, s, LONG_MIN, LONG_MAX, x);
}

/* A comma-separated list of at most max values, none twice: integers in [lo, hi] (real 0) or reals
 * in (lo, hi) (real 1). Returns 0, or CHS_EXIT_USAGE with the message printed. */
int cli_parse_list(const char *opt, const char *text, int max, int real, double lo, double hi,
                   double *vals, int *count) {
  char buf[512];
  if (strlen(text) >= sizeof buf || !*text) {
    return cli_usage_error("bad value for %s: '%.200s' (a comma-separated list)", opt, text);
  }
  snprintf(buf, sizeof buf, "%s", text);
  *count = 0;
  char *save = NULL;
  for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    if (*count == max) {
      return cli_usage_error("bad value for %s: more than %d entries", opt, max);
    }
    double x;
    if (real) {
      if (cli_parse_real(opt, tok, &x) != 0) {
        return CHS_EXIT_USAGE;
      }
      if (!(x > lo && x < hi)) {
        return cli_usage_error("bad value for %s: '%.200s' (each in (%g, %g))", opt, tok, lo, hi);
      }
    } else {
      long v;
      if (cli_parse_long_range(opt, tok, (long)lo, (long)hi, &v) != 0) {
        return CHS_EXIT_USAGE;
      }
      x = (double)v;
    }
    for (int i = 0; i < *count; i++) {
      if (vals[i] == x) {
        return cli_usage_error("bad value for %s: '%.200s' given twice", opt, tok);
      }
    }
    vals[(*count)++] = x;
  }
  return *count ? 0 : cli_usage_error("bad value for %s: '%.200s' (empty)", opt, text);
}

int cli_parse_real_above(const char *opt, const char *s, double lo, double *x) {
  int rc = cli_parse_real(opt, s, x);
  return rc != 0 || *x > lo ? rc
                            : usage_error("bad value for %s: '%.200s' (must be > %g)", opt, s, lo);
}

int cli_parse_long_min(const char *opt, const char *s, long lo, long *x) {
  return cli_parse_long_range(opt, s, lo, LONG_MAX, x);
}

int cli_parse_tol_sweep(const char *opt, const char *text, int max_count, double *hi, double *lo,
                        int *count) {
  char buf[256], *f[3];
  size_t len = strlen(text);
  if (len >= sizeof buf) {
    return usage_error("bad value for %s: %zu characters (HI:LO:COUNT)", opt, len);
  }
  memcpy(buf, text, len + 1);
  f[0] = buf;
  f[1] = strchr(f[0], ':');
  f[2] = f[1] ? strchr(f[1] + 1, ':') : NULL;
  if (!f[1] || !f[2] || strchr(f[2] + 1, ':')) {
    return usage_error("bad value for %s: '%s' (HI:LO:COUNT, e.g. 1e-4:1e-8:5)", opt, text);
  }
  *f[1]++ = '\0';
  *f[2]++ = '\0';
  char name[320]; /* the option and the whole sweep, then the field */
  double *x[2] = {hi, lo};
  for (int i = 0; i < 2; i++) {
    snprintf(name, sizeof name, "%s %s (%s)", opt, text, i ? "LO" : "HI");
    if (cli_parse_real(name, f[i], x[i]) != 0) {
      return CHS_EXIT_USAGE;
    }
    if (!(*x[i] > 0)) {
      return usage_error("bad value for %s: '%s' (tolerances must be > 0)", name, f[i]);
    }
  }
  long n = 0;
  snprintf(name, sizeof name, "%s %s (COUNT)", opt, text);
  if (cli_parse_long_range(name, f[2], 1, max_count, &n) != 0) {
    return CHS_EXIT_USAGE;
  }
  if (*hi < *lo) {
    return usage_error("bad value for %s: '%s' (HI %g must be >= LO %g: the sweep tightens)", opt,
                       text, *hi, *lo);
  }
  *count = (int)n;
  return 0;
}

double cli_tol_grid(double hi, double lo, int count, int i) {
  if (count == 1 || i == 0) {
    return hi;
  }
  if (i == count - 1) {
    return lo;
  }
  /* rounded to 12 significant digits (pow leaves the last two or three wrong): a grid point
   * that prints as a round decimal (1e-07) is the double `--rtol 1e-7` gives, so that a row can
   * be re-run from its printed tolerance (an adaptive run can change its steps with the
   * tolerance's last bit) */
  char buf[40];
  snprintf(buf, sizeof buf, "%.12g", hi * pow(lo / hi, (double)i / (double)(count - 1)));
  return strtod(buf, NULL);
}

int cli_problem_help(const char *spec) {
  size_t len = strlen(spec);
  const char *suffix = ":help";
  if (len < 5 || strcmp(spec + len - 5, suffix) != 0) {
    return -1;
  }
  char name[4096], text[8192];
  snprintf(name, sizeof name, "%.*s", (int)(len - 5), spec);
  CHSError err;
  CHSError_Clear(&err);
  if (CHSProblem_Help(name, text, sizeof text, &err) != 0) {
    return cli_fail(&err);
  }
  fputs(text, stdout);
  return CHS_EXIT_OK;
}

int cli_check_run_options(const cli_options *o) {
  char buf[64];
  if (!o->problem) {
    return usage_error("missing --problem");
  }
  if (!o->method) {
    return usage_error("missing --method");
  }
  if (!o->have_tf) {
    return usage_error("missing --tf");
  }
  if (!(o->tf >= 0)) {
    snprintf(buf, sizeof buf, "%g", o->tf);
    return usage_error("bad value for --tf: %s (must be >= 0)", buf);
  }
  /* With --h, --rtol/--atol are the nonlinear solver tolerance of implicit methods. */
  if (o->have_h && !(o->h > 0)) {
    snprintf(buf, sizeof buf, "%g", o->h);
    return usage_error("bad value for --h: %s (must be > 0)", buf);
  }
  if (!o->have_h) {
    if (!o->have_rtol || !o->have_atol) {
      return usage_error("need --h, or both --rtol and --atol");
    }
    if (!(o->rtol > 0) || !(o->atol > 0)) {
      snprintf(buf, sizeof buf, "%g", !(o->rtol > 0) ? o->rtol : o->atol);
      return usage_error("bad value for %s: %s (must be > 0)", !(o->rtol > 0) ? "--rtol" : "--atol",
                         buf);
    }
  }
  if (o->have_h) { /* a fixed step: refuse up front what --max-steps would stop */
    long max = o->max_steps > 0 ? o->max_steps : CHS_RUN_MAX_STEPS_DEFAULT;
    double need = ceil(o->tf / o->h - 1e-9);
    if (need > (double)max) {
      return usage_error("--h %g with --tf %g needs %.3g steps, more than --max-steps %ld (the "
                         "bound of the whole run; default %ld, at most %ld)",
                         o->h, o->tf, isfinite(need) ? need : DBL_MAX, max,
                         CHS_RUN_MAX_STEPS_DEFAULT, CHS_RUN_MAX_STEPS_LIMIT);
    }
  }
  if (o->every < 1) {
    snprintf(buf, sizeof buf, "%ld", o->every);
    return usage_error("bad value for --every: %s (must be >= 1)", buf);
  }
  if (o->max_steps < 0) {
    snprintf(buf, sizeof buf, "%ld", o->max_steps);
    return usage_error("bad value for --max-steps: %s (must be >= 0)", buf);
  }
  if (o->project && CHSProjector_KindFromName(o->project) < 0) {
    return usage_error("bad value for --project: '%s' (momentum, position or both)", o->project);
  }
  if (!(o->project_tol >= 0)) {
    snprintf(buf, sizeof buf, "%g", o->project_tol);
    return usage_error("bad value for --project-tol: %s (must be >= 0)", buf);
  }
  if (!(o->project_newton_tol >= 0)) {
    snprintf(buf, sizeof buf, "%g", o->project_newton_tol);
    return usage_error("bad value for --project-newton-tol: %s (must be >= 0)", buf);
  }
  if (o->project_every < 0) {
    snprintf(buf, sizeof buf, "%ld", o->project_every);
    return usage_error("bad value for --project-every: %s (must be >= 1)", buf);
  }
  return 0;
}

int cli_check_formulation(const char *spec) {
  char name[64];
  const char *params = NULL;
  CHSError err;
  CHSError_Clear(&err);
  if (CHSSpec_Split(spec, name, sizeof name, &params, &err) != 0) {
    return usage_error("bad formulation '%s'", spec);
  }
  if (!CHSFormulationRegistry_Find(name)) {
    return usage_error("unknown formulation '%s' (see `chs list formulations`)", name);
  }
  return 0;
}

void cli_run_options(const cli_options *o, CHSRunOptions *ro) {
  CHSRunOptions_Default(ro);
  ro->method = o->method;
  ro->ctl.h = o->have_h ? o->h : 0;
  ro->ctl.rtol = o->rtol;
  ro->ctl.atol = o->atol;
  ro->ctl.max_steps = o->max_steps;
  ro->t0 = 0;
  ro->tf = o->tf;
  ro->every = o->every;
  ro->project = o->project ? CHSProjector_KindFromName(o->project) : CHS_PROJECT_NONE;
  ro->project_tol = o->project_tol;
  ro->project_every = o->project_every;
  ro->project_newton_tol = o->project_newton_tol;
  ro->stop_at = o->stop_at;
  ro->check = o->no_check ? CHS_RUN_CHECK_OFF : CHS_RUN_CHECK_AUTO;
  ro->strict = o->strict;
  ro->multipliers = o->multipliers;
  ro->subnormals = o->subnormals && strcmp(o->subnormals, "keep") == 0 ? CHS_SUBNORMALS_KEEP
                                                                       : CHS_SUBNORMALS_FLUSH;
}

int cli_auto_choose(const cli_options *o, CHSProblem prob, CHSRunChoice *c, CHSError *err) {
  CHSRunOptions ro;
  cli_run_options(o, &ro);
  return CHSRunProblem_Choose(prob, o->formulation, &ro, c, err);
}

int cli_integrate(const cli_options *o, const char *formulation, CHSMonitorFn monitor, void *ctx,
                  CHSProblem prob, cli_result *res) {
  memset(res, 0, sizeof *res);
  snprintf(res->problem, sizeof res->problem, "%s", o->problem);
  snprintf(res->formulation, sizeof res->formulation, "%s", formulation);
  snprintf(res->method, sizeof res->method, "%s", o->method);
  SUNContext ctx_sun = NULL;
  if (chs_context_create(&ctx_sun) != 0) {
    res->rc = CHS_ERR_MEM;
    snprintf(res->err.msg, sizeof res->err.msg, "cannot create a SUNContext");
    res->err.code = CHS_ERR_MEM;
    return res->rc;
  }
  chs_context_silence(ctx_sun); /* failures are reported through CHSError */
  CHSFormulation f = NULL;
  res->rc = CHSFormulation_Create(formulation, prob, ctx_sun, &f, &res->err);
  if (res->rc == 0) {
    CHSRunOptions ro;
    cli_run_options(o, &ro);
    res->rc = CHSRun(f, &ro, monitor, ctx, &res->sum, &res->err);
  }
  CHSFormulation_Destroy(&f);
  SUNContext_Free(&ctx_sun);
  return res->rc;
}

/* The memory a run needs, by formulation, before it allocates any: peak resident bytes per
 * coordinate (instance, formulation, integrator state; erk:rk4, 2 steps; `chs run --json`'s
 * peak_rss_bytes less the 10.9 MB of a run at N = 1000, divided by the 2 N coordinates) measured
 * on chain:N=100000,init=2 (the pendulum chain needs 0.5-1.5 % less):
 *
 *   formulation                               bytes/atom  bytes/coordinate
 *   dirac, standard, baumgarte, impetus             1138               569
 *   extended, total                                 1284               642
 *   fj                                              1301               651
 *
 * At N = 10^6 a run needs less per atom (dirac 800, extended 1.1 kB) than at 10^5, where the
 * arrays' 2 MiB huge pages round up: the figures of 10^5 are the upper ones. With a further 25 %
 * margin (other methods' work vectors, the allocator) a run that would need more than the
 * physical memory is refused (exit 2) instead of being killed by the kernel part way. Implicit
 * methods need more again (their Jacobians); the problems' own guards (chain, pendulum-chain)
 * remain the lower bound for library users. Formulations not in the table: the largest figure. */
#define CLI_MEM_MARGIN 1.25
static const struct {
  const char *name;
  double bytes_per_coord;
} cli_run_memory[] = {{"dirac", 569},    {"standard", 569}, {"baumgarte", 569}, {"impetus", 569},
                      {"extended", 642}, {"total", 642},    {"fj", 651}};

/* The memory a run may use: the least of the physical memory, the cgroup's limit (a batch job's
 * or container's memory.max: the kernel kills beyond it, whatever the machine has) and
 * CHS_MEMORY_LIMIT (bytes) when set; *what names it. 0: unknown; -1: CHS_MEMORY_LIMIT is not a
 * number of bytes > 0. */
static double cli_memory_available(const char **what) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  double have = pages > 0 && page > 0 ? (double)pages * (double)page : 0;
  *what = "this machine's physical memory";
  FILE *fp = fopen("/sys/fs/cgroup/memory.max", "r");
  if (fp) {
    double lim = 0;
    if (fscanf(fp, "%lf", &lim) == 1 && lim > 0 && (have == 0 || lim < have)) {
      have = lim;
      *what = "the cgroup's memory limit (/sys/fs/cgroup/memory.max)";
    }
    fclose(fp);
  }
  const char *env = getenv("CHS_MEMORY_LIMIT");
  if (env) {
    char *end = NULL;
    double lim = strtod(env, &end);
    if (end == env || *end != '\0' || !(lim > 0) || !isfinite(lim)) {
      return -1;
    }
    if (have == 0 || lim < have) {
      have = lim;
      *what = "CHS_MEMORY_LIMIT";
    }
  }
  return have;
}

static int cli_check_memory(const char *formulation, CHSProblem prob) {
  char name[64];
  const char *params = NULL;
  CHSError err;
  if (CHSSpec_Split(formulation, name, sizeof name, &params, &err) != 0) {
    return 0; /* the set-up names the bad spec */
  }
  double per = 651;
  for (size_t i = 0; i < sizeof cli_run_memory / sizeof cli_run_memory[0]; i++) {
    if (strcmp(cli_run_memory[i].name, name) == 0) {
      per = cli_run_memory[i].bytes_per_coord;
    }
  }
  long n = (long)CHSProblem_GetDims(prob)->n;
  const char *what = NULL;
  double have = cli_memory_available(&what);
  if (!(have > 0)) {
    return have < 0 ? usage_error("CHS_MEMORY_LIMIT '%s' is not a number of bytes > 0",
                                  getenv("CHS_MEMORY_LIMIT"))
                    : 0;
  }
  double need = (double)n * per * CLI_MEM_MARGIN;
  if (need > have) {
    return usage_error("%s on %s (%ld coordinates) needs about %.2f GB (%.0f bytes per coordinate "
                       "measured, and a %.0f %% margin), more than the %.2f GB of %s",
                       name, CHSProblem_GetName(prob), n, need / 1e9, per,
                       100 * (CLI_MEM_MARGIN - 1), have / 1e9, what);
  }
  return 0;
}

int cli_check_setup(const cli_options *o, const char *formulation, CHSProblem prob,
                    const char *label) {
  int mrc = cli_check_memory(formulation, prob);
  if (mrc != 0) {
    return mrc;
  }
  cli_options z = *o;
  z.tf = 0;
  cli_result res;
  if (cli_integrate(&z, formulation, NULL, NULL, prob, &res) == 0) {
    return 0;
  }
  fputs("chs: ", stderr);
  if (label) {
    cli_fputs_safe(stderr, label);
    fputs(": ", stderr);
  }
  cli_fputs_safe(stderr, res.err.msg[0] ? res.err.msg : CHSError_Name(res.err.code));
  fputc('\n', stderr);
  return cli_exit_status(res.err.code);
}

int cli_is_alpha_prk(const char *method) {
  return method && strncmp(method, "alpha-prk", 9) == 0 && (method[9] == '\0' || method[9] == ':');
}

void cli_integrate_costed(const cli_options *o, const char *formulation, CHSMonitorFn monitor,
                          void *ctx, CHSProblem prob, cli_result *res) {
  struct timespec c0, c1;
  struct rusage ru0, ru;
  int cpu_ok =
      getrusage(RUSAGE_SELF, &ru0) == 0 && clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0) == 0;
  cli_integrate(o, formulation, monitor, ctx, prob, res);
  cpu_ok = cpu_ok && clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1) == 0;
  res->has_cost = cpu_ok && getrusage(RUSAGE_SELF, &ru) == 0;
  res->cpu_s = res->has_cost
                   ? (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec)
                   : 0;
  /* the kernel's share (the scheduler's split of the same time: at scale, page faults) */
  res->cpu_system_s =
      res->has_cost
          ? fmin(res->cpu_s, (double)(ru.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
                                 1e-6 * (double)(ru.ru_stime.tv_usec - ru0.ru_stime.tv_usec))
          : 0;
  res->page_faults =
      res->has_cost ? (ru.ru_minflt - ru0.ru_minflt) + (ru.ru_majflt - ru0.ru_majflt) : 0;
  res->peak_rss_kb = res->has_cost ? cli_peak_rss_kb() : 0;
}

static int cli_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double cli_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cli_cmp_double);
  return v[(n - 1) / 2];
}

int cli_scale_problems(const char *list) {
  if (!list) {
    return 3;
  }
  char buf[128];
  snprintf(buf, sizeof buf, "%s", list);
  int bits = 0;
  char *save = NULL;
  for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    int bit = strcmp(t, "chain") == 0 ? 1 : strcmp(t, "pendulum-chain") == 0 ? 2 : 0;
    if (!bit || (bits & bit)) {
      bits = -1;
      break;
    }
    bits |= bit;
  }
  if (bits <= 0 || strlen(list) >= sizeof buf) {
    cli_usage_error("bad value for --problems: '%.200s' (chain, pendulum-chain, each once)", list);
    return 0;
  }
  return bits;
}
