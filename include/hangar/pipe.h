/* Reading on a thread of its own while the caller's thread writes: a
 * bounded queue of the caller's items, in order, between a reader thread
 * the pipe starts and joins and the thread that takes the items.  (hangar
 * stack renders on one core what the other parses; an ingest run has its
 * own queue, in src/lib/ingest/.)
 *
 * Ownership: items are copied in by value (item_size bytes); from a
 * successful push the pipe owns what they point to until they are taken,
 * and hg_pipe_destroy frees those left with the release function. */
#ifndef HANGAR_PIPE_H
#define HANGAR_PIPE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct hg_pipe hg_pipe;

/* A pipe of at most len items of item_size bytes; release frees what one
 * holds (may be NULL).  0 and *out (caller owns; hg_pipe_destroy),
 * HG_EINVAL or HG_ENOMEM. */
int hg_pipe_create(size_t item_size, size_t len, void (*release)(void *item), hg_pipe **out);
/* Joins the reader if it still runs (after hg_pipe_stop, so that it ends),
 * frees the items left.  Accepts NULL. */
void hg_pipe_destroy(hg_pipe *p);

/* Runs reader(user) on a thread of its own: 0, or HG_EIO when no thread
 * can be started (then nothing runs). */
int hg_pipe_start(hg_pipe *p, void (*reader)(void *user), void *user);
/* Waits for the reader to end (nothing when it was not started). */
void hg_pipe_join(hg_pipe *p);

/* Reader: queues item (copied; cleared), waiting while the pipe is full;
 * false when the taker stopped (then item is released and cleared). */
bool hg_pipe_push(hg_pipe *p, void *item);
/* Reader: no more items. */
void hg_pipe_close(hg_pipe *p);
/* Whether the taker stopped: a reader stops reading. */
bool hg_pipe_stopped(hg_pipe *p);

/* Taker: every queued item (at most max) into out (an array of
 * item_size-byte items), in order, waiting while there is none; 0 when
 * the reader closed the pipe and all was taken. */
size_t hg_pipe_take(hg_pipe *p, void *out, size_t max);
/* Taker: whether hg_pipe_take would return at once (an item is queued, or
 * the reader closed the pipe): a taker that holds output can write it
 * out before it waits. */
bool hg_pipe_ready(hg_pipe *p);
/* How many times a push woke the taker so far: once per item that found
 * the queue empty, or, on one CPU, once per half queue (the taker wakes by
 * itself within 10 ms for fewer).  For tests and statistics. */
size_t hg_pipe_wakes(hg_pipe *p);
/* Taker: takes no more; the reader's pushes fail from here on. */
void hg_pipe_stop(hg_pipe *p);

#endif
