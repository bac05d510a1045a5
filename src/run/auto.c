/* The configuration chs chooses for a problem, a tolerance and a time span (docs/auto.md):
 * CHSRunProblem with formulation or method "auto".
 *
 * The decision, from `chs bench calibrate`'s measurements (tools/calibration-table --versus) on the
 * built-in problems with references (every formulation x adaptive method, tol 1e-4 .. 1e-10):
 *  - formulation: the Hamilton-Dirac field (its constraints are first integrals, so no
 *    projection is needed); with CVODE Adams, within 1.5 x of the cheapest configuration at
 *    equal final error at every point of docs/auto.md (medians of jittered runs);
 *  - a fixed step: RATTLE (symplectic, keeps g = 0 and psi = 0 to the Newton tolerance),
 *    explicit RK4 where RATTLE does not apply;
 *  - adaptive: CVODE Adams (variable order 1 .. 12, Newton iteration). No pilot: at every
 *    point measured a pilot between candidates would have cost more than the difference it can
 *    make (dirac + Adams needs 20 .. 1500 evaluations on the built-ins at 1e-4 .. 1e-10, a pilot
 *    of Adams and BDF over 2 % of the span 60 .. 90 of them). Moderately stiff problems are
 *    where BDF would be cheaper (docs/auto.md measures by how much);
 *  - a DAE formulation given with method auto: IDA, its only method. */
#include <stdio.h>
#include <string.h>
#include "impl.h"

int CHSRunAuto_Wanted(const char *spec) {
  return spec == NULL || strcmp(spec, "auto") == 0;
}

int CHSRunProblem_Choose(CHSProblem prob, const char *formulation, const CHSRunOptions *opt,
                         CHSRunChoice *c, CHSError *err) {
  if (!prob || !opt || !c) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "CHSRunProblem_Choose: the problem, options and choice are required "
                         "(one is NULL)");
  }
  memset(c, 0, sizeof *c);
  c->formulation_chosen = CHSRunAuto_Wanted(formulation);
  c->method_chosen = CHSRunAuto_Wanted(opt->method);
  const char *form = c->formulation_chosen ? "dirac" : formulation;
  if (strlen(form) >= sizeof c->formulation ||
      (!c->method_chosen && strlen(opt->method) >= sizeof c->method)) {
    return chs_error_set(err, CHS_ERR_ARG, "CHSRunProblem_Choose: a spec longer than %zu bytes",
                         sizeof c->formulation - 1);
  }
  snprintf(c->formulation, sizeof c->formulation, "%s", form);
  char fwhy[160] = "", mwhy[320] = "";
  if (c->formulation_chosen) {
    snprintf(fwhy, sizeof fwhy, "dirac (Hamilton-Dirac: the constraints are first integrals)");
  }
  char name[64];
  const char *params = NULL;
  CHSError local;
  const CHSFormulationOps *ops = CHSSpec_Split(form, name, sizeof name, &params, &local) == 0
                                     ? CHSFormulationRegistry_Find(name)
                                     : NULL;
  if (!c->method_chosen) {
    snprintf(c->method, sizeof c->method, "%s", opt->method);
  } else if (!ops) {
    return chs_error_set(err, CHS_ERR_NOTFOUND,
                         "unknown formulation '%s' (see `chs list formulations`)", form);
  } else if (ops->flags & CHS_FORM_DAE) {
    snprintf(c->method, sizeof c->method, "ida");
    snprintf(mwhy, sizeof mwhy, "ida (the only method of a DAE formulation)");
  } else if (opt->ctl.h > 0) {
    /* RATTLE where it applies: it refuses some formulations and problems at set-up, which a
     * run of no step finds out */
    snprintf(c->method, sizeof c->method, "rattle");
    snprintf(mwhy, sizeof mwhy, "rattle (a fixed step: symplectic, on the constraint manifold)");
    CHSRunOptions t = *opt;
    t.method = c->method;
    t.tf = t.t0;
    CHSRunSummary sum;
    if (CHSRunProblem(prob, c->formulation, &t, NULL, NULL, &sum, &local) != 0) {
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
  return CHS_SUCCESS;
}
