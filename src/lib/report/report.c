/* Module report (src/lib/report/): the normalized report and every reader.
 * Splitting an input into reports (report_read.c, report_stream.c) and
 * telling text formats apart (report_detect.c); one reader per format:
 * Matrix JSON (report_matrix.c, report_tracers.c, report_json_fields.c),
 * ANR traces (report_anr*.c), BlockCanary (report_blockcanary*.c), Java
 * stack dumps (report_javastack*.c), KSCrash (report_kscrash*.c), bare
 * structured stacks and Matrix's printed blocks (report_bare_*.c); report
 * times (report_time.c, which the store also uses through report_time.h);
 * native frames' readable names (report_demangle.c); whether a methodMapping
 * is the app's own (report_mapping_fit.c); and here the report's lifetime,
 * analysis and symbolication.
 * Public header: report.h.
 * Uses: core, demangle, json, mapping, stack, threads. */
/* Report lifetime, kinds, analysis and symbolication. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/beat.h"
#include "report_internal.h"
#include "report_time.h"

static const struct {
	const char *detail;
	enum hg_report_kind kind;
} detail_kinds[] = {
	{"NORMAL", HG_KIND_SLOW_METHOD},
	{"ANR", HG_KIND_ANR},
	{"LAG", HG_KIND_LAG},
	{"STARTUP", HG_KIND_STARTUP},
	{"SIGNAL_ANR", HG_KIND_SIGNAL_ANR},
	{"SIGNAL_ANR_NATIVE_BACKTRACE", HG_KIND_SIGNAL_ANR},
	{"LAG_IDLE_HANDLER", HG_KIND_IDLE_HANDLER_LAG},
	{"LAG_TOUCH", HG_KIND_TOUCH_LAG},
	{"PRIORITY_MODIFIED", HG_KIND_PRIORITY_MODIFIED},
	{"TIMERSLACK_MODIFIED", HG_KIND_TIMERSLACK_MODIFIED},
};

enum hg_report_kind hg_report_kind_from_detail(const char *detail)
{
	if (!detail)
		return HG_KIND_UNKNOWN;
	for (size_t i = 0; i < sizeof detail_kinds / sizeof *detail_kinds; i++)
		if (strcmp(detail, detail_kinds[i].detail) == 0)
			return detail_kinds[i].kind;
	return HG_KIND_UNKNOWN;
}

const char *hg_report_kind_name(enum hg_report_kind kind)
{
	switch (kind) {
	case HG_KIND_UNKNOWN: return "unknown";
	case HG_KIND_SLOW_METHOD: return "slow_method";
	case HG_KIND_LAG: return "lag";
	case HG_KIND_ANR: return "anr";
	case HG_KIND_SIGNAL_ANR: return "signal_anr";
	case HG_KIND_STARTUP: return "startup";
	case HG_KIND_IDLE_HANDLER_LAG: return "idle_handler_lag";
	case HG_KIND_TOUCH_LAG: return "touch_lag";
	case HG_KIND_PRIORITY_MODIFIED: return "priority_modified";
	case HG_KIND_TIMERSLACK_MODIFIED: return "timerslack_modified";
	case HG_KIND_FPS: return "fps";
	case HG_KIND_BLOCK: return "block";
	case HG_KIND_IOS_HANG: return "ios_hang";
	case HG_KIND_CRASH: return "crash";
	case HG_KIND_CPU_EXCEPTION: return "cpu_exception";
	case HG_KIND_THREAD_DUMP: return "thread_dump";
	case HG_KIND_ACTIVITY_ENTER: return "activity_enter";
	case HG_KIND_NATIVE_CRASH: return "native_crash";
	}
	return "unknown";
}

hg_report *report_new(const char *source, long line, long number)
{
	return report_new_sized(source, line, number, SIZE_MAX);
}

/* The first chunk: twice the report's bytes and 2 KiB, a power of two
 * from 4 KiB (what arenas keep for reuse), so that the hundreds of small
 * reports in flight between two threads hold about their own size, not
 * 64 KiB each. */
hg_report *report_new_sized(const char *source, long line, long number, size_t bytes)
{
	size_t want = bytes < SIZE_MAX / 4 ? 2 * bytes + 2048 : SIZE_MAX, first = 4096;
	while (first < 65536 && first < want)
		first *= 2;
	hg_arena *arena = hg_arena_create_sized(first);
	if (!arena)
		return NULL;
	hg_report *rep = hg_arena_alloc(arena, sizeof *rep);
	if (!rep || !(rep->source = hg_arena_strdup(arena, source))) {
		hg_arena_destroy(arena);
		return NULL;
	}
	rep->arena = arena;
	rep->line = line;
	rep->number = number;
	rep->key_index = -1;
	rep->foreground = -1;
	rep->threads.blamed = -1;
	return rep;
}

static const char *const format_names[] = {
	[HG_FORMAT_AUTO] = "auto",
	[HG_FORMAT_MATRIX] = "matrix",
	[HG_FORMAT_KSCRASH] = "kscrash",
	[HG_FORMAT_ANR_TRACES] = "anr",
	[HG_FORMAT_BLOCKCANARY] = "blockcanary",
	[HG_FORMAT_JAVA_STACK] = "java",
	[HG_FORMAT_RAW] = "raw",
	[HG_FORMAT_STACK] = "stack",
	[HG_FORMAT_METRICKIT] = "metrickit",
	[HG_FORMAT_WATCHDOG] = "watchdog",
	[HG_FORMAT_LOGCAT] = "logcat",
	[HG_FORMAT_TOMBSTONE] = "tombstone",
};

const char *hg_input_format_name(enum hg_input_format format)
{
	return (size_t)format < sizeof format_names / sizeof *format_names ? format_names[format]
									     : "auto";
}

int hg_input_format_from_name(const char *name)
{
	for (size_t i = 0; i < sizeof format_names / sizeof *format_names; i++)
		if (strcmp(name, format_names[i]) == 0)
			return (int)i;
	return -1;
}

int hg_report_add_meta(hg_report *rep, const char *key, const char *json, const char *text)
{
	for (size_t i = 0; i < rep->meta_len; i++)
		if (strcmp(rep->meta[i].key, key) == 0)
			return 0; /* the first of a repeated key wins, as in a JSON reader */
	if (rep->meta_len == rep->cap_meta) {
		size_t cap = rep->cap_meta ? rep->cap_meta * 2 : 16;
		hg_meta_field *f = hg_arena_calloc(rep->arena, cap, sizeof *f);
		if (!f)
			return HG_ENOMEM;
		if (rep->meta_len)
			memcpy(f, rep->meta, rep->meta_len * sizeof *f);
		rep->meta = f;
		rep->cap_meta = cap;
	}
	hg_meta_field *f = &rep->meta[rep->meta_len];
	f->key = hg_arena_strdup(rep->arena, key);
	f->json = hg_arena_strdup(rep->arena, json);
	f->text = text ? hg_arena_strdup(rep->arena, text) : f->json;
	if (!f->key || !f->json || !f->text)
		return HG_ENOMEM;
	rep->meta_len++;
	return 0;
}

int report_settle_time(hg_report *rep)
{
	if (!rep->time || rep->time_written)
		return 0;
	rep->time_written = rep->time;
	char t[REPORT_TIME_SIZE];
	const char *why = "";
	if (report_time_parse(rep->time, strlen(rep->time), t, &why) != 0) {
		rep->time = NULL;
		return hg_strlist_addf(&rep->warnings, rep->arena,
				       "time \"%.80s\" cannot be read (%s): the report's time is "
				       "unknown", rep->time_written, why);
	}
	/* Most times are already in the form (a re-read store report) or
	 * epoch digits: a copy only when it differs. */
	if (strcmp(t, rep->time) != 0 && !(rep->time = hg_arena_strdup(rep->arena, t)))
		return HG_ENOMEM;
	return 0;
}

int hg_report_add_stat(hg_report *rep, const char *group, const char *name, const char *value)
{
	if (rep->n_stats == rep->cap_stats) {
		size_t cap = rep->cap_stats ? rep->cap_stats * 2 : 16;
		hg_stat *s = hg_arena_calloc(rep->arena, cap, sizeof *s);
		if (!s)
			return HG_ENOMEM;
		if (rep->n_stats)
			memcpy(s, rep->stats, rep->n_stats * sizeof *s);
		rep->stats = s;
		rep->cap_stats = cap;
	}
	hg_stat *s = &rep->stats[rep->n_stats];
	s->group = group ? hg_arena_strdup(rep->arena, group) : NULL;
	s->name = hg_arena_strdup(rep->arena, name);
	s->value = hg_arena_strdup(rep->arena, value);
	if ((group && !s->group) || !s->name || !s->value)
		return HG_ENOMEM;
	rep->n_stats++;
	return 0;
}

int hg_report_add_exception(hg_report *rep, const char *type, const char *message, long thread)
{
	if (rep->n_exceptions == rep->cap_exceptions) {
		size_t cap = rep->cap_exceptions ? rep->cap_exceptions * 2 : 4;
		hg_exception *e = hg_arena_calloc(rep->arena, cap, sizeof *e);
		if (!e)
			return HG_ENOMEM;
		if (rep->n_exceptions)
			memcpy(e, rep->exceptions, rep->n_exceptions * sizeof *e);
		rep->exceptions = e;
		rep->cap_exceptions = cap;
	}
	rep->exceptions[rep->n_exceptions++] = (hg_exception){type, message, thread};
	return 0;
}

int hg_report_add_sample(hg_report *rep, long thread, int64_t weight, const char *time, int64_t at)
{
	if (thread < 0 || (size_t)thread >= rep->threads.n)
		return HG_EINVAL;
	if (rep->n_samples == rep->cap_samples) {
		size_t cap = rep->cap_samples ? rep->cap_samples * 2 : 16;
		hg_sample *s = hg_arena_calloc(rep->arena, cap, sizeof *s);
		if (!s)
			return HG_ENOMEM;
		if (rep->n_samples)
			memcpy(s, rep->samples, rep->n_samples * sizeof *s);
		rep->samples = s;
		rep->cap_samples = cap;
	}
	rep->threads.items[thread].flags |= HG_THREAD_SAMPLE;
	rep->samples[rep->n_samples++] = (hg_sample){thread, weight, time, at};
	return 0;
}

void hg_report_destroy(hg_report *rep)
{
	if (rep)
		hg_arena_destroy(rep->arena); /* the report itself lives in it */
}

static void finish_analysis(hg_report *rep)
{
	rep->stack_cost = hg_stack_cost(&rep->trimmed, rep->cost);
	rep->key_index = hg_stack_key(&rep->trimmed, rep->stack_cost);
}

/* The time unfinished methods are costed up to: end_time when the report
 * gives one (with a warning when it looks wrong), else the buffer's
 * latest time, as Matrix does. */
static int64_t settle_end_time(hg_report *rep, int64_t latest, bool has_end_time, int64_t end_time)
{
	if (!has_end_time)
		return latest;
	if (latest > 0 && end_time / 1000 >= latest && end_time > 1000000000)
		hg_strlist_addf(&rep->warnings, rep->arena,
				"end_time %lld looks like nanoseconds (the buffer's times end at %lld ms); "
				"Matrix 2.1 passes System.nanoTime() there, so unfinished methods get "
				"huge costs", (long long)end_time, (long long)latest);
	else if (end_time < latest)
		hg_strlist_addf(&rep->warnings, rep->arena,
				"end_time %lld is before the buffer's latest time %lld; unfinished "
				"methods get negative costs", (long long)end_time, (long long)latest);
	return end_time;
}

/* Rebuild, trim and key of a buffer of n > 0 words, its end time settled. */
static int rebuild_buffer(hg_report *rep, const int64_t *words, size_t n, bool strict,
			  int64_t end_time, bool want_times)
{
	hg_rebuild_opts opts = {strict, end_time};
	int64_t *begin = NULL;
	int rc = want_times ? hg_stack_rebuild_timed(words, n, &opts, rep->arena, &rep->full, &begin,
						     &rep->warnings)
			    : hg_stack_rebuild(words, n, &opts, rep->arena, &rep->full, &rep->warnings);
	rep->item_begin = begin;
	if (rc == 0)
		rc = hg_stack_trim(&rep->full, HG_MATRIX_TARGET_STACK, rep->arena, &rep->trimmed);
	if (rc != 0)
		return rc;
	if (rep->full.len == 0)
		hg_strlist_addf(&rep->warnings, rep->arena,
				"the buffer rebuilds to an empty stack (as on the device)");
	finish_analysis(rep);
	return 0;
}

/* rep holds a stack rebuilt from a buffer of n words. */
static void mark_buffer(hg_report *rep, size_t n)
{
	rep->has_method_stack = true;
	rep->from_buffer = true;
	rep->buffer_words = n;
}

int report_analyse_buffer(hg_report *rep, const int64_t *words, size_t n, bool strict,
			  bool has_end_time, int64_t end_time, bool want_times)
{
	mark_buffer(rep, n);
	if (n == 0) {
		/* Matrix skips both steps for an empty buffer. */
		hg_strlist_addf(&rep->warnings, rep->arena, "the buffer is empty: no stack to rebuild");
		finish_analysis(rep);
		return 0;
	}
	end_time = settle_end_time(rep, hg_stack_latest_time(words, n), has_end_time, end_time);
	return rebuild_buffer(rep, words, n, strict, end_time, want_times);
}

/* A buffer's rebuild left for later (ctx->defer_rebuild). */
struct report_rebuild {
	int64_t *words;
	size_t n;
	bool strict, want_times, has_end_time;
	int64_t end_time; /* as the report gives it (settle_end_time) */
	size_t warnings_at; /* where its warnings go among the report's */
};

/* Only the words are copied here, on the reading thread; their latest time
 * and the end time's warnings are left with the rebuild too (the reading
 * thread is the busier one for raw buffers). */
int report_defer_rebuild(hg_report *rep, const int64_t *words, size_t n, bool strict,
			 bool has_end_time, int64_t end_time, bool want_times)
{
	if (n == 0)
		return report_analyse_buffer(rep, words, n, strict, has_end_time, end_time, want_times);
	struct report_rebuild *r = hg_arena_alloc(rep->arena, sizeof *r);
	int64_t *copy = n > SIZE_MAX / sizeof *copy ? NULL
			: hg_arena_alloc_unzeroed(rep->arena, n * sizeof *copy);
	if (!r || !copy)
		return HG_ENOMEM;
	memcpy(copy, words, n * sizeof *copy); /* words may be the JSON document's */
	*r = (struct report_rebuild){copy, n, strict, want_times, has_end_time, end_time,
				     rep->warnings.len};
	rep->rebuild = r;
	mark_buffer(rep, n);
	rep->key_index = -1;
	return 0;
}

int hg_report_rebuild(hg_report *rep)
{
	struct report_rebuild *r = rep ? rep->rebuild : NULL;
	if (!r)
		return 0;
	rep->rebuild = NULL;
	size_t before = rep->warnings.len;
	int64_t end_time = settle_end_time(rep, hg_stack_latest_time(r->words, r->n), r->has_end_time,
					   r->end_time);
	int rc = rebuild_buffer(rep, r->words, r->n, r->strict, end_time, r->want_times);
	/* Its warnings (the end time's, the rebuild's) to where the reader
	 * would have added them: before those added after the rebuild (a time
	 * that cannot be read, ...). */
	size_t added = rep->warnings.len - before, at = r->warnings_at;
	if (added && at < before) {
		char **items = rep->warnings.items;
		for (size_t k = 0; k < added; k++) {
			char *w = items[before + k];
			memmove(items + at + k + 1, items + at + k, (before - at) * sizeof *items);
			items[at + k] = w;
		}
	}
	return rc;
}

void report_analyse_structured(hg_report *rep)
{
	rep->has_method_stack = true;
	if (rep->full.len == 0)
		hg_strlist_addf(&rep->warnings, rep->arena, "the stack is empty");
	rep->trimmed = rep->full;
	finish_analysis(rep);
}

const char *hg_report_stack_key_text(const hg_report *rep)
{
	if (rep->key_index < 0)
		return "";
	return hg_arena_printf(rep->arena, "%d|", rep->trimmed.items[rep->key_index].id);
}

/* Symbols already formatted for this report, by id: an open-addressing
 * table, so a stack of a million items formats each distinct id once. */
struct symbol_cache {
	int64_t *id;  /* EMPTY or an id */
	const char **symbol;
	size_t mask;
};

#define EMPTY INT64_MIN /* no int32 id has this value */

static const char **cache_slot(struct symbol_cache *c, int32_t id, bool *found)
{
	size_t h = ((uint32_t)id * 2654435761u) & c->mask;
	while (c->id[h] != EMPTY && c->id[h] != id)
		h = (h + 1) & c->mask;
	*found = c->id[h] == id;
	c->id[h] = id;
	return &c->symbol[h];
}

const char *hg_report_item_symbol(const hg_report *rep, const hg_method_item *item)
{
	const char *sym = rep->symbols && item->origin < rep->full.len ? rep->symbols[item->origin]
								     : NULL;
	/* Matrix gives Handler.dispatchMessage a fixed id and writes it into
	 * every methodMapping.txt as this: without a mapping it is still known */
	if (!sym && item->id == HG_BEAT_DISPATCH_ID)
		sym = "android.os.Handler.dispatchMessage(Message)";
	return sym;
}

int hg_report_symbolicate(hg_report *rep, const hg_mapping *mapping)
{
	if (rep->error || !mapping || rep->full.len == 0 || rep->symbols)
		return 0; /* nothing to name, or named already */
	size_t n = rep->full.len, cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	struct symbol_cache cache = {malloc(cap * sizeof(int64_t)), calloc(cap, sizeof(char *)), cap - 1};
	rep->symbols = hg_arena_calloc(rep->arena, n, sizeof *rep->symbols);
	if (!cache.id || !cache.symbol || !rep->symbols) {
		free(cache.id);
		free(cache.symbol);
		return HG_ENOMEM;
	}
	for (size_t i = 0; i < cap; i++)
		cache.id[i] = EMPTY;
	size_t missing = 0;
	for (size_t i = 0; i < n; i++) {
		int32_t id = rep->full.items[i].id;
		bool found;
		const char **slot = cache_slot(&cache, id, &found);
		if (!found) {
			*slot = hg_mapping_symbol(mapping, id, rep->arena);
			missing += *slot == NULL;
		}
		rep->symbols[i] = *slot;
	}
	free(cache.id);
	free(cache.symbol);
	rep->missing_ids = missing;
	/* Another app's mapping names ids with wrong names: that, not only
	 * the ids it lacks, is what to say (report_mapping_fit.c). */
	hg_mapping_fit fit;
	if (hg_report_mapping_fit(rep, mapping, &fit) != 0)
		return HG_ENOMEM;
	const char *foreign = hg_mapping_fit_warning(&fit, mapping, rep->arena);
	if (fit.foreign)
		return foreign ? hg_strlist_addf(&rep->warnings, rep->arena, "%s", foreign) : HG_ENOMEM;
	if (missing)
		hg_strlist_addf(&rep->warnings, rep->arena, "%zu method id(s) not in %s; shown as #<id>",
				missing, hg_mapping_name(mapping));
	return 0;
}
