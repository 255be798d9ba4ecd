/* Listing a source: S3 ListObjectsV2 pages followed by continuation token,
 * autoindex directories walked depth-first, or a manifest's lines.  Every
 * request goes through fetch_get (fetch.c); every URL in a message through
 * hg_redact_url. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fetch_internal.h"

#define MAX_DIRS 100000
#define MAX_PAGES 100000

static void diag_url(hg_source *src, const char *url, const char *what)
{
	char *r = hg_redact_url(url);
	hg_diagf(src->ctx, HG_DIAG_ERROR, src->name, 0, 0, 0, "%s: %s", r ? r : "(url)", what);
	free(r);
}

/* ---- S3 ---- */

static int s3_entry(void *user, const char *key, const char *etag, int64_t size,
		    const char *modified)
{
	hg_source *src = user;
	hg_buf url;
	hg_buf_init(&url);
	hg_buf_printf(&url, "s3://%s/", src->bucket);
	url_encode(&url, key, strlen(key), true);
	int rc = url.failed ? HG_ENOMEM : source_add(src, key, url.data, etag, size, modified, NULL);
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

static int s3_error(hg_source *src, long status, const hg_buf *body)
{
	struct s3_page page;
	char why[256], msg[512];
	int rc = s3_list_parse(body->data ? body->data : "", body->len, s3_entry, src, &page, why,
			       sizeof why);
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

int source_list_s3(hg_source *src)
{
	char *token = NULL;
	int rc = 0;
	hg_buf body;
	hg_buf_init(&body);
	for (long pages = 0; rc == 0; pages++) {
		if (pages >= MAX_PAGES) {
			hg_diagf(src->ctx, HG_DIAG_ERROR, src->name, 0, 0, 0,
				 "more than %d listing pages", MAX_PAGES);
			rc = HG_ELIMIT;
			break;
		}
		char *url = s3_list_url(src, token);
		if (!url) {
			rc = HG_ENOMEM;
			break;
		}
		long status = 0;
		char why[512];
		hg_buf_reset(&body);
		rc = fetch_get(src, url, &body, &status, why, sizeof why);
		free(url);
		if (rc == HG_EIO && status == 0) {
			hg_diagf(src->ctx, HG_DIAG_ERROR, src->name, 0, 0, 0, "%s", why);
			break;
		}
		if (rc)
			break;
		if (status != 200) {
			rc = s3_error(src, status, &body);
			break;
		}
		struct s3_page page;
		rc = s3_list_parse(body.data ? body.data : "", body.len, s3_entry, src, &page, why,
				   sizeof why);
		if (rc == HG_EPARSE)
			hg_diagf(src->ctx, HG_DIAG_ERROR, src->name, 0, 0, 0,
				 "ListObjectsV2 response: %s", why);
		if (rc)
			break;
		if (page.error_code) {
			s3_page_release(&page);
			rc = s3_error(src, status, &body);
			break;
		}
		if (!page.truncated) {
			s3_page_release(&page);
			break;
		}
		if (token && strcmp(token, page.next_token) == 0) {
			hg_diagf(src->ctx, HG_DIAG_ERROR, src->name, 0, 0, 0,
				 "the server repeated a continuation token (a listing loop)");
			s3_page_release(&page);
			rc = HG_EPARSE;
			break;
		}
		free(token);
		token = page.next_token;
		page.next_token = NULL;
		s3_page_release(&page);
	}
	free(token);
	hg_buf_release(&body);
	return rc;
}

/* ---- HTTP directories ---- */

struct dir {
	char *url;    /* with credentials, ends in '/' */
	char *prefix; /* key prefix, "" or ends in '/' */
	int depth;
};

struct walk {
	hg_source *src;
	struct dir *dirs;
	size_t n_dirs, cap_dirs, seen_dirs;
	const struct dir *cur;
	int rc;
};

static int push_dir(struct walk *w, char *url, char *prefix, int depth)
{
	if (w->n_dirs == w->cap_dirs) {
		size_t cap = w->cap_dirs ? w->cap_dirs * 2 : 16;
		struct dir *n = realloc(w->dirs, cap * sizeof *n);
		if (!n) {
			free(url);
			free(prefix);
			return HG_ENOMEM;
		}
		w->dirs = n;
		w->cap_dirs = cap;
	}
	w->dirs[w->n_dirs++] = (struct dir){url, prefix, depth};
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
	struct walk *w = user;
	const struct dir *d = w->cur;
	char *url = join(d->url, name, true, is_dir);
	char *key = join(d->prefix, name, false, is_dir);
	if (!url || !key) {
		free(url);
		free(key);
		return HG_ENOMEM;
	}
	if (is_dir) {
		if (d->depth + 1 > HG_FETCH_MAX_DEPTH || ++w->seen_dirs > MAX_DIRS) {
			free(url);
			free(key);
			hg_diagf(w->src->ctx, HG_DIAG_ERROR, w->src->name, 0, 0, 0,
				 "directories nested deeper than %d or more than %d of them",
				 HG_FETCH_MAX_DEPTH, MAX_DIRS);
			return HG_ELIMIT;
		}
		return push_dir(w, url, key, d->depth + 1);
	}
	char *shown = hg_redact_url(url);
	int rc = shown ? source_add(w->src, key, shown, NULL, size, mtime, url) : HG_ENOMEM;
	free(shown);
	free(url);
	free(key);
	return rc;
}

static int list_dir(struct walk *w, const struct dir *d)
{
	hg_source *src = w->src;
	hg_buf body;
	hg_buf_init(&body);
	long status = 0;
	char why[512];
	int rc = fetch_get(src, d->url, &body, &status, why, sizeof why);
	if (rc == HG_EIO) {
		diag_url(src, d->url, why);
	} else if (rc == 0 && status != 200) {
		snprintf(why, sizeof why, "HTTP %ld", status);
		diag_url(src, d->url, why);
		rc = HG_EIO;
	} else if (rc == 0) {
		w->cur = d;
		rc = http_listing_parse(body.data ? body.data : "", body.len, dir_entry, w, why,
					sizeof why);
		if (rc == HG_EPARSE)
			diag_url(src, d->url, why);
	}
	hg_buf_release(&body);
	return rc;
}

static int walk_dirs(hg_source *src)
{
	struct walk w = {.src = src};
	int rc = push_dir(&w, strdup(src->url), strdup(""), 0);
	if (rc == 0 && (!w.dirs[0].url || !w.dirs[0].prefix))
		rc = HG_ENOMEM;
	while (rc == 0 && w.n_dirs > 0) {
		struct dir d = w.dirs[--w.n_dirs];
		rc = list_dir(&w, &d);
		free(d.url);
		free(d.prefix);
	}
	for (size_t i = 0; i < w.n_dirs; i++) {
		free(w.dirs[i].url);
		free(w.dirs[i].prefix);
	}
	free(w.dirs);
	return rc;
}

/* ---- manifests ---- */

struct manifest {
	hg_source *src;
	const char *dir; /* the manifest's URL up to its last '/' */
	size_t dir_len;
};

static int manifest_line(void *user, long line, const char *text)
{
	struct manifest *m = user;
	hg_source *src = m->src;
	char why[256];
	char *url = text ? url_resolve(src->url, text, why, sizeof why) : NULL;
	if (!url) {
		hg_diagf(src->ctx, HG_DIAG_WARNING, src->name, line, 0, 0,
			 "skipped: %s", text ? why : "a line longer than 8 KiB");
		return 0;
	}
	char *shown = hg_redact_url(url);
	char *key = NULL;
	int rc = shown ? 0 : HG_ENOMEM;
	/* Below the manifest's directory the key is the relative path (decoded);
	 * elsewhere it is the shown URL itself. */
	if (rc == 0 && strncmp(url, m->dir, m->dir_len) == 0) {
		const char *rel = url + m->dir_len;
		if (url_decode(rel, strcspn(rel, "?#"), &key) != 0)
			key = NULL;
	}
	if (rc == 0 && !key)
		key = strdup(shown);
	if (rc == 0)
		rc = key ? source_add(src, key, shown, NULL, -1, NULL, url) : HG_ENOMEM;
	free(key);
	free(shown);
	free(url);
	return rc;
}

static int read_manifest(hg_source *src)
{
	hg_buf body;
	hg_buf_init(&body);
	long status = 0;
	char why[512];
	int rc = fetch_get(src, src->url, &body, &status, why, sizeof why);
	if (rc == HG_EIO) {
		hg_diagf(src->ctx, HG_DIAG_ERROR, src->name, 0, 0, 0, "%s", why);
	} else if (rc == 0 && status != 200) {
		hg_diagf(src->ctx, HG_DIAG_ERROR, src->name, 0, 0, 0, "HTTP %ld", status);
		rc = HG_EIO;
	} else if (rc == 0) {
		size_t q = strcspn(src->url, "?#");
		const char *slash = src->url + q;
		while (slash > src->url && *slash != '/')
			slash--;
		struct manifest m = {src, src->url, (size_t)(slash - src->url) + 1};
		rc = manifest_parse(body.data ? body.data : "", body.len, manifest_line, &m);
	}
	hg_buf_release(&body);
	return rc;
}

int source_list_http(hg_source *src)
{
	size_t path_end = strcspn(src->url, "?#");
	if (path_end > 0 && src->url[path_end - 1] == '/')
		return walk_dirs(src);
	return read_manifest(src);
}
