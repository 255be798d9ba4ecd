/* Unit tests for the fetch library: URL parsing, percent-encoding,
 * redaction, credentials, S3 listing XML, autoindex JSON/HTML, manifests,
 * gunzip, shard hash and the retry policy as pure functions; then the
 * transfer engine against a loopback Python server
 * (tests/unit/fetch_fixture_server.py, path in argv[1]) that injects
 * faults and checks SigV4, and listings fetched as they go on, some of
 * which never end (test_fetch_stream.h). */
#include <dirent.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "fetch/fetch_internal.h"
#include "hangar/fetch.h"

static const char *fixture_path;

/* ---- diagnostics capture: every message, to check no secret leaks ---- */

static hg_buf diags;

static void capture(void *user, const hg_diag *d)
{
	(void)user;
	hg_buf_printf(&diags, "%s: %s\n", d->source, d->message);
}

static hg_ctx test_ctx(void)
{
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.diag = capture;
	return ctx;
}

static const char *diag_text(void)
{
	return diags.data ? diags.data : "";
}

/* ---- URLs ---- */

static void test_url_parse(void **state)
{
	(void)state;
	struct fetch_url u;
	char why[256];
	assert_int_equal(url_parse_http("HTTPS://u:p@Example.COM:8443/a/b%20c?x=1#f", &u, why,
					sizeof why), 0);
	assert_string_equal(u.scheme, "https");
	assert_string_equal(u.userinfo, "u:p");
	assert_string_equal(u.host, "example.com");
	assert_string_equal(u.port, "8443");
	assert_string_equal(u.path, "/a/b%20c");
	assert_string_equal(u.query, "x=1");
	url_release(&u);
	assert_int_equal(url_parse_http("http://[::1]:80", &u, why, sizeof why), 0);
	assert_string_equal(u.host, "[::1]");
	assert_string_equal(u.path, "/");
	url_release(&u);
	const char *bad[] = {"ftp://x/", "http://", "http:///p", "http://h:99999/", "http://h:x/",
			     "http://a b/", "file:///etc/passwd", "http://[::1/"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		why[0] = '\0';
		assert_int_equal(url_parse_http(bad[i], &u, why, sizeof why), HG_EINVAL);
		assert_true(why[0] != '\0');
	}
	char *b, *p;
	assert_int_equal(url_parse_s3("s3://my-bucket.logs/hangs/2026/", &b, &p, why, sizeof why), 0);
	assert_string_equal(b, "my-bucket.logs");
	assert_string_equal(p, "hangs/2026/");
	free(b);
	free(p);
	assert_int_equal(url_parse_s3("s3://bkt", &b, &p, why, sizeof why), 0);
	assert_string_equal(p, "");
	free(b);
	free(p);
	const char *bad_s3[] = {"s3://", "s3:///x", "s3://UPPER/x", "s3://ab/", "s3://-bad/",
				"s3://b_b_b/", "s3://bkt/x?y=1", "gs://bkt/"};
	for (size_t i = 0; i < sizeof bad_s3 / sizeof bad_s3[0]; i++)
		assert_int_equal(url_parse_s3(bad_s3[i], &b, &p, why, sizeof why), HG_EINVAL);
	/* hg_source_open says what is wrong, naming the (redacted) URL. */
	hg_buf_release(&diags); /* starts a fresh capture */
	hg_ctx ctx = test_ctx();
	hg_source *src;
	assert_int_equal(hg_source_open(&ctx, "s3://Bad_Bucket/x", NULL, &src), HG_EINVAL);
	assert_non_null(strstr(diag_text(), "s3://Bad_Bucket/x: 'Bad_Bucket' is not a valid bucket"));
	assert_int_equal(hg_source_open(&ctx, "reports/", NULL, &src), HG_EINVAL);
	assert_non_null(strstr(diag_text(), "expected s3://bucket/prefix/ or an http(s):// URL"));
	hg_buf_release(&diags);
}

static void test_percent_encoding(void **state)
{
	(void)state;
	const char *keys[] = {"a b+c%d=e/\xc3\xa9\xe6\x97\xa5.json", "~-._", "x?y#z&w", "\x01\x7f",
			      "100%", "a//b/"};
	const char *want[] = {"a%20b%2Bc%25d%3De/%C3%A9%E6%97%A5.json", "~-._", "x%3Fy%23z%26w",
			      "%01%7F", "100%25", "a//b/"};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		hg_buf b;
		hg_buf_init(&b);
		url_encode(&b, keys[i], strlen(keys[i]), true);
		assert_string_equal(b.data, want[i]);
		char *back;
		assert_int_equal(url_decode(b.data, b.len, &back), 0);
		assert_string_equal(back, keys[i]);
		free(back);
		hg_buf_release(&b);
	}
	hg_buf b;
	hg_buf_init(&b);
	url_encode(&b, "a/b", 3, false);
	assert_string_equal(b.data, "a%2Fb");
	hg_buf_release(&b);
	char *out;
	assert_int_equal(url_decode("%4", 2, &out), HG_EPARSE);
	assert_int_equal(url_decode("%zz", 3, &out), HG_EPARSE);
	assert_int_equal(url_decode("a%00b", 5, &out), HG_EPARSE);
	assert_int_equal(url_decode("%e6%97%A5", 9, &out), 0);
	assert_string_equal(out, "\xe6\x97\xa5");
	free(out);
}

static void test_redaction(void **state)
{
	(void)state;
	const char *cases[][2] = {
		{"https://user:hunter2@host/p?a=1", "https://host/p?a=1"},
		{"https://h/o?X-Amz-Algorithm=AWS4&X-Amz-Credential=AKIASECRET%2F2026&X-Amz-Signature=deadbeef"
		 "&X-Amz-Security-Token=TOKENSECRET",
		 "https://h/o?X-Amz-Algorithm=AWS4&X-Amz-Credential=REDACTED&X-Amz-Signature=REDACTED"
		 "&X-Amz-Security-Token=REDACTED"},
		{"http://h/?token=t0k&sig=s1g&signature=s2g&key=k3y&keep=yes#frag",
		 "http://h/?token=REDACTED&sig=REDACTED&signature=REDACTED&key=REDACTED&keep=yes"},
		{"http://a:b@c@h:81/x", "http://h:81/x"},
		{"s3://bucket/prefix/", "s3://bucket/prefix/"},
		{"http://h/p?TOKEN=x&&y", "http://h/p?TOKEN=REDACTED&&y"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *r = hg_redact_url(cases[i][0]);
		assert_non_null(r);
		assert_string_equal(r, cases[i][1]);
		const char *secrets[] = {"hunter2", "AKIASECRET", "deadbeef", "TOKENSECRET", "t0k",
					 "s1g", "s2g", "k3y", "frag", "a:b"};
		for (size_t k = 0; k < sizeof secrets / sizeof secrets[0]; k++)
			assert_null(strstr(r, secrets[k]));
		free(r);
	}
}

/* ---- credentials ---- */

static char *write_temp(const char *text)
{
	char *path = strdup("/tmp/hangar-test-creds-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static void test_credentials(void **state)
{
	(void)state;
	const char *ini = "# comment\n[default]\naws_access_key_id = AKIDDEF\n"
			  "aws_secret_access_key=secretdef\n\n[work]\n  aws_access_key_id=AKIDWORK\n"
			  "aws_secret_access_key = secret work\naws_session_token = tok\nregion=eu\n";
	struct fetch_creds c;
	char why[512];
	assert_int_equal(creds_parse_ini(ini, strlen(ini), "default", "f", &c, why, sizeof why), 0);
	assert_string_equal(c.key_id, "AKIDDEF");
	assert_string_equal(c.secret, "secretdef");
	assert_null(c.token);
	creds_release(&c);
	assert_int_equal(creds_parse_ini(ini, strlen(ini), "work", "f", &c, why, sizeof why), 0);
	assert_string_equal(c.secret, "secret work");
	assert_string_equal(c.token, "tok");
	creds_release(&c);
	assert_int_equal(creds_parse_ini(ini, strlen(ini), "none", "f", &c, why, sizeof why), 0);
	assert_null(c.key_id);
	const char *bad = "[default]\naws_access_key_id=A\nthis line holds SECRETVALUE\n";
	assert_int_equal(creds_parse_ini(bad, strlen(bad), "default", "/h/.aws/credentials", &c,
					 why, sizeof why), HG_EPARSE);
	assert_non_null(strstr(why, "/h/.aws/credentials:3: error:"));
	assert_null(strstr(why, "SECRETVALUE"));
	const char *half = "[default]\naws_access_key_id=A\n";
	assert_int_equal(creds_parse_ini(half, strlen(half), "default", "f", &c, why, sizeof why),
			 HG_EPARSE);
	assert_non_null(strstr(why, "has aws_access_key_id but not aws_secret_access_key"));

	/* Environment first, then the file named by AWS_SHARED_CREDENTIALS_FILE. */
	char *path = write_temp(ini);
	setenv("AWS_SHARED_CREDENTIALS_FILE", path, 1);
	setenv("AWS_ACCESS_KEY_ID", "AKIDENV", 1);
	setenv("AWS_SECRET_ACCESS_KEY", "secretenv", 1);
	setenv("AWS_SESSION_TOKEN", "tokenv", 1);
	assert_int_equal(creds_load(&c, why, sizeof why), 0);
	assert_string_equal(c.key_id, "AKIDENV");
	assert_string_equal(c.token, "tokenv");
	creds_release(&c);
	unsetenv("AWS_ACCESS_KEY_ID");
	unsetenv("AWS_SECRET_ACCESS_KEY");
	unsetenv("AWS_SESSION_TOKEN");
	setenv("AWS_PROFILE", "work", 1);
	assert_int_equal(creds_load(&c, why, sizeof why), 0);
	assert_string_equal(c.key_id, "AKIDWORK");
	creds_release(&c);
	unsetenv("AWS_PROFILE");
	assert_int_equal(creds_load(&c, why, sizeof why), 0);
	assert_string_equal(c.key_id, "AKIDDEF");
	creds_release(&c);
	unlink(path);
	free(path);
	path = write_temp(bad);
	setenv("AWS_SHARED_CREDENTIALS_FILE", path, 1);
	assert_int_equal(creds_load(&c, why, sizeof why), HG_EPARSE);
	assert_non_null(strstr(why, ":3: error:"));
	unlink(path);
	/* No file: anonymous. */
	assert_int_equal(creds_load(&c, why, sizeof why), 0);
	assert_null(c.key_id);
	free(path);
	unsetenv("AWS_SHARED_CREDENTIALS_FILE");
}

/* ---- S3 XML ---- */

struct entries {
	int n;
	char keys[8][64];
	int64_t sizes[8];
	char etags[8][64];
};

static int collect_s3(void *user, const char *key, const char *etag, int64_t size,
		      const char *modified)
{
	struct entries *e = user;
	(void)modified;
	if (e->n < 8) {
		snprintf(e->keys[e->n], 64, "%s", key);
		snprintf(e->etags[e->n], 64, "%s", etag ? etag : "");
		e->sizes[e->n] = size;
	}
	e->n++;
	return 0;
}

static void test_s3_xml(void **state)
{
	(void)state;
	const char *page1 =
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>b</Name>"
		"<Prefix>r/</Prefix><KeyCount>3</KeyCount><MaxKeys>3</MaxKeys><IsTruncated>true</IsTruncated>"
		"<Contents><Key>r/a b&amp;c.json</Key><LastModified>2026-11-29T20:49:58.000Z</LastModified>"
		"<ETag>&quot;9b2cf535f27731c974343645a3985328&quot;</ETag><Size>9223372036854775807</Size>"
		"<StorageClass>STANDARD</StorageClass></Contents>"
		"<Contents><Key>r/&#x65E5;&#26412;.json</Key><ETag>\"e1-2\"</ETag><Size>0</Size></Contents>"
		"<Contents><Key>r/x+y=z%20</Key><Size>12</Size></Contents>"
		"<NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>"
		"</ListBucketResult>";
	struct entries e = {0};
	struct s3_page page;
	char why[256];
	assert_int_equal(s3_list_parse(page1, strlen(page1), collect_s3, &e, &page, why, sizeof why),
			 0);
	assert_int_equal(e.n, 3);
	assert_string_equal(e.keys[0], "r/a b&c.json");
	assert_string_equal(e.etags[0], "9b2cf535f27731c974343645a3985328");
	assert_true(e.sizes[0] == INT64_MAX);
	assert_string_equal(e.keys[1], "r/\xe6\x97\xa5\xe6\x9c\xac.json");
	assert_string_equal(e.etags[1], "e1-2");
	assert_string_equal(e.keys[2], "r/x+y=z%20");
	assert_true(page.truncated);
	assert_string_equal(page.next_token, "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=");
	s3_page_release(&page);

	/* Keys URL-encoded by the server (we ask with encoding-type=url), told
	 * after the keys as well as before: '+' a space, %2B a plus, %01 a
	 * control byte XML could not carry; a bad escape fails the page. */
	const char *encoded[] = {
		"<ListBucketResult><EncodingType>url</EncodingType><IsTruncated>false</IsTruncated>"
		"<Contents><Key>r/a+b%2Bc%01.json</Key><Size>1</Size></Contents></ListBucketResult>",
		"<ListBucketResult><IsTruncated>false</IsTruncated>"
		"<Contents><Key>r/a+b%2Bc%01.json</Key><Size>1</Size></Contents>"
		"<EncodingType>url</EncodingType></ListBucketResult>",
	};
	for (int i = 0; i < 2; i++) {
		memset(&e, 0, sizeof e);
		assert_int_equal(s3_list_parse(encoded[i], strlen(encoded[i]), collect_s3, &e, &page,
					       why, sizeof why), 0);
		assert_int_equal(e.n, 1);
		assert_string_equal(e.keys[0], "r/a b+c\x01.json");
		s3_page_release(&page);
	}
	const char *bad_escape = "<ListBucketResult><EncodingType>url</EncodingType>"
				 "<Contents><Key>r/%zz</Key></Contents></ListBucketResult>";
	memset(&e, 0, sizeof e);
	assert_int_equal(s3_list_parse(bad_escape, strlen(bad_escape), collect_s3, &e, &page, why,
				       sizeof why), HG_EPARSE);
	assert_int_equal(e.n, 0);

	const char *last = "<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>";
	assert_int_equal(s3_list_parse(last, strlen(last), collect_s3, &e, &page, why, sizeof why), 0);
	assert_false(page.truncated);
	assert_null(page.next_token);
	s3_page_release(&page);

	const char *err = "<?xml version=\"1.0\"?><Error><Code>SignatureDoesNotMatch</Code>"
			  "<Message>The request signature we calculated does not match</Message></Error>";
	assert_int_equal(s3_list_parse(err, strlen(err), collect_s3, &e, &page, why, sizeof why), 0);
	assert_string_equal(page.error_code, "SignatureDoesNotMatch");
	char msg[256];
	s3_describe_error(403, page.error_code, page.error_message, "b", msg, sizeof msg);
	assert_string_equal(msg, "403 SignatureDoesNotMatch: the request signature does not match "
				 "(check AWS_SECRET_ACCESS_KEY)");
	s3_page_release(&page);
	s3_describe_error(404, "NoSuchBucket", "x", "nob", msg, sizeof msg);
	assert_string_equal(msg, "404 NoSuchBucket: bucket 'nob' does not exist");
	s3_describe_error(403, "InvalidAccessKeyId", "x", "b", msg, sizeof msg);
	assert_non_null(strstr(msg, "AWS_ACCESS_KEY_ID"));

	const char *bad[] = {
		"",
		"not xml",
		"<ListBucketResult><Contents><Key>a</Key>",                /* truncated */
		"<ListBucketResult><Contents><Size>1</Size></Contents></ListBucketResult>",
		"<ListBucketResult><Contents><Key>a</Key><Size>9223372036854775808</Size></Contents></ListBucketResult>",
		"<ListBucketResult><Contents><Key>a</Key><Size>-1</Size></Contents></ListBucketResult>",
		"<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>",
		"<!DOCTYPE x [<!ENTITY a \"aaaa\">]><ListBucketResult><Contents><Key>&a;</Key></Contents></ListBucketResult>",
		"<Html><Body>proxy error</Body></Html>",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		why[0] = '\0';
		assert_int_equal(s3_list_parse(bad[i], strlen(bad[i]), collect_s3, &e, &page, why,
					       sizeof why), HG_EPARSE);
		assert_true(why[0] != '\0');
	}
	/* An overlong key is an error, not an overflow. */
	hg_buf big;
	hg_buf_init(&big);
	hg_buf_puts(&big, "<ListBucketResult><Contents><Key>");
	for (int i = 0; i < 5000; i++)
		hg_buf_putc(&big, 'k');
	hg_buf_puts(&big, "</Key></Contents></ListBucketResult>");
	assert_int_equal(s3_list_parse(big.data, big.len, collect_s3, &e, &page, why, sizeof why),
			 HG_EPARSE);
	hg_buf_release(&big);
}

/* ---- autoindex and manifests ---- */

struct names {
	int n;
	char text[512];
};

static int collect_names(void *user, const char *name, bool is_dir, int64_t size,
			 const char *mtime)
{
	struct names *n = user;
	size_t len = strlen(n->text);
	snprintf(n->text + len, sizeof n->text - len, "%s%s|%lld|%s\n", name, is_dir ? "/" : "",
		 (long long)size, mtime ? mtime : "-");
	n->n++;
	return 0;
}

static void test_autoindex(void **state)
{
	(void)state;
	const char *json = "[\n{ \"name\":\"sub\", \"type\":\"directory\", \"mtime\":\"Sat, 29 Nov 2026 20:49:58 GMT\" },\n"
			   "{ \"name\":\"a b.json\", \"type\":\"file\", \"mtime\":\"Sat, 29 Nov 2026 20:49:58 GMT\", \"size\":12 },\n"
			   "{ \"name\":\"..\", \"type\":\"directory\" },{ \"name\":\"x/y\", \"type\":\"file\" },"
			   "{ \"name\":\"sock\", \"type\":\"other\" },"
			   "{ \"name\":\"big\", \"type\":\"file\", \"size\":9223372036854775807 }\n]";
	struct names n = {0};
	char why[256];
	assert_int_equal(http_listing_parse(json, strlen(json), collect_names, &n, why, sizeof why), 0);
	assert_string_equal(n.text, "sub/|-1|Sat, 29 Nov 2026 20:49:58 GMT\n"
				    "a b.json|12|Sat, 29 Nov 2026 20:49:58 GMT\n"
				    "big|9223372036854775807|-\n");
	const char *html =
		"<html>\r\n<head><title>Index of /r/</title></head>\r\n<body>\r\n<h1>Index of /r/</h1><hr><pre>"
		"<a href=\"../\">../</a>\r\n"
		"<a href=\"sub/\">sub/</a>                                               29-Nov-2026 20:49                   -\r\n"
		"<a href=\"a%20b.json\">a b.json</a>                                          29-Nov-2026 20:49                  12\r\n"
		"<a href=\"c&amp;d%2B.json\">c&amp;d+.json</a>  29-Nov-2026 20:49   5\r\n"
		"<a href=\"?C=N;O=D\">Name</a> <a href=\"/abs\">x</a> <a href=\"http://evil/\">y</a>\r\n"
		"<a href=\"%2e%2e/\">..</a>\r\n"
		"</pre><hr></body>\r\n</html>\r\n";
	memset(&n, 0, sizeof n);
	assert_int_equal(http_listing_parse(html, strlen(html), collect_names, &n, why, sizeof why), 0);
	assert_string_equal(n.text, "sub/|-1|29-Nov-2026 20:49\n"
				    "a b.json|12|29-Nov-2026 20:49\n"
				    "c&d+.json|5|29-Nov-2026 20:49\n");
	assert_int_equal(http_listing_parse("[1,", 3, collect_names, &n, why, sizeof why), HG_EPARSE);
	assert_int_equal(http_listing_parse("{}", 2, collect_names, &n, why, sizeof why), HG_EPARSE);
	assert_int_equal(http_listing_parse("plain", 5, collect_names, &n, why, sizeof why), HG_EPARSE);
}

static int collect_lines(void *user, long line, const char *url)
{
	struct names *n = user;
	size_t len = strlen(n->text);
	snprintf(n->text + len, sizeof n->text - len, "%ld:%s\n", line, url ? url : "(long)");
	return 0;
}

static void test_manifest(void **state)
{
	(void)state;
	const char *m = "# reports\n\n  a.json  \r\nhttps://h/x.json\n#x\n/abs.json";
	struct names n = {0};
	assert_int_equal(manifest_parse(m, strlen(m), collect_lines, &n), 0);
	assert_string_equal(n.text, "3:a.json\n4:https://h/x.json\n6:/abs.json\n");
	char why[128];
	char *r = url_resolve("http://u:p@h:8/d/list.txt", "a%20b.json", why, sizeof why);
	assert_string_equal(r, "http://u:p@h:8/d/a%20b.json");
	free(r);
	r = url_resolve("http://h/d/list.txt", "/root.json", why, sizeof why);
	assert_string_equal(r, "http://h/root.json");
	free(r);
	r = url_resolve("http://h/d/list.txt", "https://o/x", why, sizeof why);
	assert_string_equal(r, "https://o/x");
	free(r);
	assert_null(url_resolve("http://h/d/list.txt", "ftp://o/x", why, sizeof why));
	assert_null(url_resolve("http://h/d/list.txt", "a b", why, sizeof why));
}

/* ---- gunzip ---- */

static size_t gz(const char *text, size_t len, unsigned char *out, size_t cap)
{
	z_stream z = {0};
	assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = (unsigned char *)text;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	size_t n = cap - z.avail_out;
	deflateEnd(&z);
	return n;
}

static int sink_all(const void *data, size_t len, int64_t cap, bool maybe, char *out,
		    size_t out_size, int64_t *written)
{
	FILE *f = fmemopen(out, out_size, "w");
	struct gunzip *g = gunzip_create(f, cap, maybe);
	int rc = 0;
	/* In small pieces, as curl hands them. */
	for (size_t i = 0; i < len && rc == 0; i += 7)
		rc = gunzip_write(g, (const char *)data + i, len - i < 7 ? len - i : 7);
	if (rc == 0)
		rc = gunzip_finish(g);
	*written = gunzip_written(g);
	gunzip_destroy(g);
	fclose(f);
	return rc;
}

static void test_gunzip(void **state)
{
	(void)state;
	const char *text = "{\"hang\": 1}\n{\"hang\": 2}\n";
	unsigned char z[256];
	size_t zn = gz(text, strlen(text), z, sizeof z);
	char out[256] = {0};
	int64_t w;
	assert_int_equal(sink_all(z, zn, 1000, true, out, sizeof out, &w), GZ_OK);
	assert_int_equal(w, (int64_t)strlen(text));
	assert_memory_equal(out, text, strlen(text));
	/* Two members, as cat a.gz b.gz writes. */
	unsigned char two[512];
	memcpy(two, z, zn);
	memcpy(two + zn, z, zn);
	assert_int_equal(sink_all(two, 2 * zn, 1000, true, out, sizeof out, &w), GZ_OK);
	assert_int_equal(w, 2 * (int64_t)strlen(text));
	/* Not gzip after all: passed through; not .gz: never inflated. */
	assert_int_equal(sink_all(text, strlen(text), 1000, true, out, sizeof out, &w), GZ_OK);
	assert_int_equal(w, (int64_t)strlen(text));
	assert_int_equal(sink_all(z, zn, 1000, false, out, sizeof out, &w), GZ_OK);
	assert_int_equal(w, (int64_t)zn);
	assert_int_equal(sink_all("x", 1, 1000, true, out, sizeof out, &w), GZ_OK);
	assert_int_equal(w, 1);
	/* Truncated, corrupt. */
	assert_int_equal(sink_all(z, zn - 5, 1000, true, out, sizeof out, &w), GZ_BAD);
	unsigned char bad[256];
	memcpy(bad, z, zn);
	bad[12] ^= 0xff;
	bad[13] ^= 0xff;
	assert_int_equal(sink_all(bad, zn, 1000, true, out, sizeof out, &w), GZ_BAD);
	/* A bomb stops at the cap, having written no more than it. */
	size_t big = 4 << 20;
	char *zeros = calloc(1, big);
	unsigned char *bomb = malloc(big);
	size_t bn = gz(zeros, big, bomb, big);
	assert_true(bn < 10000);
	char *sink = malloc(big);
	assert_int_equal(sink_all(bomb, bn, 65536, true, sink, big, &w), GZ_TOO_LARGE);
	assert_true(w <= 65536);
	/* The cap counts plain bodies too, exactly. */
	assert_int_equal(sink_all(zeros, 100, 100, true, sink, big, &w), GZ_OK);
	assert_int_equal(sink_all(zeros, 101, 100, true, sink, big, &w), GZ_TOO_LARGE);
	free(zeros);
	free(bomb);
	free(sink);
}

/* ---- shards ---- */

static void test_shard(void **state)
{
	(void)state;
	/* Computed independently:
	 * python3 -c 'import hashlib; print(int.from_bytes(hashlib.sha256(k.encode()).digest()[:8], "big") % n)' */
	assert_int_equal(hg_shard_of("", 1000), 652);  /* 0xe3b0c44298fc1c14 */
	assert_int_equal(hg_shard_of("a", 1000), 250); /* 0xca978112ca1bbdca */
	assert_int_equal(hg_shard_of("a", 7), 4);
	assert_int_equal(hg_shard_of("reports/2026/11/29/anr-1.json", 1000), 912);
	assert_int_equal(hg_shard_of("reports/2026/11/29/anr-1.json", 3), 2);
	assert_int_equal(hg_shard_of("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac.json", 1000), 716);
	assert_int_equal(hg_shard_of("anything", 0), 0);
	assert_int_equal(hg_shard_of("anything", 1), 0);
	/* Shards partition the keys, and none is empty for many keys. */
	int count[5] = {0};
	for (int i = 0; i < 1000; i++) {
		char key[32];
		snprintf(key, sizeof key, "k/%d.json", i);
		uint32_t s = hg_shard_of(key, 5);
		assert_true(s < 5);
		count[s]++;
	}
	for (int s = 0; s < 5; s++)
		assert_true(count[s] > 150 && count[s] < 250);
}

/* ---- retry policy ---- */

static void test_retry_policy(void **state)
{
	(void)state;
	struct fetch_result r = {.retry_after = -1};
	const struct {
		enum fetch_outcome o;
		long status;
		bool retry;
	} table[] = {
		{FO_HTTP, 500, true},  {FO_HTTP, 503, true},	{FO_HTTP, 429, true},
		{FO_HTTP, 404, false}, {FO_HTTP, 403, false},	{FO_HTTP, 400, false},
		{FO_CONNECT, 0, true}, {FO_RESET, 0, true},	{FO_TIMEOUT, 0, true},
		{FO_STALL, 0, true},   {FO_PARTIAL, 0, true},	{FO_TOO_LARGE, 0, false},
		{FO_TLS, 0, false},    {FO_BAD_BODY, 0, false}, {FO_REDIRECT, 0, false},
		{FO_LOCAL, 0, false},
	};
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
		r.outcome = table[i].o;
		r.status = table[i].status;
		assert_int_equal(fetch_should_retry(&r), table[i].retry);
	}
	r.outcome = FO_HTTP;
	r.status = 503;
	for (int attempt = 1; attempt <= 12; attempt++) {
		long base = 500L << (attempt - 1);
		for (uint64_t k = 0; k < 200; k++) {
			uint64_t rnd = k * 0x9E3779B97F4A7C15u;
			long d = fetch_retry_delay_ms(&r, attempt, 500, rnd);
			long lo = base / 2 > HG_FETCH_MAX_BACKOFF_MS ? HG_FETCH_MAX_BACKOFF_MS : base / 2;
			assert_true(d >= lo);
			assert_true(d <= base * 3 / 2 && d <= HG_FETCH_MAX_BACKOFF_MS);
		}
	}
	assert_int_equal(fetch_retry_delay_ms(&r, 1, 500, 0), 250);
	assert_true(fetch_retry_delay_ms(&r, 1, 500, UINT64_MAX) >= 749); /* 500 x 1.4999.. */
	assert_true(fetch_retry_delay_ms(&r, 1, 500, UINT64_MAX) <= 750);
	r.retry_after = 7;
	assert_int_equal(fetch_retry_delay_ms(&r, 1, 500, 12345), 7000);
	r.retry_after = 3600;
	assert_int_equal(fetch_retry_delay_ms(&r, 1, 500, 12345), 60000);
	assert_int_equal(fetch_parse_retry_after(" 120\r\n", 6), 120);
	assert_int_equal(fetch_parse_retry_after("0", 1), 0);
	assert_int_equal(fetch_parse_retry_after(" Wed, 21 Oct 2026 07:28:00 GMT", 30), -1);
	assert_int_equal(fetch_parse_retry_after("12abc", 5), -1);
	char why[128];
	r = (struct fetch_result){.outcome = FO_HTTP, .status = 503, .retry_after = -1};
	fetch_describe(&r, 5, 30000, 100, why, sizeof why);
	assert_string_equal(why, "HTTP 503 after 5 attempts");
	r.outcome = FO_RESET;
	fetch_describe(&r, 5, 30000, 100, why, sizeof why);
	assert_string_equal(why, "connection reset after 5 attempts");
	r.outcome = FO_STALL;
	fetch_describe(&r, 1, 30000, 100, why, sizeof why);
	assert_string_equal(why, "stalled: no data for 30 s");
	r.outcome = FO_TOO_LARGE;
	fetch_describe(&r, 1, 30000, 1024, why, sizeof why);
	assert_string_equal(why, "larger than 1024 bytes");
}

static void test_redirect_rule(void **state)
{
	(void)state;
	char why[256];
	assert_int_equal(url_redirect_allowed("http://u:p@h/a", "http://h/b", true, why, sizeof why), 0);
	assert_int_equal(url_redirect_allowed("http://u:p@h/a", "http://h:80/b", true, why, sizeof why), 0);
	assert_int_equal(url_redirect_allowed("http://u:p@h/a", "http://o/b", true, why, sizeof why),
			 HG_EINVAL);
	assert_non_null(strstr(why, "another host"));
	assert_int_equal(url_redirect_allowed("http://u:p@h/a", "https://h/b", true, why, sizeof why),
			 HG_EINVAL);
	assert_int_equal(url_redirect_allowed("http://h/a", "http://o/b", false, why, sizeof why), 0);
	assert_int_equal(url_redirect_allowed("http://h/a", "file:///etc/passwd", false, why,
					      sizeof why), HG_EINVAL);
}

#include "test_fetch_engine.h"
#include "test_fetch_stream.h"

int main(int argc, char **argv)
{
	fixture_path = argc > 1 ? argv[1] : NULL;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_url_parse),
		cmocka_unit_test(test_percent_encoding),
		cmocka_unit_test(test_redaction),
		cmocka_unit_test(test_credentials),
		cmocka_unit_test(test_s3_xml),
		cmocka_unit_test(test_autoindex),
		cmocka_unit_test(test_manifest),
		cmocka_unit_test(test_gunzip),
		cmocka_unit_test(test_shard),
		cmocka_unit_test(test_retry_policy),
		cmocka_unit_test(test_redirect_rule),
		ENGINE_TESTS
		STREAM_TESTS
	};
	return cmocka_run_group_tests(tests, engine_setup, engine_teardown);
}
