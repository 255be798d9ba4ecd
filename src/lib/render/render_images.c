/* Native frames' images and symbols, for a person and as JSON: the image
 * table of a report's frames (name, UUID or Build ID, load address), so
 * that anyone can symbolicate a frame by hand, and what symbol files said
 * of a frame (function, file:line, inlined), or the report itself (its
 * file:line).  Apart from render_threads.c
 * so that its thread layout and these identities change independently.
 * The crash handler's own crash (render_crash.c) comes before the table,
 * which holds its frames' images too. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_crash.h"

/* Where symbol files say the frame is, or where the report itself said (a
 * symbolicated KSCrash report's source_file and source_line, in JSON "file" and "line"). */
void render_native_source(hg_buf *out, const hg_frame *f)
{
	if (!f->file)
		return;
	hg_buf_printf(out, " %s", f->file);
	if (f->line > 0)
		hg_buf_printf(out, ":%ld", f->line);
	if (f->inlined)
		hg_buf_puts(out, "  (inlined)");
}

/* Whether thread i's images belong in the table: the threads shown without
 * --all-threads are the blamed one and those that block it. */
static bool thread_listed(const hg_threads *ts, size_t i, const hg_render_opts *opts)
{
	if (opts->all_threads || (long)i == ts->blamed || ts->blamed < 0)
		return true;
	for (size_t k = 0; k < ts->n_chain; k++)
		if (ts->chain[k] == i)
			return true;
	return false;
}

/* Which images the listed threads' frames lie in: one pass over the
 * frames (a million-frame report may name 800 images).  NULL when there is
 * none, or on ENOMEM (then no table: the frames still say their images). */
static void mark_used(bool *used, const hg_threads *ts, const hg_thread *t)
{
	for (size_t j = 0; j < t->n_frames; j++) {
		uint32_t ref = t->frames[j].image_ref;
		if (ref && ref <= ts->n_images)
			used[ref - 1] = true;
	}
}

static bool *images_used(const hg_report *rep, const hg_render_opts *opts)
{
	const hg_threads *ts = &rep->threads;
	bool *used = ts->n_images ? calloc(ts->n_images, sizeof *used) : NULL;
	for (size_t i = 0; used && i < ts->n; i++)
		if (thread_listed(ts, i, opts))
			mark_used(used, ts, &ts->items[i]);
	if (used && rep->recrash && rep->recrash->has_thread)
		mark_used(used, ts, &rep->recrash->thread);
	return used;
}

/* As Apple's crash reports list them: "0x1d96c4000 - 0x1dae2bfff  SwiftUI
 * <UUID>  path"; Android's images have no load address, only a Build ID. */
void render_images_tree(hg_buf *out, const hg_report *rep, const hg_render_opts *opts,
			const struct style *st)
{
	const hg_threads *ts = &rep->threads;
	render_recrash_tree(out, rep, opts, st);
	bool first = true, *used = images_used(rep, opts);
	for (size_t i = 0; used && i < ts->n_images; i++) {
		const hg_image *im = &ts->images[i];
		if (!used[i])
			continue;
		if (first)
			hg_buf_printf(out, "\n%sbinary images%s\n", st->bold, st->reset);
		first = false;
		if (im->has_load_addr && im->size)
			hg_buf_printf(out, "    0x%" PRIx64 " - 0x%" PRIx64 "  ", im->load_addr,
				      im->load_addr + (im->size - 1));
		else if (im->has_load_addr)
			hg_buf_printf(out, "    0x%" PRIx64 "  ", im->load_addr);
		else
			hg_buf_puts(out, "    ");
		hg_buf_puts(out, im->name ? im->name : "?");
		if (im->id)
			hg_buf_printf(out, im->kind == HG_IMAGE_ELF ? "  BuildId %s" : "  <%s>", im->id);
		if (im->has_load_addr && im->vmaddr)
			hg_buf_printf(out, "  vmaddr 0x%" PRIx64, im->vmaddr);
		if (im->path && (!im->name || strcmp(im->path, im->name) != 0))
			hg_buf_printf(out, "  %s", im->path);
		hg_buf_putc(out, '\n');
		render_flush_point(out, opts);
	}
	free(used);
}

static void json_field(hg_buf *out, const char *key, const char *value)
{
	hg_buf_printf(out, ",\"%s\":", key);
	if (value)
		hg_buf_json_string(out, value, strlen(value));
	else
		hg_buf_puts(out, "null");
}

void render_native_frame_json(hg_buf *out, const hg_frame *f)
{
	if (f->image_ref)
		hg_buf_printf(out, ",\"image_index\":%" PRIu32, f->image_ref - 1);
	else
		hg_buf_puts(out, ",\"image_index\":null");
	/* Unsymbolicated: no function of symbol files, but the source position
	 * the report gave, if any. */
	json_field(out, "function", f->symbolicated ? f->method : NULL);
	/* "file" and "line" as a Java frame names its source position */
	json_field(out, "file", f->file);
	if (f->line > 0)
		hg_buf_printf(out, ",\"line\":%ld", f->line);
	else
		hg_buf_puts(out, ",\"line\":null");
	hg_buf_printf(out, ",\"inlined\":%s", f->symbolicated && f->inlined ? "true" : "false");
}

/* 64-bit addresses as hex strings, as the frames' are. */
void render_images_json(hg_buf *out, const hg_report *rep)
{
	const hg_threads *ts = &rep->threads;
	hg_buf_puts(out, ",\"images\":[");
	for (size_t i = 0; i < ts->n_images; i++) {
		const hg_image *im = &ts->images[i];
		hg_buf_printf(out, "%s{\"kind\":\"%s\"", i ? "," : "",
			      im->kind == HG_IMAGE_ELF ? "elf" : "macho");
		json_field(out, "name", im->name);
		json_field(out, "path", im->path);
		json_field(out, im->kind == HG_IMAGE_ELF ? "build_id" : "uuid", im->id);
		if (im->has_load_addr)
			hg_buf_printf(out, ",\"load_addr\":\"0x%" PRIx64 "\",\"vmaddr\":\"0x%" PRIx64
				      "\",\"size\":%" PRIu64, im->load_addr, im->vmaddr, im->size);
		else
			hg_buf_puts(out, ",\"load_addr\":null,\"vmaddr\":null,\"size\":null");
		hg_buf_putc(out, '}');
	}
	hg_buf_putc(out, ']');
}
