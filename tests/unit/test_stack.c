/* Unit tests for the stack module: hg_stack_rebuild on hand-built
 * AppMethodBeat buffers (each expectation follows Matrix's Java
 * TraceDataUtils.structuredDataToStack step by step, quirks included),
 * hg_stack_trim (trimStack with EvilMethodTracer's filter), hg_stack_cost,
 * hg_stack_key (getTreeKey), hg_stack_parse, hg_calltree_build, and a
 * seeded random run through rebuild + trim + key checking invariants. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "hangar/beat.h"
#include "hangar/stack.h"

enum { D = HG_BEAT_DISPATCH_ID, A = 10, B = 11, C = 12, X = 99 };

struct want {
	int32_t depth, id, count, cost;
};

static int64_t in(int32_t id, int64_t t)
{
	return hg_beat_word(true, id, t);
}

static int64_t out(int32_t id, int64_t t)
{
	return hg_beat_word(false, id, t);
}

/* One rebuild with its own arena; the fixture frees it. */
struct run {
	hg_arena *arena;
	hg_method_stack stack;
	hg_strlist warnings;
};

static int setup(void **state)
{
	static struct run r;
	memset(&r, 0, sizeof r);
	r.arena = hg_arena_create();
	*state = &r;
	return r.arena ? 0 : -1;
}

static int teardown(void **state)
{
	struct run *r = *state;
	hg_arena_destroy(r->arena);
	return 0;
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

static void stack_text(const hg_method_item *items, size_t n, char *buf, size_t size)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%d,%d,%d,%d\n", items[i].depth,
					 items[i].id, items[i].count, items[i].cost);
}

/* Compares as text so that a failure shows both stacks. */
static void expect_stack(const hg_method_stack *s, const struct want *want, size_t n)
{
	char got[2048], exp[2048];
	stack_text(s->items, s->len, got, sizeof got);
	hg_method_item w[64];
	assert_true(n <= 64);
	for (size_t i = 0; i < n; i++)
		w[i] = (hg_method_item){want[i].depth, want[i].id, want[i].count, want[i].cost, 0};
	stack_text(w, n, exp, sizeof exp);
	assert_string_equal(got, exp);
	for (size_t i = 0; i < s->len; i++)
		assert_int_equal(s->items[i].origin, i);
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

#define N(a) (sizeof(a) / sizeof *(a))

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

/* ---- hg_stack_trim, hg_stack_cost ---- */

static hg_method_stack make_stack(hg_arena *arena, const int32_t *costs, size_t n)
{
	hg_method_stack s = {hg_arena_calloc(arena, n ? n : 1, sizeof(hg_method_item)), n};
	assert_non_null(s.items);
	for (size_t i = 0; i < n; i++)
		s.items[i] = (hg_method_item){i ? 1 : 0, (int32_t)(100 + i), 1, costs[i],
					      (uint32_t)i};
	return s;
}

/* Trims n items (cost `base` unless listed in odd[]) to target and checks
 * the origins of the kept items. */
static void expect_trim(void **state, size_t n, int32_t base, const int32_t (*odd)[2],
			size_t n_odd, size_t target, const uint32_t *kept, size_t n_kept)
{
	struct run *r = *state;
	int32_t costs[64];
	assert_true(n <= 64);
	for (size_t i = 0; i < n; i++)
		costs[i] = base;
	for (size_t i = 0; i < n_odd; i++)
		costs[odd[i][0]] = odd[i][1];
	hg_method_stack full = make_stack(r->arena, costs, n), trimmed;
	assert_int_equal(hg_stack_trim(&full, target, r->arena, &trimmed), 0);
	assert_int_equal(trimmed.len, n_kept);
	for (size_t i = 0; i < n_kept; i++) {
		assert_int_equal(trimmed.items[i].origin, kept[i]);
		assert_int_equal(trimmed.items[i].cost, costs[kept[i]]);
		assert_int_equal(trimmed.items[i].id, 100 + kept[i]);
	}
}

static size_t range_except(uint32_t *out, uint32_t from, uint32_t to, const uint32_t *skip,
			   size_t n_skip)
{
	size_t n = 0;
	for (uint32_t v = from; v < to; v++) {
		bool skipped = false;
		for (size_t k = 0; k < n_skip; k++)
			skipped |= skip[k] == v;
		if (!skipped)
			out[n++] = v;
	}
	return n;
}

static void test_trim_small_stack_untouched(void **state)
{
	const int32_t odd[][2] = {{1, 0}, {3, -4}};
	const uint32_t kept[] = {0, 1, 2, 3, 4};
	expect_trim(state, 5, 100, odd, N(odd), 30, kept, N(kept));
	uint32_t all[30];
	size_t n = range_except(all, 0, 30, NULL, 0);
	const int32_t cheap[][2] = {{0, 0}, {29, 1}};
	expect_trim(state, 30, 100, cheap, N(cheap), 30, all, n);
	expect_trim(state, 0, 100, NULL, 0, 30, NULL, 0);
}

/* Pass 1 removes items under 5 ms walking back from the end and stops as
 * soon as the target is reached: the cheap item 2 survives. */
static void test_trim_removes_from_the_end(void **state)
{
	const int32_t odd[][2] = {{2, 1}, {10, 1}, {20, 4}, {31, -7}};
	const uint32_t gone[] = {10, 20, 31};
	uint32_t kept[33];
	size_t n = range_except(kept, 0, 33, gone, N(gone));
	expect_trim(state, 33, 100, odd, N(odd), 30, kept, n);
	/* A small target: [100, 1, 2, 100] -> items 2 then 1 go. */
	const int32_t four[][2] = {{1, 1}, {2, 2}};
	const uint32_t two[] = {0, 3};
	expect_trim(state, 4, 100, four, N(four), 2, two, N(two));
}

/* Pass 2 (under 10 ms) starts again from the end; pass 60 removes costs
 * under 300, never 300 itself. */
static void test_trim_later_passes(void **state)
{
	const int32_t odd[][2] = {{0, 4}, {30, 9}, {31, 8}};
	const uint32_t gone[] = {0, 31};
	uint32_t kept[32];
	size_t n = range_except(kept, 0, 32, gone, N(gone));
	expect_trim(state, 32, 100, odd, N(odd), 30, kept, n);
	const int32_t edge[][2] = {{0, 299}};
	n = range_except(kept, 1, 31, NULL, 0);
	expect_trim(state, 31, 300, edge, N(edge), 30, kept, n);
	const int32_t at[][2] = {{0, 300}};
	n = range_except(kept, 0, 30, NULL, 0);
	expect_trim(state, 31, 300, at, N(at), 30, kept, n);
}

static void test_trim_fallback_keeps_first(void **state)
{
	/* Everything costs 300+: nothing is removed, the first 30 stay. */
	struct run *r = *state;
	int32_t costs[40];
	for (size_t i = 0; i < 40; i++)
		costs[i] = 300 + (int32_t)i;
	hg_method_stack full = make_stack(r->arena, costs, 40), trimmed;
	assert_int_equal(hg_stack_trim(&full, 30, r->arena, &trimmed), 0);
	assert_int_equal(trimmed.len, 30);
	for (size_t i = 0; i < 30; i++)
		assert_int_equal(trimmed.items[i].origin, i);
	/* Item 5 goes in pass 1, then the fallback cuts at 30. */
	costs[5] = 3;
	full = make_stack(r->arena, costs, 40);
	assert_int_equal(hg_stack_trim(&full, 30, r->arena, &trimmed), 0);
	assert_int_equal(trimmed.len, 30);
	for (size_t i = 0; i < 30; i++)
		assert_int_equal(trimmed.items[i].origin, i < 5 ? i : i + 1);
	assert_int_equal(full.len, 40); /* the input is not modified */
	assert_int_equal(full.items[5].cost, 3);
}

static void test_stack_cost(void **state)
{
	struct run *r = *state;
	const int32_t costs[] = {10, 50, 20};
	hg_method_stack s = make_stack(r->arena, costs, 3);
	assert_int_equal(hg_stack_cost(&s, 30), 50);
	assert_int_equal(hg_stack_cost(&s, 70), 70);
	assert_true(hg_stack_cost(&s, INT64_C(5000000000)) == INT64_C(5000000000));
	const int32_t negative[] = {-5, -1};
	s = make_stack(r->arena, negative, 2);
	assert_int_equal(hg_stack_cost(&s, -3), 0);
	s.len = 0;
	assert_int_equal(hg_stack_cost(&s, -3), 0);
	assert_int_equal(hg_stack_cost(&s, 12), 12);
}

/* ---- hg_stack_key ---- */

static hg_method_stack key_stack(hg_arena *arena, const struct want *items, size_t n)
{
	hg_method_stack s = {hg_arena_calloc(arena, n ? n : 1, sizeof(hg_method_item)), n};
	assert_non_null(s.items);
	for (size_t i = 0; i < n; i++)
		s.items[i] = (hg_method_item){items[i].depth, items[i].id, items[i].count,
					      items[i].cost, (uint32_t)i};
	return s;
}

static long key_of(void **state, const struct want *items, size_t n, int64_t cost)
{
	struct run *r = *state;
	hg_method_stack s = key_stack(r->arena, items, n);
	return hg_stack_key(&s, cost);
}

static void test_key_largest_weight(void **state)
{
	/* Weights (depth + 1) * cost: 100, 120, 135. */
	const struct want s[] = {{0, 1, 1, 100}, {1, 2, 1, 60}, {2, 3, 1, 45}};
	assert_int_equal(key_of(state, s, N(s), 100), 2);
	/* Raising the limit to 50 leaves only the first two. */
	assert_int_equal(key_of(state, s, N(s), 167), 1);
}

static void test_key_ties_keep_first(void **state)
{
	/* Item 0 is under the limit (30); items 1 and 2 both weigh 90. */
	const struct want s[] = {{0, 1, 1, 10}, {1, 2, 1, 45}, {2, 3, 1, 30}, {0, 4, 1, 90}};
	assert_int_equal(key_of(state, s, N(s), 100), 1);
}

/* 100000001 * 0.3f is 30000002 in float, 30000000 in exact arithmetic. */
static void test_key_limit_in_float(void **state)
{
	const struct want s[] = {{0, 1, 1, 100}, {5, 2, 1, 30000001}, {0, 3, 1, 30000002}};
	assert_int_equal(key_of(state, s, N(s), 100000001), 2);
	assert_int_equal(key_of(state, s, N(s), 90000000), 1);
}

static void test_key_skips_leading_dispatch(void **state)
{
	const struct want both[] = {{0, D, 1, 1000}, {1, A, 1, 400}};
	assert_int_equal(key_of(state, both, N(both), 1000), 1);
	/* Only the dispatch item qualifies: it stays. */
	const struct want alone[] = {{0, D, 1, 1000}, {1, A, 1, 100}};
	assert_int_equal(key_of(state, alone, N(alone), 1000), 0);
	/* A dispatch item that is not the heaviest is not special. */
	const struct want light[] = {{0, A, 1, 1000}, {1, D, 1, 400}, {1, B, 1, 300}};
	assert_int_equal(key_of(state, light, N(light), 1000), 0);
	/* Ties: stable order decides which one is first. */
	const struct want tie[] = {{1, B, 1, 500}, {0, D, 1, 1000}};
	assert_int_equal(key_of(state, tie, N(tie), 1000), 0);
	const struct want tie2[] = {{0, D, 1, 1000}, {1, B, 1, 500}};
	assert_int_equal(key_of(state, tie2, N(tie2), 1000), 1);
}

static void test_key_fallback_and_empty(void **state)
{
	const struct want s[] = {{0, 1, 1, 10}, {1, 2, 1, 20}};
	assert_int_equal(key_of(state, s, N(s), 1000), 0);
	assert_int_equal(key_of(state, s, 0, 0), -1);
	/* A negative stack cost lets every item in. */
	assert_int_equal(key_of(state, s, N(s), -50), 1);
}

/* (depth + 1) * cost wraps like a Java int: 2 * 1.5e9 is negative. */
static void test_key_weight_wraps(void **state)
{
	const struct want s[] = {{0, 1, 1, 10}, {0, 2, 1, 1000000000}, {1, 3, 1, 1500000000}};
	assert_int_equal(key_of(state, s, N(s), 1500000000), 1);
	/* Without the wrap the deeper item wins. */
	const struct want t[] = {{0, 1, 1, 10}, {0, 2, 1, 1000000000}, {1, 3, 1, 1000000000}};
	assert_int_equal(key_of(state, t, N(t), 1000000000), 2);
}

/* ---- hg_stack_parse ---- */

struct parsed {
	int rc;
	hg_method_stack stack;
	size_t err_line;
	const char *why;
};

static struct parsed parse(void **state, const char *text, size_t max_lines)
{
	struct run *r = *state;
	struct parsed p = {0, {NULL, 0}, 0, NULL};
	p.rc = hg_stack_parse(text, strlen(text), max_lines, r->arena, &p.stack, &p.err_line,
			      &p.why);
	return p;
}

static void expect_parsed(void **state, const char *text, const struct want *want, size_t n)
{
	struct parsed p = parse(state, text, 100);
	assert_int_equal(p.rc, 0);
	expect_stack(&p.stack, want, n);
}

static void test_parse_good_lines(void **state)
{
	const struct want two[] = {{0, D, 1, 100}, {1, 5, 2, 60}};
	expect_parsed(state, "0,1048574,1,100\n1,5,2,60\n", two, 2);
	expect_parsed(state, "0,1048574,1,100\r\n1,5,2,60\r\n", two, 2);
	expect_parsed(state, "0,1048574,1,100\n1,5,2,60", two, 2);
	expect_parsed(state, "\n0,1048574,1,100\n\r\n\n1,5,2,60\n\n", two, 2);
	expect_parsed(state, " 0 ,1048574 ,  1,100 \n1, 5,2 ,60", two, 2);
	const struct want extremes[] = {{INT32_MAX, INT32_MIN, -1, INT32_MIN}};
	expect_parsed(state, "2147483647,-2147483648,-1,-2147483648\n", extremes, 1);
	expect_parsed(state, "", NULL, 0);
}

static void expect_parse_error(void **state, const char *text, size_t line, const char *why)
{
	struct parsed p = parse(state, text, 100);
	assert_int_equal(p.rc, HG_EPARSE);
	assert_int_equal(p.err_line, line);
	assert_non_null(p.why);
	assert_non_null(strstr(p.why, why));
	assert_int_equal(p.stack.len, 0);
}

static void test_parse_errors(void **state)
{
	expect_parse_error(state, "0,1,1,10\n\n1,2,1\n", 3, "4 comma-separated fields");
	expect_parse_error(state, "0,1,1,10,5\n", 1, "cost is not a 32-bit integer");
	expect_parse_error(state, "0,1,1,10\r\n0,x,1,10\r\n", 2, "method id");
	expect_parse_error(state, "0,1,1,2147483648", 1, "cost");
	expect_parse_error(state, "0,1,2147483648,1", 1, "count");
	expect_parse_error(state, "0,1,1,1\n2147483648,1,1,1\n", 2, "depth");
	expect_parse_error(state, "0,1,1,1\n1,1,1,1\n-1,1,1,1\n", 3, "depth is negative");
	expect_parse_error(state, "0,1,,1\n", 1, "count");
	expect_parse_error(state, "0,1,1,1.5\n", 1, "cost");
	expect_parse_error(state, "0,+1,1,1\n", 1, "method id");
	expect_parse_error(state, "0\t,1,1,1\n", 1, "depth");
}

static void test_parse_line_cap(void **state)
{
	struct parsed p = parse(state, "0,1,1,1\n1,2,1,1\n1,3,1,1\n", 2);
	assert_int_equal(p.rc, HG_ELIMIT);
	assert_int_equal(p.err_line, 3);
	assert_non_null(p.why);
	/* Blank lines count against the cap too; exactly the cap is fine. */
	p = parse(state, "0,1,1,1\n\n", 2);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.stack.len, 1);
	p = parse(state, "0,1,1,1\n\n\n", 2);
	assert_int_equal(p.rc, HG_ELIMIT);
	p = parse(state, "0,1,1,1\n1,2,1,1", 2);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.stack.len, 2);
}

/* ---- hg_calltree_build ---- */

static void test_calltree(void **state)
{
	struct run *r = *state;
	const struct want items[] = {
		{0, 1, 1, 100}, {1, 2, 1, 30}, {3, 3, 1, 20}, {2, 4, 1, 15},
		{1, 5, 1, 50},  {0, 6, 1, 10}, {2, 7, 1, 12}, {0, 8, 1, 5},
	};
	hg_method_stack s = key_stack(r->arena, items, N(items));
	hg_calltree t;
	assert_int_equal(hg_calltree_build(&s, r->arena, &t), 0);
	const long parent[] = {-1, 0, 1, 1, 0, -1, 5, -1};
	const int64_t self[] = {20, 0, 20, 15, 50, 0, 12, 5};
	const size_t no = SIZE_MAX;
	const size_t first[] = {1, 2, no, no, no, 6, no, no};
	const size_t next[] = {5, 4, 3, no, no, 7, no, no};
	assert_int_equal(t.first_root, 0);
	for (size_t i = 0; i < N(items); i++) {
		assert_int_equal(t.parent[i], parent[i]);
		assert_int_equal(t.self[i], self[i]);
		assert_int_equal(t.first_child[i], first[i]);
		assert_int_equal(t.next_sibling[i], next[i]);
	}
	s.len = 0;
	assert_int_equal(hg_calltree_build(&s, r->arena, &t), 0);
	assert_int_equal(t.first_root, SIZE_MAX);
}

/* ---- random robustness ---- */

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Mostly well-nested calls under dispatch entries, plus `noise` percent of
 * zeros, stray exits, extra dispatch entries and clock jumps. */
struct gen {
	uint64_t rng;
	int64_t t;
	unsigned noise;
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
	int32_t id = 1 + (int32_t)((r >> 8) % 40);
	advance_clock(g, r);
	if (kind < g->noise)
		return kind % 3 == 0 ? 0 : kind % 3 == 1 ? out(id, g->t) : in(D, g->t);
	if (g->depth == 0 || (kind < 52 && g->depth < N(g->open))) {
		g->open[g->depth] = g->depth == 0 ? D : id;
		return in(g->open[g->depth++], g->t);
	}
	return out(g->open[--g->depth], g->t);
}

/* TraceDataUtils.trimStack with EvilMethodTracer's filter, transcribed
 * literally (removal in place, pass by pass) as an oracle: fills kept[] with
 * the surviving indexes and returns how many. */
static size_t reference_trim(const hg_method_stack *s, size_t target, uint32_t *kept)
{
	size_t len = s->len;
	for (size_t i = 0; i < len; i++)
		kept[i] = (uint32_t)i;
	for (int32_t pass = 1; len > target && pass <= HG_MATRIX_FILTER_MAX_PASSES; pass++) {
		for (size_t i = len; i-- > 0;) {
			if (s->items[kept[i]].cost >= pass * HG_MATRIX_FILTER_STEP_MS)
				continue;
			memmove(kept + i, kept + i + 1, (len - i - 1) * sizeof *kept);
			if (--len <= target)
				return len;
		}
	}
	return len > target ? target : len;
}

static void check_trim(hg_arena *arena, const hg_method_stack *full, size_t target)
{
	static uint32_t want[512];
	hg_method_stack trimmed;
	assert_true(full->len <= 512);
	size_t n = reference_trim(full, target, want);
	assert_int_equal(hg_stack_trim(full, target, arena, &trimmed), 0);
	assert_int_equal(trimmed.len, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(trimmed.items[i].origin, full->items[want[i]].origin);
}

/* Stacks of random costs across all 60 filter bands, against the oracle. */
static void test_trim_matches_reference(void **state)
{
	struct run *r = *state;
	uint64_t rng = 0x2545F4914F6CDD1Dull;
	for (int round = 0; round < 3000; round++) {
		size_t n = (size_t)(xorshift(&rng) % 120);
		int32_t span = (int32_t)(xorshift(&rng) % 3) == 0 ? 20 : 330;
		int32_t costs[120];
		for (size_t i = 0; i < n; i++)
			costs[i] = (int32_t)(xorshift(&rng) % (uint64_t)span) - 5;
		hg_method_stack full = make_stack(r->arena, costs, n);
		check_trim(r->arena, &full, round % 5 == 0 ? (size_t)(xorshift(&rng) % 40) : 30);
	}
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
		T(test_trim_small_stack_untouched),
		T(test_trim_removes_from_the_end),
		T(test_trim_later_passes),
		T(test_trim_fallback_keeps_first),
		T(test_stack_cost),
		T(test_key_largest_weight),
		T(test_key_ties_keep_first),
		T(test_key_limit_in_float),
		T(test_key_skips_leading_dispatch),
		T(test_key_fallback_and_empty),
		T(test_key_weight_wraps),
		T(test_parse_good_lines),
		T(test_parse_errors),
		T(test_parse_line_cap),
		T(test_calltree),
		T(test_trim_matches_reference),
		T(test_random_buffers),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
