/* A rollup's facets: how its reports break down by their kind (the
 * digest's totals) and what the cluster page shows (scene, foreground, OS, model, device class, ANR type, blocker,
 * variant, each value with its count; a variant also with its entry frame
 * and its newest report as a sample) and what was missing to name their
 * frames (hangar coverage).  Kept exactly, in a form that merges like the
 * rest of a rollup (days into a cluster's page, shards into one store),
 * and encoded to the rollups row's facets blob.  A report whose value is
 * unknown adds nothing: a dimension's unknown is the rollup's reports less
 * its values' counts, so rows that predate facets (days pruned before
 * schema 11) count as unknown. */
#ifndef HANGAR_ROLLUP_FACETS_H
#define HANGAR_ROLLUP_FACETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/core.h"
#include "hangar/text.h"

/* The kind first: values are encoded in this order, so that the kinds
 * and the lacks counts are read without the rest (facets_decode_head). */
enum facet_dim {
	FACET_KIND, FACET_SCENE, FACET_FOREGROUND, FACET_OS, FACET_MODEL, FACET_CLASS, FACET_ANR_TYPE,
	FACET_BLOCKER, FACET_VARIANT, FACET_N
};

/* What was missing to name a report's frames, as bits of
 * report_facets.lacks; facets.lacks counts each (and LACKS_KNOWN the
 * reports that say at all). */
enum { LACK_METHOD_MAPPING = 1, LACK_PROGUARD = 2, LACK_IMAGES = 4, LACK_ANY = 8 };
enum { LACKS_KNOWN, LACKS_METHOD_MAPPING, LACKS_PROGUARD, LACKS_IMAGES, LACKS_ANY, LACKS_N };

/* One report's facets, as ingest or a report row gives them (borrowed). */
struct report_facets {
	const char *value[FACET_N];   /* NULL: unknown; value[FACET_VARIANT] the variant */
	const char *entry;            /* the variant's entry frame, NULL unknown */
	const char *time;             /* the report's time (the store's form) or NULL */
	const char *content_hash;     /* 64 hex digits: the variant's sample, or NULL */
	int lacks;                    /* LACK_* bits; -1 unknown */
};

struct facet_value {
	char *value;                  /* owned */
	int64_t count;
	uint8_t dim;
	/* variants only: the entry frame (owned, NULL unknown) and the newest
	 * report (the latest time; ties: the greater hash) */
	char *entry;
	bool has_sample;
	char time[32];
	unsigned char sample[32];
};

typedef struct facets {
	struct facet_value *v;
	size_t len, cap;
	strmap index;                 /* dim + value -> slot, when many */
	bool indexed;
	int64_t lacks[LACKS_N];
} facets;

/* Adds a report (sign 1) or takes it out again (sign -1: its counts; a
 * variant keeps its sample, as rollup_remove_report keeps first/last). */
int facets_add_report(facets *f, const struct report_facets *r, int sign);
int facets_merge(facets *f, const facets *from);
/* Appends the canonical encoding (values sorted; nothing when empty). */
void facets_encode(facets *f, hg_buf *out);
/* Adds an encoding's facets: 0, HG_EINVAL (malformed) or HG_ENOMEM. */
int facets_decode_add(facets *f, const void *blob, size_t len);
/* The lacks counts and the kinds alone (coverage, the digest's totals),
 * the other values not read. */
int facets_decode_head(facets *f, const void *blob, size_t len);
bool facets_empty(const facets *f);
void facets_release(facets *f);

/* The sample's 64 hex digits. */
void facets_sample_hex(const struct facet_value *v, char out[65]);

#endif
