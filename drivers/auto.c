/* --formulation auto and --method auto (docs/auto.md): the configuration chs chooses for a
 * problem, a tolerance and a time span.
 *
 * The decision, from `chs bench calibrate`'s measurements (tools/calibration-table --versus) on the
 * built-in problems with references (every formulation x adaptive method, tol 1e-4 .. 1e-10):
 *  - formulation: the Hamilton-Dirac field (its constraints are first integrals, so no
 *    projection is needed); with CVODE Adams, within 1.5 x of the cheapest configuration at
 *    equal final error at every point of docs/auto.md (medians of jittered runs);
 *  - a fixed step (--h): RATTLE (symplectic, keeps g = 0 and psi = 0 to the Newton tolerance),
 *    explicit RK4 where RATTLE does not apply;
 *  - adaptive: CVODE Adams (variable order 1 .. 12, Newton iteration). No pilot: at every
 *    point measured a pilot between candidates would have cost more than the difference it can
 *    make (dirac + Adams needs 20 .. 1500 evaluations on the built-ins at 1e-4 .. 1e-10, a pilot
 *    of Adams and BDF over 2 % of the span 60 .. 90 of them). Moderately stiff problems are
 *    where BDF would be cheaper (docs/auto.md measures by how much);
 *  - a DAE formulation given with --method auto: IDA, its only method. */
#include "auto.h"
#include <stdio.h>
#include <string.h>

int cli_auto_wanted(const char *spec) {
  return spec == NULL || strcmp(spec, "auto") == 0;
}

/* 1 when the formulation spec names a DAE formulation (IDA only). */
static int auto_is_dae(const char *form) {
  return strncmp(form, "dae-", 4) == 0;
}

int cli_auto_choose(const cli_options *o, CHSProblem prob, cli_auto_choice *c) {
  memset(c, 0, sizeof *c);
  c->formulation_auto = cli_auto_wanted(o->formulation);
  c->method_auto = cli_auto_wanted(o->method);
  snprintf(c->formulation, sizeof c->formulation, "%s",
           c->formulation_auto ? "dirac" : o->formulation);
  char fwhy[160] = "", mwhy[320] = "";
  if (c->formulation_auto) {
    snprintf(fwhy, sizeof fwhy, "dirac (Hamilton-Dirac: the constraints are first integrals)");
  }
  if (!c->method_auto) {
    snprintf(c->method, sizeof c->method, "%s", o->method);
  } else if (auto_is_dae(c->formulation)) {
    snprintf(c->method, sizeof c->method, "ida");
    snprintf(mwhy, sizeof mwhy, "ida (the only method of a DAE formulation)");
  } else if (o->have_h) {
    /* RATTLE where it applies (it refuses some formulations and problems at set-up) */
    snprintf(c->method, sizeof c->method, "rattle");
    snprintf(mwhy, sizeof mwhy, "rattle (a fixed step: symplectic, on the constraint manifold)");
    cli_options t = *o;
    t.method = c->method;
    t.tf = 0;
    cli_result r;
    if (cli_integrate(&t, c->formulation, NULL, NULL, prob, &r) != 0) {
      snprintf(c->method, sizeof c->method, "erk:rk4");
      snprintf(mwhy, sizeof mwhy, "erk:rk4 (a fixed step; rattle does not apply here)");
    }
  } else {
    snprintf(c->method, sizeof c->method, "cvode:adams");
    snprintf(mwhy, sizeof mwhy,
             "cvode:adams (adaptive: the cheapest at equal error on the "
             "built-in problems with references, docs/auto.md)");
  }
  snprintf(c->why, sizeof c->why, "%s%s%s", fwhy, fwhy[0] && mwhy[0] ? "; " : "", mwhy);
  return 0;
}
