/* Java method names as a developer reads them:
 * "com.example.db.UserRepository query (Ljava.lang.String;I)V" becomes
 * "com.example.db.UserRepository.query(String, int)"; overloads that this
 * would name alike (mapping_overload.c) are told apart by their whole
 * parameter types or their return type. */
#include <stdbool.h>
#include <string.h>

#include "hangar/mapping.h"
#include "hangar/text.h"
#include "mapping_internal.h"

static const char *primitive(char c)
{
	switch (c) {
	case 'B': return "byte";
	case 'C': return "char";
	case 'D': return "double";
	case 'F': return "float";
	case 'I': return "int";
	case 'J': return "long";
	case 'S': return "short";
	case 'Z': return "boolean";
	case 'V': return "void";
	}
	return NULL;
}

/* Appends the type at d[*i] (a field descriptor, or V where void is
 * allowed), moving *i past it; a class by its simple name, as IDEs show
 * parameters, or whole when qualified.  false when it is not one. */
static bool format_type(const char *d, size_t len, size_t *i, bool qualified, bool allow_void,
			hg_buf *out)
{
	size_t dims = 0;
	while (*i < len && d[*i] == '[')
		dims++, (*i)++;
	if (*i >= len)
		return false;
	if (d[*i] == 'L') {
		const char *semi = memchr(d + *i, ';', len - *i);
		if (!semi)
			return false;
		const char *name = d + *i + 1, *start = name;
		for (const char *c = name; c < semi; c++)
			if (*c == '.' || *c == '/')
				name = c + 1;
		if (name == semi)
			return false;
		if (qualified)
			for (const char *c = start; c < semi; c++)
				hg_buf_putc(out, *c == '/' ? '.' : *c);
		else
			hg_buf_add(out, name, (size_t)(semi - name));
		*i = (size_t)(semi - d) + 1;
	} else {
		const char *p = primitive(d[*i]);
		if (!p || (d[*i] == 'V' && (!allow_void || dims)))
			return false;
		hg_buf_puts(out, p);
		(*i)++;
	}
	while (dims--)
		hg_buf_puts(out, "[]");
	return true;
}

/* Appends the parameter list of desc ("(...)R") to out, and with
 * JAVA_RETURN " -> R"; false when desc is not a well-formed method
 * descriptor. */
static bool format_desc(const char *d, size_t len, unsigned how, hg_buf *out)
{
	size_t i = 0;
	if (len == 0 || d[i++] != '(')
		return false;
	hg_buf_putc(out, '(');
	bool first = true;
	while (i < len && d[i] != ')') {
		if (!first)
			hg_buf_puts(out, ", ");
		first = false;
		if (!format_type(d, len, &i, how & JAVA_QUALIFIED_PARAMS, false, out))
			return false;
	}
	if (i >= len)
		return false;
	hg_buf_putc(out, ')');
	if (!(how & JAVA_RETURN))
		return true;
	i++;
	hg_buf_puts(out, " -> ");
	return format_type(d, len, &i, how & JAVA_QUALIFIED_RETURN, true, out) && i == len;
}

char *mapping_format_method(hg_arena *arena, const char *cls, size_t cls_len, const char *method,
			    size_t method_len, const char *desc, size_t desc_len, unsigned how)
{
	hg_buf out;
	hg_buf_init(&out);
	for (size_t i = 0; i < cls_len; i++)
		hg_buf_putc(&out, cls[i] == '/' ? '.' : cls[i]);
	if (method_len) {
		hg_buf_putc(&out, '.');
		hg_buf_add(&out, method, method_len);
	}
	if (desc_len) {
		size_t mark = out.len;
		bool ok = format_desc(desc, desc_len, how, &out);
		if (!ok && how) { /* what tells an overload apart does not read: as any */
			out.len = mark;
			ok = format_desc(desc, desc_len, 0, &out);
		}
		if (!ok) {
			out.len = mark;
			hg_buf_putc(&out, ' ');
			hg_buf_add(&out, desc, desc_len);
		}
	}
	char *s = out.failed ? NULL : hg_arena_strndup(arena, out.data ? out.data : "", out.len);
	hg_buf_release(&out);
	return s;
}

char *hg_format_java_method(hg_arena *arena, const char *cls, size_t cls_len, const char *method,
			    size_t method_len, const char *desc, size_t desc_len)
{
	return mapping_format_method(arena, cls, cls_len, method, method_len, desc, desc_len, 0);
}
