/* Directory listings of plain web servers, and manifests.
 *
 * nginx's autoindex writes either JSON
 *   [{ "name":"a b.json", "type":"file", "mtime":"Sat, 29 Nov 2026 20:49:58 GMT", "size":12 }]
 * (names raw) or HTML, one entry a line:
 *   <a href="a%20b.json">a b.json</a>          29-Nov-2026 20:49      12
 * (hrefs percent-encoded and HTML-escaped).  Only entries naming a direct
 * child are taken: hrefs with a scheme, a leading '/', a query ("?C=N;O=D"
 * sort links of Apache) or "../" are navigation, not content. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fetch_internal.h"
#include "json/json.h"

#define MAX_NAME 4096

/* A name the caller may join to a directory URL: one segment, not . or .. */
static bool child_name_ok(const char *s)
{
	return s[0] && strcmp(s, ".") != 0 && strcmp(s, "..") != 0 && !strchr(s, '/');
}

static int parse_json(const char *body, size_t len, http_entry_fn fn, void *user, char *why,
		      size_t why_size)
{
	hg_json_doc *doc = NULL;
	size_t end = 0;
	int rc = hg_json_parse(body, len, &doc, &end);
	if (rc) {
		if (rc == HG_EPARSE)
			snprintf(why, why_size, "autoindex JSON: syntax error at byte %zu", end);
		return rc;
	}
	const hg_json *root = hg_json_root(doc);
	if (hg_json_type(root) != HG_JSON_ARRAY) {
		hg_json_doc_destroy(doc);
		snprintf(why, why_size, "autoindex JSON: expected an array");
		return HG_EPARSE;
	}
	for (const hg_json *e = hg_json_first(root); e && rc == 0; e = hg_json_next(e)) {
		const char *name = hg_json_string(hg_json_get(e, "name"));
		const char *type = hg_json_string(hg_json_get(e, "type"));
		if (!name || !type || !child_name_ok(name) || strlen(name) > MAX_NAME)
			continue;
		bool dir = strcmp(type, "directory") == 0;
		if (!dir && strcmp(type, "file") != 0)
			continue; /* "other": sockets, devices */
		int64_t size = -1;
		const hg_json *sz = hg_json_get(e, "size");
		if (sz && (hg_json_int64(doc, sz, &size) != 0 || size < 0))
			size = -1;
		/* A date, not a place to smuggle megabytes into every object. */
		const char *mtime = hg_json_string(hg_json_get(e, "mtime"));
		if (mtime && strlen(mtime) >= 64)
			mtime = NULL;
		rc = fn(user, name, dir, size, mtime);
	}
	hg_json_doc_destroy(doc);
	return rc;
}

/* Decodes the HTML entities nginx and Apache put in hrefs. */
static size_t unescape_html(const char *s, size_t n, char *out)
{
	static const struct {
		const char *ent;
		char c;
	} ents[] = {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&#39;", '\''}};
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		size_t k = 0;
		for (; k < sizeof ents / sizeof ents[0]; k++) {
			size_t el = strlen(ents[k].ent);
			if (n - i >= el && memcmp(s + i, ents[k].ent, el) == 0) {
				out[o++] = ents[k].c;
				i += el;
				break;
			}
		}
		if (k == sizeof ents / sizeof ents[0])
			out[o++] = s[i++];
	}
	return o;
}

/* The text after </a> up to the end of the line: "29-Nov-2026 20:49   12"
 * gives mtime "29-Nov-2026 20:49" and size 12 ("-" for directories). */
static void columns(const char *s, size_t n, char *mtime, size_t mtime_size, int64_t *size)
{
	*size = -1;
	mtime[0] = '\0';
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	size_t last = n;
	while (last && !isspace((unsigned char)s[last - 1]))
		last--;
	bool digits = last < n;
	int64_t v = 0;
	for (size_t i = last; i < n && digits; i++) {
		if (!isdigit((unsigned char)s[i]) || v > (INT64_MAX - 9) / 10)
			digits = false;
		else
			v = v * 10 + (s[i] - '0');
	}
	if (digits)
		*size = v;
	if (digits || (n - last == 1 && s[last] == '-'))
		n = last;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	size_t start = 0;
	while (start < n && isspace((unsigned char)s[start]))
		start++;
	if (n > start && n - start < mtime_size && memchr(s + start, '<', n - start) == NULL) {
		memcpy(mtime, s + start, n - start);
		mtime[n - start] = '\0';
	}
}

static int html_entry(const char *href, size_t href_len, const char *after, size_t after_len,
		      http_entry_fn fn, void *user)
{
	if (href_len == 0 || href_len > MAX_NAME || href[0] == '/' || href[0] == '?' ||
	    href[0] == '#' || memchr(href, ':', href_len) || memchr(href, '?', href_len))
		return 0;
	char raw[MAX_NAME + 1];
	size_t n = unescape_html(href, href_len, raw);
	bool dir = raw[n - 1] == '/';
	if (dir)
		n--;
	char *name = NULL;
	if (url_decode(raw, n, &name) != 0)
		return 0; /* a bad escape: not a link we can name */
	int rc = 0;
	if (child_name_ok(name)) {
		char mtime[64];
		int64_t size;
		columns(after, after_len, mtime, sizeof mtime, &size);
		rc = fn(user, name, dir, dir ? -1 : size, mtime[0] ? mtime : NULL);
	}
	free(name);
	return rc;
}

static const char *find(const char *p, const char *end, const char *needle, size_t n)
{
	for (; (size_t)(end - p) >= n; p++) {
		p = memchr(p, needle[0], (size_t)(end - p) - n + 1);
		if (!p)
			return NULL;
		if (memcmp(p, needle, n) == 0)
			return p;
	}
	return NULL;
}

static int parse_html(const char *body, size_t len, http_entry_fn fn, void *user)
{
	const char *end = body + len;
	for (const char *p = body; p < end;) {
		const char *a = find(p, end, "<a href=\"", 9);
		if (!a)
			break;
		const char *href = a + 9;
		const char *q = memchr(href, '"', (size_t)(end - href));
		if (!q)
			break;
		const char *close = find(q, end, "</a>", 4);
		const char *after = close ? close + 4 : q + 1;
		const char *eol = memchr(after, '\n', (size_t)(end - after));
		if (!eol)
			eol = end;
		int rc = html_entry(href, (size_t)(q - href), after, (size_t)(eol - after), fn, user);
		if (rc)
			return rc;
		p = after;
	}
	return 0;
}

int http_listing_parse(const char *body, size_t len, http_entry_fn fn, void *user, char *why,
		       size_t why_size)
{
	size_t i = 0;
	while (i < len && isspace((unsigned char)body[i]))
		i++;
	if (i < len && body[i] == '[')
		return parse_json(body, len, fn, user, why, why_size);
	if (i < len && body[i] == '<')
		return parse_html(body, len, fn, user);
	snprintf(why, why_size, "not a directory listing (expected autoindex JSON or HTML)");
	return HG_EPARSE;
}

int manifest_parse(const char *body, size_t len, manifest_fn fn, void *user)
{
	long line = 0;
	char buf[8192];
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(body + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (body + i)) : len - i;
		const char *s = body + i;
		i += n + 1;
		line++;
		while (n && isspace((unsigned char)*s)) {
			s++;
			n--;
		}
		while (n && isspace((unsigned char)s[n - 1]))
			n--;
		if (n == 0 || s[0] == '#')
			continue;
		if (n >= sizeof buf) {
			int rc = fn(user, line, NULL); /* too long to be a URL we use */
			if (rc)
				return rc;
			continue;
		}
		memcpy(buf, s, n);
		buf[n] = '\0';
		int rc = fn(user, line, buf);
		if (rc)
			return rc;
	}
	return 0;
}
