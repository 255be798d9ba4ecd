/* Unit tests for what is done with a rebuilt stack: hg_stack_trim
 * (trimStack with EvilMethodTracer's filter), hg_stack_cost, hg_stack_key
 * (getTreeKey), hg_stack_parse (structured depth,id,count,cost text),
 * hg_calltree_build, hg_stack_key_same (StackKey texts of every Matrix
 * era), and a seeded random comparison of hg_stack_trim with
 * the literal Java transcription in stack_fixture.h. */
#include "stack_fixture.h"

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

/* ---- hg_stack_key_same: keys of every Matrix era ---- */

static void test_key_text_forms(void **state)
{
	(void)state;
	/* Matrix 0.5 ended ids with a newline; the key is the same method. */
	assert_true(hg_stack_key_same("83033\n", "83033|"));
	assert_true(hg_stack_key_same("83033|", "83033\n"));
	assert_true(hg_stack_key_same("101\r\n", "101|"));
	assert_true(hg_stack_key_same(" 101 ", "101|"));
	assert_true(hg_stack_key_same("101", "101|"));
	assert_true(hg_stack_key_same("101\n102\n", "101|102|"));
	/* Older: the key item's whole stack line. */
	assert_true(hg_stack_key_same("0,30,1,56\n", "30|"));
	assert_true(hg_stack_key_same("-5|", "-5\n"));
	/* Other methods, other counts, other order. */
	assert_false(hg_stack_key_same("101\n", "1011|"));
	assert_false(hg_stack_key_same("101\n", "102|"));
	assert_false(hg_stack_key_same("101|102|", "101|"));
	assert_false(hg_stack_key_same("102|101|", "101|102|"));
	assert_false(hg_stack_key_same("0,30,1,56\n", "0|"));
	/* Not a key: compared as written, never equal to a number. */
	assert_false(hg_stack_key_same("abc", "101|"));
	assert_false(hg_stack_key_same("101a|", "101|"));
	assert_false(hg_stack_key_same("1,2|", "1|"));
	assert_false(hg_stack_key_same("", "101|"));
	assert_false(hg_stack_key_same("\n", "|"));
	assert_true(hg_stack_key_same("abc", "abc"));
	/* Beyond a Java int is no id of Matrix's. */
	assert_false(hg_stack_key_same("4294967397|", "101|"));
	assert_false(hg_stack_key_same("99999999999999999999|", "101|"));
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
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
		T(test_key_text_forms),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
