/* Per-version mappings for ingest, regroup and merge (hg_namer in
 * hangar/ingest.h), and reading a stored report again with them. */
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

/* The mappings of a version, loaded once. */
static struct namer_version *version_maps(struct hg_namer *n, const char *version)
{
	if (!n->mapping_dir || !version)
		return NULL;
	for (int i = 0; i < n->n_versions; i++)
		if (!strcmp(n->versions[i].version, version))
			return &n->versions[i];
	if (n->n_versions == NAMER_MAX_VERSIONS)
		return NULL;
	struct namer_version *v = &n->versions[n->n_versions++];
	memset(v, 0, sizeof *v);
	v->version = strdup(version);
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

/* Without --mapping-dir or -m, as hangar stack does: methodMapping.txt
 * beside the report file, else $HANGAR_MAPPING (each loaded once). */
static hg_mapping *fallback_mapping(struct hg_namer *n, const char *path)
{
	char dir[4096], file[4200];
	if (path && strcmp(path, "-") != 0) {
		snprintf(dir, sizeof dir, "%s", path);
		const char *d = dirname(dir);
		for (int i = 0; i < n->n_besides; i++)
			if (!strcmp(n->besides[i].version, d))
				return n->besides[i].mapping;
		snprintf(file, sizeof file, "%s/methodMapping.txt", d);
		struct stat st;
		if (n->n_besides < NAMER_MAX_VERSIONS && stat(file, &st) == 0) {
			struct namer_version *b = &n->besides[n->n_besides++];
			memset(b, 0, sizeof *b);
			b->version = strdup(d);
			if (hg_mapping_open(n->ctx, file, &b->mapping) != 0) {
				b->mapping = NULL;
				n->bad_mappings++;
			}
			return b->mapping;
		}
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
	int slots = (int)(sizeof n->foreign / sizeof n->foreign[0]);
	for (int i = 0; i < n->n_foreign && i < slots; i++)
		if (n->foreign[i].mapping == m && !strcmp(n->foreign[i].package, package))
			return;
	struct namer_foreign *f = &n->foreign[n->n_foreign % slots]; /* the oldest, when full */
	n->n_foreign = n->n_foreign + 1 < 2 * slots ? n->n_foreign + 1 : slots;
	f->mapping = m;
	snprintf(f->package, sizeof f->package, "%s", package);
	const char *text = hg_mapping_fit_warning(&fit, m, rep->arena);
	if (text)
		hg_diagf(n->ctx, HG_DIAG_WARNING, rep->source, rep->line, 0, rep->number, "%s", text);
}

void hg_namer_name(struct hg_namer *n, hg_report *rep, const char *version, const char *path)
{
	char buf[4096];
	if (rep->app_version)
		version = rep->app_version;
	if (!version)
		version = version_from_path(n, path, buf, sizeof buf);
	if (version && !rep->app_version)
		rep->app_version = hg_arena_strdup(rep->arena, version);
	struct namer_version *v = version_maps(n, version);
	const hg_mapping *m = v && v->mapping ? v->mapping : n->mapping;
	if (!m && !n->mapping_dir)
		m = fallback_mapping(n, n->no_beside ? NULL : path);
	if (hg_report_symbolicate(rep, m) == 0 && m)
		say_foreign(n, rep, m);
	if (v && v->proguard)
		hg_report_retrace(rep, (const hg_proguard *const *)&v->proguard, 1);
	else if (n->n_proguard)
		hg_report_retrace(rep, (const hg_proguard *const *)n->proguard, (size_t)n->n_proguard);
	hg_symbols_apply(n->symbols, rep); /* out of memory: frames stay addresses */
}

int hg_namer_add_symbols(hg_namer *n, const char *const *dirs, int n_dirs)
{
	return namer_load_symbols(n, dirs, n_dirs);
}

int namer_load_symbols(struct hg_namer *n, const char *const *dirs, int n_dirs)
{
	if (n_dirs < 0 || n_dirs > HG_INGEST_MAX_SYMBOLS || n->symbols)
		return HG_EINVAL;
	hg_symbols_opts o = {.dirs = dirs, .n_dirs = (size_t)n_dirs};
	return n_dirs ? hg_symbols_create(n->ctx, &o, &n->symbols) : 0;
}

void namer_release(struct hg_namer *n)
{
	hg_symbols_destroy(n->symbols);
	hg_mapping_destroy(n->mapping);
	for (int i = 0; i < n->n_proguard; i++)
		hg_proguard_destroy(n->proguard[i]);
	for (int i = 0; i < n->n_versions; i++) {
		free(n->versions[i].version);
		hg_mapping_destroy(n->versions[i].mapping);
		hg_proguard_destroy(n->versions[i].proguard);
	}
	for (int i = 0; i < n->n_besides; i++) {
		free(n->besides[i].version);
		hg_mapping_destroy(n->besides[i].mapping);
	}
	hg_mapping_destroy(n->env_mapping);
}

int hg_namer_create(const hg_ctx *ctx, const hg_namer_opts *opts, hg_namer **out)
{
	*out = NULL;
	if (opts->n_proguard < 0 || opts->n_proguard > HG_INGEST_MAX_PROGUARD)
		return HG_EINVAL;
	struct hg_namer *n = calloc(1, sizeof *n);
	if (!n)
		return HG_ENOMEM;
	n->ctx = ctx;
	n->mapping_dir = opts->mapping_dir;
	int rc = 0;
	if (opts->mapping)
		rc = hg_mapping_open(ctx, opts->mapping, &n->mapping);
	for (int i = 0; rc == 0 && i < opts->n_proguard; i++)
		if ((rc = hg_proguard_open(ctx, opts->proguard[i], &n->proguard[n->n_proguard])) == 0)
			n->n_proguard++;
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
