/* chs bench scale: the chain molecule from N = 10 to N = 10^5 atoms.
 * The chain is the coil (init=2) with thermal momenta (kT = 0.1, seed 1) and the
 * Lennard-Jones potential cut off at 2.5 sigma (shifted, cell lists) at every N. For each N:
 *
 *   - CPU time per right-hand-side evaluation of standard and dirac (interleaved, best of
 *     BENCH_SCALE_REPS repetitions of a batch of about 2 10^6 / N evaluations), their ratio,
 *     atom-evaluations per second on one core;
 *   - the Gram matrix Q = G M^-1 G^T (tridiagonal): G, assembly + factorisation, and one solve,
 *     band (LDL^T in SUNDIALS band storage) against KLU (SUNLinSol_KLU), and the solver `auto`
 *     chose;
 *   - bytes per atom of the problem, one dirac formulation and its state vectors (heap bytes
 *     from mallinfo2, glibc only);
 *
 * then the ratios t(N_max) / t(N_max / 10) (linear scaling: <= 12) and a full RK4 run of the
 * largest chain, standard and dirac, for 100 steps of h = 0.01 with the energy and residual
 * diagnostics (and the peak resident set size per atom). Timing code may use the library's
 * private Gram solver (src/impl.h): a driver for measurements only. Times are CPU times of this
 * thread: the machine may be shared, and time spent descheduled is not the cost of an
 * evaluation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <nvector/nvector_serial.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include "../src/compat.h"
#include "../src/impl.h"
#include "bench.h"
#include "runlib.h"

#define BENCH_SCALE_REPS 5
#define BENCH_SCALE_SPEC "chain:N=%ld,init=2,vel=thermal,kT=0.1,seed=1,cutoff=2.5"

/* Heap bytes in use (-1 when unknown). */
static double scale_heap(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  struct mallinfo2 mi = mallinfo2();
  return (double)mi.uordblks + (double)mi.hblkhd;
#else
  return -1;
#endif
}

typedef struct {
  long N, evals;
  double t_std, t_dirac;                                 /* s per RHS */
  double band_factor, band_solve, klu_factor, klu_solve; /* s per call */
  const char *gram_auto;
  double bytes_per_atom;
} scale_row;

typedef struct {
  CHSFormulation f;
  N_Vector y, yd;
} scale_rhs;

static int scale_rhs_new(CHSProblem prob, SUNContext ctx, const char *form, scale_rhs *r,
                         CHSError *err) {
  memset(r, 0, sizeof *r);
  CHS_CALL_DRV(CHSFormulation_Create(form, prob, ctx, &r->f, err));
  CHS_CALL_DRV(CHSFormulation_NewInitialState(r->f, &r->y, err));
  r->yd = N_VClone(r->y);
  if (!r->yd) {
    return cli_error(err, CHS_ERR_MEM, "out of memory");
  }
  return 0;
}

static void scale_rhs_free(scale_rhs *r) {
  N_VDestroy(r->y);
  N_VDestroy(r->yd);
  CHSFormulation_Destroy(&r->f);
}

/* Seconds per evaluation for `evals` evaluations; < 0 on failure. */
static double scale_time_rhs(scale_rhs *r, long evals) {
  double t0 = bench_now(CLOCK_THREAD_CPUTIME_ID);
  for (long k = 0; k < evals; k++) {
    if (CHSFormulation_Rhs(0, r->y, r->yd, r->f) != 0) {
      return -1;
    }
  }
  return (bench_now(CLOCK_THREAD_CPUTIME_ID) - t0) / (double)evals;
}

/* Gram assembly + factorisation and one solve at the initial state, per call. */
static int scale_time_gram(scale_rhs *r, long evals, double *factor, double *solve) {
  CHSSystem *s = &r->f->sys;
  const sunrealtype *q = N_VGetArrayPointer(r->y);
  sunrealtype *b = s->wm[CHS_WM_PSI], *x = s->wm[CHS_WM_R];
  for (sunindextype i = 0; i < s->m; i++) {
    b[i] = 1 + 0.001 * (sunrealtype)(i % 7);
  }
  *factor = *solve = INFINITY;
  for (int rep = 0; rep < BENCH_SCALE_REPS; rep++) {
    double t0 = bench_now(CLOCK_THREAD_CPUTIME_ID);
    for (long k = 0; k < evals; k++) {
      if (chs_system_gram_at(s, q) != 0) {
        return -1;
      }
    }
    double t1 = bench_now(CLOCK_THREAD_CPUTIME_ID);
    for (long k = 0; k < evals; k++) {
      if (chs_gram_solve(s->gram, b, x) != 0) {
        return -1;
      }
    }
    double t2 = bench_now(CLOCK_THREAD_CPUTIME_ID);
    *factor = fmin(*factor, (t1 - t0) / (double)evals);
    *solve = fmin(*solve, (t2 - t1) / (double)evals);
  }
  return 0;
}

static int scale_measure(long N, SUNContext ctx, scale_row *row, CHSError *err) {
  char spec[160];
  snprintf(spec, sizeof spec, BENCH_SCALE_SPEC, N);
  memset(row, 0, sizeof *row);
  row->N = N;
  row->evals = N >= 200000 ? 5 : 2000000 / N;
  double heap0 = scale_heap();
  CHSProblem prob = NULL;
  scale_rhs st, di, band, klu;
  memset(&st, 0, sizeof st);
  memset(&band, 0, sizeof band);
  memset(&klu, 0, sizeof klu);
  int rc = CHSProblem_Create(spec, &prob, err);
  if (rc == 0) {
    rc = scale_rhs_new(prob, ctx, "dirac", &di, err);
  } else {
    memset(&di, 0, sizeof di);
  }
  double heap1 = scale_heap();
  row->bytes_per_atom = heap0 >= 0 ? (heap1 - heap0) / (double)N : NAN;
  if (rc == 0) {
    rc = scale_rhs_new(prob, ctx, "standard", &st, err);
  }
  if (rc == 0) {
    row->gram_auto = chs_gram_kind_names[chs_gram_kind(st.f->sys.gram)];
    rc = scale_rhs_new(prob, ctx, "standard:gram=band", &band, err);
  }
  if (rc == 0) {
    rc = scale_rhs_new(prob, ctx, "standard:gram=klu", &klu, err);
  }
  row->t_std = row->t_dirac = INFINITY;
  for (int rep = 0; rc == 0 && rep < BENCH_SCALE_REPS; rep++) {
    double a = scale_time_rhs(&st, row->evals), b = scale_time_rhs(&di, row->evals);
    if (a < 0 || b < 0) {
      rc = cli_error(err, CHS_ERR_SOLVER, "right-hand side failed at N = %ld", N);
      break;
    }
    row->t_std = fmin(row->t_std, a);
    row->t_dirac = fmin(row->t_dirac, b);
  }
  if (rc == 0 && (scale_time_gram(&band, row->evals, &row->band_factor, &row->band_solve) != 0 ||
                  scale_time_gram(&klu, row->evals, &row->klu_factor, &row->klu_solve) != 0)) {
    rc = cli_error(err, CHS_ERR_SOLVER, "Gram factorisation failed at N = %ld", N);
  }
  scale_rhs_free(&st);
  scale_rhs_free(&di);
  scale_rhs_free(&band);
  scale_rhs_free(&klu);
  CHSProblem_Destroy(&prob);
  return rc;
}

/* The full run: RK4, 100 steps of h = 0.01, diagnostics every 10 steps. */
static int scale_full_run(long N, const char *form, cli_result *res) {
  cli_options o;
  memset(&o, 0, sizeof o);
  char spec[160];
  snprintf(spec, sizeof spec, BENCH_SCALE_SPEC, N);
  o.problem = spec;
  o.method = "erk:rk4";
  o.h = 0.01;
  o.have_h = 1;
  o.tf = 1;
  o.have_tf = 1;
  o.every = 10;
  CHSError err;
  CHSError_Clear(&err);
  CHSProblem prob = NULL;
  if (CHSProblem_Create(spec, &prob, &err) != 0) {
    memset(res, 0, sizeof *res);
    res->rc = err.code;
    res->err = err;
    return err.code;
  }
  cli_integrate(&o, form, NULL, NULL, prob, res);
  snprintf(res->problem, sizeof res->problem, "%s", spec);
  CHSProblem_Destroy(&prob);
  return res->rc;
}

int cmd_bench_scale(int argc, char **argv) {
  cli_options o;
  int prc = cli_parse(CLI_BENCH_SCALE, argc, argv, &o);
  if (prc != 0) {
    return prc == CLI_HELP_DONE ? CHS_EXIT_OK : prc;
  }
  int json = o.json;
  long nmax = o.max_n;
  long p = 10;
  while (p < nmax) {
    p *= 10;
  }
  if (nmax != p) {
    return cli_usage_error("bad value for --max-n: '%ld' (a power of ten, 10 .. 1000000)", nmax);
  }
  if (o.implicit) {
    return cmd_bench_scale_implicit(&o); /* drivers/cmd_bench_scale_implicit.c */
  }
  if (o.have_rounds || o.scale_problems || o.have_time_limit || o.sizes) {
    return cli_usage_error("--%s is for bench scale --implicit", o.have_rounds      ? "rounds"
                                                                 : o.scale_problems ? "problems"
                                                                 : o.sizes          ? "sizes"
                                                                                    : "time-limit");
  }
  if (o.dry_run) {
    return cli_dry_run_done("the chain molecule benchmark");
  }
  SUNContext ctx = NULL;
  if (chs_context_create(&ctx) != 0) {
    fprintf(stderr, "chs: cannot create a SUNDIALS context\n");
    return CHS_EXIT_NUMERIC;
  }
  chs_context_silence(ctx);
  scale_row rows[6];
  int nrows = 0, rc = 0;
  CHSError err;
  CHSError_Clear(&err);
  if (!json) {
    printf("chain molecule: chain:N=..,init=2,vel=thermal,kT=0.1,seed=1,cutoff=2.5\n\n");
    printf("%8s %12s %12s %7s %6s %10s %10s %10s %10s %9s %11s\n", "N", "std us/rhs",
           "dirac us/rhs", "d/s", "gram", "band fac", "band sol", "klu fac", "klu sol", "B/atom",
           "atoms/s");
  }
  for (long N = 10; rc == 0 && N <= nmax; N *= 10) {
    rc = scale_measure(N, ctx, &rows[nrows], &err);
    if (rc == 0 && !json) {
      scale_row *r = &rows[nrows];
      printf("%8ld %12.2f %12.2f %7.3f %6s %8.2fus %8.2fus %8.2fus %8.2fus %9.0f %11.3g\n", N,
             r->t_std * 1e6, r->t_dirac * 1e6, r->t_dirac / r->t_std, r->gram_auto,
             r->band_factor * 1e6, r->band_solve * 1e6, r->klu_factor * 1e6, r->klu_solve * 1e6,
             r->bytes_per_atom, (double)N / r->t_dirac);
      fflush(stdout);
    }
    nrows += rc == 0;
  }
  SUNContext_Free(&ctx);
  if (rc != 0) {
    return cli_fail(&err);
  }
  double ratio_std = NAN, ratio_dirac = NAN, worst = 0;
  if (nrows >= 2) {
    ratio_std = rows[nrows - 1].t_std / rows[nrows - 2].t_std;
    ratio_dirac = rows[nrows - 1].t_dirac / rows[nrows - 2].t_dirac;
  }
  for (int i = 0; i < nrows; i++) {
    worst = fmax(worst, rows[i].t_dirac / rows[i].t_std);
  }
  cli_result full[2];
  const char *forms[2] = {"standard", "dirac"};
  for (int k = 0; k < 2; k++) {
    scale_full_run(nmax, forms[k], &full[k]);
  }
  long peak_kb = cli_peak_rss_kb();
  double rss = peak_kb > 0 ? (double)peak_kb * 1024 / (double)nmax : NAN;
  int full_ok = full[0].rc == 0 && full[1].rc == 0;
  if (json) {
    printf("{\n  \"benchmark\": \"scale\",\n  \"problem\": ");
    json_string(stdout, "chain:N=..,init=2,vel=thermal,kT=0.1,seed=1,cutoff=2.5");
    printf(",\n  \"results\": [");
    for (int i = 0; i < nrows; i++) {
      const scale_row *r = &rows[i];
      printf("%s\n    {\"N\": %ld, \"evals\": %ld, \"standard_ns_per_eval\": %.4g, "
             "\"dirac_ns_per_eval\": %.4g, \"dirac_over_standard\": %.4g, \"gram_auto\": ",
             i ? "," : "", r->N, r->evals, r->t_std * 1e9, r->t_dirac * 1e9, r->t_dirac / r->t_std);
      json_string(stdout, r->gram_auto);
      printf(", \"band_factor_ns\": %.4g, \"band_solve_ns\": %.4g, \"klu_factor_ns\": %.4g, "
             "\"klu_solve_ns\": %.4g, \"bytes_per_atom\": ",
             r->band_factor * 1e9, r->band_solve * 1e9, r->klu_factor * 1e9, r->klu_solve * 1e9);
      json_real(stdout, r->bytes_per_atom, 1);
      printf(", \"atom_evals_per_s_standard\": %.4g, \"atom_evals_per_s_dirac\": %.4g}",
             (double)r->N / r->t_std, (double)r->N / r->t_dirac);
    }
    printf("\n  ],\n  \"ratio_last_over_previous\": {\"standard\": ");
    json_real(stdout, ratio_std, 1);
    bench_json_real("dirac", ratio_dirac, 1);
    printf("},\n  \"linear\": %s,\n  \"max_dirac_over_standard\": ",
           ratio_std <= 12 && ratio_dirac <= 12 ? "true" : "false");
    json_real(stdout, worst, 1);
    printf(",\n  \"dirac_within_1_3\": %s,\n  \"full_run_peak_rss_bytes_per_atom\": ",
           worst <= 1.3 ? "true" : "false");
    json_real(stdout, rss, 1);
    printf(",\n  \"full_runs\": [");
    for (int k = 0; k < 2; k++) {
      printf("%s\n    ", k ? "," : "");
      if (full[k].rc == 0) {
        json_run_object(stdout, &full[k], "    ");
      } else {
        printf("{\"formulation\": ");
        json_string(stdout, forms[k]);
        bench_json_string("error", full[k].err.msg);
        printf("}");
      }
    }
    printf("\n  ]\n}\n");
  } else {
    printf("\nus/rhs: best of %d batches; gram: the solver `auto` picks; fac: G, assembly and "
           "factorisation of Q; sol: one solve;\nB/atom: heap of the problem + one dirac "
           "formulation; atoms/s: atom-evaluations per second of dirac (one core)\n",
           BENCH_SCALE_REPS);
    if (nrows >= 2) {
      printf("\nt(%ld)/t(%ld): standard %.2f, dirac %.2f (linear scaling: <= 12): %s\n", nmax,
             nmax / 10, ratio_std, ratio_dirac,
             ratio_std <= 12 && ratio_dirac <= 12 ? "linear" : "NOT linear");
    }
    printf("dirac/standard: at most %.3f over N (target <= 1.3): %s\n", worst,
           worst <= 1.3 ? "met" : "missed");
    printf("\nRK4, N = %ld, 100 steps of h = 0.01 (peak RSS %.0f bytes/atom):\n", nmax, rss);
    for (int k = 0; k < 2; k++) {
      const CHSRunSummary *s = &full[k].sum;
      if (full[k].rc != 0) {
        printf("  %-9s FAILED: %s\n", forms[k], full[k].err.msg);
        continue;
      }
      printf("  %-9s steps %ld, rhs %ld, wall %.2f s; energy err max %.2e, |g| max %.2e, |psi| "
             "max %.2e",
             forms[k], s->stats.steps, s->rhs_evals, s->wall_s, (double)s->diag.energy_err_max,
             (double)s->diag.pos_res_max, (double)s->diag.mom_res_max);
      for (int i = 0; i < s->diag.n_invariants; i++) {
        printf(", %s drift %.2e", s->diag.invariant_names[i], (double)s->diag.invariant_err_max[i]);
      }
      printf("\n");
    }
  }
  return full_ok ? CHS_EXIT_OK : CHS_EXIT_NUMERIC;
}
