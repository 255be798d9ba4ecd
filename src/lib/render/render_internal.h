/* What the renderers of src/lib/render/ share (hangar/render.h is what
 * the rest of the world sees): each turns one report into text in an
 * hg_buf; none parses input.  The caller writes the buffer where it
 * wants: at the end, and (with opts.flush) on the way, so that a big
 * report's text is never held whole. */
#ifndef HANGAR_RENDER_INTERNAL_H
#define HANGAR_RENDER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "hangar/render.h"
#include "hangar/report.h"
#include "hangar/text.h"

/* A point between two frames or threads, where what the buffer holds is
 * complete text: hands it to opts->flush when it passed HG_RENDER_FLUSH_BYTES
 * (not after a failed append: the caller reports that instead). */
void render_flush_point(hg_buf *out, const hg_render_opts *opts);

void render_tree(hg_buf *out, const hg_report *rep, const hg_render_opts *opts);
void render_json(hg_buf *out, const hg_report *rep, const hg_render_opts *opts);
void render_matrix(hg_buf *out, const hg_report *rep, const hg_render_opts *opts);

/* A report's flame graph, built in a scratch arena, as format f: 0,
 * HG_EINVAL when the report has nothing to draw, HG_ELIMIT when folded
 * output would be over max_bytes, or HG_ENOMEM (render.c). */
int render_flame(hg_buf *out, const hg_report *rep, const hg_render_opts *opts,
		 const hg_output_format *f, size_t max_bytes);

/* The stack a renderer shows (trimmed, or whole with --no-trim) and the
 * index of the StackKey within it (-1 when none). */
const hg_method_stack *shown_stack(const hg_report *rep, const hg_render_opts *opts);
long shown_key(const hg_report *rep, const hg_render_opts *opts);
/* The symbol of an item of the shown stack, or NULL when unknown. */
const char *item_symbol(const hg_report *rep, const hg_method_item *item);

/* How the tree output looks: colours (empty strings without colour) and
 * the tree guides. */
struct style {
	const char *bold, *dim, *key, *warn, *reset;
	const char *tee, *elbow, *pipe, *blank, *key_tag, *times;
	int width;         /* render_opts.width: 0 = no limit */
	const char *ellipsis; /* what stands for text left out: "…", "..." with --ascii */
};

struct style render_style(const hg_render_opts *opts);

/* The tree output's header: identity, kind and the report's fields, then
 * (after what the evidence adds) warnings and metadata. */
void render_header(hg_buf *out, const hg_report *rep, const struct style *st);
void render_header_rest(hg_buf *out, const hg_report *rep, const struct style *st);
/* "key        value" cut to one line of at most 100 characters (and the
 * width); the ANR subject whole, wrapped to the width. */
void render_meta_line(hg_buf *out, const char *key, const char *value, const struct style *st);
/* "time" with the report's time in UTC, and as written when that differs
 * (a zone, nanoseconds, no year) or could not be read. */
void render_time_line(hg_buf *out, const hg_report *rep, const struct style *st);

/* The names of enum hg_thread_flag's bits, lowest first ("main", ...). */
#define RENDER_N_FLAGS 8
extern const char *const render_flag_names[RENDER_N_FLAGS];

/* Thread stacks and figures, for a person (render_threads.c) and as JSON
 * (render_threads_json.c). */
void render_threads_tree(hg_buf *out, const hg_report *rep, const hg_render_opts *opts,
			 const struct style *st);
void render_stats_tree(hg_buf *out, const hg_report *rep, const struct style *st);
/* A crash's header lines: "reason", then "exception", "caused by", "root
 * cause" (with the root cause's top frame), wrapped to st->width. */
void render_crash_lines(hg_buf *out, const hg_report *rep, const struct style *st);
void render_threads_json(hg_buf *out, const hg_report *rep, const hg_render_opts *opts);

/* ---- one frame as text (render_frame.c) ---- */

/* One frame as the thread view writes it ("at a.b.C.m(C.java:12)", a native
 * frame's pc, image, function and source line), shortened to avail columns
 * (0: no limit) as far as it can without losing what symbolication needs
 * (the pc, the image's name, the function's own name): it may run over. */
void render_thread_frame(hg_buf *out, const hg_frame *f, int avail, const char *ellipsis);
/* The same for a tree of samples: a native frame that still does not fit
 * loses its pc, then its image, then the end of its name (ellipsis), so
 * that it fits (a Java frame, as the method tree's, never loses its class
 * and method). */
void render_frame_text(hg_buf *out, const hg_frame *f, int avail, const char *ellipsis);
/* An image path, as its last part "…/libc.so" when short_form. */
void render_image_text(hg_buf *out, const char *image, bool short_form, const char *ellipsis);

/* The tree of a report's stack samples (render_samples.c): a line saying
 * how many, over what time, at what interval, then each node's samples,
 * share and frame under the method tree's guides, fitted to opts->width,
 * the blamed thread's path marked '*' (*marked: it was); false (nothing
 * written) when the samples hold no frames.  As JSON: the "samples" object
 * (hangar-formats(5)). */
bool render_samples_tree(hg_buf *out, const hg_report *rep, const hg_render_opts *opts,
			 const struct style *st, bool *marked);
void render_samples_json(hg_buf *out, const hg_report *rep, const hg_render_opts *opts);

/* ---- fitting text to the width (render_width.c) ---- */


/* Columns of UTF-8 text s[0..len) (one per character). */
size_t render_cols(const char *s, size_t len);
/* lead + cls[0..cls_len) + tail, in avail columns if it can be done by
 * shortening cls's package ("com.example.ui.Foo" -> "c.e.ui.Foo" ->
 * "c.e.u.Foo" -> "…Foo", ellipsis standing for "…"), then dropping lead; never the class or method
 * name (avail <= 0: no limit). */
/* A name that may be a frame, a device or any label, at most avail
 * columns (0: whole): a frame shortened as the stack views shorten it,
 * anything else cut at its end (cluster_text.c). */
void render_fit_label(hg_buf *out, const char *name, int avail);
void render_fit_name(hg_buf *out, const char *lead, const char *cls, size_t cls_len,
		     const char *tail, int avail, const char *ellipsis);

/* ---- repeated recursion (render_fold.c) ---- */

/* A run of frames that repeats the `period` frames before it: frames
 * [first, first + n) of a thread are `times` more copies of
 * [first - period, first). */
struct frame_fold {
	size_t first, n, period, times;
};

#define FOLD_MAX_PERIOD 12 /* the longest cycle looked for */
#define FOLD_MIN_TIMES 2   /* a cycle is folded when it comes back this often */

/* The folds of t's frames, in order (malloc'd, caller frees; NULL and
 * *n 0 when none or out of memory).  A frame that a lock line follows, or
 * one of several candidates of a retrace, is never folded away. */
struct frame_fold *render_find_folds(const hg_thread *t, size_t *n);

/* Native frames' images and symbols (render_images.c): " file:line" of a
 * symbolicated frame; the table of the images the shown threads' frames
 * lie in; a native frame's "image_index", "function", "file", "line",
 * "inlined"; the report's "images" array. */
void render_native_source(hg_buf *out, const hg_frame *f);
void render_images_tree(hg_buf *out, const hg_report *rep, const hg_render_opts *opts,
			const struct style *st);
void render_native_frame_json(hg_buf *out, const hg_frame *f);
void render_images_json(hg_buf *out, const hg_report *rep);

/* {"source","line"?,"report" — the identity fields every JSON line starts with. */
void render_source_fields(hg_buf *out, const hg_report *rep);
/* The line a failed report gives in the JSON formats: identity + "error". */
void render_error_json(hg_buf *out, const hg_report *rep);

#endif
