/* The derivatives a formulation or method needs from a problem (model/derivatives.h): what is
 * missing, the refusal naming it, and hess V u from the callback, the declaration or differences.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "impl.h"

static sunrealtype maxabs(const sunrealtype *x, sunindextype k) {
  sunrealtype m = 0;
  for (sunindextype i = 0; i < k; i++) {
    m = fmax(m, fabs(x[i]));
  }
  return m;
}

const char *chs_missing_derivative(CHSProblem prob, unsigned need) {
  const CHSProblemOps *ops = CHSProblem_GetOps(prob);
  unsigned declares = CHSProblem_GetDims(prob)->declares;
  if ((need & CHS_NEED_HESSIAN) && !ops->hessian_potential &&
      !(declares & CHS_DECLARE_LINEAR_POTENTIAL)) {
    return "hessian_potential";
  }
  if ((need & CHS_NEED_THIRD) && !ops->constraint_third &&
      !(declares & CHS_DECLARE_QUADRATIC_CONSTRAINTS)) {
    return "constraint_third";
  }
  return NULL;
}

int chs_require_derivatives(CHSProblem prob, unsigned need, const char *who, CHSError *err) {
  const char *miss = chs_missing_derivative(prob, need);
  if (!miss) {
    return CHS_SUCCESS;
  }
  int hess = strcmp(miss, "hessian_potential") == 0;
  return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                       "%s needs %s: problem '%s' does not supply it and does not declare %s "
                       "(dims.declares |= %s; `chs check` verifies it)",
                       who, miss, CHSProblem_GetName(prob),
                       hess ? "V at most linear" : "g at most quadratic",
                       hess ? "CHS_DECLARE_LINEAR_POTENTIAL" : "CHS_DECLARE_QUADRATIC_CONSTRAINTS");
}

int chs_hessian_v(const CHSSystem *s, const sunrealtype *q, const sunrealtype *u, sunrealtype *Hu) {
  sunindextype n = s->n;
  int rc = 0;
  if (s->ops->hessian_potential) {
    rc = s->ops->hessian_potential(s->data, q, u, Hu);
  } else if (s->prob->dims.declares & CHS_DECLARE_LINEAR_POTENTIAL) {
    memset(Hu, 0, (size_t)n * sizeof *Hu);
  } else { /* Hu = -(F(q + h u) - F(q - h u)) / (2 h), h ~ u^(1/3) |q| / |u| */
    sunrealtype *x = malloc(2 * (size_t)n * sizeof *x);
    if (!x) {
      return CHS_ERR_MEM;
    }
    sunrealtype *Fm = x + n, un = maxabs(u, n);
    if (un == 0) {
      memset(Hu, 0, (size_t)n * sizeof *Hu);
      free(x);
      return 0;
    }
    sunrealtype h = cbrt(SUN_UNIT_ROUNDOFF) * fmax(1, maxabs(q, n)) / un;
    for (sunindextype i = 0; i < n && rc == 0; i++) {
      x[i] = q[i] + h * u[i];
    }
    rc = s->ops->force(s->data, x, Hu);
    for (sunindextype i = 0; i < n && rc == 0; i++) {
      x[i] = q[i] - h * u[i];
    }
    if (rc == 0) {
      rc = s->ops->force(s->data, x, Fm);
    }
    for (sunindextype i = 0; i < n && rc == 0; i++) {
      Hu[i] = (Fm[i] - Hu[i]) / (2 * h);
    }
    free(x);
  }
  return rc == 0 ? 0 : (rc > 0 ? CHS_RECOVERABLE : CHS_ERR_CALLBACK);
}
