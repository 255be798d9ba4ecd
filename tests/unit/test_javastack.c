/* Unit tests for Java stack dumps: ANR-WatchDog's README sample and the
 * xCrash Java-crash tombstone (every thread, frame count and first frame
 * checked), an ANR-WatchDog report pasted from Android Studio's logcat, a
 * bare frame list, adb logcat prefixes, ART / jstack / Thread.toString()
 * thread headers with locks, exception chains (Caused by, Suppressed,
 * "... N more"), skipped lines, inputs without frames, the frame cap, every
 * 37th truncation and 2000 seeded mutations of the fixtures, a 10,000-frame
 * dump; and Matrix's threadStack (report_thread_from_frames) with a real
 * one from testdata/matrix-mangatoon/reports.ndjson line 17.
 * argv[1] is the testdata/ folder. */
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
#include "report/report_internal.h"

static const char *testdata = "testdata";

static const char *const fixtures[] = {
	"anr-watchdog-readme-deadlock-example.txt",
	"xcrash-android10-pixel-java-crash-all-threads.txt",
	"anrwatchdog-logcat-studio-caused-by.txt",
	"plain-frames-no-header.txt",
};

#define FIXTURE_SOURCE "mem.txt"
#define FIXTURE_FORMAT HG_FORMAT_JAVA_STACK
#define FIXTURE_DIR "java-stacks"
#define FIXTURE_DAMAGED "damaged.txt"
#include "text_reader_fixture.h"

static const hg_thread *thread(const hg_report *r, size_t i, const char *name, size_t frames)
{
	assert_true(i < r->threads.n);
	const hg_thread *t = &r->threads.items[i];
	assert_string_equal(t->name, name);
	if (t->n_frames != frames)
		fail_msg("thread \"%s\": %zu frames, expected %zu", name, t->n_frames, frames);
	return t;
}

static void assert_blamed(const hg_report *r, size_t i)
{
	assert_int_equal(r->threads.blamed, (long)i);
	for (size_t k = 0; k < r->threads.n; k++) {
		unsigned want = k == i ? HG_THREAD_MAIN | HG_THREAD_BLAMED : 0;
		assert_int_equal(r->threads.items[k].flags & (HG_THREAD_MAIN | HG_THREAD_BLAMED), want);
	}
}

static size_t all_frames(const hg_report *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->threads.n; i++)
		n += r->threads.items[i].n_frames;
	return n;
}

/* What must hold of any report, read or failed (truncations, mutations). */
static void check_sane(const hg_report *r)
{
	if (r->error) {
		assert_true(strlen(r->error) > 0);
		return;
	}
	assert_true(r->kind == HG_KIND_ANR || r->kind == HG_KIND_THREAD_DUMP ||
		    r->kind == HG_KIND_CRASH);
	assert_true(r->threads.n > 0 && all_frames(r) > 0);
	assert_true(r->threads.blamed >= 0 && (size_t)r->threads.blamed < r->threads.n);
	for (size_t i = 0; i < r->threads.n; i++) {
		const hg_thread *t = &r->threads.items[i];
		assert_non_null(t->name);
		for (size_t k = 0; k < t->n_frames; k++) {
			assert_non_null(t->frames[k].cls);
			assert_non_null(t->frames[k].method);
			assert_non_null(t->frames[k].text);
			assert_int_equal(t->frames[k].repeat, 1);
		}
		for (size_t k = 0; k < t->n_held; k++)
			assert_non_null(t->held[k].addr);
	}
	for (size_t i = 0; i < r->warnings.len; i++)
		assert_true(strlen(r->warnings.items[i]) > 0);
}

/* ---- the corpus files ---- */

static void test_anr_watchdog_readme(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	size_t len;
	char *text;
	const hg_report *r = read_fixture(&g, fixtures[0], &text, &len);
	assert_int_equal(r->kind, HG_KIND_ANR);
	assert_string_equal(r->platform, "android");
	assert_string_equal(r->process, "anrwatchdog.github.com.testapp");
	assert_int_equal(r->cost, 0); /* this ANR-WatchDog did not say how long */
	assert_int_equal(r->threads.n, 2);
	assert_blamed(r, 0);
	const hg_thread *t = thread(r, 0, "main", 5);
	assert_string_equal(t->state, "WAITING");
	assert_frame(&t->frames[0], "testapp.MainActivity$1", "run", "MainActivity.java", 46, 1);
	assert_frame(&t->frames[4], "android.app.ActivityThread", "main", "ActivityThread.java", 5221, 1);
	t = thread(r, 1, "APP: Locker", 6);
	assert_string_equal(t->state, "TIMED_WAITING");
	assert_frame(&t->frames[0], "java.lang.Thread", "sleep", "Native Method", -1, 1);
	assert_frame(&t->frames[3], "testapp.MainActivity", "SleepAMinute", "MainActivity.java", 18, 1);
	assert_frame(&t->frames[5], "testapp.MainActivity$LockerThread", "run", "MainActivity.java",
		     36, 1);
	assert_int_equal(r->warnings.len, 0);
	got_release(&g);
	free(text);
}

static void test_xcrash_java_crash_all_threads(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	size_t len;
	char *text;
	const hg_report *r = read_fixture(&g, fixtures[1], &text, &len);
	assert_int_equal(r->kind, HG_KIND_CRASH); /* Crash type: 'java' */
	assert_string_equal(r->process, "xcrash.sample");
	assert_string_equal(r->app_version, "1.2.3-beta456-patch789");
	/* the device as the other tombstones name it: the fingerprint, not the Model */
	assert_string_equal(r->device,
			    "google/sailfish/sailfish:10/QP1A.190711.020/5800535:user/release-keys");
	assert_int_equal(r->meta_len, 1);
	assert_string_equal(r->meta[0].key, "pid");
	assert_string_equal(r->meta[0].json, "21356");
	assert_string_equal(r->time_written, "2019-10-12T03:23:25.533+0800");
	assert_string_equal(r->time, "2019-10-11T19:23:25.533Z");
	assert_figure(r, "xcrash", "Tombstone maker", "xCrash 2.4.6");
	assert_figure(r, "xcrash", "Crash type", "java");
	assert_figure(r, "xcrash", "API level", "29");
	assert_figure(r, "xcrash", "Build fingerprint",
		      "google/sailfish/sailfish:10/QP1A.190711.020/5800535:user/release-keys");
	assert_figure(r, "xcrash", "total JVM threads (exclude the crashed thread)", "24");
	assert_figure(r, "xcrash", "dumped JVM threads", "24");
	assert_int_equal(figures_in(r, "xcrash"), 16);

	/* The crashed main thread, its two causes, then 24 other threads. */
	assert_int_equal(r->threads.n, 27);
	assert_blamed(r, 0);
	const hg_thread *t = thread(r, 0, "main", 12);
	assert_int_equal(t->sys_tid, 21356);
	assert_int_equal(t->tid, -1);
	assert_frame(&t->frames[0], "androidx.appcompat.app.AppCompatViewInflater$DeclaredOnClickListener",
		     "onClick", "AppCompatViewInflater.java", 402, 1);
	assert_frame(&t->frames[11], "com.android.internal.os.ZygoteInit", "main", "ZygoteInit.java",
		     930, 1);
	t = thread(r, 1, "main: caused by java.lang.reflect.InvocationTargetException", 2);
	assert_frame(&t->frames[0], "java.lang.reflect.Method", "invoke", "Native Method", -1, 1);
	t = thread(r, 2, "main: caused by java.lang.RuntimeException: test java exception", 2);
	assert_frame(&t->frames[0], "xcrash.XCrash", "testJavaCrash", "XCrash.java", 847, 1);
	assert_frame(&t->frames[1], "xcrash.sample.MainActivity", "testJavaCrashInMainThread_onClick",
		     "MainActivity.java", 67, 1);
	t = thread(r, 3, "RenderThread", 0);
	assert_int_equal(t->sys_tid, 4364);
	t = thread(r, 7, "ReferenceQueueDaemon", 6);
	assert_int_equal(t->sys_tid, 4353);
	assert_frame(&t->frames[0], "java.lang.Object", "wait", "Native Method", -1, 1);
	t = thread(r, 15, "CrAsyncTask #2", 9);
	assert_frame(&t->frames[7], "Js", "run", "PG", 2, 1);
	t = thread(r, 26, "Binder:21356_1", 0);
	assert_int_equal(t->sys_tid, 4356);
	size_t empty = 0;
	for (size_t i = 0; i < r->threads.n; i++)
		empty += r->threads.items[i].n_frames == 0;
	assert_int_equal(empty, 14);
	assert_int_equal(all_frames(r), 12 + 2 + 2 + 65);

	/* Nothing from the logcat, open files or memory sections. */
	assert_int_equal(r->warnings.len, 1);
	assert_string_equal(r->warnings.items[0], "2 \"... N more\" lines leave out 24 frames in all, "
			    "the same as the last frames of the trace before each (the first at line "
			    "35, thread \"main: caused by java.lang.reflect.InvocationTargetException\"): "
			    "they are not shown");
	got_release(&g);
	free(text);
}

/* ---- hand-made fixtures ---- */

static void test_anrwatchdog_studio_logcat_paste(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	size_t len;
	char *text;
	const hg_report *r = read_fixture(&g, fixtures[2], &text, &len);
	assert_int_equal(r->kind, HG_KIND_ANR);
	assert_int_equal(r->cost, 5000);
	assert_string_equal(r->process, "com.example.reader");
	assert_int_equal(r->threads.n, 3);
	assert_blamed(r, 0);
	const hg_thread *t = thread(r, 0, "main", 17);
	assert_string_equal(t->state, "BLOCKED");
	assert_frame(&t->frames[0], "com.example.reader.data.BookmarkStore", "get",
		     "BookmarkStore.java", 54, 1);
	assert_frame(&t->frames[16], "com.android.internal.os.ZygoteInit", "main", "ZygoteInit.java",
		     947, 1);
	t = thread(r, 1, "APP: sync-1", 9);
	assert_string_equal(t->state, "RUNNABLE");
	assert_frame(&t->frames[0], "libcore.io.Linux", "fsync", "Native Method", -1, 1);
	t = thread(r, 2, "APP: sync-2", 6);
	assert_string_equal(t->state, "WAITING");
	assert_frame(&t->frames[5], "java.util.concurrent.ThreadPoolExecutor", "runWorker",
		     "ThreadPoolExecutor.java", 1152, 1);
	assert_int_equal(r->warnings.len, 2);
	assert_string_equal(r->warnings.items[0], "\"... 2 more\" at line 41 (thread \"APP: sync-2\"): 2 "
			    "frames not shown, the same as the last frames of the trace before it");
	assert_string_equal(r->warnings.items[1], "skipped 3 lines that are neither a Java frame nor a "
			    "thread or exception header (the first at line 1: \"onResume: restoring "
			    "position of book 4411\")");
	got_release(&g);
	free(text);
}

static void test_plain_frames_without_header(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	size_t len;
	char *text;
	const hg_report *r = read_fixture(&g, fixtures[3], &text, &len);
	assert_int_equal(r->kind, HG_KIND_THREAD_DUMP);
	assert_int_equal(r->threads.n, 1);
	assert_blamed(r, 0);
	const hg_thread *t = thread(r, 0, "(unnamed)", 19);
	assert_null(t->state);
	assert_frame(&t->frames[0], "android.os.BinderProxy", "transactNative", "Native Method", -1, 1);
	assert_frame(&t->frames[2], "android.content.pm.IPackageManager$Stub$Proxy",
		     "getInstalledPackages", "IPackageManager.java", 5427, 1);
	assert_string_equal(t->frames[0].text, "at android.os.BinderProxy.transactNative(Native Method)");
	assert_int_equal(r->warnings.len, 0);

	/* Without "at " the same frames read alike. */
	r = read_good(&g, "android.os.BinderProxy.transactNative(Native Method)\n"
		      "android.os.BinderProxy.transact(BinderProxy.java:540)\n", HG_FORMAT_JAVA_STACK);
	t = thread(r, 0, "(unnamed)", 2);
	assert_frame(&t->frames[1], "android.os.BinderProxy", "transact", "BinderProxy.java", 540, 1);
	got_release(&g);
	free(text);
}

/* ---- inline variants ---- */

static void test_adb_logcat_prefixes(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	/* adb logcat -v threadtime: every line carries the prefix. */
	const hg_report *r = read_good(&g,
		"03-18 14:30:12.512  8123  8123 E AndroidRuntime: FATAL EXCEPTION: main\n"
		"03-18 14:30:12.512  8123  8123 E AndroidRuntime: Process: com.example.reader, PID: 8123\n"
		"03-18 14:30:12.512  8123  8123 E AndroidRuntime: java.lang.IllegalStateException: "
		"cannot save bookmarks\n"
		"03-18 14:30:12.512  8123  8123 E AndroidRuntime: \tat com.example.reader.data."
		"BookmarkStore.save(BookmarkStore.java:120)\n"
		"03-18 14:30:12.512  8123  8123 E AndroidRuntime: \tat android.os.Looper.loop"
		"(Looper.java:223)\n"
		"03-18 14:30:12.512  8123  8123 E AndroidRuntime: Caused by: java.io.IOException: "
		"No space left on device\n"
		"03-18 14:30:12.512  8123  8123 E AndroidRuntime: \tat libcore.io.IoBridge.write"
		"(IoBridge.java:545)\n"
		"03-18 14:30:12.512  8123  8123 E AndroidRuntime: \t... 2 more\n"
		"03-18 14:30:12.530  8123  8123 I Process : Sending signal. PID: 8123 SIG: 9\n",
		HG_FORMAT_JAVA_STACK);
	assert_int_equal(r->kind, HG_KIND_CRASH); /* FATAL EXCEPTION */
	assert_string_equal(r->process, "com.example.reader");
	assert_int_equal(r->threads.n, 2);
	assert_blamed(r, 0);
	const hg_thread *t = thread(r, 0, "main", 2);
	assert_frame(&t->frames[0], "com.example.reader.data.BookmarkStore", "save",
		     "BookmarkStore.java", 120, 1);
	t = thread(r, 1, "main: caused by java.io.IOException: No space left on device", 1);
	assert_frame(&t->frames[0], "libcore.io.IoBridge", "write", "IoBridge.java", 545, 1);
	assert_warning(r, "\"... 2 more\" at line 8 (thread \"main: caused by java.io.IOException: "
		       "No space left on device\"): 2 frames not shown");
	assert_warning(r, "skipped 1 line that is neither a Java frame nor a thread or exception "
		       "header (the first at line 9: \"Sending signal. PID: 8123 SIG: 9\")");

	/* The brief format, "E/Tag( pid): ". */
	r = read_good(&g, "E/AndroidRuntime( 8123): FATAL EXCEPTION: worker-2\n"
		      "E/AndroidRuntime( 8123): java.lang.NullPointerException\n"
		      "E/AndroidRuntime( 8123): \tat a.b.C.d(C.java:7)\n", HG_FORMAT_JAVA_STACK);
	t = thread(r, 0, "worker-2", 1);
	assert_blamed(r, 0);
	assert_int_equal(r->warnings.len, 0);
	got_release(&g);
}

static void test_art_and_jstack_headers_with_locks(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	const hg_report *r = read_good(&g,
		"\"Signal Catcher\" daemon prio=10 tid=4 Runnable\n"
		"  | group=\"system\" sCount=0 dsCount=0 flags=0 obj=0x12c40228 self=0x7b9a2c5000\n"
		"  | sysTid=8130 nice=0 cgrp=default sched=0/0 handle=0x7b91e4fd50\n"
		"  at dalvik.system.VMStack.getThreadStackTrace(Native method)\n"
		"\n"
		"\"main\" prio=5 tid=1 Blocked\n"
		"  | sysTid=8123 nice=-10 cgrp=default sched=0/0 handle=0x7c2e6b14f8\n"
		"  at com.example.reader.data.BookmarkStore.get(BookmarkStore.java:54)\n"
		"  - waiting to lock <0x0d3a2f0a> (a com.example.reader.data.BookmarkStore) held by thread 21\n"
		"  at android.os.Looper.loop(Looper.java:223)\n"
		"\n"
		"\"APP: sync-1\" prio=5 tid=21 Native\n"
		"  at libcore.io.Linux.fsync(Native method)\n"
		"  at com.example.reader.data.BookmarkStore.persist(BookmarkStore.java:112)\n"
		"  - locked <0x0d3a2f0a> (a com.example.reader.data.BookmarkStore)\n"
		"\n"
		"\"jstack-style\" #12 daemon prio=5 os_prio=0 cpu=1.20ms elapsed=3.21s "
		"tid=0x00007f3c2c0f6800 nid=0x1a2b waiting on condition  [0x00007f3bf2ffe000]\n"
		"   java.lang.Thread.State: TIMED_WAITING (sleeping)\n"
		"\tat java.lang.Thread.sleep(java.base@17.0.2/Native Method)\n"
		"\t- parking to wait for  <0x000000062a3bd2a8> (a java.util.concurrent.CountDownLatch$Sync)\n",
		HG_FORMAT_JAVA_STACK);
	assert_int_equal(r->threads.n, 4);
	assert_blamed(r, 1); /* "main", though not first */
	const hg_thread *t = thread(r, 0, "Signal Catcher", 1);
	assert_true(t->daemon);
	assert_int_equal(t->priority, 10);
	assert_int_equal(t->tid, 4);
	assert_int_equal(t->sys_tid, 8130);
	assert_string_equal(t->state, "Runnable");
	assert_frame(&t->frames[0], "dalvik.system.VMStack", "getThreadStackTrace", "Native method",
		     -1, 1);
	t = thread(r, 1, "main", 2);
	assert_false(t->daemon);
	assert_int_equal(t->tid, 1);
	assert_int_equal(t->sys_tid, 8123);
	assert_string_equal(t->state, "Blocked");
	assert_string_equal(t->waiting.addr, "0x0d3a2f0a");
	assert_string_equal(t->waiting.cls, "com.example.reader.data.BookmarkStore");
	assert_int_equal(t->waiting_held_by, 21);
	t = thread(r, 2, "APP: sync-1", 2);
	assert_int_equal(t->tid, 21);
	assert_int_equal(t->n_held, 1);
	assert_string_equal(t->held[0].addr, "0x0d3a2f0a");
	assert_string_equal(t->held[0].cls, "com.example.reader.data.BookmarkStore");
	assert_null(t->waiting.addr);
	t = thread(r, 3, "jstack-style", 1);
	assert_int_equal(t->tid, 12);
	assert_int_equal(t->sys_tid, 0x1a2b);
	assert_true(t->daemon);
	assert_string_equal(t->state, "TIMED_WAITING (sleeping)");
	assert_frame(&t->frames[0], "java.lang.Thread", "sleep", "java.base@17.0.2/Native Method", -1, 1);
	assert_int_equal(r->warnings.len, 0);

	/* Thread.toString() headers. */
	r = read_good(&g, "Thread[#21,worker-1,5,main]\n    at a.B.c(B.java:1)\n"
		      "Thread[main,5,main]:\n    at a.B.d(B.java:2)\n    at a.B.e(B.java:3)\n"
		      "Thread[3,tid=17956,WaitingInMainSignalCatcherLoop,Thread*=0x7fa064f400]: "
		      "reacting to signal 3\n", HG_FORMAT_JAVA_STACK);
	assert_int_equal(r->threads.n, 2);
	t = thread(r, 0, "worker-1", 1);
	assert_int_equal(t->tid, 21);
	assert_int_equal(t->priority, 5);
	t = thread(r, 1, "main", 2);
	assert_int_equal(t->tid, -1);
	assert_blamed(r, 1);
	assert_warning(r, "skipped 1 line that is neither a Java frame nor a thread or exception header "
		       "(the first at line 6: \"Thread[3,tid=17956,WaitingInMainSignalCatcherLoop,");

	/* A lock address that is not one word (NULs, spaces: found by
	 * fuzz_javastack) is no lock edge, as in the ANR reader. */
	static const char odd_locks[] = "\"main\" prio=5 tid=1 Blocked\n  at a.B.c(B.java:1)\n"
					"  - waiting to lock <\0\0 0x1> (a a.B) held by thread 2\n"
					"  - locked < 0x2 > (a a.B)\n  - locked <> (a a.B)\n";
	assert_int_equal(read_as(&g, odd_locks, sizeof odd_locks - 1, HG_FORMAT_JAVA_STACK), 0);
	t = thread(g.rep, 0, "main", 1);
	assert_null(t->waiting.addr);
	assert_int_equal(t->n_held, 0);
	assert_int_equal(t->n_locks, 0);
	got_release(&g);
}

static void test_exception_chains(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	/* No thread named: "(unnamed)"; Suppressed and Caused by each apart. */
	const hg_report *r = read_good(&g,
		"java.lang.RuntimeException: boom\n"
		"\tat a.B.c(B.java:1)\n"
		"\tat a.B.main(B.java:9)\n"
		"\tSuppressed: java.io.IOException: close failed\n"
		"\t\tat a.B.close(B.java:5)\n"
		"\t\t... 1 more\n"
		"Caused by: java.lang.NullPointerException\n"
		"\tat a.B.d(B.java:2)\n"
		"\t... 1 more\n", HG_FORMAT_JAVA_STACK);
	assert_int_equal(r->threads.n, 3);
	assert_blamed(r, 0);
	thread(r, 0, "(unnamed)", 2);
	thread(r, 1, "(unnamed): suppressed java.io.IOException: close failed", 1);
	thread(r, 2, "(unnamed): caused by java.lang.NullPointerException", 1);
	assert_warning(r, "2 \"... N more\" lines leave out 2 frames in all");

	/* Exception in thread "x"; ANR-WatchDog 1.4's message gives the cost;
	 * an ANRError$$$_Thread without state; a cause with no frames. */
	r = read_good(&g,
		"Exception in thread \"pool-1-thread-1\" java.lang.Error: oops\n"
		"\tat a.B.c(B.java:1)\n"
		"com.github.anrwatchdog.ANRError: Application Not Responding for at least 7000 ms.\n"
		"Caused by: com.github.anrwatchdog.ANRError$$$_Thread: main\n"
		"\tat a.B.m(B.java:3)\n"
		"Caused by: java.lang.IllegalStateException: no frames\n"
		"\t... 4 more\n", HG_FORMAT_JAVA_STACK);
	assert_int_equal(r->kind, HG_KIND_ANR);
	assert_int_equal(r->cost, 7000);
	assert_int_equal(r->threads.n, 2);
	thread(r, 0, "pool-1-thread-1", 1);
	const hg_thread *t = thread(r, 1, "main", 1);
	assert_null(t->state);
	assert_blamed(r, 1);
	assert_warning(r, "\"... 4 more\" at line 7 (thread \"main: caused by "
		       "java.lang.IllegalStateException: no frames\")");
	got_release(&g);
}

static void test_no_frames_and_skipped_lines(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	static const struct bad_case cases[] = {
		{"hello\nworld\n", "no Java frame found (expected lines like \"at "
		 "a.b.C.m(C.java:12)\"); the first line is \"hello\"", 1},
		/* Thread headers without frames are still no frames. */
		{"pid: 1, tid: 1, name: main  >>> x <<<\n\njava stacktrace:\n\n",
		 "no Java frame found", 1},
		{"\"main\" prio=5 tid=1 Runnable\n  | sysTid=12\n", "no Java frame found", 1},
	};
	read_bad_cases(&g, cases, sizeof cases / sizeof *cases);
	/* Detected by its "at " lines, but none is a frame. */
	assert_int_equal(read_as(&g, "\n\nat the end of the day\nat last\n", 26, HG_FORMAT_AUTO), 1);
	assert_int_equal(g.rep->format, HG_FORMAT_AUTO);
	assert_non_null(strstr(g.rep->error, "no Java frame found"));
	assert_int_equal(g.diag_line, 3);

	const hg_report *r = read_good(&g, "at a.B.c(B.java:1)\n&&& noise &&&\nat a.B.d(B.java:2)\n"
				       "at a.B.e(B.java:3) ~[app.jar:1.0]\nmore noise\n",
				       HG_FORMAT_JAVA_STACK);
	thread(r, 0, "(unnamed)", 2);
	assert_int_equal(r->warnings.len, 1);
	assert_string_equal(r->warnings.items[0], "skipped 3 lines that are neither a Java frame nor a "
			    "thread or exception header (the first at line 2: \"&&& noise &&&\")");
	got_release(&g);
}

static void test_empty_thread_names(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	/* Found by fuzz_javastack: a header naming no thread gives "(unnamed)". */
	const hg_report *r = read_good(&g, "\"\" prio=5 tid=3 Runnable\n\tat a.B.c(B.java:1)\n"
				       "pid: 1, tid: 2, name:   >>> x <<<\n\tat a.B.d(B.java:2)\n"
				       "Thread[,5,main]\n\tat a.B.e(B.java:3)\n"
				       "Caused by: x.ANRError$$$_Thread: \n\tat a.B.f(B.java:4)\n",
				       HG_FORMAT_JAVA_STACK);
	assert_int_equal(r->threads.n, 4);
	for (size_t i = 0; i < 4; i++)
		thread(r, i, "(unnamed)", 1);
	assert_int_equal(r->threads.items[0].tid, 3);
	assert_int_equal(r->threads.items[1].sys_tid, 2);
	assert_int_equal(r->threads.items[2].priority, 5);
	assert_blamed(r, 0);
	got_release(&g);
}

static void test_frame_cap(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	g.ctx.limits.max_stack_lines = 2;
	read_bad(&g, "at a.B.c(B.java:1)\nat a.B.d(B.java:2)\nat a.B.e(B.java:3)\n",
		 "more than 2 frames (see --max-stack-lines)", 3);
	got_release(&g);
}

/* ---- damaged inputs ---- */

static void test_every_37th_truncation(void **state)
{
	(void)state;
	static const enum hg_input_format formats[] = {HG_FORMAT_JAVA_STACK};
	read_truncations(fixtures, sizeof fixtures / sizeof *fixtures, 37, formats,
			 sizeof formats / sizeof *formats);
}

static void test_2000_mutations(void **state)
{
	(void)state;
	read_mutations(fixtures, sizeof fixtures / sizeof *fixtures, 2000);
}

static void test_10000_frame_dump(void **state)
{
	(void)state;
	enum { FRAMES = 10000 };
	size_t cap = (size_t)FRAMES * 80 + 4096, n = 0;
	char *text = malloc(cap);
	assert_non_null(text);
	n += (size_t)snprintf(text + n, cap - n, "FATAL EXCEPTION: main\njava.lang.StackOverflowError: "
			      "stack size 8MB\n");
	for (int i = 0; i < FRAMES; i++)
		n += (size_t)snprintf(text + n, cap - n, "\tat com.example.deep.Recursion.step%d"
				      "(Recursion.java:%d)\n", i, i + 1);
	struct got g;
	got_init(&g);
	read_within(&g, text, n, 5.0);
	assert_int_equal(g.rep->format, HG_FORMAT_JAVA_STACK);
	const hg_thread *t = thread(g.rep, 0, "main", FRAMES);
	assert_frame(&t->frames[FRAMES - 1], "com.example.deep.Recursion", "step9999",
		     "Recursion.java", 10000, 1);
	assert_frame(&t->frames[0], "com.example.deep.Recursion", "step0", "Recursion.java", 1, 1);
	/* Past the first frames, repeated names are one shared copy. */
	assert_ptr_equal(t->frames[FRAMES - 1].cls, t->frames[FRAMES - 2].cls);
	assert_ptr_equal(t->frames[FRAMES - 1].file, t->frames[FRAMES - 2].file);
	assert_ptr_not_equal(t->frames[0].cls, t->frames[1].cls);
	got_release(&g);
	free(text);
}

/* ---- Matrix's threadStack ---- */

/* content.threadStack of testdata/matrix-mangatoon/reports.ndjson line 17
 * (a LAG report: WebView creation for an ad SDK on the main thread). */
static const char mangatoon_thread_stack[] =
	"org.chromium.android_webview.AwContents.J(Unknown Source:164)\n"
	"org.chromium.android_webview.AwContents.I(Unknown Source:10)\n"
	"org.chromium.android_webview.AwContents.<init>(Unknown Source:326)\n"
	"Nz0.run(Unknown Source:63)\n"
	"MB0.b(Unknown Source:21)\n"
	"KB0.run(Unknown Source:2)\n"
	"org.chromium.base.task.PostTask.c(Unknown Source:16)\n"
	"MB0.a(Unknown Source:20)\n"
	"com.android.webview.chromium.WebViewChromium.init(Unknown Source:328)\n"
	"android.webkit.WebView.<init>(WebView.java:432)\n"
	"android.webkit.WebView.<init>(WebView.java:353)\n"
	"android.webkit.WebView.<init>(WebView.java:336)\n"
	"android.webkit.WebView.<init>(WebView.java:323)\n"
	"android.webkit.WebView.<init>(WebView.java:313)\n"
	"com.google.android.gms.ads.internal.webview.ac.<init>(:"
		"com.google.android.gms.policy_ads_fdr_dynamite@213806100@213806100057.397311113.397311113:1)\n"
	"com.google.android.gms.ads.internal.webview.s.a(:"
		"com.google.android.gms.policy_ads_fdr_dynamite@213806100@213806100057.397311113.397311113:4)\n"
	"com.google.android.gms.ads.internal.webview.v.a(:"
		"com.google.android.gms.policy_ads_fdr_dynamite@213806100@213806100057.397311113.397311113:5)\n"
	"com.google.android.gms.ads.internal.js.l.<init>(:"
		"com.google.android.gms.policy_ads_fdr_dynamite@213806100@213806100057.397311113.397311113:3)\n"
	"com.google.android.gms.ads.internal.js.r.run(:"
		"com.google.android.gms.policy_ads_fdr_dynamite@213806100@213806100057.397311113.397311113:2)\n"
	"com.google.android.gms.ads.internal.util.future.c.execute(:"
		"com.google.android.gms.policy_ads_fdr_dynamite@213806100@213806100057.397311113.397311113:2)\n"
	"com.google.android.gms.ads.internal.util.future.d.execute(:"
		"com.google.android.gms.policy_ads_fdr_dynamite@213806100@213806100057.397311113.397311113:0)\n"
	"com.google.android.gms.ads.internal.js.ai.b(:"
		"com.google.android.gms.policy_ads_fdr_dynamite@213806100@213806100057.397311113.397311113:3)\n"
	"com.google.android.gms.ads.internal.js.ai.a(:"
		"com.google.android.gms.policy_ads_fdr_dynamite@213806100@213806100057.397311113.397311113:5)\n"
	"com.google.android.gms.ads.internal.js.function.n.b(:"
		"com.google.android.gms.policy_ads_fdr_dynamite@213806100@213806100057.397311113.397311113:0)\n"
	"com.google.android.gms.ads.internal.e.b(:"
		"com.google.android.gms.policy_ads_fdr_dynamite@213806100@213806100057.397311113.397311113:19)\n"
	"com.google.android.gms.ads.internal.e.a(:"
		"com.google.android.gms.policy_ads_fdr_dynamite@213806100@213806100057.397311113.397311113:0)\n"
	"com.google.android.gms.ads.nonagon.au.h(:"
		"com.google.android.gms.policy_ads_fdr_dynamite@213806100@213806100057.397311113.397311113:8)\n"
	"com.google.android.gms.ads.internal.client.br.bJ(:"
		"com.google.android.gms.policy_ads_fdr_dynamite@213806100@213806100057.397311113.397311113:23)\n"
	"zg.onTransact(:"
		"com.google.android.gms.policy_ads_fdr_dynamite@213806100@213806100057.397311113.397311113:4)\n"
	"android.os.Binder.transact(Binder.java:914)\n"
	"com.google.android.gms.internal.ads.zzhs.w(com.google.android.gms:play-services-ads-base@@20.3.0:2)\n"
	"com.google.android.gms.internal.ads.zzbgg.zzj(com.google.android.gms:play-services-ads-lite@@20.3.0:4)\n"
	"com.google.android.gms.internal.ads.zzbhv.zzb(com.google.android.gms:play-services-ads-lite@@20.3.0:12)\n"
	"com.google.android.gms.ads.MobileAds.initialize(com.google.android.gms:play-services-ads-lite@@20.3.0:3)\n"
	"p.a.a.q.c.b(AdmobAdSupplier.java:14)\n"
	"p.a.a.d.z(AdModule.java:3)\n"
	"p.a.a.d.P(AdModule.java:3)\n"
	"p.a.a.d.O(AdModule.java:11)\n"
	"p.a.a.d.N(AdModule.java:1)\n"
	"p.a.a.d.M(AdModule.java:1)\n"
	"mobi.mangatoon.module.dialognovel.DialogNovelReaderActivity.L1(DialogNovelReaderActivity.java:7)\n"
	"mobi.mangatoon.module.dialognovel.DialogNovelReaderActivity.l1(DialogNovelReaderActivity.java:2)\n"
	"mobi.mangatoon.module.dialognovel.DialogNovelReaderActivity.m1(Unknown Source:0)\n"
	"p.a.o.v.q0.onComplete(Unknown Source:4)\n"
	"p.a.o.v.o1.o$a$a.c(FictionAction.java:1)\n"
	"p.a.o.v.o1.b.run(Unknown Source:8)\n"
	"android.os.Handler.handleCallback(Handler.java:883)\n"
	"android.os.Handler.dispatchMessage(Handler.java:100)\n"
	"android.os.Looper.loop(Looper.java:214)\n"
	"android.app.ActivityThread.main(ActivityThread.java:7397)\n"
	"java.lang.reflect.Method.invoke(Native Method)\n"
	"com.android.internal.os.RuntimeInit$MethodAndArgsCaller.run(RuntimeInit.java:492)\n"
	"com.android.internal.os.ZygoteInit.main(ZygoteInit.java:935)\n"
	;

/* Line 101 (an ANR report): the other form Matrix writes, Utils.getStack()'s
 * "at class:method(line)", after a line holding one space. */
static const char mangatoon_anr_thread_stack[] =
	" \n"
	" \n"
	"at java.lang.ThreadLocal$ThreadLocalMap:-wrap0(0)\n"
	"at java.lang.ThreadLocal:get(163)\n"
	"at com.alibaba.fastjson.serializer.SerializeWriter:<init>(14)\n"
	"at com.alibaba.fastjson.JSON:toJSONString(17)\n"
	"at com.alibaba.fastjson.JSON:toJSONString(1)\n"
	"at p.a.o.q.n:l(4)\n"
	"at p.a.o.q.b:a(0)\n"
	"at p.a.c.h.l:i(10)\n"
	"at p.a.c.h.l:h(1)\n"
	"at p.a.c.h.l:a(2)\n"
	"at com.weex.app.WXApplication:onForegroundBackgroundSwitch(2)\n"
	"at java.lang.reflect.Method:invoke(-2)\n"
	"at s.c.a.c:h(1)\n"
	"at s.c.a.c:p(11)\n"
	"at s.c.a.c:n(8)\n"
	"at s.c.a.c:m(6)\n"
	"at s.c.a.c:l(9)\n"
	"at p.a.c.e0.h1$a:onActivityStopped(2)\n"
	"at android.app.Application:dispatchActivityStopped(234)\n"
	"at android.app.Activity:onStop(1867)\n"
	"at android.app.Instrumentation:callActivityOnStop(1397)\n"
	"at android.app.Activity:performStop(7214)\n"
	"at android.app.ActivityThread:performStopActivityInner(4136)\n"
	"at android.app.ActivityThread:handleStopActivity(4188)\n"
	"at android.app.ActivityThread:-wrap25(0)\n"
	"at android.app.ActivityThread$H:handleMessage(1670)\n"
	"at android.os.Handler:dispatchMessage(106)\n"
	"at android.os.Looper:loop(164)\n"
	"at android.app.ActivityThread:main(6647)\n"
	;

static void test_thread_from_matrix_thread_stack(void **state)
{
	(void)state;
	hg_report *rep = report_new("reports.ndjson", 17, 17);
	assert_non_null(rep);
	struct read_error err;
	assert_int_equal(report_thread_from_frames(rep, "main", mangatoon_thread_stack,
						   strlen(mangatoon_thread_stack), &err), 0);
	assert_int_equal(rep->threads.n, 1);
	assert_blamed(rep, 0);
	const hg_thread *t = thread(rep, 0, "main", 53);
	assert_frame(&t->frames[0], "org.chromium.android_webview.AwContents", "J", "Unknown Source",
		     164, 1);
	assert_frame(&t->frames[3], "Nz0", "run", "Unknown Source", 63, 1);
	assert_frame(&t->frames[14], "com.google.android.gms.ads.internal.webview.ac", "<init>",
		     ":com.google.android.gms.policy_ads_fdr_dynamite@213806100@213806100057."
		     "397311113.397311113", 1, 1);
	assert_frame(&t->frames[30], "com.google.android.gms.internal.ads.zzhs", "w",
		     "com.google.android.gms:play-services-ads-base@@20.3.0", 2, 1);
	assert_frame(&t->frames[44], "p.a.o.v.o1.o$a$a", "c", "FictionAction.java", 1, 1);
	assert_frame(&t->frames[52], "com.android.internal.os.ZygoteInit", "main", "ZygoteInit.java",
		     935, 1);
	assert_int_equal(rep->warnings.len, 0);

	/* The getStack() form; a second threadStack takes the blame. */
	assert_int_equal(report_thread_from_frames(rep, "main", mangatoon_anr_thread_stack,
						   strlen(mangatoon_anr_thread_stack), &err), 0);
	t = thread(rep, 1, "main", 29);
	assert_int_equal(rep->threads.blamed, 1);
	assert_int_equal(rep->threads.items[0].flags, HG_THREAD_MAIN); /* no longer blamed */
	assert_int_equal(rep->threads.items[1].flags, HG_THREAD_MAIN | HG_THREAD_BLAMED);
	assert_frame(&t->frames[0], "java.lang.ThreadLocal$ThreadLocalMap", "-wrap0", NULL, 0, 1);
	assert_string_equal(t->frames[0].text, "at java.lang.ThreadLocal$ThreadLocalMap:-wrap0(0)");
	assert_frame(&t->frames[2], "com.alibaba.fastjson.serializer.SerializeWriter", "<init>", NULL,
		     14, 1);
	assert_frame(&t->frames[11], "java.lang.reflect.Method", "invoke", "Native Method", -1, 1);
	assert_frame(&t->frames[28], "android.app.ActivityThread", "main", NULL, 6647, 1);
	assert_int_equal(rep->warnings.len, 0);

	/* Another takes the blame; lines that are no frame are
	 * counted, not kept. */
	static const char mixed[] = "a.B.c(B.java:1)\r\n\r\n<native>\r\nnot a frame\r\n"
				    "a.B.d(B.java:2)";
	assert_int_equal(report_thread_from_frames(rep, "main", mixed, sizeof mixed - 1, &err), 0);
	assert_int_equal(rep->threads.n, 3);
	assert_int_equal(rep->threads.blamed, 2);
	assert_int_equal(rep->threads.items[0].flags & HG_THREAD_BLAMED, 0);
	assert_int_equal(rep->threads.items[1].flags & HG_THREAD_BLAMED, 0);
	assert_int_equal(rep->threads.items[2].flags, HG_THREAD_MAIN | HG_THREAD_BLAMED);
	t = thread(rep, 2, "main", 2);
	assert_frame(&t->frames[1], "a.B", "d", "B.java", 2, 1);
	assert_int_equal(rep->warnings.len, 1);
	assert_string_equal(rep->warnings.items[0], "threadStack: 2 lines are not a Java frame, left "
			    "out (the first, line 3: \"<native>\")");

	/* No frame at all: an error, and no thread added. */
	assert_int_equal(report_thread_from_frames(rep, "main", "", 0, &err), HG_EPARSE);
	assert_string_equal(err.msg, "threadStack: no Java frame found (it is empty)");
	assert_int_equal(report_thread_from_frames(rep, "main", "\n<unknown>\n", 11, &err), HG_EPARSE);
	assert_string_equal(err.msg, "threadStack: no Java frame found (the first line is "
			    "\"<unknown>\")");
	assert_int_equal(rep->threads.n, 3);
	assert_int_equal(rep->threads.blamed, 2);
	hg_report_destroy(rep);
}

/* Crash time is the report's time, whatever its place; without it, Start
 * time. */
static void test_xcrash_start_time(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	size_t len;
	char *text = load(fixtures[1], &len);
	char *crash = strstr(text, "Crash time:");
	assert_non_null(crash);
	crash[0] = 'X'; /* "Xrash time:" is a figure, not the time */
	assert_int_equal(read_as(&g, text, len, HG_FORMAT_AUTO), 0);
	assert_string_equal(g.rep->time_written, "2019-10-12T03:23:19.580+0800");
	assert_string_equal(g.rep->time, "2019-10-11T19:23:19.580Z");
	free(text);
	got_release(&g);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_anr_watchdog_readme),
		cmocka_unit_test(test_xcrash_java_crash_all_threads),
		cmocka_unit_test(test_xcrash_start_time),
		cmocka_unit_test(test_anrwatchdog_studio_logcat_paste),
		cmocka_unit_test(test_plain_frames_without_header),
		cmocka_unit_test(test_adb_logcat_prefixes),
		cmocka_unit_test(test_art_and_jstack_headers_with_locks),
		cmocka_unit_test(test_exception_chains),
		cmocka_unit_test(test_no_frames_and_skipped_lines),
		cmocka_unit_test(test_empty_thread_names),
		cmocka_unit_test(test_frame_cap),
		cmocka_unit_test(test_every_37th_truncation),
		cmocka_unit_test(test_2000_mutations),
		cmocka_unit_test(test_10000_frame_dump),
		cmocka_unit_test(test_thread_from_matrix_thread_stack),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
