/* chs run --fix SPEC: the components held exactly while the initial state is made consistent
 * (chs/consistent.h). */
#ifndef CHS_DRIVERS_FIX_H
#define CHS_DRIVERS_FIX_H

#include "chs/chs.h"

/* SPEC is a comma-separated list of ITEM[=VALUE]; ITEM is q:C or v:C (C a coordinate name of the
 * problem, its default name qK, or a 1-based index K) or the short qK / vK. VALUE (a finite
 * real) replaces the component of the initial guess before it is held. Parses SPEC against prob,
 * makes the initial state consistent from the problem's initial guess holding the named
 * components and sets it as prob's initial state (CHSProblem_SetInitialState). 0, or a CHS_ERR_*
 * code with err naming the item: CHS_ERR_ARG for a malformed item or components that admit no
 * consistent state, CHS_ERR_NOTFOUND for an unknown name (the message lists the valid ones). */
int cli_fix_apply(const char *spec, CHSProblem prob, CHSError *err);

#endif
