/* What every renderer needs to know about the stack it shows. */
#include <string.h>

#include "render.h"

const hg_method_stack *shown_stack(const hg_report *rep, const struct render_opts *opts)
{
	return opts->no_trim ? &rep->full : &rep->trimmed;
}

long shown_key(const hg_report *rep, const struct render_opts *opts)
{
	if (rep->key_index < 0)
		return -1;
	/* Trimming only removes items, so the key's origin is its index in
	 * the whole stack. */
	return opts->no_trim ? (long)rep->trimmed.items[rep->key_index].origin : rep->key_index;
}

const char *item_symbol(const hg_report *rep, const hg_method_item *item)
{
	return rep->symbols ? rep->symbols[item->origin] : NULL;
}

void render_source_fields(hg_buf *out, const hg_report *rep)
{
	hg_buf_puts(out, "{\"source\":");
	hg_buf_json_string(out, rep->source, strlen(rep->source));
	if (rep->line > 0)
		hg_buf_printf(out, ",\"line\":%ld", rep->line);
	hg_buf_printf(out, ",\"report\":%ld", rep->number);
}

void render_error_json(hg_buf *out, const hg_report *rep)
{
	render_source_fields(out, rep);
	hg_buf_puts(out, ",\"error\":");
	hg_buf_json_string(out, rep->error, strlen(rep->error));
	hg_buf_puts(out, "}\n");
}
