/* The threads of a tombstone and their frames (private to
 * report_tombstone.c): the thread headers debuggerd and xCrash write,
 *   pid: 20501, tid: 20501, name: xcrash.sample  >>> xcrash.sample <<<
 * native frames, in debuggerd's words
 *   #00 pc 000000000000b884  /data/app/.../libxcrash.so (xc_test_call_4+24) (BuildId: 4133...)
 *   #01 pc 0003c5c8  /system/lib/libc.so (offset 0x1000) (art::Foo(int)+12)
 * xCrash's Java frames ("at a.b.C.m(C.java:12)") and its "build id:" list,
 * which names the Build ID of each library its frames left without one. */
#include <stdint.h>
#include <string.h>

#include "report_tombstone_internal.h"

static hg_thread *current(struct tomb *t)
{
	return &t->rep->threads.items[t->cur];
}

/* A new thread named name[0..n) ("(unnamed)" when empty); the first one is
 * the crashing thread, blamed.  NULL on ENOMEM. */
static hg_thread *start_thread(struct tomb *t, const char *name, size_t n)
{
	hg_report *rep = t->rep;
	hg_thread *th = hg_threads_add(&rep->threads, rep->arena);
	if (!th)
		return NULL;
	th->name = n ? hg_arena_strndup(rep->arena, name, n) : "(unnamed)";
	if (!th->name)
		return NULL;
	t->cur = (long)rep->threads.n - 1;
	if (t->crashed < 0) {
		t->crashed = t->cur;
		th->flags |= HG_THREAD_BLAMED;
		rep->threads.blamed = t->cur;
	}
	return th;
}

int tomb_aux_thread(struct tomb *t, const char *name, size_t n)
{
	return start_thread(t, name, n) ? 0 : HG_ENOMEM;
}

int tomb_thread_header(struct tomb *t, const struct line *ln)
{
	const char *s = ln->s, *end = s + ln->len;
	long pid, tid;
	size_t used;
	if (!tb_starts(s, ln->len, "pid: ") || !tb_decimal(s + 5, ln->len - 5, &pid, &used) || pid < 0)
		return 0;
	const char *p = s + 5 + used, *name = NULL, *proc = NULL, *proc_end = end;
	tid = pid; /* xCrash's ANR banner: "pid: 21533  >>> xcrash.sample <<<" */
	if (tb_starts(p, (size_t)(end - p), ", tid: ")) {
		if (!tb_decimal(p + 7, (size_t)(end - p - 7), &tid, &used) || tid < 0)
			return 0;
		p += 7 + used;
	}
	if (tb_starts(p, (size_t)(end - p), ", name: "))
		name = p + 8;
	const char *arrows = tb_find(p, (size_t)(end - p), ">>> ");
	if (arrows) {
		proc = arrows + 4;
		if (tb_ends(proc, (size_t)(end - proc), " <<<"))
			proc_end = end - 4;
	}
	const char *name_end = arrows ? arrows : end;
	if (!name) { /* no name: the process's */
		name = proc;
		name_end = proc_end;
	}
	while (name && name_end > name && (name_end[-1] == ' ' || name_end[-1] == '\t'))
		name_end--;
	hg_thread *th = start_thread(t, name, name ? (size_t)(name_end - name) : 0);
	if (!th)
		return HG_ENOMEM;
	th->sys_tid = tid;
	if (t->cur == t->crashed) {
		t->pid = pid;
		if (proc && proc_end > proc && !(t->proc = hg_arena_strndup(t->rep->arena, proc,
									   (size_t)(proc_end - proc))))
			return HG_ENOMEM;
	}
	if (tid == t->pid)
		th->flags |= HG_THREAD_MAIN; /* the process's first thread: its main thread */
	t->sec = SEC_THREAD;
	return TOMB_HANDLED;
}

/* ---- native frames ---- */

/* The image_ref of the library at path (an arena string) with Build ID id
 * ("" when the frame gives none), added on first use.  A map of them all,
 * not report_native_image.c's bounded table: a tombstone of 10,000 threads
 * may name 10,000 libraries, and each new one must not cost a search of
 * all the others.  0 or HG_ENOMEM. */
static int image_ref(struct tomb *t, const char *path, const char *id, uint32_t *ref)
{
	hg_buf key;
	hg_buf_init(&key);
	hg_buf_printf(&key, "%s\n%s", path, id);
	int64_t known;
	int rc = key.failed ? HG_ENOMEM : 0;
	if (!rc && strmap_get(&t->image_refs, key.data, &known)) {
		*ref = (uint32_t)known;
	} else if (!rc) {
		const char *slash = strrchr(path, '/');
		hg_image im = {.kind = HG_IMAGE_ELF, .path = path,
			       .name = slash && slash[1] ? slash + 1 : path};
		if (id[0] && !(im.id = hg_arena_strdup(t->rep->arena, id)))
			rc = HG_ENOMEM;
		if (!rc)
			rc = hg_threads_add_image(&t->rep->threads, t->rep->arena, &im, ref);
		if (!rc)
			rc = strmap_put(&t->image_refs, key.data, (int64_t)*ref);
	}
	hg_buf_release(&key);
	return rc;
}

/* One "(...)" group at the start of s[0..n), parentheses balanced
 * (debuggerd demangles: "(art::Foo(int)+12)"); without its end, the group
 * runs to the end of the line.  *g, *gn: its inside; returns its length. */
static size_t paren_group(const char *s, size_t n, const char **g, size_t *gn)
{
	int depth = 0;
	for (size_t i = 0; i < n; i++) {
		depth += s[i] == '(';
		if (s[i] == ')' && --depth == 0) {
			*g = s + 1;
			*gn = i - 1;
			return i + 1;
		}
	}
	*g = s + 1;
	*gn = n - 1 - (s[n - 1] == ')');
	return n;
}

/* The pc's hex digits at s[0..n): false when there are none or a byte
 * other than a blank follows them; *wide when it needs more than 64 bits. */
static bool read_pc(const char *s, size_t n, uint64_t *pc, size_t *used, bool *wide)
{
	size_t i = 0, significant = 0;
	uint64_t v = 0;
	for (; i < n; i++) {
		int d = hg_hex_value(s[i]);
		if (d < 0)
			break;
		if (significant || d)
			significant++;
		v = v << 4 | (uint64_t)d;
	}
	if (i == 0 || (i < n && s[i] != ' ' && s[i] != '\t'))
		return false;
	*wide = significant > 16;
	*pc = v;
	*used = i;
	return true;
}

/* The symbol group "func+24": the method before the last '+', the offset
 * after it when that is all digits. */
static int set_symbol(struct tomb *t, hg_frame *f, const char *g, size_t n)
{
	const char *plus = NULL;
	for (size_t k = n; k-- > 0 && !plus;)
		if (g[k] == '+')
			plus = g + k;
	size_t name_len = n;
	if (plus && plus + 1 < g + n) {
		uint64_t off = 0;
		const char *d = plus + 1;
		for (; d < g + n && is_digit(*d) && off < UINT64_MAX / 10; d++)
			off = off * 10 + (uint64_t)(*d - '0');
		if (d == g + n) {
			f->has_offset = true;
			f->offset = off;
			name_len = (size_t)(plus - g);
			while (name_len && g[name_len - 1] == ' ')
				name_len--; /* "__pthread_start +184" */
		}
	}
	if (!(f->symbol = tomb_dup(t, g, n)) || (name_len && !(f->method = tomb_dup(t, g, name_len))))
		return HG_ENOMEM;
	return 0;
}

/* The groups after the image: "(deleted)", "(offset 0x1000)", the symbol,
 * "(BuildId: ...)".  *id gets the Build ID (lowercase) or stays "". */
static int frame_groups(struct tomb *t, const struct line *ln, hg_frame *f, const char *p,
			const char *end, char *id, size_t id_size)
{
	bool have_symbol = false;
	while (p < end && *p == '(') {
		const char *g;
		size_t gn, used = paren_group(p, (size_t)(end - p), &g, &gn);
		p += used;
		while (p < end && *p == ' ')
			p++;
		if (tb_starts(g, gn, "BuildId: ")) {
			char got[2 * 64 + 1]; /* native_build_id writes as it goes, even when it fails */
			if (!native_build_id(g, gn, got, sizeof got))
				tomb_odd(t, ODD_BUILD_ID, ln);
			else if (!id[0] && strlen(got) < id_size)
				memcpy(id, got, strlen(got) + 1);
		} else if (!have_symbol && gn && !tb_starts(g, gn, "offset ") &&
			   !(gn == 7 && memcmp(g, "deleted", 7) == 0) &&
			   !(gn == 3 && memcmp(g, "???", 3) == 0)) {
			have_symbol = true;
			int rc = set_symbol(t, f, g, gn);
			if (rc)
				return rc;
		}
	}
	return 0;
}

int tomb_native_frame(struct tomb *t, const struct line *ln)
{
	const char *s = ln->s, *end = s + ln->len, *p = s + 1;
	while (p < end && is_digit(*p))
		p++;
	size_t digits = (size_t)(p - s - 1);
	while (p < end && *p == ' ')
		p++;
	uint64_t pc;
	size_t used;
	bool wide;
	if (!digits || !tb_starts(p, (size_t)(end - p), "pc ")) {
		tomb_odd(t, ODD_FRAME, ln);
		return 0;
	}
	for (p += 3; p < end && *p == ' ';)
		p++;
	if (!read_pc(p, (size_t)(end - p), &pc, &used, &wide)) {
		tomb_odd(t, ODD_FRAME, ln);
		return 0;
	}
	if (t->frames >= t->ctx->limits.max_stack_lines) {
		tomb_odd(t, ODD_DROPPED, ln);
		return 0;
	}
	for (p += used; p < end && *p == ' ';)
		p++;
	/* The image runs to the first " (" (a "[anon:...]" name to its ']'). */
	const char *image = p;
	if (p < end && *p == '[') {
		const char *close = memchr(p, ']', (size_t)(end - p));
		p = close ? close + 1 : end;
	} else {
		while (p < end && !(p[0] == ' ' && p + 1 < end && p[1] == '('))
			p++;
	}
	size_t image_len = (size_t)(p - image);
	while (p < end && *p == ' ')
		p++;
	hg_frame *f = hg_thread_add_frame(current(t), t->rep->arena);
	if (!f)
		return HG_ENOMEM;
	t->frames++;
	f->kind = HG_FRAME_NATIVE;
	f->has_pc = !wide; /* a pc over 64 bits is no address: the frame keeps its names */
	f->pc = wide ? 0 : pc;
	if (wide)
		tomb_odd(t, ODD_PC, ln);
	char id[2 * 64 + 1] = "";
	int rc = frame_groups(t, ln, f, p, end, id, sizeof id);
	if (rc)
		return rc;
	if (!(f->text = tomb_dup(t, s, ln->len)) ||
	    (image_len && !(f->image = tomb_dup(t, image, image_len))))
		return HG_ENOMEM;
	/* A library's identity; its pc is already the offset into the ELF. */
	if (f->image && f->image[0] == '/')
		return image_ref(t, f->image, id, &f->image_ref);
	return 0;
}

int tomb_java_frame(struct tomb *t, const struct line *ln)
{
	hg_frame f;
	if (t->java_thread < 0) { /* where the Java frames start, for tomb_place_java */
		t->java_thread = t->cur;
		t->java_at = current(t)->n_frames;
	}
	if (!tb_starts(ln->s, ln->len, "at ")) {
		tomb_odd(t, ODD_JAVA, ln);
		return 0;
	}
	if (t->frames >= t->ctx->limits.max_stack_lines) {
		tomb_odd(t, ODD_DROPPED, ln);
		return 0;
	}
	int rc = frame_parse_java_cached(ln->s, ln->len, t->rep->arena,
					 t->frames >= REPORT_CACHE_AFTER ? &t->names : NULL, &f);
	if (rc == HG_EPARSE) {
		tomb_odd(t, ODD_JAVA, ln);
		return 0;
	}
	hg_frame *slot = rc ? NULL : hg_thread_add_frame(current(t), t->rep->arena);
	if (!slot)
		return HG_ENOMEM;
	*slot = f;
	t->frames++;
	return 0;
}

/* ---- Build IDs ---- */

int tomb_build_id_line(struct tomb *t, const struct line *ln)
{
	const char *s = ln->s, *end = s + ln->len;
	const char *at = tb_find(s, ln->len, " (BuildId: ");
	if (!at || at == s)
		return 0;
	const char *hex = at + 11, *h = hex;
	while (h < end && hg_hex_value(*h) >= 0)
		h++;
	size_t n = (size_t)(h - hex);
	bool ends = h == end || *h == '.' || *h == ')';
	if (n == 0 && !ends)
		return 0; /* "(BuildId: unknown. ...)": xCrash could not read it */
	if (!ends || n == 0 || n > 128 || n % 2) {
		tomb_odd(t, ODD_BUILD_ID, ln);
		return 0;
	}
	char group[11 + 128], id[2 * 64 + 1];
	memcpy(group, "BuildId: ", 9);
	memcpy(group + 9, hex, n);
	if (!native_build_id(group, 9 + n, id, sizeof id)) {
		tomb_odd(t, ODD_BUILD_ID, ln);
		return 0;
	}
	char *path = hg_arena_strndup(t->rep->arena, s, (size_t)(at - s));
	const char *copy = hg_arena_strdup(t->rep->arena, id);
	if (!path || !copy)
		return HG_ENOMEM;
	int64_t known;
	if (strmap_get(&t->build_ids, path, &known))
		return 0; /* the first one said */
	if (t->n_ids == t->cap_ids) {
		size_t cap = t->cap_ids ? 2 * t->cap_ids : 32;
		const char **ids = hg_arena_regrow(t->rep->arena, t->ids, t->cap_ids * sizeof *ids,
						   cap * sizeof *ids);
		if (!ids)
			return HG_ENOMEM;
		t->ids = ids;
		t->cap_ids = cap;
	}
	t->ids[t->n_ids++] = copy;
	return strmap_put(&t->build_ids, path, (int64_t)t->n_ids);
}

int tomb_fill_build_ids(struct tomb *t)
{
	hg_threads *ts = &t->rep->threads;
	if (!t->n_ids)
		return 0;
	for (size_t i = 0; i < ts->n_images; i++) {
		hg_image *im = &ts->images[i];
		int64_t k;
		if (!im->id && strmap_get(&t->build_ids, im->path, &k) && k >= 1 && (size_t)k <= t->n_ids)
			im->id = t->ids[k - 1];
	}
	return 0;
}

/* ---- the Java stack among the native frames ---- */

static void reverse(hg_frame *f, size_t from, size_t to)
{
	while (from + 1 < to) {
		hg_frame tmp = f[from];
		f[from++] = f[--to];
		f[to] = tmp;
	}
}

static bool jni_trampoline(const hg_frame *f)
{
	const char *m = f->method ? f->method : "";
	return strcmp(m, "art_quick_generic_jni_trampoline") == 0 || strcmp(m, "art_jni_trampoline") == 0;
}

static bool in_art(const hg_frame *f)
{
	const char *slash = f->image ? strrchr(f->image, '/') : NULL;
	return slash && strcmp(slash + 1, "libart.so") == 0;
}

void tomb_place_java(struct tomb *t)
{
	if (t->java_thread < 0 || (size_t)t->java_thread >= t->rep->threads.n)
		return;
	hg_thread *th = &t->rep->threads.items[t->java_thread];
	size_t at = t->java_at, k = at;
	if (at >= th->n_frames)
		return;
	for (size_t i = 0; i < at && k == at; i++)
		if (jni_trampoline(&th->frames[i]))
			k = i + 1; /* the native method's caller is the innermost Java frame */
	for (size_t i = 0; i < at && k == at; i++)
		if (in_art(&th->frames[i]))
			k = i; /* no trampoline named: where the runtime's code starts */
	/* frames[k..at) and frames[at..n) swap places: a rotation */
	reverse(th->frames, k, at);
	reverse(th->frames, at, th->n_frames);
	reverse(th->frames, k, th->n_frames);
}
