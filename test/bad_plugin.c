/* Deliberately broken plugins for the loader's error paths (one source, four builds):
 * BAD_PLUGIN 1: no entry point; 2: wrong ABI version; 3: a required callback is NULL;
 * 4: as 3, but an old plugin of ABI version 1 that answers only when asked for version 1 (the
 * loader must fall back to version 1 and get as far as the callback check). */
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
#elif BAD_PLUGIN == 4
    .abi_version = 1,
#else
    .abi_version = CHS_PROBLEM_ABI_VERSION,
#endif
    .name = "bad",
};
const CHSProblemOps *chs_problem_entry(int abi_version);
const CHSProblemOps *chs_problem_entry(int abi_version) {
#if BAD_PLUGIN == 4
  return abi_version == 1 ? &bad_ops : NULL;
#else
  (void)abi_version;
  return &bad_ops;
#endif
}
#endif
