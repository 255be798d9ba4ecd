/* One object beside another of a source: the file a fetched report names
 * (an APM report's stack_file), in the report's folder of the bucket,
 * fetched as any object of the source is (its caps, retries, credentials)
 * by an engine of its own, so that it may be asked for from inside a fetch
 * callback while the source's other transfers wait. */
#include <stdlib.h>
#include <string.h>

#include "fetch_internal.h"

/* Segments that stay in the folder: none empty, "." or "..". */
static bool plain_segments(const char *name)
{
	if (!*name || name[0] == '/')
		return false;
	for (const char *s = name; *s;) {
		size_t n = strcspn(s, "/");
		if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
			return false;
		s += n;
		if (*s == '/')
			s++;
		if (!*s && s[-1] == '/')
			return false;
	}
	return true;
}

/* The callbacks see the object as it is (its real key and URL), not the
 * queued item, whose key is marked so that its staged file is never the
 * one a transfer of the same key by the caller's engine writes. */
struct beside {
	const hg_fetch_callbacks *cb;
	void *user;
	hg_object obj;
};

static int on_done(void *user, const hg_object *obj, const char *path, int64_t len)
{
	(void)obj;
	struct beside *b = user;
	return b->cb->done ? b->cb->done(b->user, &b->obj, path, len) : 0;
}

static int on_data(void *user, const hg_object *obj, const char *data, size_t len)
{
	(void)obj;
	struct beside *b = user;
	return b->cb->done_data ? b->cb->done_data(b->user, &b->obj, data, len) : 0;
}

static int on_failed(void *user, const hg_object *obj, const char *reason)
{
	(void)obj;
	struct beside *b = user;
	return b->cb->failed ? b->cb->failed(b->user, &b->obj, reason) : 0;
}

/* s up to its last '/' (before any query or fragment), then tail: malloc'd. */
static char *beside_of(const char *s, const char *tail)
{
	size_t end = strcspn(s, "?#");
	while (end > 0 && s[end - 1] != '/')
		end--;
	hg_buf b;
	hg_buf_init(&b);
	hg_buf_add(&b, s, end);
	hg_buf_puts(&b, tail);
	if (b.failed) {
		hg_buf_release(&b);
		return NULL;
	}
	return b.data;
}

/* Where the object is asked for: from its key, as any object of the
 * source (S3, or an HTTP folder or manifest's folder), or, for a manifest
 * line outside the manifest's folder (its key is its URL), beside that
 * URL.  malloc'd, or NULL. */
static char *request_url(hg_source *src, const char *key, const char *name)
{
	if (src->kind == SRC_HTTP && strstr(key, "://")) {
		hg_buf enc;
		hg_buf_init(&enc);
		url_encode(&enc, name, strlen(name), true);
		char why[128];
		char *url = enc.failed ? NULL : beside_of(key, enc.data ? enc.data : "");
		char *resolved = url ? url_resolve(url, url, why, sizeof why) : NULL;
		free(url);
		hg_buf_release(&enc);
		return resolved;
	}
	hg_object probe = {.key = key};
	return source_request_url(src, &probe);
}

int hg_source_fetch_beside(hg_source *src, const hg_object *obj, const char *name,
			   const hg_fetch_callbacks *cb, void *user)
{
	if (!plain_segments(name))
		return HG_EINVAL;
	struct beside b = {.cb = cb, .user = user};
	char *key = beside_of(obj->key, name), *shown = beside_of(obj->url, name);
	char *request = key ? request_url(src, key, name) : NULL;
	hg_buf staged_key;
	hg_buf_init(&staged_key);
	hg_buf_puts(&staged_key, "\n(beside)\n"); /* no listed key has a newline */
	hg_buf_puts(&staged_key, key ? key : "");
	struct list_entry e = {staged_key.data, shown, NULL, NULL, request, -1};
	struct item *it = key && shown && request && !staged_key.failed ? item_new(&e) : NULL;
	hg_buf_release(&staged_key);
	if (!it) {
		free(key);
		free(shown);
		free(request);
		return HG_ENOMEM;
	}
	b.obj = (hg_object){.key = key, .url = shown, .size = -1};
	hg_fetch_callbacks wrapped = {.done = on_done, .failed = on_failed,
				      .done_data = cb->done_data ? on_data : NULL};
	struct engine en = {.src = src, .cb = &wrapped, .user = &b};
	en.head = en.tail = it;
	en.n_queued = 1;
	en.progress.total = 1;
	/* The failure is the caller's to say (cb->failed has the reason): the
	 * source's sink would say it a second time, as a failed object. */
	const hg_ctx *said = src->ctx;
	hg_ctx quiet = *said;
	quiet.diag = NULL;
	src->ctx = &quiet;
	int rc = engine_run(&en);
	src->ctx = said;
	while ((it = stream_take(&en)) != NULL)
		item_free(it);
	free(key);
	free(shown);
	free(request);
	return rc;
}
