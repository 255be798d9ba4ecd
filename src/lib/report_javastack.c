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
 * are skipped and counted.  Also here: Matrix's `threadStack` text. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

#define UNNAMED "(unnamed)"

/* ---- lines and words ---- */

struct line {
	const char *s; /* without leading and trailing blanks or CR */
	size_t len;
	size_t off;    /* of the line's first byte in the text */
	long no;       /* 1-based */
};

static bool next_line(const char *text, size_t len, size_t *pos, struct line *ln)
{
	if (*pos >= len)
		return false;
	const char *p = text + *pos, *end = text + len;
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	const char *e = nl ? nl : end;
	ln->off = *pos;
	ln->no++;
	*pos = nl ? (size_t)(nl - text) + 1 : len;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	ln->s = p;
	ln->len = (size_t)(e - p);
	return true;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && memcmp(s, prefix, k) == 0;
}

static bool ends(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

static const char *find(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++)
		if (s[i] == needle[0] && memcmp(s + i, needle, k) == 0)
			return s + i;
	return NULL;
}

/* A decimal number at s[0..n) (leading digits only); -1 when none. */
static long number(const char *s, size_t n)
{
	long v = 0;
	size_t i = 0;
	for (; i < n && is_digit(s[i]) && v < 100000000; i++)
		v = v * 10 + (s[i] - '0');
	return i > 0 ? v : -1;
}

static void quote(char *out, size_t size, const char *s, size_t n)
{
	size_t k = 0, max = size > 4 ? size - 4 : 0;
	for (size_t i = 0; i < n && k < max; i++)
		out[k++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	if (k < n && size >= 4)
		memcpy(out + k, "...", 3), k += 3;
	out[k < size ? k : size - 1] = '\0';
}

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

/* s[0..n) when it is all digits (at most 9), else -1. */
static long whole_number(const char *s, size_t n)
{
	if (n == 0 || n > 9)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!is_digit(s[i]))
			return -1;
	return number(s, n);
}

/* s[0..n) as hexadecimal digits (at most 7), else -1. */
static long hex_number(const char *s, size_t n)
{
	long v = 0;
	if (n == 0 || n > 7)
		return -1;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		int d = is_digit(c) ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* ---- frames ---- */

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' ||
	       c == '$' || c == '.' || c == '<' || c == '>' || c == '-' || (unsigned char)c >= 0x80;
}

/* Matrix's Utils.getStack() form: "at a.b.C:method(12)"; a line number of
 * -2 is Java's mark of a native method. */
static int parse_matrix_frame(const char *s, size_t n, hg_arena *arena, hg_frame *out)
{
	const char *p = s, *end = s + n;
	if (n > 3 && memcmp(p, "at ", 3) == 0)
		p += 3;
	const char *colon = memchr(p, ':', (size_t)(end - p)), *open = memchr(p, '(', (size_t)(end - p));
	if (!colon || !open || colon > open || colon == p || colon + 1 == open || end[-1] != ')')
		return HG_EPARSE;
	for (const char *q = p; q < open; q++)
		if (q != colon && !name_char(*q))
			return HG_EPARSE;
	const char *d = open + 1;
	bool negative = d < end - 1 && *d == '-';
	long line = whole_number(d + negative, (size_t)(end - 1 - d - negative));
	if (line < 0)
		return HG_EPARSE;
	memset(out, 0, sizeof *out);
	out->kind = HG_FRAME_JAVA;
	out->repeat = 1;
	out->line = negative ? -1 : line;
	out->file = negative && line == 2 ? "Native Method" : NULL;
	out->cls = hg_arena_strndup(arena, p, (size_t)(colon - p));
	out->method = hg_arena_strndup(arena, colon + 1, (size_t)(open - colon - 1));
	out->text = hg_arena_strndup(arena, s, n);
	return out->cls && out->method && out->text ? 0 : HG_ENOMEM;
}

/* A frame in either form; s[0..n) is trimmed. */
static int parse_frame(const char *s, size_t n, hg_arena *arena, hg_frame *out)
{
	int rc = hg_frame_parse_java(s, n, arena, out);
	return rc == HG_EPARSE ? parse_matrix_frame(s, n, arena, out) : rc;
}

/* ---- the reader ---- */

#define HANDLED 1 /* a line handler took the line */

struct js {
	const hg_ctx *ctx;
	hg_report *rep;
	struct read_error *err;
	long cur;                  /* the thread receiving frames; -1: the next frame starts one */
	const char *next_name;     /* what the thread the next frame starts is called */
	bool next_is_cause;        /* ... and it is an exception's cause, not a thread */
	const char *owner;         /* the thread whose exception chain is being read */
	bool xcrash, ignoring;     /* an xCrash tombstone; in one of its non-Java sections */
	bool anr;
	size_t frames;
	size_t skipped;
	long first_skipped;
	char first_skipped_text[64];
	size_t elided_lines;
	long elided_frames, first_elided, first_elided_n;
	const char *first_elided_thread;
};

static int fail(struct js *j, const struct line *ln, int rc, const char *fmt, ...) HG_PRINTF(4, 5);

static int fail(struct js *j, const struct line *ln, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(j->err->msg, sizeof j->err->msg, fmt, ap);
	va_end(ap);
	j->err->offset = ln ? ln->off : NO_OFFSET;
	return rc;
}

static hg_thread *current(struct js *j)
{
	return j->cur >= 0 ? &j->rep->threads.items[j->cur] : NULL;
}

/* A thread that a header names; the frames that follow are its. */
static hg_thread *start_thread(struct js *j, const char *name)
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

static int add_frame(struct js *j, const struct line *ln, const hg_frame *f)
{
	if (j->cur < 0) {
		bool cause = j->next_is_cause;
		hg_thread *t = start_thread(j, j->next_name);
		if (!t)
			return HG_ENOMEM;
		if (!cause)
			j->owner = t->name;
	}
	if (j->frames >= j->ctx->limits.max_stack_lines)
		return fail(j, ln, HG_ELIMIT, "more than %zu frames (see --max-stack-lines)",
			    j->ctx->limits.max_stack_lines);
	hg_frame *slot = hg_thread_add_frame(current(j), j->rep->arena);
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
		quote(j->first_skipped_text, sizeof j->first_skipped_text, ln->s, ln->len);
	}
}

/* ANR-WatchDog's "ANRError: Application Not Responding for at least 5000 ms." */
static void note_anr(struct js *j, const char *s, size_t n)
{
	if (!find(s, n, "ANRError") && !find(s, n, "Application Not Responding"))
		return;
	j->anr = true;
	const char *at = find(s, n, "for at least ");
	if (at && j->rep->cost == 0) {
		long ms = number(at + 13, n - (size_t)(at + 13 - s));
		j->rep->cost = ms > 0 ? ms : 0;
	}
}

/* "Caused by: X: msg" (or "Suppressed: ..."): with ANR-WatchDog, X is
 * ANRError$$$_Thread and msg names a thread, "main (state = WAITING)";
 * otherwise the frames that follow are another exception's. */
static int cause(struct js *j, const char *s, size_t n, const char *how)
{
	hg_arena *arena = j->rep->arena;
	note_anr(j, s, n);
	const char *colon = find(s, n, ": ");
	if (!colon && n > 0 && s[n - 1] == ':') /* an empty message, trimmed */
		colon = s + n - 1;
	size_t cls_len = colon ? (size_t)(colon - s) : n;
	const char *msg = colon ? (colon + 2 < s + n ? colon + 2 : s + n) : s + n;
	size_t msg_len = (size_t)(s + n - msg);
	const char *st = find(msg, msg_len, " (state = ");
	if (st && !ends(msg, msg_len, ")"))
		st = NULL;
	j->cur = -1;
	if (ends(s, cls_len, "$_Thread") || st) {
		size_t name_len = st ? (size_t)(st - msg) : msg_len;
		const char *name = hg_arena_strndup(arena, msg, name_len);
		hg_thread *t = name ? start_thread(j, name) : NULL;
		if (!t)
			return HG_ENOMEM;
		if (st && !(t->state = hg_arena_strndup(arena, st + 10, (size_t)(msg + msg_len - st) - 11)))
			return HG_ENOMEM;
		j->owner = t->name;
		return HANDLED;
	}
	j->next_name = hg_arena_printf(arena, "%s: %s %.*s%s", j->owner ? j->owner : UNNAMED, how,
				       (int)(n > 160 ? 160 : n), s, n > 160 ? "..." : "");
	j->next_is_cause = true;
	return j->next_name ? HANDLED : HG_ENOMEM;
}

/* "... 11 more" (Throwable.printStackTrace) or "... 11 common frames omitted". */
static int elided(struct js *j, const struct line *ln)
{
	if (!starts(ln->s, ln->len, "... "))
		return 0;
	long n = number(ln->s + 4, ln->len - 4);
	if (n < 0 || (!ends(ln->s, ln->len, " more") && !ends(ln->s, ln->len, " omitted")))
		return 0;
	const char *who = current(j) ? current(j)->name : j->next_name ? j->next_name : UNNAMED;
	if (j->elided_lines++ == 0) {
		j->first_elided = ln->no;
		j->first_elided_n = n;
		j->first_elided_thread = who;
	}
	j->elided_frames += n;
	return HANDLED;
}

/* The words after a quoted thread name: ART's "prio=5 tid=1 Sleeping",
 * jstack's "#1 daemon prio=5 os_prio=0 tid=0x... nid=0x1a2b waiting on
 * condition [0x...]". */
static int thread_words(struct js *j, hg_thread *t, const char *s, size_t n)
{
	char state[96];
	size_t k = 0;
	for (size_t i = 0; i < n;) {
		while (i < n && s[i] == ' ')
			i++;
		size_t w = i;
		while (i < n && s[i] != ' ')
			i++;
		const char *word = s + w;
		size_t len = i - w;
		if (len == 0)
			break;
		if (len == 6 && memcmp(word, "daemon", 6) == 0)
			t->daemon = true;
		else if (starts(word, len, "prio="))
			t->priority = (int)whole_number(word + 5, len - 5);
		else if (starts(word, len, "tid=") && whole_number(word + 4, len - 4) >= 0)
			t->tid = whole_number(word + 4, len - 4);
		else if (word[0] == '#' && t->tid < 0)
			t->tid = whole_number(word + 1, len - 1);
		else if (starts(word, len, "sysTid="))
			t->sys_tid = whole_number(word + 7, len - 7);
		else if (starts(word, len, "nid=0x"))
			t->sys_tid = hex_number(word + 6, len - 6);
		else if (!memchr(word, '=', len) && word[0] != '[' && k + len + 1 < sizeof state) {
			if (k)
				state[k++] = ' ';
			memcpy(state + k, word, len);
			k += len;
		}
	}
	if (k && !(t->state = hg_arena_strndup(j->rep->arena, state, k)))
		return HG_ENOMEM;
	return HANDLED;
}

/* "\"main\" prio=5 tid=1 RUNNABLE" and the like. */
static int quoted_header(struct js *j, const struct line *ln)
{
	const char *s = ln->s + 1, *end = ln->s + ln->len, *q = NULL;
	for (const char *p = s; p < end && !q; p++)
		if (*p == '"' && (p + 1 == end || p[1] == ' '))
			q = p;
	if (!q)
		return 0;
	const char *name = hg_arena_strndup(j->rep->arena, s, (size_t)(q - s));
	hg_thread *t = name ? start_thread(j, name) : NULL;
	if (!t)
		return HG_ENOMEM;
	j->owner = t->name;
	return thread_words(j, t, q + 1, (size_t)(end - q - 1));
}

static const char *last_comma(const char *s, size_t n)
{
	while (n > 0 && s[n - 1] != ',')
		n--;
	return n > 0 ? s + n - 1 : NULL;
}

/* Thread.toString(): "Thread[main,5,main]", "Thread[#1,main,5,main]". */
static int bracket_header(struct js *j, const struct line *ln)
{
	const char *s = ln->s + 7;
	size_t n = ln->len - 7;
	if (n > 0 && s[n - 1] == ':')
		n--;
	if (n == 0 || s[n - 1] != ']')
		return 0;
	const char *c2 = last_comma(s, n - 1);
	const char *c1 = c2 ? last_comma(s, (size_t)(c2 - s)) : NULL;
	long prio = c1 ? whole_number(c1 + 1, (size_t)(c2 - c1 - 1)) : -1;
	if (prio < 0)
		return 0;
	long tid = -1;
	const char *name = s, *comma = s[0] == '#' ? memchr(s, ',', (size_t)(c1 - s)) : NULL;
	if (comma && comma < c1 && (tid = whole_number(s + 1, (size_t)(comma - s - 1))) >= 0)
		name = comma + 1;
	name = hg_arena_strndup(j->rep->arena, name, (size_t)(c1 - name));
	hg_thread *t = name ? start_thread(j, name) : NULL;
	if (!t)
		return HG_ENOMEM;
	t->priority = (int)prio;
	t->tid = tid;
	j->owner = t->name;
	return HANDLED;
}

/* xCrash: "pid: 21356, tid: 21356, name: main  >>> xcrash.sample <<<". */
static int xcrash_header(struct js *j, const struct line *ln)
{
	const char *s = ln->s, *end = s + ln->len;
	const char *tid = find(s, ln->len, ", tid: "), *name = find(s, ln->len, ", name: ");
	if (!tid || !name || name < tid)
		return 0;
	const char *proc = find(name + 8, (size_t)(end - name - 8), "  >>> ");
	const char *name_end = proc ? proc : end;
	const char *title = hg_arena_strndup(j->rep->arena, name + 8, (size_t)(name_end - name - 8));
	hg_thread *t = title ? start_thread(j, title) : NULL;
	if (!t)
		return HG_ENOMEM;
	t->sys_tid = whole_number(tid + 7, (size_t)(name - tid - 7));
	j->owner = t->name;
	j->ignoring = false;
	if (proc && end - proc >= 10 && ends(s, ln->len, " <<<") && !j->rep->process &&
	    !(j->rep->process = hg_arena_strndup(j->rep->arena, proc + 6, (size_t)(end - proc - 10))))
		return HG_ENOMEM;
	return HANDLED;
}

/* "- locked <0x0d3a2f0a> (a java.lang.Object)", "- waiting to lock <0x..>
 * (a X) held by thread 5" (or "held by tid=5"); other "- " lines (waiting
 * on, sleeping on, parking to wait for) are no lock edges. */
static int lock_line(struct js *j, const struct line *ln)
{
	hg_thread *t = current(j);
	const char *s = ln->s + 2, *end = ln->s + ln->len;
	size_t n = ln->len - 2;
	bool held = starts(s, n, "locked <"), waiting = starts(s, n, "waiting to lock <");
	const char *lt = memchr(s, '<', n);
	const char *gt = lt ? memchr(lt, '>', (size_t)(end - lt)) : NULL;
	if (!t || (!held && !waiting) || !gt)
		return HANDLED;
	hg_arena *arena = j->rep->arena;
	const char *addr = hg_arena_strndup(arena, lt + 1, (size_t)(gt - lt - 1)), *cls = NULL;
	const char *a = find(gt, (size_t)(end - gt), "(a ");
	const char *close = a ? memchr(a, ')', (size_t)(end - a)) : NULL;
	if (!addr || (close && !(cls = hg_arena_strndup(arena, a + 3, (size_t)(close - a - 3)))))
		return HG_ENOMEM;
	if (held)
		return hg_thread_add_held(t, arena, addr, cls) == 0 ? HANDLED : HG_ENOMEM;
	t->waiting = (hg_lock){addr, cls};
	const char *by = find(gt, (size_t)(end - gt), "held by thread ");
	const char *tid = find(gt, (size_t)(end - gt), "held by tid=");
	if (by)
		t->waiting_held_by = number(by + 15, (size_t)(end - by - 15));
	else if (tid)
		t->waiting_held_by = number(tid + 12, (size_t)(end - tid - 12));
	return HANDLED;
}

/* A class name that reads like a throwable, alone or before ": message". */
static bool is_exception_header(const char *s, size_t n)
{
	size_t i = 0;
	bool dot = false;
	for (; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' ||
		      c == '$' || c == '.'))
			break;
		dot |= c == '.';
	}
	if (i == 0 || !dot || s[0] == '.' || s[i - 1] == '.' || (i < n && s[i] != ':'))
		return false;
	return i < n || find(s, i, "Exception") || find(s, i, "Error") || find(s, i, "Throwable");
}

static bool is_separator(const struct line *ln)
{
	return starts(ln->s, ln->len, "--- --- ---") || starts(ln->s, ln->len, "+++ +++ +++");
}

/* xCrash's tombstone around its Java stacks: the banner, "Key: 'value'"
 * lines (kept as figures), separators, and sections without Java stacks
 * ("logcat:", "open files:", "memory info:", ...), which are passed over. */
static int xcrash_line(struct js *j, const struct line *ln)
{
	const char *s = ln->s;
	size_t n = ln->len;
	hg_report *rep = j->rep;
	if (starts(s, n, "*** *** ***")) {
		j->xcrash = true;
		return HANDLED;
	}
	if (is_separator(ln)) {
		j->cur = -1;
		return HANDLED;
	}
	if (starts(s, n, "java stacktrace:"))
		return HANDLED;
	const char *colon = find(s, n, ": '");
	if (colon && s[0] >= 'A' && s[0] <= 'Z' && n > 0 && s[n - 1] == '\'' &&
	    s + n - 1 > colon + 2) {
		const char *key = hg_arena_strndup(rep->arena, s, (size_t)(colon - s));
		const char *v = hg_arena_strndup(rep->arena, colon + 3, (size_t)(s + n - colon - 4));
		if (!key || !v)
			return HG_ENOMEM;
		j->xcrash = true;
		if (strcmp(key, "App version") == 0 && !rep->app_version)
			rep->app_version = v;
		else if (strcmp(key, "Model") == 0 && !rep->device)
			rep->device = v;
		else if (strcmp(key, "Crash time") == 0 && !rep->time)
			rep->time = v;
		else if (strcmp(key, "Crash type") == 0 && strcmp(v, "anr") == 0)
			j->anr = true;
		return hg_report_add_stat(rep, "xcrash", key, v) == 0 ? HANDLED : HG_ENOMEM;
	}
	const char *jvm = j->xcrash ? find(s, n, "JVM threads") : NULL; /* "dumped JVM threads:24" */
	colon = jvm ? memchr(jvm, ':', (size_t)(s + n - jvm)) : NULL;
	if (colon) {
		const char *v = colon + 1;
		while (v < s + n && *v == ' ')
			v++;
		const char *key = hg_arena_strndup(rep->arena, s, (size_t)(colon - s));
		const char *value = hg_arena_strndup(rep->arena, v, (size_t)(s + n - v));
		if (!key || !value || hg_report_add_stat(rep, "xcrash", key, value) != 0)
			return HG_ENOMEM;
		return HANDLED;
	}
	if (j->xcrash && n > 1 && s[n - 1] == ':' && s[0] >= 'a' && s[0] <= 'z') {
		for (size_t i = 0; i + 1 < n; i++)
			if (!((s[i] >= 'a' && s[i] <= 'z') || is_digit(s[i]) || s[i] == ' ' || s[i] == '_' ||
			      s[i] == '-'))
				return 0;
		j->ignoring = true;
		j->cur = -1;
		return HANDLED;
	}
	return 0;
}

/* Lines that name a thread, an exception or the process. */
static int header_line(struct js *j, const struct line *ln)
{
	const char *s = ln->s;
	size_t n = ln->len;
	hg_arena *arena = j->rep->arena;
	if (starts(s, n, "Caused by: "))
		return cause(j, s + 11, n - 11, "caused by");
	if (starts(s, n, "Suppressed: "))
		return cause(j, s + 12, n - 12, "suppressed");
	if (s[0] == '"')
		return quoted_header(j, ln);
	if (starts(s, n, "pid: "))
		return xcrash_header(j, ln);
	if (starts(s, n, "Thread["))
		return bracket_header(j, ln);
	if (starts(s, n, "FATAL EXCEPTION: ") || starts(s, n, "Exception in thread \"")) {
		bool fatal = s[0] == 'F';
		const char *name = s + (fatal ? 17 : 21), *end = s + n;
		const char *q = fatal ? end : memchr(name, '"', (size_t)(end - name));
		note_anr(j, s, n);
		j->cur = -1;
		j->next_is_cause = false;
		j->next_name = j->owner = hg_arena_strndup(arena, name, (size_t)((q ? q : end) - name));
		return j->next_name ? HANDLED : HG_ENOMEM;
	}
	if (starts(s, n, "Process: ")) {
		const char *comma = memchr(s, ',', n);
		size_t len = (size_t)((comma ? comma : s + n) - s) - 9;
		if (!j->rep->process && !(j->rep->process = hg_arena_strndup(arena, s + 9, len)))
			return HG_ENOMEM;
		return HANDLED;
	}
	if (starts(s, n, "java.lang.Thread.State: ")) {
		hg_thread *t = current(j);
		if (t && !(t->state = hg_arena_strndup(arena, s + 24, n - 24)))
			return HG_ENOMEM;
		return HANDLED;
	}
	if (starts(s, n, "- "))
		return lock_line(j, ln);
	if (s[0] == '|') { /* ART's attribute lines: "| sysTid=2345 nice=-10 ..." */
		const char *at = find(s, n, "sysTid=");
		if (at && current(j))
			current(j)->sys_tid = number(at + 7, (size_t)(s + n - at - 7));
		return HANDLED;
	}
	return 0;
}

static int one_line(struct js *j, struct line *ln)
{
	if (j->ignoring && !is_separator(ln) && !starts(ln->s, ln->len, "pid: "))
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
	    parse_frame(ln->s, ln->len, j->rep->arena, &f) == 0)
		return add_frame(j, ln, &f);
	int rc = elided(j, ln);
	if (rc == 0 && !at)
		rc = header_line(j, ln);
	if (rc == 0 && !at)
		rc = xcrash_line(j, ln);
	if (rc == 0 && !at && is_exception_header(ln->s, ln->len)) {
		note_anr(j, ln->s, ln->len);
		if (current(j) && current(j)->n_frames > 0) { /* a new trace, a new thread */
			j->cur = -1;
			j->owner = NULL;
		}
		rc = HANDLED;
	}
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
	struct js j = {.ctx = ctx, .rep = rep, .err = err, .cur = -1};
	err->offset = NO_OFFSET;
	err->msg[0] = '\0';
	struct line ln = {0}, first = {0};
	size_t pos = 0;
	int rc = 0;
	while (rc == 0 && next_line(text, len, &pos, &ln)) {
		if (ln.len > 0 && !first.s)
			first = ln;
		if (ln.len > 0)
			rc = one_line(&j, &ln);
	}
	if (rc != 0)
		return rc;
	if (j.frames == 0) {
		char q[64];
		quote(q, sizeof q, first.s ? first.s : "", first.len);
		return fail(&j, first.s ? &first : NULL, HG_EPARSE, "no Java frame found (expected lines "
			    "like \"at a.b.C.m(C.java:12)\"); the first line is \"%s\"", q);
	}
	rep->kind = j.anr ? HG_KIND_ANR : HG_KIND_THREAD_DUMP;
	rep->platform = "android";
	blame(&rep->threads);
	rc = warnings(&j);
	return rc != 0 ? rc : hg_threads_analyse(&rep->threads, rep->arena, &rep->warnings);
}

int report_thread_from_frames(hg_report *rep, const char *name, const char *text, size_t len,
			      struct read_error *err)
{
	err->offset = NO_OFFSET;
	err->msg[0] = '\0';
	hg_threads *ts = &rep->threads;
	size_t index = ts->n, bad = 0;
	long first_bad = 0;
	char bad_text[64] = "";
	hg_thread *t = hg_threads_add(ts, rep->arena);
	if (!t || !(t->name = hg_arena_strdup(rep->arena, name && name[0] ? name : UNNAMED)))
		return HG_ENOMEM;
	struct line ln = {0};
	size_t pos = 0;
	while (next_line(text, len, &pos, &ln)) {
		hg_frame f;
		if (ln.len == 0)
			continue;
		if (parse_frame(ln.s, ln.len, rep->arena, &f) != 0) {
			if (bad++ == 0) {
				first_bad = ln.no;
				quote(bad_text, sizeof bad_text, ln.s, ln.len);
			}
			continue;
		}
		hg_frame *slot = hg_thread_add_frame(t, rep->arena);
		if (!slot)
			return HG_ENOMEM;
		*slot = f;
	}
	if (t->n_frames == 0) {
		ts->n = index; /* no thread after all */
		snprintf(err->msg, sizeof err->msg, "threadStack: no Java frame found%s%s%s",
			 bad ? " (the first line is \"" : " (it is empty)", bad ? bad_text : "",
			 bad ? "\")" : "");
		return HG_EPARSE;
	}
	if (ts->blamed >= 0 && (size_t)ts->blamed < ts->n)
		ts->items[ts->blamed].flags &= ~(unsigned)HG_THREAD_BLAMED;
	t->flags = HG_THREAD_MAIN | HG_THREAD_BLAMED;
	ts->blamed = (long)index;
	if (bad && hg_strlist_addf(&rep->warnings, rep->arena, "threadStack: %zu line%s not a Java "
				   "frame, left out (the first, line %ld: \"%s\")", bad,
				   bad == 1 ? " is" : "s are", first_bad, bad_text) != 0)
		return HG_ENOMEM;
	return hg_threads_analyse(ts, rep->arena, &rep->warnings);
}
