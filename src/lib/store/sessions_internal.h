/* A sessions file as read (sessions.c) and asked (sessions_scope.c):
 * its versions in file order, each with a row without a day or its rows
 * of days, sorted by day. */
#ifndef HANGAR_STORE_SESSIONS_INTERNAL_H
#define HANGAR_STORE_SESSIONS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/core.h"
#include "hangar/sessions.h"

/* One row with a day: the day, its first and the next day's first
 * millisecond in the store's time form (what windows are compared with),
 * and its sessions. */
struct sess_day {
	char day[11];               /* "2026-11-29" */
	char start[25], end[25];    /* "2026-11-29T00:00:00.000Z", "2026-11-30T00:00:00.000Z" */
	int64_t sessions;
};

struct sess_version {
	const char *version;        /* in the arena */
	long whole_line;            /* > 0: the line of its row without a day */
	int64_t whole;              /* that row's sessions */
	struct sess_day *days;      /* sorted by day (once read) */
	size_t n_days, cap_days;
	long first_day_line;        /* the line of its first row with a day */
	int64_t total;              /* every row's sessions */
};

struct hg_sessions {
	struct hg_arena *arena;
	bool has_days;
	struct sess_version *versions;
	size_t n_versions;
	strmap index;               /* version -> its index in versions */
};

/* Reads "YYYY-MM-DD" (10 bytes at s, a real date) into d's day, start and
 * end; false when it is not one. */
bool sess_day_read(const char *s, struct sess_day *d);

/* a + b, at most INT64_MAX (sessions are each at most 2^53, so a sum
 * overflows only past a thousand rows of them). */
static inline int64_t sess_add(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

#endif
