/* --format json: one object per report per line (schema in
 * hangar-formats(5)).  Numbers are printed from int64, never doubles. */
#include <string.h>

#include "render_internal.h"

/* ,"key": then the value; keys are plain names (no escaping), and not
 * printf: a report has about twenty of them. */
static void key(hg_buf *out, const char *name)
{
	hg_buf_add(out, ",\"", 2);
	hg_buf_puts(out, name);
	hg_buf_add(out, "\":", 2);
}

static void key_int(hg_buf *out, const char *name, int64_t value)
{
	key(out, name);
	hg_buf_int(out, value);
}

static void key_string(hg_buf *out, const char *name, const char *value)
{
	key(out, name);
	if (value)
		hg_buf_json_string(out, value, strlen(value));
	else
		hg_buf_puts(out, "null");
}

static void frames(hg_buf *out, const hg_report *rep, const hg_render_opts *opts)
{
	const hg_method_stack *s = shown_stack(rep, opts);
	long key = shown_key(rep, opts);
	hg_calltree tree;
	bool have_tree = hg_calltree_build(s, rep->arena, &tree) == 0;
	hg_buf_puts(out, ",\"frames\":[");
	for (size_t i = 0; i < s->len; i++) {
		const hg_method_item *it = &s->items[i];
		if (i)
			hg_buf_putc(out, ',');
		/* Field by field, not printf: this loop is most of a run's output. */
		hg_buf_puts(out, "{\"depth\":");
		hg_buf_int(out, it->depth);
		hg_buf_puts(out, ",\"id\":");
		hg_buf_int(out, it->id);
		hg_buf_puts(out, ",\"count\":");
		hg_buf_int(out, it->count);
		hg_buf_puts(out, ",\"cost\":");
		hg_buf_int(out, it->cost);
		hg_buf_puts(out, ",\"self\":");
		hg_buf_int(out, have_tree ? tree.self[i] : 0);
		hg_buf_puts(out, ",\"symbol\":");
		const char *symbol = item_symbol(rep, it);
		if (symbol)
			hg_buf_json_string(out, symbol, strlen(symbol));
		else
			hg_buf_puts(out, "null");
		hg_buf_puts(out, (long)i == key ? ",\"key\":true}" : ",\"key\":false}");
		render_flush_point(out, opts);
	}
	hg_buf_putc(out, ']');
}

void render_json(hg_buf *out, const hg_report *rep, const hg_render_opts *opts)
{
	if (rep->error) {
		render_error_json(out, rep);
		return;
	}
	render_source_fields(out, rep);
	key_string(out, "format", hg_input_format_name(rep->format));
	key_string(out, "kind", hg_report_kind_name(rep->kind));
	key_string(out, "platform", rep->platform);
	key_string(out, "app_version", rep->app_version);
	key_string(out, "device", rep->device);
	key_string(out, "time", rep->time);
	key_string(out, "time_written", rep->time_written);
	key(out, "foreground");
	hg_buf_puts(out, rep->foreground < 0 ? "null" : rep->foreground ? "true" : "false");
	key_string(out, "anr_type", rep->anr_type);
	key_string(out, "tag", rep->tag);
	key_string(out, "detail", rep->detail);
	key_string(out, "scene", rep->scene);
	key_string(out, "process", rep->process);
	hg_buf_puts(out, ",\"meta\":{");
	for (size_t i = 0; i < rep->meta_len; i++) {
		if (i)
			hg_buf_putc(out, ',');
		hg_buf_json_string(out, rep->meta[i].key, strlen(rep->meta[i].key));
		hg_buf_putc(out, ':');
		hg_buf_puts(out, rep->meta[i].json);
	}
	hg_buf_putc(out, '}');
	key_string(out, "input", rep->from_buffer ? "buffer" : rep->has_method_stack ? "stack" : NULL);
	if (rep->from_buffer)
		key_int(out, "buffer_words", (int64_t)rep->buffer_words);
	/* A cost nobody measured (a thread dump, an ANR without its wait, an
	 * FPS report) is unknown: null, never 0. */
	if (rep->cost_unknown || rep->cost <= 0)
		hg_buf_puts(out, ",\"cost\":null");
	else
		key_int(out, "cost", rep->cost);
	key_int(out, "stack_cost", rep->stack_cost);
	hg_buf_puts(out, ",\"stack_key\":");
	if (rep->key_index >= 0) {
		const hg_method_item *k = &rep->trimmed.items[rep->key_index];
		hg_buf_puts(out, "{\"id\":");
		hg_buf_int(out, k->id);
		key_string(out, "symbol", item_symbol(rep, k));
		key_string(out, "text", hg_report_stack_key_text(rep));
		key_int(out, "index", shown_key(rep, opts));
		key_string(out, "device", rep->has_device_key ? rep->device_key : NULL);
		hg_buf_putc(out, '}');
	} else {
		hg_buf_puts(out, "null");
	}
	/* Only a rebuilt buffer is trimmed; a structured stack is shown as sent. */
	key(out, "trimmed");
	hg_buf_puts(out, rep->from_buffer && !opts->no_trim ? "true" : "false");
	key_int(out, "stack_len", (int64_t)rep->full.len);
	frames(out, rep, opts);
	render_threads_json(out, rep, opts);
	hg_buf_puts(out, ",\"warnings\":[");
	for (size_t i = 0; i < rep->warnings.len; i++) {
		if (i)
			hg_buf_putc(out, ',');
		hg_buf_json_string(out, rep->warnings.items[i], strlen(rep->warnings.items[i]));
	}
	hg_buf_puts(out, "]}\n");
}
