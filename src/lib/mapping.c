/* methodMapping.txt: one pass over the mapped file records where each id's
 * line starts; the line is split and formatted only when looked up. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hangar/beat.h"
#include "hangar/mapping.h"

#define TABLE_SIZE ((size_t)HG_BEAT_MAX_METHOD_ID + 1)
#define MAX_LINE_WARNINGS 10 /* then one summary line */

struct slot {
	size_t rest;  /* offset of "class method desc" + 1; 0 = absent */
	uint32_t line;
	int32_t flags;
};

struct hg_mapping {
	char *name;
	const char *data;
	size_t len;
	void *mapped;   /* munmap on destroy, or NULL */
	char *copy;     /* free on destroy, or NULL */
	struct slot *slot;
	size_t count, skipped;
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* Reads spaces, a non-negative decimal number, spaces and the comma. */
static const char *read_number_comma(const char *p, const char *end, int64_t *out)
{
	while (p < end && is_space(*p))
		p++;
	const char *digits = p;
	while (p < end && *p >= '0' && *p <= '9' && p - digits < 12)
		p++;
	if (p == digits || hg_parse_int64(digits, (size_t)(p - digits), out) != 0)
		return NULL;
	while (p < end && is_space(*p))
		p++;
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

static void index_lines(const hg_ctx *ctx, hg_mapping *m)
{
	const char *p = m->data, *end = m->data + m->len;
	long line = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		line++;
		const char *s = p;
		p = nl ? nl + 1 : end;
		while (s < eol && is_space(*s))
			s++;
		if (s == eol || *s == '#' || (*s == '\r' && s + 1 == eol))
			continue;
		int64_t id, flags;
		const char *q = read_number_comma(s, eol, &id);
		if (q)
			q = read_number_comma(q, eol, &flags);
		if (!q) {
			warn_line(ctx, m, line, "expected 'id,accessFlags,class method descriptor'");
			continue;
		}
		while (q < eol && is_space(*q))
			q++;
		if (q == eol || *q == '\r') {
			warn_line(ctx, m, line, "missing 'class method' after the access flags");
			continue;
		}
		if (id > HG_BEAT_MAX_METHOD_ID) {
			warn_line(ctx, m, line, "method id %lld is out of range (ids have 20 bits)",
				  (long long)id);
			continue;
		}
		struct slot *sl = &m->slot[id];
		if (sl->rest) {
			warn_line(ctx, m, line, "duplicate method id %lld (first at line %lu)",
				  (long long)id, (unsigned long)sl->line);
			continue;
		}
		sl->rest = (size_t)(q - m->data) + 1;
		sl->line = (uint32_t)line;
		sl->flags = (int32_t)(flags > INT32_MAX ? INT32_MAX : flags);
		m->count++;
	}
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
	m->name = strdup(name);
	/* calloc'd pages stay untouched (and cost nothing) until an id uses them. */
	m->slot = calloc(TABLE_SIZE, sizeof *m->slot);
	if (!m->name || !m->slot) {
		hg_mapping_destroy(m);
		return NULL;
	}
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
	if ((uint64_t)st.st_size > ctx->limits.max_mapping_bytes) {
		hg_diagf(ctx, HG_DIAG_ERROR, path, 0, 0, 0, "mapping is %lld bytes, over the %zu-byte limit",
			 (long long)st.st_size, ctx->limits.max_mapping_bytes);
		close(fd);
		return HG_ELIMIT;
	}
	hg_mapping *m = mapping_new(path);
	if (!m) {
		close(fd);
		return HG_ENOMEM;
	}
	m->len = (size_t)st.st_size;
	if (m->len > 0) {
		m->mapped = mmap(NULL, m->len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
		if (m->mapped == MAP_FAILED) {
			m->mapped = NULL;
			hg_diagf(ctx, HG_DIAG_ERROR, path, 0, 0, 0, "cannot map mapping: %s", strerror(errno));
			close(fd);
			hg_mapping_destroy(m);
			return HG_EIO;
		}
		madvise(m->mapped, m->len, MADV_SEQUENTIAL);
		m->data = m->mapped;
	}
	close(fd);
	index_lines(ctx, m);
	*out = m;
	return 0;
}

int hg_mapping_from_memory(const hg_ctx *ctx, const char *name, const char *data, size_t len,
			   hg_mapping **out)
{
	*out = NULL;
	if (len > ctx->limits.max_mapping_bytes)
		return HG_ELIMIT;
	hg_mapping *m = mapping_new(name);
	if (!m || !(m->copy = malloc(len ? len : 1))) {
		hg_mapping_destroy(m);
		return HG_ENOMEM;
	}
	memcpy(m->copy, data, len);
	m->data = m->copy;
	m->len = len;
	index_lines(ctx, m);
	*out = m;
	return 0;
}

void hg_mapping_destroy(hg_mapping *m)
{
	if (!m)
		return;
	if (m->mapped)
		munmap(m->mapped, m->len);
	free(m->copy);
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

int hg_mapping_lookup(const hg_mapping *m, int32_t id, hg_mapping_entry *entry)
{
	if (id < 0 || (size_t)id >= TABLE_SIZE || !m->slot[id].rest)
		return HG_EINVAL;
	const struct slot *sl = &m->slot[id];
	const char *p = m->data + sl->rest - 1, *end = m->data + m->len;
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	const char *eol = nl ? nl : end;
	if (eol > p && eol[-1] == '\r')
		eol--;
	next_word(&p, eol, &entry->cls, &entry->cls_len);
	next_word(&p, eol, &entry->method, &entry->method_len);
	/* The descriptor is the rest of the line; it has no spaces, but keep
	 * whatever is there rather than lose it. */
	while (p < eol && is_space(*p))
		p++;
	const char *d_end = eol;
	while (d_end > p && is_space(d_end[-1]))
		d_end--;
	entry->desc = p;
	entry->desc_len = (size_t)(d_end - p);
	entry->access_flags = sl->flags;
	entry->line = (long)sl->line;
	return 0;
}

const char *hg_mapping_symbol(const hg_mapping *m, int32_t id, hg_arena *arena)
{
	hg_mapping_entry e;
	if (!m || hg_mapping_lookup(m, id, &e) != 0)
		return NULL;
	return hg_format_java_method(arena, e.cls, e.cls_len, e.method, e.method_len, e.desc,
				     e.desc_len);
}
