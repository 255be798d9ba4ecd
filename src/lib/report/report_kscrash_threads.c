/* The threads of a KSCrash report (private to report_kscrash.c): each
 * thread's backtrace as native frames, every one placed by its address in
 * the report's binary images (report_kscrash_images.c).  The report's own
 * object_name/symbol_name are kept only when object_name is the image that
 * holds the address: the device gets them wrong (KSCrash 3.7's hang report
 * names 54 frames of SwiftUI, UIKitCore and Foundation "libobjc.A.dylib
 * (GCC_except_table763)" at 0x59d4f428 into a 250 KB image), and a symbol
 * of the wrong image is worse than none.  Each disagreement is counted
 * into one warning.  A frame no image holds (its image refused, or none
 * written) keeps the report's word.
 * Matrix-iOS's representative stack, a thread named "HandledThread" or one
 * whose frames carry repeat_count, is marked `handled` for the blame rules.
 * In a part written by a crash handler that crashed, a thread that cannot
 * be read is left out with a warning; the link register written twice by
 * KSCrash's older stack cursor is written once. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_kscrash_internal.h"

#define HANDLED_THREAD "HandledThread"
#define MAX_PATH 160

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
	struct image *img = kscrash_find_image(k, f->pc);
	if (!img)
		return 1;
	int rc = kscrash_image_ref(k, img, &f->image_ref);
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
	if (!s || kscrash_image_number(s + negative, len - negative, &pc) != NULL ||
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

/* KSCrash's stack cursor (before 2.0's rewrite) wrote the pc, then the
 * link register, then the frame-pointer chain, whose first return address
 * is the link register again when the crashing function had saved it
 * (any function but a leaf): frames 1 and 2 are then both lr, one frame
 * written twice, and the first goes.  sentry-cocoa drops frame 1 whenever
 * it is lr, but in a leaf function frame 2 is the caller's caller and
 * frame 1 the only trace of the caller: it stays unless frame 2 repeats it. */
static int drop_lr_twin(struct kx *k, const hg_json *th, const char *where, hg_thread *t)
{
	char rw[MAX_PATH + 16], bw[MAX_PATH + 24];
	const hg_json *regs, *basic;
	uint64_t lr = 0;
	bool has_lr = false;
	snprintf(rw, sizeof rw, "%s.registers", where);
	snprintf(bw, sizeof bw, "%s.basic", rw);
	int rc = kscrash_soft_object(k, th, where, "registers", &regs);
	if (rc == 0)
		rc = kscrash_soft_object(k, regs, rw, "basic", &basic);
	if (rc == 0 && basic)
		rc = kscrash_soften(k, report_get_u64(&k->f, basic, bw, "lr", &lr, &has_lr));
	if (rc != 0 || !has_lr || t->n_frames < 3)
		return rc;
	hg_frame *f = t->frames;
	if (f[1].has_pc && f[2].has_pc && f[1].pc == lr && f[2].pc == lr) {
		memmove(&f[1], &f[2], (t->n_frames - 2) * sizeof *f);
		t->n_frames--;
	}
	return 0;
}

int kscrash_read_thread(struct kx *k, const hg_json *th, const char *where,
			struct thread_info *info)
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
	return drop_lr_twin(k, th, where, &k->rep->threads.items[ti]);
}

#define DROP_WARNINGS 10 /* threads left out named one by one; the rest counted */

/* A thread of a part written by a handler that crashed (SentryCrash writes
 * such threads as bare strings) that could not be read: left out, with the
 * reader's words as a warning; the threads before and after are kept. */
static int drop_thread(struct kx *k, size_t at, struct thread_info *info)
{
	k->rep->threads.n = at;
	memset(info, 0, sizeof *info);
	int rc = 0;
	if (k->dropped++ < DROP_WARNINGS)
		rc = hg_strlist_addf(&k->rep->warnings, k->rep->arena, "%s; the thread is left out "
				     "(the report was written by a crash handler that crashed)",
				     k->f.err->msg) != 0 ? HG_ENOMEM : 0;
	k->f.err->msg[0] = '\0';
	k->f.err->offset = NO_OFFSET;
	return rc;
}

/* One thread, or with k->lenient its absence when it cannot be read. */
static int read_or_drop(struct kx *k, const hg_json *th, const char *where,
			struct thread_info *info)
{
	size_t at = k->rep->threads.n;
	int rc = kscrash_read_thread(k, th, where, info);
	return rc == HG_EPARSE && k->lenient ? drop_thread(k, at, info) : rc;
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
	char where[MAX_PATH];
	if (one) {
		snprintf(where, sizeof where, "%scrash.crashed_thread", k->prefix);
		return (rc = read_or_drop(k, one, where, *info)) != 0 ? rc : warn_disagreements(k);
	}
	size_t i = 0;
	for (const hg_json *th = hg_json_first(threads); th; th = hg_json_next(th), i++) {
		snprintf(where, sizeof where, "%scrash.threads[%zu]", k->prefix, i);
		if ((rc = read_or_drop(k, th, where, &(*info)[k->rep->threads.n])) != 0)
			return rc;
	}
	if (k->dropped > DROP_WARNINGS &&
	    hg_strlist_addf(&k->rep->warnings, k->rep->arena, "%zu more threads that could not be "
			    "read are left out", k->dropped - DROP_WARNINGS) != 0)
		return HG_ENOMEM;
	return warn_disagreements(k);
}
