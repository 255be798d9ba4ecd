/* A cluster as JSON: the one writer of the keys a cluster has wherever it
 * appears (a top row, show, the digest's lists; hangar-formats(5), JSON
 * SCHEMAS), and of a diff row's two sides, so that the same thing has the
 * same name and type in every output.  Unknowns are null, never 0. */
#include <inttypes.h>
#include <string.h>

#include "store_internal.h"

static void string_or_null(hg_buf *b, const char *s)
{
	if (s)
		hg_buf_json_string(b, s, strlen(s));
	else
		hg_buf_puts(b, "null");
}

void hg_cluster_json_members(hg_buf *b, const hg_cluster_row *c)
{
	hg_buf_puts(b, "\"hash\":");
	string_or_null(b, c->hash);
	hg_buf_puts(b, ",\"kind\":");
	string_or_null(b, c->kind);
	hg_buf_puts(b, ",\"title\":");
	string_or_null(b, c->title);
	hg_buf_puts(b, ",\"stack_key\":{\"symbol\":");
	string_or_null(b, c->key_symbol);
	hg_buf_printf(b, "},\"count\":%" PRId64 ",\"devices\":", c->count);
	/* null: no report of the cluster names a device, so none were counted */
	if (c->devices)
		hg_buf_printf(b, "%" PRId64, c->devices);
	else
		hg_buf_puts(b, "null");
	hg_buf_printf(b, ",\"reports_without_device\":%" PRId64 ",\"first_seen\":", c->no_device);
	string_or_null(b, c->first_seen);
	hg_buf_puts(b, ",\"last_seen\":");
	string_or_null(b, c->last_seen);
	/* null: no report of the set measured its cost (an ANR trace without
	 * a wait, FPS), not 0 */
	if (c->cost_reports)
		hg_buf_printf(b, ",\"cost\":{\"p50\":%" PRId64 ",\"p90\":%" PRId64 ",\"p99\":%" PRId64
			      ",\"max\":%" PRId64 "}", c->cost_p50, c->cost_p90, c->cost_p99,
			      c->cost_max);
	else
		hg_buf_puts(b, ",\"cost\":{\"p50\":null,\"p90\":null,\"p99\":null,\"max\":null}");
	hg_buf_printf(b, ",\"by_version\":%s,\"symbolicated\":%s",
		      c->by_version && *c->by_version ? c->by_version : "[]",
		      c->symbolicated ? "true" : "false");
	if (hg_figures_any(c->figures)) {
		hg_buf_puts(b, ",\"figures\":");
		hg_figures_json(b, c->figures);
	}
	hg_buf_printf(b, ",\"escalating\":%s", c->escalating ? "true" : "false");
	if (c->rated) { /* with sessions: null when they give none for the query */
		hg_buf_puts(b, ",\"rate\":");
		hg_rate_json(b, c->rate);
	}
}

void hg_rate_json(hg_buf *b, double rate)
{
	if (rate >= 0)
		hg_buf_printf(b, "%.6g", rate);
	else
		hg_buf_puts(b, "null");
}

static void side(hg_buf *b, const hg_diff_row *r, int64_t count, int64_t p90,
		 int64_t fps_reports, double fps, double frozen_high)
{
	hg_buf_printf(b, "{\"count\":%" PRId64 ",\"cost\":{\"p90\":", count);
	if (r->cost_unknown || !count)
		hg_buf_puts(b, "null");
	else
		hg_buf_printf(b, "%" PRId64, p90);
	hg_buf_putc(b, '}');
	if (r->old_fps_reports || r->new_fps_reports) {
		hg_buf_puts(b, ",\"fps\":{\"mean\":");
		if (fps_reports)
			hg_buf_printf(b, "%.2f", fps);
		else
			hg_buf_puts(b, "null");
		hg_buf_puts(b, ",\"frozen_high_share\":");
		if (fps_reports && frozen_high >= 0)
			hg_buf_printf(b, "%.4f", frozen_high);
		else
			hg_buf_puts(b, "null");
		hg_buf_putc(b, '}');
	}
	hg_buf_putc(b, '}');
}

void hg_diff_sides_json(hg_buf *b, const hg_diff_row *r)
{
	hg_buf_puts(b, ",\"old\":");
	side(b, r, r->old_count, r->old_p90, r->old_fps_reports, r->old_fps, r->old_share);
	hg_buf_puts(b, ",\"new\":");
	side(b, r, r->new_count, r->new_p90, r->new_fps_reports, r->new_fps, r->new_share);
}
