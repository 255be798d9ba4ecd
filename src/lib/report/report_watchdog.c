/* WatchDog logs: the UI-lag check of the article "线上UI卡顿检测方案"
 * (seed 001), built on the system WatchDog's idea.  A thread posts a
 * runnable that increments a tick to the main thread, sleeps DELAY_TIME
 * (4000 ms) and, when the tick has not moved, logs the main thread's
 * stack with one Log.d call: each frame StackTraceElement.toString()
 * ("a.b.C.m(C.java:12)", no "at"), one per line.  While the block lasts
 * every check logs again, 4 s apart.  logcat writes each line of the
 * message behind its prefix (all lines of one call share it):
 *
 *   D/budaye: android.os.MessageQueue.nativePollOnce(Native Method)      brief / tag
 *   12-02 10:00:04.123  1234  1250 D budaye  : android.os.Looper.loop(Looper.java:193)
 *
 * or pasted without one.  A block of consecutive dumps is one report
 * (kind lag, threshold 4000 ms): each dump a sample (hangar/samples.h)
 * with its logcat time, the samples' heaviest path the blamed main
 * thread.  A dump starts at a frame line whose prefix differs from the
 * line before (another time, pid, tid or tag), after a line that is no
 * frame, or after the outermost frame (ZygoteInit.main).  Frames of
 * another tag than the first dump's, other log lines, a frame cut short
 * (Log.d keeps about 4 KB of a message; a file may end mid-line) are
 * skipped with a warning naming the first one's line.  The lines of
 * logcat are taken apart by report_logcat_lines.c. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hangar/samples.h"
#include "report_lines.h"
#include "report_logcat_internal.h"
#include "report_time.h"
#include "report_watchdog.h"
#include "core/core.h"

#define DELAY_MS 4000                 /* the article's DELAY_TIME */
#define SPLIT_GAP_MS (DELAY_MS * 3 / 2) /* dumps further apart: another block */

/* ---- lines ---- */

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' ||
	       c == '$' || c == '.' || c == '<' || c == '>' || c == '-';
}

/* The length of "a.b.C.m" at s[0..n): Java name characters with a dot
 * inside, starting with a letter; 0 when there is none. */
static size_t method_name(const char *s, size_t n)
{
	size_t i = 0;
	const char *dot = NULL;
	if (n == 0 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_' ||
			s[0] == '$'))
		return 0;
	for (; i < n && name_char(s[i]); i++)
		if (s[i] == '.')
			dot = s + i;
	return dot && dot + 1 < s + i ? i : 0;
}

/* StackTraceElement.toString() without "at": "a.b.C.m(C.java:12)",
 * "(Native Method)", "(Unknown Source)", "(Unknown Source:3)",
 * "(SourceFile:8)", "(:12)". */
static bool bare_frame(struct lc_str m)
{
	size_t i = method_name(m.s, m.len);
	if (i == 0 || i + 2 > m.len || m.s[i] != '(' || m.s[m.len - 1] != ')')
		return false;
	const char *in = m.s + i + 1;
	size_t k = m.len - i - 2;
	if (k == 0)
		return false;
	if ((k == 13 && memcmp(in, "Native Method", 13) == 0) ||
	    (k >= 14 && memcmp(in, "Unknown Source", 14) == 0 && (k == 14 || in[14] == ':')))
		return true;
	for (size_t j = 0; j < k; j++)
		if (in[j] == ' ' || in[j] == '(' || in[j] == ')' || in[j] == '\t')
			return false;
	return true;
}

static bool at_frame(struct lc_str m)
{
	return m.len > 3 && memcmp(m.s, "at ", 3) == 0 &&
	       bare_frame((struct lc_str){m.s + 3, m.len - 3});
}

/* The outermost frame of a main thread: nothing is logged after it. */
static bool outermost(struct lc_str m)
{
	return lc_starts(m, "com.android.internal.os.ZygoteInit.main(") ||
	       lc_starts(m, "dalvik.system.NativeStart.main(");
}

/* A frame the log cut short: "a.b.C.m(C.ja", or a bare name at the input's
 * end. */
static bool cut_frame(struct lc_str m, bool at_end)
{
	size_t i = method_name(m.s, m.len);
	if (i == 0)
		return false;
	if (i == m.len)
		return at_end;
	return m.s[i] == '(' && !memchr(m.s + i, ')', m.len - i);
}

static bool same_str(struct lc_str a, struct lc_str b)
{
	return a.len == b.len && (a.len == 0 || memcmp(a.s, b.s, a.len) == 0);
}

static bool same_prefix(const struct lc_line *a, const struct lc_line *b)
{
	return a->prefixed == b->prefixed && a->pid == b->pid && a->tid == b->tid &&
	       a->level == b->level && same_str(a->time, b->time) && same_str(a->tag, b->tag);
}

/* ---- the lines of a log, dump by dump ---- */

enum kind { K_BLANK, K_FRAME, K_OTHER };

struct scan {
	const char *text;
	size_t len, pos;
	struct line ln;
	struct lc_line lc;
	struct lc_str msg;      /* the message, trimmed */
	enum kind kind;
	bool starts;            /* a frame that starts a dump */
	bool was_frame, was_outer;
	struct lc_line dump;    /* the first line of the dump at hand */
	bool has_tag;           /* the first dump's prefix says the tag ... */
	struct lc_str tag;      /* ... the WatchDog logs under */
};

static bool scan_next(struct scan *sc)
{
	if (!next_line(sc->text, sc->len, &sc->pos, &sc->ln))
		return false;
	lc_parse(sc->ln.s, sc->ln.len, &sc->lc);
	sc->msg = lc_trim(sc->lc.msg);
	bool frame = bare_frame(sc->msg);
	if (frame && sc->has_tag && (!sc->lc.prefixed || !same_str(sc->lc.tag, sc->tag)))
		frame = false; /* another writer's */
	sc->kind = sc->msg.len == 0 ? K_BLANK : frame ? K_FRAME : K_OTHER;
	sc->starts = frame && (!sc->was_frame || sc->was_outer || !same_prefix(&sc->dump, &sc->lc));
	if (sc->starts)
		sc->dump = sc->lc;
	if (frame && !sc->has_tag && sc->lc.prefixed) {
		sc->has_tag = true;
		sc->tag = sc->lc.tag;
	}
	sc->was_frame = frame;
	sc->was_outer = frame && outermost(sc->msg);
	return true;
}

bool report_detect_watchdog(const char *head, size_t len, const char *all, size_t all_len)
{
	(void)all;
	(void)all_len;
	struct scan sc = {.text = head, .len = len};
	size_t run = 0, longest = 0, bare = 0, at = 0;
	while (scan_next(&sc)) {
		run = sc.kind == K_FRAME ? run + 1 : 0;
		longest = run > longest ? run : longest;
		bare += sc.kind == K_FRAME;
		at += sc.kind == K_OTHER && at_frame(sc.msg);
	}
	return longest >= 3 && bare > at;
}

/* A logcat time as a number that grows with it ("MM-DD" or "YYYY-MM-DD",
 * then "HH:MM:SS.mmm"), for gaps between dumps; -1 when it is none. */
static int64_t rough_ms(struct lc_str t)
{
	int64_t f[7] = {0};
	size_t k = t.len >= 10 && t.s[4] == '-' ? 0 : 1, i = 0;
	for (; k < 7 && i < t.len; k++) {
		if (!is_digit(t.s[i]))
			return -1;
		for (; i < t.len && is_digit(t.s[i]) && f[k] < 100000; i++)
			f[k] = f[k] * 10 + (t.s[i] - '0');
		i += i < t.len; /* '-', ' ', ':', '.' */
	}
	return k < 6 ? -1
		     : ((((f[0] * 12 + f[1]) * 31 + f[2]) * 24 + f[3]) * 60 + f[4]) * 60000 +
			       f[5] * 1000 + f[6];
}

size_t report_split_watchdog(const char *text, size_t len, size_t from)
{
	struct scan sc = {.text = text + from, .len = len - from};
	bool seen = false;
	long pid = -1;
	int64_t last = -1;
	while (scan_next(&sc)) {
		if (!sc.starts)
			continue;
		int64_t t = sc.lc.time.len ? rough_ms(sc.lc.time) : -1;
		if (seen && ((pid >= 0 && sc.lc.pid >= 0 && pid != sc.lc.pid) ||
			     (last >= 0 && t >= 0 && (t - last > SPLIT_GAP_MS || t < last))))
			return from + sc.ln.off;
		seen = true;
		pid = sc.lc.pid;
		last = t;
	}
	return len;
}

/* ---- the reader ---- */

struct wd_stack {
	uint64_t hash;  /* of its frame lines */
	size_t n;       /* frames; 0: an empty slot */
	long thread;
};

struct wd {
	const hg_ctx *ctx;
	hg_report *rep;
	struct read_error *err;
	struct strcache names;
	struct lc_str *cur;       /* the frame lines of the dump at hand */
	size_t n_cur, cap_cur;
	const char *cur_time;     /* its logcat time (arena), or NULL */
	struct wd_stack *stacks;  /* distinct dumps, open addressing */
	size_t n_stacks, cap_stacks;
	size_t dumps, dropped, kept_frames;
	long pid, tid;            /* the first dump's */
	struct lc_str tag;
	size_t skipped, cut;
	long first_skipped, first_cut;
	char skipped_text[64], cut_text[64];
};

static uint64_t hash_lines(const struct lc_str *v, size_t n)
{
	uint64_t h = 1469598103934665603u;
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < v[i].len; k++)
			h = (h ^ (unsigned char)v[i].s[k]) * 1099511628211u;
		h = (h ^ '\n') * 1099511628211u;
	}
	return h;
}

static bool same_dump(const struct wd *w, const struct wd_stack *st)
{
	const hg_thread *t = &w->rep->threads.items[st->thread];
	if (st->n != w->n_cur)
		return false;
	for (size_t i = 0; i < w->n_cur; i++)
		if (strlen(t->frames[i].text) != w->cur[i].len ||
		    memcmp(t->frames[i].text, w->cur[i].s, w->cur[i].len) != 0)
			return false;
	return true;
}

static int grow_stacks(struct wd *w)
{
	if (2 * (w->n_stacks + 1) <= w->cap_stacks)
		return 0;
	size_t cap = w->cap_stacks ? 2 * w->cap_stacks : 64;
	struct wd_stack *s = calloc(cap, sizeof *s);
	if (!s)
		return HG_ENOMEM;
	for (size_t i = 0; i < w->cap_stacks; i++) {
		if (!w->stacks[i].n)
			continue;
		size_t k = (size_t)w->stacks[i].hash & (cap - 1);
		while (s[k].n)
			k = (k + 1) & (cap - 1);
		s[k] = w->stacks[i];
	}
	free(w->stacks);
	w->stacks = s;
	w->cap_stacks = cap;
	return 0;
}

/* The thread of the dump at hand: one with the same frames, else a new
 * one (-1: past the frame budget).  0 or HG_ENOMEM. */
static int dump_thread(struct wd *w, long *out)
{
	hg_report *rep = w->rep;
	if (grow_stacks(w) != 0)
		return HG_ENOMEM;
	uint64_t h = hash_lines(w->cur, w->n_cur);
	size_t k = (size_t)h & (w->cap_stacks - 1);
	for (; w->stacks[k].n; k = (k + 1) & (w->cap_stacks - 1))
		if (w->stacks[k].hash == h && same_dump(w, &w->stacks[k])) {
			*out = w->stacks[k].thread;
			return 0;
		}
	*out = -1;
	if (w->n_cur > w->ctx->limits.max_stack_lines - w->kept_frames)
		return 0;
	hg_thread *t = hg_threads_add(&rep->threads, rep->arena);
	if (!t || !(t->name = hg_arena_printf(rep->arena, "main sample %zu", w->dumps)) ||
	    hg_thread_reserve_frames(t, rep->arena, w->n_cur) != 0)
		return HG_ENOMEM;
	for (size_t i = 0; i < w->n_cur; i++) {
		hg_frame *f = &t->frames[t->n_frames++];
		if (frame_parse_java_cached(w->cur[i].s, w->cur[i].len, rep->arena, &w->names, f) != 0)
			return HG_ENOMEM; /* each was seen to be a frame */
	}
	w->kept_frames += w->n_cur;
	*out = (long)rep->threads.n - 1;
	w->stacks[k] = (struct wd_stack){h, w->n_cur, *out};
	w->n_stacks++;
	return 0;
}

static int end_dump(struct wd *w)
{
	int rc = 0;
	if (w->n_cur > 0) {
		long thread;
		w->dumps++;
		rc = dump_thread(w, &thread);
		if (rc == 0 && thread < 0)
			w->dropped++;
		else if (rc == 0)
			rc = hg_report_add_sample(w->rep, thread, 1, w->cur_time, -1);
	}
	w->n_cur = 0;
	w->cur_time = NULL;
	return rc;
}

static int start_dump(struct wd *w, const struct scan *sc)
{
	int rc = end_dump(w);
	if (rc != 0)
		return rc;
	if (w->dumps == 0) {
		w->pid = sc->lc.pid;
		w->tid = sc->lc.tid;
		w->tag = sc->lc.tag;
	}
	if (sc->lc.time.len &&
	    !(w->cur_time = hg_arena_strndup(w->rep->arena, sc->lc.time.s, sc->lc.time.len)))
		return HG_ENOMEM;
	return 0;
}

static int add_line(struct wd *w, const struct scan *sc)
{
	if (w->n_cur >= w->ctx->limits.max_stack_lines) {
		report_fail(w->err, sc->ln.off, "a dump of more than %zu frames (see --max-stack-lines)",
			    w->ctx->limits.max_stack_lines);
		return HG_ELIMIT;
	}
	if (w->n_cur == w->cap_cur) {
		size_t cap = w->cap_cur ? 2 * w->cap_cur : 64;
		struct lc_str *cur = realloc(w->cur, cap * sizeof *cur);
		if (!cur)
			return HG_ENOMEM;
		w->cur = cur;
		w->cap_cur = cap;
	}
	w->cur[w->n_cur++] = sc->msg;
	return 0;
}

/* A line that is no frame of a dump: counted, the first one quoted. */
static void other_line(struct wd *w, const struct scan *sc, bool at_end)
{
	long no = w->rep->line + sc->ln.no - 1;
	if (cut_frame(sc->msg, at_end)) {
		if (w->cut++ == 0) {
			w->first_cut = no;
			quote_text(w->cut_text, sizeof w->cut_text, sc->msg.s, sc->msg.len);
		}
	} else if (w->skipped++ == 0) {
		w->first_skipped = no;
		quote_text(w->skipped_text, sizeof w->skipped_text, sc->ln.s, sc->ln.len);
	}
}

/* ---- after the last line ---- */

/* The time logcat writes in ms since 1970 (a year-less one placed at or
 * before ref, as BlockCanary's are), or -1. */
static int64_t log_ms(const char *t, int64_t ref, char out[REPORT_TIME_SIZE])
{
	const char *why = "";
	int64_t ms;
	size_t n = strlen(t);
	int rc = n >= 10 && t[4] == '-' ? report_time_parse(t, n, out, &why)
					: report_time_yearless(t, n, ref, out, &why);
	return rc == 0 && report_time_unix_ms(out, &ms) && ms >= 0 ? ms : -1;
}

/* The report's time (the first dump's) and each sample's in ms. */
static int times(struct wd *w)
{
	hg_report *rep = w->rep;
	int64_t ref = w->ctx->file_time_ms;
	if (ref == 0) {
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		ref = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
	}
	char out[REPORT_TIME_SIZE];
	size_t bad = 0;
	const char *first_bad = NULL;
	for (size_t i = 0; i < rep->n_samples; i++) {
		hg_sample *s = &rep->samples[i];
		if (s->time && (s->at = log_ms(s->time, ref, out)) < 0 && bad++ == 0)
			first_bad = s->time;
		if (s->time && i == 0) {
			rep->time_written = s->time;
			if (s->at >= 0 && !(rep->time = hg_arena_strdup(rep->arena, out)))
				return HG_ENOMEM;
		}
	}
	if (bad == 0)
		return 0;
	return hg_strlist_addf(&rep->warnings, rep->arena, "%zu dump time%s cannot be read (the "
			       "first: \"%.40s\")", bad, bad == 1 ? "" : "s", first_bad);
}

/* How long the block lasted at least: the first dump came after a 4 s
 * check the tick missed, each next one after another. */
static int block_figures(struct wd *w)
{
	hg_report *rep = w->rep;
	int64_t span = -1;
	for (size_t i = 0; i < rep->n_samples; i++)
		if (rep->samples[i].at >= 0 && rep->samples[0].at >= 0)
			span = rep->samples[i].at - rep->samples[0].at;
	rep->cost = span > 0 ? DELAY_MS + span : DELAY_MS * (int64_t)(w->dumps ? w->dumps : 1);
	rep->threshold = DELAY_MS;
	int64_t gap = hg_report_sample_gap(rep);
	rep->sample_interval = gap > 0 ? gap : DELAY_MS;
	char v[160];
	snprintf(v, sizeof v, "%zu", w->dumps);
	int rc = hg_report_add_stat(rep, "watchdog", "dumps", v);
	if (rc == 0 && w->tag.len) {
		snprintf(v, sizeof v, "%.*s", (int)(w->tag.len < 100 ? w->tag.len : 100), w->tag.s);
		rc = hg_report_add_stat(rep, "watchdog", "tag", v);
	}
	if (rc == 0 && w->pid >= 0) { /* where ANR traces and logcat ANRs keep theirs */
		snprintf(v, sizeof v, "%ld", w->pid);
		rc = hg_report_add_meta(rep, "pid", v, NULL);
	}
	if (rc == 0 && w->tid >= 0) { /* the WatchDogThread that logged */
		snprintf(v, sizeof v, "%ld", w->tid);
		rc = hg_report_add_stat(rep, "watchdog", "writer-tid", v);
	}
	if (rc == 0) {
		snprintf(v, sizeof v, "at least %" PRId64 " ms: %zu dump%s, one per missed %d ms check",
			 rep->cost, w->dumps, w->dumps == 1 ? "" : "s", DELAY_MS);
		rc = hg_report_add_stat(rep, "header", "blocked", v);
	}
	return rc;
}

static int line_warnings(struct wd *w)
{
	hg_report *rep = w->rep;
	int rc = 0;
	if (w->cut)
		rc = hg_strlist_addf(&rep->warnings, rep->arena, "line %ld: a frame cut short "
				     "(\"%s\")%s: the log lost the rest of that dump", w->first_cut,
				     w->cut_text, w->cut > 1 ? hg_arena_printf(rep->arena, ", and %zu "
				     "more", w->cut - 1) : "");
	if (rc == 0 && w->skipped)
		rc = hg_strlist_addf(&rep->warnings, rep->arena, "skipped %zu line%s that %s no frame "
				     "of the WatchDog's dumps (the first at line %ld: \"%s\")", w->skipped,
				     w->skipped == 1 ? "" : "s", w->skipped == 1 ? "is" : "are",
				     w->first_skipped, w->skipped_text);
	if (rc == 0 && w->dropped)
		rc = hg_strlist_addf(&rep->warnings, rep->arena, "%zu of the %zu dumps are counted but "
				     "not kept: their distinct stacks pass %zu frames in all (see "
				     "--max-stack-lines)", w->dropped, w->dumps,
				     w->ctx->limits.max_stack_lines);
	return rc;
}

static int finish(struct wd *w, const char *text, size_t len)
{
	hg_report *rep = w->rep;
	if (w->dumps == 0) {
		struct line ln = {0};
		size_t pos = 0;
		while (next_line(text, len, &pos, &ln) && ln.len == 0)
			;
		char q[64];
		quote_text(q, sizeof q, ln.s ? ln.s : "", ln.len);
		return report_fail(w->err, ln.s ? ln.off : NO_OFFSET, "not a WatchDog log: no line is a "
				   "Java frame like \"a.b.C.m(C.java:12)\"; the first line is \"%s\"", q);
	}
	rep->kind = HG_KIND_LAG;
	rep->platform = "android";
	int rc = times(w);
	if (rc == 0)
		rc = block_figures(w);
	if (rc == 0)
		rc = line_warnings(w);
	if (rc == 0)
		rc = hg_report_blame_heaviest(rep, "main", HG_THREAD_MAIN);
	return rc != 0 ? rc : hg_threads_analyse(&rep->threads, rep->arena, &rep->warnings);
}

int report_from_watchdog(const hg_ctx *ctx, const char *text, size_t len, hg_report *rep,
			 struct read_error *err)
{
	struct wd w = {.ctx = ctx, .rep = rep, .err = err, .pid = -1, .tid = -1};
	struct scan sc = {.text = text, .len = len};
	err->offset = NO_OFFSET;
	err->msg[0] = '\0';
	strcache_init(&w.names, rep->arena);
	int rc = 0;
	while (rc == 0 && scan_next(&sc)) {
		if (sc.kind == K_FRAME) {
			rc = sc.starts ? start_dump(&w, &sc) : 0;
			if (rc == 0)
				rc = add_line(&w, &sc);
			continue;
		}
		if (sc.kind == K_OTHER)
			other_line(&w, &sc, sc.pos >= len && (len == 0 || text[len - 1] != '\n'));
		rc = end_dump(&w);
	}
	if (rc == 0)
		rc = end_dump(&w);
	if (rc == 0)
		rc = finish(&w, text, len);
	strcache_release(&w.names);
	free(w.cur);
	free(w.stacks);
	return rc;
}
