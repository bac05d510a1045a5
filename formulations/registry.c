/* Registry of built-in formulations, expanded from list.h. */
#include <string.h>
#include "../src/impl.h"

#define CHS_FORMULATION(sym) extern const CHSFormulationOps sym;
#include "list.h"
#undef CHS_FORMULATION

static const CHSFormulationOps *const chs_formulations[] = {
#define CHS_FORMULATION(sym) &sym,
#include "list.h"
#undef CHS_FORMULATION
};

CHS_DEFINE_REGISTRY(CHSFormulationOps, CHSFormulationRegistry, chs_formulations, name)
