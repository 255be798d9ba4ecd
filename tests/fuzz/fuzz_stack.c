/* libFuzzer target: Matrix's structured stack text ("depth,id,count,cost"
 * lines) through hg_stack_parse, then everything that reads a stack:
 * hg_stack_cost, hg_stack_key, hg_stack_trim and hg_calltree_build.  The
 * input is also read as one integer literal by hg_parse_int64.
 *
 * Invariants are checked with __builtin_trap() after a line on stderr. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/arena.h"
#include "hangar/beat.h"
#include "hangar/hangar.h"
#include "hangar/stack.h"

static const char fuzz_target[] = "fuzz_stack";
#include "fuzz_fixture.h"
#include "stack_fuzz_fixture.h"

static size_t count_lines(const char *text, size_t len)
{
	size_t lines = 0;
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	return lines + (len && text[len - 1] != '\n');
}

/* A parsed integer prints and parses back to itself. */
static void check_int64(const char *s, size_t len)
{
	int64_t v = 0;
	if (len > 32 || hg_parse_int64(s, len, &v) != 0)
		return;
	char text[32];
	int n = snprintf(text, sizeof text, "%" PRId64, v);
	int64_t back = 0;
	require(n > 0 && hg_parse_int64(text, (size_t)n, &back) == 0 && back == v,
		"hg_parse_int64 round-trips");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.limits.max_buffer_words = (size_t)1 << 16;
	ctx.limits.max_stack_lines = (size_t)1 << 14;
	ctx.limits.max_input_bytes = (size_t)1 << 20;
	ctx.limits.max_mapping_bytes = (size_t)1 << 20;
	if (size > ctx.limits.max_input_bytes)
		return 0;
	const char *text = (const char *)data;
	check_int64(text, size);

	hg_arena *arena = hg_arena_create();
	if (!arena)
		return 0;
	hg_method_stack stack = {0};
	size_t err_line = 0;
	const char *why = NULL;
	int rc = hg_stack_parse(text, size, ctx.limits.max_stack_lines, arena, &stack, &err_line,
				&why);
	size_t lines = count_lines(text, size);
	if (rc != 0) {
		require(rc == HG_EPARSE || rc == HG_ELIMIT || rc == HG_ENOMEM, "parse error code");
		if (rc == HG_EPARSE)
			require(why && why[0] && err_line >= 1 && err_line <= lines,
				"EPARSE names a line that exists");
		if (rc == HG_ELIMIT)
			require(lines > ctx.limits.max_stack_lines && why,
				"ELIMIT only over the line cap");
		require(stack.len == 0, "a failed parse leaves an empty stack");
		hg_arena_destroy(arena);
		return 0;
	}
	require(stack.len <= lines, "no more items than lines");
	for (size_t i = 0; i < stack.len; i++) {
		require(stack.items[i].origin == i, "parsed origin is the index");
		require(stack.items[i].depth >= 0, "parsed depth is not negative");
	}

	int64_t cost = hg_stack_cost(&stack, 0);
	require(cost >= 0, "stack cost is not negative");
	for (size_t i = 0; i < stack.len; i++)
		require(cost >= stack.items[i].cost, "stack cost covers every item");
	check_key(&stack, cost);
	check_key(&stack, INT64_MAX);
	check_key(&stack, INT64_MIN);
	check_key(&stack, stack.len ? stack.items[0].cost : -1);

	hg_calltree tree;
	rc = hg_calltree_build(&stack, arena, &tree);
	require(rc == 0 || rc == HG_ENOMEM, "calltree returns 0 or ENOMEM");
	if (rc == 0)
		check_calltree(&stack, &tree);

	/* Trimming a stack that was never rebuilt (arbitrary depths and costs),
	 * to Matrix's 30 items and to a small target the input picks. */
	size_t targets[2] = {HG_MATRIX_TARGET_STACK, size % 11};
	for (int k = 0; k < 2; k++) {
		hg_method_stack trimmed = {0};
		rc = hg_stack_trim(&stack, targets[k], arena, &trimmed);
		require(rc == 0 || rc == HG_ENOMEM, "trim returns 0 or ENOMEM");
		if (rc != 0)
			continue;
		require(trimmed.len <= targets[k] && trimmed.len <= stack.len,
			"trimmed.len <= target");
		for (size_t i = 0; i < trimmed.len; i++)
			require(trimmed.items[i].origin < stack.len &&
					(i == 0 || trimmed.items[i].origin > trimmed.items[i - 1].origin),
				"trimmed origins ascend within the stack");
		check_trim_matches_reference(&stack, &trimmed, targets[k]);
		check_key(&trimmed, hg_stack_cost(&trimmed, 0));
	}
	hg_arena_destroy(arena);
	return 0;
}
