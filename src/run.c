/* One integration with diagnostics at output times (the library side of `chs run`). */
#include <float.h>
#include <math.h>
#include <string.h>
#include <time.h>
#include <sundials/sundials_version.h>
#include "impl.h"

int CHS_SundialsVersion(char *buf, int len) {
  return SUNDIALSGetVersion(buf, len);
}

void CHSRunOptions_Default(CHSRunOptions *opt) {
  memset(opt, 0, sizeof *opt);
  opt->method = "erk:rk4";
  opt->every = 1;
}

double chs_wall_time(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static long chs_run_max_steps(const CHSRunOptions *o) {
  return o->ctl.max_steps > 0 ? o->ctl.max_steps : CHS_RUN_MAX_STEPS_DEFAULT;
}

int chs_check_time_step(const CHSRunOptions *o, CHSError *err) {
  if (!isfinite(o->t0) || !isfinite(o->tf) || o->tf < o->t0) {
    return chs_error_set(err, CHS_ERR_ARG, "final time tf = %g must be finite and >= t0 = %g",
                         (double)o->tf, (double)o->t0);
  }
  if (o->ctl.h != 0 && !(o->ctl.h > 0 && isfinite(o->ctl.h))) {
    return chs_error_set(err, CHS_ERR_ARG, "step size h = %g must be positive and finite",
                         (double)o->ctl.h);
  }
  if (o->ctl.h == 0 &&
      !(o->ctl.rtol > 0 && o->ctl.atol > 0 && isfinite(o->ctl.rtol) && isfinite(o->ctl.atol))) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "need --h > 0, or --rtol > 0 and --atol > 0 (got rtol = %g, atol = %g)",
                         (double)o->ctl.rtol, (double)o->ctl.atol);
  }
  if (o->ctl.max_steps < 0 || o->ctl.max_steps > CHS_RUN_MAX_STEPS_LIMIT) {
    return chs_error_set(err, CHS_ERR_ARG, "max_steps = %ld must be in [0, %ld] (0: default %ld)",
                         o->ctl.max_steps, CHS_RUN_MAX_STEPS_LIMIT, CHS_RUN_MAX_STEPS_DEFAULT);
  }
  /* A fixed step takes ceil((tf - t0) / h) steps (the last one shortened, as in
   * chs_fixed_step_evolve): refuse up front what the step bound would stop anyway. */
  long max_steps = chs_run_max_steps(o);
  double need = o->ctl.h > 0 ? ceil((double)((o->tf - o->t0) / o->ctl.h) - 1e-9) : 0;
  if (need > (double)max_steps) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "step size h = %g over [%g, %g] needs %.3g steps, more than the bound "
                         "max_steps = %ld (--max-steps)",
                         (double)o->ctl.h, (double)o->t0, (double)o->tf,
                         isfinite(need) ? need : DBL_MAX, max_steps);
  }
  return CHS_SUCCESS;
}

int chs_too_much_work(CHSError *err, long steps, sunrealtype t, sunrealtype tf) {
  return chs_error_set(err, CHS_ERR_SOLVER,
                       "too much work: %ld steps reached only t = %g (of %g); raise --max-steps "
                       "or loosen the tolerances",
                       steps, (double)t, (double)tf);
}

static int chs_check_options(const CHSRunOptions *o, CHSError *err) {
  CHS_CALL(chs_check_time_step(o, err));
  if (o->every < 1) {
    return chs_error_set(err, CHS_ERR_ARG, "output every %ld steps: must be >= 1", o->every);
  }
  return CHS_SUCCESS;
}

typedef struct {
  CHSDiagnostics diag;
  CHSMonitorFn monitor;
  void *ctx;
  double wall; /* seconds spent inside the integrator (diagnostics and output excluded) */
  long records;
} chs_observer;

static int chs_advance(CHSIntegrator it, sunrealtype tout, int one_step, N_Vector y, sunrealtype *t,
                       chs_observer *ob, CHSError *err) {
  double t0 = chs_wall_time();
  int rc = one_step ? CHSIntegrator_OneStep(it, tout, y, t, err)
                    : CHSIntegrator_Evolve(it, tout, y, t, err);
  ob->wall += chs_wall_time() - t0;
  return rc;
}

static int chs_observe(chs_observer *ob, sunrealtype t, N_Vector y, CHSError *err) {
  CHSRecord rec;
  CHS_CALL(CHSDiagnostics_Record(ob->diag, t, y, &rec, err));
  if (!isfinite(rec.energy) && ob->records == 0) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "the initial energy H(q0, p0) is not finite (a parameter out of range?)");
  }
  ob->records++;
  if (ob->monitor) {
    int rc = ob->monitor(&rec, ob->ctx);
    if (rc != 0) {
      return chs_error_set(err, rc < 0 ? rc : CHS_ERR_IO, "output stopped at t = %g", (double)t);
    }
  }
  return CHS_SUCCESS;
}

/* A charted formulation may change coordinates after any step: then restart the integrator. */
static int chs_rechart(CHSFormulation f, CHSIntegrator it, sunrealtype t, N_Vector y,
                       CHSError *err) {
  int rc = CHSFormulation_Rechart(f, t, y);
  if (rc < 0) {
    return chs_error_set(err, CHS_ERR_SOLVER, "%s: change of coordinates failed at t = %g",
                         f->ops->name, (double)t);
  }
  if (rc > 0 && CHSIntegrator_Reinit(it, t, y) != 0) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "%s changed coordinates at t = %g and the method cannot restart",
                         f->ops->name, (double)t);
  }
  return CHS_SUCCESS;
}

/* The initial state, its energy and the first right-hand side (DAE: the initial derivative and
 * residual) must be finite before any step: else the problem's data are out of range (e.g.
 * pendulum:gravity=1e308 makes the forces overflow), an input error reported as such instead of
 * a solver failure at a non-finite time. */
static int chs_check_initial(CHSFormulation f, const CHSRunOptions *o, N_Vector y, CHSError *err) {
  const char *prob = CHSProblem_GetName(CHSFormulation_GetProblem(f));
  if (!chs_all_finite(N_VGetArrayPointer(y), f->size)) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "problem %s: the initial state is not finite (a parameter out of range?)",
                         prob);
  }
  N_Vector yd = N_VClone(y), r = N_VClone(y);
  if (!yd || !r) {
    if (yd) {
      N_VDestroy(yd);
    }
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  const sunrealtype *ya = N_VGetArrayPointer(y);
  sunrealtype *yda = N_VGetArrayPointer(yd), *ra = N_VGetArrayPointer(r);
  const char *what = "the right-hand side";
  int rc = 0, finite = 1;
  if (f->ops->residual) { /* DAE: the initial derivative, then the residual there */
    what = "the initial derivative";
    rc = f->ops->initial_derivative ? f->ops->initial_derivative(f, ya, yda) : 0;
    finite = rc != 0 || chs_all_finite(yda, f->size);
    if (rc == 0 && finite) {
      what = "the residual";
      rc = f->ops->residual(f, o->t0, ya, yda, ra);
      finite = rc != 0 || chs_all_finite(ra, f->size);
    }
  } else if (f->ops->rhs) {
    rc = f->ops->rhs(f, o->t0, ya, yda);
    finite = rc != 0 || chs_all_finite(yda, f->size);
  }
  /* also the squared norms SUNDIALS forms with weights up to 1/atol (initial step size
   * estimates, error tests): finite entries near DBL_MAX overflow there, and the integrator then
   * fails at a non-finite time or with a step size of zero */
  sunrealtype w = o->ctl.h > 0 ? 1 : 1 / o->ctl.atol;
  int large = 0;
  if (finite && rc == 0) {
    large = !isfinite(N_VDotProd(y, y)) || !isfinite(N_VDotProd(yd, yd) * w * w);
    if (!large && f->ops->residual) {
      what = "the residual";
      large = !isfinite(N_VDotProd(r, r) * w * w);
    } else if (large && f->ops->residual) {
      what = "the initial derivative";
    }
  }
  N_VDestroy(yd);
  N_VDestroy(r);
  /* a failing evaluation (rc != 0: singular Gram matrix, callback error) is left to the
   * integrator, which reports it as before */
  if (!finite || large) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "problem %s, formulation %s: %s is %s at t = %g (the first evaluation, "
                         "before any step): a parameter out of range?",
                         prob, f->ops->name, what,
                         finite ? "so large that its norm overflows" : "not finite", (double)o->t0);
  }
  return CHS_SUCCESS;
}

static int chs_integrate(CHSFormulation f, CHSIntegrator it, const CHSRunOptions *o, N_Vector y,
                         chs_observer *ob, CHSError *err) {
  sunrealtype t = o->t0;
  int charted = f->ops->rechart != NULL; /* then step by step, re-charting after each step */
  long max_steps = chs_run_max_steps(o);
  if (o->ctl.h > 0) {
    sunrealtype dt = (sunrealtype)o->every * o->ctl.h;
    for (long k = 1; t < o->tf; k++) {
      sunrealtype tout = o->t0 + (sunrealtype)k * dt;
      if (tout > o->tf - 1e-9 * o->ctl.h) {
        tout = o->tf;
      }
      if (charted) {
        while (t < tout - 1e-9 * o->ctl.h) {
          CHS_CALL(chs_advance(it, tout, 1, y, &t, ob, err));
          CHS_CALL(chs_rechart(f, it, t, y, err));
        }
      } else {
        CHS_CALL(chs_advance(it, tout, 0, y, &t, ob, err));
      }
      t = tout;
      /* the bound holds for the whole run, across output intervals (refused up front when h
       * cannot reach tf within it; this catches a method taking more steps than planned) */
      CHSIntegratorStats st;
      if (CHSIntegrator_GetStats(it, &st) == 0 && st.steps > max_steps && t < o->tf) {
        return chs_too_much_work(err, st.steps, t, o->tf);
      }
      CHS_CALL(chs_observe(ob, t, y, err));
    }
    return CHS_SUCCESS;
  }
  long steps = 0;
  while (t < o->tf) {
    if (steps >= max_steps) {
      return chs_too_much_work(err, steps, t, o->tf);
    }
    CHS_CALL(chs_advance(it, o->tf, 1, y, &t, ob, err));
    if (charted) {
      CHS_CALL(chs_rechart(f, it, t, y, err));
    }
    if (++steps % o->every == 0 || t >= o->tf) {
      CHS_CALL(chs_observe(ob, t, y, err));
    }
  }
  return CHS_SUCCESS;
}

int CHSRun(CHSFormulation f, const CHSRunOptions *opt, CHSMonitorFn monitor, void *ctx,
           CHSRunSummary *sum, CHSError *err) {
  memset(sum, 0, sizeof *sum);
  sum->proj_position = sum->proj_momentum = -1;
  sum->stats.jac_evals = -1;
  CHS_CALL(chs_check_options(opt, err));
  N_Vector y = NULL;
  CHSIntegrator it = NULL;
  chs_observer ob = {NULL, monitor, ctx, 0, 0};
  /* the initial state at t0 (ssf's chart follows g(q, t)), whatever the problem's last time */
  int rc = chs_system_set_time(&f->sys, opt->t0) == 0
               ? CHSFormulation_NewInitialState(f, &y, err)
               : chs_error_set(err, CHS_ERR_CALLBACK, "set_time(%g) failed", (double)opt->t0);
  if (rc == 0) {
    rc = CHSDiagnostics_Create(f, &ob.diag, err);
  }
  if (rc == 0) {
    rc = chs_check_initial(f, opt, y, err);
  }
  if (rc == 0) {
    rc = chs_observe(&ob, opt->t0, y, err);
  }
  CHSProjector proj = NULL;
  if (rc == 0 && opt->project != CHS_PROJECT_NONE) {
    rc = CHSProjector_Create(f, opt->project, opt->project_tol, &proj, err);
    if (rc == 0 && opt->project_every > 1) {
      CHSProjector_SetEvery(proj, opt->project_every);
    }
    if (rc == 0 && opt->project_newton_tol > 0) {
      CHSProjector_SetNewtonTol(proj, opt->project_newton_tol);
    }
  }
  if (rc == 0) {
    /* the integrator's own per-call bound (SUNDIALS mxstep) no tighter than the run's */
    CHSStepControl ctl = opt->ctl;
    ctl.max_steps = chs_run_max_steps(opt);
    rc = CHSIntegrator_Create(opt->method, f, y, opt->t0, &ctl, &it, err);
  }
  CHSFormulation_ResetCounters(f);
  if (rc == 0) {
    rc = chs_integrate(f, it, opt, y, &ob, err);
    sum->completed = rc == 0;
  }
  sum->wall_s = ob.wall;
  if (it) {
    CHSIntegrator_GetStats(it, &sum->stats);
  }
  sum->rhs_evals = CHSFormulation_GetNumRhsEvals(f);
  if (sum->rhs_evals == 0) { /* methods on the problem's callbacks (rattle): force evaluations */
    sum->rhs_evals = sum->stats.rhs_evals;
  }
  if (ob.diag) {
    CHSDiagnostics_GetSummary(ob.diag, &sum->diag);
  }
  if (proj) {
    sum->proj_position = CHSProjector_GetNumPosition(proj);
    sum->proj_momentum = CHSProjector_GetNumMomentum(proj);
  }
  CHSIntegrator_Destroy(&it);
  CHSProjector_Destroy(&proj);
  CHSDiagnostics_Destroy(&ob.diag);
  if (y) {
    N_VDestroy(y);
  }
  return rc;
}
