/* --min-count, --min-rise and --threshold of diff and nightly, and
 * nightly's --rate-threshold. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "regress_opts.h"

/* A decimal number >= min and < 1e9, all of s but for an optional suffix
 * character (x for a factor, % for a percentage). */
static bool parse_number(const char *s, char suffix, double min, double *out)
{
	errno = 0;
	char *end = NULL;
	double v = strtod(s, &end);
	if (errno || end == s || !(v >= min && v < 1e9))
		return false;
	if (*end && !(suffix && end[0] == suffix && !end[1]))
		return false;
	*out = v;
	return true;
}

int regress_option(struct regress_opts *o, const char *cmd, const char *name, const char *arg)
{
	if (!strcmp(name, "min-count")) {
		if (!cli_parse_int64(arg, &o->min_count) || o->min_count < 1)
			return cli_usage_error(cmd, "--min-count wants a count >= 1, not '%s'", arg);
	} else if (!strcmp(name, "min-rise")) {
		if (!parse_number(arg, 'x', 1.0, &o->min_rise))
			return cli_usage_error(cmd, "--min-rise wants a factor >= 1 (2x, 1.5), not '%s'",
					       arg);
	} else if (!strcmp(name, "rate-threshold")) {
		if (!parse_number(arg, 0, 0.0, &o->rate_threshold) || !(o->rate_threshold > 0))
			return cli_usage_error(cmd, "--rate-threshold wants reports per 1,000 sessions, "
					       "a number > 0 (4.7), not '%s'", arg);
	} else if (!parse_number(arg, '%', 0.0, &o->threshold)) {
		return cli_usage_error(cmd, "--threshold wants a percentage >= 0, not '%s'", arg);
	}
	return EXIT_FINE;
}
