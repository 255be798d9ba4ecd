/* Java method names as a developer reads them:
 * "com.example.db.UserRepository query (Ljava.lang.String;I)V" becomes
 * "com.example.db.UserRepository.query(String, int)". */
#include <stdbool.h>
#include <string.h>

#include "hangar/mapping.h"
#include "hangar/text.h"

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

/* Appends the parameter list of desc ("(...)R") to out; false when desc is
 * not a well-formed method descriptor. */
static bool format_params(const char *d, size_t len, hg_buf *out)
{
	size_t i = 0;
	if (len == 0 || d[i++] != '(')
		return false;
	hg_buf_putc(out, '(');
	bool first = true;
	while (i < len && d[i] != ')') {
		size_t dims = 0;
		while (i < len && d[i] == '[')
			dims++, i++;
		if (i >= len)
			return false;
		if (!first)
			hg_buf_puts(out, ", ");
		first = false;
		if (d[i] == 'L') {
			const char *semi = memchr(d + i, ';', len - i);
			if (!semi)
				return false;
			const char *name = d + i + 1;
			/* Parameters show the simple name, as IDEs do. */
			for (const char *c = name; c < semi; c++)
				if (*c == '.' || *c == '/')
					name = c + 1;
			if (name == semi)
				return false;
			hg_buf_add(out, name, (size_t)(semi - name));
			i = (size_t)(semi - d) + 1;
		} else {
			const char *p = primitive(d[i]);
			if (!p || d[i] == 'V')
				return false;
			hg_buf_puts(out, p);
			i++;
		}
		while (dims--)
			hg_buf_puts(out, "[]");
	}
	if (i >= len)
		return false;
	hg_buf_putc(out, ')');
	return true;
}

char *hg_format_java_method(hg_arena *arena, const char *cls, size_t cls_len, const char *method,
			    size_t method_len, const char *desc, size_t desc_len)
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
		if (!format_params(desc, desc_len, &out)) {
			out.len = mark;
			hg_buf_putc(&out, ' ');
			hg_buf_add(&out, desc, desc_len);
		}
	}
	char *s = out.failed ? NULL : hg_arena_strndup(arena, out.data ? out.data : "", out.len);
	hg_buf_release(&out);
	return s;
}
