/* libFuzzer target: the JSON layer (src/lib/json) against plain cJSON.
 * hangar's wrapper decodes long strings itself, reads "buffer" arrays of
 * integers itself and keeps \u0000; whenever both it and cJSON accept the
 * first value of the input, they must agree node for node: types, keys,
 * strings byte for byte (but for \u0000, which cJSON cuts and hangar keeps
 * as C0 80), integers exactly where cJSON's double holds them, the same
 * number of elements, and where the value ends; with each reader of the
 * words in turn. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "json/json_words.h"

static const char fuzz_target[] = "fuzz_json";
#include "fuzz_fixture.h"

static void same(const hg_json_doc *doc, const hg_json *mine, const cJSON *theirs, int depth)
{
	require(theirs != NULL, "a node cJSON has too");
	switch (hg_json_type(mine)) {
	case HG_JSON_NULL:
		require(cJSON_IsNull(theirs), "null is null");
		return;
	case HG_JSON_BOOL:
		require(cJSON_IsBool(theirs) && hg_json_true(mine) == (bool)cJSON_IsTrue(theirs),
			"the same boolean");
		return;
	case HG_JSON_STRING: {
		require(cJSON_IsString(theirs), "a string is a string");
		const char *s = hg_json_string(mine);
		if (!strstr(s, "\xC0\x80")) /* hangar's kept \u0000: cJSON cut the string there */
			require(strcmp(s, theirs->valuestring) == 0, "the same string bytes");
		return;
	}
	case HG_JSON_NUMBER: {
		require(cJSON_IsNumber(theirs), "a number is a number");
		int64_t v;
		if (hg_json_int64(doc, mine, &v) == 0 && fabs(theirs->valuedouble) < 9007199254740992.0)
			require((double)v == theirs->valuedouble, "the same integer");
		return;
	}
	case HG_JSON_ARRAY:
	case HG_JSON_OBJECT: {
		require(cJSON_IsArray(theirs) || cJSON_IsObject(theirs), "a container is one");
		const cJSON *t = theirs->child;
		const int64_t *values;
		size_t count;
		if (hg_json_int_array(doc, mine, &values, &count) == 0) { /* read by hangar */
			for (size_t i = 0; i < count; i++, t = t->next) {
				require(t && cJSON_IsNumber(t), "a buffer word is a number");
				if (fabs(t->valuedouble) < 9007199254740992.0)
					require((double)values[i] == t->valuedouble, "the same word");
			}
			require(t == NULL, "as many words");
			return;
		}
		for (const hg_json *m = hg_json_first(mine); m; m = hg_json_next(m), t = t->next) {
			require(t != NULL, "as many members");
			if (hg_json_type(mine) == HG_JSON_OBJECT && !strstr(hg_json_key(m), "\xC0\x80"))
				require(strcmp(hg_json_key(m), t->string) == 0, "the same key");
			same(doc, m, t, depth + 1);
		}
		require(t == NULL, "no member more");
		return;
	}
	default:
		require(false, "a known type");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (1u << 20))
		return 0;
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	/* Every reader of a buffer's words (json_words.h) in turn, by the
	 * input's length: each must agree with cJSON. */
	json_words_use((enum json_words_reader)(size % 4));
	hg_json_doc *doc = NULL;
	size_t end = 0;
	int rc = hg_json_parse_keys(text, size, "buffer", NULL, &doc, &end, NULL);
	require(rc == 0 || rc == HG_EPARSE || rc == HG_ENOMEM || rc == HG_ELIMIT, "a known answer");
	require(end <= size, "an end within the text");
	if (rc == 0) {
		const char *stop = NULL;
		cJSON *theirs = cJSON_ParseWithLengthOpts(text, size, &stop, 0);
		if (theirs) {
			same(doc, hg_json_root(doc), theirs, 0);
			require((size_t)(stop - text) == end, "the value ends where cJSON says");
			cJSON_Delete(theirs);
		}
		hg_buf out;
		hg_buf_init(&out);
		hg_json_write(doc, hg_json_root(doc), &out); /* written whole, read by ASan */
		hg_buf_release(&out);
		hg_json_doc_destroy(doc);
	}
	free(text);
	return 0;
}
