/* The derivative probe before a run, the run's warnings (chs/run.h "Warnings") and the
 * configurations known not to deliver their tolerance. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "chs/check.h"
#include "impl.h"
#include "probe.h"

void chs_run_warn(CHSRunSummary *sum, const char *fmt, ...) {
  if (sum->n_warnings < CHS_RUN_MAX_WARNINGS) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sum->warnings[sum->n_warnings], CHS_RUN_WARNING_LEN, fmt, ap);
    va_end(ap);
  }
  sum->n_warnings++;
}

int chs_probe_derivatives(CHSProblem prob, const CHSRunOptions *opt, CHSRunSummary *sum,
                          int *failed, char *first, size_t len, CHSError *err) {
  *failed = 0;
  first[0] = '\0';
  if (opt->check == CHS_RUN_CHECK_OFF || (opt->check == CHS_RUN_CHECK_AUTO && !prob->plugin)) {
    return CHS_SUCCESS;
  }
  /* the initial state only, one direction per derivative, directional checks of the gradients
   * and of G (no entry by entry): a few hundred evaluations whatever n */
  CHSCheckOptions co;
  CHSCheckOptions_Default(&co);
  co.points = 0;
  co.directions = 1;
  co.dense_max = 0;
  CHSCheckReport rep;
  CHS_CALL(CHSProblem_Check(prob, &co, &rep, err));
  for (int i = 0; i < rep.nrows; i++) {
    const CHSCheckRow *r = &rep.rows[i];
    /* the initial state's consistency is the run's own input check (an error, not a warning) */
    if (r->verdict != CHS_CHECK_FAIL || strcmp(r->name, "initial state") == 0) {
      continue;
    }
    if ((*failed)++ == 0) {
      snprintf(first, len, "%s", r->name);
    }
    chs_run_warn(sum,
                 "problem %.60s: derivative probe: %s disagrees with finite differences at the "
                 "initial state (%.200s)",
                 CHSProblem_GetName(prob), r->name, r->detail);
  }
  return CHS_SUCCESS;
}

/* Below this tolerance the final error of a double-precision run is round-off accumulated over
 * the steps, which grow in number as the tolerance falls: the error stops following it. */
#define CHS_CAL_TOL_FLOOR 1e-13

void chs_calibration_warn(const CHSFormulationOps *ops, const CHSRunOptions *opt,
                          CHSRunSummary *sum) {
  if (opt->ctl.h > 0 || !opt->method) {
    return; /* a fixed step has no tolerance to vouch for */
  }
  const char *why = ops->uncalibrated;
  if (!why && ((opt->ctl.rtol > 0 && opt->ctl.rtol < CHS_CAL_TOL_FLOOR) ||
               (opt->ctl.atol > 0 && opt->ctl.atol < CHS_CAL_TOL_FLOOR))) {
    why = "a tolerance below 1e-13: the final error of a double-precision run is then round-off "
          "accumulated over the steps and does not follow the tolerance";
  }
  if (why) {
    /* the method as given, terminal controls and other bytes outside printable ASCII as '?':
     * callers print warnings as they are */
    char method[128];
    size_t k = 0;
    for (const char *c = opt->method; *c && k + 1 < sizeof method; c++) {
      method[k++] = *c >= 0x20 && *c < 0x7f ? *c : '?';
    }
    method[k] = '\0';
    chs_run_warn(sum, "%s/%s: %s", ops->name, method, why);
  }
}
