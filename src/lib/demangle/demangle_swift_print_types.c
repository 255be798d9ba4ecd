/* Printing types (see demangle_swift_print.h): function types and their
 * parameters, bound generic types with Swift's sugar, tuples and packs,
 * metatypes and existentials, dependent and opaque types. */
#include "demangle_swift_print.h"

bool pr_need_space_before_type(const sw_node *t)
{
	while (t && t->kind == SW_TYPE)
		t = sw_kid(t, 0);
	return !t || (t->kind != SW_FUNCTION_TYPE && t->kind != SW_NO_ESCAPE_FUNCTION_TYPE &&
		      t->kind != SW_UNCURRIED_FUNCTION_TYPE && t->kind != SW_DEPENDENT_GENERIC_TYPE);
}

bool pr_is_function_type(enum sw_kind k)
{
	switch (k) {
	case SW_FUNCTION_TYPE: case SW_UNCURRIED_FUNCTION_TYPE: case SW_NO_ESCAPE_FUNCTION_TYPE:
	case SW_AUTO_CLOSURE_TYPE: case SW_ESCAPING_AUTO_CLOSURE_TYPE: case SW_THIN_FUNCTION_TYPE:
	case SW_C_FUNCTION_POINTER: case SW_OBJC_BLOCK: case SW_ESCAPING_OBJC_BLOCK:
		return true;
	default:
		return false;
	}
}

/* Swift's isSimpleType: a type printed without parentheses before "?"
 * or ".Type". */
static bool is_simple_type(struct pr *p, const sw_node *n)
{
	for (int i = 0; n && i < 64; i++) {
		switch (n->kind) {
		case SW_ASSOCIATED_TYPE: case SW_ASSOCIATED_TYPE_REF: case SW_BOUND_GENERIC_CLASS:
		case SW_BOUND_GENERIC_ENUM: case SW_BOUND_GENERIC_STRUCTURE: case SW_BOUND_GENERIC_PROTOCOL:
		case SW_BOUND_GENERIC_OTHER_NOMINAL_TYPE: case SW_BOUND_GENERIC_TYPE_ALIAS:
		case SW_BOUND_GENERIC_FUNCTION: case SW_BUILTIN_TYPE_NAME: case SW_BUILTIN_TUPLE_TYPE:
		case SW_BUILTIN_FIXED_ARRAY: case SW_CLASS: case SW_DEPENDENT_GENERIC_TYPE:
		case SW_DEPENDENT_MEMBER_TYPE: case SW_DEPENDENT_GENERIC_PARAM_TYPE: case SW_DYNAMIC_SELF:
		case SW_ENUM: case SW_ERROR_TYPE: case SW_EXISTENTIAL_METATYPE: case SW_METATYPE:
		case SW_METATYPE_REPRESENTATION: case SW_MODULE: case SW_TUPLE: case SW_PACK:
		case SW_SIL_PACK_DIRECT: case SW_SIL_PACK_INDIRECT:
		case SW_CONSTRAINED_EXISTENTIAL_REQUIREMENT_LIST: case SW_CONSTRAINED_EXISTENTIAL_SELF:
		case SW_PROTOCOL: case SW_PROTOCOL_SYMBOLIC_REFERENCE: case SW_RETURN_TYPE:
		case SW_SIL_BOX_TYPE: case SW_SIL_BOX_TYPE_WITH_LAYOUT: case SW_STRUCTURE:
		case SW_OTHER_NOMINAL_TYPE: case SW_TUPLE_ELEMENT_NAME: case SW_TYPE_ALIAS: case SW_TYPE_LIST:
		case SW_LABEL_LIST: case SW_TYPE_SYMBOLIC_REFERENCE: case SW_SUGARED_OPTIONAL:
		case SW_SUGARED_ARRAY: case SW_SUGARED_INLINE_ARRAY: case SW_SUGARED_DICTIONARY:
		case SW_SUGARED_PAREN: case SW_INTEGER: case SW_NEGATIVE_INTEGER:
			return true;
		case SW_TYPE:
			n = kid(p, n, 0);
			continue;
		case SW_PROTOCOL_LIST: {
			const sw_node *list = kid(p, n, 0);
			return list && list->n <= 1;
		}
		case SW_PROTOCOL_LIST_WITH_ANY_OBJECT: {
			const sw_node *list = kid(p, kid(p, n, 0), 0);
			return list && list->n == 0;
		}
		default:
			return false;
		}
	}
	return false;
}

static void print_with_parens(struct pr *p, const sw_node *t, int depth)
{
	bool parens = !is_simple_type(p, t);
	if (parens)
		put(p, "(");
	pr_node(p, t, depth + 1, false);
	if (parens)
		put(p, ")");
}

/* ---- function types ---- */

static void print_parameters(struct pr *p, const sw_node *labels, const sw_node *args, int depth)
{
	if (!sw_is(args, SW_ARGUMENT_TUPLE)) {
		p->bad = true;
		return;
	}
	const sw_node *params = kid(p, kid(p, args, 0), 0);
	if (!params)
		return;
	if (params->kind != SW_TUPLE) {
		put(p, "(");
		pr_node(p, params, depth + 1, false);
		put(p, ")");
		return;
	}
	bool has_labels = labels && labels->n > 0;
	put(p, "(");
	for (unsigned i = 0; i < params->n && !p->bad; i++) {
		if (i)
			put(p, ", ");
		if (has_labels) {
			const sw_node *l = kid(p, labels, i);
			if (!l)
				return;
			if (l->kind == SW_IDENTIFIER)
				put_text(p, l);
			else
				put(p, "_");
			put(p, ": ");
		}
		pr_node(p, params->kids[i], depth + 1, false);
	}
	put(p, ")");
}

static void convention_with_c_type(struct pr *p, const sw_node *f, const char *convention, int depth)
{
	put(p, "@convention(");
	put(p, convention);
	if (sw_is(sw_kid(f, 0), SW_CLANG_TYPE)) {
		put(p, ", mangledCType: \"");
		pr_kid(p, f, 0, depth);
		put(p, "\"");
	}
	put(p, ") ");
}

void pr_function_type(struct pr *p, const sw_node *labels, const sw_node *f, int depth)
{
	if (!f || f->n < 2 || !pr_is_function_type(f->kind)) {
		p->bad = true;
		return;
	}
	switch (f->kind) {
	case SW_AUTO_CLOSURE_TYPE: case SW_ESCAPING_AUTO_CLOSURE_TYPE: put(p, "@autoclosure "); break;
	case SW_THIN_FUNCTION_TYPE: put(p, "@convention(thin) "); break;
	case SW_C_FUNCTION_POINTER: convention_with_c_type(p, f, "c", depth); break;
	case SW_ESCAPING_OBJC_BLOCK: put(p, "@escaping "); convention_with_c_type(p, f, "block", depth); break;
	case SW_OBJC_BLOCK: convention_with_c_type(p, f, "block", depth); break;
	default: break;
	}
	unsigned arg = f->n - 2, i = 0;
	bool sendable = false, async = false, sending = false;
	const sw_node *nonisolated = NULL, *thrown = NULL, *diff = NULL;
	if (sw_is(sw_kid(f, i), SW_CLANG_TYPE))
		i++;
	if (sw_is(sw_kid(f, i), SW_SENDING_RESULT_FUNCTION_TYPE))
		i++, sending = true;
	if (sw_is(sw_kid(f, i), SW_ISOLATED_ANY_FUNCTION_TYPE))
		pr_node(p, f->kids[i++], depth + 1, false);
	if (sw_is(sw_kid(f, i), SW_NON_ISOLATED_CALLER_FUNCTION_TYPE))
		nonisolated = f->kids[i++];
	if (sw_is(sw_kid(f, i), SW_GLOBAL_ACTOR_FUNCTION_TYPE))
		pr_node(p, f->kids[i++], depth + 1, false);
	if (sw_is(sw_kid(f, i), SW_DIFFERENTIABLE_FUNCTION_TYPE))
		diff = f->kids[i++];
	if (sw_is(sw_kid(f, i), SW_THROWS_ANNOTATION) || sw_is(sw_kid(f, i), SW_TYPED_THROWS_ANNOTATION))
		thrown = f->kids[i++];
	if (sw_is(sw_kid(f, i), SW_CONCURRENT_FUNCTION_TYPE))
		i++, sendable = true;
	if (sw_is(sw_kid(f, i), SW_ASYNC_ANNOTATION))
		i++, async = true;
	if (diff) {
		switch (diff->index) {
		case 'f': put(p, "@differentiable(_forward) "); break;
		case 'r': put(p, "@differentiable(reverse) "); break;
		case 'l': put(p, "@differentiable(_linear) "); break;
		case 'd': put(p, "@differentiable "); break;
		default: p->bad = true; return;
		}
	}
	if (nonisolated)
		pr_node(p, nonisolated, depth + 1, false);
	if (sendable)
		put(p, "@Sendable ");
	print_parameters(p, labels, f->kids[arg], depth);
	if (async)
		put(p, " async");
	if (thrown)
		pr_node(p, thrown, depth + 1, false);
	put(p, " -> ");
	if (sending)
		put(p, "sending ");
	pr_node(p, f->kids[arg + 1], depth + 1, false);
}

/* ---- bound generics ---- */

static void bound_generic_no_sugar(struct pr *p, const sw_node *n, int depth)
{
	if (n->n < 2)
		return;
	pr_kid(p, n, 0, depth);
	put(p, "<");
	pr_children(p, n->kids[1], depth, ", ");
	put(p, ">");
}

static bool is_swift_named(const sw_node *unbound, const char *name)
{
	const sw_node *id = sw_kid(unbound, 1), *module = sw_kid(unbound, 0);
	return sw_is(id, SW_IDENTIFIER) && sw_text_is(id, name) && sw_is(module, SW_MODULE) &&
	       sw_text_is(module, "Swift");
}

static void bound_generic(struct pr *p, const sw_node *n, int depth)
{
	if (n->n < 2)
		return;
	if (n->n != 2 || !p->sugar || n->kind == SW_BOUND_GENERIC_CLASS) {
		bound_generic_no_sugar(p, n, depth);
		return;
	}
	if (n->kind == SW_BOUND_GENERIC_PROTOCOL) {
		pr_children(p, n->kids[1], depth, NULL);
		put(p, " as ");
		pr_kid(p, n, 0, depth);
		return;
	}
	const sw_node *args = n->kids[1], *unbound = NULL;
	if (n->kind == SW_BOUND_GENERIC_ENUM || n->kind == SW_BOUND_GENERIC_STRUCTURE) {
		if (!(unbound = kid(p, kid(p, n, 0), 0)))
			return;
		if (!sw_kid(unbound, 1)) {
			p->bad = true; /* Swift would read past the kids */
			return;
		}
	}
	if (n->kind == SW_BOUND_GENERIC_ENUM && args->n == 1 &&
	    (is_swift_named(unbound, "Optional") || is_swift_named(unbound, "ImplicitlyUnwrappedOptional"))) {
		print_with_parens(p, args->kids[0], depth);
		put(p, is_swift_named(unbound, "Optional") ? "?" : "!");
	} else if (n->kind == SW_BOUND_GENERIC_STRUCTURE && args->n == 1 && is_swift_named(unbound, "Array")) {
		put(p, "[");
		pr_node(p, args->kids[0], depth + 1, false);
		put(p, "]");
	} else if (n->kind == SW_BOUND_GENERIC_STRUCTURE && args->n == 2 &&
		   is_swift_named(unbound, "Dictionary")) {
		put(p, "[");
		pr_node(p, args->kids[0], depth + 1, false);
		put(p, " : ");
		pr_node(p, args->kids[1], depth + 1, false);
		put(p, "]");
	} else {
		bound_generic_no_sugar(p, n, depth);
	}
}

/* ---- metatypes and existentials ---- */

static bool is_existential(const sw_node *t)
{
	return t && (t->kind == SW_EXISTENTIAL_METATYPE || t->kind == SW_PROTOCOL_LIST ||
		     t->kind == SW_PROTOCOL_LIST_WITH_CLASS || t->kind == SW_PROTOCOL_LIST_WITH_ANY_OBJECT);
}

static void metatype(struct pr *p, const sw_node *n, int depth)
{
	unsigned i = 0;
	if (n->n == 2) {
		pr_kid(p, n, i++, depth);
		put(p, " ");
	}
	const sw_node *t = n->kind == SW_METATYPE ? kid(p, kid(p, n, i), 0) : kid(p, n, i);
	if (!t)
		return;
	if (n->kind == SW_METATYPE) {
		print_with_parens(p, t, depth);
		put(p, is_existential(t) ? ".Protocol" : ".Type");
	} else {
		pr_node(p, t, depth + 1, false);
		put(p, ".Type");
	}
}

static void protocol_list(struct pr *p, const sw_node *n, int depth)
{
	const sw_node *list;
	switch (n->kind) {
	case SW_PROTOCOL_LIST:
		if (!(list = kid(p, n, 0)))
			return;
		if (list->n == 0)
			put(p, "Any");
		else
			pr_children(p, list, depth, " & ");
		return;
	case SW_PROTOCOL_LIST_WITH_CLASS:
		if (n->n < 2)
			return;
		pr_kid(p, n, 1, depth);
		put(p, " & ");
		if (n->kids[0]->n < 1)
			return;
		pr_children(p, n->kids[0]->kids[0], depth, " & ");
		return;
	default: /* with AnyObject */
		if (n->n < 1 || n->kids[0]->n < 1)
			return;
		list = n->kids[0]->kids[0];
		if (list->n > 0) {
			pr_children(p, list, depth, " & ");
			put(p, " & ");
		}
		put(p, "Swift.AnyObject");
	}
}

/* ---- the rest of the types ---- */

static void between(struct pr *p, const sw_node *n, int depth, const char *a, const char *b,
		    const char *c)
{
	put(p, a);
	pr_kid(p, n, 0, depth);
	put(p, b);
	pr_kid(p, n, 1, depth);
	put(p, c);
}

static void tuple_element(struct pr *p, const sw_node *n, int depth)
{
	const sw_node *label = kid_of_kind(n, SW_TUPLE_ELEMENT_NAME);
	if (label) {
		put_text(p, label);
		put(p, ": ");
	}
	const sw_node *t = kid_of_kind(n, SW_TYPE);
	if (!t) {
		p->bad = true;
		return;
	}
	pr_node(p, t, depth + 1, false);
	if (kid_of_kind(n, SW_VARIADIC_MARKER))
		put(p, "...");
}

static bool dependent_type(struct pr *p, const sw_node *n, int depth)
{
	const sw_node *a, *b;
	switch (n->kind) {
	case SW_DEPENDENT_GENERIC_PARAM_TYPE:
		if ((a = kid(p, n, 0)) && (b = kid(p, n, 1)))
			pr_generic_param_name(p, a->index, b->index);
		return true;
	case SW_DEPENDENT_GENERIC_TYPE:
		pr_kid(p, n, 0, depth);
		if ((b = kid(p, n, 1)) && pr_need_space_before_type(b))
			put(p, " ");
		pr_kid(p, n, 1, depth);
		return true;
	case SW_DEPENDENT_MEMBER_TYPE: between(p, n, depth, "", ".", ""); return true;
	case SW_DEPENDENT_ASSOCIATED_TYPE_REF:
		if (n->n > 1) {
			pr_kid(p, n, 1, depth);
			put(p, ".");
		}
		pr_kid(p, n, 0, depth);
		return true;
	case SW_ASSOCIATED_TYPE_REF:
		pr_kid(p, n, 0, depth);
		put(p, ".");
		if ((b = kid(p, n, 1)))
			put_text(p, b);
		return true;
	case SW_OPAQUE_TYPE: between(p, n, depth, "", ".", ""); return true;
	case SW_OPAQUE_RETURN_TYPE_OF:
		put(p, "<<opaque return type of ");
		pr_children(p, n, depth, NULL);
		put(p, ">>");
		return true;
	default:
		return pr_generics_node(p, n, depth);
	}
}

static bool function_annotation(struct pr *p, const sw_node *n, int depth)
{
	switch (n->kind) {
	case SW_DIFFERENTIABLE_FUNCTION_TYPE:
		put(p, "@differentiable");
		switch (n->index) {
		case 'f': put(p, "(_forward)"); break;
		case 'r': put(p, "(reverse)"); break;
		case 'l': put(p, "(_linear)"); break;
		case 'd': break;
		default: p->bad = true; break;
		}
		put(p, " ");
		return true;
	case SW_GLOBAL_ACTOR_FUNCTION_TYPE:
		if (n->n > 0) {
			put(p, "@");
			pr_kid(p, n, 0, depth);
			put(p, " ");
		}
		return true;
	case SW_TYPED_THROWS_ANNOTATION:
		put(p, " throws(");
		if (n->n == 1)
			pr_kid(p, n, 0, depth);
		put(p, ")");
		return true;
	case SW_TYPE_MANGLING:
		if (sw_is(sw_kid(n, 0), SW_LABEL_LIST))
			pr_function_type(p, n->kids[0], kid(p, kid(p, n, 1), 0), depth);
		else
			pr_kid(p, n, 0, depth);
		return true;
	case SW_ARGUMENT_TUPLE:
		print_parameters(p, NULL, n, depth);
		return true;
	default:
		if (!pr_is_function_type(n->kind))
			return false;
		pr_function_type(p, NULL, n, depth);
		return true;
	}
}

bool pr_types_node(struct pr *p, const sw_node *n, int depth)
{
	const sw_node *k;
	switch (n->kind) {
	case SW_BOUND_GENERIC_CLASS: case SW_BOUND_GENERIC_STRUCTURE: case SW_BOUND_GENERIC_ENUM:
	case SW_BOUND_GENERIC_PROTOCOL: case SW_BOUND_GENERIC_OTHER_NOMINAL_TYPE:
	case SW_BOUND_GENERIC_TYPE_ALIAS:
		bound_generic(p, n, depth);
		return true;
	case SW_METATYPE: case SW_EXISTENTIAL_METATYPE: metatype(p, n, depth); return true;
	case SW_PROTOCOL_LIST: case SW_PROTOCOL_LIST_WITH_CLASS: case SW_PROTOCOL_LIST_WITH_ANY_OBJECT:
		protocol_list(p, n, depth);
		return true;
	case SW_CONSTRAINED_EXISTENTIAL: between(p, n, depth, "any ", "<", ">"); return true;
	case SW_CONSTRAINED_EXISTENTIAL_REQUIREMENT_LIST: pr_children(p, n, depth, ", "); return true;
	case SW_TUPLE: put(p, "("); pr_children(p, n, depth, ", "); put(p, ")"); return true;
	case SW_TUPLE_ELEMENT: tuple_element(p, n, depth); return true;
	case SW_PACK: put(p, "Pack{"); pr_children(p, n, depth, ", "); put(p, "}"); return true;
	case SW_SIL_PACK_DIRECT: case SW_SIL_PACK_INDIRECT:
		put(p, n->kind == SW_SIL_PACK_DIRECT ? "@direct Pack{" : "@indirect Pack{");
		pr_children(p, n, depth, ", ");
		put(p, "}");
		return true;
	case SW_PACK_ELEMENT:
		put(p, "/* level: ");
		if ((k = kid(p, n, 1)))
			put_u64(p, k->index);
		put(p, " */ each ");
		pr_kid(p, n, 0, depth);
		return true;
	case SW_SUGARED_OPTIONAL:
		if ((k = kid(p, n, 0)))
			print_with_parens(p, k, depth);
		put(p, "?");
		return true;
	case SW_SUGARED_ARRAY: put(p, "["); pr_kid(p, n, 0, depth); put(p, "]"); return true;
	case SW_SUGARED_PAREN: put(p, "("); pr_kid(p, n, 0, depth); put(p, ")"); return true;
	case SW_SUGARED_INLINE_ARRAY: between(p, n, depth, "[", " of ", "]"); return true;
	case SW_SUGARED_DICTIONARY: between(p, n, depth, "[", " : ", "]"); return true;
	case SW_BUILTIN_FIXED_ARRAY: between(p, n, depth, "Builtin.FixedArray<", ", ", ">"); return true;
	default:
		return dependent_type(p, n, depth) || function_annotation(p, n, depth);
	}
}
