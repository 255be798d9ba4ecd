/* SIL function types ("I..."): the types of reabstraction thunks, which
 * iOS stacks carry between every block and the Swift closure it calls.
 * Substitutions, the generic signature, attributes and conventions, then
 * each parameter, result, yield and error with its convention; their types
 * were mangled before and are popped last. */
#include "demangle_swift_dm.h"

static sw_node *convention(struct dm *d, enum sw_kind kind, const char *attr)
{
	return dm_with(d, kind, sw_cstr(d->h, SW_IMPL_CONVENTION, attr));
}

/* A parameter's (or yield's) convention, or NULL with nothing read. */
static sw_node *param_convention(struct dm *d, enum sw_kind kind)
{
	static const struct { char code; const char *attr; } table[] = {
		{'i', "@in"}, {'c', "@in_constant"}, {'l', "@inout"}, {'b', "@inout_aliasable"},
		{'n', "@in_guaranteed"}, {'X', "@in_cxx"}, {'x', "@owned"}, {'g', "@guaranteed"},
		{'e', "@deallocating"}, {'y', "@unowned"}, {'v', "@pack_owned"},
		{'p', "@pack_guaranteed"}, {'m', "@pack_inout"},
	};
	char c = dm_peek(d);
	for (size_t i = 0; c && i < sizeof table / sizeof *table; i++)
		if (table[i].code == c) {
			d->pos++;
			return convention(d, kind, table[i].attr);
		}
	return NULL;
}

static sw_node *result_convention(struct dm *d, enum sw_kind kind)
{
	static const struct { char code; const char *attr; } table[] = {
		{'r', "@out"}, {'o', "@owned"}, {'d', "@unowned"}, {'u', "@unowned_inner_pointer"},
		{'a', "@autoreleased"}, {'k', "@pack_out"},
	};
	char c = dm_peek(d);
	for (size_t i = 0; c && i < sizeof table / sizeof *table; i++)
		if (table[i].code == c) {
			d->pos++;
			return convention(d, kind, table[i].attr);
		}
	return NULL;
}

/* "s" pattern or "I" invocation substitutions: one list of types. */
static bool substitutions(struct dm *d, sw_node *type, enum sw_kind kind)
{
	sw_node **lists, *retro, *sig = NULL;
	size_t n_lists;
	if (!dm_bound_generics(d, &lists, &n_lists, &retro))
		return false;
	if (kind == SW_IMPL_PATTERN_SUBSTITUTIONS &&
	    !(sig = dm_pop_kind(d, SW_DEPENDENT_GENERIC_SIGNATURE)))
		return false;
	if (n_lists != 1)
		return false;
	sw_node *subs = dm_new(d, kind);
	if (sig)
		subs = dm_add(d, subs, sig);
	subs = dm_add(d, subs, lists[0]);
	if (retro)
		subs = dm_add(d, subs, retro);
	return dm_add(d, type, subs) != NULL;
}

/* The function convention ("B", "C", "zB"/"zC" with a clang type, "M",
 * "O", "K", "W"): true with nothing read when there is none. */
static bool function_convention(struct dm *d, sw_node *type)
{
	static const struct { char code; const char *name; } table[] = {
		{'B', "block"}, {'C', "c"}, {'M', "method"}, {'O', "objc_method"}, {'K', "closure"},
		{'W', "witness_method"},
	};
	bool clang = d->pos + 1 < d->len && dm_peek(d) == 'z' &&
		     (d->s[d->pos + 1] == 'B' || d->s[d->pos + 1] == 'C');
	if (clang)
		d->pos++;
	char c = dm_peek(d);
	for (size_t i = 0; c && i < sizeof table / sizeof *table; i++) {
		if (table[i].code != c)
			continue;
		d->pos++;
		sw_node *conv = dm_with(d, SW_IMPL_FUNCTION_CONVENTION,
					sw_cstr(d->h, SW_IMPL_FUNCTION_CONVENTION_NAME, table[i].name));
		if (clang && !dm_add(d, conv, dm_clang_type(d)))
			return false;
		return dm_add(d, type, conv) != NULL;
	}
	return true;
}

/* Attributes up to the parameters, in their mangled order. */
static bool attributes(struct dm *d, sw_node *type)
{
	if (dm_next_if(d, 'e') && !dm_add(d, type, dm_new(d, SW_IMPL_ESCAPING)))
		return false;
	if (dm_next_if(d, 'A') && !dm_add(d, type, dm_new(d, SW_IMPL_ERASED_ISOLATION)))
		return false;
	char c = dm_peek(d);
	if ((c == 'd' || c == 'l' || c == 'f' || c == 'r') &&
	    !dm_add(d, type, sw_index(d->h, SW_IMPL_DIFFERENTIABILITY_KIND, (uint64_t)dm_next(d))))
		return false;
	const char *callee;
	switch (dm_next(d)) {
	case 'y': callee = "@callee_unowned"; break;
	case 'g': callee = "@callee_guaranteed"; break;
	case 'x': callee = "@callee_owned"; break;
	case 't': callee = "@convention(thin)"; break;
	default: return false;
	}
	if (!dm_add(d, type, sw_cstr(d->h, SW_IMPL_CONVENTION, callee)) || !function_convention(d, type))
		return false;
	const char *coroutine = dm_next_if(d, 'A') ? "yield_once"
			      : dm_next_if(d, 'I') ? "yield_once_2"
			      : dm_next_if(d, 'G') ? "yield_many" : NULL;
	if (coroutine && !dm_add(d, type, sw_cstr(d->h, SW_IMPL_COROUTINE_KIND, coroutine)))
		return false;
	if (dm_next_if(d, 'h') && !dm_add(d, type, sw_cstr(d->h, SW_IMPL_FUNCTION_ATTRIBUTE, "@Sendable")))
		return false;
	if (dm_next_if(d, 'H') && !dm_add(d, type, sw_cstr(d->h, SW_IMPL_FUNCTION_ATTRIBUTE, "@async")))
		return false;
	if (dm_next_if(d, 'T') && !dm_add(d, type, dm_new(d, SW_IMPL_SENDING_RESULT)))
		return false;
	return true;
}

/* A parameter's differentiability ("w": not differentiable; an empty one
 * otherwise, as Swift keeps), sending, isolated and implicit leading. */
static sw_node *param_flags(struct dm *d, sw_node *param)
{
	param = dm_add(d, param, sw_cstr(d->h, SW_IMPL_PARAMETER_RESULT_DIFFERENTIABILITY,
					  dm_next_if(d, 'w') ? "@noDerivative" : ""));
	if (param && dm_next_if(d, 'T'))
		param = dm_add(d, param, sw_cstr(d->h, SW_IMPL_PARAMETER_SENDING, "sending"));
	if (param && dm_next_if(d, 'I'))
		param = dm_add(d, param, sw_cstr(d->h, SW_IMPL_PARAMETER_ISOLATED, "isolated"));
	if (param && dm_next_if(d, 'L'))
		param = dm_add(d, param, sw_cstr(d->h, SW_IMPL_PARAMETER_IMPLICIT_LEADING,
						  "sil_implicit_leading_param"));
	return param;
}

static bool parameters_and_results(struct dm *d, sw_node *type, long *n_types)
{
	sw_node *p;
	while ((p = param_convention(d, SW_IMPL_PARAMETER))) {
		if (!dm_add(d, type, p) || !param_flags(d, p))
			return false;
		++*n_types;
	}
	while ((p = result_convention(d, SW_IMPL_RESULT))) {
		if (!dm_add(d, type, p))
			return false;
		if (!dm_add(d, p, sw_cstr(d->h, SW_IMPL_PARAMETER_RESULT_DIFFERENTIABILITY,
					  dm_next_if(d, 'w') ? "@noDerivative" : "")))
			return false;
		++*n_types;
	}
	while (dm_next_if(d, 'Y')) {
		if (!dm_add(d, type, param_convention(d, SW_IMPL_YIELD)))
			return false;
		++*n_types;
	}
	if (dm_next_if(d, 'z')) {
		if (!dm_add(d, type, result_convention(d, SW_IMPL_ERROR_RESULT)))
			return false;
		++*n_types;
	}
	return dm_next_if(d, '_');
}

sw_node *dm_impl_function_type(struct dm *d)
{
	sw_node *type = dm_new(d, SW_IMPL_FUNCTION_TYPE);
	if (!type)
		return NULL;
	if (dm_next_if(d, 's') && !substitutions(d, type, SW_IMPL_PATTERN_SUBSTITUTIONS))
		return NULL;
	if (dm_next_if(d, 'I') && !substitutions(d, type, SW_IMPL_INVOCATION_SUBSTITUTIONS))
		return NULL;
	sw_node *sig = dm_pop_kind(d, SW_DEPENDENT_GENERIC_SIGNATURE);
	if (sig && dm_next_if(d, 'P'))
		sig = sw_change_kind(d->h, sig, SW_DEPENDENT_PSEUDOGENERIC_SIGNATURE);
	if (!attributes(d, type))
		return NULL;
	if (sig && !dm_add(d, type, sig))
		return NULL;
	long n_types = 0;
	if (!parameters_and_results(d, type, &n_types))
		return NULL;
	for (long i = 0; i < n_types; i++) {
		sw_node *t = dm_pop_kind(d, SW_TYPE);
		if (!t || !dm_add(d, type->kids[type->n - 1 - (unsigned)i], t))
			return NULL;
	}
	return dm_type(d, type);
}
