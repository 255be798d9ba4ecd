/* Unit tests for reports that cannot be read, or only in part: wrong
 * field types, out-of-range words, bad base64, missing buffer and stack,
 * empty and non-JSON input, text after a report, every truncation of valid
 * inputs, seeded random and mutated inputs, the buffer-word and stack-line
 * caps, and whole-file input (hg_input_read: missing file, directory, size
 * cap, bad files in testdata/).  Every call must account for its input with
 * at least one report and never crash.  argv[1] is the testdata/ folder. */
#include "hangar/input.h"

#include "report_fixture.h"

static const char *testdata = "testdata";

static char *path_in_testdata(const char *rel)
{
	size_t n = strlen(testdata) + strlen(rel) + 2;
	char *p = malloc(n);
	assert_non_null(p);
	snprintf(p, n, "%s/%s", testdata, rel);
	return p;
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

/* An APM report fetched from a bucket names its stack file relative to a
 * URL: it is looked for in stack_dir only, never at "s3:/bucket/dir/...". */
static void test_apm_stack_file_of_a_fetched_report(void **state)
{
	struct fixture *f = *state;
	const char *text = "{\"reportType\":\"LAG\",\"cost\":2310,\"stack_file\":\"stacks/lag-1.txt\"}";
	reset(f);
	hg_reports_read(&f->ctx, "s3://bucket/day/r.json", text, strlen(text), sink, f);
	assert_int_equal(f->delivered, 1);
	assert_contains(f->rep[0]->error, "field \"stack_file\": \"stacks/lag-1.txt\" is not "
					  "fetched with the report; give the folder that holds it "
					  "with --stack-dir");
	/* With stack_dir it is read from there. */
	char *dir = path_in_testdata("apm");
	f->ctx.stack_dir = dir;
	reset(f);
	hg_reports_read(&f->ctx, "s3://bucket/day/r.json", text, strlen(text), sink, f);
	assert_int_equal(f->delivered, 1);
	assert_null(f->rep[0]->error);
	f->ctx.stack_dir = NULL;
	free(dir);
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
	const char *why = "the report has no \"buffer\", \"stack\" or \"threadStack\" field";
	one_failed(f, "{\"cost\":5}", why);
	one_failed(f, "{}", why);
	one_failed(f, "{\"tag\":\"Trace_EvilMethod\",\"content\":{\"cost\":5}}", why);
	/* A threadStack alone is evidence: a thread-stack report. */
	one_failed(f, "{\"threadStack\":5}", "field \"threadStack\": expected a string");
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
	one_failed(f, "  hello", "not a report hangar knows");
	assert_int_equal(f->diag[0].line, 1);
	assert_int_equal(f->diag[0].col, 3);
	one_failed(f, "42", "not a report hangar knows");
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
		T(test_wrong_types),
		T(test_apm_stack_file_of_a_fetched_report),
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
		T(test_input_missing_file),
		T(test_input_directory),
		T(test_input_size_cap),
		T(test_bad_files),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
