/* Listing a source, one request at a time: S3 ListObjectsV2 pages followed
 * by continuation token, autoindex folders walked depth-first, or a
 * manifest's lines.  The lister says which URL to ask for next and takes
 * the answer; whoever drives it does the requests (hg_source_list through
 * fetch_get, hg_source_list_fetch in its transfer loop), so that objects
 * can be fetched while the listing goes on.  Its caps (max_objects, the
 * deadline, pages, folders) hold for every listing, however many pages the
 * server invents.  Every URL in a message goes through hg_redact_url. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fetch_internal.h"

#define MAX_DIRS 100000
#define MAX_PAGES 100000

struct dir {
	char *url;    /* with credentials, ends in '/' */
	char *prefix; /* key prefix, "" or ends in '/' */
	int depth;
};

enum list_kind { LIST_S3, LIST_DIRS, LIST_MANIFEST };

struct lister {
	hg_source *src;
	list_emit_fn emit;
	void *user;
	enum list_kind kind;
	int64_t objects; /* entries listed, counted against opts.max_objects */
	long pages;      /* answers taken */
	bool done;
	/* S3: the request in hand and the token it carries */
	char *url, *token;
	/* folders still to list, and the one asked for */
	struct dir *dirs;
	size_t n_dirs, cap_dirs, seen_dirs;
	struct dir cur;
};

static void diag_url(hg_source *src, const char *url, const char *what)
{
	char *r = hg_redact_url(url);
	hg_diagf(src->ctx, HG_DIAG_ERROR, src->name, 0, 0, 0, "%s: %s", r ? r : "(url)", what);
	free(r);
}

/* Every entry of every kind passes here: past max_objects the listing
 * stops, which is what ends a listing that never ends. */
static int emit(struct lister *l, const struct list_entry *e)
{
	hg_source *src = l->src;
	if (l->objects >= src->opts.max_objects) {
		hg_diagf(src->ctx, HG_DIAG_ERROR, src->name, 0, 0, 0,
			 "the listing goes on past %lld objects (--max-objects); stopped after "
			 "%ld pages and %lld objects",
			 (long long)src->opts.max_objects, l->pages, (long long)l->objects);
		return HG_ELIMIT;
	}
	l->objects++;
	return l->emit(l->user, e);
}

bool lister_expired(const struct lister *l)
{
	return l->src->list_deadline_ms && fetch_now_ms() >= l->src->list_deadline_ms;
}

int lister_timeout(struct lister *l)
{
	hg_source *src = l->src;
	hg_diagf(src->ctx, HG_DIAG_ERROR, src->name, 0, 0, 0,
		 "the listing goes on past %g s (--list-timeout); stopped after %ld pages and "
		 "%lld objects",
		 (double)src->opts.list_timeout_ms / 1000, l->pages, (long long)l->objects);
	l->done = true;
	return HG_ELIMIT;
}

/* ---- S3 ---- */

static int s3_entry(void *user, const char *key, const char *etag, int64_t size,
		    const char *modified)
{
	struct lister *l = user;
	hg_buf url;
	hg_buf_init(&url);
	hg_buf_printf(&url, "s3://%s/", l->src->bucket);
	url_encode(&url, key, strlen(key), true);
	struct list_entry e = {key, url.data, etag, modified, NULL, size};
	int rc = url.failed ? HG_ENOMEM : emit(l, &e);
	hg_buf_release(&url);
	return rc;
}

/* Query parameters in sorted order, values encoded as SigV4 canonicalizes
 * them, so the URL curl signs is already canonical. */
static char *s3_list_url(const hg_source *src, const char *token)
{
	hg_buf b;
	hg_buf_init(&b);
	hg_buf_printf(&b, "%s/?", src->s3_base);
	if (token) {
		hg_buf_puts(&b, "continuation-token=");
		url_encode(&b, token, strlen(token), false);
		hg_buf_putc(&b, '&');
	}
	/* encoding-type=url: a key may hold bytes XML 1.0 cannot carry (S3
	 * then encodes keys, and says so in <EncodingType>). */
	hg_buf_puts(&b, "encoding-type=url&list-type=2&prefix=");
	url_encode(&b, src->prefix, strlen(src->prefix), false);
	if (b.failed) {
		hg_buf_release(&b);
		return NULL;
	}
	return b.data;
}

/* An error document (or none): said, HG_EIO.  Its <Contents>, if any, are
 * not objects: parsed with a callback that drops them. */
static int drop_entry(void *user, const char *key, const char *etag, int64_t size,
		      const char *modified)
{
	(void)user, (void)key, (void)etag, (void)size, (void)modified;
	return 0;
}

static int s3_error(hg_source *src, long status, const char *body, size_t len)
{
	struct s3_page page;
	char why[256], msg[512];
	int rc = s3_list_parse(body, len, drop_entry, NULL, &page, why, sizeof why);
	if (rc == 0 && page.error_code)
		s3_describe_error(status, page.error_code, page.error_message, src->bucket, msg,
				  sizeof msg);
	else if (status == 301 || status == 307)
		snprintf(msg, sizeof msg, "HTTP %ld: S3 redirects are not followed (wrong region "
					  "or endpoint?)", status);
	else
		snprintf(msg, sizeof msg, "HTTP %ld", status);
	if (rc == 0)
		s3_page_release(&page);
	hg_diagf(src->ctx, HG_DIAG_ERROR, src->name, 0, 0, 0, "%s", msg);
	return HG_EIO;
}

static int s3_next(struct lister *l, const char **url)
{
	hg_source *src = l->src;
	if (l->pages >= MAX_PAGES) {
		hg_diagf(src->ctx, HG_DIAG_ERROR, src->name, 0, 0, 0,
			 "the listing goes on past %d pages; stopped after %lld objects", MAX_PAGES,
			 (long long)l->objects);
		return HG_ELIMIT;
	}
	free(l->url);
	l->url = s3_list_url(src, l->token);
	*url = l->url;
	return l->url ? 0 : HG_ENOMEM;
}

static int s3_take(struct lister *l, long status, const char *body, size_t len)
{
	hg_source *src = l->src;
	if (status != 200)
		return s3_error(src, status, body, len);
	struct s3_page page;
	char why[512];
	int rc = s3_list_parse(body, len, s3_entry, l, &page, why, sizeof why);
	if (rc == HG_EPARSE)
		hg_diagf(src->ctx, HG_DIAG_ERROR, src->name, 0, 0, 0,
			 "ListObjectsV2 response: %s", why);
	if (rc)
		return rc;
	if (page.error_code) {
		s3_page_release(&page);
		return s3_error(src, status, body, len);
	}
	if (!page.truncated) {
		l->done = true;
	} else if (l->token && strcmp(l->token, page.next_token) == 0) {
		hg_diagf(src->ctx, HG_DIAG_ERROR, src->name, 0, 0, 0,
			 "the server repeated a continuation token (a listing loop)");
		rc = HG_EPARSE;
	} else {
		free(l->token);
		l->token = page.next_token;
		page.next_token = NULL;
	}
	s3_page_release(&page);
	return rc;
}

/* ---- HTTP folders ---- */

static int push_dir(struct lister *l, char *url, char *prefix, int depth)
{
	if (l->n_dirs == l->cap_dirs) {
		size_t cap = l->cap_dirs ? l->cap_dirs * 2 : 16;
		struct dir *n = realloc(l->dirs, cap * sizeof *n);
		if (!n) {
			free(url);
			free(prefix);
			return HG_ENOMEM;
		}
		l->dirs = n;
		l->cap_dirs = cap;
	}
	l->dirs[l->n_dirs++] = (struct dir){url, prefix, depth};
	return 0;
}

static char *join(const char *a, const char *name, bool encode, bool slash)
{
	hg_buf b;
	hg_buf_init(&b);
	hg_buf_puts(&b, a);
	if (encode)
		url_encode(&b, name, strlen(name), false);
	else
		hg_buf_puts(&b, name);
	if (slash)
		hg_buf_putc(&b, '/');
	if (b.failed) {
		hg_buf_release(&b);
		return NULL;
	}
	return b.data ? b.data : strdup("");
}

static int dir_entry(void *user, const char *name, bool is_dir, int64_t size, const char *mtime)
{
	struct lister *l = user;
	const struct dir *d = &l->cur;
	char *url = join(d->url, name, true, is_dir);
	char *key = join(d->prefix, name, false, is_dir);
	if (!url || !key) {
		free(url);
		free(key);
		return HG_ENOMEM;
	}
	if (is_dir) {
		if (d->depth + 1 > HG_FETCH_MAX_DEPTH || ++l->seen_dirs > MAX_DIRS) {
			free(url);
			free(key);
			hg_diagf(l->src->ctx, HG_DIAG_ERROR, l->src->name, 0, 0, 0,
				 "directories nested deeper than %d or more than %d of them",
				 HG_FETCH_MAX_DEPTH, MAX_DIRS);
			return HG_ELIMIT;
		}
		return push_dir(l, url, key, d->depth + 1);
	}
	char *shown = hg_redact_url(url);
	struct list_entry e = {key, shown, NULL, mtime, url, size};
	int rc = shown ? emit(l, &e) : HG_ENOMEM;
	free(shown);
	free(url);
	free(key);
	return rc;
}

static void release_cur(struct lister *l)
{
	free(l->cur.url);
	free(l->cur.prefix);
	l->cur = (struct dir){0};
}

static int dir_next(struct lister *l, const char **url)
{
	release_cur(l);
	if (l->n_dirs == 0) {
		l->done = true;
		*url = NULL;
		return 0;
	}
	l->cur = l->dirs[--l->n_dirs];
	*url = l->cur.url;
	return 0;
}

static int dir_take(struct lister *l, long status, const char *body, size_t len)
{
	char why[512];
	if (status != 200) {
		snprintf(why, sizeof why, "HTTP %ld", status);
		diag_url(l->src, l->cur.url, why);
		return HG_EIO;
	}
	int rc = http_listing_parse(body, len, dir_entry, l, why, sizeof why);
	if (rc == HG_EPARSE)
		diag_url(l->src, l->cur.url, why);
	return rc;
}

/* ---- manifests ---- */

static int manifest_line(void *user, long line, const char *text)
{
	struct lister *l = user;
	hg_source *src = l->src;
	char why[256];
	char *url = text ? url_resolve(src->url, text, why, sizeof why) : NULL;
	if (!url) {
		hg_diagf(src->ctx, HG_DIAG_WARNING, src->name, line, 0, 0,
			 "skipped: %s", text ? why : "a line longer than 8 KiB");
		return 0;
	}
	/* The manifest's URL up to its last '/'. */
	size_t q = strcspn(src->url, "?#");
	const char *slash = src->url + q;
	while (slash > src->url && *slash != '/')
		slash--;
	size_t dir_len = (size_t)(slash - src->url) + 1;
	char *shown = hg_redact_url(url);
	char *key = NULL;
	int rc = shown ? 0 : HG_ENOMEM;
	/* Below the manifest's directory the key is the relative path (decoded);
	 * elsewhere it is the shown URL itself. */
	if (rc == 0 && strncmp(url, src->url, dir_len) == 0) {
		const char *rel = url + dir_len;
		if (url_decode(rel, strcspn(rel, "?#"), &key) != 0)
			key = NULL;
	}
	if (rc == 0 && !key)
		key = strdup(shown);
	struct list_entry e = {key, shown, NULL, NULL, url, -1};
	if (rc == 0)
		rc = key ? emit(l, &e) : HG_ENOMEM;
	free(key);
	free(shown);
	free(url);
	return rc;
}

static int manifest_take(struct lister *l, long status, const char *body, size_t len)
{
	l->done = true; /* one page */
	if (status != 200) {
		hg_diagf(l->src->ctx, HG_DIAG_ERROR, l->src->name, 0, 0, 0, "HTTP %ld", status);
		return HG_EIO;
	}
	return manifest_parse(body, len, manifest_line, l);
}

/* ---- the lister ---- */

struct lister *lister_create(hg_source *src, list_emit_fn emit_fn, void *user)
{
	struct lister *l = calloc(1, sizeof *l);
	if (!l)
		return NULL;
	*l = (struct lister){.src = src, .emit = emit_fn, .user = user};
	if (src->kind == SRC_S3) {
		l->kind = LIST_S3;
	} else {
		size_t path_end = strcspn(src->url, "?#");
		l->kind = path_end > 0 && src->url[path_end - 1] == '/' ? LIST_DIRS : LIST_MANIFEST;
	}
	if (l->kind == LIST_DIRS &&
	    (push_dir(l, strdup(src->url), strdup(""), 0) != 0 || !l->dirs[0].url ||
	     !l->dirs[0].prefix)) {
		lister_destroy(l);
		return NULL;
	}
	src->list_deadline_ms = fetch_now_ms() + (uint64_t)src->opts.list_timeout_ms;
	return l;
}

void lister_destroy(struct lister *l)
{
	if (!l)
		return;
	l->src->list_deadline_ms = 0;
	for (size_t i = 0; i < l->n_dirs; i++) {
		free(l->dirs[i].url);
		free(l->dirs[i].prefix);
	}
	free(l->dirs);
	release_cur(l);
	free(l->url);
	free(l->token);
	free(l);
}

int lister_next(struct lister *l, const char **url)
{
	*url = NULL;
	if (l->done)
		return 0;
	switch (l->kind) {
	case LIST_S3: return s3_next(l, url);
	case LIST_DIRS: return dir_next(l, url);
	default: *url = l->src->url; return 0;
	}
}

int lister_take(struct lister *l, long status, const char *body, size_t len)
{
	l->pages++;
	body = body ? body : "";
	int rc;
	switch (l->kind) {
	case LIST_S3: rc = s3_take(l, status, body, len); break;
	case LIST_DIRS: rc = dir_take(l, status, body, len); break;
	default: rc = manifest_take(l, status, body, len); break;
	}
	if (rc)
		l->done = true;
	return rc;
}

int lister_fail(struct lister *l, const char *why)
{
	l->done = true;
	if (l->kind == LIST_DIRS)
		diag_url(l->src, l->cur.url, why);
	else
		hg_diagf(l->src->ctx, HG_DIAG_ERROR, l->src->name, 0, 0, 0, "%s", why);
	return HG_EIO;
}
