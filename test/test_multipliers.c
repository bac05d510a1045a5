/* The multipliers lambda and reaction forces R = -G^T lambda of every formulation
 * (CHSFormulation_GetMultipliers, CHSRunOptions.multipliers).
 *
 * Independent truths: the pendulum's tension in closed form at a consistent state (from
 * psi' = 0: lambda = (|p|^2 / mass + q . F) / (2 gscale |q|^2), F = (0, -mass gravity)), for every
 * formulation and two scalings of the constraint; and, for the slider-crank (m = 8 constraints),
 * central differences of the momenta along the run's own records: p' - F(q) = -G^T lambda, for
 * standard, dirac and the three DAEs, with the reactions and the velocities of the same records
 * checked against G and M. dae-index3's lambda is checked from t = 0.01 on: in IDA's first steps
 * (index 3, lambda out of the error test) it is off by O(1), as chs/formulation.h says. */
#include "test_util.h"

/* The pendulum at (0.6, -0.8) with p = (1.6, 1.2) (g = 0, psi = q . p = 0). */
static void check_pendulum(const char *params, double mass, double gravity, double gscale) {
  char spec[256];
  snprintf(spec, sizeof spec, "pendulum:x=0.6,y=-0.8,px=1.6,py=1.2,%s", params);
  CHSProblem prob = new_problem(spec);
  const double q[2] = {0.6, -0.8}, p[2] = {1.6, 1.2};
  double lam_exact = ((p[0] * p[0] + p[1] * p[1]) / mass - mass * gravity * q[1]) /
                     (2 * gscale * (q[0] * q[0] + q[1] * q[1]));
  int tested = 0;
  for (int i = 0; i < CHSFormulationRegistry_Count(); i++) {
    const CHSFormulationOps *ops = CHSFormulationRegistry_Get(i);
    CHSFormulation f = NULL;
    CHSError err;
    CHSError_Clear(&err);
    if (CHSFormulation_Create(ops->name, prob, test_context(), &f, &err) != 0) {
      continue; /* refused (not this problem's kind): nothing to test */
    }
    N_Vector y = new_initial_state(f);
    double lam = NAN, R[2] = {NAN, NAN};
    int rc = CHSFormulation_GetMultipliers(f, 0, y, &lam, R, &err);
    if (rc != 0) {
      print_error("%s: %s\n", ops->name, err.msg);
    }
    assert_int_equal(rc, 0);
    if (fabs(lam - lam_exact) > 1e-13 * lam_exact) {
      print_error("%s (%s): lambda %.17g, closed form %.17g\n", ops->name, params, lam, lam_exact);
    }
    CHECK_NEAR(lam, lam_exact, 1e-13 * lam_exact);
    for (int k = 0; k < 2; k++) { /* R = -G^T lambda, G = 2 gscale q^T */
      CHECK_NEAR(R[k], -2 * gscale * q[k] * lam_exact, 1e-13 * lam_exact);
    }
    lam = NAN; /* reaction NULL: lambda alone */
    assert_int_equal(CHSFormulation_GetMultipliers(f, 0, y, &lam, NULL, &err), 0);
    CHECK_NEAR(lam, lam_exact, 1e-13 * lam_exact);
    N_VDestroy(y);
    CHSFormulation_Destroy(&f);
    tested++;
  }
  CHECK_GT(tested, 10); /* every formulation of the natural pendulum */
  CHSProblem_Destroy(&prob);
}

static void test_pendulum_every_formulation(void **state) {
  (void)state;
  check_pendulum("gscale=0.5", 1, 1, 0.5);
  check_pendulum("gscale=1,mass=2,gravity=3", 2, 3, 1);
}

/* The records of a run: t, q, p, lambda, R, v. */
#define SC_N 9
#define SC_M 8
#define MAX_REC 4000
typedef struct {
  long n;
  double t[MAX_REC], q[MAX_REC][SC_N], p[MAX_REC][SC_N], lam[MAX_REC][SC_M], R[MAX_REC][SC_N],
      v[MAX_REC][SC_N];
} records;

static int keep_record(const CHSRecord *rec, void *ctx) {
  records *r = ctx;
  if (!rec->lambda || !rec->reaction || !rec->v || r->n >= MAX_REC) {
    return -1;
  }
  r->t[r->n] = rec->t;
  memcpy(r->q[r->n], rec->q, sizeof r->q[0]);
  memcpy(r->p[r->n], rec->p, sizeof r->p[0]);
  memcpy(r->lam[r->n], rec->lambda, sizeof r->lam[0]);
  memcpy(r->R[r->n], rec->reaction, sizeof r->R[0]);
  memcpy(r->v[r->n], rec->v, sizeof r->v[0]);
  r->n++;
  return 0;
}

/* p' - F = -G^T lambda along a run of form with method (h = 0: adaptive at tol), p' from the
 * records by the three-point formula on their (uneven) times; the largest error relative to
 * the largest |G^T lambda|. */
static double fd_check(const char *form, const char *method, double h, double tol, double t_from) {
  CHSProblem prob = new_problem("slider-crank:c=0");
  cb c = callbacks(prob);
  const double *mass = CHSProblem_GetDims(prob)->mass;
  CHSFormulation f = new_formulation(form, prob, test_context());
  CHSRunOptions o = run_options(method, h, 0.5);
  o.ctl.rtol = o.ctl.atol = tol;
  o.multipliers = 1;
  records *r = calloc(1, sizeof *r);
  assert_non_null(r);
  run_monitored_ok(f, &o, keep_record, r);
  CHECK_GT(r->n, 50);
  double worst = 0, scale = 0;
  for (long k = 1; k + 1 < r->n; k++) {
    double G[SC_M * SC_N], F[SC_N];
    assert_int_equal(c.ops->jacobian(c.data, r->q[k], G), 0);
    assert_int_equal(c.ops->force(c.data, r->q[k], F), 0);
    double h0 = r->t[k] - r->t[k - 1], h1 = r->t[k + 1] - r->t[k];
    int use = r->t[k - 1] >= t_from;
    for (int j = 0; j < SC_N; j++) {
      double GtL = 0;
      for (int i = 0; i < SC_M; i++) {
        GtL += G[i * SC_N + j] * r->lam[k][i];
      }
      /* the derivative at t_k of the parabola through the three records */
      double dp = -h1 / (h0 * (h0 + h1)) * r->p[k - 1][j] + (h1 - h0) / (h0 * h1) * r->p[k][j] +
                  h0 / (h1 * (h0 + h1)) * r->p[k + 1][j];
      worst = use ? fmax(worst, fabs(dp - F[j] + GtL)) : worst;
      scale = fmax(scale, fabs(GtL));
      CHECK_NEAR(r->R[k][j], -GtL, 1e-12 * (1 + fabs(GtL)));
      CHECK_NEAR(r->v[k][j], r->p[k][j] / mass[j], 1e-14 * (1 + fabs(r->v[k][j])));
    }
  }
  CHECK_GT(scale, 1); /* the constraint forces are not small here */
  free(r);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
  return worst / scale;
}

static void test_slider_crank_finite_differences(void **state) {
  (void)state;
  const struct {
    const char *form, *method;
    double h, tol, t_from, bound;
  } cases[] = {
      {"standard", "erk:rk4", 1e-3, 0, 0, 3e-5},  {"dirac", "erk:rk4", 1e-3, 0, 0, 3e-5},
      {"dae-index1", "ida", 0, 1e-9, 0, 1e-3},    {"dae-ggl", "ida", 0, 1e-9, 0, 1e-3},
      {"dae-index3", "ida", 0, 1e-9, 0.01, 1e-3},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    double e = fd_check(cases[i].form, cases[i].method, cases[i].h, cases[i].tol, cases[i].t_from);
    print_message("slider-crank %s %s: max |p' - F + G^T lambda| / max |G^T lambda| = %.3e\n",
                  cases[i].form, cases[i].method, e);
    CHECK_LE(e, cases[i].bound);
  }
}

static int count_multipliers(const CHSRecord *rec, void *ctx) {
  *(int *)ctx += rec->lambda != NULL || rec->reaction != NULL || rec->v != NULL;
  return 0;
}

/* Without CHSRunOptions.multipliers the records carry none; a bad value is refused. */
static void test_records_without_multipliers(void **state) {
  (void)state;
  CHSProblem prob = new_problem("pendulum");
  CHSFormulation f = new_formulation("dirac", prob, test_context());
  CHSRunOptions o = run_options("erk:rk4", 0.1, 0.2);
  int with = 0;
  run_monitored_ok(f, &o, count_multipliers, &with);
  assert_int_equal(with, 0);
  o.multipliers = 2;
  CHSRunSummary sum;
  CHSError err;
  assert_int_equal(CHSRun(f, &o, NULL, NULL, &sum, &err), CHS_ERR_ARG);
  assert_non_null(strstr(err.msg, "multipliers"));
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pendulum_every_formulation),
      cmocka_unit_test(test_slider_crank_finite_differences),
      cmocka_unit_test(test_records_without_multipliers),
  };
  return cmocka_run_group_tests_name("multipliers", tests, group_setup, group_teardown);
}
