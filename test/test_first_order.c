/* First-order Lagrangians (chs/first_order.h) against [Seiler, Faddeev-Jackiw]:
 *   - fj-example (29)-(36): the generic A(z) is the matrix (34), the generic right-hand side is
 *     the closed form (35) at random points (off q2 = 0 too), RK4 through ERKStep on
 *     CHSFirstOrder_Rhs reproduces the exact solution (36) to round-off, CHSFirstOrder_Run too;
 *     the plain (29) (extended=0) is degenerate: the RHS reports the singular A, no NaN;
 *   - [Seiler, Faddeev-Jackiw] (39) in z = (x, y, z, w), defined here through an ops table: the
 * generic equations are (38), and an adaptive run matches the closed-form solution of (38);
 *   - a charged particle in a non-uniform magnetic field (phase-space Lagrangian, A(z) not
 *     constant): the generic RHS is the Lorentz-force closed form, Da agrees with finite
 *     differences of a, and V is a first integral (grad V . z' = 0 to round-off);
 *   - bad parameters are errors naming them. */
#include <arkode/arkode_erkstep.h>
#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include "test_util.h"

static CHSFirstOrder new_fo(const char *spec) {
  CHSFirstOrder fo = NULL;
  CHSError err;
  CHSError_Clear(&err);
  int rc = CHSFirstOrder_Create(spec, test_context(), &fo, &err);
  if (rc != 0) {
    print_error("CHSFirstOrder_Create(%s): %s\n", spec, err.msg);
  }
  assert_int_equal(rc, 0);
  assert_non_null(fo);
  return fo;
}

static CHSFirstOrder new_fo_ops(const CHSFirstOrderOps *ops, const char *params) {
  CHSFirstOrder fo = NULL;
  CHSError err;
  CHSError_Clear(&err);
  int rc = CHSFirstOrder_CreateFromOps(ops, params, test_context(), &fo, &err);
  if (rc != 0) {
    print_error("CHSFirstOrder_CreateFromOps(%s): %s\n", ops->name, err.msg);
  }
  assert_int_equal(rc, 0);
  return fo;
}

/* CHSFirstOrder_Run that must succeed, reporting the library's message otherwise. */
static CHSFirstOrderSummary fo_run_ok(CHSFirstOrder fo, const CHSRunOptions *ro) {
  CHSFirstOrderSummary sum;
  CHSError err;
  CHSError_Clear(&err);
  int rc = CHSFirstOrder_Run(fo, ro, &sum, &err);
  if (rc != 0) {
    print_error("CHSFirstOrder_Run(%s): %s\n", ro->method, err.msg);
  }
  assert_int_equal(rc, 0);
  return sum;
}

/* z' = generic RHS at z (length n); returns the RHS code. */
static int rhs(CHSFirstOrder fo, const double *z, double *out, int n) {
  N_Vector y = N_VNew_Serial(n, test_context()), yd = N_VNew_Serial(n, test_context());
  memcpy(N_VGetArrayPointer(y), z, (size_t)n * sizeof *z);
  N_VConst(-7, yd);
  int rc = CHSFirstOrder_Rhs(0, y, yd, fo);
  memcpy(out, N_VGetArrayPointer(yd), (size_t)n * sizeof *out);
  N_VDestroy(y);
  N_VDestroy(yd);
  return rc;
}

/* ------------------------------------------------------------------ fj-example */

static void test_fj_matrix_34(void **state) {
  (void)state;
  CHSFirstOrder fo = new_fo("fj-example:k=1.7");
  assert_int_equal(CHSFirstOrder_GetDim(fo), 4);
  /* (34), rows and columns q1, q2, q3, lambda */
  const double A34[16] = {0, -1, -1, 0, 1, 0, 0, -1, 1, 0, 0, 0, 0, 1, 0, 0};
  for (int k = 0; k < 5; k++) {
    double z[4], A[16];
    for (int i = 0; i < 4; i++) {
      z[i] = rng_uniform(-3, 3);
    }
    assert_int_equal(CHSFirstOrder_Matrix(fo, z, A, NULL), 0);
    CHECK_LE(diff_inf(A, A34, 16), 0);
  }
  CHSFirstOrder_Destroy(&fo);
}

static void test_fj_rhs_35(void **state) {
  (void)state;
  CHSFirstOrder fo = new_fo("fj-example:k=1.7");
  double worst = 0;
  for (int k = 0; k < 50; k++) {
    double z[4], d[4];
    for (int i = 0; i < 4; i++) {
      z[i] = rng_uniform(-3, 3); /* q2 != 0: off the solution manifold of (29) */
    }
    const double want[4] = {z[1] + z[2], 0, 0, z[1]}; /* (35) */
    assert_int_equal(rhs(fo, z, d, 4), 0);
    worst = fmax(worst, diff_inf(d, want, 4) / (1 + norm_inf(want, 4)));
  }
  print_message("generic RHS vs (35): %.3e\n", worst);
  CHECK_LE(worst, 4e-16);
  assert_int_equal(CHSFirstOrder_GetNumRhsEvals(fo), 50);
  CHSFirstOrder_Destroy(&fo);
}

/* Classical RK4 in ERKStep on CHSFirstOrder_Rhs, h = 0.1 to t = 10, against (36) written here. */
static void test_fj_rk4_36(void **state) {
  (void)state;
  const double a = 0.7, b = -0.3, dd = 0.25, cs[2] = {0, 0.1};
  for (int m = 0; m < 2; m++) {
    double c = cs[m];
    char spec[128];
    snprintf(spec, sizeof spec, "fj-example:a=%g,b=%g,c=%g,d=%g", a, b, c, dd);
    CHSFirstOrder fo = new_fo(spec);
    N_Vector z = NULL;
    assert_int_equal(CHSFirstOrder_NewInitialState(fo, &z, NULL), 0);
    void *mem = ERKStepCreate(CHSFirstOrder_Rhs, 0, z, test_context());
    assert_non_null(mem);
    const sunrealtype ct[4] = {0, 0.5, 0.5, 1}, bt[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
    const sunrealtype At[16] = {0, 0, 0, 0, 0.5, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 1, 0};
    ARKodeButcherTable B = ARKodeButcherTable_Create(4, 4, 0, (sunrealtype *)ct, (sunrealtype *)At,
                                                     (sunrealtype *)bt, NULL);
    assert_int_equal(ERKStepSetTable(mem, B), 0);
    assert_int_equal(chs_erk_fix_last_stage_reuse(mem, B), 0);
    assert_int_equal(chs_erk_set_user_data(mem, fo), 0);
    assert_int_equal(chs_erk_set_fixed_step(mem, 0.1), 0);
    assert_int_equal(chs_erk_set_stop_time(mem, 10), 0);
    sunrealtype t = 0;
    assert_true(chs_erk_evolve(mem, 10, z, &t, ARK_NORMAL) >= 0);
    const double exact[4] = {(a + c) * 10 + b, c, a, c * 10 + dd}; /* (36) */
    double e = diff_inf(N_VGetArrayPointer(z), exact, 4);
    print_message("RK4, c = %g: max |z(10) - (36)| = %.3e\n", c, e);
    CHECK_LE(e, 1e-13);
    /* the problem's own reference is (36) too */
    N_Vector zr = N_VClone(z);
    assert_int_equal(CHSFirstOrder_Reference(fo, 10, zr, NULL), 0);
    CHECK_LE(diff_inf(N_VGetArrayPointer(zr), exact, 4), 1e-15);
    ARKodeButcherTable_Free(B);
    chs_erk_free(&mem);
    N_VDestroy(zr);
    N_VDestroy(z);
    /* the library's run: the same method, with the diagnostics */
    CHSRunOptions ro = run_options("erk:rk4", 0.1, 10);
    CHSFirstOrderSummary sum = fo_run_ok(fo, &ro);
    assert_true(sum.completed && sum.has_reference);
    assert_int_equal(sum.steps, 100);
    CHECK_LE(sum.rhs_evals, 401);
    CHECK_GT(sum.rhs_evals, 399);
    CHECK_NEAR(sum.t_final, 10, 1e-12);
    CHECK_LE(sum.int_err_max, 1e-13);
    CHECK_LE(sum.energy_err_max, 1e-15); /* q2, q3 constant: V exactly conserved */
    CHECK_NEAR(sum.V0, -0.5 * (1 - 2 * c * a - a * a), 1e-15);
    CHSFirstOrder_Destroy(&fo);
  }
}

static void test_fj_degenerate(void **state) {
  (void)state;
  CHSFirstOrder fo = new_fo("fj-example:extended=0");
  assert_int_equal(CHSFirstOrder_GetDim(fo), 3);
  double z[3] = {-0.3, 0, 0.7}, d[3], A[9];
  /* (29): a = (q2 + q3, 0, k) gives A = [[0,-1,-1],[1,0,0],[1,0,0]], singular */
  const double A29[9] = {0, -1, -1, 1, 0, 0, 1, 0, 0};
  assert_int_equal(CHSFirstOrder_Matrix(fo, z, A, NULL), 0);
  CHECK_LE(diff_inf(A, A29, 9), 0);
  for (int k = 0; k < 5; k++) {
    if (k > 0) {
      for (int i = 0; i < 3; i++) {
        z[i] = rng_uniform(-3, 3);
      }
    }
    int rc = rhs(fo, z, d, 3);
    assert_int_equal(rc, CHS_RECOVERABLE);
    const CHSError *why = CHSFirstOrder_GetLastFailure(fo);
    assert_int_equal(why->code, CHS_ERR_SINGULAR);
    assert_non_null(strstr(why->msg, "singular"));
    assert_non_null(strstr(why->msg, "odd order"));
    for (int i = 0; i < 3; i++) {
      CHECK_NEAR(d[i], -7, 0); /* z' untouched: never NaN */
    }
  }
  /* the run stops at once with the same reason */
  CHSRunOptions ro = run_options("erk:rk4", 0.1, 1);
  CHSFirstOrderSummary sum;
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSFirstOrder_Run(fo, &ro, &sum, &err), CHS_ERR_SINGULAR);
  assert_false(sum.completed);
  assert_non_null(strstr(err.msg, "singular"));
  /* ... while its energy and reference (31) are still available */
  N_Vector z0 = NULL;
  sunrealtype V = 0;
  assert_int_equal(CHSFirstOrder_NewInitialState(fo, &z0, NULL), 0);
  assert_int_equal(CHSFirstOrder_Energy(fo, z0, &V, NULL), 0);
  CHECK_NEAR(V, -0.5 * (1 - 0.49), 1e-15);
  assert_int_equal(CHSFirstOrder_Reference(fo, 2, z0, NULL), 0);
  CHECK_NEAR(N_VGetArrayPointer(z0)[0], 0.7 * 2 - 0.3, 1e-15);
  N_VDestroy(z0);
  CHSFirstOrder_Destroy(&fo);
}

static void expect_error(const char *spec, int code, const char *needle) {
  CHSFirstOrder fo = NULL;
  CHSError err;
  CHSError_Clear(&err);
  int rc = CHSFirstOrder_Create(spec, test_context(), &fo, &err);
  if (rc != code || !strstr(err.msg, needle)) {
    print_error("%s: code %d (want %d), message '%s' (want '%s')\n", spec, rc, code, err.msg,
                needle);
  }
  assert_int_equal(rc, code);
  assert_null(fo);
  assert_non_null(strstr(err.msg, needle));
}

static void test_bad_parameters(void **state) {
  (void)state;
  expect_error("fj-example:k=abc", CHS_ERR_ARG, "k=abc");
  expect_error("fj-example:a=inf", CHS_ERR_ARG, "a=inf");
  expect_error("fj-example:extended=2", CHS_ERR_ARG, "extended=2");
  expect_error("fj-example:foo=1", CHS_ERR_ARG, "foo");
  expect_error("fj-example:extended=0,c=0.5", CHS_ERR_ARG, "c=0.5");
  expect_error("fj-example:extended=0,d=1", CHS_ERR_ARG, "parameter d");
  expect_error("no-such-thing", CHS_ERR_NOTFOUND, "no-such-thing");
  /* a first-order problem is not a natural mechanical one */
  CHSProblem prob = NULL;
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSProblem_Create("fj-example", &prob, &err), CHS_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.msg, "first-order"));
  /* methods other than erk are refused */
  CHSFirstOrder fo = new_fo("fj-example");
  CHSRunOptions ro = run_options("cvode:bdf", 0.1, 1);
  CHSFirstOrderSummary sum;
  CHSError_Clear(&err);
  assert_int_equal(CHSFirstOrder_Run(fo, &ro, &sum, &err), CHS_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.msg, "cvode:bdf"));
  CHSFirstOrder_Destroy(&fo);
}

/* ------------------------------------------------------------------ [Seiler, Faddeev-Jackiw] (39)
 * -> (38) */

/* L = (y + z) x' + w z' + 1/2 (w^2 - 2 y z - z^2), z = (x, y, z, w). */
typedef struct {
  double z0[4];
} s39;

static int s39_create(CHSParams kv, void **data, sunindextype *dim, CHSError *err) {
  s39 *P = calloc(1, sizeof *P);
  *data = P;
  const char *keys[4] = {"x", "y", "z", "w"};
  const double def[4] = {0.3, -0.8, 0.5, 1.1};
  for (int i = 0; i < 4; i++) {
    if (CHSParams_GetReal(kv, keys[i], def[i], &P->z0[i], err) != 0) {
      return CHS_ERR_ARG;
    }
  }
  *dim = 4;
  return 0;
}
static void s39_destroy(void *data) {
  free(data);
}
static int s39_a(void *data, const sunrealtype *z, sunrealtype *a) {
  (void)data;
  a[0] = z[1] + z[2];
  a[1] = 0;
  a[2] = z[3];
  a[3] = 0;
  return 0;
}
static int s39_Da(void *data, const sunrealtype *z, sunrealtype *Da) {
  (void)data;
  (void)z;
  memset(Da, 0, 16 * sizeof *Da);
  Da[1 * 4 + 0] = 1; /* d a_x / dy */
  Da[2 * 4 + 0] = 1; /* d a_x / dz */
  Da[3 * 4 + 2] = 1; /* d a_z / dw */
  return 0;
}
static int s39_V(void *data, const sunrealtype *z, sunrealtype *V) {
  (void)data;
  *V = -0.5 * (z[3] * z[3] - 2 * z[1] * z[2] - z[2] * z[2]);
  return 0;
}
static int s39_dV(void *data, const sunrealtype *z, sunrealtype *dV) {
  (void)data;
  dV[0] = 0;
  dV[1] = z[2];
  dV[2] = z[1] + z[2];
  dV[3] = -z[3];
  return 0;
}
static int s39_init(void *data, sunrealtype *z) {
  memcpy(z, ((s39 *)data)->z0, 4 * sizeof *z);
  return 0;
}
/* The solution of (38): y'' = -y, z' = -w, x' = z. */
static int s39_ref(void *data, sunrealtype t, sunrealtype *z) {
  const double *c = ((s39 *)data)->z0, x0 = c[0], y0 = c[1], z0 = c[2], w0 = c[3];
  z[1] = y0 * cos(t) + w0 * sin(t);
  z[3] = -y0 * sin(t) + w0 * cos(t);
  z[2] = z0 - y0 * (cos(t) - 1) - w0 * sin(t);
  z[0] = x0 + z0 * t - y0 * (sin(t) - t) + w0 * (cos(t) - 1);
  return 0;
}
static const CHSFirstOrderOps s39_ops = {
    .name = "seed003-39",
    .summary = "[Seiler, Faddeev-Jackiw] (39)",
    .params_doc = "x y z w initial data",
    .create = s39_create,
    .destroy = s39_destroy,
    .one_form = s39_a,
    .one_form_jacobian = s39_Da,
    .potential = s39_V,
    .gradient = s39_dV,
    .initial_state = s39_init,
    .reference = s39_ref,
};

static void test_seed39_gives_38(void **state) {
  (void)state;
  CHSFirstOrder fo = new_fo_ops(&s39_ops, "x=0.3,w=1.1");
  double worst = 0;
  for (int k = 0; k < 50; k++) {
    double z[4], d[4];
    for (int i = 0; i < 4; i++) {
      z[i] = rng_uniform(-3, 3);
    }
    const double want[4] = {z[2], z[3], -z[3], -z[1]}; /* (38) */
    assert_int_equal(rhs(fo, z, d, 4), 0);
    worst = fmax(worst, diff_inf(d, want, 4) / (1 + norm_inf(want, 4)));
  }
  print_message("generic RHS of (39) vs (38): %.3e\n", worst);
  CHECK_LE(worst, 4e-16);
  /* adaptive Dormand-Prince against the closed-form solution of (38) */
  CHSRunOptions ro = run_options("erk:dp5", 0, 5);
  ro.ctl.rtol = 1e-10;
  ro.ctl.atol = 1e-12;
  CHSFirstOrderSummary sum = fo_run_ok(fo, &ro);
  print_message("(39) by dp5, rtol 1e-10: |z - exact| max %.3e, energy %.3e, %ld steps\n",
                (double)sum.int_err_max, (double)sum.energy_err_max, sum.steps);
  CHECK_LE(sum.int_err_max, 1e-9);
  CHECK_GT(sum.steps, 10);
  CHECK_LE(sum.energy_err_max, 1e-9);
  CHSFirstOrder_Destroy(&fo);
}

/* CHSFirstOrder_Rhs is a CVRhsFn: CVODE BDF (Newton, dense difference-quotient Jacobian) on (39)
 * against the closed-form solution of (38). */
static void test_cvode_on_39(void **state) {
  (void)state;
  SUNContext ctx = test_context();
  CHSFirstOrder fo = new_fo_ops(&s39_ops, "y=0.6");
  N_Vector z = NULL;
  assert_int_equal(CHSFirstOrder_NewInitialState(fo, &z, NULL), 0);
  void *cvode = CVodeCreate(CV_BDF, ctx);
  SUNMatrix A = SUNDenseMatrix(4, 4, ctx);
  SUNLinearSolver LS = SUNLinSol_Dense(z, A, ctx);
  assert_int_equal(CVodeInit(cvode, CHSFirstOrder_Rhs, 0, z), 0);
  assert_int_equal(CVodeSetUserData(cvode, fo), 0);
  assert_int_equal(CVodeSStolerances(cvode, 1e-10, 1e-12), 0);
  assert_int_equal(CVodeSetLinearSolver(cvode, LS, A), 0);
  assert_int_equal(CVodeSetMaxNumSteps(cvode, 100000), 0);
  sunrealtype t = 0;
  assert_true(CVode(cvode, 5, z, &t, CV_NORMAL) >= 0);
  N_Vector zr = N_VClone(z);
  assert_int_equal(CHSFirstOrder_Reference(fo, t, zr, NULL), 0);
  double e = diff_inf(N_VGetArrayPointer(z), N_VGetArrayPointer(zr), 4);
  print_message("(39) by CVODE BDF, tol 1e-10: |z(5) - exact| = %.3e\n", e);
  CHECK_LE(e, 1e-7);
  CVodeFree(&cvode);
  SUNLinSolFree(LS);
  SUNMatDestroy(A);
  N_VDestroy(zr);
  N_VDestroy(z);
  CHSFirstOrder_Destroy(&fo);
}

/* ------------------------------------------------------------------ charged particle */

/* z = (x, y, px, py), L = (p + A(x, y)) . (x', y') - H, A = (0, Psi), H = |p|^2/2 + U:
 * a = (px, py + Psi, 0, 0); magnetic field B = dPsi/dx. */
static double mag_psi(const double *z, double *px, double *py) {
  double x = z[0], y = z[1];
  *px = 1 + 0.9 * x * x + 0.5 * cos(x) * cos(y);
  *py = -0.5 * sin(x) * sin(y);
  return x + 0.3 * x * x * x + 0.5 * sin(x) * cos(y);
}
static void mag_dU(const double *z, double *ux, double *uy) {
  double x = z[0], y = z[1];
  *ux = x + 0.1 * y * y * y;
  *uy = 2 * y + 0.3 * x * y * y;
}
static int mag_create(CHSParams kv, void **data, sunindextype *dim, CHSError *err) {
  (void)kv;
  (void)err;
  *data = NULL;
  *dim = 4;
  return 0;
}
static void mag_destroy(void *data) {
  (void)data;
}
static int mag_a(void *data, const sunrealtype *z, sunrealtype *a) {
  (void)data;
  double px, py;
  a[0] = z[2];
  a[1] = z[3] + mag_psi(z, &px, &py);
  a[2] = a[3] = 0;
  return 0;
}
static int mag_Da(void *data, const sunrealtype *z, sunrealtype *Da) {
  (void)data;
  double px, py;
  mag_psi(z, &px, &py);
  memset(Da, 0, 16 * sizeof *Da);
  Da[2 * 4 + 0] = 1;  /* d a_x / d px */
  Da[0 * 4 + 1] = px; /* d a_y / dx */
  Da[1 * 4 + 1] = py; /* d a_y / dy */
  Da[3 * 4 + 1] = 1;  /* d a_y / d py */
  return 0;
}
static int mag_V(void *data, const sunrealtype *z, sunrealtype *V) {
  (void)data;
  double x = z[0], y = z[1];
  *V = 0.5 * (z[2] * z[2] + z[3] * z[3]) + 0.5 * x * x + y * y + 0.1 * x * y * y * y;
  return 0;
}
static int mag_dV(void *data, const sunrealtype *z, sunrealtype *dV) {
  (void)data;
  mag_dU(z, &dV[0], &dV[1]);
  dV[2] = z[2];
  dV[3] = z[3];
  return 0;
}
static int mag_init(void *data, sunrealtype *z) {
  (void)data;
  z[0] = 0.4;
  z[1] = -0.2;
  z[2] = 0.3;
  z[3] = 0.9;
  return 0;
}
static const CHSFirstOrderOps mag_ops = {
    .name = "magnetic",
    .summary = "charged particle, non-uniform field",
    .params_doc = "",
    .create = mag_create,
    .destroy = mag_destroy,
    .one_form = mag_a,
    .one_form_jacobian = mag_Da,
    .potential = mag_V,
    .gradient = mag_dV,
    .initial_state = mag_init,
};

static void test_magnetic_first_integral(void **state) {
  (void)state;
  CHSFirstOrder fo = new_fo_ops(&mag_ops, NULL);
  assert_false(CHSFirstOrder_HasReference(fo));
  double worst_rhs = 0, worst_dv = 0, worst_fd = 0;
  for (int k = 0; k < 50; k++) {
    double z[4], d[4], g[4], Da[16], bx, by, ux, uy;
    for (int i = 0; i < 4; i++) {
      z[i] = rng_uniform(-2, 2);
    }
    assert_int_equal(rhs(fo, z, d, 4), 0);
    /* Lorentz force: x' = p, p' = B (y', -x') - grad U */
    mag_psi(z, &bx, &by);
    mag_dU(z, &ux, &uy);
    const double want[4] = {z[2], z[3], bx * z[3] - ux, -bx * z[2] - uy};
    worst_rhs = fmax(worst_rhs, diff_inf(d, want, 4) / (1 + norm_inf(want, 4)));
    /* grad V . z' = 0 */
    mag_dV(NULL, z, g);
    double dot = 0, scale = 0;
    for (int i = 0; i < 4; i++) {
      dot += g[i] * d[i];
      scale += fabs(g[i] * d[i]);
    }
    worst_dv = fmax(worst_dv, fabs(dot) / (scale > 0 ? scale : 1));
    /* Da[i*4 + j] = d a_j / d z_i against central differences */
    mag_Da(NULL, z, Da);
    for (int i = 0; i < 4; i++) {
      double zp[4], zm[4], ap[4], am[4], h = 1e-6;
      memcpy(zp, z, sizeof zp);
      memcpy(zm, z, sizeof zm);
      zp[i] += h;
      zm[i] -= h;
      mag_a(NULL, zp, ap);
      mag_a(NULL, zm, am);
      for (int j = 0; j < 4; j++) {
        worst_fd = fmax(worst_fd, fabs((ap[j] - am[j]) / (2 * h) - Da[i * 4 + j]));
      }
    }
  }
  print_message("magnetic: RHS vs Lorentz %.3e, grad V . z' %.3e, Da vs FD %.3e\n", worst_rhs,
                worst_dv, worst_fd);
  CHECK_LE(worst_rhs, 1e-15);
  CHECK_LE(worst_dv, 1e-15);
  CHECK_LE(worst_fd, 1e-8);
  /* V along an accurate trajectory */
  CHSRunOptions ro = run_options("erk:VERNER_8_5_6", 0, 10);
  ro.ctl.rtol = 1e-11;
  ro.ctl.atol = 1e-13;
  CHSFirstOrderSummary sum = fo_run_ok(fo, &ro);
  print_message("magnetic, Verner 8(5,6): |V - V0|/|V0| max %.3e over %ld steps\n",
                (double)sum.energy_err_max, sum.steps);
  assert_false(sum.has_reference);
  CHECK_LE(sum.energy_err_max, 1e-9);
  CHECK_GT(sum.energy_err_max, 0); /* RK does not conserve it exactly: the check is not vacuous */
  CHSFirstOrder_Destroy(&fo);
}

int main(void) {
  rng_seed(161803);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fj_matrix_34),   cmocka_unit_test(test_fj_rhs_35),
      cmocka_unit_test(test_fj_rk4_36),      cmocka_unit_test(test_fj_degenerate),
      cmocka_unit_test(test_bad_parameters), cmocka_unit_test(test_seed39_gives_38),
      cmocka_unit_test(test_cvode_on_39),    cmocka_unit_test(test_magnetic_first_integral),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
