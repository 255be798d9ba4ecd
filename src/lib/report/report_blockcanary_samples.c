/* BlockCanary's stack samples (private to report_blockcanary.c): they
 * become one main thread, the first sample's frames, each with `repeat` =
 * how many samples hold the same frame line.  Frame lines are counted by
 * their text in a hash table; a later sample's line that is already there
 * is not parsed again. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_blockcanary_internal.h"

/* A sample's time: "10-29 10:32:13.403", "2017-10-29 10:32:13.403" or epoch
 * milliseconds "1508750380394". */
bool bc_is_timestamp(const char *s, size_t n)
{
	size_t digits = 0;
	if (n < 8 || n > 32)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (is_digit(s[i]))
			digits++;
		else if (s[i] != ' ' && s[i] != ':' && s[i] != '.' && s[i] != '-')
			return false;
	}
	return digits >= 8;
}

/* ---- frame lines seen in every sample, to count repeats ---- */

struct seen {
	const char *text;
	size_t len;
	long last_sample; /* the last sample counted */
	long count;       /* samples holding this line */
};

static uint64_t hash_text(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211u;
	return h;
}

static struct seen *seen_find(const struct seen_table *t, const char *s, size_t n)
{
	if (!t->cap)
		return NULL;
	for (size_t i = (size_t)hash_text(s, n) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		struct seen *e = &t->slots[i];
		if (!e->text)
			return NULL;
		if (e->len == n && memcmp(e->text, s, n) == 0)
			return e;
	}
}

/* Records s (which must outlive the table) as a line of sample; 0 or ENOMEM. */
static int seen_add(struct seen_table *t, const char *s, size_t n, long sample)
{
	struct seen *e = seen_find(t, s, n);
	if (e) {
		e->count += e->last_sample != sample;
		e->last_sample = sample;
		return 0;
	}
	if (2 * (t->n + 1) > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct seen *slots = calloc(cap, sizeof *slots);
		if (!slots)
			return HG_ENOMEM;
		for (size_t i = 0; i < t->cap; i++) {
			if (!t->slots[i].text)
				continue;
			size_t k = (size_t)hash_text(t->slots[i].text, t->slots[i].len) & (cap - 1);
			while (slots[k].text)
				k = (k + 1) & (cap - 1);
			slots[k] = t->slots[i];
		}
		free(t->slots);
		t->slots = slots;
		t->cap = cap;
	}
	size_t k = (size_t)hash_text(s, n) & (t->cap - 1);
	while (t->slots[k].text)
		k = (k + 1) & (t->cap - 1);
	t->slots[k] = (struct seen){s, n, sample, 1};
	t->n++;
	return 0;
}

/* ---- the thread ---- */

static int add_thread_frame(struct bc *b, const struct line *ln, const hg_frame *f)
{
	hg_report *rep = b->rep;
	if (b->thread < 0) {
		hg_thread *t = hg_threads_add(&rep->threads, rep->arena);
		if (!t)
			return HG_ENOMEM;
		t->name = "main";
		t->flags = HG_THREAD_MAIN | HG_THREAD_BLAMED;
		b->thread = (long)rep->threads.n - 1;
	}
	hg_thread *t = &rep->threads.items[b->thread];
	if (t->n_frames >= b->ctx->limits.max_stack_lines) {
		report_fail(b->err, ln->off, "a stack sample of more than %zu frames (see "
			    "--max-stack-lines)", b->ctx->limits.max_stack_lines);
		return HG_ELIMIT;
	}
	if (t->n_frames == b->cap_src) {
		size_t cap = b->cap_src ? 2 * b->cap_src : 64;
		struct src *src = realloc(b->src, cap * sizeof *src);
		if (!src)
			return HG_ENOMEM;
		b->src = src;
		b->cap_src = cap;
	}
	hg_frame *slot = hg_thread_add_frame(t, rep->arena);
	if (!slot)
		return HG_ENOMEM;
	*slot = *f;
	b->src[t->n_frames - 1] = (struct src){ln->s, ln->len};
	return seen_add(&b->seen, ln->s, ln->len, b->sample);
}

int bc_new_sample(struct bc *b)
{
	b->sample++;
	b->sample_has_frames = false;
	if (b->base < 0)
		return 0;
	/* The frames parsed only to be checked go with the sample. */
	hg_arena_destroy(b->scratch);
	b->scratch = hg_arena_create();
	return b->scratch ? 0 : HG_ENOMEM;
}

int bc_stack_line(struct bc *b, const struct line *ln)
{
	if (bc_is_timestamp(ln->s, ln->len))
		return bc_new_sample(b);
	int rc = 0;
	if (b->sample < 0 || (b->blank_before && b->sample_has_frames))
		rc = bc_new_sample(b);
	if (rc != 0)
		return rc;
	bool counted = b->base >= 0 && b->base != b->sample;
	struct seen *e = counted ? seen_find(&b->seen, ln->s, ln->len) : NULL;
	hg_frame f;
	if (!e && hg_frame_parse_java(ln->s, ln->len, counted ? b->scratch : b->rep->arena, &f) != 0) {
		bc_skip(b, ln);
		return 0;
	}
	if (!b->sample_has_frames) {
		b->sample_has_frames = true;
		b->samples++;
		if (b->base < 0)
			b->base = b->sample;
	}
	if (!counted)
		return add_thread_frame(b, ln, &f);
	if (e) {
		e->count += e->last_sample != b->sample;
		e->last_sample = b->sample;
	}
	return 0;
}

int bc_thread_figures(struct bc *b)
{
	hg_report *rep = b->rep;
	if (b->thread < 0)
		return hg_strlist_addf(&rep->warnings, rep->arena, "no stack sample: BlockCanary "
				       "caught no stack of the main thread during the block");
	hg_thread *t = &rep->threads.items[b->thread];
	for (size_t i = 0; i < t->n_frames; i++) {
		const struct seen *e = seen_find(&b->seen, b->src[i].s, b->src[i].n);
		t->frames[i].repeat = e ? e->count : 1;
	}
	rep->threads.blamed = b->thread;
	char v[32];
	snprintf(v, sizeof v, "%ld", b->samples);
	return hg_report_add_stat(rep, "block", "samples", v);
}
