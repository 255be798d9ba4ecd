/* Whether a methodMapping holds classes of a package: what tells another
 * app's mapping from the app's own (hg_report_mapping_fit in report.h),
 * when a report's ids happen to name none of the app's classes. */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mapping_internal.h"

#define SCAN_CHUNK ((size_t)1 << 20)

/* Whether text[0..len) holds needle ("com.example.") where a class name
 * starts: after the comma of the access flags, or the blanks after it.
 * (In a descriptor a class follows 'L', and a method name has no dot.) */
static bool holds(const char *text, size_t len, const char *needle, size_t n)
{
	for (const char *p = text, *end = text + len;
	     p < end && (p = memmem(p, (size_t)(end - p), needle, n)) != NULL; p++)
		if (p > text && (p[-1] == ',' || mapping_is_blank(p[-1])))
			return true;
	return false;
}

/* The file a chunk at a time; the last n bytes of a chunk are kept before
 * the next, so that a needle cut by a chunk's end (and the byte before
 * it) is seen whole. */
static bool file_holds(const hg_mapping *m, const char *needle, size_t n)
{
	char *buf = malloc(SCAN_CHUNK);
	if (!buf)
		return true;
	bool found = false, failed = false;
	size_t keep = 0;
	for (size_t at = 0; at < m->len && !found;) {
		ssize_t got = pread(m->fd, buf + keep, SCAN_CHUNK - keep, (off_t)at);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			failed = got < 0;
			break;
		}
		size_t len = keep + (size_t)got;
		found = holds(buf, len, needle, n);
		at += (size_t)got;
		keep = n < len ? n : len;
		memmove(buf, buf + len - keep, keep);
	}
	free(buf);
	return found || failed;
}

bool hg_mapping_has_package(const hg_mapping *m, const char *package, size_t len)
{
	if (!m || !package || len == 0)
		return true;
	struct hg_mapping *w = (struct hg_mapping *)m; /* only the cache changes */
	for (size_t i = 0; i < w->n_packages; i++)
		if (strlen(w->packages[i].name) == len && memcmp(w->packages[i].name, package, len) == 0)
			return w->packages[i].has;
	char *needle = malloc(len + 2);
	if (!needle)
		return true;
	memcpy(needle, package, len);
	needle[len] = '.';
	needle[len + 1] = '\0';
	bool has = m->fd < 0 ? holds(m->data, m->len, needle, len + 1)
			     : file_holds(m, needle, len + 1);
	free(needle);
	if (len < sizeof w->packages[0].name) {
		size_t n = sizeof w->packages / sizeof w->packages[0];
		struct package_memo *slot = &w->packages[w->n_packages < n ? w->n_packages++
									   : len % n];
		memcpy(slot->name, package, len);
		slot->name[len] = '\0';
		slot->has = has;
	}
	return has;
}
