/* A chain of SUNDIALS set-up calls: each call runs only while every earlier one returned 0, and
 * the first that fails is named in the error, so that a user reads which call refused what
 * instead of a bare flag. The name is the SUNDIALS function's after the version macros of
 * compat.h are expanded (chs_erk_sstolerances reads as ARKodeSStolerances on SUNDIALS 7). */
#ifndef CHS_SETUP_H
#define CHS_SETUP_H

#include "impl.h"

typedef struct {
  int flag;         /* the first nonzero return, or 0 */
  const char *call; /* the function that returned it */
  int null;         /* it was a create call that returned NULL */
} chs_setup;

#define CHS_SETUP_NAME_(fn) #fn
#define CHS_SETUP_NAME(fn) CHS_SETUP_NAME_(fn)
/* s->flag = fn(args...) unless an earlier call failed; true while the chain holds. */
#define CHS_SETUP(s, fn, ...)                                                                      \
  ((s)->flag == 0 && ((s)->flag = fn(__VA_ARGS__)) != 0 ? ((s)->call = CHS_SETUP_NAME(fn), 0)      \
                                                        : (s)->flag == 0)
/* A create call returned ptr: the chain fails naming fn when ptr is NULL. */
#define CHS_SETUP_CREATED(s, ptr, fn)                                                              \
  ((s)->flag == 0 && !(ptr) ? ((s)->flag = -1, (s)->null = 1, (s)->call = CHS_SETUP_NAME(fn), 0)   \
                            : (s)->flag == 0)

/* CHS_ERR_SOLVER: "<solver> set-up failed for <method>: <call> returned <flag>" (or "out of
 * memory" for a NULL from a create call). */
int chs_setup_error(const chs_setup *s, const char *solver, const char *method, CHSError *err);

#endif
