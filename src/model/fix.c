/* CHSProblem_Fix (chs/consistent.h): the held components of a consistent initial state named in
 * a spec (`chs run --fix`, Python's chs.run(fix=...)). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "impl.h"

#define FIX_ITEM_MAX 128 /* longest item; names are at most 31 characters */

/* 1-based K of a decimal text within [1, n] into *idx (0-based); 0 when text is not one. */
static int fix_index(const char *text, long n, long *idx) {
  if (!isdigit((unsigned char)text[0])) {
    return 0;
  }
  errno = 0;
  char *end = NULL;
  long k = strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || k < 1 || k > n) {
    return 0;
  }
  *idx = k - 1;
  return 1;
}

/* The coordinate that C names: a declared name, the default qK, or the index K. */
static int fix_component(const char *c, const CHSProblemDims *d, long *idx) {
  if (d->coordinate_names) {
    for (long i = 0; i < (long)d->n; i++) {
      if (d->coordinate_names[i] && strcmp(d->coordinate_names[i], c) == 0) {
        *idx = i;
        return 1;
      }
    }
  }
  return fix_index(c, (long)d->n, idx) || (c[0] == 'q' && fix_index(c + 1, (long)d->n, idx));
}

/* "th1, th2, ..." or "q1 .. qn (or 1 .. n)" for the unknown-name message. */
static void fix_valid_names(const CHSProblemDims *d, char *buf, size_t len) {
  size_t used = 0;
  buf[0] = '\0';
  if (d->coordinate_names) {
    for (long i = 0; i < (long)d->n && used + 40 < len; i++) {
      int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", d->coordinate_names[i]);
      used += w > 0 ? (size_t)w : 0;
    }
    if (used + 40 >= len) {
      snprintf(buf + used, len - used, ", ...");
      return;
    }
    snprintf(buf + used, len - used, "; or q1 .. q%ld, 1 .. %ld", (long)d->n, (long)d->n);
  } else {
    snprintf(buf, len, "q1 .. q%ld, or 1 .. %ld", (long)d->n, (long)d->n);
  }
}

/* One ITEM[=VALUE] into fix/val. */
static int fix_item(const char *item, const CHSProblemDims *d, int *fix_q, int *fix_v,
                    double *val_q, double *val_v, int *has_q, int *has_v, CHSError *err) {
  char buf[FIX_ITEM_MAX];
  if (strlen(item) >= sizeof buf) {
    return chs_error_set(err, CHS_ERR_ARG, "fix: item '%.40s...' is too long", item);
  }
  snprintf(buf, sizeof buf, "%s", item);
  char *eq = strchr(buf, '=');
  double value = 0;
  if (eq) {
    *eq = '\0';
    const char *vs = eq + 1;
    errno = 0;
    char *end = NULL;
    value = strtod(vs, &end);
    if (vs[0] == '\0' || *end != '\0' || errno == ERANGE || !isfinite(value) ||
        isspace((unsigned char)vs[0])) {
      return chs_error_set(err, CHS_ERR_ARG, "fix: value '%s' of '%s' is not a finite number", vs,
                           buf);
    }
  }
  char kind = buf[0];
  const char *c = NULL;
  if ((kind == 'q' || kind == 'v') && buf[1] == ':') {
    c = buf + 2;
  } else if ((kind == 'q' || kind == 'v') && isdigit((unsigned char)buf[1])) {
    c = buf + 1;
  } else {
    return chs_error_set(err, CHS_ERR_ARG,
                         "fix: item '%s' is neither q:NAME nor v:NAME (nor qK / vK with an index "
                         "K)",
                         buf);
  }
  long idx = -1;
  if (c[0] == '\0' || !fix_component(c, d, &idx)) {
    char valid[512];
    fix_valid_names(d, valid, sizeof valid);
    return chs_error_set(err, CHS_ERR_NOTFOUND, "fix: unknown coordinate '%s' in '%s'; valid: %s",
                         c, buf, valid);
  }
  int *fix = kind == 'q' ? fix_q : fix_v;
  if (fix[idx]) {
    return chs_error_set(err, CHS_ERR_ARG, "fix: '%s' holds %c%ld a second time", buf, kind,
                         idx + 1);
  }
  fix[idx] = 1;
  if (eq) {
    (kind == 'q' ? val_q : val_v)[idx] = value;
    (kind == 'q' ? has_q : has_v)[idx] = 1;
  }
  return 0;
}

int CHSProblem_Fix(CHSProblem prob, const char *spec, CHSError *err) {
  if (!prob) {
    return chs_error_set(err, CHS_ERR_ARG, "fix: no problem (NULL)");
  }
  const CHSProblemDims *d = CHSProblem_GetDims(prob);
  size_t n = (size_t)d->n;
  if (!spec || spec[0] == '\0') {
    return chs_error_set(err, CHS_ERR_ARG, "fix: empty list");
  }
  int *flags = calloc(4 * n, sizeof *flags);
  double *vals = calloc(5 * n, sizeof *vals);
  size_t len = strlen(spec) + 1;
  char *copy = malloc(len);
  if (copy) {
    memcpy(copy, spec, len);
  }
  if (!flags || !vals || !copy) {
    free(flags);
    free(vals);
    free(copy);
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  int *fix_q = flags, *fix_v = flags + n, *has_q = flags + 2 * n, *has_v = flags + 3 * n;
  double *val_q = vals, *val_v = vals + n, *q = vals + 2 * n, *v = vals + 3 * n, *p = vals + 4 * n;
  int rc = 0;
  /* items split at every comma: an empty item (",," or a trailing comma) is an error */
  char *item = copy;
  while (rc == 0) {
    char *comma = strchr(item, ',');
    if (comma) {
      *comma = '\0';
    }
    if (item[0] == '\0') {
      rc = chs_error_set(err, CHS_ERR_ARG, "fix: empty item in '%s'", spec);
    } else {
      rc = fix_item(item, d, fix_q, fix_v, val_q, val_v, has_q, has_v, err);
    }
    if (!comma) {
      break;
    }
    item = comma + 1;
  }
  if (rc == 0) {
    rc = CHSProblem_InitialGuess(prob, q, v, err);
  }
  if (rc == 0) {
    for (size_t i = 0; i < n; i++) {
      q[i] = has_q[i] ? val_q[i] : q[i];
      v[i] = has_v[i] ? val_v[i] : v[i];
    }
    rc = CHSProblem_ConsistentState(prob, 0, fix_q, fix_v, q, v, p, err);
  }
  if (rc == 0) {
    rc = CHSProblem_SetInitialState(prob, q, p, err);
  }
  free(flags);
  free(vals);
  free(copy);
  return rc;
}
