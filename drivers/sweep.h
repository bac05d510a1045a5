/* The exhaustive sweep of `chs bench calibrate` and `chs bench auto`: every formulation x
 * adaptive method that applies, on the built-in problems with a reference at their final time,
 * at a tolerance sweep (rtol = atol = tol); each run a forked child killed at a time limit. */
#ifndef CHS_SWEEP_H
#define CHS_SWEEP_H

#include "cli.h"
#include "progress.h"

#define SWEEP_MAX_TOLS 16 /* --tols: N at most */
#define SWEEP_MAX_PROBLEMS 8
#define SWEEP_MAX_FORMS 32
#define SWEEP_MAX_METHODS 128

/* A problem with a reference at its final time tf: its --problems name and its spec. */
typedef struct {
  const char *name, *spec;
  double tf;
} sweep_problem;

extern const sweep_problem sweep_problems[];
extern const int sweep_nproblems;

/* One run's result, sent back by the child. */
typedef struct {
  int done; /* 1: the child finished the run (rc below is its code) */
  int rc, input;
  int has_ref;
  int warnings; /* the run's warnings (stderr and JSON of `chs run`) */
  long steps, evals;
  double err, wall; /* err: int_err_final, |(q,p)(tf) - reference|_2 */
  char msg[240];
} sweep_point;

typedef struct {
  const char *spec, *form, *method;
  double tf, tol;
} sweep_job;

/* Runs job j in a forked child killed after limit seconds; a failure (the run's, or the child's:
 * killed, crashed) is r->rc != 0 with r->msg saying why. */
void sweep_run(const sweep_job *j, double limit, sweep_point *r);
/* sweep_run of job j at the K = jitter tolerances j->tol x 10^(d/40), d = -(K-1)/2 .. (K-1)/2
 * (K odd): the median final error, evaluations, steps and wall time of the K runs (each the
 * value of one run, not necessarily the same run), warnings summed; the first failure, if any
 * run fails. K = 1: sweep_run. */
void sweep_run_jittered(const sweep_job *j, double limit, int jitter, sweep_point *r);

/* One configuration of the sweep on one problem, at every tolerance. */
typedef struct {
  int problem; /* index into sweep_problems */
  char form[64], method[96];
  int skipped;   /* the configuration does not apply */
  char why[240]; /* skipped: the refusal */
  sweep_point pt[SWEEP_MAX_TOLS];
} sweep_config;

/* What the options ask to sweep. */
typedef struct {
  int np, pidx[SWEEP_MAX_PROBLEMS]; /* problems: indices into sweep_problems */
  int nf, nm, nt;
  const char *fitem[SWEEP_MAX_FORMS], *mitem[SWEEP_MAX_METHODS];
  double tols[SWEEP_MAX_TOLS], limit;
  int jitter; /* K runs per point, their medians (bench auto --jitter; 1 elsewhere) */
  char pbuf[512], fbuf[1024], mbuf[CLI_MAX_VALUE_LEN], all_store[SWEEP_MAX_METHODS][96];
} sweep_spec;

/* Reads --problems, --formulations, --methods, --tols, --time-limit and checks --csv of o into
 * s, refusing bad input (exit status 2, the message printed). two_tols != NULL: at least two
 * different tolerances are needed, two_tols says why. 0. */
int sweep_parse(const cli_options *o, const char *two_tols, sweep_spec *s);
/* The start both sweeping commands share: argv parsed as command cmd, *s allocated and filled by
 * sweep_parse, --dry-run stopped naming what. 1: run the sweep with *s (free it after); 0: the
 * command is done and returns *status (help, bad input, dry run, out of memory). */
int sweep_start(int cmd, int argc, char **argv, const char *two_tols, const char *what,
                cli_options *o, sweep_spec **s, int *status);

/* Runs the sweep (s->np * s->nf * s->nm configurations, in that order, problem outermost),
 * adding one to *done and updating prog per run. A configuration that refuses the problem or the
 * method at the first tolerance (an input error) is skipped. The configurations (calloc'd; the
 * caller frees them), or NULL when out of memory. */
sweep_config *sweep_all(const sweep_spec *s, progress *prog, double *done);

/* A CSV field: quoted, inner quotes doubled (failure messages may hold commas). */
int sweep_csv_field(FILE *fp, const char *s);

#endif
