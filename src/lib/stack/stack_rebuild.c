/* Module stack (src/lib/stack/): Matrix's method stacks, byte for byte as
 * Matrix computes them.  AppMethodBeat words from their encodings (beat.c),
 * the rebuild of depth/id/count/cost items from a buffer (stack_rebuild.c),
 * the structured stack text (stack_parse.c), trimming, cost and StackKey
 * (stack_key.c) and the call tree a person reads (calltree.c).
 * Public headers: beat.h, stack.h.
 * Uses: core. */
/* TraceDataUtils.structuredDataToStack, step for step.
 *
 * Matrix keeps the pending entries in a LinkedList used as a stack, pushes
 * finished items to the front of the result list (merging a repeat of the
 * item just pushed), then rebuilds a tree from that list and flattens it.
 * Every quirk of that code is reproduced here on purpose, because reports
 * are compared against what the device computed; what Matrix swallows
 * silently becomes a warning naming the buffer word.
 *
 * The tree is built only when the buffer needs it.  In a buffer Matrix
 * reads without an oddity (every exit matches the innermost entry, no
 * dispatch entry above pending ones, nothing left unfinished that it
 * drops), each item's depth is its call's nesting level and the result
 * list is the calls in the order they finished, repeats merged into the
 * call before them.  stackToTree then rebuilds the calls' own tree and
 * treeToStack lists it in pre-order, children in the order they ran:
 * the order the calls were entered.  So a plain pass (rebuild_plain)
 * numbers each call as it is entered and lists the items by that number
 * (flatten_in_call_order); at its first oddity the rebuild starts again on
 * Matrix's way, tree and all. */
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "hangar/beat.h"
#include "hangar/stack.h"
#include "java_int.h"
#include "stack_rebuild.h"

#define NIL UINT32_MAX /* no node: indexes are 32-bit, see the cap in hg_stack_rebuild */

/* The pending entries: a deque whose front is the top of Matrix's stack. */
struct pending {
	int64_t word;
	uint32_t index; /* position in the buffer, for warnings (n < UINT32_MAX) */
	uint32_t call;  /* the how-manyth entry (rebuild_plain): its place in call order */
};

struct deque {
	struct pending *slot;
	size_t cap, head, len;
};

/* The wraps compare rather than divide: a push and a pop a word, and the
 * rebuild runs on the thread that prints. */
static void push_front(struct deque *q, struct pending p)
{
	q->head = q->head ? q->head - 1 : q->cap - 1;
	q->slot[q->head] = p;
	q->len++;
}

static void push_back(struct deque *q, struct pending p)
{
	size_t at = q->head + q->len;
	q->slot[at < q->cap ? at : at - q->cap] = p;
	q->len++;
}

static struct pending pop_front(struct deque *q)
{
	struct pending p = q->slot[q->head];
	q->head = q->head + 1 < q->cap ? q->head + 1 : 0;
	q->len--;
	return p;
}

/* What Matrix swallowed, counted so that a million oddities give one line. */
struct oddities {
	size_t stray_exits, first_stray;
	size_t mismatches, first_mismatch;
	size_t put_back, first_put_back;
	size_t unmatched, first_unmatched;
	size_t wraps, first_wrap;
	size_t anr_merges, first_anr_merge;
	size_t dropped_unfinished;
	bool saw_dispatch;
};

/* The result list, back = Matrix's front (the item last pushed). */
struct items {
	hg_method_item *item;
	size_t len;
	size_t *word; /* buffer index that finished each item */
	int64_t *begin; /* entry time of each item's first call; NULL: not asked for */
	uint32_t *of_call; /* by call number: the item it made, NIL when merged */
};

/* Matrix's merge of a repeat into the item before it (same id and depth,
 * not at depth 0), with its DEFAULT_ANR rule: whether it merged. */
static inline __attribute__((always_inline)) bool merge_repeat(hg_method_item *last, int32_t id,
								int32_t cost, int32_t depth, size_t word,
								struct oddities *odd)
{
	if (last->id != id || last->depth != depth || depth == 0)
		return false;
	if (cost == HG_MATRIX_DEFAULT_ANR) {
		if (odd->anr_merges++ == 0)
			odd->first_anr_merge = word;
		cost = last->cost;
	}
	last->count = java_add(last->count, 1);
	last->cost = java_add(last->cost, cost);
	return true;
}

/* addMethodItem: merge into the previous item when id and depth repeat
 * (merge_repeat, which rebuild_plain uses too); whether it added an item.
 * Inlined, like handle_exit, into each of the rebuild's two copies (see
 * rebuild), so that the one without times tests nothing for them. */
static inline __attribute__((always_inline)) bool add_item(struct items *r, int32_t id, int32_t cost, int32_t depth, size_t word,
		     int64_t begin, struct oddities *odd)
{
	if (r->len > 0 && merge_repeat(&r->item[r->len - 1], id, cost, depth, word, odd))
		return false;
	/* A merged repeat keeps the first call's begin: the repeats follow it. */
	r->item[r->len] = (hg_method_item){depth, id, 1, cost, 0};
	r->word[r->len] = word;
	if (r->begin)
		r->begin[r->len] = begin;
	r->len++;
	return true;
}

/* Handles one exit word.  Returns 0 to go on, ABANDON when Matrix would
 * discard the whole stack (a negative duration), or HG_ENOMEM. */
#define ABANDON 1
static inline __attribute__((always_inline)) int handle_exit(struct deque *raw, int64_t *depth, int64_t word, size_t index,
		    struct items *r, struct oddities *odd, hg_arena *arena, hg_strlist *warnings)
{
	int32_t out_id = hg_beat_method_id(word);
	if (raw->len == 0) {
		if (odd->stray_exits++ == 0)
			odd->first_stray = index;
		return 0;
	}
	struct pending in = pop_front(raw);
	(*depth)--;
	size_t popped_from = raw->len; /* entries left below the popped ones */
	struct pending *tmp = NULL;
	size_t ntmp = 0;
	int32_t in_id;
	if ((in_id = hg_beat_method_id(in.word)) != out_id) {
		/* Matrix pops until it finds the entry; remember the popped ones
		 * in order, as its `tmp` list does. */
		if (odd->mismatches++ == 0)
			odd->first_mismatch = index;
		tmp = malloc((popped_from + 1) * sizeof *tmp);
		if (!tmp)
			return HG_ENOMEM;
		tmp[ntmp++] = in;
		while ((in_id = hg_beat_method_id(in.word)) != out_id && raw->len > 0) {
			in = pop_front(raw);
			(*depth)--;
			tmp[ntmp++] = in;
		}
	}
	if (in_id != out_id && in_id == HG_BEAT_DISPATCH_ID) {
		/* The search ended at the dispatch entry: Matrix appends the
		 * popped entries to the bottom of the stack and grows depth by the
		 * stack's whole size. */
		if (odd->put_back++ == 0)
			odd->first_put_back = index;
		for (size_t i = 0; i < ntmp; i++)
			push_back(raw, tmp[i]);
		*depth += (int64_t)raw->len;
		free(tmp);
		return 0;
	}
	free(tmp);
	if (in_id != out_id) {
		/* Nothing matched: Matrix still records the exit's id, timed from
		 * the last entry it popped. */
		if (odd->unmatched++ == 0)
			odd->first_unmatched = index;
	}
	int64_t during = hg_beat_time(word) - hg_beat_time(in.word);
	if (during < 0) {
		hg_strlist_addf(warnings, arena,
				"time goes backwards at word %zu: exit of method %d at %lld ms precedes "
				"its entry at word %zu (%lld ms); Matrix discards the whole stack",
				index, out_id, (long long)hg_beat_time(word), (size_t)in.index,
				(long long)hg_beat_time(in.word));
		return ABANDON;
	}
	if (during > INT32_MAX && odd->wraps++ == 0)
		odd->first_wrap = index;
	add_item(r, out_id, java_int(during), java_int(*depth), index, hg_beat_time(in.word), odd);
	return 0;
}

static void report_oddities(const struct oddities *odd, bool strict, hg_arena *arena,
			    hg_strlist *w)
{
	if (strict && !odd->saw_dispatch)
		hg_strlist_addf(w, arena, "no dispatch entry (method %d) in the buffer: strict mode "
				"skips every word", HG_BEAT_DISPATCH_ID);
	if (odd->stray_exits)
		hg_strlist_addf(w, arena, "%zu stray exit(s) with no pending entry, first at word %zu; "
				"Matrix ignores them", odd->stray_exits, odd->first_stray);
	if (odd->mismatches)
		hg_strlist_addf(w, arena, "%zu exit(s) did not match the innermost entry, first at word "
				"%zu; Matrix popped entries until it found theirs",
				odd->mismatches, odd->first_mismatch);
	if (odd->put_back)
		hg_strlist_addf(w, arena, "%zu exit(s) found no entry before the dispatch entry, first "
				"at word %zu; Matrix put the popped entries back at the bottom and "
				"grew the depth by the stack size", odd->put_back, odd->first_put_back);
	if (odd->unmatched)
		hg_strlist_addf(w, arena, "%zu exit(s) matched no entry at all, first at word %zu; "
				"Matrix timed them from the last entry it popped",
				odd->unmatched, odd->first_unmatched);
	if (odd->wraps)
		hg_strlist_addf(w, arena, "%zu duration(s) exceed 2^31-1 ms and wrap as Java ints, "
				"first at word %zu", odd->wraps, odd->first_wrap);
	if (odd->anr_merges)
		hg_strlist_addf(w, arena, "%zu merged repeat(s) cost exactly %d ms and took the previous "
				"cost instead (Matrix's DEFAULT_ANR rule), first at word %zu",
				odd->anr_merges, HG_MATRIX_DEFAULT_ANR, odd->first_anr_merge);
	if (odd->dropped_unfinished)
		hg_strlist_addf(w, arena, "%zu entr%s never exited; non-strict mode drops them",
				odd->dropped_unfinished, odd->dropped_unfinished == 1 ? "y" : "ies");
}

/* Times made relative to the earliest of them. */
static int64_t *from_earliest(int64_t *times, size_t n)
{
	int64_t first = INT64_MAX;
	for (size_t i = 0; i < n; i++)
		first = times[i] < first ? times[i] : first;
	for (size_t i = 0; i < n; i++)
		times[i] -= first;
	return times;
}

/* stackToTree + treeToStack over the result list in Matrix's order (our
 * reverse order).  Fills out with the flattened items; scratch holds 4 x
 * r->len indexes. */
static int tree_and_flatten(const struct items *r, uint32_t *scratch, hg_arena *arena,
			    hg_method_stack *out, int64_t **begin, hg_strlist *warnings)
{
	size_t m = r->len;
	out->items = NULL;
	out->len = 0;
	if (m == 0)
		return 0;
	uint32_t *father = scratch, *first = scratch + m, *next = scratch + 2 * m,
		 *todo = scratch + 3 * m;
#define ITEM(k) (&r->item[m - 1 - (k)])
	uint32_t root_first = NIL, last = NIL;
	size_t dropped = 0, first_dropped = 0;
	int rc = 0;
	for (uint32_t k = 0; k < m; k++) {
		int32_t d = ITEM(k)->depth;
		father[k] = last;
		first[k] = next[k] = NIL;
		if (last == NIL && d != 0) {
			hg_strlist_addf(warnings, arena, "the first item (method %d, finished at word %zu) "
					"has depth %d, not 0; Matrix discards the whole stack",
					ITEM(k)->id, r->word[m - 1 - k], d);
			goto empty;
		}
		if (last == NIL || d == 0) {
			next[k] = root_first;
			root_first = k;
		} else if (ITEM(last)->depth >= d) {
			while (ITEM(last)->depth > d) {
				last = father[last];
				if (last == NIL) {
					hg_strlist_addf(warnings, arena, "the item of method %d (finished at "
							"word %zu, depth %d) has no ancestor; Matrix's "
							"stackToTree would throw a NullPointerException here "
							"and report nothing", ITEM(k)->id,
							r->word[m - 1 - k], d);
					goto empty;
				}
			}
			if (father[last] != NIL) {
				father[k] = father[last];
				next[k] = first[father[last]];
				first[father[last]] = k;
			} else if (dropped++ == 0) {
				first_dropped = m - 1 - k;
			}
		} else {
			next[k] = first[last];
			first[last] = k;
		}
		last = k;
	}
	if (dropped)
		hg_strlist_addf(warnings, arena, "%zu item(s) had no parent in Matrix's tree and were "
				"dropped, first the one finished at word %zu",
				dropped, r->word[first_dropped]);
	/* Both filled up to out->len before anyone reads them. */
	out->items = hg_arena_alloc_unzeroed(arena, m * sizeof *out->items);
	int64_t *times = begin ? hg_arena_alloc_unzeroed(arena, m * sizeof *times) : NULL;
	if (!out->items || (begin && !times)) {
		rc = HG_ENOMEM;
		goto empty;
	}
	/* Pre-order walk without recursion: stacks can be a million deep. */
	size_t ntodo = 0;
	uint32_t k = root_first;
	while (k != NIL) {
		hg_method_item it = *ITEM(k);
		it.origin = (uint32_t)out->len;
		if (times)
			times[out->len] = r->begin[m - 1 - k];
		out->items[out->len++] = it;
		if (first[k] != NIL) {
			if (next[k] != NIL)
				todo[ntodo++] = next[k];
			k = first[k];
		} else {
			k = next[k];
			if (k == NIL && ntodo > 0)
				k = todo[--ntodo];
		}
	}
#undef ITEM
	if (times)
		*begin = from_earliest(times, out->len);
	return 0;
empty:
	out->len = 0;
	return rc;
}

/* The items of a buffer without oddities in the order their calls were
 * entered: what tree_and_flatten gives for it (see the top of the file). */
static int flatten_in_call_order(const struct items *r, uint32_t calls, hg_arena *arena,
				 hg_method_stack *out, int64_t **begin)
{
	size_t m = r->len;
	out->items = NULL;
	out->len = 0;
	if (m == 0)
		return 0;
	out->items = hg_arena_alloc_unzeroed(arena, m * sizeof *out->items);
	int64_t *times = begin ? hg_arena_alloc_unzeroed(arena, m * sizeof *times) : NULL;
	if (!out->items || (begin && !times))
		return HG_ENOMEM;
	size_t len = 0;
	for (uint32_t c = 0; c < calls; c++) {
		uint32_t k = r->of_call[c];
		if (k == NIL)
			continue; /* merged into the call before it */
		hg_method_item it = r->item[k];
		it.origin = (uint32_t)len;
		if (times)
			times[len] = r->begin[k];
		out->items[len++] = it;
	}
	out->len = len;
	if (times)
		*begin = from_earliest(times, len);
	return 0;
}

/* The rebuild of a buffer without oddities (see the top of the file) in one
 * plain pass: a stack of pending entries that only grows and shrinks at
 * its top, no deque, no counts of what Matrix would swallow, no index of
 * the word that finished each item (only warnings need those).  Merged
 * repeats, the ANR rule and wrapped durations are handled as add_item and
 * handle_exit handle them.  Returns false at the first oddity (a stray or
 * mismatched exit, a dispatch entry above pending ones, time going
 * backwards, an unfinished entry that non-strict mode drops, strict mode
 * without a dispatch entry): the caller then starts again on Matrix's way,
 * which counts and names them.  stack has n + 1 slots, entries from slot
 * 1; r->item[-1] can be read (rebuild's guard item, so the item before the
 * first needs no test).  Not inlined: inside rebuild the compiler kept its
 * counters on the stack.  (A version without a branch on entry or exit
 * was slower: 0.91 of the general loop's time against this one's 0.79.) */
static __attribute__((noinline)) bool
rebuild_plain(const int64_t *words, size_t n, const hg_rebuild_opts *opts, struct pending *stack,
	      struct items *r, bool timed, uint32_t *calls_made, struct oddities *odd)
{
	size_t i = 0;
	if (opts->strict) { /* Matrix starts at the first dispatch entry */
		while (i < n && !(hg_beat_is_entry(words[i]) &&
				  hg_beat_method_id(words[i]) == HG_BEAT_DISPATCH_ID))
			i++;
		if (i == n)
			return false;
		odd->saw_dispatch = true;
	}
	hg_method_item *item = r->item, *guard = r->item - 1; /* guard + len: the item before */
	uint32_t *of_call = r->of_call;
	size_t sp = 0, len = 0;
	uint32_t calls = 0;
	stack[0] = (struct pending){0, 0, 0};
	for (; i < n; i++) {
		int64_t w = words[i];
		if (w == 0)
			continue; /* padding, in runs */
		int32_t id = hg_beat_method_id(w);
		if (w < 0) {
			if (id == HG_BEAT_DISPATCH_ID && sp != 0)
				return false;
			stack[++sp] = (struct pending){w, 0, calls};
			of_call[calls++] = NIL;
			continue;
		}
		struct pending in = stack[sp];
		int64_t during = hg_beat_time(w) - hg_beat_time(in.word);
		if (sp == 0 || hg_beat_method_id(in.word) != id || during < 0)
			return false;
		sp--;
		int32_t depth = java_int((int64_t)sp), cost = java_int(during);
		if (during > INT32_MAX && odd->wraps++ == 0)
			odd->first_wrap = i;
		if (merge_repeat(guard + len, id, cost, depth, i, odd)) /* the item before */
			continue;
		item[len] = (hg_method_item){depth, id, 1, cost, 0};
		if (timed)
			r->begin[len] = hg_beat_time(in.word);
		of_call[in.call] = (uint32_t)len++;
	}
	if (!opts->strict && sp > 0)
		return false; /* dropped unfinished entries: Matrix's tree */
	r->len = len;
	/* Unfinished entries, innermost first, costed up to end_time (as in
	 * rebuild). */
	while (sp > 0) {
		struct pending p = stack[sp--];
		if (add_item(r, hg_beat_method_id(p.word),
			     java_low32((uint64_t)opts->end_time - (uint64_t)hg_beat_time(p.word)),
			     java_int((int64_t)sp), n, hg_beat_time(p.word), odd))
			of_call[p.call] = (uint32_t)(r->len - 1);
	}
	*calls_made = calls;
	return true;
}

/* The rebuild, inlined into hg_stack_rebuild (begin NULL: the compiler
 * drops every test for times) and hg_stack_rebuild_timed; by_tree keeps
 * Matrix's tree for every buffer (for tests that compare the two ways). */
static inline __attribute__((always_inline)) int
rebuild(const int64_t *words, size_t n, const hg_rebuild_opts *opts, hg_arena *arena,
	hg_method_stack *out, int64_t **begin, hg_strlist *warnings, bool by_tree)
{
	out->items = NULL;
	out->len = 0;
	if (begin)
		*begin = NULL;
	if (n >= UINT32_MAX)
		return HG_ELIMIT; /* items carry 32-bit origins */
	/* One block per buffer: the pending entries, the items, the words that
	 * finished them, the item of each call and tree_and_flatten's four
	 * index arrays (malloc and free were a tenth of the rebuild of a
	 * 440-word buffer). */
	size_t slots = n + 1;
	size_t per_slot = sizeof(struct pending) + sizeof(size_t) + sizeof(hg_method_item) +
			  5 * sizeof(uint32_t);
	if (slots > (SIZE_MAX - sizeof(hg_method_item)) / per_slot)
		return HG_ENOMEM;
	/* and a guard item before the items, that rebuild_plain reads as the
	 * item before the first */
	char *block = malloc(slots * per_slot + sizeof(hg_method_item));
	int rc = 0;
	if (!block)
		return HG_ENOMEM;
	hg_hint_huge(block, slots * per_slot);
	struct deque raw = {(struct pending *)(void *)block, slots, 0, 0};
	struct items r = {(hg_method_item *)(void *)(block + slots * (sizeof(struct pending) +
								       sizeof(size_t))) + 1,
			  0, (size_t *)(void *)(block + slots * sizeof(struct pending)), NULL, NULL};
	r.item[-1] = (hg_method_item){-1, -1, 0, 0, 0}; /* no item's id is -1 */
	r.of_call = (uint32_t *)(void *)((char *)r.item + slots * sizeof(hg_method_item));
	uint32_t *scratch = r.of_call + slots;
	/* Only a caller that asks for times pays for them (a flame's
	 * timeline): one more array, apart from the block the hot loop uses. */
	if (begin && !(r.begin = malloc(slots * sizeof *r.begin))) {
		free(block);
		return HG_ENOMEM;
	}
	struct oddities odd = {0};
	uint32_t calls = 0;
	if (!by_tree && rebuild_plain(words, n, opts, raw.slot, &r, begin != NULL, &calls, &odd)) {
		report_oddities(&odd, opts->strict, arena, warnings);
		rc = flatten_in_call_order(&r, calls, arena, out, begin);
		goto done;
	}
	/* Matrix's way, from the start, and its tree: an oddity, or a test's
	 * by_tree. */
	r.len = 0;
	odd = (struct oddities){0};
	bool begun = !opts->strict;
	int64_t depth = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t w = words[i];
		if (w == 0)
			continue;
		bool entry = hg_beat_is_entry(w);
		int32_t id = hg_beat_method_id(w);
		if (entry && id == HG_BEAT_DISPATCH_ID) {
			odd.saw_dispatch = true;
			begun = true;
		}
		if (!begun)
			continue;
		if (entry) {
			if (id == HG_BEAT_DISPATCH_ID)
				depth = 0;
			depth++;
			push_front(&raw, (struct pending){w, (uint32_t)i, 0});
		} else if ((rc = handle_exit(&raw, &depth, w, i, &r, &odd, arena, warnings)) != 0) {
			report_oddities(&odd, opts->strict, arena, warnings);
			rc = rc == ABANDON ? 0 : rc;
			goto done;
		}
	}
	if (opts->strict) {
		/* Unfinished entries are costed up to end_time (Matrix adds
		 * AppMethodBeat.getDiffTime(), zero in the buffer's own clock). */
		while (raw.len > 0) {
			struct pending p = pop_front(&raw);
			add_item(&r, hg_beat_method_id(p.word),
				 java_low32((uint64_t)opts->end_time - (uint64_t)hg_beat_time(p.word)),
				 java_int((int64_t)raw.len), n, hg_beat_time(p.word), &odd);
		}
	} else {
		odd.dropped_unfinished = raw.len;
	}
	report_oddities(&odd, opts->strict, arena, warnings);
	rc = tree_and_flatten(&r, scratch, arena, out, begin, warnings);
done:
	free(r.begin);
	free(block);
	return rc;
}

int hg_stack_rebuild(const int64_t *words, size_t n, const hg_rebuild_opts *opts,
		     hg_arena *arena, hg_method_stack *out, hg_strlist *warnings)
{
	return rebuild(words, n, opts, arena, out, NULL, warnings, false);
}

int hg_stack_rebuild_timed(const int64_t *words, size_t n, const hg_rebuild_opts *opts,
			   hg_arena *arena, hg_method_stack *out, int64_t **begin,
			   hg_strlist *warnings)
{
	return rebuild(words, n, opts, arena, out, begin, warnings, false);
}

int stack_rebuild_by_tree(const int64_t *words, size_t n, const hg_rebuild_opts *opts,
			  hg_arena *arena, hg_method_stack *out, int64_t **begin,
			  hg_strlist *warnings)
{
	return rebuild(words, n, opts, arena, out, begin, warnings, true);
}

int64_t hg_stack_latest_time(const int64_t *words, size_t n)
{
	int64_t latest = 0; /* a zero word's time is 0: it cannot raise this */
	for (size_t i = 0; i < n; i++) {
		int64_t t = hg_beat_time(words[i]);
		latest = t > latest ? t : latest;
	}
	return latest;
}
