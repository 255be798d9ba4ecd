/* The clusters a batch touched, summed in memory and written once per
 * batch at commit: a big ingest adds thousands of reports to the same few
 * hundred clusters, and one upsert per report was a good part of its time. */
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

struct pending_cluster {
	char hash[33];
	const char *kind, *title, *key_symbol, *frames; /* in the batch arena */
	const char *first, *last;                       /* report times, NULL: none */
	int64_t count;
	bool symbolicated;
};

struct cluster_batch {
	hg_arena *arena;
	struct pending_cluster *items;
	size_t len, cap;
	size_t *slots;         /* open addressing: item index + 1, 0 empty */
	size_t mask;
};

static int grow(struct cluster_batch *b)
{
	size_t cap = b->cap ? b->cap * 2 : 256;
	struct pending_cluster *items = realloc(b->items, cap * sizeof *items);
	if (!items)
		return HG_ENOMEM;
	b->items = items;
	size_t *slots = calloc(2 * cap, sizeof *slots);
	if (!slots)
		return HG_ENOMEM;
	free(b->slots);
	b->slots = slots;
	b->mask = 2 * cap - 1;
	b->cap = cap;
	for (size_t k = 0; k < b->len; k++) {
		size_t i = strmap_hash(items[k].hash) & b->mask;
		while (b->slots[i])
			i = (i + 1) & b->mask;
		b->slots[i] = k + 1;
	}
	return 0;
}

/* A JSON array of strings in arena, NULL on ENOMEM. */
static const char *json_strings(hg_arena *arena, const char *const *items, size_t n)
{
	size_t cap = 3;
	for (size_t i = 0; i < n; i++)
		cap += 6 * strlen(items[i] ? items[i] : "") + 3;
	char *out = hg_arena_alloc(arena, cap), *p = out;
	if (!out)
		return NULL;
	*p++ = '[';
	for (size_t i = 0; i < n; i++) {
		if (i)
			*p++ = ',';
		*p++ = '"';
		for (const unsigned char *s = (const unsigned char *)(items[i] ? items[i] : ""); *s;
		     s++) {
			if (*s == '"' || *s == '\\') {
				*p++ = '\\';
				*p++ = (char)*s;
			} else if (*s < 0x20) {
				memcpy(p, "\\u00", 4);
				p[4] = "0123456789abcdef"[*s >> 4];
				p[5] = "0123456789abcdef"[*s & 15];
				p += 6;
			} else {
				*p++ = (char)*s;
			}
		}
		*p++ = '"';
	}
	*p++ = ']';
	*p = '\0';
	return out;
}

static const char *dup_or_null(hg_arena *arena, const char *s, bool *failed)
{
	if (!s)
		return NULL;
	const char *d = hg_arena_strdup(arena, s);
	*failed |= !d;
	return d;
}

/* Times in the store's form (STORE_TIME_SQL) compare as text. */
static const char *earlier(const char *a, const char *b)
{
	return !a ? b : !b ? a : strcmp(b, a) < 0 ? b : a;
}

static const char *later(const char *a, const char *b)
{
	return !a ? b : !b ? a : strcmp(b, a) > 0 ? b : a;
}

static struct pending_cluster *find_or_add(struct cluster_batch *b, const hg_report *rep,
					   const hg_signature *sig, bool *failed)
{
	if (b->len == b->cap && grow(b)) {
		*failed = true;
		return NULL;
	}
	size_t i = strmap_hash(sig->hash) & b->mask;
	for (; b->slots[i]; i = (i + 1) & b->mask) {
		struct pending_cluster *c = &b->items[b->slots[i] - 1];
		if (strcmp(c->hash, sig->hash) != 0)
			continue;
		/* Reports of one cluster may title it differently (an unnamed
		 * key in two screens): one title for all (store_title.c). */
		if (sig->title && strcmp(sig->title, c->title) != 0) {
			char *t = store_title_merge(c->title, sig->title);
			c->title = dup_or_null(b->arena, t, failed);
			*failed |= !t;
			free(t);
		}
		return *failed ? NULL : c;
	}
	struct pending_cluster *c = &b->items[b->len];
	*c = (struct pending_cluster){.symbolicated = true};
	memcpy(c->hash, sig->hash, sizeof c->hash);
	c->hash[32] = '\0';
	c->kind = dup_or_null(b->arena, sig->family ? sig->family : hg_report_kind_name(rep->kind),
			      failed);
	c->title = dup_or_null(b->arena, sig->title ? sig->title : "", failed);
	c->key_symbol = dup_or_null(b->arena, sig->key_symbol, failed);
	c->frames = json_strings(b->arena, sig->frames, sig->n_frames);
	*failed |= !c->frames;
	if (*failed)
		return NULL;
	b->slots[i] = ++b->len;
	return c;
}

int store_cluster_add(hg_store *store, const hg_report *rep, const hg_signature *sig,
		      const char *when)
{
	struct cluster_batch *b = store->clusters;
	if (!b) {
		b = calloc(1, sizeof *b);
		if (!b || !(b->arena = hg_arena_create())) {
			free(b);
			return HG_ENOMEM;
		}
		store->clusters = b;
	}
	bool failed = false;
	struct pending_cluster *c = find_or_add(b, rep, sig, &failed);
	if (!c)
		return HG_ENOMEM;
	const char *time = when ? hg_arena_strdup(b->arena, when) : NULL;
	if (when && !time)
		return HG_ENOMEM;
	c->count++;
	c->first = earlier(c->first, time);
	c->last = later(c->last, time);
	c->symbolicated = c->symbolicated && sig->symbolicated;
	return 0;
}

void store_cluster_discard(hg_store *store)
{
	struct cluster_batch *b = store->clusters;
	if (!b)
		return;
	hg_arena_destroy(b->arena);
	free(b->items);
	free(b->slots);
	free(b);
	store->clusters = NULL;
}

int store_cluster_flush(hg_store *store)
{
	struct cluster_batch *b = store->clusters;
	int err = 0;
	for (size_t i = 0; b && i < b->len && !err; i++) {
		struct pending_cluster *c = &b->items[i];
		hg_db_stmt *st = db_stmt(store->db, S_UPSERT_CLUSTER,
			"INSERT INTO clusters(hash, kind, title, key_symbol, frames, grouping_version,"
			" first_seen, last_seen, count, symbolicated)"
			" VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
			/* report times only: NULL while none is known (min and
			 * max of a NULL are NULL, hence the coalesce) */
			" ON CONFLICT(hash) DO UPDATE SET count = count + excluded.count,"
			" title = hangar_title(title, excluded.title),"
			" first_seen = coalesce(min(first_seen, excluded.first_seen), first_seen,"
			" excluded.first_seen),"
			" last_seen = coalesce(max(last_seen, excluded.last_seen), last_seen,"
			" excluded.last_seen),"
			" symbolicated = symbolicated AND excluded.symbolicated");
		if (!st) {
			err = store_fail(store, HG_EIO, "cannot update a cluster");
			break;
		}
		db_bind_text(st, 1, c->hash);
		db_bind_text(st, 2, c->kind);
		db_bind_text(st, 3, c->title);
		db_bind_text(st, 4, c->key_symbol);
		db_bind_text(st, 5, c->frames);
		db_bind_int(st, 6, HG_SIGNATURE_VERSION);
		db_bind_text(st, 7, c->first);
		db_bind_text(st, 8, c->last);
		db_bind_int(st, 9, c->count);
		db_bind_int(st, 10, c->symbolicated);
		int rc = db_step(st);
		db_reset(st);
		err = store_check(store, rc, "cannot update a cluster");
	}
	store_cluster_discard(store);
	return err;
}
