/* Unit tests for the beat module: exact decimal parsing of Java longs
 * (hg_parse_int64), the AppMethodBeat word layout (entry bit, 20-bit method
 * id, 43-bit time) and the two buffer encodings, base64 and raw big-endian
 * bytes, with every way they can be malformed or too large. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hangar/beat.h"

/* ---- hg_parse_int64 ---- */

static int parse(const char *s, int64_t *out)
{
	return hg_parse_int64(s, strlen(s), out);
}

static void assert_parses(const char *s, int64_t want)
{
	int64_t v = 12345;
	assert_int_equal(parse(s, &v), 0);
	assert_true(v == want);
}

static void assert_rejected(const char *s)
{
	int64_t v = 12345;
	assert_int_equal(parse(s, &v), HG_EPARSE);
	assert_true(v == 12345); /* untouched on failure */
}

static void test_parse_int64_accepts_integers(void **state)
{
	(void)state;
	assert_parses("0", 0);
	assert_parses("-0", 0);
	assert_parses("7", 7);
	assert_parses("-42", -42);
	assert_parses("9223372036854775807", INT64_MAX);
	assert_parses("-9223372036854775808", INT64_MIN);
	assert_parses("-9223372036854775807", -INT64_MAX);
	assert_parses("9007199254740993", 9007199254740993LL); /* 2^53 + 1 */
	/* Leading zeros are digits like any other: 20+ digits can still fit. */
	assert_parses("00000000000000000000000123", 123);
}

static void test_parse_int64_rejects_overflow(void **state)
{
	(void)state;
	assert_rejected("9223372036854775808");   /* INT64_MAX + 1 */
	assert_rejected("-9223372036854775809");  /* INT64_MIN - 1 */
	assert_rejected("9223372036854775810");
	assert_rejected("18446744073709551615");  /* UINT64_MAX */
	assert_rejected("18446744073709551616");
	assert_rejected("12345678901234567890");  /* 20 digits */
	assert_rejected("-100000000000000000000");
	assert_rejected("99999999999999999999999999999999");
}

static void test_parse_int64_rejects_non_literals(void **state)
{
	(void)state;
	assert_rejected("");
	assert_rejected("-");
	assert_rejected("+1");
	assert_rejected(" 1");
	assert_rejected("1 ");
	assert_rejected("1 2");
	assert_rejected("1.0");
	assert_rejected("1e3");
	assert_rejected("0x10");
	assert_rejected("--1");
	assert_rejected("1-");
	assert_rejected("abc");
	assert_rejected("\xef\xbc\x91"); /* a full-width digit is not an ASCII digit */
}

static void test_parse_int64_respects_length(void **state)
{
	(void)state;
	int64_t v = 0;
	assert_int_equal(hg_parse_int64("123abc", 3, &v), 0);
	assert_true(v == 123);
	assert_int_equal(hg_parse_int64("-5,6", 2, &v), 0);
	assert_true(v == -5);
	/* An embedded NUL inside the length is not a digit. */
	assert_int_equal(hg_parse_int64("1\0002", 3, &v), HG_EPARSE);
	assert_int_equal(hg_parse_int64("99", 0, &v), HG_EPARSE);
}

/* ---- word layout ---- */

static void assert_word(int64_t w, bool entry, int32_t id, int64_t time)
{
	assert_int_equal(hg_beat_is_entry(w), entry);
	assert_int_equal(hg_beat_method_id(w), id);
	assert_true(hg_beat_time(w) == time);
}

static void test_word_round_trips(void **state)
{
	(void)state;
	const int32_t ids[] = {0, 1, 12345, HG_BEAT_DISPATCH_ID, HG_BEAT_MAX_METHOD_ID};
	const int64_t times[] = {0, 1, 1700000000000LL, 0x7FFFFFFFFFFLL};
	for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
		for (size_t j = 0; j < sizeof times / sizeof *times; j++)
			for (int entry = 0; entry <= 1; entry++)
				assert_word(hg_beat_word(entry, ids[i], times[j]), entry, ids[i],
					    times[j]);
}

static void test_word_exact_bits(void **state)
{
	(void)state;
	/* Entry bit 63, id in bits 43..62, time in bits 0..42. */
	assert_true((uint64_t)hg_beat_word(true, HG_BEAT_DISPATCH_ID, 1234) ==
		    0xFFFFF000000004D2ull);
	assert_true((uint64_t)hg_beat_word(false, 1, 0) == 0x0000080000000000ull);
	assert_true(hg_beat_word(true, 0, 0) == INT64_MIN);
	assert_true(hg_beat_word(false, 0xFFFFF, 0x7FFFFFFFFFF) == INT64_MAX);
	assert_true(hg_beat_word(true, 0xFFFFF, 0x7FFFFFFFFFF) == -1);
	/* Decoding raw words that Java would hold as negative longs. */
	assert_word(-1, true, 0xFFFFF, 0x7FFFFFFFFFFLL);
	assert_word(INT64_MIN, true, 0, 0);
	assert_word(INT64_MAX, false, 0xFFFFF, 0x7FFFFFFFFFFLL);
	assert_word((int64_t)0x8000080000000005ull, true, 1, 5);
}

static void test_word_masks_out_of_range_fields(void **state)
{
	(void)state;
	/* Fields wider than their slot are cut, never spill into the others. */
	assert_word(hg_beat_word(false, 0x100001, 7), false, 1, 7);
	assert_word(hg_beat_word(false, 3, 0x80000000005LL), false, 3, 5);
	assert_word(hg_beat_word(false, -1, 0), false, 0xFFFFF, 0);
}

/* ---- base64 ---- */

struct decoded {
	int rc;
	int64_t *words;
	size_t count;
	size_t err_pos;
	const char *why;
};

static struct decoded b64(hg_arena *arena, const char *s, size_t max_words)
{
	struct decoded d = {0, NULL, 9999, 9999, NULL};
	d.rc = hg_beat_from_base64(s, strlen(s), max_words, arena, &d.words, &d.count, &d.err_pos,
				   &d.why);
	return d;
}

static hg_arena *new_arena(void)
{
	hg_arena *arena = hg_arena_create();
	assert_non_null(arena);
	return arena;
}

static void test_base64_big_endian_words(void **state)
{
	(void)state;
	hg_arena *arena = new_arena();
	/* Bytes 01..08, 80 00.., ff.. ; 24 bytes = 32 characters, no padding. */
	struct decoded d = b64(arena, "AQIDBAUGBwiAAAAAAAAAAP//////////", 10);
	assert_int_equal(d.rc, 0);
	assert_int_equal(d.count, 3);
	assert_true((uint64_t)d.words[0] == 0x0102030405060708ull);
	assert_true((uint64_t)d.words[1] == 0x8000000000000000ull);
	assert_true(d.words[2] == -1);
	/* A dispatch entry at 1234 ms, as Java's DataOutputStream writes it. */
	d = b64(arena, "///wAAAABNI=", 1);
	assert_int_equal(d.rc, 0);
	assert_int_equal(d.count, 1);
	assert_word(d.words[0], true, HG_BEAT_DISPATCH_ID, 1234);
	hg_arena_destroy(arena);
}

static void test_base64_padding_optional(void **state)
{
	(void)state;
	hg_arena *arena = new_arena();
	const char *forms[] = {"AQIDBAUGBwg=", "AQIDBAUGBwg", "AQIDBAUGBwiAAAAAAAAAAA==",
			       "AQIDBAUGBwiAAAAAAAAAAA"};
	const size_t counts[] = {1, 1, 2, 2};
	for (size_t i = 0; i < 4; i++) {
		struct decoded d = b64(arena, forms[i], 4);
		assert_int_equal(d.rc, 0);
		assert_int_equal(d.count, counts[i]);
		assert_true((uint64_t)d.words[0] == 0x0102030405060708ull);
		if (counts[i] == 2)
			assert_true(d.words[1] == INT64_MIN);
	}
	hg_arena_destroy(arena);
}

static void test_base64_empty(void **state)
{
	(void)state;
	hg_arena *arena = new_arena();
	struct decoded d = b64(arena, "", 0);
	assert_int_equal(d.rc, 0);
	assert_int_equal(d.count, 0);
	assert_non_null(d.words);
	hg_arena_destroy(arena);
}

static void assert_b64_error(hg_arena *arena, const char *s, int rc, size_t err_pos)
{
	struct decoded d = b64(arena, s, 100);
	assert_int_equal(d.rc, rc);
	assert_int_equal(d.err_pos, err_pos);
	assert_non_null(d.why);
	assert_true(strlen(d.why) > 0);
}

static void test_base64_bad_characters(void **state)
{
	(void)state;
	hg_arena *arena = new_arena();
	assert_b64_error(arena, "AQIDBAUG*wg=", HG_EPARSE, 8);
	assert_b64_error(arena, "*QIDBAUGBwg=", HG_EPARSE, 0);
	assert_b64_error(arena, "AQIDBAUGBw-=", HG_EPARSE, 10);  /* base64url is not base64 */
	assert_b64_error(arena, "AQ=DBAUGBwg=", HG_EPARSE, 2);   /* '=' inside the data */
	assert_b64_error(arena, "AQIDBA GBwg", HG_EPARSE, 6);    /* no whitespace */
	struct decoded d = b64(arena, "AQIDBAUG*wg=", 100);
	assert_string_equal(d.why, "not a base64 character");
	hg_arena_destroy(arena);
}

static void test_base64_bad_lengths(void **state)
{
	(void)state;
	hg_arena *arena = new_arena();
	/* 3 and 18 bytes: whole base64, but not whole words. */
	assert_b64_error(arena, "AQID", HG_EPARSE, 4);
	assert_b64_error(arena, "AQIDBAUGBwiAAAAAAAAAAAEC", HG_EPARSE, 24);
	/* One stray character after whole groups cannot encode a byte. */
	assert_b64_error(arena, "AQIDB", HG_EPARSE, 5);
	assert_b64_error(arena, "AQIDBAUGBwgAB", HG_EPARSE, 13);
	assert_b64_error(arena, "A", HG_EPARSE, 1);
	/* Padding that does not complete a group of four. */
	assert_b64_error(arena, "AQIDBAUGBwg==", HG_EPARSE, 13);
	hg_arena_destroy(arena);
}

static void test_base64_nonzero_trailing_bits(void **state)
{
	(void)state;
	hg_arena *arena = new_arena();
	/* 'h' = 100001: its low two bits are past the 64th bit. */
	assert_b64_error(arena, "AQIDBAUGBwh=", HG_EPARSE, 10);
	assert_b64_error(arena, "AQIDBAUGBwh", HG_EPARSE, 10);
	assert_b64_error(arena, "AQIDBAUGBwiAAAAAAAAAAB==", HG_EPARSE, 21);
	hg_arena_destroy(arena);
}

static void test_base64_word_cap(void **state)
{
	(void)state;
	hg_arena *arena = new_arena();
	const char *three = "AQIDBAUGBwiAAAAAAAAAAP//////////";
	struct decoded d = b64(arena, three, 2);
	assert_int_equal(d.rc, HG_ELIMIT);
	assert_non_null(d.why);
	d = b64(arena, three, 0);
	assert_int_equal(d.rc, HG_ELIMIT);
	d = b64(arena, three, 3);
	assert_int_equal(d.rc, 0);
	assert_int_equal(d.count, 3);
	hg_arena_destroy(arena);
}

/* ---- raw bytes ---- */

static int from_binary(hg_arena *arena, const unsigned char *b, size_t len, size_t max,
		       int64_t **w, size_t *n, const char **why)
{
	*why = NULL;
	return hg_beat_from_binary(b, len, max, arena, w, n, why);
}

static void test_binary_words(void **state)
{
	(void)state;
	hg_arena *arena = new_arena();
	const unsigned char bytes[32] = {
		0x80, 0, 0, 0, 0, 0, 0, 0,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00,
	};
	int64_t *w = NULL;
	size_t n = 0;
	const char *why;
	assert_int_equal(from_binary(arena, bytes, sizeof bytes, 4, &w, &n, &why), 0);
	assert_int_equal(n, 4);
	assert_true((uint64_t)w[0] == 0x8000000000000000ull);
	assert_true((uint64_t)w[1] == 0xFFFFFFFFFFFFFFFFull);
	assert_true(w[2] == INT64_MAX - 1);
	assert_true(w[3] == 256);
	hg_arena_destroy(arena);
}

static void test_binary_errors(void **state)
{
	(void)state;
	hg_arena *arena = new_arena();
	unsigned char bytes[24] = {0};
	int64_t *w = NULL;
	size_t n = 77;
	const char *why;
	assert_int_equal(from_binary(arena, bytes, 7, 10, &w, &n, &why), HG_EPARSE);
	assert_non_null(why);
	assert_int_equal(from_binary(arena, bytes, 17, 10, &w, &n, &why), HG_EPARSE);
	assert_int_equal(from_binary(arena, bytes, 24, 2, &w, &n, &why), HG_ELIMIT);
	assert_non_null(why);
	assert_int_equal(n, 77);
	assert_int_equal(from_binary(arena, bytes, 0, 0, &w, &n, &why), 0);
	assert_int_equal(n, 0);
	assert_int_equal(from_binary(arena, bytes, 16, 2, &w, &n, &why), 0);
	assert_int_equal(n, 2);
	assert_true(w[0] == 0 && w[1] == 0);
	hg_arena_destroy(arena);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_int64_accepts_integers),
		cmocka_unit_test(test_parse_int64_rejects_overflow),
		cmocka_unit_test(test_parse_int64_rejects_non_literals),
		cmocka_unit_test(test_parse_int64_respects_length),
		cmocka_unit_test(test_word_round_trips),
		cmocka_unit_test(test_word_exact_bits),
		cmocka_unit_test(test_word_masks_out_of_range_fields),
		cmocka_unit_test(test_base64_big_endian_words),
		cmocka_unit_test(test_base64_padding_optional),
		cmocka_unit_test(test_base64_empty),
		cmocka_unit_test(test_base64_bad_characters),
		cmocka_unit_test(test_base64_bad_lengths),
		cmocka_unit_test(test_base64_nonzero_trailing_bits),
		cmocka_unit_test(test_base64_word_cap),
		cmocka_unit_test(test_binary_words),
		cmocka_unit_test(test_binary_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
