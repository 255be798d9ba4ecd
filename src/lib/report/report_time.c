/* Report times to the store's form (see report_time.h): a small scanner
 * over the one shape all the dated forms share, and calendar arithmetic on
 * Unix milliseconds, so that a zone offset moves the date across midnight,
 * a month's end or a year's as it should. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hangar/hangar.h"
#include "hangar/timezone.h"
#include "report_time.h"

#define MS_PER_DAY 86400000LL
/* 0000-01-01 and 10000-01-01 in Unix ms: the store's form has four year
 * digits. */
#define MIN_MS (-62167219200000LL)
#define MAX_MS 253402300800000LL
/* The widest zone offset in use (UTC+14, Line Islands). */
#define MAX_ZONE_MS (14 * 3600000LL)

struct scan {
	const char *s, *end;
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Exactly `width` digits, or -1 (nothing consumed). */
static int fixed_digits(struct scan *sc, int width)
{
	if (sc->end - sc->s < width)
		return -1;
	int v = 0;
	for (int i = 0; i < width; i++) {
		if (!is_digit(sc->s[i]))
			return -1;
		v = v * 10 + (sc->s[i] - '0');
	}
	sc->s += width;
	return v;
}

static bool take(struct scan *sc, char c)
{
	if (sc->s < sc->end && *sc->s == c) {
		sc->s++;
		return true;
	}
	return false;
}

static bool is_leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int month_days(int64_t year, int month)
{
	static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	return month == 2 && is_leap(year) ? 29 : days[month - 1];
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
 * days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* Unix ms to year, month, day, hour, minute, second, ms (H. Hinnant's
 * civil_from_days). */
static void civil_from_ms(int64_t ms, int64_t fields[7])
{
	int64_t days = ms / MS_PER_DAY, rest = ms % MS_PER_DAY;
	if (rest < 0) {
		rest += MS_PER_DAY;
		days--;
	}
	int64_t z = days + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	fields[0] = yoe + era * 400 + (mp >= 10);
	fields[1] = mp < 10 ? mp + 3 : mp - 9;
	fields[2] = doy - (153 * mp + 2) / 5 + 1;
	fields[3] = rest / 3600000;
	fields[4] = rest / 60000 % 60;
	fields[5] = rest / 1000 % 60;
	fields[6] = rest % 1000;
}

/* Unix ms to "YYYY-MM-DDTHH:MM:SS.mmmZ", digit by digit, not snprintf:
 * the store writes two of these per report. */
void report_time_format_ms(int64_t ms, char out[REPORT_TIME_SIZE])
{
	int64_t fields[7];
	civil_from_ms(ms, fields);
	static const int width[7] = {4, 2, 2, 2, 2, 2, 3};
	static const char after[7] = {'-', '-', 'T', ':', ':', '.', 'Z'};
	char *o = out;
	for (int f = 0; f < 7; f++) {
		int64_t v = fields[f];
		for (int d = width[f] - 1; d >= 0; d--, v /= 10)
			o[d] = (char)('0' + v % 10);
		o += width[f];
		*o++ = after[f];
	}
	*o = '\0';
}

static int fail(char out[REPORT_TIME_SIZE], const char **why, const char *what)
{
	out[0] = '\0';
	*why = what;
	return -1;
}

static int finish(int64_t ms, char out[REPORT_TIME_SIZE], const char **why)
{
	if (ms < MIN_MS || ms >= MAX_MS)
		return fail(out, why, "the time falls outside the years 0000 to 9999");
	report_time_format_ms(ms, out);
	return 0;
}

/* Digits (and a fraction of seconds): Unix time by its length. */
static int epoch(struct scan *sc, char out[REPORT_TIME_SIZE], const char **why)
{
	const char *start = sc->s;
	while (sc->s < sc->end && is_digit(*sc->s))
		sc->s++;
	size_t n = (size_t)(sc->s - start);
	int64_t frac_ms = 0;
	if (take(sc, '.')) {
		if (n > 11)
			return fail(out, why, "a fraction after more than 11 epoch digits");
		int scale = 100, digits = 0;
		for (; sc->s < sc->end && is_digit(*sc->s); sc->s++, digits++, scale /= 10)
			frac_ms += scale > 0 ? (*sc->s - '0') * scale : 0;
		if (digits == 0)
			return fail(out, why, "no digits after the decimal point");
	}
	if (sc->s != sc->end)
		return fail(out, why, "epoch digits followed by other text");
	if (n > 19)
		return fail(out, why, "too many epoch digits");
	int64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		if (v > (INT64_MAX - 9) / 10)
			return fail(out, why, "too many epoch digits");
		v = v * 10 + (start[i] - '0');
	}
	/* Rounded to the nearest millisecond, as SQLite's strftime does. */
	int64_t ms = n <= 11 ? v * 1000 + frac_ms : n <= 14 ? v : n <= 17 ? (v + 500) / 1000
								    : (v + 500000) / 1000000;
	return finish(ms, out, why);
}

/* "Z", "+HH", "+HHMM", "+HH:MM" or "-" alike, into *offset_ms (east
 * positive); nothing at all is no zone (*given false). */
static int zone(struct scan *sc, int64_t *offset_ms, bool *given, const char **why)
{
	*offset_ms = 0;
	*given = sc->s != sc->end;
	if (sc->s == sc->end || take(sc, 'Z') || take(sc, 'z'))
		return 0;
	if (sc->end - sc->s == 3 && (!memcmp(sc->s, "UTC", 3) || !memcmp(sc->s, "GMT", 3))) {
		sc->s += 3;
		return 0;
	}
	int sign = *sc->s == '+' ? 1 : *sc->s == '-' ? -1 : 0;
	if (!sign) {
		*why = "unexpected text after the time (expected a zone: Z, +HHMM or +HH:MM)";
		return -1;
	}
	sc->s++;
	int hh = fixed_digits(sc, 2), mm = 0;
	if (hh < 0) {
		*why = "a zone offset needs two digits of hours (+HH, +HHMM or +HH:MM)";
		return -1;
	}
	if (sc->s < sc->end) {
		bool colon = take(sc, ':');
		mm = fixed_digits(sc, 2);
		if (mm < 0) {
			*why = colon ? "a zone offset cut short after its colon"
				     : "a zone offset needs two digits of minutes (+HHMM)";
			return -1;
		}
	}
	if (hh > 14 || mm > 59 || (hh == 14 && mm > 0)) {
		*why = "zone offset out of range (-14:00 to +14:00)";
		return -1;
	}
	*offset_ms = sign * (hh * 3600000LL + mm * 60000LL);
	return 0;
}

/* HH:MM[:SS[.f...]] into ms of the day. */
static int time_of_day(struct scan *sc, int64_t *ms, const char **why)
{
	int hh = fixed_digits(sc, 2), mi = -1, ss = 0, frac = 0;
	if (hh >= 0 && take(sc, ':'))
		mi = fixed_digits(sc, 2);
	if (hh < 0 || mi < 0) {
		*why = "a time of day needs HH:MM";
		return -1;
	}
	if (take(sc, ':') && (ss = fixed_digits(sc, 2)) < 0) {
		*why = "seconds need two digits";
		return -1;
	}
	if (sc->s < sc->end && (*sc->s == '.' || *sc->s == ',')) {
		sc->s++;
		int digits = 0, scale = 100;
		for (; sc->s < sc->end && is_digit(*sc->s); sc->s++, digits++, scale /= 10)
			frac += scale > 0 ? (*sc->s - '0') * scale : 0;
		if (digits == 0 || digits > 9) {
			*why = "a fraction of seconds needs 1 to 9 digits";
			return -1;
		}
	}
	if (hh > 23) {
		*why = "hour out of range (00 to 23)";
		return -1;
	}
	if (mi > 59 || ss > 59) {
		*why = mi > 59 ? "minute out of range (00 to 59)" : "second out of range (00 to 59)";
		return -1;
	}
	*ms = hh * 3600000LL + mi * 60000LL + ss * 1000LL + frac;
	return 0;
}

/* A month and day, checked against the year's calendar. */
static const char *bad_date(int64_t year, int month, int day)
{
	if (month < 1 || month > 12)
		return "month out of range (01 to 12)";
	if (day < 1 || day > month_days(year, month))
		return month == 2 && day == 29 ? "February 29 in a year that is not a leap year"
					       : "day out of range for its month";
	return NULL;
}

/* A local time (Unix ms read as if it were UTC) in tz to UTC: a fixed
 * offset, or mktime under TZ (hg_timezone_init set it), which gives each
 * date its own offset (daylight saving time; a time the clocks skipped is
 * moved on, one they passed twice is taken as mktime takes it). */
static int local_to_utc(const hg_timezone *tz, int64_t local, int64_t *utc, const char **why)
{
	if (!tz->named) {
		*utc = local - tz->offset_ms;
		return 0;
	}
	int64_t f[7];
	civil_from_ms(local, f);
	struct tm tm = {.tm_year = (int)(f[0] - 1900), .tm_mon = (int)f[1] - 1,
			.tm_mday = (int)f[2], .tm_hour = (int)f[3], .tm_min = (int)f[4],
			.tm_sec = (int)f[5], .tm_isdst = -1};
	errno = 0;
	time_t t = mktime(&tm);
	if (t == (time_t)-1 && errno != 0) {
		*why = "the C library cannot place the time in its zone";
		return -1;
	}
	*utc = (int64_t)t * 1000 + f[6];
	return 0;
}

/* After the date: the time of day, if any, and the zone; the Unix ms.  A
 * time without a zone is in tz (NULL: UTC), and *zoneless says so. */
static int rest_of_time(struct scan *sc, int64_t year, int month, int day, const hg_timezone *tz,
			bool *zoneless, char out[REPORT_TIME_SIZE], const char **why)
{
	int64_t day_ms = 0, offset = 0;
	bool given = false;
	if (sc->s < sc->end && (*sc->s == 'T' || *sc->s == ' ')) {
		sc->s++;
		if (time_of_day(sc, &day_ms, why) != 0)
			return fail(out, why, *why);
		take(sc, ' ');
		if (zone(sc, &offset, &given, why) != 0)
			return fail(out, why, *why);
	} else if (sc->s != sc->end) {
		return fail(out, why, "unexpected text after the date");
	}
	if (sc->s != sc->end)
		return fail(out, why, "unexpected text after the zone");
	const char *bad = bad_date(year, month, day);
	if (bad)
		return fail(out, why, bad);
	int64_t ms = days_from_civil(year, month, day) * MS_PER_DAY + day_ms - offset;
	*zoneless = !given;
	/* Past the years 0000 to 9999 already: no zone brings it back. */
	if (!given && tz && ms >= MIN_MS && ms < MAX_MS && local_to_utc(tz, ms, &ms, why) != 0)
		return fail(out, why, *why);
	return finish(ms, out, why);
}

static void trim(const char **s, size_t *n)
{
	while (*n > 0 && (**s == ' ' || **s == '\t'))
		(*s)++, (*n)--;
	while (*n > 0 && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t' || (*s)[*n - 1] == '\r'))
		(*n)--;
}

int report_time_parse(const char *s, size_t n, char out[REPORT_TIME_SIZE], const char **why)
{
	return report_time_parse_in(s, n, NULL, out, why, NULL);
}

int report_time_parse_in(const char *s, size_t n, const hg_timezone *tz,
			 char out[REPORT_TIME_SIZE], const char **why, bool *zoneless)
{
	bool no_zone = false;
	if (!zoneless)
		zoneless = &no_zone;
	*zoneless = false;
	trim(&s, &n);
	struct scan sc = {s, s + n};
	if (n == 0)
		return fail(out, why, "an empty time");
	size_t lead = 0;
	while (lead < n && is_digit(s[lead]))
		lead++;
	if (lead == n || lead > 4 || (lead > 0 && lead != 4 && s[lead] == '.'))
		return epoch(&sc, out, why);
	int year = fixed_digits(&sc, 4), month = -1, day = -1;
	if (year >= 0 && take(&sc, '-'))
		month = fixed_digits(&sc, 2);
	if (month >= 0 && take(&sc, '-'))
		day = fixed_digits(&sc, 2);
	if (day < 0) {
		if (lead == 2 && n > 2 && s[2] == '-')
			return fail(out, why, "a date without its year (MM-DD)");
		return fail(out, why, lead == 0 ? "not a time (expected YYYY-MM-DD HH:MM:SS, "
						  "ISO 8601 or epoch digits)"
						: "a date needs YYYY-MM-DD");
	}
	return rest_of_time(&sc, year, month, day, tz, zoneless, out, why);
}

int report_time_yearless(const char *s, size_t n, int64_t ref_ms, char out[REPORT_TIME_SIZE],
			 const char **why)
{
	trim(&s, &n);
	struct scan sc = {s, s + n};
	int month = fixed_digits(&sc, 2), day = -1;
	if (month >= 0 && take(&sc, '-'))
		day = fixed_digits(&sc, 2);
	if (day < 0 || sc.s == sc.end || *sc.s != ' ')
		return fail(out, why, "a time without its year needs MM-DD HH:MM:SS");
	if (ref_ms < MIN_MS + 366 * 8 * MS_PER_DAY || ref_ms >= MAX_MS - MAX_ZONE_MS)
		return fail(out, why, "no year to place the time in");
	const char *bad = bad_date(2000, month, day); /* 2000: a leap year */
	if (bad)
		return fail(out, why, bad);
	/* The year of the latest moment allowed, then back while the date
	 * would be past it or is not in that year's calendar (02-29). */
	char latest[REPORT_TIME_SIZE];
	int64_t limit = ref_ms + MAX_ZONE_MS;
	report_time_format_ms(limit, latest);
	int64_t year = (latest[0] - '0') * 1000 + (latest[1] - '0') * 100 + (latest[2] - '0') * 10 +
		       (latest[3] - '0');
	const char *after_date = sc.s;
	for (int tries = 0; tries < 9; tries++, year--) {
		sc.s = after_date;
		if (bad_date(year, month, day))
			continue;
		char t[REPORT_TIME_SIZE];
		bool zoneless;
		if (rest_of_time(&sc, year, month, day, NULL, &zoneless, t, why) != 0)
			return fail(out, why, *why);
		int64_t ms;
		if (report_time_unix_ms(t, &ms) && ms <= limit) {
			memcpy(out, t, REPORT_TIME_SIZE);
			return 0;
		}
	}
	return fail(out, why, "no year to place the time in");
}

bool report_time_unix_ms(const char *t, int64_t *ms)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:dd.dddZ";
	if (!t || strlen(t) != sizeof shape - 1)
		return false;
	for (size_t i = 0; i < sizeof shape - 1; i++)
		if (shape[i] == 'd' ? !is_digit(t[i]) : t[i] != shape[i])
			return false;
	struct scan sc = {t, t + sizeof shape - 1};
	int year = fixed_digits(&sc, 4);
	sc.s++;
	int month = fixed_digits(&sc, 2);
	sc.s++;
	int day = fixed_digits(&sc, 2);
	if (bad_date(year, month, day))
		return false;
	sc.s++;
	int64_t day_ms;
	const char *why;
	struct scan rest = {sc.s, sc.s + 12}; /* "HH:MM:SS.mmm" */
	if (time_of_day(&rest, &day_ms, &why) != 0)
		return false;
	*ms = days_from_civil(year, month, day) * MS_PER_DAY + day_ms;
	return true;
}

/* ---- the zone of zone-less times (hangar/timezone.h) ---- */

/* Whether name can be an IANA zone name: letters, digits, '_', '+', '-'
 * in segments split by '/', none empty or starting with '.' (so never
 * absolute, never "..").  "Etc/GMT+8", "America/Port-au-Prince". */
static bool zone_name_ok(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n > 60 || name[0] == '/' || name[n - 1] == '/')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		bool seg_start = i == 0 || name[i - 1] == '/';
		if ((seg_start && (c == '.' || c == '/')) ||
		    !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' ||
		      c == '+' || c == '-' || c == '/' || c == '.'))
			return false;
	}
	return true;
}

/* Whether the tz database has name: a regular file that starts "TZif".
 * glibc takes an unknown TZ for UTC without a word, so it is checked. */
static bool zone_file_ok(const char *name, char *why, size_t why_size)
{
	const char *dir = getenv("TZDIR");
	if (!dir || !*dir)
		dir = "/usr/share/zoneinfo";
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	char magic[4] = "";
	bool ok = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		  read(fd, magic, 4) == 4 && memcmp(magic, "TZif", 4) == 0;
	if (fd >= 0)
		close(fd);
	if (!ok) {
		struct stat d;
		bool have_db = stat(dir, &d) == 0 && S_ISDIR(d.st_mode);
		snprintf(why, why_size, "unknown time zone \"%s\": %s", name,
			 have_db ? "not in the tz database (e.g. Asia/Shanghai, or +08:00)"
				 : "no tz database here (Debian's tzdata package installs it; "
				   "or give an offset such as +08:00)");
	}
	return ok;
}

int hg_timezone_init(hg_timezone *tz, const char *spec, char *why, size_t why_size)
{
	*tz = (hg_timezone){0};
	atomic_init(&tz->noted, 0);
	if (!spec || !*spec || strlen(spec) >= sizeof tz->name) {
		snprintf(why, why_size, "a time zone must be UTC, an offset such as +08:00 or -0530, "
			 "or an IANA name such as Asia/Shanghai");
		return HG_EINVAL;
	}
	snprintf(tz->name, sizeof tz->name, "%s", spec);
	if (!strcmp(spec, "UTC") || !strcmp(spec, "utc") || !strcmp(spec, "Z") ||
	    !strcmp(spec, "GMT"))
		return 0;
	if (spec[0] == '+' || spec[0] == '-') {
		struct scan sc = {spec, spec + strlen(spec)};
		const char *what = "";
		bool given;
		bool bad = zone(&sc, &tz->offset_ms, &given, &what) != 0;
		if (bad || sc.s != sc.end) {
			snprintf(why, why_size, "time zone \"%s\": %s", spec,
				 bad ? what : "unexpected text after the offset (+HH, +HHMM or +HH:MM)");
			return HG_EINVAL;
		}
		return 0;
	}
	if (!zone_name_ok(spec)) {
		snprintf(why, why_size, "unknown time zone \"%s\": expected UTC, an offset such as "
			 "+08:00, or an IANA name such as Asia/Shanghai", spec);
		return HG_EINVAL;
	}
	if (!zone_file_ok(spec, why, why_size))
		return HG_EINVAL;
	tz->named = true;
	if (setenv("TZ", spec, 1) != 0) {
		snprintf(why, why_size, "time zone \"%s\": cannot set TZ", spec);
		return HG_EINVAL;
	}
	tzset();
	return 0;
}
