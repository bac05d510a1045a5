/* The problem instance: its layout, the ops table sizes of each ABI, names and sizes. Private (not
 * installed). */
#ifndef CHS_MODEL_PROBLEM_IMPL_H
#define CHS_MODEL_PROBLEM_IMPL_H

#include "base/base.h"

/* ------------------------------------------------------------------ problem */
struct CHSProblem_ {
  const CHSProblemOps *ops;
  void *data;
  CHSProblemDims dims;
  void *plugin;            /* dlopen handle of a plugin problem, or NULL */
  CHSProblemOps ops_store; /* a version-1 table widened to the current layout (ops points here) */
  int n_invariants;        /* number of ops->invariant_names */
  sunrealtype time;        /* the time last passed to ops->set_time (time-dependent problems) */
  sunrealtype *init_qp;    /* CHSProblem_SetInitialState's (q, p), 2n; NULL: ops->initial_state */
};
/* The initial state formulations start from: CHSProblem_SetInitialState's, else the problem's
 * initial_state (its return code). */
int chs_problem_initial_state(CHSProblem prob, sunrealtype *q, sunrealtype *p);

/* Bytes of a version-k CHSProblemOps: the fields before the first one version k + 1
 * appended. */
#define CHS_PROBLEM_OPS_V1_SIZE offsetof(CHSProblemOps, nonconservative_force)
#define CHS_PROBLEM_OPS_V2_SIZE offsetof(CHSProblemOps, mass_matrix)
#define CHS_PROBLEM_OPS_V3_SIZE offsetof(CHSProblemOps, hessian_sparse)
#define CHS_PROBLEM_OPS_V4_SIZE offsetof(CHSProblemOps, force_local)
#define CHS_PROBLEM_OPS_V5_SIZE offsetof(CHSProblemOps, force_atoms)
#define CHS_PROBLEM_OPS_V6_SIZE offsetof(CHSProblemOps, mass_grad_dir)
#define CHS_PROBLEM_OPS_V7_SIZE offsetof(CHSProblemOps, initial_guess)

/* Plugins (problems/plugin.c). */
int chs_is_plugin_spec(const char *name);
int chs_plugin_load(const char *path, const CHSProblemOps **ops, void **handle, CHSError *err);
void chs_plugin_close(void *handle);
/* Size check of a problem with N units (atoms, links) needing about bytes_per_unit each for the
 * instance and a formulation's state (src/model/problem.c): CHS_ERR_ARG naming N when that exceeds
 * the machine's physical memory. */
int chs_problem_check_size(const char *name, long N, double bytes_per_unit, const char *unit,
                           CHSError *err);

/* Names of a problem's coordinates and constraints (chs/problem.h, ABI 8). chs_name_label
 * writes the declared name of entry i of names (NULL: none declared) into buf, or the fallback
 * `fallback` followed by i + 1 (q3, g2), and returns buf. chs_names_indexed allocates count names
 * cycling through the nprefix prefixes, the index advancing once per cycle from first (prefixes
 * {"x", "y"}, first 1: x1, y1, x2, y2, ...): one block, freed with free(), NULL when out of
 * memory; the chains name their per-instance coordinates and bonds with it. */
#define CHS_NAME_MAX 31
/* The names of a table of count entries (NULL: none declared) of problem pname's field
 * ("coordinate_names", "constraint_names"): each 1..CHS_NAME_MAX characters of [A-Za-z0-9_], not a
 * reserved output key, no two equal; CHS_ERR_ARG naming the first that is not
 * (src/model/problem_names.c). */
int chs_check_name_table(const char *pname, const char *const *names, sunindextype count,
                         const char *field, CHSError *err);
/* The callbacks of a table chs did not compile probed once on padded arrays against the declared
 * n and m (src/model/problem_dims.c): CHS_ERR_ARG naming the callback that reads or writes past
 * them, or the coordinate that enters neither g nor V. */
int chs_check_callback_dims(CHSProblem prob, CHSError *err);
const char *chs_name_label(const char *const *names, sunindextype i, const char *fallback,
                           char *buf, size_t len);
const char **chs_names_indexed(sunindextype count, const char *const *prefixes, int nprefix,
                               long first);

#endif
