/* libFuzzer harness: short integrations with fuzzed parameters.
 *
 * The bytes pick the problem (pendulum or double pendulum) and its parameters (lengths, masses,
 * gravity, initial angles and velocities, on a consistent initial state), a registered
 * formulation, a method (fixed step or adaptive), the step size or tolerances, a projection, and
 * the final time, bounded so that a run takes at most a few hundred steps. Properties: no crash,
 * no leak, no sanitizer report; a failure carries a message; a completed run has finite
 * diagnostics. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "chs/chs.h"
#include "../../src/compat.h"

typedef struct {
  const uint8_t *data;
  size_t size, at;
} fuzz_bytes;

static unsigned fuzz_byte(fuzz_bytes *b) {
  return b->at < b->size ? b->data[b->at++] : 0;
}

/* lo .. hi, on a logarithmic scale when log (lo > 0) */
static double fuzz_real(fuzz_bytes *b, double lo, double hi, int log) {
  unsigned v = fuzz_byte(b) | fuzz_byte(b) << 8;
  double u = v / 65535.0;
  return log ? lo * pow(hi / lo, u) : lo + (hi - lo) * u;
}

#define FUZZ_CHECK(cond)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "fuzz_integrate: property violated: %s (%s:%d)\n", #cond, __FILE__,          \
              __LINE__);                                                                           \
      abort();                                                                                     \
    }                                                                                              \
  } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const fixed[] = {"erk:rk4",
                                      "erk:dp5",
                                      "gauss:1",
                                      "gauss:2",
                                      "gauss:3",
                                      "lobatto:2",
                                      "lobatto:3",
                                      "lobatto:4",
                                      "rattle",
                                      "alpha-prk:3",
                                      "alpha-prk:4",
                                      "dirk:midpoint",
                                      "midpoint",
                                      "midpoint:fixed:tol=1e-10",
                                      "sprk:ARKODE_SPRK_MCLACHLAN_4_4"};
  static const char *const adaptive[] = {
      "erk:dp5",          "erk:rkf45", "cvode:bdf",  "cvode:adams",
      "cvode:bdf:ls=klu", "ida",       "ida:jac=fd", "dirk:ARKODE_SDIRK_2_1_2"};
  fuzz_bytes b = {data, size, 0};
  char spec[512];
  unsigned which = fuzz_byte(&b);
  if (which & 1) {
    double L = fuzz_real(&b, 0.05, 20, 1), m = fuzz_real(&b, 0.05, 20, 1);
    double g = fuzz_real(&b, 0, 20, 0), th = fuzz_real(&b, -M_PI, M_PI, 0);
    double w = fuzz_real(&b, -10, 10, 0);
    /* q on the circle of radius L, p = m L w (cos th, sin th) tangential: consistent */
    snprintf(spec, sizeof spec,
             "pendulum:length=%.17g,mass=%.17g,gravity=%.17g,x=%.17g,y=%.17g,px=%.17g,py=%.17g%s",
             L, m, g, L * sin(th), -L * cos(th), m * L * w * cos(th), m * L * w * sin(th),
             (which & 2) ? ",gscale=1" : "");
  } else {
    snprintf(spec, sizeof spec,
             "double-pendulum:m1=%.17g,m2=%.17g,L1=%.17g,L2=%.17g,gravity=%.17g,theta1=%.17g,"
             "theta2=%.17g,omega1=%.17g,omega2=%.17g,sparse=%u",
             fuzz_real(&b, 0.05, 20, 1), fuzz_real(&b, 0.05, 20, 1), fuzz_real(&b, 0.05, 20, 1),
             fuzz_real(&b, 0.05, 20, 1), fuzz_real(&b, 0, 20, 0), fuzz_real(&b, -M_PI, M_PI, 0),
             fuzz_real(&b, -M_PI, M_PI, 0), fuzz_real(&b, -5, 5, 0), fuzz_real(&b, -5, 5, 0),
             (which >> 1) & 1u);
  }
  const CHSFormulationOps *fops =
      CHSFormulationRegistry_Get((int)(fuzz_byte(&b) % (unsigned)CHSFormulationRegistry_Count()));
  unsigned mbyte = fuzz_byte(&b);
  int use_fixed = !(mbyte & 1);
  CHSRunOptions ro;
  CHSRunOptions_Default(&ro);
  if (use_fixed) {
    ro.method = fixed[(mbyte >> 1) % (sizeof fixed / sizeof fixed[0])];
    ro.ctl.h = fuzz_real(&b, 1e-3, 0.5, 1);
    ro.tf = fuzz_real(&b, 0, 1, 0) * 200 * ro.ctl.h; /* at most 200 steps */
    ro.ctl.rtol = ro.ctl.atol = 1e-10;               /* implicit methods' Newton tolerance */
  } else {
    ro.method = adaptive[(mbyte >> 1) % (sizeof adaptive / sizeof adaptive[0])];
    ro.ctl.rtol = fuzz_real(&b, 1e-9, 1e-2, 1);
    ro.ctl.atol = fuzz_real(&b, 1e-9, 1e-2, 1);
    ro.ctl.max_steps = 300;
    ro.tf = fuzz_real(&b, 0, 2, 0);
  }
  unsigned pbyte = fuzz_byte(&b);
  ro.project = (int)(pbyte & 3u);
  ro.project_tol = (pbyte & 4u) ? 1e-8 : 0;
  ro.project_every = (pbyte >> 3) & 3u;
  ro.every = 1 + (long)(fuzz_byte(&b) % 16u);

  CHSError err;
  CHSError_Clear(&err);
  CHSProblem prob = NULL;
  int rc = CHSProblem_Create(spec, &prob, &err);
  FUZZ_CHECK(rc == 0 || err.msg[0] != '\0');
  SUNContext ctx = NULL;
  if (rc == 0 && chs_context_create(&ctx) == 0) {
    chs_context_silence(ctx);
    CHSFormulation f = NULL;
    rc = CHSFormulation_Create(fops->name, prob, ctx, &f, &err);
    FUZZ_CHECK(rc == 0 || err.msg[0] != '\0');
    if (rc == 0) {
      CHSRunSummary sum;
      CHSError_Clear(&err);
      rc = CHSRun(f, &ro, NULL, NULL, &sum, &err);
      FUZZ_CHECK(rc == 0 || err.msg[0] != '\0');
      if (rc == 0) {
        FUZZ_CHECK(sum.completed);
        FUZZ_CHECK(isfinite(sum.diag.energy_err_max) && isfinite(sum.diag.pos_res_max) &&
                   isfinite(sum.diag.mom_res_max));
      }
    }
    CHSFormulation_Destroy(&f);
    SUNContext_Free(&ctx);
  }
  CHSProblem_Destroy(&prob);
  return 0;
}
