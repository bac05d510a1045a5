/* A problem plugin with the built-in chain's physics under its own name ("chain-plugin"): its
 * callbacks are the registered chain's, and it declares its bond-chain structure itself
 * (CHS_DECLARE_BOND_CHAIN, free: no CHS_DECLARE_ANCHORED), so that MPI runs distribute it by
 * the declared structure, not by a problem name. Built twice (test/CMakeLists.txt):
 * CHAIN_PLUGIN_UNDECLARED leaves the structure undeclared (the distributed run must refuse it).
 * test/mpi_plugin_test.sh runs both. */
#include <chs/chs.h>

static CHSProblemOps plugin_ops;
static const CHSProblemOps *chain_ops;

static int plugin_create(CHSParams params, void **data, CHSProblemDims *dims, CHSError *err) {
  int rc = chain_ops->create(params, data, dims, err);
  if (rc == 0) {
    dims->declares = CHS_DECLARE_QUADRATIC_CONSTRAINTS;
#ifndef CHAIN_PLUGIN_UNDECLARED
    dims->declares |= CHS_DECLARE_BOND_CHAIN;
#endif
  }
  return rc;
}

const CHSProblemOps *chs_problem_entry(int abi_version);
const CHSProblemOps *chs_problem_entry(int abi_version) {
  chain_ops = CHSProblemRegistry_Find("chain");
  if (abi_version != CHS_PROBLEM_ABI_VERSION || !chain_ops) {
    return NULL;
  }
  plugin_ops = *chain_ops;
  plugin_ops.name = "chain-plugin";
  plugin_ops.create = plugin_create;
  return &plugin_ops;
}
