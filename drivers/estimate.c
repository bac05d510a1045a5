/* `chs run --estimate-error`: the final global error estimated from a companion run.
 *
 * The companion is the same configuration at tolerances divided by 100. A calibrated adaptive
 * method's final error falls with the tolerance as C tol^a, a between p/(p+1) (error per step
 * control) and 1 (tolerance proportionality); with a >= 1/2 the companion's error is at most 1/10
 * of the run's and |z - z_c| is the run's error to within 10 % (a = 1: 1 %). A tolerance ratio of
 * 10 would leave, at a = 1/2, an estimate up to 30 % off, and a higher-order pair does not exist
 * for most of the methods (cvode, ida, the formulations' own projections). The companion costs
 * 100^(1/(p+1)) times the run: 2.2 x for dp5, more for low orders. What the estimate cannot see: an
 * error that does not fall with the tolerance (a drift of the formulation, a method that is not
 * calibrated on the problem): `chs bench calibrate` measures which configurations those are. */
#include "estimate.h"
#include "fix.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  sunindextype n;
  sunrealtype *q, *p;
} est_final;

static int est_monitor(const CHSRecord *rec, void *ctx) {
  est_final *f = ctx;
  memcpy(f->q, rec->q, (size_t)f->n * sizeof *f->q);
  memcpy(f->p, rec->p, (size_t)f->n * sizeof *f->p);
  return 0;
}

int cli_estimate_error(const cli_options *o, const sunrealtype *q, const sunrealtype *p,
                       sunindextype n, double *est, char *companion, size_t len, CHSError *err) {
  cli_options c = *o;
  c.rtol = fmax(o->rtol / CHS_ESTIMATE_FACTOR, CHS_ESTIMATE_TOL_FLOOR);
  c.atol = fmax(o->atol / CHS_ESTIMATE_FACTOR, CHS_ESTIMATE_TOL_FLOOR);
  c.every = 1000000000L; /* only the final state matters: the last record is always made */
  c.out = NULL;
  c.plot = NULL;
  snprintf(companion, len, "the same configuration at tol/100: rtol %.3g, atol %.3g", c.rtol,
           c.atol);
  *est = NAN;
  est_final f = {n, calloc(2 * (size_t)n, sizeof(sunrealtype)), NULL};
  if (!f.q) {
    CHSError_Clear(err);
    return cli_error(err, CHS_ERR_MEM, "out of memory for the error estimate's companion run");
  }
  f.p = f.q + n;
  CHSError e;
  CHSError_Clear(&e);
  CHSProblem prob = NULL;
  int rc = CHSProblem_Create(o->problem, &prob, &e);
  if (rc == 0 && o->fix) { /* the companion starts from the same held initial state */
    rc = cli_fix_apply(o->fix, prob, &e);
  }
  cli_result res;
  if (rc == 0) {
    rc = cli_integrate(&c, o->formulation, est_monitor, &f, prob, &res);
    e = res.err;
  }
  CHSProblem_Destroy(&prob);
  if (rc == 0) {
    double d = 0;
    for (sunindextype i = 0; i < n; i++) {
      d += (double)((q[i] - f.q[i]) * (q[i] - f.q[i]) + (p[i] - f.p[i]) * (p[i] - f.p[i]));
    }
    *est = sqrt(d);
  } else {
    *err = e;
    char msg[CHS_ERROR_MSG_LEN];
    snprintf(msg, sizeof msg, "%s", e.msg);
    snprintf(err->msg, sizeof err->msg, "error estimate: the companion run (%.80s) failed: %.*s",
             companion, (int)(sizeof err->msg) - 140, msg);
  }
  free(f.q);
  return rc;
}
