/* libFuzzer harness: the "name:k=v,..." specs of problems, formulations and methods.
 *
 * Input: PROBLEM \0 FORMULATION \0 METHOD [\0 FLAGS]. The problem spec goes through
 * CHSProblem_Create (CHSSpec_Split, CHSParams_Parse, the problem's CHSParams_Get* calls, the
 * consistency check), the formulation spec through CHSFormulation_Create, the method spec through
 * CHSRun with tf = t0 (the integrator is created, its options parsed, no step taken). The whole
 * input is also parsed as one parameter list and read back with every getter. Properties: no
 * crash, no leak, no sanitizer report; a failure sets a message. */
#include <stdint.h>
#include <stdio.h>
#include "chs/chs.h"
#include "../../src/compat.h"
#include "fuzz_common.h"

#define FUZZ_CHECK(cond)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "fuzz_spec: property violated: %s (%s:%d)\n", #cond, __FILE__, __LINE__);    \
      abort();                                                                                     \
    }                                                                                              \
  } while (0)

static void fuzz_params(const char *text) {
  CHSParams p = NULL;
  CHSError err;
  CHSError_Clear(&err);
  if (CHSParams_Parse(text, &p, &err) != 0) {
    FUZZ_CHECK(p == NULL && err.msg[0] != '\0');
    return;
  }
  static const char *const choices[] = {"natural", "modified", "dense", NULL};
  sunrealtype x = 0;
  long k = 0;
  int idx = 0;
  static const char *const keys[] = {"length", "N", "a", "x", "tol", "ls", "alpha", ""};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    CHSError_Clear(&err);
    if (CHSParams_GetReal(p, keys[i], 1.5, &x, &err) == 0) {
      FUZZ_CHECK(x == x); /* never NaN */
    }
    CHSParams_GetRealMin(p, keys[i], 1, 0, (int)i & 1, &x, &err);
    if (CHSParams_GetInt(p, keys[i], 3, -5, 1000, &k, &err) == 0) {
      FUZZ_CHECK(k >= -5 && k <= 1000);
    }
    CHSParams_GetChoice(p, keys[i], choices, 0, &idx, &err);
    FUZZ_CHECK(idx >= 0 && idx <= 2);
    (void)CHSParams_Has(p, keys[i]);
  }
  CHSError_Clear(&err);
  (void)CHSParams_CheckAllUsed(p, "fuzz", &err);
  CHSParams_Destroy(&p);
  FUZZ_CHECK(p == NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 4096) {
    return 0;
  }
  char *buf = fuzz_strndup(data, size);
  if (!buf) {
    return 0;
  }
  fuzz_params(buf);
  /* split at NUL bytes */
  const char *part[4] = {"pendulum", "dirac", "erk:rk4", ""};
  size_t at = 0;
  for (int i = 0; i < 4 && at <= size; i++) {
    part[i] = buf + at;
    at += strlen(buf + at) + 1;
  }
  const char *pspec = part[0], *fspec = part[1], *mspec = part[2];
  unsigned flags = (unsigned char)part[3][0];
  if (fuzz_is_plugin_spec(pspec) || fuzz_too_large(pspec, 64)) {
    free(buf);
    return 0;
  }
  char name[64];
  const char *params = NULL;
  CHSError err;
  CHSError_Clear(&err);
  if (CHSSpec_Split(mspec, name, sizeof name, &params, &err) == 0) {
    FUZZ_CHECK(strlen(name) < sizeof name && params != NULL);
  }
  CHSProblem prob = NULL;
  CHSError_Clear(&err);
  int rc = CHSProblem_Create(pspec, &prob, &err);
  FUZZ_CHECK((rc == 0) == (prob != NULL));
  FUZZ_CHECK(rc == 0 || err.msg[0] != '\0');
  SUNContext ctx = NULL;
  if (rc == 0 && chs_context_create(&ctx) == 0) {
    chs_context_silence(ctx);
    CHSFormulation f = NULL;
    CHSError_Clear(&err);
    rc = CHSFormulation_Create(fspec, prob, ctx, &f, &err);
    FUZZ_CHECK(rc == 0 || err.msg[0] != '\0');
    if (rc == 0) {
      CHSRunOptions ro;
      CHSRunOptions_Default(&ro);
      ro.method = mspec;
      ro.ctl.h = (flags & 1u) ? 0.1 : 0;
      ro.ctl.rtol = ro.ctl.atol = 1e-6;
      ro.ctl.max_steps = 10;
      ro.t0 = ro.tf = 0;
      ro.project = (int)((flags >> 1) & 3u); /* none, momentum, position, both */
      CHSRunSummary sum;
      CHSError_Clear(&err);
      rc = CHSRun(f, &ro, NULL, NULL, &sum, &err);
      FUZZ_CHECK(rc == 0 || err.msg[0] != '\0');
    }
    CHSFormulation_Destroy(&f);
    SUNContext_Free(&ctx);
  }
  CHSProblem_Destroy(&prob);
  free(buf);
  return 0;
}
