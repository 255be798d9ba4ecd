/* Module threads (src/lib/threads/): the thread stacks of dumps (ANR
 * traces, BlockCanary, Java and iOS dumps).  Building threads, frames and
 * locks, and reading one Java frame (threads.c); the thread to blame and
 * what blocks it (threads_analyse.c).  The report readers also use
 * threads_internal.h.
 * Public header: threads.h.
 * Uses: core. */
/* Building thread stacks, and reading one Java frame. */
#include <stdint.h>
#include <string.h>

#include "hangar/hangar.h"
#include "hangar/threads.h"
#include "core/core.h"
#include "threads_internal.h"

/* Grows an arena array of `size`-byte items to hold one more.  With
 * recycle, the array it outgrew goes back to the arena (hg_arena_regrow)
 * for the next thread's frames: readers add one thread's frames after
 * another's, and keep no pointer to a frame across adding one. */
static void *grow(void **items, size_t *cap, size_t n, size_t size, hg_arena *arena, bool recycle)
{
	if (n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		if (ncap > SIZE_MAX / size)
			return NULL;
		void *p = recycle ? hg_arena_regrow(arena, *items, *cap * size, ncap * size)
				  : hg_arena_calloc(arena, ncap, size);
		if (p && !recycle && n)
			memcpy(p, *items, n * size);
		if (!p)
			return NULL;
		*items = p;
		*cap = ncap;
	}
	return (char *)*items + n * size;
}

hg_thread *hg_threads_add(hg_threads *ts, hg_arena *arena)
{
	hg_thread *t = grow((void **)&ts->items, &ts->cap, ts->n, sizeof *t, arena, false);
	if (!t)
		return NULL;
	memset(t, 0, sizeof *t);
	t->tid = t->sys_tid = -1;
	t->priority = -1;
	t->waiting_held_by = -1;
	ts->n++;
	return t;
}

hg_frame *hg_thread_add_frame(hg_thread *t, hg_arena *arena)
{
	hg_frame *f = grow((void **)&t->frames, &t->cap_frames, t->n_frames, sizeof *f, arena, true);
	if (!f)
		return NULL;
	memset(f, 0, sizeof *f);
	f->line = -1;
	f->repeat = 1;
	t->n_frames++;
	return f;
}

int hg_threads_add_image(hg_threads *ts, hg_arena *arena, const hg_image *img, uint32_t *ref)
{
	if (ts->n_images >= UINT32_MAX - 1)
		return HG_ENOMEM;
	hg_image *slot = grow((void **)&ts->images, &ts->cap_images, ts->n_images, sizeof *slot,
			      arena, false);
	if (!slot)
		return HG_ENOMEM;
	*slot = *img;
	*ref = (uint32_t)++ts->n_images;
	return 0;
}

const hg_image *hg_frame_image(const hg_threads *ts, const hg_frame *f)
{
	return f->image_ref && f->image_ref <= ts->n_images ? &ts->images[f->image_ref - 1] : NULL;
}

int hg_thread_reserve_frames(hg_thread *t, hg_arena *arena, size_t n)
{
	if (t->cap_frames - t->n_frames >= n)
		return 0;
	if (n > SIZE_MAX / sizeof *t->frames - t->n_frames)
		return HG_ENOMEM;
	size_t cap = t->n_frames + n;
	hg_frame *p = hg_arena_regrow(arena, t->frames, t->cap_frames * sizeof *p, cap * sizeof *p);
	if (!p)
		return HG_ENOMEM;
	t->frames = p;
	t->cap_frames = cap;
	return 0;
}

int hg_thread_add_held(hg_thread *t, hg_arena *arena, const char *addr, const char *cls)
{
	hg_lock *l = grow((void **)&t->held, &t->cap_held, t->n_held, sizeof *l, arena, false);
	if (!l)
		return HG_ENOMEM;
	l->addr = addr;
	l->cls = cls;
	t->n_held++;
	return 0;
}

int hg_thread_add_frame_lock(hg_thread *t, hg_arena *arena, enum hg_lock_kind kind,
			     const char *addr, const char *cls, long held_by)
{
	hg_frame_lock *l = grow((void **)&t->locks, &t->cap_locks, t->n_locks, sizeof *l, arena, false);
	if (!l)
		return HG_ENOMEM;
	l->frame = t->n_frames ? t->n_frames - 1 : HG_LOCK_NO_FRAME;
	l->kind = kind;
	l->lock = (hg_lock){addr, cls};
	l->held_by = kind == HG_LOCK_WAITING_TO_LOCK ? held_by : -1;
	t->n_locks++;
	return 0;
}

void hg_thread_remap_locks(hg_thread *t, const size_t *end, size_t n_old)
{
	for (size_t i = 0; i < t->n_locks; i++) {
		size_t f = t->locks[i].frame;
		if (f == HG_LOCK_NO_FRAME)
			continue;
		size_t n = f < n_old ? end[f] : t->n_frames;
		t->locks[i].frame = n ? n - 1 : HG_LOCK_NO_FRAME;
	}
}

const char *hg_lock_kind_name(enum hg_lock_kind kind)
{
	static const char *const names[] = {"held", "waiting to lock", "waiting on", "sleeping on",
					    "parking", "released"};
	return (unsigned)kind < sizeof names / sizeof *names ? names[kind] : "?";
}

/* Java and Kotlin names, plus what compilers and R8 put in them: a table,
 * as every byte of every frame's name is looked up (a tenth of reading a
 * Matrix threadStack went on the comparisons). */
static const bool name_chars[256] = {
	['a' ... 'z'] = true, ['A' ... 'Z'] = true, ['0' ... '9'] = true,
	['_'] = true, ['$'] = true, ['.'] = true, ['<'] = true, ['>'] = true, ['-'] = true,
	[0x80 ... 0xFF] = true,
};

static bool name_char(char c)
{
	return name_chars[(unsigned char)c];
}

/* A copy of s[0..len): the cache's when there is one. */
static const char *copy(hg_arena *arena, struct strcache *names, const char *s, size_t len)
{
	return names ? strcache_get(names, s, len) : hg_arena_strndup(arena, s, len);
}

int hg_frame_parse_java(const char *s, size_t len, hg_arena *arena, hg_frame *out)
{
	return frame_parse_java_cached(s, len, arena, NULL, out);
}

int frame_parse_java_cached(const char *s, size_t len, hg_arena *arena, struct strcache *names,
			    hg_frame *out)
{
	const char *p = s, *end = s + len;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	const char *text = p;
	if (end - p > 3 && memcmp(p, "at ", 3) == 0)
		p += 3;
	const char *open = memchr(p, '(', (size_t)(end - p));
	const char *name_end = open ? open : end;
	if (open && end[-1] != ')')
		return HG_EPARSE;
	const char *dot = NULL;
	for (const char *q = p; q < name_end; q++) {
		if (!name_char(*q))
			return HG_EPARSE;
		if (*q == '.')
			dot = q;
	}
	if (!dot || dot == p || dot + 1 == name_end)
		return HG_EPARSE; /* needs class.method */
	memset(out, 0, sizeof *out);
	out->kind = HG_FRAME_JAVA;
	out->line = -1;
	out->repeat = 1;
	out->cls = copy(arena, names, p, (size_t)(dot - p));
	out->method = copy(arena, names, dot + 1, (size_t)(name_end - dot - 1));
	out->text = copy(arena, names, text, (size_t)(end - text));
	if (open) {
		/* "(File.java:12)": the line follows the last colon, when digits. */
		const char *in = open + 1, *close = end - 1, *colon = NULL;
		for (const char *q = in; q < close; q++)
			if (*q == ':')
				colon = q;
		const char *file_end = close;
		if (colon && colon + 1 < close) {
			long line = 0;
			const char *d = colon + 1;
			bool negative = *d == '-';
			d += negative;
			bool digits = d < close;
			for (; d < close && digits; d++) {
				digits = *d >= '0' && *d <= '9' && line < 100000000;
				line = line * 10 + (*d - '0');
			}
			if (digits) {
				out->line = negative ? -line : line;
				file_end = colon;
			}
		}
		if (file_end > in)
			out->file = copy(arena, names, in, (size_t)(file_end - in));
	}
	if (!out->cls || !out->method || !out->text)
		return HG_ENOMEM;
	return 0;
}
