/* The derivatives a formulation or method needs from a problem, and what is missing. Private (not
 * installed). */
#ifndef CHS_MODEL_DERIVATIVES_H
#define CHS_MODEL_DERIVATIVES_H

#include "model/system.h"

/* ------------------------------------------------------------------ derivatives a user needs
 * No silent zero defaults (src/model/derivatives.c): a formulation or method that needs
 * hessian_potential (CHS_NEED_HESSIAN) or constraint_third (CHS_NEED_THIRD) uses it, or zero when
 * the problem declares V at most linear / g at most quadratic (CHSProblemDims.declares), and
 * otherwise refuses the problem. chs_missing_derivative: NULL when nothing in need is missing, else
 * the missing callback's name; chs_require_derivatives: CHS_ERR_UNSUPPORTED naming it and who needs
 * it. chs_hessian_v: Hu = hess V(q) u from hessian_potential, zero when declared linear, else
 * central differences of the force (for Newton matrices only: never where exactness is claimed);
 * 0, CHS_RECOVERABLE (callback out of its domain) or CHS_ERR_CALLBACK / CHS_ERR_MEM. */
#define CHS_NEED_HESSIAN 0x1u
#define CHS_NEED_THIRD 0x2u
const char *chs_missing_derivative(CHSProblem prob, unsigned need);
int chs_require_derivatives(CHSProblem prob, unsigned need, const char *who, CHSError *err);
int chs_hessian_v(const CHSSystem *s, const sunrealtype *q, const sunrealtype *u, sunrealtype *Hu);
#endif
