/* The digest as one JSON object (hangar-formats(5), DIGEST): keys in a
 * fixed order, counts as integers, every string escaped by
 * hg_buf_json_string. */
#include <inttypes.h>
#include <string.h>

#include "digest_internal.h"
#include "hangar/render.h"

/* ,"key":"value" (or null); the first member of an object passes no comma. */
static void str(hg_buf *b, const char *key, const char *value)
{
	hg_buf_printf(b, "\"%s\":", key);
	if (value)
		hg_buf_json_string(b, value, strlen(value));
	else
		hg_buf_puts(b, "null");
}

static void num(hg_buf *b, const char *key, int64_t value)
{
	hg_buf_printf(b, "\"%s\":%" PRId64, key, value);
}

static void cluster(hg_buf *b, const struct dg_cluster *c, bool regressed)
{
	/* The keys a top row has, then the digest's own */
	hg_buf_putc(b, '{');
	hg_cluster_json_members(b, &c->row);
	hg_buf_printf(b, ",\"run_count\":%" PRId64, c->run_count);
	if (c->fig) {
		hg_buf_puts(b, ",\"figures_by_version\":[");
		bool first = true;
		for (size_t i = 0; i < c->n_versions; i++) {
			if (!c->versions[i].fig)
				continue;
			hg_buf_puts(b, first ? "{" : ",{");
			first = false;
			str(b, "version", c->versions[i].unknown ? NULL : c->versions[i].version);
			hg_buf_puts(b, ",\"figures\":");
			hg_figures_json(b, c->versions[i].fig);
			hg_buf_putc(b, '}');
		}
		hg_buf_putc(b, ']');
	}
	if (regressed) {
		hg_diff_row r = {.old_count = c->old_count, .new_count = c->new_count,
				 .old_p90 = c->old_p90, .new_p90 = c->new_p90,
				 .cost_unknown = c->cost_unknown,
				 .old_fps_reports = c->old_fps_reports,
				 .new_fps_reports = c->new_fps_reports, .old_fps = c->old_fps,
				 .new_fps = c->new_fps, .old_share = c->old_share,
				 .new_share = c->new_share};
		hg_diff_sides_json(b, &r);
	}
	if (c->has_page) /* show's page: breakdowns, blockers, variants */
		hg_render_cluster_page_json(b, &c->page);
	hg_buf_printf(b, ",\"key_path\":{\"depth\":%" PRId64 ",\"nodes\":[", c->path_depth);
	for (size_t i = 0; i < c->n_path; i++) {
		const struct dg_node *n = &c->path[i];
		hg_buf_puts(b, i ? ",{" : "{");
		num(b, "depth", n->depth);
		hg_buf_putc(b, ',');
		str(b, "symbol", n->symbol);
		hg_buf_putc(b, ',');
		num(b, "reports", n->reports);
		hg_buf_putc(b, ',');
		/* null: no report of the cluster measured a cost */
		if (c->row.cost_reports)
			num(b, "total_cost", n->total_cost);
		else
			hg_buf_puts(b, "\"total_cost\":null");
		hg_buf_putc(b, '}');
	}
	hg_buf_printf(b, "],\"ends_at_stack_key\":%s}}", c->key_at_end ? "true" : "false");
}

static void clusters(hg_buf *b, const char *key, const struct dg_list *l, bool regressed)
{
	hg_buf_printf(b, ",\"%s\":{\"total\":%" PRId64 ",\"clusters\":[", key, l->total);
	for (size_t i = 0; i < l->n; i++) {
		if (i)
			hg_buf_putc(b, ',');
		cluster(b, &l->items[i], regressed);
	}
	hg_buf_puts(b, "]}");
}

static void heading(hg_buf *b, const struct digest *d)
{
	const hg_digest_run *r = d->run;
	hg_buf_puts(b, "{\"digest_version\":3,");
	str(b, "source", r->source);
	hg_buf_putc(b, ',');
	str(b, "started", r->started);
	hg_buf_putc(b, ',');
	str(b, "finished", r->finished);
	hg_buf_putc(b, ',');
	num(b, "first_report_id", r->first_report_id);
	hg_buf_printf(b, ",\"top_limit\":%d,\"threshold\":%.15g,\"min_count\":%" PRId64
		      ",\"min_rise\":%.15g,\"baseline\":%s", d->top_limit, r->threshold,
		      r->min_count > 1 ? r->min_count : 1, r->min_rise,
		      d->diff.baseline ? "true" : "false");
	hg_buf_printf(b, ",\"run\":{\"new_reports\":%" PRId64 ",\"duplicates\":%" PRId64
		      ",\"rejected\":%" PRId64 ",\"rejected_before\":%" PRId64
		      ",\"expired\":%" PRId64 ",\"objects\":",
		      r->new_reports, r->duplicates, r->rejected, r->rejected_before, r->expired);
	if (r->remote)
		hg_buf_printf(b, "{\"listed\":%" PRId64 ",\"fetched\":%" PRId64
			      ",\"skipped\":%" PRId64 ",\"failed\":%" PRId64 "}}", r->objects_listed,
			      r->objects_fetched, r->objects_skipped, r->objects_failed);
	else
		hg_buf_puts(b, "null}");
}

/* A rate: a number, null when unknown. */
static void rate(hg_buf *b, const char *key, double value)
{
	hg_buf_printf(b, ",\"%s\":", key);
	hg_rate_json(b, value);
}

void digest_json_trends(hg_buf *b, const struct digest *d)
{
	if (!d->run->sessions) {
		hg_buf_puts(b, ",\"rates\":null");
	} else {
		hg_buf_printf(b, ",\"rates\":{\"threshold\":%.15g,\"uncounted\":%" PRId64
			      ",\"versions\":[", d->rate_threshold, d->uncounted);
		for (size_t i = 0; i < d->n_rates; i++) {
			const struct dg_rate *r = &d->rates[i];
			hg_buf_puts(b, i ? ",{" : "{");
			str(b, "version", r->version);
			hg_buf_printf(b, ",\"sessions\":%" PRId64 ",\"reports\":%" PRId64, r->sessions,
				      r->reports);
			rate(b, "rate", r->rate);
			hg_buf_printf(b, ",\"anrs\":%" PRId64, r->anrs);
			rate(b, "anr_rate", r->anr_rate);
			hg_buf_printf(b, ",\"over\":%s}", r->over ? "true" : "false");
		}
		hg_buf_puts(b, "]}");
	}
	hg_buf_puts(b, ",\"escalating\":{");
	str(b, "day", d->escalation_day);
	hg_buf_printf(b, ",\"factor\":%.15g,\"days\":%d,\"min\":%" PRId64 ",\"total\":%" PRId64
		      ",\"clusters\":[", d->rule.factor, d->rule.days, d->rule.min,
		      d->escalating_total);
	for (size_t i = 0; i < d->n_escalating; i++) {
		const struct dg_escalation *e = &d->escalating[i];
		hg_buf_puts(b, i ? ",{" : "{");
		str(b, "hash", e->hash);
		hg_buf_putc(b, ',');
		str(b, "kind", e->kind);
		hg_buf_putc(b, ',');
		str(b, "title", e->title);
		hg_buf_printf(b, ",\"count\":%" PRId64 ",\"mean\":%.15g,\"days\":%" PRId64 "}",
			      e->count, e->mean, e->days);
	}
	hg_buf_puts(b, "]}");
}

void digest_json(const struct digest *d, hg_buf *b)
{
	heading(b, d);
	hg_buf_printf(b, ",\"totals\":{\"run\":%" PRId64 ",\"all\":%" PRId64 ",\"by_kind\":[",
		      d->run_total, d->all_total);
	for (size_t i = 0; i < d->n_kinds; i++) {
		hg_buf_puts(b, i ? ",{" : "{");
		str(b, "kind", d->kinds[i].kind);
		hg_buf_printf(b, ",\"run\":%" PRId64 ",\"all\":%" PRId64 "}", d->kinds[i].run,
			      d->kinds[i].all);
	}
	hg_buf_puts(b, "]}");
	digest_json_trends(b, d);
	digest_coverage_json(b, d);
	clusters(b, "top", &d->top, false);
	clusters(b, "new", &d->fresh, false);
	clusters(b, "regressed", &d->regressed, true);
	hg_buf_printf(b, ",\"failed_objects\":{\"total\":%" PRId64 ",\"objects\":[", d->failed_total);
	for (size_t i = 0; i < d->n_failed; i++) {
		const struct dg_object *o = &d->failed[i];
		hg_buf_puts(b, i ? ",{" : "{");
		str(b, "source", o->source);
		hg_buf_putc(b, ',');
		str(b, "key", o->key);
		hg_buf_putc(b, ',');
		str(b, "error", o->error);
		hg_buf_putc(b, ',');
		num(b, "attempts", o->attempts);
		hg_buf_putc(b, ',');
		str(b, "at", o->at);
		hg_buf_putc(b, '}');
	}
	hg_buf_printf(b, "]},\"rejected\":{\"total\":%" PRId64 ",\"inputs\":[", d->rejected_total);
	for (size_t i = 0; i < d->n_rejected; i++) {
		const struct dg_rejected *r = &d->rejected[i];
		hg_buf_puts(b, i ? ",{" : "{");
		str(b, "source", r->source);
		hg_buf_printf(b, ",\"line\":%ld,", r->line);
		str(b, "reason", r->reason);
		hg_buf_putc(b, ',');
		str(b, "at", r->at);
		hg_buf_putc(b, '}');
	}
	hg_buf_puts(b, "]}}\n");
}
