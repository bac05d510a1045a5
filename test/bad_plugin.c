/* Deliberately broken plugins for the loader's error paths (one source, three builds):
 * BAD_PLUGIN 1: no entry point; 2: wrong ABI version; 3: a required callback is NULL. */
#include <chs/problem.h>

#if BAD_PLUGIN == 1
int chs_not_the_entry(void);
int chs_not_the_entry(void) {
  return 0;
}
#else
static const CHSProblemOps bad_ops = {
#if BAD_PLUGIN == 2
    .abi_version = CHS_PROBLEM_ABI_VERSION + 100,
#else
    .abi_version = CHS_PROBLEM_ABI_VERSION,
#endif
    .name = "bad",
};
const CHSProblemOps *chs_problem_entry(int abi_version);
const CHSProblemOps *chs_problem_entry(int abi_version) {
  (void)abi_version;
  return &bad_ops;
}
#endif
