/* Naming the native frame a line of any text holds (hangar symbolicate, a
 * filter): debuggerd's and ART's "#00 pc 000000000004f0a8  /path/libfoo.so
 * (sym+8) (BuildId: 5e8a...)", with or without "native: " before it.  The
 * Build ID names the symbol file; the pc is already file-relative.  One
 * question per line, to the run's one symbolizer. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "symbols_internal.h"

/* The pc, image path and Build ID of a frame line; false when it is none. */
static bool frame_line(const char *s, size_t n, uint64_t *pc, const char **path, size_t *path_len,
		       const char **id, size_t *id_len)
{
	const char *p = memchr(s, '#', n), *end = s + n;
	if (!p)
		return false;
	p++;
	const char *digits = p;
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	if (p == digits || end - p < 4 || memcmp(p, " pc ", 4) != 0)
		return false;
	p += 4;
	while (p < end && *p == ' ')
		p++;
	*pc = 0;
	const char *hex = p;
	for (; p < end && p - hex < 17; p++) {
		int v = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
			: *p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;
		if (v < 0)
			break;
		*pc = *pc << 4 | (uint64_t)v;
	}
	if (p == hex || p - hex > 16 || p >= end || *p != ' ')
		return false;
	while (p < end && *p == ' ')
		p++;
	*path = p;
	while (p < end && !(p + 1 < end && p[0] == ' ' && p[1] == '(') && *p != '\n' && *p != '\r')
		p++;
	*path_len = (size_t)(p - *path);
	static const char tag[] = "(BuildId: ";
	const char *b = NULL;
	for (const char *q = p; q + sizeof tag - 1 <= end && !b; q++)
		if (memcmp(q, tag, sizeof tag - 1) == 0)
			b = q + sizeof tag - 1;
	if (!b || *path_len == 0)
		return false;
	const char *close = memchr(b, ')', (size_t)(end - b));
	*id = b;
	*id_len = close ? (size_t)(close - b) : 0;
	return *id_len > 0 && *id_len < SYM_ID_MAX;
}

/* "  # inner file:line < outer file:line" */
static void annotate(hg_buf *out, const struct query *q)
{
	hg_buf_puts(out, "  #");
	for (size_t m = 0; m < q->n; m++) {
		hg_buf_printf(out, "%s %s", m ? " <" : "", q->fn[m] ? q->fn[m] : "??");
		if (q->file[m])
			hg_buf_printf(out, " %s", q->file[m]);
		if (q->file[m] && q->line[m] > 0)
			hg_buf_printf(out, ":%ld", q->line[m]);
	}
}

static int name_line(hg_symbols *s, const char *line, size_t len, hg_buf *out)
{
	uint64_t pc;
	const char *path, *id;
	size_t path_len, id_len;
	if (!frame_line(line, len, &pc, &path, &path_len, &id, &id_len))
		return 0;
	hg_arena *arena = hg_arena_create();
	if (!arena)
		return HG_ENOMEM;
	int rc = HG_ENOMEM;
	const char *p = hg_arena_strndup(arena, path, path_len);
	const char *slash = p ? strrchr(p, '/') : NULL;
	hg_image im = {.kind = HG_IMAGE_ELF, .path = p, .name = slash ? slash + 1 : p,
		       .id = hg_arena_strndup(arena, id, id_len)};
	const struct sym_entry *e = NULL;
	if (p && im.id && (rc = sym_find(s, &im, "hangar symbolicate", 0, &e)) == 0 && e) {
		struct query q = {.entry = (size_t)(e - s->index.items), .addr = pc};
		rc = sym_ask(s, &q, 1, arena);
		if (rc == 0 && q.n) {
			size_t keep = len;
			while (keep && (line[keep - 1] == '\n' || line[keep - 1] == '\r'))
				keep--;
			hg_buf_add(out, line, keep);
			annotate(out, &q);
			hg_buf_add(out, line + keep, len - keep);
			s->stats.frames_named++;
			s->stats.inlined += q.n - 1;
			rc = out->failed ? HG_ENOMEM : 1;
		} else if (rc == 0) {
			s->stats.frames_unnamed++;
		} else if (rc == 1) {
			rc = 0;
		}
	}
	hg_arena_destroy(arena);
	return rc;
}

int hg_symbols_text_line(hg_symbols *s, const char *line, size_t len, hg_buf *out)
{
	if (!s || s->index.n == 0)
		return 0;
	pthread_mutex_lock(&s->lock);
	int rc = s->index.n && !s->used && !(s->used = calloc(s->index.n, sizeof *s->used))
		 ? HG_ENOMEM : 0;
	if (rc == 0 && !s->failed_file && !(s->failed_file = calloc(s->index.n, 1)))
		rc = HG_ENOMEM;
	if (rc == 0)
		rc = name_line(s, line, len, out);
	pthread_mutex_unlock(&s->lock);
	return rc;
}
