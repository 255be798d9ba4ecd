/* Logcat lines, as report_logcat.c reads them (private; the lines
 * themselves in report_logcat_lines.c). */
#ifndef HANGAR_LIB_REPORT_LOGCAT_INTERNAL_H
#define HANGAR_LIB_REPORT_LOGCAT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

struct lc_str {
	const char *s;
	size_t len;
};

/* One line of a log, its prefix taken apart.  The forms (logcat -v ...):
 *   03-24 11:45:56.097  2479  2510 E ActivityManager: ANR in ...   threadtime
 *   2024-03-24 11:45:56.097  2479  2510 E ActivityManager: ...     threadtime, year
 *   03-24 11:45:56.097 E/ActivityManager( 2479): ...               time
 *   E/ActivityManager( 2479): ...                                  brief
 *   E/ActivityManager: ...  and  E ActivityManager: ...            tag, pasted
 *   02-02 15:08:30.600 369-392/? E/ActivityManager: ...            Android Studio
 *   2025-05-12 14:05:25.134  3839-3865  ActivityManager  system_server  E  ...
 *                                                                  Android Studio, newer
 * A line with none of them is all message (a pasted dump, a block's
 * continuation lines in Android Studio). */
struct lc_line {
	struct lc_str line;     /* the whole line, without its CR */
	struct lc_str msg;      /* after the prefix (one blank after "TAG:" dropped) */
	struct lc_str time;     /* "03-24 11:45:56.097"; empty without one */
	struct lc_str tag;      /* "ActivityManager"; empty without a prefix */
	long pid, tid;          /* -1 when not said */
	char level;             /* 'E'; 0 without a prefix */
	bool prefixed;
};

/* Takes apart line s[0..n) (no newline). */
void lc_parse(const char *s, size_t n, struct lc_line *out);

/* Whether two prefixed lines come from the same writer (tag and pid). */
bool lc_same_source(const struct lc_line *a, const struct lc_line *b);

/* The message trimmed of blanks. */
struct lc_str lc_trim(struct lc_str s);
bool lc_starts(struct lc_str s, const char *prefix);
bool lc_tag_is(const struct lc_line *l, const char *tag);

/* ActivityManager's first line of an ANR block ("ANR in com.app (...)"),
 * an am_anr event ("[0,12345,com.app,952745540,Input dispatching ...]"). */
bool lc_is_anr_in(const struct lc_line *l);
bool lc_is_am_anr(const struct lc_line *l);
/* A line that starts an ART dump: "----- pid N at", "Subject:", "Cmd line:",
 * "DALVIK THREADS", xCrash's "*** *** ***", a thread header. */
bool lc_starts_dump(const struct lc_line *l);

/* "[0,12345,com.app,952745540,reason]" (also the older form without the
 * user): its pid, process and reason; false when it is cut or not one.
 * *cut: the closing ']' is missing. */
struct lc_am_anr {
	long pid;
	struct lc_str process, reason;
	bool cut;
};
bool lc_read_am_anr(struct lc_str msg, struct lc_am_anr *out);

/* The decimal number at the start of s (at most 18 digits): -1 when none,
 * -2 when it has more digits. */
long lc_number(struct lc_str s);

#endif
