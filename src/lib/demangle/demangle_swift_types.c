/* Types in a Swift 4.2+ mangling: what a context or a type may be popped
 * as, nominal types and their generic arguments ("G"), function types and
 * their argument labels, tuples, packs and type lists. */
#include "hangar/demangle.h"
#include "demangle_swift_dm.h"

/* ---- popping ---- */

sw_node *dm_pop_module(struct dm *d)
{
	sw_node *id = dm_pop_kind(d, SW_IDENTIFIER);
	if (id)
		return sw_change_kind(d->h, id, SW_MODULE);
	return dm_pop_kind(d, SW_MODULE);
}

sw_node *dm_pop_context(struct dm *d)
{
	sw_node *n = dm_pop_module(d);
	if (n)
		return n;
	if ((n = dm_pop_kind(d, SW_TYPE))) {
		if (n->n != 1 || !sw_is_context(n->kids[0]->kind))
			return NULL;
		return n->kids[0];
	}
	return dm_pop_if(d, sw_is_context);
}

sw_node *dm_pop_type_child(struct dm *d)
{
	sw_node *t = dm_pop_kind(d, SW_TYPE);
	return t && t->n == 1 ? t->kids[0] : NULL;
}

sw_node *dm_pop_type_any_generic(struct dm *d)
{
	sw_node *n = dm_pop_type_child(d);
	return n && sw_is_any_generic(n->kind) ? n : NULL;
}

/* Pops elements (each by `pop`) down to the first one, marked by a
 * FirstElementMarker below it, or nothing when an EmptyList is on top;
 * they are added to root in their mangled order. */
static sw_node *pop_list(struct dm *d, sw_node *root, sw_node *(*pop)(struct dm *))
{
	if (!root)
		return NULL;
	if (dm_pop_kind(d, SW_EMPTY_LIST))
		return root;
	bool first;
	do {
		first = dm_pop_kind(d, SW_FIRST_ELEMENT_MARKER) != NULL;
		if (!dm_add(d, root, pop(d)))
			return NULL;
	} while (!first);
	sw_reverse(root, 0);
	return root;
}

static sw_node *pop_type(struct dm *d)
{
	return dm_pop_kind(d, SW_TYPE);
}

sw_node *dm_pop_type_list(struct dm *d)
{
	return pop_list(d, dm_new(d, SW_TYPE_LIST), pop_type);
}

sw_node *dm_pop_pack(struct dm *d)
{
	return dm_type(d, pop_list(d, dm_new(d, SW_PACK), pop_type));
}

sw_node *dm_pop_sil_pack(struct dm *d)
{
	char c = dm_next(d);
	if (c != 'd' && c != 'i')
		return NULL;
	sw_node *root = dm_new(d, c == 'd' ? SW_SIL_PACK_DIRECT : SW_SIL_PACK_INDIRECT);
	return dm_type(d, pop_list(d, root, pop_type));
}

static sw_node *pop_tuple_element(struct dm *d)
{
	sw_node *elt = dm_new(d, SW_TUPLE_ELEMENT);
	dm_add(d, elt, dm_pop_kind(d, SW_VARIADIC_MARKER));
	sw_node *id = dm_pop_kind(d, SW_IDENTIFIER);
	if (id && !dm_add(d, elt, sw_text(d->h, SW_TUPLE_ELEMENT_NAME, id->text, id->len)))
		return NULL;
	return dm_add(d, elt, dm_pop_kind(d, SW_TYPE));
}

sw_node *dm_pop_tuple(struct dm *d)
{
	return dm_type(d, pop_list(d, dm_new(d, SW_TUPLE), pop_tuple_element));
}

/* ---- nominal types ---- */

sw_node *dm_any_generic_type(struct dm *d, enum sw_kind kind)
{
	sw_node *name = dm_pop_if(d, sw_is_decl_name);
	sw_node *ctx = dm_pop_context(d);
	sw_node *t = dm_type(d, sw_with2(d->h, kind, ctx, name));
	return t && dm_add_subst(d, t) ? t : NULL;
}

sw_node *dm_extension_context(struct dm *d)
{
	sw_node *sig = dm_pop_kind(d, SW_DEPENDENT_GENERIC_SIGNATURE);
	sw_node *module = dm_pop_module(d);
	sw_node *type = dm_pop_type_any_generic(d);
	sw_node *ext = sw_with2(d->h, SW_EXTENSION, module, type);
	return sig ? dm_add(d, ext, sig) : ext;
}

/* The lists of generic arguments of a bound generic type, the innermost
 * type's first ("_" separates the levels, "y" ends the outermost), and the
 * retroactive conformances before them. */
bool dm_bound_generics(struct dm *d, sw_node ***lists, size_t *n_lists, sw_node **retro)
{
	sw_node *r, *conformances = NULL;
	while ((r = dm_pop_kind(d, SW_RETROACTIVE_CONFORMANCE))) {
		if (!conformances && !(conformances = dm_new(d, SW_TYPE_LIST)))
			return false;
		if (!dm_add(d, conformances, r))
			return false;
	}
	if (conformances)
		sw_reverse(conformances, 0);
	*retro = conformances;
	size_t cap = 0;
	*n_lists = 0;
	*lists = NULL;
	for (;;) {
		sw_node *list = dm_new(d, SW_TYPE_LIST), *t;
		if (!list)
			return false;
		if (*n_lists == cap) {
			size_t ncap = cap ? cap * 2 : 4;
			sw_node **x = hg_arena_regrow(d->h->arena, *lists, cap * sizeof *x,
						      ncap * sizeof *x);
			if (!x) {
				d->h->oom = true;
				return false;
			}
			*lists = x;
			cap = ncap;
		}
		(*lists)[(*n_lists)++] = list;
		while ((t = dm_pop_kind(d, SW_TYPE)))
			if (!dm_add(d, list, t))
				return false;
		sw_reverse(list, 0);
		if (dm_pop_kind(d, SW_EMPTY_LIST))
			return true;
		if (!dm_pop_kind(d, SW_FIRST_ELEMENT_MARKER))
			return false;
	}
}

/* Entities whose generic arguments belong to their context. */
static bool consumes_generic_args(enum sw_kind k)
{
	switch (k) {
	case SW_VARIABLE: case SW_SUBSCRIPT: case SW_IMPLICIT_CLOSURE: case SW_EXPLICIT_CLOSURE:
	case SW_DEFAULT_ARGUMENT_INITIALIZER: case SW_INITIALIZER:
	case SW_PROPERTY_WRAPPER_BACKING_INITIALIZER:
	case SW_PROPERTY_WRAPPER_INIT_FROM_PROJECTED_VALUE: case SW_STATIC:
		return false;
	default:
		return true;
	}
}

static enum sw_kind bound_kind(enum sw_kind k)
{
	switch (k) {
	case SW_CLASS: return SW_BOUND_GENERIC_CLASS;
	case SW_STRUCTURE: return SW_BOUND_GENERIC_STRUCTURE;
	case SW_ENUM: return SW_BOUND_GENERIC_ENUM;
	case SW_PROTOCOL: return SW_BOUND_GENERIC_PROTOCOL;
	case SW_OTHER_NOMINAL_TYPE: return SW_BOUND_GENERIC_OTHER_NOMINAL_TYPE;
	case SW_TYPE_ALIAS: return SW_BOUND_GENERIC_TYPE_ALIAS;
	default: return SW_GLOBAL; /* none */
	}
}

/* Applies lists[at..] to nominal and its contexts, outermost first, each
 * level rebuilt around its bound parent. */
static sw_node *bound_generic_args(struct dm *d, sw_node *nominal, sw_node **lists,
				   size_t n_lists, size_t at, int depth)
{
	if (!nominal || at >= n_lists || !nominal->n || depth > HG_DEMANGLE_MAX_DEPTH)
		return NULL;
	sw_node *ctx = nominal->kids[0], *args = lists[at];
	bool consumes = consumes_generic_args(nominal->kind);
	if (consumes)
		at++;
	if (at < n_lists) {
		sw_node *parent;
		if (ctx->kind == SW_EXTENSION) {
			parent = bound_generic_args(d, sw_kid(ctx, 1), lists, n_lists, at, depth + 1);
			parent = sw_with2(d->h, SW_EXTENSION, sw_kid(ctx, 0), parent);
			if (ctx->n == 3)
				dm_add(d, parent, ctx->kids[2]);
		} else {
			parent = bound_generic_args(d, ctx, lists, n_lists, at, depth + 1);
		}
		sw_node *rebuilt = dm_with(d, nominal->kind, parent);
		if (!rebuilt)
			return NULL;
		for (unsigned i = 1; i < nominal->n; i++)
			if (!dm_add(d, rebuilt, nominal->kids[i]))
				return NULL;
		nominal = rebuilt;
	}
	if (!consumes || args->n == 0)
		return nominal;
	if (nominal->kind == SW_FUNCTION || nominal->kind == SW_CONSTRUCTOR)
		return sw_with2(d->h, SW_BOUND_GENERIC_FUNCTION, nominal, args);
	enum sw_kind kind = bound_kind(nominal->kind);
	if (kind == SW_GLOBAL)
		return NULL;
	return sw_with2(d->h, kind, dm_type(d, nominal), args);
}

sw_node *dm_bound_generic_type(struct dm *d)
{
	sw_node **lists, *retro;
	size_t n_lists;
	if (!dm_bound_generics(d, &lists, &n_lists, &retro))
		return NULL;
	sw_node *nominal = dm_pop_type_any_generic(d);
	sw_node *bound = bound_generic_args(d, nominal, lists, n_lists, 0, 0);
	if (!bound)
		return NULL;
	if (retro && !dm_add(d, bound, retro))
		return NULL;
	sw_node *t = dm_type(d, bound);
	return t && dm_add_subst(d, t) ? t : NULL;
}

/* ---- function types ---- */

sw_node *dm_clang_type(struct dm *d)
{
	long n = dm_natural(d);
	if (n <= 0 || (size_t)n > d->len - d->pos)
		return NULL;
	for (long i = 0; i < n; i++)
		if ((unsigned char)d->s[d->pos + i] < 0x20 || d->s[d->pos + i] == 0x7f)
			return NULL;
	sw_node *t = sw_text(d->h, SW_CLANG_TYPE, d->s + d->pos, (size_t)n);
	d->pos += (size_t)n;
	return t;
}

static bool is_isolation(enum sw_kind k)
{
	return k == SW_GLOBAL_ACTOR_FUNCTION_TYPE || k == SW_ISOLATED_ANY_FUNCTION_TYPE ||
	       k == SW_NON_ISOLATED_CALLER_FUNCTION_TYPE;
}

static bool is_throws(enum sw_kind k)
{
	return k == SW_THROWS_ANNOTATION || k == SW_TYPED_THROWS_ANNOTATION;
}

static sw_node *pop_function_params(struct dm *d, enum sw_kind kind)
{
	sw_node *t;
	if (dm_pop_kind(d, SW_EMPTY_LIST))
		t = dm_type(d, dm_new(d, SW_TUPLE));
	else
		t = dm_pop_kind(d, SW_TYPE);
	return dm_with(d, kind, t);
}

/* The annotations a function type carries are popped in the reverse of
 * their mangled order, and kept in that order (the printer reads them
 * so). */
sw_node *dm_pop_function_type(struct dm *d, enum sw_kind kind, bool clang_type)
{
	sw_node *f = dm_new(d, kind);
	if (clang_type && !dm_add(d, f, dm_clang_type(d)))
		return NULL;
	dm_add(d, f, dm_pop_kind(d, SW_SENDING_RESULT_FUNCTION_TYPE));
	dm_add(d, f, dm_pop_if(d, is_isolation));
	dm_add(d, f, dm_pop_kind(d, SW_DIFFERENTIABLE_FUNCTION_TYPE));
	dm_add(d, f, dm_pop_if(d, is_throws));
	dm_add(d, f, dm_pop_kind(d, SW_CONCURRENT_FUNCTION_TYPE));
	dm_add(d, f, dm_pop_kind(d, SW_ASYNC_ANNOTATION));
	f = dm_add(d, f, pop_function_params(d, SW_ARGUMENT_TUPLE));
	f = dm_add(d, f, pop_function_params(d, SW_RETURN_TYPE));
	return dm_type(d, f);
}

/* The index of a function type's ArgumentTuple, past its annotations. */
static unsigned argument_index(const sw_node *f)
{
	static const enum sw_kind order[] = {
		SW_SENDING_RESULT_FUNCTION_TYPE, SW_GLOBAL_ACTOR_FUNCTION_TYPE,
		SW_ISOLATED_ANY_FUNCTION_TYPE, SW_NON_ISOLATED_CALLER_FUNCTION_TYPE,
		SW_DIFFERENTIABLE_FUNCTION_TYPE, SW_THROWS_ANNOTATION, SW_CONCURRENT_FUNCTION_TYPE,
		SW_ASYNC_ANNOTATION,
	};
	unsigned i = 0;
	for (size_t k = 0; k < sizeof order / sizeof *order; k++) {
		const sw_node *c = sw_kid(f, i);
		if (c && (c->kind == order[k] ||
			  (order[k] == SW_THROWS_ANNOTATION && c->kind == SW_TYPED_THROWS_ANNOTATION)))
			i++;
	}
	return i;
}

/* A label, or FirstElementMarker for none: popped, or in the "_T0"
 * manglings taken out of the argument tuple's element (which Swift's
 * demangler changes in place). */
static sw_node *label(struct dm *d, sw_node *tuple, unsigned i)
{
	if (!d->old_function_types)
		return dm_pop(d);
	sw_node *param = sw_kid(tuple, i);
	for (unsigned k = 0; param && k < param->n; k++) {
		sw_node *name = param->kids[k];
		if (name->kind == SW_TUPLE_ELEMENT_NAME) {
			sw_remove(param, k);
			return sw_text(d->h, SW_IDENTIFIER, name->text, name->len);
		}
	}
	return dm_new(d, SW_FIRST_ELEMENT_MARKER);
}

/* The argument labels of a function's type: NULL when there are none (or
 * they do not fit; Swift's demangler then goes on without them). */
sw_node *dm_pop_param_labels(struct dm *d, sw_node *type, bool *bad)
{
	*bad = false;
	if (!d->old_function_types && dm_pop_kind(d, SW_EMPTY_LIST))
		return dm_new(d, SW_LABEL_LIST);
	if (!sw_is(type, SW_TYPE))
		return NULL;
	sw_node *f = sw_kid(type, 0);
	if (sw_is(f, SW_DEPENDENT_GENERIC_TYPE))
		f = sw_kid(sw_kid(f, 1), 0);
	if (!f || (f->kind != SW_FUNCTION_TYPE && f->kind != SW_NO_ESCAPE_FUNCTION_TYPE))
		return NULL;
	sw_node *params = sw_kid(sw_kid(sw_kid(f, argument_index(f)), 0), 0);
	if (!params) {
		*bad = true;
		return NULL;
	}
	unsigned n = params->kind == SW_TUPLE ? params->n : 1;
	if (n == 0)
		return NULL;
	sw_node *labels = dm_new(d, SW_LABEL_LIST);
	if (d->old_function_types && params->kind != SW_TUPLE)
		return labels;
	bool named = false;
	for (unsigned i = 0; i < n; i++) {
		sw_node *l = label(d, params, i);
		if (!l || (l->kind != SW_IDENTIFIER && l->kind != SW_FIRST_ELEMENT_MARKER))
			return NULL;
		if (!dm_add(d, labels, l))
			return NULL;
		named = named || l->kind != SW_FIRST_ELEMENT_MARKER;
	}
	if (!named)
		return dm_new(d, SW_LABEL_LIST);
	if (!d->old_function_types)
		sw_reverse(labels, 0);
	return labels;
}

/* ---- protocol lists ---- */

static sw_node *pop_protocol_elt(struct dm *d)
{
	return dm_pop_protocol(d);
}

sw_node *dm_protocol_list_node(struct dm *d)
{
	return dm_with(d, SW_PROTOCOL_LIST, pop_list(d, dm_new(d, SW_TYPE_LIST), pop_protocol_elt));
}

sw_node *dm_protocol_list(struct dm *d)
{
	return dm_type(d, dm_protocol_list_node(d));
}
