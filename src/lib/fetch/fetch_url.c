/* URLs for the fetch library: splitting http(s) and s3 URLs, RFC 3986
 * percent-encoding, redaction, and the redirect rule.  Deliberately small:
 * only absolute http(s) URLs are accepted, so there are few cases to get
 * wrong, and every URL that reaches a message goes through hg_redact_url. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hangar/text.h"
#include "fetch_internal.h"

static char *dupn(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

static void lower(char *s)
{
	for (; s && *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

void url_release(struct fetch_url *u)
{
	free(u->scheme);
	free(u->userinfo);
	free(u->host);
	free(u->port);
	free(u->path);
	free(u->query);
	memset(u, 0, sizeof *u);
}

/* Control characters and spaces in a URL are refused rather than encoded:
 * they mean the caller passed something that is not a URL. */
static bool url_chars_ok(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s <= 0x20 || *s == 0x7f)
			return false;
	return true;
}

int url_parse_http(const char *url, struct fetch_url *out, char *why, size_t why_size)
{
	memset(out, 0, sizeof *out);
	const char *sep = strstr(url, "://");
	if (!sep || (!(sep - url == 4 && strncasecmp(url, "http", 4) == 0) &&
		     !(sep - url == 5 && strncasecmp(url, "https", 5) == 0))) {
		snprintf(why, why_size, "not an http(s) URL");
		return HG_EINVAL;
	}
	if (!url_chars_ok(url)) {
		snprintf(why, why_size, "a URL cannot contain spaces or control characters");
		return HG_EINVAL;
	}
	const char *auth = sep + 3;
	size_t auth_len = strcspn(auth, "/?#");
	const char *rest = auth + auth_len;
	const char *at = memchr(auth, '@', auth_len);
	/* The last '@' ends the userinfo (a password may hold an unencoded '@'). */
	for (const char *p = auth; p < rest; p++)
		if (*p == '@')
			at = p;
	const char *host = at ? at + 1 : auth;
	size_t host_len = (size_t)(rest - host);
	const char *port = NULL;
	if (host_len && host[0] == '[') {
		const char *close = memchr(host, ']', host_len);
		if (!close) {
			snprintf(why, why_size, "unclosed '[' in the host");
			return HG_EINVAL;
		}
		if (close + 1 < rest) {
			if (close[1] != ':') {
				snprintf(why, why_size, "junk after the IPv6 address");
				return HG_EINVAL;
			}
			port = close + 2;
		}
		host_len = (size_t)(close + 1 - host);
	} else {
		const char *colon = memchr(host, ':', host_len);
		if (colon) {
			port = colon + 1;
			host_len = (size_t)(colon - host);
		}
	}
	if (host_len == 0) {
		snprintf(why, why_size, "the URL has no host");
		return HG_EINVAL;
	}
	if (port) {
		size_t n = (size_t)(rest - port);
		if (n == 0 || n > 5 || strspn(port, "0123456789") < n || atoi(port) > 65535) {
			snprintf(why, why_size, "bad port number");
			return HG_EINVAL;
		}
	}
	const char *q = strchr(rest, '?');
	const char *frag = strchr(rest, '#');
	if (q && frag && frag < q)
		q = NULL;
	const char *path_end = q ? q : frag ? frag : rest + strlen(rest);
	out->scheme = dupn(url, (size_t)(sep - url));
	out->userinfo = at ? dupn(auth, (size_t)(at - auth)) : NULL;
	out->host = dupn(host, host_len);
	out->port = port ? dupn(port, (size_t)(rest - port)) : NULL;
	out->path = path_end > rest ? dupn(rest, (size_t)(path_end - rest)) : dupn("/", 1);
	if (q)
		out->query = dupn(q + 1, strcspn(q + 1, "#"));
	if (!out->scheme || (at && !out->userinfo) || !out->host || (port && !out->port) ||
	    !out->path || (q && !out->query)) {
		url_release(out);
		return HG_ENOMEM;
	}
	lower(out->scheme);
	lower(out->host);
	return 0;
}

char *url_origin(const struct fetch_url *u, bool with_userinfo)
{
	hg_buf b;
	hg_buf_init(&b);
	hg_buf_printf(&b, "%s://", u->scheme);
	if (with_userinfo && u->userinfo)
		hg_buf_printf(&b, "%s@", u->userinfo);
	hg_buf_puts(&b, u->host);
	if (u->port)
		hg_buf_printf(&b, ":%s", u->port);
	if (b.failed) {
		hg_buf_release(&b);
		return NULL;
	}
	return b.data;
}

/* Bucket names as S3 allows them today: 3-63 of [a-z0-9.-], starting and
 * ending with a letter or digit.  Anything else would also be unsafe in a
 * host name or path. */
static bool bucket_ok(const char *b, size_t n)
{
	if (n < 3 || n > 63 || !isalnum((unsigned char)b[0]) || !isalnum((unsigned char)b[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!islower((unsigned char)b[i]) && !isdigit((unsigned char)b[i]) && b[i] != '.' &&
		    b[i] != '-')
			return false;
	return true;
}

int url_parse_s3(const char *url, char **bucket, char **prefix, char *why, size_t why_size)
{
	*bucket = *prefix = NULL;
	if (strncmp(url, "s3://", 5) != 0) {
		snprintf(why, why_size, "not an s3:// URL");
		return HG_EINVAL;
	}
	const char *b = url + 5;
	size_t n = strcspn(b, "/");
	if (n == 0) {
		snprintf(why, why_size, "the s3 URL has no bucket (expected s3://bucket/prefix/)");
		return HG_EINVAL;
	}
	if (!bucket_ok(b, n)) {
		snprintf(why, why_size, "'%.*s' is not a valid bucket name", (int)(n > 70 ? 70 : n), b);
		return HG_EINVAL;
	}
	if (strchr(b, '?') || strchr(b, '#')) {
		snprintf(why, why_size, "an s3 URL takes no query or fragment");
		return HG_EINVAL;
	}
	const char *p = b[n] == '/' ? b + n + 1 : b + n;
	*bucket = dupn(b, n);
	*prefix = dupn(p, strlen(p));
	if (!*bucket || !*prefix) {
		free(*bucket);
		free(*prefix);
		*bucket = *prefix = NULL;
		return HG_ENOMEM;
	}
	return 0;
}

void url_encode(hg_buf *out, const char *s, size_t len, bool keep_slash)
{
	static const char hex[] = "0123456789ABCDEF";
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' ||
		    (keep_slash && c == '/')) {
			hg_buf_putc(out, (char)c);
		} else {
			char e[3] = {'%', hex[c >> 4], hex[c & 15]};
			hg_buf_add(out, e, 3);
		}
	}
}

int url_decode(const char *s, size_t len, char **out)
{
	*out = NULL;
	char *d = malloc(len + 1);
	if (!d)
		return HG_ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] != '%') {
			if (s[i] == '\0')
				goto bad;
			d[n++] = s[i];
			continue;
		}
		if (len - i < 3)
			goto bad;
		int hi = hg_hex_value(s[i + 1]);
		int lo = hg_hex_value(s[i + 2]);
		if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
			goto bad;
		d[n++] = (char)(hi << 4 | lo);
		i += 2;
	}
	d[n] = '\0';
	*out = d;
	return 0;
bad:
	free(d);
	return HG_EPARSE;
}

/* Query parameter names whose values are secrets (compared without case). */
static const char *const secret_params[] = {
	"x-amz-signature", "x-amz-credential", "x-amz-security-token", "token", "sig",
	"signature", "key", "access_token", "password", "secret", "awsaccesskeyid",
	"x-goog-signature", "x-goog-credential", "api_key", "apikey", NULL,
};

static bool secret_param(const char *name, size_t n)
{
	for (const char *const *p = secret_params; *p; p++)
		if (strlen(*p) == n && strncasecmp(*p, name, n) == 0)
			return true;
	return false;
}

char *hg_redact_url(const char *url)
{
	hg_buf b;
	hg_buf_init(&b);
	const char *sep = strstr(url, "://");
	const char *auth = sep ? sep + 3 : url;
	hg_buf_add(&b, url, (size_t)(auth - url));
	size_t auth_len = strcspn(auth, "/?#");
	const char *at = NULL;
	for (const char *p = auth; p < auth + auth_len; p++)
		if (*p == '@')
			at = p;
	const char *host = at ? at + 1 : auth;
	const char *rest = auth + auth_len;
	hg_buf_add(&b, host, (size_t)(rest - host));
	size_t path_len = strcspn(rest, "?#");
	hg_buf_add(&b, rest, path_len);
	if (rest[path_len] == '?') {
		const char *q = rest + path_len + 1;
		size_t q_len = strcspn(q, "#");
		hg_buf_putc(&b, '?');
		for (size_t i = 0; i < q_len;) {
			size_t n = strcspn(q + i, "&#");
			if (i + n > q_len)
				n = q_len - i;
			const char *eq = memchr(q + i, '=', n);
			size_t name_len = eq ? (size_t)(eq - (q + i)) : n;
			if (eq && secret_param(q + i, name_len)) {
				hg_buf_add(&b, q + i, name_len);
				hg_buf_puts(&b, "=REDACTED");
			} else {
				hg_buf_add(&b, q + i, n);
			}
			i += n;
			if (i < q_len)
				hg_buf_putc(&b, q[i++]);
		}
	}
	if (b.failed || !b.data) {
		hg_buf_release(&b);
		return b.failed ? NULL : dupn("", 0);
	}
	return b.data;
}

int url_redirect_allowed(const char *from, const char *to, bool has_credentials, char *why,
			 size_t why_size)
{
	struct fetch_url a, b;
	char tmp[8];
	if (url_parse_http(to, &b, why, why_size) != 0) {
		snprintf(why, why_size, "a redirect to a non-http(s) URL");
		return HG_EINVAL;
	}
	int rc = 0;
	if (has_credentials) {
		if (url_parse_http(from, &a, tmp, sizeof tmp) != 0) {
			url_release(&b);
			snprintf(why, why_size, "a redirect from a bad URL");
			return HG_EINVAL;
		}
		const char *pa = a.port ? a.port : strcmp(a.scheme, "https") == 0 ? "443" : "80";
		const char *pb = b.port ? b.port : strcmp(b.scheme, "https") == 0 ? "443" : "80";
		if (strcmp(a.scheme, b.scheme) != 0 || strcmp(a.host, b.host) != 0 ||
		    strcmp(pa, pb) != 0) {
			snprintf(why, why_size,
				 "refused a redirect to another host (%s) for a URL with credentials",
				 b.host);
			rc = HG_EINVAL;
		}
		url_release(&a);
	}
	url_release(&b);
	return rc;
}

char *url_resolve(const char *base, const char *ref, char *why, size_t why_size)
{
	struct fetch_url u;
	if (strstr(ref, "://")) {
		if (url_parse_http(ref, &u, why, why_size) != 0)
			return NULL;
		url_release(&u);
		return dupn(ref, strlen(ref));
	}
	if (!url_chars_ok(ref)) {
		snprintf(why, why_size, "a URL cannot contain spaces or control characters");
		return NULL;
	}
	if (url_parse_http(base, &u, why, why_size) != 0)
		return NULL;
	char *origin = url_origin(&u, true);
	hg_buf b;
	hg_buf_init(&b);
	hg_buf_puts(&b, origin ? origin : "");
	if (ref[0] == '/') {
		hg_buf_puts(&b, ref);
	} else {
		const char *slash = strrchr(u.path, '/');
		hg_buf_add(&b, u.path, (size_t)(slash - u.path) + 1);
		hg_buf_puts(&b, ref);
	}
	free(origin);
	url_release(&u);
	if (b.failed || !origin) {
		hg_buf_release(&b);
		snprintf(why, why_size, "out of memory");
		return NULL;
	}
	return b.data;
}
