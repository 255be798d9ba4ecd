/* The rest of a Swift 4.2+ mangling's types: special types ("X..."),
 * annotations of function types and parameters ("Y..."), archetypes,
 * opaque, associated and pack types ("Q..."), generic parameters ("q",
 * "x") and dependent generic types ("u"). */
#include "demangle_swift_dm.h"

static sw_node *pop_type_into(struct dm *d, enum sw_kind kind)
{
	return dm_type(d, dm_with(d, kind, dm_pop_kind(d, SW_TYPE)));
}

static sw_node *metatype_representation(struct dm *d)
{
	switch (dm_next(d)) {
	case 't': return sw_cstr(d->h, SW_METATYPE_REPRESENTATION, "@thin");
	case 'T': return sw_cstr(d->h, SW_METATYPE_REPRESENTATION, "@thick");
	case 'o': return sw_cstr(d->h, SW_METATYPE_REPRESENTATION, "@objc_metatype");
	default: return NULL;
	}
}

/* "Xx" (and "XX", generic): a SIL box's fields, an inout field mutable. */
static sw_node *sil_box(struct dm *d, bool generic)
{
	sw_node *sig = NULL, *args = NULL;
	if (generic) {
		if (!(sig = dm_pop_kind(d, SW_DEPENDENT_GENERIC_SIGNATURE)) ||
		    !(args = dm_pop_type_list(d)))
			return NULL;
	}
	sw_node *fields = dm_pop_type_list(d), *layout = dm_new(d, SW_SIL_BOX_LAYOUT);
	if (!fields || !layout)
		return NULL;
	for (unsigned i = 0; i < fields->n; i++) {
		sw_node *t = fields->kids[i];
		bool mutable_field = sw_is(sw_kid(t, 0), SW_IN_OUT);
		if (mutable_field)
			t = dm_type(d, sw_kid(t->kids[0], 0));
		sw_node *f = dm_with(d, mutable_field ? SW_SIL_BOX_MUTABLE_FIELD : SW_SIL_BOX_IMMUTABLE_FIELD,
				     t);
		if (!dm_add(d, layout, f))
			return NULL;
	}
	sw_node *box = dm_with(d, SW_SIL_BOX_TYPE_WITH_LAYOUT, layout);
	if (sig && !dm_add(d, dm_add(d, box, sig), args))
		return NULL;
	return dm_type(d, box);
}

static sw_node *sugared(struct dm *d)
{
	sw_node *a, *b;
	switch (dm_next(d)) {
	case 'q': return pop_type_into(d, SW_SUGARED_OPTIONAL);
	case 'a': return pop_type_into(d, SW_SUGARED_ARRAY);
	case 'p': return pop_type_into(d, SW_SUGARED_PAREN);
	case 'D':
		b = dm_pop_kind(d, SW_TYPE);
		a = dm_pop_kind(d, SW_TYPE);
		return dm_type(d, sw_with2(d->h, SW_SUGARED_DICTIONARY, a, b));
	case 'A':
		b = dm_pop_kind(d, SW_TYPE);
		a = dm_pop_kind(d, SW_TYPE);
		return dm_type(d, sw_with2(d->h, SW_SUGARED_INLINE_ARRAY, a, b));
	default:
		return NULL;
	}
}

static sw_node *anonymous_context(struct dm *d)
{
	sw_node *types = dm_pop_type_list(d);
	sw_node *name = dm_pop_kind(d, SW_IDENTIFIER);
	sw_node *parent = dm_pop_context(d);
	return dm_add(d, dm_add(d, dm_add(d, dm_new(d, SW_ANONYMOUS_CONTEXT), name), parent), types);
}

/* "XP": a protocol type with its requirements ("any P<T == Int>"). */
static sw_node *constrained_existential(struct dm *d)
{
	sw_node *reqs = dm_new(d, SW_CONSTRAINED_EXISTENTIAL_REQUIREMENT_LIST);
	bool first;
	do {
		first = dm_pop_kind(d, SW_FIRST_ELEMENT_MARKER) != NULL;
		if (!dm_add(d, reqs, dm_pop_if(d, sw_is_requirement)))
			return NULL;
	} while (!first);
	sw_reverse(reqs, 0);
	sw_node *base = dm_pop_kind(d, SW_TYPE);
	return dm_type(d, sw_with2(d->h, SW_CONSTRAINED_EXISTENTIAL, base, reqs));
}

static sw_node *special_function_type(struct dm *d, char c)
{
	switch (c) {
	case 'E': return dm_pop_function_type(d, SW_NO_ESCAPE_FUNCTION_TYPE, false);
	case 'A': return dm_pop_function_type(d, SW_ESCAPING_AUTO_CLOSURE_TYPE, false);
	case 'f': return dm_pop_function_type(d, SW_THIN_FUNCTION_TYPE, false);
	case 'K': return dm_pop_function_type(d, SW_AUTO_CLOSURE_TYPE, false);
	case 'U': return dm_pop_function_type(d, SW_UNCURRIED_FUNCTION_TYPE, false);
	case 'L': return dm_pop_function_type(d, SW_ESCAPING_OBJC_BLOCK, false);
	case 'B': return dm_pop_function_type(d, SW_OBJC_BLOCK, false);
	case 'C': return dm_pop_function_type(d, SW_C_FUNCTION_POINTER, false);
	case 'z':
		switch (dm_next(d)) {
		case 'B': return dm_pop_function_type(d, SW_OBJC_BLOCK, true);
		case 'C': return dm_pop_function_type(d, SW_C_FUNCTION_POINTER, true);
		default: return NULL;
		}
	default: return NULL;
	}
}

sw_node *dm_special_type(struct dm *d)
{
	char c = dm_next(d);
	sw_node *a, *b;
	switch (c) {
	case 'o': return pop_type_into(d, SW_UNOWNED);
	case 'u': return pop_type_into(d, SW_UNMANAGED);
	case 'w': return pop_type_into(d, SW_WEAK);
	case 'b': return pop_type_into(d, SW_SIL_BOX_TYPE);
	case 'D': return pop_type_into(d, SW_DYNAMIC_SELF);
	case 'p': return pop_type_into(d, SW_EXISTENTIAL_METATYPE);
	case 'M': case 'm':
		a = metatype_representation(d);
		b = dm_pop_kind(d, SW_TYPE);
		return dm_type(d, sw_with2(d->h, c == 'M' ? SW_METATYPE : SW_EXISTENTIAL_METATYPE, a, b));
	case 'P':
		return constrained_existential(d);
	case 'c':
		b = dm_pop_kind(d, SW_TYPE);
		a = dm_protocol_list_node(d);
		return dm_type(d, sw_with2(d->h, SW_PROTOCOL_LIST_WITH_CLASS, a, b));
	case 'l':
		return dm_type(d, dm_with(d, SW_PROTOCOL_LIST_WITH_ANY_OBJECT, dm_protocol_list_node(d)));
	case 'X': case 'x': return sil_box(d, c == 'X');
	case 'Y': return dm_any_generic_type(d, SW_OTHER_NOMINAL_TYPE);
	case 'Z': return anonymous_context(d);
	case 'e': return dm_type(d, dm_new(d, SW_ERROR_TYPE));
	case 'S': return sugared(d);
	default: return special_function_type(d, c);
	}
}

/* ---- annotations ---- */

static sw_node *differentiable_kind(struct dm *d, enum sw_kind kind)
{
	char c = dm_next(d);
	if (c != 'f' && c != 'r' && c != 'd' && c != 'l')
		return NULL;
	return sw_index(d->h, kind, (uint64_t)(unsigned char)c);
}

static sw_node *annotate_type(struct dm *d, enum sw_kind kind)
{
	return dm_type(d, dm_with(d, kind, dm_pop_type_child(d)));
}

sw_node *dm_type_annotation(struct dm *d)
{
	switch (dm_next(d)) {
	case 'a': return dm_new(d, SW_ASYNC_ANNOTATION);
	case 'A': return dm_new(d, SW_ISOLATED_ANY_FUNCTION_TYPE);
	case 'b': return dm_new(d, SW_CONCURRENT_FUNCTION_TYPE);
	case 'c': return dm_with(d, SW_GLOBAL_ACTOR_FUNCTION_TYPE, dm_pop_type_child(d));
	case 'i': return annotate_type(d, SW_ISOLATED);
	case 'j': return differentiable_kind(d, SW_DIFFERENTIABLE_FUNCTION_TYPE);
	case 'k': return annotate_type(d, SW_NO_DERIVATIVE);
	case 'K': return dm_with(d, SW_TYPED_THROWS_ANNOTATION, dm_pop_type_child(d));
	case 't': return annotate_type(d, SW_COMPILE_TIME_LITERAL);
	case 'T': return dm_new(d, SW_SENDING_RESULT_FUNCTION_TYPE);
	case 'u': return annotate_type(d, SW_SENDING);
	case 'C': return dm_new(d, SW_NON_ISOLATED_CALLER_FUNCTION_TYPE);
	case 'g': return annotate_type(d, SW_CONST_VALUE);
	default: return NULL;
	}
}

/* ---- generic parameters and associated types ---- */

sw_node *dm_dependent_param(struct dm *d, long depth, long index)
{
	if (depth < 0 || index < 0)
		return NULL;
	sw_node *t = dm_new(d, SW_DEPENDENT_GENERIC_PARAM_TYPE);
	t = dm_add(d, t, sw_index(d->h, SW_INDEX, (uint64_t)depth));
	return dm_add(d, t, sw_index(d->h, SW_INDEX, (uint64_t)index));
}

sw_node *dm_generic_param_index(struct dm *d)
{
	if (dm_next_if(d, 'd')) {
		long depth = dm_index(d);
		long index = depth < 0 ? -1 : dm_index(d);
		return depth < 0 ? NULL : dm_dependent_param(d, depth + 1, index);
	}
	if (dm_next_if(d, 'z'))
		return dm_dependent_param(d, 0, 0);
	if (dm_next_if(d, 's'))
		return dm_new(d, SW_CONSTRAINED_EXISTENTIAL_SELF);
	long index = dm_index(d);
	return index < 0 ? NULL : dm_dependent_param(d, 0, index + 1);
}

/* A NULL base (its parameter did not read) pops the base from the
 * stack, as Swift's demangler does. */
sw_node *dm_assoc_type_simple(struct dm *d, sw_node *base)
{
	sw_node *name = dm_pop_assoc_type_name(d);
	sw_node *base_type = base ? dm_type(d, base) : dm_pop_kind(d, SW_TYPE);
	return dm_type(d, sw_with2(d->h, SW_DEPENDENT_MEMBER_TYPE, base_type, name));
}

sw_node *dm_assoc_type_compound(struct dm *d, sw_node *base)
{
	sw_node *names[64];
	size_t n = 0;
	bool first;
	do {
		first = dm_pop_kind(d, SW_FIRST_ELEMENT_MARKER) != NULL;
		sw_node *name = dm_pop_assoc_type_name(d);
		if (!name || n == sizeof names / sizeof *names)
			return NULL;
		names[n++] = name;
	} while (!first);
	sw_node *t = base ? dm_type(d, base) : dm_pop_kind(d, SW_TYPE);
	while (n > 0)
		t = dm_type(d, dm_add(d, dm_add(d, dm_new(d, SW_DEPENDENT_MEMBER_TYPE), t), names[--n]));
	return t;
}

static sw_node *subst(struct dm *d, sw_node *t)
{
	return t && dm_add_subst(d, t) ? t : NULL;
}

static sw_node *opaque_type(struct dm *d)
{
	long index = dm_index(d);
	sw_node **lists, *retro;
	size_t n_lists;
	if (index < 0 || !dm_bound_generics(d, &lists, &n_lists, &retro))
		return NULL;
	sw_node *name = dm_pop(d);
	sw_node *opaque = sw_with2(d->h, SW_OPAQUE_TYPE, name, sw_index(d->h, SW_INDEX, (uint64_t)index));
	sw_node *args = dm_new(d, SW_TYPE_LIST);
	for (size_t i = n_lists; i-- > 0;)
		if (!dm_add(d, args, lists[i]))
			return NULL;
	opaque = dm_add(d, opaque, args);
	if (retro)
		opaque = dm_add(d, opaque, retro);
	return subst(d, dm_type(d, opaque));
}

static sw_node *pack_archetype(struct dm *d, char c)
{
	sw_node *a, *b;
	long level;
	switch (c) {
	case 'p':
		b = dm_pop_type_child(d); /* count */
		a = dm_pop_type_child(d); /* pattern */
		return dm_type(d, sw_with2(d->h, SW_PACK_EXPANSION, a, b));
	case 'e':
		a = dm_pop_type_child(d);
		level = dm_index(d);
		if (level < 0)
			return NULL;
		b = sw_index(d->h, SW_PACK_ELEMENT_LEVEL, (uint64_t)level);
		return dm_type(d, sw_with2(d->h, SW_PACK_ELEMENT, a, b));
	case 'P': return dm_pop_pack(d);
	case 'S': return dm_pop_sil_pack(d);
	default: return NULL;
	}
}

sw_node *dm_archetype(struct dm *d)
{
	char c = dm_next(d);
	sw_node *a, *b;
	long index;
	switch (c) {
	case 'a':
		a = dm_pop_kind(d, SW_IDENTIFIER);
		b = dm_pop_type_child(d);
		return subst(d, dm_type(d, sw_with2(d->h, SW_ASSOCIATED_TYPE_REF, b, a)));
	case 'O': return dm_with(d, SW_OPAQUE_RETURN_TYPE_OF, dm_pop_context(d));
	case 'o': return opaque_type(d);
	case 'r': return dm_type(d, dm_new(d, SW_OPAQUE_RETURN_TYPE));
	case 'R':
		if ((index = dm_index(d)) < 0)
			return NULL;
		a = sw_index(d->h, SW_OPAQUE_RETURN_TYPE_INDEX, (uint64_t)index);
		return dm_type(d, dm_with(d, SW_OPAQUE_RETURN_TYPE, a));
	case 'x': return subst(d, dm_assoc_type_simple(d, NULL));
	case 'X': return subst(d, dm_assoc_type_compound(d, NULL));
	case 'y': return subst(d, dm_assoc_type_simple(d, dm_generic_param_index(d)));
	case 'Y': return subst(d, dm_assoc_type_compound(d, dm_generic_param_index(d)));
	case 'z': return subst(d, dm_assoc_type_simple(d, dm_dependent_param(d, 0, 0)));
	case 'Z': return subst(d, dm_assoc_type_compound(d, dm_dependent_param(d, 0, 0)));
	default: return pack_archetype(d, c);
	}
}

sw_node *dm_generic_type(struct dm *d)
{
	sw_node *sig = dm_pop_kind(d, SW_DEPENDENT_GENERIC_SIGNATURE);
	sw_node *t = dm_pop_kind(d, SW_TYPE);
	return dm_type(d, sw_with2(d->h, SW_DEPENDENT_GENERIC_TYPE, sig, t));
}
