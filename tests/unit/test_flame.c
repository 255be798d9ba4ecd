/* Unit tests for the flame module: flames of real reports read from
 * testdata (a raw buffer with its mapping, the 581 structured and raw
 * stacks of a production app, ANR traces with a lock chain and a
 * deadlock, BlockCanary samples, iOS hangs) and of merged-tree rows, each
 * (and Matrix's ground-truth vectors, which rebuild the same with begin
 * times asked for as without) checked for its widths (every node as wide as its children, the selves
 * adding up to the total) and written in the three formats: folded lines
 * whose weights add up to the total and whose frames split back, Chrome
 * events that parse (the library's JSON) and nest, speedscope events in
 * time order that open and close in pairs.  Hostile names (';', line
 * breaks, quotes, control bytes, bytes that are not UTF-8), a report with
 * nothing to draw, truncated reports, empty stacks and threads, a
 * million-item stack, a million-frame thread, a deep chain (folded size
 * known in advance) and 300 random flames.  argv[1] is testdata/. */
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
#include "hangar/input.h"
#include "hangar/mapping.h"
#include "hangar/report.h"
#include "json/json.h"

static const char *testdata = "testdata";

/* ---- reading reports ---- */

struct reports {
	hg_report **v;
	size_t n;
};

static int keep(void *user, hg_report *rep)
{
	struct reports *rs = user;
	rs->v = realloc(rs->v, (rs->n + 1) * sizeof *rs->v);
	assert_non_null(rs->v);
	rs->v[rs->n++] = rep;
	return 0;
}

static struct reports read_path(const char *rel, const char *mapping, bool times)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", testdata, rel);
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.want_times = times;
	struct reports rs = {NULL, 0};
	int rc = hg_reports_read_path(&ctx, path, NULL, HG_FORMAT_AUTO, keep, &rs);
	assert_true(rc >= 0);
	if (mapping) {
		hg_mapping *m = NULL;
		snprintf(path, sizeof path, "%s/%s", testdata, mapping);
		assert_int_equal(hg_mapping_open(&ctx, path, &m), 0);
		for (size_t i = 0; i < rs.n; i++)
			if (!rs.v[i]->error)
				assert_int_equal(hg_report_symbolicate(rs.v[i], m), 0);
		hg_mapping_destroy(m);
	}
	return rs;
}

static void free_reports(struct reports *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		hg_report_destroy(rs->v[i]);
	free(rs->v);
}

#include "flame_checks.h"

/* ---- reports ---- */

static void sample_jank(void **state)
{
	(void)state;
	struct reports rs = read_path("sample/jank.json", "sample/methodMapping.txt", true);
	assert_int_equal(rs.n, 1);
	const hg_report *r = rs.v[0];
	assert_non_null(r->item_begin);
	hg_arena *a = hg_arena_create();
	hg_flame f;
	assert_int_equal(hg_flame_from_report(r, false, a, &f), 0);
	check_all(&f);
	assert_int_equal(f.unit, HG_FLAME_MS);
	assert_int_equal(f.total, r->stack_cost); /* 856: the report's cost */
	assert_int_equal(f.total, 856);
	assert_true(f.key >= 0);
	assert_string_equal(f.nodes[f.key].name,
			    "sample.tencent.matrix.trace.TestTraceMainActivity.testInnerSleep()");
	assert_non_null(strstr(f.title, "856 ms"));
	/* real begin times: the StackKey began 42 ms in, after its parents */
	assert_int_equal(f.nodes[0].begin, 0);
	assert_true(f.nodes[f.key].begin > f.nodes[f.nodes[f.key].parent].begin);
	/* the whole stack is the same here (it has fewer than 30 items) */
	hg_flame w;
	assert_int_equal(hg_flame_from_report(r, true, a, &w), 0);
	assert_int_equal(w.n, r->full.len);
	assert_int_equal(w.total, f.total);
	hg_arena_destroy(a);
	free_reports(&rs);

	/* without want_times: no begins, children one after another */
	rs = read_path("sample/jank.json", NULL, false);
	assert_null(rs.v[0]->item_begin);
	a = hg_arena_create();
	assert_int_equal(hg_flame_from_report(rs.v[0], false, a, &f), 0);
	assert_int_equal(f.nodes[1].begin, -1);
	assert_non_null(strstr(f.nodes[1].name, "#")); /* unmapped: "#id" */
	check_all(&f);
	hg_arena_destroy(a);
	free_reports(&rs);
}

/* Asking for times changes nothing else: Matrix's 41 ground-truth vectors
 * (read as reports: buffer, strict, end_time, cost) rebuild to the same
 * stacks and StackKeys with and without them, and each stack's flame
 * settles and writes. */
static void timed_rebuild_same(void **state)
{
	(void)state;
	struct reports plain = read_path("vectors/matrix_vectors_public.jsonl", NULL, false);
	struct reports timed = read_path("vectors/matrix_vectors_public.jsonl", NULL, true);
	assert_int_equal(plain.n, timed.n);
	assert_true(plain.n >= 41);
	size_t with_times = 0;
	for (size_t i = 0; i < plain.n; i++) {
		const hg_report *a = plain.v[i], *b = timed.v[i];
		assert_int_equal(a->error == NULL, b->error == NULL);
		if (a->error)
			continue;
		assert_null(a->item_begin);
		assert_int_equal(a->full.len, b->full.len);
		assert_int_equal(a->trimmed.len, b->trimmed.len);
		assert_int_equal(a->key_index, b->key_index);
		assert_int_equal(a->stack_cost, b->stack_cost);
		if (a->full.len)
			assert_memory_equal(a->full.items, b->full.items, a->full.len * sizeof *a->full.items);
		if (a->trimmed.len)
			assert_memory_equal(a->trimmed.items, b->trimmed.items,
					    a->trimmed.len * sizeof *a->trimmed.items);
		assert_int_equal(b->item_begin != NULL, b->full.len > 0);
		if (!b->item_begin)
			continue;
		with_times++;
		int64_t first = INT64_MAX;
		for (size_t k = 0; k < b->full.len; k++)
			first = b->item_begin[k] < first ? b->item_begin[k] : first;
		assert_int_equal(first, 0); /* ms after the stack's first entry */
		hg_arena *ar = hg_arena_create();
		hg_flame f;
		assert_int_equal(hg_flame_from_report(b, true, ar, &f), 0);
		check_all(&f);
		hg_arena_destroy(ar);
	}
	assert_true(with_times > 20);
	free_reports(&plain);
	free_reports(&timed);
}

/* 581 real reports, raw buffers and structured stacks alike. */
static void production_reports(void **state)
{
	(void)state;
	struct reports rs = read_path("matrix-mangatoon/reports.ndjson", NULL, true);
	assert_true(rs.n >= 581);
	size_t stacks = 0, timed = 0;
	for (size_t i = 0; i < rs.n; i++) {
		const hg_report *r = rs.v[i];
		hg_arena *a = hg_arena_create();
		hg_flame f;
		int rc = hg_flame_from_report(r, i % 2 == 0, a, &f);
		if (r->error || (!r->has_method_stack && r->threads.n == 0)) {
			assert_int_equal(rc, HG_EINVAL);
		} else {
			assert_int_equal(rc, 0);
			check_widths(&f);
			check_folded(&f);
			if (i % 5 == 0) { /* the JSON writers on a fifth: the parse is slow */
				check_chrome(&f);
				check_speedscope(&f);
			}
			if (f.unit == HG_FLAME_MS) {
				stacks++;
				/* times only from a buffer (these are structured) */
				assert_true(r->from_buffer || r->item_begin == NULL);
				timed += r->item_begin != NULL;
				/* the selves add up to at least the roots' costs */
				const hg_method_stack *st = i % 2 == 0 ? &r->full : &r->trimmed;
				int64_t roots = 0;
				for (size_t k = 0; k < st->len; k++)
					if (f.nodes[k].parent == HG_FLAME_NO_PARENT)
						roots += st->items[k].cost > 0 ? st->items[k].cost : 0;
				assert_true(f.total >= roots);
			}
		}
		hg_arena_destroy(a);
	}
	assert_true(stacks > 400);
	(void)timed;
	free_reports(&rs);
}

static const hg_flame *thread_flame(const char *rel, hg_arena *a, hg_flame *f,
				    struct reports *rs)
{
	*rs = read_path(rel, NULL, false);
	assert_int_equal(rs->n, 1);
	assert_null(rs->v[0]->error);
	assert_int_equal(hg_flame_from_report(rs->v[0], false, a, f), 0);
	check_all(f);
	return f;
}

static void anr_lock_chain(void **state)
{
	(void)state;
	hg_arena *a = hg_arena_create();
	hg_flame f;
	struct reports rs;
	thread_flame("anr/android13-emu-main-blocked-held-by-thread.txt", a, &f, &rs);
	assert_int_equal(f.unit, HG_FLAME_THREADS);
	assert_int_equal(f.total, 2); /* main and the thread it waits for */
	assert_int_equal(f.key, -1);
	assert_string_equal(f.nodes[0].name, "main");
	size_t second = 0;
	for (size_t i = 1; i < f.n; i++)
		if (f.nodes[i].parent == HG_FLAME_NO_PARENT)
			second = i;
	assert_true(second > 0);
	assert_non_null(strstr(f.nodes[second].name, "(blocks main)"));
	/* outermost first: the root's child is where the thread began */
	assert_string_equal(f.nodes[1].name, "com.android.internal.os.ZygoteInit.main");
	assert_non_null(f.nodes[1].file);
	assert_true(f.nodes[1].line > 0);
	free_reports(&rs);

	thread_flame("anr/handmade-deadlock-main-and-worker.txt", a, &f, &rs);
	assert_int_equal(f.total, 2);
	free_reports(&rs);
	hg_arena_destroy(a);
}

static void blockcanary_samples(void **state)
{
	(void)state;
	hg_arena *a = hg_arena_create();
	hg_flame f;
	struct reports rs;
	thread_flame("blockcanary/looper-2024-03-18_14-22-05.347.log", a, &f, &rs);
	assert_int_equal(f.unit, HG_FLAME_SAMPLES);
	assert_int_equal(f.total, 3); /* three stack samples, every one drawn */
	/* one root, the outermost frame, in all three */
	assert_string_equal(f.nodes[0].name, "com.android.internal.os.ZygoteInit.main");
	assert_int_equal(f.nodes[0].total, 3);
	/* each sample's innermost frame in one sample: JSON, the file write,
	 * QueuedWork's wait; onStop in two */
	const char *leaves[3] = {0};
	size_t n_leaves = 0, on_stop = 0;
	for (size_t i = 0; i < f.n; i++) {
		if (f.nodes[i].self > 0) {
			assert_int_equal(f.nodes[i].self, 1);
			assert_true(n_leaves < 3);
			leaves[n_leaves++] = f.nodes[i].name;
		}
		if (!strcmp(f.nodes[i].name, "com.example.reader.ui.ReaderActivity.onStop")) {
			assert_int_equal(f.nodes[i].total, 2);
			on_stop++;
		}
	}
	assert_int_equal(n_leaves, 3);
	assert_int_equal(on_stop, 1);
	assert_string_equal(leaves[0], "org.json.JSONStringer.string");
	assert_string_equal(leaves[1], "libcore.io.Linux.writeBytes");
	assert_string_equal(leaves[2], "sun.misc.Unsafe.park");
	free_reports(&rs);
	thread_flame("blockcanary/issue113-mi3w-api19-excerpt.log", a, &f, &rs);
	assert_int_equal(f.unit, HG_FLAME_SAMPLES);
	assert_int_equal(f.total, 1);
	free_reports(&rs);
	hg_arena_destroy(a);
}

static void ios_hangs(void **state)
{
	(void)state;
	static const char *const files[] = {
		"kscrash/kscrash-3.7-hang-ios26-sim.json",
		"kscrash/kscrash-3.7-watchdog-8badf00d-ios26-sim.json",
		"kscrash/matrix-wcblockmonitor-lag-2001.json",
		"kscrash/kscrash-2.0-main-thread-deadlock-ios4-iphone4.json",
	};
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		hg_arena *a = hg_arena_create();
		hg_flame f;
		struct reports rs;
		thread_flame(files[i], a, &f, &rs);
		assert_true(f.total >= 1);
		assert_true(f.n > 1);
		assert_string_not_equal(f.nodes[0].name, "?"); /* unnamed threads get a name */
		free_reports(&rs);
		hg_arena_destroy(a);
	}
}

/* A sampled profile weighs by samples, every one drawn: the KSCrash
 * startup profile's 25 samples with frames, main() and $main held by 19 of
 * them, 16 through one call of App.main and 3 through another (another pc:
 * another frame, as the tree view writes them). */
static void sampled_profile(void **state)
{
	(void)state;
	struct reports rs = read_path("kscrash/kscrash-3.7-startup-profile-ios26-sim.json", NULL, false);
	hg_arena *a = hg_arena_create();
	hg_flame f;
	assert_int_equal(rs.n, 1);
	assert_int_equal(hg_flame_from_report(rs.v[0], false, a, &f), 0);
	assert_int_equal(f.unit, HG_FLAME_SAMPLES);
	assert_int_equal(f.total, 25);
	assert_string_equal(f.nodes[0].name, "main"); /* main(), the heaviest root */
	assert_int_equal(f.nodes[0].total, 19);
	assert_int_equal(f.nodes[1].total, 19);
	assert_int_equal(f.nodes[1].self, 0);
	assert_int_equal(f.nodes[2].total, 16);
	free_reports(&rs);
	hg_arena_destroy(a);
}

/* Nothing to draw: a startup report's figures, a report that failed. */
static void nothing_to_draw(void **state)
{
	(void)state;
	struct reports rs = read_path("matrix-tracers/fps-startup.ndjson", NULL, false);
	hg_arena *a = hg_arena_create();
	hg_flame f;
	assert_int_equal(rs.n, 2);
	assert_int_equal(hg_flame_from_report(rs.v[0], false, a, &f), HG_EINVAL);
	assert_int_equal(hg_flame_from_report(rs.v[1], false, a, &f), HG_EINVAL);
	free_reports(&rs);
	rs = read_path("bad/README.md", NULL, false);
	assert_true(rs.n >= 1);
	assert_non_null(rs.v[0]->error);
	assert_int_equal(hg_flame_from_report(rs.v[0], false, a, &f), HG_EINVAL);
	free_reports(&rs);
	hg_arena_destroy(a);
}

/* Every truncation of a report reads as an error or as a sound flame. */
static void truncated_reports(void **state)
{
	(void)state;
	char path[512];
	snprintf(path, sizeof path, "%s/sample/jank.json", testdata);
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.want_times = 1;
	char *data = NULL;
	size_t len = 0;
	assert_int_equal(hg_input_read(&ctx, path, &data, &len), 0);
	size_t sound = 0;
	for (size_t cut = 0; cut < len; cut += 7) {
		char *copy = malloc(cut + 1);
		memcpy(copy, data, cut);
		copy[cut] = '\0';
		struct reports rs = {NULL, 0};
		assert_true(hg_reports_read(&ctx, "cut.json", copy, cut, keep, &rs) >= 0);
		for (size_t i = 0; i < rs.n; i++) {
			hg_arena *a = hg_arena_create();
			hg_flame f;
			int rc = hg_flame_from_report(rs.v[i], false, a, &f);
			assert_true(rc == 0 || rc == HG_EINVAL);
			if (rc == 0) {
				check_widths(&f);
				check_folded(&f);
				sound++;
			}
			hg_arena_destroy(a);
		}
		free_reports(&rs);
		free(copy);
	}
	(void)sound;
	free(data);
}

/* ---- hostile names ---- */

static void hostile_names(void **state)
{
	(void)state;
	struct reports rs = read_path("sample/jank.json", "sample/methodMapping.txt", true);
	hg_report *r = rs.v[0];
	static const char *const names[] = {
		"a;b;c", "line\nbreak", "cr\rlf\r\n", "quote\"and\\backslash", "tab\there",
		"\x01\x02\x1b[31mred\x7f", "bad\xff\xfeutf8", "\xc0\x80nul", "", ";", "\n",
		"héllo→世界", "trailing 12", "  ",
	};
	size_t n = sizeof names / sizeof *names;
	for (size_t i = 0; i < r->full.len; i++)
		r->symbols[i] = names[i % n];
	hg_arena *a = hg_arena_create();
	hg_flame f;
	assert_int_equal(hg_flame_from_report(r, true, a, &f), 0);
	check_all(&f);
	hg_buf out;
	hg_buf_init(&out);
	hg_flame_write_folded(&f, &out);
	assert_null(memchr(out.data, '\r', out.len));
	assert_non_null(strstr(out.data, "a:b:c"));
	hg_buf_release(&out);
	hg_arena_destroy(a);
	free_reports(&rs);
}

/* ---- built by hand: empty, huge, deep ---- */

static hg_report *bare_report(enum hg_report_kind kind)
{
	hg_arena *a = hg_arena_create();
	hg_report *r = hg_arena_calloc(a, 1, sizeof *r);
	r->arena = a;
	r->kind = kind;
	r->source = "hand";
	r->number = 1;
	r->key_index = -1;
	r->threads.blamed = -1;
	return r;
}

static void empty_ones(void **state)
{
	(void)state;
	hg_report *r = bare_report(HG_KIND_SLOW_METHOD);
	r->has_method_stack = true; /* an empty stack */
	hg_flame f;
	assert_int_equal(hg_flame_from_report(r, false, r->arena, &f), 0);
	assert_int_equal(f.n, 0);
	assert_int_equal(f.total, 0);
	check_all(&f);
	hg_report_destroy(r);

	r = bare_report(HG_KIND_ANR); /* a thread without frames */
	hg_thread *t = hg_threads_add(&r->threads, r->arena);
	t->name = "main";
	r->threads.blamed = 0;
	assert_int_equal(hg_flame_from_report(r, false, r->arena, &f), 0);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.total, 1);
	check_all(&f);
	hg_report_destroy(r);
}

#define HUGE 1000000

static void million_item_stack(void **state)
{
	(void)state;
	hg_report *r = bare_report(HG_KIND_SLOW_METHOD);
	r->has_method_stack = true;
	hg_method_item *it = hg_arena_calloc(r->arena, HUGE, sizeof *it);
	/* a root, then nested runs of 10 deep: 0, 1..10, 1..10, ... */
	for (uint32_t i = 0; i < HUGE; i++) {
		int32_t depth = i == 0 ? 0 : (int32_t)((i - 1) % 10) + 1;
		it[i] = (hg_method_item){depth, (int32_t)(i % 5000), 1, 11 - depth, i};
	}
	it[0].cost = 5;
	r->full = r->trimmed = (hg_method_stack){it, HUGE};
	r->key_index = HUGE - 1;
	hg_flame f;
	assert_int_equal(hg_flame_from_report(r, true, r->arena, &f), 0);
	assert_int_equal(f.n, HUGE);
	check_widths(&f);
	/* the root (5 ms) is widened to its children of 10 ms each */
	assert_int_equal(f.total, (int64_t)HUGE); /* 100,000 runs (the last short) */
	assert_int_equal(f.nodes[0].self, 0);
	assert_true(f.nodes[HUGE - 1].key);
	check_folded(&f);
	hg_buf out;
	hg_buf_init(&out);
	hg_flame_write_speedscope(&f, &out);
	assert_false(out.failed);
	assert_non_null(strstr(out.data + out.len - 200, "\"activeProfileIndex\":0"));
	hg_buf_reset(&out);
	hg_flame_write_chrome(&f, &out);
	assert_false(out.failed);
	assert_int_equal(out.data[out.len - 2], '}');
	hg_buf_release(&out);
	hg_report_destroy(r);
}

static void million_frame_thread(void **state)
{
	(void)state;
	hg_report *r = bare_report(HG_KIND_ANR);
	hg_thread *t = hg_threads_add(&r->threads, r->arena);
	t->name = "main";
	r->threads.blamed = 0;
	assert_int_equal(hg_thread_reserve_frames(t, r->arena, HUGE), 0);
	for (size_t i = 0; i < HUGE; i++) {
		hg_frame *fr = hg_thread_add_frame(t, r->arena);
		fr->kind = HG_FRAME_JAVA;
		fr->cls = "a.Recursive";
		fr->method = "down";
		fr->file = "Recursive.java";
		fr->line = (long)(i % 100);
	}
	hg_flame f;
	assert_int_equal(hg_flame_from_report(r, false, r->arena, &f), 0);
	assert_int_equal(f.n, HUGE + 1);
	assert_int_equal(f.total, 1);
	check_widths(&f);
	check_folded(&f); /* one line of a million frames */
	hg_buf out;
	hg_buf_init(&out);
	hg_flame_write_speedscope(&f, &out); /* 100 distinct frames, one sample */
	assert_false(out.failed);
	hg_buf_release(&out);
	hg_report_destroy(r);
}

/* A deep chain where every frame has a self cost: the folded text grows
 * with depth squared, and hg_flame_folded_size says so before writing. */
static void deep_chain_size(void **state)
{
	(void)state;
	hg_arena *a = hg_arena_create();
	size_t n = 3000;
	hg_flame f = {.nodes = hg_arena_calloc(a, n, sizeof(hg_flame_node)), .n = n, .key = -1};
	for (size_t i = 0; i < n; i++)
		f.nodes[i] = (hg_flame_node){.name = "frame", .parent = i ? i - 1 : HG_FLAME_NO_PARENT,
					     .total = (int64_t)(n - i), .self = 1, .begin = -1,
					     .line = -1};
	f.total = (int64_t)n;
	check_widths(&f);
	size_t predicted = hg_flame_folded_size(&f);
	assert_true(predicted > n * n * 3); /* "frame;" per level per line */
	check_folded(&f);
	hg_arena_destroy(a);
}

/* ---- merged trees ---- */

static void tree_rows(void **state)
{
	(void)state;
	hg_arena *a = hg_arena_create();
	hg_flame_tree_builder *b = hg_flame_tree_builder_create(a);
	const hg_tree_row rows[] = {
		{10, 0, "Handler.dispatchMessage", 4, 1000, 900, 10, true},
		{11, 10, "Activity.onCreate", 4, 700, 400, 100, true},
		{12, 11, "Dao.query", 3, 650, 300, 650, true},
		{13, 10, "View.draw", 2, 350, 200, 350, false}, /* 700 + 350 > 1000: widened */
		{20, 0, "Choreographer.doFrame", 1, 40, 40, 40, false},
	};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
		assert_int_equal(hg_flame_tree_builder_add(b, &rows[i]), 0);
	hg_tree_row orphan = {30, 99, "x", 1, 1, 1, 1, false};
	assert_int_equal(hg_flame_tree_builder_add(b, &orphan), HG_EPARSE);
	hg_tree_row twice = rows[2];
	assert_int_equal(hg_flame_tree_builder_add(b, &twice), HG_EPARSE);
	hg_flame f;
	assert_int_equal(hg_flame_tree_builder_finish(b, 4, "slow_method cluster", &f), 0);
	assert_int_equal(f.n, 5);
	assert_int_equal(f.reports, 4);
	assert_string_equal(f.nodes[f.key].name, "Dao.query");
	assert_int_equal(f.nodes[0].total, 1050);
	assert_int_equal(f.nodes[0].self, 0);
	assert_int_equal(f.total, 1090);
	assert_int_equal(f.nodes[2].reports, 3);
	check_all(&f);
	/* a tree of thread stacks has no costs: it weighs reports */
	b = hg_flame_tree_builder_create(a);
	const hg_tree_row threads[] = {
		{1, 0, "ZygoteInit.main", 6, 0, 0, 0, true},
		{2, 1, "Looper.loop", 5, 0, 0, 0, true},
		{3, 2, "MessageQueue.nativePollOnce", 5, 0, 0, 0, true},
		{4, 1, "Zygote$MethodAndArgsCaller.run", 1, 0, 0, 0, false},
	};
	for (size_t i = 0; i < sizeof threads / sizeof *threads; i++)
		assert_int_equal(hg_flame_tree_builder_add(b, &threads[i]), 0);
	assert_int_equal(hg_flame_tree_builder_finish(b, 6, "lag cluster", &f), 0);
	assert_int_equal(f.unit, HG_FLAME_THREADS);
	assert_int_equal(f.total, 6);
	assert_int_equal(f.nodes[2].self, 5);
	assert_string_equal(f.nodes[f.key].name, "MessageQueue.nativePollOnce");
	check_all(&f);
	/* no rows at all */
	b = hg_flame_tree_builder_create(a);
	assert_int_equal(hg_flame_tree_builder_finish(b, 0, NULL, &f), 0);
	assert_int_equal(f.n, 0);
	check_all(&f);
	hg_arena_destroy(a);
}

/* ---- random flames ---- */

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint32_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

static void random_flames(void **state)
{
	(void)state;
	for (int round = 0; round < 300; round++) {
		hg_arena *a = hg_arena_create();
		size_t n = next_rand() % 200;
		hg_flame f = {.nodes = hg_arena_calloc(a, n + 1, sizeof(hg_flame_node)), .n = n,
			      .unit = (enum hg_flame_unit)(next_rand() % 3), .key = -1};
		for (size_t i = 0; i < n; i++) {
			char *name = hg_arena_alloc(a, 12);
			size_t len = next_rand() % 11;
			for (size_t k = 0; k < len; k++)
				name[k] = (char)(1 + next_rand() % 255);
			hg_flame_node *nd = &f.nodes[i];
			nd->name = name;
			nd->parent = i == 0 || next_rand() % 8 == 0 ? HG_FLAME_NO_PARENT
								   : next_rand() % i;
			nd->total = (int64_t)(next_rand() % 100) - 10;
			nd->begin = next_rand() % 3 == 0 ? (int64_t)(next_rand() % 500) : -1;
			nd->line = next_rand() % 2 ? (long)(next_rand() % 50) : -1;
			nd->file = next_rand() % 2 ? name : NULL;
			nd->calls = next_rand() % 4;
			nd->reports = 1;
		}
		/* settle as a builder does: through the tree builder's rules */
		hg_flame_tree_builder *b = hg_flame_tree_builder_create(a);
		for (size_t i = 0; i < n; i++) {
			hg_tree_row row = {(int64_t)i + 1,
					   f.nodes[i].parent == HG_FLAME_NO_PARENT
						   ? 0 : (int64_t)f.nodes[i].parent + 1,
					   f.nodes[i].name, 1, f.nodes[i].total, 0, 0,
					   next_rand() % 4 == 0};
			assert_int_equal(hg_flame_tree_builder_add(b, &row), 0);
		}
		hg_flame g;
		assert_int_equal(hg_flame_tree_builder_finish(b, 1, "random", &g), 0);
		for (size_t i = 0; i < n; i++) { /* keep the random times and files */
			g.nodes[i].begin = f.nodes[i].begin;
			g.nodes[i].file = f.nodes[i].file;
			g.nodes[i].line = f.nodes[i].line;
		}
		g.unit = f.unit;
		g.key = -1; /* random key marks need not form a path */
		check_all(&g);
		hg_arena_destroy(a);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sample_jank),
		cmocka_unit_test(timed_rebuild_same),
		cmocka_unit_test(production_reports),
		cmocka_unit_test(anr_lock_chain),
		cmocka_unit_test(blockcanary_samples),
		cmocka_unit_test(ios_hangs),
		cmocka_unit_test(sampled_profile),
		cmocka_unit_test(nothing_to_draw),
		cmocka_unit_test(truncated_reports),
		cmocka_unit_test(hostile_names),
		cmocka_unit_test(empty_ones),
		cmocka_unit_test(million_item_stack),
		cmocka_unit_test(million_frame_thread),
		cmocka_unit_test(deep_chain_size),
		cmocka_unit_test(tree_rows),
		cmocka_unit_test(random_flames),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
