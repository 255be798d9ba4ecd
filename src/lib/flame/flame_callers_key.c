/* Which frame labels of a merged tree name a cluster's key_symbol.  A
 * method stack's key_symbol is a label of its tree as it is; a thread
 * dump's is its frame's line as written ("at a.b.C.m(C.java:12)",
 * "native: #00 pc 000000000005857b  /apex/.../libc.so (__epoll_pwait+8)",
 * "Sentry 0x000000010110140c 0x10109c000 + 414732"), while its tree keys
 * the frame by hg_frame_label ("a.b.C.m", "__epoll_pwait+8",
 * "Sentry+0x6540c"), so the line is read for the labels it can be. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/demangle.h"
#include "hangar/samples.h"
#include "flame_callers.h"

/* s with every '$'-digits run as "$N", as signatures compare names
 * (cluster_frames.c): "a.B$2.run" is the frame "a.B$1.run" of another
 * build.  malloc'd; NULL on ENOMEM. */
static char *normalized(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;
	if (!out)
		return NULL;
	while (*s) {
		*o++ = *s;
		if (*s++ == '$' && *s >= '0' && *s <= '9') {
			*o++ = 'N';
			while (*s >= '0' && *s <= '9')
				s++;
		}
	}
	*o = '\0';
	return out;
}

/* Whether small is in big as a whole frame name: after the start, a
 * space, '(' or '[', and before the end, a space, '(', ')', '+' or ':'
 * ("a.b.C.m" in "a.b.C.m(int)", "__epoll_pwait+8" in a native line's
 * "(__epoll_pwait+8)", "-[Crasher doAbort]" in an Apple line's
 * "0x... -[Crasher doAbort] + 8").  A name with no letter ("?", "???")
 * names nothing. */
static bool within(const char *small, const char *big)
{
	size_t n = strlen(small);
	if (strcspn(small, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_#") == n)
		return false;
	for (const char *p = strstr(big, small); p; p = strstr(p + 1, small)) {
		bool start = p == big || strchr(" ([", p[-1]);
		bool end = p[n] == '\0' || strchr(" ()+:", p[n]);
		if (start && end)
			return true;
	}
	return false;
}

static bool all_of(const char *s, size_t n, const char *set)
{
	return n > 0 && strspn(s, set) >= n;
}

#define DIGITS "0123456789"
#define HEX "0123456789abcdefABCDEF"

/* "IMAGE+0xOFF" as an image and an offset label it; NULL on ENOMEM. */
static const char *image_label(hg_arena *arena, const char *image, size_t len, uint64_t off)
{
	char *path = hg_arena_strndup(arena, image, len);
	int n;
	const char *base = path ? hg_frame_image_base(path, &n) : NULL;
	return base ? hg_arena_printf(arena, "%.*s+0x%" PRIx64, n, base, off) : NULL;
}

/* An Apple line without a symbol, "IMAGE 0xPC 0xLOAD + OFFSET" (KSCrash,
 * Apple's crash reports): "IMAGE+0xOFFSET".  NULL when it is not one (or
 * on ENOMEM: *err). */
static const char *apple_label(hg_arena *arena, const char *s, int *err)
{
	const char *plus = strstr(s, " + ");
	if (!plus || !all_of(plus + 3, strlen(plus + 3), DIGITS))
		return NULL;
	/* back over "0xLOAD" and "0xPC" */
	const char *p = plus;
	for (int word = 0; word < 2; word++) {
		const char *end = p;
		while (p > s && p[-1] != ' ')
			p--;
		if (end - p < 3 || strncmp(p, "0x", 2) || !all_of(p + 2, (size_t)(end - p - 2), HEX))
			return NULL;
		while (p > s && p[-1] == ' ')
			p--;
	}
	if (p == s)
		return NULL;
	const char *label = image_label(arena, s, (size_t)(p - s), strtoull(plus + 3, NULL, 10));
	*err = label ? 0 : HG_ENOMEM;
	return label;
}

/* An Android native line without a symbol, "[native: ]#NN pc HEX  IMAGE":
 * "IMAGE+0xHEX" (the image's base name).  NULL when it is not one. */
static const char *android_label(hg_arena *arena, const char *s, int *err)
{
	if (strncmp(s, "native: ", 8) == 0)
		s += 8;
	size_t n = strspn(s + (*s == '#'), DIGITS);
	if (*s != '#' || n == 0 || strncmp(s + 1 + n, " pc ", 4) != 0)
		return NULL;
	const char *pc = s + 1 + n + 4, *image = pc + strspn(pc, HEX);
	if (image == pc || *image != ' ')
		return NULL;
	image += strspn(image, " ");
	const char *paren = strstr(image, " (");
	size_t len = paren ? (size_t)(paren - image) : strlen(image);
	if (len == 0)
		return NULL;
	const char *label = image_label(arena, image, len, strtoull(pc, NULL, 16));
	*err = label ? 0 : HG_ENOMEM;
	return label;
}

/* A Java line, "at a.b.C.m(C.java:12)" or Matrix's "at a.b.C:m(12)":
 * "a.b.C.m" (what is before the '(', a ':' made a '.'). */
static const char *java_label(hg_arena *arena, const char *s, int *err)
{
	if (strncmp(s, "at ", 3) == 0)
		s += 3;
	size_t n = strcspn(s, "( \t");
	if (s[n] != '(' || strcspn(s, ".:") >= n)
		return NULL;
	char *label = hg_arena_strndup(arena, s, n);
	for (char *p = label; p && *p; p++)
		if (*p == ':')
			*p = '.';
	*err = label ? 0 : HG_ENOMEM;
	return label;
}

/* The line with its mangled names demangled ("... MyCPPClass::
 * throwAnException() + 135"), when it has any. */
static const char *demangled(hg_arena *arena, const char *s, int *err)
{
	hg_demangler *d = hg_demangler_create();
	hg_buf b;
	hg_buf_init(&b);
	*err = d ? hg_demangle_text(d, s, strlen(s), &b) : HG_ENOMEM;
	const char *out = NULL;
	if (!*err && b.len && (b.len != strlen(s) || memcmp(b.data, s, b.len) != 0) &&
	    !(out = hg_arena_strndup(arena, b.data, b.len)))
		*err = HG_ENOMEM;
	hg_buf_release(&b);
	hg_demangler_destroy(d);
	return out;
}

int flame_key_names_init(struct flame_key_names *k, const char *key_symbol, hg_arena *arena)
{
	memset(k, 0, sizeof *k);
	k->key = key_symbol;
	const char *(*const readers[])(hg_arena *, const char *, int *) = {
		java_label, apple_label, android_label, demangled};
	int err = 0;
	k->forms[k->n++] = key_symbol;
	for (size_t i = 0; !err && i < sizeof readers / sizeof *readers; i++) {
		const char *form = readers[i](arena, key_symbol, &err);
		if (form)
			k->forms[k->n++] = form;
	}
	for (size_t i = 0; !err && i < k->n; i++)
		if (!(k->norm[i] = normalized(k->forms[i])))
			err = HG_ENOMEM;
	if (err)
		flame_key_names_release(k);
	return err;
}

void flame_key_names_release(struct flame_key_names *k)
{
	for (size_t i = 0; i < FLAME_KEY_FORMS; i++) {
		free(k->norm[i]);
		k->norm[i] = NULL;
	}
	k->n = 0;
}

int flame_key_names_match(const struct flame_key_names *k, const char *sym, int *err)
{
	if (strcmp(sym, k->key) == 0)
		return 3;
	char *norm = normalized(sym);
	if (!norm) {
		*err = HG_ENOMEM;
		return 0;
	}
	int how = 0;
	for (size_t i = 0; how < 2 && i < k->n; i++) {
		if (strcmp(norm, k->norm[i]) == 0)
			how = 2;
		else if (within(norm, k->norm[i]) || within(k->norm[i], norm))
			how = 1;
	}
	free(norm);
	return how;
}
