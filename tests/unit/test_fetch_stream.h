/* The listing half of test_fetch.c's transfer tests: hg_source_list_fetch
 * against the fixture server's listings (fetch_fixture_server.py), those
 * that never end among them.  Included after test_fetch_engine.h, whose
 * server, callbacks and helpers it uses. */

/* What a listing fetch saw, beside struct seen's counts. */
struct streamed {
	struct seen s;
	int listed;
	const char *skip; /* a key listed() leaves out */
	bool any_content; /* objects whose bytes check_content cannot tell */
};

static int on_listed(void *user, const hg_object *obj)
{
	struct streamed *t = user;
	t->listed++;
	return t->skip && strcmp(obj->key, t->skip) == 0 ? 0 : 1;
}

static const hg_fetch_callbacks streaming = {on_done, on_failed, NULL, NULL, on_listed};

/* Lists and fetches url (s3:// through the fixture as endpoint) with o;
 * the listing's end in *list_rc.  Every object must come whole. */
static void list_fetch(const char *url, hg_fetch_opts *o, struct streamed *t, int *list_rc)
{
	char endpoint[64];
	snprintf(endpoint, sizeof endpoint, "http://127.0.0.1:%d", server_port);
	o->endpoint = endpoint;
	hg_ctx ctx = test_ctx();
	hg_source *src;
	assert_int_equal(hg_source_open(&ctx, url, o, &src), 0);
	assert_int_equal(hg_source_list_fetch(src, &streaming, t, list_rc), 0);
	hg_source_destroy(src);
	if (t->s.failed || (t->s.bad_data && !t->any_content))
		fprintf(stderr, "%s---\n%s", t->s.log.data ? t->s.log.data : "", diag_text());
	assert_int_equal(t->s.failed, 0);
	assert_true(t->any_content || !t->s.bad_data);
	assert_false(t->s.outside);
}

/* Listing requests the server had for a bucket (its "/b/" path). */
static long list_requests(const char *bucket)
{
	char path[64];
	snprintf(path, sizeof path, "/%s/", bucket);
	return stat_count(path);
}

/* A new continuation token on every page: stopped past max_objects, the
 * objects listed before fetched, the error naming the source and the cap. */
static void test_stream_endless_s3(void **state)
{
	(void)state;
	struct streamed t = {0};
	hg_fetch_opts o = test_opts(&t.s);
	o.max_objects = 7;
	int list_rc = 0;
	hg_buf_release(&diags); /* starts a fresh capture */
	list_fetch("s3://endless/", &o, &t, &list_rc);
	assert_int_equal(list_rc, HG_ELIMIT);
	assert_int_equal(t.listed, 7);
	assert_int_equal(t.s.done, 7);
	assert_non_null(strstr(diag_text(), "s3://endless/: the listing goes on past 7 objects "
					    "(--max-objects); stopped after 4 pages and 7 objects\n"));
	assert_int_equal(list_requests("endless"), 4);
	assert_int_equal(stat_count("/endless/p00003-0.json"), 1);
	assert_int_equal(stat_count("/endless/p00003-1.json"), 0);
	hg_buf_release(&diags);
	assert_cache_clean(&t.s);
}

/* Pages come until one takes longer than the listing may: stopped at
 * list_timeout_ms, what the first three pages listed fetched. */
static void test_stream_list_timeout(void **state)
{
	(void)state;
	struct streamed t = {0};
	hg_fetch_opts o = test_opts(&t.s);
	o.list_timeout_ms = 1500;
	int list_rc = 0;
	hg_buf_release(&diags);
	list_fetch("s3://slowlist/", &o, &t, &list_rc);
	assert_int_equal(list_rc, HG_ELIMIT);
	assert_int_equal(t.s.done, 6);
	assert_non_null(strstr(diag_text(), "s3://slowlist/: the listing goes on past 1.5 s "
					    "(--list-timeout); stopped after 3 pages and 6 objects\n"));
	hg_buf_release(&diags);
	assert_cache_clean(&t.s);
}

/* An autoindex of folders without end: the same cap, depth first. */
static void test_stream_endless_http(void **state)
{
	(void)state;
	struct streamed t = {0};
	hg_fetch_opts o = test_opts(&t.s);
	o.max_objects = 7;
	char url[128];
	snprintf(url, sizeof url, "%stree/", base_url);
	int list_rc = 0;
	hg_buf_release(&diags);
	list_fetch(url, &o, &t, &list_rc);
	assert_int_equal(list_rc, HG_ELIMIT);
	assert_int_equal(t.s.done, 7);
	assert_non_null(strstr(diag_text(), "tree/: the listing goes on past 7 objects "
					    "(--max-objects); stopped after 4 pages and 7 objects\n"));
	/* root, d9, d9/d9 listed whole, then the first file of d9/d9/d9 */
	assert_non_null(strstr(t.s.log.data, "d9/d9/d9/f0.json: ok"));
	assert_int_equal(stat_count("/tree/d9/d9/d9/f1.json"), 0);
	hg_buf_release(&diags);
	assert_cache_clean(&t.s);
}

/* Objects are fetched while the listing goes on: the gate's second page
 * comes only once an object of the first was asked for (or after 5 s, which
 * the server then tells).  listed() leaves one out. */
static void test_stream_fetches_while_listing(void **state)
{
	(void)state;
	struct streamed t = {.skip = "p00000-1.json"};
	hg_fetch_opts o = test_opts(&t.s);
	int list_rc = -1;
	list_fetch("s3://gate/", &o, &t, &list_rc);
	assert_int_equal(list_rc, 0);
	assert_int_equal(t.listed, 4);
	assert_int_equal(t.s.done, 3);
	assert_int_equal(stat_count("/gate/p00000-1.json"), 0);
	hg_source *src;
	hg_ctx ctx = test_ctx();
	char url[128];
	snprintf(url, sizeof url, "%sstats", base_url);
	assert_int_equal(hg_source_open(&ctx, url, NULL, &src), 0);
	hg_buf body;
	hg_buf_init(&body);
	long status;
	char why[256];
	assert_int_equal(fetch_get(src, url, &body, &status, why, sizeof why), 0);
	assert_non_null(strstr(body.data, "\"gate\": true"));
	hg_buf_release(&body);
	hg_source_destroy(src);
	assert_cache_clean(&t.s);
}

/* What stays: a repeated token ends the listing as a loop (what it listed
 * fetched), a listing request that fails once is retried, the signed S3
 * pages are followed, shards and each key once hold while streaming. */
static void test_stream_kept_behaviour(void **state)
{
	(void)state;
	struct streamed t = {0};
	hg_fetch_opts o = test_opts(&t.s);
	int list_rc = 0;
	hg_buf_release(&diags);
	list_fetch("s3://looptok/", &o, &t, &list_rc);
	assert_int_equal(list_rc, HG_EPARSE);
	assert_int_equal(t.s.done, 6); /* pages t0, t1, t2; t2 names t2 again */
	assert_non_null(strstr(diag_text(), "s3://looptok/: the server repeated a continuation token"));
	assert_cache_clean(&t.s);

	struct streamed f = {0};
	o = test_opts(&f.s);
	list_fetch("s3://flaky/", &o, &f, &list_rc);
	assert_int_equal(list_rc, 0);
	assert_int_equal(f.s.done, 2);
	assert_int_equal(list_requests("flaky"), 2);
	assert_cache_clean(&f.s);

	/* fetch_fixture_server.py's S3_KEYS */
	const char *keys[] = {"a b.json", "dir/x+y=z.txt", "pct%41.txt",
			      "unicod\xc3\xa9/\xe6\x97\xa5\xe6\x9c\xac.json", "zz.gz"};
	s3_env("fixture/secret+key");
	for (unsigned shard = 0; shard < 2; shard++) {
		struct streamed b = {.any_content = true};
		o = test_opts(&b.s);
		o.shards = 2;
		o.shard = shard;
		list_fetch("s3://bucket/", &o, &b, &list_rc);
		assert_int_equal(list_rc, 0);
		int want = 0;
		for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
			want += hg_shard_of(keys[i], 2) == shard;
		assert_int_equal(b.listed, want);
		assert_int_equal(b.s.done, want);
		assert_cache_clean(&b.s);
	}
	unsetenv("AWS_ACCESS_KEY_ID");
	unsetenv("AWS_SECRET_ACCESS_KEY");
	unsetenv("AWS_SESSION_TOKEN");

	struct streamed m = {0};
	o = test_opts(&m.s);
	char url[128];
	snprintf(url, sizeof url, "%sdup-list.txt", base_url);
	list_fetch(url, &o, &m, &list_rc);
	assert_int_equal(list_rc, 0);
	assert_int_equal(m.listed, 2); /* three lines, two keys */
	assert_int_equal(m.s.done, 2);
	hg_buf_release(&diags);
	assert_cache_clean(&m.s);
}

#define STREAM_TESTS                                                   \
	cmocka_unit_test(test_stream_endless_s3),                      \
	cmocka_unit_test(test_stream_list_timeout),                    \
	cmocka_unit_test(test_stream_endless_http),                    \
	cmocka_unit_test(test_stream_fetches_while_listing),           \
	cmocka_unit_test(test_stream_kept_behaviour),
