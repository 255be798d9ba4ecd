/* Android ANR traces: ART's SIGQUIT dump as /data/anr/anr_*, traces.txt,
 * dropbox and ApplicationExitInfo entries, xCrash ANR tombstones and pasted
 * dumps.  An input may hold
 *   - a preamble: "Subject: Input dispatching timed out (...)", RssKb:,
 *     "--- CriticalEventLog ---", "----- dumping pid: N at ...", or xCrash's
 *     "*** *** ***" banner (Crash type: 'anr', App version:, pid: N >>> app <<<)
 *     closed by "--- --- ---";
 *   - process sections "----- pid N at DATE -----" ... "----- end N -----"
 *     (Cmd line:, Build fingerprint:, ABI:, runtime statistics, then the
 *     threads: report_anr_thread.c), or a bare run of threads with no
 *     section line (trimmed or xCrash dumps);
 *   - the kernel's "----- Waiting Channels: pid N at DATE -----" sections
 *     (one "sysTid=N wchan" line per thread, no stacks);
 *   - a trailer (logcat tails, open files, memory info).
 * Each process is a report of its own, in the order of the file
 * (report_anr_split cuts before a "----- pid N" line of another pid; the
 * preamble goes with the first, which system_server always dumps first:
 * the ANR's process).  A report is one process (the pid system_server
 * dumped, else the one the Subject names, else the first with a main
 * thread), its threads, the main thread blamed, and the lock analysis.
 *
 * It is an ANR when its text says so: an ANR's Subject (its type, the
 * component it names as the scene, the wait as the cost; the preamble's
 * "Timeout: N" when the Subject says no wait), or xCrash's "Crash type:
 * 'anr'".  Any other dump (taken by hand, by kill -3, an app's own
 * SIGQUIT hook, the other processes of an ANR's traces file, a Watchdog's
 * "Blocked in ..." dump) is a thread_dump.  With a wait, the main thread's
 * CPU figures say whether it was busy or waiting (report_anr_subject.c).
 *
 * The input is read twice: a scan that finds the sections and the
 * preamble's fields, then the chosen section's threads. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/text.h"
#include "report_anr.h"

#define MAX_SKIPPED_NAMED 4 /* sections named in the "other processes" warning */

struct str {
	const char *s;
	size_t len;
};

struct section {
	size_t start, end;     /* the body: from the line after the section line */
	long line;             /* number of the line at start */
	long pid;              /* -1 when unknown */
	struct str time, cmd;
	bool channels;         /* a Waiting Channels section */
	bool headed;           /* opened by a "----- pid" line: should end with "----- end" */
	bool ended;
	bool has_main;
	size_t threads;        /* thread headers (Java sections), sysTid= lines (channels) */
	struct str main_wchan; /* channels: what the main thread (sysTid = pid) waits in */
};

struct scan {
	const char *text;
	size_t len;
	hg_arena *arena;
	struct section *sec;
	size_t n_sec, cap_sec;
	long open;             /* index of the open section, -1 */
	struct str subject, fingerprint, abi;
	long subject_line;     /* text line of the Subject */
	struct str timeout;    /* the preamble's "Timeout: 10003" (ms) */
	long timeout_line;
	long dumping_pid;      /* "----- dumping pid: N" (system_server's choice) */
	bool xcrash;           /* inside xCrash's banner */
	long xcrash_pid;
	struct str xcrash_process, xcrash_time, xcrash_start, app_version, xcrash_type;
};

static bool starts(struct str l, const char *prefix)
{
	size_t n = strlen(prefix);
	return l.len >= n && memcmp(l.s, prefix, n) == 0;
}

static struct str skip(struct str l, size_t n)
{
	return (struct str){l.s + n, l.len - n};
}

static struct str trim(struct str l)
{
	while (l.len && (*l.s == ' ' || *l.s == '\t'))
		l = skip(l, 1);
	while (l.len && (l.s[l.len - 1] == ' ' || l.s[l.len - 1] == '\t'))
		l.len--;
	return l;
}

/* 'value' -> value (xCrash and Build fingerprint quote their values). */
static struct str unquote(struct str l)
{
	l = trim(l);
	if (l.len >= 2 && l.s[0] == '\'' && l.s[l.len - 1] == '\'')
		return (struct str){l.s + 1, l.len - 2};
	return l;
}

static long number(struct str l)
{
	l = trim(l);
	long v = 0;
	size_t i = 0;
	while (i < l.len && i < 18 && l.s[i] >= '0' && l.s[i] <= '9')
		v = v * 10 + (l.s[i++] - '0');
	return i ? v : -1;
}

/* ---- the scan ---- */

static void close_section(struct scan *sc, size_t at, bool ended)
{
	if (sc->open < 0)
		return;
	sc->sec[sc->open].end = at;
	sc->sec[sc->open].ended = ended;
	sc->open = -1;
}

static int open_section(struct scan *sc, size_t start, long line, long pid, bool headed)
{
	close_section(sc, start, false);
	if (sc->n_sec == sc->cap_sec) {
		size_t cap = sc->cap_sec ? sc->cap_sec * 2 : 4;
		struct section *s = hg_arena_calloc(sc->arena, cap, sizeof *s);
		if (!s)
			return HG_ENOMEM;
		if (sc->n_sec)
			memcpy(s, sc->sec, sc->n_sec * sizeof *s);
		sc->sec = s;
		sc->cap_sec = cap;
	}
	sc->sec[sc->n_sec] = (struct section){start, sc->len, line, pid, {0}, {0}, false, headed,
					      false, false, 0, {0}};
	sc->open = (long)sc->n_sec++;
	return 0;
}

/* "----- pid 28941 at 2023-04-04 22:06:31.064728684+0200 -----" (after
 * the prefix): the pid and the time. */
static void pid_line(struct section *s, struct str rest)
{
	s->pid = number(rest);
	const char *at = NULL;
	for (size_t i = 0; i + 4 <= rest.len && !at; i++)
		if (memcmp(rest.s + i, " at ", 4) == 0)
			at = rest.s + i + 4;
	if (!at)
		return;
	struct str t = {at, (size_t)(rest.s + rest.len - at)};
	if (t.len >= 5 && memcmp(t.s + t.len - 5, "-----", 5) == 0)
		t.len -= 5;
	s->time = trim(t);
}

/* Lines outside any section: the preamble, xCrash's banner, a trailer. */
static int outside_line(struct scan *sc, struct str l, size_t off, size_t next, long line)
{
	if (starts(l, "Subject:") && !sc->subject.s && sc->n_sec == 0) {
		sc->subject = trim(skip(l, 8));
		sc->subject_line = line;
	} else if (starts(l, "Timeout:") && !sc->timeout.s && sc->n_sec == 0) {
		sc->timeout = trim(skip(l, 8));
		sc->timeout_line = line;
	} else if (starts(l, "----- dumping pid: "))
		sc->dumping_pid = number(skip(l, 19));
	else if (starts(l, "*** *** ***"))
		sc->xcrash = true;
	else if (sc->xcrash && starts(l, "--- --- ---"))
		return open_section(sc, next, line + 1, sc->xcrash_pid, false);
	else if (sc->xcrash && starts(l, "pid: ")) {
		/* "pid: 22012  >>> xcrash.sample <<<" */
		struct str r = skip(l, 5);
		sc->xcrash_pid = number(r);
		for (size_t i = 0; i + 4 <= r.len; i++) {
			if (memcmp(r.s + i, ">>> ", 4) != 0)
				continue;
			struct str p = skip(r, i + 4);
			if (p.len >= 4 && memcmp(p.s + p.len - 4, " <<<", 4) == 0)
				sc->xcrash_process = trim((struct str){p.s, p.len - 4});
			break;
		}
	} else if (sc->xcrash && starts(l, "Crash time:"))
		sc->xcrash_time = unquote(skip(l, 11));
	else if (sc->xcrash && starts(l, "Start time:"))
		sc->xcrash_start = unquote(skip(l, 11)); /* the process's: when Crash time is missing */
	else if (sc->xcrash && starts(l, "App version:"))
		sc->app_version = unquote(skip(l, 12));
	else if (sc->xcrash && starts(l, "Crash type:"))
		sc->xcrash_type = unquote(skip(l, 11));
	else if (starts(l, "Cmd line:") || starts(l, "DALVIK THREADS") ||
		 anr_header_kind(l.s, l.len))
		/* Threads with no section line: the section starts here. */
		return open_section(sc, off, line, -1, false);
	return 0;
}

/* "sysTid=12233     state=S    do_epoll_wait": when the tid is the pid,
 * the main thread's kernel function (its last word; "0" while it runs). */
static void main_channel(struct section *s, struct str l)
{
	char *end;
	long tid = strtol(l.s + 7, &end, 10);
	if (s->pid < 0 || tid != s->pid || s->main_wchan.s || end == l.s + 7)
		return;
	struct str t = trim(l);
	size_t i = t.len;
	while (i > 0 && t.s[i - 1] != ' ' && t.s[i - 1] != '\t')
		i--;
	if (i < t.len && (size_t)(t.s + i - l.s) > (size_t)(end - l.s))
		s->main_wchan = (struct str){t.s + i, t.len - i};
}

static void section_line(struct section *s, struct str l)
{
	if (starts(l, "Cmd line:") && !s->cmd.s) {
		s->cmd = trim(skip(l, 9));
	} else if (s->channels) {
		if (starts(l, "sysTid=")) {
			s->threads++;
			main_channel(s, l);
		}
	} else if (l.len && l.s[0] == '"') {
		int kind = anr_header_kind(l.s, l.len);
		s->threads += kind != 0;
		s->has_main |= kind == 2;
	}
}

/* One line at off; the next starts at next. */
static int scan_line(struct scan *sc, struct str l, size_t off, size_t next, long line)
{
	if (starts(l, "Build fingerprint:") && !sc->fingerprint.s)
		sc->fingerprint = unquote(skip(l, 18));
	else if (starts(l, "ABI:") && !sc->abi.s)
		sc->abi = unquote(skip(l, 4));
	if (starts(l, "----- pid ") || starts(l, "----- Waiting Channels: pid ")) {
		bool channels = l.s[6] == 'W';
		int rc = open_section(sc, next, line + 1, -1, true);
		if (rc)
			return rc;
		struct section *s = &sc->sec[sc->open];
		s->channels = channels;
		pid_line(s, skip(l, channels ? 28 : 10));
		return 0;
	}
	if (starts(l, "----- end ") || (sc->open >= 0 && starts(l, "+++ +++ +++"))) {
		close_section(sc, off, true);
		return 0;
	}
	if (sc->open < 0)
		return outside_line(sc, l, off, next, line);
	section_line(&sc->sec[sc->open], l);
	return 0;
}

static int scan_input(struct scan *sc)
{
	long line = 1;
	for (size_t pos = 0; pos < sc->len; line++) {
		const char *nl = memchr(sc->text + pos, '\n', sc->len - pos);
		size_t stop = nl ? (size_t)(nl - sc->text) : sc->len;
		struct str l = {sc->text + pos, stop - pos};
		if (l.len && l.s[l.len - 1] == '\r')
			l.len--;
		size_t next = stop < sc->len ? stop + 1 : sc->len;
		int rc = scan_line(sc, l, pos, next, line);
		if (rc)
			return rc;
		pos = next;
	}
	close_section(sc, sc->len, false);
	return 0;
}

/* ---- choosing the app's section ---- */

/* Whether the Subject names process cmd ("... 7985007 com.example.app/..."
 * or "cmp=com.example.app/.Receiver"). */
static bool subject_names(struct str subject, struct str cmd)
{
	if (!cmd.len || cmd.len > subject.len)
		return false;
	for (size_t i = 0; i + cmd.len <= subject.len; i++) {
		if (memcmp(subject.s + i, cmd.s, cmd.len) != 0)
			continue;
		char before = i ? subject.s[i - 1] : ' ';
		char after = i + cmd.len < subject.len ? subject.s[i + cmd.len] : ' ';
		if (before && after && strchr(" =(", before) && strchr(" /)", after))
			return true;
	}
	return false;
}

/* The section to read: among Java sections with threads (else Java
 * sections, else Waiting Channels sections), the pid the caller prefers
 * (a logcat's ANR), else the pid system_server dumped, else the process
 * the Subject names, else the first with a main thread, else the first.
 * -1 when there is none. */
static long choose(const struct scan *sc, long prefer)
{
	for (int pass = 0; pass < 3; pass++) {
		long first = -1, with_main = -1, named = -1, dumped = -1, preferred = -1;
		for (size_t i = 0; i < sc->n_sec; i++) {
			const struct section *s = &sc->sec[i];
			bool fits = pass == 0 ? !s->channels && s->threads > 0
				    : pass == 1 ? !s->channels : s->channels;
			if (!fits)
				continue;
			if (first < 0)
				first = (long)i;
			if (with_main < 0 && s->has_main)
				with_main = (long)i;
			if (named < 0 && sc->subject.s && subject_names(sc->subject, s->cmd))
				named = (long)i;
			if (dumped < 0 && sc->dumping_pid >= 0 && s->pid == sc->dumping_pid)
				dumped = (long)i;
			if (preferred < 0 && prefer >= 0 && s->pid == prefer)
				preferred = (long)i;
		}
		long pick = preferred >= 0 ? preferred : dumped >= 0 ? dumped : named >= 0 ? named
			    : with_main >= 0 ? with_main : first;
		if (pick >= 0)
			return pick;
	}
	return -1;
}

/* ---- the report ---- */

static const char *dup_str(hg_report *rep, struct str s)
{
	return s.s ? hg_arena_strndup(rep->arena, s.s, s.len) : NULL;
}

/* Keeps a header value as metadata: a string, or a number's digits. */
static int add_meta(hg_report *rep, const char *key, struct str value, bool is_number)
{
	if (!value.s)
		return 0;
	const char *text = dup_str(rep, value);
	if (!text)
		return HG_ENOMEM;
	if (is_number)
		return hg_report_add_meta(rep, key, text, NULL);
	hg_buf b;
	hg_buf_init(&b);
	hg_buf_json_string(&b, value.s, value.len);
	int rc = b.failed ? HG_ENOMEM : hg_report_add_meta(rep, key, b.data, text);
	hg_buf_release(&b);
	return rc;
}

/* The main thread: named "main", else tid=1, else (native-only dumps) the
 * thread whose kernel tid is the pid, else the one named after the
 * process (the kernel keeps 15 characters of it: the head or the tail). */
static long find_main(const hg_threads *ts, long pid, struct str process)
{
	for (int pass = 0; pass < 4; pass++) {
		for (size_t i = 0; i < ts->n; i++) {
			const hg_thread *t = &ts->items[i];
			size_t n = strlen(t->name);
			bool hit = pass == 0 ? strcmp(t->name, "main") == 0
				   : pass == 1 ? t->tid == 1
				   : pass == 2 ? pid >= 0 && t->sys_tid == pid
				   : n > 0 && (n == process.len || (n == 15 && process.len > 15)) &&
					     (memcmp(process.s, t->name, n) == 0 ||
					      memcmp(process.s + process.len - n, t->name, n) == 0);
			if (hit)
				return (long)i;
		}
	}
	return -1;
}

static int warn_other_sections(hg_report *rep, const struct scan *sc, size_t chosen)
{
	hg_buf b;
	hg_buf_init(&b);
	size_t others = 0;
	for (size_t i = 0; i < sc->n_sec; i++) {
		const struct section *s = &sc->sec[i];
		if (i == chosen || s->channels)
			continue;
		if (others++ < MAX_SKIPPED_NAMED)
			hg_buf_printf(&b, "%s pid %ld (%.*s)", others > 1 ? "," : "", s->pid,
				      (int)(s->cmd.len < 200 ? s->cmd.len : 200), s->cmd.s ? s->cmd.s : "");
	}
	int rc = 0;
	if (others > 0 && !b.failed)
		rc = hg_strlist_addf(&rep->warnings, rep->arena,
				     "the input holds %zu process dumps: read pid %ld, skipped%s%s",
				     others + 1, sc->sec[chosen].pid, b.data,
				     others > MAX_SKIPPED_NAMED ? " and more" : "");
	else if (b.failed)
		rc = HG_ENOMEM;
	hg_buf_release(&b);
	return rc;
}

static int fill_fields(hg_report *rep, const struct scan *sc, const struct section *s)
{
	rep->kind = HG_KIND_THREAD_DUMP;
	rep->platform = "android";
	struct str process = s->cmd.s ? s->cmd : sc->xcrash_process;
	rep->process = dup_str(rep, process);
	struct str time = s->time.s ? s->time : sc->xcrash_time.s ? sc->xcrash_time : sc->xcrash_start;
	rep->time = dup_str(rep, time);
	rep->device = dup_str(rep, sc->fingerprint);
	rep->app_version = dup_str(rep, sc->app_version);
	if ((process.s && !rep->process) || (sc->fingerprint.s && !rep->device) ||
	    (time.s && !rep->time) || (sc->app_version.s && !rep->app_version))
		return HG_ENOMEM;
	char pid[24];
	long p = s->pid >= 0 ? s->pid : sc->xcrash_pid;
	snprintf(pid, sizeof pid, "%ld", p);
	int rc = add_meta(rep, "subject", sc->subject, false);
	if (rc == 0 && p >= 0)
		rc = add_meta(rep, "pid", (struct str){pid, strlen(pid)}, true);
	if (rc == 0)
		rc = add_meta(rep, "abi", sc->abi, false);
	if (rc == 0 && s->channels)
		rc = add_meta(rep, "main_wchan", s->main_wchan, false);
	return rc;
}

/* Whether the report is an ANR, and what its Subject says: the type, the
 * scene, the wait as the cost (else the preamble's "Timeout: N"). */
static int anr_fields(hg_report *rep, const struct scan *sc, const struct section *s,
		      const struct anr_read_opts *opts)
{
	struct anr_subject subj = {false, NULL, NULL, -1};
	int rc = 0;
	if (sc->subject.s &&
	    (rc = anr_subject_read(rep, sc->subject.s, sc->subject.len,
				   anr_input_line(opts, sc->subject_line), &subj)) != 0)
		return rc;
	bool xcrash_anr = sc->xcrash_type.len == 3 && !memcmp(sc->xcrash_type.s, "anr", 3);
	rep->cost_unknown = true; /* until a wait is read below */
	if (!subj.is_anr && !xcrash_anr)
		return 0;
	rep->kind = HG_KIND_ANR;
	rep->anr_type = subj.type;
	rep->scene = subj.scene;
	if (subj.wait_ms >= 0) {
		rep->cost = subj.wait_ms;
		rep->cost_unknown = false;
	} else if (sc->timeout.s) {
		long t = number(sc->timeout);
		if (t >= 0 && (size_t)snprintf(NULL, 0, "%ld", t) == sc->timeout.len) {
			rep->cost = t;
			rep->cost_unknown = false;
		} else {
			rc = hg_strlist_addf(&rep->warnings, rep->arena, "line %ld: \"Timeout: %.*s\" is "
					     "no number of ms: the ANR's cost is unknown",
					     anr_input_line(opts, sc->timeout_line),
					     (int)(sc->timeout.len < 40 ? sc->timeout.len : 40),
					     sc->timeout.s);
		}
	}
	if (rc == 0 && sc->dumping_pid >= 0 && s->pid >= 0 && s->pid != sc->dumping_pid)
		rc = hg_strlist_addf(&rep->warnings, rep->arena, "the Subject is of pid %ld (\"-----"
				     " dumping pid: %ld\") but the dump is of pid %ld", sc->dumping_pid,
				     sc->dumping_pid, s->pid);
	return rc;
}

/* Warnings about what the chosen section lacks. */
static int warn_section(hg_report *rep, const struct section *s)
{
	hg_strlist *w = &rep->warnings;
	int cmd_len = (int)(s->cmd.len < 200 ? s->cmd.len : 200);
	const char *cmd = s->cmd.s ? s->cmd.s : "";
	if (s->channels)
		return hg_strlist_addf(w, rep->arena, "the input holds only the kernel's waiting "
				       "channels of %zu threads (pid %ld%s%.*s): no thread stacks, so no "
				       "thread to blame", s->threads, s->pid, cmd_len ? ", " : "",
				       cmd_len, cmd);
	if (s->headed && !s->ended &&
	    hg_strlist_addf(w, rep->arena, "the dump of pid %ld has no '----- end' line: the input "
			    "looks truncated", s->pid) != 0)
		return HG_ENOMEM;
	if (rep->threads.n == 0)
		return hg_strlist_addf(w, rep->arena, "the process dump holds no thread");
	if (rep->threads.blamed < 0)
		return hg_strlist_addf(w, rep->arena, "no main thread in the dump (no thread named "
				       "\"main\", with tid=1 or named after the process)");
	return 0;
}

long anr_input_line(const struct anr_read_opts *opts, long k)
{
	if (opts->line_map)
		return k >= 1 && (size_t)k <= opts->n_map ? opts->line_map[k - 1] : 0;
	return opts->line_base + k - 1;
}

/* The main thread's CPU figures: a warning for one that cannot be read,
 * and (for an ANR with a wait) what they say of it. */
static int main_cpu(hg_report *rep, const struct anr_cpu *cpu, struct anr_read_opts *opts)
{
	long m = rep->threads.blamed;
	if (!cpu || m < 0)
		return 0;
	opts->main_cpu = cpu[m];
	opts->has_main_cpu = true;
	if (cpu[m].bad_line && hg_strlist_addf(&rep->warnings, rep->arena, "line %ld: the main "
					       "thread's CPU figure \"%s\" is no number or out of "
					       "range: left out", cpu[m].bad_line, cpu[m].bad_text))
		return HG_ENOMEM;
	if (opts->keep_kind || rep->kind != HG_KIND_ANR)
		return 0;
	return anr_busy_or_blocked(rep, &cpu[m], rep->threads.items[m].state, rep->cost);
}

int report_anr_read(const hg_ctx *ctx, const char *text, size_t len, struct anr_read_opts *opts,
		    hg_report *rep, struct read_error *err)
{
	(void)ctx;
	struct scan sc = {.text = text, .len = len, .arena = rep->arena, .open = -1,
			  .dumping_pid = -1, .xcrash_pid = -1};
	int rc = scan_input(&sc);
	if (rc)
		return rc;
	long chosen = choose(&sc, opts->prefer_pid);
	opts->dump_pid = -1;
	if (chosen < 0) {
		size_t at = 0;
		while (at < len && (unsigned char)text[at] <= ' ')
			at++;
		snprintf(err->msg, sizeof err->msg, "not an ANR trace: expected a process dump "
			 "('----- pid N at DATE -----', 'Cmd line: ...') or thread headers "
			 "('\"main\" prio=5 tid=1 Runnable')");
		err->offset = at;
		return HG_EPARSE;
	}
	const struct section *s = &sc.sec[chosen];
	struct anr_cpu *cpu = NULL;
	if (!s->channels && (rc = anr_read_threads(rep, text, s->start, s->end, s->line, opts,
						   &cpu)) != 0)
		return rc;
	hg_threads *ts = &rep->threads;
	ts->blamed = find_main(ts, s->pid >= 0 ? s->pid : sc.xcrash_pid,
			       s->cmd.s ? s->cmd : sc.xcrash_process);
	if (ts->blamed >= 0)
		ts->items[ts->blamed].flags |= HG_THREAD_MAIN | HG_THREAD_BLAMED;
	opts->dump_pid = s->pid >= 0 ? s->pid : sc.xcrash_pid;
	if ((rc = fill_fields(rep, &sc, s)) != 0 ||
	    (!opts->keep_kind && (rc = anr_fields(rep, &sc, s, opts)) != 0) ||
	    (rc = warn_section(rep, s)) != 0 || (rc = warn_other_sections(rep, &sc, (size_t)chosen)) != 0 ||
	    (rc = main_cpu(rep, cpu, opts)) != 0)
		return rc;
	return hg_threads_analyse(ts, rep->arena, &rep->warnings);
}

int report_from_anr_traces(const hg_ctx *ctx, const char *text, size_t len, hg_report *rep,
			   struct read_error *err)
{
	/* A later process of a split file: its lines count from where it starts. */
	struct anr_read_opts opts = {.line_base = rep->number > 1 && rep->line > 0 ? rep->line : 1,
				     .prefer_pid = -1};
	return report_anr_read(ctx, text, len, &opts, rep, err);
}

/* "----- pid N at ..." or "----- Waiting Channels: pid N at ...": N, or -1
 * for any other line. */
static long section_pid(const char *s, size_t n)
{
	struct str l = {s, n};
	if (starts(l, "----- pid "))
		return number(skip(l, 10));
	if (starts(l, "----- Waiting Channels: pid "))
		return number(skip(l, 28));
	return -1;
}

size_t report_anr_split(const char *text, size_t len, size_t from)
{
	long pid = -1;
	for (size_t pos = from; pos < len;) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t next = nl ? (size_t)(nl - text) + 1 : len;
		long p = section_pid(text + pos, next - pos);
		if (p >= 0 && pid >= 0 && p != pid)
			return pos; /* another process's dump starts here */
		if (p >= 0)
			pid = p;
		pos = next;
	}
	return len;
}
