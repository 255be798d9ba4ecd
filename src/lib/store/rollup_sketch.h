/* What a rollup keeps of its reports' costs and devices, in forms that
 * merge: a cost histogram (exact below 16,384 ms, within 1/8,192 above)
 * and a device set (exact up to 512 devices, a HyperLogLog estimate
 * within about 1.6% beyond).  Both encode to compact blobs stored in the
 * rollups table (store_rollup.c) and decode back bit-exactly. */
#ifndef HANGAR_ROLLUP_SKETCH_H
#define HANGAR_ROLLUP_SKETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hangar/text.h"

/* Costs below this are kept exactly; above, to their 14 leading bits
 * (an error under 1/8,192 of the cost: under 8 ms at a minute). */
#define COST_EXACT_BELOW 16384

/* LEB128 varints, as the blobs here and the facets' (rollup_facets.c)
 * write them; get: false when the bytes end first. */
void sketch_put_varint(hg_buf *out, uint64_t v);
bool sketch_get_varint(const unsigned char **p, const unsigned char *end, uint64_t *v);

/* ---- costs ---- */

struct cost_bin {
	int64_t value;  /* the cost, or the low end of its bin */
	int64_t n;
};

/* A multiset of costs.  Added bins may be unsorted and repeated until
 * cost_hist_normalize, which every reader below wants first. */
typedef struct cost_hist {
	struct cost_bin *bins;
	size_t len, cap;
	bool sorted;
} cost_hist;

/* The bin a cost falls in (its low end). */
int64_t cost_bin_of(int64_t cost);
int cost_hist_add(cost_hist *h, int64_t cost, int64_t n);
/* Sorts the bins and merges equal ones. */
void cost_hist_normalize(cost_hist *h);
int64_t cost_hist_total(const cost_hist *h);
/* Nearest rank: the cost at rank ceil(p * n / 100) (0 when empty);
 * normalizes h first. */
int64_t cost_hist_rank(cost_hist *h, int p);
/* Appends h's encoding (normalized first) to out. */
void cost_hist_encode(cost_hist *h, hg_buf *out);
/* Adds the bins of an encoding to h: 0, HG_EINVAL (malformed) or HG_ENOMEM. */
int cost_hist_decode_add(cost_hist *h, const void *blob, size_t len);
void cost_hist_clear(cost_hist *h);
void cost_hist_release(cost_hist *h);

/* ---- devices ---- */

#define DEVICE_EXACT_MAX 512
#define DEVICE_HLL_BITS 12
#define DEVICE_HLL_REGISTERS (1 << DEVICE_HLL_BITS)

/* Distinct devices: their 64-bit hashes while at most DEVICE_EXACT_MAX,
 * then HyperLogLog registers (hll non-NULL) and no hashes. */
typedef struct device_set {
	uint64_t *slots;   /* open addressing; 0 is empty (a hash of 0 is made 1) */
	size_t len, cap;   /* cap a power of two or 0 */
	uint8_t *hll;
} device_set;

uint64_t device_hash(const char *device);
int device_set_add(device_set *d, uint64_t hash);
/* Distinct devices: exact or the estimate. */
int64_t device_set_count(const device_set *d);
bool device_set_estimated(const device_set *d);
void device_set_encode(const device_set *d, hg_buf *out);
int device_set_decode_add(device_set *d, const void *blob, size_t len);
void device_set_clear(device_set *d);
void device_set_release(device_set *d);

#endif
