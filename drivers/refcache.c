/* Reference final states for `chs workprec` (and `chs bench dae`), cached on disk.
 *
 * A problem with a closed-form reference uses it. Otherwise the reference is the most accurate
 * configuration chs has, the Hamilton-Dirac formulation with Verner's 8(5,6) pair at
 * rtol = atol = tol, and its error is estimated by the difference to a second run at tol * 10:
 * the estimate is conservative for the tighter run (the error of the looser one); the second run
 * runs in a forked child, on the other core (drivers/child.h), while the first one shows its
 * progress (t of t_f) on a terminal. Both runs are
 * stored in the cache (one text file per problem spec, t_final, tolerance, chs and SUNDIALS
 * version, named by a 64-bit FNV-1a hash of that key) with the key, the command that made it, n,
 * the estimate and a checksum; the file is written to a temporary name and renamed (atomic on
 * POSIX). An entry whose key, size, values or checksum do not match is ignored and recomputed.
 *
 * Cache directory: the caller's (--cache-dir), else $XDG_CACHE_HOME/chs/references, else
 * $HOME/.cache/chs/references; NULL or "" (workprec --no-cache) disables the cache. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sundials/sundials_config.h>
#include "chs/version.h"
#include "child.h"
#include "progress.h"
#include "reproduce.h"

#define REF_MAGIC "chs-reference 1"

static uint64_t fnv1a(const char *s, uint64_t h) {
  for (; *s; s++) {
    h ^= (unsigned char)*s;
    h *= 0x100000001b3ULL;
  }
  return h;
}

const char *rep_default_cache_dir(char *buf, size_t len) {
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  if (xdg && *xdg) {
    snprintf(buf, len, "%s/chs/references", xdg);
  } else if (home && *home) {
    snprintf(buf, len, "%s/.cache/chs/references", home);
  } else {
    return NULL;
  }
  return buf;
}

/* Bytes an entry can take: the fixed lines, the key and the command (bounded by their buffers),
 * and 2n values of at most 25 characters each (" -1.2345678901234567e-300"). */
static size_t entry_cap(long n) {
  return 4096 + 1024 + 26 * 2 * (size_t)n;
}

/* The body of an entry (everything the checksum covers). */
static int format_body(char *buf, size_t len, const char *key, const char *command, long n,
                       double est, const double *z) {
  int k = snprintf(buf, len, "%s\nkey %s\ncommand %s\nn %ld\nest_error %.17g\nz", REF_MAGIC, key,
                   command, n, est);
  for (long i = 0; i < 2 * n && k > 0 && (size_t)k < len; i++) {
    k += snprintf(buf + k, len - (size_t)k, " %.17g", z[i]);
  }
  if (k > 0 && (size_t)k < len) {
    k += snprintf(buf + k, len - (size_t)k, "\n");
  }
  return k > 0 && (size_t)k < len ? k : -1;
}

/* 0 and z, est filled when the file holds a valid entry for key; else a reason. */
static const char *read_entry(const char *path, const char *key, long n, double *z, double *est,
                              char *command, size_t command_len) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  if (fd < 0) {
    return "absent";
  }
  FILE *fp = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "r") : NULL;
  if (!fp) {
    close(fd);
    return "not a regular file";
  }
  size_t cap = entry_cap(n), len = 0;
  char *buf = malloc(cap + 1);
  if (!buf) {
    fclose(fp);
    return "out of memory";
  }
  len = fread(buf, 1, cap, fp);
  fclose(fp);
  buf[len] = '\0';
  const char *why = NULL;
  char *sum = strstr(buf, "checksum ");
  unsigned long long want = 0;
  if (!sum || sscanf(sum, "checksum %llx", &want) != 1) {
    why = "no checksum";
  } else {
    *sum = '\0';
    if (fnv1a(buf, 0xcbf29ce484222325ULL) != want) {
      why = "checksum mismatch";
    }
  }
  if (!why && strncmp(buf, REF_MAGIC "\n", strlen(REF_MAGIC) + 1) != 0) {
    why = "not a chs reference";
  }
  char *line = buf, *save = NULL;
  long nn = -1;
  int have_key = 0, have_z = 0;
  *est = -1;
  for (char *l = why ? NULL : strtok_r(line, "\n", &save); l && !why;
       l = strtok_r(NULL, "\n", &save)) {
    if (strncmp(l, "key ", 4) == 0) {
      have_key = strcmp(l + 4, key) == 0;
      if (!have_key) {
        why = "key mismatch";
      }
    } else if (strncmp(l, "command ", 8) == 0) {
      snprintf(command, command_len, "%s", l + 8);
    } else if (strncmp(l, "n ", 2) == 0) {
      nn = strtol(l + 2, NULL, 10);
      if (nn != n) {
        why = "size mismatch";
      }
    } else if (strncmp(l, "est_error ", 10) == 0) {
      *est = strtod(l + 10, NULL);
    } else if (strncmp(l, "z", 1) == 0 && nn == n) {
      char *p = l + 1, *end;
      have_z = 1;
      for (long i = 0; i < 2 * n; i++, p = end) {
        z[i] = strtod(p, &end);
        if (end == p || !isfinite(z[i])) {
          why = "bad values";
          break;
        }
      }
    }
  }
  if (!why && (!have_key || !have_z || !(*est >= 0) || !isfinite(*est))) {
    why = "incomplete";
  }
  free(buf);
  return why;
}

/* Temporary file + rename (plot.h's out_file): a full disk or a signal leaves no partial entry. */
static int write_entry(const char *dir, const char *path, const char *key, const char *command,
                       long n, double est, const double *z, CHSError *err) {
  size_t cap = entry_cap(n);
  char *buf = malloc(cap);
  if (!buf) {
    return cli_error(err, CHS_ERR_MEM, "out of memory");
  }
  if (make_dirs(dir) != 0) {
    cli_error(err, CHS_ERR_IO, "cannot create %.400s: %s", dir, strerror(errno));
    free(buf);
    return err->code;
  }
  int len = format_body(buf, cap, key, command, n, est, z);
  out_file f;
  int rc = len > 0 ? out_file_open(&f, path, err) : CHS_ERR_ARG;
  if (rc == 0) {
    if (fwrite(buf, 1, (size_t)len, f.fp) != (size_t)len ||
        fprintf(f.fp, "checksum %016llx\n", (unsigned long long)fnv1a(buf, 0xcbf29ce484222325ULL)) <
            0) {
      int e = errno;
      out_file_abort(&f);
      rc = cli_error(err, CHS_ERR_IO, "could not write %.400s: %s", path, strerror(e));
    } else {
      rc = out_file_commit(&f, err);
    }
  } else if (len <= 0) {
    cli_error(err, rc, "reference entry too long");
  }
  free(buf);
  return rc;
}

/* The key names the problem spec; control characters and backslashes are escaped so that the
 * entry stays one line per field. */
static void escape_spec(char *dst, size_t len, const char *src) {
  size_t k = 0;
  for (const unsigned char *c = (const unsigned char *)src; *c && k + 5 < len; c++) {
    if (*c < 0x20 || *c == 0x7f || *c == '\\') {
      k += (size_t)snprintf(dst + k, len - k, "\\x%02x", *c);
    } else {
      dst[k++] = (char)*c;
    }
  }
  dst[k] = '\0';
}

/* One of the reference's two integrations (rep_reference_run at tol) into z (z[0] = n, then q
 * and p), its time shown on prog (NULL: none) every 64 steps. */
typedef struct {
  CHSProblem prob;
  double tf, tol;
  progress *prog;
} ref_job;

typedef struct {
  double *z;
  progress *prog;
} ref_mon;

static int ref_monitor(const CHSRecord *rec, void *ctx) {
  ref_mon *m = ctx;
  if (m->prog) {
    progress_update(m->prog, rec->t);
  }
  return rep_final_monitor(rec, m->z);
}

static int ref_integrate(const ref_job *j, double *z, CHSError *err) {
  ref_mon m = {z, j->prog};
  return rep_reference_run(j->prob, j->tf, j->tol, 64, ref_monitor, &m, err);
}

/* The estimate's integration and what a child sends back of it: status, message, final state. */
typedef struct {
  int rc;
  char msg[256];
  double z[]; /* 1 + 2 n: n, q, p */
} ref_out;

static void ref_child(void *arg, void *buf) {
  ref_out *out = buf;
  CHSError err;
  CHSError_Clear(&err);
  out->rc = ref_integrate(arg, out->z, &err);
  snprintf(out->msg, sizeof out->msg, "%.255s", err.msg);
}

int rep_reference_cached(CHSProblem prob, const char *spec, double tf, double tol,
                         const char *cache_dir, int quiet, double *z, rep_reference_info *info,
                         CHSError *err) {
  long n = (long)z[0];
  memset(info, 0, sizeof *info);
  info->est_error = -1;
  if (CHSProblem_Reference(prob, tf, z + 1, z + 1 + n) == 0) {
    snprintf(info->source, sizeof info->source, "problem");
    snprintf(info->command, sizeof info->command, "the problem's reference solution");
    info->est_error = 0;
    return 0;
  }
  snprintf(info->command, sizeof info->command,
           "dirac + erk:ARKODE_VERNER_8_5_6 at rtol = atol = %g (error estimated against %g)", tol,
           tol * 10);
  char key[1024], espec[700];
  escape_spec(espec, sizeof espec, spec);
  snprintf(key, sizeof key, "problem=%s tf=%.17g tol=%.17g chs=%s sundials=%s", espec, tf, tol,
           CHS_VERSION_STRING, SUNDIALS_VERSION);
  if (cache_dir && *cache_dir) {
    snprintf(info->path, sizeof info->path, "%s/ref-%016llx.txt", cache_dir,
             (unsigned long long)fnv1a(key, 0xcbf29ce484222325ULL));
    char command[sizeof info->command];
    command[0] = '\0';
    const char *why =
        read_entry(info->path, key, n, z + 1, &info->est_error, command, sizeof command);
    if (!why) {
      snprintf(info->source, sizeof info->source, "cached");
      snprintf(info->command, sizeof info->command, "%s", command);
      return 0;
    }
    snprintf(info->ignored, sizeof info->ignored, "%s", strcmp(why, "absent") ? why : "");
  }
  /* the estimate at 10 tol runs in a child, on the other core, beside the reference (in turn
   * when fork fails); the results are the same */
  size_t len = offsetof(ref_out, z) + (1 + 2 * (size_t)n) * sizeof(double);
  ref_out *out = calloc(1, len);
  if (!out) {
    return cli_error(err, CHS_ERR_MEM, "out of memory");
  }
  out->z[0] = (double)n;
  double *z2 = out->z;
  progress prog;
  char label[64];
  snprintf(label, sizeof label, "reference, tol %g", tol);
  progress_start(&prog, quiet, 0, label, 0, tf);
  ref_job est = {.prob = prob, .tf = tf, .tol = 10 * tol},
          job = {.prob = prob, .tf = tf, .tol = tol, .prog = &prog};
  cli_child ch;
  int forked = cli_child_start(&ch, ref_child, &est, out, len, 0) == 0;
  int rc = ref_integrate(&job, z, err);
  progress_end(&prog);
  if (forked) {
    int status = 0;
    if (rc != 0) {
      kill(ch.pid, SIGTERM); /* the reference failed: its estimate is not needed */
    }
    if (cli_child_finish(&ch, out, len, &status, NULL) != len) {
      out->rc = CHS_ERR_SOLVER;
      snprintf(out->msg, sizeof out->msg, "the process of the estimate at %g died (status %d)",
               est.tol, status);
    }
  } else if (rc == 0) {
    ref_child(&est, out);
  }
  if (rc == 0 && out->rc != 0) {
    rc = out->rc;
    cli_error(err, rc, "%s", out->msg);
  }
  if (rc == 0) {
    double d = 0;
    for (long i = 1; i <= 2 * n; i++) {
      d += (z[i] - z2[i]) * (z[i] - z2[i]);
    }
    info->est_error = sqrt(d);
    snprintf(info->source, sizeof info->source, "computed");
    CHSError werr;
    CHSError_Clear(&werr);
    if (info->path[0] && write_entry(cache_dir, info->path, key, info->command, n, info->est_error,
                                     z + 1, &werr) != 0) {
      snprintf(info->ignored, sizeof info->ignored, "cannot write the cache");
      snprintf(info->write_error, sizeof info->write_error, "%s", werr.msg);
      info->path[0] = '\0';
    }
  }
  free(out);
  return rc;
}
