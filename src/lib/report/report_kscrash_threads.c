/* The threads of a KSCrash report (private to report_kscrash.c): each
 * thread's backtrace as native frames, every one placed by its address in
 * the report's binary images.  The report's own object_name/symbol_name
 * are kept only when object_name is the image that holds the address: the
 * device gets them wrong (KSCrash 3.7's hang report names 54 frames of
 * SwiftUI, UIKitCore and Foundation "libobjc.A.dylib (GCC_except_table763)"
 * at 0x59d4f428 into a 250 KB image), and a symbol of the wrong image is
 * worse than none.  Each disagreement is counted into one warning.  An
 * image whose image_addr or image_size makes no range is refused, each
 * with a warning naming it: its frames are then placed as frames no image
 * holds, and the rest of the report is read.
 * Matrix-iOS's representative stack, a thread named "HandledThread" or one
 * whose frames carry repeat_count, is marked `handled` for the blame rules. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_kscrash_internal.h"

#define HANDLED_THREAD "HandledThread"
#define MAX_PATH 160

/* One binary image of binary_images. */
struct image {
	uint64_t addr, size; /* [addr, addr + size), which may end at 2^64 */
	uint64_t vmaddr;
	const char *name;   /* basename, in the arena */
	const char *path;   /* as written, in the arena */
	const char *uuid;   /* in the arena; may be NULL */
	uint32_t ref;       /* its hg_frame.image_ref once a frame lies in it; 0 */
};

/* Counts n more threads or frames against --max-stack-lines. */
static int count_frames(struct kx *k, size_t n, const char *where)
{
	size_t max = k->ctx->limits.max_stack_lines;
	if (n <= max && k->frames <= max - n) {
		k->frames += n;
		return 0;
	}
	report_fail(k->f.err, NO_OFFSET, "field \"%s\": more than %zu threads and frames in the "
		    "report, over the limit (see --max-stack-lines)", where, max);
	return HG_ELIMIT;
}

/* A string of the report, shared with its other copies. */
static const char *cached(struct kx *k, const char *s)
{
	return s ? strcache_get(&k->strs, s, strlen(s)) : NULL;
}

/* ---- binary images ---- */

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
static const char *image_number(const char *s, size_t len, uint64_t *out)
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
		if ((why = image_number(text[i], len[i], vals[i])) != NULL)
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

int kscrash_read_images(struct kx *k, const hg_json *root)
{
	const hg_json *arr;
	int rc = report_get_array(&k->f, root, "", "binary_images", &arr);
	size_t n = hg_json_count(arr);
	if (rc != 0 || n == 0)
		return rc;
	struct image *img = hg_arena_calloc(k->rep->arena, n, sizeof *img);
	if (!img)
		return HG_ENOMEM;
	size_t i = 0, kept = 0, refused = 0;
	char where[MAX_PATH];
	for (const hg_json *e = hg_json_first(arr); e; e = hg_json_next(e), i++) {
		snprintf(where, sizeof where, "binary_images[%zu]", i);
		if (hg_json_type(e) != HG_JSON_OBJECT)
			return report_bad_field(&k->f, where, "", e, "an object");
		uint64_t addr = 0, size = 0, vmaddr;
		bool ok, has_vmaddr;
		const char *name, *uuid;
		if ((rc = report_get_u64(&k->f, e, where, "image_vmaddr", &vmaddr, &has_vmaddr)) != 0 ||
		    (rc = report_get_string(&k->f, e, where, "name", &name)) != 0 ||
		    (rc = report_get_string(&k->f, e, where, "uuid", &uuid)) != 0 ||
		    (rc = image_range(k, e, where, &refused, &addr, &size, &ok)) != 0)
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

/* The image holding pc, or NULL.  Images do not overlap in a real process;
 * when a report says they do, the nearest few starting below pc are tried. */
static struct image *find_image(const struct kx *k, uint64_t pc)
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

/* ---- frames and threads ---- */

/* "libfoo.dylib 0x00000001a2b3c4d0 symbol + 12", as Apple's crash reports
 * print a frame; "0x1a2b3c000 + 1234" in place of an unknown symbol.
 * snprintf's contract: the length of the whole text, or negative. */
static int format_frame(char *out, size_t size, const hg_frame *f, bool has_sym_addr,
			uint64_t sym_addr)
{
	const char *image = f->image ? f->image : "???";
	if (!f->has_pc)
		return snprintf(out, size, "%s %s", image, f->symbol ? f->symbol : "?");
	if (f->symbol && has_sym_addr && sym_addr <= f->pc)
		return snprintf(out, size, "%s 0x%016" PRIx64 " %s + %" PRIu64, image, f->pc,
				f->symbol, f->pc - sym_addr);
	if (f->symbol)
		return snprintf(out, size, "%s 0x%016" PRIx64 " %s", image, f->pc, f->symbol);
	if (f->has_offset)
		return snprintf(out, size, "%s 0x%016" PRIx64 " 0x%" PRIx64 " + %" PRIu64, image,
				f->pc, f->pc - f->offset, f->offset);
	return snprintf(out, size, "%s 0x%016" PRIx64, image, f->pc);
}

/* The frame's text, shared with every frame that reads the same (threads
 * of one process run through the same code); NULL on ENOMEM. */
static const char *frame_text(struct kx *k, const hg_frame *f, bool has_sym_addr,
			      uint64_t sym_addr)
{
	char buf[512];
	int n = format_frame(buf, sizeof buf, f, has_sym_addr, sym_addr);
	if (n < 0)
		return NULL;
	if ((size_t)n < sizeof buf)
		return strcache_get(&k->strs, buf, (size_t)n);
	char *text = hg_arena_alloc(k->rep->arena, (size_t)n + 1); /* a long symbol */
	if (text && format_frame(text, (size_t)n + 1, f, has_sym_addr, sym_addr) != n)
		return NULL;
	return text;
}

/* The report's hg_image for img, added when its first frame is placed. */
static int image_ref(struct kx *k, struct image *img, uint32_t *ref)
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

/* Whether the report's own names fit the image that holds pc: object_name
 * is that image (object_addr its load address), and symbol_addr lies in it
 * at or below pc. */
static bool names_agree(const struct image *img, uint64_t pc, const char *obj_name, bool has_obj,
			uint64_t obj_addr, bool has_sym, uint64_t sym_addr)
{
	if (obj_name) {
		const char *slash = strrchr(obj_name, '/');
		if (strcmp(slash ? slash + 1 : obj_name, img->name) != 0)
			return false;
	}
	if (has_obj && obj_addr != img->addr)
		return false;
	return !has_sym || (sym_addr >= img->addr && sym_addr <= pc);
}

/* Counts a frame whose report names disagree with its image; the first
 * one is the warning's example. */
static int disagree(struct kx *k, const char *where, const struct image *img, uint64_t pc,
		    const char *obj_name, const char *sym)
{
	if (k->disagree++ > 0)
		return 0;
	k->disagree_example = hg_arena_printf(k->rep->arena, "%s: 0x%" PRIx64 " is %s +0x%" PRIx64
					      ", the report says %s (%s)", where, pc, img->name,
					      pc - img->addr, obj_name ? obj_name : "no image",
					      sym ? sym : "no symbol");
	return k->disagree_example ? 0 : HG_ENOMEM;
}

/* Places f (pc set) by its address; *sym and *has_sym are dropped when the
 * report's names disagree.  Returns 1 when no image holds pc. */
static int place_frame(struct kx *k, hg_frame *f, const char *where, const char *obj_name,
		       bool has_obj, uint64_t obj_addr, const char **sym, bool *has_sym,
		       uint64_t sym_addr)
{
	struct image *img = find_image(k, f->pc);
	if (!img)
		return 1;
	int rc = image_ref(k, img, &f->image_ref);
	if (rc != 0)
		return rc;
	f->image = img->name;
	f->has_offset = true;
	f->offset = f->pc - img->addr;
	if ((obj_name || *sym) &&
	    !names_agree(img, f->pc, obj_name, has_obj, obj_addr, *has_sym, sym_addr)) {
		if ((rc = disagree(k, where, img, f->pc, obj_name, *sym)) != 0)
			return rc;
		*sym = NULL;
		*has_sym = false;
	}
	return 0;
}

static int read_frame(struct kx *k, const hg_json *e, const char *where, hg_thread *t,
		      bool *repeats)
{
	if (hg_json_type(e) != HG_JSON_OBJECT)
		return report_bad_field(&k->f, where, "", e, "an object");
	uint64_t pc, obj_addr, sym_addr;
	bool has_pc, has_obj, has_sym, has_repeat;
	const char *sym, *obj_name, *file;
	long repeat = 1, line = -1;
	bool has_line;
	int rc;
	if ((rc = report_get_u64(&k->f, e, where, "instruction_addr", &pc, &has_pc)) != 0 ||
	    (rc = report_get_u64(&k->f, e, where, "object_addr", &obj_addr, &has_obj)) != 0 ||
	    (rc = report_get_u64(&k->f, e, where, "symbol_addr", &sym_addr, &has_sym)) != 0 ||
	    (rc = report_get_string(&k->f, e, where, "object_name", &obj_name)) != 0 ||
	    (rc = report_get_string(&k->f, e, where, "symbol_name", &sym)) != 0 ||
	    (rc = report_get_count(&k->f, e, where, "repeat_count", &repeat, &has_repeat)) != 0 ||
	    (rc = report_get_string(&k->f, e, where, "source_file", &file)) != 0 ||
	    (rc = report_get_count(&k->f, e, where, "source_line", &line, &has_line)) != 0)
		return rc;
	hg_frame *f = hg_thread_add_frame(t, k->rep->arena);
	if (!f)
		return HG_ENOMEM;
	f->kind = HG_FRAME_NATIVE;
	f->has_pc = has_pc;
	f->pc = pc;
	f->repeat = repeat;
	*repeats |= has_repeat;
	rc = has_pc ? place_frame(k, f, where, obj_name, has_obj, obj_addr, &sym, &has_sym, sym_addr)
		    : 1;
	if (rc < 0)
		return rc;
	if (rc == 1 && obj_name && has_obj) { /* no image holds it: the report's word */
		f->image = cached(k, obj_name);
		f->has_offset = has_pc && pc >= obj_addr;
		f->offset = f->has_offset ? pc - obj_addr : 0;
	} else if (rc == 1) {
		f->image = cached(k, obj_name);
	}
	f->symbol = f->method = cached(k, sym);
	/* A symbolicated report's own source position (the article's
	 * "HTHangValidation.swift" line 379): kept, and shown beside the frame. */
	f->file = cached(k, file);
	f->line = has_line ? line : -1;
	f->text = frame_text(k, f, has_sym, sym_addr);
	if ((obj_name && !f->image) || (sym && !f->symbol) || (file && !f->file) || !f->text)
		return HG_ENOMEM;
	return 0;
}

/* A bare instruction address (a representative stack written as numbers):
 * a frame with only its pc, placed as a backtrace's frames are. */
static int read_address(struct kx *k, const hg_json *e, const char *where, hg_thread *t)
{
	const char *s = NULL;
	size_t len = 0;
	uint64_t pc = 0;
	hg_json_number_text(k->f.doc, e, &s, &len);
	/* written through int64_t, as Matrix writes addresses: two's complement */
	bool negative = s && len > 1 && s[0] == '-';
	if (!s || image_number(s + negative, len - negative, &pc) != NULL ||
	    (negative && pc > (uint64_t)1 << 63))
		return report_bad_field(&k->f, where, "", e, "a frame object or an address");
	pc = negative ? (uint64_t)0 - pc : pc;
	hg_frame *f = hg_thread_add_frame(t, k->rep->arena);
	if (!f)
		return HG_ENOMEM;
	f->kind = HG_FRAME_NATIVE;
	f->has_pc = true;
	f->pc = pc;
	const char *sym = NULL;
	bool has_sym = false;
	int rc = place_frame(k, f, where, NULL, false, 0, &sym, &has_sym, 0);
	if (rc < 0)
		return rc;
	f->text = frame_text(k, f, false, 0);
	return f->text ? 0 : HG_ENOMEM;
}

int kscrash_read_frame(struct kx *k, const hg_json *e, const char *where, hg_thread *t)
{
	bool repeats = false;
	return read_frame(k, e, where, t, &repeats);
}

/* One element of a contents array: a frame object, or with `addresses`
 * also a bare instruction address. */
static int read_element(struct kx *k, const hg_json *e, const char *where, hg_thread *t,
			bool addresses, bool *repeats)
{
	if (addresses && hg_json_type(e) == HG_JSON_NUMBER)
		return read_address(k, e, where, t);
	if (addresses && hg_json_type(e) != HG_JSON_OBJECT)
		return report_bad_field(&k->f, where, "", e, "a frame object or an address");
	return read_frame(k, e, where, t, repeats);
}

int kscrash_read_contents(struct kx *k, const hg_json *contents, const char *where, size_t ti,
			  bool addresses, bool *repeats)
{
	char fwhere[MAX_PATH + 48];
	size_t n = 0;
	bool lazy = contents && hg_json_lazy_count(k->f.doc, contents, &n) == 0;
	if (!lazy)
		n = hg_json_count(contents);
	int rc = count_frames(k, n, where);
	if (rc != 0)
		return rc;
	if (hg_thread_reserve_frames(&k->rep->threads.items[ti], k->rep->arena, n) != 0)
		return HG_ENOMEM;
	if (lazy) {
		/* One frame's document at a time (json.h): read, copied into the
		 * arena, destroyed. */
		for (size_t j = 0; j < n; j++) {
			snprintf(fwhere, sizeof fwhere, "%s[%zu]", where, j);
			hg_json_doc *frame = NULL;
			rc = hg_json_lazy_element(k->f.doc, contents, j, &frame);
			if (rc == HG_ENOMEM)
				return rc;
			if (rc != 0)
				return report_fail(k->f.err, NO_OFFSET, "field \"%s\": invalid JSON", fwhere);
			struct json_fields whole = k->f;
			k->f.doc = frame;
			rc = read_element(k, hg_json_root(frame), fwhere, &k->rep->threads.items[ti],
					  addresses, repeats);
			k->f = whole;
			hg_json_doc_destroy(frame);
			if (rc != 0)
				return rc;
		}
		return 0;
	}
	size_t j = 0;
	for (const hg_json *e = hg_json_first(contents); e; e = hg_json_next(e), j++) {
		snprintf(fwhere, sizeof fwhere, "%s[%zu]", where, j);
		if ((rc = read_element(k, e, fwhere, &k->rep->threads.items[ti], addresses, repeats)) != 0)
			return rc;
	}
	return 0;
}

int kscrash_read_backtrace(struct kx *k, const hg_json *th, const char *where, size_t ti,
			   bool *repeats)
{
	char bwhere[MAX_PATH], fwhere[MAX_PATH + 48];
	const hg_json *bt, *contents;
	long skipped = 0;
	bool has_skipped;
	snprintf(bwhere, sizeof bwhere, "%s.backtrace", where);
	int rc = report_get_object(&k->f, th, where, "backtrace", &bt);
	if (rc == 0)
		rc = report_get_array(&k->f, bt, bwhere, "contents", &contents);
	if (rc == 0)
		rc = report_get_count(&k->f, bt, bwhere, "skipped", &skipped, &has_skipped);
	if (rc != 0)
		return rc;
	snprintf(fwhere, sizeof fwhere, "%s.contents", bwhere);
	if ((rc = kscrash_read_contents(k, contents, fwhere, ti, false, repeats)) != 0)
		return rc;
	if (skipped > 0 &&
	    hg_strlist_addf(&k->rep->warnings, k->rep->arena, "%s: KSCrash skipped %ld frames "
			    "(the stack overflowed)", where, skipped) != 0)
		return HG_ENOMEM;
	return 0;
}

static bool is_main_queue(const char *queue)
{
	/* KSCrash 2.0 cut the first four bytes of queue labels. */
	return queue && (strcmp(queue, "com.apple.main-thread") == 0 ||
			 strcmp(queue, "apple.main-thread") == 0);
}

static int read_thread(struct kx *k, const hg_json *th, const char *where, struct thread_info *info)
{
	if (hg_json_type(th) != HG_JSON_OBJECT)
		return report_bad_field(&k->f, where, "", th, "an object");
	const char *name, *queue, *state;
	long index = -1;
	bool has_index;
	int rc;
	if ((rc = report_get_string(&k->f, th, where, "name", &name)) != 0 ||
	    (rc = report_get_string(&k->f, th, where, "dispatch_queue", &queue)) != 0 ||
	    (rc = report_get_string(&k->f, th, where, "state", &state)) != 0 ||
	    (rc = report_get_count(&k->f, th, where, "index", &index, &has_index)) != 0 ||
	    (rc = report_get_bool(&k->f, th, where, "crashed", &info->crashed)) != 0 ||
	    (rc = report_get_bool(&k->f, th, where, "current_thread", &info->current)) != 0)
		return rc;
	if ((rc = count_frames(k, 1, where)) != 0)
		return rc;
	hg_thread *t = hg_threads_add(&k->rep->threads, k->rep->arena);
	if (!t)
		return HG_ENOMEM;
	size_t ti = k->rep->threads.n - 1;
	info->handled = name && strcmp(name, HANDLED_THREAD) == 0;
	info->main_queue = is_main_queue(queue);
	info->main_name = name && strcmp(name, "main") == 0;
	info->index = has_index ? index : -1;
	/* Matrix writes index 0 for its representative stack, which is no
	 * real thread: no tid, so that it is not taken for thread 0. */
	t->tid = info->handled ? -1 : info->index;
	t->name = kscrash_dup(k, name ? name : queue); /* a queue label names a nameless thread */
	t->state = kscrash_dup(k, state);
	if (((name || queue) && !t->name) || (state && !t->state))
		return HG_ENOMEM;
	bool repeats = false;
	if ((rc = kscrash_read_backtrace(k, th, where, ti, &repeats)) != 0)
		return rc;
	info->handled |= repeats;
	return 0;
}

/* One warning for every frame whose report names binary_images contradicts. */
static int warn_disagreements(struct kx *k)
{
	if (k->disagree == 0)
		return 0;
	return hg_strlist_addf(&k->rep->warnings, k->rep->arena, "%zu frame%s name%s another image "
			       "or symbol than binary_images places %s in; the report's object_name "
			       "and symbol_name are not used for %s (e.g. %s)", k->disagree,
			       k->disagree == 1 ? "" : "s", k->disagree == 1 ? "s" : "",
			       k->disagree == 1 ? "it" : "them", k->disagree == 1 ? "it" : "them",
			       k->disagree_example) != 0 ? HG_ENOMEM : 0;
}

int kscrash_read_threads(struct kx *k, const hg_json *crash, struct thread_info **info)
{
	const hg_json *threads, *one = NULL;
	int rc = report_get_array(&k->f, crash, "crash", "threads", &threads);
	if (rc == 0 && !threads)
		rc = report_get_object(&k->f, crash, "crash", "crashed_thread", &one);
	if (rc != 0)
		return rc;
	size_t n = threads ? hg_json_count(threads) : one != NULL;
	*info = hg_arena_calloc(k->rep->arena, n ? n : 1, sizeof **info);
	if (!*info)
		return HG_ENOMEM;
	if (one)
		return (rc = read_thread(k, one, "crash.crashed_thread", *info)) != 0 ? rc
		       : warn_disagreements(k);
	char where[MAX_PATH];
	size_t i = 0;
	for (const hg_json *th = hg_json_first(threads); th; th = hg_json_next(th), i++) {
		snprintf(where, sizeof where, "crash.threads[%zu]", i);
		if ((rc = read_thread(k, th, where, &(*info)[i])) != 0)
			return rc;
	}
	return warn_disagreements(k);
}
