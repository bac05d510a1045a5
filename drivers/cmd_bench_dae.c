/* chs bench dae: the user's question "DAE vs stabilised ODE cost" (see the comment below). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <nvector/nvector_serial.h>
#include "../src/compat.h"
#include "mpi_cli.h"
#include "progress.h"
#include "bench.h"
#include "runlib.h"

/* ------------------------------------------------------------------ chs bench dae
 * The user's question "DAE vs stabilised ODE cost": for final-time errors 1e-4 .. 1e-8, the
 * cheapest stabilised-ODE configuration against the cheapest IDA configuration, each point the
 * cheapest run (over a tolerance sweep 1e-3 .. 1e-12) that meets the error; ratios of
 * evaluations and of wall time, measured in one run. IDA's Newton Jacobian: for each DAE
 * formulation the analytic one (ida) and IDA's difference quotients (ida:jac=fd) are timed first
 * at tol 1e-8 (median of 3 runs) and the sweep uses the analytic one unless the difference
 * quotients are faster by more than 20 %, reported in the output (the
 * evaluation counts do not see the cost of analytic Jacobians, the wall times do). */
typedef struct {
  const char *form, *method;
  int project;
  int dae;
  int set; /* BENCH_NONSTIFF, BENCH_STIFF or both */
} bench_cfg;

#define BENCH_NONSTIFF 1
#define BENCH_STIFF 2
/* The stabilised-ODE candidates are every family that is the cheapest somewhere among the
 * built-in problems at some error: Dormand-Prince 5(4), Verner 8(5)6 and Fehlberg 13(7)8 on the
 * Hamilton-Dirac field and on the projected standard field, CVODE Adams and BDF, and the impetus
 * field. The test set's stiff mechanisms (andrews: a stiff spring on light bodies; car-axis: the
 * eps^2-small masses) take Baumgarte under CVODE BDF instead of the impetus field; IDA runs all
 * three DAEs (M(q) and time dependence: IDA's difference-quotient Jacobians). */
static const bench_cfg bench_all_cfgs[] = {
    {"dirac", "erk:dp5", 0, 0, 3},
    {"dirac", "erk:ARKODE_VERNER_8_5_6", 0, 0, 3},
    {"dirac", "erk:ARKODE_FEHLBERG_13_7_8", 0, 0, 3},
    {"dirac", "cvode:adams", 0, 0, 3},
    {"dirac", "cvode:bdf", 0, 0, 3},
    {"standard", "erk:dp5", CHS_PROJECT_BOTH, 0, 3},
    {"standard", "erk:ARKODE_VERNER_8_5_6", CHS_PROJECT_BOTH, 0, 3},
    {"standard", "cvode:bdf", CHS_PROJECT_BOTH, 0, 3},
    {"impetus", "erk:dp5", 0, 0, BENCH_NONSTIFF},
    {"baumgarte", "cvode:bdf", 0, 0, BENCH_STIFF},
    {"dae-index3", "ida", 0, 1, 3},
    {"dae-ggl", "ida", 0, 1, 3},
    {"dae-index1", "ida", 0, 1, 3},
};
#define BENCH_NALL ((int)(sizeof bench_all_cfgs / sizeof bench_all_cfgs[0]))
#define BENCH_NCFG (BENCH_NALL - 1) /* the configurations of one set */

/* The configurations of set (BENCH_NONSTIFF or BENCH_STIFF), in the table's order, into c. */
static int bench_set(int set, bench_cfg *c) {
  int n = 0;
  for (int k = 0; k < BENCH_NALL; k++) {
    if (bench_all_cfgs[k].set & set) {
      c[n++] = bench_all_cfgs[k];
    }
  }
  return n;
}
#define BENCH_NTOL 10

#define BENCH_JAC_RUNS 3

typedef struct {
  char problem[32], form[32];
  double wall[2]; /* median wall time: analytic, fd (< 0: failed) */
  long evals[2], jac[2];
  int chosen; /* 0 analytic, 1 fd */
} bench_jac;

static const char *const bench_jac_methods[2] = {"ida", "ida:jac=fd"};

/* Time IDA with the analytic and the difference-quotient Jacobian on formulation form. */
static void bench_jac_choice(CHSProblem prob, const char *problem, const char *form, double tf,
                             bench_jac *bj, progress *prog, double *done) {
  memset(bj, 0, sizeof *bj);
  snprintf(bj->problem, sizeof bj->problem, "%s", problem);
  snprintf(bj->form, sizeof bj->form, "%s", form);
  for (int j = 0; j < 2; j++) {
    double w[BENCH_JAC_RUNS];
    bj->wall[j] = -1;
    for (int r = 0; r < BENCH_JAC_RUNS; r++) {
      CHSRunOptions o = {.method = bench_jac_methods[j],
                         .ctl = {.rtol = 1e-8, .atol = 1e-8},
                         .tf = tf,
                         .every = 1000000000L};
      CHSRunSummary sum;
      CHSError e;
      int rc = rep_run(prob, form, o, NULL, NULL, &sum, &e);
      *done += rc != 0 ? BENCH_JAC_RUNS - r : 1; /* a failure skips the other repeats */
      progress_update(prog, *done);
      if (rc != 0) {
        break;
      }
      w[r] = sum.wall_s;
      bj->evals[j] = sum.rhs_evals;
      bj->jac[j] = sum.stats.jac_evals;
      if (r == BENCH_JAC_RUNS - 1) {
        bj->wall[j] = cli_median(w, BENCH_JAC_RUNS);
      }
    }
  }
  /* fd only when clearly faster: wall times on a shared machine scatter by 10-20 % */
  bj->chosen = bj->wall[0] < 0 || (bj->wall[1] >= 0 && bj->wall[1] < 0.8 * bj->wall[0]);
}

/* The runs bench_dae_problem makes (the progress's total). */
static int bench_dae_runs(const bench_cfg *cfgs, int ncfg) {
  int k = 0;
  for (int c = 0; c < ncfg; c++) {
    k += BENCH_NTOL + (cfgs[c].dae ? 2 * BENCH_JAC_RUNS : 0);
  }
  return k;
}

static int bench_dae_problem(const char *problem, double tf, const bench_cfg *cfgs, int ncfg,
                             int json, int first, bench_jac *bj, int *nbj, progress *prog,
                             double *done) {
  CHSError err;
  CHSError_Clear(&err);
  CHSProblem prob = NULL;
  if (CHSProblem_Create(problem, &prob, &err) != 0) {
    progress_interrupt();
    return cli_fail(&err);
  }
  long n = CHSProblem_GetDims(prob)->n;
  double *ref = calloc(1 + 2 * (size_t)n, sizeof *ref), *z = calloc(1 + 2 * (size_t)n, sizeof *z);
  if (!ref || !z) {
    free(ref);
    free(z);
    CHSProblem_Destroy(&prob);
    return cli_out_of_memory();
  }
  ref[0] = z[0] = (double)n;
  /* under mpirun (docs/mpi.md): the reference by rank 0, broadcast; the Jacobian choices and the
   * configuration x tolerance runs spread over the ranks, every result shared */
  int arc = cli_mpi_agree(0);
  if (arc == 0 && cli_mpi_rank() == 0 &&
      rep_reference_final(prob, tf, 1e-13, ref, NULL, 0, &err) != 0) {
    progress_interrupt();
    arc = cli_fail(&err);
  }
  if ((arc = cli_mpi_agree(arc)) != 0) {
    free(ref);
    free(z);
    CHSProblem_Destroy(&prob);
    return arc;
  }
  cli_mpi_bcast(ref, (1 + 2 * (size_t)n) * sizeof *ref, 0);
  double err_at[BENCH_NCFG][BENCH_NTOL], evals[BENCH_NCFG][BENCH_NTOL],
      wall[BENCH_NCFG][BENCH_NTOL];
  const char *method[BENCH_NCFG];
  int jac_of[BENCH_NCFG], nbj0 = *nbj;
  for (int c = 0; c < ncfg; c++) {
    jac_of[c] = -1;
    if (cfgs[c].dae) {
      jac_of[c] = (*nbj)++;
      if (cli_sweep_mine(jac_of[c] - nbj0)) {
        progress_detail(prog, problem);
        bench_jac_choice(prob, problem, cfgs[c].form, tf, &bj[jac_of[c]], prog, done);
      }
    }
  }
  cli_sweep_share(bj + nbj0, sizeof *bj, *nbj - nbj0, 0);
  for (int c = 0; c < ncfg; c++) {
    method[c] = jac_of[c] >= 0 ? bench_jac_methods[bj[jac_of[c]].chosen] : cfgs[c].method;
  }
  for (int c = 0; c < ncfg; c++) {
    for (int t = 0; t < BENCH_NTOL; t++) {
      double tol = pow(10, -3 - t);
      if (!cli_sweep_mine((long)c * BENCH_NTOL + t)) {
        continue; /* under mpirun: another rank's run */
      }
      CHSRunOptions o = {.method = method[c],
                         .ctl = {.rtol = tol, .atol = tol},
                         .tf = tf,
                         .every = 1000000000L,
                         .project = cfgs[c].project};
      CHSRunSummary sum;
      CHSError e;
      err_at[c][t] = INFINITY;
      progress_detail(prog, problem);
      int rc = rep_run(prob, cfgs[c].form, o, rep_final_monitor, z, &sum, &e);
      *done += 1;
      progress_update(prog, *done);
      if (rc == 0) {
        err_at[c][t] = rep_final_distance(z, ref);
        evals[c][t] = (double)sum.rhs_evals;
        wall[c][t] = sum.wall_s;
      }
    }
  }
  for (int c = 0; c < ncfg; c++) { /* every run's result from the rank that made it */
    cli_sweep_share(err_at[c], sizeof err_at[c][0], BENCH_NTOL, (long)c * BENCH_NTOL);
    cli_sweep_share(evals[c], sizeof evals[c][0], BENCH_NTOL, (long)c * BENCH_NTOL);
    cli_sweep_share(wall[c], sizeof wall[c][0], BENCH_NTOL, (long)c * BENCH_NTOL);
  }
  progress_interrupt_stdout(); /* the rows on lines of their own */
  for (int k = 4; k <= 8; k++) {
    double target = pow(10, -k);
    double best[2] = {INFINITY, INFINITY}, bwall[2] = {INFINITY, INFINITY};
    int who[2] = {-1, -1};
    for (int c = 0; c < ncfg; c++) {
      int d = cfgs[c].dae;
      for (int t = 0; t < BENCH_NTOL; t++) {
        if (err_at[c][t] <= target && evals[c][t] < best[d]) {
          best[d] = evals[c][t];
          bwall[d] = wall[c][t];
          who[d] = c;
        }
      }
    }
    char name[2][160];
    for (int d = 0; d < 2; d++) {
      if (who[d] >= 0) {
        const bench_cfg *b = &cfgs[who[d]];
        snprintf(name[d], sizeof name[d], "%s/%s%s", b->form, method[who[d]],
                 b->project ? "/both" : "");
      } else {
        snprintf(name[d], sizeof name[d], "none reaches it");
      }
    }
    int both = who[0] >= 0 && who[1] >= 0;
    if (json) {
      printf("%s\n    {\"problem\": ", first && k == 4 ? "" : ",");
      json_string(stdout, problem);
      printf(", \"target_error\": %.0e, \"ode\": ", target);
      json_string(stdout, name[0]);
      bench_json_real("ode_evals", best[0], who[0] >= 0);
      bench_json_string("dae", name[1]);
      bench_json_real("dae_evals", best[1], who[1] >= 0);
      bench_json_real("evals_ratio_dae_over_ode", best[1] / best[0], both);
      bench_json_real("wall_ratio_dae_over_ode", bwall[1] / bwall[0], both);
      printf("}");
    } else {
      char e0[32] = "-", e1[32] = "-", r0[32] = "-", r1[32] = "-";
      if (who[0] >= 0) {
        snprintf(e0, sizeof e0, "%.0f", best[0]);
      }
      if (who[1] >= 0) {
        snprintf(e1, sizeof e1, "%.0f", best[1]);
      }
      if (both) {
        snprintf(r0, sizeof r0, "%.2f", best[1] / best[0]);
        snprintf(r1, sizeof r1, "%.2f", bwall[1] / bwall[0]);
      }
      char sp[1024];
      printf("%-16s %8.0e  %-40s %8s  %-18s %8s  %8s %8s\n", cli_safe(sp, sizeof sp, problem),
             target, name[0], e0, name[1], e1, r0, r1);
    }
  }
  free(ref);
  free(z);
  CHSProblem_Destroy(&prob);
  return 0;
}

int cmd_bench_dae(int json, int quiet, const char *problem, double tf) {
  bench_jac bj[4 * BENCH_NCFG];
  int nbj = 0, stiff = 0;
  if (problem) { /* validated before anything is printed; M(q) or time: the stiff candidates */
    CHSError err;
    CHSError_Clear(&err);
    CHSProblem prob = NULL;
    if (CHSProblem_Create(problem, &prob, &err) != 0) {
      return cli_fail(&err);
    }
    const CHSProblemDims *d = CHSProblem_GetDims(prob);
    stiff = d->mass_kind == CHS_MASS_CONFIG || d->time_dependent;
    CHSProblem_Destroy(&prob);
  }
  if (json) {
    printf("{\n  \"benchmark\": \"dae\",\n  \"results\": [");
  } else {
    printf("cheapest run reaching each final error (tolerances 1e-3 .. 1e-12, rtol = atol)\n\n"
           "%-16s %8s  %-40s %8s  %-18s %8s  %8s %8s\n",
           "problem", "error", "stabilised ODE", "evals", "IDA", "evals", "evals x", "wall x");
  }
  int rc;
  progress prog;
  double done = 0;
  /* the built-in set: t = 20 for the chain, not 200: its vibrations amplify errors so that at
   * t = 200 no configuration reaches 1e-6 even at tolerance 1e-12 (measured), and the comparison
   * would be empty; the test set's published references at their final times (errors absolute,
   * as above) */
  struct {
    const char *problem;
    double tf;
    int set;
  } runs[] = {{"pendulum", 30, BENCH_NONSTIFF},
              {"chain", 20, BENCH_NONSTIFF},
              {"andrews", 0.03, BENCH_STIFF},
              {"car-axis", 3, BENCH_STIFF}};
  int nruns = 4;
  if (problem) {
    runs[0].problem = problem;
    runs[0].tf = tf;
    runs[0].set = stiff ? BENCH_STIFF : BENCH_NONSTIFF;
    nruns = 1;
  }
  bench_cfg cfgs[2][BENCH_NCFG];
  int ncfg[2] = {bench_set(BENCH_NONSTIFF, cfgs[0]), bench_set(BENCH_STIFF, cfgs[1])}, total = 0;
  for (int k = 0; k < nruns; k++) {
    total += bench_dae_runs(cfgs[runs[k].set - 1], ncfg[runs[k].set - 1]);
  }
  progress_start(&prog, quiet, 1, "chs bench dae", 0, total);
  rc = 0;
  for (int k = 0; k < nruns && rc == 0; k++) {
    int c = runs[k].set - 1;
    rc = bench_dae_problem(runs[k].problem, runs[k].tf, cfgs[c], ncfg[c], json, k == 0, bj, &nbj,
                           &prog, &done);
  }
  progress_end(&prog);
  if (json) {
    printf("\n  ],\n  \"ida_jacobian\": [");
    for (int i = 0; i < nbj; i++) {
      printf("%s\n    {\"problem\": ", i ? "," : "");
      json_string(stdout, bj[i].problem);
      bench_json_string("formulation", bj[i].form);
      bench_json_real("wall_s_analytic", bj[i].wall[0], bj[i].wall[0] >= 0);
      bench_json_real("wall_s_fd", bj[i].wall[1], bj[i].wall[1] >= 0);
      printf(", \"evals_analytic\": %ld, \"evals_fd\": %ld, \"jac_evals_analytic\": %ld, "
             "\"jac_evals_fd\": %ld, \"chosen\": \"%s\"}",
             bj[i].evals[0], bj[i].evals[1], bj[i].jac[0], bj[i].jac[1],
             bj[i].chosen ? "fd" : "analytic");
    }
    printf("\n  ]\n}\n");
  } else {
    printf("\nevals x, wall x: DAE (IDA) cost divided by the stabilised ODE's\n"
           "\nIDA Newton Jacobian at tol 1e-8 (wall: median of %d runs; evals: residuals, "
           "difference quotients included):\n%-16s %-12s %12s %8s %6s %12s %8s %6s  %s\n",
           BENCH_JAC_RUNS, "problem", "formulation", "analytic s", "evals", "jacs", "fd s", "evals",
           "jacs", "used");
    for (int i = 0; i < nbj; i++) {
      char sp[1024];
      printf("%-16s %-12s %12.3g %8ld %6ld %12.3g %8ld %6ld  %s\n",
             cli_safe(sp, sizeof sp, bj[i].problem), bj[i].form, bj[i].wall[0], bj[i].evals[0],
             bj[i].jac[0], bj[i].wall[1], bj[i].evals[1], bj[i].jac[1],
             bj[i].chosen ? "fd" : "analytic");
    }
  }
  return rc;
}
