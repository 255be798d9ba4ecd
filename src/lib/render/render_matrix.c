/* --format matrix: exactly the fields Matrix uploads, for comparing. */
#include <string.h>

#include "render_internal.h"

void render_matrix(hg_buf *out, const hg_report *rep, const hg_render_opts *opts)
{
	if (rep->error) {
		render_error_json(out, rep);
		return;
	}
	const hg_method_stack *s = shown_stack(rep, opts);
	/* The stack's lines, written as the JSON string they make: digits,
	 * commas and signs need no escape, the newline is \n. */
	hg_buf_puts(out, "{\"stack\":\"");
	for (size_t i = 0; i < s->len; i++) {
		const hg_method_item *it = &s->items[i];
		hg_buf_int(out, it->depth);
		hg_buf_putc(out, ',');
		hg_buf_int(out, it->id);
		hg_buf_putc(out, ',');
		hg_buf_int(out, it->count);
		hg_buf_putc(out, ',');
		hg_buf_int(out, it->cost);
		hg_buf_add(out, "\\n", 2);
		render_flush_point(out, opts);
	}
	hg_buf_putc(out, '"');
	const char *key = hg_report_stack_key_text(rep);
	hg_buf_puts(out, ",\"stackKey\":");
	hg_buf_json_string(out, key, strlen(key));
	hg_buf_printf(out, ",\"cost\":%lld}\n", (long long)rep->stack_cost);
}
