/* fj-example: [Seiler, Faddeev-Jackiw] Sec. 5, eqs. (29)-(36) (Seiler, Faddeev-Jackiw), a
 * first-order Lagrangian L = a_i(z) z'^i - V(z) (chs/first_order.h).
 *
 *   (29)  L = (q2 + q3) q1' + k q3' + 1/2 (k^2 - 2 q2 q3 - q3^2):
 *         z = (q1, q2, q3), a = (q2 + q3, 0, k), V = -1/2 (k^2 - 2 q2 q3 - q3^2),
 *         grad V = (0, q3, q2 + q3). A is antisymmetric of order 3, hence singular: (29) is
 *         degenerate (its Euler-Lagrange equations (30) contain the constraint q2 = 0).
 *   extended=1: the Faddeev-Jackiw Lagrangian L~ = L + lambda q2' in z = (q1, q2, q3, lambda),
 *         a = (q2 + q3, lambda, k, 0), grad V = (0, q3, q2 + q3, 0). A is the matrix (34) and
 *         A z' = grad V is (35): q3' = 0, q2' = 0, q1' = q2 + q3, lambda' = q2.
 *
 * Initial data q1 = b, q2 = c, q3 = a, lambda = d. Reference: (36), q1 = (a + c) t + b, q2 = c,
 * q3 = a, lambda = c t + d (extended=1); (31), q1 = a t + b, q2 = 0, q3 = a, the solution of the
 * completed (30), for extended=0, which requires c = 0 (q2 = 0 is its constraint). */
#include <stdlib.h>
#include <string.h>
#include "../../src/impl.h"

typedef struct {
  sunrealtype k, a, b, c, d;
  int extended;
  sunindextype n; /* 4 (extended) or 3 */
} fj_example;

static int fj_create(CHSParams kv, void **data, sunindextype *dim, CHSError *err) {
  fj_example *P = calloc(1, sizeof *P);
  if (!P) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  *data = P;
  long ext = 1;
  CHS_CALL(CHSParams_GetReal(kv, "k", 1, &P->k, err));
  CHS_CALL(CHSParams_GetReal(kv, "a", 0.7, &P->a, err));
  CHS_CALL(CHSParams_GetReal(kv, "b", -0.3, &P->b, err));
  CHS_CALL(CHSParams_GetReal(kv, "c", 0, &P->c, err));
  CHS_CALL(CHSParams_GetReal(kv, "d", 0.25, &P->d, err));
  CHS_CALL(CHSParams_GetInt(kv, "extended", 1, 0, 1, &ext, err));
  P->extended = (int)ext;
  P->n = P->extended ? 4 : 3;
  if (!P->extended && CHSParams_Has(kv, "d")) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "fj-example: parameter d (lambda(0)) needs extended=1: the plain (29) "
                         "has no multiplier lambda");
  }
  if (!P->extended && P->c != 0) {
    return chs_error_set(
        err, CHS_ERR_ARG,
        "fj-example: parameter c=%g with extended=0: q2 = 0 is a constraint of the "
        "plain (29) ([Seiler, Faddeev-Jackiw] (30)), so q2(0) = c must be 0 (or use extended=1)",
        (double)P->c);
  }
  *dim = P->n;
  return CHS_SUCCESS;
}

static void fj_destroy(void *data) {
  free(data);
}

static int fj_one_form(void *data, const sunrealtype *z, sunrealtype *a) {
  const fj_example *P = data;
  a[0] = z[1] + z[2];
  a[1] = P->extended ? z[3] : 0;
  a[2] = P->k;
  if (P->extended) {
    a[3] = 0;
  }
  return 0;
}

/* Da[i*n + j] = da_j/dz_i. */
static int fj_one_form_jacobian(void *data, const sunrealtype *z, sunrealtype *Da) {
  (void)z;
  const fj_example *P = data;
  sunindextype n = P->n;
  memset(Da, 0, (size_t)(n * n) * sizeof *Da);
  Da[1 * n + 0] = 1; /* da_1/dq2 */
  Da[2 * n + 0] = 1; /* da_1/dq3 */
  if (P->extended) {
    Da[3 * n + 1] = 1; /* da_2/dlambda */
  }
  return 0;
}

static int fj_potential(void *data, const sunrealtype *z, sunrealtype *V) {
  const fj_example *P = data;
  *V = -0.5 * (P->k * P->k - 2 * z[1] * z[2] - z[2] * z[2]);
  return 0;
}

static int fj_gradient(void *data, const sunrealtype *z, sunrealtype *dV) {
  const fj_example *P = data;
  dV[0] = 0;
  dV[1] = z[2];
  dV[2] = z[1] + z[2];
  if (P->extended) {
    dV[3] = 0;
  }
  return 0;
}

static int fj_initial_state(void *data, sunrealtype *z) {
  const fj_example *P = data;
  z[0] = P->b;
  z[1] = P->c;
  z[2] = P->a;
  if (P->extended) {
    z[3] = P->d;
  }
  return 0;
}

/* (36); (31) when not extended (then c = 0). */
static int fj_reference(void *data, sunrealtype t, sunrealtype *z) {
  const fj_example *P = data;
  z[0] = (P->a + P->c) * t + P->b;
  z[1] = P->c;
  z[2] = P->a;
  if (P->extended) {
    z[3] = P->c * t + P->d;
  }
  return 0;
}

const CHSFirstOrderOps chs_first_order_fj_example = {
    .name = "fj-example",
    .summary =
        "[Seiler, Faddeev-Jackiw] (29)-(36): L = (q2+q3) q1' + k q3' + (k^2 - 2 q2 q3 - q3^2)/2, "
        "with the Faddeev-Jackiw multiplier lambda q2' (extended=1)",
    .params_doc = "k=1; a=0.7 (q3(0)); b=-0.3 (q1(0)); c=0 (q2(0)); d=0.25 (lambda(0)); "
                  "extended=1 (1: z = (q1,q2,q3,lambda), (34)-(36); 0: the degenerate (29), A "
                  "singular, requires c=0)",
    .create = fj_create,
    .destroy = fj_destroy,
    .one_form = fj_one_form,
    .one_form_jacobian = fj_one_form_jacobian,
    .potential = fj_potential,
    .gradient = fj_gradient,
    .initial_state = fj_initial_state,
    .reference = fj_reference,
};
