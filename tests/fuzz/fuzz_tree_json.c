/* libFuzzer target: a cluster's stored call tree (trees.nodes, read by
 * store_tree_decode).  Invariants of a text read: ids positive, strictly
 * increasing, each parent 0 or an earlier node's id, counts not negative;
 * written again (store_tree_encode) and read back, the same nodes.  A text
 * refused says where (a byte within it, or 1). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_internal.h"

static const char fuzz_target[] = "fuzz_tree_json";
#include "fuzz_fixture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (1u << 20))
		return 0;
	struct store_tree_node *nodes = NULL, *again = NULL;
	size_t n = 0, n_again = 0, bad_at = 0;
	int err = store_tree_decode((const char *)data, size, &nodes, &n, &bad_at);
	if (err) {
		require(err == HG_EPARSE || err == HG_ENOMEM, "an error is EPARSE or ENOMEM");
		require(nodes == NULL && n == 0, "nothing is kept from a refused text");
		require(err != HG_EPARSE || (bad_at >= 1 && bad_at <= size + 1),
			"a refused text says where");
		return 0;
	}
	for (size_t k = 0; k < n; k++) {
		require(nodes[k].id > 0, "ids are positive");
		require(k == 0 || nodes[k].id > nodes[k - 1].id, "ids increase");
		require(nodes[k].parent >= 0 && nodes[k].parent < nodes[k].id,
			"a parent comes before its child");
		require(nodes[k].reports >= 0 && nodes[k].total >= 0 && nodes[k].max >= 0 &&
				nodes[k].self >= 0,
			"counts are not negative");
	}
	size_t len = 0;
	char *json = store_tree_encode(nodes, n, &len);
	if (json) {
		require(store_tree_decode(json, len, &again, &n_again, &bad_at) == 0,
			"a written tree reads back");
		require(n_again == n, "a written tree reads back whole");
		for (size_t k = 0; k < n; k++) {
			const struct store_tree_node *a = &nodes[k], *b = &again[k];
			require(a->id == b->id && a->parent == b->parent && a->symbol == b->symbol &&
					a->reports == b->reports && a->total == b->total &&
					a->max == b->max && a->self == b->self && a->key == b->key,
				"a written tree reads back the same");
		}
	}
	free(json);
	free(again);
	free(nodes);
	return 0;
}
