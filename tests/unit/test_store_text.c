/* Stored report texts (src/lib/store/store_text.c): byte-exact round trips
 * (empty, one byte, binary with NULs, over 1 MB, texts that begin with the
 * zstd magic); raw texts of older stores read as they are; corrupt
 * frames, frames of a dictionary the store lacks and frames over the size
 * cap are errors naming the report; random and mutated frames never crash
 * the decoder nor give a wrong text; a family's dictionary trained past
 * 1,000 texts, forgotten when its batch is rolled back; merging stores
 * whose dictionaries clash; recompressing raw texts. */
#include <zstd.h>

#include "store_fixture.h"
#include "store/store_internal.h"
#include "store/store_text.h"

/* ---- fixture ---- */

struct fx {
	hg_ctx ctx;
	char dir[64];
	char path[96];
	hg_store *store;
	char last_diag[512];
	size_t n_diags;
};

static void on_diag(void *user, const hg_diag *d)
{
	struct fx *f = user;
	f->n_diags++;
	snprintf(f->last_diag, sizeof f->last_diag, "%s: %s", d->source ? d->source : "",
		 d->message);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	assert_non_null(f);
	store_ctx_init(&f->ctx, on_diag, f);
	assert_int_equal(store_tmp_open(&f->ctx, f->dir, f->path, "/tmp/hg-text-XXXXXX", &f->store),
			 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	store_tmp_close(f->store, f->dir, f->path);
	free(f);
	return 0;
}

/* A fixed-seed generator (xorshift64*): the same cases on every run. */
static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint32_t next_rand(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 0x2545f4914f6cdd1dull) >> 32);
}

/* text[0..len) encoded as for a slow_method report, then decoded as report
 * id: the same bytes; *was_packed whether it was stored compressed. */
static void round_trip(struct fx *f, const char *text, size_t len, bool *was_packed)
{
	void *packed = NULL;
	size_t n = 0;
	assert_int_equal(store_text_encode(f->store, "slow_method", text, len, &packed, &n), 0);
	const void *stored = packed ? packed : text;
	size_t stored_len = packed ? n : len;
	if (!packed) /* raw: never mistaken for a frame */
		assert_false(len >= 4 && memcmp(text, STORE_TEXT_MAGIC, 4) == 0);
	else
		assert_memory_equal(packed, STORE_TEXT_MAGIC, 4);
	char *out = NULL;
	size_t out_len = 0;
	assert_int_equal(store_text_decode(f->store, 7, stored, stored_len, &out, &out_len), 0);
	assert_int_equal(out_len, len);
	if (len)
		assert_memory_equal(out, text, len);
	assert_int_equal(out[len], '\0');
	*was_packed = packed != NULL;
	free(out);
	free(packed);
}

/* A JSON-like text of n bytes that compresses well. */
static char *json_text(size_t n)
{
	char *s = malloc(n + 1);
	assert_non_null(s);
	for (size_t i = 0; i < n;) {
		char line[96];
		int k = snprintf(line, sizeof line, "{\"depth\":%zu,\"id\":%u,\"cost\":%u}\n", i % 40,
				 next_rand() % 1000, next_rand() % 100);
		for (int j = 0; j < k && i < n; j++)
			s[i++] = line[j];
	}
	s[n] = '\0';
	return s;
}

/* ---- round trips ---- */

static void test_round_trips(void **state)
{
	struct fx *f = *state;
	bool packed;
	round_trip(f, "", 0, &packed);
	assert_false(packed);
	round_trip(f, "x", 1, &packed);
	assert_false(packed);
	/* binary, with NULs */
	char bin[4096];
	for (size_t i = 0; i < sizeof bin; i++)
		bin[i] = i % 7 == 0 ? '\0' : (char)("ab\x01\xff"[i % 4]);
	round_trip(f, bin, sizeof bin, &packed);
	assert_true(packed);
	/* incompressible: stored raw */
	char noise[1000];
	for (size_t i = 0; i < sizeof noise; i++)
		noise[i] = (char)next_rand();
	noise[0] = 'n';
	round_trip(f, noise, sizeof noise, &packed);
	assert_false(packed);
	/* over 1 MB */
	size_t big_len = ((size_t)3 << 20) / 2;
	char *big = json_text(big_len);
	round_trip(f, big, big_len, &packed);
	assert_true(packed);
	free(big);
	/* beginning with the magic: always a frame, however small or noisy */
	round_trip(f, STORE_TEXT_MAGIC, 4, &packed);
	assert_true(packed);
	memcpy(noise, STORE_TEXT_MAGIC, 4);
	round_trip(f, noise, sizeof noise, &packed);
	assert_true(packed);
	round_trip(f, "\x28\xb5\x2f", 3, &packed); /* a part of it: raw */
	assert_false(packed);
	assert_int_equal(f->n_diags, 0);
}

/* ---- reports through the store ---- */

static const char *const frames1[] = {"a.B.c"};

/* Adds a slow-method report of text to cluster c (of family slow_method). */
static void add_report(hg_store *st, const char *text, int c)
{
	hg_report *rep = read_report("mem.json", text, strlen(text));
	hg_signature sig = {0};
	snprintf(sig.hash, sizeof sig.hash, "%08x%024x", 0xabc00000u + (unsigned)c, 0u);
	sig.family = "slow_method";
	sig.title = "a.B.c";
	sig.key_symbol = "a.B.c";
	sig.frames = (const char **)frames1;
	sig.n_frames = 1;
	bool dup = false;
	assert_int_equal(hg_store_add_report(st, rep, &sig, text, strlen(text), &dup), 0);
	assert_false(dup);
	hg_report_destroy(rep);
}

/* The i-th report of a family of alike texts (about 700 bytes). */
static void report_text(char *buf, size_t size, int i)
{
	int n = snprintf(buf, size,
		"{\"tag\":\"Trace_EvilMethod\",\"content\":{\"machine\":\"%s\",\"detail\":\"NORMAL\","
		"\"cost\":%d,\"usage\":\"%d.%02d%%\",\"scene\":\"com.example.app.%sActivity\","
		"\"stack\":\"0,1048574,1,%d\\n1,%d,1,%d\\n2,%d,1,%d\\n3,%d,2,%d\\n\","
		"\"stackKey\":\"%d|\",\"process\":\"com.example.app\",\"time\":%lld,"
		"\"model\":\"%s\",\"appVersion\":\"1.%d.0\",\"mem_free\":%d,\"api-level\":33}}",
		i % 3 ? "HIGH" : "MIDDLE", 700 + i % 900, i % 90, i % 100,
		i % 4 ? "Home" : "Detail", 700 + i % 900, 1000 + i % 37, 650 + i % 200,
		2000 + i % 11, 500 + i % 150, 3000 + i % 23, 400, 2000 + i % 11,
		1700000000000LL + i * 997LL, i % 5 ? "Pixel 7" : "SM-G991B", i % 4, 500000 + i);
	assert_true(n > 0 && (size_t)n < size);
}

static void text_of(hg_store *st, const char *text, char **out, size_t *len)
{
	char hash[65];
	store_sha256_hex(text, strlen(text), hash);
	*out = NULL;
	assert_int_equal(hg_store_report_text(st, hash, out, len), 0);
}

static void test_old_raw_and_corrupt(void **state)
{
	struct fx *f = *state;
	char a[1024], b[1024];
	report_text(a, sizeof a, 1);
	report_text(b, sizeof b, 2);
	add_report(f->store, a, 1);
	add_report(f->store, b, 1);
	hg_store_close(f->store);
	f->store = NULL;
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM reports"
				 " WHERE substr(text, 1, 4) = x'28B52FFD'"), 2);
	/* a text as stores before compression kept it: read as it is */
	char sql[1400];
	snprintf(sql, sizeof sql, "UPDATE reports SET text = CAST('%s' AS BLOB) WHERE id = 1", a);
	sql_exec(f->path, sql);
	/* a damaged frame: a byte of its middle changed */
	sql_exec(f->path, "UPDATE reports SET text = substr(text, 1, 20) || CASE"
			  " WHEN substr(text, 21, 1) = x'5A' THEN x'5B' ELSE x'5A' END"
			  " || substr(text, 22) WHERE id = 2");
	assert_int_equal(hg_store_open(&f->ctx, f->path, &f->store), 0);
	char *out;
	size_t len;
	text_of(f->store, a, &out, &len);
	assert_int_equal(len, strlen(a));
	assert_memory_equal(out, a, len);
	free(out);
	char hash[65];
	store_sha256_hex(b, strlen(b), hash);
	out = NULL;
	assert_int_equal(hg_store_report_text(f->store, hash, &out, &len), HG_EPARSE);
	assert_null(out);
	assert_contains(f->last_diag, f->path);
	assert_contains(f->last_diag, "report 2: its stored text cannot be read: ");
}

/* Frames made by hand: over the cap, of no size, truncated, trailing. */
static void test_bounds(void **state)
{
	struct fx *f = *state;
	char *out = NULL;
	size_t len = 0;
	/* magic, single-segment with an 8-byte content size of 2^40, an empty
	 * last raw block */
	const unsigned char huge[] = {0x28, 0xb5, 0x2f, 0xfd, 0xe0, 0, 0, 0, 0, 0, 1, 0, 0,
				      0x01, 0, 0};
	assert_int_equal(store_text_decode(f->store, 3, huge, sizeof huge, &out, &len), HG_ELIMIT);
	assert_contains(f->last_diag, "report 3: its stored text cannot be read: its frame claims"
			" 1099511627776 bytes, more than a report may have (1073741824)");
	/* no content size (a window descriptor instead) */
	const unsigned char unsized[] = {0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x00, 0x01, 0, 0};
	assert_int_equal(store_text_decode(f->store, 4, unsized, sizeof unsized, &out, &len),
			 HG_ELIMIT);
	assert_contains(f->last_diag, "report 4: its stored text cannot be read: its frame does not"
			" say its size");
	/* a real frame, cut, and with bytes after it */
	char *text = json_text(5000);
	void *packed;
	size_t n;
	assert_int_equal(store_text_encode(f->store, "lag", text, 5000, &packed, &n), 0);
	assert_non_null(packed);
	assert_int_equal(store_text_decode(f->store, 5, packed, n - 1, &out, &len), HG_EPARSE);
	assert_contains(f->last_diag, "report 5: its stored text cannot be read: not one whole");
	unsigned char *longer = malloc(n + 3);
	memcpy(longer, packed, n);
	memcpy(longer + n, "abc", 3);
	assert_int_equal(store_text_decode(f->store, 6, longer, n + 3, &out, &len), HG_EPARSE);
	/* a cap lower than the text: refused before decoding */
	hg_store_close(f->store);
	f->ctx.limits.max_input_bytes = 4999;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &f->store), 0);
	assert_int_equal(store_text_decode(f->store, 8, packed, n, &out, &len), HG_ELIMIT);
	assert_contains(f->last_diag, "claims 5000 bytes, more than a report may have (4999)");
	assert_null(out);
	free(longer);
	free(packed);
	free(text);
}

/* Random bytes behind the magic, and real frames with bytes changed: an
 * error or the very text, never a crash (ASan) nor another text. */
static void test_fuzz(void **state)
{
	struct fx *f = *state;
	hg_diag_fn diag = f->ctx.diag;
	f->ctx.diag = NULL;
	unsigned char buf[600];
	for (int i = 0; i < 3000; i++) {
		size_t n = 4 + next_rand() % (sizeof buf - 4);
		memcpy(buf, STORE_TEXT_MAGIC, 4);
		for (size_t k = 4; k < n; k++)
			buf[k] = (unsigned char)next_rand();
		char *out = NULL;
		size_t len = 0;
		int err = store_text_decode(f->store, i, buf, n, &out, &len);
		assert_true(err == 0 || err == HG_EPARSE || err == HG_ELIMIT);
		free(out);
	}
	char *text = json_text(3000);
	void *packed;
	size_t n;
	assert_int_equal(store_text_encode(f->store, "anr", text, 3000, &packed, &n), 0);
	unsigned char *frame = packed;
	for (int i = 0; i < 3000; i++) {
		size_t at = 4 + next_rand() % (n - 4);
		unsigned char was = frame[at], by = (unsigned char)(1 + next_rand() % 255);
		frame[at] ^= by;
		char *out = NULL;
		size_t len = 0;
		int err = store_text_decode(f->store, i, frame, n, &out, &len);
		assert_true(err == 0 || err == HG_EPARSE || err == HG_ELIMIT);
		if (!err) {
			assert_int_equal(len, 3000);
			assert_memory_equal(out, text, 3000);
		}
		free(out);
		frame[at] = was;
	}
	free(packed);
	free(text);
	f->ctx.diag = diag;
}

/* ---- dictionaries ---- */

/* n reports (from first) into st in one batch; commit or roll back. */
static void add_many(hg_store *st, int first, int n, bool commit)
{
	assert_int_equal(hg_store_begin(st), 0);
	char text[1024];
	for (int i = first; i < first + n; i++) {
		report_text(text, sizeof text, i);
		add_report(st, text, i % 40);
	}
	assert_int_equal(commit ? hg_store_commit(st) : hg_store_rollback(st), 0);
}

/* The store's frames that name dictionary id, and the others. */
struct frames {
	int64_t named, plain;
	double named_bytes, plain_bytes;
};
static struct frames frames_of(const char *path, uint32_t id)
{
	struct frames fr = {0};
	hg_db *db = NULL;
	assert_int_equal(db_open(path, 30000, &db), 0);
	hg_db_stmt *st = db_stmt(db, 0, "SELECT text FROM reports");
	while (db_step(st) == DB_ROW) {
		size_t n = db_col_bytes(st, 0);
		unsigned dict = ZSTD_getDictID_fromFrame(db_col_blob(st, 0), n);
		assert_true(dict == 0 || dict == id);
		*(dict ? &fr.named : &fr.plain) += 1;
		*(dict ? &fr.named_bytes : &fr.plain_bytes) += (double)n;
	}
	db_reset(st);
	db_close(db);
	return fr;
}

static void test_dictionary(void **state)
{
	struct fx *f = *state;
	/* trained in a batch that is rolled back: gone, and not used after */
	add_many(f->store, 0, STORE_TEXT_TRAIN_MIN + 50, false);
	add_many(f->store, 5000, 10, true);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM sqlite_master"
				 " WHERE name = 'text_dicts'"), 0);
	char text[1024], *out;
	size_t len;
	report_text(text, sizeof text, 5009);
	text_of(f->store, text, &out, &len);
	assert_string_equal(out, text);
	free(out);
	/* trained at the 1,000th text of the family, used from then on */
	add_many(f->store, 0, STORE_TEXT_TRAIN_MIN + 200, true);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM text_dicts WHERE kind = 'slow_method'"),
			 1);
	int64_t id = sql_int(f->path, "SELECT id FROM text_dicts");
	assert_true(id >= 32768 && id < ((int64_t)1 << 31));
	struct frames fr = frames_of(f->path, (uint32_t)id);
	assert_true(fr.named > 150 && fr.named <= 260);
	assert_int_equal(fr.named + fr.plain, STORE_TEXT_TRAIN_MIN + 210);
	/* 1.3x smaller at least than the frames without it */
	assert_true(fr.named_bytes * 1.3 / fr.named < fr.plain_bytes / fr.plain);
	for (int i = 0; i < STORE_TEXT_TRAIN_MIN + 200; i += 37) {
		report_text(text, sizeof text, i);
		text_of(f->store, text, &out, &len);
		assert_string_equal(out, text);
		free(out);
	}
	/* the dictionary lost: its frames are errors naming the report */
	hg_store_close(f->store);
	sql_exec(f->path, "DELETE FROM text_dicts");
	assert_int_equal(hg_store_open(&f->ctx, f->path, &f->store), 0);
	report_text(text, sizeof text, STORE_TEXT_TRAIN_MIN + 199);
	char hash[65];
	store_sha256_hex(text, strlen(text), hash);
	out = NULL;
	assert_int_equal(hg_store_report_text(f->store, hash, &out, &len), HG_EPARSE);
	char sql[200];
	snprintf(sql, sizeof sql, "its stored text cannot be read: it needs dictionary %lld, which"
		 " the store does not have", (long long)id);
	assert_contains(f->last_diag, sql);
	assert_contains(f->last_diag, "report ");
}

/* Two stores with one dictionary id of different bytes do not merge. */
static void test_merge_clash(void **state)
{
	struct fx *f = *state;
	char dir[64], path[96], text[1024];
	hg_store *other = NULL;
	assert_int_equal(store_tmp_open(&f->ctx, dir, path, "/tmp/hg-text-XXXXXX", &other), 0);
	report_text(text, sizeof text, 1);
	add_report(other, text, 1);
	hg_store_close(other);
	const char *table = "CREATE TABLE text_dicts(id INTEGER PRIMARY KEY, kind TEXT NOT NULL,"
			    " dict BLOB NOT NULL);";
	char sql[300];
	snprintf(sql, sizeof sql, "%s INSERT INTO text_dicts VALUES(40000, 'lag', x'01')", table);
	sql_exec(path, sql);
	hg_store_close(f->store);
	snprintf(sql, sizeof sql, "%s INSERT INTO text_dicts VALUES(40000, 'lag', x'02')", table);
	sql_exec(f->path, sql);
	assert_int_equal(hg_store_open(&f->ctx, f->path, &f->store), 0);
	assert_int_equal(hg_store_merge(f->store, path, NULL, NULL, NULL), HG_EPARSE);
	assert_contains(f->last_diag, "text dictionary 40000 differs from the store's of the same id");
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM reports"), 0);
	/* the same bytes: merged, once */
	sql_exec(f->path, "UPDATE text_dicts SET dict = x'01'");
	assert_int_equal(hg_store_merge(f->store, path, NULL, NULL, NULL), 0);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM text_dicts"), 1);
	char *out;
	size_t len;
	text_of(f->store, text, &out, &len);
	assert_string_equal(out, text);
	free(out);
	store_tmp_remove(dir, path);
}

static void test_recompress(void **state)
{
	struct fx *f = *state;
	add_many(f->store, 0, 30, true);
	hg_store_close(f->store);
	/* raw, as before compression */
	hg_db *db = NULL;
	assert_int_equal(db_open(f->path, 30000, &db), 0);
	char text[1024];
	for (int i = 0; i < 30; i++) {
		report_text(text, sizeof text, i);
		hg_db_stmt *st = db_stmt(db, 0, "UPDATE reports SET text = ?2 WHERE id = ?1");
		db_bind_int(st, 1, i + 1);
		db_bind_blob(st, 2, text, strlen(text));
		assert_int_equal(db_step(st), DB_DONE);
		db_reset(st);
	}
	db_close(db);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM reports"
				 " WHERE substr(text, 1, 4) = x'28B52FFD'"), 0);
	assert_int_equal(hg_store_open(&f->ctx, f->path, &f->store), 0);
	int64_t last = 0, packed = 0, total = 0, after = 0;
	assert_int_equal(store_text_recompress(f->store, 0, 10, &last, &packed), HG_EINVAL);
	do {
		assert_int_equal(hg_store_begin(f->store), 0);
		assert_int_equal(store_text_recompress(f->store, after, 8, &last, &packed), 0);
		assert_int_equal(hg_store_commit(f->store), 0);
		total += packed;
		after = last;
	} while (last);
	assert_int_equal(total, 30);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM reports"
				 " WHERE substr(text, 1, 4) = x'28B52FFD'"), 30);
	for (int i = 0; i < 30; i++) {
		char *out;
		size_t len;
		report_text(text, sizeof text, i);
		text_of(f->store, text, &out, &len);
		assert_string_equal(out, text);
		free(out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trips, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_raw_and_corrupt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bounds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fuzz, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dictionary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_merge_clash, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recompress, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
