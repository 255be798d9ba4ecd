/* libFuzzer target: demangling (src/lib/demangle/).  Invariants: a name
 * or NULL, never longer than HG_DEMANGLE_MAX_OUTPUT, the same answer twice
 * and through the memo; a symbol that starts with no known mangling
 * prefix is never demangled; a Swift name is never empty; the bytes as a
 * line of text go through hg_demangle_text, which keeps any text without a
 * name it reads as it is. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/demangle.h"
#include "hangar/text.h"

static void require(bool ok, const char *what, const char *s)
{
	if (!ok) {
		fprintf(stderr, "fuzz_demangle: invariant violated: %s: \"%s\"\n", what, s);
		__builtin_trap();
	}
}

static bool has_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > HG_DEMANGLE_MAX_SYMBOL + 16)
		return 0;
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	hg_arena *a = hg_arena_create();
	hg_demangler *d = hg_demangler_create();
	const char *r1 = NULL, *r2 = NULL, *r3 = NULL;
	if (a && d && hg_demangle(s, size, a, &r1) == 0 && hg_demangle(s, size, a, &r2) == 0) {
		require(!r1 == !r2 && (!r1 || strcmp(r1, r2) == 0), "two answers", s);
		require(!r1 || strlen(r1) <= HG_DEMANGLE_MAX_OUTPUT, "too long", s);
		bool known = has_prefix(s, "$s") || has_prefix(s, "_$s") || has_prefix(s, "$S") ||
			     has_prefix(s, "_$S") || has_prefix(s, "$e") || has_prefix(s, "_$e") ||
			     has_prefix(s, "_T") || has_prefix(s, "@__swiftmacro_") ||
			     has_prefix(s, "_Z") || has_prefix(s, "__Z");
		require(known || !r1, "demangled without a prefix", s);
		require(!r1 || r1[0], "an empty name", s);
		if (strlen(s) == size && hg_demangler_get(d, s, a, &r3) == 0) {
			require(!r1 == !r3 && (!r1 || strcmp(r1, r3) == 0), "the memo differs", s);
			require(hg_demangler_get(d, s, a, &r3) == 0 && (!r1 == !r3), "asked again", s);
		}
	}
	if (d) {
		hg_buf out;
		hg_buf_init(&out);
		require(hg_demangle_text(d, (const char *)data, size, &out) == 0, "text failed", s);
		require(out.len > 0 || size == 0, "text lost", s);
		hg_buf_release(&out);
	}
	hg_demangler_destroy(d);
	hg_arena_destroy(a);
	free(s);
	return 0;
}
