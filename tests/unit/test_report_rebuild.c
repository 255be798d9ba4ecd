/* A buffer's rebuild left to later (hg_ctx.defer_rebuild, hg_report_rebuild,
 * as hangar stack's main thread does it): every report of Matrix's own
 * vectors and of the sample reports comes out as the reader would have
 * made it at once: the same stacks, StackKey, costs, begin times and
 * warnings in the same order; a report without a buffer, or with an empty
 * one, is settled by the reader.
 * usage: test_report_rebuild TESTDATA_DIR */
#include "hangar/hangar.h"

#include "report_fixture.h"

static const char *testdata = "testdata";

struct reports {
	hg_report *rep[1024];
	size_t n;
};

static int keep(void *user, hg_report *rep)
{
	struct reports *r = user;
	assert_true(r->n < 1024);
	r->rep[r->n++] = rep;
	return 0;
}

static void read_all(const char *text, size_t len, bool defer, bool times, struct reports *out)
{
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.defer_rebuild = defer;
	ctx.want_times = times;
	out->n = 0;
	assert_int_equal(hg_reports_read(&ctx, "mem.json", text, len, keep, out), 0);
}

static void same_stack(const hg_method_stack *a, const hg_method_stack *b)
{
	assert_int_equal(a->len, b->len);
	for (size_t i = 0; i < a->len; i++)
		assert_memory_equal(&a->items[i], &b->items[i], sizeof a->items[i]);
}

/* Reads text at once and deferred (then rebuilt): the same reports. */
static size_t expect_same(const char *text, size_t len, bool times)
{
	struct reports now, later;
	read_all(text, len, false, times, &now);
	read_all(text, len, true, times, &later);
	assert_int_equal(now.n, later.n);
	size_t deferred = 0;
	for (size_t k = 0; k < now.n; k++) {
		hg_report *a = now.rep[k], *b = later.rep[k];
		assert_null(a->rebuild);
		assert_true(!b->rebuild || b->from_buffer);
		deferred += b->rebuild != NULL;
		assert_int_equal(hg_report_rebuild(b), 0);
		assert_null(b->rebuild);
		assert_int_equal(hg_report_rebuild(b), 0); /* once only */
		assert_int_equal(a->has_method_stack, b->has_method_stack);
		assert_int_equal(a->from_buffer, b->from_buffer);
		assert_int_equal(a->buffer_words, b->buffer_words);
		same_stack(&a->full, &b->full);
		same_stack(&a->trimmed, &b->trimmed);
		assert_int_equal(a->stack_cost, b->stack_cost);
		assert_int_equal(a->key_index, b->key_index);
		assert_int_equal(a->item_begin != NULL, b->item_begin != NULL);
		if (a->item_begin)
			assert_memory_equal(a->item_begin, b->item_begin,
					    a->full.len * sizeof *a->item_begin);
		assert_int_equal(a->warnings.len, b->warnings.len);
		for (size_t w = 0; w < a->warnings.len; w++)
			assert_string_equal(a->warnings.items[w], b->warnings.items[w]);
		hg_report_destroy(a);
		hg_report_destroy(b);
	}
	return deferred;
}

/* Matrix's ground-truth vectors (41 buffers, strict and not, with and
 * without end_time) and the sample jank reports, with and without times. */
static void test_real_buffers(void **state)
{
	(void)state;
	static const char *const files[] = {"vectors/matrix_vectors_public.jsonl", "sample/jank.json",
					    "sample/jank-base64.json", "matrix-mangatoon/reports.ndjson"};
	size_t deferred = 0;
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		size_t len;
		char *text = load_file(testdata, files[i], &len);
		deferred += expect_same(text, len, false);
		deferred += expect_same(text, len, true);
		free(text);
	}
	assert_true(deferred >= 2 * 42); /* the vectors' and the samples' buffers but the empty one */
}

/* Warnings of the rebuild (end_time in nanoseconds, an empty buffer) stay
 * before those the reader adds after it (both buffer and stack, a time
 * that cannot be read). */
static void test_warnings_in_order(void **state)
{
	(void)state;
	const char *text =
		"{\"tag\":\"Trace_EvilMethod\",\"content\":{\"cost\":900,\"time\":\"yesterday\","
		"\"end_time\":1700000000000000,\"stack\":\"0,1,1,900\\n\","
		"\"buffer\":[-9223363240761753600,-9223354444668731392,8796093022218,17592186044436]}}\n"
		"{\"tag\":\"Trace_EvilMethod\",\"content\":{\"cost\":5,\"time\":\"x\",\"buffer\":[]}}\n"
		"{\"tag\":\"Trace_EvilMethod\",\"content\":{\"cost\":5,\"stack\":\"0,7,1,5\\n\"}}\n";
	struct reports r;
	read_all(text, strlen(text), false, false, &r);
	assert_int_equal(r.n, 3);
	assert_true(r.rep[0]->warnings.len >= 3); /* the three kinds, to be kept in order */
	for (size_t k = 0; k < r.n; k++)
		hg_report_destroy(r.rep[k]);
	/* the empty buffer is settled at once: nothing to rebuild */
	assert_int_equal(expect_same(text, strlen(text), false), 1);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_buffers),
		cmocka_unit_test(test_warnings_in_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
