/* Private to the derivative checker (src/analysis/check.c, check_fd.c, check_points.c): the state
 * of one check, the rows it reports, the callbacks as vector functions of (q, t) and their
 * extrapolated finite differences. */
#ifndef CHS_CHECK_IMPL_H
#define CHS_CHECK_IMPL_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "impl.h"
#include "chs/check.h"

#define CHK_UR SUN_UNIT_ROUNDOFF
#define CHK_MAX_LEVELS 8
#define CHK_NCAND 3
/* noise estimate: 2 CHK_NOISE_HALF + 1 values at spacing CHK_NOISE_STEP (relative), differences
 * of orders 3 .. 2 CHK_NOISE_HALF */
#define CHK_NOISE_HALF 3
#define CHK_NOISE_PTS (2 * CHK_NOISE_HALF + 1)
#define CHK_NOISE_STEP 1e-6
/* a rounding error bound from the RMS noise estimate */
#define CHK_NOISE_BOUND 4

typedef struct chk chk;
/* A vector function of (q, t) with k outputs (0, > 0 outside the domain, < 0 failure). */
typedef int (*chk_fn)(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out);

struct chk {
  const CHSProblemOps *ops;
  void *data;
  const CHSProblemDims *d;
  const CHSCheckOptions *o;
  CHSCheckReport *rep;
  sunindextype n, m, gsize, msize, kmax;
  int timed;
  sunrealtype qscale, pscale;
  uint64_t rng;
  /* the current point */
  int point;
  sunrealtype t, *q, *p, *q0, *p0;
  /* directions and coefficient vectors of the current comparison */
  sunrealtype *u, *z, *a, *b, *w;
  /* scratch */
  sunrealtype *xs, *R, *R2, *NZ, *fp, *fm, *D, *an, *G, *Gd, *Gd2, *M, *vn, *vm;
  sunindextype *colptr, *rowidx, *pos; /* CSC index of G's pattern (dense checks) */
  sunindextype *mark;
  int last_point[CHS_CHECK_MAX_ROWS];
  int skipped[CHS_CHECK_MAX_ROWS];
  sunrealtype worst[CHS_CHECK_MAX_ROWS]; /* largest error / tolerance so far */
};

/* random numbers and rows (check.c) */
void chk_random(chk *c, sunrealtype *x, sunindextype k);
sunrealtype chk_maxabs(const sunrealtype *x, sunindextype k);
void chk_fail(chk *c, int row, const char *what);
int chk_call(chk *c, int row, const char *name, int rc, const sunrealtype *out, sunindextype k);
void chk_compare(chk *c, int row, const sunrealtype *an, const sunrealtype *fd, sunindextype k,
                 sunrealtype est, sunrealtype extra, const char *what);

/* evaluations and finite differences (check_fd.c) */
void chk_time(chk *c, sunrealtype t);
int fn_V(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out);
int fn_F(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out);
int fn_g(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out);
int fn_G(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out);
int fn_Gd(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out);
int fn_gt(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out);
void chk_jac_mv(const chk *c, const sunrealtype *J, const sunrealtype *x, sunrealtype *out);
int fn_third(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out);
int fn_Mb(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out);
int fn_aMb(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out);
int fn_mg(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out);
int fn_sigma(chk *c, const sunrealtype *q, sunrealtype t, sunrealtype *out);
int chk_fd_row(chk *c, int row, const char *name, chk_fn fn, sunindextype k, const sunrealtype *dir,
               sunrealtype *est);
void chk_gradient(chk *c, int row, const char *name, chk_fn fn, sunrealtype sign,
                  const sunrealtype *grad, const char *what);

/* the comparisons at one point (check_points.c) */
void chk_force(chk *c, int row);
void chk_jacobian(chk *c, int row, int prow);
void chk_gdot(chk *c, int row);
void chk_hessian(chk *c, int row, int declared_row);
void chk_third(chk *c, int row, int declared_row);
void chk_kinetic_scale(chk *c, int row);
void chk_mass(chk *c, int drow, int grow);
void chk_mass_grad_dir(chk *c, int row);
void chk_time_derivs(chk *c, int crow, int vrow);
/* a comparison without numbers to report (a value checked finite, a structure that holds) */
void chk_counted(chk *c, int row);
void chk_values(chk *c, int frow, int irow, int erow);
void chk_initial(chk *c, int row);

#endif
