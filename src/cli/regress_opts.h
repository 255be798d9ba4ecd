/* What diff and nightly count as regressed, as options: --min-count,
 * --min-rise and --threshold (hg_diff_query), parsed the same way and
 * with the same defaults in both; and nightly's --rate-threshold (the ANR
 * rate a version is flagged over, hg_digest_run). */
#ifndef HANGAR_CLI_REGRESS_OPTS_H
#define HANGAR_CLI_REGRESS_OPTS_H

#include <stdint.h>

#define REGRESS_MIN_COUNT 5     /* reports in the new set */
#define REGRESS_MIN_RISE 2.0    /* times the comparison's count */
#define REGRESS_THRESHOLD 50.0  /* percent the p90 rises by */
#define REGRESS_RATE_THRESHOLD 4.7 /* ANRs per 1,000 sessions: Play's 0.47% */

struct regress_opts {
	int64_t min_count;
	double min_rise;
	double threshold;
	double rate_threshold;
};

#define REGRESS_OPTS_DEFAULT                                                            \
	{REGRESS_MIN_COUNT, REGRESS_MIN_RISE, REGRESS_THRESHOLD, REGRESS_RATE_THRESHOLD}

#define REGRESS_USAGE                                                                     \
	"      --min-count N      regressed needs N reports in the new set (default 5)\n"  \
	"      --min-rise R       and its count R times the old one (2x, 1.5; default 2x)\n" \
	"      --threshold PCT    or its p90 up more than PCT percent, with N reports on\n" \
	"                         both sides (default 50)\n"

/* Applies one of them (name "min-count", "min-rise", "threshold" or
 * "rate-threshold"):
 * EXIT_FINE or EXIT_USAGE (said on stderr, naming cmd). */
int regress_option(struct regress_opts *o, const char *cmd, const char *name, const char *arg);

#endif
