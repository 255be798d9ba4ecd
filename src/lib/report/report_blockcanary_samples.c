/* BlockCanary's stack samples (private to report_blockcanary.c): every
 * sample StackSampler took during the block, each with its time, its
 * frames a thread flagged HG_THREAD_SAMPLE (hangar/samples.h).  The call
 * tree of the samples gives the blamed main thread: its heaviest path,
 * each frame with the samples through it.
 *
 * A log may hold thousands of samples, most of them the same few stacks
 * (a block in one place): each distinct frame line is parsed once (a
 * table of lines), and samples whose lines are all the same share one
 * thread (a table of stacks), so memory follows the distinct stacks, not
 * the samples.  The frames the threads keep are capped by
 * --max-stack-lines; samples past it are counted, not kept. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/samples.h"
#include "report_blockcanary_internal.h"
#include "report_time.h"

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

/* ---- frame lines, each parsed once ---- */

struct bc_line {
	const char *s;  /* the line, in the input */
	size_t len;
	uint64_t hash;
	bool frame;     /* it reads as a frame: f */
	hg_frame f;     /* strings in the report's arena */
};

static uint64_t hash_text(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211u;
	return h;
}

static int lines_grow(struct bc_line_table *t)
{
	if (2 * (t->n + 1) <= t->cap)
		return 0;
	size_t cap = t->cap ? 2 * t->cap : 256;
	struct bc_line **slots = calloc(cap, sizeof *slots);
	if (!slots)
		return HG_ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->slots[i])
			continue;
		size_t k = (size_t)t->slots[i]->hash & (cap - 1);
		while (slots[k])
			k = (k + 1) & (cap - 1);
		slots[k] = t->slots[i];
	}
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
	return 0;
}

/* The entry of ln's text, parsed on first sight; NULL on ENOMEM. */
static const struct bc_line *line_entry(struct bc *b, const struct line *ln)
{
	struct bc_line_table *t = &b->lines;
	if (lines_grow(t) != 0)
		return NULL;
	uint64_t h = hash_text(ln->s, ln->len);
	size_t k = (size_t)h & (t->cap - 1);
	for (; t->slots[k]; k = (k + 1) & (t->cap - 1)) {
		const struct bc_line *e = t->slots[k];
		if (e->hash == h && e->len == ln->len && memcmp(e->s, ln->s, ln->len) == 0)
			return e;
	}
	struct bc_line *e = hg_arena_alloc(b->scratch, sizeof *e);
	if (!e)
		return NULL;
	*e = (struct bc_line){.s = ln->s, .len = ln->len, .hash = h};
	int rc = frame_parse_java_cached(ln->s, ln->len, b->rep->arena, &b->names, &e->f);
	if (rc == HG_ENOMEM)
		return NULL;
	e->frame = rc == 0;
	t->slots[k] = e;
	t->n++;
	return e;
}

/* ---- whole samples, each distinct one kept once ---- */

struct bc_stack {
	uint64_t hash;  /* of its lines */
	size_t n;       /* frames; 0: an empty slot */
	long thread;
};

static uint64_t stack_hash(const struct bc *b)
{
	uint64_t h = 1469598103934665603u;
	for (size_t i = 0; i < b->n_cur; i++)
		h = (h ^ b->cur[i]->hash) * 1099511628211u;
	return h;
}

static bool same_stack(const struct bc *b, const struct bc_stack *st)
{
	const hg_thread *t = &b->rep->threads.items[st->thread];
	if (st->n != b->n_cur)
		return false;
	/* a line's frame text is one string: the same line, the same pointer */
	for (size_t i = 0; i < b->n_cur; i++)
		if (t->frames[i].text != b->cur[i]->f.text)
			return false;
	return true;
}

static int stacks_grow(struct bc_stack_table *t)
{
	if (2 * (t->n + 1) <= t->cap)
		return 0;
	size_t cap = t->cap ? 2 * t->cap : 64;
	struct bc_stack *slots = calloc(cap, sizeof *slots);
	if (!slots)
		return HG_ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->slots[i].n)
			continue;
		size_t k = (size_t)t->slots[i].hash & (cap - 1);
		while (slots[k].n)
			k = (k + 1) & (cap - 1);
		slots[k] = t->slots[i];
	}
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
	return 0;
}

/* The thread of the sample just read: one that holds the same frames, else
 * a new one (-1: past the frame budget).  0 or HG_ENOMEM. */
static int sample_thread(struct bc *b, long *out)
{
	hg_report *rep = b->rep;
	struct bc_stack_table *t = &b->stacks;
	if (stacks_grow(t) != 0)
		return HG_ENOMEM;
	uint64_t h = stack_hash(b);
	size_t k = (size_t)h & (t->cap - 1);
	for (; t->slots[k].n; k = (k + 1) & (t->cap - 1))
		if (t->slots[k].hash == h && same_stack(b, &t->slots[k])) {
			*out = t->slots[k].thread;
			return 0;
		}
	*out = -1;
	if (b->n_cur > b->ctx->limits.max_stack_lines - b->kept_frames)
		return 0;
	hg_thread *th = hg_threads_add(&rep->threads, rep->arena);
	if (!th || !(th->name = hg_arena_printf(rep->arena, "main sample %zu", b->samples)) ||
	    hg_thread_reserve_frames(th, rep->arena, b->n_cur) != 0)
		return HG_ENOMEM;
	for (size_t i = 0; i < b->n_cur; i++)
		th->frames[th->n_frames++] = b->cur[i]->f;
	b->kept_frames += b->n_cur;
	*out = (long)rep->threads.n - 1;
	t->slots[k] = (struct bc_stack){h, b->n_cur, *out};
	t->n++;
	return 0;
}

/* Ends the sample being read: a time with no frames after it is no sample. */
static int close_sample(struct bc *b)
{
	int rc = 0;
	if (b->sample_open && b->n_cur > 0) {
		long thread;
		b->samples++;
		rc = sample_thread(b, &thread);
		if (rc == 0 && thread < 0)
			b->dropped++;
		else if (rc == 0)
			rc = hg_report_add_sample(b->rep, thread, 1, b->sample_time, -1);
	}
	b->sample_open = false;
	b->sample_time = NULL;
	b->n_cur = 0;
	return rc;
}

int bc_new_sample(struct bc *b, const char *s, size_t n)
{
	int rc = close_sample(b);
	if (rc != 0)
		return rc;
	b->sample_open = true;
	if (n > 0 && !(b->sample_time = hg_arena_strndup(b->rep->arena, s, n)))
		return HG_ENOMEM;
	return 0;
}

int bc_stack_line(struct bc *b, const struct line *ln)
{
	if (bc_is_timestamp(ln->s, ln->len))
		return bc_new_sample(b, ln->s, ln->len);
	/* untimed samples: a blank line after frames ends one */
	int rc = !b->sample_open || (b->blank_before && b->n_cur > 0) ? bc_new_sample(b, NULL, 0) : 0;
	if (rc != 0)
		return rc;
	const struct bc_line *e = line_entry(b, ln);
	if (!e)
		return HG_ENOMEM;
	if (!e->frame) {
		bc_skip(b, ln);
		return 0;
	}
	if (b->n_cur >= b->ctx->limits.max_stack_lines) {
		report_fail(b->err, ln->off, "a stack sample of more than %zu frames (see "
			    "--max-stack-lines)", b->ctx->limits.max_stack_lines);
		return HG_ELIMIT;
	}
	if (b->n_cur == b->cap_cur) {
		size_t cap = b->cap_cur ? 2 * b->cap_cur : 64;
		const struct bc_line **cur = realloc(b->cur, cap * sizeof *cur);
		if (!cur)
			return HG_ENOMEM;
		b->cur = cur;
		b->cap_cur = cap;
	}
	b->cur[b->n_cur++] = e;
	return 0;
}

/* ---- after the last line ---- */

int64_t bc_time_ms(const struct bc *b, const char *t)
{
	char out[REPORT_TIME_SIZE];
	const char *why = "";
	int64_t ms;
	size_t n = strlen(t);
	bool yearless = n >= 6 && is_digit(t[0]) && is_digit(t[1]) && t[2] == '-' && t[5] == ' ';
	int rc = yearless ? report_time_yearless(t, n, b->year_ref, out, &why)
			  : report_time_parse(t, n, out, &why);
	return rc == 0 && report_time_unix_ms(out, &ms) && ms >= 0 ? ms : -1;
}

static int sample_times(struct bc *b)
{
	hg_report *rep = b->rep;
	size_t bad = 0;
	const char *first_bad = NULL;
	for (size_t i = 0; i < rep->n_samples; i++) {
		hg_sample *s = &rep->samples[i];
		if (!s->time)
			continue;
		s->at = bc_time_ms(b, s->time);
		if (s->at < 0 && bad++ == 0)
			first_bad = s->time;
	}
	rep->sample_interval = hg_report_sample_gap(rep);
	if (bad == 0)
		return 0;
	return hg_strlist_addf(&rep->warnings, rep->arena, "%zu stack sample time%s cannot be read "
			       "(the first: \"%.40s\"): %s left out of the samples' span", bad,
			       bad == 1 ? "" : "s", first_bad, bad == 1 ? "it is" : "they are");
}

int bc_samples_finish(struct bc *b)
{
	hg_report *rep = b->rep;
	int rc = close_sample(b);
	if (rc == 0)
		rc = sample_times(b);
	if (rc != 0)
		return rc;
	if (b->samples == 0)
		return hg_strlist_addf(&rep->warnings, rep->arena, "no stack sample: BlockCanary "
				       "caught no stack of the main thread during the block");
	if (b->dropped > 0 &&
	    hg_strlist_addf(&rep->warnings, rep->arena, "%zu of the %zu stack samples are counted "
			    "but not kept: their distinct stacks pass %zu frames in all (see "
			    "--max-stack-lines)", b->dropped, b->samples,
			    b->ctx->limits.max_stack_lines) != 0)
		return HG_ENOMEM;
	if ((rc = hg_report_blame_heaviest(rep, "main", HG_THREAD_MAIN)) != 0)
		return rc;
	char v[32];
	snprintf(v, sizeof v, "%zu", b->samples);
	return hg_report_add_stat(rep, "block", "samples", v);
}

void bc_samples_release(struct bc *b)
{
	strcache_release(&b->names);
	hg_arena_destroy(b->scratch);
	b->scratch = NULL;
	free(b->lines.slots);
	free(b->stacks.slots);
	free(b->cur);
	b->lines = (struct bc_line_table){0};
	b->stacks = (struct bc_stack_table){0};
	b->cur = NULL;
}
