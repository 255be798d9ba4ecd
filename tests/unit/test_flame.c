/* Unit tests for the flame module: flames of real reports read from
 * testdata (a raw buffer with its mapping, the 581 structured and raw
 * stacks of a production app, ANR traces with a lock chain and a
 * deadlock, BlockCanary samples, iOS hangs) and of merged-tree rows, each
 * checked for its widths (every node as wide as its children, the selves
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

/* ---- checks ---- */

/* Widths settled: each node as wide as its self and its children. */
static void check_widths(const hg_flame *f)
{
	int64_t *kids = calloc(f->n + 1, sizeof *kids);
	int64_t roots = 0;
	assert_non_null(kids);
	for (size_t i = 0; i < f->n; i++) {
		const hg_flame_node *nd = &f->nodes[i];
		assert_true(nd->parent == HG_FLAME_NO_PARENT || nd->parent < i);
		assert_true(nd->self >= 0 && nd->total >= nd->self);
		assert_non_null(nd->name);
		if (nd->parent == HG_FLAME_NO_PARENT)
			roots += nd->total;
		else
			kids[nd->parent] += nd->total;
	}
	for (size_t i = 0; i < f->n; i++)
		assert_int_equal(f->nodes[i].total, f->nodes[i].self + kids[i]);
	assert_int_equal(f->total, roots);
	if (f->key >= 0) {
		assert_true((size_t)f->key < f->n);
		for (size_t i = (size_t)f->key; i != HG_FLAME_NO_PARENT; i = f->nodes[i].parent)
			assert_true(f->nodes[i].key);
	}
	free(kids);
}

static size_t node_depth(const hg_flame *f, size_t i)
{
	size_t d = 0;
	for (; i != HG_FLAME_NO_PARENT; i = f->nodes[i].parent)
		d++;
	return d;
}

/* Folded: one line per node with a self weight, in a clean UTF-8 text
 * whose weights add up to the total; the predicted size is the size. */
static void check_folded(const hg_flame *f)
{
	hg_buf out;
	hg_buf_init(&out);
	hg_flame_write_folded(f, &out);
	assert_false(out.failed);
	assert_int_equal(out.len, hg_flame_folded_size(f));
	size_t lines = 0, with_self = 0;
	int64_t sum = 0;
	for (size_t i = 0; i < f->n; i++)
		with_self += f->nodes[i].self > 0;
	for (size_t at = 0; at < out.len;) {
		const char *line = out.data + at;
		const char *nl = memchr(line, '\n', out.len - at);
		assert_non_null(nl);
		const char *sp = nl;
		while (sp > line && sp[-1] != ' ')
			sp--;
		assert_true(sp > line + 1); /* a frame, a space, the weight */
		int64_t w = 0;
		for (const char *p = sp; p < nl; p++) {
			assert_true(*p >= '0' && *p <= '9');
			w = w * 10 + (*p - '0');
		}
		assert_true(w > 0);
		sum += w;
		for (const char *p = line; p < sp - 1;) {
			unsigned char c = (unsigned char)*p;
			assert_true(c >= 0x20 && c != 0x7f);
			size_t len = c < 0x80 ? 1 : hg_utf8_len(p, (size_t)(sp - 1 - p));
			assert_true(len > 0);
			p += len;
		}
		lines++;
		at = (size_t)(nl - out.data) + 1;
	}
	assert_int_equal(lines, with_self);
	assert_int_equal(sum, f->total);
	hg_buf_release(&out);
}

/* The frames per folded line, against the depths of the nodes with a self
 * weight (as multisets: lines come in pre-order). */
static void check_folded_depths(const hg_flame *f)
{
	hg_buf out;
	hg_buf_init(&out);
	hg_flame_write_folded(f, &out);
	size_t max = f->n + 2;
	size_t *want = calloc(max, sizeof *want), *got = calloc(max, sizeof *got);
	assert_non_null(want);
	assert_non_null(got);
	for (size_t i = 0; i < f->n; i++)
		if (f->nodes[i].self > 0)
			want[node_depth(f, i)]++;
	size_t frames = 1;
	for (size_t i = 0; i < out.len; i++) {
		if (out.data[i] == ';')
			frames++;
		if (out.data[i] == '\n') {
			assert_true(frames < max);
			got[frames]++;
			frames = 1;
		}
	}
	for (size_t d = 0; d < max; d++)
		assert_int_equal(got[d], want[d]);
	free(want);
	free(got);
	hg_buf_release(&out);
}

static int64_t num(const hg_json_doc *doc, const hg_json *obj, const char *key)
{
	const hg_json *v = hg_json_get(obj, key);
	assert_non_null(v);
	int64_t x = 0;
	assert_int_equal(hg_json_int64(doc, v, &x), 0);
	return x;
}

static hg_json_doc *parse_json(const hg_buf *out)
{
	assert_false(out->failed);
	hg_json_doc *doc = NULL;
	size_t end = 0;
	assert_int_equal(hg_json_parse(out->data, out->len, &doc, &end), 0);
	while (end < out->len && (out->data[end] == '\n' || out->data[end] == ' '))
		end++;
	assert_int_equal(end, out->len);
	return doc;
}

struct span {
	int64_t ts, end, tid;
};

/* Chrome: the JSON parses; one X event per node, each inside the last
 * event of its thread that contains it, never overlapping one partly. */
static void check_chrome(const hg_flame *f)
{
	hg_buf out;
	hg_buf_init(&out);
	hg_flame_write_chrome(f, &out);
	hg_json_doc *doc = parse_json(&out);
	const hg_json *root = hg_json_root(doc);
	assert_string_equal(hg_json_string(hg_json_get(root, "displayTimeUnit")), "ms");
	const hg_json *events = hg_json_get(root, "traceEvents");
	assert_int_equal(hg_json_type(events), HG_JSON_ARRAY);
	struct span *open = calloc(f->n + 1, sizeof *open);
	size_t depth = 0, complete = 0, named = 0;
	int64_t cost_sum_roots = 0;
	for (const hg_json *e = hg_json_first(events); e; e = hg_json_next(e)) {
		const char *ph = hg_json_string(hg_json_get(e, "ph"));
		assert_non_null(ph);
		assert_int_equal(num(doc, e, "pid"), 1);
		if (!strcmp(ph, "M")) {
			named++;
			continue;
		}
		assert_string_equal(ph, "X");
		assert_non_null(hg_json_string(hg_json_get(e, "name")));
		assert_non_null(hg_json_string(hg_json_get(e, "cat")));
		struct span s = {num(doc, e, "ts"), 0, num(doc, e, "tid")};
		int64_t dur = num(doc, e, "dur");
		assert_true(s.ts >= 0 && dur >= 0);
		s.end = s.ts + dur;
		const hg_json *args = hg_json_get(e, "args");
		assert_non_null(hg_json_get(args, "calls"));
		assert_non_null(hg_json_get(args, "reports"));
		assert_int_equal(hg_json_type(hg_json_get(args, "stack_key")), HG_JSON_BOOL);
		while (depth > 0 && !(open[depth - 1].tid == s.tid && open[depth - 1].ts <= s.ts &&
				      s.end <= open[depth - 1].end)) {
			depth--;
			if (open[depth].tid == s.tid)
				assert_true(s.ts >= open[depth].end); /* no partial overlap */
		}
		if (depth == 0)
			cost_sum_roots += dur;
		open[depth++] = s;
		complete++;
	}
	assert_int_equal(complete, f->n);
	assert_true(named >= 2);
	if (f->unit == HG_FLAME_MS)
		assert_true(cost_sum_roots <= f->total * 1000);
	free(open);
	hg_json_doc_destroy(doc);
	hg_buf_release(&out);
}

/* speedscope: evented events in time order, opened and closed in pairs
 * over the frames; sampled weights add up to the total. */
static void check_speedscope(const hg_flame *f)
{
	hg_buf out;
	hg_buf_init(&out);
	hg_flame_write_speedscope(f, &out);
	hg_json_doc *doc = parse_json(&out);
	const hg_json *root = hg_json_root(doc);
	assert_string_equal(hg_json_string(hg_json_get(root, "$schema")),
			    "https://www.speedscope.app/file-format-schema.json");
	size_t frames = hg_json_count(hg_json_get(hg_json_get(root, "shared"), "frames"));
	assert_true(frames <= f->n);
	const hg_json *p = hg_json_first(hg_json_get(root, "profiles"));
	assert_non_null(p);
	const char *name = hg_json_string(hg_json_get(p, "name"));
	assert_non_null(name);
	if (f->key >= 0)
		assert_non_null(strstr(name, " | StackKey: "));
	const char *type = hg_json_string(hg_json_get(p, "type"));
	if (f->unit == HG_FLAME_MS) {
		assert_string_equal(type, "evented");
		int64_t *open = calloc(f->n + 1, sizeof *open), last = 0;
		size_t depth = 0, n = 0;
		const hg_json *events = hg_json_get(p, "events");
		for (const hg_json *e = hg_json_first(events); e; e = hg_json_next(e)) {
			int64_t at = num(doc, e, "at"), frame = num(doc, e, "frame");
			assert_true(at >= last);
			assert_true(frame >= 0 && (size_t)frame < frames);
			last = at;
			const char *t = hg_json_string(hg_json_get(e, "type"));
			if (!strcmp(t, "O")) {
				open[depth++] = frame;
				n++;
			} else {
				assert_string_equal(t, "C");
				assert_true(depth > 0);
				assert_int_equal(open[--depth], frame);
			}
		}
		assert_int_equal(depth, 0);
		assert_int_equal(n, f->n);
		assert_true(num(doc, p, "endValue") >= last);
		free(open);
	} else {
		assert_string_equal(type, "sampled");
		const hg_json *samples = hg_json_get(p, "samples"), *weights = hg_json_get(p, "weights");
		assert_int_equal(hg_json_count(samples), hg_json_count(weights));
		int64_t sum = 0;
		for (const hg_json *w = hg_json_first(weights); w; w = hg_json_next(w)) {
			int64_t x = 0;
			assert_int_equal(hg_json_int64(doc, w, &x), 0);
			sum += x;
		}
		assert_int_equal(sum, f->total);
	}
	hg_json_doc_destroy(doc);
	hg_buf_release(&out);
}

static void check_all(const hg_flame *f)
{
	check_widths(f);
	check_folded(f);
	check_folded_depths(f);
	check_chrome(f);
	check_speedscope(f);
}

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
	assert_int_equal(f.total, 3); /* three stack samples */
	/* the innermost frame is in one sample, onStop in two */
	assert_int_equal(f.nodes[f.n - 1].total, 1);
	assert_string_equal(f.nodes[f.n - 1].name, "org.json.JSONStringer.string");
	free_reports(&rs);
	thread_flame("blockcanary/issue113-mi3w-api19-excerpt.log", a, &f, &rs);
	assert_int_equal(f.unit, HG_FLAME_SAMPLES);
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

/* Nothing to draw: a startup report's figures, a report that failed. */
static void nothing_to_draw(void **state)
{
	(void)state;
	struct reports rs = read_path("kscrash/kscrash-3.7-startup-profile-ios26-sim.json", NULL, false);
	hg_arena *a = hg_arena_create();
	hg_flame f;
	assert_int_equal(rs.n, 1);
	assert_int_equal(hg_flame_from_report(rs.v[0], false, a, &f), HG_EINVAL);
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
		cmocka_unit_test(production_reports),
		cmocka_unit_test(anr_lock_chain),
		cmocka_unit_test(blockcanary_samples),
		cmocka_unit_test(ios_hangs),
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
