/* Indexing a ProGuard / R8 mapping.txt in one pass.
 *
 * The file is read in small chunks that stay in cache (as `wc -l` does),
 * and the complete lines of each go to the line scanner (proguard_scan.c),
 * which keeps each class line's offset, line number and the hashes of both
 * names.  Files over 8 MiB are cut in two at a line boundary and both
 * halves are read at once by two workers, which keep their first warnings
 * for the caller to send in file order with absolute line numbers.  Then
 * the table by obfuscated name is built. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"
#include "proguard_index.h"

#define CHUNK ((size_t)128 << 10)
#define SPLIT_AT ((size_t)8 << 20)
#define MAP_VERSION_MAJOR 2      /* the newest com.android.tools.r8.mapping version known */

/* The complete lines of a chunk go to the line scanner. */
static size_t read_lines(void *user, const char *buf, size_t len, size_t off, bool eof)
{
	struct pg_worker *w = user;
	size_t limit = len;
	if (!eof)
		while (limit > 0 && buf[limit - 1] != '\n')
			limit--;
	if (limit)
		pg_scan(w, buf, limit, off);
	return w->rc ? CHUNK_STOP : limit;
}

/* A line fills the buffer: said once (unless a comment), then skipped. */
static void read_too_long(void *user, const char *buf, size_t len)
{
	struct pg_worker *w = user;
	const char *t = buf;
	while (t < buf + len && pg_blank(*t))
		t++;
	if (t < buf + len && *t != '#')
		pg_worker_warn(w, w->lines + 1, "line longer than %zu bytes; skipped", PG_MAX_LINE);
}

static void read_skipped(void *user)
{
	((struct pg_worker *)user)->lines++;
}

/* Indexes the part [w->begin, w->end) of the file (a thread's start
 * routine: arg is the worker): from memory at once, else in chunks. */
static void *index_part(void *arg)
{
	struct pg_worker *w = arg;
	hg_proguard *pg = w->pg;
	if (pg->fd < 0) {
		pg_scan(w, pg->data + w->begin, w->end - w->begin, w->begin);
		return NULL;
	}
	struct chunk_read cr = {pg->fd, w->begin, w->end, CHUNK, read_lines, read_too_long,
				read_skipped, w};
	int rc = chunk_read(&cr, &w->err);
	if (rc && !w->rc)
		w->rc = rc;
	return NULL;
}

static size_t split_point(const hg_proguard *pg)
{
	if (pg->fd < 0 || pg->len < SPLIT_AT || sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return 0;
	char buf[4096];
	for (size_t at = pg->len / 2; at < pg->len;) {
		long n = pg_read_at(pg, at, buf, sizeof buf);
		if (n <= 0)
			return 0;
		const char *nl = memchr(buf, '\n', (size_t)n);
		if (nl) {
			size_t split = at + (size_t)(nl - buf) + 1;
			return split < pg->len ? split : 0;
		}
		at += (size_t)n;
	}
	return 0;
}

/* The obfuscated name of record r (read back from the file) into buf. */
static bool rec_obf(const hg_proguard *pg, const struct pg_rec *r, char *buf, size_t size,
		    const char **obf, size_t *obf_len)
{
	long n = pg_read_at(pg, r->off, buf, size);
	if (n <= 0)
		return false;
	const char *nl = memchr(buf, '\n', (size_t)n);
	size_t len = nl ? (size_t)(nl - buf) : (size_t)n;
	const char *orig;
	size_t orig_len;
	return pg_class_line(buf, len, &orig, &orig_len, obf, obf_len);
}

/* Builds the obfuscated-name table; a name seen before keeps its first
 * block (names are compared only when their hashes are equal). */
static int build_table(hg_proguard *pg, struct pg_worker *dups)
{
	size_t cap = 16;
	while (cap < pg->n_recs + pg->n_recs / 2)
		cap *= 2;
	pg->obf_slots = calloc(cap, sizeof *pg->obf_slots);
	if (!pg->obf_slots)
		return HG_ENOMEM;
	pg->obf_mask = cap - 1;
	char a[1024], b[1024];
	for (size_t i = 0; i < pg->n_recs; i++) {
		const struct pg_rec *r = &pg->recs[i];
		size_t at = r->obf_hash & pg->obf_mask;
		bool dup = false;
		for (; pg->obf_slots[at]; at = (at + 1) & pg->obf_mask) {
			const struct pg_rec *o = &pg->recs[pg->obf_slots[at] - 1];
			const char *x, *y;
			size_t xn, yn;
			if (o->obf_hash == r->obf_hash && rec_obf(pg, o, a, sizeof a, &x, &xn) &&
			    rec_obf(pg, r, b, sizeof b, &y, &yn) && xn == yn && memcmp(x, y, xn) == 0) {
				pg_worker_warn(dups, r->line,
				     "obfuscated class '%.*s' is mapped again (first at line %u); "
				     "this block is ignored",
				     (int)(yn < 100 ? yn : 100), y, o->line);
				dup = true;
				break;
			}
		}
		if (!dup)
			pg->obf_slots[at] = (uint32_t)i + 1;
	}
	return 0;
}

/* A warning to send: a line's, or an unknown metadata id's. */
struct outgoing {
	long line;
	const char *msg;  /* line warning */
	const char *id;   /* or unknown id */
};

static int by_line(const void *a, const void *b)
{
	const struct outgoing *x = a, *y = b;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Sends the workers' warnings in file order (line warnings: the first
 * PG_MAX_WARNINGS, then a count; unknown ids once each). */
static void send_warnings(hg_proguard *pg, struct pg_worker *w, int n, const struct pg_worker *dups)
{
	struct outgoing out[3 * PG_MAX_WARNINGS + 2 * PG_MAX_IDS];
	size_t k = 0;
	long before = 0;
	for (size_t j = 0; j < dups->n_warn; j++) /* absolute line numbers */
		out[k++] = (struct outgoing){dups->warn[j].line, dups->warn[j].msg, NULL};
	pg->skipped += dups->skipped;
	for (int i = 0; i < n; i++) {
		for (size_t j = 0; j < w[i].n_warn; j++)
			out[k++] = (struct outgoing){before + w[i].warn[j].line, w[i].warn[j].msg, NULL};
		for (size_t j = 0; j < w[i].n_ids; j++) {
			bool seen = false;
			for (int a = 0; a < i && !seen; a++)
				for (size_t q = 0; q < w[a].n_ids && !seen; q++)
					seen = strcmp(w[a].ids[q].id, w[i].ids[j].id) == 0;
			if (!seen)
				out[k++] = (struct outgoing){before + w[i].ids[j].line, NULL, w[i].ids[j].id};
		}
		pg->skipped += w[i].skipped;
		before += w[i].lines;
	}
	qsort(out, k, sizeof *out, by_line);
	for (size_t j = 0; j < k; j++) {
		if (out[j].id) {
			pg_unknown_id(pg, out[j].id, strlen(out[j].id), out[j].line);
		} else if (pg->warned < PG_MAX_WARNINGS) {
			hg_diagf(&pg->ctx, HG_DIAG_WARNING, pg->name, out[j].line, 0, 0, "%s", out[j].msg);
			pg->warned++;
		}
	}
	if (pg->skipped > PG_MAX_WARNINGS)
		hg_diagf(&pg->ctx, HG_DIAG_WARNING, pg->name, 0, 0, 0,
			 "%zu malformed lines skipped in all (only the first %d are listed)", pg->skipped,
			 PG_MAX_WARNINGS);
	if (w[0].version[0] && atol(w[0].version) > MAP_VERSION_MAJOR)
		hg_diagf(&pg->ctx, HG_DIAG_WARNING, pg->name, w[0].version_line, 0, 0,
			 "mapping format version %s is newer than this reader knows (2.x); "
			 "reading it anyway",
			 w[0].version);
}

int pg_index(hg_proguard *pg)
{
	struct pg_worker w[2] = {{.pg = pg, .begin = 0, .end = pg->len, .first = true}, {.pg = pg}};
	int n = 1;
	size_t split = split_point(pg);
	pthread_t thread;
	if (split) {
		w[0].end = split;
		w[1].begin = split;
		w[1].end = pg->len;
		w[1].seen_class = true; /* its first lines belong to a class of the first part */
		if (pthread_create(&thread, NULL, index_part, &w[1]) == 0)
			n = 2;
		else
			w[0].end = pg->len;
	}
	index_part(&w[0]);
	if (n == 2)
		pthread_join(thread, NULL);
	int rc = w[0].rc ? w[0].rc : n == 2 ? w[1].rc : 0;
	if (rc == HG_EIO)
		hg_diagf(&pg->ctx, HG_DIAG_ERROR, pg->name, 0, 0, 0, "cannot read mapping: %s",
			 strerror(w[0].rc ? w[0].err : w[1].err));
	if (rc == 0) {
		/* The first part's array, grown in place, takes the second's. */
		size_t total = w[0].n + (n == 2 ? w[1].n : 0);
		struct pg_rec *recs = realloc(w[0].recs, (total ? total : 1) * sizeof *recs);
		if (!recs)
			rc = HG_ENOMEM;
		else {
			w[0].recs = NULL;
			for (size_t i = 0; n == 2 && i < w[1].n; i++) {
				recs[w[0].n + i] = w[1].recs[i];
				recs[w[0].n + i].line += (uint32_t)w[0].lines;
			}
			pg->recs = recs;
			pg->n_recs = total;
		}
	}
	struct pg_worker dups = {.pg = pg};
	if (rc == 0)
		rc = build_table(pg, &dups);
	if (rc == 0) {
		send_warnings(pg, w, n, &dups);
		if (w[0].map_id[0] && !(pg->map_id = strdup(w[0].map_id)))
			rc = HG_ENOMEM;
	}
	if (rc == 0 && pg->n_recs == 0 && pg->skipped > 0) {
		hg_diagf(&pg->ctx, HG_DIAG_ERROR, pg->name, 0, 0, 0,
			 "not a ProGuard/R8 mapping: no 'original.Class -> obfuscated:' line");
		rc = HG_EPARSE;
	}
	for (int i = 0; i < 2; i++)
		free(w[i].recs);
	return rc;
}
