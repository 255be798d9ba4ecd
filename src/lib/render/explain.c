/* Why a report has its signature, rendered (hangar/render.h): text for a
 * person and a JSON object, from what hg_signature_explain recorded.  The
 * words (owners, uses, rules) are the cluster module's; this file only
 * lays them out. */
#include <string.h>

#include "hangar/cluster.h"
#include "render_internal.h"

#define LABEL 12     /* the header's label column */
#define RULE_MAX 48  /* in a width, a rule wider than this is cut (the frame matters more) */
#define RULE_MIN 16

/* s fitted to w columns (w <= 0: whole) and, unless last, padded to them
 * and followed by two blanks. */
static void cell(hg_buf *out, const char *s, int w, bool last)
{
	size_t before = out->len;
	hg_render_fit_text(out, s ? s : "", s ? strlen(s) : 0, w, false);
	if (last)
		return;
	size_t cols = out->failed ? 0 : hg_visible_cols(out->data + before, out->len - before);
	for (size_t i = cols; (int)i < w; i++)
		hg_buf_putc(out, ' ');
	hg_buf_puts(out, "  ");
}

/* "label       value\n", the value fitted to what width leaves. */
static void field(hg_buf *out, const char *label, const char *value, int width)
{
	cell(out, label, LABEL - 2, false);
	cell(out, value, width > 0 ? width - LABEL : 0, true);
	hg_buf_putc(out, '\n');
}

static void header(hg_buf *out, const hg_explain *ex, int width)
{
	const hg_signature *sig = &ex->sig;
	hg_buf line;
	hg_buf_init(&line);
	hg_buf_printf(&line, "%s (v%d)", sig->hash, sig->version);
	field(out, "signature", line.data, width);
	hg_buf_reset(&line);
	hg_buf_printf(&line, "%s (%s)", sig->app, ex->app_from ? ex->app_from : "?");
	field(out, "app", line.data, width);
	if (ex->app_image)
		field(out, "app image", ex->app_image, width);
	else if (ex->app_prefix)
		field(out, "app prefix", ex->app_prefix, width);
	field(out, "family", sig->family, width);
	field(out, "title", sig->title, width);
	field(out, "key symbol", sig->key_symbol ? sig->key_symbol : "(none)", width);
	if (ex->basis == HG_BASIS_THREAD) {
		hg_buf_reset(&line);
		hg_buf_printf(&line, "\"%s\" (%s; thread %ld of the report)",
			      ex->thread_name ? ex->thread_name : "?",
			      ex->thread_why ? ex->thread_why : "?", ex->thread + 1);
		field(out, "thread", line.data, width);
	}
	field(out, "grouped by", ex->grouped_by, width);
	if (!sig->symbolicated)
		field(out, "", "unsymbolicated: an id no mapping names is hashed", width);
	for (size_t i = 0; i < sig->n_frames; i++)
		field(out, i ? "" : "hashed", sig->frames[i], width);
	if (line.failed)
		out->failed = 1;
	hg_buf_release(&line);
}

/* The columns of the frame table: used, owner, rule (the frame takes the
 * rest). */
struct cols {
	int used, owner, rule, frame;
};

static struct cols measure(const hg_explain *ex, int width)
{
	struct cols c = {4, 5, 4, 0}; /* the headings' */
	for (size_t i = 0; i < ex->n_frames; i++) {
		const hg_explain_frame *x = &ex->frames[i];
		int u = (int)strlen(hg_frame_use_name(x->used));
		int o = (int)strlen(hg_owner_name(x->owner));
		int r = x->rule ? (int)hg_visible_cols(x->rule, strlen(x->rule)) : 1;
		c.used = u > c.used ? u : c.used;
		c.owner = o > c.owner ? o : c.owner;
		c.rule = r > c.rule ? r : c.rule;
	}
	if (width <= 0)
		return c; /* every rule whole */
	c.rule = c.rule > RULE_MAX ? RULE_MAX : c.rule;
	/* What the first three leave the frame, at least HG_RENDER_MIN_ROOM
	 * while the rule can give columns up. */
	int left = width - (2 + c.used + 2 + c.owner + 2);
	if (left - c.rule - 2 < HG_RENDER_MIN_ROOM)
		c.rule = left - 2 - HG_RENDER_MIN_ROOM;
	c.rule = c.rule < RULE_MIN ? RULE_MIN : c.rule;
	c.frame = left - c.rule - 2;
	c.frame = c.frame < HG_RENDER_MIN_ROOM ? HG_RENDER_MIN_ROOM : c.frame;
	return c;
}

void hg_render_explain(hg_buf *out, const hg_explain *ex, int width)
{
	header(out, ex, width);
	if (ex->n_frames == 0)
		return;
	hg_buf_puts(out, ex->basis == HG_BASIS_METHOD_STACK
				 ? "\nframes, from the StackKey up its path to the root:\n"
				 : "\nframes of the thread, innermost first:\n");
	struct cols c = measure(ex, width);
	hg_buf_puts(out, "  ");
	cell(out, "used", c.used, false);
	cell(out, "owner", c.owner, false);
	cell(out, "rule", c.rule, false);
	cell(out, "frame", c.frame, true);
	hg_buf_putc(out, '\n');
	for (size_t i = 0; i < ex->n_frames; i++) {
		const hg_explain_frame *x = &ex->frames[i];
		hg_buf_puts(out, "  ");
		cell(out, hg_frame_use_name(x->used), c.used, false);
		cell(out, hg_owner_name(x->owner), c.owner, false);
		cell(out, x->rule ? x->rule : "?", c.rule, false);
		cell(out, x->frame, c.frame, true);
		hg_buf_putc(out, '\n');
	}
}

/* ,"key": (no comma when first) */
static void json_key(hg_buf *out, const char *key, bool first)
{
	if (!first)
		hg_buf_putc(out, ',');
	hg_buf_json_string(out, key, strlen(key));
	hg_buf_putc(out, ':');
}

/* ,"key":"value", or null for NULL. */
static void json_string(hg_buf *out, const char *key, const char *value, bool first)
{
	json_key(out, key, first);
	if (value)
		hg_buf_json_string(out, value, strlen(value));
	else
		hg_buf_puts(out, "null");
}

static void json_bool(hg_buf *out, const char *key, bool value)
{
	json_key(out, key, false);
	hg_buf_puts(out, value ? "true" : "false");
}

static void json_frames(hg_buf *out, const hg_explain *ex)
{
	hg_buf_puts(out, ",\"frames\":[");
	for (size_t i = 0; i < ex->n_frames; i++) {
		const hg_explain_frame *x = &ex->frames[i];
		if (i)
			hg_buf_putc(out, ',');
		hg_buf_putc(out, '{');
		json_string(out, "frame", x->frame, true);
		json_string(out, "owner", hg_owner_name(x->owner), false);
		json_string(out, "rule", x->rule, false);
		json_string(out, "used", hg_frame_use_name(x->used), false);
		json_string(out, "line", x->line, false);
		hg_buf_putc(out, '}');
	}
	hg_buf_putc(out, ']');
}

void hg_render_explain_json(hg_buf *out, const hg_explain *ex)
{
	const hg_signature *sig = &ex->sig;
	hg_buf_putc(out, '{');
	json_string(out, "hash", sig->hash, true);
	hg_buf_printf(out, ",\"version\":%d", sig->version);
	json_string(out, "app", sig->app, false);
	json_bool(out, "app_known", sig->app_known);
	json_string(out, "app_from", ex->app_from, false);
	json_string(out, "app_prefix", ex->app_prefix, false);
	json_string(out, "app_image", ex->app_image, false);
	json_string(out, "family", sig->family, false);
	json_string(out, "title", sig->title, false);
	json_string(out, "key_symbol", sig->key_symbol, false);
	json_bool(out, "symbolicated", sig->symbolicated);
	json_bool(out, "no_app_frame", sig->no_app_frame);
	json_string(out, "basis", hg_basis_name(ex->basis), false);
	if (ex->basis == HG_BASIS_THREAD) {
		hg_buf_printf(out, ",\"thread\":{\"index\":%ld", ex->thread);
		json_string(out, "name", ex->thread_name, false);
		json_string(out, "why", ex->thread_why, false);
		hg_buf_putc(out, '}');
	} else {
		hg_buf_puts(out, ",\"thread\":null");
	}
	json_string(out, "hashed_owner", ex->hashed_owner == HG_OWNER_IGNORED
						 ? NULL : hg_owner_name(ex->hashed_owner), false);
	json_string(out, "grouped_by", ex->grouped_by, false);
	hg_buf_printf(out, ",\"key_ancestors\":%d,\"thread_frames\":%d", ex->key_ancestors,
		      ex->thread_frames);
	hg_buf_puts(out, ",\"lines\":[");
	for (size_t i = 0; i < sig->n_frames; i++) {
		if (i)
			hg_buf_putc(out, ',');
		hg_buf_json_string(out, sig->frames[i], strlen(sig->frames[i]));
	}
	hg_buf_putc(out, ']');
	json_frames(out, ex);
	hg_buf_putc(out, '}');
}
