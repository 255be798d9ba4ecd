/* Rows of the store commands as a plain table line, a CSV line or a JSON
 * object (hangar/render.h, hg_render_row): every value whole; and top's
 * and diff's rows as the cells of their tables and CSV. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hangar/render.h"

static void csv_field(hg_buf *out, const char *v)
{
	if (!v)
		return;
	if (!strpbrk(v, ",\"\n\r")) {
		hg_buf_puts(out, v);
		return;
	}
	hg_buf_putc(out, '"');
	for (const char *p = v; *p; p++) {
		if (*p == '"')
			hg_buf_putc(out, '"');
		hg_buf_putc(out, *p);
	}
	hg_buf_putc(out, '"');
}

void hg_render_row_header(hg_buf *out, hg_rows f, const hg_row_cell *cells, size_t n)
{
	if (f == HG_ROWS_JSON)
		return;
	for (size_t i = 0; i < n; i++) {
		if (f == HG_ROWS_CSV) {
			hg_buf_puts(out, i ? "," : "");
			csv_field(out, cells[i].column);
		} else {
			hg_buf_printf(out, i ? " %-*s" : "%-*s", cells[i].width, cells[i].column);
		}
	}
	hg_buf_putc(out, '\n');
}

static void json_row(hg_buf *b, const hg_row_cell *cells, size_t n)
{
	hg_buf_putc(b, '{');
	for (size_t i = 0; i < n; i++) {
		if (i)
			hg_buf_putc(b, ',');
		hg_buf_json_string(b, cells[i].column, strlen(cells[i].column));
		hg_buf_putc(b, ':');
		if (!cells[i].value)
			hg_buf_puts(b, "null");
		else if (cells[i].json)
			hg_buf_puts(b, cells[i].value);
		else
			hg_buf_json_string(b, cells[i].value, strlen(cells[i].value));
	}
	hg_buf_puts(b, "}\n");
}

void hg_render_row(hg_buf *out, hg_rows f, const hg_row_cell *cells, size_t n)
{
	if (f == HG_ROWS_JSON) {
		json_row(out, cells, n);
		return;
	}
	if (f == HG_ROWS_CSV) {
		for (size_t i = 0; i < n; i++) {
			hg_buf_puts(out, i ? "," : "");
			csv_field(out, cells[i].value ? cells[i].value : "");
		}
		hg_buf_putc(out, '\n');
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const char *v = cells[i].value ? cells[i].value : "";
		/* One line per row: a newline inside a value would break it;
		 * control bytes are shown as escapes, padded by what they take. */
		size_t len = strcspn(v, "\r\n");
		size_t cols = hg_visible_cols(v, len);
		if (i)
			hg_buf_putc(out, ' ');
		hg_buf_visible(out, v, len);
		for (; cols < (size_t)(cells[i].width > 0 ? cells[i].width : 0); cols++)
			hg_buf_putc(out, ' ');
	}
	hg_buf_putc(out, '\n');
}

void hg_render_cluster_row_json(hg_buf *out, const hg_cluster_row *c)
{
	hg_buf_putc(out, '{');
	hg_cluster_json_members(out, c);
	hg_buf_puts(out, "}\n");
}

void hg_render_diff_row_json(hg_buf *out, const hg_diff_row *r)
{
	/* a cluster's identity as top names it, and its two sets */
	hg_buf_puts(out, "{\"status\":");
	hg_buf_json_string(out, r->status, strlen(r->status));
	hg_buf_puts(out, ",\"hash\":");
	hg_buf_json_string(out, r->hash, strlen(r->hash));
	hg_buf_puts(out, ",\"kind\":");
	hg_buf_json_string(out, r->kind, strlen(r->kind));
	hg_buf_puts(out, ",\"title\":");
	hg_buf_json_string(out, r->title, strlen(r->title));
	hg_diff_sides_json(out, r);
	hg_buf_printf(out, ",\"escalating\":%s", r->escalating ? "true" : "false");
	if (r->rated) { /* with sessions: each set's, null when they give none for it */
		hg_buf_puts(out, ",\"rate\":{\"old\":");
		hg_rate_json(out, r->old_rate);
		hg_buf_puts(out, ",\"new\":");
		hg_rate_json(out, r->new_rate);
		hg_buf_putc(out, '}');
	}
	hg_buf_puts(out, "}\n");
}

const char *hg_render_rate_cell(char buf[24], double rate, bool table)
{
	if (rate < 0)
		return table ? "—" : NULL;
	snprintf(buf, 24, table ? "%.2f" : "%.6g", rate);
	return buf;
}

/* ---- top's and diff's rows in a table or CSV (hangar-top(1), hangar-diff(1)) ---- */

/* What a table puts before an escalating cluster's title. */
#define ESCALATING_MARK "↑ "

void hg_render_top_row(hg_table *t, const hg_cluster_row *c, bool table, bool rates)
{
	char count[24], b50[24], b90[24], rb[24];
	snprintf(count, sizeof count, "%" PRId64, c->count);
	/* A cluster whose costs nobody measured (FPS) has none: not 0. */
	bool known = c->cost_reports > 0;
	/* The table says an FPS cluster's frame rate after its title (CSV
	 * keeps its columns). */
	hg_buf title;
	hg_buf_init(&title);
	if (table && c->escalating)
		hg_buf_puts(&title, ESCALATING_MARK);
	hg_buf_puts(&title, c->title);
	if (table && c->figures && c->figures->fps_reports) {
		hg_buf_puts(&title, "  (");
		hg_render_fps_text(&title, c->figures->fps_mean, c->figures->frozen_high_share);
		hg_buf_putc(&title, ')');
	}
	const char *seen = c->last_seen ? c->last_seen : table ? "unknown" : "";
	/* CSV names its costs as JSON does; the table says p90 only */
	hg_table_cell cells[9] = {
		{"hash", c->hash, HG_CELL_HASH, false},
		{"kind", c->kind, HG_CELL_FIXED, false},
		{"count", count, HG_CELL_NUMBER, false},
	};
	size_t n = 3;
	if (rates)
		cells[n++] = (hg_table_cell){table ? "per_1k" : "rate",
					     hg_render_rate_cell(rb, c->rate, table), HG_CELL_NUMBER, false};
	if (!table)
		cells[n++] = (hg_table_cell){"cost_p50", hg_render_cost_cell(b50, c->cost_p50, known, false),
					     HG_CELL_NUMBER, false};
	cells[n++] = (hg_table_cell){table ? "p90ms" : "cost_p90",
				     hg_render_cost_cell(b90, c->cost_p90, known, table), HG_CELL_NUMBER,
				     false};
	cells[n++] = (hg_table_cell){"last_seen", seen, HG_CELL_TIME, false};
	if (!table)
		cells[n++] = (hg_table_cell){"escalating", c->escalating ? "true" : "false",
					     HG_CELL_FIXED, false};
	cells[n++] = (hg_table_cell){"title", title.failed ? c->title : title.data, HG_CELL_CUT, false};
	hg_table_row(t, cells, n);
	hg_buf_release(&title);
}

/* A diff row's title in a table: the mark, and an FPS cluster's frame
 * rates before and after. */
static void diff_title(hg_buf *title, const hg_diff_row *r)
{
	if (r->escalating)
		hg_buf_puts(title, ESCALATING_MARK);
	hg_buf_puts(title, r->title);
	if (!r->old_fps_reports && !r->new_fps_reports)
		return;
	hg_buf_puts(title, "  (");
	if (r->old_fps_reports)
		hg_render_fps_text(title, r->old_fps, r->old_share);
	else
		hg_buf_puts(title, "—");
	hg_buf_puts(title, " → ");
	if (r->new_fps_reports)
		hg_render_fps_text(title, r->new_fps, r->new_share);
	else
		hg_buf_puts(title, "—");
	hg_buf_putc(title, ')');
}

/* The cells of a diff row (r NULL: CSV's names, empty), into cells (11). */
static size_t diff_cells(const hg_diff_row *r, bool table, bool rates, hg_table_cell *cells,
			 char text[6][24], const char *title)
{
	static const hg_diff_row none = {.status = "", .hash = "", .kind = "", .title = ""};
	const hg_diff_row *x = r ? r : &none;
	snprintf(text[0], 24, "%" PRId64, x->old_count);
	snprintf(text[1], 24, "%" PRId64, x->new_count);
	/* unknown: an FPS cluster's cost was never measured; an empty set has none */
	const char *v[6] = {
		r ? text[0] : "", r ? text[1] : "",
		r ? hg_render_cost_cell(text[2], x->old_p90, !x->cost_unknown && x->old_count, table) : "",
		r ? hg_render_cost_cell(text[3], x->new_p90, !x->cost_unknown && x->new_count, table) : "",
		r ? hg_render_rate_cell(text[4], x->old_rate, table) : "",
		r ? hg_render_rate_cell(text[5], x->new_rate, table) : "",
	};
	size_t n = 0;
	cells[n++] = (hg_table_cell){"status", x->status, HG_CELL_FIXED, false};
	cells[n++] = (hg_table_cell){"hash", x->hash, HG_CELL_HASH, false};
	cells[n++] = (hg_table_cell){"kind", x->kind, HG_CELL_FIXED, false};
	cells[n++] = (hg_table_cell){table ? "old" : "old_count", v[0], HG_CELL_NUMBER, false};
	cells[n++] = (hg_table_cell){table ? "new" : "new_count", v[1], HG_CELL_NUMBER, false};
	cells[n++] = (hg_table_cell){table ? "old_p90" : "old_cost_p90", v[2], HG_CELL_NUMBER, false};
	cells[n++] = (hg_table_cell){table ? "new_p90" : "new_cost_p90", v[3], HG_CELL_NUMBER, false};
	if (rates) {
		cells[n++] = (hg_table_cell){table ? "old_per_1k" : "old_rate", v[4], HG_CELL_NUMBER, false};
		cells[n++] = (hg_table_cell){table ? "new_per_1k" : "new_rate", v[5], HG_CELL_NUMBER, false};
	}
	if (!table)
		cells[n++] = (hg_table_cell){"escalating", !r ? "" : x->escalating ? "true" : "false",
					     HG_CELL_FIXED, false};
	cells[n++] = (hg_table_cell){"title", title, HG_CELL_CUT, false};
	return n;
}

void hg_render_diff_row(hg_table *t, const hg_diff_row *r, bool table, bool rates)
{
	hg_buf title;
	hg_buf_init(&title);
	if (table)
		diff_title(&title, r);
	hg_table_cell cells[11];
	char text[6][24];
	size_t n = diff_cells(r, table, rates, cells, text,
			      !table || title.failed ? r->title : title.data);
	hg_table_row(t, cells, n);
	hg_buf_release(&title);
}

void hg_render_diff_csv_header(hg_buf *out, bool rates)
{
	hg_table_cell cells[11];
	char text[6][24];
	size_t n = diff_cells(NULL, false, rates, cells, text, "");
	hg_row_cell row[11];
	for (size_t i = 0; i < n; i++)
		row[i] = (hg_row_cell){cells[i].column, "", 0, false};
	hg_render_row_header(out, HG_ROWS_CSV, row, n);
}
