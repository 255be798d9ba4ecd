/* hangar show: everything about one cluster. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hangar/render.h"
#include "show_explain.h"
#include "show_flame.h"
#include "store_cli.h"

#define SAMPLES 5
#define PAGE_VALUES 10 /* values of each breakdown, blockers and variants */

/* The tree's defaults: about a screen (30 nodes and the lines saying
 * what was left out) whatever the cluster; 39 real Matrix reports merge
 * into 282 nodes, and a bucket's big clusters into thousands. */
#define DEFAULT_MIN_SHARE 0.001  /* --min-cost: 0.1% of the tree's cost */
#define DEFAULT_LIMIT 30         /* --limit: nodes, the costliest */
#define DEFAULT_MAX_DEPTH 0      /* --max-depth: all levels (the limit prunes) */
/* --max-nodes: the nodes of the stored tree read at most, the costliest,
 * whatever the view (--all, JSON, the flame graphs): what show holds stays
 * ~15 MB when one upload made a million-node tree (that took 413 MB). */
#define DEFAULT_MAX_NODES 50000

static void show_usage(FILE *out)
{
	fprintf(out,
		"usage: hangar show [OPTIONS] HASH\n"
		"\n"
		"One cluster (a unique prefix of its hash is enough): counts by version,\n"
		"device and scene, first and last seen, cost p50/p90/p99, its signature, the\n"
		"merged call tree of all its reports (reports through each node, total and\n"
		"maximum cost; * marks the StackKey path) and a few sample reports.\n"
		"The tree lists children costliest first and leaves out what is cheap, too\n"
		"deep or past the limit, saying so; the StackKey path is always shown.\n"
		"\n"
		"Options:\n"
		"      --db FILE       the store (default: $HANGAR_DB, else ./hangar.db)\n"
		"      --min-cost C    tree: nodes costing at least C ms, or C%% of the tree's\n"
		"                      cost (default 0.1%%; 0: any)\n"
		"      --max-depth N   tree: at most N levels (default 0: all)\n"
		"      --limit N       tree: at most N nodes, the costliest (default 30; 0: all)\n"
		"  -a, --all           tree: every node (--min-cost 0 --limit 0 --max-depth 0)\n"
		"      --max-nodes N   read at most N nodes of the tree, the costliest, in\n"
		"                      every format; the rest is counted (default 50000;\n"
		"                      0: all)\n"
		"  -f, --format F      table (default), json (one object), csv (the tree), or\n"
		"                      the merged tree as a flame graph: folded\n"
		"                      (FlameGraph), speedscope, chrome (Perfetto UI) or svg\n"
		"                      (an interactive flame graph for a browser)\n"
		"      --explain       why its reports have its signature: on its newest\n"
		"                      report, read again, each frame's owner and the rule\n"
		"                      that decided (table or json)\n"
		"      --rules FILE    --explain: grouping rules, as ingest was given\n"
		"  -m, --mapping FILE  --explain: methodMapping.txt, as ingest was given\n"
		"      --mapping-dir DIR  --explain: per-version mappings, as ingest\n"
		"      --proguard FILE --explain: a ProGuard/R8 mapping.txt\n"
		"      --sessions FILE the cluster's rate: reports per 1,000 sessions (CSV:\n"
		"                      version[,day],sessions; hangar-formats(5))\n"
		"      --callers       with a flame format: the StackKey's callers merged\n"
		"                      upward, whatever screen reached it\n"
		"      --width N       fit the table to N columns (0: no limit; default: the\n"
		"                      terminal's width, no limit when not a terminal)\n"
		"  -h, --help          show this help\n");
}

struct show {
	hg_rows format;
	const hg_output_format *output; /* -f, a row of hg_output_formats */
	hg_buf json;            /* the JSON object being built */
	hg_buf text;            /* the table: lines for a person, written as made */
	bool first;
	hg_cluster_tree tree;
	hg_cluster_tree_opts opts;
	unsigned read_why;      /* why the reading left nodes out: HG_TREE_LEFT_* */
	int width;              /* --width: 0 = no limit */
	bool width_set;
	bool figures;           /* the cluster has FPS or startup figures */
	bool cost_known;        /* some report measured its cost: else the tree's
				 * costs are unknown (null, "—"), not 0 */
	bool callers;           /* --callers: the flame of the StackKey's callers */
	bool explain;           /* --explain: why its reports have its signature */
	const char *sessions;   /* --sessions FILE: the cluster's rate */
	struct show_explain_opts ex; /* --rules and the mappings, for --explain */
};

/* Writes what a renderer appended to s->text (escaped for a terminal)
 * and empties it. */
static void put_text(struct show *s)
{
	if (!s->text.failed && s->text.len)
		cli_write_text(stdout, s->text.data, s->text.len);
	hg_buf_release(&s->text);
}

static int on_cluster(void *user, const hg_cluster_row *c)
{
	struct show *s = user;
	s->figures = c->figures != NULL;
	s->cost_known = c->cost_reports > 0;
	if (s->format == HG_ROWS_JSON) {
		/* The keys of a top row, then what only show has */
		hg_buf *b = &s->json;
		hg_buf_putc(b, '{');
		hg_cluster_json_members(b, c);
		hg_buf_printf(b, ",\"signature\":%s", c->frames);
	} else if (s->format == HG_ROWS_TABLE) {
		hg_render_cluster_header(&s->text, c, s->width);
		put_text(s);
	}
	return 0;
}

static void on_node(void *user, const hg_cluster_node *n)
{
	struct show *s = user;
	if (s->format == HG_ROWS_JSON) {
		hg_render_cluster_node_row(&s->json, HG_ROWS_JSON, n, s->cost_known, s->first);
	} else if (s->format == HG_ROWS_CSV) {
		hg_buf row;
		hg_buf_init(&row);
		hg_render_cluster_node_row(&row, HG_ROWS_CSV, n, s->cost_known, s->first);
		if (!row.failed && row.len)
			fwrite(row.data, 1, row.len, stdout);
		hg_buf_release(&row);
	} else {
		hg_render_cluster_node(&s->text, n, s->width, s->cost_known);
		put_text(s);
	}
	s->first = false;
}

/* What was left out under a node: one line where its children would be
 * (the table; JSON and CSV give the counts with the node). */
static void on_hidden(void *user, const hg_cluster_node *parent, long depth, int64_t nodes,
		      int64_t cost, unsigned why)
{
	struct show *s = user;
	(void)parent;
	if (s->format != HG_ROWS_TABLE)
		return;
	char reason[160];
	hg_cluster_tree_why(&s->opts, s->tree.min_cost, why, reason, sizeof reason);
	hg_render_cluster_hidden(&s->text, depth, nodes, s->cost_known ? cost : -1, reason, s->width);
	put_text(s);
}

/* The tree, pruned, in cost order; then (table, JSON) how much was shown. */
static int print_tree(struct show *s)
{
	int rc = hg_cluster_tree_prune(&s->tree, &s->opts);
	hg_cluster_visitor v = {on_node, on_hidden, s};
	s->first = true;
	if (!rc)
		rc = hg_cluster_tree_walk(&s->tree, &v);
	if (rc)
		return rc;
	const hg_cluster_tree *t = &s->tree;
	size_t total = t->stored > t->n ? t->stored : t->n;
	if (s->format == HG_ROWS_JSON) {
		hg_render_cluster_pruned_json(&s->json, t, &s->opts, s->read_why);
	} else if (s->format == HG_ROWS_TABLE && t->shown < total) {
		char line[160];
		if (s->read_why & HG_TREE_LEFT_CAP) /* --all would not show them */
			snprintf(line, sizeof line, "(%zu of %zu nodes shown, of %zu read: --max-nodes 0 "
				 "reads every one)", t->shown, total, t->n);
		else
			snprintf(line, sizeof line, "(%zu of %zu nodes shown; --all shows every one)",
				 t->shown, total);
		hg_render_wrap(&s->text, "", " ", line, strlen(line), s->width);
		put_text(s);
	}
	return 0;
}

static int on_sample(void *user, const hg_report_row *r)
{
	struct show *s = user;
	if (s->format == HG_ROWS_JSON) {
		hg_render_cluster_sample_json(&s->json, r, s->first);
	} else if (s->format == HG_ROWS_TABLE) {
		hg_render_cluster_sample(&s->text, r, s->width);
		put_text(s);
	}
	s->first = false;
	return 0;
}

static const struct option long_options[] = {
	{"db", required_argument, NULL, 'D'},
	{"min-cost", required_argument, NULL, 'C'},
	{"max-depth", required_argument, NULL, 'M'},
	{"limit", required_argument, NULL, 'L'},
	{"max-nodes", required_argument, NULL, 'N'},
	{"all", no_argument, NULL, 'a'},
	{"format", required_argument, NULL, 'f'},
	{"width", required_argument, NULL, 'w'},
	{"callers", no_argument, NULL, 'K'},
	{"explain", no_argument, NULL, 'E'},
	{"sessions", required_argument, NULL, 'S'},
	{"rules", required_argument, NULL, 'r'},
	{"mapping", required_argument, NULL, 'm'},
	{"mapping-dir", required_argument, NULL, 'd'},
	{"proguard", required_argument, NULL, 'p'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* --min-cost: ms ("50") or a share of the tree's cost ("2%", "0.5%"). */
static bool parse_min_cost(const char *arg, hg_cluster_tree_opts *o)
{
	size_t len = strlen(arg);
	if (len > 1 && arg[len - 1] == '%') {
		char *end = NULL;
		double pct = strtod(arg, &end);
		if (end != arg + len - 1 || !(pct >= 0 && pct <= 100))
			return false;
		o->min_cost = -1;
		o->min_share = pct / 100;
		return true;
	}
	int64_t ms;
	if (!cli_parse_int64(arg, &ms) || ms < 0)
		return false;
	o->min_cost = ms;
	return true;
}

static int parse_options(int argc, char **argv, struct show *s, const char **db)
{
	int c;
	int64_t v;
	struct store_cmd sc = {"show", show_usage, long_options, NULL, s->format};
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":af:hm:", long_options, NULL)) != -1) {
		switch (c) {
		case 'C':
			if (!parse_min_cost(optarg, &s->opts))
				return cli_usage_error("show", "--min-cost wants ms (50) or a share of the "
						       "cost (2%%), not '%s'", optarg);
			break;
		case 'M':
		case 'L':
			if (!cli_parse_int64(optarg, &v) || v < 0 || v > 1000000)
				return cli_usage_error("show", "%s wants a count >= 0, not '%s'",
						       c == 'M' ? "--max-depth" : "--limit", optarg);
			if (c == 'M')
				s->opts.max_depth = (long)v;
			else
				s->opts.limit = (long)v;
			break;
		case 'N':
			if (!cli_parse_int64(optarg, &v) || v < 0 || v > 100000000)
				return cli_usage_error("show", "--max-nodes wants a count >= 0, not '%s'",
						       optarg);
			s->opts.max_nodes = (size_t)v;
			break;
		case 'a': /* not --max-nodes: that bounds what show holds */
			s->opts.min_cost = 0;
			s->opts.min_share = 0;
			s->opts.max_depth = 0;
			s->opts.limit = 0;
			break;
		case 'K':
			s->callers = true;
			break;
		case 'E':
			s->explain = true;
			break;
		case 'S': s->sessions = optarg; break;
		case 'r': s->ex.rules = optarg; break;
		case 'm': s->ex.mapping = optarg; break;
		case 'd': s->ex.mapping_dir = optarg; break;
		case 'p':
			if (s->ex.proguard)
				return cli_usage_error("show", "--proguard: give one mapping.txt");
			s->ex.proguard = optarg;
			break;
		case 'w':
			if (!cli_parse_width(optarg, &s->width))
				return cli_usage_error("show", "--width wants columns >= 0 (0: no limit), "
						       "not '%s'", optarg);
			s->width_set = true;
			break;
		case 'f':
			if (!(s->output = hg_output_format_find(optarg, HG_RENDERS_CLUSTER)))
				return cli_format_error("show", optarg, HG_RENDERS_CLUSTER);
			if (s->output->flame)
				break;
			if (store_cmd_option(&sc, c, argv) != STORE_CMD_NEXT)
				return EXIT_USAGE; /* not reached: the name is one it knows */
			break;
		default: {
			int rc = store_cmd_option(&sc, c, argv);
			if (rc != STORE_CMD_NEXT)
				return rc == EXIT_FINE && c == 'h' ? -1 : rc;
		}
		}
	}
	s->format = sc.format;
	*db = sc.db;
	if (!s->width_set)
		s->width = cli_default_width(STDOUT_FILENO);
	if ((s->ex.rules || s->ex.mapping || s->ex.mapping_dir || s->ex.proguard) && !s->explain)
		return cli_usage_error("show", "--rules and the mappings are for --explain");
	if (s->explain && s->output && s->output->flame)
		return cli_usage_error("show", "--explain writes text or JSON, not a flame graph");
	if (s->callers && !(s->output && s->output->flame))
		return cli_usage_error("show", "--callers draws a flame graph: give it with -f svg, "
				       "speedscope, chrome or folded");
	if (optind + 1 != argc)
		return cli_usage_error("show", "give one cluster HASH (or a unique prefix of it)");
	return EXIT_FINE;
}

/* The tree, pruned as it is read by the options that prune it (what they
 * leave out is left out here the same way), and at most --max-nodes. */
static int read_tree(hg_store *store, const char *hash, struct show *s)
{
	const hg_cluster_tree_opts *o = &s->opts;
	hg_tree_prune prune = {o->min_cost, o->min_share, o->max_depth, o->max_nodes};
	hg_tree_read read;
	int rc = hg_store_cluster_tree_pruned(store, hash, &prune, hg_cluster_tree_add, hg_cluster_tree_left,
					      &s->tree, &read);
	if (rc == 0) {
		s->tree.stored = (size_t)read.nodes;
		s->read_why = read.why;
	}
	return rc;
}

static int run_show(int argc, char **argv)
{
	struct show s;
	memset(&s, 0, sizeof s);
	s.opts = (hg_cluster_tree_opts){-1, DEFAULT_MIN_SHARE, DEFAULT_MAX_DEPTH, DEFAULT_LIMIT,
					 DEFAULT_MAX_NODES};
	const char *db = NULL;
	int status = parse_options(argc, argv, &s, &db);
	if (status != EXIT_FINE)
		return status < 0 ? EXIT_FINE : status;
	hg_sessions *sessions = NULL; /* read before the store, as top reads it */
	if (s.sessions && cli_sessions_read(s.sessions, &sessions) != EXIT_FINE)
		return EXIT_SOME_FAILED;
	hg_store *store = open_store(db);
	if (!store) {
		hg_sessions_destroy(sessions);
		return EXIT_SOME_FAILED;
	}
	char hash[33];
	int rc = hg_store_resolve(store, argv[optind], hash);
	if (rc != 0) {
		fprintf(stderr, "hangar show: %s cluster '%s'\n",
			rc == HG_EPARSE ? "more than one" : "no", argv[optind]);
		hg_store_close(store);
		hg_sessions_destroy(sessions);
		return EXIT_SOME_FAILED;
	}
	if (s.explain) {
		s.ex.width = s.width;
		s.ex.json = s.format == HG_ROWS_JSON;
		status = show_explain(store, hash, &s.ex);
		hg_store_close(store);
		hg_sessions_destroy(sessions);
		return status;
	}
	if (s.output && s.output->flame) {
		rc = show_flame(store, hash, s.output, s.opts.max_nodes, s.callers);
		hg_store_close(store);
		hg_sessions_destroy(sessions);
		/* HG_ENOENT: no StackKey to draw the callers of, said already */
		return rc == HG_ENOENT ? EXIT_SOME_FAILED : rc ? cli_store_failed("show", rc) : EXIT_FINE;
	}
	hg_buf_init(&s.json);
	hg_buf_init(&s.text);
	hg_cluster_tree_init(&s.tree);
	hg_top_query q = {.sessions = sessions};
	rc = hg_store_cluster_in(store, hash, &q, on_cluster, &s);
	hg_cluster_page page;
	if (rc == 0 && s.format != HG_ROWS_CSV)
		rc = hg_store_cluster_page(store, hash, PAGE_VALUES, &page);
	if (rc == 0 && s.format != HG_ROWS_CSV) {
		if (s.format == HG_ROWS_JSON)
			hg_render_cluster_page_json(&s.json, &page);
		else
			hg_render_cluster_page(&s.text, &page, s.width);
		hg_cluster_page_release(&page);
		put_text(&s);
	}
	if (rc == 0 && s.figures)
		rc = hg_render_cluster_figures(s.format == HG_ROWS_JSON ? &s.json : &s.text, store, hash,
					       s.format);
	put_text(&s);
	if (rc == 0)
		rc = read_tree(store, hash, &s);
	if (rc == 0) {
		if (s.format == HG_ROWS_JSON)
			hg_buf_puts(&s.json, ",\"tree\":[");
		else if (s.format == HG_ROWS_TABLE)
			cli_printf("\nmerged call tree\n%8s %10s %8s   %s\n", "reports", "total ms", "max ms", "frame");
		rc = print_tree(&s);
	}
	if (rc == 0 && s.format != HG_ROWS_CSV) {
		if (s.format == HG_ROWS_JSON)
			hg_buf_puts(&s.json, ",\"samples\":[");
		else
			cli_printf("\nsample reports\n");
		s.first = true;
		rc = hg_store_reports(store, hash, SAMPLES, on_sample, &s);
		if (s.format == HG_ROWS_JSON)
			hg_buf_puts(&s.json, "]}\n");
	}
	if (rc == 0 && s.format == HG_ROWS_JSON && !s.json.failed)
		fwrite(s.json.data, 1, s.json.len, stdout);
	hg_buf_release(&s.json);
	hg_buf_release(&s.text);
	hg_cluster_tree_release(&s.tree);
	hg_store_close(store);
	hg_sessions_destroy(sessions);
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
