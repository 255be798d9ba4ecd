/* Module fetch (src/lib/fetch/): listing and downloading reports from
 * s3:// and http(s):// sources.  The source (fetch_source.c), its listings
 * (fetch_list.c, fetch_s3_list.c with expat, fetch_http_list.c), URLs
 * (fetch_url.c), credentials (fetch_creds.c), retries (fetch_retry.c),
 * sharding (fetch_shard.c), gzip bodies (fetch_gunzip.c, with zlib), the
 * queue of objects (fetch_queue.c), what becomes of each fetched object
 * (fetch_object.c), a listing feeding the transfers (fetch_stream.c), and
 * here the transfers (libcurl).
 * Public header: fetch.h.
 * Uses: core, json. */
/* The transfers: the only file that includes curl.h.
 *
 * Objects are fetched with one curl multi handle, at most opts.jobs at a
 * time, over connections the multi handle keeps for reuse.  A failed
 * attempt that is worth retrying (fetch_retry.c) leaves the multi handle and
 * waits in a list until its time comes, so the others go on meanwhile; the
 * loop's poll timeout is the nearest such time.  Redirects are followed here
 * rather than by curl so that each hop can be checked (url_redirect_allowed)
 * before a request is sent. */
#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fetch_internal.h"

#define MAX_REDIRECTS 5

static const char *const EMPTY_SHA256 =
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
_Static_assert(CURL_ERROR_SIZE_COPY >= CURL_ERROR_SIZE, "struct xfer's errbuf holds curl's errors");

uint64_t fetch_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static void global_init(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *user)
{
	struct xfer *x = user;
	size_t len = size * nmemb;
	x->last_data = fetch_now_ms();
	long status = 0;
	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
	if (x->bytes)
		*x->bytes += (int64_t)len;
	if (x->mem) { /* listings and error documents, capped */
		if (len > HG_FETCH_MAX_LISTING_BYTES - x->mem->len) {
			x->sink_err = GZ_TOO_LARGE;
			return 0;
		}
		hg_buf_add(x->mem, data, len);
		return x->mem->failed ? 0 : len;
	}
	if (status < 200 || status > 299)
		return len; /* an error page is not the object */
	if (x->in_memory && (int64_t)len > x->src->opts.memory_max - gunzip_written(x->gz) &&
	    object_spill(x) != 0) {
		x->sink_err = GZ_IO; /* more than listed: to a staged file after all */
		return 0;
	}
	x->sink_err = gunzip_write(x->gz, data, len);
	return x->sink_err ? 0 : len;
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *user)
{
	struct xfer *x = user;
	size_t len = size * nmemb;
	x->last_data = fetch_now_ms();
	if (len >= 5 && strncmp(data, "HTTP/", 5) == 0)
		x->retry_after = -1; /* a new response */
	else if (len > 12 && strncasecmp(data, "Retry-After:", 12) == 0)
		x->retry_after = fetch_parse_retry_after(data + 12, len - 12);
	return len;
}

/* Stall detection of our own: curl's LOW_SPEED check averages the speed
 * over several seconds, so a body that stops after a burst looked alive
 * long after stall_ms.  Called by curl about once a second at least. */
static int on_progress(void *user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
		       curl_off_t ulnow)
{
	(void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
	struct xfer *x = user;
	if (fetch_now_ms() - x->last_data > (uint64_t)x->src->opts.stall_ms) {
		x->stalled = true;
		return 1;
	}
	return 0;
}

/* A listing request ends by the listing's deadline at the latest. */
static long list_timeout_ms(const hg_source *src, long timeout_ms)
{
	uint64_t now = fetch_now_ms();
	if (!src->list_deadline_ms)
		return timeout_ms;
	uint64_t left = src->list_deadline_ms > now ? src->list_deadline_ms - now : 1;
	return left < (uint64_t)timeout_ms ? (long)left : timeout_ms;
}

static int setup_easy(struct xfer *x)
{
	hg_source *src = x->src;
	const hg_fetch_opts *o = &src->opts;
	CURL *e = x->easy;
	curl_easy_reset(e);
	curl_easy_setopt(e, CURLOPT_URL, x->url);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 2L);
	if (o->cacert)
		curl_easy_setopt(e, CURLOPT_CAINFO, o->cacert);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, o->connect_timeout_ms);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, x->mem ? list_timeout_ms(src, o->timeout_ms)
						       : o->timeout_ms);
	curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, o->stall_ms < 1000 ? 1L : o->stall_ms / 1000);
	curl_easy_setopt(e, CURLOPT_USERAGENT, "hangar/" HG_VERSION);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, x->errbuf);
	curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(e, CURLOPT_XFERINFODATA, x);
	curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(e, CURLOPT_PRIVATE, x);
	x->errbuf[0] = '\0';
	x->stalled = false;
	x->last_data = fetch_now_ms();
	x->retry_after = -1;
	x->sink_err = 0;
	if (src->kind == SRC_S3 && src->creds.key_id && !x->headers) {
		/* curl 7.88 signs the x-amz-* headers we add (SignedHeaders lists
		 * them), so the payload hash and the session token are covered. */
		char h[2200];
		snprintf(h, sizeof h, "x-amz-content-sha256: %s", EMPTY_SHA256);
		struct curl_slist *l = curl_slist_append(NULL, h);
		if (l && src->creds.token) {
			snprintf(h, sizeof h, "x-amz-security-token: %s", src->creds.token);
			struct curl_slist *t = curl_slist_append(l, h);
			if (!t) {
				curl_slist_free_all(l);
				l = NULL;
			}
			l = t;
		}
		if (!l)
			return HG_ENOMEM;
		x->headers = l;
	}
	if (src->kind == SRC_S3 && src->creds.key_id) {
		char sig[64];
		snprintf(sig, sizeof sig, "aws:amz:%s:s3", src->region);
		curl_easy_setopt(e, CURLOPT_AWS_SIGV4, sig);
		curl_easy_setopt(e, CURLOPT_USERNAME, src->creds.key_id);
		curl_easy_setopt(e, CURLOPT_PASSWORD, src->creds.secret);
		curl_easy_setopt(e, CURLOPT_HTTPHEADER, x->headers);
	}
	return 0;
}

static void classify(struct xfer *x, CURLcode code, struct fetch_result *r)
{
	memset(r, 0, sizeof *r);
	r->retry_after = x->retry_after;
	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &r->status);
	snprintf(r->detail, sizeof r->detail, "%s",
		 x->errbuf[0] ? x->errbuf : curl_easy_strerror(code));
	switch (code) {
	case CURLE_OK:
		r->outcome = r->status >= 200 && r->status <= 299 ? FO_OK : FO_HTTP;
		if (x->mem)
			r->outcome = FO_OK; /* fetch_get hands every status on */
		break;
	case CURLE_WRITE_ERROR:
		r->outcome = x->sink_err == GZ_TOO_LARGE ? FO_TOO_LARGE
			   : x->sink_err == GZ_BAD	 ? FO_BAD_BODY
							 : FO_LOCAL;
		if (x->sink_err == GZ_BAD)
			snprintf(r->detail, sizeof r->detail, "corrupt gzip data");
		break;
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_CONNECT:
		r->outcome = FO_CONNECT;
		break;
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_GOT_NOTHING:
		r->outcome = FO_RESET;
		break;
	case CURLE_OPERATION_TIMEDOUT:
		if (strstr(x->errbuf, "too slow"))
			r->outcome = FO_STALL;
		else if (fetch_now_ms() - x->started + 50 >= (uint64_t)x->src->opts.timeout_ms)
			r->outcome = FO_TIMEOUT;
		else
			r->outcome = FO_CONNECT;
		break;
	case CURLE_ABORTED_BY_CALLBACK:
		r->outcome = x->stalled ? FO_STALL : FO_OTHER;
		break;
	case CURLE_PARTIAL_FILE:
		r->outcome = FO_PARTIAL;
		break;
	case CURLE_BAD_CONTENT_ENCODING:
		r->outcome = FO_BAD_BODY;
		break;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CERTPROBLEM:
		r->outcome = FO_TLS;
		break;
	default:
		r->outcome = FO_OTHER;
		break;
	}
}

/* A 3xx with a Location: the next URL, or a refusal.  Returns 1 when the
 * transfer should go on at x->url, 0 when r stands (not a redirect, or
 * refused: r says why). */
static int follow(struct xfer *x, struct fetch_result *r)
{
	char *loc = NULL;
	if (r->status < 300 || r->status > 399 ||
	    curl_easy_getinfo(x->easy, CURLINFO_REDIRECT_URL, &loc) != CURLE_OK || !loc)
		return 0;
	if (x->src->kind == SRC_S3) {
		r->outcome = FO_REDIRECT;
		snprintf(r->detail, sizeof r->detail,
			 "HTTP %ld: S3 redirects are not followed (wrong region or endpoint?)",
			 r->status);
		return 0;
	}
	char why[160];
	if (++x->redirects > MAX_REDIRECTS) {
		r->outcome = FO_REDIRECT;
		snprintf(r->detail, sizeof r->detail, "more than %d redirects", MAX_REDIRECTS);
		return 0;
	}
	if (url_redirect_allowed(x->url, loc, x->src->has_userinfo, why, sizeof why) != 0) {
		r->outcome = FO_REDIRECT;
		snprintf(r->detail, sizeof r->detail, "%s", why);
		return 0;
	}
	char *next = NULL;
	const char *sep = strstr(loc, "://");
	struct fetch_url u;
	if (x->src->has_userinfo && sep && !strchr(loc, '@') &&
	    url_parse_http(x->url, &u, why, sizeof why) == 0) {
		/* Same origin (checked above): carry the credentials along. */
		size_t n = (size_t)(sep + 3 - loc);
		next = malloc(strlen(loc) + strlen(u.userinfo ? u.userinfo : "") + 2);
		if (next)
			sprintf(next, "%.*s%s%s%s", (int)n, loc, u.userinfo ? u.userinfo : "",
				u.userinfo ? "@" : "", sep + 3);
		url_release(&u);
	} else {
		next = strdup(loc);
	}
	if (!next) {
		r->outcome = FO_LOCAL;
		snprintf(r->detail, sizeof r->detail, "out of memory");
		return 0;
	}
	free(x->url);
	x->url = next;
	return 1;
}

/* ---- one GET into memory (listings) ---- */

int fetch_get(hg_source *src, const char *url, hg_buf *body, long *status, char *why,
	      size_t why_size)
{
	pthread_once(&init_once, global_init);
	*status = 0;
	struct xfer x = {.src = src, .mem = body, .url = strdup(url)};
	x.easy = curl_easy_init();
	int rc = 0;
	if (!x.easy || !x.url)
		rc = HG_ENOMEM;
	struct fetch_result r = {0};
	while (rc == 0) {
		hg_buf_reset(body);
		x.attempt++;
		x.started = fetch_now_ms();
		rc = setup_easy(&x);
		if (rc)
			break;
		classify(&x, curl_easy_perform(x.easy), &r);
		if (r.outcome == FO_OK && follow(&x, &r)) {
			x.attempt--; /* a redirect is not a failed attempt */
			continue;
		}
		if (r.outcome == FO_OK && (r.status == 429 || r.status >= 500))
			r.outcome = FO_HTTP; /* worth another try */
		if (r.outcome == FO_OK || !fetch_should_retry(&r) || x.attempt >= src->opts.attempts)
			break;
		long ms = fetch_retry_delay_ms(&r, x.attempt, src->opts.backoff_ms, fetch_random());
		if (src->list_deadline_ms && fetch_now_ms() + (uint64_t)ms >= src->list_deadline_ms)
			break; /* the listing's time is up before the retry */
		struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
	}
	if (rc == 0) {
		*status = r.status;
		if (r.outcome == FO_HTTP)
			r.outcome = FO_OK; /* the caller reads the status (and S3's error) */
		if (r.outcome != FO_OK) {
			*status = 0;
			fetch_describe(&r, x.attempt, src->opts.stall_ms,
				       (int64_t)HG_FETCH_MAX_LISTING_BYTES, why, why_size);
			rc = HG_EIO;
		}
	}
	curl_slist_free_all(x.headers);
	if (x.easy)
		curl_easy_cleanup(x.easy);
	free(x.url);
	return rc;
}

/* ---- many objects at once ---- */

void xfer_free(struct xfer *x)
{
	if (!x)
		return;
	object_close_sink(x, false);
	curl_slist_free_all(x->headers);
	if (x->easy)
		curl_easy_cleanup(x->easy);
	free(x->url);
	free(x->path);
	free(x->part);
	item_free(x->item);
	free(x);
}

static bool ends_with_gz(const char *key)
{
	size_t n = strlen(key);
	return n >= 3 && strcmp(key + n - 3, ".gz") == 0;
}

/* Starts (or restarts) x's next attempt: a fresh .part file, a fresh sink. */
int xfer_start(struct engine *en, struct xfer *x)
{
	object_close_sink(x, false);
	x->in_memory = en->cb->done_data && x->obj->size >= 0 &&
		       x->obj->size <= en->src->opts.memory_max && !ends_with_gz(x->obj->key);
	if (x->in_memory) {
		if (!(x->file = open_memstream(&x->body, &x->body_len)))
			return HG_ENOMEM;
	} else if (!(x->file = object_open_part(x))) {
		return HG_EIO;
	}
	x->gz = gunzip_create(x->file, en->src->opts.max_object, ends_with_gz(x->obj->key));
	if (!x->gz || setup_easy(x) != 0)
		return HG_ENOMEM;
	x->started = fetch_now_ms();
	if (curl_multi_add_handle(en->multi, x->easy) != CURLM_OK)
		return HG_ENOMEM;
	x->slot = en->progress.active++;
	en->active[x->slot] = x;
	return 0;
}

struct xfer *xfer_new(struct engine *en, const hg_object *obj, struct item *item)
{
	struct xfer *x = calloc(1, sizeof *x);
	if (!x) {
		item_free(item);
		return NULL;
	}
	x->src = en->src;
	x->item = item;
	x->obj = obj = item ? &item->obj : obj;
	x->bytes = &en->progress.bytes;
	x->easy = curl_easy_init();
	x->url = item && item->request_url ? strdup(item->request_url)
					   : source_request_url(en->src, obj);
	x->path = source_staged_path(en->src, obj->key);
	x->part = x->path ? malloc(strlen(x->path) + 6) : NULL;
	if (!x->easy || !x->url || !x->part) {
		xfer_free(x);
		return NULL;
	}
	sprintf(x->part, "%s.part", x->path);
	return x;
}

/* One attempt ended: done, failed, or back to wait for a retry/redirect. */
static void complete(struct engine *en, struct xfer *x, CURLcode code)
{
	curl_multi_remove_handle(en->multi, x->easy);
	struct xfer *last = en->active[--en->progress.active];
	en->active[x->slot] = last;
	last->slot = x->slot;
	struct fetch_result r;
	classify(x, code, &r);
	if (r.outcome == FO_HTTP && follow(x, &r)) {
		x->ready_at = 0; /* at once, not counted as an attempt */
		x->attempt--;
	} else if (r.outcome == FO_OK) {
		object_finish(en, x);
		xfer_free(x);
		return;
	} else if (!fetch_should_retry(&r) || x->attempt >= en->src->opts.attempts) {
		char reason[320];
		fetch_describe(&r, x->attempt, en->src->opts.stall_ms, en->src->opts.max_object,
			       reason, sizeof reason);
		object_close_sink(x, false);
		object_failed(en, x, reason);
		xfer_free(x);
		return;
	} else {
		x->ready_at = fetch_now_ms() + (uint64_t)fetch_retry_delay_ms(&r, x->attempt,
								      en->src->opts.backoff_ms,
								      fetch_random());
	}
	object_close_sink(x, false);
	if (engine_wait(en, x) != 0) {
		object_failed(en, x, "out of memory");
		xfer_free(x);
	}
}

int engine_wait(struct engine *en, struct xfer *x)
{
	if (en->n_waiting == en->cap_waiting) {
		size_t cap = en->cap_waiting ? en->cap_waiting * 2 : 64;
		struct xfer **w = realloc(en->waiting, cap * sizeof *w);
		if (!w)
			return HG_ENOMEM;
		en->waiting = w;
		en->cap_waiting = cap;
	}
	en->waiting[en->n_waiting++] = x;
	return 0;
}

/* ---- the listing request of hg_source_list_fetch ---- */

int list_send(struct engine *en, const char *url)
{
	struct xfer *x = en->list_x;
	if (!x) {
		if (!(x = calloc(1, sizeof *x)))
			return HG_ENOMEM;
		x->src = en->src;
		x->mem = &en->list_body;
		x->easy = curl_easy_init();
		x->url = strdup(url);
		en->list_x = x;
		if (!x->easy || !x->url)
			return HG_ENOMEM;
	}
	x->attempt++;
	hg_buf_reset(x->mem);
	x->started = fetch_now_ms();
	if (setup_easy(x) != 0 || curl_multi_add_handle(en->multi, x->easy) != CURLM_OK)
		return HG_ENOMEM;
	en->list_in_multi = true;
	return 0;
}

void list_stop(struct engine *en)
{
	if (en->list_x && en->list_in_multi)
		curl_multi_remove_handle(en->multi, en->list_x->easy);
	xfer_free(en->list_x);
	en->list_x = NULL;
	en->list_in_multi = false;
}

/* The listing request ended: its answer goes to the listing, or it waits
 * for its retry (or redirect) as fetch_get would have waited. */
static void list_done(struct engine *en, struct xfer *x, CURLcode code)
{
	curl_multi_remove_handle(en->multi, x->easy);
	en->list_in_multi = false;
	struct fetch_result r;
	classify(x, code, &r);
	if (r.outcome == FO_OK && follow(x, &r)) {
		x->attempt--; /* a redirect is not a failed attempt */
		x->ready_at = 0;
		return;
	}
	if (r.outcome == FO_OK && (r.status == 429 || r.status >= 500))
		r.outcome = FO_HTTP; /* worth another try */
	if (r.outcome != FO_OK && fetch_should_retry(&r) && x->attempt < en->src->opts.attempts) {
		x->ready_at = fetch_now_ms() + (uint64_t)fetch_retry_delay_ms(&r, x->attempt,
								      en->src->opts.backoff_ms,
								      fetch_random());
		return;
	}
	en->list_x = NULL;
	if (r.outcome == FO_OK || r.outcome == FO_HTTP) { /* the listing reads the status */
		stream_page(en, r.status, x->mem);
	} else {
		char why[320];
		fetch_describe(&r, x->attempt, en->src->opts.stall_ms,
			       (int64_t)HG_FETCH_MAX_LISTING_BYTES, why, sizeof why);
		stream_failed(en, why);
	}
	xfer_free(x);
}

int engine_run(struct engine *en)
{
	pthread_once(&init_once, global_init);
	hg_source *src = en->src;
	en->multi = curl_multi_init();
	en->active = calloc((size_t)src->opts.jobs, sizeof *en->active);
	if (!en->multi || !en->active) {
		curl_multi_cleanup(en->multi);
		free(en->active);
		return HG_ENOMEM;
	}
	/* A listing request goes beside the transfers, not after them. */
	curl_multi_setopt(en->multi, CURLMOPT_MAX_HOST_CONNECTIONS,
			  (long)src->opts.jobs + (en->lister ? 1 : 0));
	while (!en->stop && queue_busy(en)) {
		queue_start_due(en);
		stream_pump(en);
		int running = 0;
		curl_multi_perform(en->multi, &running);
		CURLMsg *m;
		int left;
		bool completed = false;
		while ((m = curl_multi_info_read(en->multi, &left)) != NULL) {
			if (m->msg != CURLMSG_DONE)
				continue;
			struct xfer *x = NULL;
			curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
			if (x == en->list_x)
				list_done(en, x, m->data.result);
			else
				complete(en, x, m->data.result);
			completed = true;
		}
		queue_progress(en, false);
		/* A transfer that ended freed a slot: go round at once to fill it.
		 * Polling first would wait on the others' sockets, or with none
		 * left (--jobs 1) the whole timeout, before the next one starts. */
		if (queue_busy(en) && !en->stop && !completed)
			curl_multi_poll(en->multi, NULL, 0, (int)queue_poll_timeout(en), NULL);
	}
	queue_progress(en, true);
	/* Stopped early: whatever is still in flight or waiting goes. */
	list_stop(en);
	for (size_t i = 0; i < en->progress.active; i++) {
		curl_multi_remove_handle(en->multi, en->active[i]->easy);
		xfer_free(en->active[i]);
	}
	free(en->active);
	for (size_t i = 0; i < en->n_waiting; i++)
		xfer_free(en->waiting[i]);
	free(en->waiting);
	curl_multi_cleanup(en->multi);
	return en->stop;
}

int hg_source_fetch(hg_source *src, const hg_object *objs, size_t n,
		    const hg_fetch_callbacks *cb, void *user)
{
	struct engine en = {.src = src, .objs = objs, .n = n, .cb = cb, .user = user};
	en.progress.total = n;
	return engine_run(&en);
}
