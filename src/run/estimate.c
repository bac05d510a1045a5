/* The final global error of a run estimated from a companion run (CHSRunOptions.estimate_error).
 *
 * The companion is the same configuration at tolerances divided by CHS_RUN_ESTIMATE_FACTOR = 100.
 * A calibrated adaptive method's final error falls with the tolerance as C tol^a, a between
 * p/(p+1) (error per step control) and 1 (tolerance proportionality); with a >= 1/2 the
 * companion's error is at most 1/10 of the run's and |z - z_c| is the run's error to within 10 %
 * (a = 1: 1 %). A tolerance ratio of 10 would leave, at a = 1/2, an estimate up to 30 % off, and a
 * higher-order pair does not exist for most of the methods (cvode, ida, the formulations' own
 * projections). The companion costs 100^(1/(p+1)) times the run: 2.2 x for dp5, more for low
 * orders. What the estimate cannot see: an error that does not fall with the tolerance (a drift of
 * the formulation, a method that is not calibrated on the problem): `chs bench calibrate`
 * measures which configurations those are, and their runs carry a warning. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "impl.h"
#include "run_impl.h"

int chs_final_capture_monitor(const CHSRecord *rec, void *ctx) {
  chs_final_capture *c = ctx;
  memcpy(c->z, rec->q, (size_t)c->n * sizeof *c->z);
  memcpy(c->z + c->n, rec->p, (size_t)c->n * sizeof *c->z);
  return c->monitor ? c->monitor(rec, c->ctx) : 0;
}

int CHSRunProblem_EstimateError(CHSProblem prob, const char *formulation, const CHSRunOptions *opt,
                                const sunrealtype *q, const sunrealtype *p, CHSRunSummary *sum,
                                CHSError *err) {
  if (!prob || !opt || !q || !p || !sum) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "CHSRunProblem_EstimateError: the problem, options, final state and "
                         "summary are required (one is NULL)");
  }
  if (opt->ctl.h > 0) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "estimate_error needs an adaptive run (tolerances, not the fixed step h "
                         "= %g)",
                         (double)opt->ctl.h);
  }
  sunindextype n = CHSProblem_GetDims(prob)->n;
  CHSRunOptions c = *opt;
  c.ctl.rtol = fmax(opt->ctl.rtol / CHS_RUN_ESTIMATE_FACTOR, CHS_RUN_ESTIMATE_TOL_FLOOR);
  c.ctl.atol = fmax(opt->ctl.atol / CHS_RUN_ESTIMATE_FACTOR, CHS_RUN_ESTIMATE_TOL_FLOOR);
  c.every = 1000000000L; /* only the final state matters: the last record is always made */
  c.estimate_error = 0;
  c.multipliers = 0;
  c.check = CHS_RUN_CHECK_OFF; /* the run itself probed the derivatives */
  chs_final_capture cap = {NULL, NULL, n, calloc(2 * (size_t)n, sizeof(sunrealtype))};
  CHSRunSummary *cs = calloc(1, sizeof *cs);
  if (!cap.z || !cs) {
    free(cap.z);
    free(cs);
    return chs_error_set(err, CHS_ERR_MEM, "out of memory for the error estimate's companion run");
  }
  CHSError e;
  CHSError_Clear(&e);
  int rc = CHSRunProblem(prob, formulation, &c, chs_final_capture_monitor, &cap, cs, &e);
  if (rc == 0) {
    double d = 0;
    for (sunindextype i = 0; i < n; i++) {
      d += (double)((q[i] - cap.z[i]) * (q[i] - cap.z[i]) +
                    (p[i] - cap.z[n + i]) * (p[i] - cap.z[n + i]));
    }
    sum->error_estimate = sqrt(d);
    sum->error_estimate_rtol = c.ctl.rtol;
    sum->error_estimate_atol = c.ctl.atol;
  } else {
    chs_error_set(err, rc,
                  "error estimate: the companion run (the same configuration at tol/100: rtol "
                  "%.3g, atol %.3g) failed: %.*s",
                  (double)c.ctl.rtol, (double)c.ctl.atol, CHS_ERROR_MSG_LEN - 140, e.msg);
  }
  free(cap.z);
  free(cs);
  return rc;
}
