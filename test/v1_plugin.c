/* A plugin as built against the version-1 problem header: the example spherical pendulum whose
 * entry point answers only abi_version 1 and returns a table of exactly the version-1 size (the
 * fields appended in version 2 are not there), for the loader's compatibility path. */
#include <stdalign.h>
#include <stddef.h>
#include <string.h>
#define chs_problem_entry chs_problem_entry_current
#include "../problems/examples/spherical_pendulum.c"
#undef chs_problem_entry

static alignas(max_align_t) unsigned char v1_table[offsetof(CHSProblemOps, invariant_names)];

const CHSProblemOps *chs_problem_entry(int abi_version);
const CHSProblemOps *chs_problem_entry(int abi_version) {
  if (abi_version != 1) {
    return NULL;
  }
  int one = 1;
  memcpy(v1_table, &sph_ops, sizeof v1_table);
  memcpy(v1_table + offsetof(CHSProblemOps, abi_version), &one, sizeof one);
  return (const CHSProblemOps *)(void *)v1_table;
}
