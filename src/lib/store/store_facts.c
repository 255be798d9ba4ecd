/* The report_facts table (schema 9): per report, what the cluster page
 * breaks a cluster down by and that the reports table does not hold: the
 * OS, device model and Matrix device class as one label each
 * (hg_report_who), the ANR type, what blocks the blamed thread
 * (hg_threads_blocker), the report's variant (a hash of its full blamed
 * path, with the frame that enters it) and what was missing to name its
 * frames.  A row per report, keyed by its id, narrow so that a cluster's
 * breakdowns read little (the reports rows hold the texts). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rollup_facets.h"
#include "store_internal.h"

struct facts {
	hg_report_who who;
	const char *anr_type;
	const char *blocker, *blocker_kind;
	char variant[17];       /* "" when the report has no blamed path */
	const char *variant_frame;
	hg_buf lacks;           /* JSON object, empty when nothing was missing */
	int lack_bits;          /* LACK_* of rollup_facets.h; -1 unknown */
};

/* ---- the variant: the full blamed path ---- */

/* FNV-1a, 64 bits, as 16 hex digits: a variant names a path within one
 * cluster, where a collision of two paths is one in 2^64; SHA-256 through
 * libcrypto was 40% of the facts' cost per report. */
static void hash16(const hg_buf *b, char out[17])
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	for (size_t i = 0; i < b->len; i++) {
		h ^= (unsigned char)b->data[i];
		h *= UINT64_C(0x100000001b3);
	}
	snprintf(out, 17, "%016" PRIx64, h);
}

/* A thread's entry frame is its outermost frame outside the platform and
 * the common libraries (the screen, the task). */
static bool platform_frame(const hg_frame *f)
{
	return hg_java_platform_prefix(f->cls) || hg_java_library_prefix(f->cls);
}

static void put_frame_name(hg_buf *b, const hg_frame *f)
{
	if (f->cls) {
		hg_buf_puts(b, f->cls);
		hg_buf_putc(b, '.');
		hg_buf_puts(b, f->method ? f->method : "");
	} else if (f->method)
		hg_buf_printf(b, "%s%s%s", f->image ? f->image : "", f->image ? "!" : "", f->method);
	else
		hg_buf_printf(b, "%s+%llx", f->image ? f->image : "?",
			      (unsigned long long)(f->has_offset ? f->offset : f->pc));
}

/* A method stack's path: the StackKey and every ancestor, outermost
 * first; the entry is the frame the message ran (depth 1, under
 * Handler.dispatchMessage). */
static int method_variant(const hg_report *rep, hg_arena *a, struct facts *x, hg_buf *b)
{
	const hg_method_stack *t = &rep->trimmed;
	if (rep->key_index < 0 || (size_t)rep->key_index >= t->len)
		return 0;
	size_t path[256];
	size_t n = 0;
	int32_t depth = t->items[rep->key_index].depth + 1;
	for (long i = rep->key_index; i >= 0 && n < sizeof path / sizeof *path; i--)
		if (t->items[i].depth < depth) {
			depth = t->items[i].depth;
			path[n++] = (size_t)i;
		}
	/* no printf: ingest does this for every report */
	for (size_t k = n; k-- > 0;) {
		const hg_method_item *it = &t->items[path[k]];
		const char *sym = hg_report_item_symbol(rep, it);
		size_t start = b->len;
		if (sym) {
			hg_buf_puts(b, sym);
		} else {
			hg_buf_putc(b, '#');
			hg_buf_int(b, it->id);
		}
		if ((it->depth == 1 || n == 1) && !b->failed &&
		    !(x->variant_frame = hg_arena_strndup(a, b->data + start, b->len - start)))
			return HG_ENOMEM;
		hg_buf_putc(b, '\n');
	}
	hash16(b, x->variant);
	return 0;
}

/* A thread dump's path: the blamed thread's frames, names without lines. */
static int thread_variant(const hg_report *rep, hg_arena *a, struct facts *x, hg_buf *b)
{
	const hg_threads *ts = &rep->threads;
	if (ts->blamed < 0 || (size_t)ts->blamed >= ts->n)
		return 0;
	const hg_thread *t = &ts->items[ts->blamed];
	if (t->n_frames == 0)
		return 0;
	const hg_frame *entry = NULL;
	for (size_t i = t->n_frames; i-- > 0;) {
		put_frame_name(b, &t->frames[i]);
		hg_buf_putc(b, '\n');
		if (!entry && !platform_frame(&t->frames[i]) && t->frames[i].cls)
			entry = &t->frames[i];
	}
	hash16(b, x->variant);
	if (entry) {
		hg_buf e;
		hg_buf_init(&e);
		put_frame_name(&e, entry);
		x->variant_frame = e.failed ? NULL : hg_arena_strndup(a, e.data, e.len);
		hg_buf_release(&e);
		if (!x->variant_frame)
			return HG_ENOMEM;
	}
	return 0;
}

/* ---- what was missing to name frames ---- */

static void put_string(hg_buf *j, const char *s)
{
	hg_buf_json_string(j, s, strlen(s));
}

static void lacks_member(hg_buf *j, const char *key)
{
	hg_buf_puts(j, j->len ? "," : "{");
	put_string(j, key);
	hg_buf_putc(j, ':');
}

/* Whether an image's symbols are the app's to upload, as the signature
 * tells the app's frames (cluster_frames.c): an Android library under
 * the app's own folder (/data/app/.../com.example-x==/lib/...), an iOS
 * binary in the app's bundle (".app/", its frameworks too), or, where a
 * report gives names only, the binary named as the process's last word
 * ("io.sentry.iOS-Swift" -> iOS-Swift).  Java code (dex, jar, apk, oat)
 * is named by a mapping.txt, not symbols. */
static bool app_native_image(const hg_report *rep, const hg_image *img)
{
	static const char *const java_ends[] = {".jar", ".dex", ".apk", ".oat", ".odex", ".vdex",
						".art", "]"};
	const char *name = img->name ? img->name : "";
	size_t n = strlen(name);
	for (size_t i = 0; i < sizeof java_ends / sizeof *java_ends; i++) {
		size_t e = strlen(java_ends[i]);
		if (n >= e && strcmp(name + n - e, java_ends[i]) == 0)
			return false;
	}
	if (!*name || strstr(name, "!classes"))
		return false;
	const char *path = img->path ? img->path : name;
	if (strstr(path, ".app/") || strstr(path, "/data/app/") || strstr(path, "/data/data/"))
		return true;
	const char *proc = rep->process;
	if (!proc || !*proc)
		return false;
	size_t plen = strcspn(proc, ":");
	const char *last = proc;
	for (const char *p = proc; p < proc + plen; p++)
		if (*p == '.' || *p == '/')
			last = p + 1;
	size_t llen = (size_t)(proc + plen - last);
	if (llen && strncmp(name, last, llen) == 0 &&
	    (name[llen] == '\0' || strcmp(name + llen, ".debug.dylib") == 0))
		return true;
	char package[256];
	if (plen >= sizeof package)
		return false;
	memcpy(package, proc, plen);
	package[plen] = '\0';
	return strstr(path, package) != NULL;
}

/* {"method_mapping":"missing"|"partial","proguard":frames,"images":[{"name","id"}]},
 * each member only when that was missing ({} when nothing was):
 * a method stack whose ids no methodMapping named (or some), Java frames
 * that look obfuscated and no mapping retraced, native frames in images
 * no symbols named (by Build ID / UUID). */
static void lacks_of(const hg_report *rep, hg_buf *j, int *bits)
{
	*bits = 0;
	if (rep->has_method_stack && rep->trimmed.len && (!rep->symbols || rep->missing_ids > 0)) {
		*bits |= LACK_METHOD_MAPPING;
		lacks_member(j, "method_mapping");
		put_string(j, rep->symbols ? "partial" : "missing");
	}
	const hg_threads *ts = &rep->threads;
	long obfuscated = 0;
	size_t n_images = 0;
	for (size_t i = 0; i < ts->n; i++) {
		const hg_thread *t = &ts->items[i];
		for (size_t k = 0; k < t->n_frames; k++) {
			const hg_frame *f = &t->frames[k];
			if (f->cls && !f->retraced && hg_java_class_obfuscated(f->cls))
				obfuscated++;
		}
	}
	if (obfuscated) {
		*bits |= LACK_PROGUARD;
		lacks_member(j, "proguard");
		hg_buf_printf(j, "%ld", obfuscated);
	}
	/* images with a frame no symbol names, in image order, each once */
	for (size_t m = 0; m < ts->n_images; m++) {
		bool unnamed = false;
		if (!app_native_image(rep, &ts->images[m]))
			continue;
		for (size_t i = 0; i < ts->n && !unnamed; i++)
			for (size_t k = 0; k < ts->items[i].n_frames && !unnamed; k++) {
				const hg_frame *f = &ts->items[i].frames[k];
				unnamed = f->image_ref == m + 1 && !f->symbolicated && !f->method &&
					  !f->symbol;
			}
		if (!unnamed)
			continue;
		if (n_images++ == 0) {
			*bits |= LACK_IMAGES;
			lacks_member(j, "images");
			hg_buf_putc(j, '[');
		} else {
			hg_buf_putc(j, ',');
		}
		const hg_image *img = &ts->images[m];
		hg_buf_puts(j, "{\"name\":");
		put_string(j, img->name ? img->name : "?");
		hg_buf_puts(j, ",\"id\":");
		if (img->id)
			put_string(j, img->id);
		else
			hg_buf_puts(j, "null");
		hg_buf_putc(j, '}');
	}
	if (n_images)
		hg_buf_putc(j, ']');
	/* "{}": named and nothing missing; NULL (a migrated report) is unknown */
	*bits |= j->len ? LACK_ANY : 0;
	hg_buf_puts(j, j->len ? "}" : "{}");
}

/* ---- all of them ---- */

static int facts_of(const hg_report *rep, hg_arena *a, bool named, struct facts *x)
{
	memset(x, 0, sizeof *x);
	hg_buf_init(&x->lacks);
	x->lack_bits = -1;
	int rc = hg_report_who_of(rep, a, &x->who);
	x->anr_type = rep->anr_type;
	hg_blocker blk;
	if (!rc && rep->threads.n && (rc = hg_threads_blocker(&rep->threads, a, &blk)) == 0 &&
	    blk.line) {
		x->blocker = blk.line;
		x->blocker_kind = blk.kind;
	}
	if (!rc && named) {
		hg_buf path;
		hg_buf_init(&path);
		rc = rep->has_method_stack ? method_variant(rep, a, x, &path)
					   : thread_variant(rep, a, x, &path);
		if (!rc && path.failed)
			rc = HG_ENOMEM;
		hg_buf_release(&path);
		if (!rc)
			lacks_of(rep, &x->lacks, &x->lack_bits);
		if (!rc && x->lacks.failed)
			rc = HG_ENOMEM;
	}
	return rc;
}

static int insert(hg_store *store, int64_t id, const struct facts *x)
{
	hg_db_stmt *st = db_stmt(store->db, S_FACTS_INSERT,
		"INSERT OR REPLACE INTO report_facts(report, os, model, device_class, anr_type,"
		" blocker, blocker_kind, variant, variant_frame, lacks)"
		" VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
	if (!st)
		return DB_ERROR;
	db_bind_int(st, 1, id);
	db_bind_text_here(st, 2, x->who.os);
	db_bind_text_here(st, 3, x->who.model);
	db_bind_text_here(st, 4, x->who.device_class);
	db_bind_text_here(st, 5, x->anr_type);
	db_bind_text_here(st, 6, x->blocker);
	db_bind_text_here(st, 7, x->blocker_kind);
	db_bind_text_here(st, 8, x->variant[0] ? x->variant : NULL);
	db_bind_text_here(st, 9, x->variant_frame);
	if (x->lacks.len)
		db_bind_text_n(st, 10, x->lacks.data, x->lacks.len);
	else
		db_bind_null(st, 10);
	int rc = db_step(st);
	db_reset(st);
	return rc;
}

/* named: the report went through the naming stage (ingest, regroup), so
 * its variant and what it lacked are known; a migration reads stored
 * texts without their mappings and leaves those two unknown (NULL). */
/* The facets' part of x (the scene, foreground, time and sample are the
 * report row's: the caller's). */
static int facets_of(hg_arena *a, const struct facts *x, struct report_facets *out)
{
	*out = (struct report_facets){.lacks = x->lack_bits};
	out->value[FACET_OS] = x->who.os;
	out->value[FACET_MODEL] = x->who.model;
	out->value[FACET_CLASS] = x->who.device_class;
	out->value[FACET_ANR_TYPE] = x->anr_type;
	out->value[FACET_BLOCKER] = x->blocker;
	out->entry = x->variant_frame;
	if (x->variant[0] && !(out->value[FACET_VARIANT] = hg_arena_strdup(a, x->variant)))
		return HG_ENOMEM;
	return 0;
}

static int add(hg_store *store, int64_t id, const hg_report *rep, bool named,
	       struct report_facets *out)
{
	/* The few short strings go to the report's own arena (its owner is
	 * the only one using it now, and frees them with it): an arena of
	 * their own per report was a tenth of the facts' cost. */
	struct facts x;
	int rc = facts_of(rep, rep->arena, named, &x) ? DB_ERROR : insert(store, id, &x);
	if (rc >= 0 && out && facets_of(rep->arena, &x, out))
		rc = DB_ERROR;
	hg_buf_release(&x.lacks);
	return rc;
}

int store_facts_add(hg_store *store, int64_t id, const hg_report *rep, struct report_facets *out)
{
	return add(store, id, rep, true, out);
}

/* ---- migrating to schema 9 ---- */

/* A report's facts read from its text, without its mappings; a text that
 * no longer reads keeps an empty row: counted unknown. */
static int backfill_one(hg_store *store, int64_t id, const hg_report *rep)
{
	hg_report empty = {0};
	return add(store, id, rep ? rep : &empty, false, NULL);
}

int store_facts_backfill(hg_store *store)
{
	return store_backfill(store, S_FACTS_NEXT,
		"SELECT id, text FROM reports r WHERE id > ?1"
		" AND NOT EXISTS (SELECT 1 FROM report_facts f WHERE f.report = r.id)"
		" ORDER BY id LIMIT 1", backfill_one);
}

int store_facts_merge(hg_store *store, const char *schema)
{
	char sql[640];
	snprintf(sql, sizeof sql,
		 "INSERT OR IGNORE INTO main.report_facts(report, os, model, device_class, anr_type,"
		 " blocker, blocker_kind, variant, variant_frame, lacks) SELECT r.id, f.os, f.model,"
		 " f.device_class, f.anr_type, f.blocker, f.blocker_kind, f.variant, f.variant_frame,"
		 " f.lacks FROM %s.report_facts f JOIN %s.reports s ON s.id = f.report"
		 " JOIN main.reports r ON r.content_hash = s.content_hash ORDER BY r.id",
		 schema, schema);
	return db_exec(store->db, sql);
}
