/* The SVG flame graph writer (flame_svg.c), the path merger
 * (flame_merge.c) and the differential flame (flame_diff.c), on flames
 * built by hand: Matrix's sample tree, a deep chain, 10,000 siblings, a
 * million random nodes, hostile names and malformed flames; and on every
 * real report of testdata/ (argv[1]).  Every SVG is
 * parsed with expat: well-formed, every drawn frame a <g class="f"> with a
 * <title>, a <rect> inside its caller's, widths by weight. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hangar/flame.h"
#include "flame/flame_svg.h"
#include "svg_doc_fixture.h"

/* ---- building flames by hand ---- */

struct fb {
	hg_arena *arena;
	hg_flame f;
	size_t cap;
};

static void fb_init(struct fb *b, size_t cap)
{
	b->arena = hg_arena_create();
	assert_non_null(b->arena);
	memset(&b->f, 0, sizeof b->f);
	b->f.nodes = hg_arena_calloc(b->arena, cap, sizeof *b->f.nodes);
	assert_non_null(b->f.nodes);
	b->cap = cap;
	b->f.key = -1;
	b->f.reports = 1;
	b->f.title = "slow_method in TestTraceMainActivity, 856 ms";
}

/* A node with its self weight; totals are summed by fb_finish. */
static size_t fb_add(struct fb *b, size_t parent, const char *name, int64_t self)
{
	assert_true(b->f.n < b->cap);
	hg_flame_node *n = &b->f.nodes[b->f.n];
	n->name = hg_arena_strdup(b->arena, name);
	n->parent = parent;
	n->self = self;
	n->total = self;
	n->calls = 1;
	n->reports = 1;
	n->begin = -1;
	return b->f.n++;
}

static void fb_finish(struct fb *b)
{
	b->f.total = 0;
	for (size_t i = b->f.n; i-- > 0;) {
		hg_flame_node *n = &b->f.nodes[i];
		if (n->parent == HG_FLAME_NO_PARENT)
			b->f.total += n->total;
		else
			b->f.nodes[n->parent].total += n->total;
	}
	if (b->f.key >= 0)
		for (size_t i = (size_t)b->f.key; i != HG_FLAME_NO_PARENT; i = b->f.nodes[i].parent)
			b->f.nodes[i].key = true;
}

static void fb_release(struct fb *b)
{
	hg_arena_destroy(b->arena);
}

/* Matrix's sample (README): testInnerSleep is the StackKey. */
static void sample_flame(struct fb *b)
{
	fb_init(b, 16);
	const char *p = "sample.tencent.matrix.trace.TestTraceMainActivity.";
	char name[128];
	size_t root = fb_add(b, HG_FLAME_NO_PARENT, "android.os.Handler.dispatchMessage(Message)", 2);
#define N(s) (snprintf(name, sizeof name, "%s%s", p, s), name)
	size_t j = fb_add(b, root, N("testJankiess(View)"), 3);
	size_t a = fb_add(b, j, N("A()"), 2);
	fb_add(b, a, N("B()"), 10);
	size_t c = fb_add(b, a, N("C()"), 9);
	size_t t = fb_add(b, c, N("tryHeavyMethod()"), 18);
	b->f.nodes[t].calls = 3;
	size_t d = fb_add(b, a, N("D()"), 3);
	size_t e = fb_add(b, d, N("E()"), 9);
	b->f.key = (long)fb_add(b, e, N("testInnerSleep()"), 800);
#undef N
	fb_finish(b);
}

static double width_px(int svg_width)
{
	return svg_width - 2.0 * SVG_PAD;
}

/* ---- the tests ---- */

static void test_sample(void **state)
{
	(void)state;
	struct fb b;
	sample_flame(&b);
	hg_buf out;
	struct doc d;
	write_svg(&b.f, NULL, &out, &d);
	assert_int_equal(d.n, b.f.n); /* nothing too narrow: every frame drawn */
	assert_int_equal(d.width, 1200);
	assert_string_equal(d.root_id, "svg");
	assert_non_null(strstr(out.data, "<?xml"));
	assert_non_null(strstr(out.data, "slow_method in TestTraceMainActivity, 856 ms"));
	assert_non_null(strstr(d.summary, "856 ms in total"));
	for (size_t i = 0; i < b.f.n; i++) {
		const hg_flame_node *n = &b.f.nodes[i];
		struct frame *f = find(&d, n->name);
		assert_non_null(f);
		/* Width by total, row by depth, the title with cost, share, calls. */
		assert_true(f->w > width_px(1200) * (double)n->total / 856 - 0.01);
		assert_true(f->w < width_px(1200) * (double)n->total / 856 + 0.01);
		char want[64];
		snprintf(want, sizeof want, "\n%lld ms, ", (long long)n->total);
		assert_non_null(strstr(f->title, want));
		assert_non_null(strstr(f->title, n->calls == 1 ? "1 call" : "3 calls"));
		assert_int_equal(strstr(f->cls, "k") != NULL, n->key);
		if (n->parent != HG_FLAME_NO_PARENT) {
			struct frame *p = find(&d, b.f.nodes[n->parent].name);
			assert_int_equal(f->y, p->y + SVG_ROW);
			assert_true(f->x >= p->x - 0.01 && f->x + f->w <= p->x + p->w + 0.01);
		}
		/* A label, when there is one, is the name or a shortening of it
		 * that keeps the method and fits. */
		if (f->label) {
			const char *dot = strrchr(n->name, '.');
			char meth[64];
			snprintf(meth, sizeof meth, "%.*s", (int)strcspn(dot + 1, "("), dot + 1);
			assert_non_null(strstr(f->label, meth));
			assert_true(flame_svg_chars(f->label, strlen(f->label)) * SVG_CHAR_W <= f->w - 6);
		}
	}
	struct frame *key = find(&d, "sample.tencent.matrix.trace.TestTraceMainActivity.testInnerSleep()");
	assert_string_equal(key->id, "key");
	assert_string_equal(key->cls, "f k K");
	assert_non_null(strstr(key->title, "93.5% of 856 ms"));
	assert_non_null(strstr(key->title, "the StackKey"));
	assert_non_null(strstr(find(&d, "android.os.Handler.dispatchMessage(Message)")->title,
			       "100% of 856 ms"));
	/* The same flame, the same bytes (colours by a hash of the name); the
	 * palette is warm (red high, blue low). */
	hg_buf again;
	hg_buf_init(&again);
	hg_flame_write_svg(&b.f, NULL, &again);
	assert_int_equal(again.len, out.len);
	assert_memory_equal(again.data, out.data, out.len);
	hg_buf_release(&again);
	unsigned r, g, bl;
	assert_int_equal(sscanf(key->fill, "#%2x%2x%2x", &r, &g, &bl), 3);
	assert_true(r >= 205 && bl <= 55);
	doc_release(&d);
	hg_buf_release(&out);
	fb_release(&b);
}

static void test_labels(void **state)
{
	(void)state;
	const char *name = "com.foo.bar.Baz.method(int, String)";
	struct { long max; const char *want; } cases[] = {
		{100, "com.foo.bar.Baz.method(int, String)"},
		{30, "c.f.b.Baz.method(int, String)"},
		{26, "\xe2\x80\xa6" "Baz.method(int, String)"},
		{18, "\xe2\x80\xa6" "Baz.method(\xe2\x80\xa6)"},
		{13, "\xe2\x80\xa6" "method(\xe2\x80\xa6)"},
		{10, "\xe2\x80\xa6" "method(\xe2\x80\xa6)"},
		{9, ""},
		{2, ""},
	};
	hg_buf b;
	hg_buf_init(&b);
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		hg_buf_reset(&b);
		flame_svg_label(&b, name, strlen(name), cases[i].max);
		assert_string_equal(b.len ? b.data : "", cases[i].want);
	}
	/* No dot: the whole name or nothing; a class and method only. */
	hg_buf_reset(&b);
	flame_svg_label(&b, "#1234567", 8, 5);
	assert_int_equal(b.len, 0);
	flame_svg_label(&b, "Baz.method()", 12, 11);
	assert_string_equal(b.data, "\xe2\x80\xa6" "method()");
	hg_buf_reset(&b);
	/* Multi-byte and invalid bytes count as one character each. */
	const char *odd = "\xc3\xa9t\xc3\xa9.\xff\xfe.K.m()";
	flame_svg_label(&b, odd, strlen(odd), 10);
	assert_string_equal(b.data, "\xc3\xa9.\xff.K.m()");
	hg_buf_release(&b);
}

static void test_hostile_names(void **state)
{
	(void)state;
	const char *names[] = {
		"<script>alert(1)</script>.x()",
		"a&b.c\"d'e.f<g>()",
		"]]><x/>.y()",
		"ctl\x01\x02\x1b[31m\x7f.z()",
		"bad\xff\xfe\xc0\x80\xed\xa0\x80 utf8.q()",
		"nonchar\xef\xbf\xbe\xef\xbf\xbf.r()",
		"",
	};
	size_t nn = sizeof names / sizeof *names;
	struct fb b;
	fb_init(&b, nn + 2);
	b.f.title = "<title> & \"quotes\" ]]> \x01";
	size_t root = fb_add(&b, HG_FLAME_NO_PARENT, "root", 1);
	for (size_t i = 0; i < nn; i++)
		fb_add(&b, root, names[i], 10);
	char *lng = malloc(200001);
	memset(lng, 'a', 200000);
	memcpy(lng + 199990, ".Cls.m()", 9);
	fb_add(&b, root, lng, 100);
	free(lng);
	fb_finish(&b);
	hg_buf out;
	struct doc d;
	hg_flame_svg_opts o = {.width = 800, .embedded = true, .id_prefix = "a\"b<c>"};
	write_svg(&b.f, &o, &out, &d);
	assert_int_equal(d.n, nn + 2);
	assert_null(strstr(out.data, "<?xml"));
	assert_string_equal(d.root_id, "a_b_c_svg");
	assert_non_null(strstr(out.data, "var P = 'a_b_c_'"));
	assert_null(strstr(out.data, "<script>alert"));
	assert_non_null(find(&d, "<script>alert(1)</script>.x()"));
	assert_non_null(find(&d, "a&b.c\"d'e.f<g>()"));
	assert_non_null(find(&d, "]]><x/>.y()"));
	assert_non_null(find(&d, "ctl\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd[31m\xef\xbf\xbd.z()"));
	assert_non_null(find(&d, "bad\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
			      "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd utf8.q()"));
	assert_non_null(find(&d, "nonchar\xef\xbf\xbd\xef\xbf\xbd.r()"));
	assert_non_null(find(&d, ""));
	/* The 200,000-byte name is whole in its title, shortened in its label. */
	for (size_t i = 0; i < d.n; i++)
		if (strlen(d.frames[i].title) > 200000)
			assert_string_equal(d.frames[i].label, "a.Cls.m()");
	doc_release(&d);
	hg_buf_release(&out);
	fb_release(&b);
}

static void test_deep_chain(void **state)
{
	(void)state;
	struct fb b;
	fb_init(&b, 5000);
	size_t p = HG_FLAME_NO_PARENT;
	char name[64];
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof name, "com.deep.Chain.level%d()", i);
		p = fb_add(&b, p, name, i == 4999 ? 50 : 0);
	}
	fb_finish(&b);
	hg_buf out;
	struct doc d;
	write_svg(&b.f, NULL, &out, &d);
	assert_int_equal(d.n, 1000); /* MAX_DEPTH rows */
	assert_non_null(strstr(d.summary, "4000 not drawn"));
	for (size_t i = 0; i < d.n; i++) {
		assert_int_equal(d.frames[i].y, SVG_TOP + (int)i * SVG_ROW);
		assert_true(d.frames[i].w > width_px(1200) - 0.01);
	}
	doc_release(&d);
	hg_buf_release(&out);
	fb_release(&b);
}

/* 10,000 siblings of equal weight: each 0.118 px at full width, all drawn,
 * their widths adding up to the caller's. */
static void test_many_siblings(void **state)
{
	(void)state;
	struct fb b;
	fb_init(&b, 10001);
	size_t root = fb_add(&b, HG_FLAME_NO_PARENT, "android.os.Looper.loop()", 0);
	char name[64];
	for (int i = 0; i < 10000; i++) {
		snprintf(name, sizeof name, "com.app.Sibling%d.run()", i);
		fb_add(&b, root, name, 7);
	}
	fb_finish(&b);
	hg_buf out;
	struct doc d;
	write_svg(&b.f, NULL, &out, &d);
	assert_int_equal(d.n, 10001);
	double sum = 0, end = SVG_PAD;
	for (size_t i = 1; i < d.n; i++) {
		sum += d.frames[i].w;
		assert_true(d.frames[i].x > end - 0.011 && d.frames[i].x < end + 0.011);
		end = d.frames[i].x + d.frames[i].w;
	}
	assert_true(sum > d.frames[0].w - 1 && sum < d.frames[0].w + 1);
	doc_release(&d);
	hg_buf_release(&out);
	/* At 300 px they are under 0.1 px: none drawn, their weight left in the root. */
	hg_flame_svg_opts o = {.width = 300};
	write_svg(&b.f, &o, &out, &d);
	assert_int_equal(d.n, 1);
	assert_true(d.frames[0].w > 279.99);
	assert_non_null(strstr(d.summary, "10000 not drawn"));
	doc_release(&d);
	hg_buf_release(&out);
	fb_release(&b);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A million nodes, random shape and weights (a few hot paths): the SVG
 * stays bounded, and what is drawn nests. */
static void test_million_bounded(void **state)
{
	(void)state;
	struct fb b;
	size_t n = 1000000;
	fb_init(&b, n);
	uint64_t s = 88172645463325252ULL;
	char name[64];
	for (size_t i = 0; i < n; i++) {
		size_t parent = i == 0 ? HG_FLAME_NO_PARENT : (size_t)(rnd(&s) % (i < 64 ? i : 64 + i / 2));
		if (parent >= i)
			parent = i - 1;
		snprintf(name, sizeof name, "com.app.m%u.C%u.f%zu()", (unsigned)(i % 97),
			 (unsigned)(i % 13), i);
		fb_add(&b, parent, name, (int64_t)(rnd(&s) % 5 == 0 ? rnd(&s) % 100000 : rnd(&s) % 3));
	}
	fb_finish(&b);
	hg_buf out;
	struct doc d;
	write_svg(&b.f, NULL, &out, &d);
	assert_true(d.n > 1000 && d.n <= 40000);
	assert_true(out.len < 16u << 20);
	char want[64];
	snprintf(want, sizeof want, "%zu frames, %zu not drawn", d.n, n - d.n);
	assert_non_null(strstr(d.summary, want));
	for (size_t i = 0; i < d.n; i++) {
		assert_true(d.frames[i].x >= SVG_PAD - 0.01);
		assert_true(d.frames[i].x + d.frames[i].w <= 1200 - SVG_PAD + 0.02);
	}
	doc_release(&d);
	hg_buf_release(&out);
	fb_release(&b);
}

/* Malformed flames: a parent after its child, negative and inconsistent
 * totals, no nodes at all, random parents, weights and name bytes.  Still an SVG,
 * every rect within its row's width. */
static void test_malformed(void **state)
{
	(void)state;
	hg_buf out;
	struct doc d;
	hg_flame empty = {.key = -1};
	write_svg(&empty, NULL, &out, &d);
	assert_int_equal(d.n, 0);
	doc_release(&d);
	hg_buf_release(&out);

	uint64_t s = 42;
	for (int round = 0; round < 200; round++) {
		struct fb b;
		size_t n = 1 + rnd(&s) % 60;
		fb_init(&b, n);
		for (size_t i = 0; i < n; i++) {
			size_t parent = rnd(&s) % 4 == 0 ? HG_FLAME_NO_PARENT : (size_t)(rnd(&s) % (n + 2));
			char name[48];
			size_t len = rnd(&s) % sizeof name;
			for (size_t j = 0; j < len; j++) /* random bytes, '.' and '(' often */
				name[j] = rnd(&s) % 4 == 0 ? ".(<&"[rnd(&s) % 4] : (char)(1 + rnd(&s) % 255);
			name[len] = 0;
			size_t k = fb_add(&b, parent, name, 0);
			b.f.nodes[k].total = (int64_t)(rnd(&s) % 1000) - 300;
			b.f.nodes[k].self = (int64_t)(rnd(&s) % 1000) - 300;
			b.f.nodes[k].key = rnd(&s) % 3 == 0;
		}
		b.f.total = (int64_t)(rnd(&s) % 5000) - 100;
		b.f.key = (long)(rnd(&s) % (n + 3)) - 1;
		b.f.diff = round % 2;
		b.f.reports = (int64_t)(rnd(&s) % 3) - 1;
		write_svg(&b.f, NULL, &out, &d);
		for (size_t i = 0; i < d.n; i++) {
			assert_true(d.frames[i].w >= 0);
			assert_true(d.frames[i].x >= SVG_PAD - 0.01);
			assert_true(d.frames[i].x + d.frames[i].w <= 1200 - SVG_PAD + 0.02);
		}
		doc_release(&d);
		hg_buf_release(&out);
		fb_release(&b);
	}
}

/* Two reports merged: paths with the same names are one node, reports
 * counted once however often a path repeats, the StackKey of the most. */
static void test_merge(void **state)
{
	(void)state;
	struct fb r1, r2;
	sample_flame(&r1);
	fb_init(&r2, 8);
	size_t root = fb_add(&r2, HG_FLAME_NO_PARENT, "android.os.Handler.dispatchMessage(Message)", 1);
	size_t x = fb_add(&r2, root, "com.app.X.run()", 5);
	fb_add(&r2, root, "com.app.X.run()", 7); /* the same path twice */
	r2.f.key = (long)x;
	fb_finish(&r2);
	hg_arena *arena = hg_arena_create();
	hg_flame_merger *m = hg_flame_merger_create(arena);
	assert_int_equal(hg_flame_merger_add(m, &r1.f), 0);
	assert_int_equal(hg_flame_merger_add(m, &r2.f), 0);
	assert_int_equal(hg_flame_merger_add(m, &r1.f), 0);
	hg_flame f;
	assert_int_equal(hg_flame_merger_finish(m, "cluster", &f), 0);
	hg_flame_merger_destroy(m);
	fb_release(&r2);
	assert_int_equal(f.reports, 3);
	assert_int_equal(f.n, r1.f.n + 1);
	assert_int_equal(f.total, 856 * 2 + 13);
	assert_int_equal(f.nodes[0].reports, 3);
	assert_int_equal(f.nodes[0].total, 856 * 2 + 13);
	const hg_flame_node *run = &f.nodes[f.n - 1];
	assert_string_equal(run->name, "com.app.X.run()");
	assert_int_equal(run->total, 12);
	assert_int_equal(run->reports, 1);
	assert_int_equal(f.key, r1.f.key); /* two reports against one */
	assert_true(f.nodes[0].key && !run->key);
	fb_release(&r1);
	hg_arena_destroy(arena);
}

/* The base: the sample.  After, per report: D() and below doubled, B()
 * halved, C() the same, a new path under A(); two reports. */
static void test_diff(void **state)
{
	(void)state;
	struct fb base, after;
	sample_flame(&base);
	fb_init(&after, 16);
	after.f.reports = 2;
	const char *p = "sample.tencent.matrix.trace.TestTraceMainActivity.";
	char name[128];
#define N(s) (snprintf(name, sizeof name, "%s%s", p, s), name)
	size_t root = fb_add(&after, HG_FLAME_NO_PARENT, "android.os.Handler.dispatchMessage(Message)", 4);
	size_t j = fb_add(&after, root, N("testJankiess(View)"), 6);
	size_t a = fb_add(&after, j, N("A()"), 4);
	fb_add(&after, a, N("B()"), 10);
	size_t c = fb_add(&after, a, N("C()"), 18);
	fb_add(&after, c, N("tryHeavyMethod()"), 36);
	size_t d = fb_add(&after, a, N("D()"), 12);
	size_t e = fb_add(&after, d, N("E()"), 36);
	after.f.key = (long)fb_add(&after, e, N("testInnerSleep()"), 3200);
	fb_add(&after, a, N("F()"), 40);
#undef N
	fb_finish(&after);
	hg_arena *arena = hg_arena_create();
	hg_flame df;
	assert_int_equal(hg_flame_diff(&base.f, &after.f, arena, &df), 0);
	assert_true(df.diff);
	assert_int_equal(df.n, after.f.n);
	assert_int_equal(df.reports, 2);
	assert_int_equal(df.base_reports, 1);
	assert_int_equal(df.total, after.f.total);
	assert_int_equal(df.key, after.f.key);
	for (size_t i = 0; i < df.n; i++) {
		assert_string_equal(df.nodes[i].name, after.f.nodes[i].name);
		assert_int_equal(df.nodes[i].total, after.f.nodes[i].total);
		assert_int_equal(df.nodes[i].in_base, i != df.n - 1);
		if (df.nodes[i].in_base)
			assert_true(df.nodes[i].base_per_report == (double)base.f.nodes[i].total);
	}
	hg_buf out;
	struct doc doc;
	write_svg(&df, NULL, &out, &doc);
	assert_int_equal(doc.n, df.n);
	unsigned r, g, b;
	struct frame *f = find(&doc, "sample.tencent.matrix.trace.TestTraceMainActivity.testInnerSleep()");
	assert_int_equal(sscanf(f->fill, "#%2x%2x%2x", &r, &g, &b), 3);
	assert_true(r == 255 && g < 60 && b < 60); /* 800 -> 1600 per report: full red */
	assert_non_null(strstr(f->title, "per report: before 800 ms, after 1600 ms (+100%)"));
	f = find(&doc, "sample.tencent.matrix.trace.TestTraceMainActivity.B()");
	assert_int_equal(sscanf(f->fill, "#%2x%2x%2x", &r, &g, &b), 3);
	assert_true(b == 255 && r < 255 && r == g); /* 10 -> 5: blue */
	assert_non_null(strstr(f->title, "(-50%)"));
	f = find(&doc, "sample.tencent.matrix.trace.TestTraceMainActivity.tryHeavyMethod()");
	assert_string_equal(f->fill, "#dddddd"); /* 18 -> 18: unchanged */
	f = find(&doc, "sample.tencent.matrix.trace.TestTraceMainActivity.F()");
	assert_string_equal(f->fill, "url(#new)");
	assert_non_null(strstr(f->title, "new: not in the base"));
	assert_non_null(strstr(doc.summary, "against the base (1 report)"));
	doc_release(&doc);
	hg_buf_release(&out);
	/* The other way round: the colours flip. */
	assert_int_equal(hg_flame_diff(&after.f, &base.f, arena, &df), 0);
	write_svg(&df, NULL, &out, &doc);
	f = find(&doc, "sample.tencent.matrix.trace.TestTraceMainActivity.testInnerSleep()");
	assert_int_equal(sscanf(f->fill, "#%2x%2x%2x", &r, &g, &b), 3);
	assert_true(b == 255 && r < 200);
	assert_non_null(strstr(f->title, "(-50%)"));
	assert_null(find(&doc, "sample.tencent.matrix.trace.TestTraceMainActivity.F()"));
	doc_release(&doc);
	hg_buf_release(&out);
	hg_arena_destroy(arena);
	fb_release(&base);
	fb_release(&after);
}

/* ---- real reports ---- */

static const char *testdata = "testdata";

struct svg_run {
	size_t reports, drawn, keys;
};

/* Each report's flame as an SVG: well-formed, a frame per drawn node with
 * its title, the StackKey frame marked when the flame has one drawn. */
static int draw_report(void *user, hg_report *rep)
{
	struct svg_run *run = user;
	hg_arena *arena = hg_arena_create();
	hg_flame f;
	int rc = rep->error ? HG_EINVAL : hg_flame_from_report(rep, false, arena, &f);
	if (rc == 0) {
		hg_buf out;
		struct doc d;
		write_svg(&f, NULL, &out, &d);
		assert_true(d.n > 0 || f.total == 0);
		assert_true(d.n <= f.n);
		for (size_t i = 0; i < d.n; i++)
			assert_non_null(strchr(d.frames[i].title, '\n'));
		if (f.key >= 0) {
			size_t marked = 0;
			for (size_t i = 0; i < d.n; i++)
				marked += !strcmp(d.frames[i].id, "key");
			assert_int_equal(marked, 1);
			run->keys++;
		}
		run->drawn++;
		doc_release(&d);
		hg_buf_release(&out);
	} else {
		assert_int_equal(rc, HG_EINVAL); /* nothing to draw, or unread */
	}
	run->reports++;
	hg_arena_destroy(arena);
	hg_report_destroy(rep);
	return 0;
}

static void test_real_reports(void **state)
{
	(void)state;
	const char *inputs[] = {"matrix-mangatoon/reports.ndjson", "anr", "blockcanary", "kscrash",
				"java-stacks", "sample/jank.json"};
	struct svg_run run = {0};
	for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
		char path[512];
		snprintf(path, sizeof path, "%s/%s", testdata, inputs[i]);
		DIR *dir = opendir(path);
		struct dirent *e;
		do { /* a file, or each file of a folder but its README */
			char file[1024];
			e = dir ? readdir(dir) : NULL;
			if (e && (e->d_name[0] == '.' || !strcmp(e->d_name, "README.md")))
				continue;
			snprintf(file, sizeof file, "%s%s%s", path, e ? "/" : "", e ? e->d_name : "");
			if (dir && !e)
				break;
			hg_ctx ctx;
			hg_ctx_init(&ctx);
			assert_true(hg_reports_read_path(&ctx, file, NULL, HG_FORMAT_AUTO, draw_report,
							 &run) >= 0);
		} while (dir);
		if (dir)
			closedir(dir);
	}
	print_message("%zu reports, %zu drawn, %zu with a StackKey\n", run.reports, run.drawn,
		      run.keys);
	/* 581 production reports and the others: most are drawn, with their StackKey. */
	assert_true(run.reports >= 610);
	assert_true(run.drawn >= 600);
	assert_true(run.keys >= 480);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_hostile_names),
		cmocka_unit_test(test_deep_chain),
		cmocka_unit_test(test_many_siblings),
		cmocka_unit_test(test_million_bounded),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_real_reports),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
