/* The reader of the older Swift manglings ("_T", Swift 4.0 and before:
 * still the class and protocol names of ObjC metadata, "_TtC..."), shared
 * by its two files: recursive descent over the grammar Swift's
 * OldDemangler reads, with its list of substitutions ("S_", "S0_").
 *   demangle_swift_old.c        names, substitutions, contexts
 *   demangle_swift_old_global.c the symbol, globals, specializations, entities
 *   demangle_swift_old_types.c  types, generic signatures, SIL function types
 * Every function returns NULL (or false) on failure. */
#ifndef HANGAR_LIB_DEMANGLE_SWIFT_OD_H
#define HANGAR_LIB_DEMANGLE_SWIFT_OD_H

#include "demangle_internal.h"

struct od {
	struct sw_heap *h;
	const char *s;
	size_t len, pos;
	sw_node **subst;
	size_t n_subst, cap_subst;
	int depth;              /* of the recursion, bounded */
};

static inline bool od_empty(const struct od *o)
{
	return o->pos >= o->len;
}

static inline char od_peek(const struct od *o)
{
	return o->pos < o->len ? o->s[o->pos] : 0;
}

static inline char od_next(struct od *o)
{
	return o->pos < o->len ? o->s[o->pos++] : 0;
}

static inline bool od_next_if(struct od *o, char c)
{
	if (o->pos >= o->len || o->s[o->pos] != c)
		return false;
	o->pos++;
	return true;
}

bool od_next_if_str(struct od *o, const char *s);
bool od_add_subst(struct od *o, sw_node *n);
bool od_natural(struct od *o, uint64_t *v);
bool od_index(struct od *o, uint64_t *v);
sw_node *od_index_node(struct od *o, enum sw_kind kind);
sw_node *od_identifier(struct od *o, enum sw_kind kind);
sw_node *od_decl_name(struct od *o);
sw_node *od_substitution(struct od *o);
sw_node *od_context(struct od *o);
sw_node *od_protocol_name(struct od *o);
sw_node *od_protocol_name_in(struct od *o, sw_node *context);
sw_node *od_declaration(struct od *o, enum sw_kind kind);
sw_node *od_nominal_type(struct od *o);
sw_node *od_bound_generic_type(struct od *o);
sw_node *od_entity(struct od *o);
sw_node *od_protocol_conformance(struct od *o);

/* demangle_swift_old_types.c */
sw_node *od_type(struct od *o);
sw_node *od_generic_signature(struct od *o, bool pseudogeneric);
sw_node *od_dependent_param(struct od *o, uint64_t depth, uint64_t index);
bool od_reabstract_signature(struct od *o, sw_node *thunk);

#endif
