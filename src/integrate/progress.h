/* Private: the progress watch of the adaptive SUNDIALS integrators (cvode.c, ida.c). Header only
 * (static inline), included after ../impl.h.
 *
 * SUNDIALS answers a recoverable callback failure (> 0: a non-finite value, a singular Gram
 * matrix, a state outside the problem's domain) by retrying the step with a smaller h, and has no
 * lower bound on h. Where the failure is a wall the solution runs into (a force that turns NaN at
 * some state), it then creeps towards the wall with ever shorter steps; where the Newton linear
 * solve cannot converge (GMRES without a preconditioner fitting the stiffness), it cuts h until
 * the Newton matrix is near the identity. Both were found running to the step limit (5e6 steps,
 * minutes) instead of failing. The direct solvers mostly escape the first: their difference
 * quotient Jacobian fails at the wall on every retry of the same step, and CVODE/IDA give up after
 * 10 convergence failures; GMRES' J v perturbations are smaller (of the size of the tolerance)
 * and retried smaller still, so the step succeeds and the creep goes on.
 *
 * The watch sees every evaluation of the right-hand side or residual (and Jacobian, preconditioner)
 * through the integrator's wrappers, keeps the message of the last one that failed, and after each
 * step taken stops the run (CHS_ERR_SOLVER, exit 3) when
 *
 *   a callback failed during each of CHS_WATCH_FAIL_STEPS consecutive steps (the failure is
 *     named: the callback's own message, with the time it failed at), or
 *   CHS_WATCH_SLOW_STEPS consecutive steps were too short to make progress: |h| below 100 ulps of
 *     t, or |tout - t| more than CHS_WATCH_SLOW_FACTOR times the step budget times |h| (the
 *     budget: the run's max_steps, at least CHS_RUN_MAX_STEPS_DEFAULT; at that step size the run
 *     would need 100 times its budget to reach tout).
 *
 * A healthy run meets neither: the test suite's runs (all families, every linear solver, small
 * --max-steps bounds, which still end with "too much work") pass unchanged. The stalls that led
 * here: chain/baumgarte with cvode:bdf:ls=spgmr at rtol 1e-10, h 7e-10 at t = 2.07 (1e10 steps to
 * go), and the creep towards a NaN force, where every step saw a failed callback. */
#ifndef CHS_INTEGRATE_PROGRESS_H
#define CHS_INTEGRATE_PROGRESS_H

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "../impl.h"

#define CHS_WATCH_FAIL_STEPS 20
#define CHS_WATCH_SLOW_STEPS 500
#define CHS_WATCH_SLOW_FACTOR 100

typedef struct {
  CHSFormulation f;
  long budget;     /* the run's step bound */
  long failures;   /* failed callback evaluations since the last step */
  long fail_steps; /* consecutive steps during which a callback failed */
  long slow_steps; /* consecutive steps too short to make progress */
  CHSError last;   /* the last failed evaluation's message */
} chs_watch;

static inline void chs_watch_init(chs_watch *w, CHSFormulation f, long max_steps) {
  memset(w, 0, sizeof *w);
  w->f = f;
  /* never below the default bound: a small --max-steps ends its run with "too much work" */
  w->budget = max_steps > CHS_RUN_MAX_STEPS_DEFAULT ? max_steps : CHS_RUN_MAX_STEPS_DEFAULT;
}

/* After each callback: rc as the callback returned it (passed through). */
static inline int chs_watch_note(chs_watch *w, int rc) {
  if (rc != 0) {
    w->failures++;
    const CHSError *why = CHSFormulation_GetLastFailure(w->f);
    if (why->msg[0]) {
      w->last = *why;
    }
  }
  return rc;
}

/* When SUNDIALS gives up (msg: its own message, of size len): a callback failure the formulation
 * no longer reports (later evaluations succeeded, e.g. GMRES' J v products at smaller steps)
 * appended, so that the failure is named. */
static inline void chs_watch_explain(const chs_watch *w, char *msg, size_t len) {
  size_t k = strlen(msg);
  if (w->last.msg[0] && !CHSFormulation_GetLastFailure(w->f)->msg[0] && k + 2 < len) {
    snprintf(msg + k, len - k, "%slast callback failure: %s", k ? "; " : "", w->last.msg);
  }
}

/* After each step taken, at t with the step size h of that step, towards tout: 0, or
 * CHS_ERR_SOLVER with the reason in err (who: "CVODE", "IDA"). */
static inline int chs_watch_step(chs_watch *w, const char *who, sunrealtype t, sunrealtype h,
                                 sunrealtype tout, CHSError *err) {
  sunrealtype a = fabs(h);
  int slow = a < 100 * DBL_EPSILON * fabs(t) ||
             fabs(tout - t) > (sunrealtype)CHS_WATCH_SLOW_FACTOR * (sunrealtype)w->budget * a;
  w->slow_steps = slow ? w->slow_steps + 1 : 0;
  w->fail_steps = w->failures > 0 ? w->fail_steps + 1 : 0;
  w->failures = 0;
  if (!slow && w->fail_steps == 0) {
    w->last.msg[0] = '\0'; /* a failure the run recovered from is not the reason of a later stop */
  }
  const char *why = w->last.msg[0] ? w->last.msg : "";
  if (w->fail_steps >= CHS_WATCH_FAIL_STEPS) {
    return chs_error_set(err, CHS_ERR_SOLVER,
                         "%s stopped at t = %.17g: a callback failed during each of the last %d "
                         "steps (step size now %.3g): %.400s",
                         who, (double)t, CHS_WATCH_FAIL_STEPS, (double)h, why);
  }
  if (w->slow_steps >= CHS_WATCH_SLOW_STEPS) {
    return chs_error_set(
        err, CHS_ERR_SOLVER,
        "%s stalled at t = %.17g: the step size collapsed to %.3g for %d consecutive steps "
        "(reaching t = %g at that size would take more than %g steps; Newton or linear solver "
        "failures%s)%s%.400s",
        who, (double)t, (double)h, CHS_WATCH_SLOW_STEPS, (double)tout,
        (double)CHS_WATCH_SLOW_FACTOR * (double)w->budget, why[0] ? " or a failing callback" : "",
        why[0] ? "; last callback failure: " : "", why);
  }
  return 0;
}

#endif
