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
 * integrators compute). The constraint masks, and the two array operations only sensitivity
 * analysis calls, stay SUNDIALS'. The element-wise and fused operations live in nvector_ops.inc,
 * which src/mpi/mpi_nvector.c compiles for the parallel vector too. */
#include <math.h>
#include <nvector/nvector_serial.h>
#include "base.h"

#define CHS_NV_DATA NV_DATA_S
#define CHS_NV_LEN NV_LENGTH_S
#include "nvector_ops.inc"

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

static int v_dotprodmulti(int nvec, N_Vector x, N_Vector *Y, sunrealtype *d) {
  for (int i = 0; i < nvec; i++) {
    d[i] = v_dotprod(x, Y[i]);
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
  chs_nv_install_local(o);
  o->nvdotprod = v_dotprod;
  o->nvmaxnorm = v_maxnorm;
  o->nvwrmsnorm = v_wrmsnorm;
  o->nvwrmsnormmask = v_wrmsnormmask;
  o->nvmin = v_min;
  o->nvwl2norm = v_wl2norm;
  o->nvl1norm = v_l1norm;
  o->nvinvtest = v_invtest;
  o->nvdotprodmulti = v_dotprodmulti;
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
