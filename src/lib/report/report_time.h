/* Report times as the inputs write them, to the store's one form: UTC ISO
 * 8601 with milliseconds, "2023-04-04T20:06:31.064Z", which sorts as text
 * and which store_time.c's fast path takes as it is.  The readers' forms:
 *
 *   2023-04-04 22:06:31.064728684+0200     ART "----- pid N at ... -----"
 *   2019-10-12T03:25:25.645+0800           xCrash Start time / Crash time
 *   2021-12-28T09:45:53Z                   KSCrash, SentryCrash
 *   2023-01-27 14:44:00 +0100              MetricKit timeStampBegin / End
 *   1707821024474, 1765315753629383        epoch s / ms / us / ns by length
 *   10-29 10:32:12.601                     BlockCanary: no year (below)
 *
 * A date may be followed by 'T' or a blank and a time of day (HH:MM,
 * HH:MM:SS, and a fraction of 1 to 9 digits, cut to milliseconds); a zone
 * is Z, +HH, +HHMM or +HH:MM (or -), after the time or a blank; a time with
 * no zone is taken as UTC, as the store always has (report_time_parse_in:
 * in the zone given, --timezone).  Epoch digits are
 * divided as STORE_TIME_SQL divides them (up to 11 digits seconds, 14 ms,
 * 17 us, else ns); seconds may carry a fraction ("1481727207.25"). */
#ifndef HANGAR_REPORT_TIME_H
#define HANGAR_REPORT_TIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The size of a time in the store's form, with its NUL and room to spare. */
#define REPORT_TIME_SIZE 32

/* Reads the n bytes at s (blanks around them are ignored) into out.
 * 0, or -1 with out "" and *why (static text) saying what is wrong: a field
 * out of range ("month 13"), a day the month does not have, text that is no
 * time, a time cut short. */
int report_time_parse(const char *s, size_t n, char out[REPORT_TIME_SIZE], const char **why);

struct hg_timezone;

/* The same, but a time written without a zone (a date, with or without its
 * time of day; not epoch digits) is in tz (hangar/timezone.h; NULL: UTC),
 * and *zoneless (NULL: not wanted) says whether it was one. */
int report_time_parse_in(const char *s, size_t n, const struct hg_timezone *tz,
			 char out[REPORT_TIME_SIZE], const char **why, bool *zoneless);

/* A time written without its year, "MM-DD HH:MM:SS[.fff]" (BlockCanary's
 * TIME_FORMATTER), taken as UTC in the latest year that puts it at or
 * before ref_ms (Unix ms: when the log says it was written, or the file's
 * time) plus 14 hours, the widest zone offset: the log's clock was local and
 * its zone is not written, so a time up to 14 hours past ref_ms may still
 * be before it.  A December log read in January lands in December of the
 * year before; 02-29 lands in the latest leap year.  0, or -1 as above. */
int report_time_yearless(const char *s, size_t n, int64_t ref_ms, char out[REPORT_TIME_SIZE],
			 const char **why);

/* Unix milliseconds (from year 0 to 9999) in the store's form,
 * "YYYY-MM-DDTHH:MM:SS.mmmZ". */
void report_time_format_ms(int64_t ms, char out[REPORT_TIME_SIZE]);

/* Unix milliseconds of a time in the store's form (as report_time_parse
 * writes it): false when text is not one. */
bool report_time_unix_ms(const char *text, int64_t *ms);

#endif
