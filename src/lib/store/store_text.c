/* Report texts as the store keeps them: zstd frames, with a dictionary per
 * report family once the store holds enough texts of it (store_text.h).
 *
 * Why zstd (measured on the texts of a 20,000-report generated bucket):
 * without a dictionary zstd and zlib give about the same on texts of
 * 0.5-10 KB (zlib a few percent smaller); a dictionary trained on a
 * family's texts makes them 2.5-9 times smaller still, and compressing
 * with it costs a fifth of the instructions (the entropy tables come with
 * it); zlib's preset dictionary has no trainer nor tables, and a 32 KB
 * window.  Level 3: 1 cost the same instructions
 * per report at ingest for 1-3% bigger texts, 6 cost 15% more of the whole
 * ingest for 1% smaller ones.  Dictionaries are capped at 64 KB: 112 KB
 * gained under 10%.  Each frame has its checksum (4 bytes): a damaged
 * frame is an error, never a wrong text (without it, changed bytes did
 * decode to another text). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zdict.h>
#include <zstd.h>

#include "hangar/cluster.h"
#include "store_internal.h"
#include "store_text.h"

#define MAGIC_LEN 4
/* Families with an encoding state (hangar has about a dozen; more would
 * go without a dictionary). */
#define MAX_FAMILIES 24
/* Decoding dictionaries kept per handle (more are loaded for one text). */
#define MAX_DDICTS 32
/* Texts bigger than this are not sampled: a dictionary helps small texts,
 * and one big text would crowd out the rest. */
#define SAMPLE_TEXT_MAX ((size_t)128 << 10)
#define SAMPLE_COUNT_MAX 20000
/* The most a zstd block decodes to (the format's Block_Maximum_Size). */
#define BLOCK_MAX ((size_t)128 << 10)

#define DICTS_TABLE_SQL \
	"CREATE TABLE IF NOT EXISTS main.text_dicts(id INTEGER PRIMARY KEY," \
	" kind TEXT NOT NULL, dict BLOB NOT NULL)"

/* What the encoder knows of one family. */
struct family {
	char name[32];
	int64_t texts;          /* stored, as far as this handle knows; -1: not
	                           looked up yet */
	ZSTD_CDict *cdict;      /* NULL: no dictionary */
	bool untrainable;       /* training failed: not tried again */
};

struct ddict {
	uint32_t id;
	ZSTD_DDict *dd;
};

struct store_texts {
	ZSTD_CCtx *cctx;
	ZSTD_DCtx *dctx;
	struct family fam[MAX_FAMILIES];
	size_t n_fam;
	struct ddict dd[MAX_DDICTS];
	size_t n_dd;
};

static struct store_texts *texts_of(hg_store *store)
{
	if (!store->texts)
		store->texts = calloc(1, sizeof *store->texts);
	return store->texts;
}

void store_text_forget(hg_store *store)
{
	struct store_texts *t = store->texts;
	if (!t)
		return;
	ZSTD_freeCCtx(t->cctx);
	ZSTD_freeDCtx(t->dctx);
	for (size_t i = 0; i < t->n_fam; i++)
		ZSTD_freeCDict(t->fam[i].cdict);
	for (size_t i = 0; i < t->n_dd; i++)
		ZSTD_freeDDict(t->dd[i].dd);
	free(t);
	store->texts = NULL;
}

static bool has_magic(const void *p, size_t n)
{
	return n >= MAGIC_LEN && memcmp(p, STORE_TEXT_MAGIC, MAGIC_LEN) == 0;
}

/* Whether the store has the dictionaries' table (a store never written
 * since compression came has none).  A db.h result: 1, 0 or an error. */
static int dicts_table(hg_store *store)
{
	int64_t n = 0;
	int rc = store_query_int(store, S_TEXT_HAS_DICTS,
		"SELECT count(*) FROM main.sqlite_master WHERE type = 'table' AND name = 'text_dicts'",
		&n);
	return rc < 0 ? rc : n > 0;
}

/* ---- decoding ---- */

static int text_error(hg_store *store, int err, int64_t id, const char *why)
{
	hg_diagf(store->ctx, HG_DIAG_ERROR, store->path, 0, 0, 0,
		 "report %lld: its stored text cannot be read: %s", (long long)id, why);
	return err;
}

/* The decoding dictionary of id: cached, else read from text_dicts (into
 * the cache, or into *own when it is full).  NULL with *err set. */
static const ZSTD_DDict *ddict_of(hg_store *store, struct store_texts *t, uint32_t id,
				  ZSTD_DDict **own, int *err, char *why, size_t why_size)
{
	for (size_t i = 0; i < t->n_dd; i++)
		if (t->dd[i].id == id)
			return t->dd[i].dd;
	int rc = dicts_table(store);
	hg_db_stmt *st = rc > 0 ? db_stmt(store->db, S_TEXT_DICT_BY_ID,
					  "SELECT dict FROM main.text_dicts WHERE id = ?1") : NULL;
	if (rc > 0 && !st)
		rc = DB_ERROR;
	ZSTD_DDict *dd = NULL;
	if (st) {
		db_bind_int(st, 1, id);
		rc = db_step(st);
		if (rc == DB_ROW) {
			dd = ZSTD_createDDict(db_col_blob(st, 0), db_col_bytes(st, 0));
			rc = dd ? DB_ROW : DB_ENOMEM;
		}
		db_reset(st);
	}
	if (!dd) {
		*err = rc == DB_ENOMEM ? HG_ENOMEM : rc < 0 ? HG_EIO : HG_EPARSE;
		if (rc < 0 && rc != DB_ENOMEM)
			snprintf(why, why_size, "cannot read dictionary %u: %s", (unsigned)id,
				 db_errmsg(store->db));
		else
			snprintf(why, why_size, "it needs dictionary %u, which the store does not have",
				 (unsigned)id);
		return NULL;
	}
	if (t->n_dd < MAX_DDICTS)
		t->dd[t->n_dd++] = (struct ddict){id, dd};
	else
		*own = dd;
	return dd;
}

/* One zstd frame decoded into *out (malloc'd, NUL after): 0, or an hg
 * error with why said in why. */
static int unpack(hg_store *store, const void *frame, size_t n, char **out, size_t *len,
		  char *why, size_t why_size)
{
	struct store_texts *t = texts_of(store);
	if (!t || (!t->dctx && !(t->dctx = ZSTD_createDCtx())))
		return HG_ENOMEM;
	unsigned long long size = ZSTD_getFrameContentSize(frame, n);
	size_t max = store->ctx->limits.max_input_bytes;
	if (size == ZSTD_CONTENTSIZE_UNKNOWN || (size != ZSTD_CONTENTSIZE_ERROR && size > max)) {
		if (size == ZSTD_CONTENTSIZE_UNKNOWN)
			snprintf(why, why_size, "its frame does not say its size");
		else
			snprintf(why, why_size, "its frame claims %llu bytes, more than a report may"
				 " have (%zu)", size, max);
		return HG_ELIMIT;
	}
	size_t whole = ZSTD_findFrameCompressedSize(frame, n);
	if (size == ZSTD_CONTENTSIZE_ERROR || ZSTD_isError(whole) || whole != n) {
		snprintf(why, why_size, "not one whole zstd frame");
		return HG_EPARSE;
	}
	/* Nor more than its blocks can hold (each at least 3 bytes for at
	 * most 128 KB): a damaged size is not allocated. */
	if (size / BLOCK_MAX > n / 3 + 1) {
		snprintf(why, why_size, "its frame claims %llu bytes, more than its %zu bytes can"
			 " hold", size, n);
		return HG_EPARSE;
	}
	uint32_t id = ZSTD_getDictID_fromFrame(frame, n);
	ZSTD_DDict *own = NULL;
	const ZSTD_DDict *dd = NULL;
	int err = 0;
	if (id && !(dd = ddict_of(store, t, id, &own, &err, why, why_size)))
		return err;
	char *buf = malloc((size_t)size + 1);
	if (!buf) {
		ZSTD_freeDDict(own);
		return HG_ENOMEM;
	}
	size_t got = dd ? ZSTD_decompress_usingDDict(t->dctx, buf, size, frame, n, dd)
			: ZSTD_decompressDCtx(t->dctx, buf, size, frame, n);
	ZSTD_freeDDict(own);
	if (ZSTD_isError(got) || got != size) {
		snprintf(why, why_size, "corrupt zstd frame (%s)",
			 ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short");
		free(buf);
		return HG_EPARSE;
	}
	buf[size] = '\0';
	*out = buf;
	*len = (size_t)size;
	return 0;
}

int store_text_decode(hg_store *store, int64_t id, const void *stored, size_t n, char **text,
		      size_t *len)
{
	*text = NULL;
	*len = 0;
	if (!has_magic(stored, n)) {
		char *buf = malloc(n + 1);
		if (!buf)
			return HG_ENOMEM;
		if (n)
			memcpy(buf, stored, n);
		buf[n] = '\0';
		*text = buf;
		*len = n;
		return 0;
	}
	char why[160];
	int err = unpack(store, stored, n, text, len, why, sizeof why);
	if (err == HG_ENOMEM)
		return err;
	return err ? text_error(store, err, id, why) : 0;
}

/* ---- a family's dictionary ---- */

static struct family *family_of(struct store_texts *t, const char *name)
{
	for (size_t i = 0; i < t->n_fam; i++)
		if (strcmp(t->fam[i].name, name) == 0)
			return &t->fam[i];
	if (t->n_fam == MAX_FAMILIES || strlen(name) >= sizeof t->fam[0].name)
		return NULL;
	struct family *f = &t->fam[t->n_fam++];
	snprintf(f->name, sizeof f->name, "%s", name);
	f->texts = -1; /* not looked up yet */
	return f;
}

/* Uses the dictionary dict[0..n) for f's texts (its id is in it). */
static int family_use(struct family *f, const void *dict, size_t n)
{
	ZSTD_CDict *cd = ZSTD_createCDict(dict, n, STORE_TEXT_LEVEL);
	if (!cd)
		return DB_ENOMEM;
	ZSTD_freeCDict(f->cdict);
	f->cdict = cd;
	return 0;
}

/* f's dictionary from text_dicts (the lowest id when merges brought
 * several), if there is one.  A db.h result. */
static int family_load(hg_store *store, struct family *f)
{
	int rc = dicts_table(store);
	if (rc <= 0)
		return rc;
	hg_db_stmt *st = db_stmt(store->db, S_TEXT_DICT_OF,
		"SELECT dict FROM main.text_dicts WHERE kind = ?1 ORDER BY id LIMIT 1");
	if (!st)
		return DB_ERROR;
	db_bind_text(st, 1, f->name);
	rc = db_step(st);
	if (rc == DB_ROW)
		rc = family_use(f, db_col_blob(st, 0), db_col_bytes(st, 0));
	db_reset(st);
	return rc < 0 ? rc : 0;
}

/* How many texts of f the store holds: its clusters' counts (cheap: a
 * row per cluster; reports has no index by kind).  A db.h result. */
static int family_count(hg_store *store, struct family *f)
{
	hg_db_stmt *st = db_stmt(store->db, S_TEXT_FAMILY_COUNT,
		"SELECT coalesce(sum(count), 0) FROM main.clusters WHERE kind = ?1");
	if (!st)
		return DB_ERROR;
	db_bind_text(st, 1, f->name);
	int rc = db_step(st);
	f->texts = rc == DB_ROW ? db_col_int(st, 0) : 0;
	db_reset(st);
	return rc < 0 ? rc : 0;
}

/* The latest texts of f's report kinds, newest first, up to
 * STORE_TEXT_SAMPLE_BYTES in all, raw, end to end in *buf with their sizes
 * in *sizes.  A db.h result. */
static int sample(hg_store *store, const struct family *f, char **buf, size_t **sizes, size_t *n)
{
	hg_db_stmt *st = db_stmt(store->db, S_TEXT_SAMPLE,
		"SELECT id, text FROM main.reports WHERE kind IN (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9,"
		" ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20) ORDER BY id DESC");
	_Static_assert(HG_KIND_LAST + 1 <= 20, "a parameter per report kind");
	*buf = malloc(STORE_TEXT_SAMPLE_BYTES);
	*sizes = malloc(SAMPLE_COUNT_MAX * sizeof **sizes);
	*n = 0;
	if (!st || !*buf || !*sizes)
		return st ? DB_ENOMEM : DB_ERROR;
	for (int k = 0, p = 1; k <= HG_KIND_LAST; k++)
		if (strcmp(hg_signature_family((enum hg_report_kind)k), f->name) == 0)
			db_bind_text(st, p++, hg_report_kind_name((enum hg_report_kind)k));
	size_t used = 0;
	int rc = 0;
	while (*n < SAMPLE_COUNT_MAX && STORE_TEXT_SAMPLE_BYTES - used >= 256 &&
	       (rc = db_step(st)) == DB_ROW) {
		const void *p = db_col_blob(st, 1);
		size_t len = db_col_bytes(st, 1);
		char *text = NULL, why[160];
		/* an unreadable text is left out here, and said where it is
		 * read for itself */
		if (has_magic(p, len) &&
		    unpack(store, p, len, &text, &len, why, sizeof why) == HG_ENOMEM) {
			rc = DB_ENOMEM;
			break;
		}
		if (text)
			p = text;
		if ((text || !has_magic(p, len)) && len && len <= SAMPLE_TEXT_MAX &&
		    len <= STORE_TEXT_SAMPLE_BYTES - used) {
			memcpy(*buf + used, p, len);
			used += len;
			(*sizes)[(*n)++] = len;
		}
		free(text);
	}
	db_reset(st);
	return rc < 0 ? rc : 0;
}

/* The id of a dictionary, from its content past the magic and id fields:
 * 31 bits of its SHA-256, out of the range zstd reserves (< 32768). */
static uint32_t dict_id(const unsigned char *dict, size_t n)
{
	unsigned char md[32];
	hg_sha256(dict + 8, n - 8, md);
	uint32_t id = ((uint32_t)md[0] << 24 | (uint32_t)md[1] << 16 | (uint32_t)md[2] << 8 | md[3]) &
		      0x7fffffffu;
	return id < 32768 ? id + 32768 : id;
}

/* Keeps dict[0..n) of f in text_dicts (made here, in the write
 * transaction that first needs it) and uses it.  A db.h result. */
static int dict_put(hg_store *store, struct family *f, uint32_t id, const void *dict, size_t n)
{
	int rc = db_exec(store->db, DICTS_TABLE_SQL);
	hg_db_stmt *st = rc >= 0 ? db_stmt(store->db, S_TEXT_DICT_PUT,
		"INSERT INTO main.text_dicts(id, kind, dict) VALUES(?1, ?2, ?3)"
		" ON CONFLICT(id) DO NOTHING") : NULL;
	if (!st)
		return DB_ERROR;
	db_bind_int(st, 1, id);
	db_bind_text(st, 2, f->name);
	db_bind_blob(st, 3, dict, n);
	rc = db_step(st);
	db_reset(st);
	if (rc >= 0 && db_changes(store->db) == 0) {
		/* the id is taken: the same dictionary, or (once in 2^31) not */
		f->untrainable = true;
		return family_load(store, f);
	}
	return rc < 0 ? rc : family_use(f, dict, n);
}

/* Trains f's dictionary from the store's latest texts of it, unless a
 * writer did since this handle looked.  A dictionary that cannot be
 * trained (too few or too alike samples) leaves f without one.  A db.h
 * result. */
static int train(hg_store *store, struct family *f)
{
	int rc = family_load(store, f);
	if (rc < 0 || f->cdict)
		return rc;
	char *buf = NULL;
	size_t *sizes = NULL, n = 0;
	unsigned char *dict = malloc(STORE_TEXT_DICT_BYTES);
	rc = dict ? sample(store, f, &buf, &sizes, &n) : DB_ENOMEM;
	if (rc >= 0 && n >= 8) {
		size_t got = ZDICT_trainFromBuffer(dict, STORE_TEXT_DICT_BYTES, buf, sizes,
						   (unsigned)n);
		if (!ZDICT_isError(got) && got > 8) {
			uint32_t id = dict_id(dict, got);
			for (int i = 0; i < 4; i++) /* the frame's dictionary id, little-endian */
				dict[4 + i] = (unsigned char)(id >> (8 * i));
			rc = dict_put(store, f, id, dict, got);
		}
	}
	if (rc >= 0 && !f->cdict)
		f->untrainable = true;
	free(dict);
	free(buf);
	free(sizes);
	return rc;
}

/* ---- encoding ---- */

/* f's dictionary, trained when f has reached STORE_TEXT_TRAIN_MIN texts;
 * *cd NULL without one.  A db.h result. */
static int family_dict(hg_store *store, struct family *f, ZSTD_CDict **cd)
{
	int rc = 0;
	if (f->texts < 0) {
		rc = family_load(store, f);
		if (rc >= 0 && !f->cdict)
			rc = family_count(store, f);
	}
	f->texts++;
	if (rc >= 0 && !f->cdict && !f->untrainable && f->texts >= STORE_TEXT_TRAIN_MIN)
		rc = train(store, f);
	*cd = f->cdict;
	return rc;
}

int store_text_encode(hg_store *store, const char *family, const char *text, size_t len,
		      void **packed, size_t *packed_len)
{
	*packed = NULL;
	*packed_len = 0;
	bool magic = has_magic(text, len);
	if (len < 16 && !magic)
		return 0; /* a frame header and checksum alone take 10 bytes */
	struct store_texts *t = texts_of(store);
	if (!t)
		return DB_ENOMEM;
	if (!t->cctx) {
		if (!(t->cctx = ZSTD_createCCtx()))
			return DB_ENOMEM;
		ZSTD_CCtx_setParameter(t->cctx, ZSTD_c_compressionLevel, STORE_TEXT_LEVEL);
		ZSTD_CCtx_setParameter(t->cctx, ZSTD_c_checksumFlag, 1);
	}
	struct family *f = family_of(t, family ? family : "");
	ZSTD_CDict *cd = NULL;
	int rc = f ? family_dict(store, f, &cd) : 0;
	if (rc < 0)
		return rc;
	size_t cap = ZSTD_compressBound(len);
	void *out = malloc(cap);
	if (!out)
		return DB_ENOMEM;
	ZSTD_CCtx_refCDict(t->cctx, cd); /* NULL: none */
	size_t n = ZSTD_compress2(t->cctx, out, cap, text, len);
	if (ZSTD_isError(n) || (n >= len && !magic)) {
		free(out);
		/* zstd fails only for want of memory: a text that could be
		 * stored raw is, the others cannot be stored */
		return ZSTD_isError(n) && magic ? DB_ENOMEM : 0;
	}
	*packed = out;
	*packed_len = n;
	return 0;
}

/* ---- merging and recompressing ---- */

int store_text_merge(hg_store *store, const char *schema, const char *shard_path)
{
	char sql[400];
	snprintf(sql, sizeof sql, "SELECT count(*) FROM %s.sqlite_master"
		 " WHERE type = 'table' AND name = 'text_dicts'", schema);
	int64_t has = 0, clash = 0;
	int rc = store_query_int(store, S_TEXT_SHARD_HAS, sql, &has);
	if (rc < 0 || !has)
		return store_check(store, rc, "cannot merge text dictionaries");
	rc = db_exec(store->db, DICTS_TABLE_SQL);
	snprintf(sql, sizeof sql, "SELECT s.id FROM %s.text_dicts s JOIN main.text_dicts m"
		 " ON m.id = s.id WHERE m.dict != s.dict LIMIT 1", schema);
	if (rc >= 0)
		rc = store_query_int(store, S_TEXT_SHARD_CLASH, sql, &clash);
	if (rc >= 0 && clash) {
		hg_diagf(store->ctx, HG_DIAG_ERROR, shard_path, 0, 0, 0,
			 "text dictionary %lld differs from the store's of the same id",
			 (long long)clash);
		return HG_EPARSE;
	}
	snprintf(sql, sizeof sql, "INSERT OR IGNORE INTO main.text_dicts(id, kind, dict)"
		 " SELECT id, kind, dict FROM %s.text_dicts ORDER BY id", schema);
	if (rc >= 0)
		rc = db_exec(store->db, sql);
	return store_check(store, rc, "cannot merge text dictionaries");
}

/* The family of a stored report kind name ("" when unknown). */
static const char *family_of_kind(const char *kind)
{
	for (int k = 0; kind && k <= HG_KIND_LAST; k++)
		if (strcmp(hg_report_kind_name((enum hg_report_kind)k), kind) == 0)
			return hg_signature_family((enum hg_report_kind)k);
	return "";
}

/* Report id's text compressed, when it is raw and compresses.  A db.h
 * result; *done 1 when rewritten. */
static int recompress_one(hg_store *store, int64_t id, int64_t *done)
{
	hg_db_stmt *st = db_stmt(store->db, S_TEXT_RC_READ,
				 "SELECT kind, text FROM main.reports WHERE id = ?1");
	if (!st)
		return DB_ERROR;
	db_bind_int(st, 1, id);
	int rc = db_step(st);
	void *packed = NULL;
	size_t n = 0;
	if (rc == DB_ROW && !has_magic(db_col_blob(st, 1), db_col_bytes(st, 1))) {
		char family[32];
		snprintf(family, sizeof family, "%s", family_of_kind(db_col_text(st, 0)));
		rc = store_text_encode(store, family, db_col_blob(st, 1), db_col_bytes(st, 1), &packed,
				       &n);
	}
	db_reset(st);
	if (rc < 0 || !packed)
		return rc < 0 ? rc : 0;
	st = db_stmt(store->db, S_TEXT_RC_WRITE, "UPDATE main.reports SET text = ?2 WHERE id = ?1");
	rc = st ? 0 : DB_ERROR;
	if (st) {
		db_bind_int(st, 1, id);
		db_bind_blob(st, 2, packed, n);
		rc = db_step(st);
		db_reset(st);
	}
	free(packed);
	*done += rc >= 0;
	return rc;
}

int store_text_recompress(hg_store *store, int64_t after_id, int64_t limit, int64_t *last,
			  int64_t *packed)
{
	*last = 0;
	*packed = 0;
	if (!store->in_batch || limit <= 0)
		return HG_EINVAL;
	hg_db_stmt *st = db_stmt(store->db, S_TEXT_RC_IDS,
				 "SELECT id FROM main.reports WHERE id > ?1 ORDER BY id LIMIT ?2");
	int64_t *ids = malloc((size_t)limit * sizeof *ids);
	size_t n = 0;
	int rc = st && ids ? 0 : st ? DB_ENOMEM : DB_ERROR;
	if (st && ids) {
		db_bind_int(st, 1, after_id);
		db_bind_int(st, 2, limit);
		while ((rc = db_step(st)) == DB_ROW)
			ids[n++] = db_col_int(st, 0);
	}
	if (st)
		db_reset(st);
	for (size_t i = 0; rc >= 0 && i < n; i++)
		rc = recompress_one(store, ids[i], packed);
	if (rc >= 0 && n)
		*last = ids[n - 1];
	free(ids);
	return store_check(store, rc, "cannot compress report texts");
}
