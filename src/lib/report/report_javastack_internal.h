/* What the Java stack reader shares (private): report_javastack.c (the
 * reader loop), report_javastack_headers.c (the lines that are no frames)
 * and report_javastack_frames.c (a frame, and Matrix's threadStack). */
#ifndef HANGAR_LIB_REPORT_JAVASTACK_INTERNAL_H
#define HANGAR_LIB_REPORT_JAVASTACK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "report_internal.h"
#include "report_lines.h"
#include "core/core.h"

#define UNNAMED "(unnamed)"
#define HANDLED 1 /* a line handler took the line */

/* One Java stack dump being read. */
struct js {
	const hg_ctx *ctx;
	hg_report *rep;
	struct read_error *err;
	long cur;                  /* the thread receiving frames; -1: the next frame starts one */
	const char *next_name;     /* what the thread the next frame starts is called */
	bool next_is_cause;        /* ... and it is an exception's cause, not a thread */
	const char *owner;         /* the thread whose exception chain is being read */
	bool xcrash, ignoring;     /* an xCrash tombstone; in one of its non-Java sections */
	bool anr;
	bool crash;                /* a crash dump: xCrash's "Crash type: 'java'", FATAL EXCEPTION */
	const char *chain_owner;   /* the thread whose exception the report is about */
	long exc_pending;          /* the exception whose thread the next frame starts; -1 */
	const char *start_time;    /* xCrash's Start time: the report's time without a Crash time */
	size_t frames;
	size_t skipped;
	long first_skipped;
	char first_skipped_text[64];
	size_t elided_lines;
	long elided_frames, first_elided, first_elided_n;
	const char *first_elided_thread;
	struct strcache names;     /* the frames' strings, past REPORT_CACHE_AFTER frames */
};

/* ---- words ---- */

static inline bool starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && memcmp(s, prefix, k) == 0;
}

static inline bool ends(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

static inline const char *find(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++)
		if (s[i] == needle[0] && memcmp(s + i, needle, k) == 0)
			return s + i;
	return NULL;
}

/* A decimal number at s[0..n) (leading digits only); -1 when none. */
static inline long number(const char *s, size_t n)
{
	long v = 0;
	size_t i = 0;
	for (; i < n && is_digit(s[i]) && v < 100000000; i++)
		v = v * 10 + (s[i] - '0');
	return i > 0 ? v : -1;
}

/* s[0..n) when it is all digits (at most 9), else -1. */
static inline long whole_number(const char *s, size_t n)
{
	if (n == 0 || n > 9)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!is_digit(s[i]))
			return -1;
	return number(s, n);
}

/* ---- the reader's threads (report_javastack.c) ---- */

/* The thread receiving frames, or NULL. */
static inline hg_thread *js_current(struct js *j)
{
	return j->cur >= 0 ? &j->rep->threads.items[j->cur] : NULL;
}

/* A thread that a header names; the frames that follow are its.  NULL on
 * ENOMEM. */
hg_thread *js_start_thread(struct js *j, const char *name);

/* Records "X: message" (s[0..n)) as the next exception of the report's
 * chain: the first of the report, or a cause of it (`cause`).  HANDLED or
 * HG_ENOMEM. */
int js_add_exception(struct js *j, const char *s, size_t n, bool cause);

/* ---- headers (report_javastack_headers.c) ---- */

/* xCrash's section separators, "--- --- ---" and "+++ +++ +++". */
bool js_is_separator(const struct line *ln);

/* A line that is no frame: "... N more", and unless it begins with "at "
 * (`at`), a thread, exception or process header, a lock line or one of
 * xCrash's tombstone.  HANDLED, 0 when it is none of them, or an error. */
int js_recognise_line(struct js *j, const struct line *ln, bool at);

/* ---- frames (report_javastack_frames.c) ---- */

/* A Java frame, "at a.b.C.m(C.java:12)" or Matrix's "at a.b.C:m(12)";
 * s[0..n) is trimmed, the strings go to arena (through names, of the same
 * arena, when not NULL: see frame_parse_java_cached).  0, HG_EPARSE or
 * HG_ENOMEM. */
int js_parse_frame(const char *s, size_t n, hg_arena *arena, struct strcache *names,
		   hg_frame *out);

#endif
