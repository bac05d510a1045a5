/* Shared by test_rattle.c, test_lobatto.c, test_alpha_prk.c and test_wedge.c: runs of chs' own
 * symplectic steppers on the M(q) and time-dependent test problems of mass_problems.h, measured
 * against independent truth (mass_run there):
 *   - offset polar pendulum (M(q) = diag(1, r^2), r in [1.06, 3.06] along the motion): the state
 *     mapped to Cartesian coordinates relative to the pivot against the built-in pendulum's
 *     reference solution (its own closed form), at every step;
 *   - moving circle: against the angle in the frame of the moving centre, integrated by ARKODE's
 *     ERKStep at tolerance 1e-13 (f'' = -c''(t) . (cos f, sin f)). */
#ifndef CHS_TEST_SYMPLECTIC_MASS_H
#define CHS_TEST_SYMPLECTIC_MASS_H

#include <nvector/nvector_serial.h>
#include "test_util.h"
#include "mass_problems.h"

/* The run of method (fixed step h, to tf, a record every step) on the offset polar pendulum with
 * its pivot at (0.5, 2); *err: the largest distance of the Cartesian image from the pendulum's
 * reference over the records. */
static inline CHSRunSummary sm_polar(const char *method, double h, double tf, double *err) {
  CHSProblem prob = new_problem_from_ops(&offset_polar_pendulum_ops, "a=0.5,b=2");
  mass_observer o = {.cart = new_problem("pendulum"), .pivot = {0.5, 2}};
  CHSRunOptions opt = run_options(method, h, tf);
  CHSRunSummary s = mass_run(prob, "standard", &opt, &o);
  assert_true(o.records > 10);
  *err = o.err;
  CHSProblem_Destroy(&o.cart);
  CHSProblem_Destroy(&prob);
  return s;
}

/* The energy error of method (h = 0.1) on the offset polar pendulum is bounded without drift: the
 * largest over the run to 10 tf within 20 % of the largest over the run to tf, and within bound;
 * g and psi at round-off (1e-13) along the longer run, whose summary is returned. */
static inline CHSRunSummary sm_polar_energy_bounded(const char *method, double tf, double bound) {
  double e;
  CHSRunSummary a = sm_polar(method, 0.1, tf, &e), b = sm_polar(method, 0.1, 10 * tf, &e);
  print_message("%s, offset polar pendulum h = 0.1: max energy error %.3e over %ld steps, %.3e "
                "over %ld; max |g| %.2e, |psi| %.2e\n",
                method, a.diag.energy_err_max, a.stats.steps, b.diag.energy_err_max, b.stats.steps,
                b.diag.pos_res_max, b.diag.mom_res_max);
  CHECK_LE(b.diag.energy_err_max, 1.2 * a.diag.energy_err_max);
  CHECK_LE(b.diag.energy_err_max, bound);
  CHECK_LE(b.diag.pos_res_max, 1e-13);
  CHECK_LE(b.diag.mom_res_max, 1e-13);
  return b;
}

/* The same on the moving circle (a = 0.3, w = 2, f0 = 0.4, fd0 = 0.7) against the moving-frame
 * model. */
static inline CHSRunSummary sm_circle(const char *method, double h, double tf, double *err) {
  CHSProblem prob = new_problem_from_ops(&moving_circle_ops, "a=0.3,w=2,f0=0.4,fd0=0.7");
  mass_observer o = {.P = CHSProblem_GetData(prob)};
  CHSRunOptions opt = run_options(method, h, tf);
  CHSRunSummary s = mass_run(prob, "standard", &opt, &o);
  assert_true(o.records > 10);
  *err = o.err;
  CHSProblem_Destroy(&prob);
  return s;
}

/* Creating method on the offset polar pendulum's standard formulation: its return code (and
 * message). */
static inline int sm_create_on_polar(const char *method, CHSError *err) {
  CHSProblem prob = new_problem_from_ops(&offset_polar_pendulum_ops, "");
  CHSFormulation f = new_formulation("standard", prob, test_context());
  N_Vector y0 = NULL;
  CHSError_Clear(err);
  assert_int_equal(CHSFormulation_NewInitialState(f, &y0, err), 0);
  CHSStepControl ctl = {.h = 0.01};
  CHSIntegrator it = NULL;
  int rc = CHSIntegrator_Create(method, f, y0, 0, &ctl, &it, err);
  CHSIntegrator_Destroy(&it);
  N_VDestroy(y0);
  CHSFormulation_Destroy(&f);
  CHSProblem_Destroy(&prob);
  return rc;
}

#endif
