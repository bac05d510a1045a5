/* s-stage Gauss-Legendre Runge-Kutta methods (s = 1, 2, 3; order 2s) with fixed steps and the
 * functional iteration of [Leimkuhler & Reich] Algorithm 2.1: the stage derivatives K_i are
 * iterated, K_i <- f(y_n + h sum_j a_ij K_j), until the iteration stagnates at round-off (or, with
 * --rtol, until max |dK| <= rtol (1 + |K|)). Solved to round-off the map is symplectic for
 * canonical Hamiltonian systems ([Leimkuhler & Reich] Sec. 2.1: "must be iterated to convergence
 * ... to insure that it defines a symplectic map") and preserves quadratic first integrals. gauss:1
 * is the implicit midpoint rule with functional iteration ([Seiler, Dirac] Sec. 7 solves it to
 * 1e-5).
 *
 * A chs stepper (not SUNDIALS): ARKODE's implicit steppers use Newton; this family exists for
 * the functional iteration the papers prescribe. Outputs are reached exactly by shortening the
 * last step before an output time. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <nvector/nvector_serial.h>
#include "../impl.h"
#include "fixed_step.h"

#define GAUSS_MAX_ITER 200

typedef struct {
  int s;
  sunrealtype a[9], b[3], c[3];
} gauss_table;

typedef struct {
  CHSFormulation f;
  gauss_table T;
  int stage_projection; /* gauss:s:stage: project the stage arguments, not the end point */
  int project_step;     /* ... in this step (every k-th step with --project-every k) */
  sunrealtype h, tol, t;
  sunindextype n;
  N_Vector y, ystage, k; /* state, a stage argument, one stage derivative */
  sunrealtype *K, *Knew; /* s * n stage derivatives */
  long steps, rhs_evals, iterations;
  /* tangent map (gauss_tangent_step), allocated on first use: y_n, stage values Y_i, dK, dKnew
   * (s n each), u and three difference levels (n each); N_Vectors for f(Y +- eps u) */
  sunrealtype *ty0, *tY, *tdK, *tdKn, *tu, *tD;
  N_Vector tyv, tfp, tfm;
} gauss_mem;

static int gauss_coefficients(int s, gauss_table *T) {
  memset(T, 0, sizeof *T);
  T->s = s;
  const sunrealtype r3 = sqrt(3.0), r15 = sqrt(15.0);
  if (s == 1) {
    T->a[0] = 0.5;
    T->b[0] = 1;
    T->c[0] = 0.5;
  } else if (s == 2) {
    const sunrealtype a[4] = {0.25, 0.25 - r3 / 6, 0.25 + r3 / 6, 0.25};
    memcpy(T->a, a, sizeof a);
    T->b[0] = T->b[1] = 0.5;
    T->c[0] = 0.5 - r3 / 6;
    T->c[1] = 0.5 + r3 / 6;
  } else if (s == 3) {
    const sunrealtype a[9] = {
        5.0 / 36, 2.0 / 9 - r15 / 15,  5.0 / 36 - r15 / 30, 5.0 / 36 + r15 / 24,
        2.0 / 9,  5.0 / 36 - r15 / 24, 5.0 / 36 + r15 / 30, 2.0 / 9 + r15 / 15,
        5.0 / 36};
    memcpy(T->a, a, sizeof a);
    T->b[0] = T->b[2] = 5.0 / 18;
    T->b[1] = 4.0 / 9;
    T->c[0] = 0.5 - r15 / 10;
    T->c[1] = 0.5;
    T->c[2] = 0.5 + r15 / 10;
  } else {
    return CHS_ERR_ARG;
  }
  return 0;
}

static const char *gauss_method_name(int i) {
  static const char *const names[] = {"1", "2", "3"};
  return i >= 0 && i < 3 ? names[i] : NULL;
}

static void gauss_destroy(void *mem) {
  gauss_mem *g = mem;
  if (!g) {
    return;
  }
  if (g->y) {
    N_VDestroy(g->y);
  }
  if (g->ystage) {
    N_VDestroy(g->ystage);
  }
  if (g->k) {
    N_VDestroy(g->k);
  }
  N_Vector *tv[] = {&g->tyv, &g->tfp, &g->tfm};
  for (int i = 0; i < 3; i++) {
    if (*tv[i]) {
      N_VDestroy(*tv[i]);
    }
  }
  free(g->ty0);
  free(g->K);
  free(g);
}

static int gauss_create(const char *options, CHSFormulation f, N_Vector y0, sunrealtype t0,
                        const CHSStepControl *ctl, void **out, CHSError *err) {
  char *end = NULL;
  long s = options ? strtol(options, &end, 10) : 0;
  gauss_table T;
  int stage = end && strcmp(end, ":stage") == 0;
  if (!options || end == options || (*end != '\0' && !stage) || s < 1 || s > 3 ||
      gauss_coefficients((int)s, &T) != 0) { /* range before the cast: gauss:4294967298 */
    return chs_error_set(err, CHS_ERR_NOTFOUND,
                         "unknown method 'gauss:%s' (stages 1, 2 or 3: gauss:2, gauss:1:stage)",
                         options ? options : "");
  }
  if (stage && !CHSFormulation_GetProjector(f)) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "gauss:%ld:stage projects the stage values: give --project", s);
  }
  if (!(ctl->h > 0)) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "method gauss:%ld has no error estimate: use a fixed step --h", s);
  }
  gauss_mem *g = calloc(1, sizeof *g);
  if (!g) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  g->f = f;
  g->T = T;
  g->stage_projection = stage;
  g->h = ctl->h;
  g->tol = ctl->rtol > 0 ? ctl->rtol : 0;
  g->t = t0;
  g->n = N_VGetLength(y0);
  g->y = N_VClone(y0);
  g->ystage = N_VClone(y0);
  g->k = N_VClone(y0);
  g->K = calloc(2 * (size_t)T.s * (size_t)g->n, sizeof(sunrealtype));
  if (!g->y || !g->ystage || !g->k || !g->K) {
    gauss_destroy(g);
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  g->Knew = g->K + T.s * g->n;
  N_VScale(1, y0, g->y);
  *out = g;
  return CHS_SUCCESS;
}

/* K_i = f(t + c_i h, y + h sum_j a_ij K_j) for all i, from the current K, into Knew. */
static int gauss_sweep(gauss_mem *g, sunrealtype h) {
  sunindextype n = g->n;
  int s = g->T.s;
  const sunrealtype *y = N_VGetArrayPointer(g->y);
  sunrealtype *ys = N_VGetArrayPointer(g->ystage);
  for (int i = 0; i < s; i++) {
    for (sunindextype l = 0; l < n; l++) {
      sunrealtype acc = 0;
      for (int j = 0; j < s; j++) {
        acc += g->T.a[i * s + j] * g->K[j * n + l];
      }
      ys[l] = y[l] + h * acc;
    }
    if (g->stage_projection &&
        g->project_step) { /* [Leimkuhler & Reich] Sec. 4: stage projection */
      int prc = chs_projector_now(CHSFormulation_GetProjector(g->f), g->ystage);
      if (prc != 0) {
        return prc;
      }
    }
    int rc = CHSFormulation_Rhs(g->t + g->T.c[i] * h, g->ystage, g->k, g->f);
    g->rhs_evals++;
    if (rc != 0) {
      return rc;
    }
    memcpy(g->Knew + i * n, N_VGetArrayPointer(g->k), (size_t)n * sizeof(sunrealtype));
  }
  return 0;
}

static int gauss_step(void *mem, sunrealtype h, CHSError *err) {
  gauss_mem *g = mem;
  sunindextype n = g->n;
  int s = g->T.s;
  if (g->stage_projection) {
    CHSProjector pr = CHSFormulation_GetProjector(g->f);
    g->project_step = pr && (g->steps + 1) % chs_projector_every(pr) == 0;
  }
  /* Predictor: all stage derivatives equal f(t_n, y_n) (or the previous step's last value). */
  if (g->steps == 0) {
    int rc = CHSFormulation_Rhs(g->t, g->y, g->k, g->f);
    g->rhs_evals++;
    if (rc != 0) {
      return chs_error_set(err, CHS_ERR_SOLVER, "gauss:%d: right-hand side failed at t = %g: %s", s,
                           (double)g->t, CHSFormulation_GetLastFailure(g->f)->msg);
    }
    for (int i = 0; i < s; i++) {
      memcpy(g->K + i * n, N_VGetArrayPointer(g->k), (size_t)n * sizeof(sunrealtype));
    }
  }
  sunrealtype prev = INFINITY, best = INFINITY;
  int converged = 0;
  for (int it = 0; it < GAUSS_MAX_ITER && !converged; it++) {
    int rc = gauss_sweep(g, h);
    if (rc != 0) {
      return chs_error_set(err, CHS_ERR_SOLVER, "gauss:%d: right-hand side failed at t = %g: %s", s,
                           (double)g->t, CHSFormulation_GetLastFailure(g->f)->msg);
    }
    g->iterations++;
    sunrealtype delta = 0, scale = 0;
    for (sunindextype l = 0; l < s * n; l++) {
      delta = fmax(delta, fabs(g->Knew[l] - g->K[l]));
      scale = fmax(scale, fabs(g->Knew[l]));
    }
    memcpy(g->K, g->Knew, (size_t)(s * n) * sizeof(sunrealtype));
    if (g->tol > 0) {
      converged = delta <= g->tol * (1 + scale);
    } else {
      /* round-off: the change is at the level of a few ulps, or stopped decreasing there */
      converged = delta <= 4 * SUN_UNIT_ROUNDOFF * (1 + scale) ||
                  (it > 2 && delta >= prev && delta <= 1e4 * SUN_UNIT_ROUNDOFF * (1 + scale));
    }
    /* diverging: far above the best change so far (an alternating but contracting iteration,
     * as on the chain molecule, is not divergence) */
    if (!isfinite(delta) || (it > 10 && delta > 100 * best)) {
      break;
    }
    best = fmin(best, delta);
    prev = delta;
  }
  if (!converged) {
    return chs_error_set(err, CHS_ERR_SOLVER,
                         "gauss:%d: functional iteration did not converge at t = %g with h = %g "
                         "(reduce --h)",
                         s, (double)g->t, (double)h);
  }
  sunrealtype *y = N_VGetArrayPointer(g->y);
  for (sunindextype l = 0; l < n; l++) {
    sunrealtype acc = 0;
    for (int j = 0; j < s; j++) {
      acc += g->T.b[j] * g->K[j * n + l];
    }
    y[l] += h * acc;
  }
  g->t += h;
  g->steps++;
  CHSProjector proj = CHSFormulation_GetProjector(g->f);
  if (proj && !g->stage_projection) { /* endpoint projection */
    int rc = CHSProjector_Apply(proj, g->t, g->y);
    if (rc != 0) {
      return chs_error_set(err, CHS_ERR_SOLVER, "gauss:%d: projection failed at t = %g", s,
                           (double)g->t);
    }
  }
  return 0;
}

/* J(Y) u for the formulation's right-hand side by central differences along u / |u| at eps0 =
 * 1e-2 (1 + |Y|), eps0/2, eps0/4, extrapolated to O(eps^6): relative error ~ 1e-13, and a step
 * multiplies it by h. */
#define GAUSS_JV_LEVELS 3
static int gauss_jv(gauss_mem *g, sunrealtype t, const sunrealtype *Y, const sunrealtype *u,
                    sunrealtype *out) {
  sunindextype n = g->n;
  sunrealtype nu = chs_norm2(u, n), ymax = 0;
  if (!(nu > 0)) {
    memset(out, 0, (size_t)n * sizeof *out);
    return 0;
  }
  for (sunindextype l = 0; l < n; l++) {
    ymax = fmax(ymax, fabs(Y[l]));
  }
  sunrealtype eps = 1e-2 * (1 + ymax);
  sunrealtype *yv = N_VGetArrayPointer(g->tyv);
  for (int lev = 0; lev < GAUSS_JV_LEVELS; lev++, eps /= 2) {
    sunrealtype *D = g->tD + lev * n;
    for (int sgn = 0; sgn < 2; sgn++) {
      sunrealtype e = sgn == 0 ? eps : -eps;
      for (sunindextype l = 0; l < n; l++) {
        yv[l] = Y[l] + e * u[l] / nu;
      }
      int rc = CHSFormulation_Rhs(t, g->tyv, sgn == 0 ? g->tfp : g->tfm, g->f);
      g->rhs_evals++;
      if (rc != 0) {
        return rc;
      }
    }
    const sunrealtype *fp = N_VGetArrayPointer(g->tfp), *fm = N_VGetArrayPointer(g->tfm);
    for (sunindextype l = 0; l < n; l++) {
      D[l] = (fp[l] - fm[l]) / (2 * eps);
    }
  }
  chs_richardson_central(g->tD, GAUSS_JV_LEVELS, n);
  for (sunindextype l = 0; l < n; l++) {
    out[l] = nu * g->tD[(GAUSS_JV_LEVELS - 1) * n + l];
  }
  return 0;
}

/* One step and its tangent map: dK_i = J(Y_i) (dy + h sum_j a_ij dK_j) iterated (the same
 * contraction as the functional iteration) until the change stagnates at the level of the
 * differences, dy1 = dy + h sum_i b_i dK_i. The state must be the physical (q, p) (the tangents
 * are), solved to round-off (with a tolerance the map is not the method's), and no projection (it
 * has no tangent map here): CHS_ERR_UNSUPPORTED otherwise. */
static int gauss_tangent_step(void *mem, sunrealtype h, int k, sunrealtype *dz, N_Vector yout,
                              CHSError *err) {
  gauss_mem *g = mem;
  CHSFormulation f = g->f;
  sunindextype n = g->n;
  int s = g->T.s;
  if (f->ops->to_physical || f->size != 2 * f->sys.n || CHSFormulation_GetProjector(f) ||
      g->tol > 0) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "gauss: tangent map only on the physical (q, p), solved to round-off, "
                         "without projection");
  }
  if (!g->ty0) {
    g->ty0 = malloc(((size_t)(3 * s + 2 + GAUSS_JV_LEVELS) * (size_t)n) * sizeof *g->ty0);
    g->tyv = N_VClone(g->y);
    g->tfp = N_VClone(g->y);
    g->tfm = N_VClone(g->y);
    if (!g->ty0 || !g->tyv || !g->tfp || !g->tfm) {
      return chs_error_set(err, CHS_ERR_MEM, "out of memory");
    }
    g->tY = g->ty0 + n;
    g->tdK = g->tY + s * n;
    g->tdKn = g->tdK + s * n;
    g->tu = g->tdKn + s * n;
    g->tD = g->tu + n;
  }
  memcpy(g->ty0, N_VGetArrayPointer(g->y), (size_t)n * sizeof *g->ty0);
  sunrealtype t0 = g->t;
  CHS_CALL(gauss_step(g, h, err));
  for (int i = 0; i < s; i++) {
    for (sunindextype l = 0; l < n; l++) {
      sunrealtype acc = 0;
      for (int j = 0; j < s; j++) {
        acc += g->T.a[i * s + j] * g->K[j * n + l];
      }
      g->tY[i * n + l] = g->ty0[l] + h * acc;
    }
  }
  for (int t = 0; t < k; t++) {
    sunrealtype *dy = dz + (sunindextype)t * n; /* n = 2 x the problem's n */
    memset(g->tdK, 0, (size_t)(s * n) * sizeof *g->tdK);
    sunrealtype prev = INFINITY;
    int converged = 0;
    for (int it = 0; it < GAUSS_MAX_ITER && !converged; it++) {
      for (int i = 0; i < s; i++) {
        for (sunindextype l = 0; l < n; l++) {
          sunrealtype acc = 0;
          for (int j = 0; j < s; j++) {
            acc += g->T.a[i * s + j] * g->tdK[j * n + l];
          }
          g->tu[l] = dy[l] + h * acc;
        }
        if (gauss_jv(g, t0 + g->T.c[i] * h, g->tY + i * n, g->tu, g->tdKn + i * n) != 0) {
          return chs_error_set(err, CHS_ERR_SOLVER,
                               "gauss:%d: right-hand side failed in the tangent map at t = %g", s,
                               (double)t0);
        }
      }
      sunrealtype delta = 0, scale = 0;
      for (sunindextype l = 0; l < s * n; l++) {
        delta = fmax(delta, fabs(g->tdKn[l] - g->tdK[l]));
        scale = fmax(scale, fabs(g->tdKn[l]));
      }
      memcpy(g->tdK, g->tdKn, (size_t)(s * n) * sizeof *g->tdK);
      converged = delta <= 4 * SUN_UNIT_ROUNDOFF * scale ||
                  (it > 2 && delta >= prev && delta <= 1e4 * SUN_UNIT_ROUNDOFF * scale);
      if (!isfinite(delta)) {
        break;
      }
      prev = delta;
    }
    if (!converged) {
      return chs_error_set(err, CHS_ERR_SOLVER,
                           "gauss:%d: tangent iteration did not converge at t = %g", s, (double)t0);
    }
    for (sunindextype l = 0; l < n; l++) {
      sunrealtype acc = 0;
      for (int j = 0; j < s; j++) {
        acc += g->T.b[j] * g->tdK[j * n + l];
      }
      dy[l] += h * acc;
    }
  }
  N_VScale(1, g->y, yout);
  return 0;
}

static int gauss_evolve(void *mem, sunrealtype tout, N_Vector y, sunrealtype *tret, int one_step,
                        CHSError *err) {
  gauss_mem *g = mem;
  int rc = chs_fixed_step_evolve(g, gauss_step, &g->t, g->h, tout, one_step, err);
  *tret = g->t;
  N_VScale(1, g->y, y);
  return rc;
}

static int gauss_reinit(void *mem, sunrealtype t, N_Vector y) {
  gauss_mem *g = mem;
  N_VScale(1, y, g->y);
  g->t = t;
  long steps = g->steps;
  g->steps = 0; /* re-predict the stages from f(t, y) */
  int rc = CHSFormulation_Rhs(t, g->y, g->k, g->f);
  g->rhs_evals++;
  for (int i = 0; rc == 0 && i < g->T.s; i++) {
    memcpy(g->K + i * g->n, N_VGetArrayPointer(g->k), (size_t)g->n * sizeof(sunrealtype));
  }
  g->steps = steps;
  return rc == 0 ? 0 : CHS_ERR_SOLVER;
}

static int gauss_stats(void *mem, CHSIntegratorStats *st) {
  gauss_mem *g = mem;
  chs_fixed_step_stats(st, g->steps, g->rhs_evals, -1);
  return 0;
}

const CHSIntegratorOps chs_integrator_gauss = {
    .family = "gauss",
    .summary = "Gauss-Legendre s = 1, 2, 3 (order 2s) with functional iteration to round-off "
               "([Leimkuhler & Reich] Alg. 2.1; symplectic)",
    .method_name = gauss_method_name,
    .create = gauss_create,
    .evolve = gauss_evolve,
    .get_stats = gauss_stats,
    .reinit = gauss_reinit,
    .destroy = gauss_destroy,
    .tangent_step = gauss_tangent_step,
};

/* midpoint:fixed[:tol=X]: the implicit midpoint rule with functional iteration, i.e. gauss:1
 * ([Seiler, Dirac] Sec. 7 iterates it to 1e-5: midpoint:fixed:tol=1e-5), to round-off without tol.
 */
static const char *midpoint_method_name(int i) {
  return i == 0 ? "fixed" : NULL;
}

static int midpoint_create(const char *options, CHSFormulation f, N_Vector y0, sunrealtype t0,
                           const CHSStepControl *ctl, void **out, CHSError *err) {
  CHSStepControl c = *ctl;
  const char *o = options ? options : "";
  if (strncmp(o, "fixed", 5) != 0 || (o[5] != '\0' && strncmp(o + 5, ":tol=", 5) != 0)) {
    return chs_error_set(err, CHS_ERR_NOTFOUND,
                         "unknown method 'midpoint:%s' (midpoint:fixed or midpoint:fixed:tol=1e-5)",
                         o);
  }
  if (o[5] != '\0') {
    char *end = NULL;
    c.rtol = strtod(o + 10, &end);
    if (end == o + 10 || *end != '\0' || !(c.rtol > 0) || !isfinite(c.rtol)) {
      return chs_error_set(err, CHS_ERR_ARG, "midpoint:%s: tol must be a positive number", o);
    }
  } else {
    c.rtol = 0;
  }
  return gauss_create("1", f, y0, t0, &c, out, err);
}

const CHSIntegratorOps chs_integrator_midpoint = {
    .family = "midpoint",
    .summary = "implicit midpoint rule with functional iteration (= gauss:1), to round-off or "
               "to tol=X ([Seiler, Dirac] Sec. 7: midpoint:fixed:tol=1e-5)",
    .method_name = midpoint_method_name,
    .create = midpoint_create,
    .evolve = gauss_evolve,
    .get_stats = gauss_stats,
    .reinit = gauss_reinit,
    .destroy = gauss_destroy,
    .tangent_step = gauss_tangent_step,
};
