/* Unit tests for KSCrash reports cut short or written by a crash handler
 * that crashed (report_kscrash_recrash.c), reports without a crash part,
 * and KSCrash JSON with trailing commas (report_kscrash_lenient.c): the
 * handler's own crash read as KSCrash's Apple-format rendering shows it
 * ("Handler crashed while reporting"), in KSCrash 2.0's layout and in
 * SentryCrash's; a report read as far as it goes, never refused as a
 * Matrix report.  The real reports are KSCrash's and sentry-cocoa's
 * (testdata/kscrash/README.md); expected values were read out of
 * CrashInHandler.txt and sentry's converter tests.  Bad input: a recrash
 * part cut or of the wrong type, its thread cut, thousands of threads that
 * are no objects, commas in strings, a comma that is not the only fault.
 * argv[1] is the testdata/ directory. */
#include <inttypes.h>

#include "report_fixture.h"

#include "hangar/text.h"

#include "report/report_kscrash_lenient.h"

static const char *testdata = "testdata";

static const hg_report *real(struct fixture *f, const char *name)
{
	char dir[1024];
	size_t len;
	snprintf(dir, sizeof dir, "%s/kscrash", testdata);
	char *text = load_file(dir, name, &len);
	assert_int_equal(read_bytes(f, text, len), 0);
	free(text);
	assert_int_equal(f->delivered, 1);
	const hg_report *r = f->rep[0];
	if (r->error)
		fail_msg("%s: %s", name, r->error);
	assert_int_equal(r->format, HG_FORMAT_KSCRASH);
	return r;
}

static const hg_report *good(struct fixture *f, const char *text)
{
	assert_int_equal(read_text(f, text), 0);
	assert_int_equal(f->delivered, 1);
	const hg_report *r = f->rep[0];
	if (r->error)
		fail_msg("unexpected error: %s", r->error);
	assert_int_equal(r->format, HG_FORMAT_KSCRASH);
	return r;
}

static bool has_warning(const hg_report *r, const char *needle)
{
	for (size_t i = 0; i < r->warnings.len; i++)
		if (strstr(r->warnings.items[i], needle))
			return true;
	return false;
}

/* ---- the handler's own crash ---- */

/* CrashInHandler.txt: the report (thread 0, EXC_BAD_ACCESS (SIGSEGV) at
 * 0xffffffff), then "Handler crashed while reporting: EXC_BAD_ACCESS
 * (SIGBUS), KERN_PROTECTION_FAILURE at 0x00000000, Crashed Thread: 7",
 * its 9 frames from __vfprintf to _pthread_start, and "Recrash Diagnosis:
 * Attempted to dereference null pointer." (KSCrash 2.0: the handler's crash
 * is recrash_report.) */
static void test_recrash_kscrash_2_0(void **state)
{
	const hg_report *r = real(*state, "kscrash-2.0-crash-in-handler-ios4-iphone4.json");
	assert_int_equal(r->threads.n, 8);
	assert_int_equal(r->threads.blamed, 0);
	assert_string_equal(r->reason, "mach exception EXC_BAD_ACCESS (KERN_INVALID_ADDRESS), signal "
			    "SIGSEGV (SEGV_NOOP) at 0xffffffff");
	const hg_recrash *rc = r->recrash;
	assert_non_null(rc);
	assert_string_equal(rc->reason, "mach exception EXC_BAD_ACCESS (KERN_PROTECTION_FAILURE), "
			    "signal SIGBUS (BUS_NOOP)");
	assert_string_equal(rc->diagnosis, "Attempted to dereference null pointer.\nOriginated at "
			    "or in a subcall of onCrash");
	assert_true(rc->has_thread);
	const hg_thread *t = &rc->thread;
	assert_int_equal(t->tid, 7);
	assert_string_equal(t->name, "KSCrash Exception Handler (Primary)");
	assert_int_equal(t->flags, HG_THREAD_CRASHED);
	assert_int_equal(t->n_frames, 9);
	assert_int_equal(t->frames[0].pc, 0x3625d1dc);
	assert_string_equal(t->frames[0].image, "libsystem_c.dylib");
	assert_string_equal(t->frames[0].symbol, "__vfprintf");
	assert_int_equal(t->frames[3].pc, 0x298e0);
	assert_string_equal(t->frames[3].image, "Crash-Tester");
	assert_string_equal(t->frames[3].symbol, "onCrash");
	assert_string_equal(t->frames[8].symbol, "_pthread_start");
	/* its frames lie in the report's images */
	const hg_image *im = hg_frame_image(&r->threads, &t->frames[3]);
	assert_non_null(im);
	assert_int_equal(im->load_addr, 0x28000);
}

/* sentry-cocoa's testRecrashReport_WithThreadIsStringInsteadOfDict:
 * SentryCrash writes the handler's crash outside and the report inside;
 * the report's exception is EXC_BAD_ACCESS, its one thread not crashed
 * with one frame, the string among its threads left out. */
static void test_recrash_sentrycrash(void **state)
{
	const hg_report *r = real(*state, "sentrycrash-3.2-recrash-report.json");
	assert_contains(r->reason, "mach exception EXC_BAD_ACCESS");
	assert_contains(r->reason, "signal SIGBUS");
	assert_int_equal(r->threads.n, 1);
	assert_int_equal(r->threads.blamed, -1);
	assert_int_equal(r->threads.items[0].n_frames, 1);
	assert_true(has_warning(r, "field \"recrash_report.crash.threads[1]\": expected an object, "
				"got \"exception\"; the thread is left out"));
	assert_non_null(r->recrash);
	assert_string_equal(r->recrash->reason, "signal SIGSEGV (SEGV_MAPERR) at 0x7fff90eeb5");
	assert_int_equal(r->recrash->thread.tid, 3);
	assert_string_equal(r->recrash->thread.name, "SentryCrash Exception Handler (Primary)");
	assert_string_equal(r->recrash->thread.frames[0].symbol, "_platform_strcmp");
}

/* sentry-cocoa's testIncomplete: only recrash_report, the handler's own
 * crash never written: read from it, with a warning. */
static void test_incomplete(void **state)
{
	const hg_report *r = real(*state, "sentrycrash-3.1-incomplete.json");
	assert_int_equal(r->threads.n, 10);
	assert_int_equal(r->n_exceptions, 1);
	assert_string_equal(r->exceptions[0].type, "P16kaboom_exception");
	assert_null(r->recrash);
	assert_true(has_warning(r, "the report holds only recrash_report"));
	assert_string_equal(r->process, "net.hockeyapp.CrashProbeiOS");
}

/* sentry-cocoa's testMissingCrash: KSCrash's report without "crash" is a
 * KSCrash report still, never a Matrix one. */
static void test_missing_crash(void **state)
{
	const hg_report *r = real(*state, "sentrycrash-missing-crash.json");
	assert_int_equal(r->threads.n, 0);
	assert_null(r->reason);
	assert_string_equal(r->device, "iPhone3,1");
	assert_int_equal(r->warnings.len, 1);
	assert_string_equal(r->warnings.items[0], "no \"crash\" object: the report says nothing of "
			    "its threads or error");
}

#define OUTER "{\"report\":{\"id\":\"A\",\"type\":\"standard\"},\"crash\":{\"error\":{\"signal\":" \
	"{\"signal\":11}},\"threads\":[{\"index\":0,\"crashed\":true,\"backtrace\":{\"contents\":" \
	"[{\"instruction_addr\":4096}]}}]},\"binary_images\":[{\"image_addr\":4096,\"image_size\":" \
	"4096,\"name\":\"/App\"}],\"recrash_report\":"
#define INNER(crash) "{\"report\":{\"type\":\"minimal\"},\"crash\":" crash "}}"
#define HANDLER_THREAD(contents) "\"crashed_thread\":{\"index\":3,\"backtrace\":{\"contents\":" \
	contents "}}"

/* A recrash part cut or of the wrong type: a warning naming the field,
 * what is left of it kept, and the report read whole. */
static void test_recrash_part_broken(void **state)
{
	struct fixture *f = *state;
	const hg_report *r = good(f, OUTER INNER("{\"error\":{\"signal\":{\"signal\":10}},"
		HANDLER_THREAD("[{\"instruction_addr\":4100},\"cut\",{\"instruction_addr\":4104}]") "}"));
	assert_int_equal(r->threads.blamed, 0);
	assert_string_equal(r->recrash->reason, "signal SIGBUS");
	assert_true(r->recrash->has_thread);
	assert_int_equal(r->recrash->thread.n_frames, 1);
	assert_string_equal(r->recrash->thread.frames[0].image, "App");
	assert_true(has_warning(r, "field \"recrash_report.crash.crashed_thread.backtrace."
				"contents[1]\": expected an object, got \"cut\"; the handler's thread "
				"is shown as far as it was read"));
	/* its names read as the report's: demangled */
	r = good(f, OUTER INNER("{" HANDLER_THREAD("[{\"instruction_addr\":4100,\"symbol_name\":"
						   "\"_ZSt9terminatev\"}]") "}"));
	assert_string_equal(r->recrash->thread.frames[0].method, "std::terminate()");
	assert_string_equal(r->recrash->thread.frames[0].mangled, "_ZSt9terminatev");
	r = good(f, OUTER INNER("{\"error\":{\"mach\":5}," HANDLER_THREAD("[]") "}"));
	assert_null(r->recrash->reason);
	assert_true(has_warning(r, "field \"recrash_report.crash.error.mach\": expected an object, "
				"got 5; the handler's crash is shown without its reason"));
	r = good(f, OUTER INNER("{\"diagnosis\":1,\"crashed_thread\":\"t\"}"));
	assert_false(r->recrash->has_thread);
	assert_true(has_warning(r, "field \"recrash_report.crash.diagnosis\": expected a string"));
	assert_true(has_warning(r, "field \"recrash_report.crash.crashed_thread\": expected an "
				"object, got \"t\"; the handler's thread is left out"));
	r = good(f, OUTER INNER("[]"));
	assert_null(r->recrash);
	assert_true(has_warning(r, "field \"recrash_report.crash\": expected an object, got []"));
	r = good(f, OUTER "7}");
	assert_null(r->recrash);
	assert_true(has_warning(r, "field \"recrash_report\": expected an object, got 7; ignored"));
	assert_int_equal(r->threads.n, 1);
	r = good(f, OUTER "{\"report\":{\"type\":\"minimal\"}}}");
	assert_null(r->recrash);
	assert_true(has_warning(r, "recrash_report holds no \"crash\" object"));
}

/* SentryCrash's report cut into thousands of bare strings among its
 * threads: a dozen warnings, the threads that are objects kept. */
static void test_recrash_threads_not_objects(void **state)
{
	struct fixture *f = *state;
	hg_buf b;
	hg_buf_init(&b);
	hg_buf_puts(&b, "{\"report\":{\"type\":\"minimal\"},\"crash\":{\"crashed_thread\":{\"index\":1}},"
		    "\"recrash_report\":{\"report\":{\"type\":\"standard\"},\"crash\":{\"threads\":[");
	for (int i = 0; i < 10000; i++)
		hg_buf_printf(&b, "%s\"r%d\"", i ? "," : "", i);
	hg_buf_puts(&b, ",{\"index\":0,\"crashed\":true,\"backtrace\":{\"contents\":[]}}]}}}");
	assert_false(b.failed);
	const hg_report *r = good(f, b.data);
	hg_buf_release(&b);
	assert_int_equal(r->threads.n, 1);
	assert_int_equal(r->threads.blamed, 0);
	assert_int_equal(r->warnings.len, 11);
	assert_string_equal(r->warnings.items[10], "9990 more threads that could not be read are "
			    "left out");
}

/* ---- trailing commas ---- */

/* KSCrash's sigterm.json: a comma before '}' at line 2564, which Apple's
 * NSJSONSerialization reads. */
static void test_trailing_comma_real(void **state)
{
	const hg_report *r = real(*state, "kscrash-doctor-sigterm-trailing-comma.json");
	assert_string_equal(r->reason, "the OS asked the app to terminate (SIGTERM)");
	assert_true(has_warning(r, "trailing commas removed: 1 comma before '}' or ']' (the first at "
				"line 2564, column 29), which JSON forbids and Apple's JSON reader "
				"accepts"));
	assert_int_equal(r->threads.n, 6);
}

static void test_trailing_commas(void **state)
{
	struct fixture *f = *state;
	const hg_report *r = good(f, "{\"report\":{\"id\":\"a,}\",},\"system\":{\"machine\":\"m\"},"
				  "\"crash\":{\"threads\":[{\"name\":\"t,]\",\"backtrace\":"
				  "{\"contents\":[],}},\n],},}");
	assert_string_equal(r->threads.items[0].name, "t,]");
	assert_true(has_warning(r, "5 commas before '}' or ']' (the first at line 1, column 22)"));
	/* not KSCrash: the JSON error stands */
	one_failed(f, "{\"tag\":\"Trace_EvilMethod\",\"stack\":\"0,1,1,5\\n\",}", "invalid JSON");
	/* another fault besides: the JSON error stands */
	one_failed(f, "{\"report\":{\"id\":\"a\",},\"crash\":{\"threads\":[}}", "invalid JSON");
	/* the next report is read as ever */
	assert_int_equal(read_text(f, "{\"report\":{\"id\":\"a\"},\"system\":{},\"crash\":{\"threads\":"
			 "[],}}\n{\"report\":{\"id\":\"b\"},\"system\":{},\"crash\":{\"threads\":[]}}\n"), 0);
	assert_int_equal(f->delivered, 2);
	assert_int_equal(f->rep[1]->warnings.len, 1);
	/* read as KSCrash by force */
	reset(f);
	const char *text = "{\"crash\":{\"threads\":[],},\"x\":1}";
	assert_int_equal(hg_reports_read_as(&f->ctx, "mem.json", text, strlen(text),
					    HG_FORMAT_KSCRASH, sink, f), 0);
	assert_true(has_warning(f->rep[0], "trailing commas removed"));
}

static void blanked(const char *in, const char *out, size_t n, size_t first)
{
	char buf[128];
	size_t len = strlen(in), at;
	memcpy(buf, in, len + 1);
	assert_int_equal(kscrash_blank_trailing_commas(buf, len, &at), n);
	assert_string_equal(buf, out);
	assert_int_equal(at, first);
}

static void test_blank_trailing_commas(void **state)
{
	(void)state;
	blanked("[1,2,]", "[1,2 ]", 1, 4);
	blanked("{\"a\":[1,\n\t],\r\n}", "{\"a\":[1 \n\t] \r\n}", 2, 7);
	blanked("[\"x,]\",\"y\\\",]\"]", "[\"x,]\",\"y\\\",]\"]", 0, 15);
	blanked("[1,,]", "[1, ]", 1, 3);
	blanked(",]", " ]", 1, 0);
	blanked("", "", 0, 0);
	assert_int_equal(kscrash_value_end("{\"a\":[1]} {", 11), 9);
	assert_int_equal(kscrash_value_end("{\"a}\":\"{\"}", 10), 10);
	assert_int_equal(kscrash_value_end("{\"a\":1", 6), 0);
	assert_int_equal(kscrash_value_end("{\"a\":\n{\"b\":1}}", 14), 0); /* the next report */
	assert_int_equal(kscrash_value_end("{\"a\":\"x\ny\"}", 11), 0);
}

/* ---- whatever the damage ---- */

static uint64_t rng = 0x2545f4914f6cdd1du;

static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

/* The value after a random ':' of buf replaced by another JSON value (or,
 * one time in four, a comma put before a random '}' or ']'), so that the
 * text mostly stays JSON and reaches the reader's type checks. */
static size_t mutate(char *buf, size_t len, size_t cap)
{
	static const char *const values[] = {"null", "true", "\"x\"", "-1", "0", "1.5", "{}", "[]",
					    "[\"s\"]", "\"minimal\"", "\"standard\"", "{\"crash\":{}}",
					    "18446744073709551615", "\"SIGTERM\"", "\"termination\""};
	size_t at = (size_t)rnd(len);
	bool comma = rnd(4) == 0;
	const char *p = comma ? strpbrk(buf + at, "}]") : memchr(buf + at, ':', len - at);
	if (!p || len + 24 >= cap)
		return len;
	size_t s = (size_t)(p - buf) + !comma, e = s;
	if (comma) {
		memmove(buf + s + 1, buf + s, len - s);
		buf[s] = ',';
		return len + 1;
	}
	if (buf[e] == '"') {
		for (e++; e < len && buf[e] != '"'; e++)
			e += buf[e] == '\\';
		e += e < len;
	} else {
		while (e < len && !strchr(",}]\n", buf[e]))
			e++;
	}
	const char *v = values[rnd(sizeof values / sizeof *values)];
	size_t vlen = strlen(v);
	memmove(buf + s + vlen, buf + e, len - e);
	memcpy(buf + s, v, vlen);
	return len - (e - s) + vlen;
}

/* Every report read keeps the invariants: the blamed thread in range and
 * no writer, frames with text, the recrash thread out of the threads. */
static void check(const hg_report *r)
{
	if (r->error)
		return;
	assert_true(r->threads.blamed >= -1 && r->threads.blamed < (long)r->threads.n);
	if (r->threads.blamed >= 0)
		assert_false(r->threads.items[r->threads.blamed].flags & HG_THREAD_CRASHED);
	const hg_recrash *rc = r->recrash;
	for (size_t i = 0; rc && rc->has_thread && i < rc->thread.n_frames; i++)
		assert_non_null(rc->thread.frames[i].text);
	for (size_t i = 0; i < r->threads.n; i++)
		assert_true(!rc || !rc->has_thread || r->threads.items[i].frames != rc->thread.frames ||
			    rc->thread.n_frames == 0);
}

static void mutate_file(struct fixture *f, const char *name, int rounds)
{
	char dir[1024];
	size_t len;
	snprintf(dir, sizeof dir, "%s/kscrash", testdata);
	char *text = load_file(dir, name, &len);
	size_t cap = len + 1024;
	char *buf = malloc(cap + 1);
	assert_non_null(buf);
	size_t good_ones = 0;
	for (int i = 0; i < rounds; i++) {
		memcpy(buf, text, len);
		size_t n = len;
		for (int k = 1 + (int)rnd(3); k > 0; k--)
			n = mutate(buf, n, cap);
		buf[n] = '\0';
		assert_true(read_bytes(f, buf, n) >= 0);
		assert_true(f->delivered >= 1);
		for (size_t r = 0; r < f->n_kept; r++)
			check(f->rep[r]);
		good_ones += f->errors == 0;
	}
	assert_true(good_ones > 0);
	free(buf);
	free(text);
}

static void test_mutations(void **state)
{
	rng = 0x2545f4914f6cdd1du;
	mutate_file(*state, "kscrash-2.0-crash-in-handler-ios4-iphone4.json", 150);
	mutate_file(*state, "sentrycrash-3.2-recrash-report.json", 600);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_recrash_kscrash_2_0, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recrash_sentrycrash, setup, teardown),
		cmocka_unit_test_setup_teardown(test_incomplete, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_crash, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recrash_part_broken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recrash_threads_not_objects, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trailing_comma_real, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trailing_commas, setup, teardown),
		cmocka_unit_test(test_blank_trailing_commas),
		cmocka_unit_test_setup_teardown(test_mutations, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
