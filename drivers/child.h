/* A function run in a forked child, its result (a byte buffer) sent back through a pipe: the
 * bench's runs (each measured on its own, killed at a time limit) and the reference's two
 * integrations (drivers/refcache.c: the estimate at 10 tol beside the reference, on the other
 * core). */
#ifndef CHS_CHILD_H
#define CHS_CHILD_H

#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

typedef struct {
  pid_t pid;
  int fd; /* read end of the pipe */
} cli_child;

/* Starts fn(arg, buf) in a child, which then writes the len bytes of buf to the pipe and exits;
 * alarm_s > 0 sends it SIGALRM after that many seconds. 0, or -1 when pipe or fork failed
 * (nothing started). stdout and stderr are flushed first. */
int cli_child_start(cli_child *c, void (*fn)(void *arg, void *buf), void *arg, void *buf,
                    size_t len, unsigned alarm_s);

/* Reads the child's bytes into buf (at most len), reaps it: the number of bytes read (len when
 * the child finished), its wait status and rusage (either may be NULL). */
size_t cli_child_finish(cli_child *c, void *buf, size_t len, int *status, struct rusage *ru);

/* Why a child sent less than its result: "killed at the time limit (LIMIT s)" (SIGALRM), "the
 * run's process died (signal S)", or "the run's process reported nothing". */
void cli_child_why(int status, double limit, char *msg, size_t len);

/* fn(arg, buf) in a child, waited for without a time limit (the bench's checks of its inputs,
 * the reference of bench dae --scale: work kept out of this process, whose heap the later runs
 * would inherit): 0 when the child sent its len bytes; else -1 and why in msg. */
int cli_child_run(void (*fn)(void *arg, void *buf), void *arg, void *buf, size_t len, char *msg,
                  size_t msglen);

/* Every problem spec of specs[0 .. count) created in a waited-for child (the benches check their
 * inputs before any work, and this process, whose heap the runs forked later would inherit, stays
 * small): 0, or the CLI's exit code of the first failure, reported (cli_fail_code). n[k], when n
 * is not NULL, the number of coordinates of specs[k]. */
int cli_check_problems(const char *const *specs, int count, long *n);

/* This process's resident bytes now (/proc/self/statm; NaN unknown): in a child, what it
 * inherited, to subtract from its peak. */
double cli_rss_now(void);

#endif
