/* The older Swift manglings' symbols ("_T...", see demangle_swift_od.h):
 * the specialization prefixes ("_TTS...") and attributes ("_TTo..."), the
 * globals (metadata "M", partial apply forwarders "PA", types "t", value
 * witnesses "w", witness tables "W", thunks "T") and entities, whose
 * accessors wrap the variable or subscript they access. */
#include <string.h>

#include "hangar/demangle.h"
#include "demangle_swift_od.h"

/* ---- specializations ---- */

static sw_node *generic_specialization(struct od *o, sw_node *spec)
{
	while (spec && !od_next_if(o, '_')) {
		sw_node *param = sw_with(o->h, SW_GENERIC_SPECIALIZATION_PARAM, od_type(o));
		while (param && !od_next_if(o, '_'))
			param = sw_add(o->h, param, od_protocol_conformance(o));
		spec = sw_add(o->h, spec, param);
	}
	return spec;
}

static sw_node *param_kind(struct od *o, sw_node *param, uint64_t kind)
{
	return sw_add(o->h, param, sw_index(o->h, SW_FUNCTION_SIGNATURE_SPECIALIZATION_PARAM_KIND, kind));
}

static sw_node *payload(struct od *o, sw_node *param, const char *s, size_t len)
{
	return sw_add(o->h, param, sw_text(o->h, SW_FUNCTION_SIGNATURE_SPECIALIZATION_PARAM_PAYLOAD, s, len));
}

/* The text up to the next '_', and the '_'. */
static bool until_underscore(struct od *o, const char **s, size_t *len)
{
	const char *at = memchr(o->s + o->pos, '_', o->len - o->pos);
	if (!at)
		return false;
	*s = o->s + o->pos;
	*len = (size_t)(at - *s);
	o->pos += *len + 1;
	return true;
}

static sw_node *constant_prop(struct od *o, sw_node *param)
{
	const char *s;
	size_t len;
	sw_node *name;
	if (od_next_if_str(o, "fr") || od_next_if(o, 'g')) {
		uint64_t kind = o->s[o->pos - 1] == 'r' ? FS_CONSTANT_PROP_FUNCTION : FS_CONSTANT_PROP_GLOBAL;
		if (!(name = od_identifier(o, SW_IDENTIFIER)) || !od_next_if(o, '_'))
			return NULL;
		return payload(o, param_kind(o, param, kind), name->text, name->len);
	}
	if (od_next_if(o, 'i') || od_next_if_str(o, "fl")) {
		uint64_t kind = o->s[o->pos - 1] == 'i' ? FS_CONSTANT_PROP_INTEGER : FS_CONSTANT_PROP_FLOAT;
		if (!until_underscore(o, &s, &len))
			return NULL;
		return payload(o, param_kind(o, param, kind), s, len);
	}
	if (od_next_if(o, 's')) {
		char encoding = od_next_if(o, 'e') ? od_next(o) : 0;
		if ((encoding != '0' && encoding != '1') || !od_next_if(o, 'v'))
			return NULL;
		if (!(name = od_identifier(o, SW_IDENTIFIER)) || !od_next_if(o, '_'))
			return NULL;
		param = param_kind(o, param, FS_CONSTANT_PROP_STRING);
		param = payload(o, param, encoding == '0' ? "u8" : "u16", encoding == '0' ? 2 : 3);
		return payload(o, param, name->text, name->len);
	}
	return NULL;
}

static sw_node *closure_prop(struct od *o, sw_node *param)
{
	sw_node *name = od_identifier(o, SW_IDENTIFIER), *t;
	if (!name)
		return NULL;
	param = payload(o, param_kind(o, param, FS_CLOSURE_PROP), name->text, name->len);
	while (param && !od_empty(o) && od_peek(o) != '_' && (t = od_type(o)))
		param = sw_add(o->h, param, t);
	return param && od_next_if(o, '_') ? param : NULL;
}

static sw_node *function_specialization(struct od *o, sw_node *spec)
{
	while (spec && !od_next_if(o, '_')) {
		sw_node *param = sw_new(o->h, SW_FUNCTION_SIGNATURE_SPECIALIZATION_PARAM);
		if (od_empty(o))
			return NULL;
		if (od_next_if_str(o, "n_")) {
			/* left empty */
		} else if (od_next_if_str(o, "cp")) {
			param = constant_prop(o, param);
		} else if (od_next_if_str(o, "cl")) {
			param = closure_prop(o, param);
		} else if (od_next_if_str(o, "i_")) {
			param = param_kind(o, param, FS_BOX_TO_VALUE);
		} else if (od_next_if_str(o, "k_")) {
			param = param_kind(o, param, FS_BOX_TO_STACK);
		} else {
			uint64_t v = 0;
			if (od_next_if(o, 'd'))
				v |= FS_DEAD;
			if (od_next_if(o, 'g'))
				v |= FS_OWNED_TO_GUARANTEED;
			if (od_next_if(o, 'o'))
				v |= FS_GUARANTEED_TO_OWNED;
			if (od_next_if(o, 's'))
				v |= FS_SROA;
			if (!od_next_if(o, '_') || !v)
				return NULL;
			param = param_kind(o, param, v);
		}
		spec = sw_add(o->h, spec, param);
	}
	return spec;
}

static sw_node *specialized_attribute(struct od *o)
{
	enum sw_kind kind;
	if (od_next_if(o, 'g'))
		kind = SW_GENERIC_SPECIALIZATION;
	else if (od_next_if(o, 'r'))
		kind = SW_GENERIC_SPECIALIZATION_NOT_RE_ABSTRACTED;
	else if (od_next_if(o, 'f'))
		kind = SW_FUNCTION_SIGNATURE_SPECIALIZATION;
	else
		return NULL;
	sw_node *spec = sw_new(o->h, kind);
	if (od_next_if(o, 'q'))
		spec = sw_add(o->h, spec, sw_new(o->h, SW_IS_SERIALIZED));
	if (od_empty(o))
		return NULL;
	/* The pass id: never printed. */
	spec = sw_add(o->h, spec, sw_index(o->h, SW_SPECIALIZATION_PASS_ID, (uint64_t)(unsigned char)od_next(o)));
	if (kind == SW_FUNCTION_SIGNATURE_SPECIALIZATION)
		return function_specialization(o, spec);
	return generic_specialization(o, spec);
}

/* ---- entities ---- */

static const struct {
	char code, code2;
	enum sw_kind kind;
	bool wraps;        /* an accessor: named, wrapping a variable or subscript */
	bool typed;
} entity_names[] = {
	{'D', 0, SW_DEALLOCATOR, false, false}, {'Z', 0, SW_ISOLATED_DEALLOCATOR, false, false},
	{'d', 0, SW_DESTRUCTOR, false, false}, {'e', 0, SW_IVAR_INITIALIZER, false, false},
	{'E', 0, SW_IVAR_DESTROYER, false, false}, {'C', 0, SW_ALLOCATOR, false, true},
	{'c', 0, SW_CONSTRUCTOR, false, true},
	{'a', 'O', SW_OWNING_MUTABLE_ADDRESSOR, true, true},
	{'a', 'o', SW_NATIVE_OWNING_MUTABLE_ADDRESSOR, true, true},
	{'a', 'p', SW_NATIVE_PINNING_MUTABLE_ADDRESSOR, true, true},
	{'a', 'u', SW_UNSAFE_MUTABLE_ADDRESSOR, true, true},
	{'l', 'O', SW_OWNING_ADDRESSOR, true, true}, {'l', 'o', SW_NATIVE_OWNING_ADDRESSOR, true, true},
	{'l', 'p', SW_NATIVE_PINNING_ADDRESSOR, true, true}, {'l', 'u', SW_UNSAFE_ADDRESSOR, true, true},
	{'g', 0, SW_GETTER, true, true}, {'G', 0, SW_GLOBAL_GETTER, true, true},
	{'s', 0, SW_SETTER, true, true}, {'m', 0, SW_MATERIALIZE_FOR_SET, true, true},
	{'w', 0, SW_WILL_SET, true, true}, {'W', 0, SW_DID_SET, true, true},
	{'r', 0, SW_READ_ACCESSOR, true, true}, {'M', 0, SW_MODIFY_ACCESSOR, true, true},
	{'U', 0, SW_EXPLICIT_CLOSURE, false, true}, {'u', 0, SW_IMPLICIT_CLOSURE, false, true},
};

/* An accessor's storage: a subscript when its name is "subscript" (the
 * old mangling's), a variable otherwise. */
static sw_node *wrapped_storage(struct od *o, sw_node *ctx, sw_node *name, bool typed)
{
	bool subscript = false;
	if (sw_text_is(name, "subscript") && name->kind == SW_IDENTIFIER) {
		subscript = true;
		name = NULL;
	} else if (sw_is(name, SW_PRIVATE_DECL_NAME) && name->n > 1 &&
		   sw_text_is(name->kids[1], "subscript")) {
		subscript = true;
		name = sw_with(o->h, SW_PRIVATE_DECL_NAME, name->kids[0]);
		if (!name)
			return NULL;
	}
	sw_node *w = sw_with(o->h, subscript ? SW_SUBSCRIPT : SW_VARIABLE, ctx);
	if (!subscript)
		w = sw_add(o->h, w, name);
	if (typed)
		w = sw_add(o->h, w, od_type(o));
	if (subscript && name)
		w = sw_add(o->h, w, name);
	return w;
}

static sw_node *entity(struct od *o)
{
	bool is_static = od_next_if(o, 'Z');
	enum sw_kind basic;
	switch (od_peek(o)) {
	case 'F': basic = SW_FUNCTION; break;
	case 'v': basic = SW_VARIABLE; break;
	case 'I': basic = SW_INITIALIZER; break;
	case 'i': basic = SW_SUBSCRIPT; break;
	default: return od_nominal_type(o);
	}
	o->pos++;
	sw_node *ctx = od_context(o);
	if (!ctx)
		return NULL;
	enum sw_kind kind = basic;
	bool wraps = false, typed = true;
	sw_node *name = NULL;
	char c = od_peek(o);
	size_t i = 0, n = sizeof entity_names / sizeof *entity_names;
	while (i < n && (entity_names[i].code != c ||
			 (entity_names[i].code2 && entity_names[i].code2 != (o->pos + 1 < o->len ? o->s[o->pos + 1] : 0))))
		i++;
	if (c && i < n) {
		o->pos += entity_names[i].code2 ? 2 : 1;
		kind = entity_names[i].kind;
		wraps = entity_names[i].wraps;
		typed = entity_names[i].typed;
		if (kind == SW_EXPLICIT_CLOSURE || kind == SW_IMPLICIT_CLOSURE)
			name = od_index_node(o, SW_NUMBER);
		else if (wraps)
			name = od_decl_name(o);
		if ((wraps || kind == SW_EXPLICIT_CLOSURE || kind == SW_IMPLICIT_CLOSURE) && !name)
			return NULL;
	} else if (c == 'a' || c == 'l') {
		return NULL; /* an addressor of an unknown kind */
	} else if (basic == SW_INITIALIZER) {
		typed = false;
		if (od_next_if(o, 'A')) {
			kind = SW_DEFAULT_ARGUMENT_INITIALIZER;
			if (!(name = od_index_node(o, SW_NUMBER)))
				return NULL;
		} else if (!od_next_if(o, 'i')) {
			return NULL;
		}
	} else if (!(name = od_decl_name(o))) {
		return NULL;
	}
	sw_node *e = sw_new(o->h, kind);
	if (wraps) {
		e = sw_add(o->h, e, wrapped_storage(o, ctx, name, typed));
	} else {
		e = sw_add(o->h, e, ctx);
		if (name)
			e = sw_add(o->h, e, name);
		if (typed)
			e = sw_add(o->h, e, od_type(o));
	}
	return is_static ? sw_with(o->h, SW_STATIC, e) : e;
}

sw_node *od_entity(struct od *o)
{
	if (++o->depth > HG_DEMANGLE_MAX_DEPTH)
		return NULL;
	sw_node *n = entity(o);
	o->depth--;
	return n;
}

/* ---- globals ---- */

static sw_node *with_type(struct od *o, enum sw_kind kind)
{
	return sw_with(o->h, kind, od_type(o));
}

static sw_node *with_conformance(struct od *o, enum sw_kind kind)
{
	return sw_with(o->h, kind, od_protocol_conformance(o));
}

static sw_node *metadata(struct od *o)
{
	switch (od_peek(o)) {
	case 'P': o->pos++; return with_type(o, SW_GENERIC_TYPE_METADATA_PATTERN);
	case 'a': o->pos++; return with_type(o, SW_TYPE_METADATA_ACCESS_FUNCTION);
	case 'L': o->pos++; return with_type(o, SW_TYPE_METADATA_LAZY_CACHE);
	case 'm': o->pos++; return with_type(o, SW_METACLASS);
	case 'n': o->pos++; return with_type(o, SW_NOMINAL_TYPE_DESCRIPTOR);
	case 'f': o->pos++; return with_type(o, SW_FULL_TYPE_METADATA);
	case 'p': o->pos++; return sw_with(o->h, SW_PROTOCOL_DESCRIPTOR, od_protocol_name(o));
	default: return with_type(o, SW_TYPE_METADATA);
	}
}

static const char value_witness_codes[][3] = {
	"al", "ca", "ta", "de", "xx", "XX", "Xx", "CP", "Cp", "cp", "Tk", "tk", "pr", "TK", "Cc",
	"Tt", "tT", "xs", "xg", "ug", "up", "ui", "et", "st",
};

static sw_node *value_witness(struct od *o)
{
	if (o->len - o->pos < 2)
		return NULL;
	for (size_t i = 0; i < sizeof value_witness_codes / sizeof *value_witness_codes; i++)
		if (memcmp(value_witness_codes[i], o->s + o->pos, 2) == 0) {
			o->pos += 2;
			sw_node *vw = sw_add(o->h, sw_new(o->h, SW_VALUE_WITNESS), sw_index(o->h, SW_INDEX, i));
			return sw_add(o->h, vw, od_type(o));
		}
	return NULL;
}

static sw_node *witness_global(struct od *o)
{
	sw_node *n, *a;
	switch (od_next(o)) {
	case 'V': return with_type(o, SW_VALUE_WITNESS_TABLE);
	case 'v': {
		char c = od_next(o);
		if (c != 'd' && c != 'i')
			return NULL;
		n = sw_with(o->h, SW_FIELD_OFFSET, sw_index(o->h, SW_DIRECTNESS, c == 'd' ? 0 : 1));
		return sw_add(o->h, n, od_entity(o));
	}
	case 'P': return with_conformance(o, SW_PROTOCOL_WITNESS_TABLE);
	case 'G': return with_conformance(o, SW_GENERIC_PROTOCOL_WITNESS_TABLE);
	case 'I': return with_conformance(o, SW_GENERIC_PROTOCOL_WITNESS_TABLE_INSTANTIATION_FUNCTION);
	case 'l': case 'L':
		n = with_type(o, o->s[o->pos - 1] == 'l' ? SW_LAZY_PROTOCOL_WITNESS_TABLE_ACCESSOR
						       : SW_LAZY_PROTOCOL_WITNESS_TABLE_CACHE_VARIABLE);
		return n ? sw_add(o->h, n, od_protocol_conformance(o)) : NULL;
	case 'a': return with_conformance(o, SW_PROTOCOL_WITNESS_TABLE_ACCESSOR);
	case 't':
		n = with_conformance(o, SW_ASSOCIATED_TYPE_METADATA_ACCESSOR);
		return n ? sw_add(o->h, n, od_decl_name(o)) : NULL;
	case 'T':
		n = with_conformance(o, SW_ASSOCIATED_TYPE_WITNESS_TABLE_ACCESSOR);
		a = n ? sw_add(o->h, n, od_decl_name(o)) : NULL;
		return a ? sw_add(o->h, a, od_protocol_name(o)) : NULL;
	default:
		return NULL;
	}
}

static sw_node *thunk_global(struct od *o)
{
	char c = od_next(o);
	if (c == 'R' || c == 'r') {
		sw_node *thunk = sw_new(o->h, c == 'R' ? SW_REABSTRACTION_THUNK_HELPER : SW_REABSTRACTION_THUNK);
		return thunk && od_reabstract_signature(o, thunk) ? thunk : NULL;
	}
	if (c == 'W') {
		sw_node *n = with_conformance(o, SW_PROTOCOL_WITNESS);
		return n ? sw_add(o->h, n, od_entity(o)) : NULL;
	}
	return NULL;
}

static sw_node *global(struct od *o);

static sw_node *partial_apply(struct od *o)
{
	sw_node *f = sw_new(o->h, od_next_if(o, 'o') ? SW_PARTIAL_APPLY_OBJC_FORWARDER
						      : SW_PARTIAL_APPLY_FORWARDER);
	if (f && od_next_if_str(o, "__T"))
		return sw_add(o->h, f, global(o));
	return f;
}

static sw_node *global(struct od *o)
{
	if (od_empty(o) || ++o->depth > HG_DEMANGLE_MAX_DEPTH)
		return NULL;
	sw_node *n;
	if (od_next_if(o, 'M'))
		n = metadata(o);
	else if (od_next_if_str(o, "PA"))
		n = partial_apply(o);
	else if (od_next_if(o, 't'))
		n = with_type(o, SW_TYPE_MANGLING);
	else if (od_next_if(o, 'w'))
		n = value_witness(o);
	else if (od_next_if(o, 'W'))
		n = witness_global(o);
	else if (od_next_if(o, 'T'))
		n = thunk_global(o);
	else
		n = od_entity(o);
	o->depth--;
	return n;
}

/* The attributes "_TTo" (@objc), "_TTO" (@nonobjc), "_TTD" (dynamic),
 * "_TTd" (super), "_TTV" (override) before the global. */
static sw_node *attribute(struct od *o)
{
	static const struct { char code; enum sw_kind kind; } table[] = {
		{'o', SW_OBJC_ATTRIBUTE}, {'O', SW_NON_OBJC_ATTRIBUTE}, {'D', SW_DYNAMIC_ATTRIBUTE},
		{'d', SW_DIRECT_METHOD_REFERENCE_ATTRIBUTE}, {'V', SW_VTABLE_ATTRIBUTE},
	};
	if (o->len - o->pos < 2 || o->s[o->pos] != 'T')
		return NULL;
	for (size_t i = 0; i < sizeof table / sizeof *table; i++)
		if (table[i].code == o->s[o->pos + 1]) {
			o->pos += 2;
			return sw_new(o->h, table[i].kind);
		}
	return NULL;
}

sw_node *sw_demangle_old(struct sw_heap *h, const char *s, size_t len)
{
	struct od o = {.h = h, .s = s, .len = len};
	if (!od_next_if_str(&o, "_T"))
		return NULL;
	sw_node *top = sw_new(h, SW_GLOBAL), *attr;
	if (od_next_if_str(&o, "TS")) {
		do {
			top = sw_add(h, top, specialized_attribute(&o));
			/* The specialization does not share the rest's substitutions. */
			o.n_subst = 0;
		} while (top && od_next_if_str(&o, "_TTS"));
		if (!od_next_if_str(&o, "_T"))
			return NULL;
	} else if ((attr = attribute(&o))) {
		top = sw_add(h, top, attr);
	}
	top = sw_add(h, top, global(&o));
	if (top && o.pos < o.len)
		top = sw_add(h, top, sw_text(h, SW_SUFFIX, s + o.pos, o.len - o.pos));
	return top;
}
