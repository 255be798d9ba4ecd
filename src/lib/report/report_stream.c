/* Reading a report file in parts.  A stream of JSON values (NDJSON, `jq .`
 * output, reports run together) is read a few MiB at a time and each
 * complete value handed on, so that ingesting a 1 GB bucket dump needs the
 * memory of its largest report, not of the file.  From a pipe, a FIFO or a
 * terminal a part ends where the writer paused, so that each report is
 * handed on as it arrives, not when 8 MiB have.  Anything else (one text
 * dump, a logcat capture) is read whole, as hg_input_read does. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/core.h"
#include "report_internal.h"

#define PART_BYTES ((size_t)8 << 20)

struct stream {
	const hg_ctx *ctx;
	const char *path;
	int fd;
	char *buf;
	size_t len, cap;
	bool eof;
	bool paced;  /* a pipe, FIFO or terminal: a part may end where the writer paused */
	size_t want; /* but not before the buffer holds this much (see read_parts) */
	size_t unread; /* a regular file: its bytes not read yet, by its size (see grow) */
};

/* Whether the writer of a paced input has paused: nothing more to read now. */
static bool paused(const struct stream *s)
{
	struct pollfd p = {.fd = s->fd, .events = POLLIN};
	return poll(&p, 1, 0) == 0;
}

/* Fills the buffer up to its capacity (or the end of the input), or, from a
 * paced input, up to where its writer paused. */
static int fill(struct stream *s)
{
	bool got = false; /* a paced input is waited for once, never polled in a loop */
	while (!s->eof && s->len < s->cap) {
		if (got && s->paced && s->len >= s->want && paused(s))
			break;
		ssize_t n = read(s->fd, s->buf + s->len, s->cap - s->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			hg_diagf(s->ctx, HG_DIAG_ERROR, s->path, 0, 0, 0, "read error: %s", strerror(errno));
			return HG_EIO;
		}
		if (n == 0)
			s->eof = true;
		s->len += (size_t)n;
		s->unread -= (size_t)n < s->unread ? (size_t)n : s->unread;
		got = true;
	}
	s->buf[s->len] = '\0';
	return 0;
}

/* Room for twice as much, under the input cap: one value (or a whole
 * non-JSON input) may not be larger than --max-input; from a regular file
 * no more than the rest of it needs.  With huge (a JSON value larger than a
 * part: a million-word buffer) the new buffer is on huge pages
 * (hg_big_grow: a copy, as realloc keeps no alignment and faults what it
 * adds 4 KiB at a time; sized by the file, a value is copied once or
 * twice, not at each doubling).  Else realloc, which moves a big buffer
 * without a copy: a text dump read whole (a copy left the old buffer held
 * by malloc: +10 MB on a 20 MB BlockCanary log). */
static int grow(struct stream *s, bool huge)
{
	if (s->cap >= s->ctx->limits.max_input_bytes) {
		hg_diagf(s->ctx, HG_DIAG_ERROR, s->path, 0, 0, 0,
			 s->len && (s->buf[0] == '{' || s->buf[0] == '[')
				 ? "a report is larger than the %zu-byte limit (see --max-input)"
				 : "input is larger than the %zu-byte limit (see --max-input)",
			 s->ctx->limits.max_input_bytes);
		return HG_ELIMIT;
	}
	size_t cap = s->cap * 2 < s->ctx->limits.max_input_bytes ? s->cap * 2
								 : s->ctx->limits.max_input_bytes;
	/* All of the file from the buffer's first byte, and one more to see
	 * its end; else (the file changed since) doubling. */
	size_t rest = s->len + s->unread;
	if (rest > s->cap && rest < cap - 1)
		cap = rest + 1;
	char *p = huge ? hg_big_grow(s->buf, s->len, cap + 1) : realloc(s->buf, cap + 1);
	if (!p)
		return HG_ENOMEM;
	s->buf = p;
	s->cap = cap;
	return 0;
}

/* Where p's first byte past its leading blanks and byte order marks is:
 * len when there is none (a mark cut short at the end counts as one). */
static size_t first_content(const char *p, size_t len)
{
	size_t i = 0;
	for (;;) {
		while (i < len && (unsigned char)p[i] <= 0x20)
			i++;
		size_t left = len - i < 3 ? len - i : 3;
		if (left == 0 || memcmp(p + i, "\xEF\xBB\xBF", left) != 0)
			return i;
		if (left < 3)
			return len;
		i += 3;
	}
}

static bool starts_json(const char *p, size_t len)
{
	size_t i = first_content(p, len);
	return i < len && (p[i] == '{' || p[i] == '[');
}

/* Line and column just after buf[0..n), from (line, col) at buf[0]. */
static void advance(const char *buf, size_t n, long *line, long *col)
{
	const char *p = buf, *end = buf + n, *nl;
	while ((nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		(*line)++;
		*col = 1;
		p = nl + 1;
	}
	*col += (long)(end - p);
}

/* A value fills the whole buffer at --max-input: it fails as one report,
 * and its bytes are passed over, never held, up to the next line that
 * starts with '{' or '[' (where reading goes on), or the end. */
static int skip_oversized(struct stream *s, struct report_part *part, hg_report_sink sink,
			  void *user)
{
	int rc = report_part_oversized(s->ctx, s->path, part, sink, user);
	if (rc != 0)
		return rc;
	size_t from = 1; /* the value's own first byte is no new start */
	for (;;) {
		for (size_t i = from; i < s->len; i++) {
			if ((s->buf[i] == '{' || s->buf[i] == '[') && s->buf[i - 1] == '\n') {
				advance(s->buf, i, &part->line, &part->col);
				memmove(s->buf, s->buf + i, s->len - i);
				s->len -= i;
				return fill(s);
			}
		}
		if (s->eof) {
			s->len = 0;
			return 0;
		}
		/* Keep the last byte: a line break there may precede a '{'. */
		advance(s->buf, s->len - 1, &part->line, &part->col);
		s->buf[0] = s->buf[s->len - 1];
		s->len = 1;
		from = 1;
		if ((rc = fill(s)) != 0)
			return rc;
	}
}

static int read_parts(struct stream *s, enum hg_input_format format, hg_report_sink sink,
		      void *user)
{
	struct report_part part = {.line = 1, .col = 1};
	for (;;) {
		part.more = !s->eof;
		int rc = report_read_json_part(s->ctx, s->path, s->buf, s->len, format, &part, sink,
					       user);
		if (rc != 0)
			return rc;
		if (!part.more)
			return (int)(part.failed > INT32_MAX ? INT32_MAX : part.failed);
		memmove(s->buf, s->buf + part.consumed, s->len - part.consumed);
		s->len -= part.consumed;
		/* A value cut off is read again from its start: from a paced input
		 * only once the buffer has twice what it had, so that a report
		 * coming in many small writes is read in linear time. */
		s->want = 2 * s->len;
		if (s->len == s->cap && s->cap >= s->ctx->limits.max_input_bytes) {
			/* One value fills all that a value may take. */
			if ((rc = skip_oversized(s, &part, sink, user)) != 0)
				return rc;
			if (s->len == 0)
				return (int)(part.failed > INT32_MAX ? INT32_MAX : part.failed);
			continue;
		}
		if (s->len == s->cap && (rc = grow(s, true)) != 0) /* one value fills it */
			return rc;
		if ((rc = fill(s)) != 0)
			return rc;
	}
}

int hg_reports_read_path(const hg_ctx *ctx, const char *path, const char *source,
			 enum hg_input_format format, hg_report_sink sink, void *user)
{
	struct stream s = {ctx, source ? source : path, -1, NULL, 0, 0, false, false, 0, 0};
	struct stat st;
	/* A file of a folder's list that is no longer a regular file was
	 * skipped (said and counted), not waited on. */
	if ((s.fd = input_open(ctx, path, s.path, &st)) < 0)
		return s.fd == INPUT_SKIPPED ? 0 : HG_EIO;
	bool is_stdin = s.fd == STDIN_FILENO;
	/* A copy that knows the file's time, for times written without a year. */
	hg_ctx with_time = *ctx;
	if (S_ISREG(st.st_mode))
		with_time.file_time_ms = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
	ctx = s.ctx = &with_time;
	s.paced = !S_ISREG(st.st_mode); /* stdin may be a pipe, a terminal or a socket */
	s.unread = S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size : 0;
	s.cap = PART_BYTES < ctx->limits.max_input_bytes ? PART_BYTES : ctx->limits.max_input_bytes;
	if (S_ISREG(st.st_mode) && s.unread < s.cap)
		s.cap = s.unread + 1; /* a small file: no 8 MiB buffer (nor a huge page); +1 sees its end */
	s.buf = hg_big_alloc(s.cap + 1);
	int rc = s.buf ? fill(&s) : HG_ENOMEM;
	/* What the input is needs its first byte that is not a blank. */
	while (rc == 0 && !s.eof && s.len < s.cap && first_content(s.buf, s.len) == s.len)
		rc = fill(&s);
	bool json = rc == 0 && starts_json(s.buf, s.len) && format != HG_FORMAT_ANR_TRACES &&
		    format != HG_FORMAT_BLOCKCANARY && format != HG_FORMAT_JAVA_STACK;
	if (rc == 0 && json) {
		rc = read_parts(&s, format, sink, user);
	} else if (rc == 0) {
		/* Read whole: one report, or lines that are not JSON values.  A
		 * file over the cap is refused from its size, not read up to it;
		 * a stream grows to the cap at most. */
		if (!s.eof && input_too_large(ctx, s.path, &st))
			rc = HG_ELIMIT;
		while (rc == 0 && !s.eof)
			if (s.len < s.cap || (rc = grow(&s, false)) == 0) /* a paced input may pause */
				rc = fill(&s);
		if (rc == 0)
			rc = hg_reports_read_as(ctx, s.path, s.buf, s.len, format, sink, user);
	}
	free(s.buf);
	if (!is_stdin)
		close(s.fd);
	return rc;
}
