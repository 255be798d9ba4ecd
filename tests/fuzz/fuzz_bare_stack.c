/* libFuzzer target: bare structured stacks and Matrix's printed blocks
 * (hg_reports_read_as(..., HG_FORMAT_STACK); whether detection picks them is
 * fuzz_report's business).  Every input gives at least one report, read or
 * failed, numbered 1, 2, ... in order with lines that do not go back; the
 * failed count is the return value; a read report is a method stack of at
 * most max_stack_lines items (a block with none fails) with depths >= 0,
 * a StackKey inside it, a stack cost no less than any item's, kind
 * slow_method, anr or startup; each block's kept bytes read again alone give the
 * same stack (what the store's regroup and merge do).
 *
 * Invariants are checked with __builtin_trap() after a line on stderr. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/hangar.h"
#include "hangar/report.h"

#define SOURCE "fuzz-bare-stack.txt"

static const char fuzz_target[] = "fuzz_bare_stack";
#include "fuzz_fixture.h"

struct seen {
	const hg_ctx *ctx;
	long count, failed, last_line;
};

static void check_stack(const hg_ctx *ctx, const hg_report *rep)
{
	require(rep->format == HG_FORMAT_STACK && rep->has_method_stack, "a method stack");
	require(rep->kind == HG_KIND_SLOW_METHOD || rep->kind == HG_KIND_ANR ||
		rep->kind == HG_KIND_STARTUP, "kind");
	require(rep->full.len > 0 && rep->full.len <= ctx->limits.max_stack_lines, "items");
	require(rep->trimmed.len == rep->full.len, "shown as sent");
	for (size_t i = 0; i < rep->full.len; i++) {
		require(rep->full.items[i].depth >= 0, "depth >= 0");
		require(rep->full.items[i].cost <= rep->stack_cost, "stack cost");
	}
	require(rep->key_index >= 0 && (size_t)rep->key_index < rep->full.len, "StackKey inside");
	touch(rep->device_key);
	touch(rep->scene);
	touch(rep->time);
	touch(rep->process);
	touch(hg_report_stack_key_text(rep));
}

static int again(void *user, hg_report *rep)
{
	hg_report **out = user;
	if (!*out)
		*out = rep;
	else
		hg_report_destroy(rep);
	return 0;
}

/* The block's own bytes, read alone, give the same items. */
static void reread(const hg_ctx *ctx, const hg_report *rep)
{
	require(rep->text != NULL, "kept text");
	hg_report *one = NULL;
	hg_reports_read_as(ctx, SOURCE, rep->text, rep->text_len, HG_FORMAT_STACK, again, &one);
	require(one && !one->error && one->full.len == rep->full.len, "reads again alone");
	require(memcmp(one->full.items, rep->full.items, rep->full.len * sizeof *rep->full.items) == 0,
		"the same items again");
	hg_report_destroy(one);
}

static int sink(void *user, hg_report *rep)
{
	struct seen *st = user;
	st->count++;
	require(rep->number == st->count, "numbered in order");
	require(rep->line >= st->last_line, "lines in order");
	st->last_line = rep->line;
	if (check_delivered(rep)) {
		check_stack(st->ctx, rep);
		reread(st->ctx, rep);
	} else {
		st->failed++;
	}
	hg_report_destroy(rep);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hg_ctx ctx;
	fuzz_ctx_init(&ctx);
	ctx.limits.max_stack_lines = (size_t)16 << 10;
	ctx.keep_text = 1;
	ctx.file_time_ms = 1700000000000;
	char *text = fuzz_text(&ctx, data, size);
	if (!text)
		return 0;
	struct seen st = {&ctx, 0, 0, 0};
	int rc = hg_reports_read_as(&ctx, SOURCE, text, size, HG_FORMAT_STACK, sink, &st);
	require(rc >= 0 && rc == st.failed, "the failed count is returned");
	require(st.count >= 1, "every input is accounted for");
	free(text);
	return 0;
}
