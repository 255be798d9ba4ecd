/* S3 ListObjectsV2 pages and <Error> documents, read with expat as a
 * stream: only the fields of each <Contents> are kept (a page holds at
 * most 1000), handed on when the page is read, keys URL-decoded when the
 * server says it encoded them.  Only the elements we need are kept, each
 * capped in length; a DOCTYPE is refused outright (S3 never sends one, and
 * it is the door to entity expansion). */
#include <expat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fetch_internal.h"

#define MAX_TEXT 4096 /* S3 keys are at most 1024 bytes; tokens are shorter */
#define MAX_DEPTH 16

enum field { F_NONE, F_KEY, F_ETAG, F_SIZE, F_MODIFIED, F_TRUNCATED, F_TOKEN, F_CODE,
	     F_MESSAGE, F_ENCODING };

/* One <Contents>, kept until the page is read: whether keys are
 * URL-encoded (<EncodingType>url</EncodingType>, which we ask for, as a
 * key may hold characters XML 1.0 cannot carry) may come after them. */
struct entry {
	char *key, *etag, *modified; /* malloc'd; etag and modified may be NULL */
	int64_t size;
};

struct s3p {
	XML_Parser xp;
	s3_entry_fn fn;
	void *user;
	struct s3_page *page;
	int depth;
	bool in_contents, is_error, saw_root;
	enum field field;
	char text[MAX_TEXT + 1];
	size_t text_len;
	char key[MAX_TEXT + 1], etag[MAX_TEXT + 1], size[32], modified[64];
	bool have_key, have_size;
	bool url_encoded;          /* <EncodingType>url</EncodingType> */
	struct entry *entries;
	size_t n_entries, cap_entries;
	int rc;
	char *why;
	size_t why_size;
};

static void stop(struct s3p *p, int rc, const char *fmt, const char *arg)
{
	if (p->rc == 0) {
		p->rc = rc;
		if (rc == HG_EPARSE)
			snprintf(p->why, p->why_size, fmt, arg);
	}
	XML_StopParser(p->xp, XML_FALSE);
}

/* Element names may carry the S3 namespace prefix-free; compare local names. */
static enum field field_of(const char *name, bool in_contents, int depth)
{
	if (in_contents) {
		if (strcmp(name, "Key") == 0) return F_KEY;
		if (strcmp(name, "ETag") == 0) return F_ETAG;
		if (strcmp(name, "Size") == 0) return F_SIZE;
		if (strcmp(name, "LastModified") == 0) return F_MODIFIED;
		return F_NONE;
	}
	if (depth != 2)
		return F_NONE;
	if (strcmp(name, "IsTruncated") == 0) return F_TRUNCATED;
	if (strcmp(name, "NextContinuationToken") == 0) return F_TOKEN;
	if (strcmp(name, "Code") == 0) return F_CODE;
	if (strcmp(name, "Message") == 0) return F_MESSAGE;
	if (strcmp(name, "EncodingType") == 0) return F_ENCODING;
	return F_NONE;
}

static const char *local_name(const char *name)
{
	const char *sep = strrchr(name, '|'); /* expat's namespace separator, when used */
	return sep ? sep + 1 : name;
}

static void XMLCALL on_start(void *user, const XML_Char *name, const XML_Char **attrs)
{
	(void)attrs;
	struct s3p *p = user;
	name = local_name(name);
	if (++p->depth > MAX_DEPTH) {
		stop(p, HG_EPARSE, "elements nested deeper than %s", "16");
		return;
	}
	if (p->depth == 1) {
		p->saw_root = true;
		p->is_error = strcmp(name, "Error") == 0;
		if (!p->is_error && strcmp(name, "ListBucketResult") != 0)
			stop(p, HG_EPARSE, "expected <ListBucketResult> or <Error>, not <%.40s>",
			     name);
		return;
	}
	if (p->depth == 2 && !p->is_error && strcmp(name, "Contents") == 0) {
		p->in_contents = true;
		p->have_key = p->have_size = false;
		p->etag[0] = p->modified[0] = '\0';
		return;
	}
	p->field = p->depth == 3 || p->depth == 2 ? field_of(name, p->in_contents, p->depth)
						  : F_NONE;
	p->text_len = 0;
}

static void XMLCALL on_text(void *user, const XML_Char *s, int len)
{
	struct s3p *p = user;
	if (p->field == F_NONE || len <= 0)
		return;
	if ((size_t)len > MAX_TEXT - p->text_len) {
		stop(p, HG_EPARSE, "a value longer than %s bytes", "4096");
		return;
	}
	memcpy(p->text + p->text_len, s, (size_t)len);
	p->text_len += (size_t)len;
}

static char *dup_text(struct s3p *p)
{
	char *d = malloc(p->text_len + 1);
	if (!d) {
		stop(p, HG_ENOMEM, "", "");
		return NULL;
	}
	memcpy(d, p->text, p->text_len);
	d[p->text_len] = '\0';
	return d;
}

/* Size as an exact int64 (no double on the way). */
static bool parse_size(const char *s, int64_t *out)
{
	if (!*s)
		return false;
	int64_t v = 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (INT64_MAX - (*s - '0')) / 10)
			return false;
		v = v * 10 + (*s - '0');
	}
	*out = v;
	return true;
}

static void end_field(struct s3p *p)
{
	p->text[p->text_len] = '\0';
	if (memchr(p->text, '\0', p->text_len)) {
		stop(p, HG_EPARSE, "a NUL character in %s", "a value");
		return;
	}
	switch (p->field) {
	case F_KEY:
		memcpy(p->key, p->text, p->text_len + 1);
		p->have_key = true;
		break;
	case F_ETAG: {
		/* S3 quotes ETags ("..." or &quot;...&quot;); the quotes are not the tag. */
		const char *t = p->text;
		size_t n = p->text_len;
		if (n >= 2 && t[0] == '"' && t[n - 1] == '"') {
			t++;
			n -= 2;
		}
		memcpy(p->etag, t, n);
		p->etag[n] = '\0';
		break;
	}
	case F_SIZE:
		if (p->text_len >= sizeof p->size) {
			stop(p, HG_EPARSE, "Size '%.40s' is not a byte count", p->text);
			return;
		}
		memcpy(p->size, p->text, p->text_len + 1);
		p->have_size = true;
		break;
	case F_MODIFIED:
		snprintf(p->modified, sizeof p->modified, "%.63s", p->text);
		break;
	case F_TRUNCATED:
		p->page->truncated = strcmp(p->text, "true") == 0;
		break;
	case F_TOKEN:
		free(p->page->next_token);
		p->page->next_token = dup_text(p);
		break;
	case F_CODE:
		if (p->is_error) {
			free(p->page->error_code);
			p->page->error_code = dup_text(p);
		}
		break;
	case F_MESSAGE:
		if (p->is_error) {
			free(p->page->error_message);
			p->page->error_message = dup_text(p);
		}
		break;
	case F_ENCODING:
		p->url_encoded = strcmp(p->text, "url") == 0;
		break;
	case F_NONE:
		break;
	}
}

static void end_contents(struct s3p *p)
{
	p->in_contents = false;
	int64_t size = -1;
	if (!p->have_key) {
		stop(p, HG_EPARSE, "a <Contents> without a <Key>%s", "");
		return;
	}
	if (p->have_size && !parse_size(p->size, &size)) {
		stop(p, HG_EPARSE, "Size '%.40s' is not a byte count", p->size);
		return;
	}
	if (p->n_entries == p->cap_entries) {
		size_t cap = p->cap_entries ? p->cap_entries * 2 : 64;
		struct entry *e = realloc(p->entries, cap * sizeof *e);
		if (!e) {
			stop(p, HG_ENOMEM, "", "");
			return;
		}
		p->entries = e;
		p->cap_entries = cap;
	}
	struct entry *e = &p->entries[p->n_entries];
	*e = (struct entry){strdup(p->key), p->etag[0] ? strdup(p->etag) : NULL,
			    p->modified[0] ? strdup(p->modified) : NULL, size};
	p->n_entries++;
	if (!e->key || (p->etag[0] && !e->etag) || (p->modified[0] && !e->modified))
		stop(p, HG_ENOMEM, "", "");
}

/* Hands the page's entries on, keys decoded when the server encoded them. */
static int deliver_entries(struct s3p *p, char *why, size_t why_size)
{
	int rc = 0;
	for (size_t i = 0; i < p->n_entries && rc == 0; i++) {
		struct entry *e = &p->entries[i];
		char *decoded = NULL;
		if (p->url_encoded) /* form encoding: '+' is a space, a '+' is %2B */
			for (char *c = e->key; *c; c++)
				if (*c == '+')
					*c = ' ';
		if (p->url_encoded && (rc = url_decode(e->key, strlen(e->key), &decoded)) != 0) {
			if (rc == HG_EPARSE || rc == HG_EINVAL) {
				rc = HG_EPARSE;
				snprintf(why, why_size, "a key that is not URL-encoded: '%.40s'", e->key);
			}
			break;
		}
		rc = p->fn(p->user, decoded ? decoded : e->key, e->etag, e->size, e->modified);
		free(decoded);
	}
	return rc;
}

static void free_entries(struct s3p *p)
{
	for (size_t i = 0; i < p->n_entries; i++) {
		free(p->entries[i].key);
		free(p->entries[i].etag);
		free(p->entries[i].modified);
	}
	free(p->entries);
}

static void XMLCALL on_end(void *user, const XML_Char *name)
{
	struct s3p *p = user;
	(void)name;
	if (p->depth == 2 && p->in_contents)
		end_contents(p);
	else if (p->field != F_NONE)
		end_field(p);
	p->field = F_NONE;
	p->depth--;
}

static void XMLCALL on_doctype(void *user, const XML_Char *name, const XML_Char *sysid,
			       const XML_Char *pubid, int has_internal_subset)
{
	(void)name, (void)sysid, (void)pubid, (void)has_internal_subset;
	stop(user, HG_EPARSE, "a DOCTYPE is not allowed in an S3 response%s", "");
}

int s3_list_parse(const char *xml, size_t len, s3_entry_fn fn, void *user, struct s3_page *page,
		  char *why, size_t why_size)
{
	memset(page, 0, sizeof *page);
	struct s3p *p = calloc(1, sizeof *p);
	if (!p)
		return HG_ENOMEM;
	p->xp = XML_ParserCreate("UTF-8");
	if (!p->xp) {
		free(p);
		return HG_ENOMEM;
	}
	p->fn = fn;
	p->user = user;
	p->page = page;
	p->why = why;
	p->why_size = why_size;
	XML_SetUserData(p->xp, p);
	XML_SetElementHandler(p->xp, on_start, on_end);
	XML_SetCharacterDataHandler(p->xp, on_text);
	XML_SetStartDoctypeDeclHandler(p->xp, on_doctype);
	int rc = 0;
	/* Fed in slices so an int length never overflows. */
	size_t off = 0;
	do {
		size_t n = len - off > (1u << 20) ? (1u << 20) : len - off;
		bool last = off + n == len;
		if (XML_Parse(p->xp, xml + off, (int)n, last) == XML_STATUS_ERROR) {
			if (p->rc == 0) {
				p->rc = HG_EPARSE;
				snprintf(why, why_size, "line %lu: %s",
					 (unsigned long)XML_GetCurrentLineNumber(p->xp),
					 XML_ErrorString(XML_GetErrorCode(p->xp)));
			}
			break;
		}
		off += n;
	} while (off < len);
	rc = p->rc;
	if (rc == 0 && !p->saw_root) {
		rc = HG_EPARSE;
		snprintf(why, why_size, "an empty response");
	}
	if (rc == 0 && page->truncated && !page->next_token) {
		rc = HG_EPARSE;
		snprintf(why, why_size, "IsTruncated without a NextContinuationToken");
	}
	if (rc == 0)
		rc = deliver_entries(p, why, why_size);
	XML_ParserFree(p->xp);
	free_entries(p);
	free(p);
	if (rc)
		s3_page_release(page);
	return rc;
}

void s3_page_release(struct s3_page *page)
{
	free(page->next_token);
	free(page->error_code);
	free(page->error_message);
	memset(page, 0, sizeof *page);
}

/* Printable ASCII only, and short: an error message is untrusted text. */
static void clean(char *out, size_t size, const char *s)
{
	size_t n = 0;
	for (; s && *s && n + 1 < size && n < 200; s++)
		out[n++] = (*s >= 0x20 && *s < 0x7f) ? *s : '?';
	out[n] = '\0';
}

void s3_describe_error(long status, const char *code, const char *message, const char *bucket,
		       char *out, size_t size)
{
	static const struct {
		const char *code, *words;
	} known[] = {
		{"SignatureDoesNotMatch",
		 "the request signature does not match (check AWS_SECRET_ACCESS_KEY)"},
		{"InvalidAccessKeyId", "the access key id is not known (check AWS_ACCESS_KEY_ID)"},
		{"AccessDenied", "access denied (check the credentials' permissions on the bucket)"},
		{"ExpiredToken", "the session token has expired (renew AWS_SESSION_TOKEN)"},
		{"InvalidToken", "the session token is not valid (check AWS_SESSION_TOKEN)"},
		{"AuthorizationHeaderMalformed", "the request was signed for another region "
						 "(set the region: AWS_REGION or --region)"},
		{"PermanentRedirect", "the bucket is in another region or needs another endpoint "
				      "(set the region: AWS_REGION or --region)"},
		{"RequestTimeTooSkewed", "the clock of this machine is off by too much"},
	};
	char c[128], m[256];
	clean(c, sizeof c, code ? code : "");
	clean(m, sizeof m, message ? message : "");
	if (code && strcmp(code, "NoSuchBucket") == 0) {
		snprintf(out, size, "%ld NoSuchBucket: bucket '%s' does not exist", status, bucket);
		return;
	}
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (code && strcmp(code, known[i].code) == 0) {
			snprintf(out, size, "%ld %s: %s", status, c, known[i].words);
			return;
		}
	if (c[0])
		snprintf(out, size, "%ld %s: %s", status, c, m[0] ? m : "no message");
	else
		snprintf(out, size, "HTTP %ld", status);
}
