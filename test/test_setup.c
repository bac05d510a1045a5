/* The chain of SUNDIALS set-up calls (src/integrate/setup.h): calls after the first failure do not
 * run, the error names the failing call after macro expansion (a compat.h alias reads as the
 * function it stands for), and a NULL from a create call is out of memory. */
#include "test_util.h"
#include "../src/integrate/setup.h"

static int calls[3];

static int ok(int k) {
  calls[k]++;
  return 0;
}

static int refuse(int k) {
  calls[k]++;
  return -22;
}

#define chs_alias_of_refuse refuse

static void test_first_failure_named(void **state) {
  (void)state;
  memset(calls, 0, sizeof calls);
  chs_setup su = {0};
  CHS_SETUP(&su, ok, 0);
  CHS_SETUP(&su, chs_alias_of_refuse, 1);
  CHS_SETUP(&su, ok, 2);
  assert_int_equal(calls[0], 1);
  assert_int_equal(calls[1], 1);
  assert_int_equal(calls[2], 0); /* not run after the failure */
  assert_int_equal(su.flag, -22);
  assert_string_equal(su.call, "refuse");
  CHSError err;
  CHSError_Clear(&err);
  assert_int_equal(chs_setup_error(&su, "CVODE", "cvode:bdf", &err), CHS_ERR_SOLVER);
  assert_string_equal(err.msg, "CVODE set-up failed for cvode:bdf: refuse returned -22");
}

static void test_success_and_null(void **state) {
  (void)state;
  chs_setup su = {0};
  CHSError err;
  CHSError_Clear(&err);
  CHS_SETUP(&su, ok, 0);
  assert_int_equal(chs_setup_error(&su, "IDA", "ida", &err), CHS_SUCCESS);
  assert_int_equal(err.code, CHS_SUCCESS);
  void *mem = NULL;
  CHS_SETUP_CREATED(&su, mem, IDACreate);
  CHS_SETUP(&su, ok, 0);
  assert_int_equal(calls[0], 1 + 1); /* once in each test: the call after the NULL did not run */
  assert_int_equal(chs_setup_error(&su, "IDA", "ida", &err), CHS_ERR_MEM);
  assert_string_equal(err.msg,
                      "IDA set-up failed for ida: IDACreate returned NULL (out of memory)");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_first_failure_named),
      cmocka_unit_test(test_success_and_null),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
