/* libFuzzer target: the ELF / Mach-O / fat header parsers of module
 * symbols (symbols_header.c), which read files of any origin found in a
 * --symbols folder.  The input is the whole file, read through the same
 * bounded reads as a real one; every read outside it fails.
 *
 * Invariants are checked with __builtin_trap() after a line on stderr:
 * the result is 0 or HG_EPARSE, a failure leaves no slices, a success
 * gives 1..SYM_MAX_SLICES slices whose ids are uppercase hex. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hangar/hangar.h"
#include "symbols/symbols_internal.h"

static const char fuzz_target[] = "fuzz_symbols_header";
#include "fuzz_fixture.h"

struct mem {
	const uint8_t *p;
	size_t n;
};

static int mem_read(void *user, uint64_t off, void *buf, size_t n)
{
	const struct mem *m = user;
	require(buf != NULL && n <= 4096 + 64, "reads are small and bounded");
	if (off > m->n || n > m->n - off)
		return -1;
	memcpy(buf, m->p + off, n);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mem m = {data, size};
	struct sym_header h;
	char why[160];
	int rc = sym_header_parse(mem_read, &m, size, &h, why, sizeof why);
	require(rc == 0 || rc == HG_EPARSE, "0 or HG_EPARSE");
	require(memchr(why, '\0', sizeof why) != NULL, "the reason is a string");
	if (rc != 0) {
		require(h.n == 0 && h.kind == SYM_NONE, "a failure leaves no slices");
		return 0;
	}
	require(h.n >= 1 && h.n <= SYM_MAX_SLICES, "slices in range");
	require(h.kind == SYM_ELF || h.kind == SYM_MACHO, "a kind");
	for (size_t i = 0; i < h.n; i++) {
		const char *id = h.slices[i].id;
		size_t len = strnlen(id, SYM_ID_MAX);
		require(len < SYM_ID_MAX && len % 2 == 0, "an id of whole bytes");
		for (size_t k = 0; k < len; k++)
			require((id[k] >= '0' && id[k] <= '9') || (id[k] >= 'A' && id[k] <= 'F'),
				"ids are uppercase hex");
		char norm[SYM_ID_MAX];
		require(len == 0 || (sym_normalize_id(id, len, norm) && strcmp(norm, id) == 0),
			"ids are already normalized");
	}
	return 0;
}
