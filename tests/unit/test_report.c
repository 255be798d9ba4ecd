/* Unit tests for reading reports (hg_reports_read, hg_reports_read_raw),
 * symbolication and whole-file input (hg_input_read).
 *
 * Most inputs are in memory and built around one small buffer, SMALL_WORDS:
 * dispatchMessage (1048574) runs from 100 to 200 ms, method 10 from 101 to
 * 160, inside it 11 (102-150) then 12 (151-155).  It rebuilds to
 *   0,1048574,1,100 / 1,10,1,59 / 2,11,1,48 / 2,12,1,4   StackKey "11|".
 * Malformed, truncated and random inputs check that every call accounts for
 * its input with at least one report and never crashes; the suite runs under
 * ASan/UBSan/LSan, so every delivered report is destroyed.  argv[1] is the
 * testdata/ folder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hangar/beat.h"
#include "hangar/input.h"
#include "hangar/mapping.h"
#include "hangar/report.h"

static const char *testdata = "testdata";

#define SMALL_WORDS                                                                           \
	"[-17592186044316,-9223284075924553627,-9223275279831531418,96757023244438,"          \
	"-9223266483738509161,105553116266651,87960930222240,9223354444668731592]"
#define SMALL_BASE64                                                                          \
	"///wAAAAAGSAAFAAAAAAZYAAWAAAAABmAABYAAAAAJaAAGAAAAAAlwAAYAAAAACbAABQAAAAAKB///AAAAAAyA"
#define SMALL_STACK "0,1048574,1,100\\n1,10,1,59\\n2,11,1,48\\n2,12,1,4\\n"

/* ---- fixture: diagnostics and delivered reports, recorded ---- */

#define MAX_DIAGS 32
#define MAX_KEPT 16

struct diag_rec {
	enum hg_severity severity;
	char *source;
	long line, col, report;
	char *message;
};

struct fixture {
	hg_ctx ctx;
	struct diag_rec diag[MAX_DIAGS];
	size_t n_diags, all_diags;
	hg_report *rep[MAX_KEPT]; /* the first reports delivered, kept for asserts */
	size_t n_kept, delivered, errors;
	size_t stop_at;           /* non-zero: the sink returns 7 at this report */
	bool discard;             /* destroy every report at once */
};

static void record_diag(void *user, const hg_diag *d)
{
	struct fixture *f = user;
	f->all_diags++;
	if (f->n_diags == MAX_DIAGS)
		return;
	struct diag_rec *r = &f->diag[f->n_diags++];
	*r = (struct diag_rec){d->severity, strdup(d->source ? d->source : ""), d->line, d->col,
			       d->report, strdup(d->message)};
	assert_true(r->source && r->message);
}

static int sink(void *user, hg_report *rep)
{
	struct fixture *f = user;
	f->delivered++;
	f->errors += rep->error != NULL;
	if (!f->discard && f->n_kept < MAX_KEPT)
		f->rep[f->n_kept++] = rep;
	else
		hg_report_destroy(rep);
	return f->stop_at && f->delivered == f->stop_at ? 7 : 0;
}

static void reset(struct fixture *f)
{
	for (size_t i = 0; i < f->n_diags; i++) {
		free(f->diag[i].source);
		free(f->diag[i].message);
	}
	for (size_t i = 0; i < f->n_kept; i++)
		hg_report_destroy(f->rep[i]);
	f->n_diags = f->all_diags = f->n_kept = f->delivered = f->errors = 0;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	if (!f)
		return -1;
	hg_ctx_init(&f->ctx);
	f->ctx.diag = record_diag;
	f->ctx.diag_user = f;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	reset(*state);
	free(*state);
	return 0;
}

/* ---- helpers ---- */

static void assert_contains(const char *s, const char *needle)
{
	assert_non_null(s);
	if (!strstr(s, needle))
		fail_msg("\"%s\" does not contain \"%s\"", s, needle);
}

/* Reads data[0..len) (NUL-terminated at len) after forgetting the last read. */
static int read_bytes(struct fixture *f, const char *data, size_t len)
{
	reset(f);
	int rc = hg_reports_read(&f->ctx, "mem.json", data, len, sink, f);
	assert_true(rc >= 0);
	return rc;
}

static int read_text(struct fixture *f, const char *text)
{
	return read_bytes(f, text, strlen(text));
}

static const hg_report *one_good(struct fixture *f, const char *text)
{
	assert_int_equal(read_text(f, text), 0);
	assert_int_equal(f->delivered, 1);
	assert_int_equal(f->all_diags, 0);
	const hg_report *r = f->rep[0];
	if (r->error)
		fail_msg("unexpected error: %s", r->error);
	assert_string_equal(r->source, "mem.json");
	assert_int_equal(r->number, 1);
	return r;
}

/* One failed report whose error holds needle, and its one error diagnostic. */
static const hg_report *one_failed(struct fixture *f, const char *text, const char *needle)
{
	assert_int_equal(read_text(f, text), 1);
	assert_int_equal(f->delivered, 1);
	const hg_report *r = f->rep[0];
	assert_contains(r->error, needle);
	assert_int_equal(r->number, 1);
	assert_int_equal(f->all_diags, 1);
	assert_int_equal(f->diag[0].severity, HG_DIAG_ERROR);
	assert_string_equal(f->diag[0].source, "mem.json");
	assert_int_equal(f->diag[0].report, 1);
	assert_string_equal(f->diag[0].message, r->error);
	return r;
}

static void assert_item(const hg_method_stack *s, size_t i, int depth, int id, int count,
			int cost)
{
	assert_true(i < s->len);
	const hg_method_item *it = &s->items[i];
	if (it->depth != depth || it->id != id || it->count != count || it->cost != cost)
		fail_msg("item %zu is %d,%d,%d,%d, expected %d,%d,%d,%d", i, it->depth, it->id,
			 it->count, it->cost, depth, id, count, cost);
}

static void assert_small_stack(const hg_report *r)
{
	assert_int_equal(r->full.len, 4);
	assert_item(&r->full, 0, 0, 1048574, 1, 100);
	assert_item(&r->full, 1, 1, 10, 1, 59);
	assert_item(&r->full, 2, 2, 11, 1, 48);
	assert_item(&r->full, 3, 2, 12, 1, 4);
	assert_int_equal(r->trimmed.len, 4);
	assert_int_equal(r->stack_cost, 100);
	assert_int_equal(r->key_index, 2);
	assert_string_equal(hg_report_stack_key_text(r), "11|");
}

static void assert_warning(const hg_report *r, const char *needle)
{
	for (size_t i = 0; i < r->warnings.len; i++)
		if (strstr(r->warnings.items[i], needle))
			return;
	fail_msg("no warning contains \"%s\" (%zu warnings)", needle, r->warnings.len);
}

static const hg_meta_field *meta(const hg_report *r, const char *key)
{
	for (size_t i = 0; i < r->meta_len; i++)
		if (strcmp(r->meta[i].key, key) == 0)
			return &r->meta[i];
	return NULL;
}

static void assert_meta(const hg_report *r, const char *key, const char *json, const char *text)
{
	const hg_meta_field *m = meta(r, key);
	if (!m)
		fail_msg("no metadata field \"%s\"", key);
	assert_string_equal(m->json, json);
	assert_string_equal(m->text, text);
}

static char *path_in_testdata(const char *rel)
{
	size_t n = strlen(testdata) + strlen(rel) + 2;
	char *p = malloc(n);
	assert_non_null(p);
	snprintf(p, n, "%s/%s", testdata, rel);
	return p;
}

/* ---- shapes of input ---- */

static void test_bare_buffer_report(void **state)
{
	struct fixture *f = *state;
	const hg_report *r = one_good(f, "{\"buffer\":" SMALL_WORDS ",\"cost\":100}");
	assert_small_stack(r);
	assert_true(r->from_buffer);
	assert_int_equal(r->buffer_words, 8);
	assert_int_equal(r->cost, 100);
	assert_int_equal(r->line, 1);
	assert_int_equal(r->kind, HG_KIND_SLOW_METHOD);
	assert_null(r->tag);
	assert_null(r->detail);
	assert_false(r->has_device_key);
	assert_int_equal(r->warnings.len, 0);
	assert_null(r->symbols);
}

static void test_matrix_wrapper(void **state)
{
	struct fixture *f = *state;
	const hg_report *r = one_good(f, "{\"tag\":\"Trace_EvilMethod\",\"type\":0,\"content\":{"
				      "\"detail\":\"LAG_TOUCH\",\"cost\":100,\"scene\":\"a.Main\","
				      "\"process\":\"a.app\",\"buffer\":" SMALL_WORDS "}}");
	assert_small_stack(r);
	assert_string_equal(r->tag, "Trace_EvilMethod");
	assert_string_equal(r->detail, "LAG_TOUCH");
	assert_int_equal(r->kind, HG_KIND_TOUCH_LAG);
	assert_string_equal(r->scene, "a.Main");
	assert_string_equal(r->process, "a.app");
	/* Content's fields first, then the wrapper's; "content" itself is not metadata. */
	assert_int_equal(r->meta_len, 6);
	assert_string_equal(r->meta[0].key, "detail");
	assert_meta(r, "type", "0", "0");
	assert_meta(r, "tag", "\"Trace_EvilMethod\"", "Trace_EvilMethod");
	assert_null(meta(r, "content"));
	assert_null(meta(r, "buffer"));
}

static void test_base64_buffer(void **state)
{
	struct fixture *f = *state;
	const hg_report *r = one_good(f, "{\"buffer\":\"" SMALL_BASE64 "==\",\"cost\":100}");
	assert_small_stack(r);
	assert_int_equal(r->buffer_words, 8);
	r = one_good(f, "{\"buffer\":\"" SMALL_BASE64 "\"}"); /* padding is optional */
	assert_small_stack(r);
}

static void test_structured_stack_key_agrees(void **state)
{
	struct fixture *f = *state;
	const hg_report *r = one_good(f, "{\"stack\":\"" SMALL_STACK "\",\"stackKey\":\"11|\","
				      "\"cost\":100}");
	assert_small_stack(r);
	assert_false(r->from_buffer);
	assert_true(r->has_device_key);
	assert_string_equal(r->device_key, "11|");
	assert_int_equal(r->warnings.len, 0);
	assert_non_null(meta(r, "stackKey"));
	assert_null(meta(r, "stack"));
}

static void test_structured_stack_key_differs(void **state)
{
	struct fixture *f = *state;
	const hg_report *r = one_good(f, "{\"stack\":\"" SMALL_STACK "\",\"stackKey\":\"12|\"}");
	assert_string_equal(hg_report_stack_key_text(r), "11|");
	assert_string_equal(r->device_key, "12|");
	assert_int_equal(r->warnings.len, 1);
	assert_contains(r->warnings.items[0], "\"12|\"");
	assert_contains(r->warnings.items[0], "\"11|\"");
}

static void test_ndjson_bad_middle_line(void **state)
{
	struct fixture *f = *state;
	assert_int_equal(read_text(f, "{\"buffer\":" SMALL_WORDS "}\n"
				      "{\"buffer\": [1, 2,, 3]}\n"
				      "{\"stack\":\"" SMALL_STACK "\"}\n"), 1);
	assert_int_equal(f->delivered, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(f->rep[i]->number, (long)i + 1);
		assert_int_equal(f->rep[i]->line, (long)i + 1);
	}
	assert_small_stack(f->rep[0]);
	assert_contains(f->rep[1]->error, "invalid JSON");
	assert_small_stack(f->rep[2]);
	assert_null(f->rep[2]->error);
	assert_int_equal(f->all_diags, 1);
	assert_int_equal(f->diag[0].severity, HG_DIAG_ERROR);
	assert_int_equal(f->diag[0].line, 2);
	assert_int_equal(f->diag[0].col, 18); /* the second comma */
	assert_int_equal(f->diag[0].report, 2);
}

/* A first NDJSON line cut anywhere spoils only itself. */
static void test_ndjson_truncated_first_line(void **state)
{
	struct fixture *f = *state;
	const char *first = "{\"cost\":100,\"tag\":\"T\",\"buffer\":" SMALL_WORDS ",\"end_time\":200}";
	const char *rest = "\n{\"buffer\":" SMALL_WORDS "}\n{\"stack\":\"" SMALL_STACK "\"}\n";
	size_t n = strlen(first), n_rest = strlen(rest);
	char *text = malloc(n + n_rest + 1);
	assert_non_null(text);
	for (size_t cut = 1; cut < n; cut++) {
		memcpy(text, first, cut);
		memcpy(text + cut, rest, n_rest + 1);
		int rc = read_bytes(f, text, cut + n_rest);
		if (rc != 1 || f->delivered != 3)
			fail_msg("first line cut at %zu: %d failed, %zu delivered", cut, rc, f->delivered);
		assert_non_null(f->rep[0]->error);
		assert_int_equal(f->diag[0].line, 1);
		assert_small_stack(f->rep[1]);
		assert_small_stack(f->rep[2]);
		assert_int_equal(f->rep[2]->line, 3);
	}
	free(text);
}

static void test_ndjson_crlf_and_blank_lines(void **state)
{
	struct fixture *f = *state;
	assert_int_equal(read_text(f, "{\"buffer\":" SMALL_WORDS "}\r\n\r\n  \n"
				      "{\"buffer\":\"" SMALL_BASE64 "\"}\r\n"), 0);
	assert_int_equal(f->delivered, 2);
	assert_int_equal(f->rep[1]->number, 2);
	assert_int_equal(f->rep[1]->line, 4);
	assert_small_stack(f->rep[1]);
}

static void test_json_array_with_wrong_element(void **state)
{
	struct fixture *f = *state;
	assert_int_equal(read_text(f, "[{\"buffer\":" SMALL_WORDS "},\n\"oops\",\n"
				      "{\"stack\":\"" SMALL_STACK "\"}]"), 1);
	assert_int_equal(f->delivered, 3);
	assert_small_stack(f->rep[0]);
	assert_contains(f->rep[1]->error, "expected a report object, got string");
	assert_int_equal(f->rep[1]->number, 2);
	assert_small_stack(f->rep[2]);
	assert_int_equal(f->rep[2]->number, 3);
	assert_int_equal(f->all_diags, 1);
	assert_int_equal(f->diag[0].report, 2);
}

static void test_empty_array(void **state)
{
	struct fixture *f = *state;
	one_failed(f, " [ ] ", "the array holds no report");
}

static void test_pretty_printed_object(void **state)
{
	struct fixture *f = *state;
	const hg_report *r = one_good(f, "\n\n{\n  \"cost\": 100,\n  \"buffer\": [\n"
				      "    -17592186044316, -9223284075924553627,\n"
				      "    -9223275279831531418, 96757023244438,\n"
				      "    -9223266483738509161, 105553116266651,\n"
				      "    87960930222240, 9223354444668731592\n  ]\n}\n");
	assert_small_stack(r);
	assert_int_equal(r->line, 3);
}

static void test_byte_order_mark(void **state)
{
	struct fixture *f = *state;
	assert_small_stack(one_good(f, "\xEF\xBB\xBF{\"buffer\":" SMALL_WORDS "}"));
}

static void test_metadata_exact_text(void **state)
{
	struct fixture *f = *state;
	const hg_report *r = one_good(f, "{\"big\": 9223372036854775807, \"neg\": -0.50e+3,"
				      " \"nested\": {\"a\": [1, 2.50, \"x\"], \"b\": null},"
				      " \"s\": \"tab\\there\", \"t\": true, \"buffer\": " SMALL_WORDS
				      ", \"stack\": \"0,1,1,1\\n\"}");
	assert_small_stack(r); /* the buffer wins over the stack, with a warning */
	assert_warning(r, "both \"buffer\" and \"stack\"");
	assert_int_equal(r->meta_len, 5);
	assert_meta(r, "big", "9223372036854775807", "9223372036854775807");
	assert_meta(r, "neg", "-0.50e+3", "-0.50e+3");
	assert_meta(r, "nested", "{\"a\":[1,2.50,\"x\"],\"b\":null}",
		    "{\"a\":[1,2.50,\"x\"],\"b\":null}");
	assert_meta(r, "s", "\"tab\\there\"", "tab\there");
	assert_meta(r, "t", "true", "true");
	assert_null(meta(r, "buffer"));
	assert_null(meta(r, "stack"));
}

static void test_kinds(void **state)
{
	(void)state;
	assert_int_equal(hg_report_kind_from_detail("NORMAL"), HG_KIND_SLOW_METHOD);
	assert_int_equal(hg_report_kind_from_detail("ANR"), HG_KIND_ANR);
	assert_int_equal(hg_report_kind_from_detail("SIGNAL_ANR_NATIVE_BACKTRACE"),
			 HG_KIND_SIGNAL_ANR);
	assert_int_equal(hg_report_kind_from_detail("LAG_IDLE_HANDLER"), HG_KIND_IDLE_HANDLER_LAG);
	assert_int_equal(hg_report_kind_from_detail("normal"), HG_KIND_UNKNOWN);
	assert_int_equal(hg_report_kind_from_detail(NULL), HG_KIND_UNKNOWN);
	assert_string_equal(hg_report_kind_name(HG_KIND_TOUCH_LAG), "touch_lag");
	assert_string_equal(hg_report_kind_name(HG_KIND_UNKNOWN), "unknown");
	assert_string_equal(hg_report_kind_name((enum hg_report_kind)99), "unknown");
}

/* ---- reports that cannot be read ---- */

static void test_wrong_types(void **state)
{
	struct fixture *f = *state;
	static const char *const cases[][2] = {
		{"{\"buffer\":5}", "field \"buffer\": expected an array of integers or a base64 "
				   "string, got number"},
		{"{\"buffer\":{}}", "or a base64 string, got object"},
		{"{\"buffer\":null}", "or a base64 string, got null"},
		{"{\"buffer\":[1,\"2\"]}", "buffer[1]: expected a signed 64-bit integer, got \"2\""},
		{"{\"buffer\":[1,1.5]}", "buffer[1]: expected a signed 64-bit integer, got 1.5"},
		{"{\"buffer\":[],\"strict\":\"yes\"}", "field \"strict\": expected true or false, "
						       "got string"},
		{"{\"buffer\":[],\"end_time\":\"1856\"}", "field \"end_time\": expected an integer"},
		{"{\"buffer\":[],\"end_time\":1.5e3}", "field \"end_time\": expected an integer"},
		{"{\"buffer\":[],\"cost\":\"856\"}", "field \"cost\": expected an integer"},
		{"{\"stack\":5}", "field \"stack\": expected a string of depth,id,count,cost lines, "
				  "got number"},
		{"{\"stack\":\"0,1,1,5\\n\",\"stackKey\":5}", "field \"stackKey\": expected a string"},
		{"{\"stack\":\"0,1,1\\n\"}", "field \"stack\", line 1: expected 4 comma-separated"},
		{"{\"stack\":\"0,1,1,5\\n-1,2,1,1\\n\"}", "field \"stack\", line 2: depth is negative"},
		{"{\"stack\":\"0,1,1,5\\n1,x,1,1\\n\"}", "line 2: method id is not a 32-bit integer"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		one_failed(f, cases[i][0], cases[i][1]);
}

static void test_out_of_range_word_location(void **state)
{
	struct fixture *f = *state;
	one_failed(f, "{\"buffer\":[1,9223372036854775808]}",
		   "buffer[1]: expected a signed 64-bit integer, got 9223372036854775808 "
		   "(out of range or not an integer)");
	assert_int_equal(f->diag[0].line, 1);
	assert_int_equal(f->diag[0].col, 14);
	/* In a pretty-printed document and on the second line of NDJSON. */
	one_failed(f, "{\n  \"buffer\": [\n    1,\n    9223372036854775808\n  ]\n}", "buffer[1]");
	assert_int_equal(f->diag[0].line, 4);
	assert_int_equal(f->diag[0].col, 5);
	assert_int_equal(read_text(f, "{\"buffer\":[]}\n{\"buffer\":[2, -9223372036854775809]}"), 1);
	assert_int_equal(f->all_diags, 1);
	assert_contains(f->diag[0].message, "got -9223372036854775809");
	assert_int_equal(f->diag[0].line, 2);
	assert_int_equal(f->diag[0].col, 15);
	assert_int_equal(f->diag[0].report, 2);
}

static void test_extreme_words_accepted(void **state)
{
	struct fixture *f = *state;
	const hg_report *r = one_good(f, "{\"buffer\":[9223372036854775807,-9223372036854775808,0]}");
	assert_int_equal(r->buffer_words, 3);
}

static void test_bad_base64(void **state)
{
	struct fixture *f = *state;
	one_failed(f, "{\"buffer\":\"AAAA!AAAAAAA\"}",
		   "field \"buffer\": bad base64 at character 4: not a base64 character");
	one_failed(f, "{\"buffer\":\"AAAAA\"}", "base64 length is impossible");
	one_failed(f, "{\"buffer\":\"AAAA\"}", "decoded length is not a multiple of 8 bytes");
	one_failed(f, "{\"buffer\":\"AAAAAAAAAAB=\"}", "non-zero bits after the last byte");
	one_failed(f, "{\"buffer\":\"AAAA AAAAAAA\"}", "at character 4");
}

static void test_neither_buffer_nor_stack(void **state)
{
	struct fixture *f = *state;
	const char *why = "the report has neither a \"buffer\" nor a \"stack\" field";
	one_failed(f, "{\"cost\":5}", why);
	one_failed(f, "{}", why);
	one_failed(f, "{\"tag\":\"Trace_EvilMethod\",\"content\":{\"cost\":5}}", why);
	const hg_report *r = one_failed(f, "{\"threadStack\":\"at a.B.c()\"}", why);
	assert_contains(r->error, "threadStack");
}

static void test_empty_input(void **state)
{
	struct fixture *f = *state;
	const hg_report *r = one_failed(f, "", "no report in the input (it is empty)");
	assert_null(r->meta);
	one_failed(f, " \n\t\r\n  ", "no report in the input");
	one_failed(f, "\xEF\xBB\xBF", "no report in the input");
}

static void test_not_json(void **state)
{
	struct fixture *f = *state;
	one_failed(f, "  hello", "expected a JSON report");
	assert_int_equal(f->diag[0].line, 1);
	assert_int_equal(f->diag[0].col, 3);
	one_failed(f, "42", "expected a JSON report");
	one_failed(f, "{\"buffer\": [1, 2]", "invalid JSON");
}

static void test_text_after_report(void **state)
{
	struct fixture *f = *state;
	assert_int_equal(read_text(f, "{\"buffer\":" SMALL_WORDS "} junk"), 1);
	assert_int_equal(f->delivered, 2);
	assert_small_stack(f->rep[0]);
	assert_contains(f->rep[1]->error, "unexpected text after the report");
	assert_int_equal(f->all_diags, 1);
	assert_int_equal(f->diag[0].line, 1);
	assert_int_equal(f->diag[0].col, 159); /* "junk" */
	/* After an array, the failure is numbered after its elements. */
	assert_int_equal(read_text(f, "[{\"buffer\":[]},{\"buffer\":[]}] junk"), 1);
	assert_int_equal(f->delivered, 3);
	assert_null(f->rep[1]->error);
	assert_contains(f->rep[2]->error, "unexpected text after the array");
	assert_int_equal(f->rep[2]->number, 3);
	assert_int_equal(f->diag[0].report, 3);
	assert_int_equal(f->diag[0].col, 31);
	/* On an NDJSON line: the report on it is read, the text is a failure
	 * of its own. */
	assert_int_equal(read_text(f, "{\"buffer\":[]}\n{\"buffer\":[]} x\n"), 1);
	assert_int_equal(f->delivered, 3);
	assert_null(f->rep[1]->error);
	assert_contains(f->rep[2]->error, "unexpected text after the report");
	assert_int_equal(f->diag[0].line, 2);
	assert_int_equal(f->diag[0].col, 15);
}

/* ---- truncation and random input ---- */

struct tally {
	size_t inputs, reports, failed;
};

/* Reads a heap copy of data[0..len), NUL-terminated, so ASan sees any read
 * past the end; checks that the input is accounted for.  Returns rc. */
static int read_copy(struct fixture *f, const char *data, size_t len, struct tally *t)
{
	char *copy = malloc(len + 1);
	assert_non_null(copy);
	if (len)
		memcpy(copy, data, len);
	copy[len] = '\0';
	int rc = read_bytes(f, copy, len);
	free(copy);
	if (f->delivered == 0)
		fail_msg("input of %zu bytes delivered no report", len);
	assert_int_equal((size_t)rc, f->errors);
	assert_int_equal(f->all_diags, f->errors); /* one error diagnostic per failed report */
	t->inputs++;
	t->reports += f->delivered;
	t->failed += f->errors;
	return rc;
}

static const char *const valid_inputs[] = {
	"{\"tag\":\"Trace_EvilMethod\",\"content\":{\"detail\":\"ANR\",\"cost\":100,\"buffer\":"
	SMALL_WORDS ",\"end_time\":200,\"strict\":true,\"nested\":{\"x\":[1,2.5,\"s\"]}}}",
	"{\n  \"cost\": 100,\n  \"buffer\": \"" SMALL_BASE64 "==\",\n  \"scene\": \"a\\u00e9\"\n}",
	"[{\"buffer\":" SMALL_WORDS "},\n {\"stack\":\"" SMALL_STACK "\",\"stackKey\":\"11|\"}]",
	"{\"buffer\":" SMALL_WORDS "}\n{\"stack\":\"" SMALL_STACK "\"}\n{\"buffer\":[]}\n",
};

static void test_truncated_inputs(void **state)
{
	struct fixture *f = *state;
	f->discard = true;
	struct tally t = {0};
	for (size_t v = 0; v < sizeof valid_inputs / sizeof *valid_inputs; v++) {
		const char *text = valid_inputs[v];
		size_t len = strlen(text);
		assert_int_equal(read_copy(f, text, len, &t), 0);
		bool ndjson = v == 3;
		for (size_t cut = 0; cut < len; cut++) {
			int rc = read_copy(f, text, cut, &t);
			if (!ndjson && rc != 1)
				fail_msg("input %zu cut at %zu: %d failures, expected 1", v, cut, rc);
		}
	}
	printf("truncation: %zu inputs, %zu reports, %zu failed\n", t.inputs, t.reports, t.failed);
}

static uint64_t next_random(uint64_t *s)
{
	/* xorshift64*: deterministic, so a failure reproduces. */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

static const char json_chars[] = "{}[]\",:0123456789-+.eE \n\r\t\\/utrfalsnbx";

/* Changes a few bytes of buf[0..*len) in place (cap bytes available). */
static void mutate(char *buf, size_t *len, size_t cap, uint64_t *s)
{
	int edits = 1 + (int)(next_random(s) % 6);
	for (int e = 0; e < edits && *len > 0; e++) {
		size_t at = next_random(s) % *len;
		uint64_t r = next_random(s);
		switch (r % 4) {
		case 0: buf[at] = (char)(r >> 8); break;
		case 1: buf[at] = json_chars[(r >> 8) % (sizeof json_chars - 1)]; break;
		case 2:
			memmove(buf + at, buf + at + 1, *len - at - 1);
			(*len)--;
			break;
		default:
			if (*len < cap) {
				memmove(buf + at + 1, buf + at, *len - at);
				buf[at] = json_chars[(r >> 8) % (sizeof json_chars - 1)];
				(*len)++;
			}
		}
	}
}

static size_t random_input(char *buf, size_t cap, uint64_t *s, int kind)
{
	size_t len = next_random(s) % (cap + 1);
	if (kind == 0) { /* any bytes */
		for (size_t i = 0; i < len; i++)
			buf[i] = (char)next_random(s);
	} else if (kind == 1) { /* bytes JSON is made of, after an opening brace */
		for (size_t i = 0; i < len; i++)
			buf[i] = json_chars[next_random(s) % (sizeof json_chars - 1)];
		if (len)
			buf[0] = next_random(s) % 2 ? '{' : '[';
	} else { /* a valid input, mutated */
		const char *v = valid_inputs[next_random(s) % (sizeof valid_inputs / sizeof *valid_inputs)];
		len = strlen(v) < cap ? strlen(v) : cap;
		memcpy(buf, v, len);
		mutate(buf, &len, cap, s);
	}
	return len;
}

static void test_random_inputs_never_crash(void **state)
{
	struct fixture *f = *state;
	f->discard = true;
	enum { CAP = 2048, INPUTS = 3000 };
	char buf[CAP];
	uint64_t seed = 0x9E3779B97F4A7C15ull;
	struct tally t = {0};
	for (int i = 0; i < INPUTS; i++) {
		size_t len = random_input(buf, CAP, &seed, i % 3);
		read_copy(f, buf, len, &t);
	}
	assert_int_equal(t.inputs, INPUTS);
	printf("random: %zu inputs, %zu reports, %zu failed\n", t.inputs, t.reports, t.failed);
}

/* ---- caps ---- */

static void test_buffer_word_cap(void **state)
{
	struct fixture *f = *state;
	f->ctx.limits.max_buffer_words = 4;
	one_failed(f, "{\"buffer\":" SMALL_WORDS "}",
		   "field \"buffer\": 8 words, over the limit of 4");
	one_failed(f, "{\"buffer\":\"" SMALL_BASE64 "\"}", "more than 4 words (see --max-words)");
	f->ctx.limits.max_buffer_words = 8;
	assert_small_stack(one_good(f, "{\"buffer\":" SMALL_WORDS "}"));
	assert_small_stack(one_good(f, "{\"buffer\":\"" SMALL_BASE64 "\"}"));
}

static void test_stack_line_cap(void **state)
{
	struct fixture *f = *state;
	f->ctx.limits.max_stack_lines = 3;
	one_failed(f, "{\"stack\":\"" SMALL_STACK "\"}", "too many stack lines");
	f->ctx.limits.max_stack_lines = 4;
	assert_small_stack(one_good(f, "{\"stack\":\"" SMALL_STACK "\"}"));
}

/* ---- buffers and end_time ---- */

static void test_empty_buffer_is_a_warning(void **state)
{
	struct fixture *f = *state;
	const char *inputs[] = {"{\"buffer\":[]}", "{\"buffer\":\"\"}"};
	for (size_t i = 0; i < 2; i++) {
		const hg_report *r = one_good(f, inputs[i]);
		assert_true(r->from_buffer);
		assert_int_equal(r->buffer_words, 0);
		assert_int_equal(r->full.len, 0);
		assert_int_equal(r->trimmed.len, 0);
		assert_int_equal(r->key_index, -1);
		assert_string_equal(hg_report_stack_key_text(r), "");
		assert_warning(r, "the buffer is empty");
	}
}

static void test_end_time(void **state)
{
	struct fixture *f = *state;
	const hg_report *r = one_good(f, "{\"buffer\":" SMALL_WORDS ",\"end_time\":200000000000}");
	assert_warning(r, "end_time 200000000000 looks like nanoseconds");
	r = one_good(f, "{\"buffer\":" SMALL_WORDS ",\"end_time\":150}");
	assert_warning(r, "end_time 150 is before the buffer's latest time 200");
	r = one_good(f, "{\"buffer\":" SMALL_WORDS ",\"end_time\":200,\"strict\":false}");
	assert_int_equal(r->warnings.len, 0);
	assert_small_stack(r);
}

static void small_bytes(unsigned char out[64])
{
	const int64_t words[8] = {
		hg_beat_word(true, HG_BEAT_DISPATCH_ID, 100), hg_beat_word(true, 10, 101),
		hg_beat_word(true, 11, 102), hg_beat_word(false, 11, 150),
		hg_beat_word(true, 12, 151), hg_beat_word(false, 12, 155),
		hg_beat_word(false, 10, 160), hg_beat_word(false, HG_BEAT_DISPATCH_ID, 200),
	};
	for (int i = 0; i < 8; i++)
		for (int b = 0; b < 8; b++)
			out[8 * i + b] = (unsigned char)((uint64_t)words[i] >> (56 - 8 * b));
}

static int read_raw(struct fixture *f, const unsigned char *data, size_t len,
		    const hg_raw_opts *opts)
{
	reset(f);
	return hg_reports_read_raw(&f->ctx, "mem.bin", data, len, opts, sink, f);
}

static void test_raw_buffer(void **state)
{
	struct fixture *f = *state;
	unsigned char bytes[64];
	small_bytes(bytes);
	hg_raw_opts opts = {.strict = true, .cost = 100};
	assert_int_equal(read_raw(f, bytes, sizeof bytes, &opts), 0);
	assert_int_equal(f->delivered, 1);
	const hg_report *r = f->rep[0];
	assert_null(r->error);
	assert_string_equal(r->source, "mem.bin");
	assert_int_equal(r->buffer_words, 8);
	assert_int_equal(r->kind, HG_KIND_SLOW_METHOD);
	assert_int_equal(r->cost, 100);
	assert_small_stack(r);
	opts = (hg_raw_opts){.strict = true, .has_end_time = true, .end_time = 200000000000};
	assert_int_equal(read_raw(f, bytes, sizeof bytes, &opts), 0);
	assert_warning(f->rep[0], "looks like nanoseconds");
	assert_int_equal(read_raw(f, bytes, 0, &opts), 0);
	assert_warning(f->rep[0], "the buffer is empty");
}

static void test_raw_buffer_bad_length(void **state)
{
	struct fixture *f = *state;
	unsigned char bytes[64];
	small_bytes(bytes);
	hg_raw_opts opts = {.strict = true};
	assert_int_equal(read_raw(f, bytes, 63, &opts), 1);
	assert_int_equal(f->delivered, 1);
	assert_contains(f->rep[0]->error, "raw buffer of 63 bytes: length is not a multiple of 8");
	assert_int_equal(f->all_diags, 1);
	assert_string_equal(f->diag[0].source, "mem.bin");
	f->ctx.limits.max_buffer_words = 7;
	assert_int_equal(read_raw(f, bytes, 64, &opts), 1);
	assert_contains(f->rep[0]->error, "too many words");
}

/* ---- the sink ---- */

static void test_sink_stops_early(void **state)
{
	struct fixture *f = *state;
	const char *three = "{\"buffer\":[]}\n{\"buffer\":[]}\n{\"buffer\":[]}\n";
	f->stop_at = 1;
	assert_int_equal(read_text(f, three), 7);
	assert_int_equal(f->delivered, 1);
	f->stop_at = 2;
	assert_int_equal(read_text(f, "[{\"buffer\":[]},{\"buffer\":[]},{\"buffer\":[]}]"), 7);
	assert_int_equal(f->delivered, 2);
	f->stop_at = 1; /* stopping on a failed report */
	assert_int_equal(read_text(f, "{\"buffer\":5}\n{\"buffer\":[]}\n{\"buffer\":[]}\n"), 7);
	assert_int_equal(f->delivered, 1);
	assert_non_null(f->rep[0]->error);
	f->stop_at = 0;
	assert_int_equal(read_text(f, three), 0);
	assert_int_equal(f->delivered, 3);
}

/* ---- symbolication ---- */

static void test_symbolicate(void **state)
{
	struct fixture *f = *state;
	const char *map = "1048574,1,android.os.Handler dispatchMessage (Landroid.os.Message;)V\n"
			  "10,1,com.example.Feed load (Ljava/lang/String;I)V\n"
			  "12,1,com.example.Feed draw ()V\n";
	hg_mapping *m = NULL;
	assert_int_equal(hg_mapping_from_memory(&f->ctx, "map.txt", map, strlen(map), &m), 0);
	one_good(f, "{\"stack\":\"" SMALL_STACK "3,11,1,2\\n3,99,1,1\\n\"}");
	hg_report *r = f->rep[0];
	assert_int_equal(hg_report_symbolicate(r, m), 0);
	assert_non_null(r->symbols);
	assert_string_equal(r->symbols[0], "android.os.Handler.dispatchMessage(Message)");
	assert_string_equal(r->symbols[1], "com.example.Feed.load(String, int)");
	assert_null(r->symbols[2]);
	assert_string_equal(r->symbols[3], "com.example.Feed.draw()");
	assert_null(r->symbols[4]);
	assert_null(r->symbols[5]);
	assert_int_equal(r->missing_ids, 2); /* 11 (twice) and 99 */
	assert_int_equal(r->warnings.len, 1);
	assert_contains(r->warnings.items[0], "2 method id(s) not in map.txt");
	hg_mapping_destroy(m);
}

static void test_symbolicate_without_mapping(void **state)
{
	struct fixture *f = *state;
	one_good(f, "{\"stack\":\"" SMALL_STACK "\"}");
	assert_int_equal(hg_report_symbolicate(f->rep[0], NULL), 0);
	assert_null(f->rep[0]->symbols);
	assert_int_equal(f->rep[0]->warnings.len, 0);
	one_failed(f, "{\"buffer\":5}", "field \"buffer\"");
	hg_mapping *m = NULL;
	assert_int_equal(hg_mapping_from_memory(&f->ctx, "map.txt", "", 0, &m), 0);
	assert_int_equal(hg_report_symbolicate(f->rep[0], m), 0);
	assert_null(f->rep[0]->symbols);
	hg_mapping_destroy(m);
}

/* ---- whole files ---- */

static void test_input_missing_file(void **state)
{
	struct fixture *f = *state;
	char *data = (char *)1;
	size_t len = 1;
	char *path = path_in_testdata("no-such-dir/report.json");
	assert_int_equal(hg_input_read(&f->ctx, path, &data, &len), HG_EIO);
	assert_null(data);
	assert_int_equal(len, 0);
	assert_int_equal(f->all_diags, 1);
	assert_int_equal(f->diag[0].severity, HG_DIAG_ERROR);
	assert_string_equal(f->diag[0].source, path);
	assert_contains(f->diag[0].message, "cannot open");
	free(path);
}

static void test_input_directory(void **state)
{
	struct fixture *f = *state;
	char *data = NULL;
	size_t len = 0;
	assert_int_equal(hg_input_read(&f->ctx, testdata, &data, &len), HG_EIO);
	assert_null(data);
	assert_int_equal(f->all_diags, 1);
	assert_string_equal(f->diag[0].source, testdata);
	assert_contains(f->diag[0].message, "is a directory");
}

static void test_input_size_cap(void **state)
{
	struct fixture *f = *state;
	char *path = path_in_testdata("reports/small.json");
	char *data = NULL;
	size_t len = 0;
	assert_int_equal(hg_input_read(&f->ctx, path, &data, &len), 0);
	assert_int_equal(strlen(data), len);
	assert_int_equal(hg_reports_read(&f->ctx, path, data, len, sink, f), 0);
	assert_small_stack(f->rep[0]);
	assert_string_equal(f->rep[0]->source, path);
	free(data);
	size_t size = len;
	f->ctx.limits.max_input_bytes = size; /* exactly the size is fine */
	assert_int_equal(hg_input_read(&f->ctx, path, &data, &len), 0);
	assert_int_equal(len, size);
	free(data);
	f->ctx.limits.max_input_bytes = size - 1;
	assert_int_equal(hg_input_read(&f->ctx, path, &data, &len), HG_ELIMIT);
	assert_null(data);
	assert_int_equal(f->all_diags, 1);
	assert_string_equal(f->diag[0].source, path);
	assert_contains(f->diag[0].message, "byte limit");
	free(path);
}

/* Reads testdata/<rel> and expects `failed` failures, the first on `line`;
 * returns the column of that diagnostic. */
static long read_bad_file(struct fixture *f, const char *rel, int failed, long line)
{
	char *path = path_in_testdata(rel);
	char *data = NULL;
	size_t len = 0;
	assert_int_equal(hg_input_read(&f->ctx, path, &data, &len), 0);
	reset(f);
	assert_int_equal(hg_reports_read(&f->ctx, path, data, len, sink, f), failed);
	assert_true(f->all_diags >= 1);
	assert_string_equal(f->diag[0].source, path);
	assert_int_equal(f->diag[0].line, line);
	free(data);
	free(path);
	return f->diag[0].col;
}

static void test_bad_files(void **state)
{
	struct fixture *f = *state;
	assert_int_equal(read_bad_file(f, "bad/out-of-range.json", 1, 5), 5);
	assert_contains(f->rep[0]->error, "got 9223372036854775808");
	/* The second line is cut inside the number at column 57; the exact
	 * column is not asserted (see the report on truncated JSON). */
	long col = read_bad_file(f, "bad/truncated.ndjson", 1, 2);
	assert_true(col >= 57 && col <= 66);
	assert_int_equal(f->delivered, 2);
	assert_small_stack(f->rep[0]);
	assert_int_equal(f->rep[1]->line, 2);
	assert_contains(f->rep[1]->error, "invalid JSON");
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_bare_buffer_report),
		T(test_matrix_wrapper),
		T(test_base64_buffer),
		T(test_structured_stack_key_agrees),
		T(test_structured_stack_key_differs),
		T(test_ndjson_bad_middle_line),
		T(test_ndjson_truncated_first_line),
		T(test_ndjson_crlf_and_blank_lines),
		T(test_json_array_with_wrong_element),
		T(test_empty_array),
		T(test_pretty_printed_object),
		T(test_byte_order_mark),
		T(test_metadata_exact_text),
		T(test_kinds),
		T(test_wrong_types),
		T(test_out_of_range_word_location),
		T(test_extreme_words_accepted),
		T(test_bad_base64),
		T(test_neither_buffer_nor_stack),
		T(test_empty_input),
		T(test_not_json),
		T(test_text_after_report),
		T(test_truncated_inputs),
		T(test_random_inputs_never_crash),
		T(test_buffer_word_cap),
		T(test_stack_line_cap),
		T(test_empty_buffer_is_a_warning),
		T(test_end_time),
		T(test_raw_buffer),
		T(test_raw_buffer_bad_length),
		T(test_sink_stops_early),
		T(test_symbolicate),
		T(test_symbolicate_without_mapping),
		T(test_input_missing_file),
		T(test_input_directory),
		T(test_input_size_cap),
		T(test_bad_files),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
