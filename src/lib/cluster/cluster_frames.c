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

/* ---- iOS frames that no binary image places ---- */

/* A report symbolicated before it was sent (seed 003's: symbol names and
 * source lines, no binary_images) says whose a frame is only by its name.
 * The platform's names: Apple's Objective-C class prefixes (and the Swift
 * types imported from them; a leading '_' is a private class), the Swift
 * modules the SDK brings, the C++ namespaces of its runtimes.  An app's
 * own prefix ("HT") is no platform's: these lists are Apple's only. */
static const char *const apple_prefixes[] = {
	"NS", "UI", "CA", "CF", "CG", "CI", "AV", "CL", "MK", "WK", "SK", "GK", "HK", "PH",
	"SF", "BS", "FBS", "RBS", "CK", "EK", "CN", "LA", "NE", "UN", "QL", "AS", "BG", "CX",
	"CT", "TK", "MP", "ML", "PK", "NW", "GC", "AX", "SB",
};
static const char *const apple_modules[] = {
	"Swift", "SwiftUI", "Foundation", "UIKit", "Combine", "Dispatch", "ObjectiveC",
	"CoreFoundation", "CoreGraphics", "CoreData", "CoreText", "CoreImage", "CoreLocation",
	"QuartzCore", "AppKit", "Darwin", "os", "OSLog", "Observation", "SwiftData", "AVFoundation",
	"MapKit", "WebKit", "Network", "Metal", "MetalKit", "SpriteKit", "SceneKit", "RealityKit",
	"StoreKit", "GameKit", "HealthKit", "Photos", "PhotosUI", "Contacts", "EventKit",
	"UserNotifications", "WidgetKit", "Charts", "CryptoKit", "Accelerate", "XCTest",
};
static const char *const apple_namespaces[] = {
	"swift", "std", "objc", "dyld", "dyld3", "dyld4", "CA", "CG", "WTF", "JSC", "WebCore",
	"WebKit", "IPC", "Inspector", "llvm", "mach_o", "caulk", "AG", "RB", "os", "xpc", "icu",
};

static bool in_list(const char *s, size_t len, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(list[i]) == len && memcmp(s, list[i], len) == 0)
			return true;
	return false;
}

/* A class or type name s[0..len) of Apple's: "NSThread", "UIApplication", "_UIFoo". */
static bool apple_class(const char *s, size_t len)
{
	if (len > 0 && s[0] == '_')
		return true;
	for (size_t i = 0; i < sizeof apple_prefixes / sizeof *apple_prefixes; i++) {
		size_t n = strlen(apple_prefixes[i]);
		if (len > n && memcmp(s, apple_prefixes[i], n) == 0 && isupper((unsigned char)s[n]))
			return true;
	}
	return false;
}

#define LIST(l) l, sizeof l / sizeof *l

/* Whether the first name of a Swift symbol, s[0..len), is a module or type
 * of the platform's. */
static bool apple_swift_name(const char *s, size_t len)
{
	return in_list(s, len, LIST(apple_modules)) || apple_class(s, len);
}

/* Where the entity a Swift name is about begins: past the last " in " at
 * depth 0 ("closure #1 in Foo.bar()": Foo.bar(); a witness's "... in
 * Module"), as the demangler nests contexts. */
static const char *swift_context(const char *name)
{
	const char *at = name;
	int depth = 0;
	for (const char *p = name; *p; p++) {
		if (*p == '(' || *p == '<' || *p == '[')
			depth++;
		else if ((*p == ')' || (*p == '>' && (p == name || p[-1] != '-')) || *p == ']') && depth)
			depth--;
		else if (depth == 0 && strncmp(p, " in ", 4) == 0)
			at = p + 4;
	}
	return at;
}

/* A demangled Swift name: its entity's first name (module or type) decides;
 * the qualifiers before it ("static", "@objc", "merged", "specialized",
 * "<generic args>") are passed over.  A name with none (a thunk between
 * calling conventions), or a function of no type or module
 * ("swift_job_runImpl(swift::Job*)", C or C++), is the platform's. */
static bool apple_swift(const char *name)
{
	const char *p = swift_context(name);
	static const char ext[] = "(extension in ";
	if (strncmp(p, ext, sizeof ext - 1) == 0) {
		p += sizeof ext - 1;
		return apple_swift_name(p, strcspn(p, ")"));
	}
	if (!strchr(p, ' ')) /* a witness's "... in Module" */
		return apple_swift_name(p, strcspn(p, ".(<:"));
	for (const char *t = p; *t; t += strcspn(t, " "), t += *t == ' ') {
		size_t n = strcspn(t, " ");
		if (!(memchr(t, '.', n) || memchr(t, '(', n)) || strchr("<@#(", *t))
			continue;
		/* "Type.method(...)", "Module.Type.method": its first name;
		 * "function(...)", no type nor module: a C or C++ function */
		size_t head = strcspn(t, "(");
		if (!memchr(t, '.', head))
			return true;
		return apple_swift_name(t, strcspn(t, ".<"));
	}
	return true;
}

/* A mangled Swift name the demangler left alone: "$s12HTAPMKitDemo...":
 * its module is the length-prefixed word after "$s"; a substitution
 * ("$sSS", the standard library) is the platform's. */
static bool apple_mangled_swift(const char *name)
{
	const char *p = name + (name[0] == '_') + 2;
	size_t len = 0;
	while (isdigit((unsigned char)*p) && len < 1000)
		len = len * 10 + (size_t)(*p++ - '0');
	return len == 0 || strnlen(p, len) < len || apple_swift_name(p, len);
}

static bool mangled_swift(const char *name)
{
	const char *p = name + (name[0] == '_');
	return p[0] == '$' && (p[1] == 's' || p[1] == 'S' || p[1] == 'e');
}

/* Whether the readable name of a frame no image places is the platform's. */
static bool apple_name(const char *name)
{
	const char *objc = strstr(name, "-[");
	objc = objc ? objc : strstr(name, "+[");
	if (objc) /* "-[NSRunLoop run]", "__41-[UIApplication _run]_block_invoke" */
		return apple_class(objc + 2, strcspn(objc + 2, " ("));
	if (mangled_swift(name))
		return apple_mangled_swift(name);
	if (name[strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")] == '\0')
		return true; /* a C function: __semwait_signal, nanosleep, UIApplicationMain */
	const char *cc = strstr(name, "::"), *paren = strchr(name, '(');
	if (cc && (!paren || cc < paren)) { /* C++: its outermost namespace */
		const char *ns = cc;
		while (ns > name && ns[-1] != ' ')
			ns--;
		return ns[0] == '_' || in_list(ns, (size_t)(cc - ns), LIST(apple_namespaces));
	}
	return apple_swift(name);
}

/* Whose an iOS frame that no binary image places is: the app's when the
 * report gives its source file (only the app's debug information names
 * one), else by its name; a bare address is the platform's. */
static enum frame_owner frame_owner_unplaced(const hg_frame *f)
{
	if (f->file)
		return OWNER_APP;
	const char *name = f->method ? f->method : f->symbol;
	if (!name || !*name)
		return OWNER_SYSTEM;
	return apple_name(name) ? OWNER_SYSTEM : OWNER_APP;
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

enum frame_owner frame_owner_native(const struct sig *s, const hg_frame *f)
{
	if (s->ios && !f->image)
		return frame_owner_unplaced(f);
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
