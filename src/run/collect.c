/* CHSCollector (chs/run.h): the records of a run copied into arrays, one growable row-major array
 * per field. A field is one row of chs_fields: its name, its width (one, n, m or the invariants)
 * and where a record holds it, so that a quantity CHSRecord gains (a per-constraint array, say)
 * becomes a collectable field with one more row. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "impl.h"

/* How many columns a field has. */
enum { CHS_COL_ONE, CHS_COL_N, CHS_COL_M, CHS_COL_INVARIANTS };
/* Where a record holds a field: a sunrealtype member, a pointer member to `width` values, or
 * computed here (v = M^{-1} p). */
enum { CHS_SRC_SCALAR, CHS_SRC_ARRAY, CHS_SRC_VELOCITY };
/* When a problem has the field. */
enum { CHS_HAS_ALWAYS, CHS_HAS_REFERENCE, CHS_HAS_INVARIANTS, CHS_HAS_MULTIPLIERS };

typedef struct {
  const char *name;
  int cols, src;
  size_t offset; /* into CHSRecord (CHS_SRC_SCALAR, CHS_SRC_ARRAY) */
  int has;
  /* Column names of CHS_COL_N (CHS_COL_M) fields: prefix + the coordinate (constraint) name when
   * the problem declares names, else stem + the 1-based index. */
  const char *prefix, *stem;
} chs_field;

static const chs_field chs_fields[] = {
    {"t", CHS_COL_ONE, CHS_SRC_SCALAR, offsetof(CHSRecord, t), CHS_HAS_ALWAYS, NULL, NULL},
    {"q", CHS_COL_N, CHS_SRC_ARRAY, offsetof(CHSRecord, q), CHS_HAS_ALWAYS, "", "q"},
    {"p", CHS_COL_N, CHS_SRC_ARRAY, offsetof(CHSRecord, p), CHS_HAS_ALWAYS, "p_", "p"},
    {"v", CHS_COL_N, CHS_SRC_VELOCITY, 0, CHS_HAS_ALWAYS, "v_", "v"},
    {"energy", CHS_COL_ONE, CHS_SRC_SCALAR, offsetof(CHSRecord, energy), CHS_HAS_ALWAYS, NULL,
     NULL},
    {"energy_err", CHS_COL_ONE, CHS_SRC_SCALAR, offsetof(CHSRecord, energy_err), CHS_HAS_ALWAYS,
     NULL, NULL},
    {"pos_res", CHS_COL_ONE, CHS_SRC_SCALAR, offsetof(CHSRecord, pos_res), CHS_HAS_ALWAYS, NULL,
     NULL},
    {"mom_res", CHS_COL_ONE, CHS_SRC_SCALAR, offsetof(CHSRecord, mom_res), CHS_HAS_ALWAYS, NULL,
     NULL},
    {"int_err", CHS_COL_ONE, CHS_SRC_SCALAR, offsetof(CHSRecord, int_err), CHS_HAS_REFERENCE, NULL,
     NULL},
    {"invariants", CHS_COL_INVARIANTS, CHS_SRC_ARRAY, offsetof(CHSRecord, invariants),
     CHS_HAS_INVARIANTS, NULL, NULL},
    /* with CHSRunOptions.multipliers = 1 (CHSRunOptions_SetMultipliers) */
    {"lambda", CHS_COL_M, CHS_SRC_ARRAY, offsetof(CHSRecord, lambda), CHS_HAS_MULTIPLIERS,
     "lambda_", "lambda"},
    {"reaction", CHS_COL_N, CHS_SRC_ARRAY, offsetof(CHSRecord, reaction), CHS_HAS_MULTIPLIERS, "R_",
     "R"},
};
#define CHS_NUM_FIELDS ((int)(sizeof chs_fields / sizeof chs_fields[0]))

typedef struct {
  int on;
  long cols;
  sunrealtype *data; /* rows x cols, capacity cap rows */
  char **colnames;   /* cols names */
} chs_column_set;

struct CHSCollector_ {
  CHSProblem prob;
  CHSSystem sys; /* M^{-1} for v (no Gram solver) */
  long rows, cap;
  chs_column_set f[CHS_NUM_FIELDS];
};

const char *CHSCollector_FieldName(int i) {
  return i >= 0 && i < CHS_NUM_FIELDS ? chs_fields[i].name : NULL;
}

static int chs_field_find(const char *name, size_t len) {
  for (int i = 0; i < CHS_NUM_FIELDS; i++) {
    if (strlen(chs_fields[i].name) == len && strncmp(chs_fields[i].name, name, len) == 0) {
      return i;
    }
  }
  return -1;
}

static int chs_field_has(CHSProblem prob, int has) {
  switch (has) {
  case CHS_HAS_REFERENCE:
    return CHSProblem_GetOps(prob)->reference != NULL;
  case CHS_HAS_INVARIANTS:
    return CHSProblem_GetNumInvariants(prob) > 0;
  case CHS_HAS_MULTIPLIERS: /* CHSFormulation_GetMultipliers refuses a scaled kinetic energy */
    return !CHSProblem_HasKineticScale(prob);
  default:
    return 1;
  }
}

/* prefix + name, or (no name) stem + the 1-based index j + 1: x, p_x, v_x or q1, p1, v1. */
static char *chs_colname(const char *prefix, const char *stem, const char *name, long j) {
  char buf[80];
  if (name) {
    snprintf(buf, sizeof buf, "%s%s", prefix, name);
  } else {
    snprintf(buf, sizeof buf, "%s%ld", stem, j + 1);
  }
  size_t len = strlen(buf) + 1;
  char *c = malloc(len);
  if (c) {
    memcpy(c, buf, len);
  }
  return c;
}

/* The column names of field i for prob (set->cols of them). */
static int chs_field_colnames(CHSProblem prob, int i, chs_column_set *set) {
  const chs_field *fd = &chs_fields[i];
  const CHSProblemDims *d = CHSProblem_GetDims(prob);
  set->colnames = calloc((size_t)set->cols, sizeof *set->colnames);
  if (!set->colnames) {
    return CHS_ERR_MEM;
  }
  for (long j = 0; j < set->cols; j++) {
    if (fd->cols == CHS_COL_ONE) {
      set->colnames[j] = chs_colname("", "", fd->name, j);
    } else if (fd->cols == CHS_COL_N) {
      set->colnames[j] =
          chs_colname(fd->prefix, fd->stem, d->coordinate_names ? d->coordinate_names[j] : NULL, j);
    } else if (fd->cols == CHS_COL_M) {
      set->colnames[j] =
          chs_colname(fd->prefix, fd->stem, d->constraint_names ? d->constraint_names[j] : NULL, j);
    } else {
      set->colnames[j] = chs_colname("", "", CHSProblem_GetOps(prob)->invariant_names[j], j);
    }
    if (!set->colnames[j]) {
      return CHS_ERR_MEM;
    }
  }
  return CHS_SUCCESS;
}

void CHSCollector_Destroy(CHSCollector *col) {
  if (!col || !*col) {
    return;
  }
  CHSCollector c = *col;
  for (int i = 0; i < CHS_NUM_FIELDS; i++) {
    free(c->f[i].data);
    if (c->f[i].colnames) {
      for (long j = 0; j < c->f[i].cols; j++) {
        free(c->f[i].colnames[j]);
      }
      free(c->f[i].colnames);
    }
  }
  chs_system_free(&c->sys);
  free(c);
  *col = NULL;
}

static int chs_collector_select(CHSCollector c, const char *fields, CHSError *err) {
  /* NULL: every field the problem has but the multipliers' (they need
   * CHSRunOptions.multipliers); "all": those too */
  int all = fields && strcmp(fields, "all") == 0;
  if (!fields || all) {
    for (int i = 0; i < CHS_NUM_FIELDS; i++) {
      c->f[i].on = chs_field_has(c->prob, chs_fields[i].has) &&
                   (all || chs_fields[i].has != CHS_HAS_MULTIPLIERS);
    }
    return CHS_SUCCESS;
  }
  const char *s = fields;
  for (;;) {
    size_t len = strcspn(s, ",");
    int i = chs_field_find(s, len);
    if (i < 0) {
      char known[256] = "";
      for (int k = 0; k < CHS_NUM_FIELDS; k++) {
        size_t used = strlen(known);
        snprintf(known + used, sizeof known - used, "%s%s", k ? ", " : "", chs_fields[k].name);
      }
      return chs_error_set(err, CHS_ERR_ARG, "unknown output '%.*s' (one of %s)",
                           (int)(len < 64 ? len : 64), s, known);
    }
    if (!chs_field_has(c->prob, chs_fields[i].has)) {
      return chs_error_set(err, CHS_ERR_ARG, "output '%s': problem '%s' has no %s",
                           chs_fields[i].name, CHSProblem_GetName(c->prob),
                           chs_fields[i].has == CHS_HAS_REFERENCE    ? "reference solution"
                           : chs_fields[i].has == CHS_HAS_INVARIANTS ? "extra invariants"
                                                                     : "multipliers (its kinetic "
                                                                       "energy is scaled)");
    }
    c->f[i].on = 1;
    if (!s[len]) {
      return CHS_SUCCESS;
    }
    s += len + 1;
  }
}

int CHSCollector_Create(CHSProblem prob, const char *fields, CHSCollector *out, CHSError *err) {
  if (!out) {
    return chs_error_set(err, CHS_ERR_ARG, "CHSCollector_Create: out is NULL");
  }
  *out = NULL;
  if (!prob) {
    return chs_error_set(err, CHS_ERR_ARG, "CHSCollector_Create: the problem is NULL");
  }
  CHSCollector c = calloc(1, sizeof *c);
  if (!c) {
    return chs_error_set(err, CHS_ERR_MEM, "CHSCollector_Create: out of memory");
  }
  c->prob = prob;
  int rc = chs_collector_select(c, fields, err);
  if (rc == 0 && c->f[chs_field_find("v", 1)].on) { /* v: the inverse mass matrix */
    rc = chs_system_init(&c->sys, prob, NULL, CHS_GRAM_AUTO, err);
  }
  const CHSProblemDims *d = CHSProblem_GetDims(prob);
  for (int i = 0; rc == 0 && i < CHS_NUM_FIELDS; i++) {
    chs_column_set *set = &c->f[i];
    if (!set->on) {
      continue;
    }
    int kind = chs_fields[i].cols;
    set->cols = kind == CHS_COL_ONE ? 1
                : kind == CHS_COL_N ? (long)d->n
                : kind == CHS_COL_M ? (long)d->m
                                    : CHSProblem_GetNumInvariants(prob);
    if (chs_field_colnames(prob, i, set) != 0) {
      rc = chs_error_set(err, CHS_ERR_MEM, "CHSCollector_Create: out of memory");
    }
  }
  if (rc != 0) {
    CHSCollector_Destroy(&c);
    return rc;
  }
  *out = c;
  return CHS_SUCCESS;
}

static int chs_collector_grow(CHSCollector c) {
  long cap = c->cap ? 2 * c->cap : 64;
  for (int i = 0; i < CHS_NUM_FIELDS; i++) {
    chs_column_set *set = &c->f[i];
    if (!set->on) {
      continue;
    }
    sunrealtype *d = realloc(set->data, (size_t)cap * (size_t)set->cols * sizeof *d);
    if (!d) {
      return CHS_ERR_MEM;
    }
    set->data = d;
  }
  c->cap = cap;
  return CHS_SUCCESS;
}

int CHSCollector_Monitor(const CHSRecord *rec, void *col) {
  CHSCollector c = col;
  if (c->rows == c->cap && chs_collector_grow(c) != 0) {
    return CHS_ERR_MEM;
  }
  for (int i = 0; i < CHS_NUM_FIELDS; i++) {
    chs_column_set *set = &c->f[i];
    if (!set->on) {
      continue;
    }
    sunrealtype *row = set->data + c->rows * set->cols;
    const chs_field *fd = &chs_fields[i];
    const char *base = (const char *)rec + fd->offset;
    if (fd->src == CHS_SRC_SCALAR) {
      memcpy(row, base, sizeof *row);
    } else if (fd->src == CHS_SRC_ARRAY) {
      const sunrealtype *src;
      memcpy(&src, base, sizeof src);
      if (!src) { /* a quantity this run's records do not carry */
        return CHS_ERR_UNSUPPORTED;
      }
      memcpy(row, src, (size_t)set->cols * sizeof *row);
    } else { /* v = M(q)^{-1} p */
      if (chs_system_mass_at(&c->sys, rec->q) != 0) {
        return CHS_ERR_CALLBACK;
      }
      chs_mass_inv(&c->sys, rec->p, row);
    }
  }
  c->rows++;
  return CHS_SUCCESS;
}

long CHSCollector_GetNumRecords(CHSCollector col) {
  return col ? col->rows : 0;
}

static int chs_collected(CHSCollector col, const char *field) {
  int i = col && field ? chs_field_find(field, strlen(field)) : -1;
  return i >= 0 && col->f[i].on ? i : -1;
}

int CHSCollector_GetField(CHSCollector col, const char *field, const sunrealtype **data, long *cols,
                          CHSError *err) {
  int i = chs_collected(col, field);
  if (i < 0) {
    return chs_error_set(err, CHS_ERR_NOTFOUND, "output '%s' is not collected",
                         field ? field : "(null)");
  }
  *data = col->f[i].data;
  *cols = col->f[i].cols;
  return CHS_SUCCESS;
}

const char *CHSCollector_GetColumnName(CHSCollector col, const char *field, long j) {
  int i = chs_collected(col, field);
  return i >= 0 && j >= 0 && j < col->f[i].cols ? col->f[i].colnames[j] : NULL;
}
