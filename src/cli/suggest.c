/* Near misses: the option or value a user most likely meant, by edit
 * distance, for the usage errors of every command. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Optimal string alignment distance (Levenshtein with adjacent
 * transpositions, so "--clour" and "--colro" are one edit from "--color"),
 * over the first CLI_WORD_MAX bytes: options and values are short. */
#define CLI_WORD_MAX 64

size_t cli_edit_distance(const char *a, const char *b)
{
	size_t n = strnlen(a, CLI_WORD_MAX), m = strnlen(b, CLI_WORD_MAX);
	size_t d[CLI_WORD_MAX + 1][CLI_WORD_MAX + 1];
	for (size_t i = 0; i <= n; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= n; i++) {
		for (size_t j = 1; j <= m; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < best)
				best = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[n][m];
}

const char *cli_nearest(const char *word, const char *const *candidates, size_t n)
{
	/* Close enough to be a slip: a third of the word's letters, at
	 * least one, at most three ("anrr" -> "anr", not "ab" -> "anr"). */
	size_t len = strlen(word), limit = len / 3;
	limit = limit < 1 ? 1 : limit > 3 ? 3 : limit;
	const char *best = NULL;
	size_t best_d = limit + 1;
	for (size_t i = 0; i < n; i++) {
		size_t d = cli_edit_distance(word, candidates[i]);
		if (d < best_d) { /* the first of equals: the table's order */
			best = candidates[i];
			best_d = d;
		}
	}
	return best;
}

/* The name of an option word: "--colour=x" -> "colour" (in buf). */
static const char *long_name(const char *word, char *buf, size_t size)
{
	word += 2;
	size_t n = strcspn(word, "=");
	if (n >= size)
		n = size - 1;
	memcpy(buf, word, n);
	buf[n] = '\0';
	return buf;
}

/* The long options that start with name (getopt_long's prefixes). */
static size_t prefixed(const struct option *opts, const char *name, const char **out, size_t cap)
{
	size_t n = 0, len = strlen(name);
	for (const struct option *o = opts; o->name; o++)
		if (strncmp(o->name, name, len) == 0 && n < cap)
			out[n++] = o->name;
	return n;
}

static int unknown_long(const char *cmd, const struct option *opts, const char *word)
{
	char name[CLI_WORD_MAX + 1];
	long_name(word, name, sizeof name);
	for (const struct option *o = opts; o->name; o++)
		if (strcmp(o->name, name) == 0 && o->has_arg == no_argument && strchr(word, '='))
			return cli_usage_error(cmd, "option '--%s' takes no value", name);
	const char *matches[8];
	size_t n = name[0] ? prefixed(opts, name, matches, 8) : 0;
	if (n > 1) {
		char list[256] = "";
		for (size_t i = 0; i < n && i < 6; i++) {
			size_t at = strlen(list);
			snprintf(list + at, sizeof list - at, "%s--%s", i ? ", " : "", matches[i]);
		}
		return cli_usage_error(cmd, "ambiguous option '--%s' (%s%s)", name, list,
				       n > 6 ? ", ..." : "");
	}
	const char *names[128];
	size_t count = 0;
	for (const struct option *o = opts; o->name && count < 128; o++)
		names[count++] = o->name;
	const char *near = cli_nearest(name, names, count);
	if (near)
		return cli_usage_error(cmd, "unknown option '--%s'; did you mean '--%s'?", name, near);
	return cli_usage_error(cmd, "unknown option '--%s'", name);
}

int cli_unknown_option(const char *cmd, const struct option *opts, char **argv, int optind_now,
		       int optopt_now)
{
	/* A bad long option is the word getopt just passed; a bad letter,
	 * even inside a group (-xA), is in optopt. */
	const char *word = optind_now > 0 ? argv[optind_now - 1] : "";
	if (strncmp(word, "--", 2) == 0 && (optopt_now == 0 || word[2]))
		return unknown_long(cmd, opts, word);
	if (optopt_now && optopt_now != '?')
		return cli_usage_error(cmd, "unknown option '-%c'", optopt_now);
	return cli_usage_error(cmd, "unknown option '%s'", word);
}
