/* A rollup's facets (rollup_facets.h).
 *
 * Why exact counts and not a sketch: a cluster's page shows each value's
 * share, and the values of one cluster are few (the devices and scenes
 * its reports came from); a rollup row of one day holds a few values per
 * dimension.  Values are found by a scan while few (most rows hold one
 * report) and through a map once many, so a big row's decoding stays
 * linear. */
#include <stdlib.h>
#include <string.h>

#include "hangar/hangar.h"
#include "rollup_facets.h"
#include "rollup_sketch.h"

#define FACETS_SCAN 8   /* values found by a scan up to this many */

/* ---- finding a value ---- */

/* The map's key: the dimension as one byte (1-based: never NUL) then the
 * value; NULL on ENOMEM. */
static char *index_key(uint8_t dim, const char *value, size_t n)
{
	char *k = malloc(n + 2);
	if (k) {
		k[0] = (char)(dim + 1);
		memcpy(k + 1, value, n);
		k[n + 1] = '\0';
	}
	return k;
}

static int index_all(facets *f)
{
	strmap_clear(&f->index);
	for (size_t i = 0; i < f->len; i++) {
		char *k = index_key(f->v[i].dim, f->v[i].value, strlen(f->v[i].value));
		int err = k ? strmap_put(&f->index, k, (int64_t)i) : HG_ENOMEM;
		free(k);
		if (err) {
			strmap_clear(&f->index);
			return err;
		}
	}
	f->indexed = true;
	return 0;
}

/* The index slot of (dim, value[0..n)) or -1; key gets the map's key (in
 * small when it fits: most lookups allocate nothing; the caller frees
 * it otherwise). */
static int64_t lookup(const facets *f, uint8_t dim, const char *value, size_t n, char small[128],
		      char **key)
{
	if (n + 2 <= 128) {
		small[0] = (char)(dim + 1);
		memcpy(small + 1, value, n);
		small[n + 1] = '\0';
		*key = small;
	} else if (!(*key = index_key(dim, value, n))) {
		return -2;
	}
	int64_t at;
	return strmap_get(&f->index, *key, &at) ? at : -1;
}

/* The slot of (dim, value[0..n)), added with a count of 0 when new; NULL
 * on ENOMEM. */
static struct facet_value *find(facets *f, uint8_t dim, const char *value, size_t n)
{
	if (!f->indexed && f->len >= FACETS_SCAN && index_all(f))
		return NULL;
	char small[128], *key = NULL;
	if (f->indexed) {
		int64_t at = lookup(f, dim, value, n, small, &key);
		if (at == -2)
			return NULL;
		if (at >= 0) {
			if (key != small)
				free(key);
			return &f->v[at];
		}
	} else {
		for (size_t i = 0; i < f->len; i++)
			if (f->v[i].dim == dim && !strncmp(f->v[i].value, value, n) &&
			    f->v[i].value[n] == '\0')
				return &f->v[i];
	}
	struct facet_value *v = NULL;
	if (f->len == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 4;
		struct facet_value *grown = realloc(f->v, cap * sizeof *grown);
		if (!grown)
			goto out;
		f->v = grown;
		f->cap = cap;
	}
	v = &f->v[f->len];
	*v = (struct facet_value){.dim = dim};
	if (!(v->value = malloc(n + 1)) || (key && strmap_put(&f->index, key, (int64_t)f->len))) {
		free(v->value);
		v = NULL;
		goto out;
	}
	memcpy(v->value, value, n);
	v->value[n] = '\0';
	f->len++;
out:
	if (key != small)
		free(key);
	return v;
}

/* ---- a variant's sample: the newest report ---- */

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static bool sample_of_hex(const char *hex, unsigned char out[32])
{
	if (!hex || strlen(hex) != 64)
		return false;
	for (int i = 0; i < 32; i++) {
		int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return false;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return true;
}

void facets_sample_hex(const struct facet_value *v, char out[65])
{
	static const char digits[] = "0123456789abcdef";
	for (int i = 0; i < 32; i++) {
		out[2 * i] = digits[v->sample[i] >> 4];
		out[2 * i + 1] = digits[v->sample[i] & 15];
	}
	out[64] = '\0';
}

/* Keeps the newer of v's sample and (time, sample): the later time, the
 * greater hash among equal times, so that any order of merging agrees. */
static void keep_sample(struct facet_value *v, const char *time, const unsigned char sample[32])
{
	const char *t = time ? time : "";
	int c = v->has_sample ? strcmp(t, v->time) : 1;
	if (c < 0 || (c == 0 && memcmp(sample, v->sample, 32) <= 0))
		return;
	size_t n = strlen(t);
	n = n < sizeof v->time - 1 ? n : sizeof v->time - 1;
	memcpy(v->time, t, n);
	v->time[n] = '\0';
	memcpy(v->sample, sample, 32);
	v->has_sample = true;
}

static int keep_entry(struct facet_value *v, const char *entry, size_t n)
{
	if (v->entry || !entry)
		return 0;
	if (!(v->entry = malloc(n + 1)))
		return HG_ENOMEM;
	memcpy(v->entry, entry, n);
	v->entry[n] = '\0';
	return 0;
}

/* ---- adding ---- */

int facets_add_report(facets *f, const struct report_facets *r, int sign)
{
	for (int d = 0; d < FACET_N; d++) {
		const char *value = r->value[d];
		if (!value)
			continue;
		struct facet_value *v = find(f, (uint8_t)d, value, strlen(value));
		if (!v)
			return HG_ENOMEM;
		v->count += sign;
		if (d != FACET_VARIANT || sign < 0)
			continue;
		unsigned char sample[32];
		if (sample_of_hex(r->content_hash, sample))
			keep_sample(v, r->time, sample);
		if (r->entry && keep_entry(v, r->entry, strlen(r->entry)))
			return HG_ENOMEM;
	}
	if (r->lacks >= 0) {
		f->lacks[LACKS_KNOWN] += sign;
		f->lacks[LACKS_METHOD_MAPPING] += sign * !!(r->lacks & LACK_METHOD_MAPPING);
		f->lacks[LACKS_PROGUARD] += sign * !!(r->lacks & LACK_PROGUARD);
		f->lacks[LACKS_IMAGES] += sign * !!(r->lacks & LACK_IMAGES);
		f->lacks[LACKS_ANY] += sign * !!(r->lacks & LACK_ANY);
	}
	return 0;
}

int facets_merge(facets *f, const facets *from)
{
	for (size_t i = 0; i < from->len; i++) {
		const struct facet_value *s = &from->v[i];
		struct facet_value *v = find(f, s->dim, s->value, strlen(s->value));
		if (!v)
			return HG_ENOMEM;
		v->count += s->count;
		if (s->has_sample)
			keep_sample(v, s->time, s->sample);
		if (s->entry && keep_entry(v, s->entry, strlen(s->entry)))
			return HG_ENOMEM;
	}
	for (int k = 0; k < LACKS_N; k++)
		f->lacks[k] += from->lacks[k];
	return 0;
}

bool facets_empty(const facets *f)
{
	for (size_t i = 0; i < f->len; i++)
		if (f->v[i].count)
			return false;
	for (int k = 0; k < LACKS_N; k++)
		if (f->lacks[k])
			return false;
	return true;
}

/* ---- the blob ----
 * 'F', the five lacks counts, the number of values, each as its
 * dimension (a byte), its length and bytes and its count, a variant then
 * its entry (length + 1, 0 when unknown) and its sample (a byte 0/1, then
 * the time's length and bytes and the hash's 32 bytes).  Values of a
 * count of 0 (a merge took all out) are left out. */

static int by_dim_value(const void *a, const void *b)
{
	const struct facet_value *x = a, *y = b;
	return x->dim != y->dim ? (x->dim < y->dim ? -1 : 1) : strcmp(x->value, y->value);
}

static void put_bytes(hg_buf *out, const char *s, size_t n)
{
	sketch_put_varint(out, n);
	hg_buf_add(out, s, n);
}

void facets_encode(facets *f, hg_buf *out)
{
	if (facets_empty(f))
		return;
	if (f->len > 1) {
		qsort(f->v, f->len, sizeof *f->v, by_dim_value);
		strmap_clear(&f->index);
		f->indexed = false;
	}
	size_t n = 0;
	for (size_t i = 0; i < f->len; i++)
		n += f->v[i].count > 0;
	hg_buf_putc(out, 'F');
	for (int k = 0; k < LACKS_N; k++) /* first: coverage reads these alone */
		sketch_put_varint(out, f->lacks[k] > 0 ? (uint64_t)f->lacks[k] : 0);
	sketch_put_varint(out, n);
	for (size_t i = 0; i < f->len; i++) {
		const struct facet_value *v = &f->v[i];
		if (v->count <= 0)
			continue;
		hg_buf_putc(out, (char)v->dim);
		put_bytes(out, v->value, strlen(v->value));
		sketch_put_varint(out, (uint64_t)v->count);
		if (v->dim != FACET_VARIANT)
			continue;
		sketch_put_varint(out, v->entry ? strlen(v->entry) + 1 : 0);
		hg_buf_add(out, v->entry ? v->entry : "", v->entry ? strlen(v->entry) : 0);
		hg_buf_putc(out, (char)v->has_sample);
		if (v->has_sample) {
			put_bytes(out, v->time, strlen(v->time));
			hg_buf_add(out, (const char *)v->sample, 32);
		}
	}
}

/* A length-prefixed string of the blob: false when malformed. */
static bool get_bytes(const unsigned char **p, const unsigned char *end, const char **s,
		      size_t *n)
{
	uint64_t len;
	if (!sketch_get_varint(p, end, &len) || len > (uint64_t)(end - *p))
		return false;
	*s = (const char *)*p;
	*n = (size_t)len;
	*p += len;
	return true;
}

static int decode_value(facets *f, const unsigned char **p, const unsigned char *end)
{
	if (*p >= end || **p >= FACET_N)
		return HG_EINVAL;
	uint8_t dim = *(*p)++;
	const char *value;
	size_t n;
	uint64_t count;
	if (!get_bytes(p, end, &value, &n) || memchr(value, '\0', n) ||
	    !sketch_get_varint(p, end, &count) || count > INT64_MAX)
		return HG_EINVAL;
	struct facet_value *v = find(f, dim, value, n);
	if (!v)
		return HG_ENOMEM;
	v->count += (int64_t)count;
	if (dim != FACET_VARIANT)
		return 0;
	uint64_t elen;
	if (!sketch_get_varint(p, end, &elen) || elen > (uint64_t)(end - *p) + 1)
		return HG_EINVAL;
	const char *entry = (const char *)*p;
	if (elen) {
		if (memchr(entry, '\0', elen - 1))
			return HG_EINVAL;
		*p += elen - 1;
		if (keep_entry(v, entry, elen - 1))
			return HG_ENOMEM;
	}
	if (*p >= end || **p > 1)
		return HG_EINVAL;
	if (!*(*p)++)
		return 0;
	const char *time;
	size_t tlen;
	if (!get_bytes(p, end, &time, &tlen) || tlen >= sizeof v->time ||
	    memchr(time, '\0', tlen) || end - *p < 32)
		return HG_EINVAL;
	char t[sizeof v->time];
	memcpy(t, time, tlen);
	t[tlen] = '\0';
	keep_sample(v, t, *p);
	*p += 32;
	return 0;
}

static int decode(facets *f, const void *blob, size_t len, bool head_only)
{
	if (!len)
		return 0;
	const unsigned char *p = blob, *end = p + len;
	if (*p++ != 'F')
		return HG_EINVAL;
	for (int k = 0; k < LACKS_N; k++) {
		uint64_t c;
		if (!sketch_get_varint(&p, end, &c) || c > INT64_MAX)
			return HG_EINVAL;
		f->lacks[k] += (int64_t)c;
	}
	uint64_t n;
	if (!sketch_get_varint(&p, end, &n) || n > len)
		return HG_EINVAL;
	for (uint64_t i = 0; i < n; i++) {
		if (head_only && p < end && *p != FACET_KIND)
			return 0; /* past the kinds, which come first */
		int err = decode_value(f, &p, end);
		if (err)
			return err;
	}
	return p == end ? 0 : HG_EINVAL;
}

int facets_decode_add(facets *f, const void *blob, size_t len)
{
	return decode(f, blob, len, false);
}

int facets_decode_head(facets *f, const void *blob, size_t len)
{
	return decode(f, blob, len, true);
}

void facets_release(facets *f)
{
	for (size_t i = 0; i < f->len; i++) {
		free(f->v[i].value);
		free(f->v[i].entry);
	}
	free(f->v);
	strmap_clear(&f->index);
	*f = (facets){0};
}
