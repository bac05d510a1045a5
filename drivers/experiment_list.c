/* The experiments of `chs reproduce`, one file each in drivers/experiments/, listed once in
 * drivers/experiments/list.h. A module of its own: the option parser (drivers/cli_options.c) lists
 * them in help and completion without depending on the command that runs them. */
#include "reproduce.h"

#define CHS_EXPERIMENT(sym) extern const rep_experiment sym;
#include "experiments/list.h"
#undef CHS_EXPERIMENT

static const rep_experiment *const experiments[] = {
#define CHS_EXPERIMENT(sym) &sym,
#include "experiments/list.h"
#undef CHS_EXPERIMENT
};
#define NEXPERIMENTS ((int)(sizeof experiments / sizeof experiments[0]))

int rep_experiment_count(void) {
  return NEXPERIMENTS;
}
const rep_experiment *rep_experiment_get(int i) {
  return i >= 0 && i < NEXPERIMENTS ? experiments[i] : NULL;
}
