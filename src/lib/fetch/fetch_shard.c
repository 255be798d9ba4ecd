/* Sharding keys between hangar processes.  The hash is part of the
 * interface (two versions must agree on which process takes which key), so
 * it is spelled out: the first 8 bytes of SHA-256(key), big-endian, modulo
 * the number of shards.  SHA-256 rather than a fast hash because it is
 * already a dependency and every language has it. */
#include <string.h>

#include "fetch_internal.h"
#include "core/core.h"

uint32_t hg_shard_of(const char *key, unsigned shards)
{
	if (shards == 0)
		return 0;
	unsigned char md[32];
	hg_sha256(key, strlen(key), md);
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | md[i];
	return (uint32_t)(v % shards);
}
