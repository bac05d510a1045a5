/** @file
 * chs error codes and messages.
 *
 * Every chs function returns an int: 0 on success, a negative CHS_ERR_* code on failure. Callbacks
 * handed to SUNDIALS follow the SUNDIALS convention instead: 0 success, > 0 recoverable (the
 * integrator retries with a smaller step), < 0 fatal. Functions that can fail take an optional
 * CHSError* (NULL allowed) that receives the code and a message naming the function and value. */
#ifndef CHS_ERROR_H
#define CHS_ERROR_H

#include "chs/export.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CHS_SUCCESS 0     /**< success */
#define CHS_RECOVERABLE 1 /**< SUNDIALS-style recoverable failure from a callback */

/** @name Input errors (drivers exit with status 2)
 * @{ */
#define CHS_ERR_ARG (-1)          /**< bad argument or parameter value */
#define CHS_ERR_NOTFOUND (-2)     /**< unknown problem, formulation, method, key */
#define CHS_ERR_INCONSISTENT (-3) /**< initial state violates the constraints */
#define CHS_ERR_PLUGIN (-4)       /**< plugin cannot be loaded or is invalid */
#define CHS_ERR_UNSUPPORTED (-5)  /**< combination not supported */
/** @} */
/** @name Numerical failures (drivers exit with status 3)
 * @{ */
#define CHS_ERR_SINGULAR (-10)  /**< singular Gram matrix / constraint Jacobian */
#define CHS_ERR_NONFINITE (-11) /**< NaN or Inf produced */
#define CHS_ERR_SOLVER (-12)    /**< SUNDIALS integrator or solver failure */
#define CHS_ERR_CALLBACK (-13)  /**< a problem callback reported failure */
/** @} */
/** @name System errors
 * @{ */
#define CHS_ERR_MEM (-20) /**< allocation failure */
#define CHS_ERR_IO (-21)  /**< file could not be written */
/** @} */

#define CHS_ERROR_MSG_LEN 512 /**< size of CHSError.msg, terminating NUL included */

/** A failure's code and message, filled by the function that failed. */
typedef struct CHSError {
  int code;                    /**< CHS_SUCCESS or a CHS_ERR_* code */
  char msg[CHS_ERROR_MSG_LEN]; /**< message naming the function and value (empty on success) */
} CHSError;

/** Short name of a code ("CHS_ERR_SINGULAR"). */
CHS_EXPORT const char *CHSError_Name(int code);
/** 1 for codes caused by user input (exit status 2), 0 otherwise. */
CHS_EXPORT int CHSError_IsInput(int code);
/** Reset to CHS_SUCCESS with an empty message; NULL allowed. */
CHS_EXPORT void CHSError_Clear(CHSError *err);

#ifdef __cplusplus
}
#endif
#endif
