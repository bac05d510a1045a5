/* Symplectic partitioned Runge-Kutta methods: every table of ARKODE SPRKStep (SUNDIALS >= 6.6),
 * for H = T(p) + V(q), T = 1/2 p^T M^{-1} p, alone or with holonomic constraints g(q) = 0.
 *
 * A table (a_i, ahat_i), i = 1..s, is the splitting (SPRKStep's algorithm, kick first)
 *
 *   Phi_h = D(a_s h) o K(ahat_s h) o ... o D(a_1 h) o K(ahat_1 h),
 *   K(c): p <- p + c F(q)  (flow of V),     D(c): q <- q + c M^{-1} p  (flow of T).
 *
 * Tables (orders q_s, stages s) and their sources: EULER_1_1 symplectic Euler; LEAPFROG_2_2 and
 * PSEUDO_LEAPFROG_2_2 Stormer-Verlet (drift-kick-drift / kick-drift-kick); RUTH_3_3 (Ruth 1983);
 * MCLACHLAN_2_2, _3_3, _4_4, _5_6 (McLachlan & Atela 1992; McLachlan 1995); CANDY_ROZMUS_4_4
 * (Candy & Rozmus 1991, = Forest-Ruth / the triple jump); YOSHIDA_6_8 (Yoshida 1990, solution A);
 * SUZUKI_UMENO_8_16 (Suzuki & Umeno 1993); SOFRONIOU_10_36 (Sofroniou & Spaletta 2005). The
 * coefficients below are those constants to 17 digits, in ARKODE's layout; test_sprk checks them
 * against ARKodeSPRKTable_Load on SUNDIALS >= 6.6.
 *
 * Unconstrained (`sprk:<table>:free`: the problem's constraints ignored, the separable system
 * q' = M^{-1} p, p' = F(q)): K and D are exact flows, Phi_h is symplectic of the table's order.
 * On SUNDIALS >= 6.6 this runs through SPRKStep itself (SPRKStepCreate with f1 = force, f2 =
 * velocity, SPRKStepSetMethodName); on 6.4 (no SPRKStep), or with `:builtin`, through the
 * built-in stepper below with the same coefficients (test_sprk: both agree to round-off).
 *
 * Constrained (the default; the state is (q, p) on T*M = {g = 0, psi = G M^{-1} p = 0}): SPRKStep
 * has no hook for a constraint solve inside a stage (only post-process step/stage functions on
 * the whole state, which cannot carry the multipliers of a RATTLE drift), so chs runs its own
 * stepper on both versions, with
 *   K(c): p <- P(q) (p + c F(q)),  P = I - G^T Q^{-1} G M^{-1} (mass-orthogonal momentum
 * projection, Q = G M^{-1} G^T). On T*M this is the EXACT flow of the restricted Hamiltonian V|T*M:
 *         q is fixed, lambda = Q^{-1} G M^{-1} F keeps psi = 0, so p(c) = p + c P F = P (p + c F);
 *         its field X = (0, P F) is tangent and omega(X, Y) = -F.dq_Y = dV(Y) for tangent Y
 *         (G dq_Y = 0). Hence K is symplectic on T*M.
 *   D(c): the RATTLE step of T alone (V = 0) with step tau = c h:
 *         q1 = q + tau M^{-1} p*,  p* = p - G(q)^T nu / tau,  g(q1) = 0;
 *         p1 = P(q1) p*  (psi(q1, p1) = 0).
 *         nu by simplified Newton with the Gram matrix Q(q) (already factored: the previous kick
 *         or drift ended at q), to round-off (or to --rtol). RATTLE is symplectic on T*M for any
 *         Hamiltonian (Leimkuhler & Skeel 1994), symmetric, and of order 2: D(c) approximates the
 *         (geodesic) flow of T|T*M with a local error O(tau^3).
 * Phi_h is a composition of symplectic maps of T*M, hence symplectic on T*M, and g, psi hold to
 * the Newton tolerance after every step (they are enforced, not merely preserved).
 *
 * Order. With exact split flows the table has order q_s; replacing each flow by a map with local
 * error O(h^{r+1}) keeps the order min(q_s, r). K is exact; D is order 2, so a general table
 * reduces to order 2 (e.g. Ruth 3_3: sum a_i^3 = 1 != 0 multiplies D's h^3 error term). chs
 * restores the full order in one of three ways, chosen from the coefficients:
 *   - KDK compositions (a_s = 0, ahat_1 = a_1/2, ahat_i = (a_{i-1} + a_i)/2): the table IS a
 *     composition of velocity-Verlet steps with weights a_i; constrained, K(a/2) D(a) K(a/2) is
 *     exactly RATTLE(a h) (the multipliers of adjacent kicks and the drift add up), so the method
 *     is a symmetric composition of RATTLE steps and has the composition's order (composition
 *     theory holds for any symmetric base method of order 2): PSEUDO_LEAPFROG_2_2 (= RATTLE),
 *     YOSHIDA_6_8, SUZUKI_UMENO_8_16, SOFRONIOU_10_36: orders 2, 6, 8, 10, one drift per stage.
 *   - DKD compositions (ahat_1 = 0, a_i = (ahat_i + ahat_{i+1})/2, a_s = ahat_s/2): compositions
 *     of position-Verlet steps with weights ahat_i; constrained, D(w/2) K(w) D(w/2) is symmetric
 *     of order 2, but D(x) D(y) != D(x + y), so each drift is run as its two halves D(ahat_i/2),
 *     D(ahat_{i+1}/2): LEAPFROG_2_2 and CANDY_ROZMUS_4_4 (the triple jump): orders 2 and 4.
 *   - other tables of order > 2 (RUTH_3_3, MCLACHLAN_3_3, _4_4, _5_6): each drift D(c) is
 *     replaced by a symmetric composition of RATTLE drifts of order >= q_s, with the weights of
 *     the composition tables above (triple jump for q_s <= 4, Yoshida's 7 for q_s <= 6): drifts
 *     cost constraint solves, no force evaluations. `sprk:<table>:simple` keeps one drift per
 *     stage instead (order 2, shown by test_sprk).
 * EULER_1_1 has order 1 and MCLACHLAN_2_2 order 2 either way.
 *
 * Cost per step: one force evaluation per nonzero kick (the last one is reused as the next
 * step's first when the last drift coefficient is 0), one Gram factorisation per drift.
 * Fixed steps only (--h); the last step before an output time is shortened to reach it. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <nvector/nvector_serial.h>
#include "../compat.h"
#include "../impl.h"
#include "setup.h"
#include "fixed_step.h"
#include "tangent.h"

#define SPRK_NEWTON_MAX 100

/* ------------------------------------------------------------------ the tables */
static const sunrealtype euler_1_1_a[] = {1};
static const sunrealtype euler_1_1_ahat[] = {1};
static const sunrealtype leapfrog_2_2_a[] = {0.5, 0.5};
static const sunrealtype leapfrog_2_2_ahat[] = {0, 1};
static const sunrealtype pseudo_leapfrog_2_2_a[] = {1, 0};
static const sunrealtype pseudo_leapfrog_2_2_ahat[] = {0.5, 0.5};
static const sunrealtype ruth_3_3_a[] = {0.66666666666666663, -0.66666666666666663, 1};
static const sunrealtype ruth_3_3_ahat[] = {0.29166666666666669, 0.75, -0.041666666666666664};
static const sunrealtype mclachlan_2_2_a[] = {0.70710678118654757, 0.29289321881345243};
static const sunrealtype mclachlan_2_2_ahat[] = {0.29289321881345254, 0.70710678118654746};
static const sunrealtype mclachlan_3_3_a[] = {0.91966152301739967, -0.18799161879915965,
                                              0.26833009578175998};
static const sunrealtype mclachlan_3_3_ahat[] = {0.26833009578175998, -0.18799161879915965,
                                                 0.91966152301739967};
static const sunrealtype candy_rozmus_4_4_a[] = {0.67560359597982889, -0.17560359597982886,
                                                 -0.17560359597982886, 0.67560359597982889};
static const sunrealtype candy_rozmus_4_4_ahat[] = {0, 1.3512071919596578, -1.7024143839193155,
                                                    1.3512071919596578};
static const sunrealtype mclachlan_4_4_a[] = {0.51535283743112292, -0.085782019412973642,
                                              0.44158302361646651, 0.12884615836538418};
static const sunrealtype mclachlan_4_4_ahat[] = {0.13449619927743109, -0.22481980307942082,
                                                 0.75632000051566828, 0.33400360328632139};
static const sunrealtype mclachlan_5_6_a[] = {0.33983962583910998, -0.088601336903027322,
                                              0.58585647682596209, -0.60303935653649188,
                                              0.32358079655469763, 0.44236379421974947};
static const sunrealtype mclachlan_5_6_ahat[] = {0.11939002928756727,  0.69892737038247521,
                                                 -0.17131235827160077, 0.40126950225135344,
                                                 0.010705081848235983, -0.058979625498031166};
static const sunrealtype yoshida_6_8_a[] = {
    0.7845136104775573, 0.23557321335935813, -1.177679984178871, 1.3151863206839112,
    -1.177679984178871, 0.23557321335935813, 0.7845136104775573, 0};
static const sunrealtype yoshida_6_8_ahat[] = {
    0.39225680523877865,  0.5100434119184577,   -0.47105338540975644, 0.068753168252520092,
    0.068753168252520092, -0.47105338540975644, 0.5100434119184577,   0.39225680523877865};
static const sunrealtype suzuki_umeno_8_16_a[] = {
    0.74167036435061295, -0.4091008258000316, 0.19075471029623839, -0.57386247111608224,
    0.29906418130365592, 0.33462491824529816, 0.31529309239676662, -0.79688793935291635,
    0.31529309239676662, 0.33462491824529816, 0.29906418130365592, -0.57386247111608224,
    0.19075471029623839, -0.4091008258000316, 0.74167036435061295, 0};
static const sunrealtype suzuki_umeno_8_16_ahat[] = {
    0.37083518217530648,  0.16628476927529068, -0.1091730577518966, -0.19155388040992194,
    -0.13739914490621316, 0.31684454977447707, 0.32495900532103239, -0.24079742347807487,
    -0.24079742347807487, 0.32495900532103239, 0.31684454977447707, -0.13739914490621316,
    -0.19155388040992194, -0.1091730577518966, 0.16628476927529068, 0.37083518217530648};
static const sunrealtype sofroniou_10_36_a[] = {
    0.078795722521686415,   0.31309610341510852,  0.027918383235078066,   -0.22959284159390708,
    0.13096206107716488,    -0.26973340565451071, 0.074973343155891436,   0.1119934239998102,
    0.36613344954622673,    -0.39910563013603589, 0.10308739852747108,    0.41143087395589023,
    -0.0048663605831352616, -0.3920333537086399,  0.051942502962449649,   0.050665090759924494,
    0.049674370639729876,   0.049317735759594535, 0.049674370639729876,   0.050665090759924494,
    0.051942502962449649,   -0.3920333537086399,  -0.0048663605831352616, 0.41143087395589023,
    0.10308739852747108,    -0.39910563013603589, 0.36613344954622673,    0.1119934239998102,
    0.074973343155891436,   -0.26973340565451071, 0.13096206107716488,    -0.22959284159390708,
    0.027918383235078066,   0.31309610341510852,  0.078795722521686415,   0};
static const sunrealtype sofroniou_10_36_ahat[] = {
    0.039397861260843207,  0.19594591296839747,   0.17050724332509329,   -0.10083722917941451,
    -0.049315390258371103, -0.069385672288672914, -0.097380031249309634, 0.093483383577850826,
    0.23906343677301847,   -0.016486090294904582, -0.14800911580428242,  0.25725913624168067,
    0.20328225668637748,   -0.19844985714588759,  -0.17004542537309514,  0.051303796861187072,
    0.050169730699827185,  0.049496053199662202,  0.049496053199662202,  0.050169730699827185,
    0.051303796861187072,  -0.17004542537309514,  -0.19844985714588759,  0.20328225668637748,
    0.25725913624168067,   -0.14800911580428242,  -0.016486090294904582, 0.23906343677301847,
    0.093483383577850826,  -0.097380031249309634, -0.069385672288672914, -0.049315390258371103,
    -0.10083722917941451,  0.17050724332509329,   0.19594591296839747,   0.039397861260843207};

typedef struct {
  const char *name; /* ARKODE_SPRKMethodID name */
  int q, s;
  const sunrealtype *a, *ahat;
} sprk_table;

#define SPRK_TABLE(NAME, low, q, s)                                                                \
  { "ARKODE_SPRK_" #NAME, q, s, low##_a, low##_ahat }
static const sprk_table sprk_tables[] = {
    SPRK_TABLE(EULER_1_1, euler_1_1, 1, 1),
    SPRK_TABLE(LEAPFROG_2_2, leapfrog_2_2, 2, 2),
    SPRK_TABLE(PSEUDO_LEAPFROG_2_2, pseudo_leapfrog_2_2, 2, 2),
    SPRK_TABLE(RUTH_3_3, ruth_3_3, 3, 3),
    SPRK_TABLE(MCLACHLAN_2_2, mclachlan_2_2, 2, 2),
    SPRK_TABLE(MCLACHLAN_3_3, mclachlan_3_3, 3, 3),
    SPRK_TABLE(CANDY_ROZMUS_4_4, candy_rozmus_4_4, 4, 4),
    SPRK_TABLE(MCLACHLAN_4_4, mclachlan_4_4, 4, 4),
    SPRK_TABLE(MCLACHLAN_5_6, mclachlan_5_6, 5, 6),
    SPRK_TABLE(YOSHIDA_6_8, yoshida_6_8, 6, 8),
    SPRK_TABLE(SUZUKI_UMENO_8_16, suzuki_umeno_8_16, 8, 16),
    SPRK_TABLE(SOFRONIOU_10_36, sofroniou_10_36, 10, 36),
};
#define SPRK_NTABLES ((int)(sizeof sprk_tables / sizeof sprk_tables[0]))

int chs_sprk_table_count(void) {
  return SPRK_NTABLES;
}

int chs_sprk_table_get(int i, const char **name, int *order, int *stages, const sunrealtype **a,
                       const sunrealtype **ahat) {
  if (i < 0 || i >= SPRK_NTABLES) {
    return CHS_ERR_NOTFOUND;
  }
  const sprk_table *T = &sprk_tables[i];
  *name = T->name;
  *order = T->q;
  *stages = T->s;
  *a = T->a;
  *ahat = T->ahat;
  return 0;
}

/* "ARKODE_SPRK_LEAPFROG_2_2" or "leapfrog_2_2" (any case), of length len. */
static const sprk_table *sprk_find(const char *name, size_t len) {
  for (int i = 0; i < SPRK_NTABLES; i++) {
    const char *full = sprk_tables[i].name, *shortname = full + strlen("ARKODE_SPRK_");
    for (int k = 0; k < 2; k++) {
      const char *c = k == 0 ? full : shortname;
      size_t j = 0;
      while (j < len && c[j] && toupper((unsigned char)name[j]) == c[j]) {
        j++;
      }
      if (j == len && c[j] == '\0') {
        return &sprk_tables[i];
      }
    }
  }
  return NULL;
}

static int sprk_close(sunrealtype x, sunrealtype y) {
  return fabs(x - y) <= 1e-14 * fmax(1, fabs(x) + fabs(y));
}

/* Composition of velocity-Verlet steps with weights a_i (see the header). */
static int sprk_is_kdk(const sprk_table *T) {
  int s = T->s;
  if (s < 2 || T->a[s - 1] != 0 || !sprk_close(T->ahat[0], T->a[0] / 2)) {
    return 0;
  }
  for (int i = 1; i < s; i++) {
    if (!sprk_close(T->ahat[i], (T->a[i - 1] + T->a[i]) / 2)) {
      return 0;
    }
  }
  return 1;
}

/* Composition of position-Verlet steps with weights ahat_i (see the header). */
static int sprk_is_dkd(const sprk_table *T) {
  int s = T->s;
  if (s < 2 || T->ahat[0] != 0 || !sprk_close(T->a[s - 1], T->ahat[s - 1] / 2)) {
    return 0;
  }
  for (int i = 0; i + 1 < s; i++) {
    if (!sprk_close(T->a[i], (T->ahat[i] + T->ahat[i + 1]) / 2)) {
      return 0;
    }
  }
  return 1;
}

/* Weights of a symmetric composition of order >= q from the composition tables above. */
static void sprk_composition(int q, const sunrealtype **w, int *k) {
  static const sunrealtype one = 1;
  if (q <= 2) {
    *w = &one;
    *k = 1;
  } else if (q <= 4) {
    *w = candy_rozmus_4_4_ahat + 1; /* the triple jump */
    *k = 3;
  } else if (q <= 6) {
    *w = yoshida_6_8_a;
    *k = 7;
  } else if (q <= 8) {
    *w = suzuki_umeno_8_16_a;
    *k = 15;
  } else {
    *w = sofroniou_10_36_a;
    *k = 35;
  }
}

/* ------------------------------------------------------------------ the stepper */

typedef struct {
  char kind; /* 'K' kick or 'D' drift */
  sunrealtype c;
} sprk_op;

typedef struct {
  CHSFormulation f;
  CHSSystem *s;
  const sprk_table *T;
  int free_mode; /* constraints ignored */
  sprk_op *ops;
  int nops;
  sunrealtype h, tol, t;
  sunindextype n, m;
  sunrealtype *q, *p, *F, *v, *qb, *corr, *G0; /* n, ..., gsize */
  sunrealtype *nu, *g, *dnu;                   /* m */
  int have_force, have_gram;
  long steps, force_evals, newton, drifts;
  /* tangent map (sprk_tangent_step): tk tangents at tdz carried through every kick and drift */
  int tk;
  sunrealtype *tdz, *q0, *tq, *tr; /* q0: q before a drift; tq, tr: n each */
  chs_tangent_work tw;
  /* SPRKStep (SUNDIALS >= 6.6, unconstrained) */
  void *arkode;
  N_Vector y;
  char arkode_msg[CHS_ARKODE_MSG_LEN];
} sprk_mem;

static const char *sprk_method_name(int i) {
  return i >= 0 && i < SPRK_NTABLES ? sprk_tables[i].name : NULL;
}

static void sprk_destroy(void *mem) {
  sprk_mem *r = mem;
  if (!r) {
    return;
  }
#if CHS_HAVE_SPRKSTEP
  if (r->arkode) {
    chs_sprk_free(&r->arkode);
  }
#endif
  if (r->y) {
    N_VDestroy(r->y);
  }
  free(r->ops);
  free(r->q);
  free(r->q0);
  chs_tangent_work_free(&r->tw);
  free(r);
}

static int sprk_add(sprk_mem *r, char kind, sunrealtype c) {
  if (c == 0) {
    return 0;
  }
  if (r->nops > 0 && kind == 'K' && r->ops[r->nops - 1].kind == 'K') {
    r->ops[r->nops - 1].c += c;
    return 0;
  }
  r->ops[r->nops].kind = kind;
  r->ops[r->nops].c = c;
  r->nops++;
  return 0;
}

/* The sequence of kicks and drifts of one step (see the header). */
static int sprk_plan(sprk_mem *r, int simple) {
  const sprk_table *T = r->T;
  const sunrealtype *w = NULL;
  int k = 1;
  int dkd = !r->free_mode && sprk_is_dkd(T);
  int refine = !r->free_mode && !simple && !dkd && !sprk_is_kdk(T);
  sprk_composition(refine ? T->q : 1, &w, &k);
  r->ops = malloc((size_t)T->s * (size_t)(1 + 2 * k) * sizeof *r->ops);
  if (!r->ops) {
    return CHS_ERR_MEM;
  }
  for (int i = 0; i < T->s; i++) {
    sprk_add(r, 'K', T->ahat[i]);
    if (dkd) {
      sprk_add(r, 'D', T->ahat[i] / 2);
      if (i + 1 < T->s) {
        sprk_add(r, 'D', T->ahat[i + 1] / 2);
      }
    } else {
      for (int j = 0; j < k && T->a[i] != 0; j++) {
        sprk_add(r, 'D', T->a[i] * w[j]);
      }
    }
  }
  return 0;
}

#if CHS_HAVE_SPRKSTEP
/* SPRKStep's two right-hand sides on y = (q, p): f1 the force part, f2 the velocity part. */
static int sprk_f1(sunrealtype t, N_Vector y, N_Vector ydot, void *data) {
  sprk_mem *r = data;
  (void)t;
  sunrealtype *z = N_VGetArrayPointer(y), *zd = N_VGetArrayPointer(ydot);
  memset(zd, 0, (size_t)r->n * sizeof *zd);
  int rc = r->s->ops->force(r->s->data, z, zd + r->n);
  return rc == 0 && chs_all_finite(zd + r->n, r->n) ? 0 : (rc < 0 ? rc : CHS_RECOVERABLE);
}

static int sprk_f2(sunrealtype t, N_Vector y, N_Vector ydot, void *data) {
  sprk_mem *r = data;
  (void)t;
  sunrealtype *z = N_VGetArrayPointer(y), *zd = N_VGetArrayPointer(ydot);
  chs_mass_inv(r->s, z + r->n, zd);
  memset(zd + r->n, 0, (size_t)r->n * sizeof *zd);
  return 0;
}

static int sprk_arkode_create(sprk_mem *r, N_Vector y0, sunrealtype t0, const CHSStepControl *ctl,
                              CHSError *err) {
  r->y = N_VClone(y0);
  if (!r->y) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  r->arkode = SPRKStepCreate(sprk_f1, sprk_f2, t0, y0, CHSFormulation_GetContext(r->f));
  chs_setup su = {0};
  CHS_SETUP_CREATED(&su, r->arkode, SPRKStepCreate);
  CHS_SETUP(&su, SPRKStepSetMethodName, r->arkode, r->T->name);
  CHS_SETUP(&su, chs_sprk_set_user_data, r->arkode, r);
  CHS_SETUP(&su, chs_sprk_set_fixed_step, r->arkode, ctl->h);
  CHS_SETUP(&su, chs_sprk_set_max_num_steps, r->arkode,
            ctl->max_steps > 0 ? ctl->max_steps : 500000);
  if (su.flag != 0) {
    char method[80];
    snprintf(method, sizeof method, "sprk:%s", r->T->name);
    return chs_setup_error(&su, "SPRKStep", method, err);
  }
  return 0;
}
#endif

static int sprk_create(const char *options, CHSFormulation f, N_Vector y0, sunrealtype t0,
                       const CHSStepControl *ctl, void **out, CHSError *err) {
  const char *opt = options ? options : "";
  size_t len = strcspn(opt, ":");
  const sprk_table *T = sprk_find(opt, len);
  if (!T) {
    return chs_error_set(err, CHS_ERR_NOTFOUND,
                         "unknown method 'sprk:%s' (an ARKODE SPRK table, e.g. "
                         "sprk:ARKODE_SPRK_MCLACHLAN_4_4 or sprk:leapfrog_2_2; see `chs list "
                         "methods`)",
                         opt);
  }
  int free_mode = 0, builtin = 0, simple = 0;
  for (const char *o = opt + len; *o == ':';) {
    o++;
    size_t l = strcspn(o, ":");
    if (l == 4 && strncmp(o, "free", 4) == 0) {
      free_mode = 1;
    } else if (l == 7 && strncmp(o, "builtin", 7) == 0) {
      builtin = 1;
    } else if (l == 6 && strncmp(o, "simple", 6) == 0) {
      simple = 1;
    } else {
      return chs_error_set(err, CHS_ERR_NOTFOUND,
                           "unknown option '%.*s' of method 'sprk:%s' (free, builtin, simple)",
                           (int)l, o, opt);
    }
    o += l;
  }
  if (!(ctl->h > 0)) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "method sprk:%s has no error estimate: use a fixed step --h", opt);
  }
  CHS_CALL(chs_fixed_step_need_physical(f, "sprk", err));
  if (free_mode && CHSFormulation_GetProjector(f)) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "method sprk:%s ignores the constraints and applies no --project", opt);
  }
  CHS_CALL(chs_fixed_step_no_projector(f, "sprk", err));
  sprk_mem *r = calloc(1, sizeof *r);
  if (!r) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  sunindextype n = f->sys.n, m = f->sys.m, gs = f->sys.gsize;
  r->f = f;
  r->s = &f->sys;
  r->T = T;
  r->free_mode = free_mode;
  r->h = ctl->h;
  r->tol = ctl->rtol > 0 ? ctl->rtol : 0;
  r->t = t0;
  r->n = n;
  r->m = m;
  r->q = malloc((6 * (size_t)n + (size_t)gs + 3 * (size_t)m) * sizeof *r->q);
  if (!r->q || sprk_plan(r, simple) != 0) {
    sprk_destroy(r);
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  r->p = r->q + n;
  r->F = r->p + n;
  r->v = r->F + n;
  r->qb = r->v + n;
  r->corr = r->qb + n;
  r->G0 = r->corr + n;
  r->nu = r->G0 + gs;
  r->g = r->nu + m;
  r->dnu = r->g + m;
  chs_fixed_step_load(y0, n, r->q, r->p);
#if CHS_HAVE_SPRKSTEP
  if (free_mode && !builtin) {
    int rc = sprk_arkode_create(r, y0, t0, ctl, err);
    if (rc != 0) {
      sprk_destroy(r);
      return rc;
    }
  }
#else
  (void)builtin;
#endif
  *out = r;
  return CHS_SUCCESS;
}

/* G(q) into s->G and Q(q) factored, unless already done at this q. */
static int sprk_gram(sprk_mem *r, CHSError *err) {
  if (!r->have_gram) {
    if (chs_system_gram_at(r->s, r->q) != 0) {
      return chs_system_gram_fail(r->s, err, "sprk", r->t);
    }
    r->have_gram = 1;
  }
  return 0;
}

/* p <- P(q) p: the mass-orthogonal projection onto psi = 0 (Q factored at q first if need be). */
static int sprk_project_momentum(sprk_mem *r, CHSError *err) {
  CHSSystem *s = r->s;
  CHS_CALL(sprk_gram(r, err));
  chs_mass_inv(s, r->p, r->v);
  chs_jac_mv(s, s->G, r->v, r->g);
  if (chs_gram_solve(s->gram, r->g, r->dnu) != 0) {
    return chs_error_set(err, CHS_ERR_SOLVER, "sprk: Gram solve failed at t = %g", (double)r->t);
  }
  chs_jac_tmv(s, s->G, r->dnu, r->v);
  for (sunindextype i = 0; i < r->n; i++) {
    r->p[i] -= r->v[i];
  }
  return 0;
}

static int sprk_kick(sprk_mem *r, sunrealtype c, CHSError *err) {
  CHSSystem *s = r->s;
  if (!r->have_force) {
    if (s->ops->force(s->data, r->q, r->F) != 0 || !chs_all_finite(r->F, r->n)) {
      return chs_error_set(err, CHS_ERR_SOLVER, "sprk: force failed at t = %g", (double)r->t);
    }
    r->force_evals++;
    r->have_force = 1;
  }
  for (sunindextype i = 0; i < r->n; i++) {
    r->p[i] += c * r->F[i];
  }
  if (!r->free_mode) {
    CHS_CALL(sprk_project_momentum(r, err));
  }
  for (int j = 0; j < r->tk; j++) { /* tangents: dp -= c H dq, then the projection's */
    sunrealtype *dq = r->tdz + 2 * r->n * j, *dp = dq + r->n;
    int rc = chs_tangent_kick(s, r->q, dq, c, dp, &r->tw);
    if (rc == 0 && !r->free_mode) {
      rc = chs_tangent_momentum(s, r->q, r->p, r->dnu, dq, dp, &r->tw);
    }
    if (rc != 0) {
      return chs_error_set(err, CHS_ERR_SOLVER, "sprk: tangent map failed at t = %g", (double)r->t);
    }
  }
  return 0;
}

/* The tangents through a drift of tau from r->q0 (tangent.h): the position step with nu (c = 1),
 * dp -= dr / tau, the momentum projection at q1 with dnu. */
static int sprk_drift_tangents(sprk_mem *r, sunrealtype tau, CHSError *err) {
  CHSSystem *s = r->s;
  sunindextype n = r->n;
  for (int j = 0; j < r->tk; j++) {
    sunrealtype *dq = r->tdz + 2 * n * j, *dp = dq + n, *tq = r->tq;
    chs_mass_inv(s, dp, tq);
    for (sunindextype i = 0; i < n; i++) {
      tq[i] = dq[i] + tau * tq[i];
    }
    int rc = 0;
    if (!r->free_mode) {
      rc = chs_tangent_position(s, r->q0, r->G0, r->nu, 1, dq, tq, r->tr, &r->tw);
      for (sunindextype i = 0; i < n && rc == 0; i++) {
        dp[i] -= r->tr[i] / tau;
      }
      if (rc == 0) {
        rc = chs_tangent_momentum(s, r->q, r->p, r->dnu, tq, dp, &r->tw);
      }
    }
    if (rc != 0) {
      return chs_error_set(err, CHS_ERR_SOLVER, "sprk: tangent map failed at t = %g", (double)r->t);
    }
    memcpy(dq, tq, (size_t)n * sizeof *dq);
  }
  return 0;
}

static int sprk_drift(sprk_mem *r, sunrealtype tau, CHSError *err) {
  CHSSystem *s = r->s;
  sunindextype n = r->n, m = r->m;
  sunrealtype *q = r->q, *v = r->v;
  r->have_force = 0;
  r->drifts++;
  chs_mass_inv(s, r->p, v);
  if (r->tk > 0) {
    memcpy(r->q0, q, (size_t)n * sizeof *q);
  }
  if (r->free_mode) {
    for (sunindextype i = 0; i < n; i++) {
      q[i] += tau * v[i];
    }
    return sprk_drift_tangents(r, tau, err);
  }
  /* RATTLE drift: q1 = qb - M^{-1} G0^T nu with qb = q + tau M^{-1} p, g(q1) = 0, simplified
   * Newton with Q(q) = G0 M^{-1} G0^T: nu <- nu + Q^{-1} g(q1). */
  CHS_CALL(sprk_gram(r, err));
  memcpy(r->G0, s->G, (size_t)s->gsize * sizeof *r->G0);
  for (sunindextype i = 0; i < n; i++) {
    r->qb[i] = q[i] + tau * v[i];
  }
  memset(r->nu, 0, (size_t)m * sizeof *r->nu);
  memcpy(q, r->qb, (size_t)n * sizeof *q); /* q now holds the iterate q1 */
  r->have_gram = 0;
  sunrealtype gscale = chs_fixed_step_gscale(r->qb, n);
  int converged = 0, polish = 0;
  for (int it = 0; it < SPRK_NEWTON_MAX; it++) {
    if (s->ops->constraint(s->data, q, r->g) != 0 || !chs_all_finite(r->g, m)) {
      break;
    }
    if (chs_fixed_step_g_done(r->g, m, r->tol, gscale)) {
      converged = 1;
      /* to round-off: one more correction makes the map smooth to the last bits (the wedge
       * diagnostic differentiates it); not needed with a user tolerance */
      if (r->tol > 0 || polish++ > 0) {
        break;
      }
    }
    if (chs_gram_solve(s->gram, r->g, r->dnu) != 0) {
      break;
    }
    for (sunindextype j = 0; j < m; j++) {
      r->nu[j] += r->dnu[j];
    }
    chs_jac_tmv(s, r->G0, r->nu, v);
    chs_mass_inv(s, v, r->corr);
    for (sunindextype i = 0; i < n; i++) {
      q[i] = r->qb[i] - r->corr[i];
    }
    r->newton++;
  }
  if (!converged) {
    return chs_error_set(err, CHS_ERR_SOLVER,
                         "sprk: position constraint iteration did not converge at t = %g "
                         "(reduce --h)",
                         (double)r->t);
  }
  /* p* = p - G0^T nu / tau, then psi = 0 at q1 */
  chs_jac_tmv(s, r->G0, r->nu, v);
  for (sunindextype i = 0; i < n; i++) {
    r->p[i] -= v[i] / tau;
  }
  CHS_CALL(sprk_project_momentum(r, err));
  return sprk_drift_tangents(r, tau, err);
}

static int sprk_step(void *mem, sunrealtype h, CHSError *err) {
  sprk_mem *r = mem;
  for (int k = 0; k < r->nops; k++) {
    const sprk_op *op = &r->ops[k];
    CHS_CALL(op->kind == 'K' ? sprk_kick(r, op->c * h, err) : sprk_drift(r, op->c * h, err));
  }
  r->t += h;
  r->steps++;
  return 0;
}

/* One step carrying k tangents through every kick and drift (the built-in stepper only). */
static int sprk_tangent_step(void *mem, sunrealtype h, int k, sunrealtype *dz, N_Vector y,
                             CHSError *err) {
  sprk_mem *r = mem;
  if (r->arkode || r->tol > 0) {
    return chs_error_set(err, CHS_ERR_UNSUPPORTED,
                         "sprk:%s through SPRKStep, or with --rtol, has no tangent map",
                         r->T->name);
  }
  if (!r->q0) {
    r->q0 = malloc(3 * (size_t)r->n * sizeof *r->q0);
    if (!r->q0 || chs_tangent_work_alloc(&r->tw, r->s) != 0) {
      return chs_error_set(err, CHS_ERR_MEM, "out of memory");
    }
    r->tq = r->q0 + r->n;
    r->tr = r->tq + r->n;
  }
  r->tk = k;
  r->tdz = dz;
  int rc = sprk_step(r, h, err);
  r->tk = 0;
  r->tdz = NULL;
  chs_fixed_step_store(r->q, r->p, r->n, y);
  return rc;
}

static int sprk_evolve(void *mem, sunrealtype tout, N_Vector y, sunrealtype *tret, int one_step,
                       CHSError *err) {
  sprk_mem *r = mem;
#if CHS_HAVE_SPRKSTEP
  if (r->arkode) {
    int rc = chs_sprk_set_stop_time(r->arkode, tout);
    if (rc == 0) {
      rc = chs_sprk_evolve(r->arkode, tout, y, tret, one_step ? ARK_ONE_STEP : ARK_NORMAL);
    }
    if (rc < 0) {
      return chs_arkode_failure(err, "SPRKStep", chs_sprk_get_return_flag_name(rc), *tret, r->f,
                                r->arkode_msg);
    }
    return 0;
  }
#endif
  int rc = chs_fixed_step_evolve(r, sprk_step, &r->t, r->h, tout, one_step, err);
  chs_fixed_step_store(r->q, r->p, r->n, y);
  *tret = r->t;
  return rc;
}

static int sprk_stats(void *mem, CHSIntegratorStats *st) {
  sprk_mem *r = mem;
  chs_fixed_step_stats(st, r->steps, r->force_evals, -1);
#if CHS_HAVE_SPRKSTEP
  if (r->arkode) {
    long v = 0, v2 = 0;
    if (chs_sprk_get_num_steps(r->arkode, &v) == 0) {
      st->steps = v;
    }
    if (SPRKStepGetNumRhsEvals(r->arkode, &v, &v2) == 0) {
      st->rhs_evals = v;
    }
  }
#endif
  return 0;
}

static void *sprk_sundials_mem(void *mem) {
  return ((sprk_mem *)mem)->arkode;
}

const CHSIntegratorOps chs_integrator_sprk = {
    .family = "sprk",
    .summary = "symplectic partitioned RK, every ARKODE SPRK table; with constraints RATTLE "
               "drifts and projected kicks (symplectic on T*M); :free ignores the constraints "
               "(SPRKStep on SUNDIALS >= 6.6)",
    .method_name = sprk_method_name,
    .create = sprk_create,
    .evolve = sprk_evolve,
    .get_stats = sprk_stats,
    .sundials_mem = sprk_sundials_mem,
    .needs_hamiltonian = 1, /* kicks with F(q) = -grad V only */
    .needs_constant_mass = 1,
    .destroy = sprk_destroy,
    .tangent_step = sprk_tangent_step,
};
