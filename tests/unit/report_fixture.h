/* Shared by the report tests (test_report.c, test_report_errors.c,
 * test_kscrash*.c, test_metrickit.c, ...): one small buffer in three
 * encodings, a fixture that records diagnostics and delivered reports,
 * helpers that read an in-memory input and check its reports, a test data
 * file read whole, and a report text with one piece replaced (the
 * wrong-type tables).
 *
 * SMALL_WORDS: dispatchMessage (1048574) runs from 100 to 200 ms, method 10
 * from 101 to 160, inside it 11 (102-150) then 12 (151-155).  It rebuilds to
 *   0,1048574,1,100 / 1,10,1,59 / 2,11,1,48 / 2,12,1,4   StackKey "11|".
 * SMALL_BASE64 is the same buffer as base64, SMALL_STACK the rebuilt stack
 * as a JSON string's content.  Every delivered report is destroyed: the
 * suites run under ASan/UBSan/LSan. */
#ifndef HANGAR_TESTS_REPORT_FIXTURE_H
#define HANGAR_TESTS_REPORT_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hangar/report.h"

#define SMALL_WORDS                                                                           \
	"[-17592186044316,-9223284075924553627,-9223275279831531418,96757023244438,"          \
	"-9223266483738509161,105553116266651,87960930222240,9223354444668731592]"
#define SMALL_BASE64                                                                          \
	"///wAAAAAGSAAFAAAAAAZYAAWAAAAABmAABYAAAAAJaAAGAAAAAAlwAAYAAAAACbAABQAAAAAKB///AAAAAAyA"
#define SMALL_STACK "0,1048574,1,100\\n1,10,1,59\\n2,11,1,48\\n2,12,1,4\\n"

/* ---- fixture: diagnostics and delivered reports, recorded ---- */

#define MAX_DIAGS 32
#define MAX_KEPT 16

struct diag_rec {
	enum hg_severity severity;
	char *source;
	long line, col, report;
	char *message;
};

struct fixture {
	hg_ctx ctx;
	struct diag_rec diag[MAX_DIAGS];
	size_t n_diags, all_diags;
	hg_report *rep[MAX_KEPT]; /* the first reports delivered, kept for asserts */
	size_t n_kept, delivered, errors;
	size_t stop_at;           /* non-zero: the sink returns 7 at this report */
	bool discard;             /* destroy every report at once */
};

static inline void record_diag(void *user, const hg_diag *d)
{
	struct fixture *f = user;
	f->all_diags++;
	if (f->n_diags == MAX_DIAGS)
		return;
	struct diag_rec *r = &f->diag[f->n_diags++];
	*r = (struct diag_rec){d->severity, strdup(d->source ? d->source : ""), d->line, d->col,
			       d->report, strdup(d->message)};
	assert_true(r->source && r->message);
}

static inline int sink(void *user, hg_report *rep)
{
	struct fixture *f = user;
	f->delivered++;
	f->errors += rep->error != NULL;
	if (!f->discard && f->n_kept < MAX_KEPT)
		f->rep[f->n_kept++] = rep;
	else
		hg_report_destroy(rep);
	return f->stop_at && f->delivered == f->stop_at ? 7 : 0;
}

static inline void reset(struct fixture *f)
{
	for (size_t i = 0; i < f->n_diags; i++) {
		free(f->diag[i].source);
		free(f->diag[i].message);
	}
	for (size_t i = 0; i < f->n_kept; i++)
		hg_report_destroy(f->rep[i]);
	f->n_diags = f->all_diags = f->n_kept = f->delivered = f->errors = 0;
}

static inline int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	if (!f)
		return -1;
	hg_ctx_init(&f->ctx);
	f->ctx.diag = record_diag;
	f->ctx.diag_user = f;
	*state = f;
	return 0;
}

static inline int teardown(void **state)
{
	reset(*state);
	free(*state);
	return 0;
}

/* ---- helpers ---- */

static inline void assert_contains(const char *s, const char *needle)
{
	assert_non_null(s);
	if (!strstr(s, needle))
		fail_msg("\"%s\" does not contain \"%s\"", s, needle);
}

/* Reads data[0..len) (NUL-terminated at len) after forgetting the last read. */
static inline int read_bytes(struct fixture *f, const char *data, size_t len)
{
	reset(f);
	int rc = hg_reports_read(&f->ctx, "mem.json", data, len, sink, f);
	assert_true(rc >= 0);
	return rc;
}

static inline int read_text(struct fixture *f, const char *text)
{
	return read_bytes(f, text, strlen(text));
}

static inline const hg_report *one_good(struct fixture *f, const char *text)
{
	assert_int_equal(read_text(f, text), 0);
	assert_int_equal(f->delivered, 1);
	assert_int_equal(f->all_diags, 0);
	const hg_report *r = f->rep[0];
	if (r->error)
		fail_msg("unexpected error: %s", r->error);
	assert_string_equal(r->source, "mem.json");
	assert_int_equal(r->number, 1);
	return r;
}

/* One failed report whose error holds needle, and its one error diagnostic. */
static inline const hg_report *one_failed(struct fixture *f, const char *text, const char *needle)
{
	assert_int_equal(read_text(f, text), 1);
	assert_int_equal(f->delivered, 1);
	const hg_report *r = f->rep[0];
	assert_contains(r->error, needle);
	assert_int_equal(r->number, 1);
	assert_int_equal(f->all_diags, 1);
	assert_int_equal(f->diag[0].severity, HG_DIAG_ERROR);
	assert_string_equal(f->diag[0].source, "mem.json");
	assert_int_equal(f->diag[0].report, 1);
	assert_string_equal(f->diag[0].message, r->error);
	return r;
}

static inline void assert_item(const hg_method_stack *s, size_t i, int depth, int id, int count,
			int cost)
{
	assert_true(i < s->len);
	const hg_method_item *it = &s->items[i];
	if (it->depth != depth || it->id != id || it->count != count || it->cost != cost)
		fail_msg("item %zu is %d,%d,%d,%d, expected %d,%d,%d,%d", i, it->depth, it->id,
			 it->count, it->cost, depth, id, count, cost);
}

static inline void assert_small_stack(const hg_report *r)
{
	assert_int_equal(r->full.len, 4);
	assert_item(&r->full, 0, 0, 1048574, 1, 100);
	assert_item(&r->full, 1, 1, 10, 1, 59);
	assert_item(&r->full, 2, 2, 11, 1, 48);
	assert_item(&r->full, 3, 2, 12, 1, 4);
	assert_int_equal(r->trimmed.len, 4);
	assert_int_equal(r->stack_cost, 100);
	assert_int_equal(r->key_index, 2);
	assert_string_equal(hg_report_stack_key_text(r), "11|");
}

/* ---- test data and variations of it ---- */

/* The file dir/name read whole, NUL-terminated (caller frees); fails the
 * test when it cannot be read. */
static inline char *load_file(const char *dir, const char *name, size_t *len)
{
	char path[1024];
	if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
		fail_msg("path too long: %s/%s", dir, name);
	FILE *fp = fopen(path, "rb");
	if (!fp)
		fail_msg("cannot open %s", path);
	fseek(fp, 0, SEEK_END);
	long n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
	buf[n] = '\0';
	fclose(fp);
	*len = (size_t)n;
	return buf;
}

/* text with its only `from` replaced by `to` (caller frees); fails the
 * test when `from` is not there exactly once. */
static inline char *replace_once(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	if (!at || strstr(at + 1, from))
		fail_msg("\"%s\" is not in the base report exactly once", from);
	size_t len = strlen(text) - strlen(from) + strlen(to);
	char *out = malloc(len + 1);
	assert_non_null(out);
	size_t head = (size_t)(at - text);
	memcpy(out, text, head);
	strcpy(out + head, to);
	strcat(out, at + strlen(from));
	return out;
}

/* One piece of a base report replaced, and the error that must name it. */
struct bad_case {
	const char *from, *to, *message;
};

/* Each case's variation of base must fail as one report whose error holds
 * its message (the wrong-type tables of the JSON readers). */
static inline void check_bad_cases(struct fixture *f, const char *base,
				   const struct bad_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *text = replace_once(base, cases[i].from, cases[i].to);
		if (read_text(f, text) != 1 || !strstr(f->rep[0]->error, cases[i].message))
			fail_msg("case %zu (%s): %s", i, cases[i].to,
				 f->rep[0]->error ? f->rep[0]->error : "no error");
		one_failed(f, text, cases[i].message);
		free(text);
	}
}

#endif
