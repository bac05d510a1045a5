/* Option parsing shared by `chs run` and `chs compare`, and one integration. */
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_context.h>
#include "cli.h"
#include "../src/compat.h"

int cli_exit_status(int code) {
  if (code == CHS_SUCCESS) {
    return CHS_EXIT_OK;
  }
  return CHSError_IsInput(code) ? CHS_EXIT_USAGE : CHS_EXIT_NUMERIC;
}

int cli_fail(const CHSError *err) {
  fprintf(stderr, "chs: %s\n", err->msg[0] ? err->msg : CHSError_Name(err->code));
  return cli_exit_status(err->code);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "chs: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  return CHS_EXIT_USAGE;
}

int cli_parse_real(const char *opt, const char *s, double *x) {
  char *end = NULL;
  errno = 0;
  *x = strtod(s, &end);
  if (end == s || *end != '\0' || errno == ERANGE || !isfinite(*x)) {
    return usage_error("bad value for %s: '%s' is not a finite number", opt, s);
  }
  return 0;
}

int cli_parse_long(const char *opt, const char *s, long *x) {
  char *end = NULL;
  errno = 0;
  *x = strtol(s, &end, 10);
  if (end == s || *end != '\0' || errno == ERANGE) {
    return usage_error("bad value for %s: '%s' is not an integer", opt, s);
  }
  return 0;
}

int cli_parse_real_above(const char *opt, const char *s, double lo, double *x) {
  int rc = cli_parse_real(opt, s, x);
  return rc != 0 || *x > lo ? rc : usage_error("bad value for %s: '%s' (must be > %g)", opt, s, lo);
}

int cli_parse_long_min(const char *opt, const char *s, long lo, long *x) {
  int rc = cli_parse_long(opt, s, x);
  return rc != 0 || *x >= lo ? rc
                             : usage_error("bad value for %s: '%s' (must be >= %ld)", opt, s, lo);
}

void cli_print_run_usage(FILE *out, const char *cmd, const char *formulation_flag) {
  fprintf(out,
          "usage: chs %s --problem P[:k=v,...] %s %s --method M\n"
          "              (--h H | --rtol R --atol A) --tf T [--every K] [--out FILE.csv]\n"
          "              [--project momentum|position|both] [--project-tol EPS]\n"
          "              [--project-every K] [--max-steps N] [--json]\n\n"
          "  --problem P      built-in problem and parameters, e.g. pendulum:length=2\n"
          "  %-16s %s\n"
          "  --method M       erk:rk4, erk:rkf45, erk:dp5, erk:<ARKODE ERK table>\n"
          "  --h H            fixed step size (outputs every K steps, hit exactly)\n"
          "  --rtol/--atol    adaptive step size control (outputs every K steps); with\n"
          "                   --h, the nonlinear solver tolerance of implicit methods\n"
          "  --tf T           final time (from t = 0)\n"
          "  --out FILE.csv   one row per output time: t, q, p, energy and errors\n"
          "  --project KIND   project after each step when |g| or |psi| > --project-tol\n"
          "                   (default 0: always); --project-every K: only every K steps;\n"
          "                   --project-newton-tol: stop the position Newton at |g| <= it\n"
          "  --json           one JSON object on stdout\n"
          "  --wedge          (run, with --h) also the wedge product of two tangents carried\n"
          "                   by the step map: wedge_err_max = max |omega(t) - omega(0)|\n"
          "  (chs list problems|formulations|methods shows the names; first-order Lagrangian\n"
          "   problems such as fj-example run without a formulation, with erk methods)\n",
          cmd, formulation_flag, strcmp(formulation_flag, "--formulation") == 0 ? "F" : "F1,F2,...",
          formulation_flag,
          strcmp(formulation_flag, "--formulation") == 0
              ? "formulation: standard, dirac"
              : "comma-separated formulations (default: every registered one)");
}

int cli_parse(int argc, char **argv, const char *formulation_flag, cli_options *o) {
  memset(o, 0, sizeof *o);
  o->every = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      o->help = 1;
      continue;
    }
    if (strcmp(a, "--json") == 0) {
      o->json = 1;
      continue;
    }
    if (strcmp(a, "--wedge") == 0 && strcmp(formulation_flag, "--formulation") == 0) {
      o->wedge = 1; /* run only */
      continue;
    }
    if (strncmp(a, "--", 2) != 0) {
      return usage_error("unexpected argument '%s'", a);
    }
    if (i + 1 >= argc) {
      return usage_error("option %s needs a value", a);
    }
    const char *v = argv[++i];
    int rc = 0;
    if (strcmp(a, "--problem") == 0) {
      o->problem = v;
    } else if (strcmp(a, formulation_flag) == 0) {
      o->formulation = v;
    } else if (strcmp(a, "--method") == 0) {
      o->method = v;
    } else if (strcmp(a, "--out") == 0) {
      o->out = v;
    } else if (strcmp(a, "--project") == 0) {
      o->project = v;
    } else if (strcmp(a, "--tols") == 0 && strcmp(formulation_flag, "--formulations") == 0) {
      o->tols = v;
    } else if (strcmp(a, "--h") == 0) {
      rc = cli_parse_real(a, v, &o->h);
      o->have_h = 1;
    } else if (strcmp(a, "--rtol") == 0) {
      rc = cli_parse_real(a, v, &o->rtol);
      o->have_rtol = 1;
    } else if (strcmp(a, "--atol") == 0) {
      rc = cli_parse_real(a, v, &o->atol);
      o->have_atol = 1;
    } else if (strcmp(a, "--tf") == 0) {
      rc = cli_parse_real(a, v, &o->tf);
      o->have_tf = 1;
    } else if (strcmp(a, "--project-tol") == 0) {
      rc = cli_parse_real(a, v, &o->project_tol);
    } else if (strcmp(a, "--every") == 0) {
      rc = cli_parse_long(a, v, &o->every);
    } else if (strcmp(a, "--project-newton-tol") == 0) {
      rc = cli_parse_real(a, v, &o->project_newton_tol);
    } else if (strcmp(a, "--project-every") == 0) {
      rc = cli_parse_long(a, v, &o->project_every);
    } else if (strcmp(a, "--max-steps") == 0) {
      rc = cli_parse_long(a, v, &o->max_steps);
    } else {
      return usage_error("unknown option '%s'", a);
    }
    if (rc != 0) {
      return rc;
    }
  }
  return 0;
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

int cli_is_alpha_prk(const char *method) {
  return method && strncmp(method, "alpha-prk", 9) == 0 && (method[9] == '\0' || method[9] == ':');
}
