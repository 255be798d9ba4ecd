/* Printing a Swift symbol's tree the way Swift's own demangler prints it
 * with its default options (swift-demangle, Xcode, crash reports): fully
 * qualified names, types of functions and variables, "closure #1 in ...",
 * sugar for Array, Dictionary and Optional.  A node it does not know makes
 * the whole symbol "not understood". */
#include <string.h>

#include "hangar/demangle.h"

#include "demangle_swift_print.h"

/* ---- entities ---- */

enum type_printing { NO_TYPE, WITH_COLON, FUNCTION_STYLE };

/* The function types an entity's type may be printed "(args) -> result"
 * after its name (Swift also takes thin and uncurried ones, never built
 * here). */
static bool is_function_kind(enum sw_kind k)
{
	return k == SW_FUNCTION_TYPE || k == SW_NO_ESCAPE_FUNCTION_TYPE ||
	       k == SW_C_FUNCTION_POINTER;
}

/* What print_function_type prints: every function type built here. */
static bool prints_as_function(enum sw_kind k)
{
	return is_function_kind(k) || k == SW_OBJC_BLOCK || k == SW_ESCAPING_OBJC_BLOCK;
}

static void print_entity_type(struct pr *p, const sw_node *entity, const sw_node *type)
{
	const sw_node *labels = kid_of_kind(entity, SW_LABEL_LIST);
	if (!labels) {
		pr_print(p, type, false);
		return;
	}
	if (type->kind == SW_DEPENDENT_GENERIC_TYPE) {
		pr_print(p, kid(p, type, 0), false);
		const sw_node *dep = kid(p, type, 1);
		if (p->bad)
			return;
		if (pr_need_space_before_type(dep))
			put(p, " ");
		type = kid(p, dep, 0);
		if (p->bad)
			return;
	}
	if (!prints_as_function(type->kind)) {
		p->bad = true;
		return;
	}
	pr_function_type(p, labels, type);
}

/* Prints an entity: its context first ("Module.Type.name") or, when its
 * name has several words ("closure #1"), after it ("closure #1 in ...").
 * As a prefix context an entity with a type cannot be printed: it is
 * returned for the caller to print after its own name. */
static const sw_node *print_entity(struct pr *p, const sw_node *e, bool as_prefix,
				   enum type_printing tp, bool has_name, const char *extra,
				   long extra_index, const char *overwrite)
{
	bool multi_word = extra && strchr(extra, ' ');
	if (has_name && kid(p, e, 1) && e->kids[1]->kind == SW_LOCAL_DECL_NAME)
		multi_word = true;
	if (as_prefix && (tp != NO_TYPE || multi_word))
		return e;
	const sw_node *postfix = NULL, *ctx = kid(p, e, 0);
	if (p->bad)
		return NULL;
	if (multi_word) {
		postfix = ctx;
	} else {
		size_t at = p->out->len;
		postfix = pr_print(p, ctx, true);
		if (p->out->len != at)
			put(p, ".");
	}
	if (has_name || overwrite) {
		if (extra && multi_word) {
			put(p, extra);
			if (extra_index >= 0)
				put_num(p, (uint64_t)extra_index);
			put(p, " of ");
			extra = NULL;
			extra_index = -1;
		}
		size_t at = p->out->len;
		if (overwrite) {
			put(p, overwrite);
		} else {
			const sw_node *name = kid(p, e, 1);
			if (name && name->kind != SW_PRIVATE_DECL_NAME)
				pr_print(p, name, false);
			const sw_node *private_name = kid_of_kind(e, SW_PRIVATE_DECL_NAME);
			if (private_name)
				pr_print(p, private_name, false);
		}
		if (p->out->len != at && extra)
			put(p, ".");
	}
	if (extra) {
		put(p, extra);
		if (extra_index >= 0)
			put_num(p, (uint64_t)extra_index);
	}
	if (tp != NO_TYPE) {
		const sw_node *type = kid_of_kind(e, SW_TYPE);
		if (!type || !type->n) {
			p->bad = true;
			return NULL;
		}
		type = type->kids[0];
		if (tp == FUNCTION_STYLE) {
			const sw_node *t = type;
			while (t->kind == SW_DEPENDENT_GENERIC_TYPE && t->n == 2 && t->kids[1]->n)
				t = t->kids[1]->kids[0];
			if (!is_function_kind(t->kind))
				tp = WITH_COLON;
		}
		if (tp == WITH_COLON) {
			put(p, " : ");
		} else if (multi_word || pr_need_space_before_type(type)) {
			put(p, " ");
		}
		print_entity_type(p, e, type);
	}
	if (!as_prefix && postfix) {
		bool of = e->kind == SW_DEFAULT_ARGUMENT_INITIALIZER || e->kind == SW_INITIALIZER;
		put(p, of ? " of " : " in ");
		pr_print(p, postfix, false);
		postfix = NULL;
	}
	return postfix;
}

static const sw_node *print_storage(struct pr *p, const sw_node *n, bool as_prefix,
				    const char *what)
{
	const sw_node *s = kid(p, n, 0);
	if (s && s->kind == SW_VARIABLE)
		return print_entity(p, s, as_prefix, WITH_COLON, true, what, -1, NULL);
	if (s && s->kind == SW_SUBSCRIPT)
		return print_entity(p, s, as_prefix, WITH_COLON, false, what, -1, "subscript");
	p->bad = true;
	return NULL;
}

static bool is_class(const sw_node *n)
{
	return n->n && n->kids[0]->kind == SW_CLASS;
}

/* ---- specializations ---- */

static void print_param_kind(struct pr *p, uint64_t v)
{
	/* The bits of demangle_swift_entities.c's func_spec_param. */
	if (v == 1 || v == 2) {
		put(p, v == 1 ? "Value Promoted from Box" : "Stack Promoted from Box");
		return;
	}
	static const struct { uint64_t bit; const char *name; } bits[] = {
		{1 << 6, "Dead"}, {1 << 7, "Owned To Guaranteed"}, {1 << 9, "Guaranteed To Owned"},
		{1 << 8, "Exploded"},
	};
	bool first = true;
	for (size_t i = 0; i < sizeof bits / sizeof *bits; i++)
		if (v & bits[i].bit) {
			put(p, first ? "" : " and ");
			put(p, bits[i].name);
			first = false;
		}
}

static void print_spec_prefix(struct pr *p, const sw_node *n, const char *what)
{
	put(p, what);
	put(p, " <");
	const char *sep = "";
	unsigned arg = 0;
	for (unsigned i = 0; i < n->n; i++) {
		const sw_node *k = n->kids[i];
		if (k->kind == SW_SPECIALIZATION_PASS_ID)
			continue;
		if (k->kind == SW_IS_SERIALIZED) {
			put(p, sep);
			sep = ", ";
			put(p, "serialized");
			continue;
		}
		if (k->n) {
			put(p, sep);
			sep = ", ";
			if (k->kind == SW_FUNCTION_SIGNATURE_SPECIALIZATION_PARAM) {
				put(p, "Arg[");
				put_num(p, arg);
				put(p, "] = ");
				print_param_kind(p, k->kids[0]->index);
			} else if (k->kind == SW_FUNCTION_SIGNATURE_SPECIALIZATION_RETURN) {
				put(p, "Return = ");
				print_param_kind(p, k->kids[0]->index);
			} else {
				pr_print(p, k, false);
			}
		}
		arg++;
	}
	put(p, "> of ");
}

/* ---- the printer ---- */

static const char *prefix_of(enum sw_kind k)
{
	switch (k) {
	case SW_CURRY_THUNK: return "curry thunk of ";
	case SW_DISPATCH_THUNK: return "dispatch thunk of ";
	case SW_METHOD_DESCRIPTOR: return "method descriptor for ";
	case SW_STATIC: return "static ";
	case SW_INOUT: return "inout ";
	case SW_SHARED: return "__shared ";
	case SW_OWNED: return "__owned ";
	case SW_WEAK: return "weak ";
	case SW_UNOWNED: return "unowned ";
	case SW_UNMANAGED: return "unowned(unsafe) ";
	case SW_OUTLINED_COPY: return "outlined copy of ";
	case SW_OUTLINED_CONSUME: return "outlined consume of ";
	case SW_OUTLINED_RETAIN: return "outlined retain of ";
	case SW_OUTLINED_RELEASE: return "outlined release of ";
	case SW_OUTLINED_DESTROY: return "outlined destroy of ";
	case SW_OUTLINED_INITIALIZE_WITH_TAKE: return "outlined init with take of ";
	case SW_OUTLINED_INITIALIZE_WITH_COPY: return "outlined init with copy of ";
	case SW_OUTLINED_ASSIGN_WITH_TAKE: return "outlined assign with take of ";
	case SW_OUTLINED_ASSIGN_WITH_COPY: return "outlined assign with copy of ";
	case SW_TYPE_METADATA_ACCESS_FUNCTION: return "type metadata accessor for ";
	case SW_TYPE_METADATA: return "type metadata for ";
	case SW_NOMINAL_TYPE_DESCRIPTOR: return "nominal type descriptor for ";
	case SW_FULL_TYPE_METADATA: return "full type metadata for ";
	case SW_METACLASS: return "metaclass for ";
	case SW_TYPE_METADATA_DEMANGLING_CACHE: return "demangling cache variable for type metadata for ";
	case SW_PROTOCOL_CONFORMANCE_DESCRIPTOR: return "protocol conformance descriptor for ";
	case SW_PROTOCOL_WITNESS_TABLE: return "protocol witness table for ";
	case SW_GLOBAL_ACTOR_FUNCTION_TYPE: return "@";
	default: return NULL;
	}
}

static bool is_specialization(enum sw_kind k)
{
	return k == SW_GENERIC_SPECIALIZATION || k == SW_GENERIC_SPECIALIZATION_IN_RESILIENCE_DOMAIN ||
	       k == SW_GENERIC_SPECIALIZATION_NOT_RE_ABSTRACTED || k == SW_INLINED_GENERIC_FUNCTION ||
	       k == SW_FUNCTION_SIGNATURE_SPECIALIZATION;
}

static const char *attribute_of(enum sw_kind k)
{
	switch (k) {
	case SW_OBJC_ATTRIBUTE: return "@objc ";
	case SW_NON_OBJC_ATTRIBUTE: return "@nonobjc ";
	case SW_DYNAMIC_ATTRIBUTE: return "dynamic ";
	case SW_MERGED_FUNCTION: return "merged ";
	case SW_ASYNC_FUNCTION_POINTER: return "async function pointer to ";
	case SW_GENERIC_SPECIALIZATION: return "generic specialization";
	case SW_GENERIC_SPECIALIZATION_IN_RESILIENCE_DOMAIN: return "generic specialization";
	case SW_GENERIC_SPECIALIZATION_NOT_RE_ABSTRACTED:
		return "generic not re-abstracted specialization";
	case SW_INLINED_GENERIC_FUNCTION: return "inlined generic function";
	case SW_FUNCTION_SIGNATURE_SPECIALIZATION: return "function signature specialization";
	default: return NULL;
	}
}

static const char *storage_of(enum sw_kind k)
{
	switch (k) {
	case SW_GETTER: case SW_GLOBAL_GETTER: return "getter";
	case SW_SETTER: return "setter";
	case SW_MODIFY_ACCESSOR: return "modify";
	case SW_READ_ACCESSOR: return "read";
	case SW_WILL_SET: return "willset";
	case SW_DID_SET: return "didset";
	case SW_MATERIALIZE_FOR_SET: return "materializeForSet";
	case SW_UNSAFE_ADDRESSOR: return "unsafeAddressor";
	case SW_UNSAFE_MUTABLE_ADDRESSOR: return "unsafeMutableAddressor";
	default: return NULL;
	}
}

static const sw_node *print_nominal_or_entity(struct pr *p, const sw_node *n, bool as_prefix)
{
	switch (n->kind) {
	case SW_CLASS: case SW_STRUCTURE: case SW_ENUM: case SW_PROTOCOL: case SW_TYPE_ALIAS:
		return print_entity(p, n, as_prefix, NO_TYPE, true, NULL, -1, NULL);
	case SW_VARIABLE:
		return print_entity(p, n, as_prefix, WITH_COLON, true, NULL, -1, NULL);
	case SW_FUNCTION:
		return print_entity(p, n, as_prefix, FUNCTION_STYLE, true, NULL, -1, NULL);
	case SW_SUBSCRIPT:
		return print_entity(p, n, as_prefix, FUNCTION_STYLE, false, NULL, -1, "subscript");
	case SW_EXPLICIT_CLOSURE:
	case SW_IMPLICIT_CLOSURE: {
		const sw_node *i = kid(p, n, 1);
		return i ? print_entity(p, n, as_prefix, FUNCTION_STYLE, false,
					n->kind == SW_EXPLICIT_CLOSURE ? "closure #" : "implicit closure #",
					(long)i->index + 1, NULL) : NULL;
	}
	case SW_INITIALIZER:
		return print_entity(p, n, as_prefix, NO_TYPE, false,
				    "variable initialization expression", -1, NULL);
	case SW_DEFAULT_ARGUMENT_INITIALIZER: {
		const sw_node *i = kid(p, n, 1);
		return i ? print_entity(p, n, as_prefix, NO_TYPE, false, "default argument ",
					(long)i->index, NULL) : NULL;
	}
	case SW_ALLOCATOR:
		return print_entity(p, n, as_prefix, FUNCTION_STYLE, false,
				    is_class(n) ? "__allocating_init" : "init", -1, NULL);
	case SW_CONSTRUCTOR:
		return print_entity(p, n, as_prefix, FUNCTION_STYLE, n->n > 2, "init", -1, NULL);
	case SW_DESTRUCTOR:
		return print_entity(p, n, as_prefix, NO_TYPE, false, "deinit", -1, NULL);
	case SW_DEALLOCATOR:
		return print_entity(p, n, as_prefix, NO_TYPE, false,
				    is_class(n) ? "__deallocating_deinit" : "deinit", -1, NULL);
	case SW_IVAR_INITIALIZER:
		return print_entity(p, n, as_prefix, NO_TYPE, false, "__ivar_initializer", -1, NULL);
	case SW_IVAR_DESTROYER:
		return print_entity(p, n, as_prefix, NO_TYPE, false, "__ivar_destroyer", -1, NULL);
	default:
		p->bad = true;
		return NULL;
	}
}

/* Names: modules, identifiers, operators, local and private names, extensions, the unmangled suffix; false when n is not one of them. */
static bool print_name(struct pr *p, const sw_node *n)
{
	switch (n->kind) {
	case SW_SUFFIX:
		put(p, " with unmangled suffix \"");
		for (size_t i = 0; i < n->text_len; i++) {
			char c = n->text[i];
			if (c == '"' || c == '\\' || (unsigned char)c < 0x20 || c == 0x7f) {
				p->bad = true; /* Swift escapes these; never in a real symbol */
				return true;
			}
			hg_buf_putc(p->out, c);
		}
		put(p, "\"");
		return true;
	case SW_MODULE:
	case SW_IDENTIFIER:
	case SW_BUILTIN_TYPE_NAME:
		put_text(p, n);
		return true;
	case SW_INFIX_OPERATOR:
	case SW_PREFIX_OPERATOR:
	case SW_POSTFIX_OPERATOR:
		put_text(p, n);
		put(p, n->kind == SW_INFIX_OPERATOR ? " infix"
		       : n->kind == SW_PREFIX_OPERATOR ? " prefix" : " postfix");
		return true;
	case SW_LOCAL_DECL_NAME: {
		const sw_node *i = kid(p, n, 0);
		pr_print(p, kid(p, n, 1), false);
		if (i) {
			put(p, " #");
			put_num(p, i->index + 1);
		}
		return true;
	}
	case SW_PRIVATE_DECL_NAME: {
		const sw_node *d = kid(p, n, 0);
		if (!d)
			return true;
		if (n->n > 1) {
			put(p, "(");
			pr_print(p, n->kids[1], false);
			put(p, " in ");
			put_text(p, d);
			put(p, ")");
		} else {
			put(p, "(in ");
			put_text(p, d);
			put(p, ")");
		}
		return true;
	}
	case SW_EXTENSION:
		if (n->n != 2 && n->n != 3)
			return (void)(p->bad = true), true;
		put(p, "(extension in ");
		pr_print(p, n->kids[0], true);
		put(p, "):");
		pr_print(p, n->kids[1], false);
		if (n->n == 3)
			pr_print(p, n->kids[2], false);
		return true;
	default:
		return false;
	}
}

/* Thunks and what they refer to: partial applies, async partial functions, witnesses, reabstraction thunks; false when n is not one of them. */
static bool print_thunk(struct pr *p, const sw_node *n)
{
	switch (n->kind) {
	case SW_GENERIC_SPECIALIZATION_PARAM:
		if (n->n != 1)
			return (void)(p->bad = true), true;
		pr_print(p, n->kids[0], false);
		return true;
	case SW_PARTIAL_APPLY_FORWARDER:
	case SW_PARTIAL_APPLY_OBJC_FORWARDER:
		put(p, n->kind == SW_PARTIAL_APPLY_FORWARDER ? "partial apply forwarder"
							     : "partial apply ObjC forwarder");
		if (n->n) {
			put(p, " for ");
			print_kids(p, n, NULL);
		}
		return true;
	case SW_ASYNC_AWAIT_RESUME_PARTIAL_FUNCTION:
	case SW_ASYNC_SUSPEND_RESUME_PARTIAL_FUNCTION:
		put(p, "(");
		put_num(p, kid(p, n, 0) ? n->kids[0]->index : 0);
		put(p, n->kind == SW_ASYNC_AWAIT_RESUME_PARTIAL_FUNCTION
		       ? ") await resume partial function for "
		       : ") suspend resume partial function for ");
		return true;
	case SW_PROTOCOL_WITNESS:
		put(p, "protocol witness for ");
		pr_print(p, kid(p, n, 1), false);
		put(p, " in conformance ");
		pr_print(p, kid(p, n, 0), false);
		return true;
	case SW_PROTOCOL_CONFORMANCE:
		pr_print(p, kid(p, n, 0), false);
		put(p, " : ");
		pr_print(p, kid(p, n, 1), false);
		put(p, " in ");
		pr_print(p, kid(p, n, 2), false);
		return true;
	case SW_REABSTRACTION_THUNK:
	case SW_REABSTRACTION_THUNK_HELPER: {
		unsigned i = n->n == 3 ? 1 : 0;
		if (n->n != i + 2)
			return (void)(p->bad = true), true;
		put(p, n->kind == SW_REABSTRACTION_THUNK ? "reabstraction thunk "
							 : "reabstraction thunk helper ");
		if (i) {
			pr_print(p, n->kids[0], false);
			put(p, " ");
		}
		put(p, "from ");
		pr_print(p, n->kids[i], false);
		put(p, " to ");
		pr_print(p, n->kids[i + 1], false);
		return true;
	}
	case SW_LAZY_PROTOCOL_WITNESS_TABLE_ACCESSOR:
		put(p, "lazy protocol witness table accessor for type ");
		pr_print(p, kid(p, n, 0), false);
		put(p, " and conformance ");
		pr_print(p, kid(p, n, 1), false);
		return true;
	default:
		return false;
	}
}

static const sw_node *print_node(struct pr *p, const sw_node *n, bool as_prefix)
{
	const char *s;
	if ((s = prefix_of(n->kind))) {
		put(p, s);
		pr_print(p, kid(p, n, 0), false);
		if (n->kind == SW_GLOBAL_ACTOR_FUNCTION_TYPE)
			put(p, " ");
		return NULL;
	}
	if ((s = storage_of(n->kind)))
		return print_storage(p, n, as_prefix, s);
	if ((s = attribute_of(n->kind))) {
		if (is_specialization(n->kind))
			print_spec_prefix(p, n, s);
		else
			put(p, s);
		return NULL;
	}
	if (print_name(p, n) || print_thunk(p, n))
		return NULL;
	switch (n->kind) {
	case SW_GLOBAL:
		print_kids(p, n, NULL);
		return NULL;
	case SW_TYPE:
		return pr_print(p, kid(p, n, 0), as_prefix);
	case SW_TYPE_MANGLING: {
		const sw_node *first = kid(p, n, 0);
		if (first && first->kind == SW_LABEL_LIST) {
			const sw_node *f = kid(p, kid(p, n, 1), 0);
			if (f && prints_as_function(f->kind))
				pr_function_type(p, first, f);
			else
				p->bad = true;
		} else {
			pr_print(p, first, false);
		}
		return NULL;
	}
	case SW_DEPENDENT_GENERIC_SIGNATURE:
		pr_generic_signature(p, n);
		return NULL;
	case SW_DEPENDENT_GENERIC_CONFORMANCE_REQUIREMENT:
	case SW_DEPENDENT_GENERIC_SAME_TYPE_REQUIREMENT:
	case SW_DEPENDENT_GENERIC_LAYOUT_REQUIREMENT:
		pr_requirement(p, n);
		return NULL;
	case SW_OPAQUE_RETURN_TYPE:
		put(p, "some");
		return NULL;
	case SW_LABEL_LIST:
		return NULL; /* printed with the parameters (an initializer's "name") */
	case SW_DYNAMIC_SELF:
		put(p, "Self");
		return NULL;
	default:
		break;
	}
	switch (n->kind) {
	case SW_CLASS: case SW_STRUCTURE: case SW_ENUM: case SW_PROTOCOL: case SW_TYPE_ALIAS:
	case SW_VARIABLE: case SW_FUNCTION: case SW_SUBSCRIPT: case SW_EXPLICIT_CLOSURE:
	case SW_IMPLICIT_CLOSURE: case SW_INITIALIZER: case SW_DEFAULT_ARGUMENT_INITIALIZER:
	case SW_ALLOCATOR: case SW_CONSTRUCTOR: case SW_DESTRUCTOR: case SW_DEALLOCATOR:
	case SW_IVAR_INITIALIZER: case SW_IVAR_DESTROYER:
		return print_nominal_or_entity(p, n, as_prefix);
	default:
		pr_type_node(p, n);
		return NULL;
	}
}

const sw_node *pr_print(struct pr *p, const sw_node *n, bool as_prefix)
{
	if (!n || p->bad)
		return NULL;
	if (++p->steps > MAX_STEPS || p->depth >= HG_DEMANGLE_MAX_DEPTH ||
	    p->out->len > HG_DEMANGLE_MAX_OUTPUT || p->out->failed) {
		p->bad = true;
		return NULL;
	}
	p->depth++;
	const sw_node *r = print_node(p, n, as_prefix);
	p->depth--;
	return r;
}

int sw_print(const sw_node *root, hg_buf *out)
{
	struct pr p = {.out = out};
	pr_print(&p, root, false);
	return !p.bad && !out->failed && out->len <= HG_DEMANGLE_MAX_OUTPUT;
}
