/* trimStack, the stack cost and getTreeKey, as EvilMethodTracer uses them. */
#include <stdlib.h>
#include <string.h>

#include "hangar/beat.h"
#include "hangar/stack.h"
#include "java_int.h"

int hg_stack_trim(const hg_method_stack *in, size_t target, hg_arena *arena, hg_method_stack *out)
{
	out->len = 0;
	out->items = hg_arena_calloc(arena, in->len ? in->len : 1, sizeof *out->items);
	if (!out->items)
		return HG_ENOMEM;
	memcpy(out->items, in->items, in->len * sizeof *in->items);
	size_t len = in->len;
	/* Each pass walks from the end and removes items cheaper than
	 * pass x 5 ms, stopping the moment the stack is small enough. */
	for (int pass = 1; len > target && pass <= HG_MATRIX_FILTER_MAX_PASSES; pass++) {
		int32_t limit = pass * HG_MATRIX_FILTER_STEP_MS;
		size_t removed = 0, i = len;
		bool reached = false;
		/* Mark removals in place by walking backwards, then compact. */
		unsigned char *gone = calloc(len, 1);
		if (!gone)
			return HG_ENOMEM;
		while (i-- > 0) {
			if (out->items[i].cost < limit) {
				gone[i] = 1;
				removed++;
				if (len - removed <= target) {
					reached = true;
					break;
				}
			}
		}
		size_t w = 0;
		for (size_t r = 0; r < len; r++)
			if (!gone[r])
				out->items[w++] = out->items[r];
		free(gone);
		len = w;
		if (reached)
			break;
	}
	/* The fallback keeps the first `target` items. */
	if (len > target)
		len = target;
	out->len = len;
	return 0;
}

int64_t hg_stack_cost(const hg_method_stack *stack, int64_t cost)
{
	int64_t largest = 0;
	for (size_t i = 0; i < stack->len; i++)
		if (stack->items[i].cost > largest)
			largest = stack->items[i].cost;
	return cost > largest ? cost : largest;
}

/* (long) (stackCost * 0.3f): Java converts the long to float, multiplies in
 * single precision and truncates toward zero, saturating. */
static int64_t key_limit(int64_t stack_cost)
{
	volatile float product = (float)stack_cost * HG_MATRIX_KEY_PERCENT;
	float p = product;
	if (p != p)
		return 0;
	if (p >= 9223372036854775807.0f)
		return INT64_MAX;
	if (p <= -9223372036854775808.0f)
		return INT64_MIN;
	return (int64_t)p;
}

/* The sort key Matrix compares: (depth + 1) * cost in wrapped int arithmetic. */
static int32_t weight(const hg_method_item *it)
{
	return java_mul(java_add(it->depth, 1), it->cost);
}

/* The first item (a stable sort keeps input order on ties) with the largest
 * weight among those at or above the limit, skipping index `skip`. */
static long heaviest(const hg_method_stack *stack, int64_t limit, long skip)
{
	long best = -1;
	for (size_t i = 0; i < stack->len; i++) {
		if ((long)i == skip || stack->items[i].cost < limit)
			continue;
		if (best < 0 || weight(&stack->items[i]) > weight(&stack->items[best]))
			best = (long)i;
	}
	return best;
}

long hg_stack_key(const hg_method_stack *stack, int64_t stack_cost)
{
	if (stack->len == 0)
		return -1;
	int64_t limit = key_limit(stack_cost);
	long best = heaviest(stack, limit, -1);
	if (best < 0)
		return 0; /* nobody heavy enough: Matrix falls back to the first item */
	if (stack->items[best].id == HG_BEAT_DISPATCH_ID) {
		/* Matrix drops a leading dispatch item when others qualify. */
		long second = heaviest(stack, limit, best);
		if (second >= 0)
			return second;
	}
	return best;
}
