/* Unit tests for reading reports that are well formed: each input shape
 * (bare buffer, Matrix wrapper, base64, structured stack and StackKey,
 * NDJSON, arrays, pretty-printed, BOM), metadata kept as exact text, report
 * kinds, empty buffers and end_time, raw binary buffers
 * (hg_reports_read_raw), a sink that stops early, and symbolication.
 * Malformed, truncated and random inputs, caps and whole-file input are in
 * test_report_errors.c; the shared buffer and fixture in report_fixture.h. */
#include "hangar/beat.h"
#include "hangar/mapping.h"

#include "report_fixture.h"

/* ---- helpers ---- */

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

/* keep_text gives each report its own bytes exactly as read: a whole value,
 * or an array element without the comma, blanks and bracket around it. */
static void test_kept_text_is_the_bytes_read(void **state)
{
	struct fixture *f = *state;
	f->ctx.keep_text = 1;
	static const char input[] =
		"{\"buffer\": " SMALL_WORDS ", \"cost\":100}  \n"
		"[ {\"buffer\":" SMALL_WORDS ",\"cost\" : 150} ,\n"
		"  {\"buffer\":" SMALL_WORDS ",\"cost\":7}\n]\n"
		"{\"buffer\":\"oops\"}\n";
	assert_int_equal(read_text(f, input), 1);
	assert_int_equal(f->delivered, 4);
	assert_string_equal(f->rep[0]->text, "{\"buffer\": " SMALL_WORDS ", \"cost\":100}");
	assert_int_equal(f->rep[0]->text_len, strlen(f->rep[0]->text));
	assert_string_equal(f->rep[1]->text, "{\"buffer\":" SMALL_WORDS ",\"cost\" : 150}");
	assert_string_equal(f->rep[2]->text, "{\"buffer\":" SMALL_WORDS ",\"cost\":7}");
	assert_non_null(f->rep[3]->error); /* rejected, with its bytes */
	assert_string_equal(f->rep[3]->text, "{\"buffer\":\"oops\"}");
}

int main(void)
{
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
		T(test_empty_buffer_is_a_warning),
		T(test_end_time),
		T(test_raw_buffer),
		T(test_raw_buffer_bad_length),
		T(test_sink_stops_early),
		T(test_symbolicate),
		T(test_symbolicate_without_mapping),
		T(test_kept_text_is_the_bytes_read),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
