/* ProGuard / R8 mappings: loading (the index pass is proguard_index.c),
 * and expanding a class block the first time a frame names the class.
 * As for methodMapping.txt, a file is not mapped into memory: blocks are
 * read back with pread(), so a file truncated meanwhile cannot crash us
 * (with SIGBUS); what no longer parses is a warning. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proguard_internal.h"

/* ---- a string-keyed map in an arena ---- */

static bool map_get(const struct pg_map *m, const char *k, size_t len, void **val)
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

static int map_put(struct pg_map *m, hg_arena *arena, const char *k, size_t len, void *val)
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

/* ---- loading ---- */

static hg_proguard *pg_new(const hg_ctx *ctx, const char *name)
{
	hg_proguard *pg = calloc(1, sizeof *pg);
	if (!pg)
		return NULL;
	pg->fd = -1;
	pg->ctx = *ctx;
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

void pg_unknown_id(hg_proguard *pg, const char *id, size_t len, long line)
{
	void *seen;
	if (map_get(&pg->ids, id, len, &seen))
		return;
	map_put(&pg->ids, pg->arena, id, len, pg); /* on ENOMEM: reported again, no harm */
	hg_diagf(&pg->ctx, HG_DIAG_WARNING, pg->name, line, 0, 0,
		 "unknown R8 metadata '%.*s' ignored (reported once)", (int)(len < 200 ? len : 200), id);
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

/* ---- expanding a class block ---- */

struct block {
	hg_proguard *pg;
	struct pg_class *c;
	struct pg_entry *items;
	size_t n, cap;
	enum { LAST_CLASS, LAST_METHOD, LAST_FIELD } last;
};

static bool digits(const char **p, const char *e, long *out)
{
	const char *s = *p;
	long v = 0;
	while (*p < e && **p >= '0' && **p <= '9' && *p - s < 9)
		v = v * 10 + (*(*p)++ - '0');
	if (*p == s || (*p < e && **p >= '0' && **p <= '9'))
		return false;
	*out = v;
	return true;
}

static inline bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* "1:5:" and " -> obf" of a member line: sets m->min_*, m->obf (cut at
 * its end); *type at what follows the range, *arrow at " -> ".  Returns
 * false (with *why) when malformed. */
static bool member_ends(char *s, char *e, struct pg_entry *m, char **type, char **arrow,
			const char **why)
{
	const char *p = s;
	if (*p >= '0' && *p <= '9') {
		if (!digits(&p, e, &m->min_start) || p >= e || *p++ != ':' ||
		    !digits(&p, e, &m->min_end) || p >= e || *p++ != ':') {
			*why = "expected 'start:end:' line numbers";
			return false;
		}
	}
	*type = (char *)p;
	*arrow = NULL;
	for (char *q = (char *)p; q + 4 <= e && !*arrow; q++)
		if (q[0] == ' ' && q[1] == '-' && q[2] == '>' && q[3] == ' ')
			*arrow = q;
	if (!*arrow) {
		*why = "expected ' -> ' and the obfuscated name";
		return false;
	}
	char *obf = *arrow + 4, *oe = e;
	while (obf < e && blank(*obf))
		obf++;
	while (oe > obf && blank(oe[-1]))
		oe--;
	if (obf == oe || memchr(obf, ' ', (size_t)(oe - obf)) || memchr(obf, '\t', (size_t)(oe - obf))) {
		*why = "expected one obfuscated name after ' -> '";
		return false;
	}
	*oe = '\0';
	m->obf = obf;
	return true;
}

/* Parses a member line s[0..e) (indentation skipped) into *m: 1 a method,
 * 0 a field, -1 malformed (*why says what). */
static int parse_member(char *s, char *e, struct pg_entry *m, const char **why)
{
	memset(m, 0, sizeof *m);
	m->min_start = m->min_end = m->orig_start = m->orig_end = PG_NONE;
	char *type, *arrow;
	if (!member_ends(s, e, m, &type, &arrow, why))
		return -1;
	char *type_end = type;
	while (type_end < arrow && !blank(*type_end))
		type_end++;
	char *sig = type_end;
	while (sig < arrow && blank(*sig))
		sig++;
	if (type_end == type || sig == arrow || memchr(type, ':', (size_t)(type_end - type)) ||
	    memchr(type, '(', (size_t)(type_end - type))) {
		*why = "expected '[start:end:]type name' before ' -> '";
		return -1;
	}
	char *open = memchr(sig, '(', (size_t)(arrow - sig));
	if (!open)
		return 0; /* a field */
	char *close = memchr(open, ')', (size_t)(arrow - open));
	if (!close || open == sig) {
		*why = "expected 'name(arguments)'";
		return -1;
	}
	const char *p = close + 1;
	if (p < arrow && *p == ':' && (++p, !digits(&p, arrow, &m->orig_start))) {
		*why = "expected the original line after ')'";
		return -1;
	}
	if (m->orig_start != PG_NONE && p < arrow && *p == ':' &&
	    (++p, !digits(&p, arrow, &m->orig_end))) {
		*why = "expected the original end line";
		return -1;
	}
	if (p != arrow) {
		*why = "unexpected text before ' -> '";
		return -1;
	}
	/* The line is ours to cut: names end with NUL. */
	*close = '\0';
	char *dot = NULL;
	for (char *q = sig; q < open; q++)
		if (*q == '.')
			dot = q;
	m->args = open + 1;
	m->name = sig;
	if (dot && dot > sig && dot + 1 < open) {
		*dot = '\0';
		m->oclass = sig;
		m->name = dot + 1;
	}
	*open = '\0';
	return 1;
}

/* positions: {"1":50,"3":52} */
static void read_positions(struct block *b, struct pg_entry *m, const char *s, size_t len)
{
	const char *v, *e;
	if (!pg_meta_find(s, len, "positions", &v, &e) || *v != '{')
		return;
	size_t cap = 0;
	for (const char *p = pg_json_ws(v + 1, e); p < e && (*p == '"' || *p == '\'');) {
		const char *k;
		size_t kn;
		long from, to;
		p = pg_json_string(p, e, &k, &kn);
		p = p ? pg_json_ws(p, e) : NULL;
		if (!p || p >= e || *p != ':')
			return;
		p = pg_json_ws(p + 1, e);
		const char *kp = k;
		if (!digits(&kp, k + kn, &from) || kp != k + kn || !digits(&p, e, &to))
			return;
		if (m->n_pos == cap) {
			cap = cap ? 2 * cap : 8;
			struct pg_pos *n = hg_arena_calloc(b->pg->arena, cap, sizeof *n);
			if (!n)
				return;
			if (m->n_pos)
				memcpy(n, m->pos, m->n_pos * sizeof *n);
			m->pos = n;
		}
		m->pos[m->n_pos++] = (struct pg_pos){from, to};
		p = pg_json_ws(p, e);
		if (p < e && *p == ',')
			p = pg_json_ws(p + 1, e);
	}
}

/* An array of strings at key, as NUL-terminated arena copies. */
static size_t read_strings(hg_arena *arena, const char *s, size_t len, const char *key,
			   const char **out, size_t max)
{
	const char *v, *e;
	size_t n = 0;
	if (!pg_meta_find(s, len, key, &v, &e) || *v != '[')
		return 0;
	for (const char *p = pg_json_ws(v + 1, e); p < e && (*p == '"' || *p == '\'') && n < max;) {
		const char *str;
		size_t sn;
		p = pg_json_string(p, e, &str, &sn);
		if (!p || !(out[n++] = hg_arena_strndup(arena, str, sn)))
			return n - (p != NULL);
		p = pg_json_ws(p, e);
		if (p < e && *p == ',')
			p = pg_json_ws(p + 1, e);
	}
	return n;
}

static void read_rule(struct block *b, struct pg_entry *m, const char *s, size_t len)
{
	const char *conds[8], *acts[8];
	size_t nc = read_strings(b->pg->arena, s, len, "conditions", conds, 8);
	size_t na = read_strings(b->pg->arena, s, len, "actions", acts, 8);
	struct pg_rule r = {.remove = 0};
	if (!nc || !na)
		return;
	r.throws = hg_arena_calloc(b->pg->arena, nc, sizeof *r.throws);
	if (!r.throws)
		return;
	for (size_t i = 0; i < nc; i++) {
		size_t l = strlen(conds[i]);
		if (l > 8 && memcmp(conds[i], "throws(", 7) == 0 && conds[i][l - 1] == ')')
			r.throws[r.n_throws++] = hg_arena_strndup(b->pg->arena, conds[i] + 7, l - 8);
		else
			r.unknown = true;
	}
	for (size_t i = 0; i < na; i++) {
		const char *a = acts[i], *p = a + strlen("removeInnerFrames(");
		long v;
		if (strncmp(a, "removeInnerFrames(", strlen("removeInnerFrames(")) == 0 &&
		    digits(&p, a + strlen(a), &v) && strcmp(p, ")") == 0)
			r.remove += v;
		else
			r.unknown = true;
	}
	struct pg_rule *n = hg_arena_calloc(b->pg->arena, m->n_rules + 1, sizeof *n);
	if (!n)
		return;
	if (m->n_rules)
		memcpy(n, m->rules, m->n_rules * sizeof *n);
	n[m->n_rules++] = r;
	m->rules = n;
}

/* A metadata comment s[0..len) at line `line`; an indented one (the
 * index pass read only those at the start of a line) is checked here. */
static void read_meta(struct block *b, const char *s, size_t len, long line, bool indented)
{
	const char *id;
	size_t n;
	if (!pg_meta_id(s, len, &id, &n)) {
		if (indented)
			pg_warn_line(b->pg, line, "metadata comment without an \"id\"; ignored");
		return;
	}
	if (indented && !pg_known_id(id, n))
		pg_unknown_id(b->pg, id, n, line);
#define IS(x) (n == strlen(x) && memcmp(id, x, n) == 0)
	if (b->last == LAST_CLASS) {
		const char *f;
		size_t fn;
		if (IS("sourceFile") && pg_meta_string(s, len, "fileName", &f, &fn))
			b->c->source = hg_arena_strndup(b->pg->arena, f, fn);
		else if (IS("com.android.tools.r8.synthesized"))
			b->c->synthesized = true;
		return;
	}
	if (b->last != LAST_METHOD)
		return;
	struct pg_entry *m = &b->items[b->n - 1];
	if (IS("com.android.tools.r8.synthesized"))
		m->flags |= PG_SYNTH;
	else if (IS("com.android.tools.r8.outline"))
		m->flags |= PG_OUTLINE;
	else if (IS("com.android.tools.r8.outlineCallsite"))
		read_positions(b, m, s, len);
	else if (IS("com.android.tools.r8.rewriteFrame"))
		read_rule(b, m, s, len);
#undef IS
}

static void read_member(struct block *b, char *s, char *e, long line)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 32;
		struct pg_entry *n = realloc(b->items, cap * sizeof *n);
		if (!n)
			return;
		b->items = n;
		b->cap = cap;
	}
	const char *why = NULL;
	struct pg_entry *m = &b->items[b->n];
	int kind = parse_member(s, e, m, &why);
	if (kind < 0) {
		pg_warn_line(b->pg, line, "%s; line skipped", why);
		b->last = LAST_FIELD; /* its metadata goes nowhere */
		return;
	}
	b->last = kind ? LAST_METHOD : LAST_FIELD;
	if (kind) {
		if (m->oclass && strcmp(m->oclass, b->c->orig) == 0)
			m->oclass = NULL;
		b->n++;
	}
}

/* A method's identity: receiver, name, arguments. */
static bool same_method(const struct pg_entry *a, const struct pg_entry *b)
{
	return strcmp(a->name, b->name) == 0 && strcmp(a->args, b->args) == 0 &&
	       (a->oclass == b->oclass || (a->oclass && b->oclass && strcmp(a->oclass, b->oclass) == 0));
}

static uint32_t method_hash(const struct pg_entry *m)
{
	return pg_hash(m->name, strlen(m->name)) ^ (pg_hash(m->args, strlen(m->args)) * 31u) ^
	       (m->oclass ? pg_hash(m->oclass, strlen(m->oclass)) * 17u : 0);
}

/* synthesized and outline are said once, of the method: give them to all
 * its entries. */
static int spread_flags(struct block *b)
{
	size_t flagged = 0;
	for (size_t i = 0; i < b->n; i++)
		flagged += b->items[i].flags != 0;
	if (!flagged)
		return 0;
	size_t cap = 16;
	while (cap < 2 * flagged)
		cap *= 2;
	size_t *slot = calloc(cap, sizeof *slot); /* entry index + 1 */
	if (!slot)
		return HG_ENOMEM;
	for (size_t i = 0; i < b->n; i++) {
		if (!b->items[i].flags)
			continue;
		size_t at = method_hash(&b->items[i]) & (cap - 1);
		for (; slot[at]; at = (at + 1) & (cap - 1))
			if (same_method(&b->items[slot[at] - 1], &b->items[i]))
				break;
		if (slot[at])
			b->items[slot[at] - 1].flags |= b->items[i].flags;
		else
			slot[at] = i + 1;
	}
	for (size_t i = 0; i < b->n; i++) {
		size_t at = method_hash(&b->items[i]) & (cap - 1);
		for (; slot[at]; at = (at + 1) & (cap - 1))
			if (same_method(&b->items[slot[at] - 1], &b->items[i])) {
				b->items[i].flags |= b->items[slot[at] - 1].flags;
				break;
			}
	}
	free(slot);
	return 0;
}

static int by_obf(const void *x, const void *y)
{
	const struct pg_entry *a = *(const struct pg_entry *const *)x;
	const struct pg_entry *b = *(const struct pg_entry *const *)y;
	int c = strcmp(a->obf, b->obf);
	return c ? c : (a < b ? -1 : a > b);
}

/* Sorts the entries by obfuscated name, keeping file order within a name,
 * into the arena. */
static int sort_entries(struct block *b)
{
	struct pg_entry **order = malloc((b->n ? b->n : 1) * sizeof *order);
	b->c->entries = hg_arena_calloc(b->pg->arena, b->n ? b->n : 1, sizeof *b->c->entries);
	if (!order || !b->c->entries) {
		free(order);
		return HG_ENOMEM;
	}
	for (size_t i = 0; i < b->n; i++)
		order[i] = &b->items[i];
	qsort(order, b->n, sizeof *order, by_obf);
	for (size_t i = 0; i < b->n; i++)
		b->c->entries[i] = *order[i];
	b->c->n = b->n;
	free(order);
	return 0;
}

/* Reads and parses the block of record idx. */
static struct pg_class *expand(hg_proguard *pg, size_t idx, bool *oom)
{
	const struct pg_rec *r = &pg->recs[idx];
	size_t end = idx + 1 < pg->n_recs ? pg->recs[idx + 1].off : pg->len;
	size_t size = end > r->off ? end - r->off : 0;
	if (size > PG_MAX_BLOCK) {
		pg_warn_line(pg, r->line, "class block longer than %zu bytes: the rest is ignored",
			     PG_MAX_BLOCK);
		size = PG_MAX_BLOCK;
	}
	char *text = hg_arena_alloc(pg->arena, size + 1);
	struct pg_class *c = hg_arena_calloc(pg->arena, 1, sizeof *c);
	if (!text || !c) {
		*oom = true;
		return NULL;
	}
	long got = pg_read_at(pg, r->off, text, size);
	if (got < 0)
		return NULL; /* the file went away: absent */
	text[got] = '\0';
	char *p = text, *e = text + got;
	char *nl = memchr(p, '\n', (size_t)(e - p));
	char *line_end = nl ? nl : e;
	const char *orig, *obf;
	size_t orig_len, obf_len;
	if (!pg_class_line(p, (size_t)(line_end - p), &orig, &orig_len, &obf, &obf_len))
		return NULL; /* the file changed under us */
	((char *)orig)[orig_len] = '\0';
	((char *)obf)[obf_len] = '\0';
	c->orig = orig;
	c->obf = obf;
	struct block b = {.pg = pg, .c = c, .last = LAST_CLASS};
	long line = r->line;
	for (p = nl ? nl + 1 : e; p < e; p = nl ? nl + 1 : e) {
		line++;
		nl = memchr(p, '\n', (size_t)(e - p));
		char *le = nl ? nl : e;
		while (le > p && (le[-1] == '\r' || blank(le[-1])))
			le--;
		char *s = p;
		while (s < le && blank(*s))
			s++;
		if (s == le)
			continue;
		if (*s == '#') {
			for (s++; s < le && blank(*s); s++)
				;
			if (s < le && *s == '{')
				read_meta(&b, s, (size_t)(le - s), line, p[0] != '#');
		} else if (s != p) {
			*le = '\0';
			read_member(&b, s, le, line);
		} /* else: a malformed unindented line, warned by the index pass */
	}
	if (spread_flags(&b) != 0 || sort_entries(&b) != 0) {
		free(b.items);
		*oom = true;
		return NULL;
	}
	free(b.items);
	return c;
}

const struct pg_class *pg_find_class(const hg_proguard *cpg, const char *cls, size_t len,
				     bool *oom)
{
	hg_proguard *pg = (hg_proguard *)cpg; /* the cache is ours to fill */
	void *v = NULL;
	pthread_mutex_lock(&pg->lock);
	if (!map_get(&pg->classes, cls, len, &v)) {
		long idx = find_rec(pg, cls, len);
		v = idx >= 0 ? expand(pg, (size_t)idx, oom) : NULL;
		/* Absent classes are not kept: a huge log names many. */
		if (v && map_put(&pg->classes, pg->arena, cls, len, v) != 0)
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
	if (!map_get(&pg->sources, name, len, &v)) {
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
				while (*s && blank(*s))
					s++;
				if (*s != '#')
					break;
				const char *id, *f;
				size_t idn, fn;
				for (s++; *s && blank(*s); s++)
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
		if (!found || map_put(&pg->sources, pg->arena, name, len, (void *)found) != 0)
			*oom = true;
		v = (void *)found;
	}
	pthread_mutex_unlock(&pg->lock);
	const char *s = v;
	return s && *s ? s : NULL;
}

const struct pg_entry *pg_entries(const struct pg_class *c, const char *obf, size_t len, size_t *n)
{
	/* In strcmp order a name comes before the longer names it prefixes. */
	size_t lo = 0, hi = c->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strncmp(c->entries[mid].obf, obf, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t k = lo;
	while (k < c->n && strncmp(c->entries[k].obf, obf, len) == 0 && c->entries[k].obf[len] == '\0')
		k++;
	*n = k - lo;
	return c->entries + lo;
}

const char *hg_proguard_class(const hg_proguard *pg, const char *cls, size_t len)
{
	bool oom = false;
	const struct pg_class *c = pg_find_class(pg, cls, len, &oom);
	return c ? c->orig : NULL;
}
