/* Unit tests for WatchDog logs (report_watchdog.c), the article's Log.d of
 * the main thread's frames every 4 s while it is blocked: the seeds of
 * testdata/seeds/watchdog/ (logcat -v threadtime with other lines around
 * and two blocks, -v brief cut mid-line, frames pasted bare), each dump a
 * sample with its logcat time, the blamed main thread their heaviest
 * path; detection that leaves Java dumps, ANR traces, BlockCanary logs
 * and bare stacks to their readers (every text fixture of testdata/); bad
 * input (no frame, unreadable times, another tag, another process, the
 * frame caps); 10,000 dumps; every 7th truncation and 1000 mutations of the
 * seeds.  argv[1] is the testdata/ folder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>

#include <cmocka.h>

#include "hangar/input.h"
#include "hangar/report.h"
#include "hangar/samples.h"

static const char *testdata = "testdata";

#define FIXTURE_SOURCE "mem.log"
#define FIXTURE_FORMAT HG_FORMAT_WATCHDOG
#define FIXTURE_DIR "seeds/watchdog"
#define FIXTURE_DAMAGED "damaged.log"
#include "text_reader_fixture.h"

/* 2024-12-03T00:00:00Z: the logs' year-less times fall in 2024. */
#define FILE_TIME_MS 1733184000000LL

/* ---- reading every report of an input ---- */

struct all {
	hg_report *v[8];
	size_t n, failed;
};

static int keep_all(void *user, hg_report *rep)
{
	struct all *a = user;
	a->failed += rep->error != NULL;
	if (a->n < 8)
		a->v[a->n++] = rep;
	else
		hg_report_destroy(rep);
	return 0;
}

static void all_release(struct all *a)
{
	for (size_t i = 0; i < a->n; i++)
		hg_report_destroy(a->v[i]);
	a->n = a->failed = 0;
}

static void read_all(struct all *a, const char *text, size_t len, enum hg_input_format format)
{
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.file_time_ms = FILE_TIME_MS;
	all_release(a);
	int rc = hg_reports_read_as(&ctx, "mem.log", text, len, format, keep_all, a);
	assert_true(rc >= 0);
}

/* What any report read from damaged input must satisfy. */
static void check_sane(const hg_report *r)
{
	if (r->error) {
		assert_true(strlen(r->error) > 0);
		return;
	}
	if (r->format != HG_FORMAT_WATCHDOG)
		return; /* detected as another format: its own tests */
	assert_int_equal(r->kind, HG_KIND_LAG);
	assert_int_equal(r->threshold, 4000);
	assert_true(r->cost >= 4000);
	assert_true(r->threads.n > 0 ? r->threads.blamed == 0 : r->threads.blamed == -1);
	for (size_t i = 0; i < r->n_samples; i++) {
		assert_true(r->samples[i].thread >= 1 && (size_t)r->samples[i].thread < r->threads.n);
		assert_true(r->samples[i].at >= -1);
	}
	for (size_t i = 0; i < r->threads.n; i++)
		for (size_t k = 0; k < r->threads.items[i].n_frames; k++)
			assert_non_null(r->threads.items[i].frames[k].text);
}

/* The report's metadata field key as text, or NULL. */
static const char *meta_text(const hg_report *r, const char *key)
{
	for (size_t i = 0; i < r->meta_len; i++)
		if (!strcmp(r->meta[i].key, key))
			return r->meta[i].text;
	return NULL;
}

static const char *const fixtures[] = {
	"feed-threadtime-two-blocks.log",
	"demo-brief-cut.log",
	"demo-pasted-frames.txt",
};

/* ---- the seeds ---- */

static void test_threadtime_two_blocks(void **state)
{
	(void)state;
	size_t len;
	char *text = load(fixtures[0], &len);
	struct all a = {0};
	read_all(&a, text, len, HG_FORMAT_AUTO);
	assert_int_equal(a.n, 2);
	assert_int_equal(a.failed, 0);
	const hg_report *r = a.v[0];
	assert_int_equal(r->format, HG_FORMAT_WATCHDOG);
	assert_int_equal(r->kind, HG_KIND_LAG);
	assert_string_equal(r->platform, "android");
	assert_int_equal(r->threshold, 4000);
	assert_string_equal(r->time_written, "12-02 10:00:05.912");
	assert_string_equal(r->time, "2024-12-02T10:00:05.912Z");
	/* three dumps 4005 and 4004 ms apart: blocked 4 s before the first */
	assert_int_equal(r->n_samples, 3);
	static const char *const times[] = {"12-02 10:00:05.912", "12-02 10:00:09.917",
					    "12-02 10:00:13.921"};
	for (size_t i = 0; i < 3; i++) {
		assert_string_equal(r->samples[i].time, times[i]);
		assert_int_equal(r->samples[i].weight, 1);
	}
	assert_int_equal(r->samples[1].at - r->samples[0].at, 4005);
	assert_int_equal(r->samples[2].at - r->samples[1].at, 4004);
	assert_int_equal(r->sample_interval, 4005);
	assert_int_equal(r->cost, 4000 + 8009);
	/* dumps 1 and 3 are the same stack: one thread */
	assert_int_equal(r->threads.n, 3);
	assert_int_equal(r->samples[0].thread, r->samples[2].thread);
	assert_string_equal(r->threads.items[r->samples[1].thread].frames[0].cls,
			    "com.example.feed.model.Post");
	assert_figure(r, "watchdog", "dumps", "3");
	assert_figure(r, "watchdog", "tag", "budaye");
	/* the logcat pid where ANR traces keep theirs, not among the figures */
	assert_string_equal(meta_text(r, "pid"), "12345");
	assert_null(figure(r, "watchdog", "pid", 0));
	assert_null(r->process); /* logcat names no process */
	assert_figure(r, "watchdog", "writer-tid", "12389");
	assert_figure(r, "header", "blocked", "at least 12009 ms: 3 dumps, one per missed 4000 ms "
		      "check");
	assert_warning(r, "skipped 5 lines that are no frame of the WatchDog's dumps (the first at "
		       "line 1: \"--------- beginning of main\")");
	/* The blamed main thread: the heaviest path stops at indexOf, where two
	 * of the three dumps end (the third goes on into Post.equals). */
	const hg_thread *t = &r->threads.items[0];
	assert_string_equal(t->name, "main");
	assert_int_equal(t->flags, HG_THREAD_MAIN | HG_THREAD_BLAMED);
	assert_int_equal(t->n_frames, 18);
	assert_frame(&t->frames[0], "java.util.ArrayList", "indexOf", "ArrayList.java", 321, 3);
	assert_frame(&t->frames[17], "com.android.internal.os.ZygoteInit", "main", "ZygoteInit.java",
		     947, 3);
	hg_arena *ar = hg_arena_create();
	hg_sample_tree tr;
	assert_int_equal(hg_report_sample_tree(r, ar, &tr), 0);
	assert_int_equal(tr.n, 19);
	assert_int_equal(tr.nodes[tr.heaviest].self, 2);
	assert_int_equal(tr.nodes[18].total, 1);
	assert_string_equal(tr.nodes[18].frame->method, "equals");
	hg_arena_destroy(ar);

	/* 35 s later: another block, another report */
	r = a.v[1];
	assert_int_equal(r->line, 61);
	assert_int_equal(r->number, 2);
	assert_int_equal(r->n_samples, 1);
	assert_string_equal(r->time_written, "12-02 10:00:49.208");
	assert_int_equal(r->cost, 4000);
	assert_string_equal(r->threads.items[0].frames[0].method, "nativeDecodeStream");
	all_release(&a);
	free(text);
}

static void test_brief_cut(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	size_t len;
	char *text;
	const hg_report *r = read_fixture(&g, fixtures[1], &text, &len);
	assert_int_equal(r->n_samples, 3);
	assert_null(r->time);
	assert_null(r->samples[0].time);
	assert_int_equal(r->samples[0].at, -1);
	assert_int_equal(r->cost, 12000); /* three dumps, 4 s each at least */
	assert_int_equal(r->sample_interval, 4000);
	assert_string_equal(meta_text(r, "pid"), "4321");
	assert_null(figure(r, "watchdog", "writer-tid", 0)); /* brief says no tid */
	assert_warning(r, "line 39: a frame cut short (\"android.view.View$PerformClick.run(Vi\"): "
		       "the log lost the rest of that dump");
	/* the two whole dumps are one stack; the cut one keeps its six frames */
	assert_int_equal(r->threads.n, 3);
	assert_int_equal(r->threads.items[2].n_frames, 6);
	const hg_thread *t = &r->threads.items[0];
	assert_int_equal(t->n_frames, 15);
	assert_frame(&t->frames[0], "java.lang.Thread", "sleep", "Native Method", -1, 2);
	got_release(&g);
	free(text);
}

static void test_pasted_frames(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	size_t len;
	char *text;
	const hg_report *r = read_fixture(&g, fixtures[2], &text, &len);
	/* told apart by the outermost frame: two dumps of one stack */
	assert_int_equal(r->n_samples, 2);
	assert_int_equal(r->threads.n, 2);
	assert_int_equal(r->threads.items[0].frames[0].repeat, 2);
	assert_int_equal(r->warnings.len, 0);
	assert_null(meta_text(r, "pid"));
	got_release(&g);
	free(text);
}

/* ---- detection ---- */

/* Every text fixture of these folders keeps its own format. */
static void test_does_not_steal(void **state)
{
	(void)state;
	static const char *const dirs[] = {"java-stacks", "anr", "blockcanary", "bare-stack",
					   "seeds/blockcanary", "bad", "matrix-0.5"};
	size_t files = 0;
	for (size_t d = 0; d < sizeof dirs / sizeof *dirs; d++) {
		char dir[512];
		snprintf(dir, sizeof dir, "%s/%s", testdata, dirs[d]);
		DIR *dp = opendir(dir);
		if (!dp)
			continue;
		for (struct dirent *e; (e = readdir(dp));) {
			char path[1024];
			if (e->d_name[0] == '.' || strstr(e->d_name, ".md"))
				continue;
			snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
			hg_ctx ctx;
			hg_ctx_init(&ctx);
			char *data = NULL;
			size_t len = 0;
			if (hg_input_read(&ctx, path, &data, &len) != 0)
				continue;
			struct all a = {0};
			read_all(&a, data, len, HG_FORMAT_AUTO);
			for (size_t i = 0; i < a.n; i++)
				if (a.v[i]->format == HG_FORMAT_WATCHDOG)
					fail_msg("%s was read as a WatchDog log", path);
			all_release(&a);
			free(data);
			files++;
		}
		closedir(dp);
	}
	assert_true(files > 20);
	/* more frames with "at" than without: a Java dump */
	const char *mixed = "a.b.C.m(C.java:1)\na.b.C.n(C.java:2)\na.b.C.o(C.java:3)\n"
			    "\"main\" tid=1\n\tat a.B.x(B.java:1)\n\tat a.B.y(B.java:2)\n\tat a.B.z(B.java:3)\n"
			    "\tat a.B.w(B.java:4)\n";
	struct all a = {0};
	read_all(&a, mixed, strlen(mixed), HG_FORMAT_AUTO);
	assert_int_equal(a.n, 1);
	assert_int_not_equal(a.v[0]->format, HG_FORMAT_WATCHDOG);
	/* two frames are no run */
	read_all(&a, "a.b.C.m(C.java:1)\na.b.C.n(C.java:2)\n", 36, HG_FORMAT_AUTO);
	assert_int_equal(a.n, 1);
	assert_int_not_equal(a.v[0]->format, HG_FORMAT_WATCHDOG);
	all_release(&a);
}

/* ---- bad input ---- */

#define TT(time, pid, tag, frame) time "  " pid "  " pid "7 D " tag ": " frame "\n"

static void test_bad_input(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	/* forced on text without a frame */
	assert_int_equal(read_as(&g, "\n\nhello\nworld\n", 14, HG_FORMAT_WATCHDOG), 1);
	assert_string_equal(g.rep->error, "not a WatchDog log: no line is a Java frame like "
			    "\"a.b.C.m(C.java:12)\"; the first line is \"hello\"");
	assert_int_equal(g.diag_line, 3);

	/* a time that is none, garbage and another tag's frames between dumps */
	const char *log = TT("13-45 10:00:00.000", "100", "budaye", "a.B.c(B.java:1)")
		TT("13-45 10:00:00.000", "100", "budaye", "a.B.d(B.java:2)")
		TT("13-45 10:00:00.000", "100", "budaye", "a.B.e(B.java:3)")
		"<<< garbage >>>\n"
		TT("13-45 10:00:04.000", "100", "other", "x.Y.z(Y.java:1)")
		TT("13-45 10:00:04.000", "100", "budaye", "a.B.c(B.java:1)")
		TT("13-45 10:00:04.000", "100", "budaye", "a.B.d(B.java:2)");
	const hg_report *r = read_good(&g, log, HG_FORMAT_AUTO);
	assert_int_equal(r->format, HG_FORMAT_WATCHDOG);
	assert_int_equal(r->n_samples, 2);
	assert_null(r->time);
	assert_string_equal(r->time_written, "13-45 10:00:00.000");
	assert_warning(r, "2 dump times cannot be read (the first: \"13-45 10:00:00.000\")");
	assert_warning(r, "skipped 2 lines that are no frame of the WatchDog's dumps (the first at "
		       "line 4: \"<<< garbage >>>\")");
	assert_int_equal(r->cost, 8000);

	/* another process's dumps: another report */
	log = TT("01-02 10:00:00.000", "100", "budaye", "a.B.c(B.java:1)")
		TT("01-02 10:00:00.000", "100", "budaye", "a.B.d(B.java:2)")
		TT("01-02 10:00:00.000", "100", "budaye", "a.B.e(B.java:3)")
		TT("01-02 10:00:04.000", "200", "budaye", "a.B.c(B.java:1)");
	struct all a = {0};
	read_all(&a, log, strlen(log), HG_FORMAT_AUTO);
	assert_int_equal(a.n, 2);
	assert_int_equal(a.v[1]->line, 4);
	all_release(&a);

	/* a dump over the frame cap: an error at its line */
	g.ctx.limits.max_stack_lines = 2;
	read_bad(&g, "a.B.c(B.java:1)\na.B.d(B.java:2)\na.B.e(B.java:3)\n",
		 "a dump of more than 2 frames (see --max-stack-lines)", 3);
	/* distinct dumps past the cap in all: counted, not kept */
	g.ctx.limits.max_stack_lines = 4;
	r = read_good(&g, "a.B.c(B.java:1)\na.B.d(B.java:2)\n\na.B.x(B.java:1)\na.B.d(B.java:2)\n\n"
		      "a.B.y(B.java:1)\na.B.d(B.java:2)\n\na.B.c(B.java:1)\na.B.d(B.java:2)\n",
		      HG_FORMAT_WATCHDOG);
	assert_figure(r, "watchdog", "dumps", "4");
	assert_int_equal(r->n_samples, 3);
	assert_warning(r, "1 of the 4 dumps are counted but not kept: their distinct stacks pass 4 "
		       "frames in all (see --max-stack-lines)");
	g.ctx.limits.max_stack_lines = HG_DEFAULT_MAX_STACK_LINES;
	got_release(&g);
}

/* 10,000 dumps 4 s apart of three stacks: every one counted, three threads
 * kept, and no timing asserted (the work is linear). */
static void test_10000_dumps(void **state)
{
	(void)state;
	enum { DUMPS = 10000 };
	static const char *const tops[] = {"a.B.spin(B.java:7)", "a.B.spin(B.java:9)", "a.B.wait(B.java:3)"};
	size_t cap = (size_t)DUMPS * 3 * 96 + 64, n = 0;
	char *text = malloc(cap);
	assert_non_null(text);
	for (int i = 0; i < DUMPS; i++) {
		int s = 4 * i; /* seconds since 00:00:00 */
		char t[32];
		snprintf(t, sizeof t, "01-02 %02d:%02d:%02d.000", s / 3600, s / 60 % 60, s % 60);
		n += (size_t)snprintf(text + n, cap - n, "%s  100  107 D budaye  : %s\n", t, tops[i % 3]);
		n += (size_t)snprintf(text + n, cap - n, "%s  100  107 D budaye  : a.B.run(B.java:1)\n", t);
		n += (size_t)snprintf(text + n, cap - n, "%s  100  107 D budaye  : "
				      "com.android.internal.os.ZygoteInit.main(ZygoteInit.java:947)\n", t);
	}
	struct all a = {0};
	read_all(&a, text, n, HG_FORMAT_AUTO);
	assert_int_equal(a.n, 1);
	const hg_report *r = a.v[0];
	assert_int_equal(r->format, HG_FORMAT_WATCHDOG);
	assert_int_equal(r->n_samples, DUMPS);
	assert_figure(r, "watchdog", "dumps", "10000");
	assert_int_equal(r->threads.n, 4);
	assert_int_equal(r->sample_interval, 4000);
	assert_int_equal(r->cost, 4000 + 4000LL * (DUMPS - 1));
	assert_int_equal(r->threads.items[0].frames[0].repeat, 3334); /* spin at line 7 */
	all_release(&a);
	free(text);
}

/* ---- damaged seeds ---- */

static void read_damaged_all(const char *text, size_t len, enum hg_input_format format)
{
	struct all a = {0};
	read_all(&a, text, len, format);
	assert_true(a.n >= 1);
	for (size_t i = 0; i < a.n; i++)
		check_sane(a.v[i]);
	all_release(&a);
}

static void test_truncations_and_mutations(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof fixtures / sizeof *fixtures; i++) {
		size_t len;
		char *text = load(fixtures[i], &len);
		for (size_t cut = 0; cut <= len; cut += 7) {
			char *copy = malloc(cut + 1);
			assert_non_null(copy);
			memcpy(copy, text, cut);
			copy[cut] = '\0';
			read_damaged_all(copy, cut, HG_FORMAT_WATCHDOG);
			read_damaged_all(copy, cut, HG_FORMAT_AUTO);
			free(copy);
		}
		free(text);
	}
	for (int k = 0; k < 1000; k++) {
		size_t len, m_len;
		char *text = load(fixtures[rnd() % 3], &len);
		char *m = mutate(text, len, &m_len);
		read_damaged_all(m, m_len, k % 2 ? HG_FORMAT_WATCHDOG : HG_FORMAT_AUTO);
		free(m);
		free(text);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threadtime_two_blocks),
		cmocka_unit_test(test_brief_cut),
		cmocka_unit_test(test_pasted_frames),
		cmocka_unit_test(test_does_not_steal),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_10000_dumps),
		cmocka_unit_test(test_truncations_and_mutations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
