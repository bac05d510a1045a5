/* Shared by the integrator families: error capture, stop times, tables, projector control. Private
 * (not installed). */
#ifndef CHS_INTEGRATE_H
#define CHS_INTEGRATE_H

#include <arkode/arkode_butcher.h>
#include "base/base.h"
#include "chs/projection.h"

/* ------------------------------------------------------------------ integrator adapters
 * Shared by src/integrate/ files: the SUNDIALS 6 error handler that stores ARKODE's message in a
 * char[CHS_ARKODE_MSG_LEN] buffer (data), and the message of a failed evolve (returns
 * CHS_ERR_SOLVER): "<who> failed at t = ... with <flag name>: <formulation's or ARKODE's why>". */
#define CHS_ARKODE_MSG_LEN 256
void chs_arkode_capture_error(int code, const char *module, const char *function, char *msg,
                              void *data);
int chs_arkode_failure(CHSError *err, const char *who, char *flag_name, sunrealtype t,
                       CHSFormulation f, const char *arkode_msg);
/* The stop time of the next step h (chosen by the error test) at t towards tout: tout, or the
 * midpoint of [t, tout] when h < |tout - t| < (1 + window) |h| (src/integrate/integrator.c: why).
 */
sunrealtype chs_split_stop(sunrealtype t, sunrealtype h, sunrealtype tout, sunrealtype window);

/* The Butcher table of an erk method option ("rk4", "dp5", "VERNER_8_5_6", ...) of
 * src/integrate/erk.c (caller frees it); *embedded = 1 when it has an embedding (adaptive steps).
 * NULL with err set (CHS_ERR_ARG, CHS_ERR_NOTFOUND) for an unknown name. */
ARKodeButcherTable chs_erk_table(const char *opt, int *embedded, CHSError *err);

/* The SPRK tables of src/integrate/sprk.c (the coefficients live there only): the i-th table's
 * ARKODE name, order, stages and coefficients a, ahat (s each); CHS_ERR_NOTFOUND past the end. */
int chs_sprk_table_count(void);
int chs_sprk_table_get(int i, const char **name, int *order, int *stages, const sunrealtype **a,
                       const sunrealtype **ahat);

/* Called by CHSFormulation_Destroy: the projector outlives nothing it points to. */
void chs_projector_detach(CHSProjector proj);
/* Project y now, whatever the every-k counter of CHSProjector_Apply says (stage projection
 * decides per step itself); its every-k; suspend (1) or resume (0) all projections. */
int chs_projector_now(CHSProjector proj, N_Vector y);
long chs_projector_every(CHSProjector proj);
void chs_projector_suspend(CHSProjector proj, int on);

#endif
