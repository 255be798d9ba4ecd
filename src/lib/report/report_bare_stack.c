/* Bare structured stacks and Matrix's printed stack blocks, one report per
 * block (--input-format stack).  The lines are told apart in
 * report_bare_lines.c, which quotes the Matrix code followed.  A block is:
 *
 *   bare     "depth,id,count,cost" lines (the `stack` field as text) or
 *            print()'s dotted lines, with a "StackKey: 96|" line right before
 *            or right after them; a blank or any other line ends it;
 *   printed  printEvil / printAnr (or AnrTracer's) from the ">>>" header, or
 *            from its StackKey / TraceStack line when the header was not
 *            pasted, to the "=====" line, or to the first line that is not
 *            Matrix's once the items began (logcat cuts a message at about
 *            4 KB, so the end may be missing);
 *   old      Matrix 0.5's "[analyse result]" and its dotted lines, and the
 *            "[analyse key]" that follows them.
 *
 * The stack is then read as report_matrix.c reads a structured `stack`:
 * kept as it is (the device trimmed it), the cost is the block's, the
 * StackKey computed and compared with the printed one. */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hangar/text.h"
#include "report_bare_stack.h"
#include "report_lines.h"
#include "report_time.h"

enum form { F_BARE, F_PRINTED, F_OLD };

struct block {
	bool open;
	enum form form;
	bool in_trace;   /* printed: the items have begun to be expected */
	bool key_after;  /* bare: the key came after the items */
	bool key_cont;   /* old: the key's lines go on */
	bool footer;     /* printed: closed by its "=====" line */
	bool unframed;   /* printed without a frame: StartupTracer's "stackKey:%s \n" + trace */
	bool beat_closed;/* printed: "AppMethodBeat is close[...]" instead of a stack */
	size_t start, end, prev_end; /* prev_end: before the line at hand */
	long line;
	enum hg_report_kind kind;
	const char *detail;
	bool has_cost;
	int64_t cost;
	const char *scene;
	size_t scene_len;
	int foreground;
	bool has_key;
	hg_buf key, frames;
	const char *prefix; /* the first line's logcat prefix */
	size_t prefix_len, stamp_len;
	hg_method_item *items;
	size_t n, cap;
	size_t seen;        /* item lines, read or not */
	long jump_line;     /* the first depth jump */
	int32_t jump_from, jump_to;
	size_t jumps;
	bool failed;
	long err_line, err_col;
	char msg[256];
};

struct reader {
	const hg_ctx *ctx;
	const char *source, *text;
	size_t len;
	bare_emit_fn emit;
	void *user;
	long number;
	struct block b;
	/* The line before, when it was only a logcat prefix (and a "-"): the
	 * first line of a message whose next lines Android Studio shows
	 * without one. */
	const char *prev_prefix;
	size_t prev_prefix_len, prev_stamp_len;
};

static void open_block(struct reader *r, enum form form, const struct bare_msg *m, size_t start)
{
	struct block *b = &r->b;
	hg_buf key = b->key, frames = b->frames;
	hg_method_item *items = b->items;
	size_t cap = b->cap;
	hg_buf_reset(&key);
	hg_buf_reset(&frames);
	*b = (struct block){.open = true, .form = form, .start = start, .end = start + m->raw_len,
			    .line = m->no, .kind = HG_KIND_SLOW_METHOD, .foreground = -1, .key = key,
			    .frames = frames, .items = items, .cap = cap, .prefix = m->prefix,
			    .prefix_len = m->prefix_len, .stamp_len = m->stamp_len};
	if (!m->prefix) {
		b->prefix = r->prev_prefix;
		b->prefix_len = r->prev_prefix_len;
		b->stamp_len = r->prev_stamp_len;
	}
}

static void fail(struct block *b, long line, long col, const char *fmt, const char *a, const char *q)
{
	if (b->failed)
		return; /* the first error is the one to fix */
	b->failed = true;
	b->err_line = line;
	b->err_col = col;
	snprintf(b->msg, sizeof b->msg, fmt, a, q);
}

static void set_key(struct block *b, const char *s, size_t n, bool newline)
{
	b->has_key = true;
	hg_buf_add(&b->key, s, n);
	if (newline) /* Matrix 0.5 wrote each id of the key on a line of its own */
		hg_buf_putc(&b->key, '\n');
}

static int add_item(struct reader *r, const struct bare_msg *m)
{
	struct block *b = &r->b;
	b->seen++;
	if (b->failed)
		return 0;
	char q[72];
	if (b->n >= r->ctx->limits.max_stack_lines) {
		quote_text(q, sizeof q, m->val, m->val_len);
		char lim[40];
		snprintf(lim, sizeof lim, "%zu", r->ctx->limits.max_stack_lines);
		fail(b, m->no, 1, "more than %s stack lines in one stack (see --max-stack-lines) at \"%s\"",
		     lim, q);
		return 0;
	}
	hg_method_item it;
	const char *why = "";
	long col = 1;
	if (bare_parse_item(m, &it, &why, &col) != 0) {
		quote_text(q, sizeof q, m->val, m->val_len);
		fail(b, m->no, col, "%s in \"%s\"", why, q);
		return 0;
	}
	int64_t prev = b->n ? b->items[b->n - 1].depth : -1; /* + 1 past INT32_MAX */
	if (it.depth > prev + 1 && b->jumps++ == 0) {
		b->jump_line = m->no;
		b->jump_from = (int32_t)prev;
		b->jump_to = it.depth;
	}
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		hg_method_item *p = realloc(b->items, cap * sizeof *p);
		if (!p)
			return HG_ENOMEM;
		b->items = p;
		b->cap = cap;
	}
	it.origin = (uint32_t)b->n;
	b->items[b->n++] = it;
	return 0;
}

/* Ends the block with the line at hand (taken) or before it. */
static int close_block(struct reader *r, bool taken);

/* Lines a printed block may hold before its items that are not Matrix's
 * "|*" lines: the "-" its message starts with, "AppMethodBeat is close",
 * the main thread's frames of printAnr's [Thread] section. */
static bool printed_aside(const struct bare_msg *m)
{
	return (m->len == 1 && m->s[0] == '-') || m->kind == BL_FRAME || m->kind == BL_BLANK ||
	       (m->len > 22 && memcmp(m->s, "AppMethodBeat is close", 22) == 0);
}

static int feed_printed(struct reader *r, const struct bare_msg *m, bool *taken)
{
	struct block *b = &r->b;
	bool matrix = m->s[0] == '|';
	*taken = true;
	switch (m->kind) {
	case BL_FOOTER:
		b->footer = true;
		return close_block(r, true);
	case BL_KEY:
		if (!b->has_key)
			set_key(b, m->val, m->val_len, false);
		return 0;
	case BL_TRACE: b->in_trace = true; return 0;
	case BL_SCENE:
		if (!b->scene)
			b->scene = m->val, b->scene_len = m->val_len;
		return 0;
	case BL_FOREGROUND:
		b->foreground = m->val_len == 4 && memcmp(m->val, "true", 4) == 0 ? 1
				: m->val_len == 5 && memcmp(m->val, "false", 5) == 0 ? 0 : -1;
		return 0;
	case BL_ITEM:
		if (b->in_trace)
			return add_item(r, m);
		break;
	case BL_FIELD: return 0;
	default: break;
	}
	if (matrix && m->kind != BL_FRAME)
		return 0;
	if (b->seen == 0 && printed_aside(m)) {
		b->beat_closed |= m->kind == BL_OTHER && m->len > 1;
		if (m->kind == BL_FRAME) {
			hg_buf_add(&b->frames, m->val, m->val_len);
			hg_buf_putc(&b->frames, '\n');
		}
		return 0;
	}
	*taken = false;
	return close_block(r, false);
}

static int feed_bare(struct reader *r, const struct bare_msg *m, bool *taken)
{
	struct block *b = &r->b;
	*taken = true;
	if (m->kind == BL_ITEM && !b->key_after)
		return add_item(r, m);
	if (m->kind == BL_KEY && m->s[0] != '|' && !b->has_key) {
		set_key(b, m->val, m->val_len, false);
		b->key_after = b->seen > 0;
		return 0;
	}
	if (m->kind == BL_BLANK && b->seen == 0)
		return 0; /* between a key and its items */
	if (m->kind == BL_TRACE && b->seen == 0 && b->has_key) {
		/* StartupTracer logs "stackKey:%s \n" and the trace lines alone */
		b->form = F_PRINTED;
		b->in_trace = b->unframed = true;
		return 0;
	}
	*taken = m->kind == BL_BLANK;
	return close_block(r, *taken);
}

static int feed_old(struct reader *r, const struct bare_msg *m, bool *taken)
{
	struct block *b = &r->b;
	*taken = true;
	if (m->kind == BL_ITEM && !b->has_key)
		return add_item(r, m);
	if (m->kind == BL_OLD_KEY && !b->has_key) {
		set_key(b, m->val, m->val_len, m->val_len > 0);
		b->key_cont = true;
		return 0;
	}
	if (m->kind == BL_NUMBER && b->key_cont) {
		set_key(b, m->val, m->val_len, true);
		return 0;
	}
	if (m->kind == BL_BLANK)
		return 0;
	*taken = false;
	return close_block(r, false);
}

/* A line outside any block: whether it opens one. */
static int start_block(struct reader *r, const struct bare_msg *m, size_t start)
{
	struct block *b = &r->b;
	switch (m->kind) {
	case BL_HEADER:
		open_block(r, F_PRINTED, m, start);
		b->kind = m->header_kind;
		b->detail = m->header_kind == HG_KIND_ANR ? "ANR" : "NORMAL";
		b->has_cost = m->header_cost;
		b->cost = m->cost;
		return 0;
	case BL_OLD_HEADER:
		open_block(r, F_OLD, m, start);
		return 0;
	case BL_TRACE:
		open_block(r, F_PRINTED, m, start);
		b->in_trace = true;
		return 0;
	case BL_KEY:
		open_block(r, m->s[0] == '|' ? F_PRINTED : F_BARE, m, start);
		set_key(b, m->val, m->val_len, false);
		return 0;
	case BL_ITEM: {
		/* Only a whole item starts a stack: a line of another log that
		 * happens to hold "3,2" is no stack gone wrong. */
		size_t commas = 0;
		for (size_t i = 0; i < m->val_len; i++)
			commas += m->val[i] == ',';
		if (commas != 0 && commas != 3)
			return 0;
		open_block(r, F_BARE, m, start);
		return add_item(r, m);
	}
	default:
		return 0;
	}
}

/* The report's time and process from the block's first logcat prefix:
 * "2019-05-20 16:55:35.395 20185-20206/com.example W/Tag: " (Android
 * Studio) names both; "11-29 10:32:13.403  1234  1234 W Tag: " a time
 * without its year, placed as BlockCanary's are. */
static int prefix_fields(const struct reader *r, const struct block *b, hg_report *rep)
{
	if (!b->prefix || !b->stamp_len)
		return 0;
	const char *p = b->prefix, *end = b->prefix + b->prefix_len;
	const char *q = p + b->stamp_len;
	while (q < end && *q == ' ')
		q++;
	const char *slash = q;
	while (slash < end && (is_digit(*slash) || *slash == '-'))
		slash++;
	if (slash > q && slash < end && *slash == '/' && slash[1] != '?' && slash[1] != ' ') {
		const char *e = slash + 1;
		while (e < end && *e != ' ')
			e++;
		if (!(rep->process = hg_arena_strndup(rep->arena, slash + 1, (size_t)(e - slash - 1))))
			return HG_ENOMEM;
	}
	if (b->stamp_len > 18) { /* with its year: read as any other time */
		rep->time = hg_arena_strndup(rep->arena, p, b->stamp_len);
		return rep->time ? 0 : HG_ENOMEM;
	}
	int64_t ref = r->ctx->file_time_ms;
	if (ref == 0) {
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		ref = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
	}
	char out[REPORT_TIME_SIZE];
	const char *why = "";
	rep->time_written = hg_arena_strndup(rep->arena, p, b->stamp_len);
	if (!rep->time_written)
		return HG_ENOMEM;
	if (report_time_yearless(p, b->stamp_len, ref, out, &why) != 0)
		return hg_strlist_addf(&rep->warnings, rep->arena, "time \"%s\" cannot be read (%s): "
				       "the report's time is unknown", rep->time_written, why);
	rep->time = hg_arena_strdup(rep->arena, out);
	return rep->time ? 0 : HG_ENOMEM;
}

/* The printed StackKey against the one the stack gives, as report_matrix.c
 * compares a JSON report's. */
static int check_key(const struct block *b, hg_report *rep)
{
	if (!b->has_key)
		return 0;
	rep->has_device_key = true;
	if (!(rep->device_key = hg_arena_strndup(rep->arena, b->key.data ? b->key.data : "", b->key.len)))
		return HG_ENOMEM;
	const char *mine = hg_report_stack_key_text(rep);
	if (!hg_stack_key_same(mine, rep->device_key))
		return hg_strlist_addf(&rep->warnings, rep->arena,
				       "the device sent stackKey \"%s\" but the stack gives \"%s\"",
				       rep->device_key, mine);
	return 0;
}

static int warn_shape(const struct block *b, hg_report *rep)
{
	int rc = 0;
	if (b->jumps) { /* in the words of hg_stack_parse_checked's warning */
		char what[96], more[64] = "";
		if (b->jump_from < 0)
			snprintf(what, sizeof what, "the stack begins at depth %d, not 0", b->jump_to);
		else
			snprintf(what, sizeof what, "the depth goes from %d to %d", b->jump_from,
				 b->jump_to);
		if (b->jumps > 1)
			snprintf(more, sizeof more, ", the first of %zu such jumps", b->jumps);
		rc = hg_strlist_addf(&rep->warnings, rep->arena, "line %ld: %s%s; the stack is used "
				     "as written, as Matrix's is (each item under the nearest "
				     "shallower one)", b->jump_line, what, more);
	}
	if (rc == 0 && b->form == F_PRINTED && !b->footer && !b->unframed)
		rc = hg_strlist_addf(&rep->warnings, rep->arena,
				     "the Matrix block of line %ld has no closing \"=====\" line: it may "
				     "have been cut (logcat keeps about 4 KB of one message)", b->line);
	return rc;
}

static int fill_report(const struct reader *r, const struct block *b, hg_report *rep)
{
	rep->format = HG_FORMAT_STACK;
	rep->platform = "android";
	rep->kind = b->kind;
	rep->detail = b->form == F_PRINTED ? b->detail : NULL;
	if (b->prefix && memmem(b->prefix, b->prefix_len, "Matrix.StartupTracer", 20)) {
		rep->kind = HG_KIND_STARTUP; /* what its JSON report's detail says */
		rep->detail = "STARTUP";
	}
	rep->foreground = b->foreground;
	rep->cost = b->has_cost ? b->cost : 0;
	if (b->scene && !(rep->scene = hg_arena_strndup(rep->arena, b->scene, b->scene_len)))
		return HG_ENOMEM;
	if (!(rep->full.items = hg_arena_calloc(rep->arena, b->n, sizeof *rep->full.items)))
		return HG_ENOMEM;
	memcpy(rep->full.items, b->items, b->n * sizeof *b->items);
	rep->full.len = b->n;
	report_analyse_structured(rep);
	int rc = check_key(b, rep);
	if (rc == 0)
		rc = warn_shape(b, rep);
	if (rc == 0 && b->frames.len) {
		/* printAnr's [Thread] section: the JSON report's threadStack */
		struct read_error err;
		rc = report_thread_from_frames(rep, "main", b->frames.data, b->frames.len, &err);
		if (rc == HG_EPARSE)
			rc = hg_strlist_addf(&rep->warnings, rep->arena, "the main thread's frames "
					     "cannot be read: %s", err.msg);
	}
	return rc != 0 ? rc : prefix_fields(r, b, rep);
}

static int close_block(struct reader *r, bool taken)
{
	struct block *b = &r->b;
	b->open = false;
	if (!taken)
		b->end = b->prev_end;
	struct bare_out out = {.start = b->start, .end = b->end, .number = ++r->number,
			       .line = b->line, .err_line = b->err_line, .err_col = b->err_col,
			       .msg = b->msg};
	if (!b->failed && b->n == 0) {
		out.err_line = b->line;
		out.err_col = 0;
		out.msg = b->form != F_PRINTED ? "a StackKey line without the stack it belongs to"
			  : b->beat_closed ? "the Matrix block has no stack: Matrix printed "
					     "\"AppMethodBeat is close\" instead (AppMethodBeat was not running)"
					   : "the Matrix block has no stack (no \"id count cost\" line)";
	}
	if (b->failed || b->n == 0)
		return r->emit(r->user, &out);
	if (!(out.rep = report_new(r->source, b->line, out.number)))
		return HG_ENOMEM;
	int rc = fill_report(r, b, out.rep);
	if (rc != 0) {
		hg_report_destroy(out.rep);
		return rc;
	}
	return r->emit(r->user, &out);
}

int report_read_bare_stacks(const hg_ctx *ctx, const char *source, const char *text, size_t len,
			    bare_emit_fn emit, void *user)
{
	struct reader r = {.ctx = ctx, .source = source, .text = text, .len = len, .emit = emit,
			   .user = user};
	hg_buf_init(&r.b.key);
	hg_buf_init(&r.b.frames);
	struct bare_msg m = {0};
	size_t pos = 0;
	int rc = 0;
	while (rc == 0) {
		size_t at = pos;
		bool trace = r.b.open && (r.b.in_trace || r.b.form == F_OLD);
		if (!bare_next_line(text, len, &pos, trace, &m))
			break;
		bool taken = false;
		if (r.b.open) {
			r.b.prev_end = r.b.end;
			r.b.end = pos;
			rc = (r.b.form == F_PRINTED ? feed_printed
			      : r.b.form == F_BARE  ? feed_bare
						    : feed_old)(&r, &m, &taken);
			if (taken) {
				r.prev_prefix = NULL;
				continue;
			}
		}
		if (rc == 0 && !taken) {
			if (trace) { /* read it again as a line outside any block */
				pos = at;
				m.no--;
				bare_next_line(text, len, &pos, false, &m);
			}
			rc = start_block(&r, &m, at);
		}
		bool lead = m.prefix && (m.len == 0 || (m.len == 1 && m.s[0] == '-'));
		r.prev_prefix = lead ? m.prefix : NULL;
		r.prev_prefix_len = lead ? m.prefix_len : 0;
		r.prev_stamp_len = lead ? m.stamp_len : 0;
	}
	if (rc == 0 && r.b.open)
		rc = close_block(&r, true);
	if (rc == 0 && r.number == 0) {
		struct bare_out out = {.start = 0, .end = len, .number = 1, .line = 1, .err_line = 1,
				       .msg = "no stack in the input: expected depth,id,count,cost lines "
					      "or a block Matrix printed (\"|* [id count cost]\" and its lines)"};
		rc = emit(user, &out);
	}
	free(r.b.items);
	hg_buf_release(&r.b.key);
	hg_buf_release(&r.b.frames);
	return rc;
}
