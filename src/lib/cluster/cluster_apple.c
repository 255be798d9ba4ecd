/* Whose an iOS frame that no binary image places is, by its readable name
 * (a report symbolicated before it was sent): Apple's names, and which of
 * them matched (sig_apple_name). */
#include <ctype.h>
#include <string.h>

#include "cluster_internal.h"

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

static const char *const apple_why_text[] = {
	[APPLE_NOT] = "not an Apple name",
	[APPLE_OBJC] = "Apple's Objective-C class",
	[APPLE_MANGLED_SWIFT] = "mangled Swift of Apple's module",
	[APPLE_C_FUNCTION] = "a C function",
	[APPLE_CXX] = "Apple's C++ namespace",
	[APPLE_SWIFT] = "Apple's Swift module or type, or a thunk",
};

const char *sig_apple_why(enum apple_why why)
{
	return apple_why_text[why];
}

enum apple_why sig_apple_name(const char *name)
{
	const char *objc = strstr(name, "-[");
	objc = objc ? objc : strstr(name, "+[");
	if (objc) /* "-[NSRunLoop run]", "__41-[UIApplication _run]_block_invoke" */
		return apple_class(objc + 2, strcspn(objc + 2, " (")) ? APPLE_OBJC : APPLE_NOT;
	if (mangled_swift(name))
		return apple_mangled_swift(name) ? APPLE_MANGLED_SWIFT : APPLE_NOT;
	if (name[strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")] == '\0')
		return APPLE_C_FUNCTION; /* __semwait_signal, nanosleep, UIApplicationMain */
	const char *cc = strstr(name, "::"), *paren = strchr(name, '(');
	if (cc && (!paren || cc < paren)) { /* C++: its outermost namespace */
		const char *ns = cc;
		while (ns > name && ns[-1] != ' ')
			ns--;
		return ns[0] == '_' || in_list(ns, (size_t)(cc - ns), LIST(apple_namespaces))
			       ? APPLE_CXX
			       : APPLE_NOT;
	}
	return apple_swift(name) ? APPLE_SWIFT : APPLE_NOT;
}
