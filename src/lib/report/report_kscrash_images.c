/* The binary images of a KSCrash report (private to report_kscrash.c):
 * each image's address range, name, path and UUID, sorted by address so
 * that every frame is placed by its pc (report_kscrash_threads.c); an
 * image whose image_addr or image_size makes no range is refused with a
 * warning naming it, and the rest read.  An image's crash_info messages
 * (Swift's fatal errors, AppKit's last words) become header lines. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_kscrash_internal.h"

#define MAX_PATH 160
#define CRASH_INFOS 16 /* crash_info messages shown; a report may give one per image */

/* A string of the report, shared with its other copies. */
static const char *cached(struct kx *k, const char *s)
{
	return s ? strcache_get(&k->strs, s, strlen(s)) : NULL;
}

static int image_cmp(const void *a, const void *b)
{
	const struct image *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* An image's image_addr or image_size, bit-exact from the number's digits
 * (a double rounds 2^64-1 up to 2^64).  A frame's address may be written
 * negative (Matrix's int64 writer; a pointer-signed return address), but
 * an image lies in user space, below 2^63, even written through int64: a
 * negative one is no image.  NULL and *out set, or why the number is no
 * address or size ("is negative", ...). */
const char *kscrash_image_number(const char *s, size_t len, uint64_t *out)
{
	if (memchr(s, '.', len) || memchr(s, 'e', len) || memchr(s, 'E', len))
		return "is not an integer";
	bool negative = len > 0 && s[0] == '-';
	size_t i = negative;
	uint64_t v = 0;
	bool big = false;
	for (; i < len; i++) { /* the JSON reader let only digits through */
		unsigned d = (unsigned)(s[i] - '0');
		big |= v > (UINT64_MAX - d) / 10;
		v = v * 10 + d;
	}
	if (negative && (v != 0 || big)) /* "-0" is 0 */
		return "is negative";
	if (big)
		return "does not fit in 64 bits";
	*out = v;
	return NULL;
}

/* At most this many images refused one by one; the rest are counted. */
#define IMAGE_WARNINGS 10

/* Names an image in a warning: its name's last part, else its UUID (at
 * most 100 bytes of either). */
static void image_label(const hg_json *e, char *out, size_t size)
{
	const char *name = hg_json_string(report_member(e, "name"));
	const char *slash = name ? strrchr(name, '/') : NULL;
	const char *label = name ? (slash && slash[1] ? slash + 1 : name)
				 : hg_json_string(report_member(e, "uuid"));
	size_t n = label ? strnlen(label, 101) : 0;
	if (!label)
		out[0] = '\0';
	else
		snprintf(out, size, " \"%.*s%s\"", (int)(n > 100 ? 97 : n), label, n > 100 ? "..." : "");
}

/* One image's range into *addr and *size: 0 with *ok, or a warning naming
 * the image and the field (the first IMAGE_WARNINGS of the report; *refused
 * counts them all) and *ok false.  A number of the wrong type (a string,
 * ...) fails the report as every field of another type does.  A range may
 * end exactly at 2^64. */
static int image_range(struct kx *k, const hg_json *e, const char *where, size_t *refused,
		       uint64_t *addr, uint64_t *size, bool *ok)
{
	static const char *const keys[2] = {"image_addr", "image_size"};
	uint64_t *vals[2] = {addr, size};
	const char *text[2] = {NULL, NULL}, *why = NULL;
	size_t len[2] = {0, 0};
	int bad = 1; /* which field the warning names */
	*ok = false;
	for (int i = 0; i < 2; i++) {
		const hg_json *v = report_member(e, keys[i]);
		if (v && hg_json_type(v) != HG_JSON_NUMBER)
			return report_bad_field(&k->f, where, keys[i], v, "an unsigned 64-bit integer");
		if (v)
			hg_json_number_text(k->f.doc, v, &text[i], &len[i]);
	}
	if (!text[0] || !text[1])
		return 0; /* an image without its range is no image, as ever */
	for (int i = 0; i < 2 && !why; i++)
		if ((why = kscrash_image_number(text[i], len[i], vals[i])) != NULL)
			bad = i;
	if (!why && *size == 0)
		why = "makes it empty";
	else if (!why && *addr != 0 && *size > (uint64_t)0 - *addr)
		why = "wraps past 2^64";
	*ok = why == NULL;
	if (*ok || (*refused)++ >= IMAGE_WARNINGS)
		return 0;
	char label[112];
	image_label(e, label, sizeof label);
	bool cut = len[bad] > 40;
	return hg_strlist_addf(&k->rep->warnings, k->rep->arena, "%s%s: %s %.*s%s %s; image ignored",
			       where, label, keys[bad], (int)(cut ? 37 : len[bad]), text[bad],
			       cut ? "..." : "", why) != 0 ? HG_ENOMEM : 0;
}

/* An image's crash_info_message and crash_info_message2 (what a library
 * said as the process died, as Apple's reports show under "Application
 * Specific Information": Swift's "file:line: Fatal error: ..."), each a
 * header line "crash info", "image: message" (its trailing newline off);
 * the first CRASH_INFOS of the report, the rest counted. */
static int crash_info(struct kx *k, const hg_json *e, const char *where, const char *name)
{
	static const char *const keys[] = {"crash_info_message", "crash_info_message2"};
	for (size_t i = 0; i < 2; i++) {
		const char *msg;
		int rc = kscrash_soft_string(k, e, where, keys[i], &msg);
		if (rc != 0)
			return rc;
		size_t len = msg ? strlen(msg) : 0;
		while (len > 0 && (msg[len - 1] == '\n' || msg[len - 1] == '\r' || msg[len - 1] == ' '))
			len--;
		if (len == 0 || k->crash_infos++ >= CRASH_INFOS)
			continue;
		const char *slash = name ? strrchr(name, '/') : NULL;
		const char *line = hg_arena_printf(k->rep->arena, "%s%s%.*s", name ? slash ? slash + 1 : name
									  : "",
						   name ? ": " : "", (int)(len > INT_MAX ? INT_MAX : len),
						   msg);
		if (!line || hg_report_add_stat(k->rep, "header", "crash info", line) != 0)
			return HG_ENOMEM;
	}
	return 0;
}

int kscrash_read_images(struct kx *k, const hg_json *root, const char *prefix)
{
	const hg_json *arr;
	char top[32];
	snprintf(top, sizeof top, "%.*s", (int)(*prefix ? strlen(prefix) - 1 : 0), prefix);
	int rc = report_get_array(&k->f, root, top, "binary_images", &arr);
	size_t n = hg_json_count(arr);
	if (rc != 0 || n == 0)
		return rc;
	struct image *img = hg_arena_calloc(k->rep->arena, n, sizeof *img);
	if (!img)
		return HG_ENOMEM;
	size_t i = 0, kept = 0, refused = 0;
	char where[MAX_PATH];
	for (const hg_json *e = hg_json_first(arr); e; e = hg_json_next(e), i++) {
		snprintf(where, sizeof where, "%sbinary_images[%zu]", prefix, i);
		if (hg_json_type(e) != HG_JSON_OBJECT)
			return report_bad_field(&k->f, where, "", e, "an object");
		uint64_t addr = 0, size = 0, vmaddr;
		bool ok, has_vmaddr;
		const char *name, *uuid;
		if ((rc = report_get_u64(&k->f, e, where, "image_vmaddr", &vmaddr, &has_vmaddr)) != 0 ||
		    (rc = report_get_string(&k->f, e, where, "name", &name)) != 0 ||
		    (rc = report_get_string(&k->f, e, where, "uuid", &uuid)) != 0 ||
		    (rc = image_range(k, e, where, &refused, &addr, &size, &ok)) != 0 ||
		    (rc = crash_info(k, e, where, name)) != 0)
			return rc;
		if (!ok || !name)
			continue;
		const char *slash = strrchr(name, '/');
		img[kept] = (struct image){.addr = addr, .size = size, .vmaddr = has_vmaddr ? vmaddr : 0};
		if (!(img[kept].name = cached(k, slash ? slash + 1 : name)) ||
		    !(img[kept].path = cached(k, name)) || (uuid && !(img[kept].uuid = cached(k, uuid))))
			return HG_ENOMEM;
		kept++;
	}
	if (k->crash_infos > CRASH_INFOS &&
	    hg_strlist_addf(&k->rep->warnings, k->rep->arena, "%zu more crash_info messages of "
			    "binary_images left out", k->crash_infos - CRASH_INFOS) != 0)
		return HG_ENOMEM;
	if (refused > IMAGE_WARNINGS &&
	    hg_strlist_addf(&k->rep->warnings, k->rep->arena, "%zu more binary_images have an "
			    "image_addr or image_size that is no range; images ignored",
			    refused - IMAGE_WARNINGS) != 0)
		return HG_ENOMEM;
	qsort(img, kept, sizeof *img, image_cmp);
	k->images = img;
	k->n_images = kept;
	return 0;
}

/* Images do not overlap in a real process; when a report says they do,
 * the nearest few starting below pc are tried. */
struct image *kscrash_find_image(const struct kx *k, uint64_t pc)
{
	size_t lo = 0, hi = k->n_images;
	while (lo < hi) { /* first image starting above pc */
		size_t mid = lo + (hi - lo) / 2;
		if (k->images[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo, tries = 0; i > 0 && tries < 8; i--, tries++)
		if (pc - k->images[i - 1].addr < k->images[i - 1].size)
			return &k->images[i - 1];
	return NULL;
}

int kscrash_image_ref(struct kx *k, struct image *img, uint32_t *ref)
{
	if (!img->ref) {
		hg_image out = {.kind = HG_IMAGE_MACHO, .name = img->name, .path = img->path,
				.id = img->uuid, .load_addr = img->addr, .vmaddr = img->vmaddr,
				.size = img->size, .has_load_addr = true};
		int rc = hg_threads_add_image(&k->rep->threads, k->rep->arena, &out, &img->ref);
		if (rc != 0)
			return rc;
	}
	*ref = img->ref;
	return 0;
}
