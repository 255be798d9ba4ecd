/* trimStack, the stack cost and getTreeKey, as EvilMethodTracer uses them. */

#include <stdlib.h>
#include <string.h>

#include "hangar/beat.h"
#include "hangar/stack.h"
#include "java_int.h"

/* The filter pass (1..60) that removes an item: pass p removes what costs
 * less than p x 5 ms; 0 when no pass does.  Without a branch: a cost
 * below 5 ms (negative ones too) is pass 1, as 0..4 / 5 + 1 is. */
static unsigned removal_pass(int32_t cost)
{
	uint32_t c = cost > 0 ? (uint32_t)cost : 0;
	uint32_t pass = c / HG_MATRIX_FILTER_STEP_MS + 1;
	return pass <= HG_MATRIX_FILTER_MAX_PASSES ? pass : 0;
}

/* trimStack in one pass.  Matrix's pass p walks from the end removing every
 * item cheaper than p x 5 ms until the stack is small enough.  Earlier passes
 * have removed everything cheaper than (p-1) x 5 ms, so pass p removes items
 * of exactly band p, from the end.  Hence: whole bands go until the one in
 * which the target is reached, which loses only its last `need` items.
 * Each item's band is found once and kept (a byte each, on the stack for
 * the usual few hundred items); the keep-or-drop of the second walk has no
 * branch, as it is a coin toss item by item. */
int hg_stack_trim(const hg_method_stack *in, size_t target, hg_arena *arena, hg_method_stack *out)
{
	out->len = 0;
	out->items = hg_arena_alloc_unzeroed(arena, (target ? target : 1) * sizeof *out->items);
	if (!out->items)
		return HG_ENOMEM;
	if (in->len <= target) {
		if (in->len)
			memcpy(out->items, in->items, in->len * sizeof *in->items);
		out->len = in->len;
		return 0;
	}
	if (target == 0)
		return 0;
	unsigned char near[1024], *band = in->len <= sizeof near ? near : malloc(in->len);
	if (!band)
		return HG_ENOMEM;
	size_t band_size[HG_MATRIX_FILTER_MAX_PASSES + 1] = {0};
	for (size_t i = 0; i < in->len; i++)
		band_size[band[i] = (unsigned char)removal_pass(in->items[i].cost)]++;
	unsigned last_band = HG_MATRIX_FILTER_MAX_PASSES; /* every band goes */
	size_t need = 0;                                  /* of last_band, from the end */
	size_t excess = in->len - target;
	for (unsigned p = 1; p <= HG_MATRIX_FILTER_MAX_PASSES; p++) {
		if (band_size[p] >= excess) {
			last_band = p;
			need = excess;
			break;
		}
		excess -= band_size[p];
	}
	if (need == 0) /* no pass reached the target: all bands go */
		need = band_size[HG_MATRIX_FILTER_MAX_PASSES];
	/* The last band loses its last `need` items: keep its first ones.
	 * Band 0 (no pass removes it) and the bands past the last stay. */
	size_t keep_of_last = band_size[last_band] - need, len = 0;
	for (size_t i = 0; i < in->len && len < target; i++) {
		unsigned p = band[i];
		bool in_last = p == last_band;
		bool keep = p == 0 || p > last_band || (in_last && keep_of_last > 0);
		keep_of_last -= in_last && keep_of_last > 0;
		/* Matrix's fallback keeps the first `target` survivors. */
		out->items[len] = in->items[i];
		len += keep;
	}
	out->len = len;
	if (band != near)
		free(band);
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

/* ---- StackKey texts of every Matrix era ---- */

#define KEY_MAX_IDS 64

static bool key_sep(char c)
{
	return c == '|' || c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* One number at *s (an optional '-', then at most 10 digits): false when
 * there is none or it does not fit a Java int. */
static bool key_number(const char **s, int64_t *out)
{
	const char *p = *s;
	bool neg = *p == '-';
	p += neg;
	int64_t v = 0;
	const char *digits = p;
	while (*p >= '0' && *p <= '9' && p - digits < 11)
		v = v * 10 + (*p++ - '0');
	if (p == digits || (*p >= '0' && *p <= '9'))
		return false;
	v = neg ? -v : v;
	if (v < INT32_MIN || v > INT32_MAX)
		return false;
	*out = v;
	*s = p;
	return true;
}

/* The ids of a key text: *n of them, false when it is in no known form. */
static bool key_ids(const char *s, int64_t ids[KEY_MAX_IDS], size_t *n)
{
	*n = 0;
	for (;;) {
		while (key_sep(*s))
			s++;
		if (!*s)
			return true;
		int64_t f[4];
		size_t k = 0;
		while (k < 4 && key_number(&s, &f[k])) {
			k++;
			if (*s != ',')
				break;
			s++;
		}
		/* "id" alone, or the four fields of a stack line. */
		if ((k != 1 && k != 4) || (*s && !key_sep(*s)) || *n == KEY_MAX_IDS)
			return false;
		ids[(*n)++] = k == 1 ? f[0] : f[1];
	}
}

bool hg_stack_key_same(const char *a, const char *b)
{
	if (strcmp(a, b) == 0)
		return true;
	int64_t ia[KEY_MAX_IDS], ib[KEY_MAX_IDS];
	size_t na, nb;
	if (!key_ids(a, ia, &na) || !key_ids(b, ib, &nb) || na != nb || na == 0)
		return false;
	return memcmp(ia, ib, na * sizeof *ia) == 0;
}
