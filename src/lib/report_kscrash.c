/* iOS hang reports in KSCrash JSON (and SentryCrash, its fork): the threads
 * of one report object, as KSCrash 2.x and 3.x and Matrix-iOS's fork write
 * them.
 *
 * Matrix's WCBlockMonitor writes its lag dumps through KSCrash's user
 * exception path (error.type "user", user_reported.dump_type 2001...) and
 * puts its representative stack first among the threads: a thread named
 * "HandledThread" whose frames carry repeat_count.  The thread that wrote
 * the report (current_thread; in a user-reported dump also the `crashed`
 * one) is Matrix's own monitor and is never blamed.
 *
 * Addresses are unsigned 64-bit and read from their digits, never through
 * a double.  Matrix's fork writes them through int64_t, so a negative
 * number is taken as the two's complement it wrote. */
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

#define WATCHDOG_CODE 0x8badf00dULL /* "ate bad food": the watchdog killed a hung app */
#define HANDLED_THREAD "HandledThread"
#define MAX_PATH 160

/* One binary image, for addresses the report did not symbolicate. */
struct image {
	uint64_t addr, size; /* [addr, addr + size), which may end at 2^64 */
	const char *name;   /* basename, in the arena */
};

/* What the blame rules need to know of each thread. */
struct thread_info {
	bool crashed, current, handled, main_queue, main_name;
	long index; /* -1 when absent */
};

struct kx {
	const hg_ctx *ctx;
	const hg_json_doc *doc;
	hg_report *rep;
	struct read_error *err;
	struct image *images; /* sorted by addr */
	size_t n_images;
	size_t frames;        /* frames and threads read, against max_stack_lines */
};

static int fail(struct read_error *err, size_t offset, const char *fmt, ...) HG_PRINTF(3, 4);

static int fail(struct read_error *err, size_t offset, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	err->offset = offset;
	return HG_EPARSE;
}

/* `field "<where>.<key>": expected <what>, got <the value, quoted>`. */
static int bad_field(struct kx *k, const char *where, const char *key, const hg_json *v,
		     const char *what)
{
	hg_buf b;
	hg_buf_init(&b);
	hg_json_write(k->doc, v, &b);
	char got[64];
	if (b.len > 40)
		snprintf(got, sizeof got, "%.37s...", b.data);
	else
		snprintf(got, sizeof got, "%s", b.data ? b.data : "");
	hg_buf_release(&b);
	bool number = hg_json_type(v) == HG_JSON_NUMBER;
	return fail(k->err, number ? hg_json_number_offset(k->doc, v) : NO_OFFSET,
		    "field \"%s%s%s\": expected %s, got %s", where, *where && *key ? "." : "", key,
		    what, got);
}

/* A member that is present and not null (KSCrash writes null for a missing
 * string), or NULL. */
static const hg_json *member(const hg_json *obj, const char *key)
{
	const hg_json *v = hg_json_get(obj, key);
	return hg_json_type(v) == HG_JSON_NULL ? NULL : v;
}

static int get_typed(struct kx *k, const hg_json *obj, const char *where, const char *key,
		     enum hg_json_type type, const char *what, const hg_json **out)
{
	const hg_json *v = *out = member(obj, key);
	if (v && hg_json_type(v) != type) {
		*out = NULL;
		return bad_field(k, where, key, v, what);
	}
	return 0;
}

static int get_object(struct kx *k, const hg_json *obj, const char *where, const char *key,
		      const hg_json **out)
{
	return get_typed(k, obj, where, key, HG_JSON_OBJECT, "an object", out);
}

static int get_array(struct kx *k, const hg_json *obj, const char *where, const char *key,
		     const hg_json **out)
{
	return get_typed(k, obj, where, key, HG_JSON_ARRAY, "an array", out);
}

/* A string borrowed from the document, or NULL when absent. */
static int get_string(struct kx *k, const hg_json *obj, const char *where, const char *key,
		      const char **out)
{
	const hg_json *v;
	int rc = get_typed(k, obj, where, key, HG_JSON_STRING, "a string", &v);
	*out = hg_json_string(v);
	return rc;
}

static int get_bool(struct kx *k, const hg_json *obj, const char *where, const char *key,
		    bool *out)
{
	const hg_json *v;
	int rc = get_typed(k, obj, where, key, HG_JSON_BOOL, "true or false", &v);
	*out = hg_json_true(v);
	return rc;
}

/* 0 ... 2^64-1 from the digits; -2^63 ... -1 as its two's complement. */
static bool parse_u64(const char *s, size_t len, uint64_t *out)
{
	bool negative = len > 0 && s[0] == '-';
	size_t i = negative;
	if (i == len)
		return false;
	uint64_t v = 0;
	for (; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (negative) {
		if (v > (uint64_t)1 << 63)
			return false;
		v = (uint64_t)0 - v;
	}
	*out = v;
	return true;
}

static int get_u64(struct kx *k, const hg_json *obj, const char *where, const char *key,
		   uint64_t *out, bool *has)
{
	const hg_json *v = member(obj, key);
	*has = false;
	*out = 0;
	if (!v)
		return 0;
	const char *s = NULL;
	size_t len = 0;
	if (hg_json_type(v) == HG_JSON_NUMBER)
		hg_json_number_text(k->doc, v, &s, &len);
	if (!s || !parse_u64(s, len, out))
		return bad_field(k, where, key, v, "an unsigned 64-bit integer");
	*has = true;
	return 0;
}

/* A count or an index: an integer >= 0 that fits a long. */
static int get_count(struct kx *k, const hg_json *obj, const char *where, const char *key,
		     long *out, bool *has)
{
	const hg_json *v = member(obj, key);
	int64_t n = 0;
	*has = false;
	if (!v)
		return 0;
	if (hg_json_int64(k->doc, v, &n) != 0 || n < 0 || n > LONG_MAX)
		return bad_field(k, where, key, v, "an integer >= 0");
	*out = (long)n;
	*has = true;
	return 0;
}

static const char *dup(struct kx *k, const char *s)
{
	return s ? hg_arena_strdup(k->rep->arena, s) : NULL;
}

/* Counts n more threads or frames against --max-stack-lines. */
static int count_frames(struct kx *k, size_t n, const char *where)
{
	size_t max = k->ctx->limits.max_stack_lines;
	if (n <= max && k->frames <= max - n) {
		k->frames += n;
		return 0;
	}
	fail(k->err, NO_OFFSET, "field \"%s\": more than %zu threads and frames in the report, over "
	     "the limit (see --max-stack-lines)", where, max);
	return HG_ELIMIT;
}

/* ---- binary images ---- */

static int image_cmp(const void *a, const void *b)
{
	const struct image *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int read_images(struct kx *k, const hg_json *root)
{
	const hg_json *arr;
	int rc = get_array(k, root, "", "binary_images", &arr);
	size_t n = hg_json_count(arr);
	if (rc != 0 || n == 0)
		return rc;
	struct image *img = hg_arena_calloc(k->rep->arena, n, sizeof *img);
	if (!img)
		return HG_ENOMEM;
	size_t i = 0, kept = 0;
	char where[MAX_PATH];
	for (const hg_json *e = hg_json_first(arr); e; e = hg_json_next(e), i++) {
		snprintf(where, sizeof where, "binary_images[%zu]", i);
		if (hg_json_type(e) != HG_JSON_OBJECT)
			return bad_field(k, where, "", e, "an object");
		uint64_t addr, size;
		bool has_addr, has_size;
		const char *name;
		if ((rc = get_u64(k, e, where, "image_addr", &addr, &has_addr)) != 0 ||
		    (rc = get_u64(k, e, where, "image_size", &size, &has_size)) != 0 ||
		    (rc = get_string(k, e, where, "name", &name)) != 0)
			return rc;
		if (!has_addr || !has_size || size == 0 || !name)
			continue;
		const char *slash = strrchr(name, '/');
		img[kept].addr = addr;
		img[kept].size = size;
		if (!(img[kept].name = dup(k, slash ? slash + 1 : name)))
			return HG_ENOMEM;
		kept++;
	}
	qsort(img, kept, sizeof *img, image_cmp);
	k->images = img;
	k->n_images = kept;
	return 0;
}

/* The image holding pc, or NULL.  Images do not overlap in a real process;
 * when a report says they do, the nearest few starting below pc are tried. */
static const struct image *find_image(const struct kx *k, uint64_t pc)
{
	size_t lo = 0, hi = k->n_images;
	while (lo < hi) { /* first image starting above pc */
		size_t mid = lo + (hi - lo) / 2;
		if (k->images[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo, tries = 0; i > 0 && tries < 8; i--, tries++)
		if (pc - k->images[i - 1].addr < k->images[i - 1].size)
			return &k->images[i - 1];
	return NULL;
}

/* ---- frames and threads ---- */

/* "libfoo.dylib 0x00000001a2b3c4d0 symbol + 12", as Apple's crash reports
 * print a frame; "0x1a2b3c000 + 1234" in place of an unknown symbol. */
static const char *frame_text(struct kx *k, const hg_frame *f, bool has_sym_addr,
			      uint64_t sym_addr)
{
	const char *image = f->image ? f->image : "???";
	hg_arena *a = k->rep->arena;
	if (!f->has_pc)
		return hg_arena_printf(a, "%s %s", image, f->symbol ? f->symbol : "?");
	if (f->symbol && has_sym_addr && sym_addr <= f->pc)
		return hg_arena_printf(a, "%s 0x%016" PRIx64 " %s + %" PRIu64, image, f->pc,
				       f->symbol, f->pc - sym_addr);
	if (f->symbol)
		return hg_arena_printf(a, "%s 0x%016" PRIx64 " %s", image, f->pc, f->symbol);
	if (f->has_offset)
		return hg_arena_printf(a, "%s 0x%016" PRIx64 " 0x%" PRIx64 " + %" PRIu64, image,
				       f->pc, f->pc - f->offset, f->offset);
	return hg_arena_printf(a, "%s 0x%016" PRIx64, image, f->pc);
}

static int read_frame(struct kx *k, const hg_json *e, const char *where, hg_thread *t,
		      bool *repeats)
{
	if (hg_json_type(e) != HG_JSON_OBJECT)
		return bad_field(k, where, "", e, "an object");
	uint64_t pc, obj_addr, sym_addr;
	bool has_pc, has_obj, has_sym, has_repeat;
	const char *sym, *obj_name;
	long repeat = 1;
	int rc;
	if ((rc = get_u64(k, e, where, "instruction_addr", &pc, &has_pc)) != 0 ||
	    (rc = get_u64(k, e, where, "object_addr", &obj_addr, &has_obj)) != 0 ||
	    (rc = get_u64(k, e, where, "symbol_addr", &sym_addr, &has_sym)) != 0 ||
	    (rc = get_string(k, e, where, "object_name", &obj_name)) != 0 ||
	    (rc = get_string(k, e, where, "symbol_name", &sym)) != 0 ||
	    (rc = get_count(k, e, where, "repeat_count", &repeat, &has_repeat)) != 0)
		return rc;
	hg_frame *f = hg_thread_add_frame(t, k->rep->arena);
	if (!f)
		return HG_ENOMEM;
	f->kind = HG_FRAME_NATIVE;
	f->has_pc = has_pc;
	f->pc = pc;
	f->repeat = repeat;
	*repeats |= has_repeat;
	const struct image *img;
	if (obj_name && has_obj) {
		f->image = dup(k, obj_name);
		f->has_offset = has_pc && pc >= obj_addr;
		f->offset = f->has_offset ? pc - obj_addr : 0;
	} else if (has_pc && (img = find_image(k, pc)) != NULL) {
		f->image = img->name; /* already in the arena */
		f->has_offset = true;
		f->offset = pc - img->addr;
	} else {
		f->image = dup(k, obj_name);
	}
	f->symbol = f->method = dup(k, sym);
	f->text = frame_text(k, f, has_sym, sym_addr);
	if ((obj_name && !f->image) || (sym && !f->symbol) || !f->text)
		return HG_ENOMEM;
	return 0;
}

static int read_backtrace(struct kx *k, const hg_json *th, const char *where, size_t ti,
			  bool *repeats)
{
	char bwhere[MAX_PATH], fwhere[MAX_PATH + 48];
	const hg_json *bt, *contents;
	long skipped = 0;
	bool has_skipped;
	snprintf(bwhere, sizeof bwhere, "%s.backtrace", where);
	int rc = get_object(k, th, where, "backtrace", &bt);
	if (rc == 0)
		rc = get_array(k, bt, bwhere, "contents", &contents);
	if (rc == 0)
		rc = get_count(k, bt, bwhere, "skipped", &skipped, &has_skipped);
	if (rc != 0)
		return rc;
	snprintf(fwhere, sizeof fwhere, "%s.contents", bwhere);
	if ((rc = count_frames(k, hg_json_count(contents), fwhere)) != 0)
		return rc;
	size_t j = 0;
	for (const hg_json *e = hg_json_first(contents); e; e = hg_json_next(e), j++) {
		snprintf(fwhere, sizeof fwhere, "%s.contents[%zu]", bwhere, j);
		if ((rc = read_frame(k, e, fwhere, &k->rep->threads.items[ti], repeats)) != 0)
			return rc;
	}
	if (skipped > 0 &&
	    hg_strlist_addf(&k->rep->warnings, k->rep->arena, "%s: KSCrash skipped %ld frames "
			    "(the stack overflowed)", where, skipped) != 0)
		return HG_ENOMEM;
	return 0;
}

static bool is_main_queue(const char *queue)
{
	/* KSCrash 2.0 cut the first four bytes of queue labels. */
	return queue && (strcmp(queue, "com.apple.main-thread") == 0 ||
			 strcmp(queue, "apple.main-thread") == 0);
}

static int read_thread(struct kx *k, const hg_json *th, const char *where, struct thread_info *info)
{
	if (hg_json_type(th) != HG_JSON_OBJECT)
		return bad_field(k, where, "", th, "an object");
	const char *name, *queue, *state;
	long index = -1;
	bool has_index;
	int rc;
	if ((rc = get_string(k, th, where, "name", &name)) != 0 ||
	    (rc = get_string(k, th, where, "dispatch_queue", &queue)) != 0 ||
	    (rc = get_string(k, th, where, "state", &state)) != 0 ||
	    (rc = get_count(k, th, where, "index", &index, &has_index)) != 0 ||
	    (rc = get_bool(k, th, where, "crashed", &info->crashed)) != 0 ||
	    (rc = get_bool(k, th, where, "current_thread", &info->current)) != 0)
		return rc;
	if ((rc = count_frames(k, 1, where)) != 0)
		return rc;
	hg_thread *t = hg_threads_add(&k->rep->threads, k->rep->arena);
	if (!t)
		return HG_ENOMEM;
	size_t ti = k->rep->threads.n - 1;
	info->handled = name && strcmp(name, HANDLED_THREAD) == 0;
	info->main_queue = is_main_queue(queue);
	info->main_name = name && strcmp(name, "main") == 0;
	info->index = has_index ? index : -1;
	/* Matrix writes index 0 for its representative stack, which is no
	 * real thread: no tid, so that it is not taken for thread 0. */
	t->tid = info->handled ? -1 : info->index;
	t->name = dup(k, name ? name : queue); /* a queue label names a nameless thread */
	t->state = dup(k, state);
	if (((name || queue) && !t->name) || (state && !t->state))
		return HG_ENOMEM;
	bool repeats = false;
	if ((rc = read_backtrace(k, th, where, ti, &repeats)) != 0)
		return rc;
	info->handled |= repeats;
	return 0;
}

/* Every thread, or the minimal report's crashed_thread; *info gets one
 * entry per thread read. */
static int read_threads(struct kx *k, const hg_json *crash, struct thread_info **info)
{
	const hg_json *threads, *one = NULL;
	int rc = get_array(k, crash, "crash", "threads", &threads);
	if (rc == 0 && !threads)
		rc = get_object(k, crash, "crash", "crashed_thread", &one);
	if (rc != 0)
		return rc;
	size_t n = threads ? hg_json_count(threads) : one != NULL;
	*info = hg_arena_calloc(k->rep->arena, n ? n : 1, sizeof **info);
	if (!*info)
		return HG_ENOMEM;
	if (one)
		return read_thread(k, one, "crash.crashed_thread", *info);
	char where[MAX_PATH];
	size_t i = 0;
	for (const hg_json *th = hg_json_first(threads); th; th = hg_json_next(th), i++) {
		snprintf(where, sizeof where, "crash.threads[%zu]", i);
		if ((rc = read_thread(k, th, where, &(*info)[i])) != 0)
			return rc;
	}
	return 0;
}

/* ---- what kind of report, and whom to blame ---- */

struct error_info {
	const char *type;    /* error.type */
	bool hang;           /* a hang block, a watchdog kill, a deadlock */
	bool matrix;         /* a Matrix lag dump (user_reported.dump_type) */
	bool profile;
	const hg_json *profile_obj;
};

static int read_hang(struct kx *k, const hg_json *error, struct error_info *ei)
{
	const hg_json *hang, *exit_reason;
	uint64_t start, end, code;
	bool has_start, has_end, has_code;
	int rc;
	if ((rc = get_object(k, error, "crash.error", "hang", &hang)) != 0 ||
	    (rc = get_u64(k, hang, "crash.error.hang", "hang_start_nanos", &start, &has_start)) != 0 ||
	    (rc = get_u64(k, hang, "crash.error.hang", "hang_end_nanos", &end, &has_end)) != 0 ||
	    (rc = get_object(k, error, "crash.error", "exit_reason", &exit_reason)) != 0 ||
	    (rc = get_u64(k, exit_reason, "crash.error.exit_reason", "code", &code, &has_code)) != 0)
		return rc;
	ei->hang |= hang != NULL || (has_code && code == WATCHDOG_CODE);
	if (has_start && has_end && end >= start)
		k->rep->cost = (int64_t)((end - start) / 1000000);
	else if (has_start && has_end &&
		 hg_strlist_addf(&k->rep->warnings, k->rep->arena, "the hang ends (hang_end_nanos "
				 "%" PRIu64 ") before it starts (%" PRIu64 "): no duration", end, start) != 0)
		return HG_ENOMEM;
	return 0;
}

/* Matrix's EDumpType (WCBlockTypeDef.h), shown as the report's detail. */
static const char *dump_type_name(long type)
{
	switch (type) {
	case 2001: return "MainThreadBlock";
	case 2002: return "BackgroundMainThreadBlock";
	case 2003: return "CPUBlock";
	case 2007: return "LaunchBlock";
	case 2008: return "CPUIntervalHigh";
	case 2009: return "BlockThreadTooMuch";
	case 2010: return "BlockAndBeKilled";
	case 10000: return "Test";
	}
	return NULL;
}

static int read_error_info(struct kx *k, const hg_json *crash, struct error_info *ei)
{
	const hg_json *error, *user;
	int rc = get_object(k, crash, "crash", "error", &error);
	if (rc == 0)
		rc = get_string(k, error, "crash.error", "type", &ei->type);
	if (rc == 0)
		rc = read_hang(k, error, ei);
	if (rc == 0)
		rc = get_object(k, error, "crash.error", "user_reported", &user);
	long dump_type = 0;
	bool has_dump_type = false;
	if (rc == 0)
		rc = get_count(k, user, "crash.error.user_reported", "dump_type", &dump_type,
			       &has_dump_type);
	if (rc == 0 && ei->type && strcmp(ei->type, "profile") == 0) {
		ei->profile = true;
		rc = get_object(k, error, "crash.error", "profile", &ei->profile_obj);
	}
	if (rc != 0)
		return rc;
	ei->matrix = has_dump_type;
	ei->hang |= ei->type && (strcmp(ei->type, "hang") == 0 || strcmp(ei->type, "deadlock") == 0);
	/* error.type, or what kind of Matrix dump: "MainThreadBlock", "2004" */
	const char *name = has_dump_type ? dump_type_name(dump_type) : NULL;
	if (has_dump_type)
		k->rep->detail = name ? name : hg_arena_printf(k->rep->arena, "%ld", dump_type);
	else
		k->rep->detail = dup(k, ei->type);
	return (ei->type || has_dump_type) && !k->rep->detail ? HG_ENOMEM : 0;
}

/* A sampled profile holds no thread stacks: say what it is. */
static int read_profile(struct kx *k, const struct error_info *ei)
{
	const char *w = "crash.error.profile", *name, *units;
	const hg_json *samples;
	uint64_t duration;
	bool has_duration;
	int rc;
	if ((rc = get_string(k, ei->profile_obj, w, "name", &name)) != 0 ||
	    (rc = get_string(k, ei->profile_obj, w, "time_units", &units)) != 0 ||
	    (rc = get_u64(k, ei->profile_obj, w, "duration", &duration, &has_duration)) != 0 ||
	    (rc = get_array(k, ei->profile_obj, w, "samples", &samples)) != 0)
		return rc;
	bool ns = has_duration && units && strcmp(units, "nanoseconds") == 0;
	if (ns)
		k->rep->cost = (int64_t)(duration / 1000000);
	k->rep->kind = name && strcmp(name, "startup") == 0 ? HG_KIND_STARTUP : HG_KIND_UNKNOWN;
	if (k->rep->threads.n > 0)
		return 0;
	return hg_strlist_addf(&k->rep->warnings, k->rep->arena, "a KSCrash profile (\"%s\", %zu "
			       "samples%s%" PRId64 "%s): sampled profiles are not read, so the report "
			       "has no thread stacks", name ? name : "unnamed", hg_json_count(samples),
			       ns ? " over " : "", ns ? k->rep->cost : (int64_t)0, ns ? " ms" : "") != 0
		       ? HG_ENOMEM : 0;
}

/* The thread that wrote the report: KSCrash's current_thread, and in a
 * user-reported dump (Matrix's lag dumps) also the `crashed` one, which is
 * the monitor that called for the dump.  Elsewhere `crashed` marks the
 * offending thread: the main thread of a hang or deadlock report, the
 * thread that crashed. */
static bool is_writer(const struct thread_info *t, bool user_dump)
{
	return t->current || (user_dump && t->crashed);
}

/* Matrix's representative stack; for a crash, the thread that crashed;
 * else the main thread.  Never the thread that wrote the report. */
static long pick_blamed(const hg_report *rep, const struct thread_info *info, bool user_dump,
			long main)
{
	long crashed = -1;
	for (size_t i = 0; i < rep->threads.n; i++) {
		if (info[i].handled && !is_writer(&info[i], user_dump))
			return (long)i;
		if (crashed < 0 && info[i].crashed && !is_writer(&info[i], user_dump))
			crashed = (long)i;
	}
	if (rep->kind == HG_KIND_CRASH && crashed >= 0)
		return crashed;
	return main >= 0 && !is_writer(&info[main], user_dump) ? main : crashed;
}

/* The dispatch queue "com.apple.main-thread", else a thread named "main",
 * else the thread at index 0 (Mach lists the main thread first). */
static long find_main(size_t n, const struct thread_info *info)
{
	for (int pass = 0; pass < 3; pass++)
		for (size_t i = 0; i < n; i++)
			if (!info[i].handled && (pass == 0   ? info[i].main_queue
						 : pass == 1 ? info[i].main_name
							     : info[i].index == 0))
				return (long)i;
	return -1;
}

static int blame(struct kx *k, const struct thread_info *info, const struct error_info *ei)
{
	hg_report *rep = k->rep;
	bool handled = false;
	for (size_t i = 0; i < rep->threads.n; i++)
		handled |= info[i].handled;
	bool user_dump = ei->type && strcmp(ei->type, "user") == 0;
	if (!ei->profile)
		rep->kind = ei->hang || ei->matrix || handled ? HG_KIND_IOS_HANG : HG_KIND_CRASH;
	for (size_t i = 0; i < rep->threads.n; i++)
		if (is_writer(&info[i], user_dump))
			rep->threads.items[i].flags |= HG_THREAD_CRASHED;
	long main = find_main(rep->threads.n, info);
	if (main >= 0)
		rep->threads.items[main].flags |= HG_THREAD_MAIN;
	rep->threads.blamed = pick_blamed(rep, info, user_dump, main);
	if (rep->threads.blamed >= 0)
		rep->threads.items[rep->threads.blamed].flags |= HG_THREAD_BLAMED;
	if (rep->threads.n == 0 && !ei->profile &&
	    hg_strlist_addf(&rep->warnings, rep->arena, "the report holds no threads") != 0)
		return HG_ENOMEM;
	return 0;
}

/* ---- the report around the threads ---- */

static int read_system(struct kx *k, const hg_json *root)
{
	const hg_json *sys, *rep_info, *stats;
	const char *machine, *model, *bundle, *proc, *proc2, *short_v, *build, *ts;
	bool fg = false;
	int rc;
	if ((rc = get_object(k, root, "", "system", &sys)) != 0 ||
	    (rc = get_object(k, root, "", "report", &rep_info)) != 0 ||
	    (rc = get_string(k, sys, "system", "machine", &machine)) != 0 ||
	    (rc = get_string(k, sys, "system", "model", &model)) != 0 ||
	    (rc = get_string(k, sys, "system", "CFBundleIdentifier", &bundle)) != 0 ||
	    (rc = get_string(k, sys, "system", "process_name", &proc)) != 0 ||
	    (rc = get_string(k, rep_info, "report", "process_name", &proc2)) != 0 ||
	    (rc = get_string(k, sys, "system", "CFBundleShortVersionString", &short_v)) != 0 ||
	    (rc = get_string(k, sys, "system", "CFBundleVersion", &build)) != 0 ||
	    (rc = get_object(k, sys, "system", "application_stats", &stats)) != 0 ||
	    (rc = get_bool(k, stats, "system.application_stats", "application_in_foreground",
			   &fg)) != 0)
		return rc;
	hg_report *rep = k->rep;
	if (member(stats, "application_in_foreground"))
		rep->foreground = fg;
	/* As written: ISO 8601 (2.0, SentryCrash), or seconds or microseconds
	 * since 1970 (3.x). */
	const hg_json *t = member(rep_info, "timestamp");
	if (hg_json_type(t) == HG_JSON_NUMBER) {
		size_t len;
		hg_json_number_text(k->doc, t, &ts, &len);
		rep->time = hg_arena_strndup(rep->arena, ts, len);
	} else if (hg_json_type(t) == HG_JSON_STRING) {
		rep->time = dup(k, hg_json_string(t));
	} else if (t) {
		return bad_field(k, "report", "timestamp", t, "a string or a number");
	}
	rep->platform = "ios";
	rep->device = dup(k, machine ? machine : model);
	rep->process = dup(k, bundle ? bundle : proc ? proc : proc2);
	if (short_v && build && strcmp(short_v, build) != 0)
		rep->app_version = hg_arena_printf(rep->arena, "%s (%s)", short_v, build);
	else
		rep->app_version = dup(k, short_v ? short_v : build);
	if ((t && !rep->time) || ((machine || model) && !rep->device) ||
	    ((bundle || proc || proc2) && !rep->process) || ((short_v || build) && !rep->app_version))
		return HG_ENOMEM;
	return 0;
}

static int add_meta(hg_report *rep, const hg_json_doc *doc, const char *key, const hg_json *v,
		    size_t *cap)
{
	for (size_t i = 0; i < rep->meta_len; i++)
		if (strcmp(rep->meta[i].key, key) == 0)
			return 0;
	if (rep->meta_len == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		hg_meta_field *f = hg_arena_calloc(rep->arena, ncap, sizeof *f);
		if (!f)
			return HG_ENOMEM;
		if (rep->meta_len)
			memcpy(f, rep->meta, rep->meta_len * sizeof *f);
		rep->meta = f;
		*cap = ncap;
	}
	hg_buf b;
	hg_buf_init(&b);
	hg_json_write(doc, v, &b);
	hg_meta_field *f = &rep->meta[rep->meta_len];
	f->key = hg_arena_strdup(rep->arena, key);
	f->json = b.failed ? NULL : hg_arena_strndup(rep->arena, b.data ? b.data : "", b.len);
	hg_buf_release(&b);
	const char *s = hg_json_string(v);
	f->text = s ? hg_arena_strdup(rep->arena, s) : f->json;
	if (!f->key || !f->json || !f->text)
		return HG_ENOMEM;
	rep->meta_len++;
	return 0;
}

/* Everything but the evidence (threads, images; "buffer" and "stack",
 * the evidence of Matrix reports, are never metadata either) and a
 * profile's sample table: top-level members, then crash.error and
 * crash.diagnosis. */
static int read_meta(struct kx *k, const hg_json *root, const hg_json *crash, bool profile)
{
	static const char *const evidence[] = {"crash", "binary_images", "buffer", "stack"};
	size_t cap = 0;
	int rc = 0;
	for (const hg_json *m = hg_json_first(root); m && rc == 0; m = hg_json_next(m)) {
		const char *key = hg_json_key(m);
		bool skip = false;
		for (size_t i = 0; i < sizeof evidence / sizeof *evidence; i++)
			skip |= strcmp(key, evidence[i]) == 0;
		if (!skip)
			rc = add_meta(k->rep, k->doc, key, m, &cap);
	}
	const hg_json *error = hg_json_get(crash, "error"), *diagnosis = hg_json_get(crash, "diagnosis");
	if (rc == 0 && error && !profile)
		rc = add_meta(k->rep, k->doc, "error", error, &cap);
	if (rc == 0 && diagnosis)
		rc = add_meta(k->rep, k->doc, "diagnosis", diagnosis, &cap);
	return rc;
}

bool report_is_kscrash(const hg_json *obj)
{
	const hg_json *crash = hg_json_get(obj, "crash");
	return hg_json_type(crash) == HG_JSON_OBJECT &&
	       (hg_json_get(crash, "threads") || hg_json_get(crash, "error")) &&
	       (hg_json_get(obj, "report") || hg_json_get(obj, "binary_images"));
}

int report_from_kscrash(const hg_ctx *ctx, const hg_json_doc *doc, const hg_json *obj,
			hg_report *rep, struct read_error *err)
{
	struct kx k = {ctx, doc, rep, err, NULL, 0, 0};
	err->offset = NO_OFFSET;
	err->msg[0] = '\0';
	const hg_json *crash = hg_json_get(obj, "crash");
	if (hg_json_type(crash) != HG_JSON_OBJECT)
		return crash ? bad_field(&k, "", "crash", crash, "an object")
			     : fail(err, NO_OFFSET, "not a KSCrash report: no \"crash\" object");
	rep->format = HG_FORMAT_KSCRASH;
	struct error_info ei = {0};
	struct thread_info *info = NULL;
	int rc;
	if ((rc = read_system(&k, obj)) != 0 || (rc = read_error_info(&k, crash, &ei)) != 0 ||
	    (rc = read_images(&k, obj)) != 0 || (rc = read_threads(&k, crash, &info)) != 0 ||
	    (rc = blame(&k, info, &ei)) != 0 ||
	    (ei.profile && (rc = read_profile(&k, &ei)) != 0) ||
	    (rc = read_meta(&k, obj, crash, ei.profile)) != 0)
		return rc;
	rep->stack_cost = rep->cost; /* no method stack: the cost alone */
	return hg_threads_analyse(&rep->threads, rep->arena, &rep->warnings);
}
