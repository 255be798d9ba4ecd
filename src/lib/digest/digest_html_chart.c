/* The HTML digest's charts: a cluster's reports per UTC day as bars, an
 * inline SVG with no script.  Every chart of a page covers the same days
 * (chart_range), so rows can be compared at a glance; each bar's height is
 * scaled to its own cluster's busiest day, and its <title> says the day and
 * the count. */
#include <inttypes.h>
#include <stdio.h>

#include "digest_html.h"

#define CHART_DAYS 30  /* the most days a chart shows: the last ones */
#define LARGE_MIN 240  /* px: the narrowest large chart */

void chart_range(const struct digest *d, struct chart_range *r)
{
	const struct dg_list *lists[] = {&d->top, &d->fresh, &d->regressed};
	r->first = INT64_MAX;
	r->last = INT64_MIN;
	for (size_t l = 0; l < 3; l++)
		for (size_t i = 0; i < lists[l]->n; i++) {
			const struct dg_cluster *c = &lists[l]->items[i];
			for (size_t k = 0; k < c->n_days; k++) {
				if (c->days[k].day < r->first)
					r->first = c->days[k].day;
				if (c->days[k].day > r->last)
					r->last = c->days[k].day;
			}
		}
	if (r->last == INT64_MIN) {
		r->first = r->last = 0;
		r->empty = true;
		return;
	}
	r->empty = false;
	if (r->last - r->first >= CHART_DAYS)
		r->first = r->last - (CHART_DAYS - 1);
}

/* The reports of c before the range, and its busiest day within it. */
static void chart_counts(const struct dg_cluster *c, const struct chart_range *r, int64_t *before,
			 int64_t *max)
{
	*before = 0;
	*max = 0;
	for (size_t k = 0; k < c->n_days; k++) {
		if (c->days[k].day < r->first)
			*before += c->days[k].count;
		else if (c->days[k].count > *max)
			*max = c->days[k].count;
	}
}

void chart_write(hg_buf *b, const struct dg_cluster *c, const struct chart_range *r, bool large)
{
	if (r->empty || !c->n_days) {
		hg_buf_puts(b, "<span class=\"dim\">no report times</span>");
		return;
	}
	int64_t before, max;
	chart_counts(c, r, &before, &max);
	int64_t days = r->last - r->first + 1;
	/* A large chart is at least LARGE_MIN px wide, so that its first and
	 * last day labels never overlap: a few days get wide bars. */
	int gap = large ? 4 : 1;
	int64_t bar = large ? (LARGE_MIN + days - 1) / days - gap : 4;
	if (large && bar > 60)
		bar = 60;
	if (large && bar < 6)
		bar = 6;
	int top = large ? 16 : 0, height = large ? 80 : 20, label = large ? 16 : 0;
	int64_t width = days * (bar + gap) - gap;
	char first[11], last[11];
	digest_day_text(r->first, first);
	digest_day_text(r->last, last);
	hg_buf_printf(b, "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%" PRId64
		      "\" height=\"%d\" role=\"img\"><title>reports per day, %s to %s</title>",
		      width < 150 && large ? 150 : width, top + height + label, first, last);
	size_t k = 0;
	for (int64_t day = r->first; day <= r->last; day++) {
		while (k < c->n_days && c->days[k].day < day)
			k++;
		int64_t n = k < c->n_days && c->days[k].day == day ? c->days[k].count : 0;
		int h = max > 0 ? (int)((n * height + max - 1) / max) : 0;
		char text[11];
		digest_day_text(day, text);
		int64_t x = (day - r->first) * (bar + gap);
		hg_buf_printf(b, "<rect x=\"%" PRId64 "\" y=\"%d\" width=\"%" PRId64 "\" height=\"%d\" "
			      "class=\"%s\"><title>%s: %" PRId64 " report%s</title></rect>",
			      x, top + height - (h ? h : 1), bar, h ? h : 1, h ? "bar" : "zero", text, n,
			      n == 1 ? "" : "s");
	}
	if (large)
		hg_buf_printf(b, "<text x=\"0\" y=\"11\" class=\"axis\">reports per day (max %" PRId64
			      ")</text><text x=\"0\" y=\"%d\" class=\"axis\">%s</text>"
			      "<text x=\"%" PRId64 "\" y=\"%d\" class=\"axis\" text-anchor=\"end\">%s"
			      "</text>", max, top + height + label - 3, first, width,
			      top + height + label - 3, days > 1 ? last : "");
	hg_buf_puts(b, "</svg>");
	if (before || c->untimed) {
		hg_buf_puts(b, " <span class=\"dim\">");
		if (before)
			hg_buf_printf(b, "+%" PRId64 " earlier", before);
		if (c->untimed)
			hg_buf_printf(b, "%s%" PRId64 " untimed", before ? ", " : "+", c->untimed);
		hg_buf_puts(b, "</span>");
	}
}
