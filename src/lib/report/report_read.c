/* Splitting one input into reports: a sequence of JSON values, each a
 * report or an array of reports (so one report, a JSON array, NDJSON and
 * `jq .` output all read alike); and the bare binary buffer.
 * A report that fails is still handed on, with its error, so that every
 * input is accounted for.  Text formats: report_read_text.c. */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/beat.h"
#include "report_read_internal.h"

#define MAX_VALUE ((size_t)INT32_MAX) /* the most the JSON reader takes at once */

/* What may come next in an open array (report_array.next). */
enum array_next { ELEMENT_OR_CLOSE, ELEMENT, COMMA_OR_CLOSE };

void read_locate(struct reader *r, size_t off, long *line, long *col)
{
	if (off < r->cur_off) {
		r->cur_off = r->cur_line_start = 0;
		r->cur_line = r->line_base;
	}
	if (off > r->len)
		off = r->len;
	while (r->cur_off < off) {
		const char *nl = memchr(r->text + r->cur_off, '\n', off - r->cur_off);
		if (!nl) {
			r->cur_off = off;
			break;
		}
		r->cur_line++;
		r->cur_off = r->cur_line_start = (size_t)(nl - r->text) + 1;
	}
	*line = r->cur_line;
	*col = (long)(off - r->cur_line_start) + 1 +
	       (r->cur_line == r->line_base ? r->col_base - 1 : 0);
}

/* Hands a report to the sink; returns the sink's verdict.  With keep_text
 * the report gets its text (the span at hand, unless it has one). */
int read_deliver(struct reader *r, hg_report *rep)
{
	if (r->ctx->keep_text && !rep->text && r->span) {
		char *t = hg_arena_alloc(rep->arena, r->span_len + 1);
		if (!t) {
			hg_report_destroy(rep);
			return HG_ENOMEM;
		}
		memcpy(t, r->span, r->span_len);
		rep->text = t;
		rep->text_len = r->span_len;
	}
	r->span = NULL;
	/* A cost of 0 or less is one no reader found (an ANR trace without
	 * its wait, a thread dump, a lag without a duration): unknown, so
	 * that every output says null or "—" and the store leaves it out of
	 * the cost percentiles, never 0.  Decided here, once, for every
	 * reader. */
	if (!rep->error && rep->cost <= 0)
		rep->cost_unknown = true;
	int rc = report_settle_time(rep);
	if (rc == 0 && !rep->error)
		rc = report_demangle_frames(rep, &r->names);
	if (rc != 0) {
		hg_report_destroy(rep);
		return rc;
	}
	/* A time that cannot be read is also said where ingest shows it (it
	 * prints no report warnings): the warning the reader left. */
	for (size_t i = 0; !rep->time && rep->time_written && i < rep->warnings.len; i++)
		if (strncmp(rep->warnings.items[i], "time \"", 6) == 0) {
			hg_diagf(r->ctx, HG_DIAG_WARNING, r->source, rep->line, 0, rep->number, "%s",
				 rep->warnings.items[i]);
			break;
		}
	return r->sink(r->user, rep);
}

/* The bytes of a value that ends before `end`: [start, end) without the
 * blanks, comma or closing bracket that follow it (an array element's own
 * text, or a whole value's). */
void read_set_span(struct reader *r, size_t start, size_t end, bool in_array)
{
	while (end > start && (unsigned char)r->text[end - 1] <= 0x20)
		end--;
	if (in_array && end > start && (r->text[end - 1] == ',' || r->text[end - 1] == ']')) {
		end--;
		while (end > start && (unsigned char)r->text[end - 1] <= 0x20)
			end--;
	}
	r->span = r->text + start;
	r->span_len = end - start;
}

/* Records a failed report: diagnostic plus an error report for the sink.
 * offset is absolute in r->text, or NO_OFFSET. */
int read_fail_at(struct reader *r, long number, long rep_line, long line, long col,
			  const char *msg)
{
	hg_diagf(r->ctx, HG_DIAG_ERROR, r->source, line, col, number, "%s", msg);
	r->failed++;
	hg_report *rep = report_new(r->source, rep_line, number);
	if (!rep || !(rep->error = hg_arena_strdup(rep->arena, msg))) {
		hg_report_destroy(rep);
		return HG_ENOMEM;
	}
	return read_deliver(r, rep);
}

int read_fail(struct reader *r, long number, long rep_line, size_t offset,
		       const char *msg)
{
	long line = rep_line, col = 0;
	if (offset != NO_OFFSET)
		read_locate(r, offset, &line, &col);
	return read_fail_at(r, number, rep_line, line, col, msg);
}

/* One report object of a parsed document; base is the document's offset.
 * With keep_text, r->span holds its bytes (set_span). */
int read_one_report(struct reader *r, const hg_json_doc *doc, const hg_json *obj, size_t base,
		      long number, long line)
{
	hg_report *rep = report_new_sized(r->source, line, number, r->span_len);
	if (!rep)
		return HG_ENOMEM;
	struct read_error err;
	int rc = report_from_json(r->ctx, doc, obj, r->format, rep, &err);
	if (rc == 0 && r->lenient.copy) {
		long l, c;
		size_t n = r->lenient.commas;
		read_locate(r, base + r->lenient.first, &l, &c);
		if (hg_strlist_addf(&rep->warnings, rep->arena, "trailing commas removed: %zu comma%s "
				    "before '}' or ']' (the first at line %ld, column %ld), which JSON "
				    "forbids and Apple's JSON reader accepts", n, n == 1 ? "" : "s", l, c))
			rc = HG_ENOMEM;
	}
	if (rc == HG_ENOMEM) {
		hg_report_destroy(rep);
		return rc;
	}
	if (rc != 0) {
		hg_report_destroy(rep);
		return read_fail(r, number, line, err.offset == NO_OFFSET ? NO_OFFSET : base + err.offset,
				   err.msg);
	}
	return read_deliver(r, rep);
}

/* Skips what separates values: whitespace as cJSON sees it (any byte up
 * to 0x20) and byte order marks (inputs are often files run together). */
static size_t skip_space(const char *s, size_t i, size_t len)
{
	for (;;) {
		while (i < len && (unsigned char)s[i] <= 0x20)
			i++;
		if (len - i >= 3 && memcmp(s + i, "\xEF\xBB\xBF", 3) == 0)
			i += 3;
		else
			return i;
	}
}

int read_syntax_error(struct reader *r, long number, long line, size_t at, const char *what)
{
	char msg[256];
	char near[24] = "";
	size_t n = 0;
	for (size_t i = at; i < r->len && n < 16 && r->text[i] != '\n' && r->text[i] != '\r'; i++)
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
	return read_fail(r, number, line, at, msg);
}

/* Where to go on after a value that failed to parse: the next line that
 * starts (in its first column) with '{' or '[' after the line the value
 * started on.  Works for NDJSON, where every line is a report, and for
 * concatenated pretty-printed reports, whose inner lines are indented. */
static size_t resume_after(struct reader *r, size_t value_start)
{
	size_t p = value_start;
	for (;;) {
		const char *nl = memchr(r->text + p, '\n', r->len - p);
		if (!nl)
			return r->len;
		p = (size_t)(nl - r->text) + 1;
		if (p < r->len && (r->text[p] == '{' || r->text[p] == '['))
			return p;
	}
}

/* Whether resuming at `next` passes over lines that start (after blanks)
 * with '{' or '[': reports that the user should know were not read. */
static bool skipped_lines(struct reader *r, size_t value_start, size_t next)
{
	const char *p = memchr(r->text + value_start, '\n', next - value_start);
	while (p && (size_t)(p - r->text) + 1 < next) {
		size_t s = (size_t)(p - r->text) + 1;
		while (s < next && (r->text[s] == ' ' || r->text[s] == '\t'))
			s++;
		if (s < next && (r->text[s] == '{' || r->text[s] == '['))
			return true;
		p = memchr(r->text + s, '\n', next - s);
	}
	return false;
}

/* Reading a part stops at pos, to go on there with more text; says
 * whether pos is on the line of the value before it (see report_part). */
static void stop_at(struct reader *r, size_t pos, size_t prev_end, bool prev_array)
{
	r->stopped_at = pos;
	r->after_value = prev_end != SIZE_MAX && !memchr(r->text + prev_end, '\n', pos - prev_end);
	r->after_array = prev_array;
}

/* Where to go on in an array after the broken element at pos (column
 * col): the next line whose first non-blank byte is '{' in the element's
 * own column, as `jq .` prints arrays; a line that starts with ']' ends the
 * array there.  SIZE_MAX when the array is to be left (the element did not
 * start its line, or a line starting a value in column 1 comes first);
 * r->len when the text ends before it is known. */
static size_t resume_in_array(struct reader *r, size_t pos, long col)
{
	size_t indent = (size_t)(col - 1), start = pos - (indent <= pos ? indent : pos);
	if (indent == 0 || indent > pos || (start > 0 && r->text[start - 1] != '\n'))
		return SIZE_MAX;
	for (size_t i = start; i < pos; i++)
		if (r->text[i] != ' ' && r->text[i] != '\t')
			return SIZE_MAX;
	for (size_t p = pos;;) {
		const char *nl = memchr(r->text + p, '\n', r->len - p);
		if (!nl)
			return r->len;
		p = (size_t)(nl - r->text) + 1;
		size_t b = p;
		while (b < r->len && b - p < indent && (r->text[b] == ' ' || r->text[b] == '\t'))
			b++;
		if (b == r->len)
			return r->len;
		if (b - p == indent && r->text[b] == '{')
			return b;
		if (b == p && r->text[b] == ']')
			return b;
		if (b == p && (r->text[b] == '{' || r->text[b] == '['))
			return SIZE_MAX;
	}
}

/* Parses the value at pos (the JSON reader takes at most 2 GiB at once; one
 * report is far smaller, and the text after it is left for later). */
static int parse_at(struct reader *r, size_t pos, hg_json_doc **doc, size_t *end, const char **why)
{
	size_t rest = r->len - pos, len = rest < MAX_VALUE ? rest : MAX_VALUE;
	free(r->lenient.copy); /* its document is gone */
	r->lenient = (struct kscrash_lenient){0};
	int rc = hg_json_parse_keys(r->text + pos, len, HOT_KEY, LAZY_KEY, doc, end, why);
	if (rc == HG_EPARSE) { /* a KSCrash report with trailing commas is read without them */
		int again = kscrash_lenient_parse(r->text + pos, len, *end, r->format, HOT_KEY, LAZY_KEY,
						  doc, end, &r->lenient);
		rc = again == HG_EPARSE ? rc : again;
	}
	return rc;
}

/* Whether a value that failed to parse at pos may only have been cut by
 * the end of this part: then it is read again with more text. */
static bool cut_by_part(struct reader *r, size_t pos, size_t end, size_t next)
{
	return r->more && (pos + end + 1 >= r->len || next == r->len);
}

/* The failed value at pos: one failed report, whose error lies at `at`
 * unless it lies in the next report (this one was cut at the end of its
 * line). */
static int invalid_value(struct reader *r, long number, long line, size_t pos, size_t at,
			 size_t next, const char *why, bool say_skipped)
{
	if (next < r->len && at >= next) {
		at = next - 1;
		while (at > pos && (unsigned char)r->text[at - 1] <= 0x20)
			at--;
	}
	r->span = r->text + pos;
	r->span_len = next - pos;
	char what[192];
	snprintf(what, sizeof what, "invalid JSON%s%s%s", why ? ": " : "", why ? why : "",
		 say_skipped && skipped_lines(r, pos, next) ? " (reading resumes at the next line "
							    "that starts with '{' or '[')" : "");
	return read_syntax_error(r, number, line, at, what);
}

/* One step inside an open top-level array at pos (a non-blank byte): a
 * comma, the closing bracket, or an element, which is one report.  Sets
 * *stop when the part ends before the step can be taken. */
static int array_step(struct reader *r, size_t *pos, long line, long col, long *number,
		      size_t *prev_end, bool *prev_array, bool *stop)
{
	char c = r->text[*pos];
	if (c == ',' && r->array.next == COMMA_OR_CLOSE) {
		r->array.next = ELEMENT;
		++*pos;
		return 0;
	}
	if (c == ']' && r->array.next != ELEMENT) {
		r->array.open = false;
		*prev_end = ++*pos;
		*prev_array = true;
		return r->array.elements ? 0 : read_fail_at(r, ++*number, r->array.line, r->array.line,
							      r->array.col, "the array holds no report");
	}
	if (r->array.next == COMMA_OR_CLOSE || c == ']') {
		/* No comma between two elements, or one before the ']'. */
		size_t next = resume_after(r, *pos);
		if (cut_by_part(r, *pos, 0, next)) {
			*stop = true;
			return 0;
		}
		r->array.open = false;
		int rc = invalid_value(r, ++*number, line, *pos, *pos, next, NULL, true);
		*pos = next;
		*prev_end = SIZE_MAX;
		return rc;
	}
	hg_json_doc *doc = NULL;
	size_t end = 0;
	const char *why = NULL;
	int rc = parse_at(r, *pos, &doc, &end, &why);
	if (rc == HG_ENOMEM)
		return rc;
	if (rc != 0) {
		size_t next = resume_in_array(r, *pos, col);
		bool leave = next == SIZE_MAX;
		if (leave)
			next = resume_after(r, *pos);
		if (cut_by_part(r, *pos, end, next)) {
			*stop = true;
			return 0;
		}
		if (leave || next == r->len)
			r->array.open = false; /* (at the end: the array's end was cut off with it) */
		r->array.elements++;
		r->array.next = next < r->len && r->text[next] == ']' ? COMMA_OR_CLOSE : ELEMENT;
		rc = invalid_value(r, ++*number, line, *pos, *pos + end, next, why, leave);
		*pos = next;
		*prev_end = SIZE_MAX;
		return rc;
	}
	if (r->more && *pos + end >= r->len) {
		/* A number or literal that ends the part may go on in the next. */
		hg_json_doc_destroy(doc);
		*stop = true;
		return 0;
	}
	r->array.elements++;
	r->array.next = COMMA_OR_CLOSE;
	read_set_span(r, *pos, *pos + end, true);
	rc = read_one_report(r, doc, hg_json_root(doc), *pos, ++*number, line);
	hg_json_doc_destroy(doc);
	*pos += end;
	return rc;
}

/* Reading a part stops inside an open array at pos.  When only blanks
 * precede pos on its line, the next part starts at that line's start, so
 * that resume_in_array sees the element's indentation there as here. */
static void array_stop_at(struct reader *r, size_t pos)
{
	size_t back = pos;
	while (back > 0 && (r->text[back - 1] == ' ' || r->text[back - 1] == '\t'))
		back--;
	stop_at(r, back > 0 && r->text[back - 1] == '\n' ? back : pos, SIZE_MAX, false);
}

/* The input is a sequence of JSON values separated by whitespace: one
 * report, a JSON array of reports, NDJSON (one report per line), or reports
 * printed one after another (`jq .` output).  A value that does not parse
 * is one failed report; reading resumes at the next line that starts a
 * value, so one bad report never spoils the rest. */
static int read_values(struct reader *r, size_t pos)
{
	long number = r->number_base;
	int rc = 0;
	/* Where the previous value ended (0: in the part before, on the line
	 * this part starts on). */
	size_t prev_end = r->after_value ? 0 : SIZE_MAX;
	bool prev_array = r->after_array;
	r->stopped_at = r->len;
	r->after_value = r->after_array = false;
	while (rc == 0) {
		pos = skip_space(r->text, pos, r->len);
		if (pos >= r->len) {
			if (r->array.open && r->more) {
				array_stop_at(r, pos);
			} else if (r->array.open) {
				/* The input ends inside the array. */
				r->array.open = false;
				long line, col;
				read_locate(r, pos, &line, &col);
				r->span = NULL;
				rc = read_syntax_error(r, ++number, line, pos, "invalid JSON");
			}
			break;
		}
		if (r->more && r->len - pos < 3) { /* perhaps a byte order mark, cut */
			if (r->array.open)
				array_stop_at(r, pos);
			else
				stop_at(r, pos, prev_end, prev_array);
			break;
		}
		long line, col;
		read_locate(r, pos, &line, &col);
		char c = r->text[pos];
		if (r->array.open) {
			bool stop = false;
			rc = array_step(r, &pos, line, col, &number, &prev_end, &prev_array, &stop);
			if (stop) {
				array_stop_at(r, pos);
				break;
			}
			continue;
		}
		if (c != '{' && c != '[' && r->more && resume_after(r, pos) == r->len) {
			stop_at(r, pos, prev_end, prev_array); /* where to go on lies beyond */
			break;
		}
		if (c == '[') {
			r->array.open = true;
			r->array.next = ELEMENT_OR_CLOSE;
			r->array.elements = 0;
			r->array.line = line;
			r->array.col = col;
			pos++;
			continue;
		}
		if (c != '{') {
			bool same_line = prev_end != SIZE_MAX &&
					 !memchr(r->text + prev_end, '\n', pos - prev_end);
			const char *eol = memchr(r->text + pos, '\n', r->len - pos);
			r->span = r->text + pos;
			r->span_len = eol ? (size_t)(eol - r->span) : r->len - pos;
			rc = read_syntax_error(r, ++number, line, pos, !same_line
					  ? "expected a JSON report (an object, an array of objects, "
					    "or one object per line)"
					  : prev_array ? "unexpected text after the array"
						       : "unexpected text after the report");
			/* Go on at the next value on this line, if any, or at the
			 * next line that starts one. */
			size_t next = pos + 1;
			while (next < r->len && r->text[next] != '\n' && r->text[next] != '{' &&
			       r->text[next] != '[')
				next++;
			pos = next < r->len && r->text[next] != '\n' ? next : resume_after(r, pos);
			prev_end = SIZE_MAX;
			continue;
		}
		hg_json_doc *doc = NULL;
		size_t end = 0, rest = r->len - pos;
		const char *why = NULL;
		rc = parse_at(r, pos, &doc, &end, &why);
		if (rc == HG_ENOMEM)
			return rc;
		if (rc != 0 && rest > MAX_VALUE && pos + end >= pos + MAX_VALUE - 1) {
			rc = read_fail(r, ++number, line, NO_OFFSET, "a report larger than 2 GiB");
			pos = resume_after(r, pos);
			prev_end = SIZE_MAX;
			continue;
		}
		if (rc != 0) {
			size_t next = resume_after(r, pos);
			if (cut_by_part(r, pos, end, next)) {
				stop_at(r, pos, prev_end, prev_array); /* cut: read again with more */
				rc = 0;
				break;
			}
			rc = invalid_value(r, ++number, line, pos, pos + end, next, why, true);
			pos = next;
			prev_end = SIZE_MAX;
			continue;
		}
		prev_array = false;
		read_set_span(r, pos, pos + end, false);
		rc = read_one_report(r, doc, hg_json_root(doc), pos, ++number, line);
		/* A value on one line (NDJSON) has no newline for locate to
		 * count: the next one is looked for from its end, not its start
		 * (a raw report is 10 kB of one line). */
		if (hg_json_first_newline(doc) == SIZE_MAX && r->cur_off >= pos && r->cur_off < pos + end)
			r->cur_off = pos + end;
		hg_json_doc_destroy(doc);
		pos += end;
		prev_end = pos;
	}
	if (rc == 0 && number == 0 && !r->more && !r->array.open)
		rc = read_fail(r, 1, 0, NO_OFFSET, "no report in the input (it is empty)");
	r->number_base = number;
	return rc;
}

int hg_reports_read(const hg_ctx *ctx, const char *source, const char *data, size_t len,
		    hg_report_sink sink, void *user)
{
	return hg_reports_read_as(ctx, source, data, len, HG_FORMAT_AUTO, sink, user);
}

static int read_as(struct reader *r, enum hg_input_format format);

int hg_reports_read_as(const hg_ctx *ctx, const char *source, const char *data, size_t len,
		       enum hg_input_format format, hg_report_sink sink, void *user)
{
	struct reader r = {.ctx = ctx, .source = source, .text = data, .len = len, .sink = sink,
			   .user = user, .format = format, .cur_line = 1, .line_base = 1,
			   .col_base = 1};
	int rc = read_as(&r, format);
	hg_demangler_destroy(r.names);
	free(r.lenient.copy);
	return rc;
}

static int read_as(struct reader *r, enum hg_input_format format)
{
	const char *data = r->text;
	size_t len = r->len;
	size_t start = skip_space(data, 0, len);
	bool json = start < len && (data[start] == '{' || data[start] == '[');
	if (!json && start < len && (format == HG_FORMAT_AUTO || format == HG_FORMAT_MATRIX) &&
	    memmem(data + start, len - start, "content[{", 9)) {
		int rc = reader_read_logcat(r);
		return rc != 0 ? rc : r->failed;
	}
	if (format == HG_FORMAT_AUTO && !json && start < len) {
		format = report_detect_text(data + start, len - start);
		if (format == HG_FORMAT_AUTO) {
			r->span = data + start; /* kept, so that the rejected input keeps its bytes */
			r->span_len = len - start;
			int rc = read_syntax_error(r, 1, 1, start, "not a report hangar knows: expected JSON "
					      "(Matrix, KSCrash, MetricKit), an ANR trace, a BlockCanary "
					      "log, a Java stack dump or a Matrix stack");
			return rc != 0 ? rc : r->failed;
		}
	}
	int rc;
	const struct report_text_format *tf = report_text_format(format);
	if (format == HG_FORMAT_STACK)
		rc = report_read_bare_stacks(r->ctx, r->source, data, len, reader_bare_deliver, r);
	else if (tf && tf->read)
		rc = start < len ? reader_read_text(r, start, tf)
				 : read_fail(r, 1, 0, NO_OFFSET, "no report in the input (it is empty)");
	else
		rc = read_values(r, 0);
	return rc != 0 ? rc : r->failed;
}

int hg_reports_read_raw(const hg_ctx *ctx, const char *source, const unsigned char *data,
			size_t len, const hg_raw_opts *opts, hg_report_sink sink, void *user)
{
	struct reader r = {.ctx = ctx, .source = source, .text = (const char *)data, .len = len,
			   .sink = sink, .user = user, .format = HG_FORMAT_RAW, .cur_line = 1,
			   .line_base = 1, .col_base = 1};
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
		rc = read_fail(&r, 1, 0, NO_OFFSET, msg);
		return rc < 0 || rc > 0 ? rc : r.failed;
	}
	rep->cost = opts->cost;
	rep->kind = HG_KIND_SLOW_METHOD;
	rep->format = HG_FORMAT_RAW;
	r.span = (const char *)data;
	r.span_len = len;
	if (rc == 0)
		rc = report_analyse_buffer(rep, words, n, opts->strict, opts->has_end_time, opts->end_time,
					   ctx->want_times);
	if (rc != 0) {
		hg_report_destroy(rep);
		return rc;
	}
	rc = read_deliver(&r, rep);
	return rc < 0 || rc > 0 ? rc : r.failed;
}

int report_read_json_part(const hg_ctx *ctx, const char *source, const char *data, size_t len,
			  enum hg_input_format format, struct report_part *part, hg_report_sink sink,
			  void *user)
{
	struct reader r = {.ctx = ctx, .source = source, .text = data, .len = len, .sink = sink,
			   .user = user, .format = format, .cur_line = part->line,
			   .line_base = part->line, .col_base = part->col,
			   .number_base = part->reports, .more = part->more,
			   .after_value = part->after_value, .after_array = part->after_array,
			   .array = part->array};
	int rc = read_values(&r, 0);
	hg_demangler_destroy(r.names);
	free(r.lenient.copy);
	part->consumed = r.stopped_at;
	/* where the next part starts: locate has counted the lines up to the
	 * last value already */
	read_locate(&r, r.stopped_at, &part->line, &part->col);
	part->after_value = r.after_value;
	part->after_array = r.after_array;
	part->array = r.array;
	part->reports = r.number_base;
	part->failed += r.failed;
	return rc;
}

int report_part_oversized(const hg_ctx *ctx, const char *source, struct report_part *part,
			  hg_report_sink sink, void *user)
{
	struct reader r = {.ctx = ctx, .source = source, .sink = sink, .user = user};
	char msg[200];
	snprintf(msg, sizeof msg, "a report larger than the %zu-byte limit (see --max-input); "
		 "reading resumes at the next line that starts with '{' or '['",
		 ctx->limits.max_input_bytes);
	int rc = read_fail_at(&r, ++part->reports, part->line, part->line, part->col, msg);
	part->failed += r.failed;
	part->array.open = part->after_value = part->after_array = false;
	return rc;
}

static int keep_first(void *user, hg_report *rep)
{
	hg_report **out = user;
	if (!*out && !rep->error)
		*out = rep;
	else
		hg_report_destroy(rep);
	return 0;
}

int hg_report_read_one(const hg_ctx *ctx, const char *source, const char *data, size_t len,
		       enum hg_input_format format, hg_report **out)
{
	*out = NULL;
	int rc = hg_reports_read_as(ctx, source, data, len, format, keep_first, out);
	if (rc == HG_ENOMEM) {
		hg_report_destroy(*out);
		*out = NULL;
		return rc;
	}
	return 0;
}
