/** @file
 * CHS_EXPORT: marks the public API, the only symbols libchs exports. The library is compiled
 * with hidden visibility (-fvisibility=hidden): its internal functions bind locally, can be
 * inlined across files by link-time optimisation, and are no part of the ABI. Every declaration
 * in the installed headers carries CHS_EXPORT; a program using chs needs nothing else. */
#ifndef CHS_EXPORT_H
#define CHS_EXPORT_H

#if defined(_WIN32) || defined(__CYGWIN__)
#define CHS_EXPORT /**< (static linking only on Windows) */
#elif defined(__GNUC__) || defined(__clang__)
#define CHS_EXPORT __attribute__((visibility("default"))) /**< a public declaration */
#else
#define CHS_EXPORT /**< a public declaration */
#endif

/** Marks a public declaration kept for one release after its replacement appeared; a program
 * that defines CHS_NO_DEPRECATED_WARNINGS before including chs gets no warning. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(CHS_NO_DEPRECATED_WARNINGS)
#define CHS_DEPRECATED(msg) __attribute__((deprecated(msg)))
#else
#define CHS_DEPRECATED(msg) /**< (no attribute on this compiler) */
#endif

#endif
