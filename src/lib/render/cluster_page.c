/* A cluster's page for a person and for jq (hangar show, the digest):
 * who and where its reports come from with shares, reports per day, what
 * blocks the blamed thread across its dumps, and its variants
 * (hg_cluster_page). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hangar/render.h"
#include "render_internal.h"

#define BAR_MAX 40      /* columns of the longest day bar */

/* Section titles as a person reads them, in hg_page_dims' order. */
static const char *const dim_titles[HG_PAGE_DIMS] = {
	"by version", "by OS", "by device model", "by device class (Matrix machine)",
	"by scene", "foreground or background", "by ANR type",
};

static double share(int64_t n, int64_t of)
{
	return of > 0 ? 100.0 * (double)n / (double)of : 0;
}

/* "      28  70.0%  value", the value fitted to what is left. */
static void count_line(hg_buf *out, const char *value, int64_t count, int64_t of, int width)
{
	hg_buf_printf(out, "  %8" PRId64 " %5.1f%%  ", count, share(count, of));
	render_fit_label(out, value ? value : "(unknown)", width > 0 ? width - 19 : 0);
	hg_buf_putc(out, '\n');
}

static void breakdown_text(hg_buf *out, const char *title, const hg_breakdown *b, int width)
{
	hg_buf_printf(out, "\n%s\n", title);
	for (size_t i = 0; i < b->n; i++)
		count_line(out, b->values[i].value, b->values[i].count, b->total, width);
	if (b->other)
		count_line(out, "(other values)", b->other, b->total, width);
}

/* Reports per day, a bar each (the longest BAR_MAX columns, fewer when
 * the width leaves less after the day and count). */
static void days_text(hg_buf *out, const hg_breakdown *days, int width)
{
	int64_t most = 0;
	int bar_max = width > 0 && width - 23 < BAR_MAX ? width - 23 : BAR_MAX;
	bar_max = bar_max < 1 ? 1 : bar_max;
	for (size_t i = 0; i < days->n; i++)
		if (days->values[i].count > most)
			most = days->values[i].count;
	hg_buf_puts(out, "\nreports per day (UTC)\n");
	for (size_t i = 0; i < days->n; i++) {
		const hg_breakdown_value *v = &days->values[i];
		int bar = most ? (int)((v->count * bar_max + most - 1) / most) : 0;
		hg_buf_printf(out, "  %-10s %8" PRId64 "  ", v->value ? v->value : "(no time)", v->count);
		for (int k = 0; k < bar; k++)
			hg_buf_puts(out, "█");
		hg_buf_putc(out, '\n');
	}
}

static void blockers_text(hg_buf *out, const hg_cluster_page *p, int width)
{
	const hg_breakdown *b = &p->blockers;
	if (b->total == b->unknown)
		return; /* no dump in the cluster says what its thread waits on */
	hg_buf_puts(out, "\nwhat blocks the blamed thread, over all reports\n");
	for (size_t i = 0; i < b->n; i++) {
		const hg_breakdown_value *v = &b->values[i];
		char lead[64];
		int n = snprintf(lead, sizeof lead, "  %" PRId64 " of %" PRId64 " (%.0f%%)  ", v->count,
				 p->count, share(v->count, p->count));
		hg_buf_puts(out, lead);
		render_fit_label(out, v->value ? v->value : "nothing: it runs its own code",
				 width > 0 ? width - n : 0);
		hg_buf_putc(out, '\n');
	}
	if (b->other)
		hg_buf_printf(out, "  %" PRId64 " of %" PRId64 "  (other blockers)\n", b->other, p->count);
}

static void variants_text(hg_buf *out, const hg_cluster_page *p, int width)
{
	if (p->n_variants < 2)
		return; /* one path: nothing to tell apart */
	hg_buf_puts(out, "\nvariants (reports by their whole blamed path)\n");
	for (size_t i = 0; i < p->n_variants; i++) {
		const hg_variant_row *v = &p->variants[i];
		hg_buf_printf(out, "  %8" PRId64 " %5.1f%%  %s  entry ", v->count,
			      share(v->count, p->count), v->variant);
		render_fit_label(out, v->entry ? v->entry : "(unknown)", width > 0 ? width - 42 : 0);
		hg_buf where;
		hg_buf_init(&where);
		if (v->sample_hash)
			hg_buf_printf(&where, "%s:%ld", v->sample_source, v->sample_line);
		else
			hg_buf_puts(&where, "(no report of it kept: pruned)");
		hg_buf_printf(out, "\n%18s e.g. ", "");
		hg_render_fit_text(out, where.data ? where.data : "", where.len,
				   width > 0 ? width - 24 : 0, true);
		out->failed |= where.failed;
		hg_buf_release(&where);
		hg_buf_putc(out, '\n');
	}
}

void hg_render_cluster_page(hg_buf *out, const hg_cluster_page *p, int width)
{
	for (size_t i = 0; i < HG_PAGE_DIMS; i++) {
		const hg_breakdown *b = &p->dims[i];
		if (i > 0 && b->total == b->unknown)
			continue; /* no report says: nothing to break down */
		breakdown_text(out, dim_titles[i], b, width);
		if (i == 0 && b->n > 1 && p->first_version && p->last_version) {
			hg_buf line;
			hg_buf_init(&line);
			hg_buf_printf(&line, "first seen in %s, last in %s", p->first_version,
				      p->last_version);
			hg_render_wrap(out, "  ", "  ", line.data ? line.data : "", line.len, width);
			out->failed |= line.failed;
			hg_buf_release(&line);
		}
	}
	if (p->days.n)
		days_text(out, &p->days, width);
	blockers_text(out, p, width);
	variants_text(out, p, width);
}

/* ---- JSON ---- */

static void json_str(hg_buf *b, const char *s)
{
	if (s)
		hg_buf_json_string(b, s, strlen(s));
	else
		hg_buf_puts(b, "null");
}

static void breakdown_json(hg_buf *b, const hg_breakdown *d, const char *key, int64_t of)
{
	hg_buf_puts(b, "[");
	for (size_t i = 0; i < d->n; i++) {
		hg_buf_printf(b, "%s{\"%s\":", i ? "," : "", key);
		json_str(b, d->values[i].value);
		hg_buf_printf(b, ",\"count\":%" PRId64 ",\"share\":%.4f}", d->values[i].count,
			      of > 0 ? (double)d->values[i].count / (double)of : 0.0);
	}
	if (d->other)
		hg_buf_printf(b, "%s{\"%s\":\"(other)\",\"count\":%" PRId64 ",\"share\":%.4f}",
			      d->n ? "," : "", key, d->other,
			      of > 0 ? (double)d->other / (double)of : 0.0);
	hg_buf_puts(b, "]");
}

void hg_render_cluster_page_json(hg_buf *b, const hg_cluster_page *p)
{
	hg_buf_puts(b, ",\"first_version\":");
	json_str(b, p->first_version);
	hg_buf_puts(b, ",\"last_version\":");
	json_str(b, p->last_version);
	hg_buf_puts(b, ",\"breakdowns\":{");
	for (size_t i = 0; i < HG_PAGE_DIMS; i++) {
		hg_buf_printf(b, "%s\"%s\":", i ? "," : "", hg_page_dims[i]);
		breakdown_json(b, &p->dims[i], "value", p->dims[i].total);
	}
	hg_buf_puts(b, "},\"per_day\":[");
	for (size_t i = 0; i < p->days.n; i++) {
		hg_buf_printf(b, "%s{\"day\":", i ? "," : "");
		json_str(b, p->days.values[i].value);
		hg_buf_printf(b, ",\"count\":%" PRId64 "}", p->days.values[i].count);
	}
	hg_buf_puts(b, "],\"blockers\":");
	breakdown_json(b, &p->blockers, "blocker", p->count);
	hg_buf_puts(b, ",\"variants\":[");
	for (size_t i = 0; i < p->n_variants; i++) {
		const hg_variant_row *v = &p->variants[i];
		hg_buf_printf(b, "%s{\"variant\":", i ? "," : "");
		json_str(b, v->variant);
		hg_buf_printf(b, ",\"count\":%" PRId64 ",\"share\":%.4f,\"entry\":", v->count,
			      p->count > 0 ? (double)v->count / (double)p->count : 0.0);
		json_str(b, v->entry);
		if (!v->sample_hash) { /* prune kept no report of it */
			hg_buf_puts(b, ",\"sample\":null}");
			continue;
		}
		hg_buf_puts(b, ",\"sample\":{\"content_hash\":");
		json_str(b, v->sample_hash);
		hg_buf_puts(b, ",\"source\":");
		json_str(b, v->sample_source);
		hg_buf_printf(b, ",\"line\":%ld}}", v->sample_line);
	}
	hg_buf_puts(b, "]");
}
