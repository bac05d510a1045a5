/* Parameter lists "k=v,..." and the validation of problem specifications. */
#include "test_util.h"

static void assert_msg_contains(const CHSError *err, const char *needle) {
  if (!strstr(err->msg, needle)) {
    print_error("message \"%s\" does not contain \"%s\"\n", err->msg, needle);
    fail();
  }
}

static void test_parse_good(void **state) {
  (void)state;
  CHSParams p = NULL;
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSParams_Parse("length=2, gravity = 9.81,n=7,neg=-1.5e-3", &p, &err), 0);
  assert_non_null(p);
  assert_int_equal(err.code, CHS_SUCCESS);
  assert_true(CHSParams_Has(p, "length"));
  assert_true(CHSParams_Has(p, "gravity"));
  assert_false(CHSParams_Has(p, "mass"));
  sunrealtype x = 0;
  assert_int_equal(CHSParams_GetReal(p, "length", 1, &x, &err), 0);
  assert_true(x == 2.0);
  assert_int_equal(CHSParams_GetReal(p, "gravity", 1, &x, &err), 0);
  assert_true(x == 9.81);
  assert_int_equal(CHSParams_GetReal(p, "neg", 1, &x, &err), 0);
  assert_true(x == -1.5e-3);
  /* Absent key: the default. */
  assert_int_equal(CHSParams_GetReal(p, "mass", 0.25, &x, &err), 0);
  assert_true(x == 0.25);
  /* "n" not read yet: reported by name. */
  assert_int_equal(CHSParams_CheckAllUsed(p, "test", &err), CHS_ERR_ARG);
  assert_msg_contains(&err, "'n'");
  long n = 0;
  assert_int_equal(CHSParams_GetInt(p, "n", 3, 1, 10, &n, &err), 0);
  assert_int_equal(n, 7);
  CHSError_Clear(&err);
  assert_int_equal(CHSParams_CheckAllUsed(p, "test", &err), 0);
  assert_int_equal(err.code, CHS_SUCCESS);
  CHSParams_Destroy(&p);
  assert_null(p);

  /* Empty and NULL lists. */
  assert_int_equal(CHSParams_Parse("", &p, &err), 0);
  assert_false(CHSParams_Has(p, "length"));
  assert_int_equal(CHSParams_CheckAllUsed(p, "test", &err), 0);
  CHSParams_Destroy(&p);
  assert_int_equal(CHSParams_Parse(NULL, &p, &err), 0);
  assert_int_equal(CHSParams_GetReal(p, "length", 3, &x, &err), 0);
  assert_true(x == 3);
  CHSParams_Destroy(&p);
}

static void expect_parse_error(const char *text, const char *needle) {
  CHSParams p = (CHSParams)(uintptr_t)1; /* must be reset to NULL */
  CHSError err;
  CHSError_Clear(&err);
  int rc = CHSParams_Parse(text, &p, &err);
  assert_int_equal(rc, CHS_ERR_ARG);
  assert_int_equal(err.code, CHS_ERR_ARG);
  assert_null(p);
  assert_msg_contains(&err, needle);
  assert_true(CHSError_IsInput(rc));
}

static void test_parse_errors(void **state) {
  (void)state;
  expect_parse_error("length=1,gravity", "gravity"); /* missing '=' */
  expect_parse_error("length", "length");
  expect_parse_error("length=1,length=2", "length"); /* duplicate key */
  expect_parse_error("length=1,=2", "");             /* empty key */
  expect_parse_error("length=", "length");           /* empty value */
  /* Stray commas are empty items, not skipped */
  expect_parse_error("length=1,,gravity=2", "empty item");
  expect_parse_error(",length=1", "empty item");
  expect_parse_error("length=1,", "empty item");
}

/* Integers are range-checked before narrowing (4294967298 is not 2 as an int), with
 * overflow of long itself an error naming the key, never a clamped LONG_MAX. */
static void test_int_ranges(void **state) {
  (void)state;
  CHSParams p = NULL;
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(
      CHSParams_Parse("a=4294967298,b=99999999999999999999,c=-5,d= 7 ,e=7x,f=2", &p, &err), 0);
  long n = -1;
  assert_int_equal(CHSParams_GetInt(p, "a", 1, 1, 0x7fffffffL, &n, &err), CHS_ERR_ARG);
  assert_msg_contains(&err, "a=4294967298");
  assert_int_equal(n, 1); /* keeps the default */
  assert_int_equal(CHSParams_GetInt(p, "b", 1, 0, 10, &n, &err), CHS_ERR_ARG);
  assert_msg_contains(&err, "b=99999999999999999999");
  assert_int_equal(CHSParams_GetInt(p, "c", 1, 0, 10, &n, &err), CHS_ERR_ARG);
  assert_msg_contains(&err, "c=-5");
  assert_int_equal(CHSParams_GetInt(p, "d", 1, 0, 10, &n, &err), 0); /* spaces trimmed */
  assert_int_equal(n, 7);
  assert_int_equal(CHSParams_GetInt(p, "e", 1, 0, 10, &n, &err), CHS_ERR_ARG);
  assert_msg_contains(&err, "e=7x");
  assert_int_equal(CHSParams_GetInt(p, "f", 1, 2, 2, &n, &err), 0);
  assert_int_equal(n, 2);
  CHSParams_Destroy(&p);
  /* a problem's integer parameter and a method's stage count */
  CHSProblem prob = NULL;
  assert_int_equal(CHSProblem_Create("pendulum-chain:N=4294967298", &prob, &err), CHS_ERR_ARG);
  assert_msg_contains(&err, "N=4294967298");
  assert_null(prob);
}

static void expect_bad_real(const char *text, const char *key) {
  CHSParams p = NULL;
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSParams_Parse(text, &p, &err), 0);
  sunrealtype x = 0;
  int rc = CHSParams_GetReal(p, key, 1, &x, &err);
  if (rc != CHS_ERR_ARG) {
    print_error("%s accepted as %g\n", text, (double)x);
  }
  assert_int_equal(rc, CHS_ERR_ARG);
  assert_msg_contains(&err, key);
  CHSParams_Destroy(&p);
}

static void test_bad_numbers(void **state) {
  (void)state;
  expect_bad_real("x=nan", "x");
  expect_bad_real("x=NaN", "x");
  expect_bad_real("x=inf", "x");
  expect_bad_real("x=-infinity", "x");
  expect_bad_real("x=1e400", "x");
  expect_bad_real("x=abc", "x");
  expect_bad_real("x=1.5kg", "x");
  expect_bad_real("x=0x", "x");
  /* Range checks. */
  CHSParams p = NULL;
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSParams_Parse("a=0,b=-1,c=11,d=2.5", &p, &err), 0);
  sunrealtype x;
  long n;
  assert_int_equal(CHSParams_GetRealMin(p, "a", 1, 0, 1, &x, &err), CHS_ERR_ARG); /* 0 > 0 */
  assert_msg_contains(&err, "a");
  assert_int_equal(CHSParams_GetRealMin(p, "a", 1, 0, 0, &x, &err), 0); /* 0 >= 0 */
  assert_true(x == 0);
  assert_int_equal(CHSParams_GetRealMin(p, "b", 1, 0, 0, &x, &err), CHS_ERR_ARG);
  assert_int_equal(CHSParams_GetInt(p, "c", 1, 0, 10, &n, &err), CHS_ERR_ARG);
  assert_msg_contains(&err, "c");
  assert_int_equal(CHSParams_GetInt(p, "d", 1, 0, 10, &n, &err), CHS_ERR_ARG); /* not int */
  CHSParams_Destroy(&p);
}

static void expect_problem_error(const char *spec, int code, const char *needle) {
  CHSProblem prob = (CHSProblem)(uintptr_t)1;
  CHSError err;
  CHSError_Clear(&err);
  int rc = CHSProblem_Create(spec, &prob, &err);
  print_message("%-40s -> %s: %s\n", spec, CHSError_Name(rc), err.msg);
  assert_int_equal(rc, code);
  assert_int_equal(err.code, code);
  assert_null(prob);
  assert_msg_contains(&err, needle);
  assert_true(CHSError_IsInput(rc));
}

static void test_problem_specs(void **state) {
  (void)state;
  expect_problem_error("pendulum:foo=1", CHS_ERR_ARG, "foo");
  expect_problem_error("double-pendulum:theta1=1,bar=2", CHS_ERR_ARG, "bar");
  expect_problem_error("pendulum:length=-1", CHS_ERR_ARG, "length");
  expect_problem_error("pendulum:length=0", CHS_ERR_ARG, "length");
  expect_problem_error("pendulum:mass=-2", CHS_ERR_ARG, "mass");
  expect_problem_error("pendulum:gravity=nan", CHS_ERR_ARG, "gravity");
  expect_problem_error("pendulum:length=1e400", CHS_ERR_ARG, "length");
  expect_problem_error("pendulum:length", CHS_ERR_ARG, "length");
  expect_problem_error("pendulum:length=1,length=2", CHS_ERR_ARG, "length");
  expect_problem_error("double-pendulum:sparse=2", CHS_ERR_ARG, "sparse");
  expect_problem_error("double-pendulum:m2=0", CHS_ERR_ARG, "m2");
  expect_problem_error("no-such-problem", CHS_ERR_NOTFOUND, "no-such-problem");
  /* Inconsistent initial states: position residual, then momentum residual. */
  expect_problem_error("pendulum:x=0.5", CHS_ERR_INCONSISTENT, "residual");
  expect_problem_error("pendulum:px=1", CHS_ERR_INCONSISTENT, "residual");
  {
    CHSError err;
    CHSError_Clear(&err);
    CHSProblem prob = NULL;
    assert_int_equal(CHSProblem_Create("pendulum:x=0.5", &prob, &err), CHS_ERR_INCONSISTENT);
    assert_msg_contains(&err, "position");
    assert_int_equal(CHSProblem_Create("pendulum:px=1", &prob, &err), CHS_ERR_INCONSISTENT);
    assert_msg_contains(&err, "momentum");
  }

  /* Good specifications, with the values read back through the problem. */
  CHSProblem prob = NULL;
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(
      CHSProblem_Create("pendulum:length=2,mass=3,gravity=9.81,x=0,y=-2,px=1.5,py=0", &prob, &err),
      0);
  assert_string_equal(CHSProblem_GetName(prob), "pendulum");
  const CHSProblemDims *d = CHSProblem_GetDims(prob);
  assert_int_equal(d->n, 2);
  assert_int_equal(d->m, 1);
  double q[2], p[2], V, H;
  assert_int_equal(CHSProblem_GetOps(prob)->initial_state(CHSProblem_GetData(prob), q, p), 0);
  assert_true(q[0] == 0 && q[1] == -2 && p[0] == 1.5 && p[1] == 0);
  assert_int_equal(CHSProblem_GetOps(prob)->potential(CHSProblem_GetData(prob), q, &V), 0);
  assert_true(fabs(V - 3 * 9.81 * -2) < 1e-13);
  assert_int_equal(CHSProblem_Energy(prob, q, p, &H), 0);
  assert_true(fabs(H - (1.5 * 1.5 / 6 + 3 * 9.81 * -2)) < 1e-13);
  CHSProblem_Destroy(&prob);
  assert_null(prob);
  /* A spec with no parameters and a double pendulum with all its keys. */
  assert_int_equal(CHSProblem_Create("pendulum", &prob, &err), 0);
  CHSProblem_Destroy(&prob);
  assert_int_equal(CHSProblem_Create("double-pendulum:m1=1,m2=3,L1=0.7,L2=1.3,gravity=9.81,"
                                     "theta1=0.1,theta2=-0.2,omega1=0.3,omega2=0.4,sparse=0",
                                     &prob, &err),
                   0);
  assert_int_equal(CHSProblem_GetDims(prob)->jac_kind, CHS_JAC_DENSE);
  CHSProblem_Destroy(&prob);
}

static void test_spec_split(void **state) {
  (void)state;
  char name[16];
  const char *params = NULL;
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(CHSSpec_Split("pendulum:length=2,x=2", name, sizeof name, &params, &err), 0);
  assert_string_equal(name, "pendulum");
  assert_string_equal(params, "length=2,x=2");
  assert_int_equal(CHSSpec_Split("erk:rk4", name, sizeof name, &params, &err), 0);
  assert_string_equal(name, "erk");
  assert_string_equal(params, "rk4");
  assert_int_equal(CHSSpec_Split("dirac", name, sizeof name, &params, &err), 0);
  assert_string_equal(name, "dirac");
  assert_string_equal(params, "");
  assert_int_equal(CHSSpec_Split("", name, sizeof name, &params, &err), CHS_ERR_ARG);
  assert_int_equal(CHSSpec_Split(":x=1", name, sizeof name, &params, &err), CHS_ERR_ARG);
  assert_int_equal(CHSSpec_Split("a-name-that-is-too-long", name, sizeof name, &params, &err),
                   CHS_ERR_ARG);
}

static void test_error_helpers(void **state) {
  (void)state;
  assert_string_equal(CHSError_Name(CHS_ERR_SINGULAR), "CHS_ERR_SINGULAR");
  assert_string_equal(CHSError_Name(CHS_ERR_INCONSISTENT), "CHS_ERR_INCONSISTENT");
  assert_true(CHSError_IsInput(CHS_ERR_ARG));
  assert_true(CHSError_IsInput(CHS_ERR_NOTFOUND));
  assert_true(CHSError_IsInput(CHS_ERR_INCONSISTENT));
  assert_false(CHSError_IsInput(CHS_ERR_SINGULAR));
  assert_false(CHSError_IsInput(CHS_ERR_SOLVER));
  assert_false(CHSError_IsInput(CHS_SUCCESS));
  CHSError err;
  err.code = CHS_ERR_ARG;
  strcpy(err.msg, "x");
  CHSError_Clear(&err);
  assert_int_equal(err.code, CHS_SUCCESS);
  assert_string_equal(err.msg, "");
  CHSError_Clear(NULL);
  /* Functions accept err = NULL. */
  CHSProblem prob = NULL;
  assert_int_equal(CHSProblem_Create("pendulum:foo=1", &prob, NULL), CHS_ERR_ARG);
  assert_null(prob);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_good),  cmocka_unit_test(test_parse_errors),
      cmocka_unit_test(test_bad_numbers), cmocka_unit_test(test_problem_specs),
      cmocka_unit_test(test_spec_split),  cmocka_unit_test(test_error_helpers),
      cmocka_unit_test(test_int_ranges),
  };
  return cmocka_run_group_tests_name("params", tests, NULL, NULL);
}
