/* What every renderer needs to know about the stack it shows. */
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
