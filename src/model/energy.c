/* The energy H(q, p) = sigma(q) 1/2 p^T M(q)^{-1} p + V(q) of a problem (CHSProblem_Energy,
 * chs/diagnostics.h). */
#include <math.h>
#include "impl.h"

int chs_system_energy(CHSSystem *s, const sunrealtype *q, const sunrealtype *p, sunrealtype *H) {
  sunrealtype V = 0, T = 0;
  if (chs_system_mass_at(s, q) != 0) {
    return CHS_ERR_CALLBACK;
  }
  chs_mass_inv(s, p, s->wn[CHS_WN_V]);
  for (sunindextype i = 0; i < s->n; i++) {
    T += p[i] * s->wn[CHS_WN_V][i];
  }
  int rc = s->ops->potential(s->data, q, &V);
  if (rc == 0 && CHSProblem_HasKineticScale(s->prob)) { /* H = sigma(q) T + V */
    sunrealtype sigma = 1;
    rc = s->ops->kinetic_scale(s->data, q, &sigma, s->wn[CHS_WN_F]);
    T *= sigma;
  }
  *H = T / 2 + V;
  return rc == 0 ? (isfinite(*H) ? 0 : CHS_ERR_NONFINITE) : CHS_ERR_CALLBACK;
}

int CHSProblem_Energy(CHSProblem prob, const sunrealtype *q, const sunrealtype *p, sunrealtype *H) {
  CHSSystem s;
  CHS_CALL(chs_system_init(&s, prob, NULL, 0, NULL));
  int rc = chs_system_energy(&s, q, p, H);
  chs_system_free(&s);
  return rc;
}
