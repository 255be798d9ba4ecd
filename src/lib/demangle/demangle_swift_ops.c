/* The operators of Swift's mangling that this module supports, one
 * function per production of docs/ABI/Mangling.rst: types, entities
 * (functions, accessors, closures, initializers), generic signatures and
 * the common thunks and specializations. */
#include <string.h>

#include "demangle_swift_ops.h"

/* ---- classes of nodes ---- */

bool sw_is_context(enum sw_kind k)
{
	switch (k) {
	case SW_ALLOCATOR: case SW_CLASS: case SW_CONSTRUCTOR: case SW_DEALLOCATOR:
	case SW_DEFAULT_ARGUMENT_INITIALIZER: case SW_DESTRUCTOR: case SW_DID_SET: case SW_ENUM:
	case SW_EXPLICIT_CLOSURE: case SW_EXTENSION: case SW_FUNCTION: case SW_GETTER:
	case SW_GLOBAL_GETTER: case SW_IVAR_INITIALIZER: case SW_IVAR_DESTROYER:
	case SW_IMPLICIT_CLOSURE: case SW_INITIALIZER: case SW_MATERIALIZE_FOR_SET:
	case SW_MODIFY_ACCESSOR: case SW_MODULE: case SW_PROTOCOL: case SW_READ_ACCESSOR:
	case SW_SETTER: case SW_STATIC: case SW_STRUCTURE: case SW_SUBSCRIPT: case SW_TYPE_ALIAS:
	case SW_UNSAFE_ADDRESSOR: case SW_UNSAFE_MUTABLE_ADDRESSOR: case SW_VARIABLE:
	case SW_WILL_SET:
		return true;
	default:
		return false;
	}
}

bool sw_is_function_attr(enum sw_kind k)
{
	switch (k) {
	case SW_GENERIC_SPECIALIZATION: case SW_GENERIC_SPECIALIZATION_NOT_RE_ABSTRACTED:
	case SW_GENERIC_SPECIALIZATION_IN_RESILIENCE_DOMAIN: case SW_INLINED_GENERIC_FUNCTION:
	case SW_FUNCTION_SIGNATURE_SPECIALIZATION: case SW_OBJC_ATTRIBUTE:
	case SW_NON_OBJC_ATTRIBUTE: case SW_DYNAMIC_ATTRIBUTE: case SW_PARTIAL_APPLY_FORWARDER:
	case SW_PARTIAL_APPLY_OBJC_FORWARDER: case SW_MERGED_FUNCTION:
	case SW_ASYNC_FUNCTION_POINTER: case SW_ASYNC_AWAIT_RESUME_PARTIAL_FUNCTION:
	case SW_ASYNC_SUSPEND_RESUME_PARTIAL_FUNCTION:
		return true;
	default:
		return false;
	}
}

bool sw_is_decl_name(enum sw_kind k)
{
	return k == SW_IDENTIFIER || k == SW_LOCAL_DECL_NAME || k == SW_PRIVATE_DECL_NAME ||
	       k == SW_PREFIX_OPERATOR || k == SW_POSTFIX_OPERATOR || k == SW_INFIX_OPERATOR;
}

static bool is_any_generic(enum sw_kind k)
{
	return k == SW_STRUCTURE || k == SW_CLASS || k == SW_ENUM || k == SW_PROTOCOL ||
	       k == SW_TYPE_ALIAS;
}

bool sw_is_entity(enum sw_kind k)
{
	return k == SW_TYPE || sw_is_context(k);
}

static bool is_requirement(enum sw_kind k)
{
	return k == SW_DEPENDENT_GENERIC_SAME_TYPE_REQUIREMENT ||
	       k == SW_DEPENDENT_GENERIC_LAYOUT_REQUIREMENT ||
	       k == SW_DEPENDENT_GENERIC_CONFORMANCE_REQUIREMENT;
}

bool sw_is_protocol_node(const sw_node *n)
{
	while (n && n->kind == SW_TYPE)
		n = n->n ? n->kids[0] : NULL;
	return n && n->kind == SW_PROTOCOL;
}

/* ---- popping contexts and types ---- */

sw_node *sw_pop_module(struct sw *p)
{
	sw_node *id = sw_pop_kind(p, SW_IDENTIFIER);
	if (id)
		return sw_text(p, SW_MODULE, id->text, id->text_len);
	return sw_pop_kind(p, SW_MODULE);
}

sw_node *sw_pop_context(struct sw *p)
{
	sw_node *m = sw_pop_module(p);
	if (m)
		return m;
	sw_node *t = sw_pop_kind(p, SW_TYPE);
	if (t)
		return t->n == 1 && sw_is_context(t->kids[0]->kind) ? t->kids[0] : NULL;
	return sw_pop_if(p, sw_is_context);
}

sw_node *sw_pop_type_child(struct sw *p)
{
	sw_node *t = sw_pop_kind(p, SW_TYPE);
	return t && t->n == 1 ? t->kids[0] : NULL;
}

static sw_node *pop_any_generic(struct sw *p)
{
	sw_node *c = sw_pop_type_child(p);
	return c && is_any_generic(c->kind) ? c : NULL;
}

sw_node *sw_pop_protocol(struct sw *p)
{
	sw_node *t = sw_pop_kind(p, SW_TYPE);
	if (t)
		return t->n && sw_is_protocol_node(t) ? t : NULL;
	sw_node *name = sw_pop_if(p, sw_is_decl_name);
	sw_node *ctx = sw_pop_context(p);
	return sw_type(p, sw_with2(p, SW_PROTOCOL, ctx, name));
}

static sw_node *any_generic_type(struct sw *p, enum sw_kind kind)
{
	sw_node *name = sw_pop_if(p, sw_is_decl_name);
	sw_node *ctx = sw_pop_context(p);
	return sw_subst_add(p, sw_type(p, sw_with2(p, kind, ctx, name)));
}

static sw_node *extension_context(struct sw *p)
{
	sw_node *sig = sw_pop_kind(p, SW_DEPENDENT_GENERIC_SIGNATURE);
	sw_node *module = sw_pop_module(p);
	sw_node *type = pop_any_generic(p);
	sw_node *ext = sw_with2(p, SW_EXTENSION, module, type);
	return sig ? sw_add(p, ext, sig) : ext;
}

/* ---- functions and tuples ---- */

static sw_node *pop_function_params(struct sw *p, enum sw_kind kind)
{
	sw_node *t = sw_pop_kind(p, SW_EMPTY_LIST) ? sw_type(p, sw_new(p, SW_TUPLE))
						   : sw_pop_kind(p, SW_TYPE);
	return sw_with(p, kind, t);
}

sw_node *sw_pop_function_type(struct sw *p, enum sw_kind kind)
{
	sw_node *f = sw_new(p, kind);
	static const enum sw_kind attrs[] = {SW_GLOBAL_ACTOR_FUNCTION_TYPE, SW_THROWS_ANNOTATION,
					     SW_CONCURRENT_FUNCTION_TYPE, SW_ASYNC_ANNOTATION};
	for (size_t i = 0; f && i < sizeof attrs / sizeof *attrs; i++) {
		sw_node *a = sw_pop_kind(p, attrs[i]);
		if (a)
			f = sw_add(p, f, a);
	}
	f = sw_add(p, f, pop_function_params(p, SW_ARGUMENT_TUPLE));
	f = sw_add(p, f, pop_function_params(p, SW_RETURN_TYPE));
	return sw_type(p, f);
}

/* The labels of a function's parameters, pushed before its type as
 * identifiers or '_' markers (none: "y"); NULL when there are none.  Sets
 * *bad when they do not fit the type. */
sw_node *sw_pop_param_labels(struct sw *p, const sw_node *type, bool *bad)
{
	if (sw_pop_kind(p, SW_EMPTY_LIST))
		return sw_new(p, SW_LABEL_LIST);
	if (!type || type->kind != SW_TYPE || !type->n)
		return NULL;
	const sw_node *f = type->kids[0];
	if (f->kind == SW_DEPENDENT_GENERIC_TYPE)
		f = f->n == 2 && f->kids[1]->n ? f->kids[1]->kids[0] : NULL;
	if (!f || (f->kind != SW_FUNCTION_TYPE && f->kind != SW_NO_ESCAPE_FUNCTION_TYPE))
		return NULL;
	const sw_node *args = NULL;
	for (unsigned i = 0; i < f->n && !args; i++)
		if (f->kids[i]->kind == SW_ARGUMENT_TUPLE)
			args = f->kids[i];
	if (!args || !args->n || !args->kids[0]->n)
		return NULL;
	const sw_node *params = args->kids[0]->kids[0];
	unsigned n = params->kind == SW_TUPLE ? params->n : 1;
	if (n == 0)
		return NULL;
	sw_node *list = sw_new(p, SW_LABEL_LIST);
	bool labels = false;
	for (unsigned i = 0; i < n && list; i++) {
		sw_node *l = sw_pop(p);
		if (!l || (l->kind != SW_IDENTIFIER && l->kind != SW_FIRST_ELEMENT_MARKER)) {
			*bad = true;
			return NULL;
		}
		list = sw_add(p, list, l);
		labels |= l->kind == SW_IDENTIFIER;
	}
	if (!list)
		return NULL;
	if (!labels)
		return sw_new(p, SW_LABEL_LIST);
	sw_reverse(list, 0);
	return list;
}

static sw_node *plain_function(struct sw *p)
{
	sw_node *sig = sw_pop_kind(p, SW_DEPENDENT_GENERIC_SIGNATURE);
	sw_node *type = sw_pop_function_type(p, SW_FUNCTION_TYPE);
	bool bad = false;
	sw_node *labels = sw_pop_param_labels(p, type, &bad);
	if (bad)
		return NULL;
	if (sig)
		type = sw_type(p, sw_with2(p, SW_DEPENDENT_GENERIC_TYPE, sig, type));
	sw_node *name = sw_pop_if(p, sw_is_decl_name);
	sw_node *ctx = sw_pop_context(p);
	sw_node *fn = sw_with2(p, SW_FUNCTION, ctx, name);
	if (labels)
		fn = sw_add(p, fn, labels);
	return sw_add(p, fn, type);
}

static sw_node *pop_tuple(struct sw *p)
{
	sw_node *root = sw_new(p, SW_TUPLE);
	if (!sw_pop_kind(p, SW_EMPTY_LIST)) {
		bool first;
		do {
			first = sw_pop_kind(p, SW_FIRST_ELEMENT_MARKER) != NULL;
			sw_node *e = sw_new(p, SW_TUPLE_ELEMENT);
			sw_node *v = sw_pop_kind(p, SW_VARIADIC_MARKER);
			if (v)
				e = sw_add(p, e, v);
			sw_node *id = sw_pop_kind(p, SW_IDENTIFIER);
			if (id)
				e = sw_add(p, e, sw_text(p, SW_TUPLE_ELEMENT_NAME, id->text, id->text_len));
			e = sw_add(p, e, sw_pop_kind(p, SW_TYPE));
			if (!(root = sw_add(p, root, e)))
				return NULL;
		} while (!first);
		sw_reverse(root, 0);
	}
	return sw_type(p, root);
}

sw_node *sw_pop_type_list(struct sw *p)
{
	sw_node *root = sw_new(p, SW_TYPE_LIST);
	if (!sw_pop_kind(p, SW_EMPTY_LIST)) {
		bool first;
		do {
			first = sw_pop_kind(p, SW_FIRST_ELEMENT_MARKER) != NULL;
			if (!(root = sw_add(p, root, sw_pop_kind(p, SW_TYPE))))
				return NULL;
		} while (!first);
		sw_reverse(root, 0);
	}
	return root;
}

/* ---- bound generic types ---- */

#define MAX_TYPE_LISTS 64

static sw_node *bound_generic_args(struct sw *p, sw_node *nominal, sw_node **lists, size_t n,
				   size_t at)
{
	if (!nominal || at >= n || nominal->n == 0)
		return NULL;
	sw_node *ctx = nominal->kids[0];
	/* Variables, closures and the like take no generic arguments of their
	 * own: their context does.  Only nominal types are supported here. */
	if (!is_any_generic(nominal->kind))
		return NULL;
	sw_node *args = lists[at++];
	if (at < n) {
		sw_node *parent;
		if (ctx->kind == SW_EXTENSION) {
			if (ctx->n < 2)
				return NULL;
			parent = sw_with2(p, SW_EXTENSION, ctx->kids[0],
					  bound_generic_args(p, ctx->kids[1], lists, n, at));
			if (parent && ctx->n == 3)
				parent = sw_add(p, parent, ctx->kids[2]);
		} else {
			parent = bound_generic_args(p, ctx, lists, n, at);
		}
		sw_node *nn = sw_with(p, nominal->kind, parent);
		for (unsigned i = 1; nn && i < nominal->n; i++)
			nn = sw_add(p, nn, nominal->kids[i]);
		if (!(nominal = nn))
			return NULL;
	}
	if (args->n == 0)
		return nominal;
	enum sw_kind kind;
	switch (nominal->kind) {
	case SW_CLASS: kind = SW_BOUND_GENERIC_CLASS; break;
	case SW_STRUCTURE: kind = SW_BOUND_GENERIC_STRUCTURE; break;
	case SW_ENUM: kind = SW_BOUND_GENERIC_ENUM; break;
	case SW_TYPE_ALIAS: kind = SW_BOUND_GENERIC_TYPE_ALIAS; break;
	default: return NULL; /* a bound generic protocol */
	}
	return sw_with2(p, kind, sw_type(p, nominal), args);
}

/* The type lists of "y...G": types up to an EmptyList, lists split by '_'
 * (the outermost type's arguments come last on the stack). */
static bool bound_generics(struct sw *p, sw_node **lists, size_t *n)
{
	*n = 0;
	for (;;) {
		if (*n == MAX_TYPE_LISTS)
			return false;
		sw_node *list = sw_new(p, SW_TYPE_LIST);
		if (!list)
			return false;
		lists[(*n)++] = list;
		sw_node *t;
		while ((t = sw_pop_kind(p, SW_TYPE)))
			if (!sw_add(p, list, t))
				return false;
		sw_reverse(list, 0);
		if (sw_pop_kind(p, SW_EMPTY_LIST))
			return true;
		if (!sw_pop_kind(p, SW_FIRST_ELEMENT_MARKER))
			return false;
	}
}

static sw_node *bound_generic_type(struct sw *p)
{
	sw_node *lists[MAX_TYPE_LISTS];
	size_t n;
	if (!bound_generics(p, lists, &n))
		return NULL;
	sw_node *nominal = pop_any_generic(p);
	return sw_subst_add(p, sw_type(p, bound_generic_args(p, nominal, lists, n, 0)));
}

/* ---- generic parameters and signatures ---- */

static sw_node *param_type(struct sw *p, long depth, long index)
{
	if (depth < 0 || index < 0)
		return NULL;
	return sw_with2(p, SW_DEPENDENT_GENERIC_PARAM_TYPE, sw_index(p, SW_INDEX, (uint64_t)depth),
			sw_index(p, SW_INDEX, (uint64_t)index));
}

static sw_node *generic_param_index(struct sw *p)
{
	if (sw_next_if(p, 'd')) {
		long depth = sw_index_value(p);
		long index = sw_index_value(p);
		return param_type(p, depth < 0 ? -1 : depth + 1, index);
	}
	if (sw_next_if(p, 'z'))
		return param_type(p, 0, 0);
	long index = sw_index_value(p);
	return param_type(p, 0, index < 0 ? -1 : index + 1);
}

static sw_node *pop_assoc_type_name(struct sw *p)
{
	sw_node *proto = sw_pop_kind(p, SW_TYPE);
	if (proto && !sw_is_protocol_node(proto))
		return NULL;
	sw_node *ref = sw_with(p, SW_DEPENDENT_ASSOCIATED_TYPE_REF, sw_pop_kind(p, SW_IDENTIFIER));
	return proto ? sw_add(p, ref, proto) : ref;
}

static sw_node *assoc_type_simple(struct sw *p, sw_node *base)
{
	sw_node *name = pop_assoc_type_name(p);
	sw_node *base_ty = base ? sw_type(p, base) : sw_pop_kind(p, SW_TYPE);
	return sw_type(p, sw_with2(p, SW_DEPENDENT_MEMBER_TYPE, base_ty, name));
}

static sw_node *generic_signature(struct sw *p, bool counts)
{
	sw_node *sig = sw_new(p, SW_DEPENDENT_GENERIC_SIGNATURE);
	if (counts) {
		while (sig && !sw_next_if(p, 'l')) {
			long count = 0;
			if (!sw_next_if(p, 'z')) {
				long i = sw_index_value(p);
				if (i < 0)
					return NULL;
				count = i + 1;
			}
			sig = sw_add(p, sig, sw_index(p, SW_DEPENDENT_GENERIC_PARAM_COUNT, (uint64_t)count));
		}
	} else {
		sig = sw_add(p, sig, sw_index(p, SW_DEPENDENT_GENERIC_PARAM_COUNT, 1));
	}
	if (!sig)
		return NULL;
	unsigned counted = sig->n;
	sw_node *req;
	while ((req = sw_pop_if(p, is_requirement)))
		if (!sw_add(p, sig, req))
			return NULL;
	sw_reverse(sig, counted);
	return sig;
}

static sw_node *layout_requirement(struct sw *p, sw_node *type)
{
	char c = sw_next(p);
	static const char plain[] = "URNCDT";
	if (c == 0 || !strchr(plain, c))
		return NULL; /* sized layouts (_Trivial(64)) are not supported */
	char *name = hg_arena_strndup(p->arena, &c, 1);
	if (!name) {
		p->oom = true;
		return NULL;
	}
	return sw_with2(p, SW_DEPENDENT_GENERIC_LAYOUT_REQUIREMENT, type,
			sw_text(p, SW_IDENTIFIER, name, 1));
}

static sw_node *generic_requirement(struct sw *p)
{
	enum { PROTOCOL, BASE_CLASS, SAME_TYPE, LAYOUT } what;
	enum { GENERIC, ASSOC, SUBST } of;
	switch (sw_next(p)) {
	case 'c': what = BASE_CLASS; of = ASSOC; break;
	case 'b': what = BASE_CLASS; of = GENERIC; break;
	case 'B': what = BASE_CLASS; of = SUBST; break;
	case 't': what = SAME_TYPE; of = ASSOC; break;
	case 's': what = SAME_TYPE; of = GENERIC; break;
	case 'S': what = SAME_TYPE; of = SUBST; break;
	case 'm': what = LAYOUT; of = ASSOC; break;
	case 'l': what = LAYOUT; of = GENERIC; break;
	case 'L': what = LAYOUT; of = SUBST; break;
	case 'p': what = PROTOCOL; of = ASSOC; break;
	case 'Q': what = PROTOCOL; of = SUBST; break;
	case 'C': case 'T': case 'M': case 'P': return NULL; /* compound associated types */
	default: what = PROTOCOL; of = GENERIC; p->pos--; break;
	}
	sw_node *type;
	if (of == GENERIC)
		type = sw_type(p, generic_param_index(p));
	else if (of == ASSOC)
		type = sw_subst_add(p, assoc_type_simple(p, generic_param_index(p)));
	else
		type = sw_pop_kind(p, SW_TYPE);
	switch (what) {
	case PROTOCOL:
		return sw_with2(p, SW_DEPENDENT_GENERIC_CONFORMANCE_REQUIREMENT, type, sw_pop_protocol(p));
	case BASE_CLASS:
		return sw_with2(p, SW_DEPENDENT_GENERIC_CONFORMANCE_REQUIREMENT, type,
				sw_pop_kind(p, SW_TYPE));
	case SAME_TYPE:
		return sw_with2(p, SW_DEPENDENT_GENERIC_SAME_TYPE_REQUIREMENT, type,
				sw_pop_kind(p, SW_TYPE));
	case LAYOUT:
		return type ? layout_requirement(p, type) : NULL;
	}
	return NULL;
}

static sw_node *archetype(struct sw *p)
{
	switch (sw_next(p)) {
	case 'r':
		return sw_type(p, sw_new(p, SW_OPAQUE_RETURN_TYPE));
	case 'x':
		return sw_subst_add(p, assoc_type_simple(p, NULL));
	case 'y':
		return sw_subst_add(p, assoc_type_simple(p, generic_param_index(p)));
	case 'z':
		return sw_subst_add(p, assoc_type_simple(p, param_type(p, 0, 0)));
	default:
		return NULL; /* opaque types, compound associated types, packs */
	}
}


/* 'Y': attributes of the function type that follows. */
static sw_node *type_annotation(struct sw *p)
{
	switch (sw_next(p)) {
	case 'a': return sw_new(p, SW_ASYNC_ANNOTATION);
	case 'b': return sw_new(p, SW_CONCURRENT_FUNCTION_TYPE);
	case 'c': return sw_with(p, SW_GLOBAL_ACTOR_FUNCTION_TYPE, sw_pop_type_child(p));
	default: return NULL; /* isolated, differentiable, sending, ... */
	}
}

static sw_node *type_mangling(struct sw *p)
{
	sw_node *type = sw_pop_kind(p, SW_TYPE);
	bool bad = false;
	sw_node *labels = sw_pop_param_labels(p, type, &bad);
	if (bad)
		return NULL;
	sw_node *m = sw_new(p, SW_TYPE_MANGLING);
	if (labels)
		m = sw_add(p, m, labels);
	return sw_add(p, m, type);
}

static sw_node *wrap_type(struct sw *p, enum sw_kind kind)
{
	return sw_type(p, sw_with(p, kind, sw_pop_type_child(p)));
}

sw_node *sw_operator(struct sw *p)
{
	char c = sw_next(p);
	switch (c) {
	case 'A': return sw_multi_substitutions(p);
	case 'B': return sw_builtin_type(p);
	case 'C': return any_generic_type(p, SW_CLASS);
	case 'D': return type_mangling(p);
	case 'E': return extension_context(p);
	case 'F': return plain_function(p);
	case 'G': return bound_generic_type(p);
	case 'I': return sw_impl_function_type(p);
	case 'K': return sw_new(p, SW_THROWS_ANNOTATION);
	case 'L': return sw_local_identifier(p);
	case 'M': return sw_metatype(p);
	case 'N': return sw_with(p, SW_TYPE_METADATA, sw_pop_kind(p, SW_TYPE));
	case 'O': return any_generic_type(p, SW_ENUM);
	case 'P': return any_generic_type(p, SW_PROTOCOL);
	case 'Q': return archetype(p);
	case 'R': return generic_requirement(p);
	case 'S': return sw_standard_substitution(p);
	case 'T': return sw_thunk_or_specialization(p);
	case 'V': return any_generic_type(p, SW_STRUCTURE);
	case 'W': return sw_witness(p);
	case 'X': return sw_special_type(p);
	case 'Y': return type_annotation(p);
	case 'Z': return sw_with(p, SW_STATIC, sw_pop_if(p, sw_is_entity));
	case 'a': return any_generic_type(p, SW_TYPE_ALIAS);
	case 'c': return sw_pop_function_type(p, SW_FUNCTION_TYPE);
	case 'd': return sw_new(p, SW_VARIADIC_MARKER);
	case 'f': return sw_function_entity(p);
	case 'h': return wrap_type(p, SW_SHARED);
	case 'i': return sw_subscript(p);
	case 'l': return generic_signature(p, false);
	case 'm': return sw_type(p, sw_with(p, SW_METATYPE, sw_pop_kind(p, SW_TYPE)));
	case 'n': return wrap_type(p, SW_OWNED);
	case 'o': return sw_operator_identifier(p);
	case 'p': return sw_type(p, sw_protocol_list(p));
	case 'q': return sw_type(p, generic_param_index(p));
	case 'r': return generic_signature(p, true);
	case 's': return sw_cstr(p, SW_MODULE, "Swift");
	case 't': return pop_tuple(p);
	case 'u': {
		sw_node *sig = sw_pop_kind(p, SW_DEPENDENT_GENERIC_SIGNATURE);
		sw_node *type = sw_pop_kind(p, SW_TYPE);
		return sw_type(p, sw_with2(p, SW_DEPENDENT_GENERIC_TYPE, sig, type));
	}
	case 'v': return sw_variable(p);
	case 'x': return sw_type(p, param_type(p, 0, 0));
	case 'y': return sw_new(p, SW_EMPTY_LIST);
	case 'z': return wrap_type(p, SW_INOUT);
	case '_': return sw_new(p, SW_FIRST_ELEMENT_MARKER);
	case '.':
		/* ".123", ".cold.1": what the compiler appended, kept as written. */
		p->pos--;
		{
			sw_node *n = sw_text(p, SW_SUFFIX, p->s + p->pos, p->len - p->pos);
			p->pos = p->len;
			return n;
		}
	case 0:
		return NULL;
	default:
		p->pos--;
		return sw_identifier(p);
	}
}
