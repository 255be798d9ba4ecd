/* hangar stack on two cores: a reader thread reads, parses, rebuilds and
 * names the reports; the main thread renders and writes them.  This is the
 * hand-off between the two: a bounded queue of items in input order, each a
 * report (or a failed input) with the diagnostics printed before it, so that
 * stderr and stdout keep the order a single thread gives them. */
#ifndef HANGAR_CLI_STACK_PIPELINE_H
#define HANGAR_CLI_STACK_PIPELINE_H

#include <pthread.h>
#include <stdbool.h>

#include "hangar/report.h"
#include "hangar/text.h"

#define STACK_PIPE_LEN 128

struct stack_item {
	hg_report *rep;     /* NULL: no report (a failed input, or diagnostics alone) */
	hg_buf diags;       /* stderr lines that come before it */
	hg_buf text;        /* stdout text that comes before the report (a failed input) */
	bool failed_input;  /* a file that could not be read, counted as one failure */
	bool out_of_memory; /* naming the report ran out of memory */
};

struct stack_pipe {
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full;
	struct stack_item items[STACK_PIPE_LEN];
	size_t head, len;
	bool closed;  /* the reader is done */
	bool stopped; /* the writer gave up: the reader stops */
};

void stack_pipe_init(struct stack_pipe *p);
/* Frees what is left in the queue. */
void stack_pipe_release(struct stack_pipe *p);

/* Reader: queues item (moved: the queue owns it from here on); waits while
 * the queue is full; false when the writer stopped (item freed). */
bool stack_pipe_push(struct stack_pipe *p, struct stack_item *item);
void stack_pipe_close(struct stack_pipe *p);

/* Writer: takes every queued item (at most STACK_PIPE_LEN) into out,
 * waiting while there is none; 0 when the reader closed and all is taken. */
size_t stack_pipe_take(struct stack_pipe *p, struct stack_item *out);
void stack_pipe_stop(struct stack_pipe *p);
bool stack_pipe_stopped(struct stack_pipe *p);

void stack_item_release(struct stack_item *item);

#endif
