/* Frames as a signature sees them: names normalized so that compiler
 * numbering does not split a cause, and whose each frame is (the app's,
 * a library's, the platform's). */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "cluster_internal.h"
#include "hangar/text.h"

#define SYNTHETIC "$$Synthetic"

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

/* What decides whose a frame is tells, when explaining (why not NULL),
 * which rule it was; the words are made only then, apart from the
 * decision, which ingest makes millions of times. */

/* *why = the text fmt makes, in the arena (NULL when out of memory). */
static void say(const struct sig *s, const char **why, const char *fmt, ...) HG_PRINTF(3, 4);

static void say(const struct sig *s, const char **why, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	*why = hg_arena_vprintf(s->arena, fmt, ap);
	va_end(ap);
}

/* "rules-file app /RE/ (rules.txt:3)" */
static void say_rule(const struct sig *s, const char **why, const char *word,
		     const struct rule_pattern *p)
{
	say(s, why, "rules-file %s /%s/ (%s:%ld)", word, p->text,
	    s->rules->path ? s->rules->path : "?", p->line);
}

/* The first pattern that matches; NULL when none does (or an error: *err). */
static const struct rule_pattern *any_match(const struct rule_pattern *pats, size_t n,
					    const char *s, size_t len, int *err)
{
	for (size_t i = 0; i < n; i++) {
		int rc = hg_regex_match(pats[i].re, s, len);
		if (rc < 0)
			*err = rc;
		if (rc != 0)
			return rc > 0 ? &pats[i] : NULL;
	}
	return NULL;
}

/* The app rule that claims match; NULL when none does. */
static const struct rule_pattern *app_rule(const struct sig *s, const char *match)
{
	int err = 0;
	if (!s->rules || !s->rules->n_app)
		return NULL;
	return any_match(s->rules->app, s->rules->n_app, match, strlen(match), &err);
}

int sig_ignored_by_rules(const struct sig *s, const char *match, size_t len, const char **why)
{
	const hg_rules *r = s->rules;
	int err = 0;
	const struct rule_pattern *p = any_match(r->ignore, r->n_ignore, match, len, &err);
	if (err)
		return err;
	if (p && why)
		say_rule(s, why, "ignore", p);
	return p != NULL;
}

/* Which rule decided a Java frame's owner (java_owner). */
enum java_rule {
	JAVA_APP_RULE,   /* arg: the rule_pattern */
	JAVA_PLATFORM,   /* arg: the prefix */
	JAVA_PACKAGE,
	JAVA_LIBRARY,    /* arg: the prefix */
	JAVA_RETRACED,
	JAVA_OBFUSCATED,
	JAVA_OUTSIDE,    /* not under the app's package: a library's */
	JAVA_NO_PACKAGE, /* no package to tell: the app's */
};

static inline enum frame_owner java_owner(const struct sig *s, const hg_frame *f,
					  const char *match, enum java_rule *rule,
					  const void **arg)
{
	const char *cls = f->cls ? f->cls : "";
	const char *pre;
	const struct rule_pattern *p;
	if ((p = app_rule(s, match))) {
		*rule = JAVA_APP_RULE;
		*arg = p;
		return OWNER_APP;
	}
	if ((pre = hg_java_platform_prefix(cls))) {
		*rule = JAVA_PLATFORM;
		*arg = pre;
		return OWNER_SYSTEM;
	}
	*rule = JAVA_PACKAGE;
	if (s->prefix && strncmp(cls, s->prefix, s->prefix_len) == 0)
		return OWNER_APP;
	if ((pre = hg_java_library_prefix(cls))) {
		*rule = JAVA_LIBRARY;
		*arg = pre;
		return OWNER_LIBRARY;
	}
	*rule = f->retraced ? JAVA_RETRACED : JAVA_OBFUSCATED;
	if (f->retraced || hg_java_class_obfuscated(cls))
		return OWNER_APP;
	/* With no package to tell the app's code from a library's, what the
	 * platform does not bring is taken for the app's. */
	*rule = s->prefix ? JAVA_OUTSIDE : JAVA_NO_PACKAGE;
	return s->prefix ? OWNER_LIBRARY : OWNER_APP;
}

/* The rule java_owner found, in words. */
static void say_java(const struct sig *s, const hg_frame *f, enum java_rule rule, const void *arg,
		     const char **why)
{
	const char *simple = sig_simple_name(f->cls ? f->cls : "");
	switch (rule) {
	case JAVA_APP_RULE: say_rule(s, why, "app", arg); break;
	case JAVA_PLATFORM: say(s, why, "platform prefix %s", (const char *)arg); break;
	case JAVA_PACKAGE: say(s, why, "package prefix %s (the report's app)", s->prefix); break;
	case JAVA_LIBRARY: say(s, why, "library prefix %s", (const char *)arg); break;
	case JAVA_RETRACED: *why = "retraced by a ProGuard mapping"; break;
	case JAVA_OBFUSCATED:
		say(s, why, "obfuscated class %.*s", (int)strcspn(simple, "$"), simple);
		break;
	case JAVA_OUTSIDE: say(s, why, "outside the app's package %s", s->prefix); break;
	case JAVA_NO_PACKAGE: *why = "no app package (the report names no app)"; break;
	}
}

enum frame_owner frame_owner_java(const struct sig *s, const hg_frame *f, const char *match,
				  const char **why)
{
	enum java_rule rule;
	const void *arg = NULL;
	if (!why) /* the rule is not kept: nothing but the decision */
		return java_owner(s, f, match, &rule, &arg);
	enum frame_owner owner = java_owner(s, f, match, &rule, &arg);
	say_java(s, f, rule, arg, why);
	return owner;
}

enum frame_owner frame_owner_symbol(const struct sig *s, const char *sym, const char **why)
{
	/* Matrix instruments the APK's own classes only (SDKs included): every
	 * method its methodMapping.txt names ran the app's code, but for the
	 * platform's, which a mapping names only as markers. */
	const struct rule_pattern *p = app_rule(s, sym);
	const char *pre = p ? NULL
			    : hg_java_platform_prefix(sym);
	if (!why)
		return pre ? OWNER_SYSTEM : OWNER_APP;
	if (p)
		say_rule(s, why, "app", p);
	else if (pre)
		say(s, why, "platform prefix %s", pre);
	else
		*why = "mapped method (Matrix instruments the APK)";
	return pre ? OWNER_SYSTEM : OWNER_APP;
}

/* Whether image is the app binary called name: "name", or
 * "name.debug.dylib" (where Xcode debug builds put the code). */
static bool is_app_image(const char *image, const char *name)
{
	size_t len = strlen(name);
	return strncmp(image, name, len) == 0 &&
	       (image[len] == '\0' || strcmp(image + len, ".debug.dylib") == 0);
}

/* Whose an iOS frame that no binary image places is: the app's when the
 * report gives its source file (only the app's debug information names
 * one), else by its name; a bare address is the platform's. */
static enum frame_owner frame_owner_unplaced(const struct sig *s, const hg_frame *f,
					     const char **why)
{
	if (f->file) {
		if (why)
			*why = "no image; source file given (the app's debug information)";
		return OWNER_APP;
	}
	const char *name = f->method ? f->method : f->symbol;
	if (!name || !*name) {
		if (why)
			*why = "no image and no name";
		return OWNER_SYSTEM;
	}
	enum apple_why a = sig_apple_name(name);
	if (why)
		say(s, why, "no image; %s", sig_apple_why(a));
	return a != APPLE_NOT ? OWNER_SYSTEM : OWNER_APP;
}

const char *sig_unplaced_title(hg_arena *arena, const hg_frame *f)
{
	static const char *const qualifiers[] = {"static ", "class ", "@objc "};
	const char *name = f->method ? f->method : f->symbol ? f->symbol : "???";
	for (size_t i = 0; i < sizeof qualifiers / sizeof *qualifiers; i++)
		if (strncmp(name, qualifiers[i], strlen(qualifiers[i])) == 0) {
			name += strlen(qualifiers[i]);
			i = (size_t)-1; /* "@objc static ..." */
		}
	return hg_arena_strdup(arena, name);
}

enum frame_owner frame_owner_native(const struct sig *s, const hg_frame *f, const char **why)
{
	if (s->ios && !f->image)
		return frame_owner_unplaced(s, f, why);
	if (!f->image) {
		if (why)
			*why = "no image";
		return OWNER_SYSTEM;
	}
	if (s->ios) {
		const char *slash = strrchr(f->image, '/');
		const char *img = slash ? slash + 1 : f->image;
		bool app = s->main_image && is_app_image(img, s->main_image);
		if (why)
			say(s, why, "%s image %s", app ? "app" : "platform", img);
		return app ? OWNER_APP : OWNER_SYSTEM;
	}
	/* Android: the app's libraries and dex code live under its package's
	 * folder (/data/app/~~x==/com.example-y==/lib/arm64/libfoo.so). */
	bool app = s->package && strstr(f->image, s->package);
	if (why) {
		const char *img = image_name(s->arena, f->image);
		if (app)
			say(s, why, "app image %s (its path holds %s)", img, s->package);
		else
			say(s, why, "platform image %s%s", img,
			    s->package ? "" : " (the report names no app)");
	}
	return app ? OWNER_APP : OWNER_SYSTEM;
}

int sig_add(struct sig *s, const char *line)
{
	if (!line || s->n_frames >= s->cap_frames)
		return HG_ENOMEM;
	s->frames[s->n_frames++] = line;
	return 0;
}
