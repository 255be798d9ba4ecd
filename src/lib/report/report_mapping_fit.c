/* Whether the methodMapping that named a report is the app's own: a
 * mapping of another app (or of nothing like this build) names ids with
 * confident wrong names, and only the report's own package and ids can
 * tell.  hg_report_symbolicate says so; the namer of ingest says it once
 * per mapping and package. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/beat.h"
#include "report_internal.h"

/* At least this many distinct ids before "most are missing" means
 * anything: a stack of two ids, one of them unknown, says nothing. */
#define FIT_MIN_IDS 5

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$';
}

/* The length of the first two words of s[0..n) when s is at least `words`
 * dotted Java words ("com.example" of "com.example.reader"), else 0. */
static size_t two_words(const char *s, size_t n, int words)
{
	size_t two = 0, start = 0;
	int seen = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && name_char(s[i]))
			continue;
		if (i == start || (s[start] >= '0' && s[start] <= '9'))
			return 0; /* an empty word, or one that starts with a digit */
		if (++seen == 2)
			two = i;
		if (i < n && s[i] != '.')
			return 0;
		start = i + 1;
	}
	return seen >= words ? two : 0;
}

/* The app's package the report names, as "com.example" (the first two
 * words: an app's classes share them with its package, even when a flavor
 * adds words to it): its process without ":suffix", else its scene when
 * that is a class ("com.example.ui.FeedActivity").  0 when neither
 * reads so; *app is what it came from. */
static size_t app_package(const hg_report *rep, const char **app)
{
	if (rep->process && *rep->process) {
		size_t n = strcspn(rep->process, ":"), len = two_words(rep->process, n, 2);
		if (len) {
			*app = hg_arena_strndup(rep->arena, rep->process, n);
			return *app ? len : 0;
		}
	}
	if (rep->scene && *rep->scene) {
		size_t len = two_words(rep->scene, strlen(rep->scene), 3);
		if (len) {
			*app = rep->scene;
			return len;
		}
	}
	*app = NULL;
	return 0;
}

/* The distinct ids of the report's stack, and of them those the mapping
 * did not name, through an open-addressing set.  Matrix's fixed id of
 * Handler.dispatchMessage is left out: every methodMapping has it, so it
 * says nothing of whose the mapping is.  -1 on ENOMEM. */
static int count_ids(const hg_report *rep, size_t *ids, size_t *missing)
{
	const hg_method_stack *st = &rep->full;
	size_t cap = 16;
	while (cap < 2 * st->len)
		cap *= 2;
	int64_t *set = malloc(cap * sizeof *set);
	if (!set)
		return -1;
	for (size_t i = 0; i < cap; i++)
		set[i] = INT64_MIN;
	for (size_t i = 0; i < st->len; i++) {
		int32_t id = st->items[i].id;
		if (id == HG_BEAT_DISPATCH_ID)
			continue;
		size_t h = ((uint32_t)id * 2654435761u) & (cap - 1);
		while (set[h] != INT64_MIN && set[h] != id)
			h = (h + 1) & (cap - 1);
		if (set[h] == INT64_MIN) {
			set[h] = id;
			++*ids;
			*missing += rep->symbols[i] == NULL;
		}
	}
	free(set);
	return 0;
}

int hg_report_mapping_fit(const hg_report *rep, const hg_mapping *mapping, hg_mapping_fit *fit)
{
	*fit = (hg_mapping_fit){0};
	if (!rep || rep->error || !mapping || !rep->symbols)
		return 0;
	if (count_ids(rep, &fit->ids, &fit->missing) != 0)
		return HG_ENOMEM;
	if (!fit->ids)
		return 0; /* no id at stake */
	bool most_missing = fit->ids >= FIT_MIN_IDS && 2 * fit->missing > fit->ids;
	const char *app;
	size_t len = app_package(rep, &app);
	if (!len) { /* only the ids can tell */
		fit->foreign = most_missing;
		return 0;
	}
	fit->app = app;
	if (!(fit->package = hg_arena_strndup(rep->arena, app, len)))
		return HG_ENOMEM;
	for (size_t i = 0; i < rep->full.len && !fit->in_package; i++) {
		const char *s = rep->symbols[i];
		fit->in_package = s && strncmp(s, app, len) == 0 && s[len] == '.';
	}
	/* An id named into the app's own package clears the mapping: a partial
	 * one is still the app's (the APM seed's names 7 of its ANR's 29 ids,
	 * all in com.gmlive). */
	if (fit->in_package)
		return 0;
	fit->package_known = hg_mapping_has_package(mapping, app, len);
	fit->foreign = !fit->package_known || most_missing;
	return 0;
}

/* "none" when the mapping has none of the ids, else how many it lacks. */
static const char *how_many(const hg_mapping_fit *fit, char buf[24])
{
	if (fit->missing == fit->ids)
		return "none";
	snprintf(buf, 24, "%zu", fit->missing);
	return buf;
}

const char *hg_mapping_fit_warning(const hg_mapping_fit *fit, const hg_mapping *mapping,
				   hg_arena *arena)
{
	if (!fit->foreign)
		return NULL;
	const char *name = hg_mapping_name(mapping);
	char buf[24];
	if (fit->package && !fit->package_known) {
		if (!fit->missing)
			return hg_arena_printf(arena, "methodMapping %s looks like another app's: it has "
					       "no class in %s, the package of %s; the names it gives "
					       "are likely wrong", name, fit->package, fit->app);
		return hg_arena_printf(arena, "methodMapping %s looks like another app's: it has no "
				       "class in %s, the package of %s, and %s of the report's %zu "
				       "method ids %s in it (shown as #<id>)", name, fit->package,
				       fit->app, how_many(fit, buf), fit->ids,
				       fit->missing == fit->ids ? "is" : "are not");
	}
	return hg_arena_printf(arena, "methodMapping %s looks like another app's: %s of the %zu "
			       "method ids of %s %s in it (shown as #<id>)", name, how_many(fit, buf),
			       fit->ids, fit->app ? fit->app : "the report",
			       fit->missing == fit->ids ? "is" : "are not");
}
