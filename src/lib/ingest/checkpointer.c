/* An ingest run's checkpointer thread: after each commit it copies the
 * committed part of the write-ahead log into the store file, through a
 * handle of its own, while the reader and the writer go on.  Without it
 * the whole log (as large as the store) was copied when the store closed,
 * after everything else: a sixth of a big ingest. */
#include <stdio.h>

#include "internal.h"

static void *checkpointer(void *arg)
{
	struct ingest_checkpointer *c = arg;
	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (!c->poked && !c->stop)
			pthread_cond_wait(&c->wake, &c->lock);
		if (c->stop)
			break;
		c->poked = false;
		pthread_mutex_unlock(&c->lock);
		/* Nothing is lost when it fails: the close copies what is left. */
		hg_store_checkpoint(c->store);
		pthread_mutex_lock(&c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

void ingest_checkpointer_start(struct hg_ingest *in)
{
	struct ingest_checkpointer *c = &in->checkpointer;
	*c = (struct ingest_checkpointer){0};
	hg_ctx_init(&c->ctx); /* quiet: its errors change nothing */
	if (hg_store_open(&c->ctx, in->opts.store_path, &c->store) != 0)
		return;
	if (pthread_mutex_init(&c->lock, NULL) != 0) {
		hg_store_close(c->store);
		c->store = NULL;
		return;
	}
	if (pthread_cond_init(&c->wake, NULL) != 0) {
		pthread_mutex_destroy(&c->lock);
		hg_store_close(c->store);
		c->store = NULL;
		return;
	}
	c->running = pthread_create(&c->thread, NULL, checkpointer, c) == 0;
	if (!c->running) {
		pthread_cond_destroy(&c->wake);
		pthread_mutex_destroy(&c->lock);
		hg_store_close(c->store);
		c->store = NULL;
	}
}

void ingest_checkpointer_poke(struct hg_ingest *in)
{
	struct ingest_checkpointer *c = &in->checkpointer;
	if (!c->running)
		return;
	pthread_mutex_lock(&c->lock);
	c->poked = true;
	pthread_cond_signal(&c->wake);
	pthread_mutex_unlock(&c->lock);
}

void ingest_checkpointer_stop(struct hg_ingest *in)
{
	struct ingest_checkpointer *c = &in->checkpointer;
	if (!c->running)
		return;
	pthread_mutex_lock(&c->lock);
	c->stop = true;
	pthread_cond_signal(&c->wake);
	pthread_mutex_unlock(&c->lock);
	pthread_join(c->thread, NULL);
	pthread_cond_destroy(&c->wake);
	pthread_mutex_destroy(&c->lock);
	hg_store_close(c->store);
	c->store = NULL;
	c->running = false;
}
