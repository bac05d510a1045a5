/* Events (CHSRunOptions.stop_at / locate_events; src/run/run.c) and the energy balance of a
 * time-dependent problem.
 *
 * Independent truths:
 *   - the pendulum started at the bottom (x = 0, y = -1, px = 1, py = 0; length = gravity =
 *     mass = 1) librates with modulus k = 1/2 and period T = 4 K(k): its height is first
 *     extremal (event vy_zero, falling) at T/4 = K(k) and it passes under the pivot again (event
 *     x_zero, falling) at T/2 = 2 K(k). K is computed here by the arithmetic-geometric mean and
 *     checked against a quadrature of its integral (two independent computations);
 *   - adaptive runs (SUNDIALS root finding) at tight tolerances locate these to 1e-8, fixed-step
 *     runs (bracketing on the step map) with an error of the method's order: halving h divides
 *     it by about 2^p;
 *   - events that do not stop the run do not change it: the final state equals that of a run
 *     without events, and every occurrence over 1.9 periods is reported, in time order;
 *   - the car axis (time-dependent constraint and potential) changes its energy by ~40 % of H0
 *     over [0, 3], while the energy-balance error |H - H0 - W| / |H0| stays small and converges
 *     with the order of the method and of the quadrature of the work over the steps (h^4). */
#include "test_util.h"

/* K(k) = pi / (2 AGM(1, sqrt(1 - k^2))). */
static double ellk_agm(double k) {
  double a = 1, b = sqrt(1 - k * k);
  for (int i = 0; i < 40; i++) {
    double an = (a + b) / 2;
    b = sqrt(a * b);
    a = an;
  }
  return M_PI / (2 * a);
}

/* K(k) = int_0^{pi/2} dphi / sqrt(1 - k^2 sin^2 phi), composite Simpson (smooth periodic
 * integrand: converges fast). */
static double ellk_quad(double k) {
  int n = 2000;
  double h = M_PI / 2 / n, s = 0;
  for (int i = 0; i <= n; i++) {
    double sp = sin(i * h), w = i == 0 || i == n ? 1 : (i % 2 ? 4 : 2);
    s += w / sqrt(1 - k * k * sp * sp);
  }
  return s * h / 3;
}

#define BOTTOM "pendulum:x=0,y=-1,px=1,py=0"
#define KMOD 0.5

static void test_elliptic_k(void **state) {
  (void)state;
  CHECK_LE(fabs(ellk_agm(KMOD) - ellk_quad(KMOD)), 1e-13);
  CHECK_LE(fabs(ellk_agm(0) - M_PI / 2), 1e-15);
}

/* Final state of a run (the monitor keeps the last record's). */
typedef struct {
  double q[8], p[8];
  int n;
} final_state;

static int keep_final(const CHSRecord *rec, void *ctx) {
  final_state *s = ctx;
  memcpy(s->q, rec->q, (size_t)s->n * sizeof *s->q);
  memcpy(s->p, rec->p, (size_t)s->n * sizeof *s->p);
  return 0;
}

/* One run of the bottom-started pendulum stopping at `stop`; returns the summary. */
static CHSRunSummary run_stop(const char *formulation, const char *method, double h, double tol,
                              const char *stop, final_state *fs) {
  CHSProblem prob = new_problem(BOTTOM);
  CHSFormulation f = new_formulation(formulation, prob, test_context());
  CHSRunOptions o = run_options(method, h, 10);
  o.ctl.rtol = o.ctl.atol = tol;
  o.stop_at = stop;
  fs->n = 2;
  CHSRunSummary s = run_monitored_ok(f, &o, keep_final, fs);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
  return s;
}

static void test_adaptive_root_finding(void **state) {
  (void)state;
  const double K = ellk_agm(KMOD);
  const struct {
    const char *formulation, *method;
    double tol, eps;
  } cases[] = {
      {"dirac", "erk:dp5", 1e-12, 1e-8},
      {"dirac", "erk:ARKODE_VERNER_8_5_6", 1e-12, 1e-8},
      {"dirac", "dirk:ARKODE_SDIRK_5_3_4", 1e-11, 1e-8},
      {"standard", "cvode:bdf", 1e-12, 1e-8},
      {"dirac", "cvode:adams", 1e-12, 1e-8},
      {"dae-ggl", "ida", 1e-11, 1e-8},
      {"dae-index1", "ida", 1e-11, 1e-8},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    final_state fs;
    CHSRunSummary s =
        run_stop(cases[i].formulation, cases[i].method, 0, cases[i].tol, "x_zero", &fs);
    print_message("%-10s %-24s x_zero at %.15f (error %.2e)\n", cases[i].formulation,
                  cases[i].method, (double)s.diag.t_final, fabs(s.diag.t_final - 2 * K));
    assert_int_equal(s.events_located, 1);
    assert_int_equal(s.stopped, 1);
    assert_int_equal(s.stop_event, 0); /* x_zero */
    assert_int_equal(s.completed, 1);
    CHECK_LE(fabs(s.diag.t_final - 2 * K), cases[i].eps);
    /* the final state is the event's: under the pivot, moving left */
    CHECK_LE(fabs(fs.q[0]), 1e-8);
    CHECK_LE(fabs(fs.q[1] + 1), 1e-8);
    CHECK_LE(fs.p[0], -0.5);
    /* vy_zero at the turning point T/4 first (falling: y' goes from + to -), x_zero last */
    assert_true(s.n_events >= 2);
    assert_int_equal(s.n_event_records, s.n_events);
    assert_int_equal(s.events[0].index, 1);
    assert_int_equal(s.events[0].direction, -1);
    CHECK_LE(fabs(s.events[0].t - K), cases[i].eps);
    const CHSEventRecord *last = &s.events[s.n_event_records - 1];
    assert_int_equal(last->index, 0);
    assert_int_equal(last->direction, -1);
    assert_true(last->t == s.diag.t_final);
  }
}

/* Fixed steps: the event time's error has the method's order. */
static void test_fixed_step_order(void **state) {
  (void)state;
  const double K = ellk_agm(KMOD);
  const struct {
    const char *formulation, *method;
    double h;
    int order;
  } cases[] = {
      {"dirac", "erk:rk4", 0.1, 4},         {"dirac", "dirk:midpoint", 0.05, 2},
      {"dirac", "gauss:2", 0.1, 4},         {"dirac", "gauss:3", 0.2, 6},
      {"dirac", "midpoint:fixed", 0.05, 2}, {"standard", "rattle", 0.05, 2},
      {"standard", "lobatto:3", 0.1, 4},    {"standard", "alpha-prk:3", 0.1, 4},
      {"ssf", "erk:rk4", 0.1, 4},           {"impetus", "erk:rk4", 0.1, 4},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    double e[2];
    for (int j = 0; j < 2; j++) {
      final_state fs;
      CHSRunSummary s =
          run_stop(cases[i].formulation, cases[i].method, cases[i].h / (1 << j), 0, "x_zero", &fs);
      assert_int_equal(s.stopped, 1);
      e[j] = fabs(s.diag.t_final - 2 * K);
      /* located to round-off on the step map: the event function vanishes at the final state */
      CHECK_LE(fabs(fs.q[0]), 1e-12);
    }
    double p = log2(e[0] / e[1]);
    print_message("%-9s %-15s h %.3g: errors %.2e %.2e, observed order %.2f\n",
                  cases[i].formulation, cases[i].method, cases[i].h, e[0], e[1], p);
    CHECK_LE(e[0], 1e-2);
    CHECK_GT(p, cases[i].order - 0.4);
    CHECK_LE(p, cases[i].order + 0.6);
  }
  /* sprk on constraints: order 2 at most (src/integrate/sprk.c); the error is small */
  final_state fs;
  CHSRunSummary s = run_stop("standard", "sprk:ARKODE_SPRK_LEAPFROG_2_2", 0.025, 0, "x_zero", &fs);
  CHECK_LE(fabs(s.diag.t_final - 2 * K), 1e-3);
}

/* Events that do not stop: every occurrence reported, in time order; the run is unchanged. */
static void test_report_without_stopping(void **state) {
  (void)state;
  const double K = ellk_agm(KMOD), T = 4 * K;
  const struct {
    const char *method;
    double h, eps;
  } cases[] = {{"erk:rk4", 0.01, 1e-7}, {"erk:dp5", 0, 1e-8}};
  for (size_t c = 0; c < 2; c++) {
    final_state fs[2];
    CHSRunSummary s[2];
    for (int j = 0; j < 2; j++) {
      CHSProblem prob = new_problem(BOTTOM);
      CHSFormulation f = new_formulation("dirac", prob, test_context());
      CHSRunOptions o = run_options(cases[c].method, cases[c].h, 1.9 * T);
      o.ctl.rtol = o.ctl.atol = 1e-12;
      o.locate_events = j;
      fs[j].n = 2;
      s[j] = run_monitored_ok(f, &o, keep_final, &fs[j]);
      CHSFormulation_Destroy(&f);
      CHSProblem_Destroy(&prob);
    }
    assert_int_equal(s[0].events_located, 0);
    assert_int_equal(s[0].n_events, 0);
    assert_int_equal(s[1].events_located, 1);
    assert_int_equal(s[1].stopped, 0);
    CHECK_NEAR(s[1].diag.t_final, 1.9 * T, 1e-12);
    /* the same trajectory */
    CHECK_LE(diff_inf(fs[0].q, fs[1].q, 2), 1e-13);
    CHECK_LE(diff_inf(fs[0].p, fs[1].p, 2), 1e-13);
    /* x_zero at T/2, T, 3T/2; vy_zero at every quarter period up to 7T/4 */
    int nx = 0, nv = 0;
    for (int i = 0; i < s[1].n_event_records; i++) {
      const CHSEventRecord *e = &s[1].events[i];
      if (i > 0) {
        assert_true(e->t >= s[1].events[i - 1].t);
      }
      if (e->index == 0) {
        nx++;
        CHECK_NEAR(e->t, nx * T / 2, cases[c].eps);
        assert_int_equal(e->direction, nx % 2 ? -1 : 1); /* x falls through 0, then rises */
      } else {
        nv++;
        CHECK_NEAR(e->t, nv * T / 4, cases[c].eps);
      }
    }
    print_message("%s: %d x_zero, %d vy_zero events\n", cases[c].method, nx, nv);
    assert_int_equal(nx, 3);
    /* the lowest points coincide with x_zero: root finding may see the two as one crossing */
    assert_true(nv >= 5 && nv <= 7);
    if (cases[c].h > 0) {
      assert_int_equal(nv, 7);
    }
    assert_int_equal(s[1].n_events, nx + nv);
  }
}

static int run_expect(const char *spec, const char *method, double h, const char *stop,
                      CHSError *err) {
  CHSProblem prob = new_problem(spec);
  CHSFormulation f = new_formulation("dirac", prob, test_context());
  CHSRunOptions o = run_options(method, h, 10);
  o.ctl.rtol = o.ctl.atol = 1e-8;
  o.stop_at = stop;
  CHSRunSummary s;
  CHSError_Clear(err);
  int rc = CHSRun(f, &o, NULL, NULL, &s, err);
  if (rc == 0) {
    CHECK_NEAR(s.diag.t_final, ellk_agm(KMOD), 1e-6); /* "all" stops at vy_zero at T/4 */
  } else {
    assert_int_equal(s.diag.records, 0); /* refused before any work */
  }
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
  return rc;
}

static void test_bad_names(void **state) {
  (void)state;
  CHSError err;
  assert_int_equal(run_expect(BOTTOM, "erk:rk4", 0.01, "nosuch", &err), CHS_ERR_ARG);
  assert_non_null(strstr(err.msg, "'nosuch'"));
  assert_non_null(strstr(err.msg, "x_zero, vy_zero"));
  assert_int_equal(run_expect(BOTTOM, "erk:rk4", 0.01, "x_zero,,vy_zero", &err), CHS_ERR_ARG);
  assert_non_null(strstr(err.msg, "empty event name"));
  assert_int_equal(run_expect(BOTTOM, "erk:rk4", 0.01, "x_zero,", &err), CHS_ERR_ARG);
  assert_int_equal(run_expect(BOTTOM, "erk:rk4", 0.01, "all", &err), 0);
  assert_int_equal(run_expect(BOTTOM, "erk:dp5", 0, "all", &err), 0);
  assert_int_equal(run_expect(BOTTOM, "erk:dp5", 0, "x_zero,vy_zero", &err), 0);
  /* a problem without events */
  CHSProblem prob = new_problem("double-pendulum");
  assert_int_equal(CHSProblem_GetNumEvents(prob), 0);
  assert_int_equal(CHSProblem_CheckStopAt(prob, "x_zero", &err), CHS_ERR_ARG);
  assert_non_null(strstr(err.msg, "declares no events"));
  assert_int_equal(CHSProblem_CheckStopAt(prob, NULL, &err), 0);
  CHSProblem_Destroy(&prob);
}

/* The car axis: time-dependent g and V. */
static void test_car_axis_balance(void **state) {
  (void)state;
  double bal[2], work = 0;
  for (int j = 0; j < 2; j++) {
    CHSProblem prob = new_problem("car-axis");
    CHSFormulation f = new_formulation("dirac", prob, test_context());
    CHSRunOptions o = run_options("erk:rk4", 1e-3 / (1 << j), 3);
    final_state fs;
    fs.n = 4;
    CHSRunSummary s = run_monitored_ok(f, &o, keep_final, &fs);
    assert_int_equal(s.diag.balance_tracked, 1);
    assert_int_equal(s.diag.energy_is_balance, 1);
    /* H changes physically: by about 40 % of H0 (the road's work) */
    double H = 0;
    assert_int_equal(CHSProblem_Energy(prob, fs.q, fs.p, &H), 0);
    double drift = fabs(H - s.diag.energy0) / fabs(s.diag.energy0);
    work = s.diag.work_final;
    print_message("h %.1e: |H - H0|/|H0| = %.3e, W/|H0| = %.3e, balance error max %.3e final "
                  "%.3e\n",
                  (double)o.ctl.h, drift, work / fabs(s.diag.energy0), s.diag.balance_err_max,
                  s.diag.balance_err_final);
    CHECK_GT(drift, 0.1);
    /* ... and the balance accounts for it: H - H0 - W is small */
    bal[j] = s.diag.balance_err_max;
    CHECK_LE(bal[j], 2e-3 * drift);
    CHECK_NEAR(s.diag.energy_err_max, s.diag.balance_err_max, 0);
    CHECK_NEAR(fabs(H - s.diag.energy0 - work) / fabs(s.diag.energy0), s.diag.balance_err_final,
               1e-12);
    CHSFormulation_Destroy(&f);
    CHSProblem_Destroy(&prob);
  }
  /* RK4 and the work's quadrature over the steps (piecewise cubic): fourth order (measured 3.6:
   * the largest error over the records) */
  double p = log2(bal[0] / bal[1]);
  CHECK_GT(p, 3.2);
  CHECK_LE(p, 4.8);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_elliptic_k),       cmocka_unit_test(test_adaptive_root_finding),
      cmocka_unit_test(test_fixed_step_order), cmocka_unit_test(test_report_without_stopping),
      cmocka_unit_test(test_bad_names),        cmocka_unit_test(test_car_axis_balance),
  };
  return cmocka_run_group_tests_name("events", tests, group_setup, group_teardown);
}
