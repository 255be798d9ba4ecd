/* The image table of Android native frames: one hg_image per distinct
 * (path, Build ID) of the "#00 pc" lines of ANR traces, tombstones and
 * xCrash dumps.  Their pcs are already file-relative (debuggerd and ART
 * print rel_pc: pc - map start + the ELF's load bias), so an image has no
 * load address, only its identity. */
#include <string.h>

#include "report_native_image.h"
#include "report_internal.h"

bool native_build_id(const char *g, size_t len, char *out, size_t out_size)
{
	static const char prefix[] = "BuildId: ";
	size_t plen = sizeof prefix - 1;
	if (len <= plen || memcmp(g, prefix, plen) != 0)
		return false;
	size_t n = len - plen;
	if (n > 128 || n % 2 != 0 || n + 1 > out_size)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = g[plen + i];
		if (c >= 'A' && c <= 'F')
			c = (char)(c - 'A' + 'a');
		else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return false;
		out[i] = c;
	}
	out[n] = '\0';
	return true;
}

static bool same(const hg_image *im, const char *path, const char *id)
{
	return strcmp(im->path, path) == 0 &&
	       (im->id == id || (im->id && id && strcmp(im->id, id) == 0));
}

int native_image_ref(hg_report *rep, struct native_images *cache, const char *path,
		     const char *build_id, uint32_t *ref)
{
	hg_threads *ts = &rep->threads;
	uint32_t h = 2166136261u;
	for (const char *p = path; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	for (const char *p = build_id; p && *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	uint32_t *slot = NULL;
	for (size_t probe = 0; probe < 8; probe++) {
		uint32_t *s = &cache->slot[(h + probe) & (NATIVE_IMAGE_SLOTS - 1)];
		if (*s == 0) {
			slot = s;
			break;
		}
		if (*s <= ts->n_images && same(&ts->images[*s - 1], path, build_id)) {
			*ref = *s;
			return 0;
		}
	}
	if (!slot) /* a crowded table: the rare image past it is looked for in full */
		for (size_t i = 0; i < ts->n_images; i++)
			if (same(&ts->images[i], path, build_id)) {
				*ref = (uint32_t)i + 1;
				return 0;
			}
	const char *slash = strrchr(path, '/');
	hg_image im = {.kind = HG_IMAGE_ELF, .path = path, .name = slash && slash[1] ? slash + 1 : path};
	if (build_id && !(im.id = hg_arena_strdup(rep->arena, build_id)))
		return HG_ENOMEM;
	int rc = hg_threads_add_image(ts, rep->arena, &im, ref);
	if (rc == 0 && slot)
		*slot = *ref;
	return rc;
}
