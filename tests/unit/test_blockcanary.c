/* Unit tests for BlockCanary logs: the two logs users pasted into
 * AndroidPerformanceMonitor issues (every header value, figure, warning and
 * frame checked), a complete CRLF log with three stack samples (each a
 * sample with its time, the blamed main thread their heaviest path with
 * repeat counts), what the figures say (the threshold the first sample
 * implies, the dump interval, cpu-busy against thread time, the CPU in the
 * block), the older key names, untimed, epoch-timed and unreadable sample
 * times, identical samples sharing a thread, a second log in the input,
 * bad durations, lines that are not frames, the frame caps, every 37th
 * truncation and 2000 seeded mutations of the fixtures, 10,000 samples and
 * a 10,000-frame sample.  argv[1] is the testdata/ folder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "hangar/input.h"
#include "hangar/report.h"
#include "hangar/samples.h"

static const char *testdata = "testdata";

static const char *const fixtures[] = {
	"issue113-mi3w-api19-excerpt.log",
	"issue114-t68-api23-excerpt.log",
	"looper-2024-03-18_14-22-05.347.log",
};

#define FIXTURE_SOURCE "mem.log"
#define FIXTURE_FORMAT HG_FORMAT_BLOCKCANARY
#define FIXTURE_DIR "blockcanary"
#define FIXTURE_DAMAGED "damaged.log"
#include "text_reader_fixture.h"

/* The main thread a log gives, blamed (the samples' heaviest path), before
 * its samples' threads. */
static const hg_thread *main_thread(const hg_report *r, size_t frames)
{
	assert_true(r->threads.n >= 2);
	for (size_t i = 1; i < r->threads.n; i++)
		assert_int_equal(r->threads.items[i].flags, HG_THREAD_SAMPLE);
	assert_int_equal(r->threads.blamed, 0);
	const hg_thread *t = &r->threads.items[0];
	assert_string_equal(t->name, "main");
	assert_int_equal(t->flags & (HG_THREAD_MAIN | HG_THREAD_BLAMED),
			 HG_THREAD_MAIN | HG_THREAD_BLAMED);
	assert_int_equal(t->n_frames, frames);
	return t;
}

/* What must hold of any report, read or failed (truncations, mutations). */
static void check_sane(const hg_report *r)
{
	if (r->error) {
		assert_true(strlen(r->error) > 0);
		return;
	}
	assert_int_equal(r->kind, HG_KIND_BLOCK);
	assert_true(r->threads.blamed == (r->threads.n ? 0 : -1));
	const char *samples = figure(r, "block", "samples", 0);
	long max = samples ? atol(samples) : 0;
	assert_true((size_t)max >= r->n_samples);
	assert_int_equal(r->threads.n > 0, r->n_samples > 0);
	for (size_t i = 0; i < r->n_samples; i++) {
		assert_true(r->samples[i].thread >= 1 && (size_t)r->samples[i].thread < r->threads.n);
		assert_int_equal(r->samples[i].weight, 1);
		assert_true(r->samples[i].at >= -1);
	}
	for (size_t i = 0; i < r->threads.n; i++)
		for (size_t k = 0; k < r->threads.items[i].n_frames; k++) {
			const hg_frame *f = &r->threads.items[i].frames[k];
			assert_non_null(f->cls);
			assert_non_null(f->method);
			assert_non_null(f->text);
			assert_true(f->repeat >= 1 && f->repeat <= max);
		}
	for (size_t i = 0; i < r->n_stats; i++)
		assert_true(r->stats[i].name && r->stats[i].value);
	for (size_t i = 0; i < r->warnings.len; i++)
		assert_true(strlen(r->warnings.items[i]) > 0);
}

/* ---- the corpus logs ---- */

static void test_issue113_mi3w(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	size_t len;
	char *text;
	const hg_report *r = read_fixture(&g, fixtures[0], &text, &len);
	assert_int_equal(r->kind, HG_KIND_BLOCK);
	assert_string_equal(r->platform, "android");
	assert_string_equal(r->device, "MI 3W");
	assert_string_equal(r->app_version, "4.9.0");
	assert_string_equal(r->os_version, "19"); /* "api-level = 19 4.4.4": the API level */
	assert_string_equal(r->process, "com.pingan.lifeinsurance");
	assert_string_equal(r->time_written, "10-29 10:32:12.601");
	assert_string_equal(r->time, "2017-10-29T10:32:12.601Z");
	assert_int_equal(r->cost, 5050);

	/* Every header field, as written, in order. */
	static const char *const header[][2] = {
		{"write-log-time", "2017-10-29 10:32:17"}, {"qua", "unknown"}, {"versionName", "4.9.0"},
		{"versionCode", "490"}, {"imei", "863360022872042"}, {"uid", "uid"},
		{"network", "unknown"}, {"model", "MI 3W"}, {"api-level", "19 4.4.4"},
		{"cpu-core", "4"}, {"process", "com.pingan.lifeinsurance"}, {"freeMemory", "747180"},
		{"totalMemory", "1898220"}, {"time", "5050"}, {"thread-time", "589"},
		{"time-start", "10-29 10:32:12.601"}, {"time-end", "10-29 10:32:17.651"},
		{"cpu-busy", "false"},
		{"cpu-rate", "10-29 10:32:14.406 cpu:52% app:2% [user:45% system:3% ioWait:3% ]"},
	};
	for (size_t i = 0; i < sizeof header / sizeof *header; i++) {
		assert_string_equal(r->stats[i].group, "blockcanary");
		assert_string_equal(r->stats[i].name, header[i][0]);
		assert_string_equal(r->stats[i].value, header[i][1]);
	}
	assert_string_equal(figure(r, "blockcanary", "cpu-rate", 3),
			    "10-29 10:32:17.413 cpu:57% app:76% [user:34% system:10% ioWait:12% ]");
	assert_null(figure(r, "blockcanary", "cpu-rate", 4));
	assert_figure(r, "blockcanary", "stack", "10-29 10:32:13.403");
	assert_int_equal(figures_in(r, "blockcanary"), 23);

	/* time-start has no year: the log's write time (2017-10-29 10:32:17) gives it */
	assert_figure(r, "block", "time-year-from", "the log's write time");
	assert_figure(r, "block", "waited-ms", "4461");
	assert_figure(r, "block", "thread-time-percent", "11.7");
	assert_figure(r, "block", "cpu-samples", "4");
	assert_figure(r, "block", "cpu-samples-in-block", "4");
	assert_figure(r, "block", "samples", "1");
	assert_int_equal(r->warnings.len, 1);
	assert_string_equal(r->warnings.items[0], "the main thread waited (thread time 589 ms of "
			    "5050 ms wall): it was blocked, not computing (a lock, I/O or a call to "
			    "another process: cpu-busy = false)");
	/* The findings: the first sample 802 ms after the start is 0.8 x a
	 * 1000 ms threshold (BlockCanary's default); the four CPU samples in
	 * the block average 55% used, the app 39%. */
	assert_int_equal(r->threshold, 1000);
	assert_figure(r, "header", "threshold", "about 1000 ms (the first sample came 802 ms in, at "
		      "0.8 x the threshold)");
	assert_figure(r, "header", "cpu", "not busy (cpu-busy false); 55% used, app 39%, ioWait 10% "
		      "(4 samples in the block)");
	assert_figure(r, "header", "finding", "waiting: blocked (a lock, I/O, IPC), not short of CPU; "
		      "it ran 589 of 5050 ms (12%)");
	assert_figure(r, "block", "cpu-percent-in-block", "55");
	assert_null(figure(r, "block", "dump-interval-ms", 0)); /* one sample */
	assert_int_equal(r->n_samples, 1);
	assert_string_equal(r->samples[0].time, "10-29 10:32:13.403");
	assert_int_equal(r->samples[0].at, 1509273133403); /* 2017-10-29T10:32:13.403Z */

	const hg_thread *t = main_thread(r, 10);
	assert_frame(&t->frames[0], "dalvik.system.DexFile", "openDexFileNative", "Native Method", -1, 1);
	assert_frame(&t->frames[1], "dalvik.system.DexFile", "openDexFile", "DexFile.java", 296, 1);
	assert_frame(&t->frames[2], "dalvik.system.DexFile", "<init>", "DexFile.java", 111, 1);
	assert_frame(&t->frames[6], "com.alibaba.android.arouter.launcher._ARouter", "init",
		     "_ARouter.java", 60, 1);
	assert_frame(&t->frames[9], "com.pingan.lifeinsurance.framework.router.PARouter",
		     "navigation", "PARouter.java", 160, 1);
	assert_string_equal(t->frames[0].text, "dalvik.system.DexFile.openDexFileNative(Native Method)");
	assert_null(t->state);
	got_release(&g);
	free(text);
}

static void test_issue114_garbage_cpu(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	size_t len;
	char *text;
	const hg_report *r = read_fixture(&g, fixtures[1], &text, &len);
	assert_string_equal(r->device, "T68");
	assert_string_equal(r->app_version, "1.0");
	assert_string_equal(r->process, "com.evideostb.kdroid.app.demand");
	assert_string_equal(r->time_written, "11-14 22:51:13.247");
	assert_string_equal(r->time, "2017-11-14T22:51:13.247Z");
	assert_int_equal(r->cost, 5692);
	assert_figure(r, "blockcanary", "imei", "null");
	assert_figure(r, "blockcanary", "versionCode", "10127");
	assert_figure(r, "blockcanary", "api-level", "23 6.0.1");
	assert_figure(r, "blockcanary", "thread-time", "130");
	assert_figure(r, "blockcanary", "time-end", "11-14 22:51:18.939");
	assert_string_equal(figure(r, "blockcanary", "cpu-rate", 0),
			    "11-14 21:10:36.770 cpu:62% app:8596% [user:152940% system:135920% "
			    "ioWait:29926% ]");
	assert_string_equal(figure(r, "blockcanary", "cpu-rate", 5),
			    "11-14 22:51:19.084 cpu:75% app:0% [user:13% system:17% ioWait:42% ]");
	assert_int_equal(figures_in(r, "blockcanary"), 25);
	assert_figure(r, "block", "waited-ms", "5562");
	assert_figure(r, "block", "thread-time-percent", "2.3");
	assert_figure(r, "block", "cpu-samples", "6");
	assert_figure(r, "block", "cpu-samples-in-block", "0");
	assert_figure(r, "block", "samples", "1");

	assert_int_equal(r->warnings.len, 3);
	assert_string_equal(r->warnings.items[0], "cpu-rate at line 21: \"app:8596%\" is over 100%: "
			    "BlockCanary's CPU sampler misread /proc/stat, so its CPU figures are "
			    "not reliable");
	assert_warning(r, "(thread time 130 ms of 5692 ms wall)");
	assert_warning(r, "none of the 6 cpu-rate samples was taken during the block "
		       "(11-14 22:51:13.247 to 11-14 22:51:18.939)");

	const hg_thread *t = main_thread(r, 8);
	assert_frame(&t->frames[0], "java.lang.String", "hashCode", "String.java", 615, 1);
	assert_frame(&t->frames[2], "android.content.res.ColorStateList", "createFromXmlInner",
		     "ColorStateList.java", 216, 1);
	assert_frame(&t->frames[7], "android.widget.TextView", "<init>", "TextView.java", 738, 1);
	got_release(&g);
	free(text);
}

/* ---- the complete CRLF log: three samples ---- */

static void check_three_samples(const hg_report *r)
{
	assert_string_equal(r->device, "Redmi Note 8 Pro");
	assert_string_equal(r->app_version, "5.2.0");
	assert_string_equal(r->process, "com.example.reader");
	assert_string_equal(r->time_written, "03-18 14:22:01.163");
	assert_string_equal(r->time, "2024-03-18T14:22:01.163Z");
	assert_int_equal(r->cost, 3184);
	assert_figure(r, "blockcanary", "write-log-time", "2024-03-18 14:22:05");
	assert_figure(r, "blockcanary", "imei", "empty_imei");
	assert_figure(r, "blockcanary", "network", "wifi");
	assert_figure(r, "blockcanary", "stack", "03-18 14:22:01.963");
	assert_string_equal(figure(r, "blockcanary", "cpu-rate", 4),
			    "03-18 14:22:03.575 cpu:29% app:2% [user:12% system:9% ioWait:7% ]");
	assert_int_equal(figures_in(r, "blockcanary"), 24);
	for (size_t i = 0; i < r->n_stats; i++)
		assert_null(strchr(r->stats[i].value, '\r'));
	assert_figure(r, "block", "samples", "3");
	assert_figure(r, "block", "waited-ms", "1888");
	assert_figure(r, "block", "thread-time-percent", "40.7");
	assert_figure(r, "block", "cpu-samples", "5");
	assert_figure(r, "block", "cpu-samples-in-block", "3");
	assert_int_equal(r->warnings.len, 1);
	assert_warning(r, "the main thread waited (thread time 1296 ms of 3184 ms wall)");

	/* Sample 1's frames: JSON work seen once (JSONObject.writeTo twice in
	 * the sample, still one sample), onStop..handleStopActivity:4683 in
	 * samples 1 and 2, the looper frames in all three. */
	const hg_thread *t = main_thread(r, 25);
	assert_frame(&t->frames[0], "org.json.JSONStringer", "string", "JSONStringer.java", 344, 1);
	assert_frame(&t->frames[2], "org.json.JSONObject", "writeTo", "JSONObject.java", 734, 1);
	assert_frame(&t->frames[6], "org.json.JSONObject", "writeTo", "JSONObject.java", 734, 1);
	assert_frame(&t->frames[8], "com.example.reader.data.BookmarkStore", "flush",
		     "BookmarkStore.java", 87, 1);
	assert_frame(&t->frames[9], "com.example.reader.ui.ReaderActivity", "onStop",
		     "ReaderActivity.java", 218, 2);
	assert_frame(&t->frames[14], "android.app.ActivityThread", "handleStopActivity",
		     "ActivityThread.java", 4683, 2);
	assert_frame(&t->frames[15], "android.app.servertransaction.StopActivityItem", "execute",
		     "StopActivityItem.java", 41, 3);
	assert_frame(&t->frames[24], "com.android.internal.os.ZygoteInit", "main",
		     "ZygoteInit.java", 930, 3);
	long per_repeat[4] = {0};
	for (size_t i = 0; i < t->n_frames; i++)
		per_repeat[t->frames[i].repeat]++;
	assert_int_equal(per_repeat[1], 9);
	assert_int_equal(per_repeat[2], 6);
	assert_int_equal(per_repeat[3], 10);
}

static void test_crlf_log_three_samples(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	size_t len;
	char *text;
	check_three_samples(read_fixture(&g, fixtures[2], &text, &len));
	assert_non_null(memchr(text, '\r', len));

	/* The same log with LF line endings reads the same. */
	size_t k = 0;
	for (size_t i = 0; i < len; i++)
		if (text[i] != '\r')
			text[k++] = text[i];
	text[k] = '\0';
	assert_int_equal(read_as(&g, text, k, HG_FORMAT_BLOCKCANARY), 0);
	check_three_samples(g.rep);
	got_release(&g);
	free(text);
}

/* ---- variants ---- */

#define HEADER                                                                                \
	"qua = unknown\nversionName = 2.1\nmodel = SM-G950F\napi-level = 28 9\n"                \
	"time = 1200\nthread-time = 1100\ntime-start = 05-02 09:00:00.000\n"                   \
	"time-end = 05-02 09:00:01.200\ncpu-busy = true\n"

static void test_untimed_and_epoch_samples(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	/* Samples without timestamps, separated by blank lines. */
	const hg_report *r = read_good(&g, HEADER "stack = \n\na.B.c(B.java:1)\na.B.d(B.java:2)\n\n"
				       "a.B.x(B.java:9)\na.B.d(B.java:2)\n\n",
				       HG_FORMAT_BLOCKCANARY);
	assert_figure(r, "block", "samples", "2");
	const hg_thread *t = main_thread(r, 2);
	assert_frame(&t->frames[0], "a.B", "c", "B.java", 1, 1);
	assert_frame(&t->frames[1], "a.B", "d", "B.java", 2, 2);
	assert_int_equal(r->warnings.len, 0); /* 1100 of 1200 ms: computing */
	assert_figure(r, "block", "thread-time-percent", "91.7");
	assert_figure(r, "header", "finding", "its own work, on a busy CPU (cpu-busy); it ran 1100 "
		      "of 1200 ms (92%)");
	assert_figure(r, "header", "cpu", "busy (cpu-busy)");
	assert_int_equal(r->n_samples, 2);
	for (size_t i = 0; i < 2; i++) {
		assert_null(r->samples[i].time);
		assert_int_equal(r->samples[i].at, -1);
	}
	assert_int_equal(r->sample_interval, 0);
	assert_int_equal(r->threshold, 0); /* no sample time: none implied */

	/* Epoch-millisecond timestamps, no blank line between samples. */
	r = read_good(&g, HEADER "stack = 1508750380394\na.B.c(B.java:1)\na.B.d(B.java:2)\n"
		      "1508750380494\na.B.c(B.java:1)\na.B.d(B.java:2)\n1508750380594\n"
		      "a.B.c(B.java:1)\na.B.e(B.java:3)\n",
		      HG_FORMAT_BLOCKCANARY);
	assert_figure(r, "block", "samples", "3");
	/* the tree: d > c (2 samples), e > c (1): c under d is not c under e */
	t = main_thread(r, 2);
	assert_frame(&t->frames[0], "a.B", "c", "B.java", 1, 2);
	assert_frame(&t->frames[1], "a.B", "d", "B.java", 2, 2);
	assert_int_equal(r->threads.n, 3); /* samples 1 and 2 share their thread */
	assert_int_equal(r->samples[0].thread, r->samples[1].thread);
	assert_int_equal(r->samples[0].at, 1508750380394);
	assert_int_equal(r->samples[2].at, 1508750380594);
	assert_int_equal(r->sample_interval, 100);
	assert_figure(r, "block", "dump-interval-ms", "100");

	/* A timestamp with no frames after it is no sample. */
	r = read_good(&g, HEADER "stack = 05-02 09:00:00.400\n\n05-02 09:00:00.800\n\n"
		      "a.B.c(B.java:1)\n\n", HG_FORMAT_BLOCKCANARY);
	assert_figure(r, "block", "samples", "1");
	main_thread(r, 1);
	got_release(&g);
}

static void test_old_key_names(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	/* blockcanary-core's Block wrote these names. */
	const hg_report *r = read_good(&g,
		"qualifier = 1.0\r\nversionName = 1.0.3\r\nversionCode = 13\r\nimei = \r\n"
		"uid = 42\r\nnetwork = 4G\r\nmodel = MX5\r\napilevel = 22 5.1\r\ncpuCore = 8\r\n"
		"processName = com.example.old\r\nfreeMemory = 1024\r\ntotalMemory = 2048\r\n"
		"timecost = 2400\r\nthreadtimecost = 150\r\ntimestart = 01-02 03:04:05.006\r\n"
		"timeend = 01-02 03:04:07.406\r\ncpubusy = false\r\n"
		"cpurate = 01-02 03:04:06.000 cpu:10% app:5% [user:5% system:5% ioWait:0% ]\r\n\r\n"
		"stack = 01-02 03:04:06.000\r\n\r\nandroid.os.MessageQueue.next(MessageQueue.java:323)\r\n"
		"android.os.Looper.loop(Looper.java:135)\r\n\r\n\r\n", HG_FORMAT_BLOCKCANARY);
	assert_int_equal(r->cost, 2400);
	assert_string_equal(r->process, "com.example.old");
	assert_string_equal(r->device, "MX5");
	assert_string_equal(r->time_written, "01-02 03:04:05.006");
	/* no year in the log: the current year, or the one before */
	assert_non_null(strstr(r->time, "-01-02T03:04:05.006Z"));
	assert_figure(r, "blockcanary", "imei", "");
	assert_figure(r, "blockcanary", "apilevel", "22 5.1");
	assert_string_equal(r->os_version, "22");
	assert_figure(r, "block", "cpu-samples-in-block", "1");
	assert_warning(r, "(thread time 150 ms of 2400 ms wall)");
	main_thread(r, 2);
	got_release(&g);
}

static void test_second_log_and_missing_parts(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	/* (Not starting with a blank line: the reader is given the text from
	 * the first non-blank byte, and the warning counts lines from there.) */
	const hg_report *r = read_good(&g, "**********************\n2020-01-01 00:00:00(write log "
				       "time)\n\n" HEADER "stack = 05-02 09:00:00.400\n\na.B.c(B.java:1)\n\n\n"
				       "\n**********************\n2020-01-01 00:01:00(write log time)\n\n"
				       "time = 9000\nstack = 05-02 09:01:00.400\n\nx.Y.z(Y.java:5)\n",
				       HG_FORMAT_AUTO);
	assert_int_equal(r->format, HG_FORMAT_BLOCKCANARY);
	assert_int_equal(r->cost, 1200);
	assert_warning(r, "a second BlockCanary log starts at line 19: only the first one is read");
	const hg_thread *t = main_thread(r, 1);
	assert_string_equal(t->frames[0].cls, "a.B");

	/* No stack, no time: read, with warnings. */
	r = read_good(&g, "qua = unknown\nmodel = X\n", HG_FORMAT_AUTO);
	assert_int_equal(r->threads.n, 0);
	assert_int_equal(r->threads.blamed, -1);
	assert_int_equal(r->cost, 0);
	assert_warning(r, "no \"time = \" line: how long the block lasted is unknown");
	assert_warning(r, "no stack sample");
	got_release(&g);
}

static void test_lines_that_are_not_frames(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	const hg_report *r = read_good(&g, "some preamble\n" HEADER "stack = 05-02 09:00:00.400\n\n"
				       "a.B.c(B.java:1)\n<<< garbled >>>\na.B.d(B.java:2)\n"
				       "not a frame at all\n", HG_FORMAT_BLOCKCANARY);
	assert_warning(r, "skipped 3 lines that are neither a header field nor a stack frame (the "
		       "first at line 1: \"some preamble\")");
	main_thread(r, 2);

	/* A percentage too big to hold is garbage all the same. */
	r = read_good(&g, HEADER "cpu-rate = 05-02 09:00:00.500 cpu:999999999999% app:3%\n",
		      HG_FORMAT_BLOCKCANARY);
	assert_warning(r, "cpu-rate at line 10: \"cpu:999999999999%\" is over 100%");
	assert_figure(r, "block", "cpu-samples-in-block", "1");

	/* Frames without "stack = " are read as one. */
	r = read_good(&g, HEADER "\n\tat a.B.c(B.java:1)\n\tat a.B.d(B.java:2)\n",
		      HG_FORMAT_BLOCKCANARY);
	main_thread(r, 2);
	assert_figure(r, "block", "samples", "1");
	got_release(&g);
}

static void test_bad_durations(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	static const struct bad_case cases[] = {
		{"qua = unknown\nmodel = X\ntime = 5o50\n",
		 "time = \"5o50\": expected milliseconds (a whole number)", 3},
		{"qua = unknown\r\nthread-time = -12\r\n", "thread-time = \"-12\"", 2},
		{"qua = unknown\ntime = \n", "time = \"\"", 2},
		{"time = 99999999999999999999\n", "time = \"99999999999999999999\"", 1},
		{"timecost = 12 ms\n", "timecost = \"12 ms\"", 1},
		{"\n\nhello\nworld\n", "not a BlockCanary log: no \"key = value\" header line "
		 "(like \"time = 1200\"); the first line is \"hello\"", 3},
	};
	read_bad_cases(&g, cases, sizeof cases / sizeof *cases);
	got_release(&g);
}

static void test_frame_cap(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	g.ctx.limits.max_stack_lines = 3;
	read_bad(&g, HEADER "stack = 05-02 09:00:00.400\n\na.B.a(B.java:1)\na.B.b(B.java:2)\n"
		 "a.B.c(B.java:3)\na.B.d(B.java:4)\n", "a stack sample of more than 3 frames "
		 "(see --max-stack-lines)", 15);
	got_release(&g);
}

/* ---- damaged inputs ---- */

static void test_every_37th_truncation(void **state)
{
	(void)state;
	static const enum hg_input_format formats[] = {HG_FORMAT_BLOCKCANARY, HG_FORMAT_AUTO};
	read_truncations(fixtures, sizeof fixtures / sizeof *fixtures, 37, formats,
			 sizeof formats / sizeof *formats);
}

static void test_2000_mutations(void **state)
{
	(void)state;
	read_mutations(fixtures, sizeof fixtures / sizeof *fixtures, 2000);
}

/* ---- size ---- */

static void test_10000_frame_samples(void **state)
{
	(void)state;
	enum { FRAMES = 10000 };
	size_t cap = (size_t)FRAMES * 2 * 64 + 4096, n = 0;
	char *text = malloc(cap);
	assert_non_null(text);
	n += (size_t)snprintf(text + n, cap - n, "%sstack = 05-02 09:00:00.400\r\n\r\n", HEADER);
	for (int i = 0; i < FRAMES; i++)
		n += (size_t)snprintf(text + n, cap - n, "com.example.deep.Recursion.step%d(Recursion.java:%d)\r\n",
				      i, i + 1);
	n += (size_t)snprintf(text + n, cap - n, "\r\n05-02 09:00:00.800\r\n\r\n");
	for (int i = 0; i < FRAMES; i++) /* the second sample shares the odd frames */
		n += (size_t)snprintf(text + n, cap - n, "com.example.deep.Recursion.step%d(Recursion.java:%d)\r\n",
				      i, i % 2 ? i + 1 : i + 2);
	struct got g;
	got_init(&g);
	read_within(&g, text, n, 5.0);
	/* the outermost frame is both samples'; the next differs (its line) */
	const hg_thread *t = main_thread(g.rep, FRAMES);
	assert_figure(g.rep, "block", "samples", "2");
	for (int i = 0; i < FRAMES - 1; i++)
		assert_int_equal(t->frames[i].repeat, 1);
	assert_frame(&t->frames[FRAMES - 1], "com.example.deep.Recursion", "step9999",
		     "Recursion.java", 10000, 2);
	assert_int_equal(t->frames[FRAMES - 2].line, 9999); /* the first sample's */
	got_release(&g);
	free(text);
}

/* A log without a year in its times, time-start as given. */
#define YEARLESS(start) ("model = MX5\nprocess = com.example\ntime = 2400\nthread-time = 150\n" \
			 "time-start = " start "\n\nstack = " start "\n\na.B.c(B.java:1)\n")

/* 2024-01-01T00:10:00Z and 2023-06-01T00:00:00Z in Unix ms. */
#define NEW_YEAR_2024_MS 1704067800000LL
#define JUNE_2023_MS 1685577600000LL

/* Year-less times are placed at or before the file's time (plus the widest
 * zone, 14 h): a December log read just after New Year is last December's,
 * not next; 02-29 goes back to a leap year; the log's own write time wins
 * over the file's. */
static void test_yearless_times(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	g.ctx.file_time_ms = NEW_YEAR_2024_MS;
	const hg_report *r = read_good(&g, YEARLESS("12-31 23:59:58.000"), HG_FORMAT_BLOCKCANARY);
	assert_string_equal(r->time, "2023-12-31T23:59:58.000Z");
	assert_string_equal(r->time_written, "12-31 23:59:58.000");
	assert_figure(r, "block", "time-year-from", "the file's time");
	/* Early on the file's own day, and up to 14 h after it: that year. */
	r = read_good(&g, YEARLESS("01-01 13:00:00.000"), HG_FORMAT_BLOCKCANARY);
	assert_string_equal(r->time, "2024-01-01T13:00:00.000Z");
	/* More than 14 h after the file's time: the year before. */
	r = read_good(&g, YEARLESS("01-02 00:00:00.000"), HG_FORMAT_BLOCKCANARY);
	assert_string_equal(r->time, "2023-01-02T00:00:00.000Z");
	g.ctx.file_time_ms = JUNE_2023_MS;
	r = read_good(&g, YEARLESS("02-29 08:00:00.500"), HG_FORMAT_BLOCKCANARY);
	assert_string_equal(r->time, "2020-02-29T08:00:00.500Z");
	/* The write time's year, whatever the file's. */
	r = read_good(&g, "**********************\n2018-01-01 00:00:03(write log time)\n\n"
		      "time = 5000\ntime-start = 12-31 23:59:58.000\n", HG_FORMAT_BLOCKCANARY);
	assert_string_equal(r->time, "2017-12-31T23:59:58.000Z");
	assert_figure(r, "block", "time-year-from", "the log's write time");
	/* Without its milliseconds, alike (after 2023-06-01: 2022's) */
	r = read_good(&g, YEARLESS("06-15 12:00:00"), HG_FORMAT_BLOCKCANARY);
	assert_string_equal(r->time, "2022-06-15T12:00:00.000Z");
	/* With its year, as written. */
	r = read_good(&g, YEARLESS("2021-06-15 12:00:00.250"), HG_FORMAT_BLOCKCANARY);
	assert_string_equal(r->time, "2021-06-15T12:00:00.250Z");
	assert_null(figure(r, "block", "time-year-from", 0));
	/* A time-start that is no time: unknown, and said so. */
	assert_int_equal(read_as(&g, "time = 5000\ntime-start = 13-45 10:00:00.000\n", 44,
				 HG_FORMAT_BLOCKCANARY), 0);
	r = g.rep;
	assert_null(r->error);
	/* a warning diagnostic too, for ingest, which shows no report warnings */
	assert_int_equal(g.diags, 1);
	assert_string_equal(g.diag_msg, "time \"13-45 10:00:00.000\" cannot be read (month out of "
			    "range (01 to 12)): the report's time is unknown");
	assert_null(r->time);
	assert_string_equal(r->time_written, "13-45 10:00:00.000");
	assert_warning(r, "time \"13-45 10:00:00.000\" cannot be read (month out of range (01 to 12))");
	got_release(&g);
}

/* Read from a file, the year comes from the file's modification time. */
static void test_yearless_file_time(void **state)
{
	(void)state;
	char path[] = "/tmp/hg-bc-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	const char *text = YEARLESS("12-31 23:59:58.000");
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	struct timespec times[2] = {{NEW_YEAR_2024_MS / 1000, 0}, {NEW_YEAR_2024_MS / 1000, 0}};
	assert_int_equal(futimens(fd, times), 0);
	close(fd);
	struct got g;
	got_init(&g);
	assert_int_equal(hg_reports_read_path(&g.ctx, path, NULL, HG_FORMAT_BLOCKCANARY, keep_first,
					      &g), 0);
	assert_non_null(g.rep);
	assert_string_equal(g.rep->time, "2023-12-31T23:59:58.000Z");
	got_release(&g);
	unlink(path);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_issue113_mi3w),
		cmocka_unit_test(test_issue114_garbage_cpu),
		cmocka_unit_test(test_crlf_log_three_samples),
		cmocka_unit_test(test_untimed_and_epoch_samples),
		cmocka_unit_test(test_old_key_names),
		cmocka_unit_test(test_yearless_times),
		cmocka_unit_test(test_yearless_file_time),
		cmocka_unit_test(test_second_log_and_missing_parts),
		cmocka_unit_test(test_lines_that_are_not_frames),
		cmocka_unit_test(test_bad_durations),
		cmocka_unit_test(test_frame_cap),
		cmocka_unit_test(test_every_37th_truncation),
		cmocka_unit_test(test_2000_mutations),
		cmocka_unit_test(test_10000_frame_samples),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
