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

struct token {
	size_t offset;
	size_t len;
};

struct hg_json_doc {
	cJSON *root;
	const char *text;
	struct token *numbers;
	size_t n_numbers;
};

static const cJSON *C(const hg_json *node)
{
	return (const cJSON *)(const void *)node;
}

static const hg_json *J(const cJSON *node)
{
	return (const hg_json *)(const void *)node;
}

/* Lists number tokens in text[0..end): the text is valid JSON there (cJSON
 * said so), so strings, literals and numbers are easy to tell apart. */
static int scan_numbers(hg_json_doc *doc, const char *text, size_t end)
{
	size_t count = 0, cap = 0;
	struct token *tok = NULL;
	size_t i = 0;
	while (i < end) {
		char c = text[i];
		if (c == '"') {
			for (i++; i < end && text[i] != '"'; i++)
				if (text[i] == '\\')
					i++;
			i++;
		} else if (c == '-' || (c >= '0' && c <= '9')) {
			size_t start = i;
			while (i < end && strchr("+-0123456789.eE", text[i]) && text[i] != '\0')
				i++;
			if (count == cap) {
				cap = cap ? cap * 2 : 64;
				struct token *t = realloc(tok, cap * sizeof *t);
				if (!t) {
					free(tok);
					return HG_ENOMEM;
				}
				tok = t;
			}
			tok[count++] = (struct token){start, i - start};
		} else {
			i++;
		}
	}
	doc->numbers = tok;
	doc->n_numbers = count;
	return 0;
}

/* Gives every number node its token index, in pre-order.  Nesting is capped
 * by cJSON (CJSON_NESTING_LIMIT), so recursion depth is bounded. */
static void index_numbers(cJSON *node, size_t *next)
{
	for (; node; node = node->next) {
		if (cJSON_IsNumber(node))
			node->valueint = (int)(*next)++;
		else if (node->child)
			index_numbers(node->child, next);
	}
}

int hg_json_parse(const char *text, size_t len, hg_json_doc **out, size_t *end)
{
	*out = NULL;
	const char *stop = NULL;
	if (len > (size_t)INT32_MAX * 2) { /* token indexes must fit an int */
		*end = 0;
		return HG_ELIMIT;
	}
	cJSON *root = cJSON_ParseWithLengthOpts(text, len, &stop, 0);
	if (!root) {
		*end = stop && stop >= text ? (size_t)(stop - text) : 0;
		if (*end > len)
			*end = len;
		return HG_EPARSE;
	}
	hg_json_doc *doc = calloc(1, sizeof *doc);
	if (!doc) {
		cJSON_Delete(root);
		return HG_ENOMEM;
	}
	doc->root = root;
	doc->text = text;
	*end = (size_t)(stop - text);
	if (scan_numbers(doc, text, *end) != 0) {
		hg_json_doc_destroy(doc);
		return HG_ENOMEM;
	}
	size_t next = 0;
	index_numbers(root, &next);
	if (next != doc->n_numbers) { /* cannot happen on valid JSON */
		hg_json_doc_destroy(doc);
		*end = 0;
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
	free(doc->numbers);
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
	const struct token *t = &doc->numbers[C(node)->valueint];
	*s = doc->text + t->offset;
	*len = t->len;
}

size_t hg_json_number_offset(const hg_json_doc *doc, const hg_json *node)
{
	return doc->numbers[C(node)->valueint].offset;
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
