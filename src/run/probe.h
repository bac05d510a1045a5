/* Warnings of a run (chs/run.h "Warnings"): the derivative probe before it, the list, and the
 * configurations known not to deliver their tolerance. */
#ifndef CHS_PROBE_H
#define CHS_PROBE_H

#include <stddef.h>
#include "chs/run.h"

/* Append a warning (printf format) to sum->warnings; counts it also when the list is full. */
void chs_run_warn(CHSRunSummary *sum, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The derivative probe when opt->check asks for it on prob: a warning per failed callback; the
 * number of failures in *failed, the first one's name in first (len bytes). CHS_ERR_MEM when the
 * check cannot run. */
int chs_probe_derivatives(CHSProblem prob, const CHSRunOptions *opt, CHSRunSummary *sum,
                          int *failed, char *first, size_t len, CHSError *err);

/* The warning for a configuration known not to deliver its tolerance (chs/run.h "Warnings"): a
 * formulation measured failing calibration (ops->uncalibrated), or an adaptive tolerance below
 * what double precision can deliver. Nothing for a fixed step. */
void chs_calibration_warn(const CHSFormulationOps *ops, const CHSRunOptions *opt,
                          CHSRunSummary *sum);

#endif
