/* Diagnostics at output times (energy error, residuals, reference error) and their summary. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <fftw3.h>
#include "impl.h"

struct CHSDiagnostics_ {
  CHSFormulation f;
  CHSSystem sys; /* own scratch: never disturbs the formulation's */
  sunrealtype *q, *p, *qr, *pr, *diff;
  /* the state (q, p) of the newest point (qt, qP)[qn-1]: a record at that time and state reuses
   * its power (P is a function of t, q and p, and after every step CHSDiagnostics_Step has just
   * computed it; with moving constraints its Gram solve is the larger part of a record) */
  sunrealtype *qs, *ps;
  sunrealtype inv[CHS_MAX_INVARIANTS];
  /* Energy balance: the work W = integral of the power P over the integrator's own steps
   * (CHSDiagnostics_Step), by piecewise cubic interpolation of P through the last four step
   * points; W is final (committed) up to the point tc, the rest is provisional. */
  sunrealtype qt[4], qP[4]; /* the last step points (time, power), oldest first */
  int qn;                   /* points in use */
  sunrealtype wc;           /* work committed up to qt[qc] */
  int qc;                   /* index into qt of the committed end */
  sunrealtype work;         /* W at the last point */
  CHSDiagnosticsSummary s;
};

/* The power of the energy balance at (q, p) and the problem's current time (docs/mechanics.md):
 * P = V_t + Fnc(q, v) . v + lambda^T g_t, lambda = Q^{-1} r (the kinematics, moving constraints
 * only). 0, > 0 (singular Q or out of domain), < 0. */
static int chs_power(CHSSystem *s, const sunrealtype *q, const sunrealtype *p, sunrealtype *P) {
  sunindextype n = s->n;
  sunrealtype acc = 0;
  if (s->time_bits & CHS_TIME_POTENTIAL) {
    sunrealtype Vt = 0;
    int rc = s->ops->potential_dt(s->data, q, &Vt);
    if (rc != 0) {
      return rc > 0 ? CHS_RECOVERABLE : CHS_ERR_CALLBACK;
    }
    acc += Vt;
  }
  if (s->ops->nonconservative_force) {
    sunrealtype *v = s->wn[CHS_WN_A], *Fnc = s->wn[CHS_WN_B];
    CHS_CALL(chs_system_mass_at(s, q));
    chs_mass_inv(s, p, v);
    int rc = s->ops->nonconservative_force(s->data, q, v, Fnc);
    if (rc != 0) {
      return rc > 0 ? CHS_RECOVERABLE : CHS_ERR_CALLBACK;
    }
    for (sunindextype i = 0; i < n; i++) {
      acc += Fnc[i] * v[i];
    }
  }
  if (s->time_bits & CHS_TIME_CONSTRAINTS) {
    CHSKinematics k;
    CHS_CALL(chs_system_kinematics(s, q, p, &k)); /* g_t at q in s->gt */
    for (sunindextype i = 0; i < s->m; i++) {
      acc += k.lambda[i] * s->gt[i];
    }
  }
  *P = acc;
  return 0;
}

/* The integral over [a, b] of the polynomial through the n points (t[i], P[i]) (n <= 4, distinct
 * t): three-point Gauss-Legendre, exact up to degree 5. */
static sunrealtype chs_poly_integral(const sunrealtype *t, const sunrealtype *P, int n,
                                     sunrealtype a, sunrealtype b) {
  static const sunrealtype x[3] = {-0.77459666924148337704, 0, 0.77459666924148337704};
  static const sunrealtype w[3] = {5.0 / 9, 8.0 / 9, 5.0 / 9};
  sunrealtype mid = (a + b) / 2, half = (b - a) / 2, sum = 0;
  for (int k = 0; k < 3; k++) {
    sunrealtype s = mid + half * x[k], v = 0;
    for (int j = 0; j < n; j++) {
      sunrealtype l = P[j];
      for (int i = 0; i < n; i++) {
        if (i != j) {
          l *= (s - t[i]) / (t[j] - t[i]);
        }
      }
      v += l;
    }
    sum += w[k] * v;
  }
  return half * sum;
}

/* A new step point (t, P), t > the last: commit what four points determine, and the work up to
 * t. Each interval [t_{k-1}, t_k] is committed with the cubic through t_{k-2} .. t_{k+1} (the
 * first one with the cubic through the first four points), so W has a local error O(h^5) per
 * step and a global one O(h^4), for any spacing of the steps; the newest interval uses the cubic
 * through the last four points (an error O(h^5) that does not accumulate). A step more than 100
 * times shorter or longer than the one before (a step cut at an output or stop time) restarts the
 * interpolation from that step, so that no interpolant spans scales that far apart. */
static void chs_work_add(CHSDiagnostics d, sunrealtype t, sunrealtype P) {
  /* P's state: d->q, d->p in both callers */
  memcpy(d->qs, d->q, (size_t)d->sys.n * sizeof *d->q);
  memcpy(d->ps, d->p, (size_t)d->sys.n * sizeof *d->p);
  if (d->qn == 0) {
    d->qt[0] = t;
    d->qP[0] = P;
    d->qn = 1;
    d->qc = 0;
    d->wc = d->work = 0;
    return;
  }
  if (d->qn >= 2) {
    sunrealtype hprev = d->qt[d->qn - 1] - d->qt[d->qn - 2], h = t - d->qt[d->qn - 1];
    if (h < hprev / 100 || h > 100 * hprev) { /* restart from the last point */
      d->wc = d->work;
      d->qt[0] = d->qt[d->qn - 1];
      d->qP[0] = d->qP[d->qn - 1];
      d->qn = 1;
      d->qc = 0;
    }
  }
  if (d->qn == 4) { /* drop the oldest point; the committed end moves with the indices */
    memmove(d->qt, d->qt + 1, 3 * sizeof *d->qt);
    memmove(d->qP, d->qP + 1, 3 * sizeof *d->qP);
    d->qn = 3;
    d->qc--;
  }
  d->qt[d->qn] = t;
  d->qP[d->qn] = P;
  d->qn++;
  if (d->qn == 4) { /* commit up to the second-to-last point with this cubic */
    while (d->qc < 2) {
      d->wc += chs_poly_integral(d->qt, d->qP, 4, d->qt[d->qc], d->qt[d->qc + 1]);
      d->qc++;
    }
  }
  d->work = d->wc + chs_poly_integral(d->qt, d->qP, d->qn, d->qt[d->qc], t);
}

int CHSDiagnostics_Create(CHSFormulation f, CHSDiagnostics *out, CHSError *err) {
  *out = NULL;
  CHSDiagnostics d = calloc(1, sizeof *d);
  if (!d) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  /* lambda (the energy balance of moving constraints) needs the Gram solver */
  int tc = (CHSProblem_GetDims(f->prob)->time_dependent & CHS_TIME_CONSTRAINTS) != 0;
  int rc = chs_system_init(&d->sys, f->prob, tc ? f->sunctx : NULL,
                           tc ? chs_gram_kind(f->sys.gram) : 0, err);
  if (rc != 0) {
    free(d);
    return rc;
  }
  size_t n = (size_t)d->sys.n;
  d->f = f;
  d->q = calloc(7 * n, sizeof *d->q);
  if (!d->q) {
    CHSDiagnostics_Destroy(&d);
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  d->p = d->q + n;
  d->qr = d->p + n;
  d->pr = d->qr + n;
  d->diff = d->pr + n;
  d->qs = d->diff + n;
  d->ps = d->qs + n;
  d->s.has_reference = f->prob->ops->reference != NULL;
  d->s.energy_is_balance = d->sys.time_bits != 0;
  d->s.energy_invariant = CHSProblem_IsConservative(f->prob) && !d->s.energy_is_balance;
  d->s.balance_tracked = !d->s.energy_invariant;
  d->s.n_invariants = f->prob->n_invariants;
  for (int i = 0; i < d->s.n_invariants; i++) {
    d->s.invariant_names[i] = f->prob->ops->invariant_names[i];
  }
  *out = d;
  return CHS_SUCCESS;
}

void CHSDiagnostics_Destroy(CHSDiagnostics *d) {
  if (d && *d) {
    chs_system_free(&(*d)->sys);
    free((*d)->q);
    free(*d);
    *d = NULL;
  }
}

int CHSDiagnostics_Record(CHSDiagnostics d, sunrealtype t, N_Vector y, CHSRecord *rec,
                          CHSError *err) {
  CHSSystem *s = &d->sys;
  sunindextype n = s->n, m = s->m;
  const char *fname = d->f->ops->name;
  memset(rec, 0, sizeof *rec);
  rec->t = t;
  /* the time first: a formulation's map to (q, p) may depend on it (ssf, impetus with g(q, t)) */
  if (chs_system_set_time(s, t) != 0 || CHSFormulation_ToPhysical(d->f, y, d->q, d->p) != 0 ||
      !chs_all_finite(d->q, n) || !chs_all_finite(d->p, n)) {
    return chs_error_set(err, CHS_ERR_NONFINITE, "%s: the solution is not finite at t = %g", fname,
                         (double)t);
  }
  sunrealtype H;
  if (chs_system_set_time(s, t) != 0 || chs_system_energy(s, d->q, d->p, &H) != 0 ||
      s->ops->constraint(s->data, d->q, s->wm[CHS_WM_PSI]) != 0 ||
      s->ops->jacobian(s->data, d->q, s->G) != 0 || chs_system_time_terms(s, d->q) != 0) {
    return chs_error_set(err, CHS_ERR_NONFINITE,
                         "%s: energy or constraints cannot be evaluated at t = %g", fname,
                         (double)t);
  }
  chs_mass_inv(s, d->p, s->wn[CHS_WN_V]);              /* M(q) factored at q by chs_system_energy */
  chs_system_psi(s, s->wn[CHS_WN_V], s->wm[CHS_WM_R]); /* G M^{-1} p + g_t */
  if (d->s.records == 0) {
    d->s.energy0 = H;
  }
  sunrealtype H0 = d->s.energy0;
  rec->energy = H;
  rec->energy_err = H0 != 0 ? fabs(H - H0) / fabs(H0) : fabs(H - H0);
  rec->pos_res = chs_norm2(s->wm[CHS_WM_PSI], m);
  rec->mom_res = chs_norm2(s->wm[CHS_WM_R], m);
  {
    sunrealtype Gf = chs_norm2(s->G, s->gsize), qmax = 0, vmax = 0;
    for (sunindextype i = 0; i < n; i++) {
      qmax = fmax(qmax, fabs(d->q[i]));
      vmax = fmax(vmax, fabs(s->wn[CHS_WN_V][i]));
    }
    rec->pos_scale = Gf * qmax;
    rec->mom_scale = Gf * vmax + ((s->time_bits & CHS_TIME_CONSTRAINTS) ? chs_norm2(s->gt, m) : 0);
  }
  if (d->s.balance_tracked) {
    size_t bytes = (size_t)n * sizeof *d->q;
    int same = d->qn > 0 && t == d->qt[d->qn - 1] && memcmp(d->q, d->qs, bytes) == 0 &&
               memcmp(d->p, d->ps, bytes) == 0;
    int brc = 0;
    if (same) {
      rec->power = d->qP[d->qn - 1];
    } else {
      brc = chs_power(s, d->q, d->p, &rec->power);
    }
    if (brc != 0) {
      return chs_error_set(err, CHS_ERR_NONFINITE,
                           "%s: the power of the energy balance cannot be evaluated at t = %g%s",
                           fname, (double)t,
                           brc > 0 ? " (singular Gram matrix or state outside the domain)" : "");
    }
    if (d->qn == 0 || t > d->qt[d->qn - 1]) { /* a point CHSDiagnostics_Step has not added */
      chs_work_add(d, t, rec->power);
    }
    rec->work = d->work;
    sunrealtype b = fabs(H - H0 - d->work);
    rec->balance_err = H0 != 0 ? b / fabs(H0) : b;
    if (d->s.energy_is_balance) {
      rec->energy_err = rec->balance_err;
    }
  }
  rec->q = d->q;
  rec->p = d->p;
  /* reference() > 0: no reference at this t (e.g. a published value at the final time only) */
  int ref_rc = s->ops->reference ? s->ops->reference(s->data, t, d->qr, d->pr) : 1;
  if (ref_rc < 0) {
    return chs_error_set(err, CHS_ERR_CALLBACK, "reference solution failed at t = %g", (double)t);
  }
  if (ref_rc == 0) {
    for (sunindextype i = 0; i < n; i++) {
      d->diff[i] = d->q[i] - d->qr[i];
    }
    sunrealtype eq = chs_norm2(d->diff, n);
    for (sunindextype i = 0; i < n; i++) {
      d->diff[i] = d->p[i] - d->pr[i];
    }
    sunrealtype ep = chs_norm2(d->diff, n);
    rec->has_reference = 1;
    rec->int_err = sqrt(eq * eq + ep * ep);
  }
  int ninv = d->s.n_invariants, inv_ok = 1;
  if (ninv > 0) {
    if (s->ops->invariants(s->data, d->q, d->p, d->inv) != 0) {
      return chs_error_set(err, CHS_ERR_CALLBACK, "invariants failed at t = %g", (double)t);
    }
    inv_ok = chs_all_finite(d->inv, ninv);
    rec->n_invariants = ninv;
    rec->invariants = d->inv;
  }
  if (!isfinite(rec->energy_err) || !isfinite(rec->pos_res) || !isfinite(rec->mom_res) ||
      (rec->has_reference && !isfinite(rec->int_err)) || !inv_ok) {
    return chs_error_set(err, CHS_ERR_NONFINITE, "%s: diagnostics not finite at t = %g", fname,
                         (double)t);
  }
  CHSDiagnosticsSummary *S = &d->s;
  S->records++;
  S->t_final = t;
  S->energy_err_final = rec->energy_err;
  S->energy_err_max = fmax(S->energy_err_max, rec->energy_err);
  S->pos_res_final = rec->pos_res;
  S->pos_res_max = fmax(S->pos_res_max, rec->pos_res);
  S->mom_res_final = rec->mom_res;
  S->mom_res_max = fmax(S->mom_res_max, rec->mom_res);
  if (S->balance_tracked) {
    if (!isfinite(rec->balance_err)) {
      return chs_error_set(err, CHS_ERR_NONFINITE, "%s: energy balance not finite at t = %g", fname,
                           (double)t);
    }
    S->balance_err_final = rec->balance_err;
    S->balance_err_max = fmax(S->balance_err_max, rec->balance_err);
    S->work_final = rec->work;
  }
  S->has_reference = rec->has_reference; /* int_err_final is the final record's */
  if (rec->has_reference) {
    S->int_err_final = rec->int_err;
    S->int_err_max = fmax(S->int_err_max, rec->int_err);
  }
  for (int i = 0; i < ninv; i++) {
    if (S->records == 1) {
      S->invariant0[i] = d->inv[i];
    }
    S->invariant_err_final[i] = fabs(d->inv[i] - S->invariant0[i]);
    S->invariant_err_max[i] = fmax(S->invariant_err_max[i], S->invariant_err_final[i]);
  }
  return CHS_SUCCESS;
}

int CHSDiagnostics_Step(CHSDiagnostics d, sunrealtype t, N_Vector y, CHSError *err) {
  if (!d->s.balance_tracked || (d->qn > 0 && !(t > d->qt[d->qn - 1]))) {
    return CHS_SUCCESS; /* nothing to integrate, or no time passed */
  }
  CHSSystem *s = &d->sys;
  const char *fname = d->f->ops->name;
  sunrealtype P = 0;
  int rc = chs_system_set_time(s, t) != 0 || CHSFormulation_ToPhysical(d->f, y, d->q, d->p) != 0 ||
                   !chs_all_finite(d->q, s->n) || !chs_all_finite(d->p, s->n)
               ? CHS_ERR_NONFINITE
               : chs_power(s, d->q, d->p, &P);
  if (rc != 0 || !isfinite(P)) {
    return chs_error_set(err, CHS_ERR_NONFINITE,
                         "%s: the power of the energy balance cannot be evaluated at t = %g%s",
                         fname, (double)t,
                         rc > 0 ? " (singular Gram matrix or state outside the domain)" : "");
  }
  chs_work_add(d, t, P);
  return CHS_SUCCESS;
}

void CHSDiagnostics_GetSummary(CHSDiagnostics d, CHSDiagnosticsSummary *s) {
  *s = d->s;
}

int CHSPeriodogram(const sunrealtype *x, long n, sunrealtype dt, sunrealtype *freq,
                   sunrealtype *amp) {
  if (n < 4 || !(dt > 0)) {
    return CHS_ERR_ARG;
  }
  double *in = fftw_malloc((size_t)n * sizeof *in);
  fftw_complex *out = fftw_malloc((size_t)(n / 2 + 1) * sizeof *out);
  fftw_plan plan = in && out ? fftw_plan_dft_r2c_1d((int)n, in, out, FFTW_ESTIMATE) : NULL;
  if (!plan) {
    fftw_free(in);
    fftw_free(out);
    return CHS_ERR_MEM;
  }
  double mean = 0;
  for (long i = 0; i < n; i++) {
    mean += x[i];
  }
  mean /= (double)n;
  for (long i = 0; i < n; i++) {
    in[i] = x[i] - mean;
  }
  fftw_execute(plan);
  for (long k = 0; k <= n / 2; k++) {
    freq[k] = (sunrealtype)k / ((sunrealtype)n * dt);
    amp[k] = 2 * hypot(out[k][0], out[k][1]) / (double)n;
  }
  fftw_destroy_plan(plan);
  fftw_free(in);
  fftw_free(out);
  return CHS_SUCCESS;
}
