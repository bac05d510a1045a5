/* Shared helpers of the libFuzzer harnesses (test/fuzz, built with -DCHS_FUZZ=ON and clang). */
#ifndef CHS_FUZZ_COMMON_H
#define CHS_FUZZ_COMMON_H

#include <stdlib.h>
#include <string.h>

/* A NUL-terminated copy of data[0 .. size) (fuzz inputs are not terminated). */
static inline char *fuzz_strndup(const unsigned char *data, size_t size) {
  char *s = malloc(size + 1);
  if (s) {
    memcpy(s, data, size);
    s[size] = '\0';
  }
  return s;
}

/* 1 when a "name:params" spec would load a plugin (chs dlopen()s any path with a '/' or a name
 * ending in .so): never load an arbitrary library from a fuzz input. */
static inline int fuzz_is_plugin_spec(const char *spec) {
  const char *colon = strchr(spec, ':');
  size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
  if (memchr(spec, '/', n)) {
    return 1;
  }
  return n >= 3 && memcmp(spec + n - 3, ".so", 3) == 0;
}

/* 1 when the text asks for a chain larger than max atoms (N=...): such inputs are slow, not
 * wrong; skip them so that every input runs in milliseconds. */
static inline int fuzz_too_large(const char *s, long max) {
  /* the parameter parser trims blanks around keys and values: "N = 9e6" is N too */
  for (const char *p = strchr(s, 'N'); p; p = strchr(p + 1, 'N')) {
    const char *q = p + 1;
    while (*q == ' ' || *q == '\t') {
      q++;
    }
    if (*q != '=') {
      continue;
    }
    char *end = NULL;
    long n = strtol(q + 1, &end, 10); /* strtol skips the blanks after '=' */
    if (end == q + 1 || n > max || n < -max) {
      return 1;
    }
  }
  return 0;
}

#endif
