/* Module cluster (src/lib/cluster/): stack signatures, what makes two
 * reports the same problem.  The signature and its hash (cluster.c), of
 * method stacks (cluster_method.c) and thread dumps (cluster_thread.c),
 * frames normalized (cluster_frames.c; iOS names, cluster_apple.c), rules
 * files (cluster_rules.c), and why a report has its signature
 * (cluster_explain.c).
 * Public header: cluster.h.
 * Uses: core, regex, report. */
/* Stack signatures, algorithm v2 (hangar-formats(5), STACK SIGNATURES):
 * the app, the family, then lines that say where the time went (the key
 * frame and its ancestors for method stacks, cluster_method.c; the blamed
 * thread's innermost app frames for dumps, cluster_thread.c), hashed with
 * SHA-256 and cut to 128 bits.  Uses cluster_frames.c for names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_internal.h"
#include "hangar/text.h"
#include "core/core.h"

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

/* The hash: SHA-256 of the canonical text, its first 16 bytes in hex. */
static int hash_text(const char *family, const char *const *lines, size_t n, char hex[33])
{
	hg_buf b;
	hg_buf_init(&b);
	hg_buf_puts(&b, "hangar-signature v2\n");
	hg_buf_puts(&b, family);
	hg_buf_putc(&b, '\n');
	for (size_t i = 0; i < n; i++) {
		hg_buf_puts(&b, lines[i]);
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

/* The folder of a source ("bucket/2024-05-01/r1.json" -> "bucket/2024-05-01";
 * "-" stays "-"): reports that name no app are grouped apart per folder,
 * file or stream they came from. */
static const char *source_folder(hg_arena *arena, const char *source)
{
	if (!source || !*source)
		return "?";
	const char *slash = strrchr(source, '/');
	return slash && slash != source ? hg_arena_strndup(arena, source, (size_t)(slash - source))
					: source;
}

/* Which app the report is of: its process up to ':' (Android's package;
 * KSCrash gives the bundle id here; ingest --app fills it in), else
 * unknown within its source.  Also the defaults for whose a frame is. */
/* a[0..n) then b, in arena: the two lines every signature starts from,
 * joined without printf (a microsecond each, at a bucket's scale). */
static char *joined(hg_arena *arena, const char *a, size_t n, const char *b)
{
	size_t m = strlen(b);
	char *out = hg_arena_alloc(arena, n + m + 1);
	if (out) {
		memcpy(out, a, n);
		memcpy(out + n, b, m + 1);
	}
	return out;
}

static int set_app(struct sig *s, hg_signature *out)
{
	const char *proc = s->rep->process;
	size_t n = proc ? strcspn(proc, ":") : 0;
	s->ios = s->rep->platform && strcmp(s->rep->platform, "ios") == 0;
	if (n) {
		if (!(s->package = hg_arena_strndup(s->arena, proc, n)))
			return HG_ENOMEM;
		out->app = s->package;
		out->app_known = true;
		const char *dot = memchr(proc, '.', n);
		const char *dot2 = dot ? memchr(dot + 1, '.', (size_t)(proc + n - dot - 1)) : NULL;
		size_t plen = dot2 ? (size_t)(dot2 - proc) : n;
		if (!(s->prefix = joined(s->arena, proc, plen, ".")))
			return HG_ENOMEM;
		s->prefix_len = plen + 1;
		if (s->ios) {
			const char *last = s->package;
			for (const char *p = s->package; *p; p++)
				if (*p == '.' || *p == '/')
					last = p + 1;
			s->main_image = *last ? last : NULL;
		}
		return 0;
	}
	out->app = hg_arena_printf(s->arena, "unknown app in %s",
				   source_folder(s->arena, s->rep->source));
	return out->app ? 0 : HG_ENOMEM;
}

/* Explaining: the parts of the signature that say how it was made. */
static int explain_parts(struct sig *s, hg_explain *ex, const hg_signature *out)
{
	ex->app_from = out->app_known
			       ? hg_arena_printf(s->arena, "process %s", s->rep->process)
			       : "no process: the folder of the report's source";
	ex->app_prefix = s->prefix;
	ex->app_image = s->main_image;
	ex->key_ancestors = s->key_ancestors;
	ex->thread_frames = s->thread_frames;
	ex->thread = -1;
	ex->hashed_owner = HG_OWNER_IGNORED;
	return ex->app_from ? 0 : HG_ENOMEM;
}

/* hg_signature_compute, and hg_signature_explain when ex is not NULL. */
static int signature(const hg_report *rep, const hg_rules *rules, hg_arena *arena,
		     hg_signature *out, hg_explain *ex)
{
	if (!out)
		return HG_EINVAL;
	memset(out, 0, sizeof *out);
	if (!rep || !arena || rep->error)
		return HG_EINVAL;
	struct sig s = {.rep = rep, .arena = arena, .rules = rules, .symbolicated = true,
			.key_ancestors = rules ? rules->key_ancestors : HG_DEFAULT_KEY_ANCESTORS,
			.thread_frames = rules ? rules->thread_frames : HG_DEFAULT_THREAD_FRAMES,
			.ex = ex};
	int rc = set_app(&s, out);
	if (!rc && ex)
		rc = explain_parts(&s, ex, out);
	if (rc)
		return rc;
	/* The most lines any path adds: the app, a marker or two, the frames. */
	s.cap_frames = 4 + (size_t)(s.key_ancestors > s.thread_frames ? s.key_ancestors
								       : s.thread_frames);
	if (!(s.frames = hg_arena_calloc(arena, s.cap_frames, sizeof *s.frames)))
		return HG_ENOMEM;
	/* The app first: reports of two apps never share a cluster. */
	if ((rc = sig_add(&s, joined(arena, "app ", 4, out->app))))
		return rc;
	if (rep->has_method_stack && rep->key_index >= 0 &&
	    (size_t)rep->key_index < rep->trimmed.len) {
		if (ex) {
			ex->basis = HG_BASIS_METHOD_STACK;
			ex->hashed_owner = HG_OWNER_APP; /* but the whole message's */
		}
		rc = sig_method_stack(&s);
	} else if (rep->threads.n > 0) {
		if (ex)
			ex->basis = HG_BASIS_THREAD;
		rc = sig_thread_dump(&s);
	} else {
		if (ex)
			ex->basis = HG_BASIS_NO_STACK;
		rc = sig_no_stack(&s);
	}
	if (rc)
		return rc;
	out->family = family_of(rep->kind);
	if ((rc = hash_text(out->family, s.frames, s.n_frames, out->hash)))
		return rc;
	out->version = HG_SIGNATURE_VERSION;
	out->title = s.title;
	out->key_symbol = s.key_symbol;
	out->frames = s.frames;
	out->n_frames = s.n_frames;
	out->symbolicated = s.symbolicated;
	out->no_app_frame = s.no_app_frame;
	return 0;
}

int hg_signature_compute(const hg_report *rep, const hg_rules *rules, hg_arena *arena,
			 hg_signature *out)
{
	return signature(rep, rules, arena, out, NULL);
}

int hg_signature_explain(const hg_report *rep, const hg_rules *rules, hg_arena *arena,
			 hg_explain *out)
{
	if (!out)
		return HG_EINVAL;
	memset(out, 0, sizeof *out);
	return signature(rep, rules, arena, &out->sig, out);
}

const char *hg_signature_family(enum hg_report_kind kind)
{
	return family_of(kind);
}
