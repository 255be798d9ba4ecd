/* Thread stacks as JSON: every frame, the lock lines under the frames they
 * follow, the folds of repeated recursion, the lock graph, the figures. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_internal.h"
#include "render_crash.h"

static void json_str(hg_buf *out, const char *key, const char *value, bool comma)
{
	hg_buf_printf(out, "%s\"%s\":", comma ? "," : "", key);
	if (value)
		hg_buf_json_string(out, value, strlen(value));
	else
		hg_buf_puts(out, "null");
}

/* A number that is -1 when absent, as JSON null then. */
static void json_long(hg_buf *out, const char *key, long v)
{
	if (v < 0)
		hg_buf_printf(out, ",\"%s\":null", key);
	else
		hg_buf_printf(out, ",\"%s\":%ld", key, v);
}

static void frame_json(hg_buf *out, const hg_frame *f)
{
	hg_buf_printf(out, "{\"kind\":\"%s\"", f->kind == HG_FRAME_JAVA ? "java" : "native");
	if (f->kind == HG_FRAME_JAVA) {
		json_str(out, "class", f->cls, true);
		json_str(out, "method", f->method, true);
		json_str(out, "file", f->file, true);
		if (f->line >= 0)
			hg_buf_printf(out, ",\"line\":%ld", f->line);
		else
			hg_buf_puts(out, ",\"line\":null");
	} else {
		/* 64-bit addresses as hex strings: a JSON number would pass
		 * through a double in most readers. */
		if (f->has_pc)
			hg_buf_printf(out, ",\"pc\":\"0x%" PRIx64 "\"", f->pc);
		json_str(out, "image", f->image, true);
		if (f->has_offset)
			hg_buf_printf(out, ",\"offset\":\"0x%" PRIx64 "\"", f->offset);
		json_str(out, "symbol", f->symbol ? f->symbol : f->mangled ? f->mangled : f->method, true);
		/* The readable name beside the mangled one (hangar-formats(5)). */
		json_str(out, "name", f->method, true);
		json_str(out, "mangled", f->mangled, true);
		render_native_frame_json(out, f);
	}
	hg_buf_printf(out, ",\"repeat\":%ld,\"retraced\":%s,\"alternative\":%s", f->repeat,
		      f->retraced ? "true" : "false", f->alternative ? "true" : "false");
	if (f->candidate)
		hg_buf_printf(out, ",\"candidate\":%d", f->candidate);
	else
		hg_buf_puts(out, ",\"candidate\":null");
	json_str(out, "text", f->text, true);
	hg_buf_putc(out, '}');
}

static void lock_json(hg_buf *out, const hg_lock *l)
{
	hg_buf_putc(out, '{');
	json_str(out, "addr", l->addr, false);
	json_str(out, "class", l->cls, true);
	hg_buf_putc(out, '}');
}

/* The lock lines where the dump wrote them: "frame" is the index of the
 * frame they follow (null: before the first). */
static void locks_json(hg_buf *out, const hg_thread *t)
{
	hg_buf_puts(out, ",\"locks\":[");
	for (size_t i = 0; i < t->n_locks; i++) {
		const hg_frame_lock *l = &t->locks[i];
		hg_buf_puts(out, i ? ",{" : "{");
		if (l->frame == HG_LOCK_NO_FRAME)
			hg_buf_puts(out, "\"frame\":null");
		else
			hg_buf_printf(out, "\"frame\":%zu", l->frame);
		json_str(out, "kind", hg_lock_kind_name(l->kind), true);
		json_str(out, "addr", l->lock.addr, true);
		json_str(out, "class", l->lock.cls, true);
		if (l->kind == HG_LOCK_WAITING_TO_LOCK)
			json_long(out, "held_by", l->held_by);
		hg_buf_putc(out, '}');
	}
	hg_buf_putc(out, ']');
}

/* Repeated recursion, as the text folds it: frames [first, first+frames)
 * repeat the `period` frames before them `times` times. */
static void folds_json(hg_buf *out, const hg_thread *t)
{
	size_t n = 0;
	struct frame_fold *folds = render_find_folds(t, &n);
	hg_buf_puts(out, ",\"folds\":[");
	for (size_t i = 0; i < n; i++)
		hg_buf_printf(out, "%s{\"first\":%zu,\"frames\":%zu,\"period\":%zu,\"times\":%zu}",
			      i ? "," : "", folds[i].first, folds[i].n, folds[i].period, folds[i].times);
	hg_buf_putc(out, ']');
	free(folds);
}

static void thread_json(hg_buf *out, const hg_thread *t, const hg_render_opts *opts)
{
	hg_buf_putc(out, '{');
	json_str(out, "name", t->name, false);
	json_long(out, "tid", t->tid);
	json_long(out, "sys_tid", t->sys_tid);
	json_long(out, "priority", t->priority);
	hg_buf_printf(out, ",\"daemon\":%s", t->daemon ? "true" : "false");
	json_str(out, "state", t->state, true);
	hg_buf_puts(out, ",\"flags\":[");
	bool first = true;
	for (size_t i = 0; i < RENDER_N_FLAGS; i++)
		if (t->flags & (1u << i)) {
			hg_buf_printf(out, "%s\"%s\"", first ? "" : ",", render_flag_names[i]);
			first = false;
		}
	hg_buf_puts(out, "],\"frames\":[");
	for (size_t i = 0; i < t->n_frames; i++) {
		if (i)
			hg_buf_putc(out, ',');
		frame_json(out, &t->frames[i]);
		render_flush_point(out, opts);
	}
	hg_buf_puts(out, "],\"held\":[");
	for (size_t i = 0; i < t->n_held; i++) {
		if (i)
			hg_buf_putc(out, ',');
		lock_json(out, &t->held[i]);
	}
	hg_buf_puts(out, "],\"waiting\":");
	if (t->waiting.addr) {
		lock_json(out, &t->waiting);
		out->len--; /* reopen the object for the holder */
		json_long(out, "held_by", t->waiting_held_by);
		hg_buf_putc(out, '}');
	} else {
		hg_buf_puts(out, "null");
	}
	locks_json(out, t);
	folds_json(out, t);
	hg_buf_putc(out, '}');
}

/* What the blamed thread waits on (hg_threads_blocker): {kind, line,
 * holder, frame}, or null. */
static void blocker_json(hg_buf *out, const hg_threads *ts)
{
	hg_blocker b = {0};
	hg_arena *scratch = ts->blamed >= 0 ? hg_arena_create_sized(1024) : NULL;
	if (ts->blamed >= 0 && (!scratch || hg_threads_blocker(ts, scratch, &b) != 0))
		out->failed = 1;
	hg_buf_puts(out, ",\"blocker\":");
	if (b.kind) {
		hg_buf_putc(out, '{');
		json_str(out, "kind", b.kind, false);
		json_str(out, "line", b.line, true);
		json_str(out, "holder", b.holder, true);
		json_str(out, "frame", b.frame, true);
		hg_buf_putc(out, '}');
	} else {
		hg_buf_puts(out, "null");
	}
	hg_arena_destroy(scratch);
}

void render_threads_json(hg_buf *out, const hg_report *rep, const hg_render_opts *opts)
{
	const hg_threads *ts = &rep->threads;
	hg_buf_puts(out, ",\"threads\":[");
	for (size_t i = 0; i < ts->n; i++) {
		if (i)
			hg_buf_putc(out, ',');
		thread_json(out, &ts->items[i], opts);
	}
	hg_buf_puts(out, "],\"blamed\":");
	if (ts->blamed >= 0)
		hg_buf_printf(out, "%ld", ts->blamed);
	else
		hg_buf_puts(out, "null");
	hg_buf_puts(out, ",\"blocked_by\":[");
	for (size_t k = 0; k < ts->n_chain; k++)
		hg_buf_printf(out, k ? ",%zu" : "%zu", ts->chain[k]);
	hg_buf_puts(out, "],\"deadlocks\":[");
	for (size_t c = 0; c < ts->n_cycles; c++) {
		const hg_lock_cycle *cy = &ts->cycles[c];
		hg_buf_puts(out, c ? ",[" : "[");
		for (size_t i = 0; i < cy->n; i++) {
			hg_buf_printf(out, "%s{\"thread\":%zu,\"lock\":", i ? "," : "", cy->threads[i]);
			if (cy->locks[i])
				lock_json(out, cy->locks[i]);
			else
				hg_buf_puts(out, "null");
			hg_buf_putc(out, '}');
		}
		hg_buf_putc(out, ']');
	}
	hg_buf_putc(out, ']');
	blocker_json(out, ts);
	render_images_json(out, rep);
	hg_buf_puts(out, ",\"exceptions\":[");
	for (size_t i = 0; i < rep->n_exceptions; i++) {
		const hg_exception *e = &rep->exceptions[i];
		hg_buf_puts(out, i ? ",{" : "{");
		json_str(out, "type", e->type, false);
		json_str(out, "message", e->message, true);
		json_long(out, "thread", e->thread);
		hg_buf_putc(out, '}');
	}
	hg_buf_putc(out, ']');
	json_str(out, "reason", rep->reason, true);
	render_recrash_json(out, rep, opts, thread_json);
	/* the monitor's threshold: 0 is the model's "unknown", never a figure */
	if (rep->threshold > 0)
		hg_buf_printf(out, ",\"threshold\":%" PRId64, rep->threshold);
	else
		hg_buf_puts(out, ",\"threshold\":null");
	json_str(out, "os_version", rep->os_version, true);
	hg_buf_puts(out, ",\"stats\":[");
	for (size_t i = 0; i < rep->n_stats; i++) {
		hg_buf_puts(out, i ? ",{" : "{");
		json_str(out, "group", rep->stats[i].group, false);
		json_str(out, "name", rep->stats[i].name, true);
		json_str(out, "value", rep->stats[i].value, true);
		hg_buf_putc(out, '}');
	}
	hg_buf_putc(out, ']');
	render_samples_json(out, rep, opts);
}
