/* The digest in GitHub-flavoured Markdown, for people: a heading with the
 * run's counts, then tables (totals by kind, top, new and regressed
 * clusters, failed fetches, rejected inputs), each cluster list followed by
 * the StackKey paths in fenced code blocks.  Text from reports is escaped
 * so that it cannot break a table or turn into markup. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "digest_internal.h"

#define CELL_MAX 160  /* bytes of a cell's text before it is cut with … */

/* Appends s as inline text: Markdown punctuation that could start markup
 * or end a table cell backslash-escaped, line breaks and tabs as spaces,
 * other control bytes and invalid UTF-8 as U+FFFD, cut after max bytes. */
static void md_text(hg_buf *b, const char *s, size_t max)
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
		if (c == '\n' || c == '\r' || c == '\t') {
			hg_buf_putc(b, ' ');
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			hg_buf_puts(b, "\xef\xbf\xbd");
			i++;
		} else if (c < 0x80) {
			if (strchr("\\`*_[]<>|&~", c))
				hg_buf_putc(b, '\\');
			hg_buf_putc(b, (char)c);
			i++;
		} else {
			size_t n = hg_utf8_len(s + i, len - i);
			if (n)
				hg_buf_add(b, s + i, n);
			else
				hg_buf_puts(b, "\xef\xbf\xbd");
			i += n ? n : 1;
		}
	}
}

/* Appends s as a line of a fenced code block: no markup there, so only
 * what would break the line (control bytes) or the encoding is replaced.
 * A line cannot close the fence: each starts with digits or spaces and
 * a symbol. */
static void md_code(hg_buf *b, const char *s)
{
	size_t len = strlen(s);
	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)s[i];
		size_t n = c < 0x80 ? 1 : hg_utf8_len(s + i, len - i);
		if (c < 0x20 || c == 0x7f || n == 0)
			hg_buf_puts(b, "\xef\xbf\xbd");
		else
			hg_buf_add(b, s + i, n);
		i += n ? n : 1;
	}
}

/* Appends a relative link target: bytes that would end or break a
 * Markdown link (space, parentheses, <, >, control bytes) and non-ASCII
 * bytes percent-encoded. */
static void md_link(hg_buf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c <= 0x20 || c >= 0x7f || strchr("()<>[]\\`%", c))
			hg_buf_printf(b, "%%%02X", c);
		else
			hg_buf_putc(b, (char)c);
	}
}

static void versions(hg_buf *b, const struct dg_cluster *c)
{
	digest_versions(b, c, md_text);
}

static void table_head(hg_buf *b, bool regressed)
{
	hg_buf_puts(b, "| # | cluster | kind | title | StackKey | count | this run |");
	if (regressed)
		hg_buf_puts(b, " before → now | p90 before → now ms |");
	hg_buf_puts(b, " versions | first seen | last seen | p50 ms | p90 ms |\n");
	hg_buf_puts(b, "|--:|---|---|---|---|--:|--:|");
	if (regressed)
		hg_buf_puts(b, "--:|--:|");
	hg_buf_puts(b, "---|---|---|--:|--:|\n");
}

static void table_row(hg_buf *b, size_t i, const struct dg_cluster *c, bool regressed)
{
	hg_buf_printf(b, "| %zu | `%.12s` | ", i + 1, c->hash);
	md_text(b, c->kind, CELL_MAX);
	hg_buf_puts(b, " | ");
	md_text(b, c->title, CELL_MAX);
	hg_buf f;
	hg_buf_init(&f);
	digest_title_figures(&f, c, regressed);
	if (f.len)
		md_text(b, f.data, CELL_MAX);
	b->failed |= f.failed;
	hg_buf_release(&f);
	hg_buf_puts(b, " | ");
	md_text(b, c->key_symbol ? c->key_symbol : "—", CELL_MAX);
	hg_buf_printf(b, " | %" PRId64 " | %" PRId64 " |", c->count, c->run_count);
	if (regressed && c->cost_unknown) /* FPS: no cost was measured */
		hg_buf_printf(b, " %" PRId64 " → %" PRId64 " | — → — |", c->old_count, c->new_count);
	else if (regressed)
		hg_buf_printf(b, " %" PRId64 " → %" PRId64 " | %" PRId64 " → %" PRId64 " |",
			      c->old_count, c->new_count, c->old_p90, c->new_p90);
	hg_buf_putc(b, ' ');
	versions(b, c);
	hg_buf_puts(b, " | ");
	md_text(b, c->first_seen ? c->first_seen : "unknown", CELL_MAX);
	hg_buf_puts(b, " | ");
	md_text(b, c->last_seen ? c->last_seen : "unknown", CELL_MAX);
	if (c->row.cost_reports)
		hg_buf_printf(b, " | %" PRId64 " | %" PRId64 " |\n", c->row.cost_p50, c->row.cost_p90);
	else
		hg_buf_puts(b, " | — | — |\n"); /* nobody measured it: not 0 */
}

/* Who and where, a line per dimension some report names (not the
 * version: the table says it), and what blocks the blamed thread. */
static void page_facts(hg_buf *b, const struct dg_cluster *c)
{
	if (!c->has_page)
		return;
	const hg_cluster_page *p = &c->page;
	for (size_t i = 1; i < HG_PAGE_DIMS; i++) {
		if (p->dims[i].total == p->dims[i].unknown)
			continue;
		hg_buf_printf(b, "- %s: ", digest_dim_labels[i]);
		digest_breakdown(b, &p->dims[i], md_text);
		hg_buf_putc(b, '\n');
	}
	for (size_t i = 0; i < p->blockers.n && i < DIGEST_PAGE_VALUES; i++) {
		const hg_breakdown_value *v = &p->blockers.values[i];
		if (!v->value)
			continue;
		hg_buf_printf(b, "- blocked by, in %" PRId64 " of %" PRId64 " reports: ", v->count,
			      p->count);
		md_code(b, v->value);
		hg_buf_putc(b, '\n');
	}
}

/* The end of the StackKey path: reports through each node, total ms, the
 * frame.  Excerpts follow one another without blank lines (a fence ends
 * a paragraph and a paragraph may follow a fence): a line saved each. */
static void excerpt(hg_buf *b, size_t i, const struct dg_cluster *c)
{
	hg_buf_printf(b, "%s**%zu. `%.12s`** StackKey path", i ? "" : "\n", i + 1, c->hash);
	if (!c->n_path) {
		hg_buf_puts(b, ": none recorded\n");
		page_facts(b, c);
		return;
	}
	hg_buf_printf(b, ", %" PRId64 " frame%s", c->path_depth, c->path_depth == 1 ? "" : "s");
	if ((int64_t)c->n_path < c->path_depth)
		hg_buf_printf(b, ", the last %zu", c->n_path);
	hg_buf_puts(b, " (reports, total ms):\n```\n");
	for (size_t k = 0; k < c->n_path; k++) {
		const struct dg_node *n = &c->path[k];
		hg_buf_printf(b, "%8" PRId64 " %10" PRId64 "  %*s", n->reports, n->total_cost,
			      (int)(2 * k), "");
		md_code(b, n->symbol);
		if (k + 1 == c->n_path && c->key_at_end)
			hg_buf_puts(b, "   <- StackKey");
		hg_buf_putc(b, '\n');
	}
	hg_buf_puts(b, "```\n");
	page_facts(b, c);
}

/* "…and N more", and where they all are: the Markdown is cut to fit on a
 * screen or two, the JSON digest is not. */
static void more(hg_buf *b, int64_t total, size_t shown)
{
	if (total > (int64_t)shown)
		hg_buf_printf(b, "\n…and %" PRId64 " more (every one is in the JSON digest: "
			      "`hangar nightly --format json`).\n", total - (int64_t)shown);
}

/* A list of clusters: the table, then (with paths) each one's StackKey
 * path excerpt. */
static void cluster_section(hg_buf *b, const char *title, const char *none,
			    const struct dg_list *l, bool regressed, bool paths)
{
	hg_buf_printf(b, "\n## %s\n\n", title);
	if (!l->n) {
		hg_buf_printf(b, "%s\n", none);
		return;
	}
	table_head(b, regressed);
	for (size_t i = 0; i < l->n; i++)
		table_row(b, i, &l->items[i], regressed);
	more(b, l->total, l->n);
	for (size_t i = 0; paths && i < l->n; i++)
		excerpt(b, i, &l->items[i]);
}

static void heading(hg_buf *b, const struct digest *d)
{
	const hg_digest_run *r = d->run;
	hg_buf_puts(b, "# hangar nightly digest\n\n");
	if (r->html_name) {
		hg_buf_puts(b, "- **Pictures:** [");
		md_text(b, r->html_name, 1000);
		hg_buf_puts(b, "](");
		md_link(b, r->html_name);
		hg_buf_puts(b, "), the same digest as one page, with charts per day and flame graphs\n");
	}
	hg_buf_puts(b, "- **Source:** ");
	md_text(b, r->source ? r->source : "(none)", 1000);
	hg_buf_puts(b, "\n- **Run:** ");
	md_text(b, r->started ? r->started : "?", 64);
	hg_buf_puts(b, " → ");
	md_text(b, r->finished ? r->finished : "?", 64);
	hg_buf_printf(b, "\n- **This run:** %" PRId64 " new reports, %" PRId64 " duplicates, %" PRId64
		      " rejected", r->new_reports, r->duplicates, r->rejected);
	if (r->rejected_before)
		hg_buf_printf(b, " (and %" PRId64 " rejected before, the same bytes: not counted)",
			      r->rejected_before);
	if (r->expired)
		hg_buf_printf(b, "; %" PRId64 " expired (older than the store keeps: not stored)",
			      r->expired);
	hg_buf_putc(b, '\n');
	/* Local files and folders have no objects: no line of zeros. */
	if (r->remote)
		hg_buf_printf(b, "- **Objects:** %" PRId64 " listed, %" PRId64 " fetched, %" PRId64
			      " skipped, %" PRId64 " failed\n", r->objects_listed, r->objects_fetched,
			      r->objects_skipped, r->objects_failed);
}

static void totals(hg_buf *b, const struct digest *d)
{
	hg_buf_puts(b, "\n## Totals by kind\n\n");
	if (d->run_total == 0)
		hg_buf_puts(b, "No new reports in this run.\n\n");
	if (d->n_kinds == 0) {
		hg_buf_puts(b, "The store holds no reports yet.\n");
		return;
	}
	hg_buf_puts(b, "| kind | this run | all time |\n|---|--:|--:|\n");
	for (size_t i = 0; i < d->n_kinds; i++) {
		hg_buf_puts(b, "| ");
		md_text(b, d->kinds[i].kind, CELL_MAX);
		hg_buf_printf(b, " | %" PRId64 " | %" PRId64 " |\n", d->kinds[i].run, d->kinds[i].all);
	}
	hg_buf_printf(b, "| **total** | %" PRId64 " | %" PRId64 " |\n", d->run_total, d->all_total);
}

static void failed(hg_buf *b, const struct digest *d)
{
	hg_buf_puts(b, "\n## Failed fetches\n\n");
	if (!d->n_failed) {
		hg_buf_puts(b, "None.\n");
		return;
	}
	hg_buf_puts(b, "| source | key | error | attempts |\n|---|---|---|--:|\n");
	for (size_t i = 0; i < d->n_failed; i++) {
		const struct dg_object *o = &d->failed[i];
		hg_buf_puts(b, "| ");
		md_text(b, o->source, CELL_MAX);
		hg_buf_puts(b, " | ");
		md_text(b, o->key, CELL_MAX);
		hg_buf_puts(b, " | ");
		md_text(b, o->error, CELL_MAX);
		hg_buf_printf(b, " | %" PRId64 " |\n", o->attempts);
	}
	more(b, d->failed_total, d->n_failed);
}

static void rejected(hg_buf *b, const struct digest *d)
{
	hg_buf_puts(b, "\n## Rejected inputs\n\n");
	if (!d->n_rejected) {
		hg_buf_puts(b, "None.\n");
		return;
	}
	hg_buf_puts(b, "| source | line | reason |\n|---|--:|---|\n");
	for (size_t i = 0; i < d->n_rejected; i++) {
		const struct dg_rejected *r = &d->rejected[i];
		hg_buf_puts(b, "| ");
		md_text(b, r->source, CELL_MAX);
		hg_buf_printf(b, " | %ld | ", r->line);
		md_text(b, r->reason, CELL_MAX);
		hg_buf_puts(b, " |\n");
	}
	more(b, d->rejected_total, d->n_rejected);
}

/* The new and regressed lists; for a baseline, what it is instead. */
static void changes(hg_buf *b, const struct digest *d)
{
	const hg_digest_run *r = d->run;
	if (d->diff.baseline) {
		hg_buf_printf(b, "\n## Baseline\n\n%" PRId64 " cluster%s, baseline: the store held no "
			      "reports before this run, so nothing is new or regressed yet; the next "
			      "runs compare with these.\n", d->diff.new_set_clusters,
			      d->diff.new_set_clusters == 1 ? "" : "s");
		return;
	}
	cluster_section(b, "New clusters", "No new clusters in this run.", &d->fresh, false, true);
	int64_t min = r->min_count > 1 ? r->min_count : 1;
	char reg[160];
	snprintf(reg, sizeof reg, "Regressed clusters (at least %" PRId64 " report%s in this run; "
		 "count up %gx or p90 up more than %g%%)", min, min == 1 ? "" : "s", r->min_rise,
		 r->threshold);
	cluster_section(b, reg, "No regressions in this run.", &d->regressed, true, true);
}

/* A rate per 1,000 sessions in a cell: "4.00", "—" when unknown. */
static void rate_cell(hg_buf *b, double rate)
{
	if (rate >= 0)
		hg_buf_printf(b, " %.2f |", rate);
	else
		hg_buf_puts(b, " — |");
}

void digest_md_rates(hg_buf *b, const struct digest *d)
{
	if (!d->run->sessions)
		return;
	hg_buf_puts(b, "\n## Rates by version\n\n");
	digest_rates_note(b, d);
	hg_buf_puts(b, "\n\n");
	if (!d->n_rates) {
		hg_buf_puts(b, "The sessions file names no version.\n");
		return;
	}
	hg_buf_puts(b, "| version | sessions | reports | per 1k | ANRs | ANRs per 1k | |\n"
		    "|---|--:|--:|--:|--:|--:|---|\n");
	for (size_t i = 0; i < d->n_rates; i++) {
		const struct dg_rate *r = &d->rates[i];
		hg_buf_puts(b, "| ");
		md_text(b, r->version, CELL_MAX);
		hg_buf_printf(b, " | %" PRId64 " | %" PRId64 " |", r->sessions, r->reports);
		rate_cell(b, r->rate);
		hg_buf_printf(b, " %" PRId64 " |", r->anrs);
		rate_cell(b, r->anr_rate);
		hg_buf_printf(b, r->over ? " **over %g** |\n" : " |\n", d->rate_threshold);
	}
	if (d->uncounted)
		hg_buf_printf(b, "\n%" PRId64 " report%s of versions or days the sessions file does not "
			      "give (or without a version) are in no rate.\n", d->uncounted,
			      d->uncounted == 1 ? "" : "s");
}

void digest_md_escalating(hg_buf *b, const struct digest *d)
{
	hg_buf_puts(b, "\n## Escalating clusters\n\n");
	if (!d->escalation_day) {
		hg_buf_puts(b, "No report has a time: nothing to compare day by day.\n");
		return;
	}
	/* none: one line, so that a quiet night's digest stays short */
	hg_buf_printf(b, "%s on %s, the latest day with reports: ",
		      d->n_escalating ? "Escalating" : "None", d->escalation_day);
	digest_escalation_rule(b, d);
	hg_buf_puts(b, d->n_escalating ? ".\n\n" : ".\n");
	if (!d->n_escalating)
		return;
	hg_buf_puts(b, "| # | cluster | kind | title | that day | mean before | days before |\n"
		    "|--:|---|---|---|--:|--:|--:|\n");
	for (size_t i = 0; i < d->n_escalating; i++) {
		const struct dg_escalation *e = &d->escalating[i];
		hg_buf_printf(b, "| %zu | `%.12s` | ", i + 1, e->hash);
		md_text(b, e->kind, CELL_MAX);
		hg_buf_puts(b, " | ");
		md_text(b, e->title, CELL_MAX);
		hg_buf_printf(b, " | %" PRId64 " | %.1f | %" PRId64 " |\n", e->count, e->mean, e->days);
	}
	more(b, d->escalating_total, d->n_escalating);
}

void digest_markdown(const struct digest *d, hg_buf *b)
{
	heading(b, d);
	totals(b, d);
	digest_md_rates(b, d);
	char title[64];
	snprintf(title, sizeof title, "Top %d clusters (all time, by count)", d->top_limit);
	cluster_section(b, title, "No clusters yet.", &d->top, false, false);
	digest_md_escalating(b, d);
	changes(b, d);
	digest_coverage_md(b, d, md_text);
	failed(b, d);
	rejected(b, d);
}
