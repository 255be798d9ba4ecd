/* libFuzzer target: whole report inputs (one JSON report, an array, NDJSON
 * or pretty reports one after another; bare or in Matrix's issue wrapper;
 * base64 / integer-array buffers or structured stacks) through
 * hg_reports_read, and the same bytes as a
 * bare binary buffer through hg_reports_read_raw.  The sink checks each
 * report, symbolicates it with a small fixed mapping, asks for its StackKey
 * text and destroys it.  The same text is also parsed twice at the JSON
 * level, with and without the hot-array fast path for "buffer", and the
 * two documents must agree node for node.
 *
 * Invariants are checked with __builtin_trap() after a line on stderr. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/arena.h"
#include "hangar/beat.h"
#include "hangar/hangar.h"
#include "hangar/mapping.h"
#include "hangar/report.h"
#include "hangar/stack.h"
#include "hangar/text.h"
#include "json/json.h"

#define SOURCE "fuzz.json"
#define STOP_VALUE 7

static const char fuzz_target[] = "fuzz_report";
#include "fuzz_fixture.h"

/* Reads each diagnostic without printing it, so ASan checks the strings. */
static void diag_sink(void *user, const hg_diag *d)
{
	(void)user;
	require(d->message != NULL && d->source != NULL, "diagnostic strings are set");
	require(strlen(d->message) < 1024 && strlen(d->source) > 0, "diagnostic strings are sane");
	require(d->line >= 0 && d->col >= 0 && d->report >= 0, "diagnostic position");
}

/* Built once: ids the seed reports use, and a few odd lines. */
static const hg_mapping *fixed_mapping(const hg_ctx *ctx)
{
	static hg_mapping *mapping;
	static const char text[] =
		"1048574,1,android.os.Handler dispatchMessage (Landroid.os.Message;)V\n"
		"0,1,sample.tencent.matrix.trace.TestTraceMainActivity testInnerSleep ()V\n"
		"1,0,sample.Foo$3 <init> (Lsample.Foo;Landroid.content.Context;I[Ljava.lang.Object;)V\n"
		"2,1,a/b/C run ([[JLjava/lang/String;Z)V\n"
		"3,1,com.example.Native nativeCall\n"
		"4,1,com.example.Broken broken (L;\n"
		"1654,1,mobi.mangatoon.Dispatch go (I)I\r\n"
		"47247,1,mobi.mangatoon.Home onCreate (Landroid.os.Bundle;)V\n"
		"1048575,1,x.Y z ()V\n";
	if (!mapping) {
		int rc = hg_mapping_from_memory(ctx, "fuzz-mapping.txt", text, sizeof text - 1,
						&mapping);
		require(rc == 0 && mapping && hg_mapping_count(mapping) == 9, "fixed mapping loads");
	}
	return mapping;
}

struct state {
	const hg_ctx *ctx;
	size_t reports, errors;
	size_t stop_at; /* 0 = never stop */
	bool stopped;
	bool raw;
};

static void check_stack_items(const hg_method_stack *s)
{
	require(s->len == 0 || s->items != NULL, "stack items are set");
	for (size_t i = 0; i < s->len; i++)
		require(s->items[i].depth >= 0, "item depth is not negative");
}

static void check_report(struct state *st, hg_report *rep)
{
	require(rep->arena != NULL, "report has an arena");
	require(rep->source && strcmp(rep->source, SOURCE) == 0, "report source");
	require(rep->number >= 1 && (size_t)rep->number <= st->reports, "report number");
	require(rep->line >= 0, "report line");
	for (size_t i = 0; i < rep->warnings.len; i++)
		require(rep->warnings.items[i] && strlen(rep->warnings.items[i]) > 0, "warning text");
	if (rep->error) {
		st->errors++;
		require(strlen(rep->error) > 0, "error text is not empty");
		return;
	}
	require(hg_report_kind_name(rep->kind) != NULL, "kind has a name");
	const char *strings[] = {rep->tag, rep->detail, rep->scene, rep->process, rep->device_key};
	for (size_t i = 0; i < sizeof strings / sizeof *strings; i++)
		touch(strings[i]);
	require(!rep->has_device_key || rep->device_key != NULL, "device key is set");
	check_stack_items(&rep->full);
	check_stack_items(&rep->trimmed);
	if (rep->from_buffer) {
		require(rep->buffer_words <= st->ctx->limits.max_buffer_words, "buffer words capped");
		require(rep->trimmed.len <= HG_MATRIX_TARGET_STACK, "trimmed.len <= 30");
		require(rep->trimmed.len <= rep->full.len, "trimming does not add items");
		for (size_t i = 0; i < rep->trimmed.len; i++) {
			uint32_t o = rep->trimmed.items[i].origin;
			require(o < rep->full.len && rep->full.items[o].id == rep->trimmed.items[i].id,
				"trimmed item comes from the full stack");
		}
	} else if (rep->has_method_stack) {
		require(!st->raw, "a raw report comes from a buffer");
		require(rep->trimmed.len == rep->full.len && rep->trimmed.items == rep->full.items,
			"a structured stack is reported whole");
		require(rep->full.len <= st->ctx->limits.max_stack_lines, "stack lines capped");
	}
	/* Thread-stack and figure reports have no method stack to cost. */
	require(!rep->has_method_stack || rep->stack_cost == hg_stack_cost(&rep->trimmed, rep->cost),
		"stack cost");
	if (rep->trimmed.len == 0)
		require(rep->key_index == -1, "an empty stack has key -1");
	else
		require(rep->key_index >= 0 && (size_t)rep->key_index < rep->trimmed.len,
			"key in range");
	require(rep->key_index == hg_stack_key(&rep->trimmed, rep->stack_cost), "key is getTreeKey");
	for (size_t i = 0; i < rep->meta_len; i++) {
		const hg_meta_field *f = &rep->meta[i];
		require(f->key && f->json && f->text, "metadata strings are set");
		require(strcmp(f->key, "buffer") != 0 && strcmp(f->key, "stack") != 0,
			"evidence is not metadata");
		for (size_t j = 0; j < i; j++)
			require(strcmp(rep->meta[j].key, f->key) != 0, "metadata keys are unique");
	}
}

static void check_symbols(hg_report *rep)
{
	if (rep->error || rep->full.len == 0)
		return;
	require(rep->symbols != NULL, "symbols are filled");
	require(rep->missing_ids <= rep->full.len, "missing ids <= items");
	for (size_t i = 0; i < rep->full.len; i++)
		if (rep->symbols[i])
			require(strlen(rep->symbols[i]) > 0, "symbol text");
}

static void check_key_text(const hg_report *rep)
{
	const char *key = hg_report_stack_key_text(rep);
	require(key != NULL, "key text is set");
	if (rep->error || rep->key_index < 0) {
		require(key[0] == '\0', "no key text without a key");
		return;
	}
	char want[24];
	snprintf(want, sizeof want, "%d|", rep->trimmed.items[rep->key_index].id);
	require(strcmp(key, want) == 0, "key text is '<id>|'");
}

static int sink(void *user, hg_report *rep)
{
	struct state *st = user;
	require(rep != NULL, "the sink gets a report");
	require(!st->stopped, "no report after the sink stopped");
	st->reports++;
	check_report(st, rep);
	int rc = hg_report_symbolicate(rep, fixed_mapping(st->ctx));
	require(rc == 0 || rc == HG_ENOMEM, "symbolicate returns 0 or ENOMEM");
	if (rc == 0)
		check_symbols(rep);
	check_key_text(rep);
	/* A second pass must be harmless (the CLI may resolve twice). */
	require(hg_report_symbolicate(rep, NULL) == 0, "symbolicate without a mapping");
	hg_report_destroy(rep);
	if (st->stop_at && st->reports == st->stop_at) {
		st->stopped = true;
		return STOP_VALUE;
	}
	return 0;
}

static void check_result(const struct state *st, int rc)
{
	if (rc == HG_ENOMEM)
		return;
	if (st->stopped) {
		require(rc == STOP_VALUE, "reading returns the sink's stop value");
		return;
	}
	require(rc >= 0, "reading returns a count");
	require(st->reports >= 1, "every input yields at least one report");
	require((size_t)rc == st->errors, "the count is the number of failed reports");
}

/* The hot path (integer arrays under "buffer" read by the pre-scan) must
 * give the document cJSON alone gives: same nodes, same number texts, and
 * each hot array holding the exact values of the plain array's numbers. */
static void compare_nodes(const hg_json_doc *cold, const hg_json *c, const hg_json_doc *hot,
			  const hg_json *h)
{
	enum hg_json_type type = hg_json_type(c);
	require(type == hg_json_type(h), "hot parse: same node types");
	const int64_t *values = NULL;
	size_t count = 0;
	require(hg_json_int_array(cold, c, &values, &count) != 0,
		"plain parse has no hot arrays");
	if (hg_json_int_array(hot, h, &values, &count) == 0) {
		require(type == HG_JSON_ARRAY, "a hot array is an array");
		size_t i = 0;
		for (const hg_json *e = hg_json_first(c); e; e = hg_json_next(e), i++) {
			int64_t v = 0;
			require(i < count, "hot array has every element");
			require(hg_json_int64(cold, e, &v) == 0, "hot array elements are integers");
			require(v == values[i], "hot array values are exact");
		}
		require(i == count, "hot array has no extra element");
		return;
	}
	switch (type) {
	case HG_JSON_NUMBER: {
		const char *a, *b;
		size_t alen, blen;
		hg_json_number_text(cold, c, &a, &alen);
		hg_json_number_text(hot, h, &b, &blen);
		require(a == b && alen == blen, "hot parse: same number tokens");
		return;
	}
	case HG_JSON_STRING:
		require(strcmp(hg_json_string(c), hg_json_string(h)) == 0, "hot parse: same strings");
		return;
	case HG_JSON_BOOL:
		require(hg_json_true(c) == hg_json_true(h), "hot parse: same booleans");
		return;
	case HG_JSON_ARRAY:
	case HG_JSON_OBJECT: {
		const hg_json *x = hg_json_first(c), *y = hg_json_first(h);
		for (; x && y; x = hg_json_next(x), y = hg_json_next(y)) {
			if (type == HG_JSON_OBJECT)
				require(strcmp(hg_json_key(x), hg_json_key(y)) == 0,
					"hot parse: same keys");
			compare_nodes(cold, x, hot, y);
		}
		require(!x && !y, "hot parse: same number of children");
		return;
	}
	default:
		return;
	}
}

static void check_json_paths(const char *text, size_t len)
{
	hg_json_doc *cold = NULL, *hot = NULL;
	size_t cold_end = 0, hot_end = 0;
	int rc_cold = hg_json_parse(text, len, &cold, &cold_end);
	int rc_hot = hg_json_parse_hot(text, len, "buffer", &hot, &hot_end);
	if (rc_cold != HG_ENOMEM && rc_hot != HG_ENOMEM) {
		require(rc_cold == 0 || rc_hot != 0,
			"hg_json_parse rejects a text that hg_json_parse_hot accepts");
		require(rc_hot == 0 || rc_cold != 0,
			"hg_json_parse_hot rejects a text that hg_json_parse accepts");
		require(cold_end == hot_end, "hot and plain parses end at the same offset");
		require(cold_end <= len, "the parse ends within the text");
	}
	if (rc_cold == 0 && rc_hot == 0) {
		compare_nodes(cold, hg_json_root(cold), hot, hg_json_root(hot));
		size_t nl = hg_json_first_newline(hot);
		require(nl == hg_json_first_newline(cold), "both parses see the same first newline");
		require(nl == SIZE_MAX || (nl < hot_end && text[nl] == '\n'),
			"the first newline is a newline within the value");
		if (hg_json_type(hg_json_root(hot)) == HG_JSON_ARRAY) {
			size_t n = hg_json_count(hg_json_root(hot));
			for (size_t k = 0; k < n; k++) {
				size_t at = hg_json_element_offset(hot, k);
				require(at == hg_json_element_offset(cold, k),
					"both parses place array elements alike");
				require(at == SIZE_MAX || (at < hot_end && strchr("{[\"-0123456789tfn",
										  text[at]) && text[at]),
					"an array element starts where a value starts");
			}
		}
		hg_buf a, b;
		hg_buf_init(&a);
		hg_buf_init(&b);
		hg_json_write(cold, hg_json_root(cold), &a);
		hg_json_write(hot, hg_json_root(hot), &b);
		if (!a.failed && !b.failed)
			require(a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0),
				"hot and plain documents write the same JSON");
		hg_buf_release(&a);
		hg_buf_release(&b);
	}
	hg_json_doc_destroy(cold);
	hg_json_doc_destroy(hot);
}

static int64_t load_be64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = (v << 8) | p[i];
	return (int64_t)v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.diag = diag_sink;
	ctx.limits.max_buffer_words = (size_t)1 << 16;
	ctx.limits.max_stack_lines = (size_t)1 << 14;
	ctx.limits.max_input_bytes = (size_t)1 << 20;
	ctx.limits.max_mapping_bytes = (size_t)1 << 20;
	if (size > ctx.limits.max_input_bytes)
		return 0;
	fixed_mapping(&ctx);

	char *text = fuzz_text(&ctx, data, size);
	if (!text)
		return 0;
	/* Sometimes stop after the second report, to cover the early exit. */
	struct state st = {&ctx, 0, 0, size % 5 == 4 ? 2 : 0, false, false};
	int rc = hg_reports_read(&ctx, SOURCE, text, size, sink, &st);
	check_result(&st, rc);
	check_json_paths(text, size);
	free(text);

	/* The same bytes as a bare buffer: as given (ragged lengths fail), then
	 * cut to whole words, strict from the buffer's clock and non-strict with
	 * the first word as end_time. */
	int64_t first = size >= 8 ? load_be64(data) : 0;
	hg_raw_opts opts[3] = {
		{true, false, 0, 0},
		{true, size >= 8, first, size >= 16 ? load_be64(data + 8) : 0},
		{false, true, first, 0},
	};
	for (int i = 0; i < 3; i++) {
		size_t len = i == 0 ? size : size - size % 8;
		if (i == 0 && len % 8 == 0)
			continue; /* the next two cover it */
		struct state raw = {&ctx, 0, 0, 0, false, true};
		rc = hg_reports_read_raw(&ctx, SOURCE, data, len, &opts[i], sink, &raw);
		check_result(&raw, rc);
		require(raw.reports == 1, "a raw buffer is one report");
		if (len % 8 != 0 || len / 8 > ctx.limits.max_buffer_words)
			require(rc == 1 && raw.errors == 1, "a bad raw length fails");
	}
	return 0;
}
