/* The Swift demangler's state and the helpers its operators share
 * (demangle_swift.c: nodes, the stack, identifiers and substitutions;
 * demangle_swift_ops.c: the operators).  Every function returns NULL (or
 * false) on failure: an operator outside the supported subset, input that
 * does not fit the grammar, a bound, or ENOMEM (oom set). */
#ifndef HANGAR_LIB_DEMANGLE_SWIFT_OPS_H
#define HANGAR_LIB_DEMANGLE_SWIFT_OPS_H

#include "demangle_internal.h"

/* Bounds for hostile input: nodes per symbol, the repeat count of a
 * substitution ("A5a"), words (Swift's own limit). */
#define SW_MAX_NODES 200000
#define SW_MAX_REPEAT 2048
#define SW_MAX_WORDS 26

struct sw {
	const char *s;
	size_t len, pos;
	hg_arena *arena;          /* every node and text; freed with the call */
	bool oom;
	size_t n_nodes;
	sw_node **stack;
	size_t n_stack, cap_stack;
	sw_node **subst;
	size_t n_subst, cap_subst;
	struct { const char *s; size_t len; } words[SW_MAX_WORDS];
	int n_words;
};

sw_node *sw_new(struct sw *p, enum sw_kind kind);
sw_node *sw_text(struct sw *p, enum sw_kind kind, const char *s, size_t len);
sw_node *sw_cstr(struct sw *p, enum sw_kind kind, const char *s);
sw_node *sw_index(struct sw *p, enum sw_kind kind, uint64_t v);
sw_node *sw_add(struct sw *p, sw_node *parent, sw_node *kid);
sw_node *sw_with(struct sw *p, enum sw_kind kind, sw_node *a);
sw_node *sw_with2(struct sw *p, enum sw_kind kind, sw_node *a, sw_node *b);
sw_node *sw_with3(struct sw *p, enum sw_kind kind, sw_node *a, sw_node *b, sw_node *c);
sw_node *sw_type(struct sw *p, sw_node *a);
void sw_reverse(sw_node *n, unsigned from);

bool sw_push(struct sw *p, sw_node *n);
sw_node *sw_pop(struct sw *p);
sw_node *sw_pop_kind(struct sw *p, enum sw_kind kind);
sw_node *sw_pop_if(struct sw *p, bool (*pred)(enum sw_kind));
sw_node *sw_subst_add(struct sw *p, sw_node *n);

char sw_next(struct sw *p);
char sw_peek(const struct sw *p);
bool sw_next_if(struct sw *p, char c);
long sw_natural(struct sw *p);
long sw_index_value(struct sw *p);
sw_node *sw_index_node(struct sw *p);

sw_node *sw_identifier(struct sw *p);
sw_node *sw_operator_identifier(struct sw *p);
sw_node *sw_multi_substitutions(struct sw *p);
sw_node *sw_standard_substitution(struct sw *p);
sw_node *sw_swift_type(struct sw *p, enum sw_kind kind, const char *name);

/* One operator at p->pos (demangle_swift_ops.c), and the helpers the
 * entity operators share with it. */
sw_node *sw_operator(struct sw *p);
bool sw_is_context(enum sw_kind k);
bool sw_is_function_attr(enum sw_kind k);
bool sw_is_decl_name(enum sw_kind k);
bool sw_is_entity(enum sw_kind k);
bool sw_is_protocol_node(const sw_node *n);
sw_node *sw_pop_module(struct sw *p);
sw_node *sw_pop_context(struct sw *p);
sw_node *sw_pop_type_child(struct sw *p);
sw_node *sw_pop_protocol(struct sw *p);
sw_node *sw_pop_function_type(struct sw *p, enum sw_kind kind);
sw_node *sw_pop_param_labels(struct sw *p, const sw_node *type, bool *bad);
sw_node *sw_pop_type_list(struct sw *p);

/* Entities, accessors, thunks, witnesses and special types
 * (demangle_swift_entities.c). */
sw_node *sw_builtin_type(struct sw *p);
sw_node *sw_local_identifier(struct sw *p);
sw_node *sw_metatype(struct sw *p);
sw_node *sw_thunk_or_specialization(struct sw *p);
sw_node *sw_witness(struct sw *p);
sw_node *sw_special_type(struct sw *p);
sw_node *sw_function_entity(struct sw *p);
sw_node *sw_subscript(struct sw *p);
sw_node *sw_variable(struct sw *p);
sw_node *sw_protocol_list(struct sw *p);
/* SIL function types "I..." of reabstraction thunks (demangle_swift_impl.c). */
sw_node *sw_impl_function_type(struct sw *p);

#endif
