/* The smallest pieces of a Swift 4.2+ mangling: numbers and indexes,
 * identifiers (with the words they share and punycode), operator and local
 * names, substitutions (of this symbol, "A...", and of the standard
 * library, "S..."), builtin types ("B...") and integer type arguments
 * ("$..."). */
#include <limits.h>
#include <string.h>

#include "demangle_swift_dm.h"

/* A decimal number; -1 when none, or one too large to be real (Swift's
 * own wraps around there: no real symbol holds one). */
long dm_natural(struct dm *d)
{
	if (!dm_is_digit(dm_peek(d)))
		return -1;
	long v = 0;
	while (dm_is_digit(dm_peek(d))) {
		int digit = dm_next(d) - '0';
		if (v > (INT_MAX - digit) / 10)
			return -1;
		v = v * 10 + digit;
	}
	return v;
}

/* "_" is 0, "<n>_" is n + 1; -1 when neither. */
long dm_index(struct dm *d)
{
	if (dm_next_if(d, '_'))
		return 0;
	long v = dm_natural(d);
	return v >= 0 && v < INT_MAX && dm_next_if(d, '_') ? v + 1 : -1;
}

sw_node *dm_index_node(struct dm *d)
{
	long v = dm_index(d);
	return v >= 0 ? sw_index(d->h, SW_NUMBER, (uint64_t)v) : NULL;
}

/* ---- identifiers ---- */

/* The words of a literal part of an identifier, which later identifiers
 * may repeat by letter: a word starts at a byte that is not a digit or
 * '_' and ends before a '_', before a capital that follows a lower-case
 * byte, or at the end; only words of two bytes or more count, 26 at most. */
static void add_words(struct dm *d, const char *s, size_t len)
{
	long start = -1;
	for (size_t i = 0; i <= len; i++) {
		char c = i < len ? s[i] : 0;
		if (start >= 0 && (c == '_' || c == 0 || (!dm_is_upper(s[i - 1]) && dm_is_upper(c)))) {
			if (i - (size_t)start >= 2 && d->n_words < DM_MAX_WORDS) {
				d->words[d->n_words].s = s + start;
				d->words[d->n_words++].len = i - (size_t)start;
			}
			start = -1;
		}
		if (start < 0 && c != 0 && c != '_' && !dm_is_digit(c))
			start = (long)i;
	}
}

/* Control bytes are never part of a real name; one would reach the
 * terminal or break the line the name is printed in. */
static bool printable(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return true;
}

/* One literal part: its length, then its bytes (punycode when the
 * identifier started "00"). */
static bool literal_part(struct dm *d, bool punycode, hg_buf *id)
{
	long n = dm_natural(d);
	if (n <= 0)
		return false;
	if (punycode)
		dm_next_if(d, '_');
	if ((size_t)n > d->len - d->pos)
		return false;
	const char *s = d->s + d->pos;
	if (punycode) {
		size_t at = id->len;
		if (!sw_punycode_decode(s, (size_t)n, id) || !printable(id->data + at, id->len - at))
			return false;
	} else {
		if (!printable(s, (size_t)n))
			return false;
		hg_buf_add(id, s, (size_t)n);
		add_words(d, s, (size_t)n);
	}
	d->pos += (size_t)n;
	return true;
}

/* identifier ::= NATURAL IDENTIFIER-CHAR+, or "0" followed by words
 * (lower-case letters: more follow; a capital: the last) and literal
 * parts, or "00" and a punycode literal. */
static bool identifier_text(struct dm *d, hg_buf *id)
{
	bool words = false, punycode = false;
	if (dm_next_if(d, '0')) {
		punycode = dm_next_if(d, '0');
		words = !punycode;
	}
	do {
		while (words && (dm_is_lower(dm_peek(d)) || dm_is_upper(dm_peek(d)))) {
			char c = dm_next(d);
			int w = dm_is_lower(c) ? c - 'a' : c - 'A';
			words = dm_is_lower(c);
			if (w >= d->n_words)
				return false;
			hg_buf_add(id, d->words[w].s, d->words[w].len);
		}
		if (dm_next_if(d, '0'))
			break;
		if (!literal_part(d, punycode, id))
			return false;
	} while (words);
	return id->len > 0;
}

sw_node *dm_identifier(struct dm *d)
{
	if (!dm_is_digit(dm_peek(d)))
		return NULL;
	hg_buf id;
	hg_buf_init(&id);
	sw_node *n = NULL;
	if (identifier_text(d, &id) && !id.failed) {
		char *text = hg_arena_strndup(d->h->arena, id.data, id.len);
		if (!text)
			d->h->oom = true;
		else
			n = sw_text(d->h, SW_IDENTIFIER, text, id.len);
	}
	if (id.failed)
		d->h->oom = true;
	hg_buf_release(&id);
	return n && dm_add_subst(d, n) ? n : NULL;
}

sw_node *dm_operator_identifier(struct dm *d)
{
	/* The operator characters, by the letter that stands for each. */
	static const char table[] = "& @/= >    <*!|+?%-~   ^ .";
	sw_node *id = dm_pop_kind(d, SW_IDENTIFIER);
	if (!id)
		return NULL;
	char *op = hg_arena_alloc(d->h->arena, id->len + 1);
	if (!op) {
		d->h->oom = true;
		return NULL;
	}
	for (size_t i = 0; i < id->len; i++) {
		char c = id->text[i];
		if ((unsigned char)c >= 0x80) {
			op[i] = c; /* Unicode operator characters pass through */
			continue;
		}
		if (!dm_is_lower(c) || table[c - 'a'] == ' ')
			return NULL;
		op[i] = table[c - 'a'];
	}
	switch (dm_next(d)) {
	case 'i': return sw_text(d->h, SW_INFIX_OPERATOR, op, id->len);
	case 'p': return sw_text(d->h, SW_PREFIX_OPERATOR, op, id->len);
	case 'P': return sw_text(d->h, SW_POSTFIX_OPERATOR, op, id->len);
	default: return NULL;
	}
}

/* "L": private names ("LL", "Ll"), related entities of imported
 * declarations ("La".."LJ"), or a local name with its discriminator. */
sw_node *dm_local_identifier(struct dm *d)
{
	if (dm_next_if(d, 'L')) {
		sw_node *discriminator = dm_pop_kind(d, SW_IDENTIFIER);
		sw_node *name = dm_pop_if(d, sw_is_decl_name);
		return sw_with2(d->h, SW_PRIVATE_DECL_NAME, discriminator, name);
	}
	if (dm_next_if(d, 'l'))
		return dm_with(d, SW_PRIVATE_DECL_NAME, dm_pop_kind(d, SW_IDENTIFIER));
	char c = dm_peek(d);
	if ((c >= 'a' && c <= 'j') || (c >= 'A' && c <= 'J')) {
		sw_node *kind = sw_text(d->h, SW_IDENTIFIER, d->s + d->pos, 1);
		d->pos++;
		sw_node *name = dm_pop(d);
		return dm_add(d, dm_add(d, dm_new(d, SW_RELATED_ENTITY_DECL_NAME), kind), name);
	}
	sw_node *discriminator = dm_index_node(d);
	sw_node *name = dm_pop_if(d, sw_is_decl_name);
	return sw_with2(d->h, SW_LOCAL_DECL_NAME, discriminator, name);
}

/* ---- substitutions ---- */

static sw_node *push_repeated(struct dm *d, long repeat, size_t idx)
{
	if (idx >= d->n_subst || repeat > SW_MAX_REPEAT)
		return NULL;
	sw_node *n = d->subst[idx];
	for (long i = 1; i < repeat; i++)
		if (!dm_push(d, n))
			return NULL;
	return n;
}

/* "A": substitutions by letter (lower-case: more follow), each maybe
 * after a repeat count, or "A<n>_" for index n + 27. */
sw_node *dm_multi_substitutions(struct dm *d)
{
	long repeat = -1;
	for (;;) {
		char c = dm_next(d);
		if (c == 0)
			return NULL;
		if (dm_is_lower(c)) {
			if (!dm_push(d, push_repeated(d, repeat, (size_t)(c - 'a'))))
				return NULL;
			repeat = -1;
			continue;
		}
		if (dm_is_upper(c))
			return push_repeated(d, repeat, (size_t)(c - 'A'));
		if (c == '_') {
			size_t idx = (size_t)(repeat + 27);
			return repeat >= -1 && idx < d->n_subst ? d->subst[idx] : NULL;
		}
		dm_back(d);
		if ((repeat = dm_natural(d)) < 0)
			return NULL;
	}
}

static const struct {
	char code;
	bool concurrency;      /* "Sc<code>" */
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
sw_node *dm_swift_type(struct dm *d, enum sw_kind kind, const char *name)
{
	return dm_type(d, sw_with2(d->h, kind, sw_cstr(d->h, SW_MODULE, "Swift"),
				   sw_cstr(d->h, SW_IDENTIFIER, name)));
}

sw_node *dm_standard_substitution(struct dm *d)
{
	char c = dm_next(d);
	if (c == 'o')
		return sw_cstr(d->h, SW_MODULE, "__C");
	if (c == 'C')
		return sw_cstr(d->h, SW_MODULE, "__C_Synthesized");
	if (c == 'g') {
		sw_node *list = dm_with(d, SW_TYPE_LIST, dm_pop_kind(d, SW_TYPE));
		sw_node *opt = dm_type(d, sw_with2(d->h, SW_BOUND_GENERIC_ENUM,
						   dm_swift_type(d, SW_ENUM, "Optional"), list));
		return opt && dm_add_subst(d, opt) ? opt : NULL;
	}
	if (c == 0)
		return NULL;
	dm_back(d);
	long repeat = dm_is_digit(dm_peek(d)) ? dm_natural(d) : 1;
	if (repeat < 0 || repeat > SW_MAX_REPEAT)
		return NULL;
	bool second = dm_next_if(d, 'c');
	c = dm_next(d);
	for (size_t i = 0; i < sizeof standard_types / sizeof *standard_types; i++) {
		if (standard_types[i].code != c || standard_types[i].concurrency != second)
			continue;
		sw_node *n = dm_swift_type(d, standard_types[i].kind, standard_types[i].name);
		for (long k = 1; n && k < repeat; k++)
			if (!dm_push(d, n))
				return NULL;
		return n;
	}
	return NULL;
}

/* ---- builtin and integer types ---- */

static const struct {
	char code;
	const char *name;
} builtin_names[] = {
	{'b', "Builtin.BridgeObject"}, {'B', "Builtin.UnsafeValueBuffer"},
	{'e', "Builtin.Executor"}, {'I', "Builtin.IntLiteral"}, {'O', "Builtin.UnknownObject"},
	{'o', "Builtin.NativeObject"}, {'p', "Builtin.RawPointer"}, {'j', "Builtin.Job"},
	{'D', "Builtin.DefaultActorStorage"}, {'c', "Builtin.RawUnsafeContinuation"},
	{'t', "Builtin.SILToken"}, {'w', "Builtin.Word"}, {'P', "Builtin.PackIndex"},
	{'A', "Builtin.ImplicitActor"},
};

/* "Bf<bits>_", "Bi<bits>_" and "Bv<count>_" (a vector of the builtin
 * type popped): the size in the name, as Swift spells it. */
static sw_node *sized_builtin(struct dm *d, char c)
{
	enum { MAX_TYPE_SIZE = 4096 }; /* Swift's own bound */
	long size = dm_index(d) - 1;
	if (size <= 0 || size > MAX_TYPE_SIZE)
		return NULL;
	char name[96];
	if (c == 'f') {
		snprintf(name, sizeof name, "Builtin.FPIEEE%ld", size);
	} else if (c == 'i') {
		snprintf(name, sizeof name, "Builtin.Int%ld", size);
	} else {
		sw_node *elt = dm_pop_type_child(d);
		if (!elt || elt->kind != SW_BUILTIN_TYPE_NAME || elt->len < 8 ||
		    memcmp(elt->text, "Builtin.", 8) != 0 || elt->len > 64)
			return NULL;
		snprintf(name, sizeof name, "Builtin.Vec%ldx%.*s", size, (int)(elt->len - 8),
			 elt->text + 8);
	}
	char *text = hg_arena_strdup(d->h->arena, name);
	if (!text) {
		d->h->oom = true;
		return NULL;
	}
	return sw_cstr(d->h, SW_BUILTIN_TYPE_NAME, text);
}

sw_node *dm_builtin_type(struct dm *d)
{
	char c = dm_next(d);
	sw_node *t = NULL;
	if (c == 'f' || c == 'i' || c == 'v') {
		t = sized_builtin(d, c);
	} else if (c == 'V') {
		sw_node *element = dm_pop_kind(d, SW_TYPE);
		sw_node *size = dm_pop_kind(d, SW_TYPE);
		t = sw_with2(d->h, SW_BUILTIN_FIXED_ARRAY, size, element);
	} else if (c == 'T') {
		t = dm_new(d, SW_BUILTIN_TUPLE_TYPE);
	} else {
		for (size_t i = 0; c && i < sizeof builtin_names / sizeof *builtin_names; i++)
			if (builtin_names[i].code == c)
				t = sw_cstr(d->h, SW_BUILTIN_TYPE_NAME, builtin_names[i].name);
	}
	return dm_type(d, t);
}

/* "$<index>" and "$n<index>": a value generic argument. */
sw_node *dm_integer_type(struct dm *d)
{
	if (dm_next_if(d, 'n')) {
		long v = dm_index(d);
		if (v < 0)
			return NULL;
		return dm_type(d, sw_index(d->h, SW_NEGATIVE_INTEGER, (uint64_t)-v));
	}
	long v = dm_index(d);
	return v < 0 ? NULL : dm_type(d, sw_index(d->h, SW_INTEGER, (uint64_t)v));
}
