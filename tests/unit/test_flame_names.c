/* Unit tests for how flame graphs name and describe frames (issues 26 and
 * 27): a native frame is named as the text view and JSON's "name" name it
 * (demangled Swift and C++, the "+offset" its symbol was written with),
 * the mangled symbol kept for the tooltip; the source file:line a report
 * gives (a Matrix-iOS frame's, a Java frame's) is in every format's
 * tooltip or frame; a merged flame keeps them; every sampled format draws
 * every sample.  Reports from testdata: a KSCrash hang with Swift and C++
 * symbols, a tombstone, the Matrix-iOS article's report, WatchDog,
 * MetricKit and BlockCanary logs.  argv[1] is testdata/. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hangar/flame.h"
#include "hangar/report.h"

static const char *testdata = "testdata";

static int keep_first(void *user, hg_report *rep)
{
	hg_report **first = user;
	if (*first)
		hg_report_destroy(rep);
	else
		*first = rep;
	return 0;
}

/* The first report of testdata/rel (caller destroys it). */
static hg_report *read_first(const char *rel)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", testdata, rel);
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	hg_report *rep = NULL;
	assert_true(hg_reports_read_path(&ctx, path, NULL, HG_FORMAT_AUTO, keep_first, &rep) >= 0);
	assert_non_null(rep);
	assert_null(rep->error);
	return rep;
}

static const hg_flame_node *node_named(const hg_flame *f, const char *name)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->nodes[i].name && !strcmp(f->nodes[i].name, name))
			return &f->nodes[i];
	fail_msg("no frame named \"%s\"", name);
	return NULL;
}

enum writer { FOLDED, SVG, CHROME, SPEEDSCOPE };

/* What a writer makes of f, NUL-terminated (caller frees). */
static char *written(const hg_flame *f, enum writer w)
{
	hg_buf b;
	hg_buf_init(&b);
	if (w == FOLDED)
		hg_flame_write_folded(f, &b);
	else if (w == SVG)
		hg_flame_write_svg(f, NULL, &b);
	else if (w == CHROME)
		hg_flame_write_chrome(f, &b);
	else
		hg_flame_write_speedscope(f, &b);
	hg_buf_putc(&b, '\0');
	assert_false(b.failed);
	return b.data;
}

static void assert_in(const char *text, const char *needle)
{
	if (!strstr(text, needle))
		fail_msg("\"%s\" is not in the output", needle);
}

#define READER_LOAD "Reader.FeedView.reloadStories(from: [Swift.String]) -> ()"
#define READER_LOAD_MANGLED "$s6Reader8FeedViewC13reloadStories4fromySaySSG_tF"

/* A KSCrash hang whose Swift and C++ symbols are mangled: the flame names
 * them as the tree view does, never by the mangled symbol, which stays in
 * the tooltip (and Chrome's args); names written as read have none. */
static void demangled_names(void **state)
{
	(void)state;
	hg_report *rep = read_first("demangle/kscrash-hang-swift-cxx.json");
	hg_arena *a = hg_arena_create();
	hg_flame f;
	assert_int_equal(hg_flame_from_report(rep, false, a, &f), 0);
	for (size_t i = 0; i < f.n; i++) {
		assert_true(strncmp(f.nodes[i].name, "$s", 2) != 0);
		assert_true(strncmp(f.nodes[i].name, "_Z", 2) != 0);
	}
	const hg_flame_node *load = node_named(&f, READER_LOAD);
	assert_string_equal(load->symbol, READER_LOAD_MANGLED);
	assert_string_equal(load->image, "Reader");
	assert_null(load->file);
	assert_int_equal(load->line, -1);
	const hg_flame_node *sleep = node_named(&f, "std::__1::this_thread::sleep_for(std::__1::chrono::"
						"duration<long long, std::__1::ratio<1l, 1000000000l> > "
						"const&)");
	assert_string_equal(sleep->symbol, "_ZNSt3__111this_thread9sleep_forERKNS_6chrono8durationIxNS"
			    "_5ratioILl1ELl1000000000EEEEE");
	const hg_flame_node *as_read = node_named(&f, "-[UIApplication _run]");
	assert_null(as_read->symbol); /* nothing to add: its name is its symbol */
	assert_string_equal(as_read->image, "UIKitCore");

	char *folded = written(&f, FOLDED);
	assert_in(folded, ";" READER_LOAD ";");
	assert_null(strstr(folded, "$s6Reader"));
	free(folded);
	char *svg = written(&f, SVG);
	assert_in(svg, "<title>Reader.FeedView.reloadStories(from: [Swift.String]) -&gt; ()\n"
		  "in Reader\nsymbol " READER_LOAD_MANGLED "\n1 thread,");
	assert_in(svg, "<title>-[UIApplication _run]\nin UIKitCore\n1 thread,");
	free(svg);
	char *chrome = written(&f, CHROME);
	assert_in(chrome, "{\"name\":\"" READER_LOAD "\",");
	assert_in(chrome, "\"image\":\"Reader\",\"symbol\":\"" READER_LOAD_MANGLED "\"}}");
	free(chrome);
	char *ss = written(&f, SPEEDSCOPE);
	assert_in(ss, "{\"name\":\"" READER_LOAD "\",\"file\":\"Reader\"}");
	assert_null(strstr(ss, "$s6Reader"));
	free(ss);
	hg_arena_destroy(a);
	hg_report_destroy(rep);
}

/* A tombstone's demangled C++ frames keep the "+offset" their symbol was
 * written with, as the tree view shows "art::...(...)+624". */
static void offsets_kept(void **state)
{
	(void)state;
	hg_report *rep = read_first("tombstone/xcrash-android10-pixel-arm64-native.txt");
	hg_arena *a = hg_arena_create();
	hg_flame f;
	assert_int_equal(hg_flame_from_report(rep, false, a, &f), 0);
	size_t demangled = 0;
	for (size_t i = 0; i < f.n; i++) {
		const hg_flame_node *nd = &f.nodes[i];
		assert_true(strncmp(nd->name, "_Z", 2) != 0);
		const char *plus = nd->symbol ? strrchr(nd->symbol, '+') : NULL;
		if (!nd->symbol || strncmp(nd->symbol, "_Z", 2) != 0 || !plus)
			continue;
		demangled++;
		size_t tail = strlen(plus), len = strlen(nd->name);
		assert_true(len > tail);
		assert_string_equal(nd->name + len - tail, plus);
	}
	assert_true(demangled >= 3);
	hg_arena_destroy(a);
	hg_report_destroy(rep);
}

/* The Matrix-iOS article's report gives its app frames' source lines
 * (HTHangValidation.swift:379): in the tooltip, Chrome's args and
 * speedscope's frames. */
static void native_source_lines(void **state)
{
	(void)state;
	hg_report *rep = read_first("seeds/matrix-ios/article-report.json");
	hg_arena *a = hg_arena_create();
	hg_flame f;
	assert_int_equal(hg_flame_from_report(rep, false, a, &f), 0);
	const hg_flame_node *block = node_named(&f, "static HTHangValidationModel."
					       "blockMainThreadForFourSeconds()");
	assert_string_equal(block->file, "HTHangValidation.swift");
	assert_int_equal(block->line, 379);
	assert_null(block->symbol);
	const hg_flame_node *sleep = node_named(&f, "nanosleep");
	assert_null(sleep->file);
	assert_int_equal(sleep->line, -1);
	char *svg = written(&f, SVG);
	assert_in(svg, "<title>static HTHangValidationModel.blockMainThreadForFourSeconds()\n"
		  "at HTHangValidation.swift:379\n1 thread,");
	assert_in(svg, "<title>nanosleep\n1 thread,");
	free(svg);
	char *chrome = written(&f, CHROME);
	assert_in(chrome, "\"file\":\"HTHangValidation.swift\",\"line\":379");
	free(chrome);
	char *ss = written(&f, SPEEDSCOPE);
	assert_in(ss, "{\"name\":\"static HTHangValidationModel.blockMainThreadForFourSeconds()\","
		  "\"file\":\"HTHangValidation.swift\",\"line\":379}");
	free(ss);
	hg_arena_destroy(a);
	hg_report_destroy(rep);
}

/* A WatchDog log's tree of samples: Java frames with their file:line. */
static void java_source_lines(void **state)
{
	(void)state;
	hg_report *rep = read_first("seeds/watchdog/feed-threadtime-two-blocks.log");
	hg_arena *a = hg_arena_create();
	hg_flame f;
	assert_int_equal(hg_flame_from_report(rep, false, a, &f), 0);
	assert_int_equal(f.unit, HG_FLAME_SAMPLES);
	const hg_flame_node *n = node_named(&f, "java.util.ArrayList.indexOf");
	assert_string_equal(n->file, "ArrayList.java");
	assert_int_equal(n->line, 321);
	assert_null(n->image);
	assert_null(n->symbol);
	char *svg = written(&f, SVG);
	assert_in(svg, "<title>java.util.ArrayList.indexOf\nat ArrayList.java:321\n3 samples,");
	assert_in(svg, "<title>java.lang.reflect.Method.invoke\nat Native Method\n3 samples,");
	free(svg);
	hg_arena_destroy(a);
	hg_report_destroy(rep);
}

/* A merged flame (diff --flame's reports) keeps each path's source,
 * image and symbol, copied out of the flames it merged. */
static void merged_keeps_them(void **state)
{
	(void)state;
	hg_arena *out = hg_arena_create();
	hg_flame_merger *m = hg_flame_merger_create(out);
	assert_non_null(m);
	static const char *const files[] = {"demangle/kscrash-hang-swift-cxx.json",
					    "seeds/matrix-ios/article-report.json"};
	for (size_t i = 0; i < 2; i++) {
		hg_report *rep = read_first(files[i]);
		hg_arena *a = hg_arena_create();
		hg_flame f;
		assert_int_equal(hg_flame_from_report(rep, false, a, &f), 0);
		assert_int_equal(hg_flame_merger_add(m, &f), 0);
		hg_arena_destroy(a); /* the merger copied what it keeps */
		hg_report_destroy(rep);
	}
	hg_flame f;
	assert_int_equal(hg_flame_merger_finish(m, "merged", &f), 0);
	hg_flame_merger_destroy(m);
	const hg_flame_node *load = node_named(&f, READER_LOAD);
	assert_string_equal(load->symbol, READER_LOAD_MANGLED);
	assert_string_equal(load->image, "Reader");
	const hg_flame_node *block = node_named(&f, "static HTHangValidationModel."
					       "blockMainThreadForFourSeconds()");
	assert_string_equal(block->file, "HTHangValidation.swift");
	assert_int_equal(block->line, 379);
	assert_int_equal(node_named(&f, "main")->line, -1); /* a root: no source */
	hg_arena_destroy(out);
}

/* Every sampled format draws every sample, weighted: the flame's total is
 * the weight of the samples with frames (WatchDog's dumps, a MetricKit
 * call-stack tree's paths, BlockCanary's samples). */
static void every_sample_drawn(void **state)
{
	(void)state;
	static const char *const files[] = {
		"seeds/watchdog/feed-threadtime-two-blocks.log",
		"metrickit/handmade-cpu-exception.json",
		"metrickit/handmade-hang-payload.json",
		"seeds/blockcanary/notes-hash-write-waittofinish-2024-05-06.log",
	};
	for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
		hg_report *rep = read_first(files[k]);
		int64_t weight = 0;
		for (size_t i = 0; i < rep->n_samples; i++)
			if (rep->threads.items[rep->samples[i].thread].n_frames > 0)
				weight += rep->samples[i].weight;
		assert_true(rep->n_samples >= 2);
		hg_arena *a = hg_arena_create();
		hg_flame f;
		assert_int_equal(hg_flame_from_report(rep, false, a, &f), 0);
		assert_int_equal(f.unit, HG_FLAME_SAMPLES);
		assert_int_equal(f.total, weight);
		hg_arena_destroy(a);
		hg_report_destroy(rep);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(demangled_names),
		cmocka_unit_test(offsets_kept),
		cmocka_unit_test(native_source_lines),
		cmocka_unit_test(java_source_lines),
		cmocka_unit_test(merged_keeps_them),
		cmocka_unit_test(every_sample_drawn),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
