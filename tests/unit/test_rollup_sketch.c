/* The rollups' cost histograms, device sets and windows
 * (store/rollup_sketch.c, store/store_window.c): percentiles exact below
 * 16,384 ms and within 1/8,192 above, against a sort of the same costs;
 * device counts exact to 512 and within 5% beyond; encodings that round
 * trip and merge in any order; malformed, truncated and random blobs
 * refused, never read past; windows split into whole days and their
 * partial hours. */
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
#include "store/rollup_sketch.h"
#include "store/store_window.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int by_int(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Nearest rank over sorted v, as hg_store_top defines its percentiles. */
static int64_t rank(const int64_t *v, size_t n, int p)
{
	size_t r = (n * (size_t)p + 99) / 100;
	return n ? v[r ? r - 1 : 0] : 0;
}

static void test_percentiles_exact_below_16384(void **state)
{
	(void)state;
	for (int round = 0; round < 50; round++) {
		size_t n = 1 + next() % 3000;
		int64_t *v = malloc(n * sizeof *v);
		cost_hist h = {0};
		for (size_t i = 0; i < n; i++) {
			v[i] = (int64_t)(next() % COST_EXACT_BELOW);
			assert_int_equal(cost_hist_add(&h, v[i], 1), 0);
		}
		qsort(v, n, sizeof *v, by_int);
		cost_hist_normalize(&h);
		assert_int_equal(cost_hist_total(&h), (int64_t)n);
		for (int p = 1; p <= 100; p++)
			assert_int_equal(cost_hist_rank(&h, p), rank(v, n, p));
		free(v);
		cost_hist_release(&h);
	}
}

static void test_percentiles_within_bound_above(void **state)
{
	(void)state;
	const int64_t tops[] = {60000, 3600000, INT64_C(1) << 42};
	for (size_t t = 0; t < 3; t++) {
		size_t n = 2000;
		int64_t v[2000];
		cost_hist h = {0};
		for (size_t i = 0; i < n; i++) {
			v[i] = (int64_t)(next() % (uint64_t)tops[t]);
			assert_int_equal(cost_hist_add(&h, v[i], 1), 0);
		}
		qsort(v, n, sizeof *v, by_int);
		for (int p = 1; p <= 100; p++) {
			int64_t want = rank(v, n, p), got = cost_hist_rank(&h, p);
			assert_true(got <= want);
			assert_true(want - got <= want / 8192);
			assert_int_equal(got, cost_bin_of(want));
		}
		cost_hist_release(&h);
	}
	assert_int_equal(cost_bin_of(16383), 16383);
	assert_int_equal(cost_bin_of(16385), 16384);
	assert_int_equal(cost_bin_of(32769), 32768);
	assert_int_equal(cost_bin_of(32771), 32768);
	assert_int_equal(cost_bin_of(32772), 32772);
}

static void encode_costs(cost_hist *h, hg_buf *b)
{
	hg_buf_init(b);
	cost_hist_encode(h, b);
	assert_false(b->failed);
}

static void test_costs_round_trip_and_merge(void **state)
{
	(void)state;
	cost_hist a = {0}, b = {0}, ab = {0}, ba = {0};
	for (int i = 0; i < 500; i++) {
		assert_int_equal(cost_hist_add(&a, (int64_t)(next() % 100000), 1), 0);
		assert_int_equal(cost_hist_add(&b, (int64_t)(next() % 100000) - 50, 2), 0);
	}
	hg_buf ea, eb;
	encode_costs(&a, &ea);
	encode_costs(&b, &eb);
	assert_int_equal(cost_hist_decode_add(&ab, ea.data, ea.len), 0);
	assert_int_equal(cost_hist_decode_add(&ab, eb.data, eb.len), 0);
	assert_int_equal(cost_hist_decode_add(&ba, eb.data, eb.len), 0);
	assert_int_equal(cost_hist_decode_add(&ba, ea.data, ea.len), 0);
	hg_buf x, y;
	encode_costs(&ab, &x);
	encode_costs(&ba, &y);
	assert_int_equal(x.len, y.len);
	assert_memory_equal(x.data, y.data, x.len);
	assert_int_equal(cost_hist_total(&ab), 1500);
	/* taking b out again leaves a */
	for (size_t i = 0; i < b.len; i++)
		assert_int_equal(cost_hist_add(&ab, b.bins[i].value, -b.bins[i].n), 0);
	hg_buf z;
	encode_costs(&ab, &z);
	assert_int_equal(z.len, ea.len);
	assert_memory_equal(z.data, ea.data, z.len);
	hg_buf *bufs[] = {&ea, &eb, &x, &y, &z};
	for (size_t i = 0; i < 5; i++)
		hg_buf_release(bufs[i]);
	cost_hist *hs[] = {&a, &b, &ab, &ba};
	for (size_t i = 0; i < 4; i++)
		cost_hist_release(hs[i]);
}

static void test_devices_exact_then_estimated(void **state)
{
	(void)state;
	const int sizes[] = {0, 1, 511, 512, 513, 5000, 100000};
	for (size_t s = 0; s < 7; s++) {
		device_set d = {0};
		for (int i = 0; i < sizes[s]; i++) {
			char name[32];
			snprintf(name, sizeof name, "device-%d", i);
			/* each twice: distinct devices, not reports */
			assert_int_equal(device_set_add(&d, device_hash(name)), 0);
			assert_int_equal(device_set_add(&d, device_hash(name)), 0);
		}
		int64_t got = device_set_count(&d);
		if (sizes[s] <= DEVICE_EXACT_MAX) {
			assert_false(device_set_estimated(&d));
			assert_int_equal(got, sizes[s]);
		} else {
			assert_true(device_set_estimated(&d));
			double err = (double)(got - sizes[s]) / sizes[s];
			if (err < -0.05 || err > 0.05)
				fail_msg("%d devices estimated as %lld", sizes[s], (long long)got);
		}
		/* the encoding round trips, and a union with itself is itself */
		hg_buf b;
		hg_buf_init(&b);
		device_set_encode(&d, &b);
		device_set e = {0};
		assert_int_equal(device_set_decode_add(&e, b.data, b.len), 0);
		assert_int_equal(device_set_decode_add(&e, b.data, b.len), 0);
		assert_int_equal(device_set_count(&e), got);
		hg_buf_release(&b);
		device_set_release(&d);
		device_set_release(&e);
	}
}

static void test_devices_union(void **state)
{
	(void)state;
	/* two halves of 400 overlapping in 100: 700 distinct, an estimate */
	device_set a = {0}, b = {0};
	for (int i = 0; i < 400; i++) {
		char name[32];
		snprintf(name, sizeof name, "m%d", i);
		assert_int_equal(device_set_add(&a, device_hash(name)), 0);
		snprintf(name, sizeof name, "m%d", i + 300);
		assert_int_equal(device_set_add(&b, device_hash(name)), 0);
	}
	hg_buf eb;
	hg_buf_init(&eb);
	device_set_encode(&b, &eb);
	assert_int_equal(device_set_decode_add(&a, eb.data, eb.len), 0);
	int64_t n = device_set_count(&a);
	assert_true(device_set_estimated(&a));
	assert_true(n > 665 && n < 735);
	hg_buf_release(&eb);
	device_set_release(&a);
	device_set_release(&b);
}

/* Every prefix of a valid encoding, and random bytes, are refused or read
 * within their length (ASan sees any read past: each is a copy of its
 * exact size). */
static void test_malformed_blobs(void **state)
{
	(void)state;
	cost_hist h = {0};
	device_set d = {0};
	for (int i = 0; i < 300; i++) {
		assert_int_equal(cost_hist_add(&h, (int64_t)(next() % 40000), 1 + (int64_t)(next() % 3)), 0);
		assert_int_equal(device_set_add(&d, next()), 0);
	}
	hg_buf ec, ed;
	encode_costs(&h, &ec);
	hg_buf_init(&ed);
	device_set_encode(&d, &ed);
	hg_buf *encs[] = {&ec, &ed};
	for (int k = 0; k < 2; k++) {
		for (size_t n = 0; n < encs[k]->len; n++) {
			unsigned char *p = malloc(n ? n : 1);
			memcpy(p, encs[k]->data, n);
			cost_hist x = {0};
			device_set y = {0};
			int rc = k == 0 ? cost_hist_decode_add(&x, p, n) : device_set_decode_add(&y, p, n);
			assert_int_equal(rc, HG_EINVAL);
			cost_hist_release(&x);
			device_set_release(&y);
			free(p);
		}
	}
	for (int i = 0; i < 20000; i++) {
		size_t n = next() % 64;
		unsigned char *p = malloc(n ? n : 1);
		for (size_t j = 0; j < n; j++)
			p[j] = (unsigned char)next();
		if (n && i % 3 == 0)
			p[0] = "CSH"[i % 9 / 3];
		cost_hist x = {0};
		device_set y = {0};
		int rc = cost_hist_decode_add(&x, p, n);
		assert_true(rc == 0 || rc == HG_EINVAL);
		rc = device_set_decode_add(&y, p, n);
		assert_true(rc == 0 || rc == HG_EINVAL);
		cost_hist_release(&x);
		device_set_release(&y);
		free(p);
	}
	hg_buf_release(&ec);
	hg_buf_release(&ed);
	cost_hist_release(&h);
	device_set_release(&d);
}

static void test_windows(void **state)
{
	(void)state;
	struct store_window w;
	/* whole days only */
	assert_int_equal(store_window_make(&w, "2026-11-03T00:00:00.000Z",
					   "2026-11-06T00:00:00.000Z", false), 0);
	assert_string_equal(w.lo, "2026-11-03");
	assert_string_equal(w.hi, "2026-11-05");
	assert_int_equal(w.n_edges, 0);
	/* the same end included: its first millisecond is an edge */
	assert_int_equal(store_window_make(&w, "2026-11-03T00:00:00.000Z",
					   "2026-11-06T00:00:00.000Z", true), 0);
	assert_int_equal(w.n_edges, 1);
	assert_string_equal(w.edge[0][0], "2026-11-06T00:00:00.000Z");
	assert_string_equal(w.edge[0][1], "2026-11-06T00:00:00.000Z");
	/* partial days at both ends, across a month and a leap day */
	assert_int_equal(store_window_make(&w, "2024-02-28T12:30:00.000Z",
					   "2024-03-01T06:00:00.000Z", false), 0);
	assert_string_equal(w.lo, "2024-02-29");
	assert_string_equal(w.hi, "2024-02-29");
	assert_int_equal(w.n_edges, 2);
	assert_string_equal(w.edge[0][0], "2024-02-28T12:30:00.000Z");
	assert_string_equal(w.edge[0][1], "2024-02-28T23:59:59.999Z");
	assert_string_equal(w.edge[1][0], "2024-03-01T00:00:00.000Z");
	assert_string_equal(w.edge[1][1], "2024-03-01T05:59:59.999Z");
	/* within one day: no whole day, one edge */
	assert_int_equal(store_window_make(&w, "2026-11-03T08:00:00.000Z",
					   "2026-11-03T09:00:00.000Z", true), 0);
	assert_true(w.no_days);
	assert_int_equal(w.n_edges, 1);
	assert_string_equal(w.edge[0][1], "2026-11-03T09:00:00.000Z");
	/* open ends */
	assert_int_equal(store_window_make(&w, NULL, "2026-11-03T08:00:00.000Z", false), 0);
	assert_string_equal(w.lo, "");
	assert_string_equal(w.hi, "2026-11-02");
	assert_int_equal(w.n_edges, 1);
	assert_string_equal(w.edge[0][0], "2026-11-03T00:00:00.000Z");
	assert_string_equal(w.edge[0][1], "2026-11-03T07:59:59.999Z");
	assert_int_equal(store_window_make(&w, "1969-12-31T23:00:00.000Z", NULL, false), 0);
	assert_string_equal(w.lo, "1970-01-01");
	assert_string_equal(w.edge[0][1], "1969-12-31T23:59:59.999Z");
	/* not the store's form */
	assert_int_equal(store_window_make(&w, "2026-11-03", NULL, false), -1);
	char day[32];
	assert_int_equal(store_day_start("2024-03-01", -1, day), 0);
	assert_string_equal(day, "2024-02-29T00:00:00.000Z");
	assert_int_equal(store_days_between("2024-02-01T00:00:00.000Z", "2024-03-01T00:00:00.000Z"), 29);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percentiles_exact_below_16384),
		cmocka_unit_test(test_percentiles_within_bound_above),
		cmocka_unit_test(test_costs_round_trip_and_merge),
		cmocka_unit_test(test_devices_exact_then_estimated),
		cmocka_unit_test(test_devices_union),
		cmocka_unit_test(test_malformed_blobs),
		cmocka_unit_test(test_windows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
