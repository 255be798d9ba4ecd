/* Fitting thread dumps to a width and folding repeated recursion
 * (src/lib/render/render_width.c and render_fold.c): names shortened by their packages and never
 * their class or method, words wrapped under a hanging indent at any width
 * (1, 0, huge), cycles of 1..12 frames found with the right counts on the
 * real ANR dump with a 30-level View recursion, on a 100,000-frame
 * recursion, and never over a frame that a lock line follows.
 * argv[1] is the testdata/ folder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cmocka.h>

#include "hangar/input.h"
#include "render/render_internal.h"

static const char *testdata = "testdata";

static char *fit(const char *lead, const char *cls, const char *tail, int avail)
{
	hg_buf b;
	hg_buf_init(&b);
	render_fit_name(&b, lead, cls, strlen(cls), tail, avail, "…");
	hg_buf_putc(&b, '\0');
	assert_false(b.failed);
	return b.data;
}

static void assert_fit(const char *cls, const char *tail, int avail, const char *want)
{
	char *got = fit("at ", cls, tail, avail);
	assert_string_equal(got, want);
	free(got);
}

static void test_names_lose_packages_first(void **state)
{
	(void)state;
	const char *cls = "com.example.app.ui.Foo$Bar";
	const char *tail = ".onClick(Foo.kt:12)";
	/* 48 columns whole */
	assert_fit(cls, tail, 0, "at com.example.app.ui.Foo$Bar.onClick(Foo.kt:12)");
	assert_fit(cls, tail, 48, "at com.example.app.ui.Foo$Bar.onClick(Foo.kt:12)");
	assert_fit(cls, tail, 47, "at c.example.app.ui.Foo$Bar.onClick(Foo.kt:12)");
	assert_fit(cls, tail, 40, "at c.e.app.ui.Foo$Bar.onClick(Foo.kt:12)");
	assert_fit(cls, tail, 39, "at c.e.a.ui.Foo$Bar.onClick(Foo.kt:12)");
	assert_fit(cls, tail, 37, "at c.e.a.u.Foo$Bar.onClick(Foo.kt:12)");
	assert_fit(cls, tail, 36, "at …Foo$Bar.onClick(Foo.kt:12)");
	assert_fit(cls, tail, 29, "…Foo$Bar.onClick(Foo.kt:12)");
	/* narrower still: the class and method are kept whole */
	assert_fit(cls, tail, 1, "…Foo$Bar.onClick(Foo.kt:12)");
	assert_fit("Foo", ".m()", 2, "Foo.m()");
	hg_buf a; /* --ascii: "..." */
	hg_buf_init(&a);
	render_fit_name(&a, "at ", cls, strlen(cls), tail, 32, "...");
	hg_buf_putc(&a, '\0');
	assert_string_equal(a.data, "at ...Foo$Bar.onClick(Foo.kt:12)");
	hg_buf_release(&a);
	char *s = fit("", "", "", 3);
	assert_string_equal(s, "");
	free(s);
	/* a method stack's symbol: the class ends before the last dot */
	hg_buf b;
	hg_buf_init(&b);
	hg_render_fit_symbol(&b, "", "sample.tencent.matrix.trace.TestTraceMainActivity.A()", 36, "…");
	hg_buf_putc(&b, '\0');
	assert_string_equal(b.data, "s.t.m.t.TestTraceMainActivity.A()");
	hg_buf_reset(&b);
	hg_render_fit_symbol(&b, "", "native_symbol_without_dots(int)", 5, "…");
	hg_buf_putc(&b, '\0');
	assert_string_equal(b.data, "native_symbol_without_dots(int)");
	hg_buf_release(&b);
}

/* Every line of out at most width columns (or the indent and the few
 * columns a line keeps however narrow), every line after the first
 * starting with cont. */
static void check_wrapped(const char *out, const char *cont, int width)
{
	size_t most = (size_t)width > strlen(cont) + HG_RENDER_MIN_ROOM ? (size_t)width
								      : strlen(cont) + HG_RENDER_MIN_ROOM;
	bool line1 = true;
	for (const char *p = out; *p;) {
		const char *nl = strchr(p, '\n');
		assert_non_null(nl);
		if (!line1)
			assert_memory_equal(p, cont, strlen(cont));
		if (width > 0)
			assert_true(render_cols(p, (size_t)(nl - p)) <= most);
		p = nl + 1;
		line1 = false;
	}
}

static void test_wrap_at_any_width(void **state)
{
	(void)state;
	const char *subject = "Input dispatching timed out (f130cca com.datadog.android.sample/com."
			      "datadog.android.sample.NavActivity (server) is not responding. Waited "
			      "5000ms for MotionEvent)";
	hg_buf b;
	hg_buf_init(&b);
	hg_render_wrap(&b, "subject     ", "            ", subject, strlen(subject), 80);
	hg_buf_putc(&b, '\0');
	assert_string_equal(b.data,
			    "subject     Input dispatching timed out (f130cca\n"
			    "            com.datadog.android.sample/com.datadog.android.sample.NavActivity\n"
			    "            (server) is not responding. Waited 5000ms for MotionEvent)\n");
	int widths[] = {0, 1, 2, 12, 20, 60, 80, 120, 100000};
	/* a 10,000-character subject: words, then one 10,000-character word */
	char *big = malloc(10001);
	assert_non_null(big);
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < 10000; i++)
			big[i] = pass == 0 && i % 7 == 6 ? ' ' : (char)('a' + i % 26);
		big[10000] = '\0';
		for (size_t w = 0; w < sizeof widths / sizeof *widths; w++) {
			hg_buf_reset(&b);
			hg_render_wrap(&b, "subject     ", "            ", big, 10000, widths[w]);
			hg_buf_putc(&b, '\0');
			assert_false(b.failed);
			check_wrapped(b.data, "            ", widths[w]);
			/* nothing lost: the letters come back in order */
			size_t k = 0;
			for (const char *p = b.data + 12; *p; p++)
				if (*p >= 'a' && *p <= 'z') {
					while (big[k] == ' ')
						k++;
					assert_int_equal(*p, big[k++]);
				}
			assert_int_equal(k, 10000); /* every letter, in order */
		}
	}
	free(big);
	/* UTF-8 counts by characters, and a break never splits one */
	hg_buf_reset(&b);
	hg_render_wrap(&b, "", "", "ééééé ééééé", strlen("ééééé ééééé"), 5 + HG_RENDER_MIN_ROOM);
	hg_buf_putc(&b, '\0');
	assert_string_equal(b.data, "ééééé ééééé\n");
	hg_buf_release(&b);
}

/* ---- folds ---- */

static hg_report *read_dump(const char *name)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", testdata, name);
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	char *data = NULL;
	size_t len;
	assert_int_equal(hg_input_read(&ctx, path, &data, &len), 0);
	hg_report *rep = NULL;
	assert_int_equal(hg_report_read_one(&ctx, name, data, len, HG_FORMAT_AUTO, &rep), 0);
	free(data);
	assert_non_null(rep);
	return rep;
}

static void test_fold_view_recursion(void **state)
{
	(void)state;
	hg_report *rep = read_dump("anr/android14-emu-appexit-input-dispatching-main-runnable-ondraw.txt");
	const hg_thread *t = &rep->threads.items[rep->threads.blamed];
	size_t n;
	struct frame_fold *f = render_find_folds(t, &n);
	assert_int_equal(n, 1);
	/* frames 5..7 (recreateChildDisplayList, dispatchGetDisplayList,
	 * updateDisplayListIfDirty:22712) come back 8 more times */
	assert_int_equal(f[0].period, 3);
	assert_int_equal(f[0].first, 8);
	assert_int_equal(f[0].times, 8);
	assert_int_equal(f[0].n, 24);
	assert_string_equal(t->frames[5].method, "recreateChildDisplayList");
	assert_string_equal(t->frames[f[0].first + f[0].n].method, "updateViewTreeDisplayList");
	free(f);
	hg_report_destroy(rep);
}

static hg_frame *add(hg_thread *t, hg_arena *a, const char *method, long line)
{
	hg_frame *f = hg_thread_add_frame(t, a);
	assert_non_null(f);
	f->kind = HG_FRAME_JAVA;
	f->cls = "com.example.Rec";
	f->method = method;
	f->file = "Rec.java";
	f->line = line;
	return f;
}

static void test_fold_100k_recursion_and_locks(void **state)
{
	(void)state;
	hg_arena *a = hg_arena_create();
	assert_non_null(a);
	hg_threads ts = {0};
	hg_thread *t = hg_threads_add(&ts, a);
	add(t, a, "top", 1);
	for (int i = 0; i < 100000; i++)
		add(t, a, "recurse", 7);
	add(t, a, "bottom", 2);
	clock_t start = clock();
	size_t n;
	struct frame_fold *f = render_find_folds(t, &n);
	assert_true((double)(clock() - start) / CLOCKS_PER_SEC < 2.0);
	assert_int_equal(n, 1);
	assert_int_equal(f[0].period, 1);
	assert_int_equal(f[0].first, 2);
	assert_int_equal(f[0].times, 99999);
	assert_int_equal(f[0].n, 99999);
	free(f);
	/* a lock line under frame 500 stops the fold before it; the rest folds again */
	t = &ts.items[0];
	t->n_frames = 501;
	assert_int_equal(hg_thread_add_frame_lock(t, a, HG_LOCK_HELD, "0x1", "X", -1), 0);
	t->n_frames = 100002;
	f = render_find_folds(t, &n);
	assert_int_equal(n, 2);
	assert_int_equal(f[0].first, 2);
	assert_int_equal(f[0].n, 498); /* frames 2..499; 500 is pinned */
	assert_true(f[1].first > 500);
	assert_int_equal(f[1].first + f[1].n, 100001);
	free(f);
	hg_arena_destroy(a);
}

static void test_fold_periods_and_non_repeats(void **state)
{
	(void)state;
	hg_arena *a = hg_arena_create();
	hg_threads ts = {0};
	/* A B C D repeated 5 times, between two frames */
	hg_thread *t = hg_threads_add(&ts, a);
	add(t, a, "enter", 1);
	for (int r = 0; r < 5; r++)
		for (int k = 0; k < 4; k++)
			add(t, a, (const char *[]){"a", "b", "c", "d"}[k], k);
	add(t, a, "leave", 1);
	size_t n;
	struct frame_fold *f = render_find_folds(t, &n);
	assert_int_equal(n, 1);
	assert_int_equal(f[0].period, 4);
	assert_int_equal(f[0].times, 4);
	assert_int_equal(f[0].first, 5);
	free(f);
	/* a period longer than FOLD_MAX_PERIOD, twice only, or differing
	 * lines: nothing folds */
	hg_thread *u = hg_threads_add(&ts, a);
	for (int r = 0; r < 3; r++)
		for (int k = 0; k < FOLD_MAX_PERIOD + 1; k++)
			add(u, a, "m", k);
	hg_thread *v = hg_threads_add(&ts, a);
	for (int k = 0; k < 2; k++)
		add(v, a, "m", 1);
	hg_thread *w = hg_threads_add(&ts, a);
	for (int k = 0; k < 40; k++)
		add(w, a, "m", k);
	for (size_t i = 1; i < 4; i++) {
		f = render_find_folds(&ts.items[i], &n);
		assert_int_equal(n, 0);
		free(f);
	}
	/* an empty thread */
	hg_thread *e = hg_threads_add(&ts, a);
	f = render_find_folds(e, &n);
	assert_int_equal(n, 0);
	assert_null(f);
	hg_arena_destroy(a);
}

static char *native(const char *name, int level)
{
	hg_buf b;
	hg_buf_init(&b);
	hg_render_native_name(&b, name, level, "…");
	hg_buf_putc(&b, '\0');
	assert_false(b.failed);
	return b.data;
}

/* C++ names from real dumps, shortened a level at a time: arguments, then
 * template arguments, then qualifiers; never the function's own name. */
static void test_native_names_shorten(void **state)
{
	(void)state;
	static const struct {
		const char *name, *level[4];
	} cases[] = {
		{"art::jit::Jit::MaybeDoOnStackReplacement(art::Thread*, art::ArtMethod*, unsigned int)+415",
		 {NULL, "art::jit::Jit::MaybeDoOnStackReplacement(…)+415",
		  "art::jit::Jit::MaybeDoOnStackReplacement(…)+415", "…MaybeDoOnStackReplacement(…)+415"}},
		{"art::interpreter::Execute(art::Thread*, bool) (.llvm.16375758241455872412)+370",
		 {NULL, "art::interpreter::Execute(…) (…)+370", "art::interpreter::Execute(…) (…)+370",
		  "…Execute(…) (…)+370"}},
		{"void* std::__1::__thread_proxy<std::__1::tuple<std::__1::unique_ptr<std::__1::__thread_struct>, void (*)(void*)>>(void*)",
		 {NULL, "void* std::__1::__thread_proxy<std::__1::tuple<std::__1::unique_ptr<std::__1::__thread_struct>, void (…)(…)>>(…)",
		  "void* std::__1::__thread_proxy<…>(…)", "…__thread_proxy<…>(…)"}},
		{"std::function<void (int)>::operator()(int) const",
		 {NULL, "std::function<void (…)>::operator()(…) const", "std::function<…>::operator()(…) const",
		  "…operator()(…) const"}},
		{"art_quick_invoke_stub+556", {NULL, "art_quick_invoke_stub+556", "art_quick_invoke_stub+556",
					       "art_quick_invoke_stub+556"}},
		{"f(int", {NULL, "f(…", "f(…", "f(…"}},
		{"ns::g()", {NULL, "ns::g()", "ns::g()", "…g()"}},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		for (int level = 0; level < 4; level++) {
			char *got = native(cases[i].name, level);
			assert_string_equal(got, level ? cases[i].level[level] : cases[i].name);
			free(got);
		}
	}
}

/* Numbers in JSON output (hg_buf_int, two digits a step) read as
 * printf writes them: every length, both signs, int64's ends. */
static void test_buf_int_as_printf(void **state)
{
	(void)state;
	int64_t edge[] = {0, 1, -1, 9, 10, 11, 99, 100, 101, 999, 1000, -10, -99, -100,
			  INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1, 4294967296, -4294967296};
	uint64_t x = 0x853C49E6748FEA9Bu;
	for (size_t k = 0; k < 4000; k++) {
		int64_t v;
		if (k < sizeof edge / sizeof *edge) {
			v = edge[k];
		} else {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			v = (int64_t)(x >> (x % 64)); /* every length */
			v = (x & 1) ? -v : v;
		}
		char want[32];
		snprintf(want, sizeof want, "%lld", (long long)v);
		hg_buf b;
		hg_buf_init(&b);
		hg_buf_int(&b, v);
		assert_string_equal(b.data, want);
		hg_buf_release(&b);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_lose_packages_first),
		cmocka_unit_test(test_native_names_shorten),
		cmocka_unit_test(test_wrap_at_any_width),
		cmocka_unit_test(test_buf_int_as_printf),
		cmocka_unit_test(test_fold_view_recursion),
		cmocka_unit_test(test_fold_100k_recursion_and_locks),
		cmocka_unit_test(test_fold_periods_and_non_repeats),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
