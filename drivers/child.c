/* Functions run in forked children (drivers/child.h). */
#define _DEFAULT_SOURCE /* wait4: the rusage of one child */
#include "child.h"
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "chs/chs.h"
#include "cli.h"

int cli_child_start(cli_child *c, void (*fn)(void *arg, void *buf), void *arg, void *buf,
                    size_t len, unsigned alarm_s) {
  int fd[2];
  fflush(stdout);
  fflush(stderr);
  if (pipe(fd) != 0) {
    return -1;
  }
  pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    return -1;
  }
  if (pid == 0) {
    close(fd[0]);
    if (alarm_s > 0) {
      alarm(alarm_s);
    }
    fn(arg, buf);
    const char *p = buf;
    while (len > 0) {
      ssize_t w = write(fd[1], p, len);
      if (w < 0 && errno == EINTR) {
        continue;
      }
      if (w <= 0) {
        _exit(1);
      }
      p += w;
      len -= (size_t)w;
    }
    _exit(0);
  }
  close(fd[1]);
  c->pid = pid;
  c->fd = fd[0];
  return 0;
}

size_t cli_child_finish(cli_child *c, void *buf, size_t len, int *status, struct rusage *ru) {
  char *p = buf;
  size_t got = 0;
  while (got < len) {
    ssize_t r = read(c->fd, p + got, len - got);
    if (r < 0 && errno == EINTR) {
      continue;
    }
    if (r <= 0) {
      break;
    }
    got += (size_t)r;
  }
  close(c->fd);
  int st = 0;
  struct rusage u = {0};
  while (wait4(c->pid, &st, 0, &u) < 0 && errno == EINTR) {
  }
  if (status) {
    *status = st;
  }
  if (ru) {
    *ru = u;
  }
  return got;
}

void cli_child_why(int status, double limit, char *msg, size_t len) {
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
    snprintf(msg, len, "killed at the time limit (%g s)", limit);
  } else if (WIFSIGNALED(status)) {
    snprintf(msg, len, "the run's process died (signal %d)", WTERMSIG(status));
  } else {
    snprintf(msg, len, "the run's process reported nothing");
  }
}

int cli_child_run(void (*fn)(void *arg, void *buf), void *arg, void *buf, size_t len, char *msg,
                  size_t msglen) {
  cli_child ch;
  int status = 0;
  if (cli_child_start(&ch, fn, arg, buf, len, 0) != 0) {
    snprintf(msg, msglen, "cannot start a process: %s", strerror(errno));
    return -1;
  }
  if (cli_child_finish(&ch, buf, len, &status, NULL) != len) {
    cli_child_why(status, 0, msg, msglen);
    return -1;
  }
  return 0;
}

typedef struct {
  const char *const *specs;
  int count;
} cli_specs;

typedef struct {
  int rc;
  char msg[CHS_ERROR_MSG_LEN];
  long n[]; /* count */
} cli_specs_out;

static void cli_check_problems_child(void *arg, void *buf) {
  const cli_specs *x = arg;
  cli_specs_out *out = buf;
  for (int k = 0; out->rc == 0 && k < x->count; k++) {
    CHSProblem prob = NULL;
    CHSError err;
    CHSError_Clear(&err);
    out->rc = CHSProblem_Create(x->specs[k], &prob, &err);
    if (out->rc == 0) {
      out->n[k] = CHSProblem_GetDims(prob)->n;
    } else {
      snprintf(out->msg, sizeof out->msg, "%s", err.msg);
    }
    CHSProblem_Destroy(&prob);
  }
}

int cli_check_problems(const char *const *specs, int count, long *n) {
  size_t len = sizeof(cli_specs_out) + (size_t)count * sizeof(long);
  cli_specs_out *out = calloc(1, len);
  if (!out) {
    return cli_fail_code(CHS_ERR_MEM, "out of memory");
  }
  cli_specs x = {specs, count};
  char why[200];
  int rc = cli_child_run(cli_check_problems_child, &x, out, len, why, sizeof why) != 0
               ? cli_fail_code(CHS_ERR_SOLVER, why)
           : out->rc != 0 ? cli_fail_code(out->rc, out->msg)
                          : 0;
  if (rc == 0 && n) {
    memcpy(n, out->n, (size_t)count * sizeof *n);
  }
  free(out);
  return rc;
}

double cli_rss_now(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long size = 0, res = -1;
  if (f) {
    if (fscanf(f, "%ld %ld", &size, &res) != 2) {
      res = -1;
    }
    fclose(f);
  }
  return res >= 0 ? (double)res * (double)sysconf(_SC_PAGESIZE) : NAN;
}
