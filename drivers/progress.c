/* Progress on the standard error when it is a terminal (drivers/progress.h). */
#include "progress.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define PROGRESS_INTERVAL 0.2 /* seconds between drawings: at most five a second */

/* The reporter whose line is on the terminal (at most one: the chs command is one process that
 * reports one thing at a time); progress_interrupt erases its line. */
static progress *progress_on_screen;
static size_t progress_width; /* characters of the line on the terminal */

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void copy_printable(char *dst, size_t len, const char *src) {
  size_t k = 0;
  for (; src && *src && k + 1 < len; src++) {
    unsigned char c = (unsigned char)*src;
    dst[k++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
  }
  dst[k] = '\0';
}

static int terminal_columns(void) {
  struct winsize ws;
  if (ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) {
    return ws.ws_col;
  }
  return 80;
}

static void erase(void) {
  char blank[512];
  size_t n = progress_width < sizeof blank - 2 ? progress_width : sizeof blank - 2;
  blank[0] = '\r';
  memset(blank + 1, ' ', n);
  blank[n + 1] = '\r';
  fwrite(blank, 1, n + 2, stderr);
  fflush(stderr);
  progress_width = 0;
  if (progress_on_screen) {
    progress_on_screen->shown = 0;
    progress_on_screen->last = -1; /* drawn again at its next update, below what came between */
  }
  progress_on_screen = NULL;
}

void progress_start(progress *p, int quiet, int runs, const char *label, double start,
                    double total) {
  memset(p, 0, sizeof *p);
  p->active = !quiet && isatty(2);
  p->runs = runs;
  p->start = start;
  p->total = total;
  p->wall0 = now();
  p->last = -1;
  copy_printable(p->label, sizeof p->label, label);
}

void progress_detail(progress *p, const char *detail) {
  if (p->active) {
    copy_printable(p->detail, sizeof p->detail, detail);
  }
}

/* "1:02:03", "2:03" or "--" (unknown). */
static void format_eta(char *buf, size_t len, double s) {
  if (!isfinite(s) || s < 0 || s > 1e7) {
    snprintf(buf, len, "--");
    return;
  }
  long t = (long)(s + 0.5);
  if (t >= 3600) {
    snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  } else {
    snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
  }
}

void progress_update(progress *p, double done) {
  if (!p->active) {
    return;
  }
  double w = now();
  if (p->last >= 0 && w - p->last < PROGRESS_INTERVAL) {
    return;
  }
  p->last = w;
  double span = p->total - p->start, elapsed = w - p->wall0;
  double f = span > 0 ? (done - p->start) / span : 1;
  f = isfinite(f) ? fmin(fmax(f, 0), 1) : 0;
  char eta[32], line[256];
  format_eta(eta, sizeof eta, f > 0 ? elapsed * (1 - f) / f : NAN);
  int k;
  if (p->runs) {
    double per = done > 0 ? elapsed / done : NAN;
    char rate[32] = "";
    if (isfinite(per)) {
      snprintf(rate, sizeof rate, "  %.3g s/run", per);
    }
    k = snprintf(line, sizeof line, "%s  %.0f/%.0f runs  %5.1f%%%s%s%s  ETA %s", p->label, done,
                 p->total, 100 * f, p->detail[0] ? "  " : "", p->detail, rate, eta);
  } else {
    double rate = elapsed > 0 ? (done - p->start) / elapsed : NAN;
    char r[32] = "";
    if (isfinite(rate) && rate > 0) {
      snprintf(r, sizeof r, "  %.3g t/s", rate);
    }
    k = snprintf(line, sizeof line, "%s  %5.1f%%  t = %.4g of %.4g%s  ETA %s", p->label, 100 * f,
                 done, p->total, r, eta);
  }
  size_t n = k < 0 ? 0 : (size_t)k < sizeof line ? (size_t)k : sizeof line - 1;
  size_t cols = (size_t)terminal_columns() - 1; /* never wrap: '\r' would not go back */
  n = n < cols ? n : cols;
  if (progress_on_screen && progress_on_screen != p) {
    erase();
  }
  /* '\r', the line, then blanks over what is left of a longer previous line */
  char out[600];
  size_t used = 0;
  out[used++] = '\r';
  memcpy(out + used, line, n);
  used += n;
  for (size_t i = n; i < progress_width && used < sizeof out; i++) {
    out[used++] = ' ';
  }
  fwrite(out, 1, used, stderr);
  fflush(stderr);
  progress_width = n;
  progress_on_screen = p;
  p->shown = 1;
}

void progress_end(progress *p) {
  if (p->shown && progress_on_screen == p) {
    erase();
  }
  p->shown = 0;
  p->active = 0;
}

void progress_interrupt(void) {
  if (progress_on_screen) {
    erase();
  }
}

void progress_interrupt_stdout(void) {
  if (progress_on_screen && isatty(1)) {
    erase();
  }
}
