/* Listing and downloading hang reports from S3 prefixes and HTTP(S) servers.
 *
 * A source is opened from one URL:
 *   s3://bucket/prefix/          every object under the prefix (ListObjectsV2)
 *   http(s)://host/dir/          an nginx autoindex (JSON or HTML), recursively
 *   http(s)://host/list.txt      a manifest: one object URL per line
 * hg_source_list_fetch lists and fetches at once: objects are fetched in
 * parallel while the listing goes on, so a listing that never ends still
 * gets what it listed fetched, until the listing's caps stop it
 * (opts.max_objects, opts.list_timeout_ms).  hg_source_list only lists (in
 * key order); hg_source_fetch downloads a batch of objects.  Fetched
 * objects go to staged files (or memory) that the caller reads in a
 * callback.
 *
 * Ownership: hg_source_open returns a heap source (hg_source_destroy).  The
 * hg_objects passed to hg_source_list's callback, and their strings, are
 * owned by the source and stay valid until it is destroyed, so a caller may
 * keep them; those of hg_source_list_fetch live only until their fetch ends
 * (see there).
 * Every URL this API shows (names, object urls, diagnostics, reasons) is
 * redacted: no userinfo, no signature or token query values.
 */
#ifndef HANGAR_FETCH_H
#define HANGAR_FETCH_H

#include <stddef.h>
#include <stdint.h>

#include "hangar.h"

enum hg_addressing {
	HG_ADDR_AUTO,    /* path-style with an endpoint, virtual-host on AWS */
	HG_ADDR_PATH,    /* endpoint/bucket/key */
	HG_ADDR_VIRTUAL, /* bucket.host/key */
};

#define HG_FETCH_DEFAULT_JOBS 8
#define HG_FETCH_DEFAULT_TIMEOUT_MS 120000L
#define HG_FETCH_DEFAULT_CONNECT_TIMEOUT_MS 10000L
#define HG_FETCH_DEFAULT_STALL_MS 30000L
#define HG_FETCH_DEFAULT_ATTEMPTS 5
#define HG_FETCH_DEFAULT_BACKOFF_MS 500L
#define HG_FETCH_DEFAULT_MAX_OBJECT ((int64_t)256 << 20)
#define HG_FETCH_MAX_BACKOFF_MS 30000L    /* a computed retry delay never exceeds this */
#define HG_FETCH_MAX_RETRY_AFTER_S 60L    /* a server's Retry-After is capped at this */
#define HG_FETCH_MAX_DEPTH 32             /* directory levels below an HTTP prefix */
#define HG_FETCH_DEFAULT_MAX_OBJECTS ((int64_t)5000000) /* objects one listing may list */
#define HG_FETCH_DEFAULT_LIST_TIMEOUT_MS 3600000L       /* one listing, in all (an hour) */
#define HG_FETCH_LIST_AHEAD 10000         /* objects listed but not yet fetched before the
					   * listing waits for the transfers to catch up */
#define HG_FETCH_MAX_LISTING_BYTES ((size_t)64 << 20) /* one listing page or manifest */

/* Options of a source.  Zero fields take the defaults above; strings are
 * borrowed only during hg_source_open (the source keeps copies). */
typedef struct hg_fetch_opts {
	const char *endpoint;    /* s3: "http(s)://host[:port]"; NULL: AWS, https://s3.<region>.amazonaws.com */
	const char *region;      /* NULL: $AWS_REGION, $AWS_DEFAULT_REGION, else "us-east-1" */
	int addressing;          /* enum hg_addressing */
	const char *cacert;      /* extra CA file; verification is always on */
	int jobs;                /* parallel transfers */
	long timeout_ms;         /* one whole transfer */
	long connect_timeout_ms;
	long stall_ms;           /* no byte for this long = a failed attempt (whole seconds, >= 1 s) */
	int attempts;            /* per object */
	long backoff_ms;         /* first retry delay; doubles, +-50% jitter, capped */
	int64_t max_object;      /* bytes after decompression */
	unsigned shard, shards;  /* only keys with hg_shard_of(key, shards) == shard; shards 0 = all */
	const char *cache_dir;   /* where downloads are staged (created 0700); NULL: a private
				  * directory under $TMPDIR, removed by hg_source_destroy */
	int64_t memory_max;      /* with a done_data callback: an object listed at most this
				  * size, not .gz, is held in memory (a body that grows past
				  * it goes to a staged file after all); 0: none */
	int64_t max_objects;     /* a listing that lists more objects than this (every entry
				  * it gives, before shards) stops with HG_ELIMIT */
	long list_timeout_ms;    /* a listing still going after this long stops with
				  * HG_ELIMIT; the time it waits for transfers to catch up
				  * (HG_FETCH_LIST_AHEAD) does not count */
} hg_fetch_opts;

/* One listed object.  Strings are owned by the source. */
typedef struct hg_object {
	const char *key;           /* the S3 key, or the path relative to the HTTP prefix (decoded) */
	const char *url;           /* redacted URL for messages and as the report's source */
	const char *etag;          /* without quotes; NULL for HTTP (use last_modified + size) */
	int64_t size;              /* -1 when unknown */
	const char *last_modified; /* as the server wrote it; may be NULL */
} hg_object;

typedef struct hg_source hg_source;

/* Opens url with opts (NULL: all defaults).  Reads credentials for s3:// URLs
 * (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, else the
 * shared credentials file; none: anonymous requests).  Does no network I/O.
 * Returns 0 and *out (caller owns; hg_source_destroy), HG_EINVAL for a bad
 * URL or option, HG_EPARSE for a malformed credentials file, HG_EIO when the
 * cache directory cannot be made, or HG_ENOMEM; each error with a diagnostic.
 * ctx is borrowed and must outlive the source. */
int hg_source_open(const hg_ctx *ctx, const char *url, const hg_fetch_opts *opts,
		   hg_source **out);
/* Frees the source, its listed objects and its staged files.  Accepts NULL. */
void hg_source_destroy(hg_source *src);
/* The source's URL, redacted (owned by the source). */
const char *hg_source_name(const hg_source *src);

/* Lists every object under the prefix (all pages), in byte order of keys,
 * shard-filtered, calling fn for each; fn returns non-zero to stop (that
 * value is then returned).  Returns 0, HG_EIO (network, HTTP or S3 error),
 * HG_EPARSE (a listing that does not parse), HG_ELIMIT (past max_objects or
 * list_timeout_ms, or other caps) or HG_ENOMEM, each with a diagnostic;
 * after such an error fn has had the objects listed before it.  May be
 * called more than once (lists again). */
int hg_source_list(hg_source *src, int (*fn)(void *user, const hg_object *obj), void *user);

typedef struct hg_fetch_progress {
	size_t total, done, failed; /* objects (hg_source_list_fetch: total grows as it lists) */
	size_t active, waiting;     /* transfers running / waiting to retry */
	int64_t bytes;              /* bytes received so far (after decoding), all attempts */
} hg_fetch_progress;

/* What hg_source_fetch reports.  All strings and the object are borrowed
 * for the duration of the call. */
typedef struct hg_fetch_callbacks {
	/* The object is staged, decompressed, at path (len bytes); the library
	 * deletes the file when done returns.  Non-zero stops the fetch. */
	int (*done)(void *user, const hg_object *obj, const char *path, int64_t len);
	/* The object could not be fetched; reason says what happened last
	 * ("HTTP 503 after 5 attempts").  Non-zero stops the fetch. */
	int (*failed)(void *user, const hg_object *obj, const char *reason);
	/* May be NULL; called at most about 4 times a second. */
	void (*progress)(void *user, const hg_fetch_progress *p);
	/* May be NULL.  An object held in memory (opts.memory_max): its bytes,
	 * data[len] == '\0', the library's until done_data returns.  Saves a
	 * small object's file (create, write, rename, read, unlink): most of
	 * hangar's own work per object of a bucket of reports.  Non-zero stops
	 * the fetch. */
	int (*done_data)(void *user, const hg_object *obj, const char *data, size_t len);
	/* hg_source_list_fetch only; may be NULL (every object is fetched).
	 * Each object listed (shard-filtered, each key once): 1 to fetch it,
	 * 0 to leave it, a negative value to stop (it is then returned). */
	int (*listed)(void *user, const hg_object *obj);
} hg_fetch_callbacks;

/* Downloads objs[0..n) (objects listed by this source, or copies of them)
 * with opts.jobs parallel transfers.  Connection errors, resets, timeouts,
 * stalls, truncated bodies, 5xx and 429 are retried up to opts.attempts in
 * all, after backoff * 2^k (+-50 %, at most HG_FETCH_MAX_BACKOFF_MS) or the
 * server's Retry-After (at most HG_FETCH_MAX_RETRY_AFTER_S); other 4xx, TLS
 * failures and objects over max_object fail at once.  For each object exactly one of done or failed is called,
 * on the calling thread, one at a time, unless a callback stops the fetch.
 * Returns 0 when every object was reported (failures included), a callback's
 * non-zero value, HG_EIO when staging fails, or HG_ENOMEM. */
int hg_source_fetch(hg_source *src, const hg_object *objs, size_t n,
		    const hg_fetch_callbacks *cb, void *user);

/* Lists the source and fetches what it lists at the same time: each page's
 * objects, in the order the server gives them, go to cb->listed and those
 * it takes are fetched as for hg_source_fetch while the next pages are
 * asked for (one listing request at a time, at most HG_FETCH_LIST_AHEAD
 * objects ahead of the transfers).  A listing that fails or passes
 * opts.max_objects or opts.list_timeout_ms stops there, with a diagnostic
 * naming the source and the cap, and what it listed before is still
 * fetched.  An object passed to a callback and its strings are the
 * library's from its listed call until its done, done_data or failed call
 * returns (or listed returns 0): copy what you keep.  *list_rc gets the
 * listing's end: 0 complete, or HG_EIO, HG_EPARSE, HG_ELIMIT or HG_ENOMEM
 * (said).  Returns what hg_source_fetch returns (a callback's value,
 * listed's included, stops both). */
int hg_source_list_fetch(hg_source *src, const hg_fetch_callbacks *cb, void *user,
			 int *list_rc);

/* Fetches the object `name` beside obj, an object of this source (one
 * being fetched: this may be called from a fetch callback while the
 * source's other transfers wait): obj's key up to its last '/', then name
 * (a relative path whose segments are none "", "." or ".."; else
 * HG_EINVAL), asked for as any object of the source is (a manifest's
 * object outside the manifest's folder: beside its URL), with the source's
 * options (max_object, attempts, timeouts, credentials).  Exactly one of
 * cb->done, cb->done_data or cb->failed is called, with that object (its
 * key and url are the ones beside obj); a failure is said only there,
 * never on the source's diagnostics.  Returns what hg_source_fetch
 * returns, or HG_EINVAL. */
int hg_source_fetch_beside(hg_source *src, const hg_object *obj, const char *name,
			   const hg_fetch_callbacks *cb, void *user);

/* The shard of key among `shards`: the first 8 bytes of SHA-256(key) read as
 * a big-endian uint64, modulo shards.  Stable across versions and machines.
 * 0 when shards is 0. */
uint32_t hg_shard_of(const char *key, unsigned shards);

/* A copy of url without userinfo and with the values of secret-bearing
 * query parameters (X-Amz-Signature, X-Amz-Credential, X-Amz-Security-Token,
 * token, sig, signature, key, ...) replaced by "REDACTED", and no fragment.
 * Returns a malloc'd string (caller frees) or NULL on ENOMEM. */
char *hg_redact_url(const char *url);

#endif
