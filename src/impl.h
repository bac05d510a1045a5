/* The library's private definitions, one header per concern (docs/architecture.md): included
 * whole by the formulations and the tests, which use most of them. Not installed. */
#ifndef CHS_IMPL_H
#define CHS_IMPL_H

#include "base/base.h"
#include "model/problem_impl.h"
#include "model/gram.h"
#include "model/system.h"
#include "integrate/integrate.h"
#include "model/derivatives.h"
#include "model/blocks.h"
#include "analysis/analysis.h"
#include "linalg/linalg.h"
#include "formulation/formulation_impl.h"
#include "model/kernels.h"

#endif
