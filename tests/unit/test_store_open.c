/* Opening a store in each mode (hg_store_open_mode): the reading modes
 * never create one (HG_ENOENT, no file left behind), a read-only store
 * answers queries and refuses writes, and the failures of a damaged store
 * are said as the store's, with SQLite's reason.  A store that cannot be
 * written (a read-only file in a read-only folder) is read, and a write
 * into it, or into a full one, says "cannot write the store" once.
 * Reports are the first of the real Matrix reports in
 * testdata/matrix-mangatoon (argv[1]).  tests/cli/store-access does the
 * same on read-only mounts and a full disk, and as root. */
#include <sys/stat.h>

#include "hangar/cluster.h"
#include "store_fixture.h"
#include "store/store_internal.h" /* the store's connection, for PRAGMA max_page_count */

static const char *corpus; /* argv[1] */

struct fx {
	hg_ctx ctx;
	char dir[64];
	char path[96];
	char diags[2048]; /* every message, one a line */
	size_t n_diags;
};

static void on_diag(void *user, const hg_diag *d)
{
	struct fx *f = user;
	f->n_diags++;
	size_t at = strlen(f->diags);
	snprintf(f->diags + at, sizeof f->diags - at, "%s: %s\n", d->source, d->message);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	if (!f)
		return -1;
	store_ctx_init(&f->ctx, on_diag, f);
	if (store_tmp_make(f->dir, f->path, "/tmp/hg-open-XXXXXX") != 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	chmod(f->dir, 0700); /* a test may leave it read-only */
	store_tmp_remove(f->dir, f->path);
	free(f);
	return 0;
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* The first n good reports of the corpus, each with its signature. */
struct batch {
	hg_report *reps[16];
	hg_signature sigs[16];
	size_t n;
};

static int keep_n(void *user, hg_report *rep)
{
	struct batch *b = user;
	if (rep->error || b->n == 16) {
		hg_report_destroy(rep);
		return 0;
	}
	assert_int_equal(hg_signature_compute(rep, NULL, rep->arena, &b->sigs[b->n]), 0);
	b->reps[b->n++] = rep;
	return 0;
}

static void read_batch(struct batch *b)
{
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.keep_text = 1;
	memset(b, 0, sizeof *b);
	assert_int_equal(hg_reports_read_path(&ctx, corpus, NULL, HG_FORMAT_AUTO, keep_n, b), 0);
	assert_int_equal(b->n, 16);
}

static void free_batch(struct batch *b)
{
	for (size_t i = 0; i < b->n; i++)
		hg_report_destroy(b->reps[i]);
}

/* Adds reports [from, to) of b in one batch: 0, or the first error. */
static int add_batch(hg_store *st, struct batch *b, size_t from, size_t to)
{
	int rc = hg_store_begin(st);
	for (size_t i = from; rc == 0 && i < to; i++) {
		bool dup = false;
		const hg_report *r = b->reps[i];
		rc = hg_store_add_report(st, r, &b->sigs[i], r->text, r->text_len, &dup);
	}
	if (rc != 0) {
		hg_store_rollback(st);
		return rc;
	}
	return hg_store_commit(st);
}

static void make_store(struct fx *f, struct batch *b, size_t n)
{
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	assert_int_equal(add_batch(st, b, 0, n), 0);
	hg_store_close(st);
}

/* ---- the reading modes never create ---- */

static void test_missing_store_is_not_created(void **state)
{
	struct fx *f = *state;
	hg_store *st = (hg_store *)f; /* set to NULL by the call */
	assert_int_equal(hg_store_open_mode(&f->ctx, f->path, HG_STORE_READ_ONLY, &st), HG_ENOENT);
	assert_null(st);
	assert_int_equal(hg_store_open_mode(&f->ctx, f->path, HG_STORE_EXISTING, &st), HG_ENOENT);
	assert_null(st);
	assert_false(exists(f->path));
	char wal[128];
	snprintf(wal, sizeof wal, "%s-wal", f->path);
	assert_false(exists(wal));
	assert_int_equal(f->n_diags, 0); /* the caller says how to make one */
	assert_string_equal(hg_strerror(HG_ENOENT), "no such file");

	/* An empty file holds no store either, and stays empty. */
	write_file(f->path, "", 0);
	assert_int_equal(hg_store_open_mode(&f->ctx, f->path, HG_STORE_READ_ONLY, &st), HG_ENOENT);
	assert_int_equal(hg_store_open_mode(&f->ctx, f->path, HG_STORE_EXISTING, &st), HG_ENOENT);
	struct stat s;
	assert_int_equal(stat(f->path, &s), 0);
	assert_int_equal(s.st_size, 0);

	/* Creating is hg_store_open's. */
	assert_int_equal(hg_store_open_mode(&f->ctx, f->path, HG_STORE_CREATE, &st), 0);
	hg_store_close(st);
	assert_int_equal(sql_int(f->path, "PRAGMA user_version"), HG_STORE_SCHEMA_VERSION);
}

/* ---- read-only: queries answer, writes are refused ---- */

static int count_cluster(void *user, const hg_cluster_row *row)
{
	*(int64_t *)user += row->count;
	return 0;
}

static void test_read_only_reads_and_refuses_writes(void **state)
{
	struct fx *f = *state;
	struct batch b;
	read_batch(&b);
	make_store(f, &b, 10);

	hg_store *st = NULL;
	assert_int_equal(hg_store_open_mode(&f->ctx, f->path, HG_STORE_READ_ONLY, &st), 0);
	int64_t reports = 0;
	hg_top_query q = {.sort = "count"};
	assert_int_equal(hg_store_top(st, &q, count_cluster, &reports), 0);
	assert_int_equal(reports, 10);
	f->n_diags = 0;
	assert_true(add_batch(st, &b, 10, 16) < 0);
	assert_true(f->n_diags > 0);
	assert_contains(f->diags, f->path);
	assert_contains(f->diags, "readonly");
	assert_true(hg_store_add_rejected(st, "x.json", 1, "why", "x", 1) < 0);
	hg_store_close(st);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM reports"), 10);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM rejected"), 0);

	/* EXISTING writes. */
	assert_int_equal(hg_store_open_mode(&f->ctx, f->path, HG_STORE_EXISTING, &st), 0);
	assert_int_equal(add_batch(st, &b, 10, 16), 0);
	hg_store_close(st);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM reports"), 16);
	free_batch(&b);
}

/* ---- a damaged store, a file that is not one ---- */

/* Overwrites the b-tree page header of table's root page: SQLite then
 * finds the store malformed when it reads that table. */
static void damage_table(const char *path, const char *table)
{
	char sql[128];
	snprintf(sql, sizeof sql, "SELECT rootpage FROM sqlite_master WHERE name = '%s'", table);
	int64_t page = sql_int(path, sql), size = sql_int(path, "PRAGMA page_size");
	sql_exec(path, "PRAGMA wal_checkpoint(TRUNCATE)");
	assert_true(page > 1);
	FILE *fp = fopen(path, "r+b");
	assert_non_null(fp);
	assert_int_equal(fseek(fp, (long)((page - 1) * size), SEEK_SET), 0);
	static const unsigned char junk[] = {0x0d, 0x00, 0x00, 0x00, 0x05, 0xff, 0xff, 0xff, 0xff,
					     0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	assert_int_equal(fwrite(junk, 1, sizeof junk, fp), sizeof junk);
	fclose(fp);
}

static void test_damaged_store_said_as_the_store(void **state)
{
	struct fx *f = *state;
	struct batch b;
	read_batch(&b);
	make_store(f, &b, 10);
	damage_table(f->path, "reports");

	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	f->diags[0] = '\0';
	int rc = add_batch(st, &b, 10, 16);
	assert_int_equal(rc, HG_EPARSE);
	/* The store's path and SQLite's reason, never "not an error". */
	char want[160];
	snprintf(want, sizeof want, "%s: ", f->path);
	assert_contains(f->diags, want);
	assert_contains(f->diags, "database disk image is malformed");
	assert_null(strstr(f->diags, "not an error"));
	hg_store_close(st);
	free_batch(&b);
}

static void test_not_a_store_gives_the_reason(void **state)
{
	struct fx *f = *state;
	char junk[8192];
	for (size_t i = 0; i < sizeof junk; i++)
		junk[i] = (char)("{\"not\":\"a store\"}\n"[i % 18]);
	write_file(f->path, junk, sizeof junk);
	static const enum hg_store_mode modes[] = {HG_STORE_CREATE, HG_STORE_EXISTING,
						   HG_STORE_READ_ONLY};
	for (size_t i = 0; i < 3; i++) {
		hg_store *st = NULL;
		f->diags[0] = '\0';
		assert_int_equal(hg_store_open_mode(&f->ctx, f->path, modes[i], &st), HG_EPARSE);
		assert_null(st);
		char want[192];
		snprintf(want, sizeof want,
			 "%s: not a hangar store (not an SQLite database, or corrupt): file is not a "
			 "database\n", f->path);
		assert_string_equal(f->diags, want);
	}
}

/* ---- a store that cannot be written, or that is full ---- */

/* Makes the store file 0444 and its folder 0555: true when that stops
 * this process from writing them (false as root, who writes anyway). */
static bool make_read_only(struct fx *f)
{
	assert_int_equal(chmod(f->path, 0444), 0);
	assert_int_equal(chmod(f->dir, 0555), 0);
	return access(f->path, W_OK) != 0 && access(f->dir, W_OK) != 0;
}

static void make_writable(struct fx *f)
{
	assert_int_equal(chmod(f->dir, 0700), 0);
	assert_int_equal(chmod(f->path, 0644), 0);
}

static void test_read_only_file_and_folder(void **state)
{
	struct fx *f = *state;
	struct batch b;
	read_batch(&b);
	make_store(f, &b, 10);
	if (!make_read_only(f)) {
		free_batch(&b);
		skip(); /* root: tests/cli/store-access covers it with a read-only mount */
	}
	/* Read (immutable: the -shm that mode=ro needs cannot be made). */
	hg_store *st = NULL;
	f->diags[0] = '\0';
	assert_int_equal(hg_store_open_mode(&f->ctx, f->path, HG_STORE_READ_ONLY, &st), 0);
	int64_t reports = 0;
	hg_top_query q = {.sort = "count"};
	assert_int_equal(hg_store_top(st, &q, count_cluster, &reports), 0);
	assert_int_equal(reports, 10);
	hg_store_close(st);
	assert_string_equal(f->diags, "");

	/* Written: refused, and said so (it was "cannot read the store"). */
	static const enum hg_store_mode writers[] = {HG_STORE_CREATE, HG_STORE_EXISTING};
	for (size_t i = 0; i < 2; i++) {
		f->diags[0] = '\0';
		assert_int_equal(hg_store_open_mode(&f->ctx, f->path, writers[i], &st), HG_EIO);
		assert_null(st);
		char want[160];
		snprintf(want, sizeof want, "%s: cannot write the store: the file is read-only\n",
			 f->path);
		assert_string_equal(f->diags, want);
	}
	/* An older schema cannot be migrated there: said so. */
	make_writable(f);
	sql_exec(f->path, "PRAGMA user_version = 6");
	assert_true(make_read_only(f));
	f->diags[0] = '\0';
	assert_int_equal(hg_store_open_mode(&f->ctx, f->path, HG_STORE_READ_ONLY, &st), HG_EIO);
	assert_contains(f->diags, "store schema version 6 is older than this hangar's");
	assert_contains(f->diags, "needs migrating, but the store cannot be written (the file is "
				  "read-only)");
	make_writable(f);
	assert_int_equal(sql_int(f->path, "PRAGMA user_version"), 6);
	free_batch(&b);
}

/* Adds reports [4, 16) of b into st in one batch, each with a text of
 * 200 kB of its own, until one fails: how many were added before.  The
 * texts are noise (xorshift over 94 characters): the store compresses
 * texts, and a repeated letter would take no room. */
static size_t add_big(hg_store *st, struct batch *b, int *rc)
{
	static char big[200000];
	size_t added = 0;
	*rc = hg_store_begin(st);
	for (size_t i = 4; *rc == 0 && i < 16; i++) {
		uint32_t x = 2463534242u + (uint32_t)i;
		for (size_t k = 0; k < sizeof big; k++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			big[k] = (char)('!' + x % 94);
		}
		bool dup = false;
		*rc = hg_store_add_report(st, b->reps[i], &b->sigs[i], big, sizeof big, &dup);
		added += *rc == 0;
	}
	return added;
}

/* A store that runs out of room in the middle of a batch.  PRAGMA
 * max_page_count on its connection stands in for a full disk: SQLite
 * fails the same way (SQLITE_FULL) and rolls the whole transaction back
 * itself.  One error, saying the store cannot be written; rolling back
 * (ingest does) adds none, where it added "cannot roll back a batch:
 * cannot rollback - no transaction is active"; a commit instead writes
 * nothing of the batch; the store stays sound, with its whole batches. */
static void test_full_store_one_error_whole_batches(void **state)
{
	struct fx *f = *state;
	struct batch b;
	read_batch(&b);
	make_store(f, &b, 4);
	int64_t pages = sql_int(f->path, "PRAGMA page_count");
	char want[160];
	snprintf(want, sizeof want, "%s: cannot write the store: database or disk is full\n", f->path);
	for (int round = 0; round < 3; round++) {
		hg_store *st = NULL;
		assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
		char sql[64];
		snprintf(sql, sizeof sql, "PRAGMA max_page_count = %lld", (long long)pages + 12);
		assert_int_equal(db_exec(st->db, sql), DB_DONE);
		hg_store_set_bulk(st, round > 0); /* ingest's way, and a savepoint per report */
		f->diags[0] = '\0';
		f->n_diags = 0;
		int rc = 0;
		size_t added = add_big(st, &b, &rc);
		assert_int_equal(rc, HG_EIO);
		assert_true(added > 0); /* the batch held some when it failed */
		if (round < 2) {
			assert_int_equal(hg_store_rollback(st), 0);
			assert_string_equal(f->diags, want);
		} else {
			assert_int_equal(hg_store_commit(st), HG_EIO);
			assert_contains(f->diags, want);
			assert_contains(f->diags, "cannot commit a batch: it was rolled back after an "
						  "earlier error");
		}
		assert_int_equal(hg_store_check(st), 0);
		hg_store_close(st);
		assert_int_equal(sql_int(f->path, "SELECT count(*) FROM reports"), 4);
		assert_int_equal(sql_int(f->path, "SELECT sum(count) FROM clusters"), 4);
	}
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	assert_int_equal(hg_store_check(st), 0);
	hg_store_close(st);
	free_batch(&b);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s reports.ndjson\n", argv[0]);
		return 2;
	}
	corpus = argv[1];
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_missing_store_is_not_created),
		T(test_read_only_reads_and_refuses_writes),
		T(test_damaged_store_said_as_the_store),
		T(test_not_a_store_gives_the_reason),
		T(test_read_only_file_and_folder),
		T(test_full_store_one_error_whole_batches),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
