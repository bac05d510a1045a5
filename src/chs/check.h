/** @file
 * Derivative checker: every callback a problem supplies against extrapolated central finite
 * differences of the callback it derives from (`chs check`; docs/check.md).
 *
 *   CHSCheckOptions opt;
 *   CHSCheckOptions_Default(&opt);           (then change what you need)
 *   CHSCheckReport rep;
 *   int rc = CHSProblem_Check(prob, &opt, &rep, &err);
 *   rc != 0: the check could not run (bad options, out of memory); rep.n_fail > 0: a callback is
 *   wrong (its row has verdict CHS_CHECK_FAIL and a detail naming the point and the entry).
 *
 * The callbacks are evaluated at the problem's initial state and at `points` reproducible random
 * perturbations of it (q and p perturbed, so off the constraint manifold; time-dependent problems
 * also at random times in [0, 1]). Each derivative is compared with central differences at steps
 * h, h/2, ..., h/2^(levels-1), extrapolated (Richardson); the step h is the best of three
 * candidates. The tolerance of each comparison is derived from the finite differences themselves:
 *
 *   tol = safety * (|D_L - D_{L-1}| + 8 u (|f| + |x| |D|) / h_min) + 16 u |analytic terms|,
 *
 * D_L, D_{L-1} the extrapolations with all and with one level less (the truncation error
 * estimate), the second term the rounding error of the differences (u = unit round-off). The
 * library never prints; the report holds one row per check. */
#ifndef CHS_CHECK_H
#define CHS_CHECK_H

#include "chs/export.h"

#include <sundials/sundials_types.h>
#include "chs/error.h"
#include "chs/problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Options of CHSProblem_Check (CHSCheckOptions_Default sets every field). */
typedef struct CHSCheckOptions {
  int points;              /**< perturbed points besides the initial state (default 3, >= 0) */
  unsigned long long seed; /**< seed of the perturbations and directions (default 1) */
  sunrealtype perturb; /**< size of the perturbations relative to the scale of q (default 1e-3) */
  int directions;      /**< random directions per point (default 4, >= 1) */
  int levels;          /**< Richardson levels (default 4, 2 .. 8) */
  sunrealtype safety;  /**< factor on the finite-difference error estimate (default 10, >= 1) */
  /** Gradients and G are checked entry by entry (n coordinate directions) when n <= dense_max
   * (default 512); above it along the random directions only (the CSR pattern check of G needs
   * the entries: skipped then). */
  sunindextype dense_max;
} CHSCheckOptions;

/** Fill opt with the defaults stated on each field. */
CHS_EXPORT void CHSCheckOptions_Default(CHSCheckOptions *opt);

/** Outcome of one row of the check. */
typedef enum {
  CHS_CHECK_PASS = 0, /**< every comparison within its tolerance */
  /** wrong derivative, non-finite value, failing callback, bad initial state */
  CHS_CHECK_FAIL = 1,
  CHS_CHECK_SKIP = 2 /**< not supplied, not applicable or not checkable (detail says why) */
} CHSCheckVerdict;

#define CHS_CHECK_NAME_LEN 48    /**< size of CHSCheckRow.name, terminating NUL included */
#define CHS_CHECK_DETAIL_LEN 240 /**< size of CHSCheckRow.detail, terminating NUL included */
#define CHS_CHECK_MAX_ROWS 24    /**< capacity of CHSCheckReport.rows */

/** One checked callback or declared fact, with its verdict. */
typedef struct CHSCheckRow {
  char name[CHS_CHECK_NAME_LEN]; /**< the callback or fact checked: "jacobian_dot", ... */
  int points;                    /**< points at which it was compared */
  long comparisons;              /**< compared vectors (directions x points) */
  sunrealtype max_rel_err;       /**< largest |analytic - FD| / scale over all comparisons */
  sunrealtype fd_err;            /**< the FD error estimate (relative) of the worst comparison */
  sunrealtype tol;               /**< its tolerance (relative) */
  CHSCheckVerdict verdict;       /**< pass, fail or skip */
  char detail[CHS_CHECK_DETAIL_LEN]; /**< the first failure, or what was compared / why skipped */
} CHSCheckRow;

/** The result of CHSProblem_Check: one row per check. */
typedef struct CHSCheckReport {
  int nrows;                            /**< rows in use */
  CHSCheckRow rows[CHS_CHECK_MAX_ROWS]; /**< rows[0 .. nrows) */
  /** @{ */
  /** Rows with verdict CHS_CHECK_FAIL, CHS_CHECK_PASS and CHS_CHECK_SKIP. */
  int n_fail, n_pass, n_skip;
  /** @} */
  int points; /**< evaluation points (the initial state + perturbed ones) */
  /** @{ */
  /** the initial state: |g| and |G M^-1 p| (2-norms) */
  sunrealtype init_pos_res, init_mom_res;
  /** @} */

} CHSCheckReport;

/** Check every callback of prob (see above). Returns CHS_SUCCESS when the check ran (verdicts in
 * rep), CHS_ERR_ARG for bad options, CHS_ERR_MEM. opt NULL: the defaults. */
CHS_EXPORT int CHSProblem_Check(CHSProblem prob, const CHSCheckOptions *opt, CHSCheckReport *rep,
                                CHSError *err);

/** "pass", "FAIL", "skip". */
CHS_EXPORT const char *CHSCheckVerdict_Name(CHSCheckVerdict v);

#ifdef __cplusplus
}
#endif
#endif
