/* Grouping rules files (hg_rules_load): app/ignore patterns and depths. */
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_internal.h"
#include "hangar/cluster.h"
#include "hangar/input.h"

void hg_rules_destroy(hg_rules *rules)
{
	if (!rules)
		return;
	for (size_t i = 0; i < rules->n_app; i++) {
		hg_regex_free(rules->app[i].re);
		free(rules->app[i].text);
	}
	for (size_t i = 0; i < rules->n_ignore; i++) {
		hg_regex_free(rules->ignore[i].re);
		free(rules->ignore[i].text);
	}
	free(rules->app);
	free(rules->ignore);
	free(rules->path);
	free(rules);
}

static int push(struct rule_pattern **list, size_t *n, size_t *cap, struct rule_pattern pat)
{
	if (*n == *cap) {
		size_t cap2 = *cap ? *cap * 2 : 8;
		struct rule_pattern *p = realloc(*list, cap2 * sizeof *p);
		if (!p)
			return HG_ENOMEM;
		*list = p;
		*cap = cap2;
	}
	(*list)[(*n)++] = pat;
	return 0;
}

/* One line being read: where it is, for diagnostics. */
struct rline {
	const hg_ctx *ctx;
	const char *path;
	long line;
	const char *start;  /* first byte of the line */
};

static int bad(const struct rline *l, const char *at, const char *fmt, ...) HG_PRINTF(3, 4);

static int bad(const struct rline *l, const char *at, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	hg_diagf(l->ctx, HG_DIAG_ERROR, l->path, l->line, (long)(at - l->start) + 1, 0, "%s", msg);
	return HG_EPARSE;
}

static int add_regex(hg_rules *r, const struct rline *l, bool app, const char *word,
		     const char *arg, size_t len)
{
	if (len == 0)
		return bad(l, arg, "expected a regex after \"%s\"", word);
	char why[256];
	size_t off = 0;
	hg_regex *re;
	int rc = hg_regex_compile(arg, len, &re, why, sizeof why, &off);
	if (rc == HG_EPARSE) {
		char shown[128];
		snprintf(shown, sizeof shown, "%.*s", (int)(len < 100 ? len : 100), arg);
		return bad(l, arg + (off <= len ? off : len), "bad regex \"%s\": %s", shown, why);
	}
	if (rc)
		return rc;
	struct rule_pattern pat = {re, malloc(len + 1), l->line};
	if (pat.text) {
		memcpy(pat.text, arg, len);
		pat.text[len] = '\0';
	}
	rc = !pat.text ? HG_ENOMEM
	     : app    ? push(&r->app, &r->n_app, &r->cap_app, pat)
		      : push(&r->ignore, &r->n_ignore, &r->cap_ignore, pat);
	if (rc) {
		hg_regex_free(re);
		free(pat.text);
	}
	return rc;
}

static int set_depth(int *out, const struct rline *l, const char *word, const char *arg,
		     size_t len, int min, int max)
{
	char shown[64];
	snprintf(shown, sizeof shown, "%.*s", (int)(len < 40 ? len : 40), arg);
	long v = 0;
	bool ok = len > 0 && len <= 3;
	for (size_t i = 0; ok && i < len; i++) {
		ok = isdigit((unsigned char)arg[i]);
		v = v * 10 + (arg[i] - '0');
	}
	if (!ok || v < min || v > max) {
		hg_diagf(l->ctx, HG_DIAG_ERROR, l->path, l->line, (long)(arg - l->start) + 1, 0,
			 "expected a number from %d to %d after \"%s\", got \"%s\"", min, max,
			 word, shown);
		return HG_EPARSE;
	}
	*out = (int)v;
	return 0;
}

/* One line without its end of line: blank, comment, or "WORD ARG". */
static int read_line(hg_rules *r, const struct rline *l, const char *s, size_t len)
{
	const char *end = s + len;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	if (s == end || *s == '#')
		return 0;
	const char *w = s;
	while (s < end && *s != ' ' && *s != '\t')
		s++;
	size_t wlen = (size_t)(s - w);
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	size_t alen = (size_t)(end - s);
	if (wlen == 3 && memcmp(w, "app", 3) == 0)
		return add_regex(r, l, true, "app", s, alen);
	if (wlen == 6 && memcmp(w, "ignore", 6) == 0)
		return add_regex(r, l, false, "ignore", s, alen);
	if (wlen == 13 && memcmp(w, "key-ancestors", 13) == 0)
		return set_depth(&r->key_ancestors, l, "key-ancestors", s, alen, 0,
				 HG_MAX_KEY_ANCESTORS);
	if (wlen == 13 && memcmp(w, "thread-frames", 13) == 0)
		return set_depth(&r->thread_frames, l, "thread-frames", s, alen, 1,
				 HG_MAX_THREAD_FRAMES);
	char shown[64];
	snprintf(shown, sizeof shown, "%.*s", (int)(wlen < 40 ? wlen : 40), w);
	return bad(l, w, "unknown rule \"%s\" (expected app, ignore, key-ancestors or "
		   "thread-frames)", shown);
}

int hg_rules_load(const hg_ctx *ctx, const char *path, hg_rules **out)
{
	*out = NULL;
	char *data;
	size_t len;
	int rc = hg_input_read(ctx, path, &data, &len);
	if (rc)
		return rc;
	hg_rules *r = calloc(1, sizeof *r);
	if (!r) {
		free(data);
		return HG_ENOMEM;
	}
	r->key_ancestors = HG_DEFAULT_KEY_ANCESTORS;
	r->thread_frames = HG_DEFAULT_THREAD_FRAMES;
	if (!(r->path = strdup(path))) {
		free(data);
		free(r);
		return HG_ENOMEM;
	}
	/* Every bad line is reported; the first error code is returned. */
	int first = 0;
	struct rline l = {ctx, path, 0, data};
	for (const char *p = data, *end = data + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		l.line++;
		l.start = p;
		rc = memchr(p, '\0', n) ? bad(&l, p, "the line holds a NUL byte")
					: read_line(r, &l, p, n);
		if (rc == HG_ENOMEM) {
			first = rc;
			break;
		}
		if (rc && !first)
			first = rc;
		p += n + (nl != NULL);
	}
	free(data);
	if (first) {
		hg_rules_destroy(r);
		return first;
	}
	*out = r;
	return 0;
}
