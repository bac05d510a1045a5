/* What the run's files share inside src/run/: a monitor that keeps the final state (the error
 * estimate's). */
#ifndef CHS_RUN_IMPL_H
#define CHS_RUN_IMPL_H

#include "chs/run.h"

/* A monitor that keeps the last record's (q, p) in z (2 n values) and passes every record on to
 * monitor (when not NULL) with ctx. */
typedef struct {
  CHSMonitorFn monitor;
  void *ctx;
  sunindextype n;
  sunrealtype *z;
} chs_final_capture;
int chs_final_capture_monitor(const CHSRecord *rec, void *ctx);

#endif
