/* Hamilton-Dirac equations: Hamilton's equations for the Dirac bracket of H.
 *
 *   w = Q^{-1} psi,  a = M^{-1} G^T w,  b = Gdot(q,v)^T w,
 *   S w = Gdot(q,v) a - G M^{-1} b          (S = K - K^T, K = Gdot(q,v) M^{-1} G^T = {psi,psi}),
 *   q' = v - a,
 *   p' = F - G^T (lambda - Q^{-1} S w) + b.
 *
 * [Seiler, Dirac] eq. (17), (31) (pendulum (35)-(36)); [Seiler, stable] eq. (21) (pendulum (44));
 * notation of DESIGN.md. Both g and psi are first integrals of this flow for ANY initial value, not
 * only on the manifold ([Seiler, Dirac] Sec. 10): d/dt g = G q' = psi - Q w = 0 and d/dt psi =
 * Gdot(q,q') v + G M^{-1} p' = -Gdot(v) a + S w + G M^{-1} b = 0, using the symmetry Gdot(q,a) v =
 * Gdot(q,v) a of second derivatives. chs_dirac_field_plain (at the end) forms these terms one by
 * one; chs_dirac_field takes the faster paths below (tools/rhs-instructions counts them): the
 * S-term skipped for one constraint, S from its entries where they are few (tridiagonal or small
 * dense Q) so that all products of length n take one pass, w solved with Q's factors in the
 * kinematics and z = Q^{-1} (r - S w) in one more solve. */
#include <string.h>
#include "../src/impl.h"

/* CSR G: the passes that scatter rows into an output of length n go through the rows by blocks
 * and set the output's columns just before the first block that touches them (s->blk_end): for
 * a banded G (chains) the output is set and updated while it is in the cache, instead of by a
 * pass of its own over n. Same operations in the same order. */

/* Gtw = G^T w and b = Gdot^T w (CSR; chs_jac_tmv_fused's operations). */
static void dirac_tmv_csr(const CHSSystem *s, const sunrealtype *w, sunrealtype *Gtw,
                          sunrealtype *b) {
  const sunrealtype *G = s->G, *Gd = s->Gd;
  sunindextype m = s->m;
  int32_t c0 = 0, n = (int32_t)s->n;
  for (sunindextype i0 = 0; i0 < m; i0 += CHS_CSR_BLOCK) {
    sunindextype i1 = m - i0 < CHS_CSR_BLOCK ? m : i0 + CHS_CSR_BLOCK;
    int32_t c1 = i1 == m ? n : s->blk_end[i0 / CHS_CSR_BLOCK]; /* the last block: all of n */
    if (c1 > c0) {
      memset(Gtw + c0, 0, (size_t)(c1 - c0) * sizeof *Gtw);
      memset(b + c0, 0, (size_t)(c1 - c0) * sizeof *b);
      c0 = c1;
    }
    for (sunindextype i = i0; i < i1; i++) {
      sunrealtype wi = w[i];
      for (int32_t k = s->rp32[i]; k < s->rp32[i + 1]; k++) {
        int32_t j = s->ci32[k];
        Gtw[j] += G[k] * wi;
        b[j] += Gd[k] * wi;
      }
    }
  }
}

/* ydot = (v - a, F + b - G^T z) (CSR); a may be ydot itself and F its momentum half. */
static void dirac_final_csr(const CHSSystem *s, const CHSKinematics *k, const sunrealtype *a,
                            const sunrealtype *b, const sunrealtype *z, sunrealtype *ydot) {
  const sunrealtype *G = s->G;
  sunindextype m = s->m;
  int32_t c0 = 0, n = (int32_t)s->n;
  sunrealtype *yp = ydot + n;
  for (sunindextype i0 = 0; i0 <= m; i0 += CHS_CSR_BLOCK) {
    sunindextype i1 = m - i0 < CHS_CSR_BLOCK ? m : i0 + CHS_CSR_BLOCK;
    for (int32_t c1 = i0 < m ? s->blk_end[i0 / CHS_CSR_BLOCK] : n; c0 < c1; c0++) {
      ydot[c0] = k->v[c0] - a[c0];
      yp[c0] = k->F[c0] + b[c0];
    }
    for (sunindextype i = i0; i < i1; i++) {
      sunrealtype zi = z[i];
      for (int32_t j = s->rp32[i]; j < s->rp32[i + 1]; j++) {
        yp[s->ci32[j]] -= G[j] * zi;
      }
    }
  }
}

/* Tridiagonal Q (CSR G, M = I (minv NULL) or diagonal), z = lambda - Q^{-1} S w known before any
 * product of length n (S from Q's column pairs, chs_gram_tri_sw_forward):
 *   ydot = (v - M^{-1} G^T w, F + Gdot^T w - G^T z)
 * in one pass over the rows scattering into ydot, a and b not stored (columns set just before the
 * first block of rows that touches them, as in dirac_tmv_csr). F may be ydot's momentum half. */
static inline void dirac_final_tri(const CHSSystem *s, const CHSKinematics *k,
                                   const sunrealtype *minv, const sunrealtype *w,
                                   const sunrealtype *z, sunrealtype *ydot) {
  const sunrealtype *G = s->G, *Gd = s->Gd;
  sunindextype m = s->m;
  int32_t c0 = 0, n = (int32_t)s->n;
  sunrealtype *yp = ydot + n;
  for (sunindextype i0 = 0; i0 <= m; i0 += CHS_CSR_BLOCK) {
    sunindextype i1 = m - i0 < CHS_CSR_BLOCK ? m : i0 + CHS_CSR_BLOCK;
    for (int32_t c1 = i0 < m ? s->blk_end[i0 / CHS_CSR_BLOCK] : n; c0 < c1; c0++) {
      ydot[c0] = k->v[c0];
      yp[c0] = k->F[c0];
    }
    for (sunindextype i = i0; i < i1; i++) {
      sunrealtype wi = w[i], zi = z[i];
      for (int32_t j = s->rp32[i]; j < s->rp32[i + 1]; j++) {
        int32_t c = s->ci32[j];
        ydot[c] -= (minv ? minv[c] * G[j] : G[j]) * wi;
        yp[c] += Gd[j] * wi - G[j] * zi;
      }
    }
  }
}

/* Dense G, M = I or diagonal, z known before any product of length n:
 *   ydot = (v - M^{-1} G^T w, F + J^T w - G^T z),  J = Gdot + G_t (Gdot without G_t),
 * column by column with the sums over the rows in registers: a and b not stored. */
static void dirac_final_dense(const CHSSystem *s, const CHSKinematics *k, const sunrealtype *w,
                              const sunrealtype *z, sunrealtype *ydot) {
  sunindextype n = s->n, m = s->m;
  const sunrealtype *G = s->G, *Gd = s->Gd, *Gt = s->Gt, *minv = s->minv;
  for (sunindextype j = 0; j < n; j++) {
    sunrealtype gw = 0, jw = 0, gz = 0;
    for (sunindextype i = 0; i < m; i++) {
      sunrealtype g = G[i * n + j];
      gw += g * w[i];
      jw += (Gt ? Gd[i * n + j] + Gt[i * n + j] : Gd[i * n + j]) * w[i];
      gz += g * z[i];
    }
    ydot[j] = k->v[j] - (minv ? minv[j] * gw : gw);
    ydot[n + j] = k->F[j] + jw - gz;
  }
}

/* z = lambda - Q^{-1} S w (S w in Sw, overwritten; z may be Sw), formed as Q^{-1} (r - S w) when
 * the kinematics left lambda = Q^{-1} r unsolved (CHS_KIN_NO_LAMBDA): one solve with Q instead
 * of two. */
static int dirac_z(CHSSystem *s, const CHSKinematics *k, sunrealtype *Sw, sunrealtype *z) {
  if (k->lambda) {
    CHS_CALL(chs_gram_solve(s->gram, Sw, z));
    for (sunindextype i = 0; i < s->m; i++) {
      z[i] = k->lambda[i] - z[i];
    }
    return 0;
  }
  for (sunindextype i = 0; i < s->m; i++) {
    Sw[i] = k->r[i] - Sw[i];
  }
  return chs_gram_solve(s->gram, Sw, z);
}

/* The end shared by both paths: Gtz = G^T z when z != NULL (otherwise Gtz holds it already);
 * then
 *   ydot = (v - a, F - G^T z + b)
 * and w, z handed to the caller (fj). */
static void dirac_complete(const CHSSystem *s, const CHSKinematics *k, const sunrealtype *a,
                           const sunrealtype *b, int form_gtz, sunrealtype *w, sunrealtype *z,
                           sunrealtype *Gtz, sunrealtype *ydot, sunrealtype **wout,
                           sunrealtype **zout) {
  sunindextype n = s->n;
  if (form_gtz) {
    chs_jac_tmv(s, s->G, z, Gtz);
  }
  for (sunindextype i = 0; i < n; i++) {
    ydot[i] = k->v[i] - a[i];
    ydot[n + i] = k->F[i] - Gtz[i] + b[i];
  }
  if (wout) {
    *wout = w;
    *zout = z;
  }
}

/* M(q) and explicit time dependence (docs/mechanics.md "Hamilton-Dirac equations"): with
 * J_psi u = Gdot(q, u) v - G M^{-1} M'(q; u) v + G_t u,
 *   w = Q^{-1} psi,  a = M^{-1} G^T w,  b = J_psi^T w = Gdot(q, v)^T w - grad_q(a^T M v) + G_t^T w,
 *   S w = J_psi a - G M^{-1} b,  z = lambda - Q^{-1} S w,
 *   q' = v - a,  p' = F + F_M - G^T z + b. */
static int dirac_field_general(CHSFormulation f, const sunrealtype *y, sunrealtype *ydot,
                               sunrealtype **wout, sunrealtype **zout) {
  CHSSystem *s = &f->sys;
  sunindextype n = s->n, m = s->m;
  const sunrealtype *q = y;
  CHSKinematics k;
  sunrealtype *w = s->wm[CHS_WM_A], *Sw = s->wm[CHS_WM_B], *z = s->wm[CHS_WM_BLOCK], *tm = s->xm[0];
  sunrealtype *Gtw = s->wn[CHS_WN_A], *a = s->wn[CHS_WN_B], *b = s->wn[CHS_WN_C],
              *Gtz = s->wn[CHS_WN_FIELD], *t1 = s->xn[0], *t2 = s->xn[1];
  /* with w = Q^{-1} psi and, for m > 1, without lambda (dirac_z) */
  CHS_CALL(chs_system_kinematics_f(s, y, y + n, s->wn[CHS_WN_F], w, CHS_KIN_NO_LAMBDA, &k));
  if (!k.w_done) {
    CHS_CALL(chs_gram_solve(s->gram, k.psi, w));
  }
  if (m == 1 || (m <= 4 && s->jac_kind == CHS_JAC_DENSE &&
                 (s->mass_kind == CHS_MASS_IDENTITY || s->mass_kind == CHS_MASS_DIAGONAL))) {
    /* z before any product of length n, then those products in one pass, and b = J_psi^T w and
     * a without M'(q; a) v or M^{-1} b: S = K - K^T (K = J_psi M^{-1} G^T) is antisymmetric, zero
     * for a single constraint (z = lambda); for a few constraints of a dense G and a constant M
     * (J_psi = Gdot + G_t) S w from S's entries */
    if (m == 1) {
      z[0] = k.lambda[0];
    } else {
      chs_dirac_sw_entries(s, w, Sw);
      CHS_CALL(dirac_z(s, &k, Sw, z));
    }
    if (s->jac_kind == CHS_JAC_DENSE &&
        (s->mass_kind == CHS_MASS_IDENTITY || s->mass_kind == CHS_MASS_DIAGONAL)) {
      dirac_final_dense(s, &k, w, z, ydot);
      if (wout) {
        *wout = w;
        *zout = z;
      }
      return 0;
    }
    chs_jac_tmv_fused(s, w, z, Gtw, b, Gtz); /* G^T w, Gdot^T w and G^T z in one pass */
    chs_mass_inv_Gt(s, w, Gtw, a);
    if (s->mass_kind == CHS_MASS_CONFIG && CHS_SYS_CB(s, mass_grad, s->data, q, a, k.v, t2) != 0) {
      return CHS_RECOVERABLE;
    }
    for (sunindextype i = 0; s->mass_kind == CHS_MASS_CONFIG && i < n; i++) {
      b[i] -= t2[i];
    }
    if (s->Gt) {
      chs_jac_tmv_acc(s, s->Gt, w, 1, b);
    }
    dirac_complete(s, &k, a, b, 0, w, z, Gtz, ydot, wout, zout);
    return 0;
  }
  chs_jac_tmv_fused(s, w, NULL, Gtw, b, NULL); /* G^T w and Gdot^T w in one pass */
  chs_mass_inv_Gt(s, w, Gtw, a);
  /* t1 <- b + M'(q; a) v (M^{-1} t1 = M^{-1} b + ...); with a constant M, t1 is b itself */
  sunrealtype *t1b = b;
  if (s->mass_kind == CHS_MASS_CONFIG) {
    t1b = t1;
    if (CHS_SYS_CB(s, mass_grad, s->data, q, a, k.v, t2) != 0) {
      return CHS_RECOVERABLE;
    }
    for (sunindextype i = 0; i < n; i++) {
      t1[i] = b[i] - t2[i];
      b[i] -= t2[i];
    }
    if (CHS_SYS_CB(s, mass_dir, s->data, q, a, k.v, t2) != 0) {
      return CHS_RECOVERABLE;
    }
    for (sunindextype i = 0; i < n; i++) {
      t1[i] += t2[i];
    }
  }
  if (s->Gt) {
    chs_jac_tmv_acc(s, s->Gt, w, 1, b);
    if (t1b != b) {
      chs_jac_tmv_acc(s, s->Gt, w, 1, t1b);
    }
  }
  /* S w = Gdot(q, v) a + G_t a - G M^{-1} (J_psi^T w + M'(q; a) v) */
  chs_mass_inv(s, t1b, t2);
  chs_jac_mv2(s, s->Gd, a, s->G, t2, -1, Sw, NULL);
  if (s->Gt) {
    chs_jac_mv(s, s->Gt, a, tm);
    for (sunindextype i = 0; i < m; i++) {
      Sw[i] += tm[i];
    }
  }
  CHS_CALL(dirac_z(s, &k, Sw, z));
  dirac_complete(s, &k, a, b, 1, w, z, Gtz, ydot, wout, zout);
  return 0;
}

int chs_dirac_field(CHSFormulation f, const sunrealtype *y, sunrealtype *ydot, sunrealtype **wout,
                    sunrealtype **zout) {
  CHSSystem *s = &f->sys;
  if (s->general) {
    return dirac_field_general(f, y, ydot, wout, zout);
  }
  sunindextype n = s->n, m = s->m;
  CHSKinematics k;
  /* Unless ydot is y itself: F straight into p' and, for a CSR G and M = I with m > 1, G^T w
   * into q' (both completed in place below): two arrays of length n less in the working set. */
  int inplace = ydot != y && s->jac_kind == CHS_JAC_CSR; /* large systems: their working set */
  CHS_CALL(chs_system_kinematics_f(s, y, y + n, inplace ? ydot + n : s->wn[CHS_WN_F],
                                   s->wm[CHS_WM_A], CHS_KIN_LEAN | CHS_KIN_NO_LAMBDA, &k));
  inplace = inplace && m > 1 && s->jac_kind == CHS_JAC_CSR && s->mass_kind == CHS_MASS_IDENTITY;
  sunrealtype *Gtw = inplace ? ydot : s->wn[CHS_WN_A], *Minv_Gtw = s->wn[CHS_WN_B],
              *b = s->wn[CHS_WN_C];
  sunrealtype *Gtz = s->wn[CHS_WN_FIELD];
  sunrealtype *Minv_b = s->wn[CHS_WN_FORCE];
  /* w = Q^{-1} psi from the kinematics (m > 1) or solved here (m = 1: an inline division); z
   * over S w (not needed again) */
  sunrealtype *w = s->wm[CHS_WM_A], *Sw = s->wm[CHS_WM_B], *z = m == 1 ? s->wm[CHS_WM_BLOCK2] : Sw;
  const sunrealtype *a = s->mass_kind == CHS_MASS_IDENTITY ? Gtw : Minv_Gtw;

  if (!k.w_done) {
    CHS_CALL(chs_gram_solve(s->gram, k.psi, w));
  }
  if (m == 1) {
    /* S = K - K^T is antisymmetric: zero for a single constraint, so z = lambda is known now
     * and all three products with G and Gdot take one pass. */
    z[0] = k.lambda[0];
    chs_jac_tmv_fused(s, w, z, Gtw, b, Gtz);
    if (a != Gtw) {
      chs_mass_inv(s, Gtw, Minv_Gtw);
    }
  } else if (s->jac_kind == CHS_JAC_CSR && s->gram->tri && s->gram->factored) {
    /* tridiagonal Q: S w from S's entries (no products of length n), z = lambda - Q^{-1} S w,
     * then all products with G and Gdot in one pass into ydot */
    chs_gram_tri_sw_forward(s->gram, w, z);
    chs_gram_tri_backward(s->gram, z, NULL);
    for (sunindextype i = 0; i < m; i++) {
      z[i] = k.lambda[i] - z[i];
    }
    if (s->minv) {
      dirac_final_tri(s, &k, s->minv, w, z, ydot);
    } else {
      dirac_final_tri(s, &k, NULL, w, z, ydot);
    }
    if (wout) {
      *wout = w;
      *zout = z;
    }
    return 0;
  } else {
    if (s->jac_kind == CHS_JAC_CSR) {
      dirac_tmv_csr(s, w, Gtw, b);
    } else {
      chs_jac_tmv_fused(s, w, NULL, Gtw, b, NULL);
    }
    if (a != Gtw) {
      chs_mass_inv(s, Gtw, Minv_Gtw);
    }
    /* S w = Gdot a - G M^{-1} b in one pass */
    chs_jac_mv2(s, s->Gd, a, s->G, chs_mass_inv_view(s, b, Minv_b), -1, Sw, NULL);
    CHS_CALL(dirac_z(s, &k, Sw, z));
    if (s->jac_kind == CHS_JAC_CSR) {
      /* G^T z subtracted in place: no G^T z temporary */
      dirac_final_csr(s, &k, a, b, z, ydot);
      if (wout) {
        *wout = w;
        *zout = z;
      }
      return 0;
    }
  }
  dirac_complete(s, &k, a, b, m != 1, w, z, Gtz, ydot, wout, zout);
  return 0;
}

/* The field as the equations above read, for every problem (M(q), time dependence), one product
 * or solve per term: the reference that the tests hold the paths of chs_dirac_field to. */
int chs_dirac_field_plain(CHSFormulation f, const sunrealtype *y, sunrealtype *ydot) {
  CHSSystem *s = &f->sys;
  sunindextype n = s->n, m = s->m;
  const sunrealtype *q = y;
  int config = s->mass_kind == CHS_MASS_CONFIG;
  CHSKinematics k;
  CHS_CALL(chs_system_kinematics_f(s, y, y + n, s->wn[CHS_WN_F], NULL, 0, &k));
  /* scratch that the kinematics leave free (G^T w is not needed once a is formed: t2 over it) */
  sunrealtype *w = s->wm[CHS_WM_A], *Sw = s->wm[CHS_WM_B], *z = s->wm[CHS_WM_BLOCK],
              *tm = s->wm[CHS_WM_BLOCK2];
  sunrealtype *Gtw = s->wn[CHS_WN_A], *a = s->wn[CHS_WN_B], *b = s->wn[CHS_WN_C],
              *Gtz = s->wn[CHS_WN_FIELD], *t1 = s->wn[CHS_WN_FORCE], *t2 = Gtw;
  CHS_CALL(chs_gram_solve(s->gram, k.psi, w)); /* w = Q^{-1} psi */
  chs_jac_tmv(s, s->G, w, Gtw);
  chs_mass_inv(s, Gtw, a); /* a = M^{-1} G^T w */
  /* b = J_psi^T w = Gdot(q, v)^T w - grad_q(a^T M v) + G_t^T w */
  chs_jac_tmv(s, s->Gd, w, b);
  if (config && CHS_SYS_CB(s, mass_grad, s->data, q, a, k.v, t2) != 0) {
    return CHS_RECOVERABLE;
  }
  for (sunindextype i = 0; config && i < n; i++) {
    b[i] -= t2[i];
  }
  if (s->Gt) {
    chs_jac_tmv_acc(s, s->Gt, w, 1, b);
  }
  /* S w = J_psi a - G M^{-1} b with J_psi a = Gdot(q, v) a - G M^{-1} M'(q; a) v + G_t a */
  memcpy(t1, b, (size_t)n * sizeof *t1);
  if (config && CHS_SYS_CB(s, mass_dir, s->data, q, a, k.v, t2) != 0) {
    return CHS_RECOVERABLE;
  }
  for (sunindextype i = 0; config && i < n; i++) {
    t1[i] += t2[i];
  }
  chs_mass_inv(s, t1, t2);
  chs_jac_mv(s, s->Gd, a, Sw);
  if (s->Gt) {
    chs_jac_mv(s, s->Gt, a, tm);
    for (sunindextype i = 0; i < m; i++) {
      Sw[i] += tm[i];
    }
  }
  chs_jac_mv(s, s->G, t2, tm);
  for (sunindextype i = 0; i < m; i++) {
    Sw[i] -= tm[i];
  }
  CHS_CALL(chs_gram_solve(s->gram, Sw, z)); /* z = lambda - Q^{-1} S w */
  for (sunindextype i = 0; i < m; i++) {
    z[i] = k.lambda[i] - z[i];
  }
  chs_jac_tmv(s, s->G, z, Gtz);
  for (sunindextype i = 0; i < n; i++) { /* q' = v - a, p' = F + F_M - G^T z + b */
    ydot[i] = k.v[i] - a[i];
    ydot[n + i] = k.F[i] - Gtz[i] + b[i];
  }
  return 0;
}

static int dirac_rhs(CHSFormulation f, sunrealtype t, const sunrealtype *y, sunrealtype *ydot) {
  (void)t;
  return chs_dirac_field(f, y, ydot, NULL, NULL);
}

const CHSFormulationOps chs_formulation_dirac = {
    .name = "dirac",
    .summary = "Hamilton-Dirac equations (g and psi are first integrals)",
    .source = "[Seiler, Dirac] (17), (31), (35); [Seiler, stable] (21), (44)",
    .flags = CHS_FORM_ODE | CHS_FORM_KEEPS_G | CHS_FORM_KEEPS_PSI | CHS_FORM_MASS_CONFIG |
             CHS_FORM_TIME | CHS_FORM_MPI_DIRAC,
    .rhs = dirac_rhs,
};
