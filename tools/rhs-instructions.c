/* Instructions per right-hand-side evaluation under callgrind (tools/rhs-instructions runs it):
 * for every problem x formulation given, EVALS evaluations of CHSFormulation_Rhs at the problem's
 * initial state after a warm-up, each case's costs dumped separately (CALLGRIND_DUMP_STATS_AT with
 * the label "problem/formulation"). Outside valgrind the client requests do nothing.
 *   rhs-instructions EVALS problem[,problem...] formulation[,formulation...] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <chs/chs.h>
#include <nvector/nvector_serial.h>
#include <valgrind/callgrind.h>

static int split(char *list, char **out, int max) {
  int k = 0;
  for (char *tok = strtok(list, ","); tok && k < max; tok = strtok(NULL, ",")) {
    out[k++] = tok;
  }
  return k;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s EVALS problem[,...] formulation[,...]\n", argv[0]);
    return 2;
  }
  long evals = atol(argv[1]);
  char *probs[64], *forms[64];
  int np = split(argv[2], probs, 64), nf = split(argv[3], forms, 64);
  SUNContext ctx = NULL;
#if SUNDIALS_VERSION_MAJOR >= 7
  if (SUNContext_Create(SUN_COMM_NULL, &ctx) != 0) {
#else
  if (SUNContext_Create(NULL, &ctx) != 0) {
#endif
    return 1;
  }
  int status = 0;
  for (int i = 0; i < np; i++) {
    CHSProblem prob = NULL;
    if (CHSProblem_Create(probs[i], &prob, NULL) != 0) {
      fprintf(stderr, "cannot create problem %s\n", probs[i]);
      status = 1;
      continue;
    }
    for (int j = 0; j < nf; j++) {
      CHSFormulation f = NULL;
      N_Vector y = NULL, yd = NULL;
      char label[256];
      snprintf(label, sizeof label, "%s/%s", probs[i], forms[j]);
      int crc = CHSFormulation_Create(forms[j], prob, ctx, &f, NULL);
      if (crc == CHS_ERR_UNSUPPORTED) {
        fprintf(stderr, "%s: the formulation refuses the problem\n", label);
      } else if (crc != 0 || CHSFormulation_NewInitialState(f, &y, NULL) != 0 ||
                 !(yd = N_VClone(y))) {
        fprintf(stderr, "cannot set up %s\n", label);
        status = 1;
      } else {
        int rc = 0;
        for (int e = 0; e < 10 && rc == 0; e++) { /* warm-up: first-call setup not counted */
          rc = CHSFormulation_Rhs(0, y, yd, f);
        }
        CALLGRIND_ZERO_STATS;
        for (long e = 0; e < evals && rc == 0; e++) {
          rc = CHSFormulation_Rhs(0, y, yd, f);
        }
        CALLGRIND_DUMP_STATS_AT(label);
        if (rc != 0) {
          fprintf(stderr, "%s: rhs failed (%d)\n", label, rc);
          status = 1;
        }
        /* the field at the initial state and off the constraint manifold (where w = Q^{-1} psi
         * and the Dirac field's S-term are not zero), to compare two versions */
        printf("%s", label);
        for (sunindextype k = 0; k < N_VGetLength(yd); k++) {
          printf(" %.17g", N_VGetArrayPointer(yd)[k]);
        }
        sunrealtype *yv = N_VGetArrayPointer(y);
        for (sunindextype k = 0; k < N_VGetLength(y); k++) {
          yv[k] += 0.01 * (1 + fabs(yv[k])) * sin(1.0 + (double)k);
        }
        if (rc == 0 && CHSFormulation_Rhs(0, y, yd, f) == 0) {
          for (sunindextype k = 0; k < N_VGetLength(yd); k++) {
            printf(" %.17g", N_VGetArrayPointer(yd)[k]);
          }
        }
        printf("\n");
      }
      if (yd) {
        N_VDestroy(yd);
      }
      if (y) {
        N_VDestroy(y);
      }
      CHSFormulation_Destroy(&f);
    }
    CHSProblem_Destroy(&prob);
  }
  SUNContext_Free(&ctx);
  return status;
}
