/* chs workprec: work-precision sweep. For each configuration "formulation/method[/projection]"
 * and each tolerance of a logarithmic range (rtol = atol), one adaptive run to --tf: final error
 * against the reference, max |g|, max |psi|, max energy error, steps, RHS/residual evaluations
 * and wall time (median of --repeats runs). The reference is the problem's, or else a Verner
 * 8(5,6) Hamilton-Dirac run at 1e-12 with an error estimate, computed once and cached on disk
 * (drivers/refcache.c; --cache-dir DIR, --no-cache). Failed runs (e.g. IDA convergence failures,
 * too much work) are kept as marked points: FAILED rows in the table, status "failed" with the
 * work spent in the CSV, red crosses above the curves in the plots. Table, CSV and PNG plots
 * (gnuplot) into --out, or JSON. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "../src/compat.h"
#include "reproduce.h"

#define WP_MAX_CONFIGS 16
#define WP_MAX_TOLS 32

typedef struct {
  char form[128], method[128], project[32];
} wp_config;

typedef struct {
  int ok;
  double tol, err, g, psi, energy, wall;
  long steps, evals;
  char msg[200];
} wp_point;

static int parse_configs(const char *text, wp_config *c, int *count) {
  *count = 0;
  char *buf = strdup(text), *save = NULL;
  if (!buf) {
    return CHS_EXIT_NUMERIC;
  }
  for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *a = strchr(tok, '/'), *b = a ? strchr(a + 1, '/') : NULL;
    if (!a || *count >= WP_MAX_CONFIGS) {
      fprintf(stderr, "chs: bad configuration '%s' (formulation/method[/projection])\n", tok);
      free(buf);
      return CHS_EXIT_USAGE;
    }
    *a = '\0';
    if (b) {
      *b = '\0';
    }
    wp_config *k = &c[(*count)++];
    snprintf(k->form, sizeof k->form, "%s", tok);
    snprintf(k->method, sizeof k->method, "%s", a + 1);
    snprintf(k->project, sizeof k->project, "%s", b ? b + 1 : "");
    if (cli_check_formulation(k->form) != 0) {
      free(buf);
      return CHS_EXIT_USAGE;
    }
    if (b && CHSProjector_KindFromName(k->project) < 0) {
      fprintf(stderr, "chs: bad projection '%s' in configuration (momentum, position, both)\n",
              k->project);
      free(buf);
      return CHS_EXIT_USAGE;
    }
  }
  free(buf);
  return *count > 0 ? 0 : CHS_EXIT_USAGE;
}

static int parse_tols(const char *text, double *tols, int *count) {
  double hi, lo;
  int k;
  char tail;
  if (!text || sscanf(text, "%lf:%lf:%d%c", &hi, &lo, &k, &tail) != 3 || !(hi > 0) || !(lo > 0) ||
      k < 1 || k > WP_MAX_TOLS) {
    fprintf(stderr, "chs: bad value for --tols: '%s' (HI:LO:COUNT, e.g. 1e-3:1e-10:8)\n",
            text ? text : "");
    return CHS_EXIT_USAGE;
  }
  for (int i = 0; i < k; i++) {
    tols[i] = k == 1 ? hi : hi * pow(lo / hi, (double)i / (k - 1));
  }
  *count = k;
  return 0;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int cmd_workprec(int argc, char **argv) {
  const char *problem = NULL, *configs = NULL, *tols_text = NULL, *out = NULL, *cache_dir = NULL;
  char cache_buf[4096];
  double tf = -1;
  int json = 0, no_cache = 0;
  long repeats = 3, max_steps = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--json") == 0) {
      json = 1;
    } else if (strcmp(a, "--no-cache") == 0) {
      no_cache = 1;
    } else if (strcmp(a, "--help") == 0) {
      printf(
          "usage: chs workprec --problem P --configs 'F/M[/proj],...' --tols HI:LO:N --tf T\n"
          "                    [--repeats R] [--out DIR] [--json] [--cache-dir DIR | --no-cache]\n"
          "                    [--max-steps N]  (per run: more is a failed point)\n"
          "  adaptive methods only (erk:dp5, erk:rkf45, cvode:bdf, ida, ...): rtol = atol = tol\n"
          "  reference without a closed form: dirac + Verner 8(5,6) at 1e-12, cached in "
          "--cache-dir\n"
          "  (default $XDG_CACHE_HOME/chs/references or ~/.cache/chs/references)\n");
      return CHS_EXIT_OK;
    } else if (!v) {
      fprintf(stderr, "chs: option %s needs a value\n", a);
      return CHS_EXIT_USAGE;
    } else if (strcmp(a, "--problem") == 0) {
      problem = argv[++i];
    } else if (strcmp(a, "--configs") == 0) {
      configs = argv[++i];
    } else if (strcmp(a, "--tols") == 0) {
      tols_text = argv[++i];
    } else if (strcmp(a, "--out") == 0) {
      out = argv[++i];
    } else if (strcmp(a, "--cache-dir") == 0) {
      cache_dir = argv[++i];
      if (!*cache_dir) {
        fprintf(stderr, "chs: bad value for --cache-dir: ''\n");
        return CHS_EXIT_USAGE;
      }
    } else if (strcmp(a, "--tf") == 0) {
      if (cli_parse_real_above(a, argv[++i], 0, &tf) != 0) {
        return CHS_EXIT_USAGE;
      }
    } else if (strcmp(a, "--max-steps") == 0) {
      if (cli_parse_long_min(a, argv[++i], 1, &max_steps) != 0) {
        return CHS_EXIT_USAGE;
      }
    } else if (strcmp(a, "--repeats") == 0) {
      if (cli_parse_long_min(a, argv[++i], 1, &repeats) != 0) {
        return CHS_EXIT_USAGE;
      }
    } else {
      fprintf(stderr, "chs: unknown option '%s'\n", a);
      return CHS_EXIT_USAGE;
    }
  }
  if (!problem || !configs || !tols_text || tf < 0) {
    fprintf(stderr, "chs: workprec needs --problem, --configs, --tols and --tf\n");
    return CHS_EXIT_USAGE;
  }
  wp_config cfg[WP_MAX_CONFIGS];
  double tols[WP_MAX_TOLS];
  int nc = 0, nt = 0, rc;
  if ((rc = parse_configs(configs, cfg, &nc)) != 0 ||
      (rc = parse_tols(tols_text, tols, &nt)) != 0) {
    return rc;
  }
  if (out && mkdir(out, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "chs: cannot create --out %s\n", out);
    return CHS_EXIT_USAGE;
  }
  CHSError err;
  CHSError_Clear(&err);
  CHSProblem prob = NULL;
  if (CHSProblem_Create(problem, &prob, &err) != 0) {
    return cli_fail(&err);
  }
  long n = CHSProblem_GetDims(prob)->n;
  double *ref = calloc(1 + 2 * (size_t)n, sizeof *ref), *z = calloc(1 + 2 * (size_t)n, sizeof *z);
  wp_point(*pts)[WP_MAX_TOLS] = calloc((size_t)nc, sizeof *pts);
  if (!ref || !z || !pts) {
    fprintf(stderr, "chs: out of memory\n");
    return CHS_EXIT_NUMERIC;
  }
  ref[0] = z[0] = (double)n;
  if (no_cache) {
    cache_dir = NULL;
  } else if (!cache_dir) {
    cache_dir = rep_default_cache_dir(cache_buf, sizeof cache_buf);
  }
  rep_reference_info ri;
  if (rep_reference_cached(prob, problem, tf, 1e-12, cache_dir, ref, &ri, &err) != 0) {
    fprintf(stderr, "chs: reference run failed: %s\n", err.msg);
    return CHS_EXIT_NUMERIC;
  }
  if (ri.ignored[0]) {
    fprintf(stderr, "chs: reference cache entry %s ignored (%s)\n", ri.path[0] ? ri.path : "(none)",
            ri.ignored);
  }
  char ref_how[4700];
  if (strcmp(ri.source, "problem") == 0) {
    snprintf(ref_how, sizeof ref_how, "the problem's reference solution");
  } else {
    snprintf(ref_how, sizeof ref_how, "%s, %s%s%s, est. error %.1e", ri.command, ri.source,
             ri.path[0] ? " in " : "", ri.path, ri.est_error);
  }
  for (int c = 0; c < nc; c++) {
    for (int t = 0; t < nt; t++) {
      wp_point *pt = &pts[c][t];
      double walls[64];
      pt->tol = tols[t];
      pt->ok = 1;
      for (long r = 0; r < repeats && r < 64 && pt->ok; r++) {
        CHSRunOptions o = {.method = cfg[c].method,
                           .ctl = {.rtol = tols[t], .atol = tols[t], .max_steps = max_steps},
                           .tf = tf,
                           .every = 1000000000L,
                           .project =
                               cfg[c].project[0] ? CHSProjector_KindFromName(cfg[c].project) : 0,
                           .project_tol = 0};
        CHSRunSummary sum;
        CHSError e;
        CHSError_Clear(&e);
        memset(&sum, 0, sizeof sum);
        if (rep_run(prob, cfg[c].form, o, rep_final_monitor, z, &sum, &e) != 0) {
          pt->ok = 0;
          pt->steps = sum.stats.steps; /* the work spent until the failure */
          pt->evals = sum.rhs_evals;
          pt->wall = sum.wall_s;
          snprintf(pt->msg, sizeof pt->msg, "%.190s", e.msg);
          if (CHSError_IsInput(e.code)) {
            fprintf(stderr, "chs: %s/%s: %s\n", cfg[c].form, cfg[c].method, e.msg);
            free(ref); /* no leak reports from sanitizers on bad input */
            free(z);
            free(pts);
            CHSProblem_Destroy(&prob);
            return CHS_EXIT_USAGE;
          }
          break;
        }
        double d = 0;
        for (long i = 0; i < 2 * n; i++) {
          d += (z[1 + i] - ref[1 + i]) * (z[1 + i] - ref[1 + i]);
        }
        pt->err = sqrt(d);
        pt->g = sum.diag.pos_res_max;
        pt->psi = sum.diag.mom_res_max;
        pt->energy = sum.diag.energy_err_max;
        pt->steps = sum.stats.steps;
        pt->evals = sum.rhs_evals;
        walls[r] = sum.wall_s;
        if (r == repeats - 1 || r == 63) {
          qsort(walls, (size_t)(r + 1), sizeof *walls, cmp_double);
          pt->wall = walls[r / 2];
        }
      }
    }
  }
  if (json) {
    printf("{\n  \"problem\": ");
    json_string(stdout, problem);
    printf(",\n  \"t_final\": %.17g,\n  \"reference\": ", tf);
    json_string(stdout, ref_how);
    printf(",\n  \"reference_source\": ");
    json_string(stdout, ri.source);
    printf(",\n  \"reference_est_error\": ");
    json_real(stdout, ri.est_error, ri.est_error >= 0);
    printf(",\n  \"points\": [");
    for (int c = 0, first = 1; c < nc; c++) {
      for (int t = 0; t < nt; t++, first = 0) {
        const wp_point *p = &pts[c][t];
        printf("%s\n    {\"formulation\": ", first ? "" : ",");
        json_string(stdout, cfg[c].form);
        printf(", \"method\": ");
        json_string(stdout, cfg[c].method);
        printf(", \"projection\": ");
        json_string(stdout, cfg[c].project[0] ? cfg[c].project : "none");
        printf(", \"tol\": %.3g, \"status\": ", p->tol);
        json_string(stdout, p->ok ? "ok" : p->msg);
        printf(", \"int_err\": ");
        json_real(stdout, p->err, p->ok);
        printf(", \"pos_res_max\": ");
        json_real(stdout, p->g, p->ok);
        printf(", \"mom_res_max\": ");
        json_real(stdout, p->psi, p->ok);
        printf(", \"energy_err_max\": ");
        json_real(stdout, p->energy, p->ok);
        printf(", \"steps\": ");
        json_long(stdout, p->steps, p->ok);
        printf(", \"rhs_evals\": ");
        json_long(stdout, p->evals, p->ok);
        printf(", \"wall_s\": ");
        json_real(stdout, p->wall, p->ok);
        printf("}");
      }
    }
    printf("\n  ]\n}\n");
  } else {
    printf("problem %s, t in [0, %g], reference: %s, wall: median of %ld\n\n", problem, tf, ref_how,
           repeats);
    printf("%-34s %8s %8s %9s %11s %10s %10s %10s %10s\n", "configuration", "tol", "steps", "evals",
           "error", "max|g|", "max|psi|", "energy", "wall_s");
    for (int c = 0; c < nc; c++) {
      char name[300];
      snprintf(name, sizeof name, "%s/%s%s%s", cfg[c].form, cfg[c].method,
               cfg[c].project[0] ? "/" : "", cfg[c].project);
      for (int t = 0; t < nt; t++) {
        const wp_point *p = &pts[c][t];
        if (p->ok) {
          printf("%-34.34s %8.1e %8ld %9ld %11.3e %10.2e %10.2e %10.2e %10.3g\n", name, p->tol,
                 p->steps, p->evals, p->err, p->g, p->psi, p->energy, p->wall);
        } else {
          printf("%-34.34s %8.1e   FAILED: %.80s\n", name, p->tol, p->msg);
        }
      }
    }
  }
  int status = CHS_EXIT_OK;
  if (out) {
    char path[4096];
    snprintf(path, sizeof path, "%s/workprec.csv", out);
    FILE *fp = fopen(path, "w");
    if (!fp) {
      fprintf(stderr, "chs: cannot write %s\n", path);
      status = CHS_EXIT_USAGE;
    } else {
      fprintf(fp, "config,tol,status,steps,rhs_evals,int_err,pos_res_max,mom_res_max,"
                  "energy_err_max,wall_s\n");
      for (int c = 0; c < nc; c++) {
        for (int t = 0; t < nt; t++) {
          const wp_point *p = &pts[c][t];
          fprintf(fp, "%s/%s%s%s,%.3g,%s", cfg[c].form, cfg[c].method, cfg[c].project[0] ? "/" : "",
                  cfg[c].project, p->tol, p->ok ? "ok" : "failed");
          if (p->ok) {
            fprintf(fp, ",%ld,%ld,%.6g,%.6g,%.6g,%.6g,%.6g\n", p->steps, p->evals, p->err, p->g,
                    p->psi, p->energy, p->wall);
          } else { /* the work spent until the failure, no errors */
            fprintf(fp, ",%ld,%ld,,,,,%.6g\n", p->steps, p->evals, p->wall);
          }
        }
      }
      fclose(fp);
      /* Plots: one curve per configuration; failed runs as red crosses at the work they spent,
       * drawn at 10 x the largest error of the successful points (above every curve). */
      double emax = 0;
      int nfail = 0;
      for (int c = 0; c < nc; c++) {
        for (int t = 0; t < nt; t++) {
          if (pts[c][t].ok) {
            emax = fmax(emax, pts[c][t].err);
          } else {
            nfail += pts[c][t].evals > 0;
          }
        }
      }
      emax = emax > 0 ? 10 * emax : 1;
      for (int kind = 0; kind < 2; kind++) {
        char script[8192];
        int len = snprintf(script, sizeof script,
                           "set logscale xy\nset format y '10^{%%L}'\nset xlabel '%s'\n"
                           "set ylabel 'error at t = %g'\n"
                           "set key outside\nset datafile separator ','\nplot ",
                           kind ? "wall time (s)" : "RHS / residual evaluations", tf);
        for (int c = 0; c < nc && len < (int)sizeof script - 300; c++) {
          len += snprintf(script + len, sizeof script - (size_t)len,
                          "%s'%s/workprec.csv' u (strcol(1) eq '%s/%s%s%s' && strcol(3) eq 'ok' ? "
                          "$%d : NaN):6 w lp t '%s/%s%s%s'",
                          c ? ", " : "", out, cfg[c].form, cfg[c].method,
                          cfg[c].project[0] ? "/" : "", cfg[c].project, kind ? 10 : 5, cfg[c].form,
                          cfg[c].method, cfg[c].project[0] ? "/" : "", cfg[c].project);
        }
        if (nfail > 0 && len < (int)sizeof script - 300) {
          len += snprintf(script + len, sizeof script - (size_t)len,
                          ", '%s/workprec.csv' u (strcol(3) eq 'failed' && $5 > 0 ? $%d : NaN):"
                          "(%g) w p pt 2 ps 2 lc rgb 'red' t 'failed (work until the failure)'",
                          out, kind ? 10 : 5, emax);
        }
        char png[4096];
        snprintf(png, sizeof png, "%s/workprec-%s.png", out, kind ? "wall" : "evals");
        FILE *gp = popen("gnuplot", "w");
        if (gp) {
          fprintf(gp, "set terminal pngcairo size 1000,600\nset output '%s'\n%s\n", png, script);
        }
        if (!gp || pclose(gp) != 0) {
          fprintf(stderr, "chs: gnuplot failed for %s\n", png);
          status = CHS_EXIT_NUMERIC;
        }
      }
    }
  }
  free(ref);
  free(z);
  free(pts);
  CHSProblem_Destroy(&prob);
  return status;
}
