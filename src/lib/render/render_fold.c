/* Repeated recursion: a cycle of 1..FOLD_MAX_PERIOD frames that comes back
 * again and again (View.updateDisplayListIfDirty -> ViewGroup.
 * recreateChildDisplayList -> ViewGroup.dispatchGetDisplayList, 30 levels
 * deep) is shown once, then folded into one line; JSON lists the folds
 * beside every frame. */
#include <stdlib.h>
#include <string.h>

#include "render_internal.h"

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Two frames that read the same: same place in the same code. */
static bool same_frame(const hg_frame *a, const hg_frame *b)
{
	return a->kind == b->kind && a->line == b->line && a->has_pc == b->has_pc &&
	       (!a->has_pc || a->pc == b->pc) && same_str(a->method, b->method) &&
	       same_str(a->cls, b->cls) && same_str(a->file, b->file) &&
	       same_str(a->symbol, b->symbol) && same_str(a->image, b->image);
}

static bool same_block(const hg_frame *f, size_t i, size_t j, size_t p)
{
	for (size_t k = 0; k < p; k++)
		if (!same_frame(&f[i + k], &f[j + k]))
			return false;
	return true;
}

/* The smallest cycle starting at i that repeats often enough: its period,
 * and *times the copies after the first; 0 when none. */
static size_t cycle_at(const hg_frame *f, size_t n, size_t i, size_t *times)
{
	for (size_t p = 1; p <= FOLD_MAX_PERIOD && i + p * (FOLD_MIN_TIMES + 1) <= n; p++) {
		size_t j = i + p;
		while (j + p <= n && same_block(f, i, j, p))
			j += p;
		size_t t = (j - i) / p - 1;
		if (t >= FOLD_MIN_TIMES && t * p >= 4) {
			*times = t;
			return p;
		}
	}
	return 0;
}

/* Frames that must stay in sight: a lock line follows them, or they are
 * one candidate of several. */
static bool *pinned_frames(const hg_thread *t)
{
	bool *pin = calloc(t->n_frames, sizeof *pin);
	if (!pin)
		return NULL;
	for (size_t i = 0; i < t->n_locks; i++)
		if (t->locks[i].frame < t->n_frames)
			pin[t->locks[i].frame] = true;
	for (size_t i = 0; i < t->n_frames; i++)
		pin[i] |= t->frames[i].candidate != 0;
	return pin;
}

struct frame_fold *render_find_folds(const hg_thread *t, size_t *n_out)
{
	*n_out = 0;
	const hg_frame *f = t->frames;
	size_t n = t->n_frames, n_folds = 0, cap = 0;
	struct frame_fold *folds = NULL;
	bool *pin = n > FOLD_MIN_TIMES ? pinned_frames(t) : NULL;
	if (!pin)
		return NULL;
	for (size_t i = 0; i < n;) {
		size_t times = 0, p = cycle_at(f, n, i, &times);
		/* the copies end before the first pinned frame among them */
		for (size_t k = i + p; p && k < i + p * (times + 1); k++)
			if (pin[k]) {
				times = (k - i) / p - 1;
				break;
			}
		if (!p || times < FOLD_MIN_TIMES || times * p < 4) {
			i++;
			continue;
		}
		if (n_folds == cap) {
			size_t ncap = cap ? cap * 2 : 4;
			struct frame_fold *v = realloc(folds, ncap * sizeof *v);
			if (!v) {
				free(folds);
				free(pin);
				return NULL;
			}
			folds = v;
			cap = ncap;
		}
		folds[n_folds++] = (struct frame_fold){i + p, p * times, p, times};
		i += p * (times + 1);
	}
	free(pin);
	*n_out = n_folds;
	return folds;
}
