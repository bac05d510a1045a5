/** @file
 * chs: constrained Hamiltonian systems on SUNDIALS. Umbrella header. */
#ifndef CHS_H
#define CHS_H

#include "chs/export.h"

#include "chs/version.h"
#include "chs/error.h"
#include "chs/params.h"
#include "chs/problem.h"
#include "chs/consistent.h"
#include "chs/formulation.h"
#include "chs/integrator.h"
#include "chs/diagnostics.h"
#include "chs/projection.h"
#include "chs/run.h"
#include "chs/wedge.h"
#include "chs/first_order.h"
#include "chs/check.h"
#include "chs/sundials.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The SUNDIALS version chs runs on, read from the library (not the headers), into buf. */
CHS_EXPORT int CHS_SundialsVersion(char *buf, int len);

#ifdef __cplusplus
}
#endif
#endif
