/* Unit tests for the StackKey's callers (flame_callers.c,
 * flame_callers_key.c): merged-tree rows built by hand and turned upside
 * down.  A key under three parents (two screens and a Handler path) with
 * a caller reached from two roots; a key that calls itself; a report
 * counted on two paths (capped at the cluster's count); no key, an empty
 * tree, malformed rows; a thread dump's key_symbol as written (Java,
 * Matrix's "cls:method", native Android and Apple lines, mangled names)
 * naming its frames' labels; "$1"/"$2" of two builds as one key; the
 * --max-nodes cap; and big trees whose callers are shared (each walked
 * once).  Every flame is checked for its widths and written in the
 * folded, Chrome and speedscope formats (flame_checks.h). */
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
#include "json/json.h"

#include "flame_checks.h"

#define N(a) (sizeof(a) / sizeof *(a))

/* The flame of rows[0..n) for key_symbol, checked; its folded text in
 * *folded (malloc'd) when folded is not NULL. */
static hg_flame build(hg_arena *a, const hg_tree_row *rows, size_t n, const char *key_symbol,
		      int64_t reports, size_t max_nodes, char **folded)
{
	hg_flame_callers_builder *b = hg_flame_callers_builder_create(a, max_nodes);
	assert_non_null(b);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(hg_flame_callers_builder_add(b, &rows[i]), 0);
	hg_flame f;
	assert_int_equal(hg_flame_callers_builder_finish(b, key_symbol, reports, &f), 0);
	check_all(&f);
	if (f.n) {
		assert_int_equal(f.key, 0);
		assert_true(f.nodes[0].key && f.nodes[0].parent == HG_FLAME_NO_PARENT);
		for (size_t i = 1; i < f.n; i++)
			assert_true(!f.nodes[i].key && f.nodes[i].parent != HG_FLAME_NO_PARENT);
	} else {
		assert_int_equal(f.key, -1);
	}
	if (folded) {
		hg_buf out;
		hg_buf_init(&out);
		hg_flame_write_folded(&f, &out);
		assert_false(out.failed);
		*folded = strndup(out.data ? out.data : "", out.len);
		hg_buf_release(&out);
	}
	return f;
}

static void assert_folded(hg_arena *a, const hg_tree_row *rows, size_t n, const char *key,
			  int64_t reports, const char *want)
{
	char *got;
	build(a, rows, n, key, reports, 0, &got);
	assert_string_equal(got, want);
	free(got);
}

static const hg_flame_node *named(const hg_flame *f, size_t parent, const char *name)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->nodes[i].parent == parent && strcmp(f->nodes[i].name, name) == 0)
			return &f->nodes[i];
	fail_msg("no node %s under %zu", name, parent);
	return NULL;
}

/* Dao.query reached from two screens and a Handler path; one screen's
 * caller also from a second root; Dao.query off the key path (under
 * View.draw) was no report's key and is not drawn. */
static const hg_tree_row three_parents[] = {
	{1, 0, "Handler.dispatchMessage", 7, 1500, 900, 0, true},
	{2, 1, "HomeActivity.onResume", 3, 650, 300, 10, true},
	{3, 2, "Feed.load", 3, 620, 300, 20, true},
	{4, 3, "Dao.query", 3, 600, 290, 100, true},
	{5, 4, "Cursor.fill", 3, 500, 250, 500, false},
	{6, 1, "SearchActivity.onClick", 2, 320, 200, 20, true},
	{7, 6, "Dao.query", 2, 300, 180, 300, true},
	{8, 1, "Handler$1.handleMessage", 1, 260, 260, 10, true},
	{9, 8, "Repo.sync", 1, 250, 250, 50, true},
	{10, 9, "Dao.query", 1, 200, 200, 200, true},
	{11, 1, "View.draw", 2, 170, 100, 70, false},
	{12, 11, "Dao.query", 2, 100, 60, 100, false},
	{13, 0, "Choreographer.doFrame", 1, 110, 110, 10, true},
	{14, 13, "SearchActivity.onClick", 1, 100, 100, 0, true},
	{15, 14, "Dao.query", 1, 100, 100, 100, true},
};

static void key_under_three_parents(void **state)
{
	(void)state;
	hg_arena *a = hg_arena_create();
	hg_flame f = build(a, three_parents, N(three_parents), "Dao.query", 7, 0, NULL);
	assert_int_equal(f.unit, HG_FLAME_MS);
	assert_int_equal(f.reports, 7);
	assert_null(f.title);
	assert_string_equal(f.nodes[0].name, "Dao.query");
	assert_int_equal(f.nodes[0].total, 1200); /* 600 + 300 + 200 + 100: not View.draw's */
	assert_int_equal(f.nodes[0].self, 0);
	assert_int_equal(f.nodes[0].reports, 7);
	assert_int_equal(f.total, 1200);
	assert_int_equal(f.n, 10);
	/* the callers, heaviest first; SearchActivity.onClick from two roots */
	assert_string_equal(f.nodes[1].name, "Feed.load");
	assert_string_equal(f.nodes[2].name, "SearchActivity.onClick");
	assert_string_equal(f.nodes[3].name, "Repo.sync");
	const hg_flame_node *search = named(&f, 0, "SearchActivity.onClick");
	assert_int_equal(search->total, 400);
	assert_int_equal(search->reports, 3);
	size_t s = (size_t)(search - f.nodes);
	assert_int_equal(named(&f, s, "Handler.dispatchMessage")->total, 300);
	assert_int_equal(named(&f, s, "Choreographer.doFrame")->reports, 1);
	assert_folded(a, three_parents, N(three_parents), "Dao.query", 7,
		      "Dao.query;Feed.load;HomeActivity.onResume;Handler.dispatchMessage 600\n"
		      "Dao.query;SearchActivity.onClick;Handler.dispatchMessage 300\n"
		      "Dao.query;SearchActivity.onClick;Choreographer.doFrame 100\n"
		      "Dao.query;Repo.sync;Handler$1.handleMessage;Handler.dispatchMessage 200\n");
	/* the rows in any order the store may give them (parents first) make
	 * the same: a key at a root has no caller, its weight is its self */
	const hg_tree_row root_key[] = {{1, 0, "Dao.query", 2, 90, 50, 90, true},
					{2, 0, "Main.run", 1, 40, 40, 0, true},
					{3, 2, "Dao.query", 1, 40, 40, 40, true}};
	assert_folded(a, root_key, N(root_key), "Dao.query", 3,
		      "Dao.query 90\nDao.query;Main.run 40\n");
	hg_arena_destroy(a);
}

/* Parser.parse calls itself through Node.visit: the outer call holds the
 * inner one, which is not counted again, nor drawn as its own caller. */
static void recursion(void **state)
{
	(void)state;
	hg_arena *a = hg_arena_create();
	const hg_tree_row rows[] = {
		{1, 0, "Main.run", 2, 1000, 600, 100, true},
		{2, 1, "Parser.parse", 2, 900, 600, 100, true},
		{3, 2, "Node.visit", 2, 800, 500, 100, true},
		{4, 3, "Parser.parse", 1, 700, 500, 200, true},
		{5, 4, "Parser.parse", 1, 500, 500, 500, true},
	};
	hg_flame f = build(a, rows, N(rows), "Parser.parse", 2, 0, NULL);
	assert_int_equal(f.n, 2);
	assert_int_equal(f.nodes[0].total, 900);
	assert_int_equal(f.nodes[0].reports, 2);
	assert_folded(a, rows, N(rows), "Parser.parse", 2, "Parser.parse;Main.run 900\n");
	/* a key that is its whole stack: itself under itself, nothing above */
	const hg_tree_row self[] = {{1, 0, "Loop.spin", 1, 300, 300, 0, true},
				    {2, 1, "Loop.spin", 1, 300, 300, 300, true}};
	assert_folded(a, self, N(self), "Loop.spin", 1, "Loop.spin 300\n");
	hg_arena_destroy(a);
}

/* A report that went through two nodes of the key (its own key path and
 * another report's) counts on both: no node says more than the cluster's
 * reports. */
static void reports_capped(void **state)
{
	(void)state;
	hg_arena *a = hg_arena_create();
	const hg_tree_row rows[] = {
		{1, 0, "Looper.loop", 4, 800, 400, 0, true},
		{2, 1, "A.run", 3, 500, 300, 0, true},
		{3, 2, "Dao.query", 3, 500, 300, 500, true},
		{4, 1, "B.run", 3, 300, 200, 0, true},
		{5, 4, "Dao.query", 3, 300, 200, 300, true},
	};
	hg_flame f = build(a, rows, N(rows), "Dao.query", 4, 0, NULL);
	assert_int_equal(f.nodes[0].reports, 4);
	assert_int_equal(named(&f, 0, "A.run")->reports, 3);
	assert_int_equal(f.nodes[0].total, 800);
	hg_arena_destroy(a);
}

static void no_key(void **state)
{
	(void)state;
	hg_arena *a = hg_arena_create();
	/* empty: nothing at all, with or without a key_symbol */
	hg_flame f = build(a, NULL, 0, "Dao.query", 0, 0, NULL);
	assert_int_equal(f.n, 0);
	assert_int_equal(f.total, 0);
	/* the key only off the key path; no key_symbol; a name no frame has */
	f = build(a, three_parents, N(three_parents), "View.draw", 7, 0, NULL);
	assert_int_equal(f.n, 0);
	f = build(a, three_parents, N(three_parents), NULL, 7, 0, NULL);
	assert_int_equal(f.n, 0);
	f = build(a, three_parents, N(three_parents), "Dao", 7, 0, NULL);
	assert_int_equal(f.n, 0);
	f = build(a, three_parents, N(three_parents), "query", 7, 0, NULL);
	assert_int_equal(f.n, 0);
	/* a name with no letter names nothing */
	const hg_tree_row unnamed[] = {{1, 0, "?", 1, 10, 10, 10, true}};
	f = build(a, unnamed, 1, "at ?(?)", 1, 0, NULL);
	assert_int_equal(f.n, 0);
	/* malformed rows */
	hg_flame_callers_builder *b = hg_flame_callers_builder_create(a, 0);
	hg_tree_row zero = {0, 0, "x", 1, 1, 1, 1, true}, one = {1, 0, "x", 1, 1, 1, 1, true};
	assert_int_equal(hg_flame_callers_builder_add(b, &zero), HG_EPARSE);
	assert_int_equal(hg_flame_callers_builder_add(b, &one), 0);
	assert_int_equal(hg_flame_callers_builder_add(b, &one), HG_EPARSE);
	/* an on-path row whose parent was not on it starts a chain */
	hg_tree_row orphan = {3, 2, "x", 1, 5, 5, 5, true};
	assert_int_equal(hg_flame_callers_builder_add(b, &orphan), 0);
	assert_int_equal(hg_flame_callers_builder_finish(b, "x", 2, &f), 0);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.total, 6);
	hg_arena_destroy(a);
}

/* The key of a thread dump's cluster is its frame's line as written; its
 * tree has no costs (a report's thread each). */
static void thread_dump_keys(void **state)
{
	(void)state;
	hg_arena *a = hg_arena_create();
	const hg_tree_row java[] = {
		{1, 0, "android.app.ActivityThread.main", 3, 0, 0, 0, true},
		{2, 1, "android.os.Looper.loop", 3, 0, 0, 0, true},
		{3, 2, "com.shop.CartRepository.snapshot", 2, 0, 0, 0, true},
		{4, 3, "java.lang.Object.wait", 2, 0, 0, 0, true},
		{5, 2, "com.shop.ui.Cart$2.onClick", 1, 0, 0, 0, true},
		{6, 5, "com.shop.CartRepository.snapshot", 1, 0, 0, 0, true},
		{7, 6, "java.lang.Thread.sleep", 1, 0, 0, 0, true},
	};
	hg_flame f = build(a, java, N(java), "at com.shop.CartRepository.snapshot(Cart.kt:88)", 3,
			   0, NULL);
	assert_int_equal(f.unit, HG_FLAME_THREADS);
	assert_string_equal(f.nodes[0].name, "com.shop.CartRepository.snapshot");
	assert_int_equal(f.total, 3);
	assert_folded(a, java, N(java), "at com.shop.CartRepository.snapshot(Cart.kt:88)", 3,
		      "com.shop.CartRepository.snapshot;android.os.Looper.loop;"
		      "android.app.ActivityThread.main 2\n"
		      "com.shop.CartRepository.snapshot;com.shop.ui.Cart$2.onClick;"
		      "android.os.Looper.loop;android.app.ActivityThread.main 1\n");
	/* the same frame in other forms: each names the one label */
	static const char *const forms[][2] = {
		{"at f9:run(23)", "f9.run"},
		{"native: #00 pc 000000000005857b  /apex/com.android.runtime/lib64/bionic/libc.so "
		 "(__epoll_pwait+8) (BuildId: 2a2e6b1d)", "__epoll_pwait+8"},
		{"#14 pc 00000000000306f0  [anon:dalvik-classes16.dex extracted in memory from "
		 "/data/app/x/base.apk!classes16.dex]", "base.apk!classes16.dex+0x306f0"},
		{"Sentry 0x000000010110140c 0x10109c000 + 414732", "Sentry+0x6540c"},
		{"Crash-Tester 0x00000000000668a8 -[Crasher doAbort] + 8", "-[Crasher doAbort]"},
		{"Crash-Tester 0x00000000000e5b87 _ZN10MyCPPClass16throwAnExceptionEv + 135",
		 "MyCPPClass::throwAnException()"},
		{"android.os.Handler.dispatchMessage", "android.os.Handler.dispatchMessage(Message)"},
	};
	for (size_t i = 0; i < N(forms); i++) {
		const hg_tree_row rows[] = {{1, 0, "start", 1, 0, 0, 0, true},
					    {2, 1, forms[i][1], 1, 0, 0, 0, true},
					    {3, 2, "inner", 1, 0, 0, 0, true}};
		f = build(a, rows, N(rows), forms[i][0], 1, 0, NULL);
		assert_int_equal(f.n, 2);
		assert_string_equal(f.nodes[0].name, forms[i][1]);
	}
	hg_arena_destroy(a);
}

/* Compiler numbering: "$1" of one build is "$2" of the next, one key of a
 * cluster; the root is named as the cluster names its key. */
static void renumbered_key(void **state)
{
	(void)state;
	hg_arena *a = hg_arena_create();
	const hg_tree_row rows[] = {
		{1, 0, "Handler.dispatchMessage", 3, 900, 400, 0, true},
		{2, 1, "Home$2.run()", 2, 600, 400, 0, true},
		{3, 2, "Feed$2.load()", 2, 600, 400, 600, true},
		{4, 1, "Home$1.run()", 1, 300, 300, 0, true},
		{5, 4, "Feed$1.load()", 1, 300, 300, 300, true},
		{6, 1, "Feed$1.loadMore()", 1, 200, 200, 200, true},
	};
	assert_folded(a, rows, N(rows), "Feed$1.load()", 3,
		      "Feed$1.load();Home$2.run();Handler.dispatchMessage 600\n"
		      "Feed$1.load();Home$1.run();Handler.dispatchMessage 300\n");
	hg_arena_destroy(a);
}

/* Past max_nodes, a node's further callers are one node that carries them:
 * the widths still add up. */
static void max_nodes(void **state)
{
	(void)state;
	hg_arena *a = hg_arena_create();
	char *got;
	hg_flame f = build(a, three_parents, N(three_parents), "Dao.query", 7, 3, &got);
	assert_int_equal(f.total, 1200);
	assert_string_equal(got, "Dao.query;Feed.load;(callers past the 3-frame limit) 600\n"
				 "Dao.query;SearchActivity.onClick;(callers past the 3-frame limit) 400\n"
				 "Dao.query;(callers past the 3-frame limit) 200\n");
	free(got);
	f = build(a, three_parents, N(three_parents), "Dao.query", 7, 1, NULL);
	assert_int_equal(f.n, 2);
	assert_int_equal(f.nodes[1].total, 1200);
	hg_arena_destroy(a);
}

/* A chain of depth rows with keys hanging off it: keys children of the
 * chain's last row (fan: their callers are one path), or a key under each
 * chain row through a caller of its own (stair: distinct paths, as many
 * as max_nodes lets through). */
static hg_tree_row *big_tree(hg_arena *a, size_t depth, bool stair, size_t *n)
{
	hg_tree_row *rows = hg_arena_calloc(a, 3 * depth, sizeof *rows);
	assert_non_null(rows);
	int64_t k = 0; /* rows so far; row k has id k + 1 */
	for (size_t i = 0; i < depth; i++, k++)
		rows[k] = (hg_tree_row){k + 1, k, hg_arena_printf(a, "C%zu", i), 1, 0, 0, 0, true};
	for (size_t i = 0; i < depth; i++) {
		int64_t at = stair ? (int64_t)i + 1 : (int64_t)depth;
		if (stair) {
			rows[k] = (hg_tree_row){k + 1, at, hg_arena_printf(a, "X%zu", i), 1, 0, 0, 0,
						true};
			at = ++k;
		}
		rows[k] = (hg_tree_row){k + 1, at, "Key.run", 1, 0, 0, 0, true};
		k++;
	}
	*n = (size_t)k;
	return rows;
}

static void shared_callers(void **state)
{
	(void)state;
	hg_arena *a = hg_arena_create();
	size_t n;
	/* 25,000 keys under one 25,000-row chain: one path of callers (walked
	 * once; a walk per key would be 625 million steps) */
	hg_tree_row *rows = big_tree(a, 25000, false, &n);
	hg_flame_callers_builder *b = hg_flame_callers_builder_create(a, 50000);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(hg_flame_callers_builder_add(b, &rows[i]), 0);
	hg_flame f;
	assert_int_equal(hg_flame_callers_builder_finish(b, "Key.run", 25000, &f), 0);
	assert_int_equal(f.n, 25001);
	assert_int_equal(f.total, 25000);
	assert_string_equal(f.nodes[1].name, "C24999");
	assert_string_equal(f.nodes[25000].name, "C0");
	check_widths(&f);
	/* a staircase: key i under X_i under C_i, distinct caller paths of
	 * n^2/2 frames in all, at most max_nodes of them (and one "callers
	 * past" node under each node cut) */
	rows = big_tree(a, 20000, true, &n);
	b = hg_flame_callers_builder_create(a, 50000);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(hg_flame_callers_builder_add(b, &rows[i]), 0);
	assert_int_equal(hg_flame_callers_builder_finish(b, "Key.run", 20000, &f), 0);
	assert_true(f.n <= 2 * 50000);
	assert_int_equal(f.total, 20000);
	check_widths(&f);
	hg_arena_destroy(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(key_under_three_parents),
		cmocka_unit_test(recursion),
		cmocka_unit_test(reports_capped),
		cmocka_unit_test(no_key),
		cmocka_unit_test(thread_dump_keys),
		cmocka_unit_test(renumbered_key),
		cmocka_unit_test(max_nodes),
		cmocka_unit_test(shared_callers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
