/* Key=value parameter lists with validation. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "impl.h"

typedef struct {
  char *key, *value;
  int used;
} chs_kv;

struct CHSParams_ {
  int count;
  chs_kv *items;
  char *buf;
};

static void chs_trim(char **s) {
  while (**s == ' ') {
    (*s)++;
  }
  size_t len = strlen(*s);
  while (len > 0 && (*s)[len - 1] == ' ') {
    (*s)[--len] = '\0';
  }
}

int CHSParams_Parse(const char *text, CHSParams *out, CHSError *err) {
  *out = NULL;
  CHSParams p = calloc(1, sizeof *p);
  if (!p) {
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  const char *src = text ? text : "";
  p->buf = malloc(strlen(src) + 1);
  size_t cap = 1;
  for (const char *c = src; *c; c++) {
    cap += (*c == ',');
  }
  p->items = calloc(cap, sizeof *p->items);
  if (!p->buf || !p->items) {
    CHSParams_Destroy(&p);
    return chs_error_set(err, CHS_ERR_MEM, "out of memory");
  }
  strcpy(p->buf, src);
  size_t len = strlen(src);
  if (len > 0 && (src[0] == ',' || src[len - 1] == ',' || strstr(src, ",,"))) {
    CHSParams_Destroy(&p); /* strtok_r would skip the empty item silently */
    return chs_error_set(err, CHS_ERR_ARG, "parameters '%.200s': an empty item (stray comma)", src);
  }
  char *save = NULL;
  for (char *tok = strtok_r(p->buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(tok, '=');
    if (!eq) {
      int rc =
          chs_error_set(err, CHS_ERR_ARG, "parameter '%s' has no value (expected key=value)", tok);
      CHSParams_Destroy(&p);
      return rc;
    }
    *eq = '\0';
    char *key = tok, *val = eq + 1;
    chs_trim(&key);
    chs_trim(&val);
    if (!*key || !*val) {
      int rc = chs_error_set(err, CHS_ERR_ARG, "parameter '%s=%s': empty key or value", key, val);
      CHSParams_Destroy(&p);
      return rc;
    }
    for (int i = 0; i < p->count; i++) {
      if (strcmp(p->items[i].key, key) == 0) {
        int rc = chs_error_set(err, CHS_ERR_ARG, "parameter '%s' given twice", key);
        CHSParams_Destroy(&p);
        return rc;
      }
    }
    p->items[p->count].key = key;
    p->items[p->count].value = val;
    p->count++;
  }
  *out = p;
  return CHS_SUCCESS;
}

void CHSParams_Destroy(CHSParams *params) {
  if (params && *params) {
    free((*params)->items);
    free((*params)->buf);
    free(*params);
    *params = NULL;
  }
}

static chs_kv *chs_find(CHSParams p, const char *key) {
  if (!p) {
    return NULL;
  }
  for (int i = 0; i < p->count; i++) {
    if (strcmp(p->items[i].key, key) == 0) {
      return &p->items[i];
    }
  }
  return NULL;
}

int CHSParams_Has(CHSParams params, const char *key) {
  return chs_find(params, key) != NULL;
}

int CHSParams_GetReal(CHSParams params, const char *key, sunrealtype def, sunrealtype *value,
                      CHSError *err) {
  chs_kv *kv = chs_find(params, key);
  *value = def;
  if (!kv) {
    return CHS_SUCCESS;
  }
  kv->used = 1;
  char *end = NULL;
  errno = 0;
  double x = strtod(kv->value, &end);
  if (end == kv->value || *end != '\0' || errno == ERANGE || !isfinite(x)) {
    return chs_error_set(err, CHS_ERR_ARG, "parameter %s=%s is not a finite number", key,
                         kv->value);
  }
  *value = (sunrealtype)x;
  return CHS_SUCCESS;
}

int CHSParams_GetRealMin(CHSParams params, const char *key, sunrealtype def, sunrealtype lo,
                         int lo_strict, sunrealtype *value, CHSError *err) {
  CHS_CALL(CHSParams_GetReal(params, key, def, value, err));
  if (lo_strict ? !(*value > lo) : !(*value >= lo)) {
    return chs_error_set(err, CHS_ERR_ARG, "parameter %s=%g must be %s %g", key, (double)*value,
                         lo_strict ? ">" : ">=", (double)lo);
  }
  return CHS_SUCCESS;
}

int CHSParams_GetInt(CHSParams params, const char *key, long def, long lo, long hi, long *value,
                     CHSError *err) {
  chs_kv *kv = chs_find(params, key);
  *value = def;
  if (!kv) {
    return CHS_SUCCESS;
  }
  kv->used = 1;
  char *end = NULL;
  errno = 0;
  long x = strtol(kv->value, &end, 10);
  if (end == kv->value || *end != '\0') {
    return chs_error_set(err, CHS_ERR_ARG, "parameter %s=%s is not an integer", key, kv->value);
  }
  if (errno == ERANGE) { /* range checked before any narrowing: no silent truncation */
    return chs_error_set(err, CHS_ERR_ARG, "parameter %s=%s is outside [%ld, %ld]", key, kv->value,
                         lo, hi);
  }
  if (x < lo || x > hi) {
    return chs_error_set(err, CHS_ERR_ARG, "parameter %s=%ld is outside [%ld, %ld]", key, x, lo,
                         hi);
  }
  *value = x;
  return CHS_SUCCESS;
}

int CHSParams_GetChoice(CHSParams params, const char *key, const char *const *choices, int def,
                        int *index, CHSError *err) {
  chs_kv *kv = chs_find(params, key);
  *index = def;
  if (!kv) {
    return CHS_SUCCESS;
  }
  kv->used = 1;
  for (int i = 0; choices[i]; i++) {
    if (strcmp(kv->value, choices[i]) == 0) {
      *index = i;
      return CHS_SUCCESS;
    }
  }
  return chs_error_set(err, CHS_ERR_ARG, "parameter %s=%s is not one of the allowed values", key,
                       kv->value);
}

int CHSParams_CheckAllUsed(CHSParams params, const char *context, CHSError *err) {
  if (!params) {
    return CHS_SUCCESS;
  }
  for (int i = 0; i < params->count; i++) {
    if (!params->items[i].used) {
      return chs_error_set(err, CHS_ERR_ARG, "unknown parameter '%s' for %s", params->items[i].key,
                           context);
    }
  }
  return CHS_SUCCESS;
}

int CHSSpec_Split(const char *spec, char *name, size_t len, const char **params, CHSError *err) {
  if (!spec || !*spec) {
    return chs_error_set(err, CHS_ERR_ARG, "empty name");
  }
  const char *colon = strchr(spec, ':');
  size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec);
  if (nlen == 0 || nlen >= len) {
    return chs_error_set(err, CHS_ERR_ARG, "bad name in '%s'", spec);
  }
  memcpy(name, spec, nlen);
  name[nlen] = '\0';
  *params = colon ? colon + 1 : "";
  return CHS_SUCCESS;
}
