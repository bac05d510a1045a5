/* Error codes, names and the message helper. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "impl.h"

static const struct {
  int code;
  const char *name;
} chs_error_names[] = {
    {CHS_SUCCESS, "CHS_SUCCESS"},
    {CHS_RECOVERABLE, "CHS_RECOVERABLE"},
    {CHS_ERR_ARG, "CHS_ERR_ARG"},
    {CHS_ERR_NOTFOUND, "CHS_ERR_NOTFOUND"},
    {CHS_ERR_INCONSISTENT, "CHS_ERR_INCONSISTENT"},
    {CHS_ERR_PLUGIN, "CHS_ERR_PLUGIN"},
    {CHS_ERR_UNSUPPORTED, "CHS_ERR_UNSUPPORTED"},
    {CHS_ERR_SINGULAR, "CHS_ERR_SINGULAR"},
    {CHS_ERR_NONFINITE, "CHS_ERR_NONFINITE"},
    {CHS_ERR_SOLVER, "CHS_ERR_SOLVER"},
    {CHS_ERR_CALLBACK, "CHS_ERR_CALLBACK"},
    {CHS_ERR_MEM, "CHS_ERR_MEM"},
    {CHS_ERR_IO, "CHS_ERR_IO"},
};

const char *CHSError_Name(int code) {
  for (size_t i = 0; i < sizeof chs_error_names / sizeof chs_error_names[0]; i++) {
    if (chs_error_names[i].code == code) {
      return chs_error_names[i].name;
    }
  }
  return "CHS_ERR_UNKNOWN";
}

int CHSError_IsInput(int code) {
  return code <= CHS_ERR_ARG && code >= CHS_ERR_UNSUPPORTED;
}

void CHSError_Clear(CHSError *err) {
  if (err) {
    err->code = CHS_SUCCESS;
    err->msg[0] = '\0';
  }
}

int chs_error_vset(CHSError *err, int code, const char *fmt, va_list ap) {
  if (err) {
    err->code = code;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  }
  return code;
}

int chs_error_set(CHSError *err, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  chs_error_vset(err, code, fmt, ap);
  va_end(ap);
  return code;
}

int chs_all_finite(const sunrealtype *x, sunindextype n) {
  /* no early exit: the loop vectorizes (the check runs twice per right-hand side) */
  int ok = 1;
  for (sunindextype i = 0; i < n; i++) {
    ok &= fabs(x[i]) <= SUN_BIG_REAL; /* false for NaN and Inf */
  }
  return ok;
}

sunrealtype chs_norm2(const sunrealtype *x, sunindextype n) {
  /* Scaled to avoid overflow; residuals can be large far from the manifold. */
  sunrealtype scale = 0, ssq = 1;
  for (sunindextype i = 0; i < n; i++) {
    sunrealtype a = fabs(x[i]);
    if (a > 0) {
      if (scale < a) {
        ssq = 1 + ssq * (scale / a) * (scale / a);
        scale = a;
      } else {
        ssq += (a / scale) * (a / scale);
      }
    }
  }
  return scale * sqrt(ssq);
}
