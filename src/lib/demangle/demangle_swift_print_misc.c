/* Printing the rest (see demangle_swift_print.h): witnesses and
 * descriptors of several parts, conformances, SIL function types and
 * boxes, and where macro expansions are. */
#include "demangle_swift_print.h"

/* "<a><kid i><b><kid j><c>..." for nodes that print a few kids between
 * fixed texts: texts[k] before kids[k], texts[n] after the last. */
static void pattern(struct pr *p, const sw_node *n, int depth, const char *const *texts,
		    const unsigned *kids, unsigned count)
{
	for (unsigned k = 0; k < count && !p->bad; k++) {
		put(p, texts[k]);
		pr_kid(p, n, kids[k], depth);
	}
	put(p, texts[count]);
}

static const struct {
	enum sw_kind kind;
	const char *texts[4];
	unsigned kids[3];
	unsigned count;
} patterns[] = {
	{SW_LAZY_PROTOCOL_WITNESS_TABLE_ACCESSOR,
	 {"lazy protocol witness table accessor for type ", " and conformance ", ""}, {0, 1}, 2},
	{SW_LAZY_PROTOCOL_WITNESS_TABLE_CACHE_VARIABLE,
	 {"lazy protocol witness table cache variable for type ", " and conformance ", ""}, {0, 1}, 2},
	{SW_VTABLE_THUNK, {"vtable thunk for ", " dispatching to ", ""}, {1, 0}, 2},
	{SW_PROTOCOL_WITNESS, {"protocol witness for ", " in conformance ", ""}, {1, 0}, 2},
	{SW_ASSOCIATED_CONFORMANCE_DESCRIPTOR,
	 {"associated conformance descriptor for ", ".", ": ", ""}, {0, 1, 2}, 3},
	{SW_DEFAULT_ASSOCIATED_CONFORMANCE_ACCESSOR,
	 {"default associated conformance accessor for ", ".", ": ", ""}, {0, 1, 2}, 3},
	{SW_ASSOCIATED_TYPE_METADATA_ACCESSOR, {"associated type metadata accessor for ", " in ", ""}, {1, 0}, 2},
	{SW_BASE_CONFORMANCE_DESCRIPTOR, {"base conformance descriptor for ", ": ", ""}, {0, 1}, 2},
	{SW_ASSOCIATED_TYPE_WITNESS_TABLE_ACCESSOR,
	 {"associated type witness table accessor for ", " : ", " in ", ""}, {1, 2, 0}, 3},
	{SW_BASE_WITNESS_TABLE_ACCESSOR, {"base witness table accessor for ", " in ", ""}, {1, 0}, 2},
	{SW_REABSTRACTION_THUNK_HELPER_WITH_GLOBAL_ACTOR, {"", " with global actor constraint ", ""}, {0, 1}, 2},
	{SW_FIELD_OFFSET, {"", "field offset for ", ""}, {0, 1}, 2},
	{SW_DEPENDENT_PROTOCOL_CONFORMANCE_OPAQUE, {"opaque result conformance ", " of ", ""}, {0, 1}, 2},
	{SW_GLOBAL_VARIABLE_ONCE_TOKEN, {"one-time initialization token for ", ""}, {1}, 1},
	{SW_GLOBAL_VARIABLE_ONCE_FUNCTION, {"one-time initialization function for ", ""}, {1}, 1},
	{SW_ASYNC_AWAIT_RESUME_PARTIAL_FUNCTION, {"(", ") await resume partial function for "}, {0}, 1},
	{SW_ASYNC_SUSPEND_RESUME_PARTIAL_FUNCTION, {"(", ") suspend resume partial function for "}, {0}, 1},
};

static const char *const value_witness_names[] = {
	"allocateBuffer", "assignWithCopy", "assignWithTake", "deallocateBuffer", "destroy",
	"destroyBuffer", "destroyArray", "initializeBufferWithCopyOfBuffer", "initializeBufferWithCopy",
	"initializeWithCopy", "initializeBufferWithTake", "initializeWithTake", "projectBuffer",
	"initializeBufferWithTakeOfBuffer", "initializeArrayWithCopy",
	"initializeArrayWithTakeFrontToBack", "initializeArrayWithTakeBackToFront",
	"storeExtraInhabitant", "getExtraInhabitantIndex", "getEnumTag", "destructiveProjectEnumData",
	"destructiveInjectEnumTag", "getEnumTagSinglePayload", "storeEnumTagSinglePayload",
};

/* ---- conformances ---- */

static void optional_index(struct pr *p, const sw_node *n)
{
	if (n && n->payload == SW_P_INDEX) {
		put(p, "#");
		put_u64(p, n->index);
		put(p, " ");
	}
}

static bool conformance(struct pr *p, const sw_node *n, int depth)
{
	const char *what;
	switch (n->kind) {
	case SW_PROTOCOL_CONFORMANCE:
		if (n->n < 3) {
			p->bad = true;
		} else if (n->n == 4) {
			pattern(p, n, depth, (const char *const[]){"property behavior storage of ", " in ", " : ", ""},
				(const unsigned[]){2, 0, 1}, 3);
		} else {
			pattern(p, n, depth, (const char *const[]){"", " : ", " in ", ""}, (const unsigned[]){0, 1, 2}, 3);
		}
		return true;
	case SW_ANY_PROTOCOL_CONFORMANCE_LIST:
		if (n->n > 0) {
			put(p, "(");
			pr_children(p, n, depth, ", ");
			put(p, ")");
		}
		return true;
	case SW_CONCRETE_PROTOCOL_CONFORMANCE:
		put(p, "concrete protocol conformance ");
		optional_index(p, n);
		pattern(p, n, depth, (const char *const[]){"", " to ", ""}, (const unsigned[]){0, 1}, 2);
		if (n->n > 2 && n->kids[2]->n > 0) {
			put(p, " with conditional requirements: ");
			pr_kid(p, n, 2, depth);
		}
		return true;
	case SW_DEPENDENT_PROTOCOL_CONFORMANCE_ASSOCIATED: what = "dependent associated protocol conformance "; break;
	case SW_DEPENDENT_PROTOCOL_CONFORMANCE_INHERITED: what = "dependent inherited protocol conformance "; break;
	case SW_DEPENDENT_PROTOCOL_CONFORMANCE_ROOT: what = "dependent root protocol conformance "; break;
	case SW_RETROACTIVE_CONFORMANCE:
		if (n->n == 2)
			pattern(p, n, depth, (const char *const[]){"retroactive @ ", "", ""}, (const unsigned[]){0, 1}, 2);
		return true;
	default:
		return false;
	}
	put(p, what);
	optional_index(p, kid(p, n, 2));
	pattern(p, n, depth, (const char *const[]){"", " to ", ""}, (const unsigned[]){0, 1}, 2);
	return true;
}

/* ---- SIL function types ---- */

struct impl_state {
	enum { ATTRS, INPUTS, RESULTS } at;
	const sw_node *pattern_subs, *invocation_subs, *sending;
};

/* Steps to the inputs or the results, printing what opens them. */
static void impl_transition(struct pr *p, struct impl_state *st, int to, int depth)
{
	if (st->at == ATTRS && to > ATTRS) {
		if (st->pattern_subs) {
			put(p, "@substituted ");
			pr_kid(p, st->pattern_subs, 0, depth);
			put(p, " ");
		}
		put(p, "(");
		st->at = INPUTS;
	}
	if (st->at == INPUTS && to == RESULTS) {
		put(p, ") -> ");
		if (st->sending) {
			pr_node(p, st->sending, depth + 1, false);
			put(p, " ");
		}
		put(p, "(");
		st->at = RESULTS;
	}
}

static void impl_function_type(struct pr *p, const sw_node *f, int depth)
{
	struct impl_state st = {ATTRS, NULL, NULL, NULL};
	for (unsigned i = 0; i < f->n && !p->bad; i++) {
		const sw_node *c = f->kids[i];
		int to = c->kind == SW_IMPL_PARAMETER ? INPUTS
		       : c->kind == SW_IMPL_RESULT || c->kind == SW_IMPL_YIELD || c->kind == SW_IMPL_ERROR_RESULT
			       ? RESULTS : ATTRS;
		if (to != ATTRS) {
			if ((int)st.at == to)
				put(p, ", ");
			if ((int)st.at > to) {
				p->bad = true; /* Swift asserts the order */
				return;
			}
			impl_transition(p, &st, to, depth);
			pr_node(p, c, depth + 1, false);
		} else if (c->kind == SW_IMPL_PATTERN_SUBSTITUTIONS) {
			st.pattern_subs = c;
		} else if (c->kind == SW_IMPL_INVOCATION_SUBSTITUTIONS) {
			st.invocation_subs = c;
		} else if (c->kind == SW_IMPL_SENDING_RESULT) {
			st.sending = c;
		} else if (st.at != ATTRS) {
			p->bad = true;
			return;
		} else {
			pr_node(p, c, depth + 1, false);
			put(p, " ");
		}
	}
	impl_transition(p, &st, RESULTS, depth);
	put(p, ")");
	if (st.pattern_subs) {
		put(p, " for <");
		pr_children(p, kid(p, st.pattern_subs, 1), depth, NULL);
		put(p, ">");
	}
	if (st.invocation_subs) {
		put(p, " for <");
		pr_children(p, kid(p, st.invocation_subs, 0), depth, NULL);
		put(p, ">");
	}
}

static void impl_text_space(struct pr *p, const sw_node *n)
{
	if (n->len) {
		put_text(p, n);
		put(p, " ");
	}
}

static bool impl_node(struct pr *p, const sw_node *n, int depth)
{
	switch (n->kind) {
	case SW_IMPL_FUNCTION_TYPE: impl_function_type(p, n, depth); return true;
	case SW_IMPL_PARAMETER: case SW_IMPL_RESULT:
		/* The convention, then the differentiability and sending only
		 * when they are all there is between it and the type (Swift's
		 * printer leaves out isolated and implicit leading so). */
		pr_kid(p, n, 0, depth);
		put(p, " ");
		if (n->n == 3 || n->n == 4)
			for (unsigned i = 1; i + 1 < n->n; i++)
				pr_kid(p, n, i, depth);
		pr_kid(p, n, n->n - 1, depth);
		return true;
	case SW_IMPL_ERROR_RESULT: put(p, "@error "); pr_children(p, n, depth, " "); return true;
	case SW_IMPL_YIELD: put(p, "@yields "); pr_children(p, n, depth, " "); return true;
	case SW_IMPL_PARAMETER_RESULT_DIFFERENTIABILITY: case SW_IMPL_PARAMETER_SENDING:
	case SW_IMPL_PARAMETER_ISOLATED: case SW_IMPL_PARAMETER_IMPLICIT_LEADING:
		impl_text_space(p, n);
		return true;
	case SW_IMPL_COROUTINE_KIND:
		if (n->len) {
			put(p, "@");
			put_text(p, n);
		}
		return true;
	case SW_IMPL_DIFFERENTIABILITY_KIND:
		put(p, "@differentiable");
		switch (n->index) {
		case 'd': break;
		case 'l': put(p, "(_linear)"); break;
		case 'f': put(p, "(_forward)"); break;
		case 'r': put(p, "(reverse)"); break;
		default: p->bad = true; break;
		}
		return true;
	case SW_IMPL_FUNCTION_CONVENTION: {
		const sw_node *name = kid(p, n, 0);
		if (!name || n->n > 2) {
			p->bad = true;
			return true;
		}
		put(p, "@convention(");
		put_text(p, name);
		if (n->n == 2) {
			put(p, ", mangledCType: \"");
			pr_kid(p, n, 1, depth);
			put(p, "\"");
		}
		put(p, ")");
		return true;
	}
	case SW_IMPL_INVOCATION_SUBSTITUTIONS:
		put(p, "for <");
		pr_children(p, kid(p, n, 0), depth, ", ");
		put(p, ">");
		return true;
	case SW_IMPL_PATTERN_SUBSTITUTIONS:
		put(p, "@substituted ");
		pr_kid(p, n, 0, depth);
		put(p, " for <");
		pr_children(p, kid(p, n, 1), depth, ", ");
		put(p, ">");
		return true;
	default:
		return false;
	}
}

/* ---- SIL boxes ---- */

static bool box_node(struct pr *p, const sw_node *n, int depth)
{
	switch (n->kind) {
	case SW_SIL_BOX_TYPE_WITH_LAYOUT: {
		const sw_node *args = NULL;
		if (n->n != 1 && n->n != 3) {
			p->bad = true;
			return true;
		}
		if (n->n == 3) {
			args = n->kids[2];
			pr_kid(p, n, 1, depth);
			put(p, " ");
		}
		pr_kid(p, n, 0, depth);
		if (args) {
			put(p, " <");
			pr_children(p, args, depth, ", ");
			put(p, ">");
		}
		return true;
	}
	case SW_SIL_BOX_LAYOUT:
		put(p, "{");
		for (unsigned i = 0; i < n->n; i++) {
			put(p, i ? ", " : " ");
			pr_kid(p, n, i, depth);
		}
		put(p, " }");
		return true;
	case SW_SIL_BOX_IMMUTABLE_FIELD: case SW_SIL_BOX_MUTABLE_FIELD:
		put(p, n->kind == SW_SIL_BOX_IMMUTABLE_FIELD ? "let " : "var ");
		pr_kid(p, n, 0, depth);
		return true;
	default:
		return false;
	}
}

/* ---- the rest ---- */

static void async_completion_handler(struct pr *p, const sw_node *n, int depth)
{
	if (n->kind == SW_PREDEFINED_OBJC_ASYNC_COMPLETION_HANDLER_IMPL)
		put(p, "predefined ");
	put(p, "@objc completion handler block implementation for ");
	if (n->n >= 4)
		pr_kid(p, n, 3, depth);
	pattern(p, n, depth, (const char *const[]){"", " with result type ", ""}, (const unsigned[]){0, 1}, 2);
	const sw_node *flag = kid(p, n, 2);
	if (!flag)
		return;
	switch (flag->index) {
	case 0: break;
	case 1: put(p, " nonzero on error"); break;
	case 2: put(p, " zero on error"); break;
	default: put(p, " <invalid error flag>"); break;
	}
}

static void macro_expansion_loc(struct pr *p, const sw_node *n, int depth)
{
	static const char *const parts[] = {"module ", " file ", " line ", " column "};
	for (unsigned i = 0; i < n->n && i < 4; i++) {
		put(p, parts[i]);
		pr_kid(p, n, i, depth);
	}
}

bool pr_misc_node(struct pr *p, const sw_node *n, int depth)
{
	for (size_t i = 0; i < sizeof patterns / sizeof *patterns; i++)
		if (patterns[i].kind == n->kind) {
			pattern(p, n, depth, patterns[i].texts, patterns[i].kids, patterns[i].count);
			return true;
		}
	const sw_node *k;
	switch (n->kind) {
	case SW_VALUE_WITNESS:
		if (!(k = kid(p, n, 0)))
			return true;
		if (k->index >= sizeof value_witness_names / sizeof *value_witness_names) {
			p->bad = true;
			return true;
		}
		put(p, value_witness_names[k->index]);
		put(p, " value witness for ");
		pr_kid(p, n, 1, depth);
		return true;
	case SW_OUTLINED_COPY: case SW_OUTLINED_CONSUME:
		put(p, n->kind == SW_OUTLINED_COPY ? "outlined copy of " : "outlined consume of ");
		pr_kid(p, n, 0, depth);
		if (n->n > 1)
			pr_kid(p, n, 1, depth);
		return true;
	case SW_ASSOC_TYPE_PATH: pr_children(p, n, depth, "."); return true;
	case SW_GLOBAL_VARIABLE_ONCE_DECL_LIST:
		if (n->n == 1) {
			pr_kid(p, n, 0, depth);
		} else {
			put(p, "(");
			pr_children(p, n, depth, ", ");
			put(p, ")");
		}
		return true;
	case SW_OBJC_ASYNC_COMPLETION_HANDLER_IMPL: case SW_PREDEFINED_OBJC_ASYNC_COMPLETION_HANDLER_IMPL:
		async_completion_handler(p, n, depth);
		return true;
	case SW_MACRO_EXPANSION_LOC: macro_expansion_loc(p, n, depth); return true;
	default:
		return conformance(p, n, depth) || impl_node(p, n, depth) || box_node(p, n, depth);
	}
}
