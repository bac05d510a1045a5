/* The example spherical pendulum with coordinate and constraint names (problem ABI 8): usable
 * ones (NAMES_PLUGIN=1: x, y, z and rod) and hostile ones (NAMES_PLUGIN=2: a comma, a quote, a
 * shell substitution, a newline), which the output must not use. For outputs_cli_test.sh. */
#include <string.h>
#define chs_problem_entry chs_problem_entry_unnamed
#include "../problems/examples/spherical_pendulum.c"
#undef chs_problem_entry

#if NAMES_PLUGIN == 1
static const char *const coordinate_names[] = {"x", "y", "z"};
static const char *const constraint_names[] = {"rod"};
#else
static const char *const coordinate_names[] = {"x,y", "a'b", "$(touch PWNED)"};
static const char *const constraint_names[] = {"rod\nnew line"};
#endif

static int named_create(CHSParams kv, void **data, CHSProblemDims *d, CHSError *err) {
  int rc = sph_create(kv, data, d, err);
  d->coordinate_names = coordinate_names;
  d->constraint_names = constraint_names;
  return rc;
}

static CHSProblemOps named_ops;

const CHSProblemOps *chs_problem_entry(int abi_version);
const CHSProblemOps *chs_problem_entry(int abi_version) {
  if (abi_version != CHS_PROBLEM_ABI_VERSION) {
    return NULL;
  }
  named_ops = sph_ops;
  named_ops.create = named_create;
  return &named_ops;
}
