/* Ground truth from Matrix's own Java code: every vector in
 * testdata/vectors/matrix_vectors_public.jsonl (buffer, strict, end_time,
 * cost -> rebuilt stack, trimmed stack, stack cost, StackKey) must come out
 * of hangar field for field.  The vectors are reports themselves, so they go
 * through the same reader as user input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hangar/input.h"
#include "hangar/report.h"
#include "json/json.h"

static const char *vectors_path;

struct check {
	hg_json_doc **docs; /* the expectations, one document per vector */
	size_t n_docs;
	size_t seen;
	size_t failures;
};

static void item_text(const hg_method_item *it, char *out, size_t size)
{
	snprintf(out, size, "%d,%d,%d,%d", it->depth, it->id, it->count, it->cost);
}

static int compare_list(const char *name, const char *what, const hg_method_stack *got,
			const hg_json *want)
{
	size_t n = hg_json_count(want);
	int bad = 0;
	if (n != got->len) {
		fprintf(stderr, "%s: %s has %zu items, expected %zu\n", name, what, got->len, n);
		return 1;
	}
	size_t i = 0;
	for (const hg_json *e = hg_json_first(want); e; e = hg_json_next(e), i++) {
		char mine[80];
		item_text(&got->items[i], mine, sizeof mine);
		if (strcmp(mine, hg_json_string(e)) != 0) {
			fprintf(stderr, "%s: %s[%zu] = %s, expected %s\n", name, what, i, mine,
				hg_json_string(e));
			bad = 1;
		}
	}
	return bad;
}

static int on_report(void *user, hg_report *rep)
{
	struct check *c = user;
	assert_null(rep->error);
	assert_true(c->seen < c->n_docs);
	hg_json_doc *doc = c->docs[c->seen++];
	const hg_json *root = hg_json_root(doc);
	const char *name = hg_json_string(hg_json_get(root, "name"));
	const hg_json *expect = hg_json_get(root, "expect");
	int bad = 0;
	bad |= compare_list(name, "reconstructed", &rep->full, hg_json_get(expect, "reconstructed"));
	bad |= compare_list(name, "trimmed", &rep->trimmed, hg_json_get(expect, "trimmed"));
	int64_t cost;
	assert_int_equal(hg_json_int64(doc, hg_json_get(expect, "stack_cost"), &cost), 0);
	if (cost != rep->stack_cost) {
		fprintf(stderr, "%s: stack_cost %lld, expected %lld\n", name,
			(long long)rep->stack_cost, (long long)cost);
		bad = 1;
	}
	const char *key = hg_report_stack_key_text(rep);
	if (strcmp(key, hg_json_string(hg_json_get(expect, "stack_key"))) != 0) {
		fprintf(stderr, "%s: stack_key \"%s\", expected \"%s\"\n", name, key,
			hg_json_string(hg_json_get(expect, "stack_key")));
		bad = 1;
	}
	c->failures += bad;
	hg_report_destroy(rep);
	return 0;
}

static void test_every_vector_matches_matrix(void **state)
{
	(void)state;
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	char *data;
	size_t len;
	assert_int_equal(hg_input_read(&ctx, vectors_path, &data, &len), 0);

	/* Parse the expectations line by line with the same JSON layer. */
	struct check c = {calloc(4096, sizeof(hg_json_doc *)), 0, 0, 0};
	for (char *line = data; *line;) {
		char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		size_t end;
		if (n > 0) {
			assert_true(c.n_docs < 4096);
			assert_int_equal(hg_json_parse(line, n, &c.docs[c.n_docs++], &end), 0);
		}
		line = nl ? nl + 1 : line + n;
	}
	assert_true(c.n_docs >= 41);

	int failed = hg_reports_read(&ctx, vectors_path, data, len, on_report, &c);
	assert_int_equal(failed, 0);
	assert_int_equal(c.seen, c.n_docs);
	printf("checked %zu Matrix vectors, %zu mismatched\n", c.seen, c.failures);
	assert_int_equal(c.failures, 0);
	for (size_t i = 0; i < c.n_docs; i++)
		hg_json_doc_destroy(c.docs[i]);
	free(c.docs);
	free(data);
}

int main(int argc, char **argv)
{
	vectors_path = argc > 1 ? argv[1] : "testdata/vectors/matrix_vectors_public.jsonl";
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_vector_matches_matrix),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
