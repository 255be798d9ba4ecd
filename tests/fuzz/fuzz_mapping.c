/* libFuzzer target: methodMapping.txt through hg_mapping_from_memory, then
 * hg_mapping_lookup / hg_mapping_symbol for ids taken from the input (the
 * leading number of each line, and raw 4-byte words) and for the edges 0,
 * 1048574, 0xFFFFF, -1 and friends; and hg_format_java_method on slices of
 * the input.
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

#define MAX_LINE_IDS 256
#define MAX_WORD_IDS 64

static const char fuzz_target[] = "fuzz_mapping";
#include "fuzz_fixture.h"

/* Reads each diagnostic without printing it, so ASan checks the strings. */
static void diag_sink(void *user, const hg_diag *d)
{
	size_t *count = user;
	(*count)++;
	require(d->message != NULL && d->source != NULL, "diagnostic strings are set");
	require(strlen(d->message) < 1024, "diagnostic fits its buffer");
	require(strcmp(d->source, "fuzz-mapping.txt") == 0, "diagnostic names the mapping");
	require(d->line >= 0, "diagnostic line is not negative");
}

static bool has_byte(const char *s, size_t len, char c)
{
	return len && memchr(s, c, len) != NULL;
}

static void check_id(const hg_mapping *m, int32_t id, hg_arena *arena)
{
	hg_mapping_entry e;
	int rc = hg_mapping_lookup(m, id, arena, &e);
	const char *sym = hg_mapping_symbol(m, id, arena);
	if (rc == HG_ENOMEM)
		return;
	if (rc != 0) {
		require(rc == HG_EINVAL, "an absent id is EINVAL");
		require(sym == NULL, "an absent id has no symbol");
		return;
	}
	require(id >= 0 && id <= HG_BEAT_MAX_METHOD_ID, "only 20-bit ids are found");
	require(e.cls && e.method && e.desc, "entry slices are set");
	require(e.access_flags >= 0, "access flags are not negative");
	/* Slices lie within one line and split on spaces. */
	require(!has_byte(e.cls, e.cls_len, '\n') && !has_byte(e.cls, e.cls_len, ' ') &&
			!has_byte(e.cls, e.cls_len, '\t'),
		"class is one word");
	require(!has_byte(e.method, e.method_len, '\n') && !has_byte(e.method, e.method_len, ' '),
		"method is one word");
	require(!has_byte(e.desc, e.desc_len, '\n'), "descriptor stays on its line");
	require(e.cls_len > 0, "a found entry has a class");
	require(sym != NULL, "a found id has a symbol");
	char *again = hg_format_java_method(arena, e.cls, e.cls_len, e.method, e.method_len, e.desc,
					    e.desc_len);
	/* The formatted entry, or for an overload (mapping_overload.c) the
	 * same class and method with what tells it apart: its parameters'
	 * whole names or " -> Return". */
	require(again != NULL, "the entry formats");
	const char *paren = strchr(again, '(');
	size_t head = paren ? (size_t)(paren - again) + 1 : strlen(again);
	require(strcmp(again, sym) == 0 || strncmp(again, sym, head) == 0,
		"symbol is the formatted entry, or its class and method told apart");
}

static int32_t load_le32(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			 (uint32_t)p[3] << 24);
}

static void format_slices(const uint8_t *data, size_t size, hg_arena *arena)
{
	const char *s = (const char *)data;
	size_t a = size ? data[0] % (size + 1) : 0;
	size_t b = size > 1 ? data[1] % (size + 1) : 0;
	if (a > b) {
		size_t t = a;
		a = b;
		b = t;
	}
	/* class | method | descriptor, cut at two points the input chooses. */
	require(hg_format_java_method(arena, s, a, s + a, b - a, s + b, size - b) != NULL,
		"format of slices");
	/* The whole input as each of the three parts alone. */
	require(hg_format_java_method(arena, "", 0, "", 0, s, size) != NULL, "format of desc");
	require(hg_format_java_method(arena, s, size, "m", 1, "", 0) != NULL, "format of class");
	require(hg_format_java_method(arena, "C", 1, s, size, "()V", 3) != NULL, "format of method");
}

/* Every mapping allocates and zeroes a table of several MiB, so page faults
 * dominate a run.  By default ASan also hands the shadow of such a block
 * back to the kernel on each allocation and free, and faults it in again;
 * zero-filling the shadow instead keeps every check and saves ~20% of the
 * time.  Anything in ASAN_OPTIONS still wins. */
const char *__asan_default_options(void);

const char *__asan_default_options(void)
{
	return "clear_shadow_mmap_threshold=1073741824";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t diags = 0;
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.diag = diag_sink;
	ctx.diag_user = &diags;
	ctx.limits.max_buffer_words = (size_t)1 << 16;
	ctx.limits.max_stack_lines = (size_t)1 << 14;
	ctx.limits.max_input_bytes = (size_t)1 << 20;
	ctx.limits.max_mapping_bytes = (size_t)1 << 20;
	if (size > ctx.limits.max_input_bytes)
		return 0;
	const char *text = (const char *)data;

	hg_mapping *m = NULL;
	int rc = hg_mapping_from_memory(&ctx, "fuzz-mapping.txt", text, size, &m);
	if (rc != 0) {
		require(rc == HG_ENOMEM || (rc == HG_ELIMIT && size > ctx.limits.max_mapping_bytes),
			"mapping error code");
		require(m == NULL, "no mapping on failure");
		return 0;
	}
	require(m != NULL, "a mapping on success");
	require(strcmp(hg_mapping_name(m), "fuzz-mapping.txt") == 0, "mapping name");
	size_t lines = 0;
	for (size_t i = 0; i < size; i++)
		lines += text[i] == '\n';
	lines += size && text[size - 1] != '\n';
	require(hg_mapping_count(m) + hg_mapping_skipped(m) <= lines, "count + skipped <= lines");
	require(diags <= 11, "at most 10 line warnings and a summary");
	require(diags == (hg_mapping_skipped(m) > 10 ? 11 : hg_mapping_skipped(m)),
		"one warning per skipped line, then a summary");

	hg_arena *arena = hg_arena_create();
	if (!arena) {
		hg_mapping_destroy(m);
		return 0;
	}
	static const int32_t edges[] = {0, 1, HG_BEAT_DISPATCH_ID, HG_BEAT_MAX_METHOD_ID,
					HG_BEAT_MAX_METHOD_ID + 1, -1, INT32_MIN, INT32_MAX};
	for (size_t i = 0; i < sizeof edges / sizeof *edges; i++)
		check_id(m, edges[i], arena);

	/* The leading number of each line: the ids the mapping should hold. */
	size_t looked = 0;
	for (const char *p = text, *end = text + size; p < end && looked < MAX_LINE_IDS; looked++) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		int64_t id = 0;
		size_t digits = 0;
		while (p < end && *p >= '0' && *p <= '9' && digits < 10) {
			id = id * 10 + (*p++ - '0');
			digits++;
		}
		if (digits && id <= INT32_MAX)
			check_id(m, (int32_t)id, arena);
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}

	/* Raw words of the input, as they come and cut to 20 bits. */
	for (size_t i = 0; i + 4 <= size && i / 4 < MAX_WORD_IDS; i += 4) {
		int32_t id = load_le32(data + i);
		check_id(m, id, arena);
		check_id(m, id & HG_BEAT_MAX_METHOD_ID, arena);
	}

	format_slices(data, size, arena);
	hg_arena_destroy(arena);
	hg_mapping_destroy(m);
	return 0;
}
