/* Logcat's lines taken apart (report_logcat_internal.h), how a log that
 * holds an ANR is told, and how a log of several ANRs is cut into one
 * report each. */
#include <stdio.h>
#include <string.h>

#include "report_anr.h"
#include "report_logcat_internal.h"

struct lc_str lc_trim(struct lc_str s)
{
	while (s.len && (*s.s == ' ' || *s.s == '\t'))
		s.s++, s.len--;
	while (s.len && (s.s[s.len - 1] == ' ' || s.s[s.len - 1] == '\t'))
		s.len--;
	return s;
}

bool lc_starts(struct lc_str s, const char *prefix)
{
	size_t n = strlen(prefix);
	return s.len >= n && memcmp(s.s, prefix, n) == 0;
}

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

long lc_number(struct lc_str s)
{
	long v = 0;
	size_t i = 0;
	while (i < s.len && digit(s.s[i])) {
		if (i == 18)
			return -2;
		v = v * 10 + (s.s[i++] - '0');
	}
	return i ? v : -1;
}

/* The length of "MM-DD HH:MM:SS[.fff]" or "YYYY-MM-DD HH:MM:SS[.fff]" at
 * s[0..n), else 0. */
static size_t time_at(const char *s, size_t n)
{
	static const char date[] = "dd-dd dd:dd:dd";
	size_t i = n >= 5 && digit(s[0]) && digit(s[1]) && digit(s[2]) && digit(s[3]) && s[4] == '-'
		   ? 5 : 0;
	for (size_t k = 0; date[k]; k++, i++)
		if (i >= n || (date[k] == 'd' ? !digit(s[i]) : s[i] != date[k]))
			return 0;
	if (i + 1 < n && s[i] == '.' && digit(s[i + 1]))
		for (i++; i < n && digit(s[i]); i++)
			;
	return i;
}

static size_t spaces(const char *s, size_t n, size_t i)
{
	while (i < n && s[i] == ' ')
		i++;
	return i;
}

static size_t digits(const char *s, size_t n, size_t i, long *v)
{
	size_t start = i;
	*v = 0;
	while (i < n && digit(s[i]) && i - start < 12)
		*v = *v * 10 + (s[i++] - '0');
	return i - start && (i >= n || !digit(s[i])) ? i : start;
}

static bool level(char c)
{
	return c && strchr("VDIWEFAS", c) != NULL;
}

static size_t word_end(const char *s, size_t n, size_t i)
{
	while (i < n && s[i] != ' ')
		i++;
	return i;
}

/* The message after "TAG:" at s[i] (the tag runs to the ':', blanks
 * padding it dropped): true when there is one. */
static bool tag_colon(const char *s, size_t n, size_t i, struct lc_line *out)
{
	const char *colon = memchr(s + i, ':', n - i);
	if (!colon || colon == s + i)
		return false;
	struct lc_str tag = lc_trim((struct lc_str){s + i, (size_t)(colon - s - i)});
	if (!tag.len || memchr(tag.s, ' ', tag.len) || memchr(tag.s, '"', tag.len))
		return false;
	size_t m = (size_t)(colon - s) + 1;
	if (m < n && s[m] == ' ')
		m++;
	out->tag = tag;
	out->msg = (struct lc_str){s + m, n - m};
	return true;
}

/* "L/TAG( PID): msg", "L/TAG: msg", "L TAG: msg" at s[i]. */
static bool brief_form(const char *s, size_t n, size_t i, struct lc_line *out)
{
	if (i + 2 >= n || !level(s[i]) || (s[i + 1] != '/' && s[i + 1] != ' '))
		return false;
	out->level = s[i];
	i += 2;
	const char *paren = s[i - 1] == '/' ? memchr(s + i, '(', n - i) : NULL;
	const char *colon = memchr(s + i, ':', n - i);
	if (paren && colon && paren < colon) {
		long pid;
		size_t p = spaces(s, n, (size_t)(paren - s) + 1), e = digits(s, n, p, &pid);
		if (e > p && e + 1 < n && s[e] == ')' && s[e + 1] == ':') {
			out->tag = lc_trim((struct lc_str){s + i, (size_t)(paren - s) - i});
			out->pid = pid;
			size_t m = e + 2 < n && s[e + 2] == ' ' ? e + 3 : e + 2;
			out->msg = (struct lc_str){s + m, n - m};
			return out->tag.len > 0;
		}
	}
	return tag_colon(s, n, i, out);
}

/* "PID TID L TAG: msg" (threadtime) at s[i]. */
static bool threadtime_form(const char *s, size_t n, size_t i, struct lc_line *out)
{
	long pid, tid;
	size_t e = digits(s, n, i, &pid);
	if (e == i || e >= n || s[e] != ' ')
		return false;
	size_t t = spaces(s, n, e), te = digits(s, n, t, &tid);
	if (te == t || te + 2 >= n || s[te] != ' ')
		return false;
	size_t l = spaces(s, n, te);
	if (l + 2 >= n || !level(s[l]) || s[l + 1] != ' ' || !tag_colon(s, n, l + 2, out))
		return false;
	out->pid = pid;
	out->tid = tid;
	out->level = s[l];
	return true;
}

/* Android Studio: "PID-TID/PKG L/TAG: msg", or "PID-TID  TAG  PKG  L  msg". */
static bool studio_form(const char *s, size_t n, size_t i, struct lc_line *out)
{
	long pid, tid;
	size_t e = digits(s, n, i, &pid);
	if (e == i || e >= n || s[e] != '-')
		return false;
	size_t te = digits(s, n, e + 1, &tid);
	if (te == e + 1 || te >= n)
		return false;
	out->pid = pid;
	out->tid = tid;
	if (s[te] == '/') {
		size_t w = spaces(s, n, word_end(s, n, te));
		return brief_form(s, n, w, out) && (out->pid = pid, true);
	}
	size_t tag = spaces(s, n, te);
	if (tag == te)
		return false;
	for (size_t w = word_end(s, n, tag), k = 0; k < 2 && w < n; k++) {
		size_t a = spaces(s, n, w), b = word_end(s, n, a);
		if (b == a + 1 && level(s[a]) && b < n) {
			out->tag = (struct lc_str){s + tag, word_end(s, n, tag) - tag};
			out->level = s[a];
			size_t m = spaces(s, n, b);
			out->msg = (struct lc_str){s + m, n - m};
			return true;
		}
		w = b;
	}
	return false;
}

void lc_parse(const char *s, size_t n, struct lc_line *out)
{
	if (n && s[n - 1] == '\r')
		n--;
	*out = (struct lc_line){{s, n}, {s, n}, {0}, {0}, -1, -1, 0, false};
	size_t i = time_at(s, n);
	if (i) {
		out->time = (struct lc_str){s, i};
		i = spaces(s, n, i);
		if (i + 5 < n && (s[i] == '+' || s[i] == '-') && digit(s[i + 1]))
			i = spaces(s, n, word_end(s, n, i)); /* -v zone: "+0800" */
	}
	struct lc_line l = *out;
	if (threadtime_form(s, n, i, &l) || studio_form(s, n, i, &l) ||
	    brief_form(s, n, i, &l)) {
		l.prefixed = true;
		*out = l;
	} else {
		out->time = (struct lc_str){0};
	}
}

bool lc_same_source(const struct lc_line *a, const struct lc_line *b)
{
	return a->prefixed && b->prefixed && a->pid == b->pid && a->tag.len == b->tag.len &&
	       memcmp(a->tag.s, b->tag.s, a->tag.len) == 0;
}

bool lc_tag_is(const struct lc_line *l, const char *tag)
{
	size_t n = strlen(tag);
	return l->tag.len == n && memcmp(l->tag.s, tag, n) == 0;
}

bool lc_is_anr_in(const struct lc_line *l)
{
	return (!l->prefixed || lc_tag_is(l, "ActivityManager")) &&
	       lc_starts(lc_trim(l->msg), "ANR in ");
}

bool lc_is_am_anr(const struct lc_line *l)
{
	struct lc_str m = lc_trim(l->msg);
	if (l->prefixed)
		return lc_tag_is(l, "am_anr") && lc_starts(m, "[");
	/* pasted without its prefix: "am_anr  : [0,...]" */
	if (!lc_starts(m, "am_anr"))
		return false;
	m = lc_trim((struct lc_str){m.s + 6, m.len - 6});
	return lc_starts(m, ": [") || lc_starts(m, ":[");
}

bool lc_starts_dump(const struct lc_line *l)
{
	struct lc_str m = l->msg;
	while (m.len && (*m.s == ' ' || *m.s == '\t'))
		m.s++, m.len--;
	static const char *const starts[] = {"----- pid ", "----- Waiting Channels: pid ",
					     "Subject:", "Cmd line:", "DALVIK THREADS",
					     "*** *** ***"};
	for (size_t k = 0; k < sizeof starts / sizeof *starts; k++)
		if (lc_starts(m, starts[k]))
			return true;
	return m.len && m.s[0] == '"' && anr_header_kind(m.s, m.len) != 0;
}

/* Whether s is all digits (a pid, a user id, flags). */
static bool all_digits(struct lc_str s)
{
	long v = lc_number(s);
	return v >= 0 && (size_t)snprintf(NULL, 0, "%ld", v) == s.len;
}

bool lc_read_am_anr(struct lc_str msg, struct lc_am_anr *out)
{
	*out = (struct lc_am_anr){-1, {0}, {0}, false};
	struct lc_str m = lc_trim(msg);
	const char *open = memchr(m.s, '[', m.len);
	if (!open)
		return false;
	m = (struct lc_str){open + 1, m.len - (size_t)(open + 1 - m.s)};
	out->cut = !m.len || m.s[m.len - 1] != ']';
	if (!out->cut)
		m.len--;
	/* user, pid, process, flags, reason (it may hold commas: the rest) */
	struct lc_str f[5];
	size_t n = 0, start = 0;
	for (size_t i = 0; i < m.len && n < 4; i++)
		if (m.s[i] == ',') {
			f[n++] = (struct lc_str){m.s + start, i - start};
			start = i + 1;
		}
	f[n++] = (struct lc_str){m.s + start, m.len - start};
	/* before Android 4.2 there was no user: pid, process, flags, reason */
	size_t u = n >= 2 && all_digits(f[0]) && all_digits(f[1]) ? 1 : 0;
	if (n < 2 + u || !all_digits(f[u]) || lc_number(f[u]) <= 0)
		return false;
	out->pid = lc_number(f[u]);
	out->process = f[u + 1];
	if (n > u + 3)
		out->reason = (struct lc_str){f[u + 3].s, (size_t)(m.s + m.len - f[u + 3].s)};
	return true;
}

/* ---- detection and cutting ---- */

/* The pid of the block that starts at text[pos] ("PID: N" among the next
 * lines of its writer), -1 when it does not say. */
static long block_pid(const char *text, size_t len, size_t pos)
{
	struct lc_line first, l;
	const char *nl = memchr(text + pos, '\n', len - pos);
	size_t next = nl ? (size_t)(nl - text) + 1 : len;
	lc_parse(text + pos, next - pos - (nl != NULL), &first);
	for (int k = 0; k < 4 && next < len; k++) {
		pos = next;
		nl = memchr(text + pos, '\n', len - pos);
		next = nl ? (size_t)(nl - text) + 1 : len;
		lc_parse(text + pos, next - pos - (nl != NULL), &l);
		if (l.prefixed && !lc_same_source(&first, &l))
			return -1;
		struct lc_str m = lc_trim(l.msg);
		if (lc_starts(m, "PID: "))
			return lc_number(lc_trim((struct lc_str){m.s + 5, m.len - 5}));
	}
	return -1;
}

bool report_detect_logcat(const char *head, size_t len, const char *all, size_t all_len)
{
	(void)all;
	(void)all_len;
	for (size_t pos = 0; pos < len;) {
		const char *nl = memchr(head + pos, '\n', len - pos);
		size_t next = nl ? (size_t)(nl - head) + 1 : len;
		struct lc_line l;
		lc_parse(head + pos, next - pos - (nl != NULL), &l);
		if (lc_is_am_anr(&l) && l.prefixed)
			return true;
		/* a bare "ANR in ..." must be followed by its PID: prose says "ANR in" too */
		if (lc_is_anr_in(&l) && (l.prefixed || block_pid(head, len, pos) >= 0))
			return true;
		pos = next;
	}
	return false;
}

size_t report_logcat_split(const char *text, size_t len, size_t from)
{
	bool block = false, am = false;
	long pid = -1; /* the ANR's, once known */
	for (size_t pos = from; pos < len;) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t next = nl ? (size_t)(nl - text) + 1 : len;
		struct lc_line l;
		lc_parse(text + pos, next - pos - (nl != NULL), &l);
		if (lc_is_am_anr(&l)) {
			struct lc_am_anr a;
			lc_read_am_anr(l.msg, &a);
			/* an ANR's am_anr comes before its block; after it only when the
			 * events buffer was appended: the same pid is the same ANR */
			if (am || (block && (pid < 0 || a.pid != pid)))
				return pos;
			am = true;
			pid = pid >= 0 ? pid : a.pid;
		} else if (lc_is_anr_in(&l)) {
			long p = block_pid(text, len, pos);
			if (block || (am && p >= 0 && pid >= 0 && p != pid))
				return pos;
			block = true;
			pid = p >= 0 ? p : pid;
		}
		pos = next;
	}
	return len;
}
