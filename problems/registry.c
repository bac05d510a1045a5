/* Registry of built-in problems, expanded from list.h. */
#include <string.h>
#include "../src/impl.h"

#define CHS_PROBLEM(sym) extern const CHSProblemOps sym;
#include "list.h"
#undef CHS_PROBLEM

static const CHSProblemOps *const chs_problems[] = {
#define CHS_PROBLEM(sym) &sym,
#include "list.h"
#undef CHS_PROBLEM
};

CHS_DEFINE_REGISTRY(CHSProblemOps, CHSProblemRegistry, chs_problems, name)
