/* libFuzzer target: AppMethodBeat buffers and everything built from them.
 *
 * The input is read twice: as base64 text (hg_beat_from_base64) and as raw
 * big-endian words (hg_beat_from_binary, cut to a multiple of 8 bytes).
 * Whatever decodes is rebuilt in strict and non-strict mode, trimmed to
 * Matrix's 30 items, costed, keyed and turned into a call tree.  The first
 * 8 bytes, big-endian, are the end_time of the rebuild.
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
#include "hangar/stack.h"

#define MAX_WORDS ((size_t)1 << 16)

static const char fuzz_target[] = "fuzz_beat";
#include "fuzz_fixture.h"
#include "stack_fuzz_fixture.h"

static int64_t load_be64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = (v << 8) | p[i];
	return (int64_t)v;
}

/* Touches every warning so ASan sees a bad string. */
static void check_warnings(const hg_strlist *w)
{
	require(w->len <= w->cap || w->cap == 0, "warnings len <= cap");
	for (size_t i = 0; i < w->len; i++) {
		require(w->items[i] != NULL, "warning string is not NULL");
		require(strlen(w->items[i]) > 0, "warning string is not empty");
	}
}

static void check_rebuilt(const hg_method_stack *full, size_t n_words)
{
	require(full->len <= n_words + 1, "no more items than words");
	for (size_t i = 0; i < full->len; i++) {
		require(full->items[i].origin == i, "rebuilt origin is the index");
		require(full->items[i].depth >= 0, "rebuilt depth is not negative");
		require(full->items[i].id >= 0 && full->items[i].id <= HG_BEAT_MAX_METHOD_ID,
			"rebuilt id has 20 bits");
	}
	if (full->len > 0)
		require(full->items[0].depth == 0, "the first rebuilt item has depth 0");
}

static void check_trimmed(const hg_method_stack *full, const hg_method_stack *trimmed)
{
	require(trimmed->len <= HG_MATRIX_TARGET_STACK, "trimmed.len <= 30");
	require(trimmed->len <= full->len, "trimming does not add items");
	if (full->len <= HG_MATRIX_TARGET_STACK)
		require(trimmed->len == full->len, "a short stack is kept whole");
	for (size_t i = 0; i < trimmed->len; i++) {
		const hg_method_item *t = &trimmed->items[i];
		require(t->origin < full->len, "trimmed origin in range");
		if (i > 0)
			require(t->origin > trimmed->items[i - 1].origin, "trimming keeps the order");
		const hg_method_item *f = &full->items[t->origin];
		require(f->depth == t->depth && f->id == t->id && f->count == t->count &&
				f->cost == t->cost,
			"trimmed item equals its origin");
	}
}

static void analyse(const int64_t *words, size_t n, bool strict, int64_t end_time, int64_t cost,
		    hg_arena *arena)
{
	hg_rebuild_opts opts = {strict, end_time};
	hg_method_stack full = {0}, trimmed = {0};
	hg_strlist warnings = {0};
	int rc = hg_stack_rebuild(words, n, &opts, arena, &full, &warnings);
	require(rc == 0 || rc == HG_ENOMEM, "rebuild returns 0 or ENOMEM");
	if (rc != 0)
		return;
	check_warnings(&warnings);
	check_rebuilt(&full, n);

	rc = hg_stack_trim(&full, HG_MATRIX_TARGET_STACK, arena, &trimmed);
	require(rc == 0 || rc == HG_ENOMEM, "trim returns 0 or ENOMEM");
	if (rc != 0)
		return;
	check_trimmed(&full, &trimmed);
	check_trim_matches_reference(&full, &trimmed, HG_MATRIX_TARGET_STACK);

	int64_t stack_cost = hg_stack_cost(&trimmed, cost);
	require(stack_cost >= 0 && stack_cost >= cost, "stack cost is max(cost, items, 0)");
	for (size_t i = 0; i < trimmed.len; i++)
		require(stack_cost >= trimmed.items[i].cost, "stack cost covers every item");

	const hg_method_stack *stacks[2] = {&trimmed, &full};
	for (int k = 0; k < 2; k++) {
		check_key(stacks[k], stack_cost);
		/* Arbitrary costs, including the saturating extremes. */
		long key = hg_stack_key(stacks[k], k ? INT64_MAX : end_time);
		require(stacks[k]->len == 0 ? key == -1 : key >= 0 && (size_t)key < stacks[k]->len,
			"key in range for any cost");

		hg_calltree tree;
		rc = hg_calltree_build(stacks[k], arena, &tree);
		require(rc == 0 || rc == HG_ENOMEM, "calltree returns 0 or ENOMEM");
		if (rc == 0)
			check_calltree(stacks[k], &tree);
	}
}

static void analyse_both(const int64_t *words, size_t n, int64_t end_time, int64_t cost)
{
	int64_t latest = hg_stack_latest_time(words, n);
	require(latest >= 0, "latest time is not negative");
	for (int strict = 0; strict < 2; strict++) {
		hg_arena *arena = hg_arena_create();
		if (!arena)
			return;
		analyse(words, n, strict, end_time, cost, arena);
		/* The CLI's default end_time. */
		if (strict)
			analyse(words, n, true, latest, cost, arena);
		hg_arena_destroy(arena);
	}
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Whether s[0..len) is what hg_beat_from_base64 promises to accept, decided
 * the slow way: RFC 4648 digits, at most two '=' that complete a group of
 * four, no stray bits after the last byte, whole 8-byte words, at most
 * max_words of them. */
static bool base64_acceptable(const char *s, size_t len, size_t max_words)
{
	size_t pad = 0;
	while (pad < 2 && pad < len && s[len - 1 - pad] == '=')
		pad++;
	size_t data = len - pad;
	if (pad && len % 4 != 0)
		return false;
	if (data % 4 == 1)
		return false;
	unsigned last = 0;
	for (size_t i = 0; i < data; i++) {
		const char *p = s[i] ? strchr(b64, s[i]) : NULL;
		if (!p)
			return false;
		last = (unsigned)(p - b64);
	}
	/* 2 digits carry 12 bits for 1 byte, 3 carry 18 for 2: the spare low
	 * 4 or 2 bits of the last digit must be zero. */
	if ((data % 4 == 2 && (last & 15)) || (data % 4 == 3 && (last & 3)))
		return false;
	size_t bytes = data / 4 * 3 + (data % 4 ? data % 4 - 1 : 0);
	return bytes % 8 == 0 && bytes / 8 <= max_words;
}

/* A successful decode must be the canonical encoding of the words (the
 * decoder rejects stray bits), up to the optional padding. */
static void check_base64_roundtrip(const char *s, size_t len, const int64_t *w, size_t n)
{
	while (len > 0 && s[len - 1] == '=')
		len--;
	size_t nbytes = n * 8, pos = 0;
	for (size_t i = 0; i < nbytes; i += 3) {
		uint32_t acc = 0;
		size_t take = nbytes - i < 3 ? nbytes - i : 3;
		for (size_t j = 0; j < 3; j++) {
			uint32_t byte = 0;
			if (j < take) {
				size_t b = i + j;
				byte = (uint32_t)((uint64_t)w[b / 8] >> (56 - 8 * (b % 8))) & 0xFF;
			}
			acc = (acc << 8) | byte;
		}
		for (size_t j = 0; j < take + 1; j++) {
			char c = b64[(acc >> (18 - 6 * j)) & 63];
			require(pos < len && s[pos] == c, "base64 decode round-trips");
			pos++;
		}
	}
	require(pos == len, "base64 decode consumed exactly the text");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.limits.max_buffer_words = MAX_WORDS;
	ctx.limits.max_stack_lines = (size_t)1 << 14;
	ctx.limits.max_input_bytes = (size_t)1 << 20;
	ctx.limits.max_mapping_bytes = (size_t)1 << 20;
	if (size > ctx.limits.max_input_bytes)
		return 0;
	int64_t end_time = size >= 8 ? load_be64(data) : 0;
	int64_t cost = size >= 16 ? load_be64(data + 8) >> 32 : 0;

	/* (1) base64 text. */
	hg_arena *arena = hg_arena_create();
	if (!arena)
		return 0;
	int64_t *words = NULL;
	size_t n = 0, err_pos = SIZE_MAX;
	const char *why = NULL;
	int rc = hg_beat_from_base64((const char *)data, size, ctx.limits.max_buffer_words, arena,
				     &words, &n, &err_pos, &why);
	if (rc != HG_ENOMEM)
		require((rc == 0) == base64_acceptable((const char *)data, size,
							ctx.limits.max_buffer_words),
			"base64 accepts exactly the valid texts");
	if (rc == 0) {
		require(words != NULL && n <= ctx.limits.max_buffer_words, "base64 words");
		check_base64_roundtrip((const char *)data, size, words, n);
		analyse_both(words, n, end_time, cost);
	} else {
		require(rc == HG_EPARSE || rc == HG_ELIMIT || rc == HG_ENOMEM, "base64 error code");
		if (rc != HG_ENOMEM) {
			require(why != NULL && why[0] != '\0', "base64 error has a reason");
			require(err_pos <= size, "base64 error position within the text");
		}
	}
	hg_arena_destroy(arena);

	/* (2) raw big-endian words; a ragged length must be refused. */
	arena = hg_arena_create();
	if (!arena)
		return 0;
	if (size % 8 != 0) {
		why = NULL;
		rc = hg_beat_from_binary(data, size, ctx.limits.max_buffer_words, arena, &words, &n,
					 &why);
		require(rc == HG_EPARSE && why != NULL, "a ragged binary length is refused");
	}
	size_t len = size - size % 8;
	words = NULL;
	n = 0;
	why = NULL;
	rc = hg_beat_from_binary(data, len, ctx.limits.max_buffer_words, arena, &words, &n, &why);
	if (rc == 0) {
		require(n == len / 8 && words != NULL, "binary word count");
		for (size_t i = 0; i < n; i++)
			require(words[i] == load_be64(data + 8 * i), "binary words are big-endian");
		analyse_both(words, n, end_time, cost);
	} else {
		require(rc == HG_ELIMIT || rc == HG_ENOMEM, "binary error code");
		require(rc == HG_ENOMEM || len / 8 > ctx.limits.max_buffer_words, "ELIMIT only over the cap");
	}
	hg_arena_destroy(arena);
	return 0;
}
