/* seiler-fj-example: [Seiler, Faddeev-Jackiw] Sec. 5, eqs. (29)-(36) (Seiler, Faddeev-Jackiw): the
 * first-order Lagrangian L = (q2 + q3) q1' + k q3' + 1/2 (k^2 - 2 q2 q3 - q3^2). Completed to
 * involution its Euler-Lagrange equations (30) give q2 = 0, q3' = 0, q1' = q3: the solutions (31)
 * q1 = a t + b, q2 = 0, q3 = a. The symplectic (Faddeev-Jackiw) formalism gives instead (35):
 * q3' = 0, q2' = 0, q1' = q2 + q3, lambda' = q2, whose solutions (36) have four constants,
 * q1 = (a + c) t + b, q2 = c, q3 = a, lambda = c t + d; requiring lambda constant (c = 0)
 * recovers (31). Both first-order systems are integrated here with ARKODE (classical RK4,
 * h = 0.1, t in [0, 10]) and compared with (31) and (36).
 *
 * (35) is not written here: it is the generic Euler-Lagrange right-hand side A(z) z' = grad V of
 * the first-order problem fj-example (chs/first_order.h, CHSFirstOrder_Rhs), with the
 * Faddeev-Jackiw multiplier (extended=1, L~ = L + lambda q2'). The plain (29) (extended=0) is
 * degenerate, and the generic right-hand side says so (A is antisymmetric of order 3, singular).
 * (30) is integrated as written below: it is the completed system (the constraint q2 = 0
 * differentiated into q2' = 0, with q3' = -q2'), an ODE that is not the Euler-Lagrange equation
 * of any first-order Lagrangian in (q1, q2, q3) (every such A is singular in odd dimension). */
#include <string.h>
#include <arkode/arkode_erkstep.h>
#include <nvector/nvector_serial.h>
#include "../../src/compat.h"
#include "../reproduce.h"

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

/* RK4 with h = 0.1 to t = 10 from y (length n, overwritten by y(10)) in ctx. */
static int rk4(SUNContext ctx, ARKRhsFn f, void *user_data, N_Vector y, CHSError *err) {
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
    rc = chs_erk_set_user_data(mem, user_data);
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
  ARKodeButcherTable_Free(B);
  if (mem) {
    chs_erk_free(&mem);
  }
  if (rc != 0) {
    return cli_error(err, CHS_ERR_SOLVER, "seiler-fj-example: ARKODE failed");
  }
  return 0;
}

/* (35) by RK4 on CHSFirstOrder_Rhs of fj-example (extended=1) from (b, c, a, d); z(10) into out. */
static int fj35(SUNContext ctx, const double *y0, double *out, CHSError *err) {
  char spec[160];
  snprintf(spec, sizeof spec, "fj-example:extended=1,b=%.17g,c=%.17g,a=%.17g,d=%.17g", y0[0], y0[1],
           y0[2], y0[3]);
  CHSFirstOrder fo = NULL;
  N_Vector z = NULL;
  int rc = CHSFirstOrder_Create(spec, ctx, &fo, err);
  if (rc == 0) {
    rc = CHSFirstOrder_NewInitialState(fo, &z, err);
  }
  if (rc == 0) {
    rc = rk4(ctx, CHSFirstOrder_Rhs, fo, z, err);
    if (rc != 0 && CHSFirstOrder_GetLastFailure(fo)->code != CHS_SUCCESS) {
      *err = *CHSFirstOrder_GetLastFailure(fo);
      rc = err->code;
    }
  }
  if (rc == 0) {
    memcpy(out, N_VGetArrayPointer(z), 4 * sizeof *out);
  }
  N_VDestroy(z);
  CHSFirstOrder_Destroy(&fo);
  return rc;
}

/* The plain (29) (extended=0): the generic right-hand side at the initial state. Returns its code;
 * why receives the reported failure. */
static int plain29(SUNContext ctx, CHSError *why, CHSError *err) {
  CHSFirstOrder fo = NULL;
  N_Vector z = NULL, zd = NULL;
  int rc = CHSFirstOrder_Create("fj-example:extended=0,a=0.7,b=-0.3", ctx, &fo, err);
  if (rc == 0) {
    rc = CHSFirstOrder_NewInitialState(fo, &z, err);
  }
  if (rc == 0) {
    zd = N_VClone(z);
    rc = zd ? 0 : CHS_ERR_MEM;
  }
  int frc = 0;
  if (rc == 0) {
    frc = CHSFirstOrder_Rhs(0, z, zd, fo);
    *why = *CHSFirstOrder_GetLastFailure(fo);
  }
  N_VDestroy(zd);
  N_VDestroy(z);
  CHSFirstOrder_Destroy(&fo);
  return rc != 0 ? rc : frc;
}

/* (30) by RK4 from y0 (length 3); y(10) into out. */
static int inv30_rk4(SUNContext ctx, const double *y0, double *out, CHSError *err) {
  N_Vector y = N_VNew_Serial(3, ctx);
  if (!y) {
    return cli_error(err, CHS_ERR_MEM, "out of memory");
  }
  memcpy(N_VGetArrayPointer(y), y0, 3 * sizeof *y0);
  int rc = rk4(ctx, inv30, NULL, y, err);
  memcpy(out, N_VGetArrayPointer(y), 3 * sizeof *out);
  N_VDestroy(y);
  return rc;
}

/* max-norm of the Euler-Lagrange residual A(z) z' - grad V(z) of the plain (29) (extended=0),
 * from the Lagrangian's own A (CHSFirstOrder_Matrix) and V (CHSFirstOrder_Energy, its gradient by
 * central differences: V is quadratic, so they are exact up to round-off), along the curve
 * z(t) = (u t + b, c, a), z' = (u, 0, 0) at t = 0, 1, ..., 10: (31) is u = a, c = 0; (36) with
 * lambda not constant is u = a + c, c != 0. Not from (30) or (35): an independent check. */
static int el_residual29(SUNContext ctx, double a, double b, double c, double u, double *res,
                         CHSError *err) {
  CHSFirstOrder fo = NULL;
  N_Vector z = N_VNew_Serial(3, ctx);
  int rc = z ? CHSFirstOrder_Create("fj-example:extended=0", ctx, &fo, err) : CHS_ERR_MEM;
  *res = 0;
  for (int t = 0; rc == 0 && t <= 10; t++) {
    const double zt[3] = {u * t + b, c, a}, zd[3] = {u, 0, 0};
    double A[9], g[3];
    rc = CHSFirstOrder_Matrix(fo, zt, A, err);
    for (int i = 0; i < 3 && rc == 0; i++) {
      const double eps = 1e-4;
      double vp, vm;
      memcpy(N_VGetArrayPointer(z), zt, sizeof zt);
      N_VGetArrayPointer(z)[i] += eps;
      rc = CHSFirstOrder_Energy(fo, z, &vp, err);
      N_VGetArrayPointer(z)[i] -= 2 * eps;
      if (rc == 0) {
        rc = CHSFirstOrder_Energy(fo, z, &vm, err);
      }
      g[i] = (vp - vm) / (2 * eps);
    }
    for (int i = 0; i < 3 && rc == 0; i++) {
      *res =
          fmax(*res, fabs(A[3 * i] * zd[0] + A[3 * i + 1] * zd[1] + A[3 * i + 2] * zd[2] - g[i]));
    }
  }
  N_VDestroy(z);
  CHSFirstOrder_Destroy(&fo);
  if (rc == CHS_ERR_MEM) {
    cli_error(err, rc, "out of memory");
  }
  return rc;
}

static int fj_example_rows(SUNContext ctx, rep_report *r, CHSError *err) {
  const double a = 0.7, b = -0.3, d = 0.25;
  const double cs[2] = {0, 0.1}; /* consistent (lambda constant) and a perturbed q2(0) */
  double y31[3], inv[3];
  const double y0inv[3] = {b, 0, a};
  CHS_CALL_DRV(inv30_rk4(ctx, y0inv, inv, err));
  y31[0] = a * 10 + b;
  y31[1] = 0;
  y31[2] = a;
  double e_inv = fmax(fabs(inv[0] - y31[0]), fmax(fabs(inv[1]), fabs(inv[2] - a)));
  rep_row_add(r, NAN, e_inv, "(30) by RK4: max |y(10) - (31)|");
  double e36[2], dl[2], e31[2];
  for (int k = 0; k < 2; k++) {
    double c = cs[k], out[4];
    const double y0[4] = {b, c, a, d};
    CHS_CALL_DRV(fj35(ctx, y0, out, err));
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
  double el31, el36;
  CHS_CALL_DRV(el_residual29(ctx, a, b, 0, a, &el31, err));
  CHS_CALL_DRV(el_residual29(ctx, a, b, cs[1], a + cs[1], &el36, err));
  rep_row_add(r, NAN, el31, "Euler-Lagrange residual of (29) along (31), t = 0..10");
  rep_row_add(r, NAN, el36, "Euler-Lagrange residual of (29) along (36) with q2 = %g", cs[1]);
  rep_claim_add(r, el31 < 1e-8 && el36 > 0.5 * cs[1],
                "(31) solves the Euler-Lagrange equations of the Lagrangian (29); the extra "
                "solutions (36) of (35) with q2 != 0 do not",
                "max |A(z) z' - grad V(z)| of (29): %.1e along (31), %.3g along (36) with q2 = %g "
                "(A and V from the Lagrangian, not from (30) or (35))",
                el31, el36, cs[1]);
  CHSError why;
  CHSError_Clear(&why);
  int rc29 = plain29(ctx, &why, err);
  if (rc29 < 0) {
    return rc29;
  }
  rep_row_add(r, NAN, rc29, "(29) without lambda: generic RHS return (1: singular A)");
  rep_claim_add(r, e36[0] < 1e-12 && e36[1] < 1e-12,
                "(35), the generic Faddeev-Jackiw right-hand side, has the solutions (36)",
                "max deviations %.1e, %.1e (RK4 is exact on these linear solutions; (30) typed "
                "in here reproduces (31) to %.1e, a consistency check only)",
                e36[0], e36[1], e_inv);
  rep_claim_add(r, fabs(dl[1] - 1.0) < 1e-12 && e31[1] > 0.5,
                "the solution space of (35) is larger: with q2 != 0 the multiplier grows "
                "linearly and q1 leaves (31)",
                "q2(0) = 0.1: lambda grows by %.3g over [0, 10], |q1 - (31)| = %.3g", dl[1],
                e31[1]);
  rep_claim_add(r, fabs(dl[0]) < 1e-14 && e31[0] < 1e-12,
                "requiring lambda constant (c = 0) recovers the correct solution (31)",
                "q2(0) = 0: lambda changes by %.1e, |q1 - (31)| = %.1e", dl[0], e31[0]);
  rep_claim_add(r, rc29 == CHS_RECOVERABLE && why.code == CHS_ERR_SINGULAR,
                "the plain Lagrangian (29) is degenerate: A(z) is singular and the Euler-Lagrange "
                "equations are no ODE until the multiplier lambda is added",
                "generic right-hand side on (q1, q2, q3): return %d, %s: %.300s", rc29,
                CHSError_Name(why.code), why.msg);
  rep_note(r, "(35) is CHSFirstOrder_Rhs of fj-example (A(z) z' = grad V solved by dense LU), "
              "(30) the completed system written out (it is no first-order Lagrangian system).");
  return 0;
}

static int seiler_fj_example(rep_report *r, CHSError *err) {
  SUNContext ctx = NULL;
  if (chs_context_create(&ctx) != 0) {
    return cli_error(err, CHS_ERR_MEM, "seiler-fj-example: cannot create a SUNContext");
  }
  chs_context_silence(ctx);
  int rc = fj_example_rows(ctx, r, err);
  SUNContext_Free(&ctx);
  return rc;
}

const rep_experiment chs_experiment_seiler_fj_example = {
    .name = "seiler-fj-example",
    .source = "[Seiler, Faddeev-Jackiw] Sec. 5, (29)-(36)",
    .summary = "the three-dimensional first-order example: (35) against (30), exact solutions, the "
               "degenerate (29)",
    .run = seiler_fj_example,
};
