/* The digest as one self-contained HTML page, for people who would rather
 * look than read: the Markdown's heading, totals and lists (the same rows,
 * cut the same way), each listed cluster's reports per day as a chart, and
 * a section per cluster with its merged call tree as an interactive flame
 * graph (hg_flame_write_svg, embedded).  Nothing is fetched: styles and the
 * flame graphs' scripts are inline, and a Content-Security-Policy forbids
 * any other source, so the page reads the same offline, from a mail or a
 * CI artifact.  Text from reports is escaped for HTML (and invalid UTF-8
 * replaced) so that it can never become markup. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "digest_html.h"

#define CELL_MAX 200   /* bytes of a table cell's text before it is cut with … */
#define FLAME_WIDTH 1160

/* Appends s as HTML text: & < > " ' as entities, control bytes and
 * invalid UTF-8 as U+FFFD, cut after max bytes with …. */
static void html_text(hg_buf *b, const char *s, size_t max)
{
	if (!s)
		return;
	size_t len = strlen(s);
	for (size_t i = 0; i < len;) {
		if (i >= max) {
			hg_buf_puts(b, "…");
			return;
		}
		unsigned char c = (unsigned char)s[i];
		const char *entity = c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;"
				   : c == '"' ? "&quot;" : c == '\'' ? "&#39;" : NULL;
		size_t n = c < 0x80 ? 1 : hg_utf8_len(s + i, len - i);
		if (entity)
			hg_buf_puts(b, entity);
		else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f || n == 0)
			hg_buf_puts(b, "\xef\xbf\xbd");
		else
			hg_buf_add(b, s + i, n);
		i += n ? n : 1;
	}
}

/* The anchor of a cluster's section. */
static void anchor(hg_buf *b, const char *hash)
{
	hg_buf_puts(b, "c-");
	html_text(b, hash, 32);
}

static const char STYLE[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0 auto;"
	"max-width:1200px;padding:0 20px 40px;color:#1d1d1f;background:#fff}"
	"h1{font-size:24px;margin:20px 0 6px}h2{font-size:18px;margin:28px 0 8px;"
	"border-bottom:1px solid #ddd;padding-bottom:4px}h3{font-size:15px;margin:22px 0 6px}"
	"table{border-collapse:collapse;margin:6px 0;font-size:13px}"
	"th,td{border:1px solid #ddd;padding:3px 7px;vertical-align:top;text-align:left}"
	"th{background:#f4f4f6}td.n{text-align:right;font-variant-numeric:tabular-nums}"
	"code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}"
	"nav a{margin-right:14px}.dim{color:#777}.facts{margin:4px 0 10px;padding:0;list-style:none}"
	".facts li{display:inline-block;margin-right:18px}.bar{fill:#d9534f}.zero{fill:#e8e8e8}"
	".axis{font:11px system-ui,sans-serif;fill:#666}section.cluster{margin-top:26px}"
	".flame{overflow-x:auto;border:1px solid #eee}.warn{color:#a00}"
	"@media (prefers-color-scheme:dark){body{background:#161618;color:#e6e6e6}"
	"th{background:#26262a}th,td{border-color:#3a3a3e}h2{border-color:#3a3a3e}"
	".zero{fill:#333}.dim,.axis{color:#999;fill:#999}}";

static void head(hg_buf *b, const struct digest *d)
{
	hg_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>\n"
		    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		    "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\"/>\n"
		    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
		    "<title>hangar nightly digest");
	if (d->run->finished) {
		hg_buf_puts(b, ", ");
		html_text(b, d->run->finished, 64);
	}
	hg_buf_printf(b, "</title>\n<style>%s</style></head>\n<body>\n", STYLE);
}

static void heading(hg_buf *b, const struct digest *d)
{
	const hg_digest_run *r = d->run;
	hg_buf_puts(b, "<h1>hangar nightly digest</h1>\n<ul class=\"facts\"><li><b>Source</b> ");
	html_text(b, r->source ? r->source : "(none)", 1000);
	hg_buf_puts(b, "</li><li><b>Run</b> ");
	html_text(b, r->started ? r->started : "?", 64);
	hg_buf_puts(b, " → ");
	html_text(b, r->finished ? r->finished : "?", 64);
	hg_buf_printf(b, "</li><li><b>This run</b> %" PRId64 " new reports, %" PRId64
		      " duplicates, %" PRId64 " rejected", r->new_reports, r->duplicates, r->rejected);
	if (r->rejected_before)
		hg_buf_printf(b, " (and %" PRId64 " rejected before, the same bytes: not counted)",
			      r->rejected_before);
	if (r->expired)
		hg_buf_printf(b, "; %" PRId64 " expired (older than the store keeps: not stored)",
			      r->expired);
	hg_buf_puts(b, "</li>");
	if (r->remote)
		hg_buf_printf(b, "<li><b>Objects</b> %" PRId64 " listed, %" PRId64 " fetched, %" PRId64
			      " skipped, %" PRId64 " failed</li>", r->objects_listed,
			      r->objects_fetched, r->objects_skipped, r->objects_failed);
	hg_buf_puts(b, "</ul>\n<nav><a href=\"#totals\">Totals</a>");
	if (r->sessions)
		hg_buf_puts(b, "<a href=\"#rates\">Rates</a>");
	hg_buf_puts(b, "<a href=\"#top\">Top clusters</a><a href=\"#escalating\">Escalating</a>"
		    "<a href=\"#new\">New</a><a href=\"#regressed\">Regressed</a>"
		    "<a href=\"#clusters\">Flame graphs</a><a href=\"#failed\">Failed fetches</a>"
		    "<a href=\"#rejected\">Rejected inputs</a></nav>\n");
}

static void totals(hg_buf *b, const struct digest *d)
{
	hg_buf_puts(b, "<h2 id=\"totals\">Totals by kind</h2>\n");
	if (d->run_total == 0)
		hg_buf_puts(b, "<p>No new reports in this run.</p>\n");
	if (d->n_kinds == 0) {
		hg_buf_puts(b, "<p>The store holds no reports yet.</p>\n");
		return;
	}
	hg_buf_puts(b, "<table><tr><th>kind</th><th>this run</th><th>all time</th></tr>\n");
	for (size_t i = 0; i < d->n_kinds; i++) {
		hg_buf_puts(b, "<tr><td>");
		html_text(b, d->kinds[i].kind, CELL_MAX);
		hg_buf_printf(b, "</td><td class=\"n\">%" PRId64 "</td><td class=\"n\">%" PRId64
			      "</td></tr>\n", d->kinds[i].run, d->kinds[i].all);
	}
	hg_buf_printf(b, "<tr><th>total</th><td class=\"n\"><b>%" PRId64 "</b></td><td class=\"n\">"
		      "<b>%" PRId64 "</b></td></tr></table>\n", d->run_total, d->all_total);
}

static void versions(hg_buf *b, const struct dg_cluster *c)
{
	digest_versions(b, c, html_text);
}

/* A cost in a cell: ms, or — when nobody measured it (FPS). */
static void cost_cell(hg_buf *b, bool known, int64_t ms)
{
	if (known)
		hg_buf_printf(b, "%" PRId64, ms);
	else
		hg_buf_puts(b, "—");
}

/* The title and, for FPS clusters, its frame rate. */
static void title_text(hg_buf *b, const struct dg_cluster *c, bool regressed, size_t max)
{
	html_text(b, c->title, max);
	hg_buf f;
	hg_buf_init(&f);
	digest_title_figures(&f, c, regressed);
	if (f.len)
		html_text(b, f.data, max);
	b->failed |= f.failed;
	hg_buf_release(&f);
}

static void table_row(hg_buf *b, size_t i, const struct dg_cluster *c, bool regressed,
		      const struct chart_range *r)
{
	hg_buf_printf(b, "<tr><td class=\"n\">%zu</td><td><a href=\"#", i + 1);
	anchor(b, c->hash);
	hg_buf_puts(b, "\"><code>");
	html_text(b, c->hash, 12);
	hg_buf_puts(b, "</code></a></td><td>");
	html_text(b, c->kind, CELL_MAX);
	hg_buf_puts(b, "</td><td>");
	title_text(b, c, regressed, CELL_MAX);
	hg_buf_printf(b, "</td><td class=\"n\">%" PRId64 "</td><td class=\"n\">%" PRId64 "</td>",
		      c->count, c->run_count);
	if (regressed) {
		hg_buf_printf(b, "<td class=\"n\">%" PRId64 " → %" PRId64 "</td><td class=\"n\">",
			      c->old_count, c->new_count);
		cost_cell(b, !c->cost_unknown, c->old_p90);
		hg_buf_puts(b, " → ");
		cost_cell(b, !c->cost_unknown, c->new_p90);
		hg_buf_puts(b, "</td>");
	}
	hg_buf_puts(b, "<td>");
	chart_write(b, c, r, false);
	hg_buf_puts(b, "</td><td class=\"n\">");
	cost_cell(b, c->row.cost_reports > 0, c->row.cost_p50);
	hg_buf_puts(b, "</td><td class=\"n\">");
	cost_cell(b, c->row.cost_reports > 0, c->row.cost_p90);
	hg_buf_puts(b, "</td><td>");
	versions(b, c);
	hg_buf_puts(b, "</td></tr>\n");
}

/* "…and N more", and where they all are. */
static void more(hg_buf *b, int64_t total, size_t shown)
{
	if (total > (int64_t)shown)
		hg_buf_printf(b, "<p class=\"dim\">…and %" PRId64 " more (every one is in the JSON "
			      "digest: <code>hangar nightly --format json</code>).</p>\n",
			      total - (int64_t)shown);
}

static void cluster_table(hg_buf *b, const char *id, const char *title, const char *none,
			  const struct dg_list *l, bool regressed, const struct chart_range *r)
{
	hg_buf_printf(b, "<h2 id=\"%s\">", id);
	html_text(b, title, 400);
	hg_buf_puts(b, "</h2>\n");
	if (!l->n) {
		hg_buf_printf(b, "<p>%s</p>\n", none);
		return;
	}
	hg_buf_puts(b, "<table><tr><th>#</th><th>cluster</th><th>kind</th><th>title</th>"
		    "<th>count</th><th>this run</th>");
	if (regressed)
		hg_buf_puts(b, "<th>before → now</th><th>p90 before → now ms</th>");
	hg_buf_puts(b, "<th>per day</th><th>p50 ms</th><th>p90 ms</th><th>versions</th></tr>\n");
	for (size_t i = 0; i < l->n; i++)
		table_row(b, i, &l->items[i], regressed, r);
	hg_buf_puts(b, "</table>\n");
	more(b, l->total, l->n);
}

static void changes(hg_buf *b, const struct digest *d, const struct chart_range *r)
{
	const hg_digest_run *run = d->run;
	if (d->diff.baseline) {
		hg_buf_printf(b, "<h2 id=\"new\">Baseline</h2>\n<p id=\"regressed\">%" PRId64
			      " cluster%s, baseline: the store held no reports before this run, so "
			      "nothing is new or regressed yet; the next runs compare with these.</p>\n",
			      d->diff.new_set_clusters, d->diff.new_set_clusters == 1 ? "" : "s");
		return;
	}
	cluster_table(b, "new", "New clusters", "No new clusters in this run.", &d->fresh, false, r);
	int64_t min = run->min_count > 1 ? run->min_count : 1;
	char title[160];
	snprintf(title, sizeof title, "Regressed clusters (at least %" PRId64 " report%s in this run; "
		 "count up %gx or p90 up more than %g%%)", min, min == 1 ? "" : "s", run->min_rise,
		 run->threshold);
	cluster_table(b, "regressed", title, "No regressions in this run.", &d->regressed, true, r);
}

/* Whether the cluster at lists[l].items[i] was listed before (one section
 * per cluster, whichever lists hold it). */
static bool seen_before(const struct dg_list *const *lists, size_t l, size_t i)
{
	const char *hash = lists[l]->items[i].hash;
	for (size_t pl = 0; pl <= l; pl++)
		for (size_t pi = 0; pi < (pl == l ? i : lists[pl]->n); pi++)
			if (!strcmp(lists[pl]->items[pi].hash, hash))
				return true;
	return false;
}

/* Who and where (each dimension some report names, but the version said
 * above), and what blocks the blamed thread over all reports. */
static void page_facts(hg_buf *b, const struct dg_cluster *c)
{
	if (!c->has_page)
		return;
	const hg_cluster_page *p = &c->page;
	for (size_t i = 1; i < HG_PAGE_DIMS; i++) {
		if (p->dims[i].total == p->dims[i].unknown)
			continue;
		hg_buf_puts(b, "<li class=\"who\"><b>");
		html_text(b, digest_dim_labels[i], 40);
		hg_buf_puts(b, "</b> ");
		digest_breakdown(b, &p->dims[i], html_text);
		hg_buf_puts(b, "</li>");
	}
	for (size_t i = 0; i < p->blockers.n && i < DIGEST_PAGE_VALUES; i++) {
		const hg_breakdown_value *v = &p->blockers.values[i];
		if (!v->value)
			continue;
		hg_buf_printf(b, "<li class=\"blocker\"><b>blocked by</b> in %" PRId64 " of %" PRId64
			      " reports: ", v->count, p->count);
		html_text(b, v->value, CELL_MAX);
		hg_buf_puts(b, "</li>");
	}
}

static void cluster_section(hg_buf *b, const struct dg_cluster *c, size_t number,
			    const struct chart_range *r)
{
	hg_buf_puts(b, "<section class=\"cluster\" id=\"");
	anchor(b, c->hash);
	hg_buf_puts(b, "\"><h3><code>");
	html_text(b, c->hash, 12);
	hg_buf_puts(b, "</code> ");
	title_text(b, c, false, 400);
	hg_buf_puts(b, "</h3>\n<ul class=\"facts\"><li><b>kind</b> ");
	html_text(b, c->kind, CELL_MAX);
	hg_buf_printf(b, "</li><li><b>reports</b> %" PRId64 " (%" PRId64 " this run)</li>"
		      "<li><b>p50 / p90</b> ", c->count, c->run_count);
	if (c->row.cost_reports)
		hg_buf_printf(b, "%" PRId64 " / %" PRId64 " ms", c->row.cost_p50, c->row.cost_p90);
	else
		hg_buf_puts(b, "— (nobody measured it)");
	hg_buf_puts(b, "</li><li><b>first seen</b> ");
	html_text(b, c->first_seen ? c->first_seen : "unknown", 64);
	hg_buf_puts(b, "</li><li><b>last seen</b> ");
	html_text(b, c->last_seen ? c->last_seen : "unknown", 64);
	hg_buf_puts(b, "</li><li><b>StackKey</b> ");
	html_text(b, c->key_symbol ? c->key_symbol : "—", CELL_MAX);
	hg_buf_puts(b, "</li><li><b>versions</b> ");
	versions(b, c);
	hg_buf_puts(b, "</li>");
	page_facts(b, c);
	hg_buf_puts(b, "</ul>\n<div>");
	chart_write(b, c, r, true);
	hg_buf_puts(b, "</div>\n");
	if (!c->flame.n) {
		hg_buf_puts(b, "<p class=\"dim\">No call tree recorded for this cluster.</p>\n");
	} else {
		char prefix[32];
		snprintf(prefix, sizeof prefix, "f%zu-", number);
		hg_flame_svg_opts o = {.width = FLAME_WIDTH, .embedded = true, .id_prefix = prefix};
		hg_buf_puts(b, "<div class=\"flame\">");
		hg_flame_write_svg(&c->flame, &o, b);
		hg_buf_puts(b, "</div>\n");
	}
	hg_buf_puts(b, "</section>\n");
}

static void sections(hg_buf *b, const struct digest *d, const struct chart_range *r)
{
	const struct dg_list *const lists[] = {&d->top, &d->fresh, &d->regressed};
	hg_buf_puts(b, "<h2 id=\"clusters\">Flame graphs of the listed clusters</h2>\n<p class=\"dim\">"
		    "Each cluster's merged call tree, root on top, widths by cost. Hover a frame for its "
		    "cost and calls, click it to zoom, search by name; the StackKey path is "
		    "outlined.</p>\n");
	size_t number = 0;
	for (size_t l = 0; l < 3; l++)
		for (size_t i = 0; i < lists[l]->n; i++)
			if (!seen_before(lists, l, i))
				cluster_section(b, &lists[l]->items[i], number++, r);
	if (!number)
		hg_buf_puts(b, "<p>No clusters listed.</p>\n");
}

static void failed(hg_buf *b, const struct digest *d)
{
	hg_buf_puts(b, "<h2 id=\"failed\">Failed fetches</h2>\n");
	if (!d->n_failed) {
		hg_buf_puts(b, "<p>None.</p>\n");
		return;
	}
	hg_buf_puts(b, "<table><tr><th>source</th><th>key</th><th>error</th><th>attempts</th></tr>\n");
	for (size_t i = 0; i < d->n_failed; i++) {
		const struct dg_object *o = &d->failed[i];
		hg_buf_puts(b, "<tr><td>");
		html_text(b, o->source, CELL_MAX);
		hg_buf_puts(b, "</td><td>");
		html_text(b, o->key, CELL_MAX);
		hg_buf_puts(b, "</td><td class=\"warn\">");
		html_text(b, o->error, CELL_MAX);
		hg_buf_printf(b, "</td><td class=\"n\">%" PRId64 "</td></tr>\n", o->attempts);
	}
	hg_buf_puts(b, "</table>\n");
	more(b, d->failed_total, d->n_failed);
}

static void rejected(hg_buf *b, const struct digest *d)
{
	hg_buf_puts(b, "<h2 id=\"rejected\">Rejected inputs</h2>\n");
	if (!d->n_rejected) {
		hg_buf_puts(b, "<p>None.</p>\n");
		return;
	}
	hg_buf_puts(b, "<table><tr><th>source</th><th>line</th><th>reason</th></tr>\n");
	for (size_t i = 0; i < d->n_rejected; i++) {
		const struct dg_rejected *r = &d->rejected[i];
		hg_buf_puts(b, "<tr><td>");
		html_text(b, r->source, CELL_MAX);
		hg_buf_printf(b, "</td><td class=\"n\">%ld</td><td class=\"warn\">", r->line);
		html_text(b, r->reason, CELL_MAX);
		hg_buf_puts(b, "</td></tr>\n");
	}
	hg_buf_puts(b, "</table>\n");
	more(b, d->rejected_total, d->n_rejected);
}

/* A rate per 1,000 sessions in a cell. */
static void rate_cell(hg_buf *b, double rate)
{
	if (rate >= 0)
		hg_buf_printf(b, "<td class=\"n\">%.2f</td>", rate);
	else
		hg_buf_puts(b, "<td class=\"n\">—</td>");
}

void digest_html_rates(hg_buf *b, const struct digest *d)
{
	if (!d->run->sessions)
		return;
	hg_buf_puts(b, "<h2 id=\"rates\">Rates by version</h2>\n<p>");
	digest_rates_note(b, d);
	hg_buf_puts(b, "</p>\n");
	if (!d->n_rates) {
		hg_buf_puts(b, "<p>The sessions file names no version.</p>\n");
		return;
	}
	hg_buf_puts(b, "<table><tr><th>version</th><th>sessions</th><th>reports</th><th>per 1k</th>"
		    "<th>ANRs</th><th>ANRs per 1k</th><th></th></tr>\n");
	for (size_t i = 0; i < d->n_rates; i++) {
		const struct dg_rate *r = &d->rates[i];
		hg_buf_puts(b, "<tr><td>");
		html_text(b, r->version, CELL_MAX);
		hg_buf_printf(b, "</td><td class=\"n\">%" PRId64 "</td><td class=\"n\">%" PRId64
			      "</td>", r->sessions, r->reports);
		rate_cell(b, r->rate);
		hg_buf_printf(b, "<td class=\"n\">%" PRId64 "</td>", r->anrs);
		rate_cell(b, r->anr_rate);
		if (r->over)
			hg_buf_printf(b, "<td class=\"warn over\">over %g</td></tr>\n", d->rate_threshold);
		else
			hg_buf_puts(b, "<td></td></tr>\n");
	}
	hg_buf_puts(b, "</table>\n");
	if (d->uncounted)
		hg_buf_printf(b, "<p class=\"dim\">%" PRId64 " report%s of versions or days the sessions "
			      "file does not give (or without a version) are in no rate.</p>\n",
			      d->uncounted, d->uncounted == 1 ? "" : "s");
}

void digest_html_escalating(hg_buf *b, const struct digest *d)
{
	hg_buf_puts(b, "<h2 id=\"escalating\">Escalating clusters</h2>\n");
	if (!d->escalation_day) {
		hg_buf_puts(b, "<p>No report has a time: nothing to compare day by day.</p>\n");
		return;
	}
	hg_buf_puts(b, d->n_escalating ? "<p>Escalating on " : "<p>None on ");
	html_text(b, d->escalation_day, 16);
	hg_buf_puts(b, ", the latest day with reports: ");
	digest_escalation_rule(b, d);
	hg_buf_puts(b, ".</p>\n");
	if (!d->n_escalating)
		return;
	hg_buf_puts(b, "<table><tr><th>#</th><th>cluster</th><th>kind</th><th>title</th>"
		    "<th>that day</th><th>mean before</th><th>days before</th></tr>\n");
	for (size_t i = 0; i < d->n_escalating; i++) {
		const struct dg_escalation *e = &d->escalating[i];
		hg_buf_printf(b, "<tr><td class=\"n\">%zu</td><td><code>", i + 1);
		html_text(b, e->hash, 12);
		hg_buf_puts(b, "</code></td><td>");
		html_text(b, e->kind, CELL_MAX);
		hg_buf_puts(b, "</td><td>");
		html_text(b, e->title, CELL_MAX);
		hg_buf_printf(b, "</td><td class=\"n\">%" PRId64 "</td><td class=\"n\">%.1f</td>"
			      "<td class=\"n\">%" PRId64 "</td></tr>\n", e->count, e->mean, e->days);
	}
	hg_buf_puts(b, "</table>\n");
	more(b, d->escalating_total, d->n_escalating);
}

void digest_html(const struct digest *d, hg_buf *b)
{
	struct chart_range r;
	chart_range(d, &r);
	head(b, d);
	heading(b, d);
	totals(b, d);
	digest_html_rates(b, d);
	char title[64];
	snprintf(title, sizeof title, "Top %d clusters (all time, by count)", d->top_limit);
	cluster_table(b, "top", title, "No clusters yet.", &d->top, false, &r);
	digest_html_escalating(b, d);
	changes(b, d, &r);
	digest_coverage_html(b, d, html_text);
	sections(b, d, &r);
	failed(b, d);
	rejected(b, d);
	hg_buf_puts(b, "<p class=\"dim\">Written by hangar " HG_VERSION ".</p>\n</body></html>\n");
}
