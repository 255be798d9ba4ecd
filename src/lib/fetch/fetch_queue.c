/* The queue of objects to fetch: which transfers start next (due retries
 * first, then new objects: the given ones, or those a listing queued; at
 * most opts.jobs at a time), how long the loop may wait, and the progress
 * callback. */
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
	while (!en->stop && en->progress.active < (size_t)en->src->opts.jobs) {
		struct item *it = en->next < en->n ? NULL : stream_take(en);
		if (en->next >= en->n && !it)
			break;
		struct xfer *x = it ? xfer_new(en, NULL, it) : xfer_new(en, &en->objs[en->next++], NULL);
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

static long until(uint64_t when, uint64_t now)
{
	return when > now ? (long)(when - now) : 0;
}

long queue_poll_timeout(const struct engine *en)
{
	long t = 100;
	uint64_t now = fetch_now_ms();
	for (size_t i = 0; i < en->n_waiting; i++) {
		long d = until(en->waiting[i]->ready_at, now);
		if (d < t)
			t = d;
	}
	if (en->list_x && !en->list_in_multi && until(en->list_x->ready_at, now) < t)
		t = until(en->list_x->ready_at, now);
	return t;
}

bool queue_busy(const struct engine *en)
{
	return en->progress.done + en->progress.failed < en->progress.total || en->lister ||
	       en->list_x;
}

void queue_progress(struct engine *en, bool force)
{
	uint64_t now = fetch_now_ms();
	if (en->cb->progress && (force || now - en->last_progress >= PROGRESS_EVERY_MS)) {
		en->last_progress = now;
		en->cb->progress(en->user, &en->progress);
	}
}
