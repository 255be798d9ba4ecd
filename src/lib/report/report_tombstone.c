/* Native crash tombstones: Android's debuggerd (/data/tombstones/
 * tombstone_NN, as libdebuggerd's tombstone_proto_to_text.cpp and the
 * older tombstone.cpp write them) and xCrash's native tombstones, which
 * copy that layout after a banner of their own:
 *
 *   *** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***
 *   Build fingerprint: 'google/...'      (xCrash first: Tombstone maker,
 *   Revision: '0'                         Crash type, Crash time, App ID,
 *   ABI: 'arm64'                          App version, API level, ...)
 *   Timestamp: 2024-03-01 10:00:00.123456789+0000
 *   Process uptime: 12s
 *   Cmdline: com.example
 *   pid: 123, tid: 123, name: example  >>> com.example <<<
 *   uid: 10123
 *   signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0
 *   Cause: null pointer dereference
 *   Abort message: '...'
 *       x0  0000000000000000  x1  ...      (registers)
 *   N total frames
 *   backtrace:
 *         #00 pc 000000000004f0a8  /data/app/.../libfoo.so (foo+24) (BuildId: ...)
 *   stack: / memory near x0: / memory map (N entries): / logs
 *   --- --- --- (then every other thread: header, registers, backtrace)
 *   open files: / --------- log main
 *
 * The crashing thread (the first "pid:" line) is blamed; its backtrace is
 * its native frames.  xCrash's "java stacktrace:" (after its "+++ +++ +++")
 * is the Java stack of the same thread: its frames follow the native ones
 * in that thread, as ART's own dumps put a thread's Java frames after its
 * native frames (the native backtrace already runs through the interpreter
 * down to main: the Java frames say what that interpreter was running).
 * Other threads follow "--- --- ---"; "deallocated by thread N:" and
 * "allocated by thread N:" backtraces (GWP-ASan, MTE) become threads of
 * their own.  Stack words and memory dumps are passed over; registers,
 * the memory map and open files become figures and metadata. */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <string.h>

#include "report_tombstone_internal.h"

/* ---- detection and splitting ---- */

static bool pid_tid_line(const char *s, size_t n)
{
	long v;
	size_t used;
	return tb_starts(s, n, "pid: ") && tb_decimal(s + 5, n - 5, &v, &used) &&
	       tb_starts(s + 5 + used, n - 5 - used, ", tid: ");
}

bool report_detect_tombstone(const char *head, size_t len, const char *all, size_t all_len)
{
	(void)all;
	(void)all_len;
	bool banner = false, thread = false, crash = false;
	struct line ln = {0};
	size_t pos = 0;
	while (next_line(head, len, &pos, &ln)) {
		const char *s = ln.s;
		size_t n = ln.len;
		banner |= tb_starts(s, n, "*** *** ***");
		thread |= pid_tid_line(s, n);
		crash |= tb_starts(s, n, "signal ") || tb_starts(s, n, "backtrace:");
		if (tb_starts(s, n, "Crash type: '") && !tb_starts(s, n, "Crash type: 'native'"))
			return false; /* xCrash's 'anr' and 'java' tombstones have readers of their own */
	}
	return banner && thread && crash;
}

size_t report_split_tombstone(const char *text, size_t len, size_t from)
{
	static const char banner[] = "\n*** *** ***";
	const char *next = memmem(text + from, len - from, banner, sizeof banner - 1);
	return next ? (size_t)(next - text) + 1 : len;
}

/* ---- lines that could not be read ---- */

void tomb_odd(struct tomb *t, enum tomb_odd k, const struct line *ln)
{
	struct tomb_odd_rec *o = &t->odd[k];
	if (o->count++ == 0) {
		o->line = ln->no;
		quote_text(o->text, sizeof o->text, ln->s, ln->len);
	}
}

const char *tomb_dup(struct tomb *t, const char *s, size_t n)
{
	return t->frames >= REPORT_CACHE_AFTER ? strcache_get(&t->names, s, n)
					       : hg_arena_strndup(t->rep->arena, s, n);
}

static int odd_warnings(struct tomb *t)
{
	static const char *const what[ODD_COUNT] = {
		[ODD_LINE] = "line%s in a thread's header that %s none of its fields, skipped",
		[ODD_REGISTER] = ("register line%s%.0s holding a word that is no register value (the "
				  "registers before it kept)"),
		[ODD_FRAME] = "line%s in a backtrace that %s no frame, skipped",
		[ODD_PC] = "frame%s whose pc %s more than 64 bits (kept without a pc)",
		[ODD_BUILD_ID] = "Build ID%s that %s not whole bytes of hex (left out)",
		[ODD_JAVA] = "line%s in a Java stack trace that %s no frame, skipped",
		[ODD_DROPPED] = "frame%s past the report's cap (--max-stack-lines) that %s not read",
	};
	for (int k = 0; k < ODD_COUNT; k++) {
		const struct tomb_odd_rec *o = &t->odd[k];
		if (!o->count)
			continue;
		char how[160];
		snprintf(how, sizeof how, what[k], o->count == 1 ? "" : "s", o->count == 1 ? "is" : "are");
		if (hg_strlist_addf(&t->rep->warnings, t->rep->arena, "line %ld: %zu %s: '%s'", o->line,
				    o->count, how, o->text) != 0)
			return HG_ENOMEM;
	}
	return 0;
}

/* ---- the header ---- */

static const char *dup(struct tomb *t, const char *s, size_t n)
{
	return hg_arena_strndup(t->rep->arena, s, n);
}

static int add_meta_text(struct tomb *t, const char *key, const char *v, size_t n)
{
	hg_buf b;
	hg_buf_init(&b);
	hg_buf_json_string(&b, v, n);
	const char *text = dup(t, v, n);
	int rc = b.failed || !text ? HG_ENOMEM : hg_report_add_meta(t->rep, key, b.data, text);
	hg_buf_release(&b);
	return rc;
}

/* "Key: 'value'" (xCrash's banner, debuggerd's fingerprint, revision and
 * ABI) and debuggerd's "Timestamp: ..." and "Process uptime: 12s". */
static int header_line(struct tomb *t, const struct line *ln)
{
	const char *s = ln->s, *colon = tb_find(s, ln->len, ": ");
	if (!colon)
		return 0;
	size_t kn = (size_t)(colon - s);
	const char *v = colon + 2;
	size_t vn = ln->len - kn - 2;
	bool quoted = vn >= 2 && v[0] == '\'' && v[vn - 1] == '\'';
	if (quoted)
		v++, vn -= 2;
	hg_report *rep = t->rep;
	const char *value = dup(t, v, vn);
	if (!value)
		return HG_ENOMEM;
#define KEY(k) (kn == sizeof k - 1 && memcmp(s, k, kn) == 0)
	if (KEY("Tombstone maker") || KEY("Crash type"))
		t->xcrash = true;
	if (KEY("Build fingerprint") && !rep->device)
		rep->device = value;
	else if (KEY("App version") && !rep->app_version)
		rep->app_version = value;
	else if (KEY("App ID") && !t->app_id)
		t->app_id = value;
	else if (KEY("API level") && !t->api_level)
		t->api_level = value;
	else if (KEY("Crash time") && !t->crash_time)
		t->crash_time = value;
	else if (KEY("Start time") && !t->start_time)
		t->start_time = value;
	else if (KEY("Timestamp") && !t->timestamp)
		t->timestamp = value;
	else if (KEY("ABI") && !t->abi)
		t->abi = value;
	else if (KEY("Revision") && !t->revision)
		t->revision = value;
	else if (KEY("Process uptime") && !t->uptime)
		t->uptime = value;
#undef KEY
	if (!t->xcrash || !quoted || !(s[0] >= 'A' && s[0] <= 'Z'))
		return 0;
	const char *key = dup(t, s, kn); /* all of xCrash's banner, as the Java reader keeps it */
	return key ? hg_report_add_stat(rep, "xcrash", key, value) : HG_ENOMEM;
}

/* ---- sections ---- */

/* "memory map (1234 entries):", "memory map (1 entry):", xCrash's "memory map:". */
static void open_maps(struct tomb *t, const struct line *ln)
{
	long n;
	t->sec = SEC_MAPS;
	t->maps_inclusive = ln->len > 12 && ln->s[11] == '(';
	if (t->maps_inclusive && tb_decimal(ln->s + 12, ln->len - 12, &n, NULL))
		t->maps_announced = n;
}

/* The frames a thread announced ("N total frames") against the native
 * frames it has: fewer, and its backtrace was cut (the first such thread
 * is named, the others counted). */
static void check_announced(struct tomb *t)
{
	hg_threads *ts = &t->rep->threads;
	long want = t->announced;
	t->announced = -1;
	if (want < 0 || t->announced_thread < 0 || (size_t)t->announced_thread >= ts->n)
		return;
	const hg_thread *th = &ts->items[t->announced_thread];
	long got = 0;
	for (size_t i = 0; i < th->n_frames; i++)
		got += th->frames[i].kind == HG_FRAME_NATIVE;
	if (got >= want || t->odd[ODD_DROPPED].count)
		return;
	if (t->short_threads++ == 0) {
		t->short_line = t->announced_line;
		t->short_name = th->name;
		t->short_want = want;
		t->short_got = got;
	}
}

static bool skipped_section(const char *s, size_t n)
{
	static const char *const heads[] = {"stack:", "memory near ", "Memory tags around",
					    "logcat:", "memory info:", "--------- ", "stack_record ",
					    "No memory maps found", "Learn more about MTE"};
	for (size_t i = 0; i < sizeof heads / sizeof *heads; i++)
		if (tb_starts(s, n, heads[i]))
			return true;
	return false;
}

/* Room for the frame lines that follow (each starts with '#', or with
 * "at " in a Java stack) in the current thread: one array of the right
 * size, not a doubled one per thread (a tombstone of 100,000 threads of
 * two frames each would hold 800,000 frame slots).  0 or HG_ENOMEM. */
static int reserve_frames(struct tomb *t, bool java)
{
	size_t n = 0;
	struct line ln = {0};
	size_t pos = 0;
	while (next_line(t->rest, t->rest_len, &pos, &ln) && ln.len &&
	       (java ? tb_starts(ln.s, ln.len, "at ") : ln.s[0] == '#'))
		n++;
	size_t cap = t->ctx->limits.max_stack_lines, room = cap > t->frames ? cap - t->frames : 0;
	n = n < room ? n : room;
	return n ? hg_thread_reserve_frames(&t->rep->threads.items[t->cur], t->rep->arena, n) : 0;
}

/* "deallocated by thread 5:", "allocated by thread 5:" */
static bool heap_thread(const char *s, size_t n)
{
	return (tb_starts(s, n, "deallocated by thread ") || tb_starts(s, n, "allocated by thread ")) &&
	       tb_ends(s, n, ":");
}

/* The lines that open a section or a thread, whatever section they end. */
static int structure(struct tomb *t, const struct line *ln)
{
	const char *s = ln->s;
	size_t n = ln->len;
	long v;
	size_t used;
	if (tb_starts(s, n, "--- --- ---")) {
		t->sec = SEC_BETWEEN;
		return TOMB_HANDLED;
	}
	if (tb_starts(s, n, "+++ +++ +++")) { /* xCrash: the threads end, its own sections follow */
		t->sec = SEC_SKIP;
		t->tail = true;
		t->cur = t->crashed;
		return TOMB_HANDLED;
	}
	if (tb_starts(s, n, "*** *** ***"))
		return TOMB_HANDLED;
	int rc = tomb_thread_header(t, ln);
	if (rc)
		return rc;
	if (tb_starts(s, n, "Guest thread information for tid: ") || heap_thread(s, n)) {
		t->sec = s[0] == 'G' ? SEC_THREAD : SEC_BACKTRACE;
		rc = tomb_aux_thread(t, s, n - (s[n - 1] == ':'));
		return rc ? rc : TOMB_HANDLED;
	}
	if (tb_starts(s, n, "backtrace:") || tb_starts(s, n, "java stacktrace:")) {
		if (t->tail && s[0] == 'j')
			t->cur = t->crashed;
		if (t->cur < 0 && (rc = tomb_aux_thread(t, "", 0)) != 0)
			return rc;
		t->sec = s[0] == 'j' ? SEC_JAVA : SEC_BACKTRACE;
		return reserve_frames(t, s[0] == 'j') ? HG_ENOMEM : TOMB_HANDLED;
	}
	if (t->cur >= 0 && tb_decimal(s, n, &v, &used) && tb_starts(s + used, n - used, " total frames")) {
		check_announced(t);
		t->announced = v;
		t->announced_thread = t->cur;
		t->announced_line = ln->no;
		return TOMB_HANDLED;
	}
	if (tb_starts(s, n, "memory map")) {
		open_maps(t, ln);
		return TOMB_HANDLED;
	}
	if (tb_starts(s, n, "open files:") || tb_starts(s, n, "build id:")) {
		t->sec = s[0] == 'o' ? SEC_FILES : SEC_BUILD_IDS;
		return TOMB_HANDLED;
	}
	if (skipped_section(s, n)) {
		t->sec = SEC_SKIP;
		return TOMB_HANDLED;
	}
	return 0;
}

/* A line of a thread's header that is no structure: the crash's own lines
 * (crashing thread only), registers, and lines debuggerd adds that say
 * nothing for triage. */
static int thread_line(struct tomb *t, const struct line *ln)
{
	const char *s = ln->s;
	size_t n = ln->len;
	bool crashing = t->cur == t->crashed;
	int rc;
	if (tb_starts(s, n, "uid: ")) {
		if (crashing && !t->uid && !(t->uid = dup(t, s + 5, n - 5)))
			return HG_ENOMEM;
		return 0;
	}
	if (crashing && (rc = tomb_crash_line(t, ln)) != 0)
		return rc < 0 ? rc : 0;
	if (tb_starts(s, n, "tagged_addr_ctrl: ") || tb_starts(s, n, "pac_enabled_keys: ") ||
	    tb_starts(s, n, "Note: ") || tb_starts(s, n, "Extra crash detail: ") ||
	    tb_starts(s, n, "signal information missing") || tb_starts(s, n, "NOTE: ") ||
	    tb_starts(s, n, "Cause: ") || tb_starts(s, n, "Abort message: ") || n == 0)
		return 0;
	rc = tomb_registers(t, ln, crashing);
	if (rc == 0)
		tomb_odd(t, ODD_LINE, ln);
	return rc < 0 ? rc : 0;
}

/* An abort message's line, unless the message never closed and the
 * tombstone went on without it. */
static int abort_line(struct tomb *t, const struct line *ln)
{
	if (++t->abort_lines <= 64 && !tb_starts(ln->s, ln->len, "backtrace:") &&
	    !tb_starts(ln->s, ln->len, "--- --- ---") && !pid_tid_line(ln->s, ln->len) &&
	    !tomb_is_register_line(ln))
		return tomb_abort_line(t, ln);
	t->sec = SEC_THREAD;
	if (!t->abort_unclosed)
		t->abort_unclosed = ln->no;
	return 1; /* read the line again as what it is */
}

static int one_line(struct tomb *t, const struct line *ln)
{
	if (t->sec == SEC_ABORT) {
		int rc = abort_line(t, ln);
		if (rc <= 0)
			return rc;
	}
	bool frame = false;
	int rc = ln->len ? structure(t, ln) : 0;
	if (rc == 0) {
		switch (t->sec) {
		case SEC_HEADER:
			rc = header_line(t, ln);
			break;
		case SEC_THREAD:
			rc = thread_line(t, ln);
			break;
		case SEC_BACKTRACE:
			if (ln->len == 0) {
				t->sec = SEC_SKIP;
			} else if (ln->s[0] == '#') {
				frame = true;
				rc = tomb_native_frame(t, ln);
			} else if (!tb_starts(ln->s, ln->len, "NOTE: ")) {
				tomb_odd(t, ODD_FRAME, ln);
			}
			break;
		case SEC_JAVA:
			if (ln->len == 0)
				t->sec = SEC_SKIP;
			else
				frame = true, rc = tomb_java_frame(t, ln);
			break;
		case SEC_MAPS:
			rc = ln->len ? tomb_map_line(t, ln) : (t->sec = SEC_SKIP, 0);
			break;
		case SEC_FILES:
			if (ln->len)
				tomb_file_line(t, ln);
			else
				t->sec = SEC_SKIP;
			break;
		case SEC_BUILD_IDS:
			rc = ln->len ? tomb_build_id_line(t, ln) : (t->sec = SEC_SKIP, 0);
			break;
		case SEC_ABORT:
		case SEC_BETWEEN:
		case SEC_SKIP:
			break;
		}
	}
	t->last_was_frame = frame;
	return rc < 0 ? rc : 0;
}

/* ---- the report ---- */

static int warnings(struct tomb *t, const char *text, size_t len)
{
	hg_report *rep = t->rep;
	hg_strlist *w = &rep->warnings;
	const hg_thread *crashed = t->crashed >= 0 ? &rep->threads.items[t->crashed] : NULL;
	int rc = 0;
	if (t->last_was_frame && len && text[len - 1] != '\n')
		rc = hg_strlist_addf(w, rep->arena, "line %ld: the tombstone ends inside a frame list "
				     "(thread \"%s\"): it looks cut", t->line_no,
				     t->cur >= 0 ? rep->threads.items[t->cur].name : "?");
	if (!rc && t->short_threads)
		rc = hg_strlist_addf(w, rep->arena, "line %ld: thread \"%s\" announces %ld frames but "
				     "holds %ld%s: the backtrace looks cut", t->short_line, t->short_name,
				     t->short_want, t->short_got,
				     t->short_threads > 1 ? " (and more threads fall short)" : "");
	if (!rc && crashed && crashed->n_frames == 0)
		rc = hg_strlist_addf(w, rep->arena, "the crashing thread \"%s\" has no backtrace",
				     crashed->name);
	if (!rc && (t->abort_unclosed || t->sec == SEC_ABORT))
		rc = hg_strlist_addf(w, rep->arena, "line %ld: the abort message has no closing quote: "
				     "it is taken to end there", t->abort_unclosed ? t->abort_unclosed
									: t->line_no);
	if (!rc && !t->has_signal && !t->signal_text)
		rc = hg_strlist_addf(w, rep->arena, "the tombstone names no signal");
	return rc ? rc : odd_warnings(t);
}

/* The report's own fields, from what the lines left in t. */
static int fields(struct tomb *t)
{
	hg_report *rep = t->rep;
	rep->kind = HG_KIND_NATIVE_CRASH;
	rep->platform = "android";
	rep->process = t->app_id ? t->app_id : t->proc ? t->proc : t->cmdline;
	rep->os_version = t->api_level;
	rep->time = t->crash_time ? t->crash_time : t->timestamp ? t->timestamp : t->start_time;
	int rc = tomb_crash_fields(t);
	const char *const later[][2] = {{"uid", t->uid}, {"abi", t->abi}, {"revision", t->revision},
					{"process_uptime", t->uptime}};
	for (size_t i = 0; i < sizeof later / sizeof *later && !rc; i++)
		if (later[i][1])
			rc = add_meta_text(t, later[i][0], later[i][1], strlen(later[i][1]));
	if (!rc && t->cmdline && (!rep->process || strcmp(t->cmdline, rep->process) != 0))
		rc = add_meta_text(t, "cmdline", t->cmdline, strlen(t->cmdline));
	if (!rc && t->xcrash) {
		char v[24];
		snprintf(v, sizeof v, "%zu", rep->threads.n);
		rc = hg_report_add_stat(rep, "tombstone", "threads", v);
	}
	return rc ? rc : tomb_fill_build_ids(t);
}

/* "Cmdline: com.example" (before every thread's header; the first kept). */
static int cmdline(struct tomb *t, const struct line *ln)
{
	if (!t->cmdline && ln->len > 9 && !(t->cmdline = dup(t, ln->s + 9, ln->len - 9)))
		return HG_ENOMEM;
	return 0;
}

int report_from_tombstone(const hg_ctx *ctx, const char *text, size_t len, hg_report *rep,
			  struct read_error *err)
{
	struct tomb t = {.ctx = ctx, .rep = rep, .cur = -1, .crashed = -1, .pid = -1,
			 .announced = -1, .announced_thread = -1, .maps_announced = -1,
			 .files_said = -1, .java_thread = -1};
	err->offset = NO_OFFSET;
	err->msg[0] = '\0';
	strcache_init(&t.names, rep->arena);
	hg_buf_init(&t.abort);
	struct line ln = {0}, first = {0};
	size_t pos = 0;
	int rc = 0;
	while (rc == 0 && next_line(text, len, &pos, &ln)) {
		t.line_no = ln.no;
		t.rest = text + pos;
		t.rest_len = len - pos;
		if (ln.len && !first.s)
			first = ln;
		if (tb_starts(ln.s, ln.len, "Cmdline: ") && t.sec != SEC_ABORT)
			rc = cmdline(&t, &ln);
		else
			rc = one_line(&t, &ln);
	}
	check_announced(&t);
	tomb_place_java(&t);
	if (rc == 0 && t.crashed < 0) {
		char q[64];
		quote_text(q, sizeof q, first.s ? first.s : "", first.len);
		rc = report_fail(err, first.s ? first.off : NO_OFFSET,
				 "no crashing thread in the tombstone (expected a line like \"pid: 123, "
				 "tid: 123, name: main  >>> com.example <<<\"); the first line is \"%s\"", q);
	}
	if (rc == 0)
		rc = fields(&t);
	if (rc == 0)
		rc = warnings(&t, text, len);
	strcache_release(&t.names);
	strmap_clear(&t.build_ids);
	strmap_clear(&t.image_refs);
	hg_buf_release(&t.abort);
	return rc;
}
