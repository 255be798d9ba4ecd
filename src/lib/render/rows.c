/* Rows of the store commands as a plain table line, a CSV line or a JSON
 * object (hangar/render.h, hg_render_row): every value whole. */
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
	hg_buf_puts(out, "}\n");
}
