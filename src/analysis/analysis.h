/* Checks of declared problem structure (for `chs check`). Private (not installed). */
#ifndef CHS_ANALYSIS_H
#define CHS_ANALYSIS_H

#include "base/base.h"

/* The declared bond-chain structure (CHS_DECLARE_BOND_CHAIN, chs/problem.h) against the problem's
 * callbacks at q and at a second point (src/analysis/check_chain.c, for `chs check`): its
 * dimensions and mass, G's pattern and values (-d_h, d_h), g = 1/2 |d_h|^2 + const. 1 when it holds
 * (or is not declared), 0 when not, CHS_ERR_MEM; detail says what (or what was checked). */
int chs_check_bond_chain(CHSProblem prob, const sunrealtype *q, char *detail, size_t len);

#endif
