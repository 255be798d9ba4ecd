/* The older Swift manglings ("_T...", Swift 4.0 and before; see
 * demangle_swift_od.h): the symbol and its specialization prefixes
 * ("_TTS...") and attributes ("_TTo..."), the globals (metadata, witness
 * tables, thunks), entities and their contexts, and names. */
#include <string.h>

#include "hangar/demangle.h"
#include "demangle_swift_od.h"

bool od_next_if_str(struct od *o, const char *s)
{
	size_t n = strlen(s);
	if (o->len - o->pos < n || memcmp(o->s + o->pos, s, n) != 0)
		return false;
	o->pos += n;
	return true;
}

bool od_add_subst(struct od *o, sw_node *n)
{
	if (o->n_subst == o->cap_subst) {
		size_t cap = o->cap_subst ? o->cap_subst * 2 : 16;
		sw_node **x = hg_arena_regrow(o->h->arena, o->subst, o->cap_subst * sizeof *x,
					      cap * sizeof *x);
		if (!x) {
			o->h->oom = true;
			return false;
		}
		o->subst = x;
		o->cap_subst = cap;
	}
	o->subst[o->n_subst++] = n;
	return true;
}

/* ---- numbers and names ---- */

bool od_natural(struct od *o, uint64_t *v)
{
	char c = od_next(o);
	if (c < '0' || c > '9')
		return false;
	*v = (uint64_t)(c - '0');
	/* Wraps around past 2^64, as Swift's own does. */
	while (od_peek(o) >= '0' && od_peek(o) <= '9')
		*v = *v * 10 + (uint64_t)(od_next(o) - '0');
	return true;
}

bool od_index(struct od *o, uint64_t *v)
{
	if (od_next_if(o, '_')) {
		*v = 0;
		return true;
	}
	if (!od_natural(o, v) || !od_next_if(o, '_'))
		return false;
	++*v;
	return true;
}

sw_node *od_index_node(struct od *o, enum sw_kind kind)
{
	uint64_t v;
	return od_index(o, &v) ? sw_index(o->h, kind, v) : NULL;
}

static bool printable(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return true;
}

/* An operator's letters made its characters, in the arena. */
static const char *operator_text(struct od *o, const char *s, size_t len)
{
	static const char table[] = "& @/= >    <*!|+?%-~   ^ .";
	char *op = hg_arena_alloc(o->h->arena, len + 1);
	if (!op) {
		o->h->oom = true;
		return NULL;
	}
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if ((unsigned char)c >= 0x80) {
			op[i] = c;
			continue;
		}
		if (c < 'a' || c > 'z' || table[c - 'a'] == ' ')
			return NULL;
		op[i] = table[c - 'a'];
	}
	return op;
}

/* identifier ::= 'X'? ('o' [pPi])? NATURAL bytes: punycode after 'X', an
 * operator after 'o'.  kind: the node's kind (SW_IDENTIFIER by default);
 * an operator only where that default is asked for. */
sw_node *od_identifier(struct od *o, enum sw_kind kind)
{
	if (od_empty(o))
		return NULL;
	bool punycode = od_next_if(o, 'X'), op = false;
	if (od_next_if(o, 'o')) {
		if (kind != SW_IDENTIFIER)
			return NULL;
		op = true;
		switch (od_next(o)) {
		case 'p': kind = SW_PREFIX_OPERATOR; break;
		case 'P': kind = SW_POSTFIX_OPERATOR; break;
		case 'i': kind = SW_INFIX_OPERATOR; break;
		default: return NULL;
		}
	}
	uint64_t n;
	if (!od_natural(o, &n) || n > o->len - o->pos)
		return NULL;
	const char *s = o->s + o->pos;
	size_t len = (size_t)n;
	o->pos += len;
	if (punycode) {
		hg_buf buf;
		hg_buf_init(&buf);
		bool ok = sw_punycode_decode(s, len, &buf) && !buf.failed;
		o->h->oom = o->h->oom || buf.failed;
		char *text = ok && buf.len ? hg_arena_strndup(o->h->arena, buf.data, buf.len) : NULL;
		len = buf.len;
		hg_buf_release(&buf);
		if (!text)
			return NULL;
		s = text;
	}
	if (len == 0 || !printable(s, len))
		return NULL;
	if (op && !(s = operator_text(o, s, len)))
		return NULL;
	return sw_text(o->h, kind, s, len);
}

sw_node *od_decl_name(struct od *o)
{
	if (od_next_if(o, 'L')) {
		sw_node *discriminator = od_index_node(o, SW_NUMBER);
		sw_node *name = discriminator ? od_identifier(o, SW_IDENTIFIER) : NULL;
		return sw_with2(o->h, SW_LOCAL_DECL_NAME, discriminator, name);
	}
	if (od_next_if(o, 'P')) {
		sw_node *discriminator = od_identifier(o, SW_IDENTIFIER);
		sw_node *name = discriminator ? od_identifier(o, SW_IDENTIFIER) : NULL;
		return sw_with2(o->h, SW_PRIVATE_DECL_NAME, discriminator, name);
	}
	return od_identifier(o, SW_IDENTIFIER);
}

/* ---- substitutions, modules, declarations ---- */

static sw_node *swift_type(struct od *o, enum sw_kind kind, const char *name)
{
	return sw_with2(o->h, kind, sw_cstr(o->h, SW_MODULE, "Swift"), sw_cstr(o->h, SW_IDENTIFIER, name));
}

/* After 'S': a standard type or module by letter, or an earlier name. */
sw_node *od_substitution(struct od *o)
{
	static const struct { char code; bool is_enum; const char *name; } standard[] = {
		{'a', 0, "Array"}, {'b', 0, "Bool"}, {'c', 0, "UnicodeScalar"}, {'d', 0, "Double"},
		{'f', 0, "Float"}, {'i', 0, "Int"}, {'V', 0, "UnsafeRawPointer"},
		{'v', 0, "UnsafeMutableRawPointer"}, {'P', 0, "UnsafePointer"},
		{'p', 0, "UnsafeMutablePointer"}, {'q', 1, "Optional"},
		{'Q', 1, "ImplicitlyUnwrappedOptional"}, {'R', 0, "UnsafeBufferPointer"},
		{'r', 0, "UnsafeMutableBufferPointer"}, {'S', 0, "String"}, {'u', 0, "UInt"},
	};
	if (od_empty(o))
		return NULL;
	if (od_next_if(o, 'o'))
		return sw_cstr(o->h, SW_MODULE, "__C");
	if (od_next_if(o, 'C'))
		return sw_cstr(o->h, SW_MODULE, "__C_Synthesized");
	char c = od_peek(o);
	for (size_t i = 0; i < sizeof standard / sizeof *standard; i++)
		if (standard[i].code == c) {
			o->pos++;
			return swift_type(o, standard[i].is_enum ? SW_ENUM : SW_STRUCTURE, standard[i].name);
		}
	uint64_t i;
	if (!od_index(o, &i) || i >= o->n_subst)
		return NULL;
	return o->subst[i];
}

static sw_node *module(struct od *o)
{
	if (od_next_if(o, 's'))
		return sw_cstr(o->h, SW_MODULE, "Swift");
	if (od_next_if(o, 'S')) {
		sw_node *m = od_substitution(o);
		return sw_is(m, SW_MODULE) ? m : NULL;
	}
	sw_node *m = od_identifier(o, SW_MODULE);
	return m && od_add_subst(o, m) ? m : NULL;
}

sw_node *od_declaration(struct od *o, enum sw_kind kind)
{
	sw_node *ctx = od_context(o);
	sw_node *name = ctx ? od_decl_name(o) : NULL;
	sw_node *decl = sw_with2(o->h, kind, ctx, name);
	return decl && od_add_subst(o, decl) ? decl : NULL;
}

sw_node *od_protocol_name_in(struct od *o, sw_node *context)
{
	sw_node *proto = sw_with2(o->h, SW_PROTOCOL, context, od_decl_name(o));
	return proto && od_add_subst(o, proto) ? proto : NULL;
}

/* A protocol, as a type: 'S' is either the protocol or its module. */
sw_node *od_protocol_name(struct od *o)
{
	sw_node *proto;
	if (od_next_if(o, 'S')) {
		sw_node *sub = od_substitution(o);
		if (sw_is(sub, SW_PROTOCOL))
			proto = sub;
		else if (sw_is(sub, SW_MODULE))
			proto = od_protocol_name_in(o, sub);
		else
			return NULL;
	} else if (od_next_if(o, 's')) {
		proto = od_protocol_name_in(o, sw_cstr(o->h, SW_MODULE, "Swift"));
	} else {
		proto = od_declaration(o, SW_PROTOCOL);
	}
	return sw_with(o->h, SW_TYPE, proto);
}

sw_node *od_nominal_type(struct od *o)
{
	switch (od_next(o)) {
	case 'S': return od_substitution(o);
	case 'V': return od_declaration(o, SW_STRUCTURE);
	case 'O': return od_declaration(o, SW_ENUM);
	case 'C': return od_declaration(o, SW_CLASS);
	case 'P': return od_declaration(o, SW_PROTOCOL);
	default: return NULL;
	}
}

/* Generic arguments, outermost type first, each level ending in '_'. */
static sw_node *bound_generic_args(struct od *o, sw_node *nominal)
{
	if (!nominal || !nominal->n)
		return NULL;
	sw_node *parent = nominal->kids[0];
	if (parent->kind != SW_MODULE && parent->kind != SW_FUNCTION && parent->kind != SW_EXTENSION) {
		if (++o->depth > HG_DEMANGLE_MAX_DEPTH)
			return NULL;
		parent = bound_generic_args(o, parent);
		o->depth--;
		nominal = sw_with2(o->h, nominal->kind, parent, sw_kid(nominal, 1));
		if (!nominal)
			return NULL;
	}
	sw_node *args = sw_new(o->h, SW_TYPE_LIST);
	while (args && !od_next_if(o, '_')) {
		args = sw_add(o->h, args, od_type(o));
		if (od_empty(o))
			return NULL;
	}
	if (!args)
		return NULL;
	if (args->n == 0)
		return nominal;
	enum sw_kind kind;
	switch (nominal->kind) {
	case SW_CLASS: kind = SW_BOUND_GENERIC_CLASS; break;
	case SW_STRUCTURE: kind = SW_BOUND_GENERIC_STRUCTURE; break;
	case SW_ENUM: kind = SW_BOUND_GENERIC_ENUM; break;
	default: return NULL;
	}
	return sw_with2(o->h, kind, sw_with(o->h, SW_TYPE, nominal), args);
}

sw_node *od_bound_generic_type(struct od *o)
{
	return bound_generic_args(o, od_nominal_type(o));
}

static sw_node *context(struct od *o)
{
	char c = od_peek(o);
	if (c == 'E' || c == 'e') {
		o->pos++;
		sw_node *m = module(o), *sig = NULL;
		if (m && c == 'e' && !(sig = od_generic_signature(o, false)))
			return NULL;
		sw_node *type = m ? od_context(o) : NULL;
		sw_node *ext = sw_with2(o->h, SW_EXTENSION, m, type);
		return sig ? sw_add(o->h, ext, sig) : ext;
	}
	if (od_next_if(o, 'S'))
		return od_substitution(o);
	if (od_next_if(o, 's'))
		return sw_cstr(o->h, SW_MODULE, "Swift");
	if (od_next_if(o, 'G'))
		return od_bound_generic_type(o);
	if (strchr("FIvPsZCVO", c))
		return od_entity(o);
	return module(o);
}

sw_node *od_context(struct od *o)
{
	if (od_empty(o) || ++o->depth > HG_DEMANGLE_MAX_DEPTH)
		return NULL;
	sw_node *n = context(o);
	o->depth--;
	return n;
}

sw_node *od_protocol_conformance(struct od *o)
{
	sw_node *type = od_type(o);
	sw_node *proto = type ? od_protocol_name(o) : NULL;
	sw_node *ctx = proto ? od_context(o) : NULL;
	return sw_with3(o->h, SW_PROTOCOL_CONFORMANCE, type, proto, ctx);
}
