/* Types of the older Swift manglings ("_T...", see demangle_swift_od.h):
 * builtin, nominal and bound generic types, function types, tuples,
 * metatypes and existentials, archetypes and generic parameters with
 * their associated types, generic signatures and their requirements, and
 * SIL function types ("XF"). */
#include <stdio.h>
#include <string.h>

#include "hangar/demangle.h"
#include "demangle_swift_od.h"

static sw_node *type_impl(struct od *o);

sw_node *od_type(struct od *o)
{
	if (od_empty(o) || ++o->depth > HG_DEMANGLE_MAX_DEPTH)
		return NULL;
	sw_node *t = sw_with(o->h, SW_TYPE, type_impl(o));
	o->depth--;
	return t;
}

static sw_node *type_into(struct od *o, enum sw_kind kind)
{
	return sw_with(o->h, kind, od_type(o));
}

/* ---- builtin types ---- */

static sw_node *named(struct od *o, enum sw_kind kind, const char *fmt, uint64_t a, uint64_t b)
{
	char name[96];
	snprintf(name, sizeof name, fmt, (unsigned long long)a, (unsigned long long)b);
	char *text = hg_arena_strdup(o->h->arena, name);
	if (!text) {
		o->h->oom = true;
		return NULL;
	}
	return sw_cstr(o->h, kind, text);
}

static bool builtin_size(struct od *o, uint64_t *v)
{
	return od_natural(o, v) && od_next_if(o, '_');
}

static sw_node *builtin_type(struct od *o)
{
	static const struct { char code; const char *name; } plain[] = {
		{'b', "Builtin.BridgeObject"}, {'B', "Builtin.UnsafeValueBuffer"},
		{'O', "Builtin.UnknownObject"}, {'o', "Builtin.NativeObject"},
		{'p', "Builtin.RawPointer"}, {'t', "Builtin.SILToken"}, {'w', "Builtin.Word"},
	};
	char c = od_next(o);
	uint64_t size, elts;
	for (size_t i = 0; c && i < sizeof plain / sizeof *plain; i++)
		if (plain[i].code == c)
			return sw_cstr(o->h, SW_BUILTIN_TYPE_NAME, plain[i].name);
	if (c == 'f' && builtin_size(o, &size))
		return named(o, SW_BUILTIN_TYPE_NAME, "Builtin.FPIEEE%llu", size, 0);
	if (c == 'i' && builtin_size(o, &size))
		return named(o, SW_BUILTIN_TYPE_NAME, "Builtin.Int%llu", size, 0);
	if (c == 'v' && od_natural(o, &elts) && od_next_if(o, 'B')) {
		if (od_next_if(o, 'i') && builtin_size(o, &size))
			return named(o, SW_BUILTIN_TYPE_NAME, "Builtin.Vec%llux" "Int%llu", elts, size);
		if (od_next_if(o, 'f') && builtin_size(o, &size))
			return named(o, SW_BUILTIN_TYPE_NAME, "Builtin.Vec%llux" "FPIEEE%llu", elts, size);
		if (od_next_if(o, 'p'))
			return named(o, SW_BUILTIN_TYPE_NAME, "Builtin.Vec%llux" "RawPointer", elts, 0);
	}
	return NULL;
}

/* ---- function types and tuples ---- */

static sw_node *function_type(struct od *o, enum sw_kind kind)
{
	bool throws = false, concurrent = false, async = false;
	char diff = 0;
	sw_node *actor = NULL;
	if (!od_empty(o)) {
		throws = od_next_if(o, 'z');
		concurrent = od_next_if(o, 'y');
		async = od_next_if(o, 'Z');
		if (od_next_if(o, 'D')) {
			diff = od_next(o);
			if (diff != 'f' && diff != 'r' && diff != 'd' && diff != 'l')
				return NULL;
		}
		if (od_next_if(o, 'Y') && !(actor = od_type(o)))
			return NULL;
	}
	sw_node *in = od_type(o);
	sw_node *out = in ? od_type(o) : NULL;
	if (!out)
		return NULL;
	sw_node *f = sw_new(o->h, kind);
	if (throws)
		f = sw_add(o->h, f, sw_new(o->h, SW_THROWS_ANNOTATION));
	if (async)
		f = sw_add(o->h, f, sw_new(o->h, SW_ASYNC_ANNOTATION));
	if (concurrent)
		f = sw_add(o->h, f, sw_new(o->h, SW_CONCURRENT_FUNCTION_TYPE));
	if (diff)
		f = sw_add(o->h, f, sw_index(o->h, SW_DIFFERENTIABLE_FUNCTION_TYPE, (uint64_t)diff));
	if (actor)
		f = sw_add(o->h, f, sw_with(o->h, SW_GLOBAL_ACTOR_FUNCTION_TYPE, actor));
	f = sw_add(o->h, f, sw_with(o->h, SW_ARGUMENT_TUPLE, in));
	return sw_add(o->h, f, sw_with(o->h, SW_RETURN_TYPE, out));
}

static sw_node *tuple(struct od *o, bool variadic)
{
	sw_node *t = sw_new(o->h, SW_TUPLE), *elt = NULL;
	while (t && !od_next_if(o, '_')) {
		if (od_empty(o))
			return NULL;
		elt = sw_new(o->h, SW_TUPLE_ELEMENT);
		char c = od_peek(o);
		if ((c >= '0' && c <= '9') || c == 'o')
			elt = sw_add(o->h, elt, od_identifier(o, SW_TUPLE_ELEMENT_NAME));
		elt = sw_add(o->h, elt, od_type(o));
		t = sw_add(o->h, t, elt);
	}
	if (t && variadic) {
		/* the variadic marker goes first in the last element */
		if (!elt || !sw_add(o->h, elt, sw_new(o->h, SW_VARIADIC_MARKER)))
			return NULL;
		for (unsigned i = elt->n - 1; i > 0; i--) {
			sw_node *x = elt->kids[i];
			elt->kids[i] = elt->kids[i - 1];
			elt->kids[i - 1] = x;
		}
	}
	return t;
}

static sw_node *protocol_list(struct od *o)
{
	sw_node *types = sw_new(o->h, SW_TYPE_LIST);
	while (types && !od_next_if(o, '_'))
		types = sw_add(o->h, types, od_protocol_name(o));
	return sw_with(o->h, SW_PROTOCOL_LIST, types);
}

static sw_node *metatype_representation(struct od *o)
{
	switch (od_next(o)) {
	case 't': return sw_cstr(o->h, SW_METATYPE_REPRESENTATION, "@thin");
	case 'T': return sw_cstr(o->h, SW_METATYPE_REPRESENTATION, "@thick");
	case 'o': return sw_cstr(o->h, SW_METATYPE_REPRESENTATION, "@objc_metatype");
	default: return NULL;
	}
}

/* ---- generic parameters and associated types ---- */

sw_node *od_dependent_param(struct od *o, uint64_t depth, uint64_t index)
{
	sw_node *t = sw_new(o->h, SW_DEPENDENT_GENERIC_PARAM_TYPE);
	t = sw_add(o->h, t, sw_index(o->h, SW_INDEX, depth));
	return sw_add(o->h, t, sw_index(o->h, SW_INDEX, index));
}

static sw_node *generic_param_index(struct od *o)
{
	uint64_t depth = 0, index = 0;
	if (od_next_if(o, 'd')) {
		if (!od_index(o, &depth) || !od_index(o, &index))
			return NULL;
		depth++;
	} else if (!od_next_if(o, 'x')) {
		if (!od_index(o, &index))
			return NULL;
		index++;
	}
	return od_dependent_param(o, depth, index);
}

static sw_node *member_type_name(struct od *o, sw_node *base)
{
	sw_node *assoc;
	if (od_next_if(o, 'S')) {
		assoc = od_substitution(o);
		if (!sw_is(assoc, SW_DEPENDENT_ASSOCIATED_TYPE_REF))
			return NULL;
	} else {
		sw_node *proto = NULL;
		if (od_next_if(o, 'P') && !(proto = od_protocol_name(o)))
			return NULL;
		assoc = sw_with(o->h, SW_DEPENDENT_ASSOCIATED_TYPE_REF, od_identifier(o, SW_IDENTIFIER));
		if (proto)
			assoc = sw_add(o->h, assoc, proto);
		if (!assoc || !od_add_subst(o, assoc))
			return NULL;
	}
	return sw_with2(o->h, SW_DEPENDENT_MEMBER_TYPE, base, assoc);
}

static sw_node *assoc_type_simple(struct od *o)
{
	return member_type_name(o, sw_with(o->h, SW_TYPE, generic_param_index(o)));
}

static sw_node *assoc_type_compound(struct od *o)
{
	sw_node *base = generic_param_index(o);
	while (base && !od_next_if(o, '_'))
		base = member_type_name(o, sw_with(o->h, SW_TYPE, base));
	return base;
}

static sw_node *dependent_type(struct od *o)
{
	char c = od_peek(o);
	if (od_empty(o))
		return NULL;
	if (c != 'd' && c != '_' && !(c >= '0' && c <= '9'))
		return member_type_name(o, od_type(o));
	return generic_param_index(o);
}

static sw_node *archetype(struct od *o)
{
	sw_node *root;
	if (od_next_if(o, 'Q')) {
		if (++o->depth > HG_DEMANGLE_MAX_DEPTH)
			return NULL;
		root = archetype(o);
		o->depth--;
	} else if (od_next_if(o, 'S')) {
		root = od_substitution(o);
	} else if (od_next_if(o, 's')) {
		root = sw_cstr(o->h, SW_MODULE, "Swift");
	} else {
		return NULL;
	}
	sw_node *t = sw_with2(o->h, SW_ASSOCIATED_TYPE_REF, root, root ? od_identifier(o, SW_IDENTIFIER) : NULL);
	return t && od_add_subst(o, t) ? t : NULL;
}

/* ---- generic signatures ---- */

static sw_node *constrained_type(struct od *o)
{
	sw_node *t;
	if (od_next_if(o, 'w'))
		t = assoc_type_simple(o);
	else if (od_next_if(o, 'W'))
		t = assoc_type_compound(o);
	else
		t = generic_param_index(o);
	return sw_with(o->h, SW_TYPE, t);
}

static sw_node *layout_requirement(struct od *o, sw_node *constrained)
{
	static const char layouts[] = "URNTEeMm";
	char c = od_next(o);
	const char *at = c ? strchr(layouts, c) : NULL;
	if (!at)
		return NULL;
	uint64_t size = 0, alignment = 0;
	bool has_size = false, has_alignment = false;
	if (c == 'E' || c == 'e' || c == 'M' || c == 'm') {
		if (!od_natural(o, &size))
			return NULL;
		has_size = true;
		if (c == 'E' || c == 'M') {
			if (!od_next_if(o, '_') || !od_natural(o, &alignment))
				return NULL;
			has_alignment = true;
		}
	}
	sw_node *r = sw_with2(o->h, SW_DEPENDENT_GENERIC_LAYOUT_REQUIREMENT, constrained,
			      sw_text(o->h, SW_IDENTIFIER, at, 1));
	if (has_size)
		r = sw_add(o->h, r, sw_index(o->h, SW_NUMBER, size));
	if (has_alignment)
		r = sw_add(o->h, r, sw_index(o->h, SW_NUMBER, alignment));
	return r;
}

static sw_node *requirement(struct od *o)
{
	sw_node *t = constrained_type(o), *constraint;
	if (!t)
		return NULL;
	if (od_next_if(o, 'z'))
		return sw_with2(o->h, SW_DEPENDENT_GENERIC_SAME_TYPE_REQUIREMENT, t, od_type(o));
	if (od_next_if(o, 'l'))
		return layout_requirement(o, t);
	if (od_empty(o))
		return NULL;
	if (od_peek(o) == 'C') {
		constraint = od_type(o);
	} else if (od_next_if(o, 'S')) {
		/* the module of a protocol, or a whole type */
		sw_node *sub = od_substitution(o);
		if (sw_is(sub, SW_PROTOCOL) || sw_is(sub, SW_CLASS))
			constraint = sub;
		else if (sw_is(sub, SW_MODULE))
			constraint = od_protocol_name_in(o, sub);
		else
			return NULL;
		constraint = sw_with(o->h, SW_TYPE, constraint);
	} else {
		constraint = od_protocol_name(o);
	}
	return sw_with2(o->h, SW_DEPENDENT_GENERIC_CONFORMANCE_REQUIREMENT, t, constraint);
}

/* Parameter counts per depth ("z" none), none meaning one parameter,
 * then "r", or "R" requirements "r". */
sw_node *od_generic_signature(struct od *o, bool pseudogeneric)
{
	sw_node *sig = sw_new(o->h, pseudogeneric ? SW_DEPENDENT_PSEUDOGENERIC_SIGNATURE
						  : SW_DEPENDENT_GENERIC_SIGNATURE);
	bool counted = false;
	while (sig && od_peek(o) != 'R' && od_peek(o) != 'r') {
		uint64_t count = 0;
		if (!od_next_if(o, 'z')) {
			if (!od_index(o, &count))
				return NULL;
			count++;
		}
		sig = sw_add(o->h, sig, sw_index(o->h, SW_DEPENDENT_GENERIC_PARAM_COUNT, count));
		counted = true;
	}
	if (sig && !counted)
		sig = sw_add(o->h, sig, sw_index(o->h, SW_DEPENDENT_GENERIC_PARAM_COUNT, 1));
	if (!sig || od_next_if(o, 'r'))
		return sig;
	if (!od_next_if(o, 'R'))
		return NULL;
	while (sig && !od_next_if(o, 'r'))
		sig = sw_add(o->h, sig, requirement(o));
	return sig;
}

/* ---- SIL function types ---- */

enum conv_ctx { CALLEE, PARAMETER, RESULT };

static const char *impl_convention(struct od *o, enum conv_ctx ctx)
{
	static const struct { char code; const char *as[3]; } table[] = {
		{'a', {NULL, NULL, "@autoreleased"}},
		{'d', {"@callee_unowned", "@unowned", "@unowned"}},
		{'D', {NULL, NULL, "@unowned_inner_pointer"}},
		{'g', {"@callee_guaranteed", "@guaranteed", NULL}},
		{'e', {NULL, "@deallocating", NULL}},
		{'i', {NULL, "@in", "@out"}},
		{'l', {NULL, "@inout", NULL}},
		{'o', {"@callee_owned", "@owned", "@owned"}},
	};
	char c = od_peek(o);
	for (size_t i = 0; c && i < sizeof table / sizeof *table; i++)
		if (table[i].code == c) {
			o->pos++;
			return table[i].as[ctx];
		}
	return NULL;
}

static sw_node *impl_param_or_result(struct od *o, enum sw_kind kind)
{
	if (od_next_if(o, 'z')) {
		if (kind != SW_IMPL_RESULT)
			return NULL;
		kind = SW_IMPL_ERROR_RESULT;
	}
	const char *conv = impl_convention(o, kind == SW_IMPL_PARAMETER ? PARAMETER : RESULT);
	if (!conv)
		return NULL;
	sw_node *n = sw_with(o->h, kind, sw_cstr(o->h, SW_IMPL_CONVENTION, conv));
	return sw_add(o->h, n, od_type(o));
}

static sw_node *impl_function_type(struct od *o)
{
	static const struct { char code; const char *name; } conventions[] = {
		{'b', "block"}, {'c', "c"}, {'m', "method"}, {'O', "objc_method"},
		{'w', "witness_method"},
	};
	sw_node *type = sw_new(o->h, SW_IMPL_FUNCTION_TYPE);
	const char *callee = od_next_if(o, 't') ? "@convention(thin)" : impl_convention(o, CALLEE);
	if (!callee)
		return NULL;
	type = sw_add(o->h, type, sw_cstr(o->h, SW_IMPL_CONVENTION, callee));
	if (od_next_if(o, 'C')) {
		char c = od_next(o);
		size_t i = 0;
		while (i < sizeof conventions / sizeof *conventions && conventions[i].code != c)
			i++;
		if (!c || i == sizeof conventions / sizeof *conventions)
			return NULL;
		type = sw_add(o->h, type, sw_with(o->h, SW_IMPL_FUNCTION_CONVENTION,
						  sw_cstr(o->h, SW_IMPL_FUNCTION_CONVENTION_NAME, conventions[i].name)));
	}
	if (od_next_if(o, 'h'))
		type = sw_add(o->h, type, sw_cstr(o->h, SW_IMPL_FUNCTION_ATTRIBUTE, "@Sendable"));
	if (od_next_if(o, 'H'))
		type = sw_add(o->h, type, sw_cstr(o->h, SW_IMPL_FUNCTION_ATTRIBUTE, "@async"));
	bool pseudo = false;
	if (od_next_if(o, 'G') || (pseudo = od_next_if(o, 'g')))
		type = sw_add(o->h, type, od_generic_signature(o, pseudo));
	if (!type || !od_next_if(o, '_'))
		return NULL;
	while (type && !od_next_if(o, '_'))
		type = sw_add(o->h, type, impl_param_or_result(o, SW_IMPL_PARAMETER));
	while (type && !od_next_if(o, '_'))
		type = sw_add(o->h, type, impl_param_or_result(o, SW_IMPL_RESULT));
	return type;
}

bool od_reabstract_signature(struct od *o, sw_node *thunk)
{
	if (od_next_if(o, 'G') && !sw_add(o->h, thunk, od_generic_signature(o, false)))
		return false;
	if (!sw_add(o->h, thunk, od_type(o)))
		return false;
	return sw_add(o->h, thunk, od_type(o)) != NULL;
}

/* ---- types ---- */

static sw_node *special_type(struct od *o)
{
	sw_node *a;
	switch (od_next(o)) {
	case 'b': return type_into(o, SW_SIL_BOX_TYPE);
	case 'B': {
		sw_node *sig = NULL, *layout = sw_new(o->h, SW_SIL_BOX_LAYOUT);
		if (od_next_if(o, 'G') && !(sig = od_generic_signature(o, false)))
			return NULL;
		while (layout && !od_next_if(o, '_')) {
			enum sw_kind k = od_next_if(o, 'm') ? SW_SIL_BOX_MUTABLE_FIELD
				       : od_next_if(o, 'i') ? SW_SIL_BOX_IMMUTABLE_FIELD : SW_GLOBAL;
			if (k == SW_GLOBAL)
				return NULL;
			layout = sw_add(o->h, layout, type_into(o, k));
		}
		sw_node *box = sw_with(o->h, SW_SIL_BOX_TYPE_WITH_LAYOUT, layout);
		if (box && sig) {
			sw_node *args = sw_new(o->h, SW_TYPE_LIST);
			while (args && !od_next_if(o, '_'))
				args = sw_add(o->h, args, od_type(o));
			box = sw_add(o->h, sw_add(o->h, box, sig), args);
		}
		return box;
	}
	case 'M':
		a = metatype_representation(o);
		return a ? sw_add(o->h, sw_with(o->h, SW_METATYPE, a), od_type(o)) : NULL;
	case 'P':
		if (!od_next_if(o, 'M'))
			return protocol_list(o);
		a = metatype_representation(o);
		return a ? sw_add(o->h, sw_with(o->h, SW_EXISTENTIAL_METATYPE, a), od_type(o)) : NULL;
	case 'f': return function_type(o, SW_THIN_FUNCTION_TYPE);
	case 'o': return type_into(o, SW_UNOWNED);
	case 'u': return type_into(o, SW_UNMANAGED);
	case 'w': return type_into(o, SW_WEAK);
	case 'F': return impl_function_type(o);
	default: return NULL;
	}
}

static sw_node *type_impl(struct od *o)
{
	char c = od_next(o);
	switch (c) {
	case 'B': return builtin_type(o);
	case 'a': return od_declaration(o, SW_TYPE_ALIAS);
	case 'b': return function_type(o, SW_OBJC_BLOCK);
	case 'c': return function_type(o, SW_C_FUNCTION_POINTER);
	case 'D': return type_into(o, SW_DYNAMIC_SELF);
	case 'E': return od_next_if_str(o, "RR") ? sw_new(o->h, SW_ERROR_TYPE) : NULL;
	case 'F': return function_type(o, SW_FUNCTION_TYPE);
	case 'f': return function_type(o, SW_UNCURRIED_FUNCTION_TYPE);
	case 'G': return od_bound_generic_type(o);
	case 'X': return special_type(o);
	case 'K': return function_type(o, SW_AUTO_CLOSURE_TYPE);
	case 'M': return type_into(o, SW_METATYPE);
	case 'P': return od_next_if(o, 'M') ? type_into(o, SW_EXISTENTIAL_METATYPE) : protocol_list(o);
	case 'Q': return od_next_if(o, 'u') ? sw_new(o->h, SW_OPAQUE_RETURN_TYPE) : archetype(o);
	case 'q': return dependent_type(o);
	case 'x': return od_dependent_param(o, 0, 0);
	case 'w': return assoc_type_simple(o);
	case 'W': return assoc_type_compound(o);
	case 'R': case 'k':
		if (++o->depth > HG_DEMANGLE_MAX_DEPTH)
			return NULL;
		{
			sw_node *t = sw_with(o->h, c == 'R' ? SW_IN_OUT : SW_NO_DERIVATIVE, type_impl(o));
			o->depth--;
			return t;
		}
	case 'S': return od_substitution(o);
	case 'T': return tuple(o, false);
	case 't': return tuple(o, true);
	case 'u': {
		sw_node *sig = od_generic_signature(o, false);
		return sig ? sw_with2(o->h, SW_DEPENDENT_GENERIC_TYPE, sig, od_type(o)) : NULL;
	}
	case 'C': case 'V': case 'O':
		return od_declaration(o, c == 'C' ? SW_CLASS : c == 'V' ? SW_STRUCTURE : SW_ENUM);
	default:
		return NULL;
	}
}
