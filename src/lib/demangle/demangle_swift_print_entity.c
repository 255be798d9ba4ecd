/* Printing entities (see demangle_swift_print.h): a name with its context
 * first ("Module.Type.name") or, when the name has several words
 * ("closure #1", "variable initialization expression") or is local
 * ("Foo #1"), after it (" in ...", " of ..."), then its type as a
 * function's ("(A) -> B") or after a colon; extensions, private and local
 * names, accessors. */
#include "hangar/hangar.h"
#include "demangle_swift_print.h"

enum type_printing { NO_TYPE, WITH_COLON, FUNCTION_STYLE };

struct entity_name {
	bool has_name;
	const char *extra;      /* "" for none */
	long extra_index;       /* -1 for none */
	const char *overwrite;  /* "" for none */
};

bool pr_is_class(const sw_node *n)
{
	return n && n->kind == SW_CLASS;
}

static void print_function_name(struct pr *p, const sw_node *e, struct entity_name *nm,
				bool multi_word, int depth)
{
	if (nm->has_name || nm->overwrite[0]) {
		if (nm->extra[0] && multi_word) {
			put(p, nm->extra);
			if (nm->extra_index >= 0)
				put_u64(p, (uint64_t)nm->extra_index);
			put(p, " of ");
			nm->extra = "";
			nm->extra_index = -1;
		}
		size_t at = p->out->len;
		if (nm->overwrite[0]) {
			put(p, nm->overwrite);
		} else {
			const sw_node *name = kid(p, e, 1);
			if (name && name->kind != SW_PRIVATE_DECL_NAME)
				pr_node(p, name, depth + 1, false);
			const sw_node *private_name = kid_of_kind(e, SW_PRIVATE_DECL_NAME);
			if (private_name)
				pr_node(p, private_name, depth + 1, false);
		}
		if (p->out->len != at && nm->extra[0])
			put(p, ".");
	}
	if (nm->extra[0]) {
		put(p, nm->extra);
		if (nm->extra_index >= 0)
			put_u64(p, (uint64_t)nm->extra_index);
	}
}

static void print_entity_type(struct pr *p, const sw_node *e, const sw_node *type,
			      const sw_node *generic_args, int depth)
{
	const sw_node *labels = kid_of_kind(e, SW_LABEL_LIST);
	if (!labels && !generic_args) {
		pr_node(p, type, depth + 1, false);
		return;
	}
	if (generic_args) {
		put(p, "<");
		pr_children(p, generic_args, depth, ", ");
		put(p, ">");
	}
	if (type->kind == SW_DEPENDENT_GENERIC_TYPE) {
		if (!generic_args)
			pr_kid(p, type, 0, depth);
		const sw_node *dependent = kid(p, type, 1);
		if (!dependent)
			return;
		if (pr_need_space_before_type(dependent))
			put(p, " ");
		if (!(type = kid(p, dependent, 0)))
			return;
	}
	pr_function_type(p, labels, type, depth);
}

static bool initializer_like(enum sw_kind k)
{
	return k == SW_DEFAULT_ARGUMENT_INITIALIZER || k == SW_INITIALIZER ||
	       k == SW_PROPERTY_WRAPPER_BACKING_INITIALIZER ||
	       k == SW_PROPERTY_WRAPPER_INIT_FROM_PROJECTED_VALUE;
}

static const sw_node *print_entity(struct pr *p, const sw_node *e, int depth, bool as_prefix,
				   enum type_printing tp, struct entity_name nm)
{
	const sw_node *generic_args = NULL;
	if (e->kind == SW_BOUND_GENERIC_FUNCTION) {
		generic_args = kid(p, e, 1);
		if (!(e = kid(p, e, 0)))
			return NULL;
	}
	bool multi_word = strchr(nm.extra, ' ') != NULL;
	bool local = false;
	if (nm.has_name) {
		const sw_node *name = kid(p, e, 1);
		if (!name)
			return NULL;
		local = name->kind == SW_LOCAL_DECL_NAME;
	}
	multi_word = multi_word || local;
	if (as_prefix && (tp != NO_TYPE || multi_word))
		return e;
	const sw_node *postfix = NULL, *ctx = kid(p, e, 0);
	if (!ctx)
		return NULL;
	if (multi_word) {
		postfix = ctx;
	} else {
		size_t at = p->out->len;
		postfix = pr_node(p, ctx, depth + 1, true);
		if (p->out->len != at)
			put(p, ".");
	}
	print_function_name(p, e, &nm, multi_word, depth);
	if (tp != NO_TYPE) {
		const sw_node *type = kid(p, kid_of_kind(e, SW_TYPE), 0);
		if (!type)
			return NULL;
		if (tp == FUNCTION_STYLE) {
			const sw_node *t = type;
			for (int i = 0; t && t->kind == SW_DEPENDENT_GENERIC_TYPE && i < 64; i++)
				t = kid(p, kid(p, t, 1), 0);
			if (!t)
				return NULL;
			if (t->kind != SW_FUNCTION_TYPE && t->kind != SW_NO_ESCAPE_FUNCTION_TYPE &&
			    t->kind != SW_UNCURRIED_FUNCTION_TYPE && t->kind != SW_C_FUNCTION_POINTER &&
			    t->kind != SW_THIN_FUNCTION_TYPE)
				tp = WITH_COLON;
		}
		if (tp == WITH_COLON) {
			put(p, " : ");
		} else if (multi_word || pr_need_space_before_type(type)) {
			put(p, " ");
		}
		print_entity_type(p, e, type, generic_args, depth);
	}
	if (!as_prefix && postfix) {
		put(p, initializer_like(e->kind) ? " of " : " in ");
		pr_node(p, postfix, depth + 1, false);
		postfix = NULL;
	}
	return postfix;
}

static struct entity_name named(void)
{
	return (struct entity_name){true, "", -1, ""};
}

static struct entity_name extra(const char *name, long index)
{
	return (struct entity_name){false, name, index, ""};
}

/* Swift's nodeToString: a node printed on its own, for a name built of
 * it ("peer macro @Foo expansion #"). */
static char *node_to_string(struct pr *p, const sw_node *n, int depth, char *buf, size_t size)
{
	hg_buf tmp;
	hg_buf_init(&tmp);
	struct pr q = {.out = &tmp, .sugar = p->sugar, .nesting = p->nesting, .steps = p->steps};
	pr_node(&q, n, depth + 1, false);
	p->steps = q.steps;
	if (q.bad || tmp.failed || tmp.len >= size) {
		p->bad = true;
		p->oom = p->oom || tmp.failed || q.oom;
		buf[0] = 0;
	} else {
		memcpy(buf, tmp.data ? tmp.data : "", tmp.len);
		buf[tmp.len] = 0;
	}
	hg_buf_release(&tmp);
	return buf;
}

static const char *attached_macro_role(enum sw_kind k)
{
	switch (k) {
	case SW_ACCESSOR_ATTACHED_MACRO_EXPANSION: return "accessor";
	case SW_MEMBER_ATTRIBUTE_ATTACHED_MACRO_EXPANSION: return "member attribute";
	case SW_MEMBER_ATTACHED_MACRO_EXPANSION: return "member";
	case SW_PEER_ATTACHED_MACRO_EXPANSION: return "peer";
	case SW_CONFORMANCE_ATTACHED_MACRO_EXPANSION: return "conformance";
	case SW_EXTENSION_ATTACHED_MACRO_EXPANSION: return "extension";
	case SW_PREAMBLE_ATTACHED_MACRO_EXPANSION: return "preamble";
	case SW_BODY_ATTACHED_MACRO_EXPANSION: return "body";
	default: return NULL;
	}
}

static long index_plus_one(struct pr *p, const sw_node *n, unsigned i)
{
	const sw_node *k = kid(p, n, i);
	return k ? (long)(k->index + 1) : 0;
}

static const sw_node *macro_entity(struct pr *p, const sw_node *n, int depth, bool as_prefix, bool *done)
{
	char name[1024], text[1100];
	const char *role = attached_macro_role(n->kind);
	*done = true;
	if (role) {
		const sw_node *macro = kid(p, n, 2);
		if (!macro)
			return NULL;
		node_to_string(p, macro, depth, name, sizeof name);
		snprintf(text, sizeof text, "%s macro @%s expansion #", role, name);
		return print_entity(p, n, depth, as_prefix, NO_TYPE,
				    (struct entity_name){true, text, index_plus_one(p, n, 3), ""});
	}
	switch (n->kind) {
	case SW_FREESTANDING_MACRO_EXPANSION:
		return print_entity(p, n, depth, as_prefix, NO_TYPE,
				    (struct entity_name){true, "freestanding macro expansion #",
							 index_plus_one(p, n, 2), ""});
	case SW_MACRO_EXPANSION_UNIQUE_NAME:
		return print_entity(p, n, depth, as_prefix, NO_TYPE,
				    (struct entity_name){true, "unique name #", index_plus_one(p, n, 2), ""});
	case SW_MACRO:
		return print_entity(p, n, depth, as_prefix, n->n == 3 ? WITH_COLON : FUNCTION_STYLE, named());
	default:
		*done = false;
		return NULL;
	}
}

/* Accessors print the variable or subscript they access. */
static const char *accessor_name(enum sw_kind k)
{
	switch (k) {
	case SW_OWNING_ADDRESSOR: return "owningAddressor";
	case SW_OWNING_MUTABLE_ADDRESSOR: return "owningMutableAddressor";
	case SW_NATIVE_OWNING_ADDRESSOR: return "nativeOwningAddressor";
	case SW_NATIVE_OWNING_MUTABLE_ADDRESSOR: return "nativeOwningMutableAddressor";
	case SW_NATIVE_PINNING_ADDRESSOR: return "nativePinningAddressor";
	case SW_NATIVE_PINNING_MUTABLE_ADDRESSOR: return "nativePinningMutableAddressor";
	case SW_UNSAFE_ADDRESSOR: return "unsafeAddressor";
	case SW_UNSAFE_MUTABLE_ADDRESSOR: return "unsafeMutableAddressor";
	case SW_GLOBAL_GETTER: case SW_GETTER: return "getter";
	case SW_SETTER: return "setter";
	case SW_MATERIALIZE_FOR_SET: return "materializeForSet";
	case SW_WILL_SET: return "willset";
	case SW_DID_SET: return "didset";
	case SW_READ_ACCESSOR: return "read";
	case SW_READ2_ACCESSOR: return "read2";
	case SW_MODIFY_ACCESSOR: return "modify";
	case SW_MODIFY2_ACCESSOR: return "modify2";
	case SW_INIT_ACCESSOR: return "init";
	default: return NULL;
	}
}

static const sw_node *abstract_storage(struct pr *p, const sw_node *n, int depth, bool as_prefix,
				       const char *what)
{
	const sw_node *s = kid(p, n, 0);
	if (sw_is(s, SW_VARIABLE))
		return print_entity(p, s, depth, as_prefix, WITH_COLON, (struct entity_name){true, what, -1, ""});
	if (sw_is(s, SW_SUBSCRIPT))
		return print_entity(p, s, depth, as_prefix, WITH_COLON,
				    (struct entity_name){false, what, -1, "subscript"});
	p->bad = true;
	return NULL;
}

/* Contexts that are not entities: extensions, anonymous contexts, and
 * the private, local and related names. */
static bool context_node(struct pr *p, const sw_node *n, int depth)
{
	const sw_node *k;
	switch (n->kind) {
	case SW_EXTENSION:
		put(p, "(extension in ");
		if ((k = kid(p, n, 0)))
			pr_node(p, k, depth + 1, true);
		put(p, "):");
		pr_kid(p, n, 1, depth);
		if (n->n == 3)
			pr_kid(p, n, 2, depth);
		return true;
	case SW_ANONYMOUS_CONTEXT:
		pr_kid(p, n, 1, depth);
		put(p, ".(unknown context at ");
		pr_kid(p, n, 0, depth);
		put(p, ")");
		if (n->n >= 3 && n->kids[2]->n > 0) {
			put(p, "<");
			pr_kid(p, n, 2, depth);
			put(p, ">");
		}
		return true;
	case SW_LOCAL_DECL_NAME:
		pr_kid(p, n, 1, depth);
		put(p, " #");
		if ((k = kid(p, n, 0)))
			put_u64(p, k->index + 1);
		return true;
	case SW_PRIVATE_DECL_NAME:
		if (!(k = kid(p, n, 0)))
			return true;
		if (n->n > 1) {
			put(p, "(");
			pr_kid(p, n, 1, depth);
			put(p, " in ");
			put_text(p, k);
			put(p, ")");
		} else {
			put(p, "(in ");
			put_text(p, k);
			put(p, ")");
		}
		return true;
	case SW_RELATED_ENTITY_DECL_NAME:
		put(p, "related decl '");
		if ((k = kid(p, n, 0)))
			put_text(p, k);
		put(p, "' for ");
		pr_kid(p, n, 1, depth);
		return true;
	default:
		return false;
	}
}

const sw_node *pr_entity_node(struct pr *p, const sw_node *n, int depth, bool as_prefix, bool *done)
{
	const sw_node *r = macro_entity(p, n, depth, as_prefix, done);
	if (*done)
		return r;
	*done = true;
	const char *accessor = accessor_name(n->kind);
	if (accessor)
		return abstract_storage(p, n, depth, as_prefix, accessor);
	switch (n->kind) {
	case SW_VARIABLE: return print_entity(p, n, depth, as_prefix, WITH_COLON, named());
	case SW_FUNCTION: case SW_BOUND_GENERIC_FUNCTION:
		return print_entity(p, n, depth, as_prefix, FUNCTION_STYLE, named());
	case SW_SUBSCRIPT:
		return print_entity(p, n, depth, as_prefix, FUNCTION_STYLE,
				    (struct entity_name){false, "", -1, "subscript"});
	case SW_GENERIC_TYPE_PARAM_DECL: case SW_CLASS: case SW_STRUCTURE: case SW_ENUM:
	case SW_PROTOCOL: case SW_TYPE_ALIAS: case SW_OTHER_NOMINAL_TYPE:
		return print_entity(p, n, depth, as_prefix, NO_TYPE, named());
	case SW_EXPLICIT_CLOSURE:
		return print_entity(p, n, depth, as_prefix, FUNCTION_STYLE,
				    extra("closure #", index_plus_one(p, n, 1)));
	case SW_IMPLICIT_CLOSURE:
		return print_entity(p, n, depth, as_prefix, FUNCTION_STYLE,
				    extra("implicit closure #", index_plus_one(p, n, 1)));
	case SW_INITIALIZER:
		return print_entity(p, n, depth, as_prefix, NO_TYPE, extra("variable initialization expression", -1));
	case SW_PROPERTY_WRAPPER_BACKING_INITIALIZER:
		return print_entity(p, n, depth, as_prefix, NO_TYPE, extra("property wrapper backing initializer", -1));
	case SW_PROPERTY_WRAPPER_INIT_FROM_PROJECTED_VALUE:
		return print_entity(p, n, depth, as_prefix, NO_TYPE,
				    extra("property wrapper init from projected value", -1));
	case SW_DEFAULT_ARGUMENT_INITIALIZER:
		return print_entity(p, n, depth, as_prefix, NO_TYPE,
				    extra("default argument ", index_plus_one(p, n, 1) - 1));
	case SW_ALLOCATOR:
		return print_entity(p, n, depth, as_prefix, FUNCTION_STYLE,
				    extra(pr_is_class(kid(p, n, 0)) ? "__allocating_init" : "init", -1));
	case SW_CONSTRUCTOR:
		return print_entity(p, n, depth, as_prefix, FUNCTION_STYLE,
				    (struct entity_name){n->n > 2, "init", -1, ""});
	case SW_DESTRUCTOR: return print_entity(p, n, depth, as_prefix, NO_TYPE, extra("deinit", -1));
	case SW_DEALLOCATOR:
		return print_entity(p, n, depth, as_prefix, NO_TYPE,
				    extra(pr_is_class(kid(p, n, 0)) ? "__deallocating_deinit" : "deinit", -1));
	case SW_ISOLATED_DEALLOCATOR:
		return print_entity(p, n, depth, as_prefix, NO_TYPE,
				    extra(pr_is_class(kid(p, n, 0)) ? "__isolated_deallocating_deinit" : "deinit", -1));
	case SW_IVAR_INITIALIZER: return print_entity(p, n, depth, as_prefix, NO_TYPE, extra("__ivar_initializer", -1));
	case SW_IVAR_DESTROYER: return print_entity(p, n, depth, as_prefix, NO_TYPE, extra("__ivar_destroyer", -1));
	default:
		*done = context_node(p, n, depth);
		return NULL;
	}
}
