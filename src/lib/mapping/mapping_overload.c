/* Overloads: two ids of one methodMapping.txt with the same class and
 * method name and another descriptor, such as a generic method and the
 * bridge javac made for it
 *   onChanged (Ljava.lang.Object;)V   and   onChanged (Lcom...UserIntimacyWrapper;)V
 *   get (ILjava.lang.String;)Lcom...UserModelEntity;
 *   get (ILjava.lang.String;)Lio.objectbox...ObjectBoxEntityImpl;
 * must not print alike, or a tree, a cluster signature and a flame graph
 * mix two methods.  Names show what tells them apart: the parameters'
 * simple names when those differ (most overloads: nothing changes), their
 * whole class names when only the packages differ, and " -> Return" when
 * only the return type differs ("get(int, String) -> UserModelEntity").
 *
 * Indexing hashes each line's "class method" (mapping_index.c); here the
 * ids whose hash another shares are kept, sorted by it, so that a lookup
 * finds an id's namesakes by a binary search and reads only their lines. */
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "hangar/text.h"
#include "mapping_internal.h"

/* Namesakes compared at most: an obfuscated class can give hundreds of
 * methods the name "a"; past this many the name stays as formatted. */
#define MAX_NAMESAKES 256

/* LSD radix sort by the 32-bit hash, 11 bits at a time: every pass reads
 * the keys in order and writes 2048 streams, which stay in cache. */
int mapping_sort_keys(uint64_t **keys, size_t n)
{
	if (n < 2)
		return 0;
	uint64_t *tmp = hg_big_alloc(n * sizeof *tmp), *a = *keys;
	size_t *count = calloc(3 * 2048, sizeof *count);
	if (!tmp || !count) {
		free(tmp);
		free(count);
		return HG_ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t h = a[i] >> 20;
		count[h & 2047]++;
		count[2048 + (h >> 11 & 2047)]++;
		count[4096 + (h >> 22 & 2047)]++;
	}
	for (unsigned d = 0; d < 3; d++) {
		size_t *c = count + 2048 * d;
		for (size_t b = 0, sum = 0; b < 2048; b++) {
			size_t v = c[b];
			c[b] = sum;
			sum += v;
		}
		for (size_t i = 0; i < n; i++)
			tmp[c[a[i] >> (20 + 11 * d) & 2047]++] = a[i];
		uint64_t *t = a;
		a = tmp;
		tmp = t;
	}
	free(tmp); /* the first block, or the one allocated here: the other holds the keys */
	free(count);
	*keys = a;
	return 0;
}

/* Appends k to the kept keys; 0 or HG_ENOMEM. */
static int keep(uint64_t **out, size_t *n, size_t *cap, uint64_t k)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 1024;
		uint64_t *p = realloc(*out, c * sizeof *p);
		if (!p)
			return HG_ENOMEM;
		*out = p;
		*cap = c;
	}
	(*out)[(*n)++] = k;
	return 0;
}

int mapping_overloads_index(hg_mapping *m, const uint64_t *a, size_t na, const uint64_t *b,
			    size_t nb)
{
	/* Both parts' keys merged in hash order; a key whose hash the one
	 * before it has is kept, with that one (the first of its run). */
	uint64_t *out = NULL, prev = 0;
	size_t n = 0, cap = 0, i = 0, j = 0, run = 0;
	int err = 0;
	while (!err && (i < na || j < nb)) {
		uint64_t k = j >= nb || (i < na && a[i] >> 20 <= b[j] >> 20) ? a[i++] : b[j++];
		if (run && k >> 20 == prev >> 20) {
			if (run == 1)
				err = keep(&out, &n, &cap, prev);
			if (!err && run < MAX_NAMESAKES) /* past it, namesakes are not compared */
				err = keep(&out, &n, &cap, k);
			run++;
		} else {
			prev = k;
			run = 1;
		}
	}
	if (err) {
		free(out);
		return err;
	}
	m->names = out;
	m->n_names = n;
	return 0;
}

/* The first kept key with this hash, or n_names. */
static size_t first_namesake(const hg_mapping *m, uint32_t hash)
{
	size_t lo = 0, hi = m->n_names;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->names[mid] >> 20 < hash)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The parameter part of a descriptor, "(...)"; its length, 0 when none. */
static size_t params_len(const char *desc, size_t len)
{
	if (!len || desc[0] != '(')
		return 0;
	const char *close = memchr(desc, ')', len);
	return close ? (size_t)(close - desc) + 1 : 0;
}

/* Whether two descriptors' parameters print alike by simple names. */
static bool same_simple_params(hg_arena *arena, const char *a, size_t alen, const char *b,
			       size_t blen)
{
	char *x = mapping_format_method(arena, "", 0, "", 0, a, alen, 0);
	char *y = mapping_format_method(arena, "", 0, "", 0, b, blen, 0);
	return x && y && strcmp(x, y) == 0;
}

/* What must show to tell e apart from its namesakes: JAVA_* bits. */
static unsigned telling_apart(const hg_mapping *m, int32_t id, const hg_mapping_entry *e,
			      hg_arena *arena)
{
	uint32_t hash = mapping_name_hash32(e->cls, e->cls_len, e->method, e->method_len,
					    e->desc + e->desc_len);
	size_t plen = params_len(e->desc, e->desc_len);
	if (!plen)
		return 0; /* no descriptor to tell by */
	unsigned how = 0;
	size_t seen = 0;
	for (size_t i = first_namesake(m, hash);
	     i < m->n_names && m->names[i] >> 20 == hash && seen < MAX_NAMESAKES; i++) {
		int32_t other = (int32_t)(m->names[i] & 0xFFFFF);
		hg_mapping_entry o;
		if (other == id || hg_mapping_lookup(m, other, arena, &o) != 0)
			continue;
		seen++;
		if (o.cls_len != e->cls_len || memcmp(o.cls, e->cls, e->cls_len) ||
		    o.method_len != e->method_len || memcmp(o.method, e->method, e->method_len) ||
		    (o.desc_len == e->desc_len && !memcmp(o.desc, e->desc, e->desc_len)))
			continue; /* another name, or the same method twice */
		size_t olen = params_len(o.desc, o.desc_len);
		if (olen == plen && !memcmp(o.desc, e->desc, plen)) {
			/* Only the return type differs: say it, whole when the
			 * simple names are alike too. */
			how |= JAVA_RETURN;
			char *r1 = mapping_format_method(arena, "", 0, "", 0, e->desc, e->desc_len,
							 JAVA_RETURN);
			char *r2 = mapping_format_method(arena, "", 0, "", 0, o.desc, o.desc_len,
							 JAVA_RETURN);
			if (r1 && r2 && !strcmp(r1, r2))
				how |= JAVA_QUALIFIED_RETURN;
		} else if (olen && same_simple_params(arena, o.desc, olen, e->desc, plen)) {
			how |= JAVA_QUALIFIED_PARAMS;
		}
	}
	return how;
}

const char *mapping_overload_symbol(const hg_mapping *m, int32_t id, const hg_mapping_entry *e,
				    hg_arena *arena)
{
	unsigned how = m->n_names ? telling_apart(m, id, e, arena) : 0;
	return mapping_format_method(arena, e->cls, e->cls_len, e->method, e->method_len, e->desc,
				     e->desc_len, how);
}
