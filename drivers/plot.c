/* Output files (temporary + rename, removed on signals) and gnuplot without a shell. */
#include "plot.h"
#include "progress.h"
#include "cli.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* A user's path in a message: control bytes and invalid UTF-8 as \xNN (cli_fputs_safe). The
 * buffer lives until the end of the enclosing block. */
#define SAFE(s) cli_safe((char[1024]){0}, 1024, (s))

/* ------------------------------------------------------------------ signal-cleanup registry */

/* Live temporary files. The handler only reads tmp_live (sig_atomic_t) and the path of a live
 * slot, whose text is complete before the slot is marked live (signal fence); registration and
 * release happen with the signals blocked. */
#define TMP_SLOTS 16
static char tmp_paths[TMP_SLOTS][4200];
static volatile sig_atomic_t tmp_live[TMP_SLOTS];
static int tmp_handlers_installed;
/* Every asynchronous signal whose default action ends the process and that can be caught: the
 * terminal's and the batch systems' (SIGXCPU, SIGUSR1 before a time limit), alarms, a closed pipe
 * (SIGPIPE when stdout or an output written through is a pipe whose reader left). */
static const int tmp_signals[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT,   SIGUSR1, SIGUSR2,
                                  SIGALRM, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGPIPE};
#define TMP_NSIGNALS ((int)(sizeof tmp_signals / sizeof tmp_signals[0]))

/* The process whose temporary files the registry holds: a forked child (a benchmark's run, killed
 * by SIGALRM at its time limit) inherits the handlers but must not remove its parent's files. */
static volatile pid_t tmp_owner;

static void tmp_on_signal(int sig) {
  if (getpid() == tmp_owner) {
    for (int i = 0; i < TMP_SLOTS; i++) {
      if (tmp_live[i]) {
        unlink(tmp_paths[i]);
      }
    }
  }
  /* SA_RESETHAND restored the default disposition and SA_NODEFER leaves sig unblocked: raising it
   * again ends the process with the conventional status. */
  raise(sig);
}

static void tmp_install_handlers(void) {
  if (tmp_owner != getpid()) { /* first use, or first use in a forked child */
    for (int i = 0; i < TMP_SLOTS; i++) {
      tmp_live[i] = 0;
    }
    tmp_owner = getpid();
  }
  if (tmp_handlers_installed) {
    return;
  }
  tmp_handlers_installed = 1;
  for (int i = 0; i < TMP_NSIGNALS; i++) {
    struct sigaction old, sa;
    if (sigaction(tmp_signals[i], NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) ||
        old.sa_handler != SIG_DFL) {
      continue; /* an ignored signal stays ignored (nohup; SIGXFSZ ignored: writes fail), and a
                 * handler installed before is its owner's (libFuzzer's SIGALRM timer: replacing
                 * it ended the fuzzer at its first alarm) */
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = tmp_on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND | SA_NODEFER;
    sigaction(tmp_signals[i], &sa, NULL);
  }
}

static void tmp_block(sigset_t *old) {
  sigset_t set;
  sigemptyset(&set);
  for (int i = 0; i < TMP_NSIGNALS; i++) {
    sigaddset(&set, tmp_signals[i]);
  }
  sigprocmask(SIG_BLOCK, &set, old);
}

static void tmp_unblock(const sigset_t *old) {
  sigprocmask(SIG_SETMASK, old, NULL);
}

/* Creates `base.tmp.PID.N` (O_EXCL, mode 0666 & ~umask) and registers it; the fd, or -1 with
 * errno set. Call with the signals blocked. */
static int tmp_open_blocked(const char *base, char *tmp, size_t len, int *slot) {
  static unsigned counter;
  int s = 0;
  while (s < TMP_SLOTS && tmp_live[s]) {
    s++;
  }
  if (s == TMP_SLOTS) {
    errno = EMFILE;
    return -1;
  }
  for (int attempt = 0; attempt < 1000; attempt++) {
    int k = snprintf(tmp, len, "%s.tmp.%ld.%u", base, (long)getpid(), counter++);
    if (k < 0 || (size_t)k >= len || (size_t)k >= sizeof tmp_paths[s]) {
      errno = ENAMETOOLONG;
      return -1;
    }
    int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      memcpy(tmp_paths[s], tmp, (size_t)k + 1);
      atomic_signal_fence(memory_order_seq_cst);
      tmp_live[s] = 1;
      *slot = s;
      return fd;
    }
    if (errno != EEXIST) {
      return -1;
    }
  }
  return -1;
}

static int tmp_open(const char *base, char *tmp, size_t len, int *slot) {
  tmp_install_handlers();
  sigset_t old;
  tmp_block(&old);
  int fd = tmp_open_blocked(base, tmp, len, slot);
  int e = errno;
  tmp_unblock(&old);
  errno = e;
  return fd;
}

void tmp_file_release(int slot, const char *path, int remove_it) {
  sigset_t old;
  tmp_block(&old);
  if (remove_it && path) {
    unlink(path);
  }
  if (slot >= 0 && slot < TMP_SLOTS) {
    tmp_live[slot] = 0;
  }
  tmp_unblock(&old);
}

/* Renames a registered temporary file to its final name, unregistering it in the same breath. */
static int tmp_rename(int slot, const char *tmp, const char *path) {
  sigset_t old;
  tmp_block(&old);
  int rc = rename(tmp, path);
  int e = errno;
  if (rc != 0) {
    unlink(tmp);
  }
  tmp_live[slot] = 0;
  tmp_unblock(&old);
  errno = e;
  return rc;
}

int make_dirs(const char *dir) {
  char path[4096];
  if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  for (char *p = path + 1; *p; p++) {
    if (*p == '/') {
      *p = '\0';
      if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        return -1;
      }
      *p = '/';
    }
  }
  if (mkdir(path, 0777) != 0 && errno != EEXIST) {
    return -1;
  }
  struct stat st;
  if (stat(path, &st) != 0) {
    return -1;
  }
  if (!S_ISDIR(st.st_mode)) {
    errno = ENOTDIR;
    return -1;
  }
  return 0;
}

int path_join(char *buf, size_t len, const char *dir, const char *name) {
  int k = snprintf(buf, len, "%s/%s", dir, name);
  return k < 0 || (size_t)k >= len ? -1 : 0;
}

int tmp_file_create(const char *dir, const char *prefix, char *name, size_t name_len, char *path,
                    size_t path_len, int *slot) {
  char base[4096];
  if (!plot_safe_name(prefix) || path_join(base, sizeof base, dir, prefix) != 0) {
    errno = ENAMETOOLONG;
    return -1;
  }
  int fd = tmp_open(base, path, path_len, slot);
  if (fd < 0) {
    return -1;
  }
  close(fd);
  const char *slash = strrchr(path, '/');
  if ((size_t)snprintf(name, name_len, "%s", slash + 1) >= name_len) {
    tmp_file_release(*slot, path, 1);
    errno = ENAMETOOLONG;
    return -1;
  }
  return 0;
}

/* ------------------------------------------------------------------ output targets */

/* dst = the directory part of path ("." when it has none). -1 when too long. */
static int dir_part(char *dst, size_t len, const char *path) {
  const char *slash = strrchr(path, '/');
  int k = !slash          ? snprintf(dst, len, ".")
          : slash == path ? snprintf(dst, len, "/")
                          : snprintf(dst, len, "%.*s", (int)(slash - path), path);
  return k < 0 || (size_t)k >= len ? -1 : 0;
}

static const char *out_tmp_dir(void) {
  const char *d = getenv("TMPDIR");
  return d && d[0] == '/' && strlen(d) < 3000 ? d : "/tmp";
}

/* The end of a chain of symbolic links that names nothing (a dangling link): the name the chain
 * ends at, which writing the output creates. -1 with errno set. */
static int follow_dangling(const char *path, char *final, size_t len) {
  char cur[4096], link[4096], dir[4096];
  if (snprintf(cur, sizeof cur, "%s", path) >= (int)sizeof cur) {
    errno = ENAMETOOLONG;
    return -1;
  }
  for (int depth = 0; depth < 40; depth++) {
    struct stat st;
    if (lstat(cur, &st) != 0) {
      if (errno != ENOENT) {
        return -1;
      }
      if (snprintf(final, len, "%s", cur) >= (int)len) {
        errno = ENAMETOOLONG;
        return -1;
      }
      return 0;
    }
    if (!S_ISLNK(st.st_mode)) {
      errno = EEXIST; /* the chain's end appeared meanwhile */
      return -1;
    }
    ssize_t n = readlink(cur, link, sizeof link - 1);
    if (n < 0) {
      return -1;
    }
    link[n] = '\0';
    if (link[0] == '/') {
      memcpy(cur, link, (size_t)n + 1);
    } else if (dir_part(dir, sizeof dir, cur) != 0 ||
               snprintf(cur, sizeof cur, "%s/%s", dir, link) >= (int)sizeof cur) {
      errno = ENAMETOOLONG;
      return -1;
    }
  }
  errno = ELOOP;
  return -1;
}

static int same_file(const struct stat *a, const struct stat *b) {
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

int out_target_resolve(const char *path, out_target *t, const char **why) {
  struct stat lst, st, sfd;
  memset(t, 0, sizeof *t);
  t->kind = OUT_REPLACE;
  t->fd = -1;
  *why = NULL;
  if (!path || !*path || strlen(path) >= sizeof t->final) {
    *why = "empty or too long";
    return -1;
  }
  if (lstat(path, &lst) != 0) {
    if (errno != ENOENT) {
      *why = strerror(errno);
      return -1;
    }
    snprintf(t->final, sizeof t->final, "%s", path);
  } else if (S_ISREG(lst.st_mode)) {
    snprintf(t->final, sizeof t->final, "%s", path);
  } else if (S_ISDIR(lst.st_mode)) {
    *why = "a directory, not a file";
    return -1;
  } else if (stat(path, &st) != 0) {
    if (errno != ENOENT || !S_ISLNK(lst.st_mode)) {
      *why = errno == ELOOP ? "a loop of symbolic links" : strerror(errno);
      return -1;
    }
    if (follow_dangling(path, t->final, sizeof t->final) != 0) {
      *why = errno == ELOOP ? "a loop of symbolic links" : strerror(errno);
      return -1;
    }
  } else if (S_ISDIR(st.st_mode)) {
    *why = "a link to a directory, not a file";
    return -1;
  } else if (S_ISSOCK(st.st_mode)) {
    *why = "a socket";
    return -1;
  } else if (S_ISBLK(st.st_mode)) {
    *why = "a block device"; /* a disk: never a place for a report */
    return -1;
  } else {
    /* A link or a special file: this process's standard output or error (/dev/stdout), a
     * regular file the link names, or something to write into (a FIFO, a device). */
    for (int fd = 1; fd <= 2 && t->kind == OUT_REPLACE; fd++) {
      if (fstat(fd, &sfd) == 0 && same_file(&st, &sfd)) {
        t->kind = OUT_STDFD;
        t->fd = fd;
      }
    }
    struct stat rst;
    if (t->kind == OUT_REPLACE &&
        (!S_ISREG(st.st_mode) || !realpath(path, t->final) || stat(t->final, &rst) != 0 ||
         !same_file(&st, &rst) || !S_ISREG(rst.st_mode))) {
      t->kind = OUT_THROUGH; /* a special file, or a link whose file has no name to replace */
    }
  }
  if (t->kind == OUT_REPLACE) {
    if (dir_part(t->dir, sizeof t->dir, t->final) != 0) {
      *why = "path too long";
      return -1;
    }
  } else {
    t->final[0] = '\0';
    snprintf(t->dir, sizeof t->dir, "%s", out_tmp_dir());
  }
  return 0;
}

/* Writes n bytes of s to fd (retrying short writes and EINTR). 0 or -1 (errno). */
static int write_all(int fd, const char *s, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, s, n);
    if (w < 0 && errno == EINTR) {
      continue;
    }
    if (w <= 0) {
      return -1;
    }
    s += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Copies the whole of fd `in` (from its start) to fd `out`. 0 or -1 (errno). */
static int copy_fd(int in, int out) {
  if (lseek(in, 0, SEEK_SET) != 0) {
    return -1;
  }
  char buf[65536];
  for (;;) {
    ssize_t n = read(in, buf, sizeof buf);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return n < 0 ? -1 : 0;
    }
    if (write_all(out, buf, (size_t)n) != 0) {
      return -1;
    }
  }
}

/* Copies the whole of fd `in` into a target written into (OUT_THROUGH: path opened O_WRONLY |
 * O_TRUNC now, a FIFO waits for its reader; OUT_STDFD: after what chs printed there so far).
 * 0 or -1 (errno). */
static int target_copy_in(const out_target *t, const char *path, int in) {
  if (t->kind == OUT_STDFD) {
    fflush(t->fd == 1 ? stdout : stderr);
    return copy_fd(in, t->fd);
  }
  int out = open(path, O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC);
  if (out < 0) {
    return -1;
  }
  int rc = copy_fd(in, out);
  int e = errno;
  if (close(out) != 0 && rc == 0) {
    return -1;
  }
  errno = e;
  return rc;
}

/* Puts the complete registered temporary file tmp (removed in any case) where the target says:
 * renamed over t->final (through a copy next to it when tmp is on another file system), or copied
 * into the target. 0 or -1 (errno). */
static int target_install(const out_target *t, const char *path, int slot, const char *tmp) {
  if (t->kind == OUT_REPLACE) {
    sigset_t old;
    tmp_block(&old);
    int rc = rename(tmp, t->final);
    int e = errno;
    if (rc == 0) {
      tmp_live[slot] = 0;
    }
    tmp_unblock(&old);
    if (rc == 0) {
      return 0;
    }
    if (e != EXDEV) {
      tmp_file_release(slot, tmp, 1);
      errno = e;
      return -1;
    }
  }
  int in = open(tmp, O_RDONLY | O_CLOEXEC);
  int rc = -1, e = errno;
  if (in >= 0 && t->kind != OUT_REPLACE) {
    rc = target_copy_in(t, path, in);
    e = errno;
  } else if (in >= 0) {
    out_file f;
    CHSError err;
    if (out_file_open(&f, t->final, &err) == 0) {
      rc = copy_fd(in, fileno(f.fp));
      e = rc != 0 ? errno : 0;
      if (out_file_finish(&f, rc != 0, &err) != 0) {
        rc = -1;
        e = e ? e : EIO;
      }
    } else {
      e = EIO;
    }
  }
  if (in >= 0) {
    close(in);
  }
  tmp_file_release(slot, tmp, 1);
  errno = e;
  return rc;
}

/* ------------------------------------------------------------------ output files */

int out_file_open(out_file *f, const char *path, CHSError *err) {
  const char *why = NULL;
  memset(f, 0, sizeof *f);
  f->slot = -1;
  if (!path || !*path || snprintf(f->path, sizeof f->path, "%s", path) >= (int)sizeof f->path) {
    return cli_error(err, CHS_ERR_ARG, "bad output path '%.400s' (empty or too long)",
                     path ? path : "");
  }
  if (out_target_resolve(path, &f->target, &why) != 0) {
    return cli_error(err, CHS_ERR_ARG, "cannot write %.400s: %s", path, why);
  }
  /* The temporary file: next to the file replaced; for a target written into, in the temporary
   * directory (copied in when complete, so a failed run writes nothing into it). */
  char base[4200];
  if (f->target.kind == OUT_REPLACE) {
    snprintf(base, sizeof base, "%s", f->target.final);
  } else {
    snprintf(base, sizeof base, "%s/chs-out", f->target.dir);
  }
  int fd = tmp_open(base, f->tmp, sizeof f->tmp, &f->slot);
  f->fp = fd >= 0 ? fdopen(fd, "w+") : NULL;
  if (!f->fp) {
    int e = errno;
    if (fd >= 0) {
      close(fd);
      tmp_file_release(f->slot, f->tmp, 1);
    }
    f->slot = -1;
    return cli_error(err, CHS_ERR_ARG, "cannot write %.400s: %s", path, strerror(e));
  }
  return 0;
}

int out_file_finish(out_file *f, int bad, CHSError *err) {
  if (!bad) {
    return out_file_commit(f, err);
  }
  int e = errno;
  out_file_abort(f);
  return cli_error(err, CHS_ERR_IO, "could not write %.400s: %s", f->path, strerror(e));
}

int out_file_commit(out_file *f, CHSError *err) {
  if (!f->fp) {
    return 0;
  }
  int e = 0;
  if (ferror(f->fp)) {
    e = errno ? errno : EIO;
  }
  if (fflush(f->fp) != 0 && !e) {
    e = errno;
  }
  if (!e && f->target.kind == OUT_REPLACE && fsync(fileno(f->fp)) != 0 && errno != EINVAL &&
      errno != EROFS) {
    e = errno;
  }
  /* Written into: copied from the still open temporary file, which is removed afterwards. */
  if (!e && f->target.kind != OUT_REPLACE && target_copy_in(&f->target, f->path, fileno(f->fp))) {
    e = errno ? errno : EIO;
  }
  if (fclose(f->fp) != 0 && !e) {
    e = errno;
  }
  f->fp = NULL;
  const char *what = "could not write";
  if (e || f->target.kind != OUT_REPLACE) {
    tmp_file_release(f->slot, f->tmp, 1);
  } else if (tmp_rename(f->slot, f->tmp, f->target.final) != 0) {
    e = errno;
    what = "could not rename the temporary file to";
  }
  f->slot = -1;
  if (e) {
    if (err) {
      cli_error(err, CHS_ERR_IO, "%s %.400s: %s", what, f->path, strerror(e));
    }
    return CHS_ERR_IO;
  }
  return 0;
}

void out_file_abort(out_file *f) {
  if (!f->fp) {
    return;
  }
  fclose(f->fp);
  f->fp = NULL;
  tmp_file_release(f->slot, f->tmp, 1);
  f->slot = -1;
}

/* ------------------------------------------------------------------ gnuplot */

int plot_safe_name(const char *s) {
  if (!s || !*s) {
    return 0;
  }
  for (; *s; s++) {
    char c = *s;
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
          c == '_' || c == '-')) {
      return 0;
    }
  }
  return 1;
}

void plot_label(char *dst, size_t len, const char *src) {
  static const char extra[] = " ._:/=,+()-";
  size_t k = 0;
  for (; len > 0 && k + 1 < len && *src; src++, k++) {
    char c = *src;
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             (c != '\0' && strchr(extra, c) != NULL);
    dst[k] = ok ? c : '?';
  }
  if (len > 0) {
    dst[k] = '\0';
  }
}

/* gnuplot in dir reading `text` on its standard input; its standard output goes to our standard
 * error (stdout may be JSON). The wait status, or -1 when it could not be started. */
static int run_gnuplot(const char *dir, const char *text, int *status) {
  int p[2];
  if (pipe(p) != 0) {
    return -1;
  }
  fcntl(p[1], F_SETFD, FD_CLOEXEC);
  fflush(stdout);
  fflush(stderr);
  sigset_t old;
  tmp_block(&old);
  pid_t pid = fork();
  if (pid == 0) {
    /* The child owns none of our temporary files. */
    for (int i = 0; i < TMP_SLOTS; i++) {
      tmp_live[i] = 0;
    }
    for (int i = 0; i < TMP_NSIGNALS; i++) {
      struct sigaction sa;
      sigaction(tmp_signals[i], NULL, &sa);
      if (sa.sa_handler != SIG_IGN) {
        signal(tmp_signals[i], SIG_DFL);
      }
    }
    tmp_unblock(&old);
    if (dup2(p[0], 0) < 0 || dup2(2, 1) < 0 || chdir(dir) != 0) {
      _exit(126);
    }
    close(p[0]);
    char *const argv[] = {"gnuplot", NULL};
    execvp("gnuplot", argv);
    _exit(127);
  }
  tmp_unblock(&old);
  close(p[0]);
  if (pid < 0) {
    close(p[1]);
    return -1;
  }
  /* gnuplot may stop reading (an error in the script): no SIGPIPE for us, its status says it. */
  struct sigaction ign, oldpipe;
  memset(&ign, 0, sizeof ign);
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  sigaction(SIGPIPE, &ign, &oldpipe);
  write_all(p[1], text, strlen(text));
  close(p[1]);
  sigaction(SIGPIPE, &oldpipe, NULL);
  while (waitpid(pid, status, 0) < 0) {
    if (errno != EINTR) {
      return -1;
    }
  }
  return 0;
}

/* 1 when the file is a complete PNG: signature and the IEND chunk at its end. */
static int png_complete(const char *path) {
  static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  static const unsigned char iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};
  unsigned char head[8], tail[12];
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    return 0;
  }
  int ok = fread(head, 1, 8, fp) == 8 && memcmp(head, sig, 8) == 0 &&
           fseek(fp, -12, SEEK_END) == 0 && fread(tail, 1, 12, fp) == 12 &&
           memcmp(tail, iend, 12) == 0;
  fclose(fp);
  return ok;
}

/* The house style of every chs plot: the Okabe-Ito colour-blind-safe palette, each colour with
 * its own marker (distinguishable in grey too), a light grid, and the key inside the frame (the
 * scripts move it below when there are many curves). */
static const char plot_style[] = "set linetype 1 lc rgb '#0072B2' lw 2 pt 7 ps 1.2\n"
                                 "set linetype 2 lc rgb '#D55E00' lw 2 pt 5 ps 1.2\n"
                                 "set linetype 3 lc rgb '#009E73' lw 2 pt 9 ps 1.4\n"
                                 "set linetype 4 lc rgb '#CC79A7' lw 2 pt 11 ps 1.4\n"
                                 "set linetype 5 lc rgb '#E69F00' lw 2 pt 13 ps 1.4\n"
                                 "set linetype 6 lc rgb '#56B4E9' lw 2 pt 4 ps 1.2\n"
                                 "set linetype 7 lc rgb '#000000' lw 2 pt 6 ps 1.2\n"
                                 "set linetype 8 lc rgb '#F0E442' lw 2 pt 8 ps 1.4\n"
                                 "set linetype cycle 8\n"
                                 "set grid lc rgb '#d0d0d0' lw 1\n"
                                 "set key noenhanced\n";

/* gnuplot in dir draws `script` (after `prelude`, may be "") into the registered temporary file
 * tmppath (its name in dir: tmpname), put where target t of the output `final` says when gnuplot
 * exited 0 and the PNG is complete; otherwise the temporary file is removed. 0, or -1 after a
 * message naming final. */
static int render(const char *dir, const char *tmpname, const char *tmppath, int slot,
                  const char *final, const out_target *t, int width, int height,
                  const char *prelude, const char *script) {
  size_t cap = strlen(prelude) + strlen(script) + 2048;
  char *text = malloc(cap);
  if (!text) {
    tmp_file_release(slot, tmppath, 1);
    fprintf(stderr, "chs: out of memory plotting %s\n", SAFE(final));
    return -1;
  }
  /* tmpname is NAME.tmp.PID.N: plot_safe_name's characters only. */
  snprintf(text, cap,
           "set terminal pngcairo size %d,%d font ',11'\nset output '%s'\n%s%s%s\nunset output\n",
           width, height, tmpname, prelude, plot_style, script);
  int status = 0;
  int started = run_gnuplot(dir, text, &status) == 0;
  free(text);
  progress_interrupt(); /* gnuplot's messages and ours start on a line of their own */
  if (!started || (WIFEXITED(status) && WEXITSTATUS(status) == 127)) {
    tmp_file_release(slot, tmppath, 1);
    fprintf(stderr, "chs: cannot run gnuplot for %s (apt-get install gnuplot-nox)\n", SAFE(final));
    return -1;
  }
  if (WIFSIGNALED(status)) {
    tmp_file_release(slot, tmppath, 1);
    fprintf(stderr, "chs: gnuplot was killed by signal %d while writing %s\n", WTERMSIG(status),
            SAFE(final));
    return -1;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    tmp_file_release(slot, tmppath, 1);
    fprintf(stderr, "chs: gnuplot failed (exit status %d) for %s\n",
            WIFEXITED(status) ? WEXITSTATUS(status) : -1, SAFE(final));
    return -1;
  }
  if (!png_complete(tmppath)) {
    tmp_file_release(slot, tmppath, 1);
    fprintf(stderr, "chs: gnuplot wrote an incomplete %s (file system full?)\n", SAFE(final));
    return -1;
  }
  if (target_install(t, final, slot, tmppath) != 0) {
    int e = errno; /* SAFE may change errno */
    fprintf(stderr, "chs: could not write %s: %s\n", SAFE(final), strerror(e));
    return -1;
  }
  return 0;
}

int plot_run(const char *dir, const char *png_name, int width, int height, const char *script) {
  char final[4096], tmpname[512], tmppath[4400];
  int slot = -1;
  out_target t;
  const char *why = NULL;
  if (!plot_safe_name(png_name) || path_join(final, sizeof final, dir, png_name) != 0) {
    progress_interrupt();
    fprintf(stderr, "chs: cannot plot into %s: name too long\n", SAFE(dir));
    return -1;
  }
  if (out_target_resolve(final, &t, &why) != 0) {
    progress_interrupt();
    fprintf(stderr, "chs: cannot write %s: %s\n", SAFE(final), why);
    return -1;
  }
  if (tmp_file_create(dir, png_name, tmpname, sizeof tmpname, tmppath, sizeof tmppath, &slot) !=
      0) {
    progress_interrupt();
    int e = errno; /* SAFE may change errno */
    fprintf(stderr, "chs: cannot write %s: %s\n", SAFE(final), strerror(e));
    return -1;
  }
  /* gnuplot runs in dir (the script names the data files there); the PNG follows the target. */
  return render(dir, tmpname, tmppath, slot, final, &t, width, height, "", script);
}

int plot_run_file(const char *path, int width, int height, int (*data)(FILE *fp, void *ctx),
                  void *ctx, const char *script) {
  char datname[512], datpath[4400], tmpname[512], tmppath[4400];
  int datslot = -1, slot = -1;
  out_target t;
  const char *why = NULL;
  if (out_target_resolve(path, &t, &why) != 0) {
    fprintf(stderr, "chs: cannot write %s: %s\n", SAFE(path), why);
    return -1;
  }
  /* gnuplot runs where the temporary files go (the script names them only): next to the file
   * replaced, or in the temporary directory for a target written into. */
  const char *dir = t.dir;
  if (tmp_file_create(dir, "chs-plot.dat", datname, sizeof datname, datpath, sizeof datpath,
                      &datslot) != 0) {
    int e = errno; /* SAFE may change errno */
    fprintf(stderr, "chs: cannot write the plot data next to %s: %s\n", SAFE(path), strerror(e));
    return -1;
  }
  FILE *fp = data ? fopen(datpath, "w") : NULL;
  int e = 0;
  if (data && (!fp || data(fp, ctx) != 0 || ferror(fp) || fflush(fp) != 0)) {
    e = errno ? errno : EIO;
  }
  if (fp && fclose(fp) != 0 && !e) {
    e = errno;
  }
  if (e) {
    tmp_file_release(datslot, datpath, 1);
    fprintf(stderr, "chs: could not write the plot data next to %s: %s\n", SAFE(path), strerror(e));
    return -1;
  }
  if (tmp_file_create(dir, "chs-plot.png", tmpname, sizeof tmpname, tmppath, sizeof tmppath,
                      &slot) != 0) {
    e = errno;
    tmp_file_release(datslot, datpath, 1);
    fprintf(stderr, "chs: cannot write %s: %s\n", SAFE(path), strerror(e));
    return -1;
  }
  char prelude[600]; /* datname: chs-plot.dat.tmp.PID.N, plot_safe_name's characters */
  snprintf(prelude, sizeof prelude, "DATA = '%s'\n", datname);
  int rc = render(dir, tmpname, tmppath, slot, path, &t, width, height, prelude, script);
  tmp_file_release(datslot, datpath, 1);
  return rc;
}
