/* Printing a Swift symbol's tree as swift-demangle does (see
 * demangle_swift_print.h): the entry, the bounds, and the dispatch; the
 * many nodes that print a fixed text, maybe followed by their first kid
 * or all their kids, are a table here. */
#include "hangar/demangle.h"
#include "hangar/hangar.h"
#include "demangle_swift_print.h"

enum simple_mode { NOT_SIMPLE, TEXT_ONLY, THEN_FIRST, THEN_ALL };

static const struct simple {
	const char *text;
	uint8_t mode;       /* enum simple_mode */
} simple[SW_KIND_COUNT] = {
	[SW_STATIC] = {"static ", THEN_FIRST},
	[SW_ASYNC_REMOVED] = {"async demotion of ", THEN_FIRST},
	[SW_CURRY_THUNK] = {"curry thunk of ", THEN_FIRST},
	[SW_SIL_THUNK_IDENTITY] = {"identity thunk of ", THEN_FIRST},
	[SW_SIL_THUNK_HOP_TO_MAIN_ACTOR_IF_NEEDED] = {"hop to main actor thunk of ", THEN_FIRST},
	[SW_DISPATCH_THUNK] = {"dispatch thunk of ", THEN_FIRST},
	[SW_METHOD_DESCRIPTOR] = {"method descriptor for ", THEN_FIRST},
	[SW_METHOD_LOOKUP_FUNCTION] = {"method lookup function for ", THEN_FIRST},
	[SW_OBJC_METADATA_UPDATE_FUNCTION] = {"ObjC metadata update function for ", THEN_FIRST},
	[SW_OBJC_RESILIENT_CLASS_STUB] = {"ObjC resilient class stub for ", THEN_FIRST},
	[SW_FULL_OBJC_RESILIENT_CLASS_STUB] = {"full ObjC resilient class stub for ", THEN_FIRST},
	[SW_OUTLINED_RETAIN] = {"outlined retain of ", THEN_FIRST},
	[SW_OUTLINED_RELEASE] = {"outlined release of ", THEN_FIRST},
	[SW_OUTLINED_INITIALIZE_WITH_TAKE] = {"outlined init with take of ", THEN_FIRST},
	[SW_OUTLINED_INITIALIZE_WITH_TAKE_NO_VALUE_WITNESS] = {"outlined init with take of ", THEN_FIRST},
	[SW_OUTLINED_INITIALIZE_WITH_COPY] = {"outlined init with copy of ", THEN_FIRST},
	[SW_OUTLINED_INITIALIZE_WITH_COPY_NO_VALUE_WITNESS] = {"outlined init with copy of ", THEN_FIRST},
	[SW_OUTLINED_ASSIGN_WITH_TAKE] = {"outlined assign with take of ", THEN_FIRST},
	[SW_OUTLINED_ASSIGN_WITH_TAKE_NO_VALUE_WITNESS] = {"outlined assign with take of ", THEN_FIRST},
	[SW_OUTLINED_ASSIGN_WITH_COPY] = {"outlined assign with copy of ", THEN_FIRST},
	[SW_OUTLINED_ASSIGN_WITH_COPY_NO_VALUE_WITNESS] = {"outlined assign with copy of ", THEN_FIRST},
	[SW_OUTLINED_DESTROY] = {"outlined destroy of ", THEN_FIRST},
	[SW_OUTLINED_DESTROY_NO_VALUE_WITNESS] = {"outlined destroy of ", THEN_FIRST},
	[SW_OUTLINED_ENUM_PROJECT_DATA_FOR_LOAD] = {"outlined enum project data for load of ", THEN_FIRST},
	[SW_OUTLINED_ENUM_TAG_STORE] = {"outlined enum tag store of ", THEN_FIRST},
	[SW_OUTLINED_ENUM_GET_TAG] = {"outlined enum get tag of ", THEN_FIRST},
	[SW_DECL_CONTEXT] = {"", THEN_FIRST},
	[SW_TYPE] = {"", THEN_FIRST},
	[SW_IN_OUT] = {"inout ", THEN_FIRST},
	[SW_ISOLATED] = {"isolated ", THEN_FIRST},
	[SW_SENDING] = {"sending ", THEN_FIRST},
	[SW_COMPILE_TIME_LITERAL] = {"_const ", THEN_FIRST},
	[SW_CONST_VALUE] = {"@const ", THEN_FIRST},
	[SW_SHARED] = {"__shared ", THEN_FIRST},
	[SW_OWNED] = {"__owned ", THEN_FIRST},
	[SW_NO_DERIVATIVE] = {"@noDerivative ", THEN_FIRST},
	[SW_WEAK] = {"weak ", THEN_FIRST},
	[SW_UNOWNED] = {"unowned ", THEN_FIRST},
	[SW_UNMANAGED] = {"unowned(unsafe) ", THEN_FIRST},
	[SW_PROTOCOL_SELF_CONFORMANCE_WITNESS_TABLE] = {"protocol self-conformance witness table for ", THEN_FIRST},
	[SW_PROTOCOL_WITNESS_TABLE_ACCESSOR] = {"protocol witness table accessor for ", THEN_FIRST},
	[SW_PROTOCOL_WITNESS_TABLE] = {"protocol witness table for ", THEN_FIRST},
	[SW_PROTOCOL_WITNESS_TABLE_PATTERN] = {"protocol witness table pattern for ", THEN_FIRST},
	[SW_GENERIC_PROTOCOL_WITNESS_TABLE] = {"generic protocol witness table for ", THEN_FIRST},
	[SW_GENERIC_PROTOCOL_WITNESS_TABLE_INSTANTIATION_FUNCTION] =
		{"instantiation function for generic protocol witness table for ", THEN_FIRST},
	[SW_RESILIENT_PROTOCOL_WITNESS_TABLE] = {"resilient protocol witness table for ", THEN_FIRST},
	[SW_PROTOCOL_SELF_CONFORMANCE_WITNESS] = {"protocol self-conformance witness for ", THEN_FIRST},
	[SW_ENUM_CASE] = {"enum case for ", THEN_FIRST},
	[SW_GENERIC_TYPE_METADATA_PATTERN] = {"generic type metadata pattern for ", THEN_FIRST},
	[SW_METACLASS] = {"metaclass for ", THEN_FIRST},
	[SW_PROTOCOL_SELF_CONFORMANCE_DESCRIPTOR] = {"protocol self-conformance descriptor for ", THEN_FIRST},
	[SW_PROTOCOL_CONFORMANCE_DESCRIPTOR] = {"protocol conformance descriptor for ", THEN_FIRST},
	[SW_PROTOCOL_CONFORMANCE_DESCRIPTOR_RECORD] =
		{"protocol conformance descriptor runtime record for ", THEN_FIRST},
	[SW_PROTOCOL_DESCRIPTOR] = {"protocol descriptor for ", THEN_FIRST},
	[SW_PROTOCOL_DESCRIPTOR_RECORD] = {"protocol descriptor runtime record for ", THEN_FIRST},
	[SW_PROTOCOL_REQUIREMENTS_BASE_DESCRIPTOR] = {"protocol requirements base descriptor for ", THEN_FIRST},
	[SW_FULL_TYPE_METADATA] = {"full type metadata for ", THEN_FIRST},
	[SW_TYPE_METADATA] = {"type metadata for ", THEN_FIRST},
	[SW_TYPE_METADATA_ACCESS_FUNCTION] = {"type metadata accessor for ", THEN_FIRST},
	[SW_TYPE_METADATA_INSTANTIATION_CACHE] = {"type metadata instantiation cache for ", THEN_FIRST},
	[SW_TYPE_METADATA_INSTANTIATION_FUNCTION] = {"type metadata instantiation function for ", THEN_FIRST},
	[SW_TYPE_METADATA_SINGLETON_INITIALIZATION_CACHE] =
		{"type metadata singleton initialization cache for ", THEN_FIRST},
	[SW_TYPE_METADATA_COMPLETION_FUNCTION] = {"type metadata completion function for ", THEN_FIRST},
	[SW_TYPE_METADATA_DEMANGLING_CACHE] = {"demangling cache variable for type metadata for ", THEN_FIRST},
	[SW_TYPE_METADATA_LAZY_CACHE] = {"lazy cache variable for type metadata for ", THEN_FIRST},
	[SW_ASSOCIATED_TYPE_DESCRIPTOR] = {"associated type descriptor for ", THEN_FIRST},
	[SW_DEFAULT_ASSOCIATED_TYPE_METADATA_ACCESSOR] =
		{"default associated type metadata accessor for ", THEN_FIRST},
	[SW_CLASS_METADATA_BASE_OFFSET] = {"class metadata base offset for ", THEN_FIRST},
	[SW_PROPERTY_DESCRIPTOR] = {"property descriptor for ", THEN_FIRST},
	[SW_NOMINAL_TYPE_DESCRIPTOR] = {"nominal type descriptor for ", THEN_FIRST},
	[SW_NOMINAL_TYPE_DESCRIPTOR_RECORD] = {"nominal type descriptor runtime record for ", THEN_FIRST},
	[SW_OPAQUE_TYPE_DESCRIPTOR] = {"opaque type descriptor for ", THEN_FIRST},
	[SW_OPAQUE_TYPE_DESCRIPTOR_RECORD] = {"opaque type descriptor runtime record for ", THEN_FIRST},
	[SW_OPAQUE_TYPE_DESCRIPTOR_ACCESSOR] = {"opaque type descriptor accessor for ", THEN_FIRST},
	[SW_OPAQUE_TYPE_DESCRIPTOR_ACCESSOR_IMPL] = {"opaque type descriptor accessor impl for ", THEN_FIRST},
	[SW_OPAQUE_TYPE_DESCRIPTOR_ACCESSOR_KEY] = {"opaque type descriptor accessor key for ", THEN_FIRST},
	[SW_OPAQUE_TYPE_DESCRIPTOR_ACCESSOR_VAR] = {"opaque type descriptor accessor var for ", THEN_FIRST},
	[SW_COROUTINE_CONTINUATION_PROTOTYPE] = {"coroutine continuation prototype for ", THEN_FIRST},
	[SW_VALUE_WITNESS_TABLE] = {"value witness table for ", THEN_FIRST},
	[SW_SIL_BOX_TYPE] = {"@box ", THEN_FIRST},
	[SW_PACK_EXPANSION] = {"repeat ", THEN_FIRST},
	[SW_REFLECTION_METADATA_BUILTIN_DESCRIPTOR] = {"reflection metadata builtin descriptor ", THEN_FIRST},
	[SW_REFLECTION_METADATA_FIELD_DESCRIPTOR] = {"reflection metadata field descriptor ", THEN_FIRST},
	[SW_REFLECTION_METADATA_ASSOC_TYPE_DESCRIPTOR] =
		{"reflection metadata associated type descriptor ", THEN_FIRST},
	[SW_REFLECTION_METADATA_SUPERCLASS_DESCRIPTOR] =
		{"reflection metadata superclass descriptor ", THEN_FIRST},
	[SW_MODULE_DESCRIPTOR] = {"module descriptor ", THEN_FIRST},
	[SW_ANONYMOUS_DESCRIPTOR] = {"anonymous descriptor ", THEN_FIRST},
	[SW_EXTENSION_DESCRIPTOR] = {"extension descriptor ", THEN_FIRST},
	[SW_CANONICAL_SPECIALIZED_GENERIC_METACLASS] = {"specialized generic metaclass for ", THEN_FIRST},
	[SW_CANONICAL_SPECIALIZED_GENERIC_TYPE_METADATA_ACCESS_FUNCTION] =
		{"canonical specialized generic type metadata accessor for ", THEN_FIRST},
	[SW_METADATA_INSTANTIATION_CACHE] = {"metadata instantiation cache for ", THEN_FIRST},
	[SW_NONCANONICAL_SPECIALIZED_GENERIC_TYPE_METADATA] =
		{"noncanonical specialized generic type metadata for ", THEN_FIRST},
	[SW_NONCANONICAL_SPECIALIZED_GENERIC_TYPE_METADATA_CACHE] =
		{"cache variable for noncanonical specialized generic type metadata for ", THEN_FIRST},
	[SW_CANONICAL_PRESPECIALIZED_GENERIC_TYPE_CACHING_ONCE_TOKEN] =
		{"flag for loading of canonical specialized generic type metadata for ", THEN_FIRST},
	[SW_UNIQUABLE] = {"uniquable ", THEN_FIRST},

	[SW_PROTOCOL_CONFORMANCE_REF_IN_TYPE_MODULE] = {"protocol conformance ref (type's module) ", THEN_ALL},
	[SW_PROTOCOL_CONFORMANCE_REF_IN_PROTOCOL_MODULE] =
		{"protocol conformance ref (protocol's module) ", THEN_ALL},
	[SW_PROTOCOL_CONFORMANCE_REF_IN_OTHER_MODULE] = {"protocol conformance ref (retroactive) ", THEN_ALL},
	[SW_PACK_PROTOCOL_CONFORMANCE] = {"pack protocol conformance ", THEN_ALL},
	[SW_DEPENDENT_ASSOCIATED_CONFORMANCE] = {"dependent associated conformance ", THEN_ALL},
	[SW_ASSOCIATED_TYPE_GENERIC_PARAM_REF] = {"generic parameter reference for associated type ", THEN_ALL},
	[SW_TYPE_LIST] = {"", THEN_ALL},
	[SW_GLOBAL] = {"", THEN_ALL},

	[SW_NON_OBJC_ATTRIBUTE] = {"@nonobjc ", TEXT_ONLY},
	[SW_OBJC_ATTRIBUTE] = {"@objc ", TEXT_ONLY},
	[SW_DIRECT_METHOD_REFERENCE_ATTRIBUTE] = {"super ", TEXT_ONLY},
	[SW_DYNAMIC_ATTRIBUTE] = {"dynamic ", TEXT_ONLY},
	[SW_VTABLE_ATTRIBUTE] = {"override ", TEXT_ONLY},
	[SW_IS_SERIALIZED] = {"serialized", TEXT_ONLY},
	[SW_UNKNOWN_INDEX] = {"unknown index", TEXT_ONLY},
	[SW_BUILTIN_TUPLE_TYPE] = {"Builtin.TheTupleType", TEXT_ONLY},
	[SW_DYNAMIC_SELF] = {"Self", TEXT_ONLY},
	[SW_CONSTRAINED_EXISTENTIAL_SELF] = {"Self", TEXT_ONLY},
	[SW_ERROR_TYPE] = {"<ERROR TYPE>", TEXT_ONLY},
	[SW_OPAQUE_RETURN_TYPE] = {"some", TEXT_ONLY},
	[SW_MERGED_FUNCTION] = {"merged ", TEXT_ONLY},
	[SW_DISTRIBUTED_THUNK] = {"distributed thunk ", TEXT_ONLY},
	[SW_DISTRIBUTED_ACCESSOR] = {"distributed accessor for ", TEXT_ONLY},
	[SW_ACCESSIBLE_FUNCTION_RECORD] = {"accessible function runtime record for ", TEXT_ONLY},
	[SW_DYNAMICALLY_REPLACEABLE_FUNCTION_KEY] = {"dynamically replaceable key for ", TEXT_ONLY},
	[SW_DYNAMICALLY_REPLACEABLE_FUNCTION_IMPL] = {"dynamically replaceable thunk for ", TEXT_ONLY},
	[SW_DYNAMICALLY_REPLACEABLE_FUNCTION_VAR] = {"dynamically replaceable variable for ", TEXT_ONLY},
	[SW_BACK_DEPLOYMENT_THUNK] = {"back deployment thunk for ", TEXT_ONLY},
	[SW_BACK_DEPLOYMENT_FALLBACK] = {"back deployment fallback for ", TEXT_ONLY},
	[SW_ASYNC_FUNCTION_POINTER] = {"async function pointer to ", TEXT_ONLY},
	[SW_HAS_SYMBOL_QUERY] = {"#_hasSymbol query for ", TEXT_ONLY},
	[SW_CORO_FUNCTION_POINTER] = {"coro function pointer to ", TEXT_ONLY},
	[SW_DEFAULT_OVERRIDE] = {"default override of ", TEXT_ONLY},
	[SW_CONCURRENT_FUNCTION_TYPE] = {"@Sendable ", TEXT_ONLY},
	[SW_ISOLATED_ANY_FUNCTION_TYPE] = {"@isolated(any) ", TEXT_ONLY},
	[SW_NON_ISOLATED_CALLER_FUNCTION_TYPE] = {"nonisolated(nonsending) ", TEXT_ONLY},
	[SW_SENDING_RESULT_FUNCTION_TYPE] = {"sending ", TEXT_ONLY},
	[SW_ASYNC_ANNOTATION] = {" async", TEXT_ONLY},
	[SW_THROWS_ANNOTATION] = {" throws", TEXT_ONLY},
	[SW_EMPTY_LIST] = {" empty-list ", TEXT_ONLY},
	[SW_FIRST_ELEMENT_MARKER] = {" first-element-marker ", TEXT_ONLY},
	[SW_VARIADIC_MARKER] = {" variadic-marker ", TEXT_ONLY},
	[SW_IMPL_ESCAPING] = {"@escaping", TEXT_ONLY},
	[SW_IMPL_ERASED_ISOLATION] = {"@isolated(any)", TEXT_ONLY},
	[SW_IMPL_SENDING_RESULT] = {"sending", TEXT_ONLY},
	[SW_LABEL_LIST] = {"", TEXT_ONLY},
	[SW_ASSOCIATED_TYPE] = {"", TEXT_ONLY},
	[SW_OPAQUE_RETURN_TYPE_INDEX] = {"", TEXT_ONLY},
	[SW_OPAQUE_RETURN_TYPE_PARENT] = {"", TEXT_ONLY},
};

void pr_children(struct pr *p, const sw_node *n, int depth, const char *sep)
{
	for (unsigned i = 0; n && i < n->n && !p->bad; i++) {
		if (i && sep)
			put(p, sep);
		pr_node(p, n->kids[i], depth + 1, false);
	}
}

/* A suffix as Swift quotes it: C escapes, other control and non-ASCII
 * bytes as \xHH. */
static void put_quoted(struct pr *p, const char *s, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	put(p, "\"");
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		char b[5] = {'\\', 0, 0, 0, 0};
		switch (c) {
		case '\\': b[1] = '\\'; break;
		case '\t': b[1] = 't'; break;
		case '\n': b[1] = 'n'; break;
		case '\r': b[1] = 'r'; break;
		case '"': b[1] = '"'; break;
		case 0: b[1] = '0'; break;
		default:
			if (c < 0x20 || c >= 0x7f) {
				b[1] = 'x';
				b[2] = hex[c >> 4];
				b[3] = hex[c & 15];
			} else {
				b[0] = (char)c;
			}
		}
		put(p, b);
	}
	put(p, "\"");
}

/* Nodes that print their text or index. */
static bool leaf_node(struct pr *p, const sw_node *n, int depth)
{
	switch (n->kind) {
	case SW_IDENTIFIER: case SW_MODULE: case SW_BUILTIN_TYPE_NAME: case SW_CLANG_TYPE:
	case SW_METATYPE_REPRESENTATION: case SW_IMPL_CONVENTION: case SW_IMPL_FUNCTION_ATTRIBUTE:
		put_text(p, n);
		return true;
	case SW_INFIX_OPERATOR: put_text(p, n); put(p, " infix"); return true;
	case SW_PREFIX_OPERATOR: put_text(p, n); put(p, " prefix"); return true;
	case SW_POSTFIX_OPERATOR: put_text(p, n); put(p, " postfix"); return true;
	case SW_TUPLE_ELEMENT_NAME: put_text(p, n); put(p, ": "); return true;
	case SW_INDEX: case SW_NUMBER: case SW_SPECIALIZATION_PASS_ID: case SW_INTEGER:
		put_u64(p, n->index);
		return true;
	case SW_NEGATIVE_INTEGER: {
		char b[24];
		snprintf(b, sizeof b, "%lld", (long long)(int64_t)n->index);
		put(p, b);
		return true;
	}
	case SW_DROPPED_ARGUMENT: put(p, "param"); put_u64(p, n->index); put(p, "-removed"); return true;
	case SW_ACCESSOR_FUNCTION_REFERENCE: put(p, "accessor function at "); put_u64(p, n->index); return true;
	case SW_DIRECTNESS: put(p, n->index ? "indirect " : "direct "); return true;
	case SW_OUTLINED_VARIABLE:
		put(p, "outlined variable #");
		put_u64(p, n->index);
		put(p, " of ");
		return true;
	case SW_OUTLINED_READ_ONLY_OBJECT:
		put(p, "outlined read-only object #");
		put_u64(p, n->index);
		put(p, " of ");
		return true;
	case SW_OUTLINED_BRIDGED_METHOD:
		put(p, "outlined bridged method (");
		put_text(p, n);
		put(p, ") of ");
		return true;
	case SW_SUFFIX:
		put(p, " with unmangled suffix ");
		put_quoted(p, n->text, n->len);
		return true;
	case SW_RETURN_TYPE:
		if (n->n == 0)
			put_text(p, n);
		else
			pr_children(p, n, depth, NULL);
		return true;
	default:
		return false;
	}
}

const sw_node *pr_node(struct pr *p, const sw_node *n, int depth, bool as_prefix)
{
	if (p->bad || !n)
		return NULL;
	if (depth > HG_DEMANGLE_MAX_DEPTH || ++p->steps > PR_MAX_STEPS ||
	    p->out->len > HG_DEMANGLE_MAX_OUTPUT || p->out->failed) {
		p->bad = true;
		return NULL;
	}
	const struct simple *s = &simple[n->kind];
	switch (s->mode) {
	case TEXT_ONLY:
		put(p, s->text);
		return NULL;
	case THEN_FIRST:
		put(p, s->text);
		pr_kid(p, n, 0, depth);
		return NULL;
	case THEN_ALL:
		put(p, s->text);
		pr_children(p, n, depth, NULL);
		return NULL;
	default:
		break;
	}
	if (leaf_node(p, n, depth))
		return NULL;
	bool done = false;
	const sw_node *postfix = pr_entity_node(p, n, depth, as_prefix, &done);
	if (done)
		return postfix;
	if (!pr_types_node(p, n, depth) && !pr_misc_node(p, n, depth) && !pr_thunk_node(p, n, depth))
		p->bad = true; /* a node Swift's printer cannot print alone */
	return NULL;
}

int sw_print(const sw_node *root, bool sugar, int nesting, hg_buf *out)
{
	struct pr p = {.out = out, .sugar = sugar, .nesting = nesting};
	pr_node(&p, root, 0, false);
	if (p.oom)
		return HG_ENOMEM;
	return !p.bad && out->len > 0 && out->len <= HG_DEMANGLE_MAX_OUTPUT;
}
