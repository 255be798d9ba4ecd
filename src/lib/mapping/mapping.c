/* Module mapping (src/lib/mapping/): methodMapping.txt, method ids to
 * names.  Opening and looking up (mapping.c), the one-pass index
 * (mapping_index.c), the memo of formatted symbols (mapping_memo.c),
 * Java method names as a developer reads them (java_format.c) and
 * overloads told apart (mapping_overload.c), and whether it holds a
 * package's classes (mapping_package.c).
 * Public header: mapping.h.
 * Uses: core, stack. */
/* methodMapping.txt.  Indexing reads the file once, in small chunks that
 * stay in cache (as `wc -l` does), and records for each id only where its
 * line starts; a lookup re-reads that one line with pread().  So a mapping of
 * hundreds of MB costs one sequential read and a 4 MiB table, not its size
 * in memory, and a file truncated meanwhile cannot crash us (as an mmap
 * could, with SIGBUS): a line that no longer holds its id is "absent". */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mapping_internal.h"

static hg_mapping *mapping_new(const char *name)
{
	hg_mapping *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->fd = -1;
	m->name = strdup(name);
	m->slot = mapping_table_new();
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
	m->len = (size_t)st.st_size;
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	int rc = mapping_index(ctx, m);
	if (rc != 0) {
		hg_mapping_destroy(m);
		return rc;
	}
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
	int rc = mapping_index(ctx, m);
	if (rc != 0) {
		hg_mapping_destroy(m);
		return rc;
	}
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
	free(m->names);
	free(m->name);
	mapping_memo_destroy(m->memo);
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
	while (s < end && mapping_is_blank(*s))
		s++;
	const char *e = s;
	while (e < end && !mapping_is_blank(*e))
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
	const char *p = mapping_number_comma(line, end, &line_id);
	p = p ? mapping_number_comma(p, end, &flags) : NULL;
	if (!p || line_id != id) /* the file changed under us */
		return HG_EINVAL;
	if (end > p && end[-1] == '\r')
		end--;
	next_word(&p, end, &entry->cls, &entry->cls_len);
	next_word(&p, end, &entry->method, &entry->method_len);
	/* The descriptor is the rest of the line; it has no spaces, but keep
	 * whatever is there rather than lose it. */
	while (p < end && mapping_is_blank(*p))
		p++;
	const char *d_end = end;
	while (d_end > p && mapping_is_blank(d_end[-1]))
		d_end--;
	entry->desc = p;
	entry->desc_len = (size_t)(d_end - p);
	entry->access_flags = (int32_t)(flags > INT32_MAX ? INT32_MAX : flags);
	return 0;
}

const char *hg_mapping_symbol(const hg_mapping *m, int32_t id, hg_arena *arena)
{
	if (!m)
		return NULL;
	bool known;
	size_t len = 0;
	const char *memo = mapping_memo_get(m->memo, id, &known, &len);
	if (known)
		return memo ? hg_arena_strndup(arena, memo, len) : NULL;
	hg_mapping_entry e;
	int rc = hg_mapping_lookup(m, id, arena, &e);
	const char *sym = rc == 0 ? mapping_overload_symbol(m, id, &e, arena) : NULL;
	/* The memo is a cache, not part of what the mapping says: filling it
	 * from a const lookup is fine (see mapping_memo_put on threads). */
	if (sym || rc == HG_EINVAL)
		mapping_memo_put(&((hg_mapping *)m)->memo, id, sym);
	return sym;
}
