/* The sink every downloaded body streams through on its way to the staged
 * file.  It counts the bytes it writes against the object cap (so a gzip
 * bomb stops at the cap, not at the disk's end) and inflates gzip data
 * when the key says .gz and the first bytes are the gzip magic: a .gz key
 * holding plain text is passed through as it is. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "fetch_internal.h"

enum { SNIFF, INFLATE, PASS };

struct gunzip {
	FILE *out;
	int64_t cap, written;
	int mode;
	bool z_open, z_ended;
	unsigned char head[2];
	size_t head_len;
	z_stream z;
};

struct gunzip *gunzip_create(FILE *out, int64_t cap, bool maybe_gzip)
{
	struct gunzip *g = calloc(1, sizeof *g);
	if (!g)
		return NULL;
	g->out = out;
	g->cap = cap;
	g->mode = maybe_gzip ? SNIFF : PASS;
	return g;
}

void gunzip_retarget(struct gunzip *g, FILE *out)
{
	g->out = out;
}

static int emit(struct gunzip *g, const void *data, size_t len)
{
	if (len > (uint64_t)(g->cap - g->written))
		return GZ_TOO_LARGE;
	if (len && fwrite(data, 1, len, g->out) != len)
		return GZ_IO;
	g->written += (int64_t)len;
	return GZ_OK;
}

static int inflate_some(struct gunzip *g, const unsigned char *data, size_t len)
{
	unsigned char buf[16384];
	g->z.next_in = (unsigned char *)data;
	g->z.avail_in = (uInt)len;
	while (g->z.avail_in > 0) {
		if (g->z_ended) {
			/* Another gzip member follows (concatenated .gz files). */
			if (inflateReset(&g->z) != Z_OK)
				return GZ_BAD;
			g->z_ended = false;
		}
		g->z.next_out = buf;
		g->z.avail_out = sizeof buf;
		int rc = inflate(&g->z, Z_NO_FLUSH);
		if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
			return GZ_BAD;
		int e = emit(g, buf, sizeof buf - g->z.avail_out);
		if (e)
			return e;
		if (rc == Z_STREAM_END)
			g->z_ended = true;
		else if (rc == Z_BUF_ERROR && g->z.avail_out != 0)
			return GZ_BAD;
	}
	return GZ_OK;
}

static int start(struct gunzip *g)
{
	bool gz = g->head_len == 2 && g->head[0] == 0x1f && g->head[1] == 0x8b;
	if (!gz) {
		g->mode = PASS;
		return emit(g, g->head, g->head_len);
	}
	g->mode = INFLATE;
	if (inflateInit2(&g->z, 15 + 16) != Z_OK) /* 16: gzip wrapper only */
		return GZ_BAD;
	g->z_open = true;
	return inflate_some(g, g->head, g->head_len);
}

int gunzip_write(struct gunzip *g, const void *data, size_t len)
{
	const unsigned char *p = data;
	if (g->mode == SNIFF) {
		while (len && g->head_len < 2) {
			g->head[g->head_len++] = *p++;
			len--;
		}
		if (g->head_len < 2)
			return GZ_OK;
		int e = start(g);
		if (e)
			return e;
	}
	if (g->mode == PASS)
		return emit(g, p, len);
	return len ? inflate_some(g, p, len) : GZ_OK;
}

int gunzip_finish(struct gunzip *g)
{
	if (g->mode == SNIFF) /* fewer than 2 bytes in all */
		return emit(g, g->head, g->head_len);
	if (g->mode == INFLATE && !g->z_ended)
		return GZ_BAD; /* truncated */
	return GZ_OK;
}

int64_t gunzip_written(const struct gunzip *g)
{
	return g->written;
}

void gunzip_destroy(struct gunzip *g)
{
	if (!g)
		return;
	if (g->z_open)
		inflateEnd(&g->z);
	free(g);
}
