/* Swift's mangled names, read as Swift's own demangler reads them: a
 * stack machine where each operator either pushes a node or pops the nodes
 * it applies to (docs/ABI/Mangling.rst of swiftlang/swift), with the
 * substitution list (identifiers, nominal types) and the word list of
 * identifiers.  Written from that grammar and checked against the
 * project's own test vectors (testdata/demangle/); the common subset only:
 * an operator outside it fails the whole symbol.  The tree is then printed
 * by demangle_swift_print.c. */
#include <string.h>

#include "hangar/demangle.h"
#include "hangar/hangar.h"
#include "demangle_internal.h"
#include "demangle_swift_ops.h"

/* ---- nodes ---- */

sw_node *sw_new(struct sw *p, enum sw_kind kind)
{
	if (++p->n_nodes > SW_MAX_NODES)
		return NULL;
	sw_node *n = hg_arena_alloc(p->arena, sizeof *n);
	if (!n) {
		p->oom = true;
		return NULL;
	}
	n->kind = kind;
	return n;
}

sw_node *sw_text(struct sw *p, enum sw_kind kind, const char *s, size_t len)
{
	sw_node *n = sw_new(p, kind);
	if (n) {
		n->has_text = true;
		n->text = s;
		n->text_len = len;
	}
	return n;
}

sw_node *sw_cstr(struct sw *p, enum sw_kind kind, const char *s)
{
	return sw_text(p, kind, s, strlen(s));
}

sw_node *sw_index(struct sw *p, enum sw_kind kind, uint64_t v)
{
	sw_node *n = sw_new(p, kind);
	if (n) {
		n->has_index = true;
		n->index = v;
	}
	return n;
}

/* Appends kid to parent; NULL when either is NULL (a failure below). */
sw_node *sw_add(struct sw *p, sw_node *parent, sw_node *kid)
{
	if (!parent || !kid)
		return NULL;
	if (parent->n == parent->cap) {
		unsigned cap = parent->cap ? parent->cap * 2 : 2;
		sw_node **k = hg_arena_regrow(p->arena, parent->kids, parent->cap * sizeof *k,
					      cap * sizeof *k);
		if (!k) {
			p->oom = true;
			return NULL;
		}
		parent->kids = k;
		parent->cap = cap;
	}
	parent->kids[parent->n++] = kid;
	return parent;
}

sw_node *sw_with(struct sw *p, enum sw_kind kind, sw_node *a)
{
	return a ? sw_add(p, sw_new(p, kind), a) : NULL;
}

sw_node *sw_with2(struct sw *p, enum sw_kind kind, sw_node *a, sw_node *b)
{
	return a && b ? sw_add(p, sw_add(p, sw_new(p, kind), a), b) : NULL;
}

sw_node *sw_with3(struct sw *p, enum sw_kind kind, sw_node *a, sw_node *b, sw_node *c)
{
	return a && b && c ? sw_add(p, sw_with2(p, kind, a, b), c) : NULL;
}

sw_node *sw_type(struct sw *p, sw_node *a)
{
	return sw_with(p, SW_TYPE, a);
}

void sw_reverse(sw_node *n, unsigned from)
{
	for (unsigned i = from, j = n->n; i + 1 < j; i++, j--) {
		sw_node *t = n->kids[i];
		n->kids[i] = n->kids[j - 1];
		n->kids[j - 1] = t;
	}
}

/* ---- the stack and the substitutions ---- */

static bool grow_list(struct sw *p, sw_node ***items, size_t *cap, size_t n)
{
	if (n < *cap)
		return true;
	size_t ncap = *cap ? *cap * 2 : 16;
	sw_node **x = hg_arena_regrow(p->arena, *items, *cap * sizeof *x, ncap * sizeof *x);
	if (!x) {
		p->oom = true;
		return false;
	}
	*items = x;
	*cap = ncap;
	return true;
}

bool sw_push(struct sw *p, sw_node *n)
{
	if (!n || !grow_list(p, &p->stack, &p->cap_stack, p->n_stack))
		return false;
	p->stack[p->n_stack++] = n;
	return true;
}

sw_node *sw_pop(struct sw *p)
{
	return p->n_stack ? p->stack[--p->n_stack] : NULL;
}

sw_node *sw_pop_kind(struct sw *p, enum sw_kind kind)
{
	return p->n_stack && p->stack[p->n_stack - 1]->kind == kind ? sw_pop(p) : NULL;
}

sw_node *sw_pop_if(struct sw *p, bool (*pred)(enum sw_kind))
{
	return p->n_stack && pred(p->stack[p->n_stack - 1]->kind) ? sw_pop(p) : NULL;
}

sw_node *sw_subst_add(struct sw *p, sw_node *n)
{
	if (!n || !grow_list(p, &p->subst, &p->cap_subst, p->n_subst))
		return NULL;
	p->subst[p->n_subst++] = n;
	return n;
}

/* ---- reading ---- */

char sw_next(struct sw *p)
{
	return p->pos < p->len ? p->s[p->pos++] : 0;
}

char sw_peek(const struct sw *p)
{
	return p->pos < p->len ? p->s[p->pos] : 0;
}

bool sw_next_if(struct sw *p, char c)
{
	if (sw_peek(p) != c || c == 0)
		return false;
	p->pos++;
	return true;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_lower(char c)
{
	return c >= 'a' && c <= 'z';
}

static bool is_upper(char c)
{
	return c >= 'A' && c <= 'Z';
}

/* A decimal number; -1 when none, or one too large to be real. */
long sw_natural(struct sw *p)
{
	if (!is_digit(sw_peek(p)))
		return -1;
	long v = 0;
	while (is_digit(sw_peek(p))) {
		v = v * 10 + (sw_next(p) - '0');
		if (v > 1000000000L)
			return -1;
	}
	return v;
}

/* "_" is 0, "<n>_" is n + 1; -1 when neither. */
long sw_index_value(struct sw *p)
{
	if (sw_next_if(p, '_'))
		return 0;
	long v = sw_natural(p);
	return v >= 0 && sw_next_if(p, '_') ? v + 1 : -1;
}

sw_node *sw_index_node(struct sw *p)
{
	long v = sw_index_value(p);
	return v >= 0 ? sw_index(p, SW_NUMBER, (uint64_t)v) : NULL;
}

/* ---- identifiers ---- */

static void add_words(struct sw *p, const char *s, size_t len)
{
	/* A word starts at a non-digit, non-'_' byte and ends before a '_', a
	 * capital after a non-capital, or the end; only words of 2 or more
	 * bytes are numbered, 26 at most. */
	long start = -1;
	for (size_t i = 0; i <= len; i++) {
		char c = i < len ? s[i] : 0;
		if (start >= 0 && (c == '_' || c == 0 || (!is_upper(s[i - 1]) && is_upper(c)))) {
			if (i - (size_t)start >= 2 && p->n_words < SW_MAX_WORDS) {
				p->words[p->n_words].s = s + start;
				p->words[p->n_words++].len = i - (size_t)start;
			}
			start = -1;
		}
		if (start < 0 && c != 0 && c != '_' && !is_digit(c))
			start = (long)i;
	}
}

sw_node *sw_identifier(struct sw *p)
{
	if (!is_digit(sw_peek(p)))
		return NULL;
	bool words = false;
	if (sw_peek(p) == '0') {
		p->pos++;
		if (sw_peek(p) == '0')
			return NULL; /* punycode: not supported */
		words = true;
	}
	hg_buf id;
	hg_buf_init(&id);
	do {
		while (words && (is_lower(sw_peek(p)) || is_upper(sw_peek(p)))) {
			char c = sw_next(p);
			int w = is_lower(c) ? c - 'a' : c - 'A';
			words = is_lower(c);
			if (w >= p->n_words) {
				hg_buf_release(&id);
				return NULL;
			}
			hg_buf_add(&id, p->words[w].s, p->words[w].len);
		}
		if (sw_next_if(p, '0'))
			break;
		long n = sw_natural(p);
		if (n <= 0 || (size_t)n > p->len - p->pos) {
			hg_buf_release(&id);
			return NULL;
		}
		const char *s = p->s + p->pos;
		for (long k = 0; k < n; k++)
			if ((unsigned char)s[k] < 0x20 || s[k] == 0x7f) {
				/* Never in a real name; kept out of the terminal. */
				hg_buf_release(&id);
				return NULL;
			}
		hg_buf_add(&id, s, (size_t)n);
		add_words(p, s, (size_t)n);
		p->pos += (size_t)n;
	} while (words);
	if (id.failed)
		p->oom = true;
	char *text = id.failed || id.len == 0 ? NULL : hg_arena_strndup(p->arena, id.data, id.len);
	size_t len = id.len;
	hg_buf_release(&id);
	if (!text) {
		p->oom = p->oom || len > 0;
		return NULL;
	}
	return sw_subst_add(p, sw_text(p, SW_IDENTIFIER, text, len));
}

sw_node *sw_operator_identifier(struct sw *p)
{
	static const char table[] = "& @/= >    <*!|+?%-~   ^ .";
	sw_node *id = sw_pop_kind(p, SW_IDENTIFIER);
	if (!id)
		return NULL;
	char *op = hg_arena_alloc(p->arena, id->text_len + 1);
	if (!op) {
		p->oom = true;
		return NULL;
	}
	for (size_t i = 0; i < id->text_len; i++) {
		char c = id->text[i];
		if ((unsigned char)c >= 0x80) {
			op[i] = c; /* Unicode operator characters pass through */
			continue;
		}
		if (!is_lower(c) || table[c - 'a'] == ' ')
			return NULL;
		op[i] = table[c - 'a'];
	}
	switch (sw_next(p)) {
	case 'i': return sw_text(p, SW_INFIX_OPERATOR, op, id->text_len);
	case 'p': return sw_text(p, SW_PREFIX_OPERATOR, op, id->text_len);
	case 'P': return sw_text(p, SW_POSTFIX_OPERATOR, op, id->text_len);
	default: return NULL;
	}
}

/* ---- substitutions ---- */

static sw_node *repeat_subst(struct sw *p, long repeat, size_t idx)
{
	if (idx >= p->n_subst || repeat > SW_MAX_REPEAT)
		return NULL;
	sw_node *n = p->subst[idx];
	while (repeat-- > 1)
		if (!sw_push(p, n))
			return NULL;
	return n;
}

sw_node *sw_multi_substitutions(struct sw *p)
{
	long repeat = -1;
	for (;;) {
		char c = sw_next(p);
		if (c == 0)
			return NULL;
		if (is_lower(c)) {
			if (!sw_push(p, repeat_subst(p, repeat, (size_t)(c - 'a'))))
				return NULL;
			repeat = -1;
			continue;
		}
		if (is_upper(c))
			return repeat_subst(p, repeat, (size_t)(c - 'A'));
		if (c == '_') {
			size_t idx = (size_t)(repeat + 27);
			return repeat >= 0 && idx < p->n_subst ? p->subst[idx] : NULL;
		}
		p->pos--;
		if ((repeat = sw_natural(p)) < 0)
			return NULL;
	}
}

static const struct {
	char code;
	bool concurrency;      /* second level: "Sc<code>" */
	enum sw_kind kind;
	const char *name;
} standard_types[] = {
	{'A', 0, SW_STRUCTURE, "AutoreleasingUnsafeMutablePointer"}, {'a', 0, SW_STRUCTURE, "Array"},
	{'b', 0, SW_STRUCTURE, "Bool"}, {'D', 0, SW_STRUCTURE, "Dictionary"},
	{'d', 0, SW_STRUCTURE, "Double"}, {'f', 0, SW_STRUCTURE, "Float"},
	{'h', 0, SW_STRUCTURE, "Set"}, {'I', 0, SW_STRUCTURE, "DefaultIndices"},
	{'i', 0, SW_STRUCTURE, "Int"}, {'J', 0, SW_STRUCTURE, "Character"},
	{'N', 0, SW_STRUCTURE, "ClosedRange"}, {'n', 0, SW_STRUCTURE, "Range"},
	{'O', 0, SW_STRUCTURE, "ObjectIdentifier"}, {'P', 0, SW_STRUCTURE, "UnsafePointer"},
	{'p', 0, SW_STRUCTURE, "UnsafeMutablePointer"}, {'R', 0, SW_STRUCTURE, "UnsafeBufferPointer"},
	{'r', 0, SW_STRUCTURE, "UnsafeMutableBufferPointer"}, {'S', 0, SW_STRUCTURE, "String"},
	{'s', 0, SW_STRUCTURE, "Substring"}, {'u', 0, SW_STRUCTURE, "UInt"},
	{'V', 0, SW_STRUCTURE, "UnsafeRawPointer"}, {'v', 0, SW_STRUCTURE, "UnsafeMutableRawPointer"},
	{'W', 0, SW_STRUCTURE, "UnsafeRawBufferPointer"},
	{'w', 0, SW_STRUCTURE, "UnsafeMutableRawBufferPointer"}, {'q', 0, SW_ENUM, "Optional"},
	{'B', 0, SW_PROTOCOL, "BinaryFloatingPoint"}, {'E', 0, SW_PROTOCOL, "Encodable"},
	{'e', 0, SW_PROTOCOL, "Decodable"}, {'F', 0, SW_PROTOCOL, "FloatingPoint"},
	{'G', 0, SW_PROTOCOL, "RandomNumberGenerator"}, {'H', 0, SW_PROTOCOL, "Hashable"},
	{'j', 0, SW_PROTOCOL, "Numeric"}, {'K', 0, SW_PROTOCOL, "BidirectionalCollection"},
	{'k', 0, SW_PROTOCOL, "RandomAccessCollection"}, {'L', 0, SW_PROTOCOL, "Comparable"},
	{'l', 0, SW_PROTOCOL, "Collection"}, {'M', 0, SW_PROTOCOL, "MutableCollection"},
	{'m', 0, SW_PROTOCOL, "RangeReplaceableCollection"}, {'Q', 0, SW_PROTOCOL, "Equatable"},
	{'T', 0, SW_PROTOCOL, "Sequence"}, {'t', 0, SW_PROTOCOL, "IteratorProtocol"},
	{'U', 0, SW_PROTOCOL, "UnsignedInteger"}, {'X', 0, SW_PROTOCOL, "RangeExpression"},
	{'x', 0, SW_PROTOCOL, "Strideable"}, {'Y', 0, SW_PROTOCOL, "RawRepresentable"},
	{'y', 0, SW_PROTOCOL, "StringProtocol"}, {'Z', 0, SW_PROTOCOL, "SignedInteger"},
	{'z', 0, SW_PROTOCOL, "BinaryInteger"},
	{'A', 1, SW_PROTOCOL, "Actor"}, {'C', 1, SW_STRUCTURE, "CheckedContinuation"},
	{'c', 1, SW_STRUCTURE, "UnsafeContinuation"}, {'E', 1, SW_STRUCTURE, "CancellationError"},
	{'e', 1, SW_STRUCTURE, "UnownedSerialExecutor"}, {'F', 1, SW_PROTOCOL, "Executor"},
	{'f', 1, SW_PROTOCOL, "SerialExecutor"}, {'G', 1, SW_STRUCTURE, "TaskGroup"},
	{'g', 1, SW_STRUCTURE, "ThrowingTaskGroup"}, {'h', 1, SW_PROTOCOL, "TaskExecutor"},
	{'I', 1, SW_PROTOCOL, "AsyncIteratorProtocol"}, {'i', 1, SW_PROTOCOL, "AsyncSequence"},
	{'J', 1, SW_STRUCTURE, "UnownedJob"}, {'M', 1, SW_CLASS, "MainActor"},
	{'P', 1, SW_STRUCTURE, "TaskPriority"}, {'S', 1, SW_STRUCTURE, "AsyncStream"},
	{'s', 1, SW_STRUCTURE, "AsyncThrowingStream"}, {'T', 1, SW_STRUCTURE, "Task"},
	{'t', 1, SW_STRUCTURE, "UnsafeCurrentTask"},
};

/* Swift.<name> as a type of `kind`. */
sw_node *sw_swift_type(struct sw *p, enum sw_kind kind, const char *name)
{
	return sw_type(p, sw_with2(p, kind, sw_cstr(p, SW_MODULE, "Swift"),
				   sw_cstr(p, SW_IDENTIFIER, name)));
}

sw_node *sw_standard_substitution(struct sw *p)
{
	char c = sw_next(p);
	if (c == 'o')
		return sw_cstr(p, SW_MODULE, "__C");
	if (c == 'C')
		return sw_cstr(p, SW_MODULE, "__C_Synthesized");
	if (c == 'g') {
		sw_node *arg = sw_pop_kind(p, SW_TYPE);
		sw_node *opt = sw_type(p, sw_with2(p, SW_BOUND_GENERIC_ENUM,
						   sw_swift_type(p, SW_ENUM, "Optional"),
						   sw_with(p, SW_TYPE_LIST, arg)));
		return sw_subst_add(p, opt);
	}
	if (c == 0)
		return NULL;
	p->pos--;
	long repeat = is_digit(sw_peek(p)) ? sw_natural(p) : 1;
	if (repeat < 0 || repeat > SW_MAX_REPEAT)
		return NULL;
	bool second = sw_next_if(p, 'c');
	c = sw_next(p);
	for (size_t i = 0; i < sizeof standard_types / sizeof *standard_types; i++) {
		if (standard_types[i].code != c || standard_types[i].concurrency != second)
			continue;
		sw_node *n = sw_swift_type(p, standard_types[i].kind, standard_types[i].name);
		while (n && repeat-- > 1)
			if (!sw_push(p, n))
				return NULL;
		return n;
	}
	return NULL;
}

/* ---- a symbol ---- */

static size_t prefix_len(const char *s, size_t len)
{
	static const char *const prefixes[] = {"_$s", "$s", "_$S", "$S"};
	for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++) {
		size_t n = strlen(prefixes[i]);
		if (len > n && memcmp(s, prefixes[i], n) == 0)
			return n;
	}
	return 0;
}

/* The tree of the symbol, as Swift's demangler builds it: the function
 * attributes on top of the stack (specializations, @objc, partial apply)
 * wrap what lies below.  Only one entity may remain below them, with at
 * most an unmangled suffix: anything else is a shape this module does not
 * know. */
static sw_node *global(struct sw *p)
{
	sw_node *top = sw_new(p, SW_GLOBAL), *parent = top;
	sw_node *attr;
	while (parent && (attr = sw_pop_if(p, sw_is_function_attr))) {
		if (!sw_add(p, parent, attr))
			return NULL;
		if (attr->kind == SW_PARTIAL_APPLY_FORWARDER ||
		    attr->kind == SW_PARTIAL_APPLY_OBJC_FORWARDER)
			parent = attr;
	}
	size_t entities = 0;
	for (size_t i = 0; parent && i < p->n_stack; i++) {
		sw_node *n = p->stack[i];
		if (n->kind == SW_TYPE && n->n == 1)
			n = n->kids[0];
		entities += n->kind != SW_SUFFIX;
		if (n->kind == SW_SUFFIX && i + 1 != p->n_stack)
			return NULL;
		if (!sw_add(p, parent, n))
			return NULL;
	}
	return entities == 1 ? top : NULL;
}

int demangle_swift(const char *s, size_t len, hg_buf *out)
{
	size_t skip = prefix_len(s, len);
	if (!skip)
		return 0;
	struct sw p = {.s = s, .len = len, .pos = skip, .arena = hg_arena_create_sized(4096)};
	if (!p.arena)
		return HG_ENOMEM;
	bool ok = true;
	while (ok && p.pos < p.len)
		ok = sw_push(&p, sw_operator(&p));
	sw_node *root = ok ? global(&p) : NULL;
	int rc = root && sw_print(root, out) ? 1 : 0;
	if (p.oom || out->failed)
		rc = HG_ENOMEM;
	hg_arena_destroy(p.arena);
	return rc;
}
