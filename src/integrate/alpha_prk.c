/* alpha-PRK: energy- and quadratic-invariant-preserving parametrized partitioned Runge-Kutta
 * methods for Hamiltonian systems with holonomic constraints ([Li & Wang]: L. Li & D. Wang, "Energy
 * and quadratic invariants preserving methods for Hamiltonian systems with holonomic
 * constraints", 2020). Our copy of the paper lost its formulas; the family is rebuilt here from
 * the properties the paper states (abstract, Sec. 1, Sec. 2.1, Sec. 4 title): (i) alpha = 0 is the
 * Lobatto IIIA-IIIB pair (RATTLE for s = 2); (ii) for every fixed alpha the method is a symplectic
 * PRK that keeps g = 0 and psi = 0 exactly and conserves all quadratic invariants; (iii) for small
 * h there is alpha* = alpha(h, q_n, p_n) with H(q_{n+1}, p_{n+1}) = H(q_n, p_n); (iv) the order
 * is the base method's.
 *
 * Derivation. The stepper is Jay's (lobatto.c): stages Q_i = q_n + h sum_j a_ij M^{-1} P_j,
 * P_i = p_n + h sum_j ah_ij (F(Q_j) - G(Q_j)^T Lambda_j), g(Q_i) = 0 for i >= 2, q_{n+1} = Q_s,
 * p_{n+1} = p_n + h sum_j b_j (...), psi(q_{n+1}, p_{n+1}) = 0. It needs the structure
 *   (J)  a_1j = 0 (Q_1 = q_n),  a_sj = b_j (q_{n+1} = Q_s is on g = 0),  ah_is = 0
 * (Lambda_s only in p_{n+1}, fixed by psi = 0), and it is symplectic when ([Li & Wang] (2.2))
 *   (S)  b_i ah_ij + b_j a_ji = b_i b_j  for all i, j  (and the same weights b for q and p).
 * For unconstrained problems (S) is also exactly the condition for conserving every quadratic
 * invariant q^T E p (HLW IV.2.2, Thm. 2.4); [Li & Wang] Thm. 3.1 extends this, through a discrete
 * Noether theorem, to the invariants of the constrained system (angular momentum of a
 * rotation-invariant chain).
 * Perturb the pair linearly, A(alpha) = A + alpha D, Ah(alpha) = Ah + alpha Dh, b fixed. Since
 * (S) is linear in (A, Ah), it holds for every alpha iff b_i Dh_ij + b_j D_ji = 0, i.e.
 *   Dh = -B^{-1} D^T B,   B = diag(b),
 * and then (ii) holds for every fixed alpha (symplectic, quadratic invariants). (J) holds for every
 * alpha iff rows 1 and s of D vanish: then column 1 and column s of Dh vanish by themselves
 * (Dh_i1 = -b_1 D_1i / b_i, Dh_is = -b_s D_si / b_i), so ah_i1 = b_1 and ah_is = 0 stay. Hence
 * g and psi are kept exactly (to the Newton tolerance) for every alpha.
 *   Consequence: with s = 2 stages rows 1 and s are all of D, so D = 0: RATTLE is the only
 * 2-stage method of this structure and has no one-parameter family around it. Writing RATTLE
 * with more stages needs a zero weight (b_i = 0 forces column i of D and Dh to vanish: the stage
 * stays disconnected) or a repeated stage (c_i = c_s: the stage system becomes singular at
 * alpha = 0). So the family starts at the 3-stage base: alpha-prk:3 around Lobatto IIIA-IIIB 3
 * (order 4), alpha-prk:4 around Lobatto 4 (order 6); `alpha-prk:2` is refused with this reason.
 *   Choice of D (rows 2 .. s-1). Two directions:
 *   D_1: D_i1 = 1, D_is = -1, all other entries 0. Then
 *   - D_1 1 = 0: the row sums of A(alpha) stay the nodes c (each Q_i still approximates
 *     q(t_n + c_i h)), and b^T Dh_1 = -(D_1 1)^T B = 0: the weights of the momentum update are
 *     those of the base quadrature;
 *   - D_ij + D_{s+1-i,s+1-j} = 0 and the same for Dh: A(alpha), Ah(alpha) satisfy the symmetry
 *     conditions of the base pair (a_ij + a_{s+1-i,s+1-j} = b_j), so every member is symmetric;
 *   - for s = 3, D_1 = e_2 (1, 0, -1), Dh_1 = -(b_2 / b_i) d_i in column 2: Dh_12 = -4,
 *     Dh_32 = 4.
 *   But b^T Dh_1 = 0 also means q_{n+1} = q_n + h sum_j b_j M^{-1} P_j does not move at first
 *   order in alpha, so de/dalpha ~ v_{n+1}^T dp_{n+1}/dalpha: it vanishes where the velocities
 *   do. There e(alpha) has a minimum near alpha = 0 and no root (we met this on the double
 *   pendulum: e(alpha) >= 5.7e-12 along D_1 at t = 9, h = 0.01).
 *   D_2: D_i1 = 1 only (row sum 1). Then b^T Dh_2 = -(D_2 1)^T B != 0 and q_{n+1} moves at first
 *   order (by alpha h^2 M^{-1} sum_i (b^T Dh_2)_i f_i), so de/dalpha also has the term
 *   -grad V . dq_{n+1}/dalpha, which does not vanish at rest. D_2 keeps (S) and (J), so all of
 *   (ii) holds along it too; it is not symmetric.
 *   Each step searches along D_1 first (from its last alpha and slope); only where that search
 *   fails does the step take its alpha along D_2 (searched from 0). The stats count these
 *   steps: 7 of 4000 on the chain with h = 0.05, none on the pendulum.
 *   Energy. Per step alpha_n solves e(alpha) = H(q_{n+1}(alpha), p_{n+1}(alpha)) - H(q_0, p_0) = 0
 * (the initial energy rather than H(q_n, p_n): the solver tolerance then does not accumulate as a
 * random walk; each step still changes H by at most twice the tolerance) by a safeguarded secant
 * iteration nested around the stage Newton solve: it starts from alpha_{n-1} with the slope
 * de/dalpha of the previous step (a probe of size h^2 when unknown), caps each change of alpha
 * at 0.05 and |alpha| at 0.5, falls back to regula falsi when a secant step leaves a bracket,
 * backs off when the stage Newton fails; each e(alpha) is a full Newton solve warm-started from
 * the last one. It stops at |e| <= tol |H0| (tol = --rtol or 8 u), or at |e| <= 200 u |H0| when
 * the iteration no longer makes progress (the rounding level of e, a sum of rounded terms).
 *   Order. e(0) is the base method's energy error per step, O(h^{2s-1}), and de/dalpha = O(h^k),
 * so alpha_n = O(h^{2s-1-k}) -> 0 with h. Measured on the pendulum (tests and `chs reproduce
 * li-wang-alpha-prk`): max |alpha| = O(h^2) for alpha-prk:3, O(h^3 .. h^4) for alpha-prk:4. The
 * change of the step caused by alpha is then of the size of the base method's local error: the
 * order is kept (measured 4.00 and 6.01). With alpha chosen per step the map is no longer
 * symplectic (alpha depends on the state), but g, psi, the quadratic invariants and H are
 * conserved.
 *
 * Options: alpha-prk:s (s = 3, 4) chooses alpha per step; alpha-prk:s:alpha=A fixes alpha = A
 * (a symplectic member of the family; A = 0 is lobatto:s). Statistics: alpha_max = max |alpha_n|;
 * rhs_evals counts force evaluations of all the trial solves. Fixed steps (--h) only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cprk.h"
#include "fixed_step.h"
#include "tangent.h"

#define ALPHA_SECANT_MAX 40

typedef struct {
  chs_cprk *c;
  chs_cprk_tableau base, cur;
  sunrealtype D[2][CHS_CPRK_SMAX][CHS_CPRK_SMAX], Dh[2][CHS_CPRK_SMAX][CHS_CPRK_SMAX];
  int fixed;
  sunrealtype alpha;                  /* fixed alpha (alpha-prk:s:alpha=A) */
  sunrealtype alpha_k[2], slope_k[2]; /* last alpha and slope de/dalpha along D_1, D_2 */
  sunrealtype alpha_max, H0, Hscale;
  int have_H0;
  long energy_solves, fallback_steps;
  char who[32];
  sunrealtype *tbuf;  /* tangent map: d Phi / d alpha (2 n), M^{-1} p1 (n) */
  int moved;          /* the last search moved alpha (else the step kept it: a fixed-alpha map) */
  CHSError trial_err; /* why the last failed stage Newton solve failed */
} alpha_mem;

static const char *alpha_method_name(int i) {
  static const char *const names[] = {"3", "4"};
  return i >= 0 && i < 2 ? names[i] : NULL;
}

static void alpha_destroy(void *mem) {
  alpha_mem *a = mem;
  if (a) {
    chs_cprk_destroy(a->c);
    free(a->tbuf);
    free(a);
  }
}

/* A(alpha) = A + alpha D, Ah(alpha) = Ah + alpha Dh. */
static void alpha_set(alpha_mem *a, int k, sunrealtype alpha) {
  int s = a->base.s;
  a->cur = a->base;
  for (int i = 0; i < s; i++) {
    for (int j = 0; j < s; j++) {
      a->cur.A[i][j] += alpha * a->D[k][i][j];
      a->cur.Ah[i][j] += alpha * a->Dh[k][i][j];
    }
  }
}

/* For 1 < i < s: D_1 has D_i1 = 1, D_is = -1; D_2 has D_i1 = 1, D_ii = -1. Dh = -B^{-1} D^T B. */
static void alpha_directions(alpha_mem *a) {
  int s = a->base.s;
  memset(a->D, 0, sizeof a->D);
  for (int i = 1; i < s - 1; i++) {
    a->D[0][i][0] = 1;
    a->D[0][i][s - 1] = -1;
    a->D[1][i][0] = 1;
    /* row sum 1: b^T Dh != 0, so q_{n+1} moves at first order */
  }
  for (int k = 0; k < 2; k++) {
    for (int i = 0; i < s; i++) {
      for (int j = 0; j < s; j++) {
        a->Dh[k][i][j] = -a->base.b[j] * a->D[k][j][i] / a->base.b[i];
      }
    }
  }
}

int chs_alpha_prk_tableau(int s, int k, sunrealtype alpha, chs_cprk_tableau *t) {
  alpha_mem a;
  memset(&a, 0, sizeof a);
  if (s < 3 || k < 0 || k > 1 || chs_lobatto_tableau(s, &a.base) != 0) {
    return CHS_ERR_ARG;
  }
  alpha_directions(&a);
  alpha_set(&a, k, alpha);
  *t = a.cur;
  return 0;
}

static int alpha_create(const char *options, CHSFormulation f, N_Vector y0, sunrealtype t0,
                        const CHSStepControl *ctl, void **out, CHSError *err) {
  char o[64];
  int newton = 0;
  if (chs_cprk_newton_option(options, o, sizeof o, &newton) != 0) {
    return chs_error_set(err, CHS_ERR_ARG,
                         "bad option of method alpha-prk:%s: '%s' (newton=dense or "
                         "newton=structured)",
                         options ? options : "",
                         options && strstr(options, ":newton=")
                             ? strstr(options, ":newton=") + strlen(":newton=")
                             : (options ? options : ""));
  }
  if (strcmp(o, "2") == 0) {
    return chs_error_set(err, CHS_ERR_NOTFOUND,
                         "method 'alpha-prk:2' does not exist: RATTLE (2 stages) admits no "
                         "perturbation keeping the constraints and symplecticity (see "
                         "src/integrate/alpha_prk.c); use alpha-prk:3 or alpha-prk:4");
  }
  int s = 0;
  if (o[0] >= '3' && o[0] <= '0' + CHS_CPRK_SMAX && (o[1] == '\0' || o[1] == ':')) {
    s = o[0] - '0';
  }
  double fixed = 0;
  int has_fixed = 0;
  if (s && o[1] == ':') {
    char *end = NULL;
    if (strncmp(o + 2, "alpha=", 6) == 0) {
      fixed = strtod(o + 8, &end);
      has_fixed = end != o + 8 && *end == '\0' && isfinite(fixed);
    }
    if (!has_fixed) {
      return chs_error_set(err, CHS_ERR_ARG,
                           "bad option '%s' of method alpha-prk:%d (use alpha-prk:%d or "
                           "alpha-prk:%d:alpha=VALUE)",
                           o + 2, s, s, s);
    }
  }
  if (!s) {
    return chs_error_set(err, CHS_ERR_NOTFOUND,
                         "unknown method 'alpha-prk:%s' (use alpha-prk:3 or alpha-prk:4, "
                         "optionally :alpha=VALUE)",
                         o);
  }
  if (f->sys.time_bits) { /* docs/mechanics.md "Symplectic methods for M(q) and g(q,t)" */
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "method 'alpha-prk:%d' chooses alpha so that each step conserves H, and "
                         "problem '%s' has explicit time dependence (H is not conserved): use "
                         "lobatto:%d, which is alpha-prk:%d with alpha = 0",
                         s, CHSProblem_GetName(f->prob), s, s);
  }
  alpha_mem *a = calloc(1, sizeof *a);
  if (!a) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  snprintf(a->who, sizeof a->who, "alpha-prk:%d", s);
  chs_lobatto_tableau(s, &a->base);
  alpha_directions(a);
  a->fixed = has_fixed;
  a->alpha = has_fixed ? fixed : 0;
  alpha_set(a, 0, a->alpha);
  int rc = chs_cprk_create(a->who, f, y0, t0, ctl, s, newton, &a->c, err);
  if (rc != 0) {
    free(a);
    return rc;
  }
  *out = a;
  return CHS_SUCCESS;
}

static int alpha_energy(alpha_mem *a, const sunrealtype *q, const sunrealtype *p, sunrealtype *H,
                        CHSError *err) {
  if (CHSProblem_Energy(a->c->f->prob, q, p, H) != 0 || !isfinite(*H)) {
    return chs_error_set(err, CHS_ERR_SOLVER, "%s: energy not finite at t = %g", a->who,
                         (double)a->c->t);
  }
  return 0;
}

/* e(alpha) = H(step(alpha)) - H0 for one trial along direction k; rc > 0 when the stage Newton
 * fails at this alpha (the caller then backs off), < 0 on other errors. */
static int alpha_try(alpha_mem *a, int k, sunrealtype alpha, sunrealtype h, int warm,
                     sunrealtype *e, CHSError *err) {
  chs_cprk *c = a->c;
  alpha_set(a, k, alpha);
  CHSError_Clear(&a->trial_err);
  if (chs_cprk_trial(c, &a->cur, h, warm, &a->trial_err) != 0) {
    return 1;
  }
  sunrealtype H;
  CHS_CALL(alpha_energy(a, c->q1, c->p1, &H, err));
  a->energy_solves++;
  *e = H - a->H0;
  return 0;
}

/* The root of e(alpha) along direction k from a0 (slope: de/dalpha estimate, 0 if unknown) by a
 * safeguarded secant iteration: steps capped at ALPHA_JUMP, regula falsi when a secant step
 * leaves a bracket of the root, halved back towards the last good alpha when the stage Newton
 * fails. 0: found (the stepper holds the step at *alpha), 1: not found, 2: the stage Newton
 * fails already at a0 and at 0, < 0: error. */
#define ALPHA_JUMP 0.05
#define ALPHA_LIMIT 0.5
static int alpha_search(alpha_mem *a, int k, sunrealtype a0, sunrealtype slope, int maxit,
                        sunrealtype h, sunrealtype *alpha, sunrealtype *elast, CHSError *err) {
  sunrealtype tolE = a->c->tol * a->Hscale;
  sunrealtype noiseE = 200 * SUN_UNIT_ROUNDOFF * a->Hscale; /* rounding level of e */
  sunrealtype e0 = 0, e1 = 0;
  int rc = alpha_try(a, k, a0, h, 0, &e0, err);
  if (rc > 0 && a0 != 0) { /* the last step's alpha is too far: start from the base method */
    a0 = 0;
    slope = 0;
    rc = alpha_try(a, k, a0, h, 0, &e0, err);
  }
  if (rc != 0) {
    return rc < 0 ? rc : 2;
  }
  /* done at the tolerance, or when e is already at its rounding level: probing alpha against
   * rounding noise would let it random-walk away from 0 (on a relative equilibrium, where e
   * hardly depends on alpha, it drifted to 0.04 in 100 steps, costing the method its order) */
  int done = fabs(e0) <= fmax(tolE, noiseE), bracket = 0;
  sunrealtype lo = 0, elo = 0, hi = 0, ehi = 0, a1 = a0, a_first = a0;
  sunrealtype step = slope != 0 ? -e0 / slope : h * h;
  e1 = e0;
  for (int it = 0; !done && it < maxit; it++) {
    step = fmax(-ALPHA_JUMP, fmin(ALPHA_JUMP, step));
    a1 = a0 + step;
    if (fabs(a1) > ALPHA_LIMIT) {
      break;
    }
    rc = alpha_try(a, k, a1, h, 1, &e1, err);
    if (rc < 0) {
      return rc;
    }
    if (rc > 0) { /* back off towards a0 */
      step = (a1 - a0) / 2;
      if (fabs(step) <= 4 * SUN_UNIT_ROUNDOFF * fmax(fabs(a0), 1e-300)) {
        break;
      }
      continue;
    }
    if (fabs(e1) <= tolE) {
      done = 1;
      break;
    }
    if (fabs(e1) <= noiseE && fabs(e1) >= 0.5 * fabs(e0)) {
      done = 1; /* no progress at the noise level of e: accept */
      break;
    }
    /* bracket: lo and hi with e of opposite signs, kept up to date */
    if (!bracket && e0 * e1 < 0) {
      bracket = 1;
      lo = a0;
      elo = e0;
      hi = a1;
      ehi = e1;
    } else if (bracket) {
      if (e1 * ehi > 0) {
        hi = a1;
        ehi = e1;
      } else {
        lo = a1;
        elo = e1;
      }
    }
    sunrealtype sl = (e1 - e0) / (a1 - a0), a2 = a1 - e1 / sl;
    if (sl != 0 && isfinite(sl)) {
      a->slope_k[k] = sl;
    }
    if (bracket && !(a2 > fmin(lo, hi) && a2 < fmax(lo, hi))) {
      a2 = (lo * ehi - hi * elo) / (ehi - elo); /* secant left the bracket: regula falsi */
    }
    if (!isfinite(a2) || fabs(a2 - a1) <= 4 * SUN_UNIT_ROUNDOFF * fabs(a1)) {
      done = fabs(e1) <= noiseE; /* alpha at round-off: e is noise */
      break;
    }
    a0 = a1;
    e0 = e1;
    step = a2 - a1;
  }
  *alpha = a1;
  *elast = e1;
  a->moved = a1 != a_first;
  return done ? 0 : 1;
}

/* One step, solved but not accepted (the stepper holds it): alpha fixed, or the root of e(alpha)
 * along D_1 (from the last alpha and slope) and, where e has no root along D_1 (de/dalpha
 * vanishes there at leading order), along D_2; *dir: the direction taken (-1: alpha fixed). */
static int alpha_solve(alpha_mem *a, sunrealtype h, int *dir, CHSError *err) {
  chs_cprk *c = a->c;
  *dir = -1;
  if (a->fixed) {
    CHS_CALL(chs_cprk_trial(c, &a->cur, h, 0, err));
    a->alpha_max = fabs(a->alpha);
    return 0;
  }
  if (!a->have_H0) {
    CHS_CALL(alpha_energy(a, c->q, c->p, &a->H0, err));
    a->Hscale = a->H0 != 0 ? fabs(a->H0) : 1;
    a->have_H0 = 1;
  }
  sunrealtype alpha = 0, e = 0;
  int k = 0, rc = alpha_search(a, 0, a->alpha_k[0], a->slope_k[0], 15, h, &alpha, &e, err);
  if (rc == 1) {
    a->alpha_k[0] = a->slope_k[0] = 0; /* no root along D_1 here: forget its history */
    k = 1;
    rc = alpha_search(a, 1, a->alpha_k[1], a->slope_k[1], 25, h, &alpha, &e, err);
  }
  if (rc < 0) {
    return rc;
  }
  if (rc == 2) {
    /* the stage solve's own reason (not finite, singular, stalled at rounding, slow) */
    return chs_error_set(err, CHS_ERR_SOLVER, "%s (alpha %g)", a->trial_err.msg, (double)alpha);
  }
  if (rc > 0) {
    return chs_error_set(err, CHS_ERR_SOLVER,
                         "%s: no alpha with |alpha| <= %g conserving the energy found at t = %g "
                         "(last alpha %g, energy error %g; reduce --h)",
                         a->who, ALPHA_LIMIT, (double)c->t, (double)alpha, (double)e);
  }
  if (k == 1) {
    a->fallback_steps++;
  } else {
    a->alpha_k[1] = 0; /* D_2 is used at isolated steps: restart it from the base method */
    a->slope_k[1] = 0;
  }
  a->alpha_k[k] = alpha;
  a->alpha_max = fmax(a->alpha_max, fabs(alpha));
  *dir = a->moved ? k : -1; /* a kept alpha: locally the fixed-alpha map */
  return 0;
}

static int alpha_step(void *mem, sunrealtype h, CHSError *err) {
  alpha_mem *a = mem;
  int dir;
  CHS_CALL(alpha_solve(a, h, &dir, err));
  chs_cprk_accept(a->c, h);
  return 0;
}

/* The step's derivative. Fixed alpha: the PRK's (lobatto.c). Alpha chosen per step along
 * direction D_k: the energy-preserving map z1 = Phi(z, alpha(z)), H(z1) = H(z) (on the
 * trajectory H(z_n) = H0 to the tolerance; a step aimed at H0 from every neighbouring z would
 * collapse the energy direction instead), so
 *   dz1 = D_z Phi dz + w dalpha,  w = d Phi / d alpha,
 *   dalpha = (dH(z) dz - dH(z1) D_z Phi dz) / dH(z1) w,
 * with dH(z) (dq, dp) = -F(q) . dq + (M^{-1} p) . dp. Not symplectic: alpha depends on z. A step
 * that kept its alpha (the energy error already at the tolerance or its rounding level) is
 * locally the fixed-alpha map, and so is its tangent map. */
static int alpha_tangent_step(void *mem, sunrealtype h, int k, sunrealtype *dz, N_Vector y,
                              CHSError *err) {
  alpha_mem *a = mem;
  chs_cprk *c = a->c;
  sunindextype n = c->n;
  CHS_CALL(chs_tangent_need_solved(c->tol, 8 * SUN_UNIT_ROUNDOFF, a->who, err));
  CHS_CALL(chs_cprk_tangent_need_constant(c, err));
  int dir;
  CHS_CALL(alpha_solve(a, h, &dir, err));
  CHS_CALL(chs_cprk_tangent_setup(c, &a->cur, h, err));
  if (!a->tbuf && !(a->tbuf = malloc(4 * (size_t)n * sizeof *a->tbuf))) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  chs_cprk_tableau dtb;
  sunrealtype *w = a->tbuf, *v1 = w + 2 * n, *v0 = v1 + n, den = 1;
  chs_mass_inv(c->sys, c->p, v0);
  if (dir >= 0) {
    memset(&dtb, 0, sizeof dtb);
    dtb.s = c->s;
    memcpy(dtb.A, a->D[dir], sizeof dtb.A);
    memcpy(dtb.Ah, a->Dh[dir], sizeof dtb.Ah);
    memset(w, 0, 2 * (size_t)n * sizeof *w);
    CHS_CALL(chs_cprk_tangent_apply(c, &a->cur, &dtb, 1, h, w, w + n, err));
    chs_mass_inv(c->sys, c->p1, v1);
    den = 0;
    for (sunindextype i = 0; i < n; i++) {
      den += -c->F1[i] * w[i] + v1[i] * w[n + i];
    }
    if (!(fabs(den) > 0) || !isfinite(den)) {
      return chs_error_set(err, CHS_ERR_SOLVER,
                           "%s: tangent map: the energy does not depend on alpha at t = %g", a->who,
                           (double)c->t);
    }
  }
  for (int j = 0; j < k; j++) {
    sunrealtype *dq = dz + 2 * n * j, *dp = dq + n, num = 0;
    for (sunindextype i = 0; i < n && dir >= 0; i++) {
      num += -c->F0[i] * dq[i] + v0[i] * dp[i];
    }
    CHS_CALL(chs_cprk_tangent_apply(c, &a->cur, NULL, 0, h, dq, dp, err));
    if (dir >= 0) {
      for (sunindextype i = 0; i < n; i++) {
        num -= -c->F1[i] * dq[i] + v1[i] * dp[i];
      }
      sunrealtype da = num / den;
      for (sunindextype i = 0; i < n; i++) {
        dq[i] += da * w[i];
        dp[i] += da * w[n + i];
      }
    }
  }
  chs_cprk_accept(c, h);
  chs_cprk_get_state(c, y);
  return 0;
}

static int alpha_evolve(void *mem, sunrealtype tout, N_Vector y, sunrealtype *tret, int one_step,
                        CHSError *err) {
  alpha_mem *a = mem;
  chs_cprk *c = a->c;
  int rc = chs_fixed_step_evolve(a, alpha_step, &c->t, c->h, tout, one_step, err);
  chs_cprk_get_state(c, y);
  *tret = c->t;
  return rc;
}

static int alpha_stats(void *mem, CHSIntegratorStats *st) {
  alpha_mem *a = mem;
  chs_fixed_step_stats(st, a->c->steps, a->c->force_evals, a->c->jac_setups);
  st->alpha_max = a->alpha_max;
  st->alpha_dir2_steps = a->fallback_steps;
  return 0;
}

const CHSIntegratorOps chs_integrator_alpha_prk = {
    .family = "alpha-prk",
    .summary = "alpha-PRK (Li & Wang, rebuilt): Lobatto IIIA-IIIB family, alpha per step "
               "conserves H; g, psi and quadratic invariants kept; :alpha=A fixes alpha, "
               ":newton=dense|structured as lobatto",
    .method_name = alpha_method_name,
    .create = alpha_create,
    .evolve = alpha_evolve,
    .get_stats = alpha_stats,
    .needs_hamiltonian = 1, /* kicks with -H_q only; time dependence refused in create */
    .destroy = alpha_destroy,
    .tangent_step = alpha_tangent_step,
};
