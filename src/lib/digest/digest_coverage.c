/* The digest's "Missing mappings and symbols": the app versions whose
 * reports lacked a methodMapping, a ProGuard/R8 mapping or native symbols
 * to name their frames (hg_store_coverage, all time), so that the team
 * reading it uploads them; `hangar coverage --images` names the images. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "digest_internal.h"

struct gather {
	struct digest *d;
	size_t cap;
	int err;
};

static int on_version(void *user, const hg_coverage_row *r)
{
	struct gather *g = user;
	struct digest *d = g->d;
	if (r->lacking == 0)
		return 0;
	if ((size_t)d->coverage_total++ >= d->list_max)
		return 0;
	if (d->n_coverage == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 8;
		void *p = hg_arena_regrow(d->arena, d->coverage, g->cap * sizeof *d->coverage,
					  cap * sizeof *d->coverage);
		if (!p)
			return g->err = HG_ENOMEM;
		d->coverage = p;
		g->cap = cap;
	}
	const char *v = r->version ? hg_arena_strdup(d->arena, r->version) : NULL;
	if (r->version && !v)
		return g->err = HG_ENOMEM;
	d->coverage[d->n_coverage++] = (struct dg_coverage){v, r->reports, r->lacking,
							    r->method_mapping, r->proguard,
							    r->symbols};
	return 0;
}

int digest_gather_coverage(struct digest *d, hg_store *store)
{
	struct gather g = {d, 0, 0};
	int err = hg_store_coverage(store, NULL, on_version, &g);
	return g.err ? g.err : err;
}

/* "10 of 41 reports: 10 without a methodMapping, 2 not retraced, 1 without
 * native symbols" (the kinds it lacked only). */
static void say(hg_buf *b, const struct dg_coverage *c)
{
	hg_buf_printf(b, "%" PRId64 " of %" PRId64 " reports:", c->lacking, c->reports);
	const char *sep = " ";
	if (c->method_mapping) {
		hg_buf_printf(b, "%s%" PRId64 " without a methodMapping", sep, c->method_mapping);
		sep = ", ";
	}
	if (c->proguard) {
		hg_buf_printf(b, "%s%" PRId64 " with obfuscated frames not retraced", sep, c->proguard);
		sep = ", ";
	}
	if (c->symbols)
		hg_buf_printf(b, "%s%" PRId64 " without native symbols", sep, c->symbols);
}

void digest_coverage_md(hg_buf *b, const struct digest *d, digest_text_fn text)
{
	if (!d->coverage_total)
		return; /* nothing missing: no section */
	hg_buf_puts(b, "\n## Missing mappings and symbols\n\n");
	for (size_t i = 0; i < d->n_coverage && i < (size_t)d->limit; i++) {
		hg_buf_puts(b, "- version ");
		text(b, d->coverage[i].version ? d->coverage[i].version : "unknown", 80);
		hg_buf_puts(b, ": ");
		say(b, &d->coverage[i]);
		hg_buf_putc(b, '\n');
	}
	size_t shown = d->n_coverage < (size_t)d->limit ? d->n_coverage : (size_t)d->limit;
	if ((int64_t)shown < d->coverage_total)
		hg_buf_printf(b, "- …and %" PRId64 " more versions\n", d->coverage_total - (int64_t)shown);
	hg_buf_puts(b, "\n`hangar coverage --images` names the native images by Build ID / UUID.\n");
}

void digest_coverage_html(hg_buf *b, const struct digest *d, digest_text_fn text)
{
	if (!d->coverage_total)
		return;
	hg_buf_puts(b, "<h2 id=\"coverage\">Missing mappings and symbols</h2>\n<ul class=\"coverage\">");
	for (size_t i = 0; i < d->n_coverage && i < (size_t)d->limit; i++) {
		hg_buf_puts(b, "<li><b>");
		text(b, d->coverage[i].version ? d->coverage[i].version : "unknown", 80);
		hg_buf_puts(b, "</b> ");
		say(b, &d->coverage[i]);
		hg_buf_puts(b, "</li>");
	}
	hg_buf_puts(b, "</ul>\n<p class=\"dim\"><code>hangar coverage --images</code> names the "
		    "native images by Build ID / UUID.</p>\n");
}

void digest_coverage_json(hg_buf *b, const struct digest *d)
{
	hg_buf_printf(b, ",\"coverage\":{\"versions_total\":%" PRId64 ",\"versions\":[",
		      d->coverage_total);
	for (size_t i = 0; i < d->n_coverage; i++) {
		const struct dg_coverage *c = &d->coverage[i];
		hg_buf_puts(b, i ? ",{\"version\":" : "{\"version\":");
		if (c->version)
			hg_buf_json_string(b, c->version, strlen(c->version));
		else
			hg_buf_puts(b, "null");
		hg_buf_printf(b, ",\"reports\":%" PRId64 ",\"lacking\":%" PRId64
			      ",\"no_method_mapping\":%" PRId64 ",\"not_retraced\":%" PRId64
			      ",\"no_symbols\":%" PRId64 "}", c->reports, c->lacking, c->method_mapping,
			      c->proguard, c->symbols);
	}
	hg_buf_puts(b, "]}");
}
