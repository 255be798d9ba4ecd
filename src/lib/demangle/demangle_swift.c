/* Swift symbols: which reader (Swift 4.2 and later here, the older "_T"
 * manglings in demangle_swift_old.c), the stack of the newer one and its
 * table of operators, and the tree of the whole symbol: the function
 * attributes on top of the stack (specializations, thunks, @objc) wrap
 * what lies below, and an unmangled suffix (".1", ".llvm.123") goes last,
 * as Swift's Demangler::demangleSymbol does.  See demangle_swift_dm.h. */
#include <string.h>

#include "hangar/demangle.h"
#include "hangar/hangar.h"
#include "demangle_swift_dm.h"

/* ---- the stack and the substitutions ---- */

static bool grow(struct dm *d, sw_node ***items, size_t *cap, size_t n, size_t max)
{
	if (n < *cap)
		return true;
	if (n >= max)
		return false;
	size_t ncap = *cap ? *cap * 2 : 32;
	sw_node **x = hg_arena_regrow(d->h->arena, *items, *cap * sizeof *x, ncap * sizeof *x);
	if (!x) {
		d->h->oom = true;
		return false;
	}
	*items = x;
	*cap = ncap;
	return true;
}

bool dm_push(struct dm *d, sw_node *n)
{
	if (!n || !grow(d, &d->stack, &d->cap_stack, d->n_stack, SW_MAX_STACK))
		return false;
	d->stack[d->n_stack++] = n;
	return true;
}

sw_node *dm_pop(struct dm *d)
{
	return d->n_stack ? d->stack[--d->n_stack] : NULL;
}

sw_node *dm_pop_kind(struct dm *d, enum sw_kind kind)
{
	return d->n_stack && d->stack[d->n_stack - 1]->kind == kind ? dm_pop(d) : NULL;
}

sw_node *dm_pop_if(struct dm *d, bool (*pred)(enum sw_kind))
{
	return d->n_stack && pred(d->stack[d->n_stack - 1]->kind) ? dm_pop(d) : NULL;
}

bool dm_add_subst(struct dm *d, sw_node *n)
{
	if (!n)
		return true; /* Swift's addSubstitution ignores a null node */
	if (!grow(d, &d->subst, &d->cap_subst, d->n_subst, SW_MAX_NODES))
		return false;
	d->subst[d->n_subst++] = n;
	return true;
}

bool dm_next_if2(struct dm *d, const char *two)
{
	if (d->pos + 2 > d->len || d->s[d->pos] != two[0] || d->s[d->pos + 1] != two[1])
		return false;
	d->pos += 2;
	return true;
}

/* ---- operators ---- */

static sw_node *pop_type_child_into(struct dm *d, enum sw_kind kind)
{
	return dm_type(d, dm_with(d, kind, dm_pop_type_child(d)));
}

/* The unmangled rest: ".<n>" IRGen adds to partial apply thunks and
 * outlined copies, ".llvm.<n>" of LTO. */
static sw_node *suffix(struct dm *d)
{
	dm_back(d);
	sw_node *n = sw_text(d->h, SW_SUFFIX, d->s + d->pos, d->len - d->pos);
	d->pos = d->len;
	return n;
}

/* The operators that are a single letter with no bytes of their own. */
static sw_node *simple_operator(struct dm *d, char c)
{
	switch (c) {
	case 'K': return dm_new(d, SW_THROWS_ANNOTATION);
	case 'N': return dm_with(d, SW_TYPE_METADATA, dm_pop_kind(d, SW_TYPE));
	case 'Z': return dm_with(d, SW_STATIC, dm_pop_if(d, sw_is_entity));
	case 'c': return dm_pop_function_type(d, SW_FUNCTION_TYPE, false);
	case 'd': return dm_new(d, SW_VARIADIC_MARKER);
	case 'h': return pop_type_child_into(d, SW_SHARED);
	case 'm': return dm_type(d, dm_with(d, SW_METATYPE, dm_pop_kind(d, SW_TYPE)));
	case 'n': return pop_type_child_into(d, SW_OWNED);
	case 'q': return dm_type(d, dm_generic_param_index(d));
	case 's': return sw_cstr(d->h, SW_MODULE, "Swift");
	case 't': return dm_pop_tuple(d);
	case 'x': return dm_type(d, dm_dependent_param(d, 0, 0));
	case 'y': return dm_new(d, SW_EMPTY_LIST);
	case 'z': return pop_type_child_into(d, SW_IN_OUT);
	case '_': return dm_new(d, SW_FIRST_ELEMENT_MARKER);
	default: return NULL;
	}
}

sw_node *dm_operator(struct dm *d)
{
	char c = dm_next(d);
	switch (c) {
	case 'A': return dm_multi_substitutions(d);
	case 'B': return dm_builtin_type(d);
	case 'C': return dm_any_generic_type(d, SW_CLASS);
	case 'D': return dm_type_mangling(d);
	case 'E': return dm_extension_context(d);
	case 'F': return dm_plain_function(d);
	case 'G': return dm_bound_generic_type(d);
	case 'H': return dm_conformance_operator(d);
	case 'I': return dm_impl_function_type(d);
	case 'L': return dm_local_identifier(d);
	case 'M': return dm_metatype(d);
	case 'O': return dm_any_generic_type(d, SW_ENUM);
	case 'P': return dm_any_generic_type(d, SW_PROTOCOL);
	case 'Q': return dm_archetype(d);
	case 'R': return dm_generic_requirement(d);
	case 'S': return dm_standard_substitution(d);
	case 'T': return dm_thunk_or_specialization(d);
	case 'V': return dm_any_generic_type(d, SW_STRUCTURE);
	case 'W': return dm_witness_operator(d);
	case 'X': return dm_special_type(d);
	case 'Y': return dm_type_annotation(d);
	case 'a': return dm_any_generic_type(d, SW_TYPE_ALIAS);
	case 'f': return dm_function_entity(d);
	case 'g': return dm_retroactive_conformance(d);
	case 'i': return dm_subscript(d);
	case 'l': return dm_generic_signature(d, false);
	case 'o': return dm_operator_identifier(d);
	case 'p': return dm_protocol_list(d);
	case 'r': return dm_generic_signature(d, true);
	case 'u': return dm_generic_type(d);
	case 'v': return dm_variable(d);
	case 'w': return dm_value_witness(d);
	case '.': return suffix(d);
	case '$': return dm_integer_type(d);
	case 0: return NULL;
	default:
		/* Symbolic references (bytes 1 to 12) point into a binary's
		 * sections: a symbol name never holds one that a name can be
		 * read from. */
		if ((unsigned char)c <= 0x0c || (unsigned char)c == 0xff)
			return NULL;
		if (strchr("KNZcdhmnqstxyz_", c))
			return simple_operator(d, c);
		dm_back(d);
		return dm_identifier(d);
	}
}

/* ---- a symbol ---- */

/* The prefixes of the newer manglings, as Swift's
 * getManglingPrefixLength: "_T0" (Swift 4.0), "$S" (4.2), "$s" (5 and
 * later), "$e" (Embedded Swift), "@__swiftmacro_" (macro expansion
 * buffers), each but the first and last also with a leading '_'. */
static size_t prefix_len(const char *s, size_t len)
{
	static const char *const prefixes[] = {
		"_T0", "$S", "_$S", "$s", "_$s", "$e", "_$e", "@__swiftmacro_",
	};
	for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++) {
		size_t n = strlen(prefixes[i]);
		if (len >= n && memcmp(s, prefixes[i], n) == 0)
			return n;
	}
	return 0;
}

static sw_node *global(struct dm *d)
{
	sw_node *top = dm_new(d, SW_GLOBAL), *parent = top;
	sw_node *sfx = dm_pop_kind(d, SW_SUFFIX), *attr;
	while (parent && (attr = dm_pop_if(d, sw_is_function_attr))) {
		if (!dm_add(d, parent, attr))
			return NULL;
		if (attr->kind == SW_PARTIAL_APPLY_FORWARDER ||
		    attr->kind == SW_PARTIAL_APPLY_OBJC_FORWARDER)
			parent = attr;
	}
	for (size_t i = 0; parent && i < d->n_stack; i++) {
		sw_node *n = d->stack[i];
		if (n->kind == SW_TYPE)
			n = sw_kid(n, 0);
		if (!dm_add(d, parent, n))
			return NULL;
	}
	if (sfx && !dm_add(d, top, sfx))
		return NULL;
	return top && top->n ? top : NULL;
}

sw_node *sw_demangle_new(struct sw_heap *h, const char *s, size_t len)
{
	size_t skip = prefix_len(s, len);
	if (!skip)
		return NULL;
	struct dm d = {.h = h, .s = s, .len = len, .pos = skip};
	d.old_function_types = len >= 2 && s[0] == '_' && s[1] == 'T';
	while (d.pos < d.len)
		if (!dm_push(&d, dm_operator(&d)))
			return NULL;
	return global(&d);
}

int demangle_swift(const char *s, size_t len, bool sugar, int nesting, hg_buf *out)
{
	if (nesting > SW_MAX_NESTING)
		return 0;
	struct sw_heap h = {.arena = hg_arena_create_sized(4096)};
	if (!h.arena)
		return HG_ENOMEM;
	/* "_Tt...": the old manglings ObjC metadata still names classes with. */
	sw_node *root;
	if (prefix_len(s, len) && !(len >= 3 && memcmp(s, "_Tt", 3) == 0))
		root = sw_demangle_new(&h, s, len);
	else
		root = sw_demangle_old(&h, s, len);
	int rc = root ? sw_print(root, sugar, nesting, out) : 0;
	if (h.oom || out->failed)
		rc = HG_ENOMEM;
	hg_arena_destroy(h.arena);
	return rc;
}
