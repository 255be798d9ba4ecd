/* Method stacks as Matrix builds them: rebuilding depth/id/count/cost items
 * from an AppMethodBeat buffer (TraceDataUtils.structuredDataToStack),
 * trimming (trimStack as EvilMethodTracer calls it), the stack cost and the
 * StackKey (getTreeKey).  Results are byte-identical to Matrix's, quirks
 * included; what Matrix swallows silently is reported as warnings. */
#ifndef HANGAR_STACK_H
#define HANGAR_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"

/* One line of a Matrix stack: "depth,id,count,cost".  Fields are Java ints
 * and wrap like them. */
typedef struct hg_method_item {
	int32_t depth;
	int32_t id;
	int32_t count;
	int32_t cost;   /* ms */
	uint32_t origin; /* index of this item in the untrimmed stack */
} hg_method_item;

/* A flat stack in Matrix's order (parents before children). */
typedef struct hg_method_stack {
	hg_method_item *items;  /* arena-owned */
	size_t len;
} hg_method_stack;

/* Matrix constants (matrix-trace-canary Constants.java). */
#define HG_MATRIX_TARGET_STACK 30      /* TARGET_EVIL_METHOD_STACK */
#define HG_MATRIX_FILTER_MAX_PASSES 60 /* FILTER_STACK_MAX_COUNT */
#define HG_MATRIX_FILTER_STEP_MS 5     /* TIME_UPDATE_CYCLE_MS */
#define HG_MATRIX_DEFAULT_ANR 5000     /* DEFAULT_ANR: a merged cost of exactly this is replaced */
#define HG_MATRIX_KEY_PERCENT 0.3f     /* FILTER_STACK_KEY_ALL_PERCENT */

typedef struct hg_rebuild_opts {
	bool strict;       /* start at the first dispatch entry (Matrix's default) */
	int64_t end_time;  /* cost reference for unfinished entries, buffer clock */
} hg_rebuild_opts;

/* Rebuilds the stack from words[0..n) exactly as structuredDataToStack does.
 * out->items is owned by the arena.  Each oddity Matrix swallows is added to
 * warnings (arena strings naming the buffer index).  Returns 0 or HG_ENOMEM;
 * a buffer that Matrix turns into an empty stack is a success with len 0. */
int hg_stack_rebuild(const int64_t *words, size_t n, const hg_rebuild_opts *opts,
		     hg_arena *arena, hg_method_stack *out, hg_strlist *warnings);

/* The same, and when begin is not NULL, *begin receives an arena array
 * indexed like out->items: each item's first entry time (of its first call
 * when Matrix merged repeats), in ms after the earliest of them; NULL for
 * an empty stack.  hg_stack_rebuild does not pay for it. */
int hg_stack_rebuild_timed(const int64_t *words, size_t n, const hg_rebuild_opts *opts,
			   hg_arena *arena, hg_method_stack *out, int64_t **begin,
			   hg_strlist *warnings);

/* The latest timestamp in the buffer (the default end_time); 0 if none. */
int64_t hg_stack_latest_time(const int64_t *words, size_t n);

/* trimStack(stack, target, EvilMethodTracer's filter): copies the kept items
 * into out (arena-owned).  Items keep their origin index. */
int hg_stack_trim(const hg_method_stack *in, size_t target, hg_arena *arena, hg_method_stack *out);

/* max(cost, largest item cost, 0): the cost Matrix reports. */
int64_t hg_stack_cost(const hg_method_stack *stack, int64_t cost);

/* getTreeKey(stack, stackCost): the index of the StackKey item, or -1 for an
 * empty stack. */
long hg_stack_key(const hg_method_stack *stack, int64_t stack_cost);

/* Whether two StackKey texts name the same methods.  Matrix writes a key
 * as method ids each followed by '|' ("101|"); Matrix 0.5 followed each by
 * a newline ("101\n"), and older ones wrote the key item's stack line
 * ("0,101,1,56\n"): ids separated by '|' or white space, or a line of four
 * comma-separated numbers (its second is the id), are compared by their
 * ids.  Text in none of these forms is compared byte for byte. */
bool hg_stack_key_same(const char *a, const char *b);

/* Parses Matrix's structured stack text ("depth,id,count,cost" lines, each
 * ending in \n; a missing final \n and CRLF are tolerated) into out.  On a bad
 * line returns HG_EPARSE with *err_line (1-based) and *why set; more than
 * max_lines lines is HG_ELIMIT. */
int hg_stack_parse(const char *text, size_t len, size_t max_lines, hg_arena *arena,
		   hg_method_stack *out, size_t *err_line, const char **why);
/* The same, and when warnings is not NULL, lines that go deeper than the
 * line before by more than one (or a first line not at depth 0) are one
 * warning there (an arena string, prefixed by where unless NULL: "field
 * \"stack\", line 3: the depth goes from 0 to 1000000, the first of 2 such
 * jumps; ...").  The stack is kept as written all the same, as Matrix
 * keeps it: trimming drops parents and keeps their children. */
int hg_stack_parse_checked(const char *text, size_t len, size_t max_lines, hg_arena *arena,
			   hg_method_stack *out, size_t *err_line, const char **why,
			   const char *where, hg_strlist *warnings);

/* A call tree over a flat stack: the parent of an item is the nearest earlier
 * item with a smaller depth.  Arrays are indexed like the stack's items. */
typedef struct hg_calltree {
	long *parent;        /* -1 for a root */
	int64_t *self;       /* cost minus the children's costs, at least 0 */
	size_t *first_child; /* SIZE_MAX when none */
	size_t *next_sibling;/* SIZE_MAX when none */
	size_t first_root;   /* SIZE_MAX for an empty stack */
} hg_calltree;

/* Builds the call tree of stack (arrays owned by the arena). */
/* One line s[0..n) of text, for a filter: whether it is a whole
 * "depth,id,count,cost" line (blanks around), with its method id in *id
 * (stack_text_line.c). */
bool hg_stack_line_id(const char *s, size_t n, int32_t *id);
/* Where a StackKey "<id>|<id>|..." starts in s[0..n): the whole trimmed
 * line, or after a "stackKey" / "stack_key" label; its end in *end.
 * Returns n when there is none. */
size_t hg_stack_key_span(const char *s, size_t n, size_t *end);

int hg_calltree_build(const hg_method_stack *stack, hg_arena *arena, hg_calltree *tree);

#endif
