/* The Swift tree's nodes (demangle_internal.h): construction in the
 * symbol's arena, and the classes of kinds the readers test (Swift's
 * isContext, isDeclName, isEntity, isFunctionAttr, isRequirement,
 * isAnyGeneric). */
#include <string.h>

#include "demangle_internal.h"

sw_node *sw_new(struct sw_heap *h, enum sw_kind kind)
{
	if (h->nodes >= SW_MAX_NODES)
		return NULL;
	sw_node *n = hg_arena_alloc(h->arena, sizeof *n);
	if (!n) {
		h->oom = true;
		return NULL;
	}
	h->nodes++;
	n->kind = (uint16_t)kind;
	return n;
}

sw_node *sw_text(struct sw_heap *h, enum sw_kind kind, const char *s, size_t len)
{
	sw_node *n = sw_new(h, kind);
	if (n) {
		n->payload = SW_P_TEXT;
		n->text = s;
		n->len = len;
	}
	return n;
}

sw_node *sw_cstr(struct sw_heap *h, enum sw_kind kind, const char *s)
{
	return sw_text(h, kind, s, strlen(s));
}

sw_node *sw_index(struct sw_heap *h, enum sw_kind kind, uint64_t v)
{
	sw_node *n = sw_new(h, kind);
	if (n) {
		n->payload = SW_P_INDEX;
		n->index = v;
	}
	return n;
}

sw_node *sw_add(struct sw_heap *h, sw_node *parent, sw_node *kid)
{
	if (!parent || !kid)
		return NULL;
	if (parent->n == parent->cap) {
		unsigned cap = parent->cap ? parent->cap * 2 : 2;
		sw_node **k = hg_arena_regrow(h->arena, parent->kids, parent->cap * sizeof *k,
					      cap * sizeof *k);
		if (!k) {
			h->oom = true;
			return NULL;
		}
		parent->kids = k;
		parent->cap = cap;
	}
	parent->kids[parent->n++] = kid;
	return parent;
}

sw_node *sw_with(struct sw_heap *h, enum sw_kind kind, sw_node *a)
{
	return a ? sw_add(h, sw_new(h, kind), a) : NULL;
}

sw_node *sw_with2(struct sw_heap *h, enum sw_kind kind, sw_node *a, sw_node *b)
{
	return a && b ? sw_add(h, sw_with(h, kind, a), b) : NULL;
}

sw_node *sw_with3(struct sw_heap *h, enum sw_kind kind, sw_node *a, sw_node *b, sw_node *c)
{
	return a && b && c ? sw_add(h, sw_with2(h, kind, a, b), c) : NULL;
}

sw_node *sw_with4(struct sw_heap *h, enum sw_kind kind, sw_node *a, sw_node *b, sw_node *c,
		  sw_node *d)
{
	return a && b && c && d ? sw_add(h, sw_with3(h, kind, a, b, c), d) : NULL;
}

sw_node *sw_change_kind(struct sw_heap *h, const sw_node *n, enum sw_kind kind)
{
	if (!n)
		return NULL;
	sw_node *m = sw_new(h, kind);
	if (!m)
		return NULL;
	m->payload = n->payload;
	m->text = n->text;
	m->len = n->len;
	m->index = n->index;
	for (unsigned i = 0; i < n->n; i++)
		if (!sw_add(h, m, n->kids[i]))
			return NULL;
	return m;
}

void sw_reverse(sw_node *n, unsigned from)
{
	for (unsigned i = from, j = n->n; i + 1 < j; i++, j--) {
		sw_node *t = n->kids[i];
		n->kids[i] = n->kids[j - 1];
		n->kids[j - 1] = t;
	}
}

void sw_remove(sw_node *n, unsigned i)
{
	if (i >= n->n)
		return;
	memmove(n->kids + i, n->kids + i + 1, (n->n - i - 1) * sizeof *n->kids);
	n->n--;
}

bool sw_text_is(const sw_node *n, const char *s)
{
	return n && n->payload == SW_P_TEXT && n->len == strlen(s) && memcmp(n->text, s, n->len) == 0;
}

/* ---- classes of kinds ---- */

bool sw_is_context(enum sw_kind k)
{
	switch (k) {
	case SW_ALLOCATOR: case SW_ANONYMOUS_CONTEXT: case SW_CLASS: case SW_CONSTRUCTOR:
	case SW_DEALLOCATOR: case SW_DEFAULT_ARGUMENT_INITIALIZER: case SW_DESTRUCTOR:
	case SW_DID_SET: case SW_ENUM: case SW_EXPLICIT_CLOSURE: case SW_EXTENSION:
	case SW_FUNCTION: case SW_GETTER: case SW_GLOBAL_GETTER: case SW_IVAR_INITIALIZER:
	case SW_IVAR_DESTROYER: case SW_IMPLICIT_CLOSURE: case SW_INITIALIZER:
	case SW_INIT_ACCESSOR: case SW_ISOLATED_DEALLOCATOR: case SW_MATERIALIZE_FOR_SET:
	case SW_MODIFY_ACCESSOR: case SW_MODIFY2_ACCESSOR: case SW_MODULE:
	case SW_NATIVE_OWNING_ADDRESSOR: case SW_NATIVE_OWNING_MUTABLE_ADDRESSOR:
	case SW_NATIVE_PINNING_ADDRESSOR: case SW_NATIVE_PINNING_MUTABLE_ADDRESSOR:
	case SW_OTHER_NOMINAL_TYPE: case SW_OWNING_ADDRESSOR: case SW_OWNING_MUTABLE_ADDRESSOR:
	case SW_PROPERTY_WRAPPER_BACKING_INITIALIZER:
	case SW_PROPERTY_WRAPPER_INIT_FROM_PROJECTED_VALUE: case SW_PROTOCOL:
	case SW_PROTOCOL_SYMBOLIC_REFERENCE: case SW_READ_ACCESSOR: case SW_READ2_ACCESSOR:
	case SW_SETTER: case SW_STATIC: case SW_STRUCTURE: case SW_SUBSCRIPT:
	case SW_TYPE_SYMBOLIC_REFERENCE: case SW_TYPE_ALIAS: case SW_UNSAFE_ADDRESSOR:
	case SW_UNSAFE_MUTABLE_ADDRESSOR: case SW_VARIABLE: case SW_WILL_SET:
	case SW_OPAQUE_RETURN_TYPE_OF: case SW_AUTO_DIFF_FUNCTION:
		return true;
	default:
		return false;
	}
}

bool sw_is_decl_name(enum sw_kind k)
{
	switch (k) {
	case SW_IDENTIFIER: case SW_LOCAL_DECL_NAME: case SW_PRIVATE_DECL_NAME:
	case SW_RELATED_ENTITY_DECL_NAME: case SW_PREFIX_OPERATOR: case SW_POSTFIX_OPERATOR:
	case SW_INFIX_OPERATOR: case SW_TYPE_SYMBOLIC_REFERENCE:
	case SW_PROTOCOL_SYMBOLIC_REFERENCE: case SW_OBJECTIVE_C_PROTOCOL_SYMBOLIC_REFERENCE:
		return true;
	default:
		return false;
	}
}

bool sw_is_entity(enum sw_kind k)
{
	return k == SW_TYPE || sw_is_context(k);
}

bool sw_is_function_attr(enum sw_kind k)
{
	switch (k) {
	case SW_FUNCTION_SIGNATURE_SPECIALIZATION: case SW_GENERIC_SPECIALIZATION:
	case SW_GENERIC_SPECIALIZATION_PRESPECIALIZED: case SW_INLINED_GENERIC_FUNCTION:
	case SW_GENERIC_SPECIALIZATION_NOT_RE_ABSTRACTED: case SW_GENERIC_PARTIAL_SPECIALIZATION:
	case SW_GENERIC_PARTIAL_SPECIALIZATION_NOT_RE_ABSTRACTED:
	case SW_GENERIC_SPECIALIZATION_IN_RESILIENCE_DOMAIN: case SW_OBJC_ATTRIBUTE:
	case SW_NON_OBJC_ATTRIBUTE: case SW_DYNAMIC_ATTRIBUTE:
	case SW_DIRECT_METHOD_REFERENCE_ATTRIBUTE: case SW_VTABLE_ATTRIBUTE:
	case SW_PARTIAL_APPLY_FORWARDER: case SW_PARTIAL_APPLY_OBJC_FORWARDER:
	case SW_OUTLINED_VARIABLE: case SW_OUTLINED_READ_ONLY_OBJECT:
	case SW_OUTLINED_BRIDGED_METHOD: case SW_MERGED_FUNCTION: case SW_DISTRIBUTED_THUNK:
	case SW_DISTRIBUTED_ACCESSOR: case SW_DYNAMICALLY_REPLACEABLE_FUNCTION_IMPL:
	case SW_DYNAMICALLY_REPLACEABLE_FUNCTION_KEY:
	case SW_DYNAMICALLY_REPLACEABLE_FUNCTION_VAR: case SW_ASYNC_FUNCTION_POINTER:
	case SW_ASYNC_AWAIT_RESUME_PARTIAL_FUNCTION:
	case SW_ASYNC_SUSPEND_RESUME_PARTIAL_FUNCTION: case SW_ACCESSIBLE_FUNCTION_RECORD:
	case SW_BACK_DEPLOYMENT_THUNK: case SW_BACK_DEPLOYMENT_FALLBACK:
	case SW_CORO_FUNCTION_POINTER: case SW_DEFAULT_OVERRIDE: case SW_HAS_SYMBOL_QUERY:
		return true;
	default:
		return false;
	}
}

bool sw_is_requirement(enum sw_kind k)
{
	switch (k) {
	case SW_DEPENDENT_GENERIC_PARAM_PACK_MARKER: case SW_DEPENDENT_GENERIC_PARAM_VALUE_MARKER:
	case SW_DEPENDENT_GENERIC_SAME_TYPE_REQUIREMENT:
	case SW_DEPENDENT_GENERIC_SAME_SHAPE_REQUIREMENT:
	case SW_DEPENDENT_GENERIC_LAYOUT_REQUIREMENT:
	case SW_DEPENDENT_GENERIC_CONFORMANCE_REQUIREMENT:
	case SW_DEPENDENT_GENERIC_INVERSE_CONFORMANCE_REQUIREMENT:
		return true;
	default:
		return false;
	}
}

bool sw_is_any_generic(enum sw_kind k)
{
	switch (k) {
	case SW_STRUCTURE: case SW_CLASS: case SW_ENUM: case SW_PROTOCOL:
	case SW_PROTOCOL_SYMBOLIC_REFERENCE: case SW_OBJECTIVE_C_PROTOCOL_SYMBOLIC_REFERENCE:
	case SW_OTHER_NOMINAL_TYPE: case SW_TYPE_ALIAS: case SW_TYPE_SYMBOLIC_REFERENCE:
	case SW_BUILTIN_TUPLE_TYPE:
		return true;
	default:
		return false;
	}
}

bool sw_is_macro_expansion(enum sw_kind k)
{
	switch (k) {
	case SW_ACCESSOR_ATTACHED_MACRO_EXPANSION:
	case SW_MEMBER_ATTRIBUTE_ATTACHED_MACRO_EXPANSION: case SW_FREESTANDING_MACRO_EXPANSION:
	case SW_MEMBER_ATTACHED_MACRO_EXPANSION: case SW_PEER_ATTACHED_MACRO_EXPANSION:
	case SW_CONFORMANCE_ATTACHED_MACRO_EXPANSION: case SW_EXTENSION_ATTACHED_MACRO_EXPANSION:
	case SW_MACRO_EXPANSION_LOC:
		return true;
	default:
		return false;
	}
}

bool sw_is_protocol(const sw_node *n)
{
	for (int i = 0; n && i < 64; i++) {
		switch (n->kind) {
		case SW_TYPE:
			n = sw_kid(n, 0);
			continue;
		case SW_PROTOCOL: case SW_PROTOCOL_SYMBOLIC_REFERENCE:
		case SW_OBJECTIVE_C_PROTOCOL_SYMBOLIC_REFERENCE:
			return true;
		default:
			return false;
		}
	}
	return false;
}
