/* The reader-to-writer queue of hangar stack (see stack_pipeline.h).  The
 * writer takes everything queued at once, so that neither thread is woken
 * per report. */
#include "stack_pipeline.h"

void stack_pipe_init(struct stack_pipe *p)
{
	*p = (struct stack_pipe){0};
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->not_empty, NULL);
	pthread_cond_init(&p->not_full, NULL);
}

void stack_item_release(struct stack_item *item)
{
	hg_report_destroy(item->rep);
	hg_buf_release(&item->diags);
	hg_buf_release(&item->text);
	*item = (struct stack_item){0};
}

void stack_pipe_release(struct stack_pipe *p)
{
	for (; p->len; p->len--, p->head = (p->head + 1) % STACK_PIPE_LEN)
		stack_item_release(&p->items[p->head]);
	pthread_cond_destroy(&p->not_full);
	pthread_cond_destroy(&p->not_empty);
	pthread_mutex_destroy(&p->lock);
}

bool stack_pipe_push(struct stack_pipe *p, struct stack_item *item)
{
	pthread_mutex_lock(&p->lock);
	while (p->len == STACK_PIPE_LEN && !p->stopped)
		pthread_cond_wait(&p->not_full, &p->lock);
	bool stopped = p->stopped;
	if (!stopped) {
		p->items[(p->head + p->len) % STACK_PIPE_LEN] = *item;
		*item = (struct stack_item){0};
		if (p->len++ == 0)
			pthread_cond_signal(&p->not_empty);
	}
	pthread_mutex_unlock(&p->lock);
	if (stopped)
		stack_item_release(item);
	return !stopped;
}

void stack_pipe_close(struct stack_pipe *p)
{
	pthread_mutex_lock(&p->lock);
	p->closed = true;
	pthread_cond_signal(&p->not_empty);
	pthread_mutex_unlock(&p->lock);
}

size_t stack_pipe_take(struct stack_pipe *p, struct stack_item *out)
{
	pthread_mutex_lock(&p->lock);
	while (p->len == 0 && !p->closed)
		pthread_cond_wait(&p->not_empty, &p->lock);
	size_t n = p->len;
	for (size_t i = 0; i < n; i++)
		out[i] = p->items[(p->head + i) % STACK_PIPE_LEN];
	p->head = (p->head + n) % STACK_PIPE_LEN;
	p->len = 0;
	if (n)
		pthread_cond_signal(&p->not_full);
	pthread_mutex_unlock(&p->lock);
	return n;
}

bool stack_pipe_stopped(struct stack_pipe *p)
{
	pthread_mutex_lock(&p->lock);
	bool stopped = p->stopped;
	pthread_mutex_unlock(&p->lock);
	return stopped;
}

void stack_pipe_stop(struct stack_pipe *p)
{
	pthread_mutex_lock(&p->lock);
	p->stopped = true;
	pthread_cond_signal(&p->not_full);
	pthread_mutex_unlock(&p->lock);
}
