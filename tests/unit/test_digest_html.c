/* The HTML digest: the page is well-formed (it is written as polyglot
 * markup, so expat can parse it), fetches nothing (a CSP, and no src or
 * href that leaves the page), every link inside it lands on an id, each
 * listed cluster has one section with its chart and flame graph, the
 * charts count the reports of each day, hostile text stays text; the
 * Markdown links the HTML when both are written; the real corpus in two
 * nights makes a page of bounded size. */
#include <expat.h>

#include "digest_fixture.h"

static const char *testdata = "testdata";

/* ---- what the page holds, parsed ---- */

struct page {
	char **ids, **links;       /* id="…" values; href="#…" targets without '#' */
	size_t n_ids, n_links;
	size_t sections, flames, svgs;
	bool outside;              /* a src, or an href not starting with '#' */
};

static char *copy(const char *s)
{
	char *d = strdup(s);
	assert_non_null(d);
	return d;
}

static void push(char ***items, size_t *n, const char *s)
{
	*items = realloc(*items, (*n + 1) * sizeof **items);
	assert_non_null(*items);
	(*items)[(*n)++] = copy(s);
}

static void on_start(void *user, const XML_Char *name, const XML_Char **attrs)
{
	struct page *p = user;
	if (!strcmp(name, "svg"))
		p->svgs++;
	for (size_t i = 0; attrs[i]; i += 2) {
		const char *k = attrs[i], *v = attrs[i + 1];
		if (!strcmp(k, "id"))
			push(&p->ids, &p->n_ids, v);
		else if (!strcmp(k, "href") || !strcmp(k, "xlink:href")) {
			if (v[0] == '#')
				push(&p->links, &p->n_links, v + 1);
			else
				p->outside = true;
		} else if (!strcmp(k, "src")) {
			p->outside = true;
		} else if (!strcmp(k, "class") && !strcmp(name, "section") && !strcmp(v, "cluster")) {
			p->sections++;
		} else if (!strcmp(k, "class") && !strcmp(name, "div") && !strcmp(v, "flame")) {
			p->flames++;
		}
	}
}

static void on_end(void *user, const XML_Char *name)
{
	(void)user;
	(void)name;
}

/* Parses html (fails the test, saying where, when it is not well-formed). */
static struct page parse_page(const char *html)
{
	struct page p = {0};
	XML_Parser x = XML_ParserCreate("UTF-8");
	assert_non_null(x);
	XML_SetUserData(x, &p);
	XML_SetElementHandler(x, on_start, on_end);
	if (XML_Parse(x, html, (int)strlen(html), 1) != XML_STATUS_OK) {
		long line = (long)XML_GetCurrentLineNumber(x), col = (long)XML_GetCurrentColumnNumber(x);
		const char *why = XML_ErrorString(XML_GetErrorCode(x));
		fail_msg("the page is not well-formed at %ld:%ld: %s", line, col, why);
	}
	XML_ParserFree(x);
	return p;
}

static void page_release(struct page *p)
{
	for (size_t i = 0; i < p->n_ids; i++)
		free(p->ids[i]);
	for (size_t i = 0; i < p->n_links; i++)
		free(p->links[i]);
	free(p->ids);
	free(p->links);
}

/* Every href="#x" has an id="x", and no id is given twice. */
static void links_land(const struct page *p)
{
	for (size_t i = 0; i < p->n_ids; i++)
		for (size_t k = i + 1; k < p->n_ids; k++)
			if (!strcmp(p->ids[i], p->ids[k]))
				fail_msg("id \"%s\" twice", p->ids[i]);
	for (size_t i = 0; i < p->n_links; i++) {
		bool found = false;
		for (size_t k = 0; k < p->n_ids && !found; k++)
			found = !strcmp(p->links[i], p->ids[k]);
		if (!found)
			fail_msg("link to #%s, which is nowhere", p->links[i]);
	}
}

static size_t occurrences(const char *text, const char *what)
{
	size_t n = 0;
	for (const char *p = text; (p = strstr(p, what)); p++)
		n++;
	return n;
}

/* ---- tests ---- */

static void test_page(void **state)
{
	struct fx *f = *state;
	hg_digest_run run = run_of(f, two_runs(f));
	int64_t fresh = -1;
	char *html = write_digest(f, &run, HG_DIGEST_HTML, &fresh);
	assert_int_equal(fresh, 1);
	struct page p = parse_page(html);
	assert_false(p.outside);
	links_land(&p);
	has(html, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';");
	has(html, "<h2 id=\"top\">Top 3 clusters (all time, by count)</h2>");
	has(html, "<h2 id=\"new\">New clusters</h2>");
	has(html, "<h2 id=\"regressed\">Regressed clusters (at least 1 report in this run;");
	has(html, "<h2 id=\"failed\">Failed fetches</h2>");
	has(html, "HTTP 503 | slow down");
	has(html, "expected a value");
	/* Top 3 (1, 2, 4 by count), new 4, regressed 2: three sections, each
	 * with a flame graph (their trees are recorded). */
	assert_int_equal(p.sections, 3);
	assert_int_equal(p.flames, 3);
	assert_int_equal(occurrences(html, "<section class=\"cluster\" id=\"c-d1000"), 1);
	assert_int_equal(occurrences(html, "<section class=\"cluster\" id=\"c-d2000"), 1);
	assert_int_equal(occurrences(html, "<section class=\"cluster\" id=\"c-d4000"), 1);
	/* Every report is of 2026-11-28: cluster 1 has 5, cluster 2 four. */
	has(html, "<title>2026-11-28: 5 reports</title>");
	has(html, "<title>2026-11-28: 4 reports</title>");
	has(html, "<title>2026-11-28: 2 reports</title>");
	/* Charts (a small one per table row, a large one per section) and
	 * flame graphs are SVG; nothing else is. */
	assert_true(p.svgs >= 3 + 3 + 3);
	page_release(&p);
	free(html);
}

static void test_markdown_links_html(void **state)
{
	struct fx *f = *state;
	hg_digest_run run = run_of(f, two_runs(f));
	run.html_name = "digest (1).html";
	char *md = write_digest(f, &run, HG_DIGEST_MARKDOWN, NULL);
	has(md, "- **Pictures:** [digest (1).html](digest%20%281%29.html), the same digest as one "
		"page, with charts per day and flame graphs\n");
	free(md);
	run.html_name = NULL;
	md = write_digest(f, &run, HG_DIGEST_MARKDOWN, NULL);
	assert_null(strstr(md, "Pictures"));
	free(md);
}

static void test_empty_store(void **state)
{
	struct fx *f = *state;
	hg_digest_run run = {.source = "reports/", .first_report_id = 0, .threshold = 50};
	char *html = write_digest(f, &run, HG_DIGEST_HTML, NULL);
	struct page p = parse_page(html);
	links_land(&p);
	has(html, "The store holds no reports yet.");
	has(html, "<p>No clusters listed.</p>");
	assert_int_equal(p.sections, 0);
	page_release(&p);
	free(html);
}

static const char hostile[] = "<script>alert(1)</script> & \"q\" 'a' \x01\xff ]]> end";

static void test_hostile(void **state)
{
	struct fx *f = *state;
	f->key = hostile;
	add(f, 1, "NORMAL", "1.0", 100, 2, hostile);
	f->key = NULL;
	assert_int_equal(hg_store_add_rejected(f->store, hostile, 1, hostile, "z", 1), 0);
	hg_digest_run run = {.source = hostile, .first_report_id = 0, .threshold = 50};
	char *html = write_digest(f, &run, HG_DIGEST_HTML, NULL);
	struct page p = parse_page(html);
	assert_false(p.outside);
	links_land(&p);
	assert_null(strstr(html, "<script>alert"));
	has(html, "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot; &#39;a&#39; "
		"\xef\xbf\xbd\xef\xbf\xbd ]]&gt; end");
	page_release(&p);
	free(html);
}

/* Two nights of 581 real Matrix reports: every listed cluster has its
 * flame graph, and the page stays a size a mail or a browser takes. */
static void test_real_nights(void **state)
{
	struct fx *f = *state;
	real_night(f, testdata, 1, 301);
	int64_t first = last_id(f);
	real_night(f, testdata, 301, 582);
	hg_digest_run run = {.source = "reports/", .first_report_id = first, .compare_after_id = -1,
			     .min_count = 5, .min_rise = 2, .threshold = 50};
	char *html = write_digest(f, &run, HG_DIGEST_HTML, NULL);
	struct page p = parse_page(html);
	assert_false(p.outside);
	links_land(&p);
	assert_true(p.sections >= 10);
	assert_int_equal(p.flames + occurrences(html, "No call tree recorded"), p.sections);
	assert_true(p.flames >= 10);
	size_t len = strlen(html);
	if (len > (size_t)8 << 20)
		fail_msg("the page is %zu bytes", len);
	page_release(&p);
	free(html);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_page, setup, teardown),
		cmocka_unit_test_setup_teardown(test_markdown_links_html, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_store, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_real_nights, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
