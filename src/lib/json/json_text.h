/* The text around cJSON (private to src/lib/json): what json.c hides from
 * cJSON (hot and lazy arrays' elements, long strings' bytes) and the
 * strings it decodes itself. */
#ifndef HANGAR_LIB_JSON_TEXT_H
#define HANGAR_LIB_JSON_TEXT_H

#include <stddef.h>

#include "hangar/arena.h"
#include "json_scan.h"

/* The text cJSON sees: hot arrays shrunk to "[]", long strings to "".
 * *shrunk (malloc'd) is NULL when nothing needed hiding.  Returns 0 or
 * HG_ENOMEM. */
int json_shrink(const char *text, size_t len, const struct json_scan *scan, char **shrunk,
		size_t *shrunk_len);
/* An offset in the shrunk text of text[0..len), back in the original text. */
size_t json_unshrink(const struct json_scan *scan, size_t len, size_t off);
/* The long string between the quotes at text[open] and text[close], as
 * cJSON would decode it, in arena; NULL on ENOMEM. */
char *json_decode_long_string(hg_arena *arena, const char *text, size_t open, size_t close);
/* The valid string token at text[at] == '"', decoded with each \u0000
 * kept as C0 80; NULL on ENOMEM. */
char *json_decode_keeping_nul(hg_arena *arena, const char *text, size_t at);

#endif
