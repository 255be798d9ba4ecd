/* Writes the SVG flame graphs tests/browser/svg.js opens: OUTDIR/flame.svg
 * (Matrix's sample call tree under a main-thread loop, with a deep chain,
 * a StackKey, and 400 small siblings of which 100 (cost 0) are too narrow to
 * draw) and OUTDIR/diff.svg (the same cluster in two versions: the
 * StackKey's cost per report doubled, one method halved, one unchanged, a
 * new path).  Built by hand, so the test needs no report reader. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/flame.h"

struct fb {
	hg_arena *arena;
	hg_flame f;
	size_t cap;
};

static void fb_init(struct fb *b, size_t cap, const char *title)
{
	b->arena = hg_arena_create();
	memset(&b->f, 0, sizeof b->f);
	b->f.nodes = b->arena ? hg_arena_calloc(b->arena, cap, sizeof *b->f.nodes) : NULL;
	if (!b->f.nodes) {
		fprintf(stderr, "svg_fixture: out of memory\n");
		exit(1);
	}
	b->cap = cap;
	b->f.key = -1;
	b->f.reports = 1;
	b->f.title = title;
}

static size_t add(struct fb *b, size_t parent, const char *name, int64_t self, int64_t calls)
{
	if (b->f.n == b->cap) {
		fprintf(stderr, "svg_fixture: too many nodes\n");
		exit(1);
	}
	hg_flame_node *n = &b->f.nodes[b->f.n];
	n->name = hg_arena_strdup(b->arena, name);
	n->parent = parent;
	n->self = n->total = self;
	n->calls = calls;
	n->reports = 1;
	n->begin = -1;
	return b->f.n++;
}

static void finish(struct fb *b)
{
	for (size_t i = b->f.n; i-- > 0;) {
		hg_flame_node *n = &b->f.nodes[i];
		if (n->parent == HG_FLAME_NO_PARENT)
			b->f.total += n->total;
		else
			b->f.nodes[n->parent].total += n->total;
	}
	for (size_t i = (size_t)b->f.key; b->f.key >= 0 && i != HG_FLAME_NO_PARENT;
	     i = b->f.nodes[i].parent)
		b->f.nodes[i].key = true;
}

/* The sample tree; `grown` the newer version (per report: the sleep
 * doubled, B() halved, C() the same, F() new). */
static void sample(struct fb *b, bool grown)
{
	const char *p = "sample.tencent.matrix.trace.TestTraceMainActivity.";
	char name[160];
#define N(s) (snprintf(name, sizeof name, "%s%s", p, s), name)
	size_t loop = add(b, HG_FLAME_NO_PARENT, "android.os.Looper.loop()", 1, 1);
	size_t root = add(b, loop, "android.os.Handler.dispatchMessage(Message)", 2, 1);
	size_t j = add(b, root, N("testJankiess(View)"), 3, 1);
	size_t a = add(b, j, N("A()"), 2, 1);
	add(b, a, N("B()"), grown ? 5 : 10, 1);
	size_t c = add(b, a, N("C()"), 9, 1);
	add(b, c, N("tryHeavyMethod()"), 18, 3);
	size_t d = add(b, a, N("D()"), 3, 1);
	size_t e = add(b, d, N("E()"), 9, 1);
	b->f.key = (long)add(b, e, N("testInnerSleep()"), grown ? 1600 : 800, 1);
	if (grown)
		add(b, a, N("F()"), 40, 1);
	size_t ui = add(b, loop, "android.view.Choreographer.doFrame(long)", 4, 1);
	size_t deep = ui;
	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof name, "androidx.recyclerview.widget.RecyclerView.layoutStep%d()", i);
		deep = add(b, deep, name, i == 39 ? 300 : 1, 1);
	}
	size_t many = add(b, ui, "com.example.feed.FeedAdapter.onBindViewHolder(ViewHolder, int)", 2, 1);
	for (int i = 0; i < 400; i++) {
		snprintf(name, sizeof name, "com.example.feed.widgets.Cell%d.bind(Item)", i);
		add(b, many, name, i % 4 == 0 ? 0 : 1, 1);
	}
#undef N
	finish(b);
}

static int write(const char *dir, const char *file, const hg_flame *f)
{
	hg_buf out;
	hg_buf_init(&out);
	hg_flame_write_svg(f, NULL, &out);
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	FILE *fp = fopen(path, "wb");
	int ok = !out.failed && fp && fwrite(out.data, 1, out.len, fp) == out.len;
	if (fp && fclose(fp) != 0)
		ok = 0;
	hg_buf_release(&out);
	if (!ok)
		fprintf(stderr, "svg_fixture: cannot write %s\n", path);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: svg_fixture OUTDIR\n");
		return 2;
	}
	struct fb base, after;
	fb_init(&base, 600, "slow_method in TestTraceMainActivity, 1.0.0 (1 report)");
	sample(&base, false);
	fb_init(&after, 600, "cluster 8ec23a: 1.0.0 -> 1.1.0");
	sample(&after, true);
	after.f.reports = 1;
	int rc = write(argv[1], "flame.svg", &base.f);
	hg_arena *arena = hg_arena_create();
	hg_flame diff;
	if (!arena || hg_flame_diff(&base.f, &after.f, arena, &diff) != 0) {
		fprintf(stderr, "svg_fixture: out of memory\n");
		rc = 1;
	} else {
		rc |= write(argv[1], "diff.svg", &diff);
	}
	hg_arena_destroy(arena);
	hg_arena_destroy(base.arena);
	hg_arena_destroy(after.arena);
	return rc;
}
