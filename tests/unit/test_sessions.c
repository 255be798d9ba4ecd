/* Sessions files (hangar/sessions.h): good files in every form the format
 * allows (days or not, quoted versions, comments, CRLF, a byte order
 * mark), the rows a scope covers and the reports that count against them,
 * and bad files, each refused with its line, column and reason: wrong
 * types, huge and negative numbers, duplicates, missing and extra fields,
 * truncated files and random bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "hangar/sessions.h"

/* The diagnostics of one parse. */
struct said {
	int n;
	long line, col;
	char source[64], message[512];
};

static void record(void *user, const hg_diag *d)
{
	struct said *s = user;
	s->n++;
	s->line = d->line;
	s->col = d->col;
	snprintf(s->source, sizeof s->source, "%s", d->source);
	snprintf(s->message, sizeof s->message, "%s", d->message);
}

static int parse(const char *text, struct said *said, hg_sessions **out)
{
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.diag = record;
	ctx.diag_user = said;
	memset(said, 0, sizeof *said);
	return hg_sessions_parse(&ctx, "s.csv", text, strlen(text), out);
}

static hg_sessions *good(const char *text)
{
	struct said said;
	hg_sessions *s = NULL;
	int rc = parse(text, &said, &s);
	if (rc != 0)
		fail_msg("refused (%d): s.csv:%ld:%ld: %s", rc, said.line, said.col, said.message);
	assert_int_equal(said.n, 0);
	return s;
}

/* text is refused at line:col with a message holding want. */
static void bad(const char *text, long line, long col, const char *want)
{
	struct said said;
	hg_sessions *s = NULL;
	assert_int_equal(parse(text, &said, &s), HG_EPARSE);
	assert_null(s);
	assert_int_equal(said.n, 1);
	assert_string_equal(said.source, "s.csv");
	if (said.line != line || said.col != col || !strstr(said.message, want))
		fail_msg("%s: said %ld:%ld: %s; want %ld:%ld: ...%s...", text, said.line, said.col,
			 said.message, line, col, want);
}

struct version_list {
	char text[256];
};

static int list_version(void *user, const char *version, int64_t sessions)
{
	struct version_list *l = user;
	size_t n = strlen(l->text);
	snprintf(l->text + n, sizeof l->text - n, "%s=%lld;", version, (long long)sessions);
	return 0;
}

static void versions_are(const hg_sessions *s, const char *want)
{
	struct version_list l = {""};
	assert_int_equal(hg_sessions_versions(s, list_version, &l), 0);
	assert_string_equal(l.text, want);
}

/* ---- good files ---- */

static void test_versions_only(void **state)
{
	(void)state;
	hg_sessions *s = good("version,sessions\n1.0,10000\n1.1,2500\n");
	assert_false(hg_sessions_has_days(s));
	versions_are(s, "1.0=10000;1.1=2500;");
	assert_int_equal(hg_sessions_total(s, NULL), 12500);
	hg_sessions_scope v = {.version = "1.1"};
	assert_int_equal(hg_sessions_total(s, &v), 2500);
	/* a row without a day is in every window, and counts reports of any time */
	hg_sessions_scope w = {.since = "2026-11-01T00:00:00.000Z", .until = "2026-11-02T00:00:00.000Z"};
	assert_int_equal(hg_sessions_total(s, &w), 12500);
	assert_true(hg_sessions_counts(s, &w, "1.0", NULL));
	assert_true(hg_sessions_counts(s, &v, "1.1", "2020-01-01T00:00:00.000Z"));
	assert_false(hg_sessions_counts(s, &v, "1.0", "2020-01-01T00:00:00.000Z"));
	assert_false(hg_sessions_counts(s, NULL, "2.0", NULL));
	assert_false(hg_sessions_counts(s, NULL, NULL, NULL));
	hg_sessions_scope other = {.version = "9.9"};
	assert_int_equal(hg_sessions_total(s, &other), -1);
	hg_sessions_destroy(s);
}

/* The forms a spreadsheet or a script writes: a byte order mark, CRLF,
 * comments and blank lines, columns in another order and case, spaces
 * around fields, quoted versions (a comma in one, "" a quote). */
static void test_forms(void **state)
{
	(void)state;
	hg_sessions *s = good("\xef\xbb\xbf# exported 2026-11-30\r\n"
			      "\r\n"
			      "  Day , VERSION,Sessions\r\n"
			      "2026-11-28, \"3.1.0, beta\" ,100\r\n"
			      "   # a comment between rows\n"
			      "2026-11-29,\"say \"\"hi\"\"\",0200\r\n"
			      "\n"
			      "2026-11-29,3.1.0,9007199254740992");
	assert_true(hg_sessions_has_days(s));
	versions_are(s, "3.1.0, beta=100;say \"hi\"=200;3.1.0=9007199254740992;");
	assert_true(hg_sessions_counts(s, NULL, "3.1.0, beta", "2026-11-28T23:59:59.999Z"));
	assert_false(hg_sessions_counts(s, NULL, "3.1.0, beta", "2026-11-29T00:00:00.000Z"));
	hg_sessions_destroy(s);
	/* a header alone: no version, no rate */
	s = good("version,day,sessions\n");
	assert_int_equal(hg_sessions_total(s, NULL), -1);
	hg_sessions_destroy(s);
}

/* A day counts in a window that holds it whole; a report counts when its
 * own day's row is in scope. */
static void test_days_and_windows(void **state)
{
	(void)state;
	hg_sessions *s = good("version,day,sessions\n"
			      "1.0,2026-11-27,1000\n1.0,2026-11-28,2000\n1.0,2026-11-29,4000\n"
			      "1.1,2026-11-29,500\n1.1,2026-11-30,700\n"
			      "1.2,,300\n"); /* no day: the whole period */
	assert_int_equal(hg_sessions_total(s, NULL), 8500);
	hg_sessions_scope w = {.since = "2026-11-28T00:00:00.000Z"};
	assert_int_equal(hg_sessions_total(s, &w), 2000 + 4000 + 500 + 700 + 300);
	w.until = "2026-11-30T00:00:00.000Z"; /* the 28th and 29th, whole */
	assert_int_equal(hg_sessions_total(s, &w), 2000 + 4000 + 500 + 300);
	w.version = "1.0";
	assert_int_equal(hg_sessions_total(s, &w), 6000);
	assert_true(hg_sessions_counts(s, &w, "1.0", "2026-11-29T08:00:00.000Z"));
	assert_false(hg_sessions_counts(s, &w, "1.0", "2026-11-27T08:00:00.000Z")); /* before */
	assert_false(hg_sessions_counts(s, &w, "1.1", "2026-11-29T08:00:00.000Z")); /* version */
	assert_false(hg_sessions_counts(s, &w, "1.0", NULL)); /* untimed */
	/* a window that cuts a day leaves it out, and its reports */
	hg_sessions_scope cut = {.since = "2026-11-28T12:00:00.000Z"};
	assert_int_equal(hg_sessions_total(s, &cut), 4000 + 500 + 700 + 300);
	assert_false(hg_sessions_counts(s, &cut, "1.0", "2026-11-28T13:00:00.000Z"));
	assert_true(hg_sessions_counts(s, &cut, "1.2", "2026-11-28T13:00:00.000Z"));
	/* a day the file does not give */
	assert_false(hg_sessions_counts(s, NULL, "1.1", "2026-11-28T08:00:00.000Z"));
	/* no day row in scope, no row without one: no sessions */
	hg_sessions_scope none = {.version = "1.1", .until = "2026-11-29T00:00:00.000Z"};
	assert_int_equal(hg_sessions_total(s, &none), -1);
	hg_sessions_destroy(s);
	/* the last days of a year and of the calendar */
	s = good("version,day,sessions\nx,2024-02-29,1\nx,2025-12-31,2\nx,9999-12-31,3\n");
	hg_sessions_scope y = {.since = "2025-12-31T00:00:00.000Z", .until = "2026-01-01T00:00:00.000Z"};
	assert_int_equal(hg_sessions_total(s, &y), 2);
	y.until = NULL;
	assert_int_equal(hg_sessions_total(s, &y), 5);
	y.until = "9999-12-31T23:59:59.999Z"; /* cuts the calendar's last day */
	assert_int_equal(hg_sessions_total(s, &y), 2);
	hg_sessions_destroy(s);
}

static void test_rate(void **state)
{
	(void)state;
	assert_true(hg_rate_per_1k(40, 10000) == 4.0);
	assert_true(hg_rate_per_1k(47, 10000) == 4.7);
	assert_true(hg_rate_per_1k(0, 10) == 0.0);
	assert_true(hg_rate_per_1k(5, 0) < 0);
	assert_true(hg_rate_per_1k(5, -1) < 0);
}

/* ---- bad files ---- */

static void test_bad_numbers(void **state)
{
	(void)state;
	bad("version,sessions\n1.0,12.5\n", 2, 5, "bad number \"12.5\"");
	bad("version,sessions\n1.0,ten\n", 2, 5, "bad number \"ten\"");
	bad("version,sessions\n1.0,1e4\n", 2, 5, "bad number");
	bad("version,sessions\n1.0, +7\n", 2, 6, "bad number \"+7\"");
	bad("version,sessions\n1.0,\n", 2, 5, "no number");
	bad("version,sessions\n1.0,-3\n", 2, 5, "negative sessions \"-3\"");
	bad("version,sessions\n1.0,9007199254740993\n", 2, 5, "over 2^53");
	bad("version,sessions\n1.0,99999999999999999999999999999\n", 2, 5, "over 2^53");
	bad("version,day,sessions\n1.0,2026-11-28,\"1 000\"\n", 2, 16, "bad number \"1 000\"");
}

static void test_bad_days(void **state)
{
	(void)state;
	bad("version,day,sessions\n1.0,2026-02-29,1\n", 2, 5, "bad day \"2026-02-29\"");
	bad("version,day,sessions\n1.0,2026-13-01,1\n", 2, 5, "bad day");
	bad("version,day,sessions\n1.0,2026-1-01,1\n", 2, 5, "bad day");
	bad("version,day,sessions\n1.0,28/11/2026,1\n", 2, 5, "YYYY-MM-DD");
	bad("version,day,sessions\n1.0,2026-11-28T00:00,1\n", 2, 5, "bad day");
	bad("version,day,sessions\n1.0,0000-01-01,1\n", 2, 5, "bad day");
}

static void test_bad_rows(void **state)
{
	(void)state;
	bad("version,day,sessions\n1.0,2026-11-28,5\n# again\n1.0,2026-11-28,6\n", 4, 1,
	    "duplicate row for version \"1.0\" on 2026-11-28 (first at line 2)");
	bad("version,sessions\n1.0,5\n1.0,6\n", 3, 1, "duplicate row for version \"1.0\" (first at line 2)");
	bad("version,day,sessions\n1.0,,5\n1.0,2026-11-28,6\n", 3, 5, "a row without a day (line 2)");
	bad("version,day,sessions\n1.0,2026-11-28,6\n1.0,,5\n", 3, 1, "rows with a day (line 2)");
	bad("version,day,sessions\n1.0,2026-11-28\n", 2, 15, "missing field \"sessions\"");
	bad("version,sessions\n1.0\n", 2, 4, "missing field \"sessions\"");
	bad("version,sessions\n1.0,5,6\n", 2, 7, "extra field");
	bad("version,sessions\n,5\n", 2, 1, "empty version");
	bad("version,sessions\n\"\",5\n", 2, 1, "empty version");
	bad("version,sessions\n1.\x07,5\n", 2, 3, "control character (byte 0x07)");
	bad("version,sessions\n\"1.0,5\n", 2, 1, "quoted field not closed on its line");
	bad("version,sessions\n\"1.0\"x,5\n", 2, 6, "\"x,5\" after a closing quote");
	/* truncated: the last row cut in its middle */
	bad("version,day,sessions\n1.0,2026-11-28,5\n1.0,2026-1", 3, 11, "missing field \"sessions\"");
	bad("version,day,sessions\n1.0,2026-11-28,5\n\"1.0", 3, 1, "quoted field not closed");
	bad("version,day,sessions\n1.0,2026-11-28,5\n1.0", 3, 4, "missing field \"day\"");
}

static void test_bad_headers(void **state)
{
	(void)state;
	bad("", 1, 1, "no header line");
	bad("# only a comment\n\n", 2, 1, "no header line");
	bad("version,count\n", 1, 9, "unknown column \"count\"");
	bad("version,day\n1.0,2026-11-28\n", 1, 1, "missing column \"sessions\"");
	bad("sessions\n", 1, 1, "missing column \"version\"");
	bad("version,sessions,version\n", 1, 18, "column \"version\" named twice");
	bad("version,day,sessions,users\n", 1, 22, "extra column");
	bad("1.0,5\n", 1, 1, "unknown column \"1.0\"");
}

/* Random bytes and cut copies of a good file: refused with a place, or
 * read; never a crash (ASan watches), never a diagnostic without a place. */
static void test_random_bytes(void **state)
{
	(void)state;
	static const char good_file[] = "version,day,sessions\n\"a,b\",2026-11-28,5\n1.0,,7\n";
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	char buf[96];
	for (int round = 0; round < 4000; round++) {
		size_t n = 0;
		if (round < (int)sizeof good_file) { /* every cut of the good file */
			n = (size_t)round;
			memcpy(buf, good_file, n);
		} else {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			n = (size_t)(x % sizeof buf);
			for (size_t i = 0; i < n; i++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				/* mostly the format's own bytes, so that some get far */
				static const char alphabet[] = "version,day,sessions\n\"#\r 0123456789-";
				buf[i] = x & 1 ? (char)(x >> 8) : alphabet[(x >> 8) % (sizeof alphabet - 1)];
			}
		}
		struct said said = {0};
		hg_ctx ctx;
		hg_ctx_init(&ctx);
		ctx.diag = record;
		ctx.diag_user = &said;
		hg_sessions *s = NULL;
		int rc = hg_sessions_parse(&ctx, "s.csv", buf, n, &s);
		if (rc == 0) {
			assert_non_null(s);
			assert_int_equal(said.n, 0);
			(void)hg_sessions_total(s, NULL);
		} else {
			assert_int_equal(rc, HG_EPARSE);
			assert_null(s);
			assert_int_equal(said.n, 1);
			assert_true(said.line >= 1 && said.col >= 1);
		}
		hg_sessions_destroy(s);
	}
}

static void test_read_file(void **state)
{
	(void)state;
	struct said said = {0};
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.diag = record;
	ctx.diag_user = &said;
	hg_sessions *s = NULL;
	assert_int_equal(hg_sessions_read(&ctx, "/nonexistent/sessions.csv", &s), HG_EIO);
	assert_null(s);
	assert_int_equal(said.n, 1);
	char path[] = "/tmp/hg-sessions-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs("version,sessions\n1.0,x\n", f);
	fclose(f);
	assert_int_equal(hg_sessions_read(&ctx, path, &s), HG_EPARSE);
	assert_string_equal(said.source, path);
	assert_int_equal(said.line, 2);
	assert_int_equal(said.col, 5);
	unlink(path);
	hg_sessions_destroy(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_versions_only),
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_days_and_windows),
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_bad_numbers),
		cmocka_unit_test(test_bad_days),
		cmocka_unit_test(test_bad_rows),
		cmocka_unit_test(test_bad_headers),
		cmocka_unit_test(test_random_bytes),
		cmocka_unit_test(test_read_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
