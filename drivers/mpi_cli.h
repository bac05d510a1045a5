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
/* Sweeps over ranks (cmd_workprec): the rank that runs item k of a sweep (k modulo the number of
 * ranks; 0 without MPI); the bytes of buf from rank root to every rank; the largest of *x over the
 * ranks into *x (every rank agrees on a failure). No-ops without MPI. */
int cli_mpi_owner(long k);
void cli_mpi_bcast(void *buf, size_t bytes, int root);
void cli_mpi_max(int *x);

#endif
