/* The option table of the chs command: every subcommand's options (name, kind of value, metavar,
 * help, default, subcommands, destination field). From it come the parsing (getopt_long), the
 * validation, the generated --help, the Markdown reference (docs/cli.md), the man page chs(1) and
 * the bash completion script.
 *
 * Adding an option is one entry in `options` below (and a field in cli_options), e.g.
 *   {"plot", CLI_STR, "FILE.png", M(CLI_RUN), 0, F(plot), 0, .complete = CLI_C_FILE,
 *    .help = "draw the run (errors, residuals, energy against t) into FILE.png"},
 * The parser then accepts --plot FILE.png and --plot=FILE.png in `chs run` only, refuses an empty
 * or too long value, a second --plot and --plot in other subcommands (exit 2), and the help, the
 * man page, the completion and docs/cli.md list it. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "reproduce.h"

/* Kinds of option values. */
typedef enum {
  CLI_FLAG,   /* no value: the int field becomes 1 */
  CLI_REAL,   /* a finite real >= lo (> lo with .open) */
  CLI_LONG,   /* an integer in [lo, hi] */
  CLI_STR,    /* non-empty text, shorter than .max bytes (default CLI_MAX_VALUE_LEN) */
  CLI_CHOICE, /* one of .choices ("a|b|c") */
  CLI_SWEEP,  /* a tolerance sweep HI:LO:N, N <= hi */
  CLI_JOIN,   /* repeatable text: the values joined with commas (run --stop-at) */
  CLI_MULTI   /* repeatable text: up to hi values in a const char * array (bench rhs --problem) */
} cli_kind;

/* What the completion offers for a value. */
typedef enum {
  CLI_C_NONE,
  CLI_C_FILE,
  CLI_C_DIR,
  CLI_C_PROBLEM,
  CLI_C_FORMULATION,
  CLI_C_METHOD,
  CLI_C_CHOICE
} cli_complete;

typedef struct {
  const char *name; /* without "--" */
  cli_kind kind;
  const char *metavar; /* NULL for flags */
  unsigned commands;   /* mask of the subcommands that accept it */
  unsigned required;   /* mask of the subcommands that need it */
  size_t offset;       /* destination field in cli_options */
  size_t have;         /* int field set to 1 when given (0: none) */
  double lo, hi;       /* CLI_REAL (lo), CLI_LONG ([lo, hi]), CLI_SWEEP (hi: max N), CLI_MULTI */
  int open;            /* CLI_REAL: > lo instead of >= lo */
  double nonzero_min;  /* CLI_REAL: a value other than 0 is at least this (0: no bound) */
  size_t max;          /* CLI_STR: the value is shorter than max bytes (0: CLI_MAX_VALUE_LEN) */
  const char *choices; /* CLI_CHOICE: "a|b|c" */
  const char *def;     /* default, parsed as a given value would be; shown in the help */
  cli_complete complete;
  const char *help;
} cli_option;

#define UNBOUNDED 1e19 /* CLI_LONG: no upper bound but LONG_MAX */
#define M(c) (1u << (c))
#define F(field) offsetof(cli_options, field)
#define ALL_INT (M(CLI_RUN) | M(CLI_COMPARE) | M(CLI_WORKPREC) | M(CLI_REPRODUCE) | BENCH)
#define BENCH (M(CLI_BENCH_RHS) | M(CLI_BENCH_DAE) | M(CLI_BENCH_SCALE) | M(CLI_BENCH_MPI))
#define RC (M(CLI_RUN) | M(CLI_COMPARE))
#define RES_LEN(field) sizeof(((cli_result *)0)->field)

/* clang-format off */
static const cli_option options[] = {
  {"problem", CLI_STR, "P[:k=v,...]", RC | M(CLI_WORKPREC) | M(CLI_CHECK) | M(CLI_BENCH_DAE), RC | M(CLI_WORKPREC) | M(CLI_CHECK), F(problem), 0, .max = RES_LEN(problem), .complete = CLI_C_PROBLEM,
   .help = "the problem: a built-in name or a plugin ./PATH.so, with parameters :k=v,...; P:help prints its parameters"},
  {"problem", CLI_MULTI, "P[:k=v,...]", M(CLI_BENCH_RHS), 0, F(problems), F(nproblems), .hi = CLI_MAX_PROBLEMS, .complete = CLI_C_PROBLEM,
   .help = "a problem to time (repeatable, at most 16; default: every built-in problem)"},
  {"formulation", CLI_STR, "F[:k=v,...]", M(CLI_RUN), 0, F(formulation), 0, .max = RES_LEN(formulation), .complete = CLI_C_FORMULATION,
   .help = "the formulation (not for first-order Lagrangian problems such as fj-example); auto (the default) chooses it (docs/auto.md)"},
  {"formulations", CLI_STR, "F1,F2,...", M(CLI_COMPARE), 0, F(formulation), 0, .complete = CLI_C_FORMULATION,
   .help = "comma-separated formulations (default: every registered one)"},
  {"method", CLI_STR, "M", RC, M(CLI_COMPARE), F(method), 0, .max = RES_LEN(method), .complete = CLI_C_METHOD,
   .help = "the method: FAMILY or FAMILY:OPTIONS (chs list methods); run: auto (the default) chooses it (docs/auto.md)"},
  {"configs", CLI_STR, "F/M[/PROJ],...", M(CLI_WORKPREC), M(CLI_WORKPREC), F(configs), 0,
   .help = "configurations: formulation/method[/momentum|position|both], at most 16; adaptive methods only (rtol = atol = tol)"},
  {"h", CLI_REAL, "H", RC, 0, F(h), F(have_h), .lo = 0, .open = 1,
   .help = "fixed step size (outputs every K steps, reached exactly)"},
  {"rtol", CLI_REAL, "R", RC, 0, F(rtol), F(have_rtol), .lo = 0, .open = 1,
   .help = "relative tolerance of adaptive step size control (with --atol); with --h, the nonlinear solver tolerance of implicit methods"},
  {"atol", CLI_REAL, "A", RC, 0, F(atol), F(have_atol), .lo = 0, .open = 1,
   .help = "absolute tolerance (with --rtol)"},
  {"tf", CLI_REAL, "T", RC, RC, F(tf), F(have_tf), .lo = 0, .nonzero_min = CLI_TF_MIN,
   .help = "final time (from t = 0): 0, or at least 1e-100"},
  {"tf", CLI_REAL, "T", M(CLI_WORKPREC) | M(CLI_BENCH_DAE), M(CLI_WORKPREC), F(tf), F(have_tf), .lo = 0, .open = 1, .nonzero_min = CLI_TF_MIN,
   .help = "final time (from t = 0), at least 1e-100; bench dae: with --problem"},
  {"tols", CLI_SWEEP, "HI:LO:N", M(CLI_COMPARE) | M(CLI_WORKPREC), M(CLI_WORKPREC), F(tols), 0, .hi = 32,
   .help = "N tolerances from HI down to LO, logarithmically spaced (HI >= LO > 0, N in 1 .. 32; N = 1 runs HI); compare: a sweep of every formulation, with and without --project"},
  {"every", CLI_LONG, "K", RC, 0, F(every), 0, .lo = 1, .hi = UNBOUNDED, .def = "1",
   .help = "output every K steps"},
  {"out", CLI_STR, "FILE.csv", M(CLI_RUN), 0, F(out), 0, .complete = CLI_C_FILE,
   .help = "one row per output time: the columns of --output (default t, q, p, energy and errors); never half-written"},
  {"plot", CLI_STR, "FILE.png", M(CLI_RUN), 0, F(plot), 0, .complete = CLI_C_FILE,
   .help = "draw the run against t into FILE.png: integration error (with a reference), |g| and |G M^-1 p|, energy error"},
  {"out", CLI_STR, "DIR", M(CLI_WORKPREC), 0, F(out), 0, .complete = CLI_C_DIR,
   .help = "write the CSV and the PNG plots into DIR (created)"},
  {"project", CLI_CHOICE, "KIND", RC, 0, F(project), 0, .choices = "momentum|position|both", .complete = CLI_C_CHOICE,
   .help = "project after each step when |g| or |psi| > --project-tol"},
  {"project-tol", CLI_REAL, "EPS", RC, 0, F(project_tol), 0, .lo = 0, .def = "0",
   .help = "projection threshold (0: always)"},
  {"project-every", CLI_LONG, "K", RC, 0, F(project_every), 0, .lo = 0, .hi = UNBOUNDED,
   .help = "project only every K steps"},
  {"project-newton-tol", CLI_REAL, "EPS", RC, 0, F(project_newton_tol), 0, .lo = 0,
   .help = "stop the position projection's Newton iteration at |g| <= EPS"},
  {"max-steps", CLI_LONG, "N", RC, 0, F(max_steps), 0, .lo = 1, .hi = (double)CHS_RUN_MAX_STEPS_LIMIT,
   .help = "bound on the steps of the whole run (default 5000000); with --h, ceil(tf/h) > N is refused before any work"},
  {"max-steps", CLI_LONG, "N", M(CLI_WORKPREC), 0, F(max_steps), 0, .lo = 1, .hi = 1e12,
   .help = "bound on the steps of each run (more is a failed point)"},
  {"subnormals", CLI_CHOICE, "MODE", RC, 0, F(subnormals), 0, .choices = "flush|keep", .def = "flush", .complete = CLI_C_CHOICE,
   .help = "flush: values below 2.2e-308 become 0 during the run (solutions decaying through a large system reach them, and each costs a microcode assist); keep: IEEE gradual underflow"},
  {"stop-at", CLI_JOIN, "EVENT[,...]", M(CLI_RUN), 0, F(stop_at), 0,
   .help = "stop at the first occurrence of the problem's event EVENT (a comma-separated list, repeatable, or all); every event up to there is reported"},
  {"wedge", CLI_FLAG, NULL, M(CLI_RUN), 0, F(wedge), 0,
   .help = "(with --h) also the wedge product of two tangents carried by the step map: wedge_err_max = max |omega(t) - omega(0)|"},
  {"repeats", CLI_LONG, "R", M(CLI_WORKPREC), 0, F(repeats), 0, .lo = 1, .hi = 100, .def = "3",
   .help = "runs per point; the wall time is their median"},
  {"cache-dir", CLI_STR, "DIR", M(CLI_WORKPREC) | M(CLI_BENCH_DAE), 0, F(cache_dir), 0, .complete = CLI_C_DIR,
   .help = "cache of computed references (default $XDG_CACHE_HOME/chs/references or ~/.cache/chs/references)"},
  {"no-cache", CLI_FLAG, NULL, M(CLI_WORKPREC) | M(CLI_BENCH_DAE), 0, F(no_cache), 0,
   .help = "compute the reference, neither read nor write the cache"},
  {"baseline", CLI_STR, "P", M(CLI_BENCH_RHS), 0, F(baseline), 0, .complete = CLI_C_PROBLEM,
   .help = "time P in the same rounds: column vs-baseline (needs --problem)"},
  {"evals", CLI_LONG, "N", M(CLI_BENCH_RHS), 0, F(evals), 0, .lo = 1, .hi = 1e7, .def = "200000",
   .help = "evaluations per round"},
  {"max-n", CLI_LONG, "N", M(CLI_BENCH_SCALE), 0, F(max_n), F(have_max_n), .lo = 10, .hi = 1e6, .def = "100000",
   .help = "the largest chain (a power of ten)"},
  {"implicit", CLI_FLAG, NULL, M(CLI_BENCH_SCALE), 0, F(implicit), 0,
   .help = "instead: the implicit solvers (IDA + KLU, IDA and CVODE + GMRES) at N/10 and N, time per step and memory per atom (docs/scale.md)"},
  {"rounds", CLI_LONG, "R", M(CLI_BENCH_SCALE), 0, F(rounds), F(have_rounds), .lo = 1, .hi = 99, .def = "5",
   .help = "(--implicit) interleaved rounds: every run at both sizes once per round"},
  {"sizes", CLI_STR, "N,...", M(CLI_BENCH_SCALE), 0, F(sizes), 0, .max = 512,
   .help = "(--implicit) instead of N/10 and N: the cost per atom and step at each size, each 10 .. 1000000, 2 .. 8 of them"},
  {"problems", CLI_STR, "LIST", M(CLI_BENCH_SCALE), 0, F(scale_problems), 0, .max = 128,
   .help = "(--implicit) chain, pendulum-chain or both (default both)"},
  {"time-limit", CLI_REAL, "S", M(CLI_BENCH_SCALE), 0, F(time_limit), F(have_time_limit), .lo = 0.1,
   .help = "(--implicit) seconds per run, at most 86400 (default 600: a run over it is killed)"},
  {"scale", CLI_FLAG, NULL, M(CLI_BENCH_DAE), 0, F(scale), 0,
   .help = "DAE against stabilised ODE as a function of size: the chain (coil, thermal) and the pendulum chain of N atoms (docs/scale.md)"},
  {"sizes", CLI_STR, "N,...", M(CLI_BENCH_DAE), 0, F(sizes), 0, .max = 512,
   .help = "(--scale) sizes, each 2 .. 1000000, at most 8 (default 100,1000,10000)"},
  {"problems", CLI_STR, "LIST", M(CLI_BENCH_DAE), 0, F(scale_problems), 0, .max = 128,
   .help = "(--scale) chain, pendulum-chain or both (default both)"},
  {"targets", CLI_STR, "E,...", M(CLI_BENCH_DAE), 0, F(targets), 0, .max = 512,
   .help = "(--scale) final error targets in (0, 1) (default 1e-4,1e-5,1e-6,1e-7,1e-8)"},
  {"time-limit", CLI_REAL, "S", M(CLI_BENCH_DAE), 0, F(time_limit), F(have_time_limit), .lo = 0.1,
   .help = "(--scale) seconds per run, at most 86400 (default 20: a run over it is killed)"},
  {"csv", CLI_STR, "FILE", M(CLI_BENCH_DAE), 0, F(csv), 0, .complete = CLI_C_FILE,
   .help = "(--scale) every run as CSV (round-trip precision)"},
  {"ranks", CLI_STR, "K,...", M(CLI_BENCH_MPI), 0, F(ranks), 0, .max = 128, .def = "1,2,4",
   .help = "numbers of ranks, each 1 .. 256, at most 8, increasing (the smallest is the base of the speed-up)"},
  {"n", CLI_LONG, "N", M(CLI_BENCH_MPI), 0, F(n_strong), 0, .lo = 4, .hi = 10000000, .def = "20000",
   .help = "strong scaling: the atoms of every run (at least 4 per rank)"},
  {"n-per-rank", CLI_LONG, "N", M(CLI_BENCH_MPI), 0, F(n_per_rank), 0, .lo = 4, .hi = 10000000, .def = "10000",
   .help = "weak scaling: the atoms per rank (K ranks: K N atoms)"},
  {"steps", CLI_LONG, "S", M(CLI_BENCH_MPI), 0, F(steps), 0, .lo = 1, .hi = 100000, .def = "20",
   .help = "RK4 steps of h = 0.001 per run (4 S + 1 right-hand sides)"},
  {"mpirun", CLI_STR, "PATH", M(CLI_BENCH_MPI), 0, F(mpirun), 0, .complete = CLI_C_FILE,
   .help = "the MPI launcher (default: the one chs was built with); run without a shell"},
  {"time-limit", CLI_REAL, "S", M(CLI_BENCH_MPI), 0, F(time_limit), F(have_time_limit), .lo = 0.1,
   .help = "seconds per launch, at most 86400 (default 120: a launch over it is killed, its row marked)"},
  {"csv", CLI_STR, "FILE", M(CLI_BENCH_MPI), 0, F(csv), 0, .complete = CLI_C_FILE,
   .help = "every row as CSV (round-trip precision)"},
  {"seed", CLI_LONG, "S", M(CLI_CHECK), 0, F(seed), 0, .lo = 0, .hi = UNBOUNDED, .def = "1",
   .help = "seed of the random perturbations (reproducible)"},
  {"points", CLI_LONG, "K", M(CLI_CHECK), 0, F(points), 0, .lo = 0, .hi = 10000, .def = "3",
   .help = "perturbed states besides the initial one"},
  {"all", CLI_FLAG, NULL, M(CLI_REPRODUCE), 0, F(all), 0,
   .help = "every experiment, and a summary"},
  {"plot-dir", CLI_STR, "DIR", M(CLI_REPRODUCE), 0, F(plot_dir), 0, .complete = CLI_C_DIR,
   .help = "draw the experiment's figures as PNG into DIR (created)"},
  {"json", CLI_FLAG, NULL, ALL_INT | M(CLI_CHECK), 0, F(json), 0,
   .help = "one JSON object on stdout"},
  {"quiet", CLI_FLAG, NULL, ALL_INT, 0, F(quiet), 0,
   .help = "no progress on stderr"},
  {"dry-run", CLI_FLAG, NULL, ALL_INT, 0, F(dry_run), 0,
   .help = "check every option and input as a real run would, then exit 0 before any work"},
  {"strict", CLI_FLAG, NULL, M(CLI_RUN), 0, F(strict), 0,
   .help = "a failed derivative probe (plugin problems) is an error: exit 2 before any integration"},
  {"no-check", CLI_FLAG, NULL, M(CLI_RUN), 0, F(no_check), 0,
   .help = "skip the derivative probe of a plugin problem before the run"},
  /* chs run --estimate-error and chs bench calibrate (drivers/estimate.c, cmd_bench_calibrate.c) */
  {"estimate-error", CLI_FLAG, NULL, M(CLI_RUN) | M(CLI_WORKPREC), 0, F(estimate_error), 0,
   .help = "(adaptive) also estimate the final global error from a companion run at tol/100 (run: estimated_error_final; workprec: column est_error)"},
  {"problems", CLI_STR, "LIST", M(CLI_BENCH_CALIBRATE) | M(CLI_BENCH_AUTO), 0, F(scale_problems), 0, .max = 256,
   .help = "problems with a reference at their final time: pendulum, andrews, car-axis, heavy-top (default all)"},
  {"formulations", CLI_STR, "F1,F2,...", M(CLI_BENCH_CALIBRATE) | M(CLI_BENCH_AUTO), 0, F(formulation), 0, .max = 1024, .complete = CLI_C_FORMULATION,
   .help = "formulations (default: every registered one; those that refuse a problem or method are skipped)"},
  {"methods", CLI_STR, "M1,M2,...|all", M(CLI_BENCH_CALIBRATE) | M(CLI_BENCH_AUTO), 0, F(method), 0, .complete = CLI_C_METHOD,
   .help = "adaptive methods (default: erk:dp5, the Bogacki-Shampine, Verner 8(5)6 and Fehlberg 13(7)8 tables, dirk Kvaerno 4(2)3 and 7(4)5, cvode:adams, cvode:bdf, ida; all: every ERK and DIRK table besides)"},
  {"tols", CLI_SWEEP, "HI:LO:N", M(CLI_BENCH_CALIBRATE) | M(CLI_BENCH_AUTO), 0, F(tols), 0, .hi = 16, .def = "1e-4:1e-10:7",
   .help = "tolerances (rtol = atol) from HI down to LO, HI < 1 (calibrate: N >= 2; auto: N = 1 with HI = LO allowed)"},
  {"time-limit", CLI_REAL, "S", M(CLI_BENCH_CALIBRATE) | M(CLI_BENCH_AUTO), 0, F(time_limit), F(have_time_limit), .lo = 0.1,
   .help = "seconds per run, at most 86400 (default 60: a run over it is killed, a FAILED point)"},
  {"jitter", CLI_LONG, "K", M(CLI_BENCH_AUTO), 0, F(jitter), 0, .lo = 1, .hi = 9, .def = "1",
   .help = "K odd, 1 to 9: every point is the median of K runs at tol x 10^(j/40), j = -(K-1)/2 .. (K-1)/2 (median error, median evaluations: a final error that a change of the tolerance in its last bits moves does not decide the ratio)"},
  {"csv", CLI_STR, "FILE", M(CLI_BENCH_CALIBRATE) | M(CLI_BENCH_AUTO), 0, F(csv), 0, .complete = CLI_C_FILE,
   .help = "as CSV (round-trip precision): every point (calibrate), every problem and tolerance (auto)"},
  {"json", CLI_FLAG, NULL, M(CLI_BENCH_CALIBRATE) | M(CLI_BENCH_AUTO), 0, F(json), 0,
   .help = "one JSON object on stdout"},
  {"quiet", CLI_FLAG, NULL, M(CLI_BENCH_CALIBRATE) | M(CLI_BENCH_AUTO), 0, F(quiet), 0,
   .help = "no progress on stderr"},
  {"dry-run", CLI_FLAG, NULL, M(CLI_BENCH_CALIBRATE) | M(CLI_BENCH_AUTO), 0, F(dry_run), 0,
   .help = "check every option and input as a real run would, then exit 0 before any work"},
  /* chs run: output columns and trajectory plots (drivers/report.c "run --output", cmd_run.c) */
  {"output", CLI_STR, "KEY,...", M(CLI_RUN), 0, F(output), 0, .max = 512,
   .help = "the columns of --out and, with --json, the per-record arrays of \"records\": t, q, p, v, lambda, reaction, energy, energy_err, pos_res, mom_res, int_err, or all (default t,q,p,energy,energy_err,pos_res,mom_res,int_err)"},
  {"csv", CLI_STR, "FILE.csv", M(CLI_RUN), 0, F(out), 0, .complete = CLI_C_FILE,
   .help = "the same as --out FILE.csv"},
  {"plot-vars", CLI_STR, "NAME,...|X:Y,...", M(CLI_RUN), 0, F(plot_vars), 0, .max = 1024,
   .help = "with --plot: draw these output columns (names as in --output's, e.g. q1,lambda1) against t, or each Y against X, instead of the diagnostics"},
  /* chs run --fix (CHSProblem_Fix) */
  {"fix", CLI_STR, "q:C[=X],v:C[=X],...", M(CLI_RUN), 0, F(fix), 0, .max = 1024,
   .help = "start from the problem's initial guess, hold these components exactly (set to X when given) and make the others consistent (g = 0, G v + g_t = 0); C: a coordinate name, qK or an index K (1-based); also qK, vK"},
};
/* clang-format on */
#define NOPTIONS ((int)(sizeof options / sizeof options[0]))

/* Options that exclude each other. */
static const struct {
  unsigned commands;
  const char *a, *b, *why;
} exclusive[] = {
    {M(CLI_RUN), "stop-at", "wedge", "the wedge product runs to --tf"},
    {M(CLI_RUN), "strict", "no-check", "--strict acts on the probe that --no-check skips"},
    {M(CLI_RUN), "out", "csv", "--csv is another name of --out"},
    {M(CLI_WORKPREC) | M(CLI_BENCH_DAE), "cache-dir", "no-cache",
     "the cache is either used or not"},
};

/* The subcommands: name, argument, summary, notes after the options. */
typedef struct {
  const char *name; /* as typed: "run", "bench rhs" */
  const char *arg;  /* metavar of the argument (NULL: none) */
  const char *arg_choices;
  const char *summary;
  const char *notes;
} cli_command_spec;

static const cli_command_spec commands[CLI_NCOMMANDS] = {
    [CLI_RUN] = {"run", NULL, NULL, "integrate one problem with one formulation and method",
                 "Step control: --h H (fixed), or --rtol R and --atol A (adaptive). First-order "
                 "Lagrangian problems (chs list problems) run without --formulation, with erk "
                 "methods."},
    [CLI_COMPARE] = {"compare", NULL, NULL,
                     "integrate with several formulations, same method; table of errors and costs",
                     "Step control as in chs run (--h, or --rtol and --atol), or --tols HI:LO:N: a "
                     "tolerance sweep with errors against the problem's reference or a computed "
                     "one."},
    [CLI_WORKPREC] = {"workprec", NULL, NULL,
                      "work-precision sweep of configurations over tolerances (table, CSV, PNG)",
                      "The reference without a closed form: dirac + Verner 8(5,6) at 1e-12, "
                      "cached in --cache-dir."},
    [CLI_REPRODUCE] = {"reproduce", "EXPERIMENT", NULL,
                       "the papers' experiments, their numbers beside ours, claims computed",
                       "EXPERIMENT: see chs list experiments (or --all)."},
    [CLI_BENCH_RHS] = {"bench rhs", NULL, NULL,
                       "time per right-hand-side evaluation of every formulation, relative to "
                       "standard",
                       "Every problem and formulation is timed in each of 7 rounds of N "
                       "evaluations; the best chunk counts."},
    [CLI_BENCH_DAE] = {"bench dae", NULL, NULL,
                       "cheapest stabilised ODE vs cheapest IDA run per final error",
                       "The built-in set (pendulum, chain molecule, andrews, car-axis), or "
                       "--problem P with --tf T against its reference or a computed one."},
    [CLI_BENCH_SCALE] =
        {"bench scale", NULL, NULL,
         "the chain molecule from 10 to N atoms: RHS cost, Gram factorisations, "
         "memory, RK4 runs",
         "The chain molecule (coil, thermal momenta, LJ cut off at 2.5 sigma, cell "
         "lists) at N = 10, 100, ..., N: time per RHS of standard and dirac and "
         "their ratio, band vs KLU Gram factorisation and solve, bytes per atom, "
         "atom-evaluations per second; t(N)/t(N/10) (linear: <= 12); then RK4 runs "
         "of the largest chain, standard and dirac, 100 steps of h = 0.01. With "
         "--implicit, instead: IDA + KLU on the pendulum chain, IDA and CVODE BDF + "
         "GMRES on the coil, each `chs run ... --rtol 1e-6 --atol 1e-6 --tf 0.1` at "
         "N/10 and N in R interleaved rounds (forked runs): CPU time per step, "
         "peak memory per atom, t(N)/t(N/10) per step (linear: median <= 12). With "
         "--implicit --sizes, at each of the sizes instead: CPU time per step and per "
         "atom and step, and how the cost per atom and step grew from the size before "
         "(1: linear)."},
    [CLI_BENCH_MPI] = {"bench mpi", NULL, NULL,
                       "strong and weak scaling of the distributed chains over MPI ranks",
                       "Launches MPIRUN -np K of this chs (argv, no shell) for every K of --ranks: "
                       "`chs run` of pendulum-chain and chain (cutoff 2.5) with dirac and erk:rk4, "
                       "h = 0.001, at N atoms (strong) and K x N-per-rank atoms (weak); wall and "
                       "communication time per right-hand side, speed-up and efficiency against "
                       "the smallest K. More ranks than cores are run with --oversubscribe (Open "
                       "MPI) and marked. Not under mpirun itself (docs/mpi.md)."},
    [CLI_CHECK] = {"check", NULL, NULL, "check a problem's derivatives against finite differences",
                   "Evaluates every callback of the problem at its initial state and at K random "
                   "perturbations of it (seed S) and compares each derivative with extrapolated "
                   "central finite differences of the callback it derives from: force vs -grad V, "
                   "jacobian vs g (and the CSR pattern), jacobian_dot vs G, hessian_potential vs "
                   "F, constraint_third vs jacobian_dot, mass_dir/mass_grad vs M, "
                   "mass_grad_dir vs mass_grad, "
                   "constraint_dt/potential_dt vs time differences, and the declared facts. "
                   "Tolerances come from the finite differences' own error estimate "
                   "(docs/check.md). Exit status 1: a derivative is wrong (or the initial state is "
                   "off the constraint manifold, or a callback returns NaN/Inf)."},
    [CLI_LIST] = {"list", "WHAT", "problems|formulations|methods|experiments",
                  "list problems, formulations, methods or experiments", NULL},
    [CLI_COMPLETION] = {"completion", "SHELL", "bash", "print the shell completion script (bash)",
                        "Installed as share/bash-completion/completions/chs; or: source <(chs "
                        "completion bash)."},
    [CLI_BENCH_CALIBRATE] = {"bench calibrate", NULL, NULL,
                             "final error / tolerance of every adaptive configuration on the "
                             "problems with a reference",
                             "Every formulation x method that applies on pendulum (t = 10), "
                             "andrews (0.03), car-axis (3) and heavy-top:steady=1 (10), at each "
                             "tolerance (rtol = atol), each run a forked process killed at "
                             "--time-limit. A point fails calibration when its final error "
                             "exceeds 1000 tol or the run fails; a configuration also fails when "
                             "its error does not fall over the sweep (docs/calibration.md)."},
    [CLI_BENCH_AUTO] = {"bench auto", NULL, NULL,
                        "auto's cost against the cheapest swept configuration at the same final "
                        "error",
                        "On the problems of bench calibrate, at each tolerance (rtol = atol): the "
                        "configuration `chs run` chooses without --formulation and --method "
                        "(docs/auto.md), its final error and right-hand side evaluations; the "
                        "cheapest point of the sweep (every formulation x method that applies, "
                        "at any of the tolerances) whose final error is at most auto's; and the "
                        "ratio of evaluations. Each run a forked process killed at --time-limit."},
};

static int accepts(const cli_option *op, cli_command_id cmd) {
  return (op->commands & M(cmd)) != 0;
}

/* ------------------------------------------------------------------ parsing */

/* The table's entry for name in cmd; else, with other != NULL, the first entry of another
 * subcommand in *other. */
static const cli_option *find_option(const char *name, size_t len, cli_command_id cmd,
                                     const cli_option **other) {
  for (int i = 0; i < NOPTIONS; i++) {
    if (strlen(options[i].name) == len && strncmp(options[i].name, name, len) == 0) {
      if (accepts(&options[i], cmd)) {
        return &options[i];
      }
      if (other && !*other) {
        *other = &options[i];
      }
    }
  }
  return NULL;
}

static void command_list(const cli_option *op, char *buf, size_t len) {
  size_t used = 0;
  buf[0] = '\0';
  for (int c = 0; c < CLI_NCOMMANDS; c++) {
    for (int i = 0; i < NOPTIONS; i++) {
      if (strcmp(options[i].name, op->name) == 0 && accepts(&options[i], (cli_command_id)c)) {
        used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s", used ? ", " : "",
                                 commands[c].name);
        break;
      }
    }
  }
}

static int choice_ok(const char *choices, const char *v) {
  size_t len = strlen(v);
  for (const char *s = choices; *s;) {
    const char *bar = strchr(s, '|');
    size_t n = bar ? (size_t)(bar - s) : strlen(s);
    if (n == len && strncmp(s, v, n) == 0) {
      return 1;
    }
    s += n + (bar ? 1 : 0);
  }
  return 0;
}

/* Store one value (given or default) of op into o. */
static int store(const cli_option *op, const char *v, cli_options *o) {
  char opt[64];
  snprintf(opt, sizeof opt, "--%s", op->name);
  char *base = (char *)o;
  if (op->kind == CLI_FLAG) {
    *(int *)(base + op->offset) = 1;
    return 0;
  }
  size_t len = strlen(v), max = op->max ? op->max : CLI_MAX_VALUE_LEN;
  if (len == 0) {
    return cli_usage_error("option %s needs a non-empty value", opt);
  }
  if (len >= max) {
    return cli_usage_error("value of %s is too long (%zu bytes, at most %zu): '%.40s...'", opt, len,
                           max - 1, v);
  }
  switch (op->kind) {
  case CLI_REAL: {
    double x;
    if (cli_parse_real(opt, v, &x) != 0) {
      return CHS_EXIT_USAGE;
    }
    if (op->open ? !(x > op->lo) : !(x >= op->lo)) {
      return cli_usage_error("bad value for %s: '%.200s' (must be %s %g)", opt, v,
                             op->open ? ">" : ">=", op->lo);
    }
    if (x != 0 && x < op->nonzero_min) { /* CLI_TF_MIN: too short for the integrators */
      return cli_usage_error(
          "bad value for %s: '%.200s' (must be %s%g: a shorter interval "
          "underflows the integrators' step arithmetic)",
          opt, v, op->lo < op->nonzero_min && !op->open ? "0 or >= " : ">= ", op->nonzero_min);
    }
    *(double *)(base + op->offset) = x;
    return 0;
  }
  case CLI_LONG: {
    long x;
    if (cli_parse_long_range(opt, v, (long)op->lo,
                             op->hi >= (double)LONG_MAX ? LONG_MAX : (long)op->hi, &x) != 0) {
      return CHS_EXIT_USAGE;
    }
    *(long *)(base + op->offset) = x;
    return 0;
  }
  case CLI_CHOICE:
    if (!choice_ok(op->choices, v)) {
      return cli_usage_error("bad value for %s: '%.200s' (one of %s)", opt, v, op->choices);
    }
    *(const char **)(base + op->offset) = v;
    return 0;
  case CLI_SWEEP: {
    double hi, lo;
    int n;
    if (cli_parse_tol_sweep(opt, v, (int)op->hi, &hi, &lo, &n) != 0) {
      return CHS_EXIT_USAGE;
    }
    *(const char **)(base + op->offset) = v;
    return 0;
  }
  case CLI_JOIN: {
    size_t used = strlen(o->stop_at_buf);
    if (used + len + 2 > sizeof o->stop_at_buf) {
      return cli_usage_error("value of %s is too long (at most %zu bytes in all)", opt,
                             sizeof o->stop_at_buf - 2);
    }
    if (used > 0) {
      o->stop_at_buf[used++] = ',';
    }
    memcpy(o->stop_at_buf + used, v, len + 1);
    *(const char **)(base + op->offset) = o->stop_at_buf;
    return 0;
  }
  case CLI_MULTI: {
    int *count = (int *)(base + op->have);
    if (*count >= (int)op->hi) {
      return cli_usage_error("option %s given more than %d times", opt, (int)op->hi);
    }
    ((const char **)(base + op->offset))[(*count)++] = v;
    return 0;
  }
  default:
    *(const char **)(base + op->offset) = v;
    return 0;
  }
}

int cli_parse(cli_command_id cmd, int argc, char **argv, cli_options *o) {
  memset(o, 0, sizeof *o);
  o->command = (int)cmd;
  for (int i = 0; i < NOPTIONS; i++) { /* defaults, through the same checks */
    if (accepts(&options[i], cmd) && options[i].def && store(&options[i], options[i].def, o) != 0) {
      return CHS_EXIT_USAGE;
    }
  }
  /* getopt_long knows every option name (of any subcommand: to name the wrong one), each once */
  struct option lo[NOPTIONS + 2];
  int nlo = 0, seen[NOPTIONS] = {0};
  for (int i = 0; i < NOPTIONS; i++) {
    const cli_option *op = find_option(options[i].name, strlen(options[i].name), cmd, NULL);
    if (!op) {
      op = &options[i];
    }
    int dup = 0;
    for (int k = 0; k < nlo; k++) {
      dup |= strcmp(lo[k].name, op->name) == 0;
    }
    if (!dup) {
      lo[nlo++] = (struct option){op->name, op->kind == CLI_FLAG ? no_argument : required_argument,
                                  NULL, 256 + (int)(op - options)};
    }
  }
  lo[nlo++] = (struct option){"help", no_argument, NULL, 'h'};
  lo[nlo] = (struct option){NULL, 0, NULL, 0};
  int nargs = 0;
  optind = 0; /* glibc: a full reset (the fuzz harness parses many command lines in one process) */
  opterr = 0;
  for (;;) {
    int before = optind ? optind : 1;
    int c = getopt_long(argc, argv, "-:h", lo, NULL);
    if (c == -1) {
      break;
    }
    const char *raw = before < argc ? argv[before] : "";
    if (c == 1) { /* an argument that is not an option, in order */
      if (!commands[cmd].arg || nargs > 0) {
        if (nargs > 0) {
          return cli_usage_error("unexpected argument '%.200s' after `chs %s %.200s`", optarg,
                                 commands[cmd].name, o->arg);
        }
        return cli_usage_error("unexpected argument '%.200s' (chs %s takes options only)", optarg,
                               commands[cmd].name);
      }
      o->arg = optarg;
      nargs++;
      continue;
    }
    if (c == 'h') {
      o->help = 1;
      continue;
    }
    const char *eq = strchr(raw, '=');
    size_t nlen = raw[0] == '-' && raw[1] == '-' ? (eq ? (size_t)(eq - raw) : strlen(raw)) - 2 : 0;
    if (c == '?') {
      if (optopt >= 256) {
        return cli_usage_error("option --%s takes no value ('%.200s')", options[optopt - 256].name,
                               raw);
      }
      if (optopt > 0) {
        return cli_usage_error("unknown option '-%c' (see chs %s --help)", optopt,
                               commands[cmd].name);
      }
      return cli_usage_error("unknown option '%.200s' (see chs %s --help)", raw,
                             commands[cmd].name);
    }
    if (c == ':') {
      return cli_usage_error("option %.200s needs a value", raw);
    }
    const cli_option *op = &options[c - 256];
    if (nlen != strlen(op->name) || strncmp(raw + 2, op->name, nlen) != 0) {
      /* getopt_long takes unambiguous abbreviations: chs does not (they change meaning when an
       * option is added) */
      return cli_usage_error("unknown option '%.*s' (did you mean --%s?)", (int)(nlen + 2), raw,
                             op->name);
    }
    if (!accepts(op, cmd)) {
      char where[256];
      command_list(op, where, sizeof where);
      return cli_usage_error("option --%s is not valid for chs %s (it applies to: %s)", op->name,
                             commands[cmd].name, where);
    }
    int idx = (int)(op - options);
    if (seen[idx] && op->kind != CLI_JOIN && op->kind != CLI_MULTI) {
      /* an option given twice is a mistake, not "the last wins" */
      if (strcmp(raw + 2, op->name) != 0) {
        return cli_usage_error("option --%s given twice ('%.200s')", op->name, raw);
      }
      return cli_usage_error("option --%s given twice", op->name);
    }
    seen[idx] = 1;
    if (store(op, optarg ? optarg : "", o) != 0) {
      return CHS_EXIT_USAGE;
    }
    if (op->have && op->kind != CLI_MULTI) {
      *(int *)((char *)o + op->have) = 1;
    }
    if (op->offset == F(problem) && op->kind == CLI_STR) {
      int hr = cli_problem_help(optarg);
      if (hr >= 0) { /* --problem NAME:help: its parameters, nothing else */
        return hr == 0 ? CLI_HELP_DONE : hr;
      }
    }
  }
  for (; optind < argc; optind++) { /* after "--" */
    if (!commands[cmd].arg || nargs++ > 0) {
      return cli_usage_error("unexpected argument '%.200s'", argv[optind]);
    }
    o->arg = argv[optind];
  }
  if (o->help) {
    cli_print_help(stdout, cmd);
    return CLI_HELP_DONE;
  }
  for (size_t k = 0; k < sizeof exclusive / sizeof exclusive[0]; k++) {
    const cli_option *a = find_option(exclusive[k].a, strlen(exclusive[k].a), cmd, NULL);
    const cli_option *b = find_option(exclusive[k].b, strlen(exclusive[k].b), cmd, NULL);
    if ((exclusive[k].commands & M(cmd)) && a && b && seen[a - options] && seen[b - options]) {
      return cli_usage_error("--%s and --%s cannot be combined (%s)", a->name, b->name,
                             exclusive[k].why);
    }
  }
  for (int i = 0; i < NOPTIONS; i++) {
    if ((options[i].required & M(cmd)) && !seen[i]) {
      return cli_usage_error("missing --%s (chs %s --help)", options[i].name, commands[cmd].name);
    }
  }
  return 0;
}

int cli_dry_run_done(const char *what) {
  fprintf(stderr, "chs: dry run: every option and input is valid; would run ");
  cli_fputs_safe(stderr, what);
  fprintf(stderr, "\n");
  return CHS_EXIT_OK;
}

/* ------------------------------------------------------------------ help */

/* Write text wrapped at width, every line after the first indented by indent; col: the column
 * where the text starts. */
static void wrap(FILE *out, const char *text, int col, int indent, int width) {
  const char *s = text;
  int fresh = 1; /* nothing written on this line yet */
  while (*s) {
    while (*s == ' ') {
      s++;
    }
    size_t n = strcspn(s, " ");
    if (n == 0) {
      break;
    }
    if (!fresh && col + 1 + (int)n > width) {
      fprintf(out, "\n%*s", indent, "");
      col = indent;
      fresh = 1;
    }
    if (!fresh) {
      fputc(' ', out);
      col++;
    }
    fwrite(s, 1, n, out);
    col += (int)n;
    s += n;
    fresh = 0;
  }
  fputc('\n', out);
}

static void option_synopsis(const cli_option *op, char *buf, size_t len) {
  if (op->kind == CLI_FLAG) {
    snprintf(buf, len, "--%s", op->name);
  } else if (op->kind == CLI_CHOICE) {
    snprintf(buf, len, "--%s %s", op->name, op->choices);
  } else {
    snprintf(buf, len, "--%s %s", op->name, op->metavar);
  }
}

static void usage_text(cli_command_id cmd, char *line, size_t len) {
  char item[160];
  int n = snprintf(line, len, "chs %s", commands[cmd].name);
  for (int pass = 0; pass < 2; pass++) { /* required options first */
    for (int i = 0; i < NOPTIONS; i++) {
      const cli_option *op = &options[i];
      int req = (op->required & M(cmd)) != 0;
      if (!accepts(op, cmd) || req != (pass == 0)) {
        continue;
      }
      option_synopsis(op, item, sizeof item);
      n += snprintf(line + n, len - (size_t)n, req ? " %s" : " [%s]%s", item,
                    op->kind == CLI_JOIN || op->kind == CLI_MULTI ? "..." : "");
    }
  }
  if (commands[cmd].arg) {
    snprintf(line + n, len - (size_t)n, " %s", commands[cmd].arg);
  }
}

static void usage_line(FILE *out, cli_command_id cmd, const char *prefix) {
  char line[4096];
  usage_text(cmd, line, sizeof line);
  fprintf(out, "%s", prefix);
  wrap(out, line, (int)strlen(prefix), (int)strlen(prefix) + 4, 100);
}

static void option_help(FILE *out, const cli_option *op) {
  char syn[160], text[1024];
  option_synopsis(op, syn, sizeof syn);
  int n = snprintf(text, sizeof text, "%s", op->help);
  if (op->kind == CLI_LONG && op->hi < (double)LONG_MAX) {
    n += snprintf(text + n, sizeof text - (size_t)n, "; %.0f .. %.0f", op->lo, op->hi);
  }
  if (op->def) {
    n += snprintf(text + n, sizeof text - (size_t)n, " (default %s)", op->def);
  }
  if (op->kind == CLI_JOIN || op->kind == CLI_MULTI) {
    snprintf(text + n, sizeof text - (size_t)n, " [repeatable]");
  }
  fprintf(out, "  %-24s", syn);
  if (strlen(syn) >= 24) {
    fprintf(out, "\n%26s", "");
  }
  wrap(out, text, 26, 26, 100);
}

/* The registries' names, comma-separated, wrapped. */
static void registries(FILE *out, cli_command_id cmd) {
  int problems = 0, forms = 0, methods = 0;
  for (int i = 0; i < NOPTIONS; i++) {
    if (accepts(&options[i], cmd)) {
      problems |= options[i].complete == CLI_C_PROBLEM;
      forms |= options[i].complete == CLI_C_FORMULATION;
      methods |= options[i].complete == CLI_C_METHOD || cmd == CLI_WORKPREC;
    }
  }
  forms |= cmd == CLI_WORKPREC;
  char buf[8192];
  size_t n = 0;
  if (problems) {
    n = 0;
    for (int i = 0; i < CHSProblemRegistry_Count(); i++) {
      n += (size_t)snprintf(buf + n, n < sizeof buf ? sizeof buf - n : 0, "%s%s", i ? ", " : "",
                            CHSProblemRegistry_Get(i)->name);
    }
    for (int i = 0; cmd == CLI_RUN && i < CHSFirstOrderRegistry_Count(); i++) {
      n += (size_t)snprintf(buf + n, n < sizeof buf ? sizeof buf - n : 0, ", %s (first order)",
                            CHSFirstOrderRegistry_Get(i)->name);
    }
    fprintf(out, "\nproblems: ");
    wrap(out, buf, 10, 4, 100);
    fprintf(out, "  ");
    wrap(out,
         "plugins: --problem ./PATH.so[:k=v,...]; --problem NAME:help or PATH.so:help prints "
         "the parameters (chs list problems: summaries)",
         2, 4, 100);
  }
  if (forms) {
    n = 0;
    for (int i = 0; i < CHSFormulationRegistry_Count(); i++) {
      n += (size_t)snprintf(buf + n, n < sizeof buf ? sizeof buf - n : 0, "%s%s", i ? ", " : "",
                            CHSFormulationRegistry_Get(i)->name);
    }
    fprintf(out, "\nformulations: ");
    wrap(out, buf, 14, 4, 100);
  }
  if (methods) {
    fprintf(out, "\nmethods (FAMILY:NAME; chs list methods):\n");
    for (int i = 0; i < CHSIntegratorRegistry_Count(); i++) {
      const CHSIntegratorOps *it = CHSIntegratorRegistry_Get(i);
      n = 0;
      for (int k = 0; it->method_name && it->method_name(k); k++) {
        const char *name = it->method_name(k);
        n += (size_t)snprintf(buf + n, n < sizeof buf ? sizeof buf - n : 0, "%s%s%s%s",
                              k ? ", " : "", it->family, name[0] ? ":" : "", name);
      }
      if (n == 0) {
        snprintf(buf, sizeof buf, "%s", it->family);
      }
      fprintf(out, "  %-10s ", it->family);
      wrap(out, buf, 13, 13, 100);
    }
  }
}

void cli_print_help(FILE *out, cli_command_id cmd) {
  usage_line(out, cmd, "usage: ");
  fprintf(out, "\n%s.\n\noptions:\n", commands[cmd].summary);
  for (int i = 0; i < NOPTIONS; i++) {
    if (accepts(&options[i], cmd)) {
      option_help(out, &options[i]);
    }
  }
  fprintf(out, "  %-24s%s\n", "--help", "this help");
  if (commands[cmd].arg_choices) {
    fprintf(out, "\n%s: %s\n", commands[cmd].arg, commands[cmd].arg_choices);
  }
  if (cmd == CLI_REPRODUCE) {
    fprintf(out, "\nexperiments:\n");
    for (int k = 0; k < rep_experiment_count(); k++) {
      fprintf(out, "  %-28s %s\n", rep_experiment_get(k)->name, rep_experiment_get(k)->summary);
    }
  }
  registries(out, cmd);
  if (commands[cmd].notes) {
    fputc('\n', out);
    wrap(out, commands[cmd].notes, 0, 0, 100);
  }
  fprintf(out, "\nexit status: 0 success, 2 bad input, 3 numerical failure\n");
}

/* ------------------------------------------------------------------ Markdown, man page */

/* Markdown table cell text: '|' escaped */
static void md_cell(FILE *out, const char *s) {
  for (; *s; s++) {
    if (*s == '|') {
      fputc('\\', out);
    }
    fputc(*s, out);
  }
}

void cli_print_markdown(FILE *out) {
  fprintf(out, "<!-- generated by `chs help --markdown` from drivers/cli_options.c -->\n");
  for (int c = 0; c < CLI_NCOMMANDS; c++) {
    char syn[160];
    char line[4096];
    usage_text((cli_command_id)c, line, sizeof line);
    fprintf(out, "\n### chs %s\n\n%s.\n\nUsage: `%s`\n\n", commands[c].name, commands[c].summary,
            line);
    int any = 0;
    for (int i = 0; i < NOPTIONS; i++) {
      const cli_option *op = &options[i];
      if (!accepts(op, (cli_command_id)c)) {
        continue;
      }
      if (!any) {
        fprintf(out, "| option | meaning |\n| --- | --- |\n");
        any = 1;
      }
      option_synopsis(op, syn, sizeof syn);
      fprintf(out, "| `");
      md_cell(out, syn);
      fprintf(out, "` | ");
      md_cell(out, op->help);
      fprintf(out, "%s", (op->required & M(c)) ? " (required)" : "");
      if (op->kind == CLI_LONG && op->hi < (double)LONG_MAX) {
        fprintf(out, "; %.0f .. %.0f", op->lo, op->hi);
      }
      if (op->def) {
        fprintf(out, " (default %s)", op->def);
      }
      fprintf(out, "%s |\n", op->kind == CLI_JOIN || op->kind == CLI_MULTI ? " [repeatable]" : "");
    }
    if (commands[c].arg_choices) {
      fprintf(out, "\n%s: %s\n", commands[c].arg, commands[c].arg_choices);
    }
    if (commands[c].notes) {
      fprintf(out, "\n%s\n", commands[c].notes);
    }
  }
}

/* roff text: a backslash doubled, a leading '.' or '\'' guarded, '-' as \- */
static void roff(FILE *out, const char *s) {
  if (*s == '.' || *s == '\'') {
    fputs("\\&", out);
  }
  for (; *s; s++) {
    if (*s == '\\') {
      fputs("\\e", out);
    } else if (*s == '-') {
      fputs("\\-", out);
    } else {
      fputc(*s, out);
    }
  }
}

void cli_print_man(FILE *out) {
  fprintf(out,
          ".\\\" generated by `chs man` from drivers/cli_options.c\n"
          ".TH CHS 1 \"\" \"chs %s\" \"User Commands\"\n.SH NAME\nchs \\- constrained "
          "Hamiltonian systems on SUNDIALS\n.SH SYNOPSIS\n",
          CHS_VERSION_STRING);
  for (int c = 0; c < CLI_NCOMMANDS; c++) {
    fprintf(out, ".PP\n.B chs %s\n", commands[c].name);
    fprintf(out, "[\\fIoptions\\fR]%s%s\n", commands[c].arg ? " " : "",
            commands[c].arg ? commands[c].arg : "");
  }
  fprintf(out, ".PP\n.B chs\n\\-\\-version | \\-\\-help\n");
  fprintf(out, ".SH DESCRIPTION\n.B chs\nintegrates constrained mechanical systems with "
               "SUNDIALS: built-in problems and plugins, several formulations of the "
               "constrained equations, explicit, symplectic and implicit methods, and "
               "diagnostics of energy, constraints and errors.\n");
  fprintf(out, ".SH COMMANDS\n");
  for (int c = 0; c < CLI_NCOMMANDS; c++) {
    char syn[160];
    fprintf(out, ".SS chs %s\n", commands[c].name);
    roff(out, commands[c].summary);
    fprintf(out, ".\n");
    for (int i = 0; i < NOPTIONS; i++) {
      const cli_option *op = &options[i];
      if (!accepts(op, (cli_command_id)c)) {
        continue;
      }
      option_synopsis(op, syn, sizeof syn);
      fprintf(out, ".TP\n.B ");
      roff(out, syn);
      fprintf(out, "\n");
      roff(out, op->help);
      if (op->required & M(c)) {
        fprintf(out, " (required)");
      }
      if (op->def) {
        fprintf(out, " (default ");
        roff(out, op->def);
        fprintf(out, ")");
      }
      fprintf(out, "\n");
    }
    if (commands[c].notes) {
      fprintf(out, ".PP\n");
      roff(out, commands[c].notes);
      fprintf(out, "\n");
    }
  }
  fprintf(out,
          ".SH EXIT STATUS\n.TP\n.B 0\nsuccess\n.TP\n.B 1\n(chs check) a derivative is wrong\n"
          ".TP\n.B 2\nbad input: an option, value, name or inconsistent data (the message names "
          "it), before any integration work\n.TP\n.B 3\nnumerical failure (what failed and "
          "where)\n");
  fprintf(out,
          ".SH EXAMPLES\n.nf\nchs list problems\nchs run \\-\\-problem pendulum "
          "\\-\\-formulation dirac \\-\\-method erk:rk4 \\-\\-h 0.01 \\-\\-tf 10\n"
          "chs compare \\-\\-problem double\\-pendulum \\-\\-method erk:dp5 \\-\\-rtol 1e\\-8 "
          "\\-\\-atol 1e\\-8 \\-\\-tf 10\nchs workprec \\-\\-problem pendulum \\-\\-configs "
          "dirac/erk:dp5,dae\\-index3/ida \\-\\-tols 1e\\-4:1e\\-8:5 \\-\\-tf 10 \\-\\-out wp\n"
          "chs run \\-\\-problem ./myproblem.so:help\n.fi\n");
  fprintf(out, ".SH SEE ALSO\nThe command-line reference docs/cli.md and the user guide "
               "docs/user-guide.md in the chs documentation.\n");
}

/* ------------------------------------------------------------------ bash completion */

static void words_of(FILE *out, cli_complete what) {
  if (what == CLI_C_PROBLEM) {
    for (int i = 0; i < CHSProblemRegistry_Count(); i++) {
      fprintf(out, " %s", CHSProblemRegistry_Get(i)->name);
    }
    for (int i = 0; i < CHSFirstOrderRegistry_Count(); i++) {
      fprintf(out, " %s", CHSFirstOrderRegistry_Get(i)->name);
    }
  } else if (what == CLI_C_FORMULATION) {
    for (int i = 0; i < CHSFormulationRegistry_Count(); i++) {
      fprintf(out, " %s", CHSFormulationRegistry_Get(i)->name);
    }
  } else if (what == CLI_C_METHOD) {
    for (int i = 0; i < CHSIntegratorRegistry_Count(); i++) {
      const CHSIntegratorOps *it = CHSIntegratorRegistry_Get(i);
      int k = 0;
      for (; it->method_name && it->method_name(k); k++) {
        const char *name = it->method_name(k);
        fprintf(out, " %s%s%s", it->family, name[0] ? ":" : "", name);
      }
      if (k == 0) {
        fprintf(out, " %s", it->family);
      }
    }
  }
}

void cli_print_bash_completion(FILE *out) {
  fprintf(out, "# bash completion of chs (generated by `chs completion bash` from the option "
               "table)\n_chs() {\n"
               "  local -a w=()\n  local i t cw=0\n"
               "  # COMP_WORDS splits at ':' and '=' (erk:rk4, --h=0.1): join them back\n"
               "  for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do\n"
               "    t=${COMP_WORDS[i]}\n"
               "    if ((i > 1)) && [[ $t == [:=] || ${COMP_WORDS[i - 1]} == [:=] ]]; then\n"
               "      w[${#w[@]} - 1]+=$t\n    else\n      w+=(\"$t\")\n    fi\n"
               "    ((i == COMP_CWORD)) && cw=$((${#w[@]} - 1))\n  done\n"
               "  local cur=${w[cw]} prev=${w[cw - 1]} key=${w[1]}\n"
               "  COMPREPLY=()\n"
               "  if ((cw == 1)); then\n"
               "    COMPREPLY=($(compgen -W \"");
  for (int c = 0; c < CLI_NCOMMANDS; c++) {
    if (!strchr(commands[c].name, ' ')) {
      fprintf(out, "%s ", commands[c].name);
    }
  }
  fprintf(
      out,
      "bench --help --version\" -- \"$cur\"))\n    return\n  fi\n"
      "  if [[ $key == bench ]]; then\n"
      "    if ((cw == 2)); then\n"
      "      COMPREPLY=($(compgen -W \"rhs dae scale mpi calibrate auto --help\" -- \"$cur\"))\n"
      "      return\n    fi\n    key=\"bench ${w[2]}\"\n  fi\n"
      "  local opts= files= dirs= words= pos=\n  case $key in\n");
  for (int c = 0; c < CLI_NCOMMANDS; c++) {
    fprintf(out, "  '%s')\n    opts='--help", commands[c].name);
    for (int i = 0; i < NOPTIONS; i++) {
      if (accepts(&options[i], (cli_command_id)c)) {
        fprintf(out, " --%s", options[i].name);
      }
    }
    fprintf(out, "'\n");
    if (commands[c].arg_choices || c == CLI_REPRODUCE) {
      fprintf(out, "    pos='");
      if (c == CLI_REPRODUCE) {
        for (int k = 0; k < rep_experiment_count(); k++) {
          fprintf(out, "%s%s", k ? " " : "", rep_experiment_get(k)->name);
        }
      } else {
        for (const char *s = commands[c].arg_choices; *s; s++) {
          fputc(*s == '|' ? ' ' : *s, out);
        }
      }
      fprintf(out, "'\n");
    }
    fprintf(out, "    case $prev in\n");
    for (int i = 0; i < NOPTIONS; i++) {
      const cli_option *op = &options[i];
      if (!accepts(op, (cli_command_id)c) || op->kind == CLI_FLAG) {
        continue;
      }
      fprintf(out, "    --%s) ", op->name);
      switch (op->complete) {
      case CLI_C_FILE:
        fprintf(out, "files=1 ;;\n");
        break;
      case CLI_C_DIR:
        fprintf(out, "dirs=1 ;;\n");
        break;
      case CLI_C_CHOICE:
        fprintf(out, "words='");
        for (const char *s = op->choices; *s; s++) {
          fputc(*s == '|' ? ' ' : *s, out);
        }
        fprintf(out, "' ;;\n");
        break;
      case CLI_C_PROBLEM:
        fprintf(out, "files=1 words='");
        words_of(out, op->complete);
        fprintf(out, "' ;;\n");
        break;
      case CLI_C_FORMULATION:
      case CLI_C_METHOD:
        fprintf(out, "words='");
        words_of(out, op->complete);
        fprintf(out, "' ;;\n");
        break;
      default:
        fprintf(out, "return ;;\n");
        break;
      }
    }
    fprintf(out, "    esac\n    ;;\n");
  }
  fprintf(out, "  *) return ;;\n  esac\n"
               "  if [[ -n $words || -n $files || -n $dirs ]]; then\n"
               "    [[ -n $words ]] && COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
               "    [[ -n $files ]] && COMPREPLY+=($(compgen -f -- \"$cur\"))\n"
               "    [[ -n $dirs ]] && COMPREPLY+=($(compgen -d -- \"$cur\"))\n"
               "  elif [[ $cur == -* || -z $pos ]]; then\n"
               "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
               "  else\n"
               "    COMPREPLY=($(compgen -W \"$pos\" -- \"$cur\"))\n"
               "  fi\n"
               "  # bash replaces only the text after the last ':' of the word\n"
               "  if [[ $cur == *:* ]]; then\n"
               "    local colon=${cur%%\"${cur##*:}\"}\n"
               "    COMPREPLY=(\"${COMPREPLY[@]#\"$colon\"}\")\n"
               "  fi\n"
               "}\ncomplete -F _chs chs\n");
}

/* ------------------------------------------------------------------ commands */

int cmd_completion(int argc, char **argv) {
  cli_options o;
  int rc = cli_parse(CLI_COMPLETION, argc, argv, &o);
  if (rc != 0) {
    return rc == CLI_HELP_DONE ? CHS_EXIT_OK : rc;
  }
  if (!o.arg || strcmp(o.arg, "bash") != 0) {
    return cli_usage_error("chs completion needs the shell: bash (got '%.200s')",
                           o.arg ? o.arg : "");
  }
  cli_print_bash_completion(stdout);
  return CHS_EXIT_OK;
}

int cmd_man(int argc, char **argv) {
  if (argc > 1) {
    return cli_usage_error("unexpected argument '%.200s' after `chs man`", argv[1]);
  }
  cli_print_man(stdout);
  return CHS_EXIT_OK;
}

int cmd_help(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--markdown") == 0) {
    cli_print_markdown(stdout);
    return CHS_EXIT_OK;
  }
  if (argc == 2 || argc == 3) {
    char name[64];
    snprintf(name, sizeof name, "%s%s%s", argv[1], argc == 3 ? " " : "", argc == 3 ? argv[2] : "");
    for (int c = 0; c < CLI_NCOMMANDS; c++) {
      if (strcmp(commands[c].name, name) == 0) {
        cli_print_help(stdout, (cli_command_id)c);
        return CHS_EXIT_OK;
      }
    }
    return cli_usage_error("no help for '%.200s' (a command: chs --help)", name);
  }
  return cli_usage_error("usage: chs help COMMAND | chs help --markdown");
}
