/* Unit tests for signature explanations (hg_signature_explain) and their
 * rendering (hg_render_explain, hg_render_explain_json), on reports of
 * testdata/: a Matrix method stack and a Matrix LAG thread stack with
 * their mapping, an ART ANR dump, an iOS KSCrash hang, a rules file that
 * claims a library frame and ignores an app frame, an idle main thread, an
 * ambiguous retrace, an obfuscated class.  Each explanation's signature is
 * hg_signature_compute's, and over whole folders of testdata too.
 * argv[1] is the testdata/ folder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "hangar/cluster.h"
#include "hangar/input.h"
#include "hangar/namer.h"
#include "hangar/render.h"
#include "hangar/report.h"
#include "hangar/text.h"

static const char *testdata = "testdata";

/* As test_cluster.c has them (sha256sum of the canonical texts). */
#define IDLE_ANR_HASH "0e214ecf9675db480d4a2469df5523d8"
#define QUERY_ALL_HASH "2e99c8b71f619f3444ad0225ab910e0d"

/* ---- reading and naming ---- */

/* testdata/rel, in one of a few buffers (so that two can be used at once). */
static const char *td(const char *rel)
{
	static char paths[4][512];
	static int next;
	char *p = paths[next++ % 4];
	snprintf(p, sizeof paths[0], "%s/%s", testdata, rel);
	return p;
}

struct got {
	hg_report *rep[256];
	size_t n;
};

static int keep(void *user, hg_report *rep)
{
	struct got *g = user;
	if (g->n == sizeof g->rep / sizeof *g->rep) {
		hg_report_destroy(rep);
		return 1;
	}
	g->rep[g->n++] = rep;
	return 0;
}

static void quiet(void *user, const hg_diag *d)
{
	(void)user;
	(void)d;
}

static void release(struct got *g)
{
	for (size_t i = 0; i < g->n; i++)
		hg_report_destroy(g->rep[i]);
	free(g);
}

/* Every report of testdata/name, named as ingest names them with opts
 * (NULL: not named at all: ids stay ids); caller releases. */
static struct got *read_named(const char *name, const hg_namer_opts *opts)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", testdata, name);
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.diag = quiet;
	struct got *g = calloc(1, sizeof *g);
	assert_non_null(g);
	assert_true(hg_reports_read_path(&ctx, path, NULL, HG_FORMAT_AUTO, keep, g) >= 0);
	if (opts) {
		hg_namer *names;
		assert_int_equal(hg_namer_create(&ctx, opts, &names), 0);
		for (size_t i = 0; i < g->n; i++)
			if (!g->rep[i]->error)
				assert_int_equal(hg_namer_name(names, g->rep[i], NULL, path), 0);
		hg_namer_destroy(names);
	}
	return g;
}

/* The explanation of rep, checked against hg_signature_compute: the same
 * hash, lines, title, key symbol and flags, and each frame's line among
 * the lines, in order. */
static hg_explain explain(const hg_report *rep, const hg_rules *rules)
{
	hg_signature sig;
	hg_explain ex;
	assert_int_equal(hg_signature_compute(rep, rules, rep->arena, &sig), 0);
	assert_int_equal(hg_signature_explain(rep, rules, rep->arena, &ex), 0);
	assert_string_equal(ex.sig.hash, sig.hash);
	assert_int_equal(ex.sig.n_frames, sig.n_frames);
	for (size_t i = 0; i < sig.n_frames; i++)
		assert_string_equal(ex.sig.frames[i], sig.frames[i]);
	assert_string_equal(ex.sig.title ? ex.sig.title : "", sig.title ? sig.title : "");
	assert_string_equal(ex.sig.key_symbol ? ex.sig.key_symbol : "",
			    sig.key_symbol ? sig.key_symbol : "");
	assert_int_equal(ex.sig.symbolicated, sig.symbolicated);
	assert_int_equal(ex.sig.no_app_frame, sig.no_app_frame);
	size_t at = 1; /* past "app ..." */
	for (size_t i = 0; i < ex.n_frames; i++) {
		const hg_explain_frame *x = &ex.frames[i];
		bool hashed = x->used == HG_USE_KEY || x->used == HG_USE_TAKEN;
		assert_int_equal(hashed, x->line != NULL);
		assert_non_null(x->rule);
		if (!x->line)
			continue;
		while (at < sig.n_frames && strcmp(sig.frames[at], x->line) != 0)
			at++;
		if (at == sig.n_frames)
			fail_msg("frame %zu's line \"%s\" is not among the lines hashed", i, x->line);
		at++;
	}
	return ex;
}

/* The frame of ex whose text contains s; fails when none does. */
static const hg_explain_frame *frame_with(const hg_explain *ex, const char *s)
{
	for (size_t i = 0; i < ex->n_frames; i++)
		if (strstr(ex->frames[i].frame, s))
			return &ex->frames[i];
	fail_msg("no frame with \"%s\"", s);
	return NULL;
}

static void expect(const hg_explain *ex, const char *frame, hg_owner owner, const char *rule,
		   hg_frame_use used)
{
	const hg_explain_frame *x = frame_with(ex, frame);
	assert_string_equal(hg_owner_name(x->owner), hg_owner_name(owner));
	assert_string_equal(x->rule, rule);
	assert_string_equal(hg_frame_use_name(x->used), hg_frame_use_name(used));
}

/* ---- method stacks ---- */

static void test_method_stack_with_mapping(void **state)
{
	(void)state;
	hg_namer_opts no = {0}; /* the methodMapping.txt beside the report */
	struct got *g = read_named("cluster/build-a/slow-method.json", &no);
	assert_int_equal(g->n, 1);
	hg_explain ex = explain(g->rep[0], NULL);
	assert_string_equal(ex.sig.hash, QUERY_ALL_HASH);
	assert_int_equal(ex.basis, HG_BASIS_METHOD_STACK);
	assert_int_equal(ex.hashed_owner, HG_OWNER_APP);
	assert_string_equal(ex.app_from, "process com.example.reader");
	assert_string_equal(ex.app_prefix, "com.example.");
	assert_null(ex.app_image);
	assert_int_equal(ex.key_ancestors, 3);
	/* From the StackKey up its path to the root: 3 ancestors taken (an
	 * androidx one too: Matrix instruments the libraries the APK ships),
	 * two more past key-ancestors, the dispatch left out. */
	assert_int_equal(ex.n_frames, 7);
	const char *mapped = "mapped method (Matrix instruments the APK)";
	assert_string_equal(ex.frames[0].frame, "com.example.reader.db.BookDao.queryAll(String)");
	expect(&ex, "BookDao.queryAll", HG_OWNER_APP, mapped, HG_USE_KEY);
	expect(&ex, "FeedPresenter.refresh", HG_OWNER_APP, mapped, HG_USE_TAKEN);
	expect(&ex, "RecyclerView.setAdapter", HG_OWNER_APP, mapped, HG_USE_TAKEN);
	expect(&ex, "HomeActivity.onFeedReady", HG_OWNER_APP, mapped, HG_USE_PAST_LIMIT);
	expect(&ex, "HomeActivity$1.handleMessage", HG_OWNER_APP, mapped, HG_USE_PAST_LIMIT);
	expect(&ex, "Handler.dispatchMessage", HG_OWNER_PLATFORM, "Matrix dispatch id 1048574",
	       HG_USE_DISPATCH);
	assert_string_equal(ex.grouped_by, "the StackKey and its nearest app ancestors, up to "
			    "key-ancestors 3");
	release(g);
}

static void test_method_stack_unmapped(void **state)
{
	(void)state;
	struct got *g = read_named("cluster/build-a/slow-method.json", NULL);
	hg_explain ex = explain(g->rep[0], NULL);
	assert_false(ex.sig.symbolicated);
	expect(&ex, "#39010", HG_OWNER_APP, "unmapped method id #39010", HG_USE_KEY);
	assert_string_equal(ex.frames[0].line, "#39010");
	release(g);
}

/* ---- thread stacks ---- */

/* A Matrix LAG report's threadStack: the app's frames by its package
 * prefix, Gson a library's, StringBuilder the platform's. */
static void test_matrix_lag_thread_stack(void **state)
{
	(void)state;
	hg_namer_opts no = {.mapping_dir = td("labelled/mappings")};
	struct got *g = read_named("labelled/reports/reader.ndjson", &no);
	const hg_report *rep = g->rep[1]; /* line 2: a LAG */
	assert_int_equal(rep->line, 2);
	hg_explain ex = explain(rep, NULL);
	assert_int_equal(ex.basis, HG_BASIS_THREAD);
	assert_int_equal(ex.hashed_owner, HG_OWNER_APP);
	expect(&ex, "java.lang.StringBuilder.append", HG_OWNER_PLATFORM, "platform prefix java.",
	       HG_USE_OTHER_OWNER);
	expect(&ex, "com.google.gson.stream.JsonReader.peek", HG_OWNER_LIBRARY,
	       "library prefix com.google.", HG_USE_OTHER_OWNER);
	const char *pkg = "package prefix com.example. (the report's app)";
	expect(&ex, "JsonFeedParser.parse(", HG_OWNER_APP, pkg, HG_USE_TAKEN);
	expect(&ex, "FeedPresenter$4.run", HG_OWNER_APP, pkg, HG_USE_TAKEN);
	expect(&ex, "android.os.Handler.dispatchMessage", HG_OWNER_PLATFORM,
	       "platform prefix android.", HG_USE_OTHER_OWNER);
	assert_string_equal(frame_with(&ex, "FeedPresenter$4.run")->line,
			    "com.example.reader.feed.FeedPresenter$N.run");
	release(g);
}

/* An ART dump: the app's native library by its path, its Java frames by
 * the package, Room a library's, the looper the platform's; past
 * thread-frames 5, the rest of the app's frames are said, not hashed. */
static void test_anr_dump(void **state)
{
	(void)state;
	hg_namer_opts no = {0};
	struct got *g = read_named("cluster/build-a/anr.txt", &no);
	hg_explain ex = explain(g->rep[0], NULL);
	assert_int_equal(ex.basis, HG_BASIS_THREAD);
	assert_int_equal(ex.thread, 0);
	assert_string_equal(ex.thread_name, "main");
	assert_string_equal(ex.thread_why, "blamed");
	assert_int_equal(ex.n_frames, g->rep[0]->threads.items[0].n_frames);
	expect(&ex, "libart.so", HG_OWNER_PLATFORM, "platform image libart.so", HG_USE_OTHER_OWNER);
	expect(&ex, "libreadercore.so", HG_OWNER_APP,
	       "app image libreadercore.so (its path holds com.example.reader)", HG_USE_TAKEN);
	expect(&ex, "androidx.room.RoomDatabase", HG_OWNER_LIBRARY, "library prefix androidx.",
	       HG_USE_OTHER_OWNER);
	const char *pkg = "package prefix com.example. (the report's app)";
	expect(&ex, "FeedPresenter$1.run", HG_OWNER_APP, pkg, HG_USE_TAKEN);
	expect(&ex, "FeedPresenter.$r8$lambda", HG_OWNER_APP, pkg, HG_USE_PAST_LIMIT);
	expect(&ex, "android.os.Looper.loop(", HG_OWNER_PLATFORM, "platform prefix android.",
	       HG_USE_OTHER_OWNER);
	expect(&ex, "ZygoteInit.main", HG_OWNER_PLATFORM, "platform prefix com.android.",
	       HG_USE_OTHER_OWNER);
	assert_string_equal(ex.grouped_by, "its innermost app frames, up to thread-frames 5");
	release(g);
}

/* An iOS hang: the app's binary (a debug build's CrashTest.debug.dylib)
 * against the system's images. */
static void test_kscrash_images(void **state)
{
	(void)state;
	hg_namer_opts no = {0};
	struct got *g = read_named("kscrash/kscrash-3.7-hang-ios26-sim.json", &no);
	hg_explain ex = explain(g->rep[0], NULL);
	assert_string_equal(ex.app_image, "CrashTest");
	assert_int_equal(ex.hashed_owner, HG_OWNER_APP);
	expect(&ex, "__semwait_signal", HG_OWNER_PLATFORM, "platform image libsystem_kernel.dylib",
	       HG_USE_OTHER_OWNER);
	expect(&ex, "ContentViewV4body", HG_OWNER_APP, "app image CrashTest.debug.dylib",
	       HG_USE_TAKEN);
	expect(&ex, "UIKitCore", HG_OWNER_PLATFORM, "platform image UIKitCore", HG_USE_OTHER_OWNER);
	release(g);
}

/* A rules file: Room made the app's, FeedPresenter$1.run left out; the
 * frame past the limit before now comes within it. */
static void test_rules_file(void **state)
{
	(void)state;
	char path[] = "/tmp/hangar-test-explain-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	const char text[] = "# test\napp ^androidx\\.room\\.\nignore FeedPresenter\\$1\\.run$\n";
	assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
	close(fd);
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	hg_rules *rules;
	assert_int_equal(hg_rules_load(&ctx, path, &rules), 0);
	hg_namer_opts no = {0};
	struct got *g = read_named("cluster/build-a/anr.txt", &no);
	hg_explain ex = explain(g->rep[0], rules);
	char want[512];
	snprintf(want, sizeof want, "rules-file app /^androidx\\.room\\./ (%s:2)", path);
	expect(&ex, "androidx.room.RoomDatabase", HG_OWNER_APP, want, HG_USE_TAKEN);
	snprintf(want, sizeof want, "rules-file ignore /FeedPresenter\\$1\\.run$/ (%s:3)", path);
	expect(&ex, "FeedPresenter$1.run", HG_OWNER_IGNORED, want, HG_USE_IGNORED);
	expect(&ex, "FeedPresenter.$r8$lambda", HG_OWNER_APP,
	       "package prefix com.example. (the report's app)", HG_USE_PAST_LIMIT);
	/* the same report without the rules: another signature */
	hg_signature plain;
	assert_int_equal(hg_signature_compute(g->rep[0], NULL, g->rep[0]->arena, &plain), 0);
	assert_string_not_equal(plain.hash, ex.sig.hash);
	release(g);
	hg_rules_destroy(rules);
	unlink(path);
}

/* An idle main thread: no frame is hashed, the ANR type is. */
static void test_idle_main(void **state)
{
	(void)state;
	hg_namer_opts no = {0};
	struct got *g = read_named("anr/handmade-idle-main-nativepollonce-service.txt", &no);
	hg_explain ex = explain(g->rep[0], NULL);
	assert_string_equal(ex.sig.hash, IDLE_ANR_HASH);
	assert_int_equal(ex.hashed_owner, HG_OWNER_IGNORED);
	for (size_t i = 0; i < ex.n_frames; i++)
		assert_int_equal(ex.frames[i].used, HG_USE_OTHER_OWNER);
	expect(&ex, "libc.so", HG_OWNER_PLATFORM, "platform image libc.so", HG_USE_OTHER_OWNER);
	assert_non_null(strstr(ex.grouped_by, "idles in its looper"));
	release(g);
}

/* An ambiguous retrace: the second and later candidates are left out. */
static void test_retrace_candidates(void **state)
{
	(void)state;
	static const char dump[] = "java.lang.IllegalStateException: boom\n"
				   "\tat android.support.constraint.a.a.a(Unknown Source)\n";
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.diag = quiet;
	struct got *g = calloc(1, sizeof *g);
	assert_non_null(g);
	assert_int_equal(hg_reports_read(&ctx, "mem", dump, sizeof dump - 1, keep, g), 0);
	const char *pg[] = {td("proguard/rust-proguard/mapping-proguard-classic.txt")};
	hg_namer_opts no = {.proguard = pg, .n_proguard = 1};
	hg_namer *names;
	assert_int_equal(hg_namer_create(&ctx, &no, &names), 0);
	assert_int_equal(hg_namer_name(names, g->rep[0], NULL, "mem"), 0);
	hg_namer_destroy(names);
	hg_explain ex = explain(g->rep[0], NULL);
	assert_true(ex.n_frames > 2);
	assert_int_equal(ex.frames[0].used, HG_USE_TAKEN);
	assert_non_null(strstr(ex.frames[0].frame, "(retraced from: at android.support.constraint"));
	assert_string_equal(ex.frames[1].rule, "retrace candidate 2 (the first is kept)");
	assert_int_equal(ex.frames[1].owner, HG_OWNER_IGNORED);
	assert_int_equal(ex.frames[1].used, HG_USE_CANDIDATE);
	release(g);
}

/* R8's renamed classes are the app's, in a dump that names no app. */
static void test_obfuscated_no_app(void **state)
{
	(void)state;
	hg_namer_opts no = {0};
	struct got *g = read_named("anr/measure-r8-anr-trimmed-obfuscated.txt", &no);
	hg_explain ex = explain(g->rep[0], NULL);
	assert_false(ex.sig.app_known);
	assert_string_equal(ex.app_from, "no process: the folder of the report's source");
	expect(&ex, "bl.q0.run", HG_OWNER_APP, "obfuscated class q0", HG_USE_TAKEN);
	release(g);
}

/* ---- the same signatures as hg_signature_compute, over folders ---- */

static void all_of(const char *folder, const hg_namer_opts *no, const hg_rules *rules)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", testdata, folder);
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.diag = quiet;
	hg_path_list list;
	assert_int_equal(hg_input_list_folder(&ctx, path, &list), 0);
	size_t explained = 0;
	for (size_t i = 0; i < list.n; i++) {
		struct got *g = read_named(list.paths[i] + strlen(testdata) + 1, no);
		for (size_t k = 0; k < g->n; k++)
			if (!g->rep[k]->error) {
				explain(g->rep[k], rules);
				explained++;
			}
		release(g);
	}
	hg_path_list_release(&list);
	assert_true(explained > 0);
}

static void test_same_as_compute(void **state)
{
	(void)state;
	hg_namer_opts no = {0};
	all_of("anr", &no, NULL);
	all_of("kscrash", &no, NULL);
	all_of("metrickit", &no, NULL);
	all_of("java-stacks", &no, NULL);
	all_of("seeds", &no, NULL);
	hg_namer_opts labelled = {.mapping_dir = td("labelled/mappings")};
	all_of("labelled/reports", &labelled, NULL);
	/* and with rules: fewer ancestors and frames, an ignore */
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	hg_rules *rules;
	assert_int_equal(hg_rules_load(&ctx, td("cluster/good.rules"), &rules), 0);
	all_of("labelled/reports", &labelled, rules);
	all_of("anr", &no, rules);
	hg_rules_destroy(rules);
}

/* ---- rendering ---- */

static void test_render_text_fits(void **state)
{
	(void)state;
	hg_namer_opts no = {0};
	struct got *g = read_named("cluster/build-a/anr.txt", &no);
	hg_explain ex = explain(g->rep[0], NULL);
	hg_buf out;
	hg_buf_init(&out);
	hg_render_explain(&out, &ex, 0);
	assert_false(out.failed);
	assert_non_null(strstr(out.data, "signature   042bc83cbac19fefab61dcd7fc659040 (v2)\n"));
	assert_non_null(strstr(out.data, "\n  taken        app       app image libreadercore.so "
				       "(its path holds com.example.reader)  native: #01 pc"));
	hg_buf_reset(&out);
	hg_render_explain(&out, &ex, 80);
	for (const char *line = out.data; *line;) {
		size_t len = strcspn(line, "\n");
		if (hg_visible_cols(line, len) > 80)
			fail_msg("over 80 columns: %.*s", (int)len, line);
		line += len + (line[len] == '\n');
	}
	hg_buf_release(&out);
	release(g);
}

static void test_render_json(void **state)
{
	(void)state;
	hg_namer_opts no = {0};
	struct got *g = read_named("cluster/build-a/slow-method.json", &no);
	hg_explain ex = explain(g->rep[0], NULL);
	hg_buf out;
	hg_buf_init(&out);
	hg_render_explain_json(&out, &ex);
	assert_false(out.failed);
	cJSON *o = cJSON_ParseWithLength(out.data, out.len);
	assert_non_null(o);
	assert_string_equal(cJSON_GetObjectItem(o, "hash")->valuestring, QUERY_ALL_HASH);
	assert_string_equal(cJSON_GetObjectItem(o, "basis")->valuestring, "method_stack");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "thread")));
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(o, "lines")), 5);
	cJSON *frames = cJSON_GetObjectItem(o, "frames");
	assert_int_equal(cJSON_GetArraySize(frames), 7);
	cJSON *last = cJSON_GetArrayItem(frames, 6);
	assert_string_equal(cJSON_GetObjectItem(last, "owner")->valuestring, "platform");
	assert_string_equal(cJSON_GetObjectItem(last, "rule")->valuestring,
			    "Matrix dispatch id 1048574");
	assert_string_equal(cJSON_GetObjectItem(last, "used")->valuestring, "dispatch");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(last, "line")));
	cJSON_Delete(o);
	hg_buf_release(&out);
	release(g);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_method_stack_with_mapping),
		cmocka_unit_test(test_method_stack_unmapped),
		cmocka_unit_test(test_matrix_lag_thread_stack),
		cmocka_unit_test(test_anr_dump),
		cmocka_unit_test(test_kscrash_images),
		cmocka_unit_test(test_rules_file),
		cmocka_unit_test(test_idle_main),
		cmocka_unit_test(test_retrace_candidates),
		cmocka_unit_test(test_obfuscated_no_app),
		cmocka_unit_test(test_same_as_compute),
		cmocka_unit_test(test_render_text_fits),
		cmocka_unit_test(test_render_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
