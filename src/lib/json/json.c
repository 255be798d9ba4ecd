/* Module json (src/lib/json/): the cJSON wrapper, read-only, with numbers
 * kept exactly as written (json.c) thanks to a pre-scan of the text that
 * also finds where each value of a stream ends (json_scan.c, its digits
 * read by json_digits.h); what cJSON is not shown, and the strings decoded
 * without it (json_text.c).  The only module that sees cJSON; the others
 * use json.h.
 * Uses: core, stack. */
/* cJSON behind a small read-only API, with exact integers.
 *
 * After cJSON has parsed a value, one scan of the same text lists the number
 * tokens in document order.  cJSON builds its nodes in that same order, so a
 * pre-order walk can give each number node the index of its token; the index
 * is kept in the node's otherwise unused `valueint` (cJSON's printer and
 * destructor do not read it).  hg_json_number_text() then returns the digits
 * exactly as written. */
#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/arena.h"
#include "hangar/beat.h"
#include "hangar/text.h"
#include "json.h"
#include "json_scan.h"
#include "json_text.h"

struct hg_json_doc {
	cJSON *root;
	hg_arena *nodes; /* every node and string of root: freed at once, never one by one */
	const char *text;
	const char *hot_key, *lazy_key;
	size_t base; /* a lazy array's element: where its text starts in the whole */
	struct json_scan scan;
};

/* cJSON allocates from the document's arena while it parses (a report's
 * few hundred nodes and strings were as many malloc and free calls: a tenth
 * of an ingest's reading).  Outside a parse, as for any other user of
 * cJSON, malloc and free. */
static _Thread_local hg_arena *parse_arena;

static void *nodes_alloc(size_t size)
{
	return parse_arena ? hg_arena_alloc(parse_arena, size) : malloc(size);
}

static void nodes_free(void *p)
{
	if (!parse_arena)
		free(p); /* inside a parse: the arena's, freed with it */
}

static void install_hooks(void)
{
	cJSON_Hooks hooks = {nodes_alloc, nodes_free};
	cJSON_InitHooks(&hooks);
}

static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;

static const cJSON *C(const hg_json *node)
{
	return (const cJSON *)(const void *)node;
}

static const hg_json *J(const cJSON *node)
{
	return (const hg_json *)(const void *)node;
}

/* A walk of cJSON's nodes in pre-order, the order the scan listed numbers,
 * arrays and strings in (the order cJSON built its nodes in). */
struct node_walk {
	size_t number, array; /* numbers and hot or lazy arrays seen */
	size_t string;        /* strings seen, keys and values (the scan's ordinals) */
	size_t long_string;   /* long strings put back */
	bool oom;
};

/* A string value of ordinal w->string: the long string hidden there, if any. */
static void put_back_string(hg_json_doc *doc, cJSON *node, struct node_walk *w)
{
	const struct json_scan *scan = &doc->scan;
	if (w->long_string < scan->n_long_strings &&
	    scan->long_strings[w->long_string].ordinal == w->string) {
		const struct json_long_string *ls = &scan->long_strings[w->long_string];
		char *s = json_decode_long_string(doc->nodes, doc->text, ls->open, ls->close);
		if (!s)
			w->oom = true;
		else
			node->valuestring = s; /* cJSON's "" stays in the arena */
		w->long_string++;
	}
}

/* Gives every number node its token index and every array under the hot key
 * its keyed-array index + 1, and puts the long strings back.  Nesting is
 * capped by cJSON (CJSON_NESTING_LIMIT), so the recursion is bounded. */
static void index_nodes(hg_json_doc *doc, cJSON *node, struct node_walk *w)
{
	for (; node; node = node->next) {
		if (node->string)
			w->string++;
		if (cJSON_IsString(node) && node->valuestring) {
			put_back_string(doc, node, w);
			w->string++;
		} else if (cJSON_IsNumber(node)) {
			node->valueint = (int)w->number++;
		} else {
			if (cJSON_IsArray(node) && node->string &&
			    ((doc->hot_key && strcmp(node->string, doc->hot_key) == 0) ||
			     (doc->lazy_key && strcmp(node->string, doc->lazy_key) == 0)))
				node->valueint = (int)++w->array;
			if (node->child)
				index_nodes(doc, node->child, w);
		}
	}
}

/* Whether off is at (or past) the last non-blank byte of the text: where
 * cJSON stops when the text runs out. */
static bool ends_at(const char *text, size_t len, size_t off)
{
	while (len > 0 && (unsigned char)text[len - 1] <= 0x20)
		len--;
	return off + 1 >= len;
}

/* Where the string of ordinal `want` starts in text[0..end): the strings
 * counted as json_scan counts them (keys and values in document order). */
struct string_walk {
	const char *text;
	size_t end, pos, ordinal;
	const struct json_scan *scan;
	size_t array;      /* the next keyed array that may lie ahead */
};

/* The next string of the text, stepping over lazy arrays: cJSON did not
 * see their strings and the scan counted them apart (without this, a lazy
 * array before a string holding \u0000 put another string in its place). */
static size_t next_string(struct string_walk *w)
{
	const struct json_scan *scan = w->scan;
	for (; w->pos < w->end; w->pos++) {
		while (w->array < scan->n_arrays &&
		       (!scan->arrays[w->array].lazy || scan->arrays[w->array].open < w->pos))
			w->array++;
		if (w->array < scan->n_arrays && scan->arrays[w->array].open == w->pos) {
			w->pos = scan->arrays[w->array].close; /* then past its ']' */
			continue;
		}
		if (w->text[w->pos] != '"')
			continue;
		size_t at = w->pos++;
		while (w->text[w->pos] != '"')
			w->pos += w->text[w->pos] == '\\' ? 2 : 1;
		w->pos++;
		w->ordinal++;
		return at;
	}
	return SIZE_MAX;
}

/* Puts back the strings cJSON cut at an escaped NUL (scan.nul_strings),
 * visiting keys and values in the scan's order.  Hot arrays hold no
 * strings and lazy ones are stepped over, so the original text can be
 * walked string by string. */
static int restore_nuls(hg_json_doc *doc, cJSON *node, struct string_walk *w, size_t *k)
{
	for (; node && *k < doc->scan.n_nul_strings; node = node->next) {
		for (int pass = 0; pass < 2; pass++) {
			char **slot = pass == 0 ? &node->string : &node->valuestring;
			if (!*slot || (pass == 1 && !cJSON_IsString(node)))
				continue;
			size_t at = next_string(w);
			if (at == SIZE_MAX)
				return HG_EPARSE;
			if (*k < doc->scan.n_nul_strings && w->ordinal - 1 == doc->scan.nul_strings[*k]) {
				char *kept = json_decode_keeping_nul(doc->nodes, w->text, at);
				if (!kept)
					return HG_ENOMEM;
				*slot = kept; /* the cut one stays in the arena */
				++*k;
			}
		}
		if (node->child) {
			int rc = restore_nuls(doc, node->child, w, k);
			if (rc != 0)
				return rc;
		}
	}
	return 0;
}

/* Bytes looked at by this thread's parses: the scan up to where it stopped
 * and the text shown to cJSON.  A test holds it to the input's size. */
static _Thread_local size_t bytes_touched;

size_t hg_json_bytes_touched(void)
{
	return bytes_touched;
}

int hg_json_parse(const char *text, size_t len, hg_json_doc **out, size_t *end)
{
	return hg_json_parse_keys(text, len, NULL, NULL, out, end, NULL);
}

int hg_json_parse_hot(const char *text, size_t len, const char *hot_key, hg_json_doc **out,
		      size_t *end)
{
	return hg_json_parse_keys(text, len, hot_key, NULL, out, end, NULL);
}

int hg_json_parse_keys(const char *text, size_t len, const char *hot_key, const char *lazy_key,
		       hg_json_doc **out, size_t *end, const char **why)
{
	*out = NULL;
	*end = 0;
	if (why)
		*why = NULL;
	if (len > (size_t)INT32_MAX) /* cJSON's offsets and our indexes are ints */
		return HG_ELIMIT;
	hg_json_doc *doc = calloc(1, sizeof *doc);
	if (!doc)
		return HG_ENOMEM;
	doc->text = text;
	doc->hot_key = hot_key;
	doc->lazy_key = lazy_key;
	if (json_scan(text, len, hot_key, lazy_key, &doc->scan) != 0) {
		hg_json_doc_destroy(doc);
		return HG_ENOMEM;
	}
	const struct json_scan *scan = &doc->scan;
	/* The scan's own bytes: as far as it read (all of a value cut short). */
	bytes_touched += scan->complete ? scan->end : scan->error != SIZE_MAX ? scan->error + 1 : len;
	if (scan->control_in_string != SIZE_MAX || scan->too_deep) {
		bytes_touched += scan->error;
		*end = scan->error;
		if (why)
			*why = scan->too_deep ? "nested deeper than 1000 arrays and objects (the reader's limit)"
			       : scan->bad_escape ? "a \\u escape without four hex digits"
			       : text[scan->error] == '\n' || text[scan->error] == '\r' ? NULL
			       : "a raw control byte in a string (JSON escapes it, as \\u0000 to \\u001f)";
		hg_json_doc_destroy(doc);
		return HG_EPARSE;
	}
	/* cJSON sees the value and no more: the text after it may be the
	 * rest of a long stream (reading it, or copying it, per value would
	 * make a stream quadratic).  At an error it sees the byte there. */
	size_t limit = scan->complete ? scan->end : scan->error != SIZE_MAX ? scan->error + 1 : len;
	if (scan->unfinished && scan->cut_hot_array != SIZE_MAX)
		limit = scan->cut_hot_array + 1; /* what precedes it may still be wrong */
	bytes_touched += 2 * limit;
	char *shrunk = NULL;
	size_t shrunk_len = 0;
	if (json_shrink(text, limit, scan, &shrunk, &shrunk_len) != 0) {
		hg_json_doc_destroy(doc);
		return HG_ENOMEM;
	}
	const char *parsed = shrunk ? shrunk : text, *stop = NULL;
	pthread_once(&hooks_once, install_hooks);
	/* cJSON's nodes take a few times the text they come from. */
	if (!(doc->nodes = hg_arena_create_sized(4 * limit))) {
		free(shrunk);
		hg_json_doc_destroy(doc);
		return HG_ENOMEM;
	}
	parse_arena = doc->nodes;
	doc->root = cJSON_ParseWithLengthOpts(parsed, shrunk ? shrunk_len : limit, &stop, 0);
	parse_arena = NULL;
	size_t stop_off = stop && stop >= parsed ? (size_t)(stop - parsed) : 0;
	*end = shrunk ? json_unshrink(scan, limit, stop_off) : stop_off;
	if (*end > len)
		*end = len;
	free(shrunk);
	if (!doc->root) {
		if (scan->unfinished && scan->cut_hot_array != SIZE_MAX && *end >= scan->cut_hot_array)
			*end = len; /* cJSON was shown the text up to the cut buffer */
		else if (scan->unfinished && ends_at(text, len, *end))
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
	struct node_walk walk = {0};
	index_nodes(doc, doc->root, &walk);
	if (walk.oom) {
		hg_json_doc_destroy(doc);
		return HG_ENOMEM;
	}
	if (walk.number != doc->scan.n_numbers || walk.array != doc->scan.n_arrays ||
	    walk.long_string != doc->scan.n_long_strings) {
		/* The scan and cJSON disagree: never on valid JSON, but refuse
		 * rather than misread a number or misplace a string. */
		hg_json_doc_destroy(doc);
		return HG_EPARSE;
	}
	if (doc->scan.n_nul_strings) {
		struct string_walk w = {text, *end, 0, 0, &doc->scan, 0};
		size_t k = 0;
		int rc = restore_nuls(doc, doc->root, &w, &k);
		if (rc != 0) {
			hg_json_doc_destroy(doc);
			return rc;
		}
	}
	*out = doc;
	return 0;
}

void hg_json_doc_destroy(hg_json_doc *doc)
{
	if (!doc)
		return;
	hg_arena_destroy(doc->nodes); /* root's nodes: cJSON_Delete is never called */
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
	/* Case-sensitive and first match, like a JSON reader users expect.
	 * The first byte is compared before strcmp is called: a report's
	 * fields are looked up a few hundred times, each against every
	 * member, and most differ there. */
	for (const cJSON *m = C(obj)->child; m; m = m->next)
		if (m->string && m->string[0] == key[0] && strcmp(m->string, key) == 0)
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
	return doc->base + doc->scan.numbers[C(node)->valueint].offset;
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

/* The keyed array node stands for, or NULL. */
static const struct json_keyed_array *keyed_array(const hg_json_doc *doc, const hg_json *node)
{
	const cJSON *n = C(node);
	if (!cJSON_IsArray(n) || n->valueint <= 0 || (size_t)n->valueint > doc->scan.n_arrays)
		return NULL;
	return &doc->scan.arrays[n->valueint - 1];
}

/* ... when it is hot. */
static const struct json_keyed_array *hot_array(const hg_json_doc *doc, const hg_json *node)
{
	const struct json_keyed_array *a = keyed_array(doc, node);
	return a && a->hot ? a : NULL;
}

int hg_json_lazy_count(const hg_json_doc *doc, const hg_json *node, size_t *count)
{
	const struct json_keyed_array *a = keyed_array(doc, node);
	if (!a || !a->lazy)
		return HG_EINVAL;
	*count = a->count;
	return 0;
}

int hg_json_lazy_element(const hg_json_doc *doc, const hg_json *node, size_t index,
			 hg_json_doc **out)
{
	*out = NULL;
	const struct json_keyed_array *a = keyed_array(doc, node);
	if (!a || !a->lazy || index >= a->count)
		return HG_EINVAL;
	size_t at = doc->scan.lazy[a->first + index];
	size_t end = 0;
	int rc = hg_json_parse_keys(doc->text + at, a->close - at, doc->hot_key, doc->lazy_key, out,
				    &end, NULL);
	if (rc == 0)
		(*out)->base = doc->base + at;
	return rc;
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
	static const int64_t none[1];
	*values = a->count ? doc->scan.values + a->first : none; /* "[]": nothing was stored */
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
		const struct json_keyed_array *keyed = keyed_array(doc, node);
		if (keyed && keyed->lazy) {
			/* Its elements parsed one at a time, as its reader does. */
			hg_buf_putc(out, '[');
			for (size_t k = 0; k < keyed->count; k++) {
				hg_json_doc *e = NULL;
				if (k)
					hg_buf_putc(out, ',');
				if (hg_json_lazy_element(doc, node, k, &e) == 0)
					hg_json_write(e, hg_json_root(e), out);
				else
					hg_buf_puts(out, "null");
				hg_json_doc_destroy(e);
			}
			hg_buf_putc(out, ']');
			return;
		}
		const struct json_keyed_array *hot = keyed && keyed->hot ? keyed : NULL;
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
