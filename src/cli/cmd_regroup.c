/* hangar regroup: compute every stored report's signature again, with
 * mappings that arrived after ingest or changed rules, and move reports to
 * their new clusters without losing any. */
#include <getopt.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hangar/cluster.h"
#include "hangar/mapping.h"
#include "hangar/proguard.h"
#include "store_cli.h"

#define MAX_PROGUARD 16
#define MAX_VERSIONS 64    /* versions whose mappings stay loaded */

static void regroup_usage(FILE *out)
{
	fprintf(out,
		"usage: hangar regroup [OPTIONS]\n"
		"\n"
		"Compute every stored report's signature again from its stored text (after\n"
		"mappings arrived, or the rules changed), move reports to their new clusters\n"
		"and rebuild the clusters touched, in one transaction.  No report is lost.\n"
		"\n"
		"Options:\n"
		"      --db FILE          the store (default: $HANGAR_DB, else ./hangar.db)\n"
		"  -m, --mapping FILE     methodMapping.txt for every report\n"
		"      --proguard FILE    ProGuard/R8 mapping.txt for every report (repeatable)\n"
		"      --mapping-dir DIR  per app version: DIR/<version>/methodMapping.txt and\n"
		"                         DIR/<version>/mapping.txt\n"
		"      --rules FILE       grouping rules (see hangar-formats(5))\n"
		"  -h, --help             show this help\n"
		"\n"
		"Ends with one summary line on stderr.  Exit status: 0 fine, 1 error, 2 usage.\n");
}

struct version_maps {
	char *version;
	hg_mapping *mapping;
	hg_proguard *proguard;
};

struct regroup {
	hg_ctx ctx;
	hg_rules *rules;
	hg_mapping *mapping;
	hg_proguard *proguard[MAX_PROGUARD];
	int n_proguard;
	const char *mapping_dir;
	struct version_maps versions[MAX_VERSIONS];
	int n_versions;
	size_t unreadable;
};

/* As ingest: the nearest parent folder of the report's source that is a
 * version folder of the mapping dir. */
static const char *version_from_path(struct regroup *g, const char *path, char *buf, size_t size)
{
	if (!g->mapping_dir || !strcmp(path, "-"))
		return NULL;
	snprintf(buf, size, "%s", path);
	for (char *dir = dirname(buf); strcmp(dir, ".") && strcmp(dir, "/"); dir = dirname(dir)) {
		const char *name = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
		char probe[4096];
		struct stat st;
		snprintf(probe, sizeof probe, "%s/%s", g->mapping_dir, name);
		if (stat(probe, &st) == 0 && S_ISDIR(st.st_mode))
			return name;
	}
	return NULL;
}

static struct version_maps *maps_for(struct regroup *g, const char *version)
{
	if (!g->mapping_dir || !version)
		return NULL;
	for (int i = 0; i < g->n_versions; i++)
		if (!strcmp(g->versions[i].version, version))
			return &g->versions[i];
	if (g->n_versions == MAX_VERSIONS)
		return NULL;
	struct version_maps *v = &g->versions[g->n_versions++];
	memset(v, 0, sizeof *v);
	v->version = strdup(version);
	char path[4096];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s/methodMapping.txt", g->mapping_dir, version);
	if (stat(path, &st) == 0 && hg_mapping_open(&g->ctx, path, &v->mapping) != 0)
		v->mapping = NULL;
	snprintf(path, sizeof path, "%s/%s/mapping.txt", g->mapping_dir, version);
	if (stat(path, &st) == 0 && hg_proguard_open(&g->ctx, path, &v->proguard) != 0)
		v->proguard = NULL;
	return v;
}

static int keep_first(void *user, hg_report *rep)
{
	hg_report **out = user;
	if (!*out && !rep->error)
		*out = rep;
	else
		hg_report_destroy(rep);
	return 0;
}

static int on_item(void *user, const hg_regroup_item *item, hg_report **out, hg_signature *sig)
{
	struct regroup *g = user;
	hg_report *rep = NULL;
	int rc = hg_reports_read(&g->ctx, item->source, item->text, item->len, keep_first, &rep);
	if (rc == HG_ENOMEM) {
		hg_report_destroy(rep);
		return rc;
	}
	if (!rep || (!rep->has_method_stack && rep->threads.n == 0)) {
		/* Not readable now, or its stack was outside its text (an APM
		 * report's --stack-dir): left where it is. */
		hg_report_destroy(rep);
		g->unreadable++;
		return 0;
	}
	char buf[4096];
	const char *version = rep->app_version ? rep->app_version : item->version;
	if (!version)
		version = version_from_path(g, item->source, buf, sizeof buf);
	if (version && !rep->app_version)
		rep->app_version = hg_arena_strdup(rep->arena, version);
	struct version_maps *v = maps_for(g, version);
	const hg_mapping *m = v && v->mapping ? v->mapping : g->mapping;
	hg_report_symbolicate(rep, m);
	if (v && v->proguard)
		hg_report_retrace(rep, (const hg_proguard *const *)&v->proguard, 1);
	else if (g->n_proguard)
		hg_report_retrace(rep, (const hg_proguard *const *)g->proguard, (size_t)g->n_proguard);
	rc = hg_signature_compute(rep, g->rules, rep->arena, sig);
	if (rc != 0) {
		hg_report_destroy(rep);
		return rc == HG_ENOMEM ? rc : 0;
	}
	*out = rep;
	return 0;
}

static const struct option long_options[] = {
	{"db", required_argument, NULL, 'D'},
	{"mapping", required_argument, NULL, 'm'},
	{"proguard", required_argument, NULL, 'P'},
	{"mapping-dir", required_argument, NULL, 'M'},
	{"rules", required_argument, NULL, 'r'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static void release(struct regroup *g)
{
	hg_rules_destroy(g->rules);
	hg_mapping_destroy(g->mapping);
	for (int i = 0; i < g->n_proguard; i++)
		hg_proguard_destroy(g->proguard[i]);
	for (int i = 0; i < g->n_versions; i++) {
		free(g->versions[i].version);
		hg_mapping_destroy(g->versions[i].mapping);
		hg_proguard_destroy(g->versions[i].proguard);
	}
}

/* Loads what the options name; false (said on stderr) when one fails:
 * regrouping with a missing mapping would undo the grouping it should fix. */
static bool load(struct regroup *g, const char *rules, const char *mapping,
		 const char *const *proguard, int n_pg)
{
	if ((rules && hg_rules_load(&g->ctx, rules, &g->rules) != 0) ||
	    (mapping && hg_mapping_open(&g->ctx, mapping, &g->mapping) != 0))
		return false;
	for (int i = 0; i < n_pg; i++) {
		if (hg_proguard_open(&g->ctx, proguard[i], &g->proguard[g->n_proguard]) != 0)
			return false;
		g->n_proguard++;
	}
	struct stat st;
	if (g->mapping_dir && (stat(g->mapping_dir, &st) != 0 || !S_ISDIR(st.st_mode))) {
		fprintf(stderr, "hangar regroup: %s: not a folder\n", g->mapping_dir);
		return false;
	}
	return true;
}

static int run_regroup(int argc, char **argv)
{
	struct regroup g = {0};
	hg_ctx_init(&g.ctx);
	g.ctx.diag = cli_print_diag;
	const char *db = NULL, *rules = NULL, *mapping = NULL;
	const char *proguard[MAX_PROGUARD];
	int n_pg = 0, c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":m:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'D': db = optarg; break;
		case 'm': mapping = optarg; break;
		case 'P':
			if (n_pg == MAX_PROGUARD)
				return cli_usage_error("regroup", "at most %d --proguard files", MAX_PROGUARD);
			proguard[n_pg++] = optarg;
			break;
		case 'M': g.mapping_dir = optarg; break;
		case 'r': rules = optarg; break;
		case 'h': regroup_usage(stdout); return EXIT_FINE;
		case ':': return cli_usage_error("regroup", "option '%s' needs a value", argv[optind - 1]);
		default: return cli_usage_error("regroup", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("regroup", "unexpected argument '%s'", argv[optind]);
	hg_store *store = NULL;
	if (!load(&g, rules, mapping, proguard, n_pg) ||
	    hg_store_open(&g.ctx, store_path(db), &store) != 0) {
		release(&g);
		return EXIT_SOME_FAILED;
	}
	hg_regroup_stats s;
	int rc = hg_store_regroup(store, on_item, &g, &s);
	hg_store_close(store);
	release(&g);
	if (rc != 0) {
		fprintf(stderr, "hangar regroup: %s\n", hg_strerror(rc));
		return EXIT_SOME_FAILED;
	}
	fprintf(stderr, "regroup: %lld reports, %lld clusters before, %lld after, moved %lld\n",
		(long long)s.reports, (long long)s.clusters_before, (long long)s.clusters_after,
		(long long)s.moved);
	if (s.kept)
		fprintf(stderr, "regroup: %lld reports could not be read again and kept their cluster\n",
			(long long)s.kept);
	return EXIT_FINE;
}

const struct command cmd_regroup = {
	"regroup",
	"compute signatures again (mappings arrived, rules changed) and merge clusters",
	run_regroup,
	regroup_usage,
};
