/* What every renderer needs to know about the stack it shows. */
#include <stdio.h>
#include <string.h>

#include "render_internal.h"

const hg_method_stack *shown_stack(const hg_report *rep, const hg_render_opts *opts)
{
	return opts->no_trim ? &rep->full : &rep->trimmed;
}

long shown_key(const hg_report *rep, const hg_render_opts *opts)
{
	if (rep->key_index < 0)
		return -1;
	/* Trimming only removes items, so the key's origin is its index in
	 * the whole stack. */
	return opts->no_trim ? (long)rep->trimmed.items[rep->key_index].origin : rep->key_index;
}

void render_flush_point(hg_buf *out, const hg_render_opts *opts)
{
	if (opts->flush && out->len >= HG_RENDER_FLUSH_BYTES && !out->failed)
		opts->flush(out, opts->flush_user);
}

const char *item_symbol(const hg_report *rep, const hg_method_item *item)
{
	return hg_report_item_symbol(rep, item);
}

void render_source_fields(hg_buf *out, const hg_report *rep)
{
	hg_buf_puts(out, "{\"source\":");
	hg_buf_json_string(out, rep->source, strlen(rep->source));
	if (rep->line > 0) {
		hg_buf_puts(out, ",\"line\":");
		hg_buf_int(out, rep->line);
	}
	hg_buf_puts(out, ",\"report\":");
	hg_buf_int(out, rep->number);
}

void render_error_json(hg_buf *out, const hg_report *rep)
{
	render_source_fields(out, rep);
	hg_buf_puts(out, ",\"error\":");
	hg_buf_json_string(out, rep->error, strlen(rep->error));
	hg_buf_puts(out, "}\n");
}

static const struct style plain_unicode = {"", "", "", "", "", "├─ ", "└─ ", "│  ", "   ",
					   "  ◀ StackKey", "×", 0, "…"};
static const struct style plain_ascii = {"", "", "", "", "", "|- ", "`- ", "|  ", "   ",
					 "  <= StackKey", "x", 0, "..."};

struct style render_style(const hg_render_opts *opts)
{
	struct style s = opts->ascii ? plain_ascii : plain_unicode;
	s.width = opts->width;
	s.ellipsis = opts->ascii ? "..." : "…";
	if (opts->color) {
		s.bold = "\033[1m";
		s.dim = "\033[2m";
		s.key = "\033[1;31m";
		s.warn = "\033[33m";
		s.reset = "\033[0m";
	}
	return s;
}

#define META_WIDTH 100 /* metadata values are cut to this in the header */

/* Values read whole, however long, wrapped to the width: what the report
 * is about and the report's own fields (other metadata can be any JSON). */
static bool whole_value(const char *key)
{
	static const char *const keys[] = {"subject", "diagnosis", "time", "device", "process",
					   "version", "scene"};
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		if (!strcmp(key, keys[i]))
			return true;
	return false;
}

void render_meta_line(hg_buf *out, const char *key, const char *value, const struct style *st)
{
	size_t len = strcspn(value, "\r\n");
	if (st->width > 0 && !strcmp(key, "scene") && !strchr(value, ' ') && value[len] == '\0') {
		hg_buf_printf(out, "%-11s ", key); /* a class: shortened by its package */
		hg_render_fit_symbol(out, "", value,
				  st->width > 12 + HG_RENDER_MIN_ROOM ? st->width - 12 : HG_RENDER_MIN_ROOM,
				  st->ellipsis);
		hg_buf_putc(out, '\n');
		return;
	}
	if (whole_value(key) && value[len] == '\0') {
		char first[32];
		snprintf(first, sizeof first, "%-11s ", key);
		hg_render_wrap(out, first, "            ", value, len, st->width);
		return;
	}
	size_t most = META_WIDTH, key_cols = strlen(key) < 11 ? 12 : strlen(key) + 1;
	if (st->width > 0) /* the key's columns and " ..." */
		most = (size_t)st->width > key_cols + 4 + HG_RENDER_MIN_ROOM ? (size_t)st->width - key_cols - 4
									  : HG_RENDER_MIN_ROOM;
	most = most < META_WIDTH ? most : META_WIDTH;
	bool cut = render_cols(value, len) > most || value[len] != '\0';
	if (render_cols(value, len) > most)
		len = hg_visible_prefix(value, len, most, NULL); /* whole characters and escapes */
	hg_buf_printf(out, "%-11s ", key);
	hg_buf_visible(out, value, len);
	hg_buf_puts(out, cut ? " ...\n" : "\n");
}

void render_time_line(hg_buf *out, const hg_report *rep, const struct style *st)
{
	const char *w = rep->time_written;
	hg_buf b;
	hg_buf_init(&b);
	if (!rep->time)
		hg_buf_puts(&b, "unknown (written \"");
	else
		hg_buf_puts(&b, rep->time);
	/* Seconds or microseconds since 1970 say nothing more than the time. */
	bool epoch = rep->time && w && *w && strspn(w, "0123456789") == strlen(w);
	if (w && !epoch && (!rep->time || strcmp(w, rep->time) != 0)) {
		hg_buf_puts(&b, rep->time ? " (written " : "");
		hg_buf_add(&b, w, strcspn(w, "\r\n"));
		hg_buf_puts(&b, rep->time ? ")" : "\", which cannot be read)");
	}
	render_meta_line(out, "time", b.failed || !b.data ? "" : b.data, st);
	out->failed |= b.failed;
	hg_buf_release(&b);
}

void render_header(hg_buf *out, const hg_report *rep, const struct style *st)
{
	hg_buf_printf(out, "%s== %s", st->bold, rep->source);
	if (rep->line > 0)
		hg_buf_printf(out, ":%ld", rep->line);
	char number[48];
	snprintf(number, sizeof number, " (report %ld) ==", rep->number);
	/* narrow: the number under the path, which is never cut */
	bool fits = st->width <= 0 || render_cols(rep->source, strlen(rep->source)) + 3 + 12 +
					      strlen(number) <= (size_t)st->width;
	hg_buf_printf(out, "%s%s%s\n", fits ? "" : "\n  ", number + !fits, st->reset);
	const char *detail = rep->anr_type ? rep->anr_type : rep->detail;
	hg_buf_printf(out, "%-11s %s%s%s%s\n", "kind", hg_report_kind_name(rep->kind),
		      detail ? " (" : "", detail ? detail : "", detail ? ")" : "");
	render_crash_lines(out, rep, st);
	if (rep->scene)
		render_meta_line(out, "scene", rep->scene, st);
	if (rep->format != HG_FORMAT_MATRIX && rep->format != HG_FORMAT_RAW) {
		/* Matrix's own fields show among the metadata below. */
		if (rep->process)
			render_meta_line(out, "process", rep->process, st);
		if (rep->app_version)
			render_meta_line(out, "version", rep->app_version, st);
		if (rep->device)
			render_meta_line(out, "device", rep->device, st);
		if (rep->time || rep->time_written)
			render_time_line(out, rep, st);
	}
	if (!rep->has_method_stack && rep->cost)
		hg_buf_printf(out, "%-11s %lld ms\n", "cost", (long long)rep->cost);
	if (rep->foreground >= 0)
		render_meta_line(out, "foreground", rep->foreground ? "yes" : "no", st);
}

/* Whether a metadata field is shown elsewhere: as a header line or among
 * the figures. */
static bool shown_elsewhere(const hg_report *rep, const char *key)
{
	if (!strcmp(key, "scene") || !strcmp(key, "detail") || !strcmp(key, "cost"))
		return true;
	if (!strcmp(key, "threadStack") && rep->threads.n)
		return true; /* shown as the thread */
	for (size_t i = 0; i < rep->n_stats; i++)
		if ((rep->stats[i].group && !strcmp(rep->stats[i].group, key)) ||
		    !strcmp(rep->stats[i].name, key))
			return true;
	return false;
}

/* A KSCrash report's objects (system, report, error) are read into the
 * header's own lines; as JSON they stay whole in -f json. */
static bool raw_object(const hg_report *rep, const hg_meta_field *m)
{
	return rep->format == HG_FORMAT_KSCRASH && (m->json[0] == '{' || m->json[0] == '[');
}

void render_header_rest(hg_buf *out, const hg_report *rep, const struct style *st)
{
	for (size_t i = 0; i < rep->n_stats; i++)
		if (rep->stats[i].group && !strcmp(rep->stats[i].group, "header"))
			render_meta_line(out, rep->stats[i].name, rep->stats[i].value, st);
	for (size_t i = 0; i < rep->warnings.len; i++) {
		const char *w = rep->warnings.items[i];
		hg_buf_puts(out, st->warn);
		hg_render_wrap(out, "warning     ", "            ", w, strlen(w), st->width);
		if (*st->reset) { /* the colour ends before the newline, as ever */
			out->len--;
			hg_buf_printf(out, "%s\n", st->reset);
		}
	}
	for (size_t i = 0; i < rep->meta_len; i++) {
		if (shown_elsewhere(rep, rep->meta[i].key) || raw_object(rep, &rep->meta[i]))
			continue;
		/* Matrix's and APM's "time": in UTC, as the other formats' */
		if (!strcmp(rep->meta[i].key, "time") && (rep->time || rep->time_written))
			render_time_line(out, rep, st);
		else
			render_meta_line(out, rep->meta[i].key, rep->meta[i].text, st);
	}
}
