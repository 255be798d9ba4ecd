/* A Java frame in the forms the Java stack reader takes, and Matrix's
 * `threadStack` text, one frame per line (private to the report readers). */
#include <stdio.h>
#include <string.h>

#include "report_javastack_internal.h"

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

int js_parse_frame(const char *s, size_t n, hg_arena *arena, struct strcache *names,
		   hg_frame *out)
{
	int rc = frame_parse_java_cached(s, n, arena, names, out);
	return rc == HG_EPARSE ? parse_matrix_frame(s, n, arena, out) : rc;
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
	struct strcache names;
	strcache_init(&names, rep->arena);
	int rc = 0;
	while (rc == 0 && next_line(text, len, &pos, &ln)) {
		hg_frame f;
		if (ln.len == 0)
			continue;
		if (js_parse_frame(ln.s, ln.len, rep->arena,
				   t->n_frames >= REPORT_CACHE_AFTER ? &names : NULL, &f) != 0) {
			if (bad++ == 0) {
				first_bad = ln.no;
				quote_text(bad_text, sizeof bad_text, ln.s, ln.len);
			}
			continue;
		}
		hg_frame *slot = hg_thread_add_frame(t, rep->arena);
		if (slot)
			*slot = f;
		else
			rc = HG_ENOMEM;
	}
	strcache_release(&names);
	if (rc != 0)
		return rc;
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
