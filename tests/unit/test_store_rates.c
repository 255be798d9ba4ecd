/* Escalating clusters and rates against sessions (store_escalate.c,
 * store_rates.c, and their use in store_top.c and store_diff.c), over a
 * store of ten days made here: a cluster rising fivefold on the last day,
 * a steady one, one new that day, one rising but too small, one first
 * seen the day before (its mean is of that day only), one back after a
 * silence, one exactly at the factor; two versions, five days each, and a
 * sessions file of known numbers. */
#include "store_fixture.h"

#include "hangar/sessions.h"

#define DAYS 10

/* reports per day (DAYS of them) of each cluster, its kind and letter */
static const struct plan {
	char letter;
	const char *kind;
	int per_day[DAYS];
} plans[] = {
	{'a', "slow_method", {4, 4, 4, 4, 4, 4, 4, 4, 4, 20}},   /* rising: escalating */
	{'b', "anr", {8, 8, 8, 8, 8, 12, 12, 12, 12, 12}},      /* steady */
	{'c', "slow_method", {0, 0, 0, 0, 0, 0, 0, 0, 0, 15}},  /* new that day */
	{'d', "slow_method", {1, 1, 1, 1, 1, 1, 1, 1, 1, 5}},   /* rising, under the minimum */
	{'e', "slow_method", {0, 0, 0, 0, 0, 0, 0, 0, 5, 12}},  /* one day before: mean 5 */
	{'f', "slow_method", {3, 0, 0, 0, 0, 0, 0, 0, 0, 10}},  /* back after a silence */
	{'g', "slow_method", {4, 4, 4, 4, 4, 4, 4, 4, 4, 12}},  /* exactly 3x */
};
#define N_PLANS (sizeof plans / sizeof plans[0])

struct fx {
	struct store_tmp t;
	hg_sessions *sessions;
};

static void hash_of(char letter, char out[33])
{
	memset(out, letter, 32);
	out[32] = '\0';
}

/* Day d's version: 1.0 for the first five, 1.1 after. */
static const char *version_of(int d)
{
	return d < 5 ? "1.0" : "1.1";
}

static void fill(const char *path)
{
	hg_db *db = NULL;
	assert_int_equal(db_open(path, 30000, &db), 0);
	assert_true(db_exec(db, "BEGIN") >= 0);
	int id = 0;
	for (size_t p = 0; p < N_PLANS; p++) {
		char hash[33], sql[768];
		hash_of(plans[p].letter, hash);
		for (int d = 0; d < DAYS; d++)
			for (int i = 0; i < plans[p].per_day[d]; i++, id++) {
				snprintf(sql, sizeof sql,
					 "INSERT INTO reports(content_hash, source, line, kind, version, time, cost,"
					 " cluster, symbolicated, text, ingested_at) VALUES('r%d', 'r.json', %d,"
					 " '%s', '%s', '2026-11-%02dT%02d:%02d:00.000Z', 100, '%s', 1, 'x',"
					 " '2026-12-01T00:00:00.000Z')",
					 id, id, plans[p].kind, version_of(d), 20 + d, 8 + i / 60, i % 60, hash);
				assert_true(db_exec(db, sql) >= 0);
			}
		snprintf(sql, sizeof sql,
			 "INSERT INTO clusters(hash, kind, title, key_symbol, frames, grouping_version,"
			 " first_seen, last_seen, count, symbolicated) SELECT '%s', '%s', 'cluster %c',"
			 " NULL, '[]', 1, min(time), max(time), count(*), 1 FROM reports WHERE cluster = '%s'",
			 hash, plans[p].kind, plans[p].letter, hash);
		assert_true(db_exec(db, sql) >= 0);
	}
	/* reports no sessions row covers: another version, and no time */
	assert_true(db_exec(db, "INSERT INTO reports(content_hash, source, line, kind, version, time,"
			    " cost, cluster, symbolicated, text, ingested_at) VALUES"
			    " ('x1', 'r.json', 1, 'anr', '9.9', '2026-11-29T09:00:00.000Z', 1,"
			    " 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', 1, 'x', '2026-12-01T00:00:00.000Z'),"
			    " ('x2', 'r.json', 2, 'anr', '1.1', NULL, 1,"
			    " 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', 1, 'x', '2026-12-01T00:00:00.000Z');"
			    "UPDATE clusters SET count = count + 2 WHERE hash LIKE 'b%';"
			    "COMMIT") >= 0);
	db_close(db);
	store_tmp_rollups(path);
}

/* 2,000 sessions a day of the version each day has. */
static hg_sessions *sessions_file(void)
{
	char text[1024] = "version,day,sessions\n";
	for (int d = 0; d < DAYS; d++) {
		size_t n = strlen(text);
		snprintf(text + n, sizeof text - n, "%s,2026-11-%02d,2000\n", version_of(d), 20 + d);
	}
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	hg_sessions *s = NULL;
	assert_int_equal(hg_sessions_parse(&ctx, "s.csv", text, strlen(text), &s), 0);
	return s;
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	assert_non_null(f);
	hg_ctx_init(&f->t.ctx);
	assert_int_equal(store_tmp_make(f->t.dir, f->t.path, "/tmp/hg-rates-XXXXXX"), 0);
	assert_int_equal(hg_store_open(&f->t.ctx, f->t.path, &f->t.store), 0);
	hg_store_close(f->t.store);
	fill(f->t.path);
	assert_int_equal(hg_store_open(&f->t.ctx, f->t.path, &f->t.store), 0);
	f->sessions = sessions_file();
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	hg_sessions_destroy(f->sessions);
	store_tmp_close(f->t.store, f->t.dir, f->t.path);
	free(f);
	return 0;
}

/* ---- escalating ---- */

struct seen {
	hg_escalation e[16];
	char hashes[16][33], days[16][11];
	int n;
};

static int take_escalation(void *user, const hg_escalation *e)
{
	struct seen *s = user;
	assert_true(s->n < 16);
	s->e[s->n] = *e;
	snprintf(s->hashes[s->n], 33, "%s", e->hash);
	snprintf(s->days[s->n], 11, "%s", e->day);
	s->e[s->n].hash = s->hashes[s->n];
	s->e[s->n].day = s->days[s->n];
	s->e[s->n].kind = s->e[s->n].title = NULL;
	s->n++;
	return 0;
}

static const hg_escalation *find(const struct seen *s, char letter)
{
	char hash[33];
	hash_of(letter, hash);
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->e[i].hash, hash))
			return &s->e[i];
	return NULL;
}

static void test_rule(void **state)
{
	struct fx *f = *state;
	struct seen s = {0};
	assert_int_equal(hg_store_escalations(f->t.store, NULL, take_escalation, &s), 0);
	assert_int_equal(s.n, 7); /* every cluster has reports on the last day */
	assert_string_equal(s.e[0].day, "2026-11-29");
	assert_int_equal(s.e[0].count, 20); /* most that day first */
	const hg_escalation *a = find(&s, 'a'), *b = find(&s, 'b'), *c = find(&s, 'c');
	const hg_escalation *d = find(&s, 'd'), *e = find(&s, 'e'), *fl = find(&s, 'f');
	const hg_escalation *g = find(&s, 'g');
	assert_true(a->escalating && !a->fresh);
	assert_int_equal(a->before, 28);
	assert_int_equal(a->days, 7);
	assert_true(a->mean == 4.0);
	assert_false(b->escalating); /* 13 that day (one of version 9.9), 10.3 before */
	assert_int_equal(b->count, 13);
	assert_true(c->fresh && !c->escalating && c->days == 0);
	assert_false(d->escalating); /* 5x, but 5 reports */
	/* first seen the day before: its mean is of that one day (5), not of 7 */
	assert_int_equal(e->days, 1);
	assert_true(e->mean == 5.0);
	assert_false(e->escalating);
	assert_true(fl->escalating && fl->days == 7 && fl->before == 0);
	assert_true(g->escalating); /* 12 >= 3 x 4: at the factor counts */
	/* the rule's numbers */
	hg_escalate_rule loose = {.factor = 2, .days = 3, .min = 5};
	hg_top_query q = {.escalate = &loose};
	memset(&s, 0, sizeof s);
	assert_int_equal(hg_store_escalations(f->t.store, &q, take_escalation, &s), 0);
	assert_true(find(&s, 'd')->escalating); /* 5 >= 2 x 1 */
	assert_int_equal(find(&s, 'a')->days, 3);
	assert_int_equal(find(&s, 'a')->before, 12);
}

static void test_windows(void **state)
{
	struct fx *f = *state;
	struct seen s = {0};
	/* a window that ends on the 25th: its latest day, where nothing rises */
	hg_top_query q = {.until = "2026-11-25T23:59:59.999Z"};
	assert_int_equal(hg_store_escalations(f->t.store, &q, take_escalation, &s), 0);
	assert_string_equal(s.e[0].day, "2026-11-25");
	for (int i = 0; i < s.n; i++)
		assert_false(s.e[i].escalating);
	assert_null(find(&s, 'c'));
	/* a version: 1.0 has nothing on the store's latest day */
	memset(&s, 0, sizeof s);
	hg_top_query v = {.version = "1.0"};
	assert_int_equal(hg_store_escalations(f->t.store, &v, take_escalation, &s), 0);
	assert_int_equal(s.n, 0);
	/* a kind */
	memset(&s, 0, sizeof s);
	hg_top_query k = {.kind = "anr"};
	assert_int_equal(hg_store_escalations(f->t.store, &k, take_escalation, &s), 0);
	assert_int_equal(s.n, 1);
	/* an empty window */
	memset(&s, 0, sizeof s);
	hg_top_query none = {.since = "2030-01-01"};
	assert_int_equal(hg_store_escalations(f->t.store, &none, take_escalation, &s), 0);
	assert_int_equal(s.n, 0);
}

/* ---- top, show and diff rows ---- */

struct rows {
	char hash[16][33];
	bool escalating[16], rated[16];
	double rate[16];
	int64_t count[16];
	int n;
};

static int take_row(void *user, const hg_cluster_row *r)
{
	struct rows *s = user;
	assert_true(s->n < 16);
	snprintf(s->hash[s->n], 33, "%s", r->hash);
	s->escalating[s->n] = r->escalating;
	s->rated[s->n] = r->rated;
	s->rate[s->n] = r->rate;
	s->count[s->n] = r->count;
	s->n++;
	return 0;
}

static int row_of(const struct rows *s, char letter)
{
	for (int i = 0; i < s->n; i++)
		if (s->hash[i][0] == letter)
			return i;
	fail_msg("no cluster %c", letter);
	return -1;
}

static bool near(double x, double want)
{
	return x > want - 1e-9 && x < want + 1e-9;
}

static void test_top_rows(void **state)
{
	struct fx *f = *state;
	struct rows s = {0};
	hg_top_query q = {.sessions = f->sessions};
	assert_int_equal(hg_store_top(f->t.store, &q, take_row, &s), 0);
	assert_int_equal(s.n, 7);
	for (int i = 0; i < s.n; i++) {
		bool want = strchr("afg", s.hash[i][0]) != NULL;
		if (s.escalating[i] != want)
			fail_msg("cluster %c: escalating %d", s.hash[i][0], s.escalating[i]);
		assert_true(s.rated[i]);
	}
	/* b: 100 reports, 2 more no row covers (version 9.9; no time), over
	 * 20,000 sessions */
	int b = row_of(&s, 'b');
	assert_int_equal(s.count[b], 102);
	assert_true(near(s.rate[b], 5.0));
	/* a version: 40 ANRs over 10,000 sessions */
	struct rows v = {0};
	hg_top_query qv = {.sessions = f->sessions, .version = "1.0"};
	assert_int_equal(hg_store_top(f->t.store, &qv, take_row, &v), 0);
	assert_true(near(v.rate[row_of(&v, 'b')], 4.0));
	/* a window of whole days: the last five, version 1.1's 60 over 10,000 */
	struct rows w = {0};
	hg_top_query qw = {.sessions = f->sessions, .since = "2026-11-25", .until = "2026-11-30"};
	assert_int_equal(hg_store_top(f->t.store, &qw, take_row, &w), 0);
	assert_true(near(w.rate[row_of(&w, 'b')], 6.0));
	assert_true(w.escalating[row_of(&w, 'a')]);
	/* a window that holds no whole day: no sessions, no rate */
	struct rows none = {0};
	hg_top_query qn = {.sessions = f->sessions, .since = "2026-11-29T08:05:00Z"};
	assert_int_equal(hg_store_top(f->t.store, &qn, take_row, &none), 0);
	assert_true(none.n > 0 && none.rated[0] && none.rate[0] < 0);
	/* without sessions: no rate */
	struct rows plain = {0};
	assert_int_equal(hg_store_top(f->t.store, NULL, take_row, &plain), 0);
	assert_false(plain.rated[0]);
	/* show's cluster: the same flag and rate */
	char hash[33];
	hash_of('a', hash);
	struct rows one = {0};
	assert_int_equal(hg_store_cluster_in(f->t.store, hash, &q, take_row, &one), 0);
	assert_int_equal(one.n, 1);
	assert_true(one.escalating[0]);
	assert_true(near(one.rate[0], 56 * 1000.0 / 20000));
	struct rows shown = {0};
	assert_int_equal(hg_store_cluster(f->t.store, hash, take_row, &shown), 0);
	assert_true(shown.escalating[0] && !shown.rated[0]);
}

struct diff_rows {
	char hash[16][33], status[16][12];
	bool escalating[16], rated[16];
	double old_rate[16], new_rate[16];
	int n;
};

static int take_diff(void *user, const hg_diff_row *r)
{
	struct diff_rows *s = user;
	assert_true(s->n < 16);
	snprintf(s->hash[s->n], 33, "%s", r->hash);
	snprintf(s->status[s->n], 12, "%s", r->status);
	s->escalating[s->n] = r->escalating;
	s->rated[s->n] = r->rated;
	s->old_rate[s->n] = r->old_rate;
	s->new_rate[s->n] = r->new_rate;
	s->n++;
	return 0;
}

static int diff_of(const struct diff_rows *s, char letter)
{
	for (int i = 0; i < s->n; i++)
		if (s->hash[i][0] == letter)
			return i;
	fail_msg("no diff row for %c", letter);
	return -1;
}

static void test_diff_rows(void **state)
{
	struct fx *f = *state;
	/* by version: each set's rate over its version's sessions; flagged as
	 * top flags them in the new version */
	hg_diff_query q = {.baseline_version = "1.0", .version = "1.1", .min_count = 1,
			   .min_rise = 1.1, .threshold = 50, .sessions = f->sessions};
	struct diff_rows s = {0};
	assert_int_equal(hg_store_diff(f->t.store, &q, take_diff, &s, NULL), 0);
	int a = diff_of(&s, 'a'), b = diff_of(&s, 'b'), c = diff_of(&s, 'c');
	assert_string_equal(s.status[c], "new");
	assert_true(s.escalating[a] && !s.escalating[b] && !s.escalating[c]);
	assert_true(s.rated[b] && near(s.old_rate[b], 4.0) && near(s.new_rate[b], 6.0));
	assert_true(near(s.old_rate[c], 0.0) && near(s.new_rate[c], 1.5));
	/* by time: the last day (2,000 sessions) against the days before */
	hg_diff_query t = {.since = "2026-11-29", .min_count = 1, .min_rise = 1.1, .threshold = 50,
			   .sessions = f->sessions};
	struct diff_rows st = {0};
	assert_int_equal(hg_store_diff(f->t.store, &t, take_diff, &st, NULL), 0);
	c = diff_of(&st, 'c');
	assert_true(near(st.new_rate[c], 7.5) && near(st.old_rate[c], 0.0));
	int back = diff_of(&st, 'f'); /* 3 on the first day, 10 on the last */
	assert_string_equal(st.status[back], "regressed");
	assert_true(near(st.old_rate[back], 3 * 1000.0 / 18000) && near(st.new_rate[back], 5.0));
	assert_true(st.escalating[back] && !st.escalating[c]);
	/* without sessions: no rate */
	hg_diff_query plain = t;
	plain.sessions = NULL;
	memset(&st, 0, sizeof st);
	assert_int_equal(hg_store_diff(f->t.store, &plain, take_diff, &st, NULL), 0);
	assert_false(st.rated[0]);
}

/* ---- the digest's rates by version ---- */

struct versions {
	hg_version_rate v[4];
	char names[4][8];
	int n;
};

static int take_version(void *user, const hg_version_rate *v)
{
	struct versions *s = user;
	assert_true(s->n < 4);
	s->v[s->n] = *v;
	snprintf(s->names[s->n], 8, "%s", v->version);
	s->v[s->n].version = s->names[s->n];
	s->n++;
	return 0;
}

static void test_version_rates(void **state)
{
	struct fx *f = *state;
	struct versions s = {0};
	int64_t uncounted = -1;
	assert_int_equal(hg_store_version_rates(f->t.store, f->sessions, take_version, &s, &uncounted),
			 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.v[0].version, "1.0");
	assert_int_equal(s.v[0].sessions, 10000);
	assert_int_equal(s.v[0].anrs, 40);
	assert_true(near(s.v[0].anr_rate, 4.0));
	assert_int_equal(s.v[0].reports, 20 + 40 + 5 + 3 + 20);
	assert_string_equal(s.v[1].version, "1.1");
	assert_int_equal(s.v[1].anrs, 60);
	assert_true(near(s.v[1].anr_rate, 6.0));
	assert_int_equal(uncounted, 2); /* version 9.9, and the untimed one */
	assert_int_equal(hg_store_version_rates(f->t.store, NULL, take_version, &s, NULL), HG_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rule, setup, teardown),
		cmocka_unit_test_setup_teardown(test_windows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_top_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_diff_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_version_rates, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
