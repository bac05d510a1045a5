/* SHAKE/RATTLE (Andersen 1983; Leimkuhler & Skeel 1994; [Li & Wang]) for H = 1/2 p^T M^{-1} p +
 * V(q) with holonomic constraints g(q) = 0, on the physical state (q, p) of a formulation whose
 * state is (q, p) (the formulation's right-hand side is not used; the problem's callbacks are):
 *
 *   p* = p_n + h/2 (F(q_n) - G(q_n)^T lambda),   q_{n+1} = q_n + h M^{-1} p*,   g(q_{n+1}) = 0,
 *   p_{n+1} = p* + h/2 (F(q_{n+1}) - G(q_{n+1})^T mu),   G(q_{n+1}) M^{-1} p_{n+1} = 0.
 *
 * lambda by simplified Newton (SHAKE) with the Gram matrix Q(q_n) = G(q_n) M^{-1} G(q_n)^T in
 * place of G(q_{n+1}) M^{-1} G(q_n)^T (they differ by O(h); the iteration contracts by that
 * factor), factored once per step by the formulation's Gram solver (dense Cholesky, band /
 * tridiagonal, or KLU: O(m) per step for a chain), to round-off (or to --rtol when given); mu by
 * one solve with the Gram matrix at q_{n+1}. Symplectic and second order; g and psi hold to the
 * Newton tolerance at every step, and the energy error stays bounded. One force evaluation per step
 * (F(q_{n+1}) is reused), counted as a right-hand side evaluation.
 *
 * Problems with a configuration-dependent M(q) or explicit time dependence take
 * rattle_step_general (RATTLE for H = 1/2 p^T M(q)^{-1} p + V(q, t), implicit in p, and g(q, t);
 * docs/mechanics.md "Symplectic methods for M(q) and g(q,t)"); the path above is unchanged. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../impl.h"
#include "fixed_step.h"
#include "tangent.h"

#define RATTLE_NEWTON_MAX 100

typedef struct {
  CHSFormulation f;
  CHSSystem *s;
  sunrealtype h, tol, t;
  sunindextype n, m;
  sunrealtype *q, *p, *F, *G0, *ph, *v, *w, *q1, *corr, *lam, *g, *dl, *z;
  long steps, force_evals, newton;
  int have_force;
  sunrealtype *gen;               /* general H or time dependence: v0, v1, work (n each) */
  chs_tangent_work tw;            /* tangent map: allocated on first use */
  sunrealtype *q0, *tq, *tp, *tr; /* n each: q_n, and dq1, dp, dr of one tangent */
} rattle_mem;

static const char *rattle_method_name(int i) {
  return i == 0 ? "" : NULL;
}

static void rattle_destroy(void *mem) {
  rattle_mem *r = mem;
  if (r) {
    free(r->q);
    free(r->gen);
    chs_tangent_work_free(&r->tw);
    free(r->q0);
    free(r);
  }
}

static int rattle_create(const char *options, CHSFormulation f, N_Vector y0, sunrealtype t0,
                         const CHSStepControl *ctl, void **out, CHSError *err) {
  if (options && *options) {
    return chs_error_set(err, CHS_ERR_NOTFOUND, "unknown method 'rattle:%s' (use rattle)", options);
  }
  if (!(ctl->h > 0)) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED, "method rattle needs a fixed step --h");
  }
  CHS_CALL(chs_fixed_step_need_physical(f, "rattle", err));
  CHS_CALL(chs_fixed_step_no_projector(f, "rattle", err));
  rattle_mem *r = calloc(1, sizeof *r);
  if (!r) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  sunindextype n = f->sys.n, m = f->sys.m, gs = f->sys.gsize;
  r->f = f;
  r->s = &f->sys;
  r->h = ctl->h;
  r->tol = ctl->rtol > 0 ? ctl->rtol : 0;
  r->t = t0;
  r->n = n;
  r->m = m;
  r->q = malloc((8 * (size_t)n + (size_t)gs + 4 * (size_t)m) * sizeof *r->q);
  if (!r->q) {
    rattle_destroy(r);
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  r->p = r->q + n;
  r->F = r->p + n;
  r->ph = r->F + n;
  r->v = r->ph + n;
  r->w = r->v + n;
  r->q1 = r->w + n;
  r->corr = r->q1 + n;
  r->G0 = r->corr + n;
  r->lam = r->G0 + gs;
  r->g = r->lam + m;
  r->dl = r->g + m;
  r->z = r->dl + m;
  memset(r->lam, 0, (size_t)m * sizeof *r->lam);
  if (r->s->general) {
    r->gen = malloc(3 * (size_t)n * sizeof *r->gen);
    if (!r->gen) {
      rattle_destroy(r);
      return chs_error_set(err, CHS_ERR_MEM, "out of memory");
    }
  }
  chs_fixed_step_load(y0, n, r->q, r->p);
  *out = r;
  return CHS_SUCCESS;
}

/* RATTLE for H = 1/2 p^T M(q)^{-1} p + V(q, t) and g(q, t) (Hairer-Lubich-Wanner, GNI VII.1;
 * Jay 1996), with Fh = -H_q (chs_fixed_step_hforce) and H_p(q, p) = M(q)^{-1} p:
 *
 *   p_h = p_n + h/2 (Fh(q_n, p_h, t_n) - G(q_n, t_n)^T lambda)            (implicit in p_h)
 *   q_{n+1} = q_n + h/2 (M(q_n)^{-1} + M(q_{n+1})^{-1}) p_h,   g(q_{n+1}, t_{n+1}) = 0,
 *   p_{n+1} = p_h + h/2 (Fh(q_{n+1}, p_h, t_{n+1}) - G(q_{n+1}, t_{n+1})^T mu),
 *   G(q_{n+1}, t_{n+1}) M(q_{n+1})^{-1} p_{n+1} + g_t(q_{n+1}, t_{n+1}) = 0.
 *
 * The first three equations are solved together by a simplified Newton iteration: each sweep
 * updates p_h and q_{n+1} from their equations at the current iterate and corrects lambda by
 * Q(q_n)^{-1} g / (h^2/2) (the SHAKE step of rattle_step), moving p_h and q_{n+1} along with it;
 * the sweep contracts by O(h) and is run until g holds and the sweep's change of (p_h, q_{n+1})
 * is at round-off (or below --rtol). The last two equations are explicit: mu costs one Gram
 * solve at q_{n+1}. For a constant M and autonomous g this is rattle_step's map (which remains
 * the path of such problems). */
static int rattle_step_general(rattle_mem *r, sunrealtype h, CHSError *err) {
  CHSSystem *s = r->s;
  sunindextype n = r->n, m = r->m;
  const CHSProblemOps *ops = s->ops;
  sunrealtype *q = r->q, *p = r->p, *Fh = r->F, *ph = r->ph, *v = r->v, *q1 = r->q1;
  sunrealtype *corr = r->corr, *v0 = r->gen, *v1 = v0 + n, *wk = v1 + n;
  const sunrealtype t0 = r->t, t1 = r->t + h, c = h * h / 2;
  if (chs_system_set_time(s, t0) != 0 || chs_system_gram_at(s, q) != 0) {
    return chs_error_set(err, CHS_ERR_SOLVER,
                         "rattle: constraint Jacobian or Gram matrix failed at t = %g", (double)t0);
  }
  memcpy(r->G0, s->G, (size_t)s->gsize * sizeof *r->G0);
  memcpy(ph, p, (size_t)n * sizeof *ph); /* predictor: p_h = p_n, q_{n+1} = q_n, the last lambda */
  memcpy(q1, q, (size_t)n * sizeof *q1);
  sunrealtype gscale = chs_fixed_step_gscale(q, n), prev = INFINITY;
  sunrealtype qscale = 1, pscale = 0;
  for (sunindextype i = 0; i < n; i++) {
    qscale = fmax(qscale, fabs(q[i]));
    pscale = fmax(pscale, fabs(p[i]));
  }
  int converged = 0;
  for (int it = 0; it < RATTLE_NEWTON_MAX && !converged; it++) {
    /* p_h from its equation at the current p_h and lambda; v0 = M(q_n)^{-1} p_h */
    if (chs_system_set_time(s, t0) != 0 || chs_fixed_step_hforce(s, q, ph, Fh, v, wk) != 0) {
      return chs_error_set(err, CHS_ERR_SOLVER, "rattle: force failed at t = %g", (double)t0);
    }
    r->force_evals++;
    chs_jac_tmv(s, r->G0, r->lam, corr);
    sunrealtype dp = 0, fs = 0;
    for (sunindextype i = 0; i < n; i++) {
      sunrealtype pn = p[i] + h / 2 * (Fh[i] - corr[i]);
      dp = fmax(dp, fabs(pn - ph[i]));
      fs = fmax(fs, fabs(h * Fh[i]));
      ph[i] = pn;
    }
    chs_mass_inv(s, ph, v0);
    /* q_{n+1} from its equation at the current q_{n+1} */
    if (chs_system_set_time(s, t1) != 0 || chs_system_mass_at(s, q1) != 0) {
      break;
    }
    chs_mass_inv(s, ph, v1);
    sunrealtype dq = 0;
    for (sunindextype i = 0; i < n; i++) {
      sunrealtype qn = q[i] + h / 2 * (v0[i] + v1[i]);
      dq = fmax(dq, fabs(qn - q1[i]));
      q1[i] = qn;
    }
    /* lambda: g(q_{n+1} - c M^{-1} G0^T dl) = 0 to first order, with Q(q_n) for G M^{-1} G0^T */
    if (ops->constraint(s->data, q1, r->g) != 0 || !chs_all_finite(r->g, m)) {
      break;
    }
    int gdone = chs_fixed_step_g_done(r->g, m, r->tol, gscale);
    if (chs_gram_solve(s->gram, r->g, r->dl) != 0) {
      break;
    }
    for (sunindextype i = 0; i < m; i++) {
      r->dl[i] /= c;
      r->lam[i] += r->dl[i];
    }
    chs_jac_tmv(s, r->G0, r->dl, corr);
    chs_mass_inv(s, corr, v1); /* M(q_{n+1})^{-1}: a simplified Newton step */
    for (sunindextype i = 0; i < n; i++) {
      ph[i] -= h / 2 * corr[i];
      q1[i] -= c * v1[i];
    }
    r->newton++;
    /* the sweep's change relative to the sizes of q and p (at round-off: done; or when it stops
     * shrinking at the level of rounding noise) */
    sunrealtype d = fmax(dq / qscale, dp / fmax(fmax(pscale, fs), SUN_SMALL_REAL));
    if (!isfinite(d)) {
      break;
    }
    sunrealtype level = fmax(r->tol, 4 * SUN_UNIT_ROUNDOFF);
    converged = gdone && (d <= level || (it > 0 && d >= 0.5 * prev && d <= 1e3 * level));
    prev = d;
  }
  if (!converged) {
    return chs_error_set(err, CHS_ERR_SOLVER,
                         "rattle: the stage equations (implicit in p for M(q)) did not converge "
                         "at t = %g (reduce --h)",
                         (double)t0);
  }
  memcpy(q, q1, (size_t)n * sizeof *q);
  /* second half kick at (q_{n+1}, p_h, t_{n+1}), mu from the hidden constraint */
  if (chs_system_set_time(s, t1) != 0 || chs_fixed_step_hforce(s, q, ph, Fh, v, wk) != 0) {
    return chs_error_set(err, CHS_ERR_SOLVER, "rattle: force failed at t = %g", (double)t1);
  }
  r->force_evals++;
  for (sunindextype i = 0; i < n; i++) {
    p[i] = ph[i] + h / 2 * Fh[i];
  }
  if (chs_system_gram_at(s, q) != 0 || chs_system_time_terms(s, q) != 0) {
    return chs_error_set(err, CHS_ERR_SOLVER,
                         "rattle: constraint Jacobian or Gram matrix failed at t = %g", (double)t1);
  }
  chs_mass_inv(s, p, v);
  chs_system_psi(s, v, r->g);
  CHS_CALL(chs_gram_solve(s->gram, r->g, r->z));
  chs_jac_tmv(s, s->G, r->z, v);
  for (sunindextype i = 0; i < n; i++) {
    p[i] -= v[i];
  }
  r->t += h;
  r->steps++;
  return 0;
}

static int rattle_step(void *mem, sunrealtype h, CHSError *err) {
  rattle_mem *r = mem;
  CHSSystem *s = r->s;
  if (s->general) {
    return rattle_step_general(r, h, err);
  }
  sunindextype n = r->n, m = r->m;
  const CHSProblemOps *ops = s->ops;
  sunrealtype *q = r->q, *p = r->p, *F = r->F, *ph = r->ph, *v = r->v, *w = r->w;
  if (!r->have_force) {
    if (ops->force(s->data, q, F) != 0) {
      return chs_error_set(err, CHS_ERR_SOLVER, "rattle: force failed at t = %g", (double)r->t);
    }
    r->force_evals++;
    r->have_force = 1;
  }
  if (chs_system_gram_at(s, q) != 0) { /* G(q_n) and Q(q_n) factored */
    return chs_system_gram_fail(s, err, "rattle", r->t);
  }
  memcpy(r->G0, s->G, (size_t)s->gsize * sizeof *r->G0);
  /* Unconstrained half kick and drift, then SHAKE: lambda with q1 = qb - h^2/2 M^{-1} G0^T lambda
   */
  sunrealtype *qb = w; /* q_n + h M^{-1}(p_n + h/2 F) */
  for (sunindextype i = 0; i < n; i++) {
    ph[i] = p[i] + h / 2 * F[i];
  }
  chs_mass_inv(s, ph, v);
  for (sunindextype i = 0; i < n; i++) {
    qb[i] = q[i] + h * v[i];
  }
  memset(r->lam, 0, (size_t)m * sizeof *r->lam);
  sunrealtype *q1 = r->q1, *corr = r->corr;
  memcpy(q1, qb, (size_t)n * sizeof *q1);
  int converged = 0, polish = 0;
  sunrealtype gscale = chs_fixed_step_gscale(q, n), c = h * h / 2;
  for (int it = 0; it < RATTLE_NEWTON_MAX; it++) {
    if (ops->constraint(s->data, q1, r->g) != 0 || !chs_all_finite(r->g, m)) {
      break;
    }
    if (chs_fixed_step_g_done(r->g, m, r->tol, gscale)) {
      converged = 1;
      /* to round-off: one more correction settles the last bits (not with a user tolerance) */
      if (r->tol > 0 || polish++ > 0) {
        break;
      }
    }
    /* g(q1 - c M^{-1} G0^T dl) = 0 with c = h^2/2: dl = Q(q_n)^{-1} g / c */
    if (chs_gram_solve(s->gram, r->g, r->dl) != 0) {
      break;
    }
    for (sunindextype i = 0; i < m; i++) {
      r->dl[i] /= c;
      r->lam[i] += r->dl[i];
    }
    chs_jac_tmv(s, r->G0, r->dl, v);
    chs_mass_inv(s, v, corr);
    for (sunindextype i = 0; i < n; i++) {
      q1[i] -= c * corr[i];
    }
    r->newton++;
  }
  if (!converged) {
    return chs_error_set(err, CHS_ERR_SOLVER,
                         "rattle: position constraint iteration did not converge at t = %g "
                         "(reduce --h)",
                         (double)r->t);
  }
  /* p* = p_n + h/2 (F - G0^T lambda); q_{n+1} = q1 */
  chs_jac_tmv(s, r->G0, r->lam, v);
  for (sunindextype i = 0; i < n; i++) {
    ph[i] = p[i] + h / 2 * (F[i] - v[i]);
  }
  memcpy(q, q1, (size_t)n * sizeof *q);
  /* Second half kick with mu from G(q_{n+1}) M^{-1} p_{n+1} = 0. */
  if (ops->force(s->data, q, F) != 0) {
    return chs_error_set(err, CHS_ERR_SOLVER, "rattle: force failed at t = %g", (double)r->t);
  }
  r->force_evals++;
  for (sunindextype i = 0; i < n; i++) {
    p[i] = ph[i] + h / 2 * F[i];
  }
  if (chs_system_gram_at(s, q) != 0) {
    return chs_system_gram_fail(s, err, "rattle", r->t);
  }
  chs_mass_inv(s, p, v);
  chs_jac_mv(s, s->G, v, r->g);
  CHS_CALL(chs_gram_solve(s->gram, r->g, r->z));
  chs_jac_tmv(s, s->G, r->z, v);
  for (sunindextype i = 0; i < n; i++) {
    p[i] -= v[i];
  }
  r->t += h;
  r->steps++;
  return 0;
}

/* The step's derivative (tangent.h), after rattle_step from q0 (r->q0): half kick at q0, the
 * position step with lambda (c = h^2/2), half kick at q1, the momentum projection with mu (r->z).
 */
static int rattle_tangent_step(void *mem, sunrealtype h, int k, sunrealtype *dz, N_Vector y,
                               CHSError *err) {
  rattle_mem *r = mem;
  CHSSystem *s = r->s;
  sunindextype n = r->n;
  CHS_CALL(chs_tangent_need_solved(r->tol, 0, "rattle", err));
  if (s->general) { /* the kicks' derivative in q needs second derivatives of M(q) */
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "rattle: no exact tangent map for M(q) or explicit time dependence");
  }
  if (!r->q0) {
    r->q0 = malloc(4 * (size_t)n * sizeof *r->q0);
    if (!r->q0 || chs_tangent_work_alloc(&r->tw, s) != 0) {
      return chs_error_set(err, CHS_ERR_MEM, "out of memory");
    }
    r->tq = r->q0 + n;
    r->tp = r->tq + n;
    r->tr = r->tp + n;
  }
  memcpy(r->q0, r->q, (size_t)n * sizeof *r->q0);
  CHS_CALL(rattle_step(r, h, err));
  for (int j = 0; j < k; j++) {
    sunrealtype *dq = dz + 2 * n * j, *dp = dq + n, *tq = r->tq, *tp = r->tp;
    memcpy(tp, dp, (size_t)n * sizeof *tp);
    int rc = chs_tangent_kick(s, r->q0, dq, h / 2, tp, &r->tw);
    chs_mass_inv(s, tp, tq);
    for (sunindextype i = 0; i < n; i++) {
      tq[i] = dq[i] + h * tq[i];
    }
    if (rc == 0) {
      rc = chs_tangent_position(s, r->q0, r->G0, r->lam, h * h / 2, dq, tq, r->tr, &r->tw);
    }
    for (sunindextype i = 0; i < n; i++) {
      tp[i] -= h / 2 * r->tr[i];
    }
    if (rc == 0) {
      rc = chs_tangent_kick(s, r->q, tq, h / 2, tp, &r->tw);
    }
    if (rc == 0) {
      rc = chs_tangent_momentum(s, r->q, r->p, r->z, tq, tp, &r->tw);
    }
    if (rc != 0) {
      return chs_error_set(err, CHS_ERR_SOLVER, "rattle: tangent map failed at t = %g",
                           (double)r->t);
    }
    memcpy(dq, tq, (size_t)n * sizeof *dq);
    memcpy(dp, tp, (size_t)n * sizeof *dp);
  }
  chs_fixed_step_store(r->q, r->p, n, y);
  return 0;
}

static int rattle_evolve(void *mem, sunrealtype tout, N_Vector y, sunrealtype *tret, int one_step,
                         CHSError *err) {
  rattle_mem *r = mem;
  int rc = chs_fixed_step_evolve(r, rattle_step, &r->t, r->h, tout, one_step, err);
  chs_fixed_step_store(r->q, r->p, r->n, y);
  *tret = r->t;
  return rc;
}

static int rattle_stats(void *mem, CHSIntegratorStats *st) {
  rattle_mem *r = mem;
  chs_fixed_step_stats(st, r->steps, r->force_evals, -1);
  return 0;
}

const CHSIntegratorOps chs_integrator_rattle = {
    .family = "rattle",
    .summary = "SHAKE/RATTLE: symplectic, constraints g and psi to round-off, bounded energy",
    .method_name = rattle_method_name,
    .create = rattle_create,
    .evolve = rattle_evolve,
    .get_stats = rattle_stats,
    .destroy = rattle_destroy,
    .needs_hamiltonian = 1, /* half-kicks with -H_q only (no non-conservative force) */
    .tangent_step = rattle_tangent_step,
};
