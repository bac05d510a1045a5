/* `chs run --estimate-error`: an estimate of the final global error from a companion run. */
#ifndef CHS_ESTIMATE_H
#define CHS_ESTIMATE_H

#include "cli.h"

/* CHSRunProblem_EstimateError for the run of options o (problem spec and --fix, formulation,
 * method and tolerances as given) that ended at (q, p): sets *est and describes the companion in
 * `companion` ("the same configuration at tol/100: rtol 1e-08, atol 1e-08"); 0, or the
 * companion run's code (err set). */
int cli_estimate_error(const cli_options *o, const sunrealtype *q, const sunrealtype *p,
                       double *est, char *companion, size_t len, CHSError *err);

#endif
