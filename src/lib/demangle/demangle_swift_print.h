/* The Swift printer's state and the helpers its files share: it prints a
 * tree as swift-demangle does with its default options (Swift's
 * NodePrinter: entities qualified, their types shown, closures as
 * "closure #1 in ...", Array, Dictionary and Optional written [A],
 * [A : B], A?).  Where Swift's printer would give up (its setInvalid, an
 * unreachable case, a kid it would read that is not there) the whole name
 * is "not understood": bad is set and nothing printed counts.
 *   demangle_swift_print.c         the dispatch, the nodes printed alone
 *   demangle_swift_print_entity.c  entities, contexts and accessors
 *   demangle_swift_print_types.c   types
 *   demangle_swift_print_generics.c generic signatures, requirements
 *   demangle_swift_print_misc.c    witnesses, descriptors, conformances,
 *                                  SIL function types and boxes
 *   demangle_swift_print_thunks.c  specializations, thunks, autodiff */
#ifndef HANGAR_LIB_DEMANGLE_SWIFT_PRINT_H
#define HANGAR_LIB_DEMANGLE_SWIFT_PRINT_H

#include <stdio.h>
#include <string.h>

#include "demangle_internal.h"

struct pr {
	hg_buf *out;
	bool sugar;             /* [A], [A : B], A? */
	int nesting;            /* of names printed inside names */
	size_t steps;           /* nodes printed: a tree shares nodes */
	bool bad;
	bool oom;
};

/* Nodes printed per symbol: substitutions let a short symbol name one
 * subtree many times over. */
#define PR_MAX_STEPS 200000

static inline void put(struct pr *p, const char *s)
{
	hg_buf_puts(p->out, s);
}

static inline void put_text(struct pr *p, const sw_node *n)
{
	if (n->payload == SW_P_TEXT)
		hg_buf_add(p->out, n->text, n->len);
}

static inline void put_u64(struct pr *p, uint64_t v)
{
	char b[24];
	snprintf(b, sizeof b, "%llu", (unsigned long long)v);
	put(p, b);
}

/* Kid i of n; marks the print bad when it is not there. */
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

/* Prints n.  An entity asked for as a prefix context ("Module.Type.")
 * that cannot be printed so (it has a type, or a name of several words)
 * prints nothing and is returned, for the caller to print after its own
 * name (" in ..."). */
const sw_node *pr_node(struct pr *p, const sw_node *n, int depth, bool as_prefix);

static inline void pr_kid(struct pr *p, const sw_node *n, unsigned i, int depth)
{
	const sw_node *k = kid(p, n, i);
	if (k)
		pr_node(p, k, depth + 1, false);
}

/* Each kid, with sep (or nothing) between. */
void pr_children(struct pr *p, const sw_node *n, int depth, const char *sep);

/* demangle_swift_print_entity.c */
const sw_node *pr_entity_node(struct pr *p, const sw_node *n, int depth, bool as_prefix, bool *done);
bool pr_is_class(const sw_node *n);

/* demangle_swift_print_types.c */
bool pr_types_node(struct pr *p, const sw_node *n, int depth);
void pr_function_type(struct pr *p, const sw_node *labels, const sw_node *f, int depth);
bool pr_need_space_before_type(const sw_node *t);
bool pr_is_function_type(enum sw_kind k);

/* demangle_swift_print_generics.c */
bool pr_generics_node(struct pr *p, const sw_node *n, int depth);
void pr_generic_param_name(struct pr *p, uint64_t depth, uint64_t index);

/* demangle_swift_print_misc.c */
bool pr_misc_node(struct pr *p, const sw_node *n, int depth);
bool pr_thunk_node(struct pr *p, const sw_node *n, int depth);

#endif
