/* li-wang-alpha-prk: [Li & Wang]: the alpha-PRK family (rebuilt in
 * src/integrate/alpha_prk.c, the paper's formulas being lost in our copy) against RATTLE and
 * Lobatto IIIA-IIIB (src/integrate/lobatto.c).
 *   - chain molecule of [Seiler, Dirac] Sec. 7 (N = 7, Lennard-Jones, rigid bonds: free and
 * rotation invariant, so the angular momentum L = sum x p_y - y p_x is a quadratic first integral),
 *     h = 0.05 on [0, 200]: energy, L, |g|, |psi| for rattle, lobatto:3, alpha-prk:3 and the
 *     fixed member alpha = 0.3;
 *   - pendulum, h = 0.1 on [0, 1000]: energy per step and over the run;
 *   - observed orders on the pendulum against its exact reference (t = 10, h = 0.1, 0.05,
 *     0.025), and the rate at which max |alpha| goes to 0 with h.
 * The seed's text lost its numbers (tables and figures), so the paper column holds only the
 * orders it states: 2 for RATTLE, 2s - 2 for Lobatto IIIA-IIIB, "the same convergence rate" for
 * alpha-PRK. The claims are those of the abstract and Sec. 2, each computed from the runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../reproduce.h"

#define TOL (8 * 2.220446049250313e-16) /* the Newton and energy tolerance (8 u) */

typedef struct {
  int n, k;
  double tf;
  double q[32], p[32];
  double L0, dL, E_prev, dE_step, e_first, e_second;
  long cap, len;
  double *t, *e, *l; /* energy error and |L - L0| per output (for the plots), or NULL */
} li_track;

static int li_monitor(const CHSRecord *rec, void *ctx) {
  li_track *z = ctx;
  double L = 0;
  for (int a = 0; a + 1 < z->n; a += 2) {
    L += rec->q[a] * rec->p[a + 1] - rec->q[a + 1] * rec->p[a];
  }
  if (z->k == 0) {
    z->L0 = L;
  } else {
    z->dL = fmax(z->dL, fabs(L - z->L0));
    z->dE_step = fmax(z->dE_step, fabs(rec->energy - z->E_prev));
  }
  if (rec->t <= z->tf / 2) {
    z->e_first = fmax(z->e_first, rec->energy_err);
  } else {
    z->e_second = fmax(z->e_second, rec->energy_err);
  }
  z->E_prev = rec->energy;
  if (z->n <= 32) {
    memcpy(z->q, rec->q, (size_t)z->n * sizeof *z->q);
    memcpy(z->p, rec->p, (size_t)z->n * sizeof *z->p);
  }
  if (z->t && z->len < z->cap) {
    z->t[z->len] = rec->t;
    z->e[z->len] = fmax(rec->energy_err, 1e-17);
    z->l[z->len] = fmax(z->k ? fabs(L - z->L0) : 0, 1e-17);
    z->len++;
  }
  z->k++;
  return 0;
}

static int li_run(CHSProblem prob, const char *method, double h, double tf, long every, li_track *z,
                  CHSRunSummary *sum, CHSError *err) {
  CHSRunOptions o = {.method = method, .ctl = {.h = h}, .tf = tf, .every = every};
  double *t = z->t, *e = z->e, *l = z->l;
  long cap = z->cap;
  memset(z, 0, sizeof *z);
  z->t = t;
  z->e = e;
  z->l = l;
  z->cap = cap;
  z->n = (int)CHSProblem_GetDims(prob)->n;
  z->tf = tf;
  return rep_run(prob, "standard", o, li_monitor, z, sum, err);
}

static double li_dist(const li_track *a, const li_track *b) {
  double d = 0;
  for (int i = 0; i < a->n && i < 32; i++) {
    d += (a->q[i] - b->q[i]) * (a->q[i] - b->q[i]) + (a->p[i] - b->p[i]) * (a->p[i] - b->p[i]);
  }
  return sqrt(d);
}

#define NM_CHAIN 4
#define NM_ORD 6

static int li_wang_alpha_prk(rep_report *r, CHSError *err) {
  CHSProblem chain = NULL, pend = NULL;
  int rc = CHSProblem_Create("chain", &chain, err);
  if (rc == 0) {
    rc = CHSProblem_Create("pendulum", &pend, err);
  }
  li_track *z = calloc(NM_CHAIN + 4, sizeof *z);
  const long NT = 4001;
  double *tt = malloc(9 * (size_t)NT * sizeof *tt); /* t, energy error, |L - L0| of 3 runs */
  if (rc == 0 && (!z || !tt)) {
    rc = err->code = CHS_ERR_MEM;
  }
  /* ---- chain, h = 0.05 on [0, 200] */
  const char *cm[NM_CHAIN] = {"rattle", "lobatto:3", "alpha-prk:3", "alpha-prk:3:alpha=0.3"};
  CHSRunSummary cs[NM_CHAIN];
  for (int k = 0; rc == 0 && k < NM_CHAIN; k++) {
    z[k].t = k < 3 ? tt + (size_t)(3 * k) * (size_t)NT : NULL;
    z[k].e = k < 3 ? tt + (size_t)(3 * k + 1) * (size_t)NT : NULL;
    z[k].l = k < 3 ? tt + (size_t)(3 * k + 2) * (size_t)NT : NULL;
    z[k].cap = k < 3 ? NT : 0;
    rc = li_run(chain, cm[k], 0.05, 200, 1, &z[k], &cs[k], err);
  }
  /* ---- pendulum, h = 0.1 on [0, 1000]; alpha = 0 vs lobatto:3, lobatto:2 vs rattle */
  CHSRunSummary ps[3], tmp;
  const char *pm[3] = {"rattle", "lobatto:3", "alpha-prk:3"};
  li_track *pz = z + NM_CHAIN, other;
  memset(&other, 0, sizeof other);
  for (int k = 0; rc == 0 && k < 3; k++) {
    rc = li_run(pend, pm[k], 0.1, 1000, 1, &pz[k], &ps[k], err);
  }
  double d_rattle = NAN, d_alpha0 = NAN;
  if (rc == 0) {
    rc = li_run(pend, "rattle", 0.1, 100, 1000, &pz[3], &tmp, err);
  }
  if (rc == 0) {
    rc = li_run(pend, "lobatto:2", 0.1, 100, 1000, &other, &tmp, err);
    d_rattle = li_dist(&pz[3], &other);
  }
  if (rc == 0) {
    rc = li_run(pend, "lobatto:3", 0.1, 100, 1000, &pz[3], &tmp, err);
  }
  if (rc == 0) {
    rc = li_run(pend, "alpha-prk:3:alpha=0", 0.1, 100, 1000, &other, &tmp, err);
    d_alpha0 = li_dist(&pz[3], &other);
  }
  /* ---- orders on the pendulum (t = 10) and max |alpha| against h */
  const char *om[NM_ORD] = {"rattle",      "lobatto:2", "lobatto:3",
                            "alpha-prk:3", "lobatto:4", "alpha-prk:4"};
  const double paper_order[NM_ORD] = {2, 2, 4, 4, 6, 6};
  double order[NM_ORD], amax[2][3], ord_h[NM_ORD][3], ord_e[NM_ORD][3], slope[NM_ORD];
  for (int k = 0; rc == 0 && k < NM_ORD; k++) {
    double e[3];
    for (int j = 0; rc == 0 && j < 3; j++) {
      CHSRunSummary s;
      double h = (k >= 4 ? 0.2 : 0.1) / (1 << j);
      rc = li_run(pend, om[k], h, 10, 1000000, &other, &s, err);
      e[j] = s.diag.int_err_final;
      ord_h[k][j] = h;
      ord_e[k][j] = e[j];
      if (k == 3 || k == 5) {
        amax[k == 5][j] = s.stats.alpha_max;
      }
    }
    order[k] = log2(e[1] / e[2]);
    /* least-squares slope of log e against log h over the three step sizes (the order plot) */
    rep_fit f = {0};
    for (int j = 0; j < 3; j++) {
      rep_fit_add(&f, log(ord_h[k][j]), log(ord_e[k][j]));
    }
    slope[k] = rc == 0 ? rep_fit_slope(&f) : NAN;
  }
  if (rc == 0) {
    for (int k = 0; k < NM_CHAIN; k++) {
      const CHSRunSummary *s = &cs[k];
      rep_row_add(r, NAN, s->diag.energy_err_max, "chain: max relative energy error, %s", cm[k]);
      rep_row_add(r, NAN, z[k].dL, "chain: max |L - L0| (angular momentum), %s", cm[k]);
      rep_row_add(r, NAN, fmax(s->diag.pos_res_max, s->diag.mom_res_max),
                  "chain: max(|g|, |psi|), %s", cm[k]);
      rep_row_add(r, NAN, (double)s->rhs_evals / (double)s->stats.steps,
                  "chain: force evaluations per step, %s", cm[k]);
    }
    rep_row_add(r, NAN, cs[2].stats.alpha_max, "chain: max |alpha|, alpha-prk:3");
    rep_row_add(r, NAN, (double)cs[2].stats.alpha_dir2_steps,
                "chain: steps whose alpha runs along the second direction D_2 (of 4000)");
    for (int k = 0; k < 3; k++) {
      rep_row_add(r, NAN, ps[k].diag.energy_err_max,
                  "pendulum h = 0.1, t <= 1000: max relative energy error, %s", pm[k]);
    }
    rep_row_add(r, NAN, pz[2].dE_step / fabs(ps[2].diag.energy0),
                "pendulum: max relative energy change in one step, alpha-prk:3");
    for (int k = 0; k < NM_ORD; k++) {
      rep_row_add(r, paper_order[k], order[k], "observed order on the pendulum, %s", om[k]);
    }
    for (int k = 0; k < NM_ORD; k++) {
      rep_row_add(r, paper_order[k], slope[k],
                  "fitted slope of log error vs log h (3 step sizes, the order plot), %s", om[k]);
    }
    double ar3 = log2(amax[0][1] / amax[0][2]), ar4 = log2(amax[1][1] / amax[1][2]);
    rep_row_add(r, NAN, amax[0][0], "pendulum t <= 10: max |alpha|, alpha-prk:3, h = 0.1");
    rep_row_add(r, NAN, ar3, "rate of max |alpha| -> 0 with h, alpha-prk:3");
    rep_row_add(r, NAN, ar4, "rate of max |alpha| -> 0 with h, alpha-prk:4");
    rep_row_add(r, NAN, d_rattle, "pendulum 1000 steps: |lobatto:2 - rattle|");
    rep_row_add(r, NAN, d_alpha0, "pendulum 1000 steps: |alpha-prk:3:alpha=0 - lobatto:3|");

    /* round-off only: another method would differ by its local error, ~1e-3 per step here */
    rep_claim_add(r, d_rattle <= 1e-10 && d_alpha0 == 0,
                  "alpha = 0 gives the usual PRK schemes: RATTLE (s = 2) and Lobatto IIIA-IIIB",
                  "|lobatto:2 - rattle| = %.2g (round-off, accumulated), "
                  "|alpha-prk:3:alpha=0 - lobatto:3| = %.2g after 1000 steps",
                  d_rattle, d_alpha0);
    int inv_fixed = z[3].dL <= 1e-13 && cs[3].diag.pos_res_max <= 1e-13 &&
                    cs[3].diag.mom_res_max <= 1e-13 && cs[3].diag.energy_err_max > 1e-6;
    rep_claim_add(r, inv_fixed,
                  "for alpha != 0 (fixed) the quadratic invariants and the constraint manifold "
                  "are preserved exactly, the energy is not",
                  "alpha = 0.3, chain: |L - L0| <= %.2g, |g| <= %.2g, |psi| <= %.2g, energy "
                  "error %.2g",
                  z[3].dL, cs[3].diag.pos_res_max, cs[3].diag.mom_res_max,
                  cs[3].diag.energy_err_max);
    int energy = cs[2].diag.energy_err_max <= 100 * TOL && ps[2].diag.energy_err_max <= 100 * TOL &&
                 pz[2].dE_step / fabs(ps[2].diag.energy0) <= 100 * TOL;
    rep_claim_add(r, energy,
                  "with alpha* = alpha(h, p_n, q_n) chosen per step the energy is preserved",
                  "alpha-prk:3: max relative energy error %.2g (chain, 4000 steps), %.2g "
                  "(pendulum, 10^4 steps), per step %.2g; tolerance 100 x 8u = %.2g",
                  cs[2].diag.energy_err_max, ps[2].diag.energy_err_max,
                  pz[2].dE_step / fabs(ps[2].diag.energy0), 100 * TOL);
    rep_claim_add(
        r, z[2].dL <= 1e-13 && cs[2].diag.pos_res_max <= 1e-13 && cs[2].diag.mom_res_max <= 1e-13,
        "alpha-PRK preserves the quadratic invariants and the constraints together "
        "with the energy",
        "alpha-prk:3, chain: |L - L0| <= %.2g, |g| <= %.2g, |psi| <= %.2g", z[2].dL,
        cs[2].diag.pos_res_max, cs[2].diag.mom_res_max);
    rep_claim_add(r, z[0].dL <= 1e-13 && z[1].dL <= 1e-13,
                  "the symplectic PRK schemes conserve the quadratic invariants of the constrained "
                  "system (Theorem 3.1)",
                  "chain, angular momentum: max |L - L0| = %.2g (rattle), %.2g (lobatto:3)",
                  z[0].dL, z[1].dL);
    int ord = 1;
    for (int k = 0; k < NM_ORD; k++) {
      ord = ord && fabs(order[k] - paper_order[k]) <= 0.25;
    }
    rep_claim_add(r, ord,
                  "RATTLE has order 2, Lobatto IIIA-IIIB order 2s - 2, alpha-PRK the order of "
                  "its base method",
                  "orders %.2f %.2f %.2f %.2f %.2f %.2f (rattle, lobatto:2, lobatto:3, "
                  "alpha-prk:3, lobatto:4, alpha-prk:4)",
                  order[0], order[1], order[2], order[3], order[4], order[5]);
    rep_claim_add(r, ar3 > 1 && ar4 > 1, "alpha -> 0 as h -> 0 (ours: needed for the order)",
                  "max |alpha| = %.2g, %.2g, %.2g at h = 0.1, 0.05, 0.025 (rate %.2f); "
                  "alpha-prk:4 rate %.2f",
                  amax[0][0], amax[0][1], amax[0][2], ar3, ar4);
    int bounded = 1;
    for (int k = 0; k < 2; k++) {
      bounded = bounded && z[k].e_second <= 1.5 * z[k].e_first && z[k].e_first > 1e-9;
    }
    rep_claim_add(r, bounded,
                  "the symplectic PRK schemes (RATTLE, Lobatto) do not conserve the energy but "
                  "keep its error bounded",
                  "chain: max energy error on [0, 100] / [100, 200]: rattle %.2g / %.2g, "
                  "lobatto:3 %.2g / %.2g",
                  z[0].e_first, z[0].e_second, z[1].e_first, z[1].e_second);
    rep_note(r,
             "The seed's copy has no tables or figures: the paper column holds only the orders "
             "it states. alpha-PRK is our reconstruction (src/integrate/alpha_prk.c): Lobatto "
             "IIIA-IIIB perturbed by A + alpha D, Ah - alpha B^-1 D^T B with rows 1 and s of D "
             "zero, which keeps symplecticity, g, psi and the quadratic invariants for every "
             "alpha. With s = 2 (RATTLE) that forces D = 0, so there is no alpha-prk:2. Along "
             "the symmetric direction D_1 the end position does not move at first order and "
             "e(alpha) has no root where the velocities nearly vanish; alpha then runs along a "
             "second direction D_2 (%ld of the chain's 4000 steps). alpha-PRK costs %.1fx the "
             "force evaluations of lobatto:3 on the chain.\n",
             cs[2].stats.alpha_dir2_steps,
             (double)cs[2].rhs_evals / (double)(cs[1].rhs_evals > 0 ? cs[1].rhs_evals : 1));
  }
  if (rc == 0 && r->plot_dir && z[0].len == NT && z[1].len == NT && z[2].len == NT) {
    const double *cols[4] = {z[0].t, z[0].e, z[1].e, z[2].e};
    if (rep_plot(
            r->plot_dir, "li-wang-alpha-prk-energy", "t rattle lobatto3 alphaprk3", cols, 4, NT,
            "set logscale y\nset key below horizontal\nset format y '%.0e'\nset xlabel 't'\nset "
            "ylabel "
            "'|H - H0| / |H0|'\nset title '[Li and Wang]: energy error, chain N = 7, h = 0.05, t_f "
            "= "
            "200 (floor "
            "1e-17)'\n"
            "plot DATA u 1:2 w lp pi PI t 'rattle', DATA u 1:3 w lp pi PI t 'lobatto:3', DATA u "
            "1:4 w lp pi PI t 'alpha-prk:3'") != 0) {
      rc = cli_error(err, CHS_ERR_IO, "plotting failed");
    }
  }
  if (rc == 0 && r->plot_dir && z[0].len == NT && z[1].len == NT && z[2].len == NT) {
    const double *cols[4] = {z[0].t, z[0].l, z[1].l, z[2].l};
    if (rep_plot(r->plot_dir, "li-wang-alpha-prk-invariants", "t rattle lobatto3 alphaprk3", cols,
                 4, NT,
                 "set logscale y\nset key top left\nset format y '%.0e'\nset xlabel 't'\n"
                 "set ylabel '|L - L0|'\nset title '[Li and Wang]: quadratic invariant (angular "
                 "momentum L), chain N = 7, h = 0.05 (floor 1e-17)'\n"
                 "plot DATA u 1:2 w l t 'rattle', DATA u 1:3 w l t 'lobatto:3', DATA u 1:4 w l "
                 "t 'alpha-prk:3'") != 0) {
      rc = cli_error(err, CHS_ERR_IO, "plotting failed");
    }
  }
  if (rc == 0 && r->plot_dir) {
    /* order plot: error at t = 10 against h, log-log, the fitted slope beside the order */
    const double *cols[2 * NM_ORD];
    char script[3000], header[256] = "";
    int len = snprintf(script, sizeof script,
                       "set logscale xy\nset format y '%%.0e'\nset xlabel 'h'\nset ylabel "
                       "'max-norm error at t = 10'\nset key below\nset xtics (0.025, 0.05, "
                       "0.1, 0.2)\nset xrange [0.022:0.22]\nset title '[Li and Wang]: order on the "
                       "pendulum (fitted slope; the paper''s order)'\nplot ");
    /* rattle and lobatto:2 are the same method: where their errors agree to 6 digits, the key says
     * that the later curve covers the earlier */
    int same = 1;
    for (int j = 0; j < 3; j++) {
      same = same && fabs(ord_e[1][j] - ord_e[0][j]) <= 1e-6 * ord_e[0][j];
    }
    for (int k = 0; k < NM_ORD; k++) {
      cols[2 * k] = ord_h[k];
      cols[2 * k + 1] = ord_e[k];
      size_t hl = strlen(header);
      snprintf(header + hl, sizeof header - hl, "%sh_%s err_%s", k ? " " : "", om[k], om[k]);
      len += snprintf(script + len, sizeof script - (size_t)len,
                      "%sDATA u %d:%d w lp t '%s: slope %.2f (order %g)%s'", k ? ", " : "",
                      2 * k + 1, 2 * k + 2, om[k], slope[k], paper_order[k],
                      k == 1 && same ? ", on rattle (the same method)" : "");
    }
    if (len >= (int)sizeof script || rep_plot(r->plot_dir, "li-wang-alpha-prk-order", header, cols,
                                              2 * NM_ORD, 3, script) != 0) {
      rc = cli_error(err, CHS_ERR_IO, "plotting failed");
    }
  }
  free(z);
  free(tt);
  CHSProblem_Destroy(&chain);
  CHSProblem_Destroy(&pend);
  return rc;
}

const rep_experiment chs_experiment_li_wang_alpha_prk = {
    .name = "li-wang-alpha-prk",
    .source = "[Li & Wang], abstract and Sec. 2",
    .summary = "alpha-PRK vs RATTLE and Lobatto IIIA-IIIB: energy, angular momentum, constraints, "
               "orders, alpha -> 0",
    .run = li_wang_alpha_prk,
};
