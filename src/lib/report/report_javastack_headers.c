/* The lines of a Java stack dump that are no frames (private to
 * report_javastack.c): thread headers in ART's, jstack's, Thread.toString()'s
 * and xCrash's forms, "Caused by:" and "Suppressed:", "... N more",
 * exception and process headers, lock lines, and the rest of an xCrash
 * tombstone.  Each recogniser returns HANDLED when the line is its, 0 when
 * not, or an error. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "report_javastack_internal.h"

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
		hg_thread *t = name ? js_start_thread(j, name) : NULL;
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
	if (!j->next_name)
		return HG_ENOMEM;
	return strcmp(how, "caused by") == 0 ? js_add_exception(j, s, n, true) : HANDLED;
}

/* "... 11 more" (Throwable.printStackTrace) or "... 11 common frames omitted". */
static int elided(struct js *j, const struct line *ln)
{
	if (!starts(ln->s, ln->len, "... "))
		return 0;
	long n = number(ln->s + 4, ln->len - 4);
	if (n < 0 || (!ends(ln->s, ln->len, " more") && !ends(ln->s, ln->len, " omitted")))
		return 0;
	const char *who = js_current(j) ? js_current(j)->name : j->next_name ? j->next_name : UNNAMED;
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
	hg_thread *t = name ? js_start_thread(j, name) : NULL;
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
	hg_thread *t = name ? js_start_thread(j, name) : NULL;
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
	hg_thread *t = title ? js_start_thread(j, title) : NULL;
	if (!t)
		return HG_ENOMEM;
	t->sys_tid = whole_number(tid + 7, (size_t)(name - tid - 7));
	/* The process's pid, as the other tombstones give it (the first
	 * header's: every thread's names the same process). */
	long pid = whole_number(s + 5, (size_t)(tid - s - 5));
	char json[16];
	snprintf(json, sizeof json, "%ld", pid);
	if (pid >= 0 && hg_report_add_meta(j->rep, "pid", json, NULL) != 0)
		return HG_ENOMEM;
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
	hg_thread *t = js_current(j);
	const char *s = ln->s + 2, *end = ln->s + ln->len;
	size_t n = ln->len - 2;
	bool held = starts(s, n, "locked <"), waiting = starts(s, n, "waiting to lock <");
	const char *lt = memchr(s, '<', n);
	const char *gt = lt ? memchr(lt, '>', (size_t)(end - lt)) : NULL;
	if (!t || (!held && !waiting) || !gt || gt == lt + 1)
		return HANDLED;
	for (const char *p = lt + 1; p < gt; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return HANDLED; /* an address is one word, as the ANR reader has it */
	hg_arena *arena = j->rep->arena;
	const char *addr = hg_arena_strndup(arena, lt + 1, (size_t)(gt - lt - 1)), *cls = NULL;
	const char *a = find(gt, (size_t)(end - gt), "(a ");
	const char *close = a ? memchr(a, ')', (size_t)(end - a)) : NULL;
	if (!addr || (close && !(cls = hg_arena_strndup(arena, a + 3, (size_t)(close - a - 3)))))
		return HG_ENOMEM;
	long held_by = -1;
	const char *by = find(gt, (size_t)(end - gt), "held by thread ");
	const char *tid = find(gt, (size_t)(end - gt), "held by tid=");
	if (by)
		held_by = number(by + 15, (size_t)(end - by - 15));
	else if (tid)
		held_by = number(tid + 12, (size_t)(end - tid - 12));
	/* kept under the frame it follows too, as the dump wrote it */
	if (hg_thread_add_frame_lock(t, arena, held ? HG_LOCK_HELD : HG_LOCK_WAITING_TO_LOCK, addr,
				     cls, held_by) != 0)
		return HG_ENOMEM;
	if (held)
		return hg_thread_add_held(t, arena, addr, cls) == 0 ? HANDLED : HG_ENOMEM;
	if (!t->waiting.addr) {
		t->waiting = (hg_lock){addr, cls};
		t->waiting_held_by = held_by;
	}
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

bool js_is_separator(const struct line *ln)
{
	return starts(ln->s, ln->len, "--- --- ---") || starts(ln->s, ln->len, "+++ +++ +++");
}

/* Whether a "Build fingerprint" figure was kept already (the first wins). */
static bool has_fingerprint(const hg_report *rep)
{
	for (size_t i = 0; i < rep->n_stats; i++)
		if (strcmp(rep->stats[i].name, "Build fingerprint") == 0)
			return true;
	return false;
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
	if (js_is_separator(ln)) {
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
		else if (strcmp(key, "Build fingerprint") == 0 && !has_fingerprint(rep))
			rep->device = v; /* the device as the other tombstones name it */
		else if (strcmp(key, "Model") == 0 && !rep->device)
			rep->device = v; /* until a fingerprint comes */
		else if (strcmp(key, "Crash time") == 0 && (!rep->time || rep->time == j->start_time))
			rep->time = v;
		else if (strcmp(key, "Start time") == 0 && !rep->time)
			rep->time = j->start_time = v;
		else if (strcmp(key, "Crash type") == 0 && strcmp(v, "anr") == 0)
			j->anr = true;
		else if (strcmp(key, "Crash type") == 0 && strcmp(v, "java") == 0)
			j->crash = true;
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
		j->crash |= fatal;
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
		hg_thread *t = js_current(j);
		if (t && !(t->state = hg_arena_strndup(arena, s + 24, n - 24)))
			return HG_ENOMEM;
		return HANDLED;
	}
	if (starts(s, n, "- "))
		return lock_line(j, ln);
	if (s[0] == '|') { /* ART's attribute lines: "| sysTid=2345 nice=-10 ..." */
		const char *at = find(s, n, "sysTid=");
		if (at && js_current(j))
			js_current(j)->sys_tid = number(at + 7, (size_t)(s + n - at - 7));
		return HANDLED;
	}
	return 0;
}

int js_recognise_line(struct js *j, const struct line *ln, bool at)
{
	int rc = elided(j, ln);
	if (rc == 0 && !at)
		rc = header_line(j, ln);
	if (rc == 0 && !at)
		rc = xcrash_line(j, ln);
	if (rc == 0 && !at && is_exception_header(ln->s, ln->len)) {
		note_anr(j, ln->s, ln->len);
		if (js_current(j) && js_current(j)->n_frames > 0) { /* a new trace, a new thread */
			j->cur = -1;
			j->owner = NULL;
		}
		rc = js_add_exception(j, ln->s, ln->len, false);
	}
	return rc;
}
