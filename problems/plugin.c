/* Plugin problems: a shared object exporting
 *
 *   const CHSProblemOps *chs_problem_entry(int abi_version);
 *
 * returning its ops table for the ABI version chs asks for (or NULL): the current version first,
 * then older ones down to CHS_PROBLEM_ABI_VERSION_MIN (their shorter tables are widened by
 * CHSProblem_CreateFromOps). Loaded by path ("--problem ./libfoo.so:k=v"; a bare file name
 * "libfoo.so" that exists in the working directory is that file, not a search of the library
 * path); the handle lives as long as the problem.
 *
 * The entry point is called only when it is a function: on glibc the ELF symbol table entry of
 * the exported name (dladdr1, RTLD_DL_SYMENT) must have type STT_FUNC or STT_GNU_IFUNC, so that a
 * data object of that name is refused instead of being jumped into. */
#define _GNU_SOURCE /* dladdr1 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#if defined(__GLIBC__) || defined(__linux__)
#include <link.h>
#endif
#include "../src/impl.h"

int chs_is_plugin_spec(const char *name) {
  size_t len = strlen(name);
  return strchr(name, '/') != NULL || (len > 3 && strcmp(name + len - 3, ".so") == 0);
}

/* 0 when sym is a function symbol of the object, else a CHSError code (message set). */
static int chs_plugin_check_function(const char *path, void *sym, CHSError *err) {
#if defined(__GLIBC__)
  Dl_info info;
  const ElfW(Sym) *ent = NULL;
  if (dladdr1(sym, &info, (void **)&ent, RTLD_DL_SYMENT) == 0 || !ent) {
    return chs_error_set(err, CHS_ERR_PLUGIN,
                         "plugin '%s': cannot find the symbol table entry of %s (not loaded "
                         "as a function)",
                         path, CHS_PROBLEM_ENTRY_SYMBOL);
  }
  int type = ELF32_ST_TYPE(ent->st_info); /* the same low 4 bits of st_info in ELF64 */
  if (type != STT_FUNC && type != STT_GNU_IFUNC) {
    return chs_error_set(err, CHS_ERR_PLUGIN,
                         "plugin '%s': %s is not a function (ELF symbol type %d%s); it must be "
                         "const CHSProblemOps *%s(int abi_version)",
                         path, CHS_PROBLEM_ENTRY_SYMBOL, type,
                         type == STT_OBJECT ? ", a data object" : "", CHS_PROBLEM_ENTRY_SYMBOL);
  }
#else
  (void)path;
  (void)sym;
  (void)err;
#endif
  return CHS_SUCCESS;
}

int chs_plugin_load(const char *path, const CHSProblemOps **ops, void **handle, CHSError *err) {
  *ops = NULL;
  /* dlopen searches the library path for a name without '/': an existing file of that name in
   * the working directory is meant instead */
  char local[4096];
  const char *open_path = path;
  if (!strchr(path, '/') && access(path, F_OK) == 0 && strlen(path) + 3 <= sizeof local) {
    memcpy(local, "./", 2);
    memcpy(local + 2, path, strlen(path) + 1);
    open_path = local;
  }
  *handle = dlopen(open_path, RTLD_NOW | RTLD_LOCAL);
  if (!*handle) {
    const char *why = dlerror();
    return chs_error_set(err, CHS_ERR_PLUGIN, "cannot load plugin '%s': %s", path,
                         why ? why : "unknown error");
  }
  typedef const CHSProblemOps *(*entry_fn)(int);
  entry_fn entry;
  void *sym = dlsym(*handle, CHS_PROBLEM_ENTRY_SYMBOL);
  memcpy(&entry, &sym, sizeof entry); /* object to function pointer, as POSIX allows */
  int rc = CHS_SUCCESS;
  if (!sym) {
    rc = chs_error_set(err, CHS_ERR_PLUGIN, "plugin '%s' does not export %s()", path,
                       CHS_PROBLEM_ENTRY_SYMBOL);
  } else {
    rc = chs_plugin_check_function(path, sym, err);
  }
  if (rc == CHS_SUCCESS) {
    /* the current version first, then the older ones this chs still reads */
    for (int v = CHS_PROBLEM_ABI_VERSION; !*ops && v >= CHS_PROBLEM_ABI_VERSION_MIN; v--) {
      *ops = entry(v);
    }
    if (!*ops) {
      char asked[64] = ""; /* "2 and 1", "3, 2 and 1" */
      for (int v = CHS_PROBLEM_ABI_VERSION; v >= CHS_PROBLEM_ABI_VERSION_MIN; v--) {
        size_t used = strlen(asked);
        snprintf(asked + used, sizeof asked - used, "%s%d",
                 v == CHS_PROBLEM_ABI_VERSION       ? ""
                 : v == CHS_PROBLEM_ABI_VERSION_MIN ? " and "
                                                    : ", ",
                 v);
      }
      rc = chs_error_set(err, CHS_ERR_PLUGIN,
                         "plugin '%s': entry point %s() returned NULL for ABI version%s %s (the "
                         "versions this chs reads; rebuild it against this chs' headers)",
                         path, CHS_PROBLEM_ENTRY_SYMBOL,
                         CHS_PROBLEM_ABI_VERSION > CHS_PROBLEM_ABI_VERSION_MIN ? "s" : "", asked);
    } else if ((*ops)->abi_version < CHS_PROBLEM_ABI_VERSION_MIN ||
               (*ops)->abi_version > CHS_PROBLEM_ABI_VERSION) {
      rc = chs_error_set(err, CHS_ERR_PLUGIN,
                         "plugin '%s' has problem ABI version %d, this chs needs %d to %d "
                         "(rebuild it against this chs' headers)",
                         path, (*ops)->abi_version, CHS_PROBLEM_ABI_VERSION_MIN,
                         CHS_PROBLEM_ABI_VERSION);
    }
  }
  if (rc != CHS_SUCCESS) {
    dlclose(*handle);
    *handle = NULL;
    *ops = NULL;
  }
  return rc;
}

void chs_plugin_close(void *handle) {
  if (handle) {
    dlclose(handle);
  }
}
