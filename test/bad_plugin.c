/* Deliberately broken plugins for the loader's error paths (one source, four builds), kept for
 * test/cli_test.sh: BAD_PLUGIN 1: no entry point; 2: wrong ABI version; 3: a required callback
 * is NULL; 4: as 3, but an old plugin of ABI version 1 that answers only when asked for version 1
 * (the loader must fall back to version 1 and get as far as the callback check). They are four of
 * the faults of fault_plugin.c, which maps BAD_PLUGIN onto its FAULT_ macros. */
#include "fault_plugin.c"
