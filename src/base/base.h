/* Errors, registries, the checks every layer shares and the wall clock. Private (not installed). */
#ifndef CHS_BASE_H
#define CHS_BASE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "chs/chs.h"

/* ------------------------------------------------------------------ errors */
int chs_error_set(CHSError *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
int chs_error_vset(CHSError *err, int code, const char *fmt, va_list ap);

/* Return early with the code when a call fails. */
#define CHS_CALL(expr)                                                                             \
  do {                                                                                             \
    int chs_call_rc_ = (expr);                                                                     \
    if (chs_call_rc_ != 0) {                                                                       \
      return chs_call_rc_;                                                                         \
    }                                                                                              \
  } while (0)

/* Installs chs's optimised element-wise operations and norms (src/base/nvector.c: bitwise what
 * SUNDIALS' serial vector computes) in v's ops table when v is a serial vector; its clones
 * inherit them. */
void chs_nvector_fast_ops(N_Vector v);

int chs_all_finite(const sunrealtype *x, sunindextype n);
sunrealtype chs_norm2(const sunrealtype *x, sunindextype n);
/* Richardson extrapolation of central differences in place: rows l = 0 .. levels-1 of R (length
 * N each) hold D(eps0 2^-l); afterwards the last row holds the value with the eps^2 .. eps^(2
 * (levels-1)) terms eliminated. */
static inline void chs_richardson_central(sunrealtype *R, int levels, sunindextype N) {
  sunrealtype f = 1;
  for (int k = 1; k < levels; k++) { /* after pass k, rows l >= k have eps^2 .. eps^(2k) gone */
    f *= 4;
    for (int l = levels - 1; l >= k; l--) {
      for (sunindextype i = 0; i < N; i++) {
        R[l * N + i] += (R[l * N + i] - R[(l - 1) * N + i]) / (f - 1);
      }
    }
  }
}

/* ------------------------------------------------------------------ registries
 * Defines Prefix_Count/_Get/_Find over a static table of `const Type *` whose items have a
 * `key` member naming them. */
#define CHS_DEFINE_REGISTRY(Type, Prefix, table, key)                                              \
  int Prefix##_Count(void) {                                                                       \
    return (int)(sizeof table / sizeof table[0]);                                                  \
  }                                                                                                \
  const Type *Prefix##_Get(int i) {                                                                \
    return i >= 0 && i < Prefix##_Count() ? table[i] : NULL;                                       \
  }                                                                                                \
  const Type *Prefix##_Find(const char *name) {                                                    \
    for (int i = 0; name && i < Prefix##_Count(); i++) {                                           \
      if (strcmp(table[i]->key, name) == 0) {                                                      \
        return table[i];                                                                           \
      }                                                                                            \
    }                                                                                              \
    return NULL;                                                                                   \
  }

/* ------------------------------------------------------------------ shared checks and clocks */

/* A required callback of an ops table (src/model/problem.c): code with "<kind> '<name>': required
 * callback '<what>' is NULL" at the first NULL fn of req[0 .. n-1], else CHS_SUCCESS. */
typedef struct {
  const void *fn;
  const char *what;
} chs_required;
int chs_check_required(const chs_required *req, size_t n, int code, const char *kind,
                       const char *name, CHSError *err);
/* t0, tf, h, rtol, atol of run options (src/run/run.c): CHS_ERR_ARG naming the bad value. */
int chs_check_time_step(const CHSRunOptions *o, CHSError *err);
/* CHS_ERR_ARG unless o->subnormals is CHS_SUBNORMALS_FLUSH or _KEEP (CHSRun, CHSMPI_Run). */
int chs_check_subnormals(const CHSRunOptions *o, CHSError *err);
/* CHS_ERR_SOLVER: steps (the --max-steps limit) reached only t of tf (src/run/run.c). */
int chs_too_much_work(CHSError *err, long steps, sunrealtype t, sunrealtype tf);
/* Monotonic wall-clock time in seconds (src/run/run.c). */
double chs_wall_time(void);

#endif
