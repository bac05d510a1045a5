/* libFuzzer harness: the command line of `chs run`, `compare` (with its tolerance sweep --tols:
 * the checks before the reference, the sweep's rows and messages; seeds with a short --tf and one
 * or two tolerances keep an input fast), `workprec` and `list`, and the number parsers of
 * drivers/cli.c (cli_parse_real/long, ..._above/_min).
 *
 * Input: one selector byte, then the arguments separated by NUL bytes. The selector picks
 * run, compare, workprec, list, or the number parsers. The driver sources are compiled into the
 * harness; the integrations they start are bounded by wrapping CHSRun, CHSWedge_Run and
 * CHSFirstOrder_Run (linker --wrap: at most 500 fixed steps or t <= 10 adaptive, 500 steps per
 * output), so an input runs in milliseconds. Paths after --out/--cache-dir go to a scratch
 * directory (workprec's --out is dropped: no gnuplot); plugins and chains larger than 64 atoms
 * are skipped. Properties: no crash, no sanitizer report, an exit status of 0, 2 or 3; the number
 * parsers accept only finite numbers in range. Leaks are not checked here (the drivers run once
 * per process); run with -detect_leaks=0 -close_fd_mask=3. */
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../drivers/cli.h"
#include "chs/first_order.h"
#include "chs/wedge.h"
#include "fuzz_common.h"

#define FUZZ_MAX_ARGS 64

static char scratch[256];

static void fuzz_bound(CHSRunOptions *o) {
  if (o->ctl.max_steps <= 0 || o->ctl.max_steps > 500) {
    o->ctl.max_steps = 500;
  }
  double span = o->ctl.h > 0 ? 500 * o->ctl.h : 10;
  if (isfinite(o->t0) && isfinite(o->tf) && o->tf - o->t0 > span) {
    o->tf = o->t0 + span;
  }
}

int __real_CHSRun(CHSFormulation f, const CHSRunOptions *opt, CHSMonitorFn monitor, void *ctx,
                  CHSRunSummary *summary, CHSError *err);
int __wrap_CHSRun(CHSFormulation f, const CHSRunOptions *opt, CHSMonitorFn monitor, void *ctx,
                  CHSRunSummary *summary, CHSError *err);
int __wrap_CHSRun(CHSFormulation f, const CHSRunOptions *opt, CHSMonitorFn monitor, void *ctx,
                  CHSRunSummary *summary, CHSError *err) {
  CHSRunOptions o = *opt;
  fuzz_bound(&o);
  return __real_CHSRun(f, &o, monitor, ctx, summary, err);
}

int __real_CHSWedge_Run(CHSFormulation f, const CHSRunOptions *opt, CHSWedgeMonitorFn monitor,
                        void *ctx, CHSWedgeSummary *sum, CHSError *err);
int __wrap_CHSWedge_Run(CHSFormulation f, const CHSRunOptions *opt, CHSWedgeMonitorFn monitor,
                        void *ctx, CHSWedgeSummary *sum, CHSError *err);
int __wrap_CHSWedge_Run(CHSFormulation f, const CHSRunOptions *opt, CHSWedgeMonitorFn monitor,
                        void *ctx, CHSWedgeSummary *sum, CHSError *err) {
  CHSRunOptions o = *opt;
  fuzz_bound(&o);
  return __real_CHSWedge_Run(f, &o, monitor, ctx, sum, err);
}

int __real_CHSFirstOrder_Run(CHSFirstOrder fo, const CHSRunOptions *opt, CHSFirstOrderSummary *sum,
                             CHSError *err);
int __wrap_CHSFirstOrder_Run(CHSFirstOrder fo, const CHSRunOptions *opt, CHSFirstOrderSummary *sum,
                             CHSError *err);
int __wrap_CHSFirstOrder_Run(CHSFirstOrder fo, const CHSRunOptions *opt, CHSFirstOrderSummary *sum,
                             CHSError *err) {
  CHSRunOptions o = *opt;
  fuzz_bound(&o);
  return __real_CHSFirstOrder_Run(fo, &o, sum, err);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  snprintf(scratch, sizeof scratch, "/tmp/chs-fuzz-cli-XXXXXX");
  if (!mkdtemp(scratch)) {
    perror("fuzz_cli: mkdtemp");
    abort();
  }
  setenv("XDG_CACHE_HOME", scratch, 1);
  setenv("HOME", scratch, 1);
  int fd = open("/dev/null", O_WRONLY);
  if (fd >= 0) {
    dup2(fd, STDOUT_FILENO); /* the tables and JSON of the commands */
    close(fd);
  }
  return 0;
}

static void fuzz_numbers(int argc, char **argv) {
  for (int i = 0; i < argc; i++) {
    double x = 0;
    long k = 0;
    if (cli_parse_real("--x", argv[i], &x) == 0 && !isfinite(x)) {
      abort();
    }
    if (cli_parse_real_above("--x", argv[i], 0, &x) == 0 && !(x > 0 && isfinite(x))) {
      abort();
    }
    (void)cli_parse_long("--k", argv[i], &k);
    if (cli_parse_long_min("--k", argv[i], 1, &k) == 0 && k < 1) {
      abort();
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const commands[] = {"run", "compare", "workprec", "list", "numbers"};
  if (size < 1 || size > 8192) {
    return 0;
  }
  int cmd = data[0] % 5;
  char *buf = fuzz_strndup(data + 1, size - 1);
  if (!buf) {
    return 0;
  }
  char out_csv[300], cache[300];
  snprintf(out_csv, sizeof out_csv, "%s/out.csv", scratch);
  snprintf(cache, sizeof cache, "%s/cache", scratch);
  char *argv[FUZZ_MAX_ARGS + 2];
  int argc = 0;
  argv[argc++] = (char *)commands[cmd];
  int skip = 0;
  for (size_t at = 0; at < size - 1 && argc < FUZZ_MAX_ARGS; at += strlen(buf + at) + 1) {
    char *a = buf + at;
    if (fuzz_is_plugin_spec(a) && argc > 1 && strcmp(argv[argc - 1], "--problem") == 0) {
      skip = 1; /* a plugin path: never dlopen() a fuzz input */
    }
    if (fuzz_too_large(a, 64)) {
      skip = 1;
    }
    if (strncmp(a, "--out=", 6) == 0 || strncmp(a, "--cache-dir=", 12) == 0) {
      continue; /* getopt_long's --opt=PATH form: never a path of the fuzz input */
    }
    if (argc > 1 && strcmp(argv[argc - 1], "--out") == 0) {
      if (cmd == 2) {
        argc--; /* workprec --out: plots through gnuplot, too slow here */
        continue;
      }
      a = out_csv;
    } else if (argc > 1 && strcmp(argv[argc - 1], "--cache-dir") == 0) {
      a = cache;
    }
    argv[argc++] = a;
  }
  argv[argc] = NULL;
  if (!skip) {
    int status = 0;
    switch (cmd) {
    case 0:
      status = cmd_run(argc, argv);
      break;
    case 1:
      status = cmd_compare(argc, argv);
      break;
    case 2:
      status = cmd_workprec(argc, argv);
      break;
    case 3:
      status = cmd_list(argc, argv);
      break;
    default:
      fuzz_numbers(argc - 1, argv + 1);
      break;
    }
    if (status != 0 && status != 2 && status != 3) {
      fprintf(stderr, "fuzz_cli: exit status %d\n", status);
      abort();
    }
  }
  free(buf);
  return 0;
}
