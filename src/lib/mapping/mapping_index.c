/* Indexing a methodMapping.txt in one pass.
 *
 * The file is read in small chunks that stay in cache (as `wc -l` does); a
 * bitmap of newlines splits each chunk into lines, and each line leaves only
 * the offset of its text in the id table.  A large file is cut in two at a
 * line boundary and both halves are indexed at once, each by its own worker
 * into its own table: a million lines then take about the time `wc -l` needs
 * to count them.  Workers never talk to the diagnostics sink; they keep
 * their first warnings, which the caller sends in file order afterwards, with
 * line numbers made absolute. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/core.h"
#include "mapping_internal.h"

#define MAX_LINE_WARNINGS 10             /* then one summary line */
#define CHUNK ((size_t)128 << 10)        /* read size: stays in L2 */
#define SPLIT_AT ((size_t)8 << 20)       /* files this large use two workers */
#define NO_OFFSET ((size_t)-1)

struct pending_warning {
	long line;          /* within the worker's part */
	size_t first;       /* for a duplicate: offset of the id's first line */
	char msg[120];
};

struct worker {
	hg_mapping *m;
	size_t begin, end;       /* the part of the file, from a line start */
	struct slot *slot;       /* the table this worker fills */
	long lines;
	size_t count, skipped;
	struct pending_warning warn[MAX_LINE_WARNINGS];
	size_t n_warn;
	uint64_t *keys;          /* per line, its name's hash << 20 | its id (the overloads),
	                            sorted by the worker when done */
	size_t n_keys, cap_keys;
	int rc;
	int err;                 /* errno of a failed read */
};

struct slot *mapping_table_new(void)
{
	struct slot *t = hg_big_alloc(TABLE_SIZE * sizeof *t);
	if (t)
		memset(t, 0, TABLE_SIZE * sizeof *t);
	return t;
}

static void warn_line(struct worker *w, long line, size_t first, const char *fmt, ...)
	HG_PRINTF(4, 5);

static void warn_line(struct worker *w, long line, size_t first, const char *fmt, ...)
{
	w->skipped++;
	if (w->n_warn == MAX_LINE_WARNINGS)
		return;
	struct pending_warning *p = &w->warn[w->n_warn++];
	p->line = line;
	p->first = first;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->msg, sizeof p->msg, fmt, ap);
	va_end(ap);
}

/* The first blank in [p, end), or end.  Class names are short: SSE2 looks
 * at 16 bytes at a time. */
static inline const char *find_blank(const char *p, const char *end)
{
#ifdef __SSE2__
	const __m128i space = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t');
	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		int mask = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, space), _mm_cmpeq_epi8(v, tab)));
		if (mask)
			return p + __builtin_ctz((unsigned)mask);
		p += 16;
	}
#endif
	while (p < end && !mapping_is_blank(*p))
		p++;
	return p;
}

/* The digits p[0..n) as a number (n <= 12: no overflow). */
static inline int64_t digits_value(const char *p, unsigned n)
{
	int64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v = v * 10 + (p[i] - '0');
	return v;
}

/* The usual line, "ID,FLAGS,class method desc" with no blanks around the
 * numbers: both numbers found with one 16-byte look (the commas and digits
 * as bit masks) instead of a test per byte.  Where the class starts, or
 * NULL for anything else, which mapping_number_comma then reads (and
 * warns about) as before. */
static inline const char *usual_numbers(const char *p, const char *eol, int64_t *id,
					int64_t *flags)
{
#ifdef __SSE2__
	if (eol - p < 16)
		return NULL;
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i d = _mm_sub_epi8(v, _mm_set1_epi8('0'));
	unsigned comma = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(',')));
	unsigned digit = (unsigned)_mm_movemask_epi8(
		_mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d));
	unsigned rest = comma & (comma - 1);
	if (!rest)
		return NULL;
	unsigned c1 = (unsigned)__builtin_ctz(comma), c2 = (unsigned)__builtin_ctz(rest);
	/* 1..12 digits each, as mapping_number_comma takes them */
	if (c1 == 0 || c1 > 12 || c2 == c1 + 1 || c2 - c1 - 1 > 12)
		return NULL;
	unsigned want = ((1u << c2) - 1) & ~(1u << c1);
	if ((digit & want) != want)
		return NULL;
	*id = digits_value(p, c1);
	*flags = digits_value(p + c1 + 1, c2 - c1 - 1);
	return p + c2 + 1;
#else
	(void)p, (void)eol, (void)id, (void)flags;
	return NULL;
#endif
}

/* Room for more name keys: a part's lines are not known ahead (reserved
 * for lines of 16 bytes on average; only the pages written cost). */
static int grow_keys(struct worker *w)
{
	size_t cap = w->cap_keys ? 2 * w->cap_keys : (w->end - w->begin) / 16 + 64;
	uint64_t *k = hg_big_grow(w->keys, w->n_keys * sizeof *k, cap * sizeof *k);
	if (!k) {
		w->rc = HG_ENOMEM;
		return -1;
	}
	w->keys = k;
	w->cap_keys = cap;
	return 0;
}

/* Indexes one line s[0..eol) that starts at file offset `offset`; the
 * buffer's bytes go on to buf_end. */
static inline void index_line(struct worker *w, const char *s, const char *eol,
			      const char *buf_end, size_t offset, long line)
{
	const char *p = s;
	if (offset == 0 && eol - p >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3; /* a UTF-8 byte order mark */
	while (p < eol && mapping_is_blank(*p))
		p++;
	if (p == eol || *p == '#' || (*p == '\r' && p + 1 == eol))
		return;
	if ((size_t)(eol - s) > MAX_LINE) {
		warn_line(w, line, NO_OFFSET, "line longer than %zu bytes", MAX_LINE);
		return;
	}
	int64_t id, flags;
	const char *q = usual_numbers(p, eol, &id, &flags);
	if (!q && (q = mapping_number_comma(p, eol, &id)) != NULL)
		q = mapping_number_comma(q, eol, &flags);
	if (!q) {
		warn_line(w, line, NO_OFFSET, "expected 'id,accessFlags,class method descriptor'");
		return;
	}
	while (q < eol && mapping_is_blank(*q))
		q++;
	/* "class method": a word, blanks, another word. */
	const char *cls_end = find_blank(q, eol), *method = cls_end;
	while (method < eol && mapping_is_blank(*method))
		method++;
	if (q == eol || *q == '\r' || method == eol || *method == '\r' || *method == '(') {
		warn_line(w, line, NO_OFFSET, "missing 'class method' after the access flags");
		return;
	}
	if (id > HG_BEAT_MAX_METHOD_ID) {
		warn_line(w, line, NO_OFFSET, "method id %lld is out of range (ids have 20 bits)",
			  (long long)id);
		return;
	}
	struct slot *sl = &w->slot[id];
	if (sl->offset) {
		warn_line(w, line, sl->offset - 1, "duplicate method id %lld", (long long)id);
		return;
	}
	/* Point past a byte order mark and leading blanks: lookups parse
	 * from here. */
	sl->offset = (uint32_t)(offset + (size_t)(p - s)) + 1;
	w->count++;
	/* Its name's hash, to find the overloads (the words as a lookup
	 * splits them: a carriage return ends the line).  A table by id,
	 * written in the file's (mostly rising) id order. */
	const char *method_end = find_blank(method, eol);
	if (method_end == eol && method_end[-1] == '\r')
		method_end--;
	if (w->n_keys == w->cap_keys && grow_keys(w) != 0)
		return;
	w->keys[w->n_keys++] = (uint64_t)mapping_name_hash32(q, (size_t)(cls_end - q), method,
							     (size_t)(method_end - method), buf_end)
				       << 20 |
			       (uint64_t)id;
}

/* Indexes the complete lines of text[0..len) (file offset `base`); with
 * `last`, a final line without a newline counts too.  Returns the bytes
 * consumed, or NO_OFFSET on ENOMEM. */
static size_t index_block(struct worker *w, struct linescan *scan, const char *text, size_t len,
			  size_t base, bool last)
{
	if (linescan_build(scan, text, len) != 0)
		return NO_OFFSET;
	size_t p = 0;
	/* Walk the newline bits word by word: one bit, one line. */
	for (size_t k = 0; k < scan->words; k++) {
		for (uint64_t bits = scan->newline[k]; bits; bits &= bits - 1) {
			size_t nl = (k << 6) + (size_t)__builtin_ctzll(bits);
			index_line(w, text + p, text + nl, text + len, base + p, ++w->lines);
			p = nl + 1;
		}
	}
	if (last && p < len) {
		index_line(w, text + p, text + len, text + len, base + p, ++w->lines);
		p = len;
	}
	return p;
}

/* A worker's file reading (core/chunk_read.c) and the scanner it reuses. */
struct reading {
	struct worker *w;
	struct linescan scan;
};

static size_t read_lines(void *user, const char *buf, size_t len, size_t off, bool eof)
{
	struct reading *r = user;
	size_t used = index_block(r->w, &r->scan, buf, len, off, eof);
	if (used == NO_OFFSET) {
		r->w->rc = HG_ENOMEM;
		return CHUNK_STOP;
	}
	return used;
}

/* One line fills the buffer: too long to be a mapping line (unless a
 * comment).  Said once; the reader drops chunks to its end. */
static void read_too_long(void *user, const char *buf, size_t len)
{
	struct worker *w = ((struct reading *)user)->w;
	const char *t = buf;
	while (t < buf + len && mapping_is_blank(*t))
		t++;
	++w->lines;
	if (t < buf + len && *t != '#')
		warn_line(w, w->lines, NO_OFFSET, "line longer than %zu bytes", MAX_LINE);
}

/* Reads the worker's part: in chunks from the file (a line cut by a
 * chunk's end is completed by the next read), or all at once from memory. */
static void *index_part(void *arg)
{
	struct worker *w = arg;
	hg_mapping *m = w->m;
	struct reading r = {w, {0}};
	if (m->fd < 0) { /* memory mode: the whole text at once */
		if (index_block(w, &r.scan, m->data + w->begin, w->end - w->begin, w->begin, true) ==
		    NO_OFFSET)
			w->rc = HG_ENOMEM;
	} else {
		struct chunk_read cr = {m->fd, w->begin, w->end, CHUNK, read_lines, read_too_long, NULL,
					&r};
		int rc = chunk_read(&cr, &w->err);
		if (rc && !w->rc)
			w->rc = rc;
	}
	linescan_release(&r.scan);
	/* Sorted here, on the worker's thread: half the work each. */
	if (!w->rc && mapping_sort_keys(&w->keys, w->n_keys) != 0)
		w->rc = HG_ENOMEM;
	return NULL;
}

/* The 1-based line number of file offset `offset`, by counting newlines. */
static long line_at(const hg_mapping *m, size_t offset)
{
	long line = 1;
	if (m->fd < 0) {
		for (const char *p = m->data, *end = m->data + offset;
		     (p = memchr(p, '\n', (size_t)(end - p))); p++)
			line++;
		return line;
	}
	char buf[1 << 14];
	for (size_t at = 0; at < offset;) {
		size_t want = offset - at < sizeof buf ? offset - at : sizeof buf;
		ssize_t n = pread(m->fd, buf, want, (off_t)at);
		if (n <= 0)
			break;
		for (const char *p = buf, *end = buf + n; (p = memchr(p, '\n', (size_t)(end - p))); p++)
			line++;
		at += (size_t)n;
	}
	return line;
}

/* Where the second part starts: just after the first newline at or after
 * the middle of the file, or 0 when the file is not worth splitting. */
static size_t split_point(const hg_mapping *m)
{
	if (m->fd < 0 || m->len < SPLIT_AT || sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return 0;
	char buf[4096];
	for (size_t at = m->len / 2; at < m->len;) {
		ssize_t n = pread(m->fd, buf, sizeof buf, (off_t)at);
		if (n <= 0)
			return 0;
		const char *nl = memchr(buf, '\n', (size_t)n);
		if (nl)
			return at + (size_t)(nl - buf) + 1 < m->len ? at + (size_t)(nl - buf) + 1 : 0;
		at += (size_t)n;
	}
	return 0;
}

/* Sends the workers' warnings in file order, at most MAX_LINE_WARNINGS. */
static void send_warnings(const hg_ctx *ctx, const hg_mapping *m, struct worker *w, int n)
{
	size_t sent = 0;
	long lines_before = 0;
	for (int i = 0; i < n; i++) {
		for (size_t k = 0; k < w[i].n_warn && sent < MAX_LINE_WARNINGS; k++, sent++) {
			const struct pending_warning *p = &w[i].warn[k];
			if (p->first != NO_OFFSET)
				hg_diagf(ctx, HG_DIAG_WARNING, m->name, lines_before + p->line, 0, 0,
					 "%s (first at line %ld); line skipped", p->msg, line_at(m, p->first));
			else
				hg_diagf(ctx, HG_DIAG_WARNING, m->name, lines_before + p->line, 0, 0,
					 "%s; line skipped", p->msg);
		}
		lines_before += w[i].lines;
	}
	if (m->skipped > MAX_LINE_WARNINGS)
		hg_diagf(ctx, HG_DIAG_WARNING, m->name, 0, 0, 0,
			 "%zu malformed lines skipped in all (only the first %d are listed)", m->skipped,
			 MAX_LINE_WARNINGS);
}

/* Folds the second worker's table into the first: an id already there
 * came earlier in the file and wins; the other is a duplicate. */
static void merge(hg_mapping *m, struct worker *second)
{
	for (size_t id = 0; id < TABLE_SIZE; id++) {
		uint32_t off = second->slot[id].offset;
		if (!off)
			continue;
		if (!m->slot[id].offset) {
			m->slot[id].offset = off;
			continue;
		}
		m->count--;
		/* Named by re-reading the file: rare, and at most a few shown. */
		if (second->n_warn < MAX_LINE_WARNINGS) {
			long line = line_at(m, off - 1) - (line_at(m, second->begin) - 1);
			warn_line(second, line, m->slot[id].offset - 1, "duplicate method id %zu", id);
		} else {
			second->skipped++;
		}
	}
	/* Back into file order (a handful of entries). */
	for (size_t i = 1; i < second->n_warn; i++)
		for (size_t j = i; j > 0 && second->warn[j].line < second->warn[j - 1].line; j--) {
			struct pending_warning t = second->warn[j];
			second->warn[j] = second->warn[j - 1];
			second->warn[j - 1] = t;
		}
}

int mapping_index(const hg_ctx *ctx, hg_mapping *m)
{
	struct worker w[2] = {{.m = m, .begin = 0, .end = m->len, .slot = m->slot},
			      {.m = m}};
	int n = 1;
	size_t split = split_point(m);
	pthread_t thread;
	if (split) {
		w[0].end = split;
		w[1].begin = split;
		w[1].end = m->len;
		w[1].slot = mapping_table_new();
		if (w[1].slot && pthread_create(&thread, NULL, index_part, &w[1]) == 0)
			n = 2;
		else {
			free(w[1].slot);
			w[0].end = m->len;
		}
	}
	index_part(&w[0]);
	if (n == 2)
		pthread_join(thread, NULL);
	int rc = w[0].rc ? w[0].rc : n == 2 ? w[1].rc : 0;
	m->count = w[0].count + (n == 2 ? w[1].count : 0);
	if (rc == 0 && n == 2)
		merge(m, &w[1]);
	m->skipped = w[0].skipped + (n == 2 ? w[1].skipped : 0);
	if (n == 2)
		free(w[1].slot);
	if (rc == HG_EIO)
		hg_diagf(ctx, HG_DIAG_ERROR, m->name, 0, 0, 0, "cannot read mapping: %s",
			 strerror(w[0].rc ? w[0].err : w[1].err));
	if (rc == 0)
		send_warnings(ctx, m, w, n);
	if (rc == 0)
		rc = mapping_overloads_index(m, w[0].keys, w[0].n_keys, w[1].keys, w[1].n_keys);
	free(w[0].keys);
	free(w[1].keys);
	return rc;
}
