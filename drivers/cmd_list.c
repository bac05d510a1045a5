/* chs list problems|formulations|methods|experiments: read from the registries. */
#include <string.h>
#include "reproduce.h"

int cmd_list(int argc, char **argv) {
  cli_options o;
  int rc = cli_parse(CLI_LIST, argc, argv, &o);
  if (rc != 0) {
    return rc == CLI_HELP_DONE ? CHS_EXIT_OK : rc;
  }
  const char *what = o.arg;
  if (!what) {
    fprintf(stderr, "usage: chs list problems|formulations|methods|experiments\n");
    return CHS_EXIT_USAGE;
  }
  if (strcmp(what, "problems") == 0) {
    for (int i = 0; i < CHSProblemRegistry_Count(); i++) {
      const CHSProblemOps *p = CHSProblemRegistry_Get(i);
      printf("%-16s %s\n%-16s   parameters: %s\n", p->name, p->summary, "", p->params_doc);
    }
    printf("\nfirst-order Lagrangians L = a(z).z' - V(z) (chs/first_order.h; chs run --problem "
           "NAME --method erk:...):\n");
    for (int i = 0; i < CHSFirstOrderRegistry_Count(); i++) {
      const CHSFirstOrderOps *p = CHSFirstOrderRegistry_Get(i);
      printf("%-16s %s\n%-16s   parameters: %s\n", p->name, p->summary, "", p->params_doc);
    }
  } else if (strcmp(what, "formulations") == 0) {
    for (int i = 0; i < CHSFormulationRegistry_Count(); i++) {
      const CHSFormulationOps *f = CHSFormulationRegistry_Get(i);
      printf("%-16s %s [%s]\n", f->name, f->summary, f->source);
    }
  } else if (strcmp(what, "methods") == 0) {
    for (int i = 0; i < CHSIntegratorRegistry_Count(); i++) {
      const CHSIntegratorOps *it = CHSIntegratorRegistry_Get(i);
      printf("%s: %s\n", it->family, it->summary);
      for (int k = 0; it->method_name && it->method_name(k); k++) {
        const char *name = it->method_name(k);
        printf("  %s%s%s\n", it->family, name[0] ? ":" : "", name);
      }
    }
  } else if (strcmp(what, "experiments") == 0) {
    for (int i = 0; i < rep_experiment_count(); i++) {
      const rep_experiment *ex = rep_experiment_get(i);
      printf("%-28s %s [%s]\n", ex->name, ex->summary, ex->source);
    }
  } else {
    return cli_usage_error("unknown list '%.200s' (problems, formulations, methods, experiments)",
                           what);
  }
  return CHS_EXIT_OK;
}
