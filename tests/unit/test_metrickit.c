/* Unit tests for the MetricKit reader (report_metrickit*.c): the real
 * MXCallStackTree of testdata/kscrash/ (expected values read from its JSON
 * by hand), hand-made payloads of testdata/metrickit/, each path a
 * weighted sample and the tree of samples the whole call-stack tree, paths
 * past the frame limit counted, frames that give
 * no load address (a warning each image), every field with a
 * wrong type, truncation at every 97th byte, deep nesting and random
 * mutations.  argv[1] is the testdata/ directory. */
#include <inttypes.h>

#include "report_fixture.h"

#include "hangar/samples.h"
#include "hangar/text.h"

static const char *testdata = "testdata";

static char *load(const char *name, size_t *len)
{
	return load_file(testdata, name, len);
}

static const hg_report *good_file(struct fixture *f, const char *name)
{
	size_t len;
	char *text = load(name, &len);
	assert_int_equal(read_bytes(f, text, len), 0);
	free(text);
	assert_int_equal(f->delivered, 1);
	const hg_report *r = f->rep[0];
	if (r->error)
		fail_msg("%s: unexpected error: %s", name, r->error);
	assert_int_equal(r->format, HG_FORMAT_METRICKIT);
	assert_string_equal(r->platform, "ios");
	assert_true(r->sampled);
	return r;
}

static void assert_frame(const hg_report *r, const hg_thread *t, size_t i, uint64_t pc,
			 const char *image, const char *uuid, uint64_t offset, long repeat)
{
	assert_true(i < t->n_frames);
	const hg_frame *f = &t->frames[i];
	assert_int_equal(f->kind, HG_FRAME_NATIVE);
	assert_true(f->has_pc && f->has_offset);
	if (f->pc != pc || f->offset != offset)
		fail_msg("frame %zu: pc %" PRIu64 " +%" PRIu64 ", expected %" PRIu64 " +%" PRIu64, i,
			 f->pc, f->offset, pc, offset);
	assert_string_equal(f->image, image);
	assert_int_equal(f->repeat, repeat);
	assert_null(f->symbol);
	const hg_image *im = hg_frame_image(&r->threads, f);
	assert_non_null(im);
	assert_int_equal(im->kind, HG_IMAGE_MACHO);
	assert_string_equal(im->name, image);
	assert_string_equal(im->id, uuid);
	assert_true(im->has_load_addr);
	assert_int_equal(im->load_addr, pc - offset);
}

static bool has_warning(const hg_report *r, const char *needle)
{
	for (size_t i = 0; i < r->warnings.len; i++)
		if (strstr(r->warnings.items[i], needle))
			return true;
	return false;
}

/* ---- real and hand-made reports ---- */

static void test_real_tree(void **state)
{
	const hg_report *r = good_file(*state, "kscrash/metrickit-callstacktree-real.json");
	/* a bare tree says not what it diagnoses */
	assert_int_equal(r->kind, HG_KIND_THREAD_DUMP);
	assert_string_equal(r->detail, "MXCallStackTree");
	/* 16 call stacks of one path each: its thread, then its path's sample */
	assert_int_equal(r->threads.n, 32);
	assert_int_equal(r->n_samples, 16);
	for (size_t i = 0; i < 16; i++) {
		assert_int_equal(r->samples[i].thread, 2 * (long)i + 1);
		assert_int_equal(r->threads.items[2 * i + 1].flags, HG_THREAD_SAMPLE);
		assert_int_equal(r->threads.items[2 * i + 1].n_frames, r->threads.items[2 * i].n_frames);
	}
	assert_string_equal(r->threads.items[1].name, "thread 0 sample 1");
	assert_int_equal(r->threads.blamed, 0); /* threadAttributed */
	assert_int_equal(r->threads.items[0].flags, HG_THREAD_BLAMED);
	assert_int_equal(r->threads.n_images, 11); /* distinct binaryUUIDs */
	const hg_thread *t = &r->threads.items[0];
	assert_string_equal(t->name, "thread 0");
	assert_int_equal(t->n_frames, 27);
	/* the root frame is the innermost; dyld's start the outermost */
	assert_frame(r, t, 0, 4312798220, "Sentry", "9E8D8DE6-EEC1-3199-8720-9ED68EE3F967", 414732, 1);
	assert_frame(r, t, 1, 4310988076, "iOS-Swift", "CA12CAFA-91BA-3E1C-BE9C-E34DB96FE7DF", 46380,
		     1);
	assert_frame(r, t, 26, 7091980640, "dyld", "CB3FF411-4762-34D2-86A4-ECA13F9FB6C3", 88416, 1);
	assert_string_equal(t->frames[0].text, "Sentry 0x000000010110140c 0x10109c000 + 414732");
	const hg_thread *last = &r->threads.items[30];
	assert_string_equal(last->name, "thread 15");
	assert_int_equal(last->flags, 0);
	assert_int_equal(last->frames[0].pc, 7600626504);
}

static void test_hang_payload(void **state)
{
	const hg_report *r = good_file(*state, "metrickit/handmade-hang-payload.json");
	assert_int_equal(r->kind, HG_KIND_IOS_HANG);
	assert_string_equal(r->detail, "hang");
	assert_int_equal(r->cost, 3500); /* "3.5 sec" */
	assert_string_equal(r->device, "iPhone14,2");
	assert_string_equal(r->app_version, "2.4 (118)");
	assert_string_equal(r->process, "com.example.lagdemo");
	assert_string_equal(r->time_written, "2023-01-27 14:44:00 +0100");
	assert_string_equal(r->time, "2023-01-27T13:44:00.000Z");
	assert_true(has_warning(r, "the MetricKit payload holds 2 diagnostics; only the first, "
				   "hangDiagnostics[0], is read"));
	/* call stack 0: paths kernel>CF>LagDemo (7 samples), kernel>UIKitCore (3);
	 * call stack 1: pthread (10).  Each stack's thread, then its paths' */
	assert_int_equal(r->threads.n, 5);
	assert_int_equal(r->threads.blamed, 0);
	const hg_thread *t = &r->threads.items[0];
	assert_string_equal(t->name, "main");
	assert_int_equal(t->flags, HG_THREAD_MAIN | HG_THREAD_BLAMED);
	assert_int_equal(t->n_frames, 3);
	assert_frame(r, t, 0, 7600626644, "libsystem_kernel.dylib",
		     "A9F8C2D1-5E4B-3C2A-9D1E-7F6B5A4C3D2E", 3028, 10);
	assert_frame(r, t, 1, 6581948116, "CoreFoundation", "5CDC5D9A-E506-3740-B64E-BB30867B4F1B",
		     528084, 7);
	assert_frame(r, t, 2, 4295000072, "LagDemo", "0B1E7A52-3C4D-3E5F-8A9B-1C2D3E4F5A6B", 32776, 7);
	const hg_thread *other = &r->threads.items[2];
	assert_string_equal(other->name, "main sample 2");
	assert_int_equal(other->flags, HG_THREAD_SAMPLE);
	assert_int_equal(other->n_frames, 2);
	assert_frame(r, other, 1, 6620606516, "UIKitCore", "179501B6-0FC2-344A-B969-B4E3961EBE10",
		     1204276, 1); /* a sample's frame: its weight is the sample's */
	assert_string_equal(r->threads.items[3].name, "thread 1");
	/* Each path a sample weighing its own samples, heaviest first. */
	static const long weights[] = {7, 3, 10}, threads[] = {1, 2, 4};
	assert_int_equal(r->n_samples, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(r->samples[i].weight, weights[i]);
		assert_int_equal(r->samples[i].thread, threads[i]);
		assert_null(r->samples[i].time);
		assert_int_equal(r->samples[i].at, -1);
	}
	/* The tree of samples: outermost frames at the roots, 20 samples in
	 * all; the blamed main thread is its LagDemo path, not the tree's
	 * heaviest (the other thread's pthread root, 10). */
	hg_arena *a = hg_arena_create();
	hg_sample_tree tr;
	assert_int_equal(hg_report_sample_tree(r, a, &tr), 0);
	assert_int_equal(tr.total, 20);
	assert_int_equal(tr.n, 6);
	assert_string_equal(tr.nodes[0].frame->image, "libsystem_pthread.dylib");
	assert_int_equal(tr.nodes[0].total, 10);
	assert_int_equal(tr.heaviest, 0);
	size_t blamed = hg_sample_tree_find(&tr, &r->threads.items[0]);
	assert_true(blamed != HG_SAMPLE_NONE);
	assert_string_equal(tr.nodes[blamed].frame->image, "libsystem_kernel.dylib");
	assert_int_equal(tr.nodes[blamed].total, 7);
	assert_int_equal(tr.nodes[blamed].depth, 2);
	hg_arena_destroy(a);
	/* one image per UUID, however many frames lie in it */
	assert_int_equal(r->threads.n_images, 5);
	assert_ptr_equal(hg_frame_image(&r->threads, &t->frames[0]),
			 hg_frame_image(&r->threads, &other->frames[0]));
}

static void test_cpu_exception(void **state)
{
	const hg_report *r = good_file(*state, "metrickit/handmade-cpu-exception.json");
	assert_int_equal(r->kind, HG_KIND_CPU_EXCEPTION);
	assert_string_equal(hg_report_kind_name(r->kind), "cpu_exception");
	assert_int_equal(r->cost, 60000); /* totalCPUTime "1 min" */
	/* an aggregate: paths LagDemo>LagDemo>dyld (120), pthread (40), LagDemo (30 of its own) */
	assert_int_equal(r->threads.n, 4);
	assert_int_equal(r->threads.blamed, 0);
	const hg_thread *t = &r->threads.items[0];
	assert_string_equal(t->name, "all threads");
	assert_int_equal(t->tid, -1);
	assert_int_equal(t->n_frames, 3);
	assert_int_equal(t->frames[0].repeat, 150);
	assert_int_equal(t->frames[1].repeat, 120);
	assert_string_equal(t->frames[2].image, "dyld");
	assert_string_equal(r->threads.items[1].name, "all threads sample 1");
	assert_int_equal(r->threads.items[1].n_frames, 3);
	assert_string_equal(r->threads.items[2].name, "all threads sample 2");
	assert_string_equal(r->threads.items[2].frames[0].image, "libsystem_pthread.dylib");
	assert_int_equal(r->threads.items[3].n_frames, 1);
	assert_int_equal(r->threads.items[3].frames[0].repeat, 1);
	assert_int_equal(r->n_samples, 3);
	assert_int_equal(r->samples[0].weight, 120);
	assert_int_equal(r->samples[1].weight, 40);
	assert_int_equal(r->samples[2].weight, 30);
}

static void test_durations(void **state)
{
	static const struct {
		const char *text;
		int64_t ms;
	} cases[] = {
		{"3.5 sec", 3500}, {"20 sec", 20000}, {"1,250 ms", 1250}, {"2 min", 120000},
		{"0.25 s", 250},   {"1 h", 3600000},  {"190 ms", 190},    {"abc", 0},
		{"5 parsecs", 0},  {"", 0},           {".5 sec", 500},
	};
	struct fixture *f = *state;
	char text[512];
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		snprintf(text, sizeof text, "{\"hangDiagnostics\":[{\"callStackTree\":{\"callStacks\":[],"
			 "\"callStackPerThread\":true},\"diagnosticMetaData\":{\"hangDuration\":\"%s\"}}]}",
			 cases[i].text);
		const hg_report *r = one_good(f, text);
		if (r->cost != cases[i].ms)
			fail_msg("\"%s\": %" PRId64 " ms, expected %" PRId64, cases[i].text, r->cost,
				 cases[i].ms);
		assert_int_equal(has_warning(r, "is no duration"), cases[i].ms == 0);
	}
}

/* Forced with --input-format, and detected by keys whatever the file's name. */
static void test_forced_and_refused(void **state)
{
	struct fixture *f = *state;
	reset(f);
	const char *text = "{\"tag\":\"x\"}";
	assert_int_equal(hg_reports_read_as(&f->ctx, "mem.json", text, strlen(text),
					    HG_FORMAT_METRICKIT, sink, f), 1);
	assert_contains(f->rep[0]->error, "field \"callStacks\": missing");
	one_failed(f, "{\"hangDiagnostics\":[]}", "the MetricKit payload holds no diagnostic");
	one_failed(f, "{\"callStackTree\":{}}", "field \"callStackTree.callStacks\": missing");
	assert_int_equal(read_text(f, "{\"callStackTree\":{\"callStacks\":[]}}"), 0);
	assert_true(has_warning(f->rep[0], "holds no call stacks"));
}

/* A frame's address less its offset is its image's load address, unless
 * the numbers are hostile: an offset past the address, a negative address
 * or offset (read as two's complement, so past 2^63).  Then the image has
 * no load address, one warning names it, and the frames read as ever. */
static void test_hostile_load_addresses(void **state)
{
	struct fixture *f = *state;
#define FR(uuid, name, addr, off, subs) "{\"binaryUUID\":\"" uuid "\"" name ",\"address\":" addr \
	",\"offsetIntoBinaryTextSegment\":" off ",\"sampleCount\":1" subs "}"
	const hg_report *r = one_good(f, "{\"callStackPerThread\":true,\"callStacks\":[{"
		"\"threadAttributed\":true,\"callStackRootFrames\":["
		FR("A", ",\"binaryName\":\"Past\"", "4096", "8192", ",\"subFrames\":["
		FR("B", ",\"binaryName\":\"NegAddr\"", "-4096", "16", ",\"subFrames\":["
		FR("C", "", "4096", "-5", ",\"subFrames\":["
		FR("D", ",\"binaryName\":\"Good\"", "12288", "4096", "") ","
		FR("A", ",\"binaryName\":\"Past\"", "4100", "4", "") "]") "]") "]")
		"]}]}");
#undef FR
	static const char *const expected[] = {
		"callStacks[0].callStackRootFrames[0] \"Past\": address 0x1000 less "
		"offsetIntoBinaryTextSegment 0x2000 is no load address; the image has none",
		"callStacks[0].callStackRootFrames[0].subFrames[depth 1] \"NegAddr\": address "
		"0xfffffffffffff000 less offsetIntoBinaryTextSegment 0x10 is no load address; the "
		"image has none",
		"callStacks[0].callStackRootFrames[0].subFrames[depth 2] \"C\": address 0x1000 less "
		"offsetIntoBinaryTextSegment 0xfffffffffffffffb is no load address; the image has none",
	};
	if (r->warnings.len != 3)
		fail_msg("%zu warnings, expected 3 (the first: %s)", r->warnings.len,
			 r->warnings.len ? r->warnings.items[0] : "none");
	for (size_t i = 0; i < 3; i++)
		assert_string_equal(r->warnings.items[i], expected[i]);
	/* two paths, each read whole (samples 1 and 2, after the stack's
	 * thread); a root frame is the innermost one */
	assert_int_equal(r->threads.n, 3);
	bool first_d = r->threads.items[1].n_frames == 4 && r->threads.items[1].frames[3].pc == 12288;
	const hg_thread *t = &r->threads.items[first_d ? 1 : 2], *other = &r->threads.items[first_d ? 2 : 1];
	assert_int_equal(t->n_frames, 4);
	assert_int_equal(other->n_frames, 4);
	assert_frame(r, t, 3, 12288, "Good", "D", 4096, 1);
	assert_int_equal(other->frames[3].pc, 4100);
	assert_int_equal(t->frames[0].pc, 4096);
	assert_string_equal(t->frames[0].image, "Past");
	assert_string_equal(t->frames[2].image, "C");
	for (size_t i = 0; i < 3; i++)
		assert_false(hg_frame_image(&r->threads, &t->frames[i])->has_load_addr);
	/* A's later frame (4100 - 4) does not change what its first one gave */
	assert_false(hg_frame_image(&r->threads, &other->frames[3])->has_load_addr);
}

/* ---- bad input ---- */

/* Every field the reader reads, with the right types; each case breaks
 * one (`from` occurs once in BASE). */
#define BASE                                                                                     \
	"{\"timeStampBegin\":\"2023-01-27 14:44:00 +0100\",\"timeStampEnd\":\"2023-01-28 14:44\","  \
	"\"hangDiagnostics\":[{\"diagnosticMetaData\":{\"deviceType\":\"d\",\"appVersion\":\"1\","  \
	"\"appBuildVersion\":\"2\",\"bundleIdentifier\":\"b\",\"hangDuration\":\"1 sec\"},\n"      \
	"\"callStackTree\":{\"callStackPerThread\":true,\"callStacks\":[{\"threadAttributed\":true," \
	"\"callStackRootFrames\":[{\"binaryUUID\":\"U\",\"binaryName\":\"N\",\"address\":4096,"    \
	"\"offsetIntoBinaryTextSegment\":16,\"sampleCount\":3,\"subFrames\":[{\"address\":5000,"   \
	"\"sampleCount\":2}]}]}]}}]}"

static const struct bad_case bad_cases[] = {
	{"\"timeStampBegin\":\"2023-01-27 14:44:00 +0100\"", "\"timeStampBegin\":5",
	 "field \"timeStampBegin\": expected a string, got 5"},
	{"\"timeStampEnd\":\"2023-01-28 14:44\"", "\"timeStampEnd\":[]",
	 "field \"timeStampEnd\": expected a string, got []"},
	{"\"hangDiagnostics\":[{", "\"hangDiagnostics\":{\"a\":1},\"x\":[{",
	 "field \"hangDiagnostics\": expected an array, got {\"a\":1}"},
	{"\"hangDiagnostics\":[{", "\"hangDiagnostics\":[7,{",
	 "field \"hangDiagnostics[0]\": expected an object, got 7"},
	{"\"diagnosticMetaData\":{", "\"diagnosticMetaData\":\"m\",\"x\":{",
	 "field \"hangDiagnostics[0].diagnosticMetaData\": expected an object, got \"m\""},
	{"\"deviceType\":\"d\"", "\"deviceType\":1",
	 "field \"hangDiagnostics[0].diagnosticMetaData.deviceType\": expected a string, got 1"},
	{"\"appVersion\":\"1\"", "\"appVersion\":true",
	 "diagnosticMetaData.appVersion\": expected a string, got true"},
	{"\"appBuildVersion\":\"2\"", "\"appBuildVersion\":2",
	 "diagnosticMetaData.appBuildVersion\": expected a string, got 2"},
	{"\"bundleIdentifier\":\"b\"", "\"bundleIdentifier\":{}",
	 "diagnosticMetaData.bundleIdentifier\": expected a string, got {}"},
	{"\"hangDuration\":\"1 sec\"", "\"hangDuration\":1000",
	 "diagnosticMetaData.hangDuration\": expected a string, got 1000"},
	{"\"callStackTree\":{", "\"callStackTree\":[1],\"x\":{",
	 "field \"hangDiagnostics[0].callStackTree\": expected an object, got [1]"},
	{"\"callStackPerThread\":true", "\"callStackPerThread\":1",
	 "field \"hangDiagnostics[0].callStackTree.callStackPerThread\": expected true or false, got 1"},
	{"\"callStacks\":[{", "\"callStacks\":{},\"x\":[{",
	 "field \"hangDiagnostics[0].callStackTree.callStacks\": expected an array, got {}"},
	{"\"callStacks\":[{", "\"callStacks\":[\"s\",{",
	 "field \"hangDiagnostics[0].callStackTree.callStacks[0]\": expected an object, got \"s\""},
	{"\"threadAttributed\":true", "\"threadAttributed\":\"yes\"",
	 "callStacks[0].threadAttributed\": expected true or false, got \"yes\""},
	{"\"callStackRootFrames\":[{", "\"callStackRootFrames\":5,\"x\":[{",
	 "callStacks[0].callStackRootFrames\": expected an array, got 5"},
	{"\"callStackRootFrames\":[{", "\"callStackRootFrames\":[null,{",
	 "callStacks[0].callStackRootFrames[0]\": expected an object, got null"},
	{"\"binaryUUID\":\"U\"", "\"binaryUUID\":7",
	 "callStackRootFrames[0].binaryUUID\": expected a string, got 7"},
	{"\"binaryName\":\"N\"", "\"binaryName\":[]",
	 "callStackRootFrames[0].binaryName\": expected a string, got []"},
	{"\"address\":4096", "\"address\":\"0x1000\"",
	 "callStackRootFrames[0].address\": expected an unsigned 64-bit integer, got \"0x1000\""},
	{"\"address\":4096", "\"address\":18446744073709551616",
	 "callStackRootFrames[0].address\": expected an unsigned 64-bit integer"},
	{"\"offsetIntoBinaryTextSegment\":16", "\"offsetIntoBinaryTextSegment\":1.5",
	 "callStackRootFrames[0].offsetIntoBinaryTextSegment\": expected an unsigned 64-bit integer, "
	 "got 1.5"},
	{"\"sampleCount\":3", "\"sampleCount\":-3",
	 "callStackRootFrames[0].sampleCount\": expected an integer >= 0, got -3"},
	{"\"subFrames\":[{", "\"subFrames\":{},\"x\":[{",
	 "callStackRootFrames[0].subFrames\": expected an array, got {}"},
	{"\"address\":5000", "\"address\":false",
	 "callStackRootFrames[0].subFrames[depth 1].address\": expected an unsigned 64-bit integer, "
	 "got false"},
	{"\"sampleCount\":2", "\"sampleCount\":\"2\"",
	 "subFrames[depth 1].sampleCount\": expected an integer >= 0, got \"2\""},
};

static void test_wrong_types(void **state)
{
	struct fixture *f = *state;
	const hg_report *r = one_good(f, BASE);
	/* the stack's thread, the subframe's two samples, the root's own one */
	assert_int_equal(r->threads.n, 3);
	assert_int_equal(r->threads.items[0].n_frames, 2);
	assert_int_equal(r->threads.items[1].n_frames, 2);
	assert_int_equal(r->threads.items[2].n_frames, 1);
	assert_int_equal(r->samples[0].weight, 2);
	assert_int_equal(r->samples[1].weight, 1);
	assert_int_equal(r->cost, 1000);
	check_bad_cases(f, BASE, bad_cases, sizeof bad_cases / sizeof *bad_cases);
}

/* What a delivered report must satisfy, however bad its input. */
static void check_report(const hg_report *r)
{
	if (r->error) {
		assert_true(strlen(r->error) > 0);
		return;
	}
	const hg_threads *ts = &r->threads;
	assert_true(ts->blamed >= -1 && ts->blamed < (long)ts->n);
	for (size_t i = 0; i < ts->n; i++)
		for (size_t j = 0; j < ts->items[i].n_frames; j++) {
			const hg_frame *fr = &ts->items[i].frames[j];
			assert_non_null(fr->text);
			assert_true(fr->repeat >= 1);
			assert_true(fr->image_ref <= ts->n_images);
		}
	assert_true(r->cost >= 0);
}

static void check_all(struct fixture *f)
{
	for (size_t i = 0; i < f->n_kept; i++)
		check_report(f->rep[i]);
}

static void truncate_file(struct fixture *f, const char *name)
{
	size_t len;
	char *text = load(name, &len);
	for (size_t n = 97; n < len; n += 97) {
		char c = text[n];
		text[n] = '\0';
		int failed = read_bytes(f, text, n);
		/* a cut inside the object never parses; one after it is whole */
		assert_int_equal(failed, f->errors);
		check_all(f);
		text[n] = c;
	}
	free(text);
}

static void test_truncated(void **state)
{
	truncate_file(*state, "kscrash/metrickit-callstacktree-real.json");
	truncate_file(*state, "metrickit/handmade-hang-payload.json");
	truncate_file(*state, "metrickit/handmade-cpu-exception.json");
}

/* 10,000 subFrames deep: refused by the JSON reader's nesting limit with a
 * clear error; 400 deep (800 containers): read without recursion. */
static void test_deep_nesting(void **state)
{
	struct fixture *f = *state;
	size_t depths[] = {10000, 400};
	for (size_t k = 0; k < 2; k++) {
		hg_buf b;
		hg_buf_init(&b);
		hg_buf_puts(&b, "{\"callStackPerThread\":true,\"callStacks\":[{\"callStackRootFrames\":[");
		for (size_t i = 0; i < depths[k]; i++)
			hg_buf_printf(&b, "{\"address\":%zu,\"binaryName\":\"B\",\"sampleCount\":1,"
				      "\"subFrames\":[", 4096 + i);
		for (size_t i = 0; i < depths[k]; i++)
			hg_buf_puts(&b, "]}");
		hg_buf_puts(&b, "]}]}");
		assert_false(b.failed);
		if (k == 0) {
			one_failed(f, b.data, "nested deeper than 1000");
		} else {
			const hg_report *r = one_good(f, b.data);
			assert_int_equal(r->threads.n, 2); /* the stack's thread and its sample */
			assert_int_equal(r->threads.items[0].n_frames, 400);
			assert_int_equal(r->threads.items[0].frames[399].pc, 4096 + 399);
		}
		hg_buf_release(&b);
	}
}

/* Paths whose frames would pass --max-stack-lines are counted, not kept:
 * the heaviest are. */
static void test_paths_over_limit(void **state)
{
	struct fixture *f = *state;
	f->ctx.limits.max_stack_lines = 7;
	/* three paths of 2 frames (weights 5, 3, 1): the thread 2, then samples
	 * 2 + 2 fit 7, the third does not */
	const hg_report *r = one_good(f, "{\"callStackTree\":{\"callStackPerThread\":false,"
		"\"callStacks\":[{\"callStackRootFrames\":[{\"address\":1,\"sampleCount\":9,"
		"\"subFrames\":[{\"address\":2,\"sampleCount\":5},{\"address\":3,\"sampleCount\":3},"
		"{\"address\":4,\"sampleCount\":1}]}]}]}}");
	f->ctx.limits.max_stack_lines = HG_DEFAULT_MAX_STACK_LINES;
	assert_int_equal(r->n_samples, 2);
	assert_int_equal(r->samples[0].weight, 5);
	assert_int_equal(r->samples[1].weight, 3);
	assert_true(has_warning(r, "callStackTree.callStacks[0]: 3 paths of samples; the 2 heaviest "
				"are kept as samples, the rest would pass 7 frames (see "
				"--max-stack-lines)"));
}

/* A call stack's own thread past --max-stack-lines: an error naming the
 * call stack. */
static void test_frame_limit(void **state)
{
	struct fixture *f = *state;
	size_t len;
	char *text = load("kscrash/metrickit-callstacktree-real.json", &len);
	f->ctx.limits.max_stack_lines = 30;
	assert_int_equal(read_bytes(f, text, len), 1);
	f->ctx.limits.max_stack_lines = HG_DEFAULT_MAX_STACK_LINES;
	free(text);
	assert_string_equal(f->rep[0]->error, "field \"callStacks[1]\": more than 30 frames in the "
			    "report, over the limit (see --max-stack-lines)");
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Random bytes overwritten, or a byte set to one of JSON's own. */
static void test_mutations(void **state)
{
	struct fixture *f = *state;
	static const char json_bytes[] = "{}[],:\"0123456789-.etrufalsn ";
	size_t len;
	char *base = load("metrickit/handmade-hang-payload.json", &len);
	char *buf = malloc(len + 1);
	assert_non_null(buf);
	for (int round = 0; round < 1500; round++) {
		memcpy(buf, base, len + 1);
		for (int k = 0; k < 1 + (int)(rng() % 4); k++) {
			size_t at = rng() % len;
			buf[at] = rng() % 2 ? json_bytes[rng() % (sizeof json_bytes - 1)] : (char)rng();
			if (buf[at] == '\0')
				buf[at] = ' ';
		}
		read_bytes(f, buf, len);
		check_all(f);
	}
	free(buf);
	free(base);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_real_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hang_payload, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cpu_exception, setup, teardown),
		cmocka_unit_test_setup_teardown(test_durations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forced_and_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_load_addresses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_types, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deep_nesting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frame_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paths_over_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mutations, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
