/* Module retrace (src/lib/retrace/): ProGuard / R8 mapping.txt files and
 * retrace.  The mapping object (proguard.c), its one-pass index
 * (proguard_index.c, proguard_scan.c), finding and expanding a class
 * (proguard_lookup.c, proguard_block.c, proguard_meta.c), and retrace of a
 * frame (proguard_frame.c), of a report (proguard_report.c) and of text
 * (proguard_text.c).
 * Public header: proguard.h.
 * Uses: core, report. */
/* ProGuard / R8 mappings: the mapping object.  Opening a file, or copying
 * bytes, then indexing them (proguard_index.c); reading the bytes back;
 * the warnings about its lines.  As for methodMapping.txt, a file is not
 * mapped into memory: blocks are read back with pread(), so a file
 * truncated meanwhile cannot crash us (with SIGBUS); what no longer parses
 * is a warning.  Finding a class is proguard_lookup.c, expanding its block
 * proguard_block.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proguard_internal.h"

/* ---- loading ---- */

static hg_proguard *pg_new(const hg_ctx *ctx, const char *name)
{
	hg_proguard *pg = calloc(1, sizeof *pg);
	if (!pg)
		return NULL;
	pg->fd = -1;
	pg->ctx = *ctx;
	atomic_init(&pg->steps, 0);
	pg->name = strdup(name);
	pg->arena = hg_arena_create();
	if (!pg->name || !pg->arena || pthread_mutex_init(&pg->lock, NULL) != 0) {
		hg_arena_destroy(pg->arena);
		free(pg->name);
		free(pg);
		return NULL;
	}
	return pg;
}

static size_t size_limit(const hg_ctx *ctx)
{
	/* Offsets are 32-bit: 4 GiB is far beyond any real mapping. */
	return ctx->limits.max_mapping_bytes < UINT32_MAX - 1 ? ctx->limits.max_mapping_bytes
							      : (size_t)UINT32_MAX - 1;
}

static int finish_open(hg_proguard *pg, hg_proguard **out)
{
	int rc = pg_index(pg);
	if (rc != 0) {
		hg_proguard_destroy(pg);
		return rc;
	}
	*out = pg;
	return 0;
}

int hg_proguard_open(const hg_ctx *ctx, const char *path, hg_proguard **out)
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
	size_t limit = size_limit(ctx);
	if ((uint64_t)st.st_size > limit) {
		hg_diagf(ctx, HG_DIAG_ERROR, path, 0, 0, 0,
			 "mapping is %lld bytes, over the %zu-byte limit (see --max-mapping)",
			 (long long)st.st_size, limit);
		close(fd);
		return HG_ELIMIT;
	}
	hg_proguard *pg = pg_new(ctx, path);
	if (!pg) {
		close(fd);
		return HG_ENOMEM;
	}
	pg->fd = fd;
	pg->len = (size_t)st.st_size;
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	return finish_open(pg, out);
}

int hg_proguard_from_memory(const hg_ctx *ctx, const char *name, const char *data, size_t len,
			    hg_proguard **out)
{
	*out = NULL;
	size_t limit = size_limit(ctx);
	if (len > limit) {
		hg_diagf(ctx, HG_DIAG_ERROR, name, 0, 0, 0,
			 "mapping is %zu bytes, over the %zu-byte limit (see --max-mapping)", len, limit);
		return HG_ELIMIT;
	}
	hg_proguard *pg = pg_new(ctx, name);
	if (!pg || !(pg->data = malloc(len ? len : 1))) {
		hg_proguard_destroy(pg);
		return HG_ENOMEM;
	}
	if (len)
		memcpy(pg->data, data, len);
	pg->len = len;
	return finish_open(pg, out);
}

void hg_proguard_destroy(hg_proguard *pg)
{
	if (!pg)
		return;
	if (pg->fd >= 0)
		close(pg->fd);
	pthread_mutex_destroy(&pg->lock);
	hg_arena_destroy(pg->arena);
	free(pg->data);
	free(pg->recs);
	free(pg->obf_slots);
	free(pg->orig_slots);
	free(pg->map_id);
	free(pg->name);
	free(pg);
}

const char *hg_proguard_name(const hg_proguard *pg)
{
	return pg->name;
}

size_t hg_proguard_class_count(const hg_proguard *pg)
{
	return pg->n_recs;
}

size_t hg_proguard_skipped(const hg_proguard *pg)
{
	return pg->skipped;
}

const char *hg_proguard_map_id(const hg_proguard *pg)
{
	return pg->map_id;
}

/* ---- reading back, warning ---- */

long pg_read_at(const hg_proguard *pg, size_t off, char *buf, size_t want)
{
	if (off >= pg->len)
		return 0;
	if (want > pg->len - off)
		want = pg->len - off;
	if (pg->fd < 0) {
		memcpy(buf, pg->data + off, want);
		return (long)want;
	}
	size_t got = 0;
	while (got < want) {
		ssize_t n = pread(pg->fd, buf + got, want - got, (off_t)(off + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (long)got;
}

void pg_warn_line(hg_proguard *pg, long line, const char *fmt, ...)
{
	pg->skipped++;
	if (pg->warned >= PG_MAX_WARNINGS)
		return;
	pg->warned++;
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	hg_diagf(&pg->ctx, HG_DIAG_WARNING, pg->name, line, 0, 0, "%s", msg);
}
