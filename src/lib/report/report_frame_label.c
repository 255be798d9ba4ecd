/* One frame's label, the same in every output that names a frame by one
 * string and keys merged trees by it: flame graphs (src/lib/flame/) and
 * the store's merged call trees (src/lib/store/store_tree.c), so that a
 * frame a flame graph draws is the frame `show` lists, under one name. */
#include <inttypes.h>
#include <string.h>

#include "hangar/samples.h"

/* Where pc lies in f's image: the offset the report gave, else pc less the
 * image's load address; an Android pc is an offset already ("#00 pc
 * 00004456  <anonymous:ee137000>").  False when neither is known. */
static bool image_offset(const hg_report *rep, const hg_frame *f, uint64_t *off)
{
	const hg_threads *ts = &rep->threads;
	if (f->has_offset) {
		*off = f->offset;
		return true;
	}
	if (!f->has_pc)
		return false;
	if (f->image_ref && f->image_ref <= ts->n_images) {
		uint64_t load = ts->images[f->image_ref - 1].load_addr;
		*off = f->pc - load;
		return f->pc >= load;
	}
	*off = f->pc;
	return rep->platform && strcmp(rep->platform, "android") == 0;
}

const char *hg_frame_image_base(const char *image, int *len)
{
	const char *base = strrchr(image, '/');
	base = base && base[1] ? base + 1 : image;
	*len = (int)strlen(base);
	if (strncmp(base, "<anonymous:", 11) == 0) {
		*len = 11;
		return "<anonymous>";
	}
	if (image[0] == '[' && base != image && base[*len - 1] == ']')
		--*len;
	return base;
}

static const char *native_label(const hg_report *rep, const hg_frame *f, hg_arena *arena)
{
	const char *rest, *fn = hg_frame_function(f, &rest);
	if (fn && *fn)
		return *rest ? hg_arena_printf(arena, "%s%s", fn, rest) : fn;
	uint64_t off;
	if (f->image && *f->image) {
		int n;
		const char *base = hg_frame_image_base(f->image, &n);
		return image_offset(rep, f, &off)
			       ? hg_arena_printf(arena, "%.*s+0x%" PRIx64, n, base, off)
			       : hg_arena_printf(arena, "%.*s", n, base);
	}
	if (!f->has_pc && f->text && *f->text)
		return f->text; /* no address in it to key by */
	return "???";
}

const char *hg_frame_label(const hg_report *rep, const hg_frame *f, hg_arena *arena)
{
	if (f->kind == HG_FRAME_NATIVE)
		return native_label(rep, f, arena);
	if (f->cls && f->method) {
		/* joined by hand: through printf it cost a microsecond a frame,
		 * 3 % of a big ingest's reading thread */
		size_t c = strlen(f->cls), m = strlen(f->method);
		char *out = hg_arena_alloc(arena, c + m + 2);
		if (!out)
			return NULL;
		memcpy(out, f->cls, c);
		out[c] = '.';
		memcpy(out + c + 1, f->method, m + 1);
		return out;
	}
	if (f->method)
		return f->method;
	return f->text && *f->text ? f->text : "?";
}
