/* The checks of a method stack both stack fuzz targets make (fuzz_beat,
 * fuzz_stack): the call tree's shape, trimming against the reference
 * trimStack, and StackKey in range.  Include after fuzz_fixture.h (for
 * require) and hangar/stack.h. */
#ifndef HANGAR_TESTS_STACK_FUZZ_FIXTURE_H
#define HANGAR_TESTS_STACK_FUZZ_FIXTURE_H

/* The tree documented in stack.h: parent = nearest earlier item with a
 * smaller depth; links point forward; every item is reached exactly once. */
static __attribute__((unused)) void check_calltree(const hg_method_stack *s, const hg_calltree *t)
{
	size_t n = s->len;
	if (n == 0) {
		require(t->first_root == SIZE_MAX, "empty stack has no root");
		return;
	}
	require(t->first_root == 0, "the first item is the first root");
	unsigned char *incoming = calloc(n, 1);
	if (!incoming)
		return;
	incoming[0]++;
	for (size_t i = 0; i < n; i++) {
		long p = t->parent[i];
		require(p >= -1 && p < (long)i, "parent precedes its child");
		if (p >= 0)
			require(s->items[p].depth < s->items[i].depth, "parent is shallower");
		require(t->self[i] >= 0, "self cost is at least 0");
		if (t->first_child[i] != SIZE_MAX) {
			require(t->first_child[i] > i && t->first_child[i] < n, "first_child in range");
			require(t->parent[t->first_child[i]] == (long)i, "first_child's parent");
			incoming[t->first_child[i]]++;
		}
		if (t->next_sibling[i] != SIZE_MAX) {
			require(t->next_sibling[i] > i && t->next_sibling[i] < n, "next_sibling in range");
			require(t->parent[t->next_sibling[i]] == p, "siblings share a parent");
			incoming[t->next_sibling[i]]++;
		}
	}
	for (size_t i = 0; i < n; i++)
		require(incoming[i] == 1, "every item is linked exactly once");
	free(incoming);
	/* The "nearest earlier" part, only where a quadratic scan is cheap. */
	if (n <= 512) {
		for (size_t i = 0; i < n; i++) {
			long want = -1;
			for (size_t j = i; j-- > 0;)
				if (s->items[j].depth < s->items[i].depth) {
					want = (long)j;
					break;
				}
			require(t->parent[i] == want, "parent is the nearest shallower item");
		}
	}
}

/* trimStack exactly as the first hangar release wrote it (and as Matrix's
 * code reads): up to 60 passes, each walking from the end and removing
 * items cheaper than pass x 5 ms until the stack is small enough, then
 * the first `target` survivors.  The library's one-pass version must
 * agree item for item. */
static __attribute__((unused)) size_t reference_trim(const hg_method_stack *in, size_t target,
						     hg_method_item *out)
{
	size_t len = in->len;
	if (len)
		memcpy(out, in->items, len * sizeof *out);
	for (int pass = 1; len > target && pass <= HG_MATRIX_FILTER_MAX_PASSES; pass++) {
		int32_t limit = pass * HG_MATRIX_FILTER_STEP_MS;
		size_t removed = 0, i = len, w = 0;
		bool reached = false;
		unsigned char *gone = calloc(len, 1);
		if (!gone)
			return SIZE_MAX;
		while (i-- > 0) {
			if (out[i].cost < limit) {
				gone[i] = 1;
				removed++;
				if (len - removed <= target) {
					reached = true;
					break;
				}
			}
		}
		for (size_t r = 0; r < len; r++)
			if (!gone[r])
				out[w++] = out[r];
		free(gone);
		len = w;
		if (reached)
			break;
	}
	return len > target ? target : len;
}

static __attribute__((unused)) void check_trim_matches_reference(const hg_method_stack *in,
								 const hg_method_stack *got,
								 size_t target)
{
	hg_method_item *want = malloc((in->len ? in->len : 1) * sizeof *want);
	if (!want)
		return;
	size_t n = reference_trim(in, target, want);
	if (n != SIZE_MAX) {
		require(got->len == n, "trim keeps as many items as the reference trimStack");
		for (size_t i = 0; i < n; i++)
			require(memcmp(&got->items[i], &want[i], sizeof want[i]) == 0,
				"trim keeps the same items as the reference trimStack");
	}
	free(want);
}

/* StackKey of s at cost: -1 for an empty stack, else an index into it. */
static __attribute__((unused)) void check_key(const hg_method_stack *s, int64_t cost)
{
	long key = hg_stack_key(s, cost);
	if (s->len == 0)
		require(key == -1, "an empty stack has key -1");
	else
		require(key >= 0 && (size_t)key < s->len, "key in range");
}

#endif
