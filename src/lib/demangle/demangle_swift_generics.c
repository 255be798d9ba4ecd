/* Generics in a Swift 4.2+ mangling: generic signatures ("l", "r") and
 * their requirements ("R..."), protocols and protocol conformances as the
 * operators that need one pop them, the conformance operators ("H...")
 * and retroactive conformances ("g"). */
#include <string.h>

#include "demangle_swift_dm.h"

/* ---- signatures and requirements ---- */

/* "r" with a parameter count per depth ("z" for none) up to "l"; "l"
 * alone is one parameter.  The requirements below it on the stack follow
 * the counts, in their mangled order. */
sw_node *dm_generic_signature(struct dm *d, bool counts)
{
	sw_node *sig = dm_new(d, SW_DEPENDENT_GENERIC_SIGNATURE), *req;
	if (!sig)
		return NULL;
	if (counts) {
		while (!dm_next_if(d, 'l')) {
			long count = 0;
			if (!dm_next_if(d, 'z')) {
				long i = dm_index(d);
				if (i < 0)
					return NULL;
				count = i + 1;
			}
			if (!dm_add(d, sig, sw_index(d->h, SW_DEPENDENT_GENERIC_PARAM_COUNT, (uint64_t)count)))
				return NULL;
		}
	} else if (!dm_add(d, sig, sw_index(d->h, SW_DEPENDENT_GENERIC_PARAM_COUNT, 1))) {
		return NULL;
	}
	unsigned n_counts = sig->n;
	while ((req = dm_pop_if(d, sw_is_requirement)))
		if (!dm_add(d, sig, req))
			return NULL;
	sw_reverse(sig, n_counts);
	return sig;
}

enum constraint { PROTOCOL, BASE_CLASS, SAME_TYPE, SAME_SHAPE, LAYOUT, PACK_MARKER, INVERSE, VALUE_MARKER };
enum constrained { GENERIC, ASSOC, COMPOUND_ASSOC, SUBSTITUTION };

/* The letter after "R": what constrains what. */
static bool requirement_kind(char c, enum constraint *ck, enum constrained *tk)
{
	static const struct {
		char code;
		enum constraint ck;
		enum constrained tk;
	} table[] = {
		{'V', VALUE_MARKER, GENERIC}, {'v', PACK_MARKER, GENERIC},
		{'C', BASE_CLASS, COMPOUND_ASSOC}, {'c', BASE_CLASS, ASSOC}, {'b', BASE_CLASS, GENERIC},
		{'B', BASE_CLASS, SUBSTITUTION}, {'t', SAME_TYPE, ASSOC}, {'T', SAME_TYPE, COMPOUND_ASSOC},
		{'s', SAME_TYPE, GENERIC}, {'S', SAME_TYPE, SUBSTITUTION}, {'m', LAYOUT, ASSOC},
		{'M', LAYOUT, COMPOUND_ASSOC}, {'l', LAYOUT, GENERIC}, {'L', LAYOUT, SUBSTITUTION},
		{'p', PROTOCOL, ASSOC}, {'P', PROTOCOL, COMPOUND_ASSOC}, {'Q', PROTOCOL, SUBSTITUTION},
		{'h', SAME_SHAPE, GENERIC}, {'i', INVERSE, GENERIC}, {'I', INVERSE, SUBSTITUTION},
	};
	for (size_t i = 0; i < sizeof table / sizeof *table; i++)
		if (table[i].code == c) {
			*ck = table[i].ck;
			*tk = table[i].tk;
			return true;
		}
	return false;
}

/* A layout constraint: its letter (kept as the name the printer reads),
 * then a size, and an alignment for some. */
static sw_node *layout_requirement(struct dm *d, sw_node *constrained)
{
	static const char layouts[] = "URNCDTBEeMmS";
	char c = dm_next(d);
	const char *at = c ? strchr(layouts, c) : NULL;
	if (!at)
		return NULL;
	sw_node *size = NULL, *alignment = NULL;
	if (strchr("EeMmS", c)) {
		if (!(size = dm_index_node(d)))
			return NULL;
		if (c == 'E' || c == 'M')
			alignment = dm_index_node(d);
	}
	sw_node *name = sw_text(d->h, SW_IDENTIFIER, at, 1);
	sw_node *req = sw_with2(d->h, SW_DEPENDENT_GENERIC_LAYOUT_REQUIREMENT, constrained, name);
	if (size)
		req = dm_add(d, req, size);
	if (alignment)
		req = dm_add(d, req, alignment);
	return req;
}

sw_node *dm_generic_requirement(struct dm *d)
{
	enum constraint ck = PROTOCOL;
	enum constrained tk = GENERIC;
	sw_node *inverse = NULL, *t;
	char c = dm_next(d);
	if (!requirement_kind(c, &ck, &tk) && c)
		dm_back(d);
	if (ck == INVERSE && !(inverse = dm_index_node(d)))
		return NULL;
	switch (tk) {
	case GENERIC:
		t = dm_type(d, dm_generic_param_index(d));
		break;
	case ASSOC:
		t = dm_assoc_type_simple(d, dm_generic_param_index(d));
		if (!dm_add_subst(d, t))
			return NULL;
		break;
	case COMPOUND_ASSOC:
		t = dm_assoc_type_compound(d, dm_generic_param_index(d));
		if (!dm_add_subst(d, t))
			return NULL;
		break;
	default:
		t = dm_pop_kind(d, SW_TYPE);
		break;
	}
	switch (ck) {
	case VALUE_MARKER:
		return sw_with2(d->h, SW_DEPENDENT_GENERIC_PARAM_VALUE_MARKER, t, dm_pop_kind(d, SW_TYPE));
	case PACK_MARKER:
		return dm_with(d, SW_DEPENDENT_GENERIC_PARAM_PACK_MARKER, t);
	case PROTOCOL:
		return sw_with2(d->h, SW_DEPENDENT_GENERIC_CONFORMANCE_REQUIREMENT, t, dm_pop_protocol(d));
	case INVERSE:
		return sw_with2(d->h, SW_DEPENDENT_GENERIC_INVERSE_CONFORMANCE_REQUIREMENT, t, inverse);
	case BASE_CLASS:
		return sw_with2(d->h, SW_DEPENDENT_GENERIC_CONFORMANCE_REQUIREMENT, t,
				dm_pop_kind(d, SW_TYPE));
	case SAME_TYPE:
		return sw_with2(d->h, SW_DEPENDENT_GENERIC_SAME_TYPE_REQUIREMENT, t,
				dm_pop_kind(d, SW_TYPE));
	case SAME_SHAPE:
		return sw_with2(d->h, SW_DEPENDENT_GENERIC_SAME_SHAPE_REQUIREMENT, t,
				dm_pop_kind(d, SW_TYPE));
	default:
		return layout_requirement(d, t);
	}
}

/* ---- protocols and conformances ---- */

sw_node *dm_pop_protocol(struct dm *d)
{
	sw_node *t = dm_pop_kind(d, SW_TYPE);
	if (t)
		return t->n && sw_is_protocol(t) ? t : NULL;
	if ((t = dm_pop_kind(d, SW_PROTOCOL_SYMBOLIC_REFERENCE)) ||
	    (t = dm_pop_kind(d, SW_OBJECTIVE_C_PROTOCOL_SYMBOLIC_REFERENCE)))
		return t;
	sw_node *name = dm_pop_if(d, sw_is_decl_name);
	sw_node *ctx = dm_pop_context(d);
	return dm_type(d, sw_with2(d->h, SW_PROTOCOL, ctx, name));
}

sw_node *dm_pop_protocol_conformance(struct dm *d)
{
	sw_node *sig = dm_pop_kind(d, SW_DEPENDENT_GENERIC_SIGNATURE);
	sw_node *module = dm_pop_module(d);
	sw_node *proto = dm_pop_protocol(d);
	sw_node *type = dm_pop_kind(d, SW_TYPE), *ident = NULL;
	if (!type) {
		/* a property behavior's conformance */
		ident = dm_pop_kind(d, SW_IDENTIFIER);
		type = dm_pop_kind(d, SW_TYPE);
	}
	if (sig)
		type = dm_type(d, sw_with2(d->h, SW_DEPENDENT_GENERIC_TYPE, sig, type));
	sw_node *conf = sw_with3(d->h, SW_PROTOCOL_CONFORMANCE, type, proto, module);
	if (ident)
		dm_add(d, conf, ident);
	return conf;
}

static bool is_any_conformance(enum sw_kind k)
{
	switch (k) {
	case SW_CONCRETE_PROTOCOL_CONFORMANCE: case SW_PACK_PROTOCOL_CONFORMANCE:
	case SW_DEPENDENT_PROTOCOL_CONFORMANCE_ROOT: case SW_DEPENDENT_PROTOCOL_CONFORMANCE_INHERITED:
	case SW_DEPENDENT_PROTOCOL_CONFORMANCE_ASSOCIATED:
	case SW_DEPENDENT_PROTOCOL_CONFORMANCE_OPAQUE:
		return true;
	default:
		return false;
	}
}

static bool is_dependent_conformance(enum sw_kind k)
{
	return k == SW_DEPENDENT_PROTOCOL_CONFORMANCE_ROOT ||
	       k == SW_DEPENDENT_PROTOCOL_CONFORMANCE_INHERITED ||
	       k == SW_DEPENDENT_PROTOCOL_CONFORMANCE_ASSOCIATED;
}

sw_node *dm_pop_any_conformance(struct dm *d)
{
	return dm_pop_if(d, is_any_conformance);
}

static sw_node *pop_conformance_list(struct dm *d)
{
	sw_node *list = dm_new(d, SW_ANY_PROTOCOL_CONFORMANCE_LIST);
	if (!list || dm_pop_kind(d, SW_EMPTY_LIST))
		return list;
	bool first;
	do {
		first = dm_pop_kind(d, SW_FIRST_ELEMENT_MARKER) != NULL;
		if (!dm_add(d, list, dm_pop_any_conformance(d)))
			return NULL;
	} while (!first);
	sw_reverse(list, 0);
	return list;
}

/* The index of a dependent conformance: 1 unknown, n + 2 index n. */
static sw_node *conformance_index(struct dm *d)
{
	long i = dm_index(d);
	if (i <= 0)
		return NULL;
	if (i == 1)
		return dm_new(d, SW_UNKNOWN_INDEX);
	return sw_index(d->h, SW_INDEX, (uint64_t)(i - 2));
}

static sw_node *concrete_conformance(struct dm *d)
{
	sw_node *conditional = pop_conformance_list(d);
	sw_node *ref = dm_pop_kind(d, SW_PROTOCOL_CONFORMANCE_REF_IN_TYPE_MODULE);
	if (!ref)
		ref = dm_pop_kind(d, SW_PROTOCOL_CONFORMANCE_REF_IN_PROTOCOL_MODULE);
	if (!ref) {
		/* retroactive: the conformance's module names it */
		sw_node *module = dm_pop_module(d);
		sw_node *proto = dm_pop_protocol(d);
		ref = sw_with2(d->h, SW_PROTOCOL_CONFORMANCE_REF_IN_OTHER_MODULE, proto, module);
	}
	sw_node *type = dm_pop_kind(d, SW_TYPE);
	return sw_with3(d->h, SW_CONCRETE_PROTOCOL_CONFORMANCE, type, ref, conditional);
}

static sw_node *dependent_conformance(struct dm *d, char c)
{
	sw_node *index, *a, *b;
	switch (c) {
	case 'D':
		index = conformance_index(d);
		b = dm_pop_protocol(d);
		a = dm_pop_kind(d, SW_TYPE);
		return sw_with3(d->h, SW_DEPENDENT_PROTOCOL_CONFORMANCE_ROOT, a, b, index);
	case 'I':
		index = conformance_index(d);
		b = dm_pop_protocol(d);
		a = dm_pop_if(d, is_dependent_conformance);
		return sw_with3(d->h, SW_DEPENDENT_PROTOCOL_CONFORMANCE_INHERITED, a, b, index);
	case 'A':
		index = conformance_index(d);
		b = dm_pop_protocol(d);
		a = dm_pop_kind(d, SW_TYPE);
		b = sw_with2(d->h, SW_DEPENDENT_ASSOCIATED_CONFORMANCE, a, b);
		a = dm_pop_if(d, is_dependent_conformance);
		return sw_with3(d->h, SW_DEPENDENT_PROTOCOL_CONFORMANCE_ASSOCIATED, a, b, index);
	default: /* 'O' */
		b = dm_pop_kind(d, SW_TYPE);
		a = dm_pop_if(d, is_dependent_conformance);
		return sw_with2(d->h, SW_DEPENDENT_PROTOCOL_CONFORMANCE_OPAQUE, a, b);
	}
}

/* "H": conformances, and the runtime records of descriptors. */
sw_node *dm_conformance_operator(struct dm *d)
{
	char c = dm_next(d);
	switch (c) {
	case 'A': case 'D': case 'I': case 'O': return dependent_conformance(d, c);
	case 'C': return concrete_conformance(d);
	case 'P': return dm_with(d, SW_PROTOCOL_CONFORMANCE_REF_IN_TYPE_MODULE, dm_pop_protocol(d));
	case 'p':
		return dm_with(d, SW_PROTOCOL_CONFORMANCE_REF_IN_PROTOCOL_MODULE, dm_pop_protocol(d));
	case 'X': return dm_with(d, SW_PACK_PROTOCOL_CONFORMANCE, pop_conformance_list(d));
	case 'c':
		return dm_with(d, SW_PROTOCOL_CONFORMANCE_DESCRIPTOR_RECORD,
			       dm_pop_protocol_conformance(d));
	case 'n': return dm_with(d, SW_NOMINAL_TYPE_DESCRIPTOR_RECORD, dm_pop_kind(d, SW_TYPE));
	case 'o': return dm_with(d, SW_OPAQUE_TYPE_DESCRIPTOR_RECORD, dm_pop(d));
	case 'r': return dm_with(d, SW_PROTOCOL_DESCRIPTOR_RECORD, dm_pop_protocol(d));
	case 'F': return dm_new(d, SW_ACCESSIBLE_FUNCTION_RECORD);
	default:
		/* Swift reads the 'H' as the start of an identifier, which
		 * never starts so: not understood. */
		return NULL;
	}
}

sw_node *dm_retroactive_conformance(struct dm *d)
{
	sw_node *index = dm_index_node(d);
	sw_node *conformance = dm_pop_any_conformance(d);
	return sw_with2(d->h, SW_RETROACTIVE_CONFORMANCE, index, conformance);
}

/* ---- associated type names ---- */

sw_node *dm_pop_assoc_type_name(struct dm *d)
{
	sw_node *proto = dm_pop_kind(d, SW_TYPE);
	if (proto && !sw_is_protocol(proto))
		return NULL;
	if (!proto)
		proto = dm_pop_kind(d, SW_PROTOCOL_SYMBOLIC_REFERENCE);
	if (!proto)
		proto = dm_pop_kind(d, SW_OBJECTIVE_C_PROTOCOL_SYMBOLIC_REFERENCE);
	sw_node *name = dm_with(d, SW_DEPENDENT_ASSOCIATED_TYPE_REF, dm_pop_kind(d, SW_IDENTIFIER));
	if (proto)
		dm_add(d, name, proto);
	return name;
}

sw_node *dm_pop_assoc_type_path(struct dm *d)
{
	sw_node *path = dm_new(d, SW_ASSOC_TYPE_PATH);
	bool first;
	do {
		first = dm_pop_kind(d, SW_FIRST_ELEMENT_MARKER) != NULL;
		if (!dm_add(d, path, dm_pop_assoc_type_name(d)))
			return NULL;
	} while (!first);
	sw_reverse(path, 0);
	return path;
}

sw_node *dm_pop_self_or_assoc_type_path(struct dm *d)
{
	sw_node *t = dm_pop_kind(d, SW_TYPE);
	if (t) {
		if (sw_is(sw_kid(t, 0), SW_DEPENDENT_GENERIC_PARAM_TYPE))
			return t;
		if (!dm_push(d, t))
			return NULL;
	}
	return dm_pop_assoc_type_path(d);
}
