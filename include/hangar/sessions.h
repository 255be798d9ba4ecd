/* Sessions files: how many sessions each app version had (per UTC day, or
 * over the whole period), the denominators of the rates top, show, diff
 * and the digest give (reports per 1,000 sessions).  A CSV file with a
 * header line, version,sessions or version,day,sessions (hangar-formats(5),
 * SESSIONS FILES); read here, then asked which of its rows a query covers
 * and which reports count against them. */
#ifndef HANGAR_SESSIONS_H
#define HANGAR_SESSIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hangar.h"

typedef struct hg_sessions hg_sessions;

/* The most sessions one row may give: 2^53, the largest integer a JSON
 * number (a double) holds exactly. */
#define HG_SESSIONS_MAX ((int64_t)1 << 53)

/* Reads a sessions file's text, text[0..len) (need not be NUL-terminated;
 * name is what diagnostics call it, borrowed).  The first problem is said
 * through ctx as "name:line:col: error: what" (a bad number, a negative or
 * one over 2^53, a bad day, a duplicate version/day row, a missing or
 * unknown column, an unclosed quote...) and gives HG_EPARSE; nothing is
 * made then.  0 with *out (caller owns it: hg_sessions_destroy), or
 * HG_EPARSE, HG_ENOMEM. */
int hg_sessions_parse(const hg_ctx *ctx, const char *name, const char *text, size_t len,
		      hg_sessions **out);

/* hg_sessions_parse of the file at path (hg_input_read: "-" is stdin, the
 * context's size cap applies).  0, or HG_EIO / HG_ELIMIT / HG_EPARSE /
 * HG_ENOMEM after a diagnostic naming path. */
int hg_sessions_read(const hg_ctx *ctx, const char *path, hg_sessions **out);

/* Accepts NULL. */
void hg_sessions_destroy(hg_sessions *s);

/* Whether the header has a day column. */
bool hg_sessions_has_days(const hg_sessions *s);

/* What a rate is taken over: the reports of one app version (NULL: every
 * version the file names) in a time window (the store's time form,
 * hg_store_time; NULL: open at that end).  A row with a day is in the
 * scope when the window holds that whole UTC day (since <= its midnight,
 * and the next midnight <= until); a row without a day (a file without
 * the day column, or an empty day) gives a version's sessions over the
 * whole period, and is in any window. */
typedef struct hg_sessions_scope {
	const char *version;
	const char *since, *until;
} hg_sessions_scope;

/* The sessions of the rows in scope, summed; -1 when no row is (the file
 * says nothing of those versions and days).  scope NULL: every row. */
int64_t hg_sessions_total(const hg_sessions *s, const hg_sessions_scope *scope);

/* Whether a report of version (NULL: unknown) at time (the store's form;
 * NULL: unknown) counts in a rate over scope: its version has a row in
 * the scope without a day, or the row of the report's UTC day.  A report
 * of a version or a day the file does not give counts in no rate (nor do
 * its version's sessions in the denominator).  scope NULL: every row. */
bool hg_sessions_counts(const hg_sessions *s, const hg_sessions_scope *scope, const char *version,
			const char *time);

/* Each version the file names, in the order it first appears, with its
 * sessions over every row (borrowed, valid during the call).  fn returning
 * non-zero stops with that value. */
typedef int (*hg_sessions_version_fn)(void *user, const char *version, int64_t sessions);
int hg_sessions_versions(const hg_sessions *s, hg_sessions_version_fn fn, void *user);

/* reports per 1,000 sessions; -1 (unknown) when sessions <= 0. */
double hg_rate_per_1k(int64_t reports, int64_t sessions);

#endif
