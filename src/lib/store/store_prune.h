/* What store_prune.c asks of store_vacuum.c: the connection set up for a
 * big delete, the freed pages given back, the store's size. */
#ifndef HANGAR_STORE_PRUNE_H
#define HANGAR_STORE_PRUNE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct hg_store hg_store;

/* The connection's settings before prune_conn_begin changed them. */
struct prune_conn {
	int64_t secure_delete, cache_size;
	bool set;
};
/* secure_delete FAST and a bigger page cache for the deletes; end puts
 * back what begin found (c->set false: nothing to put back).  0 or an hg
 * error. */
int prune_conn_begin(hg_store *store, struct prune_conn *c);
void prune_conn_end(hg_store *store, const struct prune_conn *c);

/* Gives the free pages back to the file system: PRAGMA incremental_vacuum,
 * or for a store made without it (auto_vacuum NONE) one VACUUM that turns
 * it on (*rewritten set).  0 or an hg error. */
int prune_shrink(hg_store *store, bool *rewritten);

/* The store's size: its pages times their size.  0 or an hg error. */
int prune_store_bytes(hg_store *store, int64_t *bytes);

#endif
