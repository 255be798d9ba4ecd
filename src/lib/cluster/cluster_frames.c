/* Frames as a signature sees them: names normalized so that compiler
 * numbering does not split a cause, and whose each frame is (the app's,
 * a library's, the platform's). */
#include <ctype.h>
#include <inttypes.h>
#include <string.h>

#include "cluster_internal.h"
#include "hangar/text.h"

#define SYNTHETIC "$$Synthetic"

/* The platform: code the device brings, never the app's unless a rule
 * says so (WebView's Chromium is its own APK). */
static const char *const system_prefixes[] = {
	"android.", "com.android.", "dalvik.", "java.", "javax.", "jdk.", "libcore.", "sun.",
	"org.json.", "org.xml.", "org.w3c.", "org.apache.harmony.", "org.chromium.",
	"J.", /* Chromium's generated JNI bridge, class J.N */
};

/* Libraries nearly every app ships: the app's to run, not its own code. */
static const char *const library_prefixes[] = {
	"androidx.", "kotlin.", "kotlinx.", "com.google.",
};

static bool has_prefix(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strncmp(s, list[i], strlen(list[i])) == 0)
			return true;
	return false;
}

/* ---- normalization ---- */

/* Appends s[0..len) with each '$'-digits run as "$N", copying the runs
 * between dollars whole (a byte at a time this was most of a signature). */
static void put_digits_normalized(hg_buf *b, const char *s, size_t len)
{
	if (len == 0)
		return;
	const char *end = s + len;
	while (s < end) {
		const char *dollar = memchr(s, '$', (size_t)(end - s));
		if (!dollar) {
			hg_buf_add(b, s, (size_t)(end - s));
			return;
		}
		hg_buf_add(b, s, (size_t)(dollar + 1 - s));
		s = dollar + 1;
		if (s < end && *s >= '0' && *s <= '9') {
			hg_buf_putc(b, 'N');
			while (s < end && *s >= '0' && *s <= '9')
				s++;
		}
	}
}

/* Appends name[0..len) with compiler numbering normalized: a class or
 * method name is cut at "$$ExternalSynthetic", "$$InternalSynthetic",
 * "$$Lambda" or "$r8$lambda$" and "$$Synthetic" put in place of the rest;
 * then every run of digits right after a '$' becomes "N". */
static void put_name(hg_buf *b, const char *name, size_t len)
{
	if (len == 0)
		return;
	static const char *const cuts[] = {"$$ExternalSynthetic", "$$InternalSynthetic",
					   "$$Lambda", "$r8$lambda$"};
	size_t keep = len;
	bool cut = false;
	for (const char *d = memchr(name, '$', len); d && !cut;
	     d = memchr(d + 1, '$', len - (size_t)(d + 1 - name))) {
		size_t i = (size_t)(d - name);
		for (size_t c = 0; c < sizeof cuts / sizeof *cuts && !cut; c++) {
			size_t n = strlen(cuts[c]);
			if (n <= len - i && memcmp(name + i, cuts[c], n) == 0) {
				keep = i;
				cut = true;
			}
		}
		if (i + 1 >= len)
			break;
	}
	put_digits_normalized(b, name, keep);
	if (cut)
		hg_buf_puts(b, SYNTHETIC);
}

/* The buffer as an arena string with CR and LF made spaces (a frame is one
 * line of the canonical text); NULL on ENOMEM. */
static const char *finish(hg_buf *b, hg_arena *arena)
{
	const char *out = NULL;
	if (!b->failed) {
		char *s = hg_arena_strndup(arena, b->data ? b->data : "", b->len);
		for (char *p = s; p && *p; p++)
			if (*p == '\n' || *p == '\r')
				*p = ' ';
		out = s;
	}
	hg_buf_release(b);
	return out;
}

const char *sig_java_frame(hg_arena *arena, const char *cls, const char *method)
{
	hg_buf b;
	hg_buf_init(&b);
	put_name(&b, cls, strlen(cls));
	if (method) {
		hg_buf_putc(&b, '.');
		put_name(&b, method, strlen(method));
	}
	return finish(&b, arena);
}

const char *sig_method_symbol(hg_arena *arena, const char *sym)
{
	size_t name_len = strcspn(sym, "(");
	const char *dot = NULL;
	for (const char *p = sym; p < sym + name_len; p++)
		if (*p == '.')
			dot = p;
	hg_buf b;
	hg_buf_init(&b);
	if (dot) {
		put_name(&b, sym, (size_t)(dot - sym));
		hg_buf_putc(&b, '.');
		put_name(&b, dot + 1, (size_t)(sym + name_len - dot - 1));
	} else {
		put_name(&b, sym, name_len);
	}
	put_digits_normalized(&b, sym + name_len, strlen(sym + name_len));
	return finish(&b, arena);
}

const char *sig_simple_name(const char *cls)
{
	const char *dot = strrchr(cls, '.');
	return dot ? dot + 1 : cls;
}

/* The file name of an image path, without what ART and the dynamic
 * linker append that is not part of it: "base.apk!classes16.dex]" (a
 * dex entry written inside brackets) -> "base.apk", "libx.so (deleted)"
 * -> "libx.so". */
static const char *image_name(hg_arena *arena, const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	size_t n = strcspn(name, "!] ");
	return n ? hg_arena_strndup(arena, name, n) : hg_arena_strdup(arena, "???");
}

/* Dex code ART shows among native frames ("/data/app/.../base.apk",
 * ".../oat/arm64/base.odex", ".../code_cache/.overlay/base.apk/classes16.dex"):
 * its symbol is a Java method. */
static bool dex_image(const char *image)
{
	static const char *const tails[] = {".dex", ".odex", ".oat", ".vdex", ".apk", ".jar"};
	for (size_t i = 0; i < sizeof tails / sizeof *tails; i++)
		if (hg_str_ends_with(image, tails[i]))
			return true;
	return false;
}

/* A demangled frame signs with its mangled name (hg_frame.mangled): the
 * same bytes as before hangar demangled, and unchanged when a later
 * version demangles more, so clusters never split on an upgrade; the
 * readable name is for titles (sig_native_title). */
static const char *native_line(hg_arena *arena, const hg_frame *f, const char *sym)
{
	const char *image = f->image ? image_name(arena, f->image) : "???";
	if (!image)
		return NULL;
	if (sym && dex_image(image) && strchr(sym, '.'))
		return sig_method_symbol(arena, sym); /* named as the Java frame it is */
	if (sym)
		return hg_arena_printf(arena, "%s!%s", image, sym);
	if (f->has_offset)
		return hg_arena_printf(arena, "%s+0x%" PRIx64, image, f->offset);
	return image;
}

const char *sig_native_frame(hg_arena *arena, const hg_frame *f)
{
	return native_line(arena, f, f->mangled ? f->mangled : f->method ? f->method : f->symbol);
}

const char *sig_native_title(hg_arena *arena, const hg_frame *f)
{
	return native_line(arena, f, f->method ? f->method : f->symbol);
}

/* ---- whose a frame is ---- */

static bool any_match(hg_regex *const *res, size_t n, const char *s, size_t len, int *err)
{
	for (size_t i = 0; i < n; i++) {
		int rc = hg_regex_match(res[i], s, len);
		if (rc < 0)
			*err = rc;
		if (rc != 0)
			return rc > 0;
	}
	return false;
}

static bool rule_says_app(const struct sig *s, const char *match)
{
	int err = 0;
	return s->rules && s->rules->n_app &&
	       any_match(s->rules->app, s->rules->n_app, match, strlen(match), &err);
}

int sig_ignored(const struct sig *s, const char *match, size_t len)
{
	int err = 0;
	const hg_rules *r = s->rules;
	bool hit = r && r->n_ignore && any_match(r->ignore, r->n_ignore, match, len, &err);
	return err ? err : hit;
}

/* An R8/ProGuard-renamed class: its outer simple name is one to three
 * letters or digits ("a", "bQ4", "Nz0"), not an acronym of capitals
 * ("UI", "IO"), which people do write. */
static bool obfuscated(const char *cls)
{
	const char *simple = sig_simple_name(cls);
	size_t n = strcspn(simple, "$");
	if (n == 0 || n > 3 || !isalpha((unsigned char)simple[0]))
		return false;
	bool capitals = n >= 2;
	for (size_t i = 0; i < n; i++) {
		if (!isalnum((unsigned char)simple[i]))
			return false;
		if (!isupper((unsigned char)simple[i]))
			capitals = false;
	}
	return !capitals;
}

enum frame_owner frame_owner_java(const struct sig *s, const hg_frame *f, const char *match)
{
	const char *cls = f->cls ? f->cls : "";
	if (rule_says_app(s, match))
		return OWNER_APP;
	if (has_prefix(cls, system_prefixes, sizeof system_prefixes / sizeof *system_prefixes))
		return OWNER_SYSTEM;
	if (s->prefix && strncmp(cls, s->prefix, s->prefix_len) == 0)
		return OWNER_APP;
	if (has_prefix(cls, library_prefixes, sizeof library_prefixes / sizeof *library_prefixes))
		return OWNER_LIBRARY;
	if (f->retraced || obfuscated(cls))
		return OWNER_APP;
	/* With no package to tell the app's code from a library's, what the
	 * platform does not bring is taken for the app's. */
	return s->prefix ? OWNER_LIBRARY : OWNER_APP;
}

enum frame_owner frame_owner_symbol(const struct sig *s, const char *sym)
{
	/* Matrix instruments the APK's own classes only (SDKs included): every
	 * method its methodMapping.txt names ran the app's code, but for the
	 * platform's, which a mapping names only as markers. */
	if (rule_says_app(s, sym))
		return OWNER_APP;
	return has_prefix(sym, system_prefixes, sizeof system_prefixes / sizeof *system_prefixes)
		       ? OWNER_SYSTEM
		       : OWNER_APP;
}

/* Whether image is the app binary called name: "name", or
 * "name.debug.dylib" (where Xcode debug builds put the code). */
static bool is_app_image(const char *image, const char *name)
{
	size_t len = strlen(name);
	return strncmp(image, name, len) == 0 &&
	       (image[len] == '\0' || strcmp(image + len, ".debug.dylib") == 0);
}

enum frame_owner frame_owner_native(const struct sig *s, const hg_frame *f)
{
	if (!f->image)
		return OWNER_SYSTEM;
	if (s->ios) {
		const char *slash = strrchr(f->image, '/');
		const char *img = slash ? slash + 1 : f->image;
		return s->main_image && is_app_image(img, s->main_image) ? OWNER_APP : OWNER_SYSTEM;
	}
	/* Android: the app's libraries and dex code live under its package's
	 * folder (/data/app/~~x==/com.example-y==/lib/arm64/libfoo.so). */
	return s->package && strstr(f->image, s->package) ? OWNER_APP : OWNER_SYSTEM;
}

int sig_add(struct sig *s, const char *line)
{
	if (!line || s->n_frames >= s->cap_frames)
		return HG_ENOMEM;
	s->frames[s->n_frames++] = line;
	return 0;
}
