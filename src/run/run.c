/* One integration with diagnostics at output times (the library side of `chs run`). */
#include <float.h>
#include <math.h>
#include <string.h>
#include <time.h>
#include <sundials/sundials_version.h>
#include "impl.h"
#include "probe.h"

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

int chs_check_subnormals(const CHSRunOptions *o, CHSError *err) {
  if (o->subnormals != CHS_SUBNORMALS_FLUSH && o->subnormals != CHS_SUBNORMALS_KEEP) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "subnormals = %d: must be CHS_SUBNORMALS_FLUSH (0) or _KEEP (1)",
                         o->subnormals);
  }
  return CHS_SUCCESS;
}

static int chs_check_options(const CHSRunOptions *o, CHSError *err) {
  if (CHSRunAuto_Wanted(o->method)) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "method %s: CHSRun runs a given method; CHSRunProblem chooses one "
                         "(CHSRunProblem_Choose)",
                         o->method ? "auto" : "NULL");
  }
  CHS_CALL(chs_check_time_step(o, err));
  CHS_CALL(chs_check_subnormals(o, err));
  if (o->every < 1) {
    return chs_error_set(err, CHS_ERR_ARG, "output every %ld steps: must be >= 1", o->every);
  }
  if (o->check != CHS_RUN_CHECK_AUTO && o->check != CHS_RUN_CHECK_OFF &&
      o->check != CHS_RUN_CHECK_ON) {
    return chs_error_set(err, CHS_ERR_ARG, "check = %d: must be CHS_RUN_CHECK_AUTO, _OFF or _ON",
                         o->check);
  }
  if (o->strict != 0 && o->strict != 1) {
    return chs_error_set(err, CHS_ERR_ARG, "strict = %d: must be 0 or 1", o->strict);
  }
  if (o->multipliers != 0 && o->multipliers != 1) {
    return chs_error_set(err, CHS_ERR_ARG, "multipliers = %d: must be 0 or 1", o->multipliers);
  }
  if (o->estimate_error) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "estimate_error: the companion run is CHSRunProblem's (CHSRun runs one "
                         "formulation object)");
  }
  return CHS_SUCCESS;
}

typedef struct {
  CHSDiagnostics diag;
  CHSMonitorFn monitor;
  void *ctx;
  double wall; /* seconds spent inside the integrator (diagnostics and output excluded) */
  long records;
  /* the watch (chs/run.h "Warnings"): its bound, what it watches, what it has warned about */
  CHSRunSummary *sum;
  sunrealtype bound;
  int balance, energy_watched, warned_energy, warned_g, warned_psi;
  /* CHSRunOptions.multipliers: the records' lambda (m), reaction and v (n), NULL when not asked */
  CHSFormulation f;
  sunrealtype *lambda, *reaction, *v;
} chs_observer;

/* The watch at one record: the first value of each quantity beyond the bound is a warning. */
static void chs_watch(chs_observer *ob, const CHSRecord *rec) {
  if (ob->records == 1) { /* H(0) is known after the first record */
    CHSDiagnosticsSummary ds;
    CHSDiagnostics_GetSummary(ob->diag, &ds);
    ob->balance = ds.balance_tracked;
    ob->energy_watched = ds.energy0 != 0;
  }
  sunrealtype e = ob->balance ? rec->balance_err : rec->energy_err;
  if (ob->energy_watched && !ob->warned_energy && e > ob->bound) {
    ob->warned_energy = 1;
    chs_run_warn(ob->sum,
                 "%s %.3g at t = %.6g, beyond the watch's bound %.3g: the tolerance is not met "
                 "(step too large, or a wrong derivative: chs check)",
                 ob->balance ? "energy-balance error" : "energy error", (double)e, (double)rec->t,
                 (double)ob->bound);
  }
  const struct {
    const char *name;
    sunrealtype res, scale;
    int *warned;
  } r[] = {{"|g| / (|G| |q|)", rec->pos_res, rec->pos_scale, &ob->warned_g},
           {"|psi| / (|G| |v| + |g_t|)", rec->mom_res, rec->mom_scale, &ob->warned_psi}};
  for (int k = 0; k < 2; k++) {
    sunrealtype rel = r[k].scale > 0 ? r[k].res / r[k].scale : 0;
    if (!*r[k].warned && rel > ob->bound) {
      *r[k].warned = 1;
      chs_run_warn(ob->sum,
                   "constraint residual %s = %.3g at t = %.6g, beyond the watch's bound %.3g: "
                   "the solution left the constraint manifold",
                   r[k].name, (double)rel, (double)rec->t, (double)ob->bound);
    }
  }
}

static int chs_advance(CHSIntegrator it, sunrealtype tout, int one_step, N_Vector y, sunrealtype *t,
                       chs_observer *ob, CHSError *err) {
  double t0 = chs_wall_time();
  int rc = one_step ? CHSIntegrator_OneStep(it, tout, y, t, err)
                    : CHSIntegrator_Evolve(it, tout, y, t, err);
  ob->wall += chs_wall_time() - t0;
  return rc;
}

/* After an internal step: the power of the energy balance there (chs/diagnostics.h). */
static int chs_step_done(chs_observer *ob, sunrealtype t, N_Vector y, CHSError *err) {
  return CHSDiagnostics_Step(ob->diag, t, y, err);
}

static int chs_observe(chs_observer *ob, sunrealtype t, N_Vector y, CHSError *err) {
  CHSRecord rec;
  CHS_CALL(CHSDiagnostics_Record(ob->diag, t, y, &rec, err));
  if (ob->lambda) {
    CHS_CALL(chs_mult_eval(ob->f, t, y, ob->lambda, ob->reaction, ob->v, err));
    rec.lambda = ob->lambda;
    rec.reaction = ob->reaction;
    rec.v = ob->v;
  }
  if (!isfinite(rec.energy) && ob->records == 0) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "the initial energy H(q0, p0) is not finite (a parameter out of range?)");
  }
  ob->records++;
  chs_watch(ob, &rec);
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

/* ------------------------------------------------------------------------------------ events */

int CHSProblem_GetNumEvents(CHSProblem prob) {
  const CHSProblemOps *ops = CHSProblem_GetOps(prob);
  int n = 0;
  if (ops->events && ops->event_names) {
    while (n <= CHS_MAX_EVENTS && ops->event_names[n]) {
      n++;
    }
  }
  return n;
}

typedef struct {
  CHSFormulation f;
  const CHSRunOptions *opt;
  CHSRunSummary *sum;
  int nev;
  int stop[CHS_MAX_EVENTS]; /* 1: the run stops at this event */
  int fixed;                /* located on the step map (fixed step), else by root finding */
  /* fixed step: the last step's start (ta, ya, ea), the end's values eb, trial steps from ya on
   * an integrator of their own (aux), the state of the earliest stop event (ystop) */
  CHSIntegrator aux;
  N_Vector ya, ytrial, yhi, ystop;
  sunrealtype ta, ea[CHS_MAX_EVENTS], eb[CHS_MAX_EVENTS], em[CHS_MAX_EVENTS];
} chs_events;

static void chs_events_free(chs_events *ev) {
  CHSIntegrator_Destroy(&ev->aux);
  N_Vector *v[] = {&ev->ya, &ev->ytrial, &ev->yhi, &ev->ystop};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    if (*v[i]) {
      N_VDestroy(*v[i]);
      *v[i] = NULL;
    }
  }
}

/* The problem's event names, ", "-separated, into buf (for messages). */
static void chs_events_list(const CHSProblemOps *ops, int nev, char *buf, size_t len) {
  size_t used = 0;
  buf[0] = '\0';
  for (int k = 0; k < nev && used < len; k++) {
    int w = snprintf(buf + used, len - used, "%s%.60s", k ? ", " : "", ops->event_names[k]);
    used += w > 0 ? (size_t)w : 0;
  }
}

/* stop_at ("all" or a comma-separated list of the problem's event names) into ev->stop; an
 * unknown or empty name is an input error naming it and the problem's events. */
static int chs_events_parse(chs_events *ev, CHSProblem prob, const char *list, CHSError *err) {
  const CHSProblemOps *ops = CHSProblem_GetOps(prob);
  const char *pname = CHSProblem_GetName(prob);
  char names[CHS_MAX_EVENTS * 64 + 16];
  chs_events_list(ops, ev->nev, names, sizeof names);
  if (ev->nev == 0) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "cannot stop at event '%.100s': problem %s declares no events", list,
                         pname);
  }
  const char *s = list;
  int given = 0; /* a name (or all) selected twice is a mistake in the list, not a no-op */
  for (;;) {
    const char *end = strchr(s, ',');
    size_t len = end ? (size_t)(end - s) : strlen(s);
    int found = -1, twice = 0;
    if (len == 3 && strncmp(s, "all", 3) == 0) {
      twice = given;
      for (int k = 0; k < ev->nev; k++) {
        ev->stop[k] = 1;
      }
      found = ev->nev;
    }
    for (int k = 0; k < ev->nev && found < 0; k++) {
      if (strlen(ops->event_names[k]) == len && strncmp(ops->event_names[k], s, len) == 0) {
        twice = ev->stop[k];
        ev->stop[k] = 1;
        found = k;
      }
    }
    if (twice) {
      return chs_error_set(err, CHS_ERR_ARG,
                           "event '%.*s' is given twice in the events to stop at '%.100s' (all "
                           "includes every event)",
                           (int)(len > 100 ? 100 : len), s, list);
    }
    given = given || found >= 0;
    if (found < 0 && len == 0) {
      return chs_error_set(err, CHS_ERR_ARG,
                           "empty event name in the events to stop at '%.100s' (problem %s has "
                           "events: %s; or all)",
                           list, pname, names);
    }
    if (found < 0) {
      return chs_error_set(err, CHS_ERR_ARG,
                           "unknown event '%.*s' to stop at (problem %s has events: %s; or all)",
                           (int)(len > 100 ? 100 : len), s, pname, names);
    }
    if (!end) {
      break;
    }
    s = end + 1;
  }
  return CHS_SUCCESS;
}

int CHSProblem_CheckStopAt(CHSProblem prob, const char *stop_at, CHSError *err) {
  chs_events ev;
  memset(&ev, 0, sizeof ev);
  ev.nev = CHSProblem_GetNumEvents(prob);
  if (ev.nev > CHS_MAX_EVENTS) {
    return chs_error_set(err, CHS_ERR_ARG, "problem %s declares more than %d events",
                         CHSProblem_GetName(prob), CHS_MAX_EVENTS);
  }
  return stop_at ? chs_events_parse(&ev, prob, stop_at, err) : CHS_SUCCESS;
}

/* Validation before any work: the problem's events, and the names to stop at. */
static int chs_events_setup(chs_events *ev, CHSFormulation f, const CHSRunOptions *o,
                            CHSRunSummary *sum, CHSError *err) {
  memset(ev, 0, sizeof *ev);
  ev->f = f;
  ev->opt = o;
  ev->sum = sum;
  ev->fixed = o->ctl.h > 0;
  if (!o->stop_at && !o->locate_events) {
    return CHS_SUCCESS;
  }
  CHSProblem prob = CHSFormulation_GetProblem(f);
  const CHSProblemOps *ops = CHSProblem_GetOps(prob);
  ev->nev = CHSProblem_GetNumEvents(prob);
  if (ev->nev > CHS_MAX_EVENTS) {
    return chs_error_set(err, CHS_ERR_ARG, "problem %s declares more than %d events",
                         CHSProblem_GetName(prob), CHS_MAX_EVENTS);
  }
  if (ops->event_names && ops->event_names[0] && !ops->events) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "problem %s names events but has no events callback to evaluate them",
                         CHSProblem_GetName(prob));
  }
  if (o->stop_at) {
    CHS_CALL(chs_events_parse(ev, prob, o->stop_at, err));
  }
  sum->events_located = 1;
  return CHS_SUCCESS;
}

static void chs_events_record(chs_events *ev, int k, sunrealtype t, int direction) {
  CHSRunSummary *s = ev->sum;
  if (s->n_event_records < CHS_RUN_MAX_EVENT_RECORDS) {
    CHSEventRecord *r = &s->events[s->n_event_records++];
    r->index = k;
    r->t = t;
    r->direction = direction;
  }
  s->n_events++;
}

static int chs_events_eval(chs_events *ev, sunrealtype t, N_Vector y, sunrealtype *e,
                           CHSError *err) {
  if (CHSIntegrator_EventRootFn(t, y, e, ev->f) != 0 || !chs_all_finite(e, ev->nev)) {
    return chs_error_set(err, CHS_ERR_CALLBACK,
                         "the events of problem %s cannot be evaluated at t = %g (callback failed "
                         "or not finite)",
                         CHSProblem_GetName(CHSFormulation_GetProblem(ev->f)), (double)t);
  }
  return CHS_SUCCESS;
}

/* The start of the next step (fixed step): its time, state and event values. */
static int chs_events_save(chs_events *ev, sunrealtype t, N_Vector y, const sunrealtype *e,
                           CHSError *err) {
  ev->ta = t;
  N_VScale(1, y, ev->ya);
  if (e) {
    memcpy(ev->ea, e, (size_t)ev->nev * sizeof *e);
    return CHS_SUCCESS;
  }
  return chs_events_eval(ev, t, y, ev->ea, err);
}

/* Before the first step: root finding (adaptive) or the fixed-step workspace. */
static int chs_events_start(chs_events *ev, CHSIntegrator it, sunrealtype t0, N_Vector y0,
                            CHSError *err) {
  if (ev->nev == 0) {
    return CHS_SUCCESS;
  }
  if (!ev->fixed) {
    return CHSIntegrator_RootInit(it, ev->nev, err);
  }
  ev->ya = N_VClone(y0);
  ev->ytrial = N_VClone(y0);
  ev->yhi = N_VClone(y0);
  ev->ystop = N_VClone(y0);
  if (!ev->ya || !ev->ytrial || !ev->yhi || !ev->ystop) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  return chs_events_save(ev, t0, y0, NULL, err);
}

/* One step of the method from the last step's start (ta, ya) to t1 (t1 - ta <= h) into y: on an
 * integrator of its own, restarted (or, for families that cannot restart, created) at ta. */
static int chs_events_trial(chs_events *ev, sunrealtype t1, N_Vector y, CHSError *err) {
  N_VScale(1, ev->ya, y);
  if (!ev->aux || CHSIntegrator_Reinit(ev->aux, ev->ta, y) != 0) {
    CHSIntegrator_Destroy(&ev->aux);
    CHSStepControl ctl = ev->opt->ctl;
    ctl.max_steps = chs_run_max_steps(ev->opt);
    CHS_CALL(CHSIntegrator_Create(ev->opt->method, ev->f, y, ev->ta, &ctl, &ev->aux, err));
  }
  sunrealtype tret = ev->ta;
  int rc = CHSIntegrator_Evolve(ev->aux, t1, y, &tret, err);
  return rc < 0 ? rc : CHS_SUCCESS;
}

/* Event k changed sign over the step (ta, tb]: its time to round-off in t, by Illinois' regula
 * falsi on the step map (bisection when the bracket does not halve); *troot is the bracket's
 * upper end (the first time found past the event), yroot the state there. */
static int chs_events_locate(chs_events *ev, int k, sunrealtype tb, N_Vector yb, sunrealtype *troot,
                             N_Vector yroot, CHSError *err) {
  sunrealtype tlo = ev->ta, thi = tb, elo = ev->ea[k], ehi = ev->eb[k];
  N_VScale(1, yb, yroot);
  int side = 0, slow = 0;
  for (int iter = 0; iter < 300 && ehi != 0; iter++) {
    sunrealtype width = thi - tlo, tm = thi - ehi * (thi - tlo) / (ehi - elo);
    if (slow >= 2 || !(tm > tlo && tm < thi)) {
      tm = tlo + (thi - tlo) / 2;
      slow = 0;
    }
    if (!(tm > tlo && tm < thi)) {
      break; /* no time between tlo and thi: located to round-off */
    }
    CHS_CALL(chs_events_trial(ev, tm, ev->ytrial, err));
    CHS_CALL(chs_events_eval(ev, tm, ev->ytrial, ev->em, err));
    sunrealtype e = ev->em[k];
    if (e == 0 || (e > 0) == (ehi > 0)) {
      thi = tm;
      ehi = e;
      N_VScale(1, ev->ytrial, yroot);
      if (side == 1) {
        elo /= 2; /* Illinois: the end kept twice weighs half */
      }
      side = 1;
    } else {
      tlo = tm;
      elo = e;
      if (side == -1) {
        ehi /= 2;
      }
      side = -1;
    }
    slow = thi - tlo > width / 2 ? slow + 1 : 0;
  }
  *troot = thi;
  return CHS_SUCCESS;
}

/* After a fixed step to (tb, yb): locate the events whose functions changed sign, record them in
 * time order up to the earliest one to stop at; *stop: then (*t, y) become its time and state. */
static int chs_events_step(chs_events *ev, sunrealtype *t, N_Vector y, int *stop, double *wall,
                           CHSError *err) {
  *stop = 0;
  if (ev->nev == 0 || !ev->fixed) {
    return CHS_SUCCESS;
  }
  sunrealtype tb = *t;
  CHS_CALL(chs_events_eval(ev, tb, y, ev->eb, err));
  int idx[CHS_MAX_EVENTS], nf = 0, first_stop = -1;
  sunrealtype troot[CHS_MAX_EVENTS];
  double w0 = chs_wall_time();
  for (int k = 0; k < ev->nev; k++) {
    sunrealtype ea = ev->ea[k], eb = ev->eb[k];
    if (ea == 0 || (eb != 0 && (ea > 0) == (eb > 0))) {
      continue;
    }
    CHS_CALL(chs_events_locate(ev, k, tb, y, &troot[k], ev->yhi, err));
    int j = nf++;
    for (; j > 0 && troot[idx[j - 1]] > troot[k]; j--) {
      idx[j] = idx[j - 1];
    }
    idx[j] = k;
    if (ev->stop[k] && (first_stop < 0 || troot[k] < troot[first_stop])) {
      first_stop = k;
      N_VScale(1, ev->yhi, ev->ystop);
    }
  }
  *wall += chs_wall_time() - w0;
  for (int j = 0; j < nf; j++) {
    int k = idx[j];
    if (first_stop >= 0 && troot[k] > troot[first_stop]) {
      break;
    }
    chs_events_record(ev, k, troot[k], ev->ea[k] < 0 ? 1 : -1);
  }
  if (first_stop >= 0) {
    *stop = 1;
    ev->sum->stopped = 1;
    ev->sum->stop_event = first_stop;
    *t = troot[first_stop];
    N_VScale(1, ev->ystop, y);
    return CHS_SUCCESS;
  }
  return chs_events_save(ev, tb, y, ev->eb, err);
}

/* After the integrator stopped at a root (adaptive): record the events found there. */
static int chs_events_root(chs_events *ev, CHSIntegrator it, sunrealtype t, int *stop,
                           CHSError *err) {
  int dirs[CHS_MAX_EVENTS] = {0};
  *stop = 0;
  if (CHSIntegrator_RootInfo(it, dirs) != 0) {
    return chs_error_set(err, CHS_ERR_SOLVER, "root finding: no event information at t = %g",
                         (double)t);
  }
  for (int k = 0; k < ev->nev; k++) {
    if (dirs[k] != 0) {
      chs_events_record(ev, k, t, dirs[k] > 0 ? 1 : -1);
      if (ev->stop[k] && !*stop) {
        *stop = 1;
        ev->sum->stopped = 1;
        ev->sum->stop_event = k;
      }
    }
  }
  return CHS_SUCCESS;
}

static int chs_integrate(CHSFormulation f, CHSIntegrator it, const CHSRunOptions *o, N_Vector y,
                         chs_observer *ob, chs_events *ev, CHSError *err) {
  sunrealtype t = o->t0;
  int charted = f->ops->rechart != NULL; /* then step by step, re-charting after each step */
  int watch = ev->nev > 0 && ev->fixed;  /* events on the step map: step by step too */
  CHSDiagnosticsSummary ds;
  CHSDiagnostics_GetSummary(ob->diag, &ds);
  int balance = ds.balance_tracked; /* the power at every step: step by step too */
  long max_steps = chs_run_max_steps(o);
  if (o->ctl.h > 0) {
    sunrealtype dt = (sunrealtype)o->every * o->ctl.h;
    for (long k = 1; t < o->tf; k++) {
      sunrealtype tout = o->t0 + (sunrealtype)k * dt;
      if (tout > o->tf - 1e-9 * o->ctl.h) {
        tout = o->tf;
      }
      if (charted || watch || balance) {
        while (t < tout - 1e-9 * o->ctl.h) {
          CHS_CALL(chs_advance(it, tout, 1, y, &t, ob, err));
          int stop = 0;
          CHS_CALL(chs_events_step(ev, &t, y, &stop, &ob->wall, err));
          CHS_CALL(chs_step_done(ob, t, y, err));
          if (stop) { /* the final time and state are the event's */
            return chs_observe(ob, t, y, err);
          }
          if (charted) {
            CHS_CALL(chs_rechart(f, it, t, y, err));
            if (watch) {
              N_VScale(1, y, ev->ya); /* the new chart's coordinates of the same state */
            }
          }
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
    int rc = chs_advance(it, o->tf, 1, y, &t, ob, err);
    if (rc == 0 || rc == CHS_INTEGRATOR_ROOT) {
      CHS_CALL(chs_step_done(ob, t, y, err));
    }
    if (rc == CHS_INTEGRATOR_ROOT) { /* y is the state at the root t (interpolated) */
      int stop = 0;
      CHS_CALL(chs_events_root(ev, it, t, &stop, err));
      if (stop || t >= o->tf) {
        return chs_observe(ob, t, y, err);
      }
      continue; /* the next call returns the step's end */
    }
    CHS_CALL(rc);
    if (charted) {
      CHS_CALL(chs_rechart(f, it, t, y, err));
    }
    if (++steps % o->every == 0 || t >= o->tf) {
      CHS_CALL(chs_observe(ob, t, y, err));
    }
  }
  return CHS_SUCCESS;
}

/* The reference check (chs/run.h "Warnings"): a completed adaptive run whose final record has a
 * reference, compared with its tolerance. */
static void chs_reference_check(const CHSRunOptions *opt, CHSRunSummary *sum) {
  const CHSDiagnosticsSummary *d = &sum->diag;
  if (opt->ctl.h > 0 || !d->has_reference) {
    return;
  }
  sunrealtype tol = fmax(opt->ctl.rtol, opt->ctl.atol);
  if (d->int_err_final > CHS_RUN_REFERENCE_FACTOR * tol) {
    chs_run_warn(sum,
                 "final error |(q,p) - reference| = %.3g at t = %.6g is %.0f x the tolerance %.3g "
                 "(more than %g x): the tolerance bounds each step's error, not the accumulated "
                 "one; tighten it (docs/calibration.md)",
                 (double)d->int_err_final, (double)d->t_final, (double)(d->int_err_final / tol),
                 (double)tol, CHS_RUN_REFERENCE_FACTOR);
  }
}

static int chs_run(CHSFormulation f, const CHSRunOptions *opt, CHSMonitorFn monitor, void *ctx,
                   CHSRunSummary *sum, CHSError *err) {
  memset(sum, 0, sizeof *sum);
  snprintf(sum->formulation, sizeof sum->formulation, "%s", f ? f->ops->name : "");
  snprintf(sum->method, sizeof sum->method, "%s", opt && opt->method ? opt->method : "");
  sum->error_estimate = sum->error_estimate_rtol = sum->error_estimate_atol = NAN;
  sum->proj_position = sum->proj_momentum = -1;
  sum->stats.jac_evals = -1;
  CHS_CALL(chs_check_options(opt, err));
  /* a problem's initial state is its state at t = 0: with explicit time dependence it is not a
   * consistent state at any other t0 (g(q, t0) != 0), so such a run would be silently wrong */
  if (opt->t0 != 0 && f->sys.time_bits) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "problem %s depends on t explicitly and its initial state is given at "
                         "t = 0: t0 = %g is not supported",
                         CHSProblem_GetName(CHSFormulation_GetProblem(f)), (double)opt->t0);
  }
  if (opt->multipliers && CHSProblem_HasKineticScale(f->prob)) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "multipliers of problem '%s': its kinetic energy is scaled by sigma(q), "
                         "and the constraint force is not -G^T Q^-1 r",
                         CHSProblem_GetName(f->prob));
  }
  chs_events ev;
  CHS_CALL(chs_events_setup(&ev, f, opt, sum, err)); /* names checked before any work */
  N_Vector y = NULL;
  CHSIntegrator it = NULL;
  chs_observer ob = {NULL, monitor, ctx, 0, 0, sum, 0, 0, 0, 0, 0, 0, f, NULL, NULL, NULL};
  ob.bound = opt->ctl.h > 0 ? CHS_RUN_WATCH_FLOOR
                            : fmax(CHS_RUN_WATCH_FACTOR * opt->ctl.rtol, CHS_RUN_WATCH_FLOOR);
  /* the derivative probe, before any work: a warning per wrong callback, or (strict) an error */
  int failed = 0;
  char first[64];
  CHS_CALL(chs_probe_derivatives(CHSFormulation_GetProblem(f), opt, sum, &failed, first,
                                 sizeof first, err));
  if (failed > 0 && opt->strict) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "problem %s: the derivative probe failed (%s%s disagree%s with finite "
                         "differences at the initial state); strict: no run",
                         CHSProblem_GetName(CHSFormulation_GetProblem(f)), first,
                         failed > 1 ? " and others" : "", failed > 1 ? "" : "s");
  }
  if (opt->multipliers) {
    ob.lambda = calloc((size_t)(f->sys.m + 2 * f->sys.n) + 1, sizeof *ob.lambda);
    if (!ob.lambda) {
      chs_events_free(&ev);
      return chs_error_set(err, CHS_ERR_MEM, "out of memory");
    }
    ob.reaction = ob.lambda + f->sys.m;
    ob.v = ob.reaction + f->sys.n;
  }
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
  if (rc == 0) {
    rc = chs_events_start(&ev, it, opt->t0, y, err);
  }
  CHSFormulation_ResetCounters(f);
  if (rc == 0) {
    rc = chs_integrate(f, it, opt, y, &ob, &ev, err);
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
  if (rc == 0) {
    chs_reference_check(opt, sum);
  }
  chs_calibration_warn(f->ops, opt, sum);
  if (proj) {
    sum->proj_position = CHSProjector_GetNumPosition(proj);
    sum->proj_momentum = CHSProjector_GetNumMomentum(proj);
  }
  CHSIntegrator_Destroy(&it);
  chs_events_free(&ev);
  CHSProjector_Destroy(&proj);
  CHSDiagnostics_Destroy(&ob.diag);
  free(ob.lambda);
  if (y) {
    N_VDestroy(y);
  }
  return rc;
}

int CHSRun(CHSFormulation f, const CHSRunOptions *opt, CHSMonitorFn monitor, void *ctx,
           CHSRunSummary *sum, CHSError *err) {
  unsigned long fp = chs_fp_begin(opt ? opt->subnormals : CHS_SUBNORMALS_KEEP);
  int rc = chs_run(f, opt, monitor, ctx, sum, err);
  chs_fp_end(fp);
  return rc;
}
