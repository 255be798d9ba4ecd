/* Matrix's ids in one line of text, for a filter that names them (hangar
 * symbolicate): a "depth,id,count,cost" line of a folded stack, and a
 * StackKey "<id>|<id>|...", alone or after a stackKey label.  Whole
 * stacks are parsed by hg_stack_parse (stack_parse.c). */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "hangar/stack.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A method id of at most 7 digits at s[*i..n), stopping at stop. */
static bool read_id(const char *s, size_t n, size_t *i, char stop, int32_t *id)
{
	size_t start = *i;
	int64_t v = 0;
	while (*i < n && is_digit(s[*i]) && *i - start < 7)
		v = v * 10 + (s[(*i)++] - '0');
	if (*i == start || *i >= n || s[*i] != stop)
		return false;
	*id = (int32_t)v;
	return true;
}

bool hg_stack_line_id(const char *s, size_t n, int32_t *id)
{
	size_t i = 0;
	int32_t v;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (!read_id(s, n, &i, ',', &v))
		return false;
	i++;
	if (!read_id(s, n, &i, ',', id))
		return false;
	i++;
	if (!read_id(s, n, &i, ',', &v))
		return false;
	i++;
	size_t d = i;
	while (i < n && is_digit(s[i]))
		i++;
	if (i == d)
		return false;
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
		i++;
	return i == n;
}

size_t hg_stack_key_span(const char *s, size_t n, size_t *end)
{
	size_t i = 0;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	size_t key = i;
	for (size_t k = 0; key == i && k + 8 <= n; k++)
		if (strncasecmp(s + k, "stackkey", 8) == 0 ||
		    (k + 9 <= n && strncasecmp(s + k, "stack_key", 9) == 0)) {
			size_t j = k + (s[k + 5] == '_' ? 9 : 8);
			while (j < n && (s[j] == '"' || s[j] == ' ' || s[j] == ':' || s[j] == '='))
				j++;
			key = j;
		}
	size_t j = key;
	int32_t id;
	while (j < n && read_id(s, n, &j, '|', &id))
		j++;
	if (j == key)
		return n;
	size_t t = j;
	if (key == i) { /* alone on its line */
		while (t < n && (s[t] == ' ' || s[t] == '\t' || s[t] == '\r'))
			t++;
		if (t != n)
			return n;
	} else if (j < n && s[j] != '"' && s[j] != ' ' && s[j] != ',' && s[j] != '\r' && s[j] != '}') {
		return n;
	}
	*end = j;
	return key;
}
