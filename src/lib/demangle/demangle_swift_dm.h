/* The reader of Swift 4.2 and later manglings ("$s", "$S", "$e", "_T0",
 * "@__swiftmacro_"), shared by its files: a stack machine, as Swift's own
 * Demangler (docs/ABI/Mangling.rst of swiftlang/swift) — each operator
 * reads a few bytes and either pushes a node or pops the nodes it applies
 * to — with the list of substitutions (identifiers and types a later
 * operator may name again by index) and the 26 words identifiers share.
 *   demangle_swift.c            the symbol, the operator table, the stack
 *   demangle_swift_names.c      numbers, identifiers, substitutions, builtins
 *   demangle_swift_types.c      nominal and function types, tuples, archetypes
 *   demangle_swift_generics.c   generic signatures, requirements, conformances
 *   demangle_swift_entities.c   functions, variables, accessors, macros, metadata
 *   demangle_swift_thunks.c     thunks, specializations, witnesses, autodiff
 *   demangle_swift_impl.c       SIL function types ("I...")
 * Every function returns NULL (or false, or a negative number) on failure:
 * input off the grammar, a bound exceeded, or ENOMEM (heap.oom set). */
#ifndef HANGAR_LIB_DEMANGLE_SWIFT_DM_H
#define HANGAR_LIB_DEMANGLE_SWIFT_DM_H

#include <stdio.h>

#include "demangle_internal.h"

#define DM_MAX_WORDS 26

struct dm {
	struct sw_heap *h;
	const char *s;
	size_t len, pos;
	bool old_function_types;   /* "_T0": labels inside argument tuples */
	sw_node **stack;
	size_t n_stack, cap_stack;
	sw_node **subst;
	size_t n_subst, cap_subst;
	struct { const char *s; size_t len; } words[DM_MAX_WORDS];
	int n_words;
};

/* ---- demangle_swift.c: the stack ---- */
bool dm_push(struct dm *d, sw_node *n);
sw_node *dm_pop(struct dm *d);
sw_node *dm_pop_kind(struct dm *d, enum sw_kind kind);
sw_node *dm_pop_if(struct dm *d, bool (*pred)(enum sw_kind));
bool dm_add_subst(struct dm *d, sw_node *n);
sw_node *dm_operator(struct dm *d);

/* The bytes. */
static inline char dm_peek(const struct dm *d)
{
	return d->pos < d->len ? d->s[d->pos] : 0;
}

static inline char dm_next(struct dm *d)
{
	return d->pos < d->len ? d->s[d->pos++] : 0;
}

static inline bool dm_next_if(struct dm *d, char c)
{
	if (d->pos >= d->len || d->s[d->pos] != c)
		return false;
	d->pos++;
	return true;
}

/* Two bytes at once ("mu", "MA"): both or neither. */
bool dm_next_if2(struct dm *d, const char *two);

/* Steps back over the byte just read (Swift's pushBack). */
static inline void dm_back(struct dm *d)
{
	if (d->pos > 0)
		d->pos--;
}

static inline bool dm_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool dm_is_lower(char c)
{
	return c >= 'a' && c <= 'z';
}

static inline bool dm_is_upper(char c)
{
	return c >= 'A' && c <= 'Z';
}

/* Shorthands for the heap. */
static inline sw_node *dm_new(struct dm *d, enum sw_kind k)
{
	return sw_new(d->h, k);
}

static inline sw_node *dm_with(struct dm *d, enum sw_kind k, sw_node *a)
{
	return sw_with(d->h, k, a);
}

static inline sw_node *dm_type(struct dm *d, sw_node *a)
{
	return sw_with(d->h, SW_TYPE, a);
}

static inline sw_node *dm_add(struct dm *d, sw_node *parent, sw_node *kid)
{
	return sw_add(d->h, parent, kid);
}

/* ---- demangle_swift_names.c ---- */
long dm_natural(struct dm *d);
long dm_index(struct dm *d);
sw_node *dm_index_node(struct dm *d);
sw_node *dm_identifier(struct dm *d);
sw_node *dm_operator_identifier(struct dm *d);
sw_node *dm_local_identifier(struct dm *d);
sw_node *dm_multi_substitutions(struct dm *d);
sw_node *dm_standard_substitution(struct dm *d);
sw_node *dm_swift_type(struct dm *d, enum sw_kind kind, const char *name);
sw_node *dm_builtin_type(struct dm *d);
sw_node *dm_integer_type(struct dm *d);

/* ---- demangle_swift_types.c ---- */
sw_node *dm_pop_module(struct dm *d);
sw_node *dm_pop_context(struct dm *d);
sw_node *dm_pop_type_child(struct dm *d);
sw_node *dm_pop_type_any_generic(struct dm *d);
sw_node *dm_pop_type_list(struct dm *d);
sw_node *dm_pop_tuple(struct dm *d);
sw_node *dm_pop_pack(struct dm *d);
sw_node *dm_pop_sil_pack(struct dm *d);
sw_node *dm_pop_function_type(struct dm *d, enum sw_kind kind, bool clang_type);
sw_node *dm_pop_param_labels(struct dm *d, sw_node *type, bool *bad);
sw_node *dm_clang_type(struct dm *d);
sw_node *dm_any_generic_type(struct dm *d, enum sw_kind kind);
sw_node *dm_extension_context(struct dm *d);
bool dm_bound_generics(struct dm *d, sw_node ***lists, size_t *n_lists, sw_node **retro);
sw_node *dm_bound_generic_type(struct dm *d);
sw_node *dm_protocol_list(struct dm *d);
sw_node *dm_protocol_list_node(struct dm *d);
sw_node *dm_special_type(struct dm *d);
sw_node *dm_type_annotation(struct dm *d);
sw_node *dm_archetype(struct dm *d);
sw_node *dm_generic_param_index(struct dm *d);
sw_node *dm_dependent_param(struct dm *d, long depth, long index);
sw_node *dm_assoc_type_simple(struct dm *d, sw_node *base);
sw_node *dm_assoc_type_compound(struct dm *d, sw_node *base);
sw_node *dm_generic_type(struct dm *d);

/* ---- demangle_swift_generics.c ---- */
sw_node *dm_generic_signature(struct dm *d, bool counts);
sw_node *dm_generic_requirement(struct dm *d);
sw_node *dm_pop_protocol(struct dm *d);
sw_node *dm_pop_protocol_conformance(struct dm *d);
sw_node *dm_pop_any_conformance(struct dm *d);
sw_node *dm_pop_assoc_type_name(struct dm *d);
sw_node *dm_pop_assoc_type_path(struct dm *d);
sw_node *dm_pop_self_or_assoc_type_path(struct dm *d);
sw_node *dm_conformance_operator(struct dm *d);
sw_node *dm_retroactive_conformance(struct dm *d);

/* ---- demangle_swift_entities.c ---- */
sw_node *dm_type_mangling(struct dm *d);
sw_node *dm_plain_function(struct dm *d);
sw_node *dm_function_entity(struct dm *d);
sw_node *dm_variable(struct dm *d);
sw_node *dm_subscript(struct dm *d);
sw_node *dm_metatype(struct dm *d);
sw_node *dm_value_witness(struct dm *d);
sw_node *dm_witness_operator(struct dm *d);

/* ---- demangle_swift_thunks.c ---- */
sw_node *dm_thunk_or_specialization(struct dm *d);
sw_node *dm_differentiability_witness(struct dm *d);

/* ---- demangle_swift_impl.c ---- */
sw_node *dm_impl_function_type(struct dm *d);

#endif
