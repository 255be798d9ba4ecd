/* Unit tests for KSCrash's sampled profiles (report_kscrash_profile.c): a
 * small hand-written profile whose hot path and stacks are worked out
 * below, every field with a wrong type, truncation at every byte of it (and
 * the real 643 KB profile cut every 97 * 61 bytes, which ASan reads in
 * seconds), the frame limit.  The real profile's own values are in
 * test_kscrash.c.  argv[1] is the testdata/ directory. */
#include <inttypes.h>

#include "report_fixture.h"

static const char *testdata = "testdata";

/* Samples: main>inner twice, main>f2 once, one empty, main alone (a bare
 * array of indexes).  The trie: main 4 (1 ends there), inner 2 (2 end),
 * f2 1 (1 ends).  Hot path: main > inner; then the stacks [main] and
 * [f2, main], tied at one sample, in the order they were first seen. */
#define BASE                                                                                    \
	"{\"report\":{\"timestamp\":11},\"system\":{\"machine\":\"m\"},\n"                      \
	"\"binary_images\":[{\"image_addr\":4096,\"image_size\":4096,\"name\":\"/usr/lib/libA.dylib\"," \
	"\"uuid\":\"UA\"}],\n"                                                                   \
	"\"crash\":{\"error\":{\"type\":\"profile\",\"profile\":{\"name\":\"startup\","          \
	"\"time_units\":\"nanoseconds\",\"duration\":50000000,\n"                                \
	"\"frames\":[{\"instruction_addr\":4100,\"symbol_name\":\"inner\",\"symbol_addr\":4096,"   \
	"\"object_name\":\"libA.dylib\",\"object_addr\":4096},{\"instruction_addr\":4200,"        \
	"\"symbol_name\":\"main\",\"symbol_addr\":4196},{\"instruction_addr\":4300}],\n"          \
	"\"samples\":[{\"frames\":[0,1]},{\"frames\":[0,1]},{\"frames\":[2,1]},{\"frames\":[]},[1]]}}}}"

static void assert_frame(const hg_thread *t, size_t i, uint64_t pc, const char *symbol, long repeat)
{
	assert_true(i < t->n_frames);
	const hg_frame *f = &t->frames[i];
	if (f->pc != pc)
		fail_msg("frame %zu: pc %" PRIu64 ", expected %" PRIu64, i, f->pc, pc);
	if (symbol)
		assert_string_equal(f->symbol, symbol);
	else
		assert_null(f->symbol);
	assert_string_equal(f->image, "libA.dylib"); /* placed by its address */
	assert_true(f->has_offset);
	assert_int_equal(f->offset, pc - 4096);
	assert_int_equal(f->repeat, repeat);
}

static void test_hot_path_and_stacks(void **state)
{
	const hg_report *r = one_good(*state, BASE);
	assert_int_equal(r->format, HG_FORMAT_KSCRASH);
	assert_int_equal(r->kind, HG_KIND_STARTUP);
	assert_int_equal(r->cost, 50);
	assert_true(r->sampled);
	assert_int_equal(r->threads.n, 3);
	assert_int_equal(r->threads.blamed, 0);
	const hg_thread *t = &r->threads.items[0];
	assert_string_equal(t->name, "main");
	assert_int_equal(t->flags, HG_THREAD_MAIN | HG_THREAD_BLAMED);
	assert_int_equal(t->n_frames, 2);
	assert_frame(t, 0, 4100, "inner", 2);
	assert_frame(t, 1, 4200, "main", 4);
	t = &r->threads.items[1];
	assert_string_equal(t->name, "main samples #2");
	assert_int_equal(t->flags, 0);
	assert_int_equal(t->n_frames, 1);
	assert_frame(t, 0, 4200, "main", 4);
	t = &r->threads.items[2];
	assert_string_equal(t->name, "main samples #3");
	assert_int_equal(t->n_frames, 2);
	assert_frame(t, 0, 4300, NULL, 1);
	assert_frame(t, 1, 4200, "main", 4);
	assert_int_equal(r->threads.n_images, 1);
	assert_string_equal(r->threads.images[0].id, "UA");
	bool warned = false;
	for (size_t i = 0; i < r->warnings.len; i++)
		warned |= strstr(r->warnings.items[i], "1 of the profile's 5 samples hold no frames") != NULL;
	assert_true(warned);
}

static const struct bad_case bad_cases[] = {
	{"\"frames\":[{", "\"frames\":{},\"x\":[{",
	 "field \"crash.error.profile.frames\": expected an array, got {}"},
	{"\"samples\":[{", "\"samples\":\"s\",\"x\":[{",
	 "field \"crash.error.profile.samples\": expected an array, got \"s\""},
	{"[1]]", "7]", "field \"crash.error.profile.samples[4]\": expected an object, got 7"},
	{"{\"frames\":[]}", "{\"frames\":5}",
	 "field \"crash.error.profile.samples[3].frames\": expected an array, got 5"},
	{"[2,1]", "[9,1]",
	 "field \"crash.error.profile.samples[2].frames[0]\": expected an index into the 3 frames, got 9"},
	{"[2,1]", "[\"2\",1]", "samples[2].frames[0]\": expected an index into the 3 frames, got \"2\""},
	{"[2,1]", "[-1,1]", "samples[2].frames[0]\": expected an index into the 3 frames, got -1"},
	{"[2,1]", "[2,1.5]", "samples[2].frames[1]\": expected an index into the 3 frames, got 1.5"},
	{"{\"instruction_addr\":4300}", "\"f\"",
	 "field \"crash.error.profile.frames[2]\": expected an object, got \"f\""},
	{"\"instruction_addr\":4300", "\"instruction_addr\":\"x\"",
	 "field \"crash.error.profile.frames[2].instruction_addr\": expected an unsigned 64-bit "
	 "integer, got \"x\""},
	{"\"symbol_name\":\"main\"", "\"symbol_name\":[]",
	 "field \"crash.error.profile.frames[1].symbol_name\": expected a string, got []"},
};

static void test_wrong_types(void **state)
{
	struct fixture *f = *state;
	check_bad_cases(f, BASE, bad_cases, sizeof bad_cases / sizeof *bad_cases);
}

/* No samples, or only empty ones: a report without threads, said. */
static void test_no_samples(void **state)
{
	struct fixture *f = *state;
	char *text = replace_once(BASE, "{\"frames\":[0,1]},{\"frames\":[0,1]},{\"frames\":[2,1]},"
				  "{\"frames\":[]},[1]", "");
	const hg_report *r = one_good(f, text);
	assert_int_equal(r->threads.n, 0);
	assert_int_equal(r->threads.blamed, -1);
	assert_contains(r->warnings.items[r->warnings.len - 1], "hold no frames, so the report has no "
			"thread stacks");
	free(text);
}

static void test_frame_limit(void **state)
{
	struct fixture *f = *state;
	f->ctx.limits.max_stack_lines = 3;
	one_failed(f, BASE, "field \"crash.error.profile.samples[1]\": more than 3 frames in the "
		   "report, over the limit (see --max-stack-lines)");
	f->ctx.limits.max_stack_lines = HG_DEFAULT_MAX_STACK_LINES;
}

static void check_all(struct fixture *f)
{
	for (size_t i = 0; i < f->n_kept; i++) {
		const hg_report *r = f->rep[i];
		if (r->error)
			continue;
		assert_true(r->threads.blamed >= -1 && r->threads.blamed < (long)r->threads.n);
		for (size_t t = 0; t < r->threads.n; t++)
			for (size_t j = 0; j < r->threads.items[t].n_frames; j++)
				assert_non_null(r->threads.items[t].frames[j].text);
	}
}

static void truncate_every(struct fixture *f, char *text, size_t len, size_t step)
{
	for (size_t n = step; n < len; n += step) {
		char c = text[n];
		text[n] = '\0';
		int failed = read_bytes(f, text, n);
		assert_int_equal(failed, f->errors);
		assert_true(f->delivered >= 1);
		check_all(f);
		text[n] = c;
	}
}

static void test_truncated(void **state)
{
	char *base = strdup(BASE);
	assert_non_null(base);
	truncate_every(*state, base, strlen(base), 1); /* every byte: the base is small */
	free(base);
	char path[1024];
	snprintf(path, sizeof path, "%s/kscrash/kscrash-3.7-startup-profile-ios26-sim.json", testdata);
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	long n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	char *text = malloc((size_t)n + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)n, fp), (size_t)n);
	text[n] = '\0';
	fclose(fp);
	truncate_every(*state, text, (size_t)n, 97 * 61);
	free(text);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_hot_path_and_stacks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_types, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_samples, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frame_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
