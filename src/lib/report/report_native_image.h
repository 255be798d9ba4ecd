/* The image table of Android native frames (private to the report
 * readers): "#00 pc 000000000004f0a8  /data/app/.../libfoo.so (BuildId:
 * 5e8a...)" names an ELF by path and GNU Build ID; each distinct pair
 * becomes one hg_image of the report (report_native_image.c). */
#ifndef HANGAR_LIB_REPORT_NATIVE_IMAGE_H
#define HANGAR_LIB_REPORT_NATIVE_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "hangar/report.h"

#define NATIVE_IMAGE_SLOTS 256 /* a power of two; more images are searched linearly */

/* Which image refs hold which path, by hash: a dump of 100 threads names
 * the same few dozen libraries thousands of times. */
struct native_images {
	uint32_t slot[NATIVE_IMAGE_SLOTS];
};

/* The Build ID inside a frame's "(BuildId: ...)" group g (g[0..len), the
 * text between the parentheses), lowercased into out (at least 2 * 64 + 1
 * bytes); false when g is no such group or the id is not 1 to 64 bytes of
 * hex. */
bool native_build_id(const char *g, size_t len, char *out, size_t out_size);

/* Sets *ref to the image_ref of the image at path (arena string of rep)
 * with build_id (NULL when the frame gives none), adding it on first use.
 * 0 or HG_ENOMEM. */
int native_image_ref(hg_report *rep, struct native_images *cache, const char *path,
		     const char *build_id, uint32_t *ref);

#endif
