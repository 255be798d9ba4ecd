/* hangar show: everything about one cluster. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "store_cli.h"

#define SAMPLES 5

static void show_usage(FILE *out)
{
	fprintf(out,
		"usage: hangar show [OPTIONS] HASH\n"
		"\n"
		"One cluster (a unique prefix of its hash is enough): counts by version,\n"
		"device and scene, first and last seen, cost p50/p90/p99, its signature, the\n"
		"merged call tree of all its reports (reports through each node, total and\n"
		"maximum cost; * marks the StackKey path) and a few sample reports.\n"
		"\n"
		"Options:\n"
		"      --db FILE      the store (default: $HANGAR_DB, else ./hangar.db)\n"
		"  -f, --format F     table (default), json (one object) or csv (the tree)\n"
		"  -h, --help         show this help\n");
}

struct show {
	enum row_format format;
	hg_buf json;            /* the JSON object being built */
	bool first;
	/* tree: depth by node id (ids are store-wide): open addressing */
	int64_t *ids, *depths;
	size_t mask, used;
};

static int64_t depth_get(const struct show *s, int64_t id)
{
	if (!s->ids)
		return -1;
	for (size_t h = (size_t)id * 11400714819323198485ull & s->mask;; h = (h + 1) & s->mask) {
		if (s->ids[h] == id)
			return s->depths[h];
		if (s->ids[h] == 0)
			return -1;
	}
}

static void depth_put(struct show *s, int64_t id, int64_t depth)
{
	if (2 * (s->used + 1) > s->mask + 1 || !s->ids) { /* grow, rehash */
		size_t cap = s->ids ? 2 * (s->mask + 1) : 1024;
		int64_t *ids = calloc(cap, sizeof *ids), *depths = calloc(cap, sizeof *depths);
		if (!ids || !depths) {
			free(ids);
			free(depths);
			return;
		}
		struct show old = *s;
		s->ids = ids;
		s->depths = depths;
		s->mask = cap - 1;
		s->used = 0;
		for (size_t i = 0; old.ids && i <= old.mask; i++)
			if (old.ids[i])
				depth_put(s, old.ids[i], old.depths[i]);
		free(old.ids);
		free(old.depths);
	}
	size_t h = (size_t)id * 11400714819323198485ull & s->mask;
	while (s->ids[h] != 0 && s->ids[h] != id)
		h = (h + 1) & s->mask;
	s->used += s->ids[h] == 0;
	s->ids[h] = id;
	s->depths[h] = depth;
}

static int on_cluster(void *user, const hg_cluster_row *c)
{
	struct show *s = user;
	if (s->format == ROWS_JSON) {
		hg_buf *b = &s->json;
		hg_buf_puts(b, "{\"hash\":");
		hg_buf_json_string(b, c->hash, strlen(c->hash));
		hg_buf_puts(b, ",\"kind\":");
		hg_buf_json_string(b, c->kind, strlen(c->kind));
		hg_buf_puts(b, ",\"title\":");
		hg_buf_json_string(b, c->title, strlen(c->title));
		hg_buf_puts(b, ",\"stack_key\":{\"symbol\":");
		if (c->key_symbol)
			hg_buf_json_string(b, c->key_symbol, strlen(c->key_symbol));
		else
			hg_buf_puts(b, "null");
		hg_buf_printf(b, "},\"count\":%" PRId64 ",\"devices\":%" PRId64, c->count, c->devices);
		/* null: no report of the cluster gives its time */
		hg_buf_puts(b, ",\"first_seen\":");
		if (c->first_seen)
			hg_buf_json_string(b, c->first_seen, strlen(c->first_seen));
		else
			hg_buf_puts(b, "null");
		hg_buf_puts(b, ",\"last_seen\":");
		if (c->last_seen)
			hg_buf_json_string(b, c->last_seen, strlen(c->last_seen));
		else
			hg_buf_puts(b, "null");
		hg_buf_printf(b, ",\"cost\":{\"p50\":%" PRId64 ",\"p90\":%" PRId64 ",\"p99\":%" PRId64
			      ",\"max\":%" PRId64 "}", c->cost_p50, c->cost_p90, c->cost_p99, c->cost_max);
		hg_buf_printf(b, ",\"versions\":%s,\"signature\":%s,\"symbolicated\":%s", c->versions,
			      c->frames, c->symbolicated ? "true" : "false");
	} else if (s->format == ROWS_TABLE) {
		printf("cluster     %s\nkind        %s\ntitle       %s\n", c->hash, c->kind, c->title);
		if (c->key_symbol)
			printf("StackKey    %s\n", c->key_symbol);
		printf("reports     %" PRId64 " on %" PRId64 " device(s)%s\n", c->count, c->devices,
		       c->symbolicated ? "" : " (unsymbolicated: grouped by method ids)");
		if (c->first_seen && c->last_seen)
			printf("seen        %s .. %s\n", c->first_seen, c->last_seen);
		else
			printf("seen        unknown (no report of this cluster gives its time)\n");
		printf("cost        p50 %" PRId64 " ms, p90 %" PRId64 " ms, p99 %" PRId64 " ms, max %" PRId64
		       " ms\n", c->cost_p50, c->cost_p90, c->cost_p99, c->cost_max);
		printf("signature   %s\n", c->frames);
	}
	return 0;
}

static int on_count(void *user, const char *value, int64_t count)
{
	struct show *s = user;
	if (s->format == ROWS_JSON) {
		if (!s->first)
			hg_buf_putc(&s->json, ',');
		hg_buf_json_string(&s->json, value ? value : "", value ? strlen(value) : 0);
		hg_buf_printf(&s->json, ":%" PRId64, count);
	} else if (s->format == ROWS_TABLE) {
		printf("  %8" PRId64 "  %s\n", count, value ? value : "(unknown)");
	}
	s->first = false;
	return 0;
}

static int on_node(void *user, const hg_tree_row *n)
{
	struct show *s = user;
	int64_t parent_depth = n->parent > 0 ? depth_get(s, n->parent) : -1;
	int64_t depth = parent_depth + 1;
	if (n->id > 0)
		depth_put(s, n->id, depth);
	char reports[24], total[24], max[24], self[24], id[24], parent[24];
	snprintf(reports, sizeof reports, "%" PRId64, n->reports);
	snprintf(total, sizeof total, "%" PRId64, n->total_cost);
	snprintf(max, sizeof max, "%" PRId64, n->max_cost);
	snprintf(self, sizeof self, "%" PRId64, n->self_cost);
	snprintf(id, sizeof id, "%" PRId64, n->id);
	snprintf(parent, sizeof parent, "%" PRId64, n->parent);
	if (s->format == ROWS_JSON) {
		hg_buf *b = &s->json;
		if (!s->first)
			hg_buf_putc(b, ',');
		hg_buf_printf(b, "{\"id\":%s,\"parent\":%s,\"symbol\":", id, parent);
		hg_buf_json_string(b, n->symbol, strlen(n->symbol));
		hg_buf_printf(b, ",\"reports\":%s,\"total_cost\":%s,\"max_cost\":%s,\"self_cost\":%s,"
			      "\"key_path\":%s}", reports, total, max, self, n->on_key_path ? "true" : "false");
	} else if (s->format == ROWS_CSV) {
		struct cell cells[] = {{"id", id, 0, false},         {"parent", parent, 0, false},
				       {"symbol", n->symbol, 0, false}, {"reports", reports, 0, false},
				       {"total_cost", total, 0, false}, {"max_cost", max, 0, false},
				       {"self_cost", self, 0, false},
				       {"key_path", n->on_key_path ? "1" : "0", 0, false}};
		if (s->first)
			print_header(stdout, s->format, cells, 8);
		print_row(stdout, s->format, cells, 8);
	} else {
		printf("%8s %10s %8s %c %*s%s\n", reports, total, max, n->on_key_path ? '*' : ' ',
		       (int)(2 * (depth < 40 ? depth : 40)), "", n->symbol);
	}
	s->first = false;
	return 0;
}

static int on_sample(void *user, const hg_report_row *r)
{
	struct show *s = user;
	if (s->format == ROWS_JSON) {
		hg_buf *b = &s->json;
		if (!s->first)
			hg_buf_putc(b, ',');
		hg_buf_puts(b, "{\"source\":");
		hg_buf_json_string(b, r->source, strlen(r->source));
		hg_buf_printf(b, ",\"line\":%ld,\"cost\":%" PRId64 ",\"content_hash\":", r->line, r->cost);
		hg_buf_json_string(b, r->content_hash, strlen(r->content_hash));
		hg_buf_putc(b, '}');
	} else if (s->format == ROWS_TABLE) {
		printf("  %s:%ld  %s  %s  %s  %" PRId64 " ms\n", r->source, r->line, r->time ? r->time : "unknown-time",
		       r->version ? r->version : "-", r->device ? r->device : "-", r->cost);
	}
	s->first = false;
	return 0;
}

static const struct option long_options[] = {
	{"db", required_argument, NULL, 'D'},
	{"format", required_argument, NULL, 'f'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static int run_show(int argc, char **argv)
{
	struct show s;
	memset(&s, 0, sizeof s);
	const char *db = NULL;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'D': db = optarg; break;
		case 'f':
			if (!parse_row_format("show", optarg, &s.format))
				return EXIT_USAGE;
			break;
		case 'h': show_usage(stdout); return EXIT_FINE;
		case ':': return cli_usage_error("show", "option '%s' needs a value", argv[optind - 1]);
		default: return cli_unknown_option("show", long_options, argv, optind, optopt);
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("show", "give one cluster HASH (or a unique prefix of it)");
	hg_store *store = open_store(db);
	if (!store)
		return EXIT_SOME_FAILED;
	char hash[33];
	int rc = hg_store_resolve(store, argv[optind], hash);
	if (rc != 0) {
		fprintf(stderr, "hangar show: %s cluster '%s'\n",
			rc == HG_EPARSE ? "more than one" : "no", argv[optind]);
		hg_store_close(store);
		return EXIT_SOME_FAILED;
	}
	hg_buf_init(&s.json);
	rc = hg_store_cluster(store, hash, on_cluster, &s);
	static const char *const by[] = {"version", "device", "scene"};
	for (size_t i = 0; i < 3 && rc == 0; i++) {
		if (s.format == ROWS_JSON)
			hg_buf_printf(&s.json, ",\"by_%s\":{", by[i]);
		else if (s.format == ROWS_TABLE)
			printf("\nby %s\n", by[i]);
		s.first = true;
		rc = hg_store_cluster_counts(store, hash, by[i], on_count, &s);
		if (s.format == ROWS_JSON)
			hg_buf_putc(&s.json, '}');
	}
	if (rc == 0) {
		if (s.format == ROWS_JSON)
			hg_buf_puts(&s.json, ",\"tree\":[");
		else if (s.format == ROWS_TABLE)
			printf("\nmerged call tree\n%8s %10s %8s   %s\n", "reports", "total ms", "max ms", "frame");
		s.first = true;
		rc = hg_store_cluster_tree(store, hash, on_node, &s);
	}
	if (rc == 0 && s.format != ROWS_CSV) {
		if (s.format == ROWS_JSON)
			hg_buf_puts(&s.json, "],\"samples\":[");
		else
			printf("\nsample reports\n");
		s.first = true;
		rc = hg_store_reports(store, hash, SAMPLES, on_sample, &s);
		if (s.format == ROWS_JSON)
			hg_buf_puts(&s.json, "]}\n");
	}
	if (rc == 0 && s.format == ROWS_JSON && !s.json.failed)
		fwrite(s.json.data, 1, s.json.len, stdout);
	hg_buf_release(&s.json);
	free(s.ids);
	free(s.depths);
	hg_store_close(store);
	if (rc != 0)
		return cli_store_failed("show", rc);
	return EXIT_FINE;
}

const struct command cmd_show = {
	"show",
	"one cluster: counts, costs, signature, merged call tree, samples",
	run_show,
	show_usage,
};
