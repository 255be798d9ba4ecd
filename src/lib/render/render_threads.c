/* Thread stacks and figures for a person: the blamed thread first, then
 * the threads that block it, lock cycles, then with --all-threads the rest.
 * Lock lines stay under the frame the dump wrote them under, an exception's
 * causes under its thread, repeated recursion is folded, and everything
 * fits opts->width (render_width.c). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_internal.h"

const char *const render_flag_names[RENDER_N_FLAGS] = {"main", "blamed", "blocks main",
						       "deadlocked", "idle", "reporter", "cause",
						       "sample"};

/* What drawing one report's threads needs. */
struct draw {
	hg_buf *out;
	const hg_report *rep;
	const hg_render_opts *opts;
	const struct style *st;
	int width;
	const char *indent, *or_open, *or_more, *cont; /* guide columns, narrower when narrow */
};

/* "Class.method" of a frame (its class without the package), for the
 * line that says what a recursion repeats. */
static void short_name(hg_buf *out, const hg_frame *f, const char *ellipsis)
{
	if (f->kind == HG_FRAME_JAVA && f->cls) {
		const char *dot = strrchr(f->cls, '.');
		hg_buf_printf(out, "%s.%s", dot ? dot + 1 : f->cls, f->method ? f->method : "?");
	} else if (f->method || f->symbol) {
		hg_buf_puts(out, f->method ? f->method : f->symbol);
	} else if (f->image) {
		render_image_text(out, f->image, true, ellipsis);
		if (f->has_offset)
			hg_buf_printf(out, " +0x%" PRIx64, f->offset);
	} else {
		hg_buf_printf(out, "0x%" PRIx64, f->pc);
	}
}

/* text[0..len) wrapped under d's indent, in colour when colour is set. */
static void wrapped(const struct draw *d, const char *first, const char *text, size_t len,
		    const char *colour)
{
	hg_buf b;
	hg_buf_init(&b);
	hg_render_wrap(&b, first, d->cont, text, len, d->width);
	if (b.len && *colour) {
		hg_buf_puts(d->out, colour);
		hg_buf_add(d->out, b.data, b.len - 1); /* the reset before the last newline */
		hg_buf_printf(d->out, "%s\n", d->st->reset);
	} else {
		hg_buf_add(d->out, b.data, b.len);
	}
	d->out->failed |= b.failed;
	hg_buf_release(&b);
}

static const char *holder_name(const hg_report *rep, long tid)
{
	for (size_t k = 0; k < rep->threads.n; k++)
		if (rep->threads.items[k].tid == tid)
			return rep->threads.items[k].name;
	return NULL;
}

/* A lock line in ART's words, with the holder's name when it is known. */
/* Whether t sleeps on l (Thread.sleep), rather than waits on it. */
static bool sleeps_on(const hg_thread *t, const hg_lock *l)
{
	for (size_t i = 0; i < t->n_locks; i++)
		if (t->locks[i].kind == HG_LOCK_SLEEPING_ON && t->locks[i].lock.addr && l->addr &&
		    !strcmp(t->locks[i].lock.addr, l->addr))
			return true;
	return false;
}

static void lock_text(const struct draw *d, const hg_thread *t, enum hg_lock_kind kind,
		      const hg_lock *l, long held_by)
{
	static const char *const words[] = {"locked", "waiting to lock", "waiting on", "sleeping on",
					    "parking to wait for", "locked"};
	hg_buf b;
	hg_buf_init(&b);
	hg_buf_printf(&b, "- %s <%s>", words[kind], l->addr ? l->addr : "?");
	if (l->cls)
		hg_buf_printf(&b, " (a %s)", l->cls);
	if (kind == HG_LOCK_RELEASED)
		hg_buf_puts(&b, sleeps_on(t, l) ? ", let go while it sleeps" : ", let go while it waits");
	if (kind == HG_LOCK_WAITING_TO_LOCK && held_by >= 0) {
		const char *holder = holder_name(d->rep, held_by);
		hg_buf_printf(&b, " held by thread %ld", held_by);
		if (holder)
			hg_buf_printf(&b, " \"%s\"", holder);
	}
	wrapped(d, d->indent, b.data ? b.data : "", b.len,
		kind == HG_LOCK_WAITING_TO_LOCK ? d->st->warn : "");
	d->out->failed |= b.failed;
	hg_buf_release(&b);
}

/* "… 8 more times: A → B → C (24 frames)" */
static void fold_line(const struct draw *d, const hg_thread *t, const struct frame_fold *fo)
{
	hg_buf b;
	hg_buf_init(&b);
	bool ascii = d->opts->ascii;
	hg_buf_printf(&b, "%s %zu more time%s: ", d->st->ellipsis, fo->times,
		      fo->times == 1 ? "" : "s");
	for (size_t k = fo->first - fo->period; k < fo->first; k++) {
		if (k > fo->first - fo->period)
			hg_buf_puts(&b, ascii ? " -> " : " → ");
		short_name(&b, &t->frames[k], d->st->ellipsis);
	}
	hg_buf_printf(&b, " (%zu frames)", fo->n);
	wrapped(d, d->indent, b.data ? b.data : "", b.len, d->st->dim);
	d->out->failed |= b.failed;
	hg_buf_release(&b);
}

static void frame_line(const struct draw *d, const hg_thread *t, size_t i)
{
	const hg_frame *f = &t->frames[i];
	/* Ambiguous retrace: "or" opens each candidate after the first;
	 * the rest of a candidate's (inlined) frames line up under it. */
	bool opens = f->candidate > 1 && (i == 0 || t->frames[i - 1].candidate != f->candidate);
	const char *lead = opens ? d->or_open : f->candidate > 1 ? d->or_more : d->indent;
	hg_buf_puts(d->out, lead);
	char times[32] = "";
	if (f->repeat > 1)
		snprintf(times, sizeof times, "  %s%ld", d->st->times, f->repeat);
	int avail = 0;
	if (d->width > 0) {
		avail = d->width - (int)render_cols(lead, strlen(lead)) -
			(int)render_cols(times, strlen(times));
		avail = avail > HG_RENDER_MIN_ROOM ? avail : HG_RENDER_MIN_ROOM;
	}
	render_thread_frame(d->out, f, avail, d->st->ellipsis);
	hg_buf_puts(d->out, times);
	hg_buf_putc(d->out, '\n');
	render_flush_point(d->out, d->opts);
}

static int lock_order(const void *a, const void *b)
{
	const hg_frame_lock *x = *(const hg_frame_lock *const *)a, *y = *(const hg_frame_lock *const *)b;
	size_t fx = x->frame + 1, fy = y->frame + 1; /* HG_LOCK_NO_FRAME first */
	return fx != fy ? (fx < fy ? -1 : 1) : (x < y ? -1 : x > y);
}

/* The lock lines in frame order (readers write them so; a reorder is kept
 * stable), malloc'd; NULL when none or out of memory. */
static const hg_frame_lock **sorted_locks(const hg_thread *t)
{
	const hg_frame_lock **v = t->n_locks ? malloc(t->n_locks * sizeof *v) : NULL;
	for (size_t i = 0; v && i < t->n_locks; i++)
		v[i] = &t->locks[i];
	if (v)
		qsort(v, t->n_locks, sizeof *v, lock_order);
	return v;
}

/* Locks a reader gave without saying under which frame: at the end. */
static void graph_locks(const struct draw *d, const hg_thread *t)
{
	for (size_t i = 0; i < t->n_held; i++)
		lock_text(d, t, HG_LOCK_HELD, &t->held[i], -1);
	if (t->waiting.addr)
		lock_text(d, t, HG_LOCK_WAITING_TO_LOCK, &t->waiting, t->waiting_held_by);
}

static void thread_frames(const struct draw *d, const hg_thread *t)
{
	size_t n_folds = 0, fi = 0, li = 0;
	struct frame_fold *folds = render_find_folds(t, &n_folds);
	const hg_frame_lock **locks = sorted_locks(t);
	size_t n_locks = locks ? t->n_locks : 0;
	for (; li < n_locks && locks[li]->frame == HG_LOCK_NO_FRAME; li++)
		lock_text(d, t, locks[li]->kind, &locks[li]->lock, locks[li]->held_by);
	for (size_t i = 0; i < t->n_frames; i++) {
		if (fi < n_folds && folds[fi].first == i) {
			fold_line(d, t, &folds[fi]);
			i += folds[fi++].n - 1;
			continue;
		}
		frame_line(d, t, i);
		for (; li < n_locks && locks[li]->frame <= i; li++)
			lock_text(d, t, locks[li]->kind, &locks[li]->lock, locks[li]->held_by);
	}
	for (; li < n_locks; li++)
		lock_text(d, t, locks[li]->kind, &locks[li]->lock, locks[li]->held_by);
	if (!t->n_locks)
		graph_locks(d, t);
	else if (!locks)
		d->out->failed = 1;
	free(locks);
	free(folds);
	if (t->n_frames == 0)
		hg_buf_printf(d->out, "%s(no frames)\n", d->indent);
}

static void exception_text(hg_buf *b, const hg_exception *e)
{
	hg_buf_puts(b, e->type ? e->type : "?");
	if (e->message)
		hg_buf_printf(b, ": %s", e->message);
}

/* The causes of the exception thrown on thread ti, each with its frames. */
static void causes(const struct draw *d, size_t ti)
{
	const hg_report *rep = d->rep;
	if (rep->n_exceptions < 2 || rep->exceptions[0].thread != (long)ti)
		return;
	for (size_t k = 1; k < rep->n_exceptions; k++) {
		const hg_exception *e = &rep->exceptions[k];
		hg_buf b;
		hg_buf_init(&b);
		hg_buf_puts(&b, "Caused by: ");
		exception_text(&b, e);
		wrapped(d, d->indent + 2, b.data ? b.data : "", b.len, d->st->bold);
		d->out->failed |= b.failed;
		hg_buf_release(&b);
		if (e->thread >= 0 && (size_t)e->thread < rep->threads.n)
			thread_frames(d, &rep->threads.items[e->thread]);
	}
}

static void thread_title(const struct draw *d, const hg_thread *t)
{
	hg_buf b;
	hg_buf_init(&b);
	hg_buf_printf(&b, "\"%s\"", t->name ? t->name : "?");
	if (t->tid >= 0)
		hg_buf_printf(&b, " tid=%ld", t->tid);
	if (t->sys_tid >= 0)
		hg_buf_printf(&b, " sysTid=%ld", t->sys_tid);
	if (t->priority >= 0)
		hg_buf_printf(&b, " prio=%d", t->priority);
	if (t->state)
		hg_buf_printf(&b, " %s", t->state);
	size_t bold_len = b.len;
	bool first = true;
	for (size_t i = 0; i < RENDER_N_FLAGS; i++)
		if (t->flags & (1u << i)) {
			hg_buf_printf(&b, "%s%s", first ? "  [" : ", ", render_flag_names[i]);
			first = false;
		}
	hg_buf_puts(&b, first ? "" : "]");
	if (d->width > 0 && render_cols(b.data, b.len) > (size_t)d->width) {
		wrapped(d, "", b.data, b.len, d->st->bold);
	} else { /* the flags out of bold, as ever */
		hg_buf_printf(d->out, "%s%.*s%s%.*s\n", d->st->bold, (int)bold_len, b.data, d->st->reset,
			      (int)(b.len - bold_len), b.data + bold_len);
	}
	d->out->failed |= b.failed;
	hg_buf_release(&b);
}

static void thread_section(const struct draw *d, size_t ti, bool blank_before)
{
	if (blank_before)
		hg_buf_putc(d->out, '\n');
	const hg_thread *t = &d->rep->threads.items[ti];
	thread_title(d, t);
	thread_frames(d, t);
	causes(d, ti);
}

static struct draw draw_init(hg_buf *out, const hg_report *rep, const hg_render_opts *opts,
			     const struct style *st)
{
	/* Below 60 columns the guides take two columns, not four. */
	bool narrow = opts->width > 0 && opts->width < 60;
	return (struct draw){out, rep, opts, st, opts->width, narrow ? "  " : "    ",
			     narrow ? "  or " : "    or ", narrow ? "     " : "       ",
			     narrow ? "    " : "      "};
}

/* Whether thread i is shown before the others: blamed, or blocking it. */
static bool listed_first(const hg_threads *ts, size_t i)
{
	bool listed = (long)i == ts->blamed;
	for (size_t k = 0; k < ts->n_chain && !listed; k++)
		listed = ts->chain[k] == i;
	return listed;
}

/* "blocked by: lock held by cart-sync-N in CartDao.save" (hg_threads_blocker)
 * and a blank line; nothing for a deadlock, whose own line follows. */
static void blocker_line(const struct draw *d, const hg_threads *ts)
{
	hg_blocker b = {0};
	hg_arena *scratch = ts->blamed >= 0 ? hg_arena_create_sized(1024) : NULL;
	if (ts->blamed >= 0 && (!scratch || hg_threads_blocker(ts, scratch, &b) != 0))
		d->out->failed = 1;
	if (b.kind && strcmp(b.kind, "deadlock") != 0) {
		wrapped(d, "blocked by: ", b.line, strlen(b.line), "");
		hg_buf_putc(d->out, '\n');
	}
	hg_arena_destroy(scratch);
}

void render_threads_tree(hg_buf *out, const hg_report *rep, const hg_render_opts *opts,
			 const struct style *st)
{
	const hg_threads *ts = &rep->threads;
	struct draw d = draw_init(out, rep, opts, st);
	unsigned shown_flags = HG_THREAD_MAIN | HG_THREAD_BLAMED | HG_THREAD_BLOCKS_MAIN |
				HG_THREAD_DEADLOCKED;
	size_t shown = 0;
	hg_buf_putc(out, '\n');
	blocker_line(&d, ts);
	bool marked = false;
	if (rep->n_samples > 0 && render_samples_tree(out, rep, opts, st, &marked) && marked)
		hg_buf_printf(out, "\n%sthe blamed thread, its path marked * above:%s\n", st->dim,
			      st->reset);
	if (ts->blamed >= 0) { /* the blamed thread first */
		thread_section(&d, (size_t)ts->blamed, false);
		shown++;
	}
	for (size_t k = 0; k < ts->n_chain; k++) { /* then what blocks it, in order */
		if ((long)ts->chain[k] == ts->blamed)
			continue;
		thread_section(&d, ts->chain[k], true);
		shown++;
	}
	for (size_t c = 0; c < ts->n_cycles; c++) {
		const hg_lock_cycle *cy = &ts->cycles[c];
		hg_buf b;
		hg_buf_init(&b);
		hg_buf_puts(&b, "deadlock:");
		for (size_t i = 0; i < cy->n; i++)
			hg_buf_printf(&b, " \"%s\" waits for <%s> held by", ts->items[cy->threads[i]].name,
				      cy->locks[i] && cy->locks[i]->addr ? cy->locks[i]->addr : "?");
		hg_buf_printf(&b, " \"%s\"", cy->n ? ts->items[cy->threads[0]].name : "?");
		hg_buf_putc(out, '\n');
		wrapped(&d, "", b.data ? b.data : "", b.len, st->warn);
		out->failed |= b.failed;
		hg_buf_release(&b);
	}
	for (size_t i = 0; i < ts->n; i++) {
		const hg_thread *t = &ts->items[i];
		if (t->flags & HG_THREAD_SAMPLE && (long)i != ts->blamed) {
			shown++; /* drawn in the tree of samples */
			continue;
		}
		if (t->flags & HG_THREAD_CAUSE) {
			shown += rep->n_exceptions > 1 && rep->exceptions[0].thread >= 0;
			if (rep->n_exceptions > 1 && rep->exceptions[0].thread >= 0)
				continue; /* shown under its exception's thread */
		}
		if (listed_first(ts, i))
			continue;
		bool relevant = (t->flags & shown_flags) != 0 || ts->blamed < 0;
		if (!opts->all_threads && !relevant)
			continue;
		thread_section(&d, i, true);
		shown++;
	}
	if (shown < ts->n)
		hg_buf_printf(out, "\n%s(%zu other thread%s; --all-threads shows them)%s\n", st->dim,
			      ts->n - shown, ts->n - shown == 1 ? "" : "s", st->reset);
	render_images_tree(out, rep, opts, st);
}

void render_crash_lines(hg_buf *out, const hg_report *rep, const struct style *st)
{
	hg_render_opts opts = {.width = st->width};
	struct draw d = draw_init(out, rep, &opts, st);
	d.cont = "            "; /* under the values of the header */
	if (rep->reason)
		wrapped(&d, "reason      ", rep->reason, strlen(rep->reason), "");
	for (size_t k = 0; k < rep->n_exceptions; k++) {
		bool root = k > 0 && k + 1 == rep->n_exceptions;
		hg_buf b;
		hg_buf_init(&b);
		exception_text(&b, &rep->exceptions[k]);
		wrapped(&d, k == 0 ? "exception   " : root ? "root cause  " : "caused by   ",
			b.data ? b.data : "", b.len, k == 0 || root ? st->bold : "");
		long ti = rep->exceptions[k].thread;
		if (root && ti >= 0 && (size_t)ti < rep->threads.n && rep->threads.items[ti].n_frames) {
			hg_buf_reset(&b);
			int avail = st->width > 0 ? st->width - 14 : 0;
			render_thread_frame(&b, &rep->threads.items[ti].frames[0],
				   avail > 0 && avail < HG_RENDER_MIN_ROOM ? HG_RENDER_MIN_ROOM : avail, st->ellipsis);
			hg_buf_printf(out, "              %.*s\n", (int)b.len, b.data ? b.data : "");
		}
		out->failed |= b.failed;
		hg_buf_release(&b);
	}
}

static const hg_stat *find_stat(const hg_report *rep, const char *group, const char *name)
{
	for (size_t i = 0; i < rep->n_stats; i++)
		if (rep->stats[i].group && !strcmp(rep->stats[i].group, group) &&
		    !strcmp(rep->stats[i].name, name))
			return &rep->stats[i];
	return NULL;
}

/* Matrix's FPS report: how many frame windows dropped at each level
 * (dropLevel) and how many frames they dropped in all (dropSum). */
static bool fps_table(hg_buf *out, const hg_report *rep, const struct style *st)
{
	if (rep->kind != HG_KIND_FPS)
		return false;
	hg_buf_printf(out, "\n%s%-16s %10s %16s%s\n", st->bold, "drop level", "times",
		      "frames dropped", st->reset);
	for (size_t i = 0; i < rep->n_stats; i++) {
		const hg_stat *s = &rep->stats[i];
		if (!s->group || strcmp(s->group, "dropLevel") != 0)
			continue;
		const hg_stat *sum = find_stat(rep, "dropSum", s->name);
		const char *name = strncmp(s->name, "DROPPED_", 8) == 0 ? s->name + 8 : s->name;
		hg_buf_printf(out, "%-16s %10s %16s\n", name, s->value, sum ? sum->value : "-");
	}
	const hg_stat *fps = find_stat(rep, "fps", "fps");
	if (fps)
		hg_buf_printf(out, "%-16s %10s\n", "fps", fps->value);
	return true;
}

void render_stats_tree(hg_buf *out, const hg_report *rep, const struct style *st)
{
	if (fps_table(out, rep, st))
		return;
	const char *group = NULL;
	size_t shown = 0;
	for (size_t i = 0; i < rep->n_stats; i++) {
		const hg_stat *s = &rep->stats[i];
		if (s->group && !strcmp(s->group, "header"))
			continue; /* in the header (render_header_rest) */
		if (!shown++)
			hg_buf_putc(out, '\n');
		if (!group || !s->group || strcmp(group, s->group) != 0) {
			group = s->group;
			hg_buf_printf(out, "%s%s%s\n", st->bold, group ? group : "", st->reset);
		}
		size_t cols = 2 + 28 + 1 + 12;
		size_t vc = render_cols(s->value, strlen(s->value)), nc = render_cols(s->name, strlen(s->name));
		cols = (nc > 28 ? nc : 28) + (vc > 12 ? vc : 12) + 3;
		if (st->width > 0 && cols > (size_t)st->width) { /* narrow: the value after the name */
			hg_buf first;
			hg_buf_init(&first);
			hg_buf_printf(&first, "  %s  ", s->name);
			hg_render_wrap(out, first.data ? first.data : "", "    ", s->value, strlen(s->value),
				    st->width);
			out->failed |= first.failed;
			hg_buf_release(&first);
		} else {
			hg_buf_printf(out, "  %-28s %12s\n", s->name, s->value);
		}
	}
}

