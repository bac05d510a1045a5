/* Output: JSON objects and CSV files (written to a temporary file, renamed when closed). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"

/* A JSON string: quotes, backslashes and control characters escaped; bytes that are not valid
 * UTF-8 become U+FFFD, so the document stays valid whatever a user typed. */
void json_string(FILE *out, const char *s) {
  fputc('"', out);
  for (const char *c = s; *c;) {
    unsigned char b = (unsigned char)*c;
    if (b == '"' || b == '\\') {
      fprintf(out, "\\%c", b);
      c++;
    } else if (b < 0x20 || b == 0x7f) {
      fprintf(out, "\\u%04x", b);
      c++;
    } else if (b < 0x80) {
      fputc(b, out);
      c++;
    } else {
      int len = cli_utf8_seq_len(c);
      if (len > 0) {
        fwrite(c, 1, (size_t)len, out);
        c += len;
      } else {
        fputs("\\ufffd", out);
        c++;
      }
    }
  }
  fputc('"', out);
}

void json_real(FILE *out, double x, int valid) {
  if (valid && isfinite(x)) {
    fprintf(out, "%.17g", x);
  } else {
    fputs("null", out);
  }
}

void json_long(FILE *out, long x, int valid) {
  if (valid && x >= 0) {
    fprintf(out, "%ld", x);
  } else {
    fputs("null", out);
  }
}

static void json_event_name(FILE *out, const cli_result *r, int k) {
  if (k >= 0 && k < CHS_MAX_EVENTS && r->event_names[k]) {
    json_string(out, r->event_names[k]);
  } else {
    fprintf(out, "\"event %d\"", k);
  }
}

/* Exactly the keys of DESIGN's `run` contract, in its order; then the energy balance keys for
 * problems that track it; events, events_total, stopped_at when events were located; q_final and
 * p_final (run); last, invariant_err_max (an object name -> largest drift) for problems with extra
 * invariants only. */
void json_run_head(FILE *out, const cli_result *r, const char *indent) {
  const CHSRunSummary *s = &r->sum;
  const CHSDiagnosticsSummary *d = &s->diag;
  char ver[64];
  int ref = d->has_reference, con = r->formulation[0] != '\0';
  CHS_SundialsVersion(ver, (int)sizeof ver);
  fprintf(out, "{\n%s  \"problem\": ", indent);
  json_string(out, r->problem);
  fprintf(out, ",\n%s  \"formulation\": ", indent);
  if (con) {
    json_string(out, r->formulation);
  } else {
    fputs("null", out);
  }
  fprintf(out, ",\n%s  \"method\": ", indent);
  json_string(out, r->method);
  fprintf(out, ",\n%s  \"sundials_version\": ", indent);
  json_string(out, ver);
  const struct {
    const char *key;
    double x;
    int valid, integer;
  } f[] = {
      {"t_final", d->t_final, 1, 0},
      {"steps", (double)s->stats.steps, 1, 1},
      {"rhs_evals", (double)s->rhs_evals, 1, 1},
      {"jac_evals", (double)s->stats.jac_evals, s->stats.jac_evals >= 0, 1},
      {"proj_position", (double)s->proj_position, s->proj_position >= 0, 1},
      {"proj_momentum", (double)s->proj_momentum, s->proj_momentum >= 0, 1},
      {"energy_err_max", d->energy_err_max, 1, 0},
      {"energy_err_final", d->energy_err_final, 1, 0},
      {"pos_res_max", d->pos_res_max, con, 0},
      {"pos_res_final", d->pos_res_final, con, 0},
      {"mom_res_max", d->mom_res_max, con, 0},
      {"mom_res_final", d->mom_res_final, con, 0},
      {"int_err_final", d->int_err_final, ref, 0},
      {"int_err_max", d->int_err_max, ref, 0},
      {"wall_s", s->wall_s, 1, 0},
  };
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
    fprintf(out, ",\n%s  \"%s\": ", indent, f[i].key);
    if (f[i].integer) {
      json_long(out, (long)f[i].x, f[i].valid);
    } else {
      json_real(out, f[i].x, f[i].valid);
    }
  }
}

void json_run_object(FILE *out, const cli_result *r, const char *indent) {
  const CHSRunSummary *s = &r->sum;
  const CHSDiagnosticsSummary *d = &s->diag;
  json_run_head(out, r, indent);
  /* energy_err (and energy_balance_err) are relative to |H(0)|, absolute when H(0) = 0 */
  fprintf(out, ",\n%s  \"energy_err_kind\": \"%s\"", indent,
          d->energy0 != 0 ? "relative" : "absolute");
  if (s->stats.nonlin_iters > 0) { /* implicit SUNDIALS methods: the nonlinear solver's work */
    fprintf(out,
            ",\n%s  \"nonlin_iters\": %ld,\n%s  \"nonlin_conv_fails\": %ld,\n%s  "
            "\"err_test_fails\": ",
            indent, s->stats.nonlin_iters, indent, s->stats.nonlin_conv_fails, indent);
    json_long(out, s->stats.err_test_fails, 1);
    if (s->stats.lin_iters > 0) { /* Krylov (cvode ls=spgmr) */
      fprintf(out, ",\n%s  \"lin_iters\": %ld,\n%s  \"lin_iters_per_newton\": ", indent,
              s->stats.lin_iters, indent);
      json_real(out, (double)s->stats.lin_iters / (double)s->stats.nonlin_iters, 1);
    }
  }
  if (s->stats.linear_solver) { /* cvode, ida: the Newton iterations' (ls=auto's choice or ls=) */
    fprintf(out, ",\n%s  \"linear_solver\": ", indent);
    json_string(out, s->stats.linear_solver);
  }
  if (cli_is_alpha_prk(r->method)) { /* the family's own statistics */
    fprintf(out, ",\n%s  \"alpha_max\": ", indent);
    json_real(out, s->stats.alpha_max, 1);
    fprintf(out, ",\n%s  \"alpha_dir2_steps\": %ld", indent, s->stats.alpha_dir2_steps);
  }
  if (r->has_wedge) { /* only when requested: the default keys do not change */
    fprintf(out, ",\n%s  \"wedge_err_max\": ", indent);
    json_real(out, r->wedge_err_max, 1);
    fprintf(out, ",\n%s  \"wedge_rel_err_max\": ", indent);
    json_real(out, r->wedge_rel_err_max, 1);
    fprintf(out, ",\n%s  \"wedge_linearisation\": \"%s\"", indent,
            r->wedge_exact ? "tangent-map" : "finite-differences");
  }
  if (r->has_estimate) { /* run --estimate-error (drivers/estimate.c) */
    fprintf(out, ",\n%s  \"estimated_error_final\": ", indent);
    json_real(out, r->est_error, 1);
    fprintf(out, ",\n%s  \"estimated_error_companion\": ", indent);
    json_string(out, r->est_companion);
  }
  if (r->has_auto) { /* --formulation/--method auto (CHSRunProblem_Choose) */
    fprintf(out, ",\n%s  \"auto_choice\": ", indent);
    json_string(out, r->auto_why);
  }
  /* Problems with explicit time dependence or a non-conservative force: the energy balance
   * (docs/mechanics.md "Energy balance"): |H - H0 - W| / |H0| and the work W at t_final. */
  if (d->balance_tracked) {
    fprintf(out, ",\n%s  \"energy_balance_err_max\": ", indent);
    json_real(out, d->balance_err_max, 1);
    fprintf(out, ",\n%s  \"energy_balance_err_final\": ", indent);
    json_real(out, d->balance_err_final, 1);
    fprintf(out, ",\n%s  \"energy_balance_work\": ", indent);
    json_real(out, d->work_final, 1);
  }
  /* The run's warnings (chs/run.h "Warnings"): always present, empty when none. */
  fprintf(out, ",\n%s  \"warnings\": [", indent);
  int nw = s->n_warnings < CHS_RUN_MAX_WARNINGS ? s->n_warnings : CHS_RUN_MAX_WARNINGS;
  for (int i = 0; i < nw; i++) {
    fprintf(out, "%s", i ? ", " : "");
    json_string(out, s->warnings[i]);
  }
  fprintf(out, "]");
  /* Events located (run --stop-at): each occurrence up to the end, the total, the stop. */
  if (s->events_located) {
    fprintf(out, ",\n%s  \"events\": [", indent);
    for (int i = 0; i < s->n_event_records; i++) {
      const CHSEventRecord *e = &s->events[i];
      fprintf(out, "%s{\"name\": ", i ? ", " : "");
      json_event_name(out, r, e->index);
      fprintf(out, ", \"t\": ");
      json_real(out, e->t, 1);
      fprintf(out, ", \"direction\": \"%s\"}", e->direction > 0 ? "rising" : "falling");
    }
    fprintf(out, "],\n%s  \"events_total\": %ld,\n%s  \"stopped_at\": ", indent, s->n_events,
            indent);
    if (s->stopped) {
      json_event_name(out, r, s->stop_event);
    } else {
      fputs("null", out);
    }
  }
  /* run: its CPU time (set-up included), per step, and the process's peak resident size */
  if (r->has_cost) {
    fprintf(out, ",\n%s  \"cpu_s\": ", indent);
    json_real(out, r->cpu_s, 1);
    fprintf(out, ",\n%s  \"cpu_per_step_s\": ", indent);
    json_real(out, s->stats.steps > 0 ? r->cpu_s / (double)s->stats.steps : 0, s->stats.steps > 0);
    fprintf(out, ",\n%s  \"cpu_system_s\": ", indent);
    json_real(out, r->cpu_system_s, 1);
    fprintf(out, ",\n%s  \"page_faults\": ", indent);
    json_long(out, r->page_faults, 1);
    fprintf(out, ",\n%s  \"peak_rss_bytes\": ", indent);
    json_long(out, r->peak_rss_kb * 1024L, r->peak_rss_kb > 0);
  }
  /* run: the final physical state (the last record's: the stop event's with --stop-at) */
  if (r->q_final && r->p_final) {
    const sunrealtype *v[2] = {r->q_final, r->p_final};
    for (int k = 0; k < 2; k++) {
      fprintf(out, ",\n%s  \"%s\": [", indent, k ? "p_final" : "q_final");
      for (sunindextype i = 0; i < r->n_final; i++) {
        fprintf(out, "%s", i ? ", " : "");
        json_real(out, v[k][i], 1);
      }
      fprintf(out, "]");
    }
  }
  /* Only for problems that declare extra invariants: their largest absolute drift. */
  if (d->n_invariants > 0) {
    fprintf(out, ",\n%s  \"invariant_err_max\": {", indent);
    for (int i = 0; i < d->n_invariants; i++) {
      fprintf(out, "%s", i ? ", " : "");
      json_string(out, d->invariant_names[i]);
      fprintf(out, ": ");
      json_real(out, d->invariant_err_max[i], 1);
    }
    fprintf(out, "}");
  }
  /* run --output with --json: the records' columns, last (the keys before do not change) */
  if (r->records) {
    fprintf(out, ",\n%s  ", indent);
    json_records(out, r->records, indent);
  }
  fprintf(out, "\n%s}", indent);
}

const char *cli_safe(char *buf, size_t len, const char *s) {
  if (len == 0) {
    return buf;
  }
  memset(buf, 0, len);
  FILE *m = len > 1 ? fmemopen(buf, len - 1, "w") : NULL;
  if (m) {
    setvbuf(m, NULL, _IONBF, 0);
    cli_fputs_safe(m, s);
    fclose(m);
  }
  buf[len - 1] = '\0';
  return buf;
}

int cli_check_output_file(const char *opt, const char *path) {
  const char *why = NULL;
  struct stat st;
  size_t len = path ? strlen(path) : 0;
  const char *base = path ? strrchr(path, '/') : NULL;
  base = base ? base + 1 : path;
  out_target t;
  if (len == 0) {
    why = "empty path";
  } else if (len >= 4000) {
    why = "path too long";
  } else if (path[len - 1] == '/' || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
    why = "a directory, not a file";
  } else if (out_target_resolve(path, &t, &why) != 0) {
    /* why says it */
  } else if (t.kind == OUT_THROUGH && access(path, W_OK) != 0) {
    why = strerror(errno);
  } else if (stat(t.dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    why = t.kind == OUT_REPLACE ? "its directory does not exist"
                                : "the temporary directory does not exist";
  } else if (access(t.dir, W_OK | X_OK) != 0) {
    why = t.kind == OUT_REPLACE ? "its directory is not writable"
                                : "the temporary directory is not writable";
  }
  if (why) {
    fprintf(stderr, "chs: cannot write %s ", opt);
    cli_fputs_safe(stderr, path ? path : "");
    fprintf(stderr, ": %s\n", why);
    return CHS_EXIT_USAGE;
  }
  return 0;
}

int cli_check_output_dir(const char *opt, const char *path, int create) {
  const char *why = NULL;
  struct stat st;
  if (!path || !*path) {
    why = "empty path";
  } else if (strlen(path) >= 3800) {
    why = "path too long";
  } else if (create && make_dirs(path) != 0) {
    why = errno == ENOTDIR ? "not a directory" : strerror(errno);
  } else if (stat(path, &st) != 0) {
    why = strerror(errno);
  } else if (!S_ISDIR(st.st_mode)) {
    why = "not a directory";
  } else if (access(path, W_OK | X_OK) != 0) {
    why = "not writable";
  }
  if (why) {
    fprintf(stderr, "chs: cannot write into %s ", opt);
    cli_fputs_safe(stderr, path ? path : "");
    fprintf(stderr, ": %s\n", why);
    return CHS_EXIT_USAGE;
  }
  return 0;
}

/* The CSV's text goes through these: the first failure is remembered (w->failed). */
static void csv_printf(csv_writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void csv_printf(csv_writer *w, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (vfprintf(w->out.fp, fmt, ap) < 0 && !w->failed) {
    w->failed = errno ? errno : EIO;
  }
  va_end(ap);
}

int csv_open(csv_writer *w, const char *path, const out_select *sel, CHSError *err) {
  memset(w, 0, sizeof *w);
  w->sel = sel;
  if (out_file_open(&w->out, path, err) != 0) {
    return err->code;
  }
  char name[OUT_NAME_LEN];
  for (long c = 0; c < sel->ncols; c++) {
    out_select_column_name(sel, c, name, sizeof name);
    csv_printf(w, "%s%s", c ? "," : "", name);
  }
  csv_printf(w, "\n");
  return 0;
}

/* One complete row per output time; a value without one (int_err without a reference) is an
 * empty field. A failed write stops the run (CHS_ERR_IO); csv_close then names the file. */
int csv_monitor(const CHSRecord *r, void *ctx) {
  csv_writer *w = ctx;
  for (long c = 0; c < w->sel->ncols; c++) {
    int valid = 0;
    double x = out_select_value(w->sel, c, r, &valid);
    if (valid) {
      csv_printf(w, c ? ",%.17g" : "%.17g", x);
    } else if (c) {
      csv_printf(w, ",");
    }
  }
  csv_printf(w, "\n");
  if (!w->failed && ferror(w->out.fp)) {
    w->failed = EIO;
  }
  return w->failed ? CHS_ERR_IO : 0;
}

int csv_close(csv_writer *w, CHSError *err) {
  if (!w->out.fp) {
    return 0;
  }
  if (w->failed) {
    int e = w->failed;
    out_file_abort(&w->out);
    if (err) {
      cli_error(err, CHS_ERR_IO, "could not write %.400s: %s", w->out.path, strerror(e));
    }
    return CHS_ERR_IO;
  }
  return out_file_commit(&w->out, err);
}

/* ------------------------------------------------------------------ run --output */

static const char *const out_keys[OUT_NKEYS] = {"t",       "q",        "p",      "v",
                                                "lambda",  "reaction", "energy", "energy_err",
                                                "pos_res", "mom_res",  "int_err"};

static void out_list_keys(FILE *fp) {
  for (int k = 0; k < OUT_NKEYS; k++) {
    fprintf(fp, "%s%s", k ? ", " : "", out_keys[k]);
  }
  fprintf(fp, " or all");
}

int out_select_parse(const char *opt, const char *spec, out_select *sel) {
  memset(sel, 0, sizeof *sel);
  const char *s = spec;
  while (1) {
    const char *e = strchr(s, ',');
    size_t len = e ? (size_t)(e - s) : strlen(s);
    int key = -1, all = len == 3 && strncmp(s, "all", 3) == 0;
    for (int k = 0; k < OUT_NKEYS && !all; k++) {
      if (strlen(out_keys[k]) == len && strncmp(s, out_keys[k], len) == 0) {
        key = k;
      }
    }
    int seen = 0;
    for (int j = 0; key >= 0 && j < sel->nkeys; j++) {
      seen |= sel->keys[j] == key;
    }
    if ((key < 0 && !all) || seen || (all && (sel->nkeys > 0 || e))) {
      char *item = strndup(s, len < 200 ? len : 200);
      fprintf(stderr, "chs: %s: ", opt);
      if (len == 0) {
        fprintf(stderr, "empty key in '");
        cli_fputs_safe(stderr, spec);
        fprintf(stderr, "'");
      } else {
        fprintf(stderr, "key '");
        cli_fputs_safe(stderr, item ? item : "");
        fprintf(stderr, "'%s", seen ? " given twice" : all ? " goes alone" : " is unknown");
      }
      fprintf(stderr, "; the keys: ");
      out_list_keys(stderr);
      fprintf(stderr, "\n");
      free(item);
      return CHS_EXIT_USAGE;
    }
    if (all) {
      for (int k = 0; k < OUT_NKEYS; k++) {
        sel->keys[k] = k;
      }
      sel->nkeys = OUT_NKEYS;
    } else {
      sel->keys[sel->nkeys++] = key;
    }
    if (!e) {
      return 0;
    }
    s = e + 1;
  }
}

/* 1 when name is 1 to 31 characters of [A-Za-z0-9_] starting with a letter. */
static int out_name_ok(const char *name) {
  size_t len = name ? strlen(name) : 0;
  if (len == 0 || len > 31 ||
      !((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z'))) {
    return 0;
  }
  for (const char *c = name; *c; c++) {
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
          *c == '_')) {
      return 0;
    }
  }
  return 1;
}

/* Copies of count names (32 bytes each), or NULL when there are none or one is not usable. */
static int out_copy_names(const char *const *names, long count, char **out) {
  *out = NULL;
  if (!names || count <= 0) {
    return 0;
  }
  for (long i = 0; i < count; i++) {
    if (!out_name_ok(names[i])) {
      return 0;
    }
  }
  char *buf = calloc((size_t)count, 32);
  if (!buf) {
    return -1;
  }
  for (long i = 0; i < count; i++) {
    snprintf(buf + 32 * i, 32, "%s", names[i]);
  }
  *out = buf;
  return 0;
}

static long out_key_width(const out_select *sel, int key) {
  switch (key) {
  case OUT_Q:
  case OUT_P:
  case OUT_V:
  case OUT_REACTION:
    return sel->n;
  case OUT_LAMBDA:
    return sel->m;
  default:
    return 1;
  }
}

int out_select_bind(out_select *sel, const CHSProblemDims *d) {
  sel->n = (long)d->n;
  sel->m = (long)d->m;
  if (out_copy_names(d->coordinate_names, sel->n, &sel->qnames) != 0 ||
      out_copy_names(d->constraint_names, sel->m, &sel->cnames) != 0) {
    out_select_free(sel);
    return -1;
  }
  sel->ncols = 0;
  for (int j = 0; j < sel->nkeys; j++) {
    sel->ncols += out_key_width(sel, sel->keys[j]);
  }
  return 0;
}

void out_select_free(out_select *sel) {
  free(sel->qnames);
  free(sel->cnames);
  sel->qnames = sel->cnames = NULL;
}

int out_select_needs_multipliers(const out_select *sel) {
  for (int j = 0; j < sel->nkeys; j++) {
    int k = sel->keys[j];
    if (k == OUT_V || k == OUT_LAMBDA || k == OUT_REACTION) {
      return 1;
    }
  }
  return 0;
}

void out_column_name(const out_select *sel, int kind, long i, char *buf, size_t len) {
  static const char *const prefix[OUT_NKEYS] = {[OUT_Q] = "",
                                                [OUT_P] = "p_",
                                                [OUT_V] = "v_",
                                                [OUT_REACTION] = "R_",
                                                [OUT_LAMBDA] = "lambda_"};
  static const char *const plain[OUT_NKEYS] = {
      [OUT_Q] = "q", [OUT_P] = "p", [OUT_V] = "v", [OUT_REACTION] = "R", [OUT_LAMBDA] = "lambda"};
  const char *names = kind == OUT_LAMBDA ? sel->cnames : sel->qnames;
  if (!plain[kind]) {
    snprintf(buf, len, "%s", out_keys[kind]);
  } else if (names) {
    snprintf(buf, len, "%s%s", prefix[kind], names + 32 * i);
  } else {
    snprintf(buf, len, "%s%ld", plain[kind], i + 1);
  }
}

void out_select_column(const out_select *sel, long c, int *kind, long *i) {
  for (int j = 0; j < sel->nkeys; j++) {
    long w = out_key_width(sel, sel->keys[j]);
    if (c < w) {
      *kind = sel->keys[j];
      *i = c;
      return;
    }
    c -= w;
  }
  *kind = OUT_T;
  *i = 0;
}

void out_select_column_name(const out_select *sel, long c, char *buf, size_t len) {
  int kind;
  long i;
  out_select_column(sel, c, &kind, &i);
  out_column_name(sel, kind, i, buf, len);
}

double out_select_value(const out_select *sel, long c, const CHSRecord *r, int *valid) {
  int kind;
  long i;
  out_select_column(sel, c, &kind, &i);
  const sunrealtype *vec = kind == OUT_Q          ? r->q
                           : kind == OUT_P        ? r->p
                           : kind == OUT_V        ? r->v
                           : kind == OUT_LAMBDA   ? r->lambda
                           : kind == OUT_REACTION ? r->reaction
                                                  : NULL;
  *valid = 1;
  switch (kind) {
  case OUT_T:
    return (double)r->t;
  case OUT_ENERGY:
    return (double)r->energy;
  case OUT_ENERGY_ERR:
    return (double)r->energy_err;
  case OUT_POS_RES:
    return (double)r->pos_res;
  case OUT_MOM_RES:
    return (double)r->mom_res;
  case OUT_INT_ERR:
    *valid = r->has_reference;
    return r->has_reference ? (double)r->int_err : NAN;
  default:
    *valid = vec != NULL;
    return vec ? (double)vec[i] : NAN;
  }
}

long out_select_find(const out_select *sel, const char *name) {
  char buf[OUT_NAME_LEN];
  /* the column names, then the numbered ones (q1, p1, v1, R1, lambda1) as aliases of the
   * declared names: a name always wins over an alias */
  out_select plain = *sel;
  plain.qnames = plain.cnames = NULL;
  for (int pass = 0; pass < 2; pass++) {
    for (long c = 0; c < sel->ncols; c++) {
      out_select_column_name(pass ? &plain : sel, c, buf, sizeof buf);
      if (strcmp(buf, name) == 0) {
        return c;
      }
    }
  }
  return -1;
}

int out_table_init(out_table *tb, const out_select *sel, const long *cols, long ncols) {
  memset(tb, 0, sizeof *tb);
  tb->sel = sel;
  tb->ncols = cols ? ncols : sel->ncols;
  tb->cols = malloc(((size_t)tb->ncols + 1) * sizeof *tb->cols);
  if (!tb->cols) {
    return -1;
  }
  for (long c = 0; c < tb->ncols; c++) {
    tb->cols[c] = cols ? cols[c] : c;
  }
  return 0;
}

int out_table_add(out_table *tb, const CHSRecord *rec) {
  if (tb->nrows == tb->cap) {
    long cap = tb->cap ? 2 * tb->cap : 256;
    if ((size_t)cap > SIZE_MAX / sizeof(double) / ((size_t)tb->ncols + 1)) {
      return -1;
    }
    double *x = realloc(tb->x, (size_t)cap * (size_t)tb->ncols * sizeof *x + 1);
    if (!x) {
      return -1;
    }
    tb->x = x;
    tb->cap = cap;
  }
  double *row = tb->x + (size_t)tb->nrows * (size_t)tb->ncols;
  for (long c = 0; c < tb->ncols; c++) {
    int valid;
    double x = out_select_value(tb->sel, tb->cols[c], rec, &valid);
    row[c] = valid ? x : NAN;
  }
  tb->nrows++;
  return 0;
}

void out_table_free(out_table *tb) {
  free(tb->cols);
  free(tb->x);
  memset(tb, 0, sizeof *tb);
}

void json_records(FILE *out, const out_table *tb, const char *indent) {
  char name[OUT_NAME_LEN];
  fprintf(out, "\"records\": {");
  for (long c = 0; c < tb->ncols; c++) {
    out_select_column_name(tb->sel, tb->cols[c], name, sizeof name);
    fprintf(out, "%s\n%s    ", c ? "," : "", indent);
    json_string(out, name);
    fprintf(out, ": [");
    for (long r = 0; r < tb->nrows; r++) {
      double x = tb->x[(size_t)r * (size_t)tb->ncols + (size_t)c];
      fprintf(out, "%s", r ? ", " : "");
      json_real(out, x, 1);
    }
    fprintf(out, "]");
  }
  fprintf(out, "\n%s  }", indent);
}
