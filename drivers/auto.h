/* --formulation auto and --method auto: the configuration chs chooses (drivers/auto.c has the
 * decision, docs/auto.md its measurements). */
#ifndef CHS_AUTO_H
#define CHS_AUTO_H

#include "cli.h"

typedef struct {
  char formulation[128], method[128]; /* the configuration to run */
  int formulation_auto, method_auto;  /* which of the two was chosen here */
  char why[600];                      /* the reasons, one clause per choice */
} cli_auto_choice;

/* 1 when a --formulation or --method value asks for the choice: absent (NULL) or "auto". */
int cli_auto_wanted(const char *spec);
/* The configuration for run options o (problem prob, its tolerances or --h, t_f): the given
 * formulation and method where they are not "auto", chosen ones where they are. 0. */
int cli_auto_choose(const cli_options *o, CHSProblem prob, cli_auto_choice *c);

#endif
