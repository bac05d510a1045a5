/* Inline kernels of the fields: products with G^T, fused for the Dirac field. Private (not
 * installed). */
#ifndef CHS_MODEL_KERNELS_H
#define CHS_MODEL_KERNELS_H

#include "model/system.h"

/* out += alpha J^T w (J in the layout of G). */
static inline void chs_jac_tmv_acc(const CHSSystem *s, const sunrealtype *J, const sunrealtype *w,
                                   sunrealtype alpha, sunrealtype *out) {
  sunindextype n = s->n, m = s->m;
  for (sunindextype i = 0; i < m; i++) {
    sunrealtype awi = alpha * w[i];
    if (s->jac_kind == CHS_JAC_DENSE) {
      const sunrealtype *row = J + i * n;
      for (sunindextype j = 0; j < n; j++) {
        out[j] += row[j] * awi;
      }
    } else {
      for (int32_t k = s->rp32[i]; k < s->rp32[i + 1]; k++) {
        out[s->ci32[k]] += J[k] * awi;
      }
    }
  }
}

/* Inlined even into large callers (GCC and Clang otherwise keep a call in the Dirac field, about
 * 5 % of a pendulum right-hand side). */
#if defined(__GNUC__)
#define CHS_ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define CHS_ALWAYS_INLINE static inline
#endif

/* Gtw = G^T w, Gdtw = Gdot^T w and, when z != NULL, Gtz = G^T z, in one pass over the common
 * pattern of G and Gdot (the Dirac field's products; one pass instead of three). */
CHS_ALWAYS_INLINE void chs_jac_tmv_fused(const CHSSystem *s, const sunrealtype *w,
                                         const sunrealtype *z, sunrealtype *Gtw, sunrealtype *Gdtw,
                                         sunrealtype *Gtz) {
  sunindextype n = s->n, m = s->m;
  const sunrealtype *G = s->G, *Gd = s->Gd;
  if (s->jac_kind == CHS_JAC_DENSE) {
    /* row i at G + i n; column by column, the sums over i in registers (the outputs are not
     * reloaded and stored for every row) */
    for (sunindextype j = 0; j < n; j++) {
      sunrealtype gw = G[j] * w[0], dw = Gd[j] * w[0], gz = z ? G[j] * z[0] : 0;
      for (sunindextype i = 1; i < m; i++) {
        gw += G[i * n + j] * w[i];
        dw += Gd[i * n + j] * w[i];
        if (z) {
          gz += G[i * n + j] * z[i];
        }
      }
      Gtw[j] = gw;
      Gdtw[j] = dw;
      if (z) {
        Gtz[j] = gz;
      }
    }
    return;
  }
  for (sunindextype j = 0; j < n; j++) {
    Gtw[j] = 0;
    Gdtw[j] = 0;
    if (z) {
      Gtz[j] = 0;
    }
  }
  for (sunindextype i = 0; i < m; i++) {
    sunrealtype wi = w[i], zi = z ? z[i] : 0;
    for (int32_t k = s->rp32[i]; k < s->rp32[i + 1]; k++) {
      int32_t j = s->ci32[k];
      Gtw[j] += G[k] * wi;
      Gdtw[j] += Gd[k] * wi;
      if (z) {
        Gtz[j] += G[k] * zi;
      }
    }
  }
}

#endif
