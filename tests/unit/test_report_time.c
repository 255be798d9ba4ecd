/* The report-time converter (report_time.c): every form the readers meet,
 * the bad ones with the reason given, year-less times around New Year, and
 * a differential test against SQLite's strftime on the forms both read
 * (ISO 8601 with a "+HH:MM" zone), over random dates and offsets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "hangar/hangar.h"
#include "hangar/timezone.h"
#include "store/db.h"
#include "report/report_time.h"

static void want(const char *text, const char *expected)
{
	char out[REPORT_TIME_SIZE];
	const char *why = "";
	int rc = report_time_parse(text, strlen(text), out, &why);
	if (rc != 0)
		fail_msg("\"%s\": %s", text, why);
	if (strcmp(out, expected) != 0)
		fail_msg("\"%s\": want %s, got %s", text, expected, out);
}

static void refused(const char *text, const char *reason)
{
	char out[REPORT_TIME_SIZE];
	const char *why = "";
	if (report_time_parse(text, strlen(text), out, &why) == 0)
		fail_msg("\"%s\" read as %s", text, out);
	assert_string_equal(out, "");
	if (!strstr(why, reason))
		fail_msg("\"%s\": why \"%s\" does not say \"%s\"", text, why, reason);
}

/* The forms of the real corpus (testdata/anr, java-stacks, kscrash). */
static void test_reader_forms(void **state)
{
	(void)state;
	/* ART "----- pid N at ... -----": nine fraction digits, cut to ms */
	want("2023-04-04 22:06:31.064728684+0200", "2023-04-04T20:06:31.064Z");
	want("2024-11-13 19:48:09.980104540+0530", "2024-11-13T14:18:09.980Z");
	want("2025-03-27 21:02:38", "2025-03-27T21:02:38.000Z"); /* no zone: UTC */
	/* xCrash */
	want("2019-10-12T03:25:25.645+0800", "2019-10-11T19:25:25.645Z");
	/* KSCrash, SentryCrash: ISO and epoch */
	want("2021-12-28T09:45:53Z", "2021-12-28T09:45:53.000Z");
	want("1970-01-17T18:49:14Z", "1970-01-17T18:49:14.000Z");
	want("1765315753629383", "2025-12-09T21:29:13.629Z");    /* microseconds */
	want("1765315421500795", "2025-12-09T21:23:41.501Z");    /* rounded */
	want("1481727207", "2016-12-14T14:53:27.000Z");          /* seconds */
	want("1481727207.25", "2016-12-14T14:53:27.250Z");
	/* Matrix milliseconds, and nanoseconds */
	want("1707821024474", "2024-02-13T10:43:44.474Z");
	want("1707821024474123456", "2024-02-13T10:43:44.474Z");
	/* MetricKit timeStampBegin / End: a blank before the zone */
	want("2023-01-27 14:44:00 +0100", "2023-01-27T13:44:00.000Z");
	/* the store's own form is kept as it is */
	want("2024-04-25T00:00:13.443Z", "2024-04-25T00:00:13.443Z");
}

static void test_zones(void **state)
{
	(void)state;
	want("2024-03-01T01:30:00+02:00", "2024-02-29T23:30:00.000Z"); /* back into a leap day */
	want("2023-03-01T01:30:00+0200", "2023-02-28T23:30:00.000Z");
	want("2023-12-31T20:00:00-0500", "2024-01-01T01:00:00.000Z");  /* negative: forward a year */
	want("2023-06-01T12:00:00-03:30", "2023-06-01T15:30:00.000Z");
	want("2023-06-01T12:00:00+05", "2023-06-01T07:00:00.000Z");
	want("2023-06-01T12:00:00z", "2023-06-01T12:00:00.000Z");
	want("2023-06-01 12:00:00 UTC", "2023-06-01T12:00:00.000Z");
	want("2023-06-01T12:00:00+14:00", "2023-05-31T22:00:00.000Z");
	want("  2023-06-01T12:00  ", "2023-06-01T12:00:00.000Z");      /* blanks, no seconds */
	want("2023-06-01", "2023-06-01T00:00:00.000Z");
	want("2023-06-01T12:00:00,5Z", "2023-06-01T12:00:00.500Z");
}

static void test_bad_times(void **state)
{
	(void)state;
	refused("", "empty");
	refused("yesterday", "not a time");
	refused("now", "not a time");
	refused("2023-13-01 00:00:00", "month out of range");
	refused("2023-00-10 00:00:00", "month out of range");
	refused("2023-04-31 00:00:00", "day out of range");
	refused("2023-02-29 00:00:00", "not a leap year");
	refused("1900-02-29 00:00:00", "not a leap year");
	refused("2023-04-04 24:00:00", "hour out of range");
	refused("2023-04-04 23:60:00", "minute out of range");
	refused("2023-04-04 23:59:60", "second out of range");
	refused("2023-04-04 22:06:31.064728684+2500", "zone offset out of range");
	refused("2023-04-04 22:06:31+14:30", "zone offset out of range");
	refused("2023-04-04 22:06:31+02:", "cut short");
	refused("2023-04-04 22:06:31+2", "two digits of hours");
	refused("2023-04-04 22:06:31+020", "two digits of minutes");
	refused("2023-04-04 22:06:31 CEST", "unexpected text after the time");
	refused("2023-04-04 22:06:31.", "1 to 9 digits");
	refused("2023-04-04 22:06:31.0647286841", "1 to 9 digits");
	refused("2023-04-04 22:0", "HH:MM");
	refused("2023-04-04 22", "HH:MM");
	refused("2023-04-", "YYYY-MM-DD");
	refused("2023-4-4 22:06:31", "YYYY-MM-DD");
	refused("2023-04-04x", "after the date");
	refused("10-29 10:32:12.601", "without its year");
	refused("17147x", "epoch digits followed");
	refused("99999999999999999999", "too many epoch digits");
	refused("123456789012.5", "a fraction after more than 11");
	refused("0000-01-01T00:00:00+01:00", "outside the years");
	refused("9999-12-31T23:30:00-01:00", "outside the years");
	want("0000-01-01T00:00:00Z", "0000-01-01T00:00:00.000Z");
	want("9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z");
	want("2000-02-29T12:00:00Z", "2000-02-29T12:00:00.000Z"); /* 2000 was a leap year */
}

static void yearless(const char *text, const char *ref, const char *expected)
{
	int64_t ref_ms;
	assert_true(report_time_unix_ms(ref, &ref_ms));
	char out[REPORT_TIME_SIZE];
	const char *why = "";
	int rc = report_time_yearless(text, strlen(text), ref_ms, out, &why);
	if (!expected) {
		assert_int_equal(rc, -1);
		assert_string_equal(out, "");
		return;
	}
	if (rc != 0)
		fail_msg("\"%s\" by %s: %s", text, ref, why);
	if (strcmp(out, expected) != 0)
		fail_msg("\"%s\" by %s: want %s, got %s", text, ref, expected, out);
}

static void test_yearless(void **state)
{
	(void)state;
	/* the same year when at or before the reference */
	yearless("10-29 10:32:12.601", "2017-10-29T10:32:17.000Z", "2017-10-29T10:32:12.601Z");
	/* a December log read in January: last December, not next */
	yearless("12-31 23:59:59.999", "2024-01-01T00:00:05.000Z", "2023-12-31T23:59:59.999Z");
	yearless("12-01 08:00:00.000", "2024-01-15T00:00:00.000Z", "2023-12-01T08:00:00.000Z");
	/* up to 14 h past the reference is the same year (an unknown zone)... */
	yearless("01-01 13:59:59.999", "2024-01-01T00:00:00.000Z", "2024-01-01T13:59:59.999Z");
	yearless("12-31 13:00:00.000", "2023-12-31T00:00:00.000Z", "2023-12-31T13:00:00.000Z");
	/* ...and later than that the year before */
	yearless("01-01 14:00:00.001", "2024-01-01T00:00:00.000Z", "2023-01-01T14:00:00.001Z");
	/* the reference near New Year's Eve: a time after it that is less
	 * than 14 h ahead is already next year's */
	yearless("01-01 02:00:00.000", "2023-12-31T20:00:00.000Z", "2024-01-01T02:00:00.000Z");
	/* 02-29: the latest leap year */
	yearless("02-29 10:00:00.000", "2023-06-01T00:00:00.000Z", "2020-02-29T10:00:00.000Z");
	yearless("02-29 10:00:00.000", "2024-03-01T00:00:00.000Z", "2024-02-29T10:00:00.000Z");
	yearless("02-29 10:00:00.000", "2100-06-01T00:00:00.000Z", "2096-02-29T10:00:00.000Z");
	/* seconds only, no fraction */
	yearless("06-15 12:00:00", "2023-07-01T00:00:00.000Z", "2023-06-15T12:00:00.000Z");
	/* bad ones */
	yearless("13-01 00:00:00.000", "2023-07-01T00:00:00.000Z", NULL);
	yearless("04-31 00:00:00.000", "2023-07-01T00:00:00.000Z", NULL);
	yearless("06-15 25:00:00.000", "2023-07-01T00:00:00.000Z", NULL);
	yearless("06-15", "2023-07-01T00:00:00.000Z", NULL);
	yearless("2023-06-15 12:00:00", "2023-07-01T00:00:00.000Z", NULL);
	yearless("06-15 12:00:00+0200", "2023-07-01T00:00:00.000Z", "2023-06-15T10:00:00.000Z");
}

static void test_unix_ms(void **state)
{
	(void)state;
	int64_t ms = 0;
	assert_true(report_time_unix_ms("1970-01-01T00:00:00.000Z", &ms));
	assert_int_equal(ms, 0);
	assert_true(report_time_unix_ms("2024-02-13T10:43:44.474Z", &ms));
	assert_int_equal(ms, 1707821024474LL);
	assert_true(report_time_unix_ms("1969-12-31T23:59:59.999Z", &ms));
	assert_int_equal(ms, -1);
	assert_false(report_time_unix_ms("2024-02-13T10:43:44Z", &ms));
	assert_false(report_time_unix_ms("2023-02-29T10:43:44.474Z", &ms));
	assert_false(report_time_unix_ms("2024-02-13T24:43:44.474Z", &ms));
	assert_false(report_time_unix_ms(NULL, &ms));
}

static uint64_t seed = 0x9e3779b97f4a7c15ULL;
static uint64_t next(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

/* Random dates (1000 to 9998, every day of every month), times and zones,
 * written as ISO 8601 with "+HH:MM": the same instant as SQLite's. */
static void test_against_sqlite(void **state)
{
	(void)state;
	hg_db *db = NULL;
	assert_int_equal(db_open(":memory:", 1000, &db), 0);
	hg_db_stmt *st = db_stmt(db, 0, "SELECT strftime('%Y-%m-%dT%H:%M:%fZ', ?1)");
	assert_non_null(st);
	static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	for (int i = 0; i < 20000; i++) {
		int year = 1000 + (int)(next() % 8999), month = 1 + (int)(next() % 12);
		int day = 1 + (int)(next() % (uint64_t)mdays[month - 1]);
		bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
		if (month == 2 && day == 29 && !leap)
			day = 28;
		int oh = (int)(next() % 15), om = oh == 14 ? 0 : (int)(next() % 4) * 15;
		char text[64];
		snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03d%c%02d:%02d", year, month,
			 day, (int)(next() % 24), (int)(next() % 60), (int)(next() % 60),
			 (int)(next() % 1000), next() % 2 ? '+' : '-', oh, om);
		db_bind_text(st, 1, text);
		assert_int_equal(db_step(st), DB_ROW);
		char sql[32];
		snprintf(sql, sizeof sql, "%s", db_col_text(st, 0) ? db_col_text(st, 0) : "");
		db_reset(st);
		char out[REPORT_TIME_SIZE];
		const char *why = "";
		if (report_time_parse(text, strlen(text), out, &why) != 0)
			fail_msg("\"%s\": %s", text, why);
		if (strcmp(out, sql) != 0)
			fail_msg("\"%s\": SQLite %s, hangar %s", text, sql, out);
	}
	db_close(db);
}

/* Cut anywhere, a valid time is read or refused with a reason: never
 * garbage in out. */
static void test_truncated(void **state)
{
	(void)state;
	static const char *const texts[] = {"2023-04-04 22:06:31.064728684+0200",
					    "2019-10-12T03:25:25.645+08:00", "1765315753629383"};
	for (size_t t = 0; t < sizeof texts / sizeof *texts; t++)
		for (size_t n = 0; n <= strlen(texts[t]); n++) {
			char out[REPORT_TIME_SIZE];
			const char *why = NULL;
			if (report_time_parse(texts[t], n, out, &why) == 0) {
				int64_t ms;
				assert_true(report_time_unix_ms(out, &ms));
			} else {
				assert_string_equal(out, "");
				assert_non_null(why);
			}
		}
}

/* A time without a zone in tz; zoneless: whether it had none. */
static void want_in(const hg_timezone *tz, const char *text, const char *expected, bool zoneless)
{
	char out[REPORT_TIME_SIZE];
	const char *why = "";
	bool had_none = !zoneless;
	if (report_time_parse_in(text, strlen(text), tz, out, &why, &had_none) != 0)
		fail_msg("\"%s\": %s", text, why);
	if (strcmp(out, expected) != 0)
		fail_msg("\"%s\" in %s: want %s, got %s", text, tz ? tz->name : "UTC", expected, out);
	assert_int_equal(had_none, zoneless);
}

/* --timezone: fixed offsets; a written zone or epoch digits are never
 * moved; bad zones refused with a reason. */
static void test_zoneless_in_a_zone(void **state)
{
	(void)state;
	hg_timezone tz;
	char why[160];
	want_in(NULL, "2021-07-27 15:57:15", "2021-07-27T15:57:15.000Z", true);
	assert_int_equal(hg_timezone_init(&tz, "+08:00", why, sizeof why), 0);
	want_in(&tz, "2021-07-27 15:57:15", "2021-07-27T07:57:15.000Z", true);
	want_in(&tz, "2021-01-01 03:00:00", "2020-12-31T19:00:00.000Z", true); /* the year before */
	want_in(&tz, "2021-07-27", "2021-07-26T16:00:00.000Z", true);
	want_in(&tz, "2021-07-27 15:57:15Z", "2021-07-27T15:57:15.000Z", false);
	want_in(&tz, "2021-07-27 15:57:15 -0100", "2021-07-27T16:57:15.000Z", false);
	want_in(&tz, "1627372635000", "2021-07-27T07:57:15.000Z", false);
	assert_int_equal(hg_timezone_init(&tz, "-0530", why, sizeof why), 0);
	want_in(&tz, "2021-07-27 15:57:15", "2021-07-27T21:27:15.000Z", true);
	assert_int_equal(hg_timezone_init(&tz, "UTC", why, sizeof why), 0);
	want_in(&tz, "2021-07-27 15:57:15", "2021-07-27T15:57:15.000Z", true);
	assert_false(tz.named);
	/* Past the years 0000 to 9999 once moved: refused, as any such time. */
	assert_int_equal(hg_timezone_init(&tz, "+01:00", why, sizeof why), 0);
	char out[REPORT_TIME_SIZE];
	const char *what = "";
	assert_int_equal(report_time_parse_in("0000-01-01 00:30:00", 19, &tz, out, &what, NULL), -1);
	assert_string_equal(out, "");
	static const char *const bad[][2] = {
		{"", "a time zone must be"},
		{"+8", "two digits of hours"},
		{"+08:0", "cut short"},
		{"+15:00", "out of range"},
		{"+08:00x", "unexpected text after the offset"},
		{"../etc/passwd", "unknown time zone"},
		{"/etc/localtime", "unknown time zone"},
		{"Asia/../../etc/passwd", "unknown time zone"},
		{"Mars/Olympus_Mons", "unknown time zone \"Mars/Olympus_Mons\""},
		{"CEST+2", "unknown time zone"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		why[0] = '\0';
		if (hg_timezone_init(&tz, bad[i][0], why, sizeof why) != HG_EINVAL)
			fail_msg("\"%s\" taken as a zone", bad[i][0]);
		if (!strstr(why, bad[i][1]))
			fail_msg("\"%s\": \"%s\" does not say \"%s\"", bad[i][0], why, bad[i][1]);
	}
}

/* IANA names, through the C library: each date its own offset. */
static void test_named_zones(void **state)
{
	(void)state;
	if (access("/usr/share/zoneinfo/Europe/Berlin", R_OK) != 0 && !getenv("TZDIR")) {
		print_message("no tz database (Debian's tzdata): named zones not tested\n");
		skip();
	}
	hg_timezone tz;
	char why[160];
	assert_int_equal(hg_timezone_init(&tz, "Europe/Berlin", why, sizeof why), 0);
	assert_true(tz.named);
	want_in(&tz, "2023-07-01 12:00:00", "2023-07-01T10:00:00.000Z", true); /* CEST */
	want_in(&tz, "2023-01-01 12:00:00", "2023-01-01T11:00:00.000Z", true); /* CET */
	want_in(&tz, "2023-10-29 04:00:00", "2023-10-29T03:00:00.000Z", true); /* after the change */
	want_in(&tz, "2023-07-01 12:00:00+00:00", "2023-07-01T12:00:00.000Z", false);
	assert_int_equal(hg_timezone_init(&tz, "Asia/Kolkata", why, sizeof why), 0);
	want_in(&tz, "2021-07-27 15:57:15", "2021-07-27T10:27:15.000Z", true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader_forms),   cmocka_unit_test(test_zones),
		cmocka_unit_test(test_bad_times),      cmocka_unit_test(test_yearless),
		cmocka_unit_test(test_unix_ms),        cmocka_unit_test(test_against_sqlite),
		cmocka_unit_test(test_truncated),      cmocka_unit_test(test_zoneless_in_a_zone),
		cmocka_unit_test(test_named_zones),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
