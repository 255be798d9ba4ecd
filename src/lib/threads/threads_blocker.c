/* What the blamed thread waits on, in one line that reads the same for the
 * same cause in any dump: thread names with their numbers as N, frames as
 * Class.method without package, line or address, no tids.  The lead's
 * cluster page counts reports by this line, so a pool's threads
 * (cart-sync-3, cart-sync-12) must give one line, and two causes two.
 *
 * Kinds, most specific first: a deadlock the blamed thread is in (or waits
 * into), a lock held by another thread (the last holder of the chain), a
 * binder transaction, a Java wait (Object.wait, sleep, park), a native
 * wait the stack makes plain.  Anything else (the app's own work, an idle
 * looper, the runtime suspending threads for the dump itself) is no
 * blocker: a guess would merge causes. */
#include <stdbool.h>
#include <string.h>

#include "hangar/hangar.h"
#include "hangar/text.h"
#include "hangar/threads.h"
#include "threads_blocker.h"

/* ---- whose frame ---- */

bool blocker_has_prefix(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strncmp(s, list[i], strlen(list[i])) == 0)
			return true;
	return false;
}

/* Java frames only: a native frame has no Class.method to name. */
enum owner blocker_owner(const hg_frame *f)
{
	if (f->kind != HG_FRAME_JAVA || !f->cls || !f->method)
		return OWNER_NONE;
	if (hg_java_platform_prefix(f->cls)) /* the signatures' lists (java_owner.c) */
		return OWNER_PLATFORM;
	if (hg_java_library_prefix(f->cls))
		return OWNER_LIBRARY;
	return OWNER_APP;
}

/* The innermost app frame from index `from` on, else the innermost
 * library one; NULL when the thread runs platform code only. */
const hg_frame *blocker_top_app_frame(const hg_thread *t, size_t from)
{
	const hg_frame *library = NULL;
	for (size_t i = from; i < t->n_frames; i++) {
		enum owner o = blocker_owner(&t->frames[i]);
		if (o == OWNER_APP)
			return &t->frames[i];
		if (o == OWNER_LIBRARY && !library)
			library = &t->frames[i];
	}
	return library;
}

bool blocker_is_java(const hg_frame *f, const char *cls, const char *method)
{
	return f->kind == HG_FRAME_JAVA && f->cls && f->method && strcmp(f->cls, cls) == 0 &&
	       (!method || strcmp(f->method, method) == 0);
}

/* ---- normalized names ---- */

/* ASCII only, whatever the locale: names are compared byte for byte. */
static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_alnum(char c)
{
	return is_hex(c) || (c >= 'g' && c <= 'z') || (c >= 'G' && c <= 'Z');
}

/* A thread's name with what tells a pool's threads apart as N: every run
 * of digits ("pool-3-thread-7" -> "pool-N-thread-N"), and whole a word
 * that is an address or a hash ("0x7f3a", "@5d3f2a1", "9f86d081e4"). */
static void put_thread_name(hg_buf *b, const char *s)
{
	if (!s) {
		hg_buf_puts(b, "an unknown thread");
		return;
	}
	while (*s) {
		if (!is_alnum(*s)) {
			hg_buf_putc(b, *s++);
			continue;
		}
		size_t n = 0, digits = 0;
		bool hex = true;
		while (is_alnum(s[n])) {
			hex &= is_hex(s[n]);
			digits += is_digit(s[n]);
			n++;
		}
		bool prefixed = n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
		for (size_t k = 2; prefixed && k < n; k++)
			prefixed = is_hex(s[k]);
		if (prefixed || (hex && digits && n >= 8)) {
			hg_buf_putc(b, 'N');
		} else {
			for (size_t k = 0; k < n; k++) {
				if (!is_digit(s[k]))
					hg_buf_putc(b, s[k]);
				else if (k == 0 || !is_digit(s[k - 1]))
					hg_buf_putc(b, 'N');
			}
		}
		s += n;
	}
}

/* A class or method name with compiler numbering out of it, as the
 * signatures have it: cut at a synthetic lambda's suffix ("$$Lambda"
 * for all of them), then each '$'-digits run as "$N". */
static void put_name(hg_buf *b, const char *s, size_t len)
{
	static const char *const cuts[] = {"$$ExternalSynthetic", "$$InternalSynthetic",
					   "$$Lambda", "$r8$lambda$"};
	size_t keep = len;
	for (size_t i = 0; i < len && keep == len; i++)
		for (size_t c = 0; s[i] == '$' && c < N_OF(cuts); c++)
			if (strncmp(s + i, cuts[c], strlen(cuts[c])) == 0) {
				keep = i;
				break;
			}
	for (size_t i = 0; i < keep; i++) {
		hg_buf_putc(b, s[i]);
		if (s[i] == '$' && i + 1 < keep && is_digit(s[i + 1])) {
			hg_buf_putc(b, 'N');
			while (i + 1 < keep && is_digit(s[i + 1]))
				i++;
		}
	}
	if (keep < len)
		hg_buf_puts(b, "$$Lambda");
}

static const char *simple_class(const char *cls)
{
	const char *dot = strrchr(cls, '.');
	return dot ? dot + 1 : cls;
}

/* "CartDao.save": the class without its package. */
static void put_frame(hg_buf *b, const hg_frame *f)
{
	const char *cls = simple_class(f->cls);
	put_name(b, cls, strlen(cls));
	hg_buf_putc(b, '.');
	put_name(b, f->method, strlen(f->method));
}

/* The outer class of cls without its package: "CountDownLatch" of
 * "java.util.concurrent.CountDownLatch$Sync". */
static void put_outer_class(hg_buf *b, const char *cls)
{
	const char *s = simple_class(cls);
	size_t n = strcspn(s, "$");
	put_name(b, s, n ? n : strlen(s));
}

/* ---- the result ---- */

/* Sets out->kind and copies the line (and frame part when given) into the
 * arena. */
int blocker_finish(struct blocker_ctx *c, const char *kind, const hg_buf *frame)
{
	if (c->line.failed || (frame && frame->failed))
		return HG_ENOMEM;
	c->out->kind = kind;
	c->out->line = hg_arena_strndup(c->arena, c->line.data ? c->line.data : "", c->line.len);
	if (frame && frame->len)
		c->out->frame = hg_arena_strndup(c->arena, frame->data, frame->len);
	if (!c->out->line || (frame && frame->len && !c->out->frame))
		return HG_ENOMEM;
	return 0;
}

/* Appends sep and f's Class.method (when there is an f) to the line. */
int blocker_finish_at(struct blocker_ctx *c, const char *kind, const char *sep, const hg_frame *f)
{
	hg_buf frame;
	hg_buf_init(&frame);
	if (f) {
		put_frame(&frame, f);
		hg_buf_puts(&c->line, sep);
		hg_buf_add(&c->line, frame.data ? frame.data : "", frame.len);
	}
	int rc = blocker_finish(c, kind, &frame);
	hg_buf_release(&frame);
	return rc;
}

/* ---- deadlock and lock ---- */

static const hg_lock_cycle *cycle_of(const hg_threads *ts, size_t thread, size_t *at)
{
	for (size_t c = 0; c < ts->n_cycles; c++)
		for (size_t k = 0; k < ts->cycles[c].n; k++)
			if (ts->cycles[c].threads[k] == thread) {
				*at = k;
				return &ts->cycles[c];
			}
	return NULL;
}

/* "deadlock: main -> db-writer-N -> main": the blamed thread's cycle from
 * it; when it waits into a cycle it is not in, its chain up to the cycle
 * and round it ("main -> a -> b -> a"). */
static int deadlock(struct blocker_ctx *c, bool *found)
{
	const hg_threads *ts = c->ts;
	size_t b = (size_t)ts->blamed, at = 0, last = ts->n_chain ? ts->chain[ts->n_chain - 1] : b;
	const hg_lock_cycle *cy = cycle_of(ts, last, &at);
	if (!cy)
		return 0;
	*found = true;
	hg_buf_puts(&c->line, "deadlock: ");
	put_thread_name(&c->line, ts->items[b].name);
	for (size_t k = 0; k < ts->n_chain; k++) {
		hg_buf_puts(&c->line, " -> ");
		put_thread_name(&c->line, ts->items[ts->chain[k]].name);
	}
	/* the chain stopped at a thread it had seen: the cycle's next one */
	hg_buf_puts(&c->line, " -> ");
	put_thread_name(&c->line, ts->items[cy->threads[(at + 1) % cy->n]].name);
	return blocker_finish(c, "deadlock", NULL);
}

/* "lock held by cart-sync-N in CartDao.save": the last holder of the
 * chain, where it runs app code; the lock's class when it runs none. */
static int lock(struct blocker_ctx *c)
{
	const hg_threads *ts = c->ts;
	const hg_thread *waiter = &ts->items[ts->blamed], *holder = NULL;
	if (ts->n_chain) {
		holder = &ts->items[ts->chain[ts->n_chain - 1]];
		if (ts->n_chain > 1)
			waiter = &ts->items[ts->chain[ts->n_chain - 2]];
	}
	hg_buf_puts(&c->line, "lock held by ");
	size_t start = c->line.len;
	put_thread_name(&c->line, holder ? holder->name : NULL);
	const hg_frame *f = holder ? blocker_top_app_frame(holder, 0) : NULL;
	if (holder && holder->name && !c->line.failed &&
	    !(c->out->holder = hg_arena_strndup(c->arena, c->line.data + start, c->line.len - start)))
		return HG_ENOMEM;
	if (!f && waiter->waiting.cls) {
		hg_buf_puts(&c->line, " on ");
		put_name(&c->line, waiter->waiting.cls, strlen(waiter->waiting.cls));
	}
	return blocker_finish_at(c, "lock", " in ", f);
}

/* ---- binder ---- */

/* A frame of an outgoing transaction (not of a binder thread's loop). */
static bool binder_frame(const hg_frame *f)
{
	if (f->kind == HG_FRAME_JAVA)
		return f->cls && strcmp(f->cls, "android.os.BinderProxy") == 0;
	const char *s = f->method ? f->method : f->symbol;
	return s && (strstr(s, "IPCThreadState::transact") ||
		     strstr(s, "IPCThreadState::waitForResponse") || strstr(s, "BpBinder::transact"));
}

/* The "$Stub$Proxy" (or AIDL "$Proxy") frame's interface and method. */
static bool proxy_frame(const hg_frame *f, hg_buf *b)
{
	if (f->kind != HG_FRAME_JAVA || !f->cls || !f->method)
		return false;
	const char *p = strstr(f->cls, "$Stub$Proxy");
	size_t n = strlen(f->cls);
	if (!p && n > 6 && strcmp(f->cls + n - 6, "$Proxy") == 0)
		p = f->cls + n - 6;
	if (!p)
		return false;
	const char *start = f->cls;
	for (const char *q = f->cls; q < p; q++)
		if (*q == '.')
			start = q + 1;
	put_name(b, start, (size_t)(p - start));
	hg_buf_putc(b, '.');
	put_name(b, f->method, strlen(f->method));
	return true;
}

/* "binder call IActivityManager.getRunningAppProcesses", or "binder call
 * from <top app frame>": a transaction under the thread's app frames. */
static int binder(struct blocker_ctx *c, const hg_thread *t, bool *found)
{
	size_t i = 0;
	while (i < t->n_frames && blocker_owner(&t->frames[i]) != OWNER_APP && !binder_frame(&t->frames[i]))
		i++;
	if (i == t->n_frames || !binder_frame(&t->frames[i]))
		return 0;
	*found = true;
	hg_buf frame;
	hg_buf_init(&frame);
	for (; i < t->n_frames && !frame.len; i++)
		proxy_frame(&t->frames[i], &frame);
	int rc;
	if (frame.len) {
		hg_buf_puts(&c->line, "binder call ");
		hg_buf_add(&c->line, frame.data, frame.len);
		rc = blocker_finish(c, "binder", &frame);
	} else {
		hg_buf_puts(&c->line, "binder call");
		rc = blocker_finish_at(c, "binder", " from ", blocker_top_app_frame(t, 0));
	}
	hg_buf_release(&frame);
	return rc;
}

/* ---- Java waits ---- */

enum wait_verb { VERB_NONE, VERB_WAIT, VERB_SLEEP, VERB_PARK };

/* The frames a wait runs in, below the call the code made (CountDownLatch.
 * await, FutureTask.get, Object.wait itself), and what each says. */
static enum wait_verb machinery(const hg_frame *f, bool *is_machinery)
{
	*is_machinery = false;
	if (f->kind != HG_FRAME_JAVA || !f->cls || !f->method)
		return VERB_NONE;
	if (blocker_is_java(f, "java.lang.Object", "wait") || blocker_is_java(f, "java.lang.Object", "wait0")) {
		*is_machinery = true;
		return VERB_WAIT;
	}
	if (blocker_is_java(f, "java.lang.Thread", "sleep") || blocker_is_java(f, "java.lang.Thread", "sleep0") ||
	    blocker_is_java(f, "java.lang.VMThread", "sleep")) {
		*is_machinery = true;
		return VERB_SLEEP;
	}
	if (blocker_is_java(f, "sun.misc.Unsafe", "park") || blocker_is_java(f, "jdk.internal.misc.Unsafe", "park") ||
	    blocker_is_java(f, "java.lang.Thread", "parkFor$") || blocker_is_java(f, "java.lang.Thread", "parkUntil$") ||
	    blocker_is_java(f, "java.util.concurrent.locks.LockSupport", NULL)) {
		*is_machinery = true;
		return VERB_PARK;
	}
	*is_machinery = strncmp(f->cls, "java.util.concurrent.locks.AbstractQueued", 41) == 0 ||
			strncmp(f->cls, "java.util.concurrent.ForkJoinPool", 33) == 0;
	return VERB_NONE;
}

static enum wait_verb lock_verb(enum hg_lock_kind k)
{
	return k == HG_LOCK_WAITING_ON ? VERB_WAIT : k == HG_LOCK_SLEEPING_ON ? VERB_SLEEP
		: k == HG_LOCK_PARKING ? VERB_PARK : VERB_NONE;
}

/* The lock line of kind verb under frames [0, end), or NULL. */
static const hg_lock *wait_lock(const hg_thread *t, size_t end, enum wait_verb verb)
{
	for (size_t i = 0; i < t->n_locks; i++) {
		const hg_frame_lock *l = &t->locks[i];
		if ((l->frame == HG_LOCK_NO_FRAME || l->frame < end) && lock_verb(l->kind) == verb)
			return &l->lock;
	}
	return NULL;
}

/* "parked on CountDownLatch in Loader.await", "waiting on Object in
 * Sync.run", "sleeping in Receiver.onReceive": the thread's innermost
 * Java frames are a wait (or its lock lines say so), what it waits on is
 * the class the code called into (else the monitor's), where is the top
 * app frame. */
static int java_wait(struct blocker_ctx *c, const hg_thread *t, bool *found)
{
	size_t i = 0;
	while (i < t->n_frames && t->frames[i].kind == HG_FRAME_NATIVE)
		i++;
	/* the innermost Java frame must be a wait; the verb is the outermost
	 * one's (Android 7 parks in Object.wait under Unsafe.park) */
	enum wait_verb verb = VERB_NONE;
	for (size_t first = i; i < t->n_frames; i++) {
		bool mach;
		enum wait_verb v = machinery(&t->frames[i], &mach);
		if (!mach || (i == first && v == VERB_NONE))
			break;
		if (v != VERB_NONE)
			verb = v;
	}
	/* i: the first frame past the wait's own (the call the code made) */
	for (size_t k = 0; verb == VERB_NONE && k < t->n_locks; k++)
		if (t->locks[k].frame == HG_LOCK_NO_FRAME || t->locks[k].frame < i)
			verb = lock_verb(t->locks[k].kind);
	if (verb == VERB_NONE)
		return 0;
	*found = true;
	const hg_frame *api = i < t->n_frames && t->frames[i].kind == HG_FRAME_JAVA ? &t->frames[i] : NULL;
	if (verb == VERB_SLEEP) {
		hg_buf_puts(&c->line, "sleeping");
	} else {
		hg_buf_puts(&c->line, verb == VERB_PARK ? "parked on " : "waiting on ");
		const hg_lock *l = wait_lock(t, i, verb);
		if (api && blocker_owner(api) != OWNER_APP && api->cls)
			put_outer_class(&c->line, api->cls);
		else if (l && l->cls)
			put_outer_class(&c->line, l->cls);
		else
			hg_buf_puts(&c->line, verb == VERB_PARK ? "LockSupport" : "Object");
	}
	return blocker_finish_at(c, "wait", " in ", blocker_top_app_frame(t, i));
}

/* ---- the one call ---- */

int hg_threads_blocker(const hg_threads *ts, hg_arena *arena, hg_blocker *out)
{
	memset(out, 0, sizeof *out);
	if (ts->blamed < 0 || (size_t)ts->blamed >= ts->n)
		return 0;
	const hg_thread *t = &ts->items[ts->blamed];
	struct blocker_ctx c = {ts, arena, out, {0}};
	hg_buf_init(&c.line);
	bool found = false;
	int rc = deadlock(&c, &found);
	if (rc == 0 && !found && t->waiting.addr) {
		found = true;
		rc = lock(&c);
	}
	if (rc == 0 && !found && !(t->flags & HG_THREAD_IDLE))
		rc = binder(&c, t, &found);
	if (rc == 0 && !found && !(t->flags & HG_THREAD_IDLE))
		rc = java_wait(&c, t, &found);
	if (rc == 0 && !found && !(t->flags & HG_THREAD_IDLE))
		rc = blocker_native_wait(&c, t, &found);
	hg_buf_release(&c.line);
	if (rc != 0)
		memset(out, 0, sizeof *out);
	return rc;
}
