/* Matrix's structured stack text: "depth,id,count,cost\n" per item.
 *
 * A line may go deeper than the one before by more than one: Matrix's
 * trimStack drops parents and keeps their children, and its put-back
 * quirk grows depths by the pending stack's size, so the device prints
 * such stacks itself.  TraceDataUtils.stackToTree hangs a deeper item
 * under the item before it, and getTreeKey weighs each item by its depth
 * as written; so the stack is kept as written, as Matrix keeps it, and the
 * jumps are one warning.  A hostile depth (0, then 1000000) is shown, not
 * hidden: it would win the StackKey on the device too. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hangar/beat.h"
#include "hangar/stack.h"

/* Parses one signed 32-bit field ending at `end`, allowing spaces around. */
static int parse_field(const char *s, const char *end, int32_t *out)
{
	while (s < end && *s == ' ')
		s++;
	while (end > s && end[-1] == ' ')
		end--;
	int64_t v;
	if (hg_parse_int64(s, (size_t)(end - s), &v) != 0 || v < INT32_MIN || v > INT32_MAX)
		return HG_EPARSE;
	*out = (int32_t)v;
	return 0;
}

static const char *const bad_field[4] = {
	"depth is not a 32-bit integer",
	"method id is not a 32-bit integer",
	"count is not a 32-bit integer",
	"cost is not a 32-bit integer (or there are more than 4 fields)",
};

static int parse_line(const char *s, const char *end, hg_method_item *it, const char **why)
{
	int32_t f[4];
	for (int i = 0; i < 4; i++) {
		const char *comma = i < 3 ? memchr(s, ',', (size_t)(end - s)) : end;
		if (!comma) {
			*why = "expected 4 comma-separated fields depth,id,count,cost";
			return HG_EPARSE;
		}
		if (parse_field(s, comma, &f[i]) != 0) {
			*why = bad_field[i];
			return HG_EPARSE;
		}
		s = comma + 1;
	}
	if (f[0] < 0) {
		*why = "depth is negative";
		return HG_EPARSE;
	}
	*it = (hg_method_item){f[0], f[1], f[2], f[3], 0};
	return 0;
}

/* The depth jumps of one stack: how many lines jump, and the first. */
struct jumps {
	size_t count, line;
	int32_t from, to; /* from -1: the first item is not at depth 0 */
};

static int warn_jumps(const struct jumps *j, const char *where, hg_arena *arena,
		      hg_strlist *warnings)
{
	char what[96], more[64] = "";
	if (j->from < 0)
		snprintf(what, sizeof what, "the stack begins at depth %" PRId32 ", not 0", j->to);
	else
		snprintf(what, sizeof what, "the depth goes from %" PRId32 " to %" PRId32, j->from,
			 j->to);
	if (j->count > 1)
		snprintf(more, sizeof more, ", the first of %zu such jumps", j->count);
	return hg_strlist_addf(warnings, arena, "%sline %zu: %s%s; the stack is used as written, "
			       "as Matrix's is (each item under the nearest shallower one)",
			       where ? where : "", j->line, what, more) != 0 ? HG_ENOMEM : 0;
}

int hg_stack_parse(const char *text, size_t len, size_t max_lines, hg_arena *arena,
		   hg_method_stack *out, size_t *err_line, const char **why)
{
	return hg_stack_parse_checked(text, len, max_lines, arena, out, err_line, why, NULL, NULL);
}

int hg_stack_parse_checked(const char *text, size_t len, size_t max_lines, hg_arena *arena,
			   hg_method_stack *out, size_t *err_line, const char **why,
			   const char *where, hg_strlist *warnings)
{
	out->items = NULL;
	out->len = 0;
	size_t lines = 0;
	for (size_t i = 0; i < len; i++)
		if (text[i] == '\n')
			lines++;
	if (len && text[len - 1] != '\n')
		lines++;
	if (lines > max_lines) {
		*err_line = max_lines + 1;
		*why = "too many stack lines (see --max-stack-lines)";
		return HG_ELIMIT;
	}
	out->items = hg_arena_calloc(arena, lines ? lines : 1, sizeof *out->items);
	if (!out->items)
		return HG_ENOMEM;
	const char *p = text, *end = text + len;
	size_t line = 0;
	struct jumps j = {0};
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		line++;
		const char *stop = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
		if (stop > p) { /* blank lines carry nothing */
			hg_method_item *it = &out->items[out->len];
			if (parse_line(p, stop, it, why) != 0) {
				*err_line = line;
				out->len = 0;
				return HG_EPARSE;
			}
			/* in 64 bits: a depth of INT32_MAX before */
			int64_t prev = out->len ? out->items[out->len - 1].depth : -1;
			if (it->depth > prev + 1 && j.count++ == 0)
				j = (struct jumps){1, line, (int32_t)prev, it->depth};
			it->origin = (uint32_t)out->len;
			out->len++;
		}
		p = nl ? nl + 1 : end;
	}
	return j.count && warnings ? warn_jumps(&j, where, arena, warnings) : 0;
}
