/* Private to the Swift printer's two files (demangle_swift_print.c:
 * entities and the dispatch; demangle_swift_print_types.c: types): its
 * state and small helpers. */
#ifndef HANGAR_LIB_DEMANGLE_SWIFT_PRINT_H
#define HANGAR_LIB_DEMANGLE_SWIFT_PRINT_H

#include <string.h>

#include "demangle_internal.h"

struct pr {
	hg_buf *out;
	int depth;
	size_t steps;
	bool bad;
};

#define MAX_STEPS 1000000 /* a tree shares nodes: printing may repeat them */

static inline void put(struct pr *p, const char *s)
{
	hg_buf_puts(p->out, s);
}

static inline void put_text(struct pr *p, const sw_node *n)
{
	hg_buf_add(p->out, n->text, n->text_len);
}

static inline void put_num(struct pr *p, uint64_t v)
{
	hg_buf_int(p->out, (int64_t)v);
}

static inline bool text_is(const sw_node *n, const char *s)
{
	return n->has_text && n->text_len == strlen(s) && memcmp(n->text, s, n->text_len) == 0;
}

static inline const sw_node *kid(struct pr *p, const sw_node *n, unsigned i)
{
	if (!n || i >= n->n) {
		p->bad = true;
		return NULL;
	}
	return n->kids[i];
}

static inline const sw_node *kid_of_kind(const sw_node *n, enum sw_kind k)
{
	for (unsigned i = 0; n && i < n->n; i++)
		if (n->kids[i]->kind == k)
			return n->kids[i];
	return NULL;
}

/* Prints n; an entity that cannot be printed as the prefix context
 * as_prefix asks for is returned, to be printed after (" in ..."). */
const sw_node *pr_print(struct pr *p, const sw_node *n, bool as_prefix);

/* Types (demangle_swift_print_types.c). */
bool pr_need_space_before_type(const sw_node *n);
void pr_function_type(struct pr *p, const sw_node *labels, const sw_node *n);
void pr_generic_signature(struct pr *p, const sw_node *n);
void pr_type_node(struct pr *p, const sw_node *n);
void pr_requirement(struct pr *p, const sw_node *n);


static inline void print_kids(struct pr *p, const sw_node *n, const char *sep)
{
	for (unsigned i = 0; n && i < n->n; i++) {
		if (i && sep)
			put(p, sep);
		pr_print(p, n->kids[i], false);
	}
}

#endif
