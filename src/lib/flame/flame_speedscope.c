/* The speedscope file format (speedscope's file-format-schema.json):
 * shared frames, then one profile, evented for method stacks (a timeline
 * of open and close events), sampled otherwise (a stack per path with a
 * self weight). */
#include <stdlib.h>
#include <string.h>

#include "flame_internal.h"

static void json_str(hg_buf *out, const char *s)
{
	hg_buf_json_string(out, s ? s : "", s ? strlen(s) : 0);
}

static uint64_t fnv(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return (h ^ 0xff) * 1099511628211u; /* ends the field */
}

/* What speedscope shows beside a frame's name: its source file, else (a
 * native frame without one) its image. */
static const char *shown_file(const hg_flame_node *nd)
{
	return nd->file ? nd->file : nd->image;
}

static bool same_frame(const hg_flame_node *a, const hg_flame_node *b)
{
	const char *fa = shown_file(a), *fb = shown_file(b);
	return a->line == b->line && strcmp(a->name ? a->name : "", b->name ? b->name : "") == 0 &&
	       strcmp(fa ? fa : "", fb ? fb : "") == 0;
}

/* The shared frames, one per distinct name, file and line: frame[i] is
 * node i's.  Distinct frames are found in a table of the first node of
 * each (no copies of the names: a million nodes are common).  0 or
 * HG_ENOMEM. */
static int write_frames(const hg_flame *f, size_t *frame, hg_buf *out)
{
	size_t cap = 16;
	while (cap < f->n * 2)
		cap *= 2;
	size_t *slot = malloc(cap * sizeof *slot); /* node index + 1, 0: empty */
	if (!slot)
		return HG_ENOMEM;
	memset(slot, 0, cap * sizeof *slot);
	size_t next = 0;
	hg_buf_puts(out, "\"shared\":{\"frames\":[");
	for (size_t i = 0; i < f->n; i++) {
		const hg_flame_node *nd = &f->nodes[i];
		uint64_t h = fnv(fnv(1469598103934665603u, nd->name), shown_file(nd)) ^ (uint64_t)nd->line;
		size_t k = (size_t)(h * 0x9e3779b97f4a7c15u >> 20) & (cap - 1);
		while (slot[k] && !same_frame(&f->nodes[slot[k] - 1], nd))
			k = (k + 1) & (cap - 1);
		if (slot[k]) {
			frame[i] = frame[slot[k] - 1];
			continue;
		}
		slot[k] = i + 1;
		frame[i] = next;
		hg_buf_puts(out, next++ ? ",{\"name\":" : "{\"name\":");
		json_str(out, nd->name && *nd->name ? nd->name : "?");
		if (shown_file(nd)) {
			hg_buf_puts(out, ",\"file\":");
			json_str(out, shown_file(nd));
		}
		if (nd->line >= 0) {
			hg_buf_puts(out, ",\"line\":");
			hg_buf_int(out, nd->line);
		}
		hg_buf_putc(out, '}');
	}
	hg_buf_puts(out, "]}");
	free(slot);
	return 0;
}

static void event(hg_buf *out, bool *first, char type, size_t frame, int64_t at)
{
	hg_buf_puts(out, *first ? "{\"type\":\"" : ",{\"type\":\"");
	*first = false;
	hg_buf_putc(out, type);
	hg_buf_puts(out, "\",\"frame\":");
	hg_buf_int(out, (int64_t)frame);
	hg_buf_puts(out, ",\"at\":");
	hg_buf_int(out, at);
	hg_buf_putc(out, '}');
}

/* Open and close events in pre-order: before a node opens, the nodes open
 * above it that are not its ancestors close.  The layout nests every node
 * in its parent and keeps siblings apart, so the times never go back. */
static int write_events(const hg_flame *f, const size_t *frame, hg_buf *out, int64_t *end_value)
{
	flame_kids k;
	if (flame_kids_build(f, &k) != 0)
		return HG_ENOMEM;
	size_t cap = f->n ? f->n : 1;
	int64_t *start = malloc(cap * sizeof *start);
	size_t *open = malloc(cap * sizeof *open);
	size_t *order = flame_preorder(f, &k);
	int rc = !start || !open || !order ? HG_ENOMEM : flame_layout(f, &k, false, start);
	size_t depth = 0;
	bool first = true;
	*end_value = 0;
	for (size_t j = 0; j < f->n && rc == 0; j++) {
		size_t i = order[j];
		while (depth > 0 && open[depth - 1] != f->nodes[i].parent) {
			size_t c = open[--depth];
			event(out, &first, 'C', frame[c], start[c] + f->nodes[c].total);
		}
		event(out, &first, 'O', frame[i], start[i]);
		open[depth++] = i;
		if (start[i] + f->nodes[i].total > *end_value)
			*end_value = start[i] + f->nodes[i].total;
	}
	while (rc == 0 && depth > 0) {
		size_t c = open[--depth];
		event(out, &first, 'C', frame[c], start[c] + f->nodes[c].total);
	}
	free(start);
	free(open);
	free(order);
	flame_kids_release(&k);
	return rc;
}

/* One stack per node with a self weight: its frames from the root, with
 * the self as the sample's weight. */
static int write_samples(const hg_flame *f, const size_t *frame, hg_buf *out)
{
	flame_kids k;
	if (flame_kids_build(f, &k) != 0)
		return HG_ENOMEM;
	size_t *order = flame_preorder(f, &k);
	size_t *path = malloc((f->n ? f->n : 1) * sizeof *path);
	int rc = order && path ? 0 : HG_ENOMEM;
	bool first = true;
	hg_buf_puts(out, ",\"samples\":[");
	for (size_t j = 0; j < f->n && rc == 0; j++) {
		if (f->nodes[order[j]].self <= 0)
			continue;
		size_t d = 0;
		for (size_t i = order[j]; i != HG_FLAME_NO_PARENT; i = f->nodes[i].parent)
			path[d++] = frame[i];
		hg_buf_puts(out, first ? "[" : ",[");
		first = false;
		while (d-- > 0) {
			hg_buf_int(out, (int64_t)path[d]);
			if (d > 0)
				hg_buf_putc(out, ',');
		}
		hg_buf_putc(out, ']');
	}
	hg_buf_puts(out, "],\"weights\":[");
	first = true;
	for (size_t j = 0; j < f->n && rc == 0; j++) {
		if (f->nodes[order[j]].self <= 0)
			continue;
		if (!first)
			hg_buf_putc(out, ',');
		first = false;
		hg_buf_int(out, f->nodes[order[j]].self);
	}
	hg_buf_putc(out, ']');
	free(order);
	free(path);
	flame_kids_release(&k);
	return rc;
}

static void profile_name(const hg_flame *f, hg_buf *out)
{
	hg_buf name;
	hg_buf_init(&name);
	hg_buf_puts(&name, f->title ? f->title : "hangar");
	if (f->key >= 0 && (size_t)f->key < f->n) {
		hg_buf_puts(&name, " | StackKey: ");
		hg_buf_puts(&name, f->nodes[f->key].name ? f->nodes[f->key].name : "?");
	}
	out->failed |= name.failed;
	hg_buf_json_string(out, name.data ? name.data : "", name.len);
	hg_buf_release(&name);
}

void hg_flame_write_speedscope(const hg_flame *f, hg_buf *out)
{
	size_t *frame = malloc((f->n ? f->n : 1) * sizeof *frame);
	if (!frame) {
		out->failed = 1;
		return;
	}
	hg_buf_puts(out, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",");
	int rc = write_frames(f, frame, out);
	bool evented = f->unit == HG_FLAME_MS;
	hg_buf_puts(out, ",\"profiles\":[{\"type\":");
	hg_buf_puts(out, evented ? "\"evented\"" : "\"sampled\"");
	hg_buf_puts(out, ",\"name\":");
	profile_name(f, out);
	hg_buf_puts(out, evented ? ",\"unit\":\"milliseconds\",\"startValue\":0" :
				   ",\"unit\":\"none\",\"startValue\":0");
	if (rc == 0 && evented) {
		/* the events come before endValue, which they find */
		int64_t end = 0;
		hg_buf_puts(out, ",\"events\":[");
		rc = write_events(f, frame, out, &end);
		hg_buf_puts(out, "],\"endValue\":");
		hg_buf_int(out, end);
	} else if (rc == 0) {
		hg_buf_puts(out, ",\"endValue\":");
		hg_buf_int(out, f->total);
		rc = write_samples(f, frame, out);
	}
	hg_buf_puts(out, "}],\"name\":");
	profile_name(f, out);
	hg_buf_puts(out, ",\"activeProfileIndex\":0,\"exporter\":\"hangar " HG_VERSION "\"}\n");
	if (rc != 0)
		out->failed = 1;
	free(frame);
}
