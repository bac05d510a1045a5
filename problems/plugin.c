/* Plugin problems: a shared object exporting
 *
 *   const CHSProblemOps *chs_problem_entry(int abi_version);
 *
 * returning its ops table for the ABI version chs asks for (or NULL): the current version first,
 * then older ones down to CHS_PROBLEM_ABI_VERSION_MIN (their shorter tables are widened by
 * CHSProblem_CreateFromOps). Loaded by path
 * ("--problem ./libfoo.so:k=v"); the handle lives as long as the problem. */
#include <dlfcn.h>
#include <string.h>
#include "../src/impl.h"

int chs_is_plugin_spec(const char *name) {
  size_t len = strlen(name);
  return strchr(name, '/') != NULL || (len > 3 && strcmp(name + len - 3, ".so") == 0);
}

int chs_plugin_load(const char *path, const CHSProblemOps **ops, void **handle, CHSError *err) {
  *ops = NULL;
  *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!*handle) {
    const char *why = dlerror();
    return chs_error_set(err, CHS_ERR_PLUGIN, "cannot load plugin '%s': %s", path,
                         why ? why : "unknown error");
  }
  typedef const CHSProblemOps *(*entry_fn)(int);
  entry_fn entry;
  void *sym = dlsym(*handle, CHS_PROBLEM_ENTRY_SYMBOL);
  memcpy(&entry, &sym, sizeof entry); /* object to function pointer, as POSIX allows */
  if (!sym) {
    dlclose(*handle);
    *handle = NULL;
    return chs_error_set(err, CHS_ERR_PLUGIN, "plugin '%s' does not export %s()", path,
                         CHS_PROBLEM_ENTRY_SYMBOL);
  }
  /* the current version first, then the older ones this chs still reads */
  for (int v = CHS_PROBLEM_ABI_VERSION; !*ops && v >= CHS_PROBLEM_ABI_VERSION_MIN; v--) {
    *ops = entry(v);
  }
  if (!*ops || (*ops)->abi_version < CHS_PROBLEM_ABI_VERSION_MIN ||
      (*ops)->abi_version > CHS_PROBLEM_ABI_VERSION) {
    int got = *ops ? (*ops)->abi_version : -1;
    dlclose(*handle);
    *handle = NULL;
    *ops = NULL;
    return chs_error_set(err, CHS_ERR_PLUGIN,
                         "plugin '%s' has problem ABI version %d, this chs needs %d to %d "
                         "(rebuild it against this chs' headers)",
                         path, got, CHS_PROBLEM_ABI_VERSION_MIN, CHS_PROBLEM_ABI_VERSION);
  }
  return CHS_SUCCESS;
}

void chs_plugin_close(void *handle) {
  if (handle) {
    dlclose(handle);
  }
}
