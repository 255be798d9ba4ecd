/* cJSON behind a small read-only API, with exact integers.
 *
 * After cJSON has parsed a value, one scan of the same text lists the number
 * tokens in document order.  cJSON builds its nodes in that same order, so a
 * pre-order walk can give each number node the index of its token; the index
 * is kept in the node's otherwise unused `valueint` (cJSON's printer and
 * destructor do not read it).  hg_json_number_text() then returns the digits
 * exactly as written. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/beat.h"
#include "json.h"
#include "json_scan.h"

struct hg_json_doc {
	cJSON *root;
	const char *text;
	const char *hot_key;
	struct json_scan scan;
};

static const cJSON *C(const hg_json *node)
{
	return (const cJSON *)(const void *)node;
}

static const hg_json *J(const cJSON *node)
{
	return (const hg_json *)(const void *)node;
}

/* Gives every number node its token index and every array under the hot key
 * its keyed-array index + 1, in pre-order: the scan listed both in document
 * order, which is the order cJSON built its nodes in.  Nesting is capped by
 * cJSON (CJSON_NESTING_LIMIT), so the recursion is bounded. */
static void index_nodes(hg_json_doc *doc, cJSON *node, size_t *number, size_t *array)
{
	for (; node; node = node->next) {
		if (cJSON_IsNumber(node)) {
			node->valueint = (int)(*number)++;
		} else {
			if (cJSON_IsArray(node) && doc->hot_key && node->string &&
			    strcmp(node->string, doc->hot_key) == 0)
				node->valueint = (int)++(*array);
			if (node->child)
				index_nodes(doc, node->child, number, array);
		}
	}
}

/* The text cJSON sees: hot arrays shrunk to "[]".  *shrunk is NULL when
 * nothing needed hiding (cJSON then reads the text itself). */
static int shrink(const char *text, size_t len, const struct json_scan *scan, char **shrunk,
		  size_t *shrunk_len)
{
	*shrunk = NULL;
	size_t removed = 0;
	for (size_t k = 0; k < scan->n_arrays; k++)
		if (scan->arrays[k].hot)
			removed += scan->arrays[k].close - scan->arrays[k].open - 1;
	if (removed == 0)
		return 0;
	char *out = malloc(len - removed + 1);
	if (!out)
		return HG_ENOMEM;
	size_t from = 0, n = 0;
	for (size_t k = 0; k < scan->n_arrays; k++) {
		const struct json_keyed_array *a = &scan->arrays[k];
		if (!a->hot)
			continue;
		memcpy(out + n, text + from, a->open - from);
		n += a->open - from;
		out[n++] = '[';
		out[n++] = ']';
		from = a->close + 1;
	}
	memcpy(out + n, text + from, len - from);
	n += len - from;
	out[n] = '\0';
	*shrunk = out;
	*shrunk_len = n;
	return 0;
}

/* An offset in the shrunk text, back in the original text. */
static size_t unshrink(const struct json_scan *scan, size_t off)
{
	size_t shift = 0;
	for (size_t k = 0; k < scan->n_arrays; k++) {
		const struct json_keyed_array *a = &scan->arrays[k];
		if (!a->hot)
			continue;
		if (a->open - shift >= off)
			break;
		shift += a->close - a->open - 1;
	}
	return off + shift;
}

/* Whether off is at (or past) the last non-blank byte of the text: where
 * cJSON stops when the text runs out. */
static bool ends_at(const char *text, size_t len, size_t off)
{
	while (len > 0 && (unsigned char)text[len - 1] <= 0x20)
		len--;
	return off + 1 >= len;
}

int hg_json_parse(const char *text, size_t len, hg_json_doc **out, size_t *end)
{
	return hg_json_parse_hot(text, len, NULL, out, end);
}

int hg_json_parse_hot(const char *text, size_t len, const char *hot_key, hg_json_doc **out,
		      size_t *end)
{
	*out = NULL;
	*end = 0;
	if (len > (size_t)INT32_MAX) /* cJSON's offsets and our indexes are ints */
		return HG_ELIMIT;
	hg_json_doc *doc = calloc(1, sizeof *doc);
	if (!doc)
		return HG_ENOMEM;
	doc->text = text;
	doc->hot_key = hot_key;
	char *shrunk = NULL;
	size_t shrunk_len = 0;
	if (json_scan(text, len, hot_key, &doc->scan) != 0 ||
	    shrink(text, len, &doc->scan, &shrunk, &shrunk_len) != 0) {
		hg_json_doc_destroy(doc);
		return HG_ENOMEM;
	}
	const char *parsed = shrunk ? shrunk : text, *stop = NULL;
	doc->root = cJSON_ParseWithLengthOpts(parsed, shrunk ? shrunk_len : len, &stop, 0);
	size_t stop_off = stop && stop >= parsed ? (size_t)(stop - parsed) : 0;
	*end = shrunk ? unshrink(&doc->scan, stop_off) : stop_off;
	if (*end > len)
		*end = len;
	free(shrunk);
	size_t line_break = doc->scan.line_break_in_string;
	if (!doc->root || line_break < *end) {
		if (line_break < *end || (!doc->root && line_break < len && line_break <= *end))
			*end = line_break; /* JSON strings hold no raw line breaks */
		else if (doc->scan.unfinished && ends_at(text, len, *end))
			*end = len; /* the text ran out: say so at its end */
		hg_json_doc_destroy(doc);
		return HG_EPARSE;
	}
	/* A number that ends the value stops where cJSON's strtod stopped
	 * ("123-4" is 123 then trailing text), not where the scan's did. */
	for (size_t k = 0; k < doc->scan.n_numbers; k++) {
		struct json_token *t = &doc->scan.numbers[k];
		if (t->offset + t->len > *end)
			t->len = *end > t->offset ? *end - t->offset : 0;
	}
	size_t numbers = 0, arrays = 0;
	index_nodes(doc, doc->root, &numbers, &arrays);
	if (numbers != doc->scan.n_numbers || arrays != doc->scan.n_arrays) {
		/* The scan and cJSON disagree: never on valid JSON, but refuse
		 * rather than misread a number. */
		hg_json_doc_destroy(doc);
		return HG_EPARSE;
	}
	*out = doc;
	return 0;
}

void hg_json_doc_destroy(hg_json_doc *doc)
{
	if (!doc)
		return;
	cJSON_Delete(doc->root);
	json_scan_release(&doc->scan);
	free(doc);
}

const hg_json *hg_json_root(const hg_json_doc *doc)
{
	return J(doc->root);
}

enum hg_json_type hg_json_type(const hg_json *node)
{
	const cJSON *n = C(node);
	if (!n)
		return HG_JSON_INVALID;
	switch (n->type & 0xFF) {
	case cJSON_NULL: return HG_JSON_NULL;
	case cJSON_False:
	case cJSON_True: return HG_JSON_BOOL;
	case cJSON_Number: return HG_JSON_NUMBER;
	case cJSON_String: return HG_JSON_STRING;
	case cJSON_Array: return HG_JSON_ARRAY;
	case cJSON_Object: return HG_JSON_OBJECT;
	}
	return HG_JSON_INVALID;
}

const char *hg_json_type_name(enum hg_json_type type)
{
	switch (type) {
	case HG_JSON_NULL: return "null";
	case HG_JSON_BOOL: return "boolean";
	case HG_JSON_NUMBER: return "number";
	case HG_JSON_STRING: return "string";
	case HG_JSON_ARRAY: return "array";
	case HG_JSON_OBJECT: return "object";
	case HG_JSON_INVALID: break;
	}
	return "nothing";
}

const hg_json *hg_json_get(const hg_json *obj, const char *key)
{
	if (hg_json_type(obj) != HG_JSON_OBJECT)
		return NULL;
	/* Case-sensitive and first match, like a JSON reader users expect. */
	for (const cJSON *m = C(obj)->child; m; m = m->next)
		if (m->string && strcmp(m->string, key) == 0)
			return J(m);
	return NULL;
}

const hg_json *hg_json_first(const hg_json *container)
{
	return container ? J(C(container)->child) : NULL;
}

const hg_json *hg_json_next(const hg_json *node)
{
	return node ? J(C(node)->next) : NULL;
}

const char *hg_json_key(const hg_json *member)
{
	return member ? C(member)->string : NULL;
}

size_t hg_json_count(const hg_json *container)
{
	size_t n = 0;
	for (const hg_json *e = hg_json_first(container); e; e = hg_json_next(e))
		n++;
	return n;
}

const char *hg_json_string(const hg_json *node)
{
	return hg_json_type(node) == HG_JSON_STRING ? C(node)->valuestring : NULL;
}

bool hg_json_true(const hg_json *node)
{
	return node && cJSON_IsTrue(C(node));
}

void hg_json_number_text(const hg_json_doc *doc, const hg_json *node, const char **s, size_t *len)
{
	const struct json_token *t = &doc->scan.numbers[C(node)->valueint];
	*s = doc->text + t->offset;
	*len = t->len;
}

size_t hg_json_number_offset(const hg_json_doc *doc, const hg_json *node)
{
	return doc->scan.numbers[C(node)->valueint].offset;
}

int hg_json_int64(const hg_json_doc *doc, const hg_json *node, int64_t *out)
{
	if (hg_json_type(node) != HG_JSON_NUMBER)
		return HG_EPARSE;
	const char *s;
	size_t len;
	hg_json_number_text(doc, node, &s, &len);
	return hg_parse_int64(s, len, out);
}

size_t hg_json_first_newline(const hg_json_doc *doc)
{
	return doc->scan.first_newline;
}

/* The keyed array node stands for, when it is hot; else NULL. */
static const struct json_keyed_array *hot_array(const hg_json_doc *doc, const hg_json *node)
{
	const cJSON *n = C(node);
	if (!cJSON_IsArray(n) || n->valueint <= 0 || (size_t)n->valueint > doc->scan.n_arrays)
		return NULL;
	const struct json_keyed_array *a = &doc->scan.arrays[n->valueint - 1];
	return a->hot ? a : NULL;
}

size_t hg_json_element_offset(const hg_json_doc *doc, size_t index)
{
	return index < doc->scan.n_elements ? doc->scan.elements[index] : SIZE_MAX;
}

int hg_json_int_array(const hg_json_doc *doc, const hg_json *node, const int64_t **values,
		      size_t *count)
{
	const struct json_keyed_array *a = hot_array(doc, node);
	if (!a)
		return HG_EINVAL;
	*values = doc->scan.values + a->first;
	*count = a->count;
	return 0;
}

void hg_json_write(const hg_json_doc *doc, const hg_json *node, hg_buf *out)
{
	const cJSON *n = C(node);
	switch (hg_json_type(node)) {
	case HG_JSON_NULL: hg_buf_puts(out, "null"); return;
	case HG_JSON_BOOL: hg_buf_puts(out, cJSON_IsTrue(n) ? "true" : "false"); return;
	case HG_JSON_NUMBER: {
		const char *s;
		size_t len;
		hg_json_number_text(doc, node, &s, &len);
		hg_buf_add(out, s, len);
		return;
	}
	case HG_JSON_STRING:
		hg_buf_json_string(out, n->valuestring, strlen(n->valuestring));
		return;
	case HG_JSON_ARRAY:
	case HG_JSON_OBJECT: {
		const struct json_keyed_array *hot = hot_array(doc, node);
		if (hot) {
			/* Its digits as written, whitespace left out. */
			for (size_t i = hot->open; i <= hot->close; i++)
				if ((unsigned char)doc->text[i] > 0x20)
					hg_buf_putc(out, doc->text[i]);
			return;
		}
		bool object = hg_json_type(node) == HG_JSON_OBJECT;
		hg_buf_putc(out, object ? '{' : '[');
		for (const cJSON *c = n->child; c; c = c->next) {
			if (c != n->child)
				hg_buf_putc(out, ',');
			if (object) {
				hg_buf_json_string(out, c->string, strlen(c->string));
				hg_buf_putc(out, ':');
			}
			hg_json_write(doc, J(c), out);
		}
		hg_buf_putc(out, object ? '}' : ']');
		return;
	}
	case HG_JSON_INVALID: break;
	}
	hg_buf_puts(out, "null");
}
