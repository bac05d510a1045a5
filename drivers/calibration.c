/* The calibration rule of `chs bench calibrate` (docs/calibration.md); the run-time warning drawn
 * from its measurements is the library's (src/run/probe.c). */
#include "calibration.h"
#include <math.h>
#include <string.h>

int cal_point_calibrated(int ok, double err, double tol) {
  return ok && isfinite(err) && err <= CAL_OVER_FACTOR * tol;
}

int cal_falls(int n, const int *ok, const double *err, const double *tol) {
  int lo = -1, hi = -1;
  for (int k = 0; k < n; k++) {
    if (ok[k] && isfinite(err[k])) {
      lo = lo < 0 ? k : lo;
      hi = k;
    }
  }
  if (lo < 0 || hi == lo) {
    return 0;
  }
  return err[hi] <= tol[hi] || err[hi] <= 0.1 * err[lo];
}
