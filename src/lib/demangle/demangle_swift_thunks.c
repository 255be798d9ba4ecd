/* Thunks and specializations of a Swift 4.2+ mangling ("T..."): function
 * attributes that wrap the entity below them (partial apply forwarders,
 * @objc thunks, generic and function signature specializations, dispatch
 * and protocol witness thunks, key path helpers), and witnesses and
 * outlined value operations ("W..."). */
#include <string.h>

#include "demangle_swift_dm.h"

/* ---- specializations ---- */

/* "q" serialized, "a" async removed, then the pass id (a digit). */
static sw_node *spec_attributes(struct dm *d, enum sw_kind kind)
{
	bool serialized = dm_next_if(d, 'q');
	bool async_removed = dm_next_if(d, 'a');
	char c = dm_next(d);
	if (!dm_is_digit(c))
		return NULL;
	sw_node *spec = dm_new(d, kind);
	if (serialized)
		spec = dm_add(d, spec, dm_new(d, SW_IS_SERIALIZED));
	if (async_removed)
		spec = dm_add(d, spec, dm_new(d, SW_ASYNC_REMOVED));
	return dm_add(d, spec, sw_index(d->h, SW_SPECIALIZATION_PASS_ID, (uint64_t)(c - '0')));
}

static sw_node *generic_specialization(struct dm *d, enum sw_kind kind, sw_node *dropped)
{
	sw_node *spec = spec_attributes(d, kind);
	for (unsigned i = 0; spec && dropped && i < dropped->n; i++)
		spec = dm_add(d, spec, dropped->kids[i]);
	sw_node *types = spec ? dm_pop_type_list(d) : NULL;
	if (!types)
		return NULL;
	for (unsigned i = 0; spec && i < types->n; i++)
		spec = dm_add(d, spec, dm_with(d, SW_GENERIC_SPECIALIZATION_PARAM, types->kids[i]));
	return spec;
}

/* "Tt<n>...": a specialization whose arguments n were dropped. */
static sw_node *specialization_dropping(struct dm *d)
{
	dm_back(d);
	sw_node *dropped = dm_new(d, SW_GENERIC_SPECIALIZATION);
	while (dropped && dm_next_if(d, 't')) {
		long n = dm_natural(d);
		dm_add(d, dropped, sw_index(d->h, SW_DROPPED_ARGUMENT, n < 0 ? 0 : (uint64_t)n + 1));
	}
	switch (dm_next(d)) {
	case 'g': return generic_specialization(d, SW_GENERIC_SPECIALIZATION, dropped);
	case 'G': return generic_specialization(d, SW_GENERIC_SPECIALIZATION_NOT_RE_ABSTRACTED, dropped);
	case 'B':
		return generic_specialization(d, SW_GENERIC_SPECIALIZATION_IN_RESILIENCE_DOMAIN, dropped);
	default: return NULL;
	}
}

static sw_node *param_kind(struct dm *d, sw_node *param, uint64_t kind)
{
	return dm_add(d, param, sw_index(d->h, SW_FUNCTION_SIGNATURE_SPECIALIZATION_PARAM_KIND, kind));
}

static sw_node *param_payload(struct dm *d, sw_node *param, const char *s, size_t len)
{
	return dm_add(d, param, sw_text(d->h, SW_FUNCTION_SIGNATURE_SPECIALIZATION_PARAM_PAYLOAD, s, len));
}

/* "pi<digits>", "pd<digits>": the digits are the payload. */
static sw_node *param_number(struct dm *d, sw_node *param, uint64_t kind)
{
	param = param_kind(d, param, kind);
	size_t start = d->pos;
	while (dm_is_digit(dm_peek(d)))
		d->pos++;
	if (d->pos == start)
		return NULL;
	return param_payload(d, param, d->s + start, d->pos - start);
}

static sw_node *constant_prop_param(struct dm *d, sw_node *param)
{
	switch (dm_next(d)) {
	case 'f': return param_kind(d, param, FS_CONSTANT_PROP_FUNCTION);
	case 'g': return param_kind(d, param, FS_CONSTANT_PROP_GLOBAL);
	case 'i': return param_number(d, param, FS_CONSTANT_PROP_INTEGER);
	case 'd': return param_number(d, param, FS_CONSTANT_PROP_FLOAT);
	case 'k': return param_kind(d, param, FS_CONSTANT_PROP_KEY_PATH);
	case 's': {
		const char *encoding;
		switch (dm_next(d)) {
		case 'b': encoding = "u8"; break;
		case 'w': encoding = "u16"; break;
		case 'c': encoding = "objc"; break;
		default: return NULL;
		}
		param = param_kind(d, param, FS_CONSTANT_PROP_STRING);
		return param_payload(d, param, encoding, strlen(encoding));
	}
	default:
		return NULL;
	}
}

/* Option bits: first the one named by the letter, then the optional
 * letters that may follow it, in their order. */
static sw_node *option_param(struct dm *d, sw_node *param, char c)
{
	static const struct { char code; uint64_t bit; } follow[] = {
		{'D', FS_DEAD}, {'G', FS_OWNED_TO_GUARANTEED}, {'O', FS_GUARANTEED_TO_OWNED},
		{'X', FS_SROA},
	};
	uint64_t v;
	size_t from;
	switch (c) {
	case 'e': v = FS_EXISTENTIAL_TO_GENERIC; from = 0; break;
	case 'd': v = FS_DEAD; from = 1; break;
	case 'g': v = FS_OWNED_TO_GUARANTEED; from = 3; break;
	case 'o': v = FS_GUARANTEED_TO_OWNED; from = 3; break;
	default: return NULL;
	}
	for (size_t i = from; i < sizeof follow / sizeof *follow; i++)
		if (dm_next_if(d, follow[i].code))
			v |= follow[i].bit;
	return param_kind(d, param, v);
}

static sw_node *spec_param(struct dm *d, enum sw_kind kind)
{
	sw_node *param = dm_new(d, kind);
	char c = dm_next(d);
	switch (c) {
	case 'n': return param;
	case 'c': return param_kind(d, param, FS_CLOSURE_PROP);
	case 'p': return constant_prop_param(d, param);
	case 'x': return param_kind(d, param, FS_SROA);
	case 'i': return param_kind(d, param, FS_BOX_TO_VALUE);
	case 's': return param_kind(d, param, FS_BOX_TO_STACK);
	case 'r': return param_kind(d, param, FS_IN_OUT_TO_OUT);
	default: return option_param(d, param, c);
	}
}

/* The payloads (a name, and for closures and key paths types) of the
 * propagated constants were mangled before the specialization: they are
 * popped now, the last parameter's first. */
static bool spec_payloads(struct dm *d, sw_node *param)
{
	sw_node *kind = sw_kid(param, 0);
	if (!kind || param->kind != SW_FUNCTION_SIGNATURE_SPECIALIZATION_PARAM)
		return true;
	uint64_t k = kind->index;
	if (k != FS_CONSTANT_PROP_FUNCTION && k != FS_CONSTANT_PROP_GLOBAL &&
	    k != FS_CONSTANT_PROP_STRING && k != FS_CONSTANT_PROP_KEY_PATH && k != FS_CLOSURE_PROP)
		return true;
	unsigned fixed = param->n;
	sw_node *t;
	while ((t = dm_pop_kind(d, SW_TYPE))) {
		if (k != FS_CLOSURE_PROP && k != FS_CONSTANT_PROP_KEY_PATH)
			return false;
		if (!dm_add(d, param, t))
			return false;
	}
	sw_node *name = dm_pop_kind(d, SW_IDENTIFIER);
	if (!name)
		return false;
	const char *text = name->text;
	size_t len = name->len;
	if (k == FS_CONSTANT_PROP_STRING && len && text[0] == '_') {
		/* a "_" escapes a string's leading digit or '_' */
		text++;
		len--;
	}
	if (!param_payload(d, param, text, len))
		return false;
	sw_reverse(param, fixed);
	return true;
}

static sw_node *function_specialization(struct dm *d)
{
	sw_node *spec = spec_attributes(d, SW_FUNCTION_SIGNATURE_SPECIALIZATION);
	while (spec && !dm_next_if(d, '_'))
		spec = dm_add(d, spec, spec_param(d, SW_FUNCTION_SIGNATURE_SPECIALIZATION_PARAM));
	if (!dm_next_if(d, 'n'))
		spec = dm_add(d, spec, spec_param(d, SW_FUNCTION_SIGNATURE_SPECIALIZATION_RETURN));
	if (!spec)
		return NULL;
	for (unsigned i = spec->n; i-- > 0;)
		if (!spec_payloads(d, spec->kids[i]))
			return NULL;
	return spec;
}

/* ---- autodiff ---- */

static sw_node *index_subset(struct dm *d)
{
	size_t start = d->pos;
	while (dm_peek(d) == 'S' || dm_peek(d) == 'U')
		d->pos++;
	return d->pos > start ? sw_text(d->h, SW_INDEX_SUBSET, d->s + start, d->pos - start) : NULL;
}

static sw_node *autodiff_kind(struct dm *d)
{
	char c = dm_next(d);
	if (c != 'f' && c != 'r' && c != 'd' && c != 'p')
		return NULL;
	return sw_index(d->h, SW_AUTO_DIFF_FUNCTION_KIND, (uint64_t)(unsigned char)c);
}

/* Everything on the stack, in its order, under a new node. */
static sw_node *pop_all(struct dm *d, enum sw_kind kind)
{
	sw_node *r = dm_new(d, kind), *n;
	while (r && (n = dm_pop(d)))
		r = dm_add(d, r, n);
	if (r)
		sw_reverse(r, 0);
	return r;
}

/* "TJ": a derivative ("TJV" its vtable thunk), with the parameters and
 * results it is taken with respect to; "TJS" subset parameters thunks. */
static sw_node *autodiff(struct dm *d)
{
	enum sw_kind kind = SW_AUTO_DIFF_FUNCTION;
	switch (dm_peek(d)) {
	case 'S': kind = SW_AUTO_DIFF_SUBSET_PARAMETERS_THUNK; d->pos++; break;
	case 'V': kind = SW_AUTO_DIFF_DERIVATIVE_VTABLE_THUNK; d->pos++; break;
	case 'O': {
		d->pos++;
		sw_node *r = dm_new(d, SW_AUTO_DIFF_SELF_REORDERING_REABSTRACTION_THUNK);
		dm_add(d, r, dm_pop_kind(d, SW_DEPENDENT_GENERIC_SIGNATURE));
		r = dm_add(d, r, dm_pop_kind(d, SW_TYPE));
		r = dm_add(d, r, dm_pop_kind(d, SW_TYPE));
		if (r)
			sw_reverse(r, 0);
		return dm_add(d, r, autodiff_kind(d));
	}
	default: break;
	}
	sw_node *r = pop_all(d, kind);
	r = dm_add(d, r, autodiff_kind(d));
	r = dm_add(d, r, index_subset(d));
	if (!dm_next_if(d, 'p'))
		return NULL;
	r = dm_add(d, r, index_subset(d));
	if (!dm_next_if(d, 'r'))
		return NULL;
	if (kind == SW_AUTO_DIFF_SUBSET_PARAMETERS_THUNK) {
		r = dm_add(d, r, index_subset(d));
		if (!dm_next_if(d, 'P'))
			return NULL;
	}
	return r;
}

/* "WJ": a differentiability witness. */
sw_node *dm_differentiability_witness(struct dm *d)
{
	sw_node *sig = dm_pop_kind(d, SW_DEPENDENT_GENERIC_SIGNATURE);
	sw_node *r = pop_all(d, SW_DIFFERENTIABILITY_WITNESS);
	char c = dm_next(d);
	if (c != 'f' && c != 'r' && c != 'd' && c != 'l')
		return NULL;
	r = dm_add(d, r, sw_index(d->h, SW_INDEX, (uint64_t)(unsigned char)c));
	r = dm_add(d, r, index_subset(d));
	if (!dm_next_if(d, 'p'))
		return NULL;
	r = dm_add(d, r, index_subset(d));
	if (!dm_next_if(d, 'r'))
		return NULL;
	if (sig)
		dm_add(d, r, sig);
	return r;
}

/* ---- key paths and other thunks ---- */

/* "TK"/"Tk" (getter/setter), "TKmu"/"TkMA" (method helpers): the
 * declaration, maybe its signature, then the types. */
static sw_node *key_path_thunk(struct dm *d, char c)
{
	enum sw_kind kind = dm_next_if2(d, "mu") ? SW_KEY_PATH_UNAPPLIED_METHOD_THUNK_HELPER
			  : dm_next_if2(d, "MA") ? SW_KEY_PATH_APPLIED_METHOD_THUNK_HELPER
			  : c == 'K' ? SW_KEY_PATH_GETTER_THUNK_HELPER
				     : SW_KEY_PATH_SETTER_THUNK_HELPER;
	bool serialized = dm_next_if(d, 'q');
	sw_node *types[64], *n = dm_pop(d), *r;
	size_t n_types = 0;
	if (!n || n->kind != SW_TYPE)
		return NULL;
	do {
		if (n_types == sizeof types / sizeof *types)
			return NULL;
		types[n_types++] = n;
		n = dm_pop(d);
	} while (n && n->kind == SW_TYPE);
	if (!n)
		return NULL;
	if (n->kind == SW_DEPENDENT_GENERIC_SIGNATURE)
		r = sw_with2(d->h, kind, dm_pop(d), n);
	else
		r = dm_with(d, kind, n);
	while (n_types > 0)
		r = dm_add(d, r, types[--n_types]);
	if (serialized)
		r = dm_add(d, r, dm_new(d, SW_IS_SERIALIZED));
	return r;
}

/* "TH"/"Th": key path index equality and hash operators. */
static sw_node *key_path_index_thunk(struct dm *d, char c)
{
	bool serialized = dm_next_if(d, 'q');
	sw_node *sig = NULL, *types[64], *n = dm_pop(d), *r;
	size_t n_types = 0;
	if (!n)
		return NULL;
	if (n->kind == SW_DEPENDENT_GENERIC_SIGNATURE)
		sig = n;
	else if (n->kind == SW_TYPE)
		types[n_types++] = n;
	else
		return NULL;
	while ((n = dm_pop(d))) {
		if (n->kind != SW_TYPE || n_types == sizeof types / sizeof *types)
			return NULL;
		types[n_types++] = n;
	}
	r = dm_new(d, c == 'H' ? SW_KEY_PATH_EQUALS_THUNK_HELPER : SW_KEY_PATH_HASH_THUNK_HELPER);
	while (r && n_types > 0)
		r = dm_add(d, r, types[--n_types]);
	if (sig)
		r = dm_add(d, r, sig);
	if (serialized)
		r = dm_add(d, r, dm_new(d, SW_IS_SERIALIZED));
	return r;
}

static sw_node *reabstraction_thunk(struct dm *d, enum sw_kind kind)
{
	sw_node *thunk = dm_new(d, kind), *sig = dm_pop_kind(d, SW_DEPENDENT_GENERIC_SIGNATURE);
	if (sig)
		dm_add(d, thunk, sig);
	if (kind == SW_REABSTRACTION_THUNK_HELPER_WITH_SELF)
		dm_add(d, thunk, dm_pop_kind(d, SW_TYPE));
	dm_add(d, thunk, dm_pop_kind(d, SW_TYPE));
	dm_add(d, thunk, dm_pop_kind(d, SW_TYPE));
	return thunk;
}

/* "e": the bridged parameters of an outlined ObjC method: a kind letter
 * ('p', 'a' or 'm') then 'n', 'b' or 'g' per parameter, up to '_'. */
static sw_node *bridged_method(struct dm *d)
{
	size_t start = d->pos;
	char k = dm_next(d);
	if (k != 'p' && k != 'a' && k != 'm')
		return NULL;
	for (;;) {
		char c = dm_next(d);
		if (c == '_')
			break;
		if (c != 'n' && c != 'b' && c != 'g')
			return NULL;
	}
	return sw_text(d->h, SW_OUTLINED_BRIDGED_METHOD, d->s + start, d->pos - 1 - start);
}

static const struct {
	char code;
	enum sw_kind kind;
	bool pops_entity;   /* wraps the entity on the stack; otherwise a plain attribute */
} simple_thunks[] = {
	{'c', SW_CURRY_THUNK, true}, {'j', SW_DISPATCH_THUNK, true}, {'q', SW_METHOD_DESCRIPTOR, true},
	{'S', SW_PROTOCOL_SELF_CONFORMANCE_WITNESS, true}, {'o', SW_OBJC_ATTRIBUTE, false},
	{'O', SW_NON_OBJC_ATTRIBUTE, false}, {'D', SW_DYNAMIC_ATTRIBUTE, false},
	{'d', SW_DIRECT_METHOD_REFERENCE_ATTRIBUTE, false}, {'E', SW_DISTRIBUTED_THUNK, false},
	{'F', SW_DISTRIBUTED_ACCESSOR, false}, {'a', SW_PARTIAL_APPLY_OBJC_FORWARDER, false},
	{'A', SW_PARTIAL_APPLY_FORWARDER, false}, {'m', SW_MERGED_FUNCTION, false},
	{'X', SW_DYNAMICALLY_REPLACEABLE_FUNCTION_VAR, false},
	{'x', SW_DYNAMICALLY_REPLACEABLE_FUNCTION_KEY, false},
	{'I', SW_DYNAMICALLY_REPLACEABLE_FUNCTION_IMPL, false},
	{'u', SW_ASYNC_FUNCTION_POINTER, false},
};

static sw_node *more_thunks(struct dm *d, char c);

sw_node *dm_thunk_or_specialization(struct dm *d)
{
	char c = dm_next(d);
	for (size_t i = 0; c && i < sizeof simple_thunks / sizeof *simple_thunks; i++) {
		if (simple_thunks[i].code != c)
			continue;
		if (simple_thunks[i].pops_entity)
			return dm_with(d, simple_thunks[i].kind, dm_pop_if(d, sw_is_entity));
		return dm_new(d, simple_thunks[i].kind);
	}
	switch (c) {
	case 'g': return generic_specialization(d, SW_GENERIC_SPECIALIZATION, NULL);
	case 'G': return generic_specialization(d, SW_GENERIC_SPECIALIZATION_NOT_RE_ABSTRACTED, NULL);
	case 'B': return generic_specialization(d, SW_GENERIC_SPECIALIZATION_IN_RESILIENCE_DOMAIN, NULL);
	case 's': return generic_specialization(d, SW_GENERIC_SPECIALIZATION_PRESPECIALIZED, NULL);
	case 'i': return generic_specialization(d, SW_INLINED_GENERIC_FUNCTION, NULL);
	case 't': return specialization_dropping(d);
	case 'p': case 'P': {
		sw_node *spec = spec_attributes(d, c == 'p' ? SW_GENERIC_PARTIAL_SPECIALIZATION
							 : SW_GENERIC_PARTIAL_SPECIALIZATION_NOT_RE_ABSTRACTED);
		return dm_add(d, spec, dm_with(d, SW_GENERIC_SPECIALIZATION_PARAM, dm_pop_kind(d, SW_TYPE)));
	}
	case 'f': return function_specialization(d);
	case 'K': case 'k': return key_path_thunk(d, c);
	case 'H': case 'h': return key_path_index_thunk(d, c);
	case 'R': return reabstraction_thunk(d, SW_REABSTRACTION_THUNK_HELPER);
	case 'r': return reabstraction_thunk(d, SW_REABSTRACTION_THUNK);
	case 'y': return reabstraction_thunk(d, SW_REABSTRACTION_THUNK_HELPER_WITH_SELF);
	case 'J': return autodiff(d);
	case 'e': return bridged_method(d);
	default: return more_thunks(d, c);
	}
}

static sw_node *more_thunks(struct dm *d, char c)
{
	sw_node *a, *b, *e;
	long i;
	switch (c) {
	case 'T':
		c = dm_next(d);
		if (c != 'I' && c != 'H')
			return NULL;
		return dm_with(d, c == 'I' ? SW_SIL_THUNK_IDENTITY : SW_SIL_THUNK_HOP_TO_MAIN_ACTOR_IF_NEEDED,
			       dm_pop_if(d, sw_is_entity));
	case 'Y': case 'Q':
		return dm_with(d, c == 'Q' ? SW_ASYNC_AWAIT_RESUME_PARTIAL_FUNCTION
					 : SW_ASYNC_SUSPEND_RESUME_PARTIAL_FUNCTION, dm_index_node(d));
	case 'C': return dm_with(d, SW_COROUTINE_CONTINUATION_PROTOTYPE, dm_pop_kind(d, SW_TYPE));
	case 'z': case 'Z':
		e = dm_index_node(d); /* the error flag's mode */
		a = dm_pop_kind(d, SW_DEPENDENT_GENERIC_SIGNATURE);
		b = dm_pop_kind(d, SW_TYPE); /* result */
		e = sw_with3(d->h, c == 'z' ? SW_OBJC_ASYNC_COMPLETION_HANDLER_IMPL
					  : SW_PREDEFINED_OBJC_ASYNC_COMPLETION_HANDLER_IMPL,
			     dm_pop_kind(d, SW_TYPE), b, e);
		return a ? dm_add(d, e, a) : e;
	case 'V':
		b = dm_pop_if(d, sw_is_entity); /* base */
		a = dm_pop_if(d, sw_is_entity); /* derived */
		return sw_with2(d->h, SW_VTABLE_THUNK, a, b);
	case 'W':
		e = dm_pop_if(d, sw_is_entity);
		return sw_with2(d->h, SW_PROTOCOL_WITNESS, dm_pop_protocol_conformance(d), e);
	case 'l': return dm_with(d, SW_ASSOCIATED_TYPE_DESCRIPTOR, dm_pop_assoc_type_name(d));
	case 'L': return dm_with(d, SW_PROTOCOL_REQUIREMENTS_BASE_DESCRIPTOR, dm_pop_protocol(d));
	case 'M':
		return dm_with(d, SW_DEFAULT_ASSOCIATED_TYPE_METADATA_ACCESSOR, dm_pop_assoc_type_name(d));
	case 'n': case 'N':
		e = dm_pop_protocol(d);
		b = dm_pop_self_or_assoc_type_path(d);
		a = dm_pop_kind(d, SW_TYPE);
		return sw_with3(d->h, c == 'n' ? SW_ASSOCIATED_CONFORMANCE_DESCRIPTOR
					  : SW_DEFAULT_ASSOCIATED_CONFORMANCE_ACCESSOR, a, b, e);
	case 'b':
		b = dm_pop_protocol(d);
		a = dm_pop_kind(d, SW_TYPE);
		return sw_with2(d->h, SW_BASE_CONFORMANCE_DESCRIPTOR, a, b);
	case 'v':
		if ((i = dm_index(d)) < 0)
			return NULL;
		return sw_index(d->h, dm_next(d) == 'r' ? SW_OUTLINED_READ_ONLY_OBJECT : SW_OUTLINED_VARIABLE,
				(uint64_t)i);
	case 'U':
		b = dm_pop_kind(d, SW_TYPE); /* the global actor */
		a = b ? dm_pop(d) : NULL;     /* the reabstraction thunk */
		return sw_with2(d->h, SW_REABSTRACTION_THUNK_HELPER_WITH_GLOBAL_ACTOR, a, b);
	case 'w':
		switch (dm_next(d)) {
		case 'b': return dm_new(d, SW_BACK_DEPLOYMENT_THUNK);
		case 'B': return dm_new(d, SW_BACK_DEPLOYMENT_FALLBACK);
		case 'c': return dm_new(d, SW_CORO_FUNCTION_POINTER);
		case 'd': return dm_new(d, SW_DEFAULT_OVERRIDE);
		case 'S': return dm_new(d, SW_HAS_SYMBOL_QUERY);
		default: return NULL;
		}
	default:
		return NULL;
	}
}
