/* The line scanner of the index pass (proguard_index.c).
 *
 * For each 64-byte block two bitmaps are built with SSE2 (AVX2 when the
 * CPU has it): newlines, and bytes that may start a class or comment line
 * (not blank).  Member lines are indented, so a class line is a line start
 * whose first byte is in the second map: only those lines, and comment
 * lines, are ever looked at; the hundreds of thousands of member lines cost
 * their bits and nothing else.  A class line leaves its offset, line number
 * and the hashes of both names. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define PG_X86_DISPATCH 1 /* AVX2 and popcnt when the CPU has them */
#endif

#include "proguard_index.h"

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

bool pg_class_line(const char *s, size_t len, const char **orig, size_t *orig_len,
		   const char **obf, size_t *obf_len)
{
	const char *e = s + len;
	while (e > s && (pg_blank(e[-1]) || e[-1] == '\r'))
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
	while (p < e && pg_blank(*p))
		p++;
	if (e - p < 3 || p[0] != '-' || p[1] != '>')
		return false;
	p += 2;
	while (p < e && pg_blank(*p))
		p++;
	const char *o = p, *oe = e - 1;
	while (oe > o && pg_blank(oe[-1]))
		oe--;
	if (oe == o)
		return false;
	for (const char *q = o; q < oe; q++)
		if (pg_blank(*q) || *q == ':')
			return false;
	*obf = o;
	*obf_len = (size_t)(oe - o);
	return true;
}

/* ---- the lines ---- */

void pg_worker_warn(struct pg_worker *w, long line, const char *fmt, ...)
{
	w->skipped++;
	if (w->n_warn == PG_MAX_WARNINGS)
		return;
	struct pg_pending *p = &w->warn[w->n_warn++];
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

static void class_line(struct pg_worker *w, const char *text, size_t at, size_t limit, size_t base,
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
		pg_worker_warn(w, line, "line longer than %zu bytes; skipped", PG_MAX_LINE);
		return;
	}
	if (!pg_class_line(text + at, len, &orig, &orig_len, &obf, &obf_len)) {
		pg_worker_warn(w, line, "expected 'original.Class -> obfuscated:' or an indented member line; "
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
	while (len && pg_blank(*s))
		s++, len--;
	while (len && (pg_blank(s[len - 1]) || s[len - 1] == '\r'))
		len--;
	if (len >= size)
		len = size - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
}

/* A comment line (its '#' at text[at]): the metadata id, or the
 * pg_map_id header.  Comments indented under a member are the member's:
 * they are read when its class is expanded. */
static void comment(struct pg_worker *w, const char *text, size_t at, size_t limit, long line)
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
	while (s < e && pg_blank(*s))
		s++;
	if (s < e && *s == '{') {
		const char *id;
		size_t id_len;
		if (!pg_meta_id(s, (size_t)(e - s), &id, &id_len)) {
			pg_worker_warn(w, line, "metadata comment without an \"id\"; ignored");
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
		if (w->n_ids < PG_MAX_IDS) {
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
static void before_class(struct pg_worker *w, const char *text, size_t at, size_t limit, long line)
{
	size_t len = line_len(text, at, limit);
	const char *s = text + at, *e = s + len;
	if (line == 1 && len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
		s += 3;
	while (s < e && (pg_blank(*s) || *s == '\r'))
		s++;
	if (s < e && *s == '#')
		comment(w, text, (size_t)(s - text), limit, line);
	else if (s < e)
		pg_worker_warn(w, line, "member line before any class line; skipped");
}

/* A line of more than PG_MAX_LINE bytes, text[at..at+len): a class line
 * warned of already (class_line), a comment (kept: metadata may be long),
 * blank, or a member line, which is skipped when its class is expanded
 * (pg_expand) and is warned of here, once.  Members before any class line
 * were warned of by before_class. */
static void long_line(struct pg_worker *w, const char *text, size_t at, size_t len,
		      bool after_class, long line)
{
	const char *s = text + at, *e = s + len;
	if (!after_class || !pg_blank(*s))
		return;
	while (s < e && (pg_blank(*s) || *s == '\r'))
		s++;
	if (s < e && *s != '#')
		pg_worker_warn(w, line, "line longer than %zu bytes; skipped", PG_MAX_LINE);
}

/* ---- the bitmaps ---- */

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

/* pg_scan.  Inlined twice: a build for any x86-64 has no popcnt
 * instruction, and counting lines with the library's popcount costs more
 * than finding them. */
static inline __attribute__((always_inline)) void scan_body(struct pg_worker *w, const char *text,
							    size_t limit, size_t base, bool wide)
{
	(void)wide; /* only x86-64 has a wide version */
	uint64_t carry = 1; /* text[0] starts a line */
	/* Where the line at hand starts, and whether a class line came before
	 * it: overlong lines are found from the first newline of each block. */
	size_t line_start = 0;
	bool after_class = w->seen_class;
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
		uint64_t nls = m.nl & valid;
		if (nls) {
			size_t first = 64 * k + (size_t)__builtin_ctzll(nls);
			if (first - line_start > PG_MAX_LINE)
				long_line(w, text, line_start, first - line_start, after_class,
					  w->lines + 1);
			line_start = 64 * k + 64 - (size_t)__builtin_clzll(nls);
			after_class = w->seen_class;
		}
		w->lines += __builtin_popcountll(nls);
	}
	if (w->rc == 0 && limit - line_start > PG_MAX_LINE) /* the last line, without a newline */
		long_line(w, text, line_start, limit - line_start, after_class, w->lines + 1);
}

#ifdef PG_X86_DISPATCH
__attribute__((target("popcnt,avx2"))) static void scan_avx2(struct pg_worker *w, const char *text,
							     size_t limit, size_t base)
{
	scan_body(w, text, limit, base, true);
}

__attribute__((target("popcnt"))) static void scan_popcnt(struct pg_worker *w, const char *text,
							  size_t limit, size_t base)
{
	scan_body(w, text, limit, base, false);
}
#endif

void pg_scan(struct pg_worker *w, const char *text, size_t limit, size_t base)
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
