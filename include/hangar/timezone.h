/* The zone of report times written without one (--timezone).
 *
 * A custom APM report writes "time": "2021-07-27 15:57:15", the phone's
 * local clock with no zone.  hg_ctx.zone says which zone such a time is in;
 * it is read into the store's UTC form (report_time.h) and the run says
 * once, as a note, in which zone zone-less times were read. */
#ifndef HANGAR_TIMEZONE_H
#define HANGAR_TIMEZONE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct hg_timezone {
	char name[64];          /* as given: "UTC", "+08:00", "-0530", "Asia/Shanghai" */
	bool named;             /* an IANA name, read through the C library (below) */
	int64_t offset_ms;      /* not named: the fixed offset, east of UTC positive */
	const char *who;        /* who says the note ("hangar stack"); borrowed; NULL: "hangar" */
	atomic_int noted;       /* the note was said (by whichever reader came first) */
} hg_timezone;

/* Fills tz from spec: "UTC" (also "Z", "GMT"), a fixed offset "+HH",
 * "+HHMM" or "+HH:MM" ('-' alike, at most 14 hours), or an IANA name
 * ("Asia/Shanghai") that the C library's tz database has (a TZif file
 * under $TZDIR, else /usr/share/zoneinfo: Debian's tzdata).  A name is read
 * with mktime under TZ, so that a zone with daylight saving time gets each
 * date's own offset: this sets the process's TZ (setenv, tzset), which
 * nothing else in hangar reads.  Call it before other threads start; one
 * named zone a process.  0, or HG_EINVAL with why saying what is wrong
 * ("unknown time zone ..."). */
int hg_timezone_init(hg_timezone *tz, const char *spec, char *why, size_t why_size);

#endif
