/* AppMethodBeat buffers: the 64-bit words Matrix records for every method
 * entry and exit on the main thread, and the encodings they travel in.
 *
 * Word layout (Matrix's AppMethodBeat):
 *   bit 63       1 = method entry, 0 = exit
 *   bits 43..62  method id (20 bits)
 *   bits 0..42   time in ms
 * Zero words are padding. */
#ifndef HANGAR_BEAT_H
#define HANGAR_BEAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"

/* android.os.Handler.dispatchMessage: the marker at the start of each message. */
#define HG_BEAT_DISPATCH_ID 1048574
#define HG_BEAT_MAX_METHOD_ID 0xFFFFF

static inline bool hg_beat_is_entry(int64_t word)
{
	return ((uint64_t)word >> 63) != 0;
}

static inline int32_t hg_beat_method_id(int64_t word)
{
	return (int32_t)(((uint64_t)word >> 43) & 0xFFFFFu);
}

static inline int64_t hg_beat_time(int64_t word)
{
	return (int64_t)((uint64_t)word & 0x7FFFFFFFFFFull);
}

/* Builds a word (for tests and generators). */
static inline int64_t hg_beat_word(bool entry, int32_t id, int64_t time_ms)
{
	uint64_t w = ((uint64_t)(entry ? 1 : 0) << 63) | (((uint64_t)id & 0xFFFFFu) << 43) |
		     ((uint64_t)time_ms & 0x7FFFFFFFFFFull);
	return (int64_t)w;
}

/* Parses a decimal integer literal s[0..len) (optional '-', digits, nothing
 * else) into *out exactly.  Returns 0, or HG_EPARSE when it is not an integer
 * literal or does not fit in int64. */
int hg_parse_int64(const char *s, size_t len, int64_t *out);

/* Decodes standard base64 (RFC 4648, padding optional, no whitespace) holding
 * big-endian int64 words.  On success *words is owned by the arena and *count
 * is the number of words.  On failure returns HG_EPARSE (or HG_ELIMIT when
 * more than max_words) and sets *err_pos to the offending offset in s and
 * *why to a static explanation. */
int hg_beat_from_base64(const char *s, size_t len, size_t max_words, hg_arena *arena,
			int64_t **words, size_t *count, size_t *err_pos, const char **why);

/* Reads big-endian int64 words from raw bytes (Java DataOutputStream order).
 * len must be a multiple of 8.  Same ownership and errors as above. */
int hg_beat_from_binary(const unsigned char *bytes, size_t len, size_t max_words, hg_arena *arena,
			int64_t **words, size_t *count, const char **why);

#endif
