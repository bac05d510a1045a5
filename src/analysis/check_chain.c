/* The declared bond-chain structure (CHS_DECLARE_BOND_CHAIN, CHS_DECLARE_ANCHORED in
 * chs/problem.h) against the problem's own callbacks at a point, for `chs check`: what the
 * distributed runs (src/mpi*.c) build on, checked without MPI. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include "impl.h"

/* Detail text of a failed check; 0 (does not hold). */
static int chain_fail(char *detail, size_t len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int chain_fail(char *detail, size_t len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(detail, len, fmt, ap);
  va_end(ap);
  return 0;
}

int chs_check_bond_chain(CHSProblem prob, const sunrealtype *q, char *detail, size_t len) {
  const CHSProblemDims *d = CHSProblem_GetDims(prob);
  const CHSProblemOps *ops = CHSProblem_GetOps(prob);
  void *data = CHSProblem_GetData(prob);
  if (!(d->declares & CHS_DECLARE_BOND_CHAIN)) {
    snprintf(detail, len, "not declared");
    return 1;
  }
  sunindextype N = d->n / 2, off = (d->declares & CHS_DECLARE_ANCHORED) ? 0 : 1;
  if (d->n % 2 != 0 || d->m != N - off) {
    return chain_fail(detail, len,
                      "n = %ld, m = %ld: not 2 coordinates per atom and one bond per "
                      "atom (N - 1 free, N anchored)",
                      (long)d->n, (long)d->m);
  }
  if (d->jac_kind != CHS_JAC_CSR) {
    return chain_fail(detail, len, "G is not in CSR (jac_kind %ld)", (long)d->jac_kind);
  }
  if (d->mass_kind != CHS_MASS_IDENTITY && d->mass_kind != CHS_MASS_DIAGONAL) {
    return chain_fail(detail, len, "mass kind %ld: not identity or diagonal", (long)d->mass_kind);
  }
  for (sunindextype a = 0; d->mass_kind == CHS_MASS_DIAGONAL && a < N; a++) {
    if (d->mass[2 * a] != d->mass[2 * a + 1]) {
      return chain_fail(detail, len, "atom %ld: unequal masses of x and y", (long)a);
    }
  }
  sunindextype m = d->m;
  sunrealtype *G = malloc(((size_t)d->nnz + 2 * (size_t)m + 2 * (size_t)d->n) * sizeof *G);
  if (!G) {
    return CHS_ERR_MEM;
  }
  sunrealtype *g = G + d->nnz, *g2 = g + m, *q2 = g2 + m, *dq = q2 + d->n;
  int rc = ops->jacobian(data, q, G) || ops->constraint(data, q, g);
  /* a second point: every atom moved by its own offset, so that every bond changes */
  for (sunindextype k = 0; k < d->n; k++) {
    q2[k] = q[k] + 0.125 * (sunrealtype)((k * 7) % 5 + 1) / 8;
  }
  rc = rc || ops->constraint(data, q2, g2);
  int ok = 1;
  if (rc) {
    ok = chain_fail(detail, len, "a callback failed at the point");
  }
  for (sunindextype i = 0; ok && i < m; i++) {
    sunindextype h = i + off;
    if (d->rowptr[i + 1] - d->rowptr[i] != (h > 0 ? 4 : 2)) {
      ok = chain_fail(detail, len, "row %ld of G has %ld entries, not those of atoms h-1 and h",
                      (long)i, (long)(d->rowptr[i + 1] - d->rowptr[i]));
    }
    sunrealtype dd = 0, dd2 = 0;
    for (int c = 0; c < 2; c++) {
      dq[c] = q[2 * h + c] - (h > 0 ? q[2 * h - 2 + c] : 0);
      sunrealtype e = q2[2 * h + c] - (h > 0 ? q2[2 * h - 2 + c] : 0);
      dd += dq[c] * dq[c];
      dd2 += e * e;
    }
    for (sunindextype k = d->rowptr[i]; ok && k < d->rowptr[i + 1]; k++) {
      sunindextype at = d->colind[k] / 2;
      int c = (int)(d->colind[k] % 2);
      sunrealtype want = at == h ? dq[c] : -dq[c];
      if ((at != h && at != h - 1) || fabs(G[k] - want) > 1e-12 * (1 + fabs(want))) {
        ok = chain_fail(detail, len,
                        "row %ld of G is not (-d_h at atom h-1, d_h at atom h), "
                        "entry %ld",
                        (long)i, (long)(k - d->rowptr[i]));
      }
    }
    /* g_i = 1/2 |d_h|^2 + c_i: the same constant at both points */
    sunrealtype c1 = g[i] - dd / 2, c2 = g2[i] - dd2 / 2;
    if (ok && fabs(c1 - c2) > 1e-12 * (1 + dd + dd2)) {
      ok = chain_fail(detail, len, "g_%ld is not 1/2 |r_h - r_{h-1}|^2 + const (h = %ld)", (long)i,
                      (long)h);
    }
  }
  free(G);
  if (ok) {
    snprintf(detail, len, "%s bond chain of %ld atoms", off ? "free" : "anchored", (long)N);
  }
  return ok;
}
