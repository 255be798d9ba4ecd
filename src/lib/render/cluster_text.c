/* A cluster for a person (hangar show): its header, counts, merged call
 * tree and samples, each line fitted to a width (0: no limit) — the
 * header's values wrapped whole, names shortened as the stack views
 * shorten them, paths cut at their start.  Lines are appended to the
 * caller's buffer. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hangar/render.h"
#include "render_internal.h"

#define TREE_COLUMNS 31 /* "reports total max *" before a frame's indent */
#define SAMPLE_PATH 16  /* columns a sample's path keeps, however narrow */

/* "129, device unknown" when no report names one (not "on 0 devices"),
 * else "129 on 12 devices", and how many name none. */
static void say_devices(hg_buf *b, const hg_cluster_row *c)
{
	if (c->devices == 0) {
		hg_buf_printf(b, "%" PRId64 ", device unknown", c->count);
		return;
	}
	hg_buf_printf(b, "%" PRId64 " on %" PRId64 " device%s", c->count, c->devices,
		      c->devices == 1 ? "" : "s");
	if (c->no_device > 0)
		hg_buf_printf(b, " (%" PRId64 " report%s without one)", c->no_device,
			      c->no_device == 1 ? "" : "s");
}

/* "key         value", the value wrapped to the width under itself: the
 * header says everything whole. */
static void say_field(hg_buf *out, int width, const char *key, const char *value, size_t len)
{
	char first[32];
	snprintf(first, sizeof first, "%-11s ", key);
	hg_render_wrap(out, first, "            ", value, len, width);
}

void hg_render_cluster_header(hg_buf *out, const hg_cluster_row *c, int width)
{
	say_field(out, width, "cluster", c->hash, strlen(c->hash));
	say_field(out, width, "kind", c->kind, strlen(c->kind));
	say_field(out, width, "title", c->title, strcspn(c->title, "\r\n"));
	if (c->key_symbol)
		say_field(out, width, "StackKey", c->key_symbol, strcspn(c->key_symbol, "\r\n"));
	hg_buf b;
	hg_buf_init(&b);
	say_devices(&b, c);
	hg_buf_puts(&b, c->symbolicated ? "" : " (unsymbolicated: grouped by method ids)");
	say_field(out, width, "reports", b.data ? b.data : "", b.len);
	hg_buf_reset(&b);
	if (c->first_seen && c->last_seen)
		hg_buf_printf(&b, "%s .. %s", c->first_seen, c->last_seen);
	else
		hg_buf_puts(&b, "unknown (no report of this cluster gives its time)");
	say_field(out, width, "seen", b.data ? b.data : "", b.len);
	hg_buf_reset(&b);
	if (c->cost_reports)
		hg_buf_printf(&b, "p50 %" PRId64 " ms, p90 %" PRId64 " ms, p99 %" PRId64
			      " ms, max %" PRId64 " ms%s", c->cost_p50, c->cost_p90, c->cost_p99,
			      c->cost_max, c->cost_reports < c->count
			      ? " (of the reports that measured it)" : "");
	else
		hg_buf_printf(&b, "— (nobody measured it: %s)", !strcmp(c->kind, "fps")
			      ? "FPS reports count frames" : "no report gives one");
	say_field(out, width, "cost", b.data ? b.data : "", b.len);
	if (c->figures) {
		hg_buf_reset(&b);
		hg_render_figures_text(&b, c->figures);
		if (b.len && !b.failed)
			say_field(out, width, c->figures->fps_reports ? "fps" : "startup", b.data,
				  b.len);
	}
	if (c->rated) {
		hg_buf_reset(&b);
		if (c->rate >= 0)
			hg_buf_printf(&b, "%.2f reports per 1,000 sessions", c->rate);
		else
			hg_buf_puts(&b, "unknown (the sessions file gives none for its versions and days)");
		say_field(out, width, "rate", b.data ? b.data : "", b.len);
	}
	if (c->escalating) {
		static const char why[] = "escalating: its latest day is well above its trailing "
					  "average (hangar-formats(5), ESCALATING)";
		say_field(out, width, "trend", why, sizeof why - 1);
	}
	say_field(out, width, "signature", c->frames, strlen(c->frames));
	hg_buf_release(&b);
}

/* A name (a frame, a scene, a device) in avail columns (0: whole): a
 * class's package shortened as the stack tree does it, a native name's
 * arguments, template arguments and qualifiers left out as the thread
 * view does it, and what still does not fit cut at its end
 * (render_internal.h). */
void render_fit_label(hg_buf *out, const char *name, int avail)
{
	size_t len = strcspn(name, "\r\n");
	if (avail <= 0 || hg_visible_cols(name, len) <= (size_t)avail) {
		hg_buf_visible(out, name, len);
		return;
	}
	hg_buf b;
	hg_buf_init(&b);
	/* a class or a method, with its arguments; not a device's fingerprint
	 * ("google/sailfish/sailfish:10/…"), whose dots are no packages */
	if ((!strchr(name, ' ') || strchr(name, '(')) && !strchr(name, '/'))
		hg_render_fit_symbol(&b, "", name, avail, "…");
	for (int level = 1;
	     level <= 3 && !b.failed && hg_visible_cols(b.data, b.len) > (size_t)avail; level++) {
		hg_buf_reset(&b);
		hg_render_native_name(&b, name, level, "…");
	}
	if (b.failed || !b.len)
		hg_render_fit_text(out, name, len, avail, false);
	else /* (b is escaped already: escaping it again changes nothing) */
		hg_render_fit_text(out, b.data, b.len, avail, false);
	hg_buf_release(&b);
}

/* Levels of indent before names stop moving right: 40, fewer when the
 * width is narrow (a third of it at most, and HG_RENDER_MIN_ROOM columns
 * left for the name). */
static int guide_levels(int width)
{
	if (width <= 0)
		return 40;
	int most = width / 6, room = (width - TREE_COLUMNS - HG_RENDER_MIN_ROOM) / 2;
	most = room < most ? room : most;
	return most < 40 ? (most < 1 ? 1 : most) : 40;
}

/* The indent of a tree line at depth. */
static int indent_of(long depth, int width)
{
	return 2 * (depth < guide_levels(width) ? (int)depth : guide_levels(width));
}

/* The columns a tree line has for its name after indent; 0: no limit. */
static int name_room(int width, int indent)
{
	if (width <= 0)
		return 0;
	int avail = width - TREE_COLUMNS - indent;
	return avail > 1 ? avail : 1;
}

void hg_render_cluster_count(hg_buf *out, const char *value, int64_t count, int width)
{
	hg_buf_printf(out, "  %8" PRId64 "  ", count);
	render_fit_label(out, value ? value : "(unknown)", width > 0 ? width - 12 : 0);
	hg_buf_putc(out, '\n');
}

void hg_render_cluster_node(hg_buf *out, const hg_cluster_node *n, int width, bool cost_known)
{
	int indent = indent_of(n->depth, width);
	/* the columns of counts, the indent, then the name as fits; costs
	 * nobody measured are "—" (a dash is one column, three bytes) */
	if (cost_known)
		hg_buf_printf(out, "%8" PRId64 " %10" PRId64 " %8" PRId64 " %c %*s", n->reports,
			      n->total, n->max, n->key ? '*' : ' ', indent, "");
	else
		hg_buf_printf(out, "%8" PRId64 " %9s— %7s— %c %*s", n->reports, "", "",
			      n->key ? '*' : ' ', indent, "");
	render_fit_label(out, n->symbol, name_room(width, indent));
	hg_buf_putc(out, '\n');
}

void hg_render_cluster_hidden(hg_buf *out, long depth, int64_t nodes, int64_t cost, const char *why,
			      int width)
{
	int indent = indent_of(depth, width), room = name_room(width, indent);
	char text[256];
	int n = snprintf(text, sizeof text, "… %" PRId64 " more node%s, %s", nodes,
			 nodes == 1 ? "" : "s", why);
	/* narrow: the count without the reason (the options say it) */
	if (room && n > 0 && hg_visible_cols(text, strlen(text)) > (size_t)room)
		snprintf(text, sizeof text, "… %" PRId64 " more", nodes);
	if (cost >= 0)
		hg_buf_printf(out, "%8s %10" PRId64 " %8s   %*s", "", cost, "", indent, "");
	else /* unknown */
		hg_buf_printf(out, "%8s %9s— %8s   %*s", "", "", "", indent, "");
	hg_render_fit_text(out, text, strlen(text), room, false);
	hg_buf_putc(out, '\n');
}

/* "  path:line  time  version V  device D  cost C ms": the path cut at its start
 * (its file name and line stay), then the rest at its end, to fit. */
void hg_render_cluster_sample(hg_buf *out, const hg_report_row *r, int width)
{
	hg_buf where, rest, line;
	hg_buf_init(&where);
	hg_buf_init(&rest);
	hg_buf_init(&line);
	hg_buf_printf(&where, "%s:%ld", r->source, r->line);
	/* each value says what it is: "-  -" told nobody which was which */
	hg_buf_printf(&rest, "  %s  version %s", r->time ? r->time : "time unknown",
		      r->version ? r->version : "unknown");
	if (r->device)
		hg_buf_printf(&rest, "  device %s", r->device);
	if (r->cost_known)
		hg_buf_printf(&rest, "  cost %" PRId64 " ms", r->cost);
	else
		hg_buf_puts(&rest, "  cost unknown");
	int room = 0;
	if (width > 0) { /* the path keeps SAMPLE_PATH columns at least */
		room = width - 2 - (int)hg_visible_cols(rest.data, rest.len);
		room = room > SAMPLE_PATH ? room : SAMPLE_PATH;
	}
	hg_buf_puts(&line, "  ");
	hg_render_fit_text(&line, where.data ? where.data : "", where.len, room, true);
	/* the rest after the path, in what is left */
	int left = width > 0 ? width - (int)hg_visible_cols(line.data, line.len) : 0;
	hg_render_fit_text(&line, rest.data ? rest.data : "", rest.len, width > 0 && left < 1 ? 1 : left,
		     false);
	hg_buf_putc(&line, '\n');
	hg_buf_add(out, line.data, line.len);
	out->failed |= line.failed;
	hg_buf_release(&line);
	hg_buf_release(&where);
	hg_buf_release(&rest);
}

