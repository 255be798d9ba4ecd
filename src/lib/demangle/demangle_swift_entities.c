/* Swift's entities and what the compiler makes of them: functions'
 * kin (initializers, deinitializers, closures, default arguments),
 * variables and subscripts with their accessors, metadata, witnesses,
 * thunks and specializations; the common subset only. */
#include <string.h>

#include "demangle_swift_ops.h"

sw_node *sw_builtin_type(struct sw *p)
{
	const char *name = NULL;
	char c = sw_next(p);
	switch (c) {
	case 'b': name = "Builtin.BridgeObject"; break;
	case 'B': name = "Builtin.UnsafeValueBuffer"; break;
	case 'o': name = "Builtin.NativeObject"; break;
	case 'O': name = "Builtin.UnknownObject"; break;
	case 'p': name = "Builtin.RawPointer"; break;
	case 'w': name = "Builtin.Word"; break;
	case 'i':
	case 'f': {
		long size = sw_index_value(p) - 1;
		if (size <= 0 || size > 4096)
			return NULL;
		name = hg_arena_printf(p->arena, "Builtin.%s%ld", c == 'i' ? "Int" : "FPIEEE", size);
		if (!name) {
			p->oom = true;
			return NULL;
		}
		break;
	}
	default:
		return NULL;
	}
	return sw_type(p, sw_cstr(p, SW_BUILTIN_TYPE_NAME, name));
}

sw_node *sw_local_identifier(struct sw *p)
{
	if (sw_next_if(p, 'L')) {
		sw_node *discriminator = sw_pop_kind(p, SW_IDENTIFIER);
		sw_node *name = sw_pop_if(p, sw_is_decl_name);
		return sw_with2(p, SW_PRIVATE_DECL_NAME, discriminator, name);
	}
	if (sw_next_if(p, 'l'))
		return sw_with(p, SW_PRIVATE_DECL_NAME, sw_pop_kind(p, SW_IDENTIFIER));
	char c = sw_peek(p);
	if ((c >= 'a' && c <= 'j') || (c >= 'A' && c <= 'J'))
		return NULL; /* related entities of imported declarations */
	sw_node *discriminator = sw_index_node(p);
	sw_node *name = sw_pop_if(p, sw_is_decl_name);
	return sw_with2(p, SW_LOCAL_DECL_NAME, discriminator, name);
}

static sw_node *pop_protocol_conformance(struct sw *p)
{
	sw_node *sig = sw_pop_kind(p, SW_DEPENDENT_GENERIC_SIGNATURE);
	sw_node *module = sw_pop_module(p);
	sw_node *proto = sw_pop_protocol(p);
	sw_node *type = sw_pop_kind(p, SW_TYPE);
	if (!type)
		return NULL; /* property behaviours: not supported */
	if (sig)
		type = sw_type(p, sw_with2(p, SW_DEPENDENT_GENERIC_TYPE, sig, type));
	return sw_with3(p, SW_PROTOCOL_CONFORMANCE, type, proto, module);
}

sw_node *sw_metatype(struct sw *p)
{
	enum sw_kind kind;
	switch (sw_next(p)) {
	case 'a': kind = SW_TYPE_METADATA_ACCESS_FUNCTION; break;
	case 'n': kind = SW_NOMINAL_TYPE_DESCRIPTOR; break;
	case 'f': kind = SW_FULL_TYPE_METADATA; break;
	case 'm': kind = SW_METACLASS; break;
	case 'D': kind = SW_TYPE_METADATA_DEMANGLING_CACHE; break;
	case 'c':
		return sw_with(p, SW_PROTOCOL_CONFORMANCE_DESCRIPTOR, pop_protocol_conformance(p));
	default:
		return NULL;
	}
	return sw_with(p, kind, sw_pop_kind(p, SW_TYPE));
}

/* ---- specializations ---- */

static sw_node *spec_attributes(struct sw *p, enum sw_kind kind)
{
	bool serialized = sw_next_if(p, 'q');
	char c = sw_next(p);
	if (c < '0' || c > '9')
		return NULL;
	sw_node *spec = sw_new(p, kind);
	if (serialized)
		spec = sw_add(p, spec, sw_new(p, SW_IS_SERIALIZED));
	return sw_add(p, spec, sw_index(p, SW_SPECIALIZATION_PASS_ID, (uint64_t)(c - '0')));
}

static sw_node *generic_specialization(struct sw *p, enum sw_kind kind)
{
	sw_node *spec = spec_attributes(p, kind);
	sw_node *types = spec ? sw_pop_type_list(p) : NULL;
	if (!types)
		return NULL;
	for (unsigned i = 0; i < types->n && spec; i++)
		spec = sw_add(p, spec, sw_with(p, SW_GENERIC_SPECIALIZATION_PARAM, types->kids[i]));
	return spec;
}

/* Function signature specializations whose parameters changed only their
 * convention: the kinds as bits, printed "Dead and Owned To Guaranteed". */
enum { FS_DEAD = 1 << 6, FS_OWNED_TO_GUARANTEED = 1 << 7, FS_SROA = 1 << 8,
       FS_GUARANTEED_TO_OWNED = 1 << 9, FS_BOX_TO_VALUE = 1, FS_BOX_TO_STACK = 2 };

static sw_node *func_spec_param(struct sw *p, enum sw_kind kind)
{
	sw_node *param = sw_new(p, kind);
	unsigned v;
	switch (sw_next(p)) {
	case 'n':
		return param;
	case 'd':
		v = FS_DEAD;
		if (sw_next_if(p, 'G'))
			v |= FS_OWNED_TO_GUARANTEED;
		if (sw_next_if(p, 'O'))
			v |= FS_GUARANTEED_TO_OWNED;
		if (sw_next_if(p, 'X'))
			v |= FS_SROA;
		break;
	case 'g':
		v = FS_OWNED_TO_GUARANTEED | (sw_next_if(p, 'X') ? FS_SROA : 0);
		break;
	case 'o':
		v = FS_GUARANTEED_TO_OWNED | (sw_next_if(p, 'X') ? FS_SROA : 0);
		break;
	case 'x': v = FS_SROA; break;
	case 'i': v = FS_BOX_TO_VALUE; break;
	case 's': v = FS_BOX_TO_STACK; break;
	default:
		return NULL; /* constant and closure propagation, existentials, ... */
	}
	return sw_add(p, param, sw_index(p, SW_FUNCTION_SIGNATURE_SPECIALIZATION_PARAM_KIND, v));
}

static sw_node *function_specialization(struct sw *p)
{
	sw_node *spec = spec_attributes(p, SW_FUNCTION_SIGNATURE_SPECIALIZATION);
	while (spec && !sw_next_if(p, '_'))
		spec = sw_add(p, spec, func_spec_param(p, SW_FUNCTION_SIGNATURE_SPECIALIZATION_PARAM));
	if (spec && !sw_next_if(p, 'n'))
		spec = sw_add(p, spec, func_spec_param(p, SW_FUNCTION_SIGNATURE_SPECIALIZATION_RETURN));
	return spec;
}

sw_node *sw_thunk_or_specialization(struct sw *p)
{
	char c = sw_next(p);
	switch (c) {
	case 'c': return sw_with(p, SW_CURRY_THUNK, sw_pop_if(p, sw_is_entity));
	case 'j': return sw_with(p, SW_DISPATCH_THUNK, sw_pop_if(p, sw_is_entity));
	case 'q': return sw_with(p, SW_METHOD_DESCRIPTOR, sw_pop_if(p, sw_is_entity));
	case 'o': return sw_new(p, SW_OBJC_ATTRIBUTE);
	case 'O': return sw_new(p, SW_NON_OBJC_ATTRIBUTE);
	case 'D': return sw_new(p, SW_DYNAMIC_ATTRIBUTE);
	case 'a': return sw_new(p, SW_PARTIAL_APPLY_OBJC_FORWARDER);
	case 'A': return sw_new(p, SW_PARTIAL_APPLY_FORWARDER);
	case 'm': return sw_new(p, SW_MERGED_FUNCTION);
	case 'u': return sw_new(p, SW_ASYNC_FUNCTION_POINTER);
	case 'Q':
	case 'Y':
		return sw_with(p, c == 'Q' ? SW_ASYNC_AWAIT_RESUME_PARTIAL_FUNCTION
					   : SW_ASYNC_SUSPEND_RESUME_PARTIAL_FUNCTION,
			       sw_index_node(p));
	case 'W': {
		sw_node *entity = sw_pop_if(p, sw_is_entity);
		sw_node *conf = pop_protocol_conformance(p);
		return sw_with2(p, SW_PROTOCOL_WITNESS, conf, entity);
	}
	case 'g': return generic_specialization(p, SW_GENERIC_SPECIALIZATION);
	case 'G': return generic_specialization(p, SW_GENERIC_SPECIALIZATION_NOT_RE_ABSTRACTED);
	case 'B': return generic_specialization(p, SW_GENERIC_SPECIALIZATION_IN_RESILIENCE_DOMAIN);
	case 'i': return generic_specialization(p, SW_INLINED_GENERIC_FUNCTION);
	case 'f': return function_specialization(p);
	case 'R':
	case 'r': {
		/* "<from> <to> [signature] TR": printed from, then to. */
		sw_node *thunk = sw_new(p, c == 'R' ? SW_REABSTRACTION_THUNK_HELPER
						    : SW_REABSTRACTION_THUNK);
		sw_node *sig = sw_pop_kind(p, SW_DEPENDENT_GENERIC_SIGNATURE);
		sw_node *to = sw_pop_kind(p, SW_TYPE), *from = sw_pop_kind(p, SW_TYPE);
		if (sig)
			thunk = sw_add(p, thunk, sig);
		return sw_add(p, sw_add(p, thunk, from), to);
	}
	default: return NULL; /* thunks with self, key paths, autodiff, ... */
	}
}

sw_node *sw_witness(struct sw *p)
{
	switch (sw_next(p)) {
	case 'P':
		return sw_with(p, SW_PROTOCOL_WITNESS_TABLE, pop_protocol_conformance(p));
	case 'l': {
		sw_node *conf = pop_protocol_conformance(p);
		sw_node *type = sw_pop_kind(p, SW_TYPE);
		return sw_with2(p, SW_LAZY_PROTOCOL_WITNESS_TABLE_ACCESSOR, type, conf);
	}
	case 'O': {
		enum sw_kind kind;
		switch (sw_next(p)) {
		case 'y': kind = SW_OUTLINED_COPY; break;
		case 'e': kind = SW_OUTLINED_CONSUME; break;
		case 'r': kind = SW_OUTLINED_RETAIN; break;
		case 's': kind = SW_OUTLINED_RELEASE; break;
		case 'b': kind = SW_OUTLINED_INITIALIZE_WITH_TAKE; break;
		case 'c': kind = SW_OUTLINED_INITIALIZE_WITH_COPY; break;
		case 'd': kind = SW_OUTLINED_ASSIGN_WITH_TAKE; break;
		case 'f': kind = SW_OUTLINED_ASSIGN_WITH_COPY; break;
		case 'h': kind = SW_OUTLINED_DESTROY; break;
		default: return NULL;
		}
		if (sw_pop_kind(p, SW_DEPENDENT_GENERIC_SIGNATURE))
			return NULL; /* the generic form: not supported */
		return sw_with(p, kind, sw_pop_kind(p, SW_TYPE));
	}
	default:
		return NULL;
	}
}

sw_node *sw_special_type(struct sw *p)
{
	enum sw_kind kind;
	switch (sw_next(p)) {
	case 'E': return sw_pop_function_type(p, SW_NO_ESCAPE_FUNCTION_TYPE);
	case 'B': return sw_pop_function_type(p, SW_OBJC_BLOCK);
	case 'L': return sw_pop_function_type(p, SW_ESCAPING_OBJC_BLOCK);
	case 'C': return sw_pop_function_type(p, SW_C_FUNCTION_POINTER);
	case 'D': kind = SW_DYNAMIC_SELF; break;
	case 'w': kind = SW_WEAK; break;
	case 'o': kind = SW_UNOWNED; break;
	case 'u': kind = SW_UNMANAGED; break;
	case 'p': kind = SW_EXISTENTIAL_METATYPE; break; /* "Any.Type" */
	default: return NULL;
	}
	return sw_type(p, sw_with(p, kind, sw_pop_kind(p, SW_TYPE)));
}

sw_node *sw_protocol_list(struct sw *p)
{
	sw_node *types = sw_new(p, SW_TYPE_LIST);
	sw_node *list = sw_with(p, SW_PROTOCOL_LIST, types);
	if (list && !sw_pop_kind(p, SW_EMPTY_LIST)) {
		bool first;
		do {
			first = sw_pop_kind(p, SW_FIRST_ELEMENT_MARKER) != NULL;
			if (!sw_add(p, types, sw_pop_protocol(p)))
				return NULL;
		} while (!first);
		sw_reverse(types, 0);
	}
	return list;
}

/* ---- entities ---- */

static sw_node *accessor(struct sw *p, sw_node *storage)
{
	enum sw_kind kind;
	switch (sw_next(p)) {
	case 'm': kind = SW_MATERIALIZE_FOR_SET; break;
	case 's': kind = SW_SETTER; break;
	case 'g': kind = SW_GETTER; break;
	case 'G': kind = SW_GLOBAL_GETTER; break;
	case 'w': kind = SW_WILL_SET; break;
	case 'W': kind = SW_DID_SET; break;
	case 'r': kind = SW_READ_ACCESSOR; break;
	case 'M': kind = SW_MODIFY_ACCESSOR; break;
	case 'a':
		if (!sw_next_if(p, 'u'))
			return NULL; /* owning and pinning addressors: not supported */
		kind = SW_UNSAFE_MUTABLE_ADDRESSOR;
		break;
	case 'l':
		if (!sw_next_if(p, 'u'))
			return NULL;
		kind = SW_UNSAFE_ADDRESSOR;
		break;
	case 'p': return storage; /* the variable itself */
	default: return NULL;
	}
	return sw_with(p, kind, storage);
}

sw_node *sw_variable(struct sw *p)
{
	sw_node *type = sw_pop_kind(p, SW_TYPE);
	bool bad = false;
	sw_node *labels = sw_pop_param_labels(p, type, &bad);
	if (bad)
		return NULL;
	sw_node *name = sw_pop_if(p, sw_is_decl_name);
	sw_node *ctx = sw_pop_context(p);
	sw_node *v = sw_with2(p, SW_VARIABLE, ctx, name);
	if (labels)
		v = sw_add(p, v, labels);
	v = sw_add(p, v, type);
	return v ? accessor(p, v) : NULL;
}

sw_node *sw_subscript(struct sw *p)
{
	sw_node *private_name = sw_pop_kind(p, SW_PRIVATE_DECL_NAME);
	sw_node *type = sw_pop_kind(p, SW_TYPE);
	bool bad = false;
	sw_node *labels = sw_pop_param_labels(p, type, &bad);
	sw_node *ctx = sw_pop_context(p);
	if (!type || bad)
		return NULL;
	sw_node *s = sw_with(p, SW_SUBSCRIPT, ctx);
	if (labels)
		s = sw_add(p, s, labels);
	s = sw_add(p, s, type);
	if (private_name)
		s = sw_add(p, s, private_name);
	return s ? accessor(p, s) : NULL;
}

sw_node *sw_function_entity(struct sw *p)
{
	enum { NONE, TYPE_AND_NAME, TYPE_AND_INDEX, INDEX } args;
	enum sw_kind kind;
	switch (sw_next(p)) {
	case 'D': args = NONE; kind = SW_DEALLOCATOR; break;
	case 'd': args = NONE; kind = SW_DESTRUCTOR; break;
	case 'E': args = NONE; kind = SW_IVAR_DESTROYER; break;
	case 'e': args = NONE; kind = SW_IVAR_INITIALIZER; break;
	case 'i': args = NONE; kind = SW_INITIALIZER; break;
	case 'C': args = TYPE_AND_NAME; kind = SW_ALLOCATOR; break;
	case 'c': args = TYPE_AND_NAME; kind = SW_CONSTRUCTOR; break;
	case 'U': args = TYPE_AND_INDEX; kind = SW_EXPLICIT_CLOSURE; break;
	case 'u': args = TYPE_AND_INDEX; kind = SW_IMPLICIT_CLOSURE; break;
	case 'A': args = INDEX; kind = SW_DEFAULT_ARGUMENT_INITIALIZER; break;
	default: return NULL; /* property wrappers, generic parameter declarations */
	}
	sw_node *name_or_index = NULL, *type = NULL, *labels = NULL;
	bool bad = false;
	if (args == TYPE_AND_NAME) {
		name_or_index = sw_pop_kind(p, SW_PRIVATE_DECL_NAME);
		type = sw_pop_kind(p, SW_TYPE);
		labels = sw_pop_param_labels(p, type, &bad);
	} else if (args == TYPE_AND_INDEX) {
		name_or_index = sw_index_node(p);
		type = sw_pop_kind(p, SW_TYPE);
	} else if (args == INDEX) {
		name_or_index = sw_index_node(p);
	}
	if (bad)
		return NULL;
	sw_node *e = sw_with(p, kind, sw_pop_context(p));
	switch (args) {
	case NONE:
		break;
	case INDEX:
		e = sw_add(p, e, name_or_index);
		break;
	case TYPE_AND_NAME:
		if (labels)
			e = sw_add(p, e, labels);
		e = sw_add(p, e, type);
		if (name_or_index)
			e = sw_add(p, e, name_or_index);
		break;
	case TYPE_AND_INDEX:
		e = sw_add(p, sw_add(p, e, name_or_index), type);
		break;
	}
	return e;
}
