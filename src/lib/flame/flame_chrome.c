/* Chrome's Trace Event Format (the JSON object form), which Perfetto UI
 * and chrome://tracing open: metadata naming the process and threads,
 * then a complete ("X") event per node on the shared timeline. */
#include <stdlib.h>
#include <string.h>

#include "flame_internal.h"

static void json_str(hg_buf *out, const char *s)
{
	hg_buf_json_string(out, s ? s : "", s ? strlen(s) : 0);
}

/* A thread_name or process_name metadata event. */
static void meta(hg_buf *out, const char *what, int64_t tid, const char *name)
{
	hg_buf_puts(out, "{\"name\":\"");
	hg_buf_puts(out, what);
	hg_buf_puts(out, "\",\"ph\":\"M\",\"pid\":1,\"tid\":");
	hg_buf_int(out, tid);
	hg_buf_puts(out, ",\"args\":{\"name\":");
	json_str(out, name);
	hg_buf_puts(out, "}},\n");
}

/* ms (or one sample, one thread) in microseconds, saturating */
static int64_t micros(int64_t v)
{
	return v > INT64_MAX / 1000 ? INT64_MAX : v * 1000;
}

static void complete(hg_buf *out, const hg_flame *f, size_t i, int64_t start, int64_t tid)
{
	const hg_flame_node *nd = &f->nodes[i];
	const char *unit = flame_unit_name(f->unit);
	hg_buf_puts(out, ",\n{\"name\":");
	json_str(out, nd->name && *nd->name ? nd->name : "?");
	hg_buf_puts(out, ",\"cat\":\"");
	hg_buf_puts(out, nd->key ? "key_path" : "frame");
	hg_buf_puts(out, "\",\"ph\":\"X\",\"ts\":");
	hg_buf_int(out, micros(start));
	hg_buf_puts(out, ",\"dur\":");
	hg_buf_int(out, micros(nd->total));
	hg_buf_puts(out, ",\"pid\":1,\"tid\":");
	hg_buf_int(out, tid);
	hg_buf_puts(out, ",\"args\":{\"cost_");
	hg_buf_puts(out, unit);
	hg_buf_puts(out, "\":");
	hg_buf_int(out, nd->total);
	hg_buf_puts(out, ",\"self_");
	hg_buf_puts(out, unit);
	hg_buf_puts(out, "\":");
	hg_buf_int(out, nd->self);
	hg_buf_puts(out, ",\"calls\":");
	hg_buf_int(out, nd->calls);
	hg_buf_puts(out, ",\"reports\":");
	hg_buf_int(out, nd->reports);
	hg_buf_puts(out, f->key >= 0 && (size_t)f->key == i ? ",\"stack_key\":true" : ",\"stack_key\":false");
	hg_buf_puts(out, nd->key ? ",\"key_path\":true" : ",\"key_path\":false");
	if (nd->file) {
		hg_buf_puts(out, ",\"file\":");
		json_str(out, nd->file);
	}
	if (nd->line >= 0) {
		hg_buf_puts(out, ",\"line\":");
		hg_buf_int(out, nd->line);
	}
	if (nd->image) {
		hg_buf_puts(out, ",\"image\":");
		json_str(out, nd->image);
	}
	if (nd->symbol) {
		hg_buf_puts(out, ",\"symbol\":");
		json_str(out, nd->symbol);
	}
	hg_buf_puts(out, "}}");
}

void hg_flame_write_chrome(const hg_flame *f, hg_buf *out)
{
	flame_kids k;
	if (flame_kids_build(f, &k) != 0) {
		out->failed = 1;
		return;
	}
	/* A method stack is one thread's timeline; a dump's threads (or a
	 * BlockCanary log's one) each get a track of their own. */
	bool apart = f->unit != HG_FLAME_MS;
	size_t cap = f->n ? f->n : 1;
	int64_t *start = malloc(cap * sizeof *start);
	int64_t *tid = malloc(cap * sizeof *tid);
	size_t *order = flame_preorder(f, &k);
	if (!start || !tid || !order || flame_layout(f, &k, apart, start) != 0) {
		out->failed = 1;
		goto done;
	}
	hg_buf_puts(out, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"exporter\":\"hangar "
		    HG_VERSION "\",\"unit\":\"");
	hg_buf_puts(out, flame_unit_name(f->unit));
	hg_buf_puts(out, "\"},\"traceEvents\":[\n");
	meta(out, "process_name", 1, f->title ? f->title : "hangar");
	int64_t tracks = 0;
	for (size_t r = k.first_root; r != FLAME_NONE; r = k.next[r])
		if (apart || tracks == 0) {
			tracks++;
			meta(out, "thread_name", tracks, apart ? f->nodes[r].name : "main");
		}
	hg_buf_puts(out, "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":1,"
		    "\"args\":{\"sort_index\":0}}");
	int64_t next_tid = 0;
	for (size_t j = 0; j < f->n && !out->failed; j++) {
		size_t i = order[j];
		size_t p = f->nodes[i].parent;
		tid[i] = p != FLAME_NONE ? tid[p] : apart ? ++next_tid : 1;
		complete(out, f, i, start[i], tid[i]);
	}
	hg_buf_puts(out, "\n]}\n");
done:
	free(start);
	free(tid);
	free(order);
	flame_kids_release(&k);
}
