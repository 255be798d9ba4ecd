/* The lock graph of a thread dump.  Each thread waits for at most one lock
 * (ART's "- waiting to lock <0x..> ... held by thread N"), so the graph
 * "waits for a lock held by" gives every thread at most one successor: the
 * blamed thread's chain is a walk along it, and deadlocks are its cycles,
 * found in one pass over all threads.  Work is O(n log n) for n threads
 * whatever the input (self-waits, unknown or duplicate tids). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/hangar.h"
#include "hangar/text.h"
#include "hangar/threads.h"

#define NONE ((size_t)-1)

struct by_tid {
	long tid;
	size_t index;
};

struct by_lock {
	const char *addr;
	size_t index;
};

static int cmp_tid(const void *a, const void *b)
{
	const struct by_tid *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int cmp_lock(const void *a, const void *b)
{
	const struct by_lock *x = a, *y = b;
	int c = strcmp(x->addr, y->addr);
	if (c)
		return c;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The first thread (in dump order) with this tid, or NONE. */
static size_t find_tid(const struct by_tid *v, size_t n, long tid)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].tid == tid ? v[lo].index : NONE;
}

/* The first thread other than `self` that lists addr among its held locks. */
static size_t find_holder(const struct by_lock *v, size_t n, const char *addr, size_t self)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(v[mid].addr, addr) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && strcmp(v[lo].addr, addr) == 0; lo++)
		if (v[lo].index != self)
			return v[lo].index;
	return NONE;
}

static const char *name_of(const hg_thread *t)
{
	return t->name ? t->name : "?";
}

/* next[i]: the thread holding the lock thread i waits for, or NONE (no
 * wait, holder unknown, or the thread itself).  The dump's "held by" wins;
 * else the lock's address among the locks other threads hold. */
static int wait_edges(const hg_threads *ts, size_t *next)
{
	size_t n = ts->n, n_tids = 0, n_locks = 0;
	for (size_t i = 0; i < n; i++)
		n_locks += ts->items[i].n_held;
	struct by_tid *tids = malloc((n ? n : 1) * sizeof *tids);
	struct by_lock *locks = malloc((n_locks ? n_locks : 1) * sizeof *locks);
	if (!tids || !locks) {
		free(tids);
		free(locks);
		return HG_ENOMEM;
	}
	n_locks = 0;
	for (size_t i = 0; i < n; i++) {
		const hg_thread *t = &ts->items[i];
		if (t->tid >= 0)
			tids[n_tids++] = (struct by_tid){t->tid, i};
		for (size_t k = 0; k < t->n_held; k++)
			if (t->held[k].addr)
				locks[n_locks++] = (struct by_lock){t->held[k].addr, i};
	}
	qsort(tids, n_tids, sizeof *tids, cmp_tid);
	qsort(locks, n_locks, sizeof *locks, cmp_lock);
	for (size_t i = 0; i < n; i++) {
		const hg_thread *t = &ts->items[i];
		size_t j = NONE;
		if (t->waiting.addr) {
			if (t->waiting_held_by >= 0)
				j = find_tid(tids, n_tids, t->waiting_held_by);
			if (j == NONE || j == i)
				j = find_holder(locks, n_locks, t->waiting.addr, i);
		}
		next[i] = j == i ? NONE : j;
	}
	free(tids);
	free(locks);
	return 0;
}

static void describe_lock(hg_buf *b, const hg_lock *l)
{
	hg_buf_printf(b, "<%s>", l->addr);
	if (l->cls)
		hg_buf_printf(b, " (a %s)", l->cls);
}

static int add_cycle_warning(const hg_threads *ts, const hg_lock_cycle *c, hg_arena *arena,
			     hg_strlist *warnings)
{
	hg_buf b;
	hg_buf_init(&b);
	hg_buf_puts(&b, "deadlock: ");
	for (size_t k = 0; k < c->n; k++) {
		const hg_thread *t = &ts->items[c->threads[k]];
		const hg_thread *holder = &ts->items[c->threads[(k + 1) % c->n]];
		if (k == 0)
			hg_buf_printf(&b, "\"%s\" waits for ", name_of(t));
		else
			hg_buf_puts(&b, ", which waits for ");
		describe_lock(&b, c->locks[k]);
		hg_buf_printf(&b, " held by \"%s\"", name_of(holder));
	}
	int rc = b.failed ? HG_ENOMEM : hg_strlist_addf(warnings, arena, "%s", b.data);
	hg_buf_release(&b);
	return rc;
}

/* Records the cycle path[from..len) (thread path[k] waits for a lock held
 * by path[k+1], the last by path[from]), starting at the blamed thread
 * when it is in it, else at its first thread in dump order. */
static int record_cycle(hg_threads *ts, const size_t *path, size_t from, size_t len,
			hg_arena *arena, hg_strlist *warnings)
{
	size_t n = len - from, first = 0;
	for (size_t k = 0; k < n; k++) {
		size_t i = path[from + k];
		if ((long)i == ts->blamed) {
			first = k;
			break;
		}
		if (i < path[from + first])
			first = k;
	}
	hg_lock_cycle *c = &ts->cycles[ts->n_cycles];
	c->threads = hg_arena_calloc(arena, n, sizeof *c->threads);
	c->locks = hg_arena_calloc(arena, n, sizeof *c->locks);
	if (!c->threads || !c->locks)
		return HG_ENOMEM;
	c->n = n;
	for (size_t k = 0; k < n; k++) {
		size_t i = path[from + (first + k) % n];
		c->threads[k] = i;
		c->locks[k] = &ts->items[i].waiting;
		ts->items[i].flags |= HG_THREAD_DEADLOCKED;
	}
	ts->n_cycles++;
	return add_cycle_warning(ts, c, arena, warnings);
}

/* Every cycle of waits: each walk follows next[] from a thread not yet
 * seen, until it ends, meets a thread an earlier walk finished (no new
 * cycle there), or meets its own path (a cycle).  Each thread is walked
 * once. */
static int find_cycles(hg_threads *ts, const size_t *next, hg_arena *arena, hg_strlist *warnings)
{
	size_t n = ts->n;
	unsigned char *color = calloc(n, 1); /* 0 unseen, 1 on this walk, 2 done */
	size_t *path = malloc(n * sizeof *path);
	size_t *pos = malloc(n * sizeof *pos);
	int rc = 0;
	if (!color || !path || !pos)
		rc = HG_ENOMEM;
	/* A cycle has two threads or more: at most n / 2 of them. */
	if (rc == 0 && !(ts->cycles = hg_arena_calloc(arena, n / 2 + 1, sizeof *ts->cycles)))
		rc = HG_ENOMEM;
	for (size_t start = 0; rc == 0 && start < n; start++) {
		size_t len = 0, j = start;
		while (j != NONE && color[j] == 0) {
			color[j] = 1;
			pos[j] = len;
			path[len++] = j;
			j = next[j];
		}
		if (j != NONE && color[j] == 1)
			rc = record_cycle(ts, path, pos[j], len, arena, warnings);
		for (size_t k = 0; k < len; k++)
			color[path[k]] = 2;
	}
	free(color);
	free(path);
	free(pos);
	return rc;
}

/* The blamed thread waits for chain[0], which waits for chain[1], ...;
 * the walk stops at a thread that waits for nothing, for a lock whose
 * holder is not in the dump, or for one already on the chain (a cycle). */
static int follow_chain(hg_threads *ts, const size_t *next, hg_arena *arena, hg_strlist *warnings)
{
	size_t n = ts->n, b = (size_t)ts->blamed;
	bool *seen = calloc(n, sizeof *seen);
	ts->chain = hg_arena_calloc(arena, n, sizeof *ts->chain);
	if (!seen || !ts->chain) {
		free(seen);
		return HG_ENOMEM;
	}
	seen[b] = true;
	size_t cur = b;
	while (next[cur] != NONE && !seen[next[cur]]) {
		cur = next[cur];
		seen[cur] = true;
		ts->chain[ts->n_chain++] = cur;
		ts->items[cur].flags |= HG_THREAD_BLOCKS_MAIN;
	}
	free(seen);
	const hg_thread *t = &ts->items[cur];
	if (next[cur] != NONE || !t->waiting.addr)
		return 0;
	if (t->waiting_held_by >= 0 && t->waiting_held_by == t->tid)
		return hg_strlist_addf(warnings, arena, "\"%s\" waits for <%s>, which the dump says "
				       "it holds itself", name_of(t), t->waiting.addr);
	if (t->waiting_held_by >= 0)
		return hg_strlist_addf(warnings, arena, "\"%s\" waits for <%s> held by thread %ld, "
				       "which is not in the dump", name_of(t), t->waiting.addr,
				       t->waiting_held_by);
	return hg_strlist_addf(warnings, arena, "\"%s\" waits for <%s>, and no thread in the dump "
			       "holds it", name_of(t), t->waiting.addr);
}

/* Whether t's innermost Java frame is the looper's wait for messages. */
static bool idle_in_looper(const hg_thread *t)
{
	for (size_t k = 0; k < t->n_frames; k++) {
		const hg_frame *f = &t->frames[k];
		if (f->kind != HG_FRAME_JAVA)
			continue;
		return f->cls && f->method && strcmp(f->cls, "android.os.MessageQueue") == 0 &&
		       strcmp(f->method, "nativePollOnce") == 0;
	}
	return false;
}

int hg_threads_analyse(hg_threads *ts, hg_arena *arena, hg_strlist *warnings)
{
	ts->chain = NULL;
	ts->n_chain = 0;
	ts->cycles = NULL;
	ts->n_cycles = 0;
	if (ts->n == 0)
		return 0;
	bool blamed = ts->blamed >= 0 && (size_t)ts->blamed < ts->n;
	size_t *next = malloc(ts->n * sizeof *next);
	if (!next)
		return HG_ENOMEM;
	int rc = wait_edges(ts, next);
	if (rc == 0 && blamed)
		rc = follow_chain(ts, next, arena, warnings);
	if (rc == 0)
		rc = find_cycles(ts, next, arena, warnings);
	free(next);
	if (rc != 0 || !blamed)
		return rc;
	hg_thread *t = &ts->items[ts->blamed];
	if (!t->waiting.addr && idle_in_looper(t)) {
		t->flags |= HG_THREAD_IDLE;
		rc = hg_strlist_addf(warnings, arena, "the %s thread was idle in "
				     "MessageQueue.nativePollOnce when the dump was taken: the dump "
				     "missed the cause of the ANR",
				     t->flags & HG_THREAD_MAIN ? "main" : "blamed");
	}
	return rc;
}
