/* `chs run --estimate-error`: an estimate of the final global error from a companion run. */
#ifndef CHS_ESTIMATE_H
#define CHS_ESTIMATE_H

#include "cli.h"

/* The companion's tolerances divide the run's by this factor. */
#define CHS_ESTIMATE_FACTOR 100.0
/* ... but go no lower: below it the companion's own error is round-off, not tolerance. */
#define CHS_ESTIMATE_TOL_FLOOR 1e-14

/* The same problem, formulation, method and projection as o, to the same final time, at
 * rtol / 100 and atol / 100 (each at least CHS_ESTIMATE_TOL_FLOOR): the estimate is
 * |(q,p)(tf) - (q_c,p_c)(tf)|_2 against the companion's final state. (q, p): the run's final
 * state, n coordinates each. Sets *est and describes the companion in `companion`
 * ("tol/100: rtol 1e-08, atol 1e-08"); 0, or the companion run's code (err set). */
int cli_estimate_error(const cli_options *o, const sunrealtype *q, const sunrealtype *p,
                       sunindextype n, double *est, char *companion, size_t len, CHSError *err);

#endif
