/* Runs that several commands make (bench dae, bench dae --scale, workprec, reproduce's
 * experiments): one formulation in a SUNContext of its own, counted runs, a stepper, and the
 * final state against a reference (drivers/runlib.h). */
#include <math.h>
#include <string.h>
#include <nvector/nvector_serial.h>
#include "../src/compat.h"
#include "runlib.h"

/* A silenced SUNContext of the run's own: 0, or CHS_ERR_MEM with err set. */
static int rep_context(SUNContext *ctx, CHSError *err) {
  if (chs_context_create(ctx) != 0) {
    return cli_error(err, CHS_ERR_MEM, "cannot create a SUNContext");
  }
  chs_context_silence(*ctx);
  return 0;
}

/* A formulation of prob in its own SUNContext, then CHSRun (wmon == NULL) or CHSWedge_Run. */
static int rep_run_any(CHSProblem prob, const char *form, CHSRunOptions opt, CHSMonitorFn monitor,
                       CHSWedgeMonitorFn wmon, void *ctx, CHSRunSummary *sum, CHSWedgeSummary *wsum,
                       CHSError *err) {
  SUNContext sunctx = NULL;
  CHSFormulation f = NULL;
  CHSRunSummary local;
  if (rep_context(&sunctx, err) != 0) {
    return err->code;
  }
  opt.every = opt.every > 0 ? opt.every : 1;
  int rc = CHSFormulation_Create(form, prob, sunctx, &f, err);
  if (rc == 0) {
    rc = wmon ? CHSWedge_Run(f, &opt, wmon, ctx, wsum, err)
              : CHSRun(f, &opt, monitor, ctx, sum ? sum : &local, err);
  }
  CHSFormulation_Destroy(&f);
  SUNContext_Free(&sunctx);
  return rc;
}

typedef struct {
  CHSFormulation f;
  long npos, nmom, proj_steps, calls, every;
  CHSMonitorFn inner;
  void *ctx;
} counting_ctx;

static int counting_monitor(const CHSRecord *rec, void *ctx) {
  counting_ctx *c = ctx;
  CHSProjector proj = CHSFormulation_GetProjector(c->f);
  if (proj) {
    long np = CHSProjector_GetNumPosition(proj), nm = CHSProjector_GetNumMomentum(proj);
    c->proj_steps += c->calls > 0 && (np > c->npos || nm > c->nmom); /* call 0: t0, no step */
    c->npos = np;
    c->nmom = nm;
  }
  int rc = 0;
  if (c->inner && c->calls % c->every == 0) {
    rc = c->inner(rec, c->ctx);
  }
  c->calls++;
  return rc;
}

int rep_run_counted(CHSProblem prob, const char *form, CHSRunOptions opt, CHSMonitorFn monitor,
                    void *ctx, CHSRunSummary *sum, long *proj_steps, CHSError *err) {
  SUNContext sunctx = NULL;
  counting_ctx c = {.every = opt.every > 0 ? opt.every : 1, .inner = monitor, .ctx = ctx};
  CHSRunSummary local;
  if (rep_context(&sunctx, err) != 0) {
    return err->code;
  }
  opt.every = 1;
  int rc = CHSFormulation_Create(form, prob, sunctx, &c.f, err);
  if (rc == 0) {
    rc = CHSRun(c.f, &opt, counting_monitor, &c, sum ? sum : &local, err);
  }
  *proj_steps = c.proj_steps;
  CHSFormulation_Destroy(&c.f);
  SUNContext_Free(&sunctx);
  return rc;
}

int rep_stepper_open(rep_stepper *s, CHSProblem prob, const char *form, const char *method,
                     CHSStepControl ctl, const double *q0, const double *p0, const double *y0,
                     sunindextype ny, CHSError *err) {
  memset(s, 0, sizeof *s);
  int rc = rep_context(&s->ctx, err);
  if (rc == 0) {
    rc = CHSFormulation_Create(form, prob, s->ctx, &s->f, err);
  }
  if (rc == 0) {
    rc = CHSFormulation_NewInitialState(s->f, &s->y, err);
  }
  if (rc == 0 && q0) {
    rc = CHSFormulation_FromPhysical(s->f, q0, p0, s->y);
  } else if (rc == 0 && y0 && ny != N_VGetLength(s->y)) {
    rc = cli_error(err, CHS_ERR_ARG, "%s: a state of %ld values for a state of length %ld", form,
                   (long)ny, (long)N_VGetLength(s->y));
  } else if (rc == 0 && y0) {
    memcpy(N_VGetArrayPointer(s->y), y0, (size_t)ny * sizeof *y0);
  }
  if (rc == 0 && method) {
    rc = CHSIntegrator_Create(method, s->f, s->y, 0, &ctl, &s->it, err);
  }
  return rc;
}

void rep_stepper_close(rep_stepper *s) {
  CHSIntegrator_Destroy(&s->it);
  if (s->y) {
    N_VDestroy(s->y);
    s->y = NULL;
  }
  CHSFormulation_Destroy(&s->f);
  SUNContext_Free(&s->ctx);
}

int rep_run(CHSProblem prob, const char *form, CHSRunOptions opt, CHSMonitorFn monitor, void *ctx,
            CHSRunSummary *sum, CHSError *err) {
  return rep_run_any(prob, form, opt, monitor, NULL, ctx, sum, NULL, err);
}

int rep_wedge(CHSProblem prob, const char *form, CHSRunOptions opt, CHSWedgeMonitorFn monitor,
              void *ctx, CHSWedgeSummary *sum, CHSError *err) {
  return rep_run_any(prob, form, opt, NULL, monitor, ctx, NULL, sum, err);
}

int rep_final_monitor(const CHSRecord *rec, void *ctx) {
  double *z = ctx;
  long n = (long)z[0];
  memcpy(z + 1, rec->q, (size_t)n * sizeof *z);
  memcpy(z + 1 + n, rec->p, (size_t)n * sizeof *z);
  return 0;
}

double rep_final_distance(const double *z, const double *ref) {
  long n = (long)z[0];
  double d = 0;
  for (long i = 1; i <= 2 * n; i++) {
    d += (z[i] - ref[i]) * (z[i] - ref[i]);
  }
  return sqrt(d);
}

int rep_reference_final(CHSProblem prob, double tf, double tol, double *z, char *how,
                        size_t how_len, CHSError *err) {
  long n = (long)z[0];
  if (CHSProblem_Reference(prob, tf, z + 1, z + 1 + n) == 0) {
    if (how) {
      snprintf(how, how_len, "the problem's reference solution");
    }
    return 0;
  }
  if (how) {
    snprintf(how, how_len, "dirac + erk:ARKODE_VERNER_8_5_6 at rtol = atol = %g", tol);
  }
  return rep_reference_run(prob, tf, tol, 1000000000L, rep_final_monitor, z, err);
}

int rep_reference_run(CHSProblem prob, double tf, double tol, long every, CHSMonitorFn monitor,
                      void *ctx, CHSError *err) {
  CHSRunOptions o = {.method = "erk:ARKODE_VERNER_8_5_6",
                     .ctl = {.rtol = tol, .atol = tol},
                     .tf = tf,
                     .every = every};
  return rep_run(prob, "dirac", o, monitor, ctx, NULL, err);
}
