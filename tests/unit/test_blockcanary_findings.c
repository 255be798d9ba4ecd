/* Unit tests for BlockCanary's samples and what its figures say
 * (report_blockcanary_samples.c, report_blockcanary_findings.c): every
 * sample of the seeds of testdata/seeds/blockcanary/ (written from seed
 * 001's description) and of the complete CRLF log, each with its time, the
 * blamed main thread their heaviest path; the threshold the first sample
 * implies (0.8 x the threshold after the start) and when it implies none,
 * the dump interval, cpu-busy read with thread time (own work, contention,
 * waiting), the CPU rates in the block; identical samples sharing a
 * thread, unreadable sample times, a log cut mid-frame, 10,000 samples
 * and distinct samples past the frame budget (counted, not kept).  No
 * timing is asserted.  argv[1] is the testdata/ folder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "hangar/input.h"
#include "hangar/report.h"
#include "hangar/samples.h"

static const char *testdata = "testdata";

#define FIXTURE_SOURCE "mem.log"
#define FIXTURE_FORMAT HG_FORMAT_BLOCKCANARY
#define FIXTURE_DIR "seeds/blockcanary"
#define FIXTURE_DAMAGED "damaged.log"
#include "text_reader_fixture.h"

static void check_sane(const hg_report *r)
{
	(void)r; /* read_damaged is not used here: test_blockcanary.c damages */
}

/* A year-less log's header, the block 1200 ms from 09:00:00.000. */
#define HEAD(busy, thread_time)                                                                 \
	"model = X\nprocess = com.example\ntime = 1200\nthread-time = " thread_time "\n"          \
	"time-start = 05-02 09:00:00.000\ntime-end = 05-02 09:00:01.200\ncpu-busy = " busy "\n"

static const hg_thread *blamed(const hg_report *r)
{
	assert_int_equal(r->threads.blamed, 0);
	const hg_thread *t = &r->threads.items[0];
	assert_string_equal(t->name, "main");
	assert_int_equal(t->flags, HG_THREAD_MAIN | HG_THREAD_BLAMED);
	return t;
}

/* ---- the seeds ---- */

static void test_article_seed(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	size_t len;
	char *text;
	const hg_report *r = read_fixture(&g, "notes-hash-write-waittofinish-2024-05-06.log", &text,
					  &len);
	assert_string_equal(r->time, "2024-05-06T21:14:05.120Z");
	assert_int_equal(r->cost, 3350);
	/* four samples, every one kept with its time */
	static const char *const times[] = {"05-06 21:14:06.721", "05-06 21:14:07.223",
					    "05-06 21:14:07.726", "05-06 21:14:08.229"};
	static const int64_t at[] = {1715030046721, 1715030047223, 1715030047726, 1715030048229};
	assert_int_equal(r->n_samples, 4);
	for (size_t i = 0; i < 4; i++) {
		assert_string_equal(r->samples[i].time, times[i]);
		assert_int_equal(r->samples[i].at, at[i]);
	}
	/* the hash loop twice (one thread), the write, the wait */
	assert_int_equal(r->threads.n, 4);
	assert_int_equal(r->samples[0].thread, r->samples[1].thread);
	assert_string_equal(r->threads.items[r->samples[2].thread].frames[0].method, "writeBytes");
	assert_string_equal(r->threads.items[r->samples[3].thread].frames[7].method, "waitToFinish");
	/* the threshold: 1601 ms to the first sample is 0.8 x 2000 */
	assert_int_equal(r->threshold, 2000);
	assert_int_equal(r->sample_interval, 503);
	assert_figure(r, "block", "dump-interval-ms", "503");
	assert_figure(r, "header", "threshold", "about 2000 ms (the first sample came 1601 ms in, at "
		      "0.8 x the threshold)");
	/* cpu-busy with 72% thread time: the app's own work on a busy CPU */
	assert_figure(r, "header", "finding", "its own work, on a busy CPU (cpu-busy); it ran 2412 "
		      "of 3350 ms (72%)");
	assert_figure(r, "header", "cpu", "busy (cpu-busy); 70% used, app 39%, ioWait 12% (5 "
		      "samples in the block)");
	assert_figure(r, "block", "iowait-percent-in-block", "12");
	assert_int_equal(r->warnings.len, 0);
	/* the heaviest path: the hash loop, in two of the four samples */
	const hg_thread *t = blamed(r);
	assert_int_equal(t->n_frames, 19);
	assert_frame(&t->frames[0], "com.example.notes.util.Hashes", "fnv1a", "Hashes.java", 31, 2);
	assert_frame(&t->frames[3], "com.example.notes.ui.EditorActivity", "onStop",
		     "EditorActivity.java", 266, 3);
	assert_frame(&t->frames[18], "com.android.internal.os.ZygoteInit", "main", "ZygoteInit.java",
		     930, 4);
	got_release(&g);
	free(text);
}

static void test_old_keys_seed(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	size_t len;
	char *text;
	const hg_report *r = read_fixture(&g, "old-keys-sqlite-two-samples.log", &text, &len);
	assert_int_equal(r->threshold, 1000); /* 801 ms in */
	assert_int_equal(r->n_samples, 2);
	assert_int_equal(r->threads.n, 2); /* one stack twice */
	assert_figure(r, "header", "finding", "waiting: blocked (a lock, I/O, IPC), not short of CPU; "
		      "it ran 310 of 2280 ms (14%)");
	assert_figure(r, "header", "cpu", "not busy (cpu-busy false); 31% used, app 5%, ioWait 34% "
		      "(2 samples in the block)");
	assert_warning(r, "cpu-busy = false");
	got_release(&g);
	free(text);
}

static void test_damaged_seed(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	size_t len;
	char *text;
	const hg_report *r = read_fixture(&g, "damaged-untimed-garbage-cut.log", &text, &len);
	assert_int_equal(r->n_samples, 3);
	for (size_t i = 0; i < 3; i++)
		assert_null(r->samples[i].time);
	assert_int_equal(r->threshold, 0);
	assert_warning(r, "skipped 2 lines that are neither a header field nor a stack frame (the "
		       "first at line 18: \"### sampler hiccup ###\")");
	assert_warning(r, "line 28: the log ends in the middle of a frame (\"android.os.Handler."
		       "dispatchMessage(Handler.java:10\"): the last sample lost its outer frames");
	/* the cut sample is a root of its own: it lost Looper.loop and below */
	hg_arena *a = hg_arena_create();
	hg_sample_tree tr;
	assert_int_equal(hg_report_sample_tree(r, a, &tr), 0);
	size_t roots = 0;
	for (size_t i = 0; i < tr.n; i++)
		roots += tr.nodes[i].parent == HG_SAMPLE_NONE;
	assert_int_equal(roots, 2);
	hg_arena_destroy(a);
	got_release(&g);
	free(text);
}

/* ---- findings ---- */

static void test_findings(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	/* little thread time on a busy CPU: contention */
	const hg_report *r = read_good(&g, HEAD("true", "100") "stack = 05-02 09:00:00.400\n\n"
				       "a.B.c(B.java:1)\n", HG_FORMAT_BLOCKCANARY);
	assert_figure(r, "header", "finding", "contention: a busy CPU (cpu-busy) ran others; it ran "
		      "100 of 1200 ms (8%)");
	assert_warning(r, "the main thread waited (thread time 100 ms of 1200 ms wall) while the CPU "
		       "was busy (cpu-busy = true): other threads or processes kept it off the CPU");
	/* 400 ms to the first sample: a 500 ms threshold */
	assert_int_equal(r->threshold, 500);
	/* cpu-busy absent or neither true nor false: not said */
	r = read_good(&g, HEAD("maybe", "100") "\na.B.c(B.java:1)\n", HG_FORMAT_BLOCKCANARY);
	assert_figure(r, "header", "finding", "waiting: the main thread was blocked; it ran 100 of "
		      "1200 ms (8%)");
	assert_null(figure(r, "header", "cpu", 0));
	assert_warning(r, "it was blocked, not computing");
	/* a first sample 1 s in implies 1250 ms, not below the 1200 ms block: none */
	r = read_good(&g, HEAD("false", "1000") "stack = 05-02 09:00:01.000\n\na.B.c(B.java:1)\n",
		      HG_FORMAT_BLOCKCANARY);
	assert_int_equal(r->threshold, 0);
	assert_null(figure(r, "header", "threshold", 0));
	assert_figure(r, "header", "finding", "its own work: the main thread computed; it ran 1000 of "
		      "1200 ms (83%)");
	/* a sample before the start implies nothing either */
	r = read_good(&g, HEAD("false", "1000") "stack = 05-02 08:59:59.000\n\na.B.c(B.java:1)\n",
		      HG_FORMAT_BLOCKCANARY);
	assert_int_equal(r->threshold, 0);
	got_release(&g);
}

/* Sample times that cannot be read: untimed, said once. */
static void test_unreadable_sample_times(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	const hg_report *r = read_good(&g, HEAD("false", "1000") "stack = 13-45 09:00:00.400\n\n"
				       "a.B.c(B.java:1)\n\n05-02 09:00:00.900\n\na.B.c(B.java:1)\n",
				       HG_FORMAT_BLOCKCANARY);
	assert_int_equal(r->n_samples, 2);
	assert_string_equal(r->samples[0].time, "13-45 09:00:00.400");
	assert_int_equal(r->samples[0].at, -1);
	assert_true(r->samples[1].at > 0);
	assert_warning(r, "1 stack sample time cannot be read (the first: \"13-45 09:00:00.400\"): "
		       "it is left out of the samples' span");
	assert_int_equal(r->sample_interval, 0);
	got_release(&g);
}

/* ---- size ---- */

/* 10,000 samples 500 ms apart cycling through three stacks: every sample
 * counted and kept, three threads for them. */
static void test_10000_samples(void **state)
{
	(void)state;
	enum { SAMPLES = 10000 };
	static const char *const tops[] = {"a.B.spin(B.java:7)", "a.B.spin(B.java:9)",
					   "a.B.write(B.java:3)"};
	size_t cap = (size_t)SAMPLES * 96 + 512, n = 0;
	char *text = malloc(cap);
	assert_non_null(text);
	n += (size_t)snprintf(text + n, cap - n, "time = 5000000\nthread-time = 4000000\n"
			      "time-start = 1508750380000\n\nstack = ");
	for (int i = 0; i < SAMPLES; i++)
		n += (size_t)snprintf(text + n, cap - n, "%lld\r\n\r\n%s\r\na.B.run(B.java:1)\r\n\r\n",
				      1508750380400LL + 500LL * i, tops[i % 3]);
	struct got g;
	got_init(&g);
	assert_int_equal(read_as(&g, text, n, HG_FORMAT_AUTO), 0);
	const hg_report *r = g.rep;
	assert_int_equal(r->format, HG_FORMAT_BLOCKCANARY);
	assert_figure(r, "block", "samples", "10000");
	assert_int_equal(r->n_samples, SAMPLES);
	assert_int_equal(r->threads.n, 4);
	assert_int_equal(r->sample_interval, 500);
	assert_int_equal(r->threshold, 500); /* 400 ms in */
	const hg_thread *t = blamed(r);
	assert_frame(&t->frames[1], "a.B", "run", "B.java", 1, SAMPLES);
	assert_frame(&t->frames[0], "a.B", "spin", "B.java", 7, 3334);
	got_release(&g);
	free(text);
}

/* Distinct samples past --max-stack-lines in all: counted, not kept. */
static void test_frame_budget(void **state)
{
	(void)state;
	enum { SAMPLES = 100 };
	size_t cap = (size_t)SAMPLES * 48 + 256, n = 0;
	char *text = malloc(cap);
	assert_non_null(text);
	n += (size_t)snprintf(text + n, cap - n, "time = 5000\nthread-time = 4000\n\nstack = \n\n");
	for (int i = 0; i < SAMPLES; i++)
		n += (size_t)snprintf(text + n, cap - n, "a.B.step(B.java:%d)\n\n", i + 1);
	struct got g;
	got_init(&g);
	g.ctx.limits.max_stack_lines = 40;
	assert_int_equal(read_as(&g, text, n, HG_FORMAT_BLOCKCANARY), 0);
	const hg_report *r = g.rep;
	assert_figure(r, "block", "samples", "100");
	assert_int_equal(r->n_samples, 40);
	assert_int_equal(r->threads.n, 41);
	assert_warning(r, "60 of the 100 stack samples are counted but not kept: their distinct "
		       "stacks pass 40 frames in all (see --max-stack-lines)");
	got_release(&g);
	free(text);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_article_seed),
		cmocka_unit_test(test_old_keys_seed),
		cmocka_unit_test(test_damaged_seed),
		cmocka_unit_test(test_findings),
		cmocka_unit_test(test_unreadable_sample_times),
		cmocka_unit_test(test_10000_samples),
		cmocka_unit_test(test_frame_budget),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
