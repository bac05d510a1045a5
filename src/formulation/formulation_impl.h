/* The formulation object and the fields two formulations share (total/extended, Dirac/FJ). Private
 * (not installed). */
#ifndef CHS_FORMULATION_IMPL_H
#define CHS_FORMULATION_IMPL_H

#include "linalg/linalg.h"
#include "model/system.h"

/* The total Hamiltonian's field (formulations/total.c); with extended = 1 the extended
 * Hamiltonian's, which adds the gradient of -psi^T Q^{-1} psi (its Gdot products share the
 * total field's evaluations). Workspace installed by chs_total_init as the formulation's private
 * data. */
typedef struct {
  sunrealtype *Gd2;                             /* scratch Gdot evaluations (gsize) */
  sunrealtype *a, *b, *c, *acc, *Gtw, *gvw, *e; /* length n */
  sunrealtype *x;                               /* M(q): CHS_TOTAL_GENERAL_N more of length n */
} chs_total_ws;
#define CHS_TOTAL_GENERAL_N (6 + CHS_MASS_GRAD_DIR_LEVELS)
int chs_total_init(CHSFormulation f, CHSParams params, CHSError *err);
void chs_total_free(CHSFormulation f);
int chs_total_field(CHSFormulation f, const sunrealtype *y, sunrealtype *ydot, int extended);

/* The Hamilton-Dirac field (formulations/dirac.c), shared with the Faddeev-Jackiw system; w and z
 * (may be NULL) receive w = Q^{-1} psi and z = lambda - Q^{-1} S w (scratch of the system). */
int chs_dirac_field(CHSFormulation f, const sunrealtype *y, sunrealtype *ydot, sunrealtype **w,
                    sunrealtype **z);
/* The Dirac field as its equations read (formulations/dirac.c), without chs_dirac_field's faster
 * paths: the reference the tests hold them to. */
int chs_dirac_field_plain(CHSFormulation f, const sunrealtype *y, sunrealtype *ydot);

/* ------------------------------------------------------------------ formulation */
struct CHSFormulation_ {
  const CHSFormulationOps *ops;
  CHSProblem prob;
  SUNContext sunctx;
  CHSSystem sys;
  sunindextype size;
  void *priv;
  long n_rhs;
  long n_recharts;
  CHSProjector projector; /* attached by CHSProjector_Create, or NULL */
  CHSError failure;
  CHSJacWork *jac;         /* Jacobian workspace of the integrator using it, or NULL */
  struct CHSPrecond *prec; /* Krylov preconditioner of the CVODE using it (owned there), or NULL */
  struct { /* the IDA whose error weights it gives (CHSFormulation_IDASetTolerances) */
    void *ida;
    sunrealtype rtol, atol;
  } idaw;
  struct chs_mult_ws *mult; /* CHSFormulation_GetMultipliers' own system, made at its first call */
};
/* Frees the workspace of CHSFormulation_GetMultipliers (src/formulation/multipliers.c); NULL
 * allowed. */
void chs_mult_free(struct chs_mult_ws **w);
/* CHSFormulation_GetMultipliers, and (v != NULL) the velocities v = M(q)^{-1} p of the state. */
int chs_mult_eval(CHSFormulation f, sunrealtype t, N_Vector y, sunrealtype *lambda,
                  sunrealtype *reaction, sunrealtype *v, CHSError *err);

#endif
