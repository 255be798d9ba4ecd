/* The transfer-engine half of test_fetch.c: real transfers against the
 * loopback fixture server (fetch_fixture_server.py), started once for the
 * group.  Backoff and stall values are small so the whole runs in seconds. */

static pid_t server_pid;
static int server_stdin = -1;
static int server_port;
static char base_url[64];

static int engine_setup(void **state)
{
	(void)state;
	if (!fixture_path)
		return -1;
	int in[2], out[2];
	if (pipe(in) != 0 || pipe(out) != 0)
		return -1;
	server_pid = fork();
	if (server_pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execlp("python3", "python3", fixture_path, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	server_stdin = in[1];
	/* The port line, read whole even if it comes in pieces. */
	char line[32] = {0};
	size_t got = 0;
	while (got < sizeof line - 1 && !strchr(line, '\n')) {
		ssize_t n = read(out[0], line + got, sizeof line - 1 - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(out[0]);
	server_port = atoi(line);
	snprintf(base_url, sizeof base_url, "http://127.0.0.1:%d/", server_port);
	/* No credentials from the machine running the tests. */
	unsetenv("AWS_ACCESS_KEY_ID");
	unsetenv("AWS_SECRET_ACCESS_KEY");
	unsetenv("AWS_SESSION_TOKEN");
	setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/hangar-test", 1);
	return server_port > 0 ? 0 : -1;
}

static int engine_teardown(void **state)
{
	(void)state;
	if (server_stdin >= 0)
		close(server_stdin); /* the server exits when its stdin closes */
	if (server_pid > 0)
		waitpid(server_pid, NULL, 0);
	hg_buf_release(&diags);
	return 0;
}

/* What the callbacks saw. */
struct seen {
	int done, failed, in_memory;
	hg_buf log;      /* "key: ok <len> <first bytes>" or "key: failed <reason>" */
	char cache[256];
	bool outside;    /* a staged path outside the cache dir */
	bool bad_data;
};

static char *expected_content(const char *name)
{
	hg_buf b;
	hg_buf_init(&b);
	for (int i = 0; i < 10; i++)
		hg_buf_printf(&b, "content of %s\n", name);
	return b.data;
}

/* Whether data[0..got) is what the fixture serves for obj (len bytes). */
static void check_content(struct seen *s, const hg_object *obj, const char *data, size_t got,
			  int64_t len)
{
	const char *slash = strrchr(obj->key, '/');
	char name[256];
	snprintf(name, sizeof name, "%s", slash ? slash + 1 : obj->key);
	size_t nl = strlen(name);
	if (nl > 3 && strcmp(name + nl - 3, ".gz") == 0 && strncmp(obj->key, "gzfile/", 7) == 0)
		name[nl - 3] = '\0';
	char *want = expected_content(name);
	if (got != (size_t)len || strcmp(data, want) != 0)
		s->bad_data = true;
	hg_buf_printf(&s->log, "%s: ok %lld\n", obj->key, (long long)len);
	free(want);
}

static int on_done(void *user, const hg_object *obj, const char *path, int64_t len)
{
	struct seen *s = user;
	s->done++;
	size_t n = strlen(s->cache);
	if (strncmp(path, s->cache, n) != 0 || path[n] != '/' || strchr(path + n + 1, '/'))
		s->outside = true;
	FILE *f = fopen(path, "rb");
	char *data = calloc(1, (size_t)len + 1);
	size_t got = f ? fread(data, 1, (size_t)len, f) : 0;
	if (f)
		fclose(f);
	check_content(s, obj, data, got, len);
	free(data);
	return 0;
}

static int on_done_data(void *user, const hg_object *obj, const char *data, size_t len)
{
	struct seen *s = user;
	s->in_memory++;
	if (data[len] != '\0')
		s->bad_data = true;
	check_content(s, obj, data, strlen(data), (int64_t)len);
	return 0;
}

static int on_failed(void *user, const hg_object *obj, const char *reason)
{
	struct seen *s = user;
	s->failed++;
	hg_buf_printf(&s->log, "%s: failed %s\n", obj->key, reason);
	return 0;
}

static const hg_fetch_callbacks callbacks = {on_done, on_failed, NULL, NULL, NULL};
static const hg_fetch_callbacks in_memory = {on_done, on_failed, NULL, on_done_data, NULL};

static hg_fetch_opts test_opts(struct seen *s)
{
	snprintf(s->cache, sizeof s->cache, "/tmp/hangar-test-cache-XXXXXX");
	assert_non_null(mkdtemp(s->cache));
	hg_buf_init(&s->log);
	hg_fetch_opts o = {0};
	o.cache_dir = s->cache;
	o.attempts = 3;
	o.backoff_ms = 20;
	o.stall_ms = 1000;
	o.timeout_ms = 10000;
	return o;
}

/* The cache directory is empty again (the library removed its files). */
static void assert_cache_clean(struct seen *s)
{
	DIR *d = opendir(s->cache);
	assert_non_null(d);
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, ".."))
			fail_msg("left in the cache: %s", e->d_name);
	closedir(d);
	rmdir(s->cache);
	hg_buf_release(&s->log);
}

/* Fetches keys under base_url, each listed at sizes[i] (NULL: unknown). */
static void fetch_sized(const char *url, const char **keys, const int64_t *sizes, size_t n,
			hg_fetch_opts *o, const hg_fetch_callbacks *cb, struct seen *s)
{
	hg_ctx ctx = test_ctx();
	hg_source *src;
	assert_int_equal(hg_source_open(&ctx, url, o, &src), 0);
	hg_object objs[32];
	char *urls[32];
	for (size_t i = 0; i < n; i++) {
		hg_buf u;
		hg_buf_init(&u);
		hg_buf_printf(&u, "%s%s", base_url, keys[i]);
		urls[i] = u.data;
		objs[i] = (hg_object){keys[i], urls[i], NULL, sizes ? sizes[i] : -1, NULL};
	}
	assert_int_equal(hg_source_fetch(src, objs, n, cb, s), 0);
	for (size_t i = 0; i < n; i++)
		free(urls[i]);
	hg_source_destroy(src);
}

static void fetch_keys(const char *url, const char **keys, size_t n, hg_fetch_opts *o,
		       struct seen *s)
{
	fetch_sized(url, keys, NULL, n, o, &callbacks, s);
}

static long stat_count(const char *path)
{
	/* /stats through the library itself. */
	hg_ctx ctx = test_ctx();
	hg_source *src;
	char url[128];
	snprintf(url, sizeof url, "%sstats", base_url);
	assert_int_equal(hg_source_open(&ctx, url, NULL, &src), 0);
	hg_buf body;
	hg_buf_init(&body);
	long status;
	char why[256];
	assert_int_equal(fetch_get(src, url, &body, &status, why, sizeof why), 0);
	char needle[256];
	long v = 0;
	if (strcmp(path, "max_active") == 0) {
		const char *p = strstr(body.data, "\"max_active\": ");
		v = p ? atol(p + 14) : -1;
	} else {
		snprintf(needle, sizeof needle, "\"%s\": ", path);
		const char *p = strstr(body.data, needle);
		v = p ? atol(p + strlen(needle)) : 0;
	}
	hg_buf_release(&body);
	hg_source_destroy(src);
	return v;
}

static void test_engine_retries(void **state)
{
	(void)state;
	struct seen s = {0};
	hg_fetch_opts o = test_opts(&s);
	const char *keys[] = {"fail/500/2/a.json", "fail/429/1/b.json", "fail/reset/2/c.json",
			      "fail/trunc/2/d.json", "fail/stall/1/e.json", "always500/f.json",
			      "files/g.json", "missing/h.json"};
	hg_buf_release(&diags); /* starts a fresh capture */
	fetch_keys(base_url, keys, 8, &o, &s);
	if (s.done != 6)
		fprintf(stderr, "%s---\n%s", s.log.data ? s.log.data : "", diag_text());
	assert_int_equal(s.done, 6);
	assert_int_equal(s.failed, 2);
	assert_false(s.bad_data);
	assert_false(s.outside);
	assert_non_null(strstr(s.log.data, "always500/f.json: failed HTTP 500 after 3 attempts"));
	assert_non_null(strstr(s.log.data, "missing/h.json: failed HTTP 404\n"));
	assert_int_equal(stat_count("/fail/500/2/a.json"), 3);
	assert_int_equal(stat_count("/fail/429/1/b.json"), 2);
	assert_int_equal(stat_count("/fail/reset/2/c.json"), 3);
	assert_int_equal(stat_count("/fail/trunc/2/d.json"), 3);
	assert_int_equal(stat_count("/always500/f.json"), 3);
	assert_int_equal(stat_count("/missing/h.json"), 1); /* 4xx: no retry */
	assert_non_null(strstr(diag_text(), "always500/f.json: HTTP 500 after 3 attempts"));
	hg_buf_release(&diags);
	assert_cache_clean(&s);
}

static void test_engine_stall_reason(void **state)
{
	(void)state;
	struct seen s = {0};
	hg_fetch_opts o = test_opts(&s);
	o.attempts = 1;
	const char *keys[] = {"fail/stall/9/s.json", "fail/reset/9/r.json"};
	fetch_keys(base_url, keys, 2, &o, &s);
	assert_int_equal(s.failed, 2);
	assert_non_null(strstr(s.log.data, "s.json: failed stalled: no data for 1 s\n"));
	assert_non_null(strstr(s.log.data, "r.json: failed connection reset\n"));
	assert_cache_clean(&s);
}

static void test_engine_concurrency(void **state)
{
	(void)state;
	struct seen s = {0};
	hg_fetch_opts o = test_opts(&s);
	o.jobs = 8;
	const char *keys[16];
	char names[16][32];
	for (int i = 0; i < 16; i++) {
		snprintf(names[i], sizeof names[i], "slow/n%02d.json", i);
		keys[i] = names[i];
	}
	fetch_keys(base_url, keys, 16, &o, &s); /* 2 rounds of 0.3 s */
	assert_int_equal(s.done, 16);
	assert_false(s.bad_data);
	long max = stat_count("max_active");
	assert_int_equal(max, 8);
	assert_cache_clean(&s);
}

/* Objects listed at most memory_max, not .gz, reach done_data from memory,
 * also after retries of a truncated body and when the listing understates
 * a size that still fits; one whose body outgrows memory_max goes to a
 * staged file after all; .gz, bigger and unsized ones are staged as
 * before.  Every byte as served, the cache left empty. */
static void test_engine_in_memory(void **state)
{
	(void)state;
	struct seen s = {0};
	hg_fetch_opts o = test_opts(&s);
	o.memory_max = 200;
	const char *keys[] = {"files/a.json", "files/b.json", "fail/trunc/2/c.json",
			      "gzfile/d.json.gz", "files/e.json", "files/f.json",
			      "files/spill-over-the-listed-size.json"}; /* 440 bytes */
	const int64_t sizes[] = {180, 50, 180, 60, -1, 5000, 100};
	fetch_sized(base_url, keys, sizes, 7, &o, &in_memory, &s);
	if (s.in_memory != 3 || s.done != 4)
		fprintf(stderr, "%s", s.log.data ? s.log.data : "");
	assert_int_equal(s.in_memory, 3); /* a, b, and c after two truncated attempts */
	assert_int_equal(s.done, 4);      /* d .gz, e unsized, f over memory_max, the spilled one */
	assert_int_equal(s.failed, 0);
	assert_false(s.bad_data);
	assert_false(s.outside);
	assert_int_equal(stat_count("/fail/trunc/2/c.json"), 3);
	assert_cache_clean(&s);
}

static void test_engine_gzip_and_cap(void **state)
{
	(void)state;
	struct seen s = {0};
	hg_fetch_opts o = test_opts(&s);
	o.max_object = 1 << 20;
	const char *keys[] = {"gzenc/a.json", "gzfile/b.json.gz", "bomb/c.json.gz"};
	fetch_keys(base_url, keys, 3, &o, &s);
	assert_int_equal(s.done, 2);
	assert_false(s.bad_data);
	assert_non_null(strstr(s.log.data, "bomb/c.json.gz: failed larger than 1048576 bytes\n"));
	assert_int_equal(stat_count("/bomb/c.json.gz"), 1); /* no retry */
	assert_cache_clean(&s);
}

static void test_engine_hostile_keys(void **state)
{
	(void)state;
	struct seen s = {0};
	hg_fetch_opts o = test_opts(&s);
	/* A sibling directory the keys try to reach. */
	char sibling[300];
	snprintf(sibling, sizeof sibling, "%s-escape", s.cache);
	const char *keys[] = {"files/../../x.json", "/etc/passwd", "files/\x01\x1b[31m.json",
			      "files/..", "files/a/../../../../tmp/y.json"};
	hg_source *src;
	hg_ctx ctx = test_ctx();
	assert_int_equal(hg_source_open(&ctx, base_url, &o, &src), 0);
	for (size_t i = 0; i < 5; i++) {
		char *p = source_staged_path(src, keys[i]);
		assert_true(strncmp(p, s.cache, strlen(s.cache)) == 0);
		assert_int_equal(strlen(p), strlen(s.cache) + 1 + 64);
		free(p);
	}
	hg_source_destroy(src);
	fetch_keys(base_url, keys, 5, &o, &s);
	assert_false(s.outside);
	assert_int_equal(s.done + s.failed, 5);
	struct stat st;
	assert_int_not_equal(stat(sibling, &st), 0);
	assert_cache_clean(&s);
}

static void test_engine_redirects_and_credentials(void **state)
{
	(void)state;
	struct seen s = {0};
	hg_fetch_opts o = test_opts(&s);
	char url[128];
	snprintf(url, sizeof url, "http://user:pass@127.0.0.1:%d/", server_port);
	const char *keys[] = {"auth/a.json", "redirect-same/b.json", "redirect-other/c.json"};
	hg_buf_release(&diags); /* starts a fresh capture */
	fetch_keys(url, keys, 3, &o, &s);
	assert_non_null(strstr(s.log.data, "auth/a.json: ok"));
	assert_non_null(strstr(s.log.data, "redirect-same/b.json: ok"));
	assert_non_null(strstr(s.log.data,
			       "redirect-other/c.json: failed refused a redirect to another host"));
	assert_int_equal(stat_count("/files/c.json"), 0);
	assert_null(strstr(diag_text(), "pass"));
	assert_null(strstr(s.log.data, "pass"));
	hg_buf_release(&diags);
	/* Without credentials the redirect to another host is followed. */
	struct seen t = {0};
	o = test_opts(&t);
	const char *other[] = {"redirect-other/c.json"};
	fetch_keys(base_url, other, 1, &o, &t);
	assert_int_equal(t.done, 1);
	assert_cache_clean(&s);
	assert_cache_clean(&t);
}

static int collect_objects(void *user, const hg_object *obj)
{
	hg_buf *b = user;
	hg_buf_printf(b, "%s|%s|%lld|%s\n", obj->key, obj->etag ? obj->etag : "-",
		      (long long)obj->size, obj->url);
	return 0;
}

/* Lists url (no fetch options) and checks the listing, one
 * collect_objects line an object, against want. */
static void assert_listing(const char *url, const char *want)
{
	hg_ctx ctx = test_ctx();
	hg_source *src;
	assert_int_equal(hg_source_open(&ctx, url, NULL, &src), 0);
	hg_buf b;
	hg_buf_init(&b);
	assert_int_equal(hg_source_list(src, collect_objects, &b), 0);
	assert_string_equal(b.data, want);
	hg_buf_release(&b);
	hg_source_destroy(src);
}

static void test_engine_http_listings(void **state)
{
	(void)state;
	const char *dirs[] = {"jdir/", "hdir/"};
	char url[128], want[512];
	for (int i = 0; i < 2; i++) {
		snprintf(url, sizeof url, "%s%s", base_url, dirs[i]);
		snprintf(want, sizeof want,
			 "a b.json|-|12|%s%sa%%20b.json\nc&d.json|-|5|%s%sc%%26d.json\n"
			 "sub/deep.json|-|7|%s%ssub/deep.json\n",
			 base_url, dirs[i], base_url, dirs[i], base_url, dirs[i]);
		assert_listing(url, want);
	}
	snprintf(url, sizeof url, "%slist.txt", base_url);
	snprintf(want, sizeof want,
		 "files/m1.json|-|-1|%sfiles/m1.json\nfiles/m2.json|-|-1|%sfiles/m2.json\n"
		 "files/m3.json|-|-1|%sfiles/m3.json\n",
		 base_url, base_url, base_url);
	assert_listing(url, want);
}

static void s3_env(const char *secret)
{
	setenv("AWS_ACCESS_KEY_ID", "AKIDTESTFETCH", 1);
	setenv("AWS_SECRET_ACCESS_KEY", secret, 1);
	setenv("AWS_SESSION_TOKEN", "SESSIONTOKENVALUE", 1);
}

static void test_engine_s3(void **state)
{
	(void)state;
	struct seen s = {0};
	hg_fetch_opts o = test_opts(&s);
	char endpoint[64];
	snprintf(endpoint, sizeof endpoint, "http://127.0.0.1:%d", server_port);
	o.endpoint = endpoint;
	s3_env("fixture/secret+key");
	hg_ctx ctx = test_ctx();
	hg_source *src;
	hg_buf_release(&diags); /* starts a fresh capture */
	assert_int_equal(hg_source_open(&ctx, "s3://bucket/", &o, &src), 0);
	hg_buf b;
	hg_buf_init(&b);
	assert_int_equal(hg_source_list(src, collect_objects, &b), 0);
	/* Three pages of two, in key order, keys decoded, ETags unquoted. */
	assert_non_null(b.data);
	assert_non_null(strstr(b.data, "a b.json|"));
	assert_non_null(strstr(b.data, "|s3://bucket/a%20b.json\n"));
	assert_non_null(strstr(b.data, "dir/x+y=z.txt|"));
	assert_non_null(strstr(b.data, "pct%41.txt|"));
	assert_non_null(strstr(b.data, "unicod\xc3\xa9/\xe6\x97\xa5\xe6\x9c\xac.json|"));
	assert_non_null(strstr(b.data, "zz.gz|"));
	assert_true(strstr(b.data, "a b.json") < strstr(b.data, "dir/") &&
		    strstr(b.data, "pct") < strstr(b.data, "unicod") &&
		    strstr(b.data, "unicod") < strstr(b.data, "zz.gz"));
	hg_buf_release(&b);
	/* Fetch them all: the signature covers the encoded keys. */
	hg_object objs[5];
	size_t n = 0;
	for (size_t i = 0; i < src->n_items; i++)
		objs[n++] = src->items[i].obj;
	assert_int_equal(n, 5);
	struct seen t = {0};
	hg_fetch_opts unused = test_opts(&t);
	(void)unused;
	const hg_fetch_callbacks cb = {on_done, on_failed, NULL, NULL, NULL};
	assert_int_equal(hg_source_fetch(src, objs, n, &cb, &t), 0);
	assert_int_equal(t.failed, 0);
	assert_int_equal(t.done, 5);
	hg_source_destroy(src);
	rmdir(t.cache);
	hg_buf_release(&t.log);

	/* A wrong secret: a clear message that does not quote it. */
	s3_env("WRONGSECRETVALUE");
	assert_int_equal(hg_source_open(&ctx, "s3://bucket/", &o, &src), 0);
	hg_buf_init(&b);
	assert_int_equal(hg_source_list(src, collect_objects, &b), HG_EIO);
	hg_buf_release(&b);
	hg_source_destroy(src);
	assert_non_null(strstr(diag_text(),
			       "s3://bucket/: 403 SignatureDoesNotMatch: the request signature does "
			       "not match (check AWS_SECRET_ACCESS_KEY)"));
	assert_null(strstr(diag_text(), "WRONGSECRET"));
	assert_null(strstr(diag_text(), "SESSIONTOKEN"));
	assert_null(strstr(diag_text(), "fixture/secret"));
	hg_buf_release(&diags);
	unsetenv("AWS_ACCESS_KEY_ID");
	unsetenv("AWS_SECRET_ACCESS_KEY");
	unsetenv("AWS_SESSION_TOKEN");
	assert_cache_clean(&s);
}

#define ENGINE_TESTS                                                   \
	cmocka_unit_test(test_engine_retries),                         \
	cmocka_unit_test(test_engine_stall_reason),                    \
	cmocka_unit_test(test_engine_concurrency),                     \
	cmocka_unit_test(test_engine_in_memory),                       \
	cmocka_unit_test(test_engine_gzip_and_cap),                    \
	cmocka_unit_test(test_engine_hostile_keys),                    \
	cmocka_unit_test(test_engine_redirects_and_credentials),       \
	cmocka_unit_test(test_engine_http_listings),                   \
	cmocka_unit_test(test_engine_s3),
