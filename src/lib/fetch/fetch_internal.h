/* What the fetch files share (private to the library).  Only fetch.c sees
 * curl; the rest is pure and unit-tested (tests/unit/test_fetch.c). */
#ifndef HANGAR_LIB_FETCH_INTERNAL_H
#define HANGAR_LIB_FETCH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hangar/arena.h"
#include "hangar/fetch.h"
#include "hangar/text.h"

/* ---- fetch_url.c: URLs, percent-encoding, redirects ---- */

/* An http(s) URL split into malloc'd parts (url_release).  userinfo, port
 * and query are NULL when absent; path is at least "/". */
struct fetch_url {
	char *scheme; /* "http" or "https", lowercased */
	char *userinfo;
	char *host;   /* lowercased; IPv6 literals keep their brackets */
	char *port;
	char *path;   /* as written (still percent-encoded) */
	char *query;
};

int url_parse_http(const char *url, struct fetch_url *out, char *why, size_t why_size);
void url_release(struct fetch_url *u);
/* "scheme://host[:port]" of u, malloc'd. */
char *url_origin(const struct fetch_url *u, bool with_userinfo);
/* Splits "s3://bucket/prefix" (prefix may be empty); malloc'd parts. */
int url_parse_s3(const char *url, char **bucket, char **prefix, char *why, size_t why_size);
/* RFC 3986 percent-encoding of s[0..len): everything but unreserved
 * characters (and '/' when keep_slash) as %XX with upper-case hex.  Appends
 * to out. */
void url_encode(hg_buf *out, const char *s, size_t len, bool keep_slash);
/* Decodes %XX escapes of s[0..len) into a malloc'd string; HG_EPARSE for a
 * bad escape or an encoded NUL, HG_ENOMEM. */
int url_decode(const char *s, size_t len, char **out);
/* Whether a redirect from `from` to `to` (both absolute) may be followed:
 * http(s) only, and to the same scheme, host and port when from carried
 * credentials.  0 or HG_EINVAL with a reason. */
int url_redirect_allowed(const char *from, const char *to, bool has_credentials, char *why,
			 size_t why_size);
/* Resolves ref against the absolute URL base (a manifest line): absolute
 * http(s) URLs stay, "/x" keeps base's origin, others replace base's last
 * path segment.  malloc'd, or NULL with a reason. */
char *url_resolve(const char *base, const char *ref, char *why, size_t why_size);

/* ---- fetch_creds.c: AWS credentials ---- */

struct fetch_creds {
	char *key_id, *secret, *token; /* all NULL: anonymous */
};

/* Parses a shared credentials file text for `profile`.  Section missing:
 * 0 with no credentials.  Malformed: HG_EPARSE with "path:line: ..." in why
 * (never quoting the line: it may hold a secret). */
int creds_parse_ini(const char *text, size_t len, const char *profile, const char *path,
		    struct fetch_creds *out, char *why, size_t why_size);
/* Environment first, then the shared credentials file. */
int creds_load(struct fetch_creds *out, char *why, size_t why_size);
void creds_release(struct fetch_creds *c); /* wipes the secrets */

/* ---- fetch_s3_list.c: ListObjectsV2 and S3 error documents (expat) ---- */

struct s3_page {
	bool truncated;
	char *next_token;   /* malloc'd or NULL */
	char *error_code;   /* an <Error> document: malloc'd code and message */
	char *error_message;
};
typedef int (*s3_entry_fn)(void *user, const char *key, const char *etag, int64_t size,
			   const char *last_modified);
/* Parses one page; fn gets each <Contents> (strings borrowed for the call;
 * a non-zero return stops with that value).  HG_EPARSE with a reason for
 * bad XML, a DOCTYPE, an overlong value or a bad Size. */
int s3_list_parse(const char *xml, size_t len, s3_entry_fn fn, void *user, struct s3_page *page,
		  char *why, size_t why_size);
void s3_page_release(struct s3_page *page);
/* "403 SignatureDoesNotMatch: the request signature does not match (check
 * AWS_SECRET_ACCESS_KEY)" into out. */
void s3_describe_error(long status, const char *code, const char *message, const char *bucket,
		       char *out, size_t size);

/* ---- fetch_http_list.c: autoindex JSON / HTML, manifests ---- */

/* name is decoded, a single path segment (never "", ".", ".." or with '/');
 * size -1 and mtime NULL when the listing has none. */
typedef int (*http_entry_fn)(void *user, const char *name, bool is_dir, int64_t size,
			     const char *mtime);
int http_listing_parse(const char *body, size_t len, http_entry_fn fn, void *user, char *why,
		       size_t why_size);
/* Calls fn(user, line_no, text) for each URL line of a manifest (text NULL
 * for a line too long to be one). */
typedef int (*manifest_fn)(void *user, long line, const char *url);
int manifest_parse(const char *body, size_t len, manifest_fn fn, void *user);

/* ---- fetch_gunzip.c: the sink that staged bodies stream through ---- */

enum { GZ_OK = 0, GZ_TOO_LARGE = 1, GZ_BAD = 2, GZ_IO = 3 };
struct gunzip;
/* A sink writing to out, inflating when maybe_gzip and the body starts with
 * the gzip magic, failing once more than cap bytes would be written. */
struct gunzip *gunzip_create(FILE *out, int64_t cap, bool maybe_gzip);
int gunzip_write(struct gunzip *g, const void *data, size_t len);
int gunzip_finish(struct gunzip *g); /* GZ_BAD for a truncated stream */
int64_t gunzip_written(const struct gunzip *g);
void gunzip_retarget(struct gunzip *g, FILE *out); /* where the bytes go from now on */
void gunzip_destroy(struct gunzip *g);

/* ---- fetch_retry.c: what to do after a failed attempt ---- */

#define CURL_ERROR_SIZE_COPY 256 /* curl's CURL_ERROR_SIZE, without curl.h */
enum fetch_outcome {
	FO_OK,
	FO_HTTP,      /* a status >= 300 (status field) */
	FO_CONNECT,   /* could not resolve or connect */
	FO_RESET,     /* connection reset / nothing received */
	FO_TIMEOUT,   /* the whole-transfer timeout */
	FO_STALL,     /* no byte for stall_ms */
	FO_PARTIAL,   /* body shorter than announced */
	FO_TOO_LARGE, /* beyond max_object */
	FO_TLS,       /* certificate or TLS failure */
	FO_BAD_BODY,  /* undecodable content (gzip) */
	FO_REDIRECT,  /* a refused redirect */
	FO_LOCAL,     /* staging failed (disk) */
	FO_OTHER,
};
struct fetch_result {
	enum fetch_outcome outcome;
	long status;      /* HTTP status, 0 if none */
	long retry_after; /* seconds from Retry-After, -1 if none */
	char detail[CURL_ERROR_SIZE_COPY]; /* curl's words, or the refused redirect */
};
bool fetch_should_retry(const struct fetch_result *r);
/* Delay before attempt `attempt + 1` after `attempt` (1-based) failed:
 * Retry-After when sent (capped), else backoff * 2^(attempt-1) scaled by
 * a factor in [0.5, 1.5) from rnd, capped at HG_FETCH_MAX_BACKOFF_MS. */
long fetch_retry_delay_ms(const struct fetch_result *r, int attempt, long backoff_ms,
			  uint64_t rnd);
/* "HTTP 503 after 5 attempts", "stalled: no data for 30 s", ... */
void fetch_describe(const struct fetch_result *r, int attempts, long stall_ms, int64_t cap,
		    char *out, size_t size);
/* Seconds in a Retry-After header value (delta-seconds only), -1 if none. */
long fetch_parse_retry_after(const char *value, size_t len);

/* ---- fetch_source.c: the source object and listing ---- */

enum source_kind { SRC_S3, SRC_HTTP };

struct listed {
	hg_object obj;
	char *request_url; /* with credentials when the source has them */
};

struct hg_source {
	const hg_ctx *ctx;
	hg_fetch_opts opts;      /* defaults filled in; strings below */
	enum source_kind kind;
	char *name;              /* redacted */
	char *cacert, *cache_dir;
	bool own_cache_dir;
	/* S3 */
	char *bucket, *prefix, *region, *s3_base; /* s3_base: scheme://host[:port][/bucket] */
	struct fetch_creds creds;
	/* HTTP */
	char *url;               /* as given, with credentials */
	bool has_userinfo;
	/* the last listing */
	hg_arena *arena;
	struct listed *items;
	size_t n_items, cap_items;
	uint64_t list_deadline_ms; /* fetch_now_ms() past which listing requests stop; 0: none */
};

/* The URL a listed object is requested from (malloc'd). */
char *source_request_url(const hg_source *src, const hg_object *obj);
/* cache_dir/<hex SHA-256 of name NUL key>, malloc'd. */
char *source_staged_path(const hg_source *src, const char *key);
uint64_t fetch_random(void);

/* ---- fetch_list.c: a listing, one request at a time ---- */

/* One object a listing found; strings borrowed for the call. */
struct list_entry {
	const char *key, *url, *etag, *modified; /* etag, modified may be NULL */
	const char *request_url;                 /* NULL: made from the key (S3) */
	int64_t size;
};
typedef int (*list_emit_fn)(void *user, const struct list_entry *e);
struct lister;

/* A listing of src (S3 pages followed by continuation token, autoindex
 * folders walked depth-first, or a manifest) that counts each entry against
 * opts.max_objects and hands it to emit (non-zero stops the listing with
 * that value).  Starts the clock of opts.list_timeout_ms
 * (src->list_deadline_ms, reset by lister_destroy).  NULL on ENOMEM. */
struct lister *lister_create(hg_source *src, list_emit_fn emit, void *user);
void lister_destroy(struct lister *l); /* accepts NULL */
/* The next listing request's URL (with credentials, borrowed until the
 * next call) in *url, or NULL when the listing is complete.  0 or an error
 * (said: HG_ELIMIT past a cap, HG_ENOMEM). */
int lister_next(struct lister *l, const char **url);
/* The answer to that request: its objects emitted.  0 (go on with
 * lister_next) or an error, said: HG_EIO (an HTTP or S3 error), HG_EPARSE,
 * HG_ELIMIT, HG_ENOMEM, or emit's value. */
int lister_take(struct lister *l, long status, const char *body, size_t len);
/* That request failed for good, why says how: said, HG_EIO. */
int lister_fail(struct lister *l, const char *why);
/* Whether the listing is past its deadline; lister_timeout says it is and
 * returns HG_ELIMIT. */
bool lister_expired(const struct lister *l);
int lister_timeout(struct lister *l);

/* ---- fetch.c: the transfers (curl) ---- */

/* GET url into body (capped at HG_FETCH_MAX_LISTING_BYTES), retrying as for
 * objects, never past src->list_deadline_ms.  *status is the final HTTP
 * status.  On a failure returns HG_EIO with what happened in why. */
int fetch_get(hg_source *src, const char *url, hg_buf *body, long *status, char *why,
	      size_t why_size);

/* One object's transfer, or fetch_get's: its curl handle and the request
 * (fetch.c), where the body goes (fetch_object.c), its place in the queue
 * (fetch_queue.c).  The curl handle is void * here: curl.h stays in fetch.c. */
struct xfer {
	hg_source *src;
	const hg_object *obj;    /* NULL for listing requests */
	struct item *item;       /* the listed object obj is, owned (hg_source_list_fetch) */
	void *easy;              /* its CURL handle (fetch.c only) */
	struct curl_slist *headers;
	char *url;               /* current request URL (may change on redirect) */
	int attempt, redirects;
	size_t slot;             /* index in the engine's active list */
	uint64_t ready_at, started;
	/* where the body goes: a staged file through the gunzip sink, or memory */
	char *path, *part;
	FILE *file;              /* the staged file, or with in_memory an open_memstream on body */
	bool in_memory;
	bool staged;             /* the .part file is ours and there, to unlink when dropped */
	char *body;
	size_t body_len;
	struct gunzip *gz;
	hg_buf *mem;
	int sink_err;
	bool stalled;
	uint64_t last_data;      /* when the last byte (header or body) came */
	long retry_after;
	int64_t *bytes;
	char errbuf[CURL_ERROR_SIZE_COPY];
};

/* A listed object of hg_source_list_fetch with its request URL, in one
 * block (fetch_stream.c), queued until its transfer takes it over. */
struct item {
	hg_object obj;
	const char *request_url; /* NULL: made from the key */
	struct item *next;
	char data[];             /* the strings */
};

/* A set of 64-bit hashes of keys (each key listed once). */
struct keyset {
	uint64_t *slots; /* 0: empty */
	size_t mask, len;
};

/* hg_source_fetch's and hg_source_list_fetch's state: the objects, the
 * transfers in the multi handle and those waiting for a retry, the
 * listing that feeds them, the progress. */
struct engine {
	hg_source *src;
	void *multi;             /* the CURLM handle (fetch.c only) */
	const hg_object *objs;   /* hg_source_fetch's objects */
	size_t n, next;
	const hg_fetch_callbacks *cb;
	void *user;
	struct xfer **waiting;   /* failed attempts waiting for their retry */
	size_t n_waiting, cap_waiting;
	struct xfer **active;    /* in the multi handle (progress.active of them) */
	hg_fetch_progress progress;
	uint64_t last_progress;
	int stop;                /* a callback's non-zero value, or an error */
	/* hg_source_list_fetch: the listing (NULL once it ended) and what it
	 * listed that waits for a transfer */
	struct lister *lister;
	int list_rc;             /* how the listing ended */
	struct xfer *list_x;     /* the listing request in flight, or waiting */
	bool list_in_multi;      /* list_x is in the multi handle (else it waits for ready_at) */
	hg_buf list_body;
	uint64_t paused_since;   /* the listing waits for the transfers since then; 0: not */
	struct item *head, *tail;
	size_t n_queued;
	struct keyset seen;
};

/* Milliseconds of a monotonic clock. */
uint64_t fetch_now_ms(void);
/* A transfer of obj, or of item (which it then owns) when obj is NULL
 * (xfer_new: NULL on ENOMEM, item freed), started (again) with a fresh
 * .part file and sink (xfer_start: 0 or an hg error), freed with its .part
 * file removed (xfer_free: accepts NULL).  fetch.c. */
struct xfer *xfer_new(struct engine *en, const hg_object *obj, struct item *item);
int xfer_start(struct engine *en, struct xfer *x);
void xfer_free(struct xfer *x);
/* The transfer loop of hg_source_fetch and hg_source_list_fetch over en
 * (its objects, its lister): returns en->stop.  fetch.c. */
int engine_run(struct engine *en);
/* Puts a transfer that failed an attempt in the waiting list: 0 or HG_ENOMEM. */
int engine_wait(struct engine *en, struct xfer *x);
/* Sends the listing request url (0 or HG_ENOMEM), again after a failed
 * attempt (list_x waiting, url NULL), or drops it (list_stop).  fetch.c. */
int list_send(struct engine *en, const char *url);
void list_stop(struct engine *en);

/* ---- fetch_object.c: what becomes of a fetched object ---- */

/* Closes x's sink and staged file, removing the .part file unless keep. */
void object_close_sink(struct xfer *x, bool keep);
/* A fresh .part file for x, staged (x->staged); NULL on failure. */
FILE *object_open_part(struct xfer *x);
/* An object held in memory that grows past opts.memory_max (its listing
 * said less): its bytes so far to the staged .part file, and the rest
 * after them.  0 or HG_EIO. */
int object_spill(struct xfer *x);
/* Counts x's object failed, says why, and tells the failed callback. */
void object_failed(struct engine *en, struct xfer *x, const char *reason);
/* x's body is all there: its staged file renamed into place and handed to
 * the done callback, then removed (or the object failed). */
void object_finish(struct engine *en, struct xfer *x);

/* ---- fetch_queue.c: the queue of objects ---- */

/* Starts what may start: due retries first, then new objects. */
void queue_start_due(struct engine *en);
/* How long the loop may wait (ms): until the next retry is due, 100 at most. */
long queue_poll_timeout(const struct engine *en);
/* Whether objects are still to be reported, or the listing goes on. */
bool queue_busy(const struct engine *en);
/* Calls the progress callback, at most every 250 ms unless force. */
void queue_progress(struct engine *en, bool force);

/* ---- fetch_stream.c: hg_source_list_fetch's listing ---- */

/* The listing's next step, between transfers: its deadline, its next
 * request unless HG_FETCH_LIST_AHEAD objects wait, its retry when due. */
void stream_pump(struct engine *en);
/* The listing request's answer (status and body), or its failure (why). */
void stream_page(struct engine *en, long status, const hg_buf *body);
void stream_failed(struct engine *en, const char *why);
/* The next queued object (the caller owns it), or NULL. */
struct item *stream_take(struct engine *en);
/* A queued object of e's strings, copied (item_free); NULL on ENOMEM. */
struct item *item_new(const struct list_entry *e);
void item_free(struct item *it);
/* Whether key was seen before (adding it): 1, 0, or HG_ENOMEM. */
int keyset_add(struct keyset *s, const char *key);
void keyset_release(struct keyset *s);

#endif
