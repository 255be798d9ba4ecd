/* Entities in a Swift 4.2+ mangling: types mangled alone ("D"), functions
 * ("F"), variables ("v") and subscripts ("i") with their accessors, the
 * other entities "f" introduces (initializers, closures, default
 * arguments, macros and their expansions), metadata ("M...") and value
 * witnesses ("w"). */
#include <string.h>

#include "demangle_swift_dm.h"

sw_node *dm_type_mangling(struct dm *d)
{
	sw_node *type = dm_pop_kind(d, SW_TYPE);
	bool bad;
	sw_node *labels = dm_pop_param_labels(d, type, &bad);
	if (bad)
		return NULL;
	sw_node *n = dm_new(d, SW_TYPE_MANGLING);
	if (labels)
		dm_add(d, n, labels);
	return dm_add(d, n, type);
}

/* Swift's demangler also marks each opaque return type ("some P") below
 * the function with its parent: a link the printer never follows, left
 * out here. */
static sw_node *entity(struct dm *d, enum sw_kind kind, sw_node *type, sw_node *labels)
{
	sw_node *name = dm_pop_if(d, sw_is_decl_name);
	sw_node *ctx = dm_pop_context(d);
	if (labels)
		return sw_with4(d->h, kind, ctx, name, labels, type);
	return sw_with3(d->h, kind, ctx, name, type);
}

sw_node *dm_plain_function(struct dm *d)
{
	sw_node *sig = dm_pop_kind(d, SW_DEPENDENT_GENERIC_SIGNATURE);
	sw_node *type = dm_pop_function_type(d, SW_FUNCTION_TYPE, false);
	bool bad;
	sw_node *labels = dm_pop_param_labels(d, type, &bad);
	if (bad)
		return NULL;
	if (sig)
		type = dm_type(d, sw_with2(d->h, SW_DEPENDENT_GENERIC_TYPE, sig, type));
	return entity(d, SW_FUNCTION, type, labels);
}

static sw_node *typed_entity(struct dm *d, enum sw_kind kind)
{
	sw_node *type = dm_pop_kind(d, SW_TYPE);
	bool bad;
	sw_node *labels = dm_pop_param_labels(d, type, &bad);
	return bad ? NULL : entity(d, kind, type, labels);
}

static const struct {
	char code, code2;
	enum sw_kind kind;
} accessors[] = {
	{'m', 0, SW_MATERIALIZE_FOR_SET}, {'s', 0, SW_SETTER}, {'g', 0, SW_GETTER},
	{'G', 0, SW_GLOBAL_GETTER}, {'w', 0, SW_WILL_SET}, {'W', 0, SW_DID_SET},
	{'r', 0, SW_READ_ACCESSOR}, {'y', 0, SW_READ2_ACCESSOR}, {'M', 0, SW_MODIFY_ACCESSOR},
	{'x', 0, SW_MODIFY2_ACCESSOR}, {'i', 0, SW_INIT_ACCESSOR},
	{'a', 'O', SW_OWNING_MUTABLE_ADDRESSOR}, {'a', 'o', SW_NATIVE_OWNING_MUTABLE_ADDRESSOR},
	{'a', 'P', SW_NATIVE_PINNING_MUTABLE_ADDRESSOR}, {'a', 'u', SW_UNSAFE_MUTABLE_ADDRESSOR},
	{'l', 'O', SW_OWNING_ADDRESSOR}, {'l', 'o', SW_NATIVE_OWNING_ADDRESSOR},
	{'l', 'p', SW_NATIVE_PINNING_ADDRESSOR}, {'l', 'u', SW_UNSAFE_ADDRESSOR},
};

/* The accessor of a variable or subscript; "p" is the storage itself. */
static sw_node *accessor(struct dm *d, sw_node *storage)
{
	char c = dm_next(d);
	if (c == 'p')
		return storage;
	char c2 = (c == 'a' || c == 'l') ? dm_next(d) : 0;
	for (size_t i = 0; c && i < sizeof accessors / sizeof *accessors; i++)
		if (accessors[i].code == c && accessors[i].code2 == c2)
			return dm_with(d, accessors[i].kind, storage);
	return NULL;
}

sw_node *dm_variable(struct dm *d)
{
	return accessor(d, typed_entity(d, SW_VARIABLE));
}

sw_node *dm_subscript(struct dm *d)
{
	sw_node *private_name = dm_pop_kind(d, SW_PRIVATE_DECL_NAME);
	sw_node *type = dm_pop_kind(d, SW_TYPE);
	bool bad;
	sw_node *labels = dm_pop_param_labels(d, type, &bad);
	if (bad)
		return NULL;
	sw_node *ctx = dm_pop_context(d);
	sw_node *s = dm_add(d, dm_new(d, SW_SUBSCRIPT), ctx);
	if (labels)
		dm_add(d, s, labels);
	s = dm_add(d, s, type);
	if (private_name)
		dm_add(d, s, private_name);
	return accessor(d, s);
}

/* ---- macros ---- */

static const struct {
	char code;
	enum sw_kind kind;
	bool attached, freestanding;
} macro_roles[] = {
	{'a', SW_ACCESSOR_ATTACHED_MACRO_EXPANSION, true, false},
	{'r', SW_MEMBER_ATTRIBUTE_ATTACHED_MACRO_EXPANSION, true, false},
	{'m', SW_MEMBER_ATTACHED_MACRO_EXPANSION, true, false},
	{'p', SW_PEER_ATTACHED_MACRO_EXPANSION, true, false},
	{'c', SW_CONFORMANCE_ATTACHED_MACRO_EXPANSION, true, false},
	{'e', SW_EXTENSION_ATTACHED_MACRO_EXPANSION, true, false},
	{'q', SW_PREAMBLE_ATTACHED_MACRO_EXPANSION, true, false},
	{'b', SW_BODY_ATTACHED_MACRO_EXPANSION, true, false},
	{'f', SW_FREESTANDING_MACRO_EXPANSION, false, true},
	{'u', SW_MACRO_EXPANSION_UNIQUE_NAME, false, false},
};

/* "fMX<line>_<column>_": where a macro was expanded, by file. */
static sw_node *macro_expansion_loc(struct dm *d)
{
	long line = dm_index(d), column = line < 0 ? -1 : dm_index(d);
	if (column < 0)
		return NULL;
	sw_node *l = sw_index(d->h, SW_INDEX, (uint64_t)line);
	sw_node *c = sw_index(d->h, SW_INDEX, (uint64_t)column);
	sw_node *buffer = dm_pop_kind(d, SW_IDENTIFIER);
	sw_node *module = dm_pop_kind(d, SW_IDENTIFIER);
	return sw_with4(d->h, SW_MACRO_EXPANSION_LOC, module, buffer, l, c);
}

static sw_node *macro_expansion(struct dm *d)
{
	char c = dm_next(d);
	if (c == 'X')
		return macro_expansion_loc(d);
	size_t i = 0;
	while (i < sizeof macro_roles / sizeof *macro_roles && macro_roles[i].code != c)
		i++;
	if (!c || i == sizeof macro_roles / sizeof *macro_roles)
		return NULL;
	sw_node *macro = dm_pop_kind(d, SW_IDENTIFIER);
	sw_node *private_name = macro_roles[i].freestanding ? dm_pop_kind(d, SW_PRIVATE_DECL_NAME) : NULL;
	sw_node *attached = macro_roles[i].attached ? dm_pop_if(d, sw_is_decl_name) : NULL;
	sw_node *ctx = dm_pop_if(d, sw_is_macro_expansion);
	if (!ctx)
		ctx = dm_pop_context(d);
	sw_node *discriminator = dm_index_node(d), *r;
	if (macro_roles[i].attached)
		r = sw_with4(d->h, macro_roles[i].kind, ctx, attached, macro, discriminator);
	else
		r = sw_with3(d->h, macro_roles[i].kind, ctx, macro, discriminator);
	if (r && private_name)
		r = dm_add(d, r, private_name);
	return r;
}

/* ---- "f" ---- */

enum entity_args { NONE, TYPE_AND_MAYBE_PRIVATE_NAME, TYPE_AND_INDEX, INDEX };

static const struct {
	char code;
	enum sw_kind kind;
	enum entity_args args;
} function_entities[] = {
	{'D', SW_DEALLOCATOR, NONE}, {'d', SW_DESTRUCTOR, NONE}, {'Z', SW_ISOLATED_DEALLOCATOR, NONE},
	{'E', SW_IVAR_DESTROYER, NONE}, {'e', SW_IVAR_INITIALIZER, NONE},
	{'i', SW_INITIALIZER, NONE}, {'C', SW_ALLOCATOR, TYPE_AND_MAYBE_PRIVATE_NAME},
	{'c', SW_CONSTRUCTOR, TYPE_AND_MAYBE_PRIVATE_NAME}, {'U', SW_EXPLICIT_CLOSURE, TYPE_AND_INDEX},
	{'u', SW_IMPLICIT_CLOSURE, TYPE_AND_INDEX}, {'A', SW_DEFAULT_ARGUMENT_INITIALIZER, INDEX},
	{'P', SW_PROPERTY_WRAPPER_BACKING_INITIALIZER, NONE},
	{'W', SW_PROPERTY_WRAPPER_INIT_FROM_PROJECTED_VALUE, NONE},
};

sw_node *dm_function_entity(struct dm *d)
{
	char c = dm_next(d);
	if (c == 'm')
		return typed_entity(d, SW_MACRO);
	if (c == 'M')
		return macro_expansion(d);
	if (c == 'p')
		return typed_entity(d, SW_GENERIC_TYPE_PARAM_DECL);
	size_t i = 0;
	while (i < sizeof function_entities / sizeof *function_entities &&
	       function_entities[i].code != c)
		i++;
	if (!c || i == sizeof function_entities / sizeof *function_entities)
		return NULL;
	enum entity_args args = function_entities[i].args;
	sw_node *name_or_index = NULL, *type = NULL, *labels = NULL;
	bool bad = false;
	if (args == TYPE_AND_MAYBE_PRIVATE_NAME) {
		name_or_index = dm_pop_kind(d, SW_PRIVATE_DECL_NAME);
		type = dm_pop_kind(d, SW_TYPE);
		labels = dm_pop_param_labels(d, type, &bad);
	} else if (args == TYPE_AND_INDEX) {
		name_or_index = dm_index_node(d);
		type = dm_pop_kind(d, SW_TYPE);
	} else if (args == INDEX) {
		name_or_index = dm_index_node(d);
	}
	if (bad)
		return NULL;
	sw_node *e = dm_with(d, function_entities[i].kind, dm_pop_context(d));
	switch (args) {
	case INDEX:
		return dm_add(d, e, name_or_index);
	case TYPE_AND_MAYBE_PRIVATE_NAME:
		if (labels)
			dm_add(d, e, labels);
		e = dm_add(d, e, type);
		if (name_or_index)
			dm_add(d, e, name_or_index);
		return e;
	case TYPE_AND_INDEX:
		return dm_add(d, dm_add(d, e, name_or_index), type);
	default:
		return e;
	}
}

/* ---- metadata ---- */

static const struct {
	char code;
	enum sw_kind kind;
	char pops;   /* 'T' a type, 'C' a conformance, 'P' a protocol, 'N' a node, 'E' an entity */
} metadata[] = {
	{'a', SW_TYPE_METADATA_ACCESS_FUNCTION, 'T'},
	{'A', SW_REFLECTION_METADATA_ASSOC_TYPE_DESCRIPTOR, 'C'},
	{'b', SW_CANONICAL_SPECIALIZED_GENERIC_TYPE_METADATA_ACCESS_FUNCTION, 'T'},
	{'B', SW_REFLECTION_METADATA_BUILTIN_DESCRIPTOR, 'T'},
	{'c', SW_PROTOCOL_CONFORMANCE_DESCRIPTOR, 'C'},
	{'D', SW_TYPE_METADATA_DEMANGLING_CACHE, 'T'}, {'f', SW_FULL_TYPE_METADATA, 'T'},
	{'F', SW_REFLECTION_METADATA_FIELD_DESCRIPTOR, 'T'},
	{'g', SW_OPAQUE_TYPE_DESCRIPTOR_ACCESSOR, 'N'},
	{'h', SW_OPAQUE_TYPE_DESCRIPTOR_ACCESSOR_IMPL, 'N'},
	{'i', SW_TYPE_METADATA_INSTANTIATION_FUNCTION, 'T'},
	{'I', SW_TYPE_METADATA_INSTANTIATION_CACHE, 'T'},
	{'j', SW_OPAQUE_TYPE_DESCRIPTOR_ACCESSOR_KEY, 'N'},
	{'J', SW_NONCANONICAL_SPECIALIZED_GENERIC_TYPE_METADATA_CACHE, 'N'},
	{'k', SW_OPAQUE_TYPE_DESCRIPTOR_ACCESSOR_VAR, 'N'},
	{'K', SW_METADATA_INSTANTIATION_CACHE, 'N'},
	{'l', SW_TYPE_METADATA_SINGLETON_INITIALIZATION_CACHE, 'T'},
	{'L', SW_TYPE_METADATA_LAZY_CACHE, 'T'}, {'m', SW_METACLASS, 'T'},
	{'M', SW_CANONICAL_SPECIALIZED_GENERIC_METACLASS, 'T'},
	{'n', SW_NOMINAL_TYPE_DESCRIPTOR, 'T'},
	{'N', SW_NONCANONICAL_SPECIALIZED_GENERIC_TYPE_METADATA, 'T'},
	{'o', SW_CLASS_METADATA_BASE_OFFSET, 'T'}, {'p', SW_PROTOCOL_DESCRIPTOR, 'P'},
	{'P', SW_GENERIC_TYPE_METADATA_PATTERN, 'T'}, {'Q', SW_OPAQUE_TYPE_DESCRIPTOR, 'N'},
	{'r', SW_TYPE_METADATA_COMPLETION_FUNCTION, 'T'}, {'s', SW_OBJC_RESILIENT_CLASS_STUB, 'T'},
	{'S', SW_PROTOCOL_SELF_CONFORMANCE_DESCRIPTOR, 'P'},
	{'t', SW_FULL_OBJC_RESILIENT_CLASS_STUB, 'T'}, {'u', SW_METHOD_LOOKUP_FUNCTION, 'T'},
	{'U', SW_OBJC_METADATA_UPDATE_FUNCTION, 'T'}, {'V', SW_PROPERTY_DESCRIPTOR, 'E'},
	{'z', SW_CANONICAL_PRESPECIALIZED_GENERIC_TYPE_CACHING_ONCE_TOKEN, 'T'},
};

/* "MX": descriptors of contexts without a type of their own. */
static sw_node *private_context_descriptor(struct dm *d)
{
	sw_node *a, *b;
	switch (dm_next(d)) {
	case 'E': return dm_with(d, SW_EXTENSION_DESCRIPTOR, dm_pop_context(d));
	case 'M': return dm_with(d, SW_MODULE_DESCRIPTOR, dm_pop_module(d));
	case 'Y':
		b = dm_pop(d);  /* discriminator */
		a = dm_pop_context(d);
		return sw_with2(d->h, SW_ANONYMOUS_DESCRIPTOR, a, b);
	case 'X': return dm_with(d, SW_ANONYMOUS_DESCRIPTOR, dm_pop_context(d));
	case 'A':
		b = dm_pop_assoc_type_path(d);
		a = b ? dm_pop_kind(d, SW_TYPE) : NULL;
		return sw_with2(d->h, SW_ASSOCIATED_TYPE_GENERIC_PARAM_REF, a, b);
	default: return NULL;
	}
}

sw_node *dm_metatype(struct dm *d)
{
	char c = dm_next(d);
	if (c == 'X')
		return private_context_descriptor(d);
	if (c == 'C') {
		sw_node *t = dm_pop_kind(d, SW_TYPE);
		if (!t || !sw_kid(t, 0) || !sw_is_any_generic(t->kids[0]->kind))
			return NULL;
		return dm_with(d, SW_REFLECTION_METADATA_SUPERCLASS_DESCRIPTOR, t->kids[0]);
	}
	for (size_t i = 0; c && i < sizeof metadata / sizeof *metadata; i++) {
		if (metadata[i].code != c)
			continue;
		sw_node *kid;
		switch (metadata[i].pops) {
		case 'T': kid = dm_pop_kind(d, SW_TYPE); break;
		case 'C': kid = dm_pop_protocol_conformance(d); break;
		case 'P': kid = dm_pop_protocol(d); break;
		case 'E': kid = dm_pop_if(d, sw_is_entity); break;
		default: kid = dm_pop(d); break;
		}
		return dm_with(d, metadata[i].kind, kid);
	}
	return NULL;
}

/* ---- value witnesses ---- */

/* The codes, in the order of the names the printer uses
 * (demangle_swift_print.c's value_witness_names). */
static const char value_witness_codes[][3] = {
	"al", "ca", "ta", "de", "xx", "XX", "Xx", "CP", "Cp", "cp", "Tk", "tk", "pr", "TK", "Cc",
	"Tt", "tT", "xs", "xg", "ug", "up", "ui", "et", "st",
};

sw_node *dm_value_witness(struct dm *d)
{
	char code[2];
	code[0] = dm_next(d);
	code[1] = dm_next(d);
	for (size_t i = 0; i < sizeof value_witness_codes / sizeof *value_witness_codes; i++) {
		if (memcmp(value_witness_codes[i], code, 2) != 0)
			continue;
		sw_node *vw = dm_add(d, dm_new(d, SW_VALUE_WITNESS), sw_index(d->h, SW_INDEX, i));
		return dm_add(d, vw, dm_pop_kind(d, SW_TYPE));
	}
	return NULL;
}

/* ---- witnesses ("W") ---- */

static const struct {
	char code;
	enum sw_kind kind;
} outlined_ops[] = {
	{'B', SW_OUTLINED_INITIALIZE_WITH_TAKE_NO_VALUE_WITNESS},
	{'C', SW_OUTLINED_INITIALIZE_WITH_COPY_NO_VALUE_WITNESS},
	{'D', SW_OUTLINED_ASSIGN_WITH_TAKE_NO_VALUE_WITNESS},
	{'F', SW_OUTLINED_ASSIGN_WITH_COPY_NO_VALUE_WITNESS},
	{'H', SW_OUTLINED_DESTROY_NO_VALUE_WITNESS}, {'y', SW_OUTLINED_COPY},
	{'e', SW_OUTLINED_CONSUME}, {'r', SW_OUTLINED_RETAIN}, {'s', SW_OUTLINED_RELEASE},
	{'b', SW_OUTLINED_INITIALIZE_WITH_TAKE}, {'c', SW_OUTLINED_INITIALIZE_WITH_COPY},
	{'d', SW_OUTLINED_ASSIGN_WITH_TAKE}, {'f', SW_OUTLINED_ASSIGN_WITH_COPY},
	{'h', SW_OUTLINED_DESTROY}, {'g', SW_OUTLINED_ENUM_GET_TAG},
	{'i', SW_OUTLINED_ENUM_TAG_STORE}, {'j', SW_OUTLINED_ENUM_PROJECT_DATA_FOR_LOAD},
};

/* "WO": outlined value operations of a type (in a generic signature). */
static sw_node *outlined_op(struct dm *d)
{
	char c = dm_next(d);
	size_t i = 0;
	while (i < sizeof outlined_ops / sizeof *outlined_ops && outlined_ops[i].code != c)
		i++;
	if (!c || i == sizeof outlined_ops / sizeof *outlined_ops)
		return NULL;
	sw_node *enum_case = NULL;
	if ((c == 'i' || c == 'j') && !(enum_case = dm_index_node(d)))
		return NULL;
	sw_node *sig = dm_pop_kind(d, SW_DEPENDENT_GENERIC_SIGNATURE);
	sw_node *op = dm_with(d, outlined_ops[i].kind, dm_pop_kind(d, SW_TYPE));
	if (sig)
		op = dm_add(d, op, sig);
	if (enum_case)
		op = dm_add(d, op, enum_case);
	return op;
}

/* "WZ"/"Wz": the one-time initialization of global variables. */
static sw_node *global_once(struct dm *d, char c)
{
	sw_node *list = dm_new(d, SW_GLOBAL_VARIABLE_ONCE_DECL_LIST);
	while (list && dm_pop_kind(d, SW_FIRST_ELEMENT_MARKER))
		list = dm_add(d, list, dm_pop_if(d, sw_is_decl_name));
	if (!list)
		return NULL;
	sw_reverse(list, 0);
	sw_node *ctx = dm_pop_context(d);
	return sw_with2(d->h, c == 'Z' ? SW_GLOBAL_VARIABLE_ONCE_FUNCTION : SW_GLOBAL_VARIABLE_ONCE_TOKEN,
			ctx, list);
}

static const struct {
	char code;
	enum sw_kind kind;
} conformance_witnesses[] = {
	{'P', SW_PROTOCOL_WITNESS_TABLE}, {'p', SW_PROTOCOL_WITNESS_TABLE_PATTERN},
	{'G', SW_GENERIC_PROTOCOL_WITNESS_TABLE},
	{'I', SW_GENERIC_PROTOCOL_WITNESS_TABLE_INSTANTIATION_FUNCTION},
	{'r', SW_RESILIENT_PROTOCOL_WITNESS_TABLE}, {'a', SW_PROTOCOL_WITNESS_TABLE_ACCESSOR},
};

sw_node *dm_witness_operator(struct dm *d)
{
	char c = dm_next(d);
	sw_node *a, *b, *e;
	for (size_t i = 0; c && i < sizeof conformance_witnesses / sizeof *conformance_witnesses; i++)
		if (conformance_witnesses[i].code == c)
			return dm_with(d, conformance_witnesses[i].kind, dm_pop_protocol_conformance(d));
	switch (c) {
	case 'C': return dm_with(d, SW_ENUM_CASE, dm_pop_if(d, sw_is_entity));
	case 'V': return dm_with(d, SW_VALUE_WITNESS_TABLE, dm_pop_kind(d, SW_TYPE));
	case 'v':
		c = dm_next(d);
		if (c != 'd' && c != 'i')
			return NULL;
		a = sw_index(d->h, SW_DIRECTNESS, c == 'd' ? 0 : 1);
		return sw_with2(d->h, SW_FIELD_OFFSET, a, dm_pop_if(d, sw_is_entity));
	case 'S': return dm_with(d, SW_PROTOCOL_SELF_CONFORMANCE_WITNESS_TABLE, dm_pop_protocol(d));
	case 'l': case 'L':
		b = dm_pop_protocol_conformance(d);
		a = dm_pop_kind(d, SW_TYPE);
		return sw_with2(d->h, c == 'l' ? SW_LAZY_PROTOCOL_WITNESS_TABLE_ACCESSOR
					  : SW_LAZY_PROTOCOL_WITNESS_TABLE_CACHE_VARIABLE, a, b);
	case 't':
		b = dm_pop_if(d, sw_is_decl_name);
		a = dm_pop_protocol_conformance(d);
		return sw_with2(d->h, SW_ASSOCIATED_TYPE_METADATA_ACCESSOR, a, b);
	case 'T':
		e = dm_pop_kind(d, SW_TYPE);
		b = dm_pop_self_or_assoc_type_path(d);
		a = dm_pop_protocol_conformance(d);
		return sw_with3(d->h, SW_ASSOCIATED_TYPE_WITNESS_TABLE_ACCESSOR, a, b, e);
	case 'b':
		b = dm_pop_kind(d, SW_TYPE);
		a = dm_pop_protocol_conformance(d);
		return sw_with2(d->h, SW_BASE_WITNESS_TABLE_ACCESSOR, a, b);
	case 'O': return outlined_op(d);
	case 'Z': case 'z': return global_once(d, c);
	case 'J': return dm_differentiability_witness(d);
	default: return NULL;
	}
}
