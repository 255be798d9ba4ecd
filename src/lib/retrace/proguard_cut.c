/* What bounds one frame's retrace (proguard_frame.c): its steps, the
 * candidates already found (by the hash of their frames, so that dropping
 * a duplicate costs its own frames, not a comparison with every earlier
 * candidate), and the warning when a frame is cut, which names the frame
 * and the mapping line: the first PG_MAX_WARNINGS frames of a mapping,
 * then one line saying that more are not listed. */
#include <stdio.h>
#include <string.h>

#include "proguard_retrace.h"

void pg_note_cut(struct rt_out *o, enum rt_cut why, long line)
{
	if (o->cut != RT_CUT_NONE)
		return; /* the first cut says where the frame lost something */
	o->cut = why;
	o->cut_line = line;
}

bool pg_spend(struct rt_out *o, size_t n, long line)
{
	if (n > PG_MAX_STEPS - o->steps) {
		pg_note_cut(o, RT_CUT_STEPS, line);
		return false;
	}
	o->steps += n;
	return true;
}

static uint32_t frame_hash(const struct rt_frame *f)
{
	uint32_t h = pg_hash(f->cls, f->cls_len) * 31u ^ pg_hash(f->method, f->method_len);
	h = h * 31u ^ (uint32_t)f->line;
	return h * 31u ^ (f->file ? pg_hash(f->file, strlen(f->file)) : pg_hash(f->base, f->base_len));
}

/* Frames print the same: the source file's name is compared by content
 * (base points into each entry's own copy of a class name). */
static bool same_frame(const struct rt_frame *a, const struct rt_frame *b)
{
	return a->cls_len == b->cls_len && memcmp(a->cls, b->cls, a->cls_len) == 0 &&
	       a->method_len == b->method_len && memcmp(a->method, b->method, a->method_len) == 0 &&
	       a->line == b->line && a->file == b->file && a->base_len == b->base_len &&
	       (a->base == b->base || memcmp(a->base, b->base, a->base_len) == 0) && a->ext == b->ext;
}

void pg_dedupe_last(struct rt_out *o, long line)
{
	size_t last = o->n_cand - 1, from = o->cand[last], len = o->n - from;
	uint32_t h = (uint32_t)len;
	for (size_t i = from; i < o->n; i++)
		h = h * 0x9E3779B1u ^ frame_hash(&o->f[i]);
	const size_t mask = sizeof o->seen / sizeof *o->seen - 1;
	size_t at = h & mask;
	for (; o->seen[at]; at = (at + 1) & mask) {
		size_t k = o->seen[at] - 1, s = o->cand[k];
		/* A probe is a step, and so is each frame compared: colliding
		 * hashes cannot make a frame quadratic. */
		if (!pg_spend(o, 1 + (o->cand_hash[k] == h ? len : 0), line))
			break; /* cut: left out rather than compared */
		if (o->cand_hash[k] != h || o->cand[k + 1] - s != len)
			continue;
		size_t i = 0;
		while (i < len && same_frame(&o->f[s + i], &o->f[from + i]))
			i++;
		if (i == len)
			break;
	}
	if (o->seen[at]) { /* a duplicate, or no steps left */
		o->n = from;
		o->n_cand--;
		return;
	}
	o->seen[at] = (uint32_t)last + 1;
	o->cand_hash[last] = h;
}

/* The frame as "cls.method(file:line)", printable (the names come from an
 * untrusted report). */
static void frame_name(const struct rt_in *in, char *buf, size_t size)
{
	char line[24] = "";
	if (in->line != PG_NONE)
		snprintf(line, sizeof line, ":%ld", in->line);
	snprintf(buf, size, "%.*s.%.*s(%.*s%s)", (int)(in->cls_len < 120 ? in->cls_len : 120), in->cls,
		 (int)(in->method_len < 60 ? in->method_len : 60), in->method,
		 (int)(in->file_len < 60 ? in->file_len : 60), in->file ? in->file : "", line);
	for (char *p = buf; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
}

void pg_warn_cut(const hg_proguard *cpg, const struct rt_in *in, const struct rt_out *o)
{
	hg_proguard *pg = (hg_proguard *)cpg; /* its count of warnings is ours */
	char f[300];
	frame_name(in, f, sizeof f);
	pthread_mutex_lock(&pg->lock);
	size_t k = pg->cut_warned;
	if (k <= PG_MAX_WARNINGS)
		pg->cut_warned++;
	if (k == PG_MAX_WARNINGS)
		hg_diagf(&pg->ctx, HG_DIAG_WARNING, pg->name, 0, 0, 0,
			 "more frames were cut at the retrace limits; they are not listed");
	else if (k < PG_MAX_WARNINGS && o->cut == RT_CUT_INLINE)
		hg_diagf(&pg->ctx, HG_DIAG_WARNING, pg->name, o->cut_line, 0, 0,
			 "frame '%s': the inlining stack here has %zu frames, over the limit of %d; "
			 "only the innermost %zu are kept",
			 f, o->cut_size, HG_PROGUARD_MAX_FRAMES, o->cut_kept);
	else if (k < PG_MAX_WARNINGS && o->cut == RT_CUT_CANDIDATES)
		hg_diagf(&pg->ctx, HG_DIAG_WARNING, pg->name, o->cut_line, 0, 0,
			 "frame '%s': its candidates come to more than %d frames; those from here "
			 "on are left out",
			 f, HG_PROGUARD_MAX_FRAMES);
	else if (k < PG_MAX_WARNINGS)
		hg_diagf(&pg->ctx, HG_DIAG_WARNING, pg->name, o->cut_line, 0, 0,
			 "frame '%s': retrace stopped here after %d steps (too many entries for one "
			 "frame); the frames found so far are kept",
			 f, PG_MAX_STEPS);
	pthread_mutex_unlock(&pg->lock);
}
