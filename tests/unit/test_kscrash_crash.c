/* Unit tests for a KSCrash crash read as KSCrash reads itself
 * (report_kscrash_reason.c, report_kscrash_images.c, the blame rules of
 * report_kscrash.c): the crashed thread blamed when its own handler wrote
 * the report, an NSException's name and reason, a freed (zombie)
 * NSException, user-reported exceptions, binary images' crash_info
 * messages, the crash doctor's terminations (memory limit, SIGTERM,
 * watchdog), and the duplicated link-register frame.  The real reports are
 * KSCrash's Example-Reports and crash-doctor cases and sentry-cocoa's test
 * reports (testdata/kscrash/README.md); each expected value was read out
 * of KSCrash's own Apple-format rendering of the report (its .txt), the
 * doctor's tests or sentry's converter tests.  Bad input: a wrong type in
 * one of these fields is a warning naming it, and the rest is read.
 * argv[1] is the testdata/ directory. */
#include <inttypes.h>

#include "report_fixture.h"

#include "hangar/text.h"

static const char *testdata = "testdata";

/* The one report of testdata/kscrash/name, read without error. */
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

/* The one report of text, read without error; warnings allowed. */
static const hg_report *good(struct fixture *f, const char *text)
{
	assert_int_equal(read_text(f, text), 0);
	assert_int_equal(f->delivered, 1);
	const hg_report *r = f->rep[0];
	if (r->error)
		fail_msg("unexpected error: %s", r->error);
	return r;
}

static bool has_warning(const hg_report *r, const char *needle)
{
	for (size_t i = 0; i < r->warnings.len; i++)
		if (strstr(r->warnings.items[i], needle))
			return true;
	return false;
}

static size_t flagged(const hg_report *r, unsigned flag)
{
	size_t n = 0;
	for (size_t i = 0; i < r->threads.n; i++)
		n += (r->threads.items[i].flags & flag) != 0;
	return n;
}

static const char *stat_value(const hg_report *r, const char *name, size_t nth)
{
	for (size_t i = 0; i < r->n_stats; i++)
		if (!strcmp(r->stats[i].name, name) && nth-- == 0)
			return r->stats[i].value;
	return NULL;
}

static void assert_frame(const hg_frame *f, uint64_t pc, const char *image, const char *symbol)
{
	if (f->pc != pc)
		fail_msg("pc 0x%" PRIx64 ", expected 0x%" PRIx64, f->pc, pc);
	assert_string_equal(f->image, image);
	assert_string_equal(f->mangled ? f->mangled : f->symbol, symbol);
}

/* Everything but the crash: the report's system and report objects. */
#define SYS "\"report\":{\"id\":\"R\",\"type\":\"standard\"},\"system\":{\"machine\":\"iPhone9,4\"},"

/* ---- whom to blame ---- */

/* Abort.txt: "Crashed Thread: 0"; thread 0 is crashed and current (its own
 * signal handler wrote the report), so it is blamed, not the writer. */
static void test_crashed_current_thread_is_blamed(void **state)
{
	const hg_report *r = real(*state, "kscrash-2.0-abort-ios4-iphone4.json");
	assert_int_equal(r->kind, HG_KIND_CRASH);
	assert_int_equal(r->threads.n, 8);
	assert_int_equal(r->threads.blamed, 0);
	assert_int_equal(r->threads.items[0].tid, 0);
	assert_int_equal(flagged(r, HG_THREAD_CRASHED), 0);
	assert_string_equal(r->reason, "mach exception EXC_CRASH, signal SIGABRT at 0x3618da1c");
	const hg_thread *t = &r->threads.items[0];
	assert_int_equal(t->n_frames, 19);
	assert_frame(&t->frames[0], 0x3618da1c, "libsystem_kernel.dylib", "__pthread_kill");
	assert_frame(&t->frames[2], 0x668a8, "Crash-Tester", "-[Crasher doAbort]");
	assert_frame(&t->frames[18], 0x607b8, "Crash-Tester", "main");
}

/* A user report (Matrix's dumps, React Native's errors) is written by the
 * thread flagged crashed and current: that one is the writer still. */
static void test_user_report_writer_not_blamed(void **state)
{
	const hg_report *r = real(*state, "sentrycrash-ios10-iphone7plus-user-report.json");
	assert_int_equal(r->threads.items[5].flags & (HG_THREAD_CRASHED | HG_THREAD_BLAMED),
			 HG_THREAD_CRASHED);
	assert_int_equal(r->threads.blamed, 0);
}

/* ---- what was thrown ---- */

/* NSException.txt: "*** Terminating app due to uncaught exception
 * 'NSInvalidArgumentException', reason: '-[__NSArrayI objectForKey:]:
 * unrecognized selector sent to instance 0x1e59bc50'"; KSCrash 2.0 wrote
 * the reason in error.nsexception only. */
static void test_nsexception_reason(void **state)
{
	const hg_report *r = real(*state, "kscrash-2.0-nsexception-ios4-iphone4.json");
	assert_int_equal(r->n_exceptions, 1);
	assert_string_equal(r->exceptions[0].type, "NSInvalidArgumentException");
	assert_string_equal(r->exceptions[0].message, "-[__NSArrayI objectForKey:]: unrecognized "
			    "selector sent to instance 0x1e59bc50");
	assert_int_equal(r->exceptions[0].thread, 0);
	assert_int_equal(r->threads.blamed, 0);
	assert_string_equal(r->reason, "mach exception EXC_CRASH, signal SIGABRT");
}

#define NSEXC(ns_reason, reason)                                                                \
	"{" SYS "\"crash\":{\"error\":{\"type\":\"nsexception\",\"nsexception\":{\"name\":\"E\"" \
	ns_reason "}" reason "},\"threads\":[]}}"

/* The exception's own reason first, else error.reason (KSCrash's doctor). */
static void test_nsexception_reason_order(void **state)
{
	struct fixture *f = *state;
	const hg_report *r = good(f, NSEXC(",\"reason\":\"own\"", ",\"reason\":\"error's\""));
	assert_string_equal(r->exceptions[0].message, "own");
	r = good(f, NSEXC("", ",\"reason\":\"error's\""));
	assert_string_equal(r->exceptions[0].message, "error's");
	r = good(f, NSEXC(",\"reason\":5", ",\"reason\":\"error's\""));
	assert_string_equal(r->exceptions[0].message, "error's");
	assert_true(has_warning(r, "field \"crash.error.nsexception.reason\": expected a string, "
				"got 5; ignored"));
	r = good(f, NSEXC("", ""));
	assert_string_equal(r->exceptions[0].type, "E");
	assert_null(r->exceptions[0].message);
}

/* ZombieNSException.txt: the deallocated 'TurboEncabulatorException'
 * ("NOTE: This exception has been deallocated!"), whose address 0x1fd915b0
 * the crashed thread's r0 holds. */
static void test_zombie_nsexception(void **state)
{
	const hg_report *r = real(*state, "kscrash-2.0-zombie-nsexception-ios4-iphone4.json");
	assert_int_equal(r->n_exceptions, 1);
	assert_string_equal(r->exceptions[0].type, "TurboEncabulatorException");
	assert_string_equal(r->exceptions[0].message, "Spurving bearing failure: Barescent skor "
			    "motion non-sinusoidal for 0x675d4");
	assert_int_equal(r->exceptions[0].thread, 0);
	assert_contains(r->reason, "EXC_BAD_ACCESS (KERN_INVALID_ADDRESS)");
	assert_contains(r->reason, "at 0xf1fd8ab6");
	assert_contains(r->reason, "had been deallocated");
}

#define ZOMBIE(r0, last)                                                                        \
	"{" SYS "\"process\":{\"last_dealloced_nsexception\":" last "},"                        \
	"\"crash\":{\"error\":{\"type\":\"mach\",\"mach\":{\"exception_name\":\"EXC_BAD_ACCESS\"," \
	"\"code_name\":\"KERN_INVALID_ADDRESS\"},\"address\":16},\"threads\":[{\"index\":0,"     \
	"\"crashed\":true,\"registers\":{\"basic\":{\"r0\":" r0 "}},\"backtrace\":{\"contents\":" \
	"[{\"instruction_addr\":4096}]}}]}}"

/* Only a freed exception the crashed thread points at is the one thrown;
 * a field of the wrong type is a warning naming it. */
static void test_zombie_needs_the_register(void **state)
{
	struct fixture *f = *state;
#define LAST "{\"address\":100,\"name\":\"Z\",\"reason\":\"z\"}"
	const hg_report *r = good(f, ZOMBIE("100", LAST));
	assert_int_equal(r->n_exceptions, 1);
	assert_string_equal(r->exceptions[0].type, "Z");
	assert_string_equal(r->exceptions[0].message, "z");
	r = good(f, ZOMBIE("101", LAST));
	assert_int_equal(r->n_exceptions, 0);
	assert_string_equal(r->reason, "mach exception EXC_BAD_ACCESS (KERN_INVALID_ADDRESS) at 0x10");
	r = good(f, ZOMBIE("100", "[1]"));
	assert_int_equal(r->n_exceptions, 0);
	assert_true(has_warning(r, "field \"process.last_dealloced_nsexception\": expected an object, "
				"got [1]; ignored"));
	r = good(f, ZOMBIE("100", "{\"address\":\"100\",\"name\":\"Z\"}"));
	assert_int_equal(r->n_exceptions, 0);
	assert_true(has_warning(r, "field \"process.last_dealloced_nsexception.address\""));
	r = good(f, ZOMBIE("100", "{\"address\":100,\"name\":7}"));
	assert_string_equal(r->exceptions[0].type, "NSException");
	assert_true(has_warning(r, "last_dealloced_nsexception.name\": expected a string, got 7"));
}

#define USER(reported)                                                                          \
	"{" SYS "\"crash\":{\"error\":{\"type\":\"user\",\"reason\":\"it broke\",\"user_reported\":" \
	reported "},\"threads\":[]}}"

/* An exception the app reported (KSCrash's reportUserException): its name
 * and the error's reason; a Matrix dump is no exception. */
static void test_user_reported_exception(void **state)
{
	struct fixture *f = *state;
	const hg_report *r = good(f, USER("{\"name\":\"MyError\",\"language\":\"js\"}"));
	assert_int_equal(r->n_exceptions, 1);
	assert_string_equal(r->exceptions[0].type, "MyError");
	assert_string_equal(r->exceptions[0].message, "it broke");
	assert_string_equal(r->reason, "reported by the app: it broke");
	r = good(f, USER("{\"name\":\"it broke\"}"));
	assert_string_equal(r->exceptions[0].type, "it broke");
	assert_null(r->exceptions[0].message); /* not said twice */
	r = good(f, USER("{\"name\":[]}"));
	assert_string_equal(r->exceptions[0].type, "user-reported exception");
	assert_true(has_warning(r, "field \"crash.error.user_reported.name\": expected a string"));
	r = good(f, USER("{\"name\":\"2001\",\"dump_type\":2001}"));
	assert_int_equal(r->n_exceptions, 0);
	/* ReactNative.json: name and reason the same JS error */
	r = real(f, "sentrycrash-ios10-iphone7plus-user-report.json");
	assert_string_equal(r->exceptions[0].type, "Error: SentryClient: Test throw error");
	assert_null(r->exceptions[0].message);
}

/* ---- crash_info messages ---- */

/* sentry-cocoa's testFatalErrorBinary: libswiftCore's crash_info_message
 * "iOS_Swift/ViewController.swift:53: FatalX error: Hello fatal\n". */
static void test_crash_info_message(void **state)
{
	const hg_report *r = real(*state, "sentrycrash-ios15-iphone12-swift-fatal-error.json");
	assert_string_equal(stat_value(r, "crash info", 0),
			    "libswiftCore.dylib: iOS_Swift/ViewController.swift:53: FatalX error: "
			    "Hello fatal");
	assert_null(stat_value(r, "crash info", 1));
}

/* Every image's messages, both fields, in order; a few at most; a wrong
 * type is a warning naming the field. */
static void test_crash_info_bounded(void **state)
{
	struct fixture *f = *state;
	hg_buf b;
	hg_buf_init(&b);
	hg_buf_puts(&b, "{" SYS "\"crash\":{\"threads\":[]},\"binary_images\":[");
	for (int i = 0; i < 20; i++)
		hg_buf_printf(&b, "%s{\"image_addr\":%d,\"image_size\":16,\"name\":\"/L%d\","
			      "\"crash_info_message\":\"m%d\\n\",\"crash_info_message2\":%s}", i ? "," : "",
			      4096 * (i + 1), i, i, i == 0 ? "\"second\"" : i == 1 ? "5" : "null");
	hg_buf_puts(&b, "]}");
	assert_false(b.failed);
	const hg_report *r = good(f, b.data);
	hg_buf_release(&b);
	assert_string_equal(stat_value(r, "crash info", 0), "L0: m0");
	assert_string_equal(stat_value(r, "crash info", 1), "L0: second");
	assert_string_equal(stat_value(r, "crash info", 2), "L1: m1");
	assert_string_equal(stat_value(r, "crash info", 15), "L14: m14");
	assert_null(stat_value(r, "crash info", 16));
	assert_true(has_warning(r, "field \"binary_images[1].crash_info_message2\": expected a "
				"string, got 5; ignored"));
	assert_true(has_warning(r, "5 more crash_info messages of binary_images left out"));
}

/* ---- the crash doctor's diagnoses ---- */

/* KSCrash's testOOM: "The app exceeded its memory limit and was terminated
 * by the OS." (termination_reason memory_limit; SIGKILL says no more). */
static void test_memory_limit(void **state)
{
	const hg_report *r = real(*state, "kscrash-doctor-oom.json");
	assert_string_equal(r->reason, "the app exceeded its memory limit and the OS terminated it");
}

#define TERM(why) "{" SYS "\"crash\":{\"error\":{\"type\":\"termination\"" why ",\"signal\":" \
	"{\"signal\":9}},\"threads\":[]}}"

static void test_terminations(void **state)
{
	struct fixture *f = *state;
	static const char *const cases[][2] = {
		{",\"termination_reason\":\"memory_pressure\"",
		 "the OS terminated the app under system-wide memory pressure"},
		{",\"termination_reason\":\"cpu\"", "the OS terminated the app for using too much CPU"},
		{",\"termination_reason\":\"thermal\"",
		 "the OS terminated the app: the device was critically hot"},
		{",\"termination_reason\":\"low_battery\"", "the device shut down: its battery was too low"},
		{",\"termination_reason\":\"reboot\"", "the previous run ended with a device reboot"},
		{",\"termination_reason\":\"unexplained\"",
		 "the OS terminated the app (termination_reason \"unexplained\")"},
		{"", "the OS terminated the app, for a reason the report does not give"},
		{",\"termination_reason\":false",
		 "the OS terminated the app, for a reason the report does not give"},
	};
	char text[512];
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		snprintf(text, sizeof text, TERM("%s"), cases[i][0]);
		const hg_report *r = good(f, text);
		assert_string_equal(r->reason, cases[i][1]);
	}
	assert_true(has_warning(f->rep[0], "field \"crash.error.termination_reason\": expected a "
				"string, got false; ignored"));
	const hg_report *r = good(f, "{" SYS "\"crash\":{\"error\":{\"type\":\"memory_termination\"},"
				  "\"threads\":[]}}");
	assert_string_equal(r->reason, "the OS terminated the app for using too much memory");
}

/* KSCrash's testGracefulTermination and sentry's
 * testGracefulTerminationRequest: SIGTERM, without the address SentryCrash
 * writes for it nor its empty code name. */
static void test_sigterm(void **state)
{
	const hg_report *r = good(*state, "{" SYS "\"crash\":{\"error\":{\"type\":\"signal\","
				  "\"signal\":{\"signal\":15,\"name\":\"SIGTERM\",\"code\":0,"
				  "\"code_name\":\"\"},\"address\":5365848110},\"threads\":[]}}");
	assert_string_equal(r->reason, "the OS asked the app to terminate (SIGTERM)");
	r = good(*state, "{" SYS "\"crash\":{\"error\":{\"signal\":{\"signal\":15}},\"threads\":[]}}");
	assert_string_equal(r->reason, "the OS asked the app to terminate (SIGTERM)");
}

/* KSCrash's testWatchdogTimeout: "App hung for 3.99 seconds. Terminated by
 * watchdog." (hang_end_nanos - hang_start_nanos: 3985.077583 ms). */
static void test_watchdog(void **state)
{
	const hg_report *r = real(*state, "kscrash-doctor-watchdog.json");
	assert_contains(r->reason, "killed by the watchdog (0x8badf00d)");
	assert_int_equal(r->cost, 3985);
	assert_int_equal(r->kind, HG_KIND_IOS_HANG);
}

/* ---- the link register written twice ---- */

#define LR(lr, f2)                                                                              \
	"{" SYS "\"crash\":{\"threads\":[{\"index\":0,\"crashed\":true,\"registers\":{\"basic\":" \
	"{\"pc\":4096,\"lr\":" lr "}},\"backtrace\":{\"contents\":[{\"instruction_addr\":4096},"  \
	"{\"instruction_addr\":8193},{\"instruction_addr\":" f2 "},{\"instruction_addr\":12289}]}}]}}"

/* KSCrash's old cursor wrote pc, lr, then the frame chain, which starts
 * with lr again unless the function is a leaf. */
static void test_lr_written_twice(void **state)
{
	struct fixture *f = *state;
	const hg_report *r = good(f, LR("8193", "8193"));
	const hg_thread *t = &r->threads.items[0];
	assert_int_equal(t->n_frames, 3);
	assert_int_equal(t->frames[1].pc, 8193);
	assert_int_equal(t->frames[2].pc, 12289);
	r = good(f, LR("8193", "10241")); /* a leaf: frame 1 is its caller */
	assert_int_equal(r->threads.items[0].n_frames, 4);
	r = good(f, LR("\"x\"", "8193"));
	assert_int_equal(r->threads.items[0].n_frames, 4);
	assert_true(has_warning(r, "field \"crash.threads[0].registers.basic.lr\": expected an "
				"unsigned 64-bit integer, got \"x\"; ignored"));
	r = good(f, "{" SYS "\"crash\":{\"threads\":[{\"index\":0,\"registers\":7,\"backtrace\":"
		 "{\"contents\":[]}}]}}");
	assert_true(has_warning(r, "field \"crash.threads[0].registers\": expected an object, got 7"));
}

/* sentry-cocoa's testDuplicateFrame drops frame 1 (lr, objc_exception_throw)
 * though frame 2 (-[NSObject(NSObject) doesNotRecognizeSelector:]) is
 * another: nothing is written twice, and all 23 frames stay. */
static void test_sentry_dup_frame(void **state)
{
	const hg_report *r = real(*state, "sentrycrash-dup-frame.json");
	const hg_thread *t = &r->threads.items[r->threads.blamed];
	assert_int_equal(t->n_frames, 23);
	assert_int_equal(t->frames[1].pc, 0x35099c5d);
	assert_string_equal(r->exceptions[0].message, "-[__NSArrayI objectForKey:]: unrecognized "
			    "selector sent to instance 0x1e59bc50");
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_crashed_current_thread_is_blamed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_user_report_writer_not_blamed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nsexception_reason, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nsexception_reason_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zombie_nsexception, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zombie_needs_the_register, setup, teardown),
		cmocka_unit_test_setup_teardown(test_user_reported_exception, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crash_info_message, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crash_info_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memory_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_terminations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sigterm, setup, teardown),
		cmocka_unit_test_setup_teardown(test_watchdog, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lr_written_twice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sentry_dup_frame, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
