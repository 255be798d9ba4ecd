/* The source: opening an s3:// or http(s):// URL, a whole listing of what
 * is under it (hg_source_list, page after page through fetch_list.c's
 * lister), and where objects are requested from and staged.  The
 * transfers themselves are in fetch.c; a listing fetched as it goes on in
 * fetch_stream.c. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fetch_internal.h"
#include "core/core.h"


uint64_t fetch_random(void)
{
	static _Thread_local uint64_t state;
	if (state == 0) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		state = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^
			((uint64_t)getpid() << 40) ^ (uint64_t)(uintptr_t)&state;
		if (state == 0)
			state = 0x9E3779B97F4A7C15u;
	}
	state ^= state >> 12; /* xorshift64*: jitter needs spread, not secrecy */
	state ^= state << 25;
	state ^= state >> 27;
	return state * 2685821657736338717u;
}

static void fill_defaults(hg_fetch_opts *o)
{
	if (o->jobs <= 0) o->jobs = HG_FETCH_DEFAULT_JOBS;
	if (o->timeout_ms <= 0) o->timeout_ms = HG_FETCH_DEFAULT_TIMEOUT_MS;
	if (o->connect_timeout_ms <= 0) o->connect_timeout_ms = HG_FETCH_DEFAULT_CONNECT_TIMEOUT_MS;
	if (o->stall_ms <= 0) o->stall_ms = HG_FETCH_DEFAULT_STALL_MS;
	if (o->attempts <= 0) o->attempts = HG_FETCH_DEFAULT_ATTEMPTS;
	if (o->backoff_ms <= 0) o->backoff_ms = HG_FETCH_DEFAULT_BACKOFF_MS;
	if (o->max_object <= 0) o->max_object = HG_FETCH_DEFAULT_MAX_OBJECT;
	if (o->max_objects <= 0) o->max_objects = HG_FETCH_DEFAULT_MAX_OBJECTS;
	if (o->list_timeout_ms <= 0) o->list_timeout_ms = HG_FETCH_DEFAULT_LIST_TIMEOUT_MS;
}

static bool region_ok(const char *r)
{
	if (!*r || strlen(r) > 32)
		return false;
	for (; *r; r++)
		if (!islower((unsigned char)*r) && !isdigit((unsigned char)*r) && *r != '-')
			return false;
	return true;
}

static int open_s3(hg_source *src, const char *url, char *why, size_t why_size)
{
	int rc = url_parse_s3(url, &src->bucket, &src->prefix, why, why_size);
	if (rc)
		return rc;
	const char *region = src->opts.region;
	if (!region || !*region) region = getenv("AWS_REGION");
	if (!region || !*region) region = getenv("AWS_DEFAULT_REGION");
	if (!region || !*region) region = "us-east-1";
	if (!region_ok(region)) {
		snprintf(why, why_size, "'%.40s' is not a region name", region);
		return HG_EINVAL;
	}
	src->region = strdup(region);
	hg_buf b;
	hg_buf_init(&b);
	int addressing = src->opts.addressing;
	if (src->opts.endpoint) {
		struct fetch_url u;
		if (url_parse_http(src->opts.endpoint, &u, why, why_size) != 0) {
			snprintf(why, why_size, "the endpoint must be http(s)://host[:port]");
			return HG_EINVAL;
		}
		if (u.userinfo || u.query || strcmp(u.path, "/") != 0) {
			url_release(&u);
			snprintf(why, why_size, "the endpoint must be http(s)://host[:port], "
						"without credentials, path or query");
			return HG_EINVAL;
		}
		if (addressing == HG_ADDR_AUTO)
			addressing = HG_ADDR_PATH;
		if (addressing == HG_ADDR_VIRTUAL)
			hg_buf_printf(&b, "%s://%s.%s%s%s", u.scheme, src->bucket, u.host,
				      u.port ? ":" : "", u.port ? u.port : "");
		else
			hg_buf_printf(&b, "%s://%s%s%s/%s", u.scheme, u.host, u.port ? ":" : "",
				      u.port ? u.port : "", src->bucket);
		url_release(&u);
	} else {
		/* Dotted bucket names do not match the wildcard certificate of
		 * virtual hosts, so AUTO keeps them path-style. */
		if (addressing == HG_ADDR_AUTO)
			addressing = strchr(src->bucket, '.') ? HG_ADDR_PATH : HG_ADDR_VIRTUAL;
		if (addressing == HG_ADDR_VIRTUAL)
			hg_buf_printf(&b, "https://%s.s3.%s.amazonaws.com", src->bucket, region);
		else
			hg_buf_printf(&b, "https://s3.%s.amazonaws.com/%s", region, src->bucket);
	}
	if (b.failed || !src->region) {
		hg_buf_release(&b);
		return HG_ENOMEM;
	}
	src->s3_base = b.data;
	rc = creds_load(&src->creds, why, why_size);
	return rc;
}

static int make_cache_dir(hg_source *src, char *why, size_t why_size)
{
	if (src->opts.cache_dir) {
		if (mkdir(src->opts.cache_dir, 0700) != 0 && errno != EEXIST) {
			snprintf(why, why_size, "cannot create the cache directory %s: %s",
				 src->opts.cache_dir, strerror(errno));
			return HG_EIO;
		}
		src->cache_dir = strdup(src->opts.cache_dir);
	} else {
		const char *tmp = getenv("TMPDIR");
		char templ[4096];
		snprintf(templ, sizeof templ, "%s/hangar-fetch-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(templ)) {
			snprintf(why, why_size, "cannot create a directory in %s: %s",
				 tmp && *tmp ? tmp : "/tmp", strerror(errno));
			return HG_EIO;
		}
		src->cache_dir = strdup(templ);
		src->own_cache_dir = true;
	}
	src->opts.cache_dir = src->cache_dir;
	return src->cache_dir ? 0 : HG_ENOMEM;
}

int hg_source_open(const hg_ctx *ctx, const char *url, const hg_fetch_opts *opts,
		   hg_source **out)
{
	*out = NULL;
	hg_source *src = calloc(1, sizeof *src);
	if (!src)
		return HG_ENOMEM;
	src->ctx = ctx;
	if (opts)
		src->opts = *opts;
	fill_defaults(&src->opts);
	src->opts.endpoint = src->opts.region = NULL; /* borrowed: only used below */
	src->name = hg_redact_url(url);
	src->url = strdup(url);
	if (!src->name || !src->url) {
		hg_source_destroy(src);
		return HG_ENOMEM;
	}
	char why[512] = "";
	int rc = 0;
	if (opts && opts->shards && opts->shard >= opts->shards) {
		snprintf(why, sizeof why, "shard %u is not below the number of shards (%u)",
			 opts->shard, opts->shards);
		rc = HG_EINVAL;
	} else if (strncmp(url, "s3://", 5) == 0) {
		src->kind = SRC_S3;
		src->opts.endpoint = opts ? opts->endpoint : NULL;
		src->opts.region = opts ? opts->region : NULL;
		rc = open_s3(src, url, why, sizeof why);
		src->opts.endpoint = src->opts.region = NULL;
	} else {
		struct fetch_url u;
		src->kind = SRC_HTTP;
		rc = url_parse_http(url, &u, why, sizeof why);
		if (rc == HG_EINVAL && !strstr(url, "://"))
			snprintf(why, sizeof why, "expected s3://bucket/prefix/ or an http(s):// URL");
		if (rc == 0) {
			src->has_userinfo = u.userinfo != NULL;
			url_release(&u);
		}
	}
	if (rc == 0 && opts && opts->cacert) {
		src->cacert = strdup(opts->cacert);
		rc = src->cacert ? 0 : HG_ENOMEM;
	}
	src->opts.cacert = src->cacert;
	if (rc == 0)
		rc = make_cache_dir(src, why, sizeof why);
	if (rc == 0)
		src->arena = hg_arena_create();
	if (rc == 0 && !src->arena)
		rc = HG_ENOMEM;
	if (rc) {
		if (why[0])
			hg_diagf(ctx, HG_DIAG_ERROR, src->name, 0, 0, 0, "%s", why);
		hg_source_destroy(src);
		return rc;
	}
	*out = src;
	return 0;
}

/* Staged files are named by 64 hex digits (".part" while written); only
 * such names are removed, so a shared cache_dir keeps everything else. */
static bool staged_name(const char *n)
{
	size_t h = strspn(n, "0123456789abcdef");
	return h == 64 && (n[64] == '\0' || strcmp(n + 64, ".part") == 0);
}

static void clean_cache_dir(hg_source *src)
{
	if (!src->own_cache_dir)
		return;
	DIR *d = opendir(src->cache_dir);
	if (d) {
		struct dirent *e;
		char path[4200];
		while ((e = readdir(d)) != NULL)
			if (staged_name(e->d_name)) {
				snprintf(path, sizeof path, "%s/%s", src->cache_dir, e->d_name);
				unlink(path);
			}
		closedir(d);
	}
	rmdir(src->cache_dir);
}

static void reset_items(hg_source *src)
{
	for (size_t i = 0; i < src->n_items; i++)
		free(src->items[i].request_url);
	free(src->items);
	src->items = NULL;
	src->n_items = src->cap_items = 0;
}

void hg_source_destroy(hg_source *src)
{
	if (!src)
		return;
	if (src->cache_dir)
		clean_cache_dir(src);
	reset_items(src);
	hg_arena_destroy(src->arena);
	creds_release(&src->creds);
	free(src->name);
	free(src->url);
	free(src->cacert);
	free(src->cache_dir);
	free(src->bucket);
	free(src->prefix);
	free(src->region);
	free(src->s3_base);
	free(src);
}

const char *hg_source_name(const hg_source *src)
{
	return src->name;
}

static int cmp_listed(const void *a, const void *b)
{
	return strcmp(((const struct listed *)a)->obj.key, ((const struct listed *)b)->obj.key);
}

char *source_request_url(const hg_source *src, const hg_object *obj)
{
	hg_buf b;
	hg_buf_init(&b);
	if (src->kind == SRC_S3) {
		hg_buf_printf(&b, "%s/", src->s3_base);
		url_encode(&b, obj->key, strlen(obj->key), true);
	} else {
		struct listed probe = {.obj = {.key = obj->key}};
		const struct listed *hit =
			src->items ? bsearch(&probe, src->items, src->n_items, sizeof *src->items,
					     cmp_listed)
				   : NULL;
		if (hit) {
			hg_buf_puts(&b, hit->request_url);
		} else {
			/* An object not from the last listing: the prefix plus the key. */
			const char *slash = strrchr(src->url, '/');
			hg_buf_add(&b, src->url, (size_t)(slash - src->url) + 1);
			url_encode(&b, obj->key, strlen(obj->key), true);
		}
	}
	if (b.failed) {
		hg_buf_release(&b);
		return NULL;
	}
	return b.data;
}

char *source_staged_path(const hg_source *src, const char *key)
{
	hg_buf in;
	hg_buf_init(&in);
	hg_buf_puts(&in, src->name);
	hg_buf_putc(&in, '\0');
	hg_buf_puts(&in, key);
	if (in.failed) {
		hg_buf_release(&in);
		return NULL;
	}
	unsigned char md[32];
	hg_sha256(in.data, in.len, md);
	hg_buf_release(&in);
	char *path = malloc(strlen(src->cache_dir) + 1 + 64 + 1);
	if (!path)
		return NULL;
	hg_hex_digest(md, 32, path + sprintf(path, "%s/", src->cache_dir));
	return path;
}

/* Adds one listed object to src->items; strings copied into the arena. */
static int source_add(void *user, const struct list_entry *e)
{
	hg_source *src = user;
	if (src->n_items == src->cap_items) {
		size_t cap = src->cap_items ? src->cap_items * 2 : 64;
		struct listed *n = realloc(src->items, cap * sizeof *n);
		if (!n)
			return HG_ENOMEM;
		src->items = n;
		src->cap_items = cap;
	}
	struct listed *l = &src->items[src->n_items];
	l->obj.key = hg_arena_strdup(src->arena, e->key);
	l->obj.url = hg_arena_strdup(src->arena, e->url);
	l->obj.etag = e->etag ? hg_arena_strdup(src->arena, e->etag) : NULL;
	l->obj.size = e->size;
	l->obj.last_modified = e->modified ? hg_arena_strdup(src->arena, e->modified) : NULL;
	l->request_url = e->request_url ? strdup(e->request_url) : NULL;
	if (!l->obj.key || !l->obj.url || (e->etag && !l->obj.etag) ||
	    (e->modified && !l->obj.last_modified) || (e->request_url && !l->request_url)) {
		free(l->request_url);
		return HG_ENOMEM;
	}
	src->n_items++;
	return 0;
}

/* Every page, one request at a time, into src->items. */
static int list_all(hg_source *src)
{
	struct lister *l = lister_create(src, source_add, src);
	if (!l)
		return HG_ENOMEM;
	hg_buf body;
	hg_buf_init(&body);
	int rc = 0;
	for (;;) {
		const char *url;
		rc = lister_next(l, &url);
		if (rc || !url)
			break;
		if (lister_expired(l)) {
			rc = lister_timeout(l);
			break;
		}
		long status = 0;
		char why[512];
		rc = fetch_get(src, url, &body, &status, why, sizeof why);
		if (rc == HG_EIO)
			rc = lister_expired(l) ? lister_timeout(l) : lister_fail(l, why);
		if (rc == 0)
			rc = lister_take(l, status, body.data, body.len);
		if (rc)
			break;
	}
	hg_buf_release(&body);
	lister_destroy(l);
	return rc;
}

int hg_source_list(hg_source *src, int (*fn)(void *user, const hg_object *obj), void *user)
{
	reset_items(src);
	hg_arena_destroy(src->arena);
	src->arena = hg_arena_create();
	if (!src->arena)
		return HG_ENOMEM;
	int listed = list_all(src);
	if (listed == HG_ENOMEM)
		return listed;
	if (src->n_items)
		qsort(src->items, src->n_items, sizeof *src->items, cmp_listed);
	/* One object per key (a manifest may name one twice). */
	size_t w = 0;
	for (size_t i = 0; i < src->n_items; i++) {
		if (w > 0 && strcmp(src->items[w - 1].obj.key, src->items[i].obj.key) == 0) {
			free(src->items[i].request_url);
			continue;
		}
		src->items[w++] = src->items[i];
	}
	src->n_items = w;
	/* What was listed before an error is still the caller's. */
	for (size_t i = 0; i < src->n_items; i++) {
		const hg_object *o = &src->items[i].obj;
		if (src->opts.shards && hg_shard_of(o->key, src->opts.shards) != src->opts.shard)
			continue;
		int rc = fn(user, o);
		if (rc)
			return rc;
	}
	return listed;
}
