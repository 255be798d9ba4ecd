/* libFuzzer target: the listing parsers of the fetch library.
 *
 * The same bytes go to the S3 ListObjectsV2 / <Error> parser (expat), the
 * autoindex parser (JSON or HTML, chosen by the first byte as for a real
 * response) and the manifest reader, and every manifest line is resolved
 * against a base URL and redacted.  Invariants: keys and names are
 * non-empty C strings, names are single path segments, sizes are -1 or
 * non-negative, a truncated page has a token, errors come with a reason. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fetch/fetch_internal.h"

static const char fuzz_target[] = "fuzz_listing";
#include "fuzz_fixture.h"

static int on_s3(void *user, const char *key, const char *etag, int64_t size,
		 const char *modified)
{
	(void)user;
	require(key != NULL && strlen(key) <= 4096, "an S3 key is a bounded string");
	require(etag == NULL || strlen(etag) <= 4096, "an ETag is a bounded string");
	require(modified == NULL || strlen(modified) < 64, "LastModified is short");
	require(size >= -1, "a size is -1 or a byte count");
	return 0;
}

static int on_entry(void *user, const char *name, bool is_dir, int64_t size, const char *mtime)
{
	(void)user, (void)is_dir;
	require(name[0] != '\0' && !strchr(name, '/'), "a name is one path segment");
	require(strcmp(name, ".") != 0 && strcmp(name, "..") != 0, "a name is not . or ..");
	require(size >= -1, "a size is -1 or a byte count");
	require(mtime == NULL || strlen(mtime) < 64, "a date column is short");
	return 0;
}

static int on_line(void *user, long line, const char *url)
{
	(void)user;
	require(line >= 1, "manifest lines count from 1");
	if (!url)
		return 0;
	char why[256];
	char *abs = url_resolve("http://u:p@host.example:8080/dir/list.txt", url, why, sizeof why);
	if (abs) {
		char *shown = hg_redact_url(abs);
		require(shown != NULL, "redaction of a resolved URL");
		const char *auth = strstr(shown, "://");
		require(auth != NULL, "a resolved URL keeps its scheme");
		size_t n = strcspn(auth + 3, "/?#");
		require(memchr(auth + 3, '@', n) == NULL, "redaction removes the userinfo");
		free(shown);
		free(abs);
	} else {
		require(why[0] != '\0', "a refused manifest line has a reason");
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The parsers take NUL-terminated text, as fetch_get's buffer is. */
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	char why[256] = "";
	struct s3_page page;
	int rc = s3_list_parse(text, size, on_s3, NULL, &page, why, sizeof why);
	require(rc == 0 || rc == HG_EPARSE || rc == HG_ENOMEM, "S3 parse result");
	if (rc == 0) {
		require(!page.truncated || page.next_token != NULL, "a truncated page has a token");
		s3_page_release(&page);
	} else if (rc == HG_EPARSE) {
		require(why[0] != '\0', "an S3 parse error has a reason");
	}
	why[0] = '\0';
	rc = http_listing_parse(text, size, on_entry, NULL, why, sizeof why);
	require(rc == 0 || rc == HG_EPARSE || rc == HG_ENOMEM, "listing parse result");
	if (rc == HG_EPARSE)
		require(why[0] != '\0', "a listing parse error has a reason");
	rc = manifest_parse(text, size, on_line, NULL);
	require(rc == 0, "manifests always parse");
	char *r = hg_redact_url(text);
	free(r);
	free(text);
	return 0;
}
