/* hg_source_list_fetch: a listing that feeds the transfers while it goes
 * on.  Reading a whole listing before fetching anything turned a listing
 * that never ends (a new continuation token on every page) into a run that
 * fetched nothing; here each page's objects are queued and the transfer
 * loop (fetch.c) starts them while it asks for the next page, one listing
 * request at a time.  The listing waits while HG_FETCH_LIST_AHEAD objects
 * wait for a transfer, so memory stays bounded however fast the server
 * lists, and that wait does not count against list_timeout_ms.  Each key
 * is queued once (a manifest may name one twice, a hostile server may list
 * one on every page); an object's memory goes with its transfer. */
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "fetch_internal.h"

/* ---- the set of keys listed ---- */

static uint64_t key_hash(const char *key)
{
	/* SHA-256, not a fast hash: the keys come from the server, and a
	 * collision would leave an object out. */
	unsigned char md[32];
	hg_sha256(key, strlen(key), md);
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | md[i];
	return v ? v : 1;
}

static size_t keyset_slot(const struct keyset *s, uint64_t h)
{
	size_t i = (size_t)h & s->mask;
	while (s->slots[i] && s->slots[i] != h)
		i = (i + 1) & s->mask;
	return i;
}

int keyset_add(struct keyset *s, const char *key)
{
	if (!s->slots || (s->len + 1) * 4 > (s->mask + 1) * 3) { /* at most 3/4 full */
		size_t cap = s->slots ? 2 * (s->mask + 1) : 1024;
		struct keyset bigger = {calloc(cap, sizeof(uint64_t)), cap - 1, s->len};
		if (!bigger.slots)
			return HG_ENOMEM;
		for (size_t i = 0; s->slots && i <= s->mask; i++)
			if (s->slots[i])
				bigger.slots[keyset_slot(&bigger, s->slots[i])] = s->slots[i];
		free(s->slots);
		*s = bigger;
	}
	uint64_t h = key_hash(key);
	size_t i = keyset_slot(s, h);
	if (s->slots[i])
		return 1;
	s->slots[i] = h;
	s->len++;
	return 0;
}

void keyset_release(struct keyset *s)
{
	free(s->slots);
	*s = (struct keyset){0};
}

/* ---- queued objects ---- */

static char *put(char **at, const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	char *p = memcpy(*at, s, n);
	*at += n;
	return p;
}

struct item *item_new(const struct list_entry *e)
{
	const char *strs[] = {e->key, e->url, e->etag, e->modified, e->request_url};
	size_t len = 0;
	for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
		len += strs[i] ? strlen(strs[i]) + 1 : 0;
	struct item *it = malloc(sizeof *it + len);
	if (!it)
		return NULL;
	char *at = it->data;
	it->obj.key = put(&at, e->key);
	it->obj.url = put(&at, e->url);
	it->obj.etag = put(&at, e->etag);
	it->obj.last_modified = put(&at, e->modified);
	it->obj.size = e->size;
	it->request_url = put(&at, e->request_url);
	it->next = NULL;
	return it;
}

void item_free(struct item *it)
{
	free(it);
}

struct item *stream_take(struct engine *en)
{
	struct item *it = en->head;
	if (it) {
		en->head = it->next;
		if (!en->head)
			en->tail = NULL;
		en->n_queued--;
	}
	return it;
}

/* One entry of the listing: this shard's, each key once, if cb->listed
 * wants it: queued. */
static int stream_emit(void *user, const struct list_entry *e)
{
	struct engine *en = user;
	const hg_fetch_opts *o = &en->src->opts;
	if (o->shards && hg_shard_of(e->key, o->shards) != o->shard)
		return 0;
	int seen = keyset_add(&en->seen, e->key);
	if (seen)
		return seen < 0 ? seen : 0;
	struct item *it = item_new(e);
	if (!it)
		return HG_ENOMEM;
	int want = en->cb->listed ? en->cb->listed(en->user, &it->obj) : 1;
	if (want <= 0) {
		item_free(it);
		if (want < 0)
			en->stop = want;
		return want;
	}
	if (en->tail)
		en->tail->next = it;
	else
		en->head = it;
	en->tail = it;
	en->n_queued++;
	en->progress.total++;
	return 0;
}

/* ---- the listing's steps ---- */

static void list_end(struct engine *en, int rc)
{
	list_stop(en);
	en->list_rc = rc;
	lister_destroy(en->lister);
	en->lister = NULL;
	hg_buf_release(&en->list_body);
}

void stream_pump(struct engine *en)
{
	if (!en->lister)
		return;
	uint64_t now = fetch_now_ms();
	if (!en->list_x && en->n_queued >= HG_FETCH_LIST_AHEAD) {
		if (!en->paused_since)
			en->paused_since = now;
		return;
	}
	if (en->paused_since) { /* the wait for the transfers does not count */
		en->src->list_deadline_ms += now - en->paused_since;
		en->paused_since = 0;
	}
	if (lister_expired(en->lister)) {
		list_end(en, lister_timeout(en->lister));
		return;
	}
	if (en->list_x) { /* in flight, or waiting for its retry */
		if (!en->list_in_multi && en->list_x->ready_at <= now && list_send(en, NULL) != 0)
			list_end(en, HG_ENOMEM);
		return;
	}
	const char *url;
	int rc = lister_next(en->lister, &url);
	if (rc || !url)
		list_end(en, rc);
	else if (list_send(en, url) != 0)
		list_end(en, HG_ENOMEM);
}

void stream_page(struct engine *en, long status, const hg_buf *body)
{
	int rc = lister_take(en->lister, status, body->data, body->len);
	if (rc)
		list_end(en, rc);
}

void stream_failed(struct engine *en, const char *why)
{
	list_end(en, lister_expired(en->lister) ? lister_timeout(en->lister)
						: lister_fail(en->lister, why));
}

int hg_source_list_fetch(hg_source *src, const hg_fetch_callbacks *cb, void *user,
			 int *list_rc)
{
	struct engine en = {.src = src, .cb = cb, .user = user};
	hg_buf_init(&en.list_body);
	en.lister = lister_create(src, stream_emit, &en);
	if (!en.lister) {
		*list_rc = HG_ENOMEM;
		return HG_ENOMEM;
	}
	int rc = engine_run(&en);
	if (en.lister) /* stopped (rc: a callback's value or ENOMEM) before the listing ended */
		list_end(&en, rc);
	*list_rc = en.list_rc;
	struct item *it;
	while ((it = stream_take(&en)) != NULL)
		item_free(it);
	keyset_release(&en.seen);
	hg_buf_release(&en.list_body);
	return rc;
}
