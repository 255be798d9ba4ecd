/* What report_read.c (JSON values, the entry points) and report_read_text.c
 * (text formats, Matrix's logcat lines, bare stacks) share: the reader
 * of one input and the steps both take. */
#ifndef HANGAR_REPORT_READ_INTERNAL_H
#define HANGAR_REPORT_READ_INTERNAL_H

#include "report_bare_stack.h"
#include "report_internal.h"
#include "report_kscrash_lenient.h"

/* Matrix's AppMethodBeat words are read straight into integers, and a
 * KSCrash backtrace's frames one at a time (json.h): the two arrays that
 * grow to a million values. */
#define HOT_KEY "buffer"
#define LAZY_KEY "contents"

struct reader {
	const hg_ctx *ctx;
	const char *source;
	const char *text;
	size_t len;
	hg_report_sink sink;
	void *user;
	enum hg_input_format format; /* AUTO: per JSON object */
	int failed;
	const char *span;            /* with keep_text: the text of the report at hand */
	size_t span_len;
	/* A cursor that turns offsets into line:col moving forward only, so
	 * many errors in one big input stay linear. */
	size_t cur_off, cur_line_start;
	long cur_line;
	/* Reading a stream in parts (report_read_json_part): where this part
	 * starts (line, column of its first byte), the reports before it,
	 * whether more text follows, and where reading stopped for want of it. */
	long line_base, col_base, number_base;
	bool more;
	size_t stopped_at;
	bool after_value, after_array; /* see struct report_part */
	struct report_array array; /* see report_internal.h */
	hg_demangler *names;       /* memo of demangled frame names; NULL until needed */
	struct kscrash_lenient lenient; /* the value at hand, parsed again without its
				      trailing commas: the copy its document borrows */
};

/* Line and column of offset (moving forward only: see cur_off). */
void read_locate(struct reader *r, size_t off, long *line, long *col);
/* Hands rep to the sink (with its text when kept); 0 or the sink's error. */
int read_deliver(struct reader *r, hg_report *rep);
/* The text of the report at hand: text[start..end). */
void read_set_span(struct reader *r, size_t start, size_t end, bool in_array);
/* A report that failed, handed on with its error (report_read.c). */
int read_fail_at(struct reader *r, long number, long rep_line, long line, long col,
		 const char *msg);
int read_fail(struct reader *r, long number, long rep_line, size_t offset, const char *msg);
/* One JSON object as a report of r's format. */
int read_one_report(struct reader *r, const hg_json_doc *doc, const hg_json *obj, size_t base,
		    long number, long line);
int read_syntax_error(struct reader *r, long number, long line, size_t at, const char *what);

/* report_read_text.c */
int reader_read_logcat(struct reader *r);
int reader_read_text(struct reader *r, size_t start, const struct report_text_format *tf);
int reader_bare_deliver(void *user, const struct bare_out *o);

#endif
