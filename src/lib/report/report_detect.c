/* Telling text formats apart by their content, never their file name.
 * Each test looks for a marker that only its format writes, within the
 * first lines (dumps can be megabytes; their headers are not).  The order
 * they are tried in is the table's (report_formats.c). */
#include <string.h>

#include "report_bare_stack.h"
#include "report_internal.h"

bool report_has_line_starting(const char *text, size_t len, const char *prefix)
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

bool report_contains(const char *text, size_t len, const char *needle)
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

/* ART's SIGQUIT dump: "----- pid N at ...", "DALVIK THREADS", or thread
 * headers like "main" prio=5 tid=1 / "main" sysTid=. */
bool report_detect_anr_traces(const char *head, size_t len)
{
	return report_has_line_starting(head, len, "----- pid ") ||
	       report_has_line_starting(head, len, "DALVIK THREADS") ||
	       report_has_line_starting(head, len, "----- Waiting Channels: pid ") ||
	       report_contains(head, len, "\" prio=") || report_contains(head, len, "\" sysTid=");
}

/* BlockCanary's "key = value" header. */
bool report_detect_blockcanary(const char *head, size_t len)
{
	return report_has_line_starting(head, len, "qua = ") ||
	       report_has_line_starting(head, len, "cpu-busy = ") ||
	       report_has_line_starting(head, len, "thread-time = ") ||
	       report_has_line_starting(head, len, "api-level = ") ||
	       report_has_line_starting(head, len, "timecost = ") ||
	       report_has_line_starting(head, len, "cpurate = ");
}

/* Java frames: "at a.b.C.m(...)", also behind a logcat prefix
 * ("... E AndroidRuntime: \tat a.b.C.m(...)"). */
bool report_detect_java_stack(const char *head, size_t len)
{
	return report_has_line_starting(head, len, "at ") || report_contains(head, len, "\tat ") ||
	       report_contains(head, len, ":   at ") || report_contains(head, len, ": at ");
}
