/* The threads of one process in ART's SIGQUIT dump (private to
 * report_anr.c).  A thread is a header line
 *   "name" [daemon] prio=5 tid=1 Blocked        (attached to the runtime)
 *   "name" prio=5 (not attached)                (native thread ART knows of)
 *   "name" sysTid=123                           (debuggerd's native-only dump)
 * then `| key=value` attribute lines, native frames
 *   native: #00 pc 000000000004e2d8  /apex/.../libc.so (syscall+24) (BuildId: ...)
 *       #00 pc 0004e2d8  /system/lib/libc.so (syscall+24)
 * Java frames (`at a.b.C.m(C.java:12)`) and lock lines
 *   - waiting to lock <0x0d3a2f0a> (a java.lang.Object) held by thread 5
 *   - locked <0x0d3a2f0a> (a java.lang.Object)      - locked <@addr=0x207dee8> (...)
 *   - waiting on <0x...> (a ...)                     - sleeping on <0x...> (a ...)
 * and ends at a blank line.  Lines that fit none of these between two
 * threads are skipped with a warning that names the first of them; after
 * the last thread (runtime statistics, logcat tails) they are the trailer
 * and skipped silently.  The attribute line "| state=S schedstat=( run
 * wait slices ) utm=23 stm=8 core=3 HZ=100" gives each thread's CPU
 * figures (struct anr_cpu). */
#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include "report_anr.h"
#include "report_native_image.h"
#include "core/core.h"

struct slice {
	const char *s;
	size_t len;
};

static bool starts(struct slice l, const char *prefix)
{
	size_t n = strlen(prefix);
	return l.len >= n && memcmp(l.s, prefix, n) == 0;
}

static struct slice skip(struct slice l, size_t n)
{
	return (struct slice){l.s + n, l.len - n};
}

static struct slice trim_left(struct slice l)
{
	while (l.len && (*l.s == ' ' || *l.s == '\t'))
		l = skip(l, 1);
	return l;
}

static struct slice trim(struct slice l)
{
	l = trim_left(l);
	while (l.len && (l.s[l.len - 1] == ' ' || l.s[l.len - 1] == '\t'))
		l.len--;
	return l;
}

/* Reads a decimal number at the start of l (at most 18 digits); false
 * when there is none.  *used gets the digits' count. */
static bool decimal(struct slice l, long *out, size_t *used)
{
	long v = 0;
	size_t i = 0;
	while (i < l.len && i < 18 && l.s[i] >= '0' && l.s[i] <= '9')
		v = v * 10 + (l.s[i++] - '0');
	if (i == 0 || (i < l.len && l.s[i] >= '0' && l.s[i] <= '9'))
		return false;
	*out = v;
	if (used)
		*used = i;
	return true;
}

/* ---- thread headers ---- */

struct header {
	struct slice name;
	bool daemon, not_attached;
	long prio, tid, sys_tid;
	struct slice state;
};

/* Parses a thread header; false when s is not one.  The name runs from
 * the first quote to the last (names may hold quotes), and at least one
 * of prio=, tid=, sysTid= must follow it. */
static bool parse_header(struct slice l, struct header *h)
{
	if (l.len < 2 || l.s[0] != '"')
		return false;
	const char *close = NULL;
	for (size_t i = l.len - 1; i > 0 && !close; i--)
		if (l.s[i] == '"')
			close = l.s + i;
	if (!close)
		return false;
	*h = (struct header){{l.s + 1, (size_t)(close - l.s - 1)}, false, false, -1, -1, -1, {0}};
	struct slice rest = {close + 1, l.len - (size_t)(close + 1 - l.s)};
	bool known = false;
	while ((rest = trim_left(rest)).len) {
		if (rest.s[0] == '(') {
			/* "(not attached)", "(still starting up)": the rest of the line. */
			h->not_attached = rest.len >= 14 && memcmp(rest.s, "(not attached)", 14) == 0;
			break;
		}
		size_t n = 0;
		while (n < rest.len && rest.s[n] != ' ' && rest.s[n] != '\t')
			n++;
		struct slice tok = {rest.s, n};
		long v;
		if (tok.len == 6 && memcmp(tok.s, "daemon", 6) == 0)
			h->daemon = true;
		else if (starts(tok, "prio=") && decimal(skip(tok, 5), &v, NULL))
			h->prio = v, known = true;
		else if (starts(tok, "tid=") && decimal(skip(tok, 4), &v, NULL))
			h->tid = v, known = true;
		else if (starts(tok, "sysTid=") && decimal(skip(tok, 7), &v, NULL))
			h->sys_tid = v, known = true;
		else if (!known)
			return false; /* text after a quoted string that is no header */
		else if (!h->state.len)
			h->state = tok;
		rest = skip(rest, n);
	}
	return known;
}

int anr_header_kind(const char *s, size_t len)
{
	struct header h;
	if (!parse_header((struct slice){s, len}, &h))
		return 0;
	return (h.name.len == 4 && memcmp(h.name.s, "main", 4) == 0) || h.tid == 1 ? 2 : 1;
}

/* ---- the reader ---- */

#define IMAGE_CACHE 64 /* a direct-mapped cache of image paths, by hash */

struct reader {
	hg_report *rep;
	const struct anr_read_opts *opts;
	long line_no;
	long cur;              /* the thread lines belong to, -1 */
	bool open;             /* no blank line since its header */
	struct slice released; /* the lock cur waits on or sleeps on: not held */
	long junk_line;        /* first line of unrecognized text, 0 when none */
	size_t junk_count;
	struct slice junk_text;
	long announced;        /* "DALVIK THREADS (N):", -1 */
	size_t attached;       /* threads with a tid */
	struct slice rest;     /* the text after the current line */
	const char *images[IMAGE_CACHE]; /* images already copied (libc.so, libart.so...) */
	size_t frames;         /* read so far */
	struct strcache names; /* the frames' strings, past REPORT_CACHE_AFTER frames */
	struct native_images native; /* the images native frames lie in */
	struct anr_cpu *cpu;   /* each thread's CPU figures */
	size_t cap_cpu;
};

static hg_thread *current(struct reader *r)
{
	return &r->rep->threads.items[r->cur];
}

/* The cache for the next frame's strings; NULL while the dump is small. */
static struct strcache *frame_names(struct reader *r)
{
	return r->frames++ >= REPORT_CACHE_AFTER ? &r->names : NULL;
}

/* A frame's string: shared through names when not NULL. */
static const char *frame_dup(struct reader *r, struct strcache *names, struct slice s)
{
	return names ? strcache_get(names, s.s, s.len) : hg_arena_strndup(r->rep->arena, s.s, s.len);
}

static char *dup(struct reader *r, struct slice s)
{
	return hg_arena_strndup(r->rep->arena, s.s, s.len);
}

/* Warns about the unrecognized lines seen since junk_line: they lie
 * between thread lines, so they are garbage in the dump. */
static int flush_junk(struct reader *r)
{
	if (!r->junk_line)
		return 0;
	char excerpt[64];
	size_t n = 0;
	for (size_t i = 0; i < r->junk_text.len && n < 60; i++) {
		unsigned char c = (unsigned char)r->junk_text.s[i];
		excerpt[n++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	excerpt[n] = '\0';
	int rc = hg_strlist_addf(&r->rep->warnings, r->rep->arena,
				 "line %ld: skipped %zu line%s that %s not part of a thread: '%s%s'",
				 anr_input_line(r->opts, r->junk_line), r->junk_count, r->junk_count == 1 ? "" : "s",
				 r->junk_count == 1 ? "is" : "are", excerpt,
				 r->junk_text.len > n ? "..." : "");
	r->junk_line = 0;
	r->junk_count = 0;
	return rc;
}

static void note_junk(struct reader *r, struct slice l)
{
	if (r->cur < 0)
		return; /* before the first thread: the dump's own header */
	if (!r->junk_line) {
		r->junk_line = r->line_no;
		r->junk_text = l;
	}
	r->junk_count++;
}

/* The frame lines of the thread whose header was just read: up to the
 * next blank line or header.  Each line is counted for one thread only. */
static size_t count_frames(struct slice rest)
{
	size_t n = 0;
	while (rest.len) {
		const char *nl = memchr(rest.s, '\n', rest.len);
		struct slice l = {rest.s, nl ? (size_t)(nl - rest.s) : rest.len};
		rest = nl ? skip(rest, l.len + 1) : skip(rest, rest.len);
		if (l.len && l.s[0] == '"')
			break;
		l = trim(l);
		if (!l.len)
			break;
		n += starts(l, "at ") || starts(l, "native: ") || starts(l, "#");
	}
	return n;
}

static int start_thread(struct reader *r, const struct header *h)
{
	int rc = flush_junk(r);
	if (rc)
		return rc;
	size_t n = r->rep->threads.n;
	if (n == r->cap_cpu) {
		size_t cap = r->cap_cpu ? r->cap_cpu * 2 : 32;
		struct anr_cpu *c = hg_arena_calloc(r->rep->arena, cap, sizeof *c);
		if (!c)
			return HG_ENOMEM;
		if (n)
			memcpy(c, r->cpu, n * sizeof *c);
		r->cpu = c;
		r->cap_cpu = cap;
	}
	r->cpu[n] = (struct anr_cpu){.hz = 100};
	hg_thread *t = hg_threads_add(&r->rep->threads, r->rep->arena);
	if (!t || !(t->name = dup(r, h->name)))
		return HG_ENOMEM;
	/* Sized once: no copies as the frames come. */
	size_t frames = count_frames(r->rest);
	if (frames) {
		t->frames = hg_arena_calloc(r->rep->arena, frames, sizeof *t->frames);
		if (!t->frames)
			return HG_ENOMEM;
		t->cap_frames = frames;
	}
	t->tid = h->tid;
	t->sys_tid = h->sys_tid;
	t->priority = h->prio >= 0 && h->prio <= 1000 ? (int)h->prio : -1;
	t->daemon = h->daemon;
	if (h->state.len && !(t->state = dup(r, h->state)))
		return HG_ENOMEM;
	if (!h->state.len && h->not_attached)
		t->state = "not attached";
	r->attached += h->tid >= 0;
	r->cur = (long)r->rep->threads.n - 1;
	r->open = true;
	r->released = (struct slice){0};
	return 0;
}

/* The value of "key=" in an attribute line (key at the start of a word),
 * or an empty slice. */
static struct slice attribute(struct slice l, const char *key)
{
	size_t n = strlen(key);
	for (size_t i = 0; i + n <= l.len; i++)
		if ((i == 0 || l.s[i - 1] == ' ' || l.s[i - 1] == '|') && memcmp(l.s + i, key, n) == 0)
			return skip(l, i + n);
	return (struct slice){0};
}

#define MAX_TICKS 1000000000000L /* 10^12 clock ticks: 317 years at 100 Hz */

/* A figure of the CPU line: false (and the figure noted as unreadable, the
 * first one of the thread) when it is no number or out of range. */
static bool cpu_figure(struct reader *r, struct slice v, long max, long *out, size_t *used)
{
	struct anr_cpu *c = &r->cpu[r->cur];
	size_t n = 0;
	if (decimal(v, out, &n) && *out <= max) {
		if (used)
			*used = n;
		return true;
	}
	if (!c->bad_line) {
		c->bad_line = anr_input_line(r->opts, r->line_no);
		size_t w = 0;
		while (w < v.len && w < sizeof c->bad_text - 1 && v.s[w] != ' ')
			w++;
		memcpy(c->bad_text, v.s, w);
		c->bad_text[w] = '\0';
	}
	return false;
}

/* "| state=S schedstat=( 324804784 183300334 997 ) utm=23 stm=8 core=3
 * HZ=100": the thread's CPU figures. */
static void cpu_attributes(struct reader *r, struct slice l)
{
	struct anr_cpu *c = &r->cpu[r->cur];
	struct slice v = attribute(l, "state=");
	if (v.len && v.s[0] >= 'A' && v.s[0] <= 'Z')
		c->state = v.s[0];
	v = attribute(l, "schedstat=(");
	long run, wait;
	size_t n;
	if (v.s && cpu_figure(r, trim_left(v), LONG_MAX, &run, &n) &&
	    cpu_figure(r, trim_left(skip(trim_left(v), n)), LONG_MAX, &wait, NULL)) {
		c->has_sched = true;
		c->run_ns = run;
		c->wait_ns = wait;
	}
	long utm, stm, hz;
	struct slice u = attribute(l, "utm="), s = attribute(l, "stm="), h = attribute(l, "HZ=");
	if (u.s && s.s && cpu_figure(r, u, MAX_TICKS, &utm, NULL) &&
	    cpu_figure(r, s, MAX_TICKS, &stm, NULL)) {
		c->has_ticks = true;
		c->utm = utm;
		c->stm = stm;
	}
	if (h.s && cpu_figure(r, h, 100000, &hz, NULL) && hz > 0)
		c->hz = hz;
}

/* "| group=... sCount=...", "| sysTid=4971 nice=-10 ...": the kernel tid;
 * "| state=... utm=...": the CPU figures. */
static void attributes(struct reader *r, struct slice l)
{
	hg_thread *t = current(r);
	long v;
	struct slice tid = attribute(l, "sysTid=");
	if (t->sys_tid < 0 && tid.s && decimal(tid, &v, NULL))
		t->sys_tid = v;
	if (attribute(l, "state=").s || attribute(l, "utm=").s)
		cpu_attributes(r, l);
}

/* The arena copy of an image path, shared by the frames that name it. */
static const char *image_string(struct reader *r, struct slice image)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < image.len; i++)
		h = (h ^ (unsigned char)image.s[i]) * 16777619u;
	const char **slot = &r->images[h % IMAGE_CACHE];
	if (*slot && strncmp(*slot, image.s, image.len) == 0 && (*slot)[image.len] == '\0')
		return *slot;
	const char *copy = dup(r, image);
	if (copy)
		*slot = copy;
	return copy;
}

/* Reads one "(...)" group at the start of l, parentheses balanced;
 * without a balanced end, the group runs to the end of the line. */
static struct slice paren_group(struct slice l, size_t *used)
{
	int depth = 0;
	for (size_t i = 0; i < l.len; i++) {
		depth += l.s[i] == '(';
		if (l.s[i] == ')' && --depth == 0) {
			*used = i + 1;
			return (struct slice){l.s + 1, i - 1};
		}
	}
	*used = l.len;
	return (struct slice){l.s + 1, l.len - 1 - (l.s[l.len - 1] == ')')};
}

/* "#00 pc 000000000004e2d8  /apex/.../libc.so (syscall+24) (BuildId: ...)".
 * The image ends at the first " (" (or its closing ']' for "[anon:...]");
 * then come groups: "(deleted)", "(offset 2000000)", the symbol, and
 * "(BuildId: ...)".  HG_EPARSE when l is no native frame. */
static int native_frame(struct reader *r, struct slice l, struct slice text)
{
	if (!starts(l, "#"))
		return HG_EPARSE;
	size_t i = 1;
	while (i < l.len && l.s[i] >= '0' && l.s[i] <= '9')
		i++;
	struct slice p = trim_left(skip(l, i));
	if (i == 1 || !starts(p, "pc "))
		return HG_EPARSE;
	p = trim_left(skip(p, 3));
	uint64_t pc = 0;
	size_t digits = 0;
	for (; digits < p.len; digits++) {
		char c = p.s[digits];
		int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (v < 0)
			break;
		pc = pc << 4 | (uint64_t)v;
	}
	if (digits == 0 || digits > 16 || (digits < p.len && p.s[digits] != ' '))
		return HG_EPARSE;
	p = trim(skip(p, digits));
	size_t image_len = 0;
	if (starts(p, "[")) {
		const char *close = memchr(p.s, ']', p.len);
		image_len = close ? (size_t)(close - p.s) + 1 : p.len;
	} else {
		while (image_len < p.len && !(p.s[image_len] == ' ' && image_len + 1 < p.len &&
					      p.s[image_len + 1] == '('))
			image_len++;
	}
	struct slice image = {p.s, image_len}, symbol = {0};
	char build_id[129];
	bool has_id = false;
	for (p = trim_left(skip(p, image_len)); p.len && p.s[0] == '('; p = trim_left(p)) {
		size_t used;
		struct slice g = paren_group(p, &used);
		p = skip(p, used);
		has_id |= !has_id && native_build_id(g.s, g.len, build_id, sizeof build_id);
		if (!symbol.s && !starts(g, "offset ") && !starts(g, "BuildId: ") &&
		    !(g.len == 7 && memcmp(g.s, "deleted", 7) == 0) &&
		    !(g.len == 3 && memcmp(g.s, "???", 3) == 0) && g.len)
			symbol = g;
	}
	hg_thread *t = current(r);
	hg_frame *f = hg_thread_add_frame(t, r->rep->arena);
	if (!f)
		return HG_ENOMEM;
	struct strcache *names = frame_names(r);
	f->kind = HG_FRAME_NATIVE;
	f->has_pc = true;
	f->pc = pc;
	if (!(f->text = frame_dup(r, names, text)) ||
	    (image.len && !(f->image = image_string(r, image))))
		return HG_ENOMEM;
	/* The frame's image identity; its pc is the offset into the ELF. */
	if (f->image && native_image_ref(r->rep, &r->native, f->image, has_id ? build_id : NULL,
					 &f->image_ref) != 0)
		return HG_ENOMEM;
	if (symbol.s) {
		/* "syscall+24", "__pthread_start +184": the method is the name
		 * before the offset. */
		struct slice name = symbol;
		const char *plus = NULL;
		for (size_t k = symbol.len; k-- > 0 && !plus;)
			if (symbol.s[k] == '+')
				plus = symbol.s + k;
		long off;
		size_t used;
		struct slice after = plus ? (struct slice){plus + 1, (size_t)(symbol.s + symbol.len - plus - 1)}
					  : (struct slice){0};
		if (plus && decimal(after, &off, &used) && used == after.len) {
			f->has_offset = true;
			f->offset = (uint64_t)off;
			name = trim((struct slice){symbol.s, (size_t)(plus - symbol.s)});
		}
		if (!(f->symbol = frame_dup(r, names, symbol)) ||
		    (name.len && !(f->method = frame_dup(r, names, name))))
			return HG_ENOMEM;
	}
	return 0;
}

static int java_frame(struct reader *r, struct slice l)
{
	hg_frame parsed;
	int rc = frame_parse_java_cached(l.s, l.len, r->rep->arena, frame_names(r), &parsed);
	if (rc != 0)
		return rc;
	hg_frame *f = hg_thread_add_frame(current(r), r->rep->arena);
	if (!f)
		return HG_ENOMEM;
	*f = parsed;
	return 0;
}

/* "<0x0d3a2f0a> (a java.lang.Object) held by thread 5": the address (without
 * ART's "@addr=" for objects with no hash code), the class, the holder. */
static bool lock_ref(struct slice l, struct slice *addr, struct slice *cls, long *held_by)
{
	if (!starts(l, "<"))
		return false;
	const char *gt = memchr(l.s, '>', l.len);
	if (!gt || gt == l.s + 1)
		return false;
	*addr = (struct slice){l.s + 1, (size_t)(gt - l.s - 1)};
	if (starts(*addr, "@addr=") && addr->len > 6)
		*addr = skip(*addr, 6);
	for (size_t i = 0; i < addr->len; i++)
		if ((unsigned char)addr->s[i] <= ' ' || addr->s[i] == 0x7f)
			return false; /* an address is one word */
	struct slice rest = trim_left((struct slice){gt + 1, (size_t)(l.s + l.len - gt - 1)});
	*cls = (struct slice){0};
	if (starts(rest, "(a ") || starts(rest, "(an ")) {
		size_t used;
		struct slice g = paren_group(rest, &used);
		*cls = trim(skip(g, starts(rest, "(a ") ? 2 : 3));
		rest = trim_left(skip(rest, used));
	}
	*held_by = -1;
	long v;
	if (starts(rest, "held by thread ") && decimal(skip(rest, 15), &v, NULL))
		*held_by = v;
	else if (starts(rest, "held by tid=") && decimal(skip(rest, 12), &v, NULL))
		*held_by = v; /* Dalvik */
	return true;
}

/* A lock line, kept under the frame it follows (hg_frame_lock) and, for
 * locks held and waited for, in the thread's lock graph fields. */
static int lock_line(struct reader *r, struct slice l)
{
	static const struct {
		const char *prefix;
		enum hg_lock_kind kind;
	} kinds[] = {
		{"- locked ", HG_LOCK_HELD},
		{"- waiting to lock ", HG_LOCK_WAITING_TO_LOCK},
		{"- waiting on ", HG_LOCK_WAITING_ON},
		{"- sleeping on ", HG_LOCK_SLEEPING_ON},
		{"- parking to wait for ", HG_LOCK_PARKING},
	};
	hg_thread *t = current(r);
	struct slice addr, cls;
	long held_by;
	size_t k = 0;
	while (k < sizeof kinds / sizeof *kinds && !starts(l, kinds[k].prefix))
		k++;
	if (k == sizeof kinds / sizeof *kinds ||
	    !lock_ref(skip(l, strlen(kinds[k].prefix)), &addr, &cls, &held_by))
		return 0; /* "- waiting on an unknown object", "- waiting to lock an unknown object" */
	enum hg_lock_kind kind = kinds[k].kind;
	/* Object.wait and Thread.sleep let go of the monitor they wait on. */
	bool released = kind == HG_LOCK_HELD && addr.len == r->released.len &&
			memcmp(addr.s, r->released.s, addr.len) == 0;
	if (kind == HG_LOCK_WAITING_ON || kind == HG_LOCK_SLEEPING_ON)
		r->released = addr;
	char *a = dup(r, addr), *c = cls.len ? dup(r, cls) : NULL;
	if (!a || (cls.len && !c) ||
	    hg_thread_add_frame_lock(t, r->rep->arena, released ? HG_LOCK_RELEASED : kind, a, c,
				     held_by) != 0)
		return HG_ENOMEM;
	if (kind == HG_LOCK_HELD && !released)
		return hg_thread_add_held(t, r->rep->arena, a, c);
	if (kind == HG_LOCK_WAITING_TO_LOCK && !t->waiting.addr) {
		t->waiting = (hg_lock){a, c};
		t->waiting_held_by = held_by;
	}
	return 0;
}

/* A line inside a thread: 0 when read, HG_EPARSE when it is not thread
 * text, HG_ENOMEM. */
static int thread_line(struct reader *r, struct slice l)
{
	if (starts(l, "| "))
		return attributes(r, l), 0;
	if (starts(l, "at "))
		return java_frame(r, l);
	if (starts(l, "native: "))
		return native_frame(r, trim_left(skip(l, 8)), l);
	if (starts(l, "#"))
		return native_frame(r, l, l);
	if (starts(l, "- locked ") || starts(l, "- waiting ") || starts(l, "- sleeping ") ||
	    starts(l, "- parking "))
		return lock_line(r, l);
	if (starts(l, "(") || starts(l, "kernel: ") || starts(l, "NOTE: "))
		return 0; /* "(no managed stack frames)", unreadable kernel stacks */
	return HG_EPARSE;
}

static int one_line(struct reader *r, struct slice raw)
{
	struct slice l = trim(raw);
	struct header h;
	if (!l.len) {
		r->open = false;
		return 0;
	}
	if (raw.s[0] == '"' && parse_header(raw, &h))
		return start_thread(r, &h);
	if (starts(l, "DALVIK THREADS (")) {
		long n;
		if (decimal(skip(l, 16), &n, NULL))
			r->announced = n;
		return 0;
	}
	if (starts(l, "DumpLatencyMs:"))
		return 0;
	if (r->cur < 0 || !r->open)
		return note_junk(r, l), 0;
	int rc = thread_line(r, l);
	if (rc == HG_EPARSE) {
		note_junk(r, l);
		return 0;
	}
	return rc != 0 ? rc : flush_junk(r);
}

/* Reads the threads in text[start..end) into rep->threads; line_no is the
 * number of the line at start.  Returns 0 or HG_ENOMEM. */
int anr_read_threads(hg_report *rep, const char *text, size_t start, size_t end, long line_no,
		     const struct anr_read_opts *opts, struct anr_cpu **cpu)
{
	struct reader r = {.rep = rep, .opts = opts, .line_no = line_no, .cur = -1, .announced = -1};
	strcache_init(&r.names, rep->arena);
	int rc = 0;
	for (size_t pos = start; pos < end && rc == 0; r.line_no++) {
		const char *nl = memchr(text + pos, '\n', end - pos);
		size_t stop = nl ? (size_t)(nl - text) : end;
		struct slice l = {text + pos, stop - pos};
		if (l.len && l.s[l.len - 1] == '\r')
			l.len--;
		pos = stop < end ? stop + 1 : end;
		r.rest = (struct slice){text + pos, end - pos};
		rc = one_line(&r, l);
	}
	strcache_release(&r.names);
	*cpu = r.cpu;
	if (rc == 0 && r.announced >= 0 && r.attached < (size_t)r.announced)
		rc = hg_strlist_addf(&rep->warnings, rep->arena,
				     "the dump announces %ld threads (DALVIK THREADS) but holds %zu: "
				     "it looks truncated", r.announced, r.attached);
	return rc;
}
