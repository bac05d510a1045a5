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
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../src/compat.h"
#include "mpi_cli.h"
#include "bench.h"
#include "progress.h"
#include "runlib.h"

#define WP_MAX_CONFIGS 16
#define WP_MAX_TOLS 32

typedef struct {
  char form[128], method[128], project[32];
} wp_config;

typedef struct {
  int ok;
  double tol, err, g, psi, energy, wall;
  double est; /* --estimate-error: |z - z(tol/100)| (NAN: not asked or the companion failed) */
  long steps, evals;
  int balance; /* energy is the energy-balance error (as chs run reports it), not |H - H0| */
  char msg[200];
} wp_point;

static int parse_configs(const char *text, wp_config *c, int *count) {
  *count = 0;
  size_t len = strlen(text);
  if (len == 0 || text[0] == ',' || text[len - 1] == ',' || strstr(text, ",,")) {
    return cli_usage_error("bad value for --configs: '%.200s' (an empty configuration; "
                           "F/M[/proj],...)",
                           text);
  }
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

/* One number of --tols: the whole field, finite and > 0. */
/* HI:LO:N: N tolerances from HI to LO, logarithmically spaced (cli_parse_tol_sweep: HI >= LO,
 * both finite and > 0, N in 1 .. WP_MAX_TOLS; every value is named when refused). */
static int parse_tols(const char *text, double *tols, int *count) {
  double hi, lo;
  int k;
  int rc = cli_parse_tol_sweep("--tols", text, WP_MAX_TOLS, &hi, &lo, &k);
  if (rc != 0) {
    return rc;
  }
  for (int i = 0; i < k; i++) {
    tols[i] = cli_tol_grid(hi, lo, k, i);
  }
  *count = k;
  return 0;
}

/* The energy column: the energy-balance error when the problem tracks it (a non-conservative
 * force or explicit time dependence: what `chs run` reports as "energy balance"), else the energy
 * error; its name in the table, and its key in the JSON and the CSV (those of `chs run --json`). */
static int wp_balance(int nc, int nt, wp_point (*pts)[WP_MAX_TOLS]) {
  for (int c = 0; c < nc; c++) {
    for (int t = 0; t < nt; t++) {
      if (pts[c][t].ok && pts[c][t].balance) {
        return 1;
      }
    }
  }
  return 0;
}

static const char *wp_energy_key(int balance) {
  return balance ? "energy_balance_err_max" : "energy_err_max";
}

static void print_json(const char *problem, double tf, const char *ref_how,
                       const rep_reference_info *ri, const wp_config *cfg, int nc, int nt,
                       wp_point (*pts)[WP_MAX_TOLS]) {
  printf("{\n  \"problem\": ");
  json_string(stdout, problem);
  printf(",\n  \"t_final\": %.17g,\n  \"reference\": ", tf);
  json_string(stdout, ref_how);
  printf(",\n  \"reference_source\": ");
  json_string(stdout, ri->source);
  printf(",\n  \"reference_est_error\": ");
  json_real(stdout, ri->est_error, ri->est_error >= 0);
  printf(",\n  \"points\": [");
  for (int c = 0, first = 1; c < nc; c++) {
    for (int t = 0; t < nt; t++, first = 0) {
      const wp_point *p = &pts[c][t];
      printf("%s\n    {\"formulation\": ", first ? "" : ",");
      json_string(stdout, cfg[c].form);
      bench_json_string("method", cfg[c].method);
      bench_json_string("projection", cfg[c].project[0] ? cfg[c].project : "none");
      printf(", \"tol\": %.3g, \"status\": ", p->tol);
      json_string(stdout, p->ok ? "ok" : p->msg);
      bench_json_real("int_err", p->err, p->ok);
      bench_json_real("pos_res_max", p->g, p->ok);
      bench_json_real("mom_res_max", p->psi, p->ok);
      printf(", \"%s\": ", wp_energy_key(wp_balance(nc, nt, pts)));
      json_real(stdout, p->energy, p->ok);
      bench_json_long("steps", p->steps, p->ok);
      bench_json_long("rhs_evals", p->evals, p->ok);
      bench_json_real("wall_s", p->wall, p->ok);
      bench_json_real("est_error", p->est, p->ok && isfinite(p->est));
      printf("}");
    }
  }
  printf("\n  ]\n}\n");
}

static void config_name(char *buf, size_t len, const wp_config *c) {
  if (snprintf(buf, len, "%s/%s%s%s", c->form, c->method, c->project[0] ? "/" : "", c->project) >=
      (int)len) {
    buf[len - 1] = '\0'; /* names are bounded on the command line; a cut name is only a label */
  }
}

static void print_table(const char *problem, double tf, const char *ref_how, long repeats,
                        const wp_config *cfg, int nc, int nt, wp_point (*pts)[WP_MAX_TOLS]) {
  char sp[1024];
  printf("problem %s, t in [0, %g], reference: %s, wall: median of %ld\n\n",
         cli_safe(sp, sizeof sp, problem), tf, ref_how, repeats);
  printf("%-34s %8s %8s %9s %11s %10s %10s %10s %10s %10s\n", "configuration", "tol", "steps",
         "evals", "error", "max|g|", "max|psi|", wp_balance(nc, nt, pts) ? "balance" : "energy",
         "wall_s", "est_error");
  for (int c = 0; c < nc; c++) {
    char name[300];
    config_name(name, sizeof name, &cfg[c]);
    for (int t = 0; t < nt; t++) {
      const wp_point *p = &pts[c][t];
      if (p->ok) {
        printf("%-34.34s %8.1e %8ld %9ld %11.3e %10.2e %10.2e %10.2e %10.3g", name, p->tol,
               p->steps, p->evals, p->err, p->g, p->psi, p->energy, p->wall);
        if (isfinite(p->est)) {
          printf(" %10.2e\n", p->est);
        } else {
          printf(" %10s\n", "-");
        }
      } else {
        printf("%-34.34s %8.1e   FAILED: %.80s\n", name, p->tol, p->msg);
      }
    }
  }
}

/* DIR/workprec.csv: one row per point; 0 or CHS_EXIT_NUMERIC after a message naming the file. */
static int write_csv(const char *out, const wp_config *cfg, int nc, int nt,
                     wp_point (*pts)[WP_MAX_TOLS]) {
  char path[4096];
  CHSError err;
  CHSError_Clear(&err);
  out_file f;
  if (path_join(path, sizeof path, out, "workprec.csv") != 0 ||
      out_file_open(&f, path, &err) != 0) {
    fprintf(stderr, "chs: cannot write %s/workprec.csv\n", out);
    return CHS_EXIT_NUMERIC;
  }
  int bad = fprintf(f.fp,
                    "config,tol,status,steps,rhs_evals,int_err,pos_res_max,mom_res_max,%s,wall_s,"
                    "est_error\n",
                    wp_energy_key(wp_balance(nc, nt, pts))) < 0;
  for (int c = 0; c < nc && !bad; c++) {
    char name[300];
    config_name(name, sizeof name, &cfg[c]);
    for (int t = 0; t < nt && !bad; t++) {
      const wp_point *p = &pts[c][t];
      bad = fprintf(f.fp, "%s,%.3g,%s", name, p->tol, p->ok ? "ok" : "failed") < 0;
      if (p->ok) {
        bad = bad || fprintf(f.fp, ",%ld,%ld,%.17g,%.17g,%.17g,%.17g,%.17g,", p->steps, p->evals,
                             p->err, p->g, p->psi, p->energy, p->wall) < 0;
        bad =
            bad || (isfinite(p->est) ? fprintf(f.fp, "%.17g\n", p->est) : fprintf(f.fp, "\n")) < 0;
      } else { /* the work spent until the failure, no errors */
        bad = bad || fprintf(f.fp, ",%ld,%ld,,,,,%.17g,\n", p->steps, p->evals, p->wall) < 0;
      }
    }
  }
  if (out_file_finish(&f, bad, &err) != 0) {
    fprintf(stderr, "chs: %s\n", err.msg);
    return CHS_EXIT_NUMERIC;
  }
  return 0;
}

/* Plots: one curve per configuration; failed runs as red crosses at the work they spent, drawn at
 * 10 x the largest error of the successful points (above every curve). The data go to
 * DIR/workprec-plot.dat (columns: configuration index, 1 ok / 0 failed, evaluations, wall time,
 * error); the script selects by those numbers and names only files chs chose, and the
 * configuration names appear only as plot_label titles. 0 or CHS_EXIT_NUMERIC (message). */
static int write_plots(const char *out, const char *problem, double tf, const wp_config *cfg,
                       int nc, int nt, wp_point (*pts)[WP_MAX_TOLS]) {
  double emax = 0;
  int nfail = 0, nok = 0;
  for (int c = 0; c < nc; c++) {
    for (int t = 0; t < nt; t++) {
      if (pts[c][t].ok) {
        emax = fmax(emax, pts[c][t].err);
        nok += pts[c][t].err > 0 && pts[c][t].evals > 0;
      } else {
        nfail += pts[c][t].evals > 0;
      }
    }
  }
  if (nok == 0 && nfail == 0) {
    fprintf(stderr, "chs: no point to plot (no positive error, no work): no plots in %s\n", out);
    return 0;
  }
  emax = emax > 0 ? 10 * emax : 1;
  char path[4096];
  CHSError err;
  CHSError_Clear(&err);
  out_file f;
  if (path_join(path, sizeof path, out, "workprec-plot.dat") != 0 ||
      out_file_open(&f, path, &err) != 0) {
    fprintf(stderr, "chs: cannot write %s/workprec-plot.dat\n", out);
    return CHS_EXIT_NUMERIC;
  }
  int bad = fprintf(f.fp, "# config ok evals wall_s error\n") < 0;
  for (int c = 0; c < nc && !bad; c++) {
    for (int t = 0; t < nt && !bad; t++) {
      const wp_point *p = &pts[c][t];
      bad = fprintf(f.fp, "%d %d %ld %.17g %.17g\n", c, p->ok, p->evals,
                    isfinite(p->wall) ? p->wall : 0, p->ok && isfinite(p->err) ? p->err : 0) < 0;
    }
  }
  if (out_file_finish(&f, bad, &err) != 0) {
    fprintf(stderr, "chs: %s\n", err.msg);
    return CHS_EXIT_NUMERIC;
  }
  int status = 0;
  char title[400];
  plot_label(title, sizeof title, problem);
  for (int kind = 0; kind < 2; kind++) {
    char script[16384];
    /* the key below the frame in as many columns as fit: the plot keeps the full width */
    int len = snprintf(
        script, sizeof script,
        "set logscale xy\nset autoscale fix\nset format y '10^{%%L}'\nset format x '10^{%%L}'\n"
        "set title 'work-precision: %s, t_f = %g, rtol = atol = %.0e .. %.0e (key: "
        "formulation/method[/projection])' noenhanced\nset xlabel '%s'\n"
        "set ylabel 'final error |(q,p)(t_f) - reference|_2' noenhanced\n"
        "set key below maxrows %d\nset offsets graph 0.02, graph 0.02, graph 0.05, "
        "graph 0.05\nplot ",
        title, tf, pts[0][0].tol, pts[0][nt - 1].tol,
        kind ? "wall time (s, median of the repeats)" : "right-hand side / residual evaluations",
        nc + (nfail > 0) > 8 ? 4 : 2);
    for (int c = 0; c < nc; c++) {
      char name[300], label[300];
      config_name(name, sizeof name, &cfg[c]);
      plot_label(label, sizeof label, name);
      len += snprintf(script + len, sizeof script - (size_t)len,
                      "%s'workprec-plot.dat' u ($1 == %d && $2 == 1 ? $%d : NaN):5 w lp t '%s'",
                      c ? ", " : "", c, kind ? 4 : 3, label);
    }
    if (nfail > 0) {
      len += snprintf(script + len, sizeof script - (size_t)len,
                      ", 'workprec-plot.dat' u ($2 == 0 && $3 > 0 ? $%d : NaN):(%g) w p pt 2 ps 2 "
                      "lc rgb '#000000' t 'failed (work until the failure)'",
                      kind ? 4 : 3, emax);
    }
    if (len >= (int)sizeof script) { /* 16 configurations of <= 300 characters fit */
      fprintf(stderr, "chs: plot script too long for %s\n", out);
      return CHS_EXIT_NUMERIC;
    }
    if (plot_run(out, kind ? "workprec-wall.png" : "workprec-evals.png", 1000, 600, script) != 0) {
      status = CHS_EXIT_NUMERIC;
    }
  }
  return status;
}

/* "chs: FORM/METHOD: message" on stderr, control bytes escaped (the names are user input). */
static void config_error(const char *form, const char *method, const char *msg) {
  fputs("chs: ", stderr);
  cli_fputs_safe(stderr, form);
  fputc('/', stderr);
  cli_fputs_safe(stderr, method);
  fputs(": ", stderr);
  cli_fputs_safe(stderr, msg);
  fputc('\n', stderr);
}

/* Input errors of a configuration (unknown method, unsupported combination) before any real
 * work: one run limited to one step at the first tolerance. */
static int probe_config(CHSProblem prob, const wp_config *k, double tol, double tf, double *z) {
  CHSRunOptions o = {.method = k->method,
                     .ctl = {.rtol = tol, .atol = tol, .max_steps = 1},
                     .tf = tf,
                     .every = 1000000000L,
                     .project = k->project[0] ? CHSProjector_KindFromName(k->project) : 0,
                     .project_tol = 0};
  CHSError e;
  CHSError_Clear(&e);
  if (rep_run(prob, k->form, o, rep_final_monitor, z, NULL, &e) != 0 && CHSError_IsInput(e.code)) {
    config_error(k->form, k->method, e.msg);
    return CHS_EXIT_USAGE;
  }
  return 0;
}

int cmd_workprec(int argc, char **argv) {
  cli_options opt;
  int prc = cli_parse(CLI_WORKPREC, argc, argv, &opt);
  if (prc != 0) {
    return prc == CLI_HELP_DONE ? CHS_EXIT_OK : prc;
  }
  const char *problem = opt.problem, *configs = opt.configs, *tols_text = opt.tols, *out = opt.out,
             *cache_dir = opt.cache_dir;
  char cache_buf[4096];
  double tf = opt.tf;
  int json = opt.json, no_cache = opt.no_cache, explicit_cache = cache_dir != NULL,
      quiet = opt.quiet;
  long repeats = opt.repeats, max_steps = opt.max_steps;
  /* From here on every exit goes through `done`, which frees everything. */
  wp_config cfg[WP_MAX_CONFIGS];
  double tols[WP_MAX_TOLS];
  int nc = 0, nt = 0, status = CHS_EXIT_OK;
  CHSError err;
  CHSError_Clear(&err);
  CHSProblem prob = NULL;
  double *ref = NULL, *z = NULL;
  wp_point(*pts)[WP_MAX_TOLS] = NULL;
  if ((status = parse_configs(configs, cfg, &nc)) != 0 ||
      (status = parse_tols(tols_text, tols, &nt)) != 0) {
    goto done;
  }
  if (CHSProblem_Create(problem, &prob, &err) != 0) {
    status = cli_fail(&err);
    goto done;
  }
  long n = CHSProblem_GetDims(prob)->n;
  ref = calloc(1 + 2 * (size_t)n, sizeof *ref); /* the reference */
  z = calloc(1 + 2 * (size_t)n, sizeof *z);
  pts = calloc((size_t)nc, sizeof *pts);
  if (!ref || !z || !pts) {
    fprintf(stderr, "chs: out of memory\n");
    status = CHS_EXIT_NUMERIC;
    goto done;
  }
  ref[0] = z[0] = (double)n;
  /* Every configuration, then the output paths, before the reference and the sweep. */
  for (int c = 0; c < nc; c++) {
    if ((status = probe_config(prob, &cfg[c], tols[0], tf, z)) != 0) {
      goto done;
    }
  }
  if (out && (!opt.dry_run || access(out, F_OK) == 0) &&
      (status = cli_check_output_dir("--out", out, !opt.dry_run)) != 0) {
    goto done;
  }
  if (opt.dry_run) { /* --out is not created; the cache directory is checked when it exists */
    if (explicit_cache && access(cache_dir, F_OK) == 0) {
      status = cli_check_output_dir("--cache-dir", cache_dir, 0);
    }
    status = status ? status : cli_dry_run_done(problem);
    goto done;
  }
  int has_closed_form = CHSProblem_Reference(prob, tf, z + 1, z + 1 + n) == 0;
  if (no_cache) {
    cache_dir = NULL;
  } else if (!cache_dir) {
    cache_dir = rep_default_cache_dir(cache_buf, sizeof cache_buf);
  }
  if (cache_dir && !has_closed_form) {
    if (explicit_cache) {
      if ((status = cli_check_output_dir("--cache-dir", cache_dir, 1)) != 0) {
        goto done;
      }
    } else if (make_dirs(cache_dir) != 0 || access(cache_dir, W_OK | X_OK) != 0) {
      fprintf(stderr, "chs: reference cache %s not writable (%s): not cached\n", cache_dir,
              strerror(errno));
      cache_dir = NULL;
    }
  }
  rep_reference_info ri;
  memset(&ri, 0, sizeof ri);
  /* under mpirun: every rank's checks agreed on, then the reference computed (or read) once by
   * rank 0 and broadcast (docs/mpi.md) */
  if ((status = cli_mpi_agree(status)) != 0) {
    goto done;
  }
  int ref_rc = cli_mpi_rank() == 0 ? rep_reference_cached(prob, problem, tf, 1e-12, cache_dir,
                                                          quiet, ref, &ri, &err)
                                   : 0;
  if (ref_rc != 0) {
    fputs("chs: reference run failed: ", stderr);
    cli_fputs_safe(stderr, err.msg);
    fputc('\n', stderr);
    status = CHS_EXIT_NUMERIC;
  }
  if ((status = cli_mpi_agree(status)) != 0) {
    goto done;
  }
  cli_mpi_bcast(ref, (1 + 2 * (size_t)n) * sizeof *ref, 0);
  if (ri.write_error[0]) {
    fprintf(stderr, "chs: reference not cached: %s\n", ri.write_error);
    if (explicit_cache) {
      status = CHS_EXIT_NUMERIC; /* reported at the end, the sweep is still worth having */
    }
  } else if (ri.ignored[0]) {
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
  progress prog;
  long nrep = repeats < 64 ? repeats : 64;
  double done = 0;
  progress_start(&prog, quiet, 1, "chs workprec", 0, (double)(nc * nt * nrep));
  int input_err = 0; /* a run refused its input (every rank agrees before the next step) */
  for (int c = 0; c < nc && !input_err; c++) {
    for (int t = 0; t < nt && !input_err; t++) {
      wp_point *pt = &pts[c][t];
      double walls[64];
      if (!cli_sweep_mine((long)c * nt + t)) {
        continue; /* under mpirun: another rank's point */
      }
      char item[160];
      snprintf(item, sizeof item, "%.60s/%.60s tol %.0e", cfg[c].form, cfg[c].method, tols[t]);
      progress_detail(&prog, item);
      progress_update(&prog, done);
      pt->tol = tols[t];
      pt->ok = 1;
      pt->est = NAN;
      for (long r = 0; r < repeats && r < 64 && pt->ok; r++) {
        CHSRunOptions o = {.method = cfg[c].method,
                           .ctl = {.rtol = tols[t], .atol = tols[t], .max_steps = max_steps},
                           .tf = tf,
                           .every = 1000000000L,
                           .project =
                               cfg[c].project[0] ? CHSProjector_KindFromName(cfg[c].project) : 0,
                           .project_tol = 0};
        CHSRunSummary sum, esum;
        CHSError e;
        CHSError_Clear(&e);
        memset(&sum, 0, sizeof sum);
        int rrc = rep_run(prob, cfg[c].form, o, rep_final_monitor, z, &sum, &e);
        done += rrc != 0 ? (double)(nrep - r) : 1; /* a failure ends the point's repeats */
        progress_update(&prog, done);
        if (rrc != 0) {
          pt->ok = 0;
          pt->steps = sum.stats.steps; /* the work spent until the failure */
          pt->evals = sum.rhs_evals;
          pt->wall = sum.wall_s;
          snprintf(pt->msg, sizeof pt->msg, "%.190s", e.msg);
          if (CHSError_IsInput(e.code)) {
            progress_end(&prog);
            config_error(cfg[c].form, cfg[c].method, e.msg);
            input_err = 1;
          }
          break;
        }
        pt->err = rep_final_distance(z, ref);
        pt->g = sum.diag.pos_res_max;
        pt->psi = sum.diag.mom_res_max;
        pt->balance = sum.diag.balance_tracked;
        pt->energy = pt->balance ? sum.diag.balance_err_max : sum.diag.energy_err_max;
        pt->steps = sum.stats.steps;
        pt->evals = sum.rhs_evals;
        walls[r] = sum.wall_s;
        if (r == repeats - 1 || r == 63) {
          pt->wall = cli_median(walls, r + 1);
        }
        if (r == 0 && opt.estimate_error) { /* the companion at tol/100 */
          if (CHSRunProblem_EstimateError(prob, cfg[c].form, &o, z + 1, z + 1 + n, &esum, &e) ==
              0) {
            pt->est = esum.error_estimate;
          }
        }
      }
    }
  }
  progress_end(&prog);
  /* an input error on any rank stops all; its message comes from the rank that found it */
  int input_status = cli_mpi_agree(input_err ? CHS_EXIT_USAGE : 0);
  if (input_status != 0) {
    status = input_status;
    goto done;
  }
  for (int c = 0; c < nc; c++) { /* every point from the rank that ran it */
    cli_sweep_share(pts[c], sizeof pts[c][0], nt, (long)c * nt);
  }
  if (cli_mpi_rank() != 0) { /* rank 0 writes the table, CSV and plots */
    goto done;
  }
  if (json) {
    print_json(problem, tf, ref_how, &ri, cfg, nc, nt, pts);
  } else {
    print_table(problem, tf, ref_how, repeats, cfg, nc, nt, pts);
  }
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "chs: could not write the standard output: %s\n", strerror(errno));
    status = CHS_EXIT_NUMERIC;
  }
  if (out) {
    int st = write_csv(out, cfg, nc, nt, pts);
    if (st == 0) {
      st = write_plots(out, problem, tf, cfg, nc, nt, pts);
    }
    status = st ? st : status;
  }
done:
  free(ref);
  free(z);
  free(pts);
  CHSProblem_Destroy(&prob);
  return status;
}
