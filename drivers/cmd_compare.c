/* chs compare: the same problem and method with several formulations; errors and costs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "plot.h"
#include "progress.h"
#include "reproduce.h"

#define MAX_FORMS 32

/* Split "F1,F2:k=v,k=v,F3" at commas; a piece that looks like k=v (has '=' but no ':') continues
 * the previous formulation's parameters. */
static int split_formulations(const char *list, char names[][128], int *count) {
  *count = 0;
  if (!list) {
    for (int i = 0; i < CHSFormulationRegistry_Count() && *count < MAX_FORMS; i++) {
      snprintf(names[(*count)++], 128, "%s", CHSFormulationRegistry_Get(i)->name);
    }
    return 0;
  }
  const char *s = list;
  size_t total = strlen(list);
  if (total == 0 || list[total - 1] == ',') {
    return cli_usage_error("bad value for --formulations: '%.200s' (a comma-separated list of "
                           "formulations, see `chs list formulations`)",
                           list);
  }
  while (*s) {
    const char *comma = strchr(s, ',');
    size_t len = comma ? (size_t)(comma - s) : strlen(s);
    char piece[128];
    if (len == 0 || len >= sizeof piece) {
      return cli_usage_error("bad value for --formulations: '%.200s'", list);
    }
    memcpy(piece, s, len);
    piece[len] = '\0';
    int continues = *count > 0 && strchr(piece, '=') && !strchr(piece, ':');
    if (continues) {
      size_t used = strlen(names[*count - 1]);
      if (used + 1 + len >= 128) {
        return cli_usage_error("bad value for --formulations: '%.200s'", list);
      }
      names[*count - 1][used] = ',';
      memcpy(names[*count - 1] + used + 1, piece, len + 1);
    } else {
      if (*count >= MAX_FORMS) {
        return cli_usage_error("too many formulations in '%.200s' (at most %d)", list, MAX_FORMS);
      }
      if (cli_check_formulation(piece) != 0) {
        return CHS_EXIT_USAGE;
      }
      snprintf(names[(*count)++], 128, "%s", piece);
    }
    s += len + (comma ? 1 : 0);
  }
  for (int i = 0; i < *count; i++) { /* the same run twice is a mistake in the list */
    for (int k = 0; k < i; k++) {
      if (strcmp(names[i], names[k]) == 0) {
        return cli_usage_error("formulation '%s' given twice in --formulations", names[i]);
      }
    }
  }
  return 0;
}

static void print_table(const cli_options *o, const cli_result *res, int count) {
  char sp[2][1024];
  printf("problem %s, method %s, ", cli_safe(sp[0], sizeof sp[0], o->problem),
         cli_safe(sp[1], sizeof sp[1], o->method));
  if (o->have_h) {
    printf("h = %g", o->h);
  } else {
    printf("rtol = %g, atol = %g", o->rtol, o->atol);
  }
  printf(", t in [0, %g]\n\n", o->tf);
  printf("%-12s %8s %10s %13s %13s %13s %11s %11s %10s %9s\n", "formulation", "steps", "rhs_evals",
         "int_err_final", "int_err_max", "energy_err_mx", "|g| final", "|psi| final", "wall_s",
         "s/eval");
  double base = 0;
  for (int i = 0; i < count; i++) {
    const cli_result *r = &res[i];
    if (r->rc != 0) {
      printf("%-12s failed: %s\n", r->formulation, r->err.msg);
      continue;
    }
    const CHSRunSummary *s = &r->sum;
    const CHSDiagnosticsSummary *d = &s->diag;
    double per = s->rhs_evals > 0 ? s->wall_s / (double)s->rhs_evals : 0;
    if (base == 0) {
      base = per;
    }
    char ie[32] = "n/a", im[32] = "n/a";
    if (d->has_reference) {
      snprintf(ie, sizeof ie, "%.3e", (double)d->int_err_final);
      snprintf(im, sizeof im, "%.3e", (double)d->int_err_max);
    }
    printf("%-12s %8ld %10ld %13s %13s %13.3e %11.3e %11.3e %10.3g %9.3g\n", r->formulation,
           s->stats.steps, s->rhs_evals, ie, im, (double)d->energy_err_max,
           (double)d->pos_res_final, (double)d->mom_res_final, s->wall_s, per);
  }
  printf("\nint_err: |(q,p) - reference|_2; energy_err relative to H(0); s/eval: wall time per "
         "right-hand side evaluation inside the integrator (one run, indicative)\n");
}

/* Tolerance sweep (--tols HI:LO:N): every formulation without and, with --project KIND, with
 * projection; final errors per component against the reference (the problem's, else a computed
 * one as workprec's, cached the same way), max |g|, steps, evaluations and linear-solver setups.
 * Text: one row per run; --json: one object with a "runs" array. */
static const char *sweep_reference(CHSProblem prob, const cli_options *o, double *ref,
                                   rep_reference_info *ri, char *buf, size_t len, CHSError *err) {
  char cache_buf[4096];
  const char *cache_dir = rep_default_cache_dir(cache_buf, sizeof cache_buf);
  if (cache_dir && (make_dirs(cache_dir) != 0 || access(cache_dir, W_OK | X_OK) != 0)) {
    cache_dir = NULL; /* an unwritable default cache only costs the reference run */
  }
  if (rep_reference_cached(prob, o->problem, o->tf, 1e-12, cache_dir, o->quiet, ref, ri, err) !=
      0) {
    return NULL;
  }
  if (strcmp(ri->source, "problem") == 0) {
    snprintf(buf, len, "the problem's reference solution");
  } else {
    snprintf(buf, len, "%s, %s, est. error %.1e", ri->command, ri->source, ri->est_error);
  }
  return buf;
}

static void sweep_json_row(const char *form, const char *project, double tol, int rc,
                           const cli_result *res, const double *z, const double *ref, long n,
                           int first) {
  printf("%s\n    {\"formulation\": ", first ? "" : ",");
  json_string(stdout, form);
  printf(", \"project\": ");
  json_string(stdout, project);
  printf(", \"tol\": %.17g, \"status\": \"%s\", \"steps\": %ld, \"rhs_evals\": %ld", tol,
         rc ? "failed" : "ok", res->sum.stats.steps, res->sum.rhs_evals);
  if (rc) {
    printf(", \"message\": ");
    json_string(stdout, res->err.msg);
    printf("}");
    return;
  }
  printf(", \"lin_setups\": %ld", res->sum.stats.lin_setups);
  for (int part = 0; part < 2; part++) {
    printf(", \"%s\": [", part ? "err_p" : "err_q");
    for (long i = 0; i < n; i++) {
      double e = fabs(z[1 + part * n + i] - ref[1 + part * n + i]);
      printf("%s", i ? ", " : "");
      json_real(stdout, e, isfinite(e));
    }
    printf("]");
  }
  printf(", \"pos_res_max\": ");
  json_real(stdout, res->sum.diag.pos_res_max, isfinite(res->sum.diag.pos_res_max));
  printf("}");
}

/* The sweep after compare_check accepted every run's configuration: the reference (read from or
 * written to the cache only now), then the runs; a failed run is a row of the table and a message
 * on stderr (exit 3). */
static int compare_sweep(const cli_options *o, char names[][128], int count, CHSProblem prob) {
  double hi, lo;
  int nt;
  if (cli_parse_tol_sweep("--tols", o->tols, 32, &hi, &lo, &nt) != 0) {
    return CHS_EXIT_USAGE;
  }
  CHSError err;
  CHSError_Clear(&err);
  long n = CHSProblem_GetDims(prob)->n;
  double *ref = calloc(1 + 2 * (size_t)n, sizeof *ref), *z = calloc(1 + 2 * (size_t)n, sizeof *z);
  if (!ref || !z) {
    free(ref);
    free(z);
    return cli_out_of_memory();
  }
  ref[0] = z[0] = (double)n;
  int nproj = o->project ? 2 : 1, status = CHS_EXIT_OK;
  rep_reference_info ri;
  char how[4400];
  if (!sweep_reference(prob, o, ref, &ri, how, sizeof how, &err)) {
    fprintf(stderr, "chs: reference run failed: ");
    cli_fputs_safe(stderr, err.msg);
    fputc('\n', stderr);
    status = CHSError_IsInput(err.code) ? CHS_EXIT_USAGE : CHS_EXIT_NUMERIC;
    goto done;
  }
  if (o->json) {
    printf("{\n  \"problem\": ");
    json_string(stdout, o->problem);
    printf(",\n  \"method\": ");
    json_string(stdout, o->method);
    printf(",\n  \"tf\": %.17g,\n  \"reference\": ", o->tf);
    json_string(stdout, how);
    printf(",\n  \"runs\": [");
  } else {
    char sp[2][1024];
    printf("problem %s, method %s, t in [0, %g]; errors at the end against %s\n\n",
           cli_safe(sp[0], sizeof sp[0], o->problem), cli_safe(sp[1], sizeof sp[1], o->method),
           o->tf, how);
    printf("%-12s %-9s %7s %7s %7s %6s", "formulation", "project", "tol", "steps", "evals",
           "setups");
    for (long i = 0; i < n; i++) {
      printf("   err q%-3ld", i + 1);
    }
    for (long i = 0; i < n; i++) {
      printf("   err p%-3ld", i + 1);
    }
    printf(" %10s\n", "max|g|");
  }
  int first = 1;
  progress prog;
  double done = 0;
  progress_start(&prog, o->quiet, 1, "chs compare", 0, (double)(count * nproj * nt));
  for (int f = 0; f < count; f++) {
    for (int k = 0; k < nproj; k++) {
      for (int t = 0; t < nt; t++) {
        double tol = cli_tol_grid(hi, lo, nt, t);
        char item[200];
        snprintf(item, sizeof item, "%.60s%s tol %.0e", names[f], k ? " projected" : "", tol);
        progress_detail(&prog, item);
        progress_update(&prog, done);
        cli_options oo = *o;
        oo.have_h = 0;
        oo.rtol = oo.atol = tol;
        oo.every = 1000000000L;
        oo.project = k ? o->project : NULL;
        cli_result res;
        memset(&res, 0, sizeof res);
        int rc = cli_integrate(&oo, names[f], rep_final_monitor, z, prob, &res);
        progress_update(&prog, ++done);
        progress_interrupt_stdout(); /* the row on a line of its own */
        if (rc != 0) {
          int st = cli_exit_status(rc);
          status = st > status ? st : status;
          fprintf(stderr, "chs: %s%s, tol %.0e: ", names[f], k ? " projected" : "", tol);
          cli_fputs_safe(stderr, res.err.msg);
          fputc('\n', stderr);
        }
        if (o->json) {
          sweep_json_row(names[f], k ? o->project : "none", tol, rc, &res, z, ref, n, first);
          first = 0;
          continue;
        }
        printf("%-12s %-9s %7.0e ", names[f], k ? o->project : "none", tol);
        if (rc != 0) {
          printf("FAILED: ");
          cli_fputs_safe(stdout, res.err.msg);
          printf("\n");
          continue;
        }
        printf("%7ld %7ld %6ld", res.sum.stats.steps, res.sum.rhs_evals, res.sum.stats.lin_setups);
        for (long i = 0; i < 2 * n; i++) {
          printf(" %10.2e", fabs(z[1 + i] - ref[1 + i]));
        }
        printf(" %10.2e\n", res.sum.diag.pos_res_max);
      }
    }
  }
  progress_end(&prog);
  if (o->json) {
    printf("\n  ]\n}\n");
  }
done:
  free(ref);
  free(z);
  return status;
}

/* Every run compare would make, set up at t = 0 without a step (cli_check_setup): each formulation
 * and, with --tols, with and without --project at the sweep's first tolerance. The same checks for
 * --dry-run and before any work (a reference, a cache file, a table row). */
static int compare_check(const cli_options *o, char names[][128], int count, CHSProblem prob) {
  cli_options z = *o;
  if (o->tols) {
    double hi, lo;
    int nt;
    if (cli_parse_tol_sweep("--tols", o->tols, 32, &hi, &lo, &nt) != 0) {
      return CHS_EXIT_USAGE;
    }
    z.have_h = 0;
    z.rtol = z.atol = hi;
  }
  int rc = 0;
  for (int i = 0; i < count && rc == 0; i++) {
    for (int k = 0; k < (o->tols && o->project ? 2 : 1) && rc == 0; k++) {
      z.project = k ? o->project : (o->tols ? NULL : o->project);
      rc = cli_check_setup(&z, names[i], prob, names[i]);
    }
  }
  return rc;
}

int cmd_compare(int argc, char **argv) {
  cli_options o;
  int rc = cli_parse(CLI_COMPARE, argc, argv, &o);
  if (rc != 0) {
    return rc == CLI_HELP_DONE ? CHS_EXIT_OK : rc;
  }
  if (o.tols) { /* the sweep sets the tolerances */
    o.have_rtol = o.have_atol = 1;
    o.rtol = o.atol = 1;
  }
  if ((rc = cli_check_run_options(&o)) != 0) {
    return rc;
  }
  char names[MAX_FORMS][128];
  int count = 0;
  if ((rc = split_formulations(o.formulation, names, &count)) != 0) {
    return rc;
  }
  CHSError err;
  CHSError_Clear(&err);
  CHSProblem prob = NULL;
  if (CHSProblem_Create(o.problem, &prob, &err) != 0) {
    return cli_fail(&err);
  }
  if ((rc = compare_check(&o, names, count, prob)) != 0 || o.dry_run) {
    CHSProblem_Destroy(&prob);
    return rc != 0 ? rc : cli_dry_run_done(o.problem);
  }
  if (o.tols) {
    rc = compare_sweep(&o, names, count, prob);
    CHSProblem_Destroy(&prob);
    return rc;
  }
  cli_result *res = calloc((size_t)count, sizeof *res);
  if (!res) {
    CHSProblem_Destroy(&prob);
    return cli_out_of_memory();
  }
  int status = CHS_EXIT_OK;
  progress prog;
  progress_start(&prog, o.quiet, 1, "chs compare", 0, count);
  for (int i = 0; i < count; i++) {
    progress_detail(&prog, names[i]);
    progress_update(&prog, i);
    if (cli_integrate(&o, names[i], NULL, NULL, prob, &res[i]) != 0) {
      progress_interrupt();
      int st = cli_exit_status(res[i].rc);
      status = st > status ? st : status;
      fprintf(stderr, "chs: %s: ", names[i]);
      cli_fputs_safe(stderr, res[i].err.msg);
      fputc('\n', stderr);
    }
  }
  progress_end(&prog);
  if (o.json) {
    printf("{\n  \"problem\": ");
    json_string(stdout, o.problem);
    printf(",\n  \"method\": ");
    json_string(stdout, o.method);
    printf(",\n  \"runs\": [");
    int first = 1;
    for (int i = 0; i < count; i++) {
      if (res[i].rc == 0) {
        printf("%s\n    ", first ? "" : ",");
        json_run_object(stdout, &res[i], "    ");
        first = 0;
      }
    }
    printf("\n  ],\n  \"failures\": [");
    first = 1;
    for (int i = 0; i < count; i++) {
      if (res[i].rc != 0) {
        printf("%s\n    {\"formulation\": ", first ? "" : ",");
        json_string(stdout, res[i].formulation);
        printf(", \"message\": ");
        json_string(stdout, res[i].err.msg);
        printf("}");
        first = 0;
      }
    }
    printf("\n  ]\n}\n");
  } else {
    print_table(&o, res, count);
  }
  free(res);
  CHSProblem_Destroy(&prob);
  return status;
}
