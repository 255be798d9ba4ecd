/* hangar show --explain: why a cluster's reports have its signature,
 * explained on its newest report, read again from the store and named as
 * regroup would name it (hg_signature_explain). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/cluster.h"
#include "hangar/ingest.h"
#include "hangar/namer.h"
#include "hangar/render.h"
#include "show_explain.h"
#include "store_cli.h"

struct newest {
	char content_hash[65];
	char source[480];
	char version[128];
	bool has_version;
	long line;
};

static int on_newest(void *user, const hg_report_row *r)
{
	struct newest *n = user;
	snprintf(n->content_hash, sizeof n->content_hash, "%s", r->content_hash);
	snprintf(n->source, sizeof n->source, "%s", r->source);
	n->has_version = r->version != NULL;
	snprintf(n->version, sizeof n->version, "%s", r->version ? r->version : "");
	n->line = r->line;
	return 1; /* one is enough */
}

/* The report read again, named and signed as regroup does it
 * (hg_reread_report): its stored version, else the version folder of its
 * source.  NULL (said on stderr) when it cannot be. */
static hg_report *read_named(hg_ctx *ctx, hg_store *store, const struct newest *n,
			     const hg_rules *rules, const struct show_explain_opts *o)
{
	char *text = NULL;
	size_t len = 0;
	hg_report *rep = NULL;
	hg_namer *names = NULL;
	const char *pg[1] = {o->proguard};
	if (hg_store_report_text(store, n->content_hash, &text, &len) != 0 ||
	    !cli_namer_create(ctx, "show", o->mapping, pg, o->proguard ? 1 : 0, o->mapping_dir,
			      NULL, 0, &names)) {
		free(text);
		return NULL;
	}
	hg_reread r = {ctx, rules, names, NULL, HG_FORMAT_AUTO, 0, NULL, NULL};
	hg_regroup_item item = {0, n->source, n->line, n->has_version ? n->version : NULL,
				NULL, NULL, text, len};
	hg_signature sig;
	if (hg_reread_report(&r, &item, &rep, &sig) != 0 || !rep)
		fprintf(stderr, "hangar show: %s:%ld: the stored report does not read again\n",
			n->source, n->line);
	hg_namer_destroy(names);
	free(text);
	return rep;
}

int show_explain(hg_store *store, const char *hash, const struct show_explain_opts *o)
{
	struct newest n = {"", "", "", false, 0};
	int rc = hg_store_reports(store, hash, 1, on_newest, &n);
	if (rc < 0)
		return cli_store_failed("show", rc);
	if (!n.content_hash[0]) {
		fprintf(stderr, "hangar show: cluster %.12s has no report to explain\n", hash);
		return EXIT_SOME_FAILED;
	}
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	hg_rules *rules = NULL;
	if (o->rules && hg_rules_load(&ctx, o->rules, &rules) != 0)
		return EXIT_SOME_FAILED;
	hg_report *rep = read_named(&ctx, store, &n, rules, o);
	hg_arena *arena = rep ? hg_arena_create() : NULL;
	hg_explain ex;
	int status = EXIT_SOME_FAILED;
	if (arena && hg_signature_explain(rep, rules, arena, &ex) == 0) {
		bool same = strcmp(ex.sig.hash, hash) == 0;
		hg_buf out;
		hg_buf_init(&out);
		if (o->json) {
			hg_buf_puts(&out, "{\"cluster\":");
			hg_buf_json_string(&out, hash, strlen(hash));
			hg_buf_puts(&out, ",\"report\":{\"source\":");
			hg_buf_json_string(&out, n.source, strlen(n.source));
			hg_buf_printf(&out, ",\"line\":%ld}", n.line);
			hg_buf_printf(&out, ",\"joins_cluster\":%s,\"explain\":", same ? "true" : "false");
			hg_render_explain_json(&out, &ex);
			hg_buf_puts(&out, "}\n");
		} else {
			hg_buf_printf(&out, "cluster %.12s, explained on its newest report %s:%ld\n",
				      hash, n.source, n.line);
			if (!same)
				hg_buf_printf(&out, "this report would now join cluster %.12s (other "
					      "mappings or rules than ingest's: 'hangar regroup' "
					      "moves it)\n", ex.sig.hash);
			hg_buf_putc(&out, '\n');
			hg_render_explain(&out, &ex, o->width);
		}
		if (!out.failed) {
			if (o->json)
				fwrite(out.data, 1, out.len, stdout);
			else
				cli_write_text(stdout, out.data, out.len);
			status = EXIT_FINE;
		}
		hg_buf_release(&out);
	}
	hg_arena_destroy(arena);
	hg_report_destroy(rep);
	hg_rules_destroy(rules);
	return status;
}
