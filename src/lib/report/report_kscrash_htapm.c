/* An APM's hang module inside a KSCrash report (private to
 * report_kscrash.c): the "htapm" section that seed 003 ("APM_卡顿检测模块",
 * Matrix-iOS's RunLoop hang detection moved into an APM) shows in its real
 * report.  With module "hang":
 *   block_duration_us     how long the main thread's RunLoop had been busy
 *                         when the hang was detected: the cost;
 *   runloop_threshold_us  the threshold it was over (Matrix's 2 s);
 *   collection.scene_threads.items[]   one per thread of the scene, whose
 *                         report_array_index is the thread's place in
 *                         crash.threads; the one with is_main_thread is the
 *                         main thread;
 *   collection.main_thread   the representative main-thread stack that
 *                         pre-sampling picks (Matrix's "代表栈"), or its
 *                         state and reason when none was taken
 *                         ("not_requested", "disabled": pre-sampling off).
 * The article shows the section but not how a representative stack is
 * written; the forms read are those hangar-formats(5) lists.  The section
 * is the APM's, not KSCrash's: a bad field in it is a warning naming the
 * field and the rest of the report is read as KSCrash reads it. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "report_kscrash_internal.h"

#define MAX_US (86400LL * 1000000) /* a day: no RunLoop stays busy longer and reports it */
#define ITEM_WARNINGS 10           /* scene items warned about one by one; the rest counted */
#define REPRESENTATIVE "main (representative)"
#define COLLECTION "htapm.collection"
#define ITEMS "htapm.collection.scene_threads.items"
#define MAIN_THREAD "htapm.collection.main_thread"

/* The section being read. */
struct hx {
	struct kx *k;
	struct json_fields f;   /* k's document; a bad field's error lands in err */
	struct read_error err;
	struct thread_info **info;
	size_t n_scene;         /* crash.threads, before a representative is added */
	long main;              /* the scene's main thread (index into crash.threads); -1 */
	size_t main_item;       /* the item that said so */
	long *item_of;          /* item_of[i]: the item pointing at crash.threads[i]; -1 */
	size_t item_warnings, not_captured;
	long enumerated;        /* scene_threads.enumerated_thread_count; -1 */
	bool scene;             /* scene_threads.items was read */
};

static int warn(struct hx *h, const char *fmt, ...) HG_PRINTF(2, 3);

static int warn(struct hx *h, const char *fmt, ...)
{
	char msg[640];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	hg_report *rep = h->k->rep;
	return hg_strlist_addf(&rep->warnings, rep->arena, "%s", msg) != 0 ? HG_ENOMEM : 0;
}

/* A getter's result: a field of the wrong type is a warning ("...; ignored"),
 * and *bad says so; anything else (0, HG_ENOMEM) is returned. */
static int soft(struct hx *h, int rc, bool *bad)
{
	*bad = rc == HG_EPARSE || rc == HG_ELIMIT;
	return *bad ? warn(h, "%s; ignored", h->err.msg) : rc;
}

/* A whole number of microseconds at obj.key (named where.key): *ms rounded
 * to the nearest millisecond (halves up) and *has; else a warning saying
 * what is wrong and what goes without it (`lost`). */
static int read_us(struct hx *h, const hg_json *obj, const char *where, const char *key,
		   const char *lost, int64_t *ms, bool *has)
{
	const hg_json *v = report_member(obj, key);
	int64_t us = 0;
	char q[64];
	*has = false;
	if (!v)
		return 0;
	report_quote(h->f.doc, v, q, sizeof q);
	if (hg_json_int64(h->f.doc, v, &us) != 0)
		return warn(h, "field \"%s.%s\": expected an integer (microseconds), got %s; %s",
			    where, key, q, lost);
	if (us < 0 || us > MAX_US)
		return warn(h, "%s.%s %s is %s; %s", where, key, q,
			    us < 0 ? "negative" : "more than a day", lost);
	*ms = (us + 500) / 1000;
	*has = true;
	return 0;
}

/* ---- the scene's threads ---- */

static int item_warn(struct hx *h, const char *fmt, ...) HG_PRINTF(2, 3);

static int item_warn(struct hx *h, const char *fmt, ...)
{
	if (h->item_warnings++ >= ITEM_WARNINGS)
		return 0;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return warn(h, "%s", msg);
}

/* An index into crash.threads at obj.key: *idx and *ok, or not *ok (absent,
 * or a warning that says why it is none; one of the item warnings when
 * `item`). */
static int read_index(struct hx *h, const hg_json *obj, const char *where, const char *key,
		      bool item, long *idx, bool *ok)
{
	const hg_json *v = report_member(obj, key);
	int64_t n = 0;
	*ok = false;
	if (!v)
		return 0;
	char q[64], why[320];
	report_quote(h->f.doc, v, q, sizeof q);
	if (hg_json_int64(h->f.doc, v, &n) != 0)
		snprintf(why, sizeof why, "field \"%s.%s\": expected an index of crash.threads, got %s",
			 where, key, q);
	else if (n < 0 || (uint64_t)n >= h->n_scene)
		snprintf(why, sizeof why, "%s.%s %s is out of crash.threads (%zu thread%s)", where, key,
			 q, h->n_scene, h->n_scene == 1 ? "" : "s");
	else {
		*idx = (long)n;
		*ok = true;
		return 0;
	}
	return item ? item_warn(h, "%s; ignored", why) : warn(h, "%s; ignored", why);
}

/* A getter's wrong type inside an item: one of the item warnings. */
static int item_soft(struct hx *h, int rc)
{
	if (rc != HG_EPARSE)
		return rc;
	return item_warn(h, "%s; ignored", h->err.msg);
}

static int read_item(struct hx *h, const hg_json *it, size_t i)
{
	char where[96];
	snprintf(where, sizeof where, ITEMS "[%zu]", i);
	if (hg_json_type(it) != HG_JSON_OBJECT) {
		report_bad_field(&h->f, where, "", it, "an object");
		return item_warn(h, "%s; ignored", h->err.msg);
	}
	const char *status = NULL;
	long tid = -1, frames = 0, idx = -1;
	bool main = false, has_tid = false, has_frames = false, ok;
	int rc;
	if ((rc = item_soft(h, report_get_count(&h->f, it, where, "thread_identifier", &tid,
						&has_tid))) != 0 ||
	    (rc = item_soft(h, report_get_bool(&h->f, it, where, "is_main_thread", &main))) != 0 ||
	    (rc = item_soft(h, report_get_string(&h->f, it, where, "status", &status))) != 0 ||
	    (rc = item_soft(h, report_get_count(&h->f, it, where, "frame_count", &frames,
						&has_frames))) != 0 ||
	    (rc = read_index(h, it, where, "report_array_index", true, &idx, &ok)) != 0)
		return rc;
	h->not_captured += status && strcmp(status, "captured") != 0;
	if (!ok)
		return 0;
	if (h->item_of[idx] >= 0)
		return item_warn(h, "%s.report_array_index %ld is items[%ld]'s too; ignored", where, idx,
				 h->item_of[idx]);
	h->item_of[idx] = (long)i;
	hg_thread *t = &h->k->rep->threads.items[idx];
	if (has_tid)
		t->sys_tid = tid;
	if (has_frames && (size_t)frames != t->n_frames &&
	    (rc = item_warn(h, "%s.frame_count is %ld, but crash.threads[%ld] has %zu frame%s", where,
			    frames, idx, t->n_frames, t->n_frames == 1 ? "" : "s")) != 0)
		return rc;
	if (!main)
		return 0;
	if ((*h->info)[idx].handled)
		return item_warn(h, "%s.is_main_thread: crash.threads[%ld] is the representative stack, "
				 "not a thread of the scene; ignored", where, idx);
	if (h->main >= 0)
		return item_warn(h, "%s.is_main_thread: items[%zu] (crash.threads[%ld]) already is the "
				 "main thread; ignored", where, h->main_item, h->main);
	h->main = idx;
	h->main_item = i;
	(*h->info)[idx].htapm_main = true;
	return 0;
}

static int read_scene(struct hx *h, const hg_json *coll)
{
	const hg_json *scene = NULL, *items = NULL;
	long enumerated = 0;
	bool has_enumerated = false, bad;
	const char *w = COLLECTION ".scene_threads";
	int rc;
	if ((rc = soft(h, report_get_object(&h->f, coll, COLLECTION, "scene_threads", &scene),
		       &bad)) != 0 ||
	    (rc = soft(h, report_get_count(&h->f, scene, w, "enumerated_thread_count", &enumerated,
					   &has_enumerated), &bad)) != 0 ||
	    (rc = soft(h, report_get_array(&h->f, scene, w, "items", &items), &bad)) != 0)
		return rc;
	if (!items && !bad && (rc = warn(h, "%s.items: absent; the main thread is KSCrash's guess",
					w)) != 0)
		return rc;
	size_t n = h->n_scene ? h->n_scene : 1, i = 0;
	if (!(h->item_of = hg_arena_alloc(h->k->rep->arena, n * sizeof *h->item_of)))
		return HG_ENOMEM;
	for (size_t j = 0; j < n; j++)
		h->item_of[j] = -1;
	for (const hg_json *it = hg_json_first(items); it && rc == 0; it = hg_json_next(it), i++)
		rc = read_item(h, it, i);
	if (rc == 0 && h->item_warnings > ITEM_WARNINGS)
		rc = warn(h, "%zu more warnings about " ITEMS, h->item_warnings - ITEM_WARNINGS);
	h->enumerated = has_enumerated ? enumerated : -1;
	h->scene = items != NULL;
	return rc;
}

/* ---- the representative main-thread stack ---- */

/* Matrix's representative stack already among the threads: a thread
 * named HandledThread, or one the main_thread section pointed at. */
static bool have_representative(const struct hx *h)
{
	for (size_t i = 0; i < h->k->rep->threads.n; i++)
		if ((*h->info)[i].handled)
			return true;
	return false;
}

/* The stack written in the section (main_thread.backtrace, else `frames`)
 * as a new thread "main (representative)", marked handled so that the
 * blame rules pick it, with no tid (it is no thread of its own).  A bad
 * stack is a warning and no thread. */
static int add_representative(struct hx *h, const hg_json *mt, const hg_json *frames, bool *given)
{
	struct kx *k = h->k;
	hg_threads *ts = &k->rep->threads;
	size_t ti = ts->n;
	hg_thread *t = hg_threads_add(ts, k->rep->arena);
	if (!t)
		return HG_ENOMEM;
	t->name = REPRESENTATIVE;
	struct read_error *whole = k->f.err;
	bool repeats = false;
	k->f.err = &h->err;
	int rc = frames ? kscrash_read_contents(k, frames, MAIN_THREAD ".frames", ti, true, &repeats)
			: kscrash_read_backtrace(k, mt, MAIN_THREAD, ti, &repeats);
	k->f.err = whole;
	if (rc == HG_EPARSE || rc == HG_ELIMIT || (rc == 0 && ts->items[ti].n_frames == 0)) {
		ts->n = ti; /* taken back */
		return rc ? warn(h, "%s; no representative stack", h->err.msg)
			  : warn(h, MAIN_THREAD ": its stack has no frames; no representative stack");
	}
	if (rc != 0)
		return rc;
	struct thread_info *info = hg_arena_calloc(k->rep->arena, ti + 1, sizeof *info);
	if (!info)
		return HG_ENOMEM;
	memcpy(info, *h->info, ti * sizeof *info);
	info[ti] = (struct thread_info){.handled = true, .index = -1};
	*h->info = info;
	*given = true;
	return 0;
}

/* main_thread.report_array_index: the representative stack is a thread of
 * crash.threads (as Matrix writes its HandledThread). */
static int point_representative(struct hx *h, const hg_json *mt, bool *given)
{
	long idx = -1;
	bool ok;
	int rc = read_index(h, mt, MAIN_THREAD, "report_array_index", false, &idx, &ok);
	if (rc != 0 || !ok)
		return rc;
	if (idx == h->main)
		return warn(h, MAIN_THREAD ".report_array_index %ld is the scene's main thread "
			    "(items[%zu]), not a representative stack; ignored", idx, h->main_item);
	hg_thread *t = &h->k->rep->threads.items[idx];
	(*h->info)[idx].handled = true;
	t->tid = -1;
	if (!t->name)
		t->name = REPRESENTATIVE;
	*given = true;
	return 0;
}

/* The header's lines: how many threads the scene had and the report
 * keeps ("12 enumerated, 1 in the report": the article's report keeps one
 * of twelve), and which main-thread stacks it holds. */
static int header_lines(struct hx *h, bool main_thread, bool rep_stack, const char *state,
			const char *reason)
{
	hg_report *rep = h->k->rep;
	size_t kept = 0;
	for (size_t i = 0; i < h->n_scene; i++)
		kept += !(*h->info)[i].handled; /* a representative is no thread of the scene */
	hg_buf b;
	hg_buf_init(&b);
	if (h->enumerated >= 0)
		hg_buf_printf(&b, "%ld enumerated, ", h->enumerated);
	hg_buf_printf(&b, "%zu in the report", kept);
	if (h->not_captured)
		hg_buf_printf(&b, ", %zu not captured", h->not_captured);
	int rc = b.failed ? HG_ENOMEM : 0;
	if (rc == 0 && (h->scene || h->enumerated >= 0))
		rc = hg_report_add_stat(rep, "header", "threads", b.data);
	if (rc != 0 || !main_thread) {
		hg_buf_release(&b);
		return rc;
	}
	hg_buf_reset(&b);
	bool off = state && strcmp(state, "not_requested") == 0;
	if (rep_stack)
		hg_buf_puts(&b, "the representative from pre-sampling (blamed), and the scene's");
	else if (off && reason && strcmp(reason, "disabled") == 0)
		hg_buf_puts(&b, "the scene's only: no representative stack was taken (pre-sampling off)");
	else
		hg_buf_printf(&b, "the scene's only: %s (state \"%.24s\", reason \"%.24s\")",
			      off ? "no representative stack was taken"
				  : "the report holds no representative stack",
			      state ? state : "?", reason ? reason : "?");
	rc = b.failed ? HG_ENOMEM : hg_report_add_stat(rep, "header", "main stack", b.data);
	hg_buf_release(&b);
	return rc;
}

static int read_main_thread(struct hx *h, const hg_json *coll)
{
	const hg_json *mt = NULL, *frames = NULL;
	const char *state = NULL, *reason = NULL;
	bool bad, given = false;
	int rc;
	if ((rc = soft(h, report_get_object(&h->f, coll, COLLECTION, "main_thread", &mt), &bad)) != 0 ||
	    (rc = soft(h, report_get_string(&h->f, mt, MAIN_THREAD, "state", &state), &bad)) != 0 ||
	    (rc = soft(h, report_get_string(&h->f, mt, MAIN_THREAD, "reason", &reason), &bad)) != 0 ||
	    (rc = soft(h, report_get_array(&h->f, mt, MAIN_THREAD, "frames", &frames), &bad)) != 0)
		return rc;
	if (!mt)
		return header_lines(h, false, false, NULL, NULL);
	if (report_member(mt, "backtrace") || frames)
		rc = add_representative(h, mt, report_member(mt, "backtrace") ? NULL : frames, &given);
	else if (report_member(mt, "report_array_index"))
		rc = point_representative(h, mt, &given);
	if (rc != 0)
		return rc;
	if (given && state && strcmp(state, "not_requested") == 0 &&
	    (rc = warn(h, MAIN_THREAD ".state is \"not_requested\", yet it gives a stack: read as "
		       "the representative stack")) != 0)
		return rc;
	return header_lines(h, true, have_representative(h), state, reason);
}

/* ---- the section ---- */

static int read_hang(struct hx *h, const hg_json *v, struct htapm *out)
{
	hg_report *rep = h->k->rep;
	const hg_json *coll = NULL;
	bool bad;
	int rc;
	if ((rc = soft(h, report_get_string(&h->f, v, "htapm", "detector", &out->detector), &bad)) != 0 ||
	    (rc = read_us(h, v, "htapm", "block_duration_us", "no cost", &out->cost_ms,
			  &out->has_cost)) != 0 ||
	    (rc = read_us(h, v, "htapm", "runloop_threshold_us", "no threshold", &out->threshold_ms,
			  &out->has_threshold)) != 0 ||
	    (rc = soft(h, report_get_object(&h->f, v, "htapm", "collection", &coll), &bad)) != 0)
		return rc;
	if (!report_member(v, "block_duration_us") &&
	    (rc = warn(h, "htapm.block_duration_us: absent; no cost")) != 0)
		return rc;
	if (out->has_cost)
		rep->cost = out->cost_ms;
	if (out->has_threshold)
		rep->threshold = out->threshold_ms;
	if (out->detector && (rc = hg_report_add_stat(rep, "header", "detector", out->detector)) != 0)
		return rc;
	if (!coll)
		return bad ? 0 : warn(h, COLLECTION ": absent; the main thread is KSCrash's guess");
	if ((rc = read_scene(h, coll)) != 0)
		return rc;
	return read_main_thread(h, coll);
}

int kscrash_read_htapm(struct kx *k, const hg_json *root, struct thread_info **info,
		       struct htapm *out)
{
	*out = (struct htapm){0};
	const hg_json *v = report_member(root, "htapm");
	if (!v)
		return 0;
	struct hx h = {.k = k, .info = info, .n_scene = k->rep->threads.n, .main = -1,
		       .enumerated = -1};
	h.f = (struct json_fields){k->f.doc, &h.err};
	const char *module = NULL;
	bool bad = false;
	int rc;
	if (hg_json_type(v) != HG_JSON_OBJECT) {
		report_bad_field(&h.f, "", "htapm", v, "an object");
		return warn(&h, "%s; not read as a hang report", h.err.msg);
	}
	if ((rc = soft(&h, report_get_string(&h.f, v, "htapm", "module", &module), &bad)) != 0)
		return rc;
	if (!module)
		return bad ? 0 : warn(&h, "htapm.module: absent; not read as a hang report");
	if (strcmp(module, "hang") != 0)
		return 0; /* another module of the APM: its own section, not a hang */
	out->hang = true;
	return read_hang(&h, v, out);
}

int kscrash_htapm_reason(struct kx *k, const struct htapm *h)
{
	hg_report *rep = k->rep;
	if (!h->hang || !h->has_cost || rep->reason)
		return 0;
	/* The article: "检测时已经持续约 2.106 秒" (2.106 s when detected). */
	rep->reason = h->has_threshold
			      ? hg_arena_printf(rep->arena, "the main thread's RunLoop had been busy for "
						"%lld ms when the hang was detected (threshold %lld ms)",
						(long long)h->cost_ms, (long long)h->threshold_ms)
			      : hg_arena_printf(rep->arena, "the main thread's RunLoop had been busy for "
						"%lld ms when the hang was detected",
						(long long)h->cost_ms);
	return rep->reason ? 0 : HG_ENOMEM;
}
