/** @file
 * Key=value parameter lists: "length=2,gravity=9.81". Values are validated when read: a value
 * that is not a finite number, out of range, or a key nobody read is an error naming the key. */
#ifndef CHS_PARAMS_H
#define CHS_PARAMS_H

#include "chs/export.h"

#include <sundials/sundials_types.h>
#include "chs/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A parsed key=value list that remembers which keys were read. */
typedef struct CHSParams_ *CHSParams;

/** Parse "k=v,k=v" (NULL or "" gives an empty list). Duplicate or empty keys are errors. */
CHS_EXPORT int CHSParams_Parse(const char *text, CHSParams *out, CHSError *err);
/** Free the list and set *params to NULL; NULL allowed. */
CHS_EXPORT void CHSParams_Destroy(CHSParams *params);

/** Read a real; *value keeps def when the key is absent. Rejects non-numbers, NaN and Inf. */
CHS_EXPORT int CHSParams_GetReal(CHSParams params, const char *key, sunrealtype def,
                                 sunrealtype *value, CHSError *err);
/** As GetReal, with lo < value (strict) when lo_strict, else lo <= value. */
CHS_EXPORT int CHSParams_GetRealMin(CHSParams params, const char *key, sunrealtype def,
                                    sunrealtype lo, int lo_strict, sunrealtype *value,
                                    CHSError *err);
/** Read an integer in [lo, hi]; *value keeps def when the key is absent. */
CHS_EXPORT int CHSParams_GetInt(CHSParams params, const char *key, long def, long lo, long hi,
                                long *value, CHSError *err);
/** A value from a NULL-terminated list of names; *index keeps def when the key is absent. */
CHS_EXPORT int CHSParams_GetChoice(CHSParams params, const char *key, const char *const *choices,
                                   int def, int *index, CHSError *err);
/** 1 when the key was given. */
CHS_EXPORT int CHSParams_Has(CHSParams params, const char *key);
/** Error naming the first key that no Get call read (context names the owner, e.g. "pendulum"). */
CHS_EXPORT int CHSParams_CheckAllUsed(CHSParams params, const char *context, CHSError *err);

/** Split "name:params" at the first ':' into name (copied to buf of size len) and params. */
CHS_EXPORT int CHSSpec_Split(const char *spec, char *name, size_t len, const char **params,
                             CHSError *err);

#ifdef __cplusplus
}
#endif
#endif
