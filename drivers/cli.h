/* The chs command: shared option parsing, exit statuses and output helpers. */
#ifndef CHS_CLI_H
#define CHS_CLI_H

#include <stdio.h>
#include "chs/chs.h"
#include "plot.h"

/* Exit statuses (DESIGN "Command-line contract"). */
#define CHS_EXIT_OK 0
#define CHS_EXIT_USAGE 2   /* bad input: option, value, name, inconsistent data */
#define CHS_EXIT_NUMERIC 3 /* the run failed numerically */

/* One subcommand: name, one-line summary, entry point. */
typedef struct {
  const char *name;
  const char *summary;
  int (*main)(int argc, char **argv);
} cli_command;

/* The subcommands whose options the option table (drivers/cli_options.c) describes. */
typedef enum {
  CLI_RUN,
  CLI_COMPARE,
  CLI_WORKPREC,
  CLI_REPRODUCE,
  CLI_BENCH_RHS,
  CLI_BENCH_DAE,
  CLI_BENCH_SCALE,
  CLI_BENCH_MPI,
  CLI_CHECK,
  CLI_LIST,
  CLI_COMPLETION,
  CLI_BENCH_CALIBRATE,
  CLI_BENCH_AUTO,
  CLI_NCOMMANDS
} cli_command_id;
#define CLI_MAX_PROBLEMS 16 /* bench rhs: --problem repeated at most this often */
/* The shortest time interval --tf T (from t = 0) other than 0. SUNDIALS' integrators start with
 * steps down to about 100 u T (u the unit round-off, 1.1e-16) and compare products of two times,
 * (tstop - t) h; the problems' references do likewise. These products must be normal doubles
 * (>= 2.2e-308; runs flush subnormals to zero by default): T >= sqrt(2.2e-308 / (100 u)), about
 * 1e-147. Measured: T = 1e-147 failed ("tstop is behind current t", "reference solution failed"),
 * 1e-140 ran; 1e-100 leaves 40 decades for the problems' own arithmetic in t. */
#define CLI_TF_MIN 1e-100
/* Longest value of a command-line option (bytes). */
#define CLI_MAX_VALUE_LEN 4096

/* Every subcommand's options; the option table says which field each option sets. */
typedef struct {
  int command; /* cli_command_id of the parse (first: no option lives at offset 0) */
  const char *problem;
  const char *formulation; /* run: one name; compare: comma-separated list */
  const char *method;
  const char *out;        /* run: FILE.csv; workprec: DIR */
  const char *project;    /* momentum|position|both or NULL */
  const char *subnormals; /* flush|keep: CHSRunOptions.subnormals */
  const char *tols;       /* compare, workprec: HI:LO:N tolerance sweep (checked by the parser) */
  double h, rtol, atol, tf, project_tol, project_newton_tol;
  long every, max_steps, project_every;
  int json, help;
  int wedge; /* run --wedge: the wedge product diagnostic (chs/wedge.h) */
  int have_h, have_rtol, have_atol, have_tf;
  const char *stop_at;  /* run --stop-at (repeatable, joined with commas): CHSRunOptions.stop_at */
  int quiet;            /* --quiet: no progress on stderr (drivers/progress.c) */
  int dry_run;          /* --dry-run: check every option and input, exit 0 before any work */
  int strict, no_check; /* run --strict / --no-check: CHSRunOptions.strict and .check */
  /* workprec */
  const char *configs, *cache_dir;
  int no_cache;
  long repeats;
  /* bench */
  const char *problems[CLI_MAX_PROBLEMS]; /* bench rhs: every --problem */
  int nproblems;
  const char *baseline;
  long evals, max_n;
  int have_max_n; /* --max-n given (bench scale) */
  int implicit;   /* bench scale --implicit (drivers/cmd_bench_scale_implicit.c) */
  long rounds;
  int have_rounds;
  /* check */
  long seed, points;
  /* reproduce */
  const char *plot_dir;
  int all;
  /* the subcommand's argument (reproduce EXPERIMENT, list WHAT, completion SHELL) or NULL */
  const char *arg;
  char stop_at_buf[CLI_MAX_VALUE_LEN];
  const char *plot; /* run --plot FILE.png: the run's diagnostics against t (cmd_run.c) */
  /* bench dae --scale (drivers/cmd_bench_dae_scale.c) */
  int scale, have_time_limit;
  const char *sizes, *scale_problems, *targets, *csv;
  double time_limit;
  long jitter; /* bench auto --jitter K (drivers/sweep.c) */
  /* bench mpi (drivers/cmd_bench_mpi.c) */
  const char *ranks, *mpirun;
  long n_strong, n_per_rank, steps;
  /* run --estimate-error (drivers/estimate.c) */
  int estimate_error;
  /* run --output KEY,... and --plot-vars NAME,... (drivers/report.c, cmd_run.c); multipliers:
   * CHSRunOptions.multipliers (set by cmd_run when a key needs them) */
  const char *output, *plot_vars;
  int multipliers;
  /* run --fix SPEC: components held in the consistent initial state (CHSProblem_Fix) */
  const char *fix;
} cli_options;

/* --problem NAME:help (built-in or plugin path): prints the problem's name, summary and parameters
 * and returns the exit status; -1 when spec does not end in ":help". */
int cli_problem_help(const char *spec);
/* cli_parse's return when it printed a help (--help, --problem NAME:help): exit 0. */
#define CLI_HELP_DONE (-1000)
/* Parse argv[1..] (argv[0]: the subcommand) of subcommand `cmd` with getopt_long from the option
 * table: defaults, kinds, ranges, required and exclusive options, options of other subcommands.
 * 0; CHS_EXIT_USAGE after a message naming the option and the value; CLI_HELP_DONE after --help
 * (printed on stdout) or --problem NAME:help. Resets getopt's state: callable repeatedly. */
int cli_parse(cli_command_id cmd, int argc, char **argv, cli_options *o);
/* The generated help of a subcommand; the reference of every subcommand as Markdown (docs/cli.md),
 * the man page chs(1) (roff) and the bash completion script. */
void cli_print_help(FILE *out, cli_command_id cmd);
void cli_print_markdown(FILE *out);
void cli_print_man(FILE *out);
void cli_print_bash_completion(FILE *out);
/* --dry-run after every check: "chs: dry run: ..." naming what would run on stderr; exit 0. */
int cli_dry_run_done(const char *what);
/* Check that the options needed to integrate are present and consistent. */
int cli_check_run_options(const cli_options *o);
void cli_run_options(const cli_options *o, CHSRunOptions *ro);

/* 0 when spec's name ("name[:k=v,...]") is a registered formulation; else message, exit 2. */
int cli_check_formulation(const char *spec);

/* Print "chs: message" on stderr and return the exit status for code. */
int cli_fail(const CHSError *err);
/* cli_fail for a failure known by its code and message (msg "": the code's name). */
int cli_fail_code(int code, const char *msg);
/* err filled: its code and the message (printf format); returns code. */
int cli_error(CHSError *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "chs: out of memory" on stderr; returns CHS_EXIT_NUMERIC. */
int cli_out_of_memory(void);
/* Numbers of command-line options: 0, or the usage exit status after a message naming the option
 * and the value (not a number, out of range). */
int cli_parse_real(const char *opt, const char *s, double *x);
int cli_parse_long(const char *opt, const char *s, long *x);
int cli_parse_real_above(const char *opt, const char *s, double lo, double *x);
int cli_parse_long_min(const char *opt, const char *s, long lo, long *x);
/* An integer in [lo, hi] (no overflow, no trailing junk); message naming the option and value. */
int cli_parse_long_range(const char *opt, const char *s, long lo, long hi, long *x);
int cli_parse_list(const char *opt, const char *text, int max, int real, double lo, double hi,
                   double *vals, int *count);
/* Point i (0 .. count-1) of the logarithmic grid from hi to lo that a HI:LO:COUNT sweep names:
 * hi and lo exactly at its ends, rounded to 12 significant digits between. */
double cli_tol_grid(double hi, double lo, int count, int i);
/* A tolerance sweep "HI:LO:COUNT": HI >= LO > 0 finite, COUNT in [1, max_count]. */
int cli_parse_tol_sweep(const char *opt, const char *text, int max_count, double *hi, double *lo,
                        int *count);
/* Print "chs: message" (printf format) safely on stderr; returns CHS_EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Write s with control bytes and bytes that are not valid UTF-8 as \xNN (messages naming user
 * input never put raw terminal controls on a terminal). */
void cli_fputs_safe(FILE *out, const char *s);
/* s escaped as cli_fputs_safe writes it, into buf (truncated to len); returns buf. For reports
 * on stdout that print a user's text (a plugin path) in a formatted column. */
const char *cli_safe(char *buf, size_t len, const char *s);
/* Length (1-4) of the valid UTF-8 sequence at s, 0 for an invalid one, a C1 control or the end. */
int cli_utf8_seq_len(const char *s);
int cli_exit_status(int code);
/* The process's peak resident size in KiB (0 unknown): /proc/self/status's VmHWM, the peak of
 * this address space. getrusage's ru_maxrss keeps, across exec, the size of the parent that
 * forked the process: a 7 MB run started from a 500 MB Python process reported 539 MB. */
long cli_peak_rss_kb(void);
/* 1 when method is of the alpha-prk family (its statistics alpha_max, alpha_dir2_steps apply). */
int cli_is_alpha_prk(const char *method);

/* One integration as `chs run` does it (monitor may be NULL). */
typedef struct {
  char problem[256], formulation[128], method[128];
  CHSRunSummary sum;
  int has_wedge;            /* run --wedge */
  double wedge_err_max;     /* max_n |omega_n - omega_0|, omega_0 = 1 */
  double wedge_rel_err_max; /* the same relative to |dz1_n| |dz2_n| */
  int wedge_exact;          /* the method's tangent map (1) or finite differences (0) */
  int rc;
  CHSError err;
  /* run only (set by cmd_run after the run): the final physical state (JSON q_final, p_final;
   * NULL: not printed) and the problem's event names (the summary's events index them) */
  const sunrealtype *q_final, *p_final;
  sunindextype n_final;
  /* run only: the CPU time of cli_integrate (formulation and integrator set-up included), the part
   * of it spent in the kernel and the page faults taken meanwhile (at scale mostly first touches
   * of fresh memory, which the kernel zeroes), and the process's peak resident size (JSON cpu_s,
   * cpu_per_step_s, cpu_system_s, page_faults, peak_rss_bytes; has_cost 0: not printed) */
  int has_cost;
  double cpu_s, cpu_system_s;
  long page_faults;
  long peak_rss_kb;
  const char *event_names[CHS_MAX_EVENTS];
  /* run --estimate-error: the estimated final global error and the companion that gave it */
  int has_estimate;
  double est_error;
  char est_companion[160];
  /* run with --formulation or --method auto (CHSRunProblem_Choose): why the configuration */
  int has_auto;
  char auto_why[600];
  /* run --output with --json: the records' selected columns (JSON key "records"); NULL: none */
  const struct out_table *records;
} cli_result;
/* The configuration a run with options o (formulation and method given or auto) makes on prob:
 * CHSRunProblem_Choose with o's run options. 0, or its error (err set). */
int cli_auto_choose(const cli_options *o, CHSProblem prob, CHSRunChoice *c, CHSError *err);
int cli_integrate(const cli_options *o, const char *formulation, CHSMonitorFn monitor, void *ctx,
                  CHSProblem prob, cli_result *res);
/* The check every subcommand makes before its work and --dry-run stops after: the run of o with
 * formulation on prob set up at t = 0, no step taken (the formulation created, the method set up
 * and its combination with the formulation checked, the initial state evaluated). 0, or the exit
 * status after "chs: LABEL: message" (label NULL: "chs: message") on stderr. */
int cli_check_setup(const cli_options *o, const char *formulation, CHSProblem prob,
                    const char *label);
/* cli_integrate with its cost measured (has_cost, cpu_s, cpu_system_s, page_faults and
 * peak_rss_kb): `chs run`'s measure, and the runs of `bench scale --implicit`. */
void cli_integrate_costed(const cli_options *o, const char *formulation, CHSMonitorFn monitor,
                          void *ctx, CHSProblem prob, cli_result *res);

/* The median of v[0 .. n) (n >= 1), sorting v in place: the lower of the middle two when n is
 * even (bench dae, workprec, bench scale --implicit). */
double cli_median(double *v, int n);
/* --problems of the scale benchmarks: the bits (1 chain, 2 pendulum-chain) of a comma-separated
 * list naming each at most once; NULL: both (3); 0 after a message naming the value. */
int cli_scale_problems(const char *list);

/* JSON helpers: numbers print with 17 significant digits, non-finite or n/a as null. */
void json_string(FILE *out, const char *s);
void json_real(FILE *out, double x, int valid);
void json_long(FILE *out, long x, int valid);
void json_run_object(FILE *out, const cli_result *r, const char *indent);
/* The object's first keys, up to wall_s (left open): also the whole contract of a first-order
 * run, whose r has formulation "" (null; then pos_res and mom_res are null too) and jac_evals,
 * proj_position, proj_momentum < 0 (null). */
void json_run_head(FILE *out, const cli_result *r, const char *indent);

/* CSV written to a temporary file in the target directory and renamed when closed (plot.h's
 * out_file), so the named file is never half-written: on a numerical failure it holds every
 * complete row up to the failure; when a write fails there is no file (and csv_close names it). */
struct out_select;
typedef struct {
  out_file out;
  const struct out_select *sel; /* the columns (run --output) */
  int failed;                   /* errno of the first failed write, 0 */
} csv_writer;
int csv_open(csv_writer *w, const char *path, const struct out_select *sel, CHSError *err);
int csv_monitor(const CHSRecord *rec, void *ctx);
int csv_close(csv_writer *w, CHSError *err);

/* Output paths, checked before any integration: 0, or CHS_EXIT_USAGE after a message naming the
 * option and the path. A file: not empty, not a directory ("." "/" "x/"), not an existing
 * non-regular file (/dev/full: outputs are renamed into place), its directory exists and is
 * writable. A directory: created (mkdir -p) when `create`, a writable directory. */
int cli_check_output_file(const char *opt, const char *path);
int cli_check_output_dir(const char *opt, const char *path, int create);

/* First-order Lagrangian problems (chs/first_order.h) in `chs run` (cmd_run_first_order.c):
 * 1 when spec names one (and no natural problem); the run after the common option checks. */
int cli_is_first_order(const char *spec);
int cmd_run_first_order(const cli_options *o);

/* run --output: which quantities of each record go to the CSV (--out) and to the JSON's
 * "records" (drivers/report.c, docs/cli.md "Output columns"). A column is a quantity (OUT_*) and,
 * for the vectors, an index; its name comes from out_column_name alone. */
enum {
  OUT_T,
  OUT_Q,
  OUT_P,
  OUT_V,
  OUT_LAMBDA,
  OUT_REACTION,
  OUT_ENERGY,
  OUT_ENERGY_ERR,
  OUT_POS_RES,
  OUT_MOM_RES,
  OUT_INT_ERR,
  OUT_NKEYS
};
/* The CSV's columns without --output (the layout before --output existed). */
#define OUT_DEFAULT_KEYS "t,q,p,energy,energy_err,pos_res,mom_res,int_err"
#define OUT_NAME_LEN 48 /* a column name, NUL included */
typedef struct out_select {
  int nkeys, keys[OUT_NKEYS]; /* in the order given */
  long n, m, ncols;           /* coordinates, constraints, columns (out_select_bind) */
  char *qnames, *cnames;      /* copies of the problem's names (32 bytes each), or NULL */
} out_select;
/* Parses "t,q,lambda" (or "all") into sel: 0, or CHS_EXIT_USAGE after a message naming the bad or
 * repeated key and listing the valid ones (opt: the option named in the message). */
int out_select_parse(const char *opt, const char *spec, out_select *sel);
/* The sizes and names of the problem (copied: the selection outlives the problem); 0 or -1 (out of
 * memory). Names that are not 1 to 31 characters of [A-Za-z0-9_] starting with a letter are not
 * used (the kind falls back to q1, lambda1, ...). */
int out_select_bind(out_select *sel, const CHSProblemDims *d);
void out_select_free(out_select *sel);
/* 1 when a key needs CHSRunOptions.multipliers (v, lambda, reaction). */
int out_select_needs_multipliers(const out_select *sel);
/* The name of quantity `kind` (OUT_*) at index i (0-based; ignored for scalars), with the
 * problem's names when sel has them: q th1, p p_th1, v v_th1, reaction R_th1, lambda
 * lambda_<constraint>; without them q1, p1, v1, R1, lambda1. */
void out_column_name(const out_select *sel, int kind, long i, char *buf, size_t len);
/* Column c of sel: its kind and index, its name, its value in rec (*valid 0: none, e.g. int_err
 * without a reference). */
void out_select_column(const out_select *sel, long c, int *kind, long *i);
void out_select_column_name(const out_select *sel, long c, char *buf, size_t len);
double out_select_value(const out_select *sel, long c, const CHSRecord *rec, int *valid);
/* The column of sel named name, or -1. */
long out_select_find(const out_select *sel, const char *name);
/* Records kept in memory (JSON "records", run --plot-vars): the columns cols[0 .. ncols) of sel,
 * one row per record; values without one (int_err without a reference) as NaN. */
typedef struct out_table {
  const out_select *sel;
  long ncols, *cols;
  long nrows, cap;
  double *x; /* row-major */
} out_table;
/* cols NULL: every column of sel. 0 or -1 (out of memory). */
int out_table_init(out_table *tb, const out_select *sel, const long *cols, long ncols);
int out_table_add(out_table *tb, const CHSRecord *rec); /* 0 or -1 (out of memory) */
void out_table_free(out_table *tb);
/* "records": {"NAME": [values...], ...} (null for a value without one), no leading comma. */
void json_records(FILE *out, const out_table *tb, const char *indent);

int cmd_run(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_bench_scale(int argc, char **argv);
int cmd_bench_scale_implicit(const cli_options *o);
int cmd_bench_dae_scale(const cli_options *o);  /* chs bench dae --scale */
int cmd_bench_mpi(int argc, char **argv);       /* chs bench mpi (drivers/cmd_bench_mpi.c) */
int cmd_bench_calibrate(int argc, char **argv); /* drivers/cmd_bench_calibrate.c */
int cmd_bench_auto(int argc, char **argv);      /* drivers/cmd_bench_auto.c */
/* problem NULL: the built-in set; else that problem to t = tf */
int cmd_bench_dae(int json, int quiet, const char *problem, double tf);
int cmd_reproduce(int argc, char **argv);
int cmd_workprec(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_completion(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_man(int argc, char **argv);

#endif
