/* Names of coordinates and constraints (chs/problem.h, ABI 8): every built-in instance declares
 * valid, unique names of the right count, and the loader refuses a bad table naming the entry. */
#include <ctype.h>
#include "test_util.h"

/* Every built-in problem, small where the size is a parameter, and its second parameter set. */
static const char *const specs[] = {"pendulum",
                                    "double-pendulum",
                                    "double-pendulum:sparse=0",
                                    "pendulum-chain:N=3",
                                    "chain:N=5",
                                    "chain",
                                    "slider-crank",
                                    "slider-crank:set=sundials",
                                    "andrews",
                                    "car-axis",
                                    "heavy-top"};

static int valid_name(const char *s) {
  size_t l = strlen(s);
  if (l < 1 || l > 31 || !isalpha((unsigned char)s[0])) {
    return 0;
  }
  for (size_t i = 0; i < l; i++) {
    if (!isalnum((unsigned char)s[i]) && s[i] != '_') {
      return 0;
    }
  }
  return 1;
}

static void check_table(CHSProblem prob, sunindextype count,
                        const char *(*get)(CHSProblem, sunindextype), const char *spec) {
  for (sunindextype i = 0; i < count; i++) {
    const char *a = get(prob, i);
    assert_non_null(a);
    if (!valid_name(a)) {
      print_error("%s: name %ld '%s' is not valid\n", spec, (long)i, a);
      fail();
    }
    for (sunindextype j = 0; j < i; j++) {
      assert_string_not_equal(a, get(prob, j));
    }
  }
  assert_null(get(prob, count)); /* out of range */
  assert_null(get(prob, -1));
}

static void test_builtin_names(void **state) {
  (void)state;
  int seen[16] = {0};
  for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
    CHSProblem prob = NULL;
    CHSError err;
    CHSError_Clear(&err);
    if (CHSProblem_Create(specs[k], &prob, &err) != 0) {
      print_error("%s: %s\n", specs[k], err.msg);
      fail();
    }
    const CHSProblemDims *d = CHSProblem_GetDims(prob);
    assert_non_null(d->coordinate_names); /* every built-in names its coordinates */
    check_table(prob, d->n, CHSProblem_GetCoordinateName, specs[k]);
    if (d->constraint_names) {
      check_table(prob, d->m, CHSProblem_GetConstraintName, specs[k]);
    } else {
      assert_null(CHSProblem_GetConstraintName(prob, 0));
    }
    for (int r = 0; r < CHSProblemRegistry_Count(); r++) {
      seen[r] |= CHSProblemRegistry_Get(r) == CHSProblem_GetOps(prob);
    }
    CHSProblem_Destroy(&prob);
  }
  for (int r = 0; r < CHSProblemRegistry_Count(); r++) {
    if (!seen[r]) {
      print_error("built-in problem %s is not in this test's list\n",
                  CHSProblemRegistry_Get(r)->name);
      fail();
    }
  }
}

/* What each name means, from the problems' descriptions. */
static void expect_names(const char *spec, const char *const *coords, const char *const *cons) {
  CHSProblem prob = NULL;
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSProblem_Create(spec, &prob, &err), 0);
  const CHSProblemDims *d = CHSProblem_GetDims(prob);
  for (sunindextype i = 0; i < d->n; i++) {
    assert_string_equal(CHSProblem_GetCoordinateName(prob, i), coords[i]);
  }
  for (sunindextype i = 0; cons && i < d->m; i++) {
    assert_string_equal(CHSProblem_GetConstraintName(prob, i), cons[i]);
  }
  if (!cons) {
    assert_null(d->constraint_names);
  }
  CHSProblem_Destroy(&prob);
}

static void test_builtin_meaning(void **state) {
  (void)state;
  expect_names("andrews",
               (const char *const[]){"beta", "Theta", "gamma", "Phi", "delta", "Omega", "epsilon"},
               NULL);
  expect_names("car-axis", (const char *const[]){"xl", "yl", "xr", "yr"}, NULL);
  expect_names("pendulum", (const char *const[]){"x", "y"}, (const char *const[]){"rod"});
  expect_names("pendulum-chain:N=3", (const char *const[]){"x1", "y1", "x2", "y2", "x3", "y3"},
               (const char *const[]){"link1", "link2", "link3"});
  expect_names("chain:N=12",
               (const char *const[]){"x1", "y1", "x2",  "y2",  "x3",  "y3",  "x4",  "y4",
                                     "x5", "y5", "x6",  "y6",  "x7",  "y7",  "x8",  "y8",
                                     "x9", "y9", "x10", "y10", "x11", "y11", "x12", "y12"},
               (const char *const[]){"bond1", "bond2", "bond3", "bond4", "bond5", "bond6", "bond7",
                                     "bond8", "bond9", "bond10", "bond11"});
}

/* A pendulum (x, y) with one constraint whose names come from the parameter `names`. */
static const char *const *bad_coords;
static const char *const *bad_cons;
static int np_create(CHSParams kv, void **data, CHSProblemDims *d, CHSError *err) {
  (void)kv;
  (void)err;
  *data = calloc(1, 1);
  d->n = 2;
  d->m = 1;
  d->mass_kind = CHS_MASS_IDENTITY;
  d->jac_kind = CHS_JAC_DENSE;
  d->declares = CHS_DECLARE_LINEAR_POTENTIAL | CHS_DECLARE_QUADRATIC_CONSTRAINTS;
  d->coordinate_names = bad_coords;
  d->constraint_names = bad_cons;
  return 0;
}
static void np_destroy(void *data) {
  free(data);
}
static int np_V(void *data, const sunrealtype *q, sunrealtype *V) {
  (void)data;
  *V = q[1];
  return 0;
}
static int np_F(void *data, const sunrealtype *q, sunrealtype *F) {
  (void)data;
  (void)q;
  F[0] = 0;
  F[1] = -1;
  return 0;
}
static int np_g(void *data, const sunrealtype *q, sunrealtype *g) {
  (void)data;
  g[0] = 0.5 * (q[0] * q[0] + q[1] * q[1] - 1);
  return 0;
}
static int np_G(void *data, const sunrealtype *q, sunrealtype *G) {
  (void)data;
  G[0] = q[0];
  G[1] = q[1];
  return 0;
}
static int np_Gd(void *data, const sunrealtype *q, const sunrealtype *u, sunrealtype *Gd) {
  (void)data;
  (void)q;
  Gd[0] = u[0];
  Gd[1] = u[1];
  return 0;
}
static int np_init(void *data, sunrealtype *q, sunrealtype *p) {
  (void)data;
  q[0] = 1;
  q[1] = 0;
  p[0] = 0;
  p[1] = 0;
  return 0;
}
static const CHSProblemOps np_ops = {.abi_version = CHS_PROBLEM_ABI_VERSION,
                                     .name = "named",
                                     .create = np_create,
                                     .destroy = np_destroy,
                                     .potential = np_V,
                                     .force = np_F,
                                     .constraint = np_g,
                                     .jacobian = np_G,
                                     .jacobian_dot = np_Gd,
                                     .initial_state = np_init};

static void expect_refused(const char *const *coords, const char *const *cons, const char *needle) {
  bad_coords = coords;
  bad_cons = cons;
  CHSProblem prob = NULL;
  CHSError err;
  CHSError_Clear(&err);
  int rc = CHSProblem_CreateFromOps(&np_ops, "", &prob, &err);
  if (rc == 0 || !strstr(err.msg, needle)) {
    print_error("rc %d, message \"%s\" does not contain \"%s\"\n", rc, err.msg, needle);
    fail();
  }
  assert_int_equal(err.code, CHS_ERR_PLUGIN);
  assert_null(prob);
}

static void test_bad_tables(void **state) {
  (void)state;
  /* the good table loads and reads back */
  bad_coords = (const char *const[]){"x", "y_2"};
  bad_cons = (const char *const[]){"rod"};
  CHSProblem prob = NULL;
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSProblem_CreateFromOps(&np_ops, "", &prob, &err), 0);
  assert_string_equal(CHSProblem_GetCoordinateName(prob, 1), "y_2");
  assert_string_equal(CHSProblem_GetConstraintName(prob, 0), "rod");
  CHSProblem_Destroy(&prob);

  expect_refused((const char *const[]){"x", "x"}, NULL,
                 "coordinate_names[0] and coordinate_names[1] are both \"x\"");
  expect_refused((const char *const[]){"x", "y-1"}, NULL,
                 "coordinate_names[1] = \"y-1\" is not a valid name: it has a character");
  expect_refused((const char *const[]){"x", "abcdefghijklmnopqrstuvwxyz012345"}, NULL,
                 "coordinate_names[1] = \"abcdefghijklmnopqrstuvwxyz012345\" is not a valid name: "
                 "it is longer than 31");
  expect_refused(
      (const char *const[]){"1x", "y"}, NULL,
      "coordinate_names[0] = \"1x\" is not a valid name: it does not start with a letter");
  expect_refused((const char *const[]){"", "y"}, NULL,
                 "coordinate_names[0] = \"\" is not a valid "
                 "name: it is empty");
  expect_refused((const char *const[]){"x", NULL}, NULL, "coordinate_names[1]");
  expect_refused((const char *const[]){"x", "t"}, NULL,
                 "\"t\" is not a valid name: it is reserved");
  expect_refused((const char *const[]){"x", "y\n\x01"}, NULL,
                 "coordinate_names[1] = \"y\\x0a\\x01\"");
  expect_refused(NULL, (const char *const[]){"lambda"}, "constraint_names[0] = \"lambda\"");
  expect_refused(NULL, (const char *const[]){"th\xce\xb8"},
                 "constraint_names[0] = \"th\\xce\\xb8\"");
  /* 31 characters is the limit, not beyond */
  bad_coords = (const char *const[]){"x", "abcdefghijklmnopqrstuvwxyz01234"};
  bad_cons = NULL;
  assert_int_equal(CHSProblem_CreateFromOps(&np_ops, "", &prob, &err), 0);
  CHSProblem_Destroy(&prob);
}

/* chs check names the entry of a wrong derivative by its coordinate: F[1] off by a factor 2. */
static int np_F_wrong(void *data, const sunrealtype *q, sunrealtype *F) {
  (void)data;
  (void)q;
  F[0] = 0;
  F[1] = -2;
  return 0;
}

static void test_check_names(void **state) {
  (void)state;
  CHSProblemOps ops = np_ops;
  ops.force = np_F_wrong;
  bad_coords = (const char *const[]){"x", "height"};
  bad_cons = NULL;
  CHSProblem prob = NULL;
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSProblem_CreateFromOps(&ops, "", &prob, &err), 0);
  CHSCheckOptions opt;
  CHSCheckOptions_Default(&opt);
  CHSCheckReport *rep = malloc(sizeof *rep);
  assert_non_null(rep);
  assert_int_equal(CHSProblem_Check(prob, &opt, rep, &err), 0);
  int found = 0;
  for (int i = 0; i < rep->nrows; i++) {
    if (strcmp(rep->rows[i].name, "force") == 0) {
      assert_int_equal(rep->rows[i].verdict, CHS_CHECK_FAIL);
      found = strstr(rep->rows[i].detail, "entry 1 (height)") != NULL;
      if (!found) {
        print_error("detail \"%s\" does not name the coordinate\n", rep->rows[i].detail);
      }
    }
  }
  assert_true(found);
  free(rep);
  CHSProblem_Destroy(&prob);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_builtin_names), cmocka_unit_test(test_builtin_meaning),
      cmocka_unit_test(test_bad_tables), cmocka_unit_test(test_check_names)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
