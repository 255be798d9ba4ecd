/* The rollups' cost histograms and device sets (rollup_sketch.h).
 *
 * Why these forms: a rollup row must merge with another (days into a
 * window, shards into one store) without its reports.  Costs are
 * milliseconds and cluster around a few values, so a sparse histogram
 * keeps the percentiles exact where they matter (below 16 s) in a few
 * hundred bins; devices are exact while few, and a HyperLogLog of 4,096
 * registers (standard error 1.04/sqrt(4096) = 1.6%) once more than 512,
 * where an exact set would outgrow the row. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/hangar.h"
#include "rollup_sketch.h"

/* ---- varints: LEB128, signed ones zigzagged ---- */

void sketch_put_varint(hg_buf *out, uint64_t v)
{
	char b[10];
	size_t n = 0;
	do {
		b[n++] = (char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	hg_buf_add(out, b, n);
}

bool sketch_get_varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	uint64_t x = 0;
	for (int shift = 0; shift < 64 && *p < end; shift += 7) {
		unsigned char c = *(*p)++;
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* ---- costs ---- */

int64_t cost_bin_of(int64_t cost)
{
	if (cost < COST_EXACT_BELOW)
		return cost;
	int shift = 63 - __builtin_clzll((unsigned long long)cost) - 13;
	return (int64_t)(((uint64_t)cost >> shift) << shift);
}

int cost_hist_add(cost_hist *h, int64_t cost, int64_t n)
{
	int64_t v = cost_bin_of(cost);
	if (h->len && h->bins[h->len - 1].value == v) {
		h->bins[h->len - 1].n += n;
		return 0;
	}
	if (h->len == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 16;
		struct cost_bin *b = realloc(h->bins, cap * sizeof *b);
		if (!b)
			return HG_ENOMEM;
		h->bins = b;
		h->cap = cap;
	}
	if (h->len && v < h->bins[h->len - 1].value)
		h->sorted = false;
	else if (!h->len)
		h->sorted = true;
	h->bins[h->len++] = (struct cost_bin){v, n};
	return 0;
}

static int by_value(const void *a, const void *b)
{
	int64_t x = ((const struct cost_bin *)a)->value, y = ((const struct cost_bin *)b)->value;
	return (x > y) - (x < y);
}

/* Sorts bins made of sorted runs (each decoded blob is one), merging
 * neighbouring runs until one is left: linear in the bins per pass and
 * the passes log2 of the runs, without qsort's call per comparison (a
 * third of top's instructions at 400,000 reports).  false on ENOMEM. */
static bool merge_runs(struct cost_bin *a, size_t n)
{
	struct cost_bin *tmp = malloc(n * sizeof *tmp);
	if (!tmp)
		return false;
	for (;;) {
		size_t i = 0, merges = 0;
		while (i < n) {
			size_t mid = i + 1;
			while (mid < n && a[mid - 1].value <= a[mid].value)
				mid++;
			if (mid >= n)
				break;
			size_t end = mid + 1;
			while (end < n && a[end - 1].value <= a[end].value)
				end++;
			size_t x = i, y = mid, k = i;
			while (x < mid && y < end)
				tmp[k++] = a[y].value < a[x].value ? a[y++] : a[x++];
			while (x < mid)
				tmp[k++] = a[x++];
			while (y < end)
				tmp[k++] = a[y++];
			memcpy(a + i, tmp + i, (end - i) * sizeof *a);
			merges++;
			i = end;
		}
		if (!merges)
			break;
	}
	free(tmp);
	return true;
}

void cost_hist_normalize(cost_hist *h)
{
	if (!h->len)
		return;
	if (!h->sorted && !merge_runs(h->bins, h->len))
		qsort(h->bins, h->len, sizeof *h->bins, by_value);
	size_t w = 0;
	for (size_t r = 0; r < h->len; r++) {
		if (w && h->bins[w - 1].value == h->bins[r].value)
			h->bins[w - 1].n += h->bins[r].n;
		else
			h->bins[w++] = h->bins[r];
	}
	/* bins a removal emptied (rollup_remove_report) */
	size_t kept = 0;
	for (size_t r = 0; r < w; r++)
		if (h->bins[r].n > 0)
			h->bins[kept++] = h->bins[r];
	h->len = kept;
	h->sorted = true;
}

int64_t cost_hist_total(const cost_hist *h)
{
	int64_t n = 0;
	for (size_t i = 0; i < h->len; i++)
		n += h->bins[i].n;
	return n;
}

int64_t cost_hist_rank(cost_hist *h, int p)
{
	cost_hist_normalize(h);
	int64_t n = cost_hist_total(h);
	if (!n)
		return 0;
	int64_t r = (n * p + 99) / 100, seen = 0;
	r = r ? r : 1;
	for (size_t i = 0; i < h->len; i++) {
		seen += h->bins[i].n;
		if (seen >= r)
			return h->bins[i].value;
	}
	return h->bins[h->len - 1].value;
}

/* 'C', the number of bins, then each bin's value (as a zigzagged step
 * from the one before) and count. */
void cost_hist_encode(cost_hist *h, hg_buf *out)
{
	cost_hist_normalize(h);
	hg_buf_putc(out, 'C');
	sketch_put_varint(out, h->len);
	int64_t prev = 0;
	for (size_t i = 0; i < h->len; i++) {
		sketch_put_varint(out, zigzag(h->bins[i].value - prev));
		sketch_put_varint(out, (uint64_t)h->bins[i].n);
		prev = h->bins[i].value;
	}
}

int cost_hist_decode_add(cost_hist *h, const void *blob, size_t len)
{
	const unsigned char *p = blob, *end = p + len;
	uint64_t bins, step, n;
	if (!len || *p++ != 'C' || !sketch_get_varint(&p, end, &bins) || bins > len)
		return HG_EINVAL;
	int64_t value = 0;
	for (uint64_t i = 0; i < bins; i++) {
		if (!sketch_get_varint(&p, end, &step) || !sketch_get_varint(&p, end, &n) || n > INT64_MAX)
			return HG_EINVAL;
		value += unzigzag(step);
		if (cost_hist_add(h, value, (int64_t)n) != 0)
			return HG_ENOMEM;
	}
	return p == end ? 0 : HG_EINVAL;
}

void cost_hist_clear(cost_hist *h)
{
	h->len = 0;
	h->sorted = true;
}

void cost_hist_release(cost_hist *h)
{
	free(h->bins);
	*h = (cost_hist){0};
}

/* ---- devices ---- */

/* FNV-1a, then murmur3's finalizer: HyperLogLog reads the top bits and
 * the leading zeros of the rest, which FNV alone mixes poorly. */
uint64_t device_hash(const char *device)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (const unsigned char *p = (const unsigned char *)device; *p; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h ? h : 1;
}

static void hll_add(uint8_t *hll, uint64_t h)
{
	size_t j = (size_t)(h >> (64 - DEVICE_HLL_BITS));
	uint64_t rest = h << DEVICE_HLL_BITS;
	uint8_t rho = rest ? (uint8_t)(__builtin_clzll(rest) + 1) : 64 - DEVICE_HLL_BITS + 1;
	if (rho > hll[j])
		hll[j] = rho;
}

static int to_hll(device_set *d)
{
	d->hll = calloc(DEVICE_HLL_REGISTERS, 1);
	if (!d->hll)
		return HG_ENOMEM;
	for (size_t i = 0; i < d->cap; i++)
		if (d->slots[i])
			hll_add(d->hll, d->slots[i]);
	free(d->slots);
	d->slots = NULL;
	d->len = d->cap = 0;
	return 0;
}

static void put_slot(uint64_t *slots, size_t cap, uint64_t h, size_t *len)
{
	size_t i = (size_t)h & (cap - 1);
	while (slots[i] && slots[i] != h)
		i = (i + 1) & (cap - 1);
	if (!slots[i]) {
		slots[i] = h;
		(*len)++;
	}
}

int device_set_add(device_set *d, uint64_t h)
{
	h = h ? h : 1;
	if (d->hll) {
		hll_add(d->hll, h);
		return 0;
	}
	if (2 * (d->len + 1) > d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 16;
		uint64_t *slots = calloc(cap, sizeof *slots);
		if (!slots)
			return HG_ENOMEM;
		size_t len = 0;
		for (size_t i = 0; i < d->cap; i++)
			if (d->slots[i])
				put_slot(slots, cap, d->slots[i], &len);
		free(d->slots);
		d->slots = slots;
		d->cap = cap;
	}
	put_slot(d->slots, d->cap, h, &d->len);
	return d->len > DEVICE_EXACT_MAX ? to_hll(d) : 0;
}

int64_t device_set_count(const device_set *d)
{
	if (!d->hll)
		return (int64_t)d->len;
	const double m = DEVICE_HLL_REGISTERS;
	double sum = 0;
	size_t zeros = 0;
	for (size_t j = 0; j < DEVICE_HLL_REGISTERS; j++) {
		sum += ldexp(1.0, -d->hll[j]);
		zeros += !d->hll[j];
	}
	double e = 0.7213 / (1 + 1.079 / m) * m * m / sum;
	if (e <= 2.5 * m && zeros)
		e = m * log(m / (double)zeros); /* linear counting while registers are empty */
	return (int64_t)llround(e);
}

bool device_set_estimated(const device_set *d)
{
	return d->hll != NULL;
}

static int by_hash(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* 'S', the number of hashes, the sorted hashes as steps; or 'H' and the
 * registers. */
void device_set_encode(const device_set *d, hg_buf *out)
{
	if (d->hll) {
		hg_buf_putc(out, 'H');
		hg_buf_add(out, (const char *)d->hll, DEVICE_HLL_REGISTERS);
		return;
	}
	hg_buf_putc(out, 'S');
	sketch_put_varint(out, d->len);
	uint64_t sorted[DEVICE_EXACT_MAX];
	size_t n = 0;
	for (size_t i = 0; i < d->cap; i++)
		if (d->slots[i])
			sorted[n++] = d->slots[i];
	qsort(sorted, n, sizeof *sorted, by_hash);
	uint64_t prev = 0;
	for (size_t i = 0; i < n; i++) {
		sketch_put_varint(out, sorted[i] - prev);
		prev = sorted[i];
	}
}

int device_set_decode_add(device_set *d, const void *blob, size_t len)
{
	const unsigned char *p = blob, *end = p + len;
	if (!len)
		return HG_EINVAL;
	if (*p == 'H') {
		if (len != 1 + DEVICE_HLL_REGISTERS)
			return HG_EINVAL;
		if (!d->hll && to_hll(d) != 0)
			return HG_ENOMEM;
		for (size_t j = 0; j < DEVICE_HLL_REGISTERS; j++) {
			if (p[1 + j] > 64 - DEVICE_HLL_BITS + 1)
				return HG_EINVAL;
			if (p[1 + j] > d->hll[j])
				d->hll[j] = p[1 + j];
		}
		return 0;
	}
	uint64_t n, step, h = 0;
	p++;
	if (blob == NULL || *(const unsigned char *)blob != 'S' || !sketch_get_varint(&p, end, &n) ||
	    n > DEVICE_EXACT_MAX)
		return HG_EINVAL;
	for (uint64_t i = 0; i < n; i++) {
		if (!sketch_get_varint(&p, end, &step) || !step)
			return HG_EINVAL;
		h += step;
		int err = device_set_add(d, h);
		if (err)
			return err;
	}
	return p == end ? 0 : HG_EINVAL;
}

void device_set_clear(device_set *d)
{
	device_set_release(d);
}

void device_set_release(device_set *d)
{
	free(d->slots);
	free(d->hll);
	*d = (device_set){0};
}
