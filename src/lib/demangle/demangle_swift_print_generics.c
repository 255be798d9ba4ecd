/* Printing generic signatures ("<A, B where A: P>") and their
 * requirements (see demangle_swift_print.h). */
#include "demangle_swift_print.h"

void pr_generic_param_name(struct pr *p, uint64_t depth, uint64_t index)
{
	char name[40];
	size_t n = 0;
	do {
		name[n++] = (char)('A' + index % 26);
		index /= 26;
	} while (index && n < 20);
	name[n] = 0;
	put(p, name);
	if (depth)
		put_u64(p, depth);
}

/* Swift's test of whether parameter (depth, index) is a pack ("each")
 * compares the marker's depth with the index and its index with the
 * depth; the same here, for the same output. */
static bool marked(struct pr *p, const sw_node *sig, unsigned from, unsigned to, enum sw_kind marker,
		   uint64_t depth, uint64_t index)
{
	for (unsigned i = from; i < to && !p->bad; i++) {
		const sw_node *c = sig->kids[i];
		if (c->kind != marker)
			continue;
		c = kid(p, c, 0);
		if (!sw_is(c, SW_TYPE))
			continue;
		if (marker == SW_DEPENDENT_GENERIC_PARAM_VALUE_MARKER) {
			/* Swift reads a second kid of this Type, which has one */
			p->bad = true;
			return false;
		}
		c = kid(p, c, 0);
		if (!sw_is(c, SW_DEPENDENT_GENERIC_PARAM_TYPE))
			continue;
		const sw_node *a = kid(p, c, 0), *b = kid(p, c, 1);
		if (a && b && index == a->index && depth == b->index)
			return true;
	}
	return false;
}

static void generic_signature(struct pr *p, const sw_node *sig, int depth)
{
	unsigned n = sig->n, counts = 0, first_req;
	while (counts < n && sig->kids[counts]->kind == SW_DEPENDENT_GENERIC_PARAM_COUNT)
		counts++;
	for (first_req = counts; first_req < n; first_req++) {
		const sw_node *c = sig->kids[first_req];
		if (c->kind == SW_TYPE && !(c = kid(p, c, 0)))
			return;
		if (c->kind != SW_DEPENDENT_GENERIC_PARAM_PACK_MARKER &&
		    c->kind != SW_DEPENDENT_GENERIC_PARAM_VALUE_MARKER)
			break;
	}
	put(p, "<");
	for (unsigned d = 0; d < counts && !p->bad; d++) {
		if (d)
			put(p, "><");
		uint64_t count = sig->kids[d]->index;
		for (uint64_t i = 0; i < count && !p->bad; i++) {
			if (i)
				put(p, ", ");
			if (i >= 128) {
				put(p, "...");
				break;
			}
			if (marked(p, sig, counts, first_req, SW_DEPENDENT_GENERIC_PARAM_PACK_MARKER, d, i))
				put(p, "each ");
			marked(p, sig, counts, first_req, SW_DEPENDENT_GENERIC_PARAM_VALUE_MARKER, d, i);
			pr_generic_param_name(p, d, i);
		}
	}
	if (first_req != n) {
		put(p, " where ");
		for (unsigned i = first_req; i < n && !p->bad; i++) {
			if (i > first_req)
				put(p, ", ");
			pr_node(p, sig->kids[i], depth + 1, false);
		}
	}
	put(p, ">");
}

static const char *layout_name(char c)
{
	switch (c) {
	case 'U': return "_UnknownLayout";
	case 'R': return "_RefCountedObject";
	case 'N': return "_NativeRefCountedObject";
	case 'C': return "AnyObject";
	case 'D': return "_NativeClass";
	case 'T': case 'E': case 'e': return "_Trivial";
	case 'M': case 'm': return "_TrivialAtMost";
	default: return "";
	}
}

static bool requirement(struct pr *p, const sw_node *n, int depth)
{
	const sw_node *k;
	switch (n->kind) {
	case SW_DEPENDENT_GENERIC_CONFORMANCE_REQUIREMENT:
		pr_kid(p, n, 0, depth);
		put(p, ": ");
		pr_kid(p, n, 1, depth);
		return true;
	case SW_DEPENDENT_GENERIC_INVERSE_CONFORMANCE_REQUIREMENT:
		pr_kid(p, n, 0, depth);
		put(p, ": ~");
		if (!(k = kid(p, n, 1)))
			return true;
		if (k->index == 0) {
			put(p, "Swift.Copyable");
		} else if (k->index == 1) {
			put(p, "Swift.Escapable");
		} else {
			put(p, "Swift.<bit ");
			put_u64(p, k->index);
			put(p, ">");
		}
		return true;
	case SW_DEPENDENT_GENERIC_LAYOUT_REQUIREMENT:
		pr_kid(p, n, 0, depth);
		put(p, ": ");
		if (!(k = kid(p, n, 1)) || k->kind != SW_IDENTIFIER || k->len != 1) {
			p->bad = true;
			return true;
		}
		put(p, layout_name(k->text[0]));
		if (n->n > 2) {
			put(p, "(");
			pr_kid(p, n, 2, depth);
			if (n->n > 3) {
				put(p, ", ");
				pr_kid(p, n, 3, depth);
			}
			put(p, ")");
		}
		return true;
	case SW_DEPENDENT_GENERIC_SAME_TYPE_REQUIREMENT:
		pr_kid(p, n, 0, depth);
		put(p, " == ");
		pr_kid(p, n, 1, depth);
		return true;
	case SW_DEPENDENT_GENERIC_SAME_SHAPE_REQUIREMENT:
		pr_kid(p, n, 0, depth);
		put(p, ".shape == ");
		pr_kid(p, n, 1, depth);
		put(p, ".shape");
		return true;
	default:
		return false;
	}
}

bool pr_generics_node(struct pr *p, const sw_node *n, int depth)
{
	if (n->kind == SW_DEPENDENT_GENERIC_SIGNATURE || n->kind == SW_DEPENDENT_PSEUDOGENERIC_SIGNATURE) {
		generic_signature(p, n, depth);
		return true;
	}
	return requirement(p, n, depth);
}
