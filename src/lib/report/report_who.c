/* Who and where a report comes from, in the words the cluster page groups
 * by: the OS as one label whatever the format wrote ("29", a fingerprint's
 * "10", "iPhone OS 14.5 (18E182)"), the device model (a fingerprint's brand
 * and device), and Matrix's device class as written. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/report.h"

/* Android's API levels and their releases (developer.android.com's
 * "API levels" table): "29" and a fingerprint's "10" are one OS. */
static const struct {
	int api;
	const char *release;
} android_releases[] = {
	{16, "4.1"}, {17, "4.2"}, {18, "4.3"}, {19, "4.4"}, {21, "5.0"}, {22, "5.1"},
	{23, "6.0"}, {24, "7.0"}, {25, "7.1"}, {26, "8.0"}, {27, "8.1"}, {28, "9"},
	{29, "10"},  {30, "11"},  {31, "12"},  {32, "12L"}, {33, "13"},  {34, "14"},
	{35, "15"},  {36, "16"},
};
#define N_RELEASES (sizeof android_releases / sizeof android_releases[0])

static bool all_digits(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* "Android 10 (API 29)" from an API level; "API 99" for one the table
 * does not know. */
static const char *android_from_api(hg_arena *a, int api)
{
	for (size_t i = 0; i < N_RELEASES; i++)
		if (android_releases[i].api == api)
			return hg_arena_printf(a, "Android %s (API %d)", android_releases[i].release,
					       api);
	return hg_arena_printf(a, "API %d", api);
}

/* The same from a release as a fingerprint writes it ("8.1.0", "13"):
 * its major.minor where the table has minors (4.1 to 8.1), else its
 * major; "Android 8.1.0" for one the table does not know. */
static const char *android_from_release(hg_arena *a, const char *rel, size_t n)
{
	size_t major = 0;
	while (major < n && isdigit((unsigned char)rel[major]))
		major++;
	size_t minor = major;
	if (minor < n && rel[minor] == '.')
		for (minor++; minor < n && isdigit((unsigned char)rel[minor]);)
			minor++;
	for (size_t i = 0; major > 0 && i < N_RELEASES; i++) {
		const char *r = android_releases[i].release;
		size_t want = strchr(r, '.') ? minor : major;
		if (strlen(r) == want && strncmp(rel, r, want) == 0)
			return android_from_api(a, android_releases[i].api);
	}
	return hg_arena_printf(a, "Android %.*s", (int)n, rel);
}

/* A build fingerprint: BRAND/PRODUCT/DEVICE:RELEASE/ID/INCREMENTAL:TYPE/TAGS. */
struct fingerprint {
	const char *brand, *device, *release;
	size_t brand_len, device_len, release_len;
};

static bool parse_fingerprint(const char *s, struct fingerprint *fp)
{
	const char *s1 = s ? strchr(s, '/') : NULL;
	const char *s2 = s1 ? strchr(s1 + 1, '/') : NULL;
	const char *colon = s2 ? strchr(s2 + 1, ':') : NULL;
	const char *s3 = colon ? strchr(colon + 1, '/') : NULL;
	if (!s3 || s1 == s || colon == s2 + 1 || s3 == colon + 1 || memchr(s, ' ', (size_t)(s3 - s)))
		return false;
	*fp = (struct fingerprint){s, s2 + 1, colon + 1, (size_t)(s1 - s), (size_t)(colon - s2 - 1),
				   (size_t)(s3 - colon - 1)};
	return true;
}

/* "iPhone OS 14.5 (18E182)" and "iOS 26.1 (25B78)": "iOS 14.5", "iOS 26.1". */
static const char *apple_os(hg_arena *a, const char *os)
{
	const char *name = os;
	size_t skip = 0;
	if (strncmp(os, "iPhone OS ", 10) == 0) {
		name = "iOS";
		skip = 10;
	} else {
		const char *sp = strchr(os, ' ');
		if (!sp)
			return os;
		skip = (size_t)(sp - os) + 1;
	}
	const char *v = os + skip;
	size_t n = strcspn(v, " (");
	size_t name_len = name == os ? skip - 1 : strlen(name);
	return hg_arena_printf(a, "%.*s %.*s", (int)name_len, name, (int)n, v);
}

static const char *os_label(const hg_report *rep, const struct fingerprint *fp, bool has_fp,
			    hg_arena *a)
{
	const char *os = rep->os_version;
	bool android = rep->platform && strcmp(rep->platform, "android") == 0;
	if (os && all_digits(os, strlen(os)) && strlen(os) <= 3)
		return android || has_fp ? android_from_api(a, atoi(os)) : os;
	if (os && *os)
		return android ? os : apple_os(a, os);
	if (has_fp)
		return android_from_release(a, fp->release, fp->release_len);
	return NULL;
}

int hg_report_who_of(const hg_report *rep, hg_arena *arena, hg_report_who *out)
{
	memset(out, 0, sizeof *out);
	struct fingerprint fp;
	bool has_fp = parse_fingerprint(rep->device, &fp);
	out->os = os_label(rep, &fp, has_fp, arena);
	if (has_fp)
		out->model = hg_arena_printf(arena, "%.*s %.*s", (int)fp.brand_len, fp.brand,
					     (int)fp.device_len, fp.device);
	else
		out->model = rep->device && *rep->device ? rep->device : NULL;
	out->device_class = rep->device_class && *rep->device_class ? rep->device_class : NULL;
	if ((has_fp && !out->model) || (rep->os_version && !out->os) ||
	    (has_fp && !rep->os_version && !out->os))
		return HG_ENOMEM;
	return 0;
}
