/* Indexing a ProGuard / R8 mapping.txt in one pass.
 *
 * The file is read in small chunks that stay in cache (as `wc -l` does).
 * For each 64-byte block three bitmaps are built with SSE2: newlines, bytes
 * that may start a class line (not blank, not '#'), and '#'.  Member lines
 * are indented, so a class line is a line start whose first byte is in the
 * second map: only those lines, and comment lines, are ever looked at; the
 * hundreds of thousands of member lines cost their bits and nothing else.
 * A class line leaves its offset, line number and the hashes of both names.
 * Files over 8 MiB are cut in two at a line boundary and both halves are
 * read at once by two workers, which keep their first warnings for the
 * caller to send in file order with absolute line numbers. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define PG_X86_DISPATCH 1 /* AVX2 and popcnt when the CPU has them */
#endif

#include "proguard_internal.h"

#define CHUNK ((size_t)128 << 10)
#define SPLIT_AT ((size_t)8 << 20)
#define MAX_IDS 16               /* distinct unknown metadata ids kept per worker */
#define MAP_VERSION_MAJOR 2      /* the newest com.android.tools.r8.mapping version known */

struct pending {
	long line;
	char msg[200];
};

struct unknown_id {
	long line;
	char id[96];
};

struct worker {
	hg_proguard *pg;
	size_t begin, end;
	bool first;              /* the part that starts the file */
	bool seen_class;
	long lines;              /* newlines counted so far */
	struct pg_rec *recs;
	size_t n, cap;
	struct pending warn[PG_MAX_WARNINGS];
	size_t n_warn, skipped;
	struct unknown_id ids[MAX_IDS];
	size_t n_ids;
	char map_id[128];
	char version[32];
	long version_line;
	int rc, err;
};

uint32_t pg_hash(const char *s, size_t len)
{
	uint64_t h = 0x9E3779B97F4A7C15ull ^ len;
	while (len >= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
		h ^= h >> 29;
		s += 8;
		len -= 8;
	}
	uint64_t w = 0;
	for (size_t i = 0; i < len; i++)
		w |= (uint64_t)(unsigned char)s[i] << (8 * i);
	h = (h ^ w) * 0x94D049BB133111EBull;
	h ^= h >> 31;
	h *= 0xBF58476D1CE4E5B9ull;
	return (uint32_t)(h ^ (h >> 32));
}

static inline bool blank(char c)
{
	return c == ' ' || c == '\t';
}

bool pg_class_line(const char *s, size_t len, const char **orig, size_t *orig_len,
		   const char **obf, size_t *obf_len)
{
	const char *e = s + len;
	while (e > s && (blank(e[-1]) || e[-1] == '\r'))
		e--;
	/* R8 and ProGuard write "orig -> obf:"; names have no blanks. */
	const char *p = memchr(s, ' ', (size_t)(e - s));
	const char *tab = memchr(s, '\t', (size_t)((p ? p : e) - s));
	if (tab)
		p = tab;
	if (!p || p == s || e - p < 5 || e[-1] != ':')
		return false;
	*orig = s;
	*orig_len = (size_t)(p - s);
	while (p < e && blank(*p))
		p++;
	if (e - p < 3 || p[0] != '-' || p[1] != '>')
		return false;
	p += 2;
	while (p < e && blank(*p))
		p++;
	const char *o = p, *oe = e - 1;
	while (oe > o && blank(oe[-1]))
		oe--;
	if (oe == o)
		return false;
	for (const char *q = o; q < oe; q++)
		if (blank(*q) || *q == ':')
			return false;
	*obf = o;
	*obf_len = (size_t)(oe - o);
	return true;
}

/* ---- the little JSON of metadata comments: {"id":"...",...} ---- */

const char *pg_json_ws(const char *p, const char *e)
{
	while (p < e && (blank(*p) || *p == '\r' || *p == '\n'))
		p++;
	return p;
}

/* p at a quote (" or '); returns past the closing quote, or NULL. */
const char *pg_json_string(const char *p, const char *e, const char **s, size_t *n)
{
	char q = *p++;
	const char *start = p;
	while (p < e && *p != q) {
		if (*p == '\\' && p + 1 < e)
			p++;
		p++;
	}
	if (p >= e)
		return NULL;
	*s = start;
	*n = (size_t)(p - start);
	return p + 1;
}

const char *pg_json_skip(const char *p, const char *e, int depth)
{
	p = pg_json_ws(p, e);
	if (p >= e || depth > 16)
		return NULL;
	if (*p == '"' || *p == '\'') {
		const char *s;
		size_t n;
		return pg_json_string(p, e, &s, &n);
	}
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';
		bool object = *p == '{';
		p = pg_json_ws(p + 1, e);
		if (p < e && *p == close)
			return p + 1;
		for (;;) {
			if (object) {
				p = pg_json_skip(p, e, depth + 1);
				p = p ? pg_json_ws(p, e) : NULL;
				if (!p || p >= e || *p != ':')
					return NULL;
				p++;
			}
			p = pg_json_skip(p, e, depth + 1);
			p = p ? pg_json_ws(p, e) : NULL;
			if (!p || p >= e)
				return NULL;
			if (*p == close)
				return p + 1;
			if (*p != ',')
				return NULL;
			p++;
		}
	}
	const char *start = p;
	while (p < e && *p != ',' && *p != '}' && *p != ']' && *p != ':' && !blank(*p))
		p++;
	return p > start ? p : NULL;
}

/* Finds key in the object s[0..len): *val at its value. */
bool pg_meta_find(const char *s, size_t len, const char *key, const char **val,
		  const char **end)
{
	const char *p = s, *e = s + len;
	p = pg_json_ws(p, e);
	if (p >= e || *p != '{')
		return false;
	p = pg_json_ws(p + 1, e);
	size_t klen = strlen(key);
	while (p < e && (*p == '"' || *p == '\'')) {
		const char *k;
		size_t kn;
		p = pg_json_string(p, e, &k, &kn);
		p = p ? pg_json_ws(p, e) : NULL;
		if (!p || p >= e || *p != ':')
			return false;
		p = pg_json_ws(p + 1, e);
		if (kn == klen && memcmp(k, key, klen) == 0) {
			*val = p;
			*end = e;
			return true;
		}
		p = pg_json_skip(p, e, 0);
		p = p ? pg_json_ws(p, e) : NULL;
		if (!p || p >= e || *p != ',')
			return false;
		p = pg_json_ws(p + 1, e);
	}
	return false;
}

bool pg_meta_string(const char *s, size_t len, const char *key, const char **val,
		    size_t *val_len)
{
	const char *v, *e;
	if (!pg_meta_find(s, len, key, &v, &e) || v >= e || (*v != '"' && *v != '\''))
		return false;
	return pg_json_string(v, e, val, val_len) != NULL;
}

bool pg_meta_id(const char *s, size_t len, const char **id, size_t *id_len)
{
	return pg_meta_string(s, len, "id", id, id_len) && *id_len > 0;
}

static const struct {
	const char *id;
	size_t len;
} known_ids[] = {
#define ID(s) {s, sizeof s - 1}
	ID("sourceFile"),
	ID("com.android.tools.r8.synthesized"),
	ID("com.android.tools.r8.outline"),
	ID("com.android.tools.r8.outlineCallsite"),
	ID("com.android.tools.r8.rewriteFrame"),
	ID("com.android.tools.r8.residualsignature"),
	ID("com.android.tools.r8.mapping"),
#undef ID
};

bool pg_known_id(const char *id, size_t len)
{
	for (size_t i = 0; i < sizeof known_ids / sizeof *known_ids; i++)
		if (known_ids[i].len == len && memcmp(known_ids[i].id, id, len) == 0)
			return true;
	return false;
}

/* ---- the pass ---- */

static void warn(struct worker *w, long line, const char *fmt, ...) HG_PRINTF(3, 4);

static void warn(struct worker *w, long line, const char *fmt, ...)
{
	w->skipped++;
	if (w->n_warn == PG_MAX_WARNINGS)
		return;
	struct pending *p = &w->warn[w->n_warn++];
	p->line = line;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->msg, sizeof p->msg, fmt, ap);
	va_end(ap);
}

static size_t line_len(const char *text, size_t at, size_t limit)
{
	const char *nl = memchr(text + at, '\n', limit - at);
	return nl ? (size_t)(nl - (text + at)) : limit - at;
}

static void class_line(struct worker *w, const char *text, size_t at, size_t limit, size_t base,
		       long line)
{
	size_t len = line_len(text, at, limit);
	const char *orig, *obf;
	size_t orig_len, obf_len;
	if (base + at == 0 && len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
		at += 3; /* a UTF-8 byte order mark */
		len -= 3;
	}
	if (len > PG_MAX_LINE) {
		warn(w, line, "line longer than %zu bytes; skipped", PG_MAX_LINE);
		return;
	}
	if (!pg_class_line(text + at, len, &orig, &orig_len, &obf, &obf_len)) {
		warn(w, line, "expected 'original.Class -> obfuscated:' or an indented member line; "
			      "line skipped");
		return;
	}
	if (w->n == w->cap) {
		/* A class every ~2 KB is typical: reserve that much at once (pages
		 * not written cost nothing), then double. */
		size_t cap = w->cap ? w->cap * 2 : (w->end - w->begin) / 2048 + 1024;
		struct pg_rec *r = realloc(w->recs, cap * sizeof *r);
		if (!r) {
			w->rc = HG_ENOMEM;
			return;
		}
		w->recs = r;
		w->cap = cap;
	}
	w->recs[w->n++] = (struct pg_rec){(uint32_t)(base + at), (uint32_t)line,
					  pg_hash(obf, obf_len), pg_hash(orig, orig_len)};
	w->seen_class = true;
}

static void copy_trimmed(char *dst, size_t size, const char *s, size_t len)
{
	while (len && blank(*s))
		s++, len--;
	while (len && (blank(s[len - 1]) || s[len - 1] == '\r'))
		len--;
	if (len >= size)
		len = size - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
}

/* A comment line (its '#' at text[at]): the metadata id, or the
 * pg_map_id header.  Comments indented under a member are the member's:
 * they are read when its class is expanded. */
static void comment(struct worker *w, const char *text, size_t at, size_t limit, long line)
{
	/* The usual case first: '# {"id":"<known>"', named without parsing. */
	static const char head[] = "# {\"id\":\"";
	if (limit - at > sizeof head && memcmp(text + at, head, sizeof head - 1) == 0) {
		const char *id = text + at + sizeof head - 1;
		size_t room = limit - (size_t)(id - text);
		const char *q = memchr(id, '"', room < 64 ? room : 64);
		if (q && !memchr(id, '\n', (size_t)(q - id)) && pg_known_id(id, (size_t)(q - id)) &&
		    !(q - id == 28 && memcmp(id, "com.android.tools.r8.mapping", 28) == 0))
			return;
	}
	size_t len = line_len(text, at, limit);
	const char *s = text + at + 1, *e = text + at + len;
	while (s < e && blank(*s))
		s++;
	if (s < e && *s == '{') {
		const char *id;
		size_t id_len;
		if (!pg_meta_id(s, (size_t)(e - s), &id, &id_len)) {
			warn(w, line, "metadata comment without an \"id\"; ignored");
			return;
		}
		if (id_len == strlen("com.android.tools.r8.mapping") &&
		    memcmp(id, "com.android.tools.r8.mapping", id_len) == 0) {
			const char *v;
			size_t vn;
			if (pg_meta_string(s, (size_t)(e - s), "version", &v, &vn) && !w->version[0]) {
				copy_trimmed(w->version, sizeof w->version, v, vn);
				w->version_line = line;
			}
			return;
		}
		if (pg_known_id(id, id_len))
			return;
		for (size_t k = 0; k < w->n_ids; k++)
			if (strlen(w->ids[k].id) == id_len && memcmp(w->ids[k].id, id, id_len) == 0)
				return;
		if (w->n_ids < MAX_IDS) {
			w->ids[w->n_ids].line = line;
			copy_trimmed(w->ids[w->n_ids].id, sizeof w->ids[0].id, id, id_len);
			w->n_ids++;
		}
		return;
	}
	static const char key[] = "pg_map_id:";
	if (w->first && !w->seen_class && !w->map_id[0] && (size_t)(e - s) > sizeof key - 1 &&
	    memcmp(s, key, sizeof key - 1) == 0)
		copy_trimmed(w->map_id, sizeof w->map_id, s + sizeof key - 1,
			     (size_t)(e - s) - (sizeof key - 1));
}

/* A line start that is neither a class line nor a comment, before the first
 * class line: blank, or a member without a class. */
static void before_class(struct worker *w, const char *text, size_t at, size_t limit, long line)
{
	size_t len = line_len(text, at, limit);
	const char *s = text + at, *e = s + len;
	if (line == 1 && len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
		s += 3;
	while (s < e && (blank(*s) || *s == '\r'))
		s++;
	if (s < e && *s == '#')
		comment(w, text, (size_t)(s - text), limit, line);
	else if (s < e)
		warn(w, line, "member line before any class line; skipped");
}

/* Newlines, and bytes that may start a class or comment line (not blank:
 * above ' '). */
struct masks {
	uint64_t nl, start;
};

static inline void block_masks(const char *p, struct masks *m)
{
#ifdef __SSE2__
	const __m128i nl = _mm_set1_epi8('\n'), lo = _mm_set1_epi8(0x21);
	m->nl = m->start = 0;
	for (int i = 0; i < 4; i++) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i));
		m->nl |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl)) << (16 * i);
		m->start |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(v, lo), v))
			    << (16 * i);
	}
#else
	m->nl = m->start = 0;
	for (int i = 0; i < 64; i++) {
		unsigned char c = (unsigned char)p[i];
		m->nl |= (uint64_t)(c == '\n') << i;
		m->start |= (uint64_t)(c >= 0x21) << i;
	}
#endif
}

#ifdef PG_X86_DISPATCH
__attribute__((target("avx2"))) static void block_masks_avx2(const char *p, struct masks *m)
{
	const __m256i nl = _mm256_set1_epi8('\n'), lo = _mm256_set1_epi8(0x21);
	m->nl = m->start = 0;
	for (int i = 0; i < 2; i++) {
		__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32 * i));
		m->nl |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, nl)) << (32 * i);
		m->start |= (uint64_t)(uint32_t)_mm256_movemask_epi8(
				    _mm256_cmpeq_epi8(_mm256_max_epu8(v, lo), v))
			    << (32 * i);
	}
}
#endif

/* Scans text[0..limit), which starts at a line start (file offset base)
 * and holds complete lines (the last one may lack its newline at the end
 * of the part).  Inlined twice: a build for any x86-64 has no popcnt
 * instruction, and counting lines with the library's popcount costs more
 * than finding them. */
static inline __attribute__((always_inline)) void scan_body(struct worker *w, const char *text,
							    size_t limit, size_t base, bool wide)
{
	(void)wide; /* only x86-64 has a wide version */
	uint64_t carry = 1; /* text[0] starts a line */
	for (size_t k = 0; 64 * k < limit && w->rc == 0; k++) {
		struct masks m;
		size_t avail = limit - 64 * k;
		uint64_t valid = ~(uint64_t)0;
		if (avail >= 64) {
#ifdef PG_X86_DISPATCH
			if (wide)
				block_masks_avx2(text + 64 * k, &m);
			else
#endif
				block_masks(text + 64 * k, &m);
		} else {
			char tail[64];
			memset(tail, 0, sizeof tail);
			memcpy(tail, text + 64 * k, avail);
			block_masks(tail, &m);
			valid = ((uint64_t)1 << avail) - 1;
		}
		uint64_t starts = ((m.nl << 1) | carry) & valid;
		carry = m.nl >> 63;
		uint64_t cand = w->seen_class ? starts & m.start : starts;
		for (; cand; cand &= cand - 1) {
			unsigned b = (unsigned)__builtin_ctzll(cand);
			size_t at = 64 * k + b;
			long line = w->lines + __builtin_popcountll(m.nl & (((uint64_t)1 << b) - 1)) + 1;
			if (!(m.start >> b & 1)) {
				if (!w->seen_class) /* (the class may start in this block) */
					before_class(w, text, at, limit, line);
			}
			else if (text[at] == '#')
				comment(w, text, at, limit, line);
			else
				class_line(w, text, at, limit, base, line);
		}
		w->lines += __builtin_popcountll(m.nl & valid);
	}
}

#ifdef PG_X86_DISPATCH
__attribute__((target("popcnt,avx2"))) static void scan_avx2(struct worker *w, const char *text,
							     size_t limit, size_t base)
{
	scan_body(w, text, limit, base, true);
}

__attribute__((target("popcnt"))) static void scan_popcnt(struct worker *w, const char *text,
							  size_t limit, size_t base)
{
	scan_body(w, text, limit, base, false);
}
#endif

static void scan(struct worker *w, const char *text, size_t limit, size_t base)
{
#ifdef PG_X86_DISPATCH
	__builtin_cpu_init();
	if (__builtin_cpu_supports("popcnt") && __builtin_cpu_supports("avx2"))
		scan_avx2(w, text, limit, base);
	else if (__builtin_cpu_supports("popcnt"))
		scan_popcnt(w, text, limit, base);
	else
#endif
		scan_body(w, text, limit, base, false);
}

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

static void *index_part(void *arg)
{
	struct worker *w = arg;
	hg_proguard *pg = w->pg;
	if (pg->fd < 0) {
		scan(w, pg->data + w->begin, w->end - w->begin, w->begin);
		return NULL;
	}
	char *buf = malloc(CHUNK);
	if (!buf) {
		w->rc = HG_ENOMEM;
		return NULL;
	}
	size_t base = w->begin, filled = 0;
	bool eof = false, skipping = false;
	while (!eof && w->rc == 0) {
		size_t want = CHUNK - filled, left = w->end - (base + filled);
		ssize_t n = left ? pread(pg->fd, buf + filled, want < left ? want : left,
					 (off_t)(base + filled))
				 : 0;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			w->err = errno;
			w->rc = HG_EIO;
			break;
		}
		eof = n == 0;
		filled += (size_t)n;
		size_t used = 0;
		if (skipping) { /* the rest of an overlong line */
			const char *nl = memchr(buf, '\n', filled);
			used = nl ? (size_t)(nl - buf) + 1 : filled;
			if (nl)
				w->lines++;
			skipping = !nl && !eof;
		}
		size_t limit = filled;
		if (!eof) {
			while (limit > used && buf[limit - 1] != '\n')
				limit--;
		}
		if (limit > used) {
			scan(w, buf + used, limit - used, base + used);
			used = limit;
		} else if (!eof && used == 0 && filled == CHUNK) {
			const char *t = buf;
			while (t < buf + filled && blank(*t))
				t++;
			if (*t != '#')
				warn(w, w->lines + 1, "line longer than %zu bytes; skipped", PG_MAX_LINE);
			skipping = true;
			used = filled;
		}
		memmove(buf, buf + used, filled - used);
		filled -= used;
		base += used;
	}
	free(buf);
	return NULL;
}

static size_t split_point(const hg_proguard *pg)
{
	if (pg->fd < 0 || pg->len < SPLIT_AT || sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return 0;
	char buf[4096];
	for (size_t at = pg->len / 2; at < pg->len;) {
		long n = pg_read_at(pg, at, buf, sizeof buf);
		if (n <= 0)
			return 0;
		const char *nl = memchr(buf, '\n', (size_t)n);
		if (nl) {
			size_t split = at + (size_t)(nl - buf) + 1;
			return split < pg->len ? split : 0;
		}
		at += (size_t)n;
	}
	return 0;
}

/* The obfuscated name of record r (read back from the file) into buf. */
static bool rec_obf(const hg_proguard *pg, const struct pg_rec *r, char *buf, size_t size,
		    const char **obf, size_t *obf_len)
{
	long n = pg_read_at(pg, r->off, buf, size);
	if (n <= 0)
		return false;
	const char *nl = memchr(buf, '\n', (size_t)n);
	size_t len = nl ? (size_t)(nl - buf) : (size_t)n;
	const char *orig;
	size_t orig_len;
	return pg_class_line(buf, len, &orig, &orig_len, obf, obf_len);
}

/* Builds the obfuscated-name table; a name seen before keeps its first
 * block (names are compared only when their hashes are equal). */
static int build_table(hg_proguard *pg, struct worker *dups)
{
	size_t cap = 16;
	while (cap < pg->n_recs + pg->n_recs / 2)
		cap *= 2;
	pg->obf_slots = calloc(cap, sizeof *pg->obf_slots);
	if (!pg->obf_slots)
		return HG_ENOMEM;
	pg->obf_mask = cap - 1;
	char a[1024], b[1024];
	for (size_t i = 0; i < pg->n_recs; i++) {
		const struct pg_rec *r = &pg->recs[i];
		size_t at = r->obf_hash & pg->obf_mask;
		bool dup = false;
		for (; pg->obf_slots[at]; at = (at + 1) & pg->obf_mask) {
			const struct pg_rec *o = &pg->recs[pg->obf_slots[at] - 1];
			const char *x, *y;
			size_t xn, yn;
			if (o->obf_hash == r->obf_hash && rec_obf(pg, o, a, sizeof a, &x, &xn) &&
			    rec_obf(pg, r, b, sizeof b, &y, &yn) && xn == yn && memcmp(x, y, xn) == 0) {
				warn(dups, r->line,
				     "obfuscated class '%.*s' is mapped again (first at line %u); "
				     "this block is ignored",
				     (int)(yn < 100 ? yn : 100), y, o->line);
				dup = true;
				break;
			}
		}
		if (!dup)
			pg->obf_slots[at] = (uint32_t)i + 1;
	}
	return 0;
}

/* A warning to send: a line's, or an unknown metadata id's. */
struct outgoing {
	long line;
	const char *msg;  /* line warning */
	const char *id;   /* or unknown id */
};

static int by_line(const void *a, const void *b)
{
	const struct outgoing *x = a, *y = b;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Sends the workers' warnings in file order (line warnings: the first
 * PG_MAX_WARNINGS, then a count; unknown ids once each). */
static void send_warnings(hg_proguard *pg, struct worker *w, int n, const struct worker *dups)
{
	struct outgoing out[3 * PG_MAX_WARNINGS + 2 * MAX_IDS];
	size_t k = 0;
	long before = 0;
	for (size_t j = 0; j < dups->n_warn; j++) /* absolute line numbers */
		out[k++] = (struct outgoing){dups->warn[j].line, dups->warn[j].msg, NULL};
	pg->skipped += dups->skipped;
	for (int i = 0; i < n; i++) {
		for (size_t j = 0; j < w[i].n_warn; j++)
			out[k++] = (struct outgoing){before + w[i].warn[j].line, w[i].warn[j].msg, NULL};
		for (size_t j = 0; j < w[i].n_ids; j++) {
			bool seen = false;
			for (int a = 0; a < i && !seen; a++)
				for (size_t q = 0; q < w[a].n_ids && !seen; q++)
					seen = strcmp(w[a].ids[q].id, w[i].ids[j].id) == 0;
			if (!seen)
				out[k++] = (struct outgoing){before + w[i].ids[j].line, NULL, w[i].ids[j].id};
		}
		pg->skipped += w[i].skipped;
		before += w[i].lines;
	}
	qsort(out, k, sizeof *out, by_line);
	for (size_t j = 0; j < k; j++) {
		if (out[j].id) {
			pg_unknown_id(pg, out[j].id, strlen(out[j].id), out[j].line);
		} else if (pg->warned < PG_MAX_WARNINGS) {
			hg_diagf(&pg->ctx, HG_DIAG_WARNING, pg->name, out[j].line, 0, 0, "%s", out[j].msg);
			pg->warned++;
		}
	}
	if (pg->skipped > PG_MAX_WARNINGS)
		hg_diagf(&pg->ctx, HG_DIAG_WARNING, pg->name, 0, 0, 0,
			 "%zu malformed lines skipped in all (only the first %d are listed)", pg->skipped,
			 PG_MAX_WARNINGS);
	if (w[0].version[0] && atol(w[0].version) > MAP_VERSION_MAJOR)
		hg_diagf(&pg->ctx, HG_DIAG_WARNING, pg->name, w[0].version_line, 0, 0,
			 "mapping format version %s is newer than this reader knows (2.x); "
			 "reading it anyway",
			 w[0].version);
}

int pg_index(hg_proguard *pg)
{
	struct worker w[2] = {{.pg = pg, .begin = 0, .end = pg->len, .first = true}, {.pg = pg}};
	int n = 1;
	size_t split = split_point(pg);
	pthread_t thread;
	if (split) {
		w[0].end = split;
		w[1].begin = split;
		w[1].end = pg->len;
		w[1].seen_class = true; /* its first lines belong to a class of the first part */
		if (pthread_create(&thread, NULL, index_part, &w[1]) == 0)
			n = 2;
		else
			w[0].end = pg->len;
	}
	index_part(&w[0]);
	if (n == 2)
		pthread_join(thread, NULL);
	int rc = w[0].rc ? w[0].rc : n == 2 ? w[1].rc : 0;
	if (rc == HG_EIO)
		hg_diagf(&pg->ctx, HG_DIAG_ERROR, pg->name, 0, 0, 0, "cannot read mapping: %s",
			 strerror(w[0].rc ? w[0].err : w[1].err));
	if (rc == 0) {
		/* The first part's array, grown in place, takes the second's. */
		size_t total = w[0].n + (n == 2 ? w[1].n : 0);
		struct pg_rec *recs = realloc(w[0].recs, (total ? total : 1) * sizeof *recs);
		if (!recs)
			rc = HG_ENOMEM;
		else {
			w[0].recs = NULL;
			for (size_t i = 0; n == 2 && i < w[1].n; i++) {
				recs[w[0].n + i] = w[1].recs[i];
				recs[w[0].n + i].line += (uint32_t)w[0].lines;
			}
			pg->recs = recs;
			pg->n_recs = total;
		}
	}
	struct worker dups = {.pg = pg};
	if (rc == 0)
		rc = build_table(pg, &dups);
	if (rc == 0) {
		send_warnings(pg, w, n, &dups);
		if (w[0].map_id[0] && !(pg->map_id = strdup(w[0].map_id)))
			rc = HG_ENOMEM;
	}
	if (rc == 0 && pg->n_recs == 0 && pg->skipped > 0) {
		hg_diagf(&pg->ctx, HG_DIAG_ERROR, pg->name, 0, 0, 0,
			 "not a ProGuard/R8 mapping: no 'original.Class -> obfuscated:' line");
		rc = HG_EPARSE;
	}
	for (int i = 0; i < 2; i++)
		free(w[i].recs);
	return rc;
}
