/* Unit tests for KSCrash reports with an APM hang module's "htapm" section
 * (report_kscrash_htapm.c), read as seed 003 ("APM_卡顿检测模块") means
 * them: the article's own report (testdata/seeds/matrix-ios/, see its
 * README), and samples written from its description of pre-sampling's
 * representative stack.  Expected values are worked out from the JSON.
 * Bad input is the article's report with one field broken: a warning
 * naming the field, and the rest read as KSCrash reads it.  argv[1] is the
 * testdata/ directory. */
#include <inttypes.h>

#include "report_fixture.h"

#include "hangar/text.h"

static const char *testdata = "testdata";

static char *load(const char *name)
{
	char dir[1024];
	size_t len;
	snprintf(dir, sizeof dir, "%s/seeds/matrix-ios", testdata);
	return load_file(dir, name, &len);
}

/* The one report of text, read without error; warnings allowed. */
static const hg_report *read_one(struct fixture *f, const char *text)
{
	assert_int_equal(read_text(f, text), 0);
	assert_int_equal(f->delivered, 1);
	const hg_report *r = f->rep[0];
	if (r->error)
		fail_msg("unexpected error: %s", r->error);
	assert_int_equal(r->format, HG_FORMAT_KSCRASH);
	return r;
}

static const hg_report *read_sample(struct fixture *f, const char *name)
{
	char *text = load(name);
	const hg_report *r = read_one(f, text);
	free(text);
	return r;
}

static const char *stat_value(const hg_report *r, const char *name)
{
	for (size_t i = 0; i < r->n_stats; i++)
		if (!strcmp(r->stats[i].group, "header") && !strcmp(r->stats[i].name, name))
			return r->stats[i].value;
	return NULL;
}

static void assert_warning(const hg_report *r, const char *want)
{
	for (size_t i = 0; i < r->warnings.len; i++)
		if (strstr(r->warnings.items[i], want))
			return;
	for (size_t i = 0; i < r->warnings.len; i++)
		print_message("  warning: %s\n", r->warnings.items[i]);
	fail_msg("no warning holds \"%s\"", want);
}

static long main_thread(const hg_report *r)
{
	long main = -1;
	for (size_t i = 0; i < r->threads.n; i++)
		if (r->threads.items[i].flags & HG_THREAD_MAIN) {
			assert_int_equal(main, -1); /* one main thread at most */
			main = (long)i;
		}
	return main;
}

static void assert_source(const hg_frame *f, const char *method, const char *file, long line)
{
	assert_string_equal(f->method, method);
	if (file)
		assert_string_equal(f->file, file);
	else
		assert_null(f->file);
	assert_int_equal(f->line, line);
	assert_false(f->symbolicated); /* the report's word, not symbol files' */
}

/* ---- the article's report ---- */

static void test_article_report(void **state)
{
	const hg_report *r = read_sample(*state, "article-report.json");
	assert_int_equal(r->kind, HG_KIND_IOS_HANG); /* was "crash" */
	assert_string_equal(r->platform, "ios");
	assert_string_equal(r->process, "HTAPMKitDemo");
	assert_int_equal(r->cost, 2106);      /* 2105855 us, rounded */
	assert_int_equal(r->threshold, 2000); /* 2000000 us */
	assert_string_equal(r->reason, "the main thread's RunLoop had been busy for 2106 ms when the "
			    "hang was detected (threshold 2000 ms)");
	assert_int_equal(r->warnings.len, 0);
	/* items[0]: is_main_thread, report_array_index 0 -> crash.threads[0] */
	assert_int_equal(r->threads.n, 1);
	assert_int_equal(main_thread(r), 0);
	assert_int_equal(r->threads.blamed, 0);
	const hg_thread *t = &r->threads.items[0];
	assert_string_equal(t->name, "main"); /* the report names none */
	assert_int_equal(t->sys_tid, 3120216); /* thread_identifier */
	assert_int_equal(t->n_frames, 6);      /* frame_count 6 */
	assert_source(&t->frames[0], "__semwait_signal", NULL, -1);
	assert_source(&t->frames[2], "+[NSThread sleepForTimeInterval:]", NULL, -1);
	assert_source(&t->frames[3], "static HTHangValidationModel.blockMainThreadForFourSeconds()",
		      "HTHangValidation.swift", 379);
	assert_source(&t->frames[4], "closure #1 in HTHangValidationModel.triggerForegroundHang()",
		      "HTHangValidation.swift", 240);
	assert_int_equal(t->frames[3].pc, 4324661340u);
	assert_null(t->frames[3].image); /* no binary_images */
	assert_string_equal(stat_value(r, "detector"), "matrix");
	assert_string_equal(stat_value(r, "threads"), "12 enumerated, 1 in the report");
	/* main_thread: state "not_requested", reason "disabled" */
	assert_string_equal(stat_value(r, "main stack"), "the scene's only: no representative stack "
			    "was taken (pre-sampling off)");
}

/* The cost is the block duration rounded to the nearest ms, halves up. */
static void test_cost_rounding(void **state)
{
	static const struct {
		const char *us;
		int64_t ms;
	} cases[] = {{"2105499", 2105}, {"2105500", 2106}, {"0", 0}, {"499", 0}, {"86400000000", 86400000}};
	char *text = load("article-report.json");
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char to[64];
		snprintf(to, sizeof to, "\"block_duration_us\": %s", cases[i].us);
		char *t = replace_once(text, "\"block_duration_us\": 2105855", to);
		assert_int_equal(read_one(*state, t)->cost, cases[i].ms);
		free(t);
	}
	free(text);
}

/* ---- pre-sampling: the representative stack ---- */

static void assert_representative(const hg_thread *t)
{
	assert_string_equal(t->name, "main (representative)");
	assert_int_equal(t->tid, -1); /* no thread of its own */
	assert_int_equal(t->n_frames, 16);
	assert_source(&t->frames[0], "HTHangValidationModel.isPrime(_:)", "HTHangValidation.swift", 423);
	assert_source(&t->frames[14], "main", "AppDelegate.swift", 12);
}

/* Written as KSCrash writes a backtrace, under collection.main_thread. */
static void test_presampled_backtrace(void **state)
{
	const hg_report *r = read_sample(*state, "presampled-backtrace.json");
	assert_int_equal(r->kind, HG_KIND_IOS_HANG);
	assert_int_equal(r->cost, 2050);
	assert_int_equal(r->warnings.len, 0);
	assert_int_equal(r->threads.n, 4); /* main, worker, monitor, then the representative */
	assert_int_equal(r->threads.blamed, 3);
	assert_representative(&r->threads.items[3]);
	assert_int_equal(main_thread(r), 0);
	const hg_thread *m = &r->threads.items[0];
	assert_string_equal(m->name, "main");
	assert_int_equal(m->sys_tid, 3341612);
	assert_source(&m->frames[2], "HTHangValidationModel.computePrimes(upTo:)",
		      "HTHangValidation.swift", 412);
	/* the monitor wrote the report (current_thread): never blamed */
	assert_int_equal(r->threads.items[2].flags, HG_THREAD_CRASHED);
	assert_string_equal(stat_value(r, "main stack"),
			    "the representative from pre-sampling (blamed), and the scene's");
	assert_string_equal(stat_value(r, "threads"), "3 enumerated, 3 in the report");
}

/* Written into crash.threads, main_thread.report_array_index pointing at it. */
static void test_presampled_index(void **state)
{
	const hg_report *r = read_sample(*state, "presampled-index.json");
	assert_int_equal(r->warnings.len, 0);
	assert_int_equal(r->threads.n, 4);
	assert_int_equal(r->threads.blamed, 0);
	assert_representative(&r->threads.items[0]);
	assert_int_equal(main_thread(r), 1); /* items: report_array_index 1 */
	assert_int_equal(r->threads.items[1].tid, 0);
	assert_string_equal(stat_value(r, "threads"), "3 enumerated, 3 in the report");
}

/* main_thread.frames: frame objects, or bare addresses (Matrix keeps its
 * samples as addresses), written through int64 or not. */
static void test_presampled_frames(void **state)
{
	char *text = load("article-report.json");
	char *t = replace_once(text, "\"reason\": \"disabled\"",
			       "\"reason\": \"presampled\", \"frames\": [4324661340, -2, "
			       "{\"instruction_addr\": 4324651328, \"symbol_name\": \"f()\"}]");
	const hg_report *r = read_one(*state, t);
	assert_int_equal(r->threads.n, 2);
	assert_int_equal(r->threads.blamed, 1);
	const hg_thread *rep = &r->threads.items[1];
	assert_int_equal(rep->n_frames, 3);
	assert_int_equal(rep->frames[0].pc, 4324661340u);
	assert_null(rep->frames[0].symbol);
	assert_int_equal(rep->frames[1].pc, UINT64_MAX - 1);
	assert_string_equal(rep->frames[2].symbol, "f()");
	/* state "not_requested" yet a stack: said, and read */
	assert_warning(r, "htapm.collection.main_thread.state is \"not_requested\", yet it gives a "
		       "stack: read as the representative stack");
	free(t);
	free(text);
}

/* The main thread is the one htapm names, even when KSCrash would guess
 * another (index 0 here is a worker). */
static void test_main_from_htapm(void **state)
{
	static const char text[] =
		"{\"report\":{\"process_name\":\"HTAPMKitDemo\"},\"crash\":{\"threads\":["
		"{\"index\":0,\"backtrace\":{\"contents\":[{\"instruction_addr\":1}]}},"
		"{\"index\":1,\"backtrace\":{\"contents\":[{\"instruction_addr\":2}]}}]},"
		"\"htapm\":{\"module\":\"hang\",\"block_duration_us\":3000000,\"collection\":"
		"{\"scene_threads\":{\"items\":[{\"is_main_thread\":true,\"report_array_index\":1}]}}}}";
	const hg_report *r = read_one(*state, text);
	assert_int_equal(main_thread(r), 1);
	assert_int_equal(r->threads.blamed, 1);
	assert_string_equal(r->threads.items[1].name, "main");
	assert_int_equal(r->threshold, 0);
	assert_string_equal(r->reason, "the main thread's RunLoop had been busy for 3000 ms when the "
			    "hang was detected");
	assert_string_equal(stat_value(r, "threads"), "2 in the report");
	assert_null(stat_value(r, "main stack")); /* no main_thread section */
	/* Without the section, KSCrash's guess: index 0. */
	static const char plain[] =
		"{\"report\":{\"process_name\":\"HTAPMKitDemo\"},\"crash\":{\"threads\":["
		"{\"index\":0,\"backtrace\":{\"contents\":[{\"instruction_addr\":1}]}},"
		"{\"index\":1,\"backtrace\":{\"contents\":[{\"instruction_addr\":2}]}}]}}";
	r = read_one(*state, plain);
	assert_int_equal(main_thread(r), 0);
	assert_int_equal(r->kind, HG_KIND_CRASH);
}

/* A report's source_file and source_line are frame fields of KSCrash's:
 * of the wrong type they fail the report as every such field does. */
static void test_source_fields_typed(void **state)
{
	char *text = load("article-report.json");
	char *t = replace_once(text, "\"source_line\": 379", "\"source_line\": \"379\"");
	one_failed(*state, t, "field \"crash.threads[0].backtrace.contents[3].source_line\": "
		   "expected an integer >= 0, got \"379\"");
	free(t);
	t = replace_once(text, "\"source_file\": \"HTHangValidation.swift\",\n              "
			 "\"source_line\": 240", "\"source_file\": 7");
	one_failed(*state, t, "contents[4].source_file\": expected a string, got 7");
	free(t);
	free(text);
}

/* ---- bad input: a warning naming the field, the rest read ---- */

struct soft_case {
	const char *from, *to, *warning;
	int kind;     /* HG_KIND_IOS_HANG or HG_KIND_CRASH */
	long main;    /* the main thread's index, -1 */
	int64_t cost;
};

#define HANG HG_KIND_IOS_HANG
#define ITEM "htapm.collection.scene_threads.items[0]"

static const struct soft_case soft_cases[] = {
	{"\"htapm\": {", "\"htapm\": \"hang\", \"x\": {",
	 "field \"htapm\": expected an object, got \"hang\"; not read as a hang report",
	 HG_KIND_CRASH, -1, 0},
	{"\"module\": \"hang\",", "", "htapm.module: absent; not read as a hang report",
	 HG_KIND_CRASH, -1, 0},
	{"\"module\": \"hang\"", "\"module\": 5", "field \"htapm.module\": expected a string, got 5; "
	 "ignored", HG_KIND_CRASH, -1, 0},
	{"\"block_duration_us\": 2105855", "\"block_duration_us\": \"2105855\"",
	 "field \"htapm.block_duration_us\": expected an integer (microseconds), got \"2105855\"; "
	 "no cost", HANG, 0, 0},
	{"\"block_duration_us\": 2105855", "\"block_duration_us\": 2.5",
	 "field \"htapm.block_duration_us\": expected an integer (microseconds), got 2.5; no cost",
	 HANG, 0, 0},
	{"\"block_duration_us\": 2105855", "\"block_duration_us\": -2105855",
	 "htapm.block_duration_us -2105855 is negative; no cost", HANG, 0, 0},
	{"\"block_duration_us\": 2105855", "\"block_duration_us\": 86400000001",
	 "htapm.block_duration_us 86400000001 is more than a day; no cost", HANG, 0, 0},
	{"\"block_duration_us\": 2105855", "\"block_duration_us\": 99999999999999999999999",
	 "expected an integer (microseconds), got 99999999999999999999999; no cost", HANG, 0, 0},
	{"\"block_duration_us\": 2105855,", "", "htapm.block_duration_us: absent; no cost", HANG, 0, 0},
	{"\"runloop_threshold_us\": 2000000", "\"runloop_threshold_us\": -1",
	 "htapm.runloop_threshold_us -1 is negative; no threshold", HANG, 0, 2106},
	{"\"detector\": \"matrix\"", "\"detector\": [\"matrix\"]",
	 "field \"htapm.detector\": expected a string, got [\"matrix\"]; ignored", HANG, 0, 2106},
	{"\"collection\": {", "\"collection\": [], \"x\": {",
	 "field \"htapm.collection\": expected an object, got []; ignored", HANG, -1, 2106},
	{"\"scene_threads\": {", "\"scene_threads\": 3, \"x\": {",
	 "field \"htapm.collection.scene_threads\": expected an object, got 3; ignored", HANG, -1, 2106},
	{"\"items\": [", "\"items\": {}, \"x\": [",
	 "field \"htapm.collection.scene_threads.items\": expected an array, got {}; ignored", HANG,
	 -1, 2106},
	{"\"items\": [", "\"items\": [7,", "field \"" ITEM "\": expected an object, got 7; ignored",
	 HANG, 0, 2106},
	{"\"report_array_index\": 0", "\"report_array_index\": 1",
	 ITEM ".report_array_index 1 is out of crash.threads (1 thread); ignored", HANG, -1, 2106},
	{"\"report_array_index\": 0", "\"report_array_index\": -1",
	 ITEM ".report_array_index -1 is out of crash.threads (1 thread); ignored", HANG, -1, 2106},
	{"\"report_array_index\": 0", "\"report_array_index\": 18446744073709551616",
	 "field \"" ITEM ".report_array_index\": expected an index of crash.threads, got "
	 "18446744073709551616; ignored", HANG, -1, 2106},
	{"\"report_array_index\": 0", "\"report_array_index\": \"0\"",
	 "field \"" ITEM ".report_array_index\": expected an index of crash.threads, got \"0\"; "
	 "ignored", HANG, -1, 2106},
	{"\"is_main_thread\": true", "\"is_main_thread\": \"yes\"",
	 "field \"" ITEM ".is_main_thread\": expected true or false, got \"yes\"; ignored", HANG, -1,
	 2106},
	{"\"thread_identifier\": 3120216", "\"thread_identifier\": -3",
	 "field \"" ITEM ".thread_identifier\": expected an integer >= 0, got -3; ignored", HANG, 0,
	 2106},
	{"\"frame_count\": 6", "\"frame_count\": 7",
	 ITEM ".frame_count is 7, but crash.threads[0] has 6 frames", HANG, 0, 2106},
	{"\"status\": \"captured\"", "\"status\": false",
	 "field \"" ITEM ".status\": expected a string, got false; ignored", HANG, 0, 2106},
	{"\"enumerated_thread_count\": 12", "\"enumerated_thread_count\": 1.5",
	 "field \"htapm.collection.scene_threads.enumerated_thread_count\": expected an integer >= 0, "
	 "got 1.5; ignored", HANG, 0, 2106},
	/* a second item that says main: the first one stands */
	{"\"report_array_index\": 0\n          }", "\"report_array_index\": 0},{\"is_main_thread\": "
	 "true, \"report_array_index\": 0}", "htapm.collection.scene_threads.items[1]"
	 ".report_array_index 0 is items[0]'s too; ignored", HANG, 0, 2106},
	{"\"main_thread\": {", "\"main_thread\": \"off\", \"x\": {",
	 "field \"htapm.collection.main_thread\": expected an object, got \"off\"; ignored", HANG, 0,
	 2106},
	{"\"state\": \"not_requested\"", "\"state\": 0",
	 "field \"htapm.collection.main_thread.state\": expected a string, got 0; ignored", HANG, 0,
	 2106},
	{"\"reason\": \"disabled\"", "\"reason\": \"disabled\", \"report_array_index\": 0",
	 "htapm.collection.main_thread.report_array_index 0 is the scene's main thread (items[0]), "
	 "not a representative stack; ignored", HANG, 0, 2106},
	{"\"reason\": \"disabled\"", "\"reason\": \"disabled\", \"report_array_index\": 4",
	 "htapm.collection.main_thread.report_array_index 4 is out of crash.threads (1 thread); "
	 "ignored", HANG, 0, 2106},
	{"\"reason\": \"disabled\"", "\"reason\": \"disabled\", \"frames\": []",
	 "htapm.collection.main_thread: its stack has no frames; no representative stack", HANG, 0,
	 2106},
	{"\"reason\": \"disabled\"", "\"reason\": \"disabled\", \"frames\": {}",
	 "field \"htapm.collection.main_thread.frames\": expected an array, got {}; ignored", HANG,
	 0, 2106},
	{"\"reason\": \"disabled\"", "\"reason\": \"disabled\", \"frames\": [1, true]",
	 "field \"htapm.collection.main_thread.frames[1]\": expected a frame object or an address, "
	 "got true; no representative stack", HANG, 0, 2106},
	{"\"reason\": \"disabled\"", "\"reason\": \"disabled\", \"backtrace\": {\"contents\": "
	 "[{\"instruction_addr\": \"0x1\"}]}", "field \"htapm.collection.main_thread.backtrace."
	 "contents[0].instruction_addr\": expected an unsigned 64-bit integer, got \"0x1\"; no "
	 "representative stack", HANG, 0, 2106},
};

static void test_soft_cases(void **state)
{
	struct fixture *f = *state;
	char *text = load("article-report.json");
	for (size_t i = 0; i < sizeof soft_cases / sizeof *soft_cases; i++) {
		const struct soft_case *c = &soft_cases[i];
		char *t = replace_once(text, c->from, c->to);
		const hg_report *r = read_one(f, t);
		print_message("case %zu: %s\n", i, c->warning);
		assert_warning(r, c->warning);
		assert_int_equal(r->kind, c->kind);
		assert_int_equal(main_thread(r), c->main);
		assert_int_equal(r->cost, c->cost);
		/* the rest is read: the one thread and its frames, no second thread */
		assert_int_equal(r->threads.n, 1);
		assert_int_equal(r->threads.items[0].n_frames, 6);
		free(t);
	}
	free(text);
}

/* A section cut short: what it lacks is said, the report is still a hang. */
static void test_htapm_truncated(void **state)
{
	char *text = load("article-report.json");
	char *at = strstr(text, "\"htapm\": {");
	assert_non_null(at);
	strcpy(at, "\"htapm\": {\"module\": \"hang\"}}\n");
	const hg_report *r = read_one(*state, text);
	assert_int_equal(r->kind, HG_KIND_IOS_HANG);
	assert_int_equal(r->cost, 0);
	assert_null(r->reason);
	assert_int_equal(r->warnings.len, 2);
	assert_string_equal(r->warnings.items[0], "htapm.block_duration_us: absent; no cost");
	assert_string_equal(r->warnings.items[1], "htapm.collection: absent; the main thread is "
			    "KSCrash's guess");
	assert_int_equal(r->threads.n, 1);
	assert_int_equal(r->threads.items[0].n_frames, 6);
	free(text);
}

/* Several items claiming main: the first stands, each other is named. */
static void test_two_mains(void **state)
{
	char *text = load("presampled-backtrace.json");
	char *t = replace_once(text, "\"is_main_thread\": false,\n            \"status\": \"captured\",\n"
			       "            \"frame_count\": 12", "\"is_main_thread\": true,\n"
			       "            \"status\": \"captured\",\n            \"frame_count\": 12");
	const hg_report *r = read_one(*state, t);
	assert_int_equal(main_thread(r), 0);
	assert_warning(r, "htapm.collection.scene_threads.items[1].is_main_thread: items[0] "
		       "(crash.threads[0]) already is the main thread; ignored");
	free(t);
	free(text);
}

/* A representative stack over --max-stack-lines is dropped with a warning;
 * the scene's threads are read. */
static void test_representative_over_limit(void **state)
{
	struct fixture *f = *state;
	char *text = load("presampled-backtrace.json");
	f->ctx.limits.max_stack_lines = 3 + 17 + 12 + 7 + 10; /* the scene fits, not 16 more */
	const hg_report *r = read_one(f, text);
	f->ctx.limits.max_stack_lines = HG_DEFAULT_MAX_STACK_LINES;
	assert_int_equal(r->threads.n, 3);
	assert_int_equal(r->threads.blamed, 0);
	assert_warning(r, "field \"htapm.collection.main_thread.backtrace.contents\": more than 49 "
		       "threads and frames in the report, over the limit (see --max-stack-lines); "
		       "no representative stack");
	assert_string_equal(stat_value(r, "main stack"), "the scene's only: the report holds no "
			    "representative stack (state \"captured\", reason \"presampled\")");
	free(text);
}

/* Thousands of bad items say so in a dozen warnings. */
static void test_many_bad_items(void **state)
{
	hg_buf b;
	hg_buf_init(&b);
	hg_buf_puts(&b, "{\"report\":{},\"crash\":{\"threads\":[{\"backtrace\":{\"contents\":[]}}]},"
		    "\"htapm\":{\"module\":\"hang\",\"block_duration_us\":1,\"collection\":{"
		    "\"scene_threads\":{\"items\":[");
	for (int i = 0; i < 5000; i++)
		hg_buf_printf(&b, "%s{\"report_array_index\":%d}", i ? "," : "", i + 1);
	hg_buf_puts(&b, "]}}}}");
	assert_false(b.failed);
	const hg_report *r = read_one(*state, b.data);
	hg_buf_release(&b);
	assert_int_equal(r->warnings.len, 11);
	assert_string_equal(r->warnings.items[9], "htapm.collection.scene_threads.items[9]"
			    ".report_array_index 10 is out of crash.threads (1 thread); ignored");
	assert_string_equal(r->warnings.items[10], "4990 more warnings about "
			    "htapm.collection.scene_threads.items");
}

/* ---- cut and mutated: never a crash, at most one main thread ---- */

static void check(const hg_report *r)
{
	if (r->error)
		return;
	(void)main_thread(r);
	const hg_threads *ts = &r->threads;
	assert_true(ts->blamed >= -1 && ts->blamed < (long)ts->n);
	if (ts->blamed >= 0)
		assert_false(ts->items[ts->blamed].flags & HG_THREAD_CRASHED);
	assert_true(r->cost >= 0 && r->cost <= 86400000);
}

static void read_and_check(struct fixture *f, const char *text, size_t len)
{
	reset(f);
	int rc = hg_reports_read(&f->ctx, "mem.json", text, len, sink, f);
	assert_true(rc >= 0);
	for (size_t i = 0; i < f->n_kept; i++)
		check(f->rep[i]);
}

static void test_cut_everywhere(void **state)
{
	static const char *const names[] = {"article-report.json", "presampled-index.json"};
	for (size_t k = 0; k < 2; k++) {
		char *text = load(names[k]);
		size_t len = strlen(text);
		for (size_t n = 1; n < len; n += 7) {
			char c = text[n];
			text[n] = '\0';
			read_and_check(*state, text, n);
			text[n] = c;
		}
		free(text);
	}
}

static void test_mutations(void **state)
{
	static const char *const values[] = {
		"null", "true", "\"x\"", "-1", "0", "3", "18446744073709551616", "1.5", "{}", "[]",
		"[{}]", "[1,2]", "\"hang\"", "\"not_requested\"", "{\"contents\":[1]}",
	};
	char *text = load("presampled-backtrace.json");
	size_t len = strlen(text), cap = len + 256;
	char *buf = malloc(cap + 1);
	assert_non_null(buf);
	uint64_t rng = 0x2545f4914f6cdd1dULL;
	for (int round = 0; round < 600; round++) {
		memcpy(buf, text, len + 1);
		size_t n = len;
		for (int k = 0; k < 3; k++) {
			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			const char *colon = strchr(buf + rng % n, ':');
			if (!colon)
				continue;
			size_t s = (size_t)(colon - buf) + 1, e = s + strcspn(buf + s, ",}]\n");
			const char *v = values[(rng >> 20) % (sizeof values / sizeof *values)];
			size_t vl = strlen(v);
			if (n - (e - s) + vl >= cap)
				continue;
			memmove(buf + s + vl, buf + e, n - e + 1);
			memcpy(buf + s, v, vl);
			n = n - (e - s) + vl;
		}
		read_and_check(*state, buf, n);
	}
	free(buf);
	free(text);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_article_report, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cost_rounding, setup, teardown),
		cmocka_unit_test_setup_teardown(test_presampled_backtrace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_presampled_index, setup, teardown),
		cmocka_unit_test_setup_teardown(test_presampled_frames, setup, teardown),
		cmocka_unit_test_setup_teardown(test_main_from_htapm, setup, teardown),
		cmocka_unit_test_setup_teardown(test_source_fields_typed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_soft_cases, setup, teardown),
		cmocka_unit_test_setup_teardown(test_htapm_truncated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_mains, setup, teardown),
		cmocka_unit_test_setup_teardown(test_representative_over_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_bad_items, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_everywhere, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mutations, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
