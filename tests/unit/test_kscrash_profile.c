/* Unit tests for KSCrash's sampled profiles (report_kscrash_profile.c): a
 * small hand-written profile whose hot path, samples and sample tree are
 * worked out below, sample times on the profile's clock (and times that
 * are no count), every field with a wrong type, truncation at every byte
 * of it (and the real 643 KB profile cut every 97 * 61 bytes, which ASan
 * reads in seconds), the frame limit; the real profile's samples and its
 * tree.  The real profile's other values are in test_kscrash.c.  argv[1]
 * is the testdata/ directory. */
#include <inttypes.h>

#include "report_fixture.h"

#include "hangar/samples.h"

static const char *testdata = "testdata";

/* Samples: main>inner twice, main>f2 once, one empty, main alone (a bare
 * array of indexes).  The tree: main 4 (1 ends there), inner 2 (2 end),
 * f2 1 (1 ends).  Hot path: main > inner (2 samples, more than the 1 that
 * ends at main); then each distinct stack a sample thread in the order
 * first sampled: [inner, main] (samples 1, 2), [f2, main] (3), [main] (5). */
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
	assert_int_equal(r->threads.n, 4);
	assert_int_equal(r->threads.blamed, 0);
	const hg_thread *t = &r->threads.items[0];
	assert_string_equal(t->name, "main");
	assert_int_equal(t->flags, HG_THREAD_MAIN | HG_THREAD_BLAMED);
	assert_int_equal(t->n_frames, 2);
	assert_frame(t, 0, 4100, "inner", 2);
	assert_frame(t, 1, 4200, "main", 4);
	static const struct {
		const char *name;
		size_t frames;
		uint64_t pc0;
	} stacks[] = {{"sample 1", 2, 4100}, {"sample 3", 2, 4300}, {"sample 5", 1, 4200}};
	for (size_t i = 0; i < 3; i++) {
		t = &r->threads.items[1 + i];
		assert_string_equal(t->name, stacks[i].name);
		assert_int_equal(t->flags, HG_THREAD_SAMPLE);
		assert_int_equal(t->n_frames, stacks[i].frames);
		assert_frame(t, 0, stacks[i].pc0, stacks[i].pc0 == 4300 ? NULL : stacks[i].pc0 == 4100
			     ? "inner" : "main", 1); /* a sample's frames are one sample each */
		assert_frame(t, t->n_frames - 1, 4200, "main", 1);
	}
	/* Every sample with frames, untimed: the profile says no clock. */
	static const long threads[] = {1, 1, 2, 3};
	assert_int_equal(r->n_samples, 4);
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(r->samples[i].thread, threads[i]);
		assert_int_equal(r->samples[i].weight, 1);
		assert_null(r->samples[i].time);
		assert_int_equal(r->samples[i].at, -1);
	}
	assert_int_equal(r->sample_interval, 0);
	assert_int_equal(r->threads.n_images, 1);
	assert_string_equal(r->threads.images[0].id, "UA");
	bool warned = false;
	for (size_t i = 0; i < r->warnings.len; i++)
		warned |= strstr(r->warnings.items[i], "1 of the profile's 5 samples hold no frames") != NULL;
	assert_true(warned);

	/* The tree: main 4 (1 its own) > inner 2, f2 1; the heaviest path
	 * main > inner is the blamed thread's. */
	hg_arena *a = hg_arena_create();
	hg_sample_tree tr;
	assert_int_equal(hg_report_sample_tree(r, a, &tr), 0);
	assert_int_equal(tr.n, 3);
	assert_int_equal(tr.total, 4);
	assert_int_equal(tr.nodes[0].total, 4);
	assert_int_equal(tr.nodes[0].self, 1);
	assert_int_equal(tr.nodes[1].total, 2);
	assert_int_equal(tr.nodes[1].frame->pc, 4100);
	assert_int_equal(tr.nodes[2].frame->pc, 4300);
	assert_int_equal(tr.heaviest, 1);
	assert_int_equal(hg_sample_tree_find(&tr, &r->threads.items[0]), 1);
	hg_arena_destroy(a);
}

/* On the profile's clock: time_start_uptime in its time_units since boot,
 * placed from time_start_epoch; the interval it expected.  A time that is
 * no count leaves its sample untimed, said once. */
static void test_sample_times(void **state)
{
	char *a = replace_once(BASE, "\"duration\":50000000,", "\"duration\":50000000,"
			       "\"time_start_epoch\":1766080658802155008,\"time_start_uptime\":1000000000,"
			       "\"expected_sample_interval\":10000000,");
	char *b = replace_once(a, "{\"frames\":[0,1]},{\"frames\":[0,1]}",
			       "{\"frames\":[0,1],\"time_start_uptime\":1010000000},"
			       "{\"frames\":[0,1],\"time_start_uptime\":1020500000}");
	char *c = replace_once(b, "{\"frames\":[2,1]}", "{\"frames\":[2,1],\"time_start_uptime\":\"x\"}");
	const hg_report *r = one_good(*state, c);
	assert_int_equal(r->sample_interval, 10);
	assert_int_equal(r->n_samples, 4);
	assert_string_equal(r->samples[0].time, "1010000000");
	assert_int_equal(r->samples[0].at, 1766080658802 + 10);
	assert_int_equal(r->samples[1].at, 1766080658802 + 20);
	assert_null(r->samples[2].time);
	assert_int_equal(r->samples[2].at, -1);
	assert_int_equal(r->samples[3].at, -1);
	bool warned = false;
	for (size_t i = 0; i < r->warnings.len; i++)
		warned |= strstr(r->warnings.items[i], "time_start_uptime\": 1 sample whose time is "
				 "no count (the first: \"x\"): it is untimed") != NULL;
	assert_true(warned);
	free(a);
	free(b);
	free(c);
}

/* The real startup profile: 25 samples with frames in 22 distinct
 * stacks, every one in the tree (19 under main(), 6 elsewhere), 10 ms
 * apart as it expected, over 249 ms. */
static void test_real_profile_tree(void **state)
{
	struct fixture *f = *state;
	size_t len;
	char *text = load_file(testdata, "kscrash/kscrash-3.7-startup-profile-ios26-sim.json", &len);
	assert_int_equal(read_bytes(f, text, len), 0);
	free(text);
	const hg_report *r = f->rep[0];
	assert_null(r->error);
	assert_int_equal(r->n_samples, 25);
	assert_int_equal(r->sample_interval, 10);
	hg_arena *a = hg_arena_create();
	hg_sample_tree tr;
	assert_int_equal(hg_report_sample_tree(r, a, &tr), 0);
	assert_int_equal(tr.total, 25);
	assert_int_equal(tr.timed, 25);
	assert_int_equal(tr.last_at - tr.first_at, 249);
	assert_string_equal(tr.nodes[0].frame->symbol, "main");
	assert_int_equal(tr.nodes[0].total, 19);
	int64_t roots = 0, selves = 0;
	for (size_t i = 0; i < tr.n; i++) {
		roots += tr.nodes[i].parent == HG_SAMPLE_NONE ? tr.nodes[i].total : 0;
		selves += tr.nodes[i].self;
		if (tr.nodes[i].parent != HG_SAMPLE_NONE)
			assert_true(tr.nodes[i].parent < i);
	}
	assert_int_equal(roots, 25);
	assert_int_equal(selves, 25);
	assert_int_equal(hg_sample_tree_find(&tr, &r->threads.items[0]), tr.heaviest);
	hg_arena_destroy(a);
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
		cmocka_unit_test_setup_teardown(test_sample_times, setup, teardown),
		cmocka_unit_test_setup_teardown(test_real_profile_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_types, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_samples, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frame_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
