/* Module demangle (src/lib/demangle/): readable names for mangled native
 * symbols.  Telling which mangling a symbol uses, the bounds, and the memo
 * of answers (demangle.c, entry); C++ through libiberty (demangle_cxx.c,
 * the only file that sees libiberty); Swift written here: the reader
 * (demangle_swift.c, demangle_swift_ops.c, demangle_swift_entities.c,
 * demangle_swift_impl.c) and the printer (demangle_swift_print.c,
 * demangle_swift_print_types.c).
 * Public header: demangle.h.
 * Uses: core. */
#include <stdlib.h>
#include <string.h>

#include "hangar/demangle.h"
#include "hangar/hangar.h"
#include "hangar/text.h"
#include "core/core.h"
#include "demangle_internal.h"

static bool is_swift(const char *s, size_t len)
{
	return (len > 2 && s[0] == '$' && (s[1] == 's' || s[1] == 'S')) ||
	       (len > 3 && s[0] == '_' && s[1] == '$' && (s[2] == 's' || s[2] == 'S'));
}

/* "_Z..." as ELF writes it; "__Z..." as Mach-O does (one more '_'). */
static size_t cxx_start(const char *s, size_t len)
{
	if (len > 2 && s[0] == '_' && s[1] == 'Z')
		return 0;
	if (len > 3 && s[0] == '_' && s[1] == '_' && s[2] == 'Z')
		return 1;
	return len;
}

static int finish(const char *name, size_t n, hg_arena *arena, const char **readable)
{
	if (n == 0 || n > HG_DEMANGLE_MAX_OUTPUT)
		return 0;
	*readable = hg_arena_strndup(arena, name, n);
	return *readable ? 0 : HG_ENOMEM;
}

int hg_demangle(const char *symbol, size_t len, hg_arena *arena, const char **readable)
{
	*readable = NULL;
	if (!symbol || len == 0 || len > HG_DEMANGLE_MAX_SYMBOL || memchr(symbol, 0, len))
		return 0;
	if (is_swift(symbol, len)) {
		hg_buf out;
		hg_buf_init(&out);
		int rc = demangle_swift(symbol, len, &out);
		if (rc == 1)
			rc = finish(out.data, out.len, arena, readable);
		hg_buf_release(&out);
		return rc < 0 ? rc : 0;
	}
	size_t at = cxx_start(symbol, len);
	if (at == len)
		return 0; /* C, Objective-C ("-[Class sel:]"), Java, or not a name */
	char *copy = strndup(symbol + at, len - at);
	if (!copy)
		return HG_ENOMEM;
	char *name = demangle_cxx(copy);
	free(copy);
	int rc = name ? finish(name, strlen(name), arena, readable) : 0;
	free(name);
	return rc;
}

/* ---- the memo ---- */

#define MEMO_MAX 65536 /* symbols remembered before starting over */

struct hg_demangler {
	strmap index;      /* symbol -> 1 + its slot in names, 0 is never stored */
	char **names;      /* malloc'd readable names; NULL: not mangled */
	size_t n, cap;
};

hg_demangler *hg_demangler_create(void)
{
	return calloc(1, sizeof(hg_demangler));
}

static void memo_clear(hg_demangler *d)
{
	strmap_clear(&d->index);
	for (size_t i = 0; i < d->n; i++)
		free(d->names[i]);
	d->n = 0;
}

void hg_demangler_destroy(hg_demangler *d)
{
	if (!d)
		return;
	memo_clear(d);
	free(d->names);
	free(d);
}

static int remember(hg_demangler *d, const char *symbol, const char *readable)
{
	if (d->n == MEMO_MAX)
		memo_clear(d);
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 256;
		char **names = realloc(d->names, cap * sizeof *names);
		if (!names)
			return HG_ENOMEM;
		d->names = names;
		d->cap = cap;
	}
	char *copy = readable ? strdup(readable) : NULL;
	if (readable && !copy)
		return HG_ENOMEM;
	if (strmap_put(&d->index, symbol, (int64_t)d->n + 1) != 0) {
		free(copy);
		return HG_ENOMEM;
	}
	d->names[d->n++] = copy;
	return 0;
}

int hg_demangler_get(hg_demangler *d, const char *symbol, hg_arena *arena, const char **readable)
{
	int64_t slot;
	*readable = NULL;
	if (strmap_get(&d->index, symbol, &slot)) {
		const char *name = d->names[slot - 1];
		if (name && !(*readable = hg_arena_strdup(arena, name)))
			return HG_ENOMEM;
		return 0;
	}
	int rc = hg_demangle(symbol, strlen(symbol), arena, readable);
	return rc ? rc : remember(d, symbol, *readable);
}

/* ---- names in text ---- */

static bool name_byte(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$';
}

static bool prefix_at(const char *s, size_t n)
{
	return is_swift(s, n) || cxx_start(s, n) < n;
}

static bool safe_in_text(const char *s)
{
	for (; *s; s++)
		if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

int hg_demangle_text(hg_demangler *d, const char *text, size_t len, hg_buf *out)
{
	hg_arena *arena = NULL;
	size_t copied = 0;
	for (size_t i = 0; i < len;) {
		if (!name_byte(text[i])) {
			i++;
			continue;
		}
		size_t end = i;
		while (end < len && name_byte(text[end]))
			end++;
		if (end - i <= HG_DEMANGLE_MAX_SYMBOL && prefix_at(text + i, end - i)) {
			if (!arena && !(arena = hg_arena_create_sized(4096)))
				return HG_ENOMEM;
			char *sym = hg_arena_strndup(arena, text + i, end - i);
			const char *readable = NULL;
			if (!sym || hg_demangler_get(d, sym, arena, &readable) != 0) {
				hg_arena_destroy(arena);
				return HG_ENOMEM;
			}
			if (readable && safe_in_text(readable)) {
				hg_buf_add(out, text + copied, i - copied);
				hg_buf_puts(out, readable);
				copied = end;
			}
		}
		i = end;
	}
	hg_buf_add(out, text + copied, len - copied);
	hg_arena_destroy(arena);
	return out->failed ? HG_ENOMEM : 0;
}
