/* An ANR as logcat tells it: ActivityManager's block
 *   E ActivityManager: ANR in com.app (com.app/.MainActivity)
 *   E ActivityManager: PID: 17681
 *   E ActivityManager: Reason: Input dispatching timed out (... Waited 5001ms for ...)
 *   E ActivityManager: Parent: com.app/.MainActivity      ErrorId: ...    Frozen: false
 *   E ActivityManager: Load: 9.23 / 6.11 / 5.35
 *   E ActivityManager: ----- Output from /proc/pressure/memory -----  (some/full lines)
 *   E ActivityManager: CPU usage from 294016ms to -1ms ago (... to ...):
 *   E ActivityManager:   85% 17681/com.app: 80% user + 4.5% kernel / faults: ...
 *   E ActivityManager: 29% TOTAL: 10% user + 18% kernel + 0.5% iowait
 * (ProcessErrorStateRecord.appNotResponding logs it after the dumps), the
 * am_anr event written when the ANR is declared
 *   I am_anr  : [0,17681,com.app,952745540,Input dispatching timed out (...)]
 * and, when the log holds one, the ART dump of the process (SIGQUIT trace
 * text logged by the app, or a traces file pasted after the log).  One
 * report: the block's (else am_anr's) fields, the dump's threads.
 *
 * The report's time is the am_anr line's (the ANR's moment), else the
 * block's; without its year (threadtime), the year is the one that puts
 * it at or before a dated time of the same log (the CPU usage window, the
 * dump's "----- pid N at"), else the file's time, else now. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hangar/text.h"
#include "report_anr.h"
#include "report_logcat_internal.h"
#include "report_time.h"

#define MAX_CPU_LINES 10   /* processes kept per CPU window, besides the ANR's and TOTAL */

struct cpu_window {
	const char *group;      /* "cpu" (before the ANR), "cpu later" */
	long line;
	size_t kept, more;
	bool total;
	long indent;            /* of its first process line; -1 */
};

struct lc {
	hg_report *rep;
	const hg_ctx *ctx;
	long base;              /* the input line of the text's first */
	/* the block */
	bool block, in_block, in_cpu;
	struct lc_line first;   /* its "ANR in" line */
	long block_line, block_pid, pid_line, reason_line;
	struct lc_str process, component, reason, parent, error_id, frozen;
	struct lc_str psi;      /* "memory" inside "----- Output from /proc/pressure/memory" */
	struct cpu_window cpu;
	long indent;            /* the blanks before the message at hand */
	long junk_line;
	size_t junk;
	struct lc_str year_ref; /* a dated time of the block: the CPU usage window's */
	/* am_anr */
	bool am;
	struct lc_line am_line;
	struct lc_am_anr am_anr;
	long am_line_no;
	/* other lines */
	long bg_kill_pid;       /* "Killing N:...: bg anr": a background (silent) ANR */
	/* the dump: its lines, their input lines */
	bool dump;
	struct lc_line dump_first;
	hg_buf text;
	long *lines;
	size_t n_lines, cap_lines;
};

static int warn(struct lc *c, const char *fmt, ...) HG_PRINTF(2, 3);
static int warn(struct lc *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return hg_strlist_addf(&c->rep->warnings, c->rep->arena, "%s", msg);
}

static int stat_str(struct lc *c, const char *group, struct lc_str name, struct lc_str value)
{
	char n[128], v[256];
	snprintf(n, sizeof n, "%.*s", (int)(name.len < 127 ? name.len : 127), name.s);
	snprintf(v, sizeof v, "%.*s", (int)(value.len < 255 ? value.len : 255), value.s);
	return hg_report_add_stat(c->rep, group, n, v);
}

static struct lc_str after(struct lc_str s, size_t n)
{
	return lc_trim((struct lc_str){s.s + n, s.len - n});
}

/* ---- the block's lines ---- */

/* "9.23": a figure of load or CPU, 0 to 10^6. */
static bool figure(struct lc_str s)
{
	char *end;
	char buf[32];
	if (!s.len || s.len >= sizeof buf || !strchr("0123456789", s.s[0]))
		return false;
	memcpy(buf, s.s, s.len);
	buf[s.len] = '\0';
	double v = strtod(buf, &end);
	return *end == '\0' && v >= 0 && v <= 1e6;
}

/* "Load: 9.23 / 6.11 / 5.35" */
static int load_line(struct lc *c, struct lc_str v, long line)
{
	static const char *const names[] = {"1 min", "5 min", "15 min"};
	struct lc_str f[3];
	size_t n = 0;
	for (size_t i = 0, start = 0; i <= v.len && n < 3; i++)
		if (i == v.len || v.s[i] == '/') {
			f[n++] = lc_trim((struct lc_str){v.s + start, i - start});
			start = i + 1;
		}
	bool ok = n == 3 && f[2].s + f[2].len == v.s + v.len;
	for (size_t k = 0; ok && k < 3; k++)
		ok = figure(f[k]);
	if (!ok)
		return warn(c, "line %ld: \"Load: %.*s\" is not three load averages (\"a / b / c\"): "
			    "left out", line, (int)(v.len < 60 ? v.len : 60), v.s);
	int rc = 0;
	for (size_t k = 0; k < 3 && rc == 0; k++)
		rc = stat_str(c, "load", (struct lc_str){names[k], strlen(names[k])}, f[k]);
	return rc;
}

/* "CPU usage from 294016ms to -1ms ago (2024-10-15 19:44:14.421 to ...):" */
static int cpu_window(struct lc *c, struct lc_str m, long line)
{
	if (c->in_cpu && !c->cpu.total && warn(c, "line %ld: the CPU usage there has no TOTAL line:"
					       " the block looks cut", c->cpu.line))
		return HG_ENOMEM;
	struct lc_str w = after(m, 15);
	if (w.len && w.s[w.len - 1] == ':')
		w.len--;
	bool later = false;
	for (size_t i = 0; i + 6 <= w.len; i++)
		later |= memcmp(w.s + i, " later", 6) == 0;
	c->cpu = (struct cpu_window){later ? "cpu later" : "cpu", line, 0, 0, false, -1};
	c->in_cpu = true;
	const char *paren = memchr(w.s, '(', w.len);
	if (paren && !c->year_ref.s)
		c->year_ref = (struct lc_str){paren + 1, (size_t)(w.s + w.len - paren - 1)};
	return stat_str(c, c->cpu.group, (struct lc_str){"window", 6}, w);
}

/* "85% 17681/com.app: 80% user + 4.5% kernel / faults: 12 minor",
 * "29% TOTAL: 10% user + 18% kernel": the name and "85% (80% user +
 * 4.5% kernel)".  false when m is no such line. */
static bool cpu_line(struct lc *c, struct lc_str m, int *rc)
{
	if (m.len && (m.s[0] == '+' || m.s[0] == '-'))
		m = after(m, 1); /* a process that came or went in the window */
	const char *pct = memchr(m.s, '%', m.len), *colon = NULL;
	/* the name ends at ": " before the user figure ("com.app:push: 55% user") */
	for (const char *p = pct; p && !colon && p + 2 < m.s + m.len; p++)
		if (p[0] == ':' && p[1] == ' ' && p[2] >= '0' && p[2] <= '9')
			colon = p;
	if (!pct || !colon || !figure((struct lc_str){m.s, (size_t)(pct - m.s)}))
		return false;
	struct lc_str name = lc_trim((struct lc_str){pct + 1, (size_t)(colon - pct - 1)});
	struct lc_str rest = lc_trim((struct lc_str){colon + 1, (size_t)(m.s + m.len - colon - 1)});
	for (size_t i = 0; i + 3 <= rest.len; i++)
		if (memcmp(rest.s + i, " / ", 3) == 0)
			rest.len = i; /* " / faults: ..." */
	bool total = name.len == 5 && !memcmp(name.s, "TOTAL", 5);
	const char *slash = memchr(name.s, '/', name.len);
	if (!total && (!slash || lc_number(name) < 0))
		return false;
	c->cpu.total |= total;
	if (!total && c->cpu.indent < 0)
		c->cpu.indent = c->indent;
	if (!total && c->indent > c->cpu.indent)
		return true; /* a thread of the process above ("    98% 21705/example.chat: ...") */
	bool ours = !total && c->block_pid >= 0 && lc_number(name) == c->block_pid;
	if (!total && !ours && c->cpu.kept >= MAX_CPU_LINES) {
		c->cpu.more++;
		return true;
	}
	c->cpu.kept += !total;
	char v[256];
	snprintf(v, sizeof v, "%.*s (%.*s)", (int)(pct - m.s + 1), m.s,
		 (int)(rest.len < 200 ? rest.len : 200), rest.s);
	*rc = stat_str(c, c->cpu.group, name, (struct lc_str){v, strlen(v)});
	if (*rc == 0 && total && c->cpu.more) {
		snprintf(v, sizeof v, "%zu", c->cpu.more);
		*rc = hg_report_add_stat(c->rep, c->cpu.group, "other processes", v);
		c->cpu.more = 0;
	}
	return true;
}

/* "----- Output from /proc/pressure/memory -----", its "some avg10=..."
 * and "full avg10=..." lines, "----- End output from ... -----". */
static bool pressure_line(struct lc *c, struct lc_str m, int *rc)
{
	if (lc_starts(m, "----- Output from /proc/pressure/")) {
		struct lc_str n = after(m, 33);
		size_t k = 0;
		while (k < n.len && n.s[k] != ' ')
			k++;
		c->psi = (struct lc_str){n.s, k};
		return true;
	}
	if (lc_starts(m, "----- End output from ")) {
		c->psi = (struct lc_str){0};
		return true;
	}
	if (!c->psi.s || !(lc_starts(m, "some ") || lc_starts(m, "full ")))
		return false;
	char name[64];
	snprintf(name, sizeof name, "%.*s %.4s", (int)(c->psi.len < 40 ? c->psi.len : 40), c->psi.s,
		 m.s);
	*rc = stat_str(c, "pressure", (struct lc_str){name, strlen(name)}, after(m, 5));
	return true;
}

/* One line of the block (its message m, trimmed); false when it is none
 * of the block's. */
static bool block_field(struct lc *c, struct lc_str m, long line, int *rc)
{
	if (lc_starts(m, "PID: ")) {
		long p = lc_number(after(m, 5));
		struct lc_str v = after(m, 5);
		if (p > 0 && p <= 0x7fffffffL && (size_t)snprintf(NULL, 0, "%ld", p) == v.len)
			c->block_pid = p;
		else
			*rc = warn(c, "line %ld: \"PID: %.*s\" is no process id: left out", line,
				   (int)(v.len < 40 ? v.len : 40), v.s);
		c->pid_line = line;
	} else if (lc_starts(m, "Reason: ")) {
		c->reason = after(m, 8);
		c->reason_line = line;
	} else if (lc_starts(m, "Parent: ")) {
		c->parent = after(m, 8);
	} else if (lc_starts(m, "ErrorId: ")) {
		c->error_id = after(m, 9);
	} else if (lc_starts(m, "Frozen: ")) {
		c->frozen = after(m, 8);
	} else if (lc_starts(m, "Load: ")) {
		*rc = load_line(c, after(m, 6), line);
	} else if (lc_starts(m, "CPU usage from ")) {
		*rc = cpu_window(c, m, line);
	} else if (lc_starts(m, "Package is ") || !m.len) {
		/* incremental install progress; blank lines */
	} else if (!pressure_line(c, m, rc) && !(c->in_cpu && cpu_line(c, m, rc))) {
		return false;
	}
	return true;
}

/* Whether line l (message m) goes on the block: a line of its writer
 * (same tag, pid and time: logcat splits one message), or, unprefixed, a
 * continuation (Android Studio shows a message's next lines bare) that is
 * blank or one of the block's lines.  A line that starts a dump never. */
static bool in_block(const struct lc *c, const struct lc_line *l)
{
	if (lc_starts_dump(l) || lc_is_anr_in(l) || lc_is_am_anr(l))
		return false;
	if (l->prefixed)
		return lc_same_source(&c->first, l) && l->tid == c->first.tid &&
		       l->level == c->first.level && l->time.len == c->first.time.len &&
		       (!l->time.len || memcmp(l->time.s, c->first.time.s, l->time.len) == 0);
	return true;
}

static int flush_junk(struct lc *c)
{
	int rc = 0;
	if (c->junk)
		rc = warn(c, "line %ld: skipped %zu line%s of the ANR block that %s none of its fields",
			  c->junk_line, c->junk, c->junk == 1 ? "" : "s", c->junk == 1 ? "is" : "are");
	c->junk = 0;
	return rc;
}

static int end_block(struct lc *c)
{
	int rc = flush_junk(c);
	if (rc == 0 && c->in_cpu && !c->cpu.total)
		rc = warn(c, "line %ld: the CPU usage there has no TOTAL line: the block looks cut",
			  c->cpu.line);
	if (rc == 0 && (!c->reason.s || !c->pid_line))
		rc = warn(c, "line %ld: the ANR block has no %s line: it looks cut", c->block_line,
			  !c->pid_line ? "\"PID:\"" : "\"Reason:\"");
	c->in_block = c->in_cpu = false;
	return rc;
}

/* "ANR in com.app (com.app/.MainActivity)" */
static int start_block(struct lc *c, const struct lc_line *l, long line)
{
	if (c->block)
		return warn(c, "line %ld: a second ANR block in one report: left out", line);
	struct lc_str m = after(lc_trim(l->msg), 7);
	const char *paren = memchr(m.s, '(', m.len);
	c->process = lc_trim((struct lc_str){m.s, paren ? (size_t)(paren - m.s) : m.len});
	if (paren) {
		struct lc_str in = {paren + 1, (size_t)(m.s + m.len - paren - 1)};
		if (in.len && in.s[in.len - 1] == ')')
			in.len--;
		c->component = in;
	}
	c->block = c->in_block = true;
	c->first = *l;
	c->block_line = line;
	return 0;
}

static int block_line(struct lc *c, const struct lc_line *l, long line)
{
	int rc = 0;
	struct lc_str m = lc_trim(l->msg);
	c->indent = (long)(m.s - l->msg.s);
	if (block_field(c, m, line, &rc))
		return rc;
	if ((!l->prefixed && !c->in_cpu) || (c->in_cpu && c->cpu.total)) {
		/* a bare line that is none of the block's, or any after a TOTAL
		 * (brief logs have no time to tell the block's lines by): the
		 * block is over */
		if ((rc = end_block(c)) != 0)
			return rc;
		return 1;
	}
	if (!c->junk++)
		c->junk_line = line;
	return 0;
}

static int am_anr_line(struct lc *c, const struct lc_line *l, long line)
{
	if (c->am)
		return warn(c, "line %ld: a second am_anr event in one report: left out", line);
	struct lc_am_anr a;
	if (!lc_read_am_anr(l->msg, &a)) {
		struct lc_str m = lc_trim(l->msg);
		return warn(c, "line %ld: am_anr event \"%.*s\" is not [user,pid,process,flags,reason]:"
			    " left out", line, (int)(m.len < 60 ? m.len : 60), m.s);
	}
	c->am = true;
	c->am_anr = a;
	c->am_line = *l;
	c->am_line_no = line;
	if (a.cut)
		return warn(c, "line %ld: the am_anr event has no closing ']': it looks cut", line);
	return 0;
}

/* A line of the dump: its message, and its input line. */
static int dump_line(struct lc *c, const struct lc_line *l, long line)
{
	if (c->n_lines == c->cap_lines) {
		size_t cap = c->cap_lines ? c->cap_lines * 2 : 256;
		long *n = hg_arena_calloc(c->rep->arena, cap, sizeof *n);
		if (!n)
			return HG_ENOMEM;
		if (c->n_lines)
			memcpy(n, c->lines, c->n_lines * sizeof *n);
		c->lines = n;
		c->cap_lines = cap;
	}
	c->lines[c->n_lines++] = line;
	hg_buf_add(&c->text, l->msg.s, l->msg.len);
	hg_buf_putc(&c->text, '\n');
	return c->text.failed ? HG_ENOMEM : 0;
}

/* A line that is neither the block nor am_anr: a background ANR's kill,
 * the dump deadline, or a line of the dump (from where one starts, the
 * lines of its writer and bare ones). */
static int other_line(struct lc *c, const struct lc_line *l, long line)
{
	struct lc_str m = lc_trim(l->msg);
	bool am = lc_tag_is(l, "ActivityManager");
	if ((am && lc_starts(m, "Killing ")) || lc_tag_is(l, "am_kill")) {
		/* "Killing 4960:com.app/u0a123 (adj 900): bg anr", am_kill "[0,4960,...,bg anr]" */
		if (m.len && m.s[m.len - 1] == ']')
			m.len--;
		if (m.len < 6 || memcmp(m.s + m.len - 6, "bg anr", 6) != 0)
			return 0;
		const char *comma = memchr(m.s, ',', m.len);
		struct lc_str p = am ? after(m, 8) : comma ? after(m, (size_t)(comma - m.s) + 1)
						     : (struct lc_str){0};
		c->bg_kill_pid = p.s ? lc_number(p) : -1;
		return 0;
	}
	if (am && lc_starts(m, "Aborting stack trace dump"))
		return warn(c, "line %ld: system_server stopped dumping stacks at its 20 s deadline "
			    "(\"%.*s\"): the processes after it were not dumped", line,
			    (int)(m.len < 80 ? m.len : 80), m.s);
	if (!c->dump && lc_starts_dump(l)) {
		c->dump = true;
		c->dump_first = *l;
	}
	if (!c->dump || (l->prefixed && !lc_same_source(&c->dump_first, l)) ||
	    lc_starts(m, "--------- "))
		return 0; /* chatter of other writers; logcat's "--------- beginning of" */
	return dump_line(c, l, line);
}

static int scan(struct lc *c, const char *text, size_t len)
{
	long line = c->base;
	for (size_t pos = 0; pos < len; line++) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t next = nl ? (size_t)(nl - text) + 1 : len;
		struct lc_line l;
		lc_parse(text + pos, next - pos - (nl != NULL), &l);
		pos = next;
		int rc;
		if (c->in_block && in_block(c, &l)) {
			if ((rc = block_line(c, &l, line)) < 0)
				return rc;
			if (rc == 0)
				continue; /* 1: the block is over, and l is read as any line */
		} else if (c->in_block && (rc = end_block(c)) != 0) {
			return rc;
		}
		rc = lc_is_anr_in(&l) ? start_block(c, &l, line)
		     : lc_is_am_anr(&l) ? am_anr_line(c, &l, line) : other_line(c, &l, line);
		if (rc)
			return rc;
	}
	return c->in_block ? end_block(c) : 0;
}

/* ---- the report ---- */

static int meta_string(hg_report *rep, const char *key, struct lc_str v)
{
	if (!v.s || !v.len)
		return 0;
	char *text = hg_arena_strndup(rep->arena, v.s, v.len);
	hg_buf b;
	hg_buf_init(&b);
	hg_buf_json_string(&b, v.s, v.len);
	int rc = !text || b.failed ? HG_ENOMEM : hg_report_add_meta(rep, key, b.data, text);
	hg_buf_release(&b);
	return rc;
}

/* Unix ms of the first time written in s ("2024-10-15 19:44:14.421 to ...",
 * "2023-04-04 22:06:31.064728684+0200"); false when it has none. */
static bool dated(struct lc_str s, int64_t *ms)
{
	for (size_t i = 0; i + 4 <= s.len; i++)
		if (lc_starts((struct lc_str){s.s + i, s.len - i}, " to "))
			s.len = i;
	char out[REPORT_TIME_SIZE];
	const char *why;
	return s.len && report_time_parse(s.s, s.len, out, &why) == 0 && report_time_unix_ms(out, ms);
}

/* The report's time: the am_anr line's, else the block's (see the top). */
static int settle_time(struct lc *c, const char *dump_time)
{
	hg_report *rep = c->rep;
	const struct lc_line *l = c->am && c->am_line.time.len ? &c->am_line
				  : c->block && c->first.time.len ? &c->first : NULL;
	if (!l)
		return 0; /* the dump's, if it has one */
	char *t = hg_arena_strndup(rep->arena, l->time.s, l->time.len);
	if (!t)
		return HG_ENOMEM;
	rep->time_written = NULL;
	rep->time = t;
	if (l->time.len > 4 && l->time.s[4] == '-')
		return 0; /* with its year: read as any time is */
	int64_t ref = 0;
	const char *from = "the CPU usage window";
	if (!dated(c->year_ref, &ref)) {
		from = "the dump's time";
		if (!dump_time || !dated((struct lc_str){dump_time, strlen(dump_time)}, &ref)) {
			from = "the file's time";
			ref = c->ctx->file_time_ms;
		}
	}
	if (!ref) {
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		ref = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
		from = "the current time";
	}
	char out[REPORT_TIME_SIZE];
	const char *why = "";
	rep->time_written = t;
	if (report_time_yearless(t, strlen(t), ref, out, &why) != 0) {
		rep->time = NULL;
		return warn(c, "time \"%.40s\" cannot be read (%s): the report's time is unknown", t,
			    why);
	}
	if (!(rep->time = hg_arena_strdup(rep->arena, out)))
		return HG_ENOMEM;
	return hg_report_add_stat(rep, "logcat", "time-year-from", from);
}

/* The block's (else am_anr's) fields as metadata, before the dump's. */
static int block_meta(struct lc *c, struct lc_str reason, long pid)
{
	hg_report *rep = c->rep;
	char p[24];
	snprintf(p, sizeof p, "%ld", pid);
	int rc = meta_string(rep, "subject", reason);
	if (rc == 0 && pid >= 0)
		rc = hg_report_add_meta(rep, "pid", p, NULL);
	if (rc == 0)
		rc = meta_string(rep, "parent", c->parent);
	if (rc == 0)
		rc = meta_string(rep, "error_id", c->error_id);
	bool flag = c->frozen.len == 4 ? !memcmp(c->frozen.s, "true", 4)
		    : c->frozen.len == 5 && !memcmp(c->frozen.s, "false", 5);
	if (rc == 0 && flag)
		rc = hg_report_add_meta(rep, "frozen", c->frozen.len == 4 ? "true" : "false", NULL);
	else if (rc == 0)
		rc = meta_string(rep, "frozen", c->frozen);
	if (rc == 0 && c->block && c->am && c->am_anr.pid >= 0 && c->block_pid >= 0 &&
	    c->am_anr.pid != c->block_pid)
		rc = warn(c, "line %ld: the am_anr event is of pid %ld, the ANR block (line %ld) of "
			  "pid %ld", c->am_line_no, c->am_anr.pid, c->block_line, c->block_pid);
	return rc;
}

/* The dump the log holds, read as an ANR trace of the ANR's pid. */
static int read_dump(struct lc *c, long pid, struct anr_read_opts *o, const char **dump_time)
{
	struct read_error derr = {"", NO_OFFSET};
	*o = (struct anr_read_opts){.line_map = c->lines, .n_map = c->n_lines, .prefer_pid = pid,
				    .keep_kind = true, .dump_pid = -1};
	if (!c->dump)
		return 0;
	int rc = report_anr_read(c->ctx, c->text.data, c->text.len, o, c->rep, &derr);
	if (rc == HG_EPARSE)
		return warn(c, "line %ld: the thread dump that starts there holds no process: left out",
			    c->lines[0]);
	if (rc)
		return rc;
	*dump_time = c->rep->time;
	if (o->dump_pid >= 0 && pid >= 0 && o->dump_pid != pid)
		return warn(c, "line %ld: the thread dump is of pid %ld, the ANR of pid %ld", c->lines[0],
			    o->dump_pid, pid);
	return 0;
}

static int fill(struct lc *c)
{
	hg_report *rep = c->rep;
	long pid = c->block_pid >= 0 ? c->block_pid : c->am ? c->am_anr.pid : -1;
	struct lc_str reason = c->reason.s ? c->reason : c->am_anr.reason;
	long reason_line = c->reason.s ? c->reason_line : c->am_line_no;
	struct lc_str process = c->block && c->process.len ? c->process : c->am_anr.process;
	struct anr_read_opts o;
	const char *dump_time = NULL;
	int rc = block_meta(c, reason, pid);
	if (rc == 0)
		rc = read_dump(c, pid, &o, &dump_time);
	struct anr_subject subj = {true, NULL, NULL, -1};
	if (rc == 0 && reason.len)
		rc = anr_subject_read(rep, reason.s, reason.len, reason_line, &subj);
	if (rc)
		return rc;
	rep->kind = HG_KIND_ANR;
	rep->platform = "android";
	rep->anr_type = subj.type;
	rep->scene = anr_component_class(rep->arena, c->component.s, c->component.len);
	if (!rep->scene)
		rep->scene = anr_component_class(rep->arena, c->parent.s, c->parent.len);
	if (!rep->scene)
		rep->scene = subj.scene;
	rep->cost = subj.wait_ms >= 0 ? subj.wait_ms : 0;
	rep->cost_unknown = subj.wait_ms < 0; /* 0 ms would be a figure; the log says none */
	if (process.len && !(rep->process = hg_arena_strndup(rep->arena, process.s, process.len)))
		return HG_ENOMEM;
	if (c->bg_kill_pid >= 0 && (pid < 0 || c->bg_kill_pid == pid))
		rep->foreground = 0; /* killed silently: a background ANR */
	if ((rc = settle_time(c, dump_time)) != 0)
		return rc;
	if (!o.has_main_cpu)
		return 0;
	return anr_busy_or_blocked(rep, &o.main_cpu, rep->threads.items[rep->threads.blamed].state,
				   rep->cost);
}

int report_from_logcat(const hg_ctx *ctx, const char *text, size_t len, hg_report *rep,
		       struct read_error *err)
{
	struct lc c = {.rep = rep, .ctx = ctx, .base = rep->number > 1 && rep->line > 0 ? rep->line : 1,
		       .block_pid = -1, .bg_kill_pid = -1, .am_anr = {.pid = -1}};
	hg_buf_init(&c.text);
	int rc = scan(&c, text, len);
	if (rc == 0 && !c.block && !c.am) {
		size_t at = 0;
		while (at < len && (unsigned char)text[at] <= ' ')
			at++;
		rc = report_fail(err, at, "not an ANR log: no ActivityManager \"ANR in\" block and no "
				 "am_anr event");
	} else if (rc == 0) {
		rc = fill(&c);
	}
	hg_buf_release(&c.text);
	return rc;
}
