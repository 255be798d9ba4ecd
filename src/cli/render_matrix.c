/* --format matrix: exactly the fields Matrix uploads, for comparing. */
#include <string.h>

#include "render.h"

void render_matrix(hg_buf *out, const hg_report *rep, const struct render_opts *opts)
{
	if (rep->error) {
		render_error_json(out, rep);
		return;
	}
	const hg_method_stack *s = shown_stack(rep, opts);
	hg_buf stack;
	hg_buf_init(&stack);
	for (size_t i = 0; i < s->len; i++) {
		const hg_method_item *it = &s->items[i];
		hg_buf_printf(&stack, "%d,%d,%d,%d\n", it->depth, it->id, it->count, it->cost);
	}
	const char *key = hg_report_stack_key_text(rep);
	hg_buf_puts(out, "{\"stack\":");
	hg_buf_json_string(out, stack.data ? stack.data : "", stack.len);
	hg_buf_puts(out, ",\"stackKey\":");
	hg_buf_json_string(out, key, strlen(key));
	hg_buf_printf(out, ",\"cost\":%lld}\n", (long long)rep->stack_cost);
	hg_buf_release(&stack);
}
