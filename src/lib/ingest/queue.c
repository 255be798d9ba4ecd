/* The bounded queue between ingest's reader and writer threads. */
#include <stdlib.h>
#include <time.h>

#include "internal.h"

int ingest_queue_init(struct ingest_queue *q)
{
	*q = (struct ingest_queue){0};
	if (pthread_mutex_init(&q->lock, NULL) != 0)
		return -1;
	if (pthread_cond_init(&q->not_empty, NULL) != 0) {
		pthread_mutex_destroy(&q->lock);
		return -1;
	}
	if (pthread_cond_init(&q->not_full, NULL) != 0) {
		pthread_cond_destroy(&q->not_empty);
		pthread_mutex_destroy(&q->lock);
		return -1;
	}
	return 0;
}

void ingest_item_release(struct ingest_item *item)
{
	hg_store_prep_destroy(item->prep);
	hg_report_destroy(item->rep);
	free(item->path);
	free(item->reason);
	free((char *)item->object.source);
	free((char *)item->object.key);
	free((char *)item->object.etag);
	free((char *)item->object.last_modified);
	*item = (struct ingest_item){0};
}

void ingest_queue_release(struct ingest_queue *q)
{
	for (size_t i = 0; i < q->n_spent; i++)
		ingest_item_release(&q->spent[i]);
	q->n_spent = 0;
	for (; q->len; q->len--, q->head = (q->head + 1) % INGEST_QUEUE_LEN)
		ingest_item_release(&q->items[q->head]);
	pthread_cond_destroy(&q->not_full);
	pthread_cond_destroy(&q->not_empty);
	pthread_mutex_destroy(&q->lock);
}

bool ingest_queue_push(struct ingest_queue *q, const struct ingest_item *item)
{
	struct ingest_item spent[INGEST_QUEUE_LEN];
	pthread_mutex_lock(&q->lock);
	while (q->len == INGEST_QUEUE_LEN && !q->stopped) {
		q->reader_waits = true;
		pthread_cond_wait(&q->not_full, &q->lock);
	}
	q->reader_waits = false;
	bool ok = !q->stopped;
	if (ok) {
		q->items[(q->head + q->len) % INGEST_QUEUE_LEN] = *item;
		q->len++;
		if (q->writer_waits && q->len >= INGEST_QUEUE_WAKE)
			pthread_cond_signal(&q->not_empty);
	}
	/* The items the writer handed back, freed here, outside the lock:
	 * left waiting, they overflowed and the writer freed them itself,
	 * contending for the reader's malloc arena. */
	size_t n_spent = q->n_spent;
	for (size_t i = 0; i < n_spent; i++)
		spent[i] = q->spent[i];
	q->n_spent = 0;
	pthread_mutex_unlock(&q->lock);
	for (size_t i = 0; i < n_spent; i++)
		ingest_item_release(&spent[i]);
	return ok;
}

static void deadline_in(struct timespec *ts, long ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_nsec += ms * 1000000L;
	ts->tv_sec += ts->tv_nsec / 1000000000L;
	ts->tv_nsec %= 1000000000L;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (long)(now.tv_sec - t0->tv_sec) * 1000L + (now.tv_nsec - t0->tv_nsec) / 1000000L;
}

size_t ingest_queue_pop_all(struct ingest_queue *q, struct ingest_item *out, size_t max,
			    long wait_ms, bool *timed_out)
{
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	*timed_out = false;
	pthread_mutex_lock(&q->lock);
	/* Wait for a wake-up's worth, or for whatever came in the wait; with
	 * nothing at all, until wait_ms has passed (a reader blocked on a
	 * FIFO must not keep the writer from committing what it has). */
	while (q->len < INGEST_QUEUE_WAKE && !q->closed) {
		struct timespec until;
		deadline_in(&until, INGEST_QUEUE_WAIT_MS);
		q->writer_waits = true;
		int rc = pthread_cond_timedwait(&q->not_empty, &q->lock, &until);
		q->writer_waits = false;
		if (rc != 0 && q->len > 0)
			break;
		if (q->len == 0 && wait_ms >= 0 && ms_since(&t0) >= wait_ms) {
			*timed_out = true;
			break;
		}
	}
	size_t n = q->len < max ? q->len : max;
	for (size_t i = 0; i < n; i++) {
		out[i] = q->items[q->head];
		q->head = (q->head + 1) % INGEST_QUEUE_LEN;
	}
	q->len -= n;
	if (n && q->reader_waits)
		pthread_cond_signal(&q->not_full);
	pthread_mutex_unlock(&q->lock);
	return n;
}

void ingest_queue_close(struct ingest_queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->closed = true;
	pthread_cond_broadcast(&q->not_empty);
	pthread_mutex_unlock(&q->lock);
}

void ingest_queue_stop(struct ingest_queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->stopped = true;
	pthread_cond_broadcast(&q->not_full);
	pthread_mutex_unlock(&q->lock);
}

bool ingest_queue_writer_keeps_up(struct ingest_queue *q)
{
	pthread_mutex_lock(&q->lock);
	bool keeps_up = q->writer_waits || q->len < INGEST_QUEUE_LEN / 2;
	pthread_mutex_unlock(&q->lock);
	return keeps_up;
}

bool ingest_queue_stopped(struct ingest_queue *q)
{
	pthread_mutex_lock(&q->lock);
	bool stopped = q->stopped;
	pthread_mutex_unlock(&q->lock);
	return stopped;
}

void ingest_queue_recycle(struct ingest_queue *q, struct ingest_item *items, size_t n)
{
	size_t kept = 0;
	pthread_mutex_lock(&q->lock);
	if (!q->closed)
		for (; kept < n && q->n_spent < INGEST_QUEUE_LEN; kept++)
			q->spent[q->n_spent++] = items[kept];
	pthread_mutex_unlock(&q->lock);
	for (size_t i = kept; i < n; i++)
		ingest_item_release(&items[i]);
	for (size_t i = 0; i < n; i++)
		items[i] = (struct ingest_item){0};
}
