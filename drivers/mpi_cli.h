/* The chs command on MPI (docs/mpi.md): MPI is initialised only when chs was started by an MPI
 * launcher (mpirun, mpiexec, srun: OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK in the
 * environment), so that a serial `chs` never initialises MPI. Without CHS_MPI these are stubs:
 * cli_mpi_size() is 0. */
#ifndef CHS_MPI_CLI_H
#define CHS_MPI_CLI_H

#include "cli.h"

/* MPI_Init when launched by an MPI launcher (MPI_Finalize registered with atexit); ranks other
 * than 0 write nothing to stdout and stderr (every rank parses the same arguments: rank 0 reports
 * for all). */
void cli_mpi_init(int *argc, char ***argv);
/* The number of ranks when MPI is initialised, else 0; this process's rank (0 without MPI). */
int cli_mpi_size(void);
int cli_mpi_rank(void);
/* `chs run` distributed over the ranks (after cmd_run's checks of the options). */
int cmd_run_mpi(const cli_options *o);
/* Sweeps over ranks (cmd_workprec): whether this rank runs item k of a sweep (k modulo the number
 * of ranks), and the all-reduction that gives every rank the items' values (each run by one
 * rank: the others hold zeros), sum over ranks of x[0 .. n-1] in place. */
int cli_mpi_mine(long k);
void cli_mpi_sum(double *x, long n);

#endif
