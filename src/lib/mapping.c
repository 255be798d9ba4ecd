/* methodMapping.txt.  Indexing reads the file once, in small chunks that
 * stay in cache (as `wc -l` does), and records for each id only where its
 * line starts; a lookup re-reads that one line with pread().  So a mapping of
 * hundreds of MB costs one sequential read and a 8 MiB table, not its size
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
static const char *read_number_comma(const char *p, const char *end, int64_t *out)
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

/* The next '\n' in [p, end), or NULL.  Lines here are short (~100 bytes),
 * where a call to memchr costs more than scanning; this tests eight bytes
 * at a time for a zero byte in (word ^ "\n\n\n\n\n\n\n\n"). */
static const char *find_newline(const char *p, const char *end)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	const uint64_t newlines = ones * '\n';
	while (end - p >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		w ^= newlines;
		if ((w - ones) & ~w & highs)
			break; /* a newline is among these 8 bytes */
		p += 8;
	}
	for (; p < end; p++)
		if (*p == '\n')
			return p;
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

/* Indexes one line s[0..eol) that starts at `offset` in the file. */
static void index_line(const hg_ctx *ctx, hg_mapping *m, const char *s, const char *eol,
		       size_t offset, long line)
{
	const char *p = s;
	while (p < eol && is_space(*p))
		p++;
	if (p == eol || *p == '#' || (*p == '\r' && p + 1 == eol))
		return;
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
	if (q == eol || *q == '\r') {
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
	sl->offset = (uint32_t)offset + 1;
	m->count++;
}

static void index_memory(const hg_ctx *ctx, hg_mapping *m)
{
	const char *p = m->data, *end = m->data + m->len;
	long line = 0;
	while (p < end) {
		const char *nl = find_newline(p, end);
		const char *eol = nl ? nl : end;
		index_line(ctx, m, p, eol, (size_t)(p - m->data), ++line);
		p = nl ? nl + 1 : end;
	}
}

/* Reads the file in chunks; a line cut by a chunk's end moves to the front
 * of the buffer and is completed by the next read. */
static int index_file(const hg_ctx *ctx, hg_mapping *m)
{
	char *buf = malloc(CHUNK);
	if (!buf)
		return HG_ENOMEM;
	size_t base = 0, filled = 0; /* buf[0] is at file offset base */
	long line = 0;
	bool eof = false, skipping = false; /* skipping the rest of an overlong line */
	while (!eof) {
		ssize_t n = read(m->fd, buf + filled, CHUNK - filled);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;
			free(buf);
			hg_diagf(ctx, HG_DIAG_ERROR, m->name, 0, 0, 0, "cannot read mapping: %s",
				 strerror(err));
			return HG_EIO;
		}
		eof = n == 0;
		filled += (size_t)n;
		const char *p = buf, *end = buf + filled;
		while (p < end) {
			const char *nl = find_newline(p, end);
			if (!nl && !eof)
				break; /* incomplete: wait for more */
			const char *eol = nl ? nl : end;
			if (skipping)
				skipping = false;
			else
				index_line(ctx, m, p, eol, base + (size_t)(p - buf), ++line);
			p = nl ? nl + 1 : end;
		}
		size_t used = (size_t)(p - buf);
		if (used == 0 && filled == CHUNK) {
			/* One line fills the buffer: too long to be a mapping line. */
			warn_line(ctx, m, ++line, "line longer than %zu bytes", MAX_LINE);
			skipping = true;
			used = filled;
		}
		memmove(buf, buf + used, filled - used);
		filled -= used;
		base += used;
		m->len = base + filled;
	}
	free(buf);
	return 0;
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
	if (len > ctx->limits.max_mapping_bytes || len > UINT32_MAX - 1)
		return HG_ELIMIT;
	hg_mapping *m = mapping_new(name);
	if (!m || !(m->data = malloc(len ? len : 1))) {
		hg_mapping_destroy(m);
		return HG_ENOMEM;
	}
	memcpy(m->data, data, len);
	m->len = len;
	index_memory(ctx, m);
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

/* Copies the line at `offset` (at most MAX_LINE bytes) into the arena. */
static char *read_line(const hg_mapping *m, size_t offset, hg_arena *arena, size_t *len)
{
	size_t avail = m->len > offset ? m->len - offset : 0;
	size_t want = avail < MAX_LINE ? avail : MAX_LINE;
	char *buf = hg_arena_alloc(arena, want + 1);
	if (!buf)
		return NULL;
	size_t got = 0;
	if (m->fd < 0) {
		memcpy(buf, m->data + offset, want);
		got = want;
	} else {
		while (got < want) {
			ssize_t n = pread(m->fd, buf + got, want - got, (off_t)(offset + got));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			got += (size_t)n;
		}
	}
	const char *nl = memchr(buf, '\n', got);
	*len = nl ? (size_t)(nl - buf) : got;
	buf[*len] = '\0';
	return buf;
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
