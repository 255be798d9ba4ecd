/* FPS and startup figures in words and JSON, as top, show and diff print
 * them: the same words and JSON names in each. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hangar/render.h"

const char *hg_render_cost_cell(char buf[24], int64_t ms, bool known, bool table)
{
	if (!known)
		return table ? "—" : NULL;
	snprintf(buf, 24, "%" PRId64, ms);
	return buf;
}

void hg_render_fps_text(hg_buf *b, double fps, double share)
{
	hg_buf_printf(b, "%.1f fps", fps);
	if (share >= 0)
		hg_buf_printf(b, ", %.1f%% frozen/high", 100 * share);
}

void hg_render_figures_text(hg_buf *b, const hg_figures *f)
{
	size_t mark = b->len;
	if (f->fps_reports) {
		hg_render_fps_text(b, f->fps_mean, f->frozen_high_share);
		if (f->frames)
			hg_buf_printf(b, " of %" PRId64 " frames", f->frames);
	}
	if (f->startups || f->cold || f->warm) {
		if (b->len > mark)
			hg_buf_puts(b, "; ");
		if (f->startups)
			hg_buf_printf(b, "total p50 %" PRId64 " ms, p90 %" PRId64 " ms; ", f->total_p50,
				      f->total_p90);
		hg_buf_printf(b, "cold %" PRId64 ", warm %" PRId64, f->cold, f->warm);
	}
}

/* ---- hangar show's figures by version and scene ---- */

struct by_group {
	hg_rows format;
	hg_buf *out;
	const char *by;
	bool first;
};

static int on_group(void *user, const char *value, const hg_figures *f)
{
	struct by_group *g = user;
	if (g->format == HG_ROWS_JSON) {
		hg_buf *b = g->out;
		hg_buf_printf(b, "%s{\"%s\":", g->first ? "" : ",", g->by);
		if (value)
			hg_buf_json_string(b, value, strlen(value));
		else
			hg_buf_puts(b, "null");
		hg_buf_printf(b, ",\"reports\":%" PRId64, f->reports);
		hg_figures_json_members(b, f);
		hg_buf_putc(b, '}');
	} else if (g->format == HG_ROWS_TABLE) {
		hg_buf t;
		hg_buf_init(&t);
		hg_render_figures_text(&t, f);
		hg_buf_printf(g->out, "  %8" PRId64 "  %s  %.*s\n", f->reports,
			      value ? value : "(unknown)", (int)t.len, t.data ? t.data : "");
		hg_buf_release(&t);
	}
	g->first = false;
	return 0;
}

int hg_render_cluster_figures(hg_buf *out, hg_store *store, const char *hash, hg_rows format)
{
	static const char *const by[] = {"version", "scene"};
	int rc = 0;
	for (size_t i = 0; i < 2 && rc == 0; i++) {
		struct by_group g = {format, out, by[i], true};
		if (format == HG_ROWS_JSON)
			hg_buf_printf(out, ",\"figures_by_%s\":[", by[i]);
		else if (format == HG_ROWS_TABLE)
			hg_buf_printf(out, "\nfigures by %s\n", by[i]);
		rc = hg_store_cluster_figures(store, hash, by[i], on_group, &g);
		if (format == HG_ROWS_JSON)
			hg_buf_putc(out, ']');
	}
	return rc;
}
