/* A cluster as JSON and CSV (hangar show -f json, -f csv): its counts,
 * merged tree nodes, what the pruning left out, and samples; costs nobody
 * measured are null (JSON) or empty (CSV), never 0. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hangar/render.h"

void hg_render_cluster_count_json(hg_buf *b, const char *value, int64_t count, bool first)
{
	/* {"value":..,"count":..} as by_version's rows; null: unknown */
	hg_buf_puts(b, first ? "{\"value\":" : ",{\"value\":");
	if (value)
		hg_buf_json_string(b, value, strlen(value));
	else
		hg_buf_puts(b, "null");
	hg_buf_printf(b, ",\"count\":%" PRId64 "}", count);
}

/* {"nodes":N,"total_cost":C,"why":["cost","limit","depth","max_nodes"]}
 * after key. */
static void json_pruned(hg_buf *b, const char *key, int64_t nodes, int64_t cost, unsigned why)
{
	hg_buf_printf(b, "%s{\"nodes\":%" PRId64 ",\"total_cost\":%" PRId64 ",\"why\":[", key, nodes,
		      cost);
	static const char *const names[] = {"cost", "limit", "depth", "max_nodes"};
	bool first = true;
	for (unsigned i = 0; i < 4; i++)
		if (why & (1u << i)) {
			hg_buf_printf(b, "%s\"%s\"", first ? "" : ",", names[i]);
			first = false;
		}
	hg_buf_puts(b, "]}");
}

void hg_render_cluster_node_row(hg_buf *b, hg_rows f, const hg_cluster_node *n, bool cost_known,
				bool first)
{
	char reports[24], total[24], max[24], self[24], id[24], parent[24], depth[24];
	snprintf(reports, sizeof reports, "%" PRId64, n->reports);
	snprintf(total, sizeof total, "%" PRId64, n->total);
	snprintf(max, sizeof max, "%" PRId64, n->max);
	snprintf(self, sizeof self, "%" PRId64, n->self);
	if (!cost_known) { /* JSON null, CSV empty: nobody measured them */
		const char *none = f == HG_ROWS_JSON ? "null" : "";
		snprintf(total, sizeof total, "%s", none);
		snprintf(max, sizeof max, "%s", none);
		snprintf(self, sizeof self, "%s", none);
	}
	snprintf(id, sizeof id, "%" PRId64, n->id);
	snprintf(parent, sizeof parent, "%" PRId64, n->parent);
	snprintf(depth, sizeof depth, "%ld", n->depth);
	if (f == HG_ROWS_JSON) {
		if (!first)
			hg_buf_putc(b, ',');
		hg_buf_printf(b, "{\"id\":%s,\"parent\":%s,\"depth\":%s,\"symbol\":", id, parent,
			      depth);
		hg_buf_json_string(b, n->symbol, strlen(n->symbol));
		hg_buf_printf(b, ",\"reports\":%s,\"total_cost\":%s,\"max_cost\":%s,\"self_cost\":%s,"
			      "\"key_path\":%s", reports, total, max, self, n->key ? "true" : "false");
		if (n->hidden_nodes)
			json_pruned(b, ",\"pruned\":", n->hidden_nodes, n->hidden_cost, n->hidden_why);
		hg_buf_putc(b, '}');
		return;
	}
	char pruned[24];
	snprintf(pruned, sizeof pruned, "%" PRId64, n->hidden_nodes);
	hg_row_cell cells[] = {{"id", id, 0, false},            {"parent", parent, 0, false},
			       {"symbol", n->symbol, 0, false},    {"reports", reports, 0, false},
			       {"total_cost", total, 0, false},    {"max_cost", max, 0, false},
			       {"self_cost", self, 0, false},
			       {"key_path", n->key ? "1" : "0", 0, false},
			       {"depth", depth, 0, false},         {"pruned", pruned, 0, false}};
	if (first)
		hg_render_row_header(b, f, cells, 10);
	hg_render_row(b, f, cells, 10);
}

void hg_render_cluster_pruned_json(hg_buf *b, const hg_cluster_tree *t,
				   const hg_cluster_tree_opts *o, unsigned read_why)
{
	size_t total = t->stored > t->n ? t->stored : t->n;
	hg_buf_printf(b, "],\"tree_pruned\":{\"shown\":%zu,\"total\":%zu,"
		      "\"min_cost\":%" PRId64 ",\"max_depth\":%ld,\"limit\":%ld",
		      t->shown, total, t->min_cost, o->max_depth > 0 ? o->max_depth : 0,
		      o->limit > 0 ? o->limit : 0);
	json_pruned(b, ",\"roots\":", t->roots_hidden_nodes, t->roots_hidden_cost,
		    t->roots_hidden_why);
	if (read_why & HG_TREE_LEFT_CAP)
		hg_buf_printf(b, ",\"max_nodes\":%zu,\"read\":%zu", o->max_nodes, t->n);
	hg_buf_putc(b, '}');
}

void hg_render_cluster_sample_json(hg_buf *b, const hg_report_row *r, bool first)
{
	if (!first)
		hg_buf_putc(b, ',');
	hg_buf_puts(b, "{\"source\":");
	hg_buf_json_string(b, r->source, strlen(r->source));
	hg_buf_printf(b, ",\"line\":%ld,\"cost\":", r->line);
	if (r->cost_known)
		hg_buf_printf(b, "%" PRId64, r->cost);
	else
		hg_buf_puts(b, "null"); /* nobody measured it (FPS) */
	hg_buf_puts(b, ",\"content_hash\":");
	hg_buf_json_string(b, r->content_hash, strlen(r->content_hash));
	hg_buf_putc(b, '}');
}
