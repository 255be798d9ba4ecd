/* The rollups' facets (store/rollup_facets.c): counts per dimension and
 * value exact against a count of the same reports; many values (past the
 * scan, through the map); encodings that round trip and merge in any
 * order to the same bytes; a variant's sample the newest report (ties:
 * the greater hash) whatever the order; a report taken out again; the
 * lacks counts and kinds read alone; malformed, truncated and random blobs
 * refused, never read past. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hangar/hangar.h"
#include "store/rollup_facets.h"

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Report i of a made-up bucket: 300 models, a few scenes, blockers of
 * every length up to 300 bytes (past the lookup's stack key), variants
 * with samples. */
struct made {
	char model[32], scene[32], blocker[320], variant[17], entry[32], time[32], hash[65];
	struct report_facets f;
};

static void make(struct made *m, int i)
{
	snprintf(m->model, sizeof m->model, "model-%d", (int)(next() % 300));
	snprintf(m->scene, sizeof m->scene, "a.Scene%d", i % 7);
	int len = (int)(next() % 300) + 1;
	memset(m->blocker, 'b', (size_t)len);
	m->blocker[len] = '\0';
	m->blocker[0] = (char)('a' + i % 5); /* values that differ at the start too */
	snprintf(m->variant, sizeof m->variant, "%016x", (unsigned)(next() % 40));
	snprintf(m->entry, sizeof m->entry, "a.Entry.e%s", m->variant + 12);
	snprintf(m->time, sizeof m->time, "2026-11-%02dT10:00:00.000Z", 1 + (int)(next() % 28));
	for (int k = 0; k < 64; k++)
		m->hash[k] = "0123456789abcdef"[next() % 16];
	m->hash[64] = '\0';
	memset(&m->f, 0, sizeof m->f);
	m->f.value[FACET_KIND] = i % 4 ? "lag" : "anr";
	m->f.value[FACET_MODEL] = m->model;
	m->f.value[FACET_SCENE] = i % 11 ? m->scene : NULL; /* some unknown */
	m->f.value[FACET_BLOCKER] = m->blocker;
	m->f.value[FACET_VARIANT] = m->variant;
	m->f.value[FACET_FOREGROUND] = i % 2 ? "foreground" : "background";
	m->f.entry = m->entry;
	m->f.time = m->time;
	m->f.content_hash = m->hash;
	m->f.lacks = i % 13 == 0 ? -1 : (i % 3 == 0 ? LACK_METHOD_MAPPING | LACK_ANY : 0);
}

static int64_t count_of(const facets *f, int dim, const char *value)
{
	for (size_t i = 0; i < f->len; i++)
		if (f->v[i].dim == dim && !strcmp(f->v[i].value, value))
			return f->v[i].count;
	return 0;
}

static void encode(facets *f, hg_buf *b)
{
	hg_buf_init(b);
	facets_encode(f, b);
	assert_false(b->failed);
}

#define N 3000

static struct made bucket[N];

static void test_counts_exact_and_round_trip(void **state)
{
	(void)state;
	facets all = {0};
	for (int i = 0; i < N; i++) {
		make(&bucket[i], i);
		assert_int_equal(facets_add_report(&all, &bucket[i].f, 1), 0);
	}
	/* every model's count against a count of the reports */
	for (int i = 0; i < N; i += 97) {
		int64_t want = 0;
		for (int k = 0; k < N; k++)
			want += !strcmp(bucket[k].model, bucket[i].model);
		assert_int_equal(count_of(&all, FACET_MODEL, bucket[i].model), want);
		want = 0;
		for (int k = 0; k < N; k++)
			want += !strcmp(bucket[k].blocker, bucket[i].blocker);
		assert_int_equal(count_of(&all, FACET_BLOCKER, bucket[i].blocker), want);
	}
	int64_t scenes = 0, known = 0, mm = 0;
	for (int i = 0; i < N; i++) {
		scenes += bucket[i].f.value[FACET_SCENE] != NULL;
		known += bucket[i].f.lacks >= 0;
		mm += bucket[i].f.lacks > 0;
	}
	int64_t sum = 0;
	for (size_t i = 0; i < all.len; i++)
		sum += all.v[i].dim == FACET_SCENE ? all.v[i].count : 0;
	assert_int_equal(sum, scenes);
	assert_int_equal(all.lacks[LACKS_KNOWN], known);
	assert_int_equal(all.lacks[LACKS_METHOD_MAPPING], mm);
	assert_int_equal(all.lacks[LACKS_ANY], mm);

	/* decoded again: the same bytes */
	hg_buf a, b;
	encode(&all, &a);
	facets again = {0};
	assert_int_equal(facets_decode_add(&again, a.data, a.len), 0);
	encode(&again, &b);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.data, b.data, a.len);
	/* the head alone: the lacks and the kinds */
	facets lacks = {0};
	assert_int_equal(facets_decode_head(&lacks, a.data, a.len), 0);
	assert_int_equal(lacks.len, 2);
	for (size_t i = 0; i < lacks.len; i++)
		assert_int_equal(lacks.v[i].dim, FACET_KIND);
	assert_int_equal(count_of(&lacks, FACET_KIND, "anr"), (N + 3) / 4);
	assert_int_equal(count_of(&lacks, FACET_KIND, "lag"), N - (N + 3) / 4);
	assert_memory_equal(lacks.lacks, all.lacks, sizeof all.lacks);

	/* in three parts, merged in two orders: the same bytes */
	facets part[3] = {{0}};
	for (int i = 0; i < N; i++)
		assert_int_equal(facets_add_report(&part[i % 3], &bucket[i].f, 1), 0);
	facets x = {0}, y = {0};
	for (int k = 0; k < 3; k++) {
		assert_int_equal(facets_merge(&x, &part[k]), 0);
		assert_int_equal(facets_merge(&y, &part[2 - k]), 0);
	}
	hg_buf bx, by;
	encode(&x, &bx);
	encode(&y, &by);
	assert_int_equal(bx.len, a.len);
	assert_memory_equal(bx.data, a.data, a.len);
	assert_memory_equal(by.data, a.data, a.len);

	/* each variant's sample is its newest report */
	for (size_t i = 0; i < all.len; i++) {
		const struct facet_value *v = &all.v[i];
		if (v->dim != FACET_VARIANT)
			continue;
		const struct made *best = NULL;
		for (int k = 0; k < N; k++) {
			const struct made *m = &bucket[k];
			if (strcmp(m->variant, v->value))
				continue;
			int c = best ? strcmp(m->time, best->time) : 1;
			if (c > 0 || (c == 0 && strcmp(m->hash, best->hash) > 0))
				best = m;
		}
		assert_non_null(best);
		char hex[65];
		assert_true(v->has_sample);
		facets_sample_hex(v, hex);
		assert_string_equal(hex, best->hash);
		assert_string_equal(v->time, best->time);
		assert_string_equal(v->entry, best->entry);
	}

	/* every report taken out again: nothing left to encode */
	for (int i = 0; i < N; i++)
		assert_int_equal(facets_add_report(&x, &bucket[i].f, -1), 0);
	assert_true(facets_empty(&x));
	hg_buf none;
	encode(&x, &none);
	assert_int_equal(none.len, 0);

	for (int k = 0; k < 3; k++)
		facets_release(&part[k]);
	facets_release(&all);
	facets_release(&again);
	facets_release(&lacks);
	facets_release(&x);
	facets_release(&y);
	hg_buf_release(&a);
	hg_buf_release(&b);
	hg_buf_release(&bx);
	hg_buf_release(&by);
	hg_buf_release(&none);
}

static void test_malformed_blobs(void **state)
{
	(void)state;
	facets f = {0};
	for (int i = 0; i < 50; i++) {
		struct made m;
		make(&m, i);
		assert_int_equal(facets_add_report(&f, &m.f, 1), 0);
	}
	hg_buf good;
	encode(&f, &good);
	facets_release(&f);
	/* every truncation is refused (the whole blob is the only good one) */
	for (size_t n = 1; n < good.len; n++) {
		unsigned char *copy = malloc(n); /* exactly n bytes: ASan sees a read past */
		memcpy(copy, good.data, n);
		facets t = {0};
		assert_int_equal(facets_decode_add(&t, copy, n), HG_EINVAL);
		facets_release(&t);
		free(copy);
	}
	/* a wrong tag, a dimension out of range, a NUL inside a value */
	static const unsigned char bad[][12] = {
		{'C', 0, 0, 0, 0, 0, 0},
		{'F', 0, 0, 0, 0, 0, 1, 9, 1, 'x', 1},
		{'F', 0, 0, 0, 0, 0, 1, 0, 2, 'x', 0, 1},
		{'F', 0, 0, 0, 0, 0, 1, FACET_VARIANT, 1, 'v', 1, 5},
	};
	static const size_t bad_len[] = {7, 11, 12, 12};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		facets t = {0};
		assert_int_equal(facets_decode_add(&t, bad[i], bad_len[i]), HG_EINVAL);
		facets_release(&t);
	}
	/* random bytes after the tag: refused or read, never past the end */
	for (int round = 0; round < 2000; round++) {
		size_t n = 1 + next() % 64;
		unsigned char *r = malloc(n);
		for (size_t k = 0; k < n; k++)
			r[k] = (unsigned char)(next() % 4 ? next() % 8 : next());
		r[0] = 'F';
		facets t = {0};
		int rc = facets_decode_add(&t, r, n);
		assert_true(rc == 0 || rc == HG_EINVAL);
		facets_release(&t);
		free(r);
	}
	hg_buf_release(&good);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_exact_and_round_trip),
		cmocka_unit_test(test_malformed_blobs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
