/* SHA-256 for the library (private): stack signatures, stored reports'
 * content hashes, rejected inputs, shard keys and staged files.  The only
 * window on libcrypto. */
#ifndef HANGAR_LIB_SHA256_H
#define HANGAR_LIB_SHA256_H

#include <stddef.h>

void hg_sha256(const void *data, size_t len, unsigned char out[32]);

/* The first `bytes` bytes of a digest as 2 * bytes lowercase hex digits
 * and a NUL. */
void hg_hex_digest(const unsigned char *md, size_t bytes, char *out);

#endif
