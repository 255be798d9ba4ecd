/* The stack text of a custom APM report (seed 000): its stack file, or an
 * inline field.  A LAG report's file is the main thread's Java frames
 * (Looper.getMainLooper().thread.stackTrace, one frame a line); an ANR or
 * slow-method report's also holds the "custom stack", the method costs as
 * depth,id,count,cost lines ("0,1048574,1,5003": dispatchMessage first).
 * One file may hold both, in either order, apart or not: each line is read
 * for what it is.  A line of digits and commas is a method line, a
 * class.method(...) line a frame; blank lines, comment lines ("//", "#")
 * and rules ("|", "----") separate them; a "StackKey: 52899|" line is the
 * key the device computed.  The article's own text is read too: blanks
 * around commas, "// ..." or "<-- stackKey" after a method line, and frames
 * a web page spaced out ("Thread.java: 356 )", "$ 3 .onClick").  A line
 * that is none of these is left out with a warning, and so is a last line
 * cut short; the rest is read. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "hangar/beat.h"
#include "report_apm_internal.h"
#include "report_javastack_internal.h"

/* What one reading found. */
struct apm_split {
	hg_report *rep;
	const char *what;          /* "stack_file", "field \"stack\"": names it in messages */
	hg_buf method;             /* the method lines, each at its own line number */
	size_t n_method;
	long thread;               /* the main thread's index, once a frame came; -1 */
	hg_buf clean;              /* a frame line without the page's blanks */
	struct strcache names;
	const char *device_key;    /* "StackKey:" line (arena) */
	size_t unknown, bad_method;
	long first_unknown, first_bad;
	char unknown_text[64], bad_text[64];
	long cut_line;             /* the last line, cut short: left out; 0 */
	char cut_text[64];
};

static bool is_alnum(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Lines that only separate: blank, a comment, a rule of punctuation. */
static bool is_separator(const struct line *ln)
{
	if (ln->len == 0 || starts(ln->s, ln->len, "//") || ln->s[0] == '#' ||
	    starts(ln->s, ln->len, "/*") || ln->s[0] == '*')
		return true;
	for (size_t i = 0; i < ln->len; i++)
		if (!strchr("|-=_~+ \t", ln->s[i]))
			return false;
	return true;
}

/* "StackKey: 52899|" (also "stackKey=", any case): the key's text. */
static bool stack_key_line(const struct line *ln, const char **key, size_t *n)
{
	if (ln->len < 9 || strncasecmp(ln->s, "stack", 5) != 0)
		return false;
	size_t i = 5;
	if (ln->s[i] == ' ' || ln->s[i] == '_')
		i++;
	if (i + 3 > ln->len || strncasecmp(ln->s + i, "key", 3) != 0)
		return false;
	i += 3;
	while (i < ln->len && (ln->s[i] == ' ' || ln->s[i] == '\t'))
		i++;
	if (i == ln->len || (ln->s[i] != ':' && ln->s[i] != '='))
		return false;
	for (i++; i < ln->len && (ln->s[i] == ' ' || ln->s[i] == '\t'); i++)
		;
	*key = ln->s + i;
	*n = ln->len - i;
	return true;
}

/* A method line: four integers split by commas (blanks around them),
 * depth >= 0, each a Java int, then nothing or an annotation ("//", "<-",
 * "#").  Its fields go to *out as "d,i,c,c". */
static bool method_line(const struct line *ln, hg_buf *out)
{
	size_t end = 0;
	while (end < ln->len && (is_digit(ln->s[end]) || strchr(" \t,-", ln->s[end])))
		end++;
	const char *rest = ln->s + end;
	size_t rest_len = ln->len - end;
	if (rest_len && !starts(rest, rest_len, "//") && !starts(rest, rest_len, "<-") &&
	    rest[0] != '#')
		return false;
	const char *p = ln->s, *stop = ln->s + end;
	for (int i = 0; i < 4; i++) {
		const char *comma = i < 3 ? memchr(p, ',', (size_t)(stop - p)) : stop;
		if (!comma)
			return false;
		const char *a = p, *b = comma;
		while (a < b && (*a == ' ' || *a == '\t'))
			a++;
		while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
			b--;
		int64_t v;
		if (hg_parse_int64(a, (size_t)(b - a), &v) != 0 || v < INT32_MIN || v > INT32_MAX ||
		    (i == 0 && v < 0))
			return false;
		hg_buf_printf(out, i < 3 ? "%lld," : "%lld", (long long)v);
		p = comma + 1;
	}
	return true;
}

/* The frame without the blanks a web page put in it: a blank stays only
 * between two letters or digits ("Native Method", "at com.a.B"). */
static void unspace(const struct line *ln, hg_buf *out)
{
	hg_buf_reset(out);
	for (size_t i = 0; i < ln->len; i++) {
		char c = ln->s[i];
		if ((c == ' ' || c == '\t') &&
		    !(i > 0 && i + 1 < ln->len && is_alnum(ln->s[i - 1]) && is_alnum(ln->s[i + 1])))
			continue;
		hg_buf_putc(out, c);
	}
}

static int add_frame(struct apm_split *sp, const hg_frame *f)
{
	hg_report *rep = sp->rep;
	if (sp->thread < 0) {
		hg_thread *t = hg_threads_add(&rep->threads, rep->arena);
		if (!t || !(t->name = hg_arena_strdup(rep->arena, "main")))
			return HG_ENOMEM;
		sp->thread = (long)rep->threads.n - 1;
	}
	hg_thread *t = &rep->threads.items[sp->thread];
	hg_frame *slot = hg_thread_add_frame(t, rep->arena);
	if (!slot)
		return HG_ENOMEM;
	*slot = *f;
	return 0;
}

static void remember(size_t *count, long *first, char *text, size_t size, const struct line *ln)
{
	if ((*count)++ == 0) {
		*first = ln->no;
		quote_text(text, size, ln->s, ln->len);
	}
}

/* One line, for what it is.  last: the text's last line, with no newline
 * after it (a file cut short ends so). */
static int take_line(struct apm_split *sp, const struct line *ln, bool last)
{
	size_t before = sp->method.len;
	const char *key;
	size_t key_len;
	if (ln->len && is_digit(ln->s[0])) {
		if (method_line(ln, &sp->method)) {
			sp->n_method++;
			return 0;
		}
		sp->method.len = before; /* what a bad line left */
		if (last) {
			sp->cut_line = ln->no;
			quote_text(sp->cut_text, sizeof sp->cut_text, ln->s, ln->len);
		} else {
			remember(&sp->bad_method, &sp->first_bad, sp->bad_text, sizeof sp->bad_text, ln);
		}
		return 0;
	}
	if (is_separator(ln))
		return 0;
	if (stack_key_line(ln, &key, &key_len)) {
		sp->device_key = hg_arena_strndup(sp->rep->arena, key, key_len);
		return sp->device_key ? 0 : HG_ENOMEM;
	}
	unspace(ln, &sp->clean);
	if (sp->clean.failed)
		return HG_ENOMEM;
	hg_thread *t = sp->thread >= 0 ? &sp->rep->threads.items[sp->thread] : NULL;
	hg_frame f;
	int rc = js_parse_frame(sp->clean.data, sp->clean.len, sp->rep->arena,
				t && t->n_frames >= REPORT_CACHE_AFTER ? &sp->names : NULL, &f);
	if (rc == HG_ENOMEM)
		return rc;
	/* A last line cut before its "(File.java:12)" still reads as a.b.C.m. */
	if (last && (rc != 0 || !memchr(ln->s, '(', ln->len))) {
		sp->cut_line = ln->no;
		quote_text(sp->cut_text, sizeof sp->cut_text, ln->s, ln->len);
		return 0;
	}
	if (rc != 0) {
		remember(&sp->unknown, &sp->first_unknown, sp->unknown_text, sizeof sp->unknown_text,
			 ln);
		return 0;
	}
	return add_frame(sp, &f);
}

/* The lines left out, said. */
static int warn_left_out(const struct apm_split *sp)
{
	hg_report *rep = sp->rep;
	int rc = 0;
	if (sp->bad_method)
		rc = hg_strlist_addf(&rep->warnings, rep->arena, "%s, line %ld: \"%s\" is not a "
				     "depth,id,count,cost line (4 integers, depth >= 0); left out%s",
				     sp->what, sp->first_bad, sp->bad_text,
				     sp->bad_method > 1 ? ", with the others like it" : "");
	if (rc == 0 && sp->unknown)
		rc = hg_strlist_addf(&rep->warnings, rep->arena, "%s: %zu line%s neither a Java frame "
				     "nor a depth,id,count,cost line, left out (the first, line %ld: "
				     "\"%s\")", sp->what, sp->unknown, sp->unknown == 1 ? " is" : "s are",
				     sp->first_unknown, sp->unknown_text);
	if (rc == 0 && sp->cut_line)
		rc = hg_strlist_addf(&rep->warnings, rep->arena, "%s, line %ld: the text ends in the "
				     "middle of this line (\"%s\"): cut short, left out", sp->what,
				     sp->cut_line, sp->cut_text);
	return rc != 0 ? HG_ENOMEM : 0;
}

/* The method lines as a stack (rep->full), keyed, and checked against a
 * StackKey line. */
static int method_stack(const hg_ctx *ctx, struct apm_split *sp, struct read_error *err)
{
	hg_report *rep = sp->rep;
	size_t line = 0;
	const char *why = "";
	char where[64];
	snprintf(where, sizeof where, "%s, ", sp->what);
	int rc = hg_stack_parse_checked(sp->method.data, sp->method.len, ctx->limits.max_stack_lines,
					rep->arena, &rep->full, &line, &why, where, &rep->warnings);
	if (rc == HG_EPARSE || rc == HG_ELIMIT)
		report_fail(err, NO_OFFSET, "%s, line %zu: %s", sp->what, line, why);
	if (rc != 0)
		return rc == HG_ELIMIT ? HG_EPARSE : rc;
	report_analyse_structured(rep);
	if (!sp->device_key)
		return 0;
	rep->has_device_key = true;
	rep->device_key = sp->device_key;
	const char *mine = hg_report_stack_key_text(rep);
	if (!hg_stack_key_same(mine, sp->device_key) &&
	    hg_strlist_addf(&rep->warnings, rep->arena, "%s: the device's StackKey is \"%s\" but "
			    "the stack gives \"%s\"", sp->what, sp->device_key, mine) != 0)
		return HG_ENOMEM;
	return 0;
}

/* The main thread: blamed, as a LAG report blames it. */
static int main_thread(struct apm_split *sp)
{
	hg_threads *ts = &sp->rep->threads;
	if (ts->blamed >= 0 && (size_t)ts->blamed < ts->n)
		ts->items[ts->blamed].flags &= ~(unsigned)HG_THREAD_BLAMED;
	ts->items[sp->thread].flags = HG_THREAD_MAIN | HG_THREAD_BLAMED;
	ts->blamed = sp->thread;
	return hg_threads_analyse(ts, sp->rep->arena, &sp->rep->warnings);
}

/* Frames or a method stack that the report already has from elsewhere
 * (an inline field, and the stack file too): the first kept, said. */
static int drop_second(struct apm_split *sp, bool had_method, bool had_thread)
{
	hg_report *rep = sp->rep;
	const char *what = NULL;
	if (had_method && sp->n_method) {
		sp->n_method = 0;
		what = "depth,id,count,cost lines";
	}
	if (had_thread && sp->thread >= 0) {
		rep->threads.n = (size_t)sp->thread; /* the thread after all the others */
		sp->thread = -1;
		what = what ? "depth,id,count,cost lines and Java frames" : "Java frames";
	}
	if (what && hg_strlist_addf(&rep->warnings, rep->arena, "%s: its %s are left out: the "
				    "report has them already (the first read is kept)", sp->what,
				    what) != 0)
		return HG_ENOMEM;
	return 0;
}

int apm_read_stack(const hg_ctx *ctx, hg_report *rep, const char *text, size_t len,
		   const char *what, struct read_error *err)
{
	bool had_method = rep->has_method_stack, had_thread = rep->threads.n > 0;
	struct apm_split sp = {.rep = rep, .what = what, .thread = -1};
	hg_buf_init(&sp.method);
	hg_buf_init(&sp.clean);
	strcache_init(&sp.names, rep->arena);
	struct line ln = {0};
	size_t pos = 0;
	int rc = 0;
	while (rc == 0 && next_line(text, len, &pos, &ln)) {
		rc = take_line(&sp, &ln, pos == len && text[len - 1] != '\n');
		hg_buf_putc(&sp.method, '\n'); /* the next line's number stays the file's */
		if (rc == 0 && sp.method.failed)
			rc = HG_ENOMEM;
	}
	strcache_release(&sp.names);
	if (rc == 0)
		rc = warn_left_out(&sp);
	bool found = sp.n_method || sp.thread >= 0;
	if (rc == 0)
		rc = drop_second(&sp, had_method, had_thread);
	if (rc == 0 && sp.n_method)
		rc = method_stack(ctx, &sp, err);
	if (rc == 0 && sp.thread >= 0)
		rc = main_thread(&sp);
	if (rc == 0 && !found) {
		char first[64] = "";
		struct line l0 = {0};
		size_t p0 = 0;
		while (next_line(text, len, &p0, &l0) && l0.len == 0)
			;
		quote_text(first, sizeof first, l0.s ? l0.s : "", l0.s ? l0.len : 0);
		rc = report_fail(err, NO_OFFSET, "%s: no Java frame and no depth,id,count,cost line%s%s%s",
				 what, first[0] ? " (the first line is \"" : " (it is empty)", first,
				 first[0] ? "\")" : "");
	}
	hg_buf_release(&sp.method);
	hg_buf_release(&sp.clean);
	return rc;
}
