/* Readable thread dumps, as the library reads them (issue 14): ART's lock
 * lines kept under the frames they follow (also through a retrace that
 * expands inlined frames), a ProGuard/R8 map id that differs from the
 * report's, a Java crash's exception and its "Caused by:" chain, and iOS
 * KSCrash reasons (watchdog 0x8badf00d, hang, mach exception and signal,
 * NSException), thread names and header fields; on the real dumps of
 * testdata/ and on crafted, truncated and wrong-typed input.
 * argv[1] is the testdata/ folder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hangar/hangar.h"
#include "hangar/input.h"
#include "hangar/proguard.h"
#include "hangar/report.h"

static const char *testdata = "testdata";

static char diag[512];

static void on_diag(void *user, const hg_diag *d)
{
	(void)user;
	if (!diag[0])
		snprintf(diag, sizeof diag, "%s", d->message);
}

/* The first report of text (as format), which must be read unless
 * want_error. */
static hg_report *read_text(const char *source, const char *text, size_t len,
			    enum hg_input_format format, bool want_error)
{
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.diag = on_diag;
	diag[0] = '\0';
	hg_report *rep = NULL;
	assert_int_equal(hg_report_read_one(&ctx, source, text, len, format, &rep), 0);
	if (want_error) {
		assert_null(rep);
		assert_true(diag[0] != '\0');
		return NULL;
	}
	if (!rep)
		fail_msg("%s: %s", source, diag);
	return rep;
}

static hg_report *read_path(const char *name)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", testdata, name);
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	char *data = NULL;
	size_t len;
	if (hg_input_read(&ctx, path, &data, &len) != 0)
		fail_msg("cannot read %s", path);
	hg_report *rep = read_text(name, data, len, HG_FORMAT_AUTO, false);
	free(data);
	return rep;
}

static long find_thread(const hg_report *rep, const char *name)
{
	for (size_t i = 0; i < rep->threads.n; i++)
		if (rep->threads.items[i].name && !strcmp(rep->threads.items[i].name, name))
			return (long)i;
	fail_msg("no thread \"%s\"", name);
	return -1;
}

static void assert_lock(const hg_frame_lock *l, size_t frame, enum hg_lock_kind kind,
			const char *addr, const char *cls)
{
	assert_int_equal(l->frame, frame);
	assert_int_equal(l->kind, kind);
	assert_string_equal(l->lock.addr, addr);
	assert_string_equal(l->lock.cls, cls);
}

static const char *warning_with(const hg_report *rep, const char *needle)
{
	for (size_t i = 0; i < rep->warnings.len; i++)
		if (strstr(rep->warnings.items[i], needle))
			return rep->warnings.items[i];
	return NULL;
}

/* ---- locks ---- */

static void test_lock_lines_under_their_frames(void **state)
{
	(void)state;
	hg_report *rep = read_path("anr/android13-emu-main-blocked-held-by-thread.txt");
	const hg_thread *h = &rep->threads.items[find_thread(rep, "Thread-9")];
	/* Thread.sleep(Native method) / - sleeping on <0x09228c2d> /
	 * Thread.sleep:450 / - locked <0x09228c2d> / Thread.sleep:355 /
	 * MainActivity$1.run:162 / - locked <0x0d3a2f0a> */
	assert_int_equal(h->n_locks, 3);
	assert_lock(&h->locks[0], 0, HG_LOCK_SLEEPING_ON, "0x09228c2d", "java.lang.Object");
	assert_lock(&h->locks[1], 1, HG_LOCK_RELEASED, "0x09228c2d", "java.lang.Object");
	assert_lock(&h->locks[2], 3, HG_LOCK_HELD, "0x0d3a2f0a", "java.lang.Object");
	const hg_frame *holder = &h->frames[h->locks[2].frame];
	assert_string_equal(holder->cls, "io.sentry.samples.android.MainActivity$1");
	assert_string_equal(holder->method, "run");
	assert_int_equal(holder->line, 162);
	/* the lock graph as before: the sleep lock is not held */
	assert_int_equal(h->n_held, 1);
	assert_string_equal(h->held[0].addr, "0x0d3a2f0a");
	const hg_thread *m = &rep->threads.items[find_thread(rep, "main")];
	assert_int_equal(m->n_locks, 1);
	assert_lock(&m->locks[0], 0, HG_LOCK_WAITING_TO_LOCK, "0x0d3a2f0a", "java.lang.Object");
	assert_int_equal(m->locks[0].held_by, 5);
	assert_int_equal(m->frames[0].line, 177);
	assert_string_equal(hg_lock_kind_name(HG_LOCK_WAITING_TO_LOCK), "waiting to lock");
	assert_string_equal(hg_lock_kind_name((enum hg_lock_kind)99), "?");
	hg_report_destroy(rep);
}

static void test_lock_line_forms(void **state)
{
	(void)state;
	static const char dump[] =
		"----- pid 1 at 2024-01-01 00:00:00 -----\n"
		"Cmd line: com.example\n"
		"\n"
		"\"main\" prio=5 tid=1 Waiting\n"
		"  - locked <0x1> (a before.Any)\n"
		"  at java.lang.Object.wait(Native method)\n"
		"  - waiting on <0x2> (a java.lang.Object)\n"
		"  at a.B.c(B.java:1)\n"
		"  - locked <0x2> (a java.lang.Object)\n"
		"  - parking to wait for <0x3> (a java.util.concurrent.locks.X)\n"
		"  - waiting on an unknown object\n"
		"  - waiting to lock <> (a broken)\n"
		"  - locked <0x4\n"
		"  - waiting to lock <0x5> held by thread 999999999999999999999\n"
		"  at a.B.d(B.java:2)\n"
		"\n"
		"----- end 1 -----\n";
	hg_report *rep = read_text("forms.txt", dump, sizeof dump - 1, HG_FORMAT_ANR_TRACES, false);
	const hg_thread *t = &rep->threads.items[0];
	assert_int_equal(t->n_locks, 5);
	assert_lock(&t->locks[0], HG_LOCK_NO_FRAME, HG_LOCK_HELD, "0x1", "before.Any");
	assert_lock(&t->locks[1], 0, HG_LOCK_WAITING_ON, "0x2", "java.lang.Object");
	assert_lock(&t->locks[2], 1, HG_LOCK_RELEASED, "0x2", "java.lang.Object");
	assert_lock(&t->locks[3], 1, HG_LOCK_PARKING, "0x3", "java.util.concurrent.locks.X");
	assert_int_equal(t->locks[4].frame, 1);
	assert_int_equal(t->locks[4].kind, HG_LOCK_WAITING_TO_LOCK);
	assert_null(t->locks[4].lock.cls);
	assert_int_equal(t->locks[4].held_by, -1); /* a holder past any tid */
	assert_int_equal(t->n_frames, 3);
	hg_report_destroy(rep);
}

static hg_proguard *open_mapping(const char *name)
{
	char path[512];
	snprintf(path, sizeof path, "%s/proguard/%s", testdata, name);
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	hg_proguard *pg = NULL;
	assert_int_equal(hg_proguard_open(&ctx, path, &pg), 0);
	return pg;
}

static void test_locks_follow_a_retrace(void **state)
{
	(void)state;
	/* the real R8 dump: frames one for one, lock classes renamed */
	hg_report *rep = read_path("anr/measure-r8-app-exit-input-dispatching-main-blocked.txt");
	long li = find_thread(rep, "APP: Locker");
	const hg_frame *under = &rep->threads.items[li].frames[rep->threads.items[li].locks[4].frame];
	const char *text = under->text;
	assert_non_null(strstr(text, "b.c.run("));
	hg_proguard *pg = open_mapping("measure-r8-8.13/mapping.txt");
	assert_int_equal(hg_report_retrace(rep, (const hg_proguard *const *)&pg, 1), 0);
	const hg_thread *t = &rep->threads.items[li];
	assert_ptr_equal(t->frames[t->locks[4].frame].text, text);
	assert_true(t->frames[t->locks[4].frame].retraced);
	assert_string_equal(t->locks[4].lock.cls, "sh.frankenstein.android.DeadlockToken");
	assert_null(warning_with(rep, "map id")); /* the mapping's own id */
	hg_report_destroy(rep);
	hg_proguard_destroy(pg);
	/* an obfuscated frame that inlines three: its lock line goes under the
	 * last of them (mapping-inlines.txt, as rust-proguard's test_inlines) */
	static const char dump[] =
		"----- pid 1 at 2024-01-01 00:00:00 -----\n"
		"Cmd line: io.sentry.sample\n"
		"\n"
		"\"main\" prio=5 tid=1 Blocked\n"
		"  at io.sentry.sample.MainActivity.t(MainActivity.java:1)\n"
		"  - locked <0x1> (a java.lang.Object)\n"
		"  at e.a.c.a.onClick(SourceFile)\n"
		"  - waiting to lock <0x2> (a java.lang.Object) held by thread 9\n"
		"  at android.view.View.performClick(View.java:7125)\n"
		"  - locked <0x3> (a java.lang.Object)\n"
		"\n"
		"----- end 1 -----\n";
	rep = read_text("inl.txt", dump, sizeof dump - 1, HG_FORMAT_ANR_TRACES, false);
	pg = open_mapping("rust-proguard/mapping-inlines.txt");
	assert_int_equal(hg_report_retrace(rep, (const hg_proguard *const *)&pg, 1), 0);
	t = &rep->threads.items[0];
	assert_int_equal(t->n_frames, 5);
	assert_string_equal(t->frames[0].method, "bar");
	assert_string_equal(t->frames[2].method, "onClickHandler");
	assert_int_equal(t->n_locks, 3);
	assert_lock(&t->locks[0], 2, HG_LOCK_HELD, "0x1", "java.lang.Object");
	assert_lock(&t->locks[1], 3, HG_LOCK_WAITING_TO_LOCK, "0x2", "java.lang.Object");
	assert_lock(&t->locks[2], 4, HG_LOCK_HELD, "0x3", "java.lang.Object");
	assert_string_equal(t->frames[4].method, "performClick");
	hg_report_destroy(rep);
	hg_proguard_destroy(pg);
}

static void test_map_id_mismatch_warns(void **state)
{
	(void)state;
	hg_report *rep = read_path("anr/android17-preview-emu-appexit-broadcast-r8-obfuscated.txt");
	char path[512];
	snprintf(path, sizeof path, "%s/proguard/measure-r8-8.13/mapping.txt", testdata);
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	hg_proguard *pg = NULL;
	assert_int_equal(hg_proguard_open(&ctx, path, &pg), 0);
	assert_int_equal(hg_report_retrace(rep, (const hg_proguard *const *)&pg, 1), 0);
	const char *w = warning_with(rep, "map id");
	assert_non_null(w);
	assert_non_null(strstr(w, "2ba4f78b4805d864b147a06dfb2405f9c5e16fdb7441e9748392ece3a9c297ff"));
	assert_non_null(strstr(w, "395c38ad35850b08fce2fc89e55363d510544d93c2dfa3e409521ade64f67e97"));
	assert_non_null(strstr(w, "mapping.txt"));
	hg_report_destroy(rep);
	/* a mapping without pg_map_id has nothing to compare with */
	snprintf(path, sizeof path, "%s/proguard/rust-proguard/mapping-zero-line-info.txt", testdata);
	hg_proguard *plain = NULL;
	assert_int_equal(hg_proguard_open(&ctx, path, &plain), 0);
	rep = read_path("anr/android17-preview-emu-appexit-broadcast-r8-obfuscated.txt");
	assert_int_equal(hg_report_retrace(rep, (const hg_proguard *const *)&plain, 1), 0);
	assert_null(warning_with(rep, "map id"));
	hg_report_destroy(rep);
	hg_proguard_destroy(plain);
	hg_proguard_destroy(pg);
}

/* ---- a Java crash's exception ---- */

static void test_xcrash_exception_chain(void **state)
{
	(void)state;
	hg_report *rep = read_path("java-stacks/xcrash-android10-pixel-java-crash-all-threads.txt");
	assert_int_equal(rep->kind, HG_KIND_CRASH);
	assert_int_equal(rep->n_exceptions, 3);
	const hg_exception *e = rep->exceptions;
	assert_string_equal(e[0].type, "java.lang.IllegalStateException");
	assert_string_equal(e[0].message, "Could not execute method for android:onClick");
	assert_int_equal(e[0].thread, rep->threads.blamed);
	assert_string_equal(e[1].type, "java.lang.reflect.InvocationTargetException");
	assert_null(e[1].message);
	assert_string_equal(e[2].type, "java.lang.RuntimeException");
	assert_string_equal(e[2].message, "test java exception");
	for (size_t k = 1; k < 3; k++) {
		const hg_thread *c = &rep->threads.items[e[k].thread];
		assert_true(c->flags & HG_THREAD_CAUSE);
		assert_false(c->flags & HG_THREAD_BLAMED);
	}
	const hg_thread *root = &rep->threads.items[e[2].thread];
	assert_string_equal(root->frames[0].cls, "xcrash.XCrash");
	assert_string_equal(root->frames[0].method, "testJavaCrash");
	/* the other threads' traces are theirs, not causes */
	size_t causes = 0;
	for (size_t i = 0; i < rep->threads.n; i++)
		causes += (rep->threads.items[i].flags & HG_THREAD_CAUSE) != 0;
	assert_int_equal(causes, 2);
	hg_report_destroy(rep);
}

static void test_exception_edge_cases(void **state)
{
	(void)state;
	/* a cause before any exception, an empty message, a second trace's
	 * exception (another thread's), a suppressed one */
	static const char dump[] =
		"Caused by: java.lang.Error: orphan\n"
		"\tat a.B.c(B.java:1)\n"
		"java.lang.IllegalStateException:\n"
		"\tat a.B.d(B.java:2)\n"
		"Suppressed: java.io.IOException: closing\n"
		"\tat a.B.e(B.java:3)\n"
		"Caused by: java.lang.NullPointerException: x is null: really\n"
		"\tat a.B.f(B.java:4)\n"
		"java.lang.OutOfMemoryError: other thread\n"
		"\tat a.B.g(B.java:5)\n";
	hg_report *rep = read_text("edge.txt", dump, sizeof dump - 1, HG_FORMAT_JAVA_STACK, false);
	assert_int_equal(rep->n_exceptions, 2);
	assert_string_equal(rep->exceptions[0].type, "java.lang.IllegalStateException");
	assert_null(rep->exceptions[0].message);
	assert_string_equal(rep->exceptions[1].type, "java.lang.NullPointerException");
	assert_string_equal(rep->exceptions[1].message, "x is null: really");
	assert_int_equal(rep->threads.items[rep->exceptions[1].thread].frames[0].line, 4);
	hg_report_destroy(rep);
}

/* ---- iOS ---- */

static const char *figure(const hg_report *rep, const char *group, const char *name)
{
	for (size_t i = 0; i < rep->n_stats; i++)
		if (rep->stats[i].group && !strcmp(rep->stats[i].group, group) &&
		    !strcmp(rep->stats[i].name, name))
			return rep->stats[i].value;
	return NULL;
}

static void test_kscrash_reasons_and_names(void **state)
{
	(void)state;
	hg_report *rep = read_path("kscrash/kscrash-3.7-watchdog-8badf00d-ios26-sim.json");
	assert_non_null(rep->reason);
	assert_non_null(strstr(rep->reason, "killed by the watchdog (0x8badf00d): the main thread was "
				   "blocked for too long"));
	assert_non_null(strstr(rep->reason, "EXC_CRASH"));
	assert_non_null(strstr(rep->reason, "SIGKILL")); /* from its number, 9 */
	assert_string_equal(rep->threads.items[rep->threads.blamed].name, "main");
	assert_string_equal(rep->time, "2025-12-09T21:23:41.501Z");
	assert_string_equal(figure(rep, "header", "os"), "iOS 26.1 (25B78)");
	assert_string_equal(figure(rep, "header", "report id"),
			    "E7E49C93-CDE1-4EBB-A3B1-2FAD2252BFEF, KSCrash 3.7.0");
	hg_report_destroy(rep);
	rep = read_path("kscrash/kscrash-3.7-hang-ios26-sim.json");
	assert_string_equal(rep->reason, "the main thread hung for 8002 ms");
	hg_report_destroy(rep);
	rep = read_path("kscrash/kscrash-2.0-main-thread-deadlock-ios4-iphone4.json");
	assert_string_equal(rep->reason, "the main thread deadlocked");
	assert_string_equal(rep->threads.items[0].name, "com.apple.main-thread");
	hg_report_destroy(rep);
	rep = read_path("kscrash/sentrycrash-ios15-iphone12-swift-fatal-error.json");
	assert_string_equal(rep->reason, "mach exception EXC_BREAKPOINT, signal SIGTRAP at 0x185827648");
	hg_report_destroy(rep);
	rep = read_path("kscrash/sentrycrash-ios10-iphone7plus-user-report.json");
	assert_string_equal(rep->reason, "reported by the app: Error: SentryClient: Test throw error");
	hg_report_destroy(rep);
	rep = read_path("kscrash/matrix-wcblockmonitor-lag-2001.json");
	assert_null(rep->reason); /* a lag dump says nothing of the kind */
	assert_int_equal(rep->n_exceptions, 0);
	hg_report_destroy(rep);
}

#define KS_HEAD "{\"report\":{\"id\":\"X\",\"timestamp\":1700000000},\"crash\":{\"error\":"
#define KS_TAIL ",\"threads\":[{\"index\":0,\"crashed\":true,\"backtrace\":{\"contents\":[]}}]}}"

static void test_kscrash_crafted(void **state)
{
	(void)state;
	static const char ns[] = KS_HEAD "{\"type\":\"nsexception\",\"nsexception\":{\"name\":"
				 "\"NSRangeException\"},\"reason\":\"index 5 beyond bounds [0 .. 2]\","
				 "\"mach\":{\"exception_name\":\"EXC_CRASH\"},\"signal\":{\"signal\":6,"
				 "\"code_name\":\"SI_USER\"}}" KS_TAIL;
	hg_report *rep = read_text("ns.json", ns, sizeof ns - 1, HG_FORMAT_AUTO, false);
	assert_int_equal(rep->n_exceptions, 1);
	assert_string_equal(rep->exceptions[0].type, "NSRangeException");
	assert_string_equal(rep->exceptions[0].message, "index 5 beyond bounds [0 .. 2]");
	assert_int_equal(rep->exceptions[0].thread, 0);
	assert_string_equal(rep->reason, "mach exception EXC_CRASH, signal SIGABRT (SI_USER)");
	assert_string_equal(rep->threads.items[0].name, "main");
	assert_string_equal(rep->time, "2023-11-14T22:13:20.000Z");
	hg_report_destroy(rep);
	/* a signal past Darwin's names, no mach block, an empty C++ exception */
	static const char odd[] = KS_HEAD "{\"type\":\"cpp_exception\",\"cpp_exception\":{},"
				  "\"signal\":{\"signal\":99}}" KS_TAIL;
	rep = read_text("odd.json", odd, sizeof odd - 1, HG_FORMAT_AUTO, false);
	assert_null(rep->reason);
	assert_string_equal(rep->exceptions[0].type, "C++ exception");
	hg_report_destroy(rep);
	/* wrong types are errors naming the field */
	static const char *const bad[] = {
		KS_HEAD "{\"type\":\"mach\",\"mach\":5}" KS_TAIL,
		KS_HEAD "{\"type\":\"nsexception\",\"nsexception\":{\"name\":7}}" KS_TAIL,
		KS_HEAD "{\"type\":\"user\",\"reason\":[]}" KS_TAIL,
		KS_HEAD "{\"type\":\"signal\",\"signal\":{\"signal\":-3}}" KS_TAIL,
	};
	static const char *const field[] = {"crash.error.mach", "crash.error.nsexception",
					    "crash.error", "crash.error.signal"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		read_text("bad.json", bad[i], strlen(bad[i]), HG_FORMAT_KSCRASH, true);
		if (!strstr(diag, field[i]))
			fail_msg("bad[%zu]: '%s' does not name %s", i, diag, field[i]);
	}
	/* every truncation of the crafted report: an error or a report, never a crash */
	for (size_t n = 0; n < sizeof ns - 1; n++) {
		hg_ctx ctx;
		hg_ctx_init(&ctx);
		ctx.diag = on_diag;
		hg_report *r = NULL;
		char *cut = malloc(n + 1); /* the readers want a NUL at len */
		assert_non_null(cut);
		memcpy(cut, ns, n);
		cut[n] = '\0';
		assert_int_equal(hg_report_read_one(&ctx, "cut.json", cut, n, HG_FORMAT_KSCRASH, &r), 0);
		assert_true(r == NULL || r->threads.n <= 1);
		hg_report_destroy(r);
		free(cut);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lock_lines_under_their_frames),
		cmocka_unit_test(test_lock_line_forms),
		cmocka_unit_test(test_locks_follow_a_retrace),
		cmocka_unit_test(test_map_id_mismatch_warns),
		cmocka_unit_test(test_xcrash_exception_chain),
		cmocka_unit_test(test_exception_edge_cases),
		cmocka_unit_test(test_kscrash_reasons_and_names),
		cmocka_unit_test(test_kscrash_crafted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
