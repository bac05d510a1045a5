/* The serial N_Vector's element-wise operations and norms, compiled with chs's optimisation.
 *
 * Debian's SUNDIALS builds its serial vector without optimisation (its N_VLinearSum_Serial keeps
 * every operand on the stack), and in a small system IDA's and CVODE's vector operations are a
 * fifth to a third of a step (docs/benchmarks.md, "The DAE side against RADAU5"). chs installs
 * these in the ops table of the serial vectors it creates; SUNDIALS' clones copy the table, so
 * every vector an integrator makes from chs's state uses them too.
 *
 * Each computes what SUNDIALS' serial operation computes, with the same operations in the same
 * order, so that results stay bitwise the same (test_nvector_ops compares them with SUNDIALS'
 * on random vectors, every special case of the scalars included). The one place where SUNDIALS'
 * arithmetic depends on the scalars is N_VLinearSum: a = b computes a (x + y) and a = -b
 * computes a (x - y), not a x + b y, unless a is +-1; its other special cases (a or b = +-1, z
 * aliasing x or y) equal a x + b y exactly, signed zeros included. The fused and array operations
 * are SUNDIALS' generic fallbacks over these (the serial vector's own fused operations are off
 * unless N_VEnableFusedOps_Serial turns them on, which chs does not: the fallbacks are what the
 * integrators compute). The constraint
 * masks, and the two array operations only sensitivity analysis calls, stay SUNDIALS'. */
#include <math.h>
#include <nvector/nvector_serial.h>
#include "base.h"

static void v_linearsum(sunrealtype a, N_Vector x, sunrealtype b, N_Vector y, N_Vector z) {
  const sunrealtype *xd = NV_DATA_S(x), *yd = NV_DATA_S(y);
  sunrealtype *zd = NV_DATA_S(z);
  sunindextype n = NV_LENGTH_S(x);
  int unit = a == 1 || a == -1; /* SUNDIALS' +-1 cases come first: a x + b y exactly */
  if (a == b && !unit) {
    for (sunindextype i = 0; i < n; i++) {
      zd[i] = a * (xd[i] + yd[i]);
    }
  } else if (a == -b && !unit) {
    for (sunindextype i = 0; i < n; i++) {
      zd[i] = a * (xd[i] - yd[i]);
    }
  } else {
    for (sunindextype i = 0; i < n; i++) {
      zd[i] = a * xd[i] + b * yd[i];
    }
  }
}

static void v_const(sunrealtype c, N_Vector z) {
  sunrealtype *zd = NV_DATA_S(z);
  for (sunindextype i = 0, n = NV_LENGTH_S(z); i < n; i++) {
    zd[i] = c;
  }
}

static void v_prod(N_Vector x, N_Vector y, N_Vector z) {
  const sunrealtype *xd = NV_DATA_S(x), *yd = NV_DATA_S(y);
  sunrealtype *zd = NV_DATA_S(z);
  for (sunindextype i = 0, n = NV_LENGTH_S(x); i < n; i++) {
    zd[i] = xd[i] * yd[i];
  }
}

static void v_div(N_Vector x, N_Vector y, N_Vector z) {
  const sunrealtype *xd = NV_DATA_S(x), *yd = NV_DATA_S(y);
  sunrealtype *zd = NV_DATA_S(z);
  for (sunindextype i = 0, n = NV_LENGTH_S(x); i < n; i++) {
    zd[i] = xd[i] / yd[i];
  }
}

/* c = 1 (a copy) and c = -1 (a negation) are c x exactly */
static void v_scale(sunrealtype c, N_Vector x, N_Vector z) {
  const sunrealtype *xd = NV_DATA_S(x);
  sunrealtype *zd = NV_DATA_S(z);
  for (sunindextype i = 0, n = NV_LENGTH_S(x); i < n; i++) {
    zd[i] = c * xd[i];
  }
}

static void v_abs(N_Vector x, N_Vector z) {
  const sunrealtype *xd = NV_DATA_S(x);
  sunrealtype *zd = NV_DATA_S(z);
  for (sunindextype i = 0, n = NV_LENGTH_S(x); i < n; i++) {
    zd[i] = fabs(xd[i]);
  }
}

static void v_inv(N_Vector x, N_Vector z) {
  const sunrealtype *xd = NV_DATA_S(x);
  sunrealtype *zd = NV_DATA_S(z);
  for (sunindextype i = 0, n = NV_LENGTH_S(x); i < n; i++) {
    zd[i] = 1 / xd[i];
  }
}

static void v_addconst(N_Vector x, sunrealtype b, N_Vector z) {
  const sunrealtype *xd = NV_DATA_S(x);
  sunrealtype *zd = NV_DATA_S(z);
  for (sunindextype i = 0, n = NV_LENGTH_S(x); i < n; i++) {
    zd[i] = xd[i] + b;
  }
}

static sunrealtype v_dotprod(N_Vector x, N_Vector y) {
  const sunrealtype *xd = NV_DATA_S(x), *yd = NV_DATA_S(y);
  sunrealtype sum = 0;
  for (sunindextype i = 0, n = NV_LENGTH_S(x); i < n; i++) {
    sum += xd[i] * yd[i];
  }
  return sum;
}

static sunrealtype v_maxnorm(N_Vector x) {
  const sunrealtype *xd = NV_DATA_S(x);
  sunrealtype max = 0;
  for (sunindextype i = 0, n = NV_LENGTH_S(x); i < n; i++) {
    if (fabs(xd[i]) > max) {
      max = fabs(xd[i]);
    }
  }
  return max;
}

static sunrealtype v_wsqrsum(N_Vector x, N_Vector w) {
  const sunrealtype *xd = NV_DATA_S(x), *wd = NV_DATA_S(w);
  sunrealtype sum = 0;
  for (sunindextype i = 0, n = NV_LENGTH_S(x); i < n; i++) {
    sunrealtype p = xd[i] * wd[i];
    sum += p * p;
  }
  return sum;
}

static sunrealtype v_wsqrsummask(N_Vector x, N_Vector w, N_Vector id) {
  const sunrealtype *xd = NV_DATA_S(x), *wd = NV_DATA_S(w), *idd = NV_DATA_S(id);
  sunrealtype sum = 0;
  for (sunindextype i = 0, n = NV_LENGTH_S(x); i < n; i++) {
    if (idd[i] > 0) {
      sunrealtype p = xd[i] * wd[i];
      sum += p * p;
    }
  }
  return sum;
}

/* SUNDIALS' SUNRsqrt: 0 for a sum that is not positive */
static sunrealtype v_sqrt(sunrealtype s) {
  return s <= 0 ? 0 : sqrt(s);
}

static sunrealtype v_wrmsnorm(N_Vector x, N_Vector w) {
  return v_sqrt(v_wsqrsum(x, w) / (sunrealtype)NV_LENGTH_S(x));
}

static sunrealtype v_wrmsnormmask(N_Vector x, N_Vector w, N_Vector id) {
  return v_sqrt(v_wsqrsummask(x, w, id) / (sunrealtype)NV_LENGTH_S(x));
}

static sunrealtype v_wl2norm(N_Vector x, N_Vector w) {
  return v_sqrt(v_wsqrsum(x, w));
}

static sunrealtype v_min(N_Vector x) {
  const sunrealtype *xd = NV_DATA_S(x);
  sunrealtype min = xd[0];
  for (sunindextype i = 1, n = NV_LENGTH_S(x); i < n; i++) {
    if (xd[i] < min) {
      min = xd[i];
    }
  }
  return min;
}

static sunrealtype v_l1norm(N_Vector x) {
  const sunrealtype *xd = NV_DATA_S(x);
  sunrealtype sum = 0;
  for (sunindextype i = 0, n = NV_LENGTH_S(x); i < n; i++) {
    sum += fabs(xd[i]);
  }
  return sum;
}

static void v_compare(sunrealtype c, N_Vector x, N_Vector z) {
  const sunrealtype *xd = NV_DATA_S(x);
  sunrealtype *zd = NV_DATA_S(z);
  for (sunindextype i = 0, n = NV_LENGTH_S(x); i < n; i++) {
    zd[i] = fabs(xd[i]) >= c ? 1 : 0;
  }
}

static sunbooleantype v_invtest(N_Vector x, N_Vector z) {
  const sunrealtype *xd = NV_DATA_S(x);
  sunrealtype *zd = NV_DATA_S(z);
  sunbooleantype nonzero = SUNTRUE;
  for (sunindextype i = 0, n = NV_LENGTH_S(x); i < n; i++) {
    if (xd[i] == 0) {
      nonzero = SUNFALSE;
    } else {
      zd[i] = 1 / xd[i];
    }
  }
  return nonzero;
}

/* The fused and array operations: what SUNDIALS' generic fallbacks (nvector.c) do when a vector
 * has none, one vector after the other with the operations above (so aliasing between the
 * vectors means what it means there), without the unoptimised dispatch per vector. The linear
 * combination runs element by element when z is none of X[1..], where that is the same. */
static int v_linearcombination(int nvec, sunrealtype *c, N_Vector *X, N_Vector z) {
  int alias = 0;
  for (int i = 1; i < nvec; i++) {
    alias |= X[i] == z;
  }
  if (alias) {
    v_scale(c[0], X[0], z);
    for (int i = 1; i < nvec; i++) {
      v_linearsum(c[i], X[i], 1, z, z);
    }
    return 0;
  }
  sunrealtype *zd = NV_DATA_S(z);
  for (sunindextype j = 0, n = NV_LENGTH_S(z); j < n; j++) {
    sunrealtype s = c[0] * NV_DATA_S(X[0])[j];
    for (int i = 1; i < nvec; i++) { /* v_linearsum(c[i], X[i], 1, z, z): c[i] x + z */
      s = c[i] * NV_DATA_S(X[i])[j] + s;
    }
    zd[j] = s;
  }
  return 0;
}

static int v_scaleaddmulti(int nvec, sunrealtype *a, N_Vector x, N_Vector *Y, N_Vector *Z) {
  for (int i = 0; i < nvec; i++) {
    v_linearsum(a[i], x, 1, Y[i], Z[i]);
  }
  return 0;
}

static int v_dotprodmulti(int nvec, N_Vector x, N_Vector *Y, sunrealtype *d) {
  for (int i = 0; i < nvec; i++) {
    d[i] = v_dotprod(x, Y[i]);
  }
  return 0;
}

static int v_linearsumarray(int nvec, sunrealtype a, N_Vector *X, sunrealtype b, N_Vector *Y,
                            N_Vector *Z) {
  for (int i = 0; i < nvec; i++) {
    v_linearsum(a, X[i], b, Y[i], Z[i]);
  }
  return 0;
}

static int v_scalearray(int nvec, sunrealtype *c, N_Vector *X, N_Vector *Z) {
  for (int i = 0; i < nvec; i++) {
    v_scale(c[i], X[i], Z[i]);
  }
  return 0;
}

static int v_constarray(int nvec, sunrealtype c, N_Vector *Z) {
  for (int i = 0; i < nvec; i++) {
    v_const(c, Z[i]);
  }
  return 0;
}

static int v_wrmsnormarray(int nvec, N_Vector *X, N_Vector *W, sunrealtype *nrm) {
  for (int i = 0; i < nvec; i++) {
    nrm[i] = v_wrmsnorm(X[i], W[i]);
  }
  return 0;
}

static int v_wrmsnormmaskarray(int nvec, N_Vector *X, N_Vector *W, N_Vector id, sunrealtype *nrm) {
  for (int i = 0; i < nvec; i++) {
    nrm[i] = v_wrmsnormmask(X[i], W[i], id);
  }
  return 0;
}

void chs_nvector_fast_ops(N_Vector v) {
  if (!v || !v->ops || !v->ops->nvgetvectorid || N_VGetVectorID(v) != SUNDIALS_NVEC_SERIAL) {
    return;
  }
  N_Vector_Ops o = v->ops;
  o->nvlinearsum = v_linearsum;
  o->nvconst = v_const;
  o->nvprod = v_prod;
  o->nvdiv = v_div;
  o->nvscale = v_scale;
  o->nvabs = v_abs;
  o->nvinv = v_inv;
  o->nvaddconst = v_addconst;
  o->nvdotprod = v_dotprod;
  o->nvmaxnorm = v_maxnorm;
  o->nvwrmsnorm = v_wrmsnorm;
  o->nvwrmsnormmask = v_wrmsnormmask;
  o->nvmin = v_min;
  o->nvwl2norm = v_wl2norm;
  o->nvl1norm = v_l1norm;
  o->nvcompare = v_compare;
  o->nvinvtest = v_invtest;
  o->nvlinearcombination = v_linearcombination;
  o->nvscaleaddmulti = v_scaleaddmulti;
  o->nvdotprodmulti = v_dotprodmulti;
  o->nvlinearsumvectorarray = v_linearsumarray;
  o->nvscalevectorarray = v_scalearray;
  o->nvconstvectorarray = v_constarray;
  o->nvwrmsnormvectorarray = v_wrmsnormarray;
  o->nvwrmsnormmaskvectorarray = v_wrmsnormmaskarray;
  /* the local reductions of a serial vector are its global ones */
  o->nvdotprodlocal = v_dotprod;
  o->nvmaxnormlocal = v_maxnorm;
  o->nvminlocal = v_min;
  o->nvl1normlocal = v_l1norm;
  o->nvinvtestlocal = v_invtest;
  o->nvwsqrsumlocal = v_wsqrsum;
  o->nvwsqrsummasklocal = v_wsqrsummask;
}
