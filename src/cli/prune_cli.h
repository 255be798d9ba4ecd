/* What hangar prune and hangar nightly --keep-days share (cmd_prune.c):
 * the options' values and the summary of a prune. */
#ifndef HANGAR_PRUNE_CLI_H
#define HANGAR_PRUNE_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "hangar/store.h"

#define PRUNE_MAX_DAYS 36500       /* a century: the cutoff stays a time */
#define PRUNE_MAX_SAMPLES 1000000
#define PRUNE_DEFAULT_SAMPLES 3

/* --keep-days and --keep-samples of cmd: EXIT_FINE with *out set, or
 * EXIT_USAGE after saying what the option wants. */
int prune_parse_days(const char *cmd, const char *value, int64_t *out);
int prune_parse_samples(const char *cmd, const char *value, int64_t *out);

/* One line of what a prune dropped and kept, for nightly's notes on
 * stderr ("pruned ...", no newline at the end). */
void prune_print_line(FILE *out, const hg_prune_query *q, const hg_prune_stats *s);

#endif
