/* Unit tests for native crash tombstones (report_tombstone*.c): every check
 * of testdata/tombstone/xcrash-expected.json (the fields xCrash's own
 * TombstoneParser reads) on the five xCrash native tombstones, its Java
 * tombstone and the two ANR tombstones of testdata/ (which must still go to
 * the Java stack and ANR readers); the details of the arm64 one (Build IDs
 * from its "build id:" list, the Java stack placed at the JNI trampoline,
 * figures); two debuggerd tombstones written in tombstone_proto_to_text's
 * layout (a worker thread's SIGSEGV, an abort with a two-line message);
 * two tombstones run together; and damaged inputs made here: cut in a
 * backtrace, registers with garbage, a Build ID of odd length, pcs over 64
 * bits, an abort message never closed, the frame cap, 10,000 threads, every
 * 41st truncation and 1500 seeded mutations.  argv[1] is testdata/. */
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
#include "json/json.h"
#include "report/report_internal.h"

static const char *testdata = "testdata";

#define SEGV "debuggerd-android14-arm64-segv-worker-thread.txt"
#define ABORT "debuggerd-android14-arm64-abort-two-line-message.txt"
#define ARM64 "xcrash-android10-pixel-arm64-native.txt"

static const char *const fixtures[] = {SEGV, ABORT};

#define FIXTURE_SOURCE "mem.txt"
#define FIXTURE_FORMAT HG_FORMAT_TOMBSTONE
#define FIXTURE_DIR "tombstone"
#define FIXTURE_DAMAGED "damaged.txt"
#include "text_reader_fixture.h"

static size_t count_kind(const hg_thread *t, enum hg_frame_kind kind)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n_frames; i++)
		n += t->frames[i].kind == kind;
	return n;
}

static const char *meta(const hg_report *r, const char *key)
{
	for (size_t i = 0; i < r->meta_len; i++)
		if (strcmp(r->meta[i].key, key) == 0)
			return r->meta[i].text;
	return NULL;
}

static void assert_meta(const hg_report *r, const char *key, const char *want)
{
	const char *v = meta(r, key);
	if (!v)
		fail_msg("no metadata \"%s\"", key);
	assert_string_equal(v, want);
}

static const hg_thread *blamed(const hg_report *r)
{
	assert_true(r->threads.blamed >= 0 && (size_t)r->threads.blamed < r->threads.n);
	return &r->threads.items[r->threads.blamed];
}

/* What must hold of any report, read or failed (truncations, mutations). */
static void check_sane(const hg_report *r)
{
	if (r->error) {
		assert_true(strlen(r->error) > 0);
		return;
	}
	for (size_t i = 0; i < r->warnings.len; i++)
		assert_true(strlen(r->warnings.items[i]) > 0);
	if (r->format != HG_FORMAT_TOMBSTONE)
		return; /* a mutation read by another reader: its own tests say what holds */
	assert_int_equal(r->kind, HG_KIND_NATIVE_CRASH);
	assert_true(r->threads.n > 0);
	assert_true(blamed(r)->flags & HG_THREAD_BLAMED);
	for (size_t i = 0; i < r->threads.n; i++) {
		const hg_thread *t = &r->threads.items[i];
		assert_non_null(t->name);
		for (size_t k = 0; k < t->n_frames; k++) {
			const hg_frame *f = &t->frames[k];
			assert_non_null(f->text);
			if (f->kind == HG_FRAME_JAVA)
				assert_true(f->cls && f->method);
			if (f->image_ref)
				assert_non_null(hg_frame_image(&r->threads, f));
		}
	}
	for (size_t i = 0; i < r->threads.n_images; i++) {
		const hg_image *im = &r->threads.images[i];
		assert_int_equal(im->kind, HG_IMAGE_ELF);
		assert_true(!im->id || (strlen(im->id) % 2 == 0 && strlen(im->id) <= 128));
	}
}

/* ---- what xCrash's own parser reads (xcrash-expected.json) ---- */

/* Where each file of expected.json is in testdata/ (the others are not). */
static const struct {
	const char *name, *path;
	enum hg_input_format format;
} local[] = {
	{"tombstone_native_arm64-v8a.txt", "tombstone/" ARM64, HG_FORMAT_TOMBSTONE},
	{"tombstone_native_armeabi-v7a.txt", "tombstone/xcrash-android10-pixel-armv7-native.txt",
	 HG_FORMAT_TOMBSTONE},
	{"tombstone_native_armeabi.txt", "tombstone/xcrash-android10-pixel-armeabi-native.txt",
	 HG_FORMAT_TOMBSTONE},
	{"tombstone_native_x86.txt", "tombstone/xcrash-android10-emu-x86-native.txt", HG_FORMAT_TOMBSTONE},
	{"tombstone_native_x86_64.txt", "tombstone/xcrash-android10-emu-x86_64-native.txt",
	 HG_FORMAT_TOMBSTONE},
	{"tombstone_java.txt", "java-stacks/xcrash-android10-pixel-java-crash-all-threads.txt",
	 HG_FORMAT_JAVA_STACK},
	{"tombstone_anr_arm64-v8a.txt", "anr/xcrash-android10-pixel-arm64-anr-tombstone.txt",
	 HG_FORMAT_ANR_TRACES},
	{"tombstone_anr_armeabi-v7a.txt", "anr/xcrash-android10-pixel-armv7-anr-tombstone.txt",
	 HG_FORMAT_ANR_TRACES},
};

static char *load_path(const char *rel, size_t *len)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", testdata, rel);
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	char *data = NULL;
	assert_int_equal(hg_input_read(&ctx, path, &data, len), 0);
	/* A copy on the heap: GCC's -Wdangling-pointer at -O3 cannot tell that
	 * hg_input_read stores a new buffer, not &data, and flags writes into it. */
	char *copy = malloc(*len + 1);
	assert_non_null(copy);
	memcpy(copy, data, *len + 1);
	free(data);
	return copy;
}

static int64_t json_int(const hg_json_doc *doc, const hg_json *v)
{
	int64_t n = -1;
	assert_int_equal(hg_json_int64(doc, v, &n), 0);
	return n;
}

/* The texts of the blamed thread's frames of one kind; a native frame as
 * "0x" and its pc in 8 or 16 digits, as xCrash prints it. */
static void assert_frames(const hg_report *r, const hg_json *want, enum hg_frame_kind kind,
			  int digits, long thread)
{
	const hg_thread *t = thread >= 0 ? &r->threads.items[thread] : blamed(r);
	const hg_json *w = hg_json_first(want);
	size_t k = 0;
	for (size_t i = 0; i < t->n_frames && w; i++) {
		const hg_frame *f = &t->frames[i];
		if (f->kind != kind)
			continue;
		char pc[24];
		snprintf(pc, sizeof pc, "0x%0*llx", digits, (unsigned long long)f->pc);
		const char *got = kind == HG_FRAME_NATIVE ? pc : f->text;
		if (strcmp(got, hg_json_string(w)) != 0)
			fail_msg("frame %zu: \"%s\", expected \"%s\"", k, got, hg_json_string(w));
		w = hg_json_next(w);
		k++;
	}
	assert_int_equal(k, hg_json_count(want));
	if (kind == HG_FRAME_NATIVE)
		assert_int_equal(count_kind(t, kind), k);
}

static void run_check(const hg_report *r, const hg_json_doc *doc, const hg_json *check)
{
	const char *what = hg_json_string(hg_json_get(check, "check"));
	const hg_json *want = hg_json_get(check, "equals");
	const hg_json *xcrash = hg_json_get(check, "xcrash");
	const char *said = xcrash ? hg_json_string(xcrash) : "";
	int digits = meta(r, "abi") && (strcmp(meta(r, "abi"), "arm64") == 0 ||
					strcmp(meta(r, "abi"), "x86_64") == 0) ? 16 : 8;
	if (strcmp(what, "accepted") == 0) {
		assert_null(r->error);
	} else if (strcmp(what, "kind") == 0) {
		/* xCrash's 'crash' is hangar's native_crash for a native one */
		enum hg_report_kind k = strstr(said, "'native'") ? HG_KIND_NATIVE_CRASH
					: strstr(said, "'java'") ? HG_KIND_CRASH : HG_KIND_ANR;
		assert_int_equal(r->kind, k);
	} else if (strcmp(what, "pid") == 0) {
		char pid[24];
		snprintf(pid, sizeof pid, "%lld", (long long)json_int(doc, want));
		assert_meta(r, "pid", pid);
	} else if (strcmp(what, "process") == 0) {
		assert_string_equal(r->process, hg_json_string(want));
	} else if (strcmp(what, "app_version") == 0) {
		assert_string_equal(r->app_version, hg_json_string(want));
	} else if (strcmp(what, "device") == 0) {
		assert_string_equal(r->device, hg_json_string(want));
	} else if (strcmp(what, "blamed_thread_tid") == 0) {
		assert_int_equal(blamed(r)->sys_tid, json_int(doc, want));
	} else if (strcmp(what, "blamed_thread_name") == 0) {
		assert_string_equal(blamed(r)->name, hg_json_string(want));
	} else if (strcmp(what, "reason_contains") == 0) {
		assert_non_null(r->reason);
		assert_non_null(strstr(r->reason, hg_json_string(want)));
	} else if (strcmp(what, "blamed_native_pcs") == 0) {
		assert_frames(r, want, HG_FRAME_NATIVE, digits, -1);
	} else if (strcmp(what, "blamed_java_frames") == 0) {
		assert_frames(r, want, HG_FRAME_JAVA, 0, -1);
	} else if (strcmp(what, "exception_type") == 0) {
		assert_string_equal(r->exceptions[0].type, hg_json_string(want));
	} else if (strcmp(what, "exception_message") == 0) {
		assert_string_equal(r->exceptions[0].message, hg_json_string(want));
	} else if (strcmp(what, "first_exception_frames") == 0) {
		assert_frames(r, want, HG_FRAME_JAVA, 0, r->exceptions[0].thread);
	} else {
		fail_msg("unknown check \"%s\"", what);
	}
}

static void test_xcrash_expected(void **state)
{
	(void)state;
	size_t len, checks = 0, files = 0;
	char *text = load_path("tombstone/xcrash-expected.json", &len);
	hg_json_doc *doc = NULL;
	size_t end;
	assert_int_equal(hg_json_parse(text, len, &doc, &end), 0);
	const hg_json *cases = hg_json_get(hg_json_root(doc), "cases");
	for (const hg_json *c = hg_json_first(cases); c; c = hg_json_next(c)) {
		const char *name = hg_json_string(hg_json_get(c, "file"));
		size_t k = 0;
		while (k < sizeof local / sizeof *local && strcmp(local[k].name, name) != 0)
			k++;
		if (k == sizeof local / sizeof *local)
			continue; /* the ANR tombstones testdata/ has no copy of */
		size_t n;
		char *input = load_path(local[k].path, &n);
		struct got g;
		got_init(&g);
		assert_int_equal(read_as(&g, input, n, HG_FORMAT_AUTO), 0);
		if (g.rep->format != local[k].format)
			fail_msg("%s read as %s", name, hg_input_format_name(g.rep->format));
		const hg_json *list = hg_json_get(c, "checks");
		for (const hg_json *check = hg_json_first(list); check; check = hg_json_next(check))
			run_check(g.rep, doc, check), checks++;
		if (local[k].format == HG_FORMAT_TOMBSTONE)
			assert_int_equal(g.rep->warnings.len, 0);
		got_release(&g);
		free(input);
		files++;
	}
	assert_int_equal(files, 8);
	assert_int_equal(checks, 83); /* 5 x 12 native, 11 Java, 2 x 6 ANR */
	hg_json_doc_destroy(doc);
	free(text);
}

/* ---- the details ---- */

static void test_xcrash_arm64_details(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	size_t len;
	char *text = load(ARM64, &len);
	assert_int_equal(read_as(&g, text, len, HG_FORMAT_AUTO), 0);
	const hg_report *r = g.rep;
	assert_string_equal(r->platform, "android");
	assert_string_equal(r->os_version, "29");
	assert_string_equal(r->time, "2019-10-11T19:18:21.127Z"); /* Crash time */
	assert_string_equal(r->reason, "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0");
	assert_meta(r, "tid", "20501");
	assert_meta(r, "signal", "SIGSEGV");
	assert_meta(r, "signal_code", "SEGV_MAPERR");
	assert_meta(r, "fault_addr", "0x0");
	assert_meta(r, "abi", "arm64");
	assert_null(meta(r, "fault_map")); /* 0x0 lies in no mapping */
	/* 38 others, as its "total threads (exclude the crashed thread): 38" says */
	assert_int_equal(r->threads.n, 39);
	const hg_thread *t = blamed(r);
	assert_int_equal(r->threads.blamed, 0);
	assert_int_equal(t->flags, HG_THREAD_BLAMED | HG_THREAD_MAIN);
	assert_int_equal(t->n_frames, 75 + 17);
	/* The frame's Build ID comes from the "build id:" list. */
	const hg_frame *f = &t->frames[0];
	assert_string_equal(f->method, "xc_test_call_4");
	assert_true(f->has_offset && f->offset == 24);
	const hg_image *im = hg_frame_image(&r->threads, f);
	assert_non_null(im);
	assert_int_equal(im->kind, HG_IMAGE_ELF);
	assert_string_equal(im->name, "libxcrash.so");
	assert_string_equal(im->id, "4133c071751220a60463e89d783a10c16cd01b92");
	assert_false(im->has_load_addr);
	/* The Java stack comes in after the JNI trampoline (#05), innermost first. */
	assert_string_equal(t->frames[5].method, "art_quick_generic_jni_trampoline");
	assert_int_equal(t->frames[6].kind, HG_FRAME_JAVA);
	assert_string_equal(t->frames[6].text, "at xcrash.NativeHandler.nativeTestCrash(Native method)");
	assert_int_equal(t->frames[22].kind, HG_FRAME_JAVA);
	assert_string_equal(t->frames[22].cls, "com.android.internal.os.ZygoteInit");
	assert_int_equal(t->frames[23].kind, HG_FRAME_NATIVE);
	assert_int_equal(t->frames[23].pc, 0x1365b8); /* #06 */
	assert_string_equal(t->frames[91].method, "__libc_init");
	/* figures: where it stopped, and counts */
	assert_figure(r, "registers", "pc", "00000074b9bcc884");
	assert_figure(r, "registers", "sp", "0000007fe0ef2070");
	assert_figure(r, "registers", "lr", "00000074b9bcc8cc");
	assert_null(figure(r, "registers", "x0", 0));
	assert_figure(r, "tombstone", "open files", "119");
	assert_figure(r, "tombstone", "threads", "39");
	assert_figure(r, "xcrash", "Tombstone maker", "xCrash 2.4.6");
	assert_figure(r, "xcrash", "Model", "Pixel");
	/* other threads: their names, tids, first frames */
	const hg_thread *jit = &r->threads.items[1];
	assert_string_equal(jit->name, "Jit thread pool");
	assert_int_equal(jit->sys_tid, 20528);
	assert_int_equal(jit->flags, 0);
	assert_int_equal(jit->n_frames, 7);
	assert_string_equal(jit->frames[0].method, "syscall");
	got_release(&g);
	free(text);
}

static void test_debuggerd_segv_worker(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	size_t len;
	char *text = load(SEGV, &len);
	assert_int_equal(read_as(&g, text, len, HG_FORMAT_AUTO), 0);
	const hg_report *r = g.rep;
	assert_int_equal(r->format, HG_FORMAT_TOMBSTONE);
	assert_int_equal(r->kind, HG_KIND_NATIVE_CRASH);
	assert_int_equal(r->warnings.len, 0);
	assert_string_equal(r->reason, "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr "
				       "0x0000000000000008: null pointer dereference");
	assert_string_equal(r->process, "com.example.tombdemo");
	assert_null(r->app_version);
	assert_string_equal(r->device,
			    "google/panther/panther:14/UQ1A.240205.004/11269751:user/release-keys");
	assert_string_equal(r->time, "2024-03-04T08:15:27.418Z");
	assert_null(r->os_version);
	assert_meta(r, "pid", "12345");
	assert_meta(r, "tid", "12410");
	assert_meta(r, "uid", "10213");
	assert_meta(r, "cause", "null pointer dereference");
	assert_meta(r, "fault_map", "before any mapped regions");
	assert_meta(r, "revision", "MP1.0");
	assert_meta(r, "process_uptime", "34s");
	assert_null(meta(r, "cmdline")); /* the same as the process */
	assert_null(meta(r, "abort_message"));
	assert_int_equal(r->threads.n, 3);
	/* the worker crashed; the process's main thread is another one */
	const hg_thread *t = blamed(r);
	assert_string_equal(t->name, "DecodeWorker");
	assert_int_equal(t->flags, HG_THREAD_BLAMED);
	assert_string_equal(r->threads.items[1].name, "xample.tombdemo");
	assert_int_equal(r->threads.items[1].flags, HG_THREAD_MAIN);
	assert_int_equal(r->threads.items[1].sys_tid, 12345);
	assert_int_equal(t->n_frames, 12);
	const hg_frame *f = &t->frames[0];
	assert_int_equal(f->pc, 0x1a2f4);
	assert_string_equal(f->method, "tombdemo::Decoder::readHeader(tombdemo::Buffer const*)");
	assert_true(f->has_offset && f->offset == 36);
	assert_string_equal(hg_frame_image(&r->threads, f)->id,
			    "6f2d4b1c9e8a7f3d5b2c1a0e9f8d7c6b5a4e3d2c");
	assert_string_equal(hg_frame_image(&r->threads, f)->name, "libtombdemo.so");
	assert_null(hg_frame_image(&r->threads, &t->frames[6])->id); /* base.odex: no Build ID */
	assert_string_equal(t->frames[8].image, "<anonymous:7b3e7d0000>");
	assert_int_equal(t->frames[8].image_ref, 0);
	assert_null(t->frames[8].method);
	assert_string_equal(t->frames[10].method, "__pthread_start(void*)");
	assert_figure(r, "registers", "pc", "0000007a1c05a2f4");
	assert_figure(r, "tombstone", "memory maps", "12");
	assert_figure(r, "tombstone", "open files", "6");
	got_release(&g);
	free(text);
}

static void test_debuggerd_abort_two_lines(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	size_t len;
	char *text = load(ABORT, &len);
	assert_int_equal(read_as(&g, text, len, HG_FORMAT_AUTO), 0);
	const hg_report *r = g.rep;
	assert_int_equal(r->warnings.len, 0);
	assert_string_equal(r->reason, "signal 6 (SIGABRT), code -1 (SI_QUEUE); abort message "
				       "'frameworks/av/media/Codec.cpp:412] Check failed: state_ == "
				       "kConfigured (state_=3, kConfigured=1)...'");
	assert_meta(r, "abort_message", "frameworks/av/media/Codec.cpp:412] Check failed: state_ == "
					"kConfigured (state_=3, kConfigured=1)\nwhile flushing input port 0");
	assert_null(meta(r, "fault_addr"));
	assert_string_equal(r->process, "/system/bin/mediaserver");
	assert_int_equal(r->threads.n, 2);
	const hg_thread *t = blamed(r);
	assert_int_equal(t->flags, HG_THREAD_BLAMED | HG_THREAD_MAIN);
	assert_int_equal(t->n_frames, 9);
	assert_string_equal(t->frames[3].method, "android::Codec::flush(unsigned int)");
	assert_string_equal(r->threads.items[1].name, "binder:781_1");
	assert_int_equal(r->threads.items[1].n_frames, 3);
	got_release(&g);
	free(text);
}

static int count_reports(void *user, hg_report *rep)
{
	struct got *g = user;
	if (g->delivered++ == 1)
		g->rep = rep; /* the second */
	else
		hg_report_destroy(rep);
	return 0;
}

static void test_two_tombstones_run_together(void **state)
{
	(void)state;
	size_t a, b;
	char *one = load(SEGV, &a), *two = load(ABORT, &b);
	char *both = malloc(a + b + 1);
	assert_non_null(both);
	memcpy(both, one, a);
	memcpy(both + a, two, b + 1);
	struct got g;
	got_init(&g);
	assert_int_equal(hg_reports_read(&g.ctx, "both.txt", both, a + b, count_reports, &g), 0);
	assert_int_equal(g.delivered, 2);
	assert_int_equal(g.rep->line, 128); /* the second starts on the line after the first's 127 */
	assert_string_equal(g.rep->process, "/system/bin/mediaserver");
	got_release(&g);
	free(both);
	free(one);
	free(two);
}

/* ---- damaged inputs ---- */

/* A copy of text with its first `old` replaced by `new` (which must be there). */
static char *replaced(const char *text, const char *old, const char *new)
{
	const char *at = strstr(text, old);
	assert_non_null(at);
	size_t head = (size_t)(at - text), o = strlen(old), n = strlen(new), rest = strlen(at + o);
	char *out = malloc(head + n + rest + 1);
	assert_non_null(out);
	memcpy(out, text, head);
	memcpy(out + head, new, n);
	memcpy(out + head + n, at + o, rest + 1);
	return out;
}

static void test_cut_in_a_backtrace(void **state)
{
	(void)state;
	size_t len;
	char *text = load(SEGV, &len);
	char *cut = strstr(text, "      #05 pc 00000000003f1eb0  /apex/com.android.art/lib64/");
	assert_non_null(cut);
	cut[40] = '\0'; /* in the middle of line 31: "#05 pc 00000000003f1eb0  /apex/com" */
	struct got g;
	got_init(&g);
	const hg_report *r = read_good(&g, text, HG_FORMAT_AUTO);
	assert_int_equal(r->format, HG_FORMAT_TOMBSTONE);
	assert_string_equal(r->reason, "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr "
				       "0x0000000000000008: null pointer dereference");
	const hg_thread *t = blamed(r);
	assert_int_equal(t->n_frames, 6);
	assert_string_equal(t->frames[5].image, "/apex/com"); /* what there is of it */
	assert_warning(r, "line 31: the tombstone ends inside a frame list (thread \"DecodeWorker\"): "
			  "it looks cut");
	assert_warning(r, "line 24: thread \"DecodeWorker\" announces 12 frames but holds 6: the "
			  "backtrace looks cut");
	got_release(&g);
	free(text);
}

static void test_registers_with_garbage(void **state)
{
	(void)state;
	size_t len;
	char *text = load(SEGV, &len);
	char *bad = replaced(text, "    x0  0000000000000000  x1  b400007a3c2e1f50",
			     "    x0  0000000000000000  x1  b4000zz#3c2e1f50");
	char *worse = replaced(bad, "    x28 0000000dff4ecdd7  x29 000000a6f7de75da",
			       "    x28 0000000dff4ecdd7  x29 1000000a6f7de75da00  \x01\x02 ???");
	struct got g;
	got_init(&g);
	const hg_report *r = read_good(&g, worse, HG_FORMAT_AUTO);
	assert_warning(r, "line 14: 2 register lines holding a word that is no register value "
			  "(the registers before it kept): 'x0  0000000000000000  x1  b4000zz#3c2e1f50");
	assert_null(figure(r, "registers", "x29", 0)); /* over 64 bits */
	assert_figure(r, "registers", "pc", "0000007a1c05a2f4"); /* the next lines still read */
	assert_int_equal(blamed(r)->n_frames, 12);
	got_release(&g);
	free(worse);
	free(bad);
	free(text);
}

static void test_odd_build_id_and_wide_pcs(void **state)
{
	(void)state;
	size_t len;
	char *text = load(SEGV, &len);
	char *odd = replaced(text, "(BuildId: 6f2d4b1c9e8a7f3d5b2c1a0e9f8d7c6b5a4e3d2c)",
			     "(BuildId: 6f2d4)");
	/* 19 significant digits: no address; 20 with leading zeros: an address */
	char *wide = replaced(odd, "#02 pc 0000000000019c40", "#02 pc 1230000000000019c40");
	char *zeros = replaced(wide, "#03 pc 0000000000377030", "#03 pc 00000000000000377030");
	struct got g;
	got_init(&g);
	const hg_report *r = read_good(&g, zeros, HG_FORMAT_AUTO);
	const hg_thread *t = blamed(r);
	assert_int_equal(t->n_frames, 12);
	assert_warning(r, "line 26: 1 Build ID that is not whole bytes of hex (left out): '#00 pc");
	assert_warning(r, "line 28: 1 frame whose pc is more than 64 bits (kept without a pc): '#02 pc "
			  "1230000000000019c40");
	assert_null(hg_frame_image(&r->threads, &t->frames[0])->id);
	assert_non_null(hg_frame_image(&r->threads, &t->frames[1])->id); /* its own, whole */
	assert_false(t->frames[2].has_pc);
	assert_string_equal(t->frames[2].method, "Java_com_example_tombdemo_NativeDecoder_decode");
	assert_true(t->frames[3].has_pc);
	assert_int_equal(t->frames[3].pc, 0x377030);
	got_release(&g);
	free(zeros);
	free(wide);
	free(odd);
	free(text);
}

static void test_abort_message_never_closed(void **state)
{
	(void)state;
	size_t len;
	char *text = load(ABORT, &len);
	char *open = replaced(text, "while flushing input port 0'\n", "while flushing input port 0\n");
	struct got g;
	got_init(&g);
	const hg_report *r = read_good(&g, open, HG_FORMAT_AUTO);
	/* it ends where the registers start, and they are read */
	assert_warning(r, "line 15: the abort message has no closing quote: it is taken to end there");
	assert_meta(r, "abort_message", "frameworks/av/media/Codec.cpp:412] Check failed: state_ == "
					"kConfigured (state_=3, kConfigured=1)\nwhile flushing input port 0");
	assert_figure(r, "registers", "pc", "0000006f8a1e9d8c");
	assert_int_equal(blamed(r)->n_frames, 9);
	assert_int_equal(r->threads.n, 2);
	got_release(&g);
	free(open);
	free(text);
}

static void test_frame_cap(void **state)
{
	(void)state;
	size_t len;
	char *text = load(SEGV, &len);
	struct got g;
	got_init(&g);
	g.ctx.limits.max_stack_lines = 5;
	const hg_report *r = read_good(&g, text, HG_FORMAT_TOMBSTONE);
	assert_int_equal(blamed(r)->n_frames, 5);
	assert_int_equal(r->threads.items[1].n_frames, 0);
	assert_warning(r, "line 31: 14 frames past the report's cap (--max-stack-lines) that are not "
			  "read: '#05 pc");
	got_release(&g);
	free(text);
}

static void test_10000_threads(void **state)
{
	(void)state;
	enum { THREADS = 10000 };
	size_t cap = (size_t)THREADS * 400 + 4096, n = 0;
	char *text = malloc(cap);
	assert_non_null(text);
	n += (size_t)snprintf(text + n, cap - n, "*** *** *** *** *** *** *** *** *** *** *** *** *** "
			      "*** *** ***\nBuild fingerprint: 'x/y/z:14/A/1:user/release-keys'\n"
			      "pid: 1, tid: 1, name: main  >>> com.big <<<\nsignal 6 (SIGABRT), code -1 "
			      "(SI_QUEUE), fault addr --------\n\nbacktrace:\n    #00 pc 000000000005bd8c  "
			      "/apex/com.android.runtime/lib64/bionic/libc.so (abort+164)\n");
	for (int i = 0; i < THREADS; i++)
		n += (size_t)snprintf(text + n, cap - n, "--- --- --- --- --- --- --- --- --- --- --- --- "
				      "--- --- --- ---\npid: 1, tid: %d, name: worker-%d  >>> com.big <<<\n"
				      "\nbacktrace:\n    #00 pc 00000000000a3a44  /apex/com.android.runtime/"
				      "lib64/bionic/libc.so (__ioctl+4)\n    #01 pc 0000000000001%03x  "
				      "/data/app/com.big/lib/arm64/libbig%d.so (work+%d)\n", i + 2, i, i % 4096,
				      i, i);
	struct got g;
	got_init(&g);
	assert_int_equal(read_as(&g, text, n, HG_FORMAT_AUTO), 0);
	const hg_report *r = g.rep;
	assert_null(r->error);
	assert_int_equal(r->threads.n, THREADS + 1);
	assert_int_equal(r->threads.n_images, THREADS + 1); /* libc and one library each */
	const hg_thread *last = &r->threads.items[THREADS];
	assert_string_equal(last->name, "worker-9999");
	assert_int_equal(last->n_frames, 2);
	assert_string_equal(last->frames[1].method, "work");
	assert_int_equal(r->warnings.len, 0);
	got_release(&g);
	free(text);
}

static void test_not_a_tombstone(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	read_bad(&g, "*** *** ***\nnothing here\n", "no crashing thread in the tombstone (expected a "
		 "line like \"pid: 123, tid: 123, name: main  >>> com.example <<<\"); the first line "
		 "is \"*** *** ***\"", 1);
	got_release(&g);
	/* a banner and a pid line, but no signal or backtrace: not detected */
	assert_false(report_detect_text("*** *** ***\npid: 1, tid: 1, name: a  >>> b <<<\n", 44) ==
		     HG_FORMAT_TOMBSTONE);
}

/* Reads each damaged copy as a tombstone and detected: any number of
 * reports (a mutation may repeat the banner), each sane. */
static int sane_and_destroy(void *user, hg_report *rep)
{
	size_t *n = user;
	(*n)++;
	check_sane(rep);
	hg_report_destroy(rep);
	return 0;
}

static void read_any(const char *text, size_t len, enum hg_input_format format)
{
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	size_t n = 0;
	int rc = hg_reports_read_as(&ctx, FIXTURE_DAMAGED, text, len, format, sane_and_destroy, &n);
	assert_true(rc >= 0 && (size_t)rc <= n);
	assert_true(n >= 1);
}

static void test_every_41st_truncation(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof fixtures / sizeof *fixtures; i++) {
		size_t len;
		char *text = load(fixtures[i], &len);
		for (size_t cut = 0; cut <= len; cut += 41) {
			char *copy = malloc(cut + 1);
			assert_non_null(copy);
			memcpy(copy, text, cut);
			copy[cut] = '\0';
			read_any(copy, cut, HG_FORMAT_TOMBSTONE);
			read_any(copy, cut, HG_FORMAT_AUTO);
			free(copy);
		}
		free(text);
	}
}

static void test_1500_mutations(void **state)
{
	(void)state;
	size_t lens[2];
	char *texts[2];
	for (size_t i = 0; i < 2; i++)
		texts[i] = load(fixtures[i], &lens[i]);
	for (int k = 0; k < 1500; k++) {
		size_t i = (size_t)(rnd() % 2), m_len;
		char *m = mutate(texts[i], lens[i], &m_len);
		read_any(m, m_len, k % 2 ? HG_FORMAT_TOMBSTONE : HG_FORMAT_AUTO);
		free(m);
	}
	for (size_t i = 0; i < 2; i++)
		free(texts[i]);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xcrash_expected),
		cmocka_unit_test(test_xcrash_arm64_details),
		cmocka_unit_test(test_debuggerd_segv_worker),
		cmocka_unit_test(test_debuggerd_abort_two_lines),
		cmocka_unit_test(test_two_tombstones_run_together),
		cmocka_unit_test(test_cut_in_a_backtrace),
		cmocka_unit_test(test_registers_with_garbage),
		cmocka_unit_test(test_odd_build_id_and_wide_pcs),
		cmocka_unit_test(test_abort_message_never_closed),
		cmocka_unit_test(test_frame_cap),
		cmocka_unit_test(test_10000_threads),
		cmocka_unit_test(test_not_a_tombstone),
		cmocka_unit_test(test_every_41st_truncation),
		cmocka_unit_test(test_1500_mutations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
