/* Faddeev-Jackiw / Barcelos-Neto-Wotzasek extended first-order system ([Seiler, Faddeev-Jackiw] eq.
 * (26)-(28); pendulum (43)-(44)): the Lagrangian (26) M v q' - 1/2 v^T M v - V + mu'^T g + lambda^T
 * G v gives, with p = M v and both multipliers as state, y = (q, p, mu, lambda),
 *
 *   q' = v - M^{-1} G^T lambda',            G q' = 0            =>  lambda' = Q^{-1} psi = w,
 *   p' = F + G^T mu' + Gdot(q,v)^T lambda',  d/dt (G v) = 0     =>  mu' = -(lambda_D - Q^{-1} S w)
 *
 * (the last lines of (27), solved with Q = G M^{-1} G^T; lambda_D = Q^{-1} r is DESIGN's
 * multiplier and S = K - K^T). Substituted, the (q, p) part is exactly the Hamilton-Dirac
 * equations (formulations/dirac.c): g and psi are first integrals, and the multiplier lambda
 * stays constant while the constraints hold (lambda' = Q^{-1} psi), as [Seiler, Faddeev-Jackiw]
 * Sec. 4 states. For the pendulum mu' = (y - |p|^2)/(x^2 + y^2) and lambda' = (x px + y py)/(x^2 +
 * y^2) (44). The seed writes (27) with lambda where the pendulum (43) shows lambda'; (43) is
 * followed here. M(q) and g(q, t) (docs/mechanics.md "Faddeev-Jackiw"): the multiplier equations
 * become G q' + g_t = 0 (lambda' = Q^{-1} psi with psi = G v + g_t) and d/dt psi = 0, so the (q, p)
 * part is the general Hamilton-Dirac field (chs_dirac_field) and lambda' = w, mu' = -z as above.
 * FromPhysical starts the multipliers at 0 (the system is invariant under their translation). */
#include <string.h>
#include "../src/impl.h"

static sunindextype fj_size(sunindextype n, sunindextype m) {
  return 2 * n + 2 * m;
}

static int fj_rhs(CHSFormulation f, sunrealtype t, const sunrealtype *y, sunrealtype *ydot) {
  (void)t;
  sunindextype n = f->sys.n, m = f->sys.m;
  sunrealtype *w, *z;
  CHS_CALL(chs_dirac_field(f, y, ydot, &w, &z));
  for (sunindextype i = 0; i < m; i++) {
    ydot[2 * n + i] = -z[i];
    ydot[2 * n + m + i] = w[i];
  }
  return 0;
}

static int fj_to_physical(CHSFormulation f, const sunrealtype *y, sunrealtype *q, sunrealtype *p) {
  sunindextype n = f->sys.n;
  memcpy(q, y, (size_t)n * sizeof *q);
  memcpy(p, y + n, (size_t)n * sizeof *p);
  return 0;
}

static int fj_from_physical(CHSFormulation f, const sunrealtype *q, const sunrealtype *p,
                            sunrealtype *y) {
  sunindextype n = f->sys.n, m = f->sys.m;
  memcpy(y, q, (size_t)n * sizeof *q);
  memcpy(y + n, p, (size_t)n * sizeof *p);
  memset(y + 2 * n, 0, 2 * (size_t)m * sizeof *y);
  return 0;
}

const CHSFormulationOps chs_formulation_fj = {
    .name = "fj",
    .summary = "Faddeev-Jackiw extended first-order system, multipliers (mu, lambda) as state",
    .source = "[Seiler, Faddeev-Jackiw] (26)-(28), (43)-(44)",
    .flags =
        CHS_FORM_ODE | CHS_FORM_KEEPS_G | CHS_FORM_KEEPS_PSI | CHS_FORM_MASS_CONFIG | CHS_FORM_TIME,
    .state_size = fj_size,
    .rhs = fj_rhs,
    .to_physical = fj_to_physical,
    .from_physical = fj_from_physical,
};
