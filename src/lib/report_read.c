/* Splitting one input into reports: a single JSON object, a JSON array of
 * reports, or NDJSON (one object per line); and the bare binary buffer.
 * A report that fails is still handed on, with its error, so that every
 * input is accounted for. */
#include <stdio.h>
#include <string.h>

#include "hangar/beat.h"
#include "report_internal.h"

struct reader {
	const hg_ctx *ctx;
	const char *source;
	const char *text;
	size_t len;
	hg_report_sink sink;
	void *user;
	int failed;
	/* A cursor that turns offsets into line:col moving forward only, so
	 * many errors in one big input stay linear. */
	size_t cur_off, cur_line_start;
	long cur_line;
};

static void locate(struct reader *r, size_t off, long *line, long *col)
{
	if (off < r->cur_off) {
		r->cur_off = r->cur_line_start = 0;
		r->cur_line = 1;
	}
	for (; r->cur_off < off && r->cur_off < r->len; r->cur_off++)
		if (r->text[r->cur_off] == '\n') {
			r->cur_line++;
			r->cur_line_start = r->cur_off + 1;
		}
	*line = r->cur_line;
	*col = (long)(off - r->cur_line_start) + 1;
}

/* Hands a report to the sink; returns the sink's verdict. */
static int deliver(struct reader *r, hg_report *rep)
{
	return r->sink(r->user, rep);
}

/* Records a failed report: diagnostic plus an error report for the sink.
 * offset is absolute in r->text, or NO_OFFSET. */
static int fail_report(struct reader *r, long number, long rep_line, size_t offset,
		       const char *msg)
{
	long line = rep_line, col = 0;
	if (offset != NO_OFFSET)
		locate(r, offset, &line, &col);
	hg_diagf(r->ctx, HG_DIAG_ERROR, r->source, line, col, number, "%s", msg);
	r->failed++;
	hg_report *rep = report_new(r->source, rep_line, number);
	if (!rep || !(rep->error = hg_arena_strdup(rep->arena, msg))) {
		hg_report_destroy(rep);
		return HG_ENOMEM;
	}
	return deliver(r, rep);
}

/* One report object of a parsed document; base is the document's offset. */
static int one_report(struct reader *r, const hg_json_doc *doc, const hg_json *obj, size_t base,
		      long number, long line)
{
	hg_report *rep = report_new(r->source, line, number);
	if (!rep)
		return HG_ENOMEM;
	struct read_error err;
	int rc = report_from_json(r->ctx, doc, obj, rep, &err);
	if (rc == HG_ENOMEM) {
		hg_report_destroy(rep);
		return rc;
	}
	if (rc != 0) {
		hg_report_destroy(rep);
		return fail_report(r, number, line, err.offset == NO_OFFSET ? NO_OFFSET : base + err.offset,
				   err.msg);
	}
	return deliver(r, rep);
}

static size_t skip_space(const char *s, size_t i, size_t len)
{
	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	return i;
}

static int syntax_error(struct reader *r, long number, long line, size_t at, const char *what)
{
	char msg[256];
	char near[24] = "";
	size_t n = 0;
	for (size_t i = at; i < r->len && n < 16 && r->text[i] != '\n'; i++)
		near[n++] = (r->text[i] >= 0x20 && r->text[i] < 0x7f) ? r->text[i] : '?';
	near[n] = '\0';
	while (n > 0 && near[n - 1] == ' ')
		near[--n] = '\0';
	if (near[0])
		snprintf(msg, sizeof msg, "%s near '%s'", what, near);
	else if (skip_space(r->text, at, r->len) == r->len)
		snprintf(msg, sizeof msg, "%s at the end of the input (truncated?)", what);
	else
		snprintf(msg, sizeof msg, "%s at the end of the line (truncated?)", what);
	return fail_report(r, number, line, at, msg);
}

/* Reports in NDJSON lines from offset p on; line is p's line number. */
static int read_lines(struct reader *r, size_t p, long line, long number)
{
	int rc = 0;
	while (p < r->len && rc == 0) {
		const char *nl = memchr(r->text + p, '\n', r->len - p);
		size_t eol = nl ? (size_t)(nl - r->text) : r->len;
		size_t s = skip_space(r->text, p, eol);
		if (s < eol) {
			number++;
			hg_json_doc *doc = NULL;
			size_t end = 0;
			rc = hg_json_parse_hot(r->text + s, eol - s, "buffer", &doc, &end);
			if (rc == HG_ENOMEM)
				return rc;
			if (rc == HG_ELIMIT) {
				rc = fail_report(r, number, line, NO_OFFSET, "the line is too large for "
						 "the JSON reader (2 GiB)");
			} else if (rc != 0) {
				rc = syntax_error(r, number, line, s + end, "invalid JSON");
			} else {
				size_t after = skip_space(r->text, s + end, eol);
				if (after < eol)
					rc = syntax_error(r, number, line, after,
							  "unexpected text after the report");
				else
					rc = one_report(r, doc, hg_json_root(doc), s, number, line);
				hg_json_doc_destroy(doc);
			}
		}
		p = eol + 1;
		line++;
	}
	return rc;
}

/* Whether the line after the one holding offset off starts with '{'. */
static bool next_line_is_object(struct reader *r, size_t off)
{
	const char *nl = memchr(r->text + off, '\n', r->len - off);
	if (!nl)
		return false;
	size_t next = skip_space(r->text, (size_t)(nl - r->text) + 1, r->len);
	return next < r->len && r->text[next] == '{';
}

/* The input starts with a value at `start`: one report (an object, possibly
 * pretty-printed), a JSON array of reports, or NDJSON: one object per line,
 * recognised by a second line that starts another object.  A broken first
 * line then spoils only itself. */
static int read_input(struct reader *r, size_t start)
{
	long line, col;
	locate(r, start, &line, &col);
	bool object = r->text[start] == '{';
	hg_json_doc *doc = NULL;
	size_t end = 0;
	int rc = hg_json_parse_hot(r->text + start, r->len - start, "buffer", &doc, &end);
	if (rc == HG_ENOMEM)
		return rc;
	if (rc == HG_ELIMIT)
		return fail_report(r, 1, line, NO_OFFSET, "the input is too large for the JSON reader "
				   "(2 GiB); split it into NDJSON lines");
	if (rc != 0) {
		if (object && next_line_is_object(r, start))
			return read_lines(r, start, line, 0);
		return syntax_error(r, 1, line, start + end, "invalid JSON");
	}
	end += start;
	size_t after = skip_space(r->text, end, r->len);
	const hg_json *root = hg_json_root(doc);
	/* One line followed by more lines of objects: NDJSON, read per line
	 * (the first line again, so that text after its value is its error). */
	if (object && after < r->len && hg_json_first_newline(doc) >= end - start &&
	    next_line_is_object(r, end)) {
		hg_json_doc_destroy(doc);
		return read_lines(r, start, line, 0);
	}
	if (hg_json_type(root) == HG_JSON_ARRAY) {
		long number = 0;
		for (const hg_json *e = hg_json_first(root); e && rc == 0; e = hg_json_next(e))
			rc = one_report(r, doc, e, start, ++number, 0);
		if (rc == 0 && number == 0)
			rc = fail_report(r, 1, line, start, "the array holds no report");
		hg_json_doc_destroy(doc);
		if (rc == 0 && after < r->len)
			rc = syntax_error(r, number + 1, 0, after, "unexpected text after the array");
		return rc;
	}
	rc = one_report(r, doc, root, start, 1, line);
	hg_json_doc_destroy(doc);
	if (rc != 0 || after == r->len)
		return rc;
	return syntax_error(r, 2, 0, after, "unexpected text after the report (NDJSON needs one "
			    "report per line)");
}

int hg_reports_read(const hg_ctx *ctx, const char *source, const char *data, size_t len,
		    hg_report_sink sink, void *user)
{
	struct reader r = {ctx, source, data, len, sink, user, 0, 0, 0, 1};
	size_t start = 0;
	if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
		start = 3; /* a UTF-8 byte order mark */
	start = skip_space(data, start, len);
	int rc;
	if (start == len)
		rc = fail_report(&r, 1, 0, NO_OFFSET, "no report in the input (it is empty)");
	else if (data[start] == '[' || data[start] == '{')
		rc = read_input(&r, start);
	else
		rc = syntax_error(&r, 1, 1, start, "expected a JSON report (an object, an array of "
				  "objects, or one object per line)");
	return rc < 0 || rc > 0 ? rc : r.failed;
}

int hg_reports_read_raw(const hg_ctx *ctx, const char *source, const unsigned char *data,
			size_t len, const hg_raw_opts *opts, hg_report_sink sink, void *user)
{
	struct reader r = {ctx, source, (const char *)data, len, sink, user, 0, 0, 0, 1};
	hg_report *rep = report_new(source, 0, 1);
	if (!rep)
		return HG_ENOMEM;
	int64_t *words = NULL;
	size_t n = 0;
	const char *why = "";
	int rc = hg_beat_from_binary(data, len, ctx->limits.max_buffer_words, rep->arena, &words, &n,
				     &why);
	if (rc == HG_EPARSE || rc == HG_ELIMIT) {
		hg_report_destroy(rep);
		char msg[160];
		snprintf(msg, sizeof msg, "raw buffer of %zu bytes: %s", len, why);
		rc = fail_report(&r, 1, 0, NO_OFFSET, msg);
		return rc < 0 || rc > 0 ? rc : r.failed;
	}
	rep->cost = opts->cost;
	rep->kind = HG_KIND_SLOW_METHOD;
	if (rc == 0)
		rc = report_analyse_buffer(rep, words, n, opts->strict, opts->has_end_time, opts->end_time);
	if (rc != 0) {
		hg_report_destroy(rep);
		return rc;
	}
	rc = deliver(&r, rep);
	return rc < 0 || rc > 0 ? rc : r.failed;
}
