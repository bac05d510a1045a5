/* Registry of built-in first-order problems, expanded from list.h. */
#include <string.h>
#include "../../src/impl.h"

#define CHS_FIRST_ORDER(sym) extern const CHSFirstOrderOps sym;
#include "list.h"
#undef CHS_FIRST_ORDER

static const CHSFirstOrderOps *const chs_first_order_problems[] = {
#define CHS_FIRST_ORDER(sym) &sym,
#include "list.h"
#undef CHS_FIRST_ORDER
};

CHS_DEFINE_REGISTRY(CHSFirstOrderOps, CHSFirstOrderRegistry, chs_first_order_problems, name)
