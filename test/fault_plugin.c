/* Deliberately faulty plugins for the loader's and the run's error paths: one source, one shared
 * object per fault (test/CMakeLists.txt builds libchs_fault_<kind>.so with -DFAULT_<kind>; the
 * table in test/fault_plugin_test.sh runs `chs run --problem` on each). Without a FAULT_ macro it
 * is a sound plugin: the planar pendulum of unit length, mass and gravity,
 *
 *   H = |p|^2 / 2 + y,   g = 1/2 (x^2 + y^2 - 1),
 *
 * started at the bottom with p = (1.5, 0) (it swings up past the horizontal, x > 0.5 after about
 * t = 0.4: the "mid-run" faults switch on there).
 *
 * Faults:
 *   missing_symbol    no chs_problem_entry
 *   wrong_abi         a table of ABI version CHS_PROBLEM_ABI_VERSION + 100
 *   null_callbacks    required callbacks NULL
 *   v1_null_callbacks as null_callbacks, an ABI-1 plugin answering only version 1
 *   data_entry        chs_problem_entry is a data object, not a function
 *   entry_null        chs_problem_entry returns NULL for every version
 *   create_pos        create returns +1 with its own message
 *   create_neg        create returns -1 with its own message
 *   create_silent     create returns -77 and sets no message
 *   initial_error     initial_state returns 5
 *   nan_initial       initial_state gives a NaN
 *   nan_potential     V = NaN at the start
 *   nan_force         F = NaN at the start
 *   nan_midrun        F = NaN once x > 0.5
 *   huge              V = 1e308 y, F = (0, -1e308): finite values whose products overflow
 *   inconsistent      initial state off the constraint (x^2 + y^2 = 1.21)
 *   singular_start    g = (x - 1)^3 at x = 1: consistent, but G = 0
 *   singular_midrun   G = 0 once x > 0.5
 *   force_error_midrun     force returns -1 (fatal) once x > 0.5
 *   jacobian_error_midrun  jacobian returns -1 (fatal) once x > 0.5
 *   gdot_sign         Gdot(q, u) with the wrong sign: runs to the end, wrong (the probe and the
 *                     watch of `chs run` warn) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <chs/problem.h>

/* bad_plugin.c (the older four-build test) maps its numbers onto these faults */
#if defined(BAD_PLUGIN)
#if BAD_PLUGIN == 1
#define FAULT_missing_symbol
#elif BAD_PLUGIN == 2
#define FAULT_wrong_abi
#elif BAD_PLUGIN == 3
#define FAULT_null_callbacks
#elif BAD_PLUGIN == 4
#define FAULT_v1_null_callbacks
#endif
#endif

#if defined(FAULT_missing_symbol)
int chs_not_the_entry(void);
int chs_not_the_entry(void) {
  return 0;
}
#else

/* the callbacks are not referenced by the variants that leave them out of the table */
#if defined(__GNUC__)
#define FAULT_CB static __attribute__((unused))
#else
#define FAULT_CB static
#endif

typedef struct {
  double x0, y0, px0, py0;
} pend;

FAULT_CB int pend_create(CHSParams kv, void **data, CHSProblemDims *d, CHSError *err) {
  (void)kv;
  pend *P = calloc(1, sizeof *P);
  if (!P) {
    return CHS_ERR_MEM;
  }
  *data = P;
  P->y0 = -1;
  P->px0 = 1.5;
#if defined(FAULT_inconsistent)
  P->y0 = -1.1;
#elif defined(FAULT_singular_start)
  P->x0 = 1;
  P->y0 = 0;
  P->px0 = 0;
  P->py0 = 1;
#endif
  d->n = 2;
  d->m = 1;
  d->mass_kind = CHS_MASS_IDENTITY;
  d->mass = NULL;
  d->jac_kind = CHS_JAC_DENSE;
#if defined(FAULT_create_pos)
  snprintf(err->msg, sizeof err->msg, "fault: create refuses these parameters (+1)");
  return 1;
#elif defined(FAULT_create_neg)
  err->code = -1;
  snprintf(err->msg, sizeof err->msg, "fault: create fails fatally (-1)");
  return -1;
#elif defined(FAULT_create_silent)
  return -77;
#else
  (void)err;
  return 0;
#endif
}

FAULT_CB void pend_destroy(void *data) {
  free(data);
}

FAULT_CB int pend_potential(void *data, const double *q, double *V) {
  (void)data;
#if defined(FAULT_nan_potential)
  *V = NAN;
#elif defined(FAULT_huge)
  *V = 1e308 * q[1];
#else
  *V = q[1];
#endif
  return 0;
}

FAULT_CB int pend_force(void *data, const double *q, double *F) {
  (void)data;
  (void)q;
  F[0] = 0;
  F[1] = -1;
#if defined(FAULT_nan_force)
  F[1] = NAN;
#elif defined(FAULT_nan_midrun)
  if (q[0] > 0.5) {
    F[0] = NAN;
  }
#elif defined(FAULT_huge)
  F[1] = -1e308;
#elif defined(FAULT_force_error_midrun)
  if (q[0] > 0.5) {
    return -1;
  }
#endif
  return 0;
}

FAULT_CB int pend_constraint(void *data, const double *q, double *g) {
  (void)data;
#if defined(FAULT_singular_start)
  g[0] = (q[0] - 1) * (q[0] - 1) * (q[0] - 1);
#else
  g[0] = 0.5 * (q[0] * q[0] + q[1] * q[1] - 1);
#endif
  return 0;
}

FAULT_CB int pend_jacobian(void *data, const double *q, double *G) {
  (void)data;
#if defined(FAULT_singular_start)
  G[0] = 3 * (q[0] - 1) * (q[0] - 1);
  G[1] = 0;
#else
  G[0] = q[0];
  G[1] = q[1];
#if defined(FAULT_singular_midrun)
  if (q[0] > 0.5) {
    G[0] = G[1] = 0;
  }
#elif defined(FAULT_jacobian_error_midrun)
  if (q[0] > 0.5) {
    return -1;
  }
#endif
#endif
  return 0;
}

FAULT_CB int pend_jacobian_dot(void *data, const double *q, const double *u, double *Gd) {
  (void)data;
#if defined(FAULT_singular_start)
  Gd[0] = 6 * (q[0] - 1) * u[0];
  Gd[1] = 0;
#else
  (void)q;
  Gd[0] = u[0];
  Gd[1] = u[1];
#if defined(FAULT_singular_midrun)
  if (q[0] > 0.5) {
    Gd[0] = Gd[1] = 0;
  }
#endif
#if defined(FAULT_gdot_sign)
  Gd[0] = -u[0];
  Gd[1] = -u[1];
#endif
#endif
  return 0;
}

FAULT_CB int pend_initial(void *data, double *q, double *p) {
  const pend *P = data;
  q[0] = P->x0;
  q[1] = P->y0;
  p[0] = P->px0;
  p[1] = P->py0;
#if defined(FAULT_initial_error)
  return 5;
#elif defined(FAULT_nan_initial)
  q[1] = NAN;
#endif
  return 0;
}

#if defined(FAULT_data_entry)
/* a data object under the entry point's name: calling it would jump into data */
const CHSProblemOps chs_problem_entry = {.abi_version = CHS_PROBLEM_ABI_VERSION, .name = "data"};
#else
static const CHSProblemOps fault_ops = {
#if defined(FAULT_wrong_abi)
    .abi_version = CHS_PROBLEM_ABI_VERSION + 100,
#elif defined(FAULT_v1_null_callbacks)
    .abi_version = 1,
#else
    .abi_version = CHS_PROBLEM_ABI_VERSION,
#endif
    .name = "fault",
    .summary = "planar pendulum with an injected fault (test)",
    .params_doc = "",
#if !defined(FAULT_null_callbacks) && !defined(FAULT_v1_null_callbacks)
    .create = pend_create,
    .destroy = pend_destroy,
    .potential = pend_potential,
    .force = pend_force,
    .constraint = pend_constraint,
    .jacobian = pend_jacobian,
    .jacobian_dot = pend_jacobian_dot,
    .initial_state = pend_initial,
#endif
};

const CHSProblemOps *chs_problem_entry(int abi_version);
const CHSProblemOps *chs_problem_entry(int abi_version) {
#if defined(FAULT_entry_null)
  (void)abi_version;
  return NULL;
#elif defined(FAULT_v1_null_callbacks)
  return abi_version == 1 ? &fault_ops : NULL;
#else
  (void)abi_version;
  return &fault_ops;
#endif
}
#endif
#endif
