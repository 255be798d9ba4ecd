/* What the text-reader tests share (BlockCanary, Java stacks): reading an
 * input with a recorded diagnostic, loading a fixture, and asserting on
 * figures, warnings and frames.  Before including, define FIXTURE_SOURCE
 * (the source name), FIXTURE_DAMAGED (the source name of damaged inputs),
 * FIXTURE_FORMAT (the reader) and FIXTURE_DIR (the
 * testdata folder), and `testdata` (the testdata path); include <time.h>.
 * Tables: bad_case rows for read_bad_cases; read_truncations and
 * read_mutations drive check_sane over damaged copies of the fixtures.  Functions are
 * static: a test that does not use one gets -Wunused-function, hence the
 * attribute. */
#ifndef HANGAR_TESTS_TEXT_READER_FIXTURE_H
#define HANGAR_TESTS_TEXT_READER_FIXTURE_H

/* ---- reading ---- */

struct got {
	hg_ctx ctx;
	hg_report *rep;      /* the first report delivered */
	size_t delivered, diags;
	long diag_line;
	char diag_msg[600];
};

static __attribute__((unused)) void on_diag(void *user, const hg_diag *d)
{
	struct got *g = user;
	if (g->diags++ == 0) {
		g->diag_line = d->line;
		snprintf(g->diag_msg, sizeof g->diag_msg, "%s", d->message);
	}
}

static __attribute__((unused)) int keep_first(void *user, hg_report *rep)
{
	struct got *g = user;
	if (g->delivered++ == 0)
		g->rep = rep;
	else
		hg_report_destroy(rep);
	return 0;
}

static __attribute__((unused)) void got_init(struct got *g)
{
	memset(g, 0, sizeof *g);
	hg_ctx_init(&g->ctx);
	g->ctx.diag = on_diag;
	g->ctx.diag_user = g;
}

static __attribute__((unused)) void got_release(struct got *g)
{
	hg_report_destroy(g->rep);
	g->rep = NULL;
}

/* Reads text as `format`; returns the number of failed reports (0 or 1). */
static __attribute__((unused)) int read_as(struct got *g, const char *text, size_t len, enum hg_input_format format)
{
	got_release(g);
	g->delivered = g->diags = 0;
	int rc = hg_reports_read_as(&g->ctx, FIXTURE_SOURCE, text, len, format, keep_first, g);
	assert_true(rc == 0 || rc == 1);
	assert_int_equal(g->delivered, 1);
	return rc;
}

static __attribute__((unused)) const hg_report *read_good(struct got *g, const char *text, enum hg_input_format format)
{
	assert_int_equal(read_as(g, text, strlen(text), format), 0);
	if (g->rep->error)
		fail_msg("unexpected error: %s", g->rep->error);
	assert_int_equal(g->diags, 0);
	return g->rep;
}

/* One failed report whose error holds needle; its diagnostic is on line. */
static __attribute__((unused)) void read_bad(struct got *g, const char *text, const char *needle, long line)
{
	assert_int_equal(read_as(g, text, strlen(text), FIXTURE_FORMAT), 1);
	assert_non_null(g->rep->error);
	if (!strstr(g->rep->error, needle))
		fail_msg("\"%s\" does not contain \"%s\"", g->rep->error, needle);
	assert_int_equal(g->diags, 1);
	assert_string_equal(g->diag_msg, g->rep->error);
	assert_int_equal(g->diag_line, line);
}

static __attribute__((unused)) char *load(const char *name, size_t *len)
{
	char path[512];
	snprintf(path, sizeof path, "%s/" FIXTURE_DIR "/%s", testdata, name);
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	char *data = NULL;
	assert_int_equal(hg_input_read(&ctx, path, &data, len), 0);
	/* A copy on the heap: GCC's -Wdangling-pointer at -O3 cannot tell that
	 * hg_input_read stores a new buffer, not &data, and flags writes into it. */
	char *copy = malloc(*len + 1);
	assert_non_null(copy);
	memcpy(copy, data, *len + 1);
	free(data);
	return copy;
}

/* One bad input: the text, what its error must hold, the diagnostic's line. */
struct bad_case {
	const char *text, *needle;
	long line;
};

/* read_bad for each case of the table, in order. */
static __attribute__((unused)) void read_bad_cases(struct got *g, const struct bad_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++)
		read_bad(g, cases[i].text, cases[i].needle, cases[i].line);
}

/* Loads the fixture `name` (returned in *text, owned by the caller, *len
 * bytes) and reads it detecting its format: it must read, without error, as
 * FIXTURE_FORMAT.  Returns the report, owned by g. */
static __attribute__((unused)) const hg_report *read_fixture(struct got *g, const char *name, char **text,
							     size_t *len)
{
	*text = load(name, len);
	assert_int_equal(read_as(g, *text, *len, HG_FORMAT_AUTO), 0);
	assert_null(g->rep->error);
	assert_int_equal(g->rep->format, FIXTURE_FORMAT);
	return g->rep;
}

/* read_as detecting the format, which must succeed in under `seconds` of CPU
 * time (the big-input tests). */
static __attribute__((unused)) void read_within(struct got *g, const char *text, size_t len, double seconds)
{
	clock_t t0 = clock();
	assert_int_equal(read_as(g, text, len, HG_FORMAT_AUTO), 0);
	assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < seconds);
}

/* ---- looking at a report ---- */

static __attribute__((unused)) const char *figure(const hg_report *r, const char *group, const char *name, size_t nth)
{
	for (size_t i = 0; i < r->n_stats; i++)
		if (r->stats[i].group && strcmp(r->stats[i].group, group) == 0 &&
		    strcmp(r->stats[i].name, name) == 0 && nth-- == 0)
			return r->stats[i].value;
	return NULL;
}

static __attribute__((unused)) size_t figures_in(const hg_report *r, const char *group)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n_stats; i++)
		n += r->stats[i].group && strcmp(r->stats[i].group, group) == 0;
	return n;
}

static __attribute__((unused)) void assert_figure(const hg_report *r, const char *group, const char *name,
			  const char *value)
{
	const char *v = figure(r, group, name, 0);
	if (!v)
		fail_msg("no figure %s/%s", group, name);
	assert_string_equal(v, value);
}

static __attribute__((unused)) bool has_warning(const hg_report *r, const char *needle)
{
	for (size_t i = 0; i < r->warnings.len; i++)
		if (strstr(r->warnings.items[i], needle))
			return true;
	return false;
}

static __attribute__((unused)) void assert_warning(const hg_report *r, const char *needle)
{
	if (!has_warning(r, needle)) {
		for (size_t i = 0; i < r->warnings.len; i++)
			fprintf(stderr, "warning: %s\n", r->warnings.items[i]);
		fail_msg("no warning contains \"%s\"", needle);
	}
}

static __attribute__((unused)) void assert_frame(const hg_frame *f, const char *cls, const char *method, const char *file,
			 long line, long repeat)
{
	assert_int_equal(f->kind, HG_FRAME_JAVA);
	assert_string_equal(f->cls, cls);
	assert_string_equal(f->method, method);
	if (file)
		assert_string_equal(f->file, file);
	else
		assert_null(f->file);
	assert_int_equal(f->line, line);
	if (f->repeat != repeat)
		fail_msg("%s: repeat %ld, expected %ld", f->text, f->repeat, repeat);
	assert_null(strchr(f->text, '\r'));
}

/* ---- damaged inputs (each test file defines check_sane) ---- */

static void check_sane(const hg_report *rep);

static __attribute__((unused)) int check_and_destroy(void *user, hg_report *rep)
{
	size_t *n = user;
	(*n)++;
	check_sane(rep);
	hg_report_destroy(rep);
	return 0;
}

static __attribute__((unused)) void read_damaged(const char *text, size_t len, enum hg_input_format format)
{
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	size_t n = 0;
	int rc = hg_reports_read_as(&ctx, FIXTURE_DAMAGED, text, len, format, check_and_destroy, &n);
	assert_true(rc == 0 || rc == 1);
	assert_int_equal(n, 1);
}

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;

static __attribute__((unused)) uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* A copy of text with a few random edits: bytes changed to characters the
 * reader cares about, spans deleted or duplicated. */
static __attribute__((unused)) char *mutate(const char *text, size_t len, size_t *out_len)
{
	static const char interesting[] = "\r\n =%:()[].-*0123456789\t\"$";
	char *buf = malloc(2 * len + 64);
	assert_non_null(buf);
	memcpy(buf, text, len);
	size_t n = len;
	for (int edits = 1 + (int)(rnd() % 6); edits > 0 && n > 0; edits--) {
		size_t at = (size_t)(rnd() % n);
		switch (rnd() % 5) {
		case 0:
			buf[at] = interesting[rnd() % (sizeof interesting - 1)];
			break;
		case 1:
			buf[at] = (char)(rnd() & 0xff);
			break;
		case 2: { /* delete a span */
			size_t span = 1 + (size_t)(rnd() % 64);
			span = span > n - at ? n - at : span;
			memmove(buf + at, buf + at + span, n - at - span);
			n -= span;
			break;
		}
		default: { /* duplicate a span (at most len bytes in all) */
			size_t span = 1 + (size_t)(rnd() % 200);
			span = span > n - at ? n - at : span;
			if (n + span > 2 * len + 32)
				break;
			memmove(buf + at + span, buf + at, n - at);
			n += span;
			break;
		}
		}
	}
	buf[n] = '\0';
	*out_len = n;
	return buf;
}

/* Every `step`th prefix (0 bytes included) of each of the n fixtures, read as
 * each of the n_formats formats: every report must pass check_sane. */
static __attribute__((unused)) void read_truncations(const char *const *names, size_t n, size_t step,
						     const enum hg_input_format *formats, size_t n_formats)
{
	for (size_t i = 0; i < n; i++) {
		size_t len;
		char *text = load(names[i], &len);
		for (size_t cut = 0; cut <= len; cut += step) {
			char *copy = malloc(cut + 1);
			assert_non_null(copy);
			memcpy(copy, text, cut);
			copy[cut] = '\0';
			for (size_t f = 0; f < n_formats; f++)
				read_damaged(copy, cut, formats[f]);
			free(copy);
		}
		free(text);
	}
}

/* `count` seeded mutations of fixtures picked at random among the n, read
 * as FIXTURE_FORMAT and detected in turn: every report must pass check_sane. */
static __attribute__((unused)) void read_mutations(const char *const *names, size_t n, int count)
{
	size_t *lens = calloc(n, sizeof *lens);
	char **texts = calloc(n, sizeof *texts);
	assert_non_null(lens);
	assert_non_null(texts);
	for (size_t i = 0; i < n; i++)
		texts[i] = load(names[i], &lens[i]);
	for (int k = 0; k < count; k++) {
		size_t i = (size_t)(rnd() % n), m_len;
		char *m = mutate(texts[i], lens[i], &m_len);
		read_damaged(m, m_len, k % 2 ? FIXTURE_FORMAT : HG_FORMAT_AUTO);
		free(m);
	}
	for (size_t i = 0; i < n; i++)
		free(texts[i]);
	free(texts);
	free(lens);
}

#endif
