/* Names of a problem's coordinates and constraints (chs/problem.h): their syntax, uniqueness and
 * the reserved output keys, checked when an instance is created; labels and indexed names. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compat.h"
#include "impl.h"

/* The group words of the command line's output selection (--output, --plot-vars): a coordinate
 * or constraint of that name could not be told from the group. */
static const char *const chs_reserved_names[] = {"t",       "q",        "p",       "v",
                                                 "lambda",  "reaction", "energy",  "energy_err",
                                                 "pos_res", "mom_res",  "int_err", "all"};

/* A name as it may appear in a message: at most 40 bytes, quotes, backslashes and bytes outside
 * printable ASCII escaped, "..." when longer. */
static void chs_name_quote(const char *s, char *buf, size_t len) {
  size_t k = 0;
  int i = 0;
  for (; s[i] && i < 40 && k + 8 < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      k += (size_t)snprintf(buf + k, len - k, "\\%c", c);
    } else if (c < 0x20 || c > 0x7e) {
      k += (size_t)snprintf(buf + k, len - k, "\\x%02x", c);
    } else {
      buf[k++] = (char)c;
    }
  }
  if (s[i] && k + 4 <= len) {
    memcpy(buf + k, "...", 3);
    k += 3;
  }
  buf[k < len ? k : len - 1] = '\0';
}

/* Why `s` is not a valid name (NULL: it is valid). */
static const char *chs_name_invalid(const char *s) {
  if (!s) {
    return "the entry is NULL";
  }
  if (!s[0]) {
    return "it is empty";
  }
  if (!((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z'))) {
    return "it does not start with a letter";
  }
  for (int i = 0; s[i]; i++) {
    char c = s[i];
    if (i >= CHS_NAME_MAX) {
      return "it is longer than 31 characters";
    }
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) {
      return "it has a character other than A-Z, a-z, 0-9 and _";
    }
  }
  for (size_t r = 0; r < sizeof chs_reserved_names / sizeof chs_reserved_names[0]; r++) {
    if (s[0] == chs_reserved_names[r][0] && strcmp(s, chs_reserved_names[r]) == 0) {
      return "it is reserved for the output groups t, q, p, v, lambda, reaction, energy, "
             "energy_err, pos_res, mom_res, int_err, all";
    }
  }
  return NULL;
}

/* A table of count names (NULL: none declared): each valid, no two equal. Uniqueness by open
 * addressing on an FNV-1a hash, O(count): the chains declare millions of names. A slot keeps the
 * hash's upper half beside the index, so that a probe compares strings only on a full match:
 * with millions of names nearly every memory access misses the cache. */
int chs_check_name_table(const char *pname, const char *const *names, sunindextype count,
                         const char *field, CHSError *err) {
  if (!names) {
    return CHS_SUCCESS;
  }
  char q[200];
  for (sunindextype i = 0; i < count; i++) {
    const char *why = chs_name_invalid(names[i]);
    if (why) {
      chs_name_quote(names[i] ? names[i] : "", q, sizeof q);
      return chs_error_set(err, CHS_ERR_PLUGIN,
                           "problem '%s': %s[%ld] = \"%s\" is not a valid name: %s (a name is 1 "
                           "to %d characters of A-Z, a-z, 0-9 and _, starting with a letter)",
                           pname, field, (long)i, q, why, CHS_NAME_MAX);
    }
  }
  size_t size = 16;
  while (size < 2 * (size_t)count) {
    size *= 2;
  }
  struct chs_name_slot {
    uint64_t hash;
    sunindextype index; /* -1: empty */
  } *slot = malloc(size * sizeof *slot);
  if (!slot) {
    return chs_error_set(err, CHS_ERR_MEM, "problem '%s': out of memory checking %s", pname, field);
  }
  for (size_t h = 0; h < size; h++) {
    slot[h].index = -1;
  }
  int rc = CHS_SUCCESS;
  /* Names go in blocks: their slots are prefetched first, so that the cache misses of a block
   * overlap instead of coming one after the other (3x faster for the chains' millions). */
  enum { BLOCK = 32 };
  uint64_t hb[BLOCK];
  for (sunindextype i0 = 0; i0 < count && rc == CHS_SUCCESS; i0 += BLOCK) {
    sunindextype nb = count - i0 < BLOCK ? count - i0 : BLOCK;
    for (sunindextype k = 0; k < nb; k++) {
      uint64_t hash = 1469598103934665603ull;
      for (const char *c = names[i0 + k]; *c; c++) {
        hash = (hash ^ (unsigned char)*c) * 1099511628211ull;
      }
      /* FNV-1a alone leaves x1, x2, ... in runs of nearby slots: long probe chains; mix it */
      hash ^= hash >> 33;
      hash *= 0xff51afd7ed558ccdull;
      hash ^= hash >> 33;
      hb[k] = hash;
#if defined(__GNUC__)
      __builtin_prefetch(&slot[(size_t)hash & (size - 1)], 1);
#endif
    }
    for (sunindextype k = 0; k < nb && rc == CHS_SUCCESS; k++) {
      sunindextype i = i0 + k;
      uint64_t hash = hb[k];
      size_t h = (size_t)hash & (size - 1);
      while (slot[h].index >= 0 &&
             (slot[h].hash != hash || strcmp(names[slot[h].index], names[i]) != 0)) {
        h = (h + 1) & (size - 1);
      }
      if (slot[h].index >= 0) {
        rc = chs_error_set(err, CHS_ERR_PLUGIN,
                           "problem '%s': %s[%ld] and %s[%ld] are both \"%s\" (names must be "
                           "unique)",
                           pname, field, (long)slot[h].index, field, (long)i, names[i]);
      }
      slot[h].hash = hash;
      slot[h].index = i;
    }
  }
  free(slot);
  return rc;
}

const char *chs_name_label(const char *const *names, sunindextype i, const char *fallback,
                           char *buf, size_t len) {
  if (names) {
    snprintf(buf, len, "%s", names[i]);
  } else {
    snprintf(buf, len, "%s%ld", fallback, (long)i + 1);
  }
  return buf;
}

const char **chs_names_indexed(sunindextype count, const char *const *prefixes, int nprefix,
                               long first) {
  size_t width = 0;
  for (int k = 0; k < nprefix; k++) {
    size_t l = strlen(prefixes[k]);
    width = l > width ? l : width;
  }
  /* the digits of the largest index and the terminating NUL */
  for (unsigned long v = (unsigned long)(first + (long)(count / nprefix)); v; v /= 10) {
    width++;
  }
  width += 2;
  size_t ptrs = (size_t)count * sizeof(const char *);
  const char **names = malloc(ptrs + (size_t)count * width);
  if (!names) {
    return NULL;
  }
  char *text = (char *)names + ptrs;
  for (sunindextype i = 0; i < count; i++) {
    char *s = text + (size_t)i * width;
    const char *pre = prefixes[i % nprefix];
    size_t l = strlen(pre);
    memcpy(s, pre, l);
    /* the index in decimal, written backwards then reversed (snprintf costs ~10x for 10^7 names) */
    unsigned long v = (unsigned long)(first + (long)(i / nprefix));
    size_t d = 0;
    do {
      s[l + d++] = (char)('0' + v % 10);
      v /= 10;
    } while (v);
    for (size_t a = l, b = l + d - 1; a < b; a++, b--) {
      char t = s[a];
      s[a] = s[b];
      s[b] = t;
    }
    s[l + d] = '\0';
    names[i] = s;
  }
  return names;
}

const char *CHSProblem_GetCoordinateName(CHSProblem prob, sunindextype i) {
  const CHSProblemDims *d = &prob->dims;
  return d->coordinate_names && i >= 0 && i < d->n ? d->coordinate_names[i] : NULL;
}

const char *CHSProblem_GetConstraintName(CHSProblem prob, sunindextype i) {
  const CHSProblemDims *d = &prob->dims;
  return d->constraint_names && i >= 0 && i < d->m ? d->constraint_names[i] : NULL;
}
