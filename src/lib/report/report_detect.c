/* Telling text formats apart by their content, never their file name.
 * Each test looks for a marker that only its format writes, within the
 * first lines (dumps can be megabytes; their headers are not). */
#include <string.h>

#include "report_bare_stack.h"
#include "report_internal.h"

#define HEAD ((size_t)64 << 10) /* how much of the input the markers are looked for in */

/* Whether some line of text[0..len) starts (after blanks) with prefix. */
static bool has_line_starting(const char *text, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);
	for (const char *p = text, *end = text + len; p < end;) {
		const char *s = p;
		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
		if ((size_t)(end - s) >= n && memcmp(s, prefix, n) == 0)
			return true;
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	return false;
}

static bool contains(const char *text, size_t len, const char *needle)
{
	size_t n = strlen(needle);
	for (const char *p = text; len >= n && (p = memchr(p, needle[0], len - n + 1));) {
		if (memcmp(p, needle, n) == 0)
			return true;
		len -= (size_t)(p - text) + 1;
		text = ++p;
	}
	return false;
}

enum hg_input_format report_detect_text(const char *text, size_t len)
{
	size_t head = len < HEAD ? len : HEAD;
	/* ART's SIGQUIT dump: "----- pid N at ...", "DALVIK THREADS", or
	 * thread headers like "main" prio=5 tid=1 / "main" sysTid=. */
	if (has_line_starting(text, head, "----- pid ") || has_line_starting(text, head, "DALVIK THREADS") ||
	    has_line_starting(text, head, "----- Waiting Channels: pid ") ||
	    contains(text, head, "\" prio=") || contains(text, head, "\" sysTid="))
		return HG_FORMAT_ANR_TRACES;
	/* BlockCanary's "key = value" header. */
	if (has_line_starting(text, head, "qua = ") || has_line_starting(text, head, "cpu-busy = ") ||
	    has_line_starting(text, head, "thread-time = ") || has_line_starting(text, head, "api-level = ") ||
	    has_line_starting(text, head, "timecost = ") || has_line_starting(text, head, "cpurate = "))
		return HG_FORMAT_BLOCKCANARY;
	/* Matrix's printed stack blocks (also a LooperAnrTracer block, whose
	 * main-thread frames alone would pass for a Java dump), or nothing but
	 * depth,id,count,cost lines (report_bare_lines.c). */
	if (bare_stack_detect(text, len))
		return HG_FORMAT_STACK;
	/* Java frames: "at a.b.C.m(...)", also behind a logcat prefix
	 * ("... E AndroidRuntime: \tat a.b.C.m(...)"). */
	if (has_line_starting(text, head, "at ") || contains(text, head, "\tat ") ||
	    contains(text, head, ":   at ") || contains(text, head, ": at "))
		return HG_FORMAT_JAVA_STACK;
	return HG_FORMAT_AUTO;
}
