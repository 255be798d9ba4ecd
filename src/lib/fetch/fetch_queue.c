/* The queue of objects to fetch: which transfers start next (due retries
 * first, then new objects, at most opts.jobs at a time), how long the loop
 * may wait, and the progress callback. */
#include "fetch_internal.h"

#define PROGRESS_EVERY_MS 250

/* Starts what may start: due retries first, then new objects. */
void queue_start_due(struct engine *en)
{
	uint64_t now = fetch_now_ms();
	for (size_t i = 0; i < en->n_waiting && !en->stop &&
			   en->progress.active < (size_t)en->src->opts.jobs;) {
		struct xfer *x = en->waiting[i];
		if (x->ready_at > now) {
			i++;
			continue;
		}
		en->waiting[i] = en->waiting[--en->n_waiting];
		x->attempt++;
		if (xfer_start(en, x) != 0) {
			object_failed(en, x, "cannot stage the file");
			xfer_free(x);
		}
	}
	while (!en->stop && en->next < en->n && en->progress.active < (size_t)en->src->opts.jobs) {
		struct xfer *x = xfer_new(en, &en->objs[en->next++]);
		if (!x) {
			en->stop = HG_ENOMEM;
			break;
		}
		x->attempt = 1;
		if (xfer_start(en, x) != 0) {
			object_failed(en, x, "cannot stage the file");
			xfer_free(x);
		}
	}
	en->progress.waiting = en->n_waiting;
}

long queue_poll_timeout(const struct engine *en)
{
	long t = 100;
	uint64_t now = fetch_now_ms();
	for (size_t i = 0; i < en->n_waiting; i++) {
		long d = en->waiting[i]->ready_at > now ? (long)(en->waiting[i]->ready_at - now) : 0;
		if (d < t)
			t = d;
	}
	return t;
}

void queue_progress(struct engine *en, bool force)
{
	uint64_t now = fetch_now_ms();
	if (en->cb->progress && (force || now - en->last_progress >= PROGRESS_EVERY_MS)) {
		en->last_progress = now;
		en->cb->progress(en->user, &en->progress);
	}
}
