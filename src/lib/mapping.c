/* methodMapping.txt.  Indexing reads the file once, in small chunks that
 * stay in cache (as `wc -l` does), and records for each id only where its
 * line starts; a lookup re-reads that one line with pread().  So a mapping of
 * hundreds of MB costs one sequential read and a 4 MiB table, not its size
 * in memory, and a file truncated meanwhile cannot crash us (as an mmap
 * could, with SIGBUS): a line that no longer holds its id is "absent". */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bigmem.h"
#include "hangar/beat.h"
#include "hangar/mapping.h"
#include "linescan.h"

#define TABLE_SIZE ((size_t)HG_BEAT_MAX_METHOD_ID + 1)
#define MAX_LINE_WARNINGS 10    /* then one summary line */
#define CHUNK ((size_t)256 << 10) /* read size while indexing: fits in L2 */
#define MAX_LINE ((size_t)64 << 10) /* longer lines are malformed */

/* Where an id's line starts, + 1 (0 = absent).  Four bytes per id keep the
 * table at 4 MiB: zeroing and touching it is a good part of indexing. */
struct slot {
	uint32_t offset;
};

struct hg_mapping {
	char *name;
	int fd;             /* file mode: lines are read back from here, or -1 */
	char *data;         /* memory mode: the bytes, owned */
	size_t len;
	struct slot *slot;  /* TABLE_SIZE entries */
	size_t count, skipped;
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* Reads spaces, a non-negative decimal number of at most 12 digits (so it
 * cannot overflow), spaces and the comma.  On the hot path of indexing. */
static inline const char *read_number_comma(const char *p, const char *end, int64_t *out)
{
	while (p < end && is_space(*p))
		p++;
	const char *digits = p;
	int64_t v = 0;
	while (p < end && (unsigned)(*p - '0') <= 9) {
		if (p - digits == 12)
			return NULL;
		v = v * 10 + (*p++ - '0');
	}
	if (p == digits)
		return NULL;
	while (p < end && is_space(*p))
		p++;
	*out = v;
	return p < end && *p == ',' ? p + 1 : NULL;
}

static void warn_line(const hg_ctx *ctx, hg_mapping *m, long line, const char *fmt, ...)
	HG_PRINTF(4, 5);

static void warn_line(const hg_ctx *ctx, hg_mapping *m, long line, const char *fmt, ...)
{
	m->skipped++;
	if (m->skipped > MAX_LINE_WARNINGS)
		return;
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	hg_diagf(ctx, HG_DIAG_WARNING, m->name, line, 0, 0, "%s; line skipped", msg);
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

/* Indexes the line scan->text[from..to) that starts at `offset` in the file. */
static void index_line(const hg_ctx *ctx, hg_mapping *m, const struct linescan *scan, size_t from,
		       size_t to, size_t offset, long line)
{
	const char *s = scan->text + from, *eol = scan->text + to;
	const char *p = s;
	if (offset == 0 && eol - p >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3; /* a UTF-8 byte order mark */
	while (p < eol && is_space(*p))
		p++;
	if (p == eol || *p == '#' || (*p == '\r' && p + 1 == eol))
		return;
	if ((size_t)(eol - s) > MAX_LINE) {
		warn_line(ctx, m, line, "line longer than %zu bytes", MAX_LINE);
		return;
	}
	int64_t id, flags;
	const char *q = read_number_comma(p, eol, &id);
	if (q)
		q = read_number_comma(q, eol, &flags);
	if (!q) {
		warn_line(ctx, m, line, "expected 'id,accessFlags,class method descriptor'");
		return;
	}
	while (q < eol && is_space(*q))
		q++;
	/* "class method": a word, blanks, another word (the blank bitmap
	 * finds the gap without a scan). */
	size_t gap_at = linescan_next(scan, scan->blank, (size_t)(q - scan->text));
	const char *method = gap_at < to ? scan->text + gap_at : memchr(q, '\t', (size_t)(eol - q));
	if (!method)
		method = eol;
	while (method < eol && is_space(*method))
		method++;
	if (q == eol || *q == '\r' || method == eol || *method == '\r' || *method == '(') {
		warn_line(ctx, m, line, "missing 'class method' after the access flags");
		return;
	}
	if (id > HG_BEAT_MAX_METHOD_ID) {
		warn_line(ctx, m, line, "method id %lld is out of range (ids have 20 bits)",
			  (long long)id);
		return;
	}
	struct slot *sl = &m->slot[id];
	if (sl->offset) {
		/* Rare, and listed at most MAX_LINE_WARNINGS times: worth a
		 * re-read to name the first line rather than store every line. */
		if (m->skipped < MAX_LINE_WARNINGS)
			warn_line(ctx, m, line, "duplicate method id %lld (first at line %ld)",
				  (long long)id, line_at(m, sl->offset - 1));
		else
			m->skipped++;
		return;
	}
	/* Point past a byte order mark and leading blanks: lookups parse
	 * from here. */
	sl->offset = (uint32_t)(offset + (size_t)(p - s)) + 1;
	m->count++;
}

/* Indexes the complete lines of text[0..len), which starts at file offset
 * `base`; with `last` the text ends the file, so a final line without a
 * newline counts.  Returns how many bytes it consumed. */
static size_t index_block(const hg_ctx *ctx, hg_mapping *m, struct linescan *scan,
			  const char *text, size_t len, size_t base, bool last, long *line)
{
	if (linescan_build(scan, text, len) != 0)
		return SIZE_MAX;
	size_t p = 0;
	while (p < len) {
		size_t nl = linescan_next(scan, scan->newline, p);
		if (nl == SIZE_MAX && !last)
			break; /* incomplete: wait for more */
		size_t eol = nl == SIZE_MAX ? len : nl;
		index_line(ctx, m, scan, p, eol, base + p, ++*line);
		p = nl == SIZE_MAX ? len : nl + 1;
	}
	return p;
}

static int index_memory(const hg_ctx *ctx, hg_mapping *m)
{
	struct linescan scan = {0};
	long line = 0;
	size_t used = index_block(ctx, m, &scan, m->data, m->len, 0, true, &line);
	linescan_release(&scan);
	return used == SIZE_MAX ? HG_ENOMEM : 0;
}

/* Reads the file in chunks; a line cut by a chunk's end moves to the front
 * of the buffer and is completed by the next read. */
static int index_file(const hg_ctx *ctx, hg_mapping *m)
{
	char *buf = malloc(CHUNK);
	struct linescan scan = {0};
	if (!buf)
		return HG_ENOMEM;
	size_t base = 0, filled = 0; /* buf[0] is at file offset base */
	long line = 0;
	bool eof = false, skipping = false; /* skipping the rest of an overlong line */
	int rc = 0;
	while (!eof && rc == 0) {
		ssize_t n = read(m->fd, buf + filled, CHUNK - filled);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			hg_diagf(ctx, HG_DIAG_ERROR, m->name, 0, 0, 0, "cannot read mapping: %s",
				 strerror(errno));
			rc = HG_EIO;
			break;
		}
		eof = n == 0;
		filled += (size_t)n;
		size_t used = 0;
		if (skipping) {
			/* Drop the rest of an overlong line, up to its newline. */
			const char *nl = memchr(buf, '\n', filled);
			used = nl ? (size_t)(nl - buf) + 1 : filled;
			skipping = !nl && !eof;
		}
		size_t more = index_block(ctx, m, &scan, buf + used, filled - used, base + used, eof,
					  &line);
		if (more == SIZE_MAX) {
			rc = HG_ENOMEM;
			break;
		}
		used += more;
		if (used == 0 && filled == CHUNK) {
			/* One line fills the buffer: too long to be a mapping line
			 * (unless a comment).  Say so once, drop chunks to its end. */
			const char *t = buf;
			while (t < buf + filled && is_space(*t))
				t++;
			++line;
			if (*t != '#')
				warn_line(ctx, m, line, "line longer than %zu bytes", MAX_LINE);
			skipping = true;
			used = filled;
		}
		memmove(buf, buf + used, filled - used);
		filled -= used;
		base += used;
		m->len = base + filled;
	}
	linescan_release(&scan);
	free(buf);
	return rc;
}

static void report_skipped(const hg_ctx *ctx, const hg_mapping *m)
{
	if (m->skipped > MAX_LINE_WARNINGS)
		hg_diagf(ctx, HG_DIAG_WARNING, m->name, 0, 0, 0,
			 "%zu malformed lines skipped in all (only the first %d are listed)", m->skipped,
			 MAX_LINE_WARNINGS);
}

static hg_mapping *mapping_new(const char *name)
{
	hg_mapping *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->fd = -1;
	m->name = strdup(name);
	m->slot = hg_big_alloc(TABLE_SIZE * sizeof *m->slot);
	if (!m->name || !m->slot) {
		hg_mapping_destroy(m);
		return NULL;
	}
	memset(m->slot, 0, TABLE_SIZE * sizeof *m->slot);
	return m;
}

int hg_mapping_open(const hg_ctx *ctx, const char *path, hg_mapping **out)
{
	*out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		hg_diagf(ctx, HG_DIAG_ERROR, path, 0, 0, 0, "cannot open mapping: %s", strerror(errno));
		return HG_EIO;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		hg_diagf(ctx, HG_DIAG_ERROR, path, 0, 0, 0, "mapping is not a regular file");
		close(fd);
		return HG_EIO;
	}
	/* Offsets are 32-bit: 4 GiB is far beyond any real mapping. */
	size_t limit = ctx->limits.max_mapping_bytes < UINT32_MAX - 1 ? ctx->limits.max_mapping_bytes
								     : (size_t)UINT32_MAX - 1;
	if ((uint64_t)st.st_size > limit) {
		hg_diagf(ctx, HG_DIAG_ERROR, path, 0, 0, 0,
			 "mapping is %lld bytes, over the %zu-byte limit (see --max-mapping)",
			 (long long)st.st_size, limit);
		close(fd);
		return HG_ELIMIT;
	}
	hg_mapping *m = mapping_new(path);
	if (!m) {
		close(fd);
		return HG_ENOMEM;
	}
	m->fd = fd;
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	int rc = index_file(ctx, m);
	if (rc != 0) {
		hg_mapping_destroy(m);
		return rc;
	}
	report_skipped(ctx, m);
	*out = m;
	return 0;
}

int hg_mapping_from_memory(const hg_ctx *ctx, const char *name, const char *data, size_t len,
			   hg_mapping **out)
{
	*out = NULL;
	if (len > ctx->limits.max_mapping_bytes || len > UINT32_MAX - 1) {
		hg_diagf(ctx, HG_DIAG_ERROR, name, 0, 0, 0,
			 "mapping is %zu bytes, over the %zu-byte limit (see --max-mapping)", len,
			 ctx->limits.max_mapping_bytes);
		return HG_ELIMIT;
	}
	hg_mapping *m = mapping_new(name);
	if (!m || !(m->data = malloc(len ? len : 1))) {
		hg_mapping_destroy(m);
		return HG_ENOMEM;
	}
	memcpy(m->data, data, len);
	m->len = len;
	if (index_memory(ctx, m) != 0) {
		hg_mapping_destroy(m);
		return HG_ENOMEM;
	}
	report_skipped(ctx, m);
	*out = m;
	return 0;
}

void hg_mapping_destroy(hg_mapping *m)
{
	if (!m)
		return;
	if (m->fd >= 0)
		close(m->fd);
	free(m->data);
	free(m->slot);
	free(m->name);
	free(m);
}

const char *hg_mapping_name(const hg_mapping *m)
{
	return m->name;
}

size_t hg_mapping_count(const hg_mapping *m)
{
	return m->count;
}

size_t hg_mapping_skipped(const hg_mapping *m)
{
	return m->skipped;
}

/* Splits the next space-separated word of [*p, end). */
static void next_word(const char **p, const char *end, const char **w, size_t *len)
{
	const char *s = *p;
	while (s < end && is_space(*s))
		s++;
	const char *e = s;
	while (e < end && !is_space(*e))
		e++;
	*w = s;
	*len = (size_t)(e - s);
	*p = e;
}

/* Copies the line at `offset` (at most MAX_LINE bytes) into the arena.
 * Reads grow from 512 bytes: lines are ~100 bytes, and a lookup per frame
 * must stay cheap. */
static char *read_line(const hg_mapping *m, size_t offset, hg_arena *arena, size_t *len)
{
	size_t avail = m->len > offset ? m->len - offset : 0;
	if (avail > MAX_LINE)
		avail = MAX_LINE;
	if (m->fd < 0) {
		const char *p = m->data + offset, *nl = memchr(p, '\n', avail);
		*len = nl ? (size_t)(nl - p) : avail;
		return hg_arena_strndup(arena, p, *len);
	}
	char small[512], *buf = small;
	size_t cap = sizeof small, got = 0;
	const char *nl = NULL;
	char *big = NULL;
	while (got < avail && !nl) {
		if (got == cap) {
			cap = cap * 8 < MAX_LINE ? cap * 8 : MAX_LINE;
			char *p = realloc(big, cap);
			if (!p)
				break;
			if (!big)
				memcpy(p, small, got);
			big = buf = p;
		}
		size_t want = cap - got < avail - got ? cap - got : avail - got;
		ssize_t n = pread(m->fd, buf + got, want, (off_t)(offset + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		nl = memchr(buf + got, '\n', (size_t)n);
		got += (size_t)n;
	}
	*len = nl ? (size_t)(nl - buf) : got;
	char *line = hg_arena_strndup(arena, buf, *len);
	free(big);
	return line;
}

int hg_mapping_lookup(const hg_mapping *m, int32_t id, hg_arena *arena, hg_mapping_entry *entry)
{
	if (!m || id < 0 || (size_t)id >= TABLE_SIZE || !m->slot[id].offset)
		return HG_EINVAL;
	size_t len;
	const char *line = read_line(m, m->slot[id].offset - 1, arena, &len);
	if (!line)
		return HG_ENOMEM;
	const char *end = line + len;
	int64_t line_id, flags;
	const char *p = read_number_comma(line, end, &line_id);
	p = p ? read_number_comma(p, end, &flags) : NULL;
	if (!p || line_id != id) /* the file changed under us */
		return HG_EINVAL;
	if (end > p && end[-1] == '\r')
		end--;
	next_word(&p, end, &entry->cls, &entry->cls_len);
	next_word(&p, end, &entry->method, &entry->method_len);
	/* The descriptor is the rest of the line; it has no spaces, but keep
	 * whatever is there rather than lose it. */
	while (p < end && is_space(*p))
		p++;
	const char *d_end = end;
	while (d_end > p && is_space(d_end[-1]))
		d_end--;
	entry->desc = p;
	entry->desc_len = (size_t)(d_end - p);
	entry->access_flags = (int32_t)(flags > INT32_MAX ? INT32_MAX : flags);
	return 0;
}

const char *hg_mapping_symbol(const hg_mapping *m, int32_t id, hg_arena *arena)
{
	hg_mapping_entry e;
	if (!m || hg_mapping_lookup(m, id, arena, &e) != 0)
		return NULL;
	return hg_format_java_method(arena, e.cls, e.cls_len, e.method, e.method_len, e.desc,
				     e.desc_len);
}
