/* Unit tests for the KSCrash reader (report_kscrash.c): the real reports of
 * testdata/kscrash/ (expected values worked out from their JSON by hand),
 * a hand-made Matrix WCBlockMonitor lag dump, exact unsigned addresses,
 * images whose range is none (refused one by one, the rest read), every
 * field with a wrong type, truncated inputs and deterministic random
 * mutations.  argv[1] is the testdata/ directory. */
#include <inttypes.h>

#include "report_fixture.h"

#include "json/json.h"
#include "report/report_internal.h"

static const char *testdata = "testdata";

/* ---- helpers ---- */

static char *load(const char *name, size_t *len)
{
	char dir[1024];
	snprintf(dir, sizeof dir, "%s/kscrash", testdata);
	return load_file(dir, name, len);
}

static const hg_report *good_file(struct fixture *f, const char *name)
{
	size_t len;
	char *text = load(name, &len);
	assert_int_equal(read_bytes(f, text, len), 0);
	free(text);
	assert_int_equal(f->delivered, 1);
	const hg_report *r = f->rep[0];
	if (r->error)
		fail_msg("%s: unexpected error: %s", name, r->error);
	assert_int_equal(r->format, HG_FORMAT_KSCRASH);
	assert_string_equal(r->platform, "ios");
	return r;
}

static void assert_frame(const hg_thread *t, size_t i, uint64_t pc, const char *symbol,
			 const char *image, bool has_offset, uint64_t offset, long repeat)
{
	assert_true(i < t->n_frames);
	const hg_frame *f = &t->frames[i];
	assert_int_equal(f->kind, HG_FRAME_NATIVE);
	assert_true(f->has_pc);
	if (f->pc != pc)
		fail_msg("frame %zu: pc %" PRIu64 ", expected %" PRIu64, i, f->pc, pc);
	if (symbol) {
		assert_string_equal(f->symbol, symbol);
		/* A mangled name is demangled once the report is read (test_demangle.c). */
		assert_string_equal(f->mangled ? f->mangled : f->method, symbol);
	} else {
		assert_null(f->symbol);
	}
	if (image)
		assert_string_equal(f->image, image);
	else
		assert_null(f->image);
	assert_int_equal(f->has_offset, has_offset);
	if (has_offset && f->offset != offset)
		fail_msg("frame %zu: offset %" PRIu64 ", expected %" PRIu64, i, f->offset, offset);
	assert_int_equal(f->repeat, repeat);
	assert_non_null(f->text);
}

/* Threads flagged `flag`, as a bit set of their indexes (< 64). */
static uint64_t flagged(const hg_report *r, unsigned flag)
{
	uint64_t set = 0;
	for (size_t i = 0; i < r->threads.n && i < 64; i++)
		if (r->threads.items[i].flags & flag)
			set |= (uint64_t)1 << i;
	return set;
}

static void assert_roles(const hg_report *r, long blamed, long main, uint64_t writers)
{
	assert_int_equal(r->threads.blamed, blamed);
	assert_int_equal(flagged(r, HG_THREAD_BLAMED), blamed < 0 ? 0 : (uint64_t)1 << blamed);
	assert_int_equal(flagged(r, HG_THREAD_MAIN), main < 0 ? 0 : (uint64_t)1 << main);
	assert_int_equal(flagged(r, HG_THREAD_CRASHED), writers);
}

static const char *meta(const hg_report *r, const char *key)
{
	for (size_t i = 0; i < r->meta_len; i++)
		if (strcmp(r->meta[i].key, key) == 0)
			return r->meta[i].json;
	return NULL;
}

static bool has_warning(const hg_report *r, const char *needle)
{
	for (size_t i = 0; i < r->warnings.len; i++)
		if (strstr(r->warnings.items[i], needle))
			return true;
	return false;
}

/* ---- the real reports ---- */

static void test_deadlock_2_0(void **state)
{
	const hg_report *r = good_file(*state, "kscrash-2.0-main-thread-deadlock-ios4-iphone4.json");
	assert_int_equal(r->kind, HG_KIND_IOS_HANG);
	assert_string_equal(r->detail, "deadlock");
	assert_string_equal(r->device, "iPhone3,1");
	assert_string_equal(r->process, "org.stenerud.Crash-Tester");
	assert_string_equal(r->app_version, "1.0"); /* 1.0 and 1.0 */
	assert_string_equal(r->time_written, "1970-01-17T18:49:14Z");
	assert_string_equal(r->time, "1970-01-17T18:49:14.000Z");
	assert_int_equal(r->foreground, 1);
	assert_int_equal(r->cost, 0);
	assert_int_equal(r->threads.n, 7);
	assert_roles(r, 0, 0, 1u << 4); /* thread 4 is current_thread */
	const hg_thread *t = &r->threads.items[0];
	/* the queue, as 2.0 clipped it ("apple.main-thread"), given back its "com." */
	assert_string_equal(t->name, "com.apple.main-thread");
	assert_int_equal(t->tid, 0);
	assert_int_equal(t->n_frames, 14);
	assert_frame(t, 0, 907590748, "semaphore_wait_signal_trap", "libsystem_kernel.dylib", true,
		     64604, 1);
	assert_string_equal(t->frames[0].text,
			    "libsystem_kernel.dylib 0x000000003618bc5c semaphore_wait_signal_trap + 8");
	assert_frame(t, 1, 908470072, "pthread_mutex_lock", "libsystem_c.dylib", true, 202552, 1);
	assert_frame(t, 2, 886777976, "-[NSLock lock]", "Foundation", true, 6264, 1);
	assert_string_equal(r->threads.items[3].name, "WebThread");
	assert_int_equal(r->threads.items[3].tid, 3);
	assert_frame(&r->threads.items[3], 0, 907590656, "mach_msg_trap", "libsystem_kernel.dylib",
		     true, 64512, 1);
	assert_null(r->threads.items[2].name);
	assert_int_equal(r->threads.items[4].n_frames, 0);
	assert_contains(meta(r, "diagnosis"), "Main thread deadlocked");
	assert_non_null(meta(r, "system"));
	assert_null(meta(r, "binary_images"));
	assert_null(meta(r, "crash"));
}

static void test_hang_3_7(void **state)
{
	const hg_report *r = good_file(*state, "kscrash-3.7-hang-ios26-sim.json");
	assert_int_equal(r->kind, HG_KIND_IOS_HANG);
	assert_string_equal(r->detail, "hang");
	assert_int_equal(r->cost, 8002); /* 897141715985666 - 897133713870375 ns */
	assert_int_equal(r->stack_cost, 8002);
	assert_string_equal(r->time_written, "1765315753629383");
	assert_string_equal(r->time, "2025-12-09T21:29:13.629Z");
	assert_string_equal(r->app_version, "1.0 (1)");
	assert_string_equal(r->device, "iPhone18,1");
	assert_string_equal(r->process, "com.bedroomCode.CrashTest");
	assert_int_equal(r->threads.n, 12);
	/* main: index 0 (crashed: true, the hung thread, not the writer);
	 * thread 5 is KSCrash's hang watchdog, which wrote the report. */
	assert_roles(r, 0, 0, 1u << 5);
	const hg_thread *t = &r->threads.items[0];
	assert_string_equal(t->name, "main"); /* KSCrash 3 names none: the main thread is "main" */
	assert_string_equal(t->state, "TH_STATE_WAITING");
	assert_int_equal(t->n_frames, 56);
	assert_frame(t, 0, 4311924304, "__semwait_signal", "libsystem_kernel.dylib", true, 15952, 1);
	/* The report says "libobjc.A.dylib (GCC_except_table763)" at
	 * 0x142ccc into libobjc; binary_images places the address in
	 * libsystem_c.dylib (0x180141000, 512708 bytes), and Foundation: the
	 * report's names are not used, and one warning counts them all. */
	assert_frame(t, 1, 6444231116, NULL, "libsystem_c.dylib", true, 0x1801b29cc - 0x180141000, 1);
	assert_frame(t, 2, 6460320676, NULL, "Foundation", true, 0x18110aba4 - 0x18085f000, 1);
	const hg_image *im = hg_frame_image(&r->threads, &t->frames[1]);
	assert_non_null(im);
	assert_int_equal(im->kind, HG_IMAGE_MACHO);
	assert_string_equal(im->name, "libsystem_c.dylib");
	assert_string_equal(im->id, "4BE317CE-E19B-36B1-809A-B1FBF17587A8");
	assert_true(im->has_load_addr);
	assert_int_equal(im->load_addr, 0x180141000);
	assert_int_equal(im->vmaddr, 0x180141000);
	assert_int_equal(im->size, 512708);
	assert_true(strstr(im->path, "/usr/lib/system/libsystem_c.dylib") != NULL);
	/* Frame 0's names agree with its image: kept, and placed too. */
	assert_string_equal(hg_frame_image(&r->threads, &t->frames[0])->name, "libsystem_kernel.dylib");
	bool warned = false;
	for (size_t i = 0; i < r->warnings.len; i++)
		warned |= strncmp(r->warnings.items[i], "59 frames name another image", 28) == 0 &&
			  strstr(r->warnings.items[i], "crash.threads[0].backtrace.contents[1]: "
				 "0x1801b29cc is libsystem_c.dylib +0x719cc, the report says "
				 "libobjc.A.dylib (GCC_except_table763)") != NULL;
	assert_true(warned);
	/* Only the images some frame lies in are kept, each once. */
	assert_true(r->threads.n_images > 5 && r->threads.n_images < 100);
	for (size_t i = 0; i < r->threads.n_images; i++)
		for (size_t j = i + 1; j < r->threads.n_images; j++)
			assert_ptr_not_equal(r->threads.images[i].path, r->threads.images[j].path);
	/* No symbol and no image holds it among the 792. */
	assert_frame(t, 54, 4309750736, NULL, NULL, false, 0, 1);
	assert_int_equal(t->frames[54].image_ref, 0);
	assert_string_equal(t->frames[54].text, "??? 0x0000000100e193d0");
	assert_string_equal(r->threads.items[5].name, "com.kscrash.hang.watchdog.thread");
	assert_frame(&r->threads.items[5], 0, 0, NULL, NULL, false, 0, 1);
}

static void test_watchdog_8badf00d(void **state)
{
	const hg_report *r = good_file(*state, "kscrash-3.7-watchdog-8badf00d-ios26-sim.json");
	assert_int_equal(r->kind, HG_KIND_IOS_HANG);
	assert_string_equal(r->detail, "mach");
	assert_int_equal(r->cost, 250); /* 896795233899208 - 896794983811166 ns */
	assert_int_equal(r->threads.n, 14);
	assert_roles(r, 0, 0, 1u << 5);
	assert_frame(&r->threads.items[0], 0, 4368694864, "__semwait_signal", "libsystem_kernel.dylib",
		     true, 15952, 1);
	assert_frame(&r->threads.items[0], 1, 6444231116, NULL, "libsystem_c.dylib", true, 0x719cc, 1);
	assert_string_equal(r->threads.items[9].name, "com.apple.uikit.eventfetch-thread");
}

static void test_startup_profile(void **state)
{
	const hg_report *r = good_file(*state, "kscrash-3.7-startup-profile-ios26-sim.json");
	assert_int_equal(r->kind, HG_KIND_STARTUP);
	assert_string_equal(r->detail, "profile");
	assert_int_equal(r->cost, 262); /* 262253917 ns */
	assert_true(r->sampled);
	assert_null(meta(r, "error")); /* its sample table is not metadata */
	/* 25 samples with frames (one is empty) end at 22 distinct stacks, each
	 * a sample thread, after the hot path (the blamed thread). */
	assert_true(has_warning(r, "1 of the profile's 26 samples hold no frames"));
	assert_int_equal(r->threads.n, 23);
	assert_int_equal(r->n_samples, 25);
	assert_roles(r, 0, 0, 0);
	const hg_thread *t = &r->threads.items[0];
	assert_string_equal(t->name, "main");
	/* The hot path, worked out from the samples by hand (a Python trie):
	 * 46 frames from main (19 samples) to Foundation's
	 * dlopenHelper$libcmark-gfm.dylib (2), placed in binary_images. */
	assert_int_equal(t->n_frames, 46);
	assert_frame(t, 45, 4388869555, "main", "CrashTest.debug.dylib", true, 21939, 19);
	assert_frame(t, 44, 4388869387, "$s9CrashTest0aB3AppV5$mainyyFZ", "CrashTest.debug.dylib",
		     true, 21771, 19);
	assert_frame(t, 0, 6461286747, "dlopenHelper$libcmark-gfm.dylib", "Foundation", true,
		     10058075, 2);
	assert_frame(t, 1, 4387215835, "_dispatch_client_callout", "libdispatch.dylib", true,
		     4387215835 - 4387094528, 2);
	const hg_image *im = hg_frame_image(&r->threads, &t->frames[0]);
	assert_non_null(im);
	assert_string_equal(im->id, "249188A3-8F44-3D76-ACB0-0345A43EB0A3");
	/* Repeats never grow from the outermost frame in. */
	for (size_t i = 1; i < t->n_frames; i++)
		assert_true(t->frames[i - 1].repeat <= t->frames[i].repeat);
	/* the first sample with frames is the profile's second */
	assert_string_equal(r->threads.items[1].name, "sample 2");
	assert_int_equal(r->threads.items[1].flags, HG_THREAD_SAMPLE);
}

static void test_sentry_swift_crash(void **state)
{
	const hg_report *r = good_file(*state, "sentrycrash-ios15-iphone12-swift-fatal-error.json");
	assert_int_equal(r->kind, HG_KIND_CRASH);
	assert_string_equal(r->device, "iPhone13,2");
	assert_string_equal(r->app_version, "7.7.0 (1)");
	assert_string_equal(r->time_written, "2021-12-28T09:45:53Z");
	assert_string_equal(r->time, "2021-12-28T09:45:53.000Z");
	assert_int_equal(r->threads.n, 12);
	assert_roles(r, 0, 0, 1u << 10); /* crashed main; SentryCrash's handler wrote it */
	const char *fatal = "$ss17_assertionFailure__4file4line5flagss5NeverOs12StaticStringV_SSAHSus6"
			    "UInt32VtF";
	const hg_thread *t = &r->threads.items[0];
	assert_frame(t, 0, 6534886984, fatal, "libswiftCore.dylib", true, 239176, 1);
	assert_string_equal(t->frames[0].method,
			    "Swift._assertionFailure(_: Swift.StaticString, _: Swift.String, file: "
			    "Swift.StaticString, line: Swift.UInt, flags: Swift.UInt32) -> Swift.Never");
	assert_frame(t, 2, 4340472840, "$s9iOS_Swift14ViewControllerC14captureMessageyyypF",
		     "iOS-Swift", true, 39944, 1);
	assert_frame(t, 28, 4342520484, NULL, NULL, false, 0, 1);
	assert_string_equal(r->threads.items[10].name, "SentryCrash Exception Handler (Primary)");
}

static void test_sentry_user_report(void **state)
{
	const hg_report *r = good_file(*state, "sentrycrash-ios10-iphone7plus-user-report.json");
	/* A user-reported exception with no Matrix dump type nor representative
	 * stack is an error report, not a hang. */
	assert_int_equal(r->kind, HG_KIND_CRASH);
	assert_string_equal(r->detail, "user");
	assert_string_equal(r->time_written, "1481727207");
	assert_string_equal(r->time, "2016-12-14T14:53:27.000Z");
	assert_int_equal(r->threads.n, 13);
	/* Thread 5 is crashed and current: it wrote the report; never blamed. */
	assert_roles(r, 0, 0, 1u << 5);
	assert_frame(&r->threads.items[5], 0, 4299557340, "kscrashsentry_reportUserException",
		     "KSCrash", true, 281052, 1);
	assert_frame(&r->threads.items[0], 0, 4305877868,
		     "_TFV10Foundation12URLQueryItem19_bridgeToObjectiveCfT_CSo14NSURLQueryItem",
		     "libswiftFoundation.dylib", true, 359276, 1);
	assert_string_equal(r->threads.items[0].frames[0].text,
			    "libswiftFoundation.dylib 0x0000000100a67b6c "
			    "_TFV10Foundation12URLQueryItem19_bridgeToObjectiveCfT_CSo14NSURLQueryItem + 0");
}

static void test_metrickit_is_not_kscrash(void **state)
{
	struct fixture *f = *state;
	size_t len;
	char *text = load("metrickit-callstacktree-real.json", &len);
	hg_json_doc *doc = NULL;
	size_t end;
	assert_int_equal(hg_json_parse(text, len, &doc, &end), 0);
	assert_false(report_is_kscrash(hg_json_root(doc)));
	assert_true(report_is_metrickit(hg_json_root(doc)));
	hg_json_doc_destroy(doc);
	assert_int_equal(read_bytes(f, text, len), 0); /* the MetricKit reader reads it */
	assert_int_equal(f->rep[0]->format, HG_FORMAT_METRICKIT);
	free(text);
}

/* ---- the Matrix lag dump ---- */

static void assert_matrix_dump(const hg_report *r)
{
	assert_int_equal(r->kind, HG_KIND_IOS_HANG);
	assert_string_equal(r->detail, "MainThreadBlock"); /* dump_type 2001 */
	assert_string_equal(r->device, "iPhone12,1");
	assert_string_equal(r->process, "com.example.lagdemo");
	assert_string_equal(r->app_version, "8.0.38 (8.0.38.2300)");
	assert_string_equal(r->time_written, "1700000000");
	assert_string_equal(r->time, "2023-11-14T22:13:20.000Z");
	assert_int_equal(r->threads.n, 4);
	/* HandledThread blamed; main found by its queue; the monitor (crashed
	 * and current) wrote the dump. */
	assert_roles(r, 0, 1, 1u << 3);
	const hg_thread *h = &r->threads.items[0];
	assert_string_equal(h->name, "HandledThread");
	assert_int_equal(h->tid, -1);
	assert_int_equal(h->n_frames, 8);
	assert_frame(h, 0, 7008616456, "__psynch_mutexwait", "libsystem_kernel.dylib", true, 32776, 12);
	assert_frame(h, 1, 7009112148, "_pthread_mutex_firstfit_lock_wait", "libsystem_pthread.dylib",
		     true, 4180, 12);
	/* No symbol, no object: found in binary_images (LagDemo at 0x100000000). */
	assert_frame(h, 2, 4295000064, NULL, "LagDemo", true, 0x8000, 12);
	assert_frame(h, 3, 4295032584, NULL, "LagDemo", true, 0xff08, 11);
	assert_string_equal(h->frames[3].text, "LagDemo 0x000000010000ff08 0x100000000 + 65288");
	/* An object but no symbol name. */
	assert_frame(h, 4, 4295100000, NULL, "LagDemo", true, 132704, 9);
	assert_frame(h, 5, 6476106000, "-[UIApplication sendEvent:]", "UIKitCore", true, 100624, 12);
	assert_frame(h, 6, 6442502000, "__CFRunLoopRun", "CoreFoundation", true, 51056, 12);
	assert_frame(h, 7, 12345, NULL, NULL, false, 0, 3);
	const hg_thread *m = &r->threads.items[1];
	assert_string_equal(m->name, "com.apple.main-thread");
	assert_int_equal(m->tid, 0);
	assert_frame(m, 2, 4295000064, "-[LDFeedViewController loadCache]", "LagDemo", true, 32768, 1);
	assert_string_equal(m->frames[2].text,
			    "LagDemo 0x0000000100008000 -[LDFeedViewController loadCache] + 1024");
	assert_null(r->threads.items[3].name);
	assert_int_equal(r->threads.items[3].tid, 2);
	assert_frame(&r->threads.items[3], 2, 4362273768, "-[WCBlockMonitorMgr threadProc]", "Matrix",
		     true, 197608, 1);
}

static void test_matrix_lag_dump(void **state)
{
	assert_matrix_dump(good_file(*state, "matrix-wcblockmonitor-lag-2001.json"));
}

/* Matrix uploads several dumps as one JSON array: one report each. */
static void test_matrix_array(void **state)
{
	struct fixture *f = *state;
	size_t len;
	char *one = load("matrix-wcblockmonitor-lag-2001.json", &len);
	char *two = malloc(2 * len + 8);
	assert_non_null(two);
	int n = snprintf(two, 2 * len + 8, "[%s,\n%s]", one, one);
	assert_int_equal(read_bytes(f, two, (size_t)n), 0);
	assert_int_equal(f->delivered, 2);
	assert_int_equal(f->rep[1]->number, 2);
	assert_matrix_dump(f->rep[0]);
	assert_matrix_dump(f->rep[1]);
	free(one);
	free(two);
}

static void test_u64_addresses(void **state)
{
	const hg_report *r = good_file(*state, "handmade-u64-addresses.json");
	assert_int_equal(r->kind, HG_KIND_IOS_HANG);
	assert_int_equal(r->cost, 709); /* 18446744073709551615 - 18446744073000000000 ns */
	assert_string_equal(r->app_version, "2.0");
	assert_roles(r, 0, 0, 1u << 1);
	const hg_thread *t = &r->threads.items[0];
	assert_frame(t, 0, UINT64_MAX, NULL, "top.dylib", true, 0xffff, 1);
	assert_frame(t, 1, UINT64_MAX - 1, NULL, "top.dylib", true, 0xfffe, 1); /* -2 */
	assert_frame(t, 2, (uint64_t)1 << 63, "f", "high.dylib", true, 65536, 1);
	assert_string_equal(t->frames[2].text, "high.dylib 0x8000000000000000 f + 8");
	assert_frame(t, 3, (uint64_t)1 << 63, NULL, NULL, false, 0, 1); /* -2^63 */
	assert_frame(t, 4, 0xffffffffffff0101u, NULL, "top.dylib", true, 0x101, 1);
	assert_frame(t, 5, 0, NULL, NULL, false, 0, 1);
}

/* ---- small reports made here ---- */

#define SYS "\"report\":{\"timestamp\":1},"

/* Each frame placed by its address: the report's names kept when they
 * agree with the image, dropped (and counted) when the object name, its
 * address or the symbol's address says otherwise. */
static void test_frames_placed_by_binary_images(void **state)
{
	struct fixture *f = *state;
#define IMG(addr, size, name, uuid) "{\"image_addr\":" addr ",\"image_size\":" size \
	",\"image_vmaddr\":4096,\"name\":\"/x/" name "\",\"uuid\":\"" uuid "\"}"
#define FR(pc, rest) "{\"instruction_addr\":" pc rest "}"
	const hg_report *r = one_good(f, "{" SYS "\"crash\":{\"error\":{\"type\":\"hang\"},"
		"\"threads\":[{\"index\":0,\"crashed\":true,\"backtrace\":{\"contents\":["
		FR("4100", ",\"object_name\":\"A\",\"object_addr\":4096,\"symbol_name\":\"a1\","
		   "\"symbol_addr\":4098")                                   /* agrees */
		"," FR("8200", ",\"object_name\":\"A\",\"object_addr\":4096,\"symbol_name\":\"x\"") /* in B */
		"," FR("4100", ",\"object_name\":\"A\",\"object_addr\":9999,\"symbol_name\":\"y\"") /* addr */
		"," FR("4100", ",\"object_name\":\"A\",\"symbol_name\":\"z\",\"symbol_addr\":4200") /* above pc */
		"," FR("99999", ",\"object_name\":\"C\",\"object_addr\":99000,\"symbol_name\":\"c\"") /* no image */
		"," FR("8195", "")
		"]}}]},\"binary_images\":["
		IMG("4096", "4096", "A", "AAAAAAAA-0000-0000-0000-000000000001") ","
		IMG("8192", "4096", "B", "BBBBBBBB-0000-0000-0000-000000000002") ","
		IMG("65536", "4096", "Unused", "CCCCCCCC-0000-0000-0000-000000000003") "]}");
#undef IMG
#undef FR
	const hg_thread *t = &r->threads.items[0];
	assert_frame(t, 0, 4100, "a1", "A", true, 4, 1);
	assert_frame(t, 1, 8200, NULL, "B", true, 8, 1);
	assert_frame(t, 2, 4100, NULL, "A", true, 4, 1);
	assert_frame(t, 3, 4100, NULL, "A", true, 4, 1);
	assert_frame(t, 4, 99999, "c", "C", true, 999, 1);
	assert_int_equal(t->frames[4].image_ref, 0);
	assert_frame(t, 5, 8195, NULL, "B", true, 3, 1);
	assert_int_equal(r->threads.n_images, 2); /* "Unused" holds no frame */
	const hg_image *a = hg_frame_image(&r->threads, &t->frames[0]);
	const hg_image *b = hg_frame_image(&r->threads, &t->frames[1]);
	assert_ptr_equal(a, hg_frame_image(&r->threads, &t->frames[3]));
	assert_ptr_equal(b, hg_frame_image(&r->threads, &t->frames[5]));
	assert_string_equal(a->id, "AAAAAAAA-0000-0000-0000-000000000001");
	assert_string_equal(b->path, "/x/B");
	assert_int_equal(b->load_addr, 8192);
	assert_int_equal(b->vmaddr, 4096);
	bool warned = false;
	for (size_t i = 0; i < r->warnings.len; i++)
		warned |= strcmp(r->warnings.items[i], "3 frames name another image or symbol than "
				 "binary_images places them in; the report's object_name and "
				 "symbol_name are not used for them (e.g. crash.threads[0].backtrace"
				 ".contents[1]: 0x2008 is B +0x8, the report says A (x))") == 0;
	assert_true(warned);
}

static void test_user_dump_without_handled_thread(void **state)
{
	struct fixture *f = *state;
	const hg_report *r = one_good(f, "{" SYS "\"crash\":{\"error\":{\"type\":\"user\","
				      "\"user_reported\":{\"name\":\"2001\",\"dump_type\":2001}},"
				      "\"threads\":[{\"index\":0,\"crashed\":false},"
				      "{\"index\":1,\"crashed\":true,\"current_thread\":true}]}}");
	assert_int_equal(r->kind, HG_KIND_IOS_HANG);
	assert_string_equal(r->detail, "MainThreadBlock");
	assert_roles(r, 0, 0, 1u << 1);
	/* The monitor is thread 0 and nothing else is known: nobody to blame. */
	r = one_good(f, "{" SYS "\"crash\":{\"error\":{\"type\":\"user\",\"user_reported\":"
		     "{\"dump_type\":2010}},\"threads\":[{\"index\":0,\"crashed\":true}]}}");
	assert_roles(r, -1, 0, 1u << 0);
	assert_string_equal(r->detail, "BlockAndBeKilled");
	r = one_good(f, "{" SYS "\"crash\":{\"error\":{\"type\":\"user\",\"user_reported\":"
		     "{\"dump_type\":2004}},\"threads\":[]}}");
	assert_int_equal(r->kind, HG_KIND_IOS_HANG);
	assert_string_equal(r->detail, "2004");
}

static void test_repeat_counts_mark_the_representative_stack(void **state)
{
	/* Not named HandledThread, and an "nsexception" dump: repeat_count
	 * frames still make it Matrix's representative stack. */
	const hg_report *r = one_good(*state, "{" SYS "\"crash\":{\"error\":{\"type\":\"nsexception\"},"
				      "\"threads\":[{\"index\":0,\"name\":\"main\"},"
				      "{\"index\":0,\"backtrace\":{\"contents\":[{\"instruction_addr\":5,"
				      "\"repeat_count\":40}]}}]}}");
	assert_int_equal(r->kind, HG_KIND_IOS_HANG);
	assert_roles(r, 1, 0, 0);
	assert_int_equal(r->threads.items[1].frames[0].repeat, 40);
	assert_string_equal(r->threads.items[0].name, "main");
}

static void test_kinds(void **state)
{
	struct fixture *f = *state;
	static const struct {
		const char *error;
		enum hg_report_kind kind;
	} cases[] = {
		{"{\"type\":\"mach\",\"exit_reason\":{\"code\":2343432205}}", HG_KIND_IOS_HANG},
		{"{\"type\":\"mach\",\"exit_reason\":{\"code\":1}}", HG_KIND_CRASH},
		{"{\"type\":\"signal\",\"hang\":{}}", HG_KIND_IOS_HANG},
		{"{\"type\":\"deadlock\"}", HG_KIND_IOS_HANG},
		{"{\"type\":\"hang\"}", HG_KIND_IOS_HANG},
		{"{\"type\":\"cpp_exception\"}", HG_KIND_CRASH},
		{"{\"type\":\"user\"}", HG_KIND_CRASH},
		{"{\"type\":\"profile\",\"profile\":{\"name\":\"scroll\"}}", HG_KIND_UNKNOWN},
		{"{}", HG_KIND_CRASH},
	};
	char text[512];
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		snprintf(text, sizeof text, "{" SYS "\"crash\":{\"error\":%s,\"threads\":[]}}",
			 cases[i].error);
		const hg_report *r = one_good(f, text);
		if (r->kind != cases[i].kind)
			fail_msg("%s: kind %s", cases[i].error, hg_report_kind_name(r->kind));
	}
}

static void test_crashed_thread_of_a_minimal_report(void **state)
{
	const hg_report *r = one_good(*state, "{" SYS "\"crash\":{\"error\":{\"type\":\"signal\"},"
				      "\"crashed_thread\":{\"index\":3,\"crashed\":true,\"backtrace\":"
				      "{\"contents\":[{\"instruction_addr\":-1}]}}}}");
	assert_int_equal(r->kind, HG_KIND_CRASH);
	assert_int_equal(r->threads.n, 1);
	assert_int_equal(r->threads.items[0].tid, 3);
	assert_roles(r, 0, -1, 0);
	assert_frame(&r->threads.items[0], 0, UINT64_MAX, NULL, NULL, false, 0, 1);
}

static void test_warnings(void **state)
{
	struct fixture *f = *state;
	const hg_report *r = one_good(f, "{" SYS "\"crash\":{\"error\":{\"type\":\"signal\"}}}");
	assert_int_equal(r->threads.n, 0);
	assert_true(has_warning(r, "the report holds no threads"));
	r = one_good(f, "{" SYS "\"crash\":{\"error\":{\"type\":\"hang\",\"hang\":{\"hang_start_nanos\":"
		     "9000000,\"hang_end_nanos\":1}},\"threads\":[{\"backtrace\":{\"skipped\":7}}]}}");
	assert_int_equal(r->cost, 0);
	assert_true(has_warning(r, "before it starts"));
	assert_true(has_warning(r, "crash.threads[0]: KSCrash skipped 7 frames"));
}

static void test_nulls_are_absent(void **state)
{
	const hg_report *r = one_good(*state, "{\"report\":{\"timestamp\":null},\"system\":{\"machine\":"
				      "null,\"model\":\"N90AP\"},\"crash\":{\"error\":null,\"threads\":"
				      "[{\"name\":null,\"index\":null,\"backtrace\":{\"contents\":"
				      "[{\"instruction_addr\":7,\"symbol_name\":null,\"object_name\":"
				      "null}]}}]}}");
	assert_null(r->time);
	assert_string_equal(r->device, "N90AP");
	assert_int_equal(r->threads.items[0].tid, -1);
	assert_frame(&r->threads.items[0], 0, 7, NULL, NULL, false, 0, 1);
}

static void test_forced_format(void **state)
{
	struct fixture *f = *state;
	reset(f);
	const char *text = "{\"crash\":[1]}";
	assert_int_equal(hg_reports_read_as(&f->ctx, "mem.json", text, strlen(text), HG_FORMAT_KSCRASH,
					    sink, f), 1);
	assert_string_equal(f->rep[0]->error, "field \"crash\": expected an object, got [1]");
	reset(f);
	text = "{\"tag\":\"x\"}";
	assert_int_equal(hg_reports_read_as(&f->ctx, "mem.json", text, strlen(text), HG_FORMAT_KSCRASH,
					    sink, f), 1);
	assert_string_equal(f->rep[0]->error, "not a KSCrash report: no \"crash\" object");
}

static void test_frame_limit(void **state)
{
	struct fixture *f = *state;
	size_t len;
	char *text = load("kscrash-2.0-main-thread-deadlock-ios4-iphone4.json", &len);
	f->ctx.limits.max_stack_lines = 20;
	assert_int_equal(read_bytes(f, text, len), 1);
	f->ctx.limits.max_stack_lines = HG_DEFAULT_MAX_STACK_LINES;
	free(text);
	/* threads 0 and 1 with their 14 + 4 frames make 20 */
	assert_string_equal(f->rep[0]->error, "field \"crash.threads[2]\": more than 20 threads and "
			    "frames in the report, over the limit (see --max-stack-lines)");
}

/* Images whose range is no range: each refused alone, with a warning
 * naming it and the field; the rest of the report is read, and the frames
 * they would hold are shown unplaced. */
static void test_hostile_images(void **state)
{
	struct fixture *f = *state;
#define IMG(addr, size, name) "{\"image_addr\":" addr ",\"image_size\":" size name "}"
	const hg_report *r = one_good(f, "{" SYS "\"system\":{\"machine\":\"iPhone9,1\"},"
		"\"crash\":{\"error\":{\"type\":\"hang\"},\"threads\":["
		"{\"index\":0,\"crashed\":true,\"backtrace\":{\"contents\":["
		"{\"instruction_addr\":4100},"                       /* in A */
		"{\"instruction_addr\":8200,\"object_name\":\"UIKitCore\",\"object_addr\":4096},"
		"{\"instruction_addr\":18446744073709551610},"       /* in Top, ending at 2^64 */
		"{\"instruction_addr\":65600}]}},"                   /* in Half, refused */
		"{\"index\":1,\"name\":\"worker\",\"backtrace\":{\"contents\":[{\"instruction_addr\":4097}]}}]},"
		"\"binary_images\":["
		IMG("4096", "4096", ",\"name\":\"/x/A\"") ","                       /* 0: kept */
		IMG("4096", "-4096", ",\"name\":\"/x/NegSize\"") ","                /* 1 */
		IMG("-4096", "4096", ",\"name\":\"/x/NegAddr\"") ","                /* 2 */
		IMG("4096", "18446744073709551615", ",\"name\":\"/S/UIKitCore\"") "," /* 3 */
		IMG("18446744073709550592", "4096", ",\"name\":\"Near\"") ","       /* 4: 2^64-1024 */
		IMG("65536", "0", ",\"name\":\"/x/Empty\"") ","                     /* 5 */
		IMG("65536", "4096.5", ",\"name\":\"/x/Half\"") ","                 /* 6 */
		IMG("65536", "4e3", ",\"uuid\":\"C0FFEE00-0000-0000-0000-000000000007\"") "," /* 7 */
		IMG("18446744073709551616", "4096", ",\"name\":\"/x/Big\"") ","     /* 8 */
		IMG("18446744073709547520", "4096", ",\"name\":\"/x/Top\"") ","     /* 9: kept */
		IMG("-0", "4096", ",\"name\":\"/x/Zero\"") ","                      /* 10: kept */
		IMG("131072", "-0", "") "]}");                              /* 11 */
#undef IMG
	static const char *const expected[] = {
		"binary_images[1] \"NegSize\": image_size -4096 is negative; image ignored",
		"binary_images[2] \"NegAddr\": image_addr -4096 is negative; image ignored",
		"binary_images[3] \"UIKitCore\": image_size 18446744073709551615 wraps past 2^64; "
		"image ignored",
		"binary_images[4] \"Near\": image_size 4096 wraps past 2^64; image ignored",
		"binary_images[5] \"Empty\": image_size 0 makes it empty; image ignored",
		"binary_images[6] \"Half\": image_size 4096.5 is not an integer; image ignored",
		"binary_images[7] \"C0FFEE00-0000-0000-0000-000000000007\": image_size 4e3 is not an "
		"integer; image ignored",
		"binary_images[8] \"Big\": image_addr 18446744073709551616 does not fit in 64 bits; "
		"image ignored",
		"binary_images[11]: image_size -0 makes it empty; image ignored",
	};
	size_t n = sizeof expected / sizeof *expected;
	if (r->warnings.len != n)
		fail_msg("%zu warnings, expected %zu (the first: %s)", r->warnings.len, n,
			 r->warnings.len ? r->warnings.items[0] : "none");
	for (size_t i = 0; i < n; i++)
		assert_string_equal(r->warnings.items[i], expected[i]);
	/* the rest is read: both threads, the device, whom to blame */
	assert_string_equal(r->device, "iPhone9,1");
	assert_int_equal(r->kind, HG_KIND_IOS_HANG);
	assert_int_equal(r->threads.n, 2);
	assert_roles(r, 0, 0, 0);
	const hg_thread *t = &r->threads.items[0];
	assert_int_equal(t->n_frames, 4);
	assert_frame(t, 0, 4100, NULL, "A", true, 4, 1);
	/* UIKitCore was refused: the report's own word, as for any frame no image holds */
	assert_frame(t, 1, 8200, NULL, "UIKitCore", true, 4104, 1);
	assert_int_equal(t->frames[1].image_ref, 0);
	assert_frame(t, 2, 18446744073709551610u, NULL, "Top", true, 4090, 1);
	assert_frame(t, 3, 65600, NULL, NULL, false, 0, 1);
	assert_string_equal(t->frames[3].text, "??? 0x0000000000010040");
	assert_frame(&r->threads.items[1], 0, 4097, NULL, "A", true, 1, 1);
	assert_int_equal(r->threads.n_images, 2); /* A and Top */
}

/* A report of thousands of bad images says so in a dozen lines, not in
 * thousands. */
static void test_hostile_images_counted(void **state)
{
	struct fixture *f = *state;
	hg_buf b;
	hg_buf_init(&b);
	hg_buf_puts(&b, "{" SYS "\"crash\":{\"error\":{\"type\":\"hang\"},\"threads\":[{\"index\":0,"
		    "\"backtrace\":{\"contents\":[{\"instruction_addr\":100}]}}]},\"binary_images\":[");
	for (int i = 0; i < 5000; i++)
		hg_buf_printf(&b, "%s{\"image_addr\":%d,\"image_size\":-1,\"name\":\"L%d\"}",
			      i ? "," : "", 4096 * (i + 1), i);
	hg_buf_puts(&b, ",{\"image_addr\":64,\"image_size\":64,\"name\":\"/x/Low\"}]}");
	assert_false(b.failed);
	const hg_report *r = one_good(f, b.data);
	hg_buf_release(&b);
	assert_int_equal(r->warnings.len, 11);
	assert_string_equal(r->warnings.items[0],
			    "binary_images[0] \"L0\": image_size -1 is negative; image ignored");
	assert_string_equal(r->warnings.items[9],
			    "binary_images[9] \"L9\": image_size -1 is negative; image ignored");
	assert_string_equal(r->warnings.items[10], "4990 more binary_images have an image_addr or "
			    "image_size that is no range; images ignored");
	assert_frame(&r->threads.items[0], 0, 100, NULL, "Low", true, 36, 1);
}

/* ---- bad input ---- */

/* Every field the reader reads, with the right types: each case below
 * breaks one of them (`from` occurs once in BASE). */
#define BASE                                                                                      \
	"{\"report\":{\"timestamp\":11,\"process_name\":\"rp\"},\n"                               \
	"\"system\":{\"machine\":\"m\",\"model\":\"mo\",\"CFBundleIdentifier\":\"b\","          \
	"\"process_name\":\"sp\",\"CFBundleShortVersionString\":\"1\",\"CFBundleVersion\":\"2\","  \
	"\"application_stats\":{\"application_in_foreground\":true}},\n"                          \
	"\"crash\":{\"error\":{\"type\":\"user\",\"hang\":{\"hang_start_nanos\":12,"              \
	"\"hang_end_nanos\":13},\"exit_reason\":{\"code\":14},\"user_reported\":"                \
	"{\"dump_type\":2001}},\n"                                                                \
	"\"threads\":[{\"index\":15,\"name\":\"n\",\"dispatch_queue\":\"q\",\"state\":\"s\","      \
	"\"crashed\":false,\"current_thread\":false,\"backtrace\":{\"skipped\":16,\"contents\":[\n" \
	"{\"instruction_addr\":17,\"object_addr\":18,\"symbol_addr\":19,\"object_name\":\"o\","   \
	"\"symbol_name\":\"sy\",\"repeat_count\":20}]}}]},\n"                                     \
	"\"binary_images\":[{\"image_addr\":21,\"image_size\":22,\"name\":\"i\"}]}"

static const struct bad_case bad_cases[] = {
	{"\"timestamp\":11", "\"timestamp\":true",
	 "field \"report.timestamp\": expected a string or a number, got true"},
	{"\"report\":{\"timestamp\":11,\"process_name\":\"rp\"}", "\"report\":[]",
	 "field \"report\": expected an object, got []"},
	{"\"process_name\":\"rp\"", "\"process_name\":5",
	 "field \"report.process_name\": expected a string, got 5"},
	{"\"machine\":\"m\"", "\"machine\":5", "field \"system.machine\": expected a string, got 5"},
	{"\"model\":\"mo\"", "\"model\":{}", "field \"system.model\": expected a string, got {}"},
	{"\"CFBundleIdentifier\":\"b\"", "\"CFBundleIdentifier\":[\"b\"]",
	 "field \"system.CFBundleIdentifier\": expected a string, got [\"b\"]"},
	{"\"process_name\":\"sp\"", "\"process_name\":false",
	 "field \"system.process_name\": expected a string, got false"},
	{"\"CFBundleShortVersionString\":\"1\"", "\"CFBundleShortVersionString\":1.5",
	 "field \"system.CFBundleShortVersionString\": expected a string, got 1.5"},
	{"\"CFBundleVersion\":\"2\"", "\"CFBundleVersion\":2",
	 "field \"system.CFBundleVersion\": expected a string, got 2"},
	{"\"application_stats\":{", "\"application_stats\":3,\"x\":{",
	 "field \"system.application_stats\": expected an object, got 3"},
	{"\"application_in_foreground\":true", "\"application_in_foreground\":\"yes\"",
	 "field \"system.application_stats.application_in_foreground\": expected true or false, "
	 "got \"yes\""},
	{"\"system\":{", "\"system\":\"s\",\"x\":{", "field \"system\": expected an object, got \"s\""},
	{"\"error\":{\"type\"", "\"error\":\"e\",\"x\":{\"type\"",
	 "field \"crash.error\": expected an object, got \"e\""},
	{"\"type\":\"user\"", "\"type\":7", "field \"crash.error.type\": expected a string, got 7"},
	{"\"hang\":{", "\"hang\":1,\"x\":{", "field \"crash.error.hang\": expected an object, got 1"},
	{"\"hang_start_nanos\":12", "\"hang_start_nanos\":\"12\"",
	 "field \"crash.error.hang.hang_start_nanos\": expected an unsigned 64-bit integer, got \"12\""},
	{"\"hang_end_nanos\":13", "\"hang_end_nanos\":1.5",
	 "field \"crash.error.hang.hang_end_nanos\": expected an unsigned 64-bit integer, got 1.5"},
	{"\"exit_reason\":{", "\"exit_reason\":[],\"x\":{",
	 "field \"crash.error.exit_reason\": expected an object, got []"},
	{"\"code\":14", "\"code\":1e3",
	 "field \"crash.error.exit_reason.code\": expected an unsigned 64-bit integer, got 1e3"},
	{"\"user_reported\":{", "\"user_reported\":5,\"x\":{",
	 "field \"crash.error.user_reported\": expected an object, got 5"},
	{"\"dump_type\":2001", "\"dump_type\":\"2001\"",
	 "field \"crash.error.user_reported.dump_type\": expected an integer >= 0, got \"2001\""},
	{"\"dump_type\":2001", "\"dump_type\":-1",
	 "field \"crash.error.user_reported.dump_type\": expected an integer >= 0, got -1"},
	{"\"threads\":[{", "\"threads\":{\"a\":1},\"t\":[{",
	 "field \"crash.threads\": expected an array, got {\"a\":1}"},
	{"\"threads\":[{", "\"threads\":[5,{", "field \"crash.threads[0]\": expected an object, got 5"},
	{"\"index\":15", "\"index\":\"0\"",
	 "field \"crash.threads[0].index\": expected an integer >= 0, got \"0\""},
	{"\"index\":15", "\"index\":-1",
	 "field \"crash.threads[0].index\": expected an integer >= 0, got -1"},
	{"\"name\":\"n\"", "\"name\":1", "field \"crash.threads[0].name\": expected a string, got 1"},
	{"\"dispatch_queue\":\"q\"", "\"dispatch_queue\":1",
	 "field \"crash.threads[0].dispatch_queue\": expected a string, got 1"},
	{"\"state\":\"s\"", "\"state\":[]", "field \"crash.threads[0].state\": expected a string, got []"},
	{"\"crashed\":false", "\"crashed\":\"true\"",
	 "field \"crash.threads[0].crashed\": expected true or false, got \"true\""},
	{"\"current_thread\":false", "\"current_thread\":0",
	 "field \"crash.threads[0].current_thread\": expected true or false, got 0"},
	{"\"backtrace\":{", "\"backtrace\":[],\"x\":{",
	 "field \"crash.threads[0].backtrace\": expected an object, got []"},
	{"\"skipped\":16", "\"skipped\":\"16\"",
	 "field \"crash.threads[0].backtrace.skipped\": expected an integer >= 0, got \"16\""},
	{"\"contents\":[\n", "\"contents\":{},\"x\":[\n",
	 "field \"crash.threads[0].backtrace.contents\": expected an array, got {}"},
	{"\"contents\":[\n", "\"contents\":[\"frame\",\n",
	 "field \"crash.threads[0].backtrace.contents[0]\": expected an object, got \"frame\""},
	{"\"instruction_addr\":17", "\"instruction_addr\":\"0x11\"",
	 "field \"crash.threads[0].backtrace.contents[0].instruction_addr\": expected an unsigned "
	 "64-bit integer, got \"0x11\""},
	{"\"instruction_addr\":17", "\"instruction_addr\":18446744073709551616",
	 "contents[0].instruction_addr\": expected an unsigned 64-bit integer, got 18446744073709551616"},
	{"\"instruction_addr\":17", "\"instruction_addr\":-9223372036854775809",
	 "contents[0].instruction_addr\": expected an unsigned 64-bit integer, got -9223372036854775809"},
	{"\"instruction_addr\":17", "\"instruction_addr\":17.0",
	 "contents[0].instruction_addr\": expected an unsigned 64-bit integer, got 17.0"},
	{"\"object_addr\":18", "\"object_addr\":true",
	 "contents[0].object_addr\": expected an unsigned 64-bit integer, got true"},
	{"\"symbol_addr\":19", "\"symbol_addr\":[19]",
	 "contents[0].symbol_addr\": expected an unsigned 64-bit integer, got [19]"},
	{"\"object_name\":\"o\"", "\"object_name\":1",
	 "contents[0].object_name\": expected a string, got 1"},
	{"\"symbol_name\":\"sy\"", "\"symbol_name\":{}",
	 "contents[0].symbol_name\": expected a string, got {}"},
	{"\"repeat_count\":20", "\"repeat_count\":\"12\"",
	 "contents[0].repeat_count\": expected an integer >= 0, got \"12\""},
	{"\"repeat_count\":20", "\"repeat_count\":-3",
	 "contents[0].repeat_count\": expected an integer >= 0, got -3"},
	{"\"binary_images\":[{", "\"binary_images\":{\"x\":1},\"b\":[{",
	 "field \"binary_images\": expected an array, got {\"x\":1}"},
	{"\"binary_images\":[{", "\"binary_images\":[1,{",
	 "field \"binary_images[0]\": expected an object, got 1"},
	{"\"image_addr\":21", "\"image_addr\":\"21\"",
	 "field \"binary_images[0].image_addr\": expected an unsigned 64-bit integer, got \"21\""},
	/* a number that is no size (2.5, -1) refuses the image alone: test_hostile_images */
	{"\"image_size\":22", "\"image_size\":[22]",
	 "field \"binary_images[0].image_size\": expected an unsigned 64-bit integer, got [22]"},
	{"\"name\":\"i\"", "\"name\":[]", "field \"binary_images[0].name\": expected a string, got []"},
	{"\"type\":\"user\"", "\"type\":\"profile\",\"profile\":\"p\"",
	 "field \"crash.error.profile\": expected an object, got \"p\""},
	{"\"type\":\"user\"", "\"type\":\"profile\",\"profile\":{\"name\":1}",
	 "field \"crash.error.profile.name\": expected a string, got 1"},
	{"\"type\":\"user\"", "\"type\":\"profile\",\"profile\":{\"time_units\":false}",
	 "field \"crash.error.profile.time_units\": expected a string, got false"},
	{"\"type\":\"user\"", "\"type\":\"profile\",\"profile\":{\"duration\":\"1\"}",
	 "field \"crash.error.profile.duration\": expected an unsigned 64-bit integer, got \"1\""},
	{"\"type\":\"user\"", "\"type\":\"profile\",\"profile\":{\"samples\":{}}",
	 "field \"crash.error.profile.samples\": expected an array, got {}"},
	{"\"threads\":[", "\"crashed_thread\":7,\"x\":[",
	 "field \"crash.crashed_thread\": expected an object, got 7"},
};

static void test_wrong_types(void **state)
{
	struct fixture *f = *state;
	const hg_report *r = one_good(f, BASE);
	assert_int_equal(r->threads.n, 1);
	assert_int_equal(r->threads.items[0].frames[0].repeat, 20);
	check_bad_cases(f, BASE, bad_cases, sizeof bad_cases / sizeof *bad_cases);
}

/* A bad number is placed at its line and column. */
static void test_bad_field_position(void **state)
{
	struct fixture *f = *state;
	char *text = replace_once(BASE, "\"instruction_addr\":17", "\"instruction_addr\":-0.5");
	one_failed(f, text, "got -0.5");
	assert_int_equal(f->diag[0].line, 5);
	assert_int_equal(f->diag[0].col, 21);
	free(text);
	/* Deep in a bigger report: thread 3, frame 2. */
	hg_buf b;
	hg_buf_init(&b);
	hg_buf_puts(&b, "{\"report\":{},\"crash\":{\"threads\":[");
	for (int t = 0; t < 4; t++) {
		hg_buf_printf(&b, "%s{\"index\":%d,\"backtrace\":{\"contents\":[", t ? "," : "", t);
		for (int i = 0; i < 3; i++)
			hg_buf_printf(&b, "%s{\"instruction_addr\":%s}", i ? "," : "",
				      t == 3 && i == 2 ? "\"4096\"" : "4096");
		hg_buf_puts(&b, "]}}");
	}
	hg_buf_puts(&b, "]}}");
	assert_false(b.failed);
	one_failed(f, b.data, "field \"crash.threads[3].backtrace.contents[2].instruction_addr\": "
		   "expected an unsigned 64-bit integer, got \"4096\"");
	hg_buf_release(&b);
}

/* What a delivered report must satisfy, however bad its input. */
static void check_report(const hg_report *r)
{
	if (r->error) {
		assert_true(strlen(r->error) > 0);
		return;
	}
	const hg_threads *ts = &r->threads;
	assert_true(ts->blamed >= -1 && ts->blamed < (long)ts->n);
	int mains = 0;
	for (size_t i = 0; i < ts->n; i++) {
		const hg_thread *t = &ts->items[i];
		mains += (t->flags & HG_THREAD_MAIN) != 0;
		/* the writer of the report is never to blame */
		if ((long)i == ts->blamed)
			assert_true((t->flags & (HG_THREAD_BLAMED | HG_THREAD_CRASHED)) == HG_THREAD_BLAMED);
		else
			assert_false(t->flags & HG_THREAD_BLAMED);
		for (size_t j = 0; j < t->n_frames; j++) {
			const hg_frame *fr = &t->frames[j];
			assert_non_null(fr->text);
			assert_true(fr->repeat >= 0);
			assert_true(strlen(fr->text) + (fr->image ? strlen(fr->image) : 0) +
				    (fr->symbol ? strlen(fr->symbol) : 0) > 0);
		}
	}
	assert_true(mains <= 1);
	assert_true(r->cost >= 0 && r->stack_cost == r->cost);
}

static void read_and_check(struct fixture *f, const char *text, size_t len)
{
	reset(f);
	f->discard = false;
	int rc = hg_reports_read(&f->ctx, "mem.json", text, len, sink, f);
	assert_true(rc >= 0);
	assert_true(f->delivered >= 1);
	assert_int_equal((size_t)rc, f->errors);
	for (size_t i = 0; i < f->n_kept; i++)
		check_report(f->rep[i]);
}

static void truncate_file(struct fixture *f, const char *name)
{
	size_t len;
	char *text = load(name, &len);
	char *cut = malloc(len + 1);
	assert_non_null(cut);
	for (size_t n = 997; n < len; n += 997) {
		memcpy(cut, text, n);
		cut[n] = '\0';
		read_and_check(f, cut, n);
		assert_int_equal(f->errors, 1); /* cut inside the one object */
		assert_contains(f->rep[0]->error, "invalid JSON");
	}
	free(cut);
	free(text);
}

static void test_truncated(void **state)
{
	truncate_file(*state, "kscrash-2.0-main-thread-deadlock-ios4-iphone4.json");
	truncate_file(*state, "sentrycrash-ios10-iphone7plus-user-report.json");
	truncate_file(*state, "matrix-wcblockmonitor-lag-2001.json");
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rnd(uint64_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state % n;
}

/* Replaces the scalar after a random ':' with another JSON value, so the
 * text mostly stays JSON and reaches the reader's type checks. */
static size_t mutate_value(char *buf, size_t len, size_t cap)
{
	static const char *const values[] = {
		"null", "true", "\"x\"", "-1", "0", "18446744073709551615", "18446744073709551616",
		"-9223372036854775808", "1.5", "{}", "[]", "[{}]", "\"HandledThread\"",
		"\"com.apple.main-thread\"", "\"profile\"", "\"user\"", "\"hang\"", "2343432205",
	};
	size_t at = (size_t)rnd(len);
	const char *colon = memchr(buf + at, ':', len - at);
	if (!colon)
		return len;
	size_t s = (size_t)(colon - buf) + 1, e = s;
	if (e < len && buf[e] == '"') {
		for (e++; e < len && buf[e] != '"'; e++)
			e += buf[e] == '\\';
		e += e < len;
	} else {
		while (e < len && !strchr(",}]\n", buf[e]))
			e++;
	}
	const char *v = values[rnd(sizeof values / sizeof *values)];
	size_t vlen = strlen(v);
	if (len - (e - s) + vlen >= cap)
		return len;
	memmove(buf + s + vlen, buf + e, len - e);
	memcpy(buf + s, v, vlen);
	return len - (e - s) + vlen;
}

/* Overwrites, deletes or duplicates a few bytes. */
static size_t mutate_bytes(char *buf, size_t len, size_t cap)
{
	static const char chars[] = "{}[]\",:-.0123456789eEtrufalsn \\\x80\xff";
	size_t at = (size_t)rnd(len), span = 1 + (size_t)rnd(16);
	switch (rnd(3)) {
	case 0:
		buf[at] = rnd(4) ? chars[rnd(sizeof chars - 1)] : (char)rnd(256);
		return len;
	case 1:
		span = span < len - at ? span : len - at;
		memmove(buf + at, buf + at + span, len - at - span);
		return len - span;
	default:
		span = span < len - at ? span : len - at;
		if (len + span >= cap)
			return len;
		memmove(buf + at + span, buf + at, len - at);
		return len + span;
	}
}

static void mutate_file(struct fixture *f, const char *name, int rounds)
{
	size_t len;
	char *text = load(name, &len);
	size_t cap = len + 4096;
	char *buf = malloc(cap + 1);
	assert_non_null(buf);
	size_t good = 0, field_errors = 0;
	for (int i = 0; i < rounds; i++) {
		memcpy(buf, text, len);
		size_t n = len;
		int ops = 1 + (int)rnd(4);
		bool bytes = rnd(4) == 0;
		for (int k = 0; k < ops && n > 0; k++)
			n = bytes ? mutate_bytes(buf, n, cap) : mutate_value(buf, n, cap);
		buf[n] = '\0';
		read_and_check(f, buf, n);
		good += f->errors == 0;
		for (size_t r = 0; r < f->n_kept; r++)
			field_errors += f->rep[r]->error && strncmp(f->rep[r]->error, "field \"", 7) == 0;
	}
	/* Good reports, and reports the reader itself refused. */
	assert_true(good > 0 && good < (size_t)rounds);
	assert_true(field_errors > 0);
	free(buf);
	free(text);
}

static void test_mutations(void **state)
{
	rng_state = 0x9e3779b97f4a7c15u;
	mutate_file(*state, "matrix-wcblockmonitor-lag-2001.json", 3000);
	mutate_file(*state, "handmade-u64-addresses.json", 2000);
	mutate_file(*state, "kscrash-2.0-main-thread-deadlock-ios4-iphone4.json", 300);
}

#define BAD_INPUT_TESTS                                                                           \
	cmocka_unit_test_setup_teardown(test_wrong_types, setup, teardown),                         \
	cmocka_unit_test_setup_teardown(test_bad_field_position, setup, teardown),                  \
	cmocka_unit_test_setup_teardown(test_truncated, setup, teardown),                           \
	cmocka_unit_test_setup_teardown(test_mutations, setup, teardown)

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_deadlock_2_0, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hang_3_7, setup, teardown),
		cmocka_unit_test_setup_teardown(test_watchdog_8badf00d, setup, teardown),
		cmocka_unit_test_setup_teardown(test_startup_profile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sentry_swift_crash, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sentry_user_report, setup, teardown),
		cmocka_unit_test_setup_teardown(test_metrickit_is_not_kscrash, setup, teardown),
		cmocka_unit_test_setup_teardown(test_matrix_lag_dump, setup, teardown),
		cmocka_unit_test_setup_teardown(test_matrix_array, setup, teardown),
		cmocka_unit_test_setup_teardown(test_u64_addresses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frames_placed_by_binary_images, setup, teardown),
		cmocka_unit_test_setup_teardown(test_user_dump_without_handled_thread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_repeat_counts_mark_the_representative_stack, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_kinds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crashed_thread_of_a_minimal_report, setup, teardown),
		cmocka_unit_test_setup_teardown(test_warnings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nulls_are_absent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forced_format, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frame_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_images, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_images_counted, setup, teardown),
		BAD_INPUT_TESTS,
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
