/* Finding a class of a ProGuard / R8 mapping by name: the index's table by
 * obfuscated name, and by original name (built on first use), whose hashes
 * are checked against the class line read back from the file; and the
 * cache, under the mapping's lock, of classes expanded (proguard_block.c)
 * and of source files found. */
#include <stdlib.h>
#include <string.h>

#include "proguard_internal.h"

/* ---- a string-keyed map in an arena ---- */

bool pg_map_get(const struct pg_map *m, const char *k, size_t len, void **val)
{
	if (!m->cap)
		return false;
	for (size_t at = pg_hash(k, len) & (m->cap - 1); m->keys[at]; at = (at + 1) & (m->cap - 1))
		if (strncmp(m->keys[at], k, len) == 0 && m->keys[at][len] == '\0') {
			*val = m->vals[at];
			return true;
		}
	return false;
}

int pg_map_put(struct pg_map *m, hg_arena *arena, const char *k, size_t len, void *val)
{
	if (2 * (m->n + 1) > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		const char **keys = hg_arena_calloc(arena, cap, sizeof *keys);
		void **vals = hg_arena_calloc(arena, cap, sizeof *vals);
		if (!keys || !vals)
			return HG_ENOMEM;
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->keys[i])
				continue;
			size_t at = pg_hash(m->keys[i], strlen(m->keys[i])) & (cap - 1);
			while (keys[at])
				at = (at + 1) & (cap - 1);
			keys[at] = m->keys[i];
			vals[at] = m->vals[i];
		}
		m->keys = keys;
		m->vals = vals;
		m->cap = cap;
	}
	char *key = hg_arena_strndup(arena, k, len);
	if (!key)
		return HG_ENOMEM;
	size_t at = pg_hash(k, len) & (m->cap - 1);
	while (m->keys[at])
		at = (at + 1) & (m->cap - 1);
	m->keys[at] = key;
	m->vals[at] = val;
	m->n++;
	return 0;
}

/* ---- finding a class line ---- */

/* The line at off (at most PG_MAX_LINE bytes), malloc'd; NULL on error. */
static char *read_line(const hg_proguard *pg, size_t off, size_t *len)
{
	size_t cap = 512, got = 0;
	char *buf = NULL;
	for (;;) {
		char *p = realloc(buf, cap + 1);
		if (!p) {
			free(buf);
			return NULL;
		}
		buf = p;
		long n = pg_read_at(pg, off + got, buf + got, cap - got);
		if (n < 0) {
			free(buf);
			return NULL;
		}
		const char *nl = memchr(buf + got, '\n', (size_t)n);
		got += (size_t)n;
		if (nl || n == 0 || got < cap || cap >= PG_MAX_LINE) {
			*len = nl ? (size_t)(nl - buf) : got;
			buf[*len] = '\0';
			return buf;
		}
		cap *= 8;
	}
}

/* Whether record r's class line names `want` (obfuscated or original). */
static bool rec_names(const hg_proguard *pg, const struct pg_rec *r, const char *want,
		      size_t len, bool original)
{
	size_t n;
	char *line = read_line(pg, r->off, &n);
	const char *orig, *obf;
	size_t orig_len, obf_len;
	bool ok = line && pg_class_line(line, n, &orig, &orig_len, &obf, &obf_len) &&
		  (original ? orig_len == len && memcmp(orig, want, len) == 0
			    : obf_len == len && memcmp(obf, want, len) == 0);
	free(line);
	return ok;
}

/* The record of obfuscated class cls, or -1. */
static long find_rec(const hg_proguard *pg, const char *cls, size_t len)
{
	uint32_t h = pg_hash(cls, len);
	for (size_t at = h & pg->obf_mask; pg->obf_slots[at]; at = (at + 1) & pg->obf_mask) {
		const struct pg_rec *r = &pg->recs[pg->obf_slots[at] - 1];
		if (r->obf_hash == h && rec_names(pg, r, cls, len, false))
			return (long)(pg->obf_slots[at] - 1);
	}
	return -1;
}

/* The record of original class name, or -1 (the table is built on first use). */
static long find_orig(hg_proguard *pg, const char *name, size_t len, bool *oom)
{
	if (!pg->orig_slots) {
		size_t cap = 16;
		while (cap < pg->n_recs + pg->n_recs / 2)
			cap *= 2;
		if (!(pg->orig_slots = calloc(cap, sizeof *pg->orig_slots))) {
			*oom = true;
			return -1;
		}
		pg->orig_mask = cap - 1;
		for (size_t i = 0; i < pg->n_recs; i++) {
			size_t at = pg->recs[i].orig_hash & pg->orig_mask;
			while (pg->orig_slots[at])
				at = (at + 1) & pg->orig_mask;
			pg->orig_slots[at] = (uint32_t)i + 1;
		}
	}
	uint32_t h = pg_hash(name, len);
	for (size_t at = h & pg->orig_mask; pg->orig_slots[at]; at = (at + 1) & pg->orig_mask) {
		const struct pg_rec *r = &pg->recs[pg->orig_slots[at] - 1];
		if (r->orig_hash == h && rec_names(pg, r, name, len, true))
			return (long)(pg->orig_slots[at] - 1);
	}
	return -1;
}

/* ---- the cache ---- */

const struct pg_class *pg_find_class(const hg_proguard *cpg, const char *cls, size_t len,
				     bool *oom)
{
	hg_proguard *pg = (hg_proguard *)cpg; /* the cache is ours to fill */
	void *v = NULL;
	pthread_mutex_lock(&pg->lock);
	if (!pg_map_get(&pg->classes, cls, len, &v)) {
		long idx = find_rec(pg, cls, len);
		v = idx >= 0 ? pg_expand(pg, (size_t)idx, oom) : NULL;
		/* Absent classes are not kept: a huge log names many. */
		if (v && pg_map_put(&pg->classes, pg->arena, cls, len, v) != 0)
			*oom = true;
	}
	pthread_mutex_unlock(&pg->lock);
	return v;
}

const char *pg_source_of(const hg_proguard *cpg, const char *name, size_t len, bool *oom)
{
	hg_proguard *pg = (hg_proguard *)cpg;
	void *v = NULL;
	pthread_mutex_lock(&pg->lock);
	if (!pg_map_get(&pg->sources, name, len, &v)) {
		long idx = find_orig(pg, name, len, oom);
		const char *found = "";
		if (idx >= 0) {
			/* The class line and the comments after it. */
			size_t off = pg->recs[idx].off, n;
			char *line = read_line(pg, off, &n);
			for (int k = 0; line && k < 16; k++) {
				off += n + 1;
				free(line);
				if (!(line = read_line(pg, off, &n)))
					break;
				const char *s = line;
				while (*s && pg_blank(*s))
					s++;
				if (*s != '#')
					break;
				const char *id, *f;
				size_t idn, fn;
				for (s++; *s && pg_blank(*s); s++)
					;
				if (pg_meta_id(s, strlen(s), &id, &idn) && idn == 10 &&
				    memcmp(id, "sourceFile", 10) == 0 &&
				    pg_meta_string(s, strlen(s), "fileName", &f, &fn)) {
					found = hg_arena_strndup(pg->arena, f, fn);
					break;
				}
			}
			free(line);
		}
		if (!found || pg_map_put(&pg->sources, pg->arena, name, len, (void *)found) != 0)
			*oom = true;
		v = (void *)found;
	}
	pthread_mutex_unlock(&pg->lock);
	const char *s = v;
	return s && *s ? s : NULL;
}

const char *hg_proguard_class(const hg_proguard *pg, const char *cls, size_t len)
{
	bool oom = false;
	const struct pg_class *c = pg_find_class(pg, cls, len, &oom);
	return c ? c->orig : NULL;
}
