/* Printing Swift types as Swift's demangler does: tuples, function
 * types with their attributes, sugar for Optional, Array and Dictionary,
 * generic signatures and their requirements. */
#include "hangar/demangle.h"
#include "demangle_swift_print.h"

static void impl_function_type(struct pr *p, const sw_node *n);

/* 1 simple (no parentheses needed around it before '?' or ".Type"), 0
 * not; a kind this printer has not been taught either way fails. */
static int simple_type(struct pr *p, const sw_node *n)
{
	switch (n->kind) {
	case SW_TYPE:
		return n->n ? simple_type(p, n->kids[0]) : (p->bad = true, 0);
	case SW_BOUND_GENERIC_CLASS: case SW_BOUND_GENERIC_ENUM: case SW_BOUND_GENERIC_STRUCTURE:
	case SW_BOUND_GENERIC_TYPE_ALIAS: case SW_BUILTIN_TYPE_NAME: case SW_CLASS:
	case SW_DEPENDENT_GENERIC_TYPE: case SW_DEPENDENT_MEMBER_TYPE:
	case SW_DEPENDENT_GENERIC_PARAM_TYPE: case SW_DYNAMIC_SELF: case SW_ENUM: case SW_METATYPE:
	case SW_MODULE: case SW_TUPLE: case SW_PROTOCOL: case SW_STRUCTURE: case SW_TYPE_ALIAS:
	case SW_EXISTENTIAL_METATYPE:
		return 1;
	case SW_PROTOCOL_LIST:
		return n->n && n->kids[0]->n <= 1;
	case SW_FUNCTION_TYPE: case SW_NO_ESCAPE_FUNCTION_TYPE: case SW_C_FUNCTION_POINTER:
	case SW_OBJC_BLOCK: case SW_ESCAPING_OBJC_BLOCK: case SW_IMPL_FUNCTION_TYPE:
	case SW_INOUT: case SW_SHARED:
	case SW_OWNED: case SW_WEAK: case SW_UNOWNED: case SW_UNMANAGED:
		return 0;
	default:
		p->bad = true;
		return 0;
	}
}

bool pr_need_space_before_type(const sw_node *n)
{
	while (n->kind == SW_TYPE && n->n)
		n = n->kids[0];
	return n->kind != SW_FUNCTION_TYPE && n->kind != SW_NO_ESCAPE_FUNCTION_TYPE &&
	       n->kind != SW_DEPENDENT_GENERIC_TYPE;
}

/* "A", "B", ..., "Z", "AB", ...; a depth after the first: "A1". */
static void put_param_name(struct pr *p, uint64_t depth, uint64_t index)
{
	char name[16];
	size_t n = 0;
	do {
		name[n++] = (char)('A' + index % 26);
		index /= 26;
	} while (index && n < sizeof name - 1);
	hg_buf_add(p->out, name, n);
	if (depth)
		put_num(p, depth);
}

static bool is_swift_type(const sw_node *n, enum sw_kind kind, const char *name)
{
	while (n->kind == SW_TYPE && n->n == 1)
		n = n->kids[0];
	return n->kind == kind && n->n == 2 && n->kids[0]->kind == SW_MODULE &&
	       text_is(n->kids[0], "Swift") && text_is(n->kids[1], name);
}

static void print_bound_generic(struct pr *p, const sw_node *n)
{
	const sw_node *base = kid(p, n, 0), *args = kid(p, n, 1);
	if (p->bad || n->n != 2)
		return;
	if (n->kind == SW_BOUND_GENERIC_ENUM && args->n == 1 &&
	    is_swift_type(base, SW_ENUM, "Optional")) {
		bool parens = !simple_type(p, args->kids[0]);
		put(p, parens ? "(" : "");
		pr_print(p, args->kids[0], false);
		put(p, parens ? ")?" : "?");
		return;
	}
	if (n->kind == SW_BOUND_GENERIC_STRUCTURE && args->n == 1 &&
	    is_swift_type(base, SW_STRUCTURE, "Array")) {
		put(p, "[");
		pr_print(p, args->kids[0], false);
		put(p, "]");
		return;
	}
	if (n->kind == SW_BOUND_GENERIC_STRUCTURE && args->n == 2 &&
	    is_swift_type(base, SW_STRUCTURE, "Dictionary")) {
		put(p, "[");
		pr_print(p, args->kids[0], false);
		put(p, " : ");
		pr_print(p, args->kids[1], false);
		put(p, "]");
		return;
	}
	pr_print(p, base, false);
	put(p, "<");
	print_kids(p, args, ", ");
	put(p, ">");
}

static void print_parameters(struct pr *p, const sw_node *labels, const sw_node *args)
{
	const sw_node *params = kid(p, kid(p, args, 0), 0);
	if (p->bad || args->kind != SW_ARGUMENT_TUPLE)
		return;
	if (params->kind != SW_TUPLE) {
		put(p, "(");
		pr_print(p, params, false);
		put(p, ")");
		return;
	}
	bool has_labels = labels && labels->n > 0;
	if (has_labels && labels->n != params->n) {
		p->bad = true;
		return;
	}
	put(p, "(");
	for (unsigned i = 0; i < params->n; i++) {
		if (i)
			put(p, ", ");
		if (has_labels) {
			const sw_node *l = labels->kids[i];
			if (l->kind == SW_IDENTIFIER)
				put_text(p, l);
			else
				put(p, "_");
			put(p, ": ");
		}
		pr_print(p, params->kids[i], false);
	}
	put(p, ")");
}

void pr_function_type(struct pr *p, const sw_node *labels, const sw_node *n)
{
	unsigned i = 0;
	bool sendable = false, async = false, throws = false;
	if (n->kind == SW_C_FUNCTION_POINTER)
		put(p, "@convention(c) ");
	else if (n->kind == SW_OBJC_BLOCK)
		put(p, "@convention(block) ");
	else if (n->kind == SW_ESCAPING_OBJC_BLOCK)
		put(p, "@escaping @convention(block) ");
	if (i < n->n && n->kids[i]->kind == SW_GLOBAL_ACTOR_FUNCTION_TYPE)
		pr_print(p, n->kids[i++], false);
	if (i < n->n && n->kids[i]->kind == SW_THROWS_ANNOTATION)
		throws = ++i;
	if (i < n->n && n->kids[i]->kind == SW_CONCURRENT_FUNCTION_TYPE)
		sendable = ++i;
	if (i < n->n && n->kids[i]->kind == SW_ASYNC_ANNOTATION)
		async = ++i;
	if (n->n != i + 2) {
		p->bad = true;
		return;
	}
	if (sendable)
		put(p, "@Sendable ");
	print_parameters(p, labels, n->kids[i]);
	if (async)
		put(p, " async");
	if (throws)
		put(p, " throws");
	pr_print(p, n->kids[i + 1], false);
}

void pr_generic_signature(struct pr *p, const sw_node *n)
{
	unsigned counts = 0;
	put(p, "<");
	for (; counts < n->n && n->kids[counts]->kind == SW_DEPENDENT_GENERIC_PARAM_COUNT; counts++) {
		if (counts)
			put(p, "><");
		uint64_t count = n->kids[counts]->index;
		for (uint64_t i = 0; i < count; i++) {
			if (i)
				put(p, ", ");
			if (i >= 128) {
				put(p, "...");
				break;
			}
			put_param_name(p, counts, i);
		}
	}
	for (unsigned i = counts; i < n->n; i++) {
		put(p, i == counts ? " where " : ", ");
		pr_print(p, n->kids[i], false);
	}
	put(p, ">");
}

/* Generic parameters, dependent and generic types; false when n is not one of them. */
static bool generic_type(struct pr *p, const sw_node *n)
{
	switch (n->kind) {
	case SW_DEPENDENT_GENERIC_TYPE: {
		const sw_node *sig = kid(p, n, 0), *type = kid(p, n, 1);
		if (p->bad)
			return true;
		pr_print(p, sig, false);
		if (pr_need_space_before_type(type))
			put(p, " ");
		pr_print(p, type, false);
		return true;
	}
	case SW_DEPENDENT_GENERIC_PARAM_TYPE: {
		/* Named by its own depth ("A1" for the first parameter of an
		 * inner generic context), as Swift does: a generic method of a
		 * generic type reads "f<A where A1: P>(A1)". */
		const sw_node *d = kid(p, n, 0), *i = kid(p, n, 1);
		if (!p->bad)
			put_param_name(p, d->index, i->index);
		return true;
	}
	case SW_DEPENDENT_MEMBER_TYPE:
		pr_print(p, kid(p, n, 0), false);
		put(p, ".");
		pr_print(p, kid(p, n, 1), false);
		return true;
	case SW_DEPENDENT_ASSOCIATED_TYPE_REF:
		if (n->n > 1) {
			pr_print(p, n->kids[1], false);
			put(p, ".");
		}
		pr_print(p, kid(p, n, 0), false);
		return true;
	default:
		return false;
	}
}

/* SIL function types and their parts; false when n is not one of them. */
static bool impl_type(struct pr *p, const sw_node *n)
{
	switch (n->kind) {
	case SW_IMPL_FUNCTION_TYPE:
		impl_function_type(p, n);
		return true;
	case SW_IMPL_ESCAPING:
		put(p, "@escaping");
		return true;
	case SW_IMPL_CONVENTION:
	case SW_IMPL_FUNCTION_ATTRIBUTE:
		put_text(p, n);
		return true;
	case SW_IMPL_FUNCTION_CONVENTION:
		put(p, "@convention(");
		put_text(p, n);
		put(p, ")");
		return true;
	case SW_IMPL_ERROR_RESULT:
	case SW_IMPL_PARAMETER:
	case SW_IMPL_RESULT:
		if (n->n != 2)
			return p->bad = true;
		put(p, n->kind == SW_IMPL_ERROR_RESULT ? "@error " : "");
		pr_print(p, n->kids[0], false);
		put(p, " ");
		pr_print(p, n->kids[1], false);
		return true;
	default:
		return false;
	}
}

void pr_type_node(struct pr *p, const sw_node *n)
{
	if (generic_type(p, n) || impl_type(p, n))
		return;
	switch (n->kind) {
	case SW_TUPLE:
		put(p, "(");
		print_kids(p, n, ", ");
		put(p, ")");
		return;
	case SW_TUPLE_ELEMENT: {
		const sw_node *name = kid_of_kind(n, SW_TUPLE_ELEMENT_NAME);
		const sw_node *type = kid_of_kind(n, SW_TYPE);
		if (name) {
			put_text(p, name);
			put(p, ": ");
		}
		if (!type) {
			p->bad = true;
			return;
		}
		pr_print(p, type, false);
		if (kid_of_kind(n, SW_VARIADIC_MARKER))
			put(p, "...");
		return;
	}
	case SW_FUNCTION_TYPE:
	case SW_NO_ESCAPE_FUNCTION_TYPE:
	case SW_C_FUNCTION_POINTER:
	case SW_OBJC_BLOCK:
	case SW_ESCAPING_OBJC_BLOCK:
		pr_function_type(p, NULL, n);
		return;
	case SW_RETURN_TYPE:
		put(p, " -> ");
		print_kids(p, n, NULL);
		return;
	case SW_ARGUMENT_TUPLE:
		print_parameters(p, NULL, n);
		return;
	case SW_BOUND_GENERIC_CLASS: case SW_BOUND_GENERIC_STRUCTURE: case SW_BOUND_GENERIC_ENUM:
	case SW_BOUND_GENERIC_TYPE_ALIAS:
		print_bound_generic(p, n);
		return;
	case SW_METATYPE: {
		const sw_node *t = kid(p, kid(p, n, 0), 0);
		if (!t || n->n != 1)
			return (void)(p->bad = true);
		bool parens = !simple_type(p, t);
		put(p, parens ? "(" : "");
		pr_print(p, t, false);
		put(p, parens ? ")" : "");
		put(p, t->kind == SW_PROTOCOL_LIST || t->kind == SW_EXISTENTIAL_METATYPE ? ".Protocol"
										     : ".Type");
		return;
	}
	case SW_EXISTENTIAL_METATYPE:
		pr_print(p, kid(p, n, 0), false);
		put(p, ".Type");
		return;
	case SW_PROTOCOL_LIST: {
		const sw_node *list = kid(p, n, 0);
		if (list && list->n == 0)
			put(p, "Any");
		else
			print_kids(p, list, " & ");
		return;
	}
	default:
		p->bad = true;
		return;
	}
}

void pr_requirement(struct pr *p, const sw_node *n)
{
	pr_print(p, kid(p, n, 0), false);
	if (p->bad)
		return;
	if (n->kind == SW_DEPENDENT_GENERIC_SAME_TYPE_REQUIREMENT) {
		put(p, " == ");
		pr_print(p, kid(p, n, 1), false);
		return;
	}
	put(p, ": ");
	if (n->kind == SW_DEPENDENT_GENERIC_CONFORMANCE_REQUIREMENT) {
		pr_print(p, kid(p, n, 1), false);
		return;
	}
	static const char *const layouts[][2] = {
		{"U", "_UnknownLayout"}, {"R", "_RefCountedObject"}, {"N", "_NativeRefCountedObject"},
		{"C", "AnyObject"}, {"D", "_NativeClass"}, {"T", "_Trivial"},
	};
	const sw_node *l = kid(p, n, 1);
	for (size_t i = 0; l && i < sizeof layouts / sizeof *layouts; i++)
		if (text_is(l, layouts[i][0])) {
			put(p, layouts[i][1]);
			return;
		}
	p->bad = true;
}

/* "@escaping @callee_guaranteed @Sendable (@in_guaranteed A) -> (@out B,
 * @error @owned Swift.Error)": attributes, then parameters, then results. */
static void impl_function_type(struct pr *p, const sw_node *n)
{
	enum { ATTRS, INPUTS, RESULTS } state = ATTRS;
	for (unsigned i = 0; i < n->n && !p->bad; i++) {
		const sw_node *k = n->kids[i];
		if (k->kind == SW_IMPL_PARAMETER) {
			put(p, state == INPUTS ? ", " : "(");
			if (state == RESULTS)
				p->bad = true; /* parameters after results: not a shape Swift makes */
			state = INPUTS;
		} else if (k->kind == SW_IMPL_RESULT || k->kind == SW_IMPL_ERROR_RESULT) {
			put(p, state == RESULTS ? ", " : state == INPUTS ? ") -> (" : "() -> (");
			state = RESULTS;
		} else if (state != ATTRS) {
			p->bad = true;
			return;
		}
		pr_print(p, k, false);
		if (state == ATTRS)
			put(p, " ");
	}
	put(p, state == RESULTS ? ")" : state == INPUTS ? ") -> ()" : "() -> ()");
}
