/* A crash report's own sections: the crash handler's own crash while it
 * wrote the report (KSCrash's recrash, "Handler crashed while reporting"
 * in KSCrash's Apple-format rendering), for a person and as JSON.  Apart
 * from render_threads.c: it is no thread of the process at the time of
 * the crash but a second crash, with its own reason. */
#include <stdio.h>
#include <string.h>

#include "render_crash.h"

#define KEY "            " /* under the values of "reason      " */

/* "key  value", each line of value (the crash doctor writes two) wrapped
 * to the width under the value's column. */
static void lines(hg_buf *out, const char *key, const char *value, int width)
{
	char first[16];
	snprintf(first, sizeof first, "%-11s ", key);
	for (const char *s = value, *lead = first; *s; lead = KEY) {
		size_t len = strcspn(s, "\r\n");
		hg_render_wrap(out, lead, KEY, s, len, width);
		s += len;
		s += strspn(s, "\r\n");
	}
}

void render_recrash_tree(hg_buf *out, const hg_report *rep, const hg_render_opts *opts,
			 const struct style *st)
{
	const hg_recrash *rc = rep->recrash;
	if (!rc)
		return;
	hg_buf_printf(out, "\n%shandler crashed while reporting%s\n", st->bold, st->reset);
	if (rc->reason)
		lines(out, "reason", rc->reason, opts->width);
	if (rc->diagnosis)
		lines(out, "diagnosis", rc->diagnosis, opts->width);
	if (!rc->has_thread)
		return;
	const hg_thread *t = &rc->thread;
	hg_buf title;
	hg_buf_init(&title);
	hg_buf_printf(&title, "\"%s\"", t->name ? t->name : "?");
	if (t->tid >= 0)
		hg_buf_printf(&title, " tid=%ld", t->tid);
	if (t->state)
		hg_buf_printf(&title, " %s", t->state);
	hg_buf_puts(&title, "  [crashed while reporting]");
	hg_render_wrap(out, "", "  ", title.data ? title.data : "", title.len, opts->width);
	out->failed |= title.failed;
	hg_buf_release(&title);
	bool narrow = opts->width > 0 && opts->width < 60;
	const char *indent = narrow ? "  " : "    ";
	int avail = opts->width > 0 ? opts->width - (int)strlen(indent) : 0;
	if (opts->width > 0 && avail < HG_RENDER_MIN_ROOM)
		avail = HG_RENDER_MIN_ROOM;
	for (size_t i = 0; i < t->n_frames; i++) {
		hg_buf_puts(out, indent);
		render_thread_frame(out, &t->frames[i], avail, st->ellipsis);
		hg_buf_putc(out, '\n');
		render_flush_point(out, opts);
	}
	if (t->n_frames == 0)
		hg_buf_printf(out, "%s(no frames)\n", indent);
}

static void json_str(hg_buf *out, const char *key, const char *value)
{
	hg_buf_printf(out, "\"%s\":", key);
	if (value)
		hg_buf_json_string(out, value, strlen(value));
	else
		hg_buf_puts(out, "null");
}

void render_recrash_json(hg_buf *out, const hg_report *rep, const hg_render_opts *opts,
			 render_thread_json_fn *thread_json)
{
	const hg_recrash *rc = rep->recrash;
	if (rep->format != HG_FORMAT_KSCRASH)
		return; /* only KSCrash says whether its handler crashed */
	hg_buf_puts(out, ",\"recrash\":");
	if (!rc) {
		hg_buf_puts(out, "null");
		return;
	}
	hg_buf_putc(out, '{');
	json_str(out, "reason", rc->reason);
	hg_buf_putc(out, ',');
	json_str(out, "diagnosis", rc->diagnosis);
	hg_buf_puts(out, ",\"thread\":");
	if (rc->has_thread)
		thread_json(out, &rc->thread, opts);
	else
		hg_buf_puts(out, "null");
	hg_buf_putc(out, '}');
}
