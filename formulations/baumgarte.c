/* Baumgarte stabilisation of the index-reduced equations (parameters alpha, beta >= 0):
 *
 *   q' = M^{-1} p,   p' = F - G^T lambda_B,
 *   lambda_B = Q^{-1} (Gdot(q,v) v + G M^{-1} F + 2 alpha psi + beta^2 g),
 *
 * so that the residuals obey psi' + 2 alpha psi + beta^2 g = 0 (g'' + 2 alpha g' + beta^2 g = 0):
 * a damped oscillator that pulls g and psi back to zero. alpha = beta = 0 is the standard
 * formulation. Defaults alpha = 1, beta = 1 (critically damped). With M(q) and time dependence
 * psi = G v + g_t, r and g(q, t) as in docs/mechanics.md (chs_system_kinematics). */
#include <stdlib.h>
#include "../src/impl.h"

typedef struct {
  sunrealtype alpha, beta;
} baumgarte_params;

static int baumgarte_init(CHSFormulation f, CHSParams params, CHSError *err) {
  baumgarte_params *b = calloc(1, sizeof *b);
  if (!b) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  CHSFormulation_SetPrivate(f, b);
  CHS_CALL(CHSParams_GetRealMin(params, "alpha", 1, 0, 0, &b->alpha, err));
  CHS_CALL(CHSParams_GetRealMin(params, "beta", 1, 0, 0, &b->beta, err));
  return CHS_SUCCESS;
}

static void baumgarte_free(CHSFormulation f) {
  free(CHSFormulation_GetPrivate(f));
}

static int baumgarte_rhs(CHSFormulation f, sunrealtype t, const sunrealtype *y, sunrealtype *ydot) {
  (void)t;
  CHSSystem *s = &f->sys;
  const baumgarte_params *b = CHSFormulation_GetPrivate(f);
  sunindextype n = s->n;
  CHSKinematics k;
  CHS_CALL(chs_system_kinematics(s, y, y + n, &k));
  sunrealtype *g = s->wm[CHS_WM_A], *rhs = s->wm[CHS_WM_B], *lam = s->wm[CHS_WM_BLOCK];
  if (CHS_SYS_CB(s, constraint, s->data, y, g) != 0) {
    return CHS_RECOVERABLE;
  }
  for (sunindextype i = 0; i < s->m; i++) {
    rhs[i] = k.r[i] + 2 * b->alpha * k.psi[i] + b->beta * b->beta * g[i];
  }
  CHS_CALL(chs_gram_solve(s->gram, rhs, lam));
  chs_system_field(s, &k, lam, 0, NULL, NULL, ydot);
  return 0;
}

const CHSFormulationOps chs_formulation_baumgarte = {
    .name = "baumgarte",
    .summary = "index reduction with Baumgarte stabilisation psi' + 2 alpha psi + beta^2 g = 0",
    .source = "Baumgarte (1972); compared in [Seiler, Dirac] Sec. 10, [Leimkuhler & Reich] Sec. 3",
    .flags = CHS_FORM_ODE | CHS_FORM_MASS_CONFIG | CHS_FORM_TIME,
    .init = baumgarte_init,
    .free = baumgarte_free,
    .rhs = baumgarte_rhs,
};
