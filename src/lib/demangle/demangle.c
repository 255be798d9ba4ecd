/* Module demangle (src/lib/demangle/): readable names for mangled native
 * symbols.  Telling which mangling a symbol uses, the bounds, the memo of
 * answers and names in text (demangle.c, entry); C++ through libiberty
 * (demangle_cxx.c, the only file that sees libiberty); Swift written here:
 * the readers of the Swift 4.2+ manglings (demangle_swift*.c, see
 * demangle_swift_dm.h) and of the older ones (demangle_swift_old*.c, see
 * demangle_swift_od.h), the tree they build (demangle_swift_node.c,
 * demangle_internal.h) and its printer (demangle_swift_print*.c, see
 * demangle_swift_print.h).
 * Public header: demangle.h.
 * Uses: core. */
#include <stdlib.h>
#include <string.h>

#include "hangar/demangle.h"
#include "hangar/hangar.h"
#include "hangar/text.h"
#include "core/core.h"
#include "demangle_internal.h"

static bool starts(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);
	return len > n && memcmp(s, prefix, n) == 0;
}

/* The Swift manglings, as swift-demangle tells them: "$s" (Swift 5 and
 * later), "$S" (4.2), "$e" (Embedded Swift), each also with a leading '_'
 * as Mach-O writes it, "_T" (4.0 and before) and "@__swiftmacro_". */
static bool is_swift(const char *s, size_t len)
{
	if (len > 2 && s[0] == '$')
		return s[1] == 's' || s[1] == 'S' || s[1] == 'e';
	if (len > 3 && s[0] == '_' && s[1] == '$')
		return s[2] == 's' || s[2] == 'S' || s[2] == 'e';
	return starts(s, len, "_T") || starts(s, len, "@__swiftmacro_");
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
		int rc = demangle_swift(symbol, len, true, 0, &out);
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

/* The end of the name that starts at text[i]: its run of name bytes and,
 * for a Swift name, the unmangled suffixes Swift reads with it (".1",
 * ".llvm.123": a '.' followed by name bytes; a '.' that ends a sentence is
 * not one). */
static size_t name_end(const char *text, size_t len, size_t i)
{
	size_t end = i + 1;
	while (end < len && name_byte(text[end]))
		end++;
	if (!is_swift(text + i, end - i))
		return end;
	while (end + 1 < len && text[end] == '.' && name_byte(text[end + 1])) {
		end += 2;
		while (end < len && name_byte(text[end]))
			end++;
	}
	return end;
}

/* Whether text[from..at) leaves a JSON string open: quotes not escaped
 * by a backslash, counted from the line's start. */
static bool in_string(const char *text, size_t from, size_t at)
{
	bool open = false;
	for (size_t i = from; i < at; i++) {
		if (text[i] == '\\')
			i++;
		else if (text[i] == '"')
			open = !open;
	}
	return open;
}

static bool has_control_byte(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* The readable name where the mangled one was: inside a JSON string its
 * quotes and backslashes escaped (Swift quotes an unmangled suffix:
 * "... with unmangled suffix \".1\""). */
static void put_readable(hg_buf *out, const char *readable, bool escape)
{
	if (!escape || !strpbrk(readable, "\"\\")) {
		hg_buf_puts(out, readable);
		return;
	}
	for (const char *c = readable; *c; c++) {
		if (*c == '"' || *c == '\\')
			hg_buf_putc(out, '\\');
		hg_buf_putc(out, *c);
	}
}

int hg_demangle_text(hg_demangler *d, const char *text, size_t len, hg_buf *out)
{
	hg_arena *arena = NULL;
	size_t copied = 0, line = 0;
	for (size_t i = 0; i < len;) {
		if (text[i] == '\n')
			line = i + 1;
		bool macro = text[i] == '@' && starts(text + i, len - i, "@__swiftmacro_");
		if (!name_byte(text[i]) && !macro) {
			i++;
			continue;
		}
		size_t end = name_end(text, len, i);
		if (end - i <= HG_DEMANGLE_MAX_SYMBOL && prefix_at(text + i, end - i)) {
			if (!arena && !(arena = hg_arena_create_sized(4096)))
				return HG_ENOMEM;
			char *sym = hg_arena_strndup(arena, text + i, end - i);
			const char *readable = NULL;
			if (!sym || hg_demangler_get(d, sym, arena, &readable) != 0) {
				hg_arena_destroy(arena);
				return HG_ENOMEM;
			}
			if (readable && !has_control_byte(readable)) {
				hg_buf_add(out, text + copied, i - copied);
				put_readable(out, readable, in_string(text, line, i));
				copied = end;
			}
		}
		i = end;
	}
	hg_buf_add(out, text + copied, len - copied);
	hg_arena_destroy(arena);
	return out->failed ? HG_ENOMEM : 0;
}
