/* Printing specializations and thunks (see demangle_swift_print.h):
 * "generic specialization <...> of", function signature specializations
 * with what each parameter became, partial apply forwarders, key path and
 * reabstraction thunks, and automatic differentiation's derivatives and
 * thunks. */
#include "hangar/hangar.h"
#include "demangle_swift_print.h"

/* ---- function signature specializations ---- */

/* A payload: a mangled name (a propagated function) is printed
 * demangled, as Swift's demangleSymbolAsString with default options
 * (without sugar) does; anything else as it is. */
static void payload(struct pr *p, const sw_node *n)
{
	if (n->payload != SW_P_TEXT)
		return;
	if (p->nesting + 1 > SW_MAX_NESTING) {
		p->bad = true;
		return;
	}
	hg_buf name;
	hg_buf_init(&name);
	int rc = demangle_swift(n->text, n->len, false, p->nesting + 1, &name);
	if (rc < 0 || name.failed)
		p->oom = p->bad = true;
	else if (rc == 1)
		hg_buf_add(p->out, name.data, name.len);
	else
		put_text(p, n);
	hg_buf_release(&name);
}

static void param_kind(struct pr *p, const sw_node *n)
{
	static const struct { uint64_t bit; const char *name; } options[] = {
		{FS_EXISTENTIAL_TO_GENERIC, "Existential To Protocol Constrained Generic"},
		{FS_DEAD, "Dead"}, {FS_OWNED_TO_GUARANTEED, "Owned To Guaranteed"},
		{FS_GUARANTEED_TO_OWNED, "Guaranteed To Owned"},
	};
	static const char *const kinds[] = {
		[FS_CONSTANT_PROP_FUNCTION] = "Constant Propagated Function",
		[FS_CONSTANT_PROP_GLOBAL] = "Constant Propagated Global",
		[FS_CONSTANT_PROP_INTEGER] = "Constant Propagated Integer",
		[FS_CONSTANT_PROP_FLOAT] = "Constant Propagated Float",
		[FS_CONSTANT_PROP_STRING] = "Constant Propagated String",
		[FS_CLOSURE_PROP] = "Closure Propagated",
		[FS_BOX_TO_VALUE] = "Value Promoted from Box",
		[FS_BOX_TO_STACK] = "Stack Promoted from Box",
		[FS_IN_OUT_TO_OUT] = "InOut Converted to Out",
		[FS_CONSTANT_PROP_KEY_PATH] = "Constant Propagated KeyPath",
	};
	uint64_t v = n->index;
	bool printed = false;
	for (size_t i = 0; i < sizeof options / sizeof *options; i++)
		if (v & options[i].bit) {
			put(p, printed ? " and " : "");
			put(p, options[i].name);
			printed = true;
		}
	if (v & FS_SROA) {
		put(p, printed ? " and Exploded" : "Exploded");
		return;
	}
	if (printed)
		return;
	if (v >= sizeof kinds / sizeof *kinds)
		p->bad = true; /* Swift: unreachable */
	else
		put(p, kinds[v]);
}

/* What one parameter of a function signature specialization became:
 * its kind, then the payloads that kind has. */
static void sig_params(struct pr *p, const sw_node *n, int depth)
{
	unsigned i = 0, end = n->n;
	while (i < end && !p->bad) {
		const sw_node *first = n->kids[i];
		if (first->payload != SW_P_INDEX) {
			p->bad = true;
			return;
		}
		uint64_t k = first->index;
		unsigned need = k == FS_CONSTANT_PROP_STRING ? 3 : k == FS_CONSTANT_PROP_KEY_PATH ? 4 : 2;
		bool bracketed = k == FS_CONSTANT_PROP_FUNCTION || k == FS_CONSTANT_PROP_GLOBAL ||
				 k == FS_CONSTANT_PROP_INTEGER || k == FS_CONSTANT_PROP_FLOAT ||
				 k == FS_CONSTANT_PROP_STRING || k == FS_CONSTANT_PROP_KEY_PATH ||
				 k == FS_CLOSURE_PROP;
		if (!bracketed) {
			pr_node(p, n->kids[i++], depth + 1, false);
			continue;
		}
		if (i + need > end)
			return;
		put(p, "[");
		pr_node(p, n->kids[i++], depth + 1, false);
		put(p, " : ");
		pr_node(p, n->kids[i++], depth + 1, false);
		if (k == FS_CONSTANT_PROP_STRING) {
			put(p, "'");
			pr_node(p, n->kids[i++], depth + 1, false);
			put(p, "'");
		} else if (k == FS_CONSTANT_PROP_KEY_PATH) {
			put(p, "<");
			pr_node(p, n->kids[i++], depth + 1, false);
			put(p, ",");
			pr_node(p, n->kids[i++], depth + 1, false);
			put(p, ">");
		} else if (k == FS_CLOSURE_PROP) {
			put(p, ", Argument Types : [");
			while (i < end && n->kids[i]->kind == SW_TYPE) {
				pr_node(p, n->kids[i++], depth + 1, false);
				if (i < end && n->kids[i]->payload == SW_P_TEXT)
					put(p, ", ");
			}
		}
		put(p, "]");
	}
}

static void specialization(struct pr *p, const sw_node *n, int depth, const char *what,
			   const char *param_prefix)
{
	const char *sep = "";
	int arg = 0;
	put(p, what);
	put(p, " <");
	for (unsigned i = 0; i < n->n && !p->bad; i++) {
		const sw_node *c = n->kids[i];
		switch (c->kind) {
		case SW_SPECIALIZATION_PASS_ID: case SW_DROPPED_ARGUMENT:
			break;
		case SW_IS_SERIALIZED:
			put(p, sep);
			sep = ", ";
			pr_node(p, c, depth + 1, false);
			break;
		default:
			if (c->n) {
				put(p, sep);
				put(p, param_prefix);
				sep = ", ";
				if (c->kind == SW_FUNCTION_SIGNATURE_SPECIALIZATION_PARAM) {
					put(p, "Arg[");
					put_u64(p, (uint64_t)arg);
					put(p, "] = ");
					sig_params(p, c, depth);
				} else if (c->kind == SW_FUNCTION_SIGNATURE_SPECIALIZATION_RETURN) {
					put(p, "Return = ");
					sig_params(p, c, depth);
				} else {
					pr_node(p, c, depth + 1, false);
				}
			}
			arg++;
		}
	}
	put(p, "> of ");
}

static bool specialization_node(struct pr *p, const sw_node *n, int depth)
{
	switch (n->kind) {
	case SW_FUNCTION_SIGNATURE_SPECIALIZATION:
		specialization(p, n, depth, "function signature specialization", "");
		return true;
	case SW_GENERIC_PARTIAL_SPECIALIZATION:
		specialization(p, n, depth, "generic partial specialization", "Signature = ");
		return true;
	case SW_GENERIC_PARTIAL_SPECIALIZATION_NOT_RE_ABSTRACTED:
		specialization(p, n, depth, "generic not-reabstracted partial specialization", "Signature = ");
		return true;
	case SW_GENERIC_SPECIALIZATION: case SW_GENERIC_SPECIALIZATION_IN_RESILIENCE_DOMAIN:
		specialization(p, n, depth, "generic specialization", "");
		return true;
	case SW_GENERIC_SPECIALIZATION_PRESPECIALIZED:
		specialization(p, n, depth, "generic pre-specialization", "");
		return true;
	case SW_GENERIC_SPECIALIZATION_NOT_RE_ABSTRACTED:
		specialization(p, n, depth, "generic not re-abstracted specialization", "");
		return true;
	case SW_INLINED_GENERIC_FUNCTION:
		specialization(p, n, depth, "inlined generic function", "");
		return true;
	case SW_GENERIC_SPECIALIZATION_PARAM:
		pr_kid(p, n, 0, depth);
		for (unsigned i = 1; i < n->n; i++) {
			put(p, i == 1 ? " with " : " and ");
			pr_kid(p, n, i, depth);
		}
		return true;
	case SW_FUNCTION_SIGNATURE_SPECIALIZATION_PARAM_PAYLOAD: payload(p, n); return true;
	case SW_FUNCTION_SIGNATURE_SPECIALIZATION_PARAM_KIND: param_kind(p, n); return true;
	default: return false;
	}
}

/* ---- thunks ---- */

static void key_path(struct pr *p, const sw_node *n, int depth)
{
	switch (n->kind) {
	case SW_KEY_PATH_GETTER_THUNK_HELPER: put(p, "key path getter for "); break;
	case SW_KEY_PATH_SETTER_THUNK_HELPER: put(p, "key path setter for "); break;
	case SW_KEY_PATH_UNAPPLIED_METHOD_THUNK_HELPER: put(p, "key path unapplied method "); break;
	default: put(p, "key path applied method "); break;
	}
	pr_kid(p, n, 0, depth);
	put(p, " : ");
	for (unsigned i = 1; i < n->n; i++) {
		if (n->kids[i]->kind == SW_IS_SERIALIZED)
			put(p, ", ");
		pr_kid(p, n, i, depth);
	}
}

static void key_path_index(struct pr *p, const sw_node *n, int depth)
{
	put(p, n->kind == SW_KEY_PATH_EQUALS_THUNK_HELPER ? "key path index equality operator for "
							  : "key path index hash operator for ");
	unsigned last = n->n;
	const sw_node *c = kid(p, n, last - 1);
	if (sw_is(c, SW_IS_SERIALIZED))
		c = kid(p, n, --last - 1);
	if (!c)
		return;
	if (c->kind == SW_DEPENDENT_GENERIC_SIGNATURE) {
		pr_node(p, c, depth + 1, false);
		last--;
	}
	put(p, "(");
	for (unsigned i = 0; i < last; i++) {
		if (i)
			put(p, ", ");
		pr_kid(p, n, i, depth);
	}
	put(p, ")");
}

static void reabstraction(struct pr *p, const sw_node *n, int depth)
{
	bool with_self = n->kind == SW_REABSTRACTION_THUNK_HELPER_WITH_SELF;
	unsigned i = 0;
	put(p, n->kind == SW_REABSTRACTION_THUNK_HELPER ? "reabstraction thunk helper "
							 : "reabstraction thunk ");
	if (n->n == (with_self ? 4u : 3u)) {
		pr_kid(p, n, 0, depth);
		put(p, " ");
		i = 1;
	}
	put(p, "from ");
	pr_kid(p, n, i + (with_self ? 2 : 1), depth);
	put(p, " to ");
	pr_kid(p, n, i + (with_self ? 1 : 0), depth);
	if (with_self) {
		put(p, " self ");
		pr_kid(p, n, i, depth);
	}
}

static bool thunk_node(struct pr *p, const sw_node *n, int depth)
{
	switch (n->kind) {
	case SW_PARTIAL_APPLY_FORWARDER: case SW_PARTIAL_APPLY_OBJC_FORWARDER:
		put(p, n->kind == SW_PARTIAL_APPLY_FORWARDER ? "partial apply forwarder"
							     : "partial apply ObjC forwarder");
		if (n->n) {
			put(p, " for ");
			pr_children(p, n, depth, NULL);
		}
		return true;
	case SW_KEY_PATH_GETTER_THUNK_HELPER: case SW_KEY_PATH_SETTER_THUNK_HELPER:
	case SW_KEY_PATH_UNAPPLIED_METHOD_THUNK_HELPER: case SW_KEY_PATH_APPLIED_METHOD_THUNK_HELPER:
		key_path(p, n, depth);
		return true;
	case SW_KEY_PATH_EQUALS_THUNK_HELPER: case SW_KEY_PATH_HASH_THUNK_HELPER:
		key_path_index(p, n, depth);
		return true;
	case SW_REABSTRACTION_THUNK: case SW_REABSTRACTION_THUNK_HELPER:
	case SW_REABSTRACTION_THUNK_HELPER_WITH_SELF:
		reabstraction(p, n, depth);
		return true;
	default:
		return false;
	}
}

/* ---- automatic differentiation ---- */

static void autodiff_kind(struct pr *p, const sw_node *n)
{
	switch (n->index) {
	case 'f': put(p, "forward-mode derivative"); break;
	case 'r': put(p, "reverse-mode derivative"); break;
	case 'd': put(p, "differential"); break;
	case 'p': put(p, "pullback"); break;
	default: p->bad = true; break;
	}
}

static void index_subset(struct pr *p, const sw_node *n)
{
	bool any = false;
	put(p, "{");
	for (size_t i = 0; i < n->len; i++) {
		if (n->text[i] != 'S')
			continue;
		put(p, any ? ", " : "");
		put_u64(p, i);
		any = true;
	}
	put(p, "}");
}

/* A derivative (or its vtable thunk): what it is the derivative of, with
 * respect to which parameters and results, in which generic signature. */
static void autodiff_function(struct pr *p, const sw_node *n, int depth)
{
	unsigned end = 0;
	while (end < n->n && n->kids[end]->kind != SW_AUTO_DIFF_FUNCTION_KIND)
		end++;
	if (n->kind == SW_AUTO_DIFF_DERIVATIVE_VTABLE_THUNK)
		put(p, "vtable thunk for ");
	pr_kid(p, n, end, depth);
	put(p, " of ");
	const sw_node *sig = NULL;
	for (unsigned i = 0; i < end; i++) {
		if (i == end - 1 && n->kids[i]->kind == SW_DEPENDENT_GENERIC_SIGNATURE) {
			sig = n->kids[i];
			break;
		}
		pr_kid(p, n, i, depth);
	}
	put(p, " with respect to parameters ");
	pr_kid(p, n, end + 1, depth);
	put(p, " and results ");
	pr_kid(p, n, end + 2, depth);
	if (sig) {
		put(p, " with ");
		pr_node(p, sig, depth + 1, false);
	}
}

static void subset_parameters_thunk(struct pr *p, const sw_node *n, int depth)
{
	put(p, "autodiff subset parameters thunk for ");
	if (n->n < 5) {
		p->bad = true;
		return;
	}
	unsigned at = n->n - 5; /* the last "from" kid: a type, or a global's */
	pr_kid(p, n, at + 1, depth);
	put(p, " from ");
	if (at == 0) {
		pr_kid(p, n, 0, depth);
	} else {
		for (unsigned i = 0; i < at; i++)
			pr_kid(p, n, i, depth);
	}
	put(p, " with respect to parameters ");
	pr_kid(p, n, at + 2, depth);
	put(p, " and results ");
	pr_kid(p, n, at + 3, depth);
	put(p, " to parameters ");
	pr_kid(p, n, at + 4, depth);
	if (at > 0) {
		put(p, " of type ");
		pr_kid(p, n, at, depth);
	}
}

static void self_reordering_thunk(struct pr *p, const sw_node *n, int depth)
{
	put(p, "autodiff self-reordering reabstraction thunk ");
	const sw_node *from = kid(p, n, 0), *to = kid(p, n, 1), *sig = NULL;
	unsigned i = 2;
	if (!from || !to)
		return;
	if (sw_is(kid(p, n, 2), SW_DEPENDENT_GENERIC_SIGNATURE))
		sig = n->kids[i++];
	put(p, "for ");
	pr_kid(p, n, i, depth);
	if (sig) {
		pr_node(p, sig, depth + 1, false);
		put(p, " ");
	}
	put(p, " from ");
	pr_node(p, from, depth + 1, false);
	put(p, " to ");
	pr_node(p, to, depth + 1, false);
}

static void differentiability_witness(struct pr *p, const sw_node *n, int depth)
{
	const sw_node *last = kid(p, n, n->n - 1);
	if (!last || n->n < 3)
		return;
	unsigned kind_at = n->n - (last->kind == SW_DEPENDENT_GENERIC_SIGNATURE ? 4 : 3);
	const sw_node *k = kid(p, n, kind_at);
	if (!k)
		return;
	switch (k->index) {
	case 'f': put(p, "forward-mode"); break;
	case 'r': put(p, "reverse-mode"); break;
	case 'd': put(p, "normal"); break;
	case 'l': put(p, "linear"); break;
	default: p->bad = true; return;
	}
	put(p, " differentiability witness for ");
	unsigned i = 0;
	for (; i < n->n && n->kids[i]->kind != SW_INDEX; i++)
		pr_kid(p, n, i, depth);
	i++;
	put(p, " with respect to parameters ");
	pr_kid(p, n, i++, depth);
	put(p, " and results ");
	pr_kid(p, n, i++, depth);
	if (i < n->n) {
		put(p, " with ");
		pr_kid(p, n, i, depth);
	}
}

static bool autodiff_node(struct pr *p, const sw_node *n, int depth)
{
	switch (n->kind) {
	case SW_AUTO_DIFF_FUNCTION: case SW_AUTO_DIFF_DERIVATIVE_VTABLE_THUNK:
		autodiff_function(p, n, depth);
		return true;
	case SW_AUTO_DIFF_SUBSET_PARAMETERS_THUNK: subset_parameters_thunk(p, n, depth); return true;
	case SW_AUTO_DIFF_SELF_REORDERING_REABSTRACTION_THUNK: self_reordering_thunk(p, n, depth); return true;
	case SW_AUTO_DIFF_FUNCTION_KIND: autodiff_kind(p, n); return true;
	case SW_DIFFERENTIABILITY_WITNESS: differentiability_witness(p, n, depth); return true;
	case SW_INDEX_SUBSET: index_subset(p, n); return true;
	default: return false;
	}
}

bool pr_thunk_node(struct pr *p, const sw_node *n, int depth)
{
	return specialization_node(p, n, depth) || thunk_node(p, n, depth) || autodiff_node(p, n, depth);
}
