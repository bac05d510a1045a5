/* chs: command-line driver. Only drivers print; the library returns codes and messages. */
#include <stdio.h>
#include <string.h>
#if defined(__GLIBC__) || defined(__linux__)
#include <malloc.h>
#endif
#include "cli.h"
#include "mpi_cli.h"

static const cli_command commands[] = {
    {"run", "integrate one problem with one formulation and method", cmd_run},
    {"compare", "integrate with several formulations, same method; table of errors and costs",
     cmd_compare},
    {"reproduce", "the papers' experiments, their numbers beside ours, claims computed",
     cmd_reproduce},
    {"workprec", "work-precision sweep of configurations over tolerances (table, CSV, PNG)",
     cmd_workprec},
    {"bench",
     "benchmarks: `chs bench rhs|dae|scale|mpi` (RHS cost, DAE vs ODE, chain to 10^5 atoms, MPI)",
     cmd_bench},
    {"check", "check a problem's derivatives against finite differences", cmd_check},
    {"list", "list problems, formulations, methods or experiments", cmd_list},
    {"completion", "print the bash completion script: chs completion bash", cmd_completion},
    {"help", "chs help COMMAND: the options of COMMAND; --markdown: the reference of all",
     cmd_help},
};
#define NCOMMANDS ((int)(sizeof commands / sizeof commands[0]))

static void usage(FILE *out) {
  fprintf(out, "usage: chs COMMAND [options]   (chs COMMAND --help for its options)\n\n"
               "Constrained Hamiltonian systems on SUNDIALS.\n\ncommands:\n");
  for (int i = 0; i < NCOMMANDS; i++) {
    fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
  }
  fprintf(out, "\n  --version  print the chs and SUNDIALS versions\n"
               "\nexit status: 0 success, 2 bad input, 3 numerical failure\n");
}

static int chs_main(int argc, char **argv);

/* Under mpirun every rank ends with the same status, and the first failing rank's message reaches
 * rank 0 (cli_mpi_finish, docs/mpi.md). */
int main(int argc, char **argv) {
#ifdef M_MMAP_THRESHOLD
  /* The sparse Jacobians (docs/scale.md) allocate and free arrays of O(nnz) per evaluation:
   * keep them on the heap instead of fresh mmaps that fault in every page each time (4.4 s ->
   * 1.4 s for pendulum-chain:N=10000 with dae-index3 and ida:ls=klu). */
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
  cli_mpi_init(&argc, &argv); /* only when started by mpirun (docs/mpi.md) */
  return cli_mpi_finish(chs_main(argc, argv));
}

static int chs_main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return CHS_EXIT_USAGE;
  }
  if (argv[1][0] == '-' && argc > 2) { /* --help, --version take no arguments */
    return cli_usage_error("unexpected argument '%.200s' after %.200s", argv[2], argv[1]);
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    usage(stdout);
    return CHS_EXIT_OK;
  }
  if (strcmp(argv[1], "--version") == 0) {
    char v[64];
    CHS_SundialsVersion(v, (int)sizeof v);
    printf("chs %s (SUNDIALS %s)\n", CHS_VERSION_STRING, v);
    return CHS_EXIT_OK;
  }
  if (strcmp(argv[1], "man") == 0) { /* hidden: the man page chs(1), built by CMake */
    return cmd_man(argc - 1, argv + 1);
  }
  for (int i = 0; i < NCOMMANDS; i++) {
    if (strcmp(argv[1], commands[i].name) == 0) {
      int status = commands[i].main(argc - 1, argv + 1);
      /* results on stdout that could not be written are a failed output (e.g. a full disk) */
      if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "chs: cannot write the results to standard output\n");
        return status == CHS_EXIT_OK ? CHS_EXIT_NUMERIC : status;
      }
      return status;
    }
  }
  cli_usage_error("unknown command '%.200s'", argv[1]);
  usage(stderr);
  return CHS_EXIT_USAGE;
}
