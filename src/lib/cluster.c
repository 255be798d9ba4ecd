/* Stack signatures, algorithm v1 (hangar-formats(5), STACK SIGNATURES):
 * family, then the key frame and its in-app ancestors (method stacks) or
 * the blamed thread's top in-app frames (thread stacks), normalized, hashed
 * with SHA-256 and cut to 128 bits. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "cluster_internal.h"
#include "sha256.h"
#include "hangar/cluster.h"
#include "hangar/text.h"

#define NO_APP_FRAME "system / no app frame"
#define SYNTHETIC "$$Synthetic"
#define METHOD_ID_DISPATCH 1048574 /* Matrix's fixed id of Handler.dispatchMessage */
#define DISPATCH "android.os.Handler.dispatchMessage"

/* Prefixes of frames that are never the app's when the report names no
 * process (and no rules say otherwise). */
static const char *const system_prefixes[] = {
	"android.", "androidx.", "com.android.", "com.google.android.", "dalvik.", "java.",
	"javax.", "jdk.", "kotlin.", "kotlinx.", "libcore.", "org.apache.", "org.json.",
	"org.xml.", "org.w3c.", "sun.",
};

struct sig {
	const hg_report *rep;
	hg_arena *arena;
	const hg_rules *rules;
	int key_ancestors, thread_frames;
	const char *prefix;     /* Java default in-app prefix "a.b.", or NULL */
	size_t prefix_len;
	const char *package;    /* Android native default: image path holds it; or NULL */
	bool ios;               /* native frames are an iOS app's */
	const char *main_image; /* iOS: the app binary's name; or NULL */
	const char **frames;
	size_t n_frames;
	bool symbolicated;
};

static const char *family_of(enum hg_report_kind kind)
{
	switch (kind) {
	case HG_KIND_LAG:
	case HG_KIND_IDLE_HANDLER_LAG:
	case HG_KIND_TOUCH_LAG:
	case HG_KIND_BLOCK:
		return "lag";
	case HG_KIND_ANR:
	case HG_KIND_SIGNAL_ANR:
		return "anr";
	default:
		return hg_report_kind_name(kind);
	}
}

/* ---- normalization ---- */

/* Appends name[0..len) with compiler numbering normalized: a class or
 * method name is cut at "$$ExternalSynthetic", "$$InternalSynthetic",
 * "$$Lambda" or "$r8$lambda$" and "$$Synthetic" put in place of the rest;
 * then every run of digits right after a '$' becomes "N". */
static void put_name(hg_buf *b, const char *name, size_t len)
{
	static const char *const cuts[] = {"$$ExternalSynthetic", "$$InternalSynthetic",
					   "$$Lambda", "$r8$lambda$"};
	size_t keep = len;
	bool cut = false;
	for (size_t i = 0; i < len; i++) {
		for (size_t c = 0; c < sizeof cuts / sizeof *cuts && !cut; c++) {
			size_t n = strlen(cuts[c]);
			if (n <= len - i && memcmp(name + i, cuts[c], n) == 0) {
				keep = i;
				cut = true;
			}
		}
		if (cut)
			break;
	}
	for (size_t i = 0; i < keep; i++) {
		hg_buf_putc(b, name[i]);
		if (name[i] == '$' && i + 1 < keep && name[i + 1] >= '0' && name[i + 1] <= '9') {
			hg_buf_putc(b, 'N');
			while (i + 1 < keep && name[i + 1] >= '0' && name[i + 1] <= '9')
				i++;
		}
	}
	if (cut)
		hg_buf_puts(b, SYNTHETIC);
}

/* Appends s[0..len) with each '$'-digits run as "$N" (argument lists). */
static void put_digits_normalized(hg_buf *b, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		hg_buf_putc(b, s[i]);
		if (s[i] == '$' && i + 1 < len && s[i + 1] >= '0' && s[i + 1] <= '9') {
			hg_buf_putc(b, 'N');
			while (i + 1 < len && s[i + 1] >= '0' && s[i + 1] <= '9')
				i++;
		}
	}
}

/* The buffer as an arena string with CR and LF made spaces (a frame is one
 * line of the canonical text); NULL on ENOMEM. */
static const char *finish(hg_buf *b, hg_arena *arena)
{
	const char *out = NULL;
	if (!b->failed) {
		char *s = hg_arena_strndup(arena, b->data ? b->data : "", b->len);
		for (char *p = s; p && *p; p++)
			if (*p == '\n' || *p == '\r')
				*p = ' ';
		out = s;
	}
	hg_buf_release(b);
	return out;
}

/* "cls.method" normalized (method may be NULL: the class alone). */
static const char *java_frame(hg_arena *arena, const char *cls, const char *method)
{
	hg_buf b;
	hg_buf_init(&b);
	put_name(&b, cls, strlen(cls));
	if (method) {
		hg_buf_putc(&b, '.');
		put_name(&b, method, strlen(method));
	}
	return finish(&b, arena);
}

/* A methodMapping symbol "a.b.C$1.run(int, String)": class and method as
 * java_frame, the argument list with '$'-digits runs normalized. */
static const char *method_symbol(hg_arena *arena, const char *sym)
{
	size_t name_len = strcspn(sym, "(");
	const char *dot = NULL;
	for (const char *p = sym; p < sym + name_len; p++)
		if (*p == '.')
			dot = p;
	hg_buf b;
	hg_buf_init(&b);
	if (dot) {
		put_name(&b, sym, (size_t)(dot - sym));
		hg_buf_putc(&b, '.');
		put_name(&b, dot + 1, (size_t)(sym + name_len - dot - 1));
	} else {
		put_name(&b, sym, name_len);
	}
	put_digits_normalized(&b, sym + name_len, strlen(sym + name_len));
	return finish(&b, arena);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* "image!symbol", "image+0xOFFSET" or "image" (image: the last component
 * of the path, "???" when unknown). */
static const char *native_frame(hg_arena *arena, const hg_frame *f)
{
	const char *image = f->image ? base_name(f->image) : "???";
	const char *sym = f->method ? f->method : f->symbol;
	if (sym)
		return hg_arena_printf(arena, "%s!%s", image, sym);
	if (f->has_offset)
		return hg_arena_printf(arena, "%s+0x%" PRIx64, image, f->offset);
	return hg_arena_strdup(arena, image);
}

/* ---- which frames count ---- */

static bool any_match(hg_regex *const *res, size_t n, const char *s, size_t len, int *err)
{
	for (size_t i = 0; i < n; i++) {
		int rc = hg_regex_match(res[i], s, len);
		if (rc < 0)
			*err = rc;
		if (rc != 0)
			return rc > 0;
	}
	return false;
}

static bool default_java_in_app(const struct sig *s, const char *name)
{
	if (s->prefix)
		return strncmp(name, s->prefix, s->prefix_len) == 0;
	for (size_t i = 0; i < sizeof system_prefixes / sizeof *system_prefixes; i++)
		if (strncmp(name, system_prefixes[i], strlen(system_prefixes[i])) == 0)
			return false;
	return true;
}

/* Whether the frame whose match text is name[0..len) is the app's:
 * the rules' app patterns when there are any, else by_default. */
static bool in_app(const struct sig *s, const char *name, size_t len, bool by_default, int *err)
{
	const hg_rules *r = s->rules;
	return r && r->n_app ? any_match(r->app, r->n_app, name, len, err) : by_default;
}

/* 1 when the frame is kept (in-app, not ignored), 0 when not, HG_ENOMEM. */
static int keep(const struct sig *s, const char *name, size_t len, bool by_default)
{
	int err = 0;
	const hg_rules *r = s->rules;
	bool kept = in_app(s, name, len, by_default, &err);
	if (kept && r && r->n_ignore && any_match(r->ignore, r->n_ignore, name, len, &err))
		kept = false;
	return err ? err : kept;
}

static int add_frame(struct sig *s, const char *frame)
{
	if (!frame)
		return HG_ENOMEM;
	s->frames[s->n_frames++] = frame;
	return 0;
}

/* ---- method stacks ---- */

static const char *symbol_of(const hg_report *rep, const hg_method_item *it)
{
	return rep->symbols && it->origin < rep->full.len ? rep->symbols[it->origin] : NULL;
}

static bool is_dispatch(const hg_method_item *it, const char *sym)
{
	size_t n = sym ? strcspn(sym, "(") : 0;
	return it->id == METHOD_ID_DISPATCH ||
	       (sym && n == strlen(DISPATCH) && memcmp(sym, DISPATCH, n) == 0);
}

/* The key frame, then up to key_ancestors kept ancestors on its path. */
static int method_signature(struct sig *s, bool *no_app, const char **title)
{
	const hg_report *rep = s->rep;
	const hg_method_stack *st = &rep->trimmed;
	long k = rep->key_index;
	const hg_method_item *key = &st->items[k];
	const char *sym = symbol_of(rep, key);
	int err = 0;
	bool app = true; /* an unmapped id may be the app's: it is kept */
	if (sym) {
		size_t n = strcspn(sym, "(");
		app = in_app(s, sym, n, default_java_in_app(s, sym), &err);
		if (err || add_frame(s, method_symbol(s->arena, sym)))
			return err ? err : HG_ENOMEM;
		*title = sym;
	} else {
		s->symbolicated = false;
		if (add_frame(s, hg_arena_printf(s->arena, "#%" PRId32, key->id)))
			return HG_ENOMEM;
		*title = s->frames[0];
	}
	int depth = key->depth, taken = 0;
	for (long i = k - 1; i >= 0 && taken < s->key_ancestors; i--) {
		const hg_method_item *it = &st->items[i];
		if (it->depth >= depth)
			continue;
		depth = it->depth; /* the parent of the item looked at last */
		const char *a = symbol_of(rep, it);
		if (is_dispatch(it, a))
			continue;
		const char *frame;
		if (a) {
			size_t n = strcspn(a, "(");
			int rc = keep(s, a, n, default_java_in_app(s, a));
			if (rc <= 0) {
				if (rc < 0)
					return rc;
				continue;
			}
			frame = method_symbol(s->arena, a);
		} else {
			s->symbolicated = false;
			frame = hg_arena_printf(s->arena, "#%" PRId32, it->id);
		}
		if (add_frame(s, frame))
			return HG_ENOMEM;
		taken++;
	}
	*no_app = !app && taken == 0;
	return 0;
}

/* ---- thread stacks ---- */

static long pick_thread(const hg_threads *ts)
{
	if (ts->blamed >= 0 && (size_t)ts->blamed < ts->n)
		return ts->blamed;
	for (size_t i = 0; i < ts->n; i++)
		if (ts->items[i].flags & HG_THREAD_MAIN)
			return (long)i;
	return 0;
}

static bool skipped_candidate(const hg_frame *f)
{
	return f->alternative && f->candidate > 1;
}

/* Whether image is the app binary called name: "name", or
 * "name.debug.dylib" (where Xcode debug builds put the code). */
static bool is_app_image(const char *image, const char *name, size_t len)
{
	return strncmp(image, name, len) == 0 &&
	       (image[len] == '\0' || strcmp(image + len, ".debug.dylib") == 0);
}

/* iOS: the app's binary is named like the last component of the process
 * (bundle id "com.example.MyApp" -> "MyApp"); NULL without a process. */
static const char *main_image(const hg_report *rep)
{
	if (!rep->process)
		return NULL;
	const char *last = rep->process;
	for (const char *p = rep->process; *p; p++)
		if (*p == '.' || *p == '/')
			last = p + 1;
	return *last ? last : NULL;
}

/* The match text of f (its frame text for native frames), its normalized
 * frame and its default in-app verdict. */
static int describe(const struct sig *s, const hg_frame *f, const char **match,
		    const char **frame, bool *by_default)
{
	if (f->kind == HG_FRAME_JAVA) {
		const char *cls = f->cls ? f->cls : "?";
		*match = f->method ? hg_arena_printf(s->arena, "%s.%s", cls, f->method) : cls;
		*frame = java_frame(s->arena, cls, f->method);
		*by_default = *match && default_java_in_app(s, *match);
	} else {
		*match = *frame = native_frame(s->arena, f);
		const char *img = f->image ? base_name(f->image) : NULL;
		if (s->ios)
			*by_default = img && s->main_image &&
				      is_app_image(img, s->main_image, strlen(s->main_image));
		else
			*by_default = s->package && f->image && strstr(f->image, s->package);
	}
	return *match && *frame ? 0 : HG_ENOMEM;
}

static int thread_signature(struct sig *s, const char **title, const char **key_symbol)
{
	const hg_thread *t = &s->rep->threads.items[pick_thread(&s->rep->threads)];
	for (size_t i = 0; i < t->n_frames && (int)s->n_frames < s->thread_frames; i++) {
		const hg_frame *f = &t->frames[i];
		if (skipped_candidate(f))
			continue;
		const char *match, *frame;
		bool by_default;
		int rc = describe(s, f, &match, &frame, &by_default);
		if (!rc)
			rc = keep(s, match, strlen(match), by_default);
		if (rc < 0)
			return rc;
		if (!*key_symbol)
			*key_symbol = f->text; /* the top frame, until an in-app one */
		if (rc == 0)
			continue;
		if (s->n_frames == 0) {
			*title = match;
			*key_symbol = f->text;
		}
		s->frames[s->n_frames++] = frame;
	}
	return 0;
}

/* ---- the signature ---- */

/* The hash: SHA-256 of the canonical text, its first 16 bytes in hex. */
static int hash_text(const char *family, const char *const *frames, size_t n, char hex[33])
{
	hg_buf b;
	hg_buf_init(&b);
	hg_buf_puts(&b, "hangar-signature v1\n");
	hg_buf_puts(&b, family);
	hg_buf_putc(&b, '\n');
	for (size_t i = 0; i < n; i++) {
		hg_buf_puts(&b, frames[i]);
		hg_buf_putc(&b, '\n');
	}
	unsigned char md[32];
	bool ok = !b.failed;
	if (ok)
		hg_sha256(b.data, b.len, md);
	hg_buf_release(&b);
	if (!ok)
		return HG_ENOMEM;
	hg_hex_digest(md, 16, hex);
	return 0;
}

/* Default in-app prefixes from the process name ("a.b.c:remote"): Java
 * classes under "a.b.", native images whose path holds "a.b.c". */
static int set_defaults(struct sig *s)
{
	const char *proc = s->rep->process;
	if (!proc || !*proc || *proc == ':')
		return 0;
	size_t n = strcspn(proc, ":");
	if (!(s->package = hg_arena_strndup(s->arena, proc, n)))
		return HG_ENOMEM;
	const char *dot = memchr(proc, '.', n);
	const char *dot2 = dot ? memchr(dot + 1, '.', (size_t)(proc + n - dot - 1)) : NULL;
	size_t plen = dot2 ? (size_t)(dot2 - proc) : n;
	if (!(s->prefix = hg_arena_printf(s->arena, "%.*s.", (int)plen, proc)))
		return HG_ENOMEM;
	s->prefix_len = plen + 1;
	return 0;
}

int hg_signature_compute(const hg_report *rep, const hg_rules *rules, hg_arena *arena,
			 hg_signature *out)
{
	if (!out)
		return HG_EINVAL;
	memset(out, 0, sizeof *out);
	if (!rep || !arena || rep->error)
		return HG_EINVAL;
	struct sig s = {.rep = rep, .arena = arena, .rules = rules, .symbolicated = true,
			.key_ancestors = rules ? rules->key_ancestors : HG_DEFAULT_KEY_ANCESTORS,
			.thread_frames = rules ? rules->thread_frames : HG_DEFAULT_THREAD_FRAMES};
	int rc = set_defaults(&s);
	if (rc)
		return rc;
	size_t cap = 1 + (size_t)(s.key_ancestors > s.thread_frames ? s.key_ancestors
								     : s.thread_frames);
	if (!(s.frames = hg_arena_calloc(arena, cap, sizeof *s.frames)))
		return HG_ENOMEM;
	bool no_app = true;
	const char *title = NULL, *key_symbol = NULL;
	if (rep->has_method_stack && rep->key_index >= 0 &&
	    (size_t)rep->key_index < rep->trimmed.len) {
		rc = method_signature(&s, &no_app, &title);
		key_symbol = title;
	} else if (rep->threads.n > 0) {
		s.ios = rep->platform && strcmp(rep->platform, "ios") == 0;
		if (s.ios)
			s.main_image = main_image(rep);
		rc = thread_signature(&s, &title, &key_symbol);
		no_app = s.n_frames == 0;
	}
	if (rc)
		return rc;
	if (no_app) {
		s.frames[0] = NO_APP_FRAME;
		s.n_frames = 1;
		title = NO_APP_FRAME;
	}
	if ((rc = hash_text(out->family = family_of(rep->kind), s.frames, s.n_frames, out->hash)))
		return rc;
	out->title = title;
	out->key_symbol = key_symbol;
	out->frames = s.frames;
	out->n_frames = s.n_frames;
	out->symbolicated = s.symbolicated;
	out->no_app_frame = no_app;
	return 0;
}

const char *hg_signature_family(enum hg_report_kind kind)
{
	return family_of(kind);
}
