/* The sizes a problem's callbacks really use, probed once against the n and m it declared. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compat.h"
#include "impl.h"

/* ------------------------------------------------------------------ callback sizes
 * A table chs did not compile (a plugin, a user's own) whose callbacks use other sizes than the
 * n and m its create callback declared reads or writes outside chs's arrays: memory corruption,
 * or a misleading failure later (M(q) "not positive definite"). Before anything else uses the
 * instance, each callback runs once at its initial state on arrays padded past the declared
 * size: outputs prefilled with a canary bit pattern (a write past the end changes the padding;
 * an output whose last entries stay canaries was written for a smaller size), inputs padded with
 * NaN (a read past the end turns a finite output NaN; confirmed by a second call with zero
 * padding). The padding (as long as the array itself, plus 64) absorbs the writes of sizes off by
 * a factor below sqrt 2, so the probe itself corrupts nothing. Then a coordinate that enters
 * neither g nor V (a zero column of G and zero force, both unchanged when it moves) is a
 * declared n too large. Failures of the callbacks themselves are left to the later checks. */

#define CHS_DIMS_PAD 64
static const uint64_t chs_dims_canary = 0x7ff4c0ffee15bad5ull; /* a NaN no arithmetic produces */

typedef struct {
  CHSProblem prob;
  sunindextype n, m, gsize, msize;
  sunrealtype *q0, *v0; /* the initial state: q and v = p (only its finiteness matters) */
  sunrealtype *in[4];   /* padded inputs */
  sunrealtype *out[3];  /* padded outputs */
  size_t cap;           /* entries of each buffer */
  const char *who;      /* the callback of the finding */
} chs_dims_probe;

static void chs_dims_fill_canary(sunrealtype *x, size_t k) {
  for (size_t i = 0; i < k; i++) {
    memcpy(&x[i], &chs_dims_canary, sizeof chs_dims_canary);
  }
}
static int chs_dims_is_canary(const sunrealtype *x) {
  return memcmp(x, &chs_dims_canary, sizeof chs_dims_canary) == 0;
}

/* Inputs: the first len entries of src, padding NaN (poison = 1) or 0. */
static void chs_dims_input(chs_dims_probe *P, int k, const sunrealtype *src, sunindextype len,
                           int poison) {
  for (size_t i = 0; i < P->cap; i++) {
    P->in[k][i] = i < (size_t)len ? src[i] : poison ? (sunrealtype)NAN : 0;
  }
}

/* The outcome of one output of a call: 0 fine; 1 a write past len; 2 the tail from `written`
 * on untouched (sizes smaller than declared); 3 not finite. */
static int chs_dims_output(const chs_dims_probe *P, int k, sunindextype len,
                           sunindextype *written) {
  const sunrealtype *x = P->out[k];
  for (size_t i = (size_t)len; i < P->cap; i++) {
    if (!chs_dims_is_canary(&x[i])) {
      return 1;
    }
  }
  sunindextype last = len;
  while (last > 0 && chs_dims_is_canary(&x[last - 1])) {
    last--;
  }
  *written = last;
  if (last < len) {
    return 2;
  }
  return chs_all_finite(x, len) ? 0 : 3;
}

typedef int (*chs_dims_call)(chs_dims_probe *P);

/* Calls fn with poisoned then (for a non-finite result) zero-padded inputs; outputs k < nout of
 * lengths len[k]. check_tail: an output whose tail stays untouched is a finding (not for G, whose
 * zero entries a problem may leave to the caller's zeroed storage). */
static int chs_dims_run(chs_dims_probe *P, const char *who, chs_dims_call fn, int nin,
                        const sunrealtype *const *src, const sunindextype *inlen, int nout,
                        const sunindextype *len, int check_tail, CHSError *err) {
  const char *name = P->prob->ops->name;
  int nonfinite = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (int k = 0; k < nin; k++) {
      chs_dims_input(P, k, src[k], inlen[k], pass == 0);
    }
    for (int k = 0; k < nout; k++) {
      chs_dims_fill_canary(P->out[k], P->cap);
    }
    if (fn(P) != 0) {
      return 0; /* the callback's own failure: reported by the checks that follow */
    }
    nonfinite = 0;
    for (int k = 0; k < nout; k++) {
      sunindextype written = 0;
      int o = chs_dims_output(P, k, len[k], &written);
      if (o == 1) {
        return chs_error_set(err, CHS_ERR_PLUGIN,
                             "problem '%s': %s writes past the %ld entries of its output "
                             "(declared n = %ld, m = %ld): the callbacks use larger dimensions "
                             "than the problem declares",
                             name, who, (long)len[k], (long)P->n, (long)P->m);
      }
      if (o == 2 && check_tail && pass == 0) {
        return chs_error_set(err, CHS_ERR_PLUGIN,
                             "problem '%s': %s writes only %ld of the %ld entries of its output "
                             "(declared n = %ld, m = %ld): the callbacks use smaller dimensions "
                             "than the problem declares",
                             name, who, (long)written, (long)len[k], (long)P->n, (long)P->m);
      }
      nonfinite |= o == 3;
    }
    if (!nonfinite) {
      if (pass == 1) {
        return chs_error_set(err, CHS_ERR_PLUGIN,
                             "problem '%s': %s reads its input past the declared n = %ld "
                             "coordinates (NaN placed there reaches its output): the callbacks "
                             "use larger dimensions than the problem declares",
                             name, who, (long)P->n);
      }
      return 0;
    }
  }
  return 0; /* non-finite with finite padding too: the callback's own, reported later */
}

static int chs_dims_initial(chs_dims_probe *P) {
  return P->prob->ops->initial_state(P->prob->data, P->out[0], P->out[1]);
}
static int chs_dims_guess(chs_dims_probe *P) {
  return P->prob->ops->initial_guess(P->prob->data, P->out[0], P->out[1]);
}
static int chs_dims_potential(chs_dims_probe *P) {
  return P->prob->ops->potential(P->prob->data, P->in[0], P->out[0]);
}
static int chs_dims_force(chs_dims_probe *P) {
  return P->prob->ops->force(P->prob->data, P->in[0], P->out[0]);
}
static int chs_dims_constraint(chs_dims_probe *P) {
  return P->prob->ops->constraint(P->prob->data, P->in[0], P->out[0]);
}
static int chs_dims_jacobian(chs_dims_probe *P) {
  return P->prob->ops->jacobian(P->prob->data, P->in[0], P->out[0]);
}
static int chs_dims_jacobian_dot(chs_dims_probe *P) {
  return P->prob->ops->jacobian_dot(P->prob->data, P->in[0], P->in[1], P->out[0]);
}
static int chs_dims_mass(chs_dims_probe *P) {
  return P->prob->ops->mass_matrix(P->prob->data, P->in[0], P->out[0]);
}
static int chs_dims_hessian(chs_dims_probe *P) {
  return P->prob->ops->hessian_potential(P->prob->data, P->in[0], P->in[1], P->out[0]);
}
static int chs_dims_fnc(chs_dims_probe *P) {
  return P->prob->ops->nonconservative_force(P->prob->data, P->in[0], P->in[1], P->out[0]);
}
static int chs_dims_constraint_dt(chs_dims_probe *P) {
  return P->prob->ops->constraint_dt(P->prob->data, P->in[0], P->out[0], P->out[1], P->out[2]);
}

/* A coordinate that enters neither g nor V: zero column of G, zero force component, and g and F
 * unchanged, bit for bit, when it moves. */
static int chs_dims_unused(chs_dims_probe *P, CHSError *err) {
  const CHSProblemOps *ops = P->prob->ops;
  const CHSProblemDims *d = &P->prob->dims;
  sunindextype n = P->n, m = P->m;
  sunrealtype *q = P->in[0], *G = P->out[0], *F = P->out[1], *g = P->out[2];
  sunrealtype *F1 = P->in[1], *g1 = P->in[2];
  memcpy(q, P->q0, (size_t)n * sizeof *q);
  if (ops->jacobian(P->prob->data, q, G) != 0 || ops->force(P->prob->data, q, F) != 0 ||
      ops->constraint(P->prob->data, q, g) != 0) {
    return 0;
  }
  for (sunindextype j = n - 1; j >= 0; j--) {
    int zero = F[j] == 0;
    if (d->jac_kind == CHS_JAC_DENSE) {
      for (sunindextype i = 0; zero && i < m; i++) {
        zero = G[i * n + j] == 0;
      }
    } else {
      for (sunindextype k = 0; zero && k < d->nnz; k++) {
        zero = d->colind[k] != j || G[k] == 0;
      }
    }
    if (!zero) {
      continue;
    }
    sunrealtype qj = q[j];
    q[j] = qj + 0.125 * (1 + fabs(qj));
    int rc = ops->force(P->prob->data, q, F1) | ops->constraint(P->prob->data, q, g1);
    q[j] = qj;
    if (rc == 0 && memcmp(F1, F, (size_t)n * sizeof *F) == 0 &&
        memcmp(g1, g, (size_t)m * sizeof *g) == 0) {
      return chs_error_set(err, CHS_ERR_PLUGIN,
                           "problem '%s': n = %ld declared, but coordinate %ld enters neither g "
                           "nor V (a zero column of G, no force, and g and F do not change when "
                           "it moves): is n %ld?",
                           ops->name, (long)n, (long)j + 1, (long)n - 1);
    }
  }
  return 0;
}

int chs_check_callback_dims(CHSProblem prob, CHSError *err) {
  const CHSProblemOps *ops = prob->ops;
  const CHSProblemDims *d = &prob->dims;
  chs_dims_probe P = {prob, d->n, d->m, 0, 0, NULL, NULL, {NULL}, {NULL}, 0, NULL};
  P.gsize = d->jac_kind == CHS_JAC_CSR ? d->nnz : d->m * d->n;
  P.msize = d->mass_kind == CHS_MASS_CONFIG ? (d->mass_nnz > 0 ? d->mass_nnz : d->n * d->n) : 0;
  size_t big = (size_t)d->n;
  big = (size_t)P.gsize > big ? (size_t)P.gsize : big;
  big = (size_t)P.msize > big ? (size_t)P.msize : big;
  P.cap = 2 * big + CHS_DIMS_PAD;
  sunrealtype *block = malloc((9 * P.cap) * sizeof *block);
  if (!block) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  for (int k = 0; k < 4; k++) {
    P.in[k] = block + (size_t)k * P.cap;
  }
  for (int k = 0; k < 3; k++) {
    P.out[k] = block + (size_t)(4 + k) * P.cap;
  }
  P.q0 = block + 7 * P.cap;
  P.v0 = block + 8 * P.cap;
  sunindextype n = d->n, m = d->m;
  int rc = 0;
#define CHS_DIMS(who, fn, nin, srcs, inlens, nout, lens, tail)                                     \
  do {                                                                                             \
    if (rc == 0) {                                                                                 \
      const sunrealtype *const s_[4] = srcs;                                                       \
      const sunindextype il_[4] = inlens, ol_[3] = lens;                                           \
      rc = chs_dims_run(&P, who, fn, nin, s_, il_, nout, ol_, tail, err);                          \
    }                                                                                              \
  } while (0)
#define L(...) {__VA_ARGS__}
  CHS_DIMS("initial_state", chs_dims_initial, 0, L(NULL), L(0), 2, L(n, n), 1);
  if (rc == 0) {
    memcpy(P.q0, P.out[0], (size_t)n * sizeof *P.q0);
    memcpy(P.v0, P.out[1], (size_t)n * sizeof *P.v0);
    if (!chs_all_finite(P.q0, n) || !chs_all_finite(P.v0, n)) {
      free(block);
      return 0; /* reported by the initial state's own check */
    }
  }
  if (ops->initial_guess) {
    CHS_DIMS("initial_guess", chs_dims_guess, 0, L(NULL), L(0), 2, L(n, n), 1);
  }
  if (rc == 0 && d->time_dependent && ops->set_time) {
    prob->time = 0;
    if (ops->set_time(prob->data, 0) != 0) {
      free(block);
      return 0;
    }
  }
  CHS_DIMS("potential", chs_dims_potential, 1, L(P.q0), L(n), 1, L(1), 1);
  CHS_DIMS("force", chs_dims_force, 1, L(P.q0), L(n), 1, L(n), 1);
  CHS_DIMS("constraint", chs_dims_constraint, 1, L(P.q0), L(n), 1, L(m), 1);
  CHS_DIMS("jacobian", chs_dims_jacobian, 1, L(P.q0), L(n), 1, L(P.gsize), 0);
  CHS_DIMS("jacobian_dot", chs_dims_jacobian_dot, 2, L(P.q0, P.v0), L(n, n), 1, L(P.gsize), 0);
  if (P.msize > 0 && ops->mass_matrix) {
    CHS_DIMS("mass_matrix", chs_dims_mass, 1, L(P.q0), L(n), 1, L(P.msize), 0);
  }
  if (ops->hessian_potential) {
    CHS_DIMS("hessian_potential", chs_dims_hessian, 2, L(P.q0, P.v0), L(n, n), 1, L(n), 1);
  }
  if (ops->nonconservative_force) {
    CHS_DIMS("nonconservative_force", chs_dims_fnc, 2, L(P.q0, P.v0), L(n, n), 1, L(n), 1);
  }
  if ((d->time_dependent & CHS_TIME_CONSTRAINTS) && ops->constraint_dt) {
    CHS_DIMS("constraint_dt", chs_dims_constraint_dt, 1, L(P.q0), L(n), 3, L(m, P.gsize, m), 0);
  }
#undef L
#undef CHS_DIMS
  if (rc == 0) {
    rc = chs_dims_unused(&P, err);
  }
  free(block);
  return rc;
}
