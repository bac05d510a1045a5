/* chs run on a first-order Lagrangian problem (chs/first_order.h, e.g. fj-example): ERKStep on
 * CHSFirstOrder_Rhs through CHSFirstOrder_Run. No formulation (the Euler-Lagrange equations
 * A(z) z' = grad V are the ODE), no constraints: the JSON object has the keys of the run contract
 * with formulation, jac_evals, projections and residuals null. */
#include <string.h>
#include "../src/compat.h"
#include "cli.h"

int cli_is_first_order(const char *spec) {
  char name[256];
  const char *params = NULL;
  CHSError err;
  if (!spec || CHSSpec_Split(spec, name, sizeof name, &params, &err) != 0) {
    return 0;
  }
  return !CHSProblemRegistry_Find(name) && CHSFirstOrderRegistry_Find(name) != NULL;
}

static void print_json(const cli_options *o, const CHSFirstOrderSummary *s) {
  cli_result r; /* a run with no formulation, no constraints: their keys null */
  memset(&r, 0, sizeof r);
  snprintf(r.problem, sizeof r.problem, "%s", o->problem);
  snprintf(r.method, sizeof r.method, "%s", o->method);
  CHSDiagnosticsSummary *d = &r.sum.diag;
  d->t_final = s->t_final;
  d->energy_err_max = s->energy_err_max;
  d->energy_err_final = s->energy_err_final;
  d->has_reference = s->has_reference;
  d->int_err_final = s->int_err_final;
  d->int_err_max = s->int_err_max;
  r.sum.stats.steps = s->steps;
  r.sum.rhs_evals = s->rhs_evals;
  r.sum.stats.jac_evals = r.sum.proj_position = r.sum.proj_momentum = -1;
  r.sum.wall_s = s->wall_s;
  json_run_head(stdout, &r, "");
  printf("\n}\n");
}

static void print_text(const cli_options *o, CHSFirstOrder fo, const CHSFirstOrderSummary *s) {
  printf("problem %s, first-order Lagrangian (d = %ld), method %s\n", o->problem,
         (long)CHSFirstOrder_GetDim(fo), o->method);
  printf("  t_final        %.6g\n", (double)s->t_final);
  printf("  steps          %ld\n", s->steps);
  printf("  rhs evals      %ld\n", s->rhs_evals);
  printf("  energy error   max %.3e  final %.3e  (|V - V0|%s, V0 = %.6g)\n",
         (double)s->energy_err_max, (double)s->energy_err_final, s->V0 != 0 ? " / |V0|" : "",
         (double)s->V0);
  if (s->has_reference) {
    printf("  |z-ref|        max %.3e  final %.3e\n", (double)s->int_err_max,
           (double)s->int_err_final);
  } else {
    printf("  |z-ref|        n/a (problem has no reference solution)\n");
  }
  printf("  wall           %.3g s\n", s->wall_s);
}

/* The equations at the initial state: A(z0) singular (a degenerate Lagrangian, e.g. fj-example
 * without its multiplier; an antisymmetric A of odd order always is) means the problem cannot be
 * integrated from there at all: bad input, refused before any step (the other failures are left
 * to the run). 0 or CHS_ERR_ARG with the reason in err. */
static int check_initial_equations(CHSFirstOrder fo, double t0, CHSError *err) {
  N_Vector z0 = NULL, zd = NULL;
  int rc = CHSFirstOrder_NewInitialState(fo, &z0, err);
  if (rc != 0) {
    return rc;
  }
  zd = N_VClone(z0);
  if (!zd) {
    N_VDestroy(z0);
    return cli_error(err, CHS_ERR_MEM, "out of memory");
  }
  rc = CHSFirstOrder_Rhs(t0, z0, zd, fo);
  const CHSError *why = CHSFirstOrder_GetLastFailure(fo);
  if (rc != 0 && why->code == CHS_ERR_SINGULAR) {
    err->code = CHS_ERR_ARG;
    *err = *why; /* "... is singular at t = 0 ...", the initial state */
    err->code = CHS_ERR_ARG;
    rc = CHS_ERR_ARG;
  } else {
    rc = 0;
  }
  N_VDestroy(zd);
  N_VDestroy(z0);
  return rc;
}

int cmd_run_first_order(const cli_options *o) {
  const char *bad = o->formulation ? "--formulation"
                    : o->out       ? "--out"
                    : o->wedge     ? "--wedge"
                    : o->project   ? "--project"
                                   : NULL;
  if (bad) {
    fprintf(stderr,
            "chs: %s is a first-order Lagrangian problem (chs/first_order.h): its Euler-Lagrange "
            "equations A(z) z' = grad V are integrated directly; %s does not apply\n",
            o->problem, bad);
    return CHS_EXIT_USAGE;
  }
  SUNContext sun = NULL;
  if (chs_context_create(&sun) != 0) {
    fprintf(stderr, "chs: cannot create a SUNContext\n");
    return CHS_EXIT_NUMERIC;
  }
  chs_context_silence(sun); /* failures are reported through CHSError */
  CHSError err;
  CHSError_Clear(&err);
  CHSFirstOrder fo = NULL;
  int rc = CHSFirstOrder_Create(o->problem, sun, &fo, &err);
  if (rc == 0) {
    rc = check_initial_equations(fo, 0, &err);
  }
  CHSFirstOrderSummary sum;
  if (rc == 0) {
    CHSRunOptions ro;
    cli_run_options(o, &ro);
    if (o->dry_run) {
      ro.tf = ro.t0; /* the method is set up and checked, no step is taken */
    }
    rc = CHSFirstOrder_Run(fo, &ro, &sum, &err);
  }
  if (rc == 0 && o->dry_run) {
    CHSFirstOrder_Destroy(&fo);
    SUNContext_Free(&sun);
    return cli_dry_run_done(o->problem);
  }
  int status = rc != 0 ? cli_fail(&err) : CHS_EXIT_OK;
  if (rc == 0) {
    if (o->json) {
      print_json(o, &sum);
    } else {
      print_text(o, fo, &sum);
    }
  }
  CHSFirstOrder_Destroy(&fo);
  SUNContext_Free(&sun);
  return status;
}
