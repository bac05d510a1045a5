/* Calibration: whether an adaptive configuration's final error follows its tolerance
 * (`chs bench calibrate`, docs/calibration.md). */
#ifndef CHS_CALIBRATION_H
#define CHS_CALIBRATION_H

/* A point fails calibration when its final error exceeds this many times the tolerance. */
#define CAL_OVER_FACTOR 1000.0

/* 1 when a run that succeeded (ok) has a final error err <= CAL_OVER_FACTOR tol. */
int cal_point_calibrated(int ok, double err, double tol);
/* 1 when the error falls over a sweep of n decreasing tolerances: at the tightest successful
 * point it is at most that tolerance, or at most a tenth of the error at the loosest successful
 * one. Fewer than two successful points: 0. */
int cal_falls(int n, const int *ok, const double *err, const double *tol);

#endif
