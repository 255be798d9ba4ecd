/* Reading inputs of the text formats (report_formats.c's rows: each input
 * one report or cut into several by its row's split), Matrix issues as
 * printed to logcat, and the blocks of bare and printed Matrix stacks. */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_read_internal.h"

/* Matrix issues as printed to logcat: "tag[Trace_EvilMethod]type[0];
 * key[...];content[{...}]", one per line among other log lines, which are
 * passed over. */
int reader_read_logcat(struct reader *r)
{
	long line = 0, number = 0;
	int rc = 0;
	for (size_t p = 0; p < r->len && rc == 0;) {
		const char *nl = memchr(r->text + p, '\n', r->len - p);
		size_t eol = nl ? (size_t)(nl - r->text) : r->len;
		line++;
		const char *at = memmem(r->text + p, eol - p, "content[{", 9);
		const char *close = NULL;
		for (const char *c = r->text + eol; at && c > at + 8 && !close; c--)
			if (c[-1] == ']')
				close = c - 1;
		if (at) {
			size_t start = (size_t)(at - r->text) + 8, end_at = close ? (size_t)(close - r->text) : eol;
			hg_json_doc *doc = NULL;
			size_t end = 0;
			const char *why = NULL;
			number++;
			rc = hg_json_parse_keys(r->text + start, end_at - start, HOT_KEY, LAZY_KEY, &doc,
						&end, &why);
			if (rc == HG_ENOMEM)
				return rc;
			if (rc != 0) {
				char what[160];
				snprintf(what, sizeof what, "invalid JSON in content[...]%s%s",
					 why ? ": " : "", why ? why : "");
				rc = read_syntax_error(r, number, line, start + end, what);
			} else {
				read_set_span(r, start, start + end, false);
				rc = read_one_report(r, doc, hg_json_root(doc), start, number, line);
				hg_json_doc_destroy(doc);
			}
		}
		p = eol + 1;
	}
	if (rc == 0 && number == 0)
		rc = read_fail(r, 1, 0, NO_OFFSET, "no Matrix issue (content[{...}]) in the log");
	return rc;
}

/* One report of a text format: text[start..end) of the input, its
 * number-th. */
static int read_text_part(struct reader *r, const struct report_text_format *tf, size_t start,
			  size_t end, long number)
{
	long line = 1, col; /* the first report: where the input starts, as before a split */
	if (number > 1)
		read_locate(r, start, &line, &col);
	hg_report *rep = report_new(r->source, line, number);
	if (!rep)
		return HG_ENOMEM;
	rep->format = tf->format;
	struct read_error err = {"", NO_OFFSET};
	const char *text = r->text + start;
	size_t len = end - start;
	r->span = text;
	r->span_len = len;
	int rc = tf->read(r->ctx, text, len, rep, &err);
	if (rc == HG_ENOMEM) {
		hg_report_destroy(rep);
		return rc;
	}
	if (rc != 0) {
		hg_report_destroy(rep);
		return read_fail(r, number, line,
				   err.offset == NO_OFFSET ? NO_OFFSET : start + err.offset, err.msg);
	}
	return read_deliver(r, rep);
}

/* A text format: the whole input one report, or the reports its row's
 * split cuts it into (a traces file of several processes). */
int reader_read_text(struct reader *r, size_t start, const struct report_text_format *tf)
{
	long number = 0;
	for (size_t from = start; from < r->len;) {
		size_t end = tf->split ? tf->split(r->text, r->len, from) : r->len;
		if (end <= from || end > r->len)
			end = r->len; /* a split that cannot cut: the rest is one report */
		int rc = read_text_part(r, tf, from, end, ++number);
		if (rc != 0)
			return rc;
		from = end;
		while (from < r->len && (unsigned char)r->text[from] <= 0x20)
			from++; /* blanks between two reports belong to neither */
	}
	return 0;
}

/* A block of a bare or printed Matrix stack (report_bare_stack.c): its
 * report, or its failure, with the block's bytes as its text. */
int reader_bare_deliver(void *user, const struct bare_out *o)
{
	struct reader *r = user;
	size_t end = o->end;
	while (end > o->start && (unsigned char)r->text[end - 1] <= 0x20)
		end--;
	r->span = r->text + o->start;
	r->span_len = end - o->start;
	if (o->rep)
		return read_deliver(r, o->rep);
	return read_fail_at(r, o->number, o->line, o->err_line, o->err_col, o->msg);
}
