/* Runs that several commands make: bench dae, bench dae --scale, bench scale, workprec and the
 * experiments of `chs reproduce` (drivers/runlib.c; the reference cache: drivers/refcache.c). */
#ifndef CHS_RUNLIB_H
#define CHS_RUNLIB_H

#include "cli.h"

/* Return the code of a failed call (drivers do not see the library's private CHS_CALL). */
#define CHS_CALL_DRV(expr)                                                                         \
  do {                                                                                             \
    int chs_drv_rc_ = (expr);                                                                      \
    if (chs_drv_rc_ != 0) {                                                                        \
      return chs_drv_rc_;                                                                          \
    }                                                                                              \
  } while (0)

/* One run of formulation `form` on prob with the library's run options (opt->every 0 means 1),
 * in a SUNContext of its own; the monitor may be NULL. Returns the run's code (err set). */
int rep_run(CHSProblem prob, const char *form, CHSRunOptions opt, CHSMonitorFn monitor, void *ctx,
            CHSRunSummary *sum, CHSError *err);
/* rep_run that also counts the steps after which a projection (of either kind) was applied into
 * *proj_steps: the monitor runs after every step, `monitor` sees every opt.every-th record. */
int rep_run_counted(CHSProblem prob, const char *form, CHSRunOptions opt, CHSMonitorFn monitor,
                    void *ctx, CHSRunSummary *sum, long *proj_steps, CHSError *err);
/* An integrator stepped by hand (experiments that look at every step or start elsewhere than
 * the problem's initial state): a SUNContext, formulation `form` on prob, its state y and
 * `method` with the step control ctl, from t = 0 at the physical state (q0, p0) when q0 is
 * given, else at the formulation's state y0 (its own layout, ny values: the state's length)
 * when given, else at the problem's initial state; method NULL: no integrator (the formulation
 * and its state only). rep_stepper_close frees what rep_stepper_open made (also after a
 * failure). */
typedef struct {
  SUNContext ctx;
  CHSFormulation f;
  CHSIntegrator it;
  N_Vector y;
} rep_stepper;
int rep_stepper_open(rep_stepper *s, CHSProblem prob, const char *form, const char *method,
                     CHSStepControl ctl, const double *q0, const double *p0, const double *y0,
                     sunindextype ny, CHSError *err);
void rep_stepper_close(rep_stepper *s);
/* The same for the wedge product (CHSWedge_Run; monitor required). */
int rep_wedge(CHSProblem prob, const char *form, CHSRunOptions opt, CHSWedgeMonitorFn monitor,
              void *ctx, CHSWedgeSummary *sum, CHSError *err);

/* Final states: z[0] = n, z[1 .. n] = q(tf), z[n+1 .. 2n] = p(tf). rep_final_monitor is a
 * CHSMonitorFn keeping the last record in z. rep_reference_final fills z with the problem's
 * reference solution at tf or, without one, a dirac run of Verner 8(5,6) at rtol = atol = tol;
 * how (may be NULL) receives which. Returns 0 or the run's code (err set). */
int rep_final_monitor(const CHSRecord *rec, void *ctx);
/* |z - ref|_2 over the 2 n values after z[0] = n (ref in the same layout, its ref[0] unread). */
double rep_final_distance(const double *z, const double *ref);
int rep_reference_final(CHSProblem prob, double tf, double tol, double *z, char *how,
                        size_t how_len, CHSError *err);
/* That run without the problem's reference: a record every `every` steps to monitor(ctx), which
 * must keep the last one in z as rep_final_monitor does (the records change nothing else). */
int rep_reference_run(CHSProblem prob, double tf, double tol, long every, CHSMonitorFn monitor,
                      void *ctx, CHSError *err);

/* The reference final state z (layout of rep_final_monitor) for `chs workprec`: the problem's
 * reference solution, else a dirac + Verner 8(5,6) run at rtol = atol = tol with its error
 * estimated by a second run at 10 tol, cached on disk in cache_dir (NULL or "": no cache) under
 * the problem spec, tf, tol and the chs and SUNDIALS versions (drivers/refcache.c). */
typedef struct {
  char source[16];   /* "problem", "cached" or "computed" */
  char command[160]; /* what made it */
  char path[4096];   /* the cache file ("" when none) */
  char ignored[64];  /* why a cache entry present was not used ("" when none was) */
  char write_error[CHS_ERROR_MSG_LEN]; /* the computed entry could not be stored: why ("") */
  double est_error;                    /* estimated |z - exact|_2 (0 for the problem's reference) */
} rep_reference_info;
int rep_reference_cached(CHSProblem prob, const char *spec, double tf, double tol,
                         const char *cache_dir, int quiet, double *z, rep_reference_info *info,
                         CHSError *err);
/* $XDG_CACHE_HOME/chs/references or $HOME/.cache/chs/references into buf; NULL when neither. */
const char *rep_default_cache_dir(char *buf, size_t len);

#endif
