/* A reader thread and a bounded queue to the thread that takes its items
 * (hangar/pipe.h).  The taker takes everything queued at once, and looks
 * for the next item a little while before it sleeps (see SPIN_NS), so
 * that neither thread is woken per item.  On one CPU it cannot look (the
 * reader could not run meanwhile): there the reader wakes it only once
 * half the queue is full, and it sleeps at most BATCH_WAIT_NS. */
#define _GNU_SOURCE /* sched_getaffinity */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hangar/hangar.h"
#include "hangar/pipe.h"

struct hg_pipe {
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full;
	unsigned char *items;   /* len slots of size bytes, a ring */
	size_t size, len, head, n;
	atomic_size_t ready;    /* n, or 1 once closed: read without the lock */
	int64_t spin_ns;        /* SPIN_NS, or 0 on one CPU */
	size_t wake_at;         /* the count at which a push wakes the taker: 1, or half the queue on one CPU */
	size_t wakes;           /* how many times a push did (hg_pipe_wakes) */
	void (*release)(void *item);
	bool closed;            /* the reader is done */
	bool stopped;           /* the taker gave up: the reader stops */
	pthread_t thread;
	bool started;
	void (*reader)(void *user);
	void *user;
};

static int64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* How long the taker looks for the next item before it sleeps: about the
 * time a reader takes for a report.  A sleep and its wake-up cost both
 * threads a system call and the sleeper a rescheduling, which, when the
 * taker is the faster one and so wakes for every item or two, cost the
 * reader more than its reports. */
#define SPIN_NS 50000

/* On one CPU, a push that wakes the sleeping taker lets the scheduler
 * switch to it: a report printed, a sleep, a switch back, for every report
 * or two (folded stacks on one CPU: a fifth to a third of the run in the
 * kernel).  So the reader wakes it only when half the queue is full, and
 * the taker, asleep on an empty queue, wakes by itself after this long to
 * take whatever came: a report from a paused input (tail -f) still shows
 * within 10 ms. */
#define BATCH_WAIT_NS 10000000

/* A spinning thread's hint to the core (x86's pause), else nothing. */
static inline void pause_a_little(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* The CPUs this process may run on (taskset, a container's cpuset): on one,
 * the reader cannot run while the taker looks. */
static int cpus_to_run_on(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		return CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

int hg_pipe_create(size_t item_size, size_t len, void (*release)(void *item), hg_pipe **out)
{
	*out = NULL;
	if (!item_size || !len || len > ((size_t)-1) / item_size)
		return HG_EINVAL;
	struct hg_pipe *p = calloc(1, sizeof *p);
	if (!p)
		return HG_ENOMEM;
	p->items = calloc(len, item_size);
	if (!p->items) {
		free(p);
		return HG_ENOMEM;
	}
	if (pthread_mutex_init(&p->lock, NULL) != 0) {
		free(p->items);
		free(p);
		return HG_ENOMEM;
	}
	if (pthread_cond_init(&p->not_empty, NULL) != 0) {
		pthread_mutex_destroy(&p->lock);
		free(p->items);
		free(p);
		return HG_ENOMEM;
	}
	if (pthread_cond_init(&p->not_full, NULL) != 0) {
		pthread_cond_destroy(&p->not_empty);
		pthread_mutex_destroy(&p->lock);
		free(p->items);
		free(p);
		return HG_ENOMEM;
	}
	p->size = item_size;
	p->len = len;
	p->release = release;
	atomic_init(&p->ready, 0);
	bool one_cpu = cpus_to_run_on() == 1;
	p->spin_ns = one_cpu ? 0 : SPIN_NS;
	p->wake_at = one_cpu && len > 1 ? len / 2 : 1;
	*out = p;
	return 0;
}

static void *slot(const struct hg_pipe *p, size_t i)
{
	return p->items + ((p->head + i) % p->len) * p->size;
}

void hg_pipe_destroy(hg_pipe *p)
{
	if (!p)
		return;
	hg_pipe_join(p);
	for (; p->n; p->n--, p->head = (p->head + 1) % p->len)
		if (p->release)
			p->release(slot(p, 0));
	pthread_cond_destroy(&p->not_full);
	pthread_cond_destroy(&p->not_empty);
	pthread_mutex_destroy(&p->lock);
	free(p->items);
	free(p);
}

static void *run_reader(void *arg)
{
	struct hg_pipe *p = arg;
	p->reader(p->user);
	return NULL;
}

int hg_pipe_start(hg_pipe *p, void (*reader)(void *user), void *user)
{
	if (p->started)
		return HG_EINVAL;
	p->reader = reader;
	p->user = user;
	p->started = pthread_create(&p->thread, NULL, run_reader, p) == 0;
	return p->started ? 0 : HG_EIO;
}

void hg_pipe_join(hg_pipe *p)
{
	if (!p->started)
		return;
	pthread_join(p->thread, NULL);
	p->started = false;
}

bool hg_pipe_push(hg_pipe *p, void *item)
{
	pthread_mutex_lock(&p->lock);
	while (p->n == p->len && !p->stopped)
		pthread_cond_wait(&p->not_full, &p->lock);
	bool stopped = p->stopped;
	if (!stopped) {
		memcpy(slot(p, p->n), item, p->size);
		atomic_store_explicit(&p->ready, p->n + 1, memory_order_relaxed);
		if (++p->n == p->wake_at) {
			p->wakes++;
			pthread_cond_signal(&p->not_empty);
		}
	}
	pthread_mutex_unlock(&p->lock);
	if (stopped && p->release)
		p->release(item);
	memset(item, 0, p->size);
	return !stopped;
}

void hg_pipe_close(hg_pipe *p)
{
	pthread_mutex_lock(&p->lock);
	p->closed = true;
	atomic_store_explicit(&p->ready, 1, memory_order_relaxed);
	pthread_cond_signal(&p->not_empty);
	pthread_mutex_unlock(&p->lock);
}

bool hg_pipe_ready(hg_pipe *p)
{
	return atomic_load_explicit(&p->ready, memory_order_relaxed) != 0;
}

size_t hg_pipe_take(hg_pipe *p, void *out, size_t max)
{
	if (p->spin_ns && !hg_pipe_ready(p))
		for (int64_t until = now_ns() + p->spin_ns; !hg_pipe_ready(p) && now_ns() < until;)
			pause_a_little();
	pthread_mutex_lock(&p->lock);
	while (p->n == 0 && !p->closed) {
		if (p->wake_at == 1) {
			pthread_cond_wait(&p->not_empty, &p->lock);
			continue;
		}
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += BATCH_WAIT_NS;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&p->not_empty, &p->lock, &until);
	}
	size_t n = p->n < max ? p->n : max;
	for (size_t i = 0; i < n; i++)
		memcpy((unsigned char *)out + i * p->size, slot(p, i), p->size);
	p->head = (p->head + n) % p->len;
	p->n -= n;
	atomic_store_explicit(&p->ready, p->closed ? 1 : p->n, memory_order_relaxed);
	if (n)
		pthread_cond_signal(&p->not_full);
	pthread_mutex_unlock(&p->lock);
	return n;
}

size_t hg_pipe_wakes(hg_pipe *p)
{
	pthread_mutex_lock(&p->lock);
	size_t wakes = p->wakes;
	pthread_mutex_unlock(&p->lock);
	return wakes;
}

bool hg_pipe_stopped(hg_pipe *p)
{
	pthread_mutex_lock(&p->lock);
	bool stopped = p->stopped;
	pthread_mutex_unlock(&p->lock);
	return stopped;
}

void hg_pipe_stop(hg_pipe *p)
{
	pthread_mutex_lock(&p->lock);
	p->stopped = true;
	pthread_cond_signal(&p->not_full);
	pthread_mutex_unlock(&p->lock);
}
