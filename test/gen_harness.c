/* Test harness for generated (chs-gen) problem plugins: evaluates ops tables directly, without
 * CHSProblem_Create, so it also covers what this chs refuses at creation (M(q), time dependence).
 *
 *   gen_harness compare SPEC_A SPEC_B [TOL]  every callback of A and B agrees to TOL (default
 *                                            1e-13) relative to the size of its values, at the
 *                                            initial state, at 12 random perturbations of it and
 *                                            at 12 random points
 *   gen_harness check SPEC [TOL]             derivatives against 4th-order central differences
 *                                            (default 1e-8), declared facts, initial state
 *   gen_harness eval SPEC T Q1,Q2,...        print the callbacks at (q, t), one line each
 *
 * SPEC is a built-in problem name or a plugin path, with optional ":key=value,..." parameters.
 * Exit status: 0 pass, 1 a mismatch (printed), 2 usage or load error. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_dense.h>
#include "chs/problem.h"
#include "impl.h"

#define MAXN 64
#define MAXM 64

typedef struct {
  const CHSProblemOps *ops;
  void *data;
  CHSProblemDims d;
  void *handle;
  const char *spec;
} inst;

static int load(const char *spec, inst *P) {
  char name[4096];
  const char *params = NULL;
  CHSError err;
  CHSParams kv = NULL;
  memset(P, 0, sizeof *P);
  P->spec = spec;
  CHSError_Clear(&err);
  if (CHSSpec_Split(spec, name, sizeof name, &params, &err) != 0) {
    fprintf(stderr, "gen_harness: %s\n", err.msg);
    return 2;
  }
  if (chs_is_plugin_spec(name)) {
    if (chs_plugin_load(name, &P->ops, &P->handle, &err) != 0) {
      fprintf(stderr, "gen_harness: %s\n", err.msg);
      return 2;
    }
  } else {
    P->ops = CHSProblemRegistry_Find(name);
    if (!P->ops) {
      fprintf(stderr, "gen_harness: unknown problem %s\n", name);
      return 2;
    }
  }
  if (P->ops->abi_version != CHS_PROBLEM_ABI_VERSION) {
    fprintf(stderr, "gen_harness: %s has ABI %d, need %d\n", spec, P->ops->abi_version,
            CHS_PROBLEM_ABI_VERSION);
    return 2;
  }
  if (CHSParams_Parse(params, &kv, &err) != 0 || P->ops->create(kv, &P->data, &P->d, &err) != 0 ||
      CHSParams_CheckAllUsed(kv, P->ops->name, &err) != 0) {
    fprintf(stderr, "gen_harness: %s: %s\n", spec, err.msg);
    CHSParams_Destroy(&kv);
    return 2;
  }
  CHSParams_Destroy(&kv);
  if (P->d.n > MAXN || P->d.m > MAXM || P->d.m <= 0 || P->d.m >= P->d.n) {
    fprintf(stderr, "gen_harness: %s: unsupported sizes n=%ld m=%ld\n", spec, (long)P->d.n,
            (long)P->d.m);
    return 2;
  }
  return 0;
}

static void unload(inst *P) {
  if (P->data) {
    P->ops->destroy(P->data);
  }
  chs_plugin_close(P->handle);
}

static int gsize(const inst *P) {
  return P->d.jac_kind == CHS_JAC_CSR ? (int)P->d.nnz : (int)(P->d.m * P->d.n);
}

/* G (or Gdot, G_t) in the problem's layout -> dense m x n. */
static void densify(const inst *P, const sunrealtype *vals, sunrealtype *dense) {
  int n = (int)P->d.n, m = (int)P->d.m;
  if (P->d.jac_kind != CHS_JAC_CSR) {
    memcpy(dense, vals, sizeof(sunrealtype) * (size_t)(m * n));
    return;
  }
  memset(dense, 0, sizeof(sunrealtype) * (size_t)(m * n));
  for (int i = 0; i < m; i++) {
    for (sunindextype k = P->d.rowptr[i]; k < P->d.rowptr[i + 1]; k++) {
      dense[i * n + P->d.colind[k]] = vals[k];
    }
  }
}

static int set_time(const inst *P, sunrealtype t) {
  return P->ops->set_time ? P->ops->set_time(P->data, t) : 0;
}

/* Dense M(q) (n x n). */
static int mass(const inst *P, const sunrealtype *q, sunrealtype *M) {
  int n = (int)P->d.n;
  memset(M, 0, sizeof(sunrealtype) * (size_t)(n * n));
  switch (P->d.mass_kind) {
  case CHS_MASS_IDENTITY:
    for (int i = 0; i < n; i++) {
      M[i * n + i] = 1;
    }
    return 0;
  case CHS_MASS_DIAGONAL:
    for (int i = 0; i < n; i++) {
      M[i * n + i] = P->d.mass[i];
    }
    return 0;
  case CHS_MASS_DENSE:
    memcpy(M, P->d.mass, sizeof(sunrealtype) * (size_t)(n * n));
    return 0;
  case CHS_MASS_CONFIG:
    if (P->d.mass_nnz > 0) {
      sunrealtype vals[MAXN * MAXN];
      int rc = P->ops->mass_matrix(P->data, q, vals);
      for (int i = 0; i < n; i++) {
        for (sunindextype k = P->d.mass_rowptr[i]; k < P->d.mass_rowptr[i + 1]; k++) {
          M[i * n + P->d.mass_colind[k]] = vals[k];
        }
      }
      return rc;
    }
    return P->ops->mass_matrix(P->data, q, M);
  }
  return -1;
}

static int mass_dir(const inst *P, const sunrealtype *q, const sunrealtype *u, const sunrealtype *b,
                    sunrealtype *out) {
  if (P->d.mass_kind != CHS_MASS_CONFIG) {
    memset(out, 0, sizeof(sunrealtype) * (size_t)P->d.n);
    return 0;
  }
  return P->ops->mass_dir(P->data, q, u, b, out);
}

static int mass_grad(const inst *P, const sunrealtype *q, const sunrealtype *a,
                     const sunrealtype *b, sunrealtype *out) {
  if (P->d.mass_kind != CHS_MASS_CONFIG) {
    memset(out, 0, sizeof(sunrealtype) * (size_t)P->d.n);
    return 0;
  }
  return P->ops->mass_grad(P->data, q, a, b, out);
}

/* grad_q (a^T M'(q; u) b): the problem's mass_grad_dir; zero for a constant M; -2 when an M(q)
 * problem lacks it (chs-gen emits it for problem ABI 7) */
static int mass_grad_dir(const inst *P, const sunrealtype *q, const sunrealtype *u,
                         const sunrealtype *a, const sunrealtype *b, sunrealtype *out) {
  if (P->d.mass_kind != CHS_MASS_CONFIG) {
    memset(out, 0, sizeof(sunrealtype) * (size_t)P->d.n);
    return 0;
  }
  return P->ops->mass_grad_dir ? P->ops->mass_grad_dir(P->data, q, u, a, b, out) : -2;
}

static int hess(const inst *P, const sunrealtype *q, const sunrealtype *u, sunrealtype *out) {
  if (!P->ops->hessian_potential) {
    memset(out, 0, sizeof(sunrealtype) * (size_t)P->d.n);
    return 0;
  }
  return P->ops->hessian_potential(P->data, q, u, out);
}

static int third(const inst *P, const sunrealtype *q, const sunrealtype *u, const sunrealtype *w,
                 sunrealtype *out) {
  if (!P->ops->constraint_third) {
    memset(out, 0, sizeof(sunrealtype) * (size_t)P->d.n);
    return 0;
  }
  return P->ops->constraint_third(P->data, q, u, w, out);
}

static int fnc(const inst *P, const sunrealtype *q, const sunrealtype *v, sunrealtype *out) {
  if (!P->ops->nonconservative_force) {
    memset(out, 0, sizeof(sunrealtype) * (size_t)P->d.n);
    return 0;
  }
  return P->ops->nonconservative_force(P->data, q, v, out);
}

/* g_t, G_t (dense) and g_tt; zero when g does not depend on t. */
static int cdt(const inst *P, const sunrealtype *q, sunrealtype *gt, sunrealtype *Gt,
               sunrealtype *gtt) {
  int n = (int)P->d.n, m = (int)P->d.m;
  if (!(P->d.time_dependent & CHS_TIME_CONSTRAINTS)) {
    memset(gt, 0, sizeof(sunrealtype) * (size_t)m);
    memset(Gt, 0, sizeof(sunrealtype) * (size_t)(m * n));
    memset(gtt, 0, sizeof(sunrealtype) * (size_t)m);
    return 0;
  }
  sunrealtype vals[MAXM * MAXN];
  int rc = P->ops->constraint_dt(P->data, q, gt, vals, gtt);
  densify(P, vals, Gt);
  return rc;
}

static int vdt(const inst *P, const sunrealtype *q, sunrealtype *Vt) {
  if (!(P->d.time_dependent & CHS_TIME_POTENTIAL)) {
    *Vt = 0;
    return 0;
  }
  return P->ops->potential_dt(P->data, q, Vt);
}

static unsigned long long rng_state = 88172645463325252ULL;
static sunrealtype rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (sunrealtype)(rng_state >> 11) / 9007199254740992.0 * 2 - 1; /* [-1, 1) */
}
static void rndv(sunrealtype *x, int k, sunrealtype scale) {
  for (int i = 0; i < k; i++) {
    x[i] = scale * rnd();
  }
}

static int failures = 0;
static double worst = 0;
/* agree's scale floor: 1 for finite differences (check); compare sets it to the smallest normal
 * double, so small quantities (Andrews' inertias ~1e-6) are compared relative to their size */
static double scale_floor = 1;

/* |a - b|_inf <= tol * max(scale_floor, |a|_inf, |b|_inf) */
static void agree(const char *what, const sunrealtype *a, const sunrealtype *b, int k, double tol) {
  double diff = 0, scale = scale_floor;
  for (int i = 0; i < k; i++) {
    diff = fmax(diff, fabs(a[i] - b[i]));
    scale = fmax(scale, fmax(fabs(a[i]), fabs(b[i])));
  }
  double rel = diff / scale;
  if (!(rel <= tol)) {
    if (failures < 20) {
      printf("MISMATCH %s: relative difference %.3e > %.1e (", what, rel, tol);
      for (int i = 0; i < k && i < 8; i++) {
        printf("%s%.17g/%.17g", i ? " " : "", (double)a[i], (double)b[i]);
      }
      printf(")\n");
    }
    failures++;
  }
  if (rel > worst) {
    worst = rel;
  }
}

static void need(int rc, const char *what) {
  if (rc != 0) {
    printf("FAIL %s returned %d\n", what, rc);
    failures++;
  }
}

/* ------------------------------------------------------------------ compare */
static int compare(inst *A, inst *B, double tol) {
  int n = (int)A->d.n, m = (int)A->d.m;
  if (A->d.n != B->d.n || A->d.m != B->d.m) {
    printf("FAIL sizes differ: n=%d/%ld m=%d/%ld\n", n, (long)B->d.n, m, (long)B->d.m);
    return 1;
  }
  sunrealtype a[MAXN * MAXN], b[MAXN * MAXN], ra[MAXN * MAXN], rb[MAXN * MAXN];
  sunrealtype q[MAXN], u[MAXN], w[MAXN], x[MAXN], y[MAXN], q0[MAXN];
  scale_floor = 2.2250738585072014e-308; /* relative to the values' own size */
  /* initial state (t = 0) */
  need(set_time(A, 0) | set_time(B, 0), "set_time(0)");
  need(A->ops->initial_state(A->data, a, a + n) | B->ops->initial_state(B->data, b, b + n),
       "initial_state");
  agree("initial_state", a, b, 2 * n, tol);
  memcpy(q0, a, sizeof(sunrealtype) * (size_t)n);
  int ninv = 0, nev = 0;
  for (const char *const *s = A->ops->invariant_names; s && *s; s++) {
    ninv++;
  }
  for (const char *const *s = A->ops->event_names; s && *s; s++) {
    nev++;
  }
  int both_inv = A->ops->invariants && B->ops->invariants;
  int both_ev = A->ops->events && B->ops->events;
  int both_ref = A->ops->reference && B->ops->reference;
  for (int pt = 0; pt < 25; pt++) {
    sunrealtype t = 2 * rnd();
    rndv(q, n, 1.5);
    if (pt % 2 == 0) { /* the initial state (pt 0) and small perturbations of it */
      for (int i = 0; i < n; i++) {
        q[i] = q0[i] + (pt == 0 ? 0 : 0.05 * q[i]);
      }
    }
    rndv(u, n, 1);
    rndv(w, m, 1);
    rndv(x, n, 1);
    rndv(y, n, 1);
    need(set_time(A, t) | set_time(B, t), "set_time");
    need(A->ops->potential(A->data, q, a) | B->ops->potential(B->data, q, b), "potential");
    agree("potential", a, b, 1, tol);
    need(A->ops->force(A->data, q, a) | B->ops->force(B->data, q, b), "force");
    agree("force", a, b, n, tol);
    need(A->ops->constraint(A->data, q, a) | B->ops->constraint(B->data, q, b), "constraint");
    /* g(q0) is 0 up to the round-off of its terms: compared absolutely there */
    scale_floor = pt == 0 ? 1 : 2.2250738585072014e-308;
    agree("constraint", a, b, m, tol);
    scale_floor = 2.2250738585072014e-308;
    need(A->ops->jacobian(A->data, q, ra) | B->ops->jacobian(B->data, q, rb), "jacobian");
    densify(A, ra, a);
    densify(B, rb, b);
    agree("jacobian", a, b, m * n, tol);
    need(A->ops->jacobian_dot(A->data, q, u, ra) | B->ops->jacobian_dot(B->data, q, u, rb),
         "jacobian_dot");
    densify(A, ra, a);
    densify(B, rb, b);
    agree("jacobian_dot", a, b, m * n, tol);
    need(hess(A, q, u, a) | hess(B, q, u, b), "hessian_potential");
    agree("hessian_potential", a, b, n, tol);
    need(third(A, q, u, w, a) | third(B, q, u, w, b), "constraint_third");
    agree("constraint_third", a, b, n, tol);
    need(mass(A, q, a) | mass(B, q, b), "mass");
    agree("mass matrix", a, b, n * n, tol);
    need(mass_dir(A, q, u, x, a) | mass_dir(B, q, u, x, b), "mass_dir");
    agree("mass_dir", a, b, n, tol);
    need(mass_grad(A, q, x, y, a) | mass_grad(B, q, x, y, b), "mass_grad");
    agree("mass_grad", a, b, n, tol);
    need(mass_grad_dir(A, q, u, x, y, a) | mass_grad_dir(B, q, u, x, y, b), "mass_grad_dir");
    agree("mass_grad_dir", a, b, n, tol);
    need(fnc(A, q, u, a) | fnc(B, q, u, b), "nonconservative_force");
    agree("nonconservative_force", a, b, n, tol);
    need(cdt(A, q, a, a + m, a + m + m * n) | cdt(B, q, b, b + m, b + m + m * n), "constraint_dt");
    agree("constraint_dt", a, b, 2 * m + m * n, tol);
    need(vdt(A, q, a) | vdt(B, q, b), "potential_dt");
    agree("potential_dt", a, b, 1, tol);
    if (both_inv) {
      need(A->ops->invariants(A->data, q, u, a) | B->ops->invariants(B->data, q, u, b),
           "invariants");
      agree("invariants", a, b, ninv, tol);
    }
    if (both_ev) {
      need(A->ops->events(A->data, t, q, u, a) | B->ops->events(B->data, t, q, u, b), "events");
      agree("events", a, b, nev, tol);
    }
    if (both_ref) {
      sunrealtype tr = 3 * fabs(t);
      need(A->ops->reference(A->data, tr, a, a + n) | B->ops->reference(B->data, tr, b, b + n),
           "reference");
      agree("reference", a, b, 2 * n, 1e3 * tol);
    }
  }
  if (A->d.time_dependent != B->d.time_dependent) {
    printf("FAIL time_dependent differs: %u / %u\n", A->d.time_dependent, B->d.time_dependent);
    failures++;
  }
  printf("compare %s vs %s: %s (worst relative difference %.2e, %s%s%s)\n", A->spec, B->spec,
         failures ? "FAIL" : "ok", worst, both_inv ? "invariants, " : "", both_ev ? "events, " : "",
         both_ref ? "reference" : "no reference");
  return failures ? 1 : 0;
}

/* ------------------------------------------------------------------ check */
/* 4th-order central difference of f(q + e s) at e = 0, k outputs. */
typedef int (*fun_q)(inst *P, const sunrealtype *q, sunrealtype *out, void *ctx);

static int fd(inst *P, fun_q f, void *ctx, const sunrealtype *q, const sunrealtype *s, int k,
              sunrealtype *out) {
  const sunrealtype h = 1e-3, c[4] = {-2, -1, 1, 2}, wgt[4] = {1, -8, 8, -1};
  sunrealtype qq[MAXN], val[MAXN * MAXN];
  int n = (int)P->d.n;
  memset(out, 0, sizeof(sunrealtype) * (size_t)k);
  for (int j = 0; j < 4; j++) {
    for (int i = 0; i < n; i++) {
      qq[i] = q[i] + c[j] * h * s[i];
    }
    if (f(P, qq, val, ctx) != 0) {
      return 1;
    }
    for (int i = 0; i < k; i++) {
      out[i] += wgt[j] * val[i] / (12 * h);
    }
  }
  return 0;
}

typedef struct {
  const sunrealtype *u, *w, *a, *b, *w2; /* w2: the direction s of f_sMg */
} dctx;

static int f_V(inst *P, const sunrealtype *q, sunrealtype *o, void *c) {
  (void)c;
  return P->ops->potential(P->data, q, o);
}
static int f_F(inst *P, const sunrealtype *q, sunrealtype *o, void *c) {
  (void)c;
  return P->ops->force(P->data, q, o);
}
static int f_g(inst *P, const sunrealtype *q, sunrealtype *o, void *c) {
  (void)c;
  return P->ops->constraint(P->data, q, o);
}
static int f_G(inst *P, const sunrealtype *q, sunrealtype *o, void *c) {
  (void)c;
  return P->ops->jacobian(P->data, q, o);
}
static int f_wGdu(inst *P, const sunrealtype *q, sunrealtype *o, void *c) {
  const dctx *d = c;
  sunrealtype Gd[MAXM * MAXN], D[MAXM * MAXN];
  int n = (int)P->d.n, m = (int)P->d.m;
  int rc = P->ops->jacobian_dot(P->data, q, d->u, Gd);
  densify(P, Gd, D);
  o[0] = 0;
  for (int i = 0; i < m; i++) {
    for (int j = 0; j < n; j++) {
      o[0] += d->w[i] * D[i * n + j] * d->u[j];
    }
  }
  return rc;
}
static int f_Mb(inst *P, const sunrealtype *q, sunrealtype *o, void *c) {
  const dctx *d = c;
  sunrealtype M[MAXN * MAXN];
  int n = (int)P->d.n;
  int rc = mass(P, q, M);
  for (int i = 0; i < n; i++) {
    o[i] = 0;
    for (int j = 0; j < n; j++) {
      o[i] += M[i * n + j] * d->b[j];
    }
  }
  return rc;
}
static int f_sMg(inst *P, const sunrealtype *q, sunrealtype *o, void *c) {
  const dctx *d = c;
  sunrealtype g[MAXN];
  int rc = mass_grad(P, q, d->a, d->b, g);
  o[0] = 0;
  for (int i = 0; i < (int)P->d.n; i++) {
    o[0] += d->w2[i] * g[i];
  }
  return rc;
}
static int f_aMb(inst *P, const sunrealtype *q, sunrealtype *o, void *c) {
  const dctx *d = c;
  sunrealtype Mb[MAXN];
  int rc = f_Mb(P, q, Mb, c);
  o[0] = 0;
  for (int i = 0; i < (int)P->d.n; i++) {
    o[0] += d->a[i] * Mb[i];
  }
  return rc;
}

static sunrealtype dot(const sunrealtype *x, const sunrealtype *y, int k) {
  sunrealtype s = 0;
  for (int i = 0; i < k; i++) {
    s += x[i] * y[i];
  }
  return s;
}

/* x = M(q)^{-1} p by SUNDIALS' dense LU. */
static int solve_mass(inst *P, const sunrealtype *q, const sunrealtype *p, sunrealtype *x) {
  int n = (int)P->d.n;
  sunrealtype M[MAXN * MAXN], *cols[MAXN];
  sunindextype piv[MAXN];
  if (mass(P, q, M) != 0) {
    return 1;
  }
  for (int j = 0; j < n; j++) {
    cols[j] = M + j * n; /* symmetric: rows are columns */
  }
  if (SUNDlsMat_denseGETRF(cols, n, n, piv) != 0) {
    return 1;
  }
  memcpy(x, p, sizeof(sunrealtype) * (size_t)n);
  SUNDlsMat_denseGETRS(cols, n, piv, x);
  return 0;
}

static int check(inst *P, double tol) {
  int n = (int)P->d.n, m = (int)P->d.m, gs = gsize(P);
  sunrealtype q[MAXN], u[MAXN], s[MAXN], w[MAXM], a[MAXN], b[MAXN];
  sunrealtype x[MAXN * MAXN], y[MAXN * MAXN], z[MAXN * MAXN], gt[MAXM], Gt[MAXM * MAXN], gtt[MAXM];
  unsigned dec = P->d.declares;
  if (!P->ops->hessian_potential && !(dec & CHS_DECLARE_LINEAR_POTENTIAL)) {
    printf("FAIL no hessian_potential and CHS_DECLARE_LINEAR_POTENTIAL not declared\n");
    failures++;
  }
  if (!P->ops->constraint_third && !(dec & CHS_DECLARE_QUADRATIC_CONSTRAINTS)) {
    printf("FAIL no constraint_third and CHS_DECLARE_QUADRATIC_CONSTRAINTS not declared\n");
    failures++;
  }
  if (P->d.time_dependent && !P->ops->set_time) {
    printf("FAIL time-dependent without set_time\n");
    failures++;
  }
  for (int pt = 0; pt < 20; pt++) {
    sunrealtype t = 2 * rnd();
    rndv(q, n, 1.2);
    rndv(u, n, 1);
    rndv(s, n, 1);
    rndv(w, m, 1);
    rndv(a, n, 1);
    rndv(b, n, 1);
    dctx c = {u, w, a, b, NULL};
    need(set_time(P, t), "set_time");
    /* F = -grad V */
    need(P->ops->force(P->data, q, x), "force");
    need(fd(P, f_V, NULL, q, s, 1, y), "potential (fd)");
    z[0] = -dot(x, s, n);
    agree("force = -grad V", z, y, 1, tol);
    /* G = dg/dq */
    need(P->ops->jacobian(P->data, q, x), "jacobian");
    densify(P, x, z);
    need(fd(P, f_g, NULL, q, s, m, y), "constraint (fd)");
    for (int i = 0; i < m; i++) {
      x[i] = dot(z + i * n, s, n);
    }
    agree("jacobian = dg/dq", x, y, m, tol);
    /* Gdot(q, u) = d/de G(q + e u), in the problem's layout */
    need(P->ops->jacobian_dot(P->data, q, u, x), "jacobian_dot");
    need(fd(P, f_G, NULL, q, u, gs, y), "jacobian (fd)");
    agree("jacobian_dot = d/de G(q + e u)", x, y, gs, tol);
    /* hess V u = -d/de F(q + e u) */
    need(hess(P, q, u, x), "hessian_potential");
    need(fd(P, f_F, NULL, q, u, n, y), "force (fd)");
    for (int i = 0; i < n; i++) {
      y[i] = -y[i];
    }
    agree(P->ops->hessian_potential ? "hessian_potential = -dF" : "declared linear potential", x, y,
          n, tol);
    /* s . grad_q(w^T Gdot(q, u) u) */
    need(third(P, q, u, w, x), "constraint_third");
    z[0] = dot(x, s, n);
    need(fd(P, f_wGdu, &c, q, s, 1, y), "jacobian_dot (fd)");
    agree(P->ops->constraint_third ? "constraint_third" : "declared quadratic constraints", z, y, 1,
          tol);
    /* mass: symmetric; mass_dir = d/de M(q + e u) b; s . mass_grad = d/de a^T M(q + e s) b */
    need(mass(P, q, x), "mass_matrix");
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        y[i * n + j] = x[j * n + i];
      }
    }
    agree("mass matrix symmetric", x, y, n * n, 0);
    need(mass_dir(P, q, u, b, x), "mass_dir");
    need(fd(P, f_Mb, &c, q, u, n, y), "mass (fd)");
    agree("mass_dir = d/de M(q + e u) b", x, y, n, tol);
    need(mass_grad(P, q, a, b, x), "mass_grad");
    z[0] = dot(x, s, n);
    need(fd(P, f_aMb, &c, q, s, 1, y), "mass (fd)");
    agree("s . mass_grad", z, y, 1, tol);
    /* u . mass_grad_dir(q, s, a, b) = d/de s . mass_grad(q + e u, a, b) */
    need(mass_grad_dir(P, q, s, a, b, x), "mass_grad_dir");
    z[0] = dot(x, u, n);
    c.w2 = s;
    need(fd(P, f_sMg, &c, q, u, 1, y), "mass_grad (fd)");
    agree("u . mass_grad_dir", z, y, 1, tol);
    /* time derivatives: central differences in t through set_time */
    if (P->d.time_dependent) {
      const sunrealtype h = 1e-3, cf[4] = {-2, -1, 1, 2}, wgt[4] = {1, -8, 8, -1};
      sunrealtype dg[MAXM] = {0}, dG[MAXM * MAXN] = {0}, dgt[MAXM] = {0}, dV = 0;
      for (int j = 0; j < 4; j++) {
        sunrealtype gv[MAXM], Gv[MAXM * MAXN], Gdense[MAXM * MAXN], gtv[MAXM], Gtv[MAXM * MAXN],
            gttv[MAXM], V;
        need(set_time(P, t + cf[j] * h), "set_time");
        need(P->ops->constraint(P->data, q, gv) | P->ops->jacobian(P->data, q, Gv) |
                 cdt(P, q, gtv, Gtv, gttv) | P->ops->potential(P->data, q, &V),
             "callbacks at t +- h");
        densify(P, Gv, Gdense);
        for (int i = 0; i < m; i++) {
          dg[i] += wgt[j] * gv[i] / (12 * h);
          dgt[i] += wgt[j] * gtv[i] / (12 * h);
        }
        for (int i = 0; i < m * n; i++) {
          dG[i] += wgt[j] * Gdense[i] / (12 * h);
        }
        dV += wgt[j] * V / (12 * h);
      }
      need(set_time(P, t), "set_time");
      need(cdt(P, q, gt, Gt, gtt), "constraint_dt");
      agree("g_t = dg/dt", gt, dg, m, tol);
      agree("G_t = dG/dt", Gt, dG, m * n, tol);
      agree("g_tt = d g_t/dt", gtt, dgt, m, tol);
      sunrealtype Vt;
      need(vdt(P, q, &Vt), "potential_dt");
      agree("V_t = dV/dt", &Vt, &dV, 1, tol);
      if (P->ops->constraint_dt) {
        /* NULL outputs are allowed */
        need(P->ops->constraint_dt(P->data, q, NULL, NULL, NULL), "constraint_dt(NULL...)");
      }
    }
  }
  /* initial state: g(q0, 0) = 0, G v + g_t = 0, v = M^-1 p */
  sunrealtype q0[MAXN], p0[MAXN], v0[MAXN], g0[MAXM], G0[MAXM * MAXN], psi[MAXM];
  need(set_time(P, 0), "set_time(0)");
  need(P->ops->initial_state(P->data, q0, p0), "initial_state");
  need(P->ops->constraint(P->data, q0, g0) | P->ops->jacobian(P->data, q0, x) |
           solve_mass(P, q0, p0, v0) | cdt(P, q0, gt, Gt, gtt),
       "callbacks at the initial state");
  densify(P, x, G0);
  for (int i = 0; i < m; i++) {
    psi[i] = dot(G0 + i * n, v0, n) + gt[i];
  }
  sunrealtype zero[MAXM] = {0};
  agree("g(q0, 0) = 0", g0, zero, m, 1e-13);
  agree("G v0 + g_t = 0", psi, zero, m, 1e-13);
  /* reference: g(q(t), t) = 0 and dq/dt = M^-1 p */
  if (P->ops->reference) {
    for (int k = 0; k < 5; k++) {
      sunrealtype t = 0.7 * k + 0.1, qr[MAXN], pr[MAXN], vr[MAXN], dq[MAXN] = {0};
      const sunrealtype h = 1e-3, cf[4] = {-2, -1, 1, 2}, wgt[4] = {1, -8, 8, -1};
      for (int j = 0; j < 4; j++) {
        need(P->ops->reference(P->data, t + cf[j] * h, qr, pr), "reference");
        for (int i = 0; i < n; i++) {
          dq[i] += wgt[j] * qr[i] / (12 * h);
        }
      }
      need(P->ops->reference(P->data, t, qr, pr) | set_time(P, t) |
               P->ops->constraint(P->data, qr, g0) | solve_mass(P, qr, pr, vr),
           "reference");
      agree("reference: g(q(t), t) = 0", g0, zero, m, 1e-13);
      agree("reference: dq/dt = M^-1 p", vr, dq, n, tol);
    }
  }
  printf("check %s: %s (worst relative error %.2e; declares 0x%x, time_dependent 0x%x, mass kind "
         "%d, %s G)\n",
         P->spec, failures ? "FAIL" : "ok", worst, dec, P->d.time_dependent, (int)P->d.mass_kind,
         P->d.jac_kind == CHS_JAC_CSR ? "CSR" : "dense");
  return failures ? 1 : 0;
}

/* ------------------------------------------------------------------ eval */
static void row(const char *name, const sunrealtype *x, int k) {
  printf("%s", name);
  for (int i = 0; i < k; i++) {
    printf(" %.17g", (double)x[i]);
  }
  printf("\n");
}

static int eval(inst *P, sunrealtype t, const char *qs) {
  int n = (int)P->d.n, m = (int)P->d.m;
  sunrealtype q[MAXN], x[MAXN * MAXN], y[MAXN * MAXN], gt[MAXM], Gt[MAXM * MAXN], gtt[MAXM];
  const char *s = qs;
  for (int i = 0; i < n; i++) {
    char *end;
    q[i] = strtod(s, &end);
    if (end == s || (*end != ',' && *end != '\0') || (*end == '\0' && i < n - 1)) {
      fprintf(stderr, "gen_harness: need %d comma-separated coordinates, got '%s'\n", n, qs);
      return 2;
    }
    s = end + 1;
  }
  need(set_time(P, t), "set_time");
  need(P->ops->potential(P->data, q, x), "potential");
  row("V", x, 1);
  need(P->ops->force(P->data, q, x), "force");
  row("F", x, n);
  need(P->ops->constraint(P->data, q, x), "constraint");
  row("g", x, m);
  need(P->ops->jacobian(P->data, q, y), "jacobian");
  densify(P, y, x);
  row("G", x, m * n);
  need(mass(P, q, x), "mass");
  row("M", x, n * n);
  need(cdt(P, q, gt, Gt, gtt), "constraint_dt");
  row("gt", gt, m);
  row("gtt", gtt, m);
  need(P->ops->initial_state(P->data, x, y), "initial_state");
  row("q0", x, n);
  row("p0", y, n);
  if (P->ops->initial_guess) { /* the state as the description states it, before projection */
    need(P->ops->initial_guess(P->data, x, y), "initial_guess");
    row("guess_q", x, n);
    row("guess_v", y, n);
  }
  return failures ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc >= 4 && strcmp(argv[1], "compare") == 0) {
    inst A, B;
    double tol = argc > 4 ? atof(argv[4]) : 1e-13;
    if (load(argv[2], &A) != 0) {
      return 2;
    }
    if (load(argv[3], &B) != 0) {
      unload(&A);
      return 2;
    }
    int rc = compare(&A, &B, tol);
    unload(&A);
    unload(&B);
    return rc;
  }
  if (argc >= 3 && strcmp(argv[1], "check") == 0) {
    inst A;
    double tol = argc > 3 ? atof(argv[3]) : 1e-8;
    if (load(argv[2], &A) != 0) {
      return 2;
    }
    int rc = check(&A, tol);
    unload(&A);
    return rc;
  }
  if (argc == 5 && strcmp(argv[1], "eval") == 0) {
    inst A;
    if (load(argv[2], &A) != 0) {
      return 2;
    }
    int rc = eval(&A, atof(argv[3]), argv[4]);
    unload(&A);
    return rc;
  }
  fprintf(stderr, "usage: gen_harness compare SPEC_A SPEC_B [TOL] | check SPEC [TOL] | "
                  "eval SPEC T Q1,Q2,...\n");
  return 2;
}
