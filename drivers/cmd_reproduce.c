/* chs reproduce EXPERIMENT [--json] [--plot-dir DIR]: the papers' experiments with their numbers
 * beside ours and every claim computed from the run. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "progress.h"
#include "reproduce.h"

static void print_json(const rep_experiment *ex, const rep_report *r) {
  printf("{\n  \"experiment\": ");
  json_string(stdout, ex->name);
  printf(",\n  \"rows\": [");
  for (int i = 0; i < r->nrows; i++) {
    printf("%s\n    {\"quantity\": ", i ? "," : "");
    json_string(stdout, r->rows[i].quantity);
    printf(", \"paper\": ");
    json_real(stdout, r->rows[i].paper, isfinite(r->rows[i].paper));
    printf(", \"ours\": ");
    json_real(stdout, r->rows[i].ours, isfinite(r->rows[i].ours));
    printf("}");
  }
  printf("\n  ],\n  \"claims\": [");
  for (int i = 0; i < r->nclaims; i++) {
    printf("%s\n    {\"claim\": ", i ? "," : "");
    json_string(stdout, r->claims[i].claim);
    printf(", \"holds\": %s, \"verdict\": \"%s\", \"evidence\": ",
           r->claims[i].holds < 0 ? "null" : (r->claims[i].holds ? "true" : "false"),
           r->claims[i].holds < 0 ? "undecided" : (r->claims[i].holds ? "holds" : "fails"));
    json_string(stdout, r->claims[i].evidence);
    printf("}");
  }
  printf("\n  ],\n  \"notes\": ");
  json_string(stdout, r->notes);
  printf("\n}");
}

static void print_table(const rep_experiment *ex, const rep_report *r) {
  printf("%s  (%s)\n%s\n\n%-58s %12s %12s\n", ex->name, ex->source, ex->summary, "quantity",
         "paper", "ours");
  for (int i = 0; i < r->nrows; i++) {
    char p[32] = "-", o[32] = "n/a";
    if (isfinite(r->rows[i].paper)) {
      snprintf(p, sizeof p, "%.3g", r->rows[i].paper);
    }
    if (isfinite(r->rows[i].ours)) {
      snprintf(o, sizeof o, "%.3g", r->rows[i].ours);
    }
    printf("%-58s %12s %12s\n", r->rows[i].quantity, p, o);
  }
  printf("\nclaims:\n");
  for (int i = 0; i < r->nclaims; i++) {
    printf("  [%s] %s\n         %s\n",
           r->claims[i].holds < 0 ? "undecided" : (r->claims[i].holds ? "holds" : "FAILS"),
           r->claims[i].claim, r->claims[i].evidence);
  }
  if (r->notes[0]) {
    printf("\nnotes:\n%s\n", r->notes);
  }
}

/* One experiment into r (memset by the caller, plot_dir set). */
static int run_one(const rep_experiment *ex, rep_report *r, CHSError *err) {
  CHSError_Clear(err);
  return ex->run(r, err);
}

static void count_claims(const rep_report *r, int *hold, int *fail, int *na) {
  *hold = *fail = *na = 0;
  for (int i = 0; i < r->nclaims; i++) {
    int h = r->claims[i].holds;
    *(h < 0 ? na : (h ? hold : fail)) += 1;
  }
}

/* --all: every experiment, then one summary table (JSON: {"experiments": [...], "summary":
 * [...]}). A failing claim is a finding (exit 0); an experiment that cannot run is an error
 * (reported in its row, exit status of the first such failure after the summary). */
static int reproduce_all(int json, int quiet, const char *plot_dir) {
  int first_rc = 0;
  CHSError first_err;
  CHSError_Clear(&first_err);
  typedef struct {
    int hold, fail, na, rc;
    char failing[1024];
    char error[CHS_ERROR_MSG_LEN];
  } row;
  row *rows = calloc(rep_experiment_count(), sizeof *rows);
  if (!rows) {
    return cli_out_of_memory();
  }
  if (json) {
    printf("{\n\"experiments\": [\n");
  }
  int printed = 0;
  progress prog;
  progress_start(&prog, quiet, 1, "chs reproduce --all", 0, rep_experiment_count());
  for (int k = 0; k < rep_experiment_count(); k++) {
    rep_report r;
    memset(&r, 0, sizeof r);
    r.plot_dir = plot_dir;
    CHSError err;
    progress_detail(&prog, rep_experiment_get(k)->name);
    progress_update(&prog, k);
    int rc = run_one(rep_experiment_get(k), &r, &err);
    progress_interrupt_stdout(); /* its table on lines of its own */
    rows[k].rc = rc;
    if (rc == 0) {
      count_claims(&r, &rows[k].hold, &rows[k].fail, &rows[k].na);
      for (int i = 0; i < r.nclaims; i++) {
        if (r.claims[i].holds == 0) {
          size_t used = strlen(rows[k].failing);
          snprintf(rows[k].failing + used, sizeof rows[k].failing - used, "%s%s", used ? "; " : "",
                   r.claims[i].claim);
        }
      }
      if (json) {
        printf("%s", printed++ ? ",\n" : "");
        print_json(rep_experiment_get(k), &r);
      } else {
        print_table(rep_experiment_get(k), &r);
        printf("\n");
      }
    } else {
      snprintf(rows[k].error, sizeof rows[k].error, "%s", err.msg);
      if (!first_rc) {
        first_rc = rc;
        first_err = err;
      }
    }
    free(r.rows);
    free(r.claims);
  }
  progress_end(&prog);
  if (json) {
    printf("\n],\n\"summary\": [");
    for (int k = 0; k < rep_experiment_count(); k++) {
      printf("%s\n  {\"experiment\": ", k ? "," : "");
      json_string(stdout, rep_experiment_get(k)->name);
      printf(", \"holding\": %d, \"failing\": %d, \"undecided\": %d, \"not_applicable\": %d, "
             "\"failing_claims\": ",
             rows[k].hold, rows[k].fail, rows[k].na, rows[k].na);
      json_string(stdout, rows[k].failing);
      printf(", \"error\": ");
      if (rows[k].rc) {
        json_string(stdout, rows[k].error);
      } else {
        printf("null");
      }
      printf("}");
    }
    printf("\n]\n}\n");
  } else {
    int th = 0, tf = 0, tn = 0;
    printf("summary\n%-30s %7s %7s %5s  %s\n", "experiment", "holding", "failing", "undec",
           "failing claims");
    for (int k = 0; k < rep_experiment_count(); k++) {
      if (rows[k].rc) {
        printf("%-30s %7s %7s %5s  error: %s\n", rep_experiment_get(k)->name, "-", "-", "-",
               rows[k].error);
        continue;
      }
      printf("%-30s %7d %7d %5d  %s\n", rep_experiment_get(k)->name, rows[k].hold, rows[k].fail,
             rows[k].na, rows[k].failing);
      th += rows[k].hold;
      tf += rows[k].fail;
      tn += rows[k].na;
    }
    printf("%-30s %7d %7d %5d\n", "total", th, tf, tn);
  }
  free(rows);
  int rc = first_rc;
  if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout))) {
    rc = cli_error(&first_err, CHS_ERR_IO, "could not write the standard output: %s",
                   strerror(errno));
  }
  return rc == 0 ? CHS_EXIT_OK : cli_fail(&first_err);
}

int cmd_reproduce(int argc, char **argv) {
  cli_options o;
  int prc = cli_parse(CLI_REPRODUCE, argc, argv, &o);
  if (prc != 0) {
    return prc == CLI_HELP_DONE ? CHS_EXIT_OK : prc;
  }
  const char *name = o.arg, *plot_dir = o.plot_dir;
  int json = o.json, all = o.all, quiet = o.quiet;
  if (all && name) {
    fprintf(stderr, "chs: reproduce: give an experiment or --all, not both ('%s')\n", name);
    return CHS_EXIT_USAGE;
  }
  const rep_experiment *ex = NULL;
  for (int k = 0; name && k < rep_experiment_count(); k++) {
    if (strcmp(rep_experiment_get(k)->name, name) == 0) {
      ex = rep_experiment_get(k);
    }
  }
  if (!ex && !all) {
    fprintf(stderr, "chs: unknown experiment '%s' (see `chs list experiments`)\n",
            name ? name : "");
    return CHS_EXIT_USAGE;
  }
  if (plot_dir && (!o.dry_run || access(plot_dir, F_OK) == 0) &&
      cli_check_output_dir("--plot-dir", plot_dir, !o.dry_run) != 0) {
    return CHS_EXIT_USAGE;
  }
  if (o.dry_run) {
    return cli_dry_run_done(all ? "every experiment" : ex->name);
  }
  if (all) {
    return reproduce_all(json, quiet, plot_dir);
  }
  rep_report r;
  memset(&r, 0, sizeof r);
  r.plot_dir = plot_dir;
  CHSError err;
  int rc = run_one(ex, &r, &err);
  if (rc == 0) {
    if (json) {
      print_json(ex, &r);
      printf("\n");
    } else {
      print_table(ex, &r);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
      rc = cli_error(&err, CHS_ERR_IO, "could not write the standard output: %s", strerror(errno));
    }
  }
  free(r.rows);
  free(r.claims);
  return rc == 0 ? CHS_EXIT_OK : cli_fail(&err);
}
