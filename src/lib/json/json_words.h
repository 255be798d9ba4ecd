/* The fast reader of a Matrix buffer's words (json_words.c), and which of
 * its builds json_ints.c uses.  Private to src/lib/json. */
#ifndef HANGAR_LIB_JSON_WORDS_H
#define HANGAR_LIB_JSON_WORDS_H

#include <stdbool.h>
#include <stddef.h>

#include "json_scan_util.h"

/* Reads the words "digits," at t[i] (a word's start) into values, as long
 * as they are plain: digits with an optional leading '-', at most 19 of
 * them, within int64, each followed by a comma.  Returns where it stopped,
 * a word's start: at the last word (no comma after it), a space, anything
 * odd, or i when it read nothing (near either end of the text).
 * The AVX2 and AVX-512 builds exist on x86-64 when the compiler has them
 * (HANGAR_WORDS_AVX2, HANGAR_WORDS_AVX512: src/lib/meson.build). */
size_t json_read_words_base(const char *t, size_t i, size_t len, struct vec *values);
#ifdef HANGAR_WORDS_AVX2
size_t json_read_words_avx2(const char *t, size_t i, size_t len, struct vec *values);
#endif
#ifdef HANGAR_WORDS_AVX512
size_t json_read_words_avx512(const char *t, size_t i, size_t len, struct vec *values);
#endif

/* Which reader json_read_int_array starts with: the best this processor
 * runs (the default), the AVX2 build (the SSE2 one where there is none),
 * the SSE2 build, or none (every word read one by one).  For tests, which
 * compare them; not thread-safe. */
enum json_words_reader { JSON_WORDS_BEST, JSON_WORDS_AVX2, JSON_WORDS_BASE, JSON_WORDS_NONE };
void json_words_use(enum json_words_reader reader);

#endif
