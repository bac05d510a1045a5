/* Output files and gnuplot for the chs command (drivers/plot.c).
 *
 * Output files are written to a temporary file next to the final name and renamed over it when
 * complete, so a final name never holds a partial file. The temporary files are created with the
 * usual permissions (0666 & ~umask) and registered while they exist: every asynchronous signal
 * that ends the process (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1/2, SIGALRM, SIGXCPU, SIGXFSZ,
 * SIGVTALRM, SIGPROF, SIGPIPE) removes them before the process dies of it (the default
 * disposition, so the exit status is the conventional one). SIGKILL cannot be caught: it can leave
 * one `NAME.tmp.*`. Symbolic links and special files as outputs: out_target.
 *
 * Plots: gnuplot is started without a shell (fork + execvp), in the output directory, reading
 * its script from a pipe. The script refers to files only by names that chs chose (plain ASCII);
 * user-supplied text (problem specs, configuration names) enters it only through plot_label. */
#ifndef CHS_PLOT_H
#define CHS_PLOT_H

#include <stdio.h>
#include "chs/chs.h"

/* Where an output the user named goes (docs/cli.md "Output files"):
 * OUT_REPLACE  no file, a regular file, or a symbolic link (chain) to a regular file or to nothing:
 *              a temporary file next to `final` (the name with its links followed) is renamed
 *              over it; a link stays a link.
 * OUT_STDFD    a link or special file that is this process's standard output or error (fd):
 *              the complete output is written there, after what chs printed so far.
 * OUT_THROUGH  any other special file (a FIFO, a character device) or a link to one: nothing
 *              is renamed or replaced; the complete output is written into it (opened O_WRONLY |
 *              O_TRUNC).
 * Temporary files go to `dir`: final's directory, or the temporary directory ($TMPDIR, /tmp). */
enum { OUT_REPLACE, OUT_STDFD, OUT_THROUGH };
typedef struct {
  int kind, fd;
  char final[4096], dir[4096];
} out_target;
/* 0, or -1 with *why saying why path cannot be written (a directory, a socket, a block device,
 * a loop of links...). */
int out_target_resolve(const char *path, out_target *t, const char **why);

/* An output file in progress: fp writes to tmp; path is the name the user gave. */
typedef struct {
  FILE *fp;
  char path[4096], tmp[4096];
  out_target target;
  int slot; /* in the signal-cleanup registry; -1: none */
} out_file;

/* Creates the temporary file for path (err: CHS_ERR_ARG naming path when it cannot). */
int out_file_open(out_file *f, const char *path, CHSError *err);
/* Checks every write (ferror, fflush, fclose) and renames the temporary file to the final name.
 * On failure the temporary file is removed, the final name is untouched, err names the file
 * (CHS_ERR_IO). No-op when f was not opened. */
int out_file_commit(out_file *f, CHSError *err);
/* Closes and removes the temporary file (no-op when f was not opened). */
void out_file_abort(out_file *f);
/* The end of writing f: when `bad` (a write failed, errno says why) the temporary file is removed
 * and err names the file (CHS_ERR_IO); otherwise out_file_commit. */
int out_file_finish(out_file *f, int bad, CHSError *err);

/* A temporary file of a name chs chooses (`PREFIX.tmp.PID.N`, the prefix must be plain ASCII) in
 * dir, created empty and registered for removal on signals; name receives the file name without
 * the directory, path the full path. 0 or -1 (errno set). tmp_file_release unregisters it (and
 * removes it when `remove_it`). */
int tmp_file_create(const char *dir, const char *prefix, char *name, size_t name_len, char *path,
                    size_t path_len, int *slot);
void tmp_file_release(int slot, const char *path, int remove_it);

/* 1 when s is non-empty and only of [A-Za-z0-9._-] (a file name chs may put in a script). */
int plot_safe_name(const char *s);
/* A label for a gnuplot single-quoted string: characters outside [A-Za-z0-9 ._:/=,+()-] become
 * '?', so it cannot close the string, start a substitution or a macro. */
void plot_label(char *dst, size_t len, const char *src);

/* Runs gnuplot in dir on `script`, which must write its output to `set output` of the name
 * chs gives: plot_run writes "set terminal pngcairo size W,H\nset output 'TMP'\n", the script,
 * and renames TMP to dir/png_name when gnuplot exited 0 and the file is a complete PNG.
 * png_name must satisfy plot_safe_name. Returns 0, or -1 after a message naming the file. */
int plot_run(const char *dir, const char *png_name, int width, int height, const char *script);

/* Draws into the file `path`, a name the user gave, which never enters the script: gnuplot runs
 * in path's directory; `data` (may be NULL; returns 0 or nonzero on failure) writes the plot's
 * data into a temporary file of a name chs chooses there, which the script names by the gnuplot
 * variable DATA; the PNG goes to a temporary file renamed to path when it is complete. The data
 * file is removed afterwards. 0, or -1 after a message naming path (path untouched). */
int plot_run_file(const char *path, int width, int height, int (*data)(FILE *fp, void *ctx),
                  void *ctx, const char *script);

/* mkdir -p (0777 & ~umask); 0, or -1 with errno set (ENOTDIR: a non-directory is in the way). */
int make_dirs(const char *dir);
/* 0 when dir/name can be written (length); the joined path into buf. -1 when too long. */
int path_join(char *buf, size_t len, const char *dir, const char *name);

#endif
