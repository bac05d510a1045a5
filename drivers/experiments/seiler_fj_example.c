/* seiler-fj-example: seed 003 Sec. 5, eqs. (29)-(36) (Seiler, Faddeev-Jackiw): the first-order
 * Lagrangian L = (q2 + q3) q1' + k q3' + 1/2 (k^2 - 2 q2 q3 - q3^2). Completed to involution its
 * Euler-Lagrange equations (30) give q2 = 0, q3' = 0, q1' = q3: the solutions (31)
 * q1 = a t + b, q2 = 0, q3 = a. The symplectic (Faddeev-Jackiw) formalism gives instead (35):
 * q3' = 0, q2' = 0, q1' = q2 + q3, lambda' = q2, whose solutions (36) have four constants,
 * q1 = (a + c) t + b, q2 = c, q3 = a, lambda = c t + d; requiring lambda constant (c = 0)
 * recovers (31). Both first-order systems are integrated here with ARKODE (classical RK4,
 * h = 0.1, t in [0, 10]) and compared with (31) and (36). This is a first-order system, not a
 * natural mechanical one, so it is integrated directly rather than through a chs problem. */
#include <string.h>
#include <arkode/arkode_erkstep.h>
#include <nvector/nvector_serial.h>
#include "../../src/compat.h"
#include "../reproduce.h"

/* (35) on y = (q1, q2, q3, lambda) */
static int fj35(sunrealtype t, N_Vector y, N_Vector yd, void *data) {
  (void)t;
  (void)data;
  const sunrealtype *z = N_VGetArrayPointer(y);
  sunrealtype *d = N_VGetArrayPointer(yd);
  d[0] = z[1] + z[2];
  d[1] = 0;
  d[2] = 0;
  d[3] = z[1];
  return 0;
}

/* (30) with its integrability condition, on y = (q1, q2, q3): q2' = 0, q3' = -q2' = 0, q1' = q3 */
static int inv30(sunrealtype t, N_Vector y, N_Vector yd, void *data) {
  (void)t;
  (void)data;
  const sunrealtype *z = N_VGetArrayPointer(y);
  sunrealtype *d = N_VGetArrayPointer(yd);
  d[0] = z[2];
  d[1] = 0;
  d[2] = 0;
  return 0;
}

/* RK4 with h = 0.1 to t = 10 from y0 (length n); the final state into out. */
static int rk4(ARKRhsFn f, int n, const double *y0, double *out, CHSError *err) {
  SUNContext ctx = NULL;
  if (chs_context_create(&ctx) != 0) {
    return err->code = CHS_ERR_MEM;
  }
  chs_context_silence(ctx);
  N_Vector y = N_VNew_Serial(n, ctx);
  memcpy(N_VGetArrayPointer(y), y0, (size_t)n * sizeof *y0);
  void *mem = ERKStepCreate(f, 0, y, ctx);
  const sunrealtype c[4] = {0, 0.5, 0.5, 1}, b[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
  const sunrealtype A[16] = {0, 0, 0, 0, 0.5, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 1, 0};
  ARKodeButcherTable B = ARKodeButcherTable_Create(4, 4, 0, (sunrealtype *)c, (sunrealtype *)A,
                                                   (sunrealtype *)b, NULL);
  sunrealtype t = 0;
  int rc = mem && B ? ERKStepSetTable(mem, B) : -1;
  if (rc == 0) {
    rc = chs_erk_fix_last_stage_reuse(mem, B);
  }
  if (rc == 0) {
    rc = chs_erk_set_fixed_step(mem, 0.1);
  }
  if (rc == 0) {
    rc = chs_erk_set_stop_time(mem, 10);
  }
  if (rc == 0) {
    rc = chs_erk_evolve(mem, 10, y, &t, ARK_NORMAL) < 0 ? -1 : 0;
  }
  memcpy(out, N_VGetArrayPointer(y), (size_t)n * sizeof *out);
  ARKodeButcherTable_Free(B);
  if (mem) {
    chs_erk_free(&mem);
  }
  N_VDestroy(y);
  SUNContext_Free(&ctx);
  if (rc != 0) {
    err->code = CHS_ERR_SOLVER;
    snprintf(err->msg, sizeof err->msg, "seiler-fj-example: ARKODE failed");
    return err->code;
  }
  return 0;
}

static int seiler_fj_example(rep_report *r, CHSError *err) {
  const double a = 0.7, b = -0.3, d = 0.25;
  const double cs[2] = {0, 0.1}; /* consistent (lambda constant) and a perturbed q2(0) */
  double y31[3], inv[3];
  const double y0inv[3] = {b, 0, a};
  CHS_CALL_DRV(rk4(inv30, 3, y0inv, inv, err));
  y31[0] = a * 10 + b;
  y31[1] = 0;
  y31[2] = a;
  double e_inv = fmax(fabs(inv[0] - y31[0]), fmax(fabs(inv[1]), fabs(inv[2] - a)));
  rep_row_add(r, NAN, e_inv, "(30) by RK4: max |y(10) - (31)|");
  double e36[2], dl[2], e31[2];
  for (int k = 0; k < 2; k++) {
    double c = cs[k], out[4];
    const double y0[4] = {b, c, a, d};
    CHS_CALL_DRV(rk4(fj35, 4, y0, out, err));
    const double exact[4] = {(a + c) * 10 + b, c, a, c * 10 + d};
    e36[k] = 0;
    for (int i = 0; i < 4; i++) {
      e36[k] = fmax(e36[k], fabs(out[i] - exact[i]));
    }
    dl[k] = out[3] - d;
    e31[k] = fabs(out[0] - y31[0]);
    rep_row_add(r, NAN, e36[k], "(35) by RK4, q2(0) = %g: max |y(10) - (36)|", c);
    rep_row_add(r, NAN, dl[k], "(35), q2(0) = %g: lambda(10) - lambda(0)", c);
    rep_row_add(r, NAN, e31[k], "(35), q2(0) = %g: |q1(10) - (31)|", c);
  }
  rep_claim_add(r, e36[0] < 1e-12 && e36[1] < 1e-12 && e_inv < 1e-12,
                "(35) has the solutions (36), (30) the solutions (31)",
                "max deviations %.1e, %.1e (35), %.1e (30) (RK4 is exact on these linear "
                "solutions)",
                e36[0], e36[1], e_inv);
  rep_claim_add(r, fabs(dl[1] - 1.0) < 1e-12 && e31[1] > 0.5,
                "the solution space of (35) is larger: with q2 != 0 the multiplier grows "
                "linearly and q1 leaves (31)",
                "q2(0) = 0.1: lambda grows by %.3g over [0, 10], |q1 - (31)| = %.3g", dl[1],
                e31[1]);
  rep_claim_add(r, fabs(dl[0]) < 1e-14 && e31[0] < 1e-12,
                "requiring lambda constant (c = 0) recovers the correct solution (31)",
                "q2(0) = 0: lambda changes by %.1e, |q1 - (31)| = %.1e", dl[0], e31[0]);
  return 0;
}

const rep_experiment chs_experiment_seiler_fj_example = {
    .name = "seiler-fj-example",
    .source = "seed 003 Sec. 5, (29)-(36)",
    .summary = "the three-dimensional first-order example: (35) against (30), exact solutions",
    .run = seiler_fj_example,
};
