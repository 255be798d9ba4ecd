/* SIL function types ("I...": the types of reabstraction thunks, which
 * iOS stacks carry between every block and the Swift closure it calls):
 * callee and function conventions, attributes, then each parameter and
 * result with its convention, their types popped at the end.  Pattern and
 * invocation substitutions, pseudogeneric signatures, differentiability,
 * clang types and coroutine yields are not supported. */
#include "demangle_swift_ops.h"

static sw_node *convention(struct sw *p, enum sw_kind kind, const char *attr)
{
	return sw_with(p, kind, sw_cstr(p, SW_IMPL_CONVENTION, attr));
}

/* A parameter's convention, or NULL (nothing read) when none follows. */
static sw_node *param_convention(struct sw *p)
{
	const char *attr;
	switch (sw_peek(p)) {
	case 'i': attr = "@in"; break;
	case 'c': attr = "@in_constant"; break;
	case 'l': attr = "@inout"; break;
	case 'b': attr = "@inout_aliasable"; break;
	case 'n': attr = "@in_guaranteed"; break;
	case 'x': attr = "@owned"; break;
	case 'g': attr = "@guaranteed"; break;
	case 'e': attr = "@deallocating"; break;
	case 'y': attr = "@unowned"; break;
	default: return NULL;
	}
	p->pos++;
	return convention(p, SW_IMPL_PARAMETER, attr);
}

static const char *result_attr(char c)
{
	switch (c) {
	case 'r': return "@out";
	case 'o': return "@owned";
	case 'd': return "@unowned";
	case 'u': return "@unowned_inner_pointer";
	case 'a': return "@autoreleased";
	default: return NULL;
	}
}

static const char *function_convention(char c)
{
	switch (c) {
	case 'B': return "block";
	case 'C': return "c";
	case 'M': return "method";
	case 'O': return "objc_method";
	case 'K': return "closure";
	case 'W': return "witness_method";
	default: return NULL;
	}
}

/* Attributes, up to the first parameter: escaping, callee, convention,
 * @Sendable, @async, the generic signature. */
static sw_node *attributes(struct sw *p, sw_node *type)
{
	if (sw_peek(p) == 's' || sw_peek(p) == 'I')
		return NULL; /* substitutions */
	sw_node *sig = sw_pop_kind(p, SW_DEPENDENT_GENERIC_SIGNATURE);
	if (sig && sw_peek(p) == 'P')
		return NULL; /* pseudogeneric */
	if (sw_next_if(p, 'e'))
		type = sw_add(p, type, sw_new(p, SW_IMPL_ESCAPING));
	const char *callee;
	switch (sw_next(p)) {
	case 'y': callee = "@callee_unowned"; break;
	case 'g': callee = "@callee_guaranteed"; break;
	case 'x': callee = "@callee_owned"; break;
	case 't': callee = "@convention(thin)"; break;
	default: return NULL; /* also the differentiability kinds */
	}
	type = sw_add(p, type, sw_cstr(p, SW_IMPL_CONVENTION, callee));
	const char *conv = function_convention(sw_peek(p));
	if (conv) {
		p->pos++;
		type = sw_add(p, type, sw_cstr(p, SW_IMPL_FUNCTION_CONVENTION, conv));
	} else if (sw_peek(p) == 'z') {
		return NULL; /* a clang type */
	}
	if (sw_peek(p) == 'A' || sw_peek(p) == 'G')
		return NULL; /* coroutines */
	if (sw_next_if(p, 'h'))
		type = sw_add(p, type, sw_cstr(p, SW_IMPL_FUNCTION_ATTRIBUTE, "@Sendable"));
	if (sw_next_if(p, 'H'))
		type = sw_add(p, type, sw_cstr(p, SW_IMPL_FUNCTION_ATTRIBUTE, "@async"));
	return sig ? sw_add(p, type, sig) : type;
}

sw_node *sw_impl_function_type(struct sw *p)
{
	sw_node *type = attributes(p, sw_new(p, SW_IMPL_FUNCTION_TYPE));
	unsigned types = 0;
	sw_node *c;
	while (type && (c = param_convention(p))) {
		if (sw_peek(p) == 'w')
			return NULL; /* @noDerivative */
		type = sw_add(p, type, c);
		types++;
	}
	const char *attr;
	while (type && (attr = result_attr(sw_peek(p)))) {
		p->pos++;
		if (sw_peek(p) == 'w')
			return NULL;
		type = sw_add(p, type, convention(p, SW_IMPL_RESULT, attr));
		types++;
	}
	if (type && sw_next_if(p, 'z')) {
		attr = result_attr(sw_next(p));
		type = attr ? sw_add(p, type, convention(p, SW_IMPL_ERROR_RESULT, attr)) : NULL;
		types++;
	}
	if (!type || !sw_next_if(p, '_'))
		return NULL; /* also yields ("Y") and sending results ("T") */
	/* The types were pushed in order: the last one belongs to the last
	 * parameter or result. */
	for (unsigned i = 0; i < types; i++) {
		sw_node *t = sw_pop_kind(p, SW_TYPE);
		if (!t || !sw_add(p, type->kids[type->n - 1 - i], t))
			return NULL;
	}
	return sw_type(p, type);
}
