/* A report's native frames named: each image matched to its symbol file
 * by identity, each frame's address slid into that file, one batch of
 * distinct addresses to the symbolizer, and its answers (innermost inlined
 * call first) written into the frames. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/threads.h"
#include "json/json.h"
#include "symbols_internal.h"

#define MAX_CACHED 2000000 /* answers kept for the run; past it, asked again */
#define BATCH_MAX 8192     /* questions in one batch (~3 MB of answers with inlined frames) */

struct pass {
	hg_symbols *s;
	hg_report *rep;
	const struct sym_entry **ent; /* per image: its symbol file, or NULL */
	struct query *q;
	size_t n_q, cap_q;
	size_t *frame_q;              /* per frame (all threads in order): 1 + query, or 0 */
	strmap seen;                  /* "entry:addr" -> query */
};

static const char *image_kind_word(const hg_image *im)
{
	return im->kind == HG_IMAGE_ELF ? "BuildId" : "UUID";
}

/* A file of the index named like im but of another identity: the likely
 * reason its frames stay addresses, worth saying. */
static const struct sym_entry *same_name(const struct sym_index *ix, const hg_image *im)
{
	for (size_t i = 0; i < ix->n && im->name; i++) {
		const char *slash = strrchr(ix->items[i].path, '/');
		if (strcmp(slash ? slash + 1 : ix->items[i].path, im->name) == 0)
			return &ix->items[i];
	}
	return NULL;
}

/* Matches every image of the report to a symbol file; an image without
 * one is said once per run. */
static int match_images(struct pass *p)
{
	hg_symbols *s = p->s;
	const hg_threads *ts = &p->rep->threads;
	for (size_t i = 0; i < ts->n_images; i++) {
		const hg_image *im = &ts->images[i];
		int rc = sym_find(s, im, p->rep->source, p->rep->number, &p->ent[i]);
		if (rc != 0)
			return rc;
	}
	return 0;
}

int sym_find(hg_symbols *s, const hg_image *im, const char *source, long report,
	     const struct sym_entry **out)
{
	char id[SYM_ID_MAX], key[SYM_ID_MAX + 4];
	*out = NULL;
	if (!im->id || !sym_normalize_id(im->id, strlen(im->id), id))
		return 0;
	enum sym_kind kind = im->kind == HG_IMAGE_ELF ? SYM_ELF : SYM_MACHO;
	snprintf(key, sizeof key, "%c:%s", kind == SYM_ELF ? 'E' : 'M', id);
	*out = sym_index_find(&s->index, kind, id);
	int64_t said;
	if (strmap_get(&s->images, key, &said))
		return 0;
	if (strmap_put(&s->images, key, *out ? 1 : 2) != 0)
		return HG_ENOMEM;
	if (*out) {
		s->stats.images_found++;
		return 0;
	}
	s->stats.images_missing++;
	const struct sym_entry *other = same_name(&s->index, im);
	hg_diagf(s->ctx, HG_DIAG_WARNING, source, 0, 0, report,
		 "no symbol file for %s (%s %s) in the --symbols folders: its frames stay "
		 "addresses%s%s%s", im->name ? im->name : "?", image_kind_word(im), im->id,
		 other ? " (" : "", other ? other->path : "",
		 other ? " has another identity: not used)" : "");
	return 0;
}

/* The address to ask about for frame j of a thread, in the symbol file. */
static bool frame_addr(const hg_image *im, const struct sym_entry *e, const hg_frame *f, size_t j,
		       uint64_t *addr)
{
	if (im->kind == HG_IMAGE_ELF) {
		*addr = f->pc; /* debuggerd's rel_pc: a file address already */
		return true;
	}
	if (!im->has_load_addr || f->pc < im->load_addr)
		return false;
	uint64_t pc = f->pc;
	if (j > 0 && pc > im->load_addr)
		pc--; /* a return address: the call is the byte before */
	*addr = pc - im->load_addr + e->slice.text_vmaddr;
	return true;
}

static int add_query(struct pass *p, size_t entry, uint64_t addr, size_t *qi)
{
	char key[64];
	snprintf(key, sizeof key, "%zu:%" PRIx64, entry, addr);
	int64_t v;
	if (strmap_get(&p->seen, key, &v)) {
		*qi = (size_t)v;
		return 0;
	}
	if (p->n_q == p->cap_q) {
		size_t ncap = p->cap_q ? p->cap_q * 2 : 64;
		struct query *nq = realloc(p->q, ncap * sizeof *nq);
		if (!nq)
			return HG_ENOMEM;
		p->q = nq;
		p->cap_q = ncap;
	}
	p->q[p->n_q] = (struct query){.entry = entry, .addr = addr};
	if (strmap_get(&p->s->answers, key, &v)) {
		const struct cached *c = &p->s->cache[v];
		p->q[p->n_q] = (struct query){.entry = entry, .addr = addr, .n = c->n, .fn = c->fn,
					      .file = c->file, .line = c->line, .known = true};
	}
	if (strmap_put(&p->seen, key, (int64_t)p->n_q) != 0)
		return HG_ENOMEM;
	*qi = p->n_q++;
	return 0;
}

static int collect(struct pass *p, size_t n_frames)
{
	const hg_threads *ts = &p->rep->threads;
	if (!(p->frame_q = calloc(n_frames ? n_frames : 1, sizeof *p->frame_q)))
		return HG_ENOMEM;
	size_t k = 0;
	for (size_t i = 0; i < ts->n; i++)
		for (size_t j = 0; j < ts->items[i].n_frames; j++, k++) {
			const hg_frame *f = &ts->items[i].frames[j];
			const hg_image *im = hg_frame_image(ts, f);
			const struct sym_entry *e = im ? p->ent[f->image_ref - 1] : NULL;
			uint64_t addr;
			size_t qi;
			if (!e || f->kind != HG_FRAME_NATIVE || !f->has_pc || f->symbolicated ||
			    !frame_addr(im, e, f, j, &addr))
				continue;
			int rc = add_query(p, (size_t)(e - p->s->index.items), addr, &qi);
			if (rc != 0)
				return rc;
			p->frame_q[k] = qi + 1;
		}
	return 0;
}

static int request(const struct pass *p, size_t from, size_t to, hg_buf *req)
{
	for (size_t i = from; i < to; i++) {
		if (p->q[i].known)
			continue;
		const struct sym_entry *e = &p->s->index.items[p->q[i].entry];
		if (e->kind == SYM_MACHO && e->slice.arch[0])
			hg_buf_printf(req, "\"%s:%s\" 0x%" PRIx64 "\n", e->path, e->slice.arch, p->q[i].addr);
		else
			hg_buf_printf(req, "\"%s\" 0x%" PRIx64 "\n", e->path, p->q[i].addr);
	}
	return req->failed ? HG_ENOMEM : 0;
}

/* A string of an answer, NULL when empty or "??" (unknown). */
static const char *answer_str(hg_arena *arena, const hg_json *obj, const char *key)
{
	const char *v = hg_json_string(hg_json_get(obj, key));
	if (!v || !*v || strcmp(v, "??") == 0)
		return NULL;
	return hg_arena_strdup(arena, v);
}

/* Reads one answer line into q; HG_EPARSE when it does not answer q.  The
 * symbolizer's error about a file (damaged DWARF) is said once per file. */
static int read_answer(hg_symbols *s, hg_arena *arena, char *line, size_t len, struct query *q)
{
	hg_json_doc *doc;
	size_t end;
	line[len] = '\0';
	if (hg_json_parse(line, len, &doc, &end) != 0)
		return HG_EPARSE;
	const hg_json *root = hg_json_root(doc);
	const char *addr = hg_json_string(hg_json_get(root, "Address"));
	char want[32];
	snprintf(want, sizeof want, "0x%" PRIx64, q->addr);
	int rc = addr && strcmp(addr, want) == 0 ? 0 : HG_EPARSE;
	const char *err = hg_json_string(hg_json_get(hg_json_get(root, "Error"), "Message"));
	if (rc == 0 && err && !s->failed_file[q->entry]) {
		s->failed_file[q->entry] = true;
		hg_diagf(s->ctx, HG_DIAG_WARNING, s->index.items[q->entry].path, 0, 0, 0,
			 "llvm-symbolizer cannot read it (%s): its frames stay addresses", err);
	}
	const hg_json *syms = hg_json_get(root, "Symbol");
	size_t n = rc == 0 && hg_json_type(syms) == HG_JSON_ARRAY ? hg_json_count(syms) : 0;
	if (n > 0 && n < 4096) {
		q->fn = hg_arena_calloc(arena, n, sizeof *q->fn);
		q->file = hg_arena_calloc(arena, n, sizeof *q->file);
		q->line = hg_arena_calloc(arena, n, sizeof *q->line);
		if (!q->fn || !q->file || !q->line)
			rc = HG_ENOMEM;
		size_t i = 0;
		for (const hg_json *e = hg_json_first(syms); rc == 0 && e; e = hg_json_next(e), i++) {
			int64_t l = 0;
			const hg_json *ln = hg_json_get(e, "Line");
			q->fn[i] = answer_str(arena, e, "FunctionName");
			q->file[i] = answer_str(arena, e, "FileName");
			q->line[i] = ln && hg_json_int64(doc, ln, &l) == 0 && l > 0 ? (long)l : -1;
		}
		/* Unknown to the file: the whole answer is "??" or empty. */
		q->n = rc == 0 && q->fn[n - 1] ? n : 0;
	}
	hg_json_doc_destroy(doc);
	return rc;
}

static void fail_once(hg_symbols *s, const char *why)
{
	hg_diagf(s->ctx, HG_DIAG_WARNING, "hangar symbols", 0, 0, 0,
		 "%s: native frames stay addresses from here on", why);
	s->proc_failed = true;
	sym_proc_stop(s->proc);
	s->proc = NULL;
}

static int ask(struct pass *p, hg_arena *arena, bool keep);

int sym_ask(hg_symbols *s, struct query *q, size_t n_q, hg_arena *arena)
{
	struct pass one = {.s = s, .q = q, .n_q = n_q};
	return ask(&one, arena, false);
}

/* Keeps q's answer (strings already in the cache arena) for the run. */
static int keep_answer(hg_symbols *s, const struct query *q)
{
	char key[64];
	if (s->n_cache >= MAX_CACHED)
		return 0;
	if (s->n_cache == s->cap_cache) {
		size_t ncap = s->cap_cache ? s->cap_cache * 2 : 256;
		struct cached *nc = realloc(s->cache, ncap * sizeof *nc);
		if (!nc)
			return HG_ENOMEM;
		s->cache = nc;
		s->cap_cache = ncap;
	}
	snprintf(key, sizeof key, "%zu:%" PRIx64, q->entry, q->addr);
	if (strmap_put(&s->answers, key, (int64_t)s->n_cache) != 0)
		return HG_ENOMEM;
	s->cache[s->n_cache++] = (struct cached){q->n, q->fn, q->file, q->line};
	return 0;
}

/* Asks about the queries of q[from..to) not known yet, in one batch. */
static int ask_chunk(struct pass *p, size_t from, size_t to, size_t n_ask, hg_arena *arena,
		     bool keep)
{
	hg_symbols *s = p->s;
	char why[256];
	hg_buf req;
	hg_buf_init(&req);
	int rc = request(p, from, to, &req);
	char *resp = NULL;
	size_t resp_len = 0;
	if (rc == 0) {
		s->stats.batches++;
		s->stats.queries += n_ask;
		rc = sym_proc_batch(s->proc, req.data, req.len, n_ask, s->timeout_ms, &resp, &resp_len,
				    why, sizeof why);
	}
	hg_buf_release(&req);
	if (rc == HG_EIO) {
		fail_once(s, why);
		return 1;
	}
	char *line = resp;
	for (size_t i = from; rc == 0 && i < to; i++) {
		if (p->q[i].known)
			continue;
		char *nl = memchr(line, '\n', resp_len - (size_t)(line - resp));
		if (!nl || (rc = read_answer(s, arena, line, (size_t)(nl - line), &p->q[i])) != 0)
			break;
		line = nl + 1;
		if (keep && (rc = keep_answer(s, &p->q[i])) != 0)
			break;
		if (!s->used[p->q[i].entry]) {
			s->used[p->q[i].entry] = true;
			s->stats.binaries_used++;
		}
	}
	free(resp);
	if (rc == HG_EPARSE || (rc == 0 && line != resp + resp_len && resp)) {
		fail_once(s, "the symbolizer's answers do not match the questions");
		return 1;
	}
	return rc;
}

/* Asks the symbolizer (started on first use) about every query not known
 * yet, BATCH_MAX a batch (so that one batch's answers stay well under the
 * cap of sym_proc_batch), keeping the answers for the run when keep (then
 * arena must be the cache's): 0, 1 when it cannot answer (said once;
 * nothing more named), HG_ENOMEM. */
static int ask(struct pass *p, hg_arena *arena, bool keep)
{
	hg_symbols *s = p->s;
	char why[256];
	if (!s->proc && !s->proc_failed) {
		const char *argv[] = {s->symbolizer, "--output-style=JSON", "--inlines",
				      "--functions=linkage", "--demangle", NULL};
		if (sym_proc_start(argv, &s->proc, why, sizeof why) != 0) {
			fail_once(s, why);
			return 1;
		}
		s->stats.spawns++;
	}
	if (s->proc_failed)
		return 1;
	for (size_t from = 0, to; from < p->n_q; from = to) {
		size_t n_ask = 0;
		for (to = from; to < p->n_q && n_ask < BATCH_MAX; to++)
			n_ask += !p->q[to].known;
		int rc = n_ask ? ask_chunk(p, from, to, n_ask, arena, keep) : 0;
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* A string of the run's cache, copied into the report's arena (one copy
 * per report of each). */
static const char *copy(struct strcache *c, const char *s, bool *oom)
{
	if (!s)
		return NULL;
	const char *r = strcache_get(c, s, strlen(s));
	*oom |= r == NULL;
	return r;
}

/* A frame that became several (inlined functions): each lock line of t
 * (ART writes them under Java frames) moves with the frame it followed.
 * k is t's first frame among the pass's. */
static int remap_locks(const struct pass *p, hg_thread *t, size_t k)
{
	size_t *end = malloc(t->n_frames * sizeof *end), cum = 0;
	if (!end)
		return HG_ENOMEM;
	for (size_t j = 0; j < t->n_frames; j++) {
		const struct query *q = p->frame_q[k + j] ? &p->q[p->frame_q[k + j] - 1] : NULL;
		cum += q && q->n > 1 ? q->n : 1;
		end[j] = cum;
	}
	size_t n_old = t->n_frames;
	t->n_frames = cum; /* hg_thread_remap_locks reads the new count */
	hg_thread_remap_locks(t, end, n_old);
	t->n_frames = n_old;
	free(end);
	return 0;
}

static int fill_threads(struct pass *p, struct strcache *c)
{
	hg_threads *ts = &p->rep->threads;
	size_t k = 0;
	bool oom = false;
	for (size_t i = 0; i < ts->n; i++) {
		hg_thread *t = &ts->items[i];
		size_t extra = 0;
		for (size_t j = 0; j < t->n_frames; j++)
			if (p->frame_q[k + j] && p->q[p->frame_q[k + j] - 1].n > 1)
				extra += p->q[p->frame_q[k + j] - 1].n - 1;
		hg_frame *out = t->frames;
		if (extra && !(out = hg_arena_calloc(p->rep->arena, t->n_frames + extra, sizeof *out)))
			return HG_ENOMEM;
		size_t o = t->n_frames + extra;
		for (size_t j = t->n_frames; j-- > 0;) { /* from the end: in place when no extra */
			hg_frame f = t->frames[j];
			const struct query *q = p->frame_q[k + j] ? &p->q[p->frame_q[k + j] - 1] : NULL;
			if (!q || q->n == 0) {
				p->s->stats.frames_unnamed += q != NULL;
				out[--o] = f;
				continue;
			}
			p->s->stats.frames_named++;
			p->s->stats.inlined += q->n - 1;
			for (size_t m = q->n; m-- > 0;) {
				hg_frame g = f;
				g.method = q->fn[m] ? copy(c, q->fn[m], &oom) : f.method;
				/* The symbol files' name (llvm-symbolizer demangles it) replaces
				 * the one the report's name was demangled from. */
				if (q->fn[m])
					g.mangled = NULL;
				g.file = copy(c, q->file[m], &oom);
				g.line = q->line[m];
				g.symbolicated = true;
				g.inlined = m + 1 < q->n;
				out[--o] = g;
			}
		}
		if (extra && t->n_locks && remap_locks(p, t, k) != 0)
			return HG_ENOMEM;
		k += t->n_frames;
		t->frames = out;
		t->n_frames += extra;
		if (extra)
			t->cap_frames = t->n_frames;
	}
	return oom ? HG_ENOMEM : 0;
}


/* Writes the answers into the frames: a frame of n functions becomes n
 * frames, the inlined ones first. */
static int fill(struct pass *p)
{
	struct strcache c;
	strcache_init(&c, p->rep->arena);
	int rc = fill_threads(p, &c);
	strcache_release(&c);
	return rc;
}

static int apply(hg_symbols *s, hg_report *rep)
{
	struct pass p = {.s = s, .rep = rep};
	size_t n_frames = 0;
	for (size_t i = 0; i < rep->threads.n; i++)
		n_frames += rep->threads.items[i].n_frames;
	if (s->index.n && !s->used && !(s->used = calloc(s->index.n, sizeof *s->used)))
		return HG_ENOMEM;
	if (s->index.n && !s->failed_file &&
	    !(s->failed_file = calloc(s->index.n, sizeof *s->failed_file)))
		return HG_ENOMEM;
	int rc = HG_ENOMEM;
	if ((p.ent = calloc(rep->threads.n_images, sizeof *p.ent)) != NULL &&
	    (rc = match_images(&p)) == 0 && (rc = collect(&p, n_frames)) == 0 && p.n_q) {
		/* Without a symbolizer, what the run's cache knows still names. */
		if ((rc = ask(&p, s->cache_arena, true)) == 0 || rc == 1)
			rc = fill(&p);
	}
	free(p.ent);
	free(p.q);
	free(p.frame_q);
	strmap_clear(&p.seen);
	return rc;
}

int hg_symbols_apply(hg_symbols *s, hg_report *rep)
{
	if (!s || !rep || rep->error || rep->threads.n_images == 0)
		return 0;
	pthread_mutex_lock(&s->lock);
	int rc = apply(s, rep);
	pthread_mutex_unlock(&s->lock);
	return rc;
}
