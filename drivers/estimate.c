/* `chs run --estimate-error`: the library's companion run (CHSRunProblem_EstimateError, which
 * says what the estimate can and cannot see) on a problem made anew from the spec and --fix, so
 * that it starts where the run started. */
#include "estimate.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int cli_estimate_error(const cli_options *o, const sunrealtype *q, const sunrealtype *p,
                       double *est, char *companion, size_t len, CHSError *err) {
  *est = NAN;
  CHSRunSummary *sum = calloc(1, sizeof *sum);
  if (!sum) {
    CHSError_Clear(err);
    return cli_error(err, CHS_ERR_MEM, "out of memory for the error estimate's companion run");
  }
  CHSError_Clear(err);
  CHSProblem prob = NULL;
  CHSRunOptions ro;
  cli_run_options(o, &ro);
  int rc = CHSProblem_Create(o->problem, &prob, err);
  if (rc == 0 && o->fix) {
    rc = CHSProblem_Fix(prob, o->fix, err);
  }
  if (rc == 0) {
    rc = CHSRunProblem_EstimateError(prob, o->formulation, &ro, q, p, sum, err);
  }
  if (rc == 0) {
    *est = sum->error_estimate;
    snprintf(companion, len, "the same configuration at tol/100: rtol %.3g, atol %.3g",
             sum->error_estimate_rtol, sum->error_estimate_atol);
  }
  CHSProblem_Destroy(&prob);
  free(sum);
  return rc;
}
