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
/* Sweeps over ranks (drivers/mpi_cli.c; workprec, bench dae, bench dae --scale): item k of a sweep
 * runs on rank cli_mpi_owner(k) (k modulo the number of ranks; 0 without MPI); cli_sweep_mine(k)
 * says whether this rank runs it (always 1 without MPI); cli_sweep_share(items, size, count, first)
 * gives every rank every item of the array items[0 .. count) (each `size` bytes; items[i] is item
 * first + i of the sweep) from the rank that ran it. The bytes of buf from rank root to every rank;
 * the largest of *x over the ranks into *x (every rank agrees on a failure). No-ops without MPI. */
int cli_mpi_owner(long k);
int cli_sweep_mine(long k);
void cli_sweep_share(void *items, size_t size, long count, long first);
void cli_mpi_bcast(void *buf, size_t bytes, int root);
void cli_mpi_max(int *x);
/* Agreement on a status (0 or an exit status) over the ranks: every rank calls it at the same
 * points (before the first collective operation of a command, and where a failure on one rank
 * must stop all). Returns 0 when every rank passed 0, else the status of the lowest failing rank
 * on every rank; that rank's messages (its standard error since the last agreement: ranks other
 * than 0 keep theirs in a temporary file) are printed by rank 0, "chs: rank K: ...". After a
 * failed agreement no further collective call is made by cli_mpi_finish. Without MPI: status. */
int cli_mpi_agree(int status);
/* The exit status of the command on every rank (main): the agreement on status, unless a failed
 * agreement already took place (then its status). Without MPI: status. */
int cli_mpi_finish(int status);

#endif
