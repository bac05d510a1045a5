/* chs list problems|formulations|methods|experiments: read from the registries. */
#include <string.h>
#include "reproduce.h"

/* The names of a problem instance's k coordinates or constraints ("q1 .. qn" style when it
 * declares none; declared names are [A-Za-z0-9_], validated at creation), shortened to about 90
 * characters. */
static void list_names(const char *const *names, long k, const char *dflt) {
  if (!names) {
    printf(k > 1 ? "%s1 .. %s%ld" : "%s1", dflt, dflt, k);
    return;
  }
  int used = 0;
  for (long i = 0; i < k; i++) {
    if (used > 90) {
      printf(", ... (%ld in all)", k);
      return;
    }
    int w = printf("%s%s", i ? ", " : "", names[i]);
    used += w > 0 ? w : 0;
  }
}

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
      /* the default instance's names: what --fix, --output and --plot-vars take */
      CHSProblem prob = NULL;
      CHSError err;
      if (CHSProblem_Create(p->name, &prob, &err) == 0) {
        const CHSProblemDims *d = CHSProblem_GetDims(prob);
        printf("%-16s   coordinates: ", "");
        list_names(d->coordinate_names, (long)d->n, "q");
        printf("; constraints: ");
        list_names(d->constraint_names, (long)d->m, "g");
        printf("\n");
      }
      CHSProblem_Destroy(&prob);
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
