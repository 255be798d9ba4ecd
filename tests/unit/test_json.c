/* Unit tests for the private JSON wrapper (src/lib/json/json.h): parsing objects
 * and arrays, exact int64 reading from the number tokens (which must stay
 * matched to their nodes across strings holding digits, escaped quotes and
 * nesting), token offsets, syntax errors and their offsets, the end of the
 * first value, verbatim writing, duplicate keys, deep nesting, and the "hot"
 * integer arrays read without cJSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "hangar/text.h"
#include "json/json.h"
#include "json/json_words.h"

static hg_json_doc *parse_ok(const char *text, size_t *end)
{
	hg_json_doc *doc = NULL;
	size_t e = 0;
	assert_int_equal(hg_json_parse(text, strlen(text), &doc, &e), 0);
	assert_non_null(doc);
	if (end)
		*end = e;
	return doc;
}

static int64_t int_of(const hg_json_doc *doc, const hg_json *node)
{
	int64_t v = 0;
	assert_int_equal(hg_json_type(node), HG_JSON_NUMBER);
	assert_int_equal(hg_json_int64(doc, node, &v), 0);
	return v;
}

/* The i-th element of an array. */
static const hg_json *at(const hg_json *array, size_t i)
{
	assert_int_equal(hg_json_type(array), HG_JSON_ARRAY);
	const hg_json *e = hg_json_first(array);
	while (e && i-- > 0)
		e = hg_json_next(e);
	assert_non_null(e);
	return e;
}

static void test_parse_object_and_array(void **state)
{
	(void)state;
	size_t end;
	const char *text = "{\"name\":\"x\",\"list\":[1,\"two\",[],{}],"
			   "\"nested\":{\"yes\":true,\"no\":false,\"nil\":null}}";
	hg_json_doc *doc = parse_ok(text, &end);
	assert_int_equal(end, strlen(text));
	const hg_json *root = hg_json_root(doc);
	assert_int_equal(hg_json_type(root), HG_JSON_OBJECT);
	assert_int_equal(hg_json_count(root), 3);
	assert_string_equal(hg_json_key(hg_json_first(root)), "name");
	assert_string_equal(hg_json_string(hg_json_get(root, "name")), "x");
	const hg_json *list = hg_json_get(root, "list");
	assert_int_equal(hg_json_count(list), 4);
	assert_int_equal(int_of(doc, at(list, 0)), 1);
	assert_string_equal(hg_json_string(at(list, 1)), "two");
	assert_int_equal(hg_json_type(at(list, 2)), HG_JSON_ARRAY);
	assert_int_equal(hg_json_count(at(list, 2)), 0);
	assert_int_equal(hg_json_type(at(list, 3)), HG_JSON_OBJECT);
	const hg_json *nested = hg_json_get(root, "nested");
	assert_true(hg_json_true(hg_json_get(nested, "yes")));
	assert_false(hg_json_true(hg_json_get(nested, "no")));
	assert_int_equal(hg_json_type(hg_json_get(nested, "no")), HG_JSON_BOOL);
	assert_int_equal(hg_json_type(hg_json_get(nested, "nil")), HG_JSON_NULL);
	/* Missing keys, wrong types and NULL nodes are answered, not crashed on. */
	assert_null(hg_json_get(root, "Name"));
	assert_null(hg_json_get(list, "name"));
	assert_null(hg_json_string(at(list, 0)));
	assert_int_equal(hg_json_type(NULL), HG_JSON_INVALID);
	assert_string_equal(hg_json_type_name(HG_JSON_OBJECT), "object");
	assert_string_equal(hg_json_type_name(HG_JSON_INVALID), "nothing");
	hg_json_doc_destroy(doc);
	hg_json_doc_destroy(NULL);
}

static void test_int64_exact(void **state)
{
	(void)state;
	hg_json_doc *doc = parse_ok("[9223372036854775807,-9223372036854775808,"
				    "9007199254740993,-9007199254740993,-0,0,"
				    "1700000000123]", NULL);
	const hg_json *a = hg_json_root(doc);
	assert_true(int_of(doc, at(a, 0)) == INT64_MAX);
	assert_true(int_of(doc, at(a, 1)) == INT64_MIN);
	assert_true(int_of(doc, at(a, 2)) == INT64_C(9007199254740993));
	assert_true(int_of(doc, at(a, 3)) == -INT64_C(9007199254740993));
	assert_true(int_of(doc, at(a, 4)) == 0);
	assert_true(int_of(doc, at(a, 5)) == 0);
	assert_true(int_of(doc, at(a, 6)) == INT64_C(1700000000123));
	hg_json_doc_destroy(doc);
}

/* Strings full of digits, commas, brackets and escaped quotes sit between
 * the numbers: each number node must still get its own token. */
static void test_numbers_after_tricky_strings(void **state)
{
	(void)state;
	const char *text =
		"{\"a\\\"1,2\":\"v 3 \\\"4\\\" [5] {6}\","
		"\"n\":[10,[20,{\"x\":\"7\\\\\",\"y\":30}],40],"
		"\"m\":{\"b\":-50,\"s\":\"\\\\\\\"8\",\"c\":60},"
		"\"u\":\"\\u0031 9\",\"z\":70}";
	hg_json_doc *doc = parse_ok(text, NULL);
	const hg_json *root = hg_json_root(doc);
	const hg_json *first = hg_json_first(root);
	assert_string_equal(hg_json_key(first), "a\"1,2");
	assert_string_equal(hg_json_string(first), "v 3 \"4\" [5] {6}");
	const hg_json *n = hg_json_get(root, "n");
	assert_int_equal(int_of(doc, at(n, 0)), 10);
	assert_int_equal(int_of(doc, at(at(n, 1), 0)), 20);
	const hg_json *inner = at(at(n, 1), 1);
	assert_string_equal(hg_json_string(hg_json_get(inner, "x")), "7\\");
	assert_int_equal(int_of(doc, hg_json_get(inner, "y")), 30);
	assert_int_equal(int_of(doc, at(n, 2)), 40);
	const hg_json *m = hg_json_get(root, "m");
	assert_true(int_of(doc, hg_json_get(m, "b")) == -50);
	assert_string_equal(hg_json_string(hg_json_get(m, "s")), "\\\"8");
	assert_int_equal(int_of(doc, hg_json_get(m, "c")), 60);
	assert_string_equal(hg_json_string(hg_json_get(root, "u")), "1 9");
	assert_int_equal(int_of(doc, hg_json_get(root, "z")), 70);
	hg_json_doc_destroy(doc);
}

static void test_int64_rejects_non_integers(void **state)
{
	(void)state;
	const char *text = "[1.5,1e3,1E+2,-0.0,2.0,1e-2,9223372036854775808,"
			   "-9223372036854775809,\"5\",null,true,[1],{\"a\":1}]";
	hg_json_doc *doc = parse_ok(text, NULL);
	const hg_json *a = hg_json_root(doc);
	size_t i = 0;
	for (const hg_json *e = hg_json_first(a); e; e = hg_json_next(e), i++) {
		int64_t v = 777;
		assert_int_equal(hg_json_int64(doc, e, &v), HG_EPARSE);
		assert_true(v == 777);
	}
	assert_int_equal(i, 13);
	/* They are still numbers, with their text as written. */
	const char *s;
	size_t len;
	assert_int_equal(hg_json_type(at(a, 2)), HG_JSON_NUMBER);
	hg_json_number_text(doc, at(a, 2), &s, &len);
	assert_int_equal(len, 4);
	assert_memory_equal(s, "1E+2", 4);
	hg_json_doc_destroy(doc);
}

static void test_number_offset(void **state)
{
	(void)state;
	const char *text = "{\"id\":\"-42\", \"n\" : -42 ,\"arr\":[ 7 ,\"7\", 700]}";
	hg_json_doc *doc = parse_ok(text, NULL);
	const hg_json *root = hg_json_root(doc);
	const hg_json *n = hg_json_get(root, "n");
	size_t off = hg_json_number_offset(doc, n);
	assert_int_equal(off, (size_t)(strstr(text, " -42 ") + 1 - text));
	const char *s;
	size_t len;
	hg_json_number_text(doc, n, &s, &len);
	assert_ptr_equal(s, text + off);
	assert_int_equal(len, 3);
	const hg_json *arr = hg_json_get(root, "arr");
	assert_int_equal(hg_json_number_offset(doc, at(arr, 0)),
			 (size_t)(strstr(text, "[ 7") + 2 - text));
	assert_int_equal(hg_json_number_offset(doc, at(arr, 2)),
			 (size_t)(strstr(text, "700") - text));
	hg_json_doc_destroy(doc);
}

/* A syntax error: HG_EPARSE, no document, and `end` within [lo, hi]. */
static void expect_error(const char *text, size_t lo, size_t hi)
{
	hg_json_doc *doc = (hg_json_doc *)1;
	size_t end = 9999;
	assert_int_equal(hg_json_parse(text, strlen(text), &doc, &end), HG_EPARSE);
	assert_null(doc);
	assert_in_range(end, lo, hi);
}

static void test_syntax_errors(void **state)
{
	(void)state;
	expect_error("", 0, 0);
	expect_error("   ", 0, 3);
	expect_error("{\"a\":[1,2", 7, 9);        /* truncated */
	expect_error("{\"a\":", 4, 5);
	expect_error("[1,2,]", 4, 5);             /* trailing comma */
	expect_error("{\"a\":1,}", 6, 7);
	expect_error("{\"a\":\"abc", 5, 9);       /* unterminated string */
	expect_error("[\"abc\\\"]", 1, 8);        /* the quote is escaped */
	expect_error("{\"a\" 1}", 4, 5);          /* missing colon */
	expect_error("[1 2]", 2, 3);
	expect_error("{a:1}", 0, 2);              /* unquoted key */
	expect_error("[01x]", 1, 4);
	expect_error("[tru]", 1, 4);
	expect_error("-", 0, 1);
}

/* Truncation by length, not by NUL: the rest of the buffer is not read. */
static void test_parse_stops_at_len(void **state)
{
	(void)state;
	char buf[] = "[123]";
	buf[4] = '\0';
	hg_json_doc *doc = NULL;
	size_t end = 0;
	assert_int_equal(hg_json_parse(buf, 4, &doc, &end), HG_EPARSE);
	assert_null(doc);
	const char *text = "[1,2]xyz";
	assert_int_equal(hg_json_parse(text, 5, &doc, &end), 0);
	assert_int_equal(end, 5);
	hg_json_doc_destroy(doc);
}

static void expect_end(const char *text, size_t want)
{
	size_t end;
	hg_json_doc *doc = parse_ok(text, &end);
	assert_int_equal(end, want);
	hg_json_doc_destroy(doc);
}

static void test_end_after_first_value(void **state)
{
	(void)state;
	expect_end("{\"a\":1} {\"b\":2}", 7);
	expect_end("{\"a\":1}\n{\"b\":2}\n", 7);
	expect_end("  [1]  x", 5);
	expect_end("\"str\"tail", 5);
	expect_end("nulltrue", 4);
	expect_end("[1,2]]", 5);
	size_t end;
	hg_json_doc *doc = parse_ok("123 456", &end);
	assert_int_equal(end, 3);
	assert_int_equal(int_of(doc, hg_json_root(doc)), 123);
	hg_json_doc_destroy(doc);
	/* Numbers in the trailing text are not the document's. */
	doc = parse_ok("[5] [6, 7]", &end);
	assert_int_equal(end, 3);
	assert_int_equal(int_of(doc, at(hg_json_root(doc), 0)), 5);
	hg_json_doc_destroy(doc);
}

static void expect_written(const char *text, const char *want)
{
	hg_json_doc *doc = parse_ok(text, NULL);
	hg_buf out;
	hg_buf_init(&out);
	hg_json_write(doc, hg_json_root(doc), &out);
	assert_false(out.failed);
	assert_int_equal(out.len, strlen(want));
	assert_memory_equal(out.data, want, out.len);
	hg_buf_release(&out);
	hg_json_doc_destroy(doc);
}

static void test_write_numbers_verbatim(void **state)
{
	(void)state;
	expect_written("{ \"a\" : [ 1.50 , -0 , 1E+2 , 9223372036854775807 ,\n 9007199254740993, "
		       "0.1000000000000000055511151231257827 ] ,\"b\":\"x\\\"y\\\\z\\n\", "
		       "\"c\" : null, \"d\":true, \"e\":false, \"f\":{} , \"g\":[ ] }",
		       "{\"a\":[1.50,-0,1E+2,9223372036854775807,9007199254740993,"
		       "0.1000000000000000055511151231257827],\"b\":\"x\\\"y\\\\z\\n\","
		       "\"c\":null,\"d\":true,\"e\":false,\"f\":{},\"g\":[]}");
	expect_written("-12.500e-3", "-12.500e-3");
	expect_written("\"\\u0041\"", "\"A\"");
}

static void test_duplicate_keys_first_wins(void **state)
{
	(void)state;
	hg_json_doc *doc = parse_ok("{\"k\":1,\"K\":3,\"k\":2,\"k\":{\"k\":4}}", NULL);
	const hg_json *root = hg_json_root(doc);
	assert_int_equal(hg_json_count(root), 4);
	assert_int_equal(int_of(doc, hg_json_get(root, "k")), 1);
	assert_int_equal(int_of(doc, hg_json_get(root, "K")), 3);
	/* Iteration still sees every member in order. */
	const hg_json *third = hg_json_next(hg_json_next(hg_json_first(root)));
	assert_string_equal(hg_json_key(third), "k");
	assert_int_equal(int_of(doc, third), 2);
	hg_json_doc_destroy(doc);
}

static char *repeat(const char *open, size_t n, const char *middle, const char *close)
{
	size_t lo = strlen(open), lm = strlen(middle), lc = strlen(close);
	char *s = malloc(n * (lo + lc) + lm + 1);
	assert_non_null(s);
	char *p = s;
	for (size_t i = 0; i < n; i++, p += lo)
		memcpy(p, open, lo);
	memcpy(p, middle, lm);
	p += lm;
	for (size_t i = 0; i < n; i++, p += lc)
		memcpy(p, close, lc);
	*p = '\0';
	return s;
}

static void test_deep_nesting_fails_cleanly(void **state)
{
	(void)state;
	char *open = repeat("[", 5000, "", "");
	expect_error(open, 0, 5000);
	free(open);
	char *closed = repeat("[", 5000, "1", "]");
	expect_error(closed, 0, strlen(closed));
	free(closed);
	char *objects = repeat("{\"a\":", 5000, "1", "}");
	expect_error(objects, 0, strlen(objects));
	free(objects);
	/* Moderately deep documents still work, numbers included. */
	char *deep = repeat("[\"9\",", 500, "-9007199254740993", "]");
	hg_json_doc *doc = parse_ok(deep, NULL);
	const hg_json *node = hg_json_root(doc);
	for (int i = 0; i < 500; i++)
		node = at(node, 1);
	assert_true(int_of(doc, node) == -INT64_C(9007199254740993));
	hg_json_doc_destroy(doc);
	free(deep);
}

static void test_first_newline(void **state)
{
	(void)state;
	hg_json_doc *doc = parse_ok("{\"a\":1,\n \"b\":\"x\\ny\"}", NULL);
	assert_int_equal(hg_json_first_newline(doc), 7);
	hg_json_doc_destroy(doc);
	doc = parse_ok("{\"a\":\"x\\ny\"}", NULL);
	assert_int_equal(hg_json_first_newline(doc), SIZE_MAX);
	hg_json_doc_destroy(doc);
}

/* ---- hot arrays (hg_json_parse_hot) ---- */

static hg_json_doc *parse_hot(const char *text, size_t *end)
{
	hg_json_doc *doc = NULL;
	size_t e = 0;
	assert_int_equal(hg_json_parse_hot(text, strlen(text), "stack", &doc, &e), 0);
	assert_non_null(doc);
	if (end)
		*end = e;
	return doc;
}

static void test_hot_array_exact(void **state)
{
	(void)state;
	const char *text = "{\"stack\":[ 1, -2 ,9223372036854775807,-9223372036854775807 ],"
			   "\"other\":[3],\"after\":[\"5\",6]} tail";
	size_t end;
	hg_json_doc *doc = parse_hot(text, &end);
	assert_int_equal(end, strlen(text) - 5);
	const hg_json *root = hg_json_root(doc);
	const int64_t *v;
	size_t n;
	assert_int_equal(hg_json_int_array(doc, hg_json_get(root, "stack"), &v, &n), 0);
	assert_int_equal(n, 4);
	assert_true(v[0] == 1 && v[1] == -2 && v[2] == INT64_MAX && v[3] == -INT64_MAX);
	assert_int_equal(hg_json_int_array(doc, hg_json_get(root, "other"), &v, &n), HG_EINVAL);
	/* Numbers after the hidden array still map to their tokens. */
	assert_int_equal(int_of(doc, at(hg_json_get(root, "other"), 0)), 3);
	assert_int_equal(int_of(doc, at(hg_json_get(root, "after"), 1)), 6);
	assert_int_equal(hg_json_number_offset(doc, at(hg_json_get(root, "after"), 1)),
			 (size_t)(strstr(text, "6]") - text));
	hg_buf out;
	hg_buf_init(&out);
	hg_json_write(doc, hg_json_get(root, "stack"), &out);
	assert_string_equal(out.data, "[1,-2,9223372036854775807,-9223372036854775807]");
	hg_buf_release(&out);
	hg_json_doc_destroy(doc);
}

/* Reads an array of integers exactly, hot or not, as a report reader does. */
static size_t read_ints(const hg_json_doc *doc, const hg_json *array, int64_t *out, size_t max)
{
	const int64_t *v;
	size_t n = 0;
	if (hg_json_int_array(doc, array, &v, &n) == 0) {
		assert_true(n <= max);
		memcpy(out, v, n * sizeof *v);
		return n;
	}
	for (const hg_json *e = hg_json_first(array); e; e = hg_json_next(e)) {
		assert_true(n < max);
		out[n++] = int_of(doc, e);
	}
	return n;
}

/* Whichever path an array takes, its extreme values come out exact. */
static void test_hot_array_extremes(void **state)
{
	(void)state;
	const char *text = "{\"stack\":[-9223372036854775808,9223372036854775807,0],\"n\":-1}";
	hg_json_doc *doc = parse_hot(text, NULL);
	const hg_json *root = hg_json_root(doc);
	int64_t v[4];
	assert_int_equal(read_ints(doc, hg_json_get(root, "stack"), v, 4), 3);
	assert_true(v[0] == INT64_MIN && v[1] == INT64_MAX && v[2] == 0);
	assert_true(int_of(doc, hg_json_get(root, "n")) == -1);
	hg_json_doc_destroy(doc);
}

/* An array under the hot key that is not all integers stays ordinary. */
static void test_hot_key_with_other_values(void **state)
{
	(void)state;
	const char *text = "{\"stack\":[1,2.5,9223372036854775808],\"x\":4,"
			   "\"inner\":{\"stack\":[]},\"s\":{\"stack\":\"7\"}}";
	hg_json_doc *doc = parse_hot(text, NULL);
	const hg_json *root = hg_json_root(doc);
	const hg_json *stack = hg_json_get(root, "stack");
	const int64_t *v;
	size_t n = 99;
	assert_int_equal(hg_json_int_array(doc, stack, &v, &n), HG_EINVAL);
	assert_int_equal(hg_json_count(stack), 3);
	assert_int_equal(int_of(doc, at(stack, 0)), 1);
	int64_t big;
	assert_int_equal(hg_json_int64(doc, at(stack, 2), &big), HG_EPARSE);
	assert_int_equal(int_of(doc, hg_json_get(root, "x")), 4);
	const hg_json *inner = hg_json_get(hg_json_get(root, "inner"), "stack");
	assert_int_equal(hg_json_int_array(doc, inner, &v, &n), 0);
	assert_int_equal(n, 0);
	assert_string_equal(hg_json_string(hg_json_get(hg_json_get(root, "s"), "stack")), "7");
	hg_json_doc_destroy(doc);
}

/* Only a key makes an array hot: wherever the member sits in its object,
 * and never a string value that happens to read "stack". */
static void test_hot_key_anywhere(void **state)
{
	(void)state;
	const char *text = "{\"a\":1,\"b\":\"stack\",\"c\":[5],\"stack\":[7,8],"
			   "\"d\":[\"stack\",[9]],\"e\":{\"x\":[],\"stack\":[10]}}";
	hg_json_doc *doc = parse_hot(text, NULL);
	const hg_json *root = hg_json_root(doc);
	const int64_t *v;
	size_t n;
	assert_int_equal(hg_json_int_array(doc, hg_json_get(root, "stack"), &v, &n), 0);
	assert_int_equal(n, 2);
	assert_true(v[0] == 7 && v[1] == 8);
	const hg_json *e = hg_json_get(hg_json_get(root, "e"), "stack");
	assert_int_equal(hg_json_int_array(doc, e, &v, &n), 0);
	assert_true(n == 1 && v[0] == 10);
	assert_int_equal(hg_json_int_array(doc, hg_json_get(root, "c"), &v, &n), HG_EINVAL);
	const hg_json *d = hg_json_get(root, "d");
	assert_int_equal(hg_json_int_array(doc, at(d, 1), &v, &n), HG_EINVAL);
	assert_int_equal(int_of(doc, at(at(d, 1), 0)), 9);
	assert_int_equal(int_of(doc, at(hg_json_get(root, "c"), 0)), 5);
	assert_int_equal(int_of(doc, hg_json_get(root, "a")), 1);
	hg_json_doc_destroy(doc);
}

/* Integers past int64 in a hot array are never wrapped into it. */
static void test_hot_array_overflow(void **state)
{
	(void)state;
	const char *texts[] = {"{\"stack\":[1,9223372036854775808]}",
			       "{\"stack\":[1,-9223372036854775809]}",
			       "{\"stack\":[1,18446744073709551617]}",
			       "{\"stack\":[1,99999999999999999999]}"};
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
		hg_json_doc *doc = parse_hot(texts[i], NULL);
		const hg_json *stack = hg_json_get(hg_json_root(doc), "stack");
		const int64_t *v;
		size_t n;
		assert_int_equal(hg_json_int_array(doc, stack, &v, &n), HG_EINVAL);
		int64_t x;
		assert_int_equal(hg_json_int64(doc, at(stack, 1), &x), HG_EPARSE);
		assert_int_equal(int_of(doc, at(stack, 0)), 1);
		hg_json_doc_destroy(doc);
	}
}

/* The hot array's digits are read eight at a time where 24 bytes of text
 * remain and one at a time nearer the end: every int64 of every length and
 * sign, at every distance from the end of the text, comes out exact, and
 * -2^63 stays hot. */
static void test_hot_array_every_length(void **state)
{
	(void)state;
	int64_t want[200];
	size_t n = 0;
	want[n++] = INT64_MIN;
	want[n++] = INT64_MAX;
	want[n++] = INT64_MIN + 1;
	want[n++] = 0;
	uint64_t p = 1;
	for (int digits = 1; digits <= 19; digits++, p *= 10) {
		uint64_t all9 = p * 10 - 1 > (uint64_t)INT64_MAX ? (uint64_t)INT64_MAX : p * 10 - 1;
		uint64_t mid = p + (all9 - p) / 3;
		want[n++] = (int64_t)p;
		want[n++] = -(int64_t)p;
		want[n++] = (int64_t)all9;
		want[n++] = -(int64_t)all9;
		want[n++] = (int64_t)mid;
		want[n++] = -(int64_t)mid;
	}
	/* Cut after every value: "]}" after it, so the tail path reads the last. */
	for (size_t cut = 1; cut <= n; cut++) {
		hg_buf part;
		hg_buf_init(&part);
		hg_buf_puts(&part, "{\"stack\":[");
		for (size_t k = 0; k < cut; k++)
			hg_buf_printf(&part, "%s%lld", k ? (k % 7 == 3 ? " ,\n " : ",") : "",
				      (long long)want[k]);
		hg_buf_puts(&part, "]}");
		hg_json_doc *doc = parse_hot(part.data, NULL);
		const int64_t *v;
		size_t got;
		assert_int_equal(hg_json_int_array(doc, hg_json_get(hg_json_root(doc), "stack"), &v, &got),
				 0);
		assert_int_equal(got, cut);
		for (size_t k = 0; k < cut; k++)
			assert_true(v[k] == want[k]);
		hg_json_doc_destroy(doc);
		hg_buf_release(&part);
	}
}

/* What is not a plain integer leaves the array to the exact reader, at the
 * start of a long array (read eight digits at a time) as at its end. */
/* Random words of every length, signs and spacing, as strtoll reads them
 * (the 16-byte reader, the 8-byte one near the end, the byte one last). */
static void test_hot_array_random(void **state)
{
	(void)state;
	uint64_t x = 88172645463325252u;
	hg_buf b;
	hg_buf_init(&b);
	hg_buf_puts(&b, "{\"buffer\":[");
	size_t n = 5000;
	int64_t *want = malloc(n * sizeof *want);
	assert_non_null(want);
	for (size_t k = 0; k < n; k++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
		int64_t w = (int64_t)(x >> (x % 64)); /* every magnitude */
		want[k] = (x & 1) ? -w : w;
		if (k % 997 == 5)
			want[k] = (x & 2) ? INT64_MIN : INT64_MAX;
		hg_buf_printf(&b, "%s%lld", k ? (k % 13 == 4 ? " , " : ",") : "", (long long)want[k]);
	}
	hg_buf_puts(&b, "]}");
	hg_buf_putc(&b, '\0');
	hg_json_doc *doc = NULL;
	size_t end = 0;
	assert_int_equal(hg_json_parse_hot(b.data, b.len - 1, "buffer", &doc, &end), 0);
	const int64_t *v;
	size_t got;
	assert_int_equal(hg_json_int_array(doc, hg_json_get(hg_json_root(doc), "buffer"), &v, &got), 0);
	assert_int_equal(got, n);
	for (size_t k = 0; k < n; k++)
		assert_true(v[k] == want[k]);
	hg_json_doc_destroy(doc);
	free(want);
	hg_buf_release(&b);
}

static void test_hot_array_not_plain(void **state)
{
	(void)state;
	const char *odd[] = {"12345678901234567890", "-12345678901234567890", "00000000000000000001",
			     "9223372036854775808", "-9223372036854775809", "1.5", "1e3", "12345678e1",
			     "1234567890123456.5", "-", "--1", "+1", "1-", "0x10", "1E", "9999999999999999999"};
	const char *filler = ",1000000000000000000,-1000000000000000000,22,333";
	for (size_t k = 0; k < sizeof odd / sizeof *odd; k++) {
		for (int at_end = 0; at_end < 2; at_end++) {
			hg_buf t;
			hg_buf_init(&t);
			if (at_end)
				hg_buf_printf(&t, "{\"stack\":[7%s,%s],\"n\":5}", filler, odd[k]);
			else
				hg_buf_printf(&t, "{\"stack\":[%s%s%s],\"n\":5}", odd[k], filler, filler);
			hg_json_doc *doc = NULL;
			size_t end = 0;
			int rc = hg_json_parse_hot(t.data, t.len, "stack", &doc, &end);
			if (rc == 0) {
				const hg_json *stack = hg_json_get(hg_json_root(doc), "stack");
				const int64_t *v;
				size_t n;
				assert_int_equal(hg_json_int_array(doc, stack, &v, &n), HG_EINVAL);
				assert_int_equal(hg_json_count(stack), at_end ? 6 : 9);
				assert_int_equal(int_of(doc, hg_json_get(hg_json_root(doc), "n")), 5);
				hg_json_doc_destroy(doc);
			} else {
				assert_int_equal(rc, HG_EPARSE); /* not JSON at all, as cJSON says */
			}
			hg_buf_release(&t);
		}
	}
}

/* Buffers are read 64 bytes at a time where they are all "digits,": a
 * token that is not, at every place in such a block and amid words of
 * every length, leaves the array to the exact reader, or the text to
 * cJSON's verdict, just as it does at an array's ends. */
static void odd_inside_blocks(void);

/* Each reader of the words (json_words.h): the best this processor runs,
 * the SSE2 build, none (word by word). */
static void test_hot_array_odd_inside_blocks(void **state)
{
	(void)state;
	for (int r = JSON_WORDS_BEST; r <= JSON_WORDS_NONE; r++) {
		json_words_use((enum json_words_reader)r);
		odd_inside_blocks();
	}
	json_words_use(JSON_WORDS_BEST);
}

static void odd_inside_blocks(void)
{
	const char *odd[] = {"12345678901234567890", "-12345678901234567890", "9223372036854775808",
			     "-9223372036854775809", "1.5", "1e3", "-", "--1", "1-", "-1-", "+1", "1 2",
			     "", "1,,2", "-,", "\"7\"", "null", "[1]", "12345678901234567890123"};
	const char *plain[] = {"-9223372036854775808", "9223372036854775807", "-0", "007",
			       "0000000000000000001", "1 ", " 2", "3\n", "-9"};
	uint64_t x = 0x2545F4914F6CDD1Du;
	for (size_t t = 0; t < sizeof odd / sizeof *odd + sizeof plain / sizeof *plain; t++) {
		bool is_odd = t < sizeof odd / sizeof *odd;
		const char *token = is_odd ? odd[t] : plain[t - sizeof odd / sizeof *odd];
		for (size_t before = 0; before < 80; before++) {
			hg_buf b;
			hg_buf_init(&b);
			hg_buf_puts(&b, "{\"stack\":[");
			int64_t want[256];
			size_t n = 0;
			for (size_t k = 0; k < before + 100; k++) {
				if (k == before) {
					hg_buf_printf(&b, "%s,", token);
					continue;
				}
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				int64_t w = (int64_t)(x >> (x % 64));
				want[n++] = (x & 1) ? -w : w;
				hg_buf_printf(&b, "%lld,", (long long)want[n - 1]);
			}
			hg_buf_puts(&b, "5]}");
			hg_json_doc *doc = NULL;
			size_t end = 0;
			int rc = hg_json_parse_hot(b.data, b.len, "stack", &doc, &end);
			cJSON *ref = cJSON_ParseWithLength(b.data, b.len);
			assert_int_equal(rc == 0, ref != NULL); /* cJSON's verdict on the text */
			if (rc == 0) {
				const hg_json *stack = hg_json_get(hg_json_root(doc), "stack");
				const int64_t *v;
				size_t got;
				int hot = hg_json_int_array(doc, stack, &v, &got);
				if (is_odd) {
					assert_int_equal(hot, HG_EINVAL);
					assert_int_equal(hg_json_count(stack),
							 cJSON_GetArraySize(cJSON_GetObjectItem(ref, "stack")));
				} else {
					assert_int_equal(hot, 0);
					assert_int_equal(got, n + 2);
					for (size_t k = 0, w = 0; k < got - 1; k++)
						if (k != before)
							assert_true(v[k] == want[w++]);
					assert_true(v[got - 1] == 5);
				}
				hg_json_doc_destroy(doc);
			}
			cJSON_Delete(ref);
			hg_buf_release(&b);
		}
	}
}

/* Long buffers of words of every length (1 to 19 digits, either sign,
 * int64's ends among them), some with a space, a 20th digit or a word past
 * int64 at a random place: every reader (json_words.h) gives the same
 * verdict and the same words as strtoll, across 64-byte blocks and 2 KiB
 * chunks. */
static void test_word_readers_agree(void **state)
{
	(void)state;
	uint64_t x = 0x9E3779B97F4A7C15u;
	for (int round = 0; round < 300; round++) {
		hg_buf b;
		hg_buf_init(&b);
		hg_buf_puts(&b, "{\"buffer\":[");
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t n = 1 + x % 700, odd_at = round % 3 == 0 ? (x >> 20) % n : SIZE_MAX;
		int odd_kind = (int)(x >> 40) % 4;
		for (size_t k = 0; k < n; k++) {
			if (k == odd_at) {
				const char *odd[] = {" 1", "12345678901234567890", "9223372036854775808",
						     "-9223372036854775809"};
				hg_buf_printf(&b, "%s%s", odd[odd_kind], k + 1 < n ? "," : "");
				continue;
			}
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			int64_t w = k % 97 == 5 ? INT64_MIN : k % 89 == 7 ? INT64_MAX
								   : (int64_t)(x >> (x % 63));
			w = (x & 1) && w != INT64_MIN ? -w : w;
			hg_buf_printf(&b, "%lld%s", (long long)w, k + 1 < n ? "," : "");
		}
		hg_buf_puts(&b, "]}");
		int64_t first[800];
		size_t first_n = 0;
		int first_rc = 0;
		for (int r = JSON_WORDS_BEST; r <= JSON_WORDS_NONE; r++) {
			json_words_use((enum json_words_reader)r);
			hg_json_doc *doc = NULL;
			size_t end = 0;
			assert_int_equal(hg_json_parse_hot(b.data, b.len, "buffer", &doc, &end), 0);
			const int64_t *v = NULL;
			size_t got = 0;
			int rc = hg_json_int_array(doc, hg_json_get(hg_json_root(doc), "buffer"), &v, &got);
			if (r == JSON_WORDS_BEST) {
				first_rc = rc;
				first_n = got;
				if (rc == 0)
					memcpy(first, v, got * sizeof *v);
				/* strtoll's words, where the array is plain */
				const char *p = strchr(b.data, '[') + 1;
				for (size_t k = 0; rc == 0 && k < got; k++) {
					char *e;
					assert_true(strtoll(p, &e, 10) == v[k]);
					p = e + 1;
				}
				assert_int_equal(rc == 0, odd_at == SIZE_MAX || odd_kind == 0);
			} else {
				assert_int_equal(rc, first_rc);
				assert_int_equal(got, first_n);
				for (size_t k = 0; rc == 0 && k < got; k++)
					assert_true(v[k] == first[k]);
			}
			hg_json_doc_destroy(doc);
		}
		hg_buf_release(&b);
	}
	json_words_use(JSON_WORDS_BEST);
}

/* Leading zeros, "-0" and spaces are read as before: plain integers. */
static void test_hot_array_quirks(void **state)
{
	(void)state;
	const char *text = "{\"stack\":[007,-0,0000000000000000001, 12 ,\t-3\r\n,"
			   "0000000000000000000,-0000000000000000005],\"after\":1}";
	hg_json_doc *doc = parse_hot(text, NULL);
	const int64_t *v;
	size_t n;
	assert_int_equal(hg_json_int_array(doc, hg_json_get(hg_json_root(doc), "stack"), &v, &n), 0);
	assert_int_equal(n, 7);
	assert_true(v[0] == 7 && v[1] == 0 && v[2] == 1 && v[3] == 12 && v[4] == -3 && v[5] == 0 &&
		    v[6] == -5);
	assert_int_equal(hg_json_first_newline(doc), (size_t)(strchr(text, '\n') - text));
	hg_json_doc_destroy(doc);
}

static void test_hot_error_offsets(void **state)
{
	(void)state;
	const char *text = "{\"stack\":[1,2,3],\"a\":}";
	hg_json_doc *doc = NULL;
	size_t end = 0;
	assert_int_equal(hg_json_parse_hot(text, strlen(text), "stack", &doc, &end), HG_EPARSE);
	assert_null(doc);
	/* In the caller's text, not in the text cJSON was shown. */
	assert_in_range(end, 20, strlen(text));
}

/* JSON strings hold no raw control bytes: a raw NUL, tab or line break is
 * an error at that byte, named as such (a line break is the usual cut
 * NDJSON line, left to "invalid JSON ... truncated?"). */
static void test_raw_control_bytes(void **state)
{
	(void)state;
	static const char text[] = "{\"a\":\"x\0y\",\"b\":1}";
	hg_json_doc *doc = NULL;
	size_t end = 0;
	const char *why = NULL;
	assert_int_equal(hg_json_parse_keys(text, sizeof text - 1, NULL, NULL, &doc, &end, &why), HG_EPARSE);
	assert_null(doc);
	assert_int_equal(end, 7);
	assert_non_null(why);
	assert_non_null(strstr(why, "raw control byte"));
	const char *tab = "[\"a\tb\"]";
	assert_int_equal(hg_json_parse_keys(tab, strlen(tab), "buffer", NULL, &doc, &end, &why), HG_EPARSE);
	assert_int_equal(end, 3);
	assert_non_null(why);
	const char *line = "{\"a\":\"cut\n{\"b\":2}\n";
	assert_int_equal(hg_json_parse_keys(line, strlen(line), NULL, NULL, &doc, &end, &why), HG_EPARSE);
	assert_int_equal(end, 9);
	assert_null(why);
	/* Escaped, they are fine. */
	hg_json_doc_destroy(parse_ok("[\"a\\tb\\u0001\"]", NULL));
}

/* \u0000 never cuts a string: it is kept as C0 80 and written back as
 * \u0000, in keys and values, beside other escapes and surrogate pairs. */
static void test_escaped_nul_kept(void **state)
{
	(void)state;
	const char *text = "{\"k\\u0000ey\":\"a\\u0000b\\n\\ud83d\\ude00\\u00e9\",\"n\":[1,\"\\u0000\"],"
			   "\"plain\":\"p\",\"buffer\":[1,2],\"z\":\"\\u0000\\u0000\"}";
	hg_json_doc *doc = NULL;
	size_t end = 0;
	assert_int_equal(hg_json_parse_hot(text, strlen(text), "buffer", &doc, &end), 0);
	const hg_json *root = hg_json_root(doc);
	const hg_json *first = hg_json_first(root);
	assert_string_equal(hg_json_key(first), "k\xC0\x80" "ey");
	assert_string_equal(hg_json_string(first), "a\xC0\x80" "b\n\xF0\x9F\x98\x80\xC3\xA9");
	assert_string_equal(hg_json_string(at(hg_json_get(root, "n"), 1)), "\xC0\x80");
	assert_string_equal(hg_json_string(hg_json_get(root, "plain")), "p");
	assert_string_equal(hg_json_string(hg_json_get(root, "z")), "\xC0\x80\xC0\x80");
	assert_int_equal(hg_json_int_array(doc, hg_json_get(root, "buffer"), &(const int64_t *){0},
					   &(size_t){0}), 0);
	hg_buf out;
	hg_buf_init(&out);
	hg_json_write(doc, root, &out);
	hg_buf_putc(&out, '\0');
	assert_string_equal(out.data, "{\"k\\u0000ey\":\"a\\u0000b\\n\xF0\x9F\x98\x80\xC3\xA9\","
				      "\"n\":[1,\"\\u0000\"],\"plain\":\"p\",\"buffer\":[1,2],"
				      "\"z\":\"\\u0000\\u0000\"}");
	hg_buf_release(&out);
	hg_json_doc_destroy(doc);
}

/* Nesting over cJSON's limit is named as such. */
static void test_nesting_limit_named(void **state)
{
	(void)state;
	char *open = repeat("[", 1001, "", "");
	hg_json_doc *doc = NULL;
	size_t end = 0;
	const char *why = NULL;
	assert_int_equal(hg_json_parse_keys(open, strlen(open), NULL, NULL, &doc, &end, &why), HG_EPARSE);
	assert_int_equal(end, 1000);
	assert_non_null(why);
	assert_non_null(strstr(why, "nested deeper than 1000"));
	free(open);
	char *ok = repeat("[", 1000, "", "]");
	assert_int_equal(hg_json_parse_keys(ok, strlen(ok), NULL, NULL, &doc, &end, &why), 0);
	hg_json_doc_destroy(doc);
	free(ok);
}

/* The parse looks at the value and no further, however long the text after
 * it (a stream of reports): at most three times its length (the scan, and
 * the text shown to cJSON, counted twice). */
static void test_touches_only_the_value(void **state)
{
	(void)state;
	size_t n = 1 << 20;
	char *text = malloc(n + 1);
	assert_non_null(text);
	memset(text, ' ', n);
	const char *value = "{\"buffer\":[1,2,3],\"s\":\"x\"}";
	memcpy(text, value, strlen(value));
	memcpy(text + 100, "{\"a\":1}", 7);
	text[n] = '\0';
	size_t before = hg_json_bytes_touched(), end = 0;
	hg_json_doc *doc = NULL;
	assert_int_equal(hg_json_parse_hot(text, n, "buffer", &doc, &end), 0);
	assert_int_equal(end, strlen(value));
	assert_true(hg_json_bytes_touched() - before <= 3 * strlen(value));
	hg_json_doc_destroy(doc);
	/* An error too: a value cut by a line break is not read on past it. */
	memcpy(text, "{\"buffer\":[1,2,", 15);
	text[15] = '\n';
	before = hg_json_bytes_touched();
	assert_int_equal(hg_json_parse_hot(text, n, "buffer", &doc, &end), HG_EPARSE);
	assert_true(hg_json_bytes_touched() - before <= 3 * 200);
	free(text);
}

/* A lazy array is checked, hidden from the tree, and read one element at a
 * time, with number offsets in the whole text; written whole all the same. */
static void test_lazy_array(void **state)
{
	(void)state;
	const char *text = "{\"a\":1,\"contents\":[{\"pc\":17},\n {\"pc\":-9007199254740993,"
			   "\"s\":\"x\\u0000y\"}, [2]],\"b\":[3]}";
	hg_json_doc *doc = NULL, *e = NULL;
	size_t end = 0, n = 0;
	assert_int_equal(hg_json_parse_keys(text, strlen(text), "buffer", "contents", &doc, &end, NULL),
			 0);
	const hg_json *root = hg_json_root(doc), *lazy = hg_json_get(root, "contents");
	assert_int_equal(hg_json_count(lazy), 0);
	assert_int_equal(hg_json_lazy_count(doc, lazy, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(int_of(doc, hg_json_get(root, "a")), 1);
	assert_int_equal(int_of(doc, at(hg_json_get(root, "b"), 0)), 3);
	assert_int_equal(hg_json_lazy_element(doc, lazy, 1, &e), 0);
	const hg_json *pc = hg_json_get(hg_json_root(e), "pc");
	assert_true(int_of(e, pc) == -INT64_C(9007199254740993));
	assert_int_equal(hg_json_number_offset(e, pc), (size_t)(strstr(text, "-9007") - text));
	assert_string_equal(hg_json_string(hg_json_get(hg_json_root(e), "s")), "x\xC0\x80y");
	hg_json_doc_destroy(e);
	assert_int_equal(hg_json_lazy_element(doc, lazy, 3, &e), HG_EINVAL);
	assert_int_equal(hg_json_lazy_count(doc, hg_json_get(root, "b"), &n), HG_EINVAL);
	hg_buf out;
	hg_buf_init(&out);
	hg_json_write(doc, root, &out);
	hg_buf_putc(&out, '\0');
	assert_string_equal(out.data, "{\"a\":1,\"contents\":[{\"pc\":17},{\"pc\":-9007199254740993,"
				      "\"s\":\"x\\u0000y\"},[2]],\"b\":[3]}");
	hg_buf_release(&out);
	hg_json_doc_destroy(doc);
	/* Strings holding \u0000 after a lazy array of strings are still
	 * theirs. */
	const char *nul = "{\"contents\":[{\"s\":\"x\"},\"y\"],\"t\":\"a\\u0000b\",\"u\":\"c\\u0000d\"}";
	assert_int_equal(hg_json_parse_keys(nul, strlen(nul), NULL, "contents", &doc, &end, NULL), 0);
	assert_string_equal(hg_json_string(hg_json_get(hg_json_root(doc), "t")), "a\xC0\x80" "b");
	assert_string_equal(hg_json_string(hg_json_get(hg_json_root(doc), "u")), "c\xC0\x80" "d");
	hg_json_doc_destroy(doc);
	/* Broken inside, the whole parse fails there. */
	const char *bad = "{\"contents\":[{\"pc\":1},{\"pc\" 2}]}";
	assert_int_equal(hg_json_parse_keys(bad, strlen(bad), NULL, "contents", &doc, &end, NULL),
			 HG_EPARSE);
	assert_int_equal(end, 28); /* at the 2 where a colon belongs */
}

/* A \u escape without four hex digits is invalid JSON, said where it
 * is (cJSON reads it as a NUL and goes on); cut by the text's end it is a
 * value cut short. */
static void test_bad_unicode_escape(void **state)
{
	(void)state;
	const char *bad = "{\"t\":\"a\\u0a\\u0000b\"}";
	hg_json_doc *doc = NULL;
	size_t end = 0;
	const char *why = NULL;
	assert_int_equal(hg_json_parse_keys(bad, strlen(bad), NULL, NULL, &doc, &end, &why), HG_EPARSE);
	assert_null(doc);
	assert_int_equal(end, 7); /* the backslash */
	assert_non_null(why);
	assert_non_null(strstr(why, "four hex digits"));
	const char *cut = "{\"t\":\"a\\u0a";
	assert_int_equal(hg_json_parse_keys(cut, strlen(cut), NULL, NULL, &doc, &end, &why), HG_EPARSE);
	assert_true(why == NULL || strstr(why, "four hex digits") == NULL);
	doc = parse_ok("{\"t\":\"\\u00e9\\uD83D\\uDE00\"}", NULL);
	assert_string_equal(hg_json_string(hg_json_get(hg_json_root(doc), "t")), "\xC3\xA9\xF0\x9F\x98\x80");
	hg_json_doc_destroy(doc);
}

/* ---- long strings: decoded here and hidden from cJSON ---- */

/* Compares hangar's tree with plain cJSON's, node by node: types, keys,
 * strings (bytes), numbers (as cJSON reads them). */
static void expect_same_tree(const hg_json_doc *doc, const hg_json *mine, const cJSON *theirs)
{
	assert_non_null(theirs);
	switch (hg_json_type(mine)) {
	case HG_JSON_STRING:
		assert_true(cJSON_IsString(theirs));
		assert_string_equal(hg_json_string(mine), theirs->valuestring);
		return;
	case HG_JSON_NUMBER: {
		assert_true(cJSON_IsNumber(theirs));
		int64_t v = 0;
		assert_int_equal(hg_json_int64(doc, mine, &v), 0);
		assert_true((double)v == theirs->valuedouble);
		return;
	}
	case HG_JSON_ARRAY:
	case HG_JSON_OBJECT: {
		assert_true(cJSON_IsArray(theirs) || cJSON_IsObject(theirs));
		const cJSON *t = theirs->child;
		const int64_t *values;
		size_t count;
		if (hg_json_int_array(doc, mine, &values, &count) == 0) { /* a hot array */
			for (size_t i = 0; i < count; i++, t = t->next)
				assert_true(t && (double)values[i] == t->valuedouble);
			assert_null(t);
			return;
		}
		for (const hg_json *m = hg_json_first(mine); m; m = hg_json_next(m), t = t->next) {
			assert_non_null(t);
			if (hg_json_type(mine) == HG_JSON_OBJECT)
				assert_string_equal(hg_json_key(m), t->string);
			expect_same_tree(doc, m, t);
		}
		assert_null(t);
		return;
	}
	default:
		assert_true(cJSON_IsBool(theirs) || cJSON_IsNull(theirs));
	}
}

/* A string token of n characters drawn from pieces that cJSON decodes:
 * plain text, every one-letter escape, and now and then a \u escape
 * (which keeps the string with cJSON) or a digit run. */
static void random_string(hg_buf *b, unsigned *seed, size_t n, bool unicode)
{
	static const char *const pieces[] = {"a", "com.example.Foo.bar(Foo.java:12)", "\\n", "\\t",
					     "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\r", "1,2,3",
					     "\xC3\xA9", " ", "\\u00e9", "\\ud83d\\ude00"};
	hg_buf_putc(b, '"');
	for (size_t k = 0; k < n; k++) {
		*seed = *seed * 1103515245u + 12345u;
		size_t i = (*seed >> 16) % (unicode ? 15 : 13);
		hg_buf_puts(b, pieces[i]);
	}
	hg_buf_putc(b, '"');
}

/* Five hundred documents of long and short strings among numbers, hot
 * arrays and nesting: every string reads as cJSON reads it. */
static void test_long_strings_as_cjson(void **state)
{
	(void)state;
	unsigned seed = 7;
	for (int round = 0; round < 500; round++) {
		hg_buf b;
		hg_buf_init(&b);
		hg_buf_puts(&b, "{");
		for (int m = 0; m < 6; m++) {
			seed = seed * 1103515245u + 12345u;
			unsigned pick = (seed >> 16) % 6;
			hg_buf_printf(&b, "%s\"k%d\":", m ? "," : "", m);
			if (pick == 0)
				hg_buf_printf(&b, "%u", seed % 100000);
			else if (pick == 1)
				hg_buf_puts(&b, "[1,-2,3]"); /* under "k1": the hot key */
			else if (pick == 2) {
				hg_buf_puts(&b, "[");
				random_string(&b, &seed, 40, false);
				hg_buf_puts(&b, ",{\"x\":");
				random_string(&b, &seed, 3, true);
				hg_buf_puts(&b, "},17]");
			} else
				random_string(&b, &seed, pick * 10, pick == 5);
		}
		hg_buf_puts(&b, "}");
		hg_buf_putc(&b, '\0');
		hg_json_doc *doc = NULL;
		size_t end = 0;
		assert_int_equal(hg_json_parse_hot(b.data, b.len - 1, "k1", &doc, &end), 0);
		assert_int_equal(end, b.len - 1);
		cJSON *theirs = cJSON_Parse(b.data);
		expect_same_tree(doc, hg_json_root(doc), theirs);
		cJSON_Delete(theirs);
		hg_json_doc_destroy(doc);
		hg_buf_release(&b);
	}
}

/* Offsets of numbers and of errors are the original text's, with long
 * strings before them; a long string cJSON would refuse is still refused. */
static void test_long_strings_offsets_and_errors(void **state)
{
	(void)state;
	char *body = repeat("ab\\ncd", 30, "", "");
	char *lng = malloc(strlen(body) + 3);
	assert_non_null(lng);
	sprintf(lng, "\"%s\"", body); /* a 180-byte string token */
	free(body);
	hg_buf b;
	hg_buf_init(&b);
	hg_buf_printf(&b, "{\"s\":%s,\"n\":12345,\"t\":%s,\"x\":tru}", lng, lng);
	hg_buf_putc(&b, '\0');
	expect_error(b.data, (size_t)(strstr(b.data, "tru}") - b.data),
		     (size_t)(strstr(b.data, "tru}") - b.data) + 4);
	b.len = 0;
	hg_buf_printf(&b, "{\"s\":%s,\"n\":12345,\"t\":%s}", lng, lng);
	hg_buf_putc(&b, '\0');
	size_t end = 0;
	hg_json_doc *doc = parse_ok(b.data, &end);
	assert_int_equal(end, b.len - 1);
	const hg_json *n = hg_json_get(hg_json_root(doc), "n");
	assert_int_equal(hg_json_number_offset(doc, n), (size_t)(strstr(b.data, "12345") - b.data));
	char *want = repeat("ab\ncd", 30, "", "");
	assert_string_equal(hg_json_string(hg_json_get(hg_json_root(doc), "t")), want);
	free(want);
	hg_json_doc_destroy(doc);
	/* An escape cJSON refuses, an unfinished string, a long key. */
	b.len = 0;
	hg_buf_printf(&b, "{\"s\":\"%0100d\\x\"}", 0);
	hg_buf_putc(&b, '\0');
	expect_error(b.data, 5, b.len);
	b.len = 0;
	hg_buf_printf(&b, "{\"s\":\"%0100d", 0);
	hg_buf_putc(&b, '\0');
	expect_error(b.data, 5, b.len);
	b.len = 0;
	hg_buf_printf(&b, "{\"%0100d\":%s}", 0, lng);
	hg_buf_putc(&b, '\0');
	doc = parse_ok(b.data, NULL);
	assert_int_equal(strlen(hg_json_key(hg_json_first(hg_json_root(doc)))), 100);
	hg_json_doc_destroy(doc);
	hg_buf_release(&b);
	free(lng);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_object_and_array),
		cmocka_unit_test(test_int64_exact),
		cmocka_unit_test(test_numbers_after_tricky_strings),
		cmocka_unit_test(test_int64_rejects_non_integers),
		cmocka_unit_test(test_number_offset),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_parse_stops_at_len),
		cmocka_unit_test(test_end_after_first_value),
		cmocka_unit_test(test_write_numbers_verbatim),
		cmocka_unit_test(test_duplicate_keys_first_wins),
		cmocka_unit_test(test_deep_nesting_fails_cleanly),
		cmocka_unit_test(test_first_newline),
		cmocka_unit_test(test_hot_array_exact),
		cmocka_unit_test(test_hot_array_extremes),
		cmocka_unit_test(test_hot_key_with_other_values),
		cmocka_unit_test(test_hot_key_anywhere),
		cmocka_unit_test(test_hot_array_overflow),
		cmocka_unit_test(test_hot_array_every_length),
		cmocka_unit_test(test_hot_array_random),
		cmocka_unit_test(test_hot_array_not_plain),
		cmocka_unit_test(test_hot_array_odd_inside_blocks),
		cmocka_unit_test(test_word_readers_agree),
		cmocka_unit_test(test_hot_array_quirks),
		cmocka_unit_test(test_hot_error_offsets),
		cmocka_unit_test(test_raw_control_bytes),
		cmocka_unit_test(test_escaped_nul_kept),
		cmocka_unit_test(test_nesting_limit_named),
		cmocka_unit_test(test_touches_only_the_value),
		cmocka_unit_test(test_lazy_array),
		cmocka_unit_test(test_bad_unicode_escape),
		cmocka_unit_test(test_long_strings_as_cjson),
		cmocka_unit_test(test_long_strings_offsets_and_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
