/* Unit tests for rebuilding stacks: hg_stack_rebuild on hand-built
 * AppMethodBeat buffers (each expectation follows Matrix's Java
 * TraceDataUtils.structuredDataToStack step by step, quirks included),
 * hg_stack_latest_time, and a seeded random run of buffers through
 * rebuild + trim + key + call tree checking invariants; the warning of
 * hg_stack_parse_checked for depths that jump.  Trimming, StackKey,
 * parsing and the call tree on their own are in test_stack_key.c. */
#include <stdlib.h>
#include <string.h>

#include "stack_fixture.h"
#include "stack/stack_rebuild.h"

static int64_t in(int32_t id, int64_t t)
{
	return hg_beat_word(true, id, t);
}

static int64_t out(int32_t id, int64_t t)
{
	return hg_beat_word(false, id, t);
}

static struct run *rebuild(void **state, const int64_t *words, size_t n, bool strict,
			   int64_t end_time)
{
	struct run *r = *state;
	r->warnings = (hg_strlist){0};
	hg_rebuild_opts opts = {strict, end_time};
	assert_int_equal(hg_stack_rebuild(words, n, &opts, r->arena, &r->stack, &r->warnings), 0);
	return r;
}

static bool has_warning(const struct run *r, const char *text)
{
	for (size_t i = 0; i < r->warnings.len; i++)
		if (strstr(r->warnings.items[i], text))
			return true;
	return false;
}

/* Shows every warning when the expected one is missing. */
static void expect_warning(const struct run *r, const char *text)
{
	if (has_warning(r, text))
		return;
	for (size_t i = 0; i < r->warnings.len; i++)
		print_error("warning: %s\n", r->warnings.items[i]);
	fail_msg("no warning contains \"%s\"", text);
}

/* ---- hg_stack_rebuild ---- */

static void test_rebuild_nested_strict(void **state)
{
	const int64_t w[] = {in(D, 100), in(A, 110), in(B, 120), out(B, 150), out(A, 170),
			     out(D, 200)};
	const struct want want[] = {{0, D, 1, 100}, {1, A, 1, 60}, {2, B, 1, 30}};
	struct run *r = rebuild(state, w, N(w), true, 200);
	expect_stack(&r->stack, want, N(want));
	assert_int_equal(r->warnings.len, 0);
}

/* Siblings come out in call order; a repeat that is not adjacent in
 * Matrix's result list (A B A B) is not merged. */
static void test_rebuild_siblings_in_call_order(void **state)
{
	const int64_t w[] = {in(D, 0),   in(A, 10),  in(B, 12), out(B, 15), out(A, 20),
			     in(A, 30),  in(B, 31),  out(B, 38), out(A, 40), out(D, 50)};
	const struct want want[] = {{0, D, 1, 50}, {1, A, 1, 10}, {2, B, 1, 3}, {1, A, 1, 10},
				    {2, B, 1, 7}};
	struct run *r = rebuild(state, w, N(w), true, 50);
	expect_stack(&r->stack, want, N(want));
}

static void test_rebuild_strict_starts_at_dispatch(void **state)
{
	const int64_t w[] = {in(X, 10), out(X, 20), in(D, 30), in(A, 40), out(A, 45), out(D, 50)};
	const struct want strict[] = {{0, D, 1, 20}, {1, A, 1, 5}};
	struct run *r = rebuild(state, w, N(w), true, 50);
	expect_stack(&r->stack, strict, N(strict));
	assert_int_equal(r->warnings.len, 0);
	/* Non-strict keeps X as an earlier root. */
	const struct want loose[] = {{0, X, 1, 10}, {0, D, 1, 20}, {1, A, 1, 5}};
	r = rebuild(state, w, N(w), false, 50);
	expect_stack(&r->stack, loose, N(loose));
}

static void test_rebuild_strict_without_dispatch(void **state)
{
	const int64_t w[] = {in(A, 0), in(B, 1), out(B, 5), out(A, 10)};
	struct run *r = rebuild(state, w, N(w), true, 10);
	assert_int_equal(r->stack.len, 0);
	expect_warning(r, "no dispatch entry");
	const struct want loose[] = {{0, A, 1, 10}, {1, B, 1, 4}};
	r = rebuild(state, w, N(w), false, 10);
	expect_stack(&r->stack, loose, N(loose));
}

static void test_rebuild_skips_zero_padding(void **state)
{
	const int64_t w[] = {0, in(D, 100), 0, 0, in(A, 110), out(A, 130), 0, out(D, 140), 0};
	const struct want want[] = {{0, D, 1, 40}, {1, A, 1, 20}};
	struct run *r = rebuild(state, w, N(w), true, 140);
	expect_stack(&r->stack, want, N(want));
	const int64_t zeros[] = {0, 0, 0};
	r = rebuild(state, zeros, N(zeros), false, 0);
	assert_int_equal(r->stack.len, 0);
	assert_int_equal(r->warnings.len, 0);
	r = rebuild(state, NULL, 0, false, 0);
	assert_int_equal(r->stack.len, 0);
}

static void test_rebuild_merges_adjacent_repeats(void **state)
{
	const int64_t w[] = {in(D, 0),  in(A, 10), out(A, 15), in(A, 20), out(A, 27),
			     in(A, 27), out(A, 28), out(D, 30)};
	const struct want want[] = {{0, D, 1, 30}, {1, A, 3, 13}};
	struct run *r = rebuild(state, w, N(w), true, 30);
	expect_stack(&r->stack, want, N(want));
	assert_false(has_warning(r, "DEFAULT_ANR"));
}

static void test_rebuild_depth_zero_never_merges(void **state)
{
	const int64_t w[] = {in(A, 0), out(A, 10), in(A, 20), out(A, 25)};
	const struct want want[] = {{0, A, 1, 10}, {0, A, 1, 5}};
	struct run *r = rebuild(state, w, N(w), false, 25);
	expect_stack(&r->stack, want, N(want));
	const int64_t two[] = {in(D, 0), out(D, 10), in(D, 20), out(D, 25)};
	const struct want roots[] = {{0, D, 1, 10}, {0, D, 1, 5}};
	r = rebuild(state, two, N(two), true, 25);
	expect_stack(&r->stack, roots, N(roots));
}

/* A merged repeat costing exactly DEFAULT_ANR (5000) adds the previous
 * cost instead; the first, unmerged 5000 is kept as it is. */
static void test_rebuild_anr_merge_rule(void **state)
{
	const int64_t w[] = {in(D, 0),    in(A, 10),    out(A, 110),
			     in(A, 200),  out(A, 5200), out(D, 6000)};
	const struct want want[] = {{0, D, 1, 6000}, {1, A, 2, 200}};
	struct run *r = rebuild(state, w, N(w), true, 6000);
	expect_stack(&r->stack, want, N(want));
	expect_warning(r, "(Matrix's DEFAULT_ANR rule), first at word 4");

	const int64_t first[] = {in(D, 0),     in(A, 0),     out(A, 5000),
				 in(A, 5000),  out(A, 5100), out(D, 6000)};
	const struct want kept[] = {{0, D, 1, 6000}, {1, A, 2, 5100}};
	r = rebuild(state, first, N(first), true, 6000);
	expect_stack(&r->stack, kept, N(kept));
	assert_false(has_warning(r, "DEFAULT_ANR"));
}

/* Strict mode costs unfinished entries up to end_time, at the depth of the
 * pending stack below them. */
static void test_rebuild_unfinished_strict(void **state)
{
	const int64_t w[] = {in(D, 0), in(A, 5), out(A, 10), in(B, 20)};
	const struct want want[] = {{0, D, 1, 50}, {1, A, 1, 5}, {1, B, 1, 30}};
	struct run *r = rebuild(state, w, N(w), true, 50);
	expect_stack(&r->stack, want, N(want));

	/* An unfinished repeat merges with the finished one before it. */
	const int64_t again[] = {in(D, 0), in(A, 10), out(A, 20), in(A, 30)};
	const struct want merged[] = {{0, D, 1, 100}, {1, A, 2, 80}};
	r = rebuild(state, again, N(again), true, 100);
	expect_stack(&r->stack, merged, N(merged));

	/* end_time before the entry: (int) (endTime - inTime) is negative. */
	const int64_t late[] = {in(D, 100)};
	const struct want negative[] = {{0, D, 1, -60}};
	r = rebuild(state, late, N(late), true, 40);
	expect_stack(&r->stack, negative, N(negative));
}

static void test_rebuild_unfinished_non_strict(void **state)
{
	const int64_t w[] = {in(A, 0), out(A, 10), in(B, 20)};
	const struct want want[] = {{0, A, 1, 10}};
	struct run *r = rebuild(state, w, N(w), false, 50);
	expect_stack(&r->stack, want, N(want));
	expect_warning(r, "1 entry never exited");

	/* Dropping D leaves A at depth 1 first: Matrix empties the stack. */
	const int64_t nested[] = {in(D, 0), in(A, 5), out(A, 10), in(B, 20)};
	r = rebuild(state, nested, N(nested), false, 50);
	assert_int_equal(r->stack.len, 0);
	expect_warning(r, "2 entries never exited");
}

static void test_rebuild_stray_exit(void **state)
{
	const int64_t w[] = {in(D, 0), in(A, 5), out(A, 10), out(D, 20), out(X, 25)};
	const struct want want[] = {{0, D, 1, 20}, {1, A, 1, 5}};
	struct run *r = rebuild(state, w, N(w), true, 25);
	expect_stack(&r->stack, want, N(want));
	expect_warning(r, "1 stray exit(s) with no pending entry, first at word 4");

	const int64_t lead[] = {out(X, 0), in(A, 5), out(A, 9), out(A, 12)};
	const struct want one[] = {{0, A, 1, 4}};
	r = rebuild(state, lead, N(lead), false, 12);
	expect_stack(&r->stack, one, N(one));
	expect_warning(r, "2 stray exit(s) with no pending entry, first at word 0");
}

/* An exit that is not the innermost entry's pops entries until it finds its
 * own; the popped B is lost. */
static void test_rebuild_mismatched_exit_pops(void **state)
{
	const int64_t w[] = {in(D, 0), in(A, 10), in(B, 20), out(A, 50), out(D, 100)};
	const struct want want[] = {{0, D, 1, 100}, {1, A, 1, 40}};
	struct run *r = rebuild(state, w, N(w), true, 100);
	expect_stack(&r->stack, want, N(want));
	expect_warning(r, "did not match the innermost entry, first at word 3");
}

/* An exit whose search reaches the dispatch entry: Matrix puts the popped
 * entries back and restores the depth, so later exits still match. */
static void test_rebuild_exit_put_back_at_dispatch(void **state)
{
	const int64_t w[] = {in(D, 0), in(A, 10), out(X, 20), out(A, 30), out(D, 40)};
	const struct want want[] = {{0, D, 1, 40}, {1, A, 1, 20}};
	struct run *r = rebuild(state, w, N(w), true, 40);
	expect_stack(&r->stack, want, N(want));
	expect_warning(r, "found no entry before the dispatch entry, first at word 2");
}

static void test_rebuild_unmatched_exit(void **state)
{
	const int64_t w[] = {in(A, 0), out(X, 10)};
	const struct want want[] = {{0, X, 1, 10}};
	struct run *r = rebuild(state, w, N(w), false, 10);
	expect_stack(&r->stack, want, N(want));
	expect_warning(r, "matched no entry at all, first at word 1");
}

static void test_rebuild_time_backwards_empties(void **state)
{
	const int64_t w[] = {in(D, 100), in(C, 110), out(C, 120), in(A, 200), out(A, 150),
			     out(D, 300)};
	struct run *r = rebuild(state, w, N(w), true, 300);
	assert_int_equal(r->stack.len, 0);
	expect_warning(r, "time goes backwards at word 4");
	/* Equal times are a zero duration, not backwards. */
	const int64_t same[] = {in(D, 100), out(D, 100)};
	const struct want zero[] = {{0, D, 1, 0}};
	r = rebuild(state, same, N(same), true, 100);
	expect_stack(&r->stack, zero, N(zero));
	assert_int_equal(r->warnings.len, 0);
}

static void test_rebuild_wraps_long_durations(void **state)
{
	const int64_t two31 = INT64_C(1) << 31;
	const int64_t w[] = {in(D, 0), in(A, 0), out(A, two31 + 5), out(D, 2 * two31 + 7)};
	const struct want want[] = {{0, D, 1, 7}, {1, A, 1, -2147483643}};
	struct run *r = rebuild(state, w, N(w), true, 0);
	expect_stack(&r->stack, want, N(want));
	expect_warning(r, "wrap as Java ints, first at word 2");
	/* 2^31 - 1 itself fits. */
	const int64_t fits[] = {in(D, 0), out(D, two31 - 1)};
	const struct want max[] = {{0, D, 1, INT32_MAX}};
	r = rebuild(state, fits, N(fits), true, 0);
	expect_stack(&r->stack, max, N(max));
	assert_int_equal(r->warnings.len, 0);
}

/* A dispatch entry resets the depth to 0 even inside another message, so a
 * nested message loop drives the outer items negative and Matrix's tree
 * rejects the whole stack. */
static void test_rebuild_nested_dispatch_resets_depth(void **state)
{
	const int64_t w[] = {in(D, 0),   in(A, 5),   in(D, 10),  in(B, 12),
			     out(B, 15), out(D, 20), out(A, 30), out(D, 40)};
	struct run *r = rebuild(state, w, N(w), true, 40);
	assert_int_equal(r->stack.len, 0);
	expect_warning(r, "finished at word 7) has depth -2, not 0");
	/* Without the outer message the inner one is an ordinary stack. */
	const struct want inner[] = {{0, D, 1, 10}, {1, B, 1, 3}};
	r = rebuild(state, w + 2, 4, true, 40);
	expect_stack(&r->stack, inner, N(inner));
}

static void test_rebuild_first_item_not_at_depth_zero(void **state)
{
	const int64_t w[] = {in(A, 0), in(B, 10), out(B, 20)};
	struct run *r = rebuild(state, w, N(w), false, 20);
	assert_int_equal(r->stack.len, 0);
	expect_warning(r, "finished at word 2) has depth 1, not 0");
}

static void test_latest_time(void **state)
{
	(void)state;
	const int64_t w[] = {0, in(A, 50), out(A, 30), 0, in(HG_BEAT_MAX_METHOD_ID, 7)};
	assert_int_equal(hg_stack_latest_time(w, N(w)), 50);
	assert_int_equal(hg_stack_latest_time(w, 0), 0);
	const int64_t big[] = {-1};
	assert_true(hg_stack_latest_time(big, 1) == 0x7FFFFFFFFFFLL);
}

/* ---- random robustness ---- */

/* Mostly well-nested calls under dispatch entries, plus `noise` percent of
 * zeros, stray exits, extra dispatch entries and clock jumps. */
struct gen {
	uint64_t rng;
	int64_t t;
	unsigned noise;
	unsigned ids; /* method ids drawn from 1..ids; 0: 40 */
	int32_t open[48];
	size_t depth;
};

static void advance_clock(struct gen *g, uint64_t r)
{
	unsigned jump = (unsigned)((r >> 16) % 1000);
	int64_t step = (int64_t)((r >> 26) % 12);
	if (jump < g->noise)
		step = -(int64_t)((r >> 26) % 50); /* the clock goes backwards */
	else if (jump < 2 * g->noise)
		step = INT64_C(1) << 31;            /* a duration that wraps */
	g->t = g->t + step < 0 ? 0 : g->t + step;
}

static int64_t gen_word(struct gen *g)
{
	uint64_t r = xorshift(&g->rng);
	unsigned kind = (unsigned)(r % 100);
	int32_t id = 1 + (int32_t)((r >> 8) % (g->ids ? g->ids : 40));
	advance_clock(g, r);
	if (kind < g->noise)
		return kind % 3 == 0 ? 0 : kind % 3 == 1 ? out(id, g->t) : in(D, g->t);
	if (g->depth == 0 || (kind < 52 && g->depth < N(g->open))) {
		g->open[g->depth] = g->depth == 0 ? D : id;
		return in(g->open[g->depth++], g->t);
	}
	return out(g->open[--g->depth], g->t);
}

/* The parent of an item is the nearest earlier item of smaller depth. */
static void check_tree(const hg_method_stack *s, const hg_calltree *t)
{
	for (size_t i = 0; i < s->len; i++) {
		long want = -1;
		for (size_t j = i; j-- > 0;)
			if (s->items[j].depth < s->items[i].depth) {
				want = (long)j;
				break;
			}
		assert_int_equal(t->parent[i], want);
		assert_true(t->self[i] >= 0);
	}
}

/* Returns the length of the full stack. */
static size_t check_one(hg_arena *arena, const int64_t *w, size_t n, bool strict, int64_t end)
{
	hg_rebuild_opts opts = {strict, end};
	hg_method_stack full, trimmed;
	hg_strlist warnings = {0};
	assert_int_equal(hg_stack_rebuild(w, n, &opts, arena, &full, &warnings), 0);
	if (full.len > 0)
		assert_int_equal(full.items[0].depth, 0);
	for (size_t i = 0; i < full.len; i++)
		assert_int_equal(full.items[i].origin, i);
	check_trim(arena, &full, HG_MATRIX_TARGET_STACK);
	assert_int_equal(hg_stack_trim(&full, HG_MATRIX_TARGET_STACK, arena, &trimmed), 0);
	assert_true(trimmed.len <= HG_MATRIX_TARGET_STACK && trimmed.len <= full.len);
	for (size_t i = 0; i < trimmed.len; i++) {
		const hg_method_item *a = &trimmed.items[i], *b = &full.items[a->origin];
		assert_true(a->origin < full.len && (i == 0 || a->origin > trimmed.items[i - 1].origin));
		assert_true(a->id == b->id && a->depth == b->depth && a->cost == b->cost);
	}
	long key = hg_stack_key(&trimmed, hg_stack_cost(&trimmed, 0));
	if (trimmed.len == 0)
		assert_int_equal(key, -1);
	else
		assert_true(key >= 0 && (size_t)key < trimmed.len);
	hg_calltree tree;
	assert_int_equal(hg_calltree_build(&full, arena, &tree), 0);
	check_tree(&full, &tree);
	return full.len;
}

static void test_random_buffers(void **state)
{
	(void)state;
	struct gen g = {.rng = 0x9E3779B97F4A7C15ull};
	int64_t w[400];
	size_t empty = 0, small = 0, large = 0;
	for (int round = 0; round < 2000; round++) {
		size_t n = (size_t)(xorshift(&g.rng) % N(w));
		g.t = (int64_t)(xorshift(&g.rng) % 100000);
		g.noise = (unsigned)(round % 4) * 4;
		g.depth = 0;
		for (size_t i = 0; i < n; i++)
			w[i] = gen_word(&g);
		hg_arena *arena = hg_arena_create();
		assert_non_null(arena);
		size_t len = check_one(arena, w, n, true, hg_stack_latest_time(w, n));
		check_one(arena, w, n, false, hg_stack_latest_time(w, n));
		check_one(arena, w, n, true, (int64_t)(xorshift(&g.rng) % 200000));
		hg_arena_destroy(arena);
		empty += len == 0;
		small += len > 0 && len <= HG_MATRIX_TARGET_STACK;
		large += len > HG_MATRIX_TARGET_STACK;
	}
	printf("random buffers: %zu empty, %zu small, %zu large stacks\n", empty, small, large);
	/* The generator must exercise trimming, not only empty stacks. */
	assert_true(large > 200 && small > 200 && empty > 50);
}

/* The rebuild lists a buffer without oddities in call order, from a plain
 * pass, instead of building Matrix's tree (stack_rebuild.c).  Both ways, on buffers with
 * and without oddities, with few ids (many merged repeats) and many:
 * the same items, times and warnings. */
static void same_both_ways(const int64_t *w, size_t n, bool strict, int64_t end, size_t *shaped)
{
	hg_arena *arena = hg_arena_create();
	assert_non_null(arena);
	hg_rebuild_opts opts = {strict, end};
	hg_method_stack a, b;
	int64_t *ta = NULL, *tb = NULL;
	hg_strlist wa = {0}, wb = {0};
	assert_int_equal(hg_stack_rebuild_timed(w, n, &opts, arena, &a, &ta, &wa), 0);
	assert_int_equal(stack_rebuild_by_tree(w, n, &opts, arena, &b, &tb, &wb), 0);
	assert_int_equal(a.len, b.len);
	if (a.len)
		assert_memory_equal(a.items, b.items, a.len * sizeof *a.items);
	assert_true((ta == NULL) == (tb == NULL));
	if (ta)
		assert_memory_equal(ta, tb, a.len * sizeof *ta);
	assert_int_equal(wa.len, wb.len);
	for (size_t i = 0; i < wa.len; i++)
		assert_string_equal(wa.items[i], wb.items[i]);
	/* and without times: the rebuild the printing thread runs */
	hg_method_stack c;
	hg_strlist wc = {0};
	assert_int_equal(hg_stack_rebuild(w, n, &opts, arena, &c, &wc), 0);
	assert_int_equal(c.len, b.len);
	if (c.len)
		assert_memory_equal(c.items, b.items, c.len * sizeof *c.items);
	assert_int_equal(wc.len, wb.len);
	for (size_t i = 0; i < wc.len; i++)
		assert_string_equal(wc.items[i], wb.items[i]);
	*shaped += a.len > 0 && wa.len == 0;
	hg_arena_destroy(arena);
}

static void test_call_order_is_matrix_tree_order(void **state)
{
	(void)state;
	struct gen g = {.rng = 0xD1B54A32D192ED03ull};
	int64_t w[400];
	size_t shaped = 0;
	for (int round = 0; round < 3000; round++) {
		size_t n = (size_t)(xorshift(&g.rng) % N(w));
		g.t = (int64_t)(xorshift(&g.rng) % 100000);
		g.noise = (unsigned)(round % 3) * 3; /* a third without oddities */
		g.ids = round % 2 ? 2 : 0;
		g.depth = 0;
		for (size_t i = 0; i < n; i++)
			w[i] = gen_word(&g);
		int64_t latest = hg_stack_latest_time(w, n);
		same_both_ways(w, n, true, latest, &shaped);
		same_both_ways(w, n, false, latest, &shaped);
		same_both_ways(w, n, true, (int64_t)(xorshift(&g.rng) % 200000), &shaped);
	}
	printf("%zu rebuilds without a warning\n", shaped);
	assert_true(shaped > 1000); /* the call-order way was taken */
}

/* ---- hg_stack_parse_checked: depth jumps ---- */

#define AS_WRITTEN "; the stack is used as written, as Matrix's is (each item under the nearest " \
	"shallower one)"

/* Parses text both ways: the same items as hg_stack_parse (a jump changes
 * nothing but the warning), and the warnings into r->warnings. */
static struct run *parse_checked(void **state, const char *text, const char *where)
{
	struct run *r = *state;
	r->warnings = (hg_strlist){0};
	hg_method_stack plain;
	size_t line = 0;
	const char *why = NULL;
	assert_int_equal(hg_stack_parse(text, strlen(text), 100, r->arena, &plain, &line, &why), 0);
	assert_int_equal(hg_stack_parse_checked(text, strlen(text), 100, r->arena, &r->stack, &line,
						&why, where, &r->warnings), 0);
	assert_int_equal(r->stack.len, plain.len);
	for (size_t i = 0; i < plain.len; i++)
		assert_memory_equal(&r->stack.items[i], &plain.items[i], sizeof plain.items[i]);
	return r;
}

static void expect_one_warning(const struct run *r, const char *text)
{
	if (r->warnings.len != 1)
		fail_msg("%zu warnings, expected 1: %s", r->warnings.len, text);
	assert_string_equal(r->warnings.items[0], text);
}

static void test_parse_depth_jump(void **state)
{
	/* line 2 is blank: the jump is on line 3 of the text */
	struct run *r = parse_checked(state, "0,1,1,10\n\n1000000,2,1,5\n", NULL);
	expect_one_warning(r, "line 3: the depth goes from 0 to 1000000" AS_WRITTEN);
	const struct want w[] = {{0, 1, 1, 10}, {1000000, 2, 1, 5}};
	expect_stack(&r->stack, w, N(w));
	/* as written, the deep item weighs (1000000 + 1) x 5 for the StackKey, as on the device */
	assert_int_equal(hg_stack_key(&r->stack, hg_stack_cost(&r->stack, 10)), 1);
}

static void test_parse_depth_jumps_counted(void **state)
{
	/* three jumps (lines 2, 4, 6): one warning, with the first and the count */
	struct run *r = parse_checked(state, "0,1,1,100\n3,2,1,50\n1,3,1,20\n5,4,1,10\n6,5,1,5\n"
				      "9,6,1,1\n0,7,1,1\n", "field \"stack\", ");
	expect_one_warning(r, "field \"stack\", line 2: the depth goes from 0 to 3, the first of 3 "
			   "such jumps" AS_WRITTEN);
	assert_int_equal(r->stack.len, 7);
}

static void test_parse_depth_without_jumps(void **state)
{
	/* one deeper at a time, and back up by any amount: no warning */
	struct run *r = parse_checked(state, "0,1,1,100\n1,2,1,50\n2,3,1,20\n3,4,1,10\n0,5,1,5\n"
				      "1,6,1,1\n", NULL);
	assert_int_equal(r->warnings.len, 0);
	r = parse_checked(state, "", NULL);
	assert_int_equal(r->warnings.len, 0);
}

static void test_parse_depth_first_line_and_extremes(void **state)
{
	struct run *r = parse_checked(state, "2,1,1,5\n3,2,1,5\n", NULL);
	expect_one_warning(r, "line 1: the stack begins at depth 2, not 0" AS_WRITTEN);
	/* INT32_MAX + 1 is no int: the line after it is no jump */
	r = parse_checked(state, "0,1,1,5\n2147483647,2,1,5\n2147483647,3,1,5\n0,4,1,5\n", NULL);
	expect_one_warning(r, "line 2: the depth goes from 0 to 2147483647" AS_WRITTEN);
	/* a bad line: the error alone, no warning for the jumps before it */
	r->warnings = (hg_strlist){0};
	size_t line = 0;
	const char *why = NULL;
	const char *text = "0,1,1,5\n7,2,1,5\nx\n";
	assert_int_equal(hg_stack_parse_checked(text, strlen(text), 100, r->arena, &r->stack, &line,
						&why, NULL, &r->warnings), HG_EPARSE);
	assert_int_equal(line, 3);
	assert_int_equal(r->warnings.len, 0);
}

/* The line recognisers hangar symbolicate filters text with
 * (stack_text_line.c): whole lines only, ids of at most 7 digits, never a
 * read past the line's end (the lines are not NUL-terminated here). */
static void test_stack_text_lines(void **state)
{
	(void)state;
	int32_t id = -1;
	const char *ok = "  0,1048574,1,5003 \r";
	assert_true(hg_stack_line_id(ok, strlen(ok), &id));
	assert_int_equal(id, 1048574);
	static const char *const bad[] = {"", "0,1,1", "0,1,1,", "0,1,1,5x", "a,1,1,5",
					  "0,12345678,1,5", "0,1,1,5 trailing", ",1,1,5"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		assert_false(hg_stack_line_id(bad[i], strlen(bad[i]), &id));
	for (size_t n = 0; n < strlen(ok) - 3; n++) { /* truncated: never whole */
		char *cut = malloc(n ? n : 1); /* exactly n bytes: ASan sees a read past them */
		memcpy(cut, ok, n);
		bool whole = hg_stack_line_id(cut, n, &id);
		assert_true(!whole || n >= 14);
		free(cut);
	}
	size_t end = 0;
	const char *key = "stackKey: 12|13|";
	size_t at = hg_stack_key_span(key, strlen(key), &end);
	assert_int_equal(at, 10);
	assert_int_equal(end, strlen(key));
	const char *alone = "12|13|\n";
	assert_int_equal(hg_stack_key_span(alone, 6, &end), 0);
	const char *none[] = {"", "stackKey", "stackKey: x|", "12|13| and more", "|"};
	for (size_t i = 0; i < sizeof none / sizeof *none; i++)
		assert_int_equal(hg_stack_key_span(none[i], strlen(none[i]), &end), strlen(none[i]));
	char big[4096]; /* oversized: a long run of ids is read to its end */
	size_t len = 0;
	while (len + 8 < sizeof big)
		len += (size_t)snprintf(big + len, sizeof big - len, "%d|", (int)(len % 9999999));
	assert_int_equal(hg_stack_key_span(big, len, &end), 0);
	assert_int_equal(end, len);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_rebuild_nested_strict),
		T(test_rebuild_siblings_in_call_order),
		T(test_rebuild_strict_starts_at_dispatch),
		T(test_rebuild_strict_without_dispatch),
		T(test_rebuild_skips_zero_padding),
		T(test_rebuild_merges_adjacent_repeats),
		T(test_rebuild_depth_zero_never_merges),
		T(test_rebuild_anr_merge_rule),
		T(test_rebuild_unfinished_strict),
		T(test_rebuild_unfinished_non_strict),
		T(test_rebuild_stray_exit),
		T(test_rebuild_mismatched_exit_pops),
		T(test_rebuild_exit_put_back_at_dispatch),
		T(test_rebuild_unmatched_exit),
		T(test_rebuild_time_backwards_empties),
		T(test_rebuild_wraps_long_durations),
		T(test_rebuild_nested_dispatch_resets_depth),
		T(test_rebuild_first_item_not_at_depth_zero),
		T(test_latest_time),
		T(test_random_buffers),
		T(test_call_order_is_matrix_tree_order),
		T(test_parse_depth_jump),
		T(test_parse_depth_jumps_counted),
		T(test_parse_depth_without_jumps),
		T(test_parse_depth_first_line_and_extremes),
		cmocka_unit_test(test_stack_text_lines),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
