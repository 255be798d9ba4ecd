/* Shared by the stack tests (test_stack.c, test_stack_key.c): the method
 * ids, a per-test arena (setup/teardown), comparing a stack with the
 * expected depth,id,count,cost items, and a literal transcription of
 * Matrix's trimStack used as an oracle by both randomized tests. */
#ifndef HANGAR_TESTS_STACK_FIXTURE_H
#define HANGAR_TESTS_STACK_FIXTURE_H

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

#define N(a) (sizeof(a) / sizeof *(a))

/* One rebuild with its own arena; the fixture frees it. */
struct run {
	hg_arena *arena;
	hg_method_stack stack;
	hg_strlist warnings;
};

static inline int setup(void **state)
{
	static struct run r;
	memset(&r, 0, sizeof r);
	r.arena = hg_arena_create();
	*state = &r;
	return r.arena ? 0 : -1;
}

static inline int teardown(void **state)
{
	struct run *r = *state;
	hg_arena_destroy(r->arena);
	return 0;
}

static inline void stack_text(const hg_method_item *items, size_t n, char *buf, size_t size)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%d,%d,%d,%d\n", items[i].depth,
					 items[i].id, items[i].count, items[i].cost);
}

/* Compares as text so that a failure shows both stacks. */
static inline void expect_stack(const hg_method_stack *s, const struct want *want, size_t n)
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

/* ---- the trimStack oracle ---- */

static inline uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* TraceDataUtils.trimStack with EvilMethodTracer's filter, transcribed
 * literally (removal in place, pass by pass) as an oracle: fills kept[] with
 * the surviving indexes and returns how many. */
static inline size_t reference_trim(const hg_method_stack *s, size_t target, uint32_t *kept)
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

static inline void check_trim(hg_arena *arena, const hg_method_stack *full, size_t target)
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

#endif
