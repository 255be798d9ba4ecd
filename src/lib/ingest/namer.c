/* Naming reports (hg_namer, hangar/namer.h) for every command, and
 * reading a stored report again with it (hg_reread, hangar/ingest.h). */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

/* The nearest parent folder of path that is a version folder of the
 * mapping dir (buckets are often laid out <version>/.../report.json). */
static const char *version_from_path(const struct hg_namer *n, const char *path, char *buf,
				     size_t size)
{
	if (!n->mapping_dir || !path || !strcmp(path, "-"))
		return NULL;
	snprintf(buf, size, "%s", path);
	for (char *dir = dirname(buf); strcmp(dir, ".") && strcmp(dir, "/"); dir = dirname(dir)) {
		const char *name = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
		char probe[4096];
		struct stat st;
		snprintf(probe, sizeof probe, "%s/%s", n->mapping_dir, name);
		if (stat(probe, &st) == 0 && S_ISDIR(st.st_mode))
			return name;
	}
	return NULL;
}

/* Frees a cached version's mappings; the notes that one looked like
 * another app's are forgotten with it (its address may come back). */
static void slot_release(struct hg_namer *n, struct namer_version *v)
{
	for (int i = 0; i < n->n_foreign && i < NAMER_MAX_FOREIGN; i++)
		if (v->mapping && n->foreign[i].mapping == v->mapping)
			n->foreign[i].mapping = NULL;
	free(v->version);
	hg_mapping_destroy(v->mapping);
	hg_proguard_destroy(v->proguard);
	memset(v, 0, sizeof *v);
}

static struct namer_version *slot_find(struct hg_namer *n, struct namer_version *slots,
				       int count, const char *key)
{
	for (int i = 0; i < count; i++)
		if (!strcmp(slots[i].version, key)) {
			slots[i].used = ++n->uses;
			return &slots[i];
		}
	return NULL;
}

/* A slot for key: a free one, else the one used longest ago, emptied (a
 * bucket of many versions, or stack over many folders, is still named
 * right, at the cost of loading a mapping again).  NULL on ENOMEM. */
static struct namer_version *slot_take(struct hg_namer *n, struct namer_version *slots,
				       int *count, const char *key)
{
	char *copy = strdup(key);
	if (!copy)
		return NULL;
	struct namer_version *v = &slots[0];
	if (*count < NAMER_MAX_VERSIONS)
		v = &slots[(*count)++];
	else
		for (int i = 1; i < NAMER_MAX_VERSIONS; i++)
			if (slots[i].used < v->used)
				v = &slots[i];
	slot_release(n, v);
	v->version = copy;
	v->used = ++n->uses;
	return v;
}

/* The mappings of a version, loaded once. */
static struct namer_version *version_maps(struct hg_namer *n, const char *version)
{
	if (!n->mapping_dir || !version)
		return NULL;
	struct namer_version *v = slot_find(n, n->versions, n->n_versions, version);
	if (v || !(v = slot_take(n, n->versions, &n->n_versions, version)))
		return v;
	char path[4096];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s/methodMapping.txt", n->mapping_dir, version);
	if (stat(path, &st) == 0 && hg_mapping_open(n->ctx, path, &v->mapping) != 0) {
		v->mapping = NULL;
		n->bad_mappings++;
	}
	snprintf(path, sizeof path, "%s/%s/mapping.txt", n->mapping_dir, version);
	if (stat(path, &st) == 0 && hg_proguard_open(n->ctx, path, &v->proguard) != 0) {
		v->proguard = NULL;
		n->bad_mappings++;
	}
	return v;
}

/* Without --mapping-dir or -m: methodMapping.txt beside the report file
 * (one that does not load is no reason to guess another), else
 * $HANGAR_MAPPING; each looked for and loaded once (a folder of many
 * reports is not asked again for each). */
static hg_mapping *fallback_mapping(struct hg_namer *n, const char *path)
{
	char dir[4096], file[4200];
	if (path && strcmp(path, "-") != 0) {
		snprintf(dir, sizeof dir, "%s", path);
		const char *d = dirname(dir);
		struct namer_version *b = slot_find(n, n->besides, n->n_besides, d);
		if (!b && (b = slot_take(n, n->besides, &n->n_besides, d))) {
			snprintf(file, sizeof file, "%s/methodMapping.txt", d);
			struct stat st;
			b->absent = stat(file, &st) != 0;
			if (!b->absent && hg_mapping_open(n->ctx, file, &b->mapping) != 0) {
				b->mapping = NULL;
				n->bad_mappings++;
			}
		}
		if (b && !b->absent)
			return b->mapping;
	}
	if (!n->env_tried) {
		n->env_tried = true;
		const char *env = getenv("HANGAR_MAPPING");
		if (env && *env && hg_mapping_open(n->ctx, env, &n->env_mapping) != 0) {
			n->env_mapping = NULL;
			n->bad_mappings++;
		}
	}
	return n->env_mapping;
}

/* A methodMapping of another app names every report wrongly: said once
 * per mapping and package (its report carries the warning too), not once
 * per report of a big ingest. */
static void say_foreign(struct hg_namer *n, const hg_report *rep, const hg_mapping *m)
{
	hg_mapping_fit fit;
	if (hg_report_mapping_fit(rep, m, &fit) != 0 || !fit.foreign)
		return;
	const char *package = fit.package ? fit.package : "";
	for (int i = 0; i < n->n_foreign && i < NAMER_MAX_FOREIGN; i++)
		if (n->foreign[i].mapping == m && !strcmp(n->foreign[i].package, package))
			return;
	/* the oldest, when full */
	struct namer_foreign *f = &n->foreign[n->n_foreign % NAMER_MAX_FOREIGN];
	n->n_foreign = n->n_foreign + 1 < 2 * NAMER_MAX_FOREIGN ? n->n_foreign + 1
								: NAMER_MAX_FOREIGN;
	f->mapping = m;
	snprintf(f->package, sizeof f->package, "%s", package);
	const char *text = hg_mapping_fit_warning(&fit, m, rep->arena);
	if (text)
		hg_diagf(n->ctx, HG_DIAG_WARNING, rep->source, rep->line, 0, rep->number, "%s", text);
}

int hg_namer_name(struct hg_namer *n, hg_report *rep, const char *version, const char *path)
{
	/* Method ids are named on the rebuilt stack: a report whose rebuild
	 * was left for later (ctx->defer_rebuild) is rebuilt here. */
	if (hg_report_rebuild(rep) != 0)
		return HG_ENOMEM;
	char buf[4096];
	if (rep->app_version)
		version = rep->app_version;
	if (!version)
		version = version_from_path(n, path, buf, sizeof buf);
	if (version && !rep->app_version)
		rep->app_version = hg_arena_strdup(rep->arena, version);
	struct namer_version *v = version_maps(n, version);
	const hg_mapping *m = v && v->mapping ? v->mapping : n->mapping;
	if (!m && !n->mapping_dir && !n->mapping_given)
		m = fallback_mapping(n, n->no_beside ? NULL : path);
	int rc = hg_report_symbolicate(rep, m);
	if (rc == 0 && m)
		say_foreign(n, rep, m);
	int retraced = 0;
	if (v && v->proguard)
		retraced = hg_report_retrace(rep, (const hg_proguard *const *)&v->proguard, 1);
	else if (n->n_proguard)
		retraced = hg_report_retrace(rep, (const hg_proguard *const *)n->proguard,
					     (size_t)n->n_proguard);
	int native = hg_symbols_apply(n->symbols, rep); /* out of memory: frames stay addresses */
	return rc || retraced || native ? HG_ENOMEM : 0;
}

int hg_namer_add_mapping(hg_namer *n, const char *path)
{
	if (n->mapping_given)
		return HG_EINVAL;
	n->mapping_given = true;
	int rc = hg_mapping_open(n->ctx, path, &n->mapping);
	if (rc != 0)
		n->mapping = NULL;
	return rc;
}

int hg_namer_add_proguard(hg_namer *n, const char *path)
{
	if (n->n_proguard == HG_NAMER_MAX_PROGUARD)
		return HG_EINVAL;
	int rc = hg_proguard_open(n->ctx, path, &n->proguard[n->n_proguard]);
	if (rc == 0)
		n->n_proguard++;
	else
		n->proguard[n->n_proguard] = NULL;
	return rc;
}

int hg_namer_add_symbols(hg_namer *n, const char *const *dirs, int n_dirs)
{
	if (n_dirs < 0 || n_dirs > HG_NAMER_MAX_SYMBOLS || n->symbols_tried)
		return HG_EINVAL;
	n->symbols_tried = true;
	hg_symbols_opts o = {.dirs = dirs, .n_dirs = (size_t)n_dirs};
	int rc = n_dirs ? hg_symbols_create(n->ctx, &o, &n->symbols) : 0;
	if (rc != 0)
		n->symbols = NULL;
	return rc;
}

bool hg_namer_symbols_stats(const hg_namer *n, hg_symbols_stats *out)
{
	if (!n->symbols)
		return false;
	hg_symbols_get_stats(n->symbols, out);
	return true;
}

void namer_release(struct hg_namer *n)
{
	hg_symbols_destroy(n->symbols);
	hg_mapping_destroy(n->mapping);
	for (int i = 0; i < n->n_proguard; i++)
		hg_proguard_destroy(n->proguard[i]);
	for (int i = 0; i < n->n_versions; i++)
		slot_release(n, &n->versions[i]);
	for (int i = 0; i < n->n_besides; i++)
		slot_release(n, &n->besides[i]);
	hg_mapping_destroy(n->env_mapping);
}

int hg_namer_create(const hg_ctx *ctx, const hg_namer_opts *opts, hg_namer **out)
{
	*out = NULL;
	if (opts->n_proguard < 0 || opts->n_proguard > HG_NAMER_MAX_PROGUARD)
		return HG_EINVAL;
	struct hg_namer *n = calloc(1, sizeof *n);
	if (!n)
		return HG_ENOMEM;
	n->ctx = ctx;
	n->mapping_dir = opts->mapping_dir;
	int rc = opts->mapping ? hg_namer_add_mapping(n, opts->mapping) : 0;
	for (int i = 0; rc == 0 && i < opts->n_proguard; i++)
		rc = hg_namer_add_proguard(n, opts->proguard[i]);
	struct stat st;
	const char *dir = n->mapping_dir;
	if (rc == 0 && dir && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)))
		rc = HG_ENOENT;
	if (rc != 0) {
		hg_namer_destroy(n);
		return rc;
	}
	*out = n;
	return 0;
}

void hg_namer_destroy(hg_namer *n)
{
	if (!n)
		return;
	namer_release(n);
	free(n);
}

int hg_namer_bad_mappings(const hg_namer *n)
{
	return n->bad_mappings;
}

/* The first error said while a stored report is read again. */
struct first_error {
	char message[512];
};

static void keep_first_error(void *user, const hg_diag *d)
{
	struct first_error *e = user;
	if (d->severity == HG_DIAG_ERROR && !e->message[0])
		snprintf(e->message, sizeof e->message, "%s", d->message);
}

static void not_read_again(hg_reread *r, const hg_regroup_item *item, const char *why)
{
	r->unreadable++;
	if (r->not_read)
		r->not_read(r->not_read_user, item, why);
}

int hg_reread_report(void *user, const hg_regroup_item *item, hg_report **out, hg_signature *sig)
{
	hg_reread *r = user;
	hg_report *rep = NULL;
	/* With a list to fill, the reading's diagnostics are kept, not said:
	 * they name lines of the stored text, and a store can hold thousands. */
	hg_ctx quiet = *r->ctx;
	struct first_error first = {{0}};
	if (r->not_read) {
		quiet.diag = keep_first_error;
		quiet.diag_user = &first;
	}
	int rc = hg_report_read_one(&quiet, item->source, item->text, item->len, r->format, &rep);
	if (rc == HG_ENOMEM)
		return rc;
	if (!rep || rep->error) {
		hg_report_destroy(rep);
		not_read_again(r, item, rep ? "it has no method stack and no thread now (an APM "
					      "report's stack file: see --stack-dir)"
					    : first.message);
		return 0;
	}
	if (!rep->process && item->app) /* ingest --app */
		rep->process = hg_arena_strdup(rep->arena, item->app);
	hg_namer_name(r->names, rep, item->version ? item->version : r->app_version, item->source);
	rc = hg_signature_compute(rep, r->rules, rep->arena, sig);
	if (rc != 0) {
		hg_report_destroy(rep);
		if (rc == HG_ENOMEM)
			return rc;
		char why[96];
		snprintf(why, sizeof why, "its signature cannot be computed: %s", hg_strerror(rc));
		if (r->not_read)
			r->not_read(r->not_read_user, item, why);
		return 0;
	}
	*out = rep;
	return 0;
}
