/* Unit tests for Android ANR traces: every dump in testdata/anr/ (real
 * ones from the corpus and two hand-made: a deadlock and an idle main
 * thread) read with its main thread, states, frames, sysTids, locks and
 * the analysis, and its kind (an ANR only with an ANR's Subject or
 * xCrash's 'anr'); native frames read exactly; Subjects; several process
 * sections, one report each; Waiting Channels only; garbage in the
 * middle; inputs that are no dump; truncation at every 97th byte; and
 * 2000 seeded mutations.  What a Subject says (scene, wait) and the
 * busy/blocked finding: test_anr_subject.c.  argv[1] is the testdata/
 * folder. */
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
#include "hangar/report.h"

static const char *testdata = "testdata";

/* ---- reading ---- */

struct run {
	hg_ctx ctx;
	hg_report *rep;     /* the first report delivered */
	size_t delivered;
	bool many;          /* several reports may come (a split file) */
	size_t diags;
	char diag[512];     /* the first diagnostic */
	long diag_line, diag_col;
};

static void on_diag(void *user, const hg_diag *d)
{
	struct run *r = user;
	if (r->diags++ == 0) {
		snprintf(r->diag, sizeof r->diag, "%s", d->message);
		r->diag_line = d->line;
		r->diag_col = d->col;
	}
}

static void check_invariants(const hg_report *rep);

static int on_report(void *user, hg_report *rep)
{
	struct run *r = user;
	if (r->many)
		check_invariants(rep);
	if (r->delivered++ == 0)
		r->rep = rep;
	else
		hg_report_destroy(rep);
	return 0;
}

static void run_release(struct run *r)
{
	hg_report_destroy(r->rep);
	memset(r, 0, sizeof *r);
}

/* Reads text[0..len) (NUL-terminated at len) as `format`; one report,
 * or (many) at least one, each checked. */
static int read_some(struct run *r, const char *text, size_t len, enum hg_input_format format,
		     bool many)
{
	memset(r, 0, sizeof *r);
	hg_ctx_init(&r->ctx);
	r->ctx.diag = on_diag;
	r->ctx.diag_user = r;
	r->many = many;
	int rc = hg_reports_read_as(&r->ctx, "anr.txt", text, len, format, on_report, r);
	assert_true(rc >= 0);
	if (many)
		assert_true(r->delivered >= 1);
	else
		assert_int_equal(r->delivered, 1);
	return rc;
}

static int read_as(struct run *r, const char *text, size_t len, enum hg_input_format format)
{
	return read_some(r, text, len, format, false);
}

static char *load(const char *name, size_t *len)
{
	char path[512];
	snprintf(path, sizeof path, "%s/anr/%s", testdata, name);
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	char *data = NULL;
	if (hg_input_read(&ctx, path, &data, len) != 0)
		fail_msg("cannot read %s", path);
	/* A copy on the heap: GCC's -Wdangling-pointer at -O3 cannot tell that
	 * hg_input_read stores a new buffer, not &data, and flags writes into it. */
	char *copy = malloc(*len + 1);
	assert_non_null(copy);
	memcpy(copy, data, *len + 1);
	free(data);
	return copy;
}

/* Reads a file of testdata/anr/ (format detected unless `forced`); the
 * report must be read. */
static const hg_report *read_file(struct run *r, const char *name, bool forced)
{
	size_t len;
	char *data = load(name, &len);
	int rc = read_as(r, data, len, forced ? HG_FORMAT_ANR_TRACES : HG_FORMAT_AUTO);
	free(data);
	if (rc != 0 || r->rep->error)
		fail_msg("%s: %s", name, r->rep->error ? r->rep->error : r->diag);
	assert_int_equal(r->rep->format, HG_FORMAT_ANR_TRACES);
	return r->rep;
}

static const hg_report *read_string(struct run *r, const char *text)
{
	int rc = read_as(r, text, strlen(text), HG_FORMAT_ANR_TRACES);
	if (rc != 0 || r->rep->error)
		fail_msg("unexpected error: %s", r->rep->error ? r->rep->error : r->diag);
	return r->rep;
}

/* ---- checks ---- */

static void assert_contains(const char *s, const char *needle)
{
	assert_non_null(s);
	if (!strstr(s, needle))
		fail_msg("\"%s\" does not contain \"%s\"", s, needle);
}

static long find_thread(const hg_report *rep, const char *name)
{
	for (size_t i = 0; i < rep->threads.n; i++)
		if (strcmp(rep->threads.items[i].name, name) == 0)
			return (long)i;
	fail_msg("no thread \"%s\"", name);
	return -1;
}

static const char *meta(const hg_report *rep, const char *key)
{
	for (size_t i = 0; i < rep->meta_len; i++)
		if (strcmp(rep->meta[i].key, key) == 0)
			return rep->meta[i].json;
	return NULL;
}

static bool has_warning(const hg_report *rep, const char *needle)
{
	for (size_t i = 0; i < rep->warnings.len; i++)
		if (strstr(rep->warnings.items[i], needle))
			return true;
	return false;
}

static void assert_native(const hg_frame *f, uint64_t pc, const char *image, const char *symbol,
			  const char *method, long offset)
{
	assert_int_equal(f->kind, HG_FRAME_NATIVE);
	assert_true(f->has_pc);
	if (f->pc != pc)
		fail_msg("pc %#llx, expected %#llx", (unsigned long long)f->pc, (unsigned long long)pc);
	if (image)
		assert_string_equal(f->image, image);
	else
		assert_null(f->image);
	if (symbol) {
		assert_string_equal(f->symbol, symbol);
		assert_string_equal(f->method, method);
	} else {
		assert_null(f->symbol);
		assert_null(f->method);
	}
	assert_int_equal(f->has_offset, offset >= 0);
	if (offset >= 0)
		assert_int_equal(f->offset, offset);
	assert_null(f->cls);
}

static void assert_java(const hg_frame *f, const char *cls, const char *method, const char *file,
			long line)
{
	assert_int_equal(f->kind, HG_FRAME_JAVA);
	assert_string_equal(f->cls, cls);
	assert_string_equal(f->method, method);
	if (file)
		assert_string_equal(f->file, file);
	else
		assert_null(f->file);
	assert_int_equal(f->line, line);
}

/* What must hold for any report the reader returns, whatever the input. */
static void check_invariants(const hg_report *rep)
{
	for (size_t i = 0; i < rep->warnings.len; i++)
		assert_true(rep->warnings.items[i] && rep->warnings.items[i][0]);
	if (rep->error) {
		assert_true(rep->error[0] != '\0');
		return;
	}
	/* an ANR says so (and says its type only then); any other dump is a thread dump */
	assert_true(rep->kind == HG_KIND_ANR || rep->kind == HG_KIND_THREAD_DUMP);
	if (rep->kind == HG_KIND_THREAD_DUMP)
		assert_true(!rep->anr_type && !rep->scene && rep->cost == 0);
	assert_string_equal(rep->platform, "android");
	const hg_threads *ts = &rep->threads;
	assert_true(ts->blamed >= -1 && ts->blamed < (long)ts->n);
	size_t mains = 0;
	for (size_t i = 0; i < ts->n; i++) {
		const hg_thread *t = &ts->items[i];
		assert_non_null(t->name);
		mains += (t->flags & HG_THREAD_MAIN) != 0;
		if (t->flags & HG_THREAD_MAIN)
			assert_int_equal((long)i, ts->blamed);
		for (size_t k = 0; k < t->n_frames; k++) {
			const hg_frame *f = &t->frames[k];
			assert_non_null(f->text);
			if (f->kind == HG_FRAME_JAVA)
				assert_true(f->cls && f->method && f->cls[0] && f->method[0]);
			else
				assert_true(f->has_pc && (!f->has_offset || f->symbol));
		}
		for (size_t k = 0; k < t->n_held; k++)
			assert_true(t->held[k].addr && t->held[k].addr[0]);
		if (t->waiting.addr)
			assert_true(t->waiting.addr[0] != '\0');
	}
	assert_true(mains == (ts->blamed >= 0));
	for (size_t k = 0; k < ts->n_chain; k++) {
		assert_true(ts->chain[k] < ts->n && (long)ts->chain[k] != ts->blamed);
		assert_true(ts->items[ts->chain[k]].flags & HG_THREAD_BLOCKS_MAIN);
		for (size_t j = 0; j < k; j++)
			assert_true(ts->chain[j] != ts->chain[k]);
	}
	for (size_t c = 0; c < ts->n_cycles; c++) {
		const hg_lock_cycle *cy = &ts->cycles[c];
		assert_true(cy->n >= 2 && cy->n <= ts->n);
		for (size_t k = 0; k < cy->n; k++) {
			assert_true(cy->threads[k] < ts->n);
			assert_ptr_equal(cy->locks[k], &ts->items[cy->threads[k]].waiting);
			assert_true(ts->items[cy->threads[k]].flags & HG_THREAD_DEADLOCKED);
		}
	}
	for (size_t i = 0; i < rep->meta_len; i++)
		assert_true(rep->meta[i].key && rep->meta[i].json && rep->meta[i].text);
}

/* ---- every file of testdata/anr/ ---- */

static const struct expect {
	const char *file;
	size_t threads;
	long main;              /* index of the main thread */
	const char *main_name, *state;
	long sys_tid;
	size_t main_frames;
	const char *first_frame; /* the main thread's first frame, as written */
	const char *process, *anr_type;
	size_t chain;            /* threads blocking main */
	size_t warnings;
	bool anr;                /* an ANR (its Subject, xCrash's 'anr'), else a thread dump */
	int64_t cost;            /* the wait its Subject (or "Timeout:") says */
} expected[] = {
	{"android11-x86-emu-appexit-main-native-with-injected-notes.txt", 20, 1, "main", "Native",
	 9207, 36, "native: #00 pc 00000b97  [vdso] (__kernel_vsyscall+7)", "backtraceio.backtraceio",
	 NULL, 0, 1,
	 false, 0},
	{"android12-emu-appexit-broadcast-receiver-sleeping.txt", 17, 1, "main", "Sleeping", 12161,
	 15, "at java.lang.Thread.sleep(Native method)", "com.droidcon.fix.anrs", NULL, 0, 0,
	 false, 0},
	{"android13-emu-appexit-main-sleeping.txt", 26, 2, "main", "Sleeping", 11442, 18,
	 "at java.lang.Thread.sleep(Native method)", "com.example.bugsnag.android", NULL, 0, 0,
	 false, 0},
	{"android13-emu-main-blocked-held-by-thread.txt", 30, 1, "main", "Blocked", 28941, 9,
	 "at io.sentry.samples.android.MainActivity$2.run(MainActivity.java:177)",
	 "io.sentry.samples.android", NULL, 1, 0,
	 false, 0},
	{"android13-emu-native-only-waiting-channels.txt", 57, 0, "samples.android", NULL, 9955, 179,
	 "#00 pc 000000000004c35c  /apex/com.android.runtime/lib64/bionic/libc.so (syscall+28) "
	 "(BuildId: ba489d4985c0cf173209da67405662f9)", "io.sentry.samples.android", NULL, 0, 0,
	 false, 0},
	{"android14-emu-appexit-input-dispatching-main-runnable-ondraw.txt", 47, 0, "main", "Runnable",
	 10348, 53, "at android.graphics.Paint.getNativeInstance(Paint.java:743)",
	 "com.datadog.android.sample", "input dispatching", 0, 1,
	 true, 5000},
	{"android17-preview-emu-appexit-broadcast-r8-obfuscated.txt", 43, 0, "main", "Sleeping", 12894,
	 16, "at java.lang.Thread.sleep(Native method)", "sh.frankenstein.android", "broadcast", 0, 0,
	 true, 10003},
	{"measure-r8-anr-trimmed-obfuscated.txt", 42, 0, "main", "Blocked", -1, 9,
	 "at bl.q0.run(r8-map-id-395c38ad35850b08fce2fc89e55363d510544d93c2dfa3e409521ade64f67e97:8)",
	 NULL, NULL, 1, 0,
	 false, 0},
	{"measure-r8-app-exit-input-dispatching-main-blocked.txt", 42, 0, "main", "Blocked", 4941, 9,
	 "at bl.q0.run(r8-map-id-395c38ad35850b08fce2fc89e55363d510544d93c2dfa3e409521ade64f67e97:8)",
	 "sh.frankenstein.android", "input dispatching", 1, 1,
	 true, 5002},
	{"xcrash-android10-pixel-arm64-anr-tombstone.txt", 35, 1, "main", "Sleeping", 21533, 17,
	 "at java.lang.Thread.sleep(Native method)", "xcrash.sample", NULL, 0, 0,
	 true, 0},
	{"xcrash-android10-pixel-armv7-anr-tombstone.txt", 35, 1, "main", "Sleeping", 22012, 17,
	 "at java.lang.Thread.sleep(Native method)", "xcrash.sample", NULL, 0, 0,
	 true, 0},
	{"handmade-deadlock-main-and-worker.txt", 6, 1, "main", "Blocked", 8123, 15,
	 "at com.example.shop.cart.CartRepository.snapshot(CartRepository.kt:88)", "com.example.shop",
	 "input dispatching", 1, 1,
	 true, 5001},
	{"handmade-idle-main-nativepollonce-service.txt", 4, 0, "main", "Native", 15502, 11,
	 "native: #00 pc 00000000000a33b8  /apex/com.android.runtime/lib64/bionic/libc.so "
	 "(__epoll_pwait+8) (BuildId: 2a2e6b1d0f1a5b2f5d8c1a7e3b9c4d6e)", "com.example.player",
	 "service", 0, 1,
	 true, 0},
};

static void test_every_file(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof expected / sizeof *expected; i++) {
		const struct expect *e = &expected[i];
		struct run r;
		const hg_report *rep = read_file(&r, e->file, false);
		check_invariants(rep);
		if (rep->threads.n != e->threads)
			fail_msg("%s: %zu threads, expected %zu", e->file, rep->threads.n, e->threads);
		assert_int_equal(rep->threads.blamed, e->main);
		const hg_thread *m = &rep->threads.items[e->main];
		assert_string_equal(m->name, e->main_name);
		assert_int_equal(m->flags & (HG_THREAD_MAIN | HG_THREAD_BLAMED),
				 HG_THREAD_MAIN | HG_THREAD_BLAMED);
		if (e->state)
			assert_string_equal(m->state, e->state);
		else
			assert_null(m->state);
		assert_int_equal(m->sys_tid, e->sys_tid);
		if (m->n_frames != e->main_frames)
			fail_msg("%s: main has %zu frames, expected %zu", e->file, m->n_frames,
				 e->main_frames);
		assert_string_equal(m->frames[0].text, e->first_frame);
		if (e->process)
			assert_string_equal(rep->process, e->process);
		else
			assert_null(rep->process);
		if (e->anr_type)
			assert_string_equal(rep->anr_type, e->anr_type);
		else
			assert_null(rep->anr_type);
		assert_int_equal(rep->threads.n_chain, e->chain);
		if (rep->warnings.len != e->warnings)
			fail_msg("%s: %zu warnings (first: %s)", e->file, rep->warnings.len,
				 rep->warnings.len ? rep->warnings.items[0] : "-");
		assert_int_equal(rep->kind, e->anr ? HG_KIND_ANR : HG_KIND_THREAD_DUMP);
		if (rep->cost != e->cost)
			fail_msg("%s: cost %lld, expected %lld", e->file, (long long)rep->cost,
				 (long long)e->cost);
		assert_int_equal(r.diags, 0);
		run_release(&r);
	}
}

static void test_main_blocked_held_by_thread_5(void **state)
{
	(void)state;
	struct run r;
	const hg_report *rep = read_file(&r, "android13-emu-main-blocked-held-by-thread.txt", false);
	const hg_threads *ts = &rep->threads;
	const hg_thread *m = &ts->items[1];
	assert_int_equal(m->tid, 1);
	assert_int_equal(m->priority, 5);
	assert_false(m->daemon);
	assert_java(&m->frames[0], "io.sentry.samples.android.MainActivity$2", "run", "MainActivity.java",
		    177);
	assert_java(&m->frames[6], "java.lang.reflect.Method", "invoke", "Native method", -1);
	assert_string_equal(m->waiting.addr, "0x0d3a2f0a");
	assert_string_equal(m->waiting.cls, "java.lang.Object");
	assert_int_equal(m->waiting_held_by, 5);
	assert_int_equal(m->n_held, 0);
	/* Thread 5 sleeps holding the lock (and lets go of its sleep lock). */
	long holder = find_thread(rep, "Thread-9");
	assert_int_equal(ts->n_chain, 1);
	assert_int_equal(ts->chain[0], holder);
	const hg_thread *h = &ts->items[holder];
	assert_int_equal(h->tid, 5);
	assert_int_equal(h->sys_tid, 29157);
	assert_string_equal(h->state, "Sleeping");
	assert_int_equal(h->flags, HG_THREAD_BLOCKS_MAIN);
	assert_int_equal(h->n_held, 1);
	assert_string_equal(h->held[0].addr, "0x0d3a2f0a");
	assert_string_equal(h->held[0].cls, "java.lang.Object");
	assert_null(h->waiting.addr);
	assert_int_equal(ts->n_cycles, 0);
	/* The other threads. */
	const hg_thread *sc = &ts->items[0];
	assert_string_equal(sc->name, "Signal Catcher");
	assert_true(sc->daemon);
	assert_int_equal(sc->priority, 10);
	assert_int_equal(sc->tid, 6);
	assert_int_equal(sc->sys_tid, 28957);
	assert_int_equal(sc->n_frames, 11);
	assert_native(&sc->frames[0], 0x53a6e0, "/apex/com.android.art/lib64/libart.so",
		      "art::DumpNativeStack(std::__1::basic_ostream<char, std::__1::char_traits<char> "
		      ">&, int, BacktraceMap*, char const*, art::ArtMethod*, void*, bool)+128",
		      "art::DumpNativeStack(std::__1::basic_ostream<char, std::__1::char_traits<char> "
		      ">&, int, BacktraceMap*, char const*, art::ArtMethod*, void*, bool)", 128);
	const hg_thread *fd = &ts->items[find_thread(rep, "FinalizerDaemon")];
	assert_string_equal(fd->state, "Waiting");
	assert_int_equal(fd->n_held, 0); /* Object.wait let go of <0x07d7437b> */
	assert_null(fd->waiting.addr);
	const hg_thread *perfetto = &ts->items[find_thread(rep, "perfetto_hprof_listener")];
	assert_string_equal(perfetto->state, "Native"); /* "(still starting up)" */
	const hg_thread *na = &ts->items[29];
	assert_string_equal(na->name, "binder:28941_3");
	assert_string_equal(na->state, "not attached");
	assert_int_equal(na->tid, -1);
	assert_int_equal(na->sys_tid, 29028);
	assert_int_equal(na->priority, 5);
	assert_int_equal(na->n_frames, 8);
	/* Report fields. */
	assert_string_equal(rep->time_written, "2023-04-04 22:06:31.064728684+0200");
	assert_string_equal(rep->time, "2023-04-04T20:06:31.064Z");
	assert_string_equal(rep->device,
			    "google/sdk_gphone64_arm64/emu64a:13/TE1A.220922.012/9302419:userdebug/dev-keys");
	assert_string_equal(meta(rep, "pid"), "28941");
	assert_string_equal(meta(rep, "abi"), "\"arm64\"");
	assert_null(meta(rep, "subject"));
	run_release(&r);
}

static void test_measure_lock_forms(void **state)
{
	(void)state;
	struct run r;
	const hg_report *rep = read_file(&r, "measure-r8-anr-trimmed-obfuscated.txt", false);
	const hg_threads *ts = &rep->threads;
	const hg_thread *m = &ts->items[0];
	assert_string_equal(m->waiting.addr, "0x0cd03f02");
	assert_string_equal(m->waiting.cls, "bl.q");
	assert_int_equal(m->waiting_held_by, 21);
	long locker = find_thread(rep, "APP: Locker");
	assert_int_equal(ts->chain[0], locker);
	const hg_thread *l = &ts->items[locker];
	assert_int_equal(l->n_held, 3);
	assert_string_equal(l->held[0].addr, "0x207dee8"); /* "<@addr=0x207dee8>" */
	assert_string_equal(l->held[0].cls, "java.lang.Class<bl.q>");
	assert_string_equal(l->held[1].addr, "0x2239e38");
	assert_string_equal(l->held[1].cls, "bl.q[]");
	assert_string_equal(l->held[2].addr, "0x0cd03f02");
	assert_int_equal(l->sys_tid, -1); /* trimmed: no attribute lines */
	const hg_thread *tm = &ts->items[find_thread(rep, "TracingMuxer")];
	assert_string_equal(tm->state, "not attached");
	assert_null(rep->time);
	assert_null(rep->device);
	run_release(&r);
}

/* xCrash's Crash time is the report's time; without it, Start time (the
 * process's), rather than none. */
static void test_xcrash_start_time(void **state)
{
	(void)state;
	struct run r;
	const hg_report *rep = read_file(&r, "xcrash-android10-pixel-arm64-anr-tombstone.txt", false);
	assert_string_equal(rep->time, "2019-10-11T19:25:25.645Z");
	run_release(&r);
	size_t len;
	char *text = load("xcrash-android10-pixel-arm64-anr-tombstone.txt", &len);
	char *crash = strstr(text, "Crash time:");
	assert_non_null(crash);
	crash[0] = 'X'; /* "Xrash time:": no longer a field */
	assert_int_equal(read_as(&r, text, len, HG_FORMAT_AUTO), 0);
	assert_string_equal(r.rep->time_written, "2019-10-12T03:25:02.029+0800");
	assert_string_equal(r.rep->time, "2019-10-11T19:25:02.029Z");
	run_release(&r);
	free(text);
}

/* ---- native frames, exactly ---- */

static void test_native_frames_arm32(void **state)
{
	(void)state;
	struct run r;
	const hg_report *rep = read_file(&r, "xcrash-android10-pixel-armv7-anr-tombstone.txt", false);
	const hg_thread *dp = &rep->threads.items[0];
	assert_string_equal(dp->name, "xcrash_trace_dp");
	assert_native(&dp->frames[0], 0x002fdea7, "/apex/com.android.runtime/lib/libart.so",
		      "art::DumpNativeStack(std::__1::basic_ostream<char, std::__1::char_traits<char>>&, "
		      "int, BacktraceMap*, char const*, art::ArtMethod*, void*, bool)+78",
		      "art::DumpNativeStack(std::__1::basic_ostream<char, std::__1::char_traits<char>>&, "
		      "int, BacktraceMap*, char const*, art::ArtMethod*, void*, bool)", 78);
	/* "(???)": no symbol. */
	assert_native(&dp->frames[8], 0x00005179,
		      "/data/app/xcrash.sample-O2JiMVVYvwlej2H0FkQyZg==/lib/arm/libxcrash.so", NULL, NULL, -1);
	assert_native(&dp->frames[10], 0x00060763, "/apex/com.android.runtime/lib/bionic/libc.so",
		      "__start_thread+30", "__start_thread", 30);
	const hg_thread *cm = &rep->threads.items[find_thread(rep, "CookieMonsterBa")];
	assert_string_equal(cm->state, "not attached");
	assert_int_equal(cm->sys_tid, 22077);
	assert_int_equal(cm->priority, 10);
	assert_int_equal(cm->n_frames, 4); /* "kernel: (couldn't read ...)" is not a frame */
	assert_native(&cm->frames[3], 0x019e4e65,
		      "/data/app/com.google.android.trichromelibrary_386509238-C5vGqz1rgNqceBgeyyw2Aw==/"
		      "base.apk!libmonochrome.so", NULL, NULL, -1);
	assert_string_equal(rep->app_version, "1.2.3-beta456-patch789");
	assert_string_equal(rep->time_written, "2019-10-12T03:31:17.003+0800");
	assert_string_equal(rep->time, "2019-10-11T19:31:17.003Z");
	assert_string_equal(meta(rep, "pid"), "22012");
	assert_string_equal(meta(rep, "abi"), "\"arm\"");
	run_release(&r);
}

static void test_native_frames_x86_jit_and_vdso(void **state)
{
	(void)state;
	struct run r;
	const hg_report *rep =
		read_file(&r, "android11-x86-emu-appexit-main-native-with-injected-notes.txt", false);
	const hg_thread *m = &rep->threads.items[1];
	assert_native(&m->frames[0], 0xb97, "[vdso]", "__kernel_vsyscall+7", "__kernel_vsyscall", 7);
	assert_native(&m->frames[6], 0x02008de3, "/memfd:jit-cache", "art_jni_trampoline+163",
		      "art_jni_trampoline", 163);
	assert_native(&m->frames[7], 0x02008cee, "/memfd:jit-cache",
		      "backtraceio.backtraceio.MainActivity.handledException+46",
		      "backtraceio.backtraceio.MainActivity.handledException", 46);
	assert_native(&m->frames[13], 0x0036fb02, "/apex/com.android.art/lib/libart.so",
		      "art::interpreter::Execute(art::Thread*, art::CodeItemDataAccessor const&, "
		      "art::ShadowFrame&, art::JValue, bool, bool) (.llvm.16375758241455872412)+370",
		      "art::interpreter::Execute(art::Thread*, art::CodeItemDataAccessor const&, "
		      "art::ShadowFrame&, art::JValue, bool, bool) (.llvm.16375758241455872412)", 370);
	/* Native frames first (innermost), then the Java ones. */
	assert_int_equal(m->frames[20].kind, HG_FRAME_NATIVE);
	assert_java(&m->frames[21], "java.lang.Thread", "yield", "Native method", -1);
	assert_java(&m->frames[22], "backtraceio.backtraceio.MainActivity", "handledException",
		    "MainActivity.java", 157);
	run_release(&r);
}

static void test_native_only_dump(void **state)
{
	(void)state;
	struct run r;
	const hg_report *rep = read_file(&r, "android13-emu-native-only-waiting-channels.txt", false);
	const hg_thread *m = &rep->threads.items[0];
	assert_int_equal(m->tid, -1);
	assert_int_equal(m->priority, -1);
	assert_native(&m->frames[0], 0x4c35c, "/apex/com.android.runtime/lib64/bionic/libc.so",
		      "syscall+28", "syscall", 28);
	assert_native(&m->frames[14], 0x306f0,
		      "[anon:dalvik-classes16.dex extracted in memory from /data/app/~~izn1xSZpFlzfVmWi_"
		      "I0xlQ==/io.sentry.samples.android-tQSGMNiGA-qdjZm6lPOcNw==/base.apk!classes16.dex]",
		      NULL, NULL, -1);
	assert_native(&m->frames[21], 0xec474, "/apex/com.android.art/javalib/core-oj.jar", NULL, NULL,
		      -1);
	const hg_thread *sc = &rep->threads.items[1];
	assert_string_equal(sc->name, "Signal Catcher");
	assert_int_equal(sc->sys_tid, 9965);
	assert_int_equal(sc->flags, 0);
	/* The pid section, not the Waiting Channels around it. */
	assert_string_equal(rep->time_written, "2023-07-04 14:51:23.352279396+0200");
	assert_string_equal(rep->time, "2023-07-04T12:51:23.352Z");
	run_release(&r);
}

static void test_native_symbol_with_space_before_offset(void **state)
{
	(void)state;
	struct run r;
	const hg_report *rep =
		read_file(&r, "android17-preview-emu-appexit-broadcast-r8-obfuscated.txt", false);
	const hg_thread *t = &rep->threads.items[find_thread(rep, "TracingMuxer")];
	assert_native(&t->frames[5], 0x8ee40, "/apex/com.android.runtime/lib64/bionic/libc.so",
		      "__pthread_start +184", "__pthread_start", 184);
	assert_string_equal(meta(rep, "subject"),
			    "\"Broadcast of Intent { flg=0x10000010 xflg=0x4 "
			    "cmp=sh.frankenstein.android/.AnrBroadcastReceiver }\"");
	run_release(&r);
}

static void test_native_pc_widths(void **state)
{
	(void)state;
	struct run r;
	const hg_report *rep = read_string(&r,
		"----- pid 7 at 2024-01-01 00:00:00 -----\n"
		"Cmd line: x\n"
		"\"main\" prio=5 tid=1 Native\n"
		"  native: #00 pc ffffffffffffffff  /system/lib64/libc.so (f+1)\n"
		"  native: #01 pc 7fffe9c5c000  /system/lib64/libc.so (g)\n"
		"  native: #02 pc 00000000deadbeef\n"
		"  native: #03 pc 1ffffffffffffffff  /too/wide.so (h+1)\n"
		"  native: #04 pc 0000000000001000  /system/lib64/libx.so (operator()(int) const+12) (BuildId: ab)\n"
		"  native: #05 pc 0000000000002000  /system/lib64/liby.so (unbalanced(+3)\n"
		"\n----- end 7 -----\n");
	const hg_thread *m = &rep->threads.items[0];
	assert_int_equal(m->n_frames, 5); /* #03: 17 hex digits is no pc */
	assert_native(&m->frames[0], UINT64_MAX, "/system/lib64/libc.so", "f+1", "f", 1);
	assert_native(&m->frames[1], 0x7fffe9c5c000, "/system/lib64/libc.so", "g", "g", -1);
	assert_native(&m->frames[2], 0xdeadbeef, NULL, NULL, NULL, -1);
	assert_native(&m->frames[3], 0x1000, "/system/lib64/libx.so", "operator()(int) const+12",
		      "operator()(int) const", 12);
	assert_native(&m->frames[4], 0x2000, "/system/lib64/liby.so", "unbalanced(+3",
		      "unbalanced(", 3);
	/* The line that is no frame sits between frames: garbage, named. */
	assert_int_equal(rep->warnings.len, 1);
	assert_string_equal(rep->warnings.items[0], "line 7: skipped 1 line that is not part of a "
			    "thread: 'native: #03 pc 1ffffffffffffffff  /too/wide.so (h+1)'");
	run_release(&r);
}

/* The image identity of native frames: path and GNU Build ID, one
 * hg_image per distinct pair; the pc stays the file-relative rel_pc. */
static void test_native_build_ids(void **state)
{
	(void)state;
	struct run r;
	const hg_report *rep = read_string(&r,
		"----- pid 7 at 2024-01-01 00:00:00 -----\n"
		"Cmd line: x\n"
		"\"main\" prio=5 tid=1 Native\n"
		"  native: #00 pc 000000000004f0a8  /data/app/x/lib/arm64/libfoo.so (f+8) (BuildId: 5E8A00ff)\n"
		"  native: #01 pc 0000000000001000  /data/app/x/lib/arm64/libfoo.so (BuildId: 5e8a00ff)\n"
		"  native: #02 pc 0000000000002000  /data/app/x/lib/arm64/libfoo.so (BuildId: 0011)\n"
		"  native: #03 pc 0000000000003000  /system/lib64/libbar.so (g)\n"
		"  native: #04 pc 0000000000004000  /system/lib64/libbaz.so (BuildId: xyz)\n"
		"  native: #05 pc 0000000000005000  /system/lib64/libq.so (BuildId: abc)\n"
		"  native: #06 pc 0000000000006000\n"
		"\n----- end 7 -----\n");
	const hg_thread *m = &rep->threads.items[0];
	assert_int_equal(m->n_frames, 7);
	const hg_threads *ts = &rep->threads;
	const hg_image *foo = hg_frame_image(ts, &m->frames[0]);
	assert_non_null(foo);
	assert_int_equal(foo->kind, HG_IMAGE_ELF);
	assert_string_equal(foo->name, "libfoo.so");
	assert_string_equal(foo->path, "/data/app/x/lib/arm64/libfoo.so");
	assert_string_equal(foo->id, "5e8a00ff"); /* lowercased */
	assert_false(foo->has_load_addr);
	assert_int_equal(m->frames[0].pc, 0x4f0a8);
	assert_ptr_equal(hg_frame_image(ts, &m->frames[1]), foo); /* same path and id: one image */
	const hg_image *other = hg_frame_image(ts, &m->frames[2]);
	assert_ptr_not_equal(other, foo); /* same path, another build */
	assert_string_equal(other->id, "0011");
	assert_null(hg_frame_image(ts, &m->frames[3])->id);
	assert_null(hg_frame_image(ts, &m->frames[4])->id); /* not hex */
	assert_null(hg_frame_image(ts, &m->frames[5])->id); /* an odd number of digits */
	assert_null(hg_frame_image(ts, &m->frames[6]));
	assert_int_equal(ts->n_images, 5);
	run_release(&r);
	/* Every native frame of a real dump is placed; libc's id as written. */
	rep = read_file(&r, "android13-emu-native-only-waiting-channels.txt", false);
	size_t placed = 0, native = 0;
	for (size_t i = 0; i < rep->threads.n; i++)
		for (size_t j = 0; j < rep->threads.items[i].n_frames; j++) {
			const hg_frame *f = &rep->threads.items[i].frames[j];
			native += f->kind == HG_FRAME_NATIVE && f->image;
			placed += hg_frame_image(&rep->threads, f) != NULL;
		}
	assert_true(native > 800);
	assert_int_equal(placed, native);
	const hg_image *libc = hg_frame_image(&rep->threads, &rep->threads.items[0].frames[0]);
	assert_string_equal(libc->id, "ba489d4985c0cf173209da67405662f9");
	run_release(&r);
}

/* ---- the analysis on real-looking dumps ---- */

static void test_deadlock_fixture(void **state)
{
	(void)state;
	struct run r;
	const hg_report *rep = read_file(&r, "handmade-deadlock-main-and-worker.txt", false);
	const hg_threads *ts = &rep->threads;
	long worker = find_thread(rep, "DbWorker");
	assert_int_equal(ts->n_cycles, 1);
	const hg_lock_cycle *c = &ts->cycles[0];
	assert_int_equal(c->n, 2);
	assert_int_equal(c->threads[0], 1);
	assert_int_equal(c->threads[1], worker);
	assert_string_equal(c->locks[0]->addr, "0x0b7a51e2");
	assert_string_equal(c->locks[0]->cls, "com.example.shop.db.OrderDao");
	assert_string_equal(c->locks[1]->addr, "0x04c3d9f8");
	assert_string_equal(c->locks[1]->cls, "com.example.shop.cart.CartRepository");
	assert_int_equal(ts->items[1].flags,
			 HG_THREAD_MAIN | HG_THREAD_BLAMED | HG_THREAD_DEADLOCKED);
	assert_int_equal(ts->items[worker].flags, HG_THREAD_BLOCKS_MAIN | HG_THREAD_DEADLOCKED);
	assert_int_equal(ts->n_chain, 1);
	assert_int_equal(ts->chain[0], worker);
	assert_string_equal(rep->warnings.items[0],
			    "deadlock: \"main\" waits for <0x0b7a51e2> (a com.example.shop.db.OrderDao) "
			    "held by \"DbWorker\", which waits for <0x04c3d9f8> (a "
			    "com.example.shop.cart.CartRepository) held by \"main\"");
	/* OkHttp waits on (not for) its pool's monitor: no edge, not held. */
	const hg_thread *ok = &ts->items[find_thread(rep, "OkHttp ConnectionPool")];
	assert_null(ok->waiting.addr);
	assert_int_equal(ok->n_held, 0);
	assert_string_equal(meta(rep, "pid"), "8123");
	run_release(&r);
}

static void test_idle_fixture(void **state)
{
	(void)state;
	struct run r;
	const hg_report *rep = read_file(&r, "handmade-idle-main-nativepollonce-service.txt", false);
	const hg_thread *m = &rep->threads.items[0];
	assert_int_equal(m->flags, HG_THREAD_MAIN | HG_THREAD_BLAMED | HG_THREAD_IDLE);
	assert_java(&m->frames[3], "android.os.MessageQueue", "nativePollOnce", "Native method", -1);
	assert_string_equal(rep->warnings.items[0],
			    "the main thread was idle in MessageQueue.nativePollOnce when the dump "
			    "was taken: the dump missed the cause of the ANR");
	assert_string_equal(meta(rep, "subject"),
			    "\"executing service com.example.player/.sync.LibrarySyncService\"");
	run_release(&r);
}

static void test_injected_notes_skipped_with_warning(void **state)
{
	(void)state;
	struct run r;
	const hg_report *rep =
		read_file(&r, "android11-x86-emu-appexit-main-native-with-injected-notes.txt", false);
	assert_int_equal(rep->warnings.len, 1);
	assert_string_equal(rep->warnings.items[0],
			    "line 139: skipped 9 lines that are not part of a thread: "
			    "'//expected api request to coroner api'");
	/* The JSON lines that start with a quote are no thread headers. */
	for (size_t i = 0; i < rep->threads.n; i++)
		assert_true(rep->threads.items[i].name[0] != '\0' &&
			    strcmp(rep->threads.items[i].name, "funcName") != 0);
	run_release(&r);
}

static void test_garbage_inside_a_thread(void **state)
{
	(void)state;
	struct run r;
	const hg_report *rep = read_string(&r,
		"DALVIK THREADS (2):\n"
		"\"main\" prio=5 tid=1 Runnable\n"
		"  at a.B.c(B.java:1)\n"
		"%%% pasted by hand %%%\n"
		"more notes\n"
		"  at a.B.d(B.java:2)\n"
		"\n"
		"\"w\" prio=5 tid=2 Waiting\n"
		"  at a.B.e(B.java:3)\n"
		"\n"
		"trailing text that is no thread\n");
	assert_int_equal(rep->threads.n, 2);
	assert_int_equal(rep->threads.items[0].n_frames, 2);
	assert_int_equal(rep->warnings.len, 1);
	assert_string_equal(rep->warnings.items[0], "line 4: skipped 2 lines that are not part of a "
			    "thread: '%%% pasted by hand %%%'");
	run_release(&r);
}

/* ---- Subjects, sections, odd inputs ---- */

static const char *type_of(const char *subject)
{
	static char text[1024];
	snprintf(text, sizeof text, "Subject: %s\n\n----- pid 5 at 2024-01-01 00:00:00 -----\n"
		 "Cmd line: com.example\n\n\"main\" prio=5 tid=1 Runnable\n  at a.B.c(B.java:1)\n\n"
		 "----- end 5 -----\n", subject);
	struct run r;
	const hg_report *rep = read_string(&r, text);
	static char type[64];
	snprintf(type, sizeof type, "%s", rep->anr_type ? rep->anr_type : "(none)");
	char json[512];
	snprintf(json, sizeof json, "\"%s\"", subject);
	assert_string_equal(meta(rep, "subject"), json);
	run_release(&r);
	return type;
}

static void test_anr_types(void **state)
{
	(void)state;
	assert_string_equal(type_of("Input dispatching timed out (Application does not have a "
				    "focused window)"), "input dispatching");
	assert_string_equal(type_of("Broadcast of Intent { act=android.intent.action.SCREEN_ON "
				    "flg=0x50200010 }"), "broadcast");
	assert_string_equal(type_of("executing service com.example/.SyncService"), "service");
	assert_string_equal(type_of("Context.startForegroundService() did not then call "
				    "Service.startForeground(): ServiceRecord{a2 u0 com.example/.S}"),
			    "service");
	assert_string_equal(type_of("ContentProvider not responding"), "content provider");
	assert_string_equal(type_of("timeout publishing content provider com.example.data"),
			    "content provider");
	assert_string_equal(type_of("App is not responding"), "(none)");
}

static const char two_processes[] =
	"Subject: Input dispatching timed out (ab12 com.example.app/com.example.app.Main (server) is "
	"not responding. Waited 5000ms for KeyEvent)\n"
	"%s"
	"\n----- pid 100 at 2024-01-01 00:00:01 -----\n"
	"Cmd line: com.example.helper\n"
	"\n\"main\" prio=5 tid=1 Native\n  at h.H.m(H.java:1)\n\n----- end 100 -----\n"
	"\n----- pid 200 at 2024-01-01 00:00:02 -----\n"
	"Cmd line: %s\n"
	"\n\"main\" prio=5 tid=1 Blocked\n  at a.A.m(A.java:2)\n  junk\n  at a.A.n(A.java:3)\n"
	"\n----- end 200 -----\n"
	"\n----- pid 300 at 2024-01-01 00:00:03 -----\n"
	"Cmd line: /system/bin/surfaceflinger\n"
	"\n\"surfaceflinger\" sysTid=300\n    #00 pc 0000000000001000  /system/lib64/libc.so (f+4)\n"
	"\n----- end 300 -----\n";

/* The reports a text gives, one per process, in the order of the file. */
struct many {
	hg_report *reps[8];
	size_t n;
};

static int keep_report(void *user, hg_report *rep)
{
	struct many *m = user;
	check_invariants(rep);
	if (m->n < 8)
		m->reps[m->n++] = rep;
	else
		hg_report_destroy(rep);
	return 0;
}

static void read_many(struct many *m, const char *text)
{
	memset(m, 0, sizeof *m);
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	assert_int_equal(hg_reports_read_as(&ctx, "anr.txt", text, strlen(text), HG_FORMAT_AUTO,
					    keep_report, m), 0);
}

static void many_release(struct many *m)
{
	for (size_t i = 0; i < m->n; i++)
		hg_report_destroy(m->reps[i]);
	m->n = 0;
}

/* Each process of a traces file is a report of its own, in the order of
 * the file (the ANR's process is the first system_server dumps): the
 * preamble and its Subject go with the first, the others are thread
 * dumps.  (Before, the file was one report of the process the Subject
 * named, the others skipped with a warning.) */
static void test_several_processes(void **state)
{
	(void)state;
	char text[2048];
	snprintf(text, sizeof text, two_processes, "", "com.example.app");
	struct many m;
	read_many(&m, text);
	assert_int_equal(m.n, 3);
	assert_string_equal(m.reps[0]->process, "com.example.helper");
	assert_string_equal(m.reps[1]->process, "com.example.app");
	assert_string_equal(m.reps[2]->process, "/system/bin/surfaceflinger");
	assert_int_equal(m.reps[0]->kind, HG_KIND_ANR);
	assert_string_equal(m.reps[0]->anr_type, "input dispatching");
	assert_int_equal(m.reps[0]->cost, 5000);
	assert_non_null(meta(m.reps[0], "subject"));
	for (size_t i = 1; i < 3; i++) {
		assert_int_equal(m.reps[i]->kind, HG_KIND_THREAD_DUMP);
		assert_null(meta(m.reps[i], "subject"));
		assert_int_equal(m.reps[i]->threads.n, 1);
		assert_int_equal(m.reps[i]->threads.blamed, 0);
		assert_false(has_warning(m.reps[i], "process dumps"));
	}
	/* each report starts at its section, and its lines count from the file's */
	assert_int_equal(m.reps[0]->line, 1);
	assert_int_equal(m.reps[1]->line, 11);
	assert_int_equal(m.reps[2]->line, 21);
	assert_true(has_warning(m.reps[1], "line 16: skipped 1 line that is not part of a thread"));
	many_release(&m);

	/* A preamble that names another pid than the first dump: said. */
	snprintf(text, sizeof text, two_processes, "----- dumping pid: 300 at 1\n", "com.example.app");
	read_many(&m, text);
	assert_int_equal(m.n, 3);
	assert_true(has_warning(m.reps[0], "the Subject is of pid 300 (\"----- dumping pid: 300\") "
				"but the dump is of pid 100"));
	many_release(&m);

	/* Sections of one pid (its Java dump, its waiting channels) stay one report. */
	read_many(&m, "----- Waiting Channels: pid 7 at 2024-01-01 00:00:00 -----\n"
		  "Cmd line: com.example\nsysTid=7 0\n----- end 7 -----\n\n"
		  "----- pid 7 at 2024-01-01 00:00:01 -----\nCmd line: com.example\n\n"
		  "\"main\" prio=5 tid=1 Runnable\n  at a.B.c(B.java:1)\n\n----- end 7 -----\n");
	assert_int_equal(m.n, 1);
	assert_int_equal(m.reps[0]->threads.n, 1);
	many_release(&m);
}

static void test_native_only_main_by_name(void **state)
{
	(void)state;
	struct run r;
	/* No thread has sysTid == pid: the one named after the process (the
	 * kernel's 15 characters) is the main thread. */
	const hg_report *rep = read_string(&r,
		"----- pid 4242 at 2024-01-01 00:00:00 -----\n"
		"Cmd line: com.example.verylongname\n"
		"\n\"Binder:4242_1\" sysTid=4250\n    #00 pc 0000000000001000  /system/lib64/libc.so\n"
		"\n\"com.example.ver\" sysTid=4243\n    #00 pc 0000000000002000  /system/lib64/libc.so\n"
		"\n----- end 4242 -----\n");
	assert_int_equal(rep->threads.blamed, 1);
	run_release(&r);
	rep = read_string(&r,
		"----- pid 4242 at 2024-01-01 00:00:00 -----\n"
		"Cmd line: com.example.verylongname\n"
		"\n\"Binder:4242_1\" sysTid=4250\n    #00 pc 0000000000001000  /system/lib64/libc.so\n"
		"\n\"ple.verylongname\" sysTid=4243\n"
		"\n\"e.verylongname\" sysTid=4244\n"
		"\n----- end 4242 -----\n");
	assert_int_equal(rep->threads.blamed, -1); /* 16 and 14 characters: neither */
	assert_true(has_warning(rep, "no main thread in the dump"));
	run_release(&r);
}

static void test_waiting_channels_only(void **state)
{
	(void)state;
	struct run r;
	const hg_report *rep =
		read_file(&r, "appexit-subject-input-dispatching-waiting-channels-only.txt", true);
	check_invariants(rep);
	assert_int_equal(rep->threads.n, 0);
	assert_int_equal(rep->threads.blamed, -1);
	assert_string_equal(rep->anr_type, "input dispatching");
	assert_string_equal(rep->process, "com.example.app:mainProcess");
	assert_string_equal(rep->time_written, "2024-11-13 19:48:09.980104540+0530");
	assert_string_equal(rep->time, "2024-11-13T14:18:09.980Z");
	assert_int_equal(rep->warnings.len, 1);
	assert_string_equal(rep->warnings.items[0],
			    "the input holds only the kernel's waiting channels of 498 threads (pid "
			    "12233, com.example.app:mainProcess): no thread stacks, so no thread to "
			    "blame");
	run_release(&r);
}

static void test_not_a_dump(void **state)
{
	(void)state;
	static const char *const inputs[] = {
		"\n\n  hello, world\n",
		"Subject: Input dispatching timed out\nRssKb: 12\n",
		"{\"not\": \"a dump\"}",
		"\"funcName\": \"syscall\",\n\"address\": \"0005ad68\"\n",
		"----- pi",
	};
	for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
		struct run r;
		assert_int_equal(read_as(&r, inputs[i], strlen(inputs[i]), HG_FORMAT_ANR_TRACES), 1);
		assert_non_null(r.rep->error);
		assert_contains(r.rep->error, "not an ANR trace: expected a process dump");
		assert_int_equal(r.diags, 1);
		if (i == 0) {
			assert_int_equal(r.diag_line, 3);
			assert_int_equal(r.diag_col, 3);
		}
		run_release(&r);
	}
}

static void test_truncated_and_announced_count(void **state)
{
	(void)state;
	struct run r;
	const hg_report *rep = read_string(&r,
		"----- pid 9 at 2024-01-01 00:00:00 -----\n"
		"Cmd line: com.example\n"
		"DALVIK THREADS (3):\n"
		"\"main\" prio=5 tid=1 Runnable\n"
		"  at a.B.c(B.java:1)\n"
		"  at a.B.d(B.ja");
	assert_int_equal(rep->threads.n, 1);
	assert_int_equal(rep->threads.items[0].n_frames, 1);
	assert_true(has_warning(rep, "the dump announces 3 threads (DALVIK THREADS) but holds 1"));
	assert_true(has_warning(rep, "the dump of pid 9 has no '----- end' line"));
	run_release(&r);
}

static void test_crlf_reads_alike(void **state)
{
	(void)state;
	size_t len;
	char *data = load("handmade-deadlock-main-and-worker.txt", &len);
	char *crlf = malloc(2 * len + 1);
	assert_non_null(crlf);
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		if (data[i] == '\n')
			crlf[n++] = '\r';
		crlf[n++] = data[i];
	}
	crlf[n] = '\0';
	struct run a, b;
	read_as(&a, data, len, HG_FORMAT_AUTO);
	read_as(&b, crlf, n, HG_FORMAT_AUTO);
	assert_null(b.rep->error);
	assert_int_equal(a.rep->threads.n, b.rep->threads.n);
	for (size_t i = 0; i < a.rep->threads.n; i++) {
		const hg_thread *x = &a.rep->threads.items[i], *y = &b.rep->threads.items[i];
		assert_string_equal(x->name, y->name);
		assert_string_equal(x->state, y->state);
		assert_int_equal(x->n_frames, y->n_frames);
		assert_int_equal(x->sys_tid, y->sys_tid);
		assert_int_equal(x->flags, y->flags);
		for (size_t k = 0; k < x->n_frames; k++)
			assert_string_equal(x->frames[k].text, y->frames[k].text);
	}
	assert_int_equal(b.rep->threads.n_cycles, 1);
	assert_string_equal(a.rep->process, b.rep->process);
	assert_string_equal(a.rep->device, b.rep->device);
	run_release(&a);
	run_release(&b);
	free(crlf);
	free(data);
}

/* ---- truncation and mutation ---- */

static const char *const robust_files[] = {
	"android13-emu-main-blocked-held-by-thread.txt",
	"android11-x86-emu-appexit-main-native-with-injected-notes.txt",
	"android13-emu-native-only-waiting-channels.txt",
	"xcrash-android10-pixel-armv7-anr-tombstone.txt",
	"measure-r8-anr-trimmed-obfuscated.txt",
	"handmade-deadlock-main-and-worker.txt",
	"appexit-subject-input-dispatching-waiting-channels-only.txt",
};

static bool has_section_marker(const char *s)
{
	return strstr(s, "----- pid ") || strstr(s, "Cmd line:") || strstr(s, "DALVIK THREADS") ||
	       strstr(s, "----- Waiting Channels: pid ") || strstr(s, "--- --- ---") ||
	       strstr(s, "\" prio=") || strstr(s, "\" sysTid=");
}

/* Every 97th prefix reads as an error only when it holds no dump at all,
 * else as a report whose threads are the first threads of the whole
 * file, all but the last one complete. */
static void test_truncation(void **state)
{
	(void)state;
	for (size_t f = 0; f < sizeof robust_files / sizeof *robust_files; f++) {
		size_t len;
		char *data = load(robust_files[f], &len);
		struct run full;
		read_as(&full, data, len, HG_FORMAT_ANR_TRACES);
		const hg_threads *all = &full.rep->threads;
		for (size_t cut = 0; cut < len; cut += 97) {
			char *prefix = malloc(cut + 1);
			assert_non_null(prefix);
			memcpy(prefix, data, cut);
			prefix[cut] = '\0';
			struct run r;
			int rc = read_as(&r, prefix, cut, HG_FORMAT_ANR_TRACES);
			check_invariants(r.rep);
			if (rc != 0) {
				if (cut > 0 && has_section_marker(prefix))
					fail_msg("%s cut at %zu: %s", robust_files[f], cut, r.rep->error);
			} else {
				const hg_threads *ts = &r.rep->threads;
				assert_true(ts->n <= all->n);
				for (size_t i = 0; i < ts->n; i++) {
					const hg_thread *t = &ts->items[i], *w = &all->items[i];
					assert_string_equal(t->name, w->name);
					if (i + 1 < ts->n)
						assert_int_equal(t->n_frames, w->n_frames);
					else
						assert_true(t->n_frames <= w->n_frames);
				}
				if (all->blamed >= 0 && all->blamed < (long)ts->n)
					assert_int_equal(ts->blamed, all->blamed);
			}
			run_release(&r);
			free(prefix);
		}
		run_release(&full);
		free(data);
	}
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rnd(void)
{
	/* xorshift64*: deterministic across runs and platforms. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static const char *const snippets[] = {
	"\n\"main\" prio=5 tid=1 Blocked\n",
	"\n\"x\" prio=5 tid=7 Blocked\n  - waiting to lock <0x1> (a X) held by thread 1\n",
	"  - waiting to lock <0x0d3a2f0a> (a java.lang.Object) held by thread 5\n",
	"  - locked <0x1> (a X)\n",
	"  - locked <@addr=0x>\n",
	"  - waiting to lock <> held by thread 99999999999999999999\n",
	"  native: #00 pc ffffffffffffffff  [anon: (((( (offset 1) (sym+",
	"    #00 pc 0000000000001000  /a (b+18446744073709551616)\n",
	"\n----- pid 1 at x -----\n",
	"\n----- end 1 -----\n",
	"\n----- Waiting Channels: pid 2 at y -----\nsysTid=2 z\n",
	"\n\"\" sysTid=\n",
	"\"\"\"\" prio=5 tid=1\n",
	"  | sysTid=\n  | sysTid=12345678901234567890\n",
	"  at android.os.MessageQueue.nativePollOnce(Native method)\n",
	"DALVIK THREADS (99999999999999999999):\n",
	"--- --- --- --- ---\n+++ +++ +++\n*** *** ***\npid: 5  >>> app <<<\n",
	"Subject: Broadcast of Intent\n",
	"\r\n\r\n",
	"\0\0\0",
};

static char *mutate(const char *base, size_t len, size_t *out_len)
{
	size_t cap = len * 2 + 4096;
	char *s = malloc(cap + 1);
	assert_non_null(s);
	memcpy(s, base, len);
	size_t n = len;
	int edits = 1 + (int)(rnd() % 8);
	for (int e = 0; e < edits; e++) {
		size_t at = n ? (size_t)(rnd() % n) : 0;
		switch (rnd() % 6) {
		case 0: /* a random byte */
			if (n)
				s[at] = (char)(rnd() & 0xff);
			break;
		case 1: { /* a byte the grammar cares about */
			static const char special[] = "\"<>()#|-@=: \n\t0123456789abcdef+[]";
			if (n)
				s[at] = special[rnd() % (sizeof special - 1)];
			break;
		}
		case 2: { /* a snippet */
			size_t k = (size_t)(rnd() % (sizeof snippets / sizeof *snippets));
			size_t sl = k == sizeof snippets / sizeof *snippets - 1 ? 3 : strlen(snippets[k]);
			if (n + sl > cap)
				break;
			memmove(s + at + sl, s + at, n - at);
			memcpy(s + at, snippets[k], sl);
			n += sl;
			break;
		}
		case 3: { /* delete a range */
			size_t del = (size_t)(rnd() % 2000);
			if (del > n - at)
				del = n - at;
			memmove(s + at, s + at + del, n - at - del);
			n -= del;
			break;
		}
		case 4: { /* duplicate a range */
			size_t dl = (size_t)(rnd() % 3000);
			if (dl > n - at)
				dl = n - at;
			if (n + dl > cap)
				break;
			memmove(s + at + dl, s + at, n - at); /* [at, at+dl) now twice */
			n += dl;
			break;
		}
		default: /* cut */
			n = at + (n - at) / 2;
			break;
		}
	}
	s[n] = '\0';
	*out_len = n;
	return s;
}

static void test_mutations(void **state)
{
	(void)state;
	static const char *const bases[] = {
		"handmade-deadlock-main-and-worker.txt",
		"handmade-idle-main-nativepollonce-service.txt",
		"measure-r8-anr-trimmed-obfuscated.txt",
		"android13-emu-main-blocked-held-by-thread.txt",
	};
	char *data[4];
	size_t lens[4];
	for (size_t i = 0; i < 4; i++)
		data[i] = load(bases[i], &lens[i]);
	size_t reports = 0, errors = 0;
	for (int i = 0; i < 2000; i++) {
		size_t b = (size_t)(rnd() % 4), n;
		char *m = mutate(data[b], lens[b], &n);
		struct run r;
		/* an inserted "----- pid 1" section is a process of its own */
		int rc = read_some(&r, m, n, HG_FORMAT_ANR_TRACES, true);
		assert_true(rc >= 0 && (size_t)rc <= r.delivered);
		if (r.delivered == 1)
			assert_true((rc == 1) == (r.rep->error != NULL));
		reports += rc == 0;
		errors += rc != 0;
		run_release(&r);
		free(m);
	}
	assert_int_equal(reports + errors, 2000);
	assert_true(reports > 1900); /* the mutations rarely destroy the whole dump */
	for (size_t i = 0; i < 4; i++)
		free(data[i]);
}

/* The format is told from the content, whatever the file's name. */
static void test_detected(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof expected / sizeof *expected; i++) {
		struct run r;
		read_file(&r, expected[i].file, false); /* fails unless detected as "anr" */
		run_release(&r);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_file),
		cmocka_unit_test(test_main_blocked_held_by_thread_5),
		cmocka_unit_test(test_xcrash_start_time),
		cmocka_unit_test(test_measure_lock_forms),
		cmocka_unit_test(test_native_frames_arm32),
		cmocka_unit_test(test_native_frames_x86_jit_and_vdso),
		cmocka_unit_test(test_native_only_dump),
		cmocka_unit_test(test_native_symbol_with_space_before_offset),
		cmocka_unit_test(test_native_pc_widths),
		cmocka_unit_test(test_native_build_ids),
		cmocka_unit_test(test_deadlock_fixture),
		cmocka_unit_test(test_idle_fixture),
		cmocka_unit_test(test_injected_notes_skipped_with_warning),
		cmocka_unit_test(test_garbage_inside_a_thread),
		cmocka_unit_test(test_anr_types),
		cmocka_unit_test(test_several_processes),
		cmocka_unit_test(test_native_only_main_by_name),
		cmocka_unit_test(test_waiting_channels_only),
		cmocka_unit_test(test_not_a_dump),
		cmocka_unit_test(test_truncated_and_announced_count),
		cmocka_unit_test(test_crlf_reads_alike),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_detected),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
