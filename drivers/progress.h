/* Progress of long runs and sweeps on the standard error (drivers/progress.c).
 *
 * Active only when the standard error is a terminal and the command was not given --quiet: one
 * line "LABEL  42.0%  t = 4.2/10  RATE  ETA 0:12", redrawn in place with '\r' at most five times
 * a second, and erased (the cursor back at the start of an empty line) by progress_end or, before
 * any other message on the standard error, by progress_interrupt. Nothing goes to the standard
 * output: tables, JSON and CSV are the same with or without a terminal. */
#ifndef CHS_PROGRESS_H
#define CHS_PROGRESS_H

typedef struct {
  int active;      /* 0: every call is a no-op */
  int shown;       /* a line is on the terminal */
  int runs;        /* 1: a sweep of runs (done counts runs); 0: a run (done is t) */
  double start;    /* the first value of done (t0) */
  double total;    /* the last value of done (t_f, or the number of runs) */
  double wall0;    /* monotonic seconds at progress_start */
  double last;     /* monotonic seconds of the last drawing */
  char label[64];  /* printable ASCII only */
  char detail[48]; /* the item a sweep is at (printable ASCII), "" */
} progress;

/* Starts a reporter of a run from t = start to t = total (runs = 0) or of a sweep of `total`
 * runs (runs = 1, start 0). Active when !quiet and isatty(2). label: any text (bytes outside
 * printable ASCII are shown as '?'). */
void progress_start(progress *p, int quiet, int runs, const char *label, double start,
                    double total);
/* done: the time reached, or the runs finished. Draws at most five times a second (the first
 * call draws at once). */
void progress_update(progress *p, double done);
/* A sweep's current item ("dirac/erk:dp5 tol 1e-06"), shown after the fraction; NULL: none. */
void progress_detail(progress *p, const char *detail);
/* Erases the line (if any) and deactivates the reporter. Safe to call twice. */
void progress_end(progress *p);
/* Erases the line of the reporter on screen, if any (it is drawn again at its next update):
 * call before writing anything else to the standard error while a reporter is active. */
void progress_interrupt(void);
/* progress_interrupt when the standard output is a terminal too: call before printing a row of
 * a table while a reporter is active (stdout is line-buffered on a terminal). */
void progress_interrupt_stdout(void);

#endif
