/* Whose a Java class is by its name alone: the platform's (code the
 * device brings), a library's that nearly every app ships, or renamed by
 * R8/ProGuard (so the app's, and needing its mapping.txt).  One list for
 * the signatures (cluster_frames.c), the blocker lines
 * (threads_blocker.c) and the store's variants (store_facts.c). */
#include <ctype.h>
#include <string.h>

#include "hangar/threads.h"

/* The platform: never the app's unless a rule says so (WebView's
 * Chromium is its own APK). */
static const char *const platform_prefixes[] = {
	"android.", "com.android.", "dalvik.", "java.", "javax.", "jdk.", "libcore.", "sun.",
	"org.json.", "org.xml.", "org.w3c.", "org.apache.harmony.", "org.chromium.",
	"J.", /* Chromium's generated JNI bridge, class J.N */
};

/* Libraries nearly every app ships: the app's to run, not its own code. */
static const char *const library_prefixes[] = {
	"androidx.", "kotlin.", "kotlinx.", "com.google.",
};

static const char *prefix_of(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		if (strncmp(s, list[i], strlen(list[i])) == 0)
			return list[i];
	return NULL;
}

const char *hg_java_platform_prefix(const char *cls)
{
	return prefix_of(cls, platform_prefixes, sizeof platform_prefixes / sizeof *platform_prefixes);
}

const char *hg_java_library_prefix(const char *cls)
{
	return prefix_of(cls, library_prefixes, sizeof library_prefixes / sizeof *library_prefixes);
}

/* Its outer simple name is one to three letters or digits ("a", "bQ4",
 * "Nz0"), not an acronym of capitals ("UI", "IO"), which people do write. */
bool hg_java_class_obfuscated(const char *cls)
{
	const char *dot = strrchr(cls, '.');
	const char *simple = dot ? dot + 1 : cls;
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
