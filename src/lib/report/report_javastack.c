/* Java stack dumps as WatchDog-style detectors and logcat print them:
 *
 *   - plain frame lists, "at a.b.C.m(C.java:12)" with or without "at ";
 *   - thread headers: "\"main\" prio=5 tid=1 RUNNABLE" (ART and jstack
 *     styles, with "java.lang.Thread.State:" and "- locked <0x..>" lines),
 *     "Thread[main,5,main]", and xCrash's "pid: 1, tid: 1, name: main
 *     >>> pkg <<<" followed by "java stacktrace:";
 *   - exception traces: "FATAL EXCEPTION: main", "Exception in thread
 *     \"main\" ...", "java.lang.X: message", "Caused by:", "Suppressed:",
 *     "... N more";
 *   - ANR-WatchDog's ANRError, whose every "Caused by:
 *     ...ANRError$$$_Thread: main (state = WAITING)" is one thread's stack;
 *   - any of it behind logcat prefixes ("01-25 15:37:59.949 17949 18055 E
 *     AndroidRuntime: ", "E/AndroidRuntime( 123): ").
 *
 * An ordinary "Caused by:" is the stack of another exception on the same
 * thread: it becomes a thread of its own named "<thread>: caused by <what>",
 * so that its frames are not mixed into the thread's.  "... N more" frames
 * are not made up: a warning counts them.  Lines that are none of the above
 * are skipped and counted.
 *
 * Here: the reader loop, the threads and the warnings.  The lines that are
 * no frames are recognised in report_javastack_headers.c; a frame, and
 * Matrix's `threadStack` text, are read in report_javastack_frames.c. */
#include <stddef.h>
#include <string.h>

#include "report_javastack_internal.h"

/* ---- logcat ---- */

static bool is_level(char c)
{
	return c && memchr("VDIWEFA", c, 7) != NULL;
}

/* The length of a logcat prefix at s, or 0: "E/Tag( 123): ", and the
 * threadtime / Android Studio forms "[2018-]01-25 15:37:59.949 17949 18055
 * E Tag: " and "01-25 15:37:59.949 17949-18055/pkg E/Tag: ". */
static size_t logcat_prefix(const char *s, size_t n)
{
	size_t i = 0;
	if (n > 2 && is_level(s[0]) && s[1] == '/') {
		i = 2;
	} else {
		if (n > 5 && is_digit(s[0]) && is_digit(s[1]) && is_digit(s[2]) && is_digit(s[3]) &&
		    s[4] == '-')
			i = 5;
		static const char shape[] = "00-00 00:00:00.";
		for (size_t k = 0; k < sizeof shape - 1; k++)
			if (i + k >= n || (shape[k] == '0' ? !is_digit(s[i + k]) : s[i + k] != shape[k]))
				return 0;
		for (i += sizeof shape - 1; i < n && is_digit(s[i]); i++)
			;
		while (i + 2 < n && !(s[i] == ' ' && is_level(s[i + 1]) && (s[i + 2] == ' ' || s[i + 2] == '/')))
			i++;
		if (i + 2 >= n)
			return 0;
		i += 3;
	}
	for (; i < n; i++)
		if (s[i] == ':' && (i + 1 == n || s[i + 1] == ' '))
			return i + 1 < n ? i + 2 : n;
	return 0;
}

/* ---- the reader ---- */

hg_thread *js_start_thread(struct js *j, const char *name)
{
	hg_thread *t = hg_threads_add(&j->rep->threads, j->rep->arena);
	if (!t)
		return NULL;
	t->name = name && name[0] ? name : UNNAMED;
	j->cur = (long)j->rep->threads.n - 1;
	j->next_name = NULL;
	j->next_is_cause = false;
	return t;
}

int js_add_exception(struct js *j, const char *s, size_t n, bool cause)
{
	hg_report *rep = j->rep;
	/* the crash's exception, then its causes; other threads' are theirs */
	if (cause ? !rep->n_exceptions || j->owner != j->chain_owner : rep->n_exceptions > 0)
		return HANDLED;
	const char *colon = find(s, n, ": ");
	size_t type_len = colon ? (size_t)(colon - s) : n;
	while (type_len && s[type_len - 1] == ':')
		type_len--; /* "X:" with an empty message */
	const char *type = hg_arena_strndup(rep->arena, s, type_len);
	const char *msg = colon && colon + 2 < s + n
			  ? hg_arena_strndup(rep->arena, colon + 2, (size_t)(s + n - colon - 2)) : NULL;
	hg_thread *t = js_current(j);
	long thread = !cause && t && t->n_frames == 0 ? j->cur : -1;
	if (!type || (colon && colon + 2 < s + n && !msg) ||
	    hg_report_add_exception(rep, type, msg, thread) != 0)
		return HG_ENOMEM;
	if (!cause) /* the thread is known now, or when its first frame comes */
		j->chain_owner = thread >= 0 ? t->name : NULL;
	j->exc_pending = thread < 0 ? (long)rep->n_exceptions - 1 : -1;
	return HANDLED;
}

static int add_frame(struct js *j, const struct line *ln, const hg_frame *f)
{
	if (j->cur < 0) {
		bool cause = j->next_is_cause;
		hg_thread *t = js_start_thread(j, j->next_name);
		if (!t)
			return HG_ENOMEM;
		if (!cause)
			j->owner = t->name;
		if (j->exc_pending >= 0) { /* the exception these frames are the trace of */
			j->rep->exceptions[j->exc_pending].thread = j->cur;
			if (cause)
				t->flags |= HG_THREAD_CAUSE;
			else
				j->chain_owner = t->name;
		}
		j->exc_pending = -1;
	}
	if (j->frames >= j->ctx->limits.max_stack_lines) {
		report_fail(j->err, ln->off, "more than %zu frames (see --max-stack-lines)",
			    j->ctx->limits.max_stack_lines);
		return HG_ELIMIT;
	}
	hg_frame *slot = hg_thread_add_frame(js_current(j), j->rep->arena);
	if (!slot)
		return HG_ENOMEM;
	*slot = *f;
	j->frames++;
	return 0;
}

static void skip(struct js *j, const struct line *ln)
{
	if (j->skipped++ == 0) {
		j->first_skipped = ln->no;
		quote_text(j->first_skipped_text, sizeof j->first_skipped_text, ln->s, ln->len);
	}
}

static int one_line(struct js *j, struct line *ln)
{
	if (j->ignoring && !js_is_separator(ln) && !starts(ln->s, ln->len, "pid: "))
		return 0;
	size_t prefix = logcat_prefix(ln->s, ln->len);
	ln->s += prefix;
	ln->len -= prefix;
	while (ln->len > 0 && (ln->s[0] == ' ' || ln->s[0] == '\t'))
		ln->s++, ln->len--;
	if (ln->len == 0)
		return 0;
	hg_frame f;
	bool at = starts(ln->s, ln->len, "at ");
	/* Without "at ", only "a.b.C.m(...)" is a frame: a bare dotted name
	 * is more likely an exception's class. */
	if ((at || (ln->s[ln->len - 1] == ')' && memchr(ln->s, '(', ln->len))) &&
	    js_parse_frame(ln->s, ln->len, j->rep->arena,
			   j->frames >= REPORT_CACHE_AFTER ? &j->names : NULL, &f) == 0)
		return add_frame(j, ln, &f);
	int rc = js_recognise_line(j, ln, at);
	if (rc == 0)
		skip(j, ln);
	return rc < 0 ? rc : 0;
}

/* The thread named "main" is to blame, else the first one (a watchdog
 * prints the main thread first). */
static void blame(hg_threads *ts)
{
	size_t k = 0;
	for (size_t i = 0; i < ts->n; i++)
		if (strcmp(ts->items[i].name, "main") == 0) {
			k = i;
			break;
		}
	if (ts->n > 0) {
		ts->items[k].flags |= HG_THREAD_MAIN | HG_THREAD_BLAMED;
		ts->blamed = (long)k;
	}
}

static int warnings(struct js *j)
{
	hg_report *rep = j->rep;
	int rc = 0;
	if (j->elided_lines == 1)
		rc = hg_strlist_addf(&rep->warnings, rep->arena, "\"... %ld more\" at line %ld (thread "
				     "\"%s\"): %ld frames not shown, the same as the last frames of the "
				     "trace before it", j->first_elided_n, j->first_elided,
				     j->first_elided_thread, j->first_elided_n);
	else if (j->elided_lines > 1)
		rc = hg_strlist_addf(&rep->warnings, rep->arena, "%zu \"... N more\" lines leave out "
				     "%ld frames in all, the same as the last frames of the trace before "
				     "each (the first at line %ld, thread \"%s\"): they are not shown",
				     j->elided_lines, j->elided_frames, j->first_elided,
				     j->first_elided_thread);
	if (rc == 0 && j->skipped)
		rc = hg_strlist_addf(&rep->warnings, rep->arena, "skipped %zu line%s that %s neither a "
				     "Java frame nor a thread or exception header (the first at line %ld: "
				     "\"%s\")", j->skipped, j->skipped == 1 ? "" : "s",
				     j->skipped == 1 ? "is" : "are", j->first_skipped,
				     j->first_skipped_text);
	return rc;
}

int report_from_java_stack(const hg_ctx *ctx, const char *text, size_t len, hg_report *rep,
			   struct read_error *err)
{
	struct js j = {.ctx = ctx, .rep = rep, .err = err, .cur = -1, .exc_pending = -1};
	err->offset = NO_OFFSET;
	err->msg[0] = '\0';
	struct line ln = {0}, first = {0};
	size_t pos = 0;
	int rc = 0;
	strcache_init(&j.names, rep->arena);
	while (rc == 0 && next_line(text, len, &pos, &ln)) {
		if (ln.len > 0 && !first.s)
			first = ln;
		if (ln.len > 0)
			rc = one_line(&j, &ln);
	}
	strcache_release(&j.names);
	if (rc != 0)
		return rc;
	if (j.frames == 0) {
		char q[64];
		quote_text(q, sizeof q, first.s ? first.s : "", first.len);
		return report_fail(err, first.s ? first.off : NO_OFFSET, "no Java frame found (expected "
				   "lines like \"at a.b.C.m(C.java:12)\"); the first line is \"%s\"", q);
	}
	rep->kind = j.anr ? HG_KIND_ANR : j.crash ? HG_KIND_CRASH : HG_KIND_THREAD_DUMP;
	rep->platform = "android";
	blame(&rep->threads);
	rc = warnings(&j);
	return rc != 0 ? rc : hg_threads_analyse(&rep->threads, rep->arena, &rep->warnings);
}
