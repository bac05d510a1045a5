/* Problem instances: validation of the ops table, dimensions and initial state. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "compat.h"
#include "impl.h"

static int chs_check_ops(const CHSProblemOps *ops, CHSError *err) {
  if (!ops) {
    return chs_error_set(err, CHS_ERR_ARG, "problem ops table is NULL");
  }
  if (ops->abi_version < CHS_PROBLEM_ABI_VERSION_MIN ||
      ops->abi_version > CHS_PROBLEM_ABI_VERSION) {
    return chs_error_set(err, CHS_ERR_PLUGIN,
                         "problem '%s' has ABI version %d, this chs expects %d to %d",
                         ops->name ? ops->name : "?", ops->abi_version, CHS_PROBLEM_ABI_VERSION_MIN,
                         CHS_PROBLEM_ABI_VERSION);
  }
  const chs_required req[] = {{(const void *)ops->name, "name"},
                              {(const void *)ops->create, "create"},
                              {(const void *)ops->destroy, "destroy"},
                              {(const void *)ops->potential, "potential"},
                              {(const void *)ops->force, "force"},
                              {(const void *)ops->constraint, "constraint"},
                              {(const void *)ops->jacobian, "jacobian"},
                              {(const void *)ops->jacobian_dot, "jacobian_dot"},
                              {(const void *)ops->initial_state, "initial_state"}};
  return chs_check_required(req, sizeof req / sizeof req[0], CHS_ERR_PLUGIN, "problem", ops->name,
                            err);
}

int chs_check_required(const chs_required *req, size_t n, int code, const char *kind,
                       const char *name, CHSError *err) {
  for (size_t i = 0; i < n; i++) {
    if (!req[i].fn) {
      return chs_error_set(err, code, "%s '%s': required callback '%s' is NULL", kind,
                           name ? name : "?", req[i].what);
    }
  }
  return CHS_SUCCESS;
}

/* The callbacks M(q) and explicit time dependence need (chs/problem.h, ABI 3), and M(q)'s CSR
 * pattern. */
static int chs_check_mass_time(const char *name, const CHSProblemOps *ops, const CHSProblemDims *d,
                               CHSError *err) {
  if ((int)d->mass_kind < CHS_MASS_IDENTITY || d->mass_kind > CHS_MASS_CONFIG) {
    return chs_error_set(err, CHS_ERR_ARG, "problem '%s': unknown mass_kind %d", name,
                         (int)d->mass_kind);
  }
  if (d->mass_kind == CHS_MASS_CONFIG) {
    const chs_required req[] = {{(const void *)ops->mass_matrix, "mass_matrix"},
                                {(const void *)ops->mass_dir, "mass_dir"},
                                {(const void *)ops->mass_grad, "mass_grad"}};
    CHS_CALL(chs_check_required(req, 3, CHS_ERR_PLUGIN, "problem (CHS_MASS_CONFIG)", name, err));
  }
  if (d->mass_kind == CHS_MASS_CONFIG && d->mass_nnz != 0) {
    const sunindextype *rp = d->mass_rowptr, *ci = d->mass_colind;
    if (d->mass_nnz < d->n || !rp || !ci || rp[0] != 0 || rp[d->n] != d->mass_nnz) {
      return chs_error_set(err, CHS_ERR_ARG, "problem '%s': invalid CSR pattern of M(q)", name);
    }
    for (sunindextype i = 0; i < d->n; i++) {
      int diag = 0;
      for (sunindextype k = rp[i]; k < rp[i + 1]; k++) {
        if (ci[k] < 0 || ci[k] >= d->n || (k > rp[i] && ci[k] <= ci[k - 1])) {
          return chs_error_set(err, CHS_ERR_ARG,
                               "problem '%s': CSR pattern of M(q): row %ld has column indices "
                               "out of range or not increasing",
                               name, (long)i);
        }
        diag |= ci[k] == i;
      }
      if (rp[i + 1] < rp[i] || !diag) {
        return chs_error_set(
            err, CHS_ERR_ARG, "problem '%s': CSR pattern of M(q): row %ld %s", name, (long)i,
            rp[i + 1] < rp[i] ? "has decreasing row pointers" : "lacks its diagonal entry");
      }
    }
  } else if (d->mass_nnz != 0) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "problem '%s': mass_nnz = %ld without mass_kind = CHS_MASS_CONFIG", name,
                         (long)d->mass_nnz);
  }
  unsigned all = CHS_TIME_CONSTRAINTS | CHS_TIME_POTENTIAL | CHS_TIME_FORCE;
  if (d->time_dependent & ~all) {
    return chs_error_set(err, CHS_ERR_ARG, "problem '%s': unknown time_dependent bits 0x%x", name,
                         d->time_dependent & ~all);
  }
  if (d->time_dependent) {
    const chs_required req[] = {
        {(const void *)ops->set_time, "set_time"},
        {(d->time_dependent & CHS_TIME_CONSTRAINTS) ? (const void *)ops->constraint_dt : "",
         "constraint_dt (CHS_TIME_CONSTRAINTS)"},
        {(d->time_dependent & CHS_TIME_POTENTIAL) ? (const void *)ops->potential_dt : "",
         "potential_dt (CHS_TIME_POTENTIAL)"}};
    CHS_CALL(chs_check_required(req, 3, CHS_ERR_PLUGIN, "time-dependent problem", name, err));
  }
  return CHS_SUCCESS;
}

static int chs_check_dims(const char *name, const CHSProblemOps *ops, const CHSProblemDims *d,
                          CHSError *err) {
  if (d->n <= 0 || d->m <= 0 || d->m >= d->n) {
    return chs_error_set(err, CHS_ERR_ARG, "problem '%s': need 0 < m < n, got n=%ld, m=%ld", name,
                         (long)d->n, (long)d->m);
  }
  CHS_CALL(chs_check_name_table(name, d->coordinate_names, d->n, "coordinate_names", err));
  CHS_CALL(chs_check_name_table(name, d->constraint_names, d->m, "constraint_names", err));
  CHS_CALL(chs_check_mass_time(name, ops, d, err));
  if (ops->force_local && (d->force_reach < 0 || d->force_reach >= d->n)) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "problem '%s': force_reach = %ld with force_local (need 0 <= reach < n)",
                         name, (long)d->force_reach);
  }
  if (ops->force_atoms && !(d->force_cutoff >= 0 && d->force_cutoff <= SUN_BIG_REAL)) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "problem '%s': force_cutoff = %g with force_atoms (need a finite value "
                         ">= 0)",
                         name, (double)d->force_cutoff);
  }
  if (d->jac_kind == CHS_JAC_CSR) {
    if (!d->rowptr || !d->colind || d->nnz <= 0 || d->rowptr[0] != 0 || d->rowptr[d->m] != d->nnz) {
      return chs_error_set(err, CHS_ERR_ARG, "problem '%s': invalid CSR pattern of G", name);
    }
    for (sunindextype i = 0; i < d->m; i++) {
      if (d->rowptr[i + 1] < d->rowptr[i]) {
        return chs_error_set(err, CHS_ERR_ARG, "problem '%s': CSR row pointers decrease at row %ld",
                             name, (long)i);
      }
    }
    for (sunindextype k = 0; k < d->nnz; k++) {
      if (d->colind[k] < 0 || d->colind[k] >= d->n) {
        return chs_error_set(err, CHS_ERR_ARG, "problem '%s': CSR column index %ld out of range",
                             name, (long)d->colind[k]);
      }
    }
  }
  return CHS_SUCCESS;
}

/* The Gram matrix G M^-1 G^T at the initial configuration must factor (G of full rank m): a
 * rank-deficient G there is the problem's, reported before any integration (every formulation
 * would fail at its first evaluation). The same factorization and threshold as the runs use. */
static int chs_check_initial_gram(CHSSystem *s, const sunrealtype *q, const char *name,
                                  CHSError *err) {
  SUNContext ctx = NULL;
  if (chs_context_create(&ctx) != 0) {
    return chs_error_set(err, CHS_ERR_MEM, "problem '%s': cannot create a SUNDIALS context", name);
  }
  chs_context_silence(ctx);
  int rc = chs_gram_create(s, CHS_GRAM_AUTO, ctx, &s->gram, err);
  int grc = rc == 0 ? chs_system_gram_at(s, q) : 0;
  if (grc != 0 && s->cb_failed) {
    rc = chs_error_set(err, CHS_ERR_ARG,
                       "problem '%s': callback %s failed (returned %d) at the initial state", name,
                       s->cb_failed, s->cb_rc);
  } else if (grc != 0 && s->gram->nonfinite) {
    rc = chs_error_set(err, CHS_ERR_ARG,
                       "problem '%s': the Gram matrix G M^-1 G^T at the initial state is not "
                       "finite: its entries (products of two entries of G and the inverse mass) "
                       "overflow the double range; scale the constraints or masses down",
                       name);
  } else if (grc != 0) {
    rc = chs_error_set(err, CHS_ERR_ARG,
                       "problem '%s': singular Gram matrix G M^-1 G^T at the initial state: the "
                       "constraint Jacobian G is rank deficient (its m = %ld rows are not "
                       "independent)",
                       name, (long)s->m);
  }
  chs_gram_destroy(&s->gram);
  SUNContext_Free(&ctx);
  return rc;
}

/* g and psi at the initial state must vanish to CHS_CONSISTENCY_TOL (relative to the scale). */
static int chs_check_initial_state(CHSProblem prob, CHSError *err) {
  CHSSystem s;
  CHS_CALL(chs_system_init(&s, prob, NULL, 0, err));
  sunindextype n = s.n, m = s.m;
  sunrealtype *q = s.wn[CHS_WN_V], *p = s.wn[CHS_WN_F], *v = s.wn[CHS_WN_MINV_F],
              *g = s.wm[CHS_WM_PSI], *psi = s.wm[CHS_WM_R];
  const char *name = prob->ops->name;
  int rc = CHS_SUCCESS;
  int cb = chs_problem_initial_state(prob, q, p);
  if (cb != 0) {
    rc = chs_error_set(err, CHS_ERR_ARG, "problem '%s': initial_state failed (returned %d)", name,
                       cb);
    goto done;
  }
  if (!chs_all_finite(q, n) || !chs_all_finite(p, n)) {
    rc = chs_error_set(err, CHS_ERR_ARG, "problem '%s': initial state (q, p) is not finite", name);
    goto done;
  }
  if (chs_system_set_time(&s, 0) != 0 || chs_system_mass_at(&s, q) != 0 ||
      chs_system_time_terms(&s, q) != 0) {
    rc = chs_error_set(err, CHS_ERR_ARG,
                       "problem '%s': M(q) or the time derivatives of the constraints cannot be "
                       "evaluated at the initial state (t = 0), or M(q) is not positive definite",
                       name);
    goto done;
  }
  /* every required callback once at the initial state: a failure or a NaN here is the problem's
   * (its parameters'), reported before any integration work */
  const char *what = NULL;
  if ((cb = prob->ops->constraint(prob->data, q, g)) != 0) {
    what = "constraint";
  } else if (!chs_all_finite(g, m)) {
    what = "constraint (not finite)";
  } else if ((cb = prob->ops->jacobian(prob->data, q, s.G)) != 0) {
    what = "jacobian";
  } else if (!chs_all_finite(s.G, s.gsize)) {
    what = "jacobian (not finite)";
  }
  sunrealtype V = 0;
  if (!what) {
    chs_mass_inv(&s, p, v);
    if ((cb = prob->ops->potential(prob->data, q, &V)) != 0) {
      what = "potential";
    } else if (!isfinite(V)) {
      what = "potential (not finite)";
    } else if ((cb = prob->ops->force(prob->data, q, s.wn[CHS_WN_A])) != 0) {
      what = "force";
    } else if (!chs_all_finite(s.wn[CHS_WN_A], n)) {
      what = "force (not finite)";
    } else if ((cb = prob->ops->jacobian_dot(prob->data, q, v, s.Gd)) != 0) {
      what = "jacobian_dot";
    } else if (!chs_all_finite(s.Gd, s.gsize)) {
      what = "jacobian_dot (not finite)";
    }
  }
  if (what) {
    if (cb != 0) {
      rc = chs_error_set(err, CHS_ERR_ARG,
                         "problem '%s': %s failed (returned %d) at the initial state", name, what,
                         cb);
    } else {
      rc = chs_error_set(err, CHS_ERR_ARG, "problem '%s': %s at the initial state", name, what);
    }
    goto done;
  }
  chs_system_psi(&s, v, psi); /* G M^{-1} p + g_t */
  sunrealtype qn = chs_norm2(q, n), vn = chs_norm2(v, n);
  sunrealtype gres = chs_norm2(g, m), pres = chs_norm2(psi, m);
  sunrealtype gtol = CHS_CONSISTENCY_TOL * fmax(1, qn * qn);
  sunrealtype ptol = CHS_CONSISTENCY_TOL * fmax(1, qn * vn);
  if (gres > gtol) {
    rc = chs_error_set(err, CHS_ERR_INCONSISTENT,
                       "problem '%s': inconsistent initial state: position residual |g| = %.3e "
                       "exceeds %.1e",
                       name, (double)gres, (double)gtol);
  } else if (pres > ptol) {
    rc = chs_error_set(err, CHS_ERR_INCONSISTENT,
                       "problem '%s': inconsistent initial state: momentum residual "
                       "|G M^-1 p| = %.3e exceeds %.1e",
                       name, (double)pres, (double)ptol);
  } else {
    rc = chs_check_initial_gram(&s, q, name, err);
  }
done:
  chs_system_free(&s);
  return rc;
}

/* The problem's create callback. Whatever it returns, a failure of create is reported as one of
 * the instance's parameters being unusable, i.e. an input error (the `chs` command exits 2), with
 * the callback's own message when it set one:
 *   > 0 (recoverable in the callbacks' convention: the parameters are outside the problem's
 *       domain) and < 0 codes that are not input or system codes (numerical codes, or a plugin's
 *       own negative numbers) become CHS_ERR_ARG;
 *   CHS_ERR_ARG .. CHS_ERR_UNSUPPORTED (input) and CHS_ERR_MEM / CHS_ERR_IO (system) are kept.
 * The callback gets an error record of its own, so that neither a NULL err nor a stale code in
 * the caller's record hides its message. */
static int chs_problem_call_create(const CHSProblemOps *ops, CHSParams kv, CHSProblem prob,
                                   CHSError *err) {
  CHSError cerr;
  CHSError_Clear(&cerr);
  int rc = ops->create(kv, &prob->data, &prob->dims, &cerr);
  if (rc == 0) {
    return CHS_SUCCESS;
  }
  int code = rc < 0 && cerr.code < 0 ? cerr.code : rc;
  if (!(CHSError_IsInput(code) || code == CHS_ERR_MEM || code == CHS_ERR_IO)) {
    code = CHS_ERR_ARG;
  }
  if (cerr.msg[0]) {
    return chs_error_set(err, code, "%s", cerr.msg);
  }
  return chs_error_set(err, code, "problem '%s': create failed (returned %d) for these parameters",
                       ops->name, rc);
}

int chs_problem_check_size(const char *name, long N, double bytes_per_unit, const char *unit,
                           CHSError *err) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  double need = (double)N * bytes_per_unit, have = (double)pages * (double)page;
  if (pages > 0 && page > 0 && need > have) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "%s: N=%ld needs about %.1f GB (at least %.0f bytes per %s for the "
                         "instance and a formulation's state), more than this machine's %.1f GB "
                         "of physical memory",
                         name, N, need / 1e9, bytes_per_unit, unit, have / 1e9);
  }
  return CHS_SUCCESS;
}

/* check_callback_dims: also probe the callbacks against the declared sizes
 * (chs_check_callback_dims), for tables chs did not compile itself (plugins, a user's own). */
static int chs_problem_create(const CHSProblemOps *ops, const char *params, CHSProblem *out,
                              CHSError *err, int check_callback_dims) {
  *out = NULL;
  CHS_CALL(chs_check_ops(ops, err));
  CHSParams kv = NULL;
  CHS_CALL(CHSParams_Parse(params, &kv, err));
  CHSProblem prob = calloc(1, sizeof *prob);
  if (!prob) {
    CHSParams_Destroy(&kv);
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  prob->ops = ops;
  int abi = ops->abi_version;
  if (ops->abi_version < CHS_PROBLEM_ABI_VERSION) {
    /* an older, shorter table: copy what it has, the fields appended since read as NULL */
    memcpy(&prob->ops_store, ops,
           ops->abi_version == 1   ? CHS_PROBLEM_OPS_V1_SIZE
           : ops->abi_version == 2 ? CHS_PROBLEM_OPS_V2_SIZE
           : ops->abi_version == 3 ? CHS_PROBLEM_OPS_V3_SIZE
           : ops->abi_version == 4 ? CHS_PROBLEM_OPS_V4_SIZE
           : ops->abi_version == 5 ? CHS_PROBLEM_OPS_V5_SIZE
           : ops->abi_version == 6 ? CHS_PROBLEM_OPS_V6_SIZE
                                   : CHS_PROBLEM_OPS_V7_SIZE);
    prob->ops_store.abi_version = CHS_PROBLEM_ABI_VERSION;
    prob->ops = ops = &prob->ops_store;
  }
  int rc = 0;
  for (const char *const *nm = ops->invariant_names; nm && *nm; nm++) {
    prob->n_invariants++;
  }
  if (prob->n_invariants > CHS_MAX_INVARIANTS || (prob->n_invariants > 0) != !!ops->invariants) {
    rc = chs_error_set(err, CHS_ERR_PLUGIN,
                       "problem '%s': invariant_names and invariants must be given together, "
                       "with at most %d names (got %d)",
                       ops->name, CHS_MAX_INVARIANTS, prob->n_invariants);
    prob->n_invariants = 0;
  }
  if (rc == 0) {
    rc = chs_problem_call_create(ops, kv, prob, err);
  }
  if (rc == 0) {
    rc = CHSParams_CheckAllUsed(kv, ops->name, err);
  }
  if (rc == 0 && abi < 3) {
    /* the documented meaning of NULL derivatives before ABI 3 (chs/problem.h) */
    prob->dims.declares = (ops->hessian_potential ? 0u : CHS_DECLARE_LINEAR_POTENTIAL) |
                          (ops->constraint_third ? 0u : CHS_DECLARE_QUADRATIC_CONSTRAINTS);
    prob->dims.time_dependent = 0;
    prob->dims.mass_nnz = 0;
  }
  if (rc == 0 && abi < 8) {
    /* fields a table older than ABI 8 does not know of */
    prob->dims.coordinate_names = NULL;
    prob->dims.constraint_names = NULL;
  }
  CHSParams_Destroy(&kv);
  if (rc == 0) {
    rc = chs_check_dims(ops->name, ops, &prob->dims, err);
  }
  if (rc == 0 && prob->dims.kinetic_scaled && !ops->kinetic_scale) {
    rc = chs_error_set(err, CHS_ERR_ARG, "problem '%s' sets kinetic_scaled without kinetic_scale",
                       ops->name);
  }
  if (rc == 0 && check_callback_dims) {
    rc = chs_check_callback_dims(prob, err);
  }
  if (rc == 0) {
    rc = chs_check_initial_state(prob, err);
  }
  if (rc != 0) {
    if (err && err->code == CHS_SUCCESS) {
      chs_error_set(err, rc, "problem '%s' could not be created", ops->name);
    }
    CHSProblem_Destroy(&prob);
    return rc < 0 ? rc : CHS_ERR_ARG;
  }
  *out = prob;
  return CHS_SUCCESS;
}

int CHSProblem_Help(const char *name, char *buf, size_t len, CHSError *err) {
  if (!name || !buf || len == 0) {
    return chs_error_set(err, CHS_ERR_ARG, "CHSProblem_Help: NULL argument");
  }
  const CHSProblemOps *ops = NULL;
  void *handle = NULL;
  if (chs_is_plugin_spec(name)) {
    CHS_CALL(chs_plugin_load(name, &ops, &handle, err));
  } else if (!(ops = CHSProblemRegistry_Find(name))) {
    return chs_error_set(err, CHS_ERR_NOTFOUND, "unknown problem '%s' (see `chs list problems`)",
                         name);
  }
  snprintf(buf, len, "%s: %s\nparameters (key=default meaning; ...): %s\n", ops->name,
           ops->summary ? ops->summary : "",
           ops->params_doc && *ops->params_doc ? ops->params_doc : "none");
  if (handle) {
    chs_plugin_close(handle);
  }
  return CHS_SUCCESS;
}

int CHSProblem_Create(const char *spec, CHSProblem *out, CHSError *err) {
  char name[4096];
  const char *params = NULL;
  *out = NULL;
  CHS_CALL(CHSSpec_Split(spec, name, sizeof name, &params, err));
  if (chs_is_plugin_spec(name)) {
    const CHSProblemOps *pops = NULL;
    void *handle = NULL;
    CHS_CALL(chs_plugin_load(name, &pops, &handle, err));
    int rc = CHSProblem_CreateFromOps(pops, params, out, err);
    if (rc != 0) {
      chs_plugin_close(handle);
      return rc;
    }
    (*out)->plugin = handle;
    return CHS_SUCCESS;
  }
  const CHSProblemOps *ops = CHSProblemRegistry_Find(name);
  if (!ops && CHSFirstOrderRegistry_Find(name)) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "'%s' is a first-order Lagrangian problem (chs/first_order.h: "
                         "CHSFirstOrder_Create), not a natural mechanical system: `chs run "
                         "--problem %s --method erk:...` integrates it, without a formulation",
                         name, name);
  }
  if (!ops) {
    return chs_error_set(err, CHS_ERR_NOTFOUND, "unknown problem '%s' (see `chs list problems`)",
                         name);
  }
  return chs_problem_create(ops, params, out, err, 0);
}

int CHSProblem_CreateFromOps(const CHSProblemOps *ops, const char *params, CHSProblem *out,
                             CHSError *err) {
  return chs_problem_create(ops, params, out, err, 1);
}

void CHSProblem_Destroy(CHSProblem *prob) {
  if (!prob || !*prob) {
    return;
  }
  if ((*prob)->data) {
    (*prob)->ops->destroy((*prob)->data);
  }
  chs_plugin_close((*prob)->plugin);
  free((*prob)->init_qp);
  free(*prob);
  *prob = NULL;
}

const CHSProblemOps *CHSProblem_GetOps(CHSProblem prob) {
  return prob->ops;
}
void *CHSProblem_GetData(CHSProblem prob) {
  return prob->data;
}
const CHSProblemDims *CHSProblem_GetDims(CHSProblem prob) {
  return &prob->dims;
}
const char *CHSProblem_GetName(CHSProblem prob) {
  return prob->ops->name;
}

int CHSProblem_IsConservative(CHSProblem prob) {
  return prob->ops->nonconservative_force == NULL;
}

int CHSProblem_HasKineticScale(CHSProblem prob) {
  return prob->dims.kinetic_scaled && prob->ops->kinetic_scale != NULL;
}

int CHSProblem_GetNumInvariants(CHSProblem prob) {
  return prob->n_invariants;
}

int CHSProblem_Invariants(CHSProblem prob, const sunrealtype *q, const sunrealtype *p,
                          sunrealtype *out) {
  if (prob->n_invariants == 0) {
    return CHS_ERR_UNSUPPORTED;
  }
  return prob->ops->invariants(prob->data, q, p, out) == 0 ? CHS_SUCCESS : CHS_ERR_CALLBACK;
}

int CHSProblem_Reference(CHSProblem prob, sunrealtype t, sunrealtype *q, sunrealtype *p) {
  if (!prob->ops->reference) {
    return CHS_ERR_UNSUPPORTED;
  }
  return prob->ops->reference(prob->data, t, q, p) == 0 ? CHS_SUCCESS : CHS_ERR_CALLBACK;
}

/* ------------------------------------------------------------------ initial state override */

int chs_problem_initial_state(CHSProblem prob, sunrealtype *q, sunrealtype *p) {
  if (prob->init_qp) {
    size_t n = (size_t)prob->dims.n;
    memcpy(q, prob->init_qp, n * sizeof *q);
    memcpy(p, prob->init_qp + n, n * sizeof *p);
    return 0;
  }
  return prob->ops->initial_state(prob->data, q, p);
}

int CHSProblem_SetInitialState(CHSProblem prob, const sunrealtype *q, const sunrealtype *p,
                               CHSError *err) {
  if (!prob || !q || !p) {
    return chs_error_set(err, CHS_ERR_ARG, "CHSProblem_SetInitialState: NULL argument");
  }
  size_t n = (size_t)prob->dims.n;
  sunrealtype *qp = malloc(2 * n * sizeof *qp);
  if (!qp) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  memcpy(qp, q, n * sizeof *qp);
  memcpy(qp + n, p, n * sizeof *qp);
  sunrealtype *old = prob->init_qp;
  prob->init_qp = qp;
  int rc = chs_check_initial_state(prob, err);
  if (rc != 0) {
    prob->init_qp = old;
    free(qp);
    return rc;
  }
  free(old);
  /* the reference solution starts from the problem's own initial state, not from this one */
  if (prob->ops != &prob->ops_store) {
    prob->ops_store = *prob->ops;
    prob->ops = &prob->ops_store;
  }
  prob->ops_store.reference = NULL;
  return CHS_SUCCESS;
}
