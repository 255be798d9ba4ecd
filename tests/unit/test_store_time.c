/* Report times computed in C (store_time.c) against SQLite's own answer,
 * STORE_TIME_SQL evaluated by the SQLite the store runs on: every text the
 * C path takes must give exactly SQLite's bytes (NULL as ""). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "store/store_internal.h"

static hg_db *open_memory(void)
{
	hg_db *db = NULL;
	assert_int_equal(db_open(":memory:", 1000, &db), 0);
	return db;
}

static void sql_time(hg_db *db, const char *text, char out[32])
{
	hg_db_stmt *st = db_stmt(db, 0, "SELECT " STORE_TIME_SQL("?1"));
	assert_non_null(st);
	db_bind_text(st, 1, text);
	assert_int_equal(db_step(st), DB_ROW);
	snprintf(out, 32, "%s", db_col_text(st, 0) ? db_col_text(st, 0) : "");
	db_reset(st);
}

/* Compares one text; returns whether the C path took it. */
static bool check(hg_db *db, const char *text)
{
	char fast[32], sql[32];
	if (!store_time_fast(text, fast))
		return false;
	sql_time(db, text, sql);
	if (strcmp(fast, sql) != 0)
		fail_msg("time \"%s\": C gives \"%s\", SQLite \"%s\"", text, fast, sql);
	return true;
}

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Digit strings of every length the C path takes, random and at the edges
 * of the seconds/ms/us/ns lengths, and real epoch values in all four. */
static void test_epoch_digits_match_sqlite(void **state)
{
	(void)state;
	hg_db *db = open_memory();
	size_t taken = 0;
	char text[40];
	for (int i = 0; i < 40000; i++) {
		size_t n = 1 + next() % 18; /* 19 digits can pass int64: below */
		for (size_t k = 0; k < n; k++)
			text[k] = (char)('0' + next() % 10);
		text[n] = '\0';
		taken += check(db, text);
	}
	for (int i = 0; i < 5000; i++) { /* 19 digits below int64's end */
		text[0] = (char)('1' + next() % 8);
		for (size_t k = 1; k < 19; k++)
			text[k] = (char)('0' + next() % 10);
		text[19] = '\0';
		taken += check(db, text);
	}
	static const char *const edges[] = {
		"0", "00000000000", "99999999999", "999999999999", "99999999999999",
		"999999999999999", "99999999999999999", "999999999999999999", "100000000000",
		"1714000013443", "1714000013", "1714000013443123", "171400001344312345", "1714000013443123456",
		"9223372036854775807", "0000000000000000001",
		"000001714000013", "253402300799", "253402300800", "951782400", "951868800",
		"4102444800000", "1709164799999", "1709164800000", "1709251199999"};
	for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
		assert_true(check(db, edges[i]));
	/* Real times, 1970..2100, at each precision (ns: 19 digits). */
	for (int i = 0; i < 40000; i++) {
		uint64_t ms = next() % 4102444800000ULL;
		static const uint64_t scale[] = {0, 1, 1000, 1000000};
		int p = (int)(next() % 4);
		if (p == 0)
			snprintf(text, sizeof text, "%llu", (unsigned long long)(ms / 1000));
		else
			snprintf(text, sizeof text, "%llu", (unsigned long long)(ms * scale[p]));
		taken += check(db, text);
	}
	assert_int_equal(taken, 85000); /* the C path took them all */
	assert_false(store_time_fast("9223372036854775808", text)); /* past int64 */
	db_close(db);
}

/* The store's own form: taken (and unchanged) when it is a real date,
 * left to SQLite otherwise; either way the answer is SQLite's. */
static void test_store_form_matches_sqlite(void **state)
{
	(void)state;
	hg_db *db = open_memory();
	size_t taken = 0;
	char text[40];
	for (int i = 0; i < 40000; i++) {
		snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
			 (int)(900 + next() % 9200), (int)(next() % 14), (int)(next() % 33),
			 (int)(next() % 26), (int)(next() % 62), (int)(next() % 62),
			 (int)(next() % 1000));
		taken += check(db, text);
	}
	static const char *const edges[] = {
		"2024-02-29T23:59:59.999Z", "2023-02-29T00:00:00.000Z", "1900-02-29T00:00:00.000Z",
		"2000-02-29T00:00:00.000Z", "2024-04-31T00:00:00.000Z", "2024-12-31T24:00:00.000Z",
		"9999-12-31T23:59:59.999Z", "1000-01-01T00:00:00.000Z"};
	for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
		check(db, edges[i]);
	assert_true(check(db, "2024-02-29T23:59:59.999Z"));
	assert_false(store_time_fast("2023-02-29T00:00:00.000Z", text)); /* SQLite rolls over */
	assert_true(taken > 10000);
	db_close(db);
}

/* Other forms are not guessed at: SQLite reads them. */
static void test_other_forms_left_to_sqlite(void **state)
{
	(void)state;
	char out[32];
	static const char *const others[] = {
		"2024-04-25T01:06:53+02:00", "2024-04-24 23:06:53.5", "2024-04-24", "now",
		"2460000.5", "1714000013443123456789", "-1714000013", " 1714000013",
		"2024-04-24T23:06:53.443", "yesterday"};
	for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
		assert_false(store_time_fast(others[i], out));
	assert_true(store_time_fast("", out));
	assert_string_equal(out, "");
	assert_true(store_time_fast(NULL, out));
	assert_string_equal(out, "");
}

/* Now, in the store's form, between SQLite's now before and after. */
static void test_now_is_sqlites_now(void **state)
{
	(void)state;
	hg_db *db = open_memory();
	char before[32], now[32], after[32];
	hg_db_stmt *st = db_stmt(db, 1, "SELECT " STORE_NOW_SQL);
	assert_int_equal(db_step(st), DB_ROW);
	snprintf(before, sizeof before, "%s", db_col_text(st, 0));
	db_reset(st);
	store_time_now(now);
	st = db_stmt(db, 1, "SELECT " STORE_NOW_SQL);
	assert_int_equal(db_step(st), DB_ROW);
	snprintf(after, sizeof after, "%s", db_col_text(st, 0));
	db_reset(st);
	assert_int_equal(strlen(now), 24);
	assert_true(strcmp(before, now) <= 0);
	assert_true(strcmp(now, after) <= 0);
	db_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_epoch_digits_match_sqlite),
		cmocka_unit_test(test_store_form_matches_sqlite),
		cmocka_unit_test(test_other_forms_left_to_sqlite),
		cmocka_unit_test(test_now_is_sqlites_now),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
